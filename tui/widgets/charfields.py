"""The character pane's section for the session's dice system, generated from the
fields the system declares (``CHARACTER_FIELDS``, core/systems): the numbers a
character carries for it.

Each declared field is one row, its label and its value: a number, a word, yes / no,
or, for a ``stat`` field, the entry of the character's named values it picks and that
entry's value (``Attack: Fire Combat`` · ``13``). A ``stats`` field (attributes,
skills, traits) is a block of its own: one row per named value, then a ``+ add`` row.

Everything here is pure: the rows to show, the editor's prompt for a row, and the
``character.fields`` event a typed value becomes, checked by the field's declared type
(or the system's own reading of it). A bad value raises :class:`ParamError` naming the
field's label; nothing is saved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.systems.spec import CharField, find_stat, parse_field, parse_stats, show_field

if TYPE_CHECKING:
    from gmdesk.core.session import Character
    from gmdesk.core.systems.spec import SystemSpec

#: the row kinds of this section (``Row.kind`` in the pane)
FIELD = "sysfield"  # key: the field's name
ENTRY = "stat-entry"  # key: (stats field name, entry name)
OTHER = "sysfield-other"  # key: the name of a stored field the system does not declare
ADD = "add"  # key: (ADD_STATS, stats field name), the pane's "+ add" rows
ADD_STATS = "stats"

NONE_SHOWN = "—"

#: the title over the declared fields that are not tables of named values
SCALARS_TITLE = "Rolls with"

#: a ``+ add to LABEL`` row names a label up to this long (the pane is narrow at 80×24)
ADD_LABEL_MAX = 12


@dataclass(frozen=True)
class Line:
    """One row of the section: what the pane's ``Row`` is made of, and its two cells."""

    kind: str
    key: Any
    what: str | Text
    value: str


def stored(ch: Character) -> Mapping[str, Any]:
    """The character's stored field values (name → value)."""
    return getattr(ch, "fields", None) or {}


def shown(field: CharField, value: Any) -> str:
    """A field's value as the pane writes it (yes / no, a number, a ladder's word…);
    "—" for none."""
    if value is None or value == "":
        return NONE_SHOWN
    return show_field(field, value) or NONE_SHOWN


def shown_entry(field: CharField, value: Any) -> str:
    """One named value of a ``stats`` field as the pane writes it."""
    if value is None or value == "":
        return NONE_SHOWN
    if field.show is not None:
        try:
            return str(field.show(value))
        except Exception:
            return str(value)
    return str(value)


def entries(ch: Character, field: CharField) -> Mapping[str, Any]:
    value = stored(ch).get(field.name)
    return value if isinstance(value, Mapping) else {}


def short_label(spec: SystemSpec, name: str) -> str | None:
    """A ``stat`` field's label without the word that names its table, for a pane too
    narrow for ``Initiative trait: Perception`` on one line: "Initiative" (its table is
    "Traits"), "Attack" ("Attack skill", its table "Attributes and skills"); None when
    the label has no such word."""
    by_name = {f.name: f for f in spec.character_fields}
    field = by_name.get(name)
    table = by_name.get(field.stats or "") if field is not None and field.type == "stat" else None
    if field is None or table is None:
        return None
    head, _, last = field.label.rpartition(" ")
    kind = table.label.split()[-1].lower() if table.label.split() else ""
    if head and last.lower() in (kind, kind.removesuffix("s")):
        return head
    return None


