"""What the session knows about a roll before the dice fall.

One code path for every roll a session makes: the roll / attack dialog of the desk
and ``gmdesk roll SYSTEM … --save SAVE --as A --at T`` both fill their parameters
here, so the same roller in the same state rolls with the same numbers whichever
way the GM asks. Nothing here knows a system by name: what a system fills from the
session is declared in its module (``core.systems.spec``).

What the session fills in (:func:`roll_defaults`):

* ``target_kind`` / ``attacker_kind`` from the tracked target's / roller's kind
  (the descriptor column follows them; a tracked character's kind always wins);
* the characters' **fields** (:func:`field_defaults`): each declared
  ``CharField`` that ``feeds`` a parameter fills it from the roller's or the
  target's value (a ``stat`` field with the value of the entry it names: an
  Attack skill "Fire Combat" fills ``skill`` with the roller's Fire Combat value; a
  ``combat_only`` field only in an attack);
* the **sources** a system reads (its ``ROLL_SOURCES``: kind, and whether the
  target's count against the roller) — the character's sources of that kind and the
  entries of its fields declared as such (``CharField.sources``) — through its
  ``sources_params`` (a net shift, an advantage level); inactive (switched-off)
  sources never count;
* the **settings**: a parameter declared with ``setting`` takes the session's
  setting of that name (a skill chance threshold, a dice method), its system's
  declared default when the session has none;
* what the system's ``session_defaults(settings, actor, target)`` returns (what the
  roller's conditions or the session's settings change in its rolls).

What the caller sets explicitly wins (:func:`fill_params` ``given``): a CLI option
typed on the command line (``--shift 0`` included), or a field of the dialog (which
shows the filled-in values and lets the GM change them or switch a source off for
this one roll). A typed stat name ("Fire Combat") in a parameter a ``stat`` field
feeds is that character's value (:func:`resolve_names`). Where each filled value
came from ("Quin Sebastian's Fire Combat") goes with the roll (:func:`fill_params_from`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeAlias

from gmdesk.core.errors import ParamError
from gmdesk.core.session.model import Character
from gmdesk.core.systems.base import dataclass_to_json
from gmdesk.core.systems.spec import INITIATIVE, CharField, SystemSpec, find_stat

if TYPE_CHECKING:
    import argparse

#: a dice system as callers name it: its declaration, its id or its module (``spec_of``)
SystemRef: TypeAlias = SystemSpec | ModuleType | str


def _spec(system: SystemRef) -> SystemSpec | None:
    """The declaration of ``system`` (an id, a system module or a spec); None for an
    unknown one."""
    if type(system) is SystemSpec:
        return system
    from gmdesk.core.systems import spec_of

    try:
        return spec_of(system)
    except ParamError:
        return None


@dataclass(frozen=True)
class RollSource:
    """One source a roll reads: the roller's own (``owner="own"``) or, where the
    system counts the target's against the roller (``ROLL_SOURCES``' ``opposed``),
    the target's (``owner="vs"``)."""

    owner: str  # "own" | "vs"
    kind: str  # "shift" | "advantage"
    name: str
    value: int
    active: bool
    who: str = ""  # the character's name


def roll_sources(
    system: SystemRef, actor: Character | None = None, target: Character | None = None
) -> list[RollSource]:
    """Every source of the roller (and of the target, where the system counts them)
    that ``system`` reads (its ``ROLL_SOURCES``), active or not, in the character's order."""
    spec = _spec(system)
    declared = spec.roll_sources if spec is not None else None
    if not declared:
        return []
    kind, opposed = declared
    owners = [("own", actor)]
    if opposed:
        owners.append(("vs", target))
    tables = [f.name for f in spec.character_fields if f.sources == kind] if spec is not None else []
    out: list[RollSource] = []
    for owner, ch in owners:
        if ch is None:
            continue
        for src in ch.sources(kind):
            out.append(RollSource(owner, kind, src.name, int(src.value), bool(src.active), ch.name))
        # the entries of the fields declared as its sources (CharField.sources)
        seen = {s.name.casefold() for s in out if s.owner == owner}
        for name in tables:
            for entry, value in (ch.fields.get(name) or {}).items():
                if str(entry).casefold() not in seen and isinstance(value, int):
                    out.append(RollSource(owner, kind, str(entry), value, True, ch.name))
    return out


def sources_params(system: SystemRef, sources: Iterable[RollSource]) -> dict[str, Any]:
    """The parameters the given (switched-on) sources make, by the system's own
    ``sources_params`` (a net shift: the own total minus the target's; an advantage
    level: the roller's values). Empty for a system that reads none."""
    spec = _spec(system)
    if spec is None or spec.sources_params is None:
        return {}
    return dict(spec.sources_params(list(sources)))


