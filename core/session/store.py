"""The durable session store: a TinyDB database kept as a snapshot plus an append-only journal.

One session is one logical TinyDB database with the tables ``events`` (``doc_id`` =
the event's seq, 1-based and dense) and ``meta`` (small view state, one
``{"key": …, "value": …}`` document per key). On disk it is a small family of
files that belong together (pass the first one around; the others follow it):

``<name>.gmdesk``            the **snapshot**: one JSON object, the stock TinyDB
                             layout (``{"events": {"1": {…}, …}, "meta": {…}}``)
                             plus a ``"_gmdesk"`` record ``{"format": "gmdesk-session",
                             "schema": 1, "lsn": N, "count": E, "header": {…},
                             "events_bytes": L, "events_sha256": H}`` on the first
                             line, then one event per line. Only ever replaced whole
                             (temp file, fsync, rename, fsync dir). ``L`` and ``H``
                             (length and SHA-256 of the events' bytes) let an open
                             check the events without parsing them: each event is
                             parsed when first asked for (a snapshot without them, or
                             whose events do not match them, is parsed whole as before).
``<name>.gmdesk.journal``    the **journal**: JSON lines. Line 1 is
                             ``{"gmdesk_journal": 1, "base": B}``; every other line is
                             one change, numbered by ``n`` (the log sequence number,
                             counting every change: events, meta, header)::

                                 {"n":17,"op":"put","tb":"events","id":12,"doc":{…}}
                                 {"n":18,"op":"put","tb":"meta","id":1,"doc":{"key":"sel","value":"c3"}}
                                 {"n":19,"op":"hdr","set":{"name":"Night at the docks"}}
                                 {"n":20,"op":"del","tb":"meta","ids":[1]}

                             Lines are only ever appended (one ``write`` + ``fsync`` per
                             change or batch); a write that fails is cut back off.
``<name>.gmdesk.lock``       the writer lock (see :mod:`core.session.lock`).
``<name>.gmdesk.tmp``, ``<name>.gmdesk.journal.tmp``
                             compaction's temp files (only while it runs; a crash may
                             leave them, the next writer removes them).
``<name>.gmdesk.v0.bak``     the untouched original of a session upgraded from an
                             older format (``.v0.1.bak``… if that name is taken).
``<name>.gmdesk.ckpt``       a **checkpoint**: a cache a writer saves beside the log (the
                             session keeps its folded state there, see
                             :meth:`EventLog.write_checkpoint`); a JSON head line with
                             its own SHA-256, then the body. Never needed: a missing,
                             damaged or stale one is ignored.

Loading reads the snapshot (state up to ``lsn``), then the journal lines with
``n > lsn`` in order. **Compaction** writes the whole state as a new snapshot
(temp file in the same directory, fsync, ``os.replace``, fsync the directory) and
only then swaps in a fresh journal with ``base = lsn`` the same way. A crash at any
point leaves either the old snapshot with the full old journal, or the new snapshot
with the old journal (whose lines are all ``<= lsn`` and are skipped), or the new
pair: nothing acknowledged is lost and nothing is applied twice.

Readers (``readonly=True``) never lock and never write. They read the snapshot,
then the journal; a journal whose ``base`` lies beyond the snapshot they read
means the writer compacted in between, so they read again. They follow a live
writer by reading only the journal bytes added since last time, and reload from
scratch when the writer has swapped files.

All files are created with mode 0600. Stdlib :mod:`json` only.
"""

from __future__ import annotations

import copy
import fcntl
import gc
import hashlib
import json
import os
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tinydb import TinyDB
from tinydb.storages import Storage
from tinydb.table import Table

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.session.lock import FILE_MODE, LockedError, WriterLock

__all__ = [
    "SCHEMA_VERSION",
    "JOURNAL_VERSION",
    "COMPACT_AT",
    "EVENTS_TABLE",
    "META_TABLE",
    "EventLog",
    "SessionDB",
    "JournalStorage",
    "JournalTable",
    "StoreError",
    "CorruptSaveError",
    "FutureVersionError",
    "StoreWriteError",
    "StoreReadError",
    "SessionExistsError",
    "SessionMissingError",
    "LockedError",
    "sidecar_paths",
    "session_files",
    "peek",
    "MIGRATIONS",
]

#: Version of the snapshot layout this gmdesk writes (``_gmdesk.schema``).
SCHEMA_VERSION = 1
#: Version of the journal line format (``gmdesk_journal`` in the journal's first line).
#: v2: every record ends with its checksum ``"c"`` (CRC-32 of the record without it,
#: see :func:`_seal`); v1 journals (no checksums) are still read.
JOURNAL_VERSION = 2
#: Events per checksummed block of the snapshot (``events_crc32``): a changed byte
#: is located to within this many events.
BLOCK_EVENTS = 500
#: Value of ``_gmdesk.format``: what tells a gmdesk session from any other JSON file.
FORMAT_TAG = "gmdesk-session"
#: Top-level key of the snapshot holding the store's own record (not a TinyDB table).
SYSTEM_KEY = "_gmdesk"
#: The event log table: doc_id = seq.
EVENTS_TABLE = "events"
#: The view-state table: documents ``{"key": str, "value": JSON}``.
META_TABLE = "meta"
#: Default journal length (lines) at which a writer compacts on its own.
COMPACT_AT = 5000

#: Added to the session file's name: the journal, the lock file, temp files.
JOURNAL_SUFFIX = ".journal"
LOCK_SUFFIX = ".lock"
TMP_SUFFIX = ".tmp"
CHECKPOINT_SUFFIX = ".ckpt"
#: Value of ``format`` in a checkpoint's first line.
CHECKPOINT_TAG = "gmdesk-checkpoint"

_SEP = (",", ":")
_READ_RETRIES = 60


# --------------------------------------------------------------------------- errors


class StoreError(GmdeskError):
    """Base class of the store's errors; ``str(err)`` is one line naming the file."""


class CorruptSaveError(StoreError):
    """A session file cannot be read as a gmdesk session; nothing was changed on disk.

    ``path`` is the file, ``record`` where in it (``"line 17 (journal record 16)"``,
    ``"events seq 12"``, ``"whole file"``…) and ``problem`` what is wrong.
    """

    def __init__(self, path: str | os.PathLike, record: str, problem: str):
        self.path = Path(path)
        self.record = record
        self.problem = problem
        super().__init__(f"{self.path}: {record}: {problem} (file left untouched)")


class FutureVersionError(StoreError):
    """The session was saved by a newer gmdesk (format ``version`` > what this one reads)."""

    def __init__(self, path: str | os.PathLike, version: int, supported: int = SCHEMA_VERSION, what: str = "format"):
        self.path = Path(path)
        self.version = version
        self.supported = supported
        super().__init__(
            f"{self.path}: saved by a newer gmdesk ({what} v{version}; this gmdesk reads up to "
            f"v{supported}); update gmdesk to open it (file left untouched)"
        )


class StoreWriteError(StoreError):
    """A change could not be saved (disk full, file too large, I/O error, read-only).

    The change was not applied; everything acknowledged before it is intact on disk.
    """


class StoreReadError(StoreError):
    """A session file exists but cannot be read (permissions, I/O error).

    Never taken for an empty session."""


class SessionExistsError(StoreError, FileExistsError):
    """``EventLog.create`` refuses to overwrite an existing session file."""


class SessionMissingError(StoreError, FileNotFoundError):
    """There is no session file at the given path."""


# --------------------------------------------------------------------------- paths


def sidecar_paths(path: str | os.PathLike) -> dict[str, Path]:
    """Every file name a session at ``path`` may use, by role.

    Keys: ``snapshot`` (the path itself), ``journal``, ``lock``, ``snapshot_tmp``,
    ``journal_tmp``, ``checkpoint`` (a cache of the folded session, see
    :meth:`EventLog.read_checkpoint`), ``checkpoint_tmp``. Backups are found by
    :func:`session_files`.
    """
    p = Path(path)
    return {
        "snapshot": p,
        "journal": p.with_name(p.name + JOURNAL_SUFFIX),
        "lock": p.with_name(p.name + LOCK_SUFFIX),
        "snapshot_tmp": p.with_name(p.name + TMP_SUFFIX),
        "journal_tmp": p.with_name(p.name + JOURNAL_SUFFIX + TMP_SUFFIX),
        "checkpoint": p.with_name(p.name + CHECKPOINT_SUFFIX),
        "checkpoint_tmp": p.with_name(p.name + CHECKPOINT_SUFFIX + TMP_SUFFIX),
    }


def session_files(path: str | os.PathLike) -> list[Path]:
    """The files that exist for the session at ``path``: snapshot, journal, lock,
    leftover temp files and upgrade backups (``<name>.v<N>[.<k>].bak``).

    Copy snapshot + journal to duplicate a session (or close it first: a clean close
    compacts, leaving everything in the snapshot); delete all of them to delete it.
    """
    p = Path(path)
    found = [f for f in sidecar_paths(p).values() if f.exists()]
    if p.parent.is_dir():
        found += sorted(f for f in p.parent.glob(p.name + ".v*.bak") if f.is_file())
    return found


