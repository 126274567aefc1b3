"""Initiative groups (issue 23, point 1), in the session: a group rolls once with its
lowest initiative modifier (the log says whose), takes one turn as one row of the
order, passes over its members who cannot act and loses its turn when none can;
attacks by and at a group default to a member; group and ungroup are undoable
events; a group ties as one; the group goes to the next night with its members.
Real store, fixed dice (4d6: initiative 4d6 + bonus)."""

from __future__ import annotations

import pytest
from helpers import four_d6, open_session, same_as_replay

from gmdesk.core.campaign.copies import add_from_event
from gmdesk.core.campaign.statblock import StatBlock
from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.export import export


def table(store: SessionStore, *names: str, **settings) -> tuple[Session, dict[str, str]]:
    """A 4d6 session: Kara a PC; NAME:BONUS an NPC with that initiative bonus; each
    with Vitality 5."""
    return open_session(store, *names, each={"vitality": 5}, **settings)


def rows(s: Session) -> list[str]:
    """The order as one row per turn: "Gospog ×3 12" or "Kara 9"."""
    st = s.state
    out = []
    for a, _ in st.units():
        c = st.characters[st.encounter.order[a].char_id]
        who = st.group_title(c.group) if c.group else c.name
        out.append(f"{who} {st.encounter.order[a].initiative}")
    return out


def acting(s: Session) -> str:
    cur = s.state.encounter.current
    return s.state.characters[cur.char_id].name if cur else "nobody"


def down(s: Session, cid: str, status: str = "unconscious") -> None:
    s.apply({"type": "character.status", "id": cid, "status": status})


def test_a_group_rolls_once_with_its_lowest_modifier_and_the_log_says_whose(store):
    s, ids = table(store, "Kara", "Brute:3", "Runt:-1", "Boss:2")
    with s:
        s.apply({"type": "group.set", "label": "Gang", "ids": [ids["Brute"], ids["Runt"], ids["Boss"]]})
        # one roll for the group: Runt's (-1 is the lowest); 13 - 1 = 12; Kara rolls 9
        ev = s.roll_initiative([ids["Kara"], ids["Brute"], ids["Runt"], ids["Boss"]], FixedDice(four_d6(9, 13)))
        rolls = [r for r in s.state.rolls if r.seq == ev.seq]
        assert [(r.actor_name, r.record.value) for r in rolls] == [("Kara", 9), ("Runt", 12)]
        assert "Gang ×3: initiative 12 (rolled with Runt's modifier, the group's lowest)" in ev.changes
        assert rows(s) == ["Gang ×3 12", "Kara 9"]
        assert [x.initiative for x in s.state.encounter.order] == [12, 12, 12, 9]
        same_as_replay(s)


def test_one_turn_for_the_group_members_who_cannot_act_skipped_none_able_loses_its_turn(store):
    s, ids = table(store, "Kara", "G1", "G2", "G3")
    with s:
        s.apply({"type": "group.set", "label": "Gospog", "ids": [ids["G1"], ids["G2"], ids["G3"]]})
        s.roll_initiative([ids["Kara"], ids["G1"]], values={ids["Kara"]: 5, ids["G1"]: 10})
        assert rows(s) == ["Gospog ×3 10", "Kara 5"]
        ev = s.next_turn()
        assert ev.summary == "Round 1: Gospog ×3's turn" and acting(s) == "G1"
        ev = s.next_turn()  # the group's turn ends when the GM says so: all of it at once
        assert ev.summary == "Round 1: Kara's turn"
        down(s, ids["G1"])
        ev = s.next_turn()  # G1 cannot act: the group acts with G2 first
        assert ev.summary == "Round 2: Gospog ×3's turn (no turn: G1 (Unconscious))" and acting(s) == "G2"
        s.next_turn()
        down(s, ids["G2"], "dead")
        down(s, ids["G3"])
        ev = s.next_turn()  # none of the group can act: it loses its turn
        assert acting(s) == "Kara" and ev.summary.startswith("Round 3: Kara's turn (no turn: G1")
        assert "G3 (Unconscious)" in ev.summary
        s.apply({"type": "turn.prev"})  # back over the group that cannot act: Kara's round-2 turn
        assert (s.state.encounter.round, acting(s)) == (2, "Kara")
        same_as_replay(s)


def test_a_groups_durations_tick_at_the_end_of_its_turn_for_each_member(store):
    s, ids = table(store, "Kara", "G1", "G2")
    with s:
        s.apply({"type": "group.set", "label": "Pair", "ids": [ids["G1"], ids["G2"]]})
        for cid in (ids["G1"], ids["G2"]):
            s.apply({"type": "condition.add", "id": cid, "name": "Stunned", "rounds": 1})
        s.roll_initiative([ids["Kara"], ids["G1"]], values={ids["Kara"]: 5, ids["G1"]: 10})
        s.next_turn()
        ev = s.next_turn()
        assert "G1: Stunned ends" in ev.changes and "G2: Stunned ends" in ev.changes


