"""Every key the bar shows reads whole (Pilot, 80×24 and other widths): with the
character pane's keys in front of the desk's, the bar read "… i Init  c Cha▏^p
palette" and cut "? Help" off. The bar shows "? Help" first, then the keys in its
order (the row's own, then the desk's) as far as they fit, "q Quit" last; a key left
out still works, and a wider terminal shows it again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import desk, make_save, press, screen_text, settle, until
from textual.widgets import Footer

from gmdesk.core.session import Session


def night(tmp_path: Path) -> Path:
    """A 4d6 table where Kara's pane has a row of every kind with keys: an advantage
    (Edit, Toggle, Remove), a condition, a counter (Use, Restore, Remove)."""
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Kara": 12, "Bruno": 9},
        start=True,
    )
    k = ids["Kara"]
    with Session.open(path) as s:
        s.apply({"type": "source.add", "id": k, "kind": "advantage", "name": "High ground", "value": 1})
        s.apply({"type": "condition.add", "id": k, "name": "Stunned", "rounds": 2})
        s.apply({"type": "counter.add", "id": k, "label": "Luck", "max": 3, "reset": "night"})
    return path


def bar_keys(app: Any) -> list[str]:
    """The keys the desk's bar holds, as it names them ("r Roll"), the palette's last."""
    footer = app.screen.query_one(Footer)
    return [f"{key.key_display} {key.description}".strip() for key in footer.children]


def bar(app: Any) -> str:
    return screen_text(app).splitlines()[-1]


def whole(app: Any) -> list[str]:
    """The bar's keys that the bottom row does not show whole (none, when all is well)."""
    row = bar(app)
    return [key for key in bar_keys(app) if key not in row]


async def test_at_80x24_every_key_the_bar_shows_reads_whole_on_every_row(tmp_path: Path) -> None:
    async with desk(night(tmp_path)) as (app, pilot, screen):
        await until(pilot, lambda: "? Help" in bar(app))
        assert not whole(app), bar(app)
        assert "q Quit" in bar(app) and "c Char" in bar(app)  # the desk's own keys all fit
        await press(pilot, "tab")  # initiative → the character pane
        pane = screen.character
        kinds = set()
        for _ in range(pane.table.row_count):
            await settle(pilot)
            row = pane.current_row()
            kinds.add(row.kind if row else None)
            assert not whole(app), (row, bar(app))
            assert "? Help" in bar(app) and "a Attack" in bar(app), (row, bar(app))
            await press(pilot, "down")
        assert {"advantage", "condition", "counter"} <= kinds
        await press(pilot, "tab")  # → the roll log: its Enter and y before the desk's
        await settle(pilot)
        assert "⏎ Details" in bar(app) and "? Help" in bar(app), bar(app)
        assert not whole(app), bar(app)


async def test_on_the_advantage_row_the_rows_keys_come_first_and_help_stays(tmp_path: Path) -> None:
    """The row's keys (what the GM focused the pane for), then the desk's in order;
    Help always; what is left out is the least used (Quit, then Char, Init…)."""
    from test_tui_char_fields import to_row

    async with desk(night(tmp_path)) as (app, pilot, screen):
        await press(pilot, "tab")
        await to_row(pilot, screen.character, "advantage", 0)
        await settle(pilot)
        assert bar_keys(app)[:4] == ["e Edit", "space Toggle", "del Remove", "r Roll"], bar(app)
        assert "? Help" in bar(app) and "q Quit" not in bar(app) and "c Char" not in bar(app)
        assert not whole(app), bar(app)
        await press(pilot, "c")  # a key left out of the bar still works
        await until(pilot, lambda: "New character" in screen_text(app))


async def test_a_wider_terminal_shows_the_keys_again_and_a_narrower_one_still_reads_whole(tmp_path: Path) -> None:
    from test_tui_char_fields import to_row

    async with desk(night(tmp_path)) as (app, pilot, screen):
        await press(pilot, "tab")
        await to_row(pilot, screen.character, "advantage", 0)
        await settle(pilot)
        assert "q Quit" not in bar(app)
        await pilot.resize_terminal(120, 30)
        await until(pilot, lambda: "q Quit" in bar(app) and "c Char" in bar(app))
        assert not whole(app), bar(app)
        await pilot.resize_terminal(64, 24)
        await until(pilot, lambda: "q Quit" not in bar(app) and "? Help" in bar(app))
        await settle(pilot)
        assert not whole(app), bar(app)
