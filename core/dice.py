"""Random sources, dice and the immutable roll record every system returns.

A roll is a pure function of its parameters and a random source. The source is
anything with ``randint(a, b)`` — ``random.Random(seed)`` in play, ``FixedDice`` in
tests and worked examples. Nothing in gmdesk calls the module-level ``random``
functions.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

    from gmdesk.core.randomsource import RandomSource as RandomSource
else:

    def __getattr__(name: str) -> object:
        """:class:`~gmdesk.core.randomsource.RandomSource`, the type of a roll's dice
        (a typing Protocol), loaded when asked: a roll itself never loads typing."""
        if name == "RandomSource":
            from gmdesk.core.randomsource import RandomSource

            return RandomSource
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Every role a die can play in a record.
ROLES = (
    "positive",  # 4d2 positive pair
    "negative",  # 4d2 negative pair
    "hot",  # torg hot (red) die
    "cold",  # torg cold (blue) die
    "kept",  # 4d6 die kept
    "dropped",  # 4d6 die dropped (advantage / disadvantage)
    "reroll",  # torg maxing reroll, fudge d20 second roll
    "up",  # torg Up die
    "possibility",  # torg Possibility die
    "die",  # a plain die (fudge, 1d6x4, d4 of generation, vitality adjustment)
)


def make_rng(seed: int | None = None) -> random.Random:
    """A seedable source for play: ``make_rng(7)`` replays the same dice."""
    return random.Random(seed)


#: the environment variable that fixes the desk's dice (``GMDESK_SEED=7 gmdesk SAVE``)
SEED_VARIABLE = "GMDESK_SEED"


def desk_seed(environ: Mapping[str, str] | None = None) -> int | None:
    """The seed of the desk's dice from ``$GMDESK_SEED`` (a whole number), or None
    when it is not set: the same seed and the same keys give the same rolls, for
    tests and bug reports. ValueError names the variable when it is not a number."""
    import os

    value = (os.environ if environ is None else environ).get(SEED_VARIABLE, "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{SEED_VARIABLE} must be a whole number, not {value!r}") from None


class DiceExhausted(AssertionError):
    """A FixedDice script ran out: the test scripted too few dice."""


class FixedDice:
    """Scripted dice: returns the given faces in order, checking each fits the die.

    >>> d = FixedDice([6, 1]); d.randint(1, 6), d.randint(1, 6)
    (6, 1)
    """

    def __init__(self, faces: Iterable[int]):
        self._faces = list(faces)
        self._i = 0

    def randint(self, a: int, b: int) -> int:
        if self._i >= len(self._faces):
            raise DiceExhausted(f"scripted dice exhausted after {self._i} dice")
        v = self._faces[self._i]
        self._i += 1
        if not a <= v <= b:
            raise ValueError(f"scripted die {v} does not fit d{b} (range {a}..{b})")
        return v

    @property
    def used(self) -> int:
        return self._i

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._i


def roll_die(rng: RandomSource, sides: int) -> int:
    return rng.randint(1, sides)


def freeze(value: Any) -> Any:
    """Deep-freeze JSON-like data: dicts become read-only mappings, lists tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Inverse of :func:`freeze`: plain dicts and lists, ready for ``json.dumps``."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class Die:
    """One die as rolled: its face, its role in the roll and how many sides it had."""

    value: int
    role: str
    sides: int = 6

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown die role {self.role!r}")

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "role": self.role, "sides": self.sides}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Die:
        return cls(int(data["value"]), str(data["role"]), int(data.get("sides", 6)))


@dataclass(frozen=True)
class Descriptor:
    """What a combat (or maneuver) roll did: the table text and who receives it.

    ``row`` is the row of the table read (e.g. the 4d2 Outcome value), ``table`` and
    ``column`` say which table and column (``organic`` / ``inorganic``) gave the text.
    ``amount`` carries a numeric effect where the system has one (1d6x4 Vitality
    Adjustment, fudge damage). ``wound`` is False for results that leave no mark on
    the receiver (4d2 "Nil", "Ongoing combat story", a miss, a maneuver result):
    the session piles up only descriptors with ``wound`` True. What a wound does to
    its receiver (Vitality, Unconscious, Dead) is its system's declaration
    (``HARM``, :mod:`gmdesk.core.systems.harm`).
    """

    text: str
    applies_to: str  # "target" | "attacker"
    row: int | None = None
    table: str = ""
    column: str = ""
    amount: int | None = None
    wound: bool = True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "applies_to": self.applies_to, "row": self.row, "wound": self.wound}
        if self.table:
            out["table"] = self.table
        if self.column:
            out["column"] = self.column
        if self.amount is not None:
            out["amount"] = self.amount
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Descriptor:
        return cls(
            text=str(data["text"]),
            applies_to=str(data["applies_to"]),
            row=data.get("row"),
            table=str(data.get("table", "")),
            column=str(data.get("column", "")),
            amount=data.get("amount"),
            wound=bool(data.get("wound", True)),
        )


