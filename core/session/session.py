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
import json
import os
import threading
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.eventlist import PROMOTE_AT, EventList, event_loader, record_loader, replayer, stored_event
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
    session_tables,
    system_fingerprint,
)
from gmdesk.core.session.model import DEFAULT_SETTINGS, Character, State
from gmdesk.core.session.model.rolllog import PAGE, RollLog
from gmdesk.core.session.model.rolls import LazyRecord
from gmdesk.core.session.moves import SessionMoves, params_refusal
from gmdesk.core.session.plain import as_saved, plain_event
from gmdesk.core.session.rescue import keep_lost
from gmdesk.core.session.storage import FORMAT_TAG, CorruptSaveError, EventLog, sidecar_paths
from gmdesk.core.session.storage.errors import SessionChangedError
from gmdesk.core.session.systemmoves import SystemMoveCalls
from gmdesk.core.text import now_iso

if TYPE_CHECKING:
    from gmdesk.core.tables import TableSet

#: the header's ``format`` value: marks a file as a gmdesk session
FORMAT = FORMAT_TAG


#: the checkpoint's JSON: compact, any Unicode as is, no NaN
_CHECKPOINT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps_in_pieces(obj: Any, depth: int = 4, piece: int = 256) -> str:
    """``json.dumps`` of ``obj`` as the checkpoint writes it, the same text, made of
    many small encoder calls: a thread writing the checkpoint of a long session lets
    the others run between them (one call over the whole of it holds the interpreter
    for as long as it takes, a fifth of a second at 50,000 events)."""
    out: list[str] = []
    encode = _CHECKPOINT_JSON.encode

    def walk(o: Any, depth: int) -> None:
        if depth and isinstance(o, dict) and all(isinstance(k, str) for k in o):
            out.append("{")
            for i, (k, v) in enumerate(o.items()):
                out.append(f"{',' if i else ''}{encode(k)}:")
                walk(v, depth - 1)
            out.append("}")
        elif depth and isinstance(o, (list, tuple)) and len(o) > piece:
            out.append("[")
            for i in range(0, len(o), piece):
                out.append(("," if i else "") + encode(list(o[i : i + piece]))[1:-1])
            out.append("]")
        elif depth and isinstance(o, (list, tuple)):
            out.append("[")
            for i, v in enumerate(o):
                if i:
                    out.append(",")
                walk(v, depth - 1)
            out.append("]")
        else:
            out.append(encode(o))

    walk(obj, depth)
    return "".join(out)


def new_header(
    name: str, system: str, settings: Mapping[str, Any] | None = None, created: str | None = None
) -> dict[str, Any]:
    when = created or now_iso()
    from gmdesk.core.session.settings import defaults_for

    merged = copy.deepcopy(DEFAULT_SETTINGS)
    merged.update(defaults_for(system))
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
    missing name, system or settings, text holding control characters (a terminal
    obeys them), an unknown dice system. Refused, never opened and rewritten."""
    from gmdesk.core.session.settings import SettingError, settings_of
    from gmdesk.core.systems import BUILTIN_IDS, system_ids

    out = []
    if header.get("format") != FORMAT:
        out.append(
            "the header has no 'format'"
            if "format" not in header
            else f"the header's 'format' is {header['format']!r}, not {FORMAT!r}"
        )
    for key, kind, what in (("name", str, "text"), ("system", str, "text"), ("settings", dict, "an object")):
        if key not in header:
            out.append(f"the header has no {key!r}")
        elif not isinstance(header[key], kind):
            out.append(f"the header's {key!r} is not {what}")
        elif kind is str and not header[key].strip():
            out.append(f"the header's {key!r} is empty")
    for key in (k for k in ("name", "created", "last_played") if isinstance(header.get(k), str)):
        if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in header[key]):
            out.append(f"the header's {key!r} holds control characters (gmdesk never writes them)")
    settings = header.get("settings")
    if isinstance(settings, dict):
        # the session's own and its system's: another system's does nothing here
        own = {s.key: s for s in settings_of(str(header.get("system", "")))}
        for key, value in settings.items():
            setting = own.get(key)
            if setting is None:
                continue
            try:
                ok = setting.parse(value) == value and type(setting.parse(value)) is type(value)
            except SettingError:
                ok = False
            if not ok:
                out.append(f"the header's setting {key!r} is {value!r}, not {setting.accepts()}")
    system = header.get("system")
    if isinstance(system, str) and system not in BUILTIN_IDS and system not in system_ids():
        from gmdesk.core.systems import plugin_failure

        why = plugin_failure(system)
        if why is not None:
            out.append(
                f"its dice system {system!r} is a plug-in that is installed but fails to load ({why}); "
                f"mend or reinstall it to open the session"
            )
        else:
            out.append(
                f"the header names a dice system this gmdesk does not know ({system!r}; it knows "
                f"{', '.join(system_ids())}): if it is a plug-in system, install its package to open the session"
            )
    return out


def _drop_unused_lock(path: Path) -> None:
    """Remove the lock file a refused open created (a damaged session, a missing
    plug-in…): only when nobody holds it, it is empty, and it is still the file at
    that name — removed while this process holds its lock, so no other writer can
    have taken it in between."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        st, cur = os.fstat(fd), os.lstat(path)
        if st.st_size == 0 and (st.st_dev, st.st_ino) == (cur.st_dev, cur.st_ino):
            os.unlink(path)
    except OSError:
        pass  # held, replaced or gone: leave it as it is
    finally:
        os.close(fd)


