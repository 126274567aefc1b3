"""Dialog keys do what the GM expects (issue 18): Tab leaves the roll dialog's
Sources list for the next field, Space switches a source off, Enter rolls from it;
an attack offers only what can be used there. Pilot at 80×24; the save is checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    odds_ready,
    on_top,
    press,
    run,
    saved,
    screen_text,
    settle,
)
from textual.widgets import Input, SelectionList

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.tui.screens.dialog import DialogHint
from gmdesk.tui.screens.roll import RollDialog

pytestmark = pytest.mark.usefixtures("quick_odds")


def kara_with_sources(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    with Session.open(path) as s:
        s.apply({"type": "source.add", "id": ids["Kara"], "kind": "shift", "name": "Pistol", "value": 2})
        s.apply({"type": "source.add", "id": ids["Kara"], "kind": "shift", "name": "DEX", "value": 1})
    return path, ids


async def test_tab_leaves_the_sources_list_and_space_switches_one_off(tmp_path: Path) -> None:
    path, _ = kara_with_sources(tmp_path)
    app = make_app(path, rng=FixedDice([3, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        shift = dlg.query_one("#p-shift", Input)
        assert dlg.focused is shift and shift.value == "3"  # Pistol +2, DEX +1
        await press(pilot, "shift+tab")  # back to the Sources: one field
        sources = dlg.query_one("#rd-source-list", SelectionList)
        assert dlg.focused is sources
        assert "Space tick" in str(dlg.query_one(DialogHint).render())
        await press(pilot, "tab")  # leaves the list for the next field; nothing switched off
        assert dlg.focused is shift and shift.value == "3"
        await press(pilot, "shift+tab", "down", "space")  # DEX off for this roll
        assert dlg.focused is sources and shift.value == "2"
        assert "[ ] DEX +1" in screen_text(app) and "[x] Pistol +2" in screen_text(app)
        await odds_ready(pilot, dlg)
        await press(pilot, "enter")  # from the list: rolls (Space ticks, Enter starts)
        await settle(pilot)
        assert not on_top(app, RollDialog)
    (roll,) = saved(path).rolls
    assert roll.record.params["shift"] == 2


async def test_the_attack_dialog_offers_only_what_an_attack_can_use(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "4d2", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}], initiative={"Kara": 9, "Bruno": 3}
    )
    with Session.open(path) as s:
        s.apply({"type": "turn.next"})
    app = make_app(path, rng=FixedDice([3, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert not dlg.query("#p-maneuver") and "Maneuver" not in screen_text(app)
        await odds_ready(pilot, dlg)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "r")  # a plain roll still reads the Maneuver table when asked
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query("#p-maneuver")
        await press(pilot, "escape")
    (roll,) = saved(path).rolls
    assert roll.record.params["combat"] is True and roll.record.params["maneuver"] is False


async def test_a_plain_1d6x4_test_does_not_offer_a_mutual_melee(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "1d6x4", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}])
    app = make_app(path, rng=FixedDice([3, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert not dlg.query("#p-mutual") and not dlg.query("#p-damage")
        await press(pilot, "escape")
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query("#p-mutual") and dlg.query("#p-damage")


async def test_in_a_text_area_enter_starts_a_line_and_the_hint_names_the_submit_key(tmp_path: Path) -> None:
    from textual.containers import Vertical
    from textual.widgets import Static, TextArea

    from gmdesk.tui.screens.dialog import Dialog

    class NoteDialog(Dialog[str]):
        def compose(self):
            with Vertical(classes="dialog"):
                yield TextArea(id="text")
                yield Static("", classes="inline-error")
                yield DialogHint("add")

        def on_mount(self) -> None:
            self.query_one(TextArea).focus()

        def action_submit(self) -> None:
            self.dismiss(self.query_one(TextArea).text)

    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path)
    got: list[str | None] = []
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        app.push_screen(NoteDialog(), got.append)
        dlg = await dialog(pilot, NoteDialog)
        await settle(pilot)
        text = str(dlg.query_one(DialogHint).render())
        assert text.startswith("Enter new line · Ctrl+S add") and "Esc cancel" in text
        await press(pilot, "a", "enter", "b")
        assert isinstance(app.screen, NoteDialog) and dlg.query_one(TextArea).text == "a\nb"
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, NoteDialog)
    assert got == ["a\nb"]
