"""Rules through the real app at 80×24 (issue 7): the 4d6 DC default and clock
progress in the roll and tick dialogs, the torg buy-off of damage just taken."""

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
    palette,
    press,
    run,
    saved,
    screen_text,
    settle,
)
from textual.widgets import Input, OptionList

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.core.systems import get_system
from gmdesk.tui.screens.confirm import ChoiceDialog, FormDialog
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.form import Choice

pytestmark = pytest.mark.usefixtures("quick_odds")

TORG = get_system("torg-2d10")


async def test_4d6_roll_dialog_offers_dc_16_and_sends_progress_to_the_chosen_clock(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d6", [{"name": "Renna"}], initiative={"Renna": 12}, start=True)
    with Session.open(path) as s:
        s.apply({"type": "clock.add", "name": "Suspicion", "segments": 6})
        s.apply({"type": "clock.add", "name": "Reach the vault", "segments": 4})
    # 3 5 2 4 + 3 = 17 against the Standard DC: Full Success, Standard effect, 1 segment
    app = make_app(path, rng=FixedDice([3, 5, 2, 4]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        dc = dlg.query_one("#p-dc", Input)
        assert dc.value == "" and "16 Standard" in str(dc.placeholder)  # empty: the Standard DC
        clock = dlg.query_one("#p-clock", Choice)
        assert clock.value == ""  # none by default
        assert choices(clock) == ["— none —", "Suspicion", "Reach the vault"]
        dlg.query_one("#p-bonus", Input).value = "3"
        clock.value = "Reach the vault"
        await pilot.pause()
        await press(pilot, "enter")
        await settle(pilot)
        assert "Full Success" in notes(app)[-1]
        assert "vault 1/4" in screen_text(app)
    state = saved(path)
    assert (state.clocks["Reach the vault"].halves, state.clocks["Suspicion"].halves) == (2, 0)
    assert state.rolls[-1].record.get("dc") == 16 and state.rolls[-1].clock == "Reach the vault"


async def test_4d6_contest_in_the_dialog_drops_the_dc(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d6", [{"name": "Renna"}], initiative={"Renna": 12}, start=True)
    app = make_app(path, rng=FixedDice([1, 1, 1, 1, 2, 2, 2, 2]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-bonus", Input).value = "20"
        dlg.query_one("#p-vs_bonus", Input).value = "0"
        await pilot.pause()
        assert dlg.last_error == ""
        await press(pilot, "enter")
        await settle(pilot)
    rec = saved(path).rolls[-1].record
    assert (rec.get("dc"), rec.outcome) == (None, "Critical Failure (all 1s)")


async def test_tick_dialog_offers_the_last_rolls_progress(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d6", [{"name": "Renna"}], initiative={"Renna": 12}, start=True)
    with Session.open(path) as s:
        s.apply({"type": "clock.add", "name": "Suspicion", "segments": 6})
    # 6 6 5 4 + 0 = 21: Critical Success at Standard effect → Great: 2 segments (4 halves)
    app = make_app(path, rng=FixedDice([6, 6, 5, 4]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        await dialog(pilot, RollDialog)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "k")
        form = await dialog(pilot, FormDialog)
        assert form.query_one("#form-halves", Input).value == "4"
        assert "From roll #" in screen_text(app) and "Critical Success" in screen_text(app)
        await press(pilot, "enter")
        await settle(pilot)
        assert "Suspicion 2/6" in screen_text(app)
        # the progress is taken: the next tick offers the usual one segment
        await press(pilot, "k")
        form = await dialog(pilot, FormDialog)
        assert form.query_one("#form-halves", Input).value == "2"
        await press(pilot, "escape")
    state = saved(path)
    assert state.clocks["Suspicion"].halves == 4 and state.rolls[-1].clock == "Suspicion"


async def test_buyoff_defaults_to_the_damage_just_taken(tmp_path: Path) -> None:
    chars = [{"name": "Kara", "reality_rated": True, "possibilities": 2}, {"name": "Thug", "side": "NPC"}]
    path, ids = make_save(tmp_path, "torg-2d10", chars, initiative={"Kara": 10, "Thug": 5}, start=True)
    kara, thug = ids["Kara"], ids["Thug"]
    with Session.open(path) as s:
        p = TORG.Params(skill=10, difficulty=10)
        s.roll("torg-2d10", p, actor=thug, target=kara, combat=True, rng=FixedDice([3, 5]))  # Stun-row wound
        s.apply({"type": "round.new"})
        s.roll("torg-2d10", p, actor=kara, target=thug, combat=True, rng=FixedDice([1, 2]))  # a miss
        s.roll("torg-2d10", p, actor=thug, target=kara, combat=True, rng=FixedDice([7, 8]))
        first, latest = [w.text for w in s.state.characters[kara].wounds]
        first_seq = s.state.characters[kara].wounds[0].roll_seq
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        assert screen.selected == kara
        await palette(pilot, "Buy off damage")
        dlg = await dialog(pilot, ChoiceDialog)
        options = dlg.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert labels[0].startswith(f"{latest} — latest, this round, the last roll")
        assert labels[1].startswith(f"{first} — round 1, 2 rolls ago")
        assert options.highlighted == 0
        await press(pilot, "enter")
        await settle(pilot)
    c = saved(path).characters[kara]
    assert [w.roll_seq for w in c.wounds] == [first_seq] and c.possibilities == 1


PIP = """Pip, a halfling
Descriptor        Default  Current
Precision         +1
Vitality          +3
Magic Ability     +2 (5)
  *Turn Invisible    (1)
"""


async def test_1d6x4_dialog_fails_a_missing_item_and_spends_a_named_use(tmp_path: Path) -> None:
    # Wren's sheet lists a Slingshot: a Physical Item of the session, which Pip lacks
    wren = {"name": "Wren", "sheet": "Wren\nDescriptor  Default  Current\nSlingshot  +4\n"}
    path, ids = make_save(tmp_path, "1d6x4", [{"name": "Pip", "sheet": PIP}, wren], initiative={"Pip": 12}, start=True)
    app = make_app(path, rng=FixedDice([4]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-test", Input).value = "Precision, Slingshot"
        dlg.query_one("#p-target", Input).value = "10"
        await pilot.pause()
        assert "Automatic failure: Slingshot is missing" in str(dlg.query_one("#rd-info").render())
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-test", Input).value = "Magic Ability/Turn Invisible"
        assert dlg.query_one("#p-target", Input).value == ""  # the GM's secret number: one Test's
        dlg.query_one("#p-target", Input).value = "10"
        await pilot.pause()
        assert "Spends a use of Magic Ability/Turn Invisible" in str(dlg.query_one("#rd-info").render())
        await press(pilot, "enter")
        await settle(pilot)
        assert "Magic Ability (5) → (4)" in notes(app)[-1]
    state = saved(path)
    first, second = state.rolls[-2].record, state.rolls[-1].record
    assert (first.outcome, first.dice) == ("Automatic failure: Slingshot is missing", ())
    assert second.outcome == "Success"  # 4 × 4 + 0 = 16 ≥ 10
    sheet = state.characters[ids["Pip"]].sheet
    assert (sheet.uses("Magic Ability"), sheet.uses("Magic Ability/Turn Invisible")) == (4, 0)