_CORE_KEYS = ("system", "params", "dice", "value", "outcome", "descriptor", "descriptors")
_CORE_KEY_SET = frozenset(_CORE_KEYS)
#: a record's ``extra`` when it has none (read-only: shared)
_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class RollRecord:
    """The complete, immutable result of one roll.

    ``extra`` holds the system's own fields, flattened into the JSON object:
    ``number`` and ``shift`` (4d2), ``skill_chance``, ``margin``, ``success``,
    ``disconnection``, ``total``, ``opponent`` (a nested record dict for contests)…
    ``descriptors`` lists every descriptor the roll produced (a 4d6 Partial Success
    in combat gives one to the target and one to the attacker); the JSON field
    ``descriptor`` is the first of them.
    """

    system: str
    params: Mapping[str, Any]
    dice: tuple[Die, ...]
    value: int
    outcome: str
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    descriptors: tuple[Descriptor, ...] = ()

    def __init__(
        self,
        system: str,
        params: Mapping[str, Any],
        dice: tuple[Die, ...],
        value: int,
        outcome: str,
        extra: Mapping[str, Any] = _NO_EXTRA,
        descriptors: tuple[Descriptor, ...] = (),
    ) -> None:
        # (what the generated __init__ does, without a frozen setattr a field: a
        # system makes a record a roll)
        self.__dict__.update(
            system=system,
            params=params,
            dice=dice,
            value=value,
            outcome=outcome,
            extra=extra,
            descriptors=descriptors,
        )
        self.__post_init__()

    def __post_init__(self) -> None:
        # (_freeze_json: freeze, faster for the plain JSON values every system records;
        # a dict is copied by it, anything else made a dict first)
        d = self.__dict__
        params, extra = d["params"], d["extra"]
        d["params"] = _freeze_json(params if type(params) is dict else dict(params))
        extra = d["extra"] = _freeze_json(extra if type(extra) is dict else dict(extra))
        if type(d["dice"]) is not tuple:
            d["dice"] = tuple(d["dice"])
        if type(d["descriptors"]) is not tuple:
            d["descriptors"] = tuple(d["descriptors"])
        if not _CORE_KEY_SET.isdisjoint(extra):
            raise ValueError(f"extra fields clash with record fields: {sorted(set(extra) & _CORE_KEY_SET)}")

    @property
    def descriptor(self) -> Descriptor | None:
        return self.descriptors[0] if self.descriptors else None

    def get(self, key: str, default: Any = None) -> Any:
        return self.extra.get(key, default)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "params": _thaw_json(self.params),
            "dice": [d.to_json() for d in self.dice],
            "value": self.value,
            "outcome": self.outcome,
        }
        out.update(_thaw_json(self.extra))
        if self.descriptors:
            out["descriptor"] = self.descriptors[0].to_json()
            out["descriptors"] = [d.to_json() for d in self.descriptors]
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, sort_keys=False)

    @classmethod
    def from_trusted_json(cls, data: Mapping[str, Any]) -> RollRecord:
        """:meth:`from_json` for plain JSON data (what ``json.loads`` gives, e.g. a record
        gmdesk itself saved), several times faster: it freezes by exact type instead of
        going through the abstract ``Mapping`` checks and builds the parts directly.

        The result is always equal to ``from_json(data)``; anything that is not plain
        JSON of the usual shape simply goes through :meth:`from_json` (same errors)."""
        fast = _trusted_record(cls, data) if type(data) is dict else None
        return fast if fast is not None else cls.from_json(data)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RollRecord:
        descs: list[Descriptor] = []
        if "descriptors" in data:
            descs = [Descriptor.from_json(d) for d in data["descriptors"]]
        elif data.get("descriptor"):
            descs = [Descriptor.from_json(data["descriptor"])]
        extra = {k: v for k, v in data.items() if k not in _CORE_KEYS}
        return cls(
            system=str(data["system"]),
            params=dict(data.get("params", {})),
            dice=tuple(Die.from_json(d) for d in data.get("dice", ())),
            value=int(data["value"]),
            outcome=str(data["outcome"]),
            extra=extra,
            descriptors=tuple(descs),
        )


# --------------------------------------------------------------------------- fast JSON path


#: the exact types of the JSON values that freeze and thaw as they are
_SCALARS = frozenset({str, int, bool, float, type(None)})


