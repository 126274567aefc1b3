"""A plug-in can do what a built-in does, by declaration: here, what torg-2d10 does with
Possibilities. A plug-in installed by entry point declares a ``Spend`` (paid as the roll
is made, spent after it, cancelled by another) and takes the moves gmdesk makes for it
(``spend_run_with`` with its own die rule, ``cancel_form`` / ``cancel_run``), as
torg-2d10 does; the moves find the plug-in's rolls, not only torg-2d10's."""

from __future__ import annotations

from pathlib import Path

import pytest
from coin_plugin import registered
from helpers import make_save
from plugin_site import plugin_site

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session
from gmdesk.core.systems import get_spec

#: "luck": a d6 plus a Luck die (a d6) for each Luck point spent as it is rolled, or after
LUCK = """
import dataclasses

from gmdesk.core.systems import builtin_moves as moves
from gmdesk.core.systems.harm import Harm, Spend
from gmdesk.core.systems.spec import Move

PARAMS = PARAMS + (Param("luck", "Luck spent", "int", 0, "Luck dice added", lo=0, hi=3),)
CHARACTER_SECTIONS = frozenset({"possibilities", "wounds", "conditions"})
_plain = roll


def roll(params, rng, tables=DEFAULT_TABLES):
    record = _plain(params, rng, tables)
    luck = tuple(Die(roll_die(rng, 6), "possibility", 6) for _ in range(params.luck))
    total = record.value + sum(d.value for d in luck)
    return dataclasses.replace(record, dice=record.dice + luck, value=total, outcome=f"Total {total}")


def add_luck(record, rng, tables):
    die = Die(roll_die(rng, 6), "possibility", 6)
    return dataclasses.replace(record, dice=record.dice + (die,), value=record.value + die.value,
                               outcome=f"Total {record.value + die.value}")


def cancel_luck(record, tables):
    dice = list(record.dice)
    last = max(i for i, d in enumerate(dice) if d.role == "possibility")
    gone = dice.pop(last)
    return dataclasses.replace(record, dice=tuple(dice), value=record.value - gone.value,
                               outcome=f"Total {record.value - gone.value}")


HARM = Harm(spend=Spend(param="luck", after=True, cancel=cancel_luck))
MOVES = (
    Move("luck_spend", "Spend Luck", "a Luck die on the roll", run=moves.spend_run_with(add_luck, system=ID),
         said=moves.spend_said),
    Move("luck_cancel", "Cancel Luck", "another's Luck die", form=moves.cancel_form, run=moves.cancel_run,
         said=moves.cancel_said),
)
"""


@pytest.fixture
def luck(tmp_path: Path):
    with registered(plugin_site(tmp_path, "luck", LUCK)):
        yield


@pytest.mark.usefixtures("luck")
def test_a_plug_in_s_possibilities_are_spent_after_the_roll_and_cancelled_by_another(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path,
        "luck",
        [
            {"name": "Kara", "reality_rated": True, "possibilities": 3},
            {"name": "Baron", "side": "NPC", "reality_rated": True, "possibilities": 2},
        ],
    )
    kara, baron = ids["Kara"], ids["Baron"]
    spec = get_spec("luck")
    with Session.open(path) as s:
        with pytest.raises(EventError, match="No luck roll to spend a Possibility on"):
            s.move("luck_spend", {}, {"selected": kara}, FixedDice([4]))
        s.roll("4d2", get_spec("4d2").Params(), kara, rng=FixedDice([1, 2, 3, 4]))
        with pytest.raises(EventError, match="is a 4d2 roll; this move spends Possibilities on luck rolls"):
            s.move("luck_spend", {"roll": s.state.rolls[-1].seq}, {"selected": kara}, FixedDice([4]))
        s.roll("luck", spec.Params(sides=6, luck=1), kara, rng=FixedDice([2, 5]))  # one paid as it is rolled
        seq = s.state.rolls[-1].seq
        assert s.state.characters[kara].possibilities == 2
        # the palette's "Spend Luck" finds the plug-in's roll (it looked only for torg-2d10 rolls)
        spent = s.move("luck_spend", {}, {"selected": kara}, FixedDice([4]))
        assert s.state.roll_entry(seq).record.value == 11
        assert s.state.characters[kara].possibilities == 1
        assert s.said("luck_spend", spent).startswith(f"Kara spends a Possibility on #{seq}: now +11")
        # torg-2d10's own Spend (its d10 rule) never goes on a roll of another system
        with pytest.raises(EventError, match="this move spends Possibilities on torg-2d10 rolls"):
            s.spend_possibility(kara, seq, rng=FixedDice([10, 3]))
        # another reality-rated character cancels the latest spend: both lose one
        assert [f.name for f in s.move_form("luck_cancel", {"selected": baron})] == ["id"]
        s.move("luck_cancel", {"id": baron}, {"selected": baron})
        assert s.state.roll_entry(seq).record.value == 7
        assert (s.state.characters[kara].possibilities, s.state.characters[baron].possibilities) == (1, 1)
    with Session.open(path) as s:  # as saved, and replayed
        assert s.state.roll_entry(seq).record.value == 7
        assert s.state.characters[kara].possibilities == 1


