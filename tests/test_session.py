"""The session: events, refusals, combat per system, undo/redo, the store of saves.

Every test runs on the real store (tmp_path). Dice are FixedDice: the worked
examples are the seeds' and RULES.md's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gmdesk.core.dice import FixedDice, RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Event, EventError, Session, SessionStore, default_saves_dir, safe_file_stem
from gmdesk.core.session.events import replay
from gmdesk.core.session.export import export, to_json
from gmdesk.core.session.saves import clean_name
from gmdesk.core.session.storage import EventLog, LockedError, StoreWriteError
from gmdesk.core.systems import get_system

FOUR_D_TWO = get_system("4d2")
TORG = get_system("torg-2d10")
FUDGE = get_system("fudge")
CORE4D6 = get_system("4d6")
ONE_D6 = get_system("1d6x4")


def snap(s: Session) -> dict:
    """The state as JSON, without the time of the last event (undo/redo move it)."""
    d = s.state.to_json()
    d["info"].pop("last_played")
    return d


def replayed(s: Session) -> dict:
    log = s._log
    fold = replay(log.header, log.events())
    d = fold.state.to_json()
    d["info"].pop("last_played")
    return d


@pytest.fixture
def store(tmp_path) -> SessionStore:
    return SessionStore(tmp_path / "saves")


def new_session(store: SessionStore, system: str = "4d2", name: str = "Night at the docks") -> Session:
    return Session.open(store.create(name, system))


@pytest.fixture
def s(store):
    session = new_session(store)
    yield session
    session.close()


def add(s: Session, name: str, **kw) -> str:
    return s.apply({"type": "character.add", "character": {"name": name, **kw}}).data["id"]


def saved_events(s: Session) -> int:
    """How many events the session's files hold (as a second, read-only reader sees them)."""
    with Session.open(s.path, readonly=True) as reader:
        return len(reader.events)