def sources_origin(sources: list[RollSource]) -> str:
    """ "Vex's Pistol +2, DEX +1; Bar Thug's PSTR +1" (the sources a roll counted)."""
    from gmdesk.core.text import signed

    parts: list[str] = []
    for owner in ("own", "vs"):
        mine = [s for s in sources if s.owner == owner]
        if mine:
            parts.append(f"{mine[0].who}'s " + ", ".join(f"{s.name} {signed(s.value)}" for s in mine))
    return "; ".join(parts)


# --------------------------------------------------------------------------- character fields


def _side(f: CharField, actor: Character | None, target: Character | None) -> Character | None:
    return actor if f.from_ == "roller" else target


def field_value(spec: SystemSpec, f: CharField, character: Character | None) -> tuple[Any, str] | None:
    """What ``character``'s field ``f`` feeds, and where it came from ("Quin
    Sebastian's Fire Combat", "Trooper's Defense DC"); None when it has no value (a
    ``stat`` naming an entry the character lacks has none)."""
    if character is None:
        return None
    fields = character.fields
    raw = fields.get(f.name, f.default)
    if raw is None or f.type == "stats":
        return None
    if f.type == "stat":
        stats = fields.get(f.stats or "")
        key = find_stat(stats, raw)
        if key is None or stats is None:
            return None
        return stats[key], f"{character.name}'s {key}"
    return raw, f"{character.name}'s {f.label}"


def field_defaults(
    system: SystemRef,
    actor: Character | None = None,
    target: Character | None = None,
    combat: bool = False,
    opposed: bool = False,
) -> dict[str, tuple[Any, str]]:
    """Parameter name → (value, origin) of what the roller's and the target's fields
    fill (see the module docstring); the initiative fields and the fields of a side
    that is not tracked fill nothing, a field only the rolls it fills
    (``CharField.fills_in``: a ``combat_only`` field an attack and an ``opposed`` roll)."""
    spec = _spec(system)
    out: dict[str, tuple[Any, str]] = {}
    if spec is None:
        return out
    kind = "attack" if combat else "opposed" if opposed else "roll"
    for f in spec.character_fields:
        if f.feeds is None or f.feeds == INITIATIVE or f.feeds in out:
            continue
        if not f.fills_in(kind):
            continue
        got = field_value(spec, f, _side(f, actor, target))
        if got is not None:
            out[f.feeds] = got
    return out


def _reads_as_value(spec: SystemSpec, param: str, stats_field: CharField | None, value: str) -> bool:
    """Whether ``value`` typed in ``param`` is a value of its own (a number, a ladder
    level) rather than a stat's name."""
    from gmdesk.core.systems.base import parse_int

    readers = []
    if stats_field is not None and stats_field.parse is not None:
        readers.append(stats_field.parse)
    readers.append(parse_int)
    for read in readers:
        try:
            read(param, value)
            return True
        except (ParamError, ValueError, TypeError):
            continue
    return False


