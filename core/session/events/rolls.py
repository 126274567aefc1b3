"""Handlers of rolls and the system moves made on them: combat descriptors (wounds,
Vitality, Unconscious and Dead), Possibilities (spent at roll time or after, cancelled,
buying off damage) and the conditions a roll imposes — each by the declaration of the
roll's own system (:class:`~gmdesk.core.systems.harm.Harm`) — sheet uses and healing,
wounds, and the notes written in the same log."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from functools import cache
from typing import Any

import gmdesk.core.systems as _systems
from gmdesk.core.dice import RollRecord
from gmdesk.core.session.events.clocks import advance_clock, clock_named
from gmdesk.core.session.events.context import MAX_TEXT, MAX_VITALITY, Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.events.sheets import sheet_changes
from gmdesk.core.session.events.tables import descriptor_status, session_tables
from gmdesk.core.session.events.text import num, signed, status_word
from gmdesk.core.session.model import Character, Condition, Note, RollEntry, Wound
from gmdesk.core.systems.harm import harm_of


def _apply_descriptors(ctx: Ctx, entry_index: int) -> None:
    """Apply a combat roll's descriptors to whoever receives them, as the roll's
    system declares (its ``HARM``): each wound descriptor is piled up with the status
    it imposes; where the system's Vitality is hurt by amounts, the amount comes off
    the receiver's Vitality, and an injury that kills sets the sticky ``dead`` flag.
    Each change is logged on the roll entry and in the event's changes."""
    entry = ctx.tx.roll(entry_index)
    record = entry.record
    settings = ctx.state.info.settings
    harm = harm_of(record.system)
    for d in record.descriptors:
        if not d.wound:
            continue
        cid = entry.target if d.applies_to == "target" else entry.actor if d.applies_to == "attacker" else None
        if cid is None or cid not in ctx.state.characters:
            continue
        c = ctx.state.characters[cid]
        before = c.status
        live = ctx.tx.char(cid)
        st = descriptor_status(settings, harm, d.text, d.column)
        if harm.vitality.hurt_by_amount and d.amount is not None:
            if not isinstance(d.amount, int) or isinstance(d.amount, bool) or d.amount < 0:
                raise ctx.fail(f"record: descriptor {d.text!r}: its amount must be a whole number ≥ 0")
            old = live.vitality_current
            new, kills = harm.vitality.after(old, d.amount, before == "unconscious")
            live.add_wound(Wound(d.text, entry.seq, record.system, d.row, st, d.amount, d.column))
            ctx.set_vitality(live, new)
            if kills:
                live.dead = True
                if live.status_set is not None:  # killed by a later injury: worse than any status set by hand
                    live.status_set = None
            after = live.status
            tail = f" ({status_word(after)})" if after != "ok" else ""
            change = f"{c.name}: Vitality {num(old)} → {num(new)}{tail}"
        else:
            live.add_wound(Wound(d.text, entry.seq, record.system, d.row, st, d.amount, d.column))
            after = live.status
            tail = f" ({status_word(after)})" if after != before and after != "ok" else ""
            change = f"{c.name} takes {d.text}{tail}"
        entry.changes = [*entry.changes, change]
        ctx.changes.append(change)


def _impose_conditions(ctx: Ctx, entry_index: int, quiet: AbstractSet[tuple[str, str]] = frozenset()) -> None:
    """The conditions the roll's system says its record imposes on a tracked roller
    (Disconnected, on a disconnection), unless the roller has them already.
    ``quiet``: conditions the roll imposed before a re-read — put back without a new
    change line."""
    entry = ctx.state.rolls[entry_index]
    if entry.actor is None or entry.actor not in ctx.state.characters:
        return
    for imposed in harm_of(entry.record.system).imposes:
        if not entry.record.get(imposed.field):
            continue
        c = ctx.state.characters[entry.actor]
        name = imposed.condition
        if c.has_condition(name):
            continue
        live = ctx.tx.char(c.id)
        live.conditions = [*live.conditions, Condition(name, None, entry.seq)]
        if (c.id, name) in quiet:
            continue
        change = f"{c.name} is {name}"
        live_entry = ctx.tx.roll(entry_index)
        live_entry.changes = [*live_entry.changes, change]
        ctx.changes.append(change)


