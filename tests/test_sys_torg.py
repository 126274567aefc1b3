"""torg-2d10: Bonus Numbers from the hot and cold d10, maxing, Stymie, Up, Possibilities,
disconnection and combat, with the seed's worked examples as fixed dice."""

import json
from fractions import Fraction

import pytest
from helpers import DrawnDice
from hypothesis import given
from hypothesis import strategies as st

from gmdesk.cli.rolls import parse_system_args
from gmdesk.core.dice import FixedDice, RollRecord
from gmdesk.core.errors import ParamError
from gmdesk.core.systems import get_system
from gmdesk.core.systems import torg_2d10 as torg
from gmdesk.core.tables import TableSet, parse_table

P = torg.Params


def roll(dice, **kw):
    rng = FixedDice(dice)
    rec = torg.roll(P(**kw), rng)
    assert rng.remaining == 0, "the roll used fewer dice than scripted"
    return rec


def roles(rec):
    return [d.role for d in rec.dice]


# --------------------------------------------------------------------------- the pair


def test_registered_under_its_rules_id():
    assert get_system("torg-2d10") is torg
    assert torg.ID == "torg-2d10" and torg.NAME == "2D10 Dice for TORG"


@pytest.mark.parametrize("hot, cold, bonus", [(5, 1, -1), (3, 4, 3), (10, 10, 0)])
def test_seed_example_rolls(hot, cold, bonus):
    rec = roll([hot, cold])
    assert rec.value == bonus == rec.get("bonus")
    assert [(d.value, d.role, d.sides) for d in rec.dice] == [(hot, "hot", 10), (cold, "cold", 10)]
    assert rec.get("maxed") is None


def test_outcome_label_without_difficulty():
    assert roll([3, 4]).outcome == "Bonus +3"
    assert roll([5, 1]).outcome == "Bonus \u22121"
    assert roll([6, 6]).outcome == "Bonus 0"
    rec = roll([3, 4], skill=11)
    assert rec.get("total") == 14 and rec.outcome == "Total 14 (Bonus +3)"
    assert "total" not in roll([3, 4]).extra


def test_base_distribution_matches_the_seed_exactly():
    base = torg.base_distribution()
    assert base[0] == Fraction(10, 100)
    assert base[9] == base[-9] == Fraction(1, 100)
    for k in range(1, 10):  # the seed's table: k has (10 - k) %, mirrored
        assert base[k] == base[-k] == Fraction(10 - k, 100)
    assert sum(base.values()) == 1
    # the same numbers come out of the full odds where no reroll can reach them
    assert torg.odds(P()).p(0) == Fraction(1, 10)
    assert torg.odds(P(stymied=True)).p(9) == Fraction(1, 100)
    assert torg.odds(P(ord_no_reroll=True)).p(9) == Fraction(1, 100)
    assert torg.odds(P()).p(9) == 0 and torg.odds(P()).p(-9) == 0  # always rerolled


# --------------------------------------------------------------------------- maxing


def test_maxing_the_hot_die_is_progressive():
    rec = roll([9, 10, 10, 9])  # +9, reroll 10 (+19), again 9
    assert rec.value == 28
    assert roles(rec) == ["hot", "cold", "reroll", "reroll"]
    assert rec.get("maxed") == "hot"


def test_maxing_the_cold_die_subtracts_progressively():
    assert roll([10, 9, 9]).value == -18
    rec = roll([10, 9, 10, 10, 1])
    assert rec.value == -30 and rec.get("maxed") == "cold"
    assert roles(rec) == ["hot", "cold", "reroll", "reroll", "reroll"]


def test_plain_reroll_values():
    assert roll([9, 10, 1]).value == 10
    assert roll([10, 9, 1]).value == -10


@pytest.mark.parametrize("option", ["stymied", "ord_no_reroll"])
def test_no_positive_reroll_but_the_negative_one_stays(option):
    rec = roll([9, 10], **{option: True})
    assert rec.value == 9 and rec.get("maxed") == "hot"
    assert roles(rec) == ["hot", "cold"]
    rec = roll([10, 9, 10, 4], **{option: True})
    assert rec.value == -23 and roles(rec) == ["hot", "cold", "reroll", "reroll"]


# --------------------------------------------------------------------------- Up and Possibilities


def test_up_is_progressive_and_rolled_after_the_total():
    rec = roll([3, 4, 10, 2], up=True)
    assert rec.value == 15 and roles(rec) == ["hot", "cold", "up", "up"]
    rec = roll([9, 10, 5, 7], up=True)  # the maxing reroll comes first, Up last
    assert rec.value == 21 and roles(rec) == ["hot", "cold", "reroll", "up"]
    rec = roll([10, 9, 2, 10, 10, 3], up=True)  # −9 − 2 = −11, then Up 23
    assert rec.value == 12 and roles(rec) == ["hot", "cold", "reroll", "up", "up", "up"]


