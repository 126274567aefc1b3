"""Characters keep the numbers their system rolls with: the declared fields, the
undoable ``character.fields`` event, and a roll filled from the roller's and the
target's fields (with where each value came from). Fixed dice, real store."""

from __future__ import annotations

import pytest
from helpers import same_as_replay

from gmdesk.core.dice import FixedDice
from gmdesk.core.errors import ParamError
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.model import Character
from gmdesk.core.session.params import field_defaults, resolve_names, roll_defaults
from gmdesk.core.systems import BUILTIN_IDS, get_spec
from gmdesk.core.systems.spec import INITIATIVE


@pytest.fixture
def store(tmp_path) -> SessionStore:
    return SessionStore(tmp_path / "saves")


def open_new(store: SessionStore, system: str) -> Session:
    return Session.open(store.create(f"Test {system}", system))


def add(s: Session, name: str, **kw) -> str:
    return s.apply({"type": "character.add", "character": {"name": name, **kw}}).data["id"]


@pytest.mark.parametrize("system", BUILTIN_IDS)
def test_every_builtin_declares_fields_that_feed_its_own_parameters(system):
    spec = get_spec(system)
    names = {p.name for p in spec.params}
    for f in spec.character_fields:
        assert f.feeds is None or f.feeds == INITIATIVE or f.feeds in names
    fed = {f.feeds for f in spec.character_fields}
    if system != "4d2":  # a 4d2 character's numbers are its shift sources
        assert INITIATIVE in fed
        assert any(f.from_ == "target" for f in spec.character_fields)


def test_fields_are_set_in_one_undoable_event_and_replay(store):
    with open_new(store, "torg-2d10") as s:
        quin = add(s, "Quin")
        e = s.apply(
            {
                "type": "character.fields",
                "id": quin,
                "set": {"stats": "Dexterity=10, Fire Combat=13, Dodge=11", "attack": "fire combat"},
            }
        )
        c = s.state.characters[quin]
        assert c.fields == {"stats": {"Dexterity": 10, "Fire Combat": 13, "Dodge": 11}, "attack": "Fire Combat"}
        assert "Attack skill → Fire Combat" in e.summary
        same_as_replay(s)
        s.undo()
        assert s.state.characters[quin].fields == {}
        s.redo()
        assert s.state.characters[quin].fields["attack"] == "Fire Combat"
        s.apply({"type": "character.fields", "id": quin, "set": {"attack": None}})
        assert "attack" not in s.state.characters[quin].fields
        same_as_replay(s)


def test_a_bad_field_value_is_refused_naming_its_label_and_nothing_changes(store):
    with open_new(store, "torg-2d10") as s:
        quin = add(s, "Quin", fields={"stats": {"Dodge": 11}})
        with pytest.raises(EventError, match="Attributes and skills: Dodge: must be a whole number"):
            s.apply({"type": "character.fields", "id": quin, "set": {"stats": "Dodge=lots"}})
        with pytest.raises(
            EventError, match=r"Attack skill: 'Fire Combat' is not among the Attributes and skills \(Dodge\)"
        ):
            s.apply({"type": "character.fields", "id": quin, "set": {"attack": "Fire Combat"}})
        with pytest.raises(EventError, match="no character field 'luck'"):
            s.apply({"type": "character.fields", "id": quin, "set": {"luck": 3}})
        assert s.state.characters[quin].fields == {"stats": {"Dodge": 11}}


def test_fudge_traits_are_ladder_levels():
    spec = get_spec("fudge")
    from gmdesk.core.systems.spec import parse_field, show_field

    traits = spec.field("traits")
    value = parse_field(traits, "Sword=Great, Dodge=Good, Climb=-1")
    assert value == {"Sword": 2, "Dodge": 1, "Climb": -1}
    assert show_field(traits, value) == "Sword=Great, Dodge=Good, Climb=Mediocre"
    with pytest.raises(ParamError, match="Traits: Sword: must be a ladder level"):
        parse_field(traits, "Sword=Splendid")