#: "duel": the roller's die against the defender's die + its guard; the number it
#: needs is the GM's secret. The defender's side is the record's ``opponent``
#: (docs/PLUGINS.md, "A few of a record's own fields are read by gmdesk itself").
DUEL = """
PARAMS = PARAMS + (
    Param("guard", "Guard", "int", 0, "the defender's", lo=-5, hi=5),
    Param("need", "Need", "int", 7, "the GM's secret", lo=2, hi=12, secret=True),
)


def roll(params, rng, tables=DEFAULT_TABLES):
    mine = Die(roll_die(rng, params.sides), "die", params.sides)
    theirs = Die(roll_die(rng, params.sides), "die", params.sides)
    total = theirs.value + params.guard
    won = mine.value > total
    return RollRecord(system=ID, params=dataclass_to_json(params), dice=(mine, theirs), value=mine.value,
        outcome="Wins" if won else "Loses",
        extra={"opponent": {"dice": [theirs.to_json()], "total": total}, "need": params.need, "success": won})
"""


def test_a_plug_in_s_defender_side_and_secret_read_as_a_built_in_s_everywhere(tmp_path: Path, capsys) -> None:
    """The record fields PLUGINS.md names do for a plug-in what they do for the built-ins:
    the defender's dice and total are part of the line in the log, the players' log and
    the chronicles; the secret parameter is the GM's only."""
    from helpers import gmdesk_cli

    with registered(plugin_site(tmp_path, "duel", DUEL)):
        path, ids = make_save(tmp_path, "duel", [{"name": "Kara"}, {"name": "Gus", "side": "NPC"}])
        with Session.open(path) as s:
            s.roll("duel", get_spec("duel").Params(guard=1), ids["Kara"], ids["Gus"], rng=FixedDice([5, 3]))
        saves = path.parent
        read = {
            what: gmdesk_cli(capsys, saves, *args)
            for what, args in {
                "log": ("log", "Table"),
                "log --public": ("log", "Table", "--public"),
                "md": ("export", "Table"),
                "md --gm": ("export", "Table", "--gm"),
            }.items()
        }
    for what, (rc, out, err) in read.items():
        assert rc == 0, err
        out = out.replace("\\", "")  # (Markdown's escapes)
        assert "5 | vs 3" in out and "Wins vs 4" in out, (what, out)
        assert ("need 7" in out) == (what == "md --gm"), (what, out)  # as 1d6x4's target number


#: "mend": a plug-in whose move heals by its own rule (d4 + 1), with no descriptor sheet
MEND = """
from gmdesk.core.systems import builtin_moves as moves
from gmdesk.core.systems.harm import Harm, Vitality
from gmdesk.core.systems.spec import Move

CHARACTER_SECTIONS = frozenset({"vitality", "wounds", "conditions"})
HARM = Harm(vitality=Vitality(hurt_by_amount=True, unconscious_at=-1, dead_at=-5))


def patch_up(rng, current, default):
    die = Die(roll_die(rng, 4), "die", 4)
    record = RollRecord(system=ID, params={}, dice=(die,), value=die.value + 1, outcome=f"Mends {die.value + 1}")
    return record, max(current, min(default, current + die.value + 1))


MOVES = (Move("mend_patch", "Patch up", "d4 + 1 Vitality back", form=moves.heal_form,
              run=moves.heal_run_with(patch_up, use=None), said=moves.heal_said),)
"""


