"""gmdesk.testing, the conformance suite a plug-in's own tests import from the
installed gmdesk: importing it needs no pytest, each check says which system and what
is wrong, and the example plug-in's own tests (examples/gmdesk-coin/tests) run it from
outside gmdesk's checkout."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from coin_plugin import EXAMPLE, coin_site, gmdesk_env

from gmdesk.core.systems import four_d_two
from gmdesk.testing import CHECKS, check_system, conformance_tests


def test_importing_it_imports_neither_pytest_nor_textual() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, gmdesk.testing\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest', 'textual')))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def copy_of(module: ModuleType, **changes: Any) -> ModuleType:
    """A system module declaring what ``module`` does, but ``changes``."""
    fake = ModuleType("gmdesk_fake")
    fake.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    fake.__dict__.update(changes)
    return fake


def test_a_built_in_system_conforms() -> None:
    spec = check_system("4d2")
    assert spec.id == "4d2"


def test_odds_that_do_not_sum_to_one_are_named() -> None:
    def odds(params: Any, tables: Any = None) -> Any:
        whole = four_d_two.odds(params)
        return dataclasses.replace(whole, distribution=whole.distribution[:-1])

    with pytest.raises(AssertionError, match=r"^4d2: the odds of a plain roll sum to 1 − tail \(got "):
        check_system(copy_of(four_d_two, odds=odds), cli=False)


def test_a_roll_that_does_not_replay_is_named() -> None:
    import random

    def roll(params: Any, rng: Any, tables: Any = None) -> Any:
        return four_d_two.roll(params, random.Random())  # ignores the dice it is given

    with pytest.raises(AssertionError, match=r"^4d2: a plain roll with seed 1 replays the same$"):
        check_system(copy_of(four_d_two, roll=roll), cli=False)


def test_odds_that_are_not_the_roll_s_own_are_named() -> None:
    """Odds that sum to one but are not what the roll does (a die read off by one) fail:
    every dice sequence of the roll is read against them."""

    def roll(params: Any, rng: Any, tables: Any = None) -> Any:
        record = four_d_two.roll(params, rng)
        return dataclasses.replace(record, value=9) if record.value == 10 else record

    with pytest.raises(
        AssertionError, match=r"^4d2: the odds of a plain roll give 9 the chance 1/324, its rolls 5/1296"
    ):
        check_system(copy_of(four_d_two, roll=roll), cli=False)


def test_a_declaration_error_names_the_module_and_what_is_missing() -> None:
    fake = copy_of(four_d_two)
    del fake.NAME
    with pytest.raises(
        AssertionError, match=r"^gmdesk_fake: the declaration is refused: gmdesk_fake declares no NAME$"
    ):
        check_system(fake)


def test_an_unknown_system_id_is_named() -> None:
    with pytest.raises(AssertionError, match=r"^d7: not a registered system \(.*unknown system 'd7'"):
        check_system("d7")


def test_conformance_tests_is_one_pytest_case_per_system_and_check() -> None:
    test = conformance_tests("4d2", "fudge", cli=False)
    (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]
    assert [p.id for p in mark.args[1]] == [f"{s}-{c}" for s in ("4d2", "fudge") for c in CHECKS if c != "cli"]
    test("fudge", "odds")
    with pytest.raises(AssertionError, match="^4d2: the tail of a plain roll is a Fraction < 1$"):
        test(
            copy_of(four_d_two, odds=lambda params, tables=None: dataclasses.replace(four_d_two.odds(params), tail=1)),
            "odds",
        )


def test_the_example_plug_ins_own_tests_run_it(tmp_path: Path) -> None:
    # from a copy of the example's folder: its own pytest settings, not gmdesk's; gmdesk
    # from this environment, the example installed beside it
    shutil.copytree(EXAMPLE, tmp_path / "coin", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=tmp_path / "coin",
        capture_output=True,
        text=True,
        timeout=300,
        env=gmdesk_env(coin_site()),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 passed" in done.stdout, done.stdout
