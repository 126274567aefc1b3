"""Attacks and system moves through the real app, with scripted dice: the GM presses
``a``, fills the attack dialog, Enter — the descriptor is applied (wounds, Vitality,
Unconscious / Dead), logged, announced ("Kara hits Bruno: Severe Wound"), saved, and
undoable in one step. Plus the torg Possibility spend / cancel / buy-off, 1d6x4
Healing and new day, 4d6 clocks and contests, 4d2 folds and fudge opposed rolls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import (
    LARGE,
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    odds_ready,
    on_top,
    palette,
    press,
    run,
    saved,
    screen_text,
    settle,
)
from textual.widgets import Input, Select

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.tui.screens.confirm import ChoiceDialog, ConfirmDialog, FormDialog
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.form import Choice

pytestmark = pytest.mark.usefixtures("quick_odds")

KARA_SHEET = """Kara
Descriptor        Default  Current
Fitness           +1       +1
Knife Expertise   +1       +1
Reflex            +2       +2
Vitality          +5       +5
Healing Ability   +0 (2)
"""

BRUNO_SHEET = """Bruno
Descriptor        Default  Current
Defense           +1       +1
Vitality          +3       +3
"""


async def attack(pilot: Any, **fields: str) -> RollDialog:
    """Press ``a``, type the given parameters, Enter; returns the dialog."""
    await press(pilot, "a")
    dlg = await dialog(pilot, RollDialog)
    for name, value in fields.items():
        dlg.query_one(f"#p-{name}", Input).value = value
    await pilot.pause()
    await press(pilot, "enter")
    await settle(pilot)
    return dlg


def fighters(system: str, tmp_path: Path, **extra: dict) -> tuple[Path, dict]:
    kara = {"name": "Kara", **extra.get("kara", {})}
    bruno = {"name": "Bruno", "side": "NPC", **extra.get("bruno", {})}
    return make_save(tmp_path, system, [kara, bruno], initiative={"Kara": 10, "Bruno": 4}, start=True)


async def test_attack_4d2_applies_the_descriptor_and_undoes_in_one_step(tmp_path: Path) -> None:
    path, ids = fighters("4d2", tmp_path)
    # positive pair 5 4, negative pair 2 1: Number +6 → Severe Wound (organic column)
    app = make_app(path, rng=FixedDice([5, 4, 2, 1]))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.dialog_title == "Attack" and dlg.actor == ids["Kara"] and dlg.target == ids["Bruno"]
        assert dlg.query_one("#rd-target", Choice).value == ids["Bruno"]
        odds = await odds_ready(pilot, dlg)
        assert odds.params["combat"] is True
        await press(pilot, "enter")
        await settle(pilot)
        assert "Kara hits Bruno: Severe Wound" in notes(app)[-1]
        text = screen_text(app)
        assert "Kara → Bruno: 4d2 +6 Masterful Success → Severe Wound [" in text
        assert "1 wd" in text  # Bruno's health cell
        bruno = saved(path).characters[ids["Bruno"]]
        assert [w.text for w in bruno.wounds] == ["Severe Wound"]
        # one undo takes the whole attack back: the roll and the wound
        await press(pilot, "u")
        await settle(pilot)
        assert notes(app)[-1].startswith("Undone:")
        assert screen.rolllog.count == 0
    state = saved(path)
    assert state.characters[ids["Bruno"]].wounds == [] and state.rolls == []


async def test_attack_4d2_fatal_wound_kills(tmp_path: Path) -> None:
    path, ids = fighters("4d2", tmp_path)
    with Session.open(path) as s:
        s.apply({"type": "source.add", "id": ids["Kara"], "kind": "shift", "name": "Pistol", "value": 2})
    # Number +7, Pistol 2 → +9 Fatal Wound
    app = make_app(path, rng=FixedDice([6, 4, 2, 1]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await attack(pilot)
        assert "Kara hits Bruno: Fatal Wound" in notes(app)[-1]
        assert "DEAD" in screen_text(app)
    assert saved(path).characters[ids["Bruno"]].status == "dead"


async def test_attack_fudge(tmp_path: Path) -> None:
    path, ids = fighters("fudge", tmp_path)
    # 2d3−2d3: Kara 3 3 − 1 1 = +4 on Good (+1) → Superb +2; Bruno 2 2 − 2 2 = 0 on Fair
    # relative degree 5 → damage 5 → Very Hurt
    app = make_app(path, rng=FixedDice([3, 3, 1, 1, 2, 2, 2, 2]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await attack(pilot, trait="Good", vs_trait="Fair")
        assert "Kara hits Bruno: Very Hurt" in notes(app)[-1]
        assert "Wins by 5 (Superb +2 vs Fair) → Very Hurt [" in screen_text(app)
    bruno = saved(path).characters[ids["Bruno"]]
    assert [(w.text, w.amount) for w in bruno.wounds] == [("Very Hurt", 5)]


async def test_attack_1d6x4_lowers_vitality_to_unconscious_then_dead(tmp_path: Path) -> None:
    path, ids = fighters("1d6x4", tmp_path, kara={"sheet": KARA_SHEET}, bruno={"sheet": BRUNO_SHEET})
    # Kara 4×5 + Fitness 1 + Knife Expertise 1 = 22 vs Bruno 4×2 + Defense 1 = 9: hit, d6 = 4
    # then again: 22 vs 9, d6 = 6 → Vitality −1 − 6 = −7 (Unconscious); again (an
    # Unconscious Bruno rolls no defense: 22 vs 4 + 1) d6 = 1 → Dead
    app = make_app(path, rng=FixedDice([5, 2, 4, 5, 2, 6, 5, 1]))
    async with run(app, size=LARGE) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query_one("#p-vs_test", Input).value == "Defense"  # the defender's Defense Test
        dlg.last_odds = None
        dlg.query_one("#p-test", Input).value = "Fitness, Knife Expertise"
        await odds_ready(pilot, dlg)
        assert "Test +2 from Fitness, Knife Expertise" in str(dlg.query_one("#rd-info").render())
        await press(pilot, "enter")
        await settle(pilot)
        assert "Kara hits Bruno: Wound −4 Vitality" in notes(app)[-1]
        assert "Bruno: Vitality" in notes(app)[-1]
        assert saved(path).characters[ids["Bruno"]].vitality_current == -1
        # the dialog remembers Kara's last attack
        await attack(pilot)
        assert saved(path).characters[ids["Bruno"]].status == "unconscious"
        assert "UNC" in screen_text(app)
        # the Unconscious are no default target any more: the GM picks Bruno by hand
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.target is None
        dlg.query_one("#rd-target", Choice).value = ids["Bruno"]
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        assert "DEAD" in screen_text(app)
    bruno = saved(path).characters[ids["Bruno"]]
    assert bruno.status == "dead" and bruno.vitality_current == -8


async def test_attack_1d6x4_missing_item_fails_automatically(tmp_path: Path) -> None:
    # Bruno's sheet lists a Slingshot: it is a Physical Item, which Kara lacks
    path, ids = fighters("1d6x4", tmp_path, kara={"sheet": KARA_SHEET}, bruno={"sheet": BRUNO_SHEET + "Slingshot\n"})
    app = make_app(path, rng=FixedDice([6, 1]))
    async with run(app, size=LARGE) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        dlg.last_odds = None
        dlg.query_one("#p-test", Input).value = "Precision, Slingshot Expertise, Slingshot"
        await odds_ready(pilot, dlg)
        assert "Automatic failure: Slingshot is missing" in str(dlg.query_one("#rd-info").render())
        await press(pilot, "enter")
        await settle(pilot)
    state = saved(path)
    assert state.characters[ids["Bruno"]].vitality_current == 3
    assert "Slingshot is missing" in str(state.rolls[-1].record.get("auto_fail"))


async def test_attack_torg_spend_and_cancel_a_possibility(tmp_path: Path) -> None:
    path, ids = fighters(
        "torg-2d10",
        tmp_path,
        kara={"reality_rated": True, "possibilities": 3},
        bruno={"reality_rated": True, "possibilities": 2},
    )
    # hot 3, cold 8 → +3; skill 12 vs defense 10 → 5 result points → Severe Stun;
    # a Possibility die 7 → +10 → 12 result points → Mortal Wound
    app = make_app(path, rng=FixedDice([3, 8, 7]))
    async with run(app, size=LARGE) as pilot:
        await main_screen(pilot)
        dlg = await attack(pilot, skill="12", difficulty="10")
        assert not on_top(app, RollDialog), dlg.last_error
        assert "Kara hits Bruno: Severe Stun" in notes(app)[-1]
        await press(pilot, "P")
        await settle(pilot)
        assert "Kara spends a Possibility" in notes(app)[-1] and "+10" in notes(app)[-1]
        state = saved(path)
        assert state.characters[ids["Kara"]].possibilities == 2
        assert [w.text for w in state.characters[ids["Bruno"]].wounds] == ["Mortal Wound"]
        assert "Mortal Wound" in screen_text(app)
        # Bruno cancels it: both lose one, the die is voided, the attack reads Severe Stun again
        await press(pilot, "C")
        choice = await dialog(pilot, ChoiceDialog)
        assert [label for _, label in choice.choices] == ["Bruno (2 left)"]
        await press(pilot, "enter")
        await settle(pilot)
        assert "Bruno cancels the Possibility" in notes(app)[-1]
    state = saved(path)
    assert state.characters[ids["Kara"]].possibilities == 2
    assert state.characters[ids["Bruno"]].possibilities == 1
    assert [w.text for w in state.characters[ids["Bruno"]].wounds] == ["Severe Stun"]
    assert state.rolls[-1].record.value == 3


async def test_torg_cancel_refused_without_a_spend_and_buy_off(tmp_path: Path) -> None:
    path, ids = fighters(
        "torg-2d10",
        tmp_path,
        kara={"reality_rated": True, "possibilities": 3},
        bruno={"reality_rated": True, "possibilities": 2},
    )
    app = make_app(path, rng=FixedDice([3, 8]))
    async with run(app, size=LARGE) as pilot:
        screen = await main_screen(pilot)
        await attack(pilot, skill="12", difficulty="10")
        await press(pilot, "C")
        await settle(pilot)
        assert "only a spent Possibility can be cancelled" in notes(app)[-1]
        # Bruno buys off the Severe Stun with one of his Possibilities
        await press(pilot, "down")  # select Bruno
        await settle(pilot)
        assert screen.selected == ids["Bruno"]
        await palette(pilot, "Buy off damage")
        assert "Bruno buys off Severe Stun" in notes(app)[-1]
    bruno = saved(path).characters[ids["Bruno"]]
    assert bruno.wounds == [] and bruno.possibilities == 1


async def test_torg_up_and_stymied_fill_the_dialog_and_can_be_switched_off(tmp_path: Path) -> None:
    path, ids = fighters("torg-2d10", tmp_path, kara={"reality_rated": True, "possibilities": 1})
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Kara"], "name": "Stymied", "rounds": 1})
    app = make_app(path, rng=FixedDice([5, 9]))
    async with run(app, size=LARGE) as pilot:
        await main_screen(pilot)
        assert "STY" in screen_text(app)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        from textual.widgets import Checkbox

        assert dlg.query_one("#p-stymied", Checkbox).value is True
        assert dlg.query_one("#p-up", Checkbox).value is False
        odds = await odds_ready(pilot, dlg)
        assert odds.params["stymied"] is True
        # switched off for this roll only: hot 5, cold 9 → +5 with no question of a reroll
        dlg.query_one("#p-stymied", Checkbox).value = False
        await pilot.pause()
        await press(pilot, "enter")
        await settle(pilot)
        assert saved(path).rolls[-1].record.params["stymied"] is False
        # the Up toggle from the command palette
        await palette(pilot, "Toggle Up")
        assert "UP" in screen_text(app)
    assert [c.name for c in saved(path).characters[ids["Kara"]].conditions] == ["Stymied", "Up"]


async def test_attack_4d6_and_partial_success_hurts_both(tmp_path: Path) -> None:
    path, ids = fighters("4d6", tmp_path)
    # 6 5 4 3 + 2 = 20 vs DC 16 → Full Success → Wound on Bruno;
    # then 3 3 3 3 + 2 = 14 → margin −2 → Partial: Stun on Bruno, Backfoot on Kara
    app = make_app(path, rng=FixedDice([6, 5, 4, 3, 3, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await attack(pilot, bonus="2")
        assert "Kara hits Bruno: Wound" in notes(app)[-1]
        await attack(pilot, bonus="2")
        assert "Kara hits Bruno: Stun; Kara suffers Backfoot" in notes(app)[-1]
    state = saved(path)
    assert [w.text for w in state.characters[ids["Bruno"]].wounds] == ["Wound", "Stun"]
    assert [w.text for w in state.characters[ids["Kara"]].wounds] == ["Backfoot"]


async def test_4d6_contest_and_clocks(tmp_path: Path) -> None:
    path, ids = fighters("4d6", tmp_path)
    # contest: Kara 6 6 5 2 + 0 = 19 vs Bruno 4 3 3 3 + 0 = 13 → Clear victory
    app = make_app(path, rng=FixedDice([6, 6, 5, 2, 4, 3, 3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "o")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query_one("#p-vs_bonus", Input).value == "0"
        await press(pilot, "enter")
        await settle(pilot)
        assert "Clear victory" in notes(app)[-1]
        await press(pilot, "K")
        form = await dialog(pilot, FormDialog)
        await press(pilot, *"Suspicion")
        form.query_one("#form-segments", Input).value = "6"
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "k")
        form = await dialog(pilot, FormDialog)
        form.query_one("#form-halves", Input).value = "3"
        await press(pilot, "enter")
        await settle(pilot)
        assert "Clocks: Suspicion 1½/6" in screen_text(app)
    state = saved(path)
    assert state.clocks["Suspicion"].halves == 3 and state.clocks["Suspicion"].segments == 6
    assert state.rolls[-1].record.get("contest") == "Clear"


async def test_4d2_folded_roll_and_maneuver(tmp_path: Path) -> None:
    path, ids = fighters("4d2", tmp_path)
    # negative Number −5 folded positive → +5; then a maneuver +2
    app = make_app(path, rng=FixedDice([1, 1, 4, 3, 4, 3, 3, 2]))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        screen.action_system_move("fold")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query_one("#p-fold", Choice).value == "positive"
        await press(pilot, "enter")
        await settle(pilot)
        screen.action_system_move("maneuver")
        dlg = await dialog(pilot, RollDialog)
        await press(pilot, "enter")
        await settle(pilot)
    rolls = saved(path).rolls
    assert rolls[0].record.value == 5 and rolls[0].record.get("fold") == "positive"
    assert rolls[1].record.get("maneuver") is True and rolls[1].record.descriptors[0].table == "4d2-maneuver"


async def test_fudge_opposed_roll(tmp_path: Path) -> None:
    path, ids = fighters("fudge", tmp_path)
    app = make_app(path, rng=FixedDice([2, 2, 1, 1, 2, 1, 2, 2]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "o")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.query_one("#p-vs_trait", Input).value == "Fair"
        dlg.query_one("#p-trait", Input).value = "Good"
        await pilot.pause()
        await press(pilot, "enter")
        await settle(pilot)
    record = saved(path).rolls[-1].record
    assert record.get("relative_degree") == 4 and record.outcome == "Wins by 4"


async def test_1d6x4_healing_and_new_day(tmp_path: Path) -> None:
    path, ids = fighters("1d6x4", tmp_path, kara={"sheet": KARA_SHEET}, bruno={"sheet": BRUNO_SHEET})
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Bruno"], "fields": {"vitality_current": -2}})
    # Healing d6 = 4: −2 → 2 (never above the default 3)
    app = make_app(path, rng=FixedDice([4]))
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "h")
        form = await dialog(pilot, FormDialog)
        form.query_one("#form-healer", Select).value = ids["Kara"]
        form.query_one("#form-target", Select).value = ids["Bruno"]
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert "Kara heals Bruno: Vitality 2/3" in notes(app)[-1]
        screen.action_system_move("new_day")
        await dialog(pilot, ConfirmDialog)
        await press(pilot, "y")
        await settle(pilot)
        assert "new day" in notes(app)[-1].lower()
    bruno = saved(path).characters[ids["Bruno"]]
    assert bruno.vitality_current == 3
