"""fudge: the six alternate dice methods, the ladder, opposed rolls and combat damage on
the wound track, with the seed's probability columns as data."""

import json
from fractions import Fraction

import pytest
from helpers import DrawnDice
from hypothesis import given
from hypothesis import strategies as st

from gmdesk.cli.rolls import parse_system_args
from gmdesk.core.dice import FixedDice, RollRecord
from gmdesk.core.errors import ParamError
from gmdesk.core.systems import fudge, fudge_dice, get_system
from gmdesk.core.tables import TableSet, parse_table

P = fudge.Params
MINUS = "\u2212"

#: The seed's printed P(x = n) columns, in percent.
SEED_COLUMNS = {
    "2d3": {-4: 1.2, -3: 4.9, -2: 12.3, -1: 19.8, 0: 23.5, 1: 19.8, 2: 12.3, 3: 4.9, 4: 1.2},
    "custom": {-4: 2.7, -3: 5.6, -2: 13.9, -1: 16.7, 0: 22.2, 1: 16.7, 2: 13.9, 3: 5.6, 4: 2.7},
    "d20": {-4: 1.8, -3: 3.3, -2: 10.0, -1: 20.0, 0: 30.0, 1: 20.0, 2: 10.0, 3: 3.3, 4: 1.8},
    "d20-open": {
        -6: 0.3,
        -5: 0.5,
        -4: 1.0,
        -3: 3.3,
        -2: 10.0,
        -1: 20.0,
        0: 30.0,
        1: 20.0,
        2: 10.0,
        3: 3.3,
        4: 1.0,
        5: 0.5,
        6: 0.3,
    },
    "d30": {-4: 3.3, -3: 6.7, -2: 10.0, -1: 16.7, 0: 26.7, 1: 16.7, 2: 10.0, 3: 6.7, 4: 3.3},
    "d12": {-4: 2.1, -3: 4.9, -2: 12.5, -1: 18.8, 0: 23.6, 1: 18.8, 2: 12.5, 3: 4.9, 4: 2.1},
}

RANGES = {"2d3": (-4, 4), "custom": (-4, 4), "d20": (-4, 4), "d20-open": (-6, 6), "d30": (-4, 4), "d12": (-4, 4)}


def roll(dice, **kw):
    rng = FixedDice(dice)
    rec = fudge.roll(P(**kw), rng)
    assert rng.remaining == 0, "the roll used fewer dice than scripted"
    return rec


def test_registered_under_its_rules_id():
    assert get_system("fudge") is fudge
    assert fudge.ID == "fudge" and fudge.NAME == "FUDGE alternate dice"
    assert fudge.METHODS == ("2d3", "custom", "d20", "d20-open", "d30", "d12")
    assert P().method == "2d3"


# --------------------------------------------------------------------------- distributions


@pytest.mark.parametrize("method", list(SEED_COLUMNS))
def test_exact_distribution_matches_the_seed_column(method):
    dist = fudge.odds(P(method=method)).distribution
    assert sum(p for _, p in dist) == 1
    assert {v for v, _ in dist} == set(SEED_COLUMNS[method])
    for value, p in dist:
        assert abs(p * 100 - Fraction(str(SEED_COLUMNS[method][value]))) <= Fraction(1, 10), (method, value)
    assert fudge_dice.result_range(method) == RANGES[method]


def test_some_exact_values():
    assert fudge_dice.distribution("2d3")[0] == Fraction(19, 81)
    assert fudge_dice.distribution("d20")[-4] == Fraction(7, 400)
    assert fudge_dice.distribution("d20-open")[6] == Fraction(1, 400)
    assert fudge_dice.distribution("d12")[4] == Fraction(3, 144)


# --------------------------------------------------------------------------- the methods


def test_2d3_is_positive_pair_minus_negative_pair():
    rec = roll([3, 3, 1, 1])
    assert rec.value == 4 == rec.get("result")
    assert [(d.role, d.sides) for d in rec.dice] == [("positive", 3), ("positive", 3), ("negative", 3), ("negative", 3)]
    assert roll([1, 2, 3, 2]).value == -2
    assert rec.outcome == "+4" and roll([1, 2, 3, 2]).outcome == f"{MINUS}2" and roll([2, 2, 2, 2]).outcome == "0"


@pytest.mark.parametrize(
    "faces, printed, r", [([1, 1], [-2, -2], -4), ([3, 4], [0, 0], 0), ([6, 5], [2, 1], 3), ([2, 6], [-1, 2], 1)]
)
def test_custom_dice(faces, printed, r):
    rec = roll(faces, method="custom")
    assert rec.value == r and rec.get("faces") == tuple(printed)
    assert [(d.role, d.sides) for d in rec.dice] == [("die", 6), ("die", 6)]


