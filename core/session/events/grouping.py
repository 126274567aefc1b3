"""Initiative groups: characters that roll once and take one turn ("Gospog ×3").

A group is a label on its members (:attr:`Character.group`), so that each member
keeps its own Vitality, wounds and conditions, and the label travels with them to
the next night. In the order a group's members in the encounter sit next to each
other at one initiative (:func:`gather` keeps them so after every change); the
order's turn is a run of them (:meth:`State.unit`).

* ``group.set`` {label, ids}: the characters form the group ``label``, or join it
  when it exists. A label is never a character's name (nor one a character could
  be mistaken for). The group takes the place of its member that comes first in
  the order (its initiative and its pin); members not yet in the encounter who can
  act join it there. A group another member leaves with one member left dissolves.
* ``group.remove`` {label, ids?}: the group splits (``ids``: only those members
  leave it; with fewer than two left it splits); each member keeps its place.

Both are undone as any event. Rolling initiative for a member rolls for the group
(one roll, with the lowest modifier: the session picks that member,
``core.session.moves``); setting a member's initiative or pin sets the group's.
"""

from __future__ import annotations

from typing import Any

from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.model import Character, Combatant
from gmdesk.core.session.model.state import id_shape_refusal


def gather(ctx: Ctx) -> None:
    """Seat every group's members of the order next to each other at the initiative
    of the first of them (whoever is acting stays the one acting)."""
    st = ctx.state
    order = st.encounter.order
    groups = {x.char_id: st.characters[x.char_id].group for x in order if x.char_id in st.characters}
    if not any(groups.values()):
        return
    out: list[Combatant] = []
    done: set[str] = set()
    for x in order:
        g = groups.get(x.char_id)
        if g is None:
            out.append(x)
        elif g not in done:
            done.add(g)
            out += [Combatant(y.char_id, x.initiative) for y in order if groups.get(y.char_id) == g]
    if out == order:
        return
    enc = ctx.tx.encounter()
    current = enc.order[enc.turn].char_id if enc.round > 0 and 0 <= enc.turn < len(enc.order) else None
    enc.order[:] = out
    at = enc.index_of(current) if current is not None else None
    if at is not None:
        enc.turn = at


def group_label_refusal(ctx: Ctx, label: str) -> str | None:
    """Why ``label`` cannot be a group's label (a character's name, an id's shape), or None."""
    clash = ctx.state.name_clash(label)
    if clash is not None:
        return f"{clash.name!r} is a character's name here; a group's label must be another"
    return id_shape_refusal(label)


def _members(ctx: Ctx, ids: Any, what: str = "ids") -> list[Character]:
    if not isinstance(ids, list) or not ids:
        raise ctx.fail(f"{what}: must be a non-empty list of character ids")
    out: list[Character] = []
    for k, cid in enumerate(ids):
        c = ctx.char(cid, f"{what}[{k}]")
        if any(x.id == c.id for x in out):
            raise ctx.fail(f"{c.name} is named twice")
        out.append(c)
    return out


def _dissolve_if_alone(ctx: Ctx, label: str) -> None:
    rest = ctx.state.group_members(label)
    if len(rest) == 1:
        ctx.tx.char(rest[0].id).group = None
        ctx.changes.append(f"{rest[0].name} acts on its own again (the last of {label})")


@handler("group.set")
def _group_set(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("label", "ids"))
    text = ctx.text(p["label"], "label")
    refusal = group_label_refusal(ctx, text)
    if refusal is not None:
        raise ctx.fail(f"label: {refusal}")
    chars = _members(ctx, p["ids"])
    label = ctx.state.group_label(text) or text
    before = ctx.state.group_members(label)
    new = [c for c in chars if c.group != label]
    if not new:
        raise ctx.fail(f"{', '.join(c.name for c in chars)}: already in {label}")
    if len(before) + len(new) < 2:
        raise ctx.fail("ids: a group needs two characters or more")
    left = {c.group for c in new if c.group is not None}
    for c in new:
        ctx.tx.char(c.id).group = label
        ctx.changes.append(f"{c.name} joins the group {label}")
    for g in left:
        _dissolve_if_alone(ctx, g)
    members = ctx.state.group_members(label)
    enc0 = ctx.state.encounter
    seated = [c for c in members if enc0.index_of(c.id) is not None]
    where = ""
    if seated:
        lead = seated[0]
        i = enc0.index_of(lead.id)
        assert i is not None
        ini = enc0.order[i].initiative
        enc = ctx.tx.encounter()
        enc.order[:] = [Combatant(x.char_id, ini) if x.char_id in {c.id for c in seated} else x for x in enc.order]
        for c in members:
            if enc.index_of(c.id) is None and c.can_act:
                enc.order.append(Combatant(c.id, ini))
                ctx.changes.append(f"{c.name} joins the encounter with {label}")
            if c.pin != lead.pin and enc.index_of(c.id) is not None:
                ctx.tx.char(c.id).pin = lead.pin
        gather(ctx)
        pinned = " (pinned)" if lead.pin is not None else ""
        where = f", initiative {ctx.initiative(ini)}{pinned} (where {lead.name} stood)"
    return f"{ctx.state.group_title(label)} is one group: {', '.join(c.name for c in members)}{where}"


@handler("group.remove")
def _group_remove(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("label",), ("ids",))
    text = ctx.text(p["label"], "label")
    label = ctx.state.group_label(text)
    if label is None:
        raise ctx.fail(f"label: there is no group {text!r}")
    members = ctx.state.group_members(label)
    leaving = members
    if p.get("ids") is not None:
        leaving = _members(ctx, p["ids"])
        for c in leaving:
            if c.group != label:
                raise ctx.fail(f"{c.name} is not in the group {label}")
        if len(members) - len(leaving) < 2:
            leaving = members
    title = ctx.state.group_title(label)
    for c in leaving:
        ctx.tx.char(c.id).group = None
    if len(leaving) < len(members):
        names = ", ".join(c.name for c in leaving)
        return f"{names} leave{'s' if len(leaving) == 1 else ''} the group {label}; each keeps its place"
    return f"The group {title} splits: {', '.join(c.name for c in members)} act on their own, each in its place"
