"""The roll dialog's form is generated from each system's declared parameters: every
installed system's dialog opens and rolls with what it offers, an attack fills its
numbers from the roller's and the target's character fields (saying where each came
from), and picking another target changes the numbers the old one filled while the
values the GM typed stay."""

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
    on_top,
    press,
    run,
    saved,
    settle,
)
from textual.widgets import Input

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.core.systems import get_spec, system_ids
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.form import Choice

pytestmark = pytest.mark.usefixtures("quick_odds")


@pytest.mark.parametrize("system", system_ids())
async def test_every_system_rolls_with_what_its_dialog_offers(tmp_path: Path, system: str) -> None:
    path, ids = make_save(tmp_path, system, [{"name": "Ann"}, {"name": "Bob", "side": "NPC"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        screen.selected = ids["Ann"]
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.system == system
        odds = await odds_ready(pilot, dlg)
        assert odds is not None and odds.system == system, dlg.last_error
        await press(pilot, "enter")
        await settle(pilot)
        assert not on_top(app, RollDialog)
    rolls = saved(path).rolls
    assert [r.record.system for r in rolls] == [system]
    spec = get_spec(system)
    # what the form offered (and its odds showed) is what was rolled
    assert spec.params_from_json(dict(rolls[0].record.params)) == spec.params_from_json(dict(odds.params))


async def test_an_attack_takes_its_numbers_from_the_characters_and_follows_the_target(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Renna"}, {"name": "Guard", "side": "NPC"}, {"name": "Sentinel", "side": "NPC"}],
        initiative={"Renna": 12, "Guard": 8, "Sentinel": 5},
        start=True,
    )
    with Session.open(path) as s:
        s.apply({"type": "character.fields", "id": ids["Renna"], "set": {"skills": {"Blades": 3}}})
        s.apply({"type": "character.fields", "id": ids["Renna"], "set": {"attack_skill": "Blades"}})
        s.apply({"type": "character.fields", "id": ids["Guard"], "set": {"defense_dc": 14}})
        s.apply({"type": "character.fields", "id": ids["Sentinel"], "set": {"defense_dc": 18}})
    # 4 4 4 4 + 3 = 19: against the Sentinel's DC 18 a Full Success
    app = make_app(path, rng=FixedDice([4, 4, 4, 4]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.target == ids["Guard"]
        bonus, dc = dlg.query_one("#p-bonus", Input), dlg.query_one("#p-dc", Input)
        assert (bonus.value, dc.value) == ("3", "14")
        await odds_ready(pilot, dlg)
        info = str(dlg.query_one("#rd-info").render())
        assert "Bonus 3 — Renna's Blades" in info and "DC 14 — Guard's Defense DC" in info
        # the GM types a position; another target: its DC comes in, the typed value stays
        dlg.query_one("#p-position", Choice).value = "high"
        dlg.query_one("#rd-target", Choice).value = ids["Sentinel"]
        await settle(pilot)
        assert (bonus.value, dc.value) == ("3", "18")
        assert dlg.query_one("#p-position", Choice).value == "high"
        assert "DC 18 — Sentinel's Defense DC" in str(dlg.query_one("#rd-info").render())
        await press(pilot, "enter")
        await settle(pilot)
        assert "Renna hits Sentinel" in notes(app)[-1]
    entry = saved(path).rolls[-1]
    assert (entry.record.params["bonus"], entry.record.params["dc"], entry.record.params["position"]) == (3, 18, "high")
    assert entry.record.extra.get("from", {}).get("dc") == "Sentinel's Defense DC"


async def test_a_typed_value_stays_when_the_target_changes_and_a_named_stat_reads_its_value(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "torg-2d10",
        [
            {"name": "Quin", "reality_rated": True},
            {"name": "Trooper", "side": "NPC"},
            {"name": "Edeinos", "side": "NPC"},
        ],
        initiative={"Quin": 12, "Trooper": 8, "Edeinos": 5},
        start=True,
    )
    with Session.open(path) as s:
        s.apply({"type": "character.fields", "id": ids["Quin"], "set": {"stats": {"Fire Combat": 13, "Dodge": 9}}})
        s.apply({"type": "character.fields", "id": ids["Trooper"], "set": {"stats": {"Dodge": 11}}})
        s.apply({"type": "character.fields", "id": ids["Edeinos"], "set": {"stats": {"Dodge": 8}}})
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        skill, difficulty = dlg.query_one("#p-skill", Input), dlg.query_one("#p-difficulty", Input)
        assert difficulty.value == "11"  # the Trooper's Dodge
        skill.value = "Fire Combat"  # a named stat instead of a number
        difficulty.value = "12"  # typed by the GM
        await settle(pilot)
        dlg.query_one("#rd-target", Choice).value = ids["Edeinos"]
        await settle(pilot)
        assert difficulty.value == "12"  # what the GM typed stays
        odds = await odds_ready(pilot, dlg)
        assert odds is not None and (odds.params["skill"], odds.params["difficulty"]) == (13, 12)
        assert "Skill value 13 — Quin's Fire Combat" in str(dlg.query_one("#rd-info").render())
        difficulty.value = ""
        skill.value = "Climbing"
        await settle(pilot)
        assert "Skill value: Quin has no 'Climbing'" in str(dlg.query_one("#rd-error").render())
