"""The 1d6x4 Test: one roll — a Test against the GM's secret number, a two-way Test, an
attack, an initiative (a Reflex Test) — with every die in order, and its exact odds."""

from __future__ import annotations

from collections.abc import Iterable

from gmdesk.core.dice import Descriptor, Die, RollRecord
from gmdesk.core.systems.base import parse_int
from gmdesk.core.systems.one_d6_x4.combat import attack_result
from gmdesk.core.systems.one_d6_x4.damage import die
from gmdesk.core.systems.one_d6_x4.params import ATTACKER, BONUS_RANGE, DEFENDER, ID, Params, params_to_json
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from gmdesk.core.curve import Curve
    from gmdesk.core.dice import RandomSource
    from gmdesk.core.odds import Dist, Odds

#: the d6 is multiplied by this
MULTIPLIER = 4
#: what a defender who does not roll adds to its descriptors
TAKES = 14
OUTCOME_SUCCESS = "Success"
OUTCOME_FAILURE = "Failure"
OUTCOME_ATTACKER = "Attacker prevails"
OUTCOME_DEFENDER = "Defender prevails"
OUTCOME_TIE = "Tie: nobody hurt"
AUTO_FAIL_PREFIX = "Automatic failure: "


def roll(params: Params, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """One Test (or two-way Test, or attack): every die in order, role ``die``."""
    dice: list[Die] = []
    extra: dict[str, Any] = {}
    total: int | None = None
    if not params.auto_fail:
        d = die(rng)
        dice.append(d)
        total = MULTIPLIER * d.value + params.bonus
    extra["total"] = total
    if params.target is not None:
        extra["target"] = params.target
    if params.auto_fail:
        extra["auto_fail"] = params.auto_fail

    prevails: str | None = None
    tie = False
    if params.two_way:
        assert params.vs_bonus is not None
        opp: dict[str, Any] = {"dice": [], "total": None, "took_14": False}
        if params.auto_fail:
            prevails = DEFENDER  # nothing is attempted: the status quo holds
            if params.defender_takes_14:
                opp.update(total=TAKES + params.vs_bonus, took_14=True)
        elif params.vs_auto_fail:
            prevails = ATTACKER
            opp["auto_fail"] = params.vs_auto_fail
        else:
            if params.defenseless:
                # who cannot act cannot defend: no die, the lowest total a Test could give
                opp_total = MULTIPLIER * 1 + params.vs_bonus
                opp.update(total=opp_total, cannot_act=True)
            elif params.defender_takes_14:
                opp_total = TAKES + params.vs_bonus
                opp.update(total=opp_total, took_14=True)
            else:
                od = die(rng)
                dice.append(od)
                opp_total = MULTIPLIER * od.value + params.vs_bonus
                opp.update(dice=[od.to_json()], total=opp_total)
            assert total is not None
            tie = total == opp_total
            prevails = ATTACKER if total > opp_total else DEFENDER
        extra["opponent"] = opp
        extra["prevails"] = prevails
        extra["success"] = prevails == ATTACKER
        if tie:
            extra["tie"] = True
    elif params.target is not None or params.auto_fail:
        extra["success"] = bool(total is not None and params.target is not None and total >= params.target)

    # outcome
    if params.auto_fail:
        outcome = AUTO_FAIL_PREFIX + params.auto_fail
    elif params.two_way:
        if params.combat and params.mutual and tie:
            outcome = OUTCOME_TIE
        else:
            outcome = OUTCOME_ATTACKER if prevails == ATTACKER else OUTCOME_DEFENDER
    elif params.target is not None:
        outcome = OUTCOME_SUCCESS if extra["success"] else OUTCOME_FAILURE
    else:
        outcome = f"Total {total}"

    descriptors: list[Descriptor] = []
    if params.combat:
        ddice, amount, desc = attack_result(params, bool(extra.get("success")), prevails, tie, rng, tables)
        dice.extend(ddice)
        if amount is not None:
            extra["damage"] = amount
            extra["damage_dice"] = [d.to_json() for d in ddice]
        descriptors.append(desc)

    return RollRecord(
        system=ID,
        params=params_to_json(params),
        dice=tuple(dice),
        value=total if total is not None else 0,
        outcome=outcome,
        extra=extra,
        descriptors=tuple(descriptors),
    )


def initiative(rng: RandomSource, modifier: int = 0, auto_fail: str | None = None) -> RollRecord:
    """A Reflex Test: 4 × d6 + Reflex (``modifier``); ``value`` is the initiative.
    ``auto_fail``: why the Test fails automatically (:func:`initiative_fails`): no die
    is rolled and the session seats the character after everyone who rolled."""
    bonus = parse_int("--modifier", modifier, *BONUS_RANGE)
    return roll(Params(bonus=bonus, test="Reflex", auto_fail=auto_fail), rng)


# (gmdesk.core.odds, gmdesk.core.curve and fractions are imported by the functions
# that use them: a roll has no use for them, and ``gmdesk roll 1d6x4`` starts faster)


def _test_dist(bonus: int) -> Dist:
    from gmdesk.core import odds as odds_mod

    return odds_mod.shift(odds_mod.remap(odds_mod.die(6), lambda x: MULTIPLIER * x), bonus)


def odds(params: Params, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """Exact odds of the total (bonus + 4, + 8, … + 24, each 1/6) and of the outcomes:
    Success / Failure against a target; Attacker / Defender prevails in a two-way Test
    (and "Tie: nobody hurt" in a mutual melee)."""
    from fractions import Fraction

    from gmdesk.core import odds as odds_mod

    pj = params_to_json(params)
    if params.auto_fail:
        label = AUTO_FAIL_PREFIX + params.auto_fail
        return odds_mod.Odds.from_dist(ID, pj, {0: Fraction(1)}, [(label, Fraction(1))])
    dist = _test_dist(params.bonus)
    outcomes: list[tuple[str, Fraction]] = []
    if params.two_way:
        assert params.vs_bonus is not None
        if params.vs_auto_fail:
            outcomes = [(OUTCOME_ATTACKER, Fraction(1)), (OUTCOME_DEFENDER, Fraction(0))]
        else:
            if params.defenseless:
                opp = {MULTIPLIER + params.vs_bonus: Fraction(1)}
            elif params.defender_takes_14:
                opp = {TAKES + params.vs_bonus: Fraction(1)}
            else:
                opp = _test_dist(params.vs_bonus)
            diff = odds_mod.sub(dist, opp)
            win = odds_mod.prob(diff, lambda x: x > 0)
            tie = odds_mod.prob(diff, lambda x: x == 0)
            if params.combat and params.mutual:
                outcomes = [(OUTCOME_ATTACKER, win), (OUTCOME_DEFENDER, 1 - win - tie), (OUTCOME_TIE, tie)]
            else:
                outcomes = [(OUTCOME_ATTACKER, win), (OUTCOME_DEFENDER, 1 - win)]
    elif params.target is not None:
        t = params.target
        outcomes = odds_mod.outcomes_by(
            dist, lambda x: OUTCOME_SUCCESS if x >= t else OUTCOME_FAILURE, (OUTCOME_SUCCESS, OUTCOME_FAILURE)
        )
    return odds_mod.Odds.from_dist(ID, pj, dist, outcomes)


#: the headline value a curve draws
VALUE_LABEL = "Test total"


def curve(params: Params, tables: TableSet = DEFAULT_TABLES) -> Curve:
    """The curve of the Test total (bonus + 4 × d6). The success marked is the total
    that reaches the GM's target (an attack: that hits), or in a two-way Test against
    a defender who rolls no die (takes 14, cannot act) the total that beats the
    defender's (a tie keeps the status quo). A side failing automatically rolls no
    die: then there is no total to draw, or no total that matters."""
    from gmdesk.core.curve import curve_of

    if params.auto_fail:
        return curve_of(VALUE_LABEL, {}, note=f"{AUTO_FAIL_PREFIX}{params.auto_fail}: no die is rolled.")
    dist = _test_dist(params.bonus)
    success: int | None = None
    label, note = (OUTCOME_ATTACKER, "")
    if params.two_way:
        assert params.vs_bonus is not None
        if params.vs_auto_fail:
            note = f"The defender cannot perform its Test ({params.vs_auto_fail}): the attacker prevails."
        elif params.defenseless:
            success = MULTIPLIER + params.vs_bonus + 1
        elif params.defender_takes_14:
            success = TAKES + params.vs_bonus + 1
    elif params.target is not None:
        success, label = params.target, ("Hit" if params.combat else OUTCOME_SUCCESS)
    return curve_of(VALUE_LABEL, dist, success=success, success_label=label, note=note)


def order_by_total(entries: Iterable[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """Several characters racing (a Test each): placements, highest total first; equal
    totals keep the order given (the GM may reorder them)."""
    return sorted(entries, key=lambda e: -e[1])
