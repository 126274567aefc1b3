"""A session's state in memory, as every engine keeps it, and how a reader
(``readonly``) loads it and follows a live writer: reading only the journal bytes
added since its last look, and loading again when the writer compacted or another
program replaced the files. The writer (:class:`core.session.storage.journal.JournalEngine`)
builds on it; loading is :mod:`core.session.storage.recovery`'s."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from gmdesk.core.session.lock import WriterLock
from gmdesk.core.session.storage.errors import CorruptSaveError, SessionMissingError, StoreReadError
from gmdesk.core.session.storage.format import EVENTS_TABLE, JOURNAL_VERSION, META_TABLE, SCHEMA_VERSION, State
from gmdesk.core.session.storage.paths import sidecar_paths
from gmdesk.core.session.storage.recovery import apply_record, journal_record, load
from gmdesk.core.session.storage.region import SnapshotFile
from gmdesk.core.session.storage.table import EventTable

__all__ = ["ReaderEngine"]


class ReaderEngine:
    """One session's state in memory and the names of its files; a reader's
    :meth:`refresh`. Opened for reading by :class:`core.session.storage.journal.JournalEngine`
    (``mode="readonly"``), which also adds what a writer does."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool, compact_at: int, compact_on_close: bool):
        self.path = Path(path)
        self.paths = sidecar_paths(self.path)
        #: the journal's name as text (stat before every write: no Path made text each time)
        self._journal_name = os.fspath(self.paths["journal"])
        self.readonly = readonly
        self.compact_at = compact_at
        self.compact_on_close = compact_on_close
        #: One line per thing a GM should know about this load (torn record dropped, upgrade…).
        self.warnings: list[str] = []
        #: Problems found while the session is open, for the GM to be told once each
        #: (taken and cleared by :meth:`EventLog.take_notices`).
        self.notices: list[str] = []
        self._compact_failing = False
        #: Readers: full loads done and reads retried because the writer was compacting.
        self.stats = {"loads": 0, "retries": 0}
        self._mutex = threading.RLock()
        self._lock: WriterLock | None = None
        self._fd: int | None = None  # journal, writer only (O_APPEND)
        self._rfile: SnapshotFile | None = None  # the same journal, read-only: the writer's events are read from it
        self._jsize = 0  # bytes of the journal known good
        self._jident = ""  # the journal's identity, as the lock file names it
        self._jinode: tuple[int, int] | tuple[()] = ()  # (st_dev, st_ino) of the journal appended to
        self._jlines = 0  # records in the journal
        self._next_auto = compact_at  # journal length that triggers auto-compaction
        self._broken: str | None = None  # set when a failed write could not be cut back
        self._changed = False  # another program replaced or wrote the session's files
        self._lost = False  # ... and what this writer saved has no name left on disk
        self._broken_head = ""  # what changed on disk, said once (see CompactingEngine)
        self._closed = False
        self._maxid: dict[str, int] = {}
        self._snap_ident: tuple[int, int, int, int] | tuple[()] = ()  # readers: which snapshot they loaded
        self._j_ident: tuple[int, int] | tuple[()] = ()  # readers: which journal they follow
        self._jpos = 0  # readers: journal bytes consumed
        self._jversion = JOURNAL_VERSION  # readers: format of the journal they follow
        self._state = State(SCHEMA_VERSION, {}, 0, {EVENTS_TABLE: EventTable(path=self.path), META_TABLE: {}})

    # ---- readers

    def _reload(self) -> bool:
        before = (self._state.lsn, len(self._state.tables.get(EVENTS_TABLE, {})))
        state, journal, _data, st, warnings = load(self.path, readonly=True, stats=self.stats)
        self.stats["loads"] += 1
        old = self._state.tables.get(EVENTS_TABLE)
        if isinstance(old, EventTable):
            old.close()
        self._state = state
        self._maxid = {EVENTS_TABLE: len(state.tables[EVENTS_TABLE])}
        self._snap_ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        self._j_ident = journal.ident
        self._jversion = journal.version
        self._jpos = journal.good_len
        if state.schema < SCHEMA_VERSION:
            warnings.append(
                f"{self.path.name} is in format v{state.schema}; opening it for writing "
                f"upgrades it to v{SCHEMA_VERSION} (keeping a backup)"
            )
        if not self.warnings:
            self.warnings = warnings
        return (state.lsn, len(state.tables[EVENTS_TABLE])) != before

    def refresh(self) -> bool:
        """Readers: pick up what the writer saved since the last look; True if anything
        changed. Reads only the new journal bytes unless the writer compacted. A
        writer's memory is always current: returns False."""
        if not self.readonly:
            return False
        with self._mutex:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                raise SessionMissingError(f"{self.path}: the session file is gone") from None
            except OSError as e:
                raise StoreReadError(f"{self.path}: cannot read ({e.strerror or e})") from None
            if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) != self._snap_ident:
                return self._reload()
            jpath = self.paths["journal"]
            try:
                fd = os.open(jpath, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                return self._reload() if self._j_ident else False
            except OSError as e:
                raise StoreReadError(f"{jpath}: cannot read ({e.strerror or e})") from None
            try:
                jst = os.fstat(fd)
                if (jst.st_dev, jst.st_ino) != self._j_ident or jst.st_size < self._jpos:
                    return self._reload()
                if jst.st_size == self._jpos:
                    return False
                chunks = []
                pos = self._jpos
                while True:
                    chunk = os.pread(fd, max(jst.st_size - pos, 1 << 16), pos)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    pos += len(chunk)
                data = b"".join(chunks)
            except OSError as e:
                raise StoreReadError(f"{jpath}: cannot read ({e.strerror or e})") from None
            finally:
                os.close(fd)
            end = data.rfind(b"\n")
            if end < 0:
                return False  # only part of a record so far
            state = self._state
            try:
                for line in data[:end].split(b"\n"):
                    if not line.strip():
                        continue  # a blank line at the end (the load says if it is elsewhere)
                    rec = journal_record(line, self._jversion)
                    if rec.get("n") != state.lsn + 1:
                        return self._reload()
                    apply_record(state, rec, jpath, 0)
                    state.lsn = rec["n"]
            except (ValueError, CorruptSaveError):
                return self._reload()
            self._maxid = {EVENTS_TABLE: len(state.tables[EVENTS_TABLE])}
            self._jpos += end + 1
            return True

    # ---- state

    @property
    def events(self) -> EventTable:
        """The events table (live: the object the tables hold under ``events``)."""
        events = self._state.tables[EVENTS_TABLE]
        assert isinstance(events, EventTable)  # a writer's or reader's state, never peek()'s counter
        return events

    @property
    def header(self) -> dict[str, Any]:
        """The stored header (live; EventLog hands out copies)."""
        return self._state.header

    @property
    def schema(self) -> int:
        """The format version of what was loaded (SCHEMA_VERSION once written)."""
        return self._state.schema

    @property
    def lsn(self) -> int:
        """Number of the last change applied (journal record number)."""
        return self._state.lsn

    @property
    def journal_lines(self) -> int:
        """Records in the writer's current journal (0 right after compaction)."""
        return self._jlines
