"""Exact distributions as ``{value: Fraction}`` and the ``Odds`` answer.

Helpers here are shared by every system's ``odds()``: a uniform die, sums and
differences of independent variables, mapping values through a table. Probabilities
stay exact (``fractions.Fraction``) until they are shown.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gmdesk.core.dice import freeze, thaw

Dist = dict[int, Fraction]


def uniform(values: Iterable[int]) -> Dist:
    vals = list(values)
    p = Fraction(1, len(vals))
    out: Dist = defaultdict(Fraction)
    for v in vals:
        out[v] += p
    return dict(out)


def die(sides: int) -> Dist:
    return uniform(range(1, sides + 1))


def combine(a: Mapping[int, Fraction], b: Mapping[int, Fraction], op: Callable[[int, int], int]) -> Dist:
    out: Dist = defaultdict(Fraction)
    for x, px in a.items():
        for y, py in b.items():
            out[op(x, y)] += px * py
    return dict(out)


def add(a: Mapping[int, Fraction], b: Mapping[int, Fraction]) -> Dist:
    return combine(a, b, lambda x, y: x + y)


def sub(a: Mapping[int, Fraction], b: Mapping[int, Fraction]) -> Dist:
    return combine(a, b, lambda x, y: x - y)


def repeat(d: Mapping[int, Fraction], n: int) -> Dist:
    out: Dist = {0: Fraction(1)}
    for _ in range(n):
        out = add(out, d)
    return out


def remap(d: Mapping[int, Fraction], f: Callable[[int], int]) -> Dist:
    out: Dist = defaultdict(Fraction)
    for x, p in d.items():
        out[f(x)] += p
    return dict(out)


def shift(d: Mapping[int, Fraction], k: int) -> Dist:
    return {x + k: p for x, p in d.items()}


def mix(parts: Iterable[tuple[Fraction, Mapping[int, Fraction]]]) -> Dist:
    """Weighted mixture: sum of p * dist."""
    out: Dist = defaultdict(Fraction)
    for w, d in parts:
        for x, p in d.items():
            out[x] += w * p
    return dict(out)


def prob(d: Mapping[int, Fraction], pred: Callable[[int], bool]) -> Fraction:
    return sum((p for x, p in d.items() if pred(x)), Fraction(0))


@dataclass(frozen=True)
class Odds:
    """Exact odds of one parameter set.

    ``distribution`` is ascending by value; ``outcomes`` lists the named results the
    parameters define, in the system's natural order (best first where that applies);
    ``tail`` is the probability mass left out by truncation (only torg-2d10's unbounded
    rerolls have any). ``sum(p) + tail == 1``.
    """

    system: str
    params: Mapping[str, Any]
    distribution: tuple[tuple[int, Fraction], ...]
    outcomes: tuple[tuple[str, Fraction], ...] = ()
    tail: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", freeze(dict(self.params)))
        object.__setattr__(self, "distribution", tuple(sorted((int(v), Fraction(p)) for v, p in self.distribution)))
        object.__setattr__(self, "outcomes", tuple((str(label), Fraction(p)) for label, p in self.outcomes))

    @classmethod
    def from_dist(
        cls,
        system: str,
        params: Mapping[str, Any],
        dist: Mapping[int, Fraction],
        outcomes: Iterable[tuple[str, Fraction]] = (),
        tail: Fraction = Fraction(0),
    ) -> Odds:
        return cls(system, params, tuple((v, p) for v, p in dist.items() if p), tuple(outcomes), Fraction(tail))

    def p(self, value: int) -> Fraction:
        return dict(self.distribution).get(value, Fraction(0))

    def outcome(self, label: str) -> Fraction:
        return dict(self.outcomes).get(label, Fraction(0))

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "params": thaw(self.params),
            "distribution": [{"value": v, "p": float(p)} for v, p in self.distribution],
            "outcomes": [{"label": label, "p": float(p)} for label, p in self.outcomes],
            "tail": float(self.tail),
        }


def outcomes_by(
    d: Mapping[int, Fraction], label_of: Callable[[int], str], order: Iterable[str]
) -> list[tuple[str, Fraction]]:
    """Sum a distribution into named outcomes, listed in ``order`` (labels with p=0 kept)."""
    acc: dict[str, Fraction] = defaultdict(Fraction)
    for x, p in d.items():
        acc[label_of(x)] += p
    return [(label, acc.get(label, Fraction(0))) for label in order]
