"""Every dialog the same way: Enter submits from any field (inputs, checkboxes,
dropdowns), a dropdown opens on Space / ↓, the hint line names the keys bound, the
focused field reads without colour (NO_COLOR too), and refusals name the field as the
dialog labels it and keep the dialog open with what was typed."""

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
    odds_ready,
    on_top,
    open_overlay,
    press,
    run,
    saved,
    screen_text,
    settle,
)
from rich.cells import cell_len
from rich.segment import Segment
from test_tui_combat import BRUNO_SHEET, KARA_SHEET, fighters
from textual.strip import Strip
from textual.widgets import Checkbox, Input, Select

from gmdesk.core.dice import FixedDice
from gmdesk.core.errors import ParamError
from gmdesk.core.session import EventError, Session
from gmdesk.tui.screens.confirm import FormDialog, InputDialog
from gmdesk.tui.screens.dialog import DialogHint, ui_message
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.form import Choice

pytestmark = pytest.mark.usefixtures("quick_odds")


def hint(screen: Any) -> str:
    return str(screen.query_one(DialogHint).render())


# --------------------------------------------------------------------------- 16: Enter


async def test_a_dropdown_of_a_form_opens_on_enter_and_steps_with_the_arrows(tmp_path: Path) -> None:
    """Issue 18: Enter on a closed dropdown opens it (Textual's own behaviour), ←/→
    step through its values in place, and Ctrl+S (named in the hint) heals."""
    path, ids = fighters("1d6x4", tmp_path, kara={"sheet": KARA_SHEET}, bruno={"sheet": BRUNO_SHEET})
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Bruno"], "fields": {"vitality_current": 1}})
    app = make_app(path, rng=FixedDice([1]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "h")
        form = await dialog(pilot, FormDialog)
        assert isinstance(form.focused, Select)  # the Healer dropdown
        text = hint(form)
        assert "Enter open list · ←→ change" in text and "Ctrl+S heal" in text and "Esc cancel" in text
        assert "Enter open list · ←→ change" in screen_text(app)
        await press(pilot, "tab")  # the Patient dropdown
        patient = form.query_one("#form-target", Select)
        await press(pilot, "enter")  # opens the list; nothing is healed
        assert patient.expanded and isinstance(app.screen, FormDialog)
        await press(pilot, "escape")
        assert not patient.expanded and isinstance(app.screen, FormDialog)
        before = patient.value
        await press(pilot, "right")  # the next patient, in place
        assert patient.value != before and not patient.expanded
        if patient.value != ids["Bruno"]:
            await press(pilot, "left", "left")
        assert patient.value == ids["Bruno"]
        assert saved(path).characters[ids["Bruno"]].vitality_current == 1
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, FormDialog)
        assert "Kara heals Bruno: Vitality 2/3" in notes(app)[-1]
    assert saved(path).characters[ids["Bruno"]].vitality_current == 2


