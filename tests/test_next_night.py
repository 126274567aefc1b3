"""The next night: ``gmdesk new NAME --from LAST [--rest] [--with NAME …]`` starts a
session with the party as it stood at the end of the last one (or after the
system's rest), in each of the five systems; the last session is only read."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import gmdesk_cli as run

from gmdesk.core.session import Session, SessionStore
from gmdesk.core.systems import get_spec

SYSTEMS = ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6")

SHEET = """Kara, a witch of the fen
Descriptor        Default    Current      Notes
Vitality           +8
Precision          +2
Slingshot          +3
Healing Ability    +1 (2)
Magic Ability      +2 (5)
  *Turn Invisible     (1)
"""

#: stat blocks per system (what ``gmdesk char … --set`` would store)
FIELDS = {
    "4d2": {},
    "fudge": {"traits": "Sword=Good, Dodge=Fair", "attack_trait": "Sword", "offense": 1},
    "1d6x4": {"attack_test": "Precision+Slingshot"},
    "torg-2d10": {"stats": "Fire Combat=13, Dodge=11", "attack": "Fire Combat", "defense": "Dodge"},
    "4d6": {"skills": "Melee=3, Athletics=1", "attack_skill": "Melee", "defense_dc": 15},
}

#: what a combat roll needs beyond the defaults
ATTACK = {"torg-2d10": {"skill": 12, "difficulty": 8}}


def night_one(saves: Path, system: str, name: str = "Night 1") -> Path:
    """A played session: Kara (PC) hurt, with her stat block, sources, conditions
    with rounds left and notes; Tam (PC) untouched; Gospog and Bystander (NPCs)."""
    store = SessionStore(saves)
    path = store.create(name, system, {"skill_threshold": 8})
    torg = system == "torg-2d10"
    with Session.open(path) as s:
        kara: dict = {"name": "Kara", "vitality": 8, "notes": "owes the Duke", "fields": FIELDS[system] or None}
        if system == "1d6x4":
            kara["sheet"] = SHEET
        if torg:
            kara.update(reality_rated=True, possibilities=5)
        k = s.apply({"type": "character.add", "character": kara}).data["id"]
        tam = s.apply({"type": "character.add", "character": {"name": "Tam", "vitality": 6}}).data["id"]
        g = s.apply({"type": "character.add", "character": {"name": "Gospog", "side": "NPC"}}).data["id"]
        s.apply({"type": "character.add", "character": {"name": "Bystander", "side": "NPC"}})
        s.apply({"type": "condition.add", "id": k, "name": "Dazed", "rounds": 2})
        s.apply({"type": "condition.add", "id": k, "name": "Cursed"})
        kind = "shift" if system == "4d2" else "advantage"
        s.apply({"type": "source.add", "id": k, "kind": kind, "name": "High ground", "value": 1, "rounds": 3})
        s.apply({"type": "source.add", "id": k, "kind": kind, "name": "Blessed", "value": 1})
        if torg:
            s.apply({"type": "condition.add", "id": k, "name": "Stymied"})
            s.apply({"type": "condition.add", "id": k, "name": "Disconnected"})
            s.apply({"type": "character.edit", "id": k, "fields": {"possibilities": 3}})
        if system == "1d6x4":
            s.apply({"type": "use", "id": k, "descriptor": "Healing Ability", "amount": 1})
            s.apply({"type": "sheet.set", "id": k, "descriptor": "Precision", "current": -1})
        for i in range(60):  # Gospog hits Kara until she is wounded
            params = {"combat": True, **ATTACK.get(system, {})}
            s.roll(system, params, actor=g, target=k, combat=True, rng=random.Random(i))
            if s.state.characters[k].wounds:
                break
        assert s.state.characters[k].wounds, "the fixture could not wound Kara"
        s.apply({"type": "initiative.set", "entries": [{"id": k, "value": 12}, {"id": tam, "value": 9}]})
        s.apply({"type": "round.new"})
    return path


def state_of(path: Path):
    with Session.open(path, readonly=True) as s:
        return s.state, list(s.events), s.header


def carried_json(c) -> dict:
    """A character as the next night should have it: as it stood, without its id, its
    derived status, and the numbers of the rolls that hurt it (another log's)."""
    d = c.to_json()
    for key in ("id", "status"):
        d.pop(key)
    for x in [*d["conditions"], *d["wounds"]]:
        x["roll_seq"] = None
    return d


def files(saves: Path, stem: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(saves.iterdir()) if p.name.startswith(stem + ".gmdesk")}


# ----------------------------------------------------------------------------- as they stood


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_party_carries_over_as_it_stood(capsys, saves, system):
    src = night_one(saves, system)
    before = files(saves, "Night 1")
    rc, out, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1")
    assert rc == 0, err
    assert "Night 2" in out and "Night 1" in out and "Kara, Tam" in out and "as they stood" in out
    old, _, _ = state_of(src)
    new, events, header = state_of(saves / "Night 2.gmdesk")
    # the player characters, exactly as they stood; no NPC, no encounter, no rolls
    assert [c.name for c in new.characters.values()] == ["Kara", "Tam"]
    for c in new.characters.values():
        was = next(x for x in old.characters.values() if x.name == c.name)
        assert carried_json(c) == carried_json(was)
    kara = next(c for c in new.characters.values() if c.name == "Kara")
    assert kara.wounds and kara.notes == "owes the Duke"
    assert {x.name: x.rounds for x in kara.conditions}.get("Dazed") == 2
    assert kara.fields == next(c for c in old.characters.values() if c.name == "Kara").fields
    if FIELDS[system]:
        assert kara.fields
    assert new.encounter.round == 0 and not new.encounter.order and not new.rolls
    # the source's system and settings
    assert new.info.system == system and new.info.settings == old.info.settings
    assert new.info.settings["skill_threshold"] == 8
    # it remembers where it came from, and its log opens with what was carried
    assert header["carried_from"]["name"] == "Night 1" and header["carried_from"]["rest"] is False
    assert events[0].type == "session.carried" and len(events) == 1
    assert "Night 1" in events[0].summary and "Kara" in events[0].summary
    assert any(line.startswith("Kara (PC)") for line in events[0].changes)
    # the last night is only read
    assert files(saves, "Night 1") == before


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_rest_applies_the_systems_recovery(capsys, saves, system):
    src = night_one(saves, system)
    before = files(saves, "Night 1")
    rc, out, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", "--rest")
    assert rc == 0, err
    assert "after a rest" in out
    old, _, _ = state_of(src)
    new, events, header = state_of(saves / "Night 2.gmdesk")
    was = next(c for c in old.characters.values() if c.name == "Kara")
    kara = next(c for c in new.characters.values() if c.name == "Kara")
    assert header["carried_from"]["rest"] is True
    assert events[0].type == "session.carried" and "rest" in events[0].summary
    # every system: Vitality back to its default, the wounds healed (1d6x4: its
    # Vitality Adjustments, which are all its wounds), what counted rounds is over
    assert kara.vitality_current == kara.vitality_default == 8
    assert was.wounds and kara.wounds == []
    assert kara.status == "ok"
    names = [x.name for x in kara.conditions]
    assert "Dazed" not in names and "Cursed" in names
    sources = [s.name for s in (kara.shifts if system == "4d2" else kara.advantage)]
    assert sources == ["Blessed"]
    # the stat block, notes and side are the character's, untouched by a rest
    assert kara.fields == was.fields and kara.notes == was.notes
    # what the rest changed is in the log
    assert any("healed" in line for line in events[0].changes)
    assert any("no longer Dazed" in line for line in events[0].changes)
    if system == "torg-2d10":
        # Up and Stymied belong to a scene; Disconnected waits for the GM; Possibilities are never refreshed
        assert "Stymied" not in names and "Disconnected" in names
        assert kara.possibilities == was.possibilities == 3
    if system == "1d6x4":
        # a new day: every current value back to its default, uses too
        assert was.sheet.find("Healing Ability").uses == 1 and was.sheet.find("Precision").value == -1
        assert kara.sheet.find("Healing Ability").uses == 2
        assert kara.sheet.find("Precision").value == 2
        assert kara.sheet.find("Vitality").value == 8
        assert any("Healing Ability (1) → (2)" in line for line in events[0].changes)
    assert files(saves, "Night 1") == before


def test_the_dead_stay_dead_after_a_rest(saves, capsys):
    store = SessionStore(saves)
    path = store.create("Night 1", "1d6x4")
    with Session.open(path) as s:
        k = s.apply({"type": "character.add", "character": {"name": "Kara", "vitality": 3}}).data["id"]
        s.apply({"type": "character.edit", "id": k, "fields": {"vitality_current": -6, "dead": True}})
    rc, _, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", "--rest")
    assert rc == 0, err
    new, _, _ = state_of(saves / "Night 2.gmdesk")
    kara = next(iter(new.characters.values()))
    assert kara.status == "dead" and kara.vitality_current == -6


# ----------------------------------------------------------------------------- --with


def test_named_npcs_come_too(capsys, saves):
    src = night_one(saves, "4d6")
    with Session.open(src) as s:
        s.apply({"type": "character.hide", "id": s.character("Gospog").id})
    rc, out, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", "--with", "gospog")
    assert rc == 0, err
    new, events, _ = state_of(saves / "Night 2.gmdesk")
    assert [(c.name, c.side) for c in new.characters.values()] == [("Kara", "PC"), ("Tam", "PC"), ("Gospog", "NPC")]
    assert "Gospog" in events[0].summary
    # still hidden from the players, as it stood
    assert [c.name for c in new.characters.values() if c.hidden] == ["Gospog"]


def test_an_unknown_npc_is_one_line_and_nothing_is_created(capsys, saves):
    night_one(saves, "4d2")
    listed = sorted(p.name for p in saves.iterdir())
    rc, out, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", "--with", "Gospog", "Nobody")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Nobody" in err and "Gospog, Bystander" in err
    assert sorted(p.name for p in saves.iterdir()) == listed


@pytest.mark.parametrize(
    "args, words",
    [
        (["--from", "Night 9"], ["Night 9"]),
        (["--from", "Night 1", "--system", "4d6"], ["--system"]),
        (["--from", "Night 1", "--setting", "skill_threshold=7"], ["--setting"]),
        (["--rest"], ["--rest", "--from"]),
        (["--with", "Gospog"], ["--with", "--from"]),
    ],
)
def test_bad_next_nights_are_one_line(capsys, saves, args, words):
    night_one(saves, "4d2")
    listed = sorted(p.name for p in saves.iterdir())
    rc, out, err = run(capsys, saves, "new", "Night 2", *args)
    assert rc == 2 and out == "" and err.count("\n") == 1, err
    assert all(w in err for w in words), err
    assert sorted(p.name for p in saves.iterdir()) == listed


def test_a_taken_name_is_refused(capsys, saves):
    night_one(saves, "4d2")
    rc, _, err = run(capsys, saves, "new", "night 1", "--from", "Night 1")
    assert rc == 2 and "already exists" in err and err.count("\n") == 1


# ----------------------------------------------------------------------------- the source is only read


def test_the_source_may_be_open_in_a_desk(capsys, saves):
    src = night_one(saves, "fudge")
    with Session.open(src) as writer:  # the GM's desk holds it
        writer.apply({"type": "note", "text": "the party camps by the river"})
        rc, _, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1")
        assert rc == 0, err
        writer.apply({"type": "note", "text": "still writing"})  # the lock never changed hands
    new, _, _ = state_of(saves / "Night 2.gmdesk")
    assert [c.name for c in new.characters.values()] == ["Kara", "Tam"]


def test_a_damaged_source_is_refused_and_nothing_is_created(capsys, saves):
    src = night_one(saves, "4d2")
    data = bytearray(src.read_bytes())
    i = data.index(b'"Gospog"')
    data[i + 1 : i + 3] = b"Xx"  # an event changed behind the checksums' back
    src.write_bytes(bytes(data))
    listed = {p.name: p.read_bytes() for p in saves.iterdir()}
    rc, out, err = run(capsys, saves, "new", "Night 2", "--from", str(src))
    assert rc == 2 and out == "" and err.count("\n") == 1, err
    assert {p.name: p.read_bytes() for p in saves.iterdir()} == listed


# ----------------------------------------------------------------------------- where it came from


def test_list_and_log_say_where_a_night_came_from(capsys, saves):
    night_one(saves, "torg-2d10")
    run(capsys, saves, "new", "Night 2", "--from", "Night 1", "--rest")
    rc, out, _ = run(capsys, saves, "list", "--json")
    rows = {d["name"]: d for d in map(json.loads, out.splitlines())}
    assert rows["Night 2"]["carried_from"]["name"] == "Night 1" and rows["Night 2"]["carried_from"]["rest"] is True
    assert rows["Night 1"]["carried_from"] is None
    rc, out, _ = run(capsys, saves, "log", "Night 2")
    assert rc == 0 and "Carried over from Night 1 after a rest: Kara, Tam" in out.splitlines()[0]
    rc, out, _ = run(capsys, saves, "log", "Night 2", "--json")
    first = json.loads(out.splitlines()[0])
    assert first["type"] == "session.carried" and first["from"] == "Night 1" and first["rest"] is True


def test_carrying_over_is_one_undoable_event(saves):
    night_one(saves, "4d6")
    SessionStore(saves).next_night("Night 1", "Night 2")
    with SessionStore(saves).open("Night 2") as s:
        assert len(s.state.characters) == 2
        s.undo()
        assert not s.state.characters
        s.redo()
        assert [c.name for c in s.state.characters.values()] == ["Kara", "Tam"]


def test_every_system_declares_its_rest():
    for system in SYSTEMS:
        assert get_spec(system).rest is not None, system
