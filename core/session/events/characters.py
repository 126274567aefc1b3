"""Handlers of the characters: who is in the session, their sources of advantage and
shifts, conditions and descriptor sheets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmdesk.core.session.events.context import MAX_POSSIBILITIES, MAX_TEXT, MAX_VITALITY, Ctx, EventError
from gmdesk.core.session.events.encounter import encounter_drop, end_waiting_on
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.events.sheets import sheet_changes, sheet_new, sheet_parse, sheet_set, sheet_vitality
from gmdesk.core.session.events.text import num, signed
from gmdesk.core.session.model import (
    KINDS,
    SIDES,
    SOURCE_KINDS,
    TURN_MOMENTS,
    VISIBILITY_LEVELS,
    Character,
    Condition,
    Source,
)


def _character_fields(ctx: Ctx, d: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "name" in d:
        out["name"] = ctx.text(d["name"], "name")
    if "side" in d:
        out["side"] = ctx.choice(d["side"], "side", SIDES)
    if "kind" in d:
        out["kind"] = ctx.choice(d["kind"], "kind", KINDS)
    if "reality_rated" in d:
        out["reality_rated"] = ctx.boolean(d["reality_rated"], "reality_rated")
    if "possibilities" in d:
        out["possibilities"] = ctx.integer(d["possibilities"], "possibilities", 0, MAX_POSSIBILITIES)
    for key in ("vitality", "vitality_default", "vitality_current"):
        if key in d:
            out[key] = ctx.integer(d[key], key, -MAX_VITALITY, MAX_VITALITY)
    if "notes" in d:
        out["notes"] = ctx.text(d["notes"], "notes", MAX_TEXT, empty=True, multiline=True)
    if "dead" in d:
        out["dead"] = ctx.boolean(d["dead"], "dead")
    return out


def _check_name(ctx: Ctx, name: str, exclude: str | None = None) -> None:
    if ctx.strict:
        refusal = ctx.state.name_refusal(name, exclude)
        if refusal is not None:
            raise ctx.fail(f"name: {refusal}")


@handler("character.add")
def _character_add(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("character",), ("id",))
    d = p["character"]
    if not isinstance(d, Mapping):
        raise ctx.fail("character: must be an object with name, side, kind, …")
    allowed = (
        "name",
        "side",
        "kind",
        "reality_rated",
        "vitality",
        "possibilities",
        "sheet",
        "notes",
        "fields",
        "hidden",
        "visibility",
    )
    for k in d:
        if k not in allowed:
            raise ctx.fail(f"character: unknown field {k!r} (allowed: {', '.join(allowed)})")
    if "name" not in d:
        raise ctx.fail("character: missing field 'name'")
    f = _character_fields(ctx, d)
    _check_name(ctx, f["name"])
    sheet = None
    if d.get("sheet") is not None:
        text = d["sheet"]
        if not isinstance(text, str):
            raise ctx.fail("sheet: must be the text of a descriptor sheet")
        sheet = sheet_parse(text)  # SheetError (a GmdeskError) names the problem
    reality = f.get("reality_rated", False)
    poss = f.get("possibilities", 0)
    if poss and not reality:
        raise ctx.fail("possibilities: only a reality-rated character has Possibilities")
    vit = sheet_vitality(sheet)
    if vit is not None:  # the sheet's Vitality descriptor is the truth when it has one
        v_default, v_current = vit
    elif "vitality" in f:
        v_default = v_current = f["vitality"]
    else:
        v_default = v_current = 0
    ctx.tx.counter()
    cid = f"c{ctx.state.next_id}"
    ctx.state.next_id += 1
    fields: dict[str, Any] = {}
    if d.get("fields") is not None:
        fields, _ = _read_fields(ctx, {}, d["fields"], "fields")
    c = Character(
        id=cid,
        name=f["name"],
        side=f.get("side", "PC"),
        kind=f.get("kind", "organic"),
        reality_rated=reality,
        vitality_default=v_default,
        vitality_current=v_current,
        possibilities=poss,
        sheet=sheet,
        notes=f.get("notes", ""),
        fields=fields,
        hidden=ctx.boolean(d["hidden"], "hidden") if "hidden" in d else False,
        visibility=None
        if d.get("visibility") is None
        else ctx.choice(d["visibility"], "visibility", VISIBILITY_LEVELS),
    )
    ctx.tx.new_char(c)
    ctx.extra["id"] = cid
    if c.hidden:
        ctx.changes.append(f"{c.name}: hidden from the players")
    return f"{c.name} joins ({c.side}, {c.kind}{', reality-rated' if reality else ''})"


#: what ``character.edit`` changes (and ``character.fields`` besides the system's
#: fields), and how a change line names each (the words the GM sets them by)
EDIT_LABELS = {
    "name": "Name",
    "side": "Side",
    "kind": "Kind",
    "reality_rated": "Reality-rated",
    "possibilities": "Possibilities",
    "vitality_default": "Max Vitality",
    "vitality_current": "Vitality",
    "notes": "Notes",
    "dead": "Dead",
}
EDITABLE = tuple(EDIT_LABELS)


def _shown(v: Any) -> str:
    """A value as a change line says it: a number with its sign, yes or no, a name quoted."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return num(v)
    return v if v in ("PC", "NPC", "organic", "inorganic") else f"“{v}”"


