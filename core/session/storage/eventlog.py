"""The event log: one session's durable events, header and view state, the
store's API for the rest of gmdesk (:class:`EventLog`)."""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gmdesk.core.errors import ParamError
from gmdesk.core.session.storage import atomic
from gmdesk.core.session.storage.codec import dumps, json_text, loads
from gmdesk.core.session.storage.errors import StoreReadError
from gmdesk.core.session.storage.format import CHECKPOINT_TAG, EVENTS_TABLE, META_TABLE, SCHEMA_VERSION
from gmdesk.core.session.storage.gcpause import no_gc
from gmdesk.core.session.storage.journal import COMPACT_AT, Change
from gmdesk.core.session.storage.paths import session_files, sidecar_paths
from gmdesk.core.session.storage.tinydb_adapter import JournalStorage, SessionDB

__all__ = ["EventLog"]


class EventLog:
    """One session's durable event log (plus header and view state).

    Create with :meth:`create` or :meth:`open`; close with :meth:`close` or a
    ``with`` block. A writer holds the session's lock until closed; a read-only
    log never locks, never writes and follows the writer through :meth:`since` /
    :meth:`refresh`. Thread-safe (one writer object may be used from worker threads).

    ``db`` is the underlying ``tinydb.TinyDB`` (tables ``events`` and ``meta``) for
    queries; write through this class so the event log stays append-only.
    ``warnings`` lists what loading had to work around (a torn last record dropped,
    a missing journal, an upgrade) — one line each, for the GM to see.
    """

    def __init__(self, db: SessionDB):
        """Use :meth:`create` or :meth:`open`."""
        self.db = db
        self._storage: JournalStorage = db.storage  # type: ignore[assignment]
        self._events = db.table(EVENTS_TABLE)
        self._meta = db.table(META_TABLE)

    # ---- opening

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        header: Mapping[str, Any],
        *,
        compact_at: int = COMPACT_AT,
        compact_on_close: bool = True,
    ) -> EventLog:
        """Create a new, empty session file at ``path`` (and its journal and lock) and
        open it for writing.

        ``header`` is any JSON mapping (name, system, created…); the store adds
        ``schema``. Refuses an existing file (SessionExistsError, a GmdeskError);
        LockedError if someone else is creating it right now; StoreWriteError if
        the disk refuses. Missing parent directories are created.
        """
        return cls(
            SessionDB(
                path,
                storage=JournalStorage,
                mode="create",
                header=header,
                compact_at=compact_at,
                compact_on_close=compact_on_close,
            )
        )

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        readonly: bool = False,
        *,
        compact_at: int = COMPACT_AT,
        compact_on_close: bool = True,
    ) -> EventLog:
        """Open an existing session.

        Writer (default): takes the exclusive lock or raises LockedError("… is open in
        gmdesk (pid 123 on host, since 2026-11-21 22:10)"); removes a torn last
        journal record (reported in ``warnings``); upgrades an older format after
        writing ``<name>.v<N>.bak``; compacts when the journal holds ``compact_at``
        records or more. Read-only: never locks, never writes (an older format is
        upgraded in memory only).

        Raises SessionMissingError, CorruptSaveError (naming file, record and
        problem; nothing is written), FutureVersionError, StoreReadError.
        ``compact_at``: journal length that triggers compaction. The trade-off: the
        append that reaches it pays for rewriting the snapshot (measured at 50,000
        events: about 0.1 s — the events' bytes are joined, not encoded again —
        up to ~1 s the first time for a file in an older layout; a few ms for a few
        hundred events), once in every ``compact_at`` appends; a longer journal
        costs a little more at open. Default 5,000; in a session of more than eight
        times that many events, an eighth of its events (so that compactions cost
        I/O linear in the history, not quadratic: see ``COMPACT_GROWTH``).
        ``compact_on_close``: compact when closing if the journal has records (makes
        ``<name>.gmdesk`` self-contained; same cost, paid when the GM leaves).
        """
        mode = "readonly" if readonly else "open"
        return cls(
            SessionDB(path, storage=JournalStorage, mode=mode, compact_at=compact_at, compact_on_close=compact_on_close)
        )

    # ---- properties

    @property
    def path(self) -> Path:
        """The session (snapshot) file."""
        return self._storage.path

    @property
    def readonly(self) -> bool:
        """True for a read-only follower."""
        return self._storage.readonly

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._storage._closed

    @property
    def warnings(self) -> list[str]:
        """One-line notes about this load (see the class docstring); empty when clean."""
        return self._storage.warnings

    @property
    def changed_on_disk(self) -> str | None:
        """Writers: why nothing more is saved, when another program replaced or wrote
        the session's files while it was open (one line); None while all is well."""
        storage = self._storage
        return storage._broken if storage._changed else None

    @property
    def lost_on_disk(self) -> bool:
        """Writers: whether what was saved has no name left on disk (another program
        deleted the session's files, or renamed another file over them) and has not
        been kept elsewhere yet (:mod:`core.session.rescue`)."""
        return self._storage._changed and self._storage._lost

    def kept_elsewhere(self, where: str | None, failed: str = "") -> None:
        """What was lost on disk was kept as the new session ``where`` (or could not
        be: ``failed``); :attr:`changed_on_disk` says so from now on."""
        self._storage.kept_elsewhere(where, failed)

    def take_notices(self) -> list[str]:
        """Problems found since the last call (a compaction that could not be written,
        and that it works again), each reported once; empty when all is well."""
        notes, self._storage.notices = self._storage.notices, []
        return notes

    @property
    def header(self) -> dict[str, Any]:
        """A copy of the header: what ``create`` was given (as updated by
        :meth:`set_header`) plus ``schema`` (the store's format version)."""
        head = copy.deepcopy(self._storage.header)
        head["schema"] = SCHEMA_VERSION
        return head

    @property
    def header_view(self) -> Mapping[str, Any]:
        """The stored header itself, without ``schema`` (no copy: read it, never change
        it; it changes with the next write)."""
        return self._storage.header

    @property
    def count(self) -> int:
        """Number of events (= the last seq). Readers: as of the last refresh."""
        return len(self._storage.events)

    @property
    def journal_lines(self) -> int:
        """Records in the current journal (0 right after a compaction)."""
        return self._storage.journal_lines

    # ---- header and view state

    def set_header(self, **changes: Any) -> None:
        """Change header fields (rename, settings…) durably; other fields are kept.

        ``schema`` cannot be changed (ParamError); values must be JSON data
        (ParamError). Does nothing when every value is already set."""
        if "schema" in changes:
            raise ParamError("schema", f"is set by the store ({SCHEMA_VERSION}) and cannot be changed")
        with self._storage._mutex:
            current = self._storage.header
            changed = {k: v for k, v in changes.items() if k not in current or dumps(current[k]) != json_text(v, k)}
            if changed:
                self._storage.commit([("hdr", changed)])

    def meta_get(self, key: str, default: Any = None) -> Any:
        """The view-state value stored under ``key`` (a copy), or ``default``."""
        found = self._meta_find(key)
        return default if found is None else copy.deepcopy(found[1].get("value"))

    def meta_set(self, key: str, value: Any) -> None:
        """Store a small view-state value (selected character…) durably.

        Not an event: never replayed, not undoable. ``key`` must be a non-empty string
        and ``value`` JSON data (ParamError otherwise). Setting the value already
        stored writes nothing."""
        if not isinstance(key, str) or not key:
            raise ParamError("key", f"must be a non-empty string (got {key!r})")
        text = json_text(value, "value")
        with self._storage._mutex:
            found = self._meta_find(key)
            if found is not None:
                doc_id, doc = found
                if "value" in doc and dumps(doc["value"]) == text:
                    return
            else:
                doc_id = self._storage.next_id(META_TABLE)
            self._storage.commit([("put", META_TABLE, doc_id, {"key": key, "value": json.loads(text)})])
            self._meta.clear_cache()

    def _meta_find(self, key: str) -> tuple[int, dict[str, Any]] | None:
        for doc_id, doc in self._storage.read().get(META_TABLE, {}).items():
            if doc.get("key") == key:
                return int(doc_id), doc
        return None

    # ---- events

    def append(self, doc: Mapping[str, Any], *, header: Mapping[str, Any] | None = None) -> int:
        """Append one event; returns its seq (1-based, dense). Flushed and fsynced
        before it returns; cost does not grow with the history (except the one append
        in every ``compact_at`` that triggers a compaction).

        ``header``: header fields to change with it (as :meth:`set_header`), written in
        the same journal write and the same fsync: both are saved, or neither.

        ParamError if ``doc`` is not a mapping of JSON data; StoreWriteError if the
        disk refuses (nothing appended, earlier events intact)."""
        if type(doc) is not dict and not isinstance(doc, Mapping):
            raise ParamError("doc", f"must be a mapping of JSON data (got {type(doc).__name__})")
        if header and "schema" in header:
            raise ParamError("schema", f"is set by the store ({SCHEMA_VERSION}) and cannot be changed")
        storage = self._storage
        with storage._mutex:
            seq = storage.next_id(EVENTS_TABLE)
            # (the document is written as JSON text here and now, not kept: no copy)
            ops: list[Change] = [("put", EVENTS_TABLE, seq, doc if type(doc) is dict else dict(doc))]
            if header:
                ops.append(("hdr", dict(header)))
            storage.commit(ops)
            self._events.clear_cache()
        return seq

    def append_many(self, docs: Iterable[Mapping[str, Any]]) -> list[int]:
        """Append several events with one write and one fsync; returns their seqs.

        All or nothing on an error. After a crash (power cut, kill) in the middle,
        a leading part of the batch may be present, never a partial event."""
        batch = []
        for doc in docs:
            if not isinstance(doc, Mapping):
                raise ParamError("doc", f"must be a mapping of JSON data (got {type(doc).__name__})")
            batch.append(dict(doc))
        if not batch:
            return []
        return self._events.insert_multiple(batch)

    def events(self, copy: bool = True) -> list[tuple[int, dict[str, Any]]]:
        """Every event as ``(seq, doc)``, oldest first. Each doc is a fresh top-level
        dict (nested values are shared with the store: do not mutate them).
        ``copy=False`` hands out the store's own dicts (faster; the caller promises
        not to change them). Readers: as of the last refresh."""
        with self._storage._mutex, no_gc():  # (tens of thousands of new objects, no cycles)
            docs = self._storage.events.all_docs()
            if copy:
                return [(i, dict(d)) for i, d in enumerate(docs, 1)]
            return list(enumerate(docs, 1))

    def event(self, seq: int, copy: bool = True) -> dict[str, Any]:
        """The document of event ``seq`` (1..count) — parses only that one event.
        ``copy=False``: the store's own dict (do not change it). ParamError when there
        is no such event. Readers: as of the last refresh."""
        with self._storage._mutex:
            table = self._storage.events
            if type(seq) is not int or not 1 <= seq <= len(table):
                raise ParamError("seq", f"must be an event number from 1 to {len(table)} (got {seq!r})")
            doc = table.doc(seq)
        return dict(doc) if copy else doc

    def since(self, seq: int, copy: bool = True) -> list[tuple[int, dict[str, Any]]]:
        """Events after ``seq`` (``since(0)`` = all), oldest first. A read-only log
        first refreshes from disk, so a follower calling ``since(last_seen)`` picks up
        whatever the writer saved, also across the writer's compactions."""
        if type(seq) is not int or seq < 0:
            raise ParamError("seq", f"must be a whole number ≥ 0 (got {seq!r})")
        if self.readonly and not self.closed:
            self.refresh()
        with self._storage._mutex:
            table = self._storage.events
            if seq == 0:
                return self.events(copy)
            out = [(i, table.doc(i)) for i in range(seq + 1, len(table) + 1)]
        return [(i, dict(d)) for i, d in out] if copy else out

    def digest(self, upto: int | None = None) -> str:
        """A checksum (SHA-256, hex) of the texts of events ``1..upto`` (default: all).
        Equal digests mean the same events, byte for byte: a cache built from a log
        (e.g. a session's checkpoint) records it to tell whether it still fits.
        Costs a hash of the events not covered yet (usually only the newest)."""
        with self._storage._mutex:
            table = self._storage.events
            if upto is not None and (type(upto) is not int or not 0 <= upto <= len(table)):
                raise ParamError("upto", f"must be a whole number from 0 to {len(table)} (got {upto!r})")
            return table.digest(upto)

    def verify(self) -> None:
        """Read and check every event the snapshot holds (each block's CRC-32 and the
        SHA-256 its record keeps): a long session's open checks only what it reads,
        so ``gmdesk check`` calls this. CorruptSaveError names the events that changed."""
        with self._storage._mutex:
            self._storage.events.verify()

    # ---- checkpoint (a cache of what the log folds to; see read_checkpoint)

    def read_checkpoint(self) -> tuple[dict[str, Any], bytes] | None:
        """The checkpoint saved beside the session (``<name>.gmdesk.ckpt``) as
        ``(head, body)``, or None when there is none or it is damaged (a checkpoint is
        only a cache: never an error). ``head`` is the JSON object given to
        :meth:`write_checkpoint`, ``body`` its bytes (checked against their SHA-256)."""
        path = sidecar_paths(self.path)["checkpoint"]
        try:
            got = atomic.read_file(path)
        except StoreReadError:
            return None
        if got is None:
            return None
        data = got[0]
        nl = data.find(b"\n")
        if nl < 0:
            return None
        try:
            head = loads(data[:nl])
        except ValueError:
            return None
        body = data[nl + 1 :]
        if (
            type(head) is not dict
            or head.get("format") != CHECKPOINT_TAG
            or head.get("bytes") != len(body)
            or head.get("sha256") != hashlib.sha256(body).hexdigest()
        ):
            return None
        return head, body

    def write_checkpoint(self, head: Mapping[str, Any], body: bytes) -> None:
        """Save a checkpoint (writers only): ``head`` a small JSON object, ``body`` any
        bytes. Replaced whole (temp file, rename); not fsynced — a checkpoint lost or
        torn by a crash is only a cache, found damaged and ignored by
        :meth:`read_checkpoint`. StoreWriteError when it cannot be written."""
        storage = self._storage
        with storage._mutex:
            storage._check_writable()
            paths = sidecar_paths(self.path)
            record = dict(head, format=CHECKPOINT_TAG, bytes=len(body), sha256=hashlib.sha256(body).hexdigest())
            data = json_text(record, "head").encode("utf-8") + b"\n" + body
            try:
                fd = atomic.new_file(paths["checkpoint_tmp"])
                try:
                    atomic.write_all(fd, data)
                finally:
                    os.close(fd)
                os.replace(paths["checkpoint_tmp"], paths["checkpoint"])
            except OSError as e:
                atomic.unlink_quiet(paths["checkpoint_tmp"])
                raise atomic.write_error(paths["checkpoint"], e, "save the checkpoint") from None

    def refresh(self) -> bool:
        """Read-only logs: load what the writer saved since the last look; True if
        anything changed. Writers: always current, returns False."""
        changed = self._storage.refresh()
        if changed:
            for table in (self._events, self._meta):
                table.clear_cache()
        return changed

    # ---- maintenance

    def compact(self) -> None:
        """Rewrite the snapshot with everything and empty the journal (atomic; see the
        package docstring: :mod:`core.session.storage`). StoreWriteError if the disk refuses; nothing is lost then."""
        self._storage.compact()

    def compact_for_close(self) -> None:
        """Compact now as :meth:`close` would (writer, journal not empty; a failure is
        only a warning): a cache of the whole log saved right before closing then
        fits the snapshot, whose checksum of the events needs no reading of them."""
        self._storage.compact_for_close()

    def close(self) -> None:
        """Compact (see ``open``), release the lock. Idempotent."""
        self.db.close()

    def contents(self) -> tuple[dict[str, Any], list[dict[str, Any]], list[tuple[Any, Any]]]:
        """What this session holds, to be written again as another session
        (:meth:`fill`): its header (without the store's own schema), its events'
        documents in order, its meta entries (key, value)."""
        header = {k: v for k, v in self.header.items() if k != "schema"}
        docs = [doc for _, doc in self.events()]
        meta = [(d.get("key"), d.get("value")) for d in self.db.table("meta").all()]
        return header, docs, meta

    def fill(self, events: Iterable[Mapping[str, Any]], meta: Iterable[tuple[Any, Any]]) -> None:
        """A session just created: write the ``events`` (their documents, in order) and
        the ``meta`` entries (key, value; one whose key is not text is left out), then
        close it. A write that fails removes the session's files again (and is raised):
        no half-made session is left behind."""
        try:
            docs = list(events)
            if docs:
                self.append_many(docs)
            for key, value in meta:
                if isinstance(key, str) and key:
                    self.meta_set(key, value)
        except BaseException:
            self.close()
            for f in session_files(self.path):
                f.unlink(missing_ok=True)
            raise
        self.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "read-only" if self.readonly else "writer"
        return f"<EventLog {str(self.path)!r} {mode} events={self.count}>"
