"""The fold: the state is the fold of the log. :class:`Fold` applies events one by one
and keeps the undo and redo stacks; :func:`replay` folds a whole log from scratch."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.events.context import Ctx, EventError
from gmdesk.core.session.events.migrations import migrate_doc, migrator
from gmdesk.core.session.events.records import Op, revert
from gmdesk.core.session.events.registry import EVENT_TYPES, HANDLERS, META_FIELDS
from gmdesk.core.session.events.seqstack import SeqStack
from gmdesk.core.session.model import State
from gmdesk.core.session.storage.gcpause import no_gc


@dataclass
class Applied:
    seq: int
    type: str
    summary: str
    changes: list[str]
    extra: dict[str, Any]
    #: what the event did, undone (an undo's is empty: it is undone by applying again)
    ops: list[Op] = field(default_factory=list)
    #: the event an undo or a redo took back or applied again
    target: int | None = None


def _payload(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` without its :data:`META_FIELDS` (a new dict, its keys in their order)."""
    payload = dict(doc)
    for k in META_FIELDS:  # (a copy less four keys: cheaper than picking the others)
        payload.pop(k, None)
    return payload


class Fold:
    """A state plus the undo/redo stacks, folded one event at a time.

    ``docs`` keeps each undoable event's payload (for redo), ``times`` and
    ``summaries`` its time and summary, and ``inverses`` the prior values it
    overwrote (for undo). :meth:`apply` validates and applies; on
    :class:`EventError` nothing has changed. :meth:`revert_last` takes the last
    applied event back (used when the store refuses to write it).
    """

    def __init__(self, state: State):
        self.state = state
        self.docs: dict[int, dict[str, Any]] = {}
        self.times: dict[int, str] = {}
        self.summaries: dict[int, str] = {}
        self.inverses: dict[int, list[Op]] = {}
        self.done = SeqStack()
        self.undone: list[int] = []
        self.last_seq = 0
        self._last: tuple[Applied, tuple[int, str], list[int] | None] | None = None
        #: seq -> the stored event: where a fold restored from a checkpoint finds the
        #: payload, time and summary of events it did not apply itself
        self.source: Callable[[int], Mapping[str, Any]] | None = None
        #: ``rebuild(n)``: a full replay of the same log's events 1..n, for an undo that
        #: reaches past the inverses a checkpoint kept (see :meth:`_undo`)
        self.rebuild: Callable[[int], Fold] | None = None
        #: system id -> its record migration, applied to every event read back (strict=False)
        self.migrate_of = migrator()

    # ---- what the fold keeps about each undoable event (or finds in the log)

    def _doc(self, seq: int) -> dict[str, Any]:
        doc = self.docs.get(seq)
        if doc is None and self.source is not None:
            stored = self.source(seq)
            doc = {"type": stored.get("type"), **_payload(stored)}
        if doc is None:
            raise EventError(f"event #{seq} is not known", None)
        return doc

    def _time(self, seq: int) -> str:
        if seq in self.times or self.source is None:
            return self.times.get(seq, "")
        return str(self.source(seq).get("time", ""))

    def _summary(self, seq: int) -> str | None:
        if seq in self.summaries or self.source is None:
            return self.summaries.get(seq)
        return self.source(seq).get("summary") or None

    def trim(self, keep: int) -> None:
        """Forget what is kept about undoable events older than the latest ``keep``
        (payload, time, summary, inverse), so that a long session's memory does not
        grow with its history. Only with ``source`` and ``rebuild`` set (the log
        still has them: :meth:`_doc` reads the payload back, and an undo that
        reaches further replays the log once, as after a checkpoint). Amortised:
        it runs when twice ``keep`` are kept."""
        if self.source is None or self.rebuild is None or len(self.inverses) <= 2 * keep:
            return
        recent = set(self.done[-keep:])
        recent.update(self.undone)
        self.docs = {k: v for k, v in self.docs.items() if k in recent}
        self.times = {k: v for k, v in self.times.items() if k in recent}
        self.summaries = {k: v for k, v in self.summaries.items() if k in recent}
        self.inverses = {k: v for k, v in self.inverses.items() if k in recent}

    @property
    def can_undo(self) -> bool:
        return bool(self.done)

    @property
    def can_redo(self) -> bool:
        return bool(self.undone)

    def apply(
        self,
        seq: int,
        doc: Mapping[str, Any],
        time: str = "",
        summary: str | None = None,
        strict: bool = True,
        record: RollRecord | None = None,
    ) -> Applied:
        """Validate and apply one event. ``summary``: the stored summary of an event
        being replayed (saves formatting it again). ``record``: the roll record whose
        JSON the event holds as ``record``, when the caller has it (a roll just made:
        saves reading it again, see :func:`core.session.plain.plain_event`). ``strict=False`` for an event read
        back from the log: the checks of what play allows (who can act, unique names)
        were those of the gmdesk that wrote it, so they are not made again; its records
        are read as their systems read them now (:mod:`.migrations`)."""
        if not strict:
            doc = migrate_doc(doc, self.migrate_of)
        etype = doc.get("type")
        if etype not in HANDLERS and etype not in ("undo", "redo"):
            raise EventError(f"unknown event type {etype!r}; known: {', '.join(EVENT_TYPES)}", None)
        if seq <= self.last_seq:
            raise EventError(f"event #{seq} is not after #{self.last_seq}", etype)
        prev = (self.last_seq, self.state.info.last_played)
        if etype == "undo":
            applied = self._undo(seq, doc)
            stacks = None
        elif etype == "redo":
            applied = self._redo(seq, doc, summary)
            stacks = None
        else:
            payload = _payload(doc)
            applied = self._run(seq, seq, etype, payload, time, summary, strict, record)
            # (the handler read the payload, never changed it: kept as it is, with what it added)
            self.docs[seq] = {"type": etype, **payload, **applied.extra}
            self.times[seq] = time
            self.summaries[seq] = applied.summary
            self.inverses[seq] = applied.ops
            self.done.append(seq)
            stacks = self.undone
            self.undone = []
        self.last_seq = seq
        if time:
            self.state.info.last_played = time
        self._last = (applied, prev, stacks)
        return applied

    def _run(
        self,
        seq: int,
        data_seq: int,
        etype: str,
        payload: dict[str, Any],
        time: str,
        summary: str | None = None,
        strict: bool = True,
        record: RollRecord | None = None,
    ) -> Applied:
        ctx = Ctx(self.state, etype, data_seq, time, strict)
        ctx.summary = summary
        if record is not None:
            ctx.known_record = (payload.get("record"), record)
        try:
            summary = HANDLERS[etype](ctx, payload)
        except GmdeskError as e:
            revert(self.state, ctx.tx.ops)
            if isinstance(e, EventError):
                raise
            raise EventError(str(e), etype) from None
        except BaseException:
            revert(self.state, ctx.tx.ops)
            raise
        return Applied(seq, etype, summary if ctx.summary is None else ctx.summary, ctx.changes, ctx.extra, ctx.tx.ops)

    def _target(self, doc: Mapping[str, Any], stack: Sequence[int], what: str) -> int:
        if not stack:
            raise EventError(f"nothing to {what}", what)
        target = doc.get("target", stack[-1])
        if target != stack[-1]:
            raise EventError(f"can only {what} #{stack[-1]} next (asked for #{target})", what)
        return stack[-1]

    def _reapply(self, target: int) -> Applied:
        """Apply an undone event again from its stored payload (same seq, same time)."""
        original = self._doc(target)
        payload = {k: v for k, v in original.items() if k != "type"}
        applied = self._run(
            target, target, original["type"], payload, self._time(target), self._summary(target), strict=False
        )
        self.inverses[target] = applied.ops
        return applied

    def _undo(self, seq: int, doc: Mapping[str, Any]) -> Applied:
        target = self._target(doc, self.done, "undo")
        ops = self.inverses.pop(target, None)
        if ops is None and self.rebuild is not None:
            # restored from a checkpoint that kept the inverses of the latest events
            # only: replay the log from scratch (once) for all of them
            self._adopt(self.rebuild(self.last_seq))
            ops = self.inverses.pop(target, None)
        if ops is None:
            raise EventError(f"cannot undo #{target}: its inverse is not known", "undo")
        revert(self.state, ops)
        self.done.pop()
        self.undone.append(target)
        what = self._summary(target) or self._doc(target)["type"]
        return Applied(seq, "undo", f"Undo #{target}: {what}", [], {"target": target}, [], target)

    def _adopt(self, other: Fold) -> None:
        """Take over a full replay of the same log (same state, every inverse known).
        The State object stays the one the UI holds; its contents are the replay's."""
        if (other.done, other.undone, other.last_seq) != (self.done, self.undone, self.last_seq):
            raise EventError("the log replays differently from the session in memory; reopen the session", "undo")
        self.state.__dict__.update(other.state.__dict__)
        other.state = self.state
        self.docs, self.times, self.summaries = other.docs, other.times, other.summaries
        self.inverses = other.inverses
        self.rebuild = None

    def _redo(self, seq: int, doc: Mapping[str, Any], summary: str | None = None) -> Applied:
        target = self._target(doc, self.undone, "redo")
        applied = self._reapply(target)
        self.undone.pop()
        self.done.append(target)
        return Applied(
            seq,
            "redo",
            f"Redo #{target}: {applied.summary}",
            applied.changes,
            {"target": target},
            applied.ops,
            target,
        )

    def revert_last(self) -> None:
        """Take back the last :meth:`apply` (the store could not write it)."""
        if self._last is None:
            raise AssertionError("nothing to revert")
        applied, (last_seq, last_played), stacks = self._last
        self._last = None
        target = applied.target  # set for an undo and a redo
        if applied.type == "undo" and target is not None:
            self._reapply(target)
            self.undone.pop()
            self.done.append(target)
        elif applied.type == "redo" and target is not None:
            revert(self.state, applied.ops)
            self.inverses.pop(target, None)
            self.done.pop()
            self.undone.append(target)
        else:
            revert(self.state, applied.ops)
            for d in (self.docs, self.times, self.summaries, self.inverses):
                d.pop(applied.seq, None)
            self.done.pop()
            if stacks is not None:  # always, for an event that is neither undo nor redo
                self.undone = stacks
        self.last_seq = last_seq
        self.state.info.last_played = last_played


def replay(
    header: Mapping[str, Any], events: Iterable[tuple[int, Mapping[str, Any]]], warnings: list[str] | None = None
) -> Fold:
    """Fold a whole log from scratch: ``events`` is ``[(seq, doc), …]`` oldest first.

    An event the fold refuses (a damaged or hand-edited log) is skipped with a
    warning instead of making the session unopenable."""
    fold = Fold(State.from_header(dict(header)))
    with no_gc():
        for seq, doc in events:
            try:
                fold.apply(seq, doc, str(doc.get("time", "")), doc.get("summary") or None, strict=False)
            except GmdeskError as e:
                if warnings is not None:
                    warnings.append(f"event #{seq} ({doc.get('type')}) skipped: {e}")
    return fold
