"""``gmdesk char SAVE add|set|show|list|remove`` and ``gmdesk roll … --save --as
--at`` taking its numbers from the characters, as a GM types them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.session import Session, SessionStore


def make(saves: Path, system: str = "torg-2d10", name: str = "Storm") -> Path:
    return SessionStore(saves).create(name, system)


def events(path: Path) -> list:
    with Session.open(path, readonly=True) as s:
        return list(s.events)


def character(path: Path, name: str):
    with Session.open(path, readonly=True) as s:
        return s.character(name)


def test_add_with_a_stat_block_is_one_event(capsys, saves):
    path = make(saves)
    rc, out, err = run(
        capsys,
        saves,
        "char",
        "Storm",
        "add",
        "Quin",
        "--side",
        "PC",
        "--set",
        "stats=Dexterity=10, Fire Combat=13, Dodge=11",
        "--set",
        "attack skill=fire combat",
        "--set",
        "vitality=10",
        "--set",
        "possibilities=3",
    )
    assert rc == 0, err
    assert "Added Quin" in out and "Attack skill: Fire Combat" in out
    c = character(path, "Quin")
    assert c.fields == {"stats": {"Dexterity": 10, "Fire Combat": 13, "Dodge": 11}, "attack": "Fire Combat"}
    assert (c.vitality_current, c.possibilities, c.reality_rated, c.side) == (10, 3, True, "PC")
    assert [e.type for e in events(path)] == ["character.add"]


def test_set_changes_fields_and_own_parts_in_one_undoable_event(capsys, saves):
    path = make(saves)
    run(capsys, saves, "char", "Storm", "add", "Trooper", "--side", "NPC", "--set", "stats=Dodge=9, Fire Combat=10")
    rc, out, err = run(
        capsys, saves, "char", "Storm", "set", "trooper", "stats.Dodge=11", "defense=Dodge", "kind=inorganic"
    )
    assert rc == 0, err
    assert "Defense → Dodge" in out
    c = character(path, "Trooper")
    assert c.fields["stats"] == {"Dodge": 11, "Fire Combat": 10}  # the entry keeps its place
    assert c.kind == "inorganic"
    assert [e.type for e in events(path)] == ["character.add", "character.fields"]
    with Session.open(path) as s:
        s.undo()
        t = s.character("Trooper")
        assert (t.fields["stats"]["Dodge"], t.kind, t.fields.get("defense")) == (9, "organic", None)
    # an empty value clears a field, or takes an entry off a table
    run(capsys, saves, "char", "Storm", "set", "Trooper", "stats.Fire Combat=")
    assert character(path, "Trooper").fields["stats"] == {"Dodge": 9}


def test_set_says_each_change_in_the_words_the_gm_set_it_by(capsys, saves):
    make(saves)
    run(capsys, saves, "char", "Storm", "add", "Kara")
    rc, out, err = run(
        capsys, saves, "char", "Storm", "set", "Kara", "vitality=12", "max vitality=14", "side=NPC",
        "kind=inorganic", "possibilities=3", "name=Kara Vey",
    )  # fmt: skip
    assert rc == 0, err
    for line in (
        "Kara: Name “Kara” → “Kara Vey”",
        "Kara: Side PC → NPC",
        "Kara: Kind organic → inorganic",
        "Kara: Max Vitality 0 → 14",
        "Kara: Vitality 0 → 12",
        "Kara: Reality-rated no → yes",
        "Kara: Possibilities 0 → 3",
    ):
        assert line in out, out
    assert "_" not in out and "'" not in out  # no event key, no Python quoting


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["set", "Trooper", "attack=Stealth"], ["Attack skill", "'Stealth'", "Dodge"]),
        (["set", "Trooper", "luck=3"], ["luck", "no such field"]),
        (["set", "Trooper", "stats.Dodge=lots"], ["Attributes and skills: Dodge", "whole number"]),
        (["set", "Trooper", "side=villain"], ["Side", "PC or NPC"]),
        (["set", "Trooper", "possibilities"], ["FIELD=VALUE"]),
        (["set", "Nobody", "side=NPC"], ["no character 'Nobody'"]),
        (["add", "Trooper"], ["Trooper"]),
        (["add", "Kara", "--kind", "ghostly"], ["--kind", "organic or inorganic"]),
        (["remove", "Nobody"], ["no character 'Nobody'"]),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_is_saved(capsys, saves, args, words):
    path = make(saves)
    run(capsys, saves, "char", "Storm", "add", "Trooper", "--set", "stats=Dodge=9")
    before = events(path)
    rc, out, err = run(capsys, saves, "char", "Storm", *args)
    assert rc == 2
    one_error_line(err, *words)
    assert len(events(path)) == len(before)


def test_show_and_list_as_text_and_json(capsys, saves):
    make(saves, "fudge", "Mile")
    run(
        capsys,
        saves,
        "char",
        "Mile",
        "add",
        "Aldric",
        "--set",
        "traits=Sword=Great, Dodge=Good",
        "--set",
        "attack trait=Sword",
    )
    rc, out, _ = run(capsys, saves, "char", "Mile", "show", "Aldric")
    assert rc == 0
    assert "Traits: Sword=Great, Dodge=Good" in out and "Attack trait: Sword" in out
    rc, out, _ = run(capsys, saves, "char", "Mile", "show", "Aldric", "--json")
    assert json.loads(out)["fields"] == {"traits": {"Sword": 2, "Dodge": 1}, "attack_trait": "Sword"}
    run(capsys, saves, "char", "Mile", "add", "Bandit", "--side", "NPC")
    rc, out, _ = run(capsys, saves, "char", "Mile", "list")
    assert rc == 0 and "Aldric" in out and "Bandit" in out and "Sword=Great" in out
    rc, out, _ = run(capsys, saves, "char", "Mile", "list", "--json")
    assert [json.loads(line)["name"] for line in out.splitlines()] == ["Aldric", "Bandit"]


def test_remove_is_one_undoable_event(capsys, saves):
    path = make(saves)
    run(capsys, saves, "char", "Storm", "add", "Trooper")
    rc, out, _ = run(capsys, saves, "char", "Storm", "remove", "Trooper")
    assert rc == 0 and "Trooper leaves the session" in out
    with Session.open(path) as s:
        assert not s.state.characters
        s.undo()
        assert s.character("Trooper")


def test_a_roll_with_stored_characters_takes_their_numbers_and_says_whose(capsys, saves):
    make(saves)
    run(
        capsys,
        saves,
        "char",
        "Storm",
        "add",
        "Quin",
        "--set",
        "stats=Fire Combat=13, Dodge=12",
        "--set",
        "attack=Fire Combat",
    )
    run(capsys, saves, "char", "Storm", "add", "Trooper", "--side", "NPC", "--set", "stats=Dodge=11")
    rc, out, err = run(
        capsys,
        saves,
        "roll",
        "torg-2d10",
        "--save",
        "Storm",
        "--as",
        "Quin",
        "--at",
        "Trooper",
        "--combat",
        "--seed",
        "1",
        "--json",
    )
    assert rc == 0, err
    record = json.loads(out)
    assert (record["params"]["skill"], record["params"]["difficulty"]) == (13, 11)
    assert record["from"] == {"skill": "Quin's Fire Combat", "difficulty": "Trooper's Dodge"}
    # an explicit option wins; a stat's name stands for its value
    rc, out, err = run(
        capsys,
        saves,
        "roll",
        "torg-2d10",
        "--save",
        "Storm",
        "--as",
        "Quin",
        "--at",
        "Trooper",
        "--combat",
        "--skill",
        "dodge",
        "--difficulty",
        "8",
        "--json",
    )
    record = json.loads(out)
    assert (record["params"]["skill"], record["params"]["difficulty"]) == (12, 8)
    assert record["from"] == {"skill": "Quin's Dodge"}
    rc, out, err = run(capsys, saves, "roll", "torg-2d10", "--save", "Storm", "--as", "Quin", "--skill", "Stealth")
    assert rc == 2
    one_error_line(err, "--skill", "Quin has no 'Stealth'", "Fire Combat, Dodge")


@pytest.mark.parametrize(
    ("system", "attacker", "defender", "expected"),
    [
        (
            "fudge",
            ["traits=Sword=Great", "attack trait=Sword", "offense=2"],
            ["traits=Dodge=Good", "defense trait=Dodge", "defensive factor=1"],
            {"trait": 2, "vs_trait": 1, "offense": 2, "defense": 1},
        ),
        ("4d6", ["skills=Blades=2", "attack skill=Blades"], ["defense dc=18"], {"bonus": 2, "dc": 18}),
    ],
)
def test_every_attack_is_filled_from_the_stat_blocks(capsys, saves, system, attacker, defender, expected):
    make(saves, system, "Fight")
    run(capsys, saves, "char", "Fight", "add", "A", *[x for a in attacker for x in ("--set", a)])
    run(capsys, saves, "char", "Fight", "add", "B", "--side", "NPC", *[x for d in defender for x in ("--set", d)])
    rc, out, err = run(
        capsys, saves, "roll", system, "--save", "Fight", "--as", "A", "--at", "B", "--combat", "--seed", "2", "--json"
    )
    assert rc == 0, err
    params = json.loads(out)["params"]
    assert {k: params[k] for k in expected} == expected


def test_a_1d6x4_attack_reads_both_sheets_by_the_declared_descriptors(capsys, saves, tmp_path):
    path = make(saves, "1d6x4", "Fen")
    mark = "Mark\nDescriptor  Default  Current\nPrecision  +1\nSlingshot Expertise  +2\nSlingshot  +4\n"
    gob = "Goblin\nDescriptor  Default  Current\nDefense  +2\n"
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Mark", "sheet": mark}})
        s.apply({"type": "character.add", "character": {"name": "Goblin", "sheet": gob}})
    run(capsys, saves, "char", "Fen", "set", "Mark", "attack descriptors=Precision, Slingshot Expertise, Slingshot")
    rc, out, err = run(
        capsys,
        saves,
        "roll",
        "1d6x4",
        "--save",
        "Fen",
        "--as",
        "Mark",
        "--at",
        "Goblin",
        "--combat",
        "--seed",
        "2",
        "--json",
    )
    assert rc == 0, err
    record = json.loads(out)
    assert record["params"]["bonus"] == 7 and record["params"]["vs_bonus"] == 2
    assert record["from"]["test"] == "Mark's Attack descriptors"
    assert record["from"]["vs_test"] == "Goblin's Defense descriptors"


def test_initiative_rolls_or_takes_typed_values_and_joins_the_fight_in_one_event(capsys, saves):
    path = make(saves)
    for args in (["Kara", "--set", "stats=Dexterity=10"], ["Tam"]):
        assert run(capsys, saves, "char", "Storm", "add", *args)[0] == 0
    before = len(events(path))
    rc, out, err = run(capsys, saves, "char", "Storm", "initiative", "Kara", "Tam=12", "--seed", "4")
    assert rc == 0, err
    assert "Tam: initiative 12" in out
    with Session.open(path, readonly=True) as s:
        assert len(s.events) == before + 1
        order = {s.state.characters[x.char_id].name: x.initiative for x in s.state.encounter.order}
        (roll,) = [r for r in s.state.rolls if r.kind == "initiative"]
        assert roll.actor_name == "Kara" and order == {"Kara": roll.record.value, "Tam": 12}
        assert s.initiative_modifier(roll.actor) == 10  # torg: Bonus Number + Kara's Dexterity
    # a name not in the session, a bad number or a name twice: one line, exit 2, nothing saved
    for args, words in (
        (["Bob"], ("no character 'Bob'",)),
        (["Kara=fast"], ("Kara's initiative", "whole number")),
        (["Kara", "kara"], ("Kara is named twice",)),
    ):
        rc, out, err = run(capsys, saves, "char", "Storm", "initiative", *args)
        assert rc == 2
        one_error_line(err, *words)
    assert len(events(path)) == before + 1
