"""The lazy event table: a session's events kept as the snapshot's bytes, each
parsed when first asked for."""

from __future__ import annotations

import hashlib
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gmdesk.core.errors import ParamError
from gmdesk.core.session.storage.codec import dumps, loads
from gmdesk.core.session.storage.errors import CorruptSaveError
from gmdesk.core.session.storage.gcpause import no_gc

if TYPE_CHECKING:
    from hashlib import _Hash

__all__ = ["EventTable", "EventCounter"]

#: events at the end of the region located without indexing the whole region
TAIL_EVENTS = 1024


class EventTable(Mapping[str, dict[str, Any]]):
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

    __slots__ = ("_buf", "_start", "_end", "_base", "_nl", "_tail", "_docs", "_texts", "_base_hash", "_run", "path")

    def __init__(
        self,
        buf: bytes = b"",
        start: int = 0,
        end: int = 0,
        base: int = 0,
        base_hash: _Hash | None = None,
        path: Path | None = None,
    ):
        self._buf = buf  # bytes holding the region at [start, end)
        self._start = start
        self._end = end
        self._base = base  # events held in the region
        self._nl: list[int] | None = None  # offset in buf of the "\n" opening each region event (lazy)
        self._tail: tuple[int, list[int]] | None = None  # the same for the last events only (lazy)
        self._docs: list[dict[str, Any] | None] = [None] * base  # parsed documents, index seq - 1
        self._texts: list[str | bytes | None] = []  # texts of events base+1..n (None: not known yet)
        self._base_hash = base_hash  # sha256 of the region, when computed
        self._run: tuple[_Hash, int] | None = None  # (sha256 of events 1..k, k) for k >= base
        self.path = path

    @classmethod
    def from_docs(cls, docs: list[dict[str, Any]], path: Path | None = None) -> EventTable:
        table = cls(path=path)
        table._docs = list(docs)
        table._texts = [None] * len(docs)
        return table

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

    # ---- documents

    def doc(self, seq: int) -> dict[str, Any]:
        """The document of event ``seq`` (1-based; the table's own object, or for an
        event appended by this writer a fresh one parsed from its text each time)."""
        d = self._docs[seq - 1]
        if d is None and seq > self._base:
            return self._parse_text(seq)
        if d is None:
            start, end = self._span(seq)
            try:
                d = loads(self._buf[start:end])
            except ValueError as e:  # the region matched its checksum: only a bug gets here
                raise CorruptSaveError(self.path or "session", f"events seq {seq}", f"not valid JSON ({e})") from None
            if type(d) is not dict:
                raise CorruptSaveError(self.path or "session", f"table 'events' document {seq}", "not a JSON object")
            self._docs[seq - 1] = d
        return d

    def _parse_text(self, seq: int) -> dict[str, Any]:
        try:
            d = loads(self.text(seq))
        except ValueError as e:  # written by this gmdesk a moment ago: only a bug gets here
            raise CorruptSaveError(self.path or "session", f"events seq {seq}", f"not valid JSON ({e})") from None
        if type(d) is not dict:
            raise CorruptSaveError(self.path or "session", f"table 'events' document {seq}", "not a JSON object")
        return d

    def append_text(self, text: bytes) -> None:
        """Append the next event as the JSON text it was written with, parsed only when
        asked for (and not kept parsed: see :meth:`doc`)."""
        self._docs.append(None)
        self._texts.append(text)

    def all_docs(self) -> list[dict[str, Any]]:
        """Every document, oldest first (the table's own objects). Parses whatever is
        still unparsed, all at once when that is most of the region."""
        docs = self._docs
        for seq in range(self._base + 1, len(docs) + 1):
            if docs[seq - 1] is None:
                docs[seq - 1] = self._parse_text(seq)
        missing = docs.count(None)
        if missing > 64 and missing * 3 > self._base:  # most of them: one parse of the whole region
            try:
                with no_gc():
                    parsed = loads(b"{" + self._buf[self._start : self._end] + b"}", check_depth=False)
            except ValueError as e:
                raise CorruptSaveError(self.path or "session", "table 'events'", f"not valid JSON ({e})") from None
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
        return cast(list[dict[str, Any]], docs)  # (none is missing now)

    def _tail_lines(self) -> tuple[int, list[int]]:
        """(first, offsets): the offsets of the "\n" opening events first..base, the
        last ``TAIL_EVENTS`` of the region, found backwards from its end."""
        tail = self._tail
        if tail is None:
            found: list[int] = []
            rfind, start = self._buf.rfind, self._start
            p = self._end
            while len(found) < min(TAIL_EVENTS, self._base):
                p = rfind(b"\n", start, p)
                if p < 0:  # pragma: no cover - checked when the region was loaded
                    raise CorruptSaveError(self.path or "session", "table 'events'", "events are not one per line")
                found.append(p)
            found.reverse()
            tail = self._tail = (self._base - len(found) + 1, found)
        return tail

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
        """Where event ``seq``'s text lies in the buffer (seq <= base). The newest
        events (what an open reads: the undo it keeps, the last looked at) are found
        from the end of the region, without going through all of it."""
        if self._nl is None and self._base - seq < TAIL_EVENTS:
            first, tail = self._tail_lines()
            if seq >= first:
                p = tail[seq - first]
                end = tail[seq - first + 1] - 1 if seq < self._base else self._end
                return p + len(str(seq)) + 4, end
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
            t = dumps(self._docs[seq - 1]).encode("utf-8")
            self._texts[k] = t
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
        texts: list[str | bytes | None] = [self.text(k) for k in range(i, self._base + 1)]
        nl = self._lines()
        self._end = nl[i - 1] - 1 if i > 1 else self._start
        self._base = i - 1
        self._nl = nl[: i - 1]
        self._tail = None
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
        self._tail = None
        self._texts = []
        self._base_hash = h
        self._run = None


class EventCounter(dict[str, Any]):
    """Stands in for the events table when only the count matters (see
    :func:`core.session.storage.format.peek`)."""

    def __init__(self, n: int):
        super().__init__()
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, key: str, value: Any) -> None:
        self.n = max(self.n, int(key))
