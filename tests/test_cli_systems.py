"""The command line generated from each system's declaration: `gmdesk roll|odds
SYSTEM` offers every declared parameter, reads a bad value as one line naming the
option (exit 2), `gmdesk systems [--json]` lists what is installed, and a plug-in that
cannot be loaded is reported in one line while the others keep working."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gmdesk.cli.main import main
from gmdesk.cli.rolls import parse_system_args
from gmdesk.core import systems as registry
from gmdesk.core.systems import BUILTIN_IDS, get_spec
from gmdesk.core.systems.options import cli_params

#: a whole plug-in system: flips coins, the value is the number of heads
FLIP = textwrap.dedent(
    """
    from fractions import Fraction
    from math import comb

    from gmdesk.core.dice import Die, RollRecord
    from gmdesk.core.odds import Odds
    from gmdesk.core.systems.spec import Param

    ID = "flip"
    NAME = "Flip"
    PARAMS = (
        Param("coins", "Coins", "int", 3, "coins flipped", lo=1, hi=12),
        Param("need", "Heads needed", "int", 2, "heads for a success", lo=0, hi=12),
        Param("target", "Target", "text", "", "whom the coins are flipped at"),
    )


    def roll(params, rng, tables=None):
        dice = tuple(Die(rng.randint(1, 2), "die", 2) for _ in range(params.coins))
        heads = sum(d.value == 2 for d in dice)
        return RollRecord(ID, {"coins": params.coins, "need": params.need, "target": params.target,
                               "combat": params.combat, "target_kind": params.target_kind,
                               "attacker_kind": params.attacker_kind},
                          dice, heads, "Success" if heads >= params.need else "Failure", {"heads": heads})


    def odds(params, tables=None):
        dist = {k: Fraction(comb(params.coins, k), 2**params.coins) for k in range(params.coins + 1)}
        win = sum((p for k, p in dist.items() if k >= params.need), Fraction(0))
        return Odds.from_dist(ID, {}, dist, [("Success", win), ("Failure", 1 - win)])


    def initiative(rng, modifier=0):
        d = Die(rng.randint(1, 2), "die", 2)
        return RollRecord(ID, {}, (d,), d.value + modifier, str(d.value + modifier))
    """
)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Installed plug-ins as given: ``plugins({"flip": "h1_flip_plugin", …})`` with a
    module ``h1_flip_plugin`` written from :data:`FLIP` (any other name is left
    missing); the registry's caches are cleared before and after."""
    (tmp_path / "h1_flip_plugin.py").write_text(FLIP, encoding="utf-8")
    (tmp_path / "h1_half_plugin.py").write_text("ID = 'half'\nNAME = 'Half'\n", encoding="utf-8")
    clash = FLIP.replace('ID = "flip"', 'ID = "clash"').replace('Param("need"', 'Param("seed"')
    (tmp_path / "h1_clash_plugin.py").write_text(clash, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()

    def install(entries: dict[str, str]) -> None:
        group = registry.ENTRY_POINT_GROUP
        eps = [importlib.metadata.EntryPoint(name, value, group) for name, value in entries.items()]
        monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: eps)
        registry._plugins.cache_clear()
        registry._load.cache_clear()

    yield install
    registry._plugins.cache_clear()
    registry._load.cache_clear()
    registry.secret_params.cache_clear()


# --------------------------------------------------------------------------- generated options


