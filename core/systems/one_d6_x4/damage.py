"""1d6x4's dice: the d6 a Test or a heal rolls, and the damage formulas of the Vitality
Adjustment a hit deals (``d6``, ``2d4+1``, a plain number) — read, written back,
rolled and their exact distribution."""

from __future__ import annotations

import re

from gmdesk.core.dice import Die, roll_die, shared_die
from gmdesk.core.errors import ParamError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from gmdesk.core.dice import RandomSource

_FORMULA = re.compile(r"(?:(\d*)d(\d+))?\s*(?:([+\-\u2212])\s*(\d+))?")


def die(rng: RandomSource, sides: int = 6) -> Die:
    """One die of a 1d6x4 roll (role ``die``): a Test's d6, a heal's, a damage die."""
    return shared_die(roll_die(rng, sides), "die", sides)


def parse_damage(formula: Any, option: str = "--damage") -> tuple[int, int, int]:
    """``"d6"`` → (1, 6, 0); ``"2d4+1"`` → (2, 4, 1); ``"3"`` → (0, 0, 3); a bad one
    is a ``ParamError`` naming ``option``."""
    text = str(formula).strip().lower().replace(" ", "")
    err = ParamError(option, f"must be a dice formula like d6, 2d6, d6+2, 2d4-1 or a number (got {formula!r})")
    if not text:
        raise err
    if text.isdigit():
        return 0, 0, int(text)
    m = _FORMULA.fullmatch(text)
    if not m or m.group(2) is None:
        raise err
    count = int(m.group(1)) if m.group(1) else 1
    sides = int(m.group(2))
    mod = int(m.group(4)) if m.group(4) else 0
    if m.group(3) in ("-", "\u2212"):
        mod = -mod
    if not 1 <= count <= 20 or not 2 <= sides <= 100 or abs(mod) > 100:
        raise ParamError(option, f"dice 1..20 of 2..100 sides, modifier within ±100 (got {formula!r})")
    return count, sides, mod


def format_damage(count: int, sides: int, mod: int) -> str:
    if not count:
        return str(mod)
    dice = f"{'' if count == 1 else count}d{sides}"
    return dice + (f"{mod:+d}" if mod else "")


def damage_distribution(formula: str) -> dict[int, Fraction]:
    """Exact distribution of a Vitality Adjustment (below 0 counts as 0). (The odds
    and fractions are imported here: a roll has no use for them.)"""
    from fractions import Fraction

    from gmdesk.core import odds as odds_mod

    count, sides, mod = parse_damage(formula)
    d = odds_mod.shift(odds_mod.repeat(odds_mod.die(sides), count), mod) if count else {mod: Fraction(1)}
    return odds_mod.remap(d, lambda x: max(0, x))


def roll_damage(formula: str, rng: RandomSource) -> tuple[tuple[Die, ...], int]:
    """The Vitality Adjustment dice and amount (never below 0)."""
    count, sides, mod = parse_damage(formula)
    dice = tuple(die(rng, sides) for _ in range(count))
    return dice, max(0, sum(d.value for d in dice) + mod)
