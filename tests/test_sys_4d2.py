"""Four D Two: the seed's example rolls, shifts, folds, descriptor tables and exact odds."""

from __future__ import annotations

from fractions import Fraction

import pytest
from helpers import roll_params
from hypothesis import given
from hypothesis import strategies as st

from gmdesk.core.dice import Descriptor, FixedDice, RollRecord
from gmdesk.core.errors import ParamError
from gmdesk.core.systems import four_d_two as m
from gmdesk.core.systems import get_system
from gmdesk.core.tables import TableSet, parse_table

OUTCOME_NAMES = {
    10: "Immaculate Success",
    9: "Wondrous Success",
    8: "Magnificent Success",
    7: "Majestic Success",
    6: "Masterful Success",
    5: "Extraordinary Success",
    4: "Outstanding Success",
    3: "Superior Success",
    2: "Solid Success",
    1: "Barely Successful",
    0: "Detent",
    -1: "Minor Failure",
    -2: "Clear Failure",
    -3: "Major Failure",
    -4: "Severe Failure",
    -5: "Massive Failure",
    -6: "Complete Failure",
    -7: "Grievous Failure",
    -8: "Disastrous Failure",
    -9: "Calamitous Failure",
    -10: "Cataclysmic Failure",
}


def dice_for(number: int) -> list[int]:
    """Four faces (positive pair, negative pair) whose Number is ``number``."""
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                for d in range(1, 7):
                    if a + b - c - d == number:
                        return [a, b, c, d]
    raise AssertionError(number)


def roll(faces, **kw) -> RollRecord:
    return m.roll(m.Params(**kw), FixedDice(faces))


def test_registered_under_its_id():
    assert get_system("4d2") is m
    assert (m.ID, m.NAME) == ("4d2", "Four D Two")


# ---------------------------------------------------------------- seed example rolls


def test_seed_example_12_minus_2_is_immaculate_success():
    r = roll([6, 6, 1, 1])
    assert (r.value, r.outcome, r.get("number")) == (10, "Immaculate Success", 10)
    assert r.get("skill_chance") is True
    assert [(d.value, d.role) for d in r.dice] == [(6, "positive"), (6, "positive"), (1, "negative"), (1, "negative")]


def test_seed_example_9_minus_8_is_barely_successful():
    r = roll([5, 4, 4, 4])
    assert (r.value, r.outcome) == (1, "Barely Successful")
    assert r.get("skill_chance") is False


def test_seed_example_one_die_four_times_3_1_then_4_6():
    r = roll([3, 1, 4, 6])
    assert (r.get("number"), r.value, r.outcome) == (-6, -6, "Complete Failure")


def test_seed_green_and_red_dice_plus_one():
    assert roll([6, 1, 4, 2]).value == 1


@pytest.mark.parametrize("value", range(-10, 11))
def test_every_outcome_name_comes_from_the_outcome_table(value):
    assert roll(dice_for(value)).outcome == OUTCOME_NAMES[value]


def test_outcome_labels_follow_the_outcome_table_in_force():
    mine = parse_table(
        {"name": "mine", "columns": ["outcome"], "rows": {str(v): f"Result {v:+d}" for v in range(-10, 11)}}
    )
    r = m.roll(m.Params(), FixedDice([6, 6, 1, 1]), TableSet({"outcomes": mine}))
    assert r.outcome == "Result +10"


# ---------------------------------------------------------------- shifts


def test_three_shifts_move_plus_6_to_fatal_wound_without_skill_chance():
    r = roll(dice_for(6), shift=3, combat=True)
    assert (r.get("number"), r.value, r.outcome) == (6, 9, "Wondrous Success")
    assert r.get("skill_chance") is False
    assert r.descriptor.text == "Fatal Wound" and r.descriptor.applies_to == "target"


def test_repair_with_plus_3_moves_minor_failure_to_solid_success():
    r = roll(dice_for(-1), shift=3)
    assert (r.get("number"), r.value, r.outcome) == (-1, 2, "Solid Success")


