"""Start-up of ``gmdesk roll``: the CPU a fresh process spends (as a GM types the
command), beside ``python -c pass`` run in the same rounds.

Each round runs every command once, in turn, as a child process; its CPU is the
child's own user + system time (``os.wait4``), which a busy machine moves much less
than the wall clock. The first run of each writes gmdesk's bytecode, as any install
has it (``PYTHONDONTWRITEBYTECODE`` is dropped), and is not counted. The figure is
the median over the rounds. The Rich run draws as in an 80-column truecolor terminal
(``FORCE_COLOR``), its output thrown away.

Targets (issue 22): ``gmdesk roll 4d2 --json`` ≤ 2.5× ``python -c pass``; with
Rich output ≤ 5×. ``python -m gmdesk`` is measured too (the same command, the other
way in). Beside them, without a target, the floors no gmdesk code can go below
(:data:`FLOORS`: the standard library and Rich modules a roll stands on, imported
alone) and the 4d2 declaration's part (:data:`PARTS`). Then, in process, building a
system's generated options and reading a command line back (≤ 20 ms each).

    python -m benchmarks.bench_cli [--rounds N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.report import Row, print_table

ANCHOR = "python -c pass"
ROLL = ["roll", "4d2", "--seed", "1"]


def gmdesk_script() -> list[str]:
    """The ``gmdesk`` console script of this environment (else ``python -m gmdesk``)."""
    beside = Path(sys.executable).with_name("gmdesk")
    found = str(beside) if beside.exists() else shutil.which("gmdesk")
    return [found] if found else [sys.executable, "-m", "gmdesk"]


def commands() -> dict[str, list[str]]:
    script = gmdesk_script()
    return {
        ANCHOR: [sys.executable, "-c", "pass"],
        "gmdesk roll 4d2 --json": [*script, *ROLL, "--json"],
        "gmdesk roll 4d2 (Rich)": [*script, *ROLL],
        "python -m gmdesk roll 4d2 --json": [sys.executable, "-m", "gmdesk", *ROLL, "--json"],
        **{name: [sys.executable, "-c", code] for name, code in (FLOORS | PARTS).items()},
    }


#: what no gmdesk code can go below, measured in the same rounds (no target: the floor
#: under a target): the standard library a roll's code stands on (argparse reads the
#: command line, and gettext's ``locale`` with it: argparse looks its messages up as a
#: parser is made; the declarations are typed dataclasses, the record is JSON, the dice
#: are ``random``), imported alone — exactly the standard modules ``gmdesk roll 4d2
#: --json`` loads; of it, what any roll printed as JSON needs, typed declarations or not
#: (the command line, the shipped tables and the record as JSON, the dice); Rich's own
#: modules that draw a roll; and both, the floor under the Rich row
STDLIB = "import argparse, dataclasses, json, locale, random, typing"
FLOORS = {
    "floor: the standard library a roll stands on": STDLIB,
    "floor: of it, without dataclasses and typing": "import argparse, json, locale, random",
    "floor: Rich's console and text": "import rich.console, rich.text",
    "floor: both": f"{STDLIB}, rich.console, rich.text",
}

#: a part of the roll's own start-up, shown beside the floors (no target): the dice
#: system's declaration (the typed dataclasses of core.systems, the 4d2 module), imported
#: over the floor; the rest of ``gmdesk roll 4d2 --json`` is the command line and the roll
PARTS = {
    "part: the 4d2 declaration over the floor": f"{STDLIB}, gmdesk.core.systems.four_d_two",
}


#: target of each command, as a multiple of the anchor's CPU
TARGETS = {
    "gmdesk roll 4d2 --json": 2.5,
    "gmdesk roll 4d2 (Rich)": 5.0,
    "python -m gmdesk roll 4d2 --json": 2.5,
}


def child_cpu_ms(cmd: list[str], env: dict[str, str]) -> float:
    """User + system CPU of one run of ``cmd`` (ms); a failing command is an error."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}")
    return (usage.ru_utime + usage.ru_stime) * 1000


def run(rounds: int) -> dict[str, list[float]]:
    """CPU (ms) of every command, ``rounds`` runs each, interleaved (after one warm run)."""
    env = {**os.environ, "FORCE_COLOR": "1", "COLORTERM": "truecolor", "COLUMNS": "80", "LINES": "24"}
    env.pop("NO_COLOR", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: gmdesk's bytecode is cached after the first run
    cmds = commands()
    for cmd in cmds.values():  # the file cache and the bytecode warm
        child_cpu_ms(cmd, env)
    out: dict[str, list[float]] = {name: [] for name in cmds}
    for i in range(rounds):
        names = list(cmds)
        names = names[i % len(names) :] + names[: i % len(names)]  # no command always runs first
        for name in names:
            out[name].append(child_cpu_ms(cmds[name], env))
    return out


def rows(cpu: dict[str, list[float]]) -> list[Row]:
    anchor = statistics.median(cpu[ANCHOR])
    out = []
    for name, limit in TARGETS.items():
        med = statistics.median(cpu[name])
        out.append(
            Row(
                f"{name}, process CPU",
                med,
                anchor,
                "ms",
                f"≤ {limit:g}× anchor",
                met=med <= limit * anchor,
                anchor_name=f"{ANCHOR} (CPU, same rounds)",
            )
        )
    return out


def parser_rows(repeat: int) -> list[Row]:
    """Median ms to build ``gmdesk roll SYSTEM``'s parser and read a command line back."""
    from gmdesk.cli.rolls import parse_system_args
    from gmdesk.core.systems import system_ids

    out = []
    for system_id in system_ids():
        parse_system_args("roll", system_id, ["--seed", "1"])  # the declaration loaded
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            parse_system_args("roll", system_id, ["--seed", "1"])
            times.append((time.perf_counter() - t0) * 1000)
        med = statistics.median(times)
        out.append(Row(f"roll {system_id}: options built and read", med, None, "ms", "≤ 20 ms", met=med <= 20))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_cli")
    parser.add_argument("--rounds", type=int, default=None, help="runs of each command (default 30, quick 8)")
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    ns, _rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    rounds = ns.rounds or (8 if ns.quick else 30)
    cpu = run(rounds)
    rows_ = print_table(f"gmdesk roll start-up, process CPU, median of {rounds} rounds", rows(cpu))
    anchor = statistics.median(cpu[ANCHOR])
    for name, code in (FLOORS | PARTS).items():
        med = statistics.median(cpu[name])
        print(f"  {name} ({code}): {med:.1f} ms, {med / anchor:.2f}× {ANCHOR}")
    print()
    parser_ = print_table("generated options, in process (median)", parser_rows(50 if ns.quick else 200))
    return 0 if all(r.met for r in (*rows_, *parser_)) else 1


if __name__ == "__main__":
    sys.exit(main())