def test_a_plug_in_heals_by_its_own_rule_without_a_descriptor_sheet(tmp_path: Path) -> None:
    """The heal a 1d6x4 Healing Ability makes is a plug-in's too: its own rule, no
    descriptor sheet and no use spent (the heal refused "has no Healing Ability (no
    descriptor sheet)"); never above the Default; the Dead stay dead; saved and replayed."""
    with registered(plugin_site(tmp_path, "mend", MEND)):
        path, ids = make_save(tmp_path, "mend", [{"name": "Ann", "vitality": 5}, {"name": "Bob", "vitality": 6}])
        ann, bob = ids["Ann"], ids["Bob"]
        with Session.open(path) as s:
            s.apply({"type": "character.edit", "id": bob, "fields": {"vitality_current": 1}})
            assert [f.name for f in s.move_form("mend_patch", {"acting": ann, "selected": bob})] == ["healer", "target"]
            e = s.move("mend_patch", {"healer": ann, "target": bob}, {}, FixedDice([3]))
            assert s.state.characters[bob].vitality_current == 5
            assert e.changes == ["Bob: Vitality 1 → 5"]
            assert s.said("mend_patch", e) == "Ann heals Bob: Vitality 5/6"
            s.move("mend_patch", {"healer": ann, "target": bob}, {}, FixedDice([4]))
            assert s.state.characters[bob].vitality_current == 6  # never above its Default
            assert [r.kind for r in s.state.rolls] == ["heal", "heal"]
            s.apply({"type": "character.status", "id": bob, "status": "dead"})
            with pytest.raises(EventError, match="the Dead stay dead"):
                s.move("mend_patch", {"healer": ann, "target": bob}, {}, FixedDice([4]))
        with Session.open(path) as s:
            assert s.state.characters[bob].vitality_current == 6
            assert s.state.characters[bob].status == "dead"


#: "nerve": initiative is a d6 + Nerve; a Shaken character's initiative fails (no die)
NERVE = """
CHARACTER_FIELDS = (CharField("nerve", "Nerve", "int", help="added to initiative", lo=-3, hi=5),
                    CharField("shaken", "Shaken", "bool", help="cannot act first"))


def initiative_modifier(character):
    return int((character.fields or {}).get("nerve") or 0)


def INITIATIVE_FAILS(character):
    return "Shaken" if (character.fields or {}).get("shaken") else None


def initiative(rng, modifier=0, auto_fail=None):
    if auto_fail:
        return RollRecord(system=ID, params={"modifier": modifier}, dice=(), value=0,
                          outcome="Initiative fails", extra={"auto_fail": auto_fail})
    d = Die(roll_die(rng, 6), "die", 6)
    return RollRecord(system=ID, params={"modifier": modifier}, dice=(d,), value=d.value + modifier,
                      outcome=f"Initiative {d.value + modifier}")
"""


def test_a_plug_in_s_own_initiative_modifier_and_automatic_failure_seat_as_a_built_in_s(tmp_path: Path) -> None:
    """As 1d6x4's Reflex at −5: a plug-in's ``initiative_modifier`` is added, and one
    whose ``INITIATIVE_FAILS`` gives a reason rolls no die and is seated after everyone
    who rolled, the record saying why."""
    with registered(plugin_site(tmp_path, "nerve", NERVE)):
        path, ids = make_save(tmp_path, "nerve", [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cat"}])
        with Session.open(path) as s:
            s.apply({"type": "character.fields", "id": ids["Ann"], "set": {"nerve": 3}})
            s.apply({"type": "character.fields", "id": ids["Bob"], "set": {"nerve": 5, "shaken": True}})
            assert s.initiative_modifier(ids["Ann"]) == 3
            s.roll_initiative([ids["Bob"], ids["Ann"], ids["Cat"]], rng=FixedDice([1, 2]))
            order = [(s.state.characters[x.char_id].name, x.initiative) for x in s.state.encounter.order]
            assert order == [("Ann", 4), ("Cat", 2), ("Bob", 1)]
            assert [r.record.get("auto_fail") for r in s.state.rolls] == ["Shaken", None, None]


def test_a_plug_in_names_its_dice_its_opponent_and_its_breakdown_as_1d6x4_does(tmp_path: Path) -> None:
    """``dice_labels``, ``opponent_brief`` and ``BREAKDOWN_PARAMS`` of an installed
    plug-in word its log line and its breakdown, as 1d6x4's ``attack … | defense …``."""
    from rich.console import Console

    from gmdesk.core import render

    labelled = DUEL + (
        "\nBREAKDOWN_PARAMS = (('guard', 'Parry bonus'),)\n"
        "def dice_labels(record):\n    return {'own': 'thrust', 'vs': 'parry'}\n"
        "def opponent_brief(record):\n    return f\"vs parry {record.extra['opponent']['total']}\"\n"
    )
    with registered(plugin_site(tmp_path, "duel", labelled)):
        record = get_spec("duel").roll(get_spec("duel").Params(guard=1), FixedDice([5, 3]))
        line = render.record_line(record)
        console = Console(width=80, no_color=True, record=True)
        console.print(render.render_record(record))
        told = console.export_text()
    assert line.startswith("duel [thrust 5 | parry 3] = 5 Wins vs parry 4"), line
    assert "Parry bonus: 1" in told, told