def _unapply_roll(ctx: Ctx, entry_index: int) -> None:
    """Take off what a roll put on: wounds and conditions it caused, and the Vitality
    its wounds took (before re-reading it). A death it caused stands: the re-read
    decides again only what the new record does."""
    entry = ctx.state.rolls[entry_index]
    for cid in dict.fromkeys(x for x in (entry.actor, entry.target) if x is not None):
        c = ctx.state.characters.get(cid)
        if c is None:
            continue
        if any(w.roll_seq == entry.seq for w in c.wounds) or any(x.roll_seq == entry.seq for x in c.conditions):
            live = ctx.tx.char(cid)
            gone = [w for w in live.wounds if w.roll_seq == entry.seq]
            live.wounds = [w for w in live.wounds if w.roll_seq != entry.seq]
            live.conditions = [x for x in live.conditions if x.roll_seq != entry.seq]
            for w in gone:
                if w.amount is not None and harm_of(w.system).vitality.hurt_by_amount:
                    old = live.vitality_current
                    ctx.set_vitality(live, old + w.amount)
                    ctx.changes.append(f"{c.name}: Vitality {num(old)} → {num(old + w.amount)} ({w.text} comes off)")
                    continue
                ctx.changes.append(f"{c.name}: {w.text} comes off")


def _imposed(ctx: Ctx, entry: RollEntry) -> set[tuple[str, str]]:
    """(character id, condition name) of every condition the roll imposed."""
    out: set[tuple[str, str]] = set()
    for cid in dict.fromkeys(x for x in (entry.actor, entry.target) if x is not None):
        c = ctx.state.characters.get(cid)
        if c is not None:
            out.update((cid, x.name) for x in c.conditions if x.roll_seq == entry.seq)
    return out


def _reread(ctx: Ctx, entry_index: int, record: RollRecord) -> None:
    """A Possibility spend or cancel changed the roll's record: take off what the old
    record did and put on what the new one does — a combat roll's wounds and, for any
    roll, the conditions it imposed (Disconnected: lifted when the new record leaves
    the disconnection range, imposed again when it comes back in). The changes say so."""
    entry = ctx.tx.roll(entry_index)
    entry.record = record
    before = _imposed(ctx, entry)
    if entry.combat:
        _unapply_roll(ctx, entry_index)
    else:
        for cid in {cid for cid, _ in before}:
            live = ctx.tx.char(cid)
            live.conditions = [x for x in live.conditions if x.roll_seq != entry.seq]
    n = len(ctx.changes)
    if entry.combat:
        _apply_descriptors(ctx, entry_index)
    _impose_conditions(ctx, entry_index, quiet=before)
    for cid, name in sorted(before - _imposed(ctx, entry)):
        change = f"{ctx.state.characters[cid].name} is no longer {name}"
        entry = ctx.tx.roll(entry_index)
        entry.changes = [*entry.changes, change]
        ctx.changes.insert(n, change)


def _cost(record: RollRecord) -> int:
    """The Possibilities the roll spends as it is made (its system's ``Spend``)."""
    spend = harm_of(record.system).spend
    return spend.at_roll(record) if spend is not None else 0


def _check_spender(ctx: Ctx, c: Character, n: int = 1) -> None:
    if not c.reality_rated:
        raise ctx.fail(f"{c.name} is not reality-rated and has no Possibilities")
    if c.possibilities < n:
        raise ctx.fail(f"{c.name} has {c.possibilities} Possibilit{'y' if c.possibilities == 1 else 'ies'}, needs {n}")


def roll_refusal(actor: Character | None, target: Character | None, combat: bool = False) -> str | None:
    """Why this roll may not be made (RULES "Who can act"), or None: an Unconscious or
    Dead roller takes no action; the Dead cannot be targeted; nobody attacks themself
    (a combat roll's target is the other side of a fight: the attacker's own roll would
    be its defense too. A heal is no attack: a healer may heal itself)."""
    if actor is not None and not actor.can_act:
        return f"{actor.name} is {status_word(actor.status)} and cannot act"
    if target is not None and target.status == "dead":
        return f"{target.name} is Dead and cannot be targeted"
    if combat and actor is not None and target is not None and actor.id == target.id:
        return f"{actor.name} cannot attack {target.name}"
    return None


@cache
def _record_line() -> Callable[..., str]:
    """``core.render.record_line`` (it imports Rich), imported at the first roll's
    summary: a run of rolls runs no import statement a roll."""
    from gmdesk.core.render import record_line

    return record_line


