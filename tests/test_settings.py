"""Session settings (core.session.settings): set in the desk's "Session settings"
dialog (generated from the declaration), with ``gmdesk new … --setting KEY=VALUE``,
shown in the desk's help; a change is a ``session.settings`` event, undoable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
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
)
from textual.widgets import Checkbox, Input, Select

from gmdesk.cli.main import main
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.settings import SettingError, declared, parse_assignment
from gmdesk.tui.screens.help import HelpScreen
from gmdesk.tui.screens.settings import SettingsDialog

pytestmark = pytest.mark.usefixtures("quick_odds")


def test_the_declaration_parses_and_refuses_in_the_gms_words():
    # each system's own (declared by it, in the systems' order), then the session's
    assert [(s.key, s.system) for s in declared()] == [
        ("skill_threshold", "4d2"),
        ("fudge_method", "fudge"),
        ("ord_positive_reroll", "torg-2d10"),
        ("reroll_initiative", ""),
        ("initiative_ties", ""),
    ]
    assert parse_assignment("skill_threshold=8") == ("skill_threshold", 8)
    assert parse_assignment("ord_positive_reroll=off") == ("ord_positive_reroll", False)
    assert parse_assignment("Dice method=D20-open") == ("fudge_method", "d20-open")
    with pytest.raises(SettingError, match=r"Skill chance threshold \(4d2\) must be a whole number from 1 to 11"):
        parse_assignment("skill_threshold=12")
    with pytest.raises(SettingError, match="unknown setting 'luck'"):
        parse_assignment("luck=7")


def test_new_with_settings(tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GMDESK_SAVES", raising=False)
    saves = tmp_path / "saves"
    rc = main(
        [
            "--saves",
            str(saves),
            "new",
            "Mile",
            "--system",
            "fudge",
            "--setting",
            "fudge_method=d20-open",
            "--setting",
            "ord_positive_reroll=off",
        ]
    )
    out, err = capsys.readouterr()
    assert rc == 0 and "Dice method (fudge) d20-open" in out, err
    with Session.open(SessionStore(saves).resolve("Mile"), readonly=True) as s:
        assert s.state.info.settings["fudge_method"] == "d20-open"
        assert s.state.info.settings["ord_positive_reroll"] is False
    for bad, words in (
        (["fudge_method=d7"], ("Dice method (fudge)", "one of 2d3, custom")),
        (["skill_threshold=nine"], ("Skill chance threshold (4d2)", "whole number from 1 to 11")),
        (["luck=7"], ("unknown setting 'luck'", "skill_threshold")),
        (["skill_threshold"], ("KEY=VALUE",)),
    ):
        rc = main(["--saves", str(saves), "new", "Other", "--setting", *bad])
        out, err = capsys.readouterr()
        assert rc == 2 and out == "" and err.count("\n") == 1 and err.startswith("gmdesk"), err
        for w in words:
            assert w in err, (w, err)
    assert [x.name for x in SessionStore(saves).list()] == ["Mile"]  # nothing written for a refusal


async def test_settings_dialog_sets_undoably_and_help_shows_them(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await palette(pilot, "Session settings")
        dlg = await dialog(pilot, SettingsDialog)
        # one field per declared setting, the session's own system (4d2) first and focused
        assert dlg.focused is dlg.query_one("#setting-skill_threshold", Input)
        assert dlg.query_one("#setting-ord_positive_reroll", Checkbox).value is True
        assert dlg.query_one("#setting-fudge_method", Select).value == "2d3"
        assert "4d2: the unshifted Number" in screen_text(app)
        # a bad value is named by its label; the dialog stays open, nothing is saved
        dlg.query_one("#setting-skill_threshold", Input).value = "99"
        await press(pilot, "enter")
        assert app.screen is dlg
        error = str(dlg.query_one("#dialog-error").render())
        assert "Skill chance threshold (4d2) must be a whole number from 1 to 11" in error
        assert "Skill chance" in screen_text(app) and "whole number" in screen_text(app)
        dlg.query_one("#setting-skill_threshold", Input).value = "8"
        dlg.query_one("#setting-ord_positive_reroll", Checkbox).focus()
        await press(pilot, "space", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, SettingsDialog)
        assert "Skill chance threshold (4d2): 9 → 8" in notes(app)[-1]
        settings = saved(path).info.settings
        assert (settings["skill_threshold"], settings["ord_positive_reroll"]) == (8, False)
        # the desk's help lists the session's settings with their values
        await press(pilot, "question_mark")
        await dialog(pilot, HelpScreen)
        await pilot.pause()
        text = screen_text(app)
        assert "Session settings" in text and "Skill chance threshold (4d2)" in text
        assert any("Skill chance threshold (4d2)" in line and " 8 " in line for line in text.splitlines())
        await press(pilot, "escape")
        # the change is one event: u takes it back
        await press(pilot, "u")
        await settle(pilot)
    settings = saved(path).info.settings
    # a 4d2 session keeps its system's settings: another system's is back at its default
    assert (settings["skill_threshold"], settings.get("ord_positive_reroll", True)) == (9, True)
    with Session.open(path, readonly=True) as s:
        assert [e.type for e in s.events][-2:] == ["session.settings", "undo"]
