"""The desk at 80×24 around groups, counters and the session's settings, as a GM plays
it: a column of boxes (who joins a group) is gone down with the arrows, slowly or
typed ahead; a settings change is said once, with the key that takes it back; a
refusal about one character never shows in another's pane; and an empty field's
hint does not read as a value without colour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import (
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    palette,
    press,
    run,
    screen_text,
    settle,
    until,
)
from test_tui_char_fields import to_row
from textual import events
from textual.widgets import Checkbox, Input, Select

from gmdesk.core.session import Session
from gmdesk.tui.screens.confirm import FormDialog
from gmdesk.tui.screens.settings import SettingsDialog


async def typed_ahead(pilot: Any, *keys: str) -> None:
    """Every key posted before the app handles the first (as SSH delivers a burst)."""
    for key in keys:
        pilot.app.post_message(events.Key(key, key if len(key) == 1 else None))
    await settle(pilot)


async def test_the_arrows_go_down_and_up_a_column_of_boxes(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}, {"name": "Vex", "side": "NPC"}],
        initiative={"Kara": 12, "Bruno": 9, "Vex": 7},
        start=True,
    )
    for slowly in (True, False):
        app = make_app(path)
        async with run(app, size=SMALL) as pilot:
            await main_screen(pilot)
            keys = ("g", "tab", "down", "down", "space", "up", "space")  # Kara's box, then Vex's, then Bruno's
            if slowly:
                await press(pilot, *keys)
            else:
                await typed_ahead(pilot, *keys)
            form = await dialog(pilot, FormDialog)
            boxes = {str(b.label): b.value for b in form.query(Checkbox)}
            assert boxes == {"Kara": True, "Bruno": True, "Vex": True}, (slowly, boxes)
            assert isinstance(form.focused, Checkbox) and str(form.focused.label) == "Bruno"


async def test_a_settings_change_is_said_once_with_the_key_that_takes_it_back(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await palette(pilot, "Session settings")
        form = await dialog(pilot, SettingsDialog)
        form.query_one("#setting-initiative_ties", Select).value = "roll off"
        await settle(pilot)
        await press(pilot, "ctrl+s")
        await until(pilot, lambda: any("roll off" in n for n in notes(app)))
        said = notes(app)[-1]
        assert said == "Initiative ties: keep order → roll off — u to undo", said


async def test_a_refusal_about_one_character_does_not_stay_in_anothers_pane(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "4d6", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}], initiative={"Kara": 15, "Bruno": 9}
    )
    with Session.open(path) as s:
        s.apply({"type": "counter.add", "id": ids["Kara"], "label": "Reactions", "max": 1, "reset": "round"})
        s.apply({"type": "turn.next"})
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        await press(pilot, "tab")
        await to_row(pilot, pane, "counter", 0)
        await press(pilot, "s", "s")  # the second is refused: none left
        await until(pilot, lambda: "Kara has 0 Reactions left" in screen_text(app))
        await press(pilot, "shift+tab")  # back to the order, and down to Bruno
        await press(pilot, "down")
        await until(pilot, lambda: pane.border_title == "Bruno")
        await settle(pilot)
        assert "Reactions left" not in screen_text(app)


async def test_an_empty_fields_hint_is_in_italics(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "g")
        form = await dialog(pilot, FormDialog)
        label = form.query_one("#form-label", Input)
        assert label.value == "" and label.placeholder == "e.g. Gospog"
        await press(pilot, "tab")  # (the hint shows whole once the field is left)
        strip = label.render_line(0)
        hint = [seg for seg in strip if seg.text.strip() and seg.text.strip() in "e.g. Gospog"]
        assert hint and all(seg.style is not None and seg.style.italic for seg in hint), list(strip)
