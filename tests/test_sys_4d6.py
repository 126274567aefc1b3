"""Core 4d6 vs DC: the seed's worked examples, advantage, contests, clocks, combat, exact odds."""

from __future__ import annotations

from fractions import Fraction

import pytest
from helpers import roll_params
from hypothesis import given
from hypothesis import strategies as st

from gmdesk.core.dice import FixedDice, RollRecord
from gmdesk.core.errors import ParamError
from gmdesk.core.systems import core_4d6 as m
from gmdesk.core.systems import get_system

TIERS = ["Critical Success", "Full Success", "Partial Success", "Failure", "Critical Failure"]


def roll(faces, **kw) -> RollRecord:
    rng = FixedDice(faces)
    r = m.roll(m.Params(**kw), rng)
    assert rng.remaining == 0, "the roll used fewer dice than scripted"
    return r


def kept(r: RollRecord) -> list[int]:
    return [d.value for d in r.dice if d.role == "kept"]


def dropped(r: RollRecord) -> list[int]:
    return [d.value for d in r.dice if d.role == "dropped"]


def test_registered_under_its_id():
    assert get_system("4d6") is m
    assert (m.ID, m.NAME) == ("4d6", "Core 4d6 vs DC")


# ---------------------------------------------------------------- seed worked examples


def test_basic_roll_climbing_a_rough_wall():
    r = roll([3, 5, 2, 4], dc=16, bonus=3)
    assert (r.value, r.get("margin"), r.outcome) == (17, 1, "Full Success")


def test_example_1_picking_a_lock():
    r = roll([3, 3, 5, 4], dc=14, bonus=2)
    assert (r.get("kept"), r.value, r.get("total"), r.get("margin"), r.outcome) == (15, 17, 17, 3, "Full Success")
    assert r.get("success") is True and r.get("dc_name") == "Routine"


def test_example_2_hostile_merchant_with_disadvantage():
    r = roll([2, 6, 4, 5, 3], dc=16, bonus=1, adv=(-1,))
    assert [(d.value, d.role) for d in r.dice] == [(2, "kept"), (6, "dropped"), (4, "kept"), (5, "kept"), (3, "kept")]
    assert (r.get("kept"), r.value, r.get("margin"), r.outcome) == (14, 15, -1, "Partial Success")
    assert r.get("advantage") == -1


def test_example_3_tracking_with_advantage():
    r = roll([1, 3, 6, 4, 5], dc=18, bonus=3, adv=(1,))
    assert dropped(r) == [1] and sorted(kept(r)) == [3, 4, 5, 6]
    assert (r.value, r.get("margin"), r.outcome) == (21, 3, "Full Success")


def test_example_4_critical_success():
    r = roll([6, 6, 5, 5], dc=16, bonus=4)
    assert (r.value, r.get("margin"), r.outcome) == (26, 10, "Critical Success")


def test_example_5_all_ones_is_a_critical_failure():
    r = roll([1, 1, 1, 1], dc=14, bonus=3)
    assert (r.value, r.get("margin"), r.outcome, r.get("all_ones")) == (7, -7, "Critical Failure", True)
    assert r.get("success") is False


def test_all_ones_is_critical_failure_whatever_the_margin():
    r = roll([1, 1, 1, 1], dc=12, bonus=15)
    assert (r.get("margin"), r.outcome) == (7, "Critical Failure")


def test_all_kept_ones_under_disadvantage_is_critical_failure():
    r = roll([1, 6, 1, 1, 1], dc=12, bonus=12, adv=(-1,))
    assert dropped(r) == [6] and r.outcome == "Critical Failure"


def test_advantage_dropping_a_one_is_not_all_ones():
    r = roll([1, 1, 1, 1, 2], dc=12, bonus=10, adv=(1,))
    assert r.get("all_ones") is False and r.outcome == "Full Success"


@pytest.mark.parametrize(
    "total,tier",
    [
        (18, "Full Success"),
        (15, "Partial Success"),
        (12, "Failure"),
        (17, "Full Success"),
        (14, "Partial Success"),
        (11, "Failure"),
        (21, "Critical Success"),
        (9, "Critical Failure"),
        (10, "Failure"),
    ],
)
def test_seed_scenes_at_dc_16_read_the_tier_bands(total, tier):
    assert m.tier_for(total - 16) == tier


