"""What the GM reads of an initiative group at 80×24: the order's title counts the
turns (a group's one row is one turn, however many members it stands for), and the
status line says whose turn a group's is in plain words, keeping it on the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import SMALL, main_screen, make_app, make_save, press, run, screen_text

from gmdesk.core.session import Session


def grouped(tmp_path: Path, label: str = "Gospog") -> tuple[Path, dict[str, str]]:
    """Kara, and three copies in one group: four entries in the order, two turns."""
    names = [f"{label} {n}" for n in (1, 2, 3)]
    path, ids = make_save(
        tmp_path, "4d6", [{"name": "Kara"}, *({"name": n, "side": "NPC", "vitality": 5} for n in names)]
    )
    with Session.open(path) as s:
        s.apply({"type": "group.set", "label": label, "ids": [ids[n] for n in names]})
        s.roll_initiative([ids["Kara"], ids[names[0]]], values={ids["Kara"]: 9, ids[names[0]]: 14})
        s.apply({"type": "turn.next"})
    return path, ids


def title_row(app: Any) -> str:
    return next(line for line in screen_text(app).splitlines() if "Initiative" in line)


async def test_the_orders_title_counts_turns_a_group_being_one(tmp_path: Path) -> None:
    path, _ = grouped(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        assert "Initiative (2 turns)" in title_row(app), title_row(app)  # Kara's row and "▸ Gospog ×3"
        await press(pilot, "enter")  # opening the group lists its members: still two turns
        assert "Initiative (2 turns)" in title_row(app), title_row(app)
    party = [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}]
    path, _ = make_save(tmp_path / "plain", "4d6", party, initiative={"Kara": 12, "Bruno": 9}, start=True)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        assert "Initiative (2)" in title_row(app)  # no group: a row, a turn, as before


async def test_the_status_line_says_whose_turn_a_groups_is_and_keeps_it_on_the_line(tmp_path: Path) -> None:
    path, _ = grouped(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        assert "▶ Gospog ×3's turn (Gospog 1)" in screen_text(app).splitlines()[0]
    path, _ = grouped(tmp_path / "long", label="Swamp Goblin Skirmisher")
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        bar = screen_text(app).splitlines()[0].rstrip()
        # no room for who acts for it: the group's turn is said whole, never cut
        assert bar.endswith("▶ Swamp Goblin Skirmisher ×3's turn"), bar