@handler("character.edit")
def _character_edit(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "fields"))
    c = ctx.char(p["id"])
    d = p["fields"]
    if not isinstance(d, Mapping) or not d:
        raise ctx.fail(f"fields: must be a non-empty object of {', '.join(EDITABLE)}")
    _edit(ctx, c, d)
    return f"{c.name} edited" if ctx.changes else f"{c.name} edited (no change)"


def _edit(ctx: Ctx, c: Character, d: Mapping[str, Any]) -> None:
    """Change the character's own parts named in ``d`` (:data:`EDITABLE`)."""
    for k in d:
        if k not in EDITABLE:
            raise ctx.fail(f"fields: unknown field {k!r} (allowed: {', '.join(EDITABLE)})")
    f = _character_fields(ctx, d)
    if "name" in f:
        _check_name(ctx, f["name"], c.id)
    reality = f.get("reality_rated", c.reality_rated)
    poss = f.get("possibilities", c.possibilities)
    if not reality and "possibilities" in f and poss:
        raise ctx.fail("possibilities: only a reality-rated character has Possibilities")
    name = c.name
    live = ctx.tx.char(c.id)
    for key, value in f.items():
        old = getattr(live, key)
        if old == value:
            continue
        if key == "vitality_current":
            ctx.set_vitality(live, value)
        elif key == "vitality_default":
            live.vitality_default = value
            if live.sheet is not None and sheet_vitality(live.sheet) is not None:
                current = None if live.vitality_current == value else live.vitality_current
                live.sheet = sheet_set(live.sheet, "Vitality", {"default": value, "current": current})
        else:
            setattr(live, key, value)

        label = EDIT_LABELS[key]
        ctx.changes.append(f"{name}: {label} {_shown(old)} → {_shown(value)}" if key != "notes" else f"{name}: {label}")
    if not reality and live.possibilities:
        ctx.changes.append(f"{name}: Possibilities {live.possibilities} → 0 (not reality-rated)")
        live.possibilities = 0


