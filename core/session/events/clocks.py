"""Handlers of the clocks: progress in half segments, by hand or from a roll of a
system whose rolls move clocks (its ``HARM.clocks``)."""

from __future__ import annotations

from typing import Any

from gmdesk.core.session.events.context import MAX_SEGMENTS, Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.model import Clock, RollEntry
from gmdesk.core.session.model.state import halves_text
from gmdesk.core.systems.harm import harm_of


@handler("clock.add")
def _clock_add(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("name", "segments"), ("halves",))
    name = ctx.text(p["name"], "name")
    segments = ctx.integer(p["segments"], "segments", 1, MAX_SEGMENTS)
    halves = ctx.integer(p.get("halves", 0), "halves", 0, 2 * segments)
    if any(k.casefold() == name.casefold() for k in ctx.state.clocks):
        raise ctx.fail(f"there is already a clock named {name!r}")
    ctx.tx.clocks()[name] = Clock(name, segments, halves)
    ctx.changes.append(f"Clock {name}: {halves_text(halves)} of {segments}")
    return f"Clock {name} ({segments} segments)"


def clock_named(ctx: Ctx, name: Any) -> Clock:
    name = ctx.text(name, "name")
    for k, clock in ctx.state.clocks.items():
        if k.casefold() == name.casefold():
            return clock
    raise ctx.fail(
        f"no clock named {name!r}" + (f" (clocks: {', '.join(ctx.state.clocks)})" if ctx.state.clocks else "")
    )


def _halves_amount(h: int) -> str:
    """``+1½ segments``, ``−½ segment``: a step of a clock, in segments."""
    sign = "+" if h >= 0 else "−"
    n = abs(h)
    return f"{sign}{halves_text(n)} segment{'' if n <= 2 else 's'}"


def advance_clock(ctx: Ctx, clock: Clock, step: int, why: str = "") -> str:
    """Move a clock by ``step`` halves (kept within 0..full) and say so in the changes."""
    full = 2 * clock.segments
    new = max(0, min(full, clock.halves + step))
    ctx.tx.clocks()[clock.name] = Clock(clock.name, clock.segments, new)
    msg = (
        f"Clock {clock.name}: {halves_text(clock.halves)} → {halves_text(new)} of {clock.segments}"
        f" ({_halves_amount(new - clock.halves)}{why})"
    )
    ctx.changes.append(msg + (" (full)" if new >= full else ""))
    return msg


def _clock_progress(ctx: Ctx, entry: RollEntry) -> int:
    """The clock progress (half segments) the roll earned, as its system declares; a
    fail for a roll whose system moves no clock."""
    clocks = harm_of(entry.record.system).clocks
    halves = clocks.earned(entry.record) if clocks is not None else None
    if halves is None:
        raise ctx.fail(f"roll #{entry.seq} earned no clock progress (a {entry.record.system} roll moves no clock)")
    return halves


@handler("clock.tick")
def _clock_tick(ctx: Ctx, p: dict[str, Any]) -> str:
    """Progress in half segments (negative takes progress back), kept within 0..full.

    ``roll`` (optional): the seq of the roll whose progress this tick applies; the
    roll then counts as applied (it is not offered for the next tick again)."""
    ctx.fields(p, ("name", "halves"), ("roll",))
    clock = clock_named(ctx, p["name"])
    step = ctx.integer(p["halves"], "halves", -2 * MAX_SEGMENTS, 2 * MAX_SEGMENTS)
    if step == 0:
        raise ctx.fail("halves: must not be 0")
    full = 2 * clock.segments
    if step > 0 and clock.halves >= full:
        raise ctx.fail(f"clock {clock.name} is already full ({clock.segments}/{clock.segments})")
    if step < 0 and clock.halves <= 0:
        raise ctx.fail(f"clock {clock.name} is already empty")
    why = ""
    if p.get("roll") is not None:
        i = ctx.roll_index(p["roll"])
        entry = ctx.state.rolls[i]
        _clock_progress(ctx, entry)
        if entry.clock:
            raise ctx.fail(f"roll #{entry.seq}'s progress already went to clock {entry.clock}")
        ctx.tx.roll(i).clock = clock.name
        why = f", roll #{entry.seq}"
    return advance_clock(ctx, clock, step, why)


@handler("clock.remove")
def _clock_remove(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("name",), ("segments", "halves"))
    clock = clock_named(ctx, p["name"])
    del ctx.tx.clocks()[clock.name]
    ctx.changes.append(f"Clock {clock.name} removed (at {halves_text(clock.halves)} of {clock.segments})")
    return f"Clock {clock.name} removed"
