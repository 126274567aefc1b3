"""``Session.events`` and the session's other lazy reads of its log."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from gmdesk.core.dice import RollRecord
from gmdesk.core.session.events import Event, Fold, no_gc, replay
from gmdesk.core.session.model.rolls import RecordLoader

if TYPE_CHECKING:
    from gmdesk.core.session.storage import EventLog

# The session's lazy parts read the log through these (closures over the log only:
# no reference back to the Session, so nothing keeps a closed session alive).


def event_loader(log: EventLog) -> Callable[[int], Event]:
    return lambda seq: Event.from_doc(seq, log.event(seq, copy=False))


def stored_event(log: EventLog) -> Callable[[int], Mapping[str, Any]]:
    return lambda seq: log.event(seq, copy=False)


def record_loader(log: EventLog) -> RecordLoader:
    def load(seq: int, kind: str, j: int) -> RollRecord:
        """The record a roll entry restored from a checkpoint refers to: the event's
        ``record`` (a roll, a heal), or the j-th initiative roll the event logged
        (:func:`initiative_records`)."""
        doc = log.event(seq, copy=False)
        data = initiative_records(doc)[j] if kind == "initiative" else doc["record"]
        return RollRecord.from_trusted_json(data)

    return load


def initiative_records(doc: Mapping[str, Any]) -> list[Any]:
    """The initiative rolls an event logs, in the order the fold logs them: its own
    ``record`` (a character joining), the records of its ``entries``
    (``initiative.set``, ``characters.add``) or of its ``initiative`` (rolled again
    as a round begins), then its ties' roll-offs."""
    out: list[Any] = []
    if doc.get("record") is not None:
        out.append(doc["record"])
    for key in ("entries", "initiative"):
        for e in doc.get(key) or ():
            if isinstance(e, Mapping) and e.get("record") is not None:
                out.append(e["record"])
    for run in doc.get("ties") or ():
        for rolled in run.get("rolls") or ():
            out.extend(e["record"] for e in rolled)
    return out


def replayer(log: EventLog) -> Callable[[int], Fold]:
    def rebuild(last_seq: int) -> Fold:
        """The fold of the log's events 1..last_seq from scratch."""
        with no_gc(promote=last_seq >= PROMOTE_AT):
            return replay(dict(log.header), log.events(copy=False)[:last_seq], [])

    return rebuild


#: from this many events on, opening moves what it built to the GC's oldest
#: generation (see events.no_gc): worth it for a long session, pointless for a short one
PROMOTE_AT = 20_000


class EventList(Sequence[Event]):
    """``Session.events``: the log's events, oldest first (``events[i].seq == i + 1``).

    A sequence like a list (len, index, slices, iteration, ``==`` with a list); each
    :class:`Event` is made from the log when first looked at and kept, so opening a
    long session does not build tens of thousands of them up front."""

    __slots__ = ("_n", "_made", "_load")

    def __init__(self, load: Callable[[int], Event], count: int = 0):
        self._n = count
        self._made: dict[int, Event] = {}  # index -> the Event made for it (not every index: no list of them all)
        self._load = load

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._n))]
        i = index + self._n if index < 0 else index
        if not 0 <= i < self._n:
            raise IndexError("event index out of range")
        e = self._made.get(i)
        if e is None:
            e = self._made[i] = self._load(i + 1)
        return e

    def __iter__(self) -> Iterator[Event]:
        for i in range(self._n):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (EventList, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=False))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EventList({self._n} events)"

    def append(self, event: Event) -> None:
        self._made[self._n] = event
        self._n += 1
        self._forget()

    def put(self, event: Event) -> None:
        """Hold ``event`` (one the log holds, ``event.seq`` ≤ its length) as made already."""
        self._made[event.seq - 1] = event

    def grow(self, count: int) -> None:
        """The log now holds ``count`` events: the new ones are made when first looked at."""
        if count > self._n:
            self._n = count
            self._forget()

    def _forget(self) -> None:
        """Let go of the event that just left the newest ``KEPT`` (made again from the
        log if looked at), so that a long session's memory does not grow with it."""
        n = self._n - KEPT - 1
        if n >= 0:
            self._made.pop(n, None)


#: events an EventList keeps made, from the newest (older ones are kept once looked at
#: again: the desk's log shows the newest, a search may look further back)
KEPT = 1000
