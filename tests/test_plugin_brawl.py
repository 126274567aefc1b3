"""The second worked example plug-in (``examples/gmdesk-brawl``), installed by pip as a
GM would, with no change to gmdesk: its attacks hurt Vitality, knock out and kill by
its own rule (Down below 0, dead at −5), its rolls move a clock, and it declares a
move — at the desk, at 80×24, and in the save."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from coin_plugin import brawl_site, registered
from helpers import (
    SMALL,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    palette,
    press,
    run,
    saved,
    screen_text,
    settle,
)
from textual.widgets import Input

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.tui.screens.confirm import FormDialog
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.controls import StepSelect
from gmdesk.tui.widgets.form import Choice

pytestmark = pytest.mark.usefixtures("quick_odds")


@pytest.fixture
def brawl() -> Iterator[Any]:
    """The brawl system, installed and registered in this process (and forgotten after)."""
    from gmdesk.core.systems import get_spec

    with registered(brawl_site()):
        yield get_spec("brawl")


def test_its_rules_and_declaration(brawl: Any) -> None:
    assert brawl.name == "Bar-room brawl" and brawl.clocks
    vitality = brawl.harm.vitality
    assert (vitality.hurt_by_amount, vitality.unconscious_at, vitality.dead_at) == (True, -1, -5)
    hit = brawl.module.roll(brawl.Params(combat=True, damage=3), FixedDice([4, 4]))
    assert (hit.value, hit.outcome, hit.get("margin"), hit.get("clock")) == (8, "Hit", 1, 1)
    assert [(d.text, d.applies_to, d.amount) for d in hit.descriptors] == [("Punch", "target", 3)]
    strong = brawl.module.roll(brawl.Params(combat=True, damage=3), FixedDice([6, 5]))
    assert (strong.outcome, strong.get("clock"), strong.descriptors[0].amount) == ("Strong hit", 2, 6)
    miss = brawl.module.roll(brawl.Params(combat=True), FixedDice([1, 2]))
    assert (miss.outcome, miss.get("clock"), miss.descriptors) == ("Miss", 0, ())
    odds = brawl.module.odds(brawl.Params())
    assert odds.outcomes == (("Strong hit", Fraction(1, 6)), ("Hit", Fraction(5, 12)), ("Miss", Fraction(5, 12)))
    assert [m.id for m in brawl.moves] == ["brawl_shove", "brawl_patch", "clock_add", "clock_tick"]


async def test_at_the_desk_patch_up_heals_by_its_own_rule_and_wakes_the_down(brawl: Any, tmp_path: Path) -> None:
    """*Patch up*, gmdesk's heal move with brawl's own d3: from the palette, a Down
    character gets Vitality back and is up again, never above its usual; the Dead are
    not offered; no descriptor sheet is needed, and the save holds it as a roll."""
    path, ids = make_save(
        tmp_path,
        "brawl",
        [
            {"name": "Ann", "vitality": 6},
            {"name": "Bob", "side": "NPC", "vitality": 3},
            {"name": "Cid", "side": "NPC", "vitality": 1},
        ],
        initiative={"Ann": 10, "Bob": 5, "Cid": 3},
        start=True,
    )
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Bob"], "fields": {"vitality_current": -3}})
        s.apply({"type": "character.status", "id": ids["Cid"], "status": "dead"})
        assert s.state.characters[ids["Bob"]].status == "unconscious"
        patients = dict(s.move_form("brawl_patch", {"acting": ids["Ann"]})[1].choices)
        assert set(patients) == {ids["Ann"], ids["Bob"]}  # the Dead stay dead: not offered
    app = make_app(path, rng=FixedDice([3, 3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await palette(pilot, "Patch up")
        form = await dialog(pilot, FormDialog)
        target = form.query_one("#form-target", StepSelect)
        assert form.query_one("#form-healer", StepSelect).value == ids["Ann"]  # the one acting
        target.value = ids["Bob"]
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert notes(app)[-1] == "Ann heals Bob: Vitality 0/3"
        assert "V0/3" in row(app, "Bob") and "UNC" not in row(app, "Bob")  # up again
        await palette(pilot, "Patch up")
        form = await dialog(pilot, FormDialog)
        form.query_one("#form-target", StepSelect).value = ids["Bob"]
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert "V3/3" in row(app, "Bob")  # 0 + 3, never above the usual 3
    state = saved(path)
    assert state.characters[ids["Bob"]].vitality_current == 3
    assert [(e.kind, e.record.outcome) for e in state.rolls] == [("heal", "Patched up +3 Vitality")] * 2


def row(app: Any, name: str) -> str:
    """The initiative list's row of ``name`` as the screen shows it."""
    return next(line for line in screen_text(app).splitlines() if f" {name} " in line.split("││")[0])


async def attack(pilot: Any, clock: str) -> RollDialog:
    """Press ``a``, send the roll's progress to ``clock``, Enter."""
    await press(pilot, "a")
    dlg = await dialog(pilot, RollDialog)
    dlg.query_one("#p-clock", Choice).value = clock
    await pilot.pause()
    await press(pilot, "enter")
    await settle(pilot)
    return dlg


