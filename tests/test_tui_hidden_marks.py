"""What the players cannot see, said in words on the GM's desk (Pilot, 80×24, read as
plain text: no colour needed): a roll the players do not see says HID in the GM's roll
log until it is revealed, the character pane says HIDDEN, and every box reads [x] or
[ ] whether ticked or not."""

from __future__ import annotations

import random
import re

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
    saved,
    screen_text,
    settle,
    until,
)
from test_next_night import night_one

from gmdesk.core.session import Session
from gmdesk.tui.app import GmdeskApp
from gmdesk.tui.screens.confirm import FormDialog
from gmdesk.tui.screens.main import MainScreen
from gmdesk.tui.screens.picker import NextNightDialog, PickerScreen
from gmdesk.tui.screens.player import PlayerApp, PlayerScreen
from gmdesk.tui.screens.roll import RollDialog

#: a line of the roll log: the number, then the rest of the row
LOG_ROW = re.compile(r"[▶ ] (#\d+(?:\.\d+)?) (.*?)\s*│\s*$")


def log_rows(app) -> dict[str, str]:
    """The roll log's rows on screen: number → the rest of the row."""
    return {m.group(1): m.group(2) for line in screen_text(app).splitlines() if (m := LOG_ROW.search(line))}


def rows_of(app, name: str) -> list[str]:
    """The rows of the rolls ``name`` made, oldest first (``HID Lurker: …``)."""
    return [row for row in log_rows(app).values() if re.match(rf"(HID )?(R\d+ )?{name}[: ]", row)]


def summary(app) -> str:
    """The character pane's first line (side · kind · markers), its border's right half."""
    for line in screen_text(app).splitlines():
        m = re.search(r"│((?:PC|NPC) · \S+.*?)\s*│$", line)
        if m:
            return m.group(1)
    raise AssertionError(f"no character summary on screen:\n{screen_text(app)}")


