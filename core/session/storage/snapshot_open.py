"""Reading a snapshot into a :class:`State`: parsed whole (an older or unusual file),
checked whole without parsing its events (:func:`fast_snapshot`), or, when long,
opened lazily from its first line and what follows its events
(:func:`lazy_snapshot`: the :class:`EventTable` reads its events from the file by
offset when asked for, checking each block of ``BLOCK_EVENTS`` against its CRC-32).
The layout is :mod:`core.session.storage.format`'s."""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from pathlib import Path
from typing import Any

from gmdesk.core.session.storage.checksums import BLOCK_EVENTS, changed_events
from gmdesk.core.session.storage.codec import dumps, loads
from gmdesk.core.session.storage.errors import (
    CorruptSaveError,
    FutureVersionError,
    SessionMissingError,
    StoreReadError,
)
from gmdesk.core.session.storage.format import (
    EVENTS_TABLE,
    FORMAT_TAG,
    META_TABLE,
    SCHEMA_VERSION,
    SYSTEM_KEY,
    State,
    Tables,
    check_record,
    check_table,
    record_extra,
)
from gmdesk.core.session.storage.gcpause import no_gc
from gmdesk.core.session.storage.region import SnapshotFile
from gmdesk.core.session.storage.table import EventTable

__all__ = [
    "EAGER_CHECK_BYTES",
    "parse_snapshot",
    "state_from_snapshot",
    "fast_snapshot",
    "lazy_snapshot",
    "open_snapshot",
    "read_snapshot",
]

#: A snapshot whose events take up to this many bytes is read whole and checked
#: whole (its SHA-256) at every open. A longer one is opened from its first line and
#: what follows its events: its events stay in the file, each block of
#: ``BLOCK_EVENTS`` is checked against its CRC-32 when first read, and the whole
#: (SHA-256 too) by every compaction and by ``gmdesk check`` — an open costs what
#: the session's state costs, not its history, and damage is still never certified.
EAGER_CHECK_BYTES = 4 << 20


def parse_snapshot(path: Path, data: bytes) -> tuple[int, dict[str, Any]]:
    """Decode the snapshot; return (schema, raw dict). Raises Corrupt/FutureVersion."""
    if not data.strip():
        raise CorruptSaveError(path, "whole file", "the file is empty (not a gmdesk session)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise CorruptSaveError(path, f"line {line} (byte {e.start})", "not UTF-8 text") from None
    try:
        with no_gc():
            raw = loads(text)
    except json.JSONDecodeError as e:
        raise CorruptSaveError(path, f"line {e.lineno} column {e.colno}", f"not valid JSON ({e.msg})") from None
    except ValueError as e:
        raise CorruptSaveError(path, "whole file", f"not a gmdesk session ({e})") from None
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
        raise FutureVersionError(path, schema, SCHEMA_VERSION)
    return schema, raw


def state_from_snapshot(path: Path, raw: dict[str, Any], schema: int) -> State:
    sysrec = raw[SYSTEM_KEY]
    lsn = sysrec.get("lsn", 0)
    if type(lsn) is not int or lsn < 0:
        raise CorruptSaveError(path, f"record {SYSTEM_KEY!r}", f"lsn must be a whole number ≥ 0 (got {lsn!r})")
    header = sysrec.get("header", {})
    if not isinstance(header, dict):
        raise CorruptSaveError(path, f"record {SYSTEM_KEY!r}", "header is not a JSON object")
    tables: Tables = {}
    for name, table in raw.items():
        if name == SYSTEM_KEY:
            continue
        check_table(path, name, table)
        tables[name] = table
    events = tables.get(EVENTS_TABLE, {})
    tables[EVENTS_TABLE] = EventTable.from_docs([events[str(i)] for i in range(1, len(events) + 1)], path)
    tables.setdefault(META_TABLE, {})
    return State(schema, header, lsn, tables, record_extra(sysrec))


_EVENTS_OPEN = b'"' + EVENTS_TABLE.encode() + b'":{'


_PREFIX = b'{"' + SYSTEM_KEY.encode() + b'":'


def _first_record(data: bytes) -> tuple[dict[str, Any], bytes, int] | None:
    """The ``_gmdesk`` record on the first line of ``data``, laid out as this gmdesk
    writes it: (the record, its text, where the line ends); else None."""
    if not data.startswith(_PREFIX):
        return None
    nl = data.find(b"\n")
    if nl < 0 or data[nl - 1 : nl] != b",":
        return None
    text = data[len(_PREFIX) : nl - 1]
    try:
        sysrec = loads(text)
    except ValueError:
        return None
    if type(sysrec) is not dict or sysrec.get("format") != FORMAT_TAG:
        return None
    return sysrec, text, nl


def fast_snapshot(path: Path, data: bytes) -> State | None:
    """The state of a snapshot laid out as this gmdesk writes it, without parsing its
    events: the ``_gmdesk`` record (first line) gives the events' byte length and
    SHA-256, the events follow as one run of lines, the other tables after them.

    None when anything differs (an older or hand-edited file, a checksum that does
    not match): the caller then parses the whole file, which also says what is wrong."""
    got = _first_record(data)
    if got is None or got[0].get("schema") not in (1, SCHEMA_VERSION):
        return None
    sysrec, text, nl = got
    check_record(path, sysrec, text)
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
            changed_events(data, start, end, count, sysrec),
            "changed since gmdesk saved them (bytes added or removed)",
        )
    h = hashlib.sha256(memoryview(data)[start:end])
    if h.hexdigest() != digest:
        raise CorruptSaveError(
            path,
            changed_events(data, start, end, count, sysrec),
            "changed since gmdesk saved them (their checksum does not match)",
        )
    hcrc, tcrc = sysrec.get("header_crc32"), sysrec.get("tail_crc32")
    if type(hcrc) is int and zlib.crc32(dumps(header).encode("utf-8")) != hcrc:
        raise CorruptSaveError(
            path, "line 1 (the session's header)", "changed since gmdesk saved it (its checksum does not match)"
        )
    if type(tcrc) is int and zlib.crc32(data[end:]) != tcrc:
        raise CorruptSaveError(
            path, "after the events (view state)", "changed since gmdesk saved it (its checksum does not match)"
        )
    others = _other_tables(path, data[end + 1 :])
    tables: dict[str, Any] = {EVENTS_TABLE: EventTable(data, start, end, count, h, path)}
    for name, table in others.items():
        check_table(path, name, table)
        tables[name] = table
    tables.setdefault(META_TABLE, {})
    return State(sysrec["schema"], header, lsn, tables, record_extra(sysrec))


