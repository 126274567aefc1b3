"""The Sheet: an immutable tree of descriptor rows and its changes, read from and written as text.

What the rows answer (nesting, paths, look-ups, kinds) is its base class,
:class:`~gmdesk.core.sheet.tree.RowTree`."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from gmdesk.core.dice import Die, RandomSource
from gmdesk.core.errors import ParamError, SheetError
from gmdesk.core.sheet.descriptors import core_descriptors, is_item_or_ability_name, norm
from gmdesk.core.sheet.line import (
    COLUMN_LINE,
    Cols,
    LineError,
    check_parens,
    parse_columns,
    parse_row,
    row_text,
    scan,
    title_line,
    widen,
)
from gmdesk.core.sheet.row import INF, TAB, UNUSABLE_AT, Row, Uses
from gmdesk.core.sheet.text import Layout, read_text, write_text
from gmdesk.core.sheet.tree import RowTree


class CannotUse(SheetError):
    """A descriptor cannot be used now: at (0) uses, at −5 or below, or missing."""


class _Keep:
    """Marker for "leave this value as it is" in the ``set_*`` methods."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()


def _add(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _add_uses(a: Uses, b: Uses) -> Uses:
    if a is None:
        return b
    if b is None:
        return a
    if a == INF or b == INF:
        return INF
    return int(a) + int(b)


def _check_value(option: str, v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    try:
        return int(str(v).strip().replace("\u2212", "-"))
    except ValueError:
        raise ParamError(option, f"must be a whole number like +2 or -1, or empty (got {v!r})") from None


def _check_uses(option: str, u: Any) -> Uses:
    if u is None:
        return None
    if isinstance(u, str):
        s = u.strip().strip("()").strip()
        if s.casefold() == INF:
            return INF
        if s == "":
            return None
        try:
            u = int(s)
        except ValueError:
            raise ParamError(option, f"must be a count N ≥ 0 or 'inf', or empty (got {u!r})") from None
    if isinstance(u, int) and not isinstance(u, bool) and u >= 0:
        return u
    raise ParamError(option, f"must be a count N ≥ 0 or 'inf', or empty (got {u!r})")


@dataclass(frozen=True)
class Sheet(RowTree):
    """A Character Descriptor Sheet (or a template: ``has_columns`` False).

    Immutable; every change returns a new Sheet. Rows are in sheet order; nesting
    comes from ``Row.depth``.
    """

    header: str = ""
    rows: tuple[Row, ...] = ()
    has_notes_column: bool = False
    has_columns: bool = True
    layout: Layout = field(default=Layout(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", tuple(self.rows))
        if self.has_columns and self.layout.column_line is None:
            # fix the column line once, so rows added later line up with the same headings
            object.__setattr__(self, "layout", dataclasses.replace(self.layout, column_line=self._column_line))
            self.__dict__.pop("_column_line", None)
        if not self.has_columns and self.header and ("\n" in self.header.strip() or not title_line(self.header)):
            raise ParamError("header", "a sheet without a column line can only have a one-line 'Name:' title")
        if any(COLUMN_LINE.match(x) for x in self.header.split("\n")):
            raise ParamError("header", "the header cannot look like the column line 'Descriptor  Default …'")

    # -- text -------------------------------------------------------------------------------

    @cached_property
    def _cols(self) -> Cols | None:
        if not self.has_columns:
            return None
        return parse_columns(self._column_line)

    @cached_property
    def _column_line(self) -> str:
        line = self.layout.column_line
        if line is not None:
            has_notes = re.search(r"\bNotes\b", line, re.I) is not None
            if has_notes == self.has_notes_column:
                return line
            cr = "\r" if line.endswith("\r") else ""
            body = line[:-1] if cr else line
            if self.has_notes_column:
                cols = parse_columns(body)
                n = max((cols.c if cols.c is not None else cols.d) + 11, len(body.rstrip().expandtabs(TAB)) + 4)
                body = body.rstrip().expandtabs(TAB)
                return body + " " * (n - len(body)) + "Notes" + cr
            return re.sub(r"\s*\bNotes\b\s*$", "", body, flags=re.I) + cr
        width = max([18] + [r.depth + (1 if r.sub else 0) + len(r.label) + 3 for r in self.rows])
        line = f"{'Descriptor':<{width}}{'Default':<11}Current"
        if self.has_notes_column:
            line += " " * 4 + "Notes"
        return line

    def text(self) -> str:
        """The sheet as text; ``parse_sheet(s.text()) == s``, and a sheet read from text
        and left unchanged is written back byte for byte."""
        return write_text(
            self.header,
            self.rows,
            self.layout,
            column_line=self._column_line if self.has_columns else None,
            cols=self._cols,
            cr=self._cr,
        )

    def __str__(self) -> str:
        return self.text()

    def _with_rows(self, rows: Iterable[Row]) -> Sheet:
        return dataclasses.replace(self, rows=tuple(rows))

    def _noting(self, row: Row) -> Sheet:
        """This sheet, with a Notes heading when ``row`` brings the first notes."""
        if row.notes and self.has_columns and not self.has_notes_column:
            return dataclasses.replace(self, has_notes_column=True)
        return self

    def _laid_out(self, row: Row) -> Row:
        """The row with ``raw`` brought up to date with its values."""
        return dataclasses.replace(row, raw=row_text(row, self._cols, self._cr, self._grid))

    @cached_property
    def _grid(self) -> dict[str, int]:
        """Where this sheet's rows put each piece (``dv du cv cu notes``): the column most
        of them use (the leftmost of a tie); a Current cell no row has yet lines up
        with the Default cells as the column line's headings do. A value a row gains
        goes there, so the columns stay aligned."""
        cols = self._cols
        if cols is None:
            return {}
        seen: list[dict[str, int]] = []
        for r in self.rows:
            if r.raw is None:
                continue
            try:
                _, pos = parse_row(r.raw[:-1] if r.raw.endswith("\r") else r.raw, cols)
            except LineError:
                continue
            seen.append(pos.cols)

        def most(piece: str, among: list[dict[str, int]]) -> int | None:
            counts = Counter(c[piece] for c in among if piece in c)
            return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else None

        grid: dict[str, int] = {}
        for piece in ("dv", "du", "notes"):
            col = most(piece, seen)
            if col is not None:
                grid[piece] = col
        dv = grid.setdefault("dv", cols.d + 1)
        du = grid.setdefault("du", dv + 3)
        # a row whose Default cell was pushed right by a long name says nothing of the Current column
        fits = [c for c in seen if c.get("dv", dv) <= dv and c.get("du", du) <= du]
        for piece in ("cv", "cu"):
            col = most(piece, fits)
            if col is not None:
                grid[piece] = col
        if cols.c is not None:
            cv = grid.setdefault("cv", dv + cols.c - cols.d)
            grid.setdefault("cu", cv + du - dv)
        return grid

    def _fitting(self, row: Row) -> Sheet:
        """This sheet, its Default column (and every column after it) widened when
        ``row``'s name would not fit before it: the rows' pieces move right together,
        so the columns stay aligned. A sheet whose columns fit is returned as it is."""
        cols = self._cols
        if cols is None or self.layout.column_line is None:
            return self
        if row.default is not None or row.current is not None:
            first = self._grid.get("dv", cols.d + 1)
        elif row.uses_default is not None or row.uses_current is not None:
            first = self._grid.get("du", cols.d + 4)
        else:
            return self  # an Item without values: nothing to line up
        by = row.depth + (1 if row.sub else 0) + len(row.label) + 2 - first
        if by <= 0:
            return self
        line = self.layout.column_line
        cr = "\r" if line.endswith("\r") else ""
        body = (line[:-1] if cr else line).expandtabs(TAB)
        wider = body[: cols.d] + " " * by + body[cols.d :] + cr
        rows = tuple(dataclasses.replace(r, raw=widen(r.raw, cols, by)) if r.raw is not None else r for r in self.rows)
        return dataclasses.replace(self, rows=rows, layout=dataclasses.replace(self.layout, column_line=wider))

    @cached_property
    def _cr(self) -> str:
        """ "\r" when the text this sheet was read from has CRLF line endings."""
        first = self.layout.column_line or next((r.raw for r in self.rows if r.raw is not None), None)
        if first is None and self.layout.head:
            first = self.layout.head[0]
        return "\r" if first is not None and first.endswith("\r") else ""

    def with_header(self, header: str) -> Sheet:
        """The sheet with another header (a template gains a column line, its rows are
        laid out again under it)."""
        header = str(header).strip("\n")
        if self.has_columns or not header or title_line(header):
            return dataclasses.replace(self, header=header)
        return dataclasses.replace(
            self,
            header=header,
            has_columns=True,
            layout=Layout(tail=self.layout.tail, final_newline=self.layout.final_newline),
        ).relayout()

    def relayout(self) -> Sheet:
        """Every row laid out afresh under the column line (blank lines kept)."""
        bare = self._with_rows(dataclasses.replace(r, raw=None) for r in self.rows)
        return bare._with_rows(bare._laid_out(r) for r in bare.rows)

    # -- changes ----------------------------------------------------------------------------

    def _replace_at(self, i: int, row: Row) -> Sheet:
        s = self._noting(row)
        rows = list(s.rows)
        rows[i] = s._laid_out(row)
        return s._with_rows(rows)

    def set_values(
        self, name: str, *, default: Any = KEEP, current: Any = KEEP, uses_default: Any = KEEP, uses_current: Any = KEEP
    ) -> Sheet:
        """Set any of the four numbers (None erases one; KEEP leaves it).

        A missing descriptor is added at the top level. A Current Value on a row with
        no Default Value gets Default +0 (the rule for missing descriptors); a Current
        uses count needs a Default uses count."""
        i = self._find_index(name)
        if i is None:
            if "/" in name:
                raise ParamError("descriptor", f"{name!r} is not on the sheet (add the parent row first)")
            row = Row(name=" ".join(name.split()))
        else:
            row = self.rows[i]
        changes: dict[str, Any] = {}
        if default is not KEEP:
            changes["default"] = _check_value("default", default)
        if current is not KEEP:
            changes["current"] = _check_value("current", current)
        if uses_default is not KEEP:
            changes["uses_default"] = _check_uses("uses_default", uses_default)
        if uses_current is not KEEP:
            changes["uses_current"] = _check_uses("uses_current", uses_current)
        new = dataclasses.replace(row, **changes)
        if new.current is not None and new.default is None:
            if "default" in changes:
                raise ParamError("default", f"{new.label} has a Current Value: erase it before the Default")
            new = dataclasses.replace(new, default=0)
        if new.uses_current is not None and new.uses_default is None:
            raise ParamError("uses_current", f"{new.label} has no Default uses count; set uses_default first")
        if i is None:
            return self._insert(len(self.rows), new)
        if new == row:
            return self
        return self._replace_at(i, new)

    def set_current(self, name: str, value: Any = KEEP, *, uses: Any = KEEP) -> Sheet:
        return self.set_values(name, current=value, uses_current=uses)

    def set_default(self, name: str, value: Any = KEEP, *, uses: Any = KEEP) -> Sheet:
        return self.set_values(name, default=value, uses_default=uses)

    def set_notes(self, name: str, notes: str) -> Sheet:
        """Replace a row's notes (wrapped in parentheses if they are not)."""
        notes = " ".join(str(notes).split())
        if notes and not (notes.startswith("(") and notes.endswith(")")):
            notes = f"({notes})"
        try:
            check_parens(notes)
        except LineError as e:
            raise ParamError("notes", str(e)) from None
        if notes and any(t.kind != "note" for t in scan(notes, 0)):
            raise ParamError("notes", f"notes must be text in parentheses (got {notes!r})")
        i = self.index(name)
        return self._replace_at(i, dataclasses.replace(self.rows[i], notes=notes))

    def lower(self, name: str, amount: int) -> Sheet:
        """Lower a descriptor's Current Value by ``amount`` (negative raises it).

        A missing descriptor (a Core Descriptor, an Expertise, a Test Descriptor)
        counts +0 and is written as Default +0 with its new Current Value; a Physical
        Item, Ability or Use the character lacks is not written (ParamError; see
        :func:`is_item_or_ability_name`)."""
        by = _check_value("amount", amount)
        if not by:
            return self
        i = self._find_index(name)
        if i is None:
            if "/" in name or is_item_or_ability_name(name):
                raise ParamError(
                    "descriptor",
                    f"{name!r} is not on the sheet: a Physical Item, Ability or Use "
                    "the character lacks cannot be lowered",
                )
            return self.set_values(name, default=0, current=-by)
        r = self.rows[i]
        return self._replace_at(
            i, dataclasses.replace(r, current=r.value - by, default=r.default if r.default is not None else 0)
        )

    def pay(self, amount: int, name: str = "Wealth") -> Sheet:
        """Pay with Wealth: a permanent loss, so the Default Value is lowered (the
        Current Value is left as it is). Wealth at or below −5 cannot be used."""
        paid = _check_value("amount", amount)
        if paid is None or paid < 1:
            raise ParamError("amount", f"must be a whole number ≥ 1 (got {paid!r})")
        why = self.blocked(name)
        if why:
            raise CannotUse(f"{why}: it cannot be used")
        r = self.find(name)
        base = r.default if r is not None and r.default is not None else 0
        return self.set_values(name, default=base - paid)

    def spend_use(self, name: str, amount: int = 1, parent_amount: int | None = None) -> Sheet:
        """Use an Ability, Item or Sub-Ability: its current uses drop by ``amount``; a
        Sub-Ability also spends its parent's (``parent_amount``, default the same).

        CannotUse when it (or the parent) is at (0), has fewer uses left than asked,
        or is at −5 or below. ``(inf)`` never runs out; a row with no uses count is
        not counted. Nothing changes when any check fails."""
        spent = _check_value("amount", amount)
        if spent is None or spent < 1:
            raise ParamError("amount", f"must be a whole number ≥ 1 (got {spent!r})")
        pamount = spent if parent_amount is None else _check_value("parent_amount", parent_amount)
        if pamount is None or pamount < 0:
            raise ParamError("parent_amount", f"must be a whole number ≥ 0 (got {parent_amount!r})")
        i = self._find_index(name)
        if i is None:
            raise CannotUse(f"{name} is not on the sheet: the character lacks it and cannot use it")
        todo = [(i, spent)]
        p = self._parents[i]
        if p is not None and self.is_sub_ability(i):
            todo.append((p, pamount))
        out = self
        for j, amt in todo:
            r = self.rows[j]
            if r.value <= UNUSABLE_AT:
                raise CannotUse(f"{self.path(j)} is at {r.value:+d}: it cannot be used")
            left = r.uses
            if left is None or left == INF or amt == 0:
                continue
            assert isinstance(left, int)  # a count: not None, not (inf)
            if left == 0:
                raise CannotUse(f"{self.path(j)} is at (0): used up until a new day")
            if left < amt:
                raise CannotUse(f"{self.path(j)} has ({left}) left, {amt} needed")
            out = out._replace_at(j, dataclasses.replace(out.rows[j], uses_current=left - amt))
        return out

    def new_day(self) -> Sheet:
        """A new day: every Current Value (uses too) is erased, back to the Default."""
        if not any(r.current is not None or r.uses_current is not None for r in self.rows):
            return self
        return self._with_rows(
            self._laid_out(dataclasses.replace(r, current=None, uses_current=None))
            if (r.current is not None or r.uses_current is not None)
            else r
            for r in self.rows
        )

    def add_row(
        self,
        name: str,
        default: int | None = None,
        *,
        uses: Uses = None,
        notes: str = "",
        parent: str | None = None,
        sub: bool = False,
        quantity: str | None = None,
    ) -> Sheet:
        """Add a row at the end of the sheet, or as the last child of ``parent``."""
        label = " ".join(str(name).split())
        if not label:
            raise ParamError("descriptor", "a descriptor needs a name")
        row = Row(
            label,
            default=_check_value("default", default),
            uses_default=_check_uses("uses", uses),
            sub=sub,
            quantity=(str(quantity).strip() or None) if quantity is not None else None,
        )
        if notes:
            notes = " ".join(notes.split())
            row = dataclasses.replace(row, notes=notes if notes.startswith("(") else f"({notes})")
        if parent is None:
            return self._insert(len(self.rows), row)
        p = self.index(parent)
        return self._insert(self._subtree_end(p), dataclasses.replace(row, depth=self.rows[p].depth + 2))

    def add_line(self, line: str, parent: str | None = None) -> Sheet:
        """Add a row written as on a sheet — ``2 shovels``, ``Rope``, ``Lantern +1 (3)``,
        ``Medical Kit (borrowed)`` — at the end of the sheet, or as the last child of
        ``parent``; laid out under the sheet's columns. A name already at that place
        is refused (change its numbers instead)."""
        from gmdesk.core.sheet.line import LineError as _LineError

        text = " ".join(str(line).split())
        if not text:
            raise ParamError("descriptor", "a descriptor needs a name")
        try:
            check_parens(text)
            row, _ = parse_row(text, None)
        except _LineError as e:
            raise ParamError("descriptor", str(e)) from None
        if row.current is not None or row.uses_current is not None:
            raise ParamError("descriptor", "write the Default Value only (a new descriptor starts at it)")
        p = None if parent is None else self.index(parent)
        for j, r in enumerate(self.rows):
            if self._parents[j] == p and norm(r.name) == norm(row.name):
                raise ParamError("descriptor", f"{self.path(j)} is already on the sheet")
        # under a parent, written as its other rows are: with a "*" when they have one
        kin = [r for j, r in enumerate(self.rows) if p is not None and self._parents[j] == p]
        sub = row.sub or any(r.sub for r in kin)
        depth = 0 if p is None else (kin[-1].depth if kin else self.rows[p].depth + 2)
        row = dataclasses.replace(row, depth=depth, sub=sub, raw=None)
        return self._insert(len(self.rows) if p is None else self._subtree_end(p), row)

    def _insert(self, at: int, row: Row) -> Sheet:
        s = self._noting(row)._fitting(row)
        rows = list(s.rows)
        rows.insert(at, s._laid_out(row))
        return s._with_rows(rows)

    def remove(self, name: str) -> Sheet:
        """Remove a row and everything nested in it."""
        i = self.index(name)
        return self._with_rows(self.rows[:i] + self.rows[self._subtree_end(i) :])

    def apply_template(self, template_text: str | Sheet) -> Sheet:
        """Append a template's Descriptors; one already on the sheet (same name, same
        place) adds the template's value to its Default Value (and its uses count to
        the Default uses; ``(inf)`` wins). Rows nested in the template are merged the
        same way under their parent."""
        t = parse_sheet(template_text, "<template>") if isinstance(template_text, str) else template_text
        out: Sheet = self
        for i, _r in enumerate(t.rows):
            if t._parents[i] is None:
                out = out._merge(t, i, None)
        return out

    def _merge(self, t: Sheet, ti: int, parent: int | None) -> Sheet:
        tr = t.rows[ti]
        # the same name at the same place on this sheet?
        found = None
        for j, r in enumerate(self.rows):
            if self._parents[j] == parent and norm(r.name) == norm(tr.name):
                found = j
                break
        kids = [k for k in range(ti + 1, t._subtree_end(ti)) if t._parents[k] == ti]
        if found is None:
            depth = 0 if parent is None else self.rows[parent].depth + 2
            at = len(self.rows) if parent is None else self._subtree_end(parent)
            new = Row(
                tr.name,
                default=tr.default,
                uses_default=tr.uses_default,
                notes=tr.notes,
                depth=depth,
                sub=tr.sub,
                quantity=tr.quantity,
            )
            out = self._insert(at, new)
            found = at
        else:
            r = self.rows[found]
            out = self._replace_at(
                found,
                dataclasses.replace(
                    r,
                    default=_add(r.default, tr.default),
                    uses_default=_add_uses(r.uses_default, tr.uses_default),
                    notes=r.notes or tr.notes,
                ),
            )
        for k in kids:
            out = out._merge(t, k, found)
        return out


def parse_sheet(text: str, source: str = "<sheet>") -> Sheet:
    """Read a sheet (or a template). SheetError names ``source``, the line and the problem."""
    t = read_text(text, source)
    return Sheet(t.header, t.rows, t.has_notes_column, t.has_columns, t.layout)


def write_sheet(sheet: Sheet) -> str:
    """The sheet as text; ``parse_sheet(write_sheet(s)) == s``, and a sheet read from
    text and left unchanged is written back byte for byte."""
    return sheet.text()


def parse_template(text: str, source: str = "<template>") -> Sheet:
    """A template: rows without a column line (a ``Name:`` first line is its title)."""
    return parse_sheet(text, source)


def new_sheet(header: str = "", rows: Iterable[Row] = (), *, has_notes_column: bool = False) -> Sheet:
    """A sheet built from rows (laid out under a fresh column line)."""
    s = Sheet(header=header, rows=tuple(rows), has_notes_column=has_notes_column, has_columns=True)
    return s._with_rows(s._laid_out(r) for r in s.rows)


def is_item_or_ability(row: Row, sheet: Sheet | None = None) -> bool:
    """See :meth:`Sheet.is_item_or_ability`; without the sheet a row is judged alone
    (a starred row is a Use)."""
    if sheet is not None:
        for i, r in enumerate(sheet.rows):
            if r is row:
                return sheet.is_item_or_ability(i)
    return row.sub or is_item_or_ability_name(row.name)


def generate_core(
    rng: RandomSource, all_zero: bool = False, header: str = "New character"
) -> tuple[Sheet, tuple[Die, ...]]:
    """A new character's Core Descriptors: each d6 − d4 (−3..+5), dice in sheet order
    (d6 then d4 for each descriptor, role ``die``).

    ``all_zero``: the player does not roll and every Core Descriptor is +0. The rules
    say they need not be written then; gmdesk writes Vitality alone (+0) so there is
    room for its Current Value, as the rules advise for GM-made characters."""
    if all_zero:
        return new_sheet(header, [Row("Vitality", default=0)]), ()
    dice: list[Die] = []
    rows = []
    for name in core_descriptors():
        a = rng.randint(1, 6)
        b = rng.randint(1, 4)
        dice += [Die(a, "die", 6), Die(b, "die", 4)]
        rows.append(Row(name, default=a - b))
    return new_sheet(header, rows), tuple(dice)
