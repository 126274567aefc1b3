"""Start-up of ``gmdesk roll`` and ``gmdesk odds``: each command run as a fresh
process (as a GM types it), median and best of many runs, plus the in-process cost of
building a system's options and reading them back. The options are generated from
the system's declaration; that must add at most 20 ms to the start-up."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

COMMANDS = [
    ["roll", "4d2", "--seed", "1", "--json"],
    ["roll", "4d2", "--seed", "1"],
    ["roll", "torg-2d10", "--seed", "1", "--skill", "12", "--json"],
    ["odds", "4d6", "--dc", "difficult", "--json"],
]


def _run(argv: list[str], repeat: int) -> tuple[float, float]:
    cmd = [sys.executable, "-m", "gmdesk", *argv]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)  # warm the file cache
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times)


def _parser_cost(repeat: int = 200) -> list[tuple[str, float]]:
    """Median ms to build ``gmdesk roll SYSTEM``'s parser and read a command line back."""
    try:
        from gmdesk.cli.rolls import parse_system_args
    except ImportError:  # an older gmdesk without generated options
        return []
    from gmdesk.core.systems import system_ids

    rows = []
    for system_id in system_ids():
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            parse_system_args("roll", system_id, ["--seed", "1"])
            times.append((time.perf_counter() - t0) * 1000)
        rows.append((system_id, statistics.median(times)))
    return rows


def main(repeat: int = 30) -> None:
    print(f"gmdesk start-up, fresh process each run ({repeat} runs; ms)")
    print(f"{'command':<52} {'median':>8} {'best':>8}")
    for argv in COMMANDS:
        med, best = _run(argv, repeat)
        print(f"{'gmdesk ' + ' '.join(argv):<52} {med:8.1f} {best:8.1f}")
    rows = _parser_cost()
    if rows:
        print("\nbuilding the generated options and reading them back, in process (median ms)")
        for system_id, med in rows:
            print(f"{system_id:<12} {med:8.3f}")


if __name__ == "__main__":
    main()
