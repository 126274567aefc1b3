"""The GM's main screen, driven with Pilot like a GM would: add characters, roll
initiative, run turns, edit a character inline, roll with the dialog, undo / redo,
quit and resume. Every test checks the screen AND the saved session (re-opened
read-only)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import (
    LARGE,
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    odds_ready,
    on_top,
    palette,
    press,
    run,
    saved,
    screen_text,
    settle,
    until,
)
from textual.widgets import Input, OptionList, Select

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.tui.app import GmdeskApp
from gmdesk.tui.screens.confirm import ChoiceDialog, ConfirmDialog, FormDialog, InputDialog
from gmdesk.tui.screens.help import HelpScreen
from gmdesk.tui.screens.main import MainScreen
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.screens.rolldetails import RollDetails
from gmdesk.tui.widgets.character import CharacterPane, CharacterTable
from gmdesk.tui.widgets.form import Choice
from gmdesk.tui.widgets.rolllog import RollLog

pytestmark = pytest.mark.usefixtures("quick_odds")


# ------------------------------------------------------------------------------- tests


async def test_add_characters_and_roll_initiative(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path)
    # 4d2 initiative: two pairs of 2d6 per character (Kara: 6 5 − 1 1 = +9, Bruno: 3 3 − 4 4 = −2)
    app = make_app(path, rng=FixedDice([6, 5, 1, 1, 3, 3, 4, 4]))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        assert "No character selected" in screen_text(app)
        for name, side in (("Kara", "PC"), ("Bruno", "NPC")):
            await press(pilot, "c")
            form = await dialog(pilot, FormDialog)
            await press(pilot, *name)
            form.query_one("#form-side", Select).value = side
            await press(pilot, "enter")
            await settle(pilot)
        text = screen_text(app)
        assert "Kara" in text and "Bruno" in text
        await press(pilot, "i")
        form = await dialog(pilot, FormDialog)
        await press(pilot, "enter")
        await settle(pilot)
        text = screen_text(app)
        assert "Initiative: Kara 9, Bruno −2" in " ".join(notes(app)) or "Kara 9" in " ".join(notes(app))
        assert screen.initiative.row_ids[:2] == list(saved(path).characters)[:2]
        await press(pilot, "n")
        await settle(pilot)
        assert "Round 1 · ▶ Kara" in screen_text(app)
    state = saved(path)
    names = {c.id: c.name for c in state.characters.values()}
    assert [names[c.char_id] for c in state.encounter.order] == ["Kara", "Bruno"]
    assert [c.initiative for c in state.encounter.order] == [9, -2]
    assert state.characters[state.encounter.order[1].char_id].side == "NPC"
    assert state.encounter.round == 1 and state.encounter.turn == 0
    # the initiative rolls are in the log with their dice
    assert [r.kind for r in state.rolls] == ["initiative", "initiative"]


async def test_a_new_character_is_shown_and_is_the_one_the_keys_act_on(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        for name in ("Kara", "Bruno"):
            await press(pilot, "c")
            await dialog(pilot, FormDialog)
            await press(pilot, *name)
            await press(pilot, "enter")
            await settle(pilot)
            # the pane and the list show the character just added, at once
            assert screen.character.border_title == name
            assert screen.initiative.row_ids[screen.initiative.table.cursor_row] == screen.selected
        await press(pilot, "H")  # hides the character the pane shows
        await settle(pilot)
    state = saved(path)
    assert [c.name for c in state.characters.values() if c.hidden] == ["Bruno"]


async def test_new_character_refuses_an_empty_name(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "c")
        form = await dialog(pilot, FormDialog)
        await press(pilot, "enter")
        await pilot.pause()
        assert "Name: must not be empty" in str(form.query_one("#dialog-error").render())
        assert isinstance(app.screen, FormDialog)
        await press(pilot, "escape")
        await settle(pilot)
    assert saved(path).characters == {}


async def test_turns_resume_where_play_stopped(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        characters=[{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}, {"name": "Cid"}],
        initiative={"Kara": 12, "Bruno": 8, "Cid": 3},
    )
    async with make_app(path).run_test(size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "n", "n")  # round 1: Kara, then Bruno
        await settle(pilot)
        # the GM looks at Cid's sheet before quitting
        await press(pilot, "down")
        await settle(pilot)
        assert screen.selected == ids["Cid"]
        await press(pilot, "q")
    state = saved(path)
    assert (state.encounter.round, state.encounter.turn) == (1, 1)

    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        text = screen_text(app)
        assert "Round 1 · ▶ Bruno's turn" in text
        assert screen.selected == ids["Cid"]
        assert screen.query_one(CharacterPane).border_title == "Cid"
        await press(pilot, "n")
        await settle(pilot)
        assert "▶ Cid's turn" in screen_text(app)
    assert saved(path).encounter.turn == 2


async def test_resume_shows_the_log_at_its_end(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, characters=[{"name": "Kara"}])
    with Session.open(path) as s:
        rng = random.Random(3)
        from gmdesk.core.systems import four_d_two

        for _ in range(60):
            s.roll("4d2", four_d_two.Params(), actor=ids["Kara"], rng=rng)
        last = s.state.rolls[-1].seq
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        log = screen.rolllog
        assert log.count == 60
        assert log.current_entry.seq == last
        assert log.visible_lines()[-1].startswith(f"#{last} Kara: 4d2")
        assert f"#{last} Kara: 4d2" in screen_text(app)


async def test_undo_and_redo_say_what_they_did(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, characters=[{"name": "Kara"}, {"name": "Bruno"}], initiative={"Kara": 5, "Bruno": 3}, start=True
    )
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "n")
        await settle(pilot)
        assert "▶ Bruno's turn" in screen_text(app)
        await press(pilot, "u")
        await settle(pilot)
        assert any(n.startswith("Undone: Round 1: Bruno's turn") for n in notes(app))
        assert "▶ Kara's turn" in screen_text(app)
        assert saved(path).encounter.turn == 0
        await press(pilot, "U")
        await settle(pilot)
        assert any(n.startswith("Redone:") for n in notes(app))
        assert "▶ Bruno's turn" in screen_text(app)
        assert saved(path).encounter.turn == 1
        await press(pilot, "u")
        await settle(pilot)
        await press(pilot, "ctrl+y")
        await settle(pilot)
        assert saved(path).encounter.turn == 1


async def test_inline_edit_is_validated(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "torg-2d10", [{"name": "Kara", "reality_rated": True, "possibilities": 3, "vitality": 10}]
    )
    app = make_app(path)
    async with run(app, size=LARGE) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        table = pane.query_one(CharacterTable)
        table.focus()
        await pilot.pause()
        # the second row is Possibilities
        rows = pane.row_kinds
        table.move_cursor(row=[r.key for r in rows].index("possibilities"))
        await press(pilot, "enter")
        await pilot.pause()
        editor = pane.query_one("#character-editor", Input)
        assert editor.has_focus and editor.value == "3"
        editor.value = "lots"
        await press(pilot, "enter")
        await settle(pilot)
        assert "✗ possibilities: must be a whole number" in str(pane.query_one("#character-message").render())
        assert saved(path).characters[ids["Kara"]].possibilities == 3
        editor.value = "-1"
        await press(pilot, "enter")
        await settle(pilot)
        assert "✗ possibilities" in str(pane.query_one("#character-message").render())
        editor.value = "5"
        await press(pilot, "enter")
        await settle(pilot)
        assert str(pane.query_one("#character-message").render()) == ""
        assert not editor.display
        assert "Possibilities 5" in screen_text(app)
        # Vitality as current/default
        table.move_cursor(row=[r.key for r in pane.row_kinds].index("vitality"))
        await press(pilot, "enter")
        editor.value = "4/12"
        await press(pilot, "enter")
        await settle(pilot)
    c = saved(path).characters[ids["Kara"]]
    assert (c.possibilities, c.vitality_current, c.vitality_default) == (5, 4, 12)


async def test_sources_and_conditions_from_the_character_pane(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=LARGE) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        table = pane.query_one(CharacterTable)
        table.focus()

        async def add(kind: str, text: str) -> None:
            table.move_cursor(row=[(r.kind, r.key) for r in pane.row_kinds].index(("add", kind)))
            await press(pilot, "enter")
            pane.query_one("#character-editor", Input).value = text
            await press(pilot, "enter")
            await settle(pilot)

        await add("advantage", "High ground +1 2")
        await add("advantage", "Wounded -3")  # refused: ±1 or ±2
        assert "✗ value: must be a whole number from -2 to 2" in str(pane.query_one("#character-message").render())
        pane.close_editor()
        await add("condition", "Stymied 1")
        c = saved(path).characters[ids["Kara"]]
        assert [(s.name, s.value, s.rounds, s.active) for s in c.advantage] == [("High ground", 1, 2, True)]
        assert [(x.name, x.rounds) for x in c.conditions] == [("Stymied", 1)]
        assert "STY" in screen_text(app)  # the marker, not a colour
        # Space switches the source off, Delete removes the condition
        table.move_cursor(row=[(r.kind, r.key) for r in pane.row_kinds].index(("advantage", 0)))
        await press(pilot, "space")
        await settle(pilot)
        assert "[ ] High ground" in screen_text(app)
        table.move_cursor(row=[(r.kind, r.key) for r in pane.row_kinds].index(("condition", 0)))
        await press(pilot, "delete")
        await settle(pilot)
    c = saved(path).characters[ids["Kara"]]
    assert c.advantage[0].active is False
    assert c.conditions == []


async def test_roll_dialog_validates_and_previews_odds(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    with Session.open(path) as s:
        s.apply({"type": "source.add", "id": ids["Kara"], "kind": "shift", "name": "Pistol", "value": 2})
    # 4d2: positive 5 4, negative 3 2 → Number +4, shift +2 → Outcome +6
    app = make_app(path, rng=FixedDice([5, 4, 3, 2]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query_one("#rd-system", Choice).value == "4d2"  # the session's system preselected
        shift = dlg.query_one("#p-shift", Input)
        assert shift.value == "2"  # Kara's Pistol shift filled in
        odds = await odds_ready(pilot, dlg)
        assert odds.params["shift"] == 2
        # switching the source off for this roll takes the shift away
        dlg.last_odds = None
        dlg.set_source("src-own-0", False)
        await pilot.pause()
        assert shift.value == "0"
        odds = await odds_ready(pilot, dlg)
        assert odds.params["shift"] == 0
        assert "Detent" in str(dlg.query_one("#rd-odds").render())
        # a bad value is named inline and nothing is rolled
        shift.value = "7"
        await pilot.pause()
        assert "✗ Net shift: must be a whole number from -3 to 3 (got 7)" in str(dlg.query_one("#rd-error").render())
        await press(pilot, "enter")
        await pilot.pause()
        assert on_top(app, RollDialog)
        assert saved(path).rolls == []
        dlg.set_source("src-own-0", True)
        await pilot.pause()
        assert shift.value == "2"
        await press(pilot, "enter")
        await settle(pilot)
        assert any("Kara: +6 Masterful Success" in n for n in notes(app))
        assert "#3 Kara: 4d2 +6 Masterful Success" in screen_text(app)
    rolls = saved(path).rolls
    assert len(rolls) == 1 and rolls[0].record.value == 6 and rolls[0].record.get("shift") == 2


async def test_roll_dialog_any_system(tmp_path: Path) -> None:
    """The session's system is preselected, every other one can be chosen; each form
    gives valid parameters and odds."""
    path, ids = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    app = make_app(path, rng=random.Random(1))
    async with run(app, size=LARGE) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.system == "4d6"
        for system in ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6"):
            dlg.last_odds = None
            dlg.query_one("#rd-system", Choice).value = system
            odds = await odds_ready(pilot, dlg)
            assert odds is not None and odds.system == system, dlg.last_error
            assert abs(sum(float(p) for _, p in odds.distribution) + float(odds.tail) - 1) < 1e-9
        dlg.last_odds = None
        dlg.query_one("#p-dc", Input).value = "Difficult"
        odds = await odds_ready(pilot, dlg)
        assert [label for label, _ in odds.outcomes][0] == "Critical Success"
        await press(pilot, "enter")
        await settle(pilot)
    rolls = saved(path).rolls
    assert rolls[0].record.system == "4d6" and rolls[0].record.get("dc") == 18


async def test_log_breakdown_copy_and_filter(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}, {"name": "Bruno"}])
    with Session.open(path) as s:
        from gmdesk.core.systems import four_d_two, fudge

        rng = random.Random(5)
        s.roll("4d2", four_d_two.Params(), actor=ids["Kara"], rng=rng)
        s.roll("fudge", fudge.Params(trait=1), actor=ids["Bruno"], rng=rng)
        s.roll("4d2", four_d_two.Params(), actor=ids["Bruno"], rng=rng)
    app = make_app(path)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        log = screen.rolllog
        log.focus()
        await press(pilot, "up")
        assert log.current_entry.record.system == "fudge"
        await press(pilot, "enter")
        await dialog(pilot, RollDetails)
        body = screen_text(app)
        assert "Bruno" in body and "fudge" in body and "dice:" in body
        await press(pilot, "y")
        assert copied and copied[-1].startswith("#4 Bruno: fudge +0 Good")
        await press(pilot, "escape")
        await settle(pilot)

        async def filter_by(label: str) -> None:
            await press(pilot, "f")
            choice = await dialog(pilot, ChoiceDialog)
            choice.query_one(OptionList).highlighted = [lbl for _, lbl in choice.choices].index(label)
            await press(pilot, "enter")
            await settle(pilot)

        await filter_by("Character: Kara")
        assert log.count == 1 and log.visible_lines()[0].startswith("#3 Kara")
        await filter_by("System: 4d2")
        assert log.count == 2
        assert "Rolls [4d2] 2/3" in screen_text(app)
        await filter_by("Everything")
        assert log.count == 3


async def test_roll_log_is_lazy_with_thousands_of_rolls(tmp_path: Path) -> None:
    """A long log only renders its window, and a new roll only indexes itself."""
    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    from gmdesk.core.session.storage import EventLog
    from gmdesk.core.systems import four_d_two

    rng = random.Random(9)
    docs = []
    for _ in range(5000):
        rec = four_d_two.roll(four_d_two.Params(), rng)
        docs.append(
            {
                "type": "roll",
                "record": rec.to_json(),
                "actor": ids["Kara"],
                "target": None,
                "combat": False,
                "summary": "roll",
                "time": "2026-01-01T00:00:00+00:00",
            }
        )
    log = EventLog.open(path)
    log.append_many(docs)
    log.close()
    app = make_app(path, rng=FixedDice([6, 6, 1, 1]))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        rolllog = screen.rolllog
        assert rolllog.count == 5000
        rendered: list[int] = []
        original = rolllog.render_line

        def spy(y: int):  # count what is drawn
            rendered.append(y)
            return original(y)

        rolllog.render_line = spy  # type: ignore[method-assign]
        rolllog.refresh()
        await pilot.pause()
        assert 0 < len(rendered) <= rolllog.size.height * 2
        view_before = rolllog._view
        await press(pilot, "r")
        await dialog(pilot, RollDialog)
        await press(pilot, "enter")
        await settle(pilot)
        assert rolllog.count == 5001 and rolllog._view is view_before  # extended, not rebuilt
        assert rolllog.visible_lines()[-1].startswith("#5002 Kara: 4d2 +10 Immaculate Success")


async def test_help_and_command_palette(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "torg-2d10", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "question_mark")
        help_screen = await dialog(pilot, HelpScreen)
        keys = {what: key for key, what in help_screen.keys}
        assert keys["Roll any system, with live odds"] == "r"
        assert keys["Next turn"] == "n" and keys["Undo"] == "u" and keys["Redo"] == "U / ^y"
        assert "q" in keys["Quit"] and keys["Help"] == "?"
        assert "Roll any system" in screen_text(app) and "The current combatant attacks" in screen_text(app)
        await press(pilot, "escape")
        await settle(pilot)
        titles = [t for t, _, _ in screen.commands()] + [t for t, _, _ in app.app_commands()]
        # the session's system's moves, as its module declares them, and the desk's
        for wanted in (
            "Spend a Possibility",
            "Cancel a Possibility…",
            "Buy off damage…",
            "Toggle Up",
            "Toggle Stymied",
            "Toggle Disconnected",
            "Undo",
            "Redo",
            "Quit",
        ):
            assert wanted in titles
        # another system's moves are not offered in a torg session
        assert not {"Healing…", "New day…", "Add clock…", "Tick clock…", "Folded roll…"} & set(titles)
        # the palette runs them: Toggle Up on the selected character
        await palette(pilot, "Toggle Up")
        assert "UP" in screen_text(app)
    assert [c.name for c in next(iter(saved(path).characters.values())).conditions] == ["Up"]


async def test_keys_can_be_remapped_by_binding_id(tmp_path: Path) -> None:
    path, _ = make_save(
        tmp_path, characters=[{"name": "Kara"}, {"name": "Bruno"}], initiative={"Kara": 5, "Bruno": 3}, start=True
    )
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        app.set_keymap({"main.next_turn": "j"})
        await press(pilot, "j")
        await settle(pilot)
        assert "▶ Bruno's turn" in screen_text(app)
    assert saved(path).encounter.turn == 1


async def test_readonly_app_changes_nothing(tmp_path: Path) -> None:
    path, _ = make_save(
        tmp_path, characters=[{"name": "Kara"}, {"name": "Bruno"}], initiative={"Kara": 5, "Bruno": 3}, start=True
    )
    before = path.read_bytes()
    app = make_app(path, readonly=True)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        assert "READ-ONLY" in screen_text(app)
        await press(pilot, "n")
        await settle(pilot)
        assert any("read-only" in n for n in notes(app))
    assert path.read_bytes() == before


async def test_a_locked_save_is_refused_with_who_holds_it(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, characters=[{"name": "Kara"}])
    holder = Session.open(path)
    try:
        app = make_app(path)
        async with run(app, size=SMALL) as pilot:
            # said on the picker's status line, with an offer to open it read-only
            await until(pilot, lambda: isinstance(app.screen, ConfirmDialog) and "Open read-only" in screen_text(app))
            message = screen_text(app)
            assert "is open in another gmdesk" in message and f"pid {__import__('os').getpid()}" in message
            assert not any(isinstance(s, MainScreen) for s in app.screen_stack)
    finally:
        holder.close()


async def test_terminal_too_small_notice(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, characters=[{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=(50, 14)) as pilot:
        await until(pilot, lambda: "Terminal too small" in screen_text(app))


async def test_picker_opens_a_session_and_back(tmp_path: Path) -> None:
    from gmdesk.tui.screens.picker import PickerScreen

    path, ids = make_save(tmp_path, characters=[{"name": "Kara"}], initiative={"Kara": 3}, start=True)
    app = GmdeskApp(path.parent, rng=random.Random(1))
    async with run(app, size=SMALL) as pilot:
        picker = await dialog(pilot, PickerScreen)
        await until(pilot, lambda: picker.loaded)
        await press(pilot, "enter")
        screen = await main_screen(pilot)
        assert screen.session.path == path
        assert "Table · 4d2 · Round 1 · ▶ Kara's turn" in screen_text(app)
        app.action_back_to_picker()
        # the new picker mounts, then lists the sessions once the session is closed:
        # wait for its list (not only for it to be on top), so nothing is left under
        # way when the app ends
        back = await dialog(pilot, PickerScreen)
        await until(pilot, lambda: back.loaded)
        await settle(pilot)
        assert app.session is None
        assert "Table" in screen_text(app)
    # the lock is released: another writer can open it
    with Session.open(path):
        pass


async def test_encounter_order_edits(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        characters=[{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}, {"name": "Cid"}],
        initiative={"Kara": 12, "Bruno": 8},
    )
    app = make_app(path)

    def order() -> list[str]:
        state = saved(path)
        return [f"{state.characters[c.char_id].name} {c.initiative}" for c in state.encounter.order]

    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        assert "Not started" in screen_text(app)
        await press(pilot, "down", "down")  # Cid, listed after the combatants
        await settle(pilot)
        assert screen.selected == ids["Cid"]
        await press(pilot, "plus")
        await dialog(pilot, InputDialog)
        await press(pilot, "x", "enter")  # not a number: said inline, nothing changes
        await pilot.pause()
        assert "Initiative: must be a whole number" in screen_text(app)  # the field, by its label
        await press(pilot, "backspace", "7", "enter")
        await settle(pilot)
        assert order() == ["Kara 12", "Bruno 8", "Cid 7"]
        await press(pilot, "left_square_bracket")  # Cid moves up past Bruno
        await settle(pilot)
        assert order() == ["Kara 12", "Cid 7", "Bruno 8"]
        await press(pilot, "n")  # round 1: Kara acts
        await settle(pilot)
        assert screen.selected == ids["Kara"]  # the pane follows the turn
        await press(pilot, "d")  # Kara delays until after Cid: Cid's turn now
        await settle(pilot)
        assert "Kara delays until after Cid" in notes(app)[-1]
        assert "▶ Cid's turn" in screen_text(app)
        assert order() == ["Cid 7", "Kara 12", "Bruno 8"]
        await press(pilot, "R")  # new round
        await settle(pilot)
        assert "Round 2 · ▶ Cid" in screen_text(app)
        await press(pilot, "p")  # back to the end of round 1
        await settle(pilot)
        assert "Round 1 · ▶ Bruno" in screen_text(app)
        screen.initiative.select(ids["Bruno"])
        screen.selected = ids["Bruno"]
        await press(pilot, "minus")
        await settle(pilot)
        assert order() == ["Cid 7", "Kara 12"]
        # typed initiative for everyone: those in the order, then Bruno, who joins again
        await press(pilot, "i")
        form = await dialog(pilot, FormDialog)
        form.query_one("#form-v0", Input).value = "3"
        form.query_one("#form-v1", Input).value = "15"
        form.query_one("#form-v2", Input).value = "9"
        await press(pilot, "enter")
        await settle(pilot)
        assert order() == ["Kara 15", "Bruno 9", "Cid 3"]


async def test_sheet_values_and_uses_from_the_character_pane(tmp_path: Path) -> None:
    sheet = "Kara\nDescriptor        Default  Current\nFitness           +1       +1\nKnife (2)\n"
    path, ids = make_save(tmp_path, "1d6x4", [{"name": "Kara", "sheet": sheet}])
    app = make_app(path)
    async with run(app, size=LARGE) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        table = pane.query_one(CharacterTable)
        table.focus()
        kinds = [(r.kind, r.key) for r in pane.row_kinds]
        table.move_cursor(row=kinds.index(("sheet", 0)))
        await press(pilot, "enter")
        editor = pane.query_one("#character-editor", Input)
        editor.value = "+x"
        await press(pilot, "enter")
        await settle(pilot)
        assert "✗ value: must be a whole number" in str(pane.query_one("#character-message").render())
        editor.value = "-2"
        await press(pilot, "enter")
        await settle(pilot)
        table.move_cursor(row=kinds.index(("sheet", 1)))
        await press(pilot, "s")  # spend a use of the Knife
        await settle(pilot)
        assert "(1/2)" in screen_text(app)  # uses: current/default
    kara = saved(path).characters[ids["Kara"]]
    assert kara.sheet.value("Fitness") == -2
    assert kara.sheet.uses("Knife") == 1


async def test_log_hides_the_gm_secret_target_number(tmp_path: Path) -> None:
    """The log widget with ``hide_secrets`` (the players' view) never shows the 1d6x4
    target number; the GM's own log does."""
    from textual.app import App, ComposeResult

    from gmdesk.core.systems import one_d6_x4

    path, ids = make_save(tmp_path, "1d6x4", [{"name": "Kara"}])
    with Session.open(path) as s:
        s.roll("1d6x4", one_d6_x4.Params(bonus=2, target=17), actor=ids["Kara"], rng=FixedDice([4]))
    state = saved(path)

    class Both(App):
        def compose(self) -> ComposeResult:
            yield RollLog(id="gm")
            yield RollLog(hide_secrets=True, id="players")

    app = Both()
    async with run(app, size=(100, 12)) as pilot:
        gm, players = app.query_one("#gm", RollLog), app.query_one("#players", RollLog)
        gm.set_state(state)
        players.set_state(state)
        await pilot.pause()
        assert "target 17" in gm.visible_lines()[0]
        assert "17" not in players.visible_lines()[0]
        assert players.visible_lines()[0].startswith("#2 Kara: 1d6x4 18 Success")


async def test_open_another_session_from_a_dialog_leaves_nothing_of_the_desk_behind(tmp_path: Path) -> None:
    """The palette's "Open another session…" chosen while a dialog is up over the desk
    (a roll's breakdown): the picker replaces the desk and its dialog, and the session
    opened from it is the only desk — Escape or `q` never lands on the closed one."""
    from gmdesk.tui.screens.picker import PickerScreen

    path, ids = make_save(tmp_path, characters=[{"name": "Kara"}], initiative={"Kara": 3}, start=True)
    with Session.open(path) as s:
        from gmdesk.core.systems import four_d_two

        s.roll("4d2", four_d_two.Params(), actor=ids["Kara"], rng=random.Random(5))
    app = GmdeskApp(path.parent, path, rng=random.Random(1))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        screen.rolllog.focus()
        await press(pilot, "enter")
        await dialog(pilot, RollDetails)
        await press(pilot, "ctrl+p", *"another", "enter")
        picker = await dialog(pilot, PickerScreen)
        await until(pilot, lambda: picker.loaded)
        assert [type(s).__name__ for s in app.screen_stack][1:] == ["PickerScreen"]
        await press(pilot, "enter")
        again = await main_screen(pilot)
        assert again is not screen and again.session.path == path
        assert [type(s).__name__ for s in app.screen_stack][1:] == ["MainScreen"]
