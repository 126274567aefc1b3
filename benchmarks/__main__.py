"""Run gmdesk's benchmarks in turn: ``python -m benchmarks [--quick] [NAME ...]``.

Without a name, every benchmark of :data:`ALL` runs; ``faults`` (thousands of killed
writers) runs only when named. Each prints its rows through :mod:`benchmarks.report`
(gmdesk's figure, its anchor measured in the same run, the ratio, the target, met or
MISSED); the run ends with one line per benchmark and exits 1 if a benchmark failed,
is missing, or said by its exit status that a target was missed.

``--quick`` keeps the whole run short (a few minutes on a busy 2-core machine): every
benchmark gets ``--quick`` (each benchmark's ``main(argv)`` takes it, and shrinks its
own sizes and repeats), but the older ones whose options predate it, which get small
sizes of their own (:data:`QUICK_ARGS`). Quick figures are noisier; the verdicts are
the same targets.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import time
import traceback

#: every benchmark, in the order run (``benchmarks/bench_NAME.py``)
ALL = ("odds", "cli", "store", "bytes", "dialog", "stall", "bestiary", "tui", "serve")

#: benchmarks run only when named
ON_REQUEST = ("faults",)

#: ``--quick`` as each benchmark is given it (default: ``["--quick"]``)
QUICK_ARGS = {
    "dialog": ["--quick", "--opens", "5"],
    "bytes": ["--quick", "--repeats", "2", "--presses", "5"],
    "bestiary": ["--blocks", "1000", "--events", "5000", "--repeats", "3"],
    "tui": ["--events", "5000", "--runs", "1", "--presses", "8"],
    "serve": ["--viewers", "2", "--ssh-viewers", "1", "--seconds", "4", "--every", "1", "--idle", "2"],
}


def _run_one(name: str, quick: bool) -> tuple[str, float]:
    """Run ``benchmarks.bench_NAME``; ``(verdict, seconds)``."""
    t0 = time.perf_counter()
    try:
        module = importlib.import_module(f"benchmarks.bench_{name}")
    except ModuleNotFoundError as e:
        if e.name != f"benchmarks.bench_{name}":
            raise
        print(f"benchmarks/bench_{name}.py is not in this checkout", flush=True)
        return "missing", 0.0
    args = QUICK_ARGS.get(name, ["--quick"]) if quick and name not in ON_REQUEST else []
    try:
        takes_argv = bool(inspect.signature(module.main).parameters)
        code = module.main(args) if takes_argv else module.main()
    except SystemExit as e:  # a benchmark's own argument parser
        code = e.code
    except Exception:  # noqa: BLE001 - one benchmark's failure is reported; the others run
        traceback.print_exc()
        return "FAILED", time.perf_counter() - t0
    verdict = "done" if code in (0, None) else f"exit {code}"
    return verdict, time.perf_counter() - t0


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    names = [a for a in argv if a != "--quick"]
    unknown = [n for n in names if n not in ALL + ON_REQUEST]
    if unknown or any(a.startswith("-") for a in names):
        print(f"usage: python -m benchmarks [--quick] [{' | '.join(ALL + ON_REQUEST)} ...]", file=sys.stderr)
        return 2
    verdicts = []
    for name in names or ALL:
        print(f"\n=== {name}{' (quick)' if quick else ''} ===", flush=True)
        verdict, took = _run_one(name, quick)
        verdicts.append((name, verdict, took))
    print("\n=== every benchmark ===")
    for name, verdict, took in verdicts:
        note = {
            "done": "done (its tables give each verdict)",
            "missing": "not in this checkout",
            "FAILED": "FAILED (its traceback is above)",
        }.get(verdict, f"{verdict}: a target MISSED (see its tables)")
        print(f"{name:<10} {took:7.1f} s  {note}")
    return 0 if all(v == "done" for _, v, _ in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
