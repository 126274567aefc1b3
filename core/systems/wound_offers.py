"""What a Possibility buy-off offers, read from the session's state: a character's
wounds, newest first (the damage just taken first), each with how old it is ("round 1,
3 rolls ago"), and the roll that dealt the damage just taken.

The desk shows them (:mod:`core.session.offers` re-exports them) and torg's buy-off
move asks them (:mod:`core.systems.builtin_moves`); they read the state by its public
attributes only. Kept out of the moves' module, which every declaration loads, so that a
roll never makes their class.

* :func:`buyoff_choices`: a character's wounds for a torg buy-off, newest first,
  each with how old it is. The default is the first one: the damage just taken (the
  latest wound, from the last roll that wounded the character).
* :func:`damage_just_taken`: what a buy-off without an explicit pick applies to.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class WoundChoice:
    """A wound a character can buy off, as a move offers it."""

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


def last_roll_against(state: Any, char_id: str) -> Any:
    """The latest roll made against the character (its target), or None."""
    for entry in reversed(state.rolls):
        if entry.kind == "roll" and entry.target == char_id:
            return entry
    return None


def damage_just_taken(state: Any, char_id: str) -> tuple[Any, int | None]:
    """What a buy-off without an explicit pick applies to: ``(the last roll against
    the character, the index of the wound it dealt that the character still
    carries)``; the index is None when that roll missed (or its damage is already
    gone), and the roll None when nobody rolled against the character. Only the
    damage of the last roll is "just taken" (RULES: a Possibility buys off damage
    just taken); an older wound is bought off only when the GM picks it."""
    entry = last_roll_against(state, char_id)
    if entry is None:
        return None, None
    c = state.characters[char_id]
    found = [i for i, w in enumerate(c.wounds) if w.roll_seq == entry.seq]
    return entry, (found[-1] if found else None)


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
