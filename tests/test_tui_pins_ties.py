"""Pinned turns and initiative ties on the desk (Pilot, 80×24) and in the player
view: ``=`` pins the selected entry where it stands (or, outside the encounter, at a
number typed in a dialog: it joins there) and releases it; the order marks it PIN
(a word, not a colour), the save holds the event, a round rolled again leaves it;
the players see PIN too; "Initiative ties" is chosen in the session settings."""

from __future__ import annotations

import random
import re

from helpers import (
    burst,
    desk,
    dialog,
    dialog_error,
    make_save,
    notes,
    palette,
    press,
    run,
    saved,
    saved_when,
    screen_text,
    select_entry,
    until,
)
from test_tui_player import SIZE, shown

from gmdesk.core.session import Session
from gmdesk.tui.screens.confirm import FormDialog, InputDialog
from gmdesk.tui.screens.player import PlayerApp, build_picture
from gmdesk.tui.screens.settings import SettingsDialog
from gmdesk.tui.widgets.controls import StepSelect


def _row(text: str, name: str) -> str:
    """The initiative pane's row of ``name`` (its number, its name, …)."""
    return next(line for line in text.splitlines() if re.match(rf"│.?\s+(\d+|·) {name} ", line))


def lair_outside(tmp_path):
    """Kara at 14 in the encounter, at her turn; the lair not in it yet."""
    return make_save(
        tmp_path, "4d6", [{"name": "Kara"}, {"name": "Lair", "side": "NPC"}], initiative={"Kara": 14}, start=True
    )


async def test_the_pin_key_pins_marks_saves_and_a_reroll_round_leaves_it(tmp_path):
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Lair", "side": "NPC"}, {"name": "Gospog", "side": "NPC"}],
        initiative={"Lair": 20, "Kara": 14},
        start=True,
    )
    with Session.open(path) as s:
        s.apply({"type": "session.settings", "changes": {"reroll_initiative": True}})
    async with desk(path, rng=random.Random(5)) as (app, pilot, screen):
        await select_entry(pilot, ids["Lair"])
        await press(pilot, "equals_sign")  # pinned where it stands
        await saved_when(pilot, path, lambda s: s.characters[ids["Lair"]].pin == 20)
        assert "PIN" in _row(screen_text(app), "Lair") and "PIN" not in _row(screen_text(app), "Kara")
        assert any("Lair: initiative pinned at 20" in n and "u to undo" in n for n in notes(app))
        # a round rolled again: Kara rolls, the lair stays at 20
        await press(pilot, "R")
        state = await saved_when(pilot, path, lambda s: s.encounter.round == 2)
        assert {state.characters[x.char_id].name: x.initiative for x in state.encounter.order}["Lair"] == 20
        assert [r.actor_name for r in state.rolls if r.round == 2] == ["Kara"]
        # the pane follows the turn; back on the lair, = releases it; u brings the pin back
        await until(pilot, lambda: screen.selected == state.encounter.current.char_id)
        await select_entry(pilot, ids["Lair"])
        await press(pilot, "equals_sign")
        await saved_when(pilot, path, lambda s: s.characters[ids["Lair"]].pin is None)
        assert "PIN" not in _row(screen_text(app), "Lair")
        await press(pilot, "u")
        await saved_when(pilot, path, lambda s: s.characters[ids["Lair"]].pin == 20)


async def test_pinning_one_outside_the_encounter_asks_the_number_in_the_fields_words(tmp_path):
    path, ids = lair_outside(tmp_path)
    async with desk(path) as (app, pilot, _screen):
        await select_entry(pilot, ids["Lair"])
        await press(pilot, "equals_sign")
        dlg = await dialog(pilot, InputDialog)
        await burst(pilot, "high")
        await press(pilot, "enter")
        error = dialog_error(dlg)
        assert error.startswith("✗ Initiative:") and "whole number" in error, error  # the field's label
        assert saved(path).characters[ids["Lair"]].pin is None  # nothing saved
        await press(pilot, "ctrl+u")
        await burst(pilot, "20")
        await press(pilot, "enter")
        await saved_when(pilot, path, lambda s: s.characters[ids["Lair"]].pin == 20)
        assert "20 Lair" in _row(screen_text(app), "Lair") and "PIN" in _row(screen_text(app), "Lair")
    assert [x.char_id for x in saved(path).encounter.order] == [ids["Lair"], ids["Kara"]]


async def test_the_pin_is_in_the_palette(tmp_path):
    path, ids = make_save(tmp_path, "4d6", [{"name": "Kara"}], initiative={"Kara": 14})
    async with desk(path) as (_app, pilot, screen):
        screen.selected = ids["Kara"]
        await palette(pilot, "Pin / unpin initiative")
        await saved_when(pilot, path, lambda s: s.characters[ids["Kara"]].pin == 14)


async def test_the_tie_rule_is_chosen_in_the_session_settings_and_a_roll_off_is_in_the_log(tmp_path):
    path, ids = make_save(tmp_path, "4d6", [{"name": "Gospog", "side": "NPC"}, {"name": "Kara"}])
    async with desk(path, rng=random.Random(3)) as (app, pilot, _screen):
        await palette(pilot, "Session settings")
        dlg = await dialog(pilot, SettingsDialog)
        field = dlg.query_one("#setting-initiative_ties", StepSelect)
        assert field.value == "keep order"
        field.focus()
        await press(pilot, "right", "right", "right", "ctrl+s")  # → higher modifier → PCs first → roll off
        await saved_when(pilot, path, lambda s: s.info.settings.get("initiative_ties") == "roll off")
        # initiative for all, both typed 9: they roll off, each roll in the log
        await press(pilot, "i")
        await dialog(pilot, FormDialog)
        await press(pilot, "tab")
        await burst(pilot, "9")
        await press(pilot, "tab", "tab")
        await burst(pilot, "9")
        await press(pilot, "enter")
        await saved_when(pilot, path, lambda s: len(s.rolls) >= 2)
        text = screen_text(app)
        assert any("Tie at 9 (roll off)" in n for n in notes(app))
        assert "Gospog: 4d6" in text and "Roll-off at 9" in text
    state = saved(path)
    assert [r.kind for r in state.rolls][:2] == ["initiative", "initiative"]
    assert all(r.record.outcome.startswith("Roll-off at 9") for r in state.rolls)
    assert [x.initiative for x in state.encounter.order] == [9, 9]


async def test_the_player_view_marks_a_pinned_entry(tmp_path):
    path, ids = lair_outside(tmp_path)
    with Session.open(path) as s:
        s.roll_initiative([ids["Lair"]], values={ids["Lair"]: 20}, pins={ids["Lair"]: True})
        assert "20 Lair  PIN" in build_picture(s.state).initiative.plain
        assert "PIN" not in build_picture(s.state).initiative.plain.split("Kara")[1]
    app = PlayerApp(path, clock=lambda: "21:00:00")
    async with run(app, size=SIZE) as pilot:
        await shown(pilot)
        text = screen_text(app)
    assert any("20 Lair" in line and "PIN" in line for line in text.splitlines())
    assert not any("14 Kara" in line and "PIN" in line for line in text.splitlines())
