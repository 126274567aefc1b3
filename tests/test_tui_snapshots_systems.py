"""Snapshots at 80×24 of what the GM sees in each of the five systems: the desk in
the middle of a fight, the attack dialog with its odds, and the character pane
focused on a character whose system fields are filled in (the desks of 4d2 and torg,
torg's attack dialog, the picker and the player view have theirs in
test_tui_snapshots, test_tui_picker and test_tui_player). Sessions are built here with
fixed dice; nothing on these screens depends on the clock.

Update after an intended change of the look: ``pytest tests/test_tui_snapshots_systems.py
--snapshot-update``, and review the new pictures."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from helpers import SMALL, dialog, main_screen, make_app, make_save, odds_ready, press
from test_tui_combat import BRUNO_SHEET, KARA_SHEET
from test_tui_snapshots import fight_4d2, fight_torg

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.core.systems import get_spec
from gmdesk.tui.screens.roll import RollDialog

pytestmark = pytest.mark.usefixtures("quick_odds")


def _roll(s: Session, system: str, data: dict[str, Any], actor: str, target: str | None, dice: list[int]) -> None:
    params = get_spec(system).params_from_json(data)
    s.roll(system, params, actor=actor, target=target, combat=bool(data.get("combat")), rng=FixedDice(dice))


def fight_fudge(tmp_path: Path) -> Path:
    path, ids = make_save(
        tmp_path,
        "fudge",
        [
            {
                "name": "Kara Voss",
                "fields": {
                    "traits": {"Sword": 2, "Dodge": 1, "Perception": 0},
                    "attack_trait": "Sword",
                    "defense_trait": "Dodge",
                    "offense": 2,
                    "initiative_trait": "Perception",
                },
            },
            {"name": "Castle Guard 1", "side": "NPC", "fields": {"traits": {"Spear": 1}, "attack_trait": "Spear"}},
            {"name": "Castle Guard 2", "side": "NPC", "fields": {"traits": {"Spear": 1}, "attack_trait": "Spear"}},
        ],
        initiative={"Kara Voss": 3, "Castle Guard 1": 1, "Castle Guard 2": 0},
        start=True,
        name="The Keep",
    )
    kara, g1 = ids["Kara Voss"], ids["Castle Guard 1"]
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": kara, "name": "Dodging", "rounds": 2})
        great = {"trait": "Great", "vs_trait": "Fair", "offense": 2, "combat": True}
        _roll(s, "fudge", great, kara, g1, [3, 2, 1, 2] * 2)
        s.apply({"type": "turn.next"})
        _roll(s, "fudge", {"trait": "Fair", "vs_trait": "Good", "combat": True}, g1, kara, [2, 2, 2, 2] * 2)
        s.ui_set("selected", kara)
    return path


def fight_1d6x4(tmp_path: Path) -> Path:
    path, ids = make_save(
        tmp_path,
        "1d6x4",
        [
            {"name": "Kara", "sheet": KARA_SHEET, "fields": {"attack_test": "Fitness, Knife Expertise"}},
            {"name": "Bruno", "side": "NPC", "sheet": BRUNO_SHEET},
        ],
        initiative={"Kara": 14, "Bruno": 9},
        start=True,
        name="Market Day",
    )
    kara, bruno = ids["Kara"], ids["Bruno"]
    with Session.open(path) as s:
        knife = {"test": "Fitness, Knife Expertise", "vs_test": "Defense", "combat": True}
        _roll(s, "1d6x4", knife, kara, bruno, [5, 2, 4])
        s.apply({"type": "turn.next"})
        s.ui_set("selected", kara)
    return path


def fight_4d6(tmp_path: Path) -> Path:
    path, ids = make_save(
        tmp_path,
        "4d6",
        [
            {
                "name": "Kara",
                "fields": {"skills": {"Blades": 2, "Stealth": 3}, "attack_skill": "Blades", "initiative_bonus": 1},
            },
            {
                "name": "Bruno",
                "side": "NPC",
                "fields": {"skills": {"Perception": 1}, "contest_skill": "Perception", "defense_dc": 16},
            },
            {"name": "Gob", "side": "NPC", "hidden": True},
        ],
        initiative={"Kara": 15, "Bruno": 12, "Gob": 8},
        start=True,
        name="Undercity",
    )
    kara, bruno = ids["Kara"], ids["Bruno"]
    with Session.open(path) as s:
        s.apply({"type": "source.add", "id": kara, "kind": "advantage", "name": "High ground", "value": 1})
        s.apply({"type": "clock.add", "name": "Alarm", "segments": 4})
        _roll(s, "4d6", {"bonus": 2, "dc": 16, "combat": True}, kara, bruno, [6, 5, 4, 2, 1])
        s.ui_set("selected", kara)
    return path


BUILDERS = {"4d2": fight_4d2, "fudge": fight_fudge, "1d6x4": fight_1d6x4, "torg-2d10": fight_torg, "4d6": fight_4d6}


@pytest.mark.parametrize("system", ["fudge", "1d6x4", "4d6"])
def test_desk(snap_compare, tmp_path: Path, system: str) -> None:
    app = make_app(BUILDERS[system](tmp_path), rng=random.Random(1))

    async def ready(pilot) -> None:
        await main_screen(pilot)

    assert snap_compare(app, terminal_size=SMALL, run_before=ready)


@pytest.mark.parametrize("system", ["4d2", "fudge", "1d6x4", "4d6"])
def test_attack_dialog(snap_compare, tmp_path: Path, system: str) -> None:
    app = make_app(BUILDERS[system](tmp_path), rng=random.Random(1))

    async def attack(pilot) -> None:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        await odds_ready(pilot, dlg)

    assert snap_compare(app, terminal_size=SMALL, run_before=attack)


@pytest.mark.parametrize("system", sorted(BUILDERS))
def test_character_pane(snap_compare, tmp_path: Path, system: str) -> None:
    app = make_app(BUILDERS[system](tmp_path), rng=random.Random(1))

    async def pane(pilot) -> None:
        screen = await main_screen(pilot)
        screen.character.table.focus()
        await press(pilot, "down")

    assert snap_compare(app, terminal_size=SMALL, run_before=pane)