@pytest.mark.parametrize("option", ["stymied", "ord_no_reroll"])
def test_up_and_possibilities_stay_progressive_without_the_positive_reroll(option):
    rec = roll([9, 10, 10, 3], up=True, **{option: True})
    assert rec.value == 22 and roles(rec) == ["hot", "cold", "up", "up"]
    rec = roll([9, 10, 10, 4], possibilities=1, **{option: True})
    assert rec.value == 23 and roles(rec) == ["hot", "cold", "possibility", "possibility"]


def test_possibilities_are_progressive_and_come_before_up():
    rec = roll([2, 5, 10, 10, 1], possibilities=1)
    assert rec.value == 23 and rec.get("possibilities") == 1
    rec = roll([9, 10, 1, 2, 10, 5, 3], possibilities=2, up=True)
    assert rec.value == 9 + 1 + 2 + 15 + 3
    assert roles(rec) == ["hot", "cold", "reroll", "possibility", "possibility", "possibility", "up"]


def test_spending_a_possibility_after_the_roll():
    rec = roll([9, 4], skill=8, difficulty=10, contradiction="4-case")
    assert rec.value == -4 and rec.get("disconnection") is True
    assert rec.get("success") is False and rec.get("result_points") == -6
    assert rec.outcome == "Failure (\u22126 result points); Disconnection"
    after = torg.spend_possibility(rec, FixedDice([10, 3]))
    assert after.value == 9 and after.get("bonus") == 9
    assert after.dice[:2] == rec.dice and roles(after)[2:] == ["possibility", "possibility"]
    assert after.get("total") == 17 and after.get("result_points") == 7 and after.get("success") is True
    assert after.get("disconnection") is False
    assert after.get("possibilities") == 1 and after.get("cancelled") == 0
    assert after.outcome == "Success (+7 result points)"
    assert after.params == rec.params
    assert rec.value == -4  # the old record is untouched


def test_spend_after_the_fact_recomputes_the_combat_descriptor():
    rec = roll([5, 3], skill=10, difficulty=10, combat=True)  # −3: miss
    assert rec.descriptor.text == "Nil" and rec.descriptor.wound is False
    after = torg.spend_possibility(rec, FixedDice([8]))  # +5 result points
    assert after.descriptor.row == 4 and after.descriptor.text == "Severe Stun"
    assert after.descriptor.applies_to == "target"


def test_cancel_removes_the_latest_possibility_chain():
    rec = roll([5, 1, 3, 10, 4], possibilities=2)  # −1 + 3 + 14
    assert rec.value == 16
    cancelled = torg.cancel_possibility(rec)
    assert cancelled.value == 2 and cancelled.get("cancelled") == 1
    assert cancelled.get("possibilities") == 2  # both were spent
    assert [(d["value"], d["role"]) for d in cancelled.get("cancelled_dice")] == [
        (10, "possibility"),
        (4, "possibility"),
    ]
    assert [d.value for d in cancelled.dice] == [5, 1, 3]
    twice = torg.cancel_possibility(RollRecord.from_json(json.loads(cancelled.dumps())))
    assert twice.value == -1 and twice.get("cancelled") == 2 and len(twice.get("cancelled_dice")) == 3
    with pytest.raises(ParamError, match="no Possibility to cancel"):
        torg.cancel_possibility(twice)


def test_cancel_a_possibility_spent_after_the_roll_and_up_stays():
    rec = roll([9, 10, 2, 6], up=True)  # +9 +2, Up 6
    spent = torg.spend_possibility(rec, FixedDice([7]))
    assert spent.value == 24
    back = torg.cancel_possibility(spent)
    assert back.value == 17 and roles(back) == ["hot", "cold", "reroll", "up"]


@pytest.mark.parametrize("dice, kw", [([9, 10, 5], {}), ([10, 9, 5], {}), ([3, 4, 10, 2], {"up": True}), ([3, 4], {})])
def test_only_possibility_spends_can_be_cancelled(dice, kw):
    with pytest.raises(ParamError) as err:
        torg.cancel_possibility(roll(dice, **kw))
    assert "no Possibility to cancel" in str(err.value)


def test_session_moves_refuse_another_systems_record():
    other = RollRecord("fudge", {}, (), 0, "0")
    with pytest.raises(ParamError):
        torg.spend_possibility(other, FixedDice([3]))


# --------------------------------------------------------------------------- disconnection