def test_attacks_by_and_at_a_group_default_to_a_member(store):
    s, ids = table(store, "Kara", "G1", "G2", "G3")
    with s:
        s.apply({"type": "group.set", "label": "Gospog", "ids": [ids["G1"], ids["G2"], ids["G3"]]})
        s.roll_initiative([ids["Kara"], ids["G1"]], values={ids["Kara"]: 5, ids["G1"]: 10})
        assert s.state.pick_member("Gospog", "actor").name == "G1"
        assert s.state.pick_member("gospog", "target").name == "G1"
        down(s, ids["G1"])
        assert s.state.pick_member("Gospog", "actor").name == "G2"
        assert s.state.pick_member("Gospog", "target").name == "G2"
        assert s.state.default_target(ids["Kara"]) == ids["G2"]  # the first standing
        down(s, ids["G2"], "dead")
        down(s, ids["G3"])
        assert s.state.pick_member("Gospog", "actor") is None  # none can act
        assert s.state.pick_member("Gospog", "target").name == "G1"  # the first not Dead
        # a member rolls as itself: the roll names it
        s.apply({"type": "character.status", "id": ids["G1"], "status": "ok"})
        ev = s.roll("4d6", {"dc": 16}, ids["G1"], ids["Kara"], rng=FixedDice([5, 5, 5, 5]))
        assert s.state.roll_entry(ev.seq).actor == ids["G1"]


def test_group_and_ungroup_are_undoable_and_the_label_is_never_a_name(store):
    s, ids = table(store, "Kara", "Orc", "Goblin", "Wolf")
    with s:
        s.roll_initiative(
            [ids["Orc"], ids["Kara"], ids["Goblin"]], values={ids["Orc"]: 14, ids["Kara"]: 9, ids["Goblin"]: 3}
        )
        s.next_turn()
        before = s.state.to_json()
        # the group takes the place of its member first in the order; Wolf joins it there
        ev = s.apply({"type": "group.set", "label": "Pack", "ids": [ids["Goblin"], ids["Orc"], ids["Wolf"]]})
        assert ev.summary == "Pack ×3 is one group: Orc, Goblin, Wolf, initiative 14 (where Orc stood)"
        assert rows(s) == ["Pack ×3 14", "Kara 9"] and acting(s) == "Orc"
        for label in ("Kara", "kara", "c1"):
            with pytest.raises(EventError, match="label"):
                s.apply({"type": "group.set", "label": label, "ids": [ids["Orc"], ids["Wolf"]]})
        with pytest.raises(EventError, match="initiative group"):  # nor a name a label
            s.apply({"type": "character.add", "character": {"name": "pack"}})
        with pytest.raises(EventError, match="two characters or more"):
            s.apply({"type": "group.set", "label": "Solo", "ids": [ids["Kara"]]})
        ev = s.apply({"type": "group.remove", "label": "pack"})
        assert ev.summary.startswith("The group Pack ×3 splits")
        assert rows(s) == ["Orc 14", "Goblin 14", "Wolf 14", "Kara 9"]
        s.undo()
        assert rows(s) == ["Pack ×3 14", "Kara 9"]
        s.undo()
        assert s.state.to_json() == before
        s.redo()
        assert rows(s) == ["Pack ×3 14", "Kara 9"]
        same_as_replay(s)


def test_copies_added_as_one_group_and_a_member_joining_later(store):
    s, ids = table(store, "Kara")
    with s:
        block = StatBlock("Gospog", "4d6", vitality=6)
        rng = FixedDice(four_d6(11, 8))
        s.roll_initiative([ids["Kara"]], rng)  # 11
        ev = s.apply_placing(add_from_event(s, block, 3, rng, group=True), rng)  # one roll: 8
        assert ev.summary.endswith("as one group, Gospog ×3")
        assert rows(s) == ["Kara 11", "Gospog ×3 8"]
        assert [r.actor_name for r in s.state.rolls if r.seq == ev.seq] == ["Gospog 1"]
        members = s.state.group_members("Gospog")
        assert [c.name for c in members] == ["Gospog 1", "Gospog 2", "Gospog 3"]
        assert len({id(c) for c in members}) == 3 and all(c.vitality_current == 6 for c in members)
        # one leaves the fight and comes back: where its group stands, no roll
        s.apply({"type": "encounter.remove", "id": members[1].id})
        assert rows(s) == ["Kara 11", "Gospog ×2 8"]
        s.join_encounter(members[1].id, FixedDice(four_d6(20)))
        assert rows(s) == ["Kara 11", "Gospog ×3 8"]
        with pytest.raises(EventError, match="joins at the group's initiative 8"):
            s.apply({"type": "encounter.remove", "id": members[1].id})
            s.apply({"type": "encounter.add", "id": members[1].id, "initiative": 20})
        same_as_replay(s)