def refused(s: Session, doc: dict, *words: str) -> EventError:
    """Apply ``doc``, expect EventError whose message has ``words``; nothing changed or written."""
    before, n, count = snap(s), len(s.events), saved_events(s)
    with pytest.raises(EventError) as info:
        s.apply(doc)
    msg = str(info.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, msg
    assert snap(s) == before and len(s.events) == n and saved_events(s) == count
    return info.value


# --------------------------------------------------------------------------- characters


def test_character_add_assigns_ids_and_defaults(s):
    a = add(s, "Bruno")
    b = add(s, "Kara", side="NPC", kind="inorganic", reality_rated=True, possibilities=3, vitality=4)
    assert (a, b) == ("c1", "c2")
    kara = s.state.characters[b]
    assert (kara.side, kara.kind, kara.reality_rated, kara.possibilities) == ("NPC", "inorganic", True, 3)
    assert (kara.vitality_default, kara.vitality_current, kara.status) == (4, 4, "ok")
    assert s.events[-1].summary.startswith("Kara joins")
    assert list(s.state.characters) == ["c1", "c2"]


@pytest.mark.parametrize(
    "character, words",
    [
        ({"name": "  "}, ["name", "empty"]),
        ({"side": "PC"}, ["missing field 'name'"]),
        ({"name": "X", "side": "Villain"}, ["side", "PC, NPC"]),
        ({"name": "X", "kind": "ghost"}, ["kind", "organic, inorganic"]),
        ({"name": "X", "possibilities": 2}, ["only a reality-rated character"]),
        ({"name": "X", "reality_rated": True, "possibilities": -1}, ["possibilities", "from 0"]),
        ({"name": "X", "hp": 3}, ["unknown field 'hp'"]),
        ({"name": "X", "vitality": "lots"}, ["vitality", "whole number"]),
    ],
)
def test_character_add_refusals(s, character, words):
    refused(s, {"type": "character.add", "character": character}, "character.add", *words)


def test_refusals_of_any_event(s):
    refused(s, {"type": "fireball"}, "unknown event type 'fireball'")
    refused(s, {"type": "character.edit", "id": "c9", "fields": {"name": "X"}}, "no character 'c9'")
    a = add(s, "Bruno")
    refused(s, {"type": "character.edit", "id": a, "fields": {"possibilities": -2}}, "possibilities")
    refused(s, {"type": "character.edit", "id": a, "fields": {"possibilities": 2}}, "reality-rated")
    refused(s, {"type": "note", "text": object()}, "not plain data")
    refused(s, {"type": "note", "text": ""}, "empty")
    refused(s, {"type": "turn.next"}, "no combatants")
    refused(s, {"type": "character.remove", "id": "nobody"}, "no character")


def test_edit_and_remove(s):
    a = add(s, "Bruno", vitality=3)
    s.apply(
        {
            "type": "character.edit",
            "id": a,
            "fields": {"name": "Bruno the Bold", "reality_rated": True, "possibilities": 2, "notes": "owes Kara"},
        }
    )
    c = s.state.characters[a]
    assert (c.name, c.possibilities, c.notes) == ("Bruno the Bold", 2, "owes Kara")
    s.apply({"type": "character.edit", "id": a, "fields": {"reality_rated": False}})
    assert s.state.characters[a].possibilities == 0  # an ord has none
    b = add(s, "Kara")
    s.apply({"type": "encounter.add", "id": a, "initiative": 5})
    s.apply({"type": "encounter.add", "id": b, "initiative": 3})
    before = snap(s)
    s.apply({"type": "character.remove", "id": a})
    assert list(s.state.characters) == [b]
    assert [x.char_id for x in s.state.encounter.order] == [b]
    s.undo()
    assert snap(s) == before
    assert list(s.state.characters) == [a, b]  # back in its place


# --------------------------------------------------------------------------- sources, conditions, durations


def test_sources_and_conditions(s):
    a = add(s, "Bruno")
    s.apply({"type": "source.add", "id": a, "kind": "advantage", "name": "High ground", "value": 1})
    s.apply({"type": "source.add", "id": a, "kind": "shift", "name": "Pistol", "value": 2})
    refused(s, {"type": "source.add", "id": a, "kind": "advantage", "name": "high ground", "value": 2}, "already")
    refused(s, {"type": "source.add", "id": a, "kind": "advantage", "name": "Mud", "value": 0}, "+1 or +2")
    refused(s, {"type": "source.add", "id": a, "kind": "advantage", "name": "Mud", "value": 3}, "from -2 to 2")
    refused(s, {"type": "source.add", "id": a, "kind": "shift", "name": "Curse", "value": -1}, "value")
    refused(s, {"type": "source.add", "id": a, "kind": "luck", "name": "X", "value": 1}, "advantage, shift")
    s.apply({"type": "source.toggle", "id": a, "kind": "advantage", "name": "High ground"})
    assert s.state.characters[a].advantage[0].active is False
    s.apply({"type": "source.remove", "id": a, "kind": "shift", "name": "pistol"})
    assert s.state.characters[a].shifts == []
    refused(s, {"type": "source.remove", "id": a, "kind": "shift", "name": "pistol"}, "has no shift source")
    s.apply({"type": "condition.add", "id": a, "name": "Stymied", "rounds": 2})
    refused(s, {"type": "condition.add", "id": a, "name": "stymied"}, "already")
    s.apply({"type": "condition.add", "id": a, "name": "Soaked"})
    assert [c.name for c in s.state.characters[a].conditions] == ["Stymied", "Soaked"]
    s.apply({"type": "condition.remove", "id": a, "name": "soaked"})
    refused(s, {"type": "condition.remove", "id": a, "name": "Soaked"}, "is not Soaked")


def test_durations_tick_when_the_owners_turn_ends(s):
    a, b = add(s, "Bruno"), add(s, "Kara")
    s.apply({"type": "initiative.set", "entries": [{"id": a, "value": 9}, {"id": b, "value": 4}]})
    s.apply({"type": "condition.add", "id": a, "name": "Stymied", "rounds": 2})
    s.apply({"type": "source.add", "id": b, "kind": "advantage", "name": "Cover", "value": 1, "rounds": 1})
    s.apply({"type": "turn.next"})  # round 1 begins: Bruno acts; nothing ticks yet
    assert (s.state.encounter.round, s.state.encounter.turn) == (1, 0)
    assert s.state.characters[a].conditions[0].rounds == 2
    s.apply({"type": "turn.next"})  # Bruno's turn ends
    assert s.state.characters[a].conditions[0].rounds == 1
    assert s.state.characters[b].advantage[0].rounds == 1  # Kara's turn has not ended
    e = s.apply({"type": "turn.next"})  # Kara's turn ends: Cover ends; round 2
    assert s.state.characters[b].advantage == []
    assert "Kara: advantage Cover ends" in e.changes
    assert (s.state.encounter.round, s.state.encounter.turn) == (2, 0)
    e = s.apply({"type": "round.new"})  # Bruno's (and everyone's after him) turn ends unplayed
    assert s.state.characters[a].conditions == []
    assert "Bruno: Stymied ends" in e.changes
    assert s.state.encounter.round == 3
    s.undo()
    assert s.state.characters[a].conditions[0].rounds == 1 and s.state.encounter.round == 2


# --------------------------------------------------------------------------- encounter


def order(s):
    return [s.state.characters[c.char_id].name for c in s.state.encounter.order]


def test_encounter_order_turns_and_delay(s):
    a, b, c, d = (add(s, n) for n in ("Ann", "Bo", "Cy", "Di"))
    s.apply({"type": "encounter.add", "id": a, "initiative": 5})
    s.apply({"type": "encounter.add", "id": b, "initiative": 8})
    s.apply({"type": "encounter.add", "id": c, "initiative": 5})  # tie: after the earlier entry
    assert order(s) == ["Bo", "Ann", "Cy"]
    refused(s, {"type": "encounter.add", "id": a}, "already in the encounter")
    s.apply({"type": "turn.next"})
    s.apply({"type": "turn.next"})
    assert order(s)[s.state.encounter.turn] == "Ann"
    s.apply({"type": "encounter.add", "id": d, "initiative": 10})  # joins ahead: Ann still acts
    assert order(s) == ["Di", "Bo", "Ann", "Cy"] and order(s)[s.state.encounter.turn] == "Ann"
    s.apply({"type": "encounter.delay", "id": a})  # Ann waits for Cy: Cy acts now
    assert order(s) == ["Di", "Bo", "Cy", "Ann"] and order(s)[s.state.encounter.turn] == "Cy"
    refused(s, {"type": "encounter.delay", "id": a}, "last in the order")
    s.apply({"type": "encounter.move", "id": d, "index": 3})
    assert order(s) == ["Bo", "Cy", "Ann", "Di"] and order(s)[s.state.encounter.turn] == "Cy"
    refused(s, {"type": "encounter.move", "id": d, "index": 4}, "index")
    s.apply({"type": "encounter.remove", "id": c})  # the acting one leaves: the next one acts
    assert order(s) == ["Bo", "Ann", "Di"] and order(s)[s.state.encounter.turn] == "Ann"
    s.apply({"type": "turn.prev"})
    assert order(s)[s.state.encounter.turn] == "Bo"
    refused(s, {"type": "turn.prev"}, "first turn of round 1")
    s.apply({"type": "encounter.end"})
    assert s.state.encounter.order == [] and s.state.encounter.round == 0


def test_initiative_set_resorts_stably_and_logs_rolled_initiative(s):
    a, b, c = add(s, "Ann"), add(s, "Bo"), add(s, "Cy")
    s.apply(
        {"type": "initiative.set", "entries": [{"id": a, "value": 3}, {"id": b, "value": 3}, {"id": c, "value": 7}]}
    )
    assert order(s) == ["Cy", "Ann", "Bo"]
    rec = FOUR_D_TWO.initiative(FixedDice([6, 5, 1, 1]), 1)  # Number +9, +1 shift → 10
    e = s.apply({"type": "initiative.set", "entries": [{"id": b, "value": rec.value, "record": rec.to_json()}]})
    assert order(s) == ["Bo", "Cy", "Ann"]
    assert e.changes == ["Bo: initiative 10"]
    entry = s.state.rolls[-1]
    assert (entry.kind, entry.actor, entry.record.value) == ("initiative", b, 10)
    refused(s, {"type": "initiative.set", "entries": [{"id": a, "value": 1}, {"id": a, "value": 2}]}, "twice")


def test_roll_initiative_uses_the_session_system_and_shifts(s):
    a, b = add(s, "Ann"), add(s, "Bo")
    s.apply({"type": "source.add", "id": a, "kind": "shift", "name": "DEX", "value": 1})
    s.roll_initiative([a, b], rng=FixedDice([1, 1, 1, 1, 6, 6, 1, 1]))
    assert [c.initiative for c in s.state.encounter.order] == [10, 1]  # Bo 6+6−1−1; Ann 0 + DEX 1
    assert order(s) == ["Bo", "Ann"]


def test_the_dead_have_no_turns(s):
    a, b, c = add(s, "Ann"), add(s, "Bo"), add(s, "Cy")
    s.apply(
        {"type": "initiative.set", "entries": [{"id": a, "value": 3}, {"id": b, "value": 2}, {"id": c, "value": 1}]}
    )
    s.apply({"type": "character.edit", "id": b, "fields": {"dead": True}})
    s.apply({"type": "turn.next"})
    s.apply({"type": "turn.next"})
    assert order(s)[s.state.encounter.turn] == "Cy"


# --------------------------------------------------------------------------- clocks, notes, settings


def test_clocks_in_half_segments(s):
    s.apply({"type": "clock.add", "name": "Suspicion", "segments": 4})
    refused(s, {"type": "clock.add", "name": "suspicion", "segments": 6}, "already a clock")
    refused(s, {"type": "clock.add", "name": "Doom", "segments": 0}, "segments")
    s.apply({"type": "clock.tick", "name": "Suspicion", "halves": 1})
    e = s.apply({"type": "clock.tick", "name": "suspicion", "halves": 2})
    assert s.state.clocks["Suspicion"].halves == 3 and s.state.clocks["Suspicion"].filled == 1.5
    assert e.summary == "Clock Suspicion: ½ → 1½ of 4 (+1 segment)"
    assert e.changes == ["Clock Suspicion: ½ → 1½ of 4 (+1 segment)"]
    s.apply({"type": "clock.tick", "name": "Suspicion", "halves": 20})  # fills, no further
    assert s.state.clocks["Suspicion"].full
    refused(s, {"type": "clock.tick", "name": "Suspicion", "halves": 1}, "already full")
    refused(s, {"type": "clock.tick", "name": "Alarm", "halves": 1}, "no clock named 'Alarm'")
    s.apply({"type": "clock.remove", "name": "Suspicion"})
    assert s.state.clocks == {}


def test_notes_and_settings(s):
    s.apply({"type": "note", "text": "The ship sails at dawn"})
    assert s.state.notes[-1].text == "The ship sails at dawn"
    s.apply({"type": "session.settings", "changes": {"skill_threshold": 8, "ord_positive_reroll": False}})
    assert s.state.info.settings["skill_threshold"] == 8
    refused(s, {"type": "session.settings", "changes": {"skill_threshold": 99}}, "skill_threshold")
    refused(s, {"type": "session.settings", "changes": {"colour": "red"}}, "unknown setting 'colour'")
    refused(s, {"type": "session.settings", "changes": {"tables": {"combat": "no-such-table"}}}, "tables: combat")
    refused(s, {"type": "session.settings", "changes": {"system": "d20"}}, "system")
    # the threshold reaches the roll: unshifted Number +8 gives a skill chance now
    e = s.roll("4d2", FOUR_D_TWO.Params(), rng=FixedDice([5, 5, 1, 1]))
    assert e.data["record"]["skill_chance"] is True


def test_a_gm_table_in_the_settings(s, tmp_path):
    table = tmp_path / "grim.json"
    rows = {str(k): ["Grim", "Grim metal"] for k in range(-10, 11)}
    table.write_text(json.dumps({"name": "grim", "columns": ["organic", "inorganic"], "rows": rows}))
    # the event carries the table itself, read from its file as it is set (a path is refused)
    refused(s, {"type": "session.settings", "changes": {"tables": {"combat": str(table)}}}, "no built-in table")
    s.apply({"type": "session.settings", "changes": {"tables": {"combat": json.loads(table.read_text())}}})
    a, b = add(s, "Ann"), add(s, "Bo")
    s.roll("4d2", FOUR_D_TWO.Params(), actor=a, target=b, combat=True, rng=FixedDice([4, 4, 1, 1]))
    assert [w.text for w in s.state.characters[b].wounds] == ["Grim"]


# --------------------------------------------------------------------------- combat, per system


def test_4d2_worked_example_three_shifts_fatal_wound(s):
    """Seed: Number +6 with three shifts → Outcome +9: a fatal wound, no new skill."""
    bruno, kara = add(s, "Bruno"), add(s, "Kara", side="NPC")
    e = s.roll("4d2", FOUR_D_TWO.Params(shift=3), actor=bruno, target=kara, combat=True, rng=FixedDice([6, 3, 2, 1]))
    rec = e.data["record"]
    assert (rec["number"], rec["value"], rec["skill_chance"]) == (6, 9, False)
    assert e.changes == ["Kara takes Fatal Wound (Dead)"]
    kara_c = s.state.characters[kara]
    assert kara_c.status == "dead" and kara_c.wounds[0].roll_seq == e.seq
    entry = s.state.rolls[-1]
    assert (entry.actor, entry.target, entry.changes) == (bruno, kara, ["Kara takes Fatal Wound (Dead)"])
    s.undo()
    assert s.state.characters[kara].status == "ok" and s.state.characters[kara].wounds == []
    assert s.state.rolls == []


def test_4d2_negative_outcome_hurts_the_roller_in_its_own_column(s):
    robot, kara = add(s, "Unit 7", kind="inorganic"), add(s, "Kara")
    e = s.roll("4d2", FOUR_D_TWO.Params(), actor=robot, target=kara, combat=True, rng=FixedDice([1, 1, 5, 4]))
    assert e.data["record"]["value"] == -7
    assert s.state.characters[robot].wounds[0].text == "Programme Destruction"
    assert s.state.characters[kara].wounds == []
    # the target's kind picks the column of a positive outcome
    s.roll("4d2", FOUR_D_TWO.Params(), actor=kara, target=robot, combat=True, rng=FixedDice([5, 5, 2, 1]))
    # row +7, inorganic column; descriptors pile up
    assert [w.text for w in s.state.characters[robot].wounds] == ["Programme Destruction", "Peripheral Destruction"]


def test_untracked_target_logs_the_roll_and_changes_nobody(s):
    a = add(s, "Ann")
    e = s.roll("4d2", FOUR_D_TWO.Params(), actor=a, target=None, combat=True, rng=FixedDice([6, 6, 1, 1]))
    assert e.changes == [] and s.state.rolls[-1].record.descriptors[0].text == "Fatal Wound"
    assert s.state.characters[a].wounds == []
    refused(s, {"type": "roll", "record": e.data["record"], "actor": "c9"}, "actor", "no character")


def test_4d6_partial_success_marks_both_sides(s):
    a, b = add(s, "Ann"), add(s, "Bo")
    e = s.roll("4d6", CORE4D6.Params(dc=16), actor=a, target=b, combat=True, rng=FixedDice([3, 3, 4, 4]))
    assert e.data["record"]["outcome"] == "Partial Success"
    assert e.changes == ["Bo takes Stun", "Ann takes Backfoot"]


def test_fudge_damage_on_the_wound_track(s):
    a, b = add(s, "Ann"), add(s, "Bo")
    p = FUDGE.Params(method="2d3", trait=2, vs_trait=0, offense=3)
    e = s.roll("fudge", p, actor=a, target=b, combat=True, rng=FixedDice([3, 3, 1, 1, 2, 2, 2, 2]))
    w = s.state.characters[b].wounds[0]
    assert (w.text, w.amount, w.status) == ("Near Death", 9, "unconscious")
    assert e.changes == ["Bo takes Near Death (Unconscious)"]
    assert s.state.characters[b].status == "unconscious"


SHEET = """Bruno, a dockhand
Descriptor        Default    Current
Vitality           +3
Fitness            +1
Healing Ability       (1)
Magic Ability      +2 (5)
  *Open Lock          (1)
"""


def test_1d6x4_unconscious_then_dead_and_undo(store):
    s = new_session(store, "1d6x4")
    try:
        bruno = add(s, "Bruno", sheet=SHEET)
        kara = add(s, "Kara", vitality=2)
        assert s.state.characters[bruno].vitality_default == 3
        p = ONE_D6.Params(combat=True, bonus=0, vs_bonus=0)
        # Kara 4×6 vs Bruno 4×1: Kara prevails, d6 = 4 → Bruno 3 → −1
        e = s.roll("1d6x4", p, actor=kara, target=bruno, combat=True, rng=FixedDice([6, 1, 4]))
        assert e.changes == ["Bruno: Vitality 3 → −1"]
        assert s.state.characters[bruno].sheet.find("Vitality").current == -1  # the sheet follows
        e = s.roll("1d6x4", p, actor=kara, target=bruno, combat=True, rng=FixedDice([6, 1, 5]))
        assert e.changes == ["Bruno: Vitality −1 → −6 (Unconscious)"]
        assert s.state.characters[bruno].status == "unconscious"
        before_dead = snap(s)
        e = s.roll("1d6x4", p, actor=kara, target=bruno, combat=True, rng=FixedDice([6, 1, 1]))
        assert e.changes == ["Bruno: Vitality −6 → −7 (Dead)"]
        assert s.state.characters[bruno].status == "dead"
        # the Dead stay dead through a new day; the living get their Defaults back
        s.apply({"type": "character.edit", "id": kara, "fields": {"vitality_current": -1}})
        s.apply({"type": "day.new"})
        assert s.state.characters[bruno].status == "dead" and s.state.characters[bruno].vitality_current == -7
        assert s.state.characters[kara].vitality_current == 2
        s.undo(), s.undo(), s.undo()
        assert snap(s) == before_dead and s.state.characters[bruno].status == "unconscious"
        # a heal brings the Unconscious back above −5
        healer = add(s, "Medic", sheet="Medic\nDescriptor  Default  Current\nHealing Ability  (2)\n")
        e = s.heal(healer, bruno, rng=FixedDice([3]))
        assert e.changes == ["Medic: Healing Ability (2) → (1)", "Bruno: Vitality −6 → −3 (OK)"]
        assert s.state.characters[healer].sheet.find("Healing Ability").uses_current == 1
    finally:
        s.close()


def test_1d6x4_mutual_melee_from_json_params_hurts_the_loser(store):
    s = new_session(store, "1d6x4")
    try:
        a, b = add(s, "Ann", vitality=3), add(s, "Bo", vitality=3)
        # Ann 4×1+1 = 5 against Bo 4×3+2 = 14: the defender wins a mutual melee and hurts Ann (d6 = 2)
        e = s.roll(
            "1d6x4",
            {"bonus": 1, "vs_bonus": 2, "mutual": True},
            actor=a,
            target=b,
            combat=True,
            rng=FixedDice([1, 3, 2]),
        )
        assert e.changes == ["Ann: Vitality 3 → 1"] and s.state.characters[b].vitality_current == 3
    finally:
        s.close()


def test_1d6x4_heal_is_capped_and_spends_a_use(store):
    """Seed: the d6 raises Vitality to no higher than its Default; the healer's (N) drops."""
    s = new_session(store, "1d6x4")
    try:
        bruno = add(s, "Bruno", sheet=SHEET)
        s.apply({"type": "character.edit", "id": bruno, "fields": {"vitality_current": -2}})
        e = s.heal(bruno, bruno, rng=FixedDice([6]))
        assert s.state.characters[bruno].vitality_current == 3 and "Vitality −2 → 3" in e.summary
        assert s.state.characters[bruno].sheet.uses("Healing Ability") == 0
        assert s.state.rolls[-1].kind == "heal"
        with pytest.raises(EventError, match="Healing Ability is at \\(0\\)"):
            s.heal(bruno, bruno, rng=FixedDice([1]))
        s.apply({"type": "day.new"})
        assert s.state.characters[bruno].sheet.uses("Healing Ability") == 1
        corpse = add(s, "Corpse")
        s.apply({"type": "character.edit", "id": corpse, "fields": {"dead": True}})
        with pytest.raises(EventError, match="the Dead stay dead"):
            s.heal(bruno, corpse, rng=FixedDice([1]))
    finally:
        s.close()


def test_1d6x4_uses_spend_the_parent_too(store):
    s = new_session(store, "1d6x4")
    try:
        b = add(s, "Bruno", sheet=SHEET)
        s.apply({"type": "use", "id": b, "descriptor": "Open Lock"})
        sheet = s.state.characters[b].sheet
        assert (sheet.uses("Magic Ability/Open Lock"), sheet.uses("Magic Ability")) == (0, 4)
        refused(s, {"type": "use", "id": b, "descriptor": "Open Lock"}, "at (0)")
        refused(s, {"type": "use", "id": b, "descriptor": "Flight Ability"}, "not on the sheet")
        s.undo()
        assert s.state.characters[b].sheet.uses("Magic Ability") == 5
        s.apply({"type": "sheet.set", "id": b, "descriptor": "Fitness", "current": -2})
        assert s.state.characters[b].sheet.value("Fitness") == -2
        s.apply({"type": "sheet.set", "id": b, "descriptor": "Vitality", "default": 5})
        assert s.state.characters[b].vitality_default == 5
    finally:
        s.close()


def test_torg_possibilities_spend_cancel_buyoff(store):
    s = new_session(store, "torg-2d10")
    try:
        kara = add(s, "Kara", reality_rated=True, possibilities=2)
        ord_ = add(s, "Thug", side="NPC")
        villain = add(s, "Baron", side="NPC", reality_rated=True, possibilities=1)
        # refused before any die is rolled: an ord has none, Kara lacks three
        with pytest.raises(EventError, match="not reality-rated"):
            s.roll("torg-2d10", TORG.Params(possibilities=1), actor=ord_, rng=FixedDice([]))
        with pytest.raises(EventError, match="has 2 Possibilities, needs 3"):
            s.roll("torg-2d10", TORG.Params(possibilities=3), actor=kara, rng=FixedDice([]))
        # spent at roll time: hot 3 cold 5 → +3, the Possibility die 4 → +7; 10 + 7 − 10 = 7 → Wound
        p = TORG.Params(skill=10, difficulty=10, possibilities=1)
        e = s.roll("torg-2d10", p, actor=kara, target=villain, combat=True, rng=FixedDice([3, 5, 4]))
        assert s.state.characters[kara].possibilities == 1
        assert e.changes == ["Kara: Possibilities 2 → 1 (spent on the roll)", "Baron takes Wound"]
        roll_seq = e.seq
        # spent after the roll: +7 more → result points 14 → row +8 Mortal Wound (re-read)
        e = s.spend_possibility(kara, roll_seq, rng=FixedDice([7]))
        assert s.state.characters[kara].possibilities == 0
        assert [w.text for w in s.state.characters[villain].wounds] == ["Mortal Wound"]
        assert s.state.characters[villain].status == "unconscious"
        assert s.state.roll_entry(roll_seq).record.value == 14
        with pytest.raises(EventError, match="no Possibility to spend"):
            s.spend_possibility(kara, roll_seq, rng=FixedDice([1]))
        refused(s, {"type": "possibility.cancel", "id": kara, "roll": roll_seq}, "own Possibility")
        # the Baron cancels: both have lost one, the die is void, Wound again
        e = s.cancel_possibility(villain, roll_seq)
        assert s.state.characters[villain].possibilities == 0
        assert s.state.roll_entry(roll_seq).record.value == 7
        assert [w.text for w in s.state.characters[villain].wounds] == ["Wound"]
        assert s.state.characters[villain].status == "ok"
        # undo the cancel, then the spend: every change reverts
        s.undo()
        assert s.state.characters[villain].possibilities == 1
        assert [w.text for w in s.state.characters[villain].wounds] == ["Mortal Wound"]
        s.undo()
        assert s.state.characters[kara].possibilities == 1
        assert [w.text for w in s.state.characters[villain].wounds] == ["Wound"]
        # buy-off: the Baron spends his Possibility to take the Wound off
        e = s.apply({"type": "damage.buyoff", "id": villain, "wound": 0})
        assert s.state.characters[villain].wounds == [] and s.state.characters[villain].possibilities == 0
        assert "Baron buys off Wound" in s.state.roll_entry(roll_seq).changes
        refused(s, {"type": "damage.buyoff", "id": villain, "wound": 0}, "no wounds")
        refused(s, {"type": "possibility.cancel", "id": villain, "roll": 999}, "no roll #999")
    finally:
        s.close()


def test_torg_conditions_and_settings_reach_the_roll(store):
    s = new_session(store, "torg-2d10")
    try:
        kara = add(s, "Kara", reality_rated=True, possibilities=1)
        thug = add(s, "Thug", side="NPC")
        s.apply({"type": "condition.add", "id": kara, "name": "Stymied"})
        e = s.roll("torg-2d10", TORG.Params(), actor=kara, rng=FixedDice([9, 10]))  # +9, no reroll
        assert e.data["record"]["params"]["stymied"] is True and e.data["record"]["value"] == 9
        s.apply({"type": "session.settings", "changes": {"ord_positive_reroll": False}})
        e = s.roll("torg-2d10", TORG.Params(), actor=thug, rng=FixedDice([9, 10]))
        assert e.data["record"]["params"]["ord_no_reroll"] is True
        # a 1-case disconnection marks the roller Disconnected; undo lifts it
        e = s.roll("torg-2d10", TORG.Params(contradiction="1-case"), actor=kara, rng=FixedDice([9, 8]))
        assert "Kara is Disconnected" in e.changes and s.state.characters[kara].has_condition("Disconnected")
        s.undo()
        assert not s.state.characters[kara].has_condition("Disconnected")
    finally:
        s.close()


def test_gm_secret_stays_out_of_the_summary(store):
    s = new_session(store, "1d6x4")
    try:
        e = s.roll("1d6x4", ONE_D6.Params(target=17), rng=FixedDice([5]))
        assert "17" not in e.summary and e.data["record"]["target"] == 17
    finally:
        s.close()


def test_wound_remove_is_free(s):
    a, b = add(s, "Ann"), add(s, "Bo")
    s.roll("4d2", FOUR_D_TWO.Params(), actor=a, target=b, combat=True, rng=FixedDice([4, 4, 1, 1]))
    assert [w.text for w in s.state.characters[b].wounds] == ["Severe Wound"]  # 8 − 2 = +6
    e = s.apply({"type": "wound.remove", "id": b, "wound": 0})
    assert s.state.characters[b].wounds == [] and e.summary == "Bo: Severe Wound removed"
    refused(s, {"type": "wound.remove", "id": b, "wound": 0}, "no wounds")


# --------------------------------------------------------------------------- undo / redo / replay


def test_undo_redo_stacks_and_persistence(store):
    s = new_session(store)
    a = add(s, "Ann")
    states = [snap(s)]
    s.apply({"type": "note", "text": "one"})
    states.append(snap(s))
    s.apply({"type": "condition.add", "id": a, "name": "Up"})
    states.append(snap(s))
    assert s.undo().summary == "Undo #3: Ann is Up"
    assert snap(s) == states[1]
    s.undo()
    assert snap(s) == states[0] and s.can_redo
    s.redo()
    assert snap(s) == states[1]
    path = s.path
    s.close()
    s = Session.open(path)  # the stacks survive a reload
    assert snap(s) == states[1] and s.can_redo and s.can_undo
    s.redo()
    assert snap(s) == states[2]
    s.undo()
    s.apply({"type": "note", "text": "two"})  # a new event clears redo
    assert not s.can_redo and s.redo() is None
    assert [e.type for e in s.events] == [
        "character.add",
        "note",
        "condition.add",
        "undo",
        "undo",
        "redo",
        "redo",
        "undo",
        "note",
    ]
    while s.can_undo:
        s.undo()
    assert s.state.characters == {} and s.undo() is None
    assert snap(s) == replayed(s)
    s.close()


def test_an_undo_target_written_as_2_0_leaves_the_event_number_on_the_redo_stack(s):
    """A hand-written log (or a caller) may give the undo's target as 2.0: the undo takes
    back event #2 and the redo reads "Redo #2", not "#2.0"."""
    add(s, "Ann")
    add(s, "Bo")
    undo = s.apply({"type": "undo", "target": 2.0})
    assert undo.summary.startswith("Undo #2:")
    assert [c.name for c in s.state.characters.values()] == ["Ann"]
    assert s.redo_target is not None and s.redo_target.seq == 2
    redo = s.redo()
    assert redo is not None and redo.summary.startswith("Redo #2:") and redo.data["target"] == 2
    assert type(redo.data["target"]) is int
    assert [c.name for c in s.state.characters.values()] == ["Ann", "Bo"]


def test_an_undo_or_redo_the_disk_refuses_changes_nothing(s, monkeypatch):
    """The store refuses to write an undo, then a redo (a full disk): the session stays
    as it was, with the same undo and redo, and both work once the disk takes them."""
    a = add(s, "Ann")
    s.apply({"type": "condition.add", "id": a, "name": "Up"})
    upright = snap(s)

    def full(*args, **kwargs):
        raise StoreWriteError(s.path, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(s._log, "append", full)
        with pytest.raises(StoreWriteError):
            s.undo()
    assert snap(s) == upright and s.can_undo and not s.can_redo
    s.undo()
    down = snap(s)
    assert down != upright and s.can_redo
    with monkeypatch.context() as m:
        m.setattr(s._log, "append", full)
        with pytest.raises(StoreWriteError):
            s.redo()
    assert snap(s) == down and s.can_redo and s.redo_target is not None and s.redo_target.seq == 2
    assert s.redo() is not None and snap(s) == upright
    assert s.undo() is not None and snap(s) == down
    assert snap(s) == replayed(s)


def test_redo_gives_back_the_same_ids_and_dice(s):
    a = add(s, "Ann")
    s.undo()
    s.redo()
    assert list(s.state.characters) == [a]
    b = add(s, "Bo")
    e = s.roll("4d2", FOUR_D_TWO.Params(), actor=a, target=b, combat=True, rng=FixedDice([6, 5, 1, 1]))
    s.undo()
    s.redo()
    assert s.state.rolls[-1].record.to_json() == e.data["record"] and s.state.rolls[-1].seq == e.seq
    assert [w.roll_seq for w in s.state.characters[b].wounds] == [e.seq]


def test_live_state_equals_a_replay_and_a_reload(store):
    s = new_session(store, "torg-2d10")
    a = add(s, "Kara", reality_rated=True, possibilities=3)
    b = add(s, "Baron", side="NPC", reality_rated=True, possibilities=2, kind="inorganic")
    s.apply({"type": "initiative.set", "entries": [{"id": a, "value": 4}, {"id": b, "value": 9}]})
    s.apply({"type": "turn.next"})
    e = s.roll("torg-2d10", TORG.Params(skill=9, difficulty=8), actor=b, target=a, combat=True, rng=FixedDice([4, 6]))
    s.spend_possibility(a, e.seq, rng=FixedDice([3]))
    s.apply({"type": "clock.add", "name": "Storm", "segments": 6})
    s.apply({"type": "clock.tick", "name": "Storm", "halves": 3})
    s.apply({"type": "turn.next"})
    s.undo()
    assert snap(s) == replayed(s)
    live = s.state.to_json()
    path = s.path
    s.close()
    with Session.open(path, readonly=True) as r:
        assert r.state.to_json() == live


def test_readonly_follower_and_the_writer_lock(store):
    s = new_session(store)
    try:
        with pytest.raises(LockedError, match="open in gmdesk"):
            Session.open(s.path)
        r = Session.open(s.path, readonly=True)
        try:
            with pytest.raises(EventError, match="read-only"):
                r.apply({"type": "note", "text": "x"})
            assert r.refresh() is False
            add(s, "Ann")
            s.roll("4d2", FOUR_D_TWO.Params(), rng=FixedDice([1, 2, 3, 4]))
            assert r.refresh() is True
            assert list(r.state.characters) == ["c1"] and len(r.state.rolls) == 1
            s.undo()
            assert r.refresh() and r.state.rolls == []
            assert r.state.to_json() == s.state.to_json()
        finally:
            r.close()
    finally:
        s.close()


def test_view_state_is_not_an_event(s):
    s.ui_set("selected", "c3")
    assert s.ui_get("selected") == "c3" and s.ui_get("missing", 7) == 7
    assert len(s.events) == 0 and not s.can_undo
    path = s.path
    s.close()
    with Session.open(path) as again:
        assert again.ui_get("selected") == "c3"


def test_event_json_round_trip(s):
    a = add(s, "Ann")
    e = s.events[-1]
    assert isinstance(e, Event) and e.to_json()["id"] == a and e.to_json()["seq"] == 1
    rec = FOUR_D_TWO.roll(FOUR_D_TWO.Params(), FixedDice([1, 1, 1, 1]))
    e = s.apply({"type": "roll", "record": rec, "actor": a})  # a RollRecord is accepted and stored as JSON
    assert RollRecord.from_json(e.data["record"]) == rec


# --------------------------------------------------------------------------- the store of saves


def test_sanitised_file_names(store):
    assert safe_file_stem("Ünïcode ☃ / ../../etc") == "Ünïcode ☃ _ .._.._etc"
    assert safe_file_stem("..") == "session" and safe_file_stem("CON") == "_CON"
    assert safe_file_stem("a\x00b\x1b[31mc\u202e") == "ab[31mc"
    assert len(safe_file_stem("é" * 500).encode()) <= 120
    assert clean_name("  Night\tat the\ndocks ") == "Night at the docks"
    name = "Ünïcode ☃ / ../../etc"
    path = store.create(name, "fudge")
    assert path.parent == store.dir and path.name == "Ünïcode ☃ _ .._.._etc.gmdesk"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    [summary] = store.list()
    assert (summary.name, summary.system, summary.error) == (name, "fudge", None)
    assert store.path_for(name) == path and store.path_for(str(path)) == path
    with pytest.raises(GmdeskError, match="already exists"):
        store.create(name, "4d2")
    with pytest.raises(GmdeskError, match="name"):
        store.create(" \t", "4d2")
    other = store.create("Ünïcode ☃ _ .._.._etc", "4d2")  # same stem, another name
    assert other.name == "Ünïcode ☃ _ .._.._etc 2.gmdesk"


def test_listing_survives_a_damaged_file_and_reads_headers_only(store):
    s = new_session(store, name="Good")
    a = add(s, "Ann")
    s.roll("4d2", FOUR_D_TWO.Params(), actor=a, rng=FixedDice([1, 2, 3, 4]))
    s.apply({"type": "encounter.add", "id": a})
    s.apply({"type": "turn.next"})
    s.close()
    (store.dir / "Broken.gmdesk").write_text("{ this is not json")
    (store.dir / "Empty.gmdesk").write_bytes(b"")
    summaries = {x.name: x for x in store.list()}
    good = summaries["Good"]
    assert (good.system, good.round, good.rolls, good.characters, good.error) == ("4d2", 1, 1, 1, None)
    assert summaries["Broken"].error and "\n" not in summaries["Broken"].error
    assert summaries["Empty"].error
    assert SessionStore(store.dir / "nowhere").list() == []


def test_duplicate_delete_and_examples(store, tmp_path):
    s = new_session(store, name="Original")
    add(s, "Ann")
    s.ui_set("selected", "c1")
    s.close()
    copy_path = store.duplicate("Original", "Copy")
    with Session.open(copy_path, readonly=True) as c:
        assert c.state.info.name == "Copy" and list(c.state.characters) == ["c1"]
        assert c.ui_get("selected") == "c1"
    # an example is only read
    example = tmp_path / "example.gmdesk"
    head = {"format": "gmdesk-session", "name": "Example", "system": "4d6", "settings": {}}
    with EventLog.create(example, head) as log:
        log.append({"type": "character.add", "character": {"name": "Guide"}})
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir() if p.is_file()}
    made = store.create_from_example(example, "From the example")
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir() if p.is_file()}
    assert before == after
    with Session.open(made) as m:
        assert m.state.info.name == "From the example" and m.state.characters["c1"].name == "Guide"
    # delete: refused while open for writing, then every file goes
    w = Session.open(copy_path)
    with pytest.raises(LockedError):
        store.delete(copy_path)
    w.close()
    store.delete(copy_path)
    assert not any(p.name.startswith("Copy") for p in store.dir.iterdir())
    assert [x.name for x in store.list()] == ["From the example", "Original"]


