"""FUDGE alternate dice (``fudge``): the ladder and the dice methods — what each method
rolls (the dice and the result r) and r's exact distribution (:mod:`core.systems.fudge`
declares the system, its parameters, outcomes, odds and character fields; the methods
are described there).

The exact odds and ``fractions`` are imported where a distribution is built: a roll
needs neither."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from gmdesk.core.dice import Die, shared_die
from gmdesk.core.errors import ParamError, TableError
from gmdesk.core.systems.base import parse_choice, shown
from gmdesk.core.tables import BandTable, load_builtin
from gmdesk.core.text import MINUS

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from gmdesk.core.dice import RandomSource
    from gmdesk.core.odds import Dist

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "Rolled",
    "distribution",
    "ladder_name",
    "method_roll",
    "parse_level",
    "result_range",
    "sorted_distribution",
]

METHODS = ("2d3", "custom", "d20", "d20-open", "d30", "d12")
DEFAULT_METHOD = "2d3"

_MINUS = MINUS


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


# --------------------------------------------------------------------------- ladder


def _ladder() -> BandTable:
    t = load_builtin("fudge-ladder")
    if not isinstance(t, BandTable):  # pragma: no cover - shipped data
        raise TableError("fudge-ladder must be a band table")
    return t


@cache
def _ladder_levels() -> tuple[tuple[int, str], ...]:
    """(level, name) for every named rung, lowest first."""
    return tuple(sorted((lo, str(name)) for lo, hi, name in _ladder().bands if lo is not None and lo == hi))


def ladder_name(level: int) -> str:
    """The ladder's name for a level: "Fair", "Great"; beyond the ends "Superb +1", "Terrible −2"."""
    rungs = _ladder_levels()
    (bottom, bottom_name), (top, top_name) = rungs[0], rungs[-1]
    if level > top:
        return f"{top_name} +{level - top}"
    if level < bottom:
        return f"{bottom_name} {_MINUS}{bottom - level}"
    return str(_ladder().lookup(level))


_NUMBER = re.compile(r"^[+\-\u2212]?\s*\d+$")
_NAMED = re.compile(r"^([A-Za-z]+)\s*(?:([+\-\u2212])\s*(\d+))?$")


