"""Handler of ``session.carried``: the characters a new session starts with, carried
over from the session before it (``gmdesk new NAME --from LAST``), each as it stood
there (or after the system's rest).

Payload: ``from`` (the name of the session they come from), ``rest`` (whether the
system's recovery was applied), ``characters`` (each as ``Character.to_json``
writes it, without ``id`` and ``status``: a new id is given here, the status is
derived) and ``rest_changes`` (what the rest changed, one line each, for the log);
gmdesk adds ``ids``, the ids the characters were given.
A wound or condition keeps no roll number: the rolls that caused them are in the
other session's log. One event, undone as one: the characters leave again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmdesk.core.session.events.characters import _character_fields, _check_name, _read_fields
from gmdesk.core.session.events.context import MAX_INITIATIVE, MAX_TEXT, Ctx
from gmdesk.core.session.events.counters import MAX_COUNTER, MAX_COUNTERS, reset_counters
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.events.sheets import sheet_parse
from gmdesk.core.session.events.text import initiative_words, num, signed
from gmdesk.core.session.model import (
    COUNTER_RESETS,
    STATUSES,
    TURN_MOMENTS,
    VISIBILITY_LEVELS,
    VISIBILITY_WORDS,
    Character,
    Condition,
    Counter,
    NameOf,
    SetStatus,
    Source,
    Wound,
)

#: what a carried character may say about itself
CARRIED = (
    "name",
    "side",
    "kind",
    "reality_rated",
    "vitality_default",
    "vitality_current",
    "possibilities",
    "advantage",
    "shifts",
    "conditions",
    "wounds",
    "sheet",
    "notes",
    "dead",
    "fields",
    "hidden",
    "status_set",
    "pin",
    "group",
    "counters",
    "visibility",
)


def _items(ctx: Ctx, value: Any, what: str, keys: tuple[str, ...]) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(x, Mapping) for x in value):
        raise ctx.fail(f"{what}: must be a list of objects")
    for x in value:
        for k in x:
            if k not in keys:
                raise ctx.fail(f"{what}: unknown field {k!r} (allowed: {', '.join(keys)})")
    return value


def _opt_int(ctx: Ctx, value: Any, what: str) -> int | None:
    return None if value is None else ctx.integer(value, what)


def _sources(ctx: Ctx, value: Any, kind: str) -> list[Source]:
    out = []
    for x in _items(ctx, value, kind, ("name", "value", "rounds", "active")):
        name = ctx.text(x.get("name"), f"{kind}: name")
        v = ctx.integer(x.get("value"), f"{kind}: value", *((-2, 2) if kind == "advantage" else (1, 9)))
        out.append(Source(name, v, ctx.rounds(x.get("rounds")), ctx.boolean(x.get("active", True), f"{kind}: active")))
    return out


def _until(ctx: Ctx, x: Mapping[str, Any]) -> tuple[str, str] | None:
    """A condition that lasts until a carried character's turn: ``until`` is
    {"name", "at"} (ids are new here); the name is made an id once all are added."""
    u = x.get("until")
    if u is None:
        return None
    if not isinstance(u, Mapping) or set(u) != {"name", "at"}:
        raise ctx.fail('conditions: until: must be {"name": character, "at": "start" or "end"}')
    return ctx.text(u["name"], "conditions: until: name"), ctx.choice(u["at"], "conditions: until: at", TURN_MOMENTS)


def _resolve_until(ctx: Ctx, added: list[Character]) -> None:
    by_name = {c.name.casefold(): c.id for c in added}
    for c in added:
        if not any(x.until is not None for x in c.conditions):
            continue
        out = []
        for x in c.conditions:
            if x.until is not None:
                cid = by_name.get(x.until[0].casefold())
                if cid is None:
                    raise ctx.fail(f"conditions: until: {x.until[0]} is not carried over")
                x = Condition(x.name, x.rounds, x.roll_seq, (cid, x.until[1]))
            out.append(x)
        c.conditions = out


def _character(ctx: Ctx, d: Any) -> Character:
    if not isinstance(d, Mapping):
        raise ctx.fail("characters: each must be an object with name, side, kind, …")
    for k in d:
        if k not in CARRIED:
            raise ctx.fail(f"characters: unknown field {k!r} (allowed: {', '.join(CARRIED)})")
    if "name" not in d:
        raise ctx.fail("characters: missing field 'name'")
    f = _character_fields(ctx, d)
    _check_name(ctx, f["name"])
    if f.get("possibilities") and not f.get("reality_rated"):
        raise ctx.fail(f"{f['name']}: only a reality-rated character has Possibilities")
    conditions = [
        Condition(ctx.text(x.get("name"), "conditions: name"), ctx.rounds(x.get("rounds")), None, _until(ctx, x))
        for x in _items(ctx, d.get("conditions"), "conditions", ("name", "rounds", "roll_seq", "until"))
    ]
    wounds = []
    for x in _items(
        ctx, d.get("wounds"), "wounds", ("text", "roll_seq", "system", "row", "status", "amount", "column")
    ):
        status = x.get("status")
        if status is not None:
            ctx.choice(status, "wounds: status", STATUSES)
        wounds.append(
            Wound(
                ctx.text(x.get("text"), "wounds: text", MAX_TEXT),
                None,
                ctx.text(x.get("system", ""), "wounds: system", empty=True),
                _opt_int(ctx, x.get("row"), "wounds: row"),
                status,
                _opt_int(ctx, x.get("amount"), "wounds: amount"),
                ctx.text(x.get("column", ""), "wounds: column", empty=True),
            )
        )
    sheet = None
    if d.get("sheet") is not None:
        if not isinstance(d["sheet"], str):
            raise ctx.fail("sheet: must be the text of a descriptor sheet")
        sheet = sheet_parse(d["sheet"])
    fields: dict[str, Any] = {}
    if d.get("fields"):
        fields, _ = _read_fields(ctx, {}, d["fields"], "fields")
    cid = f"c{ctx.state.next_id}"
    ctx.state.next_id += 1
    return Character(
        id=cid,
        name=f["name"],
        side=f.get("side", "PC"),
        kind=f.get("kind", "organic"),
        reality_rated=f.get("reality_rated", False),
        vitality_default=f.get("vitality_default", 0),
        vitality_current=f.get("vitality_current", f.get("vitality_default", 0)),
        possibilities=f.get("possibilities", 0),
        advantage=_sources(ctx, d.get("advantage"), "advantage"),
        shifts=_sources(ctx, d.get("shifts"), "shifts"),
        conditions=conditions,
        wounds=wounds,
        sheet=sheet,
        notes=f.get("notes", ""),
        dead=f.get("dead", False),
        fields=fields,
        hidden=ctx.boolean(d["hidden"], "hidden") if "hidden" in d else False,
        status_set=_status_set(ctx, d.get("status_set")),
        pin=None if d.get("pin") is None else ctx.integer(d["pin"], "pin", -MAX_INITIATIVE, MAX_INITIATIVE),
        group=None if d.get("group") is None else ctx.text(d["group"], "group"),
        counters=_counters(ctx, d.get("counters")),
        visibility=None
        if d.get("visibility") is None
        else ctx.choice(d["visibility"], "visibility", VISIBILITY_LEVELS),
    )


def _counters(ctx: Ctx, value: Any) -> list[Counter]:
    """The counters a carried character keeps, as they stood (a night-reset one is
    filled up once all are added: that reset is a line of the log)."""
    out: list[Counter] = []
    for x in _items(ctx, value, "counters", ("label", "max", "left", "reset")):
        label = ctx.text(x.get("label"), "counters: label")
        if any(k.label.casefold() == label.casefold() for k in out):
            raise ctx.fail(f"counters: {label!r} twice")
        maximum = ctx.integer(x.get("max"), "counters: max", 1, MAX_COUNTER)
        left = ctx.integer(x.get("left", maximum), "counters: left", 0, maximum)
        out.append(Counter(label, maximum, left, ctx.choice(x.get("reset"), "counters: reset", COUNTER_RESETS)))
    if len(out) > MAX_COUNTERS:
        raise ctx.fail(f"counters: at most {MAX_COUNTERS}")
    return out


def _status_set(ctx: Ctx, value: Any) -> SetStatus | None:
    """A status the GM set by hand, carried with what the rules saw then."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ctx.fail("status_set: must be {status, seq, vitality, dead}")
    ctx.fields(value, ("status",), ("seq", "vitality", "dead"))
    # the wounds carried are all earlier than this night's rolls: seq 0
    return SetStatus(
        ctx.choice(value["status"], "status_set: status", STATUSES),
        0,
        ctx.integer(value.get("vitality", 0), "status_set: vitality"),
        ctx.boolean(value.get("dead", False), "status_set: dead"),
    )


