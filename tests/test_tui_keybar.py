"""The key bar at the bottom of the desk names the keys in force: under an open dialog,
the dialog's (Enter, Escape, the curve key), never the desk's, which wait while it is
up — at 80×24 under a dialog smaller than the terminal, and on a large terminal under
the roll dialog too. At 80×24 the roll dialog hides the bar: opening and closing it
leaves the bar as it is (what a key costs over SSH)."""

from __future__ import annotations

from pathlib import Path

from helpers import SMALL, dialog, main_screen, make_app, make_save, press, run, screen_text, settle
from textual.widgets import Footer

from gmdesk.tui.screens.help import HelpScreen
from gmdesk.tui.screens.roll import RollDialog

LARGE = (160, 48)


def night(tmp_path: Path) -> Path:
    path, _ = make_save(
        tmp_path,
        "4d2",
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Kara": 12, "Bruno": 9},
        start=True,
    )
    return path


def key_bar(app: object) -> str:
    """The bottom row of the terminal, as the GM reads it."""
    return screen_text(app).splitlines()[-1]


DESK_KEYS = ("r Roll", "a Attack", "n Next", "u Undo")  # the desk's keys, as the bar names them


async def test_under_the_roll_dialog_on_a_large_terminal_the_bar_names_the_dialogs_keys(tmp_path: Path) -> None:
    app = make_app(night(tmp_path))
    async with run(app, size=LARGE) as pilot:
        await main_screen(pilot)
        assert "Next" in key_bar(app)
        await press(pilot, "r")
        await dialog(pilot, RollDialog)
        await settle(pilot)
        await pilot.pause(0.1)
        bar = key_bar(app)
        assert "Cancel" in bar and "Curve" in bar, bar
        assert not any(k in bar for k in DESK_KEYS), bar
        await press(pilot, "escape")
        await settle(pilot)
        await pilot.pause(0.1)
        bar = key_bar(app)
        assert all(k in bar for k in DESK_KEYS) and "Curve" not in bar, bar


async def test_a_terminal_grown_under_the_roll_dialog_shows_the_dialogs_keys(tmp_path: Path) -> None:
    app = make_app(night(tmp_path))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        footer = screen.query_one(Footer)
        before = list(footer.children)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        await settle(pilot)
        assert dlg.covers(footer)  # 80×24: the dialog fills the screen, the bar is left as it is
        assert list(footer.children) == before
        await pilot.resize_terminal(*LARGE)
        await settle(pilot)
        await pilot.pause(0.2)
        bar = key_bar(app)
        assert "Cancel" in bar and not any(k in bar for k in DESK_KEYS), bar


async def test_under_a_dialog_screen_at_80x24_the_bar_names_the_dialogs_keys(tmp_path: Path) -> None:
    app = make_app(night(tmp_path))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "g")  # the group form: smaller than the terminal, the bar shows below it
        await settle(pilot)
        await pilot.pause(0.1)
        bar = key_bar(app)
        assert "Cancel" in bar and "Group" in bar, bar  # what Enter does here
        assert not any(k in bar for k in DESK_KEYS), bar


async def test_under_the_help_the_bar_names_its_keys_and_at_80x24_the_help_keeps_every_row(tmp_path: Path) -> None:
    app = make_app(night(tmp_path))
    async with run(app, size=LARGE) as pilot:
        await main_screen(pilot)
        await press(pilot, "question_mark")
        await dialog(pilot, HelpScreen)
        await settle(pilot)
        await pilot.pause(0.1)
        bar = key_bar(app)
        assert "Close" in bar and not any(k in bar for k in DESK_KEYS), bar
        await pilot.resize_terminal(*SMALL)
        await settle(pilot)
        await pilot.pause(0.1)
        rows = screen_text(app).splitlines()
        assert rows[-1].startswith("╰") and "Esc close" in rows[-2], rows[-2:]  # the help to the last row