@handler("character.remove")
def _character_remove(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id",))
    c = ctx.char(p["id"])
    if ctx.state.encounter.index_of(c.id) is not None:
        encounter_drop(ctx, c.id)
    end_waiting_on(ctx, c.id, f"{c.name} left the session")
    ctx.tx.remove_char(c.id)
    return f"{c.name} leaves the session"


def _read_fields(
    ctx: Ctx, current: Mapping[str, Any], changes: Any, what: str = "set"
) -> tuple[dict[str, Any], list[str]]:
    """The character's fields after ``changes`` ({name: value or None}), each value
    read by the declaration of the session's system (a bad one refused naming the
    field's label), and what changed ("Attack skill → Fire Combat"). A ``stat`` must
    name an entry of the character's ``stats`` field as it is after the change.

    Replaying a log written by a gmdesk that knew the system (``strict`` off) whose
    system is not installed here keeps the values as written."""
    from gmdesk.core.errors import ParamError
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.spec import find_stat, parse_field, show_field

    if not isinstance(changes, Mapping) or not changes:
        raise ctx.fail(f"{what}: must be a non-empty object of field -> value (null clears it)")
    try:
        spec = get_spec(ctx.state.info.system)
    except ParamError:
        if ctx.strict:
            raise ctx.fail(f"the session's system {ctx.state.info.system!r} is not installed") from None
        out = dict(current)
        for name, value in changes.items():
            if value is None:
                out.pop(str(name), None)
            else:
                out[str(name)] = value
        return out, []
    out = dict(current)
    shown: list[str] = []
    for name, value in changes.items():
        f = spec.field(str(name))
        if f is None:
            names = ", ".join(x.name for x in spec.character_fields) or "none"
            raise ctx.fail(f"{what}: {spec.name} has no character field {name!r} (fields: {names})")
        try:
            parsed = parse_field(f, value)
        except ParamError as e:
            raise EventError(str(e), ctx.type, field=f.name) from None
        if parsed is None:
            out.pop(f.name, None)
        else:
            out[f.name] = parsed
    for f in spec.character_fields:
        if f.type != "stat" or f.name not in out:
            continue
        stats = out.get(f.stats or "")
        key = find_stat(stats, out[f.name])
        if key is None and not ctx.strict:
            continue
        if key is None:
            stats_field = spec.field(f.stats or "")
            label = stats_field.label if stats_field else f.stats
            known = ", ".join(stats) if stats else "none yet"
            raise EventError(f"{f.label}: {out[f.name]!r} is not among the {label} ({known})", ctx.type, field=f.name)
        out[f.name] = key
    for name in changes:
        f = spec.field(str(name))
        if f is not None:
            value = out.get(f.name)
            shown.append(f"{f.label} → {show_field(f, value)}" if value is not None else f"{f.label} cleared")
    return out, shown


@handler("character.fields")
def _character_fields_set(ctx: Ctx, p: dict[str, Any]) -> str:
    """The fields the session's system declares (``set``: name → value, null clears
    it), and in the same event, optionally, the character's own parts (``edit``: as
    ``character.edit``'s fields), so that one change of a stat block is one event."""
    ctx.fields(p, ("id", "set"), ("edit",))
    c = ctx.char(p["id"])
    name = c.name
    changes = p["set"]
    if "edit" in p and p["edit"] is not None:
        if not isinstance(p["edit"], Mapping):
            raise ctx.fail(f"edit: must be an object of {', '.join(EDITABLE)}")
        if p["edit"]:
            _edit(ctx, c, p["edit"])
        if isinstance(changes, Mapping) and not changes:
            return (
                f"{name}: " + "; ".join(ch.partition(": ")[2] for ch in ctx.changes)
                if ctx.changes
                else f"{name} unchanged"
            )
    fields, shown = _read_fields(ctx, c.fields, changes)
    if fields != c.fields:
        ctx.tx.char(c.id).fields = fields
        ctx.changes.extend(f"{name}: {line}" for line in shown)
    if not ctx.changes:
        return f"{name}: fields unchanged"
    return f"{name}: " + "; ".join(ch.partition(": ")[2] for ch in ctx.changes)


def _source_list(ctx: Ctx, p: dict[str, Any]) -> tuple[Character, str, str]:
    c = ctx.char(p["id"])
    kind = ctx.choice(p["kind"], "kind", SOURCE_KINDS)
    name = ctx.text(p["name"], "name")
    return c, kind, name


def _find_source(sources: list[Source], name: str) -> int | None:
    key = name.casefold()
    for i, s in enumerate(sources):
        if s.name.casefold() == key:
            return i
    return None


@handler("source.add")
def _source_add(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "kind", "name", "value"), ("rounds", "active"))
    c, kind, name = _source_list(ctx, p)
    if kind == "advantage":
        value = ctx.integer(p["value"], "value", -2, 2)
        if value == 0:
            raise ctx.fail("value: an advantage source is +1 or +2, a disadvantage −1 or −2 (got 0)")
    else:
        value = ctx.integer(p["value"], "value", 1, 9)
    rounds = ctx.rounds(p.get("rounds"))
    active = ctx.boolean(p.get("active", True), "active")
    if _find_source(c.sources(kind), name) is not None:
        raise ctx.fail(f"{c.name} already has the {kind} source {name!r}")
    live = ctx.tx.char(c.id)
    src = Source(name, value, rounds, active)
    if kind == "advantage":
        live.advantage = [*live.advantage, src]
    else:
        live.shifts = [*live.shifts, src]
    dur = f" for {rounds} round{'s' if rounds != 1 else ''}" if rounds else ""
    ctx.changes.append(f"{c.name} gains {kind} {name} {signed(value)}{dur}")
    return ctx.changes[-1]


def _source_at(ctx: Ctx, p: dict[str, Any]) -> tuple[Character, str, int, Character, list[Source]]:
    """The character, kind, index of the named source, the live character and a copy
    of its list of that kind (for source.remove / source.toggle)."""
    ctx.fields(p, ("id", "kind", "name"), ("value", "rounds"))
    c, kind, name = _source_list(ctx, p)
    i = _find_source(c.sources(kind), name)
    if i is None:
        raise ctx.fail(f"{c.name} has no {kind} source {name!r}")
    live = ctx.tx.char(c.id)
    return c, kind, i, live, list(live.sources(kind))


def _set_sources(live: Character, kind: str, sources: list[Source]) -> None:
    if kind == "advantage":
        live.advantage = sources
    else:
        live.shifts = sources


