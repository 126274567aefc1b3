"""A 4d2 character's skills and attributes (its valued shift sources, the seed's
"Pistol 2") are a declared field: given from ``gmdesk char`` like every system's,
and they shift its rolls — the roller's against the target's — and its initiative."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import gmdesk_cli as run

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.systems import get_spec


def test_4d2_declares_its_skills_and_attributes_as_shift_sources() -> None:
    (f,) = get_spec("4d2").character_fields
    assert (f.name, f.type, f.sources) == ("skills", "stats", "shift")


def test_skills_set_from_gmdesk_char_shift_the_roll_against_the_target_s(capsys: Any, saves: Path) -> None:
    path = SessionStore(saves).create("Shootout", "4d2")
    # the seed: "She has pistol skill and DEX attribute. She can Shift her 4D2 Outcome by +2.
    # If her opponent has Pistol 2, then the competing Shifts would cancel out."
    rc, out, err = run(capsys, saves, "char", "Shootout", "add", "Vex", "--set", "skills=Pistol=1, DEX=1")
    assert rc == 0, err
    rc, out, err = run(capsys, saves, "char", "Shootout", "add", "Thug", "--side", "NPC", "--set", "skills.Pistol=2")
    assert rc == 0, err
    rc, out, err = run(capsys, saves, "char", "Shootout", "show", "Vex")
    assert "Pistol=1, DEX=1" in out
    with Session.open(path) as s:
        vex, thug = s.character("Vex"), s.character("Thug")
        assert (vex.fields, thug.fields) == ({"skills": {"Pistol": 1, "DEX": 1}}, {"skills": {"Pistol": 2}})
        alone = s.roll("4d2", {}, actor=vex.id, rng=FixedDice([6, 4, 1, 1]))
        record = s.state.roll_entry(alone.seq).record
        assert (record.params["shift"], record.value) == (2, 10)  # Number +8, shifted +2
        assert record.extra["from"]["shift"] == "Vex's Pistol +1, DEX +1"
        opposed = s.roll("4d2", {}, actor=vex.id, target=thug.id, rng=FixedDice([6, 4, 1, 1]))
        record = s.state.roll_entry(opposed.seq).record
        assert (record.params["shift"], record.value) == (0, 8)  # the competing shifts cancel
        assert s.initiative_modifier(vex.id) == 2  # the Number plus its shifts
    # a skill changed from gmdesk char counts in the next roll made from the command line
    rc, out, err = run(capsys, saves, "char", "Shootout", "set", "Vex", "skills.Pistol=3")
    assert rc == 0, err
    rc, out, err = run(capsys, saves, "roll", "4d2", "--save", "Shootout", "--as", "Vex", "--seed", "1", "--json")
    assert rc == 0, err
    assert json.loads(out.splitlines()[-1])["params"]["shift"] == 3  # Pistol 3 + DEX 1, held to 3


def test_a_bad_skill_value_is_refused_naming_the_field(capsys: Any, saves: Path) -> None:
    SessionStore(saves).create("Shootout", "4d2")
    rc, out, err = run(capsys, saves, "char", "Shootout", "add", "Vex", "--set", "skills=Pistol=two")
    assert rc == 2 and "Skills" in err and err.count("\n") == 1
