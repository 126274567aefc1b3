"""The TUI tests' own ways of driving the desk do what a GM's keys do (80×24, Pilot):
selecting an entry moves the character pane to it, as the arrow keys do, and keys
typed ahead are the keys Textual's terminal driver names ("+" is ``plus``, "-" is
``minus``), so that the desk's bindings answer them."""

from __future__ import annotations

from helpers import burst, desk, make_save, press, saved_when, screen_text, select_entry

from gmdesk.tui.screens.confirm import InputDialog
from gmdesk.tui.widgets.character import CharacterPane


def table(tmp_path):
    return make_save(
        tmp_path,
        "4d2",
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}, {"name": "Osric", "side": "NPC"}],
        initiative={"Kara": 12, "Bruno": 9},
        start=True,
    )


async def test_selecting_an_entry_moves_the_character_pane_to_it(tmp_path):
    path, ids = table(tmp_path)
    async with desk(path) as (app, pilot, screen):
        pane = screen.query_one(CharacterPane)
        assert pane.border_title and "Kara" in str(pane.border_title)
        await select_entry(pilot, ids["Bruno"])
        assert screen.selected == ids["Bruno"]
        assert "Bruno" in str(pane.border_title)
        assert "NPC ·" in screen_text(app)  # Bruno's sheet, not Kara's
        await select_entry(pilot, ids["Osric"])  # outside the encounter
        assert "Osric" in str(pane.border_title)


async def test_plus_and_minus_typed_ahead_reach_the_desks_keys(tmp_path):
    path, ids = table(tmp_path)
    async with desk(path) as (app, pilot, _screen):
        await select_entry(pilot, ids["Osric"])
        await burst(pilot, "+7")  # joins: the initiative typed in the dialog
        assert app.screen.__class__ is InputDialog
        await press(pilot, "enter")
        state = await saved_when(pilot, path, lambda s: s.encounter.index_of(ids["Osric"]) is not None)
        assert state.encounter.order[state.encounter.index_of(ids["Osric"])].initiative == 7
        await burst(pilot, "-")  # and leaves again
        await saved_when(pilot, path, lambda s: s.encounter.index_of(ids["Osric"]) is None)
