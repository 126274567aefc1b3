"""The members of the contract a plug-in had not yet used (the ``kit`` plug-in,
:mod:`kit_plugin`, installed by entry point) at the desk, Pilot at 80×24: the attack
dialog lists its sources and fills from them, from the session and from the sheet,
says how it read the Trick, refuses by its check in the field's words; the roll spends
the Trick's use and reads the session's own omen table; the curve is its declared
distribution; the initiative dialog takes its word, its modifier and its failure —
as each built-in that uses the member."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from coin_plugin import registered
from helpers import (
    SMALL,
    dialog,
    dialog_error,
    main_screen,
    make_app,
    make_save,
    notes,
    press,
    run,
    saved,
    screen_text,
    settle,
    until,
)
from kit_plugin import OMENS, kit_site
from textual.widgets import Input

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session

pytestmark = pytest.mark.usefixtures("quick_odds")

SHEET = "Descriptor        Default   Current\nLucky Charm       +2 (2)\n"


@pytest.fixture
def kit(tmp_path: Path) -> Iterator[None]:
    with registered(kit_site(tmp_path)):
        yield


def fight(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Ann (Knacks Kick 2, Dodge 1; Bold; her Pet trick the Lucky Charm of her sheet)
    attacks Bob (Knacks Block 1), whose session reads the GM's own omens."""
    path, ids = make_save(
        tmp_path,
        "kit",
        [
            {"name": "Ann", "sheet": SHEET, "fields": {"knacks": {"Kick": 2, "Dodge": 1}, "pet_trick": "Lucky Charm"}},
            {"name": "Bob", "side": "NPC", "fields": {"knacks": {"Block": 1}}},
        ],
        initiative={"Ann": 3, "Bob": 1},
        start=True,
    )
    owls = tmp_path / "owls.json"
    owls.write_text(json.dumps({**OMENS, "name": "owls", "bands": [{"lo": None, "hi": None, "value": "Owls"}]}))
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Ann"], "name": "Bold"})
        # the session keeps the table itself (its content), never the file
        s.apply({"type": "session.settings", "changes": {"tables": {"kit-omens": json.loads(owls.read_text())}}})
    return path, ids


