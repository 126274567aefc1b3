"""Issue 8: the store never writes to the wrong session, never certifies damage,
never admits two writers. Each test injects one fault and checks the outcome."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gmdesk.cli.main import main
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.storage import JOURNAL_VERSION, EventLog, session_files

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def saves(tmp_path, monkeypatch):
    monkeypatch.delenv("GMDESK_SAVES", raising=False)
    return tmp_path / "saves"


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def one_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("gmdesk"), err
    assert "Traceback" not in err
    for w in words:
        assert w in err, err


def names_in(path: Path) -> list[str]:
    with Session.open(path, readonly=True) as s:
        return [e.type for e in s.events]


# --------------------------------------------------------------------------- 1. two names, one file


@pytest.mark.parametrize(
    "first, second",
    [
        ("x" * 130 + "A", "x" * 130 + "B"),  # differ only after the file-name cut
        ("Docks", "Docks."),  # a trailing dot
        ("Night/Day", "Night_Day"),  # / vs _
    ],
)
def test_names_sharing_a_stem_are_distinct_sessions(capsys, saves, first, second):
    s = str(saves)
    assert run(capsys, "--saves", s, "new", first, "--system", "4d6")[0] == 0
    assert run(capsys, "--saves", s, "new", second, "--system", "4d6")[0] == 0
    store = SessionStore(saves)
    p1, p2 = store.resolve(first), store.resolve(second)
    assert p1 != p2
    rc, out, err = run(capsys, "--saves", s, "roll", "4d6", "--seed", "3", "--save", second)
    assert rc == 0, err
    with Session.open(p1, readonly=True) as a, Session.open(p2, readonly=True) as b:
        assert a.state.info.name == first and len(a.events) == 0
        assert b.state.info.name == second and len(b.events) == 1


def test_name_whose_file_belongs_to_another_session_is_not_found(capsys, saves):
    s = str(saves)
    assert run(capsys, "--saves", s, "new", "Docks", "--system", "4d6")[0] == 0
    rc, out, err = run(capsys, "--saves", s, "roll", "4d6", "--save", "Docks.")
    assert rc == 2
    one_line(err, "no session 'Docks.'")
    assert len(names_in(SessionStore(saves).resolve("Docks"))) == 0


@pytest.mark.parametrize("name", [".", "...", " . ", "\u200b", "   ", "\u200b.\u200b"])
def test_name_empty_after_sanitising_is_refused(capsys, saves, name):
    rc, out, err = run(capsys, "--saves", str(saves), "new", name, "--system", "4d6")
    assert rc == 2
    one_line(err, "name")
    assert not saves.exists() or not list(saves.glob("*.gmdesk"))


def test_concurrent_new_of_one_name_makes_one_session(saves):
    import threading

    from gmdesk.core.errors import GmdeskError

    for trial in range(20):
        name = f"Race {trial}"
        gate = threading.Barrier(4)
        results: list[str] = []

        def create(gate: threading.Barrier = gate, name: str = name, results: list[str] = results) -> None:
            store = SessionStore(saves)
            gate.wait()
            try:
                store.create(name, "4d6")
                results.append("ok")
            except GmdeskError:
                results.append("refused")

        threads = [threading.Thread(target=create) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == ["ok", "refused", "refused", "refused"], results
        assert len([x for x in SessionStore(saves).list() if x.name == name]) == 1


# --------------------------------------------------------------------------- 8. nothing outside the saves dir


def test_opening_a_file_that_is_not_a_session_touches_nothing_beside_it(capsys, tmp_path, saves):
    notes = tmp_path / "notes.txt"
    notes.write_text("the GM's notes\n")
    tmp = tmp_path / "notes.txt.tmp"
    tmp.write_text("keep me")
    before = sorted(p.name for p in tmp_path.iterdir())
    rc, out, err = run(capsys, "--saves", str(saves), "import-sheet", str(notes), str(notes))
    assert rc == 2
    one_line(err, "not a gmdesk session")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert tmp.read_text() == "keep me"
    with pytest.raises(GmdeskError):
        EventLog.open(notes)
    assert not (tmp_path / "notes.txt.lock").exists() and tmp.exists()


def test_saves_option_only_before_the_command(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GMDESK_SAVES", str(tmp_path / "saves"))
    rc, out, err = run(capsys, "new", "--saves", "--system", "4d6")
    assert rc == 2
    assert not (tmp_path / "--system").exists()
    rc, out, err = run(capsys, "new", "Docks", "--saves", str(tmp_path / "elsewhere"))
    assert rc == 2 and not (tmp_path / "elsewhere").exists()
    rc, out, err = run(capsys, "--saves", str(tmp_path / "mine"), "new", "Docks", "--system", "4d6")
    assert rc == 0 and (tmp_path / "mine" / "Docks.gmdesk").is_file()


# --------------------------------------------------------------------------- 9. bounded numbers

HUGE = "1" + "0" * 4300


@pytest.mark.parametrize(
    "argv",
    [
        ["roll", "4d6", "--bonus", HUGE],
        ["odds", "4d6", "--dc", HUGE],
        ["roll", "1d6x4", "--bonus", HUGE],
        ["roll", "fudge", "--offense", HUGE],
        ["roll", "torg-2d10", "--skill", HUGE],
        ["roll", "4d2", "--count", HUGE],
        ["roll", "4d2", "--seed", HUGE],
        ["roll", "4d6", "--bonus", "-" + HUGE],
    ],
)
def test_huge_integer_option_is_one_line(capsys, argv):
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    one_line(err, "whole number")
    assert len(err) < 200


def test_huge_event_fields_are_refused(tmp_path):
    from gmdesk.core.session import EventError

    path = SessionStore(tmp_path).create("Bounds", "4d6")
    with Session.open(path) as s:
        cid = s.apply({"type": "character.add", "character": {"name": "Ann"}}).data["id"]
        for doc in (
            {"type": "initiative.set", "entries": [{"id": cid, "value": 10**4300}]},
            {"type": "clock.add", "name": "Doom", "segments": 10**30},
            {"type": "character.edit", "id": cid, "fields": {"vitality_default": -(10**100)}},
        ):
            with pytest.raises(EventError) as e:
                s.apply(doc)
            assert len(str(e.value)) < 200 and "\n" not in str(e.value)
        assert len(s.events) == 1
    with Session.open(path, readonly=True) as s:
        assert len(s.events) == 1


# --------------------------------------------------------------------------- 4. one writer


def test_deleting_the_lock_file_does_not_let_a_second_writer_in(tmp_path):
    from gmdesk.core.session.lock import LockedError
    from gmdesk.core.session.storage import sidecar_paths

    path = SessionStore(tmp_path).create("Docks", "4d6")
    first = Session.open(path)
    first.apply({"type": "note", "text": "one"})
    sidecar_paths(path)["lock"].unlink()
    with pytest.raises(LockedError):
        Session.open(path)
    first.apply({"type": "note", "text": "two"})
    first._log.compact()  # the first writer goes on, compacting included
    with pytest.raises(LockedError):
        EventLog.open(path)
    sidecar_paths(path)["lock"].unlink(missing_ok=True)
    with pytest.raises(LockedError):
        Session.open(path)  # still refused after the compaction (the new file is locked too)
    first.apply({"type": "note", "text": "three"})
    first.close()
    with Session.open(path) as again:
        assert [e.data.get("text") for e in again.events] == ["one", "two", "three"]


def test_a_second_writer_in_another_process_is_refused_after_the_lock_file_is_deleted(tmp_path):
    from gmdesk.core.session.storage import sidecar_paths

    path = SessionStore(tmp_path).create("Docks", "4d6")
    with Session.open(path) as s:
        s.apply({"type": "note", "text": "mine"})
        sidecar_paths(path)["lock"].unlink()
        code = (
            "import sys; from gmdesk.core.session import Session\n"
            "try:\n    Session.open(sys.argv[1])\nexcept Exception as e:\n    print(type(e).__name__)\n"
            "else:\n    print('opened')\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.stdout.strip() == "LockedError", out.stderr
        s.apply({"type": "note", "text": "still mine"})
    with Session.open(path, readonly=True) as s:
        assert [e.data.get("text") for e in s.events] == ["mine", "still mine"]


def test_compaction_never_discards_records_it_did_not_write(tmp_path):
    from gmdesk.core.session.storage import StoreWriteError, sidecar_paths

    path = SessionStore(tmp_path).create("Docks", "4d6")
    log = EventLog.open(path)
    log.append({"type": "note", "text": "a"})
    jpath = sidecar_paths(path)["journal"]
    foreign = b'{"n":99,"op":"hdr","set":{"x":1}}\n'
    with open(jpath, "ab") as f:  # another program appends to the journal
        f.write(foreign)
    with pytest.raises(StoreWriteError, match="written by another program"):
        log.compact()
    assert jpath.read_bytes().endswith(foreign)  # nothing rewritten
    with pytest.raises(StoreWriteError):
        log.append({"type": "note", "text": "b"})  # and nothing more is written over it
    log.close()
    assert jpath.read_bytes().endswith(foreign)


# --------------------------------------------------------------------------- 5. interrupted apply


class Interrupt(KeyboardInterrupt):
    pass


def _points():
    """(object, attribute) of every storage step inside Session.apply."""
    import gmdesk.core.session.session as session_mod
    from gmdesk.core.session.storage import atomic, eventlog, journal, recovery, table

    return [
        (atomic, "write_all"),
        (atomic.os, "fsync"),
        (recovery, "apply_record"),
        (journal, "apply_record"),
        (journal.json, "loads"),
        (journal.JournalEngine, "_append_durably"),
        (journal.JournalEngine, "commit"),
        (journal.JournalEngine, "_apply_in_memory"),
        (journal.JournalEngine, "_auto_compact"),
        (journal.JournalEngine, "compact"),
        (atomic, "publish"),
        (atomic, "fsync_dir"),
        (journal.JournalEngine, "_swap_journal"),
        (table.EventTable, "set_text"),
        (eventlog.EventLog, "append"),
        (eventlog.EventLog, "set_header"),
        (session_mod.Session, "_maybe_update_header"),
        (session_mod.Session, "_save_checkpoint"),
        (session_mod.EventList, "grow"),
        (session_mod.Event, "from_doc"),
    ]


def _state(s: Session) -> dict:
    d = s.state.to_json()
    d["info"].pop("last_played")
    return d


@pytest.mark.slow
@pytest.mark.parametrize("when", ["before", "after"])
def test_an_interrupted_apply_leaves_memory_and_disk_agreeing(tmp_path, monkeypatch, when):
    from gmdesk.core.session.storage import journal

    monkeypatch.setattr(journal, "COMPACT_AT", 3)  # compactions happen inside applies
    trials = 0
    for i, (obj, attr) in enumerate(_points()):
        real = getattr(obj, attr)
        for nth in (1, 2):
            path = SessionStore(tmp_path / f"{i}-{nth}").create("Docks", "4d6")
            s = Session.open(path)
            s._log._storage.compact_at = s._log._storage._next_auto = 3
            s.apply({"type": "character.add", "character": {"name": "Ann"}})
            calls = {"n": 0}

            def hook(*a, _real=real, calls=calls, nth=nth, **kw):
                calls["n"] += 1
                if calls["n"] == nth and when == "before":
                    raise Interrupt()
                out = _real(*a, **kw)
                if calls["n"] == nth and when == "after":
                    raise Interrupt()
                return out

            wrapped = staticmethod(hook) if isinstance(obj.__dict__.get(attr), staticmethod) else hook
            if isinstance(obj, type) and isinstance(obj.__dict__.get(attr), classmethod):
                wrapped = classmethod(lambda cls, *a, _real=real, **kw: hook(*a, **kw))
            monkeypatch.setattr(obj, attr, wrapped)
            hit = False
            try:
                for k in range(4):
                    s.apply({"type": "note", "text": f"n{k}"})
            except Interrupt:
                hit = True
            finally:
                monkeypatch.setattr(obj, attr, real)
            trials += hit
            where = f"{attr} {when} call {nth}"
            # memory and disk agree, and a reader sees the same
            assert len(s.events) == s._log.count, where
            with Session.open(path, readonly=True) as r:
                assert _state(r) == _state(s), where
                assert len(r.events) == len(s.events), where
            # later applies work
            s.apply({"type": "note", "text": "after"})
            assert s.events[-1].data["text"] == "after", where
            live = _state(s)
            s.close()
            with Session.open(path) as again:  # the file reopens for writing, same state
                assert _state(again) == live, where
                again.apply({"type": "note", "text": "again"})
    assert trials >= len(_points())


# --------------------------------------------------------------------------- 2. damage is detected

from gmdesk.core.session.storage import BLOCK_EVENTS, CorruptSaveError, sidecar_paths  # noqa: E402


def _log_with(path: Path, events: int, journal: int = 0) -> None:
    with EventLog.create(path, {"name": "x", "system": "4d6"}, compact_on_close=False) as log:
        log.append_many([{"type": "note", "text": f"n{i}"} for i in range(1, events + 1)])
        log.compact()
        for i in range(events + 1, events + journal + 1):
            log.append({"type": "note", "text": f"n{i}"})


def _refused_both_ways(path: Path, *words: str) -> str:
    before = {f: f.read_bytes() for f in session_files(path) if not f.name.endswith(".lock")}
    for readonly in (True, False):
        with pytest.raises(CorruptSaveError) as err:
            EventLog.open(path, readonly=readonly)
        msg = str(err.value)
        assert "\n" not in msg
        for w in words:
            assert w in msg, msg
    assert {f: f.read_bytes() for f in before} == before  # nothing rewritten, nothing re-certified
    return msg


def test_a_changed_byte_in_the_snapshot_events_is_reported_with_its_events(tmp_path):
    path = tmp_path / "s.gmdesk"
    _log_with(path, 3 * BLOCK_EVENTS)
    raw = path.read_bytes()
    target = f'"text":"n{BLOCK_EVENTS + 7}"'.encode()
    path.write_bytes(raw.replace(target, target[:-2] + b'8"'))  # same length, one digit changed
    _refused_both_ways(path, f"events #{BLOCK_EVENTS + 1}–#{2 * BLOCK_EVENTS}", "checksum")


@pytest.mark.parametrize("fault", ["flip", "drop", "duplicate", "swap"])
def test_journal_damage_is_reported_with_the_records_affected(tmp_path, fault):
    path = tmp_path / "s.gmdesk"
    _log_with(path, 2, journal=6)
    jpath = sidecar_paths(path)["journal"]
    lines = jpath.read_bytes().split(b"\n")  # header, 6 records, ""
    if fault == "flip":
        lines[3] = lines[3].replace(b'"n5"', b'"n6"')
        words = ["line 4", "checksum", "events #5–#8"]
    elif fault == "drop":
        del lines[3]
        words = ["line 4", "is missing", "events #5–#7"]
    elif fault == "duplicate":
        lines.insert(3, lines[2])
        words = ["line 4", "again", "events #5–#9"]
    else:  # an old journal beside a newer snapshot
        old = jpath.read_bytes()
        with EventLog.open(path, compact_on_close=False) as log:
            log.append({"type": "note", "text": "late"})
            log.compact()
            log.append({"type": "note", "text": "later"})
        lines = old.split(b"\n")
        words = ["older than the session file", "may be missing"]
    jpath.write_bytes(b"\n".join(lines))
    _refused_both_ways(path, *words)


def test_only_a_torn_final_record_is_dropped_and_a_blank_line_at_the_end_is_tolerated(tmp_path):
    path = tmp_path / "s.gmdesk"
    _log_with(path, 2, journal=3)
    jpath = sidecar_paths(path)["journal"]
    good = jpath.read_bytes()
    jpath.write_bytes(good + b"\n")  # a stray blank line
    with EventLog.open(path, readonly=True) as log:
        assert log.count == 5 and log.warnings == []
    with EventLog.open(path, compact_on_close=False) as log:
        assert log.warnings == []
        log.append({"type": "note", "text": "n6"})
    with EventLog.open(path, readonly=True) as log:
        assert log.count == 6
    whole = jpath.read_bytes()
    jpath.write_bytes(whole + whole.split(b"\n")[-2][:20])  # a torn final record
    with EventLog.open(path) as log:
        assert log.count == 6 and "incomplete last record" in log.warnings[0]


def test_the_shipped_examples_still_open_and_take_new_events(tmp_path):
    import shutil

    from gmdesk.core.session.saves import _examples_dir

    examples = sorted(_examples_dir().glob("*.gmdesk"))
    assert examples
    for ex in examples:
        for f in session_files(ex):
            if not f.name.endswith(".lock"):
                shutil.copy(f, tmp_path / f.name)
        path = tmp_path / ex.name
        with Session.open(path) as s:
            n = len(s.events)
            s.apply({"type": "note", "text": "upgraded"})
        with Session.open(path, readonly=True) as s:
            assert len(s.events) == n + 1 and s.events[-1].data["text"] == "upgraded"
        assert b'"gmdesk_journal":%d' % JOURNAL_VERSION in sidecar_paths(path)["journal"].read_bytes()


# --------------------------------------------------------------------------- 3. check and repair


def test_check_and_repair_from_the_command_line(capsys, saves):
    s_dir = str(saves)
    path = SessionStore(saves).create("Docks", "4d6")
    with Session.open(path) as s:
        for i in range(3 * BLOCK_EVENTS):
            s.apply({"type": "note", "text": f"n{i}"})
    rc, out, err = run(capsys, "--saves", s_dir, "check", "Docks")
    assert rc == 0 and "fine" in out and err == ""
    raw = path.read_bytes()
    target = f'"text":"n{2 * BLOCK_EVENTS + 3}"'.encode()
    path.write_bytes(raw.replace(target, target[:-2] + b'9"'))
    damaged = {f: f.read_bytes() for f in session_files(path) if not f.name.endswith(".lock")}
    rc, out, err = run(capsys, "--saves", s_dir, "check", "Docks")
    assert rc == 1 and "DAMAGED" in out and f"events #{2 * BLOCK_EVENTS + 1}–#{3 * BLOCK_EVENTS}" in out
    assert f"would keep {2 * BLOCK_EVENTS} of {3 * BLOCK_EVENTS} events" in out
    rc, out, err = run(capsys, "--saves", s_dir, "repair", "Docks")
    assert rc == 0, err
    assert "left out" in out and "Docks.gmdesk is unchanged" in out
    assert {f: f.read_bytes() for f in damaged} == damaged
    with Session.open(SessionStore(saves).resolve("Docks (repaired)"), readonly=True) as s:
        # the damaged block's events are left out, their places kept (see test_store_hostile)
        assert len(s.events) == 3 * BLOCK_EVENTS
        assert s.events[2 * BLOCK_EVENTS - 1].data["text"] == f"n{2 * BLOCK_EVENTS - 1}"
        assert "lost to damage" in s.events[2 * BLOCK_EVENTS].data["text"]
    rc, out, err = run(capsys, "--saves", s_dir, "check", "Docks (repaired)")
    assert rc == 0


# --------------------------------------------------------------------------- 6. unknown is kept, not dropped


def test_unknown_keys_of_the_header_record_survive_a_compaction(tmp_path):
    from gmdesk.core.session.storage.checksums import seal, unseal

    path = SessionStore(tmp_path).create("Docks", "4d6")
    raw = path.read_bytes()
    # what a newer gmdesk writes: a key this one does not know, in a record whose own
    # checksum covers it (an edited record is damage: test_store_hostile)
    first, rest = raw.split(b"\n", 1)
    record = unseal(first[len(b'{"_gmdesk":') : -1])
    record = b'{"future":{"kept":[1,2]},' + record[1:]
    path.write_bytes(b'{"_gmdesk":' + seal(record.decode()).encode() + b",\n" + rest)
    with Session.open(path) as s:
        s.apply({"type": "note", "text": "x"})
        s._log.compact()
        s.apply({"type": "note", "text": "y"})
    first = path.read_bytes().split(b"\n")[0]
    assert b'"future":{"kept":[1,2]}' in first
    with Session.open(path, readonly=True) as s:
        assert len(s.events) == 2


@pytest.mark.parametrize(
    "change, words",
    [
        ({"drop": "name"}, "no 'name'"),
        ({"drop": "system"}, "no 'system'"),
        ({"drop": "settings"}, "no 'settings'"),
        ({"set": ("system", "d20")}, "does not know ('d20'"),
    ],
)
def test_a_header_missing_required_fields_is_refused_not_rewritten(capsys, saves, change, words):
    import json as _json

    path = SessionStore(saves).create("Docks", "4d6")
    raw = path.read_bytes()
    nl = raw.index(b"\n")
    rec = _json.loads(raw[len(b'{"_gmdesk":') : nl - 1])
    if "drop" in change:
        del rec["header"][change["drop"]]
    else:
        rec["header"][change["set"][0]] = change["set"][1]
    import zlib

    # as another tool (or an older gmdesk) would write it: a header whose checksum fits
    from gmdesk.core.session.storage.checksums import seal

    rec["header_crc32"] = zlib.crc32(_json.dumps(rec["header"], separators=(",", ":"), ensure_ascii=False).encode())
    rec.pop("c")  # and a record whose own checksum fits
    edited = b'{"_gmdesk":' + seal(_json.dumps(rec, separators=(",", ":"))).encode() + b"," + raw[nl:]
    path.write_bytes(edited)
    files = {f: f.read_bytes() for f in session_files(path) if not f.name.endswith(".lock")}
    for readonly in (True, False):
        with pytest.raises(CorruptSaveError, match=words.replace("(", r"\(")):
            Session.open(path, readonly=readonly)
    rc, out, err = run(capsys, "--saves", str(saves), "log", str(path))
    assert rc == 2
    one_line(err, words)
    assert [s.error for s in SessionStore(saves).list() if s.path == path][0]
    assert {f: f.read_bytes() for f in files} == files


# --------------------------------------------------------------------------- 7. failures leave nothing behind


def test_a_failed_new_leaves_no_lock_or_partial_file(capsys, saves, monkeypatch):
    import errno

    from gmdesk.core.session.storage import atomic

    real = atomic.write_all
    calls = {"n": 0}

    def full(fd, data):
        calls["n"] += 1
        if calls["n"] >= 2:  # the journal's header fits, the session file does not
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(atomic, "write_all", full)
    rc, out, err = run(capsys, "--saves", str(saves), "new", "Docks", "--system", "4d6")
    assert rc == 2
    one_line(err, "No space left on device")
    assert sorted(p.name for p in saves.iterdir()) == []
    monkeypatch.setattr(atomic, "write_all", real)
    rc, out, err = run(capsys, "--saves", str(saves), "new", "Docks", "--system", "4d6")
    assert rc == 0


def test_a_compaction_that_cannot_be_written_is_reported_once(tmp_path, monkeypatch):
    import errno

    from gmdesk.core.session.storage import atomic

    path = SessionStore(tmp_path).create("Docks", "4d6")
    s = Session.open(path)
    s._log._storage.compact_at = s._log._storage._next_auto = 4
    real = atomic.publish

    def full(tmp, final, data, **kw):
        if final == path:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(tmp, final, data, **kw)

    monkeypatch.setattr(atomic, "publish", full)
    notes = []
    for i in range(30):  # several compactions are tried and fail
        s.apply({"type": "note", "text": f"n{i}"})
        notes += s.take_notices()
    assert len(notes) == 1 and "could not compact" in notes[0] and "No space left" in notes[0]
    assert s._log.journal_lines >= 30
    monkeypatch.setattr(atomic, "publish", real)
    for i in range(6):
        s.apply({"type": "note", "text": f"m{i}"})
        notes += s.take_notices()
    assert len(notes) == 2 and "works again" in notes[1]
    s.close()
    with Session.open(path, readonly=True) as r:
        assert len(r.events) == 36


def test_stdout_on_a_full_disk_is_one_line_and_exit_2(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    env = dict(os.environ, PYTHONPATH=str(ROOT), GMDESK_SAVES=str(tmp_path))
    for args in (["roll", "4d6", "--count", "5000", "--json"], ["roll", "4d6"], ["list"]):
        with open("/dev/full", "w") as full:
            out = subprocess.run(
                [sys.executable, "-m", "gmdesk", *args],
                cwd=ROOT,
                env=env,
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
            )
        assert out.returncode == 2, out.stderr
        assert out.stderr.count("\n") == 1 and "No space left on device" in out.stderr, out.stderr


def test_a_changed_header_or_view_state_is_reported(tmp_path):
    path = SessionStore(tmp_path).create("Docks", "4d6")
    with Session.open(path) as s:
        s.apply({"type": "note", "text": "x"})
        s.ui_set("selected", "c1")
    raw = path.read_bytes()
    for edited, words in (
        (raw.replace(b'"name":"Docks"', b'"name":"Dockz"', 1), "header"),
        (raw.replace(b'"value":"c1"', b'"value":"c2"'), "view state"),
    ):
        assert edited != raw
        path.write_bytes(edited)
        _refused_both_ways(path, words, "checksum")
