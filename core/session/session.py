"""The open session: the event log is the truth, the state a fold of it.

``Session.open(path)`` replays the log into a :class:`~core.session.events.Fold`
(or, for a save with a checkpoint that fits its log, restores the fold the writer
saved at close and replays only the events after it — the same state, undo and
redo as a replay; see :meth:`Session._fold_from_checkpoint`);
``apply`` validates an event against the live state, writes it durably, and keeps
the fold (the live state equals a replay of the log). ``roll`` rolls with the
session's tables and logs the roll event. ``undo`` / ``redo`` append undo/redo
events. A read-only session (the player view, ``gmdesk log``) never takes the writer
lock and picks up what the writer appends with ``refresh``.

What ``roll`` fills in on the parameters — the roller's active sources and
conditions, the tracked characters' kinds, the session's settings — is
:mod:`core.session.params`, the one code path the roll dialog and ``gmdesk roll …
--save`` share.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.events import (
    CHECKPOINT_VERSION,
    Event,
    EventError,
    Fold,
    fold_checkpoint,
    fold_fingerprint,
    fold_from_checkpoint,
    no_gc,
    replay,
    roll_refusal,
    session_tables,
)
from gmdesk.core.session.model import DEFAULT_SETTINGS, State

#: the header's ``format`` value: marks a file as a gmdesk session
FORMAT = "gmdesk-session"


def now_iso() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


def _store():
    from gmdesk.core.session import store

    return store


def new_header(name: str, system: str, settings: Mapping[str, Any] | None = None, created: str | None = None) -> dict:
    when = created or now_iso()
    merged = copy.deepcopy(DEFAULT_SETTINGS)
    merged.update(copy.deepcopy(dict(settings or {})))
    return {
        "format": FORMAT,
        "name": name,
        "system": system,
        "settings": merged,
        "created": when,
        "last_played": when,
        "round": 0,
        "rolls": 0,
        "characters": 0,
        "events": 0,
    }


def header_problems(header: Mapping[str, Any]) -> list[str]:
    """What makes a stored header unusable, one plain line each (empty when fine): a
    missing name, system or settings, or a dice system this gmdesk does not know.
    Such a save is refused, never opened and rewritten with defaults."""
    from gmdesk.core.systems import SYSTEM_IDS

    out = []
    for key, kind, what in (("name", str, "text"), ("system", str, "text"), ("settings", dict, "an object")):
        if key not in header:
            out.append(f"the header has no {key!r}")
        elif not isinstance(header[key], kind):
            out.append(f"the header's {key!r} is not {what}")
    system = header.get("system")
    if isinstance(system, str) and system not in SYSTEM_IDS:
        out.append(
            f"the header names a dice system this gmdesk does not know ({system!r}; it knows {', '.join(SYSTEM_IDS)})"
        )
    return out


def _jsonable(doc: Mapping[str, Any], etype: Any) -> dict:
    """A plain-JSON copy of an event (records become their JSON), exactly what the log
    will give back on replay: live state and replay see the same data."""

    def conv(v: Any) -> Any:
        if isinstance(v, RollRecord):
            return v.to_json()
        if isinstance(v, Mapping):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v

    try:
        return json.loads(json.dumps(conv(doc), ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise EventError(f"the event is not plain data ({e})", etype if isinstance(etype, str) else None) from None


# The session's lazy parts read the log through these (closures over the log only:
# no reference back to the Session, so nothing keeps a closed session alive).


def _event_loader(log: Any) -> Callable[[int], Event]:
    return lambda seq: Event.from_doc(seq, log.event(seq, copy=False))


def _stored_event(log: Any) -> Callable[[int], Mapping[str, Any]]:
    return lambda seq: log.event(seq, copy=False)


def _record_loader(log: Any) -> Callable[[int, str, Any], RollRecord]:
    def load(seq: int, kind: str, j: Any) -> RollRecord:
        """The record a roll entry restored from a checkpoint refers to: the event's
        ``record`` (a roll, a heal, an ``encounter.add`` with its initiative roll), or
        the j-th recorded entry of an ``initiative.set``."""
        doc = log.event(seq, copy=False)
        if kind == "initiative" and "entries" in doc:
            data = [e["record"] for e in doc["entries"] if e.get("record") is not None][j]
        else:
            data = doc["record"]
        return RollRecord.from_trusted_json(data)

    return load


def _replayer(log: Any) -> Callable[[int], Fold]:
    def rebuild(last_seq: int) -> Fold:
        """The fold of the log's events 1..last_seq from scratch."""
        with no_gc(promote=last_seq >= PROMOTE_AT):
            return replay(dict(log.header), log.events(copy=False)[:last_seq], [])

    return rebuild