# ---------------------------------------------------------------- advantage section examples


def test_plus_1_advantage_example():
    r = roll([2, 4, 5, 3, 6], dc=16, bonus=2, adv=(1,))
    assert dropped(r) == [2] and r.get("kept") == 18 and (r.value, r.get("margin")) == (20, 4)
    assert r.outcome == "Full Success"


def test_plus_2_advantage_example():
    r = roll([2, 4, 5, 3, 6, 1], dc=16, bonus=2, adv=(2,))
    assert dropped(r) == [2, 1] and r.get("kept") == 18 and r.value == 20


def test_minus_1_disadvantage_example():
    r = roll([2, 4, 5, 3, 6], dc=16, bonus=3, adv=(-1,))
    assert dropped(r) == [6] and r.get("kept") == 14 and (r.value, r.get("margin")) == (17, 1)


def test_minus_2_disadvantage_example():
    r = roll([2, 4, 5, 3, 6, 1], dc=16, bonus=3, adv=(-2,))
    assert kept(r) == [2, 4, 3, 1] and dropped(r) == [5, 6]
    assert (r.get("kept"), r.value, r.get("margin"), r.outcome) == (10, 13, -3, "Failure")


def test_ties_drop_the_later_die():
    r = roll([1, 4, 1, 5, 6], adv=(1,))
    assert [d.role for d in r.dice] == ["kept", "kept", "dropped", "kept", "kept"]
    r = roll([6, 2, 6, 2, 6, 6], adv=(-2,))
    assert [d.role for d in r.dice] == ["kept", "kept", "kept", "kept", "dropped", "dropped"]


@pytest.mark.parametrize(
    "sources,level",
    [
        ((1, -1), 0),
        ((2, -1), 1),
        ((1, -2), -1),
        ((2, -2), 0),
        ((1, 1, 1), 2),
        ((-1, -1, -2), -2),
        ((2, 2, -1), 1),
        ((), 0),
    ],
)
def test_netting_table(sources, level):
    assert m.net_advantage(sources) == level


def test_netted_sources_decide_how_many_dice_are_rolled():
    r = roll([2, 4, 5, 3, 6], bonus=0, adv=(2, -1))  # nets to +1: 5d6 keep best 4
    assert r.get("advantage") == 1 and dropped(r) == [2]


# ---------------------------------------------------------------- contests


def test_contest_19_against_13_is_a_clear_victory():
    r = roll([6, 6, 4, 3, 4, 3, 3, 3], vs_bonus=0)
    assert (r.value, r.get("opponent")["total"], r.get("margin")) == (19, 13, 6)
    assert (r.outcome, r.get("contest"), r.get("winner")) == ("Clear victory", "Clear", "roller")
    assert [d["value"] for d in r.get("opponent")["dice"]] == [4, 3, 3, 3]


def test_contest_race_18_against_14_is_clear():
    r = roll([4, 4, 4, 3, 3, 3, 3, 3], bonus=3, vs_bonus=2)
    assert (r.value, r.get("opponent")["total"], r.outcome) == (18, 14, "Clear victory")


@pytest.mark.parametrize(
    "vs_bonus,label,degree,winner",
    [
        (0, "Tie — Partial for both", "Tie", None),
        (-3, "Narrow victory", "Narrow", "roller"),
        (1, "Narrow defeat", "Narrow", "opponent"),
        (6, "Clear defeat", "Clear", "opponent"),
        (7, "Decisive defeat", "Decisive", "opponent"),
        (-7, "Decisive victory", "Decisive", "roller"),
    ],
)
def test_contest_bands_and_ties(vs_bonus, label, degree, winner):
    r = roll([3, 3, 3, 3, 3, 3, 3, 3], vs_bonus=vs_bonus)
    assert (r.outcome, r.get("contest"), r.get("winner")) == (label, degree, winner)


def test_tie_is_a_partial_for_both():
    r = roll([3, 3, 3, 3, 3, 3, 3, 3], bonus=1, vs_bonus=1, effect="great")
    assert r.get("tier") == "Partial Success" and r.get("success") is True and r.get("clock") == 2


