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

import dataclasses
import json
from pathlib import Path

import pytest
from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.campaign.bestiary import BESTIARY_FILE, Bestiary
from gmdesk.core.campaign.statblock import StatBlock
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


# ----------------------------------------------------------------------------- the next night, in every system


@pytest.mark.parametrize("rest", [False, True], ids=["as-they-stood", "rest"])
@pytest.mark.parametrize("system", SYSTEMS)
def test_the_next_night_while_the_last_is_open_in_a_desk(capsys, saves, system, rest):
    from test_next_night import carried_json, night_one

    from gmdesk.core.session.storage import session_files
    from gmdesk.core.systems import get_spec

    src = night_one(saves, system)
    with Session.open(src) as desk:  # the GM's desk holds the last night (and its lock)
        gospog = desk.character("Gospog").id
        desk.apply({"type": "condition.add", "id": gospog, "name": "Bleeding", "rounds": 1})
        desk.apply({"type": "character.edit", "id": gospog, "fields": {"notes": "fled north"}})
        was = {c.name: c.to_json() for c in desk.state.characters.values()}
        stood = {c.name: carried_json(c) for c in desk.state.characters.values()}
        before = {p.name: p.read_bytes() for p in session_files(src)}
        assert any(name.endswith(".lock") for name in before)
        args = ["new", "Night 2", "--from", "Night 1", "--with", "gospog", *(["--rest"] if rest else [])]
        rc, out, err = run(capsys, saves, *args)
        assert rc == 0, err
        # the last night is only read: not a byte of it changed, its lock never changed hands
        assert {p.name: p.read_bytes() for p in session_files(src)} == before
        desk.apply({"type": "note", "text": "the desk goes on writing"})
    with Session.open(saves / "Night 2.gmdesk", readonly=True) as s:
        new = {c.name: c for c in s.state.characters.values()}
        first = s.events[0]
        assert [e.type for e in s.events] == ["session.carried"]
        assert s.header["carried_from"]["name"] == "Night 1" and s.header["carried_from"]["rest"] is rest
    assert list(new) == ["Kara", "Tam", "Gospog"]
    rest_hook = get_spec(system).rest
    for name, c in new.items():
        if not rest:
            assert carried_json(c) == stood[name], name  # everything, as it stood
        else:  # the system's recovery, nothing else
            expected = rest_hook(was[name])
            got = c.to_json()
            for key in ("vitality_default", "vitality_current", "possibilities", "fields", "notes", "side", "kind"):
                assert got.get(key) == expected.get(key), (name, key)
            assert [x["name"] for x in got["conditions"]] == [x["name"] for x in expected["conditions"]], name
            assert [x["name"] for x in got["advantage"] + got["shifts"]] == [
                x["name"] for x in expected["advantage"] + expected["shifts"]
            ], name
            assert [w["text"] for w in got["wounds"]] == [w["text"] for w in expected["wounds"]], name
            assert (got.get("sheet") or None) == (expected.get("sheet") or None), name
    kara, gos = new["Kara"], new["Gospog"]
    assert gos.side == "NPC" and gos.notes == "fled north"
    conditions = {x.name: x.rounds for x in kara.conditions}
    if rest:
        assert not kara.wounds and "Dazed" not in conditions and "Cursed" in conditions
        assert [x.name for x in gos.conditions] == []  # Bleeding (1 round) is over
    else:
        assert kara.wounds and conditions["Dazed"] == 2 and conditions["Cursed"] is None
        assert [(x.name, x.rounds) for x in gos.conditions] == [("Bleeding", 1)]
    if system == "torg-2d10":
        assert kara.possibilities == 3  # never refreshed by a rest
    if system == "1d6x4":
        assert kara.sheet is not None
        assert kara.sheet.find("Precision").value == (2 if rest else -1)
    # the new log opens with what was carried, in the GM's words
    rc, out, err = run(capsys, saves, "log", "Night 2")
    assert rc == 0, err
    lines = out.splitlines()
    how = " after a rest" if rest else ", as they stood"
    assert f"Carried over from Night 1{how}: Kara, Tam, Gospog" in lines[0]
    assert first.summary in lines[0]
    kara_line = next(line for line in lines if "Kara (PC)" in line)
    gos_line = next(line for line in lines if "Gospog (NPC)" in line)
    if rest:
        assert "Dazed" not in kara_line and "Cursed" in kara_line
        assert any("Kara is no longer Dazed" in line for line in lines)
        assert any("Gospog is no longer Bleeding" in line for line in lines)
        assert any("healed" in line for line in lines)
    else:
        assert "Dazed (2 rounds)" in kara_line and "wounds: " in kara_line
        assert "Bleeding (1 round" in gos_line


# ----------------------------------------------------------------------------- TOML, field for field