def _backup_path(path: Path, version: int) -> Path:
    return path.with_name(f"{path.name}.v{version}.bak")


# --------------------------------------------------------------------------- low-level I/O


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=_SEP, allow_nan=False)


_SEAL_LEN = len(b',"c":"00000000"}')


def _seal(record: str) -> str:
    """A journal line: the record (a JSON object's text) with its checksum as the last
    key: ``{"n":5,…}`` → ``{"n":5,…,"c":"1a2b3c4d"}`` (CRC-32 of the record's UTF-8)."""
    return f'{record[:-1]},"c":"{zlib.crc32(record.encode("utf-8")):08x}"}}'


def _unseal(line: bytes) -> bytes | None:
    """The record of a sealed journal line when its checksum matches, else None."""
    if len(line) <= _SEAL_LEN or line[-_SEAL_LEN:-10] != b',"c":"' or not line.endswith(b'"}'):
        return None
    record = line[:-_SEAL_LEN] + b"}"
    return record if line[-10:-2] == b"%08x" % zlib.crc32(record) else None


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_file(path: Path) -> tuple[bytes, os.stat_result] | None:
    """The whole file and its stat, None if it does not exist; StoreReadError otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read()
        return data, st
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        k = os.write(fd, view)
        view = view[k:]


def _unlink_quiet(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _write_error(path: Path, err: OSError, what: str) -> StoreWriteError:
    reason = err.strerror or str(err)
    return StoreWriteError(
        f"{path}: could not {what} ({reason}); the change was not saved, everything saved before it is intact"
    )


def _new_file(tmp: Path) -> int:
    """Create ``tmp`` afresh (mode 0600) for writing; return the descriptor."""
    _unlink_quiet(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return fd


def _publish(
    tmp: Path,
    final: Path,
    data: bytes,
    *,
    overwrite: bool,
    keep: Callable[[int], None] | None = None,
    hold: Callable[[int], None] | None = None,
) -> None:
    """Write ``data`` to ``tmp``, fsync, move it to ``final`` (atomically replacing it,
    or refusing if it exists when ``overwrite`` is False) and fsync the directory.

    ``keep``: hand a duplicate of the open descriptor (O_APPEND) to ``keep`` before
    the rename (the caller checks afterwards whether the file took the name).
    ``hold``: ``flock`` the new file before it takes the name and hand a duplicate
    descriptor (which keeps that lock) to ``hold`` (the writer's lock on the session
    file, see :mod:`core.session.lock`).
    Raises OSError (FileExistsError when refusing); ``tmp`` is removed on failure.
    """
    fd = _new_file(tmp)
    try:
        if hold is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            hold(os.dup(fd))
        _write_all(fd, data)
        if keep is not None:
            keep(os.dup(fd))
        os.fsync(fd)
        if overwrite:
            os.replace(tmp, final)
        else:
            try:
                os.link(tmp, final)
            except FileExistsError:
                raise
            except OSError:
                if final.exists():
                    raise FileExistsError(final) from None
                os.replace(tmp, final)
            _unlink_quiet(tmp)
    except BaseException:
        os.close(fd)
        _unlink_quiet(tmp)
        raise
    try:
        _fsync_dir(final.parent)
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        st, cur = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (cur.st_dev, cur.st_ino)


@contextmanager
def _no_gc():
    """Suspend the cyclic GC while parsing a big save (JSON docs hold no cycles);
    halves the load time of a large session."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# --------------------------------------------------------------------------- migrations


def _v0_to_v1(raw: dict) -> dict:
    """v0: a plain stock-TinyDB JSON file (``TinyDB(path)`` with JSONStorage) holding
    the tables ``header`` (document 1 = the session header), ``events`` and ``meta``.
    v1 moves the header into the ``_gmdesk`` record and adds the journal position."""
    header_table = raw.get("header") or {}
    if not isinstance(header_table, dict):
        raise ValueError("table 'header' is not an object")
    header = header_table.get("1", {}) if header_table else {}
    if not isinstance(header, dict):
        raise ValueError("header document 1 is not an object")
    out: dict = {
        SYSTEM_KEY: {
            "format": FORMAT_TAG,
            "schema": 1,
            "lsn": 0,
            "header": {k: v for k, v in header.items() if k != "schema"},
        }
    }
    for name, table in raw.items():
        if name != "header":
            out[name] = table
    out.setdefault(EVENTS_TABLE, {})
    out.setdefault(META_TABLE, {})
    return out


#: from-version -> function(raw snapshot dict) -> raw snapshot dict of the next version.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {0: _v0_to_v1}


def _migrate(path: Path, raw: dict, version: int) -> dict:
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:  # pragma: no cover - a gap in the table is a programming error
            raise CorruptSaveError(path, "whole file", f"no upgrade path from format v{version}")
        try:
            raw = step(raw)
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            raise CorruptSaveError(path, f"format v{version}", f"cannot upgrade: {e}") from None
        version += 1
    return raw


# --------------------------------------------------------------------------- parsing


class _Inconsistent(Exception):
    """Snapshot and journal come from different compactions (a reader raced the writer)."""


class _State:
    """What a session holds in memory: header, tables (str doc ids), lsn."""

    __slots__ = ("schema", "header", "lsn", "tables", "extra")

    def __init__(
        self, schema: int, header: dict, lsn: int, tables: dict[str, dict[str, dict]], extra: dict | None = None
    ):
        self.schema = schema
        self.header = header
        self.lsn = lsn
        self.tables = tables
        #: keys of the ``_gmdesk`` record this gmdesk does not know (a newer minor
        #: version's): written back unchanged by every compaction
        self.extra = extra or {}


#: the ``_gmdesk`` record's keys this gmdesk writes itself
_SYSREC_KEYS = (
    "format",
    "schema",
    "lsn",
    "count",
    "header",
    "events_bytes",
    "events_sha256",
    "events_crc32",
    "header_crc32",
    "tail_crc32",
)


def _extra(sysrec: dict) -> dict:
    return {k: v for k, v in sysrec.items() if k not in _SYSREC_KEYS}


