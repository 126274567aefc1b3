"""A long session's events stay on disk: an open reads the snapshot's first line and
what follows its events, each event is read (and its block checked) when asked for,
a compaction copies the old events from the old file block by block, and the writer
keeps where its new events lie in the journal, not their texts. Damage is found
when read, by every compaction and by ``gmdesk check`` — never copied under a new
checksum — and a kill at any point, mid-compaction included, loses nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gmdesk.core.session.repair import check
from gmdesk.core.session.storage import (
    BLOCK_EVENTS,
    CorruptSaveError,
    EventLog,
    StoreWriteError,
    session_files,
    sidecar_paths,
    snapshot_open,
)
from gmdesk.core.session.storage.region import SnapshotFile

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def long_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every snapshot counts as long (the threshold is megabytes; the tests stay small)."""
    monkeypatch.setattr(snapshot_open, "EAGER_CHECK_BYTES", 0)


def _note(i: int) -> dict:
    return {"type": "note", "i": i, "text": f"n{i:05d}" + "é" * (i % 5)}


def _long(path: Path, n: int) -> None:
    with EventLog.create(path, {"name": "long"}, compact_at=10**6) as log:
        log.append_many([_note(i) for i in range(1, n + 1)])


def test_a_long_snapshot_opens_without_reading_its_events(tmp_path, long_snapshots):
    path = tmp_path / "s.gmdesk"
    n = 3 * BLOCK_EVENTS + 7
    _long(path, n)
    with EventLog.open(path, readonly=True) as log:
        table = log._storage.events
        assert isinstance(table._src, SnapshotFile)  # the events were not read into memory
        assert table._nl is None and not any(table._checked)
        assert log.event(n) == _note(n)  # the newest: found from the end, its block checked
        assert list(table._checked) == [0, 0, 0, 1] and table._nl is None
        record = json.loads(path.read_bytes().split(b"\n", 1)[0][len(b'{"_gmdesk":') : -1])
        assert log.digest(n) == record["events_sha256"]  # the record's: nothing read again
        assert table._nl is None
        assert log.events() == [(i, _note(i)) for i in range(1, n + 1)]
        assert all(table._checked)


def test_damage_in_a_long_snapshot_is_reported_when_read_by_check_and_never_recertified(tmp_path, long_snapshots):
    path = tmp_path / "s.gmdesk"
    n = 3 * BLOCK_EVENTS
    _long(path, n)
    raw = path.read_bytes()
    target = f'"text":"n{BLOCK_EVENTS + 7:05d}'.encode()
    edited = raw.replace(target, target[:-1] + b"8")  # same length, one digit changed
    assert edited != raw
    path.write_bytes(edited)
    with EventLog.open(path, readonly=True) as log:
        assert log.event(1) == _note(1) and log.event(n) == _note(n)  # blocks untouched read fine
        with pytest.raises(CorruptSaveError) as err:
            log.event(BLOCK_EVENTS + 1)
        assert f"events #{BLOCK_EVENTS + 1}–#{2 * BLOCK_EVENTS}" in str(err.value)
        assert "checksum" in str(err.value)
    report = check(path)
    assert not report.ok and any(f"#{BLOCK_EVENTS + 1}–#{2 * BLOCK_EVENTS}" in p for p in report.problems)
    # a writer may still save (into the journal), but its compaction refuses to copy
    # the damaged events under a new checksum, and says so
    with EventLog.open(path) as log:
        log.append(_note(n + 1))
        with pytest.raises(StoreWriteError, match="changed since gmdesk saved them"):
            log.compact()
    assert any("could not compact" in w for w in log.warnings)
    assert path.read_bytes() == edited  # never rewritten
    path.write_bytes(raw)  # put right (a backup): nothing saved meanwhile was lost
    with EventLog.open(path, readonly=True) as log:
        assert log.count == n + 1 and log.event(n + 1) == _note(n + 1)
        log.verify()


