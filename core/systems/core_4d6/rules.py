"""How a 4d6 result reads by the rules: advantage sources netted, which dice are kept,
the margin's tier, a contest's degree and winner, and the clock progress an effect
earns (the ladders and bands are data, in :mod:`.tables`)."""

from __future__ import annotations

from collections.abc import Iterable

from gmdesk.core.errors import ParamError
from gmdesk.core.systems.base import (
    parse_int,
    shown,
)
from gmdesk.core.systems.core_4d6.tables import (
    ADV_CAP,
    ADVANTAGE_LEVELS,
    ALL_ONES_BOTH,
    ALL_ONES_DEGREE,
    ALL_ONES_LOSS,
    ALL_ONES_TIER,
    ALL_ONES_WIN,
    CONTEST_BANDS,
    DC_LADDER,
    EFFECT_LADDER,
    KEEP,
    TIE_LABEL,
    TIER_BANDS,
    TIER_EFFECT_STEP,
    TIER_RANK,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any


def parse_sources(option: str, value: Any) -> tuple[int, ...]:
    """Advantage sources from ``"+1,+2,-1"``, an int or a sequence; each ±1 or ±2."""
    if value is None:
        return ()
    if isinstance(value, str):
        tokens: list[Any] = [t for t in value.replace(";", ",").replace(" ", ",").split(",") if t.strip()]
    elif isinstance(value, int) and not isinstance(value, bool):
        tokens = [value]
    elif isinstance(value, Iterable):
        tokens = list(value)
    else:
        tokens = [value]
    out = []
    for t in tokens:
        try:
            n = parse_int(option, t)
        except ParamError:
            n = None
        if n not in ADVANTAGE_LEVELS:
            raise ParamError(
                option, f"each source must be one of +1, +2, -1, -2, comma-separated like +1,+2,-1 (got {shown(t)})"
            )
        out.append(n)
    return tuple(out)


def net_advantage(levels: Iterable[int]) -> int:
    """Net advantage level of the sources: each side caps at 2, then they net (−2..+2).

    >>> net_advantage([2, -1]), net_advantage([1, -2]), net_advantage([2, 2, -2])
    (1, -1, 0)
    """
    levels = parse_sources("--adv", tuple(levels))
    up = sum(v for v in levels if v > 0)
    down = sum(-v for v in levels if v < 0)
    return min(ADV_CAP, up) - min(ADV_CAP, down)


def kept_indices(values: Iterable[int], level: int) -> frozenset[int]:
    """Indices of the 4 dice kept: the best for advantage, the worst for disadvantage.

    Among equal faces the later die is dropped.
    """
    vals = list(values)
    n_drop = len(vals) - KEEP
    if n_drop <= 0:
        return frozenset(range(len(vals)))
    sign = 1 if level > 0 else -1  # advantage drops the lowest, disadvantage the highest
    order = sorted(range(len(vals)), key=lambda i: (sign * vals[i], -i))
    return frozenset(range(len(vals))) - frozenset(order[:n_drop])


def tier_for(margin: int, all_ones: bool = False) -> str:
    """The tier of a check: all kept dice 1s is a Critical Failure, else the margin band."""
    if all_ones:
        return ALL_ONES_TIER
    tier: str = TIER_BANDS.lookup(margin)
    return tier


def contest_result(difference: int) -> tuple[str, str, str | None]:
    """``(label, degree, winner)`` for roller total − opponent total."""
    degree = CONTEST_BANDS.lookup(abs(difference))
    if difference == 0:
        return TIE_LABEL, degree, None
    if difference > 0:
        return f"{degree} victory", degree, "roller"
    return f"{degree} defeat", degree, "opponent"


def contest_outcome(difference: int, all_ones: bool = False, opp_all_ones: bool = False) -> tuple[str, str, str | None]:
    """``(label, degree, winner)`` of a contest: all kept dice 1s is a Critical Failure
    for that side whatever the totals (see the module docstring), else the totals decide."""
    if all_ones and opp_all_ones:
        return ALL_ONES_BOTH, ALL_ONES_DEGREE, None
    if all_ones:
        return ALL_ONES_LOSS, ALL_ONES_DEGREE, "opponent"
    if opp_all_ones:
        # the opponent's 1s are its own Critical Failure, never the roller's Critical
        # Success: the roller wins by its own margin when ahead, else Narrowly (RULES.md)
        if difference > 0:
            return contest_result(difference)
        return ALL_ONES_WIN, "Narrow", "roller"
    return contest_result(difference)


def clock_progress(effect: str, tier: str | None) -> tuple[int | None, str | None]:
    """Clock progress in half segments and the effect level it came from."""
    if tier is None:
        return None, None
    step = TIER_EFFECT_STEP[tier]
    if step is None:
        return 0, "none"
    names = [name for name, _ in EFFECT_LADDER]
    i = max(0, min(len(EFFECT_LADDER) - 1, names.index(effect) + step))
    return EFFECT_LADDER[i][1], EFFECT_LADDER[i][0]


def success_of(tier: str | None) -> bool | None:
    if tier is None:
        return None
    return TIER_RANK[tier] >= TIER_RANK["Partial Success"]


def dc_name(dc: int | None) -> str | None:
    return dict(DC_LADDER).get(dc) if dc is not None else None


def parse_dc(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        key = value.strip().lower().replace("-", " ").replace("_", " ")
        for n, name in DC_LADDER:
            if key == name.lower():
                return n
    try:
        return parse_int("--dc", value, 1)
    except ParamError:
        ladder = ", ".join(f"{n} {name}" for n, name in DC_LADDER)
        raise ParamError(
            "--dc", f"must be a whole number ≥ 1 or a ladder name ({ladder}) (got {shown(value)})"
        ) from None