@pytest.mark.parametrize(
    "face, r", [(2, -2), (3, -2), (4, -1), (7, -1), (8, 0), (13, 0), (14, 1), (17, 1), (18, 2), (19, 2)]
)
def test_d20_table_without_reroll(face, r):
    for method in ("d20", "d20-open"):
        rec = roll([face], method=method)
        assert rec.value == r and [(d.role, d.sides) for d in rec.dice] == [("die", 20)]


@pytest.mark.parametrize(
    "dice, r",
    [
        ([1, 1], -4),
        ([1, 7], -4),
        ([1, 8], -3),
        ([1, 20], -3),
        ([20, 14], 4),
        ([20, 20], 4),
        ([20, 13], 3),
        ([20, 1], 3),
    ],
)
def test_d20_rerolls_ones_and_twenties(dice, r):
    rec = roll(dice, method="d20")
    assert rec.value == r
    assert [d.role for d in rec.dice] == ["die", "reroll"]


@pytest.mark.parametrize(
    "dice, r",
    [
        ([20, 18], 5),
        ([20, 1], 3),
        ([20, 10], 3),
        ([20, 14], 4),
        ([20, 20], 6),
        ([1, 1], -6),
        ([1, 3], -5),
        ([1, 7], -4),
        ([1, 8], -3),
        ([1, 20], -3),
    ],
)
def test_d20_open_adds_a_second_result_of_the_same_sign(dice, r):
    rec = roll(dice, method="d20-open")
    assert rec.value == r
    assert [d.role for d in rec.dice] == ["die", "reroll"]


@pytest.mark.parametrize(
    "face, r",
    [
        (1, -4),
        (2, -3),
        (3, -3),
        (4, -2),
        (6, -2),
        (7, -1),
        (11, -1),
        (12, 0),
        (19, 0),
        (20, 1),
        (24, 1),
        (25, 2),
        (27, 2),
        (28, 3),
        (29, 3),
        (30, 4),
    ],
)
def test_d30_table_edges(face, r):
    rec = roll([face], method="d30")
    assert rec.value == r and rec.dice[0].sides == 30


@pytest.mark.parametrize(
    "a, b, r",
    [
        (1, 12, -4),
        (1, 11, -4),
        (1, 10, -3),
        (1, 9, -3),
        (1, 8, -2),
        (1, 6, -2),
        (1, 5, -1),
        (1, 3, -1),
        (1, 2, 0),
        (2, 1, 0),
        (3, 1, 1),
        (5, 1, 1),
        (6, 1, 2),
        (8, 1, 2),
        (9, 1, 3),
        (10, 1, 3),
        (11, 1, 4),
        (12, 1, 4),
    ],
)
def test_d12_difference_table_edges(a, b, r):
    rec = roll([a, b], method="d12")
    assert rec.value == r and rec.get("difference") == a - b
    assert [(d.role, d.sides) for d in rec.dice] == [("positive", 12), ("negative", 12)]


def test_unknown_method_lists_the_methods():
    with pytest.raises(ParamError) as err:
        P(method="4dF")
    assert err.value.option == "--method"
    assert "2d3, custom, d20, d20-open, d30, d12" in str(err.value)


# --------------------------------------------------------------------------- ladder


@pytest.mark.parametrize(
    "level, name",
    [
        (-3, "Terrible"),
        (-2, "Poor"),
        (-1, "Mediocre"),
        (0, "Fair"),
        (1, "Good"),
        (2, "Great"),
        (3, "Superb"),
        (4, "Superb +1"),
        (6, "Superb +3"),
        (-4, f"Terrible {MINUS}1"),
        (-5, f"Terrible {MINUS}2"),
    ],
)
def test_ladder_names(level, name):
    assert fudge_dice.ladder_name(level) == name
    assert fudge_dice.parse_level("--trait", name) == level
    assert fudge_dice.parse_level("--trait", name.upper()) == level


@pytest.mark.parametrize(
    "text, level",
    [
        ("great", 2),
        ("GOOD", 1),
        ("+2", 2),
        ("-1", -1),
        (f"{MINUS}3", -3),
        ("0", 0),
        ("superb+1", 4),
        ("Terrible -1", -4),
        (5, 5),
        (" fair ", 0),
    ],
)
def test_parse_level_accepts_names_and_numbers(text, level):
    assert fudge_dice.parse_level("--trait", text) == level


@pytest.mark.parametrize("text", ["awesome", "", "2.5", "Great!", "+", None])
def test_parse_level_rejects_the_rest(text):
    with pytest.raises(ParamError) as err:
        fudge_dice.parse_level("--vs-trait", text)
    assert err.value.option == "--vs-trait" and "Terrible" in str(err.value) and "Superb" in str(err.value)


