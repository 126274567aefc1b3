"""The journal engine: one session's state in memory, kept on disk as a snapshot
plus an append-only journal.

A writer appends each change as journal lines (one ``write`` and one ``fsync`` per
change or batch; a write that fails is cut back off) and compacts now and then;
a reader follows a live writer by reading only the journal bytes added since its
last look. The file layout is :mod:`core.session.storage.format`'s; file writes go
through :mod:`core.session.storage.atomic`. :class:`JournalEngine` knows nothing of
TinyDB: :class:`core.session.storage.tinydb_adapter.JournalStorage` makes it a
TinyDB ``Storage``."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from gmdesk.core.errors import ParamError
from gmdesk.core.session.lock import WriterLock, journal_identity
from gmdesk.core.session.storage import atomic
from gmdesk.core.session.storage.checksums import seal
from gmdesk.core.session.storage.codec import dumps, json_text
from gmdesk.core.session.storage.errors import (
    CorruptSaveError,
    SessionChangedError,
    SessionExistsError,
    SessionMissingError,
    StoreError,
    StoreReadError,
    StoreWriteError,
)
from gmdesk.core.session.storage.format import (
    EVENTS_TABLE,
    JOURNAL_VERSION,
    META_TABLE,
    SCHEMA_VERSION,
    SYSTEM_KEY,
    State,
    Tables,
    apply_record,
    check_header,
    journal_record,
    load,
    parse_snapshot,
    snapshot_bytes,
    snapshot_stream,
)
from gmdesk.core.session.storage.paths import TMP_SUFFIX, backup_path, sidecar_paths
from gmdesk.core.session.storage.table import EventTable, SnapshotFile

__all__ = ["COMPACT_AT", "JournalEngine"]

#: bytes after an event's text on its journal line: the record's end and its checksum
_SEAL_LEN = len(',"c":"00000000"}')

#: Default journal length (lines) at which a writer compacts on its own.
COMPACT_AT = 5000
#: ... or, in a long session, at one line for every this many events (whichever is
#: more): each compaction rewrites the whole snapshot, so compacting every
#: ``COMPACT_AT`` lines would cost I/O quadratic in the history (a million rolls: 200
#: rewrites of a snapshot growing to a gigabyte); letting the journal grow with the
#: snapshot keeps the total linear (about ``COMPACT_GROWTH + 1`` times the final
#: snapshot), while the journal an open reads after a crash stays an eighth of the log.
COMPACT_GROWTH = 8


#: One change :meth:`JournalEngine.commit` makes durable: put a document (table, id,
#: document), delete documents (table, ids), or set header values.
Change = (
    tuple[Literal["put"], str, int, Mapping[str, Any]]
    | tuple[Literal["del"], str, list[int]]
    | tuple[Literal["hdr"], Mapping[str, Any]]
)

#: What :meth:`JournalEngine._restore` puts back: lsn, header, events count, each other
#: table's documents as they were (table, whether it existed, [(id, doc or None)]), and
#: the journal's line count.
_Undo = tuple[int, dict[str, Any], int, list[tuple[str, bool, list[tuple[str, Any]]]], int]


class JournalEngine:
    """A session kept as snapshot + append-only journal, and its state in memory.

    Changes go through :meth:`commit` (one journal write + fsync per call, O(size
    of the change)); :meth:`compact` writes the whole state as a new snapshot.
    :class:`core.session.storage.tinydb_adapter.JournalStorage` is this engine as a
    TinyDB ``Storage``; use :class:`core.session.storage.eventlog.EventLog` rather
    than either directly.

    ``mode``: ``"create"`` (new session with ``header``; refuses an existing file),
    ``"open"`` (writer: takes the lock) or ``"readonly"`` (never locks or writes).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        mode: str = "open",
        header: Mapping[str, Any] | None = None,
        compact_at: int = COMPACT_AT,
        compact_on_close: bool = True,
    ):
        super().__init__()
        if mode not in ("create", "open", "readonly"):
            raise ParamError("mode", f"must be one of create, open, readonly (got {mode!r})")
        if type(compact_at) is not int or compact_at < 1:
            raise ParamError("compact_at", f"must be a whole number ≥ 1 (got {compact_at!r})")
        self.path = Path(path)
        self.paths = sidecar_paths(self.path)
        self.readonly = mode == "readonly"
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
        self._jlines = 0  # records in the journal
        self._next_auto = compact_at  # journal length that triggers auto-compaction
        self._broken: str | None = None  # set when a failed write could not be cut back
        self._changed = False  # another program replaced or wrote the session's files
        self._closed = False
        self._maxid: dict[str, int] = {}
        self._snap_ident: tuple[int, int, int, int] | tuple[()] = ()  # readers: which snapshot they loaded
        self._j_ident: tuple[int, int] | tuple[()] = ()  # readers: which journal they follow
        self._jpos = 0  # readers: journal bytes consumed
        self._jversion = JOURNAL_VERSION  # readers: format of the journal they follow
        self._state = State(SCHEMA_VERSION, {}, 0, {EVENTS_TABLE: EventTable(path=self.path), META_TABLE: {}})
        if mode == "create":
            self._create(header)
        elif mode == "open":
            self._open_writer()
        else:
            self._reload()

    # ---- opening

    def _create(self, header: Mapping[str, Any] | None) -> None:
        head = check_header(header)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(self.path):
            raise SessionExistsError(f"{self.path} already exists; choose another name")
        made = False
        lock = self._take_lock()
        try:
            if self.path.exists():
                raise SessionExistsError(f"{self.path} already exists; choose another name")
            self._remove_temps()
            atomic.unlink_quiet(self.paths["checkpoint"])  # a cache left by an earlier session of that name
            self._state = State(SCHEMA_VERSION, head, 0, {EVENTS_TABLE: EventTable(path=self.path), META_TABLE: {}})
            try:
                # journal first: a crash before the snapshot exists leaves no session at all
                made = True
                self._swap_journal()
                try:
                    atomic.publish(
                        self.paths["snapshot_tmp"],
                        self.path,
                        snapshot_bytes(self._state)[0],
                        overwrite=False,
                        hold=lock.add_session_file,
                    )
                finally:
                    lock.prune_session_files()
            except FileExistsError:
                raise SessionExistsError(f"{self.path} already exists; choose another name") from None
            except OSError as e:
                raise atomic.write_error(self.path, e, "create the session") from None
        except BaseException:
            if made:
                # a failed create (disk full…) leaves nothing behind: no journal, no lock,
                # no session file (only ever the one this create wrote and still locks)
                if self._lock is not None and self._lock.holds_session_file():
                    atomic.unlink_quiet(self.path)
                for key in ("journal", "snapshot_tmp", "journal_tmp", "lock"):
                    atomic.unlink_quiet(self.paths[key])
            self._drop_fds()
            raise

    def _take_lock(self) -> WriterLock:
        lock = self._lock = WriterLock(self.paths["lock"], self.path, self.paths["journal"])
        try:
            lock.acquire()
        except OSError as e:
            if e.filename is not None and Path(e.filename) in (self.path, self.paths["journal"]):
                raise StoreReadError(f"{e.filename}: cannot read ({e.strerror or e})") from None
            raise StoreWriteError(
                f"{self.path}: cannot open for writing ({e.strerror or e}); open it read-only instead"
            ) from None
        return lock

    def _open_writer(self) -> None:
        if not os.path.lexists(self.path):
            # checked before taking the lock: a mistyped name leaves no lock file behind
            raise SessionMissingError(f"{self.path}: no such session file")
        # a file that is not a session (notes.txt given by mistake) gets no lock file
        # and no clean-up of "temp files" beside it: refuse it before touching anything
        _check_is_session(self.path)
        self._take_lock()
        try:
            self._remove_temps()
            lock = self._lock
            assert lock is not None
            state, journal, original, _st, warnings = load(self.path, readonly=False, saved=lock.saved_before)
            self._state = state
            self.warnings = warnings
            self._maxid = {EVENTS_TABLE: len(state.tables[EVENTS_TABLE])}
            if state.schema < SCHEMA_VERSION:
                old_schema = state.schema
                backup = self._write_backup(original, old_schema)
                self.compact()
                state.schema = SCHEMA_VERSION
                self.warnings.append(
                    f"upgraded {self.path.name} from format v{old_schema} to "
                    f"v{SCHEMA_VERSION}; the original is kept as {backup.name}"
                )
                return
            if not journal.present:
                self._swap_journal()  # no journal: start one
                return
            if journal.version < JOURNAL_VERSION:
                # an older journal format: fold it into the session file (nothing is lost)
                # and go on with a journal of this format
                self.compact()
                return
            fd = os.open(self.paths["journal"], os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
            self._fd = fd
            self._open_reader()
            self._jident = journal_identity(os.fstat(fd))
            if journal.torn or journal.blank:
                try:
                    os.ftruncate(fd, journal.good_len)
                    os.fsync(fd)
                except OSError as e:
                    raise atomic.write_error(self.paths["journal"], e, "remove an incomplete last record") from None
            self._jsize = journal.good_len
            self._jlines = journal.lines
            lock.record_saved(self._jident, state.lsn)
            self._next_auto = max(self._compact_threshold(), self._jlines + 1)
            if self._jlines >= self._compact_threshold():
                self._auto_compact()
        except StoreError:
            self._drop_fds()
            raise
        except OSError as e:
            self._drop_fds()
            raise atomic.write_error(self.path, e, "open the session for writing") from None
        except BaseException:
            self._drop_fds()
            raise

    def _write_backup(self, original: bytes, version: int) -> Path:
        backup = backup_path(self.path, version)
        k = 0
        while True:
            try:
                if backup.exists() and backup.read_bytes() == original:
                    return backup
            except OSError:
                pass  # unreadable: keep it, pick the next name
            try:
                atomic.publish(backup.with_name(backup.name + TMP_SUFFIX), backup, original, overwrite=False)
                return backup
            except FileExistsError:
                k += 1
                backup = backup_path(self.path, version, k)
            except OSError as e:
                raise atomic.write_error(backup, e, "write the backup before upgrading") from None

    def _remove_temps(self) -> None:
        for key in ("snapshot_tmp", "journal_tmp", "checkpoint_tmp"):
            atomic.unlink_quiet(self.paths[key])
        for tmp in self.path.parent.glob(self.path.name + ".v*.bak" + TMP_SUFFIX):
            atomic.unlink_quiet(tmp)

    # ---- writing

    def _check_writable(self) -> None:
        if self.readonly:
            raise StoreWriteError(f"{self.path}: opened read-only; nothing was saved")
        if self._closed:
            raise StoreWriteError(f"{self.path}: the session is closed; nothing was saved")
        if self._broken:
            raise (SessionChangedError if self._changed else StoreWriteError)(self._broken)

    def next_id(self, table: str) -> int:
        """The id the next new document of ``table`` gets (events: count + 1)."""
        top = self._maxid.get(table)
        if top is None:
            docs = self._state.tables.get(table, {})
            top = max((int(k) for k in docs), default=0)
            self._maxid[table] = top
        return top + 1

    def commit(self, ops: list[Change]) -> None:
        """Durably apply changes: ``("put", table, id, doc)``, ``("del", table, ids)``,
        ``("hdr", changes)``. All lines are written with one ``write`` and one fsync,
        then applied in memory. Raises ParamError for a document that is not JSON
        data, ValueError for a change the event log forbids, StoreWriteError when the
        disk refuses (nothing applied, journal cut back)."""
        if not ops:
            return
        with self._mutex:
            self._check_writable()
            self._check_own_files()
            lines: list[str] = []
            recs: list[dict[str, Any]] = []
            n = self._state.lsn
            events_count = len(self._state.tables.get(EVENTS_TABLE, {}))
            for op in ops:
                n += 1
                if op[0] == "put":
                    _, tb, doc_id, doc = op
                    if tb == EVENTS_TABLE:
                        if doc_id > events_count + 1:
                            raise ValueError(f"event seq {doc_id} would leave a gap after seq {events_count}")
                        events_count = max(events_count, doc_id)
                    s = json_text(doc, "doc")
                    prefix = f'{{"n":{n},"op":"put","tb":{dumps(tb)},"id":{int(doc_id)},"doc":'
                    lines.append(f"{prefix}{s}}}")
                    at = len(prefix.encode("utf-8"))
                    recs.append({"n": n, "op": "put", "tb": tb, "id": int(doc_id), "doc": s, "at": at})
                elif op[0] == "del":
                    _, tb, given = op
                    if tb == EVENTS_TABLE:
                        raise ValueError("the event log is append-only: events cannot be removed")
                    ids = [int(i) for i in given]
                    lines.append(f'{{"n":{n},"op":"del","tb":{dumps(tb)},"ids":{dumps(ids)}}}')
                    recs.append({"n": n, "op": "del", "tb": tb, "ids": ids})
                elif op[0] == "hdr":
                    s = json_text(op[1], "header")
                    lines.append(f'{{"n":{n},"op":"hdr","set":{s}}}')
                    recs.append({"n": n, "op": "hdr", "set": s})
                else:
                    raise ValueError(f"unknown change {op[0]!r}")
            try:
                encoded = [seal(line).encode("utf-8") for line in lines]
            except UnicodeEncodeError as e:
                raise ParamError("doc", f"must be plain JSON text without lone surrogates ({e.reason})") from None
            data = b"\n".join(encoded) + b"\n"
            start = self._jsize
            # where each new event's text lies in the journal: read back from there
            # when asked for, never kept in memory
            pos = start
            for rec, line in zip(recs, encoded, strict=True):
                if rec["op"] == "put":
                    text = len(line) - rec.pop("at") - _SEAL_LEN
                    rec["at"] = (pos + len(line) - _SEAL_LEN - text, text)
                pos += len(line) + 1
            undo = self._memory_undo(recs)
            try:
                self._append_durably(data)
                self._apply_in_memory(recs, n, len(lines))
            except BaseException:
                # interrupted (Ctrl-C) or failed after the write: the change was not
                # acknowledged, so take it back on disk and in memory (both as before)
                self._restore(undo)
                self._cut_back(start)
                raise
            if self._lock is not None:
                self._lock.record_saved(self._jident, n)
            if self._jlines >= self._next_auto:
                self._auto_compact()

    def _memory_undo(self, recs: list[dict[str, Any]]) -> _Undo:
        """What :meth:`_restore` needs to put memory back as it is now."""
        state = self._state
        docs: list[tuple[str, bool, list[tuple[str, Any]]]] = []
        for rec in recs:
            if rec["op"] in ("put", "del") and rec["tb"] != EVENTS_TABLE:
                table = state.tables.get(rec["tb"])
                ids = [rec["id"]] if rec["op"] == "put" else rec["ids"]
                docs.append(
                    (
                        rec["tb"],
                        table is not None,
                        [(str(i), None if table is None else table.get(str(i))) for i in ids],
                    )
                )
        return (state.lsn, dict(state.header), len(state.tables[EVENTS_TABLE]), docs, self._jlines)

    def _restore(self, undo: _Undo) -> None:
        lsn, header, count, docs, jlines = undo
        state = self._state
        state.lsn = lsn
        state.header.clear()
        state.header.update(header)
        state.tables[EVENTS_TABLE].truncate(count)
        for tb, existed, olds in reversed(docs):
            if not existed:
                state.tables.pop(tb, None)
                continue
            table = state.tables[tb]
            for key, doc in olds:
                if doc is None:
                    table.pop(key, None)
                else:
                    table[key] = doc
        self._jlines = jlines
        self._maxid = {EVENTS_TABLE: count}

    def _cut_back(self, start: int) -> None:
        """Remove what was appended after ``start`` bytes (a change that was never
        acknowledged). If that fails the session refuses further writes."""
        try:
            if self._fd is not None:
                os.ftruncate(self._fd, start)
                os.fsync(self._fd)
            self._jsize = start
        except OSError:
            self._broken = (
                f"{self.paths['journal']}: a failed save could not be cut back; "
                f"close and reopen the session (everything saved before is intact)"
            )

    def _apply_in_memory(self, recs: list[dict[str, Any]], n: int, lines: int) -> None:
        state = self._state
        events = state.tables[EVENTS_TABLE]
        for rec in recs:
            text = None
            if rec["op"] == "put":
                text = rec["doc"]
                if rec["tb"] == EVENTS_TABLE and rec["id"] == len(events) + 1 and isinstance(events, EventTable):
                    # a new event is kept as where the journal holds it, read and
                    # parsed when asked for: the writer does not hold what it wrote
                    events.append_at(*rec["at"])
                    if self._maxid.get(EVENTS_TABLE) is not None:
                        self._maxid[EVENTS_TABLE] = rec["id"]
                    continue
                rec["doc"] = json.loads(text)
                top = self._maxid.get(rec["tb"])
                if top is not None and rec["id"] > top:
                    self._maxid[rec["tb"]] = rec["id"]
            elif rec["op"] == "hdr":
                rec["set"] = json.loads(rec["set"])
            else:
                self._maxid.pop(rec["tb"], None)
            apply_record(state, rec, self.paths["journal"], 0)
            if text is not None and rec["tb"] == EVENTS_TABLE:
                state.tables[EVENTS_TABLE].set_text(rec["id"], text)
        state.lsn = n
        self._jlines += lines

    def _append_durably(self, data: bytes) -> None:
        fd = self._fd
        assert fd is not None
        start = self._jsize
        try:
            atomic.write_all(fd, data)
            os.fsync(fd)
        except OSError as e:
            err = atomic.write_error(self.paths["journal"], e, "save")
            self._cut_back(start)
            raise err from None
        except BaseException:  # Ctrl-C in the middle: the change is not acknowledged
            self._cut_back(start)
            raise
        self._jsize = start + len(data)

    def _auto_compact(self) -> None:
        """Compact because the journal is long. An append has already been acknowledged,
        so a failure here is only reported — once (``warnings`` and ``notices``), not at
        every retry — and retried a while later; a later success says so."""
        try:
            self.compact()
        except StoreWriteError as e:
            if not self._compact_failing:
                self._compact_failing = True
                note = (
                    f"could not compact the session (it stays safe in its journal, which keeps "
                    f"growing; will retry): {e}"
                )
                self.warnings.append(note)
                self.notices.append(note)
            self._next_auto = self._jlines + self._compact_threshold()
        else:
            if self._compact_failing:
                self._compact_failing = False
                self.notices.append(f"{self.path.name}: compacting works again")

    def _compact_threshold(self) -> int:
        """Journal lines at which to compact next: ``compact_at``, or in a long session
        an eighth of its events (see COMPACT_GROWTH)."""
        return max(self.compact_at, len(self._state.tables.get(EVENTS_TABLE, ())) // COMPACT_GROWTH)

    def _swap_journal(self) -> None:
        """Put a fresh journal (base = current lsn) in place and append to it from now on."""
        head = dumps({"gmdesk_journal": JOURNAL_VERSION, "base": self._state.lsn}) + "\n"
        data = head.encode("utf-8")
        got: list[int] = []
        lock = self._lock
        try:
            atomic.publish(
                self.paths["journal_tmp"],
                self.paths["journal"],
                data,
                overwrite=True,
                keep=got.append,
                hold=lock.add_journal_file if lock is not None else None,
            )
        finally:
            if lock is not None:
                lock.prune_session_files()
            # even when a later step failed (or was interrupted): once the new journal
            # has the name, it is the one to append to
            for fd in got:
                if atomic.same_file(fd, self.paths["journal"]):
                    old, self._fd = self._fd, fd
                    if old is not None:
                        os.close(old)
                    self._open_reader()
                    self._jident = journal_identity(os.fstat(fd))
                    if lock is not None:
                        lock.record_saved(self._jident, self._state.lsn)
                    self._jsize = len(data)
                    self._jlines = 0
                    self._next_auto = self._compact_threshold()
                else:
                    os.close(fd)

    def _open_reader(self) -> None:
        """Open the writer's journal for reading too (the events it appends are read
        back from it when asked for; see :meth:`EventTable.append_at`). Kept open
        after close: what was saved stays readable while the session object lives."""
        if self._rfile is not None:
            self._rfile.close()
            self._rfile = None
        fd = os.open(self.paths["journal"], os.O_RDONLY | os.O_CLOEXEC)
        assert self._fd is not None
        a, b = os.fstat(fd), os.fstat(self._fd)
        if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):  # pragma: no cover - we hold the lock
            os.close(fd)
            raise StoreReadError(f"{self.paths['journal']}: replaced by another program")
        self._rfile = SnapshotFile(fd, self.paths["journal"])
        events = self._state.tables[EVENTS_TABLE]
        if isinstance(events, EventTable):
            events.reads_journal(self._read_journal)

    def _read_journal(self, offset: int, length: int) -> bytes:
        if self._rfile is None:  # pragma: no cover - set before any event is appended
            raise StoreReadError(f"{self.paths['journal']}: not open")
        return self._rfile.read(offset, offset + length)

    def _check_own_files(self) -> None:
        """Before a compaction replaces the files: they must still be the ones this
        writer locked and wrote (no other program replaced the session file or
        appended to the journal). Otherwise nothing is rewritten and the session
        refuses further writes: a compaction never discards records it did not write."""
        problem = None
        if self._lock is None or not self._lock.holds_session_file():
            problem = f"{self.path.name} was replaced or removed by another program"
        elif self._fd is not None:
            try:
                st, cur = os.fstat(self._fd), os.stat(self.paths["journal"])
            except OSError:
                problem = f"{self.paths['journal'].name} was removed by another program"
            else:
                if (st.st_dev, st.st_ino) != (cur.st_dev, cur.st_ino):
                    problem = f"{self.paths['journal'].name} was replaced by another program"
                elif st.st_size != self._jsize:
                    problem = f"{self.paths['journal'].name} was written by another program"
        if problem:
            self._broken = (
                f"{self.path}: the session was changed on disk: {problem} while this gmdesk had it "
                f"open; nothing more is saved here, everything saved before is kept (close it, "
                f"then `gmdesk check` the session)"
            )
            self._changed = True
            raise SessionChangedError(self._broken)

    def compact(self, tables: Tables | None = None) -> None:
        """Write the whole state as a new snapshot, then start an empty journal.

        Order: snapshot temp → fsync → rename over the snapshot → fsync dir → journal
        temp → fsync → rename over the journal → fsync dir. A crash anywhere loses
        nothing acknowledged; a failure raises StoreWriteError and leaves the
        previous files in use."""
        with self._mutex:
            self._check_writable()
            self._check_own_files()
            lock = self._lock
            assert lock is not None  # (_check_own_files refuses a writer without its lock)
            stream = snapshot_stream(self._state, tables)
            try:
                atomic.publish(
                    self.paths["snapshot_tmp"],
                    self.path,
                    stream.parts(),
                    overwrite=True,
                    hold=lock.add_session_file,
                    head=stream.head,
                )
            except OSError as e:
                raise atomic.write_error(self.path, e, "compact the session") from None
            except CorruptSaveError as e:
                # the events saved before are not what gmdesk wrote: never copied into
                # a new snapshot under a new checksum (the journal keeps everything new)
                raise StoreWriteError(
                    f"{self.path}: could not compact the session: {e.record}: {e.problem}; everything "
                    f"saved since is safe in its journal (`gmdesk check` the session)"
                ) from None
            finally:
                lock.prune_session_files()
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError as e:
                # (the old files stay in use: the new snapshot holds nothing they lack)
                raise atomic.write_error(self.path, e, "read back the compacted session") from None
            old = self._state.tables[EVENTS_TABLE]
            if tables is not None:
                self._state.tables = tables
            events = self._state.tables[EVENTS_TABLE]
            events.rebase(SnapshotFile(fd, self.path), stream.start, stream.start + stream.length, stream.writer)
            events.reads_journal(self._read_journal)
            if old is not events:
                old.close()
            try:
                self._swap_journal()
            except OSError as e:
                # the new snapshot holds everything; the old journal (all lines <= lsn)
                # stays valid and in use
                raise atomic.write_error(self.paths["journal"], e, "start a new journal") from None

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

    # ---- closing

    def _drop_fds(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None
        if self._lock is not None:
            self._lock.release()

    def close(self) -> None:
        """Compact (writer, when the journal has records and ``compact_on_close``),
        close the journal and release the lock. Idempotent. A failed compaction is
        only reported in ``warnings``: everything is already safe in the journal."""
        with self._mutex:
            if self._closed:
                return
            try:
                self.compact_for_close()
            finally:
                self._closed = True
                self._drop_fds()

    def compact_for_close(self) -> None:
        """What :meth:`close` does first (writer, ``compact_on_close``, a journal with
        records): compact, a failure only reported in ``warnings``. Called before
        close by whoever saves a cache of the whole log then (the session's
        checkpoint: its digest of the events is then the one the snapshot records)."""
        with self._mutex:
            if (
                not self._closed
                and not self.readonly
                and self.compact_on_close
                and self._jlines > 0
                and self._fd is not None
                and not self._broken
            ):
                try:
                    self.compact()
                except StoreWriteError as e:
                    self.warnings.append(f"could not compact on close: {e}")

    def abandon(self) -> None:
        """Drop every descriptor and the lock without writing anything, exactly as a
        killed gmdesk would (for tests that simulate a crash)."""
        with self._mutex:
            self._closed = True
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            if self._lock is not None:
                self._lock.abandon()


def _check_is_session(path: Path) -> None:
    """CorruptSaveError unless ``path`` holds a gmdesk session (of any format): reads
    the first line of a current save; an older or unusual one is parsed whole."""
    try:
        with open(path, "rb") as f:
            first = f.read(len(SYSTEM_KEY) + 4)
    except FileNotFoundError:
        raise SessionMissingError(f"{path}: no such session file") from None
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    if first == b'{"' + SYSTEM_KEY.encode() + b'":':
        return
    got = atomic.read_file(path)
    if got is None:
        raise SessionMissingError(f"{path}: no such session file")
    try:
        parse_snapshot(path, got[0])
    except CorruptSaveError:
        if path.name.endswith(".gmdesk"):
            raise  # a damaged session: say exactly what is wrong
        raise CorruptSaveError(path, "whole file", "not a gmdesk session") from None
