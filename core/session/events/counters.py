"""Handlers of a character's named counters (reactions, legendary actions, a
once-a-round ability): ``counter.add``, ``counter.change`` (spend or restore) and
``counter.remove``, and the resets the turn, the round and the next night make.

A counter fills up again at its reset point: ``round`` when a new round begins (for
everyone in the encounter), ``turn`` when its owner's turn starts (a turn passed
over, its owner unable to act, does not start), ``night`` in the next session it is
carried to (``session.carried``, with or without a rest). The reset is part of the
event that made it (``turn.next``, ``round.new``, ``session.carried``): undoing that
event undoes the reset. A counter outside those moments changes only by the GM's
spend and restore."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.model import COUNTER_RESETS, Character, Counter

#: the largest maximum a counter may have, and the most counters one character carries
MAX_COUNTER = 999
MAX_COUNTERS = 20

#: how the log says why a counter filled up again
RESET_WHY = {"round": "a new round", "turn": "its turn starts", "night": "a new night"}


def _label(ctx: Ctx, p: dict[str, Any]) -> str:
    return ctx.text(p["label"], "label")


def _owned(ctx: Ctx, c: Character, label: str) -> Counter:
    x = c.counter(label)
    if x is None:
        have = ", ".join(k.label for k in c.counters)
        raise ctx.fail(f"{c.name} has no counter {label!r}" + (f" (it has: {have})" if have else ""))
    return x


def _replace(ctx: Ctx, c: Character, old: Counter, new: Counter | None) -> None:
    live = ctx.tx.char(c.id)
    out: list[Counter] = []
    for x in live.counters:
        if x is old:
            if new is not None:
                out.append(new)
        else:
            out.append(x)
    live.counters = out


@handler("counter.add")
def _counter_add(ctx: Ctx, p: dict[str, Any]) -> str:
    """``id``, ``label``, ``max`` (1…999) and ``reset`` (round, turn or night);
    ``left`` (default: ``max``)."""
    ctx.fields(p, ("id", "label", "max", "reset"), ("left",))
    c = ctx.char(p["id"])
    label = _label(ctx, p)
    maximum = ctx.integer(p["max"], "max", 1, MAX_COUNTER)
    reset = ctx.choice(p["reset"], "reset", COUNTER_RESETS)
    left = maximum if p.get("left") is None else ctx.integer(p["left"], "left", 0, maximum)
    if c.counter(label) is not None:
        raise ctx.fail(f"{c.name} already has a counter {c.counter(label).label!r}")  # type: ignore[union-attr]
    if len(c.counters) >= MAX_COUNTERS:
        raise ctx.fail(f"{c.name} already carries {MAX_COUNTERS} counters (the most one character may)")
    x = Counter(label, maximum, left, reset)
    live = ctx.tx.char(c.id)
    live.counters = [*live.counters, x]
    ctx.changes.append(f"{c.name}: {x.shown()}")
    return f"{c.name} gets a counter: {x.shown()}"


@handler("counter.change")
def _counter_change(ctx: Ctx, p: dict[str, Any]) -> str:
    """``id``, ``label`` and one of ``spend`` or ``restore`` (a whole number ≥ 1)."""
    ctx.fields(p, ("id", "label"), ("spend", "restore"))
    c = ctx.char(p["id"])
    x = _owned(ctx, c, _label(ctx, p))
    if ("spend" in p) == ("restore" in p):
        raise ctx.fail("give one of spend or restore")
    if "spend" in p:
        n = ctx.integer(p["spend"], "spend", 1, MAX_COUNTER)
        if n > x.left:
            raise ctx.fail(f"{c.name} has {x.left} {x.label} left (cannot spend {n})")
        new = Counter(x.label, x.maximum, x.left - n, x.reset)
        verb = "spends"
    else:
        n = ctx.integer(p["restore"], "restore", 1, MAX_COUNTER)
        if x.left + n > x.maximum:
            spent = x.maximum - x.left
            if not spent:
                raise ctx.fail(f"{c.name}'s {x.label} is full")
            raise ctx.fail(f"{c.name} has spent {spent} {x.label} (restore at most {spent})")
        new = Counter(x.label, x.maximum, x.left + n, x.reset)
        verb = "restores"
    _replace(ctx, c, x, new)
    ctx.changes.append(f"{c.name}: {x.label} {x.left}/{x.maximum} → {new.left}/{new.maximum}")
    return f"{c.name} {verb} {n} {x.label} ({new.left}/{new.maximum} left)"


@handler("counter.remove")
def _counter_remove(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "label"))
    c = ctx.char(p["id"])
    x = _owned(ctx, c, _label(ctx, p))
    _replace(ctx, c, x, None)
    ctx.changes.append(f"{c.name}: {x.label} removed")
    return f"{c.name}'s counter {x.label} is removed"


def reset_counters(ctx: Ctx, ids: Iterable[str], reset: str) -> None:
    """Fill up the counters of the characters ``ids`` that reset at ``reset`` (one of
    :data:`COUNTER_RESETS`), each change a line of the event's changes."""
    chars = ctx.state.characters
    for cid in ids:
        c = chars.get(cid)
        if c is None or not any(x.reset == reset and x.left < x.maximum for x in c.counters):
            continue
        live = ctx.tx.char(cid)
        out = []
        for x in live.counters:
            if x.reset == reset and x.left < x.maximum:
                why = RESET_WHY[reset]
                ctx.changes.append(f"{c.name}: {x.label} {x.left}/{x.maximum} → {x.maximum}/{x.maximum} ({why})")
                x = x.full
            out.append(x)
        live.counters = out