def test_ladder_round_trip():
    for level in range(-10, 11):
        assert fudge_dice.parse_level("--trait", fudge_dice.ladder_name(level)) == level


def test_trait_gives_the_level_name():
    rec = roll([3, 1, 1, 1], trait="Fair")  # +2
    assert rec.get("level") == 2 and rec.outcome == "Great" == rec.get("level_name")
    rec = roll([6, 5], method="custom", trait="good")  # +3
    assert rec.get("level") == 4 and rec.outcome == "Superb +1"
    assert "level" not in roll([2, 2, 2, 2]).extra


# --------------------------------------------------------------------------- opposed and combat


def test_opposed_roll_compares_levels():
    rec = roll([2, 2, 2, 2, 1, 1, 2, 2], trait="Good", vs_trait="Fair")  # 0 vs −2
    assert rec.get("level") == 1
    opp = rec.get("opponent")
    assert opp["result"] == -2 and opp["level"] == -2 and opp["level_name"] == "Poor"
    assert [d["role"] for d in opp["dice"]] == ["positive", "positive", "negative", "negative"]
    assert rec.get("relative_degree") == 3 and rec.outcome == "Wins by 3"
    assert [d.value for d in rec.dice] == [2, 2, 2, 2]  # the opponent's dice are in its own entry
    assert roll([12, 12], method="d30", trait=1, vs_trait=1).outcome == "Tie"
    assert roll([12, 20], method="d30", trait=1, vs_trait=1).outcome == "Loses by 1"


def test_opposed_roll_uses_the_same_method_for_both():
    rec = roll([20, 18, 1, 1], method="d20-open", trait=0, vs_trait=0)
    assert rec.get("opponent")["result"] == -6 and rec.get("relative_degree") == 11
    assert [d["role"] for d in rec.get("opponent")["dice"]] == ["die", "reroll"]


def combat(degree, offense=0, defense=0):
    # d30 face 12 is a 0 for both sides: the relative degree is trait − vs_trait
    return roll([12, 12], method="d30", trait=degree, vs_trait=0, combat=True, offense=offense, defense=defense)


@pytest.mark.parametrize(
    "damage, text",
    [
        (1, "Scratch"),
        (2, "Scratch"),
        (3, "Hurt"),
        (4, "Hurt"),
        (5, "Very Hurt"),
        (6, "Very Hurt"),
        (7, "Incapacitated"),
        (8, "Incapacitated"),
        (9, "Near Death"),
        (15, "Near Death"),
    ],
)
def test_damage_on_the_wound_track(damage, text):
    rec = combat(damage)
    assert rec.get("hit") is True and rec.get("damage") == damage
    (desc,) = rec.descriptors
    assert desc.text == text and desc.wound is True and desc.amount == damage and desc.applies_to == "target"


@pytest.mark.parametrize(
    "degree, offense, defense, damage, text",
    [
        (1, 2, 0, 3, "Hurt"),
        (2, 0, 1, 1, "Scratch"),
        (3, 3, 2, 4, "Hurt"),
        (1, 0, 1, 0, "No wound"),
        (1, 0, 3, -2, "No wound"),
        (4, 5, 0, 9, "Near Death"),
        (2, 6, 0, 8, "Incapacitated"),
    ],
)
def test_damage_with_offense_and_defense(degree, offense, defense, damage, text):
    rec = combat(degree, offense, defense)
    assert rec.get("damage") == damage and rec.descriptor.text == text
    assert rec.descriptor.wound is (damage >= 1) and rec.descriptor.amount == damage


@pytest.mark.parametrize("degree", [0, -1, -4])
def test_a_miss_deals_no_damage(degree):
    rec = combat(degree, offense=5)
    assert rec.get("hit") is False and rec.get("damage") == 0
    assert rec.descriptor.text == "Miss" and rec.descriptor.wound is False and rec.descriptor.amount is None


def test_combat_without_an_opponent_trait_faces_a_fair_opponent():
    rec = roll([12, 12], method="d30", trait="Good", combat=True)
    assert rec.get("opponent")["trait"] == 0 and rec.get("relative_degree") == 1
    assert rec.descriptor.text == "Scratch"
    rec = roll([12, 12], method="d30", vs_trait="Poor", combat=True)  # no trait: Fair
    assert rec.get("level") == 0 and rec.get("relative_degree") == 2


