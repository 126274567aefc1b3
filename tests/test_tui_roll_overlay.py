"""The roll dialog is an overlay on the desk (issue 22): one dialog, kept between
rolls, filled afresh from the session at every open — never a value from an earlier
open — and modal while it is up (the desk's keys wait, Tab stays in it). Pilot at
80×24; the save is checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SMALL, dialog, main_screen, make_app, make_save, odds_ready, on_top, press, run, saved, settle
from textual.widgets import Input

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.tui.screens.roll import RollDialog

pytestmark = pytest.mark.usefixtures("quick_odds")


def duel(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Quinn"}, {"name": "Trooper", "side": "NPC"}, {"name": "Brute", "side": "NPC"}],
        initiative={"Quinn": 9, "Trooper": 5, "Brute": 3},
        start=True,
    )
    with Session.open(path) as s:
        s.apply({"type": "character.fields", "id": ids["Trooper"], "set": {"defense_dc": 12}})
        s.apply({"type": "character.fields", "id": ids["Brute"], "set": {"defense_dc": 14}})
    return path, ids


async def test_every_open_fills_the_dialog_afresh_from_the_session(tmp_path: Path) -> None:
    path, ids = duel(tmp_path)
    app = make_app(path, rng=FixedDice([6] * 8))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "a")
        first = await dialog(pilot, RollDialog)
        assert first.target == ids["Trooper"] and first.query_one("#p-dc", Input).value == "12"
        first.query_one("#p-dc", Input).value = "20"  # typed, then cancelled
        await settle(pilot)
        await press(pilot, "escape")
        assert not on_top(app, RollDialog)
        # the target's field changes between two opens
        screen.apply({"type": "character.fields", "id": ids["Trooper"], "set": {"defense_dc": 15}})
        await settle(pilot)
        await press(pilot, "a")
        again = await dialog(pilot, RollDialog)
        assert again is first  # the same dialog, kept on the desk
        assert again.query_one("#p-dc", Input).value == "15"  # the Trooper's DC now, not 12 nor 20
        assert "DC 15 — Trooper's Defense DC" in str(again.query_one("#rd-info").render())
        await odds_ready(pilot, again)
        await press(pilot, "enter")
        await settle(pilot)
        assert not on_top(app, RollDialog)
        # a plain roll next: the attack's values are not carried over
        await press(pilot, "r")
        roll = await dialog(pilot, RollDialog)
        assert roll is first and roll.combat is False and roll.target is None
        assert str(roll.query_one("#roll-dialog").border_title) == "Roll"
        await press(pilot, "escape")
    (attack,) = saved(path).rolls
    assert attack.target == ids["Trooper"] and attack.record.params["dc"] == 15


async def test_the_open_dialog_keeps_the_keys(tmp_path: Path) -> None:
    path, ids = duel(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        turn = screen.state.encounter.current
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert app.screen is screen  # an overlay on the desk, not a screen of its own
        await press(pilot, "shift+tab", "shift+tab")  # to a dropdown: its own keys
        await press(pilot, "n", "u", "a")  # the desk's keys: nothing happens under the dialog
        assert screen.state.encounter.current == turn and on_top(app, RollDialog)
        for _ in range(len(screen.focus_chain) + 1):  # Tab goes round the dialog's fields only
            await press(pilot, "tab")
            assert screen.focused is not None and dlg in screen.focused.ancestors
        await press(pilot, "escape")
        assert not on_top(app, RollDialog)
        assert screen.focused is not None and dlg not in screen.focused.ancestors  # back on the desk
        await press(pilot, "n")
        assert screen.state.encounter.current != turn
    assert saved(path).rolls == []


async def test_a_click_on_the_desk_around_the_dialog_leaves_the_focus_in_it(tmp_path: Path) -> None:
    path, _ = duel(tmp_path)
    app = make_app(path)
    async with run(app, size=(120, 40)) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.region.x > 2  # the desk shows around the dialog
        await pilot.click(offset=(2, 6))  # on the initiative list, left of the dialog
        await settle(pilot)
        assert screen.focused is not None and dlg in screen.focused.ancestors
        await press(pilot, "escape")
        assert not on_top(app, RollDialog)
