"""Snapshots of the main screen (80×24 and 120×40) for a 4d2 and a torg-2d10 session
in the middle of a fight, and of the attack dialog with its odds. Sessions are built
in the test with fixed seeds; nothing on these screens depends on the clock.

Update after an intended change of the look: ``pytest tests/test_tui_snapshots.py
--snapshot-update``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import dialog, main_screen, make_app, make_save, odds_ready, press

from gmdesk.core.session import Session
from gmdesk.core.systems import four_d_two, torg_2d10
from gmdesk.tui.screens.roll import RollDialog

pytestmark = pytest.mark.usefixtures("quick_odds")


def fight_4d2(tmp_path: Path) -> Path:
    path, ids = make_save(
        tmp_path,
        "4d2",
        [
            {"name": "Kara Voss"},
            {"name": "Bruno", "side": "NPC", "kind": "inorganic"},
            {"name": "Old Tam"},
            {"name": "Guard", "side": "NPC"},
        ],
        initiative={"Kara Voss": 9, "Bruno": 4, "Old Tam": 2, "Guard": -1},
        start=True,
        name="Skimmer Heist",
    )
    rng = random.Random(2024)
    with Session.open(path) as s:
        kara, bruno, tam = ids["Kara Voss"], ids["Bruno"], ids["Old Tam"]
        s.apply({"type": "source.add", "id": kara, "kind": "shift", "name": "Pistol", "value": 2})
        s.apply({"type": "source.add", "id": kara, "kind": "shift", "name": "DEX", "value": 1, "rounds": 2})
        s.apply({"type": "condition.add", "id": tam, "name": "Stymied", "rounds": 1})
        s.roll("4d2", four_d_two.Params(shift=3), actor=kara, target=bruno, combat=True, rng=rng)
        s.apply({"type": "turn.next"})
        s.roll("4d2", four_d_two.Params(), actor=bruno, target=kara, combat=True, rng=rng)
        s.roll("4d2", four_d_two.Params(fold="positive"), actor=tam, rng=rng)
        s.ui_set("selected", kara)
    return path


def fight_torg(tmp_path: Path) -> Path:
    path, ids = make_save(
        tmp_path,
        "torg-2d10",
        [
            {"name": "Quin", "reality_rated": True, "possibilities": 3, "vitality": 10},
            {"name": "Edeinos", "side": "NPC", "vitality": 8},
            {"name": "Tolwyn", "reality_rated": True, "possibilities": 5, "vitality": 12},
        ],
        initiative={"Quin": 14, "Edeinos": 11, "Tolwyn": 7},
        start=True,
        name="Living Land",
    )
    rng = random.Random(7)
    with Session.open(path) as s:
        quin, lizard = ids["Quin"], ids["Edeinos"]
        s.apply({"type": "condition.add", "id": quin, "name": "Up", "rounds": 1})
        s.roll("torg-2d10", torg_2d10.Params(skill=13, difficulty=9), actor=quin, target=lizard, combat=True, rng=rng)
        s.apply({"type": "turn.next"})
        s.roll("torg-2d10", torg_2d10.Params(skill=10, difficulty=11), actor=lizard, target=quin, combat=True, rng=rng)
        s.ui_set("selected", lizard)
    return path


BUILDERS = {"4d2": fight_4d2, "torg": fight_torg}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("which", ["4d2", "torg"])
def test_main_screen(snap_compare, tmp_path: Path, which: str, size: tuple[int, int]) -> None:
    app = make_app(BUILDERS[which](tmp_path), rng=random.Random(1))

    async def ready(pilot) -> None:
        await main_screen(pilot)

    assert snap_compare(app, terminal_size=size, run_before=ready)


def test_attack_dialog_80x24(snap_compare, tmp_path: Path) -> None:
    app = make_app(fight_torg(tmp_path), rng=random.Random(1))

    async def attack(pilot) -> None:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-skill").value = "11"
        dlg.query_one("#p-difficulty").value = "10"
        dlg.last_odds = None
        await odds_ready(pilot, dlg)

    assert snap_compare(app, terminal_size=(80, 24), run_before=attack)
