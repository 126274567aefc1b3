"""The journal engine: one session kept on disk as a snapshot plus an append-only
journal, and its state in memory — opening it (create, open for writing taking the
lock, upgrade an older format, read-only) and the writer's commit path.

A writer appends each change as journal lines (one ``write`` and one ``fsync`` per
change or batch; a write that fails is cut back off) and compacts now and then
(:mod:`core.session.storage.compaction`); a reader follows a live writer
(:mod:`core.session.storage.reader`). The file layout is
:mod:`core.session.storage.format`'s; file writes go through
:mod:`core.session.storage.atomic`. :class:`JournalEngine` knows nothing of TinyDB:
:class:`core.session.storage.tinydb_adapter.JournalStorage` makes it a TinyDB
``Storage``."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, cast

from gmdesk.core.errors import ParamError
from gmdesk.core.session.lock import WriterLock
from gmdesk.core.session.storage import atomic
from gmdesk.core.session.storage.checksums import seal_bytes
from gmdesk.core.session.storage.codec import dumps, flat_text, json_bytes, json_text, read_back
from gmdesk.core.session.storage.compaction import CompactingEngine
from gmdesk.core.session.storage.errors import (
    CorruptSaveError,
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
    check_header,
    snapshot_bytes,
)
from gmdesk.core.session.storage.paths import TMP_SUFFIX, backup_path
from gmdesk.core.session.storage.recovery import apply_record, load
from gmdesk.core.session.storage.snapshot_open import parse_snapshot
from gmdesk.core.session.storage.table import EventTable

__all__ = ["COMPACT_AT", "Change", "JournalEngine"]

#: bytes after an event's text on its journal line: the record's end and its checksum
_SEAL_LEN = len(',"c":"00000000"}')
#: the JSON text of the tables' names every session has (the others are encoded when written)
_TABLE_TEXT = {EVENTS_TABLE: dumps(EVENTS_TABLE), META_TABLE: dumps(META_TABLE)}
#: Default journal length (lines) at which a writer compacts on its own.
COMPACT_AT = 5000


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


class JournalEngine(CompactingEngine):
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
        if mode not in ("create", "open", "readonly"):
            raise ParamError("mode", f"must be one of create, open, readonly (got {mode!r})")
        if type(compact_at) is not int or compact_at < 1:
            raise ParamError("compact_at", f"must be a whole number ≥ 1 (got {compact_at!r})")
        super().__init__(path, readonly=mode == "readonly", compact_at=compact_at, compact_on_close=compact_on_close)
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
        lock = self._take_lock(creating=True)
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

    def _take_lock(self, creating: bool = False) -> WriterLock:
        lock = self._lock = WriterLock(self.paths["lock"], self.path, self.paths["journal"])
        try:
            lock.acquire()
        except OSError as e:
            if e.filename is not None and Path(e.filename) in (self.path, self.paths["journal"]):
                raise StoreReadError(f"{e.filename}: cannot read ({e.strerror or e})") from None
            if creating:  # (a new session: there is nothing to open read-only)
                raise StoreWriteError(
                    f"{self.path}: cannot create the session in {self.path.parent} ({e.strerror or e}); "
                    "nothing was created"
                ) from None
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
            self._note_journal(fd)
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
            lines: list[bytes] = []  # (each encoded once: its checksum is of these bytes, written)
            recs: list[dict[str, Any]] = []
            n = self._state.lsn
            events_count = len(self._state.tables.get(EVENTS_TABLE, {}))
            i, count = 0, len(ops)
            while i < count:
                op = ops[i]
                i += 1
                n += 1
                if op[0] == "put":
                    _, tb, doc_id, doc = op
                    if tb == EVENTS_TABLE:
                        if doc_id > events_count + 1:
                            raise ValueError(f"event seq {doc_id} would leave a gap after seq {events_count}")
                        events_count = max(events_count, doc_id)
                    s = json_bytes(doc, "doc")
                    rec: dict[str, Any] = {"n": n, "op": "put", "tb": tb, "id": int(doc_id), "doc": s}
                    head = f'{{"n":{n},"op":"put","tb":{_TABLE_TEXT.get(tb) or dumps(tb)},"id":{int(doc_id)}'
                    if i < count and ops[i][0] == "hdr":
                        # header changes made with it go in its own record (format 3)
                        changes = ops[i][1]
                        i += 1
                        flat = flat_text(changes)
                        hs = flat or json_text(changes, "header")
                        head = f'{head},"set":{hs}'
                        # (what reading its text back gives: a flat one's copy, else read_back's)
                        rec["set"], rec["given"] = hs, changes
                        if flat:
                            rec["given"], rec["flat"] = dict(cast("dict[str, Any]", changes)), True
                    try:
                        prefix = f'{head},"doc":'.encode()
                    except UnicodeEncodeError as e:  # (the header changes made with it)
                        raise ParamError(
                            "header", f"must be plain JSON text without lone surrogates ({e.reason})"
                        ) from None
                    lines.append(prefix + s + b"}")
                    rec["at"] = len(prefix)
                    recs.append(rec)
                elif op[0] == "del":
                    _, tb, given = op
                    if tb == EVENTS_TABLE:
                        raise ValueError("the event log is append-only: events cannot be removed")
                    ids = [int(i) for i in given]
                    lines.append(_encoded(f'{{"n":{n},"op":"del","tb":{dumps(tb)},"ids":{dumps(ids)}}}'))
                    recs.append({"n": n, "op": "del", "tb": tb, "ids": ids})
                elif op[0] == "hdr":
                    hs = json_text(op[1], "header")
                    lines.append(_encoded(f'{{"n":{n},"op":"hdr","set":{hs}}}'))
                    recs.append({"n": n, "op": "hdr", "set": hs, "given": op[1]})
                else:
                    raise ValueError(f"unknown change {op[0]!r}")
            encoded = list(map(seal_bytes, lines))
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
        lazy = type(events) is EventTable or isinstance(events, EventTable)
        for rec in recs:
            text = None
            if rec["op"] == "put":
                text = rec["doc"]
                if "given" in rec:
                    given = rec.pop("given")
                    rec["set"] = given if rec.pop("flat", False) else read_back(given, rec["set"])
                if lazy and rec["tb"] == EVENTS_TABLE and rec["id"] == len(events) + 1:
                    # a new event is kept as where the journal holds it, read and
                    # parsed when asked for: the writer does not hold what it wrote
                    events.append_at(*rec["at"])
                    if self._maxid.get(EVENTS_TABLE) is not None:
                        self._maxid[EVENTS_TABLE] = rec["id"]
                    if "set" in rec:
                        state.header.update(rec["set"])
                    continue
                rec["doc"] = json.loads(text)
                top = self._maxid.get(rec["tb"])
                if top is not None and rec["id"] > top:
                    self._maxid[rec["tb"]] = rec["id"]
            elif rec["op"] == "hdr":
                rec["set"] = read_back(rec.pop("given"), rec["set"])
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


def _encoded(line: str) -> bytes:
    """A journal line's record as UTF-8; ParamError for a lone surrogate in it."""
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ParamError("doc", f"must be plain JSON text without lone surrogates ({e.reason})") from None
