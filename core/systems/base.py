"""What every dice-system module provides, and small shared helpers.

Each system lives in its own module under ``core/systems`` and exposes:

``ID`` / ``NAME``
    the identifier used by the CLI and the saves (``"4d2"``…) and a display name.
``Params``
    a frozen dataclass of everything a roll needs, validated in ``__post_init__``
    (raise :class:`core.errors.ParamError` naming the CLI option and the allowed
    values). It includes the combat fields of :class:`CombatFields`.
``params_to_json(params) -> dict`` / ``params_from_json(dict) -> Params``
    lossless, used by records and saves.
``PARAMS``
    the declared roll parameters (:mod:`core.systems.spec`); the CLI options are
    generated from them (:mod:`core.systems.options`) and every typed value is read
    by ``Params``, so that bad input becomes a ParamError, never an argparse message.
``roll(params, rng, tables=DEFAULT_TABLES) -> RollRecord``
    pure: the same params and dice give the same record.
``odds(params, tables=DEFAULT_TABLES) -> Odds``
    exact distribution of the headline value and of the named outcomes.
``initiative(rng, modifier=0) -> RollRecord``
    the system's initiative roll (RULES.md "Initiative"); ``record.value`` is the
    initiative.
``CHARACTER_SECTIONS``
    the parts of a character the system reads or writes (a frozenset of names from
    :data:`SECTIONS`). The desk's character pane shows these and no others, so that
    the GM never fills in a field the session's rules ignore.
``SECRET_PARAMS`` (optional)
    the parameters (and record fields of the same names) that are the GM's secret,
    in the order the GM's own log line names them; the players' views leave them
    out (:func:`core.systems.public_json`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Protocol

from gmdesk.core.dice import Descriptor, RandomSource, RollRecord
from gmdesk.core.errors import ParamError
from gmdesk.core.odds import Odds
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

KINDS = ("organic", "inorganic")

#: Every part of a character a system may use (``CHARACTER_SECTIONS``):
#: ``vitality`` (Vitality current/default), ``possibilities`` (Possibilities and the
#: reality-rated flag), ``advantage`` / ``shift`` (the two kinds of tracked sources),
#: ``conditions``, ``wounds`` (damage descriptors taken) and ``sheet`` (the 1d6x4
#: Character Descriptor Sheet with its uses).
SECTIONS = ("vitality", "possibilities", "advantage", "shift", "conditions", "wounds", "sheet")


class System(Protocol):  # pragma: no cover - typing only
    ID: str
    NAME: str
    Params: type

    def params_to_json(self, params: Any) -> dict: ...
    def params_from_json(self, data: Mapping[str, Any]) -> Any: ...
    def roll(self, params: Any, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord: ...
    def odds(self, params: Any, tables: TableSet = DEFAULT_TABLES) -> Odds: ...
    def initiative(self, rng: RandomSource, modifier: int = 0) -> RollRecord: ...


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
    return value


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


def dataclass_to_json(params: Any) -> dict:
    return dataclasses.asdict(params)


def dataclass_from_json(cls: type, data: Mapping[str, Any]) -> Any:
    names = {f.name for f in dataclasses.fields(cls)}
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