def test_a_long_snapshot_cut_short_or_grown_is_refused_at_open(tmp_path, long_snapshots):
    path = tmp_path / "s.gmdesk"
    _long(path, 2 * BLOCK_EVENTS)
    raw = path.read_bytes()
    for edited in (raw[: len(raw) // 2], raw.replace(b'"text":"n00700', b'"text":"n000700')):
        path.write_bytes(edited)
        for readonly in (True, False):
            with pytest.raises(CorruptSaveError):
                EventLog.open(path, readonly=readonly)
        assert not check(path).ok
        assert path.read_bytes() == edited


def test_the_writer_keeps_where_its_events_lie_not_their_texts(tmp_path, long_snapshots):
    path = tmp_path / "s.gmdesk"
    _long(path, BLOCK_EVENTS + 3)
    n = BLOCK_EVENTS + 3
    with EventLog.open(path, compact_at=10**6) as log:
        table = log._storage.events
        before = [log.digest(k) for k in (0, 1, n)]
        for i in range(n + 1, n + 301):
            log.append(_note(i))
        assert all(type(t) is int for t in table._texts)  # places in the journal, no texts
        assert log.event(n + 300) == _note(n + 300) and log.event(n + 1) == _note(n + 1)
        last = log.digest()
        log.compact()  # copied from the old snapshot and the journal, block by block
        assert isinstance(table._src, SnapshotFile) and table._texts == []
        assert [log.digest(k) for k in (0, 1, n)] == before and log.digest() == last
        log.append(_note(n + 301))
    with EventLog.open(path, readonly=True) as log:
        assert log.events() == [(i, _note(i)) for i in range(1, n + 302)]
        log.verify()


KILLED_MID_COMPACTION = """
import sys, time
from gmdesk.core.session.storage import EventLog
from gmdesk.core.session.storage import snapshot_open as opening, table
opening.EAGER_CHECK_BYTES = 0
path, n = sys.argv[1], int(sys.argv[2])
real = table.RegionWriter.block
def slow(self, *a, **k):
    real(self, *a, **k)
    print("copying", flush=True)
    time.sleep(0.2)
table.RegionWriter.block = slow
log = EventLog.open(path, compact_at=10**6)
for i in range(n + 1, n + 41):
    log.append({"type": "note", "i": i, "text": "late"})
    print("saved", i, flush=True)
log.compact()
print("compacted", flush=True)
"""


def test_a_kill_in_the_middle_of_a_compaction_loses_nothing(tmp_path, long_snapshots):
    path = tmp_path / "s.gmdesk"
    n = 4 * BLOCK_EVENTS
    _long(path, n)
    before = path.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_MID_COMPACTION, str(path), str(n)],
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    saved = 0
    try:
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, b""):
            if line.startswith(b"saved"):
                saved = int(line.split()[1])
            if line.startswith(b"copying"):
                break
        time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:  # pragma: no cover
            proc.kill()
            proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    assert saved == n + 40
    assert path.read_bytes() == before  # the snapshot under its name was never touched
    assert sidecar_paths(path)["snapshot_tmp"].exists()  # the copy it was making
    with EventLog.open(path) as log:  # the next writer: everything acknowledged, the temp file gone
        assert not sidecar_paths(path)["snapshot_tmp"].exists()
        assert log.count == n + 40 and log.event(n + 40)["i"] == n + 40
    with EventLog.open(path, readonly=True) as log:
        assert [d["i"] for _, d in log.events()] == list(range(1, n + 41))
        log.verify()
    assert {p.name for p in session_files(path)} <= {path.name, path.name + ".journal", path.name + ".lock"}


def test_a_long_session_opens_and_closes_from_its_checkpoint_without_hashing_its_history(
    tmp_path, long_snapshots, monkeypatch
):
    """The checkpoint fits the log when its digest of the events is the snapshot's:
    an open compares the two without reading the events, and a close compacts
    first, so the digest it saves is the one the new snapshot records."""
    from gmdesk.core.dice import FixedDice
    from gmdesk.core.session import Session
    from gmdesk.core.session.storage.table import EventTable
    from gmdesk.core.systems import get_system

    four_d_two = get_system("4d2")
    path = tmp_path / "long.gmdesk"
    rng = FixedDice([5, 5, 1, 1] * 100)
    with Session.create(path, "Long night", "4d2") as s:
        for _ in range(60):
            s.roll("4d2", four_d_two.Params(), rng=rng)

    def whole_history_read(self: EventTable) -> None:
        raise AssertionError("the whole history was hashed")

    monkeypatch.setattr(EventTable, "_region_hash", whole_history_read)
    with Session.open(path) as s:
        assert s._ckpt_seq == len(s.events)  # the checkpoint was used
        for _ in range(5):
            s.roll("4d2", four_d_two.Params(), rng=rng)
        n = len(s.events)
    with Session.open(path, readonly=True) as s:
        assert s._ckpt_seq == n == len(s.events) and len(s.state.rolls) == 65