@handler("roll")
def _roll(ctx: Ctx, p: dict[str, Any]) -> str:
    """A roll, with what it does by its system's declaration: combat descriptors,
    Possibilities spent at roll time, the conditions it imposes, ``clock`` (optional,
    a clock's name): the clock the roll's own progress goes to (a system whose rolls
    move clocks; a roll that earned none leaves it as it is, and says so), and
    ``uses`` (optional, a Test on a descriptor sheet): ``[{id, descriptor, amount?, parent_amount?}]``,
    the Abilities and Uses the Test used (each spends its uses and, for a Use, its
    parent's; refused, with nothing changed, when one cannot be used)."""
    ctx.fields(p, ("record",), ("actor", "target", "combat", "actor_name", "target_name", "clock", "uses"))
    record = ctx.record(p["record"])
    if record.system not in _systems.BUILTIN_IDS and record.system not in _systems.system_ids():
        raise ctx.fail(f"record: unknown system {record.system!r}")
    actor = ctx.opt_char(p.get("actor"), "actor")
    target = ctx.opt_char(p.get("target"), "target")
    combat = ctx.boolean(p.get("combat", False), "combat")
    clock = clock_named(ctx, p["clock"]) if p.get("clock") not in (None, "") else None
    harm = harm_of(record.system)
    clocks = harm.clocks
    earned = clocks.earned(record) if clocks is not None else None
    if clock is not None and earned is None:
        raise ctx.fail(f"clock: a {record.system} roll moves no clock")
    if ctx.strict:
        refusal = roll_refusal(actor, target, combat)
        if refusal is not None:
            raise ctx.fail(refusal)
    cost = harm.spend.at_roll(record) if harm.spend is not None else 0  # (what _cost says)
    if cost and actor is not None:
        _check_spender(ctx, actor, cost)
    rnd, turn = ctx.roll_position()
    entry = RollEntry(
        ctx.seq,
        record,
        actor.id if actor else None,
        target.id if target else None,
        rnd,
        turn,
        [],
        kind="roll",
        combat=combat,
        spends=[actor.id if actor else None] * cost,
        actor_name=actor.name if actor else str(p.get("actor_name") or ""),
        target_name=target.name if target else str(p.get("target_name") or ""),
    )
    ctx.tx.add_roll(entry)
    index = len(ctx.state.rolls) - 1
    if cost and actor is not None:
        ctx.set_possibilities(actor, actor.possibilities - cost, " (spent on the roll)")
        ctx.tx.roll(index).changes = [ctx.changes[-1]]
    uses = p.get("uses") or []
    if not isinstance(uses, list):
        raise ctx.fail("uses: must be a list of {id, descriptor, amount, parent_amount}")
    for k, u in enumerate(uses):
        if not isinstance(u, Mapping) or set(u) - {"id", "descriptor", "amount", "parent_amount"}:
            raise ctx.fail(f"uses[{k}]: must be an object with id, descriptor, amount, parent_amount")
        who = ctx.char(u.get("id"), f"uses[{k}].id")
        if who.sheet is None:
            raise ctx.fail(f"uses[{k}]: {who.name} has no descriptor sheet")
        what = ctx.text(u.get("descriptor"), f"uses[{k}].descriptor")
        n = ctx.integer(u.get("amount", 1), f"uses[{k}].amount", 1, 10**6)
        pn = (
            None
            if u.get("parent_amount") is None
            else ctx.integer(u["parent_amount"], f"uses[{k}].parent_amount", 0, 10**6)
        )
        lines = _spend(ctx, who, what, n, pn)
        live = ctx.tx.roll(index)
        live.changes = [*live.changes, *lines]
    if combat:
        _apply_descriptors(ctx, index)
    if entry.actor is not None:  # (only a roller it tracks has conditions imposed)
        _impose_conditions(ctx, index)
    if clock is not None:
        live = ctx.tx.roll(index)
        live.clock = clock.name
        if earned:
            advance_clock(ctx, clock, earned)
        else:
            ctx.changes.append(f"Clock {clock.name}: no progress ({record.outcome})")
        live.changes = [*live.changes, ctx.changes[-1]]
    if ctx.summary is not None:
        return ctx.summary
    record_line = _record_line()
    roller = actor.name if actor else (entry.actor_name or "GM")
    at = f" at {target.name}" if target else (f" at {entry.target_name}" if entry.target_name else "")
    return f"{roller} rolls{at}: {record_line(record, hide_secrets=True)}"


