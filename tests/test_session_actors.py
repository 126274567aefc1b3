"""Who can act, who may be targeted, unique names, initiative as a logged roll and
the session's fudge method — in the session (core), the CLI, and the replay of logs
written before these rules.

Dice are FixedDice; the rules are RULES.md's "Who can act" and "Initiative"."""

from __future__ import annotations

import pytest

from gmdesk.cli.main import main
from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.storage import EventLog


@pytest.fixture
def store(tmp_path) -> SessionStore:
    return SessionStore(tmp_path / "saves")


def add(s: Session, name: str, **fields) -> str:
    return s.apply({"type": "character.add", "character": {"name": name, **fields}}).data["id"]


def order(s: Session) -> list[str]:
    return [s.state.characters[c.char_id].name for c in s.state.encounter.order]


def acting(s: Session) -> str:
    cur = s.state.encounter.current
    return s.state.characters[cur.char_id].name if cur else ""


def knock_out(s: Session, cid: str) -> None:
    s.apply({"type": "character.edit", "id": cid, "fields": {"vitality_current": -5}})
    assert s.state.characters[cid].status == "unconscious"


def kill(s: Session, cid: str) -> None:
    s.apply({"type": "character.edit", "id": cid, "fields": {"dead": True}})
    assert s.state.characters[cid].status == "dead"


# --------------------------------------------------------------------------- unique names (27)


def test_a_taken_name_is_refused_with_a_numbered_suggestion(store):
    with Session.open(store.create("Names", "torg-2d10")) as s:
        gos = add(s, "Gospog")
        with pytest.raises(EventError) as err:
            add(s, " gospog ")
        # the suggestion keeps what the GM typed, numbered
        assert str(err.value) == ("character.add: name: 'Gospog' is already a character here; try 'gospog 2'")
        assert list(s.state.characters) == [gos]  # nothing changed
        add(s, "Gospog 2")
        with pytest.raises(EventError, match="try 'GOSPOG 3'"):
            add(s, "GOSPOG")
        with pytest.raises(EventError, match="'Gospog 2' is already a character.*try 'Gospog 3'"):
            add(s, "Gospog 2")
        bo = add(s, "Bo")
        with pytest.raises(EventError, match="name: 'Gospog' is already a character"):
            s.apply({"type": "character.edit", "id": bo, "fields": {"name": "gospog"}})
        # renaming a character to its own name in other letters is no clash
        s.apply({"type": "character.edit", "id": gos, "fields": {"name": "GOSPOG"}})
        assert s.state.characters[gos].name == "GOSPOG"
        # and the lookup by name is never ambiguous
        assert s.character("gospog").id == gos


def test_a_log_written_with_shared_names_still_opens_as_written(store):
    """Logs from before the rule: replayed as they were written (nothing skipped)."""
    path = store.create("Old", "4d2")
    with EventLog.open(path) as log:
        for _ in range(2):
            log.append({"type": "character.add", "character": {"name": "Twin"}, "time": "2026-01-01T00:00:00"})
    with Session.open(path) as s:
        assert [c.name for c in s.state.characters.values()] == ["Twin", "Twin"]
        assert not s.warnings


# --------------------------------------------------------------------------- who can act (8)


def fighters(s: Session) -> tuple[str, str, str, str]:
    a, b, c, d = add(s, "Ann"), add(s, "Bo", side="NPC"), add(s, "Cy"), add(s, "Dee", side="NPC")
    s.apply(
        {
            "type": "initiative.set",
            "entries": [{"id": a, "value": 4}, {"id": b, "value": 3}, {"id": c, "value": 2}, {"id": d, "value": 1}],
        }
    )
    return a, b, c, d


