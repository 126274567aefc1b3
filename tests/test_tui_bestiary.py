"""The desk's "Add from bestiary", at 80×24 and keys only: the GM types part of a
name, picks a stat block, sets a count and Enter: that many numbered copies join the
session and its encounter (initiative rolls logged), saved, and one undo takes them
all back; "Hidden from the players" hides them; an empty, unmatched or damaged
bestiary says so in the dialog and nothing is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import (
    burst,
    dialog,
    files_of,
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

from gmdesk.core.campaign.bestiary import BESTIARY_FILE, Bestiary
from gmdesk.core.campaign.statblock import StatBlock
from gmdesk.core.systems import system_ids
from gmdesk.tui.screens.bestiary import BestiaryDialog
from gmdesk.tui.screens.help import HelpScreen

SYSTEM = system_ids()[0]


def stock(saves: Path, system: str = SYSTEM) -> None:
    """A bestiary of a few stat blocks of ``system`` (and one of another system)."""
    other = next(s for s in system_ids() if s != system)
    Bestiary(saves).add_many(
        [
            StatBlock("Gospog", system, vitality=7, tags=("undead", "minion")),
            StatBlock("Gospog Sergeant", system, vitality=9, tags=("undead",)),
            StatBlock("Bandit", system, vitality=5, tags=("human",)),
            StatBlock("Gospog Elsewhere", other, vitality=3),
        ]
    )


async def open_dialog(pilot: Any) -> BestiaryDialog:
    await main_screen(pilot)
    await press(pilot, "B")
    dlg = await dialog(pilot, BestiaryDialog)
    await until(pilot, lambda: dlg.loaded is not None or dlg.load_error)
    await settle(pilot)
    return dlg


def listed(dlg: BestiaryDialog) -> list[str]:
    return [str(d["name"]) for d in dlg.shown]


async def test_three_numbered_copies_join_the_encounter_saved_and_one_undo_takes_them_back(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, SYSTEM, [{"name": "Kara", "side": "PC"}], initiative={"Kara": 10})
    stock(path.parent)
    app = make_app(path)
    async with run(app) as pilot:
        dlg = await open_dialog(pilot)
        text = screen_text(app)
        assert "Add from bestiary" in text and "Gospog Sergeant" in text and "Vitality" in text
        assert "Gospog Elsewhere" not in text  # another system's stat block is not offered
        await burst(pilot, "serg")
        assert listed(dlg) == ["Gospog Sergeant"]
        assert "1 of 3 stat blocks" in screen_text(app)
        await press(pilot, "tab", "tab")  # the list, then the count
        await press(pilot, "backspace")
        await burst(pilot, "3")
        await press(pilot, "enter")
        await until(pilot, lambda: not isinstance(app.screen, BestiaryDialog))
        await settle(pilot)
        state = app.screen.state
        names = ["Gospog Sergeant 1", "Gospog Sergeant 2", "Gospog Sergeant 3"]
        added = [c for c in state.characters.values() if c.name in names]
        assert sorted(c.name for c in added) == names
        assert all(c.vitality_current == 9 and not c.hidden for c in added)
        in_order = {e.char_id for e in state.encounter.order}
        assert {c.id for c in added} <= in_order and ids["Kara"] in in_order
        assert any("Gospog Sergeant 1" in n and "u to undo" in n for n in notes(app))
        assert "Gospog Sergeant 1" in screen_text(app)
        await press(pilot, "u")
        state = app.screen.state
        assert [c.name for c in state.characters.values()] == ["Kara"]
        assert [e.char_id for e in state.encounter.order] == [ids["Kara"]]
        await press(pilot, "U")  # and redo brings the group back for the save below
    back = saved(path)
    assert sorted(c.name for c in back.characters.values()) == sorted(["Kara", *names])
    assert len(back.encounter.order) == 4


async def test_hidden_copies_and_a_tag_search(tmp_path: Path) -> None:
    path, _ids = make_save(tmp_path, SYSTEM)
    stock(path.parent)
    app = make_app(path)
    async with run(app) as pilot:
        dlg = await open_dialog(pilot)
        await burst(pilot, "minion")  # a tag finds it too
        assert listed(dlg) == ["Gospog"]
        await press(pilot, "tab", "tab", "tab")  # the list, the count, hidden
        await press(pilot, "space")
        assert "[x] Hidden from the players" in screen_text(app)
        await press(pilot, "enter")
        await until(pilot, lambda: not isinstance(app.screen, BestiaryDialog))
        await settle(pilot)
    back = saved(path)
    assert [(c.name, c.hidden) for c in back.characters.values()] == [("Gospog", True)]
    assert len(back.encounter.order) == 1


async def test_the_palette_opens_it_and_the_help_lists_its_key(tmp_path: Path) -> None:
    path, _ids = make_save(tmp_path, SYSTEM)
    stock(path.parent)
    app = make_app(path)
    async with run(app) as pilot:
        await main_screen(pilot)
        await palette(pilot, "Add from bestiary")
        await dialog(pilot, BestiaryDialog)
        await press(pilot, "escape")
        await press(pilot, "question_mark")
        helped = await dialog(pilot, HelpScreen)
        assert ("B", "Add numbered copies of a bestiary stat block to the encounter") in helped.keys


async def test_no_stat_block_for_the_system_or_no_match_says_so(tmp_path: Path) -> None:
    other = system_ids()[1]
    path, _ids = make_save(tmp_path, SYSTEM)
    Bestiary(path.parent).add(StatBlock("Wolf", other))
    app = make_app(path)
    async with run(app) as pilot:
        dlg = await open_dialog(pilot)
        assert "The bestiary has no stat blocks for" in screen_text(app)
        await press(pilot, "enter")
        assert isinstance(app.screen, BestiaryDialog) and "no stat block to add" in screen_text(app)
        await press(pilot, "escape")
        stock(path.parent)
        dlg = await open_dialog(pilot)
        await burst(pilot, "zzz")
        assert dlg.shown == [] and "No stat block of" in screen_text(app)
        await press(pilot, "escape")
    assert [c.name for c in saved(path).characters.values()] == []


async def test_a_damaged_bestiary_shows_its_error_and_nothing_is_written(tmp_path: Path) -> None:
    path, _ids = make_save(tmp_path, SYSTEM)
    (path.parent / BESTIARY_FILE).write_text("{ not json", encoding="utf-8")
    before = files_of(path.parent)[BESTIARY_FILE]
    app = make_app(path)
    async with run(app) as pilot:
        dlg = await open_dialog(pilot)
        assert dlg.load_error and "damaged bestiary" in screen_text(app)
        await press(pilot, "enter")
        assert isinstance(app.screen, BestiaryDialog)
        await press(pilot, "escape")
    assert files_of(path.parent)[BESTIARY_FILE] == before
    assert list(saved(path).characters) == []


async def test_a_saves_directory_without_a_bestiary_gets_the_starter_one(tmp_path: Path) -> None:
    path, _ids = make_save(tmp_path, SYSTEM)
    app = make_app(path)
    async with run(app) as pilot:
        dlg = await open_dialog(pilot)
        assert "Started the bestiary" in screen_text(app)
        assert dlg.loaded is not None and dlg.loaded.started
    assert (path.parent / BESTIARY_FILE).is_file()