@handler("use")
def _use(ctx: Ctx, p: dict[str, Any]) -> str:
    """Spend uses of an Ability, Item or Use: ``amount`` of its own (default 1) and, for
    a Use, ``parent_amount`` of its parent's (default the same; 0 spends none of the
    parent's — the GM decides what a Magic Ability Use costs)."""
    ctx.fields(p, ("id", "descriptor"), ("amount", "parent_amount"))
    c = ctx.char(p["id"])
    name = ctx.text(p["descriptor"], "descriptor")
    amount = ctx.integer(p.get("amount", 1), "amount", 1, 10**6)
    parent_amount = (
        None if p.get("parent_amount") is None else ctx.integer(p["parent_amount"], "parent_amount", 0, 10**6)
    )
    if c.sheet is None:
        raise ctx.fail(f"{c.name} has no descriptor sheet")
    if c.status == "dead":
        raise ctx.fail(f"{c.name} is dead")
    summary = f"{c.name} uses {name}" + (f" ×{amount}" if amount != 1 else "")
    ctx.changes.append(summary)
    _spend(ctx, c, name, amount, parent_amount)
    return summary


@handler("heal")
def _heal(ctx: Ctx, p: dict[str, Any]) -> str:
    """A healing roll: the record's value back onto the target's Vitality, never
    above its Default (a Vitality already above Default is left alone); the healer
    spends a use of ``use`` on its descriptor sheet (absent: ``Healing Ability``, as
    every heal saved before it had; ``null``: nothing is spent, a system whose heal
    needs no sheet). The Dead cannot be healed."""
    ctx.fields(p, ("healer", "target", "record"), ("vitality", "use"))
    healer = ctx.char(p["healer"], "healer")
    target = ctx.char(p["target"], "target")
    record = ctx.record(p["record"])
    use = p.get("use", "Healing Ability")
    if use is not None and (not isinstance(use, str) or not use.strip()):
        raise ctx.fail("use: must be the name of a descriptor, or null")
    if target.status == "dead":
        raise ctx.fail(f"{target.name} is dead; the Dead stay dead")
    if healer.status != "ok":
        raise ctx.fail(f"{healer.name} is {status_word(healer.status)} and cannot heal")
    if use is not None and healer.sheet is None:
        raise ctx.fail(f"{healer.name} has no {use} (no descriptor sheet)")
    old = target.vitality_current
    if "vitality" in p:
        new = ctx.integer(p["vitality"], "vitality", -MAX_VITALITY, MAX_VITALITY)
    else:
        new = max(old, min(target.vitality_default, old + record.value))
    if use is not None:
        _spend(ctx, healer, use, 1)
    before = target.status
    ctx.set_vitality(target, new)
    after = ctx.state.characters[target.id].status
    tail = f" ({status_word(after)})" if after != before else ""
    change = f"{target.name}: Vitality {num(old)} → {num(new)}{tail}"
    ctx.changes.append(change)
    rnd, turn = ctx.roll_position()
    ctx.tx.add_roll(
        RollEntry(
            ctx.seq,
            record,
            healer.id,
            target.id,
            rnd,
            turn,
            [change],
            kind="heal",
            actor_name=healer.name,
            target_name=target.name,
        )
    )
    return f"{healer.name} heals {target.name}: {change}"


def _spend(ctx: Ctx, c: Character, name: str, amount: int = 1, parent_amount: int | None = None) -> list[str]:
    """Spend uses of ``name`` (and of its parent, for a Use) on ``c``'s sheet; the change
    lines are added to the event's changes and returned."""
    before = ctx.state.characters[c.id].sheet
    if before is None:
        raise ctx.fail(f"{c.name} has no descriptor sheet")
    live = ctx.tx.char(c.id)
    live.sheet = before.spend_use(name, amount, parent_amount)
    lines = sheet_changes(c.name, before, live.sheet)
    ctx.changes.extend(lines)
    return lines


@handler("possibility.spend")
def _possibility_spend(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "roll", "record"))
    c = ctx.char(p["id"])
    i = ctx.roll_index(p["roll"])
    entry = ctx.state.rolls[i]
    spend = harm_of(entry.record.system).spend
    if spend is None or not spend.after:
        raise ctx.fail(f"roll #{entry.seq} is a {entry.record.system} roll; no Possibility is spent on it")
    _check_spender(ctx, c)
    record = ctx.record(p["record"])
    if record.system != entry.record.system:
        raise ctx.fail("record: must be the same roll with the Possibility die added")
    old_value = entry.record.value
    ctx.set_possibilities(c, c.possibilities - 1)
    spend_change = f"{c.name} spends a Possibility on roll #{entry.seq}: {signed(old_value)} → {signed(record.value)}"
    ctx.changes.append(spend_change)
    live = ctx.tx.roll(i)
    live.spends = [*live.spends, c.id]
    live.changes = [*live.changes, spend_change]
    _reread(ctx, i, record)
    return spend_change