def test_an_old_character_without_fields_loads():
    d = Character("c1", "Old").to_json()
    d.pop("fields")
    assert Character.from_json(d).fields == {}


def _torg_pair() -> tuple[Character, Character]:
    quin = Character("c1", "Quin", fields={"stats": {"Dexterity": 10, "Fire Combat": 13}, "attack": "Fire Combat"})
    trooper = Character("c2", "Trooper", side="NPC", fields={"stats": {"Dodge": 11, "Dexterity": 8}})
    return quin, trooper


def test_an_attack_takes_the_roller_s_skill_and_the_target_s_defense():
    quin, trooper = _torg_pair()
    got = field_defaults(get_spec("torg-2d10"), quin, trooper, combat=True)
    assert got == {"skill": (13, "Quin's Fire Combat"), "difficulty": (11, "Trooper's Dodge")}
    # an attack's fields fill an attack only
    assert field_defaults(get_spec("torg-2d10"), quin, trooper, combat=False) == {}
    defaults = roll_defaults({}, "torg-2d10", quin, trooper, combat=True)
    assert defaults["skill"] == 13 and defaults["difficulty"] == 11


def test_a_typed_stat_name_is_the_character_s_value():
    quin, trooper = _torg_pair()
    spec = get_spec("torg-2d10")
    data, origins = resolve_names(spec, {"skill": "fire combat", "difficulty": "9"}, quin, trooper)
    assert data["skill"] == 13 and data["difficulty"] == "9"
    assert origins == {"skill": "Quin's Fire Combat"}
    with pytest.raises(ParamError, match=r"Skill value: Quin has no 'Stealth' \(Quin's Attributes and skills: "):
        resolve_names(spec, {"skill": "Stealth"}, quin, trooper)
    # fudge: a ladder level is a level, a trait name the character's level
    fudge = get_spec("fudge")
    ald = Character("c1", "Aldric", fields={"traits": {"Sword": 2}})
    data, origins = resolve_names(fudge, {"trait": "Sword", "vs_trait": "Good"}, ald, None)
    assert data == {"trait": 2, "vs_trait": "Good"} and origins == {"trait": "Aldric's Sword"}


def test_a_roll_with_stored_characters_needs_no_typing_and_says_where_each_number_came_from(store):
    with open_new(store, "torg-2d10") as s:
        quin = add(s, "Quin", fields={"stats": {"Fire Combat": 13, "Dodge": 12}, "attack": "Fire Combat"})
        trooper = add(s, "Trooper", side="NPC", fields={"stats": {"Dodge": 11}})
        e = s.roll("torg-2d10", {}, actor=quin, target=trooper, combat=True, rng=FixedDice([5, 3]))
        rec = e.data["record"]
        assert rec["params"]["skill"] == 13 and rec["params"]["difficulty"] == 11
        assert rec["from"] == {"skill": "Quin's Fire Combat", "difficulty": "Trooper's Dodge"}
        # what the GM gives wins; a name given is the roller's value
        e = s.roll(
            "torg-2d10",
            {"skill": "Dodge", "difficulty": 7},
            actor=quin,
            target=trooper,
            combat=True,
            rng=FixedDice([5, 3]),
        )
        rec = e.data["record"]
        assert rec["params"]["skill"] == 12 and rec["params"]["difficulty"] == 7
        assert rec["from"] == {"skill": "Quin's Dodge"}


