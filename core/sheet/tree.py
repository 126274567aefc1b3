"""The rows of a sheet as a tree: nesting, paths, look-ups by name, and what kind of
descriptor each row is (an Item, an Ability or a Use; whether it can be used now).

:class:`RowTree` is the read-only half of :class:`~gmdesk.core.sheet.sheet.Sheet`
(its base class): every question asked of the rows, none of the changes."""

from __future__ import annotations

from functools import cached_property

from gmdesk.core.errors import ParamError
from gmdesk.core.sheet.descriptors import is_ability_name, is_item_or_ability_name, norm
from gmdesk.core.sheet.row import UNUSABLE_AT, Row, Uses


def _split_path(name: str) -> list[str]:
    return [norm(p) for p in str(name).split("/") if p.strip()]


def _row_matches(row: Row, key: str) -> bool:
    return key == norm(row.name) or key == norm(row.label)


class RowTree:
    """The questions a sheet's rows answer; nesting comes from ``Row.depth``."""

    rows: tuple[Row, ...]

    # -- structure --------------------------------------------------------------------------

    @cached_property
    def _parents(self) -> tuple[int | None, ...]:
        out: list[int | None] = []
        stack: list[int] = []
        for i, r in enumerate(self.rows):
            while stack and self.rows[stack[-1]].depth >= r.depth:
                stack.pop()
            out.append(stack[-1] if stack else None)
            stack.append(i)
        return tuple(out)

    def parent_index(self, i: int) -> int | None:
        return self._parents[i]

    def parent(self, name: str) -> Row | None:
        p = self._parents[self.index(name)]
        return None if p is None else self.rows[p]

    def _chain(self, i: int) -> list[int]:
        chain = [i]
        while (p := self._parents[chain[-1]]) is not None:
            chain.append(p)
        return chain[::-1]

    def path(self, i: int) -> str:
        """``Magic Ability/Turn Invisible``: the names from the top row down to row ``i``."""
        return "/".join(self.rows[j].name for j in self._chain(i))

    def entries(self) -> tuple[tuple[str, Row], ...]:
        """Every row with its path."""
        return tuple((self.path(i), r) for i, r in enumerate(self.rows))

    def children(self, name: str) -> tuple[Row, ...]:
        i = self.index(name)
        return tuple(r for j, r in enumerate(self.rows) if self._parents[j] == i)

    def _subtree_end(self, i: int) -> int:
        j = i + 1
        while j < len(self.rows) and self.rows[j].depth > self.rows[i].depth:
            j += 1
        return j

    # -- lookup -----------------------------------------------------------------------------

    def _find_index(self, name: str) -> int | None:
        parts = _split_path(name)
        if not parts:
            raise ParamError("descriptor", "give a descriptor name (nested ones as 'Magic Ability/Turn Invisible')")
        hits: list[int] = []
        rooted: list[int] = []
        for i, r in enumerate(self.rows):
            if not _row_matches(r, parts[-1]):
                continue
            chain = self._chain(i)
            if len(chain) < len(parts):
                continue
            tail = chain[-len(parts) :]
            if all(_row_matches(self.rows[j], p) for j, p in zip(tail, parts, strict=False)):
                hits.append(i)
                if len(chain) == len(parts):
                    rooted.append(i)
        if len(hits) == 1:
            return hits[0]
        if not hits:
            return None
        if len(rooted) == 1:  # a top-level row wins over nested rows of the same name
            return rooted[0]
        raise ParamError(
            "descriptor", f"{name!r} is ambiguous; write one of " + ", ".join(repr(self.path(i)) for i in hits)
        )

    def find(self, name: str) -> Row | None:
        """The row called ``name`` (case-insensitive; ``Magic Ability/Turn Invisible``
        for a nested row, or just its name when that is unique; a top-level row wins
        over nested rows of the same name). None when missing; ParamError when
        ambiguous."""
        i = self._find_index(name)
        return None if i is None else self.rows[i]

    def index(self, name: str) -> int:
        i = self._find_index(name)
        if i is None:
            raise ParamError("descriptor", f"{name!r} is not on the sheet")
        return i

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find_index(name) is not None

    def value(self, name: str) -> int:
        """The number a Test adds: Current if written, else Default; missing → +0."""
        r = self.find(name)
        return 0 if r is None else r.value

    def uses(self, name: str) -> Uses:
        r = self.find(name)
        return None if r is None else r.uses

    # -- kinds ------------------------------------------------------------------------------

    def is_sub_ability(self, name_or_index: str | int) -> bool:
        """A Sub-Ability (a Use): starred, or nested directly under an Ability."""
        i = name_or_index if isinstance(name_or_index, int) else self.index(name_or_index)
        r = self.rows[i]
        p = self._parents[i]
        return r.sub or (p is not None and is_ability_name(self.rows[p].name))

    def item_keys(self) -> frozenset[str]:
        """The Physical Items the sheet lists (:func:`item_key` of each): the rows that
        are neither Core Descriptors, Expertise, Test Descriptors, Abilities nor
        Uses (:meth:`is_item_or_ability`)."""
        from gmdesk.core.sheet.descriptors import item_key

        return frozenset(
            item_key(r.name)
            for i, r in enumerate(self.rows)
            if not is_ability_name(r.name) and not self.is_sub_ability(i) and self.is_item_or_ability(i)
        )

    def find_item(self, name: str) -> int | None:
        """The row of the Physical Item ``name`` names whatever its count or number
        (``Shovel`` finds ``2 shovels``), or None (several: the first)."""
        from gmdesk.core.sheet.descriptors import item_key

        key = item_key(name)
        for i, r in enumerate(self.rows):
            if item_key(r.name) == key and not is_ability_name(r.name) and self.is_item_or_ability(i):
                return i
        return None

    def is_item_or_ability(self, name_or_index: str | int) -> bool:
        """Whether a row is a Physical Item, an Ability or a Use — things a character
        either has or lacks, which cannot be used once they are missing.

        Abilities contain the word Ability; Uses are Sub-Abilities. For the rest gmdesk
        uses one rule (:func:`is_item_or_ability_name`): a descriptor that is neither a
        Core Descriptor, nor an Expertise, nor a Test Descriptor is a Physical Item
        (``Slingshot +4``, ``Medical Kit``, ``2 shovels``, ``Sneak +1``).
        """
        i = name_or_index if isinstance(name_or_index, int) else self.index(name_or_index)
        r = self.rows[i]
        if is_ability_name(r.name) or self.is_sub_ability(i):
            return True
        return is_item_or_ability_name(r.name)

    def blocked(self, name: str) -> str | None:
        """Why ``name`` cannot be used in a Test now (None if it can): at or below −5,
        at (0) uses (its own or, for a Sub-Ability, its parent's). Missing rows are not
        judged here (see ``core.systems.one_d6_x4.test_bonus``)."""
        i = self._find_index(name)
        if i is None:
            return None
        return self._blocked_at(i)

    def _blocked_at(self, i: int) -> str | None:
        r = self.rows[i]
        if r.value <= UNUSABLE_AT:
            return f"{self.path(i)} is at {r.value:+d}"
        if r.uses == 0:
            return f"{self.path(i)} is at (0)"
        p = self._parents[i]
        if p is not None and self.is_sub_ability(i):
            pr = self.rows[p]
            if pr.uses == 0:
                return f"{self.path(p)} is at (0)"
            if pr.value <= UNUSABLE_AT:
                return f"{self.path(p)} is at {pr.value:+d}"
        return None
