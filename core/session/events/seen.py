"""What the players see of each character: its visibility level, and how the players'
views read a roll or a change through it.

Each character has a level (:data:`VISIBILITY_LEVELS`, chosen with
``visibility.set``, else its side's default — ``all`` for a player character,
``wounds`` for any other):

* ``name`` — its name only: in the order at its place, and as roller or target of
  a roll; never its status, conditions, wounds, Vitality or counters. A roll at it
  shows the dice and the outcome, but not what it did to it (the descriptors that
  land on it, the changes the roll made to it);
* ``wounds`` — its name and how it stands: status words (UNC, DEAD), conditions and
  wounds; never a number the GM keeps (Vitality, Possibilities, sources, counters);
* ``all`` — everything a player may see: Vitality, Possibilities, active sources,
  counters, status, conditions and wounds. A GM secret (the parameters a system
  declares secret) is never shown, whatever the level.

Hidden (``character.hide``) stands above the levels: a hidden character is not shown
at all. The level is GM bookkeeping: the players are not told it changed (the event
is left out of their log and chronicle).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.model import VISIBILITY_LEVELS, VISIBILITY_WORDS, Character, LazyRecord, RollEntry, State

#: what the players see, as the log says it
_SAYS = {"name": "only the name of", "wounds": "the name and wounds of", "all": "all of"}


def level_words(level: str) -> str:
    """A level in a few words: "name only", "name and wounds", "all"."""
    return VISIBILITY_WORDS.get(level, level)


def next_level(level: str) -> str:
    """The level after ``level``, round the three (name → wounds → all → name)."""
    i = VISIBILITY_LEVELS.index(level) if level in VISIBILITY_LEVELS else -1
    return VISIBILITY_LEVELS[(i + 1) % len(VISIBILITY_LEVELS)]


@handler("visibility.set")
def _visibility_set(ctx: Ctx, p: dict[str, Any]) -> str:
    """``id`` and ``level`` (name, wounds or all)."""
    ctx.fields(p, ("id", "level"))
    c = ctx.char(p["id"])
    level = ctx.choice(p["level"], "level", VISIBILITY_LEVELS)
    if c.seen == level:
        raise ctx.fail(f"the players already see {_SAYS[level]} {c.name}")
    before = c.seen
    ctx.tx.char(c.id).visibility = level
    ctx.changes.append(f"{c.name}: the players see {level_words(before)} → {level_words(level)}")
    return f"The players see {_SAYS[level]} {c.name}"


# --------------------------------------------------------------------------- the players' side


def shows_status(c: Character) -> bool:
    """Whether the players see how ``c`` stands (status, conditions, wounds)."""
    return not c.hidden and c.seen != "name"


def shows_all(c: Character) -> bool:
    """Whether the players see ``c``'s numbers (Vitality, Possibilities, sources, counters)."""
    return not c.hidden and c.seen == "all"


#: the lines about a character the order and the groups make, which only say where it
#: acts (its name and its place are the players' at every level)
_PLACE = (": initiative", " joins the encounter", " joins the group", " acts on its own", " leaves the encounter")

#: the statuses as the log words them ("Bruno: OK → Unconscious")
_STATUS_WORDS = ("OK", "Unconscious", "Dead")

#: how a line about the GM's numbers goes on after the name (Vitality, Possibilities,
#: a source gained, lost or switched; ``character.edit``'s own lower-case keys)
_NUMBERS = (": advantage ", ": shift ", ": vitality", ": possibilities", " gains ", " loses ")


def public_changes(state: State, changes: Sequence[str]) -> list[str]:
    """``changes`` (one line each, "Bruno: Vitality 7 → 3", "Bruno takes Wound") as
    the players may read them: a line about a character they see by name only is
    left out unless it only says where it acts; about one they see the name and
    wounds of, only what the wounds level shows is kept (a wound taken or taken
    off, a condition, a status; a Vitality line says the status it left, if any)."""
    if not changes or all(c.hidden or c.seen == "all" for c in state.characters.values()):
        return list(changes)
    by_length = sorted(state.characters.values(), key=lambda c: -len(c.name))
    out = []
    for line in changes:
        c = next((c for c in by_length if line.startswith((f"{c.name}:", f"{c.name} "))), None)
        if c is None or c.hidden or c.seen == "all":
            out.append(line)
            continue
        told = _told(c, line[len(c.name) :])
        if told is not None:
            out.append(c.name + told)
    return out


def _told(c: Character, rest: str) -> str | None:
    """What the players read of a line about ``c`` (``rest``: the line after its
    name), or None when they read none of it."""
    if rest.startswith(_PLACE):
        return rest
    if c.seen == "name":
        return None
    if rest.startswith(": Vitality "):  # "…: Vitality 3 → −1 (Unconscious)": the status only
        tail = rest.rpartition(" (")[2].rstrip(")")
        return f" is {tail}" if rest.endswith(")") and tail in _STATUS_WORDS else None
    low = rest.casefold()
    if low.startswith(_NUMBERS) or any(low.startswith(f": {x.label.casefold()} ") for x in c.counters):
        return None
    if rest.startswith((" takes ", " is ")):
        return rest
    if rest.endswith((" ends", " comes off")) or " removed" in rest:
        return rest
    words = rest.removeprefix(": ").split(" → ")
    if len(words) == 2 and all(w in _STATUS_WORDS for w in words):
        return rest
    return None


