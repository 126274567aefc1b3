"""Exact odds against every roll: for each system's roll and contest, over the
parameters a GM can type on the command line (edges included: the largest and
smallest modifiers, shifts and advantage levels, ties), ``odds`` equals the sum over
every dice sequence the system's own ``roll`` can meet, each weighted by its chance.
The named outcomes are read from each record by RULES.md's own words (tiers from the
margin and the kept dice, hits and wounds from the relative degree, prevailing from
the totals), not by the system's code, so a rule read wrongly in both the roll and
the odds fails here too.

The enumeration walks the tree of dice (:func:`gmdesk.testing.every_roll`, which the
conformance suite runs on every system's defaults): a source that answers from a path
and stops at the first die past it makes the roll tell which die comes next.
torg's progressive rerolls are cut after three tens; the mass cut off bounds the
difference allowed.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from helpers import roll_params
from hypothesis import given, settings
from hypothesis import strategies as st

from gmdesk.core.dice import FixedDice
from gmdesk.core.systems import get_spec
from gmdesk.testing import every_roll as _every_roll

# ----------------------------------------------------------------- every roll


def every_roll(roll, cut=None):
    """``([(record, chance)…], mass cut off)`` over every dice sequence of ``roll``
    (:func:`gmdesk.testing.every_roll`, without a limit)."""
    found = _every_roll(roll, cut=cut)
    assert found is not None
    return found


def tally(pairs, key: Callable[[Any], Any]) -> dict[Any, Fraction]:
    acc: dict[Any, Fraction] = defaultdict(Fraction)
    for record, w in pairs:
        for k in key(record) if isinstance(key(record), (set, frozenset)) else (key(record),):
            acc[k] += w
    return dict(acc)


def assert_odds(system: str, argv: list[str], events: Callable[[Any], Any], cut=None) -> None:
    """``gmdesk odds SYSTEM ARGV`` equals every roll of ``gmdesk roll SYSTEM ARGV``: the
    value's distribution, and each named outcome read from the records by ``events``
    (a label, or a set of labels a record counts for)."""
    spec = get_spec(system)
    params = roll_params(system, argv)
    pairs, cut_mass = every_roll(lambda rng: spec.roll(params, rng), cut)
    odds = spec.odds(params)
    values = tally(pairs, lambda r: r.value)
    allowed = cut_mass + odds.tail
    for v in set(values) | {v for v, _ in odds.distribution}:
        assert abs(odds.p(v) - values.get(v, 0)) <= allowed, (argv, "value", v, odds.p(v), values.get(v, 0))
    named = tally(pairs, events)
    labels = [label for label, _ in odds.outcomes]
    assert len(set(labels)) == len(labels), (argv, labels)
    for label in set(named) | set(labels):
        assert label in labels, (argv, f"a roll reads {label!r}, which the odds do not list", labels)
        got = named.get(label, Fraction(0))
        assert abs(odds.outcome(label) - got) <= allowed, (argv, label, odds.outcome(label), got)


# ----------------------------------------------------------------- 4d2

FOURD2_NAMES = {
    10: "Immaculate Success",
    0: "Detent",
    -10: "Cataclysmic Failure",
}


def _4d2_value(r) -> int:
    """RULES.md: Number = positive pair − negative pair; a fold; the net shift; clamp to
    ±10; a folded roll never crosses Detent."""
    pos = sum(d.value for d in r.dice if d.role == "positive")
    neg = sum(d.value for d in r.dice if d.role == "negative")
    number = pos - neg
    fold, shift = r.params.get("fold"), r.params.get("shift", 0)
    if fold == "positive":
        number = abs(number)
    elif fold == "negative":
        number = -abs(number)
    value = max(-10, min(10, number + shift))
    if fold == "positive":
        value = max(0, value)
    elif fold == "negative":
        value = min(0, value)
    return value


def _4d2_events(r) -> str:
    value = _4d2_value(r)
    assert r.value == value, (r.to_json(), value)
    skill = r.get("skill_chance")
    unshifted = sum(d.value for d in r.dice if d.role == "positive") - sum(
        d.value for d in r.dice if d.role == "negative"
    )
    assert bool(skill) == (not r.params.get("fold") and unshifted >= r.params.get("skill_threshold", 9))
    if value in FOURD2_NAMES:
        assert r.outcome == FOURD2_NAMES[value]
    return r.outcome


@settings(max_examples=25, deadline=None)
@given(
    shift=st.integers(-3, 3),
    fold=st.sampled_from([None, "positive", "negative"]),
    mode=st.sampled_from([[], ["--combat"], ["--maneuver"]]),
    kinds=st.sampled_from([[], ["--target-kind", "inorganic"], ["--attacker-kind", "inorganic"]]),
)
def test_4d2_odds_are_every_roll(shift, fold, mode, kinds):
    argv = ["--shift", str(shift), *(["--fold", fold] if fold else []), *mode]
    if "--combat" in mode:
        argv += kinds
    assert_odds("4d2", argv, _4d2_events)


# ----------------------------------------------------------------- fudge

LADDER = ["Terrible", "Poor", "Mediocre", "Fair", "Good", "Great", "Superb"]
LOWEST = {"2d3": -4, "custom": -4, "d20": -4, "d20-open": -6, "d30": -4, "d12": -4}


def ladder_name(level: int) -> str:
    """RULES.md: Terrible −3 … Superb +3; beyond the ends "Superb +1", "Terrible −1"."""
    if level > 3:
        return f"Superb +{level - 3}"
    if level < -3:
        return f"Terrible −{-3 - level}"
    return LADDER[level + 3]


def wound(damage: int) -> str:
    """RULES.md's wound track: ≤ 0 no wound, 1–2 Scratch, 3–4 Hurt, 5–6 Very Hurt, 7–8
    Incapacitated, ≥ 9 Near Death."""
    if damage <= 0:
        return "No wound"
    return ["Scratch", "Hurt", "Very Hurt", "Incapacitated"][(damage - 1) // 2] if damage <= 8 else "Near Death"


def _fudge_events(trait: int | None, vs: int | None, combat: bool, offense: int, defense: int, lowest: int):
    def events(r) -> set[str] | str:
        if vs is None and not combat:
            if trait is None:
                return set()  # a bare result names no outcome
            assert r.get("level") == r.get("result") + trait
            return ladder_name(r.get("result") + trait)
        opp = r.get("opponent")
        mine = r.get("result") + (trait or 0)
        theirs = opp["level"]
        if r.params.get("defenseless"):
            assert opp["result"] == lowest, opp
        rd = mine - theirs
        assert r.get("relative_degree") == rd
        if not combat:
            return "Wins" if rd > 0 else "Loses" if rd < 0 else "Tie"
        if rd < 1:
            return {"Miss"}
        return {"Hit", wound(rd + offense - defense)}

    return events


@settings(max_examples=40, deadline=None)
@given(
    method=st.sampled_from(["2d3", "custom", "d20", "d20-open", "d30", "d12"]),
    trait=st.one_of(st.none(), st.sampled_from([-5, -3, 0, 1, 3, 6])),
    vs=st.one_of(st.none(), st.sampled_from([-4, -3, 0, 2, 3, 5])),
    combat=st.booleans(),
    defenseless=st.booleans(),
    offense=st.sampled_from([0, 1, 3, -2, 20]),
    defense=st.sampled_from([0, 2, -1, 20]),
)
def test_fudge_odds_are_every_roll(method, trait, vs, combat, defenseless, offense, defense):
    argv = ["--method", method]
    if trait is not None:
        argv += ["--trait", str(trait)]
    if vs is not None:
        argv += ["--vs-trait", str(vs)]
    if combat:
        argv += ["--combat", "--offense", str(offense), "--defense", str(defense)]
    else:
        offense = defense = 0
    opposed = combat or vs is not None
    if defenseless and opposed:
        argv += ["--defenseless"]
    theirs = (0 if vs is None else vs) if opposed else None
    assert_odds("fudge", argv, _fudge_events(trait, theirs, combat, offense, defense, LOWEST[method]))


# ----------------------------------------------------------------- 1d6x4


def _1d6x4_events(bonus: int, target: int | None, vs_bonus: int | None, takes_14: bool, mutual: bool):
    def events(r) -> str:
        mine = 4 * r.dice[0].value + bonus if r.dice else None
        if vs_bonus is None:
            assert r.value == mine
            if target is None:
                return set()  # a total without a target names no outcome
            return "Success" if mine >= target else "Failure"
        opp = r.get("opponent")
        theirs = 14 + vs_bonus if takes_14 else 4 * opp["dice"][0]["value"] + vs_bonus
        assert opp["total"] == theirs and r.value == mine
        if mutual and mine == theirs:
            return "Tie: nobody hurt"
        # RULES.md: the higher total prevails; a tie keeps the status quo (the defender)
        return "Attacker prevails" if mine > theirs else "Defender prevails"

    return events


_MODS = st.one_of(st.integers(-12, 12), st.sampled_from([-999, 999]))


@settings(max_examples=60, deadline=None)
@given(
    bonus=_MODS,
    target=st.one_of(st.none(), st.integers(-5, 40)),
    vs_bonus=st.one_of(st.none(), _MODS),
    takes_14=st.booleans(),
    combat=st.booleans(),
    mutual=st.booleans(),
)
def test_1d6x4_odds_are_every_roll(bonus, target, vs_bonus, takes_14, combat, mutual):
    argv = ["--bonus", str(bonus)]
    if vs_bonus is None:
        target = 14 if target is None and combat else target
        if target is not None:
            argv += ["--target", str(target)]
        takes_14 = mutual = False
    else:
        target = None
        argv += ["--vs-bonus", str(vs_bonus)]
        if takes_14:
            argv += ["--defender-takes-14"]
    if combat:
        argv += ["--combat"]
    mutual = mutual and vs_bonus is not None and combat and not takes_14
    if mutual:
        argv += ["--mutual"]
    assert_odds("1d6x4", argv, _1d6x4_events(bonus, target, vs_bonus, takes_14, mutual))


# ----------------------------------------------------------------- torg-2d10

#: RULES.md: result points → a row of the 4d2 Combat table
TORG_ROWS = [(15, 10), (12, 8), (9, 6), (7, 5), (5, 4), (3, 3), (1, 2), (0, 1)]


def _torg_row(points: int) -> int:
    return next((row for at, row in TORG_ROWS if points >= at), -1)


def _torg_events(skill: int | None, difficulty: int | None, contradiction: str | None, combat: bool):
    def events(r) -> set[str] | str:
        bonus = r.value
        got: set[str] = set()
        if difficulty is not None:
            points = (skill or 0) + bonus - difficulty
            got.add("Success" if points >= 0 else "Failure")
            if combat:
                assert r.descriptor is not None and r.descriptor.row == _torg_row(points), (points, r.descriptor)
                got.add(r.descriptor.text)
        disconnected = contradiction is not None and bonus <= (-7 if contradiction == "1-case" else -4)
        assert bool(r.get("disconnection")) == disconnected, (r.to_json(), contradiction)
        if difficulty is not None:
            assert r.get("success") == ((skill or 0) + bonus >= difficulty)
        if disconnected:
            got.add("Disconnection")
        return got

    return events


@settings(max_examples=25, deadline=None)
@given(
    skill=st.one_of(st.none(), st.sampled_from([0, 8, 13, 30])),
    difficulty=st.one_of(st.none(), st.sampled_from([0, 8, 12, 25])),
    flags=st.lists(st.sampled_from(["--stymied", "--up", "--ord-no-reroll"]), unique=True),
    possibilities=st.integers(0, 1),
    contradiction=st.sampled_from([None, "1-case", "4-case"]),
    combat=st.booleans(),
    inorganic=st.booleans(),
)
def test_torg_odds_are_every_roll(skill, difficulty, flags, possibilities, contradiction, combat, inorganic):
    argv = list(flags)
    if skill is not None:
        argv += ["--skill", str(skill)]
    if possibilities:
        argv += ["--possibilities", str(possibilities)]
    if contradiction:
        argv += ["--contradiction", contradiction]
    combat = combat and difficulty is not None
    if difficulty is not None:
        argv += ["--difficulty", str(difficulty)]
    if combat:
        argv += ["--combat", *(["--target-kind", "inorganic"] if inorganic else [])]
    assert_odds(
        "torg-2d10",
        argv,
        _torg_events(skill, difficulty, contradiction, combat),
        cut=lambda path: path.count(10) >= 3,
    )


# ----------------------------------------------------------------- 4d6

TIERS = ("Critical Success", "Full Success", "Partial Success", "Failure", "Critical Failure")


def tier(margin: int, all_ones: bool) -> str:
    """RULES.md: all kept dice 1s → Critical Failure; else ≥ +5, ≥ 0, −1..−2, −3..−6, ≤ −7."""
    if all_ones:
        return "Critical Failure"
    if margin >= 5:
        return "Critical Success"
    if margin >= 0:
        return "Full Success"
    if margin >= -2:
        return "Partial Success"
    return "Failure" if margin >= -6 else "Critical Failure"


def kept_of(dice, level: int) -> list[int]:
    """RULES.md: +1/+2 keep the best 4 of 5/6 dice, −1/−2 the worst 4."""
    faces = sorted(d["value"] if isinstance(d, Mapping) else d.value for d in dice)
    assert len(faces) == 4 + abs(level)
    return faces[-4:] if level >= 0 else faces[:4]


@functools.cache
def _one_side(level: int) -> tuple[tuple[int, bool, Fraction], ...]:
    """Every roll of one side at an advantage level, read through the system's own roll:
    (kept sum, all kept 1s, chance), each checked against the rule's own keeping."""
    adv = {0: [], 1: ["--adv", "+1"], 2: ["--adv", "+2"], -1: ["--adv", "-1"], -2: ["--adv", "-2"]}[level]
    spec = get_spec("4d6")
    params = roll_params("4d6", adv)
    pairs, _ = every_roll(lambda rng: spec.roll(params, rng))
    out: dict[tuple[int, bool], Fraction] = defaultdict(Fraction)
    for r, w in pairs:
        kept = kept_of(r.dice, level)
        assert sorted(d.value for d in r.dice if d.role == "kept") == kept
        assert r.get("kept") == sum(kept) and r.get("all_ones") == (kept == [1, 1, 1, 1])
        out[sum(kept), kept == [1, 1, 1, 1]] += w
    return tuple((k, ones, p) for (k, ones), p in out.items())


