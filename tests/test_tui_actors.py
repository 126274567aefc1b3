"""Who can act and who is offered, through the real app at 80×24: the Unconscious and
the Dead get no turn and are not offered as rollers, the Dead not as targets, the
roller never as its own target; an attack's default target; unique names in the
new-character dialog; initiative rolled on joining is logged; one ``i`` offers every
character and numbers its rolls; fudge initiative with the session's method and
ladder names. Every test checks the screen and the saved session."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    SMALL,
    choices,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    on_top,
    press,
    run,
    saved,
    screen_text,
    settle,
)
from textual.widgets import Input

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.tui.screens.confirm import FormDialog, InputDialog
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.form import Choice

pytestmark = pytest.mark.usefixtures("quick_odds")

CAST = [
    {"name": "Kara"},
    {"name": "Bruno", "side": "NPC"},
    {"name": "Cid", "side": "NPC"},
    {"name": "Dee", "side": "NPC"},
]
ORDER = {"Kara": 10, "Bruno": 8, "Cid": 6, "Dee": 4}


def options(dlg: RollDialog, which: str) -> list[str]:
    return choices(dlg.query_one(f"#rd-{which}", Choice))


async def test_a_taken_name_is_refused_in_the_dialog_keeping_what_was_typed(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "torg-2d10", [{"name": "Gospog", "side": "NPC"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "c")
        form = await dialog(pilot, FormDialog)
        await press(pilot, *"gospog")
        form.query_one("#form-vitality", Input).value = "7"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is form  # still open
        error = str(form.query_one("#dialog-error").render())
        assert error == "✗ Name: 'Gospog' is already a character here; try 'gospog 2'"
        assert "'Gospog' is already a character" in screen_text(app)
        assert form.query_one("#form-name", Input).value == "gospog"
        assert form.query_one("#form-vitality", Input).value == "7"
        assert len(saved(path).characters) == 1
        form.query_one("#form-name", Input).value = "Gospog 2"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is not form
    state = saved(path)
    assert [(c.name, c.vitality_default) for c in state.characters.values()] == [("Gospog", 0), ("Gospog 2", 7)]


async def test_the_unconscious_and_the_dead_get_no_turn_and_no_roll(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d2", CAST, initiative=ORDER, start=True)
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Bruno"], "fields": {"vitality_current": -6}})
        s.apply({"type": "character.edit", "id": ids["Cid"], "fields": {"dead": True}})
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        text = screen_text(app)
        assert "UNC" in text and "DEAD" in text  # marked in the order
        await press(pilot, "n")  # Kara's turn ends: Bruno and Cid are passed over
        await settle(pilot)
        assert "Round 1 · ▶ Dee" in screen_text(app)
        assert "no turn: Bruno (Unconscious), Cid (Dead)" in notes(app)[-1]
        # the roll dialog offers neither as roller; the Dead not as target, nor the roller itself
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert options(dlg, "actor") == ["— nobody —", "Kara", "Dee"]
        assert options(dlg, "target") == ["— none —", "Kara", "Bruno"]
        await press(pilot, "escape")
        await settle(pilot)
        # the GM moves the turn back by hand onto Bruno: he cannot attack
        with_turn = saved(path).encounter.turn
        assert with_turn == 3
    with Session.open(path) as s:
        s.apply({"type": "encounter.move", "id": ids["Bruno"], "index": 3})  # Kara, Cid, Dee, Bruno
        s.apply({"type": "character.edit", "id": ids["Dee"], "fields": {"vitality_current": -6}})
        s.apply({"type": "turn.next"})  # Dee out too: round 2, Kara
        s.apply({"type": "character.edit", "id": ids["Kara"], "fields": {"vitality_current": -6}})
    n = len(saved(path).rolls)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        await settle(pilot)
        assert not on_top(app, RollDialog)
        assert notes(app)[-1] == "Kara is Unconscious and cannot act."
    assert len(saved(path).rolls) == n


async def test_the_attack_target_is_the_last_one_if_not_dead_else_the_next_standing_foe(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d2", CAST, initiative=ORDER, start=True)
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Bruno"], "fields": {"vitality_current": -6}})
    app = make_app(path, rng=FixedDice([1, 1, 1, 1] * 4))  # Number 0: ongoing combat, nobody hurt
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        # the GM has Cid selected: still, the target is Kara's next standing foe
        screen.initiative.select(ids["Kara"])
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.actor == ids["Kara"]
        assert dlg.target == ids["Cid"]  # after Kara: Bruno is Unconscious, Cid stands
        assert "Kara" not in options(dlg, "target")
        # she attacks Dee instead
        dlg.query_one("#rd-target", Choice).value = ids["Dee"]
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        assert saved(path).rolls[-1].target == ids["Dee"]
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.target == ids["Dee"]  # her last target
        # another roller: the target follows (Cid's next standing foe is Kara), never Cid himself
        dlg.query_one("#rd-actor", Choice).value = ids["Cid"]
        await settle(pilot)
        assert dlg.target == ids["Kara"] and dlg.query_one("#rd-target", Choice).value == ids["Kara"]
        assert "Cid" not in options(dlg, "target") and "Kara" in options(dlg, "target")
        await press(pilot, "escape")
        await settle(pilot)
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Dee"], "fields": {"dead": True}})
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.target == ids["Cid"]  # Dee is Dead: the next standing foe
        assert "Dee" not in options(dlg, "target")


async def test_joining_rolls_a_logged_initiative_and_i_numbers_its_rolls(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "4d6", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}, {"name": "Cid"}], initiative={"Kara": 12}
    )
    # Bruno joins with 4d6 = 6 5 4 3 = 18; then i: Bruno 1 1 1 1 = 4, Kara 2 2 2 2 = 8, Cid 3 3 3 3 = 12
    app = make_app(path, rng=FixedDice([6, 5, 4, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        screen.initiative.select(ids["Bruno"])
        screen.selected = ids["Bruno"]
        await press(pilot, "plus")
        await dialog(pilot, InputDialog)
        await press(pilot, "enter")  # empty: rolled
        await settle(pilot)
        state = saved(path)
        entry = state.rolls[-1]
        assert (entry.kind, entry.actor, entry.record.value) == ("initiative", ids["Bruno"], 18)
        assert [d.value for d in entry.record.dice] == [6, 5, 4, 3]
        seq = entry.seq
        assert f"#{seq} Bruno: 4d6 18" in screen_text(app)
        # i offers every character: Cid, not in the encounter yet, joins
        await press(pilot, "i")
        form = await dialog(pilot, FormDialog)
        labels = [" ".join(f.label.split()) for f in form.fields if f.key.startswith("m")]  # (names in a column)
        assert labels == ["Bruno mod", "Kara mod", "Cid + mod"]
        await press(pilot, "enter")
        await settle(pilot)
        text = screen_text(app)
        for k, (name, value) in enumerate((("Bruno", 4), ("Kara", 8), ("Cid", 12)), 1):
            assert f"#{seq + 1}.{k} {name}: 4d6 {value}" in text
    state = saved(path)
    assert [(state.characters[c.char_id].name, c.initiative) for c in state.encounter.order] == [
        ("Cid", 12),
        ("Kara", 8),
        ("Bruno", 4),
    ]


async def test_fudge_initiative_with_the_sessions_method_and_ladder_names(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "fudge", [{"name": "Aldric"}, {"name": "Bandit", "side": "NPC"}])
    with Session.open(path) as s:
        s.apply({"type": "session.settings", "changes": {"fudge_method": "d20-open"}})
    # Aldric: d20 = 14 → +1, on Good (+1) → +2; Bandit typed "Poor" (−2)
    app = make_app(path, rng=FixedDice([14]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "i")
        form = await dialog(pilot, FormDialog)
        assert "d20-open" in form.dialog_title
        form.query_one("#form-m0", Input).value = "Gud"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is form and "Aldric mod: must be a ladder level" in screen_text(app)
        form.query_one("#form-m0", Input).value = "Good"
        form.query_one("#form-v1", Input).value = "Poor"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is not form
    state = saved(path)
    assert [(state.characters[c.char_id].name, c.initiative) for c in state.encounter.order] == [
        ("Aldric", 2),
        ("Bandit", -2),
    ]
    assert state.rolls[-1].record.params["method"] == "d20-open"
