"""Initiative groups at the desk (Pilot, 80×24): the order shows a group as one row
"▸ Gospog ×3" that Enter opens to its members; ``a`` attacks with the member who
acts and at the first standing member of a group; ``g`` groups characters in a
form (a label that is a character's name refused with the field's label, nothing
saved), ``G`` splits the group; the save holds each change and ``u`` undoes it."""

from __future__ import annotations

import random

from helpers import (
    burst,
    desk,
    dialog,
    dialog_error,
    make_save,
    palette,
    press,
    saved,
    saved_when,
    screen_text,
    select_entry,
    settle,
    until,
)

from gmdesk.core.session import Session
from gmdesk.tui.screens.confirm import FormDialog


def grouped_save(tmp_path):
    path, ids = make_save(
        tmp_path,
        "4d6",
        [
            {"name": "Kara"},
            {"name": "Gospog 1", "side": "NPC", "vitality": 5},
            {"name": "Gospog 2", "side": "NPC", "vitality": 5},
            {"name": "Gospog 3", "side": "NPC", "vitality": 5},
        ],
    )
    with Session.open(path) as s:
        s.apply({"type": "group.set", "label": "Gospog", "ids": [ids[f"Gospog {n}"] for n in (1, 2, 3)]})
        s.roll_initiative([ids["Kara"], ids["Gospog 1"]], values={ids["Kara"]: 9, ids["Gospog 1"]: 14})
    return path, ids


def pane_lines(app) -> list[str]:
    return [line for line in screen_text(app).splitlines() if "Gospog" in line or "Kara" in line]


async def test_the_group_is_one_row_that_opens_to_its_members(tmp_path):
    path, ids = grouped_save(tmp_path)
    async with desk(path) as (app, pilot, screen):
        screen.initiative.table.focus()
        await settle(pilot)
        text = screen_text(app)
        assert "▸ Gospog ×3" in text and "3/3 up" in text
        assert "Gospog 2" not in "\n".join(line[:40] for line in text.splitlines())  # closed: one row
        screen.initiative.table.move_cursor(row=0)
        await settle(pilot)
        assert screen.selected == ids["Gospog 1"]  # the group's row selects the member who acts for it
        await press(pilot, "enter")
        await settle(pilot)
        rows = [line[:40] for line in screen_text(app).splitlines()]
        assert any("▾ Gospog ×3" in r for r in rows)
        for n in (1, 2, 3):
            assert any(f"  Gospog {n}" in r for r in rows), rows
        await press(pilot, "down", "down")
        await settle(pilot)
        assert screen.selected == ids["Gospog 2"]  # a member's own row: its own pane
        await press(pilot, "up", "up", "enter")
        await settle(pilot)
        assert not any("  Gospog 2" in line[:40] for line in screen_text(app).splitlines())


async def test_attack_by_a_group_uses_the_member_who_acts_and_at_a_group_its_first_standing(tmp_path):
    path, ids = grouped_save(tmp_path)
    with Session.open(path) as s:
        s.apply({"type": "character.status", "id": ids["Gospog 1"], "status": "unconscious"})
        s.next_turn()  # the group's turn: Gospog 1 cannot act, Gospog 2 acts for it
    async with desk(path, rng=random.Random(4)) as (app, pilot, screen):
        assert screen.acting() == ids["Gospog 2"]
        assert "Gospog ×3's turn (Gospog 2)" in screen_text(app)  # the session bar: the group, who acts for it
        assert screen.default_target(ids["Kara"]) == ids["Gospog 2"]  # the first standing
        await press(pilot, "a")
        await until(pilot, lambda: screen.rolls.dialog_open)
        await settle(pilot)
        text = screen_text(app)
        assert "Gospog 2" in text and "Kara" in text
        await press(pilot, "enter")
        state = await saved_when(pilot, path, lambda s: any(r.kind == "roll" for r in s.rolls))
        (roll,) = [r for r in state.rolls if r.kind == "roll"]
        assert (roll.actor, roll.target) == (ids["Gospog 2"], ids["Kara"])


