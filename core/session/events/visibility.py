"""Handlers of what the players see: a character hidden from them and revealed again.

A hidden character is in the GM's initiative and acts as any other, but the player
view, the public chronicle and the public log show neither it nor its rolls. A roll
made while its roller or target is hidden is marked hidden (:meth:`Txn.add_roll`)
and stays so when the character is revealed, unless the reveal names it in
``rolls`` (the GM shows the ambush as it happened)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.registry import Event, handler
from gmdesk.core.session.model import Character, RollEntry, State


def hidden_rolls(state: State, cid: str) -> list[int]:
    """The seqs of the rolls still hidden from the players that ``cid`` made or was
    the target of (its initiative rolls included), oldest first, each seq once."""
    out: list[int] = []
    for e in state.rolls:
        if e.hidden and cid in (e.actor, e.target) and (not out or out[-1] != e.seq):
            out.append(e.seq)
    return out


@handler("character.hide")
def _character_hide(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id",))
    c = ctx.char(p["id"])
    if c.hidden:
        raise ctx.fail(f"{c.name} is already hidden from the players")
    ctx.tx.char(c.id).hidden = True
    ctx.changes.append(f"{c.name}{HIDDEN_NOTE}")
    return f"{c.name} is hidden from the players"


@handler("character.reveal")
def _character_reveal(ctx: Ctx, p: dict[str, Any]) -> str:
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
    return _indexes_in(ctx.state.rolls, seq)


#: how a change says a character was hidden (not told to the players once it is revealed)
HIDDEN_NOTE = ": hidden from the players"

#: payload keys that name a character (``entries`` of initiative.set and ``uses`` hold
#: objects with an ``id``); a roll's ``record`` is never looked into
_CHARACTER_KEYS = frozenset({"id", "ids", "actor", "target", "healer"})


def _named_ids(value: Any, out: set[str], key: str | None = None) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if k != "record":
                _named_ids(v, out, k)
    elif isinstance(value, list):
        for v in value:
            _named_ids(v, out, key)
    elif isinstance(value, str) and key in _CHARACTER_KEYS:
        out.add(value)


def gone_hidden(events: Iterable[Event]) -> dict[str, str]:
    """The characters that left the session while hidden from the players (id → name),
    read from ``events`` (those in effect, in order: the caller leaves out what was
    undone). Leaving does not reveal: the players never read of them, as while they
    were there (:func:`public_event`'s ``gone``, :func:`public_roll`)."""
    hidden: dict[str, bool] = {}
    gone: dict[str, str] = {}
    for e in events:
        data = e.data
        if e.type == "character.add":
            ch, cid = data.get("character"), data.get("id")
            if isinstance(cid, str) and isinstance(ch, Mapping):
                hidden[cid] = bool(ch.get("hidden"))
        elif e.type == "characters.add":
            ids, entries = data.get("ids"), data.get("entries")
            ids = ids if isinstance(ids, list) else []
            entries = entries if isinstance(entries, list) else []
            for cid, entry in zip(ids, entries, strict=False):
                ch = entry.get("character") if isinstance(entry, Mapping) else None
                if isinstance(cid, str) and isinstance(ch, Mapping):
                    hidden[cid] = bool(ch.get("hidden"))
        elif e.type in ("character.hide", "character.reveal"):
            cid = data.get("id")
            if isinstance(cid, str):
                hidden[cid] = e.type == "character.hide"
        elif e.type == "character.remove":
            cid = data.get("id")
            if isinstance(cid, str) and hidden.get(cid):
                gone[cid] = (e.summary or "").removesuffix(" leaves the session").strip()
    return gone


def public_roll(state: State, entry: RollEntry, gone: Mapping[str, str] | None = None) -> bool:
    """``State.public_roll``, and never a roll by or at a character that left the
    session while hidden (``gone``: :func:`gone_hidden`)."""
    if gone and (entry.actor in gone or entry.target in gone):
        return False
    return state.public_roll(entry)


def public_event(
    state: State,
    event: Event,
    by_seq: Mapping[Any, Event] | None = None,
    gone: Mapping[str, str] | None = None,
) -> Event | None:
    """``event`` as the players may read it (the players' log, the public chronicle),
    or None when it is not theirs to see: it hides a character; it names a hidden
    character (by id in its payload, or by name in its summary), or one that left
    the session while hidden (``gone``: :func:`gone_hidden`); its rolls are all
    hidden (``State.public_roll``); it undoes or redoes an event they cannot see
    (``by_seq``: seq → event, to look that one up). Lines of its changes that name a
    hidden character are left out, and an initiative with hidden combatants among
    others is told for the others only."""
    import dataclasses
    import re

    from gmdesk.core.session.events.seen import seen_roll_event, withheld_event

    if event.type == "character.hide":
        return None
    if withheld_event(state, event.type, event.data):
        return None  # a level set; what the players may not see of a character (its counters…)
    event = _seen_changes(state, event)
    if event.type in ("roll", "heal"):
        event = seen_roll_event(state, event)
    hidden = {cid: c.name for cid, c in state.characters.items() if c.hidden}
    if gone:
        hidden.update((cid, name) for cid, name in gone.items() if cid not in state.characters and name)
    if event.type in ("undo", "redo") and by_seq is not None:
        target = by_seq.get(event.data.get("target"))
        if target is not None and public_event(state, target, gone=gone) is None:
            return None
    entries = _entries(state, event.seq)
    if entries and not any(public_roll(state, e, gone) for e in entries):
        return None
    unseen = _hidden_seqs(state)
    if unseen and _names_a_roll(event, unseen):
        return None
    if event.type in ("character.add", "characters.add"):  # added hidden, revealed since
        event = dataclasses.replace(
            event,
            data={**event.data, "effects": [ch for ch in event.changes if not ch.endswith(HIDDEN_NOTE)]},
            summary=(event.summary or "").removesuffix(", hidden from the players"),
        )
    if not hidden:
        return event
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(n) for n in hidden.values()) + r")(?!\w)", re.IGNORECASE)
    ids: set[str] = set()
    _named_ids(dict(event.data), ids)
    changes = [ch for ch in event.changes if not pattern.search(ch)]
    summary = event.summary
    if event.type == "initiative.set":
        if not changes:
            return None
        told = ", ".join(ch.replace(": initiative", "") for ch in changes)
        summary = f"Initiative: {told}"
    elif ids & hidden.keys() or pattern.search(summary or ""):
        return None
    if summary == event.summary and changes == event.changes:
        return event
    data = dict(event.data)
    data["effects"] = changes
    return dataclasses.replace(event, data=data, summary=summary)