@pytest.mark.parametrize(
    "case, hot, cold, expected",
    [
        ("1-case", 8, 7, True),  # −7
        ("1-case", 7, 6, False),  # −6
        ("4-case", 5, 4, True),  # −4
        ("4-case", 4, 3, False),  # −3
        ("4-case", 3, 4, False),  # +3
    ],
)
def test_disconnection_thresholds(case, hot, cold, expected):
    rec = roll([hot, cold], contradiction=case)
    assert rec.get("disconnection") is expected
    assert rec.outcome.endswith("; Disconnection") is expected


def test_no_contradiction_no_disconnection_field():
    assert "disconnection" not in roll([10, 9, 9]).extra


# --------------------------------------------------------------------------- combat

ROWS = {
    -1: ("Nil", "Nil"),
    1: ("Backfoot", "Cosmetic Injury"),
    2: ("Knockback", "Rattle"),
    3: ("Stun", "Severe Rattle"),
    4: ("Severe Stun", "Programme Damage"),
    5: ("Wound", "Peripheral Damage"),
    6: ("Severe Wound", "Programme Destruction"),
    8: ("Mortal Wound", "Attribute Damage"),
    10: ("Fatal Wound", "Attribute Loss x 2"),
}


@pytest.mark.parametrize(
    "points, row",
    [
        (-30, -1),
        (-1, -1),
        (0, 1),
        (1, 2),
        (2, 2),
        (3, 3),
        (4, 3),
        (5, 4),
        (6, 4),
        (7, 5),
        (8, 5),
        (9, 6),
        (11, 6),
        (12, 8),
        (14, 8),
        (15, 10),
        (40, 10),
    ],
)
@pytest.mark.parametrize("kind", ["organic", "inorganic"])
def test_combat_result_points_pick_the_row(points, row, kind):
    rec = roll([5, 5], skill=points, difficulty=0, combat=True, target_kind=kind)  # bonus 0
    assert rec.get("result_points") == points
    (desc,) = rec.descriptors
    assert desc.row == row and desc.applies_to == "target" and desc.column == kind
    assert desc.text == ROWS[row][0 if kind == "organic" else 1]
    assert desc.wound is (row != -1)
    assert rec.get("success") is (points >= 0)


def test_combat_needs_a_difficulty():
    with pytest.raises(ParamError, match="--combat needs --difficulty"):
        P(combat=True)
    rec = roll([3, 4], difficulty=2, combat=True)  # skill defaults to 0
    assert rec.get("total") == 3 and rec.get("result_points") == 1 and rec.descriptor.row == 2


def test_combat_rows_are_an_editable_table():
    mine = parse_table(
        {
            "name": "my-rows",
            "kind": "bands",
            "bands": [{"lo": None, "hi": 4, "value": -1}, {"lo": 5, "hi": None, "value": 10}],
        }
    )
    tables = TableSet({"torg-combat-rows": mine})
    rec = torg.roll(P(skill=4, difficulty=0, combat=True), FixedDice([5, 5]), tables)
    assert rec.descriptor.text == "Nil"
    rec = torg.roll(P(skill=5, difficulty=0, combat=True), FixedDice([5, 5]), tables)
    assert rec.descriptor.text == "Fatal Wound"


def test_outcome_labels_with_difficulty():
    assert roll([3, 4], skill=10, difficulty=10).outcome == "Success (+3 result points)"
    assert roll([3, 4], skill=10, difficulty=11).outcome == "Success (+2 result points)"
    assert roll([3, 4], skill=10, difficulty=12).outcome == "Success (+1 result point)"
    assert roll([3, 4], skill=10, difficulty=13).outcome == "Success (0 result points)"
    assert roll([3, 4], skill=10, difficulty=15).outcome == "Failure (\u22122 result points)"


# --------------------------------------------------------------------------- params, CLI, JSON


def parse_cli(argv):
    return parse_system_args("roll", torg.ID, argv)[2]


def test_cli_options():
    p = parse_cli(
        [
            "--stymied",
            "--up",
            "--possibilities",
            "2",
            "--ord-no-reroll",
            "--skill",
            "8",
            "--difficulty",
            "+10",
            "--contradiction",
            "4-case",
            "--combat",
            "--target-kind",
            "inorganic",
        ]
    )
    assert p == P(
        stymied=True,
        up=True,
        possibilities=2,
        ord_no_reroll=True,
        skill=8,
        difficulty=10,
        contradiction="4-case",
        combat=True,
        target_kind="inorganic",
    )
    assert parse_cli([]) == P()


