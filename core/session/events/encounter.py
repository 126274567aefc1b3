"""Handlers of the encounter and its turns: the initiative order, turns and rounds
(durations tick when a turn ends), and the new day."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.session.events.context import MAX_INITIATIVE, Ctx
from gmdesk.core.session.events.counters import reset_counters
from gmdesk.core.session.events.grouping import gather
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.events.sheets import sheet_changes, sheet_new_day, sheet_set_current, sheet_vitality
from gmdesk.core.session.events.text import num, status_word
from gmdesk.core.session.events.ties import settle_ties
from gmdesk.core.session.model import Character, Combatant, Condition, Encounter, RollEntry, Source, State
from gmdesk.core.systems.harm import harm_of


def _insert_position(order: list[Combatant], initiative: int) -> int:
    """After every combatant whose initiative is at least this one (ties: earlier first)."""
    i = 0
    for k, c in enumerate(order):
        if c.initiative >= initiative:
            i = k + 1
    return i


@handler("encounter.add")
def _encounter_add(ctx: Ctx, p: dict[str, Any]) -> str:
    """A character joins the order at ``initiative`` (after everyone at least as high).
    With ``record`` (the initiative roll that gave the number) the roll is logged,
    dice and all, as an initiative roll — as ``initiative.set`` logs its rolls. A
    character whose initiative is pinned joins at its pin (a number given moves
    the pin there; a roll is refused). ``ties``: how the session settled a tie it
    makes (:mod:`.ties`)."""
    ctx.fields(p, ("id",), ("initiative", "record", "ties"))
    c = ctx.char(p["id"])
    record = ctx.record(p["record"]) if p.get("record") is not None else None
    if record is not None and c.pin is not None and ctx.strict:
        raise ctx.fail(pinned_refusal(c.name, ctx.initiative(c.pin)))
    default = record.value if record is not None else c.pin if c.pin is not None else 0
    ini = ctx.integer(p.get("initiative", default), "initiative", -MAX_INITIATIVE, MAX_INITIATIVE)
    seated = group_initiative(ctx, c)
    if seated is not None and ini != seated and ctx.strict:
        at = ctx.initiative(seated)
        raise ctx.fail(f"{c.name} is in the group {c.group}: it joins at the group's initiative {at}")
    if ctx.state.encounter.index_of(c.id) is not None:
        raise ctx.fail(f"{c.name} is already in the encounter")
    enc = ctx.tx.encounter()
    i = _insert_position(enc.order, ini)
    enc.order.insert(i, Combatant(c.id, ini))
    if enc.round > 0 and i <= enc.turn and len(enc.order) > 1:
        enc.turn += 1
    if c.pin is not None and c.pin != ini:
        ctx.tx.char(c.id).pin = ini
    if record is not None:
        group = f" for the group {c.group} (rolled with the group's lowest modifier)" if c.group else ""
        change = f"{c.name}: initiative {ctx.initiative(ini)}{group}"
        ctx.changes.append(change)
        rnd, turn = ctx.roll_position()
        ctx.tx.add_roll(
            RollEntry(ctx.seq, record, c.id, None, rnd, turn, [change], kind="initiative", actor_name=c.name)
        )
    gather(ctx)
    settle_ties(ctx, p.get("ties"))
    pinned = " (pinned)" if c.pin is not None else ""
    return f"{c.name} joins the encounter (initiative {ctx.initiative(ini)}{pinned})"


def group_initiative(ctx: Ctx, c: Character) -> int | None:
    """The initiative of ``c``'s group in the order (another member seated), or None."""
    if c.group is None:
        return None
    enc = ctx.state.encounter
    for m in ctx.state.group_members(c.group):
        i = enc.index_of(m.id)
        if m.id != c.id and i is not None:
            return enc.order[i].initiative
    return None


def group_followers(
    ctx: Ctx, parsed: list[tuple[Character, int | None]], what: str = "entries"
) -> list[tuple[Character, Character]]:
    """The other members of the groups of the ``parsed`` entries (leader, follower):
    a group rolls once, its members take the number (those in the order, and those
    able to act when the group gets a number). Two entries of one group are refused."""
    out: list[tuple[Character, Character]] = []
    seen: dict[str, Character] = {}
    enc = ctx.state.encounter
    for c, v in parsed:
        if c.group is None:
            continue
        other = seen.get(c.group)
        if other is not None:
            if ctx.strict:
                raise ctx.fail(f"{what}: {other.name} and {c.name} are one group ({c.group}): it has one initiative")
            continue
        seen[c.group] = c
        for m in ctx.state.group_members(c.group):
            if m.id != c.id and (enc.index_of(m.id) is not None or (v is not None and m.can_act)):
                out.append((c, m))
    return out