class _EventTable(Mapping):
    """The ``events`` table: ``str(seq) -> document`` for seq 1..n (dense), parsed on demand.

    Events ``1..base`` are kept as the snapshot holds them: one run of bytes
    ``\\n"1":T1,\\n"2":T2,…\\n"base":Tbase`` (the *region*; ``T`` is each event's JSON
    text), parsed one document at a time when first asked for (or all at once, see
    :meth:`all_docs`). Later events (journal, appends) are kept parsed, with their
    text once known. Opening a long session therefore costs a read and a checksum,
    not a parse of every event; a compaction joins bytes instead of re-encoding.

    The region's SHA-256 (:meth:`digest`) is what the snapshot records, so a loaded
    region is known to be exactly what gmdesk wrote. Documents handed out are the
    table's own (TinyDB copies them; :class:`EventLog` hands out copies).
    """

    __slots__ = ("_buf", "_start", "_end", "_base", "_nl", "_docs", "_texts", "_base_hash", "_run", "path")

    def __init__(
        self,
        buf: bytes = b"",
        start: int = 0,
        end: int = 0,
        base: int = 0,
        base_hash: Any = None,
        path: Path | None = None,
    ):
        self._buf = buf  # bytes holding the region at [start, end)
        self._start = start
        self._end = end
        self._base = base  # events held in the region
        self._nl: list[int] | None = None  # offset in buf of the "\n" opening each region event (lazy)
        self._docs: list[dict | None] = [None] * base  # parsed documents, index seq - 1
        self._texts: list[str | bytes | None] = []  # texts of events base+1..n (None: not known yet)
        self._base_hash = base_hash  # sha256 of the region, when computed
        self._run: tuple[Any, int] | None = None  # (sha256 of events 1..k, k) for k >= base
        self.path = path

    @classmethod
    def from_docs(cls, docs: list[dict], path: Path | None = None) -> _EventTable:
        table = cls(path=path)
        table._docs = list(docs)
        table._texts = [None] * len(docs)
        return table

    # ---- Mapping

    def __len__(self) -> int:
        return len(self._docs)

    def __iter__(self):
        return map(str, range(1, len(self._docs) + 1))

    def _index(self, key: Any) -> int:
        if type(key) is not str or not key.isdigit() or key[0] == "0":
            raise KeyError(key)
        i = int(key)
        if i > len(self._docs):
            raise KeyError(key)
        return i

    def __contains__(self, key: Any) -> bool:
        try:
            self._index(key)
        except KeyError:
            return False
        return True

    def __getitem__(self, key: Any) -> dict:
        return self.doc(self._index(key))

    def items(self):
        self.all_docs()
        return super().items()

    def values(self):
        self.all_docs()
        return super().values()

    def __repr__(self) -> str:
        return f"<events table: {len(self._docs)} events, {self._base} in the snapshot region>"

    # ---- documents

    def doc(self, seq: int) -> dict:
        """The document of event ``seq`` (1-based; the table's own object)."""
        d = self._docs[seq - 1]
        if d is None:
            start, end = self._span(seq)
            try:
                d = json.loads(self._buf[start:end])
            except ValueError as e:  # the region matched its checksum: only a bug gets here
                raise CorruptSaveError(self.path or "session", f"events seq {seq}", f"not valid JSON ({e})") from None
            if type(d) is not dict:
                raise CorruptSaveError(self.path or "session", f"table 'events' document {seq}", "not a JSON object")
            self._docs[seq - 1] = d
        return d

    def all_docs(self) -> list[dict]:
        """Every document, oldest first (the table's own objects). Parses whatever is
        still unparsed, all at once when that is most of the region."""
        docs = self._docs
        missing = docs.count(None)
        if missing > 64 and missing * 3 > self._base:  # most of them: one parse of the whole region
            with _no_gc():
                parsed = json.loads(b"{" + self._buf[self._start : self._end] + b"}")
            if len(parsed) != self._base:
                raise CorruptSaveError(self.path or "session", "table 'events'", "events are not numbered 1..n")
            for i in range(self._base):
                if docs[i] is None:
                    d = parsed[str(i + 1)]
                    if type(d) is not dict:
                        raise CorruptSaveError(
                            self.path or "session", f"table 'events' document {i + 1}", "not a JSON object"
                        )
                    docs[i] = d
        elif missing:
            for i in range(self._base):
                if docs[i] is None:
                    self.doc(i + 1)
        return docs

    def _lines(self) -> list[int]:
        nl = self._nl
        if nl is None:
            nl = []
            find, end = self._buf.find, self._end
            p = find(b"\n", self._start, end)
            while p >= 0:
                nl.append(p)
                p = find(b"\n", p + 1, end)
            if len(nl) != self._base:  # pragma: no cover - checked when the region was loaded
                raise CorruptSaveError(self.path or "session", "table 'events'", "events are not one per line")
            self._nl = nl
        return nl

    def _span(self, seq: int) -> tuple[int, int]:
        """Where event ``seq``'s text lies in the buffer (seq <= base)."""
        nl = self._lines()
        start = nl[seq - 1] + len(str(seq)) + 4  # \n"<seq>":
        end = nl[seq] - 1 if seq < self._base else self._end  # the comma before the next line
        return start, end

    def text(self, seq: int) -> bytes:
        """Event ``seq``'s JSON text as stored (UTF-8)."""
        if seq <= self._base:
            start, end = self._span(seq)
            return self._buf[start:end]
        k = seq - self._base - 1
        t = self._texts[k]
        if t is None:
            t = self._texts[k] = _dumps(self._docs[seq - 1]).encode("utf-8")
        elif type(t) is str:
            t = self._texts[k] = t.encode("utf-8")
        return t

    # ---- changes

    def __setitem__(self, key: str, doc: dict) -> None:
        """Put event ``int(key)``: the next one (append) or an existing one (replaced)."""
        i = int(key)
        n = len(self._docs)
        if i == n + 1:
            self._docs.append(doc)
            self._texts.append(None)
            return
        if not 1 <= i <= n:
            raise KeyError(key)
        if i <= self._base:
            self._unbase(i)
        self._docs[i - 1] = doc
        self._texts[i - self._base - 1] = None
        if self._run is not None and self._run[1] >= i:
            self._run = None

    def truncate(self, n: int) -> None:
        """Forget the events after ``n`` (an append that was taken back; n >= base)."""
        if n < self._base:  # pragma: no cover - appends never reach into the region
            raise ValueError("cannot truncate the snapshot's events")
        del self._docs[n:]
        del self._texts[n - self._base :]
        if self._run is not None and self._run[1] > n:
            self._run = None

    def set_text(self, seq: int, text: str | bytes) -> None:
        """Remember the JSON text a new event was written with (saves encoding it again)."""
        if seq > self._base:
            self._texts[seq - self._base - 1] = text

    def _unbase(self, i: int) -> None:
        """Event ``i`` of the region is being replaced: the region keeps events < i only."""
        texts = [self.text(k) for k in range(i, self._base + 1)]
        nl = self._lines()
        self._end = nl[i - 1] - 1 if i > 1 else self._start
        self._base = i - 1
        self._nl = nl[: i - 1]
        self._texts = texts + self._texts
        self._base_hash = None
        self._run = None

    # ---- the region and its checksum

    def _piece(self, seq: int) -> bytes:
        return (b',\n"' if seq > 1 else b'\n"') + str(seq).encode() + b'":' + self.text(seq)

    def digest(self, upto: int | None = None) -> str:
        """SHA-256 (hex) of events ``1..upto`` laid out as in the snapshot's region
        (default: every event). Equal digests mean identical event texts."""
        n = len(self._docs) if upto is None else upto
        if not 0 <= n <= len(self._docs):
            raise ParamError("upto", f"must be from 0 to {len(self._docs)} (got {upto!r})")
        if n < self._base:
            end = self._lines()[n] - 1 if n else self._start
            return hashlib.sha256(memoryview(self._buf)[self._start : end]).hexdigest()
        if self._base_hash is None:
            self._base_hash = hashlib.sha256(memoryview(self._buf)[self._start : self._end])
        run = self._run
        if run is None or run[1] > n:
            run = (self._base_hash.copy(), self._base)
        h, k = run
        for seq in range(k + 1, n + 1):
            h.update(self._piece(seq))
        self._run = (h, n)
        return h.hexdigest()

    def region(self) -> bytes:
        """Every event as the snapshot's ``events`` object holds them (between its braces)."""
        head = self._buf[self._start : self._end]
        if len(self._docs) == self._base:
            return head
        return head + b"".join(self._piece(seq) for seq in range(self._base + 1, len(self._docs) + 1))

    def rebase(self, buf: bytes, start: int, end: int) -> None:
        """The snapshot now holds every event at ``buf[start:end]``: keep that instead."""
        n = len(self._docs)
        h = None
        if self._run is not None and self._run[1] == n:
            h = self._run[0].copy()
        nl = self._nl
        if nl is not None and self._base == n and start == self._start and buf is self._buf:
            nl = list(nl)
        else:
            nl = None
        self._buf, self._start, self._end, self._base = buf, start, end, n
        self._nl = nl
        self._texts = []
        self._base_hash = h
        self._run = None