def test_mud_wrestling_plus_8_with_two_shifts_caps_at_immaculate_without_skill():
    r = roll(dice_for(8), shift=2)
    assert (r.value, r.outcome, r.get("skill_chance")) == (10, "Immaculate Success", False)


def test_plus_2_shift_moves_solid_to_outstanding():
    assert roll(dice_for(2), shift=2).outcome == "Outstanding Success"


def test_pistol_2_against_pistol_2_cancels():
    mine = m.own_shift([1, 1])  # pistol skill + DEX
    theirs = m.own_shift([2])  # Pistol 2
    assert m.net_shift(mine, theirs) == 0


def test_own_shift_is_held_to_0_to_3():
    assert m.own_shift([]) == 0
    assert m.own_shift([1, 1, 1, 1, 2]) == 3
    assert m.own_shift([1, -3]) == 0


def test_net_shift_stays_in_minus_3_to_3():
    assert m.net_shift(3, 0) == 3
    assert m.net_shift(0, 3) == -3
    assert m.net_shift(5, 0) == 3
    assert m.net_shift(1, 3) == -2


def test_shift_moves_the_outcome_never_the_number():
    r = roll(dice_for(4), shift=-2)
    assert (r.get("number"), r.get("shift"), r.value) == (4, -2, 2)


def test_outcome_clamps_at_both_ends():
    assert roll(dice_for(9), shift=3).value == 10
    assert roll(dice_for(-9), shift=-3).value == -10
    assert roll(dice_for(-9), shift=-3).outcome == "Cataclysmic Failure"


# ---------------------------------------------------------------- folds


def test_positive_fold_turns_bad_numbers_good():
    r = roll(dice_for(-7), fold="positive")
    assert (r.get("raw_number"), r.get("number"), r.value, r.outcome) == (-7, 7, 7, "Majestic Success")


def test_negative_fold_turns_good_numbers_bad():
    r = roll(dice_for(5), fold="negative")
    assert (r.get("raw_number"), r.get("number"), r.value) == (5, -5, -5)


def test_folded_roll_never_crosses_detent():
    assert roll(dice_for(1), fold="positive", shift=-3).value == 0
    assert roll(dice_for(-2), fold="negative", shift=3).value == 0
    assert roll(dice_for(0), fold="negative", shift=2).outcome == "Detent"


def test_folded_roll_never_gives_a_skill_chance():
    assert roll(dice_for(10), fold="positive").get("skill_chance") is False
    assert roll(dice_for(-10), fold="positive").get("skill_chance") is False


# ---------------------------------------------------------------- skill chance


def test_skill_chance_at_threshold_and_not_below():
    assert roll(dice_for(9)).get("skill_chance") is True
    assert roll(dice_for(8)).get("skill_chance") is False


def test_skill_threshold_is_a_setting():
    assert roll(dice_for(8), skill_threshold=8).get("skill_chance") is True
    assert roll(dice_for(10), skill_threshold=11).get("skill_chance") is False


def test_skill_chance_odds_match_the_seed_remark_exactly():
    d = m.odds(m.Params())
    p9 = sum(p for v, p in d.distribution if v >= 9)
    p8 = sum(p for v, p in d.distribution if v >= 8)
    assert p9 == Fraction(5, 1296)
    assert p8 == Fraction(15, 1296) == 3 * p9
    assert m.skill_chance_probability(m.Params()) == Fraction(5, 1296)
    assert m.skill_chance_probability(m.Params(skill_threshold=8)) == Fraction(15, 1296)
    assert m.skill_chance_probability(m.Params(fold="positive")) == 0


# ---------------------------------------------------------------- combat


@pytest.mark.parametrize("kind,text", [("organic", "Severe Wound"), ("inorganic", "Programme Destruction")])
def test_positive_combat_outcome_hits_target_in_its_kind_column(kind, text):
    r = roll(dice_for(6), combat=True, target_kind=kind, attacker_kind="organic")
    assert r.descriptors == (Descriptor(text, "target", row=6, table="4d2-combat", column=kind, wound=True),)