class Session(SessionMoves, SystemMoveCalls):
    """One open session. Use :meth:`open` (or :meth:`create`); see docs/DESIGN.md.

    Opening replays the log, or — when the save has a checkpoint that fits it (see
    :meth:`_fold_from_checkpoint`) — loads the state the log folded to when it was
    last closed and replays only what came after; the result is the same state,
    with the same undo and redo. The moves that roll dice first (``roll``,
    ``heal``, initiative, Possibilities) are :class:`~core.session.moves.SessionMoves`."""

    #: write a checkpoint when the writer closes (and when the store compacts)
    CHECKPOINTS = True
    #: undoable events whose undo needs no replay right after reopening
    UNDO_KEPT = 200

    def __init__(self, log: EventLog, *, readonly: bool = False, path: str | Path | None = None):
        self._log = log
        self._mutex = threading.RLock()  # the UI may write from a worker thread
        self.readonly = readonly
        self.path = Path(path) if path is not None else None
        self.rescued: Path | None = None  # what was saved, kept as a new session (core.session.rescue)
        self.warnings: list[str] = list(log.warnings)
        self._ui: dict[str, Any] = {}
        self._log_seq = 0
        self._closed = False
        #: warnings of events the fold refused (kept with the checkpoint)
        self._skipped: list[str] = []
        self._ckpt_seq = -1  # the seq the checkpoint on disk covers, when known
        problems = header_problems(log.header)
        if problems:
            raise CorruptSaveError(log.path, "header", "; ".join(problems))
        count = log.count
        with no_gc(promote=count >= PROMOTE_AT):
            header = dict(log.header)
            self._events = EventList(event_loader(log), count)
            fold = self._fold_from_checkpoint(header, count) if self.CHECKPOINTS else None
            if fold is None:
                self._skipped = []
                fold = replay(header, log.events(copy=False), self._skipped)
        fold.rebuild = replayer(log)
        # what the fold keeps about older events is read back from the log when needed
        # (see Fold.trim): a long session's memory does not grow with its history
        fold.source = stored_event(log)
        self._records = record_loader(log)
        self._fold: Fold = fold
        # state.rolls[:_shed_upto] hold their records as references to the log (restored
        # from a checkpoint: all of them already, nothing to go through at open)
        self._shed_upto = max(0, len(fold.state.rolls) - self.RECORDS_KEPT) if self._ckpt_seq > 0 else 0
        self._shed()
        self.warnings.extend(self._skipped)
        self._log_seq = count
        self._header_seq = self._log_seq
        self._journal_lines = log.journal_lines
        if not readonly:
            self._maybe_update_header(force=True)  # a crash may have left it behind

    # ---- checkpoint

    def _fold_from_checkpoint(self, header: dict[str, Any], count: int) -> Fold | None:
        """The fold restored from the save's checkpoint plus the events after it, or None
        (no checkpoint, or one that does not fit: another gmdesk version or log, a
        damaged file, a seq beyond the log, a different digest of the events it
        covers). Reading it never fails the open: the log is replayed instead."""
        from gmdesk.core.session.events.migrations import plugins_migrate

        log = self._log
        if plugins_migrate():  # a plug-in migrates its records on read: the log is read again
            return None
        got = log.read_checkpoint()
        if got is None:
            return None
        head, body = got
        seq = head.get("seq")
        if (
            head.get("version") != CHECKPOINT_VERSION
            or head.get("fingerprint") != fold_fingerprint() + system_fingerprint(str(log.header.get("system")))
            or type(seq) is not int
            or not 0 < seq <= count
            or head.get("digest") != log.digest(seq)
        ):
            return None
        try:
            data = json.loads(body)
            if data.get("seq") != seq:
                return None
            fold = fold_from_checkpoint(data, stored_event(log), record_loader(log), header)
            skipped = [str(w) for w in data.get("skipped", ())]
        except Exception:  # noqa: BLE001 - a cache that does not fit is not an error: replay instead
            return None
        fold.rebuild = replayer(log)  # an undo in the tail may reach past the kept inverses
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
        if self.readonly or self._closed or not self.CHECKPOINTS or self._log.changed_on_disk:
            return  # (beside files another program put there, a checkpoint of this log is not theirs)
        fold = self._fold
        n = self._log_seq  # every event up to here is folded (applied, or refused and skipped)
        if n == 0 or n == self._ckpt_seq or n != self._log.count or fold.last_seq > n:
            return
        try:
            with no_gc():
                body = dumps_in_pieces(fold_checkpoint(fold, self.UNDO_KEPT, self._skipped, n)).encode("utf-8")
            head = {
                "version": CHECKPOINT_VERSION,
                "fingerprint": fold_fingerprint() + system_fingerprint(str(self._log.header.get("system"))),
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
        lock = sidecar_paths(path)["lock"]
        had_lock = readonly or os.path.lexists(lock)
        try:
            log = EventLog.open(Path(path), readonly=readonly)
            try:
                return cls(log, readonly=readonly, path=path)
            except BaseException:
                log.close()
                raise
        except BaseException:
            if not had_lock:
                _drop_unused_lock(lock)  # a refused open leaves no lock file behind
            raise

    @classmethod
    def create(cls, path: str | Path, name: str, system: str, settings: Mapping[str, Any] | None = None) -> Session:
        """A new, empty session file (refuses to overwrite), open for writing."""
        from gmdesk.core.systems import get_system

        get_system(system)  # ParamError for an unknown system
        log = EventLog.create(Path(path), new_header(name, system, settings))
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
    def header(self) -> dict[str, Any]:
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
        lo = bisect_left(self._events, seq, key=attrgetter("seq"))
        return self._events[lo] if lo < len(self._events) and self._events[lo].seq == seq else None

    def event(self, seq: int) -> Event | None:
        return self._event(seq)

    def tables(self) -> TableSet:
        """The TableSet in force (the session's ``tables`` setting over the built-ins)."""
        return session_tables(self.state.info.settings)

    def character(self, id_or_name: str) -> Character:
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
            try:
                return self._apply(doc)
            except SessionChangedError as e:
                self.rescued = keep_lost(self._log, self.path or self._log.path) or self.rescued
                raise SessionChangedError(self._log.changed_on_disk or str(e)) from None

    def _apply(self, doc: Mapping[str, Any]) -> Event:
        if self._closed:
            raise EventError("the session is closed", doc.get("type") if isinstance(doc, Mapping) else None)
        if type(doc) is not dict and not isinstance(doc, Mapping):
            raise EventError("an event must be an object with a 'type'")
        etype = doc.get("type")
        if self.readonly:
            raise EventError("this session is open read-only", etype if isinstance(etype, str) else None)
        data, record = plain_event(doc, etype)
        time = now_iso()
        predicted = self._log_seq + 1
        applied = self._fold.apply(predicted, data, time, record=record)
        filled = {"type": etype, "time": time, "summary": applied.summary, "effects": list(applied.changes)}
        if not applied.extra and "time" not in data and "summary" not in data and "effects" not in data:
            stored = {**data, **filled}  # (most events: the same dict as below, made at once)
        else:
            stored = dict(data)
            for k in _FILLED:  # (what the fold fills in, written after the rest)
                stored.pop(k, None)
            stored.update(applied.extra)
            stored.update(filled)
        before = self._log.count
        # the header's summary goes in the same write and fsync as the event
        header = self._header_changes(events=predicted)
        try:
            seq = self._log.append(stored, header=header or None)
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
        if header:
            self._header_seq = seq
        if seq == predicted and as_saved(applied):
            # what the log now holds, as reading it back would give it (the event is
            # plain JSON data): made from the document just written, not read again
            event = _saved_event(seq, stored)
            self._events.put(event)
        else:
            event = self.events[seq - 1]
        try:
            if seq != predicted:
                self._maybe_update_header()
            lines = self._log.journal_lines
            if lines < self._journal_lines:  # the store just compacted: a good moment for a checkpoint
                self._save_checkpoint()
            self._journal_lines = lines
        except GmdeskError as e:  # the event is saved: the summary is only a convenience
            self.warnings.append(f"could not update the session's summary: {e}")
        return event

    @property
    def changed_on_disk(self) -> str | None:
        """Why nothing more is saved, when another program replaced or wrote the
        session's files while this writer had it open (one line); else None."""
        return self._log.changed_on_disk

    def take_notices(self) -> list[str]:
        """What the GM should be told once about the save since the last call (a
        compaction that could not be written…); the screen shows each one."""
        return self._log.take_notices()

    def _appended(self, seq: int, predicted: int, data: dict[str, Any], time: str) -> None:
        """The log holds the new event as ``seq``: number the fold and the event list after it."""
        if seq != predicted:
            # the store numbered it differently: fold it again under its real number
            self._fold.revert_last()
            self._fold.last_seq = max(self._fold.last_seq, self._log_seq)
            self._fold.apply(seq, data, time)
        self._log_seq = seq
        self._events.grow(seq)
        self._shed()

    #: roll entries kept with their records in memory (the newest); older ones keep a
    #: reference to where the log holds the record and read it again when asked
    RECORDS_KEPT = 200

    def _shed(self) -> None:
        """Keep what the session holds in memory for old events bounded: the fold
        forgets the payloads and inverses of events older than the undo it keeps
        (:meth:`Fold.trim`), and old roll entries hold their records as references to
        the log (:class:`~core.session.model.rolls.LazyRecord`, as after a checkpoint).
        Runs in batches, so a roll pays O(1) on average."""
        fold = self._fold
        # (after an undo that reached far back the fold is a full replay of the log and
        # keeps every inverse — no ``rebuild`` —, so that undoing further back costs no
        # second replay: trim() then leaves it whole)
        fold.trim(self.UNDO_KEPT)
        rolls = fold.state.rolls
        # the older entries of the roll log packed (read back when looked at): what the
        # session holds does not grow with the rolls it made
        if type(rolls) is list and len(rolls) > 2 * self.RECORDS_KEPT + PAGE:
            rolls = fold.state.rolls = RollLog(rolls, self._records)
        if type(rolls) is not list and isinstance(rolls, RollLog):  # (a list: no abstract class check)
            rolls.pack(self.RECORDS_KEPT)
            self._shed_upto = max(self._shed_upto, rolls.packed_count)
        stop = len(rolls) - self.RECORDS_KEPT
        if stop - self._shed_upto < self.RECORDS_KEPT:
            if stop < self._shed_upto:
                self._shed_upto = max(0, stop)  # (an undo took entries back)
            return
        load = self._records
        for e in rolls[self._shed_upto : stop]:
            d = e.__dict__
            kind = d["kind"]
            if (kind == "roll" or kind == "heal") and not d["spends"] and not d["cancels"]:
                rec = d["record"]
                if type(rec) is RollRecord:
                    d["record"] = LazyRecord(load, d["seq"], kind, 0)
        self._shed_upto = stop

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
        if changed:
            self._shed()
        return changed

    # ---- header summary (fast listing)

    def _roll_count(self) -> int:
        """How many entries the roll log holds — rolls, initiative rolls and heals, as
        the desk's log counts them in its title — so that the session list says the
        same number as the open session."""
        return len(self.state.rolls)

    def _summary(self, events: int | None = None) -> dict[str, Any]:
        st = self.state
        return {
            "name": st.info.name,
            "system": st.info.system,
            "last_played": st.info.last_played,
            "round": st.encounter.round,
            "rolls": self._roll_count(),
            "characters": len(st.characters),
            "events": self._log_seq if events is None else events,
        }

    #: the header summary is rewritten at least every this many events
    HEADER_EVERY = 25

    def _maybe_update_header(self, force: bool = False) -> None:
        """Keep the header's summary fields (what ``SessionStore.list`` shows) current:
        at once when the round, the cast or the system changes, else every
        ``HEADER_EVERY`` events, on open and on close (one small write, not one per roll)."""
        if self.readonly or self._closed:
            return
        changed = self._header_changes(force=force)
        if changed:
            self._log.set_header(**changed)
            self._header_seq = self._log_seq

    def _header_changes(self, force: bool = False, events: int | None = None) -> dict[str, Any]:
        """The summary fields to write now (empty when none is due), as of ``events``
        events (default: those logged)."""
        summary = self._summary(events)
        header = self._log.header_view
        changed = {k: v for k, v in summary.items() if k != "name" and header.get(k) != v}
        if not changed:
            return {}
        n = self._log_seq if events is None else events
        due = n - self.__dict__.get("_header_seq", 0) >= self.HEADER_EVERY
        # what the session list shows (round, rolls, characters, last played to the
        # minute) is written at once, so that the list agrees with the open session
        shown = {"round", "characters", "system", "rolls"} & set(changed)
        if "last_played" in changed and str(header.get("last_played", ""))[:16] != str(summary["last_played"])[:16]:
            shown.add("last_played")
        return changed if force or due or shown else {}

    def close(self) -> None:
        """Write the header summary (writer), release the lock. Idempotent."""
        with self._mutex:
            self._close()

    def _close(self) -> None:
        if self._closed:
            return
        try:
            if not self.readonly:
                try:
                    self._maybe_update_header(force=True)
                except GmdeskError as e:  # (a session its writer no longer saves: said already)
                    self.warnings.append(f"could not update the session's summary: {e}")
                # the store compacts first: the checkpoint's digest of the events is then
                # the one the new snapshot records (a long history is not read again)
                self._log.compact_for_close()
                if self.rescued is None and (kept := keep_lost(self._log, self.path or self._log.path)):
                    self.rescued = kept
                    self.warnings.append(self._log.changed_on_disk or "")
                self._save_checkpoint()
        finally:
            self._closed = True
            self._log.close()


#: the fields of a stored event the fold fills in (its time, summary and changes)
_FILLED = ("time", "summary", "effects")


def _saved_event(seq: int, stored: dict[str, Any]) -> Event:
    """``Event.from_doc(seq, stored)`` for an event just saved: ``stored`` has its
    type (text), time and summary (the rest of it, in its order, is the event's data)."""
    data = dict(stored)
    del data["type"], data["time"], data["summary"]
    return Event(seq, stored["type"], data, stored["time"], stored["summary"])


__all__ = ["FORMAT", "EventList", "Session", "header_problems", "new_header", "now_iso", "params_refusal"]