def test_opponent_rolls_with_its_own_advantage():
    r = roll([3, 3, 3, 3, 1, 6, 6, 6, 6], vs_bonus=0, vs_adv=(1,))
    opp = r.get("opponent")
    assert [d["role"] for d in opp["dice"]] == ["dropped", "kept", "kept", "kept", "kept"]
    assert (opp["advantage"], opp["total"], r.outcome) == (1, 24, "Decisive defeat")


# ---------------------------------------------------------------- clocks


@pytest.mark.parametrize(
    "faces,effect,halves",
    [
        ([4, 4, 4, 4], "great", 4),  # margin 0 Full
        ([4, 4, 4, 4], "standard", 2),
        ([4, 4, 4, 4], "limited", 1),
        ([6, 6, 5, 4], "great", 4),  # margin +5 Critical: Great is the top, 2 segments
        ([6, 6, 5, 4], "standard", 4),
        ([6, 6, 5, 4], "limited", 2),
        ([4, 4, 4, 2], "great", 2),  # margin -2 Partial
        ([4, 4, 4, 2], "standard", 1),
        ([4, 4, 4, 2], "limited", 0),
        ([4, 4, 3, 2], "great", 0),  # margin -3 Failure
        ([1, 1, 1, 1], "great", 0),  # Critical Failure
    ],
)
def test_clock_progress_in_half_segments(faces, effect, halves):
    r = roll(faces, dc=16, effect=effect)
    assert r.get("clock") == halves


def test_critical_success_never_rises_above_great():
    r = roll([6, 6, 5, 4], dc=16, effect="great")
    assert (r.outcome, r.get("clock"), r.get("clock_effect")) == ("Critical Success", 4, "great")
    assert [name for name, _ in m.EFFECT_LADDER] == ["none", "limited", "standard", "great"]
    r = roll([6, 6, 5, 4], dc=16, effect="standard")
    assert (r.get("clock"), r.get("clock_effect")) == (4, "great")


def test_dc_16_is_the_default_out_of_combat_too():
    # the seed's rough wall (3 5 2 4 + 3 = 17) read against the Standard DC without naming it
    r = roll([3, 5, 2, 4], bonus=3)
    assert (r.value, r.get("dc"), r.get("dc_name"), r.get("margin"), r.outcome) == (
        17,
        16,
        "Standard",
        1,
        "Full Success",
    )
    assert (r.get("success"), r.get("clock"), r.to_json()["params"]["dc"]) == (True, 2, None)


def test_a_contest_has_no_dc():
    r = roll([3, 3, 3, 3, 3, 3, 3, 3], vs_bonus=0)
    assert (r.get("dc"), r.get("dc_name")) == (None, None)
    with pytest.raises(ParamError):
        m.Params(dc=16, vs_bonus=0)


def test_cli_roll_and_odds_default_to_dc_16(capsys):
    from gmdesk.cli.main import main

    assert main(["roll", "4d6", "--bonus", "3", "--seed", "1", "--json"]) == 0
    import json

    rec = json.loads(capsys.readouterr().out)
    assert rec["dc"] == 16 and rec["outcome"] in TIERS and rec["margin"] == rec["total"] - 16
    assert main(["odds", "4d6", "--json"]) == 0
    odds = json.loads(capsys.readouterr().out)
    assert [o["label"] if isinstance(o, dict) else o[0] for o in odds["outcomes"]] == TIERS
    assert main(["odds", "4d6", "--vs-bonus", "0", "--json"]) == 0
    assert "Critical Failure (all 1s)" in capsys.readouterr().out


# ---------------------------------------------------------------- contests: all 1s


def test_contest_all_ones_is_a_critical_failure_whatever_the_margin():
    # four 1s + 20 = 24 against 2 2 2 2 + 0 = 8: the totals say Decisive victory, the dice say Critical Failure
    r = roll([1, 1, 1, 1, 2, 2, 2, 2], bonus=20, vs_bonus=0, effect="great")
    assert (r.value, r.get("opponent")["total"], r.get("margin")) == (24, 8, 16)
    assert (r.outcome, r.get("tier"), r.get("winner"), r.get("contest")) == (
        "Critical Failure (all 1s)",
        "Critical Failure",
        "opponent",
        "All 1s",
    )
    assert (r.get("success"), r.get("clock")) == (False, 0)