def _parse_snapshot(path: Path, data: bytes) -> tuple[int, dict]:
    """Decode the snapshot; return (schema, raw dict). Raises Corrupt/FutureVersion."""
    if not data.strip():
        raise CorruptSaveError(path, "whole file", "the file is empty (not a gmdesk session)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise CorruptSaveError(path, f"line {line} (byte {e.start})", "not UTF-8 text") from None
    try:
        with _no_gc():
            raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise CorruptSaveError(path, f"line {e.lineno} column {e.colno}", f"not valid JSON ({e.msg})") from None
    if not isinstance(raw, dict):
        raise CorruptSaveError(path, "whole file", "not a JSON object (not a gmdesk session)")
    sysrec = raw.get(SYSTEM_KEY)
    if sysrec is None:
        if isinstance(raw.get(EVENTS_TABLE), dict):
            return 0, raw
        raise CorruptSaveError(path, "whole file", f"not a gmdesk session (no {SYSTEM_KEY!r} record)")
    if not isinstance(sysrec, dict) or sysrec.get("format") != FORMAT_TAG:
        raise CorruptSaveError(path, f"record {SYSTEM_KEY!r}", f"not a gmdesk session (format is not {FORMAT_TAG!r})")
    schema = sysrec.get("schema")
    if type(schema) is not int or schema < 1:
        raise CorruptSaveError(path, f"record {SYSTEM_KEY!r}", f"schema must be a whole number ≥ 1 (got {schema!r})")
    if schema > SCHEMA_VERSION:
        raise FutureVersionError(path, schema)
    return schema, raw


def _check_table(path: Path, name: str, table: Any) -> None:
    if isinstance(table, _EventTable):
        return  # built from a checked region or from checked documents
    if not isinstance(table, dict):
        raise CorruptSaveError(path, f"table {name!r}", "not a JSON object")
    for key, doc in table.items():
        if type(doc) is not dict:
            raise CorruptSaveError(path, f"table {name!r} document {key}", "not a JSON object")
    if name == EVENTS_TABLE:
        n = len(table)
        if n and not all(str(i) in table for i in range(1, n + 1)):
            missing = next(i for i in range(1, n + 1) if str(i) not in table)
            raise CorruptSaveError(
                path, f"events seq {missing}", f"missing (events must be numbered 1..{n} without gaps)"
            )
    else:
        for key in table:
            if not (key.isdigit() and key[0] != "0"):
                raise CorruptSaveError(path, f"table {name!r} document {key!r}", "id is not a whole number ≥ 1")


def _state_from_snapshot(path: Path, raw: dict, schema: int) -> _State:
    sysrec = raw[SYSTEM_KEY]
    lsn = sysrec.get("lsn", 0)
    if type(lsn) is not int or lsn < 0:
        raise CorruptSaveError(path, f"record {SYSTEM_KEY!r}", f"lsn must be a whole number ≥ 0 (got {lsn!r})")
    header = sysrec.get("header", {})
    if not isinstance(header, dict):
        raise CorruptSaveError(path, f"record {SYSTEM_KEY!r}", "header is not a JSON object")
    tables: dict[str, dict[str, dict]] = {}
    for name, table in raw.items():
        if name == SYSTEM_KEY:
            continue
        _check_table(path, name, table)
        tables[name] = table
    events = tables.get(EVENTS_TABLE, {})
    tables[EVENTS_TABLE] = _EventTable.from_docs([events[str(i)] for i in range(1, len(events) + 1)], path)
    tables.setdefault(META_TABLE, {})
    return _State(schema, header, lsn, tables, _extra(sysrec))


_EVENTS_OPEN = b'"' + EVENTS_TABLE.encode() + b'":{'


def _block_crcs(region: bytes | memoryview, count: int) -> str:
    """CRC-32 of each run of ``BLOCK_EVENTS`` events of a snapshot's events region
    (each event's line starts with a newline), as 8 hex digits per block."""
    out = []
    find = region.find if isinstance(region, bytes) else bytes(region).find
    data = region if isinstance(region, bytes) else bytes(region)
    start, seen, p = 0, 0, find(b"\n")
    while p >= 0 and seen < count:
        seen += 1
        if seen % BLOCK_EVENTS == 1 and seen > 1:
            out.append(b"%08x" % zlib.crc32(data[start:p]))
            start = p
        p = find(b"\n", p + 1)
    if count:
        out.append(b"%08x" % zlib.crc32(data[start:]))
    return b"".join(out).decode()


def _changed_events(data: bytes, start: int, end: int, count: int, sysrec: dict) -> str:
    """Which events of a snapshot whose events do not match their checksum changed,
    in words ("events #501–#1000"), from the per-block checksums when it has them
    (a block whose checksum matches is unchanged; from a block whose lines moved on,
    everything is counted as changed)."""
    want = sysrec.get("events_crc32")
    blocks = -(-count // BLOCK_EVENTS)
    if type(want) is str and len(want) == 8 * blocks and blocks:
        nls = []
        p = data.find(b"\n", start)
        while p >= 0 and len(nls) <= count:
            nls.append(p)
            p = data.find(b"\n", p + 1)
        bad = []
        for k in range(blocks):
            a = k * BLOCK_EVENTS
            if a >= len(nls):
                bad.append(k)
                continue
            b = nls[(k + 1) * BLOCK_EVENTS] if k + 1 < blocks and (k + 1) * BLOCK_EVENTS < len(nls) else end
            if b"%08x" % zlib.crc32(data[nls[a] if k else start : b]) != want[8 * k : 8 * k + 8].encode():
                bad.append(k)
        if bad:
            first, last = bad[0] * BLOCK_EVENTS + 1, min(count, (bad[-1] + 1) * BLOCK_EVENTS)
            if len(bad) == bad[-1] - bad[0] + 1:
                return f"events #{first}–#{last}" if first != last else f"event #{first}"
            return "events " + ", ".join(f"#{k * BLOCK_EVENTS + 1}–#{min(count, (k + 1) * BLOCK_EVENTS)}" for k in bad)
    return f"events #1–#{count}" if count > 1 else "the events"


def _fast_snapshot(path: Path, data: bytes) -> _State | None:
    """The state of a snapshot laid out as this gmdesk writes it, without parsing its
    events: the ``_gmdesk`` record (first line) gives the events' byte length and
    SHA-256, the events follow as one run of lines, the other tables after them.

    None when anything differs (an older or hand-edited file, a checksum that does
    not match): the caller then parses the whole file, which also says what is wrong."""
    prefix = b'{"' + SYSTEM_KEY.encode() + b'":'
    if not data.startswith(prefix):
        return None
    nl = data.find(b"\n")
    if nl < 0 or data[nl - 1 : nl] != b",":
        return None
    try:
        sysrec = json.loads(data[len(prefix) : nl - 1])
    except ValueError:
        return None
    if type(sysrec) is not dict or sysrec.get("format") != FORMAT_TAG or sysrec.get("schema") != SCHEMA_VERSION:
        return None
    lsn, count, length, digest = (
        sysrec.get("lsn"),
        sysrec.get("count"),
        sysrec.get("events_bytes"),
        sysrec.get("events_sha256"),
    )
    header = sysrec.get("header")
    if type(digest) is not str:
        return None  # an older layout: parsed whole
    # From here on the file says it is exactly what gmdesk wrote: anything that does
    # not match is damage, reported — never parsed anyway and stamped with a new checksum.
    if (
        type(lsn) is not int
        or lsn < 0
        or type(count) is not int
        or count < 0
        or type(length) is not int
        or length < 0
        or type(header) is not dict
    ):
        raise CorruptSaveError(path, f"line 1 (record {SYSTEM_KEY!r})", "the record describing the session is damaged")
    start = nl + 1 + len(_EVENTS_OPEN)
    end = start + length
    if (
        data[nl + 1 : start] != _EVENTS_OPEN
        or data[end : end + 1] != b"}"
        or data.count(b"\n", start, end) != count
        or (count and not data.startswith(b'\n"1":', start))
    ):
        raise CorruptSaveError(
            path,
            _changed_events(data, start, end, count, sysrec),
            "changed since gmdesk saved them (bytes added or removed)",
        )
    h = hashlib.sha256(memoryview(data)[start:end])
    if h.hexdigest() != digest:
        raise CorruptSaveError(
            path,
            _changed_events(data, start, end, count, sysrec),
            "changed since gmdesk saved them (their checksum does not match)",
        )
    hcrc, tcrc = sysrec.get("header_crc32"), sysrec.get("tail_crc32")
    if type(hcrc) is int and zlib.crc32(_dumps(header).encode("utf-8")) != hcrc:
        raise CorruptSaveError(
            path, "line 1 (the session's header)", "changed since gmdesk saved it (its checksum does not match)"
        )
    if type(tcrc) is int and zlib.crc32(data[end:]) != tcrc:
        raise CorruptSaveError(
            path, "after the events (view state)", "changed since gmdesk saved it (its checksum does not match)"
        )
    rest = data[end + 1 :]
    try:
        if rest.strip() == b"}":
            others: Any = {}
        elif rest.startswith(b","):
            others = json.loads(b"{" + rest[1:])
        else:
            raise ValueError("not a JSON object")
    except ValueError as e:
        raise CorruptSaveError(path, "after the events", f"the view state is damaged ({e})") from None
    if type(others) is not dict or EVENTS_TABLE in others or SYSTEM_KEY in others:
        raise CorruptSaveError(path, "after the events", "the view state is damaged")
    tables: dict[str, Any] = {EVENTS_TABLE: _EventTable(data, start, end, count, h, path)}
    for name, table in others.items():
        _check_table(path, name, table)
        tables[name] = table
    tables.setdefault(META_TABLE, {})
    return _State(SCHEMA_VERSION, header, lsn, tables, _extra(sysrec))


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
    got = _read_file(path)
    if got is None:
        raise SessionMissingError(f"{path}: no such session file")
    try:
        _parse_snapshot(path, got[0])
    except CorruptSaveError:
        if path.name.endswith(".gmdesk"):
            raise  # a damaged session: say exactly what is wrong
        raise CorruptSaveError(path, "whole file", "not a gmdesk session") from None


def _bad(path: Path, lineno: int, n: Any, problem: str) -> CorruptSaveError:
    where = f"line {lineno}" + (f" (journal record {n})" if type(n) is int else "")
    return CorruptSaveError(path, where, problem)


def _apply(state: _State, rec: dict, path: Path, lineno: int) -> None:
    """Apply one journal record to ``state`` (validating it)."""
    op = rec.get("op")
    n = rec.get("n")
    if op == "put":
        tb, doc_id, doc = rec.get("tb"), rec.get("id"), rec.get("doc")
        if type(tb) is not str or not tb or tb == SYSTEM_KEY:
            raise _bad(path, lineno, n, f"bad table name {tb!r}")
        if type(doc_id) is not int or doc_id < 1:
            raise _bad(path, lineno, n, f"bad document id {doc_id!r}")
        if type(doc) is not dict:
            raise _bad(path, lineno, n, "document is not a JSON object")
        table = state.tables.setdefault(tb, {})
        if tb == EVENTS_TABLE and doc_id > len(table) + 1:
            raise _bad(path, lineno, n, f"event seq {doc_id} leaves a gap after seq {len(table)}")
        table[str(doc_id)] = doc
    elif op == "del":
        tb, ids = rec.get("tb"), rec.get("ids")
        if type(tb) is not str or not tb or tb == SYSTEM_KEY:
            raise _bad(path, lineno, n, f"bad table name {tb!r}")
        if tb == EVENTS_TABLE:
            raise _bad(path, lineno, n, "removes events (the event log is append-only)")
        if type(ids) is not list or not all(type(i) is int for i in ids):
            raise _bad(path, lineno, n, "ids must be a list of whole numbers")
        table = state.tables.setdefault(tb, {})
        for i in ids:
            table.pop(str(i), None)
    elif op == "hdr":
        changes = rec.get("set")
        if type(changes) is not dict:
            raise _bad(path, lineno, n, "header changes are not a JSON object")
        state.header.update(changes)
    else:
        raise _bad(path, lineno, n, f"unknown change {op!r} (expected put, del or hdr)")


class _Journal:
    """What loading the journal found."""

    __slots__ = ("present", "base", "last", "lines", "good_len", "torn", "ident", "version", "blank")

    def __init__(self) -> None:
        self.version = JOURNAL_VERSION
        self.blank = 0  # blank lines at the end (tolerated)
        self.present = False  # a journal with a header exists
        self.base = 0  # its base lsn
        self.last = 0  # n of its last record (== base when it has none)
        self.lines = 0  # number of records
        self.good_len = 0  # bytes up to and including the last complete line
        self.torn = 0  # bytes of an incomplete last line (dropped)
        self.ident: tuple = ()


def _read_journal(jpath: Path, state: _State, *, retry_ok: bool) -> _Journal:
    """Apply the journal at ``jpath`` on top of ``state`` (records with n > state.lsn)."""
    j = _Journal()
    got = _read_file(jpath)
    if got is None:
        return j
    data, st = got
    j.ident = (st.st_dev, st.st_ino)
    if not data:
        return j
    end = data.rfind(b"\n")
    if end < 0:
        raise CorruptSaveError(jpath, "line 1", "journal header is incomplete")
    j.good_len = end + 1
    j.torn = len(data) - end - 1
    lines = data[:end].split(b"\n")
    while len(lines) > 1 and not lines[-1].strip():  # a stray blank line at the end: tolerated
        lines.pop()
        j.blank += 1
    if j.blank:
        j.good_len = sum(map(len, lines)) + len(lines)  # a writer appends after the last record
    try:
        head = json.loads(lines[0])
    except ValueError as e:
        raise CorruptSaveError(jpath, "line 1", f"journal header is not valid JSON ({e})") from None
    if not isinstance(head, dict) or type(head.get("gmdesk_journal")) is not int or type(head.get("base")) is not int:
        raise CorruptSaveError(jpath, "line 1", "not a gmdesk journal header")
    if head["gmdesk_journal"] > JOURNAL_VERSION:
        raise FutureVersionError(jpath, head["gmdesk_journal"], JOURNAL_VERSION, what="journal format")
    base = head["base"]
    if base > state.lsn:
        if retry_ok:
            raise _Inconsistent()
        raise CorruptSaveError(
            jpath, "line 1", f"journal starts after the snapshot (journal base {base} > snapshot record {state.lsn})"
        )
    j.present = True
    j.base = base
    j.version = version = head["gmdesk_journal"]
    expected = base
    snap_lsn = state.lsn
    with _no_gc():
        for i in range(1, len(lines)):
            lineno = i + 1
            n = None
            try:
                rec = _journal_record(lines[i], version)
                n = rec.get("n")
                if n != expected + 1 or type(n) is not int:
                    gap = ""
                    if type(n) is int and n <= expected:
                        gap = f" (record {n} again: a duplicated or older line)"
                    elif type(n) is int:
                        gap = (
                            f" (record {expected + 1} is missing)"
                            if n == expected + 2
                            else f" (records {expected + 1}–{n - 1} are missing)"
                        )
                    raise ValueError(f"out of order: expected journal record {expected + 1}{gap}")
            except ValueError as e:
                raise _journal_damage(jpath, lines, i, n if type(n) is int else expected + 1, state, str(e)) from None
            expected = n
            if n > snap_lsn:
                _apply(state, rec, jpath, lineno)
    j.last = expected
    j.lines = len(lines) - 1
    if expected < snap_lsn:
        raise CorruptSaveError(
            jpath,
            "whole file",
            f"older than the session file: the journal ends at record {expected}, the session "
            f"file holds records up to {snap_lsn} (changes saved after record {snap_lsn} "
            f"may be missing)",
        )
    if expected > state.lsn:
        state.lsn = expected
    return j


def _journal_record(line: bytes, version: int) -> dict:
    """One journal line as its record; ValueError naming what is wrong."""
    record = _unseal(line) if version >= 2 else line
    try:
        rec = json.loads(line if record is None else record)
    except ValueError as e:
        raise ValueError(f"not valid JSON ({e})") from None
    if record is None:
        raise ValueError("its checksum does not match (the record was changed or damaged)")
    if type(rec) is not dict:
        raise ValueError("not a JSON object")
    return rec


def _journal_damage(
    jpath: Path, lines: list[bytes], i: int, record: int, state: _State, problem: str
) -> CorruptSaveError:
    """The error for a damaged journal record at ``lines[i]``: which record and which
    events from there on cannot be trusted."""
    first_seq = len(state.tables.get(EVENTS_TABLE, {})) + 1
    later = sum(1 for line in lines[i:] if b'"tb":"events"' in line)
    if later:
        seqs = f"events #{first_seq}–#{first_seq + later - 1}" if later > 1 else f"event #{first_seq}"
    else:
        seqs = "no events"
    records = len(lines) - i
    where = f"line {i + 1} (journal record {record})"
    err = CorruptSaveError(
        jpath,
        where,
        f"{problem}; {records} record{'s' if records != 1 else ''} from here on cannot be trusted ({seqs})",
    )
    return err


def _load(
    path: Path, *, readonly: bool, stats: dict | None = None
) -> tuple[_State, _Journal, bytes, os.stat_result, list[str]]:
    """Read snapshot + journal into a state. Readers retry while the writer compacts.

    Returns (state, journal info, the snapshot's original bytes and stat, warnings).
    """
    paths = sidecar_paths(path)
    for attempt in range(_READ_RETRIES):
        if stats is not None and attempt:
            stats["retries"] += 1
        got = _read_file(path)
        if got is None:
            raise SessionMissingError(f"{path}: no such session file")
        data, snap_st = got
        warnings: list[str] = []
        state = _fast_snapshot(path, data)
        if state is None:
            schema, raw = _parse_snapshot(path, data)
            if schema < SCHEMA_VERSION:
                raw = _migrate(path, raw, schema)
            state = _state_from_snapshot(path, raw, schema)
            del raw
        if state.schema == 0:
            jgot = _read_file(paths["journal"])
            if jgot is not None and jgot[0]:
                raise CorruptSaveError(
                    paths["journal"],
                    "whole file",
                    "a journal beside an old-format (v0) session file; move it away to open the session",
                )
            return state, _Journal(), data, snap_st, warnings
        try:
            journal = _read_journal(paths["journal"], state, retry_ok=readonly)
        except _Inconsistent:
            time.sleep(min(0.001 * (attempt + 1), 0.02))
            continue
        if not journal.present:
            if state.lsn > 0:
                warnings.append(
                    f"{paths['journal'].name} is missing or empty; the session was loaded from {path.name} alone"
                )
        elif journal.torn:
            what = "a write in progress, or cut short by a crash" if readonly else "cut short by a crash; removed"
            warnings.append(
                f"{paths['journal'].name}: ignored an incomplete last record "
                f"({journal.torn} bytes at line {journal.lines + 2}; {what})"
            )
        return state, journal, data, snap_st, warnings
    raise CorruptSaveError(
        paths["journal"],
        "line 1",
        "journal keeps starting after the snapshot (is another program rewriting the session?)",
    )


class _EventCounter(dict):
    """Stands in for the events table when only the count matters (see :func:`peek`)."""

    def __init__(self, n: int):
        super().__init__()
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, key: str, value: Any) -> None:
        self.n = max(self.n, int(key))


def _peek_snapshot(path: Path) -> dict | None:
    """The ``_gmdesk`` record from the snapshot's first line, or None when the file
    is not laid out the way this gmdesk writes it (then the caller reads it all)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise SessionMissingError(f"{path}: no such session file") from None
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            first = f.readline(1 << 20)
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    finally:
        os.close(fd)
    prefix = b'{"' + SYSTEM_KEY.encode() + b'":'
    if not first.startswith(prefix) or not first.rstrip().endswith((b",", b"}")):
        return None
    try:
        sysrec = json.loads(first.rstrip()[len(prefix) : -1])
    except ValueError:
        return None
    if not isinstance(sysrec, dict) or sysrec.get("format") != FORMAT_TAG:
        return None
    schema = sysrec.get("schema")
    if type(schema) is int and schema > SCHEMA_VERSION:
        raise FutureVersionError(path, schema)
    if (
        schema != SCHEMA_VERSION
        or type(sysrec.get("lsn")) is not int
        or type(sysrec.get("count")) is not int
        or not isinstance(sysrec.get("header"), dict)
    ):
        return None
    return sysrec


def peek(path: str | os.PathLike) -> tuple[dict, int]:
    """``(header, count)`` of the session at ``path`` without loading its events: reads
    the snapshot's first line and the journal only (milliseconds, where a full
    read-only open of 50,000 events reads and checksums 30 MB: about 0.05 s). For
    session lists.

    The header is what :attr:`EventLog.header` would give (``schema`` included).
    Never locks or writes. Same errors as ``EventLog.open(path, readonly=True)``
    for what it reads (SessionMissingError, CorruptSaveError for a damaged journal,
    FutureVersionError, StoreReadError); a snapshot this gmdesk did not lay out
    (older format, hand-edited) is read in full instead.
    """
    path = Path(path)
    jpath = sidecar_paths(path)["journal"]
    for attempt in range(_READ_RETRIES):
        sysrec = _peek_snapshot(path)
        if sysrec is None:
            break
        state = _State(
            SCHEMA_VERSION,
            sysrec["header"],
            sysrec["lsn"],
            {EVENTS_TABLE: _EventCounter(sysrec["count"]), META_TABLE: {}},
        )
        try:
            _read_journal(jpath, state, retry_ok=True)
        except _Inconsistent:
            time.sleep(min(0.001 * (attempt + 1), 0.02))
            continue
        return {**state.header, "schema": SCHEMA_VERSION}, len(state.tables[EVENTS_TABLE])
    with EventLog.open(path, readonly=True) as log:
        return log.header, log.count


# --------------------------------------------------------------------------- TinyDB storage + table


class JournalStorage(Storage):
    """A TinyDB ``Storage`` keeping a session as snapshot + append-only journal.

    ``read()`` returns the in-memory tables (no disk access). Changes go through
    :meth:`commit` (one journal write + fsync per call, O(size of the change));
    ``write(data)`` — used by TinyDB only for whole-database operations such as
    ``drop_table`` — replaces the state by compacting. Constructed by
    :class:`SessionDB`; use :class:`EventLog` rather than this class directly.

    ``mode``: ``"create"`` (new session with ``header``; refuses an existing file),
    ``"open"`` (writer: takes the lock) or ``"readonly"`` (never locks or writes).
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        mode: str = "open",
        header: Mapping | None = None,
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
        self._jsize = 0  # bytes of the journal known good
        self._jlines = 0  # records in the journal
        self._next_auto = compact_at  # journal length that triggers auto-compaction
        self._broken: str | None = None  # set when a failed write could not be cut back
        self._closed = False
        self._maxid: dict[str, int] = {}
        self._snap_ident: tuple = ()  # readers: which snapshot they loaded
        self._j_ident: tuple = ()  # readers: which journal they follow
        self._jpos = 0  # readers: journal bytes consumed
        self._jversion = JOURNAL_VERSION  # readers: format of the journal they follow
        self._state = _State(SCHEMA_VERSION, {}, 0, {EVENTS_TABLE: _EventTable(path=self.path), META_TABLE: {}})
        if mode == "create":
            self._create(header)
        elif mode == "open":
            self._open_writer()
        else:
            self._reload()

    # ---- opening

    def _create(self, header: Mapping | None) -> None:
        head = _check_header(header)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(self.path):
            raise SessionExistsError(f"{self.path} already exists; choose another name")
        made = False
        self._take_lock()
        try:
            if self.path.exists():
                raise SessionExistsError(f"{self.path} already exists; choose another name")
            self._remove_temps()
            _unlink_quiet(self.paths["checkpoint"])  # a cache left by an earlier session of that name
            self._state = _State(SCHEMA_VERSION, head, 0, {EVENTS_TABLE: _EventTable(path=self.path), META_TABLE: {}})
            try:
                # journal first: a crash before the snapshot exists leaves no session at all
                made = True
                self._swap_journal()
                try:
                    _publish(
                        self.paths["snapshot_tmp"],
                        self.path,
                        self._snapshot_bytes()[0],
                        overwrite=False,
                        hold=self._lock.add_session_file,
                    )  # type: ignore[union-attr]
                finally:
                    self._lock.prune_session_files()  # type: ignore[union-attr]
            except FileExistsError:
                raise SessionExistsError(f"{self.path} already exists; choose another name") from None
            except OSError as e:
                raise _write_error(self.path, e, "create the session") from None
        except BaseException:
            if made:
                # a failed create (disk full…) leaves nothing behind: no journal, no lock,
                # no session file (only ever the one this create wrote and still locks)
                if self._lock is not None and self._lock.holds_session_file():
                    _unlink_quiet(self.path)
                for key in ("journal", "snapshot_tmp", "journal_tmp", "lock"):
                    _unlink_quiet(self.paths[key])
            self._drop_fds()
            raise

    def _take_lock(self) -> None:
        self._lock = WriterLock(self.paths["lock"], self.path)
        try:
            self._lock.acquire()
        except OSError as e:
            if e.filename is not None and Path(e.filename) == self.path:
                raise StoreReadError(f"{self.path}: cannot read ({e.strerror or e})") from None
            raise StoreWriteError(
                f"{self.path}: cannot open for writing ({e.strerror or e}); open it read-only instead"
            ) from None

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
            state, journal, original, _st, warnings = _load(self.path, readonly=False)
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
            if journal.torn or journal.blank:
                try:
                    os.ftruncate(fd, journal.good_len)
                    os.fsync(fd)
                except OSError as e:
                    raise _write_error(self.paths["journal"], e, "remove an incomplete last record") from None
            self._jsize = journal.good_len
            self._jlines = journal.lines
            self._next_auto = max(self.compact_at, self._jlines + 1)
            if self._jlines >= self.compact_at:
                self._auto_compact()
        except StoreError:
            self._drop_fds()
            raise
        except OSError as e:
            self._drop_fds()
            raise _write_error(self.path, e, "open the session for writing") from None
        except BaseException:
            self._drop_fds()
            raise

    def _write_backup(self, original: bytes, version: int) -> Path:
        backup = _backup_path(self.path, version)
        k = 0
        while True:
            try:
                if backup.exists() and backup.read_bytes() == original:
                    return backup
            except OSError:
                pass  # unreadable: keep it, pick the next name
            try:
                _publish(backup.with_name(backup.name + TMP_SUFFIX), backup, original, overwrite=False)
                return backup
            except FileExistsError:
                k += 1
                backup = self.path.with_name(f"{self.path.name}.v{version}.{k}.bak")
            except OSError as e:
                raise _write_error(backup, e, "write the backup before upgrading") from None

    def _remove_temps(self) -> None:
        for key in ("snapshot_tmp", "journal_tmp", "checkpoint_tmp"):
            _unlink_quiet(self.paths[key])
        for tmp in self.path.parent.glob(self.path.name + ".v*.bak" + TMP_SUFFIX):
            _unlink_quiet(tmp)

    # ---- reading (TinyDB interface)

    def read(self) -> dict[str, dict[str, Any]]:
        """The current tables (a new outer dict; the table dicts are the live cache)."""
        return dict(self._state.tables)

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        """Replace the whole database (TinyDB's drop_table / drop_tables): compacts."""
        with self._mutex:
            self._check_writable()
            old = self._state.tables[EVENTS_TABLE]
            tables: dict[str, Any] = {}
            for name, table in data.items():
                if table is old:  # the events, untouched (TinyDB passes the tables it read back)
                    tables[str(name)] = table
                else:
                    tables[str(name)] = {str(k): v for k, v in table.items()}
            new = tables.get(EVENTS_TABLE, {})
            if new is not old:
                if any(k not in new or new[k] != v for k, v in old.items()):
                    raise ValueError("the event log is append-only: events cannot be removed or dropped")
            for name, table in tables.items():
                try:
                    _check_table(self.path, name, table)
                except CorruptSaveError as e:
                    raise ValueError(f"{e.record}: {e.problem}") from None
            if new is not old:
                tables[EVENTS_TABLE] = _EventTable.from_docs([new[str(i)] for i in range(1, len(new) + 1)], self.path)
            tables.setdefault(META_TABLE, {})
            self.compact(tables)
            self._maxid.clear()

    # ---- writing

    def _check_writable(self) -> None:
        if self.readonly:
            raise StoreWriteError(f"{self.path}: opened read-only; nothing was saved")
        if self._closed:
            raise StoreWriteError(f"{self.path}: the session is closed; nothing was saved")
        if self._broken:
            raise StoreWriteError(self._broken)

    def next_id(self, table: str) -> int:
        """The id the next new document of ``table`` gets (events: count + 1)."""
        top = self._maxid.get(table)
        if top is None:
            docs = self._state.tables.get(table, {})
            top = max((int(k) for k in docs), default=0)
            self._maxid[table] = top
        return top + 1

    def commit(self, ops: list[tuple]) -> None:
        """Durably apply changes: ``("put", table, id, doc)``, ``("del", table, ids)``,
        ``("hdr", changes)``. All lines are written with one ``write`` and one fsync,
        then applied in memory. Raises ParamError for a document that is not JSON
        data, ValueError for a change the event log forbids, StoreWriteError when the
        disk refuses (nothing applied, journal cut back)."""
        if not ops:
            return
        with self._mutex:
            self._check_writable()
            lines: list[str] = []
            recs: list[dict] = []
            n = self._state.lsn
            events_count = len(self._state.tables.get(EVENTS_TABLE, {}))
            for op in ops:
                n += 1
                kind = op[0]
                if kind == "put":
                    _, tb, doc_id, doc = op
                    if tb == EVENTS_TABLE:
                        if doc_id > events_count + 1:
                            raise ValueError(f"event seq {doc_id} would leave a gap after seq {events_count}")
                        events_count = max(events_count, doc_id)
                    s = _json_text(doc, "doc")
                    lines.append(f'{{"n":{n},"op":"put","tb":{_dumps(tb)},"id":{int(doc_id)},"doc":{s}}}')
                    recs.append({"n": n, "op": "put", "tb": tb, "id": int(doc_id), "doc": s})
                elif kind == "del":
                    _, tb, ids = op
                    if tb == EVENTS_TABLE:
                        raise ValueError("the event log is append-only: events cannot be removed")
                    ids = [int(i) for i in ids]
                    lines.append(f'{{"n":{n},"op":"del","tb":{_dumps(tb)},"ids":{_dumps(ids)}}}')
                    recs.append({"n": n, "op": "del", "tb": tb, "ids": ids})
                elif kind == "hdr":
                    s = _json_text(op[1], "header")
                    lines.append(f'{{"n":{n},"op":"hdr","set":{s}}}')
                    recs.append({"n": n, "op": "hdr", "set": s})
                else:
                    raise ValueError(f"unknown change {kind!r}")
            try:
                data = ("\n".join(map(_seal, lines)) + "\n").encode("utf-8")
            except UnicodeEncodeError as e:
                raise ParamError("doc", f"must be plain JSON text without lone surrogates ({e.reason})") from None
            start = self._jsize
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
            if self._jlines >= self._next_auto:
                self._auto_compact()

    def _memory_undo(self, recs: list[dict]) -> tuple:
        """What :meth:`_restore` needs to put memory back as it is now."""
        state = self._state
        docs = []
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

    def _restore(self, undo: tuple) -> None:
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

    def _apply_in_memory(self, recs: list[dict], n: int, lines: int) -> None:
        state = self._state
        for rec in recs:
            text = None
            if rec["op"] == "put":
                text = rec["doc"]
                rec["doc"] = json.loads(text)
                top = self._maxid.get(rec["tb"])
                if top is not None and rec["id"] > top:
                    self._maxid[rec["tb"]] = rec["id"]
            elif rec["op"] == "hdr":
                rec["set"] = json.loads(rec["set"])
            else:
                self._maxid.pop(rec["tb"], None)
            _apply(state, rec, self.paths["journal"], 0)
            if text is not None and rec["tb"] == EVENTS_TABLE:
                state.tables[EVENTS_TABLE].set_text(rec["id"], text)
        state.lsn = n
        self._jlines += lines

    def _append_durably(self, data: bytes) -> None:
        fd = self._fd
        assert fd is not None
        start = self._jsize
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as e:
            err = _write_error(self.paths["journal"], e, "save")
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
            self._next_auto = self._jlines + self.compact_at
        else:
            if self._compact_failing:
                self._compact_failing = False
                self.notices.append(f"{self.path.name}: compacting works again")

    def _snapshot_bytes(self, tables: dict[str, Any] | None = None) -> tuple[bytes, int, int]:
        """The snapshot file's bytes, and where its events lie in them (start, end).

        Layout (one document per line, so that a GM or a diff can read the save)::

            {"_gmdesk":{…, "events_bytes": L, "events_sha256": H},
            "events":{
            "1":{…},
            …
            "N":{…}},
            "meta":{…}}

        ``L`` and ``H`` are the length and SHA-256 of the events' bytes (from just after
        ``"events":{`` to the closing brace): an open reads them without parsing
        (see :func:`_fast_snapshot`). Events never change once written, so their
        bytes are joined, never encoded again."""
        state = self._state
        tables = state.tables if tables is None else tables
        events = tables[EVENTS_TABLE]
        region = events.region()
        enc = json.JSONEncoder(ensure_ascii=False, separators=_SEP, allow_nan=False, check_circular=False).encode
        parts = ["}"]
        for name, table in tables.items():
            if name == EVENTS_TABLE:
                continue
            parts.append(",\n" + enc(name) + ":{")
            parts.append(",".join(f'\n"{k}":{enc(doc)}' for k, doc in table.items()))
            parts.append("}")
        parts.append("}\n")
        tail = "".join(parts).encode("utf-8")
        sysrec = {
            **state.extra,
            "format": FORMAT_TAG,
            "schema": SCHEMA_VERSION,
            "lsn": state.lsn,
            "count": len(events),
            "header": state.header,
            "header_crc32": zlib.crc32(enc(state.header).encode("utf-8")),
            "events_bytes": len(region),
            "events_sha256": events.digest(),
            "events_crc32": _block_crcs(region, len(events)),
            "tail_crc32": zlib.crc32(tail),
        }
        head = ('{"_gmdesk":' + enc(sysrec) + ",\n" + enc(EVENTS_TABLE) + ":{").encode("utf-8")
        data = b"".join((head, region, tail))
        return data, len(head), len(head) + len(region)

    def _swap_journal(self) -> None:
        """Put a fresh journal (base = current lsn) in place and append to it from now on."""
        head = _dumps({"gmdesk_journal": JOURNAL_VERSION, "base": self._state.lsn}) + "\n"
        data = head.encode("utf-8")
        got: list[int] = []
        try:
            _publish(self.paths["journal_tmp"], self.paths["journal"], data, overwrite=True, keep=got.append)
        finally:
            # even when a later step failed (or was interrupted): once the new journal
            # has the name, it is the one to append to
            for fd in got:
                if _same_file(fd, self.paths["journal"]):
                    old, self._fd = self._fd, fd
                    if old is not None:
                        os.close(old)
                    self._jsize = len(data)
                    self._jlines = 0
                    self._next_auto = self.compact_at
                else:
                    os.close(fd)

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
                f"{self.path}: {problem} while this gmdesk had the session open; nothing more is "
                f"saved here (close it, then `gmdesk check` the session)"
            )
            raise StoreWriteError(self._broken)

    def compact(self, tables: dict[str, dict[str, dict]] | None = None) -> None:
        """Write the whole state as a new snapshot, then start an empty journal.

        Order: snapshot temp → fsync → rename over the snapshot → fsync dir → journal
        temp → fsync → rename over the journal → fsync dir. A crash anywhere loses
        nothing acknowledged; a failure raises StoreWriteError and leaves the
        previous files in use."""
        with self._mutex:
            self._check_writable()
            self._check_own_files()
            with _no_gc():
                data, start, end = self._snapshot_bytes(tables)
            try:
                _publish(self.paths["snapshot_tmp"], self.path, data, overwrite=True, hold=self._lock.add_session_file)  # type: ignore[union-attr]
            except OSError as e:
                raise _write_error(self.path, e, "compact the session") from None
            finally:
                self._lock.prune_session_files()  # type: ignore[union-attr]
            if tables is not None:
                self._state.tables = tables
            self._state.tables[EVENTS_TABLE].rebase(data, start, end)
            try:
                self._swap_journal()
            except OSError as e:
                # the new snapshot holds everything; the old journal (all lines <= lsn)
                # stays valid and in use
                raise _write_error(self.paths["journal"], e, "start a new journal") from None

    # ---- readers

    def _reload(self) -> bool:
        before = (self._state.lsn, len(self._state.tables.get(EVENTS_TABLE, {})))
        state, journal, _data, st, warnings = _load(self.path, readonly=True, stats=self.stats)
        self.stats["loads"] += 1
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
                    rec = _journal_record(line, self._jversion)
                    if rec.get("n") != state.lsn + 1:
                        return self._reload()
                    _apply(state, rec, jpath, 0)
                    state.lsn = rec["n"]
            except (ValueError, CorruptSaveError):
                return self._reload()
            self._maxid = {EVENTS_TABLE: len(state.tables[EVENTS_TABLE])}
            self._jpos += end + 1
            return True

    # ---- header

    @property
    def header(self) -> dict:
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
                if (
                    not self.readonly
                    and self.compact_on_close
                    and self._jlines > 0
                    and self._fd is not None
                    and not self._broken
                ):
                    try:
                        self.compact()
                    except StoreWriteError as e:
                        self.warnings.append(f"could not compact on close: {e}")
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


