"""With stored characters an attack in every system is ``a`` then Enter, no typing:
the GM keeps the numbers in the character pane (keys only, at 80×24), and the attack
takes the attacker's and the target's from there — the record's params hold them and
say where they came from, and the descriptor lands on whoever it applies to. Again
after quitting and reopening."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from helpers import SMALL, burst, main_screen, make_app, make_save, on_top, press, run, saved, settle, until
from test_tui_char_fields import add_entry, set_field, to_row

SHEET = "{name}\nDescriptor        Default  Current\n{rows}"

#: per system: the characters as created (a sheet for the system that keeps one), what
#: the GM then types into the pane for the attacker and the target (a named value on
#: a stats block's "+ add" row, a field's row, a source's "+ add" row), and what the
#: attack's record then holds without a key typed in the dialog
ATTACKS: dict[str, dict[str, Any]] = {
    "torg-2d10": {
        "roller": [
            ("entry", "stats", "Fire Combat 13"),
            ("entry", "stats", "Dodge 8"),
            ("field", "attack", "Fire Combat"),
        ],
        "target": [
            ("entry", "stats", "Dodge 10"),
            ("entry", "stats", "Fire Combat 9"),
        ],  # Defense: Dodge unless it says
        "params": {"skill": 13, "difficulty": 10},
        "from": {"skill": "Quinn's Fire Combat", "difficulty": "Trooper's Dodge"},
    },
    "fudge": {
        "roller": [("entry", "traits", "Sword Superb"), ("field", "attack_trait", "Sword"), ("field", "offense", "2")],
        "target": [
            ("entry", "traits", "Dodge Poor"),
            ("field", "defense_trait", "Dodge"),
            ("field", "defense_factor", "1"),
        ],
        "params": {"trait": 3, "vs_trait": -2, "offense": 2, "defense": 1},
        "from": {"trait": "Quinn's Sword", "vs_trait": "Trooper's Dodge"},
    },
    "4d6": {
        "roller": [("entry", "skills", "Blades 6"), ("field", "attack_skill", "Blades")],
        "target": [("field", "defense_dc", "12")],
        "params": {"bonus": 6, "dc": 12},
        "from": {"bonus": "Quinn's Blades", "dc": "Trooper's Defense DC"},
    },
    "1d6x4": {
        "sheets": {
            "Quinn": "Precision         +3       +3\nSlingshot         +2       +2\n",
            "Trooper": "Defense           +1       +1\nVitality          +6       +6\n",
        },
        "roller": [("field", "attack_test", "Precision, Slingshot")],
        "target": [],  # Defense descriptors: Defense unless it says
        "params": {"bonus": 5, "vs_bonus": 1},
        "from": {},
    },
    "4d2": {
        "roller": [("source", "shift", "Sword 2")],
        "target": [("source", "shift", "Shield 1")],
        "params": {"shift": 1},
        "from": {},
    },
}


async def type_into_pane(pilot: Any, pane: Any, steps: list[tuple[str, str, str]]) -> None:
    for kind, name, text in steps:
        if kind == "entry":
            await add_entry(pilot, pane, name, text)
        elif kind == "field":
            await set_field(pilot, pane, name, text)
        else:
            await to_row(pilot, pane, "add", name)
            await press(pilot, "enter")
            await burst(pilot, text)
            await press(pilot, "enter")
        assert not str(pane.query_one("#character-message").render()), (kind, name, text)


async def attack_with_a_and_enter(pilot: Any) -> None:
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.roll import RollDialog

    await press(pilot, "a")
    await until(pilot, lambda: on_top(pilot.app, RollDialog))
    await settle(pilot)
    await press(pilot, "enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, MainScreen))
    await settle(pilot)


def check_attack(path: Path, ids: dict[str, str], case: dict[str, Any], attacks: int) -> None:
    """The latest roll is Quinn's attack at Trooper with the numbers of their fields,
    and what it did to Trooper is on Trooper."""
    state = saved(path)
    entries = [e for e in state.rolls if getattr(e, "kind", "roll") == "roll"]
    assert len(entries) == attacks
    entry = entries[-1]
    assert (entry.actor, entry.target, entry.combat) == (ids["Quinn"], ids["Trooper"], True)
    params = entry.record.params
    assert {k: params.get(k) for k in case["params"]} == case["params"], params
    origins = entry.record.extra.get("from", {})
    for name, origin in case["from"].items():
        assert origins.get(name) == origin, origins
    for side, who in (("target", "Trooper"), ("attacker", "Quinn")):
        taken = [d.text for d in entry.record.descriptors if d.applies_to == side and d.wound]
        assert [w.text for w in state.characters[ids[who]].wounds if w.roll_seq == entry.seq] == taken, side


@pytest.mark.parametrize("system", list(ATTACKS))
async def test_an_attack_is_a_then_enter_with_stats_kept_in_the_pane(tmp_path: Path, system: str) -> None:
    """Stats typed into the pane for two characters; ``a`` then Enter is the attack, with
    the attacker's and the target's numbers; again after quitting and reopening."""
    case = ATTACKS[system]
    sheets = case.get("sheets", {})
    people = [
        {"name": n, "side": side, **({"sheet": SHEET.format(name=n, rows=sheets[n])} if n in sheets else {})}
        for n, side in (("Quinn", "PC"), ("Trooper", "NPC"))
    ]
    path, ids = make_save(tmp_path, system, people, initiative={"Quinn": 12, "Trooper": 8}, start=True)
    app = make_app(path, rng=random.Random(11))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        assert pane.border_title == "Quinn"
        await press(pilot, "tab")
        await type_into_pane(pilot, pane, case["roller"])
        await press(pilot, "shift+tab", "down", "tab")
        assert pane.border_title == "Trooper"
        await type_into_pane(pilot, pane, case["target"])
        await press(pilot, "shift+tab")
        await attack_with_a_and_enter(pilot)
        check_attack(path, ids, case, 1)
        await press(pilot, "q")
    app = make_app(path, rng=random.Random(12))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await attack_with_a_and_enter(pilot)
        check_attack(path, ids, case, 2)
    assert saved(path).characters[ids["Trooper"]].wounds  # (these dice) the attacks left a mark