def test_the_unconscious_and_the_dead_get_no_turn(store):
    with Session.open(store.create("Turns", "4d2")) as s:
        a, b, c, d = fighters(s)
        knock_out(s, b)
        kill(s, c)
        e = s.apply({"type": "turn.next"})
        assert (s.state.encounter.round, acting(s)) == (1, "Ann")
        e = s.apply({"type": "turn.next"})
        assert acting(s) == "Dee"
        assert e.summary == "Round 1: Dee's turn (no turn: Bo (Unconscious), Cy (Dead))"
        e = s.apply({"type": "turn.prev"})
        assert (s.state.encounter.round, acting(s)) == (1, "Ann")
        with pytest.raises(EventError, match="first turn of round 1"):
            s.apply({"type": "turn.prev"})
        s.apply({"type": "turn.next"})
        e = s.apply({"type": "turn.next"})  # Dee → round 2: Ann
        assert (s.state.encounter.round, acting(s)) == (2, "Ann")
        # an Unconscious combatant first in the order: a new round starts with the next one
        knock_out(s, a)
        e = s.apply({"type": "round.new"})
        assert (s.state.encounter.round, acting(s)) == (3, "Dee")
        assert "no turn: Ann (Unconscious)" in e.summary
        # brought back above the threshold: acts again
        s.apply({"type": "character.edit", "id": b, "fields": {"vitality_current": 1}})
        s.apply({"type": "turn.next"})
        assert (s.state.encounter.round, acting(s)) == (4, "Bo")


def test_no_one_able_to_act_still_lets_the_turns_go_round(store):
    with Session.open(store.create("Out", "4d2")) as s:
        a, b, c, d = fighters(s)
        for cid in (a, b, c, d):
            knock_out(s, cid)
        s.apply({"type": "turn.next"})
        s.apply({"type": "turn.next"})
        assert acting(s) == "Bo"


def test_durations_of_those_without_a_turn_do_not_tick(store):
    with Session.open(store.create("Ticks", "4d2")) as s:
        a, b, c, d = fighters(s)
        s.apply({"type": "condition.add", "id": b, "name": "Dazed", "rounds": 1})
        knock_out(s, b)
        s.apply({"type": "turn.next"})
        for _ in range(3):
            s.apply({"type": "turn.next"})
        s.apply({"type": "round.new"})
        assert [x.name for x in s.state.characters[b].conditions] == ["Dazed"]


def test_the_unconscious_and_the_dead_cannot_roll_and_the_dead_cannot_be_targeted(store):
    four = __import__("gmdesk.core.systems", fromlist=["get_system"]).get_system("4d2")
    with Session.open(store.create("Rolls", "4d2")) as s:
        a, b, c, d = fighters(s)
        knock_out(s, b)
        kill(s, c)
        n = len(s.events)
        # refused before any die is rolled (no dice given: rolling would fail otherwise)
        with pytest.raises(EventError, match="^roll: Bo is Unconscious and cannot act$"):
            s.roll("4d2", four.Params(), actor=b, target=a, combat=True, rng=FixedDice([]))
        with pytest.raises(EventError, match="^roll: Cy is Dead and cannot act$"):
            s.roll("4d2", four.Params(), actor=c, rng=FixedDice([]))
        with pytest.raises(EventError, match="^roll: Cy is Dead and cannot be targeted$"):
            s.roll("4d2", four.Params(), actor=a, target=c, combat=True, rng=FixedDice([]))
        # the event itself is refused too (any writer: CLI, scripts)
        rec = four.roll(four.Params(), FixedDice([3, 3, 3, 3])).to_json()
        with pytest.raises(EventError, match="Bo is Unconscious and cannot act"):
            s.apply({"type": "roll", "record": rec, "actor": b})
        assert len(s.events) == n
        # the Unconscious may still be targeted; the GM may still roll for nobody at anyone alive
        s.roll("4d2", four.Params(), actor=a, target=b, combat=True, rng=FixedDice([4, 3, 3, 3]))
        s.roll("4d2", four.Params(), rng=FixedDice([4, 3, 3, 3]))
        # brought back: rolls again
        s.apply({"type": "character.edit", "id": b, "fields": {"vitality_current": 0}})
        s.roll("4d2", four.Params(), actor=b, target=a, rng=FixedDice([4, 3, 3, 3]))