@pytest.mark.parametrize("system_id", BUILTIN_IDS)
@pytest.mark.parametrize("command", ["roll", "odds"])
def test_every_declared_parameter_is_an_option_in_help(capsys, command, system_id):
    with pytest.raises(SystemExit) as e:
        main([command, system_id, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    offered = cli_params(get_spec(system_id))
    assert {p.name for p in offered} >= {"combat", "target_kind", "attacker_kind"}
    for p in offered:
        assert p.cli_option in out, p
        assert " ".join(p.help.split())[:20] in " ".join(out.split()), p


def _bad_values():
    for system_id in BUILTIN_IDS:
        for p in cli_params(get_spec(system_id)):
            if p.type == "int":
                yield system_id, p.cli_option, "lots"
            elif p.type == "choice":
                yield system_id, p.cli_option, "sideways"


@pytest.mark.parametrize("system_id,option,value", list(_bad_values()))
def test_a_bad_value_is_one_line_naming_the_option_and_exit_2(capsys, system_id, option, value):
    code, out, err = _run(capsys, "odds", system_id, option, value)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert option in err and value in err


def test_options_keep_their_meaning(capsys):
    # 4d2: a fold of "none" is no fold
    code, out, _ = _run(capsys, "roll", "4d2", "--fold", "none", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["params"]["fold"] is None
    # 4d6: a DC by its ladder name
    code, out, _ = _run(capsys, "roll", "4d6", "--dc", "difficult", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["params"]["dc"] == 18
    # 1d6x4: --target is the GM's secret number, --vs-test alone makes a two-way Test
    code, out, _ = _run(capsys, "roll", "1d6x4", "--target", "15", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["params"]["target"] == 15
    code, out, _ = _run(capsys, "roll", "1d6x4", "--vs-test", "Defense", "--seed", "1", "--json")
    record = json.loads(out)
    assert code == 0 and record["params"]["vs_bonus"] == 0 and "opponent" in record
    # flags and the common combat options
    code, out, _ = _run(capsys, "roll", "torg-2d10", "--up", "--difficulty", "10", "--combat", "--seed", "1", "--json")
    params = json.loads(out)["params"]
    assert code == 0 and params["up"] is True and params["combat"] is True and params["stymied"] is False


@pytest.mark.parametrize(
    "system_id,argv,expected",
    [
        ("fudge", ["--method", "", "--offense", "", "--defense", ""], {"method": "2d3", "offense": 0, "defense": 0}),
        ("4d6", ["--position", "", "--effect", ""], {"position": "standard", "effect": "standard"}),
        ("4d2", ["--fold", "", "--target-kind", "", "--attacker-kind", ""], {"fold": None, "target_kind": "organic"}),
        ("1d6x4", ["--bonus", "", "--target", "", "--damage", ""], {"bonus": 0, "target": None, "damage": "d6"}),
    ],
)
def test_an_empty_value_is_the_default_where_it_always_was(system_id, argv, expected):
    params = parse_system_args("roll", system_id, argv)[2]
    assert {k: getattr(params, k) for k in expected} == expected


def test_the_parameters_typed_are_known_an_explicit_zero_included():
    from gmdesk.core.session.params import explicit_options

    _, ns, params = parse_system_args("roll", "4d2", ["--shift", "0", "--maneuver", "--at", "Bob"])
    assert explicit_options(ns) == {"shift", "maneuver"}
    assert params.shift == 0 and ns.target == "Bob"


def test_roll_help_lists_the_installed_systems(capsys, plugins):
    plugins({"flip": "h1_flip_plugin"})
    code, out, err = _run(capsys, "roll", "--help")
    assert code == 0 and err == ""
    assert "SYSTEM: 4d2, fudge, 1d6x4, torg-2d10, 4d6, flip;" in out


# --------------------------------------------------------------------------- gmdesk systems


def test_systems_json_lists_every_system_with_its_declaration():
    proc = subprocess.run(
        [sys.executable, "-m", "gmdesk", "systems", "--json"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and proc.stderr == ""
    listed = json.loads(proc.stdout)
    assert [s["id"] for s in listed][: len(BUILTIN_IDS)] == list(BUILTIN_IDS)
    for entry in listed:
        assert {"id", "name", "params", "character_fields"} <= set(entry)
        spec = get_spec(entry["id"])
        assert entry["name"] == spec.name
        assert [p["name"] for p in entry["params"]] == [p.name for p in spec.params if not p.form_only]
        for p in entry["params"]:
            assert {"name", "label", "type", "default"} <= set(p)
        for f in entry["character_fields"]:
            assert {"name", "label", "type", "feeds", "from"} <= set(f)
            assert f["from"] in ("roller", "target")
    torg = next(s for s in listed if s["id"] == "torg-2d10")
    skill = next(p for p in torg["params"] if p["name"] == "skill")
    assert (skill["label"], skill["type"], skill["default"]) == ("Skill value", "int", None)


def test_systems_plain_lists_each_system_and_its_options(capsys):
    code, out, err = _run(capsys, "systems")
    assert code == 0 and err == ""
    for system_id in BUILTIN_IDS:
        spec = get_spec(system_id)
        assert f"{spec.id}  {spec.name}" in out
        for p in cli_params(spec):
            if p in spec.params:
                assert p.cli_option in out and p.label in out
        for f in spec.character_fields:
            assert f"{f.label} ({f.type})" in out


def test_a_broken_plugin_is_one_line_and_the_others_keep_working(capsys, plugins):
    plugins({"flip": "h1_flip_plugin", "gone": "h1_no_such_plugin", "half": "h1_half_plugin"})
    code, out, err = _run(capsys, "systems", "--json")
    assert code == 0
    assert [s["id"] for s in json.loads(out)] == [*BUILTIN_IDS, "flip"]
    problems = err.strip().splitlines()
    assert len(problems) == 2, err
    assert "'gone'" in problems[0] and "h1_no_such_plugin" in problems[0]
    assert "'half'" in problems[1] and "PARAMS" in problems[1]
    # the working plug-in rolls with its generated options, the built-ins still roll
    code, out, err = _run(capsys, "roll", "flip", "--coins", "5", "--need", "0", "--seed", "3", "--json")
    record = json.loads(out)
    assert code == 0 and record["params"]["coins"] == 5 and record["outcome"] == "Success"
    assert len(err.strip().splitlines()) == 2  # the broken ones, reported again
    code, out, _ = _run(capsys, "odds", "flip", "--coins", "2", "--json")
    assert code == 0 and [d["value"] for d in json.loads(out)["distribution"]] == [0, 1, 2]
    # a parameter named "target" is no clash with --at's target character
    code, out, _ = _run(capsys, "roll", "flip", "--target", "the door", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["params"]["target"] == "the door"
    code, out, err = _run(capsys, "roll", "flip", "--coins", "13")
    assert code == 2 and err.strip().splitlines()[-1] == "gmdesk: --coins: must be a whole number from 1 to 12 (got 13)"
    code, out, _ = _run(capsys, "roll", "4d2", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["system"] == "4d2"


def test_a_plugin_renders_without_labels_of_its_own(capsys, plugins):
    plugins({"flip": "h1_flip_plugin"})
    code, out, err = _run(capsys, "roll", "flip", "--coins", "4", "--seed", "2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[0] == "flip" and lines[0].split()[-1] in ("Success", "Failure")
    assert lines[1].startswith("dice: ") and len(lines[1].split()) == 5


def test_a_new_session_of_a_plugin_system_reports_the_broken_plugins(capsys, plugins, tmp_path):
    plugins({"flip": "h1_flip_plugin", "gone": "h1_no_such_plugin"})
    code, out, err = _run(capsys, "--saves", str(tmp_path / "saves"), "new", "Coins", "--system", "flip")
    assert code == 0, err
    assert len(err.strip().splitlines()) == 1 and "'gone'" in err
    code, out, err = _run(capsys, "--saves", str(tmp_path / "saves"), "new", "Plain", "--system", "4d6")
    assert code == 0 and err == ""  # a built-in system needs no plug-in list


def test_a_plugin_whose_option_clashes_with_gmdesk_s_own_is_one_line(capsys, plugins):
    plugins({"clash": "h1_clash_plugin"})
    code, out, err = _run(capsys, "roll", "clash", "--coins", "2")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--seed" in err and "clash" in err