#: from this many events on, opening moves what it built to the GC's oldest
#: generation (see events.no_gc): worth it for a long session, pointless for a short one
PROMOTE_AT = 20_000


class EventList(Sequence):
    """``Session.events``: the log's events, oldest first (``events[i].seq == i + 1``).

    A sequence like a list (len, index, slices, iteration, ``==`` with a list); each
    :class:`Event` is made from the log when first looked at and kept, so opening a
    long session does not build tens of thousands of them up front."""

    __slots__ = ("_items", "_load")

    def __init__(self, load: Callable[[int], Event], count: int = 0):
        self._items: list[Event | None] = [None] * count
        self._load = load

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._items)))]
        items = self._items
        e = items[index]
        if e is None:
            i = index if index >= 0 else index + len(items)
            e = items[i] = self._load(i + 1)
        return e

    def __iter__(self):
        for i in range(len(self._items)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (EventList, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=False))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EventList({len(self._items)} events)"

    def append(self, event: Event) -> None:
        self._items.append(event)

    def grow(self, count: int) -> None:
        """The log now holds ``count`` events: the new ones are made when first looked at."""
        if count > len(self._items):
            self._items.extend([None] * (count - len(self._items)))


class Session:
    """One open session. Use :meth:`open` (or :meth:`create`); see docs/DESIGN.md.

    Opening replays the log, or — when the save has a checkpoint that fits it (see
    :meth:`_fold_from_checkpoint`) — loads the state the log folded to when it was
    last closed and replays only what came after; the result is the same state,
    with the same undo and redo."""

    #: write a checkpoint when the writer closes (and when the store compacts)
    CHECKPOINTS = True
    #: undoable events whose undo needs no replay right after reopening
    UNDO_KEPT = 200

    def __init__(self, log: Any, *, readonly: bool = False, path: str | Path | None = None):
        self._log = log
        self._mutex = threading.RLock()  # the UI may write from a worker thread
        self.readonly = readonly
        self.path = Path(path) if path is not None else None
        self.warnings: list[str] = list(getattr(log, "warnings", []) or [])
        self._ui: dict[str, Any] = {}
        self._log_seq = 0
        self._closed = False
        #: warnings of events the fold refused (kept with the checkpoint)
        self._skipped: list[str] = []
        self._ckpt_seq = -1  # the seq the checkpoint on disk covers, when known
        problems = header_problems(log.header)
        if problems:
            raise _store().CorruptSaveError(getattr(log, "path", path or "session"), "header", "; ".join(problems))
        count = log.count
        with no_gc(promote=count >= PROMOTE_AT):
            header = dict(log.header)
            self._events = EventList(_event_loader(log), count)
            fold = self._fold_from_checkpoint(header, count) if self.CHECKPOINTS else None
            if fold is None:
                self._skipped = []
                fold = replay(header, log.events(copy=False), self._skipped)
        fold.rebuild = _replayer(log)
        self._fold: Fold = fold
        self.warnings.extend(self._skipped)
        self._log_seq = count
        self._header_seq = self._log_seq
        self._journal_lines = getattr(log, "journal_lines", 0)
        if not readonly:
            self._maybe_update_header(force=True)  # a crash may have left it behind

    # ---- checkpoint

    def _fold_from_checkpoint(self, header: dict, count: int) -> Fold | None:
        """The fold restored from the save's checkpoint plus the events after it, or None
        (no checkpoint, or one that does not fit: another gmdesk version or log, a
        damaged file, a seq beyond the log, a different digest of the events it
        covers). Reading it never fails the open: the log is replayed instead."""
        log = self._log
        read = getattr(log, "read_checkpoint", None)
        got = read() if read is not None else None
        if got is None:
            return None
        head, body = got
        seq = head.get("seq")
        if (
            head.get("version") != CHECKPOINT_VERSION
            or head.get("fingerprint") != fold_fingerprint()
            or type(seq) is not int
            or not 0 < seq <= count
            or head.get("digest") != log.digest(seq)
        ):
            return None
        try:
            data = json.loads(body)
            if data.get("seq") != seq:
                return None
            fold = fold_from_checkpoint(data, _stored_event(log), _record_loader(log), header)
            skipped = [str(w) for w in data.get("skipped", ())]
        except Exception:  # noqa: BLE001 - a cache that does not fit is not an error: replay instead
            return None
        fold.rebuild = _replayer(log)  # an undo in the tail may reach past the kept inverses
        for n in range(seq + 1, count + 1):  # what was saved after the checkpoint
            doc = log.event(n, copy=False)
            try:
                fold.apply(n, doc, str(doc.get("time", "")), doc.get("summary") or None, strict=False)
            except GmdeskError as e:
                skipped.append(f"event #{n} ({doc.get('type')}) skipped: {e}")
        self._skipped = skipped
        self._ckpt_seq = seq
        return fold

    def _save_checkpoint(self) -> None:
        """Writers: save the fold as the checkpoint (when it covers the whole log and the
        one on disk does not already say the same). A failure costs only speed at the
        next open, so it is noted in ``warnings`` and otherwise ignored."""
        if self.readonly or self._closed or not self.CHECKPOINTS:
            return
        fold = self._fold
        n = self._log_seq  # every event up to here is folded (applied, or refused and skipped)
        if n == 0 or n == self._ckpt_seq or n != self._log.count or fold.last_seq > n:
            return
        try:
            with no_gc():
                body = json.dumps(
                    fold_checkpoint(fold, self.UNDO_KEPT, self._skipped, n),
                    ensure_ascii=False,
                    separators=(",", ":"),
                    allow_nan=False,
                ).encode("utf-8")
            head = {
                "version": CHECKPOINT_VERSION,
                "fingerprint": fold_fingerprint(),
                "seq": n,
                "digest": self._log.digest(n),
            }
            self._log.write_checkpoint(head, body)
        except (GmdeskError, OSError, TypeError, ValueError) as e:
            self.warnings.append(f"could not save the checkpoint (the next open replays the log): {e}")
            return
        self._ckpt_seq = n

    # ---- opening

    @classmethod
    def open(cls, path: str | Path, readonly: bool = False) -> Session:
        """Replay the save at ``path``. The writer takes the lock (LockedError names who
        holds it); ``readonly=True`` never writes anything."""
        log = _store().EventLog.open(Path(path), readonly=readonly)
        try:
            return cls(log, readonly=readonly, path=path)
        except BaseException:
            log.close()
            raise

    @classmethod
    def create(cls, path: str | Path, name: str, system: str, settings: Mapping[str, Any] | None = None) -> Session:
        """A new, empty session file (refuses to overwrite), open for writing."""
        from gmdesk.core.systems import get_system

        get_system(system)  # ParamError for an unknown system
        log = _store().EventLog.create(Path(path), new_header(name, system, settings))
        return cls(log, readonly=False, path=path)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- reading

    @property
    def state(self) -> State:
        return self._fold.state

    @property
    def events(self) -> Sequence[Event]:
        if len(self._events) < self._log_seq:  # an apply interrupted after its event was saved
            self._events.grow(self._log_seq)
        return self._events

    @property
    def header(self) -> dict:
        return dict(self._log.header)

    @property
    def can_undo(self) -> bool:
        return not self.readonly and self._fold.can_undo

    @property
    def can_redo(self) -> bool:
        return not self.readonly and self._fold.can_redo

    @property
    def undo_target(self) -> Event | None:
        """The event ``undo`` would revert (for an "Undo: …" label)."""
        return self._event(self._fold.done[-1]) if self._fold.done else None

    @property
    def redo_target(self) -> Event | None:
        return self._event(self._fold.undone[-1]) if self._fold.undone else None

    def _event(self, seq: int) -> Event | None:
        if type(seq) is int and 0 < seq <= len(self._events) and self._events[seq - 1].seq == seq:
            return self._events[seq - 1]  # the log is numbered 1..n without gaps
        lo, hi = 0, len(self._events)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._events[mid].seq < seq:
                lo = mid + 1
            else:
                hi = mid
        return self._events[lo] if lo < len(self._events) and self._events[lo].seq == seq else None

    def event(self, seq: int) -> Event | None:
        return self._event(seq)

    def tables(self):
        """The TableSet in force (the session's ``tables`` setting over the built-ins)."""
        return session_tables(self.state.info.settings)

    def character(self, id_or_name: str):
        """A character by id or by name (case-insensitive); GmdeskError if unknown or ambiguous."""
        st = self.state
        if id_or_name in st.characters:
            return st.characters[id_or_name]
        key = id_or_name.strip().casefold()
        found = [c for c in st.characters.values() if c.name.casefold() == key]
        if len(found) == 1:
            return found[0]
        if found:
            ids = ", ".join(c.id for c in found)
            raise GmdeskError(f"{len(found)} characters are named {id_or_name!r} ({ids}); use the id")
        names = ", ".join(c.name for c in st.characters.values()) or "none yet"
        raise GmdeskError(f"no character {id_or_name!r} in {st.info.name or 'this session'} (characters: {names})")

    # ---- writing

    def apply(self, doc: Mapping[str, Any]) -> Event:
        """Validate ``doc`` against the live state, write it durably, fold it.

        EventError (one line) when refused: nothing is written, nothing changes.
        Thread-safe (one event at a time)."""
        with self._mutex:
            return self._apply(doc)

    def _apply(self, doc: Mapping[str, Any]) -> Event:
        if self._closed:
            raise EventError("the session is closed", doc.get("type") if isinstance(doc, Mapping) else None)
        if not isinstance(doc, Mapping):
            raise EventError("an event must be an object with a 'type'")
        etype = doc.get("type")
        if self.readonly:
            raise EventError("this session is open read-only", etype if isinstance(etype, str) else None)
        data = _jsonable(doc, etype)
        time = now_iso()
        predicted = self._log_seq + 1
        applied = self._fold.apply(predicted, data, time)
        stored = {k: v for k, v in data.items() if k not in ("time", "summary", "effects")}
        stored.update(applied.extra)
        stored.update({"type": etype, "time": time, "summary": applied.summary, "effects": list(applied.changes)})
        before = self._log.count
        try:
            seq = self._log.append(stored)
        except BaseException:
            # Interrupted (Ctrl-C) or failed: memory must say what the disk says. The
            # store takes back a change it did not finish; one it finished (an
            # interruption after the append, e.g. in a compaction) stays and is folded.
            if self._log.count > before:
                self._appended(before + 1, predicted, data, time)
            else:
                self._fold.revert_last()
            raise
        self._appended(seq, predicted, data, time)
        event = self.events[seq - 1]
        try:
            self._maybe_update_header()
            lines = self._log.journal_lines
            if lines < self._journal_lines:  # the store just compacted: a good moment for a checkpoint
                self._save_checkpoint()
            self._journal_lines = lines
        except GmdeskError as e:  # the event is saved: the summary is only a convenience
            self.warnings.append(f"could not update the session's summary: {e}")
        return event

    def take_notices(self) -> list[str]:
        """What the GM should be told once about the save since the last call (a
        compaction that could not be written…); the screen shows each one."""
        take = getattr(self._log, "take_notices", None)
        return list(take()) if take is not None else []

    def _appended(self, seq: int, predicted: int, data: dict, time: str) -> None:
        """The log holds the new event as ``seq``: number the fold and the event list after it."""
        if seq != predicted:
            # the store numbered it differently: fold it again under its real number
            self._fold.revert_last()
            self._fold.last_seq = max(self._fold.last_seq, self._log_seq)
            self._fold.apply(seq, data, time)
        self._log_seq = seq
        self._events.grow(seq)

    def roll(
        self,
        system: str,
        params: Any,
        actor: str | None = None,
        target: str | None = None,
        combat: bool = False,
        rng: Any = None,
        fill: bool = True,
        clock: str | None = None,
        given: Any = None,
        tables: Any = None,
    ) -> Event:
        """Roll ``system`` with the session's tables and log it (a ``roll`` event).

        ``params`` is the system's Params (or its JSON). ``rng`` defaults to a fresh
        ``random.Random()``. Possibilities spent at roll time (torg ``possibilities``)
        cost the roller; refused before any die is rolled if it lacks them. ``clock``
        (4d6): the clock the roll's progress goes to (refused before rolling if the
        session has no such clock). ``given``: the parameter names the caller set
        explicitly (they win over what the session fills in; None: those that differ
        from the default). ``tables``: other tables than the session's (``gmdesk roll
        --table``)."""
        from gmdesk.core.systems import get_system

        if self.readonly:
            raise EventError("this session is open read-only", "roll")
        module = get_system(system)
        if isinstance(params, Mapping):
            data = dict(params)
            if combat:  # before validation: some combat-only options need it (1d6x4 --mutual)
                data.setdefault("combat", True)
            params = module.params_from_json(data)
        st = self.state
        a = st.characters.get(actor) if actor is not None else None
        t = st.characters.get(target) if target is not None else None
        if actor is not None and a is None:
            raise EventError(f"actor: no character {actor!r} in this session", "roll")
        if target is not None and t is None:
            raise EventError(f"target: no character {target!r} in this session", "roll")
        self.check_roll(a, t)
        if fill:
            params = self.fill_params(module, params, a, t, combat, given)
        # fill=False: the caller already settled every parameter
        refused = params_refusal(module.ID, params, a)
        if refused is not None:
            raise refused
        if clock:
            if module.ID != "4d6":
                raise EventError(f"clock: only a 4d6 roll moves a clock (this is a {module.ID} roll)", "roll")
            if not any(k.casefold() == clock.strip().casefold() for k in st.clocks):
                raise EventError(f"clock: no clock named {clock!r}", "roll")
        record = module.roll(
            params, rng if rng is not None else random.Random(), tables if tables is not None else self.tables()
        )
        return self.log_roll(record, actor, target, bool(combat or getattr(params, "combat", False)), clock=clock)

    def log_roll(
        self,
        record: RollRecord,
        actor: str | None = None,
        target: str | None = None,
        combat: bool = False,
        clock: str | None = None,
    ) -> Event:
        """Log a rolled record (one ``roll`` event) with what it does besides: a 1d6x4
        Test that names Abilities or Uses on the roller's (or the defender's) sheet spends
        their uses with it (see ``core.systems.one_d6_x4.test_uses``); ``clock``: the 4d6
        clock its progress goes to."""
        doc: dict[str, Any] = {
            "type": "roll",
            "record": record.to_json(),
            "actor": actor,
            "target": target,
            "combat": bool(combat),
        }
        if clock:
            doc["clock"] = clock
        if record.system == "1d6x4":
            from gmdesk.core.systems.one_d6_x4 import test_uses

            chars = self.state.characters
            a = chars.get(actor) if actor is not None else None
            t = chars.get(target) if target is not None else None
            spent = test_uses(record, a.sheet if a is not None else None, t.sheet if t is not None else None)
            if spent:
                doc["uses"] = [
                    {"id": actor if side == "actor" else target, "descriptor": path, "amount": 1}
                    for side, path in spent
                ]
        return self.apply(doc)

    def check_roll(self, actor: Any = None, target: Any = None) -> None:
        """Refuse, before any die is rolled, a roll the session would refuse to log: an
        Unconscious or Dead roller, a Dead target (EventError naming the status)."""
        refusal = roll_refusal(actor, target)
        if refusal is not None:
            raise EventError(refusal, "roll")

    def fill_params(
        self, module: Any, params: Any, actor=None, target=None, combat: bool = False, given: Any = None
    ) -> Any:
        """The parameters with what the session knows filled in: the roller's active
        sources, conditions and the session's settings (see :mod:`core.session.params`;
        ``given`` names the parameters the caller set, which are kept)."""
        from gmdesk.core.session.params import fill_params

        return fill_params(self.state.info.settings, module, params, actor, target, combat, given)

    def undo(self) -> Event | None:
        """Revert the latest undoable event (with every change it made); None if nothing to undo."""
        with self._mutex:
            if not self.can_undo:
                return None
            return self._apply({"type": "undo", "target": self._fold.done[-1]})

    def redo(self) -> Event | None:
        with self._mutex:
            if not self.can_redo:
                return None
            return self._apply({"type": "redo", "target": self._fold.undone[-1]})

    # ---- conveniences over apply (each rolls what it needs, then appends one event)

    def spend_possibility(self, char_id: str, roll_seq: int, rng: Any = None) -> Event:
        """``char_id`` spends a Possibility on torg roll ``roll_seq``: a positive progressive d10."""
        entry = self.state.roll_entry(roll_seq)
        if entry is None:
            raise EventError(f"roll: no roll #{roll_seq} in the log (or it was undone)", "possibility.spend")
        if entry.record.system != "torg-2d10":
            raise EventError(
                f"roll #{roll_seq} is a {entry.record.system} roll; Possibilities are for torg-2d10",
                "possibility.spend",
            )
        c = self.state.characters.get(char_id)
        if c is None:
            raise EventError(f"id: no character {char_id!r} in this session", "possibility.spend")
        if not c.reality_rated or c.possibilities < 1:
            raise EventError(
                f"{c.name} has no Possibility to spend"
                if c.reality_rated
                else f"{c.name} is not reality-rated and has no Possibilities",
                "possibility.spend",
            )
        from gmdesk.core.systems.torg_2d10 import spend_possibility

        record = spend_possibility(entry.record, rng if rng is not None else random.Random(), self.tables())
        return self.apply({"type": "possibility.spend", "id": char_id, "roll": roll_seq, "record": record.to_json()})

    def cancel_possibility(self, char_id: str, roll_seq: int) -> Event:
        """``char_id`` cancels the latest Possibility spent on roll ``roll_seq``."""
        return self.apply({"type": "possibility.cancel", "id": char_id, "roll": roll_seq})

    def heal(self, healer: str, target: str, rng: Any = None) -> Event:
        """1d6x4 Healing Ability: d6 back onto ``target``'s Vitality (capped at its Default)."""
        st = self.state
        t = st.characters.get(target)
        if t is None:
            raise EventError(f"target: no character {target!r} in this session", "heal")
        if healer not in st.characters:
            raise EventError(f"healer: no character {healer!r} in this session", "heal")
        if t.status == "dead":
            raise EventError(f"{t.name} is dead; the Dead stay dead", "heal")
        from gmdesk.core.systems.one_d6_x4 import heal

        record, new = heal(rng if rng is not None else random.Random(), t.vitality_current, t.vitality_default)
        return self.apply(
            {"type": "heal", "healer": healer, "target": target, "record": record.to_json(), "vitality": new}
        )

    def initiative_modifier(self, char_id: str, system: str | None = None) -> int:
        """The character's own initiative modifier where gmdesk knows it: 4d2 its own
        active shift total (0..3), 1d6x4 its Reflex Current Value; else 0."""
        c = self.state.characters[char_id]
        system = system or self.state.info.system
        if system == "4d2":
            from gmdesk.core.systems.four_d_two import own_shift

            return own_shift([s.value for s in c.shifts if s.active])
        if system == "1d6x4" and c.sheet is not None:
            value = getattr(c.sheet, "value", None)
            if value is not None:
                try:
                    return int(value("Reflex") or 0)
                except GmdeskError:
                    return 0
        return 0

    def initiative_record(
        self, char_id: str, rng: Any = None, modifier: int | None = None, system: str | None = None
    ) -> RollRecord:
        """One initiative roll for ``char_id`` (not logged): the session's system (fudge
        with the session's ``fudge_method``), the character's own modifier unless
        ``modifier`` is given."""
        from gmdesk.core.systems import get_system

        system = system or self.state.info.system
        module = get_system(system)
        if char_id not in self.state.characters:
            raise EventError(f"no character {char_id!r} in this session", "initiative.set")
        mod = self.initiative_modifier(char_id, system) if modifier is None else modifier
        rng = rng if rng is not None else random.Random()
        if module.ID == "fudge":
            method = self.state.info.settings.get("fudge_method", DEFAULT_SETTINGS["fudge_method"])
            return module.initiative(rng, mod, method=method)
        return module.initiative(rng, mod)

    def roll_initiative(
        self,
        ids: Sequence[str],
        rng: Any = None,
        modifiers: Mapping[str, int] | None = None,
        system: str | None = None,
        values: Mapping[str, int] | None = None,
    ) -> Event:
        """Roll initiative for ``ids`` with the session's system and set it (one event;
        each roll is logged with its dice). ``values``: typed initiatives (no roll) for
        some of them. Characters not yet in the encounter join it."""
        rng = rng if rng is not None else random.Random()
        entries = []
        for cid in ids:
            if cid not in self.state.characters:
                raise EventError(f"no character {cid!r} in this session", "initiative.set")
            if values is not None and values.get(cid) is not None:
                entries.append({"id": cid, "value": int(values[cid])})
                continue
            record = self.initiative_record(cid, rng, (modifiers or {}).get(cid), system)
            entries.append({"id": cid, "value": record.value, "record": record.to_json()})
        return self.apply({"type": "initiative.set", "entries": entries})

    def join_encounter(
        self, char_id: str, rng: Any = None, value: int | None = None, modifier: int | None = None
    ) -> Event:
        """``char_id`` joins the encounter: at the typed ``value``, else at an initiative
        rolled now (as ``roll_initiative`` rolls it) and logged with its dice."""
        if value is not None:
            return self.apply({"type": "encounter.add", "id": char_id, "initiative": int(value)})
        record = self.initiative_record(char_id, rng, modifier)
        return self.apply(
            {"type": "encounter.add", "id": char_id, "initiative": record.value, "record": record.to_json()}
        )

    # ---- view state

    def ui_get(self, key: str, default: Any = None) -> Any:
        if key in self._ui:
            return self._ui[key]
        try:
            return self._log.meta_get(key, default)
        except Exception:  # view state is a convenience: never fail a screen over it
            return default

    def ui_set(self, key: str, value: Any) -> None:
        """Remember view state (selected character…): not an event, never undone."""
        self._ui[key] = value
        if not self.readonly and not self._closed:
            self._log.meta_set(key, value)
            self._ui.pop(key, None)

    # ---- followers

    def refresh(self) -> bool:
        """Read-only followers: fold what the writer appended since; True if anything changed."""
        with self._mutex:
            return self._refresh()

    def _refresh(self) -> bool:
        if self._closed:
            return False
        new = self._log.since(self._log_seq)
        changed = False
        for seq, doc in new:
            if seq <= self._log_seq:
                continue
            try:
                self._fold.apply(seq, doc, str(doc.get("time", "")), strict=False)
            except GmdeskError as e:
                self.warnings.append(f"event #{seq} ({doc.get('type')}) skipped: {e}")
                self._skipped.append(self.warnings[-1])
            self._events.append(Event.from_doc(seq, doc))
            self._log_seq = seq
            changed = True
        return changed

    # ---- header summary (fast listing)

    def _roll_count(self) -> int:
        """How many entries the roll log holds — rolls, initiative rolls and heals, as
        the desk's log counts them in its title — so that the session list says the
        same number as the open session."""
        return len(self.state.rolls)

    def _summary(self) -> dict:
        st = self.state
        return {
            "name": st.info.name,
            "system": st.info.system,
            "last_played": st.info.last_played,
            "round": st.encounter.round,
            "rolls": self._roll_count(),
            "characters": len(st.characters),
            "events": self._log_seq,
        }

    #: the header summary is rewritten at least every this many events
    HEADER_EVERY = 25

    def _maybe_update_header(self, force: bool = False) -> None:
        """Keep the header's summary fields (what ``SessionStore.list`` shows) current:
        at once when the round, the cast or the system changes, else every
        ``HEADER_EVERY`` events, on open and on close (one small write, not one per roll)."""
        if self.readonly or self._closed:
            return
        summary = self._summary()
        header = self._log.header
        changed = {k: v for k, v in summary.items() if k != "name" and header.get(k) != v}
        if not changed:
            return
        due = self._log_seq - self.__dict__.get("_header_seq", 0) >= self.HEADER_EVERY
        # what the session list shows (round, rolls, characters, last played to the
        # minute) is written at once, so that the list agrees with the open session
        shown = {"round", "characters", "system", "rolls"} & set(changed)
        if "last_played" in changed and str(header.get("last_played", ""))[:16] != str(summary["last_played"])[:16]:
            shown.add("last_played")
        if force or due or shown:
            self._log.set_header(**changed)
            self._header_seq = self._log_seq

    def close(self) -> None:
        """Write the header summary (writer), release the lock. Idempotent."""
        with self._mutex:
            self._close()

    def _close(self) -> None:
        if self._closed:
            return
        try:
            if not self.readonly:
                self._maybe_update_header(force=True)
                self._save_checkpoint()
        finally:
            self._closed = True
            self._log.close()


def params_refusal(system: str, params: Any, actor: Any = None) -> EventError | None:
    """Why the session refuses to roll these parameters for this roller, before any die
    is rolled (the roll dialog asks the same, so its preview refuses what the roll
    would): torg Possibilities spent at roll time need a reality-rated roller who has
    them. None when nothing is wrong."""
    cost = int(getattr(params, "possibilities", 0) or 0) if system == "torg-2d10" else 0
    if cost and actor is not None:
        if not actor.reality_rated:
            return EventError(
                f"{actor.name} is not reality-rated and has no Possibilities to spend", "roll", field="possibilities"
            )
        if actor.possibilities < cost:
            return EventError(
                f"{actor.name} has {actor.possibilities} Possibilities, needs {cost}", "roll", field="possibilities"
            )
    return None