async def test_g_groups_in_a_form_refuses_a_name_as_label_and_G_splits_undoably(tmp_path):
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Orc", "side": "NPC"}, {"name": "Wolf", "side": "NPC"}],
        initiative={"Orc": 12, "Kara": 10, "Wolf": 4},
        start=True,
    )
    async with desk(path) as (app, pilot, _screen):
        await select_entry(pilot, ids["Orc"])
        await press(pilot, "g")
        dlg = await dialog(pilot, FormDialog)
        await burst(pilot, "Kara")
        await press(pilot, "tab", "tab", "tab", "space")  # Orc is ticked; tick Wolf (Orc, Kara, Wolf)
        await press(pilot, "enter")
        error = dialog_error(dlg)
        assert error.startswith("✗ Label:") and "character's name" in error, error
        assert all(c.group is None for c in saved(path).characters.values())  # nothing saved
        await press(pilot, "shift+tab", "shift+tab", "shift+tab")
        await press(pilot, "ctrl+u")
        await burst(pilot, "Beasts")
        await press(pilot, "enter")
        state = await saved_when(pilot, path, lambda s: s.characters[ids["Wolf"]].group == "Beasts")
        assert "▸ Beasts ×2" in screen_text(app)
        assert [x.initiative for x in state.encounter.order] == [12, 12, 10]  # where Orc stood
        await press(pilot, "G")
        await saved_when(pilot, path, lambda s: s.characters[ids["Wolf"]].group is None)
        await press(pilot, "u")
        await saved_when(pilot, path, lambda s: s.characters[ids["Wolf"]].group == "Beasts")


async def test_group_and_ungroup_are_in_the_palette(tmp_path):
    path, ids = grouped_save(tmp_path)
    async with desk(path) as (_app, pilot, screen):
        screen.selected = ids["Gospog 2"]
        await palette(pilot, "Ungroup")
        await saved_when(pilot, path, lambda s: s.characters[ids["Gospog 2"]].group is None)


async def test_the_bestiary_adds_copies_as_one_group_at_80x24(tmp_path):
    from gmdesk.core.campaign.bestiary import Bestiary
    from gmdesk.core.campaign.statblock import StatBlock
    from gmdesk.tui.screens.bestiary import BestiaryDialog

    path, ids = make_save(tmp_path, "4d6", [{"name": "Kara"}], initiative={"Kara": 10})
    Bestiary(path.parent).add_many([StatBlock("Gospog", "4d6", vitality=7)])
    async with desk(path, rng=random.Random(2)) as (app, pilot, _screen):
        await press(pilot, "B")
        dlg = await dialog(pilot, BestiaryDialog)
        await until(pilot, lambda: dlg.loaded is not None)
        await settle(pilot)
        await press(pilot, "tab", "tab", "space")  # the count stays 1; "One group" ticked
        await press(pilot, "tab", "tab", "space")
        await press(pilot, "enter")
        assert "Count: one group is two copies or more" in dialog_error(dlg)
        assert len(saved(path).characters) == 1  # nothing saved
        await press(pilot, "shift+tab", "shift+tab", "backspace")
        await burst(pilot, "3")
        await press(pilot, "enter")
        await saved_when(pilot, path, lambda s: len(s.characters) == 4)
        assert "▸ Gospog ×3" in screen_text(app)
    state = saved(path)
    assert {c.group for c in state.characters.values() if c.side == "NPC"} == {"Gospog"}
    assert len([r for r in state.rolls if r.kind == "initiative"]) == 1


def test_a_long_label_is_cut_before_its_count():
    from gmdesk.tui.widgets.initiative import fit_group

    assert fit_group("Castle Guard ×3", 9) == "Castl… ×3"
    assert fit_group("Pair ×2", 11) == "Pair ×2"


async def test_initiative_for_all_rolls_once_for_a_group_named_once_in_the_dialog(tmp_path):
    path, ids = grouped_save(tmp_path)
    with Session.open(path) as s:
        s.apply(
            {"type": "character.fields", "id": ids["Gospog 2"], "set": {"initiative_bonus": -2}}
        )  # the group's lowest
    async with desk(path, rng=random.Random(8)) as (app, pilot, _screen):
        await press(pilot, "i")
        await dialog(pilot, FormDialog)
        await settle(pilot)
        text = screen_text(app)
        assert "Gospog ×3  mod" in text and "−2" in text  # one entry, the group's lowest modifier (gmdesk's minus)
        assert "Gospog 1" not in text and "Gospog 3" not in text
        before = len(saved(path).rolls)
        await press(pilot, "enter")
        await saved_when(pilot, path, lambda s: len(s.rolls) > before)
    state = saved(path)
    new = state.rolls[before:]
    assert sorted(r.actor_name for r in new) == ["Gospog 2", "Kara"]  # one roll for the group, with its lowest
    assert len({x.initiative for x in state.encounter.order if state.characters[x.char_id].group}) == 1