@pytest.mark.parametrize(
    "argv, option",
    [
        (["--possibilities", "x"], "--possibilities"),
        (["--possibilities", "-1"], "--possibilities"),
        (["--possibilities", "11"], "--possibilities"),
        (["--skill", "ten"], "--skill"),
        (["--difficulty", "1.5"], "--difficulty"),
        (["--contradiction", "2-case"], "--contradiction"),
        (["--combat"], "--difficulty"),
        (["--combat", "--difficulty", "8", "--target-kind", "robot"], "--target-kind"),
    ],
)
def test_bad_cli_input_is_a_one_line_param_error(argv, option):
    with pytest.raises(ParamError) as err:
        parse_cli(argv)
    assert err.value.option == option and "\n" not in str(err.value)


def test_contradiction_error_lists_the_cases():
    with pytest.raises(ParamError, match="1-case, 4-case"):
        P(contradiction="3-case")


def test_params_json_round_trip():
    p = P(stymied=True, possibilities=3, skill=9, difficulty=11, contradiction="1-case", combat=True)
    assert torg.params_from_json(json.loads(json.dumps(torg.params_to_json(p)))) == p
    with pytest.raises(ParamError):
        torg.params_from_json({"sneaky": 1})


def test_initiative_is_bonus_plus_dexterity():
    rec = torg.initiative(FixedDice([3, 4]), 8)
    assert rec.value == 11 and rec.system == "torg-2d10"
    assert torg.initiative(FixedDice([9, 10, 10, 2]), 0).value == 21


# --------------------------------------------------------------------------- odds


OPTION_SETS = [
    {},
    {"stymied": True},
    {"ord_no_reroll": True},
    {"up": True},
    {"stymied": True, "up": True},
    {"possibilities": 1},
    {"possibilities": 2, "up": True},
    {"possibilities": 3, "stymied": True, "up": True},
    {"possibilities": 10, "up": True},
]


@pytest.mark.parametrize("kw", OPTION_SETS)
def test_odds_sum_to_one_minus_a_tiny_tail(kw):
    o = torg.odds(P(**kw))
    assert sum(p for _, p in o.distribution) + o.tail == 1
    assert 0 < o.tail < Fraction(1, 10**12)


def test_exact_maxing_odds():
    o = torg.odds(P())
    assert o.p(10) == o.p(-10) == Fraction(1, 1000)
    assert o.p(18) == o.p(-18) == Fraction(1, 1000)
    assert o.p(19) == o.p(-19) == 0  # a 10 on the reroll always rolls again
    assert o.p(20) == o.p(28) == o.p(-28) == Fraction(1, 10**4)
    assert o.p(1) == Fraction(9, 100)
    s = torg.odds(P(stymied=True))
    assert max(v for v, _ in s.distribution) == 9
    assert s.p(-18) == Fraction(1, 1000)


def _brute(kw, depth):
    """Every dice sequence of a roll, each chain cut after ``depth`` tens: {value: p}, cut mass."""
    out, cut = {}, Fraction(0)
    stack = [[]]
    while stack:
        prefix = stack.pop()
        if len(prefix) >= depth and all(v == 10 for v in prefix[-depth:]) and len(prefix) > 2:
            cut += Fraction(1, 10 ** len(prefix))
            continue
        rng = FixedDice(prefix)
        try:
            rec = torg.roll(P(**kw), rng)
        except Exception:  # ran out: branch on the next die
            stack.extend(prefix + [v] for v in range(1, 11))
            continue
        out[rec.value] = out.get(rec.value, Fraction(0)) + Fraction(1, 10 ** len(prefix))
    return out, cut


@pytest.mark.parametrize(
    "kw", [{}, {"up": True}, {"stymied": True, "possibilities": 1}, {"ord_no_reroll": True, "up": True}]
)
def test_odds_agree_with_enumerating_every_roll(kw):
    brute, cut = _brute(kw, 4)
    o = torg.odds(P(**kw))
    assert cut < Fraction(1, 1000)
    for v in set(brute) | {v for v, _ in o.distribution}:
        assert abs(o.p(v) - brute.get(v, 0)) <= cut


def test_odds_outcomes_success_failure_disconnection():
    o = torg.odds(P(skill=10, difficulty=10, contradiction="4-case"))
    success, failure, disc = o.outcome("Success"), o.outcome("Failure"), o.outcome("Disconnection")
    assert [label for label, _ in o.outcomes] == ["Success", "Failure", "Disconnection"]
    assert success + failure + o.tail == 1
    assert abs(success - Fraction(55, 100)) < Fraction(1, 10**12)  # bonus ≥ 0
    assert abs(disc - Fraction(21, 100)) < Fraction(1, 10**12)  # bonus ≤ −4
    one = torg.odds(P(contradiction="1-case")).outcome("Disconnection")
    assert abs(one - Fraction(6, 100)) < Fraction(1, 10**12)  # bonus ≤ −7