async def test_a_dropdown_opens_on_enter_space_and_down_and_enter_picks_in_it(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path, rng=FixedDice([3, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        fold = dlg.query_one("#p-fold", Choice)
        fold.focus()
        await settle(pilot)
        assert "Enter open list · ←→ change · Ctrl+S roll" in hint(dlg)
        await press(pilot, "space")
        assert fold.expanded
        await press(pilot, "down", "enter")  # Enter picks in the open list; the dialog stays
        assert not fold.expanded and fold.value == "positive"
        assert on_top(app, RollDialog)
        await press(pilot, "down")
        assert fold.expanded
        await press(pilot, "escape")  # closes the list only
        assert on_top(app, RollDialog) and not fold.expanded
        await press(pilot, "enter")  # on the closed dropdown: opens it, rolls nothing
        assert fold.expanded and on_top(app, RollDialog)
        await press(pilot, "escape", "right")  # the next fold in place
        assert fold.value == "negative" and not fold.expanded
        await press(pilot, "right")  # the last one stays
        assert fold.value == "negative"
        await press(pilot, "left")
        assert fold.value == "positive"
        assert saved(path).rolls == []
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert not on_top(app, RollDialog)
    rolls = saved(path).rolls
    assert len(rolls) == 1 and rolls[0].record.params["fold"] == "positive"


async def test_enter_on_a_checkbox_rolls_and_space_toggles_it(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path, rng=FixedDice([3, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        box = dlg.query_one("#p-maneuver", Checkbox)
        box.focus()
        await settle(pilot)
        assert "Space toggle" in hint(dlg) and "Enter roll" in hint(dlg)
        await press(pilot, "space")
        assert box.value
        await press(pilot, "enter")
        await settle(pilot)
        assert not on_top(app, RollDialog)
    assert saved(path).rolls[0].record.params["maneuver"] is True


async def test_the_hint_names_the_keys_of_the_keymap(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"dialog.submit" = "ctrl+o"\n"dialog.cancel" = "ctrl+g"\n')
    path, _ = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "K")  # add a clock
        form = await dialog(pilot, FormDialog)
        assert "Ctrl+O add" in hint(form) and "Ctrl+G cancel" in hint(form)
        assert "Enter" not in hint(form) and "Esc" not in hint(form)
        await press(pilot, *"Doom", "ctrl+o")
        await settle(pilot)
        assert not isinstance(app.screen, FormDialog)
    assert "Doom" in saved(path).clocks


# --------------------------------------------------------------- 18: errors name the field


def test_ui_message_names_fields_by_their_labels() -> None:
    labels = {"difficulty": "Difficulty", "bonus": "Extra bonus", "vs_bonus": "Defender bonus (two-way)"}
    err = ParamError("--difficulty", "--combat needs --difficulty (the target's defense value)")
    assert ui_message(err, labels) == "Difficulty: an attack needs Difficulty (the target's defense value)"
    assert (
        ui_message(ParamError("--bonus", "must be a whole number (got 'x')"), labels)
        == "Extra bonus: must be a whole number (got 'x')"
    )
    assert (
        ui_message(ParamError("--defender-takes-14", "needs --vs-bonus"), labels)
        == "defender takes 14: needs Defender bonus"
    )
    refused = EventError("Kara has no Possibility to spend", "possibility.spend")
    assert ui_message(refused) == "Kara has no Possibility to spend"
    assert (
        ui_message(EventError("halves: must not be 0", "clock.tick"), {"halves": "Half segments"})
        == "Half segments: must not be 0"
    )
    assert (
        ui_message(EventError("roll: no roll #4 in the log (or it was undone)", "possibility.spend"))
        == "no roll #4 in the log (or it was undone)"
    )


async def test_roll_dialog_errors_use_the_form_labels(tmp_path: Path) -> None:
    path, _ = make_save(
        tmp_path,
        "torg-2d10",
        [{"name": "Quin", "reality_rated": True, "possibilities": 2}, {"name": "Edeinos", "side": "NPC"}],
        initiative={"Quin": 9, "Edeinos": 3},
        start=True,
    )
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-skill", Input).value = "9"
        dlg.query_one("#p-difficulty", Input).value = ""
        await settle(pilot)
        await press(pilot, "enter")
        error = str(dlg.query_one("#rd-error").render())
        assert on_top(app, RollDialog)
        assert "Difficulty: an attack needs Difficulty" in error and "--" not in error
    path, _ = make_save(tmp_path / "b", "1d6x4", [{"name": "Kara", "sheet": KARA_SHEET}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-test", Input).value = "Fitness"
        dlg.query_one("#p-bonus", Input).value = "lots"
        await settle(pilot)
        error = str(dlg.query_one("#rd-error").render())
        assert error.startswith("✗ Extra bonus: must be a whole number") and "--" not in error


async def test_a_refused_clock_name_keeps_the_dialog_and_what_was_typed(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    with Session.open(path) as s:
        s.apply({"type": "clock.add", "name": "Alarm", "segments": 4})
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "K")
        form = await dialog(pilot, FormDialog)
        await press(pilot, *"Alarm", "tab")
        form.query_one("#form-segments", Input).value = "6"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is form
        assert "already a clock named 'Alarm'" in str(form.query_one("#dialog-error").render())
        assert form.query_one("#form-name", Input).value == "Alarm"
        assert form.query_one("#form-segments", Input).value == "6"
        assert not any("clock.add" in n for n in notes(app))
        form.query_one("#form-segments", Input).value = "x"
        await press(pilot, "enter")
        assert "Segments: must be a whole number" in str(form.query_one("#dialog-error").render())
        form.query_one("#form-name", Input).value = "Alarm 2"
        form.query_one("#form-segments", Input).value = "6"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is not form
    clocks = saved(path).clocks
    assert clocks["Alarm"].segments == 4 and clocks["Alarm 2"].segments == 6


async def test_a_refused_heal_stays_in_the_dialog_without_the_event_type(tmp_path: Path) -> None:
    path, ids = fighters("1d6x4", tmp_path, bruno={"sheet": BRUNO_SHEET})  # Kara has no sheet
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "h")
        form = await dialog(pilot, FormDialog)
        form.query_one("#form-healer", Select).value = ids["Kara"]
        await press(pilot, "ctrl+s")  # (Enter on the dropdown opens it)
        await settle(pilot)
        assert app.screen is form
        error = str(form.query_one("#dialog-error").render())
        assert "Kara has no Healing Ability" in error and "heal:" not in error
    assert not saved(path).rolls


async def test_notifications_never_show_the_event_type(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "torg-2d10", [{"name": "Ord"}])
    with Session.open(path) as s:
        from gmdesk.core.systems import torg_2d10

        s.roll("torg-2d10", torg_2d10.Params(skill=8, difficulty=10), actor=ids["Ord"], rng=FixedDice([5, 5]))
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "P")
        await settle(pilot)
        said = notes(app)[-1]
        assert "Ord is not reality-rated" in said and "possibility.spend" not in said


async def test_a_join_with_a_bad_initiative_keeps_the_dialog(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "+")
        box = await dialog(pilot, InputDialog)
        await press(pilot, *"ten", "enter")
        assert app.screen is box
        assert "initiative: must be a whole number" in str(box.query_one("#dialog-error").render()).lower()
        box.query_one(Input).value = "10"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is not box
    assert [c.initiative for c in saved(path).encounter.order] == [10]


# ------------------------------------------------------------ 19: focus without colour


def _style_at(app: Any, x: int, y: int) -> Any:
    """The style of the cell (x, y) as the terminal gets it: through the app's line
    filters (NO_COLOR)."""
    strip = Strip([Segment(" ", app.screen.get_style_at(x, y))])
    for line_filter in app.get_line_filters():
        strip = strip.apply_filter(line_filter, app.screen.styles.background)
    return next(iter(strip)).style


def _style_of(app: Any, text: str) -> Any:
    """The style of the cell where ``text`` starts on screen."""
    for y, line in enumerate(screen_text(app).splitlines()):
        at = line.find(text)
        if at >= 0:
            return _style_at(app, cell_len(line[:at]), y)
    raise AssertionError(f"{text!r} not on screen:\n{screen_text(app)}")


@pytest.mark.parametrize("no_color", [True, False])
async def test_the_focused_field_reads_without_colour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_color: bool
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        assert app.no_color == no_color
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        await settle(pilot)
        assert isinstance(dlg.focused, Input) and dlg.focused.id == "p-shift"
        assert _style_of(app, "Net shift").reverse
        assert not _style_of(app, "Roller").reverse
        dlg.query_one("#p-fold", Choice).focus()
        await settle(pilot)
        assert _style_of(app, "Fold").reverse and not _style_of(app, "Net shift").reverse
        dlg.query_one("#p-maneuver", Checkbox).focus()
        await settle(pilot)
        assert _style_of(app, "Maneuver table").reverse and not _style_of(app, "Fold").reverse
        if no_color:  # what the terminal gets is grey only: the marker is not a colour
            width, height = app.size
            styles = [_style_at(app, x, y) for y in range(height) for x in range(width)]
            colours = {
                c.triplet
                for style in styles
                if style
                for c in (style.color, style.bgcolor)
                if c is not None and c.triplet is not None
            }
            assert all(len(set(t)) == 1 for t in colours)


# ------------------------------------------------------- 10: fudge opposed and faces


async def test_fudge_empty_vs_trait_is_unopposed_and_opposed_is_asked_for(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "fudge", [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        screen.selected = ids["Kara"]
        await press(pilot, "o")  # the opposed-roll move: Opposed ticked, Vs trait Fair
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query_one("#p-opposed", Checkbox).value
        dlg.query_one("#p-trait", Input).value = "Good"
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "r")  # the same roller again: its Trait remembered, not Opposed nor Vs trait
        dlg = await dialog(pilot, RollDialog)
        assert not dlg.query_one("#p-opposed", Checkbox).value
        assert dlg.query_one("#p-vs_trait", Input).value == ""
        assert dlg.query_one("#p-trait", Input).value == "Good"
        await settle(pilot)
        assert "Trait Good — Kara's last roll" in str(dlg.query_one("#rd-info").render())
        dlg.query_one("#p-vs_trait", Input).value = "Fair"
        await settle(pilot)
        assert "Not opposed" in str(dlg.query_one("#rd-info").render())
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "r")  # Opposed ticked with an empty Vs trait: against Fair
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-vs_trait", Input).value = ""
        dlg.query_one("#p-opposed", Checkbox).value = True
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
    first, plain, asked = (r.record for r in saved(path).rolls)
    assert first.params["vs_trait"] == 0 and "opponent" in first.extra
    assert plain.params["vs_trait"] is None and "opponent" not in plain.extra
    assert plain.outcome == plain.extra["level_name"]  # read on the trait's own ladder, as the CLI
    assert asked.params["vs_trait"] == 0 and "opponent" in asked.extra


def test_custom_fudge_dice_show_their_printed_faces() -> None:
    from rich.console import Console

    from gmdesk.core.render import opponent_dice_plain, record_line, render_record
    from gmdesk.core.systems import fudge

    # positions 2 and 5 are the faces −1 and +1; the opponent's 6 and 1 are +2 and −2
    record = fudge.roll(fudge.Params(method="custom", trait=1, vs_trait=0), FixedDice([2, 5, 6, 1]))
    assert [d.value for d in record.dice] == [2, 5]
    assert "[−1 +1 | vs +2 −2] = +0 Wins by 1 (Good vs Fair)" in record_line(record)  # both sides
    assert opponent_dice_plain(record) == "+2 −2"
    console = Console(width=80, no_color=True, record=True)
    console.print(render_record(record))
    text = console.export_text()
    assert "dice: −1 +1" in text and "Opponent: [+2 −2] → 0 (Fair)" in text


def test_cli_prints_custom_fudge_faces(capsys: pytest.CaptureFixture) -> None:
    from gmdesk.cli.main import main

    assert main(["roll", "fudge", "--method", "custom", "--trait", "Good", "--vs-trait", "Fair", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "dice: −1 +1" in out and "Opponent: [+1 −1]" in out


# ---------------------------------------------------- 30: torg odds and the preview


def test_torg_odds_fold_the_tails_and_explain_what_is_not_counted(capsys: pytest.CaptureFixture) -> None:
    from fractions import Fraction

    from gmdesk.cli.main import main
    from gmdesk.core.oddstable import distribution_rows
    from gmdesk.core.systems import torg_2d10

    odds = torg_2d10.odds(torg_2d10.Params())
    rows = distribution_rows(odds)
    assert rows[0][0] == "≤ −20" and rows[-1][0] == "≥ +20" and len(rows) <= 41
    assert sum((p for _, p in rows), Fraction(0)) + odds.tail == 1
    assert main(["odds", "torg-2d10"]) == 0
    out = capsys.readouterr().out
    assert "≤ −20" in out and "≥ +20" in out and "−118" not in out and "-118" not in out
    assert "(tail" not in out and "Not counted: reroll chains longer" in out
    assert len(out.splitlines()) < 50


async def test_torg_preview_shows_the_folded_curve_without_the_tail(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "torg-2d10", [{"name": "Quin", "reality_rated": True, "possibilities": 2}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)

        assert await odds_ready(pilot, dlg) is not None
        await settle(pilot)
        shown = str(dlg.query_one("#rd-odds").render())
        assert "≤ −20" in shown and "≥ +20" in shown and "tail" not in shown


async def test_the_preview_refuses_an_ord_spending_possibilities(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "torg-2d10", [{"name": "Ord"}, {"name": "Quin", "reality_rated": True, "possibilities": 1}]
    )
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        screen.selected = ids["Ord"]
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.actor == ids["Ord"]
        dlg.query_one("#p-possibilities", Input).value = "1"
        await settle(pilot)
        error = str(dlg.query_one("#rd-error").render())
        assert error == "✗ Possibilities: Ord is not reality-rated and has no Possibilities to spend"
        assert "no odds" in str(dlg.query_one("#rd-odds").render())
        await press(pilot, "enter")  # refused in the form: nothing rolled, the dialog stays
        assert open_overlay(app, RollDialog) is dlg
        dlg.query_one("#rd-actor", Choice).value = ids["Quin"]
        dlg.query_one("#p-possibilities", Input).value = "2"
        await settle(pilot)
        assert "Quin has 1 Possibilities, needs 2" in str(dlg.query_one("#rd-error").render())
        dlg.query_one("#p-possibilities", Input).value = "1"
        await settle(pilot)
        assert str(dlg.query_one("#rd-error").render()) == ""
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is not dlg
    state = saved(path)
    assert len(state.rolls) == 1 and state.rolls[0].actor == ids["Quin"]
    assert state.characters[ids["Quin"]].possibilities == 0
