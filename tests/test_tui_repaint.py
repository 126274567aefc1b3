"""What a key repaints on the GM's desk (80×24): only what changed. Over SSH every
repainted cell is bytes on the link, so a turn change or an undo that touches no roll
must not paint the roll log again, nor the keys in the Footer, nor a character pane
whose character did not change.

A widget is painted afresh when Textual asks it for a line of its content
(``Widget.render_line``: a widget that was not refreshed answers from its cache
without it); the tests count those calls per widget around one key."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from helpers import SMALL, main_screen, make_app, make_save, press, run, screen_text, settle
from textual.widget import Widget
from textual.widgets import Footer

from gmdesk.core.session import Session
from gmdesk.tui.widgets.character import CharacterTable
from gmdesk.tui.widgets.initiative import InitiativeTable
from gmdesk.tui.widgets.rolllog import RollLog
from gmdesk.tui.widgets.sessionbar import SessionBar

PARTY = [
    {"name": "Kara"},
    {"name": "Mira"},
    {"name": "Bruno", "side": "NPC"},
    {"name": "Vex", "side": "NPC"},
]


def table_night(tmp_path: Path, vex: str = "Vex") -> tuple[Path, dict[str, str]]:
    """Four characters in an encounter at its first turn, and a roll log longer than
    its window."""
    party = [*PARTY[:3], {"name": vex, "side": "NPC"}]
    path, ids = make_save(tmp_path, "4d2", party, initiative={"Kara": 19, "Mira": 18, "Bruno": 17, vex: 16}, start=True)
    ids["Vex"] = ids[vex]
    rng = random.Random(5)
    with Session.open(path) as s:
        for i in range(12):
            actor, target = ("Kara", "Bruno") if i % 2 else ("Mira", "Vex")
            s.roll("4d2", {}, actor=ids[actor], target=ids[target], rng=rng)
    return path, ids


class Painted:
    """Counts ``render_line`` calls of the widgets it watches."""

    def __init__(self, widgets: dict[str, Widget]) -> None:
        self.counts: Counter[str] = Counter()
        for name, widget in widgets.items():
            self._watch(name, widget)

    def _watch(self, name: str, widget: Widget) -> None:
        original = widget.render_line

        def render_line(y: int) -> Any:
            self.counts[name] += 1
            return original(y)

        widget.render_line = render_line  # type: ignore[method-assign]

    def reset(self) -> None:
        self.counts.clear()


async def test_a_turn_change_and_its_undo_repaint_only_what_changed(tmp_path: Path) -> None:
    path, _ = table_night(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await settle(pilot)
        await pilot.pause(0.2)
        assert "▶ Kara's turn" in screen_text(app)
        painted = Painted(
            {
                "log": screen.query_one(RollLog),
                "keys": screen.query_one(Footer),
                "bar": screen.query_one(SessionBar),
                "order": screen.query_one(InitiativeTable),
                "sheet": screen.query_one(CharacterTable),
            }
        )

        await press(pilot, "n")
        await settle(pilot)
        await pilot.pause(0.2)
        # what changed is painted: the status line, the order's marker, Mira's sheet …
        assert painted.counts["bar"] and painted.counts["order"] and painted.counts["sheet"]
        # … and nothing else
        assert painted.counts["log"] == 0, "a turn change repainted the roll log"
        assert painted.counts["keys"] == 0, "a turn change repainted the Footer"
        assert "▶ Mira's turn" in screen_text(app)  # (a screenshot paints everything: last)

        painted.reset()
        await press(pilot, "u")
        await settle(pilot)
        await pilot.pause(0.2)
        assert painted.counts["bar"] and painted.counts["order"]
        # Mira stays selected: her sheet did not change, nor did the log or the keys
        assert painted.counts["sheet"] == 0, "an undone turn repainted an unchanged character pane"
        assert painted.counts["log"] == 0, "an undone turn repainted the roll log"
        assert painted.counts["keys"] == 0, "an undone turn repainted the Footer"
        assert "▶ Kara's turn" in screen_text(app)


async def test_a_roll_repaints_the_log_but_not_the_order(tmp_path: Path) -> None:
    """The other way round: a roll changes the log (painted) and no turn or health
    (the initiative order is not painted again)."""
    path, _ = table_night(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await settle(pilot)
        await pilot.pause(0.2)
        log = screen.query_one(RollLog)
        before = log.count
        painted = Painted({"log": log, "order": screen.query_one(InitiativeTable)})
        screen.submit(lambda s: s.roll("4d2", {}, rng=random.Random(1)))
        await settle(pilot)
        await pilot.pause(0.2)
        assert log.count == before + 1
        assert painted.counts["log"]
        assert painted.counts["order"] == 0, "a roll that changed no character repainted the initiative order"


async def test_a_long_log_has_no_sideways_scrollbar_and_cuts_lines_in_view(tmp_path: Path) -> None:
    """A log longer than its window has a vertical scrollbar; its lines are cut to the
    width beside it (with "…"), so there is no horizontal scrollbar taking the last
    row (and repainted by every layout of the screen)."""
    path, ids = table_night(tmp_path, vex="Vex the Long-Named Warden of the East")
    with Session.open(path) as s:
        s.roll("4d2", {}, actor=ids["Kara"], target=ids["Vex"], rng=random.Random(2))
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await settle(pilot)
        await pilot.pause(0.2)
        log = screen.query_one(RollLog)
        assert log.show_vertical_scrollbar and not log.show_horizontal_scrollbar
        rows = screen_text(app).splitlines()
        bottom = max(i for i, row in enumerate(rows) if row.startswith("╰"))
        newest = rows[bottom - 1]
        assert newest.startswith("│▶ #") and "Kara → Vex the Long-Named" in newest
        assert newest.rstrip("│ ").endswith("…"), newest  # cut in view, beside the scrollbar


async def test_the_keys_row_is_rebuilt_only_when_its_keys_change(tmp_path: Path) -> None:
    """Closing a dialog gives the desk its bindings back, the same keys: the Footer
    keeps its row (Textual's rebuilds it, tens of milliseconds and a repaint); the
    focus moving to the character pane changes the keys: the row follows."""
    path, _ = table_night(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await settle(pilot)
        footer = screen.query_one(Footer)

        def keys() -> list[Any]:
            return list(footer.children)  # the keys shown, one widget each

        before = keys()
        assert "Edit" not in [getattr(k, "description", "") for k in before]
        await press(pilot, "r")
        await pilot.pause(0.2)
        await press(pilot, "escape")
        await settle(pilot)
        await pilot.pause(0.2)
        assert keys() == before and all(a is b for a, b in zip(keys(), before, strict=True))

        table = screen.query_one(CharacterTable)
        table.focus()
        await settle(pilot)
        await pilot.pause(0.2)
        # the pane's keys are those the row under the cursor takes: on an editable row, Edit
        for _ in range(table.row_count):
            if "Edit" in [getattr(k, "description", "") for k in keys()]:
                break
            await press(pilot, "down")
            await pilot.pause(0.05)
        assert "Edit" in [getattr(k, "description", "") for k in keys()]
