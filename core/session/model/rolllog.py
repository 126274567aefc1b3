"""The roll log (``State.rolls``) of a long session: its older entries packed.

A session rolls for hours, a script a million times: an entry made into objects
costs about half a kilobyte, the same entry packed (its row as the checkpoint writes
it, zlib-compressed with its neighbours) a few dozen bytes. :class:`RollLog` is a
sequence of :class:`RollEntry` like the list it stands in for (len, index, slices,
iteration both ways, ``==`` with a list); the newest entries are kept as objects,
older ones in packed pages, unpacked when looked at (the last page looked at is kept
unpacked). An old entry a later event changes (a clock that takes its progress, a
roll revealed) is taken out of its page for good (:meth:`live`).
"""

from __future__ import annotations

import base64
import json
import zlib
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from gmdesk.core.session.model.rolls import RecordLoader, RollEntry, roll_entry, roll_rows

__all__ = ["RollLog", "PAGE"]

#: entries a page packs, at least (a page never splits the entries of one event)
PAGE = 1000

_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False)


class RollLog(Sequence[RollEntry]):
    """``State.rolls``: every roll entry, oldest first; see the module."""

    __slots__ = ("_pages", "_starts", "_paged", "_recent", "_live", "_open", "load_record")

    def __init__(self, entries: Iterable[RollEntry] = (), load_record: RecordLoader | None = None):
        self._pages: list[bytes | str] = []  # packed rows (str: base64 as a checkpoint holds them)
        self._starts: list[int] = []  # index of each page's first entry
        self._paged = 0  # entries in pages
        self._recent: list[RollEntry] = list(entries)
        self._live: dict[int, RollEntry] = {}  # paged entries taken out to be changed
        self._open: tuple[int, list[RollEntry]] | None = None  # the last page unpacked
        self.load_record = load_record

    # ---- packing

    def pack(self, keep: int) -> None:
        """Pack the oldest entries while more than ``2 * keep`` are kept as objects,
        leaving at least ``keep`` (whole events: a page never splits one)."""
        recent = self._recent
        if self.load_record is None or len(recent) <= 2 * keep:
            return
        while len(recent) - keep >= PAGE:
            cut = PAGE
            while cut < len(recent) - keep and recent[cut].seq == recent[cut - 1].seq:
                cut += 1
            if cut >= len(recent) - keep:
                break
            rows = roll_rows(recent[:cut])
            self._pages.append(zlib.compress(_JSON.encode(rows).encode("utf-8"), 6))
            self._starts.append(self._paged)
            self._paged += cut
            del recent[:cut]

    def _page(self, p: int) -> list[RollEntry]:
        got = self._open
        if got is not None and got[0] == p:
            return got[1]
        data = self._pages[p]
        raw = base64.b64decode(data) if isinstance(data, str) else data
        load = self.load_record
        assert load is not None  # (set whenever there are pages)
        entries = [roll_entry(row, load) for row in json.loads(zlib.decompress(raw))]
        self._open = (p, entries)
        return entries

    def _paged_entry(self, i: int) -> RollEntry:
        e = self._live.get(i)
        if e is not None:
            return e
        p = bisect_right(self._starts, i) - 1
        return self._page(p)[i - self._starts[p]]

    def live(self, i: int) -> RollEntry:
        """Entry ``i`` to be changed in place (a paged one is taken out of its page for good)."""
        i = self._norm(i)
        if i >= self._paged:
            return self._recent[i - self._paged]
        e = self._live.get(i)
        if e is None:
            e = self._live[i] = self._paged_entry(i)
            self._open = None  # (the page's other entries stay as packed)
        return e

    # ---- the checkpoint's form

    @property
    def packed_count(self) -> int:
        """Entries in pages (the newest ones, after them, are objects)."""
        return self._paged

    def packed(self) -> dict[str, Any]:
        """The packed pages and the entries changed since, as a checkpoint keeps them
        (the newest entries are written as rows by the caller)."""
        return {
            "pages": [p if isinstance(p, str) else base64.b64encode(p).decode("ascii") for p in self._pages],
            "starts": list(self._starts),
            "paged": self._paged,
            "live": [[i, roll_rows([e], by_value=True)[0]] for i, e in sorted(self._live.items())],
        }

    @classmethod
    def from_packed(cls, d: dict[str, Any], recent: list[RollEntry], load_record: RecordLoader) -> RollLog:
        """The roll log :meth:`packed` described, with ``recent`` after its pages."""
        log = cls(recent, load_record)
        pages, starts, paged = d["pages"], d["starts"], d["paged"]
        if (
            type(paged) is not int
            or len(pages) != len(starts)
            or not all(type(p) is str for p in pages)
            or starts != sorted(starts)
            or (starts and (starts[0] != 0 or starts[-1] >= paged))
            or (paged and not starts)
        ):
            raise ValueError("bad roll log pages")
        log._pages = list(pages)
        log._starts = [int(s) for s in starts]
        log._paged = paged
        for i, row in d["live"]:
            if type(i) is not int or not 0 <= i < paged:
                raise ValueError(f"bad roll log entry {i!r}")
            log._live[i] = roll_entry(row, load_record)
        return log

    # ---- a sequence

    def __len__(self) -> int:
        return self._paged + len(self._recent)

    def _norm(self, i: int) -> int:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("roll log index out of range")
        return i

    @overload
    def __getitem__(self, index: int) -> RollEntry: ...

    @overload
    def __getitem__(self, index: slice) -> list[RollEntry]: ...

    def __getitem__(self, index: int | slice) -> RollEntry | list[RollEntry]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1 and start >= self._paged:
                return self._recent[start - self._paged : stop - self._paged]
            return [self[i] for i in range(start, stop, step)]
        i = self._norm(index)
        if i >= self._paged:
            return self._recent[i - self._paged]
        return self._paged_entry(i)

    def __iter__(self) -> Iterator[RollEntry]:
        for p, start in enumerate(self._starts):
            end = self._starts[p + 1] if p + 1 < len(self._starts) else self._paged
            if self._live and any(start <= i < end for i in self._live):
                yield from (self._paged_entry(i) for i in range(start, end))
            else:
                yield from self._page(p)
        yield from self._recent

    def __reversed__(self) -> Iterator[RollEntry]:
        yield from reversed(self._recent)
        for i in range(self._paged - 1, -1, -1):
            yield self._paged_entry(i)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (RollLog, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RollLog({len(self)} entries, {self._paged} packed)"

    # ---- changes (as the fold makes them: append, take back the newest, replace one)

    def append(self, entry: RollEntry) -> None:
        self._recent.append(entry)

    def __setitem__(self, index: int, entry: RollEntry) -> None:
        i = self._norm(index)
        if i >= self._paged:
            self._recent[i - self._paged] = entry
        else:
            self._live[i] = entry

    def __delitem__(self, index: slice) -> None:
        """``del rolls[n:]`` (an undo taking back the entries its event added)."""
        if not isinstance(index, slice) or index.step not in (None, 1) or index.stop is not None:
            raise TypeError("only the newest entries are taken back (del rolls[n:])")
        n = index.indices(len(self))[0]
        if n >= self._paged:
            del self._recent[n - self._paged :]
            return
        # into the pages: the page holding entry n is unpacked, what it kept before n stays
        p = bisect_right(self._starts, n) - 1
        start = self._starts[p]
        kept = [self._paged_entry(i) for i in range(start, n)]
        del self._pages[p:]
        del self._starts[p:]
        self._paged = start
        self._live = {i: e for i, e in self._live.items() if i < start}
        self._recent = kept
        self._open = None

    def copy(self) -> RollLog:
        """A copy whose changes leave this one alone (the pages are shared: never changed)."""
        log = RollLog(self._recent, self.load_record)
        log._pages = list(self._pages)
        log._starts = list(self._starts)
        log._paged = self._paged
        log._live = {i: e for i, e in self._live.items()}
        return log
