"""What the desk offers as a default, read from the state (the UI only shows it).

* :func:`pending_clock_progress`: the clock progress the latest 4d6 roll earned and
  that no clock has taken yet — the default of the next clock tick. Only the latest
  4d6 roll counts: once a newer 4d6 roll is made, an older roll's progress is no
  longer offered (the GM can still tick any amount by hand).
* :func:`buyoff_choices`: a character's wounds for a torg buy-off, newest first, each
  with how old it is ("round 1, 3 rolls ago"). The default is the first one: the
  damage just taken (the latest wound, from the last roll that wounded the character).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ClockOffer:
    roll_seq: int
    halves: int
    effect: str
    outcome: str


def pending_clock_progress(state: Any) -> ClockOffer | None:
    """The latest 4d6 roll's clock progress if it earned some and no clock took it yet."""
    for entry in reversed(state.rolls):
        if entry.kind != "roll" or entry.record.system != "4d6":
            continue
        halves = entry.record.get("clock")
        if entry.clock or not isinstance(halves, int) or halves <= 0:
            return None
        return ClockOffer(entry.seq, halves, str(entry.record.get("clock_effect") or ""), entry.record.outcome)
    return None


@dataclass(frozen=True)
class WoundChoice:
    index: int  # the wound's index on the character (the damage.buyoff payload)
    text: str
    roll_seq: int | None
    age: str  # "this round, the last roll" / "round 1, 3 rolls ago"
    latest: bool


def latest_wound_index(character: Any) -> int | None:
    """The damage just taken: the wound from the most recent roll (the last one listed
    among equals); None without wounds."""
    best = None
    for i, w in enumerate(character.wounds):
        key = w.roll_seq if w.roll_seq is not None else -1
        if best is None or key >= best[0]:
            best = (key, i)
    return None if best is None else best[1]


def _rolls_after(state: Any, seq: int) -> int:
    return sum(1 for e in state.rolls if e.kind == "roll" and e.seq > seq)


def wound_age(state: Any, wound: Any) -> str:
    """How old a wound is: the round of the roll that dealt it and how many rolls came after."""
    if wound.roll_seq is None:
        return "age unknown"
    entry = state.roll_entry(wound.roll_seq)
    if entry is None:
        return "age unknown"
    after = _rolls_after(state, entry.seq)
    rolls = "the last roll" if after == 0 else f"{after} roll{'s' if after != 1 else ''} ago"
    if entry.round:
        where = "this round" if entry.round == state.encounter.round else f"round {entry.round}"
    else:
        where = "out of combat"
    return f"{where}, {rolls} (#{entry.seq})"


def buyoff_choices(state: Any, char_id: str) -> list[WoundChoice]:
    """The character's wounds, newest first (the damage just taken first)."""
    c = state.characters[char_id]
    latest = latest_wound_index(c)
    order = sorted(
        range(len(c.wounds)),
        key=lambda i: (c.wounds[i].roll_seq if c.wounds[i].roll_seq is not None else -1, i),
        reverse=True,
    )
    return [
        WoundChoice(i, c.wounds[i].text, c.wounds[i].roll_seq, wound_age(state, c.wounds[i]), i == latest)
        for i in order
    ]
