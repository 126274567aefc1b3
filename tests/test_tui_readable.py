"""What the GM reads is unambiguous at 80×24 (issue 18): bestiary copies keep their
number in the initiative list, the status column is never cut, and the desk's
notifications leave the roll log's newest lines readable."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SMALL, dialog, main_screen, make_app, make_save, notes, odds_ready, press, run, screen_text, settle

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.initiative import InitiativePane
from gmdesk.tui.widgets.rolllog import RollLog

pytestmark = pytest.mark.usefixtures("quick_odds")


def initiative_rows(app) -> list[str]:
    pane = app.screen.query_one(InitiativePane)
    region = pane.region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return [line[region.x : region.right] for line in lines]


async def test_copies_keep_their_number_and_statuses_are_never_cut(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "1d6x4",
        [
            {"name": "Kara"},
            {"name": "Castle Guard 1", "side": "NPC", "vitality": 3},
            {"name": "Castle Guard 2", "side": "NPC", "vitality": 3},
            {"name": "Castle Guard 12", "side": "NPC", "vitality": 3},
        ],
        initiative={"Kara": 12, "Castle Guard 1": 9, "Castle Guard 2": 7, "Castle Guard 12": 5},
        start=True,
    )
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Kara"], "name": "Dodging", "rounds": 2})
        s.apply({"type": "character.edit", "id": ids["Castle Guard 2"], "fields": {"vitality_current": -6}})
        s.apply({"type": "character.hide", "id": ids["Castle Guard 2"]})
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        rows = "\n".join(initiative_rows(app))
        assert "Dodging" in rows  # not "Dodgin"
        assert "HID UNC" in rows  # not "HID UN"
        lines = rows.splitlines()
        guards = [i for i, line in enumerate(lines) if "NPC" in line]
        assert len(guards) == 3
        # each name whole on its row's two lines, the copy's number with its word
        names = [" ".join((lines[i][6:18] + " " + lines[i + 1][6:18]).split()) for i in guards]
        assert names == ["Castle Guard 1", "Castle Guard 2", "Castle Guard 12"], names


def test_a_long_name_takes_a_second_line_and_keeps_its_number_with_its_word() -> None:
    from gmdesk.tui.widgets.initiative import wrap_name

    assert wrap_name("Castle Guard 2", 14) == ["Castle Guard 2"]
    assert wrap_name("Castle Guard 12", 12) == ["Castle", "Guard 12"]
    assert wrap_name("Goblin archers ×3", 10, group=True) == ["Goblin", "archers ×3"]
    # past two lines, the second is cut before the number or the count
    assert wrap_name("The Very Long Name Of A Thing 3", 12) == ["The Very", "Long Name… 3"]
    assert wrap_name("Bandits of the Crooked Mile ×12", 10, group=True) == ["Bandits of", "the C… ×12"]
    assert wrap_name("Supercalifragilistic", 12) == ["Supercalifra", "gilistic"]


def test_a_name_is_cut_before_its_number() -> None:
    from gmdesk.tui.widgets.initiative import fit_name

    assert fit_name("Castle Guard 2", 14) == "Castle Guard 2"
    assert fit_name("Castle Guard 2", 13) == "Castle Gua… 2"
    assert fit_name("Castle Guard 12", 9) == "Castl… 12"
    assert fit_name("Bruno the Unconscious", 9) == "Bruno th…"


async def test_a_notification_leaves_the_newest_log_lines_readable(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path, rng=FixedDice([3, 2, 2, 1] * 12))
    async with run(app, size=SMALL, notifications=True) as pilot:
        await main_screen(pilot)
        for _ in range(9):
            await press(pilot, "r")
            dlg = await dialog(pilot, RollDialog)
            await odds_ready(pilot, dlg)
            await press(pilot, "enter")
            await settle(pilot)
        assert "Kara: +2" in notes(app)[-1]
        toasts = list(app.screen.query("Toast"))
        assert toasts, "the last roll is said in a notification"
        log = app.screen.query_one(RollLog)
        said = notes(app)[-1].splitlines()[0]
        rows = screen_text(app).splitlines()
        log_rows = rows[log.region.y : log.region.bottom]
        assert any(said in row for row in rows[: log.region.y])  # the newest notification, above the log
        assert not any(said in row for row in log_rows)  # and none over the log
        assert not any("▌" in row for row in log_rows)  # (a toast's edge)
        text = screen_text(app)
        assert "#9 Kara: 4d2 +2" in text