def test_a_group_pins_as_one_and_ties_as_one(store):
    s, ids = table(store, "Kara", "G1:1", "G2:0", "Thug:5", initiative_ties="roll off")
    with s:
        s.apply({"type": "group.set", "label": "Gospog", "ids": [ids["G1"], ids["G2"]]})
        s.roll_initiative([ids["G1"]], values={ids["G1"]: 12}, pins={ids["G1"]: True})
        assert [s.state.characters[ids[n]].pin for n in ("G1", "G2")] == [12, 12]
        ev = s.roll_initiative([ids["G2"]], pins={ids["G2"]: False})
        assert [s.state.characters[ids[n]].pin for n in ("G1", "G2")] == [None, None]
        assert "Gospog ×2: initiative no longer pinned" in ev.changes[0]
        # Kara (12 + 0) and Thug (7 + 5) join the group's 12: one roll-off, the group
        # rolling once with G2 (+0, its lowest): the group 10, Kara 15, Thug 7 + 5
        ev = s.roll_initiative([ids["Kara"], ids["Thug"]], FixedDice(four_d6(12, 7) + four_d6(10, 15) + four_d6(7)))
        (tie,) = ev.data["ties"]
        assert tie["order"] == [ids["Kara"], ids["Thug"], ids["G2"]]
        assert rows(s) == ["Kara 12", "Thug 12", "Gospog ×2 12"]
        assert any(line.startswith("Gospog ×2: roll-off for the tie at 12") for line in ev.changes)
        same_as_replay(s)


def test_a_round_rolled_again_rolls_once_for_the_group(store):
    s, ids = table(store, "Kara", "G1:2", "G2:1", reroll_initiative=True)
    with s:
        s.apply({"type": "group.set", "label": "Pair", "ids": [ids["G1"], ids["G2"]]})
        s.roll_initiative([ids["Kara"], ids["G1"]], values={ids["Kara"]: 9, ids["G1"]: 5})
        s.next_turn()
        s.next_turn()
        ev = s.next_turn(FixedDice(four_d6(4, 19)))  # round 2: Kara 4, the group 19 + 1 (G2's bonus)
        assert [e["id"] for e in ev.data["initiative"]] == [ids["Kara"], ids["G2"]]
        assert rows(s) == ["Pair ×2 20", "Kara 4"] and acting(s) == "G1"
        same_as_replay(s)


def test_the_group_goes_to_the_next_night_with_its_members_and_the_chronicle_has_its_roll(store):
    s, ids = table(store, "Kara", "G1", "G2")
    with s:
        s.apply({"type": "group.set", "label": "Pair", "ids": [ids["G1"], ids["G2"]]})
        s.roll_initiative([ids["G1"]], FixedDice(four_d6(10)))
        chronicle = export(s.state, "md", s.events, header=s.header)
        assert "Pair ×2: initiative 10" in chronicle
        name = s.state.info.name
    got = store.next_night(name, "Night 2", npcs=["G1", "G2"])
    with Session.open(got.path) as s2:
        assert [c.name for c in s2.state.group_members("Pair")] == ["G1", "G2"]
        assert any("in the group Pair" in line for line in s2.events[0].changes)
        s2.roll_initiative([s2.character("G2").id], FixedDice(four_d6(7)))
        assert rows(s2) == ["Pair ×2 7"]


def test_a_group_reads_back_from_the_checkpoint(store, monkeypatch):
    monkeypatch.setattr(Session, "UNDO_KEPT", 0)
    s, ids = table(store, "Kara", "G1", "G2")
    with s:
        s.apply({"type": "group.set", "label": "Pair", "ids": [ids["G1"], ids["G2"]]})
        s.roll_initiative([ids["Kara"], ids["G1"]], values={ids["Kara"]: 3, ids["G1"]: 8})
        s.next_turn()
        path = s.path
    with Session.open(path, readonly=True) as again:
        assert again._ckpt_seq > 0  # from the checkpoint, not a replay
        assert rows(again) == ["Pair ×2 8", "Kara 3"]


def test_moving_and_delaying_go_by_turns_a_group_whole_and_never_into_one(store):
    s, ids = table(store, "Kara", "G1", "G2", "Thug")
    with s:
        s.apply({"type": "group.set", "label": "Pair", "ids": [ids["G1"], ids["G2"]]})
        s.roll_initiative([ids["Kara"], ids["G1"], ids["Thug"]], values={ids["Kara"]: 9, ids["G1"]: 12, ids["Thug"]: 3})
        assert rows(s) == ["Pair ×2 12", "Kara 9", "Thug 3"]
        ev = s.apply({"type": "encounter.move", "id": ids["G2"], "index": 1})  # the group, after Kara
        assert rows(s) == ["Kara 9", "Pair ×2 12", "Thug 3"] and ev.summary == "Pair ×2 moves to place 2 in the order"
        s.apply({"type": "encounter.move", "id": ids["Thug"], "index": 2})  # not between G1 and G2
        assert rows(s) == ["Kara 9", "Thug 3", "Pair ×2 12"]
        s.next_turn()
        ev = s.apply({"type": "encounter.delay", "id": ids["Thug"]})  # waits for the whole group
        assert rows(s) == ["Kara 9", "Pair ×2 12", "Thug 3"] and ev.summary == "Thug delays until after Pair ×2"
        ev = s.apply({"type": "encounter.delay", "id": ids["Kara"]})  # acting: the group acts now
        assert rows(s) == ["Pair ×2 12", "Kara 9", "Thug 3"] and acting(s) == "G1"
        same_as_replay(s)
