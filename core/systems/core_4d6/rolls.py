"""A 4d6 roll: the dice rolled and kept, the check or contest read, the Combat table's
rows it deals, initiative, and the exact odds of it all."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache

from gmdesk.core.dice import Descriptor, Die, RollRecord, roll_die, shared_die
from gmdesk.core.errors import TableError
from gmdesk.core.systems.base import (
    combat_descriptor,
    parse_int,
)
from gmdesk.core.systems.core_4d6.params import ID, Params, params_to_json
from gmdesk.core.systems.core_4d6.rules import (
    clock_progress,
    contest_outcome,
    dc_name,
    kept_indices,
    success_of,
    tier_for,
)
from gmdesk.core.systems.core_4d6.tables import (
    ADV_CAP,
    CONTEST_OUTCOMES,
    CONTEST_TIERS,
    KEEP,
    TIER_RANK,
    TIERS,
)
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from gmdesk.core.curve import Curve
    from gmdesk.core.dice import RandomSource
    from gmdesk.core.odds import Odds


def roll_dice(rng: RandomSource, level: int) -> tuple[Die, ...]:
    """4 + |level| d6 in the order rolled, each marked kept or dropped."""
    faces = [roll_die(rng, 6) for _ in range(KEEP + abs(level))]
    kept = kept_indices(faces, level)
    return tuple(shared_die(v, "kept" if i in kept else "dropped") for i, v in enumerate(faces))


def _kept_sum(dice: Iterable[Die]) -> int:
    return sum(d.value for d in dice if d.role == "kept")


def _all_ones(dice: Iterable[Die]) -> bool:
    return all(d.value == 1 for d in dice if d.role == "kept")


def combat_rows(tier: str, tables: TableSet = DEFAULT_TABLES) -> list[tuple[int, str]]:
    """``[(row, applies_to), …]`` of the Combat table for a tier, from the table in force."""
    table = tables.band_table("4d6-combat-rows")
    value = table.lookup(TIER_RANK[tier])
    rows = value.get("rows") if isinstance(value, Mapping) else value
    if not isinstance(rows, (list, tuple)):
        raise TableError(f"table {table.name!r}: the {tier} band must list rows")
    out = []
    for r in rows:
        row = r.get("row") if isinstance(r, Mapping) else None
        to = r.get("applies_to") if isinstance(r, Mapping) else None
        if not isinstance(row, int) or isinstance(row, bool) or to not in ("target", "attacker"):
            raise TableError(
                f"table {table.name!r}: the {tier} band's rows need an integer 'row' and "
                f"'applies_to' target or attacker"
            )
        out.append((row, to))
    return out


def combat_descriptors(tier: str, params: Params, tables: TableSet = DEFAULT_TABLES) -> tuple[Descriptor, ...]:
    """The descriptors a combat roll of this tier deals, each in its receiver's kind column."""
    out = []
    for row, to in combat_rows(tier, tables):
        kind = params.target_kind if to == "target" else params.attacker_kind
        out.append(combat_descriptor(tables, row, applies_to=to, receiver_kind=kind))
    return tuple(out)