@pytest.mark.usefixtures("kit")
async def test_the_attack_dialog_fills_reads_and_spends_as_the_built_ins_do(tmp_path: Path) -> None:
    from gmdesk.tui.screens.roll import RollDialog
    from gmdesk.tui.widgets.rollsources import RollSources

    path, ids = fight(tmp_path)
    app = make_app(path, rng=FixedDice([3]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        await until(pilot, lambda: dlg.last_odds is not None)
        await settle(pilot)
        # ROLL_SOURCES: the roller's and the target's Knacks, each a box (as 4d2's shifts)
        names = [f"{b.source.who} {b.source.name}" for b in dlg.query_one(RollSources).boxes]
        assert names == ["Ann Kick", "Ann Dodge", "Bob Block"]
        text = screen_text(app)
        assert "Sources (Space: off for this roll)" in text and "Bob: Block +1" in text
        params = dlg.build_params()
        # sources_params: the net edge; session_defaults: Bold (as torg's Up);
        # read_filled: the Pet trick read on Ann's sheet (as 1d6x4's attack descriptor)
        assert (params.edge, params.bold, params.trick, params.trick_bonus) == (2, True, "Lucky Charm", 2)
        # read_form: what the dialog says of the Trick
        assert "Trick: Lucky Charm +2 on Ann's sheet" in screen_text(app)
        await press(pilot, "enter")
        await settle(pilot)
        assert "Ann: Lucky Charm (2) → (1)" in notes(app)[-1]  # roll_uses: said as 1d6x4's use
    state = saved(path)
    entry = state.rolls[-1]
    assert entry.record.value == 3 + 2 + 1 + 2
    assert entry.record.extra["omen"] == "Owls"  # TABLE_ROLES: the session's own table for the role
    rolled = entry.record.params
    assert (rolled["edge"], rolled["bold"], rolled["trick"], rolled["trick_bonus"]) == (2, True, "Lucky Charm", 2)
    assert state.characters[ids["Ann"]].sheet.uses("Lucky Charm") == 1  # roll_uses: one use spent
    # where the edge came from, kept with the roll as gmdesk roll --save keeps it
    assert entry.record.extra["from"]["edge"] == "Ann's Kick +2, Dodge +1; Bob's Block +1"


@pytest.mark.usefixtures("kit")
async def test_its_check_refuses_in_the_field_s_words_and_its_curve_is_its_distribution(tmp_path: Path) -> None:
    from gmdesk.tui.screens.roll import RollDialog

    path, ids = make_save(tmp_path, "kit", [{"name": "Ann"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        await until(pilot, lambda: dlg.last_odds is not None)
        await press(pilot, "ctrl+t")
        await until(pilot, lambda: dlg.last_curve is not None)
        # result_distribution: the curve goes on where the odds stop (five explosions, not two)
        assert max(v for v, _ in dlg.last_curve.values) == 35 > max(v for v, _ in dlg.last_odds.distribution)
        dlg.query_one("#p-trick_bonus", Input).value = "2"
        await press(pilot, "enter")
        await settle(pilot)
        error = str(dlg.query_one("#rd-error").render())
        assert error == "✗ Trick bonus: a Trick bonus needs a Trick", error  # the field's label, as a built-in's
        assert "--trick-bonus" not in screen_text(app)
    assert saved(path).rolls == []


@pytest.mark.usefixtures("kit")
async def test_the_initiative_dialog_takes_its_word_its_modifier_and_its_failure(tmp_path: Path) -> None:
    from gmdesk.tui.screens.confirm import FormDialog

    path, ids = make_save(
        tmp_path,
        "kit",
        [{"name": "Ann", "fields": {"speed": 2}}, {"name": "Bob"}, {"name": "Cat", "side": "NPC"}],
    )
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Cat"], "name": "Stunned"})
    app = make_app(path, rng=FixedDice([1, 6]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "i")
        form = await dialog(pilot, FormDialog)
        assert form.query_one("#form-m0", Input).value == "2"  # initiative_modifier: Ann's Speed
        form.query_one("#form-v1", Input).value = "Sluggish"
        await press(pilot, "enter")
        await settle(pilot)
        assert "a number, or Slow, Steady or Swift" in dialog_error(form)  # parse_initiative / INITIATIVE_HINT
        form.query_one("#form-v1", Input).value = "Swift"
        await press(pilot, "enter")
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        await settle(pilot)
    state = saved(path)
    order = [(state.characters[x.char_id].name, x.initiative) for x in state.encounter.order]
    assert order == [("Bob", 5), ("Ann", 3), ("Cat", 2)]  # Cat's initiative fails: seated after all who rolled
    assert [r.record.get("auto_fail") for r in state.rolls if r.actor == ids["Cat"]] == ["Stunned"]


async def test_a_built_in_s_sources_are_kept_with_its_roll_at_the_desk_too(tmp_path: Path) -> None:
    """4d2's shift from Vex's skills: the record says where it came from, as
    ``gmdesk roll 4d2 --save … --as Vex`` does; a shift the GM typed says nothing."""
    from gmdesk.tui.screens.roll import RollDialog

    path, ids = make_save(
        tmp_path,
        "4d2",
        [{"name": "Vex", "fields": {"skills": {"Pistol": 1, "DEX": 1}}}, {"name": "Thug", "side": "NPC"}],
        initiative={"Vex": 3, "Thug": 1},
        start=True,
    )
    app = make_app(path, rng=FixedDice([6, 4, 1, 1, 6, 4, 1, 1]))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        await until(pilot, lambda: dlg.last_odds is not None)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        await until(pilot, lambda: dlg.last_odds is not None)
        dlg.query_one("#p-shift", Input).value = "1"
        await press(pilot, "enter")
        await settle(pilot)
    first, second = (entry.record for entry in saved(path).rolls[-2:])
    assert (first.params["shift"], first.extra["from"]["shift"]) == (2, "Vex's Pistol +1, DEX +1")
    assert second.params["shift"] == 1 and "shift" not in second.extra.get("from", {})


@pytest.mark.usefixtures("kit")
async def test_joining_the_encounter_asks_for_its_initiative_in_its_own_words(tmp_path: Path) -> None:
    """``INITIATIVE_HINT`` names what may be typed (as fudge's "a number or a ladder
    level"), and ``parse_initiative`` reads it: Bob joins at Steady, 3."""
    from helpers import burst, select_entry

    from gmdesk.tui.screens.confirm import InputDialog

    path, ids = make_save(tmp_path, "kit", [{"name": "Ann"}, {"name": "Bob"}], initiative={"Ann": 4}, start=True)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await select_entry(pilot, ids["Bob"])
        await press(pilot, "+")
        await dialog(pilot, InputDialog)
        assert "Initiative for Bob (a number, or Slow, Steady or Swift;" in screen_text(app)
        await burst(pilot, "Steady")
        await press(pilot, "enter")
        await until(pilot, lambda: not isinstance(app.screen, InputDialog))
        await settle(pilot)
        assert "Bob joins the encounter at initiative 3" in notes(app)
    state = saved(path)
    assert [(state.characters[x.char_id].name, x.initiative) for x in state.encounter.order] == [("Ann", 4), ("Bob", 3)]
