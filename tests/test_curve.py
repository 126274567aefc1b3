"""The curve (issue 23 point 6) on the command line: ``gmdesk odds SYSTEM …
--plot [exact|at-least|at-most]`` draws the exact distribution of each system's
headline value, its far tails folded as the odds table folds them, the value a
success needs marked in words; every chance on it is the odds table's. A plug-in gets
it from its declaration (coin without declaring anything, brawl with its own curve)."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from coin_plugin import brawl_site, coin_site, gmdesk, registered
from helpers import gmdesk_cli, one_error_line
from hypothesis import given, settings
from hypothesis import strategies as st
from plugin_site import plugin_site
from rich.cells import cell_len

from gmdesk.core.curve import AT_LEAST, AT_MOST, EXACT, curve_of, curve_rows, fit
from gmdesk.core.systems import get_spec

#: a row of the chart: its label and its chance (``4 16.67% ███``, ``≤ −20  0.10% ▎``)
ROW = re.compile(r"^\s*((?:[≤≥] )?[+−]?\d+)\s+(\S+%|0)(?:\s|$)")
#: a row of the odds table: value, p, ≥ (then the bar)
TABLE_ROW = re.compile(r"^\s*((?:[≤≥] )?[+−]?\d+)\s+(\S+%|0)\s+(\S+%|0)(?:\s|$)")


def run_cli(capsys, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    return gmdesk_cli(capsys, tmp_path / "saves", *args)


def chart(capsys, tmp_path: Path, *args: str) -> tuple[list[str], list[tuple[str, str]]]:
    rc, out, err = run_cli(capsys, tmp_path, "odds", *args)
    assert rc == 0 and err == "", err
    lines = out.splitlines()
    return lines, [m.groups() for m in map(ROW.match, lines[1:]) if m]


def table(capsys, tmp_path: Path, *args: str) -> list[tuple[str, str, str]]:
    rc, out, err = run_cli(capsys, tmp_path, "odds", *args)
    assert rc == 0, err
    rows = []
    for line in out.splitlines():
        if line.strip() == "outcomes":
            break
        m = TABLE_ROW.match(line)
        if m:
            rows.append(m.groups())
    return rows


SYSTEMS = [
    ("4d2", [], "Number"),
    ("fudge", [], "Result"),
    ("1d6x4", ["--target", "14"], "Test total"),
    ("torg-2d10", [], "Bonus Number"),
    ("4d6", [], "Total"),
]


@pytest.mark.parametrize(("system", "args", "label"), SYSTEMS)
def test_each_systems_curve_is_its_odds_table_row_by_row(capsys, tmp_path: Path, system, args, label) -> None:
    """exact: each row is the table's value and p; at least: the table's ≥ column;
    at most: the running sum, to 100%. The heading names the headline value."""
    rows = table(capsys, tmp_path, system, *args)
    assert len(rows) >= 6
    lines, exact = chart(capsys, tmp_path, system, *args, "--plot", "exact")
    assert lines[0] == f"{system} — {label}: the chance of each value"
    assert exact == [(value, p) for value, p, _ in rows]
    _, at_least = chart(capsys, tmp_path, system, *args, "--plot", "at-least")
    assert at_least == [(value, ge) for value, _, ge in rows]
    heading, at_most = chart(capsys, tmp_path, system, *args, "--plot", "at-most")
    assert heading[0].endswith("the chance of at most each value")
    assert [v for v, _ in at_most] == [v for v, _ in exact] and at_most[-1][1] == "100.00%"
    assert at_most[0] == exact[0]


def test_plot_with_no_view_draws_the_exact_chances(capsys, tmp_path: Path) -> None:
    assert chart(capsys, tmp_path, "4d2", "--plot") == chart(capsys, tmp_path, "4d2", "--plot", "exact")
    assert chart(capsys, tmp_path, "4d2", "--plot", "at_least") == chart(capsys, tmp_path, "4d2", "--plot", "at-least")


def test_the_seeds_curve_of_the_number(capsys, tmp_path: Path) -> None:
    """4d2: the Number, 2d6 − 2d6, −10..+10, 0 the likeliest (146/1296); with a shift,
    the Outcome it gives (clamped)."""
    _, rows = chart(capsys, tmp_path, "4d2", "--plot")
    assert [v for v, _ in rows] == ["−10", *(f"−{n}" for n in range(9, 0, -1)), "+0", *(f"+{n}" for n in range(1, 11))]
    assert dict(rows)["+0"] == f"{146 / 1296 * 100:.2f}%"
    lines, shifted = chart(capsys, tmp_path, "4d2", "--shift", "2", "--plot")
    assert lines[0] == "4d2 — Outcome (the Number, shift +2): the chance of each value"
    assert shifted[0][0] == "−8" and shifted[-1][0] == "+10"


def test_the_far_tails_are_folded_as_the_odds_table_folds_them(capsys, tmp_path: Path) -> None:
    """torg: the open-ended rerolls fold into "≤ −20" and "≥ +20"; with a skill the
    curve is the action total, folded at the same Bonus Numbers, the same chances."""
    _, rows = chart(capsys, tmp_path, "torg-2d10", "--up", "--plot")
    assert rows[0][0] == "≤ −20" and rows[-1][0] == "≥ +20"
    bonus = table(capsys, tmp_path, "torg-2d10", "--up")
    lines, total = chart(capsys, tmp_path, "torg-2d10", "--up", "--skill", "13", "--plot")
    assert lines[0].startswith("torg-2d10 — Action total:")
    assert total[0][0] == "≤ −7" and total[-1][0] == "≥ 33"
    assert [p for _, p in total] == [p for _, p, _ in bonus]
    assert any(line.startswith("Not counted: reroll chains") for line in lines)


@pytest.mark.parametrize(
    ("system", "args", "rule", "first"),
    [
        ("1d6x4", ["--target", "14"], "── Success: 14 or more · 50.00% ", "16"),
        ("1d6x4", ["--combat", "--target", "9"], "── Hit: 9 or more · 66.67% ", "12"),
        ("1d6x4", ["--vs-bonus", "2", "--defender-takes-14"], "── Attacker prevails: 17 or more · 33.33% ", "20"),
        ("4d6", [], "── Full Success (DC 16): 16 or more · 33.56% ", "16"),
        ("4d6", ["--dc", "18", "--bonus", "2"], "── Full Success (DC 18): 18 or more · 33.56% ", "18"),
        ("torg-2d10", ["--skill", "13", "--difficulty", "15"], "── Success (Difficulty 15): 15 or more · ", "15"),
        ("torg-2d10", ["--difficulty", "3"], "── Success (Difficulty 3): +3 or more · ", "+3"),
    ],
)
def test_the_value_a_success_needs_is_marked_in_words(capsys, tmp_path: Path, system, args, rule, first) -> None:
    """A rule line names the value the parameters ask for and its chance, just above
    the first row that reaches it — readable without colour (no escape codes here)."""
    for view in ("exact", "at-least", "at-most"):
        rc, out, _ = run_cli(capsys, tmp_path, "odds", system, *args, "--plot", view)
        lines = out.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("── "))
        assert lines[at].startswith(rule), lines[at]
        assert ROW.match(lines[at + 1]).group(1) == first
        assert "\x1b" not in out
    _, at_least = chart(capsys, tmp_path, system, *args, "--plot", "at-least")
    chance = lines[at].split(" · ")[-1].split()[0]
    assert dict(at_least)[first] == chance  # the rule's chance is "at least" that value


@pytest.mark.parametrize(("system", "args"), [("4d2", []), ("fudge", ["--trait", "2"]), ("1d6x4", ["--vs-bonus", "1"])])
def test_no_success_is_marked_where_the_parameters_set_none(capsys, tmp_path: Path, system, args) -> None:
    lines, _ = chart(capsys, tmp_path, system, *args, "--plot")
    assert not any(line.startswith("──") for line in lines)


def test_an_automatic_failure_rolls_no_die_and_says_so(capsys, tmp_path: Path) -> None:
    rc, out, err = run_cli(capsys, tmp_path, "odds", "1d6x4", "--auto-fail", "Slingshot is missing", "--plot")
    assert rc == 0 and "Automatic failure: Slingshot is missing: no die is rolled." in out


WIDE = [*((s, a) for s, a, _ in SYSTEMS), ("torg-2d10", ["--up", "--skill", "9"])]


@pytest.mark.parametrize(("system", "args"), WIDE)
def test_the_chart_fits_80_columns(capsys, tmp_path: Path, system, args) -> None:
    for view in ("exact", "at-least", "at-most"):
        rc, out, _ = run_cli(capsys, tmp_path, "odds", system, *args, "--plot", view)
        assert rc == 0 and max(cell_len(line) for line in out.splitlines()) <= 80


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--plot", "sideways"], ["--plot", "exact, at-least or at-most", "'sideways'"]),
        (["--plot", ""], ["--plot", "exact, at-least or at-most"]),
        (["--plot", "exact", "--shift", "9"], ["--shift"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path: Path, args, words) -> None:
    rc, out, err = run_cli(capsys, tmp_path, "odds", "4d2", *args)
    assert rc == 2 and out == ""
    one_error_line(err, *words)


def test_plot_json_gives_the_rows(capsys, tmp_path: Path) -> None:
    rc, out, _ = run_cli(capsys, tmp_path, "odds", "1d6x4", "--target", "14", "--plot", "at-least", "--json")
    got = json.loads(out)
    assert got["system"] == "1d6x4" and got["label"] == "Test total" and got["view"] == "at-least"
    assert [(r["label"], round(r["p"], 4), r["success"]) for r in got["rows"]] == [
        ("4", 1.0, False),
        ("8", 0.8333, False),
        ("12", 0.6667, False),
        ("16", 0.5, True),
        ("20", 0.3333, True),
        ("24", 0.1667, True),
    ]
    assert got["success"] == 14 and got["success_label"] == "Success"


# ------------------------------------------------------------------- the declaration


@pytest.mark.parametrize("system", ["4d2", "fudge", "1d6x4", "torg-2d10", "4d6"])
def test_each_built_in_declares_its_curve_and_its_chances_are_its_odds(system: str) -> None:
    spec = get_spec(system)
    assert spec.own_curve is not None and spec.value_label
    params = spec.Params()
    odds, curve = spec.odds(params), spec.curve(params)
    assert sum(p for _, p in curve.values) + curve.tail == 1
    assert dict(curve.values) == dict(odds.distribution) and curve.tail == odds.tail  # (torg: no skill given)


def test_the_views_are_exact_fractions() -> None:
    c = curve_of("Total", {2: Fraction(1, 4), 3: Fraction(1, 2), 4: Fraction(1, 4)}, success=3)
    assert [(r.label, r.p, r.success) for r in curve_rows(c, EXACT)] == [
        ("2", Fraction(1, 4), False),
        ("3", Fraction(1, 2), True),
        ("4", Fraction(1, 4), True),
    ]
    assert [r.p for r in curve_rows(c, AT_LEAST)] == [1, Fraction(3, 4), Fraction(1, 4)]
    assert [r.p for r in curve_rows(c, AT_MOST)] == [Fraction(1, 4), Fraction(3, 4), 1]
    assert c.success_chance() == Fraction(3, 4)


def test_a_success_beyond_the_fold_keeps_a_row_of_its_own() -> None:
    c = curve_of("Bonus", {v: Fraction(1, 21) for v in range(-10, 11)}, fold=(-5, 5), success=8)
    labels = [r.label for r in curve_rows(c)]
    assert labels[-4:] == ["5", "6", "7", "≥ 8"] and labels[0] == "≤ −5"


def test_fit_folds_further_to_fit_and_keeps_every_chance_and_the_success_row() -> None:
    spec = get_spec("4d6")
    curve = spec.curve(spec.Params(dc=22))
    small = fit(curve, 10)
    rows = curve_rows(small)
    assert len(rows) <= 10 and sum(r.p for r in rows) == 1
    assert rows[0].label.startswith("≤ ") and rows[-1].label.startswith("≥ ")
    first = next(r for r in rows if r.success)
    assert first.low == 22 and rows[rows.index(first) - 1].high == 21


# ------------------------------------------------------------------------- plug-ins


def test_a_plug_in_that_declares_only_its_odds_gets_its_curve() -> None:
    """coin declares no curve: its odds' distribution, named "Result", is drawn."""
    done = gmdesk("odds", "coin", "--coins", "3", "--plot", sites=(coin_site(),))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "coin — Result: the chance of each value"
    assert [m.groups() for m in map(ROW.match, lines[1:]) if m] == [
        ("0", "12.50%"),
        ("1", "37.50%"),
        ("2", "37.50%"),
        ("3", "12.50%"),
    ]


