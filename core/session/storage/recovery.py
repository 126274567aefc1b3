"""Loading a session: its snapshot (:mod:`core.session.storage.snapshot_open`), then
its journal's records on top, in order — checking each record, its place in the
sequence and what the lock file says the last writer saved, so that damage is
reported, never papered over; a torn last record (a crash mid-write) is dropped
with a warning. Also the journal records' own rules (:func:`journal_record`,
:func:`apply_record`), shared with a writer and a reader following one, and
:func:`peek` at a session's header."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from gmdesk.core.session.lock import read_saved
from gmdesk.core.session.storage import atomic
from gmdesk.core.session.storage.checksums import unseal
from gmdesk.core.session.storage.codec import loads
from gmdesk.core.session.storage.errors import (
    CorruptSaveError,
    FutureVersionError,
    StoreReadError,
)
from gmdesk.core.session.storage.format import (
    EVENTS_TABLE,
    FORMAT_TAG,
    JOURNAL_VERSION,
    META_TABLE,
    RECORD_LINE,
    SCHEMA_VERSION,
    SYSTEM_KEY,
    State,
    check_record,
)
from gmdesk.core.session.storage.gcpause import no_gc
from gmdesk.core.session.storage.migrations import migrate
from gmdesk.core.session.storage.paths import sidecar_paths
from gmdesk.core.session.storage.snapshot_open import open_snapshot, parse_snapshot, read_snapshot, state_from_snapshot
from gmdesk.core.session.storage.table import EventCounter

__all__ = [
    "READ_RETRIES",
    "JournalInfo",
    "apply_record",
    "journal_record",
    "read_journal",
    "check_saved",
    "load",
    "peek",
]

#: Reads of a snapshot and its journal a reader tries while the writer compacts.
READ_RETRIES = 60


class _Inconsistent(Exception):
    """Snapshot and journal come from different compactions (a reader raced the writer)."""


def _bad(path: Path, lineno: int, n: Any, problem: str) -> CorruptSaveError:
    where = f"line {lineno}" + (f" (journal record {n})" if type(n) is int else "")
    return CorruptSaveError(path, where, problem)


def apply_record(state: State, rec: dict[str, Any], path: Path, lineno: int) -> None:
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
        changes = rec.get("set")  # (journal format 3: header changes made with it)
        if changes is not None and type(changes) is not dict:
            raise _bad(path, lineno, n, "header changes are not a JSON object")
        table = state.tables.setdefault(tb, {})
        if tb == EVENTS_TABLE and doc_id > len(table) + 1:
            raise _bad(path, lineno, n, f"event seq {doc_id} leaves a gap after seq {len(table)}")
        table[str(doc_id)] = doc
        if changes:
            state.header.update(changes)
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


class JournalInfo:
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
        self.ident: tuple[int, int] | tuple[()] = ()  # (st_dev, st_ino) of the journal read


def read_journal(jpath: Path, state: State, *, retry_ok: bool) -> JournalInfo:
    """Apply the journal at ``jpath`` on top of ``state`` (records with n > state.lsn)."""
    j = JournalInfo()
    got = atomic.read_file(jpath)
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
        head = loads(lines[0])
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
    with no_gc():
        for i in range(1, len(lines)):
            lineno = i + 1
            n = None
            try:
                rec = journal_record(lines[i], version)
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
                apply_record(state, rec, jpath, lineno)
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


def journal_record(line: bytes, version: int) -> dict[str, Any]:
    """One journal line as its record; ValueError naming what is wrong."""
    record = unseal(line) if version >= 2 else line
    try:
        rec = loads(line if record is None else record)
    except ValueError as e:
        raise ValueError(f"not valid JSON ({e})") from None
    if record is None:
        raise ValueError("its checksum does not match (the record was changed or damaged)")
    if type(rec) is not dict:
        raise ValueError("not a JSON object")
    if version < 3 and "set" in rec and rec.get("op") == "put":
        raise ValueError(f"header changes on a put record, which a format-{version} journal never holds")
    return rec


def _journal_damage(
    jpath: Path, lines: list[bytes], i: int, record: int, state: State, problem: str
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


def check_saved(jpath: Path, journal: JournalInfo, lsn: int, saved: tuple[str, int] | None) -> None:
    """Damage when the lock file says the last writer saved more of this very journal
    than it holds: whole records cut off its end by another program (a crash only ever
    tears what was never acknowledged, and the lock file is written after the fsync)."""
    if saved is None or not journal.present or not journal.ident:
        return
    ident, last = saved
    if ident == f"{journal.ident[0]}:{journal.ident[1]}" and last > lsn:
        span = f"record {last}" if last == lsn + 1 else f"records {lsn + 1}–{last}"
        raise CorruptSaveError(
            jpath,
            f"after record {lsn}",
            f"{span} missing: gmdesk had saved up to record {last} in this journal, which now ends "
            f"at record {lsn} (cut short by another program, or an older copy put in its place; "
            f"not by a crash)",
        )


def load(
    path: Path, *, readonly: bool, stats: dict[str, Any] | None = None, saved: tuple[str, int] | None = None
) -> tuple[State, JournalInfo, bytes, os.stat_result, list[str]]:
    """Read snapshot + journal into a state. Readers retry while the writer compacts.

    ``saved``: what the lock file said the last writer saved, for a writer (it read it
    before taking the lock over); readers read it themselves, before the files (the
    writer writes it after them), see :func:`check_saved`.
    Returns (state, journal info, the snapshot's original bytes and stat, warnings).
    """
    paths = sidecar_paths(path)
    for attempt in range(READ_RETRIES):
        if stats is not None and attempt:
            stats["retries"] += 1
        if readonly:
            saved = read_saved(paths["lock"])
        data, snap_st, state = read_snapshot(path)
        warnings: list[str] = []
        if state is None:
            schema, raw = parse_snapshot(path, data)
            if schema >= 2:
                # a v2 file is only ever laid out as gmdesk writes it, its record on line 1
                raise CorruptSaveError(
                    path, RECORD_LINE, "the file is not laid out as gmdesk saved it (changed since; damaged)"
                )
            if schema == 1:
                check_record(path, raw[SYSTEM_KEY], None)
            if schema < SCHEMA_VERSION:
                raw = migrate(path, raw, schema)
            state = state_from_snapshot(path, raw, schema)
            del raw
        if state.schema == 0:
            jgot = atomic.read_file(paths["journal"])
            if jgot is not None and jgot[0]:
                raise CorruptSaveError(
                    paths["journal"],
                    "whole file",
                    "a journal beside an old-format (v0) session file; move it away to open the session",
                )
            return state, JournalInfo(), data, snap_st, warnings
        try:
            journal = read_journal(paths["journal"], state, retry_ok=readonly)
        except _Inconsistent:
            state.tables[EVENTS_TABLE].close()
            time.sleep(min(0.001 * (attempt + 1), 0.02))
            continue
        except BaseException:
            state.tables[EVENTS_TABLE].close()
            raise
        check_saved(paths["journal"], journal, state.lsn, saved)
        if not journal.present:
            if state.lsn > 0:
                warnings.append(
                    f"{paths['journal'].name} is missing or empty; the session was loaded from {path.name} alone"
                )
        elif journal.torn:
            what = "a write in progress, or cut short by a crash" if readonly else "cut short by a crash; removed"
            warnings.append(
                f"{paths['journal'].name}: ignored an incomplete last record "
                f"({journal.torn} bytes at line {journal.lines + 2}; {what}). Nothing else the session "
                f"keeps shows that more was saved; a cut made at the very end by another program "
                f"would look the same"
            )
        return state, journal, data, snap_st, warnings
    raise CorruptSaveError(
        paths["journal"],
        "line 1",
        "journal keeps starting after the snapshot (is another program rewriting the session?)",
    )


def _peek_snapshot(path: Path) -> dict[str, Any] | None:
    """The ``_gmdesk`` record from the snapshot's first line, or None when the file
    is not laid out the way this gmdesk writes it or does not end as a snapshot ends
    (cut short): then the caller reads it all, which says what is wrong."""
    fd = open_snapshot(path)
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            first = f.readline(1 << 20)
        tail = os.pread(fd, 16, max(0, os.fstat(fd).st_size - 16))
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    finally:
        os.close(fd)
    prefix = b'{"' + SYSTEM_KEY.encode() + b'":'
    if not first.startswith(prefix) or not first.rstrip().endswith((b",", b"}")) or not tail.rstrip().endswith(b"}"):
        return None
    text = first.rstrip()[len(prefix) : -1]
    try:
        sysrec = loads(text)
    except ValueError:
        return None
    if not isinstance(sysrec, dict) or sysrec.get("format") != FORMAT_TAG:
        return None
    schema = sysrec.get("schema")
    if type(schema) is int and schema > SCHEMA_VERSION:
        raise FutureVersionError(path, schema, SCHEMA_VERSION)
    if schema not in (1, SCHEMA_VERSION):
        return None
    check_record(path, sysrec, text)
    if (
        type(sysrec.get("lsn")) is not int
        or type(sysrec.get("count")) is not int
        or not isinstance(sysrec.get("header"), dict)
    ):
        return None
    return sysrec


def peek(path: str | os.PathLike[str]) -> tuple[dict[str, Any], int]:
    """``(header, count)`` of the session at ``path`` without loading its events: reads
    the snapshot's first line and the journal only (milliseconds, where a full
    read-only open of 50,000 events reads and checksums 30 MB: about 0.05 s). For
    session lists.

    The header is what :attr:`EventLog.header` would give (``schema`` included).
    Never locks or writes. Same errors as ``EventLog.open(path, readonly=True)``
    for what it reads (SessionMissingError, CorruptSaveError for a damaged journal,
    FutureVersionError, StoreReadError); a snapshot this gmdesk did not lay out
    (older format, hand-edited) or one cut short is read in full instead (:func:`load`).
    """
    path = Path(path)
    jpath = sidecar_paths(path)["journal"]
    for attempt in range(READ_RETRIES):
        saved = read_saved(sidecar_paths(path)["lock"])
        sysrec = _peek_snapshot(path)
        if sysrec is None:
            break
        state = State(
            SCHEMA_VERSION,
            sysrec["header"],
            sysrec["lsn"],
            {EVENTS_TABLE: EventCounter(sysrec["count"]), META_TABLE: {}},
        )
        try:
            journal = read_journal(jpath, state, retry_ok=True)
        except _Inconsistent:
            time.sleep(min(0.001 * (attempt + 1), 0.02))
            continue
        check_saved(jpath, journal, state.lsn, saved)
        return {**state.header, "schema": SCHEMA_VERSION}, len(state.tables[EVENTS_TABLE])
    state = load(path, readonly=True)[0]
    return {**state.header, "schema": SCHEMA_VERSION}, len(state.tables[EVENTS_TABLE])