@pytest.mark.parametrize(
    ("system", "fields", "sheet", "expected"),
    [
        ("torg-2d10", {"stats": {"Dexterity": 9}}, None, 9),
        ("4d6", {"initiative_bonus": 2}, None, 2),
        ("fudge", {"traits": {"Perception": 1}, "initiative_trait": "Perception"}, None, 1),
        ("1d6x4", {}, "Tess\nDescriptor  Default  Current\nReflex  +3\n", 3),
        (
            "1d6x4",
            {"initiative_test": "Speed, Reflex"},
            "Tess\nDescriptor  Default  Current\nReflex  +3\nSpeed  +1\n",
            4,
        ),
    ],
)
def test_initiative_adds_what_the_character_declares(store, system, fields, sheet, expected):
    with open_new(store, system) as s:
        kw = {"fields": fields} if fields else {}
        if sheet:
            kw["sheet"] = sheet
        tess = add(s, "Tess", **kw)
        assert s.initiative_modifier(tess) == expected


def test_4d2_initiative_is_still_the_own_shift_total(store):
    with open_new(store, "4d2") as s:
        vex = add(s, "Vex")
        s.apply({"type": "source.add", "id": vex, "kind": "shift", "name": "Pistol", "value": 2})
        s.apply({"type": "source.add", "id": vex, "kind": "shift", "name": "DEX", "value": 2})
        assert s.initiative_modifier(vex) == 3


def test_a_1d6x4_attack_reads_the_tests_the_fields_name_on_both_sheets(store):
    mark = "Mark\nDescriptor  Default  Current\nPrecision  +1\nSlingshot  +4\n"
    gob = "Goblin\nDescriptor  Default  Current\nDefense  +2\n"
    with open_new(store, "1d6x4") as s:
        m = add(s, "Mark", sheet=mark, fields={"attack_test": "Precision, Slingshot"})
        g = add(s, "Goblin", side="NPC", sheet=gob)
        e = s.roll("1d6x4", {}, actor=m, target=g, combat=True, rng=FixedDice([3, 2, 4]))
        rec = e.data["record"]
        assert (rec["params"]["bonus"], rec["params"]["vs_bonus"]) == (5, 2)
        assert rec["from"] == {"test": "Mark's Attack descriptors", "vs_test": "Goblin's Defense descriptors"}
        # a Test naming an Item the roller lacks (another sheet of the session lists a
        # Crossbow) fails automatically, as typed names do
        add(s, "Archer", sheet="Archer\nDescriptor  Default  Current\nCrossbow  +2\n")
        s.apply({"type": "character.fields", "id": m, "set": {"attack_test": "Precision, Crossbow"}})
        e = s.roll("1d6x4", {}, actor=m, target=g, combat=True, rng=FixedDice([3, 2, 4]))
        assert "Crossbow" in (e.data["record"]["params"]["auto_fail"] or "")
        # a name nobody lists as an item counts +0, and the record says so
        s.apply({"type": "character.fields", "id": m, "set": {"attack_test": "Precision, Sneak"}})
        e = s.roll("1d6x4", {}, actor=m, target=g, combat=True, rng=FixedDice([3, 2, 4]))
        params = e.data["record"]["params"]
        assert (params["auto_fail"], params["missing"], params["bonus"]) == (None, "Sneak", 1)


def test_4d2_sources_still_make_the_net_shift_and_say_whose(store):
    with open_new(store, "4d2") as s:
        vex = add(s, "Vex")
        thug = add(s, "Thug", side="NPC")
        s.apply({"type": "source.add", "id": vex, "kind": "shift", "name": "Pistol", "value": 2})
        s.apply({"type": "source.add", "id": thug, "kind": "shift", "name": "PSTR", "value": 1})
        e = s.roll("4d2", {}, actor=vex, target=thug, combat=True, rng=FixedDice([3, 3, 3, 3]))
        rec = e.data["record"]
        assert rec["params"]["shift"] == 1
        assert rec["from"] == {"shift": "Vex's Pistol +2; Thug's PSTR +1"}
        # a typed shift wins and claims no source
        e = s.roll("4d2", {"shift": 3}, actor=vex, target=thug, combat=True, rng=FixedDice([3, 3, 3, 3]))
        assert e.data["record"]["params"]["shift"] == 3 and "from" not in e.data["record"]
