"""``gmdesk char SAVE add-from NAME [--count N]``: numbered copies of a bestiary stat
block join the session and the encounter as one undoable event, each initiative
roll logged with its dice."""

from __future__ import annotations

from pathlib import Path

from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.campaign.bestiary import BESTIARY_FILE, Bestiary
from gmdesk.core.campaign.statblock import StatBlock
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.events import replay
from gmdesk.core.session.events.text import num


def session(saves: Path, system: str = "torg-2d10", name: str = "Night 1") -> Path:
    return SessionStore(saves).create(name, system)


def play(state) -> dict:
    """The state as play sees it (not when it was last played)."""
    return {k: v for k, v in state.to_json().items() if k != "info"}


def state_of(path: Path):
    with Session.open(path, readonly=True) as s:
        return s.state, list(s.events)


def test_four_numbered_copies_join_the_encounter_in_one_event_with_logged_initiative(capsys, saves):
    path = session(saves)
    rc, out, err = run(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--count", "4")
    assert rc == 0, err
    st, events = state_of(path)
    assert len(events) == 1 and events[0].type == "characters.add"
    names = [c.name for c in st.characters.values()]
    assert names == ["Gospog 1", "Gospog 2", "Gospog 3", "Gospog 4"]
    gospog = Bestiary(saves).find("Gospog")
    for c in st.characters.values():
        assert (c.side, c.vitality_default, c.vitality_current) == ("NPC", gospog.vitality, gospog.vitality)
        assert c.fields == gospog.fields
    # each in the order, at the initiative its own roll gave (Dexterity 8: the torg modifier)
    inits = {x.char_id: x.initiative for x in st.encounter.order}
    assert set(inits) == set(st.characters)
    rolls = [r for r in st.rolls if r.kind == "initiative"]
    assert len(rolls) == 4
    for r in rolls:
        assert r.seq == events[0].seq and r.record.value == inits[r.actor] and r.record.dice
        assert r.actor_name == st.characters[r.actor].name
    for c in st.characters.values():
        assert f"{c.name} ({c.id}): initiative {num(inits[c.id])}, Vitality 9" in out
    assert "Gospog 1, Gospog 2, Gospog 3, Gospog 4 join the encounter from the bestiary (Gospog)" in out
    assert [f"{c.name}: initiative {num(inits[c.id])}" for c in st.characters.values()] == events[0].changes
    # the live state is the fold of the log
    with Session.open(path, readonly=True) as s:
        again = replay(s.header, [(e.seq, {"type": e.type, **e.data}) for e in s.events]).state
        assert again.to_json() == s.state.to_json()


def test_numbering_goes_on_after_the_numbers_taken_and_one_copy_keeps_the_plain_name(capsys, saves):
    path = session(saves)
    assert run(capsys, saves, "char", "Night 1", "add-from", "gospog")[0] == 0
    assert run(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--count", "2")[0] == 0
    assert run(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--count", "2")[0] == 0
    assert run(capsys, saves, "char", "Night 1", "add-from", "Gospog")[0] == 0
    st, events = state_of(path)
    assert [c.name for c in st.characters.values()] == [
        "Gospog",
        "Gospog 1",
        "Gospog 2",
        "Gospog 3",
        "Gospog 4",
        "Gospog 5",
    ]
    assert len(events) == 4


def test_each_copy_is_its_own_character(capsys, saves):
    path = session(saves, "1d6x4", "Fen")
    assert run(capsys, saves, "char", "Fen", "add-from", "Bog Goblin", "--count", "2")[0] == 0
    with Session.open(path) as s:
        one, two = s.state.characters.values()
        s.apply({"type": "character.edit", "id": one.id, "fields": {"vitality_current": -3}})
        s.apply({"type": "character.fields", "id": two.id, "set": {"attack_test": "Knife"}})
        one, two = s.state.characters.values()
        assert one.vitality_current == -3 and two.vitality_current == 0
        assert one.fields["attack_test"] == "Fitness+Knife Expertise+Knife" and two.fields["attack_test"] == "Knife"
        assert one.sheet is not None and one.sheet.find("Knife") is not None and one.sheet is not two.sheet


def test_sources_and_conditions_come_with_the_stat_block(capsys, saves):
    path = session(saves, "4d2", "Heist")
    Bestiary(saves).ensure_starter()
    assert run(capsys, saves, "char", "Heist", "add-from", "Scrap-7", "--count", "2")[0] == 0
    st, _ = state_of(path)
    for c in st.characters.values():
        assert [(s.name, s.value) for s in c.shifts] == [("Targeting array", 1), ("Armour plating", 1)]
        assert c.kind == "inorganic"


def test_one_undo_takes_the_whole_group_back_and_redo_brings_it_again(capsys, saves):
    path = session(saves)
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Quin", "side": "PC"}})
        s.roll_initiative(list(s.state.characters))
        s.apply({"type": "round.new"})
        before = play(s.state)
    assert run(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--count", "3")[0] == 0
    with Session.open(path) as s:
        after = play(s.state)
        assert len(s.state.characters) == 4 and len(s.state.encounter.order) == 4
        ev = s.undo()
        assert ev is not None and "Gospog 1, Gospog 2, Gospog 3" in ev.summary
        assert play(s.state) == before
        s.redo()
        assert play(s.state) == after
    # undone and reopened: still undone (the log says so)
    with Session.open(path) as s:
        s.undo()
    with Session.open(path, readonly=True) as s:
        assert [c.name for c in s.state.characters.values()] == ["Quin"]
        assert play(s.state) == before


def test_add_from_refuses_in_one_line_and_writes_nothing(capsys, saves):
    path = session(saves)
    Bestiary(saves).ensure_starter()
    bestiary_bytes = (saves / BESTIARY_FILE).read_bytes()
    cases = [
        (["Bandit"], ["Bandit", "fudge", "torg-2d10"]),
        (["Nobody"], ["no stat block", "Nobody"]),
        (["Gospog", "--count", "0"], ["--count"]),
        (["Gospog", "--count", "many"], ["--count"]),
        (["Gospog", "--count", "101"], ["--count"]),
    ]
    for args, words in cases:
        rc, out, err = run(capsys, saves, "char", "Night 1", "add-from", *args)
        assert rc == 2, args
        one_error_line(err, *words)
    st, events = state_of(path)
    assert events == [] and not st.characters
    assert (saves / BESTIARY_FILE).read_bytes() == bestiary_bytes
    rc, out, err = run(capsys, saves, "char", "Nowhere", "add-from", "Gospog")
    assert rc == 2
    one_error_line(err, "Nowhere")


def test_a_stat_block_of_the_gms_own_fills_the_roll_of_its_copies(capsys, saves):
    session(saves, "4d6", "Vault")
    Bestiary(saves).add(
        StatBlock(
            "Vault Guard", "4d6", vitality=9, fields={"skills": {"Spear": 2}, "attack_skill": "Spear", "defense_dc": 15}
        )
    )
    assert (
        run(capsys, saves, "char", "Vault", "add", "Renna", "--set", "skills=Blades=2", "--set", "attack_skill=Blades")[
            0
        ]
        == 0
    )
    assert run(capsys, saves, "char", "Vault", "add-from", "Vault Guard", "--count", "2")[0] == 0
    rc, out, err = run(
        capsys, saves, "roll", "4d6", "--save", "Vault", "--as", "Renna", "--at", "Vault Guard 2", "--combat", "--json"
    )
    assert rc == 0, err
    import json

    assert json.loads(out)["params"]["dc"] == 15


def test_hidden_copies_and_their_initiative_rolls_are_hidden_from_the_players(capsys, saves):
    path = session(saves)
    rc, out, err = run(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--count", "2", "--hidden")
    assert rc == 0, err
    assert "hidden from the players" in out
    st, events = state_of(path)
    assert [c.hidden for c in st.characters.values()] == [True, True]
    assert len(st.encounter.order) == 2
    rolls = [r for r in st.rolls if r.kind == "initiative"]
    assert len(rolls) == 2 and not any(st.public_roll(r) for r in rolls)
    assert st.public_characters() == []
    with Session.open(path) as s:
        s.undo()
        assert not s.state.characters and not s.state.rolls
