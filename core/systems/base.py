"""Small helpers the dice-system modules share: reading whole numbers and choices
with one-line messages, the combat fields every Params has, and the Combat table.

What a system module declares (its parameters, character fields, moves, hooks) is
described in :mod:`core.systems.spec`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gmdesk.core.dice import Descriptor
from gmdesk.core.errors import ParamError
from gmdesk.core.tables import TableSet

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from _typeshed import DataclassInstance

    _D = TypeVar("_D", bound=DataclassInstance)

KINDS = ("organic", "inorganic")


def check_kind(option: str, value: str) -> str:
    if value not in KINDS:
        raise ParamError(option, f"must be one of {', '.join(KINDS)} (got {shown(value)})")
    return value


#: the widest whole number an option takes when it names no bounds of its own: far
#: beyond any roll, small enough that every saved number reads back (JSON, Python)
INT_LIMIT = 1_000_000
#: digits of a number worth reading at all (the rest is a typo or an attack)
_MAX_DIGITS = 20


def shown(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a far smaller number" if value < 0 else "a far larger number"
    text = repr(value)
    return text if len(text) <= 24 else text[:20] + "…" + text[-3:]


def parse_int(option: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """An integer option (accepts ``"+2"``), checked against inclusive bounds; an
    option without bounds of its own takes ±``INT_LIMIT``. The message quotes a
    long value shortened (one line, whatever was typed)."""
    lo = -INT_LIMIT if lo is None else lo
    hi = INT_LIMIT if hi is None else hi
    if isinstance(value, bool):
        raise ParamError(option, f"must be a whole number (got {shown(value)})")
    if isinstance(value, int):
        n = value
    else:
        text = str(value).strip().replace("−", "-")
        if len(text.lstrip("+-").lstrip("0")) > _MAX_DIGITS:
            raise ParamError(option, f"must be a whole number{_range(lo, hi)} (got {shown(value)})")
        try:
            n = int(text)
        except ValueError:
            raise ParamError(option, f"must be a whole number{_range(lo, hi)} (got {shown(value)})") from None
    if n < lo or n > hi:
        raise ParamError(option, f"must be a whole number{_range(lo, hi)} (got {shown(n)})")
    return n


def parse_choice(option: str, value: Any, choices: tuple[str, ...] | list[str]) -> str:
    if value not in choices:
        raise ParamError(option, f"must be one of {', '.join(choices)} (got {shown(value)})")
    return str(value)


def _range(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f" from {lo} to {hi}"
    if lo is not None:
        return f" ≥ {lo}"
    if hi is not None:
        return f" ≤ {hi}"
    return ""


@dataclasses.dataclass(frozen=True)
class CombatFields:
    """Fields every Params has. Subclass and add the system's own (with defaults)."""

    combat: bool = False
    target_kind: str = "organic"
    attacker_kind: str = "organic"

    def _check_combat(self) -> None:
        for name in ("target_kind", "attacker_kind"):  # an empty kind is the default, organic
            if getattr(self, name) in (None, ""):
                object.__setattr__(self, name, "organic")
        check_kind("--target-kind", self.target_kind)
        check_kind("--attacker-kind", self.attacker_kind)


#: the types a field of a system's Params holds as it is (immutable: ``asdict`` keeps them)
_SCALARS = frozenset({str, int, float, bool, type(None)})
#: each Params class's field names, in order (read once: a roll asks for them each time)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_FIELD_SETS: dict[type, frozenset[str]] = {}


def dataclass_to_json(params: DataclassInstance) -> dict[str, Any]:
    """``dataclasses.asdict(params)``: the same dict, made directly for the flat Params
    every system declares (fields of text, numbers, true/false/None, tuples of them);
    anything else goes through ``asdict``."""
    cls = type(params)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(params))
    out: dict[str, Any] = {}
    for name in names:
        value = getattr(params, name)
        t = type(value)
        if t not in _SCALARS and not (t is tuple and all(type(v) in _SCALARS for v in value)):
            return dataclasses.asdict(params)
        out[name] = value
    return out


def dataclass_from_json(cls: type[_D], data: Mapping[str, Any]) -> _D:
    names = _FIELD_SETS.get(cls)
    if names is None:
        names = _FIELD_SETS[cls] = frozenset(f.name for f in dataclasses.fields(cls))
    unknown = set(data) - names
    if unknown:
        raise ParamError(sorted(unknown)[0], "unknown parameter for this system")
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items()}
    return cls(**kwargs)


def combat_descriptor(
    tables: TableSet, row: int, *, applies_to: str, receiver_kind: str, role: str = "combat"
) -> Descriptor:
    """Read a row of the (4d2) Combat table in the receiver's kind column.

    Rows 0 ("Ongoing combat story") and -1 ("Nil") are not wounds."""
    table = tables.descriptor_table(role)
    return Descriptor(
        text=table.lookup(row, receiver_kind),
        applies_to=applies_to,
        row=row,
        table=table.name,
        column=receiver_kind if len(table.columns) > 1 else table.columns[0],
        wound=row not in (0, -1),
    )
