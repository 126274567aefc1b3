"""The durable session store: what a GM would notice if it went wrong.

Every save survives a reopen exactly; a second gmdesk is told who has the session;
a crash, a full disk or a damaged file never loses what was acknowledged and never
gets silently "repaired" into an empty session.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tinydb import Query, TinyDB

from gmdesk.core.dice import Descriptor, Die, RollRecord
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.session.storage import (
    COMPACT_AT,
    SCHEMA_VERSION,
    CorruptSaveError,
    EventLog,
    FutureVersionError,
    LockedError,
    SessionExistsError,
    SessionMissingError,
    StoreReadError,
    StoreWriteError,
    migrations,
    peek,
    recovery,
    session_files,
    sidecar_paths,
    tinydb_adapter,
)

REPO = Path(__file__).resolve().parent.parent
HEADER = {"name": "Night at the docks", "system": "4d2", "created": "2026-11-21T22:10:00"}


def roll_event(i: int) -> dict:
    """A realistic event: a 4d2 combat roll record with who rolled at whom."""
    rec = RollRecord(
        system="4d2",
        params={"shift": i % 3, "combat": True, "target_kind": "organic", "attacker_kind": "organic"},
        dice=(
            Die(1 + i % 2, "positive", 2),
            Die(2, "positive", 2),
            Die(1, "negative", 2),
            Die(1 + (i // 2) % 2, "negative", 2),
        ),
        value=i % 5 - 2,
        outcome="Success" if i % 2 else "Failure",
        extra={"number": i % 5 - 2, "shift": i % 3},
        descriptors=(
            Descriptor("Light Wound — staggered, drops guard", "target", row=3, table="4d2-combat", column="organic"),
        ),
    )
    return {
        "type": "roll",
        "record": rec.to_json(),
        "actor": f"c{i % 4}",
        "target": f"c{(i + 1) % 4}",
        "combat": True,
        "time": f"2026-11-21T22:{i % 60:02d}:00",
        "summary": f"Roll #{i} — Ælfric hits",
    }


def files_snapshot(path: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in session_files(path)}


def run_py(code: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "docks.gmdesk"


@pytest.fixture(params=["fresh", "compacted"])
def settle(request):
    """Core behaviour must hold with changes still in the journal and after compaction."""

    def _settle(log: EventLog) -> None:
        if request.param == "compacted":
            log.compact()
            assert log.journal_lines == 0

    _settle.state = request.param
    return _settle


# --------------------------------------------------------------------------- round trips


def test_create_append_reopen_round_trip(path, settle):
    docs = [roll_event(i) for i in range(1, 31)]
    with EventLog.create(path, HEADER) as log:
        assert log.count == 0 and log.events() == []
        assert log.header == {**HEADER, "schema": SCHEMA_VERSION}
        seqs = [log.append(d) for d in docs]
        log.meta_set("selected", "c2")
        settle(log)
        assert seqs == list(range(1, 31))
    for readonly in (True, False):
        with EventLog.open(path, readonly=readonly) as log:
            assert log.warnings == []
            assert log.count == 30
            assert log.events() == list(zip(range(1, 31), docs, strict=False))
            assert log.header["name"] == "Night at the docks"
            assert log.meta_get("selected") == "c2"
            # the roll record inside comes back exactly
            assert RollRecord.from_json(log.events()[4][1]["record"]) == RollRecord.from_json(docs[4]["record"])


def test_seq_is_dense_across_batches_reopens_and_compactions(path, settle):
    with EventLog.create(path, HEADER, compact_at=7) as log:
        assert log.append({"type": "note", "text": "a"}) == 1
        assert log.append_many([{"type": "note", "text": str(i)} for i in range(5)]) == [2, 3, 4, 5, 6]
        assert log.append_many([]) == []
        settle(log)
        assert log.append({"type": "note"}) == 7
    with EventLog.open(path) as log:
        assert log.append({"type": "note"}) == 8
        assert [s for s, _ in log.events()] == list(range(1, 9))
        assert [s for s, _ in log.since(5)] == [6, 7, 8]
        assert log.since(8) == [] and log.since(0) == log.events()


def test_meta_is_durable_view_state_not_an_event(path, settle):
    with EventLog.create(path, HEADER) as log:
        assert log.meta_get("selected") is None and log.meta_get("selected", "none") == "none"
        log.meta_set("selected", "c1")
        log.meta_set("selected", "c3")
        log.meta_set("columns", {"wounds": True, "order": [1, 2]})
        settle(log)
        lines = log.journal_lines
        log.meta_set("selected", "c3")  # unchanged: nothing written
        assert log.journal_lines == lines
        got = log.meta_get("columns")
        got["wounds"] = False  # a copy: the store is unaffected
        assert log.count == 0
    with EventLog.open(path) as log:
        assert log.meta_get("selected") == "c3"
        assert log.meta_get("columns") == {"wounds": True, "order": [1, 2]}
        assert log.events() == []


def test_header_changes_are_durable_and_schema_is_the_stores(path, settle):
    with EventLog.create(path, {**HEADER, "schema": SCHEMA_VERSION}) as log:
        log.set_header(name="The docks, part 2", settings={"skill_threshold": 8})
        settle(log)
        with pytest.raises(ParamError, match="schema"):
            log.set_header(schema=99)
    with EventLog.open(path, readonly=True) as log:
        assert log.header == {
            **HEADER,
            "name": "The docks, part 2",
            "settings": {"skill_threshold": 8},
            "schema": SCHEMA_VERSION,
        }
    with pytest.raises(ParamError, match="schema"):
        EventLog.create(path.with_name("other.gmdesk"), {"schema": 0})
    assert not path.with_name("other.gmdesk").exists()


def test_create_refuses_an_existing_session(path):
    with EventLog.create(path, HEADER) as log:
        log.append(roll_event(1))
    before = files_snapshot(path)
    with pytest.raises(SessionExistsError) as err:
        EventLog.create(path, {"name": "other"})
    assert isinstance(err.value, GmdeskError) and str(path) in str(err.value)
    assert files_snapshot(path) == before


def test_opening_a_missing_session_is_a_clear_error_and_leaves_nothing_behind(path):
    with pytest.raises(SessionMissingError, match="no such session"):
        EventLog.open(path)
    with pytest.raises(SessionMissingError):
        EventLog.open(path, readonly=True)
    assert list(path.parent.iterdir()) == []


def test_appends_from_several_threads_stay_dense(path):
    with EventLog.create(path, HEADER, compact_at=50) as log:

        def work(t: int) -> None:
            for i in range(60):
                log.append({"type": "note", "thread": t, "i": i})
                if i % 20 == 0:
                    log.meta_set(f"t{t}", i)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert log.count == 180
    with EventLog.open(path) as log:
        docs = [d for _, d in log.events()]
        assert [s for s, _ in log.events()] == list(range(1, 181))
        assert sorted((d["thread"], d["i"]) for d in docs) == [(t, i) for t in range(3) for i in range(60)]
        assert [log.meta_get(f"t{t}") for t in range(3)] == [40, 40, 40]


def test_a_single_file_session_is_read_without_reloading_every_time(path):
    with EventLog.create(path, HEADER) as log:
        log.append(roll_event(1))
    sidecar_paths(path)["journal"].unlink()
    with EventLog.open(path, readonly=True) as reader:
        for _ in range(5):
            assert reader.since(1) == []
        assert reader._storage.stats["loads"] == 1


def test_bad_documents_are_refused_and_nothing_is_written(path):
    with EventLog.create(path, HEADER) as log:
        log.append(roll_event(1))
        size = os.path.getsize(sidecar_paths(path)["journal"])
        for bad in ({"x": {1, 2}}, {"x": float("nan")}, {"x": object()}, ["not", "a", "mapping"], "text"):
            with pytest.raises(ParamError) as err:
                log.append(bad)
            assert str(err.value).startswith("doc:")
        with pytest.raises(ParamError):
            log.append_many([roll_event(2), {"bad": {1}}])
        with pytest.raises(ParamError, match="key"):
            log.meta_set("", 1)
        with pytest.raises(ParamError, match="value"):
            log.meta_set("k", {1, 2})
        with pytest.raises(ParamError, match="seq"):
            log.since(-1)
        assert log.count == 1 and os.path.getsize(sidecar_paths(path)["journal"]) == size
        assert log.append(roll_event(2)) == 2


def test_documents_are_stored_as_their_json_round_trip(path):
    with EventLog.create(path, HEADER) as log:
        log.append({"dice": (1, 2), 3: "three"})
        live = log.events()
    with EventLog.open(path) as log:
        assert log.events() == live == [(1, {"dice": [1, 2], "3": "three"})]


def test_events_hands_out_copies_of_each_document(path):
    with EventLog.create(path, HEADER) as log:
        log.append({"type": "note", "text": "hi"})
        log.events()[0][1].pop("type")
        log.since(0)[0][1]["text"] = "changed"
        assert log.events() == [(1, {"type": "note", "text": "hi"})]


def test_closed_log_refuses_writes_and_close_is_idempotent(path):
    log = EventLog.create(path, HEADER)
    log.append(roll_event(1))
    log.close()
    log.close()
    assert log.closed
    with pytest.raises(StoreWriteError, match="closed"):
        log.append(roll_event(2))
    with EventLog.open(path) as again:  # the lock was released
        assert again.count == 1


def test_peek_gives_header_and_count_without_loading_events(path, settle, monkeypatch):
    with EventLog.create(path, HEADER) as log:
        log.append_many([roll_event(i) for i in range(1, 8)])
        log.set_header(name="renamed", round=3)
        settle(log)
        log.append(roll_event(8))
        log.meta_set("selected", "c1")
        assert peek(path) == (log.header, 8)  # while the writer holds it, too
        # (it really does not parse the events)
        real = recovery.state_from_snapshot
        monkeypatch.setattr(recovery, "state_from_snapshot", lambda *a: pytest.fail("full load"))
        assert peek(path)[1] == 8
        monkeypatch.setattr(recovery, "state_from_snapshot", real)
    with EventLog.open(path, readonly=True) as log:
        assert (
            peek(path)
            == (log.header, log.count)
            == ({**HEADER, "name": "renamed", "round": 3, "schema": SCHEMA_VERSION}, 8)
        )


def test_peek_falls_back_or_fails_like_open(path):
    _write_v0(path, [roll_event(1), roll_event(2)])
    assert peek(path) == (
        {"name": "Old campaign", "system": "fudge", "created": "2025-01-01T20:00:00", "schema": SCHEMA_VERSION},
        2,
    )
    other = path.with_name("b.gmdesk")
    _session_with_journal(other, 3)
    journal = sidecar_paths(other)["journal"]
    journal.write_bytes(journal.read_bytes() + b'{"n":4,"op":"pu')  # torn: fine
    assert peek(other)[1] == 3
    journal.write_bytes(journal.read_bytes() + b'\n{"n":5}\n')  # garbage in the middle
    with pytest.raises(CorruptSaveError, match="line 5"):
        peek(other)
    with pytest.raises(SessionMissingError):
        peek(path.with_name("nope.gmdesk"))
    raw = json.loads(path.read_text())
    path.write_text(json.dumps({"_gmdesk": {"format": "gmdesk-session", "schema": 7}, **raw}))
    with pytest.raises(FutureVersionError):
        peek(path)


# --------------------------------------------------------------------------- TinyDB underneath


def test_it_is_a_real_tinydb_with_events_and_meta_tables(path):
    with EventLog.create(path, HEADER) as log:
        log.append_many([roll_event(i) for i in range(1, 6)])
        log.meta_set("selected", "c1")
        assert isinstance(log.db, TinyDB)
        assert log.db.tables() >= {"events", "meta"}
        events = log.db.table("events")
        assert len(events) == 5
        hits = events.search(Query().actor == "c1")
        assert [d.doc_id for d in hits] == [1, 5]
        assert events.get(doc_id=3)["summary"] == "Roll #3 — Ælfric hits"
        # TinyDB writes to other tables are journaled too (only the changed documents)
        meta = log.db.table("meta")
        meta.update({"value": "c9"}, Query().key == "selected")
        meta.insert({"key": "zoom", "value": 2})
        assert log.meta_get("selected") == "c9"
        # ...but the event log is append-only
        with pytest.raises(ValueError, match="append-only"):
            events.remove(doc_ids=[1])
        with pytest.raises(ValueError, match="append-only"):
            log.db.drop_table("events")
        log.db.drop_table("meta")  # whole-database rewrite: a compaction
        assert log.meta_get("selected") is None
    with EventLog.open(path) as log:
        assert log.count == 5 and log.meta_get("zoom") is None


def test_insert_appends_one_line_and_never_rebuilds_the_table(path, monkeypatch):
    with EventLog.create(path, HEADER, compact_at=10**6) as log:
        log.append_many([roll_event(i) for i in range(2000)])
        rebuilt = []
        monkeypatch.setattr(tinydb_adapter.Table, "_update_table", lambda *a: rebuilt.append(a))
        monkeypatch.setattr(tinydb_adapter.JournalTable, "_update_table", lambda *a: rebuilt.append(a))
        journal = sidecar_paths(path)["journal"]
        size = journal.stat().st_size
        doc = roll_event(7)
        log.append(doc)
        grown = journal.stat().st_size - size
        assert grown < len(json.dumps(doc, ensure_ascii=False)) + 80  # one line, not the history
        assert rebuilt == []


# --------------------------------------------------------------------------- one writer


def test_second_writer_is_refused_naming_pid_and_host(path):
    with EventLog.create(path, HEADER) as log:
        log.append(roll_event(1))
        with pytest.raises(LockedError) as err:
            EventLog.open(path)
        msg = str(err.value)
        assert f"pid {os.getpid()} on {socket.gethostname()}" in msg and "is open in gmdesk" in msg
        assert "since 20" in msg and "\n" not in msg
        assert err.value.pid == os.getpid()
        # a refused writer changed nothing
        assert log.append(roll_event(2)) == 2


HOLDER = """
import sys, time
from gmdesk.core.session.storage import EventLog
log = EventLog.open(sys.argv[1])
print("ready", flush=True)
time.sleep(60)
"""


def test_lock_is_taken_over_after_the_holder_is_killed(path):
    with EventLog.create(path, HEADER) as log:
        log.append(roll_event(1))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        with pytest.raises(LockedError) as err:
            EventLog.open(path)
        assert f"pid {proc.pid}" in str(err.value)
        assert err.value.pid == proc.pid
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    with EventLog.open(path) as log:
        assert log.count == 1
        assert log.append(roll_event(2)) == 2


def test_readonly_open_while_a_writer_holds_the_lock_never_writes(path):
    with EventLog.create(path, HEADER) as writer:
        writer.append_many([roll_event(i) for i in range(1, 4)])
        before = files_snapshot(path)
        stats = {f: os.stat(f).st_mtime_ns for f in session_files(path)}
        with EventLog.open(path, readonly=True) as reader:
            assert reader.count == 3 and reader.readonly
            with pytest.raises(StoreWriteError, match="read-only"):
                reader.append(roll_event(9))
            with pytest.raises(StoreWriteError, match="read-only"):
                reader.meta_set("x", 1)
            with pytest.raises(StoreWriteError, match="read-only"):
                reader.compact()
            assert reader.refresh() is False
        assert files_snapshot(path) == before
        assert {f: os.stat(f).st_mtime_ns for f in session_files(path)} == stats
        # the writer is still the writer
        assert writer.append(roll_event(4)) == 4


def test_reader_follows_the_writer_across_compactions(path):
    with EventLog.create(path, HEADER, compact_at=10**6) as writer:
        writer.append_many([roll_event(i) for i in range(1, 6)])
        with EventLog.open(path, readonly=True) as reader:
            assert reader.since(5) == []
            writer.append(roll_event(6))
            writer.meta_set("selected", "c2")
            assert [s for s, _ in reader.since(5)] == [6]
            assert reader.meta_get("selected") == "c2"
            writer.compact()
            writer.append(roll_event(7))
            writer.compact()
            writer.append(roll_event(8))
            writer.set_header(name="renamed")
            got = reader.since(6)
            assert got == [(7, roll_event(7)), (8, roll_event(8))]
            assert reader.header["name"] == "renamed"
            assert reader.events() == writer.events()
            assert reader.refresh() is False


# --------------------------------------------------------------------------- damaged files


def _session_with_journal(path: Path, n: int = 3) -> None:
    log = EventLog.create(path, HEADER, compact_on_close=False)
    for i in range(1, n + 1):
        log.append(roll_event(i))
    log.close()


def test_torn_last_line_is_dropped_and_reported(path):
    _session_with_journal(path)
    journal = sidecar_paths(path)["journal"]
    good = journal.read_bytes()
    line = f'{{"n":4,"op":"put","tb":"events","id":4,"doc":{json.dumps(roll_event(4))}}}\n'.encode()
    journal.write_bytes(good + line[: len(line) // 2])
    torn = journal.read_bytes()
    with EventLog.open(path, readonly=True) as reader:
        assert reader.count == 3
        assert len(reader.warnings) == 1 and "incomplete last record" in reader.warnings[0]
        assert journal.name in reader.warnings[0]
    assert journal.read_bytes() == torn  # readers never write
    with EventLog.open(path) as log:
        assert log.count == 3 and "incomplete last record" in log.warnings[0]
        assert journal.read_bytes() == good  # the writer cut it off...
        assert log.append(roll_event(4)) == 4  # ...and goes on from there
    with EventLog.open(path) as log:
        assert log.warnings == [] and log.count == 4 and log.events()[-1] == (4, roll_event(4))


def test_garbage_in_the_middle_of_the_journal_names_file_and_line(path):
    _session_with_journal(path, 3)
    journal = sidecar_paths(path)["journal"]
    lines = journal.read_bytes().split(b"\n")
    lines.insert(2, b'{"n":2,"op":"put","tb":"ev')  # line 3 of the file
    journal.write_bytes(b"\n".join(lines))
    before = files_snapshot(path)
    for readonly in (True, False):
        with pytest.raises(CorruptSaveError) as err:
            EventLog.open(path, readonly=readonly)
        msg = str(err.value)
        assert str(journal) in msg and "line 3" in msg and "not valid JSON" in msg and "\n" not in msg
        assert err.value.path == journal and err.value.record.startswith("line 3")
        assert files_snapshot(path) == before
    # the failed writer released its lock: the next attempt says the same, not "locked"
    with pytest.raises(CorruptSaveError):
        EventLog.open(path)


def test_journal_records_out_of_order_are_corruption(path):
    _session_with_journal(path, 3)
    journal = sidecar_paths(path)["journal"]
    lines = journal.read_bytes().split(b"\n")
    lines[2], lines[3] = lines[3], lines[2]
    journal.write_bytes(b"\n".join(lines))
    with pytest.raises(CorruptSaveError, match=r"line 3 \(journal record 3\): out of order"):
        EventLog.open(path)


@pytest.mark.parametrize(
    "content, record, problem",
    [
        (b"\x00\x01garbage", "line 1 column 1", "not valid JSON"),
        (b"", "whole file", "empty"),
        (b"[1, 2, 3]", "whole file", "not a JSON object"),
        (b'{"characters": []}', "whole file", "not a gmdesk session"),
        (b'{"_gmdesk": {"format": "gmdesk-session", "schema": "one", "lsn": 0}}', "record '_gmdesk'", "schema must be"),
        (b'{"_gmdesk": {"format": "something-else", "schema": 1}}', "record '_gmdesk'", "not a gmdesk session"),
        (
            b'{"_gmdesk": {"format": "gmdesk-session", "schema": 1, "lsn": 0, "header": {}},'
            b' "events": {"1": {}, "3": {}}}',
            "events seq 2",
            "missing",
        ),
        (
            b'{"_gmdesk": {"format": "gmdesk-session", "schema": 1, "lsn": 0, "header": {}}, "events": {"1": 7}}',
            "table 'events' document 1",
            "not a JSON object",
        ),
    ],
)
def test_unreadable_snapshot_is_a_clear_error_and_left_untouched(path, content, record, problem):
    _session_with_journal(path, 2)
    path.write_bytes(content)
    before = files_snapshot(path)
    for readonly in (True, False):
        with pytest.raises(CorruptSaveError) as err:
            EventLog.open(path, readonly=readonly)
        assert err.value.path == path and err.value.record == record and problem in err.value.problem
        assert str(path) in str(err.value) and "\n" not in str(err.value)
        assert files_snapshot(path) == before


def test_future_version_is_refused_and_left_untouched(path):
    _session_with_journal(path, 2)
    raw = json.loads(path.read_text())
    raw["_gmdesk"]["schema"] = SCHEMA_VERSION + 1
    path.write_text(json.dumps(raw))
    before = files_snapshot(path)
    for readonly in (True, False):
        with pytest.raises(FutureVersionError) as err:
            EventLog.open(path, readonly=readonly)
        assert f"v{SCHEMA_VERSION + 1}" in str(err.value) and "newer gmdesk" in str(err.value)
        assert str(path) in str(err.value)
        assert files_snapshot(path) == before


def test_future_journal_format_is_refused(path):
    _session_with_journal(path, 2)
    journal = sidecar_paths(path)["journal"]
    lines = journal.read_bytes().split(b"\n")
    lines[0] = b'{"gmdesk_journal":9,"base":0}'
    journal.write_bytes(b"\n".join(lines))
    with pytest.raises(FutureVersionError, match="journal format v9"):
        EventLog.open(path)


def test_a_read_error_is_never_taken_for_an_empty_session(path, monkeypatch):
    _session_with_journal(path, 2)
    real_open = os.open
    for victim in (path, sidecar_paths(path)["journal"]):

        def failing_open(p, *a, _victim=victim, **kw):
            if Path(p) == _victim:
                raise OSError(errno.EIO, "Input/output error", str(p))
            return real_open(p, *a, **kw)

        monkeypatch.setattr(os, "open", failing_open)
        for readonly in (True, False):
            with pytest.raises(StoreReadError) as err:
                EventLog.open(path, readonly=readonly)
            assert str(victim) in str(err.value) and "Input/output error" in str(err.value)
        monkeypatch.setattr(os, "open", real_open)
    with EventLog.open(path) as log:
        assert log.count == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_permissions_are_a_read_error(path):
    _session_with_journal(path, 2)
    path.chmod(0)
    try:
        with pytest.raises(StoreReadError, match="Permission denied"):
            EventLog.open(path, readonly=True)
    finally:
        path.chmod(0o600)


def test_missing_journal_is_reported_and_a_new_one_started(path):
    with EventLog.create(path, HEADER) as log:
        log.append_many([roll_event(i) for i in range(1, 4)])
    sidecar_paths(path)["journal"].unlink()
    with EventLog.open(path) as log:
        assert log.count == 3 and "missing" in log.warnings[0]
        assert log.append(roll_event(4)) == 4
    with EventLog.open(path) as log:
        assert log.count == 4 and log.warnings == []


def test_leftover_temp_files_are_removed_by_the_next_writer(path):
    _session_with_journal(path, 2)
    paths = sidecar_paths(path)
    paths["snapshot_tmp"].write_bytes(b'{"half a snap')
    paths["journal_tmp"].write_bytes(b'{"gmdesk_jou')
    with EventLog.open(path, readonly=True) as log:
        assert log.count == 2
    assert paths["snapshot_tmp"].exists()  # readers never write
    with EventLog.open(path) as log:
        assert log.count == 2
    assert not paths["snapshot_tmp"].exists() and not paths["journal_tmp"].exists()


# --------------------------------------------------------------------------- schema migration


def _write_v0(path: Path, events: list[dict]) -> None:
    """A session as a plain stock-TinyDB JSON file (format v0)."""
    db = TinyDB(path)
    db.table("header").insert({"name": "Old campaign", "system": "fudge", "created": "2025-01-01T20:00:00"})
    db.table("events").insert_multiple(events)
    db.table("meta").insert({"key": "selected", "value": "c1"})
    db.close()


def test_older_format_is_upgraded_after_writing_a_backup(path):
    events = [roll_event(i) for i in range(1, 6)]
    _write_v0(path, events)
    original = path.read_bytes()
    with EventLog.open(path, readonly=True) as log:  # readers upgrade in memory only
        assert log.count == 5 and "format v0" in log.warnings[0]
    assert path.read_bytes() == original and not path.with_name(path.name + ".v0.bak").exists()
    with EventLog.open(path) as log:
        backup = path.with_name(path.name + ".v0.bak")
        assert backup.read_bytes() == original
        assert (backup.stat().st_mode & 0o777) == 0o600
        assert "upgraded" in log.warnings[0] and backup.name in log.warnings[0]
        assert log.header == {
            "name": "Old campaign",
            "system": "fudge",
            "created": "2025-01-01T20:00:00",
            "schema": SCHEMA_VERSION,
        }
        assert log.events() == list(zip(range(1, 6), events, strict=False))
        assert log.meta_get("selected") == "c1"
        assert log.append(roll_event(6)) == 6
    assert json.loads(path.read_text())["_gmdesk"]["schema"] == SCHEMA_VERSION
    with EventLog.open(path) as log:
        assert log.warnings == [] and log.count == 6


def test_upgrade_never_overwrites_an_earlier_backup(path):
    _write_v0(path, [roll_event(1)])
    old_backup = path.with_name(path.name + ".v0.bak")
    old_backup.write_bytes(b"an older, different backup")
    with EventLog.open(path) as log:
        assert log.count == 1
    assert old_backup.read_bytes() == b"an older, different backup"
    assert path.with_name(path.name + ".v0.1.bak").exists()


def test_migration_table_covers_every_older_version():
    assert set(migrations.MIGRATIONS) == set(range(SCHEMA_VERSION))


# --------------------------------------------------------------------------- write failures


def test_full_disk_leaves_acknowledged_state_intact(path, monkeypatch):
    log = EventLog.create(path, HEADER)
    log.append_many([roll_event(i) for i in range(1, 4)])
    journal = sidecar_paths(path)["journal"]
    size = journal.stat().st_size
    real_write = os.write

    def half_then_enospc(fd, data):
        if len(data) > 20:
            real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_enospc)
    with pytest.raises(StoreWriteError) as err:
        log.append(roll_event(4))
    msg = str(err.value)
    assert "No space left on device" in msg and str(journal) in msg and "\n" not in msg
    with pytest.raises(StoreWriteError):
        log.meta_set("selected", "c2")
    monkeypatch.setattr(os, "write", real_write)
    assert journal.stat().st_size == size  # the half line was cut back off
    assert log.count == 3 and log.meta_get("selected") is None
    assert log.append(roll_event(4)) == 4  # space is back: carry on
    log.close()
    with EventLog.open(path) as again:
        assert again.events() == [(i, roll_event(i)) for i in range(1, 5)] and again.warnings == []


def test_failed_fsync_is_not_acknowledged(path, monkeypatch):
    log = EventLog.create(path, HEADER)
    log.append(roll_event(1))
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.EIO, "Input/output error")))
    with pytest.raises(StoreWriteError, match="Input/output error"):
        log.append(roll_event(2))
    monkeypatch.undo()
    assert log.count == 1
    log.close()
    with EventLog.open(path) as again:
        assert again.count == 1


def test_write_that_cannot_be_cut_back_is_dropped_on_load(path, monkeypatch):
    log = EventLog.create(path, HEADER, compact_on_close=False)
    log.append(roll_event(1))
    real_write = os.write

    def half_then_fail(fd, data):
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "write", half_then_fail)
    monkeypatch.setattr(os, "ftruncate", lambda fd, n: (_ for _ in ()).throw(OSError(errno.EIO, "Input/output error")))
    with pytest.raises(StoreWriteError):
        log.append(roll_event(2))
    monkeypatch.undo()
    with pytest.raises(StoreWriteError, match="reopen"):  # no appending after a torn line
        log.append(roll_event(3))
    log.close()
    with EventLog.open(path) as again:
        assert again.count == 1 and "incomplete last record" in again.warnings[0]
        assert again.append(roll_event(2)) == 2


FSIZE_SCRIPT = """
import json, os, resource, signal, sys
from gmdesk.core.session.storage import EventLog, StoreWriteError, sidecar_paths
path = sys.argv[1]
log = EventLog.create(path, {"name": "limits"}, compact_on_close=False)
acked = [log.append({"type": "note", "text": "x" * 200, "i": i}) for i in range(20)]
journal = sidecar_paths(path)["journal"]
size = os.path.getsize(journal)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 400, hard))
out = {}
try:
    log.append({"type": "note", "text": "y" * 2000})