#: events about one character's state (its payload's ``id``): the players read none of
#: them of a character they see by name only
_ABOUT_ITS_STATE = frozenset(
    {
        "character.edit",
        "character.fields",
        "character.status",
        "source.add",
        "source.remove",
        "source.toggle",
        "condition.add",
        "condition.remove",
        "counter.add",
        "counter.change",
        "counter.remove",
        "sheet.set",
        "sheet.import",
        "sheet.add",
        "wound.remove",
        "use",
        "possibility.spend",
        "possibility.cancel",
        "damage.buyoff",
    }
)
#: of those, the ones the players read of a character they see the name and wounds of
_ABOUT_ITS_WOUNDS = frozenset({"character.status", "condition.add", "condition.remove", "wound.remove"})


def withheld_event(state: State, etype: str, data: Any) -> bool:
    """Whether the players read nothing of an event of type ``etype`` (payload
    ``data``): it sets a level (the GM's bookkeeping), or it is about the state of
    one character whose level does not show it (:data:`_ABOUT_ITS_STATE`)."""
    if etype == "visibility.set":
        return True
    if etype not in _ABOUT_ITS_STATE:
        return False
    cid = data.get("id") if hasattr(data, "get") else None
    c = state.characters.get(cid) if isinstance(cid, str) else None
    if c is None or c.seen == "all":
        return False
    return c.seen == "name" or etype not in _ABOUT_ITS_WOUNDS


def _quiet(state: State, actor: Any, target: Any) -> set[str]:
    """Who of a roll's roller (``attacker``) and ``target`` the players see by name only."""
    chars = state.characters
    return {
        role
        for role, cid in (("target", target), ("attacker", actor))
        if isinstance(cid, str) and cid in chars and chars[cid].seen == "name"
    }


def seen_roll_event(state: State, event: Any) -> Any:
    """A ``roll`` or ``heal`` event as the players may read it: its record without the
    descriptors that land on a character they see by name only, and its summary
    drawn again from that record. ``event`` itself when nothing is withheld."""
    quiet = _quiet(state, event.data.get("actor"), event.data.get("target"))
    saved = event.data.get("record")
    if not quiet or not isinstance(saved, dict):
        return event
    from gmdesk.core.dice import RollRecord
    from gmdesk.core.render import roll_summary

    try:
        record = RollRecord.from_trusted_json(dict(saved))
    except (KeyError, TypeError, ValueError):
        return event
    kept = _without(record, quiet)
    if kept is record:
        return event
    record = kept
    return dataclasses.replace(
        event, data={**event.data, "record": record.to_json()}, summary=roll_summary(event.summary or "", record)
    )


def _without(record: Any, quiet: set[str]) -> Any:
    """``record`` without the descriptors that land on the ``quiet`` roles (itself when
    none does); a copy of the frozen record made without checking it again (it was)."""
    kept = tuple(d for d in record.descriptors if d.applies_to not in quiet)
    if len(kept) == len(record.descriptors):
        return record
    out = object.__new__(type(record))
    out.__dict__.update(record.__dict__)
    out.__dict__["descriptors"] = kept
    return out


def seen_rolls(state: State, entries: Iterable[RollEntry]) -> tuple[RollEntry, ...]:
    """``entries`` as the player view shows them (:func:`seen_entry`, without the
    changes: the view does not tell them): only those at or by a character the
    players see by name only are copied, the others are themselves."""
    quiet = {cid for cid, c in state.characters.items() if c.seen == "name"}
    if not quiet:
        return tuple(entries)
    return tuple(seen_entry(state, e, changes=False) if e.actor in quiet or e.target in quiet else e for e in entries)


def seen_entry(state: State, entry: RollEntry, changes: bool = True) -> RollEntry:
    """The roll ``entry`` as the players may read it: the descriptors that land on a
    roller or target they see by name only are left out of its record (the dice, the
    value and the outcome stay), and (with ``changes``: the chronicle tells them, the
    player view does not) so are the changes they may not read
    (:func:`public_changes`). ``entry`` itself when nothing is withheld: a roll
    between characters the players see all of costs two look-ups, and the player
    view's picture of a long log stays a matter of milliseconds."""
    chars = state.characters
    who = [chars.get(cid) for cid in (entry.actor, entry.target) if cid is not None]
    if all(c is None or c.seen == "all" for c in who):
        return entry
    quiet = _quiet(state, entry.actor, entry.target)
    told = entry.changes
    if changes and told:
        told = public_changes(state, told)
    if not quiet and told == entry.changes:
        return entry
    out = entry.snapshot()
    out.changes = list(told)
    if quiet:  # read when the line is drawn: a long log's records are not all read for one picture
        out.__dict__["record"] = _QuietRecord(entry, quiet)
    return out


class _QuietRecord(LazyRecord):
    """The record of a roll the players read (:func:`seen_entry`): the roll's own record
    without the descriptors that land on the ``quiet`` roles, read on first use."""

    __slots__ = ("entry", "quiet")

    def __init__(self, entry: RollEntry, quiet: set[str]) -> None:
        self.entry = entry
        self.quiet = quiet

    def load(self) -> Any:
        return _without(self.entry.record, self.quiet)