def test_contest_opponent_all_ones_is_its_critical_failure_not_the_rollers_critical_success():
    # the table: a total of 5 against an all-1s 34 — the roller wins, Narrowly (a Full
    # Success, in combat a Wound), never a Critical Success with a Severe Wound
    r = roll([2, 1, 1, 1, 1, 1, 1, 1], bonus=0, vs_bonus=30, combat=True)
    assert (r.value, r.get("opponent")["total"], r.get("opponent")["all_ones"]) == (5, 34, True)
    assert (r.outcome, r.get("tier"), r.get("winner"), r.get("contest")) == (
        "Narrow victory — opponent's Critical Failure (all 1s)",
        "Full Success",
        "roller",
        "Narrow",
    )
    assert [(d.text, d.applies_to) for d in r.descriptors] == [("Wound", "target")]
    # level: Narrowly too
    r = roll([2, 2, 2, 2, 1, 1, 1, 1], bonus=0, vs_bonus=4)
    assert (r.outcome, r.get("tier"), r.get("winner")) == (
        "Narrow victory — opponent's Critical Failure (all 1s)",
        "Full Success",
        "roller",
    )
    # ahead: by its own margin (8 against 4: Clear; 12 against 4: Decisive)
    r = roll([2, 2, 2, 2, 1, 1, 1, 1], bonus=0, vs_bonus=0)
    assert (r.outcome, r.get("tier"), r.get("winner")) == ("Clear victory", "Full Success", "roller")
    r = roll([3, 3, 3, 3, 1, 1, 1, 1], bonus=0, vs_bonus=0)
    assert (r.outcome, r.get("tier")) == ("Decisive victory", "Critical Success")
    r = roll([1, 1, 1, 1, 1, 1, 1, 1], vs_bonus=0)
    assert (r.outcome, r.get("tier"), r.get("winner")) == (
        "Critical Failure for both (all 1s)",
        "Critical Failure",
        None,
    )


def test_contest_all_ones_in_combat_knocks_the_attacker_back():
    d = roll([1, 1, 1, 1, 1, 2, 1, 1], combat=True, bonus=30, vs_bonus=0).descriptor
    assert (d.text, d.applies_to) == ("Knockback", "attacker")


def test_contest_odds_count_all_ones():
    o = dict(m.odds(m.Params(bonus=30, vs_bonus=0)).outcomes)
    one = Fraction(1, 1296)
    assert o["Critical Failure (all 1s)"] == one * (1 - one)
    assert o["Critical Failure for both (all 1s)"] == one * one
    # always ahead (34 or more against 24 at most): the opponent's 1s are a Decisive victory
    assert o["Narrow victory — opponent's Critical Failure (all 1s)"] == 0
    assert o["Decisive victory"] == (1 - one) * (1 - one) + (1 - one) * one
    # always behind (34 or less against 34 or more): only the opponent's 1s let the roller win
    o = dict(m.odds(m.Params(bonus=0, vs_bonus=30)).outcomes)
    assert o["Narrow victory — opponent's Critical Failure (all 1s)"] == (1 - one) * one


def test_position_and_effect_are_kept_on_the_record():
    r = roll([3, 4, 5, 6], dc=16, position="Low", effect="great")
    assert (r.get("position"), r.get("effect")) == ("low", "great")


# ---------------------------------------------------------------- combat


def _combat(faces, **kw):
    return [(d.text, d.applies_to, d.row, d.column, d.wound) for d in roll(faces, combat=True, **kw).descriptors]


@pytest.mark.parametrize(
    "kind,crit,full",
    [("organic", "Severe Wound", "Wound"), ("inorganic", "Programme Destruction", "Peripheral Damage")],
)
def test_combat_successes_hit_the_target_in_its_kind_column(kind, crit, full):
    assert _combat([6, 6, 5, 4], target_kind=kind) == [(crit, "target", 6, kind, True)]
    assert _combat([4, 4, 4, 4], target_kind=kind) == [(full, "target", 5, kind, True)]


def test_combat_uses_dc_16_by_default():
    r = roll([4, 4, 4, 4], combat=True)
    assert (r.get("dc"), r.get("margin"), r.outcome) == (16, 0, "Full Success")
    assert r.to_json()["params"]["dc"] is None