def _json_text(value: Any, option: str) -> str:
    try:
        return _dumps(value)
    except (TypeError, ValueError) as e:
        raise ParamError(
            option, f"must be plain JSON data (objects, lists, strings, numbers, true/false/null): {e}"
        ) from None


def _check_header(header: Mapping | None) -> dict:
    if header is None:
        header = {}
    if not isinstance(header, Mapping):
        raise ParamError("header", f"must be a mapping of names to JSON values (got {type(header).__name__})")
    head = dict(header)
    schema = head.pop("schema", SCHEMA_VERSION)
    if schema != SCHEMA_VERSION:
        raise ParamError("schema", f"is set by the store: {SCHEMA_VERSION} (got {schema!r})")
    return json.loads(_json_text(head, "header"))


class JournalTable(Table):
    """A TinyDB ``Table`` whose inserts append one journal line (fsynced) and add the
    document to the in-memory cache, without rebuilding the table.

    ``insert`` / ``insert_multiple`` cost O(size of the new documents) however long
    the table. Every other TinyDB write (``update``, ``remove``, ``upsert``…) works
    too: it runs on a copy of the table and journals only the documents that
    changed (O(table), fine for the small ``meta`` table). Documents are stored as
    their JSON round trip (tuples become lists, non-string keys strings), exactly
    what a reload gives back.
    """

    def insert(self, document: Mapping) -> int:
        """Insert one document; returns its id. Durable when it returns."""
        return self.insert_multiple([document])[0]

    def insert_multiple(self, documents: Iterable[Mapping]) -> list[int]:
        """Insert documents with one journal write and one fsync; returns their ids."""
        storage: JournalStorage = self._storage  # type: ignore[assignment]
        with storage._mutex:
            return self._insert_locked(storage, documents)

    def _insert_locked(self, storage: JournalStorage, documents: Iterable[Mapping]) -> list[int]:
        table = storage.read().get(self.name, {})
        next_id = storage.next_id(self.name)
        ids: list[int] = []
        ops: list[tuple] = []
        used: set[int] = set()
        for document in documents:
            if not isinstance(document, Mapping):
                raise ValueError("Document is not a Mapping")
            if isinstance(document, self.document_class):
                doc_id = int(document.doc_id)
                if str(doc_id) in table or doc_id in used:
                    raise ValueError(f"Document with ID {doc_id} already exists")
            else:
                doc_id = next_id
            next_id = max(next_id, doc_id + 1)
            used.add(doc_id)
            ids.append(doc_id)
            ops.append(("put", self.name, doc_id, dict(document)))
        storage.commit(ops)
        self.clear_cache()
        return ids

    def _get_next_id(self) -> int:
        return self._storage.next_id(self.name)  # type: ignore[attr-defined]

    def _update_table(self, updater: Callable[[dict[int, Mapping]], None]) -> None:
        storage: JournalStorage = self._storage  # type: ignore[assignment]
        with storage._mutex:
            self._update_locked(storage, updater)

    def _update_locked(self, storage: JournalStorage, updater: Callable[[dict[int, Mapping]], None]) -> None:
        raw = storage.read().get(self.name, {})
        table = {int(k): copy.deepcopy(v) for k, v in raw.items()}
        updater(table)
        ops: list[tuple] = []
        gone = [int(k) for k in raw if int(k) not in table]
        if gone:
            ops.append(("del", self.name, gone))
        for doc_id, doc in table.items():
            old = raw.get(str(doc_id))
            if old is None or old != doc:
                ops.append(("put", self.name, doc_id, dict(doc)))
        storage.commit(ops)
        self.clear_cache()


