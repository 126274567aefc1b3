"""The lazy event table: a session's events left where the files hold them (the
snapshot's events, the journal's records), each read and parsed when first asked for."""

from __future__ import annotations

import hashlib
import os
import weakref
import zlib
from array import array
from collections.abc import Callable, ItemsView, Iterable, Iterator, Mapping, ValuesView
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gmdesk.core.errors import ParamError
from gmdesk.core.session.storage.checksums import BLOCK_EVENTS
from gmdesk.core.session.storage.codec import dumps, loads
from gmdesk.core.session.storage.errors import CorruptSaveError, StoreReadError
from gmdesk.core.session.storage.gcpause import no_gc

if TYPE_CHECKING:
    from hashlib import _Hash

__all__ = ["EventTable", "EventCounter", "SnapshotFile", "RegionWriter"]

#: events at the end of the region located without indexing the whole region
TAIL_EVENTS = 1024
#: bytes read at a time when the region is scanned or copied
CHUNK = 1 << 20
#: events after the region laid out (and written) as one piece by a compaction
TAIL_BATCH = 256

#: where an event appended by the writer lies in its journal: ``offset << 32 | length``
_LEN_BITS = 32
_LEN_MASK = (1 << _LEN_BITS) - 1


class SnapshotFile:
    """An open snapshot file, read by offset (the events stay on disk, not in memory).

    Kept open for as long as the table uses it: a compaction that puts a new snapshot
    under the name leaves this one readable (and unchanged) until it is closed."""

    __slots__ = ("fd", "path", "_finalizer", "__weakref__")

    def __init__(self, fd: int, path: Path):
        self.fd = fd
        self.path = path
        self._finalizer = weakref.finalize(self, _close_fd, fd)

    def read(self, start: int, end: int) -> bytes:
        """The bytes ``[start, end)`` of the file (StoreReadError if they cannot be read,
        CorruptSaveError if the file is shorter than that)."""
        out: list[bytes] = []
        pos = start
        try:
            while pos < end:
                got = os.pread(self.fd, end - pos, pos)
                if not got:
                    raise CorruptSaveError(self.path, "the events", "the file was cut short (damaged)")
                out.append(got)
                pos += len(got)
        except OSError as e:
            raise StoreReadError(f"{self.path}: cannot read ({e.strerror or e})") from None
        return out[0] if len(out) == 1 else b"".join(out)

    def close(self) -> None:
        self._finalizer()