def parse_level(option: str, text: Any) -> int:
    """A ladder level from a name ("great", "Superb +1", "Terrible −1") or a number ("+2")."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    s = str(text).strip() if isinstance(text, str) else ""
    if _NUMBER.match(s):
        return int(s.replace(_MINUS, "-").replace(" ", ""))
    m = _NAMED.match(s)
    if m:
        names = {name.lower(): level for level, name in _ladder_levels()}
        level = names.get(m.group(1).lower())
        if level is not None:
            if m.group(3) is not None:
                offset = int(m.group(3))
                level += -offset if m.group(2) in ("-", _MINUS) else offset
            return level
    ladder = ", ".join(name for _, name in _ladder_levels())
    raise ParamError(
        option,
        f"must be a ladder level ({ladder}; beyond the ends e.g. 'Superb +1') or a whole number (got {shown(text)})",
    )


# --------------------------------------------------------------------------- methods


def _table(name: str) -> BandTable:
    t = load_builtin(name)
    if not isinstance(t, BandTable):  # pragma: no cover - shipped data
        raise TableError(f"{name} must be a band table")
    return t


def _read(name: str, x: int) -> int:
    return int(_table(name).lookup(x))


Rolled = tuple[list[Die], int, dict[str, "Any"]]  # dice, r, extra fields of the method


def _roll_2d3(rng: RandomSource) -> Rolled:
    dice = [shared_die(rng.randint(1, 3), role, 3) for role in ("positive", "positive", "negative", "negative")]
    r = sum(d.value if d.role == "positive" else -d.value for d in dice)
    return dice, r, {}


def _roll_custom(rng: RandomSource) -> Rolled:
    dice = [shared_die(rng.randint(1, 6), "die", 6) for _ in range(2)]
    faces = [_read("fudge-custom", d.value) for d in dice]
    return dice, sum(faces), {"faces": faces}


def _d20_second(first: int, second: int, open_ended: bool) -> int:
    """After a 1 or a 20: a second result of the same sign adds (open) or pushes one step."""
    if _sign(second) != _sign(first):
        return first
    return first + second if open_ended else first + _sign(first)


_D20_AGAIN = (1, 20)  # the faces that are rolled again: the die's lowest and highest


def _roll_d20(rng: RandomSource, open_ended: bool) -> Rolled:
    face = rng.randint(1, 20)
    dice = [shared_die(face, "die", 20)]
    r = _read("fudge-d20", face)
    if face in _D20_AGAIN:
        again = rng.randint(1, 20)
        dice.append(shared_die(again, "reroll", 20))
        r = _d20_second(r, _read("fudge-d20", again), open_ended)
    return dice, r, {}


def _roll_d30(rng: RandomSource) -> Rolled:
    face = rng.randint(1, 30)
    return [shared_die(face, "die", 30)], _read("fudge-d30", face), {}


def _roll_d12(rng: RandomSource) -> Rolled:
    a, b = rng.randint(1, 12), rng.randint(1, 12)
    dice = [shared_die(a, "positive", 12), shared_die(b, "negative", 12)]
    return dice, _read("fudge-d12", a - b), {"difference": a - b}


def _d20_then(first: int, open_ended: bool) -> Callable[[int], int]:
    """The result once the second d20 shows ``s``, after a first result ``first``."""
    return lambda s: _d20_second(first, _read("fudge-d20", s), open_ended)


def _dist_d20(open_ended: bool) -> Dist:
    from fractions import Fraction

    from gmdesk.core.odds import die, mix, remap

    parts = []
    for face in range(1, 21):
        first = _read("fudge-d20", face)
        if face in _D20_AGAIN:
            parts.append((Fraction(1, 20), remap(die(20), _d20_then(first, open_ended))))
        else:
            parts.append((Fraction(1, 20), {first: Fraction(1)}))
    return mix(parts)


#: method -> its roll
_METHODS: dict[str, Callable[[RandomSource], Rolled]] = {
    "2d3": _roll_2d3,
    "custom": _roll_custom,
    "d20": lambda rng: _roll_d20(rng, False),
    "d20-open": lambda rng: _roll_d20(rng, True),
    "d30": _roll_d30,
    "d12": _roll_d12,
}
assert tuple(_METHODS) == METHODS


@cache
def _dist(method: str) -> tuple[tuple[int, Fraction], ...]:
    """r's exact distribution, ascending (the odds are imported here: a roll needs none)."""
    from gmdesk.core.odds import die, remap, repeat, sub

    exact: dict[str, Callable[[], Dist]] = {
        "2d3": lambda: sub(repeat(die(3), 2), repeat(die(3), 2)),
        "custom": lambda: repeat(remap(die(6), lambda f: _read("fudge-custom", f)), 2),
        "d20": lambda: _dist_d20(False),
        "d20-open": lambda: _dist_d20(True),
        "d30": lambda: remap(die(30), lambda f: _read("fudge-d30", f)),
        "d12": lambda: remap(sub(die(12), die(12)), lambda x: _read("fudge-d12", x)),
    }
    return tuple(sorted(exact[method]().items()))


def distribution(method: str) -> dict[int, Fraction]:
    """Exact distribution of r for a method."""
    parse_choice("--method", method, METHODS)
    return dict(_dist(method))


def result_range(method: str) -> tuple[int, int]:
    """The lowest and highest r a method can give."""
    d = _dist(parse_choice("--method", method, METHODS))
    return d[0][0], d[-1][0]


def method_roll(method: str) -> Callable[[RandomSource], Rolled]:
    """The roll of a method (its name already checked)."""
    return _METHODS[method]


def sorted_distribution(method: str) -> tuple[tuple[int, Fraction], ...]:
    """r's exact distribution of a method (its name already checked), ascending."""
    return _dist(method)