def roll(params: Params, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """Roll the dice (then the opponent's, in a contest) and read the tier."""
    level = params.advantage
    dice = roll_dice(rng, level)
    kept = _kept_sum(dice)
    total = kept + params.bonus
    all_ones = _all_ones(dice)
    dc = params.effective_dc
    extra: dict[str, Any] = {
        "total": total,
        "kept": kept,
        "dc": dc,
        "dc_name": dc_name(dc),
        "margin": None,
        "advantage": level,
        "all_ones": all_ones,
        "position": params.position,
        "effect": params.effect,
    }
    tier: str | None = None
    if params.contest:
        vs_level = params.vs_advantage
        # who cannot act cannot defend: no dice, the lowest 4d6 result (all 1s)
        opp_dice = () if params.defenseless else roll_dice(rng, vs_level)
        opp_kept = KEEP if params.defenseless else _kept_sum(opp_dice)
        opp_ones = params.defenseless or _all_ones(opp_dice)
        opp_total = opp_kept + (params.vs_bonus or 0)  # set: it makes the roll a contest
        label, degree, winner = contest_outcome(total - opp_total, all_ones, opp_ones)
        tier = CONTEST_TIERS[label]
        outcome = label
        extra.update(
            margin=total - opp_total,
            contest=degree,
            winner=winner,
            opponent={
                "dice": [d.to_json() for d in opp_dice],
                "kept": opp_kept,
                "bonus": params.vs_bonus,
                "advantage": vs_level,
                "total": opp_total,
                "all_ones": opp_ones,
                **({"cannot_act": True} if params.defenseless else {}),
            },
        )
    else:
        assert dc is not None
        margin = total - dc
        tier = tier_for(margin, all_ones)
        outcome = tier
        extra["margin"] = margin
    clock, clock_effect = clock_progress(params.effect, tier)
    extra.update(tier=tier, success=success_of(tier), clock=clock, clock_effect=clock_effect)
    descriptors = combat_descriptors(tier, params, tables) if params.combat else ()
    return RollRecord(
        system=ID,
        params=params_to_json(params),
        dice=dice,
        value=total,
        outcome=outcome,
        extra=extra,
        descriptors=descriptors,
    )


def initiative(rng: RandomSource, modifier: int = 0) -> RollRecord:
    """Initiative: 4d6 + the actor's bonus."""
    modifier = parse_int("--modifier", modifier)
    dice = roll_dice(rng, 0)
    total = _kept_sum(dice) + modifier
    return RollRecord(
        system=ID,
        params={"modifier": modifier},
        dice=dice,
        value=total,
        outcome=f"Initiative {total}",
        extra={"total": total, "modifier": modifier},
    )


# --------------------------------------------------------------------------- odds
# (gmdesk.core.odds, gmdesk.core.curve and fractions are imported by the functions
# that use them: a roll has no use for them, and ``gmdesk roll 4d6`` starts faster)


@cache
def kept_counts(level: int) -> tuple[tuple[tuple[int, int], ...], int]:
    """How many of the ``6 ** n`` rolls at an advantage level (−2..+2) give each sum of
    the 4 kept dice, ascending by sum, and ``6 ** n``: exact whole numbers.

    Enumerates the sorted rolls (multisets: 462 at ±2) once per level, each weighted
    by how many orders give it (n! / Π count!), and caches (the dice, not a query).
    A kept sum of 4 is exactly the all-1s roll.
    """
    level = max(-ADV_CAP, min(ADV_CAP, int(level)))
    n = KEEP + abs(level)
    counts: Counter[int] = Counter()
    for s in itertools.combinations_with_replacement(range(1, 7), n):
        orders = math.factorial(n)
        for c in Counter(s).values():
            orders //= math.factorial(c)
        counts[sum(s[-KEEP:]) if level > 0 else sum(s[:KEEP])] += orders
    return tuple(sorted(counts.items())), 6**n


@cache
def kept_distribution(level: int) -> dict[int, Fraction]:
    """Exact distribution of the 4 kept dice at an advantage level (−2..+2)
    (:func:`kept_counts` over ``6 ** n``)."""
    from fractions import Fraction

    counts, total = kept_counts(level)
    return {k: Fraction(c, total) for k, c in counts}


def total_distribution(bonus: int, level: int) -> dict[int, Fraction]:
    from gmdesk.core import odds as odds_mod

    return odds_mod.shift(kept_distribution(level), bonus)


def contest_counts(
    counts: tuple[tuple[int, int], ...], opp_counts: tuple[tuple[int, int], ...], lead: int
) -> dict[str, int]:
    """How many pairs (roller's roll, opponent's roll) give each contest outcome, when
    the roller's bonus exceeds the opponent's by ``lead``; whole numbers, each pair
    weighted by its counts (:func:`kept_counts`).

    The totals decide unless a side's kept dice are all 1s (a kept sum of 4): those
    pairs are read one by one (:func:`contest_outcome`). Every other pair is decided by
    the difference of the kept sums alone, so those are first counted by difference
    (one multiplication per pair of sums) and each difference is read once."""
    by_label = dict.fromkeys(CONTEST_OUTCOMES, 0)
    mine = [(k, c) for k, c in counts if k != KEEP]
    theirs = [(k, c) for k, c in opp_counts if k != KEEP]
    if mine and theirs:
        low = mine[0][0] - theirs[-1][0]
        by_difference = [0] * (mine[-1][0] - theirs[0][0] - low + 1)
        for k1, c1 in mine:
            base = k1 - low
            for k2, c2 in theirs:
                by_difference[base - k2] += c1 * c2
        for i, c in enumerate(by_difference):
            if c:
                by_label[contest_outcome(low + i + lead)[0]] += c
    ones = next((c for k, c in counts if k == KEEP), 0)
    opp_ones = next((c for k, c in opp_counts if k == KEEP), 0)
    if ones:
        for k2, c2 in opp_counts:
            by_label[contest_outcome(KEEP + lead - k2, True, k2 == KEEP)[0]] += ones * c2
    if opp_ones:
        for k1, c1 in mine:
            by_label[contest_outcome(k1 + lead - KEEP, False, True)[0]] += c1 * opp_ones
    return by_label


def odds(params: Params, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """Exact distribution of the total; the tiers against the DC (16 unless given; the
    all-1s rule included), or the contest outcomes with ``vs_bonus`` (all-1s included:
    a kept sum of 4 is exactly the all-1s roll), counted in whole numbers
    (:func:`contest_counts`) and made fractions once."""
    from fractions import Fraction

    from gmdesk.core import odds as odds_mod

    kept = kept_distribution(params.advantage)
    dist = odds_mod.shift(kept, params.bonus)
    dc = params.effective_dc
    outcomes: list[tuple[str, Fraction]]
    if params.contest:
        counts, total = kept_counts(params.advantage)
        # who cannot act cannot defend: the lowest result, all 1s, for certain
        opp_counts: tuple[tuple[int, int], ...] = ((KEEP, 1),)
        opp_total = 1
        if not params.defenseless:
            opp_counts, opp_total = kept_counts(params.vs_advantage)
        vs_bonus = params.vs_bonus or 0  # set: it makes the roll a contest
        by_label = contest_counts(counts, opp_counts, params.bonus - vs_bonus)
        outcomes = [(label, Fraction(by_label[label], total * opp_total)) for label in CONTEST_OUTCOMES]
    else:
        assert dc is not None
        outcomes = odds_mod.outcomes_by(kept, lambda k: tier_for(k + params.bonus - dc, all_ones=(k == KEEP)), TIERS)
    return odds_mod.Odds.from_dist(ID, params_to_json(params), dist, outcomes)


#: the headline value a curve draws
VALUE_LABEL = "Total"


def curve(params: Params, tables: TableSet = DEFAULT_TABLES) -> Curve:
    """The curve of the total (the 4 kept dice + bonus). Against a DC the total that
    meets it (a Full Success or better) is marked; four 1s kept are a Critical Failure
    whatever the total, which the note says where a total that low could meet it. A
    contest compares both totals: no total succeeds by itself."""
    from gmdesk.core.curve import curve_of

    dist = total_distribution(params.bonus, params.advantage)
    dc = params.effective_dc
    if dc is None:
        return curve_of(VALUE_LABEL, dist, note="A contest: the higher total wins; no total succeeds by itself.")
    note = "Four 1s kept are a Critical Failure whatever the total." if KEEP + params.bonus >= dc else ""
    return curve_of(VALUE_LABEL, dist, success=dc, success_label=f"Full Success (DC {dc})", note=note)
