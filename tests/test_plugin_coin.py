"""The worked example plug-in (``examples/gmdesk-coin``), installed by pip as a GM
would, with no change to gmdesk: its rules, its own table, the registry, the CLI and
the desk's dialogs."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from coin_plugin import clear_registry, coin_site, gmdesk, registered
from helpers import (
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    on_top,
    palette,
    press,
    run,
    saved,
    screen_text,
    settle,
    until,
)

from gmdesk.core.dice import FixedDice, RollRecord
from gmdesk.core.errors import ParamError, TableError
from gmdesk.core.session import Session
from gmdesk.core.tables import DescriptorTable, TableSet, parse_table


@pytest.fixture
def coin() -> Iterator[object]:
    """The coin system, installed and registered in this process (and forgotten after)."""
    from gmdesk.core.systems import get_spec

    with registered(coin_site()):
        yield get_spec("coin")


# ----------------------------------------------------------------------------- the package


def test_pip_installs_it_and_the_registry_finds_it_among_the_builtins(coin) -> None:
    from gmdesk.core.systems import BUILTIN_IDS, load_problems, system_ids

    assert system_ids()[: len(BUILTIN_IDS)] == BUILTIN_IDS and "coin" in system_ids()
    assert load_problems() == ()
    assert coin.name == "Coin flips"
    assert [p.name for p in coin.params] == ["coins", "need"]
    assert [(m.id, m.kind, m.key) for m in coin.moves] == [("coin_long_shot", "preset", None)]
    assert [(f.name, f.feeds, f.from_) for f in coin.character_fields] == [
        ("luck", "coins", "roller"),
        ("guard", "need", "target"),
    ]
    entry_points = next(coin_site().glob("gmdesk_coin-*.dist-info")) / "entry_points.txt"
    assert "[gmdesk.systems]\ncoin = gmdesk_coin" in entry_points.read_text()


def test_the_registry_forgets_it_once_it_is_gone() -> None:
    from gmdesk.core.systems import system_ids

    before = system_ids()
    with registered(coin_site()):
        assert "coin" in system_ids()
    clear_registry()
    assert system_ids() == before


# ----------------------------------------------------------------------------- rules


def test_heads_are_the_value_and_need_decides_success(coin) -> None:
    params = coin.Params()
    assert (params.coins, params.need) == (3, 2)
    record = coin.module.roll(params, FixedDice([2, 1, 2]))
    assert (record.value, record.outcome, record.get("success")) == (2, "Success", True)
    assert record.get("faces") == "H T H"
    assert [(d.value, d.sides) for d in record.dice] == [(2, 2), (1, 2), (2, 2)]
    assert record.descriptors == ()  # not an attack
    record = coin.module.roll(coin.Params(coins=5, need=4), FixedDice([2, 2, 1, 2, 1]))
    assert (record.value, record.outcome) == (3, "Failure")


def test_a_successful_attack_bruises_the_target_and_a_failed_one_does_nothing(coin) -> None:
    hit = coin.module.roll(coin.Params(combat=True), FixedDice([2, 2, 2]))
    (bruise,) = hit.descriptors
    assert (bruise.text, bruise.applies_to, bruise.table, bruise.row, bruise.wound) == (
        "Bruise",
        "target",
        "coin-bruise",
        1,
        True,
    )
    miss = coin.module.roll(coin.Params(combat=True), FixedDice([1, 2, 1]))
    assert miss.outcome == "Failure" and miss.descriptors == ()


def test_its_table_ships_in_the_package_and_a_sessions_own_table_wins(coin) -> None:
    table = TableSet().descriptor_table("coin-bruise", package="gmdesk_coin")
    assert isinstance(table, DescriptorTable) and table.rows == {1: ("Bruise",)}
    own = parse_table({"name": "welts", "columns": ["descriptor"], "rows": {"1": ["Welt"]}})
    hit = coin.module.roll(coin.Params(combat=True), FixedDice([2, 2, 2]), TableSet({"coin-bruise": own}))
    assert [(d.text, d.table) for d in hit.descriptors] == [("Welt", "welts")]
    with pytest.raises(TableError, match="no table for role 'coin-bruise'"):
        TableSet().get("coin-bruise")  # the role is the plug-in's: read from its package only
    with pytest.raises(TableError, match="no table in gmdesk_coin named 'nothing'"):
        TableSet().get("nothing", package="gmdesk_coin")


def test_odds_are_exact_binomials(coin) -> None:
    odds = coin.module.odds(coin.Params(coins=3, need=2))
    assert odds.distribution == ((0, Fraction(1, 8)), (1, Fraction(3, 8)), (2, Fraction(3, 8)), (3, Fraction(1, 8)))
    assert odds.outcomes == (("Success", Fraction(1, 2)), ("Failure", Fraction(1, 2)))
    odds = coin.module.odds(coin.Params(coins=20, need=20))
    assert odds.outcome("Success") == Fraction(1, 2**20)
    assert sum(p for _, p in odds.distribution) + odds.tail == 1
    assert coin.module.odds(coin.Params(coins=1, need=2)).outcome("Success") == 0


def test_initiative_is_the_heads_of_three_coins_plus_the_modifier(coin) -> None:
    record = coin.module.initiative(FixedDice([2, 1, 2]), 3)
    assert (record.value, record.outcome, len(record.dice)) == (5, "Initiative 5", 3)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"coins": 0}, "--coins: must be a whole number from 1 to 20 (got 0)"),
        ({"coins": "many"}, "--coins: must be a whole number from 1 to 20 (got 'many')"),
        ({"need": 21}, "--need: must be a whole number from 1 to 20 (got 21)"),
        ({"target_kind": "ghost"}, "--target-kind: must be one of organic, inorganic (got 'ghost')"),
    ],
)
def test_bad_parameters_are_refused_in_one_line_naming_the_option(coin, given: dict, message: str) -> None:
    with pytest.raises(ParamError) as refused:
        coin.Params(**given)
    assert str(refused.value) == message
    assert coin.label_of(message.split(":")[0]) in ("Coins", "Heads needed", "Target kind")


def test_a_seeded_roll_round_trips_through_json(coin) -> None:
    params = coin.Params(coins=7, need=3, combat=True, target_kind="inorganic")
    record = coin.module.roll(params, random.Random(11))
    assert RollRecord.from_json(json.loads(record.dumps())) == record
    assert coin.params_from_json(record.params) == params
    assert record == coin.module.roll(params, random.Random(11))


# ----------------------------------------------------------------------------- the command line


def test_gmdesk_rolls_and_lists_the_plug_in_with_no_change_to_gmdesk() -> None:
    site = (coin_site(),)
    done = gmdesk("roll", "coin", sites=site)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "coin" in done.stdout and ("Success" in done.stdout or "Failure" in done.stdout)
    done = gmdesk("roll", "coin", "--coins", "7", "--need", "4", "--seed", "5", "--count", "3", "--json", sites=site)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == 3 and {r["system"] for r in records} == {"coin"}
    for r in records:
        assert (r["params"]["coins"], r["params"]["need"], len(r["dice"])) == (7, 4, 7)
        assert r["value"] == r["heads"] == sum(d["value"] == 2 for d in r["dice"])
        assert r["outcome"] == ("Success" if r["value"] >= 4 else "Failure")
    done = gmdesk("systems", "--json", sites=site)
    (coin,) = [s for s in json.loads(done.stdout) if s["id"] == "coin"]
    assert coin["name"] == "Coin flips"
    assert [(p["name"], p["label"], p["default"]) for p in coin["params"]] == [
        ("coins", "Coins", 3),
        ("need", "Heads needed", 2),
    ]
    assert [(f["name"], f["feeds"], f["from"]) for f in coin["character_fields"]] == [
        ("luck", "coins", "roller"),
        ("guard", "need", "target"),
    ]


def test_gmdesk_odds_of_the_plug_in_are_exact() -> None:
    done = gmdesk("odds", "coin", "--json", sites=(coin_site(),))
    assert done.returncode == 0, done.stderr
    odds = json.loads(done.stdout)
    assert [(d["value"], d["p"]) for d in odds["distribution"]] == [(0, 0.125), (1, 0.375), (2, 0.375), (3, 0.125)]
    assert [(o["label"], o["p"]) for o in odds["outcomes"]] == [("Success", 0.5), ("Failure", 0.5)]
    assert odds["tail"] == 0
    done = gmdesk("odds", "coin", "--coins", "20", "--need", "20", "--json", sites=(coin_site(),))
    assert json.loads(done.stdout)["outcomes"][0]["p"] == 2**-20


def test_a_gms_own_table_takes_the_plug_ins_role_on_the_command_line(tmp_path: Path) -> None:
    site = (coin_site(),)
    own = tmp_path / "welts.json"
    own.write_text(json.dumps({"name": "welts", "columns": ["descriptor"], "rows": {"1": ["Welt"]}}))
    done = gmdesk(
        "roll", "coin", "--combat", "--need", "1", "--count", "9", "--json", "--table", f"coin-bruise={own}", sites=site
    )
    assert done.returncode == 0, done.stderr
    hits = [r["descriptor"] for r in map(json.loads, done.stdout.splitlines()) if r["outcome"] == "Success"]
    assert hits and {(d["text"], d["table"]) for d in hits} == {("Welt", "welts")}
    done = gmdesk("roll", "coin", "--table", f"bruise={own}", sites=site)
    assert done.returncode == 2 and "unknown role 'bruise'" in done.stderr and "coin-bruise" in done.stderr


def test_bad_input_is_one_line_and_exit_2() -> None:
    done = gmdesk("roll", "coin", "--coins", "0", sites=(coin_site(),))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == ["gmdesk: --coins: must be a whole number from 1 to 20 (got 0)"]


def test_a_session_of_the_plug_in_from_the_command_line(tmp_path: Path) -> None:
    site = (coin_site(),)

    def run_gmdesk(*args: str) -> str:
        done = gmdesk("--saves", str(tmp_path / "saves"), *args, sites=site)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run_gmdesk("new", "Heads or Tails", "--system", "coin")
    run_gmdesk("char", "Heads or Tails", "add", "Ann", "--set", "luck=5")
    run_gmdesk("char", "Heads or Tails", "add", "Bob", "--side", "NPC", "--set", "guard=4")
    out = run_gmdesk(
        "roll", "coin", "--save", "Heads or Tails", "--as", "Ann", "--at", "Bob", "--combat", "--seed", "3", "--json"
    )
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert (record["params"]["coins"], record["params"]["need"], record["params"]["combat"]) == (5, 4, True)
    assert record["from"] == {"coins": "Ann's Luck", "need": "Bob's Guard"}
    out = run_gmdesk(
        "roll",
        "coin",
        "--save",
        "Heads or Tails",
        "--as",
        "Ann",
        "--at",
        "Bob",
        "--combat",
        "--need",
        "1",
        "--seed",
        "4",
    )
    with registered(coin_site()):
        state = saved(tmp_path / "saves" / "Heads or Tails.gmdesk")
    assert [e.record.params["need"] for e in state.rolls] == [4, 1]
    bob = next(c for c in state.characters.values() if c.name == "Bob")
    bruises = [e for e in state.rolls if e.record.outcome == "Success"]
    assert [w.text for w in bob.wounds] == ["Bruise"] * len(bruises) and bruises


# ----------------------------------------------------------------------------- at the table


def test_a_coin_session_keeps_its_attacks_and_the_bruise_they_leave(coin, tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "coin", [{"name": "Ann"}, {"name": "Bob", "side": "NPC"}])
    with Session.open(path) as s:
        assert s.state.info.system == "coin"
        event = s.roll("coin", coin.Params(combat=True), ids["Ann"], ids["Bob"], combat=True, rng=FixedDice([2, 1, 2]))
        assert event.changes == ["Bob takes Bruise"]
    state = saved(path)
    assert [(w.text, w.system) for w in state.characters[ids["Bob"]].wounds] == [("Bruise", "coin")]
    assert state.rolls[-1].record.outcome == "Success"


# ----------------------------------------------------------------------------- a broken plug-in


def broken_site(tmp_path: Path) -> Path:
    """A package registered under gmdesk.systems whose module declares no ID."""
    site = tmp_path / "broken-site"
    (site / "gmdesk_broken-0.1.dist-info").mkdir(parents=True)
    (site / "gmdesk_broken-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: gmdesk-broken\nVersion: 0.1\n"
    )
    (site / "gmdesk_broken-0.1.dist-info" / "entry_points.txt").write_text("[gmdesk.systems]\nbroken = gmdesk_broken\n")
    (site / "gmdesk_broken.py").write_text("NAME = 'Broken'\n")
    return site


def test_a_broken_plug_in_is_reported_in_one_line_and_the_others_keep_working(tmp_path: Path) -> None:
    from gmdesk.core.systems import BUILTIN_IDS, get_spec, load_problems, system_ids

    with registered(coin_site(), broken_site(tmp_path)):
        assert system_ids()[: len(BUILTIN_IDS)] == BUILTIN_IDS and "coin" in system_ids()
        (problem,) = load_problems()
        assert problem == (
            "plug-in system 'broken' (gmdesk_broken) is installed but fails to load: "
            "ValueError: gmdesk_broken declares no ID"
        )
        assert get_spec("coin").name == "Coin flips"
        with pytest.raises(ParamError, match="'broken' is installed but fails to load"):
            get_spec("broken")


# ----------------------------------------------------------------------------- the desk


async def wait_for_odds(pilot: Any, dlg: Any) -> Any:
    """The odds the roll dialog shows once they are those of what its form holds."""
    from gmdesk.core.systems import get_spec

    spec = get_spec(dlg.system)

    def ready() -> bool:
        odds = dlg.last_odds
        return odds is not None and dict(odds.params) == spec.params_to_json(dlg.build_params())

    await until(pilot, ready)
    return dlg.last_odds


@pytest.mark.usefixtures("quick_odds")
async def test_the_desks_roll_dialog_flips_coins_with_live_odds(coin, tmp_path: Path) -> None:
    from textual.widgets import Input

    from gmdesk.tui.screens.roll import RollDialog

    path, ids = make_save(tmp_path, "coin", [{"name": "Ann"}])
    app = make_app(path, rng=FixedDice([2, 2, 1, 2, 1]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.system == "coin"
        text = screen_text(app)
        assert "Coins" in text and "Heads needed" in text
        dlg.query_one("#p-coins", Input).value = "5"
        dlg.query_one("#p-need", Input).value = "3"
        odds = await wait_for_odds(pilot, dlg)
        assert odds.outcome("Success") == Fraction(1, 2)
        await press(pilot, "enter")
        await settle(pilot)
        assert not on_top(app, RollDialog)
        assert "coin" in screen_text(app) and "Success" in screen_text(app)
    record = saved(path).rolls[-1].record
    assert (record.params["coins"], record.params["need"], record.value, record.outcome) == (5, 3, 3, "Success")


@pytest.mark.usefixtures("quick_odds")
async def test_an_attack_at_the_desk_takes_luck_and_guard_from_the_sheets_and_bruises(coin, tmp_path: Path) -> None:
    from gmdesk.tui.screens.roll import RollDialog

    path, ids = make_save(
        tmp_path,
        "coin",
        [{"name": "Ann"}, {"name": "Bob", "side": "NPC"}],
        initiative={"Ann": 3, "Bob": 1},
        start=True,
    )
    with Session.open(path) as s:
        s.apply({"type": "character.fields", "id": ids["Ann"], "set": {"luck": 5}})
        s.apply({"type": "character.fields", "id": ids["Bob"], "set": {"guard": 4, "luck": 2}})
    app = make_app(path, rng=FixedDice([2, 2, 1, 2, 2]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert (dlg.system, dlg.actor, dlg.target) == ("coin", ids["Ann"], ids["Bob"])
        odds = await wait_for_odds(pilot, dlg)
        assert (odds.params["coins"], odds.params["need"], odds.params["combat"]) == (5, 4, True)
        await press(pilot, "enter")
        await settle(pilot)
        assert any("Bruise" in note for note in notes(app))
    state = saved(path)
    entry = state.rolls[-1]
    assert (entry.record.params["coins"], entry.record.params["need"], entry.record.value) == (5, 4, 4)
    assert entry.record.extra["from"]["coins"].startswith("Ann") and entry.record.extra["from"]["need"].startswith(
        "Bob"
    )
    assert [w.text for w in state.characters[ids["Bob"]].wounds] == ["Bruise"]


@pytest.mark.usefixtures("quick_odds")
async def test_its_long_shot_move_is_in_the_palette_and_presets_the_roll_dialog(coin, tmp_path: Path) -> None:
    from gmdesk.tui.screens.roll import RollDialog

    path, ids = make_save(tmp_path, "coin", [{"name": "Ann"}])
    with Session.open(path) as s:
        s.apply({"type": "character.fields", "id": ids["Ann"], "set": {"luck": 2}})
    app = make_app(path, rng=FixedDice([2, 2, 1, 2, 2]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await palette(pilot, "Long shot")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.dialog_title == "Long shot"
        odds = await wait_for_odds(pilot, dlg)
        assert (odds.params["coins"], odds.params["need"]) == (5, 4)  # the preset wins over Ann's Luck
        assert odds.outcome("Success") == Fraction(6, 32)
        await press(pilot, "enter")
        await settle(pilot)
    record = saved(path).rolls[-1].record
    assert (record.params["coins"], record.params["need"], record.value, record.outcome) == (5, 4, 4, "Success")
