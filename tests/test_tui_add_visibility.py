"""What the players see of a character, chosen where the GM adds it at the desk, at
80×24 and keys only: the new-character dialog and "Add from bestiary" each have a
"Players see" choice (by side unless chosen), saved in the one event that adds the
character(s); "by side" leaves the side's default."""

from __future__ import annotations

from pathlib import Path

from helpers import (
    SMALL,
    burst,
    dialog,
    main_screen,
    make_app,
    make_save,
    press,
    run,
    saved,
    screen_text,
    settle,
    until,
)
from test_tui_bestiary import SYSTEM, open_dialog, stock

from gmdesk.tui.screens.bestiary import BestiaryDialog
from gmdesk.tui.screens.confirm import FormDialog


async def test_the_new_character_dialog_sets_what_the_players_see_in_the_one_event(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "c")
        form = await dialog(pilot, FormDialog)
        assert "Players see" in screen_text(app) and "by side" in screen_text(app)  # in the dialog at 80×24
        await burst(pilot, "Kara")
        form.query_one("#form-visibility").focus()
        await press(pilot, "right", "right")  # by side → name only → name and wounds
        await settle(pilot)
        assert "name and wounds" in screen_text(app)
        await press(pilot, "shift+tab", "enter")  # back to the last checkbox: Enter adds
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        await press(pilot, "c")
        await dialog(pilot, FormDialog)
        await burst(pilot, "Bruno")
        await press(pilot, "enter")  # left at "by side"
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        await settle(pilot)
    state = saved(path)
    by_name = {c.name: c for c in state.characters.values()}
    assert by_name["Kara"].visibility == "wounds" and by_name["Kara"].seen == "wounds"  # a PC: not its default
    assert by_name["Bruno"].visibility is None and by_name["Bruno"].seen == "all"  # its side's default
    added = [e for e in state_events(path) if e["type"] == "character.add"]
    assert len(added) == 2 and added[0]["character"]["visibility"] == "wounds"


async def test_add_from_bestiary_sets_what_the_players_see_of_each_copy(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, SYSTEM)
    stock(path.parent)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        dlg = await open_dialog(pilot)
        assert "Players see" in screen_text(app) and "by side" in screen_text(app)
        await burst(pilot, "bandit")
        await press(pilot, "tab", "tab")  # the list, the count
        await press(pilot, "backspace")
        await burst(pilot, "2")
        await press(pilot, "tab", "tab", "tab")  # hidden, one group, players see
        await press(pilot, "right")  # by side → name only
        await settle(pilot)
        assert "name only" in screen_text(app)
        await press(pilot, "shift+tab", "enter")  # "One group": Enter adds
        await until(pilot, lambda: not isinstance(app.screen, BestiaryDialog))
        await settle(pilot)
        assert dlg is not None
    state = saved(path)
    assert sorted((c.name, c.visibility, c.seen) for c in state.characters.values()) == [
        ("Bandit 1", "name", "name"),
        ("Bandit 2", "name", "name"),
    ]
    assert [e["type"] for e in state_events(path)].count("characters.add") == 1


def state_events(path: Path) -> list[dict]:
    """The session's event documents, in order."""
    from gmdesk.core.session.storage.eventlog import EventLog

    with EventLog.open(path, readonly=True) as log:
        return [doc for _, doc in log.events()]


def test_the_cli_add_from_sets_what_the_players_see_of_each_copy_and_refuses_another_word(capsys, saves) -> None:
    from helpers import gmdesk_cli, one_error_line

    from gmdesk.core.session import Session, SessionStore

    path = SessionStore(saves).create("Night 1", "torg-2d10")
    rc, _out, err = gmdesk_cli(
        capsys, saves, "char", "Night 1", "add-from", "Gospog", "--count", "2", "--visibility", "name"
    )
    assert rc == 0, err
    with Session.open(path, readonly=True) as s:
        assert [(c.name, c.seen) for c in s.state.characters.values()] == [("Gospog 1", "name"), ("Gospog 2", "name")]
        assert len(list(s.events)) == 1
    rc, _out, err = gmdesk_cli(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--visibility", "most")
    assert rc == 2
    one_error_line(err)
    with Session.open(path, readonly=True) as s:
        assert len(s.state.characters) == 2  # nothing saved


async def test_a_stat_block_with_its_own_level_says_so_and_a_choice_overrides_it(tmp_path: Path) -> None:
    from gmdesk.core.campaign.bestiary import Bestiary
    from gmdesk.core.campaign.statblock import StatBlock

    path, _ = make_save(tmp_path, SYSTEM)
    Bestiary(path.parent).add_many(
        [StatBlock("Shade", SYSTEM, vitality=4, visibility="name"), StatBlock("Wisp", SYSTEM, vitality=2)]
    )
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await open_dialog(pilot)
        assert "name only (stat block)" in screen_text(app)  # Shade, listed first
        await burst(pilot, "wisp")
        await settle(pilot)
        assert "by side" in screen_text(app) and "(stat block)" not in screen_text(app)
        await press(pilot, *["backspace"] * 4)
        await burst(pilot, "shade")
        await press(pilot, "enter")  # the stat block's own level
        await until(pilot, lambda: not isinstance(app.screen, BestiaryDialog))
        await press(pilot, "B")
        dlg = await dialog(pilot, BestiaryDialog)
        await until(pilot, lambda: dlg.loaded is not None)
        await settle(pilot)
        await burst(pilot, "shade")
        await press(pilot, "tab", "tab", "tab", "tab", "tab")  # the list, count, hidden, one group, players see
        await press(pilot, "right", "right", "right")  # → all
        await press(pilot, "shift+tab", "enter")
        await until(pilot, lambda: not isinstance(app.screen, BestiaryDialog))
        await settle(pilot)
    state = saved(path)
    assert sorted((c.name, c.seen) for c in state.characters.values()) == [("Shade", "name"), ("Shade 2", "all")]