except StoreWriteError as e:
    out["append_error"] = str(e)
out["size_after"] = os.path.getsize(journal) == size
acked.append(log.append({"type": "note", "text": "small", "i": 99}))  # fits under the limit
resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, hard))
try:
    log.compact()  # the snapshot exceeds the limit
except StoreWriteError as e:
    out["compact_error"] = str(e)
out["tmp_left"] = os.path.exists(sidecar_paths(path)["snapshot_tmp"])
out["acked"] = acked
log._storage.abandon()
print(json.dumps(out))
"""


def test_file_size_limit_write_failure_leaves_state_intact(path):
    done = run_py(FSIZE_SCRIPT, str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert "File too large" in out["append_error"] and "\n" not in out["append_error"]
    assert out["size_after"] is True
    assert "File too large" in out["compact_error"]
    assert out["tmp_left"] is False
    with EventLog.open(path) as log:
        assert log.warnings == []
        assert [s for s, _ in log.events()] == out["acked"] == list(range(1, 22))
        assert log.events()[-1][1]["text"] == "small"


# --------------------------------------------------------------------------- file modes


def test_every_session_file_is_private(path):
    old = os.umask(0)  # prove the store does not rely on the umask
    try:
        with EventLog.create(path, HEADER, compact_at=3) as log:
            log.append_many([roll_event(i) for i in range(5)])
            log.compact()
            names = {f.name for f in session_files(path)}
            assert names == {path.name, path.name + ".journal", path.name + ".lock"}
            for f in session_files(path):
                assert (f.stat().st_mode & 0o777) == 0o600, f
        _write_v0(path.with_name("old.gmdesk"), [roll_event(1)])
        with EventLog.open(path.with_name("old.gmdesk")):
            pass
        for f in session_files(path.with_name("old.gmdesk")):
            assert (f.stat().st_mode & 0o777) == 0o600, f
    finally:
        os.umask(old)


# --------------------------------------------------------------------------- compaction


def test_journal_is_compacted_automatically(path):
    with EventLog.create(path, HEADER, compact_at=10) as log:
        for i in range(1, 10):
            log.append(roll_event(i))
        assert log.journal_lines == 9
        log.append(roll_event(10))
        assert log.journal_lines == 0
        snap = json.loads(path.read_text())
        assert snap["_gmdesk"]["lsn"] == 10 and len(snap["events"]) == 10
    assert COMPACT_AT == 5000


def test_reopening_with_a_long_journal_compacts(path):
    log = EventLog.create(path, HEADER, compact_on_close=False, compact_at=10**6)
    log.append_many([roll_event(i) for i in range(30)])
    log.close()
    with EventLog.open(path, compact_at=20, compact_on_close=False) as log:
        assert log.journal_lines == 0 and log.count == 30


class SimulatedCrash(BaseException):
    """The process 'dies' here: nothing after this reaches the disk."""


STEPS = ("write", "fsync", "replace", "link", "unlink", "ftruncate", "pwrite")


def _crash_at(monkeypatch, k: int) -> list[str]:
    """Make the k-th disk-changing call (and every one after it) kill the process."""
    calls: list[str] = []
    for name in STEPS:
        real = getattr(os, name)

        def step(*a, _real=real, _name=name, **kw):
            calls.append(_name)
            if len(calls) > k:
                raise SimulatedCrash(_name)
            return _real(*a, **kw)

        monkeypatch.setattr(os, name, step)
    return calls


def _check_recovered(path: Path, n_events: int, meta: str) -> None:
    with EventLog.open(path, readonly=True) as reader:
        assert reader.count == n_events
    with EventLog.open(path) as log:
        assert log.events() == [(i, roll_event(i)) for i in range(1, n_events + 1)]
        assert log.meta_get("selected") == meta
        assert log.header["name"] == "renamed"
        assert log.append(roll_event(n_events + 1)) == n_events + 1
    with EventLog.open(path) as log:
        assert log.count == n_events + 1


@pytest.mark.slow
def test_a_crash_at_any_step_of_compaction_loses_nothing(tmp_path, monkeypatch):
    """Kill the writer before each disk-changing step of a compaction in turn."""
    k = 0
    while True:
        path = tmp_path / f"c{k}.gmdesk"
        log = EventLog.create(path, HEADER, compact_at=10**6)
        log.append_many([roll_event(i) for i in range(1, 6)])
        log.compact()
        log.append_many([roll_event(i) for i in range(6, 9)])
        log.meta_set("selected", "c3")
        log.set_header(name="renamed")
        _crash_at(monkeypatch, k)
        try:
            log.compact()
            finished = True
        except SimulatedCrash:
            finished = False
        monkeypatch.undo()
        log._storage.abandon()
        _check_recovered(path, 8, "c3")
        if finished:
            break
        k += 1
    assert k >= 8  # snapshot write, fsync, rename, dir fsync, journal write, fsync, rename, dir fsync


def test_a_crash_at_any_step_of_an_append_loses_nothing_acknowledged(tmp_path, monkeypatch):
    k = 0
    while True:
        path = tmp_path / f"a{k}.gmdesk"
        log = EventLog.create(path, HEADER)
        log.append_many([roll_event(i) for i in range(1, 4)])
        log.meta_set("selected", "c1")
        log.set_header(name="renamed")
        _crash_at(monkeypatch, k)
        try:
            log.append(roll_event(4))
            finished = True
        except SimulatedCrash:
            finished = False
        monkeypatch.undo()
        log._storage.abandon()
        with EventLog.open(path) as again:
            # 4 may or may not have reached the disk (it was not acknowledged), 1..3 must
            assert again.events()[:3] == [(i, roll_event(i)) for i in range(1, 4)]
            assert again.count in (3, 4) and (again.count == 4) >= finished
            if again.count == 4:
                assert again.events()[3] == (4, roll_event(4))
        if finished:
            break
        k += 1


def test_torn_write_during_an_append_is_dropped(path, monkeypatch):
    log = EventLog.create(path, HEADER)
    log.append_many([roll_event(i) for i in range(1, 3)])
    real_write = os.write

    def torn(fd, data):
        real_write(fd, bytes(data[: len(data) // 3]))
        raise SimulatedCrash("write")

    monkeypatch.setattr(os, "write", torn)
    with pytest.raises(SimulatedCrash):
        log.append(roll_event(3))
    monkeypatch.undo()
    # the interrupted append was taken back (cut off the journal), so the writer goes on
    assert log.count == 2 and log.append(roll_event(3)) == 3
    log._storage.abandon()
    with EventLog.open(path) as again:
        assert again.count == 3 and again.warnings == []
    # a torn record left by a real crash (no handler runs) is dropped and said
    jpath = sidecar_paths(path)["journal"]
    with open(jpath, "ab") as f:
        f.write(b'{"n":99,"op":"put","tb":"ev')
    with EventLog.open(path) as again:
        assert again.count == 3 and len(again.warnings) == 1
        assert again.append(roll_event(4)) == 4


# --------------------------------------------------------------------------- readers during compaction


@pytest.mark.slow
def test_reader_thread_sees_a_consistent_log_while_the_writer_compacts(path):
    total = 300
    errors: list[BaseException] = []
    seen = {"reloads": 0, "opens": 0}
    done = threading.Event()

    with EventLog.create(path, HEADER, compact_at=9) as writer:

        def follow() -> None:
            try:
                with EventLog.open(path, readonly=True) as reader:
                    last = 0
                    while last < total:
                        for seq, doc in reader.since(last):
                            assert seq == last + 1 and doc == roll_event(seq)
                            last = seq
                    seen["reloads"] = reader._storage.stats["loads"]
                    seen["retries"] = reader._storage.stats["retries"]
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)

        def reopen() -> None:
            try:
                while not done.is_set():
                    with EventLog.open(path, readonly=True) as r:
                        evs = r.events()
                        assert [s for s, _ in evs] == list(range(1, len(evs) + 1))
                        assert all(doc == roll_event(s) for s, doc in evs[-3:])
                        seen["opens"] += 1
            except BaseException as e:  # pragma: no cover
                errors.append(e)

        threads = [threading.Thread(target=follow), threading.Thread(target=reopen)]
        for t in threads:
            t.start()
        for i in range(1, total + 1):
            writer.append(roll_event(i))
            if i % 25 == 0:
                writer.compact()
        threads[0].join(timeout=60)
        done.set()
        threads[1].join(timeout=60)
    assert not errors, errors[0]
    assert seen["opens"] > 0
    assert seen["reloads"] > 1  # the follower had to reload after compactions


READER = """
import json, sys, time
from gmdesk.core.session.storage import EventLog
path, total = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 60
opens = retries = 0
with EventLog.open(path, readonly=True) as reader:
    print("ready", flush=True)
    last = 0
    while last < total:
        assert time.monotonic() < deadline, f"reader stuck at {last}"
        for seq, doc in reader.since(last):
            assert seq == last + 1, (seq, last)
            assert doc["i"] == seq and doc["pad"] == "p" * (seq % 97), seq
            last = seq
        with EventLog.open(path, readonly=True) as r:   # a fresh, full load every round
            evs = r.events()
            assert [s for s, _ in evs] == list(range(1, len(evs) + 1))
            assert all(d["i"] == s for s, d in evs)
            opens += 1
            retries += r._storage.stats["retries"]
    reloads = reader._storage.stats["loads"]
    retries += reader._storage.stats["retries"]
