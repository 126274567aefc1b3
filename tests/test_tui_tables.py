"""A GM's own table at the desk, at 80×24: "Use a table file…" from the palette puts
it in force for a role chosen by its words, a bad file is refused in the dialog
under the field's label, the rolls after it use it and those before keep what they
rolled, ``u`` takes it back, and the session settings say which tables are the
GM's own. Pilot drives the real app; each step is checked on the screen and in the save."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    SMALL,
    choices,
    dialog,
    dialog_error,
    main_screen,
    make_app,
    make_save,
    notes,
    odds_ready,
    palette,
    press,
    run,
    saved,
    screen_text,
    settle,
)
from textual.widgets import Input

from gmdesk.core.dice import FixedDice
from gmdesk.tui.screens.confirm import ChoiceDialog, FormDialog
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.screens.settings import SettingsDialog
from gmdesk.tui.widgets.controls import StepSelect

pytestmark = pytest.mark.usefixtures("quick_odds")

GRIM = {
    "name": "grim",
    "title": "Grim wounds",
    "columns": ["organic", "inorganic"],
    "rows": {str(k): ["Grim", "Grim metal"] for k in range(-10, 11)},
}


async def _attack(pilot) -> None:
    await press(pilot, "a")
    await dialog(pilot, RollDialog)
    await press(pilot, "enter")
    await settle(pilot)


def _wounds(path: Path, cid: str) -> list[str]:
    return [w.text for w in saved(path).characters[cid].wounds]


async def _use_table_file(pilot, file: Path) -> FormDialog:
    await palette(pilot, "Use a table file…")
    dlg = await dialog(pilot, FormDialog)
    assert dlg.dialog_title == "Use a table file"
    dlg.query_one("#form-file", Input).value = str(file)
    await pilot.pause()
    return dlg


async def test_a_table_file_from_the_palette_rolls_and_undoes(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "4d2", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}], initiative={"Kara": 10, "Bruno": 4}
    )
    from gmdesk.core.session import Session

    with Session.open(path) as s:
        s.apply({"type": "turn.next"})
    grim = tmp_path / "grim.json"
    grim.write_text(json.dumps(GRIM))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    # every attack: positive pair 5 4, negative pair 2 1: Number +6 (Severe Wound on the built-in table)
    app = make_app(path, rng=FixedDice([5, 4, 2, 1] * 4))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await _attack(pilot)  # before: the built-in Combat table
        assert _wounds(path, ids["Bruno"]) == ["Severe Wound"]

        # a bad file: refused in the dialog, in the field's words; nothing saved
        events = len(saved(path).rolls), saved(path).info.settings.get("tables")
        dlg = await _use_table_file(pilot, bad)
        role = dlg.query_one("#form-role", StepSelect)
        assert choices(role) == [
            "Outcome table",
            "Combat table",
            "Maneuver table",
            "Wound statuses (Unconscious, Dead)",
        ]
        await press(pilot, "enter")
        assert app.screen is dlg
        assert dialog_error(dlg).startswith("✗ Table file: ") and "bad.json: not valid JSON" in dialog_error(dlg)
        assert (len(saved(path).rolls), saved(path).info.settings.get("tables")) == events

        # the right file, for the Combat table chosen by keys
        dlg.query_one("#form-file", Input).value = str(grim)
        await press(pilot, "tab", "right")
        assert role.value == "combat"
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, FormDialog)
        assert "Combat table: built-in → own table 'Grim wounds' — u to undo" in notes(app)[-1]
        assert saved(path).info.settings["tables"]["combat"]["title"] == "Grim wounds"
        grim.unlink()  # the session keeps the table itself

        # the session settings say which tables are the GM's own
        await palette(pilot, "Session settings…")
        await dialog(pilot, SettingsDialog)
        assert "Own tables: Combat table — 'Grim wounds'; the others built-in" in screen_text(app)
        await press(pilot, "escape")

        await _attack(pilot)  # after: the GM's own table
        assert _wounds(path, ids["Bruno"]) == ["Severe Wound", "Grim"]
        assert "Kara → Bruno: 4d2 +6 Masterful Success → Grim [" in screen_text(app)
        assert "Kara → Bruno: 4d2 +6 Masterful Success → Severe Wound [" in screen_text(app)

        await press(pilot, "u")  # the attack
        await press(pilot, "u")  # the table
        assert notes(app)[-1].startswith("Undone: Settings changed: Combat table"), notes(app)[-1]
        assert saved(path).info.settings.get("tables") == {}
        await _attack(pilot)  # the built-in table again
        assert _wounds(path, ids["Bruno"]) == ["Severe Wound", "Severe Wound"]


async def test_back_to_the_built_in_table_from_the_palette(tmp_path: Path) -> None:
    path, _ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    from gmdesk.core.session import Session
    from gmdesk.core.session.events import table_change
    from gmdesk.core.tables import parse_table

    with Session.open(path) as s:
        s.apply(table_change(s.state.info.settings, "combat", parse_table(GRIM)))
    grim = tmp_path / "grim.json"
    grim.write_text(json.dumps(GRIM))
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        # the same table again: said in the dialog, nothing saved
        dlg = await _use_table_file(pilot, grim)
        assert choices(dlg.query_one("#form-role", StepSelect))[1] == "Combat table (own table 'Grim wounds')"
        await press(pilot, "tab", "right", "ctrl+s")
        assert app.screen is dlg and dialog_error(dlg) == "✗ Table file: this table is the Combat table already"
        await press(pilot, "escape")
        assert len(saved(path).info.settings["tables"]) == 1
        await palette(pilot, "Back to the built-in table")
        choice = await dialog(pilot, ChoiceDialog)
        assert choice.choices == [("combat", "Combat table — own table 'Grim wounds'")]
        assert "Combat table — own table 'Grim wounds'" in screen_text(app)
        await press(pilot, "enter")
        await settle(pilot)
        assert "Combat table: own table 'Grim wounds' → built-in" in notes(app)[-1]
        assert saved(path).info.settings["tables"] == {}
        await press(pilot, "u")
        assert saved(path).info.settings["tables"]["combat"]["name"] == "grim"


async def test_the_roll_dialogs_odds_and_outcome_read_the_sessions_own_table(tmp_path: Path) -> None:
    """The roll dialog's odds name the outcomes of the GM's own Outcome table, and
    the roll's outcome is read from it."""
    from gmdesk.core.session import Session
    from gmdesk.core.session.events import table_change
    from gmdesk.core.tables import load_builtin, parse_table

    path, _ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    house = load_builtin("4d2-outcomes").to_json()
    house = {**house, "name": "house", "rows": {k: [f"House {v[0]}"] for k, v in house["rows"].items()}}
    with Session.open(path) as s:
        s.apply(table_change(s.state.info.settings, "outcomes", parse_table(house)))
    app = make_app(path, rng=FixedDice([5, 4, 2, 1]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        odds = await odds_ready(pilot, dlg)
        assert odds.outcomes and all(name.startswith("House ") for name, _p in odds.outcomes), odds.outcomes
        assert "House Solid Success     9.65%" in screen_text(app)
        await press(pilot, "enter")
        await settle(pilot)
        assert saved(path).rolls[-1].record.outcome == "House Masterful Success"
        assert "House Masterful Success" in screen_text(app)
