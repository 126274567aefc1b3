"""``gmdesk roll`` answers at once: a fresh process loads only what the roll needs.

What a command loads is what its start-up costs (benchmarks/bench_cli.py measures the
CPU); these tests pin the behaviour behind the figure: ``gmdesk roll 4d2 --json``
reads no package metadata (the plug-ins' entry points), loads neither Rich nor
Textual nor the sessions' store nor the exact odds (:data:`NOT_FOR_A_ROLL`), and still
rolls what it rolled before. No built-in's roll loads ``typing``; a system that
declares no clocks, spends or statuses makes none of their classes; and the standard
library a roll loads is exactly the floor the benchmark prints under it. A plug-in
system named on the command line is still found (tests/test_plugin_*.py run them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: run one command as the ``gmdesk`` entry point does, then list what it loaded
#: (on stderr: stdout is the command's own)
PROBE = (
    "import sys\n"
    "from gmdesk.__main__ import main\n"
    "code = main(sys.argv[1:])\n"
    "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    "sys.exit(code)\n"
)

#: the exact odds and their curve (``gmdesk odds``), and the Fractions they count in:
#: no system's roll uses them
EXACT_ODDS = ("gmdesk.core.odds", "gmdesk.core.curve", "fractions", "decimal")

#: what a roll printed on the command line has no use for
NOT_FOR_A_ROLL = (
    "importlib.metadata",  # the entry-point scan for plug-in systems: 4d2 is built in
    "importlib.resources",
    "email",  # (what importlib.metadata brings)
    "textual",
    "gmdesk.tui",
    "tinydb",
    "gmdesk.core.session",
    "gmdesk.core.render",
    "pathlib",
    "datetime",
    "shutil",  # (argparse asks it the terminal's width; gmdesk's parser asks the terminal)
    *EXACT_ODDS,
    # the clocks' moves: a declaration gets them only when its rolls move clocks (4d2's do not)
    "gmdesk.core.systems.clock_moves",
    # what a buy-off offers (a frozen dataclass of its own): read when the GM buys off damage
    "gmdesk.core.systems.wound_offers",
    # the other systems: a roll loads the one system it names, and only it
    "gmdesk.core.systems.fudge",
    "gmdesk.core.systems.fudge_dice",
    "gmdesk.core.systems.one_d6_x4",
    "gmdesk.core.systems.torg_2d10",
    "gmdesk.core.systems.core_4d6",
)


def run(*argv: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120, encoding="utf-8", env=env
    )
    return done, set(done.stderr.split())


def loaded(mods: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in mods)


def test_roll_json_loads_no_metadata_no_rich_no_textual() -> None:
    done, mods = run("roll", "4d2", "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(done.stdout)
    assert record["system"] == "4d2" and len(record["dice"]) == 4 and record["outcome"]
    assert "gmdesk.core.systems.four_d_two" in mods  # (the probe saw the roll's modules)
    assert [name for name in NOT_FOR_A_ROLL if loaded(mods, name)] == []
    assert not loaded(mods, "rich")


def test_roll_with_rich_output_loads_rich_but_no_metadata_nor_textual() -> None:
    as_json, _mods = run("roll", "4d2", "--seed", "7", "--json")
    done, mods = run("roll", "4d2", "--seed", "7")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(as_json.stdout)["outcome"] in done.stdout  # the same roll, drawn
    assert loaded(mods, "rich")
    wanted_out = [n for n in NOT_FOR_A_ROLL if n not in ("gmdesk.core.render", "datetime")]  # (Rich's own)
    assert [name for name in wanted_out if loaded(mods, name)] == []


@pytest.mark.parametrize("system", ["fudge", "1d6x4", "torg-2d10", "4d6"])
def test_no_built_in_system_loads_the_exact_odds_to_roll(system: str) -> None:
    done, mods = run("roll", system, "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["system"] == system
    assert [name for name in EXACT_ODDS if loaded(mods, name)] == []


@pytest.mark.parametrize("system", ["4d2", "fudge", "1d6x4", "torg-2d10", "4d6"])
def test_a_json_roll_of_any_built_in_never_loads_typing(system: str) -> None:
    """``typing`` is a tenth of a roll's start-up and no roll uses it at run time: the
    modules a roll loads import it for type checkers only (``if TYPE_CHECKING:``, the
    flag set without it), and ``RandomSource``, the one Protocol, is loaded when a
    module asks :mod:`gmdesk.core.dice` for it."""
    done, mods = run("roll", system, "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["system"] == system
    assert not loaded(mods, "typing") and "gmdesk.core.randomsource" not in mods


def _loaded_by(imports: str) -> list[str]:
    """The modules a fresh Python has loaded after ``imports`` (a benchmark floor's), sorted."""
    done = subprocess.run(
        [sys.executable, "-c", f"{imports}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return sorted(done.stdout.split())


def test_a_json_roll_loads_exactly_the_standard_library_its_benchmark_floor_imports(monkeypatch) -> None:
    """benchmarks/bench_cli.py prints the floor under ``gmdesk roll 4d2 --json``: the
    standard modules it loads, imported alone. The floor stays exact: the roll loads
    those and no other (a new import on the roll's path shows here first)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent))
    from benchmarks.bench_cli import STDLIB

    done, mods = run("roll", "4d2", "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(m for m in mods if not loaded({m}, "gmdesk")) == _loaded_by(STDLIB)


#: run one command as the ``gmdesk`` entry point does, then list the dataclasses the
#: modules it loaded define (on Python 3.11 each frozen one costs a start-up ~0.5-2 ms)
CLASSES_PROBE = (
    "import sys\n"
    "from gmdesk.__main__ import main\n"
    "code = main(sys.argv[1:])\n"
    "made = sorted(f'{v.__module__}.{v.__qualname__}' for m in list(sys.modules.values())\n"
    "    if getattr(m, '__name__', '').startswith('gmdesk') for v in vars(m).values()\n"
    "    if isinstance(v, type) and '__dataclass_fields__' in vars(v))\n"
    "print('\\n'.join(made), file=sys.stderr)\n"
    "sys.exit(code)\n"
)

#: the parts of a Harm only torg and 4d6 declare, and what a buy-off offers
NOT_MADE_FOR_A_ROLL = (
    "gmdesk.core.systems.harm_parts.DescriptorStatus",
    "gmdesk.core.systems.harm_parts.Clocks",
    "gmdesk.core.systems.harm_parts.Spend",
    "gmdesk.core.systems.harm_parts.Imposed",
    "gmdesk.core.systems.wound_offers.WoundChoice",
)


@pytest.mark.parametrize("system", ["4d2", "fudge", "1d6x4"])
def test_a_roll_makes_no_class_its_system_does_not_declare(system: str) -> None:
    """Clocks, Possibilities spent, imposed conditions and statuses by descriptor are
    torg's and 4d6's (:mod:`gmdesk.core.systems.harm_parts`), a wound offered for a
    buy-off the desk's: a roll of a system that declares none of them never makes
    their classes."""
    done = subprocess.run(
        [sys.executable, "-c", CLASSES_PROBE, "roll", system, "--seed", "7", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    made = set(done.stderr.split())
    assert "gmdesk.core.systems.harm.Harm" in made  # (the probe saw the declaration's classes)
    assert {name.rsplit(".", 1)[1] for name in made} & {n.rsplit(".", 1)[1] for n in NOT_MADE_FOR_A_ROLL} == set()


def test_the_harm_parts_are_still_read_from_harm() -> None:
    """What a plug-in imports (``from gmdesk.core.systems.harm import Clocks, Harm``) is there."""
    from gmdesk.core.systems import harm

    assert harm.Clocks().field == "clock" and harm.Spend().param == ""
    assert {"Clocks", "DescriptorStatus", "Imposed", "Spend", "OUT"} <= set(harm.__all__)
    assert all(hasattr(harm, name) for name in harm.__all__)
    with pytest.raises(AttributeError):
        harm.NoSuchPart  # noqa: B018


def test_a_rich_roll_loads_exactly_its_benchmark_floor_and_rich_s_width_table(monkeypatch) -> None:
    """Under ``gmdesk roll 4d2`` drawn with Rich the benchmark prints the floor of both:
    the roll's standard library and Rich's console and text. The roll loads those and,
    of Rich, only the width table of a Unicode version (Rich reads it the first time it
    measures a character outside ASCII: the dice's minus signs)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent))
    from benchmarks.bench_cli import FLOORS

    done, mods = run("roll", "4d2", "--seed", "7", env={**os.environ, "FORCE_COLOR": "1", "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr[-2000:]
    floor = set(_loaded_by(FLOORS["floor: both"]))
    beyond = {m for m in mods if not loaded({m}, "gmdesk")} - floor
    assert {m for m in beyond if not m.startswith("rich._unicode_data.unicode")} == set()
    assert floor - mods == set()


def test_random_source_is_still_read_from_dice() -> None:
    """What a plug-in imports (docs/PLUGINS.md) is there: the Protocol, loaded when asked."""
    import typing

    from gmdesk.core.dice import RandomSource, make_rng

    assert RandomSource.__name__ == "RandomSource" and typing.Protocol in RandomSource.__mro__
    rng: RandomSource = make_rng(1)
    assert 1 <= rng.randint(1, 6) <= 6


def test_odds_json_of_a_built_in_reads_no_metadata() -> None:
    done, mods = run("odds", "4d6", "--bonus", "2", "--vs-bonus", "1", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert {o["label"] for o in json.loads(done.stdout)["outcomes"]}
    assert not loaded(mods, "importlib.metadata") and not loaded(mods, "rich")
    assert loaded(mods, "gmdesk.core.odds") and loaded(mods, "fractions")  # (what a roll leaves out, odds use)


def test_an_unknown_system_still_looks_for_plug_ins() -> None:
    """Only a built-in id skips the scan: any other id is looked for among the plug-ins
    (and refused in one line, naming the installed systems)."""
    done, mods = run("roll", "no-such-system", "--json")
    assert done.returncode == 2
    assert "unknown system 'no-such-system'" in done.stderr and "4d2" in done.stderr
    assert loaded(mods, "importlib.metadata")


def test_systems_still_lists_from_the_entry_points() -> None:
    done, mods = run("systems", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert [s["id"] for s in json.loads(done.stdout)][:5] == ["4d2", "fudge", "1d6x4", "torg-2d10", "4d6"]
    assert loaded(mods, "importlib.metadata")


def test_version_still_reads_the_installed_metadata() -> None:
    done, _mods = run("--version")
    assert done.returncode == 0 and done.stdout.startswith("gmdesk ") and "unknown" not in done.stdout


def test_help_is_laid_out_at_the_terminals_width(monkeypatch) -> None:
    """The width gmdesk's parser asks for itself is the one argparse would have used:
    the help reads the same, narrow or wide."""
    import argparse

    from gmdesk.cli.rolls import system_parser
    from gmdesk.core.systems import get_spec

    for columns in ("50", "160"):
        monkeypatch.setenv("COLUMNS", columns)
        parser = system_parser("roll", get_spec("4d6"))
        ours = parser.format_help()
        parser.formatter_class = argparse.HelpFormatter
        assert ours == parser.format_help()
        assert "--vs-bonus" in ours
    monkeypatch.setenv("COLUMNS", "50")
    narrow = system_parser("roll", get_spec("4d6")).format_help()
    assert narrow != ours  # (the width is read)


def test_no_class_a_roll_can_load_declares_a_class_variable_by_annotation() -> None:
    """A module a roll loads reads ``typing`` for type checkers only, so a dataclass it
    makes may be made before ``typing`` is loaded, when :mod:`dataclasses` cannot tell
    a ``ClassVar`` annotation from a field: the ``ClassVar`` would become a field of
    every declaration. No such module annotates one (a constant of a class is
    assigned without an annotation, or lives at module level)."""
    import ast

    root = Path(__file__).resolve().parents[1]
    offenders = []
    for path in sorted([*root.glob("core/**/*.py"), *root.glob("cli/**/*.py")]):
        text = path.read_text(encoding="utf-8")
        if "\nTYPE_CHECKING = False" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and "ClassVar" in ast.unparse(item.annotation):
                        offenders.append(f"{path.relative_to(root)}: {node.name}.{ast.unparse(item.target)}")
    assert not offenders, offenders