async def test_at_the_desk_attacks_hurt_knock_out_kill_and_move_a_clock(brawl: Any, tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "brawl",
        [
            {"name": "Ann", "vitality": 6},
            {"name": "Bob", "side": "NPC", "vitality": 3},
            {"name": "Cid", "side": "NPC", "vitality": 1},
        ],
        initiative={"Ann": 10, "Bob": 5, "Cid": 3},
        start=True,
    )
    with Session.open(path) as s:
        s.apply({"type": "character.fields", "id": ids["Ann"], "set": {"fists": 3}})
    # 4+4 = 8 vs 7: Hit (3); 4+3 = 7: Hit (3); 6+5 = 11: Strong hit (6)
    app = make_app(path, rng=FixedDice([4, 4, 4, 3, 6, 5]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "K")  # its rolls move clocks: it has the clock moves
        form = await dialog(pilot, FormDialog)
        await press(pilot, *"Last orders")
        form.query_one("#form-segments", Input).value = "4"
        await press(pilot, "enter")
        await settle(pilot)
        dlg = await attack(pilot, "Last orders")
        assert (dlg.actor, dlg.target) == (ids["Ann"], ids["Bob"])
        assert "Bob: Vitality 3 → 0" in notes(app)[-1] and "Clock Last orders: 0 → ½ of 4" in notes(app)[-1]
        assert "V0/3" in row(app, "Bob") and "UNC" not in row(app, "Bob")  # 0 is not below 0: still up
        dlg = await attack(pilot, "Last orders")
        assert dlg.target == ids["Bob"]
        assert "Bob: Vitality 0 → −3 (Unconscious)" in notes(app)[-1]
        assert "V−3/3" in row(app, "Bob") and "UNC" in row(app, "Bob")
        assert "Clocks: Last orders 1/4" in screen_text(app)
        dlg = await attack(pilot, "Last orders")
        assert dlg.target == ids["Cid"]  # Bob is Down: the attack goes to the next foe
        assert "Cid: Vitality 1 → −5 (Dead)" in notes(app)[-1]
        assert "V−5/1" in row(app, "Cid") and "DEAD" in row(app, "Cid")
        assert "Clocks: Last orders 2/4" in screen_text(app)
        await palette(pilot, "Shove through")
        shove = await dialog(pilot, RollDialog)
        assert shove.dialog_title == "Shove through" and shove.query_one("#p-guard", Input).value == "9"
        await press(pilot, "escape")
        await settle(pilot)
    state = saved(path)
    bob, cid = state.characters[ids["Bob"]], state.characters[ids["Cid"]]
    assert (bob.vitality_current, bob.status, [w.text for w in bob.wounds]) == (-3, "unconscious", ["Punch", "Punch"])
    assert (cid.vitality_current, cid.status, [w.text for w in cid.wounds]) == (-5, "dead", ["Haymaker"])
    assert state.clocks["Last orders"].halves == 4
    assert [e.record.outcome for e in state.rolls] == ["Hit", "Hit", "Strong hit"]
    assert {e.clock for e in state.rolls} == {"Last orders"}


def test_the_command_lines_roll_says_what_a_blow_takes_off_vitality(brawl: Any, tmp_path: Path) -> None:
    """A brawl blow's text is only its name ("Haymaker"): the roll's one line and its
    breakdown say what it takes off the target's Vitality, as a 1d6x4 wound's text
    does ("Wound −6 Vitality"); a text that says its amount already is left as it is."""
    from helpers import gmdesk_run

    path, _ = make_save(
        tmp_path,
        "brawl",
        [{"name": "Ann", "vitality": 6}, {"name": "Bob", "side": "NPC", "vitality": 6}],
        initiative={"Ann": 10, "Bob": 5},
        start=True,
    )
    saves = str(path.parent)
    # seed 3: 2 + 5 + 3 = 10 against 7, a Strong hit: a Haymaker of twice 2
    done = gmdesk_run(
        "--saves",
        saves,
        "roll",
        "brawl",
        "--combat",
        "--skill",
        "3",
        "--seed",
        "3",
        "--save",
        "Table",
        "--as",
        "Ann",
        "--at",
        "Bob",
    )
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[0]
    assert line.endswith("Ann rolls at Bob: brawl [2 5] = 10 Strong hit → Haymaker −4 Vitality (target)"), line
    assert "Bob: Vitality 6 → 2" in done.stdout
    logged = gmdesk_run("--saves", saves, "log", "Table").stdout
    assert "Strong hit → Haymaker −4 Vitality (target)" in logged
    alone = gmdesk_run("roll", "brawl", "--combat", "--seed", "3").stdout  # 7 against 7: a Hit, a Punch of 2
    assert "→ Punch −2 Vitality (target)" in alone, alone
    assert "Vitality" not in gmdesk_run("roll", "brawl", "--seed", "3").stdout  # no attack, no blow

    from gmdesk.core.dice import Descriptor, RollRecord
    from gmdesk.core.render import record_line

    said = Descriptor(text="Haymaker for 4", applies_to="target", amount=4)
    record = RollRecord(system="brawl", params={}, dice=(), value=10, outcome="Strong hit", descriptors=(said,))
    assert record_line(record).endswith("→ Haymaker for 4 (target)")