def _freeze_json(value: Any) -> Any:
    """:func:`freeze` for plain JSON values (same result), by exact type."""
    t = type(value)
    if t is dict:  # (text, numbers, true/false and null inline: most values are)
        return MappingProxyType({k: v if type(v) in _SCALARS else _freeze_json(v) for k, v in value.items()})
    if t is list or t is tuple:
        return tuple([v if type(v) in _SCALARS else _freeze_json(v) for v in value])
    if t in _SCALARS:
        return value
    return freeze(value)


def _thaw_json(value: Any) -> Any:
    """:func:`thaw` (same result), by exact type for what a record holds."""
    t = type(value)
    if t is MappingProxyType or t is dict:
        return {k: v if type(v) in _SCALARS else _thaw_json(v) for k, v in value.items()}
    if t is tuple:
        return [v if type(v) in _SCALARS else _thaw_json(v) for v in value]
    if t in _SCALARS:
        return value
    return thaw(value)


_ROLE_SET = frozenset(ROLES)
_new = object.__new__


#: Dice are immutable values: the fast path shares one Die per (value, role, sides)
_DIE_CACHE: dict[tuple[object, object, object], Die] = {}  # (value, role, sides)


def shared_die(value: int, role: str, sides: int = 6) -> Die:
    """``Die(value, role, sides)`` (equal to it, and as immutable): the one shared die of
    that face, role and sides, made once (a roll makes several dice of the few there
    are). ValueError for an unknown role, as the Die itself."""
    if type(value) is int and type(sides) is int and type(role) is str:
        key = (value, role, sides)
        die = _DIE_CACHE.get(key)
        if die is None:
            die = Die(value, role, sides)
            if len(_DIE_CACHE) < 4096:
                _DIE_CACHE[key] = die
        return die
    return Die(value, role, sides)


def _trusted_die(d: Any) -> Die | None:
    if type(d) is not dict:
        return None
    value, role, sides = d.get("value"), d.get("role"), d.get("sides", 6)
    key = (value, role, sides)
    die = _DIE_CACHE.get(key)
    if die is not None and type(value) is int and type(sides) is int:
        return die
    if type(value) is not int or type(role) is not str or type(sides) is not int or role not in _ROLE_SET:
        return None
    die = _new(Die)
    die.__dict__.update(value=value, role=role, sides=sides)
    if len(_DIE_CACHE) < 4096:
        _DIE_CACHE[key] = die
    return die


def _trusted_descriptor(d: Any) -> Descriptor | None:
    if type(d) is not dict:
        return None
    text, applies_to = d.get("text"), d.get("applies_to")
    table, column, wound = d.get("table", ""), d.get("column", ""), d.get("wound", True)
    if (
        type(text) is not str
        or type(applies_to) is not str
        or type(table) is not str
        or type(column) is not str
        or type(wound) is not bool
    ):
        return None
    desc = _new(Descriptor)
    desc.__dict__.update(
        text=text,
        applies_to=applies_to,
        row=d.get("row"),
        table=table,
        column=column,
        amount=d.get("amount"),
        wound=wound,
    )
    return desc


def _trusted_record(cls: type[RollRecord], data: dict[str, Any]) -> RollRecord | None:
    """The record ``RollRecord.from_json(data)`` gives, or None when ``data`` is not
    plain JSON of the usual shape (the caller then takes the general path)."""
    system, value, outcome = data.get("system"), data.get("value"), data.get("outcome")
    params = data.get("params", {})
    dice = data.get("dice", ())
    if (
        type(system) is not str
        or type(value) is not int
        or type(outcome) is not str
        or type(params) is not dict
        or type(dice) not in (list, tuple)
    ):
        return None
    dies = []
    for d in dice:
        die = _trusted_die(d)
        if die is None:
            return None
        dies.append(die)
    descs = []
    if "descriptors" in data:
        raw = data["descriptors"]
        if type(raw) is not list:
            return None
        for d in raw:
            desc = _trusted_descriptor(d)
            if desc is None:
                return None
            descs.append(desc)
    elif data.get("descriptor"):
        desc = _trusted_descriptor(data["descriptor"])
        if desc is None:
            return None
        descs.append(desc)
    extra = {k: _freeze_json(v) for k, v in data.items() if k not in _CORE_KEYS}
    if type(cls) is not type or cls.__post_init__ is not RollRecord.__post_init__:
        return None
    rec = _new(cls)
    rec.__dict__.update(
        system=system,
        params=MappingProxyType({k: _freeze_json(v) for k, v in params.items()}),
        dice=tuple(dies),
        value=value,
        outcome=outcome,
        extra=MappingProxyType(extra),
        descriptors=tuple(descs),
    )
    return rec
