"""Handlers of what the players see: a character hidden from them and revealed again.

A hidden character is in the GM's initiative and acts as any other, but the player
view, the public chronicle and the public log show neither it nor its rolls. A roll
made while its roller or target is hidden is marked hidden (:meth:`Txn.add_roll`)
and stays so when the character is revealed, unless the reveal names it in
``rolls`` (the GM shows the ambush as it happened)."""

from __future__ import annotations

from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.model import Character


def hidden_rolls(state, cid: str) -> list[int]:
    """The seqs of the rolls still hidden from the players that ``cid`` made or was
    the target of (its initiative rolls included), oldest first, each seq once."""
    out: list[int] = []
    for e in state.rolls:
        if e.hidden and cid in (e.actor, e.target) and (not out or out[-1] != e.seq):
            out.append(e.seq)
    return out


@handler("character.hide")
def _character_hide(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id",))
    c = ctx.char(p["id"])
    if c.hidden:
        raise ctx.fail(f"{c.name} is already hidden from the players")
    ctx.tx.char(c.id).hidden = True
    ctx.changes.append(f"{c.name}: hidden from the players")
    return f"{c.name} is hidden from the players"


@handler("character.reveal")
def _character_reveal(ctx: Ctx, p: dict) -> str:
    """Show the character to the players (when hidden) and, optionally, the rolls named
    in ``rolls`` (seqs of its hidden rolls: those it made or was the target of)."""
    ctx.fields(p, ("id",), ("rolls",))
    c = ctx.char(p["id"])
    seqs = p.get("rolls") or []
    if not isinstance(seqs, list):
        raise ctx.fail("rolls: must be a list of roll numbers")
    seqs = [ctx.integer(s, "rolls", 1) for s in seqs]
    if not c.hidden and not seqs:
        raise ctx.fail(f"{c.name} is not hidden from the players")
    shown = _reveal_rolls(ctx, c, seqs)
    if c.hidden:
        ctx.tx.char(c.id).hidden = False
        ctx.changes.append(f"{c.name}: shown to the players")
        head = f"{c.name} is revealed to the players"
    else:
        head = f"{c.name}'s rolls are revealed to the players"
    if not seqs:
        return head
    n = len(set(seqs))
    return f"{head} (with {n} earlier roll{'s' if n != 1 else ''}: {', '.join(f'#{s}' for s in shown)})"


def _reveal_rolls(ctx: Ctx, c: Character, seqs: list[int]) -> list[int]:
    rolls = ctx.state.rolls
    shown: list[int] = []
    for seq in dict.fromkeys(seqs):
        found = False
        for i in _indexes(ctx, seq):
            e = rolls[i]
            if e.hidden and c.id in (e.actor, e.target):
                ctx.tx.roll(i).hidden = False
                found = True
        if not found:
            raise ctx.fail(f"rolls: #{seq} is not a hidden roll of {c.name}")
        shown.append(seq)
    return shown


def _indexes(ctx: Ctx, seq: int) -> list[int]:
    from bisect import bisect_left
    from operator import attrgetter

    rolls = ctx.state.rolls
    i = bisect_left(rolls, seq, key=attrgetter("seq"))
    out = []
    while i < len(rolls) and rolls[i].seq == seq:
        out.append(i)
        i += 1
    return out
