"""How a 1d6x4 Test reads a character's descriptor sheet: which row each name in a
Test means, what the named descriptors add, why the Test fails automatically, and
which Abilities and Uses it spends — one reading (:func:`read_sides`) for the roll
dialog, the session and the command line (see ``docs/RULES-NOTES.md``)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

from gmdesk.core.dice import RollRecord
from gmdesk.core.systems.base import parse_int

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

    from gmdesk.core.sheet import Sheet


def split_names(names: str | Iterable[str], sheet: Any = None) -> list[str]:
    """Descriptor names of a Test: a list, or one string joined with ``+`` or ``,``
    (``"Precision+Slingshot Expertise+Slingshot"``). A string naming a row of the
    sheet as a whole (``Precision+Slingshot Expertise+Slingshot Test``) stays whole."""
    if isinstance(names, str):
        whole = " ".join(names.split())
        if not whole:
            return []
        if sheet is not None and "+" in whole and sheet.find(whole) is not None:
            return [whole]
        parts = re.split(r"[+,]", whole)
    else:
        parts = list(names)
    return [" ".join(str(p).split()) for p in parts if str(p).strip()]


@dataclasses.dataclass(frozen=True)
class TestReading:
    """What a Test's descriptor names come to on a character's sheet.

    ``bonus``: the Current Values summed (missing ones +0); ``auto_fail``: why the Test
    fails automatically (None if it does not); ``found``: ``(name as named, row path)``
    of every name found on the sheet; ``uses``: the paths of the Abilities and Uses
    (Sub-Abilities) the Test uses that count their uses (not ``(inf)``) — each spends
    one use (a Use also spends its parent's, see :meth:`core.sheet.Sheet.spend_use`);
    ``missing``: the names the sheet lacks that count +0 (neither a Physical Item nor
    an Ability nor a Use: the record keeps them, so the decision is never made again)."""

    bonus: int = 0
    auto_fail: str | None = None
    found: tuple[tuple[str, str], ...] = ()
    uses: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


def _word_key(name: str) -> str:
    return " ".join(name.casefold().split())


def find_test_row(sheet: Sheet | None, name: str) -> int | None:
    """The sheet row a name in a Test means (its index), or None when the character lacks it.

    Tried in order: the name itself (``Magic Ability/Turn Invisible``, or a nested row's
    own name when it is unique); without a trailing word "Test" (``Slingshot Attack
    Test``); a Use written after its Item or Ability, as the rules call for it
    (``Slingshot Attack`` → ``Slingshot/*Attack``, ``Magic Ability Turn Invisible``);
    and ``X`` for the character's ``X Ability`` (the rules' "Magic Test")."""
    if sheet is None:
        return None
    name = " ".join(name.split())
    i = sheet._find_index(name)
    if i is not None:
        return i
    words = name.split()
    if len(words) > 1 and words[-1].casefold() == "test":
        return find_test_row(sheet, " ".join(words[:-1]))
    if "/" not in name:
        for k in range(len(words) - 1, 0, -1):
            parent, child = " ".join(words[:k]), " ".join(words[k:])
            i = sheet._find_index(f"{parent}/{child}")
            if i is not None and sheet.is_sub_ability(i):
                return i
        if not _is_ability(name):
            i = sheet._find_index(f"{name} Ability")
            if i is not None:
                return i
        return sheet.find_item(name)  # a count or a plural is not the item's name: Shovel → 2 shovels
    return None


def _is_ability(name: str) -> bool:
    from gmdesk.core.sheet import is_ability_name

    return is_ability_name(name)


#: what marks a name in a Test as a Physical Item: ``Precision+Slingshot (item)``
ITEM_MARK = "(item)"


def marked_item(name: str) -> tuple[str, bool]:
    """A Test's name without its item mark, and whether it had one."""
    text = " ".join(name.split())
    if text.casefold().endswith(ITEM_MARK):
        return text[: -len(ITEM_MARK)].strip(), True
    return text, False


def lacks_when_missing(name: str, items: Iterable[str] = ()) -> bool:
    """Whether a name missing from the sheet is something the character lacks (the
    Test fails automatically) rather than a descriptor that counts +0 (RULES.md): an
    Ability (the word Ability: ``Magic Ability``, a Use written after it, ``Magic
    Ability Fly``), a Use (``Slingshot/Attack``), or a Physical Item — a name some
    sheet of the session lists as an item (``items``: their :func:`core.sheet.item_key`;
    a count or a plural does not matter) or that the Test marks ``(item)``. Any other
    missing name counts +0 (``Stealth+Sneak`` when nobody has a Sneak item). See
    ``docs/RULES-NOTES.md``."""
    from gmdesk.core.sheet import item_key

    name, marked = marked_item(name)
    return marked or "/" in name or _is_ability(name) or item_key(name) in set(items)


def read_test(sheet: Any, names: str | Iterable[str], items: Iterable[str] = ()) -> TestReading:
    """Read a Test's descriptor names on a sheet (``sheet`` None is an empty sheet).

    Each name is found with :func:`find_test_row`; a found row adds its Current Value
    and fails the Test when it is at or below −5 or at (0) uses (for a Use: its own or
    its parent's). A missing name fails the Test when it is a Physical Item, an
    Ability or a Use (:func:`lacks_when_missing`; ``items``: the names the
    session's sheets list as items) and otherwise counts +0 (``missing``). A Use (a
    Sub-Ability), however it is named (``Magic
    Ability/Turn Person to Frog``, ``Magic Ability Turn Person to Frog``, ``Turn
    Person to Frog``, or beside its parent, ``Magic Ability+Turn Person to Frog``),
    adds its parent's value too; every row's value counts once, and the Use spends
    one of its own uses and one of its parent's (the parent named beside it is not
    spent again). A missing name counts +0 when it is a Core Descriptor, an Expertise
    or a Test Descriptor, and otherwise is a Physical Item, Ability or Use the
    character lacks: the Test fails automatically (:func:`lacks_when_missing`).
    ``items``: names the GM says are Items (kept for callers that know better).
    Nothing is spent here: the session spends :attr:`TestReading.uses` with the roll."""
    from gmdesk.core.sheet import item_key

    parts = split_names(names, sheet)
    item_keys = {item_key(str(x)) for x in items}
    if sheet is not None:
        item_keys |= sheet.item_keys()
    missing: list[str] = []
    bonus = 0
    reasons: list[str] = []
    found: list[tuple[str, str]] = []
    uses: list[str] = []
    counted: set[int] = set()  # rows whose value is added: each once
    spent_parents: set[str] = set()
    for typed in parts:
        name, _marked = marked_item(typed)
        i = find_test_row(sheet, name)
        if i is None:
            if lacks_when_missing(typed, item_keys):
                reasons.append(f"{name} is missing")
            elif name not in missing:
                missing.append(name)
            continue
        row = sheet.rows[i]
        path = sheet.path(i)
        found.append((name, path))
        sub = sheet.is_sub_ability(i)
        parent = sheet._parents[i] if sub else None
        for j in (i, parent):
            if j is not None and j not in counted:
                counted.add(j)
                bonus += sheet.rows[j].value
        why = sheet._blocked_at(i)
        if why:
            reasons.append(why)
        counts = row.uses not in (None, "inf") or (parent is not None and sheet.rows[parent].uses not in (None, "inf"))
        if (_is_ability(row.name) or sub) and counts and path not in uses:
            uses.append(path)
            if parent is not None:
                spent_parents.add(sheet.path(parent))
    # a Use spends one of its parent's with its own: the parent named too is not spent again
    uses = [u for u in uses if u not in spent_parents]
    why = "; ".join(dict.fromkeys(reasons)) or None
    return TestReading(bonus, why, tuple(found), tuple(uses), tuple(missing))


def test_bonus(sheet: Any, names: str | Iterable[str], items: Iterable[str] = ()) -> tuple[int, str | None]:
    """``(bonus, why it fails automatically or None)`` of a Test: see :func:`read_test`."""
    reading = read_test(sheet, names, items)
    return reading.bonus, reading.auto_fail


def test_uses(record: RollRecord, actor_sheet: Any = None, target_sheet: Any = None) -> list[tuple[str, str]]:
    """``[(side, path), …]`` of the Abilities and Uses a rolled Test spends: side
    ``actor`` for the roller's ``test``, ``target`` for the defender's ``vs_test``. A
    side that failed automatically did not perform its Test and spends nothing."""
    p = record.params
    out: list[tuple[str, str]] = []
    if p.get("test") and not p.get("auto_fail") and actor_sheet is not None:
        out += [("actor", u) for u in read_test(actor_sheet, p["test"]).uses]
    if p.get("vs_test") and not p.get("vs_auto_fail") and not p.get("auto_fail") and target_sheet is not None:
        out += [("target", u) for u in read_test(target_sheet, p["vs_test"]).uses]
    return out


# ---- reading a Test from the characters' sheets: one reading, one rule
# The roll dialog (read_form), a roll the session fills from the characters' fields
# (read_filled), `gmdesk roll 1d6x4 --save S --as A --at T` (read_sheets) and a caller
# holding the sheets themselves (fill_from_sheets) all read a Test with read_sides.

#: each side of a Test: the parameter naming its descriptors, the bonus their Current
#: Values add to, why the side fails automatically, the names that count +0
SIDES = (("test", "bonus", "auto_fail", "missing"), ("vs_test", "vs_bonus", "vs_auto_fail", "vs_missing"))


def read_sides(
    data: Mapping[str, Any], sheets: Mapping[str, Any], items: Iterable[str] = ()
) -> tuple[dict[str, Any], list[str]]:
    """The Test's parameter data with the descriptors each side names read on its
    sheet, and what the roll dialog says of it. ``sheets``: ``"test"`` → the roller's
    sheet, ``"vs_test"`` → the defender's, for the sides to read (a side left out is
    not read: its names stay labels, or were read already).

    The one rule (RULES.md "1d6x4"): the Current Values of the named descriptors are
    added to the side's bonus (which holds what the GM adds on top); the names the
    sheet lacks that count +0 are kept (``missing``); a side that needs a descriptor
    at or below −5 or at (0) uses, or an Item, Ability or Use it lacks, fails
    automatically (``auto_fail``), unless a reason is already given (the GM's own
    stays). ``items``: the Physical Items the session's sheets list (a name any sheet
    lists as an item is one the Test needs); the sheets read add theirs."""
    from gmdesk.core.text import signed

    out = dict(data)
    notes: list[str] = []
    known = _known(items, *sheets.values())
    for name, bonus, reason, missing in SIDES:
        sheet = sheets.get(name)
        names = str(out.get(name) or "").strip()
        if sheet is None or not names:
            continue
        r = read_test(sheet, names, known)
        option = "--" + bonus.replace("_", "-")
        out[bonus] = parse_int(option, out.get(bonus) if out.get(bonus) not in (None, "") else 0) + r.bonus
        out[missing] = ", ".join(r.missing)
        if r.auto_fail and not out.get(reason):
            out[reason] = r.auto_fail
        if name == "test":
            notes.append(f"Test {signed(r.bonus)} from {names}")
            if r.missing:
                notes.append(f"Not on the sheet, +0: {', '.join(r.missing)}")
            if r.auto_fail:
                notes.append(f"Automatic failure: {out[reason]}")
            elif r.uses:
                notes.append(f"Spends a use of {', '.join(r.uses)}")
        else:
            notes.append(f"Defender {signed(r.bonus)} from {names}")
            if r.auto_fail:
                notes.append(f"Defender fails automatically: {out[reason]}")
    return out, notes


def _sheet_of(c: Any) -> Any:
    """A tracked character's sheet (an empty one when it has none: it lacks every
    Item); None for no character."""
    from gmdesk.core.sheet import parse_sheet

    return None if c is None else (c.sheet if c.sheet is not None else parse_sheet(""))


def _known(items: Iterable[str], *sheets: Any) -> set[str]:
    """The Physical Items known to a Test: ``items`` (the session's sheets) and
    those the sheets read list."""
    out = set(items)
    for sheet in sheets:
        if sheet is not None:
            out |= sheet.item_keys()
    return out


def read_form(
    data: dict[str, Any], actor: Any = None, target: Any = None, combat: bool = False, items: Iterable[str] = ()
) -> tuple[dict[str, Any], list[str]]:
    """The roll dialog's (and ``roll --save``'s) reading of a Test: each side's named
    descriptors read on the roller's / the defender's sheet (:func:`read_sides`); a
    typed target number stands for the defense the form offered. Returns the data
    and what the dialog says about it."""
    data = dict(data)
    notes: list[str] = []
    if str(data.get("target") if data.get("target") is not None else "").strip() and (
        str(data.get("vs_test") or "").strip() or data.get("vs_bonus") not in (None, "")
    ):
        # a typed value wins: the GM's target number stands for the defense the form
        # offered (the Defender's Defense), which is then not read nor rolled
        data["vs_test"], data["vs_bonus"] = "", None
        notes.append("Target number given: no Defense Test")
    if str(data.get("test") or "").strip() and actor is None:
        notes.append("No roller: the descriptors are not read from a sheet")
    if str(data.get("vs_test") or "").strip() and target is None:
        notes.append("No target: the defender's descriptors are not read from a sheet")
    sheets = {k: _sheet_of(c) for k, c in (("test", actor), ("vs_test", target)) if c is not None}
    # the sheets of both sides are known to the Test, read or not
    data, said = read_sides(data, sheets, _known(items, *(c.sheet for c in (actor, target) if c is not None)))
    return data, notes + said


def read_filled(
    data: dict[str, Any], filled: Any, actor: Any = None, target: Any = None, items: Iterable[str] = ()
) -> dict[str, Any]:
    """The parameter data with the descriptors the characters' fields named
    (``filled``: the parameters they filled, ``test`` / ``vs_test``) read on the
    roller's / the defender's sheet before the parameters are checked
    (:func:`read_sides`)."""
    sheets = {k: _sheet_of(c) for k, c in (("test", actor), ("vs_test", target)) if k in filled and c is not None}
    return read_sides(data, sheets, _known(items, *(c.sheet for c in (actor, target) if c is not None)))[0]


def fill_from_sheets(params: Any, actor_sheet: Any = None, target_sheet: Any = None, items: Iterable[str] = ()) -> Any:
    """The Test with the named descriptors read from the sheets (:func:`read_sides`):
    ``params.test`` on the roller's sheet, ``params.vs_test`` on the defender's. A
    side whose sheet is None is not tracked: its names are only labels (pass an
    empty sheet for a tracked character that has no sheet)."""
    sheets = {k: s for k, s in (("test", actor_sheet), ("vs_test", target_sheet)) if s is not None}
    data = {k: getattr(params, k) for side in SIDES for k in side}
    read, _ = read_sides(data, sheets, items)
    changes = {k: v for k, v in read.items() if v != data[k]}
    return dataclasses.replace(params, **changes) if changes else params


def roll_uses(record: RollRecord, actor: Any = None, target: Any = None) -> list[tuple[str, str]]:
    """``[(side, path), …]``: the Abilities and Uses a rolled Test spends on the roller's
    (``actor``) and the defender's (``target``) sheets (:func:`test_uses`)."""
    return test_uses(
        record,
        actor.sheet if actor is not None else None,
        target.sheet if target is not None else None,
    )


def read_sheets(params: Any, actor: Any = None, target: Any = None, skip: Any = (), items: Iterable[str] = ()) -> Any:
    """The Test with the descriptors named by ``test`` / ``vs_test`` read from the
    roller's / the defender's sheet (:func:`read_sides`): how ``gmdesk roll 1d6x4
    --save S --as A --at T`` reads its options. ``skip``: those already read
    (``read_filled``)."""
    return fill_from_sheets(
        params,
        _sheet_of(actor) if "test" not in skip else None,
        _sheet_of(target) if "vs_test" not in skip else None,
        _known(items, *(c.sheet for c in (actor, target) if c is not None)),
    )
