"""The character pane's Status row: Enter sets the next status by hand (OK →
Unconscious → Dead → OK), one undoable event each, in the saved session."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import SMALL, main_screen, make_app, make_save, press, run, saved, screen_text, settle, until

from gmdesk.tui.widgets.character import CharacterTable

pytestmark = pytest.mark.usefixtures("quick_odds")


async def test_the_gm_sets_a_status_from_the_pane(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "4d6", [{"name": "Kara"}, {"name": "Gob", "side": "NPC"}], initiative={"Kara": 9, "Gob": 8}
    )
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        table = pane.query_one(CharacterTable)
        table.focus()
        await pilot.pause()
        table.move_cursor(row=[r.key for r in pane.row_kinds].index("status"))
        await press(pilot, "enter")
        await until(pilot, lambda: saved(path).characters[ids["Kara"]].status == "unconscious")
        await settle(pilot)
        assert re.search(r"Status, by the GM +Unconscious", screen_text(app)), screen_text(app)
        await press(pilot, "enter")
        await until(pilot, lambda: saved(path).characters[ids["Kara"]].status == "dead")
        table.blur()
        screen.focus()
        await press(pilot, "u")  # undo: Unconscious again
        await until(pilot, lambda: saved(path).characters[ids["Kara"]].status == "unconscious")
    events = [e.type for e in _events(path)]
    assert events.count("character.status") == 2 and events[-1] == "undo"


def _events(path: Path):
    from gmdesk.core.session import Session

    with Session.open(path, readonly=True) as s:
        return list(s.events)


async def test_two_enters_typed_ahead_on_the_status_row_act_as_typed_slowly(tmp_path: Path) -> None:
    from textual import events

    path, ids = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        table = pane.query_one(CharacterTable)
        table.focus()
        await pilot.pause()
        table.move_cursor(row=[r.key for r in pane.row_kinds].index("status"))
        await pilot.pause()
        for _ in range(2):  # both posted before the first is handled (as SSH delivers them)
            app.post_message(events.Key("enter", "\r"))
        await until(pilot, lambda: saved(path).characters[ids["Kara"]].status == "dead")
        await settle(pilot)
        assert "already" not in screen_text(app)
    assert [e.type for e in _events(path)].count("character.status") == 2