#: every character field of each system, set (4d2 declares none: its numbers are its sources)
ALL_FIELDS = {
    "4d2": {},
    "fudge": {
        "traits": "Sword=Good, Dodge=Fair, Alertness=Mediocre",
        "attack_trait": "Sword",
        "defense_trait": "Dodge",
        "offense": 2,
        "defense_factor": 1,
        "initiative_trait": "Alertness",
    },
    "1d6x4": {"attack_test": "Precision+Slingshot", "defense_test": "Defense", "initiative_test": "Reflex"},
    "torg-2d10": {
        "stats": "Dexterity=9, Fire Combat=13, Dodge=11",
        "attack": "Fire Combat",
        "defense": "Dodge",
        "initiative": "Dexterity",
    },
    "4d6": {"skills": "Melee=3, Athletics=1", "attack_skill": "Melee", "defense_dc": 15, "initiative_bonus": -1},
}

SHEET = """Kara, a witch of the fen
Descriptor        Default    Current      Notes
Vitality           +8
Precision          +2         -1
Slingshot          +3                      *Attack +3 "river stones"
Defense            +1
Reflex             +1
Healing Ability    +1 (2)     (1)
Magic Ability      +2 (5)
  *Turn Invisible     (1)
"""


def full_block(system: str) -> StatBlock:
    """A stat block with every field away from its default, and text a TOML writer must
    quote carefully."""
    return StatBlock(
        name='Kara "the Fen" Wäldchen',
        system=system,
        side="PC",
        kind="inorganic",
        vitality=8,
        possibilities=3,
        reality_rated=True,
        fields=ALL_FIELDS[system],
        sources=(
            {"kind": "shift" if system == "4d2" else "advantage", "name": "High ground", "value": 1, "rounds": 3},
            {"kind": "shift", "name": "Blessed", "value": 2, "rounds": None, "active": False},
        ),
        conditions=({"name": "Dazed", "rounds": 2}, {"name": "Cursed", "rounds": None}),
        sheet=SHEET if system == "1d6x4" else None,
        notes="owes the Duke\n\ttabs, \\back\\slashes, ''' and \"\"\" quotes ☃\n",
        tags=("fen", "Witches & Wise Women", "ünïcode"),
    ).check()


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_toml_export_and_import_give_back_every_field(capsys, saves, tmp_path, system):
    saves.mkdir(parents=True)
    (saves / BESTIARY_FILE).write_text("{}", encoding="utf-8")
    full = full_block(system)
    plain = StatBlock("Gospog", system).check()
    for f in dataclasses.fields(StatBlock):  # the test sets every field (what 4d2 declares none of aside)
        if f.name not in ("name", "system") and not (system == "4d2" and f.name == "fields"):
            if f.name == "sheet" and system != "1d6x4":
                continue
            assert getattr(full, f.name) != getattr(plain, f.name), f.name
    Bestiary(saves).add_many([full, plain])
    before = Bestiary(saves).blocks()
    out_file = tmp_path / "share.toml"
    rc, out, err = run(capsys, saves, "bestiary", "export", str(out_file))
    assert rc == 0, err
    other = tmp_path / "friend"
    rc, out, err = run(capsys, other, "bestiary", "import", str(out_file))
    assert rc == 0, err
    after = Bestiary(other).blocks()
    assert [b.name for b in after] == [b.name for b in before]
    for a, b in zip(before, after, strict=True):
        for f in dataclasses.fields(StatBlock):
            assert getattr(b, f.name) == getattr(a, f.name), (a.name, f.name)
        assert b.to_json() == a.to_json()
    # what the GM sees is the same too
    for name in (full.name, "Gospog"):
        shown = [run(capsys, d, "bestiary", "show", name, "--json") for d in (saves, other)]
        assert shown[0][0] == shown[1][0] == 0 and json.loads(shown[0][1]) == json.loads(shown[1][1])
        shown = [run(capsys, d, "bestiary", "show", name) for d in (saves, other)]
        # the same lines (a table field, such as traits, is written last in TOML, and
        # the imported block lists it last)
        assert shown[0][0] == shown[1][0] == 0 and sorted(shown[0][1].splitlines()) == sorted(shown[1][1].splitlines())
    # and copies made from the imported block are the character the original makes
    for d in (saves, other):
        SessionStore(d).create("Fen", system)
        assert run(capsys, d, "char", "Fen", "add-from", full.name, "--seed", "1")[0] == 0
    made = []
    for d in (saves, other):
        with SessionStore(d).open("Fen") as s:
            (c,) = s.state.characters.values()
            made.append({k: v for k, v in c.to_json().items() if k != "id"})
    assert made[0] == made[1]


# ----------------------------------------------------------------------------- a damaged bestiary


DAMAGED = [
    b'{"stat_blocks": {"1": {"name": "Gospog", "system": "torg-2d10"',  # cut off mid-write
    b'{"stat_blocks": {"1": {"name": "Gospog", "system": "torg-2d10", "vitality": "nine"}}}',
    b"[]",
]


