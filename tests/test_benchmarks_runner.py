"""``python -m benchmarks``: every benchmark is run, its verdicts come from the report
table, and the odds anchor computes what gmdesk computes.

The figures themselves are the benchmarks' business (never timed here); these tests
pin what a reader of the tables relies on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def benchmarks(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    import benchmarks.__main__ as runner

    return runner


def test_every_benchmark_file_is_run(benchmarks) -> None:
    files = {p.stem.removeprefix("bench_") for p in (ROOT / "benchmarks").glob("bench_*.py")}
    named = set(benchmarks.ALL) | set(benchmarks.ON_REQUEST)
    assert files - named == set()
    assert {"odds", "cli", "stall", "store", "dialog", "bytes"} <= set(benchmarks.ALL)


def test_an_unknown_benchmark_is_refused_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "nope"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.startswith("usage: python -m benchmarks [--quick]") and done.stdout == ""


def test_a_benchmark_missing_from_the_checkout_is_said_and_fails_the_run(benchmarks, monkeypatch, capsys) -> None:
    monkeypatch.setattr(benchmarks, "ALL", ("no_such_benchmark",))
    assert benchmarks.main(["--quick"]) == 1
    out = capsys.readouterr().out
    assert "benchmarks/bench_no_such_benchmark.py is not in this checkout" in out


def test_cli_verdicts_are_ratios_to_the_anchor_of_the_same_rounds(benchmarks) -> None:
    from benchmarks.bench_cli import ANCHOR, rows

    cpu = {
        ANCHOR: [10.0, 12.0, 11.0],
        "gmdesk roll 4d2 --json": [24.0, 25.0, 30.0],  # 2.27× the anchor's median
        "gmdesk roll 4d2 (Rich)": [60.0, 56.0, 58.0],  # 5.27×
        "python -m gmdesk roll 4d2 --json": [27.0, 28.0, 29.0],  # 2.55×
    }
    got = {r.measure: (round(r.ratio or 0, 2), r.met) for r in rows(cpu)}
    assert got == {
        "gmdesk roll 4d2 --json, process CPU": (2.27, True),
        "gmdesk roll 4d2 (Rich), process CPU": (5.27, False),
        "python -m gmdesk roll 4d2 --json, process CPU": (2.55, False),
    }


def test_the_icepool_anchor_gives_gmdesks_contest_odds(benchmarks) -> None:
    icepool = pytest.importorskip("icepool")  # the bench extra
    from benchmarks.bench_odds import IcepoolContest, _raw
    from gmdesk.core.systems import get_system

    spec = get_system("4d6")
    anchor = IcepoolContest(icepool)
    for q in [(0, 0, 0, 0), (3, -2, 2, -1), (-4, 5, -2, 2), (30, 0, 0, 0), (0, 30, 1, 0)]:
        mine = spec.odds(spec.params_from_json(_raw(q)))
        total, theirs = anchor.odds(q)
        assert {label: p for label, p in theirs.items() if p} == {label: p for label, p in mine.outcomes if p}
        assert dict(mine.distribution) == {v: total.probability(v) for v in total.outcomes()}