@pytest.mark.parametrize("kind,text", [("organic", "Wound"), ("inorganic", "Peripheral Damage")])
def test_negative_combat_outcome_hurts_the_roller_in_its_own_kind_column(kind, text):
    r = roll(dice_for(-6), combat=True, target_kind="inorganic" if kind == "organic" else "organic", attacker_kind=kind)
    d = r.descriptor
    assert (d.text, d.applies_to, d.column, d.row, d.wound) == (text, "attacker", kind, -6, True)


def test_inorganic_target_backfoot_row_reads_cosmetic_injury():
    assert roll(dice_for(1), combat=True, target_kind="inorganic").descriptor.text == "Cosmetic Injury"


def test_detent_in_combat_is_ongoing_story_and_no_wound():
    d = roll(dice_for(0), combat=True).descriptor
    assert (d.text, d.applies_to, d.wound) == ("Ongoing combat story", "target", False)


def test_minus_one_in_combat_is_nil_for_the_attacker():
    d = roll(dice_for(-1), combat=True).descriptor
    assert (d.text, d.applies_to, d.wound) == ("Nil", "attacker", False)


def test_shifted_combat_reads_the_shifted_row():
    d = roll(dice_for(-2), combat=True, shift=3).descriptor
    assert (d.row, d.text, d.applies_to) == (1, "Backfoot", "target")


def test_plain_roll_has_no_descriptor():
    assert roll(dice_for(6)).descriptors == ()


# ---------------------------------------------------------------- maneuver


def test_maneuver_table_is_read_by_value_with_canonical_outcome_names():
    r = roll(dice_for(5), maneuver=True)
    assert r.outcome == "Extraordinary Success"  # the maneuver table's own +5 name differs
    d = r.descriptor
    assert (d.text, d.applies_to, d.row, d.wound, d.table) == (
        "Shift for Minutes",
        "attacker",
        5,
        False,
        "4d2-maneuver",
    )
    assert roll(dice_for(4), maneuver=True).descriptor.text == "Lasts Months"
    assert roll(dice_for(4), maneuver=True).outcome == "Outstanding Success"


@pytest.mark.parametrize(
    "value,text",
    [(10, "Invention"), (0, "Keep struggling."), (-1, "Try Again"), (-6, "Complication"), (-10, "Destruction")],
)
def test_maneuver_rows(value, text):
    r = roll(dice_for(value), maneuver=True)
    assert r.descriptor.text == text and r.get("maneuver") is True


# ---------------------------------------------------------------- params and CLI


def test_shift_out_of_range_names_the_option_and_range():
    with pytest.raises(ParamError) as e:
        m.Params(shift=4)
    assert e.value.option == "--shift"
    assert str(e.value) == "--shift: must be a whole number from -3 to 3 (got 4)"


def test_bad_fold_names_the_allowed_values():
    with pytest.raises(ParamError) as e:
        m.Params(fold="sideways")
    assert e.value.option == "--fold"
    assert "positive" in str(e.value) and "negative" in str(e.value) and "sideways" in str(e.value)


def test_combat_and_maneuver_together_are_refused():
    with pytest.raises(ParamError) as e:
        m.Params(combat=True, maneuver=True)
    assert "--combat" in str(e.value) and "--maneuver" in str(e.value)


def test_bad_kind_is_refused():
    with pytest.raises(ParamError, match="--target-kind"):
        m.Params(combat=True, target_kind="ghost")


def test_cli_options_become_params():
    argv = ["--shift", "+2", "--fold", "Negative", "--combat", "--target-kind", "inorganic", "--skill-threshold", "8"]
    assert roll_params(m.ID, argv) == m.Params(
        shift=2, fold="negative", combat=True, target_kind="inorganic", skill_threshold=8
    )
    assert roll_params(m.ID, ["--maneuver", "--shift=-3"]) == m.Params(shift=-3, maneuver=True)
    assert roll_params(m.ID, []) == m.Params()