def resolve_names(
    system: SystemRef, data: Mapping[str, Any], actor: Character | None = None, target: Character | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """``data`` with each stat name typed in a parameter that a ``stat`` field feeds
    ("Fire Combat" typed as a Skill value) replaced by that side's value of it, and
    the origins of the values so read ({"skill": "Quin Sebastian's Fire Combat"}).
    A name the character lacks is refused (``ParamError`` naming the parameter's
    label and listing the character's names); a number or a ladder level stays."""
    spec = _spec(system)
    out = dict(data)
    origins: dict[str, str] = {}
    if spec is None:
        return out, origins
    seen: set[str] = set()
    for f in spec.character_fields:
        if f.type != "stat" or f.feeds is None or f.feeds in seen or f.feeds == INITIATIVE:
            continue
        seen.add(f.feeds)
        value = out.get(f.feeds)
        if not isinstance(value, str) or not value.strip():
            continue
        ch = _side(f, actor, target)
        stats_field = spec.field(f.stats or "")
        stats = ch.fields.get(f.stats or "") if ch is not None else None
        key = find_stat(stats, value)
        if key is not None and stats is not None and ch is not None:
            out[f.feeds] = stats[key]
            origins[f.feeds] = f"{ch.name}'s {key}"
            continue
        if ch is None or _reads_as_value(spec, f.feeds, stats_field, value.strip()):
            continue
        param = spec.param(f.feeds)
        label = param.label if param is not None else f.feeds
        what = stats_field.label if stats_field is not None else "stats"
        known = ", ".join(stats) if stats else "none"
        raise ParamError(label, f"{ch.name} has no {value.strip()!r} ({ch.name}'s {what}: {known})")
    return out, origins


def initiative_modifier(system: SystemRef, character: Character | None) -> int:
    """A character's own initiative modifier: the system's ``initiative_modifier``
    member when it declares one (an own shift total, descriptors read on the sheet),
    else the sum of its fields that feed initiative (a Dexterity value, an initiative
    bonus); 0 when nothing says."""
    spec = _spec(system)
    if spec is None or character is None:
        return 0
    if spec.initiative_modifier is not None:
        try:
            return int(spec.initiative_modifier(character) or 0)
        except (ParamError, ValueError, TypeError):
            return 0
    total = 0
    for f in spec.character_fields:
        if f.feeds != INITIATIVE:
            continue
        got = field_value(spec, f, character)
        if got is None:
            continue
        try:
            total += int(got[0])
        except (ValueError, TypeError):
            continue
    return total


# --------------------------------------------------------------------------- the defaults


def _session_values(
    settings: Mapping[str, Any], spec: SystemSpec, actor: Any, target: Any
) -> tuple[dict[str, Any], dict[str, str]]:
    """What the session itself fills (kinds, sources, settings, the system's
    ``session_defaults``), and the origins worth telling (the sources)."""
    out: dict[str, Any] = {}
    origins: dict[str, str] = {}
    if target is not None:
        out["target_kind"] = target.kind
        if spec.defenseless and not target.can_act:  # no defense roll (RULES "Who can act")
            out[spec.defenseless] = True
            origins[spec.defenseless] = f"{target.name} is {target.status.capitalize()}"
    if actor is not None:
        out["attacker_kind"] = actor.kind
    on = [s for s in roll_sources(spec, actor, target) if s.active]
    for name, value in sources_params(spec, on).items():
        out[name] = value
        if on:
            origins[name] = sources_origin(on)
    declared_settings = spec.setting_defaults()
    for p in spec.params:
        if p.setting:
            out[p.name] = settings.get(p.setting, declared_settings.get(p.setting, p.default))
    if spec.session_defaults is not None:
        out.update(spec.session_defaults(settings, actor, target))
    return out, origins


def sheet_items(characters: Iterable[Character]) -> frozenset[str]:
    """The Physical Items the characters' descriptor sheets list (each by its
    :func:`core.sheet.item_key`): a name in a Test any of them lists as an item is
    one the Test needs (RULES.md)."""
    out: set[str] = set()
    for c in characters:
        if c.sheet is not None:
            out |= c.sheet.item_keys()
    return frozenset(out)


def session_values(settings: Mapping[str, Any], system: SystemRef, actor: Character | None = None) -> dict[str, Any]:
    """What the session itself fills into a roll by ``actor`` with no target (its
    sources, conditions, the session's settings): what its initiative takes of it."""
    spec = _spec(system)
    return {} if spec is None else _session_values(settings, spec, actor, None)[0]


def roll_defaults_from(
    settings: Mapping[str, Any],
    system: SystemRef,
    actor: Character | None = None,
    target: Character | None = None,
    combat: bool = False,
) -> tuple[dict[str, Any], dict[str, str]]:
    """:func:`roll_defaults` with the origins of the values the characters gave
    (parameter name → "Quin Sebastian's Fire Combat")."""
    spec = _spec(system)
    if spec is None:
        return {}, {}
    out: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for name, (value, origin) in field_defaults(spec, actor, target, combat).items():
        out[name] = value
        origins[name] = origin
    session, session_origins = _session_values(settings, spec, actor, target)
    out.update(session)
    origins.update(session_origins)
    return out, origins


def roll_defaults(
    settings: Mapping[str, Any],
    system: SystemRef,
    actor: Character | None = None,
    target: Character | None = None,
    combat: bool = False,
) -> dict[str, Any]:
    """Parameter name → what the session knows about it for this roller and target
    (the characters' fields, sources, settings and conditions; see the module docstring)."""
    return roll_defaults_from(settings, system, actor, target, combat)[0]


#: filled from the tracked characters whatever the caller typed
_TRACKED = ("target_kind", "attacker_kind")


def _param_defaults(spec: SystemSpec) -> dict[str, Any]:
    """Parameter name → its default in the system's ``Params`` (a fresh dict; a
    default made by a factory made afresh)."""
    cls = spec.Params
    declared = _DEFAULTS.get(cls)
    if declared is None:
        declared = _DEFAULTS[cls] = tuple(
            (f.name, f.default, f.default_factory)
            for f in dataclasses.fields(cls)
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
    return {name: default if default is not dataclasses.MISSING else factory() for name, default, factory in declared}


#: each Params class's fields with a default: (name, default, default factory)
_DEFAULTS: dict[type, tuple[tuple[str, Any, Any], ...]] = {}


def fill_data(
    settings: Mapping[str, Any],
    system: SystemRef,
    data: Mapping[str, Any],
    actor: Character | None = None,
    target: Character | None = None,
    combat: bool = False,
    given: Collection[str] | None = None,
    items: Iterable[str] = (),
) -> tuple[Any, dict[str, str]]:
    """The system's validated ``Params`` from parameter ``data`` (the JSON a CLI
    or a caller gives, not yet checked) with what the session knows filled in, and
    where the characters' values came from (parameter name → "Quin Sebastian's Fire
    Combat", what the record keeps as ``extra["from"]``).

    ``given``: the parameter names the caller set explicitly (kept as they are; a
    stat name typed in one is the character's value, :func:`resolve_names`).
    ``None``: those in ``data`` whose value differs from the default. A system's
    ``read_filled(params, filled, actor, target)`` then reads what the fields filled
    beyond its value, before the parameters are checked (the named descriptors'
    Current Values on the sheets; ``items``: the Physical Items the session's sheets
    list, :func:`sheet_items`)."""
    spec = _spec(system)
    if spec is None:
        raise ParamError("SYSTEM", f"unknown system {system!r}")
    data, origins = _filled_data(settings, spec, data, actor, target, combat, given, items)
    return spec.params_from_json(data), origins


def _filled_data(
    settings: Mapping[str, Any],
    spec: SystemSpec,
    data: Mapping[str, Any],
    actor: Character | None,
    target: Character | None,
    combat: bool,
    given: Collection[str] | None,
    items: Iterable[str],
) -> tuple[dict[str, Any], dict[str, str]]:
    """:func:`fill_data` up to the parameters' JSON (a new dict), not yet checked."""
    data = dict(data)
    combat = bool(combat or data.get("combat"))
    if combat:
        data["combat"] = True
    defaults = _param_defaults(spec)
    if given is None:
        given = {k for k, v in data.items() if k in defaults and v != defaults[k]}
    data, origins = resolve_names(spec, data, actor, target)
    origins = {k: v for k, v in origins.items() if k in given}
    values, found = roll_defaults_from(settings, spec, actor, target, combat)
    replaced = spec.replaced_by(given)  # a typed value stands in for these: nothing filled
    filled: set[str] = set()
    for name, value in values.items():
        if name in replaced and name not in _TRACKED:
            continue
        if name in defaults and (name in _TRACKED or name == spec.defenseless or name not in given):
            if data.get(name, defaults[name]) != value:
                data[name] = value
                filled.add(name)
    origins.update({k: v for k, v in found.items() if k in filled})
    from_fields = filled & {f.feeds for f in spec.character_fields if f.feeds}
    if spec.read_filled is not None and from_fields:
        data = dict(spec.read_filled(data, from_fields, actor, target, **spec.offered("read_filled", items=items)))
    return data, origins


def fill_params_from(
    settings: Mapping[str, Any],
    module: SystemRef,
    params: Any,
    actor: Character | None = None,
    target: Character | None = None,
    combat: bool = False,
    given: Collection[str] | None = None,
    items: Iterable[str] = (),
) -> tuple[Any, dict[str, str]]:
    """``params`` (the system's validated ``Params``) with what the session knows
    filled in, and where the characters' values came from (:func:`fill_data`).
    ``given``: the parameter names the caller set explicitly; ``None`` means
    "whatever differs from the Params default was given"."""
    if not dataclasses.is_dataclass(params) or isinstance(params, type):
        return params, {}
    spec = _spec(module)
    if spec is None:
        return params, {}
    data = dataclass_to_json(params)  # (dataclasses.asdict, faster)
    if given is None:
        defaults = _param_defaults(spec)
        given = {k for k, v in data.items() if k in defaults and v != defaults[k]}
    filled_data, origins = _filled_data(settings, spec, data, actor, target, combat, given, items)
    if filled_data == data:
        return params, origins  # nothing filled: the parameters as given, checked already
    filled = spec.params_from_json(filled_data)
    return (params if filled == params else filled), origins


def fill_params(
    settings: Mapping[str, Any],
    module: SystemRef,
    params: Any,
    actor: Character | None = None,
    target: Character | None = None,
    combat: bool = False,
    given: Collection[str] | None = None,
) -> Any:
    """``params`` with what the session knows filled in (:func:`fill_params_from`
    without the origins)."""
    return fill_params_from(settings, module, params, actor, target, combat, given)[0]


def explicit_options(ns: argparse.Namespace | Mapping[str, Any]) -> set[str]:
    """The parameters typed on a ``gmdesk roll|odds SYSTEM`` command line (their
    generated options, :mod:`core.systems.options`): an explicit ``--shift 0`` counts,
    an option left out does not."""
    from gmdesk.core.systems.options import typed

    return set(typed(ns))
