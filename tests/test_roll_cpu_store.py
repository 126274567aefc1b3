"""What ``gmdesk roll --count N --save`` no longer pays for each roll in the store, with
the same bytes on disk: a compaction lays out the events after the snapshot's region a
batch at a time (the journal read once a run of them, one write a batch), and each
shortcut is pinned to the slow path it stands for."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gmdesk.core.session.storage import BLOCK_EVENTS, EventLog, sidecar_paths
from gmdesk.core.session.storage import table as table_module
from gmdesk.core.session.storage.table import RegionWriter


def _writer_state(w: RegionWriter) -> tuple:
    return (w.length, w.count, w.crc, list(w.crcs), list(w.nl), w.sha.hexdigest())


@settings(max_examples=60)
@given(
    st.integers(1, 3 * BLOCK_EVENTS),
    st.lists(st.binary(max_size=40), max_size=2 * BLOCK_EVENTS + 3),
    st.lists(st.binary(max_size=20), max_size=3),
)
def test_events_laid_out_as_a_batch_are_laid_out_as_one_at_a_time(first, texts, before):
    one, batch = RegionWriter(), RegionWriter()
    # (the writers may hold events already: the batch starts after them)
    for w in (one, batch):
        for i, t in enumerate(before[: first - 1], 1):
            w.event(i, t)
    start = min(first, len(before[: first - 1]) + 1)
    pieces = b"".join(one.event(seq, t) for seq, t in enumerate(texts, start))
    assert batch.events(start, texts) == pieces
    assert _writer_state(batch) == _writer_state(one)
    assert batch.finish() == one.finish()


def _notes(n: int) -> list[dict]:
    return [{"type": "note", "i": i, "text": f"n{i}" + "é" * (i % 3)} for i in range(1, n + 1)]


def test_a_compaction_reads_the_journal_once_a_run_and_writes_what_it_did(tmp_path, monkeypatch):
    """The writer's new events (held as where its journal has them) are read with a few
    reads, not one an event; the snapshot is byte for byte what laying them out one
    at a time writes, and reads back as the events appended."""
    n_old, n_new = BLOCK_EVENTS + 3, 2 * table_module.TAIL_BATCH + BLOCK_EVENTS + 5
    docs = _notes(n_old + n_new)
    snapshots = {}
    for how in ("one at a time", "batched"):
        path = tmp_path / how / "s.gmdesk"
        path.parent.mkdir()
        with EventLog.create(path, {"name": "Docks"}, compact_at=10**6) as log:
            log.append_many(docs[:n_old])
            log.compact()
            for d in docs[n_old:]:
                log.append(d)
            reads = []
            storage = log._storage
            real = storage._read_journal

            def read(offset: int, length: int, real=real, reads=reads) -> bytes:
                reads.append(length)
                return real(offset, length)

            storage.events.reads_journal(read)
            if how == "one at a time":
                monkeypatch.setattr(
                    table_module.EventTable,
                    "_tail_texts",
                    lambda self, first, last: [self.text(s) for s in range(first, last + 1)],
                )
            log.compact()
            monkeypatch.undo()
            if how == "batched":
                assert len(reads) <= -(-n_new // table_module.TAIL_BATCH)
            else:
                assert len(reads) == n_new
        snapshots[how] = path.read_bytes()
        with EventLog.open(path, readonly=True) as again:
            assert [d for _, d in again.events()] == docs
    assert snapshots["batched"] == snapshots["one at a time"]


def test_a_compaction_still_reads_events_the_journal_does_not_hold(tmp_path):
    """A table whose new events are held as texts or documents (a reader's, or one
    rewritten) lays them out as before, among those read from the journal."""
    path = tmp_path / "s.gmdesk"
    docs = _notes(40)
    with EventLog.create(path, {"name": "Docks"}, compact_at=10**6) as log:
        for d in docs[:20]:
            log.append(d)
        events = log._storage.events
        # some of the new events held as their text, one as a parsed document only
        for seq in (3, 4, 11):
            events.set_text(seq, json.dumps(docs[seq - 1], ensure_ascii=False, separators=(",", ":")))
        for d in docs[20:]:
            log.append(d)
        log.compact()
    with EventLog.open(path, readonly=True) as again:
        assert [d for _, d in again.events()] == docs
    assert sidecar_paths(path)["journal"].stat().st_size < 100  # (all of it in the snapshot now)