async def roll_for_selected(pilot) -> None:
    await press(pilot, "r")
    await dialog(pilot, RollDialog)
    await press(pilot, "enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, MainScreen))
    await settle(pilot)


async def test_a_hidden_npcs_rolls_say_hid_in_the_gms_log_until_revealed(tmp_path):
    path, ids = make_save(tmp_path, characters=[{"name": "Kara", "vitality": 5}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "c")
        form = await dialog(pilot, FormDialog)
        await press(pilot, *"Lurker", "tab")
        await press(pilot, "down", "down", "enter")  # Side: NPC
        while app.focused is None or app.focused.id != "form-hidden":
            await press(pilot, "tab")
        assert "[ ] Hidden from the players" in screen_text(app)
        await press(pilot, "space")
        text = screen_text(app)
        assert "[x] Hidden from the players" in text and "[ ] Hidden from the players" not in text
        await press(pilot, "enter")
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        await settle(pilot)
        assert form is not app.screen
        (lurker,) = [c for c in saved(path).characters.values() if c.name == "Lurker"]
        assert lurker.side == "NPC" and lurker.hidden

        # the pane says it, in a word
        await press(pilot, "down")  # Kara, then Lurker in the list
        await until(pilot, lambda: screen.selected == lurker.id)
        await until(pilot, lambda: summary(app).startswith("NPC · organic"))
        assert "HIDDEN" in summary(app)

        # its roll says HID in the GM's log; Kara's does not
        await roll_for_selected(pilot)
        await press(pilot, "up")
        await until(pilot, lambda: screen.selected == ids["Kara"])
        assert "HIDDEN" not in summary(app)
        await roll_for_selected(pilot)
        await until(pilot, lambda: len(log_rows(app)) == 2)
        (hidden_row,) = rows_of(app, "Lurker")
        (kara_row,) = rows_of(app, "Kara")
        assert hidden_row.startswith("HID Lurker:") and "HID" not in kara_row

        # H reveals it: the pane's word goes, its earlier roll stays hidden (and marked)
        await press(pilot, "down")
        await until(pilot, lambda: screen.selected == lurker.id)
        await press(pilot, "H")
        await until(pilot, lambda: not saved(path).characters[lurker.id].hidden)
        await until(pilot, lambda: "HIDDEN" not in summary(app))
        assert any("stay hidden" in n for n in notes(app))
        assert rows_of(app, "Lurker") == [hidden_row]

        # a roll after the reveal is the players' to see: no mark
        await roll_for_selected(pilot)
        await until(pilot, lambda: len(rows_of(app, "Lurker")) == 2)
        first, second = rows_of(app, "Lurker")
        assert first.startswith("HID ") and not second.startswith("HID ") and "HID" not in second

        # revealing the earlier rolls too takes the last mark away; undo puts it back
        await palette(pilot, "Reveal earlier rolls")
        await until(pilot, lambda: not any(row.startswith("HID ") for row in log_rows(app).values()))
        await press(pilot, "u")
        await until(pilot, lambda: rows_of(app, "Lurker")[0].startswith("HID "))
        assert not rows_of(app, "Lurker")[1].startswith("HID ")


def ambush_in_the_open(tmp_path):
    """Kara (PC) has struck Bruno (NPC), who is not hidden yet."""
    path, ids = make_save(tmp_path, characters=[{"name": "Kara", "vitality": 5}, {"name": "Bruno", "side": "NPC"}])
    with Session.open(path) as s:
        s.roll("4d2", {}, actor=ids["Kara"], target=ids["Bruno"], combat=True, rng=random.Random(3))
    return path, ids


async def test_hiding_a_character_marks_the_rolls_at_it_until_it_is_shown_again(tmp_path):
    path, ids = ambush_in_the_open(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        (row,) = log_rows(app).values()
        assert row.startswith("Kara → Bruno:")  # the players see it
        await press(pilot, "down")
        await until(pilot, lambda: screen.selected == ids["Bruno"])
        await press(pilot, "H")  # Bruno hidden: the players no longer see the roll at him
        await until(pilot, lambda: saved(path).characters[ids["Bruno"]].hidden)
        await until(pilot, lambda: "HIDDEN" in summary(app))
        await until(pilot, lambda: [r.startswith("HID Kara → Bruno:") for r in log_rows(app).values()] == [True])
        await press(pilot, "H")  # shown again: the roll was not made in hiding, it is theirs again
        await until(pilot, lambda: not saved(path).characters[ids["Bruno"]].hidden)
        await until(pilot, lambda: list(log_rows(app).values()) == [row])
        assert "HIDDEN" not in summary(app)


async def test_the_players_log_never_says_hid(tmp_path):
    path, ids = ambush_in_the_open(tmp_path)
    with Session.open(path) as s:
        s.apply({"type": "character.hide", "id": ids["Bruno"]})
        s.roll("4d2", {}, actor=ids["Bruno"], target=ids["Kara"], combat=True, rng=random.Random(4))
        s.apply({"type": "character.reveal", "id": ids["Bruno"], "rolls": [s.state.rolls[-1].seq]})
    app = PlayerApp(path, poll_interval=0.05)
    async with run(app, size=SMALL) as pilot:
        await until(pilot, lambda: app.pictures_shown > 0)
        await pilot.pause()
        assert any(isinstance(s, PlayerScreen) for s in app.screen_stack)
        text = screen_text(app)
        assert "Kara → Bruno" in text and "Bruno → Kara" in text
        assert "HID" not in text


async def test_the_next_nights_boxes_read_without_colour(tmp_path):
    saves = tmp_path / "saves"
    night_one(saves, "4d2")
    (tmp_path / "no-examples").mkdir()
    app = GmdeskApp(saves, examples_dir=tmp_path / "no-examples", rng=random.Random(7))
    async with run(app, size=SMALL) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
        await pilot.press("N")
        await until(pilot, lambda: isinstance(app.screen, NextNightDialog))
        await settle(pilot)
        text = screen_text(app)
        assert "[ ] Rest first" in text and "[ ] Gospog" in text and "[ ] Bystander" in text
        await pilot.press("tab", "space")  # rest first
        await until(pilot, lambda: "[x] Rest first" in screen_text(app))
        await pilot.press("tab", "space")  # take Gospog along
        await until(pilot, lambda: "[x] Gospog" in screen_text(app))
        text = screen_text(app)
        assert "[ ] Rest first" not in text and "[ ] Bystander" in text