def _close_fd(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


class RegionWriter:
    """Lays out events as a snapshot's region (``\\n"1":T1,\\n"2":T2,…``) piece by piece
    while computing what its record says of them: length, SHA-256, the CRC-32 of each
    block of ``BLOCK_EVENTS`` events, and where each event's line starts."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.crcs: list[bytes] = []
        self.crc = 0
        self.count = 0
        self.length = 0
        self.nl = array("q")

    def _add(self, data: bytes) -> None:
        self.sha.update(data)
        self.crc = zlib.crc32(data, self.crc)
        self.length += len(data)

    def event(self, seq: int, text: bytes) -> bytes:
        """The piece of event ``seq`` (the next one), accounted for."""
        if seq > 1:
            self._add(b",")
        if seq > 1 and seq % BLOCK_EVENTS == 1:
            self.crcs.append(b"%08x" % self.crc)
            self.crc = 0
        self.nl.append(self.length)
        line = b'\n"' + str(seq).encode() + b'":' + text
        self._add(line)
        self.count = seq
        return line if seq == 1 else b"," + line

    def events(self, first: int, texts: Iterable[bytes]) -> bytes:
        """:meth:`event` of events ``first``, ``first + 1``, … (``texts``: their JSON
        texts, in order), as one piece: the same bytes, length, checksums and lines,
        with one checksum call a block rather than a few an event."""
        pieces: list[bytes] = []
        seg: list[bytes] = []
        length = self.length
        nl = self.nl
        seq = first
        for text in texts:
            if seq > 1:
                seg.append(b",")
                length += 1
                if seq % BLOCK_EVENTS == 1:  # (the comma ends the block before)
                    data = b"".join(seg)
                    self._add(data)
                    pieces.append(data)
                    seg = []
                    self.crcs.append(b"%08x" % self.crc)
                    self.crc = 0
            nl.append(length)
            line = b'\n"%d":%b' % (seq, text)
            seg.append(line)
            length += len(line)
            seq += 1
        if seg:
            data = b"".join(seg)
            self._add(data)
            pieces.append(data)
        if seq > first:
            self.count = seq - 1
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def block(self, data: bytes, first: int, last: int, nl: list[int]) -> None:
        """Account for events ``first..last`` given as their region bytes, ``first``
        opening a block (``data`` starts at the newline opening it; ``nl``: where each
        of their lines starts, from the start of ``data``)."""
        base = self.length
        if first > 1:
            self.crcs.append(b"%08x" % self.crc)
            self.crc = 0
        self._add(data)
        self.nl.extend(base + x for x in nl)
        self.count = last

    def finish(self) -> tuple[int, str, str]:
        """(length, SHA-256 hex, the blocks' CRC-32s) of the region laid out."""
        crcs = self.crcs + ([b"%08x" % self.crc] if self.count else [])
        return self.length, self.sha.hexdigest(), b"".join(crcs).decode()


class EventTable(Mapping[str, dict[str, Any]]):
    """The ``events`` table: ``str(seq) -> document`` for seq 1..n (dense), read on demand.

    Events ``1..base`` are kept where the snapshot holds them: one run of bytes
    ``\\n"1":T1,\\n"2":T2,…\\n"base":Tbase`` (the *region*; ``T`` is each event's JSON
    text), either in memory (a small snapshot, read whole and checked at open) or
    in the snapshot file, read by offset (:class:`SnapshotFile`). Later events are
    kept as the journal holds them (the writer's own: where its text lies in the
    journal) or parsed (a reader's). Documents are parsed one at a time when first
    asked for (or all at once, see :meth:`all_docs`). A writer's memory therefore does
    not grow with the history it saves: a compaction copies the old region from the
    old file, piece by piece.

    The region's SHA-256 (:meth:`digest`) is what the snapshot records. A region
    read from the file is checked when read, block by block against the CRC-32 the
    record keeps for every ``BLOCK_EVENTS`` events, and whole (its SHA-256 too) by
    every compaction that copies it and by :meth:`verify` (``gmdesk check``): damage is
    reported, never copied into a new snapshot under a new checksum. Documents
    handed out are the table's own (TinyDB copies them; :class:`EventLog` hands out
    copies).
    """

    __slots__ = (
        "_src",
        "_start",
        "_end",
        "_base",
        "_nl",
        "_tail",
        "_docs",
        "_texts",
        "_base_hash",
        "_sha",
        "_crcs",
        "_checked",
        "_run",
        "_jread",
        "path",
    )

    def __init__(
        self,
        buf: bytes | SnapshotFile = b"",
        start: int = 0,
        end: int = 0,
        base: int = 0,
        base_hash: _Hash | None = None,
        path: Path | None = None,
        *,
        sha: str | None = None,
        crcs: str | None = None,
    ):
        self._src = buf  # bytes, or the file, holding the region at [start, end)
        self._start = start
        self._end = end
        self._base = base  # events held in the region
        self._nl: array[int] | None = None  # where (from start) the "\n" opening each region event lies (lazy)
        self._tail: tuple[int, list[int]] | None = None  # the same for the last events only (lazy)
        self._docs: list[dict[str, Any] | None] = [None] * base  # parsed documents, index seq - 1
        self._texts: list[str | bytes | int | None] = []  # events base+1..n: text, journal place, None
        self._base_hash = base_hash  # sha256 of the region, when computed
        self._sha = base_hash.hexdigest() if base_hash is not None else sha  # its hex (recorded or computed)
        # a region read from the file is checked block by block when read: the CRC-32
        # the record keeps of each block, and which blocks were checked
        self._crcs = crcs if isinstance(buf, SnapshotFile) else None
        self._checked = bytearray(-(-base // BLOCK_EVENTS)) if self._crcs is not None else None
        self._run: tuple[_Hash, int] | None = None  # (sha256 of events 1..k, k) for k >= base
        self._jread: Callable[[int, int], bytes] | None = None  # reads the writer's journal
        self.path = path

    @classmethod
    def from_docs(cls, docs: list[dict[str, Any]], path: Path | None = None) -> EventTable:
        table = cls(path=path)
        table._docs = list(docs)
        table._texts = [None] * len(docs)
        return table

    def close(self) -> None:
        """Let go of the snapshot file (the table is not read again)."""
        if isinstance(self._src, SnapshotFile):
            self._src.close()

    def reads_journal(self, read: Callable[[int, int], bytes] | None) -> None:
        """How to read ``length`` bytes at ``offset`` of the writer's journal (see
        :meth:`append_at`)."""
        self._jread = read

    # ---- Mapping

    def __len__(self) -> int:
        return len(self._docs)

    def __iter__(self) -> Iterator[str]:
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

    def __getitem__(self, key: Any) -> dict[str, Any]:
        return self.doc(self._index(key))

    def items(self) -> ItemsView[str, dict[str, Any]]:
        self.all_docs()
        return super().items()

    def values(self) -> ValuesView[dict[str, Any]]:
        self.all_docs()
        return super().values()

    def __repr__(self) -> str:
        return f"<events table: {len(self._docs)} events, {self._base} in the snapshot region>"

    # ---- reading the region

    def _read(self, a: int, b: int) -> bytes:
        """Bytes ``[a, b)`` of the region (offsets from its start)."""
        src = self._src
        if isinstance(src, SnapshotFile):
            return src.read(self._start + a, self._start + b)
        return src[self._start + a : self._start + b]

    def _bad(self, what: str, problem: str) -> CorruptSaveError:
        return CorruptSaveError(self.path or "session", what, problem)

    def _block_range(self, k: int) -> tuple[int, int]:
        """Where block ``k`` (events ``k*B+1..``) lies in the region."""
        first = k * BLOCK_EVENTS + 1
        last = min(self._base, first + BLOCK_EVENTS - 1)
        a = 0 if k == 0 else self._line(first)
        b = self._line(last + 1) if last < self._base else self._end - self._start
        return a, b

    def _check_block(self, k: int, data: bytes) -> None:
        crcs = self._crcs
        assert crcs is not None and self._checked is not None
        first = k * BLOCK_EVENTS + 1
        last = min(self._base, first + BLOCK_EVENTS - 1)
        want = crcs[8 * k : 8 * k + 8].encode()
        if len(crcs) != 8 * len(self._checked) or b"%08x" % zlib.crc32(data) != want:
            span = f"events #{first}–#{last}" if first != last else f"event #{first}"
            raise self._bad(span, "changed since gmdesk saved them (their checksum does not match)")
        self._checked[k] = 1

    def _checked_read(self, a: int, b: int, first: int, last: int) -> bytes:
        """Bytes ``[a, b)`` holding events ``first..last``, every block they touch checked first."""
        checked = self._checked
        if checked is not None:
            for k in range((first - 1) // BLOCK_EVENTS, (last - 1) // BLOCK_EVENTS + 1):
                if not checked[k]:
                    ka, kb = self._block_range(k)
                    self._check_block(k, self._read(ka, kb))
        return self._read(a, b)

    def _line(self, seq: int) -> int:
        """Where the newline opening region event ``seq`` lies (from the region's start).
        The newest events (what an open reads: the undo it keeps, the last looked at)
        are found from the end of the region, without going through all of it."""
        if self._nl is None and self._base - seq < TAIL_EVENTS + BLOCK_EVENTS:
            first, tail = self._tail_lines()
            if seq >= first:
                return tail[seq - first]
        return self._lines()[seq - 1]

    def _tail_lines(self) -> tuple[int, list[int]]:
        """(first, offsets): the newlines opening events first..base — the last
        ``TAIL_EVENTS`` of the region and more, back to the start of a block —, found
        backwards from its end."""
        tail = self._tail
        if tail is None:
            want = min(self._base, TAIL_EVENTS + BLOCK_EVENTS)
            first = self._base - want + 1
            first -= (first - 1) % BLOCK_EVENTS  # from the start of its block
            want = self._base - first + 1
            found: list[int] = []
            p = self._end - self._start
            while len(found) < want:
                lo = max(0, p - CHUNK)
                data = self._read(lo, p)
                q = len(data)
                while len(found) < want:
                    q = data.rfind(b"\n", 0, q)
                    if q < 0:
                        break
                    found.append(lo + q)
                if lo == 0 or len(found) >= want:
                    break
                p = lo
            if len(found) < want:
                raise self._bad("table 'events'", "events are not one per line (changed since gmdesk saved them)")
            found.reverse()
            tail = self._tail = (first, found)
        return tail

    def _lines(self) -> array[int]:
        nl = self._nl
        if nl is None:
            nl = array("q")
            size = self._end - self._start
            pos = 0
            while pos < size:
                data = self._read(pos, min(size, pos + CHUNK))
                find = data.find
                p = find(b"\n")
                while p >= 0:
                    nl.append(pos + p)
                    p = find(b"\n", p + 1)
                pos += len(data)
            if len(nl) != self._base:
                raise self._bad(f"events #1–#{self._base}", "changed since gmdesk saved them (bytes added or removed)")
            self._nl = nl
        return nl

    def _span(self, seq: int) -> tuple[int, int]:
        """Where event ``seq``'s text lies in the region (seq <= base)."""
        start = self._line(seq) + len(str(seq)) + 4  # \n"<seq>":
        end = self._line(seq + 1) - 1 if seq < self._base else self._end - self._start  # the comma before the next
        return start, end

    # ---- documents

    def doc(self, seq: int) -> dict[str, Any]:
        """The document of event ``seq`` (1-based; the table's own object, or for an
        event appended by this writer a fresh one parsed from its text each time)."""
        d = self._docs[seq - 1]
        if d is None and seq > self._base:
            return self._parse_text(seq)
        if d is None:
            text = self.text(seq)
            try:
                d = loads(text)
            except ValueError as e:  # the region matched its checksum: only a bug gets here
                raise self._bad(f"events seq {seq}", f"not valid JSON ({e})") from None
            if type(d) is not dict:
                raise self._bad(f"table 'events' document {seq}", "not a JSON object")
            self._docs[seq - 1] = d
        return d

    def _parse_text(self, seq: int) -> dict[str, Any]:
        try:
            d = loads(self.text(seq))
        except ValueError as e:  # written by this gmdesk a moment ago: only a bug gets here
            raise self._bad(f"events seq {seq}", f"not valid JSON ({e})") from None
        if type(d) is not dict:
            raise self._bad(f"table 'events' document {seq}", "not a JSON object")
        return d

    def append_text(self, text: bytes) -> None:
        """Append the next event as the JSON text it was written with, parsed only when
        asked for (and not kept parsed: see :meth:`doc`)."""
        self._docs.append(None)
        self._texts.append(text)

    def append_at(self, offset: int, length: int) -> None:
        """Append the next event as written at ``offset`` of the writer's journal
        (``length`` bytes of JSON text): nothing of it is kept in memory."""
        self._docs.append(None)
        self._texts.append(offset << _LEN_BITS | length)

    def all_docs(self) -> list[dict[str, Any]]:
        """Every document, oldest first (the table's own objects). Parses whatever is
        still unparsed, all at once when that is most of the region."""
        docs = self._docs
        for seq in range(self._base + 1, len(docs) + 1):
            if docs[seq - 1] is None:
                docs[seq - 1] = self._parse_text(seq)
        missing = docs.count(None)
        if missing > 64 and missing * 3 > self._base:  # most of them: one parse of the whole region
            region = self._whole_region()
            try:
                with no_gc():
                    parsed = loads(b"{" + region + b"}", check_depth=False)
            except ValueError as e:
                raise self._bad("table 'events'", f"not valid JSON ({e})") from None
            del region
            if len(parsed) != self._base:
                raise self._bad("table 'events'", "events are not numbered 1..n")
            for i in range(self._base):
                if docs[i] is None:
                    d = parsed[str(i + 1)]
                    if type(d) is not dict:
                        raise self._bad(f"table 'events' document {i + 1}", "not a JSON object")
                    docs[i] = d
        elif missing:
            for i in range(self._base):
                if docs[i] is None:
                    self.doc(i + 1)
        return cast(list[dict[str, Any]], docs)  # (none is missing now)

    def _whole_region(self) -> bytes:
        """The whole region, every block checked."""
        size = self._end - self._start
        if self._checked is not None and not all(self._checked):
            self.verify()
        return self._read(0, size)

    def text(self, seq: int) -> bytes:
        """Event ``seq``'s JSON text as stored (UTF-8)."""
        if seq <= self._base:
            start, end = self._span(seq)
            return self._checked_read(start, end, seq, seq)
        k = seq - self._base - 1
        t = self._texts[k]
        if t is None:
            t = dumps(self._docs[seq - 1]).encode("utf-8")
            self._texts[k] = t
        elif isinstance(t, int):
            if self._jread is None:  # pragma: no cover - set by the writer that appends so
                raise self._bad(f"events seq {seq}", "its place in the journal cannot be read")
            return self._jread(t >> _LEN_BITS, t & _LEN_MASK)
        elif isinstance(t, str):
            t = t.encode("utf-8")
            self._texts[k] = t
        return t

    # ---- changes

    def __setitem__(self, key: str, doc: dict[str, Any]) -> None:
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
        texts: list[str | bytes | int | None] = [self.text(k) for k in range(i, self._base + 1)]
        end = self._line(i) - 1 if i > 1 else 0
        nl = self._nl
        self._end = self._start + end
        self._base = i - 1
        self._nl = nl[: i - 1] if nl is not None else None
        self._tail = None
        if self._checked is not None:  # the last block changed: checked against its old CRC
            for k in range(len(self._checked)):
                if not self._checked[k]:
                    self._checked_read(*self._block_range(k), k * BLOCK_EVENTS + 1, k * BLOCK_EVENTS + 1)
            self._crcs = None
            self._checked = None
        self._texts = texts + self._texts
        self._base_hash = None
        self._sha = None
        self._run = None

    # ---- the region and its checksum

    def _piece(self, seq: int) -> bytes:
        return (b',\n"' if seq > 1 else b'\n"') + str(seq).encode() + b'":' + self.text(seq)

    def _region_hash(self) -> _Hash:
        """SHA-256 of the whole region (read and checked block by block when it is in the file)."""
        if self._base_hash is None:
            h = hashlib.sha256()
            for chunk in self._region_chunks():
                h.update(chunk)
            self._base_hash = h
            if self._sha is not None and h.hexdigest() != self._sha:
                raise self._bad(
                    f"events #1–#{self._base}", "changed since gmdesk saved them (their checksum does not match)"
                )
            self._sha = h.hexdigest()
        return self._base_hash

    def _region_chunks(self) -> Iterator[bytes]:
        """The region's bytes, a block at a time, each block checked."""
        src = self._src
        if not isinstance(src, SnapshotFile):
            yield memoryview(src)[self._start : self._end]  # type: ignore[misc]
            return
        blocks = -(-self._base // BLOCK_EVENTS)
        for k in range(blocks):
            a, b = self._block_range(k)
            data = self._read(a, b)
            if self._checked is not None and not self._checked[k]:
                self._check_block(k, data)
            yield data

    def verify(self) -> None:
        """Read and check the whole region (every block's CRC-32 and the SHA-256 the
        snapshot records); CorruptSaveError names the events that changed."""
        self._base_hash = None
        self._region_hash()

    def digest(self, upto: int | None = None) -> str:
        """SHA-256 (hex) of events ``1..upto`` laid out as in the snapshot's region
        (default: every event). Equal digests mean identical event texts. The
        snapshot's events are not read again for their own digest: the record
        says it (they are checked when read, and by :meth:`verify`)."""
        n = len(self._docs) if upto is None else upto
        if not 0 <= n <= len(self._docs):
            raise ParamError("upto", f"must be from 0 to {len(self._docs)} (got {upto!r})")
        if n < self._base:
            end = self._line(n + 1) - 1 if n else 0
            h = hashlib.sha256()
            pos = 0
            while pos < end:
                h.update(self._read(pos, min(end, pos + CHUNK)))
                pos += CHUNK
            return h.hexdigest()
        if n == self._base and self._sha is not None:
            return self._sha
        run = self._run
        if run is None or run[1] > n:
            run = (self._region_hash().copy(), self._base)
        h, k = run
        for seq in range(k + 1, n + 1):
            h.update(self._piece(seq))
        self._run = (h, n)
        return h.hexdigest()

    def region(self) -> bytes:
        """Every event as the snapshot's ``events`` object holds them (between its braces)."""
        head = self._whole_region()
        if len(self._docs) == self._base:
            return head
        return head + b"".join(self._piece(seq) for seq in range(self._base + 1, len(self._docs) + 1))

    def region_length(self) -> int:
        """The length of :meth:`region` (without reading the events)."""
        total = self._end - self._start
        for seq in range(self._base + 1, len(self._docs) + 1):
            t = self._texts[seq - self._base - 1]
            size = t & _LEN_MASK if isinstance(t, int) else len(self.text(seq))
            total += (3 if seq > 1 else 2) + len(str(seq)) + 2 + size
        return total

    def stream(self, out: RegionWriter) -> Iterator[bytes]:
        """Every event as the snapshot's region, a block or an event at a time, laid
        out by ``out`` (which then says its length and checksums). The region already
        in a snapshot is copied as it is, each block checked against its CRC-32 and
        the whole against its SHA-256 (CorruptSaveError on any difference): what a
        compaction writes is never damage under a new checksum."""
        src = self._src
        blocks = -(-self._base // BLOCK_EVENTS)
        sha = hashlib.sha256() if self._sha is not None and self._base_hash is None else None
        nl = self._lines() if self._base else array("q")
        for k in range(blocks):
            a, b = self._block_range(k)
            data = self._read(a, b) if isinstance(src, SnapshotFile) else bytes(src[self._start + a : self._start + b])
            if self._checked is not None and not self._checked[k]:
                self._check_block(k, data)
            if sha is not None:
                sha.update(data)
            first = k * BLOCK_EVENTS + 1
            last = min(self._base, first + BLOCK_EVENTS - 1)
            out.block(data, first, last, [x - a for x in nl[first - 1 : last]])
            yield data
        if sha is not None and sha.hexdigest() != self._sha:
            raise self._bad(
                f"events #1–#{self._base}", "changed since gmdesk saved them (their checksum does not match)"
            )
        # the events after the region, a batch at a time (those the writer's journal
        # holds read together: one read a run of them, not one an event)
        n = len(self._docs)
        for first in range(self._base + 1, n + 1, TAIL_BATCH):
            yield out.events(first, self._tail_texts(first, min(n, first + TAIL_BATCH - 1)))

    def _tail_texts(self, first: int, last: int) -> list[bytes]:
        """``[text(seq) for seq in first..last]`` (events after the region): a run of
        them held where the writer's journal has them, in order, is read with one read
        of the bytes they lie in (at most :data:`CHUNK`, or one event) and cut apart."""
        out: list[bytes] = []
        texts, base, read = self._texts, self._base, self._jread
        seq = first
        while seq <= last:
            t = texts[seq - base - 1]
            if type(t) is not int or read is None:
                out.append(self.text(seq))
                seq += 1
                continue
            start = t >> _LEN_BITS
            end = start + (t & _LEN_MASK)
            spans = [(start, end)]
            seq += 1
            while seq <= last:
                u = texts[seq - base - 1]
                if type(u) is not int:
                    break
                a = u >> _LEN_BITS
                b = a + (u & _LEN_MASK)
                if a < end or b - start > CHUNK:
                    break
                spans.append((a, b))
                end = b
                seq += 1
            data = read(start, end - start)
            out.extend([data[a - start : b - start] for a, b in spans])
        return out

    def rebase(self, buf: bytes | SnapshotFile, start: int, end: int, written: RegionWriter | None = None) -> None:
        """The snapshot now holds every event at ``[start, end)`` of ``buf`` (bytes, or
        the new snapshot file): keep that instead. ``written``: what laid it out (its
        index of lines and checksums are kept: nothing is read again)."""
        n = len(self._docs)
        h = None
        if self._run is not None and self._run[1] == n:
            h = self._run[0].copy()
        old = self._src
        sha: str | None
        if written is not None:
            nl: array[int] | None = written.nl
            sha = written.finish()[1]
            h = None
        else:
            nl = self._nl if self._base == n and start == self._start and buf is self._src else None
            sha = h.hexdigest() if h is not None else None
        self._src, self._start, self._end, self._base = buf, start, end, n
        self._nl = nl
        self._tail = None
        self._texts = []
        self._base_hash = h
        self._sha = sha
        # what was just written was laid out from checked bytes: nothing to check again
        self._crcs = None
        self._checked = None
        self._run = None
        if isinstance(old, SnapshotFile) and old is not buf:
            old.close()


class EventCounter(dict[str, Any]):
    """Stands in for the events table when only the count matters (see
    :func:`core.session.storage.recovery.peek`)."""

    def __init__(self, n: int):
        super().__init__()
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, key: str, value: Any) -> None:
        self.n = max(self.n, int(key))
