"""One code path fills a session roll's parameters (core.session.params): the attack
dialog of the desk and ``gmdesk roll … --save --as A --at T`` roll with the same
shift / advantage from the same active sources; what the GM types wins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    press,
    run,
    saved,
    settle,
)

from gmdesk.cli.main import main
from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.tui.screens.roll import RollDialog

pytestmark = pytest.mark.usefixtures("quick_odds")


def cli_roll(capsys: Any, path: Path, system: str, *opts: str) -> dict:
    """``gmdesk roll SYSTEM --save PATH --as Kara --at Bruno --json``: the roll's params."""
    rc = main(
        [
            "roll",
            system,
            "--combat",
            "--seed",
            "3",
            "--save",
            str(path),
            "--as",
            "Kara",
            "--at",
            "Bruno",
            "--json",
            *opts,
        ]
    )
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out.splitlines()[-1])["params"]


async def dialog_roll(path: Path) -> dict:
    """The acting Kara attacks Bruno through the desk's attack dialog (no edits): the params."""
    app = make_app(path, rng=FixedDice([3, 3, 3, 3, 3, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert (dlg.actor, dlg.target) == (ids_of(path)["Kara"], ids_of(path)["Bruno"])
        await press(pilot, "enter")
        await settle(pilot)
    return saved(path).rolls[-1].record.to_json()["params"]


def ids_of(path: Path) -> dict:
    return {c.name: c.id for c in saved(path).characters.values()}


@pytest.mark.parametrize(
    "system,sources,param,expected",
    [
        # Kara: Pistol +2 and DEX +1 (switched off); Bruno: Armor +1 → net shift 2 − 1
        (
            "4d2",
            {
                "Kara": [("shift", "Pistol", 2, True), ("shift", "DEX", 1, False)],
                "Bruno": [("shift", "Armor", 1, True)],
            },
            "shift",
            1,
        ),
        # Kara: Dim +1, Crowded +2, Exhausted −1 (switched off)
        (
            "4d6",
            {
                "Kara": [
                    ("advantage", "Dim", 1, True),
                    ("advantage", "Crowded", 2, True),
                    ("advantage", "Exhausted", -1, False),
                ]
            },
            "adv",
            [1, 2],
        ),
    ],
)
async def test_cli_and_dialog_fill_the_same_sources(
    tmp_path: Path, capsys: Any, system: str, sources: dict, param: str, expected: Any
) -> None:
    path, ids = make_save(
        tmp_path,
        system,
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Kara": 10, "Bruno": 4},
        start=True,
    )
    with Session.open(path) as s:
        for who, items in sources.items():
            for kind, name, value, active in items:
                s.apply({"type": "source.add", "id": ids[who], "kind": kind, "name": name, "value": value})
                if not active:
                    s.apply({"type": "source.toggle", "id": ids[who], "kind": kind, "name": name})
    from_dialog = await dialog_roll(path)
    from_cli = cli_roll(capsys, path, system)
    assert from_dialog[param] == expected
    # every parameter, not only the sources' (the 4d6 DC included: both leave it at its
    # default, which reads as 16 Standard)
    assert from_cli == from_dialog
    # an option typed on the command line wins over the sources, as a typed field does
    typed = {"4d2": ("--shift", "0", 0), "4d6": ("--adv", "-2", [-2])}[system]
    assert cli_roll(capsys, path, system, typed[0], typed[1])[param] == typed[2]


def test_cli_fills_the_rollers_torg_conditions(tmp_path: Path, capsys: Any) -> None:
    path, ids = make_save(tmp_path, "torg-2d10", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}])
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Kara"], "name": "Up", "rounds": None})
    params = cli_roll(capsys, path, "torg-2d10", "--difficulty", "8")
    assert params["up"] is True and params["stymied"] is False


def test_cli_rolls_fudge_with_the_sessions_method_unless_typed(tmp_path: Path, capsys: Any) -> None:
    path, ids = make_save(tmp_path, "fudge", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}])
    with Session.open(path) as s:
        s.apply({"type": "session.settings", "changes": {"fudge_method": "d20-open"}})
    rc = main(["roll", "fudge", "--save", str(path), "--as", "Kara", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["params"]["method"] == "d20-open"  # as the roll dialog pre-fills it
    rc = main(["roll", "fudge", "--method", "d12", "--save", str(path), "--as", "Kara", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0 and json.loads(out)["params"]["method"] == "d12"


# ---------------------------------------------------------------- a typed value wins


def test_a_typed_target_number_replaces_the_defense_filled_from_the_defender(tmp_path: Path, capsys: Any) -> None:
    """``roll 1d6x4 --combat --at Goblin --target 1``: the GM's target number stands for
    the defense; the Goblin's Defense Test the session would fill is not added."""
    sheet = "Goblin\nDescriptor  Default  Current  Notes\nVitality  +40\nDefense  +2\n"
    path, ids = make_save(tmp_path, "1d6x4", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC", "sheet": sheet}])
    params = cli_roll(capsys, path, "1d6x4", "--target", "1")
    assert params["target"] == 1 and params["vs_bonus"] is None and params["vs_test"] == ""
    # the same session call the desk's roll dialog makes
    with Session.open(path) as s:
        ev = s.roll(
            "1d6x4",
            {"combat": True, "target": 1},
            actor=ids["Kara"],
            target=ids["Bruno"],
            combat=True,
            given={"target"},
            rng=FixedDice([1, 1]),
        )
        rec = s.state.roll_entry(ev.seq).record
        assert (rec.params["target"], rec.params["vs_bonus"], rec.outcome) == (1, None, "Success")
    # without a typed target the Defense is filled as before
    params = cli_roll(capsys, path, "1d6x4")
    assert params["vs_test"] == "Defense" and params["vs_bonus"] == 2


def test_a_typed_4d6_contest_replaces_the_dc_filled_from_the_defender(tmp_path: Path, capsys: Any) -> None:
    path, ids = make_save(
        tmp_path, "4d6", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC", "fields": {"defense_dc": 15}}]
    )
    params = cli_roll(capsys, path, "4d6", "--vs-bonus", "3")
    assert params["vs_bonus"] == 3 and params["dc"] is None
    params = cli_roll(capsys, path, "4d6")
    assert params["dc"] == 15 and params["vs_bonus"] is None


def test_the_dialogs_reading_lets_a_typed_target_number_replace_the_offered_defense() -> None:
    """The attack dialog offers the defender's Defense (its Defender's field); a target
    number the GM types replaces it instead of being refused."""
    from gmdesk.core.session.model import Character
    from gmdesk.core.sheet import parse_sheet
    from gmdesk.core.systems import one_d6_x4 as x4

    goblin = Character("c2", "Goblin", sheet=parse_sheet("Goblin\nDescriptor  Default  Current\nDefense  +2\n"))
    data, notes = x4.read_form({"test": "", "vs_test": "Defense", "target": "1", "combat": True}, None, goblin, True)
    assert (data["vs_test"], data["vs_bonus"]) == ("", None) and "Target number given: no Defense Test" in notes
    params = x4.Params(**{k: v for k, v in data.items() if k in ("target", "vs_test", "vs_bonus", "combat")})
    assert (params.target, params.two_way) == (1, False)
    # no target: the Defense is read as before
    data, _ = x4.read_form({"vs_test": "Defense", "combat": True}, None, goblin, True)
    assert data["vs_bonus"] == 2


@pytest.mark.parametrize("system", ["4d2", "4d6", "1d6x4"])
async def test_a_dialog_roll_is_filled_once_and_logged_as_the_dialog_built_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, system: str
) -> None:
    """The roll dialog fills the parameters (core.session.params.fill_data, the code path
    ``Session.roll`` uses for a roll given as data); the session then logs them as they
    are: nothing is filled a second time, and the logged parameters are the dialog's."""
    from gmdesk.core.session import params as params_mod
    from gmdesk.core.session import session as session_mod
    from gmdesk.core.session.moves import SessionMoves

    path, _ = make_save(
        tmp_path,
        system,
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Kara": 10, "Bruno": 4},
        start=True,
    )
    fills: list[str] = []
    rolling = [False]
    real_fill, real_roll = params_mod.fill_data, SessionMoves.roll

    def fill(*args: Any, **kw: Any) -> Any:
        fills.append("session" if rolling[0] else "dialog")
        return real_fill(*args, **kw)

    def roll(self: Any, *args: Any, **kw: Any) -> Any:
        rolling[0] = True
        try:
            return real_roll(self, *args, **kw)
        finally:
            rolling[0] = False

    monkeypatch.setattr(params_mod, "fill_data", fill)
    monkeypatch.setattr("gmdesk.tui.screens.roll.fill_data", fill)
    monkeypatch.setattr(SessionMoves, "roll", roll)
    monkeypatch.setattr(session_mod.Session, "roll", roll)
    app = make_app(path, rng=FixedDice([3] * 12))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        built = dlg.spec.params_to_json(dlg.build_params())
        await press(pilot, "enter")
        await settle(pilot)
    logged = saved(path).rolls[-1].record.to_json()["params"]
    assert "dialog" in fills and "session" not in fills, fills
    assert logged == json.loads(json.dumps(built))