@pytest.mark.parametrize(
    "target,attacker,stun,backfoot",
    [
        ("organic", "organic", "Stun", "Backfoot"),
        ("inorganic", "organic", "Severe Rattle", "Backfoot"),
        ("organic", "inorganic", "Stun", "Cosmetic Damage"),
    ],
)
def test_combat_partial_success_marks_both_sides(target, attacker, stun, backfoot):
    assert _combat([4, 4, 4, 2], target_kind=target, attacker_kind=attacker) == [
        (stun, "target", 3, target, True),
        (backfoot, "attacker", -2, attacker, True),
    ]


def test_combat_failure_is_nil():
    assert _combat([4, 4, 3, 2]) == [("Nil", "attacker", -1, "organic", False)]


@pytest.mark.parametrize("kind,text", [("organic", "Knockback"), ("inorganic", "Rattle")])
def test_combat_critical_failure_knocks_the_attacker_back(kind, text):
    assert _combat([1, 1, 1, 1], dc=12, bonus=20, attacker_kind=kind) == [(text, "attacker", -3, kind, True)]
    assert _combat([2, 2, 1, 1], attacker_kind=kind) == [(text, "attacker", -3, kind, True)]  # margin -10


def test_combat_contest_reads_the_result_as_a_tier():
    d = roll([6, 6, 6, 6, 2, 2, 2, 2], combat=True, vs_bonus=0).descriptor
    assert (d.text, d.applies_to) == ("Severe Wound", "target")


def test_no_descriptors_outside_combat():
    assert roll([6, 6, 6, 6], dc=16).descriptors == ()


# ---------------------------------------------------------------- params and CLI


def test_adv_plus_3_is_refused_naming_allowed_values():
    with pytest.raises(ParamError) as e:
        m.Params(adv=(3,))
    assert e.value.option == "--adv"
    for v in ("+1", "+2", "-1", "-2", "+1,+2,-1"):
        assert v in str(e.value)
    with pytest.raises(ParamError, match="--adv"):
        m.net_advantage([1, 3])


@pytest.mark.parametrize(
    "kw,option",
    [
        ({"position": "sideways"}, "--position"),
        ({"effect": "huge"}, "--effect"),
        ({"dc": "impossible"}, "--dc"),
        ({"dc": 0}, "--dc"),
        ({"dc": 16, "vs_bonus": 2}, "--vs-bonus"),
        ({"vs_adv": (1,)}, "--vs-adv"),
        ({"bonus": "lots"}, "--bonus"),
        ({"combat": True, "attacker_kind": "ghost"}, "--attacker-kind"),
    ],
)
def test_bad_params_name_the_option(kw, option):
    with pytest.raises(ParamError) as e:
        m.Params(**kw)
    assert e.value.option == option


def test_dc_accepts_ladder_names():
    assert m.Params(dc="difficult").dc == 18
    assert m.Params(dc="Very Difficult").dc == 20
    assert m.Params(dc="very-difficult").dc == 20


def test_cli_options_become_params():
    argv = [
        "--bonus",
        "+3",
        "--dc",
        "18",
        "--adv",
        "+1,+2,-1",
        "--position",
        "high",
        "--effect",
        "great",
        "--combat",
        "--target-kind",
        "inorganic",
    ]
    assert roll_params(m.ID, argv) == m.Params(
        bonus=3, dc=18, adv=(1, 2, -1), position="high", effect="great", combat=True, target_kind="inorganic"
    )
    argv = ["--vs-bonus", "2", "--vs-adv=-1", "--adv=-2"]
    assert roll_params(m.ID, argv) == m.Params(vs_bonus=2, vs_adv=(-1,), adv=(-2,))
    assert roll_params(m.ID, []) == m.Params()


def test_sources_that_open_with_a_disadvantage_are_read_after_their_option(tmp_path, capsys):
    """``--adv -1,+2`` is the GM's sources, as ``--adv +2,-1`` is (argparse took it for
    an unknown option: "argument --adv: expected one argument")."""
    from helpers import gmdesk_cli

    assert roll_params(m.ID, ["--adv", "-1,+2", "--vs-bonus", "1", "--vs-adv", "-1,-1"]) == m.Params(
        adv=(-1, 2), vs_bonus=1, vs_adv=(-1, -1)
    )
    rc, out, err = gmdesk_cli(capsys, tmp_path, "odds", "4d6", "--adv", "-2,+1", "--json")
    assert rc == 0 and '"adv": [-2, 1]' in out, err
    rc, out, err = gmdesk_cli(capsys, tmp_path, "roll", "4d6", "--adv", "-1,-1,+1", "--seed", "3", "--json")
    assert rc == 0 and '"advantage": -1' in out, err
    rc, out, err = gmdesk_cli(capsys, tmp_path, "roll", "4d6", "--adv", "-1,x")
    assert rc == 2 and err.count("\n") == 1 and "--adv" in err and "expected one argument" not in err