#: advantage sources as a GM types them, with the level RULES.md nets them to
ADV_SOURCES = st.sampled_from(
    [
        ("", 0),
        ("+1", 1),
        ("+2", 2),
        ("-1", -1),
        ("-2", -2),
        ("+1,+1,+2", 2),
        ("+2,-1", 1),
        ("+1,-2", -1),
        ("+2,+2,-1", 1),
        ("-1,-1,-2,+1", -1),
        ("+1,-1", 0),
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    bonus=st.one_of(st.integers(-10, 12), st.sampled_from([-100, 100])),
    dc=st.one_of(st.none(), st.integers(4, 30), st.sampled_from(["Simple", "Exceptional"])),
    adv=ADV_SOURCES,
)
def test_4d6_check_odds_are_every_roll(bonus, dc, adv):
    """A check's tiers: the odds against every roll of the kept dice, read by the tiers."""
    sources, level = adv
    argv = ["--bonus", str(bonus), *(["--dc", str(dc)] if dc is not None else [])]
    argv += [f"--adv={sources}"] if sources else []
    params = roll_params("4d6", argv)
    dc_value = {None: 16, "Simple": 12, "Exceptional": 22}.get(dc, dc)  # type: ignore[call-overload]
    expected: dict[str, Fraction] = dict.fromkeys(TIERS, Fraction(0))
    values: dict[int, Fraction] = defaultdict(Fraction)
    for kept, ones, p in _one_side(level):
        expected[tier(kept + bonus - dc_value, ones)] += p
        values[kept + bonus] += p
    odds = get_spec("4d6").odds(params)
    assert dict(odds.outcomes) == expected
    assert dict(odds.distribution) == dict(values)


def contest(mine: int, theirs: int, my_ones: bool, their_ones: bool) -> str:
    """RULES.md's contest, read from the two totals and the all-1s of each side."""
    if my_ones and their_ones:
        return "Critical Failure for both (all 1s)"
    if my_ones:
        return "Critical Failure (all 1s)"
    margin = mine - theirs
    band = "Narrow" if abs(margin) <= 3 else "Clear" if abs(margin) <= 6 else "Decisive"
    if their_ones:
        return f"{band} victory" if margin > 0 else "Narrow victory — opponent's Critical Failure (all 1s)"
    if margin == 0:
        return "Tie — Partial for both"
    return f"{band} victory" if margin > 0 else f"{band} defeat"


@settings(max_examples=60, deadline=None)
@given(
    bonus=st.one_of(st.integers(-8, 10), st.sampled_from([-100, 100])),
    vs_bonus=st.one_of(st.integers(-8, 10), st.sampled_from([-100, 100])),
    adv=ADV_SOURCES,
    vs_adv=ADV_SOURCES,
    defenseless=st.booleans(),
)
def test_4d6_contest_odds_are_every_pair_of_rolls(bonus, vs_bonus, adv, vs_adv, defenseless):
    """A contest: both sides' every roll (each read through the system's own roll),
    paired and judged by RULES.md; one who cannot act counts as the lowest roll (4)."""
    (sources, level), (vs_sources, vs_level) = adv, vs_adv
    argv = ["--bonus", str(bonus), "--vs-bonus", str(vs_bonus)]
    argv += [f"--adv={sources}"] if sources else []
    argv += [f"--vs-adv={vs_sources}"] if vs_sources else []
    argv += ["--defenseless"] if defenseless else []
    params = roll_params("4d6", argv)
    theirs = ((4, True, Fraction(1)),) if defenseless else _one_side(vs_level)
    expected: dict[str, Fraction] = defaultdict(Fraction)
    for k1, ones1, p1 in _one_side(level):
        for k2, ones2, p2 in theirs:
            expected[contest(k1 + bonus, k2 + vs_bonus, ones1, ones2)] += p1 * p2
    got = dict(get_spec("4d6").odds(params).outcomes)
    for label in set(expected) | set(got):
        assert got.get(label, 0) == expected.get(label, 0), (argv, label)


@settings(max_examples=200, deadline=None)
@given(
    bonus=st.integers(-6, 6),
    vs_bonus=st.integers(-6, 6),
    adv=ADV_SOURCES,
    vs_adv=ADV_SOURCES,
    faces=st.lists(st.integers(1, 6), min_size=12, max_size=12),
    ones=st.sampled_from([None, "mine", "theirs", "both"]),
)
def test_a_4d6_contest_roll_reads_as_its_rule(bonus, vs_bonus, adv, vs_adv, faces, ones):
    """The contest's own roll on drawn dice (all 1s forced on a side now and then)
    names the result RULES.md gives for its two totals."""
    (sources, level), (vs_sources, vs_level) = adv, vs_adv
    n, m = 4 + abs(level), 4 + abs(vs_level)
    if ones in ("mine", "both"):
        faces[:n] = [1] * n
    if ones in ("theirs", "both"):
        faces[n : n + m] = [1] * m
    argv = ["--bonus", str(bonus), "--vs-bonus", str(vs_bonus)]
    argv += [f"--adv={sources}"] if sources else []
    argv += [f"--vs-adv={vs_sources}"] if vs_sources else []
    r = get_spec("4d6").roll(roll_params("4d6", argv), FixedDice(faces[: n + m]))
    mine, theirs = kept_of(r.dice, level), kept_of(r.get("opponent")["dice"], vs_level)
    want = contest(sum(mine) + bonus, sum(theirs) + vs_bonus, mine == [1] * 4, theirs == [1] * 4)
    assert r.outcome == want, (argv, faces, want)
