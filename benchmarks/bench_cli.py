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
alone), the 4d2 declaration's part (:data:`PARTS`), and where each row's CPU goes
(:func:`explain`): whether its target lies below its floor, and gmdesk's own part over
the floor, of which making the declaration's frozen dataclasses (timed inside the roll,
:data:`CLASSES_PROBE`). Then, in process, building a system's generated options and
reading a command line back (≤ 20 ms each).

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


#: the standard modules ``gmdesk roll 4d2 --json`` loads, exactly (tests/test_cli_startup.py
#: checks the roll loads no other): argparse reads the command line (and gettext's
#: ``locale`` with it: argparse looks its messages up as a parser is made; ``errno``
#: names a closed pipe), the declarations are typed frozen dataclasses (``dataclasses``
#: imports ``inspect``, and ``ast``, ``dis``, ``tokenize`` with it), the record is JSON,
#: the dice are ``random``; ``__future__`` is what ``from __future__ import annotations``
#: loads. ``typing`` is not among them: a roll imports it for type checkers only.
STDLIB_MODULES = "__future__, argparse, dataclasses, errno, json, locale, random"
STDLIB = f"import {STDLIB_MODULES}"

#: what no gmdesk code can go below, measured in the same rounds (no target: the floor
#: under a target): the standard library a roll stands on, imported alone; of it, what
#: any roll printed as JSON needs, typed declarations or not (the command line, the
#: record as JSON, the dice); Rich's own modules that draw a roll; and both, the floor
#: under the Rich row (the Rich roll loads exactly those, and Rich's width table of a
#: Unicode version as it measures the dice's minus signs, ~0.4 ms: tests/test_cli_startup.py)
FLOORS = {
    "floor: the standard library a roll stands on": STDLIB,
    "floor: of it, without dataclasses": "import __future__, argparse, errno, json, locale, random",
    "floor: Rich's console and text": "import rich.console, rich.text",
    "floor: both": f"{STDLIB}, rich.console, rich.text",
}

#: a part of the roll's own start-up, shown beside the floors (no target): the dice
#: system's declaration (the typed dataclasses of core.systems, the 4d2 module), imported
#: over the floor; the rest of ``gmdesk roll 4d2 --json`` is the command line and the roll
PARTS = {
    "part: the 4d2 declaration over the floor": f"{STDLIB}, gmdesk.core.systems.four_d_two",
}

#: of gmdesk's own start-up, the CPU ``dataclasses`` spends making the frozen dataclasses
#: the roll's modules declare (on Python 3.11, one ``exec`` for each generated method:
#: ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, and a frozen class's
#: ``__setattr__`` and ``__delattr__``), timed inside the roll itself: ``classes fields ms``
#: on stdout (nothing when this Python's ``dataclasses`` has no ``_process_class`` to time)
CLASSES_PROBE = f"""\
import dataclasses, io, sys, time
from contextlib import redirect_stdout
made = getattr(dataclasses, "_process_class", None)
spent = [0, 0, 0.0]
def timed(cls, *args, **kwargs):
    t0 = time.process_time()
    out = made(cls, *args, **kwargs)
    spent[2] += time.process_time() - t0
    spent[0] += 1
    spent[1] += len(out.__dataclass_fields__)
    return out
if made is not None:
    dataclasses._process_class = timed
from gmdesk.__main__ import main
with redirect_stdout(io.StringIO()):
    code = main({[*ROLL, "--json"]!r})
if made is not None:
    print(spent[0], spent[1], spent[2] * 1000)
sys.exit(code)
"""


def declaration_classes(runs: int) -> tuple[int, int, float] | None:
    """``(classes, fields, median ms)`` that making the roll's frozen dataclasses costs
    (:data:`CLASSES_PROBE`, ``runs`` fresh processes); None when it cannot be timed."""
    got = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", CLASSES_PROBE], capture_output=True, text=True, check=True)
        if not out.stdout.split():
            return None
        classes, fields, ms = out.stdout.split()
        got.append((int(classes), int(fields), float(ms)))
    return got[0][0], got[0][1], statistics.median(ms for _, _, ms in got)


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


#: each target row and the floor under it (:data:`FLOORS`)
FLOOR_UNDER = {
    "gmdesk roll 4d2 --json": "floor: the standard library a roll stands on",
    "gmdesk roll 4d2 (Rich)": "floor: both",
}


def explain(cpu: dict[str, list[float]], classes: tuple[int, int, float] | None) -> list[str]:
    """Where each target row's CPU goes, in the same rounds' medians: the floor under it,
    whether the target lies below that floor, and gmdesk's own part over it (of which
    making the declaration's frozen dataclasses, ``classes``: :func:`declaration_classes`)."""
    anchor = statistics.median(cpu[ANCHOR])
    bare = statistics.median(cpu["floor: of it, without dataclasses"])
    typed = statistics.median(cpu["floor: the standard library a roll stands on"])
    lines = []
    for name, floor_name in FLOOR_UNDER.items():
        floor, med, limit = statistics.median(cpu[floor_name]), statistics.median(cpu[name]), TARGETS[name] * anchor
        verdict = (
            f"below that floor: no gmdesk code meets it (the floor itself is {floor / anchor:.2f}×)"
            if limit < floor
            else f"{limit - floor:.1f} ms over that floor"
        )
        own = med - floor
        lines.append(
            f"{name}: its target, ≤ {TARGETS[name]:g}× = {limit:.1f} ms, lies {verdict}; "
            f"over the floor ({floor:.1f} ms) gmdesk's own {own:.1f} ms ({own / anchor:.2f}× {ANCHOR})"
        )
    json_own = statistics.median(cpu["gmdesk roll 4d2 --json"]) - typed
    lines.append(
        f"the typed declaration's price: importing dataclasses, {typed - bare:.1f} ms of the floor "
        f"(without it the floor is {bare / anchor:.2f}×)"
        + (
            f", and making the {classes[0]} frozen dataclasses ({classes[1]} fields) the roll's modules declare, "
            f"{classes[2]:.1f} ms ({classes[2] / anchor:.2f}×) of gmdesk's own {json_own:.1f} ms; the rest of it, "
            f"{json_own - classes[2]:.1f} ms, is gmdesk's modules loaded and run, the options built and read, the roll"
            if classes is not None
            else ""
        )
    )
    return lines


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
    for line in explain(cpu, declaration_classes(3 if ns.quick else 7)):
        print(f"  {line}")
    print()
    parser_ = print_table("generated options, in process (median)", parser_rows(50 if ns.quick else 200))
    return 0 if all(r.met for r in (*rows_, *parser_)) else 1


if __name__ == "__main__":
    sys.exit(main())