class SessionDB(TinyDB):
    """``tinydb.TinyDB`` with :class:`JournalTable` tables and :class:`JournalStorage`."""

    table_class = JournalTable
    default_table_name = EVENTS_TABLE
    default_storage_class = JournalStorage


# --------------------------------------------------------------------------- the event log


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
        cls, path: str | os.PathLike, header: Mapping, *, compact_at: int = COMPACT_AT, compact_on_close: bool = True
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
        path: str | os.PathLike,
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
        costs a little more at open. Default 5,000.
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

    def take_notices(self) -> list[str]:
        """Problems found since the last call (a compaction that could not be written,
        and that it works again), each reported once; empty when all is well."""
        notes, self._storage.notices = self._storage.notices, []
        return notes

    @property
    def header(self) -> dict:
        """A copy of the header: what ``create`` was given (as updated by
        :meth:`set_header`) plus ``schema`` (the store's format version)."""
        head = copy.deepcopy(self._storage.header)
        head["schema"] = SCHEMA_VERSION
        return head

    @property
    def count(self) -> int:
        """Number of events (= the last seq). Readers: as of the last refresh."""
        return len(self._storage.read()[EVENTS_TABLE])

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
            changed = {k: v for k, v in changes.items() if k not in current or _dumps(current[k]) != _json_text(v, k)}
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
        text = _json_text(value, "value")
        with self._storage._mutex:
            found = self._meta_find(key)
            if found is not None:
                doc_id, doc = found
                if "value" in doc and _dumps(doc["value"]) == text:
                    return
            else:
                doc_id = self._storage.next_id(META_TABLE)
            self._storage.commit([("put", META_TABLE, doc_id, {"key": key, "value": json.loads(text)})])
            self._meta.clear_cache()

    def _meta_find(self, key: str) -> tuple[int, dict] | None:
        for doc_id, doc in self._storage.read().get(META_TABLE, {}).items():
            if doc.get("key") == key:
                return int(doc_id), doc
        return None

    # ---- events

    def append(self, doc: Mapping) -> int:
        """Append one event; returns its seq (1-based, dense). Flushed and fsynced
        before it returns; cost does not grow with the history (except the one append
        in every ``compact_at`` that triggers a compaction).

        ParamError if ``doc`` is not a mapping of JSON data; StoreWriteError if the
        disk refuses (nothing appended, earlier events intact)."""
        return self.append_many([doc])[0]

    def append_many(self, docs: Iterable[Mapping]) -> list[int]:
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

    def events(self, copy: bool = True) -> list[tuple[int, dict]]:
        """Every event as ``(seq, doc)``, oldest first. Each doc is a fresh top-level
        dict (nested values are shared with the store: do not mutate them).
        ``copy=False`` hands out the store's own dicts (faster; the caller promises
        not to change them). Readers: as of the last refresh."""
        with self._storage._mutex, _no_gc():  # (tens of thousands of new objects, no cycles)
            docs = self._storage.read()[EVENTS_TABLE].all_docs()
            if copy:
                return [(i, dict(d)) for i, d in enumerate(docs, 1)]
            return list(enumerate(docs, 1))

    def event(self, seq: int, copy: bool = True) -> dict:
        """The document of event ``seq`` (1..count) — parses only that one event.
        ``copy=False``: the store's own dict (do not change it). ParamError when there
        is no such event. Readers: as of the last refresh."""
        with self._storage._mutex:
            table = self._storage.read()[EVENTS_TABLE]
            if type(seq) is not int or not 1 <= seq <= len(table):
                raise ParamError("seq", f"must be an event number from 1 to {len(table)} (got {seq!r})")
            doc = table.doc(seq)
        return dict(doc) if copy else doc

    def since(self, seq: int, copy: bool = True) -> list[tuple[int, dict]]:
        """Events after ``seq`` (``since(0)`` = all), oldest first. A read-only log
        first refreshes from disk, so a follower calling ``since(last_seen)`` picks up
        whatever the writer saved, also across the writer's compactions."""
        if type(seq) is not int or seq < 0:
            raise ParamError("seq", f"must be a whole number ≥ 0 (got {seq!r})")
        if self.readonly and not self.closed:
            self.refresh()
        with self._storage._mutex:
            table = self._storage.read()[EVENTS_TABLE]
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
            table = self._storage.read()[EVENTS_TABLE]
            if upto is not None and (type(upto) is not int or not 0 <= upto <= len(table)):
                raise ParamError("upto", f"must be a whole number from 0 to {len(table)} (got {upto!r})")
            return table.digest(upto)

    # ---- checkpoint (a cache of what the log folds to; see read_checkpoint)

    def read_checkpoint(self) -> tuple[dict, bytes] | None:
        """The checkpoint saved beside the session (``<name>.gmdesk.ckpt``) as
        ``(head, body)``, or None when there is none or it is damaged (a checkpoint is
        only a cache: never an error). ``head`` is the JSON object given to
        :meth:`write_checkpoint`, ``body`` its bytes (checked against their SHA-256)."""
        path = sidecar_paths(self.path)["checkpoint"]
        try:
            got = _read_file(path)
        except StoreReadError:
            return None
        if got is None:
            return None
        data = got[0]
        nl = data.find(b"\n")
        if nl < 0:
            return None
        try:
            head = json.loads(data[:nl])
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

    def write_checkpoint(self, head: Mapping, body: bytes) -> None:
        """Save a checkpoint (writers only): ``head`` a small JSON object, ``body`` any
        bytes. Replaced whole (temp file, rename); not fsynced — a checkpoint lost or
        torn by a crash is only a cache, found damaged and ignored by
        :meth:`read_checkpoint`. StoreWriteError when it cannot be written."""
        storage = self._storage
        with storage._mutex:
            storage._check_writable()
            paths = sidecar_paths(self.path)
            record = dict(head, format=CHECKPOINT_TAG, bytes=len(body), sha256=hashlib.sha256(body).hexdigest())
            data = _json_text(record, "head").encode("utf-8") + b"\n" + body
            try:
                fd = _new_file(paths["checkpoint_tmp"])
                try:
                    _write_all(fd, data)
                finally:
                    os.close(fd)
                os.replace(paths["checkpoint_tmp"], paths["checkpoint"])
            except OSError as e:
                _unlink_quiet(paths["checkpoint_tmp"])
                raise _write_error(paths["checkpoint"], e, "save the checkpoint") from None

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
        module docstring). StoreWriteError if the disk refuses; nothing is lost then."""
        self._storage.compact()

    def close(self) -> None:
        """Compact (see ``open``), release the lock. Idempotent."""
        self.db.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "read-only" if self.readonly else "writer"
        return f"<EventLog {str(self.path)!r} {mode} events={self.count}>"