@handler("source.remove")
def _source_remove(ctx: Ctx, p: dict[str, Any]) -> str:
    c, kind, i, live, lst = _source_at(ctx, p)
    removed = lst.pop(i)
    _set_sources(live, kind, lst)
    ctx.changes.append(f"{c.name} loses {kind} {removed.name}")
    return ctx.changes[-1]


@handler("source.toggle")
def _source_toggle(ctx: Ctx, p: dict[str, Any]) -> str:
    c, kind, i, live, lst = _source_at(ctx, p)
    s = lst[i]
    lst[i] = Source(s.name, s.value, s.rounds, not s.active)
    _set_sources(live, kind, lst)
    ctx.changes.append(f"{c.name}: {kind} {s.name} {'off' if s.active else 'on'}")
    return ctx.changes[-1]


def _find_condition(c: Character, name: str) -> int | None:
    key = name.casefold()
    for i, cond in enumerate(c.conditions):
        if cond.name.casefold() == key:
            return i
    return None


@handler("condition.add")
def _condition_add(ctx: Ctx, p: dict[str, Any]) -> str:
    """A condition for ``rounds`` of the owner's turns, ``until`` a moment of a
    character's turn ({"id", "at": "start" | "end"}), or until removed."""
    ctx.fields(p, ("id", "name"), ("rounds", "until"))
    c = ctx.char(p["id"])
    name = ctx.text(p["name"], "name")
    rounds = ctx.rounds(p.get("rounds"))
    until = None
    if p.get("until") is not None:
        u = p["until"]
        if not isinstance(u, Mapping) or set(u) != {"id", "at"}:
            raise ctx.fail('until: must be {"id": character, "at": "start" or "end"}')
        if rounds is not None:
            raise ctx.fail("a condition lasts a number of rounds or until a turn, not both")
        until = (ctx.char(u["id"], "until.id").id, ctx.choice(u["at"], "until.at", TURN_MOMENTS))
    if _find_condition(c, name) is not None:
        raise ctx.fail(f"{c.name} is already {name}")
    live = ctx.tx.char(c.id)
    cond = Condition(name, rounds, None, until)
    live.conditions = [*live.conditions, cond]
    dur = cond.lasts(ctx.name_of)
    ctx.changes.append(f"{c.name} is {name}" + (f" {dur}" if dur else ""))
    return ctx.changes[-1]


@handler("condition.remove")
def _condition_remove(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "name"), ("rounds",))
    c = ctx.char(p["id"])
    name = ctx.text(p["name"], "name")
    i = _find_condition(c, name)
    if i is None:
        raise ctx.fail(f"{c.name} is not {name}")
    live = ctx.tx.char(c.id)
    lst = list(live.conditions)
    gone = lst.pop(i)
    live.conditions = lst
    ctx.changes.append(f"{c.name} is no longer {gone.name}")
    return ctx.changes[-1]


SHEET_VALUE_FIELDS = ("default", "current", "uses_default", "uses_current")


@handler("sheet.set")
def _sheet_set(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "descriptor"), SHEET_VALUE_FIELDS)
    c = ctx.char(p["id"])
    name = ctx.text(p["descriptor"], "descriptor")
    values: dict[str, Any] = {}
    for key in SHEET_VALUE_FIELDS:
        if key in p:
            v = p[key]
            if v is None or v == "inf" and key.startswith("uses"):
                values[key] = v
            else:
                values[key] = ctx.integer(v, key, -MAX_VITALITY, 10**6)
    if not values:
        raise ctx.fail(f"give at least one of {', '.join(SHEET_VALUE_FIELDS)}")
    live = ctx.tx.char(c.id)
    if live.sheet is None:
        live.sheet = sheet_new(c.name)
    sheet = live.sheet
    live.sheet = sheet_set(sheet, name, values)
    ctx.changes.extend(sheet_changes(c.name, sheet, live.sheet))
    if name.casefold() == "vitality":
        vit = sheet_vitality(live.sheet)
        if vit is not None:
            if live.vitality_default != vit[0] or live.vitality_current != vit[1]:
                ctx.changes.append(f"{c.name}: Vitality {num(live.vitality_current)} → {num(vit[1])}")
            live.vitality_default, live.vitality_current = vit
    shown = ", ".join(f"{k} {v}" for k, v in values.items())
    return f"{c.name}: {name} set ({shown})"


@handler("sheet.import")
def _sheet_import(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "text"))
    c = ctx.char(p["id"])
    if not isinstance(p["text"], str):
        raise ctx.fail("text: must be the text of a descriptor sheet")
    sheet = sheet_parse(p["text"])
    live = ctx.tx.char(c.id)
    live.sheet = sheet
    vit = sheet_vitality(sheet)
    if vit is not None:
        live.vitality_default, live.vitality_current = vit
    return f"{c.name}: sheet imported"
