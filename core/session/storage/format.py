"""The layout of a session's files: the versions and names of the format, the
in-memory :class:`State` a session's files hold, the checks of the snapshot's
``_gmdesk`` record and tables, and the snapshot's bytes as gmdesk writes them.

Reading a snapshot is :mod:`core.session.storage.snapshot_open`'s, upgrading an
older one :mod:`core.session.storage.migrations`', reading the journal on top of it
:mod:`core.session.storage.recovery`'s. What the files hold is described in
:mod:`core.session.storage`. Stdlib :mod:`json` only."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from gmdesk.core.errors import ParamError
from gmdesk.core.session.storage.checksums import BLOCK_EVENTS, block_crcs, seal, unseal
from gmdesk.core.session.storage.codec import SEP, json_text
from gmdesk.core.session.storage.errors import CorruptSaveError
from gmdesk.core.session.storage.region import RegionWriter
from gmdesk.core.session.storage.table import EventTable

__all__ = [
    "FORMAT_TAG",
    "SCHEMA_VERSION",
    "JOURNAL_VERSION",
    "SYSTEM_KEY",
    "EVENTS_TABLE",
    "META_TABLE",
    "CHECKPOINT_TAG",
    "RECORD_LINE",
    "Tables",
    "State",
    "check_record",
    "record_extra",
    "check_header",
    "check_table",
    "snapshot_bytes",
    "snapshot_parts",
    "snapshot_stream",
    "SnapshotStream",
]

#: Version of the snapshot layout this gmdesk writes (``_gmdesk.schema``).
#: v2: the ``_gmdesk`` record ends with its own checksum ``"c"`` (as a journal record
#: does) and must carry every checksum of the file (the events', the header's, the
#: view state's): one missing, unreadable or not matching is damage. v1 files (some
#: without checksums, written before they existed) are still read, and upgraded to
#: v2 by the next writer (keeping the original as ``.v1.bak``).
SCHEMA_VERSION = 2
#: Version of the journal line format (``gmdesk_journal`` in the journal's first line).
#: v2: every record ends with its checksum ``"c"`` (CRC-32 of the record without it,
#: see :func:`seal`); v1 journals (no checksums) are still read.
#: v3: a ``put`` record may carry header changes made with it (``"set"``, before its
#: ``"doc"``): an event and the header summary it changes are one record, not two
#: (v2 wrote an ``hdr`` record after it; v1 and v2 journals are still read, and a
#: writer folds them into the session file before it appends).
JOURNAL_VERSION = 3
#: Value of ``_gmdesk.format``: what tells a gmdesk session from any other JSON file.
FORMAT_TAG = "gmdesk-session"
#: Top-level key of the snapshot holding the store's own record (not a TinyDB table).
SYSTEM_KEY = "_gmdesk"
#: The event log table: doc_id = seq.
EVENTS_TABLE = "events"
#: The view-state table: documents ``{"key": str, "value": JSON}``.
META_TABLE = "meta"
#: Value of ``format`` in a checkpoint's first line.
CHECKPOINT_TAG = "gmdesk-checkpoint"


#: A session's tables by name, each ``str(doc id) -> document``: ``events`` is an
#: :class:`EventTable` (an :class:`EventCounter` in :func:`peek`), the others dicts.
Tables = dict[str, Any]


class State:
    """What a session holds in memory: header, tables (str doc ids), lsn."""

    __slots__ = ("schema", "header", "lsn", "tables", "extra")

    def __init__(
        self, schema: int, header: dict[str, Any], lsn: int, tables: Tables, extra: dict[str, Any] | None = None
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
    "c",
)
#: the checksums a v1 file written since they existed carries (all three, or none)
_V1_CRCS = ("events_crc32", "header_crc32", "tail_crc32")
#: what a v2 record must hold, by type
_V2_REQUIRED: tuple[tuple[str, type], ...] = (
    ("lsn", int),
    ("count", int),
    ("header", dict),
    ("events_bytes", int),
    ("events_sha256", str),
    ("events_crc32", str),
    ("header_crc32", int),
    ("tail_crc32", int),
)
RECORD_LINE = f"line 1 (record {SYSTEM_KEY!r})"


def check_record(path: Path, sysrec: dict[str, Any], text: bytes | None) -> None:
    """Refuse a ``_gmdesk`` record that is not what gmdesk wrote: v2, its own checksum
    (over ``text``, the record's bytes as read) and every checksum of the file present,
    of its type; v1, no field gmdesk never wrote and its checksums all or none. A
    missing or unreadable checksum is damage, never a check skipped."""
    schema = sysrec.get("schema")
    if schema == 1:
        unknown = sorted(k for k in sysrec if k not in _SYSREC_KEYS or k == "c")
        if unknown:
            raise CorruptSaveError(
                path, RECORD_LINE, f"holds {unknown[0]!r}, which no gmdesk writes in format v1 (damaged)"
            )
        have = [k for k in _V1_CRCS if k in sysrec]
        if have and (len(have) != len(_V1_CRCS) or "events_sha256" not in sysrec):
            missing = next(k for k in (*_V1_CRCS, "events_sha256") if k not in sysrec)
            raise CorruptSaveError(path, RECORD_LINE, f"its checksum {missing!r} is missing (damaged)")
        for key, kind in _V2_REQUIRED:
            if key in sysrec and (type(sysrec[key]) is not kind or (kind is int and sysrec[key] < 0)):
                raise CorruptSaveError(path, RECORD_LINE, f"{key!r} does not read (damaged)")
        return
    if schema != SCHEMA_VERSION:
        return
    if "c" not in sysrec or text is None:
        raise CorruptSaveError(path, RECORD_LINE, "its own checksum is missing (damaged)")
    if unseal(text) is None:
        raise CorruptSaveError(path, RECORD_LINE, "changed since gmdesk saved it (its checksum does not match)")
    for key, kind in _V2_REQUIRED:
        value = sysrec.get(key)
        if type(value) is not kind or (type(value) is int and value < 0):
            what = "is missing" if key not in sysrec else "does not read"
            raise CorruptSaveError(path, RECORD_LINE, f"{key!r} {what} (damaged)")


def record_extra(sysrec: dict[str, Any]) -> dict[str, Any]:
    """The keys of a ``_gmdesk`` record this gmdesk does not write itself (see :attr:`State.extra`)."""
    return {k: v for k, v in sysrec.items() if k not in _SYSREC_KEYS}


def check_header(header: Mapping[str, Any] | None) -> dict[str, Any]:
    """A header given to create a session, as the store keeps it: a JSON object
    (ParamError otherwise), without ``schema`` (which the store sets)."""
    if header is None:
        header = {}
    if not isinstance(header, Mapping):
        raise ParamError("header", f"must be a mapping of names to JSON values (got {type(header).__name__})")
    head = dict(header)
    schema = head.pop("schema", SCHEMA_VERSION)
    if schema != SCHEMA_VERSION:
        raise ParamError("schema", f"is set by the store: {SCHEMA_VERSION} (got {schema!r})")
    copied: dict[str, Any] = json.loads(json_text(head, "header"))  # a JSON object's copy
    return copied


def check_table(path: Path, name: str, table: Any) -> None:
    if isinstance(table, EventTable):
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


def snapshot_bytes(state: State, tables: Tables | None = None) -> tuple[bytes, int, int]:
    """The snapshot file's bytes for ``state`` and where its events lie in them
    (start, end): :func:`snapshot_parts` joined."""
    head, region, tail = snapshot_parts(state, tables)
    return b"".join((head, region, tail)), len(head), len(head) + len(region)


def snapshot_parts(state: State, tables: Tables | None = None) -> tuple[bytes, bytes, bytes]:
    """The snapshot file's bytes for ``state`` (with ``tables`` instead of its own when
    given) in three parts: the head (up to ``"events":{``), the events' region, the
    rest — written one after the other, never joined (a compaction of a long
    session holds the region once, not three times).

    Layout (one document per line, so that a GM or a diff can read the save)::

        {"_gmdesk":{…, "events_bytes": L, "events_sha256": H},
        "events":{
        "1":{…},
        …
        "N":{…}},
        "meta":{…}}

    ``L`` and ``H`` are the length and SHA-256 of the events' bytes (from just after
    ``"events":{`` to the closing brace): an open reads them without parsing
    (see :func:`fast_snapshot`). Events never change once written, so their
    bytes are joined, never encoded again."""
    tables = state.tables if tables is None else tables
    events = tables[EVENTS_TABLE]
    region = events.region()
    tail = _tail_bytes(tables)
    head = _head_bytes(state, len(events), len(region), events.digest(), block_crcs(region, len(events)), tail)
    return head, region, tail


def _encoder() -> Callable[[Any], str]:
    return json.JSONEncoder(ensure_ascii=False, separators=SEP, allow_nan=False, check_circular=False).encode


def _tail_bytes(tables: Tables) -> bytes:
    """What follows the events: the other tables, and the file's closing brace."""
    enc = _encoder()
    parts = ["}"]
    for name, table in tables.items():
        if name == EVENTS_TABLE:
            continue
        parts.append(",\n" + enc(name) + ":{")
        parts.append(",".join(f'\n"{k}":{enc(doc)}' for k, doc in table.items()))
        parts.append("}")
    parts.append("}\n")
    return "".join(parts).encode("utf-8")


def _head_bytes(state: State, count: int, length: int, sha: str, crcs: str, tail: bytes) -> bytes:
    """The snapshot's first line (its record) and the opening of its events."""
    enc = _encoder()
    sysrec = {
        **state.extra,
        "format": FORMAT_TAG,
        "schema": SCHEMA_VERSION,
        "lsn": state.lsn,
        "count": count,
        "header": state.header,
        "header_crc32": zlib.crc32(enc(state.header).encode("utf-8")),
        "events_bytes": length,
        "events_sha256": sha,
        "events_crc32": crcs,
        "tail_crc32": zlib.crc32(tail),
    }
    return ('{"_gmdesk":' + seal(enc(sysrec)) + ",\n" + enc(EVENTS_TABLE) + ":{").encode("utf-8")


class SnapshotStream:
    """A snapshot written piece by piece (see :func:`snapshot_stream`): ``parts()``
    gives the bytes in order, the first part a stand-in for the head of the same
    length; once they are all written, ``head()`` is the real head (its checksums
    cover the events just laid out) to put over the stand-in. Nothing holds the
    whole snapshot in memory."""

    def __init__(self, state: State, tables: Tables):
        self.state = state
        self.events: EventTable = tables[EVENTS_TABLE]
        self.tail = _tail_bytes(tables)
        self.writer = RegionWriter()
        count = len(self.events)
        self.length = self.events.region_length()
        blocks = -(-count // BLOCK_EVENTS)
        self._stand_in = _head_bytes(state, count, self.length, "0" * 64, "0" * (8 * blocks), self.tail)

    def parts(self) -> Iterator[bytes]:
        yield self._stand_in
        yield from self.events.stream(self.writer)
        yield self.tail

    @property
    def start(self) -> int:
        """Where the events start in the file."""
        return len(self._stand_in)

    def head(self) -> bytes:
        length, sha, crcs = self.writer.finish()
        head = _head_bytes(self.state, len(self.events), length, sha, crcs, self.tail)
        if length != self.length or len(head) != len(self._stand_in):  # pragma: no cover - a bug
            raise ValueError("the snapshot's events are not the length computed for them")
        return head


def snapshot_stream(state: State, tables: Tables | None = None) -> SnapshotStream:
    """The snapshot for ``state`` (with ``tables`` instead of its own when given), to be
    written piece by piece: the events already in a snapshot are copied from it
    (each block checked on the way), the newer ones read where the journal has them."""
    return SnapshotStream(state, state.tables if tables is None else tables)