def test_a_plug_in_that_declares_its_curve_marks_its_success() -> None:
    """brawl declares curve(): its total, the guard it must reach marked as a Hit."""
    done = gmdesk("odds", "brawl", "--guard", "7", "--plot", "at-least", sites=(brawl_site(),))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "brawl — Total: the chance of at least each value"
    rule = next(line for line in lines if line.startswith("──"))
    assert rule.startswith("── Hit: 7 or more · 58.33% ")
    with registered(brawl_site()):
        spec = get_spec("brawl")
        assert spec.curve(spec.Params(skill=1, guard=9)).success == 9


#: a plug-in whose odds name outcomes but give no distribution of its value
NO_DISTRIBUTION = """
def odds(params, tables=DEFAULT_TABLES):
    return Odds.from_dist(ID, dataclass_to_json(params), {}, [("High", Fraction(1, 2)), ("Low", Fraction(1, 2))])
"""


def test_a_plug_in_with_no_distribution_is_told_so_in_one_line(tmp_path: Path) -> None:
    done = gmdesk("odds", "pbare", "--plot", sites=(plugin_site(tmp_path, "pbare", NO_DISTRIBUTION),))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "gmdesk odds pbare: the system gives no distribution of its value to draw"
    ]


#: a plug-in whose curve is not a Curve, and one whose curve leaves chance out
BAD_CURVE = """
def curve(params, tables=DEFAULT_TABLES):
    return {1: Fraction(1)}
"""
SHORT_CURVE = """
from gmdesk.core.curve import curve_of

def curve(params, tables=DEFAULT_TABLES):
    return curve_of("Face", {1: Fraction(1, 2)})
"""


