"""The defaults a GM would pick (issue 18): the target of an attack is a standing foe
the players can see, only what a system declares remembered carries to the next roll
(and the dialog says so), an opposed roll fills both sides from the characters'
fields as an attack does, and a new character takes the system's fields in one
dialog. Driven with Pilot at 80×24; the save is checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    odds_ready,
    press,
    run,
    saved,
    screen_text,
    settle,
)
from textual.widgets import Input, Label

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.core.systems import get_spec
from gmdesk.tui.screens.confirm import FormDialog
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.form import Choice

pytestmark = pytest.mark.usefixtures("quick_odds")


def info(dlg: RollDialog) -> str:
    return str(dlg.query_one("#rd-info").render())


# ----------------------------------------------------------------- the default target


def fudge_fight(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Kara (PC) has knocked Bruno out (Incapacitated, her last target); Gob is a
    hidden NPC; Zed an NPC who can act. Kara's turn again."""
    path, ids = make_save(
        tmp_path,
        "fudge",
        [
            {"name": "Kara"},
            {"name": "Bruno", "side": "NPC"},
            {"name": "Gob", "side": "NPC", "hidden": True},
            {"name": "Zed", "side": "NPC"},
        ],
        initiative={"Kara": 10, "Bruno": 8, "Gob": 6, "Zed": 4},
        start=True,
    )
    spec = get_spec("fudge")
    with Session.open(path) as s:
        params = spec.params_from_json({"trait": "Superb", "vs_trait": "Terrible", "offense": 1, "combat": True})
        s.roll("fudge", params, actor=ids["Kara"], target=ids["Bruno"], combat=True, rng=FixedDice([2] * 8))
        assert s.state.characters[ids["Bruno"]].status == "unconscious"
    return path, ids


async def test_an_attack_defaults_to_a_standing_foe_the_players_see(tmp_path: Path) -> None:
    path, ids = fudge_fight(tmp_path)
    app = make_app(path, rng=FixedDice([2] * 8))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        # not Bruno (Unconscious, her last target), not Gob (hidden: it would hide Kara's roll)
        assert dlg.target == ids["Zed"]
        assert dlg.query_one("#rd-target", Choice).value == ids["Zed"]
        await odds_ready(pilot, dlg)
        await press(pilot, "enter")
        await settle(pilot)
        assert "Kara" in notes(app)[-1] and "Zed" in notes(app)[-1]
    state = saved(path)
    last = state.rolls[-1]
    assert last.target == ids["Zed"] and state.public_roll(last)


def test_the_default_target_rules(tmp_path: Path) -> None:
    path, ids = fudge_fight(tmp_path)
    spec = get_spec("fudge")
    with Session.open(path) as s:
        state = s.state
        kara, bruno, gob, zed = (ids[n] for n in ("Kara", "Bruno", "Gob", "Zed"))
        assert state.default_target(kara) == zed
        # a hidden roller may default to a hidden foe; an NPC's default is a PC
        assert state.default_target(gob) == kara
        # Kara's last target, while it can act, stays the default
        plain = spec.params_from_json({"trait": "Fair", "combat": True})
        s.roll("fudge", plain, actor=kara, target=zed, combat=True, rng=FixedDice([2] * 8))
        assert s.state.default_target(kara) == zed
        # an NPC attacking an NPC: the last target it chose is kept
        s.apply({"type": "character.reveal", "id": gob})
        s.roll("fudge", plain, actor=zed, target=gob, combat=True, rng=FixedDice([2] * 8))
        assert s.state.default_target(zed) == gob
        # … unless the GM hides it from the players while the roller is seen
        s.apply({"type": "character.hide", "id": gob})
        assert s.state.default_target(zed) == kara


# ----------------------------------------------------------------- what carries over


