"""How a 1d6x4 Test reads a character's descriptor sheet: which row each name in a
Test means, what the named descriptors add, why the Test fails automatically, and
which Abilities and Uses it spends (see ``docs/RULES-NOTES.md``)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from gmdesk.core.dice import RollRecord


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
    one use (a Use also spends its parent's, see :meth:`core.sheet.Sheet.spend_use`)."""

    bonus: int = 0
    auto_fail: str | None = None
    found: tuple[tuple[str, str], ...] = ()
    uses: tuple[str, ...] = ()


def _word_key(name: str) -> str:
    return " ".join(name.casefold().split())


def find_test_row(sheet: Any, name: str) -> int | None:
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
    return None


def _is_ability(name: str) -> bool:
    from gmdesk.core.sheet import is_ability_name

    return is_ability_name(name)


def lacks_when_missing(name: str) -> bool:
    """Whether a name missing from the sheet is something the character lacks (a
    Physical Item, an Ability or a Use: the Test fails automatically) rather than a
    descriptor that counts +0: :func:`core.sheet.is_item_or_ability_name`, the rule
    gmdesk uses for every descriptor. A missing Core Descriptor, Expertise or Test
    Descriptor counts +0; every other missing name is an Ability (it contains the word
    Ability), a Use (``Slingshot/Attack``) or a Physical Item, which the character
    simply does not have. See ``docs/RULES-NOTES.md``."""
    from gmdesk.core.sheet import is_item_or_ability_name

    return "/" in name or is_item_or_ability_name(name)


def read_test(sheet: Any, names: str | Iterable[str], items: Iterable[str] = ()) -> TestReading:
    """Read a Test's descriptor names on a sheet (``sheet`` None is an empty sheet).

    Each name is found with :func:`find_test_row`; a found row adds its Current Value
    and fails the Test when it is at or below −5 or at (0) uses (for a Use: its own or
    its parent's). A missing name counts +0 when it is a Core Descriptor, an Expertise
    or a Test Descriptor, and otherwise is a Physical Item, Ability or Use the
    character lacks: the Test fails automatically (:func:`lacks_when_missing`).
    ``items``: names the GM says are Items (kept for callers that know better).
    Nothing is spent here: the session spends :attr:`TestReading.uses` with the roll."""
    parts = split_names(names, sheet)
    item_keys = {_word_key(str(x)) for x in items}
    bonus = 0
    reasons: list[str] = []
    found: list[tuple[str, str]] = []
    uses: list[str] = []
    for name in parts:
        i = find_test_row(sheet, name)
        if i is None:
            if _word_key(name) in item_keys or lacks_when_missing(name):
                reasons.append(f"{name} is missing")
            continue
        row = sheet.rows[i]
        path = sheet.path(i)
        found.append((name, path))
        bonus += row.value
        why = sheet._blocked_at(i)
        if why:
            reasons.append(why)
        if (_is_ability(row.name) or sheet.is_sub_ability(i)) and row.uses not in (None, "inf") and path not in uses:
            uses.append(path)
    return TestReading(bonus, "; ".join(dict.fromkeys(reasons)) or None, tuple(found), tuple(uses))


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
