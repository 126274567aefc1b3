"""The clocks' moves, "Add clock" and "Tick clock", for every system whose rolls move clocks.

The progress of its latest roll is offered to the next tick. The declaration adds
them (``core.systems.spec``: a ``HARM`` with ``clocks``); this module imports no dice
system and nothing of the declaration's resolution.

* :func:`pending_clock_progress`: the clock progress the latest roll of a system
  whose rolls move clocks (its ``HARM.clocks``) earned and that no clock has taken
  yet — the default of the next clock tick. Only the latest such roll counts: once
  a newer one is made, an older roll's progress is no longer offered (the GM can
  still tick any amount by hand).
* :func:`clock_moves`: the two moves, for the declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.systems.declare import Move, MoveField
from gmdesk.core.systems.harm import harm_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

Context = Mapping[str, "Any"]


@dataclass(frozen=True)
class ClockOffer:
    """The clock progress the latest roll earned, offered to the next clock tick."""

    roll_seq: int
    halves: int
    effect: str
    outcome: str


def pending_clock_progress(state: Any) -> ClockOffer | None:
    """The clock progress of the latest roll whose system moves clocks (its
    ``HARM.clocks``), if it earned some and no clock took it yet."""
    for entry in reversed(state.rolls):
        clocks = harm_of(entry.record.system).clocks if entry.kind == "roll" else None
        if clocks is None:
            continue
        halves = clocks.earned(entry.record)
        if entry.clock or halves is None or halves <= 0:
            return None
        return ClockOffer(entry.seq, halves, str(entry.record.get("clock_effect") or ""), entry.record.outcome)
    return None


def clock_add_form(state: Any, context: Context) -> list[MoveField]:
    return [MoveField("name", "Clock name", "text", ""), MoveField("segments", "Segments", "int", 4, lo=1)]


def clock_add_run(session: Any, values: Context, context: Context, rng: Any) -> Any:
    name = str(values.get("name") or "").strip()
    if not name:
        raise ParamError("name", "must not be empty")
    segments = values.get("segments")
    return session.apply({"type": "clock.add", "name": name, "segments": 4 if segments is None else segments})


def clock_add_said(state: Any, event: Any) -> str:
    return f"Clock {event.data.get('name')} added"


def clock_tick_form(state: Any, context: Context) -> list[MoveField]:
    clocks = list(state.clocks.values())
    if not clocks:
        raise GmdeskError("No clocks yet: add one first (Add clock).")
    # the progress the latest roll earned (and no clock took yet) is the default
    offer = pending_clock_progress(state)
    return [
        MoveField("name", "Clock", "choice", clocks[0].name, tuple((c.name, c.name) for c in clocks)),
        MoveField(
            "halves",
            "Half segments",
            "int",
            offer.halves if offer is not None else 2,
            placeholder="2 = one segment; -1 takes back",
        ),
    ]


def clock_tick_hint(state: Any, context: Context) -> str:
    offer = pending_clock_progress(state)
    return f"From roll #{offer.roll_seq}: {offer.outcome}, {offer.effect} effect" if offer is not None else ""


def clock_tick_run(session: Any, values: Context, context: Context, rng: Any) -> Any:
    offer = pending_clock_progress(session.state)
    halves = values.get("halves")
    halves = 2 if halves is None else int(halves)
    doc: dict[str, Any] = {"type": "clock.tick", "name": values.get("name"), "halves": halves}
    if offer is not None and halves == offer.halves:
        doc["roll"] = offer.roll_seq  # the roll's progress, taken
    return session.apply(doc)


def clock_tick_said(state: Any, event: Any) -> str:
    halves = int(event.data.get("halves", 0))
    return f"Clock {event.data.get('name')} {'+' if halves >= 0 else ''}{halves / 2:g} segment(s)"


def clock_moves() -> tuple[Move, Move]:
    """The moves of a system whose rolls move clocks (``K`` adds one, ``k`` ticks one,
    the latest roll's progress offered): a declaration with clocks has them."""
    return (
        Move(
            "clock_add",
            "Add clock",
            "a named clock of N segments",
            key="K",
            verb="add",
            form=clock_add_form,
            run=clock_add_run,
            said=clock_add_said,
        ),
        Move(
            "clock_tick",
            "Tick clock",
            "progress in half segments (the latest roll's progress offered)",
            key="k",
            verb="tick",
            form=clock_tick_form,
            hint=clock_tick_hint,
            run=clock_tick_run,
            said=clock_tick_said,
        ),
    )