@pytest.mark.parametrize(
    "argv,option",
    [
        (["--adv", "+3"], "--adv"),
        (["--adv", "-1,-3"], "--adv"),
        (["--bonus", "-3,4"], "--bonus"),
        (["--adv", "+1,x"], "--adv"),
        (["--bonus", "1.5"], "--bonus"),
        (["--vs-bonus", "?"], "--vs-bonus"),
        (["--position", "up"], "--position"),
    ],
)
def test_cli_bad_input_is_a_param_error(argv, option):
    with pytest.raises(ParamError) as e:
        roll_params(m.ID, argv)
    assert e.value.option == option


def test_params_json_round_trip():
    p = m.Params(bonus=-1, adv=(2, -1), vs_bonus=3, vs_adv=(-2,), position="low", effect="limited")
    assert m.params_from_json(m.params_to_json(p)) == p


# ---------------------------------------------------------------- initiative


def test_initiative_is_4d6_plus_bonus():
    r = m.initiative(FixedDice([3, 4, 5, 6]), modifier=2)
    assert r.value == 20 and len(r.dice) == 4


# ---------------------------------------------------------------- odds


def test_plain_4d6_distribution():
    d = m.odds(m.Params())
    assert d.p(4) == d.p(24) == Fraction(1, 1296)
    assert d.p(14) == Fraction(146, 1296)
    assert d.outcomes == m.odds(m.Params(dc=16)).outcomes  # DC 16 unless named


def test_all_ones_chance_by_level():
    assert m.kept_distribution(0)[4] == Fraction(1, 6**4)
    assert m.kept_distribution(2)[4] == Fraction(1, 6**6)
    # at -2 four or more of the six dice must show 1
    assert m.kept_distribution(-2)[4] == Fraction(15 * 25 + 6 * 5 + 1, 6**6)


def test_tier_odds_include_the_all_ones_rule():
    d = m.odds(m.Params(dc=12, bonus=20))
    assert dict(d.outcomes) == {
        "Critical Success": 1 - Fraction(1, 1296),
        "Full Success": 0,
        "Partial Success": 0,
        "Failure": 0,
        "Critical Failure": Fraction(1, 1296),
    }
    assert [label for label, _ in d.outcomes] == TIERS


def test_combat_odds_use_dc_16():
    assert m.odds(m.Params(combat=True)).outcomes == m.odds(m.Params(dc=16)).outcomes


def test_advantage_improves_the_odds():
    full = [
        m.odds(m.Params(dc=16, adv=a)).outcome("Full Success")
        + m.odds(m.Params(dc=16, adv=a)).outcome("Critical Success")
        for a in [(-2,), (-1,), (), (1,), (2,)]
    ]
    assert full == sorted(full)


def test_symmetric_contest_odds():
    d = m.odds(m.Params(vs_bonus=0))
    o = dict(d.outcomes)
    assert [label for label, _ in d.outcomes] == list(m.CONTEST_OUTCOMES)
    # the sides are even: one wins as often as the other (the opponent's all 1s count
    # among the roller's victories by margin, the roller's own among its Critical Failures)
    wins = sum(o[k] for k in o if "victory" in k)
    losses = sum(o[k] for k in ("Decisive defeat", "Clear defeat", "Narrow defeat", "Critical Failure (all 1s)"))
    assert wins == losses
    assert sum(o.values()) == 1
    # a tie: both 4d6 totals equal = sum of squared 4d6 probabilities, but for both all 1s
    ties = sum(p * p for _, p in m.odds(m.Params()).distribution)
    assert o["Tie — Partial for both"] == ties - Fraction(1, 1296**2)
    assert o["Critical Failure for both (all 1s)"] == Fraction(1, 1296**2)


# ---------------------------------------------------------------- properties

sources_st = st.lists(st.sampled_from([1, 2, -1, -2]), max_size=6)


