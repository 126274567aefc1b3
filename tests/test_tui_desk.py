"""The desk at 80×24 as a GM meets it: keys that never surprise, the character pane
showing what the session's system uses, help that reaches its end, the picker and
the player view agreeing with the open session. Pilot drives the real app; every
test checks the screen and the saved session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import (
    SMALL,
    burst,
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
from textual.widgets import Input

from gmdesk.tui.widgets.character import CharacterTable, Row


def row_index(pane: Any, kind: str, key: Any) -> int:
    return [(r.kind, r.key) for r in pane.row_kinds].index((kind, key))


# ------------------------------------------------------------------------ point 28


async def test_after_adding_a_source_the_desk_keys_act_and_enter_adds_again(tmp_path: Path) -> None:
    """After adding a source the cursor is back on "+ add advantage" with the focus on
    the list: the desk's keys are the desk's there (``n`` is the next turn, every time),
    and only Enter opens the editor for the next source (issue 18, point 3)."""
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Kara": 12, "Bruno": 8},
        start=True,
    )
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        screen.selected = ids["Kara"]
        pane = screen.character
        table = pane.query_one(CharacterTable)
        await press(pilot, "tab")  # initiative → character pane
        assert table.has_focus
        table.move_cursor(row=row_index(pane, "add", "advantage"))
        await press(pilot, "enter")
        await burst(pilot, "Aim +1")
        await press(pilot, "enter")
        await settle(pilot)
        before = saved(path)
        assert [(s.name, s.value, s.active) for s in before.characters[ids["Kara"]].advantage] == [("Aim", 1, True)]
        # the cursor is on the "+ add" row again, not on the new source; the list has the focus
        assert table.has_focus and pane.current_row() == Row("add", "advantage")
        editor = pane.query_one("#character-editor", Input)
        # a letter that is a desk key acts as that key: n, then n again (the pane follows
        # the turn to Bruno, then back to Kara in round 2)
        await press(pilot, "n")
        assert saved(path).encounter.current.char_id == ids["Bruno"]
        assert not editor.display and (table.has_focus or screen.initiative.table.has_focus)
        await press(pilot, "n")
        after = saved(path)
        assert (after.encounter.round, after.encounter.current.char_id) == (2, ids["Kara"])
        assert not editor.display
        # u undoes the last turn (not a "u" in a new entry)
        await press(pilot, "u")
        assert saved(path).encounter.current.char_id == ids["Bruno"]
        assert [(s.name, s.active) for s in saved(path).characters[ids["Kara"]].advantage] == [("Aim", True)]
        # Enter on the "+ add" row opens the editor; what is typed is the new entry
        screen.selected = ids["Kara"]
        screen.refresh_view()
        table.focus()
        table.move_cursor(row=row_index(pane, "add", "advantage"))
        await press(pilot, "enter")
        assert editor.has_focus and editor.value == ""
        await burst(pilot, "Mud -2")
        assert editor.value == "Mud -2"
        label = str(pane.query_one("#editor-label").render())
        assert "name value [rounds]" in label  # the prompt's words, not eaten as markup
        # the section title is not cut at 80×24 (once the pane has scrolled the editor's row into view)
        await until(pilot, lambda: "Advantage sources" in screen_text(app))
        await press(pilot, "enter")
        await settle(pilot)
        # a second Enter on the "+ add" row adds again; it never toggles the new source
        assert pane.current_row() == Row("add", "advantage") and table.has_focus
        assert "Mud" in screen_text(app)
        await press(pilot, "M")  # no desk key: a hint says how to add, no editor opens
        assert not editor.display and "Enter (or e) opens the editor" in notes(app)[-1]
    kara = saved(path).characters[ids["Kara"]]
    assert [(s.name, s.value, s.active) for s in kara.advantage] == [("Aim", 1, True), ("Mud", -2, True)]


async def test_removals_say_what_happened_and_how_to_undo(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Kara": 12, "Bruno": 8},
        start=True,
    )
    from gmdesk.core.session import Session

    with Session.open(path) as s:
        s.apply({"type": "source.add", "id": ids["Kara"], "kind": "advantage", "name": "Mud", "value": -2})
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        table = pane.query_one(CharacterTable)
        await press(pilot, "tab")
        table.move_cursor(row=row_index(pane, "advantage", 0))
        await press(pilot, "x")
        await settle(pilot)
        assert "Mud removed — u to undo" in notes(app)[-1]
        assert saved(path).characters[ids["Kara"]].advantage == []
        assert pane.current_row().kind != "add"  # u is undo here, not the start of a new source
        await press(pilot, "u")
        await settle(pilot)
        assert [s.name for s in saved(path).characters[ids["Kara"]].advantage] == ["Mud"]
        await press(pilot, "shift+tab")  # back to the initiative list: Kara is selected
        await press(pilot, "minus")
        await settle(pilot)
        assert notes(app)[-1] == "Kara leaves the encounter — u to undo"
        assert [c.char_id for c in saved(path).encounter.order] == [ids["Bruno"]]


def Session_events(path: Path) -> list:
    from gmdesk.core.session import Session

    with Session.open(path, readonly=True) as s:
        return list(s.events)


# ------------------------------------------------------------------------ point 20

SECTION_TITLES = {"advantage": "Advantage sources", "shift": "Shift sources", "sheet": "── Sheet"}


async def test_the_character_pane_shows_only_what_the_system_uses(tmp_path: Path) -> None:
    """Each system module declares its CHARACTER_SECTIONS; the pane shows those only."""
    from gmdesk.core.systems import SYSTEM_IDS, character_sections

    sheet = "Kara\nDescriptor        Default  Current\nFitness           +1       +1\nKnife (3)\n"
    for system in SYSTEM_IDS:
        character = {"name": "Kara", "sheet": sheet} if system == "1d6x4" else {"name": "Kara"}
        path, ids = make_save(tmp_path / system, system, [character])
        app = make_app(path)
        async with run(app, size=SMALL) as pilot:
            screen = await main_screen(pilot)
            pane = screen.character
            uses = character_sections(system)
            kinds = {(r.kind, r.key) for r in pane.row_kinds}
            text = "\n".join(str(pane.table.get_row_at(i)[0]) for i in range(pane.table.row_count))
            for section in ("advantage", "shift"):
                assert (("add", section) in kinds) == (section in uses), (system, section)
                assert (SECTION_TITLES[section] in text) == (section in uses), (system, section)
            assert (("field", "possibilities") in kinds) == (system == "torg-2d10"), system
            assert (("field", "reality_rated") in kinds) == (system == "torg-2d10"), system
            assert ("── Sheet" in text) == (system == "1d6x4"), system
            assert (("field", "vitality") in kinds) == (system == "1d6x4"), system
            # the keys of the pane in the Footer follow the system too (and the row under
            # the cursor: the keys the rows take, row by row)
            pane.table.focus()
            await settle(pilot)
            footer = ""
            for _ in range(pane.table.row_count):
                footer += screen_text(app).splitlines()[-1]
                await press(pilot, "down")
            assert "Edit" in footer
            assert "Buy off" not in footer and "Toggle" not in footer  # no wound, no source
            assert (" Use " in footer) == (system == "1d6x4"), footer


async def test_sheet_use_counts_fit_at_80_columns(tmp_path: Path) -> None:
    sheet = (
        "Kara\nDescriptor          Default  Current\nFitness             +1       -1\n"
        "Healing Ability     +2 (3)   +2 (2)\n"
    )
    path, ids = make_save(tmp_path, "1d6x4", [{"name": "Kara", "sheet": sheet}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        pane.table.focus()
        pane.table.move_cursor(row=row_index(pane, "sheet", 1))
        await settle(pilot)
        lines = [line for line in screen_text(app).splitlines() if "Healing Ability" in line or "Fitness" in line]
        assert any("+2 (2/3)" in line for line in lines), lines  # current value, uses current/default
        assert any("-1/+1" in line.replace("−", "-") for line in lines), lines  # current/default


# ------------------------------------------------------------------------ point 17


async def test_help_scrolls_to_its_end_at_80x24(tmp_path: Path) -> None:

    from gmdesk.tui.screens.help import HelpScreen

    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "question_mark")
        await dialog(pilot, HelpScreen)
        await settle(pilot)
        text = screen_text(app)
        assert "Esc close" in text  # the hint line is on screen
        assert "copy the roll's line" not in text  # the last key is below…
        await press(pilot, "end")
        await until(pilot, lambda: "copy the roll's line" in screen_text(app))  # …and reachable (it scrolls)
        assert "Esc close" in screen_text(app)
        await press(pilot, "escape")
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)


async def test_help_from_the_picker_shows_the_pickers_keys(tmp_path: Path) -> None:

    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.help import HelpScreen
    from gmdesk.tui.screens.picker import PickerScreen

    make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "no-examples")
    async with run(app, size=SMALL) as pilot:
        await dialog(pilot, PickerScreen)
        await settle(pilot)
        await press(pilot, "question_mark")
        help_screen = await dialog(pilot, HelpScreen)
        keys = {what: key for key, what in help_screen.keys}
        assert keys["Delete"].startswith("del") and keys["New"] == "n" and "Duplicate" in keys
        text = screen_text(app)
        assert "Character pane" not in text and "initiative list" not in text
        assert "Esc close" in text


# ------------------------------------------------------------------------ point 33


async def test_deleting_a_session_open_elsewhere_says_who_holds_it(tmp_path: Path) -> None:
    import os
    import socket

    from gmdesk.core.session import Session
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.picker import PickerScreen

    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "no-examples")
    with Session.open(path):  # another gmdesk has it open for writing
        async with run(app, size=SMALL) as pilot:
            pk = await dialog(pilot, PickerScreen)
            await until(pilot, lambda: pk.loaded)
            await press(pilot, "x")
            await until(pilot, lambda: type(app.screen).__name__ == "ConfirmDialog")
            await press(pilot, "y")
            await until(pilot, lambda: isinstance(app.screen, PickerScreen) and "not deleted" in pk.status_text)
            await settle(pilot)
            status = pk.status_text
            assert (
                f"Table was not deleted: it is open in gmdesk (pid {os.getpid()} on {socket.gethostname()}, "
                "since " in status
            )
            assert "Close it there first." in status
            assert "not deleted" in screen_text(app)
    assert path.exists()


async def test_removing_a_character_selects_its_neighbour(tmp_path: Path) -> None:

    from gmdesk.tui.screens.confirm import ConfirmDialog

    path, ids = make_save(tmp_path, "4d2", [{"name": n} for n in ("Ann", "Bob", "Cid", "Dee")])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "down", "down")  # Ann → Bob → Cid in the initiative list
        assert screen.selected == ids["Cid"]
        await palette(pilot, "Remove character")
        await dialog(pilot, ConfirmDialog)
        await press(pilot, "y")
        await settle(pilot)
        assert ids["Cid"] not in saved(path).characters
        assert screen.selected == ids["Dee"]  # the next one in the list, not the top
        assert screen.character.border_title == "Dee"
        assert notes(app)[-1] == "Cid removed — u to undo"
        # the last one of the list: the one above takes the selection
        await palette(pilot, "Remove character")
        await dialog(pilot, ConfirmDialog)
        await press(pilot, "y")
        await settle(pilot)
        assert screen.selected == ids["Bob"]


# ------------------------------------------------------------------------ point 21


def _entry(
    path: Path, system: str, params: Any, dice: list[int], actor: str, target: str | None, combat: bool = False
) -> Any:
    from gmdesk.core.dice import FixedDice
    from gmdesk.core.session import Session

    with Session.open(path) as s:
        ev = s.roll(system, params, actor=actor, target=target, combat=combat, rng=FixedDice(dice), fill=False)
        names = {cid: c.name for cid, c in s.state.characters.items()}
        return s.state.roll_entry(ev.seq), names


def test_log_lines_put_what_matters_first_and_the_dice_last(tmp_path: Path) -> None:
    from gmdesk.core.render import render_record
    from gmdesk.core.systems import core_4d6, fudge, one_d6_x4
    from gmdesk.tui.widgets.rolllog import entry_line

    people = [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}]
    # 1d6x4 attack, two-way: attack die 4 (+2 → 18), defense die 2 (+1 → 9), damage d6 = 5
    path, ids = make_save(tmp_path / "a", "1d6x4", people)
    entry, names = _entry(
        path,
        "1d6x4",
        one_d6_x4.Params(bonus=2, vs_bonus=1, combat=True, test="Slingshot", vs_test="Dodge"),
        [4, 2, 5],
        ids["Kara"],
        ids["Bruno"],
        combat=True,
    )
    line = entry_line(entry, names)
    assert line.startswith(f"#{entry.seq} Kara → Bruno: 1d6x4 18 Attacker prevails vs 9 → Wound −5 Vitality [")
    assert line.endswith("[attack 4 | defense 2 | damage 5]")
    assert "(target)" not in line
    breakdown = "\n".join(t.plain for t in render_record(entry.record).renderables)
    assert "Tested: Slingshot" in breakdown and "Opponent tested: Dodge" in breakdown
    assert "attack 4 | defense 2 | damage 5" in breakdown
    # fudge opposed: both levels and the opponent's dice
    path, ids = make_save(tmp_path / "f", "fudge", people)
    entry, names = _entry(
        path, "fudge", fudge.Params(trait="Good", vs_trait="Fair"), [1, 2, 2, 1, 3, 1, 1, 1], ids["Kara"], ids["Bruno"]
    )
    line = entry_line(entry, names)
    # own dice +0 (1 2 − 2 1) on Good; the opponent's +2 (3 1 − 1 1) on Fair: Great
    assert line == (
        f"#{entry.seq} Kara → Bruno: fudge +0 Loses by 1 (Good vs Great) "
        "[positive 1 2 | negative −2 −1 | vs positive 3 1 | negative −1 −1]"
    )
    # 4d6 contest: the opponent's total
    path, ids = make_save(tmp_path / "c", "4d6", people)
    entry, names = _entry(
        path, "4d6", core_4d6.Params(bonus=2, vs_bonus=1), [3, 4, 5, 6, 1, 2, 3, 4], ids["Kara"], ids["Bruno"]
    )
    line = entry_line(entry, names)
    assert line.startswith(f"#{entry.seq} Kara → Bruno: 4d6 20 Decisive victory vs 11")
    assert line.endswith("[3 4 5 6 | vs 1 2 3 4]")


# ------------------------------------------------------------------------ point 24


async def test_the_player_view_shows_the_clocks(tmp_path: Path) -> None:
    from test_tui_player import shown

    from gmdesk.core.session import Session
    from gmdesk.tui.screens.player import PlayerApp

    path, ids = make_save(tmp_path, "4d6", [{"name": "Kara"}], initiative={"Kara": 12}, start=True)
    with Session.open(path) as s:
        s.apply({"type": "clock.add", "name": "Alarm", "segments": 4})
        s.apply({"type": "clock.tick", "name": "Alarm", "halves": 3})
    app = PlayerApp(path, clock=lambda: "20:00")
    async with run(app, size=SMALL) as pilot:
        await shown(pilot)
        await until(pilot, lambda: "Alarm 1½/4" in screen_text(app))


def test_the_session_list_agrees_with_the_open_session(tmp_path: Path) -> None:
    """The picker's row (round, rolls, characters, last played) read while the session
    is still open for writing — as a second gmdesk would list it — says what the open
    session says: every roll-log entry counted (initiative rolls too)."""
    import random

    from gmdesk.core.session import Session, SessionStore
    from gmdesk.core.systems import four_d_two
    from gmdesk.tui.screens.picker import format_last_played

    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}])
    store = SessionStore(tmp_path / "saves")
    with Session.open(path) as s:
        s.roll_initiative(list(ids.values()), random.Random(1))
        s.apply({"type": "turn.next"})
        for i in range(3):
            s.roll("4d2", four_d_two.Params(), actor=ids["Kara"], target=ids["Bruno"], rng=random.Random(i))
        st = s.state
        row = store.summary(path)
        assert (row.round, row.rolls, row.characters) == (st.encounter.round, len(st.rolls), len(st.characters))
        assert row.rolls == 5  # two initiative rolls and three rolls, as the log's title counts them
        assert format_last_played(row.last_played) == format_last_played(st.info.last_played)