def lazy_snapshot(path: Path, fd: int, size: int) -> State | None:
    """The state of a long snapshot laid out as this gmdesk writes it, reading only its
    first line and what follows its events (see :data:`EAGER_CHECK_BYTES`); its
    events are read from ``fd`` when asked for (the table keeps ``fd`` open). None when
    the snapshot is short, or anything differs from that layout: the caller then
    reads the whole file (:func:`fast_snapshot`), which also says what is wrong."""
    try:
        first = os.pread(fd, 1 << 20, 0)
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    got = _first_record(first)
    if got is None or got[0].get("schema") != SCHEMA_VERSION:
        return None
    sysrec, text, nl = got
    lsn, count, length, digest, crcs = (
        sysrec.get("lsn"),
        sysrec.get("count"),
        sysrec.get("events_bytes"),
        sysrec.get("events_sha256"),
        sysrec.get("events_crc32"),
    )
    if type(length) is not int or length <= EAGER_CHECK_BYTES:
        return None
    check_record(path, sysrec, text)
    header = sysrec.get("header")
    if type(lsn) is not int or type(count) is not int or type(digest) is not str or type(crcs) is not str:
        return None
    if type(header) is not dict or len(crcs) != 8 * -(-count // BLOCK_EVENTS):
        return None
    start = nl + 1 + len(_EVENTS_OPEN)
    end = start + length
    if first[nl + 1 : start] != _EVENTS_OPEN or end >= size:
        return None
    try:
        opening = os.pread(fd, 8, start)
        rest = _pread_all(fd, end, size)
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    if (count and not opening.startswith(b'\n"1":')) or not rest.startswith(b"}"):
        return None  # bytes added or removed: the whole read says where
    tcrc, hcrc = sysrec.get("tail_crc32"), sysrec.get("header_crc32")
    if type(tcrc) is not int or zlib.crc32(rest) != tcrc:
        return None  # (the whole read says what changed)
    if type(hcrc) is not int or zlib.crc32(dumps(header).encode("utf-8")) != hcrc:
        raise CorruptSaveError(
            path, "line 1 (the session's header)", "changed since gmdesk saved it (its checksum does not match)"
        )
    others = _other_tables(path, rest[1:])
    table = EventTable(SnapshotFile(os.dup(fd), path), start, end, count, path=path, sha=digest, crcs=crcs)
    tables: dict[str, Any] = {EVENTS_TABLE: table}
    for name, t in others.items():
        check_table(path, name, t)
        tables[name] = t
    tables.setdefault(META_TABLE, {})
    return State(sysrec["schema"], header, lsn, tables, record_extra(sysrec))


def _pread_all(fd: int, start: int, end: int) -> bytes:
    out = []
    while start < end:
        got = os.pread(fd, end - start, start)
        if not got:
            break
        out.append(got)
        start += len(got)
    return b"".join(out)


def _other_tables(path: Path, rest: bytes) -> dict[str, Any]:
    """The tables after the events (``rest``: what follows the events' closing brace)."""
    try:
        if rest.strip() == b"}":
            others: Any = {}
        elif rest.startswith(b","):
            others = loads(b"{" + rest[1:])
        else:
            raise ValueError("not a JSON object")
    except ValueError as e:
        raise CorruptSaveError(path, "after the events", f"the view state is damaged ({e})") from None
    if type(others) is not dict or EVENTS_TABLE in others or SYSTEM_KEY in others:
        raise CorruptSaveError(path, "after the events", "the view state is damaged")
    return others


def open_snapshot(path: Path) -> int:
    """A descriptor of the snapshot at ``path``, read-only (SessionMissingError,
    StoreReadError)."""
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise SessionMissingError(f"{path}: no such session file") from None
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None


def read_snapshot(path: Path) -> tuple[bytes, os.stat_result, State | None]:
    """(bytes read, stat, state): a long snapshot laid out as this gmdesk writes it is
    opened without reading its events (:func:`lazy_snapshot`; no bytes), any other is
    read whole and, when laid out so, opened by :func:`fast_snapshot` (else the state
    is None: the caller parses the bytes)."""
    fd = open_snapshot(path)
    try:
        st = os.fstat(fd)
        state = lazy_snapshot(path, fd, st.st_size)
        if state is not None:
            return b"", st, state
        try:
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read()
        except OSError as e:
            raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
        return data, st, fast_snapshot(path, data)
    finally:
        os.close(fd)
