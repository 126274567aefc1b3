"""Reading ``FIELD=VALUE``: the numbers ``gmdesk char`` and ``gmdesk bestiary add`` take.

``FIELD`` is a field of the session's system (its declared ``CharField``, by name or
label) or one of the character's own parts (side, kind, Vitality, Possibilities…),
read by its declaration into the values an event carries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gmdesk.cli.common import choice
from gmdesk.core.errors import ParamError

if TYPE_CHECKING:
    from gmdesk.core.systems.declare import CharField
    from gmdesk.core.systems.spec import SystemSpec

#: the character's own parts ``char`` sets: words (normalised) → (event key, label)
OWN = {
    "side": ("side", "Side"),
    "kind": ("kind", "Kind"),
    "vitality": ("vitality_current", "Vitality"),
    "current vitality": ("vitality_current", "Vitality"),
    "max vitality": ("vitality_default", "Max Vitality"),
    "vitality default": ("vitality_default", "Max Vitality"),
    "default vitality": ("vitality_default", "Max Vitality"),
    "possibilities": ("possibilities", "Possibilities"),
    "reality rated": ("reality_rated", "Reality-rated"),
    "name": ("name", "Name"),
    "notes": ("notes", "Notes"),
}


def field_key(text: str) -> str:
    """``text`` as ``FIELD=VALUE`` compares it: case, spaces, dashes and underscores ignored."""
    return " ".join(text.replace("_", " ").replace("-", " ").split()).casefold()


def field(spec: SystemSpec | None, name: str) -> CharField | None:
    """The declared field ``name`` names (its name or label), or None."""
    if spec is None:
        return None
    key = field_key(name)
    return next((f for f in spec.character_fields if key in (field_key(f.name), field_key(f.label))), None)


def field_names(spec: SystemSpec | None) -> str:
    """The fields ``FIELD`` may name, for a message: the system's, then the character's own."""
    own = "side, kind, vitality, max vitality, possibilities, reality rated, name, notes"
    if spec is None or not spec.character_fields:
        return own
    return ", ".join(f.name for f in spec.character_fields) + "; " + own


def _bool(label: str, text: str) -> bool:
    t = text.strip().casefold()
    if t in ("yes", "y", "true", "on", "1"):
        return True
    if t in ("no", "n", "false", "off", "0"):
        return False
    raise ParamError(label, f"must be yes or no (got {text!r})")


def _int(label: str, text: str) -> int:
    from gmdesk.core.systems.base import parse_int

    return parse_int(label, text.strip().replace("\u2212", "-"))


def read_assignments(
    spec: SystemSpec | None, texts: list[str], current: dict[str, Any] | None = None, adding: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``FIELD=VALUE`` texts as (the system's field changes ``{name: value or None}``,
    the character's own part changes ``{event key: value}``). Values of the system's
    fields are read by their declaration (``ParamError`` naming the field's label);
    ``current``: the character's fields now (``stats.NAME=VALUE`` changes one entry)."""
    from gmdesk.core.systems.spec import find_stat, parse_field, parse_stats

    fields: dict[str, Any] = {}
    own: dict[str, Any] = {}
    current = current or {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise ParamError("FIELD=VALUE", f"write each change as FIELD=VALUE, e.g. side=NPC (got {text!r})")
        value = value.strip()
        f = field(spec, name)
        if f is None and "." in name:
            head, _, entry = name.partition(".")
            f = field(spec, head)
            if f is None or f.type != "stats" or not entry.strip():
                raise ParamError(name.strip(), f"no such field; fields: {field_names(spec)}")
            table = dict(fields.get(f.name) or current.get(f.name) or {})
            old = find_stat(table, entry)
            if not value:
                table.pop(old or "", None)
            else:
                ((new_name, new_value),) = parse_stats(f, {" ".join(entry.split()): value}).items()
                table[old or new_name] = new_value  # an entry keeps its place and its spelling
            fields[f.name] = table or None
            continue
        if f is not None:
            fields[f.name] = parse_field(f, value) if value else None
            continue
        key = field_key(name)
        if key not in OWN:
            raise ParamError(name.strip(), f"no such field; fields: {field_names(spec)}")
        target, label = OWN[key]
        if target == "side":
            own[target] = choice(label, value, ("PC", "NPC"))
        elif target == "kind":
            own[target] = choice(label, value, ("organic", "inorganic"))
        elif target == "reality_rated":
            own[target] = _bool(label, value)
        elif target in ("name", "notes"):
            own[target] = value
        else:
            own[target] = _int(label, value)
    if adding and "vitality_current" in own:
        own.setdefault("vitality_default", own["vitality_current"])
    return fields, own