@pytest.mark.parametrize("content", DAMAGED, ids=["cut-off", "bad-stat-block", "not-an-object"])
def test_a_damaged_bestiary_is_refused_by_every_verb_and_never_touched(capsys, saves, tmp_path, content):
    path = SessionStore(saves).create("Night 1", "torg-2d10")
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Trooper", "side": "NPC", "vitality": 9}})
    bestiary = saves / BESTIARY_FILE
    bestiary.write_bytes(content)
    share = tmp_path / "share.toml"
    share.write_text('[[stat_block]]\nname = "Ogre"\nsystem = "torg-2d10"\n', encoding="utf-8")

    def untouched() -> dict[str, bytes]:
        return {k: v for k, v in every_file(tmp_path).items() if not k.endswith(".lock")}

    before = untouched()
    verbs = [
        ["bestiary", "list", "--json"],
        ["bestiary", "list", "--system", "torg-2d10", "--search", "gos"],  # a search that finds the bad block
        ["bestiary", "show", "Gospog", "--json"],
        ["bestiary", "add", "Imp", "--system", "torg-2d10"],
        ["bestiary", "add", "Gospog", "--system", "torg-2d10", "--replace"],
        ["bestiary", "save", "Night 1", "Trooper"],
        ["bestiary", "remove", "Gospog"],
        ["bestiary", "export", str(tmp_path / "out.toml")],
        ["bestiary", "export", "-"],
        ["bestiary", "import", str(share)],
        ["bestiary", "import", str(share), "--replace"],
        ["char", "Night 1", "add-from", "Gospog", "--count", "2"],
    ]
    for args in verbs:
        rc, out, err = run(capsys, saves, *args)
        assert rc == 2 and out == "", args
        one_error_line(err, "damaged bestiary", str(bestiary))
        assert bestiary.read_bytes() == content, args
        assert untouched() == before, args  # the session too, and no file written
    assert [e.type for e in events_of(path)] == ["character.add"]


# ----------------------------------------------------------------------------- hidden copies from the bestiary


async def test_hidden_copies_stay_out_of_everything_the_players_see_until_revealed(capsys, saves):
    from helpers import run as run_app
    from helpers import screen_text, until

    from gmdesk.tui.screens.player import PlayerApp

    path = SessionStore(saves).create("Ambush", "torg-2d10")
    assert run(capsys, saves, "char", "Ambush", "add", "Kara", "--set", "stats=Dexterity=9, Dodge=10")[0] == 0
    rc, out, err = run(capsys, saves, "char", "Ambush", "add-from", "Gospog", "--count", "2", "--hidden", "--seed", "2")
    assert rc == 0, err
    with Session.open(path) as s:
        kara = s.character("Kara").id
        order = [{"id": x.char_id, "value": x.initiative} for x in s.state.encounter.order]
        s.apply({"type": "initiative.set", "entries": [*order, {"id": kara, "value": 30}]})
        s.apply({"type": "round.new"})
    args = ["roll", "torg-2d10", "--save", "Ambush", "--as", "Gospog 1", "--at", "Kara", "--combat"]
    rc, out, err = run(capsys, saves, *args, "--skill", "12", "--difficulty", "8", "--seed", "3")
    assert rc == 0, err
    ambush = "Gospog 1 rolls at Kara"

    def public() -> str:
        """What the players get: their log (text and JSON), their chronicle in every
        format (what gmdesk prints, read here even while the player view runs)."""
        import contextlib
        import io

        from gmdesk.cli.main import main

        texts = []
        for args in (
            ["log", "Ambush", "--public"],
            ["log", "Ambush", "--public", "--json"],
            *(["export", "Ambush", "--format", fmt] for fmt in ("md", "html", "json")),
        ):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(["--saves", str(saves), *args])
            assert rc == 0 and out.getvalue(), (args, err.getvalue())
            texts.append(out.getvalue())
        return "\n".join(texts)

    rc, gm, _ = run(capsys, saves, "export", "Ambush", "--gm")
    assert "Gospog 1" in gm and "Gospog 2" in gm
    text = public()
    assert "Gospog" not in text and "Kara" in text

    app = PlayerApp(path, poll_interval=0.05)
    async with run_app(app, size=(80, 24)) as pilot:
        await until(pilot, lambda: app.pictures_shown > 0)
        await pilot.pause()
        assert "Kara" in screen_text(app) and "Gospog" not in screen_text(app)
        rc, out, err = run(capsys, saves, "char", "Ambush", "reveal", "Gospog 1")
        assert rc == 0, err
        await until(pilot, lambda: "Gospog 1" in screen_text(app))
        shown = screen_text(app)
        assert "Gospog 2" not in shown and "Gospog 1 →" not in shown  # its earlier roll stays hidden
        text = public()
        assert "Gospog 1" in text and "Gospog 2" not in text and ambush not in text
        rc, out, err = run(capsys, saves, "char", "Ambush", "reveal", "Gospog 1", "--with-rolls")
        assert rc == 0, err
        await until(pilot, lambda: "Gospog 1 → Kara" in screen_text(app))
        assert "Gospog 2" not in screen_text(app)
    text = public()
    assert ambush in text and "Gospog 2" not in text