print(json.dumps({"last": last, "opens": opens, "reloads": reloads, "retries": retries}))
"""


@pytest.mark.slow
def test_reader_process_sees_a_consistent_log_while_the_writer_compacts(path):
    total = 600
    with EventLog.create(path, HEADER, compact_at=7) as writer:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        proc = subprocess.Popen(
            [sys.executable, "-c", READER, str(path), str(total)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout.readline().strip() == "ready"
            for i in range(1, total + 1):
                writer.append({"type": "note", "i": i, "pad": "p" * (i % 97)})
                if i % 40 == 0:
                    writer.compact()
                time.sleep(0.001)  # a GM is slower than this: let the reader keep up
            out = proc.stdout.read()  # (not communicate(): it would skip what readline buffered)
            err = proc.stderr.read()
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
    assert proc.returncode == 0, err
    got = json.loads(out)
    assert got["last"] == total and got["opens"] > 5 and got["reloads"] > 1
    print("reader process:", got)


# --------------------------------------------------------------------------- any sequence of changes


ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 500)),
        st.tuples(st.just("many"), st.lists(st.integers(1, 500), max_size=4)),
        st.tuples(
            st.just("meta"),
            st.sampled_from(["selected", "tab", "zoom"]),
            st.one_of(st.none(), st.integers(), st.text(max_size=8)),
        ),
        st.tuples(st.just("header"), st.text(max_size=10)),
        st.tuples(st.just("compact")),
        st.tuples(st.just("reopen")),
    ),
    max_size=25,
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(ops=ops)
def test_any_sequence_of_changes_reloads_exactly(tmp_path_factory, ops):
    path = tmp_path_factory.mktemp("prop") / "p.gmdesk"
    events: list[dict] = []
    meta: dict = {}
    name = "start"
    log = EventLog.create(path, {"name": name}, compact_at=6)
    try:
        for op in ops:
            if op[0] == "append":
                events.append(roll_event(op[1]))
                assert log.append(events[-1]) == len(events)
            elif op[0] == "many":
                docs = [roll_event(i) for i in op[1]]
                assert log.append_many(docs) == list(range(len(events) + 1, len(events) + len(docs) + 1))
                events += docs
            elif op[0] == "meta":
                log.meta_set(op[1], op[2])
                meta[op[1]] = op[2]
            elif op[0] == "header":
                log.set_header(name=op[1])
                name = op[1]
            elif op[0] == "compact":
                log.compact()
            else:
                log.close()
                log = EventLog.open(path, compact_at=6)
            assert log.count == len(events)
    finally:
        log.close()
    for readonly in (True, False):
        with EventLog.open(path, readonly=readonly) as again:
            assert again.events() == list(zip(range(1, len(events) + 1), events, strict=False))
            assert {k: again.meta_get(k) for k in meta} == meta
            assert again.header["name"] == name
            assert again.warnings == []
