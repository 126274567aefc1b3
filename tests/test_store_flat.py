"""A long run of rolls into a session costs the same at every roll: one fsync a
roll, and what the writer keeps in memory does not grow with the history."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.core.session.storage import EventLog
from gmdesk.core.systems import get_system

FOUR_D_TWO = get_system("4d2")


def _fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_each_roll_costs_one_fsync_and_the_header_keeps_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every roll changes the roll count the session list shows: it is saved with the
    roll, in the same write and the same fsync (before: a second fsync a roll)."""
    path = tmp_path / "night.gmdesk"
    with Session.create(path, "Night", "4d2") as s:
        calls = _fsyncs(monkeypatch)
        for _ in range(40):
            s.roll("4d2", FOUR_D_TWO.Params(), rng=FixedDice([5, 5, 1, 1]))
        assert len(calls) == 40
        log_header = s.header
        assert log_header["rolls"] == 40 and log_header["events"] == 40
        s._log._storage.abandon()  # killed: nothing written at close
    with EventLog.open(path, readonly=True) as log:
        assert log.count == 40
        assert log.header["rolls"] == 40 and log.header["events"] == 40


def test_compaction_io_stays_linear_in_the_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each compaction rewrites the whole snapshot: compacting every ``compact_at``
    lines whatever the history would write ~N²/compact_at bytes in all (here ~100×
    the final snapshot); the journal grows with the snapshot instead, so the total
    stays a small multiple of it — and nothing appended is lost on the way."""
    from gmdesk.core.session.storage import compaction, journal

    written: list[int] = []
    real = journal.JournalEngine.compact

    def counting(self: journal.JournalEngine, tables: object = None) -> None:
        real(self, tables)  # type: ignore[arg-type]
        written.append(self.path.stat().st_size)

    monkeypatch.setattr(journal.JournalEngine, "compact", counting)
    path = tmp_path / "long.gmdesk"
    with EventLog.create(path, {"name": "long"}, compact_at=10, compact_on_close=False) as log:
        for i in range(2000):
            log.append({"type": "note", "text": f"line {i:05d} " + "x" * 40})
        final = path.stat().st_size
        assert log.journal_lines <= 2000 // compaction.COMPACT_GROWTH
    assert len(written) < 60
    assert sum(written) <= (compaction.COMPACT_GROWTH + 3) * final
    with EventLog.open(path, readonly=True) as log:
        assert log.count == 2000
        assert log.event(2000)["text"].startswith("line 01999")


def test_a_writer_does_not_keep_each_roll_it_saved(tmp_path: Path) -> None:
    """What a writer holds in memory grows by far less than a roll's event a roll
    (before: ~10 KB a roll — every event parsed, its payload, its undo, its Event and
    its record kept): old events are read back from the log when asked for, and
    undo, the roll log and the events still answer for them."""
    import gc
    import tracemalloc

    path = tmp_path / "long.gmdesk"
    rng = FixedDice([5, 5, 1, 1] * 3000)
    tracemalloc.start()
    try:
        with Session.create(path, "Long night", "4d2") as s:
            kara = s.apply({"type": "character.add", "character": {"name": "Kara", "vitality": 10}}).data["id"]
            # past what is kept of the newest events (bounded: the undo the fold keeps,
            # the newest Events made), measured at the same point of their cycles
            for _ in range(1199):
                s.roll("4d2", FOUR_D_TWO.Params(), actor=kara, rng=rng)
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(800):
                s.roll("4d2", FOUR_D_TWO.Params(), actor=kara, rng=rng)
            gc.collect()
            grown = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.stop()
            assert grown / 800 < 1500, f"{grown / 800:.0f} bytes a roll"
            # the oldest roll is still there for whoever looks (read back from the log)
            assert s.state.rolls[0].record.to_json() == s.events[1].data["record"]
            assert s.events[1].type == "roll" and len(s.events) == 2000
            # undo reaches past what the fold kept (it reads the log again), and redo
            for _ in range(250):
                assert s.undo() is not None
            assert len(s.state.rolls) == 1999 - 250
            assert s.redo() is not None and len(s.state.rolls) == 1999 - 249
            live = [r.to_json() for r in s.state.rolls]
    finally:
        tracemalloc.stop()
    with Session.open(path, readonly=True) as s:
        assert [r.to_json() for r in s.state.rolls] == live


def test_the_newest_events_are_read_without_indexing_the_whole_history(tmp_path: Path) -> None:
    """An open reads the newest events (the undo it keeps): found from the end of the
    snapshot's events, not by indexing every event before them — and each is exactly
    the event written, on both sides of where that search stops."""
    from gmdesk.core.session.storage.table import TAIL_EVENTS

    path = tmp_path / "long.gmdesk"
    n = TAIL_EVENTS + 500
    with EventLog.create(path, {"name": "long"}, compact_at=10**6) as log:
        log.append_many([{"type": "note", "i": i, "text": "é" * (i % 7)} for i in range(1, n + 1)])
    with EventLog.open(path, readonly=True) as log:
        table = log._storage.events
        for seq in (n, n - 1, n - TAIL_EVENTS + 1):
            assert log.event(seq) == {"type": "note", "i": seq, "text": "é" * (seq % 7)}
        assert table._nl is None  # nothing indexed the whole history
        for seq in (n - TAIL_EVENTS, 1, 2, 700):
            assert log.event(seq) == {"type": "note", "i": seq, "text": "é" * (seq % 7)}
