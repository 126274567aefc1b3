"""Median time of every odds query shape the CLI accepts (target ≤ 20 ms), after a
warm-up call per shape, so the roll dialog can preview odds at typing speed."""

from __future__ import annotations

import statistics
import time

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


def run(repeat: int = 25) -> list[tuple[str, str, float, float, float]]:
    rows = []
    for system_id, raw in QUERIES:
        mod = get_system(system_id)
        params = mod.params_from_json(raw)
        t0 = time.perf_counter()
        mod.odds(params)  # first call fills the system's caches
        first = (time.perf_counter() - t0) * 1000
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            mod.odds(params)
            times.append((time.perf_counter() - t0) * 1000)
        rows.append(
            (
                system_id,
                ", ".join(f"{k}={v}" for k, v in raw.items()) or "defaults",
                first,
                statistics.median(times),
                max(times),
            )
        )
    return rows


def main() -> None:
    rows = run()
    print("odds queries (ms; target: median ≤ 20)")
    print(f"{'system':<10} {'params':<62} {'first':>8} {'median':>8} {'max':>8}")
    for system_id, params, first, med, mx in rows:
        flag = "" if med <= 20 else "  OVER"
        print(f"{system_id:<10} {params:<62} {first:8.2f} {med:8.3f} {mx:8.3f}{flag}")
    worst = max(r[3] for r in rows)
    print(f"worst median: {worst:.3f} ms")


if __name__ == "__main__":
    main()