def _seen_changes(state: State, event: Event) -> Event:
    """``event`` without the lines of its changes the players may not read of a
    character by its visibility level (:func:`.seen.public_changes`: a Vitality
    line of one they see the name and wounds of, the resets of its counters…)."""
    import dataclasses

    from gmdesk.core.session.events.seen import public_changes

    changes = event.changes
    kept = public_changes(state, changes)
    if kept == changes:
        return event
    return dataclasses.replace(event, data={**event.data, "effects": kept})


def _hidden_seqs(state: State) -> set[int]:
    """The seqs of the rolls the players do not see."""
    return {e.seq for e in state.rolls if not state.public_roll(e)}


def _names_a_roll(event: Event, unseen: set[int]) -> bool:
    """True when ``event`` acts on or names one of the ``unseen`` rolls: its payload's
    ``roll`` (a Possibility spent or cancelled on it, its progress sent to a clock, a
    buy-off of its damage), or a ``#N`` in its summary (an undo of it). Hidden means
    hidden everywhere: what was done to a hidden roll is not the players' to read."""
    import re

    if event.type == "character.reveal":  # it shows those rolls
        return False
    ref = event.data.get("roll")
    if isinstance(ref, int) and not isinstance(ref, bool) and ref in unseen:
        return True
    return any(int(m) in unseen for m in re.findall(r"#(\d+)", event.summary or ""))


def _entries(state: State, seq: int) -> list[RollEntry]:
    rolls = state.rolls
    return [rolls[i] for i in _indexes_in(rolls, seq)]


def _indexes_in(rolls: Sequence[RollEntry], seq: int) -> list[int]:
    from bisect import bisect_left
    from operator import attrgetter

    i = bisect_left(rolls, seq, key=attrgetter("seq"))
    out = []
    while i < len(rolls) and rolls[i].seq == seq:
        out.append(i)
        i += 1
    return out
