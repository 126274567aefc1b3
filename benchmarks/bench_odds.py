"""Exact odds, warm: the 4d6 contest beside icepool in the same run, and every odds
query shape the CLI accepts (≤ 20 ms each, so the roll dialog previews odds at
typing speed).

**4d6 contest odds** (issue 22: ≤ 1.0× icepool). Every query is distinct (the
roller's and the opponent's bonus and advantage vary; nothing a query answers is
kept for the next), after one warm-up pass over other queries: what both keep is
what the dice give at each advantage level (gmdesk's kept sums by level; icepool's
kept-4 dice, built once per level outside the timing). The queries run in small
chunks, gmdesk's and icepool's in turn, so both see the same load; the figure is
the median time of one query. icepool computes the same answer in its own
arithmetic: the difference of the totals when neither side's kept dice are all 1s
(a kept sum of 4), the all-1s cases apart, each outcome then named by gmdesk's
contest rule; each answer is checked against gmdesk's to 1e-12.

icepool is the ``bench`` extra (``pip install -e '.[bench]'``); without it the
contest row says its anchor is missing.

    python -m benchmarks.bench_odds [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from fractions import Fraction
from typing import Any

from benchmarks.report import Row, print_table
from gmdesk.core.systems import get_system

QUERIES = [
    ("4d2", {}),
    ("4d2", {"shift": 3, "fold": "positive"}),
    ("4d2", {"shift": -2, "combat": True}),
    ("4d2", {"maneuver": True}),
    *[("fudge", {"method": m}) for m in ("2d3", "custom", "d20", "d20-open", "d30", "d12")],
    ("fudge", {"method": "d20-open", "trait": 2, "vs_trait": 1, "combat": True, "offense": 2, "defense": 1}),
    ("1d6x4", {"bonus": 3, "target": 15}),
    ("1d6x4", {"bonus": 2, "vs_bonus": 1, "combat": True}),
    ("1d6x4", {"bonus": 0, "vs_bonus": 3, "defender_takes_14": True}),
    ("torg-2d10", {}),
    ("torg-2d10", {"stymied": True, "up": True}),
    ("torg-2d10", {"possibilities": 3, "up": True, "skill": 10, "difficulty": 12}),
    ("torg-2d10", {"ord_no_reroll": True, "contradiction": "4-case"}),
    ("torg-2d10", {"skill": 12, "difficulty": 10, "combat": True}),
    ("4d6", {"dc": 16}),
    ("4d6", {"bonus": 3, "dc": 18, "adv": (2,)}),
    ("4d6", {"bonus": 1, "dc": 14, "adv": (-2,)}),
    ("4d6", {"bonus": 2, "vs_bonus": 1, "adv": (1,)}),
    ("4d6", {"bonus": 2, "dc": 16, "combat": True}),
]

LEVELS = (-2, -1, 0, 1, 2)
KEEP = 4


def contest_queries(bonuses: range) -> list[tuple[int, int, int, int]]:
    """``(bonus, vs_bonus, advantage, vs_advantage)``, every combination, in an order
    that mixes the levels (no run of one shape)."""
    grid = list(itertools.product(bonuses, bonuses, LEVELS, LEVELS))
    return grid[::2] + grid[1::2]


def _raw(q: tuple[int, int, int, int]) -> dict[str, Any]:
    bonus, vs_bonus, level, vs_level = q
    raw: dict[str, Any] = {"bonus": bonus, "vs_bonus": vs_bonus}
    if level:
        raw["adv"] = (level,)
    if vs_level:
        raw["vs_adv"] = (vs_level,)
    return raw


class IcepoolContest:
    """The 4d6 contest's odds in icepool's own arithmetic (see the module docstring)."""

    def __init__(self, icepool: Any) -> None:
        from gmdesk.core.systems.core_4d6.rules import contest_outcome
        from gmdesk.core.systems.core_4d6.tables import ALL_ONES_BOTH, ALL_ONES_LOSS

        self.outcome = contest_outcome
        self.both, self.loss = ALL_ONES_BOTH, ALL_ONES_LOSS
        self.kept = {}
        self.rest = {}
        for level in LEVELS:
            pool = icepool.d6.pool(KEEP + abs(level))
            kept = (pool.highest(KEEP) if level >= 0 else pool.lowest(KEEP)).sum()
            self.kept[level] = kept
            self.rest[level] = kept.reroll([KEEP], depth="inf")  # given: not all 1s

    def odds(self, q: tuple[int, int, int, int]) -> tuple[Any, dict[str, Fraction]]:
        bonus, vs_bonus, level, vs_level = q
        mine, theirs = self.kept[level], self.kept[vs_level]
        total = mine + bonus  # the roller's total, as gmdesk's answer gives it
        lead = bonus - vs_bonus
        ones, opp_ones = mine.probability(KEEP), theirs.probability(KEEP)
        out: dict[str, Fraction] = {}

        def add(named: list[tuple[str, Fraction]], weight: Fraction) -> None:
            if weight:
                for label, p in named:
                    out[label] = out.get(label, Fraction(0)) + weight * p

        outcome = self.outcome
        margins = (self.rest[level] - self.rest[vs_level]) + lead
        add(_named(margins.map(lambda m: outcome(m)[0])), (1 - ones) * (1 - opp_ones))
        add(_named(self.rest[level].map(lambda k: outcome(k + lead - KEEP, False, True)[0])), (1 - ones) * opp_ones)
        out[self.loss] = out.get(self.loss, Fraction(0)) + ones * (1 - opp_ones)
        out[self.both] = out.get(self.both, Fraction(0)) + ones * opp_ones
        return total, out


def _named(die: Any) -> list[tuple[str, Fraction]]:
    return [(label, die.probability(label)) for label in die.outcomes()]


def contest_rows(quick: bool) -> list[Row]:
    try:
        import icepool
    except ImportError:
        icepool = None
    spec = get_system("4d6")
    timed = contest_queries(range(-3, 4) if quick else range(-6, 7))
    warm = contest_queries(range(7, 9))  # other queries: the code paths warm, nothing of the timed ones
    ours: list[float] = []
    theirs: list[float] = []
    worst = 0.0
    anchor = IcepoolContest(icepool) if icepool is not None else None
    for q in warm:
        spec.odds(spec.params_from_json(_raw(q)))
        if anchor is not None:
            anchor.odds(q)
    chunk = 25
    for start in range(0, len(timed), chunk):
        part = timed[start : start + chunk]
        params = [spec.params_from_json(_raw(q)) for q in part]
        answers = []
        for p in params:
            t0 = time.perf_counter()
            answers.append(spec.odds(p))
            ours.append((time.perf_counter() - t0) * 1000)
        if anchor is None:
            continue
        for q, mine in zip(part, answers, strict=True):
            t0 = time.perf_counter()
            _total, got = anchor.odds(q)
            theirs.append((time.perf_counter() - t0) * 1000)
            for label, p in mine.outcomes:
                worst = max(worst, abs(float(p) - float(got.get(label, 0))))
    med = statistics.median(ours)
    measure = f"4d6 contest, {len(timed)} distinct queries, median"
    if anchor is None:
        print("icepool is not installed: the 4d6 contest's anchor is missing (pip install -e '.[bench]')")
        return [Row(measure, med, None, "ms", "≤ 1.0× icepool (missing)", met=False)]
    ice = statistics.median(theirs)
    rows = [
        Row(measure, med, ice, "ms", "≤ 1.0× icepool", met=med <= ice, anchor_name=f"icepool {icepool.__version__}"),
        Row(
            "4d6 contest: largest difference from icepool",
            worst,
            None,
            "",
            "≤ 1e-12",
            met=worst <= 1e-12,
        ),
    ]
    return rows


def query_rows(repeat: int) -> list[Row]:
    rows = []
    for system_id, raw in QUERIES:
        mod = get_system(system_id)
        params = mod.params_from_json(raw)
        mod.odds(params)  # first call fills the system's caches
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            mod.odds(params)
            times.append((time.perf_counter() - t0) * 1000)
        med = statistics.median(times)
        shown = ", ".join(f"{k}={v}" for k, v in raw.items()) or "defaults"
        rows.append(Row(f"{system_id} {shown}"[:44], med, None, "ms", "≤ 20 ms", met=med <= 20))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_odds")
    parser.add_argument("--quick", action="store_true", help="fewer queries and repeats")
    ns, _rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    contest = print_table("4d6 contest odds beside icepool, warm, distinct queries", contest_rows(ns.quick))
    shapes = print_table("odds of every query shape, warm (median)", query_rows(5 if ns.quick else 25))
    return 0 if all(r.met for r in (*contest, *shapes)) else 1


if __name__ == "__main__":
    sys.exit(main())