@given(sources_st, st.randoms(use_true_random=False))
def test_netting_is_order_independent_and_bounded(sources, rnd):
    shuffled = list(sources)
    rnd.shuffle(shuffled)
    level = m.net_advantage(sources)
    assert level == m.net_advantage(shuffled)
    assert -2 <= level <= 2


params_st = st.builds(
    m.Params,
    bonus=st.integers(-5, 10),
    dc=st.one_of(st.none(), st.integers(8, 26)),
    adv=st.lists(st.sampled_from([1, 2, -1, -2]), max_size=3).map(tuple),
    position=st.sampled_from(m.POSITIONS),
    effect=st.sampled_from(m.EFFECTS),
    combat=st.booleans(),
    target_kind=st.sampled_from(["organic", "inorganic"]),
)


def _contest(p: m.Params, vs_bonus: int | None, vs_adv: tuple) -> m.Params:
    if vs_bonus is None:
        return p
    return m.Params(**{**m.params_to_json(p), "dc": None, "vs_bonus": vs_bonus, "vs_adv": vs_adv})


@given(
    params_st,
    st.one_of(st.none(), st.integers(-3, 8)),
    st.lists(st.sampled_from([1, 2, -1, -2]), max_size=2),
    st.lists(st.integers(1, 6), min_size=12, max_size=12),
)
def test_rolls_keep_four_dice_and_round_trip(params, vs_bonus, vs_adv, faces):
    params = _contest(params, vs_bonus, tuple(vs_adv))
    r = m.roll(params, FixedDice(faces))
    assert sum(d.role == "kept" for d in r.dice) == 4
    assert len(r.dice) == 4 + abs(params.advantage)
    if params.contest:
        assert sum(d["role"] == "kept" for d in r.get("opponent")["dice"]) == 4
    assert r.value == sum(kept(r)) + params.bonus
    assert RollRecord.from_json(r.to_json()) == r
    assert m.odds(params).p(r.value) > 0


@given(params_st, st.one_of(st.none(), st.integers(-3, 8)), st.lists(st.sampled_from([1, 2, -1, -2]), max_size=2))
def test_odds_sum_to_one(params, vs_bonus, vs_adv):
    params = _contest(params, vs_bonus, tuple(vs_adv))
    d = m.odds(params)
    assert sum(p for _, p in d.distribution) == 1
    if d.outcomes:
        assert sum(p for _, p in d.outcomes) == 1


@pytest.mark.parametrize("level", [-2, -1, 0, 1, 2])
def test_kept_distribution_equals_enumerating_every_roll(level):
    """The odds count sorted rolls with their orderings; every ordered roll agrees."""
    import itertools
    from collections import Counter
    from fractions import Fraction

    n = 4 + abs(level)
    counts = Counter()
    for faces in itertools.product(range(1, 7), repeat=n):
        s = sorted(faces)
        counts[sum(s[-4:]) if level > 0 else sum(s[:4])] += 1
    assert m.kept_distribution(level) == {k: Fraction(c, 6**n) for k, c in counts.items()}


@given(
    st.integers(-6, 12),
    st.integers(-6, 12),
    st.sampled_from([-2, -1, 0, 1, 2]),
    st.sampled_from([-2, -1, 0, 1, 2]),
    st.booleans(),
)
def test_contest_odds_equal_reading_every_pair_of_kept_sums(bonus, vs_bonus, level, vs_level, defenseless):
    """The contest's odds, counted by difference, are exactly the rule read for every
    pair of kept sums (the all-1s pairs included), weighted by their probabilities."""
    params = m.Params(
        bonus=bonus,
        vs_bonus=vs_bonus,
        adv=(level,) if level else (),
        vs_adv=(vs_level,) if vs_level else (),
        defenseless=defenseless,
    )
    mine = m.kept_distribution(level)
    theirs = {4: Fraction(1)} if defenseless else m.kept_distribution(vs_level)
    expected = dict.fromkeys(m.CONTEST_OUTCOMES, Fraction(0))
    for k1, p1 in mine.items():
        for k2, p2 in theirs.items():
            expected[m.contest_outcome(k1 + bonus - k2 - vs_bonus, k1 == 4, k2 == 4)[0]] += p1 * p2
    got = m.odds(params).outcomes
    assert [label for label, _ in got] == list(m.CONTEST_OUTCOMES)
    assert dict(got) == expected
    assert all(isinstance(p, Fraction) for _, p in got)
