"""A GM's own table for a whole session: the ``session.settings`` event carries the
table itself (its content), so the log replays the same whatever becomes of the
file it was read from; undo puts the built-in table back; rolls before keep what
they rolled; a save whose event names a file (the earlier form) still opens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.events import own_tables, table_change, table_roles
from gmdesk.core.session.storage import EventLog
from gmdesk.core.systems import BUILTIN_IDS, get_system
from gmdesk.core.tables import load_table

FOUR_D_TWO = get_system("4d2")
GRIM = {
    "name": "grim",
    "title": "Grim wounds",
    "columns": ["organic", "inorganic"],
    "rows": {str(k): ["Grim", "Grim metal"] for k in range(-10, 11)},
}
#: a house rule: a Grim wound kills
GRIM_STATUS = {
    "name": "grim-status",
    "title": "Grim statuses",
    "columns": ["descriptor", "column", "status"],
    "rows": {"1": ["Grim", "*", "dead"]},
}


@pytest.fixture
def store(tmp_path) -> SessionStore:
    return SessionStore(tmp_path / "saves")


def _file(tmp_path: Path, data: dict, name: str = "grim.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


def _add(s: Session, name: str) -> str:
    return s.apply({"type": "character.add", "character": {"name": name}}).data["id"]


def _attack(s: Session, a: str, b: str):
    return s.roll("4d2", FOUR_D_TWO.Params(), actor=a, target=b, combat=True, rng=FixedDice([4, 4, 1, 1]))


def _wounds(s: Session, cid: str) -> list[str]:
    return [w.text for w in s.state.characters[cid].wounds]


def test_the_event_carries_the_table_and_the_fold_never_reads_the_file(store, tmp_path, monkeypatch):
    path = _file(tmp_path, GRIM)
    save = store.create("Docks", "4d2")
    with Session.open(save) as s:
        a, b = _add(s, "Ann"), _add(s, "Bo")
        _attack(s, a, b)  # before: the built-in Combat table
        e = s.apply(table_change(s.state.info.settings, "combat", load_table(path)))
        assert e.data["changes"]["tables"]["combat"]["rows"]["10"] == ["Grim", "Grim metal"]
        assert str(path) not in json.dumps(e.data)  # the content, never the path
        assert "Combat table: built-in → own table 'Grim wounds'" in e.changes
        _attack(s, a, b)
        assert _wounds(s, b)[-1] == "Grim"
        first = _wounds(s, b)[0]
        assert first != "Grim"  # the roll before keeps what it rolled
    path.unlink()  # the GM deletes the file: the session replays the same

    def no_file(*_a, **_k):
        raise AssertionError("the fold read a table file")

    monkeypatch.setattr("gmdesk.core.tables.load_table", no_file)
    for ckpt in Path(save).parent.glob("*.ckpt"):
        ckpt.unlink()  # a full replay of the log, no checkpoint
    with Session.open(save) as s:
        assert not [w for w in s.warnings if "skipped" in w]
        b = next(c.id for c in s.state.characters.values() if c.name == "Bo")
        assert _wounds(s, b) == [first, "Grim"]
        assert s.tables().get("combat").name == "grim"
        assert list(own_tables(s.state.info.settings)) == ["combat"]
        a = next(c.id for c in s.state.characters.values() if c.name == "Ann")
        _attack(s, a, b)
        assert _wounds(s, b)[-1] == "Grim"
    with Session.open(save, readonly=True) as s:  # from the checkpoint
        assert s.tables().get("combat").name == "grim"


def test_undo_puts_the_built_in_table_back_and_back_to_built_in_is_an_event(store, tmp_path):
    with Session.open(store.create("Docks", "4d2")) as s:
        s.apply(table_change(s.state.info.settings, "combat", load_table(_file(tmp_path, GRIM))))
        s.undo()
        assert s.tables().get("combat").name == "4d2-combat"
        assert own_tables(s.state.info.settings) == {}
        s.redo()
        assert s.tables().get("combat").name == "grim"
        e = s.apply(table_change(s.state.info.settings, "combat", None))
        assert "Combat table: own table 'Grim wounds' → built-in" in e.changes
        assert s.tables().get("combat").name == "4d2-combat"
        s.undo()
        assert s.tables().get("combat").name == "grim"


def test_descriptor_statuses_read_the_sessions_own_status_table(store, tmp_path):
    with Session.open(store.create("Docks", "4d2")) as s:
        a, b = _add(s, "Ann"), _add(s, "Bo")
        s.apply(table_change(s.state.info.settings, "combat", load_table(_file(tmp_path, GRIM))))
        _attack(s, a, b)
        assert s.state.characters[b].status == "ok"  # the built-in statuses name no "Grim"
        s.undo()
        status = load_table(_file(tmp_path, GRIM_STATUS, "status.json"))
        s.apply(table_change(s.state.info.settings, "wound-status", status))
        _attack(s, a, b)
        assert s.state.characters[b].status == "dead"


@pytest.mark.parametrize(
    ("tables", "words"),
    [
        ({"combat": "/somewhere/grim.json"}, "no built-in table"),
        ({"combat": {"name": "grim", "columns": [], "rows": {}}}, "'columns' must be a non-empty list"),
        ({"combat": {"name": "grim", "columns": ["a"], "rows": {"x": ["y"]}}}, "row key 'x'"),
        ({"combat": 7}, "must be a built-in table's name or a table"),
        ({"dragons": GRIM}, "unknown role 'dragons'"),
        ({"outcomes": GRIM}, "has the columns organic, inorganic; the table for outcomes needs outcome"),
        ({"combat": {"name": "b", "kind": "bands", "bands": [{"lo": None, "hi": None, "value": 1}]}}, "has rows of"),
        ({"fudge-wounds": GRIM}, "is ranges of numbers"),
    ],
)
def test_a_bad_table_is_refused_and_nothing_is_written(store, tables, words):
    with Session.open(store.create("Docks", "4d2")) as s:
        n = len(s.events)
        with pytest.raises(EventError) as info:
            s.apply({"type": "session.settings", "changes": {"tables": tables}})
        assert words in str(info.value) and "tables" in str(info.value)
        assert len(s.events) == n and s.state.info.settings.get("tables") in (None, {})


def _earlier_form(store: SessionStore, path: Path) -> Path:
    """A save as the gmdesk before this one wrote it: its event names a file."""
    save = store.create("Old docks", "4d2")
    with Session.open(save) as s:
        _add(s, "Ann"), _add(s, "Bo")
    log = EventLog.open(Path(save))
    try:
        log.append(
            {
                "type": "session.settings",
                "changes": {"tables": {"combat": str(path)}},
                "time": "2026-01-01T20:00:00Z",
                "summary": "Settings changed: tables",
                "effects": [],
            }
        )
    finally:
        log.close()
    for ckpt in Path(save).parent.glob("*.ckpt"):
        ckpt.unlink()
    return Path(save)


def test_a_save_naming_a_file_reads_it_once_on_open(store, tmp_path):
    save = _earlier_form(store, _file(tmp_path, GRIM))
    with Session.open(save) as s:
        assert s.state.info.settings["tables"]["combat"]["name"] == "grim"  # read into the state
        chars = {c.name: c.id for c in s.state.characters.values()}
        _attack(s, chars["Ann"], chars["Bo"])
        assert _wounds(s, chars["Bo"]) == ["Grim"]


def test_a_save_naming_a_missing_file_opens_and_says_so(store, tmp_path):
    path = _file(tmp_path, GRIM)
    save = _earlier_form(store, path)
    path.unlink()
    with Session.open(save) as s:
        said = [w for w in s.warnings if "session.settings" in w]
        assert len(said) == 1 and str(path) in said[0] and "tables: combat" in said[0], s.warnings
        assert s.tables().get("combat").name == "4d2-combat"


def test_each_built_in_system_names_its_table_roles_in_words():
    for system in BUILTIN_IDS:
        roles = table_roles(system)
        assert roles, system
        for role, label in roles:
            assert label != role and system not in label, (system, role, label)
    assert [r for r, _ in table_roles("4d2")] == ["outcomes", "combat", "maneuver", "wound-status"]


def test_the_next_night_keeps_the_gms_tables(store, tmp_path):
    path = _file(tmp_path, GRIM)
    with Session.open(store.create("Night 1", "4d2")) as s:
        s.apply(table_change(s.state.info.settings, "combat", load_table(path)))
    path.unlink()
    got = store.next_night("Night 1", "Night 2")
    with Session.open(got.path) as s:
        assert s.tables().get("combat").name == "grim"


def test_a_plug_ins_table_role_reads_in_its_words_and_takes_the_gms_table(store):
    from coin_plugin import coin_site, registered

    with registered(coin_site()):
        assert table_roles("coin") == [("coin-bruise", "Bruise table")]
        with Session.open(store.create("Coins", "coin")) as s:
            a, b = _add(s, "Ann"), _add(s, "Bo")
            own = {"name": "welt", "title": "Welts", "columns": ["text"], "rows": {"1": ["Welt"]}}
            s.apply({"type": "session.settings", "changes": {"tables": {"coin-bruise": own}}})
            from gmdesk.core.systems import get_spec

            params = get_spec("coin").Params(combat=True)
            s.roll("coin", params, actor=a, target=b, combat=True, rng=FixedDice([2, 2, 2]))
            assert _wounds(s, b) == ["Welt"]
