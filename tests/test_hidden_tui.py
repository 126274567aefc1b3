"""Hidden combatants on screen (Pilot, 80×24): the GM's initiative marks them, one key
hides or reveals the selected character, the add-character dialog can add one hidden,
and the player view leaves them and their rolls out until they are revealed."""

from __future__ import annotations

import random

from helpers import SMALL, dialog, main_screen, make_app, make_save, press, run, saved, screen_text, settle, until
from textual.widgets import Checkbox

from gmdesk.core.session import Session
from gmdesk.tui.screens.confirm import FormDialog
from gmdesk.tui.screens.player import PlayerApp, PlayerScreen

SIZE = (80, 24)


def ambush(tmp_path):
    """Kara (PC) and Gospog (NPC, hidden) in the encounter; Gospog has struck Kara from hiding."""
    path, ids = make_save(
        tmp_path,
        characters=[{"name": "Kara", "vitality": 5}, {"name": "Gospog", "side": "NPC", "hidden": True}],
        initiative={"Kara": 5, "Gospog": 9},
    )
    with Session.open(path) as s:
        s.apply({"type": "round.new"})
        s.roll("4d2", {}, actor=ids["Gospog"], target=ids["Kara"], combat=True, rng=random.Random(3))
        s.roll("4d2", {}, actor=ids["Kara"], rng=random.Random(4))
    return path, ids


async def shown(pilot) -> PlayerScreen:
    app = pilot.app
    await until(pilot, lambda: app.pictures_shown > 0)
    await pilot.pause()
    return next(s for s in app.screen_stack if isinstance(s, PlayerScreen))


async def test_the_player_view_leaves_a_hidden_npc_out_until_revealed(tmp_path):
    path, ids = ambush(tmp_path)
    app = PlayerApp(path, poll_interval=0.05)
    async with run(app, size=SIZE) as pilot:
        await shown(pilot)
        text = screen_text(app)
        assert "Gospog" not in text  # not in the order, the characters nor the roll log
        assert "Kara (PC)" in text and "Kara: 4d2" in text  # Kara's own roll is there
        assert "→ Kara" not in text  # the ambush roll is not
        writer = Session.open(path)
        try:
            writer.apply({"type": "character.reveal", "id": ids["Gospog"]})
            await until(pilot, lambda: "Gospog (NPC)" in screen_text(app))
            text = screen_text(app)
            assert any("9 Gospog" in line for line in text.splitlines())  # in the order now
            assert "Gospog → Kara" not in text  # its earlier roll stays hidden
            writer.undo()  # the reveal undone: hidden again
            await until(pilot, lambda: "Gospog" not in screen_text(app))
            writer.redo()
            seq = writer.state.rolls[-2].seq  # the ambush (Kara's roll is last)
            writer.apply({"type": "character.reveal", "id": ids["Gospog"], "rolls": [seq]})
            await until(pilot, lambda: "Gospog → Kara" in screen_text(app))
        finally:
            writer.close()


async def test_the_gm_sees_the_hidden_marked_and_reveals_with_one_key(tmp_path):
    path, ids = ambush(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        text = screen_text(app)
        assert "Round 1 · ▶ Gospog (hidden)" in text
        rows = [line for line in text.splitlines() if "9 Gospog" in line]
        assert rows and "HID" in rows[0]  # a word, not a colour
        assert not any("HID" in line for line in text.splitlines() if "5 Kara" in line)
        screen.selected = ids["Gospog"]
        screen.refresh_view()
        await press(pilot, "H")
        await settle(pilot)
        await until(pilot, lambda: not saved(path).characters[ids["Gospog"]].hidden)
        rows = [line for line in screen_text(app).splitlines() if "9 Gospog" in line]
        assert rows and "HID" not in rows[0]  # the initiative's mark goes (its earlier roll stays hidden)
        await press(pilot, "H")  # and hides again
        await settle(pilot)
        await until(pilot, lambda: saved(path).characters[ids["Gospog"]].hidden)
        await press(pilot, "u")  # undo: shown again
        await settle(pilot)
        await until(pilot, lambda: not saved(path).characters[ids["Gospog"]].hidden)


async def test_a_character_can_be_added_hidden(tmp_path):
    path, _ = make_save(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "c")
        form = await dialog(pilot, FormDialog)
        await press(pilot, *"Lurker")
        form.query_one("#form-hidden", Checkbox).value = True
        await press(pilot, "enter")
        await settle(pilot)
        await until(pilot, lambda: bool(saved(path).characters))
    (lurker,) = saved(path).characters.values()
    assert lurker.name == "Lurker" and lurker.hidden
