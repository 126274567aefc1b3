"""Ties in the initiative order, settled as the session decided them.

Equal initiatives keep their order (the earlier entry first, RULES.md) unless the
session's setting "Initiative ties" says otherwise: the higher initiative modifier
first, player characters first, or a roll-off (the tied roll the session's
initiative again, each roll logged, until they are apart). The session decides
(:mod:`core.session.ties`) and the event that placed the combatants carries the
decision as ``ties``: ``[{at, rule, order, rolls?}]``, one per tie it settled —
``at`` the initiative they share, ``order`` their ids first to last, and for a
roll-off ``rolls``, one list of ``{id, record}`` per roll-off. The fold puts them in
that order (checking it is a tie, and for a roll-off that the order is what the
dice said) and logs every roll-off roll as an initiative roll. An event without
``ties`` (every save written before them) keeps the order as it always did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.session.events.context import MAX_INITIATIVE, Ctx
from gmdesk.core.session.events.text import num
from gmdesk.core.session.model import RollEntry
from gmdesk.core.systems.setting import INITIATIVE_TIES

#: who goes first on equal initiatives, as the setting reads it (the first is RULES.md's)
TIE_RULES = INITIATIVE_TIES

KEEP_ORDER, HIGHER_MODIFIER, PCS_FIRST, ROLL_OFF = TIE_RULES
#: roll-offs a tie gets before those still tied keep their order
MAX_ROLLOFFS = 10


def _rolls(ctx: Ctx, value: Any, ids: list[str], what: str) -> list[list[tuple[str, RollRecord]]]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_ROLLOFFS:
        raise ctx.fail(f"{what}: must be a list of at most {MAX_ROLLOFFS} roll-offs")
    out = []
    for r, rolled in enumerate(value):
        if not isinstance(rolled, list) or len(rolled) < 2:
            raise ctx.fail(f"{what}[{r}]: a roll-off is a list of at least two {{id, record}}")
        got = []
        for e in rolled:
            if not isinstance(e, Mapping) or set(e) != {"id", "record"} or e["id"] not in ids:
                raise ctx.fail(f"{what}[{r}]: each roll is {{id, record}} of one of the tied")
            got.append((str(e["id"]), ctx.record(e["record"], f"{what}[{r}].record")))
        if len({cid for cid, _ in got}) != len(got):
            raise ctx.fail(f"{what}[{r}]: one roll each")
        out.append(got)
    return out


def _unit_name(ctx: Ctx, cid: str) -> str:
    """A combatant's name in a tie: its group's row ("Gospog ×3") for a member."""
    c = ctx.state.characters.get(cid)
    if c is not None and c.group is not None:
        return ctx.state.group_title(c.group)
    return ctx.name_of(cid) or cid


def settle_ties(ctx: Ctx, ties: Any, follow: bool = True) -> None:
    """Put each tie ``ties`` settles in its order (see the module docstring); with
    ``follow``, whoever is acting stays the one acting."""
    if ties is None:
        return
    if not isinstance(ties, list) or not ties:
        raise ctx.fail("ties: must be a non-empty list of {at, rule, order, rolls?}")
    enc = ctx.tx.encounter()
    current = enc.order[enc.turn].char_id if enc.round > 0 and 0 <= enc.turn < len(enc.order) else None
    for k, run in enumerate(ties):
        what = f"ties[{k}]"
        if not isinstance(run, Mapping):
            raise ctx.fail(f"{what}: must be an object with at, rule and order")
        ctx.fields(run, ("at", "rule", "order"), ("rolls",))
        at = ctx.integer(run["at"], f"{what}.at", -MAX_INITIATIVE, MAX_INITIATIVE)
        rule = ctx.choice(run["rule"], f"{what}.rule", TIE_RULES[1:])
        ids = run["order"]
        if not isinstance(ids, list) or len(ids) < 2 or len(set(map(str, ids))) != len(ids):
            raise ctx.fail(f"{what}.order: must list two or more combatants, each once")
        places: list[int] = []
        blocks: dict[str, list[str]] = {}
        for cid in ids:
            i = enc.index_of(cid) if isinstance(cid, str) else None
            if i is None or enc.order[i].initiative != at:
                raise ctx.fail(f"{what}.order: {cid!r} is not in the encounter at initiative {at}")
            a, b = ctx.state.unit(i)  # a group ties as one: its members move together
            if any(k in places for k in range(a, b)):
                raise ctx.fail(f"{what}.order: {cid!r} is one group with another listed")
            places += range(a, b)
            blocks[cid] = [x.char_id for x in enc.order[a:b]]
        places.sort()
        if places != list(range(places[0], places[0] + len(places))):
            raise ctx.fail(f"{what}.order: the tied are not next to each other in the order")
        rolls = _rolls(ctx, run.get("rolls"), ids, f"{what}.rolls")
        if rule == ROLL_OFF:
            if not rolls:
                raise ctx.fail(f"{what}.rolls: a roll-off needs its rolls")
            said: dict[str, list[int]] = {cid: [] for cid in ids}
            for rolled in rolls:
                for cid, record in rolled:
                    said[cid].append(record.value)
            if any(said[a] < said[b] for a, b in zip(ids, ids[1:], strict=False)):
                raise ctx.fail(f"{what}.order: not the order the roll-off gave")
        elif rolls:
            raise ctx.fail(f"{what}.rolls: only a roll-off rolls")
        entries = {x.char_id: x for x in enc.order[places[0] : places[-1] + 1]}
        enc.order[places[0] : places[-1] + 1] = [entries[m] for cid in ids for m in blocks[cid]]
        names = [_unit_name(ctx, cid) for cid in ids]
        rnd, turn = ctx.roll_position()
        for r, rolled in enumerate(rolls):
            for cid, record in rolled:
                name = _unit_name(ctx, cid)
                again = f" {r + 1}" if len(rolls) > 1 else ""
                change = f"{name}: roll-off{again} for the tie at {ctx.initiative(at)}: {num(record.value)}"
                ctx.changes.append(change)
                ctx.tx.add_roll(
                    RollEntry(ctx.seq, record, cid, None, rnd, turn, [change], kind="initiative", actor_name=name)
                )
        ctx.changes.append(f"Tie at {ctx.initiative(at)} ({rule}): {', '.join(names)}")
    at_now = enc.index_of(current) if current is not None and follow else None
    if at_now is not None:
        enc.turn = at_now