def pinned_refusal(name: str, pin: str) -> str:
    """Why a pinned entry is not rolled (in the GM's words; ``pin``: its initiative
    as the system words it)."""
    return f"{name}'s initiative is pinned at {pin}: unpin it to roll it"


def encounter_drop(ctx: Ctx, cid: str) -> None:
    enc = ctx.tx.encounter()
    i = enc.index_of(cid)
    if i is None:  # not in the encounter: nothing to drop
        return
    del enc.order[i]
    if i < enc.turn:
        enc.turn -= 1
    if enc.turn >= len(enc.order):
        enc.turn = 0
        if enc.order and enc.round > 0:
            enc.round += 1


@handler("encounter.remove")
def _encounter_remove(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id",), ("initiative",))
    c = ctx.char(p["id"])
    if ctx.state.encounter.index_of(c.id) is None:
        raise ctx.fail(f"{c.name} is not in the encounter")
    encounter_drop(ctx, c.id)
    return f"{c.name} leaves the encounter"


def _move(enc: Encounter, i: int, j: int) -> None:
    """Move order[i] to index j, keeping whoever is acting the one acting."""
    current = enc.order[enc.turn].char_id if enc.order and enc.turn < len(enc.order) else None
    item = enc.order.pop(i)
    enc.order.insert(j, item)
    at = enc.index_of(current) if current is not None else None
    if at is not None:  # whoever was acting is still in the order
        enc.turn = at


@handler("encounter.move")
def _encounter_move(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "index"))
    c = ctx.char(p["id"])
    i = ctx.state.encounter.index_of(c.id)
    if i is None:
        raise ctx.fail(f"{c.name} is not in the encounter")
    j = ctx.integer(p["index"], "index", 0, len(ctx.state.encounter.order) - 1)
    a, b = ctx.state.unit(i)
    if c.group is not None or any(ctx.state.group_at(k) for k in range(len(ctx.state.encounter.order))):
        # a group moves whole, and nobody moves into a group
        return _move_group(ctx, a, b, j, c.name if c.group is None else ctx.state.group_title(c.group))
    enc = ctx.tx.encounter()
    _move(enc, i, j)
    return f"{c.name} moves to place {j + 1} in the order"


def _move_group(ctx: Ctx, a: int, b: int, j: int, name: str) -> str:
    """Move the turn at order[a:b] (a group, or one entry) to start at index ``j`` of
    the order without it (moved on to the nearest place that splits no group)."""
    st = ctx.state
    enc = ctx.tx.encounter()
    current = enc.order[enc.turn].char_id if enc.order and enc.turn < len(enc.order) else None
    block = enc.order[a:b]
    rest = enc.order[:a] + enc.order[b:]
    j = max(0, min(j, len(rest)))

    def group_of(x: Combatant) -> str | None:
        c = st.characters.get(x.char_id)
        return c.group if c is not None else None

    while 0 < j < len(rest) and group_of(rest[j - 1]) is not None and group_of(rest[j - 1]) == group_of(rest[j]):
        j = j - 1 if j <= a else j + 1
    enc.order[:] = rest[:j] + block + rest[j:]
    at = enc.index_of(current) if current is not None else None
    if at is not None:
        enc.turn = at
    place = next(n for n, (x, y) in enumerate(st.units()) if x <= j < y) + 1
    return f"{name} moves to place {place} in the order"