def standing(c: Character, system: str = "", name_of: NameOf | None = None) -> str:
    """How a carried character stands, in a few words: "Kara (PC): Vitality 4/10;
    Possibilities 3; wounds: Wound; Stymied (2 rounds)" (Vitality where the
    ``system`` keeps it, or where it is not at its default)."""
    from gmdesk.core.systems import character_sections

    parts = []
    if c.vitality_current != c.vitality_default or (c.vitality_default and "vitality" in character_sections(system)):
        parts.append(f"Vitality {num(c.vitality_current)}/{num(c.vitality_default)}")
    if c.reality_rated:
        parts.append(f"Possibilities {c.possibilities}")
    if c.wounds:
        parts.append("wounds: " + ", ".join(w.text for w in c.wounds))
    for s in [*c.advantage, *c.shifts]:
        parts.append(f"{s.name} {signed(s.value)}" + (f" ({s.rounds} rounds)" if s.rounds else ""))
    for x in c.conditions:
        lasts = x.lasts(name_of)
        parts.append(x.name + (f" ({lasts.removeprefix('for ')})" if lasts else ""))
    if c.status != "ok":
        parts.append(c.status.capitalize())
    if c.hidden:
        parts.append("hidden from the players")
    if c.pin is not None:
        parts.append(f"initiative pinned at {initiative_words(system, c.pin)}")
    if c.group is not None:
        parts.append(f"in the group {c.group}")
    parts.extend(x.shown() for x in c.counters)
    if c.visibility is not None:
        parts.append(f"the players see: {VISIBILITY_WORDS[c.visibility]}")
    return f"{c.name} ({c.side})" + (": " + "; ".join(parts) if parts else "")


@handler("session.carried")
def _session_carried(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("from", "characters"), ("rest", "rest_changes", "ids"))
    source = ctx.text(p["from"], "from")
    rest = ctx.boolean(p.get("rest", False), "rest")
    if not isinstance(p["characters"], list):
        raise ctx.fail("characters: must be a list of characters")
    said = p.get("rest_changes") or []
    if not isinstance(said, list) or not all(isinstance(x, str) for x in said):
        raise ctx.fail("rest_changes: must be a list of lines of text")
    ctx.tx.counter()
    added = []
    for d in p["characters"]:
        c = _character(ctx, d)
        ctx.tx.new_char(c)
        added.append(c)
    _resolve_until(ctx, added)
    ctx.extra["ids"] = [c.id for c in added]
    ctx.changes.extend(standing(c, ctx.state.info.system, ctx.name_of) for c in added)
    ctx.changes.extend(said)
    reset_counters(ctx, [c.id for c in added], "night")
    names = ", ".join(c.name for c in added) or "nobody"
    how = " after a rest" if rest else ", as they stood"
    return f"Carried over from {source}{how}: {names}"