def test_a_copy_or_a_repair_that_fails_half_way_leaves_no_file(store, monkeypatch):
    from gmdesk.core.session.repair import repair

    s = new_session(store, name="Original")
    add(s, "Ann")
    s.close()
    before = sorted(p.name for p in store.dir.iterdir())

    def disk_full(self, docs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(EventLog, "append_many", disk_full)
    with pytest.raises(OSError, match="No space"):
        store.duplicate("Original", "Copy")
    with pytest.raises(OSError, match="No space"):
        repair(s.path, store.dir)
    assert sorted(p.name for p in store.dir.iterdir()) == before
    assert [x.name for x in store.list()] == ["Original"]
    monkeypatch.undo()
    made, _ = repair(s.path, store.dir)
    with Session.open(made, readonly=True) as r:
        assert r.state.info.name == "Original (repaired)" and r.state.characters["c1"].name == "Ann"


def test_default_saves_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("GMDESK_SAVES", str(tmp_path / "mine"))
    assert default_saves_dir() == tmp_path / "mine"
    monkeypatch.delenv("GMDESK_SAVES")
    import platformdirs

    assert default_saves_dir() == Path(platformdirs.user_data_dir("gmdesk")) / "saves"


# --------------------------------------------------------------------------- export


def test_export_chronicle(store):
    s = new_session(store, name="<b>Docks</b>")
    a, b = add(s, "Bruno <script>"), add(s, "Kara & Co")
    s.apply({"type": "initiative.set", "entries": [{"id": a, "value": 5}, {"id": b, "value": 2}]})
    s.apply({"type": "turn.next"})
    s.roll("4d2", FOUR_D_TWO.Params(), actor=a, target=b, combat=True, rng=FixedDice([6, 4, 1, 1]))
    s.apply({"type": "note", "text": "Kara *falls* [into] the water"})
    md = export(s.state, "md", s.events, public=False)
    assert "### Round 1" in md and "Kara & Co takes Mortal Wound" in md
    assert "Kara \\*falls\\* \\[into\\] the water" in md and "positive 6 4" in md
    page = export(s.state, "html", s.events, public=False)
    assert "<script>" not in page and "&lt;script&gt;" in page and "&lt;b&gt;Docks" in page
    assert "Kara &amp; Co takes Mortal Wound" in page
    data = json.loads(export(s.state, "json", s.events, public=False))
    roll = [x for x in data["chronicle"] if x["type"] == "roll"][0]
    assert roll["roll"]["dice"][1] == {"value": 4, "role": "positive", "sides": 6}
    assert roll["changes"] == ["Kara & Co takes Mortal Wound (Unconscious)"]
    assert data["hurt"][0]["name"] == "Kara & Co"
    public = to_json(s.state, s.events, public=True)
    assert all(x["type"] != "note" for x in public["chronicle"])
    with pytest.raises(GmdeskError, match="md, html, json"):
        export(s.state, "pdf")
    s.close()


def test_big_sessions_are_listed_from_their_header_line(store, monkeypatch):
    import gmdesk.core.session.saves as saves_mod

    s = new_session(store, name="Long campaign")
    a = add(s, "Ann")
    s.roll("4d2", FOUR_D_TWO.Params(), actor=a, rng=FixedDice([1, 2, 3, 4]))
    s.close()
    s = Session.open(s.path)  # still open: the new character reaches the header through the journal
    add(s, "Bo")
    slow = store.summary(s.path)
    monkeypatch.setattr(saves_mod, "QUICK_BYTES", 1)
    assert saves_mod._quick_header(s.path) is not None
    quick = store.summary(s.path)
    assert quick == slow and (quick.characters, quick.rolls) == (2, 1)
    s.close()
    (store.dir / "Torn.gmdesk").write_bytes(b'{"_gmdesk":{"format":"gmdesk-session"')  # cut short
    torn = {x.name: x for x in store.list()}["Torn"]
    assert torn.error


def test_a_condition_switched_off_for_one_roll_stays_off(tmp_path):
    """The roll dialog may switch Up off for one roll: ``fill=False`` rolls exactly the
    parameters given; by default the session fills the roller's conditions in."""
    from gmdesk.core.session import Session, SessionStore
    from gmdesk.core.systems import torg_2d10

    path = SessionStore(tmp_path).create("Up test", "torg-2d10")
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Quin", "reality_rated": True, "possibilities": 3}})
        quin = s.character("Quin").id
        s.apply({"type": "condition.add", "id": quin, "name": "Up"})
        filled = s.roll("torg-2d10", torg_2d10.Params(), actor=quin, rng=FixedDice([3, 5, 4]))
        as_given = s.roll("torg-2d10", torg_2d10.Params(), actor=quin, rng=FixedDice([3, 5]), fill=False)
        rolls = {e.seq: e.record for e in s.state.rolls}
    assert rolls[filled.seq].params["up"] is True and [d.role for d in rolls[filled.seq].dice][-1] == "up"
    assert rolls[as_given.seq].params["up"] is False and all(d.role != "up" for d in rolls[as_given.seq].dice)