async def test_a_one_off_fold_does_not_carry_to_the_next_roll(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path, rng=FixedDice([3] * 8))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-fold", Choice).value = "positive"
        await settle(pilot)
        await press(pilot, "ctrl+s")
        await settle(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query_one("#p-fold", Choice).value == ""  # no fold: chosen once, for one roll
        odds = await odds_ready(pilot, dlg)
        assert odds.params["fold"] is None
        assert "last roll" not in info(dlg)
        await press(pilot, "ctrl+s")
        await settle(pilot)
    first, second = saved(path).rolls
    assert first.record.params["fold"] == "positive" and second.record.params["fold"] is None


async def test_a_remembered_value_says_it_came_from_the_last_roll(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "torg-2d10", [{"name": "Kara"}])
    app = make_app(path, rng=FixedDice([5, 5] * 4))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        dlg.query_one("#p-skill", Input).value = "12"
        dlg.query_one("#p-possibilities", Input).value = "0"
        dlg.query_one("#p-difficulty", Input).value = "10"
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        await odds_ready(pilot, dlg)
        assert dlg.query_one("#p-skill", Input).value == "12"  # declared remembered: the roller's skill
        assert dlg.query_one("#p-difficulty", Input).value == ""  # one-off: starts afresh
        assert "Skill value 12 — Kara's last roll" in info(dlg)
        await press(pilot, "enter")
        await settle(pilot)
    assert [r.record.params["skill"] for r in saved(path).rolls] == [12, 12]


# ----------------------------------------------------------------- opposed rolls


async def test_the_torg_opposed_roll_fills_both_sides_from_their_fields(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "torg-2d10",
        [
            {"name": "Kara", "fields": {"stats": {"Fire Combat": 13, "Dodge": 9}, "attack": "Fire Combat"}},
            {"name": "Bruno", "side": "NPC", "fields": {"stats": {"Dodge": 11}, "defense": "Dodge"}},
        ],
        initiative={"Kara": 10, "Bruno": 4},
        start=True,
    )
    app = make_app(path, rng=FixedDice([5, 5] * 4))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "o")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.target == ids["Bruno"]
        assert dlg.query_one("#p-skill", Input).value == "13"
        assert dlg.query_one("#p-difficulty", Input).value == "11"
        await odds_ready(pilot, dlg)
        assert "Kara's Fire Combat" in info(dlg) and "Bruno's Dodge" in info(dlg)
        await press(pilot, "enter")
        await settle(pilot)
    roll = saved(path).rolls[-1]
    assert roll.record.params["skill"] == 13 and roll.record.params["difficulty"] == 11
    assert roll.target == ids["Bruno"]


async def test_the_4d6_contest_fills_both_sides_and_vs_bonus_takes_a_skill_name(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "4d6",
        [
            {"name": "Kara", "fields": {"skills": {"Blades": 2, "Stealth": 3}, "attack_skill": "Blades"}},
            {
                "name": "Bruno",
                "side": "NPC",
                "fields": {
                    "skills": {"Perception": 1, "Athletics": 4},
                    "contest_skill": "Perception",
                    "defense_dc": 18,
                },
            },
        ],
        initiative={"Kara": 10, "Bruno": 4},
        start=True,
    )
    app = make_app(path, rng=FixedDice([3] * 10))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "o")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query_one("#p-bonus", Input).value == "2"
        assert dlg.query_one("#p-vs_bonus", Input).value == "1"
        # a contest compares totals: it does not ask for a DC (a plain roll does)
        assert not dlg.query("#p-dc")
        assert not [w for w in dlg.query(Label) if str(w.render()).strip() == "DC"]
        await odds_ready(pilot, dlg)
        assert "Bruno's Perception" in info(dlg)
        # Kara's least (2 + 3) beats Bruno's all 1s (1 + 3): the win on his Critical
        # Failure alone cannot happen, and the odds pane does not list it at 0%
        assert "Narrow victory" in screen_text(app) and "Narrow victory — op" not in screen_text(app)
        # the GM names another skill for each side: both read from the characters
        dlg.query_one("#p-bonus", Input).value = "Stealth"
        dlg.query_one("#p-vs_bonus", Input).value = "Athletics"
        odds = await odds_ready(pilot, dlg)
        assert odds is not None and odds.params["bonus"] == 3 and odds.params["vs_bonus"] == 4
        assert dlg.last_error == ""
        await press(pilot, "enter")
        await settle(pilot)
    roll = saved(path).rolls[-1]
    assert roll.record.params["bonus"] == 3 and roll.record.params["vs_bonus"] == 4


# ----------------------------------------------------------------- a new character


async def test_a_new_character_takes_the_systems_fields_in_one_dialog(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "torg-2d10", [])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "c")
        form = await dialog(pilot, FormDialog)
        labels = [f.label for f in form.fields]
        assert {"Attributes and skills", "Attack skill", "Defense", "Initiative"} <= set(labels)
        form.query_one("#form-name", Input).value = "Quinn"
        form.query_one("#form-field-stats", Input).value = "Dexterity=10, Fire Combat=13, Dodge=11"
        form.query_one("#form-field-attack", Input).value = "Fire Combat"
        # a stat that is not among the typed values is refused, named by its label; nothing saved
        form.query_one("#form-field-defense", Input).value = "Parry"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is form
        error = str(form.query_one("#dialog-error").render())
        assert "✗ Defense: 'Parry' is not among the Attributes and skills" in error and "Defense: Defense" not in error
        assert saved(path).characters == {}
        form.query_one("#form-field-defense", Input).value = "Dodge"
        await press(pilot, "enter")
        await settle(pilot)
        assert not isinstance(app.screen, FormDialog)
    (quinn,) = saved(path).characters.values()
    assert quinn.name == "Quinn"
    assert quinn.fields == {
        "stats": {"Dexterity": 10, "Fire Combat": 13, "Dodge": 11},
        "attack": "Fire Combat",
        "defense": "Dodge",
    }
    events = [e.type for e in saved_events(path)]
    assert events.count("character.add") == 1 and "character.fields" not in events


def saved_events(path: Path) -> list:
    with Session.open(path, readonly=True) as s:
        return list(s.events)