def test_odds_combat_rows_best_first():
    o = torg.odds(P(skill=10, difficulty=10, combat=True, target_kind="inorganic"))
    labels = [label for label, _ in o.outcomes]
    assert labels[:2] == ["Success", "Failure"]
    rows = labels[2:]
    assert rows == [ROWS[r][1] for r in (10, 8, 6, 5, 4, 3, 2, 1, -1)]
    assert sum(o.outcome(label) for label in rows) + o.tail == 1
    assert o.outcome("Nil") == o.outcome("Failure")


def test_odds_are_the_same_after_warm_up():
    """The roll dialog asks again as the GM types: a repeated query answers from the
    caches, with the same odds. (How fast: ``benchmarks/bench_odds.py``, median ≤ 20 ms.)"""
    queries = [
        P(**kw, skill=s, difficulty=10, contradiction=c)
        for kw in OPTION_SETS[:8]
        for s in (8, 10, 12)
        for c in (None, "4-case")
    ]
    first = [torg.odds(q) for q in queries]
    assert [torg.odds(q) for q in queries] == first


# --------------------------------------------------------------------------- properties


@given(st.data(), st.booleans(), st.booleans(), st.integers(0, 2))
def test_stymied_never_rerolls_a_positive_max(data, up, ord_flag, n):
    rec = torg.roll(P(stymied=True, up=up, ord_no_reroll=ord_flag, possibilities=n), DrawnDice(data))
    hot, cold = rec.dice[0].value, rec.dice[1].value
    rerolls = [d for d in rec.dice if d.role == "reroll"]
    if torg.bonus_of_pair(hot, cold) != -9:
        assert rerolls == []
    assert rec.value == torg.bonus_of_dice(rec.dice)


@given(st.data(), st.sampled_from(OPTION_SETS[:8]), st.sampled_from([None, "1-case", "4-case"]))
def test_records_round_trip_through_json(data, kw, case):
    rec = torg.roll(P(**kw, skill=9, difficulty=10, contradiction=case, combat=True), DrawnDice(data))
    if rec.get("possibilities"):
        rec = torg.cancel_possibility(rec)
    assert RollRecord.from_json(json.loads(rec.dumps())) == rec
    # every die is accounted for: the chains end on a die below 10
    for role in ("reroll", "possibility", "up"):
        chain = [d.value for d in rec.dice if d.role == role]
        if chain:
            assert chain[-1] != 10


# ---------------------------------------------------------------- initiative obeys Stymied, Up, the ord setting


def _initiative(tmp_path, conditions=(), reality_rated=True, settings=None, faces=()):
    from helpers import make_save

    from gmdesk.core.session import Session

    path, ids = make_save(
        tmp_path, "torg-2d10", [{"name": "Quin", "reality_rated": reality_rated, "fields": {"stats": "Dexterity=9"}}]
    )
    with Session.open(path) as s:
        if settings:
            s.apply({"type": "session.settings", "changes": settings})
        for name in conditions:
            s.apply({"type": "condition.add", "id": ids["Quin"], "name": name})
        rng = FixedDice(faces)
        s.roll_initiative([ids["Quin"]], rng)
        assert rng.remaining == 0, "initiative used fewer dice than scripted"
        return s.state.encounter.order[0].initiative, s.state.rolls[-1].record


def test_torg_initiative_of_a_stymied_roller_has_no_positive_reroll(tmp_path):
    # hot 9, cold 10: +9, no reroll when Stymied: 9 + 9 = 18
    value, rec = _initiative(tmp_path, ["Stymied"], faces=[9, 10])
    assert value == 18 and rec.params["stymied"] is True
    # not Stymied: the +9 rerolls (a 4): 9 + 13 = 22
    value, _ = _initiative(tmp_path / "b", faces=[9, 10, 4])
    assert value == 22


def test_torg_initiative_of_an_up_roller_adds_its_d10(tmp_path):
    # hot 1, cold 2: +1; Up adds a 5: 9 + 6 = 15
    value, rec = _initiative(tmp_path, ["Up"], faces=[1, 2, 5])
    assert value == 15 and rec.params["up"] is True


def test_torg_initiative_of_an_ord_obeys_the_no_reroll_setting(tmp_path):
    value, rec = _initiative(tmp_path, reality_rated=False, settings={"ord_positive_reroll": False}, faces=[9, 10])
    assert value == 18 and rec.params["ord_no_reroll"] is True