def test_a_log_with_a_roll_by_the_unconscious_still_opens_as_written(store):
    four = __import__("gmdesk.core.systems", fromlist=["get_system"]).get_system("4d2")
    path = store.create("Old rolls", "4d2")
    rec = four.roll(four.Params(), FixedDice([3, 3, 3, 3])).to_json()
    t = "2026-01-01T00:00:00"
    with EventLog.open(path) as log:
        log.append({"type": "character.add", "character": {"name": "Bo", "vitality": -6}, "id": "c1", "time": t})
        log.append({"type": "roll", "record": rec, "actor": "c1", "time": t})
    with Session.open(path) as s:
        assert not s.warnings and len(s.state.rolls) == 1


def test_cli_roll_as_the_unconscious_or_at_the_dead_exits_2_naming_the_status(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("GMDESK_SAVES", raising=False)
    saves = tmp_path / "saves"
    path = SessionStore(saves).create("Docks", "4d2")
    with Session.open(path) as s:
        kara = add(s, "Kara")
        bruno = add(s, "Bruno", side="NPC")
        knock_out(s, bruno)
        kill(s, add(s, "Vex", side="NPC"))
        n = len(s.events)
    for args, words in (
        (("--as", "Bruno"), "gmdesk: roll: Bruno is Unconscious and cannot act"),
        (("--as", "Kara", "--at", "Vex", "--combat"), "gmdesk: roll: Vex is Dead and cannot be targeted"),
    ):
        rc = main(["--saves", str(saves), "roll", "4d2", "--seed", "1", "--save", "Docks", *args])
        out, err = capsys.readouterr()
        assert rc == 2 and out == "" and err == words + "\n", (rc, out, err)
    with Session.open(path, readonly=True) as s:
        assert len(s.events) == n and s.state.characters[kara].status == "ok"


# --------------------------------------------------------------------------- initiative (9, 15)


def test_fudge_initiative_uses_the_sessions_method(store):
    with Session.open(store.create("Mile", "fudge")) as s:
        a = add(s, "Aldric")
        assert s.state.info.settings["fudge_method"] == "2d3"
        with pytest.raises(EventError, match="fudge_method: must be one of 2d3, custom, d20, d20-open, d30, d12"):
            s.apply({"type": "session.settings", "changes": {"fudge_method": "3d6"}})
        s.apply({"type": "session.settings", "changes": {"fudge_method": "d20-open"}})
        # d20-open: a 20 rolls once more; 15 (+1) has the same sign: +3 +1 = +4, on Good (+1) → +5
        s.roll_initiative([a], rng=FixedDice([20, 15]), modifiers={a: 1})
        entry = s.state.rolls[-1]
        assert entry.record.params["method"] == "d20-open"
        assert [d.value for d in entry.record.dice] == [20, 15]
        assert s.state.encounter.order[0].initiative == 5


def test_joining_the_encounter_rolls_a_logged_initiative(store):
    path = store.create("Join", "4d6")
    with Session.open(path) as s:
        a, b = add(s, "Ann"), add(s, "Bo")
        s.apply({"type": "encounter.add", "id": a, "initiative": 12})
        e = s.join_encounter(b, rng=FixedDice([6, 5, 4, 3]))
        assert e.type == "encounter.add" and e.changes == ["Bo: initiative 18"]
        entry = s.state.rolls[-1]
        assert (entry.kind, entry.actor, entry.seq, entry.record.value) == ("initiative", b, e.seq, 18)
        assert [d.value for d in entry.record.dice] == [6, 5, 4, 3]
        assert order(s) == ["Bo", "Ann"]
        s.undo()
        assert s.state.rolls == [] and order(s) == ["Ann"]
        s.redo()
        # a typed value joins without a roll
        c = add(s, "Cy")
        s.join_encounter(c, value=1)
        assert len(s.state.rolls) == 1 and order(s) == ["Bo", "Ann", "Cy"]
    # reopened (from the checkpoint, and by a full replay): the roll reads back
    with Session.open(path) as s:
        assert s.state.rolls[0].record.value == 18
    Session.CHECKPOINTS = False
    try:
        with Session.open(path, readonly=True) as s:
            assert s.state.rolls[0].record.value == 18
    finally:
        Session.CHECKPOINTS = True
