"""Values read by their declaration: a roll parameter's or a character field's value
checked by its type (``ParamError`` naming it otherwise), a ``stats`` table read and
shown, and the validating ``Params`` class generated for a system without its own."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from gmdesk.core.errors import ParamError
from gmdesk.core.systems.declare import CharField, Param

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any


def check_value(p: Param | CharField, value: Any) -> Any:
    """A value of a parameter or field read by its declared type (``ParamError``
    naming the CLI option / the field otherwise): ``None`` for an empty optional."""
    from gmdesk.core.systems.base import parse_choice, parse_int

    option = p.cli_option if isinstance(p, Param) else p.name
    if value is None or (isinstance(value, str) and not value.strip()):
        if isinstance(p, Param) and not p.optional and p.type != "text":
            return p.default
        return None if (isinstance(p, CharField) or p.optional) else p.default
    if p.type == "int":
        return parse_int(option, value, p.lo, p.hi)
    if p.type == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on", "y"):
            return True
        if text in ("0", "false", "no", "off", "n"):
            return False
        raise ParamError(option, f"must be yes or no (got {value!r})")
    if p.type == "choice":
        text = str(value).strip()
        match = next((c for c in p.choices if c.casefold() == text.casefold()), text)
        return parse_choice(option, match, p.choices)
    return str(value).strip() if isinstance(value, str) else value


def _entry(f: CharField, value: Any, option: str) -> Any:
    """One value of a field (or of one entry of a ``stats`` field) read by its
    declaration: the field's ``parse``, else its type (a ``stats`` entry is a whole
    number unless ``parse`` says otherwise)."""
    from gmdesk.core.systems.base import parse_choice, parse_int

    if f.parse is not None:
        return f.parse(option, value)
    if f.type in ("int", "stats"):
        return parse_int(option, value, f.lo, f.hi)
    if f.type == "bool":
        return check_value(Param(f.name, f.label, "bool", False, option=option), value)
    if f.type == "choice":
        text = str(value).strip()
        match = next((c for c in f.choices if c.casefold() == text.casefold()), text)
        return parse_choice(option, match, f.choices)
    return " ".join(str(value).split())


def parse_stats(f: CharField, value: Any) -> dict[str, Any]:
    """A ``stats`` field's value: a mapping, or text such as ``"Fire Combat=13,
    Dodge=11"`` (``:`` works as ``=``), each entry read by :func:`_entry`
    (``ParamError`` naming the field's label and the entry)."""
    if isinstance(value, Mapping):
        items = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, str):
        items = []
        for part in value.replace(";", ",").split(","):
            if not part.strip():
                continue
            name, sep, v = part.partition("=")
            if not sep:
                name, sep, v = part.rpartition(":")
            if not sep or not name.strip() or not v.strip():
                raise ParamError(
                    f.label,
                    f"write each entry as NAME=VALUE, e.g. {f.placeholder or 'Dodge=11'} (got {part.strip()!r})",
                )
            items.append((name, v.strip()))
    else:
        raise ParamError(f.label, f"must be entries NAME=VALUE (got {value!r})")
    out: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for name, v in items:
        name = " ".join(name.split())
        if not name:
            raise ParamError(f.label, "an entry has no name")
        key = name.casefold()
        if key in seen:
            raise ParamError(f.label, f"{name!r} is given twice")
        seen[key] = name
        try:
            out[name] = _entry(f, v, f.label)
        except ParamError as e:
            raise ParamError(f.label, f"{name}: {str(e).partition(': ')[2] or e}") from None
    return out


def parse_field(f: CharField, value: Any) -> Any:
    """A character field's value read by its declaration; ``None`` (or empty text)
    clears it. ``ParamError`` names the field's label. A ``stat`` is the name of an
    entry (checked against the character's ``stats`` field by whoever holds it)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if f.type == "stats":
        out = parse_stats(f, value)
        return out or None
    if f.type == "stat":
        if not isinstance(value, str):
            raise ParamError(f.label, f"must name one entry of {f.stats} (got {value!r})")
        return " ".join(value.split())
    return _entry(f, value, f.label)


def show_field(f: CharField, value: Any) -> str:
    """How a field's value reads (a ``stats`` field: ``"Fire Combat=13, Dodge=11"``);
    empty for no value."""
    if value is None:
        return ""

    def one(v: Any) -> str:
        if f.show is not None:
            try:
                return f.show(v)
            except Exception:
                return str(v)
        return str(v)

    if f.type == "stats" and isinstance(value, Mapping):
        return ", ".join(f"{k}={one(v)}" for k, v in value.items())
    if f.type == "stat":
        return str(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return one(value)


def find_stat(stats: Mapping[str, Any] | None, name: str) -> str | None:
    """The key of the entry of ``stats`` that ``name`` names (case and spacing
    ignored), or None."""
    if not stats or not isinstance(name, str):
        return None
    key = " ".join(name.split()).casefold()
    return next((k for k in stats if " ".join(str(k).split()).casefold() == key), None)


def params_class(spec_params: Sequence[Param], check: Callable[[Any], None] | None = None) -> type:
    """A frozen dataclass validating ``spec_params`` (and the common combat
    parameters) by their declared types, for a system that declares no ``Params`` of
    its own; ``check(params)`` adds the system's rules across parameters."""
    from typing import Any  # (a field's type: a plug-in's Params only, never a built-in's)

    from gmdesk.core.systems.base import CombatFields

    spec_params = [p for p in spec_params if not p.form_only]
    fields = [(p.name, Any, dataclasses.field(default=p.default)) for p in spec_params]

    def __post_init__(self: Any) -> None:
        for p in spec_params:
            object.__setattr__(self, p.name, check_value(p, getattr(self, p.name)))
        if not isinstance(self.combat, bool):
            raise ParamError("--combat", f"must be true or false (got {self.combat!r})")
        self._check_combat()
        if check is not None:
            try:
                check(self)
            except ParamError as e:  # a parameter named by its name reads as its option, as the types' refusals
                named = next((p for p in spec_params if p.name == e.option), None)
                if named is None:
                    raise
                raise ParamError(named.cli_option, e.message) from None

    return dataclasses.make_dataclass(
        "Params", fields, bases=(CombatFields,), frozen=True, namespace={"__post_init__": __post_init__}
    )
