"""Several characters at once: ``characters.add`` adds a group (numbered copies of a
bestiary stat block), each with its sources and conditions, and joins each to the
encounter at its initiative (a rolled one logged with its dice), as one event: one
undo takes the whole group back out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmdesk.core.session.events.characters import _character_add, _condition_add, _source_add
from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.encounter import _encounter_add
from gmdesk.core.session.events.grouping import group_label_refusal
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.events.ties import settle_ties

#: most characters one ``characters.add`` adds
MAX_GROUP = 100


@handler("characters.add")
def _characters_add(ctx: Ctx, p: dict[str, Any]) -> str:
    """``entries``: ``[{character, sources?, conditions?, initiative?, record?}]``:
    ``character`` as ``character.add``'s, ``sources`` ``[{kind, name, value, rounds?,
    active?}]``, ``conditions`` ``[{name, rounds?}]``; with ``initiative`` (and the
    ``record`` of the roll that gave it) the character joins the encounter.
    ``source``: where the group comes from (the bestiary's stat block name), for
    the log. gmdesk fills in ``ids``, the new characters' ids in order. ``ties``: how
    the session settled the ties their initiatives make (:mod:`.ties`). ``group``:
    a label: the characters form that initiative group (:mod:`.grouping`), one
    initiative for all (the roll of the member with the lowest modifier)."""
    ctx.fields(p, ("entries",), ("source", "ids", "ties", "group"))
    entries = p["entries"]
    if not isinstance(entries, list) or not entries:
        raise ctx.fail("entries: must be a non-empty list of {character, …}")
    if len(entries) > MAX_GROUP:
        raise ctx.fail(f"entries: at most {MAX_GROUP} characters at once (got {len(entries)})")
    source = ctx.text(p["source"], "source") if p.get("source") is not None else None
    label = None
    if p.get("group") is not None:
        label = ctx.text(p["group"], "group")
        refusal = group_label_refusal(ctx, label)
        if refusal is None and ctx.state.group_label(label) is not None:
            refusal = f"{label!r} is already a group here; choose another label"
        if refusal is not None:
            raise ctx.fail(f"group: {refusal}")
        if len(entries) < 2:
            raise ctx.fail("group: a group needs two characters or more")
        joins = {e.get("initiative") for e in entries if isinstance(e, Mapping) and e.get("initiative") is not None}
        if len(joins) > 1:
            raise ctx.fail("group: a group joins at one initiative")
    ids: list[str] = []
    names: list[str] = []
    for k, e in enumerate(entries):
        if not isinstance(e, Mapping):
            raise ctx.fail(f"entries[{k}]: must be an object with character")
        ctx.fields(e, ("character",), ("sources", "conditions", "initiative", "record"))
        _character_add(ctx, {"character": e["character"]})
        cid = ctx.extra.pop("id")
        if label is not None:
            ctx.tx.char(cid).group = label
        ids.append(cid)
        names.append(ctx.state.characters[cid].name)
        for s in e.get("sources") or ():
            if not isinstance(s, Mapping):
                raise ctx.fail(f"entries[{k}].sources: each must be an object with kind, name, value")
            _source_add(ctx, {"id": cid, **s})
        for c in e.get("conditions") or ():
            if not isinstance(c, Mapping):
                raise ctx.fail(f"entries[{k}].conditions: each must be an object with name")
            _condition_add(ctx, {"id": cid, **c})
        if e.get("initiative") is not None or e.get("record") is not None:
            join: dict[str, Any] = {"id": cid}
            for key in ("initiative", "record"):
                if e.get(key) is not None:
                    join[key] = e[key]
            _encounter_add(ctx, join)
    settle_ties(ctx, p.get("ties"))
    ctx.extra["ids"] = ids
    joined = any(ctx.state.encounter.index_of(cid) is not None for cid in ids)
    where = " the encounter" if joined else ""
    what = f" from the bestiary ({source})" if source else ""
    hidden = ", hidden from the players" if all(ctx.state.characters[cid].hidden for cid in ids) else ""
    group = f" as one group, {ctx.state.group_title(label)}" if label is not None else ""
    return f"{', '.join(names)} join{'s' if len(names) == 1 else ''}{where}{what}{group}{hidden}"
