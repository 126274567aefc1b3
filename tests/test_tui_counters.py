"""Counters on the desk (Pilot, 80×24): the character pane lists a character's
counters ("Reactions 1/1 a round", readable without colour); ``s`` spends one use of
the counter under the cursor, ``S`` gives one back, both saved at once and undoable;
the palette offers both for the selected character; a new round fills it again."""

from __future__ import annotations

from helpers import desk, make_save, palette, press, run, saved, screen_text, settle, until
from test_tui_char_fields import to_row

from gmdesk.core.session import Session


def counters_of(path, cid: str) -> list[str]:
    return [x.shown() for x in saved(path).characters[cid].counters]


def counter_save(tmp_path):
    path, ids = make_save(
        tmp_path, "4d6", [{"name": "Kara"}, {"name": "Gospog", "side": "NPC"}], initiative={"Kara": 15, "Gospog": 9}
    )
    with Session.open(path) as s:
        s.apply({"type": "counter.add", "id": ids["Kara"], "label": "Reactions", "max": 1, "reset": "round"})
        s.apply({"type": "counter.add", "id": ids["Kara"], "label": "Luck", "max": 3, "reset": "night"})
        s.apply({"type": "turn.next"})
    return path, ids


async def test_s_spends_and_shift_s_restores_the_counter_under_the_cursor(tmp_path):
    path, ids = counter_save(tmp_path)
    k = ids["Kara"]
    async with desk(path) as (app, pilot, screen):
        pane = screen.character
        await press(pilot, "tab")  # initiative → the character pane
        assert pane.table.has_focus and pane.border_title == "Kara"
        await to_row(pilot, pane, "counter", 0)
        await settle(pilot)
        text = screen_text(app)
        assert "── Counters" in text and "Reactions" in text and "1/1 a round" in text
        await press(pilot, "s")
        await until(pilot, lambda: counters_of(path, k)[0] == "Reactions 0/1 a round")
        await settle(pilot)
        assert "0/1 a round" in screen_text(app)
        await press(pilot, "S")
        await until(pilot, lambda: counters_of(path, k)[0] == "Reactions 1/1 a round")
        await to_row(pilot, pane, "counter", 1)
        await press(pilot, "s")
        await until(pilot, lambda: counters_of(path, k)[1] == "Luck 2/3 a night")
        await settle(pilot)
        assert "2/3 a night" in screen_text(app)
        # a spend of a counter with none left is refused on screen, and nothing is saved
        await to_row(pilot, pane, "counter", 0)
        await press(pilot, "s")
        await until(pilot, lambda: counters_of(path, k)[0] == "Reactions 0/1 a round")
        await press(pilot, "s")
        await settle(pilot)
        assert "Kara has 0 Reactions left" in screen_text(app)
        assert counters_of(path, k) == ["Reactions 0/1 a round", "Luck 2/3 a night"]
        # Gospog's turn, then round 2: Kara's Reactions fill up; u takes that step back with it
        await press(pilot, "n")
        await press(pilot, "n")
        await until(pilot, lambda: saved(path).encounter.round == 2)
        assert counters_of(path, k)[0] == "Reactions 1/1 a round"
        await press(pilot, "u")
        await until(pilot, lambda: saved(path).encounter.round == 1)
        assert counters_of(path, k)[0] == "Reactions 0/1 a round"


async def test_the_palette_spends_and_gives_back_the_selected_characters_counter(tmp_path):
    path, ids = counter_save(tmp_path)
    k = ids["Kara"]
    async with desk(path) as (_app, pilot, _screen):
        await palette(pilot, "Spend one Luck (Kara)")
        await until(pilot, lambda: counters_of(path, k)[1] == "Luck 2/3 a night")
        await palette(pilot, "Give back one Luck (Kara)")
        await until(pilot, lambda: counters_of(path, k)[1] == "Luck 3/3 a night")


async def test_the_player_view_shows_a_pcs_counters_and_not_an_npcs(tmp_path):
    from test_tui_player import shown

    from gmdesk.tui.screens.player import PlayerApp, build_picture

    path, ids = counter_save(tmp_path)
    with Session.open(path) as s:
        s.apply({"type": "counter.add", "id": ids["Gospog"], "label": "Legendary", "max": 3, "reset": "turn"})
        s.apply({"type": "counter.change", "id": ids["Kara"], "label": "Reactions", "spend": 1})
        party = build_picture(s.state).party.plain
    assert "counters: Reactions 0/1 a round, Luck 3/3 a night" in party and "Legendary" not in party
    app = PlayerApp(path, clock=lambda: "21:00:00")
    async with run(app, size=(80, 24)) as pilot:
        await shown(pilot)
        text = screen_text(app)
    assert "Reactions 0/1 a round" in text and "Legendary" not in text


async def test_the_palette_adds_a_counter_and_a_bad_maximum_is_said_with_its_label(tmp_path):
    from helpers import burst, dialog

    from gmdesk.tui.screens.confirm import FormDialog

    path, ids = counter_save(tmp_path)
    k = ids["Kara"]
    async with desk(path) as (app, pilot, _screen):
        await palette(pilot, "Add a counter…")
        await dialog(pilot, FormDialog)
        await burst(pilot, "Second wind")
        await press(pilot, "tab", "backspace")
        await burst(pilot, "x")
        await press(pilot, "enter")
        await settle(pilot)
        text = screen_text(app)
        assert "Maximum: must be a whole number" in text and "max:" not in text
        assert counters_of(path, k) == ["Reactions 1/1 a round", "Luck 3/3 a night"]
        await press(pilot, "backspace")
        await burst(pilot, "2")
        await press(pilot, "enter")
        await until(pilot, lambda: len(counters_of(path, k)) == 3)
    assert counters_of(path, k)[2] == "Second wind 2/2 a round"


async def test_a_character_without_counters_shows_how_to_add_one_and_enter_adds_it(tmp_path):
    """The pane of a character with no counter says that one can be added ("+ add
    counter", at 80×24); Enter on it opens the desk's "Add a counter…" (as the palette
    does) and the counter is saved, in one event; the pane lists it and ``s`` on it
    spends one use."""
    from helpers import burst, dialog
    from test_tui_char_fields import to_row

    from gmdesk.tui.screens.confirm import FormDialog

    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    k = ids["Kara"]
    async with desk(path) as (app, pilot, screen):
        pane = screen.character
        await press(pilot, "tab")  # initiative → the character pane
        assert pane.table.has_focus and pane.border_title == "Kara"
        assert "+ add counter" in screen_text(app)
        assert "── Counters" not in screen_text(app)  # no section until it has one
        await to_row(pilot, pane, "add", "counter")
        await press(pilot, "enter")
        await dialog(pilot, FormDialog)
        assert "A counter for Kara" in screen_text(app)
        await burst(pilot, "Legendary actions")
        await press(pilot, "tab")
        await burst(pilot, "3")
        await press(pilot, "enter")
        await until(pilot, lambda: counters_of(path, k) == ["Legendary actions 3/3 a round"])
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        await settle(pilot)
        text = screen_text(app)
        assert "── Counters" in text and "3/3 a round" in text
        assert pane.table.has_focus  # back on the list, where s spends
        await to_row(pilot, pane, "counter", 0)
        await press(pilot, "s")
        await until(pilot, lambda: counters_of(path, k) == ["Legendary actions 2/3 a round"])
    with Session.open(path, readonly=True) as s:
        assert [e.type for e in s.events] == ["character.add", "counter.add", "counter.change"]