@pytest.mark.parametrize(
    ("extra", "words"),
    [(BAD_CURVE, "gave dict, not a gmdesk.core.curve.Curve"), (SHORT_CURVE, "sums to 1 with its tail (got 1/2)")],
)
def test_the_conformance_suite_refuses_a_wrong_curve(tmp_path: Path, extra: str, words: str) -> None:
    from gmdesk.testing import check_odds

    with registered(plugin_site(tmp_path, "pcurve", extra)):
        with pytest.raises(AssertionError, match=re.escape(words)):
            check_odds("pcurve")


@pytest.mark.parametrize("difficulty", [-30, 0, 12, 40, None])
@pytest.mark.parametrize("skill", [None, 12])
def test_fit_keeps_the_success_row_wherever_the_difficulty_puts_it(difficulty, skill) -> None:
    """torg with Up: whatever the difficulty (beyond the folded tails too), the rows
    fit, every chance is kept, and the first row that succeeds starts at the difficulty."""
    spec = get_spec("torg-2d10")
    curve = spec.curve(spec.Params(difficulty=difficulty, up=True, skill=skill))
    rows = curve_rows(fit(curve, 10))
    assert len(rows) <= 10 and sum(r.p for r in rows) + curve.tail == 1
    first = next((r for r in rows if r.success), None)
    if difficulty is None:
        assert first is None
    else:
        assert first is not None and first.low == difficulty


@given(
    values=st.dictionaries(st.integers(-60, 60), st.integers(1, 50), min_size=1, max_size=40),
    fold=st.one_of(st.none(), st.tuples(st.integers(-40, 0), st.integers(1, 40))),
    success=st.one_of(st.none(), st.integers(-70, 70)),
    lines=st.integers(3, 30),
)
@settings(max_examples=150, deadline=None)
def test_fit_never_loses_a_chance_or_the_success_row(values, fold, success, lines) -> None:
    total = sum(values.values())
    curve = curve_of("V", {v: Fraction(n, total) for v, n in values.items()}, fold=fold, success=success)
    whole, rows = curve_rows(curve), curve_rows(fit(curve, lines))
    assert sum(r.p for r in rows) == 1
    assert len(rows) <= max(lines, 3) or rows == whole
    if success is not None and success <= max(values):
        for drawn in (whole, rows):  # no row mixes values that succeed with values that fail
            at = next(i for i, r in enumerate(drawn) if r.success)
            assert drawn[at].low is not None and drawn[at].low >= success
            assert at == 0 or (drawn[at - 1].high is not None and drawn[at - 1].high < success)
            assert all(r.success for r in drawn[at:])