@pytest.mark.parametrize(
    "argv,option",
    [
        (["--shift", "4"], "--shift"),
        (["--shift", "two"], "--shift"),
        (["--fold", "sideways"], "--fold"),
        (["--combat", "--maneuver"], "--maneuver"),
        (["--skill-threshold", "0"], "--skill-threshold"),
    ],
)
def test_cli_bad_input_is_a_param_error(argv, option):
    with pytest.raises(ParamError) as e:
        roll_params(m.ID, argv)
    assert e.value.option == option


def test_params_json_round_trip():
    p = m.Params(shift=-2, fold="positive", combat=True, target_kind="inorganic", skill_threshold=10)
    assert m.params_from_json(m.params_to_json(p)) == p


# ---------------------------------------------------------------- initiative


def test_initiative_is_number_plus_own_shifts():
    r = m.initiative(FixedDice([6, 5, 2, 3]), modifier=2)
    assert (r.value, r.get("number")) == (8, 6)
    assert len(r.dice) == 4


# ---------------------------------------------------------------- odds


def test_distribution_shape():
    d = m.odds(m.Params())
    assert d.p(0) == Fraction(146, 1296)
    assert d.p(10) == d.p(-10) == Fraction(1, 1296)
    assert all(d.p(v) == d.p(-v) for v in range(11))
    assert max(d.distribution, key=lambda vp: vp[1])[0] == 0
    assert sum(p for _, p in d.distribution) == 1


def test_odds_outcomes_list_every_name_best_first():
    d = m.odds(m.Params(shift=1))
    assert [label for label, _ in d.outcomes] == [OUTCOME_NAMES[v] for v in range(10, -11, -1)]
    assert sum(p for _, p in d.outcomes) == 1
    assert d.outcome("Immaculate Success") == Fraction(1 + 4, 1296)  # Number 10 or 9 with +1


def test_odds_after_fold_and_shift():
    d = m.odds(m.Params(fold="positive", shift=-1))
    assert min(v for v, _ in d.distribution) == 0
    assert d.p(0) == Fraction(146, 1296) + 2 * m.number_distribution()[1]
    assert d.outcome("Minor Failure") == 0


@given(
    st.lists(st.integers(1, 6), min_size=4, max_size=4),
    st.integers(-3, 3),
    st.sampled_from([None, "positive", "negative"]),
)
def test_odds_agree_with_the_roll(faces, shift, fold):
    p = m.Params(shift=shift, fold=fold)
    assert m.odds(p).p(m.roll(p, FixedDice(faces)).value) > 0


# ---------------------------------------------------------------- properties

params_st = st.builds(
    m.Params,
    shift=st.integers(-3, 3),
    fold=st.sampled_from([None, "positive", "negative"]),
    maneuver=st.booleans(),
    skill_threshold=st.integers(1, 11),
    target_kind=st.sampled_from(["organic", "inorganic"]),
    attacker_kind=st.sampled_from(["organic", "inorganic"]),
)
faces_st = st.lists(st.integers(1, 6), min_size=4, max_size=4)


@given(params_st, st.booleans(), faces_st)
def test_value_always_in_range_and_folds_never_cross_detent(params, combat, faces):
    if combat and not params.maneuver:
        params = m.Params(**{**m.params_to_json(params), "combat": True})
    r = m.roll(params, FixedDice(faces))
    assert -10 <= r.value <= 10
    if params.fold == "positive":
        assert r.value >= 0
    if params.fold == "negative":
        assert r.value <= 0
    if params.fold is not None or r.get("raw_number") < params.skill_threshold:
        assert r.get("skill_chance") is False
    assert r.outcome == OUTCOME_NAMES[r.value]


@given(params_st, st.booleans(), faces_st)
def test_record_json_round_trip(params, combat, faces):
    if combat and not params.maneuver:
        params = m.Params(**{**m.params_to_json(params), "combat": True})
    r = m.roll(params, FixedDice(faces))
    assert RollRecord.from_json(r.to_json()) == r
    assert m.params_from_json(r.to_json()["params"]) == params
