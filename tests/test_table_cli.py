"""``gmdesk new NAME --table ROLE=FILE`` and ``gmdesk table SAVE list|set|clear``: a
GM's own table for a whole session from the command line, kept in the save itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.systems import get_system

GRIM = {
    "name": "grim",
    "title": "Grim wounds",
    "columns": ["organic", "inorganic"],
    "rows": {str(k): ["Grim", "Grim metal"] for k in range(-10, 11)},
}


def _file(tmp_path: Path, data: object, name: str = "grim.json") -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return p


def _grim_attack(path: Path) -> list[str]:
    """Bo's wounds after Ann's attack (4d2, Outcome +4 on the Combat table)."""
    with Session.open(path) as s:
        a = s.apply({"type": "character.add", "character": {"name": "Ann"}}).data["id"]
        b = s.apply({"type": "character.add", "character": {"name": "Bo"}}).data["id"]
        params = get_system("4d2").Params()
        s.roll("4d2", params, actor=a, target=b, combat=True, rng=FixedDice([4, 4, 1, 1]))
        return [w.text for w in s.state.characters[b].wounds]


def test_new_with_a_table_keeps_the_table_itself(capsys, saves, tmp_path):
    table = _file(tmp_path, GRIM)
    rc, out, err = run(capsys, saves, "new", "Docks", "--system", "4d2", "--table", f"combat={table}")
    assert rc == 0, err
    assert "own tables: combat" in out
    table.unlink()  # the file goes: the session keeps its table
    path = SessionStore(saves).resolve("Docks")
    assert _grim_attack(path) == ["Grim"]
    rc, out, err = run(capsys, saves, "table", "Docks", "list", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert {r["role"]: r["table"] for r in rows} == {
        "outcomes": None,
        "combat": "grim",
        "maneuver": None,
        "wound-status": None,
    }
    assert [r["label"] for r in rows][:2] == ["Outcome table", "Combat table"]


def test_the_next_night_keeps_the_tables_and_refuses_new_ones(capsys, saves, tmp_path):
    table = _file(tmp_path, GRIM)
    run(capsys, saves, "new", "Night 1", "--system", "4d2", "--table", f"combat={table}")
    rc, _out, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", "--table", f"maneuver={table}")
    assert rc == 2
    one_error_line(err, "--table", "keeps the system and settings")
    assert not (saves / "Night 2.gmdesk").exists()
    rc, _out, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1")
    assert rc == 0, err
    table.unlink()
    assert _grim_attack(SessionStore(saves).resolve("Night 2")) == ["Grim"]


@pytest.mark.parametrize(
    ("spec", "content", "words"),
    [
        ("combat={f}", '{"name": "x", "columns": ["a"], "rows": {"1": 5}}', ["bad.json", "row 1 must list 1 text"]),
        ("combat={f}", "{not json", ["bad.json", "not valid JSON"]),
        ("combat={f}", None, ["missing.json", "cannot read table"]),
        ("dragons={f}", "{}", ["--table", "unknown role 'dragons'", "roles: outcomes, combat, maneuver"]),
        ("combat", None, ["--table", "must be ROLE=FILE"]),
        ("outcomes={f}", json.dumps(GRIM), ["--table", "bad.json", "the table for outcomes needs outcome"]),
    ],
)
def test_new_with_a_bad_table_saves_nothing(capsys, saves, tmp_path, spec, content, words):
    f = _file(tmp_path, content, "bad.json") if content is not None else tmp_path / "missing.json"
    rc, _out, err = run(capsys, saves, "new", "Docks", "--system", "4d2", "--table", spec.format(f=f))
    assert rc == 2
    one_error_line(err, *words)
    assert not saves.exists() or not list(saves.glob("Docks*"))


def test_table_set_and_clear_change_an_existing_session_undoably(capsys, saves, tmp_path):
    path = SessionStore(saves).create("Docks", "4d2")
    table = _file(tmp_path, GRIM)
    rc, out, err = run(capsys, saves, "table", "Docks", "set", f"Combat table={table}")  # its words do too
    assert rc == 0, err
    assert "Combat table: built-in → own table 'Grim wounds'" in out
    rc, out, _err = run(capsys, saves, "table", "Docks", "list")
    assert "Combat table" in out and "own table grim (Grim wounds)" in out
    table.unlink()
    with Session.open(path) as s:
        assert s.tables().get("combat").name == "grim"
        s.undo()  # undo puts the built-in table back
        assert s.tables().get("combat").name == "4d2-combat"
        s.redo()
    rc, out, err = run(capsys, saves, "table", "Docks", "clear", "combat")
    assert rc == 0, err
    assert "own table 'Grim wounds' → built-in" in out
    rc, out, err = run(capsys, saves, "table", "Docks", "clear", "combat")
    assert rc == 0 and "in force already (nothing saved)" in out
    with Session.open(path, readonly=True) as s:
        assert s.tables().get("combat").name == "4d2-combat"
        assert [e.type for e in s.events] == ["session.settings", "undo", "redo", "session.settings"]


def test_table_set_with_a_bad_file_touches_nothing(capsys, saves, tmp_path):
    path = SessionStore(saves).create("Docks", "4d2")
    before = path.read_bytes(), Path(f"{path}.journal").read_bytes()
    bad = _file(tmp_path, '{"name": "grim", "columns": [], "rows": {}}', "bad.json")
    rc, _out, err = run(capsys, saves, "table", "Docks", "set", f"combat={bad}")
    assert rc == 2
    one_error_line(err, "bad.json", "'columns' must be a non-empty list")
    rc, _out, err = run(capsys, saves, "table", "Docks", "set", f"dice={bad}")
    assert rc == 2
    one_error_line(err, "unknown role 'dice'")
    assert (path.read_bytes(), Path(f"{path}.journal").read_bytes()) == before


def test_table_is_in_the_help(capsys, saves):
    from gmdesk.cli.main import top_parser

    assert "table        use a GM's own table file for a session's role" in top_parser().format_help()