def lines(spec: SystemSpec, ch: Character) -> list[Line]:
    """The section's rows for ``ch``: the declared single-valued fields under
    "Rolls with", then one block per ``stats`` field; then, so that nothing entered ever
    disappears, what the character holds for fields the system does not declare (a
    session whose system was changed)."""
    values = stored(ch)
    declared = spec.character_fields
    out: list[Line] = []
    scalars = [f for f in declared if f.type != "stats"]
    if scalars:
        out.append(Line("head", None, Text(f"── {SCALARS_TITLE}", style="bold"), ""))
    by_name = {f.name: f for f in declared}
    for f in scalars:
        value = values.get(f.name, f.default)
        if f.type == "stat":
            stats_field = by_name.get(f.stats or "")
            table = entries(ch, stats_field) if stats_field is not None else {}
            entry = find_stat(table, str(value)) if value not in (None, "") else None
            if value in (None, ""):
                out.append(Line(FIELD, f.name, f.label, NONE_SHOWN))
            elif entry is None or stats_field is None:
                out.append(Line(FIELD, f.name, f"{f.label}: {value}", NONE_SHOWN))
            else:
                out.append(Line(FIELD, f.name, f"{f.label}: {entry}", shown_entry(stats_field, table[entry])))
        else:
            out.append(Line(FIELD, f.name, f.label, shown(f, value)))
    for f in declared:
        if f.type != "stats":
            continue
        out.append(Line("head", None, Text(f"── {f.label}", style="bold"), ""))
        for name, value in entries(ch, f).items():
            out.append(Line(ENTRY, (f.name, name), f"  {name}", shown_entry(f, value)))
        add = f"+ add to {f.label}" if len(f.label) <= ADD_LABEL_MAX else "+ add"
        out.append(Line(ADD, (ADD_STATS, f.name), Text(add, style="dim italic"), ""))
    others = [k for k in values if k not in by_name]
    if others:
        out.append(Line("head", None, Text("── Other fields", style="bold"), ""))
        for name in others:
            value = values[name]
            text = ", ".join(f"{k} {v}" for k, v in value.items()) if isinstance(value, Mapping) else str(value)
            out.append(Line(OTHER, name, name, text))
    return out


# -------------------------------------------------------------------------- editing


def prompt(spec: SystemSpec, ch: Character, kind: str, key: Any) -> tuple[str, str]:
    """The editor's prompt and starting text for a row of the section."""
    if kind == FIELD:
        f = _field(spec, key)
        value = stored(ch).get(f.name, f.default)
        start = "" if value is None else show_field(f, value)
        if f.type == "stat":
            names = list(entries(ch, _field(spec, f.stats or "")))
            hint = ", ".join(names) if names else f"add to {_field(spec, f.stats or '').label} first"
            return f"{f.label} ({hint})", start
        if f.type == "choice":
            return f"{f.label}: one of {', '.join(f.choices)}", start
        return f"{f.label}{_hint(f)}", start
    if kind == ENTRY:
        fname, name = key
        f = _field(spec, fname)
        return f"{f.label}: name value", f"{name} {shown_entry(f, entries(ch, f).get(name))}"
    f = _field(spec, key[1])
    return f"New in {f.label}: name value, e.g. {_example(f)}", ""


def edit(spec: SystemSpec, ch: Character, kind: str, key: Any, text: str) -> tuple[dict[str, Any], str]:
    """The ``character.fields`` event the typed ``text`` makes of the row, and what
    to say once it is saved. ParamError (naming the field's label) for a bad value."""
    if kind == FIELD:
        f = _field(spec, key)
        value = read(f, text, ch, spec)
        return _event(ch, {f.name: value}), f"{ch.name}: {f.label} {_said(f, value, ch, spec)}"
    f = _field(spec, key[0] if kind == ENTRY else key[1])
    name, value = read_entry(f, text)
    table = dict(entries(ch, f))
    changes: dict[str, Any] = {}
    old = key[1] if kind == ENTRY else None
    clash = find_stat(table, name)
    if clash is not None and clash != old:
        if old is not None:
            raise ParamError(f.label, f"{clash} is already there: change its own row")
        old = clash  # typed again on "+ add": the new value replaces the old one
    if old is not None and old != name:
        changes.update(_renamed(spec, ch, f, old, name))
        table = {(name if k == old else k): v for k, v in table.items()}
    table[name] = value
    changes[f.name] = table
    return _event(ch, changes), f"{ch.name}: {name} {shown_entry(f, value)}"


def toggle(spec: SystemSpec, ch: Character, key: Any) -> tuple[dict[str, Any], str] | None:
    """Enter on a yes / no field flips it (like the pane's other yes / no rows)."""
    f = _field(spec, key)
    if f.type != "bool":
        return None
    value = not bool(stored(ch).get(f.name, f.default))
    return _event(ch, {f.name: value}), f"{ch.name}: {f.label} {shown(f, value)}"


