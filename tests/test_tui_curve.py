"""The curve in the roll dialog (issue 23 point 6), at 80×24: one key (Ctrl+T, the
binding ``roll.curve``, remappable) switches the odds pane between the outcomes and
the curve of the roll's value, named in the dialog's hint line; the value a success
needs is marked; the whole curve fits the pane; the key works typed ahead, right
after the key that opens the dialog; a plug-in's curve is drawn too.

Update the snapshot after an intended change of the look:
``pytest tests/test_tui_curve.py --snapshot-update``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from coin_plugin import brawl_site, registered
from helpers import (
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    odds_ready,
    press,
    run,
    saved,
    screen_text,
    settle,
    until,
)
from textual import events
from textual.widgets import Input
from typeahead import textual_keys

from gmdesk.tui.screens.dialog import DialogHint
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.oddspreview import OddsPreview

pytestmark = pytest.mark.usefixtures("quick_odds")


def pane(app: Any) -> list[str]:
    """The odds pane's lines as the terminal shows them (its title first)."""
    lines = screen_text(app).splitlines()
    top = next(i for i, line in enumerate(lines) if "╭─ Odds" in line or "╭─ Curve" in line)
    left = lines[top].index("╭─ ", 2)
    out = []
    for line in lines[top:]:
        cell = line[left:].rstrip()
        out.append(cell.strip("│ ").rstrip("│").strip())
        if cell.startswith("╰"):
            break
    return out


async def open_roll(pilot: Any) -> RollDialog:
    await main_screen(pilot)
    await press(pilot, "r")
    dlg = await dialog(pilot, RollDialog)
    await odds_ready(pilot, dlg)
    await settle(pilot)
    return dlg


async def type_into(pilot: Any, dlg: RollDialog, field: str, text: str) -> None:
    dlg.query_one(f"#p-{field}", Input).focus()
    await press(pilot, "ctrl+u", *text)
    await odds_ready(pilot, dlg)
    await settle(pilot)


def hint(dlg: RollDialog) -> str:
    return str(dlg.query_one(DialogHint).render())


async def test_one_key_switches_the_pane_to_the_curve_and_back(tmp_path: Path) -> None:
    """1d6x4 with a Target number of 14: the outcomes, Ctrl+T the curve of the Test
    total with the success rule above 16, Ctrl+T the outcomes again; Enter still rolls."""
    path, _ = make_save(tmp_path, "1d6x4", [{"name": "Kara", "vitality": 10}])
    app = make_app(path, rng=random.Random(3))
    async with run(app, size=SMALL) as pilot:
        dlg = await open_roll(pilot)
        await type_into(pilot, dlg, "target", "14")
        lines = pane(app)
        assert lines[0].startswith("╭─ Odds") and any(line.startswith("Success") for line in lines)
        assert "Ctrl+T curve" in hint(dlg)
        await press(pilot, "ctrl+t")
        lines = pane(app)
        assert lines[0].startswith("╭─ Curve · Test total")
        rule = next(i for i, line in enumerate(lines) if line.startswith("── "))
        assert lines[rule].startswith("── Success: 14 or more · 50.00%")
        assert lines[rule - 1].split()[:2] == ["12", "16.67%"] and lines[rule + 1].split()[:2] == ["16", "16.67%"]
        assert [line.split()[0] for line in lines[1:rule]] == ["4", "8", "12"]
        assert "Ctrl+T outcomes" in hint(dlg)
        await press(pilot, "ctrl+t")
        assert pane(app)[0].startswith("╭─ Odds") and "Ctrl+T curve" in hint(dlg)
        await press(pilot, "ctrl+t", "enter")
        await settle(pilot)
        assert not dlg.is_open
    assert saved(path).rolls[0].record.params["target"] == 14