def test_the_wound_track_is_an_editable_table():
    mine = parse_table(
        {
            "name": "gritty",
            "kind": "bands",
            "bands": [
                {"lo": None, "hi": 1, "value": {"text": "Graze", "wound": False}},
                {"lo": 2, "hi": None, "value": "Down"},
            ],
        }
    )
    tables = TableSet({"fudge-wounds": mine})
    rec = fudge.roll(P(method="d30", trait=1, combat=True), FixedDice([12, 12]), tables)
    assert rec.descriptor.text == "Graze" and rec.descriptor.wound is False and rec.descriptor.table == "gritty"
    rec = fudge.roll(P(method="d30", trait=2, combat=True), FixedDice([12, 12]), tables)
    assert rec.descriptor.text == "Down" and rec.descriptor.wound is True


# --------------------------------------------------------------------------- odds outcomes


def test_odds_with_a_trait_lists_levels_best_first():
    o = fudge.odds(P(method="d30", trait="Great"))
    labels = [label for label, _ in o.outcomes]
    assert labels == ["Superb +3", "Superb +2", "Superb +1", "Superb", "Great", "Good", "Fair", "Mediocre", "Poor"]
    assert o.outcome("Great") == Fraction(8, 30)
    assert sum(p for _, p in o.outcomes) == 1


def test_odds_of_an_opposed_roll():
    o = fudge.odds(P(trait=0, vs_trait=0))
    assert [label for label, _ in o.outcomes] == ["Wins", "Tie", "Loses"]
    assert o.outcome("Wins") == o.outcome("Loses") and sum(p for _, p in o.outcomes) == 1
    assert fudge.odds(P(trait=3, vs_trait=-3)).outcome("Wins") > Fraction(99, 100)


def test_odds_of_combat_hit_and_wounds():
    o = fudge.odds(P(method="d30", trait=2, vs_trait=1, combat=True, offense=1))
    labels = [label for label, _ in o.outcomes]
    assert labels == ["Hit", "Miss", "Near Death", "Incapacitated", "Very Hurt", "Hurt", "Scratch", "No wound"]
    assert o.outcome("Hit") + o.outcome("Miss") == 1
    assert sum(o.outcome(label) for label in labels[2:]) == o.outcome("Hit")
    # degree ≥ 1 with damage = degree + 1: Scratch needs degree exactly 1
    d = fudge_dice.distribution("d30")
    degree_one = sum(p * q for x, p in d.items() for y, q in d.items() if x - y + 1 == 1)
    assert o.outcome("Scratch") == degree_one
    assert o.outcome("No wound") == 0


# --------------------------------------------------------------------------- params, CLI, initiative


def parse_cli(argv):
    return parse_system_args("roll", fudge.ID, argv)[2]


def test_cli_options():
    p = parse_cli(
        ["--method", "d12", "--trait", "great", "--vs-trait", "Poor", "--offense", "2", "--defense", "-1", "--combat"]
    )
    assert p == P(method="d12", trait=2, vs_trait=-2, offense=2, defense=-1, combat=True)
    assert parse_cli([]) == P()


@pytest.mark.parametrize(
    "argv, option",
    [
        (["--method", "3d6"], "--method"),
        (["--trait", "Legendary"], "--trait"),
        (["--vs-trait", "x"], "--vs-trait"),
        (["--offense", "lots"], "--offense"),
        (["--defense", "1.5"], "--defense"),
    ],
)
def test_bad_cli_input_is_a_one_line_param_error(argv, option):
    with pytest.raises(ParamError) as err:
        parse_cli(argv)
    assert err.value.option == option and "\n" not in str(err.value)


def test_initiative_is_result_plus_trait():
    rec = fudge.initiative(FixedDice([3, 2, 1, 1]), 2)  # +3
    assert rec.value == 5 and rec.system == "fudge"
    assert fudge.initiative(FixedDice([30]), -1, method="d30").value == 3


@given(st.data(), st.sampled_from(fudge.METHODS))
def test_result_within_the_method_range(data, method):
    rec = fudge.roll(P(method=method), DrawnDice(data))
    lo, hi = RANGES[method]
    assert lo <= rec.value <= hi
    assert fudge_dice.distribution(method).get(rec.value, 0) > 0


@given(
    st.data(),
    st.sampled_from(fudge.METHODS),
    st.none() | st.integers(-5, 5),
    st.none() | st.integers(-5, 5),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(-3, 3),
)
def test_json_round_trip(data, method, trait, vs, is_combat, offense, defense):
    params = P(method=method, trait=trait, vs_trait=vs, combat=is_combat, offense=offense, defense=defense)
    assert fudge.params_from_json(json.loads(json.dumps(fudge.params_to_json(params)))) == params
    rec = fudge.roll(params, DrawnDice(data))
    assert RollRecord.from_json(json.loads(rec.dumps())) == rec