def remove(spec: SystemSpec, ch: Character, kind: str, key: Any) -> tuple[dict[str, Any], str] | None:
    """Delete on a row: a named value leaves its table (a field picking it is
    cleared too), a field is cleared; None when there is nothing to remove."""
    if kind == ENTRY:
        fname, name = key
        f = _field(spec, fname)
        table = {k: v for k, v in entries(ch, f).items() if k != name}
        changes: dict[str, Any] = {f.name: table or None}
        picked = _picking(spec, ch, f, name)
        changes.update(dict.fromkeys(picked))
        also = f" ({', '.join(_field(spec, p).label for p in picked)} cleared)" if picked else ""
        return _event(ch, changes), f"{ch.name}: {name} removed{also}"
    if kind in (FIELD, OTHER):
        if stored(ch).get(key) is None:
            return None
        label = _field(spec, key).label if kind == FIELD else key
        return _event(ch, {key: None}), f"{ch.name}: {label} cleared"
    return None


def read(f: CharField, text: str, ch: Character, spec: SystemSpec) -> Any:
    """A field's typed value by its declared type, or the system's own reading."""
    text = text.strip()
    if not text:
        return None
    if f.type == "stat":
        table = entries(ch, _field(spec, f.stats or ""))
        entry = find_stat(table, text)
        if entry is None:
            raise ParamError(f.label, f"no {text!r} in {_field(spec, f.stats or '').label}")
        return entry
    return _labelled(f, lambda: parse_field(f, text))


def read_entry(f: CharField, text: str) -> tuple[str, Any]:
    """``"Fire Combat 13"`` (or ``Fire Combat = 13``, ``Fire Combat: 13``) → the
    entry's name and its value, read as the stats field's values are."""
    text = text.strip()
    for sep in ("=", ":"):
        if sep in text:
            name, _, raw = text.rpartition(sep)
            break
    else:
        name, _, raw = text.rpartition(" ")
    name, raw = name.strip(), raw.strip()
    if not name or not raw:
        raise ParamError(f.label, f"type a name and a value, e.g. {_example(f)}")
    ((name, value),) = _labelled(f, lambda: parse_stats(f, {name: raw})).items()
    return name, value


# ------------------------------------------------------------------------------ helpers


def _event(ch: Character, changes: dict[str, Any]) -> dict[str, Any]:
    return {"type": "character.fields", "id": ch.id, "set": changes}


def _field(spec: SystemSpec, name: str) -> CharField:
    f = spec.field(name)
    if f is None:
        raise ParamError(name, "is no field of this system")
    return f


def _labelled(f: CharField, read_it: Callable[[], Any]) -> Any:
    """``read_it()``; its error says the field's label, not a parameter name."""
    try:
        return read_it()
    except ParamError as e:
        message = str(e)
        prefix = f"{e.option}: "
        raise ParamError(f.label, message[len(prefix) :] if message.startswith(prefix) else message) from None
    except GmdeskError as e:
        raise ParamError(f.label, str(e)) from None


def _hint(f: CharField) -> str:
    if f.placeholder:
        return f", e.g. {f.placeholder}"
    if f.type == "int":
        if f.lo is not None and f.hi is not None:
            return f" ({f.lo} to {f.hi})"
        return ": a whole number"
    return f": {f.help}" if f.help else ""


def _example(f: CharField) -> str:
    """An entry as typed here (``Blades 2``), from the declared example (``Blades=2, …``)."""
    first = f.placeholder.split(",")[0].strip()
    name, sep, value = first.partition("=")
    return f"{name.strip()} {value.strip()}" if sep and name.strip() and value.strip() else "Stealth 2"


def _said(f: CharField, value: Any, ch: Character, spec: SystemSpec) -> str:
    if f.type == "stat" and value is not None:
        table = entries(ch, _field(spec, f.stats or ""))
        return f"{value} ({shown_entry(_field(spec, f.stats or ''), table.get(value))})"
    return shown(f, value) if value is not None else "cleared"


def _picking(spec: SystemSpec, ch: Character, stats: CharField, name: str) -> list[str]:
    """The ``stat`` fields of ``ch`` that pick the entry ``name`` of ``stats``."""
    values = stored(ch)
    return [
        f.name
        for f in spec.character_fields
        if f.type == "stat" and f.stats == stats.name and str(values.get(f.name) or "").casefold() == name.casefold()
    ]


def _renamed(spec: SystemSpec, ch: Character, stats: CharField, old: str, new: str) -> dict[str, Any]:
    """A renamed entry: the fields picking it follow it."""
    return dict.fromkeys(_picking(spec, ch, stats, old), new)
