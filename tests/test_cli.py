"""The `gmdesk roll` / `gmdesk odds` contract: JSON shapes, bad input (exit 2, one
line, no traceback), and seeded samples that agree with the exact odds.

The commands run in-process (:func:`helpers.gmdesk_run`: exit code, stdout and stderr
as a finished process gives them); the tests of what only a real process shows — the
``gmdesk`` program's exit status and streams, and its output without colour — start
one (:func:`gmdesk_process`)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter

import pytest
from helpers import gmdesk_run


def gmdesk(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``gmdesk ARGS…`` run in-process; with ``check``, it must succeed."""
    proc = gmdesk_run(*args)
    if check and proc.returncode != 0:
        raise AssertionError(f"gmdesk {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


def gmdesk_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``gmdesk ARGS…`` as a program of its own (``python -m gmdesk``)."""
    return subprocess.run([sys.executable, "-m", "gmdesk", *args], capture_output=True, text=True, timeout=120, env=env)


# (system, options) pairs covering every system, with and without its main options
SAMPLED = [
    ("4d2", []),
    ("4d2", ["--shift", "2", "--fold", "negative"]),
    ("fudge", ["--method", "d20-open"]),
    ("fudge", ["--method", "d12"]),
    ("1d6x4", ["--bonus", "3", "--target", "15"]),
    ("torg-2d10", ["--up", "--possibilities", "1"]),
    ("torg-2d10", ["--stymied"]),
    ("4d6", ["--bonus", "2", "--dc", "16", "--adv", "+2,-1"]),
    ("4d6", ["--adv", "-2"]),
]


@pytest.mark.slow
@pytest.mark.parametrize("system,opts", SAMPLED, ids=[f"{s} {' '.join(o)}" for s, o in SAMPLED])
def test_seeded_rolls_match_exact_odds(system, opts):
    n = 20000
    odds = json.loads(gmdesk("odds", system, *opts, "--json").stdout)
    assert odds["system"] == system
    dist = {d["value"]: d["p"] for d in odds["distribution"]}
    assert abs(sum(dist.values()) + odds["tail"] - 1) < 1e-9
    lines = gmdesk("roll", system, *opts, "--seed", "20261121", "--count", str(n), "--json").stdout.splitlines()
    assert len(lines) == n
    records = [json.loads(line) for line in lines]
    seen = Counter(r["value"] for r in records)
    assert set(seen) <= set(dist) | {v for v in seen if dist.get(v, 0) == 0 and odds["tail"] > 0}
    # chi-square over bins with an expected count of at least 5 (the rest pooled)
    chi2, bins, pooled_e, pooled_o = 0.0, 0, 0.0, 0
    for value, p in dist.items():
        e = p * n
        if e >= 5:
            chi2 += (seen.get(value, 0) - e) ** 2 / e
            bins += 1
        else:
            pooled_e += e
            pooled_o += seen.get(value, 0)
    pooled_o += sum(c for v, c in seen.items() if v not in dist)
    if pooled_e >= 5:
        chi2 += (pooled_o - pooled_e) ** 2 / pooled_e
        bins += 1
    df = max(bins - 1, 1)
    assert chi2 < df + 6 * math.sqrt(2 * df), f"chi2 {chi2:.1f} on {df} df"
    # the named outcomes agree too (within 4 standard errors)
    named = Counter(r["outcome"] for r in records)
    for outcome in odds["outcomes"]:
        p = outcome["p"]
        got = named[outcome["label"]] / n
        se = math.sqrt(max(p * (1 - p), 1e-9) / n)
        assert abs(got - p) < 4 * se + 1e-3, (outcome["label"], got, p)


def test_roll_json_shape_4d2_combat():
    rec = json.loads(gmdesk("roll", "4d2", "--combat", "--target-kind", "inorganic", "--seed", "3", "--json").stdout)
    assert {"system", "params", "dice", "value", "outcome", "number", "shift"} <= set(rec)
    assert rec["system"] == "4d2"
    assert [d["role"] for d in rec["dice"]] == ["positive", "positive", "negative", "negative"]
    assert rec["number"] == sum(d["value"] for d in rec["dice"][:2]) - sum(d["value"] for d in rec["dice"][2:])
    assert set(rec["descriptor"]) >= {"text", "applies_to", "row"}
    assert rec["descriptor"]["applies_to"] in ("target", "attacker")


def test_seed_replays_exactly():
    a = gmdesk("roll", "torg-2d10", "--seed", "99", "--count", "50", "--json").stdout
    b = gmdesk("roll", "torg-2d10", "--seed", "99", "--count", "50", "--json").stdout
    assert a == b


def test_odds_json_shape():
    odds = json.loads(gmdesk("odds", "4d6", "--dc", "16", "--json").stdout)
    assert set(odds) == {"system", "params", "distribution", "outcomes", "tail"}
    values = [d["value"] for d in odds["distribution"]]
    assert values == sorted(values)
    assert {o["label"] for o in odds["outcomes"]} >= {
        "Critical Success",
        "Full Success",
        "Partial Success",
        "Failure",
        "Critical Failure",
    }


@pytest.mark.parametrize(
    "args,needle",
    [
        (["roll", "5d6"], "unknown system"),
        (["odds", "fudge", "--method", "d7"], "--method"),
        (["roll", "4d2", "--shift", "4"], "--shift"),
        (["roll", "4d6", "--adv", "+3"], "--adv"),
        (["roll", "4d2", "--fold", "sideways"], "--fold"),
        (["roll", "4d6", "--bonus", "lots"], "--bonus"),
        (["roll", "4d2", "--count", "0"], "--count"),
        (["roll", "4d2", "--seed", "x"], "--seed"),
        (["roll", "4d2", "--target-kind", "ghost", "--combat"], "--target-kind"),
        (["roll", "4d2", "--method", "d20"], "unrecognized"),
        (["roll", "4d2", "--shift"], "--shift"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, needle):
    proc = gmdesk(*args, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert needle in err
    assert "Traceback" not in err


def test_human_output_readable_without_colour():
    proc = gmdesk_process("roll", "4d6", "--adv", "+1", "--seed", "1", env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0
    assert "\x1b[" not in proc.stdout
    dice_line = next(line for line in proc.stdout.splitlines() if line.startswith("dice:"))
    # five dice, the dropped one in parentheses: no colour needed to tell them apart
    assert dice_line.count("(") == 1 and len(dice_line.split()) == 6


def _missing_argument_cases():
    """Every subcommand typed without what it needs (and options without their value)."""
    from gmdesk.cli.main import COMMANDS

    no_required = {"list", "systems"}
    cases = [[c] for c in COMMANDS if c not in no_required]
    cases += [
        ["roll", "--seed", "1"],
        ["odds", "--json"],
        ["roll", "4d6", "--count"],
        ["roll", "4d6", "--save"],
        ["roll", "4d6", "--as"],
        ["new", "X", "--system"],
        ["export", "X", "--format"],
        ["export", "X", "-o"],
        ["log", "X", "--interval"],
        ["import-sheet", "X"],
        ["import-sheet", "X", "Y", "--as"],
        ["export-sheet", "X"],
        ["list", "--bogus"],
    ]
    return cases


@pytest.mark.parametrize("args", _missing_argument_cases(), ids=lambda a: " ".join(a))
def test_missing_argument_is_one_line_and_exit_2(args, tmp_path):
    proc = gmdesk_run("--saves", str(tmp_path), *args)
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("gmdesk"), err
    assert "Traceback" not in err and "None" not in err


@pytest.mark.parametrize("command", ["roll", "odds"])
def test_missing_system_names_the_systems(command):
    proc = gmdesk(command, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (
        f"gmdesk {command}: missing SYSTEM, one of 4d2, fudge, 1d6x4, torg-2d10, 4d6 "
        f"(`gmdesk {command} SYSTEM --help` lists its options)"
    )
    # asked for, usage is no error
    help_proc = gmdesk(command, "--help")
    assert "usage: gmdesk" in help_proc.stdout and help_proc.stderr == ""


def test_help_lists_every_command_in_argparse_format_without_developer_text(capsys) -> None:
    """Issue 18: ``gmdesk --help`` names every command (``char`` was missing) in the
    format ``gmdesk COMMAND --help`` uses, and speaks to the GM, not to developers."""
    from gmdesk.cli.main import COMMANDS, main

    assert main(["--help"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("usage: gmdesk ") and err == ""
    listed = {line.split()[0] for line in out.splitlines() if line.startswith("    ") and line.split()}
    assert set(COMMANDS) <= listed
    assert "char " in out and "--saves DIR" in out and "--version" in out
    for developer in ("``", "module", "Textual", "never import", "front_end", "FrontEnd"):
        assert developer not in out
    new_out = gmdesk_run("new", "--help").stdout
    assert new_out.startswith("usage: gmdesk new ") and "options:" in out and "options:" in new_out


@pytest.mark.parametrize(
    ("args", "rc", "out", "err"),
    [
        (("roll", "4d2", "--seed", "3", "--json"), 0, '{"system": "4d2"', ""),
        (("roll", "5d6"), 2, "", "gmdesk: SYSTEM: unknown system"),
        (("odds",), 2, "", "gmdesk odds: missing SYSTEM"),
    ],
)
def test_the_program_exits_with_the_code_and_writes_to_the_stream_of_the_in_process_run(args, rc, out, err):
    """The ``gmdesk`` program itself: its exit status, stdout and stderr are the ones
    the in-process run gives (what the tests above check, they check of the program)."""
    proc = gmdesk_process(*args)
    inside = gmdesk_run(*args)
    assert (proc.returncode, proc.stdout, proc.stderr) == (inside.returncode, inside.stdout, inside.stderr)
    assert proc.returncode == rc and proc.stdout.startswith(out) and proc.stderr.startswith(err), proc
    assert proc.stdout.count("\n") <= 1 and proc.stderr.count("\n") <= 1 and "Traceback" not in proc.stderr