async def test_the_view_stays_for_the_next_open_and_follows_the_parameters(tmp_path: Path) -> None:
    """The curve chosen stays for the next roll; a parameter changed redraws it (4d6:
    the DC typed moves the rule)."""
    path, _ = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    app = make_app(path, rng=random.Random(3))
    async with run(app, size=SMALL) as pilot:
        dlg = await open_roll(pilot)
        await press(pilot, "ctrl+t")
        assert any(line.startswith("── Full Success: 16+ · 33.56%") for line in pane(app))
        await press(pilot, "escape")
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        await odds_ready(pilot, dlg)
        await settle(pilot)
        assert pane(app)[0].startswith("╭─ Curve · Total")
        await type_into(pilot, dlg, "dc", "18")
        rule = next(line for line in pane(app) if line.startswith("── "))
        assert rule.startswith("── Full Success: 18+ · ") and "33.56%" not in rule


async def test_the_whole_curve_fits_the_pane_at_80x24(tmp_path: Path) -> None:
    """torg's Bonus Number runs from ≤ −20 to ≥ +20 (37 rows): at 80×24 the pane folds
    its tails further, every chance exact, so that all of it shows without scrolling,
    the likeliest values in the middle."""
    path, _ = make_save(tmp_path, "torg-2d10", [{"name": "Quin", "reality_rated": True}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        dlg = await open_roll(pilot)
        await press(pilot, "ctrl+t")
        lines = pane(app)
        assert lines[0].startswith("╭─ Curve · Bonus Number") and lines[-1].startswith("╰")
        rows = lines[1:-1]
        assert rows[0].startswith("≤ −") and rows[-1].startswith("≥ +")
        assert any(line.split()[:2] == ["0", "10.00%"] for line in rows)
        total = sum(float(line.split()[-2 if line[0] in "≤≥" else 1].rstrip("%")) for line in rows if line)
        assert abs(total - 100) < 0.05
        assert dlg.query_one(OddsPreview).view == "curve"


async def test_the_curve_key_typed_ahead_right_after_r(tmp_path: Path) -> None:
    """r and Ctrl+T in one read: the dialog opens showing the curve (the key waits for
    the dialog, and the odds computed after it are drawn as the curve)."""
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        for key, char in textual_keys("r<ctrl+t>"):
            app.post_message(events.Key(key, char))
        await settle(pilot)
        dlg = await dialog(pilot, RollDialog)
        await odds_ready(pilot, dlg)
        await settle(pilot)
        assert pane(app)[0].startswith("╭─ Curve · Number")
        assert "Ctrl+T outcomes" in hint(dlg)


async def test_the_curve_key_follows_the_keymap(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"roll.curve" = "f2"\n')
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=SMALL) as pilot:
        dlg = await open_roll(pilot)
        assert "f2 curve" in hint(dlg).lower() and "Ctrl+T" not in hint(dlg)
        await press(pilot, "ctrl+t")
        assert pane(app)[0].startswith("╭─ Odds")
        await press(pilot, "f2")
        assert pane(app)[0].startswith("╭─ Curve · Number") and "f2 outcomes" in hint(dlg).lower()


async def test_a_plug_ins_curve_in_the_dialog(tmp_path: Path) -> None:
    """brawl declares its curve: the total, the guard to reach marked as a Hit."""
    with registered(brawl_site()):
        path, _ = make_save(tmp_path, "brawl", [{"name": "Kara"}])
        app = make_app(path)
        async with run(app, size=SMALL) as pilot:
            await main_screen(pilot)
            await press(pilot, "r")
            dlg = await dialog(pilot, RollDialog)
            await until(pilot, lambda: dlg.last_odds is not None)
            await press(pilot, "ctrl+t")
            await until(pilot, lambda: dlg.last_curve is not None)
            await settle(pilot)
            lines = pane(app)
            assert lines[0].startswith("╭─ Curve · Total")
            assert any(line.startswith("── Hit: 7 or more · 58.33%") for line in lines)


def test_the_curve_pane_80x24(snap_compare, tmp_path: Path) -> None:
    """4d6 at a DC of 14 with a bonus of 1, the curve shown."""
    path, _ = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    app = make_app(path, rng=random.Random(1))

    async def curve(pilot: Any) -> None:
        dlg = await open_roll(pilot)
        await type_into(pilot, dlg, "bonus", "1")
        await type_into(pilot, dlg, "dc", "14")
        dlg.query_one("#p-bonus", Input).focus()
        await press(pilot, "ctrl+t")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=curve)