@handler("encounter.delay")
def _encounter_delay(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id",))
    c = ctx.char(p["id"])
    enc0 = ctx.state.encounter
    i = enc0.index_of(c.id)
    if i is None:
        raise ctx.fail(f"{c.name} is not in the encounter")
    a, b = ctx.state.unit(i)
    if b >= len(enc0.order):
        raise ctx.fail(f"{c.name} is last in the order; there is nobody to wait for this round")
    if b - a > 1 or ctx.state.unit(b)[1] - b > 1:  # a group, or waiting for one
        return _delay_group(ctx, a, b, c.name if c.group is None else ctx.state.group_title(c.group))
    enc = ctx.tx.encounter()
    acting = enc.round > 0 and enc.turn == i
    item = enc.order.pop(i)
    enc.order.insert(i + 1, item)
    if not acting and enc.round > 0 and enc.turn == i + 1:
        enc.turn = i  # the one who was acting moved up one place
    # when the delayer was acting, index i now holds the next combatant: their turn now
    nxt = ctx.state.characters[enc.order[i].char_id].name
    return f"{c.name} delays until after {nxt}"


def _delay_group(ctx: Ctx, a: int, b: int, title: str) -> str:
    """The turn at order[a:b] (a group, or one entry) waits until after the next turn
    (an entry or a group)."""
    st = ctx.state
    nb = st.unit(b)[1]
    nxt = st.characters[st.encounter.order[b].char_id]
    nxt_name = st.group_title(nxt.group) if nxt.group is not None else nxt.name
    enc = ctx.tx.encounter()
    acting = enc.round > 0 and a <= enc.turn < b
    was = enc.turn
    enc.order[a:nb] = enc.order[b:nb] + enc.order[a:b]
    if acting:
        enc.turn = a  # the next one acts now
    elif enc.round > 0 and b <= was < nb:
        enc.turn = was - (b - a)
    return f"{title} delays until after {nxt_name}"


@handler("encounter.end")
def _encounter_end(ctx: Ctx, p: dict[str, Any]) -> str:
    """The fight is over: the order empties and the round count goes back to 0
    (durations in rounds stay as they are)."""
    ctx.fields(p)
    enc0 = ctx.state.encounter
    if not enc0.order and enc0.round == 0:
        raise ctx.fail("there is no encounter to end")
    rounds = enc0.round
    enc = ctx.tx.encounter()
    enc.order[:] = []
    enc.round = 0
    enc.turn = 0
    return f"The encounter ends after round {rounds}" if rounds else "The encounter ends"


@handler("initiative.set")
def _initiative_set(ctx: Ctx, p: dict[str, Any]) -> str:
    """``entries``: ``[{id, value?, record?, pin?}]``: each character's initiative (a
    ``record``: the roll that gave it, logged); those not in the encounter join it.
    ``pin`` true pins the entry at its value (at the value it has, when none is
    given), false releases it; a value given for a pinned entry moves its pin. A
    pinned entry is never rolled. ``ties``: how the session settled the ties the
    event makes (:mod:`.ties`)."""
    ctx.fields(p, ("entries",), ("ties",))
    entries = p["entries"]
    if not isinstance(entries, list) or not entries:
        raise ctx.fail("entries: must be a non-empty list of {id, value, record?, pin?}")
    seen: set[str] = set()
    parsed: list[tuple[Character, int | None, RollRecord | None, bool | None]] = []
    for k, e in enumerate(entries):
        if not isinstance(e, Mapping):
            raise ctx.fail(f"entries[{k}]: must be an object with id and value")
        for key in e:
            if key not in ("id", "value", "record", "pin"):
                raise ctx.fail(f"entries[{k}]: unknown field {key!r} (allowed: id, pin, record, value)")
        if "id" not in e or ("value" not in e and "pin" not in e):
            raise ctx.fail(f"entries[{k}]: needs id and value")
        c = ctx.char(e["id"], f"entries[{k}].id")
        if c.id in seen:
            raise ctx.fail(f"{c.name} appears twice in entries")
        seen.add(c.id)
        pin = ctx.boolean(e["pin"], f"entries[{k}].pin") if "pin" in e else None
        value = (
            ctx.integer(e["value"], f"entries[{k}].value", -MAX_INITIATIVE, MAX_INITIATIVE) if "value" in e else None
        )
        record = ctx.record(e["record"], f"entries[{k}].record") if e.get("record") is not None else None
        if record is not None and value is None:
            raise ctx.fail(f"entries[{k}]: a roll needs its value")
        if ctx.strict:
            _check_pin(ctx, c, value, record, pin)
        parsed.append((c, value, record, pin))
    followers = group_followers(ctx, [(c, v) for c, v, _, _ in parsed])
    enc = ctx.tx.encounter()
    current = enc.order[enc.turn].char_id if enc.round > 0 and enc.order else None
    values = {c.id: v for c, v, _, _ in parsed if v is not None}
    values.update({m.id: values[c.id] for c, m in followers if c.id in values})
    order = [Combatant(x.char_id, values.get(x.char_id, x.initiative)) for x in enc.order]
    present = {x.char_id for x in order}
    order += [Combatant(c.id, v) for c, v, _, _ in parsed if v is not None and c.id not in present]
    order += [Combatant(m.id, values[m.id]) for _, m in followers if m.id in values and m.id not in present]
    order.sort(key=lambda x: -x.initiative)  # stable: ties keep their earlier place
    enc.order[:] = order
    at = enc.index_of(current) if current is not None else None
    if at is not None:  # whoever was acting is still in the order
        enc.turn = at
    gather(ctx)
    rnd, turn = ctx.roll_position()
    names = []
    for c, v, record, pin in parsed:
        i = enc.index_of(c.id)
        now = enc.order[i].initiative if i is not None else None
        new_pin = c.pin
        if pin is not None:
            new_pin = now if pin else None
        elif c.pin is not None and v is not None:
            new_pin = v  # a value set for a pinned entry moves its pin
        if new_pin != c.pin:
            ctx.tx.char(c.id).pin = new_pin
        for lead, m in followers:
            if lead.id == c.id and m.pin != new_pin:
                ctx.tx.char(m.id).pin = new_pin
        who = c.name if c.group is None else ctx.state.group_title(c.group)
        whose = f" (rolled with {c.name}'s modifier, the group's lowest)" if c.group and record is not None else ""
        if v is not None:
            mark = " (pinned)" if new_pin is not None else " (no longer pinned)" if c.pin is not None else ""
            change = f"{who}: initiative {ctx.initiative(v)}{mark}{whose}"
            names.append(f"{who} {ctx.initiative(v)}{mark}")
        elif new_pin is not None:
            change = f"{who}: initiative pinned at {ctx.initiative(new_pin)}"
            names.append(f"{who} pinned at {ctx.initiative(new_pin)}")
        else:
            shown = f" (it keeps {ctx.initiative(now)} until initiative is rolled again)" if now is not None else ""
            change = f"{who}: initiative no longer pinned{shown}"
            names.append(f"{who} no longer pinned")
        ctx.changes.append(change)
        if record is not None:
            ctx.tx.add_roll(
                RollEntry(ctx.seq, record, c.id, None, rnd, turn, [change], kind="initiative", actor_name=c.name)
            )
    settle_ties(ctx, p.get("ties"))
    return f"Initiative: {', '.join(names)}"


def _check_pin(ctx: Ctx, c: Character, value: int | None, record: RollRecord | None, pin: bool | None) -> None:
    """What play allows of a pin: a pinned entry is not rolled (unless released in the
    same entry); a pin with no value needs the entry in the order; a pin or a
    release that changes nothing is refused."""
    if record is not None and c.pin is not None and pin is not False:
        raise ctx.fail(pinned_refusal(c.name, ctx.initiative(c.pin)))
    if value is not None:
        return
    i = ctx.state.encounter.index_of(c.id)
    if pin and i is None:
        raise ctx.fail(f"{c.name} is not in the encounter: give the initiative to pin it at")
    if pin and c.pin is not None:
        raise ctx.fail(f"{c.name}'s initiative is already pinned at {ctx.initiative(c.pin)}")
    if pin is False and c.pin is None:
        raise ctx.fail(f"{c.name}'s initiative is not pinned")


def _tick(ctx: Ctx, cid: str) -> None:
    """The end of ``cid``'s turn: every duration it carries loses a round; at 0 it ends."""
    c = ctx.state.characters.get(cid)
    if c is None:
        return
    durations: tuple[Source | Condition, ...] = (*c.advantage, *c.shifts, *c.conditions)
    timed = any(x.rounds is not None for x in durations)
    if not timed:
        return
    live = ctx.tx.char(cid)

    def tick_sources(lst: list[Source], kind: str) -> list[Source]:
        out = []
        for s in lst:
            if s.rounds is None:
                out.append(s)
            elif s.rounds > 1:
                out.append(Source(s.name, s.value, s.rounds - 1, s.active))
            else:
                ctx.changes.append(f"{live.name}: {kind} {s.name} ends")
        return out

    live.advantage = tick_sources(live.advantage, "advantage")
    live.shifts = tick_sources(live.shifts, "shift")
    conds = []
    for cond in live.conditions:
        if cond.rounds is None:
            conds.append(cond)
        elif cond.rounds > 1:
            conds.append(Condition(cond.name, cond.rounds - 1, cond.roll_seq))
        else:
            ctx.changes.append(f"{live.name}: {cond.name} ends")
    live.conditions = conds


def _acting_name(ctx: Ctx) -> str:
    enc = ctx.state.encounter
    cur = enc.current
    if cur is None:
        return "nobody"
    c = ctx.state.characters.get(cur.char_id)
    if c is not None and c.group is not None:
        return ctx.state.group_title(c.group)
    return c.name if c else cur.char_id


def _out(ctx: Ctx, cid: str) -> bool:
    """Takes no turn: Unconscious or Dead (a character no longer in the session too)."""
    c = ctx.state.characters.get(cid)
    return c is None or not c.can_act


def _skip_out(ctx: Ctx, new_round: Callable[[], None]) -> list[str]:
    """Move the turn forward past those who cannot act (unless no combatant can);
    the names passed over, for the summary. A turn passed over still passes: the
    conditions waiting for its start or its end end. ``new_round`` is called when
    passing over the last of the order begins a new round."""
    enc = ctx.state.encounter
    if all(_out(ctx, x.char_id) for x in enc.order):
        return []
    passed = []
    while _out(ctx, enc.order[enc.turn].char_id):
        cid = enc.order[enc.turn].char_id
        passed.append(_skipped_name(ctx, cid))
        end_waiting_on(ctx, cid, at="start")
        end_waiting_on(ctx, cid, at="end")
        enc.turn += 1
        if enc.turn >= len(enc.order):
            enc.turn = 0
            enc.round += 1
            new_round()
    return passed


def _skipped_name(ctx: Ctx, cid: str) -> str:
    c = ctx.state.characters.get(cid)
    return f"{c.name} ({status_word(c.status)})" if c is not None else cid


def _passed_text(passed: list[str]) -> str:
    return f" (no turn: {', '.join(dict.fromkeys(passed))})" if passed else ""


def _need_combatants(ctx: Ctx) -> None:
    if not ctx.state.encounter.order:
        raise ctx.fail("the encounter has no combatants")


def end_waiting_on(ctx: Ctx, cid: str, reason: str = "", at: str | None = None) -> None:
    """The start or the end (``at``; None: either) of ``cid``'s turn: every condition
    that lasts until it ends, whoever carries it."""

    def waits(x: Condition) -> bool:
        return x.until is not None and x.until[0] == cid and (at is None or x.until[1] == at)

    for c in list(ctx.state.characters.values()):
        if not any(waits(x) for x in c.conditions):
            continue
        live = ctx.tx.char(c.id)
        for x in live.conditions:
            if waits(x):
                ctx.changes.append(f"{live.name}: {x.name} ends" + (f" ({reason})" if reason else ""))
        live.conditions = [x for x in live.conditions if not waits(x)]


class _Reroll:
    """Initiative rolled again when a new round begins (the session setting "Reroll
    initiative every round"): the event carries the rolls (``initiative``: a list of
    {id, value, record}); those who are not in it keep their number. The order is
    sorted again (ties keep their place) and the round starts with its first."""

    def __init__(self, ctx: Ctx, p: dict[str, Any]) -> None:
        self.ctx = ctx
        self.followers: list[tuple[Character, Character]] = []
        self.entries = self._read(p.get("initiative"))
        self.ties = p.get("ties")
        if self.ties is not None and not self.entries:
            raise ctx.fail("ties: only when initiative is rolled again")
        self.done = False

    def _read(self, entries: Any) -> list[tuple[Character, int, RollRecord | None]]:
        ctx = self.ctx
        if entries is None:
            return []
        if not isinstance(entries, list) or not entries:
            raise ctx.fail("initiative: must be a non-empty list of {id, value, record?}")
        seen: set[str] = set()
        out = []
        for k, e in enumerate(entries):
            if not isinstance(e, Mapping) or not {"id", "value"} <= set(e) or set(e) - {"id", "value", "record"}:
                raise ctx.fail(f"initiative[{k}]: must be an object with id, value and record")
            c = ctx.char(e["id"], f"initiative[{k}].id")
            if c.id in seen or ctx.state.encounter.index_of(c.id) is None:
                raise ctx.fail(f"initiative[{k}]: {c.name} is not in the encounter or appears twice")
            if c.pin is not None and ctx.strict:
                raise ctx.fail(pinned_refusal(c.name, ctx.initiative(c.pin)))
            seen.add(c.id)
            value = ctx.integer(e["value"], f"initiative[{k}].value", -MAX_INITIATIVE, MAX_INITIATIVE)
            record = ctx.record(e["record"], f"initiative[{k}].record") if e.get("record") is not None else None
            out.append((c, value, record))
        self.followers = group_followers(ctx, [(c, v) for c, v, _ in out], "initiative")
        return out

    def __call__(self) -> None:
        """A new round has begun: roll the order again (once per event)."""
        if not self.entries or self.done:
            return
        self.done = True
        ctx = self.ctx
        enc = ctx.tx.encounter()
        old = {x.char_id: x.initiative for x in enc.order}
        values = {c.id: v for c, v, _ in self.entries}
        values.update({m.id: values[c.id] for c, m in self.followers})
        enc.order[:] = sorted(
            (Combatant(x.char_id, values.get(x.char_id, x.initiative)) for x in enc.order),
            key=lambda x: -x.initiative,
        )
        enc.turn = 0
        gather(ctx)
        rnd, turn = ctx.roll_position()
        for c, v, record in self.entries:
            who = c.name if c.group is None else ctx.state.group_title(c.group)
            whose = f" (rolled with {c.name}'s modifier, the group's lowest)" if c.group and record is not None else ""
            change = f"{who}: initiative {ctx.initiative(old[c.id])} → {ctx.initiative(v)}{whose}"
            ctx.changes.append(change)
            if record is not None:
                ctx.tx.add_roll(
                    RollEntry(ctx.seq, record, c.id, None, rnd, turn, [change], kind="initiative", actor_name=c.name)
                )
        settle_ties(ctx, self.ties, follow=False)

    def check(self) -> None:
        if self.entries and not self.done:
            raise self.ctx.fail("initiative: rolled again only when a new round begins")

    @property
    def said(self) -> str:
        return "; initiative rolled again" if self.done else ""


def begins_round(state: State, etype: str) -> bool:
    """Whether ``turn.next`` or ``round.new`` applied to ``state`` begins a new round
    (after the first): what the session asks before rolling initiative again."""
    enc = state.encounter
    if not enc.order or enc.round == 0:
        return False
    if etype == "round.new":
        return True

    def out(cid: str) -> bool:
        c = state.characters.get(cid)
        return c is None or not c.can_act

    rest = enc.order[state.unit(enc.turn)[1] :]
    if not rest:
        return True
    return all(out(x.char_id) for x in rest) and not all(out(x.char_id) for x in enc.order)


def _begin_turn(ctx: Ctx, reroll: _Reroll, round_before: int) -> list[str]:
    """The turn lands on the next who can act (passing over the others): its start.
    A round begun since ``round_before`` fills up everyone's counters that reset each
    round; the turn's start fills up its owner's that reset each turn."""
    passed = _skip_out(ctx, reroll)
    reroll.check()
    enc = ctx.state.encounter
    if enc.round != round_before:
        reset_counters(ctx, [x.char_id for x in enc.order], "round")
    cur = enc.current
    if cur is not None:
        end_waiting_on(ctx, cur.char_id, at="start")
        reset_counters(ctx, [cur.char_id], "turn")
        # a group's turn is its members': those after the one who acts first start
        # theirs too (their counters that reset each turn fill up), and those who
        # cannot act are passed over
        if ctx.state.group_at(enc.turn) is not None and not _out(ctx, cur.char_id):
            for x in enc.order[enc.turn + 1 : ctx.state.unit(enc.turn)[1]]:
                if _out(ctx, x.char_id):
                    passed.append(_skipped_name(ctx, x.char_id))
                    end_waiting_on(ctx, x.char_id, at="end")
                else:
                    reset_counters(ctx, [x.char_id], "turn")
                end_waiting_on(ctx, x.char_id, at="start")
    return passed


@handler("turn.next")
def _turn_next(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, (), ("initiative", "ties"))
    _need_combatants(ctx)
    reroll = _Reroll(ctx, p)
    enc = ctx.tx.encounter()
    round_before = enc.round
    if enc.round == 0:
        enc.round, enc.turn = 1, 0
    else:
        stop = ctx.state.unit(enc.turn)[1]
        for k, x in enumerate(list(enc.order[enc.turn : stop])):
            if k == 0 or not _out(ctx, x.char_id):  # a group's turn ends for all its members
                _tick(ctx, x.char_id)
                end_waiting_on(ctx, x.char_id, at="end")
        enc.turn = stop
        if enc.turn >= len(enc.order):
            enc.round += 1
            enc.turn = 0
            reroll()
    passed = _begin_turn(ctx, reroll, round_before)
    return f"Round {enc.round}{reroll.said}: {_acting_name(ctx)}'s turn{_passed_text(passed)}"


@handler("turn.prev")
def _turn_prev(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p)
    _need_combatants(ctx)
    enc0 = ctx.state.encounter
    if enc0.round == 0:
        raise ctx.fail("the encounter has not started")
    rnd = enc0.round
    units = ctx.state.units()
    k = next(n for n, (a, b) in enumerate(units) if a <= enc0.turn < b)
    everyone_out = all(_out(ctx, x.char_id) for x in enc0.order)
    while True:  # back one turn (an entry or a group), over those who cannot act
        k -= 1
        if k < 0:
            rnd -= 1
            k = len(units) - 1
        if rnd < 1:
            raise ctx.fail("already at the first turn of round 1")
        a, b = units[k]
        able = [i for i in range(a, b) if not _out(ctx, enc0.order[i].char_id)]
        if everyone_out or able:
            turn = able[0] if able else a
            break
    enc = ctx.tx.encounter()
    enc.round, enc.turn = rnd, turn
    return f"Back to round {enc.round}: {_acting_name(ctx)}'s turn"


@handler("round.new")
def _round_new(ctx: Ctx, p: dict[str, Any]) -> str:
    """Straight to the next round: the turns not yet taken this round pass (their
    durations tick, the conditions waiting for them end)."""
    ctx.fields(p, (), ("initiative", "ties"))
    _need_combatants(ctx)
    reroll = _Reroll(ctx, p)
    enc = ctx.tx.encounter()
    round_before = enc.round
    if enc.round == 0:
        enc.round, enc.turn = 1, 0
    else:
        for k, x in enumerate(list(enc.order[enc.turn :])):
            if not _out(ctx, x.char_id):
                _tick(ctx, x.char_id)
            if k > 0:
                end_waiting_on(ctx, x.char_id, at="start")
            end_waiting_on(ctx, x.char_id, at="end")
        enc.round += 1
        enc.turn = 0
        reroll()
    passed = _begin_turn(ctx, reroll, round_before)
    return f"Round {enc.round} begins{reroll.said}: {_acting_name(ctx)}'s turn{_passed_text(passed)}"


@handler("day.new")
def _day_new(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p)
    for c in list(ctx.state.characters.values()):
        if c.status == "dead":
            continue
        if c.vitality_current != c.vitality_default:
            ctx.changes.append(f"{c.name}: Vitality {num(c.vitality_current)} → {num(c.vitality_default)}")
        live = ctx.tx.char(c.id)
        if live.sheet is not None:
            sheet = live.sheet
            live.sheet = sheet_new_day(sheet)
            ctx.changes.extend(sheet_changes(c.name, sheet, live.sheet))
        live.vitality_current = live.vitality_default
        if live.sheet is not None and sheet_vitality(live.sheet) is not None:
            live.sheet = sheet_set_current(live.sheet, "Vitality", live.vitality_default)
        # the wounds that took Vitality go with it (their system's Vitality is hurt by amounts)
        kept = [w for w in live.wounds if w.amount is None or not harm_of(w.system).vitality.hurt_by_amount]
        if len(kept) != len(live.wounds):
            live.wounds = kept
    return "A new day: Current Values return to their Defaults"
