"""What other programs do to a session or a bestiary (an editor saving by rename, rsync,
a deleted lock, a cut journal, an edited byte, hostile JSON) is refused or detected;
no gmdesk command destroys a session or a bestiary. tests/hostile.py holds the fault
scripts these tests run once each (``python tests/hostile.py N`` runs them N times)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.storage import EventLog, sidecar_paths
from gmdesk.core.session.storage.errors import SessionChangedError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hostile  # noqa: E402

# --------------------------------------------------------------------------- one writer


def test_a_second_gmdesk_is_refused_after_the_lock_is_deleted_and_the_session_file_renamed_over(tmp_path):
    assert hostile.takeover(tmp_path) == "refused"


@pytest.mark.parametrize("victim", ["snapshot", "journal"])
def test_the_writer_notices_its_files_were_replaced_before_its_next_write(tmp_path, victim):
    path = SessionStore(tmp_path).create("Docks", "4d6")
    s = Session.open(path)
    s.apply({"type": "note", "text": "one"})
    target = sidecar_paths(path)[victim]
    copy = target.with_name(target.name + ".sync")
    copy.write_bytes(target.read_bytes())
    os.replace(copy, target)
    with pytest.raises(SessionChangedError, match="changed on disk") as err:
        s.apply({"type": "note", "text": "two"})
    assert "\n" not in str(err.value)
    with pytest.raises(SessionChangedError):  # and it stays so
        s.apply({"type": "note", "text": "three"})
    with pytest.raises(Exception, match="is open in gmdesk"):
        EventLog.open(path)  # nobody else writes while it is open
    s.close()
    with Session.open(path, readonly=True) as again:
        assert [e.data.get("text") for e in again.events] == ["one"]


async def test_the_desk_says_the_session_was_changed_on_disk_and_turns_read_only(tmp_path):
    from helpers import make_save, notes, run, screen_text, settle, until

    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen

    path, _ids = make_save(
        tmp_path, characters=[{"name": "Bruno"}, {"name": "Kara"}], initiative={"Bruno": 12, "Kara": 9}, start=True
    )
    with Session.open(path, readonly=True) as s:
        before = len(s.events)
    app = GmdeskApp(tmp_path / "saves", path)
    async with run(app, size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Bruno" in screen_text(app))
        copy = path.with_name(path.name + ".sync")
        copy.write_bytes(path.read_bytes())
        os.replace(copy, path)  # an editor saves the session file by rename
        await pilot.press("n")
        await until(pilot, lambda: "READ-ONLY" in screen_text(app))
        assert any("changed on disk" in n and "read-only" in n for n in notes(app))
        await pilot.press("n")  # nothing more is tried
        await settle(pilot)
        assert sum("changed on disk" in n for n in notes(app)) == 1
    with Session.open(path, readonly=True) as s:
        assert len(s.events) == before


# --------------------------------------------------------------------------- hostile JSON


@pytest.mark.parametrize("seed", [0, 1], ids=["journal", "session file"])
def test_deeply_nested_json_is_damage_in_one_line_never_a_traceback(tmp_path, seed):
    assert hostile.nested(tmp_path, seed) == "one line"


def test_nesting_deeper_than_the_store_reads_is_refused_when_written(tmp_path):
    from gmdesk.core.errors import ParamError

    path = SessionStore(tmp_path).create("Docks", "4d6")
    with Session.open(path) as s:
        deep: list = []
        for _ in range(70):
            deep = [deep]
        with pytest.raises(ParamError, match="levels deep"):
            s.ui_set("x", deep)
        s.apply({"type": "note", "text": "fine"})
    with Session.open(path, readonly=True) as s:
        assert [e.data.get("text") for e in s.events] == ["fine"]


# --------------------------------------------------------------------------- damage is never certified


def _flip(raw: bytes, old: bytes, new: bytes) -> bytes:
    assert raw.count(old) >= 1, old
    return raw.replace(old, new, 1)


@pytest.mark.parametrize(
    "old, new",
    [
        (b'"header_crc32"', b'"header_crc3X"'),  # one byte: the check must not turn off
        (b'"tail_crc32"', b'"tail_crc3X"'),
        (b'"events_sha256"', b'"events_sha25X"'),
        (b',"c":"', b',"C":"'),
        (b'"schema":2', b'"schema":1'),  # claims the older format to dodge the checks
    ],
)
def test_a_checksum_turned_off_by_one_byte_is_damage(tmp_path, old, new):
    from gmdesk.core.session.repair import check
    from gmdesk.core.session.storage import CorruptSaveError

    path = SessionStore(tmp_path).create("Docks", "4d2")
    with Session.open(path) as s:
        s.apply({"type": "note", "text": "x"})
        s.ui_set("selected", "c1")
    raw = path.read_bytes()
    edited = _flip(raw, old, new)
    # and a second byte: a setting changed where the turned-off check would have seen it
    edited = _flip(edited, b'"skill_threshold":9', b'"skill_threshold":7')
    path.write_bytes(edited)
    for readonly in (True, False):
        with pytest.raises(CorruptSaveError):
            EventLog.open(path, readonly=readonly)
    assert not check(path).ok
    assert path.read_bytes() == edited  # never rewritten


def test_a_session_of_the_previous_format_opens_and_is_upgraded_keeping_the_original(tmp_path):
    import shutil

    from gmdesk.core.session.storage import SCHEMA_VERSION

    src = Path(__file__).parent / "data" / "v1"
    for f in src.iterdir():
        shutil.copy(f, tmp_path / f.name)
    path = tmp_path / "The Crooked Mile.gmdesk"
    original = path.read_bytes()
    assert b'"schema":1' in original.split(b"\n")[0]
    with Session.open(path, readonly=True) as s:
        count = len(s.events)
        assert count == 18 and s.state.info.name == "The Crooked Mile"
    assert path.read_bytes() == original
    with Session.open(path) as s:
        assert len(s.events) == count
        s.apply({"type": "note", "text": "after the upgrade"})
    assert path.with_name(path.name + ".v1.bak").read_bytes() == original
    assert f'"schema":{SCHEMA_VERSION}'.encode() in path.read_bytes().split(b"\n")[0]
    with Session.open(path, readonly=True) as s:
        assert len(s.events) == count + 1


def test_a_field_no_gmdesk_wrote_in_the_previous_format_is_damage(tmp_path):
    import shutil

    from gmdesk.core.session.storage import CorruptSaveError

    src = Path(__file__).parent / "data" / "v1"
    for f in src.iterdir():
        shutil.copy(f, tmp_path / f.name)
    path = tmp_path / "The Crooked Mile.gmdesk"
    path.write_bytes(_flip(path.read_bytes(), b'"header_crc32"', b'"header_crc3X"'))
    with pytest.raises(CorruptSaveError, match="header_crc3X"):
        EventLog.open(path, readonly=True)


def test_whole_records_cut_off_the_journal_are_damage_not_a_torn_write(tmp_path):
    assert hostile.tailcut(tmp_path) == "detected"


def test_a_cut_journal_is_damage_in_process_too_and_repair_says_what_is_missing(tmp_path):
    from gmdesk.core.session.repair import check, salvage
    from gmdesk.core.session.storage import CorruptSaveError

    path = SessionStore(tmp_path).create("Docks", "4d6")
    s = Session.open(path)
    for i in range(12):
        s.apply({"type": "note", "text": str(i)})
    s._log._storage.abandon()  # killed
    jpath = sidecar_paths(path)["journal"]
    lines = jpath.read_bytes().split(b"\n")
    jpath.write_bytes(b"\n".join(lines[:-6]) + b"\n" + lines[-6][:20])  # 5 whole records and a part
    with pytest.raises(CorruptSaveError, match="missing"):
        EventLog.open(path)
    (row,) = SessionStore(tmp_path).list()  # the session list says so too
    assert row.error and "missing" in row.error
    report = check(path)
    assert not report.ok and any("missing" in p for p in report.problems)
    assert any("incomplete" not in n for n in report.notes)
    got = salvage(path)
    assert 5 <= len(got.events) < 12 and any("missing (cut off its end by another program" in w for w in got.left_out)


# --------------------------------------------------------------------------- repair keeps what verifies


@pytest.mark.parametrize("seed", [0, 1])
def test_repair_keeps_every_event_that_verifies_and_its_list_line_agrees(tmp_path, seed):
    assert hostile.repairs(tmp_path, seed) == "all kept"


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda h: h.pop("format"), "no 'format'"),
        (lambda h: h.update(name=""), "'name' is empty"),
        (lambda h: h["settings"].update(skill_threshold="9"), "'skill_threshold' is '9'"),
        (lambda h: h["settings"].update(reroll_initiative="yes"), "'reroll_initiative'"),
    ],
)
def test_a_header_gmdesk_never_writes_is_refused_even_with_fitting_checksums(tmp_path, change, words):
    import json
    import zlib

    from gmdesk.core.session.repair import check
    from gmdesk.core.session.storage import CorruptSaveError
    from gmdesk.core.session.storage.checksums import seal

    path = SessionStore(tmp_path).create("Docks", "4d2")
    raw = path.read_bytes()
    nl = raw.index(b"\n")
    rec = json.loads(raw[len(b'{"_gmdesk":') : nl - 1])
    change(rec["header"])
    rec["header_crc32"] = zlib.crc32(json.dumps(rec["header"], separators=(",", ":"), ensure_ascii=False).encode())
    rec.pop("c")
    edited = b'{"_gmdesk":' + seal(json.dumps(rec, separators=(",", ":"))).encode() + b"," + raw[nl:]
    path.write_bytes(edited)
    for readonly in (True, False):
        with pytest.raises(CorruptSaveError, match=words):
            Session.open(path, readonly=readonly)
    report = check(path)
    assert not report.ok and any(words in p for p in report.problems)
    assert path.read_bytes() == edited


@pytest.mark.parametrize("key", ["name", "created", "last_played"])
def test_a_header_with_control_characters_is_damage_never_shown_raw(tmp_path, key):
    """A session file from elsewhere (a synced folder, a file another GM shared) whose
    header text holds a terminal control sequence: gmdesk never writes one (names are
    kept without them), so it is damage — `list`, `check`, `log` and the desk never
    print it, which the GM's terminal would obey."""
    import contextlib
    import io

    from gmdesk.cli.main import main
    from gmdesk.core.session.session import new_header

    saves = tmp_path / "saves"
    saves.mkdir()
    header = new_header("Evil", "4d2", None)
    header[key] = f"{header[key]}\x1b]0;owned\x07\x1b[2J"
    EventLog.create(saves / "Evil.gmdesk", header).close()
    for args in (["list"], ["check", "Evil"], ["log", "Evil"], ["char", "Evil", "list"]):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(["--saves", str(saves), *args])
        said = out.getvalue() + err.getvalue()
        assert "\x1b" not in said and "\x07" not in said, (args, said)
    with pytest.raises(Exception, match="control characters"):
        Session.open(saves / "Evil.gmdesk", readonly=True)