@handler("possibility.cancel")
def _possibility_cancel(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "roll"), ("record",))
    c = ctx.char(p["id"])
    i = ctx.roll_index(p["roll"])
    entry = ctx.state.rolls[i]
    live_spends = entry.spends[: len(entry.spends) - len(entry.cancels)]
    if not live_spends:
        raise ctx.fail(f"roll #{entry.seq} has no Possibility spend left to cancel")
    if live_spends[-1] == c.id:
        raise ctx.fail(f"{c.name} cannot cancel their own Possibility")
    _check_spender(ctx, c)
    if p.get("record") is not None:
        record = ctx.record(p["record"])
    else:
        spend = harm_of(entry.record.system).spend
        if spend is None or spend.cancel is None:
            raise ctx.fail(f"roll #{entry.seq} is a {entry.record.system} roll; its Possibilities cannot be cancelled")
        record = spend.cancel(entry.record, session_tables(ctx.state.info.settings))
        ctx.extra["record"] = record.to_json()
    old_value = entry.record.value
    ctx.set_possibilities(c, c.possibilities - 1)
    change = f"{c.name} cancels a Possibility on roll #{entry.seq}: {signed(old_value)} → {signed(record.value)}"
    ctx.changes.append(change)
    live = ctx.tx.roll(i)
    live.cancels = [*live.cancels, c.id]
    live.changes = [*live.changes, change]
    _reread(ctx, i, record)
    return change


def _wound_index(ctx: Ctx, c: Character, value: Any) -> int:
    if not c.wounds:
        raise ctx.fail(f"{c.name} has no wounds")
    return ctx.integer(value, "wound", 0, len(c.wounds) - 1)


@handler("damage.buyoff")
def _buyoff(ctx: Ctx, p: dict[str, Any]) -> str:
    """A Possibility buys off damage just taken: without ``wound`` the damage of the
    last roll against the character — none when that roll missed, or when its
    damage is already bought off (an older wound is never taken instead);
    ``wound`` (an index) is the GM's explicit pick of any wound. gmdesk stores the
    index it used, so a replay never decides again."""
    ctx.fields(p, ("id",), ("wound",))
    c = ctx.char(p["id"])
    if p.get("wound") is None:
        from gmdesk.core.session.offers import damage_just_taken, nothing_to_buy_off

        if not c.wounds:
            raise ctx.fail(f"{c.name} has no wounds")
        _entry, k = damage_just_taken(ctx.state, c.id)
        if k is None:
            raise ctx.fail(nothing_to_buy_off(ctx.state, c.id))
        ctx.extra["wound"] = k
    else:
        k = _wound_index(ctx, c, p["wound"])
    _check_spender(ctx, c)
    w = c.wounds[k]
    before = c.status
    ctx.set_possibilities(c, c.possibilities - 1, " (buy-off)")
    live = ctx.tx.char(c.id)
    live.wounds = live.wounds[:k] + live.wounds[k + 1 :]
    after = live.status
    change = f"{c.name} buys off {w.text}" + (f" ({status_word(after)})" if after != before else "")
    ctx.changes.append(change)
    if w.roll_seq is not None:
        i = ctx.state.roll_index(w.roll_seq, "roll")
        if i is not None:
            entry = ctx.tx.roll(i)
            entry.changes = [*entry.changes, change]
    return change


@handler("wound.remove")
def _wound_remove(ctx: Ctx, p: dict[str, Any]) -> str:
    """The GM takes a wound off (healing, story): no cost."""
    ctx.fields(p, ("id", "wound"))
    c = ctx.char(p["id"])
    k = _wound_index(ctx, c, p["wound"])
    w = c.wounds[k]
    before = c.status
    live = ctx.tx.char(c.id)
    live.wounds = live.wounds[:k] + live.wounds[k + 1 :]
    after = live.status
    ctx.changes.append(f"{c.name}: {w.text} removed" + (f" ({status_word(after)})" if after != before else ""))
    return f"{c.name}: {w.text} removed"


@handler("note")
def _note(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("text",))
    text = ctx.text(p["text"], "text", MAX_TEXT, multiline=True)
    rnd, turn = ctx.roll_position()
    ctx.tx.add_note(Note(ctx.seq, text, rnd, turn, ctx.time))
    first = text.splitlines()[0]
    more = "…" if len(first) > 80 or "\n" in text else ""
    return f"Note: {first[:80]}{more}"
