"""Events: validate, fold into the state, undo and redo.

Every change to a session is an event ``{"type": …, **payload}``. :class:`Fold` owns a
:class:`~core.session.model.State` and applies events to it one by one. Applying an
event first validates it against the current state (an :class:`EventError` with a
one-line reason changes nothing), then mutates the state through a :class:`Txn`
that remembers the prior value of everything the event touched. That record is the
event's *inverse*: undo restores it, in O(size of the event), never by replaying.
:func:`replay` folds a whole log from scratch (opening a save, and the tests' check
that the live state equals a replay). :func:`fold_checkpoint` /
:func:`fold_from_checkpoint` save and restore a fold so that a long save opens
without replaying it all; a replay from scratch stays the reference.

Undo and redo are events too (``{"type": "undo", "target": seq}``). Every other event
is undoable. A new ordinary event clears the redo stack. Redo re-applies the
original event's stored payload (its dice included), so it gives exactly the state
the event gave the first time.

Decisions where the rules are silent (what a GM at the table expects):

* **Durations** are counted in rounds and tick when their owner's *turn ends*:
  ``turn.next`` ends the acting combatant's turn; ``round.new`` ends the turns of the
  acting combatant and of everyone after it in the order who had not acted yet.
  Each source or condition with ``rounds`` N loses one; at 0 it is removed (the
  roll log says so). Characters outside the encounter never tick. ``turn.prev``
  only moves the marker back; to take a turn back with its ticks, undo it.
* **Who can act** (RULES.md): the Unconscious and the Dead have no turns —
  ``turn.next`` and ``round.new`` pass over them (``turn.prev`` too, going back),
  unless no combatant can act, and their durations do not tick (they have no turn
  to end) — and they roll for no action: a ``roll`` by one of them is refused,
  and so is a ``roll`` at a Dead target. The GM can still change their state
  (heal, buy off, undo, edit); one brought back above the threshold acts again.
* **Names**: two characters never share a name (case-insensitive), so every list of
  characters is unambiguous; ``character.add`` / ``character.edit`` refuse a taken
  name and suggest a numbered one ("Gospog 2").
* **Strict checks** (who can act, unique names) apply to new events only: a log
  written before them replays as it was written (``Fold.apply(strict=False)``).
* **Combat**: each descriptor with ``wound`` goes to the target (``applies_to``
  "target") or the roller ("attacker"); an untracked receiver gets nothing but the
  roll is logged. 1d6x4 descriptors lower Vitality (Unconscious at −5 or lower;
  injured again while Unconscious: Dead, for good). Other systems pile the
  descriptor up as a wound; ``core/data/wound-status.json`` says which descriptors
  change the status (organic "Fatal Wound" → dead, organic "Mortal Wound", FUDGE
  "Incapacitated" and "Near Death" → unconscious). A session may point the
  ``wound-status`` table role at its own table.
* A torg roll with ``disconnection`` marks a tracked roller Disconnected.
* **Possibilities**: spent at roll time (torg ``possibilities``) or after
  (``possibility.spend``), only by a reality-rated character who has them; an
  untracked roller pays nothing. A cancel costs the canceller one (the spender's
  one is already gone: "both lose one") and must come from someone other than the
  spender. A spend or cancel re-reads a combat roll: its old wounds come off and the
  new record's descriptors go on. Buy-off removes any wound the character carries
  (the GM decides what "just taken" means) and notes it on the roll that caused it.
* A character added with a descriptor sheet takes its Vitality from the sheet's
  Vitality descriptor when there is one (the ``vitality`` field otherwise); Vitality
  changes are written back onto the sheet (a missing Vitality descriptor is written
  with its Default and new Current, the rule for missing descriptors).
* **New day** (``day.new``): every living character's Vitality and sheet Current
  Values return to their Defaults and its 1d6x4 Vitality Adjustment wounds are
  cleared; the Dead stay exactly as they are.
* ``encounter.delay`` moves a combatant to just after the next one; delaying the
  acting combatant passes the turn to the next one without ending any turn.
"""

from __future__ import annotations

import copy
import gc
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.model import (
    DEFAULT_SETTINGS,
    KINDS,
    SIDES,
    SOURCE_KINDS,
    Character,
    Clock,
    Combatant,
    Condition,
    Note,
    RollEntry,
    Source,
    State,
    Wound,
)

#: every event type, in the order the design lists them
EVENT_TYPES = (
    "session.settings",
    "character.add",
    "character.edit",
    "character.remove",
    "source.add",
    "source.remove",
    "source.toggle",
    "condition.add",
    "condition.remove",
    "sheet.set",
    "sheet.import",
    "encounter.add",
    "encounter.remove",
    "encounter.move",
    "encounter.delay",
    "encounter.end",
    "initiative.set",
    "turn.next",
    "turn.prev",
    "round.new",
    "day.new",
    "clock.add",
    "clock.tick",
    "clock.remove",
    "roll",
    "use",
    "heal",
    "possibility.spend",
    "possibility.cancel",
    "damage.buyoff",
    "wound.remove",
    "note",
    "undo",
    "redo",
)
#: fields gmdesk adds to a stored event (never part of what is validated)
#: (``effects``: the human-readable changes the event made, e.g. "Kara takes Severe Wound")
META_FIELDS = ("type", "time", "summary", "effects")

MAX_NAME = 200
MAX_TEXT = 20_000
MAX_VITALITY = 999
MAX_POSSIBILITIES = 999
MAX_ROUNDS = 9999
#: bound of an event's whole-number field that names none of its own
MAX_FIELD_INT = 1_000_000
MAX_SEGMENTS = 100
MAX_INITIATIVE = 10_000


class EventError(GmdeskError):
    """An event was refused; ``str(err)`` is one line: the event type and the reason.
    ``field``: the parameter or payload field the refusal is about, when there is one
    (a form shows it with the field's label)."""

    def __init__(self, reason: str, event_type: str | None = None, field: str | None = None):
        self.reason = reason
        self.event_type = event_type
        self.field = field
        super().__init__(f"{event_type}: {reason}" if event_type else reason)


@dataclass(frozen=True)
class Event:
    """One event of the log as the UI sees it. ``data`` is the payload (with the
    fields gmdesk filled in, e.g. a new character's ``id``, and ``effects``: the
    human-readable changes, also as :attr:`changes`)."""

    seq: int
    type: str
    data: Mapping[str, Any]
    time: str
    summary: str

    @property
    def changes(self) -> list[str]:
        """What the event changed, one line each ("Bruno: Vitality 3 → −1 (Unconscious)")."""
        return list(self.data.get("effects", ()))

    def to_json(self) -> dict:
        out = {"seq": self.seq, "type": self.type, "time": self.time, "summary": self.summary}
        out.update(copy.deepcopy(dict(self.data)))
        return out

    @classmethod
    def from_doc(cls, seq: int, doc: Mapping[str, Any]) -> Event:
        data = {k: v for k, v in doc.items() if k not in ("type", "time", "summary")}
        return cls(seq, str(doc.get("type", "")), data, str(doc.get("time", "")), str(doc.get("summary", "")))


# --------------------------------------------------------------------------- formatting


def num(n: int) -> str:
    """A number as the GM reads it: 3, 0, −1 (a real minus sign)."""
    return f"−{-n}" if n < 0 else str(n)


def signed(n: int) -> str:
    return f"−{-n}" if n < 0 else f"+{n}"


def status_word(status: str) -> str:
    return {"ok": "OK", "unconscious": "Unconscious", "dead": "Dead"}.get(status, status)


# --------------------------------------------------------------------------- tables


def session_tables(settings: Mapping[str, Any]):
    """The TableSet a session's settings put in force: ``settings["tables"]`` maps a role
    to a built-in table name or the path of a GM's table file."""
    from gmdesk.core.tables import TableSet

    overrides = {role: resolve_table(name) for role, name in dict(settings.get("tables") or {}).items()}
    return TableSet(overrides=overrides)


def resolve_table(name: str):
    from gmdesk.core.tables import builtin_names, load_builtin, load_table

    if name in builtin_names():
        return load_builtin(name)
    return load_table(Path(name).expanduser())


@lru_cache(maxsize=8)
def _status_rules(table_name: str) -> tuple[tuple[str, str, str], ...]:
    table = resolve_table(table_name)
    rules = []
    for row in sorted(getattr(table, "rows", {})):
        texts = table.rows[row]
        if len(texts) >= 3:
            rules.append((texts[0].casefold(), texts[1].casefold(), texts[2].casefold()))
    return tuple(rules)


def wound_status(settings: Mapping[str, Any], text: str, column: str) -> str | None:
    """The status a descriptor imposes (``dead`` / ``unconscious``) or None, read from the
    ``wound-status`` table (a session can point that role at its own table)."""
    name = dict(settings.get("tables") or {}).get("wound-status", "wound-status")
    t, c = text.casefold(), (column or "").casefold()
    for d_text, d_col, status in _status_rules(name):
        if d_text == t and (d_col in ("*", "") or d_col == c):
            return status if status in ("dead", "unconscious") else None
    return None


# --------------------------------------------------------------------------- sheets
# Thin adapters over core.sheet (imported lazily so this module loads without it).


def sheet_parse(text: str):
    from gmdesk.core.sheet import parse_sheet

    return parse_sheet(text)


def sheet_new(header: str = ""):
    from gmdesk.core.sheet import new_sheet

    return new_sheet(header)


def sheet_vitality(sheet) -> tuple[int, int] | None:
    """(default, current) of the sheet's Vitality descriptor, or None if it has none."""
    if sheet is None:
        return None
    row = sheet.find("Vitality")
    if row is None or not row.has_value:
        return None
    default = row.default if row.default is not None else 0
    return default, row.value


def sheet_set_current(sheet, name: str, value: int):
    """Write a Current Value (erased when it equals the Default: the sheet reads cleaner)."""
    row = sheet.find(name)
    if row is not None and row.default is not None and row.default == value:
        return sheet.set_values(name, current=None)
    return sheet.set_values(name, current=value)


def sheet_spend_use(sheet, name: str, amount: int):
    return sheet.spend_use(name, amount)


def sheet_new_day(sheet):
    return sheet.new_day()


def sheet_set(sheet, name: str, values: dict):
    return sheet.set_values(name, **values)


# --------------------------------------------------------------------------- transactions

_MISSING = object()


class Txn:
    """Mutations of one event, with the prior value of everything touched (its inverse).

    Touch before mutating: :meth:`char` (a character's own fields and lists: lists
    are replaced, never changed in place, except wounds, which only grow in place
    and are cut back to their length on revert),
    :meth:`sheet` (its sheet), :meth:`encounter`, :meth:`clocks`,
    :meth:`info`, :meth:`counter`, :meth:`roll` (one roll entry); appends to
    ``rolls`` / ``notes`` go through :meth:`add_roll` / :meth:`add_note`.
    """

    def __init__(self, state: State):
        self.state = state
        self.ops: list[tuple] = []
        self._seen: set = set()
        self._rolls_base: int | None = None

    def _once(self, key, op_factory: Callable[[], tuple]) -> None:
        if key not in self._seen:
            self._seen.add(key)
            self.ops.append(op_factory())

    def char(self, cid: str) -> Character:
        def op() -> tuple:
            c = self.state.characters[cid]
            return ("char", cid, c.snapshot(), len(c.wounds))

        self._once(("char", cid), op)
        return self.state.characters[cid]

    def new_char(self, c: Character) -> None:
        self._once(("char", c.id), lambda: ("char", c.id, _MISSING, 0))
        self.state.characters[c.id] = c

    def remove_char(self, cid: str) -> None:
        self._once(("order",), lambda: ("order", list(self.state.characters)))
        self.char(cid)
        del self.state.characters[cid]

    def sheet(self, cid: str):
        """The character's sheet, ready to change. Sheets are immutable (a change returns
        a new Sheet): assigning the new one to the touched character is enough."""
        return self.char(cid).sheet

    def encounter(self):
        self._once(("encounter",), lambda: ("encounter", self.state.encounter.snapshot()))
        return self.state.encounter

    def clocks(self) -> dict[str, Clock]:
        self._once(("clocks",), lambda: ("clocks", dict(self.state.clocks)))
        return self.state.clocks

    def info(self):
        self._once(("info",), lambda: ("info", self.state.info.snapshot()))
        return self.state.info

    def counter(self) -> None:
        self._once(("next_id",), lambda: ("next_id", self.state.next_id))

    def roll(self, index: int) -> RollEntry:
        if self._rolls_base is None or index < self._rolls_base:  # entries added by this event need no copy
            self._once(("roll", index), lambda: ("roll", index, self.state.rolls[index].snapshot()))
        return self.state.rolls[index]

    def add_roll(self, entry: RollEntry) -> None:
        if self._rolls_base is None:
            self._rolls_base = len(self.state.rolls)
            self._once(("rolls",), lambda: ("rolls", self._rolls_base))
        self.state.rolls.append(entry)

    def add_note(self, note: Note) -> None:
        self._once(("notes",), lambda: ("notes", len(self.state.notes)))
        self.state.notes.append(note)


def revert(state: State, ops: list[tuple]) -> None:
    """Undo a transaction: restore every touched value, newest first."""
    for op in reversed(ops):
        kind = op[0]
        if kind == "char":
            _, cid, snap, n_wounds = op
            if snap is _MISSING:
                state.characters.pop(cid, None)
            else:
                # wounds are appended in place (Character.add_wound): cut them back
                del snap.wounds[n_wounds:]
                state.characters[cid] = snap.snapshot()
        elif kind == "order":
            chars = state.characters
            state.characters = {k: chars[k] for k in op[1] if k in chars}
        elif kind == "encounter":
            state.encounter = op[1].snapshot()
        elif kind == "clocks":
            state.clocks = dict(op[1])
        elif kind == "info":
            state.info = op[1].snapshot()
        elif kind == "next_id":
            state.next_id = op[1]
        elif kind == "roll":
            state.rolls[op[1]] = op[2].snapshot()
        elif kind == "rolls":
            del state.rolls[op[1] :]
        elif kind == "notes":
            del state.notes[op[1] :]
        else:  # pragma: no cover - programming error
            raise AssertionError(f"unknown inverse op {kind}")


def detached_copy(state: State) -> State:
    """A copy of ``state`` that :func:`revert_detached` may change without touching
    ``state`` (containers copied, the objects in them shared)."""
    return State(
        info=state.info,
        characters=dict(state.characters),
        encounter=state.encounter,
        clocks=dict(state.clocks),
        rolls=list(state.rolls),
        notes=list(state.notes),
        next_id=state.next_id,
    )


def revert_detached(state: State, ops: list[tuple]) -> None:
    """:func:`revert` on a :func:`detached_copy`: the same values, but nothing shared with
    the live state is changed in place (a character's wounds are cut back as a copy)."""
    for op in reversed(ops):
        if op[0] == "char" and op[2] is not _MISSING:
            _, cid, snap, n_wounds = op
            c = snap.snapshot()
            c.wounds = snap.wounds[:n_wounds]
            state.characters[cid] = c
        else:
            revert(state, [op])


# --------------------------------------------------------------------------- context


class Ctx:
    """What a handler gets: the state, the transaction, the event's seq and time, a
    list of human-readable ``changes`` and ``extra`` fields stored with the event."""

    def __init__(self, state: State, etype: str, seq: int, time: str, strict: bool = True):
        self.state = state
        #: a new event (not one replayed from the log): the checks of what play allows apply
        self.strict = strict
        self.type = etype
        self.seq = seq
        self.time = time
        self.tx = Txn(state)
        self.changes: list[str] = []
        self.extra: dict[str, Any] = {}
        #: the stored summary when replaying (handlers may skip formatting their own)
        self.summary: str | None = None

    def fail(self, reason: str) -> EventError:
        return EventError(reason, self.type)

    # ---- payload checks (each raises EventError naming the field)

    def fields(self, p: Mapping[str, Any], required: tuple[str, ...] = (), optional: tuple[str, ...] = ()) -> None:
        for k in required:
            if k not in p:
                raise self.fail(f"missing field {k!r}")
        allowed = set(required) | set(optional)
        for k in p:
            if k not in allowed:
                names = ", ".join(sorted(allowed)) or "none"
                raise self.fail(f"unknown field {k!r} (allowed: {names})")

    def char(self, cid: Any, what: str = "id") -> Character:
        if not isinstance(cid, str) or cid not in self.state.characters:
            raise self.fail(f"{what}: no character {cid!r} in this session")
        return self.state.characters[cid]

    def opt_char(self, cid: Any, what: str) -> Character | None:
        return None if cid is None else self.char(cid, what)

    def text(self, value: Any, what: str, maxlen: int = MAX_NAME, empty: bool = False, multiline: bool = False) -> str:
        """Stripped text; names are one line, notes may have several."""
        if not isinstance(value, str):
            raise self.fail(f"{what}: must be text (got {value!r})")
        value = value.strip()
        if not value and not empty:
            raise self.fail(f"{what}: must not be empty")
        if len(value) > maxlen:
            raise self.fail(f"{what}: at most {maxlen} characters (got {len(value)})")
        allowed = "\n\t" if multiline else ""
        if any((ord(ch) < 32 or ord(ch) == 127) and ch not in allowed for ch in value):
            raise self.fail(f"{what}: control characters{'' if multiline else ' and line breaks'} are not allowed")
        return value

    def integer(self, value: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
        """A whole number within ``lo``..``hi``; a field without bounds of its own
        takes ±``MAX_FIELD_INT`` (every number saved must read back)."""
        lo = -MAX_FIELD_INT if lo is None else lo
        hi = MAX_FIELD_INT if hi is None else hi
        if isinstance(value, bool) or not isinstance(value, int):
            shown = repr(value)
            raise self.fail(f"{what}: must be a whole number (got {shown if len(shown) <= 24 else shown[:20] + '…'})")
        if value < lo or value > hi:
            shown = (
                str(value)
                if value.bit_length() <= 64
                else ("a far smaller number" if value < 0 else "a far larger number")
            )
            rng = f" from {lo} to {hi}"
            raise self.fail(f"{what}: must be a whole number{rng} (got {shown})")
        return value

    def boolean(self, value: Any, what: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(f"{what}: must be true or false (got {value!r})")
        return value

    def choice(self, value: Any, what: str, choices: tuple[str, ...]) -> str:
        if value not in choices:
            raise self.fail(f"{what}: must be one of {', '.join(choices)} (got {value!r})")
        return value

    def rounds(self, value: Any) -> int | None:
        return None if value is None else self.integer(value, "rounds", 1, MAX_ROUNDS)

    def record(self, value: Any, what: str = "record") -> RollRecord:
        if isinstance(value, RollRecord):
            return value
        if not isinstance(value, Mapping):
            raise self.fail(f"{what}: must be a roll record object")
        try:
            return RollRecord.from_trusted_json(value)
        except (KeyError, TypeError, ValueError) as e:
            raise self.fail(f"{what}: not a roll record ({e})") from None

    # ---- shared mutations

    def set_possibilities(self, c: Character, new: int, why: str = "") -> None:
        old = c.possibilities
        self.tx.char(c.id).possibilities = new
        self.changes.append(f"{c.name}: Possibilities {old} → {new}{why}")

    def set_vitality(self, c: Character, new: int) -> None:
        """Vitality current, mirrored onto the sheet's Vitality descriptor when it has one."""
        live = self.tx.char(c.id)
        live.vitality_current = new
        if live.sheet is None:
            return
        if sheet_vitality(live.sheet) is not None:
            live.sheet = sheet_set_current(self.tx.sheet(c.id), "Vitality", new)
        elif new != live.vitality_default:
            # a missing descriptor that changes is written with its Default and new Current
            live.sheet = self.tx.sheet(c.id).set_values("Vitality", default=live.vitality_default, current=new)

    def roll_position(self) -> tuple[int, int]:
        enc = self.state.encounter
        return enc.round, enc.turn


# --------------------------------------------------------------------------- handlers

Handler = Callable[[Ctx, dict], str]
HANDLERS: dict[str, Handler] = {}


def handler(etype: str):
    def deco(fn: Handler) -> Handler:
        HANDLERS[etype] = fn
        return fn

    return deco


SETTING_KEYS = ("system", "skill_threshold", "ord_positive_reroll", "tie_rule", "fudge_method", "tables")


def _declared() -> dict:
    from gmdesk.core.session.settings import BY_KEY

    return dict(BY_KEY)


#: the settings the GM sets (label, help, type, range), declared in core.session.settings
DECLARED = _declared()
#: 1d6x4 two-way Test ties: the defender prevails (the status quo holds); the only rule gmdesk rolls
TIE_RULES = ("defender",)


@handler("session.settings")
def _settings(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("changes",))
    changes = p["changes"]
    if not isinstance(changes, Mapping) or not changes:
        raise ctx.fail("changes: must be a non-empty object of setting -> value")
    clean: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in SETTING_KEYS:
            raise ctx.fail(f"unknown setting {key!r} (settings: {', '.join(SETTING_KEYS)})")
        if key == "system":
            from gmdesk.core.systems import SYSTEM_IDS

            clean[key] = ctx.choice(value, "system", SYSTEM_IDS)
        elif key in DECLARED:
            # the GM's settings, checked by their declaration (core.session.settings)
            try:
                clean[key] = DECLARED[key].parse(value)
            except GmdeskError as e:
                raise ctx.fail(f"{key}: {getattr(e, 'reason', e)}") from None
        elif key == "tie_rule":
            clean[key] = ctx.choice(value, "tie_rule", TIE_RULES)
        elif key == "tables":
            if not isinstance(value, Mapping):
                raise ctx.fail("tables: must be an object of role -> table name or file")
            tables = {}
            for role, name in value.items():
                if not isinstance(role, str) or not role or not isinstance(name, str) or not name:
                    raise ctx.fail("tables: each role must name a table (built-in name or file path)")
                try:
                    resolve_table(name)
                except GmdeskError as e:
                    raise ctx.fail(f"tables: {role}: {e}") from None
                tables[role] = name
            clean[key] = tables
    info = ctx.tx.info()
    parts = []
    for key, value in clean.items():
        if key == "system":
            old = info.system
            info.system = value
        else:
            old = info.settings.get(key, DEFAULT_SETTINGS.get(key))
            info.settings[key] = copy.deepcopy(value)
        if key in DECLARED:  # in the GM's words: "Skill chance threshold (4d2): 9 → 8"
            s = DECLARED[key]
            ctx.changes.append(f"{s.title}: {s.show(old)} → {s.show(value)}")
            parts.append(s.title)
            continue
        ctx.changes.append(f"{key}: {old!r} → {value!r}" if key != "system" else f"system: {old} → {value}")
        parts.append(key)
    return f"Settings changed: {', '.join(parts)}"


def _character_fields(ctx: Ctx, d: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "name" in d:
        out["name"] = ctx.text(d["name"], "name")
    if "side" in d:
        out["side"] = ctx.choice(d["side"], "side", SIDES)
    if "kind" in d:
        out["kind"] = ctx.choice(d["kind"], "kind", KINDS)
    if "reality_rated" in d:
        out["reality_rated"] = ctx.boolean(d["reality_rated"], "reality_rated")
    if "possibilities" in d:
        out["possibilities"] = ctx.integer(d["possibilities"], "possibilities", 0, MAX_POSSIBILITIES)
    for key in ("vitality", "vitality_default", "vitality_current"):
        if key in d:
            out[key] = ctx.integer(d[key], key, -MAX_VITALITY, MAX_VITALITY)
    if "notes" in d:
        out["notes"] = ctx.text(d["notes"], "notes", MAX_TEXT, empty=True, multiline=True)
    if "dead" in d:
        out["dead"] = ctx.boolean(d["dead"], "dead")
    return out


def _check_name(ctx: Ctx, name: str, exclude: str | None = None) -> None:
    if ctx.strict:
        refusal = ctx.state.name_refusal(name, exclude)
        if refusal is not None:
            raise ctx.fail(f"name: {refusal}")


@handler("character.add")
def _character_add(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("character",), ("id",))
    d = p["character"]
    if not isinstance(d, Mapping):
        raise ctx.fail("character: must be an object with name, side, kind, …")
    allowed = ("name", "side", "kind", "reality_rated", "vitality", "possibilities", "sheet", "notes")
    for k in d:
        if k not in allowed:
            raise ctx.fail(f"character: unknown field {k!r} (allowed: {', '.join(allowed)})")
    if "name" not in d:
        raise ctx.fail("character: missing field 'name'")
    f = _character_fields(ctx, d)
    _check_name(ctx, f["name"])
    sheet = None
    if d.get("sheet") is not None:
        text = d["sheet"]
        if not isinstance(text, str):
            raise ctx.fail("sheet: must be the text of a descriptor sheet")
        sheet = sheet_parse(text)  # SheetError (a GmdeskError) names the problem
    reality = f.get("reality_rated", False)
    poss = f.get("possibilities", 0)
    if poss and not reality:
        raise ctx.fail("possibilities: only a reality-rated character has Possibilities")
    vit = sheet_vitality(sheet)
    if vit is not None:  # the sheet's Vitality descriptor is the truth when it has one
        v_default, v_current = vit
    elif "vitality" in f:
        v_default = v_current = f["vitality"]
    else:
        v_default = v_current = 0
    ctx.tx.counter()
    cid = f"c{ctx.state.next_id}"
    ctx.state.next_id += 1
    c = Character(
        id=cid,
        name=f["name"],
        side=f.get("side", "PC"),
        kind=f.get("kind", "organic"),
        reality_rated=reality,
        vitality_default=v_default,
        vitality_current=v_current,
        possibilities=poss,
        sheet=sheet,
        notes=f.get("notes", ""),
    )
    ctx.tx.new_char(c)
    ctx.extra["id"] = cid
    return f"{c.name} joins ({c.side}, {c.kind}{', reality-rated' if reality else ''})"


@handler("character.edit")
def _character_edit(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "fields"))
    c = ctx.char(p["id"])
    d = p["fields"]
    allowed = (
        "name",
        "side",
        "kind",
        "reality_rated",
        "possibilities",
        "vitality_default",
        "vitality_current",
        "notes",
        "dead",
    )
    if not isinstance(d, Mapping) or not d:
        raise ctx.fail(f"fields: must be a non-empty object of {', '.join(allowed)}")
    for k in d:
        if k not in allowed:
            raise ctx.fail(f"fields: unknown field {k!r} (allowed: {', '.join(allowed)})")
    f = _character_fields(ctx, d)
    if "name" in f:
        _check_name(ctx, f["name"], c.id)
    reality = f.get("reality_rated", c.reality_rated)
    poss = f.get("possibilities", c.possibilities)
    if not reality and "possibilities" in f and poss:
        raise ctx.fail("possibilities: only a reality-rated character has Possibilities")
    name = c.name
    live = ctx.tx.char(c.id)
    for key, value in f.items():
        old = getattr(live, key)
        if old == value:
            continue
        if key == "vitality_current":
            ctx.set_vitality(live, value)
        elif key == "vitality_default":
            live.vitality_default = value
            if live.sheet is not None and sheet_vitality(live.sheet) is not None:
                current = None if live.vitality_current == value else live.vitality_current
                live.sheet = sheet_set(ctx.tx.sheet(c.id), "Vitality", {"default": value, "current": current})
        else:
            setattr(live, key, value)

        def shown(v):
            return num(v) if isinstance(v, int) and not isinstance(v, bool) else repr(v)

        ctx.changes.append(f"{name}: {key} {shown(old)} → {shown(value)}" if key != "notes" else f"{name}: notes")
    if not reality and live.possibilities:
        ctx.changes.append(f"{name}: Possibilities {live.possibilities} → 0 (not reality-rated)")
        live.possibilities = 0
    return f"{name} edited" if ctx.changes else f"{name} edited (no change)"


@handler("character.remove")
def _character_remove(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id",))
    c = ctx.char(p["id"])
    if ctx.state.encounter.index_of(c.id) is not None:
        _encounter_drop(ctx, c.id)
    ctx.tx.remove_char(c.id)
    return f"{c.name} leaves the session"


def _source_list(ctx: Ctx, p: dict) -> tuple[Character, str, str]:
    c = ctx.char(p["id"])
    kind = ctx.choice(p["kind"], "kind", SOURCE_KINDS)
    name = ctx.text(p["name"], "name")
    return c, kind, name


def _find_source(sources: list[Source], name: str) -> int | None:
    key = name.casefold()
    for i, s in enumerate(sources):
        if s.name.casefold() == key:
            return i
    return None


@handler("source.add")
def _source_add(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "kind", "name", "value"), ("rounds", "active"))
    c, kind, name = _source_list(ctx, p)
    if kind == "advantage":
        value = ctx.integer(p["value"], "value", -2, 2)
        if value == 0:
            raise ctx.fail("value: an advantage source is +1 or +2, a disadvantage −1 or −2 (got 0)")
    else:
        value = ctx.integer(p["value"], "value", 1, 9)
    rounds = ctx.rounds(p.get("rounds"))
    active = ctx.boolean(p.get("active", True), "active")
    if _find_source(c.sources(kind), name) is not None:
        raise ctx.fail(f"{c.name} already has the {kind} source {name!r}")
    live = ctx.tx.char(c.id)
    src = Source(name, value, rounds, active)
    if kind == "advantage":
        live.advantage = [*live.advantage, src]
    else:
        live.shifts = [*live.shifts, src]
    dur = f" for {rounds} round{'s' if rounds != 1 else ''}" if rounds else ""
    ctx.changes.append(f"{c.name} gains {kind} {name} {signed(value)}{dur}")
    return ctx.changes[-1]


def _source_at(ctx: Ctx, p: dict) -> tuple[Character, str, int, Any, list]:
    """The character, kind, index of the named source, the live character and a copy
    of its list of that kind (for source.remove / source.toggle)."""
    ctx.fields(p, ("id", "kind", "name"), ("value", "rounds"))
    c, kind, name = _source_list(ctx, p)
    i = _find_source(c.sources(kind), name)
    if i is None:
        raise ctx.fail(f"{c.name} has no {kind} source {name!r}")
    live = ctx.tx.char(c.id)
    return c, kind, i, live, list(live.sources(kind))


def _set_sources(live: Any, kind: str, sources: list) -> None:
    setattr(live, "advantage" if kind == "advantage" else "shifts", sources)


@handler("source.remove")
def _source_remove(ctx: Ctx, p: dict) -> str:
    c, kind, i, live, lst = _source_at(ctx, p)
    removed = lst.pop(i)
    _set_sources(live, kind, lst)
    ctx.changes.append(f"{c.name} loses {kind} {removed.name}")
    return ctx.changes[-1]


@handler("source.toggle")
def _source_toggle(ctx: Ctx, p: dict) -> str:
    c, kind, i, live, lst = _source_at(ctx, p)
    s = lst[i]
    lst[i] = Source(s.name, s.value, s.rounds, not s.active)
    _set_sources(live, kind, lst)
    ctx.changes.append(f"{c.name}: {kind} {s.name} {'off' if s.active else 'on'}")
    return ctx.changes[-1]


def _find_condition(c: Character, name: str) -> int | None:
    key = name.casefold()
    for i, cond in enumerate(c.conditions):
        if cond.name.casefold() == key:
            return i
    return None


@handler("condition.add")
def _condition_add(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "name"), ("rounds",))
    c = ctx.char(p["id"])
    name = ctx.text(p["name"], "name")
    rounds = ctx.rounds(p.get("rounds"))
    if _find_condition(c, name) is not None:
        raise ctx.fail(f"{c.name} is already {name}")
    live = ctx.tx.char(c.id)
    live.conditions = [*live.conditions, Condition(name, rounds)]
    dur = f" for {rounds} round{'s' if rounds != 1 else ''}" if rounds else ""
    ctx.changes.append(f"{c.name} is {name}{dur}")
    return ctx.changes[-1]


@handler("condition.remove")
def _condition_remove(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "name"), ("rounds",))
    c = ctx.char(p["id"])
    name = ctx.text(p["name"], "name")
    i = _find_condition(c, name)
    if i is None:
        raise ctx.fail(f"{c.name} is not {name}")
    live = ctx.tx.char(c.id)
    lst = list(live.conditions)
    gone = lst.pop(i)
    live.conditions = lst
    ctx.changes.append(f"{c.name} is no longer {gone.name}")
    return ctx.changes[-1]


SHEET_VALUE_FIELDS = ("default", "current", "uses_default", "uses_current")


@handler("sheet.set")
def _sheet_set(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "descriptor"), SHEET_VALUE_FIELDS)
    c = ctx.char(p["id"])
    name = ctx.text(p["descriptor"], "descriptor")
    values: dict[str, Any] = {}
    for key in SHEET_VALUE_FIELDS:
        if key in p:
            v = p[key]
            if v is None or v == "inf" and key.startswith("uses"):
                values[key] = v
            else:
                values[key] = ctx.integer(v, key, -MAX_VITALITY, 10**6)
    if not values:
        raise ctx.fail(f"give at least one of {', '.join(SHEET_VALUE_FIELDS)}")
    if c.sheet is None:
        ctx.tx.char(c.id).sheet = sheet_new(c.name)
    sheet = ctx.tx.sheet(c.id)
    live = ctx.tx.char(c.id)
    live.sheet = sheet_set(sheet, name, values)
    ctx.changes.extend(sheet_changes(c.name, sheet, live.sheet))
    if name.casefold() == "vitality":
        vit = sheet_vitality(live.sheet)
        if vit is not None:
            if live.vitality_default != vit[0] or live.vitality_current != vit[1]:
                ctx.changes.append(f"{c.name}: Vitality {num(live.vitality_current)} → {num(vit[1])}")
            live.vitality_default, live.vitality_current = vit
    shown = ", ".join(f"{k} {v}" for k, v in values.items())
    return f"{c.name}: {name} set ({shown})"


@handler("sheet.import")
def _sheet_import(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "text"))
    c = ctx.char(p["id"])
    if not isinstance(p["text"], str):
        raise ctx.fail("text: must be the text of a descriptor sheet")
    sheet = sheet_parse(p["text"])
    live = ctx.tx.char(c.id)
    live.sheet = sheet
    vit = sheet_vitality(sheet)
    if vit is not None:
        live.vitality_default, live.vitality_current = vit
    return f"{c.name}: sheet imported"


# ---- encounter


def _insert_position(order: list[Combatant], initiative: int) -> int:
    """After every combatant whose initiative is at least this one (ties: earlier first)."""
    i = 0
    for k, c in enumerate(order):
        if c.initiative >= initiative:
            i = k + 1
    return i


@handler("encounter.add")
def _encounter_add(ctx: Ctx, p: dict) -> str:
    """A character joins the order at ``initiative`` (after everyone at least as high).
    With ``record`` (the initiative roll that gave the number) the roll is logged,
    dice and all, as an initiative roll — as ``initiative.set`` logs its rolls."""
    ctx.fields(p, ("id",), ("initiative", "record"))
    c = ctx.char(p["id"])
    record = ctx.record(p["record"]) if p.get("record") is not None else None
    default = record.value if record is not None else 0
    ini = ctx.integer(p.get("initiative", default), "initiative", -MAX_INITIATIVE, MAX_INITIATIVE)
    if ctx.state.encounter.index_of(c.id) is not None:
        raise ctx.fail(f"{c.name} is already in the encounter")
    enc = ctx.tx.encounter()
    i = _insert_position(enc.order, ini)
    enc.order.insert(i, Combatant(c.id, ini))
    if enc.round > 0 and i <= enc.turn and len(enc.order) > 1:
        enc.turn += 1
    if record is not None:
        change = f"{c.name}: initiative {num(ini)}"
        ctx.changes.append(change)
        rnd, turn = ctx.roll_position()
        ctx.tx.add_roll(
            RollEntry(ctx.seq, record, c.id, None, rnd, turn, [change], kind="initiative", actor_name=c.name)
        )
    return f"{c.name} joins the encounter (initiative {num(ini)})"


def _encounter_drop(ctx: Ctx, cid: str) -> None:
    enc = ctx.tx.encounter()
    i = enc.index_of(cid)
    del enc.order[i]
    if i < enc.turn:
        enc.turn -= 1
    if enc.turn >= len(enc.order):
        enc.turn = 0
        if enc.order and enc.round > 0:
            enc.round += 1


@handler("encounter.remove")
def _encounter_remove(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id",), ("initiative",))
    c = ctx.char(p["id"])
    if ctx.state.encounter.index_of(c.id) is None:
        raise ctx.fail(f"{c.name} is not in the encounter")
    _encounter_drop(ctx, c.id)
    return f"{c.name} leaves the encounter"


def _move(enc, i: int, j: int) -> None:
    """Move order[i] to index j, keeping whoever is acting the one acting."""
    current = enc.order[enc.turn].char_id if enc.order and enc.turn < len(enc.order) else None
    item = enc.order.pop(i)
    enc.order.insert(j, item)
    if current is not None:
        enc.turn = enc.index_of(current)


@handler("encounter.move")
def _encounter_move(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "index"))
    c = ctx.char(p["id"])
    i = ctx.state.encounter.index_of(c.id)
    if i is None:
        raise ctx.fail(f"{c.name} is not in the encounter")
    j = ctx.integer(p["index"], "index", 0, len(ctx.state.encounter.order) - 1)
    enc = ctx.tx.encounter()
    _move(enc, i, j)
    return f"{c.name} moves to place {j + 1} in the order"


@handler("encounter.delay")
def _encounter_delay(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id",))
    c = ctx.char(p["id"])
    enc0 = ctx.state.encounter
    i = enc0.index_of(c.id)
    if i is None:
        raise ctx.fail(f"{c.name} is not in the encounter")
    if i == len(enc0.order) - 1:
        raise ctx.fail(f"{c.name} is last in the order; there is nobody to wait for this round")
    enc = ctx.tx.encounter()
    acting = enc.round > 0 and enc.turn == i
    item = enc.order.pop(i)
    enc.order.insert(i + 1, item)
    if not acting and enc.round > 0 and enc.turn == i + 1:
        enc.turn = i  # the one who was acting moved up one place
    # when the delayer was acting, index i now holds the next combatant: their turn now
    nxt = ctx.state.characters[enc.order[i].char_id].name
    return f"{c.name} delays until after {nxt}"


@handler("encounter.end")
def _encounter_end(ctx: Ctx, p: dict) -> str:
    """The fight is over: the order empties and the round count goes back to 0
    (durations in rounds stay as they are)."""
    ctx.fields(p)
    enc0 = ctx.state.encounter
    if not enc0.order and enc0.round == 0:
        raise ctx.fail("there is no encounter to end")
    rounds = enc0.round
    enc = ctx.tx.encounter()
    enc.order[:] = []
    enc.round = 0
    enc.turn = 0
    return f"The encounter ends after round {rounds}" if rounds else "The encounter ends"


@handler("initiative.set")
def _initiative_set(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("entries",))
    entries = p["entries"]
    if not isinstance(entries, list) or not entries:
        raise ctx.fail("entries: must be a non-empty list of {id, value, record?}")
    seen: set[str] = set()
    parsed = []
    for k, e in enumerate(entries):
        if not isinstance(e, Mapping):
            raise ctx.fail(f"entries[{k}]: must be an object with id and value")
        for key in e:
            if key not in ("id", "value", "record"):
                raise ctx.fail(f"entries[{k}]: unknown field {key!r} (allowed: id, record, value)")
        if "id" not in e or "value" not in e:
            raise ctx.fail(f"entries[{k}]: needs id and value")
        c = ctx.char(e["id"], f"entries[{k}].id")
        if c.id in seen:
            raise ctx.fail(f"{c.name} appears twice in entries")
        seen.add(c.id)
        value = ctx.integer(e["value"], f"entries[{k}].value", -MAX_INITIATIVE, MAX_INITIATIVE)
        record = ctx.record(e["record"], f"entries[{k}].record") if e.get("record") is not None else None
        parsed.append((c, value, record))
    enc = ctx.tx.encounter()
    current = enc.order[enc.turn].char_id if enc.round > 0 and enc.order else None
    values = {c.id: v for c, v, _ in parsed}
    order = [Combatant(x.char_id, values.get(x.char_id, x.initiative)) for x in enc.order]
    present = {x.char_id for x in order}
    order += [Combatant(c.id, v) for c, v, _ in parsed if c.id not in present]
    order.sort(key=lambda x: -x.initiative)  # stable: ties keep their earlier place
    enc.order[:] = order
    if current is not None:
        enc.turn = enc.index_of(current)
    rnd, turn = ctx.roll_position()
    for c, v, record in parsed:
        change = f"{c.name}: initiative {num(v)}"
        ctx.changes.append(change)
        if record is not None:
            ctx.tx.add_roll(
                RollEntry(ctx.seq, record, c.id, None, rnd, turn, [change], kind="initiative", actor_name=c.name)
            )
    names = ", ".join(f"{c.name} {num(v)}" for c, v, _ in parsed)
    return f"Initiative: {names}"


def _tick(ctx: Ctx, cid: str) -> None:
    """The end of ``cid``'s turn: every duration it carries loses a round; at 0 it ends."""
    c = ctx.state.characters.get(cid)
    if c is None:
        return
    timed = any(x.rounds is not None for x in (*c.advantage, *c.shifts, *c.conditions))
    if not timed:
        return
    live = ctx.tx.char(cid)

    def tick_sources(lst: list[Source], kind: str) -> list[Source]:
        out = []
        for s in lst:
            if s.rounds is None:
                out.append(s)
            elif s.rounds > 1:
                out.append(Source(s.name, s.value, s.rounds - 1, s.active))
            else:
                ctx.changes.append(f"{live.name}: {kind} {s.name} ends")
        return out

    live.advantage = tick_sources(live.advantage, "advantage")
    live.shifts = tick_sources(live.shifts, "shift")
    conds = []
    for cond in live.conditions:
        if cond.rounds is None:
            conds.append(cond)
        elif cond.rounds > 1:
            conds.append(Condition(cond.name, cond.rounds - 1, cond.roll_seq))
        else:
            ctx.changes.append(f"{live.name}: {cond.name} ends")
    live.conditions = conds


def _acting_name(ctx: Ctx) -> str:
    enc = ctx.state.encounter
    cur = enc.current
    if cur is None:
        return "nobody"
    c = ctx.state.characters.get(cur.char_id)
    return c.name if c else cur.char_id


def _out(ctx: Ctx, cid: str) -> bool:
    """Takes no turn: Unconscious or Dead (a character no longer in the session too)."""
    c = ctx.state.characters.get(cid)
    return c is None or not c.can_act


def _skip_out(ctx: Ctx) -> list[str]:
    """Move the turn forward past those who cannot act (unless no combatant can);
    the names passed over, for the summary."""
    enc = ctx.state.encounter
    if all(_out(ctx, x.char_id) for x in enc.order):
        return []
    passed = []
    while _out(ctx, enc.order[enc.turn].char_id):
        passed.append(_skipped_name(ctx, enc.order[enc.turn].char_id))
        enc.turn += 1
        if enc.turn >= len(enc.order):
            enc.turn = 0
            enc.round += 1
    return passed


def _skipped_name(ctx: Ctx, cid: str) -> str:
    c = ctx.state.characters.get(cid)
    return f"{c.name} ({status_word(c.status)})" if c is not None else cid


def _passed_text(passed: list[str]) -> str:
    return f" (no turn: {', '.join(dict.fromkeys(passed))})" if passed else ""


def _need_combatants(ctx: Ctx) -> None:
    if not ctx.state.encounter.order:
        raise ctx.fail("the encounter has no combatants")


@handler("turn.next")
def _turn_next(ctx: Ctx, p: dict) -> str:
    ctx.fields(p)
    _need_combatants(ctx)
    enc = ctx.tx.encounter()
    if enc.round == 0:
        enc.round, enc.turn = 1, 0
    else:
        _tick(ctx, enc.order[enc.turn].char_id)
        enc.turn += 1
        if enc.turn >= len(enc.order):
            enc.round += 1
            enc.turn = 0
    passed = _skip_out(ctx)
    return f"Round {enc.round}: {_acting_name(ctx)}'s turn{_passed_text(passed)}"


@handler("turn.prev")
def _turn_prev(ctx: Ctx, p: dict) -> str:
    ctx.fields(p)
    _need_combatants(ctx)
    enc0 = ctx.state.encounter
    if enc0.round == 0:
        raise ctx.fail("the encounter has not started")
    rnd, turn = enc0.round, enc0.turn
    everyone_out = all(_out(ctx, x.char_id) for x in enc0.order)
    while True:  # back one turn, over those who cannot act
        turn -= 1
        if turn < 0:
            rnd -= 1
            turn = len(enc0.order) - 1
        if rnd < 1:
            raise ctx.fail("already at the first turn of round 1")
        if everyone_out or not _out(ctx, enc0.order[turn].char_id):
            break
    enc = ctx.tx.encounter()
    enc.round, enc.turn = rnd, turn
    return f"Back to round {enc.round}: {_acting_name(ctx)}'s turn"


@handler("round.new")
def _round_new(ctx: Ctx, p: dict) -> str:
    ctx.fields(p)
    _need_combatants(ctx)
    enc = ctx.tx.encounter()
    if enc.round == 0:
        enc.round, enc.turn = 1, 0
    else:
        for x in enc.order[enc.turn :]:
            if not _out(ctx, x.char_id):
                _tick(ctx, x.char_id)
        enc.round += 1
        enc.turn = 0
    passed = _skip_out(ctx)
    return f"Round {enc.round} begins: {_acting_name(ctx)}'s turn{_passed_text(passed)}"


@handler("day.new")
def _day_new(ctx: Ctx, p: dict) -> str:
    ctx.fields(p)
    for c in list(ctx.state.characters.values()):
        if c.status == "dead":
            continue
        if c.vitality_current != c.vitality_default:
            ctx.changes.append(f"{c.name}: Vitality {num(c.vitality_current)} → {num(c.vitality_default)}")
        live = ctx.tx.char(c.id)
        if live.sheet is not None:
            sheet = ctx.tx.sheet(c.id)
            live.sheet = sheet_new_day(sheet)
            ctx.changes.extend(sheet_changes(c.name, sheet, live.sheet))
        live.vitality_current = live.vitality_default
        if live.sheet is not None and sheet_vitality(live.sheet) is not None:
            live.sheet = sheet_set_current(live.sheet, "Vitality", live.vitality_default)
        kept = [w for w in live.wounds if not (w.system == "1d6x4" and w.amount is not None)]
        if len(kept) != len(live.wounds):
            live.wounds = kept
    return "A new day: Current Values return to their Defaults"


# ---- clocks


@handler("clock.add")
def _clock_add(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("name", "segments"), ("halves",))
    name = ctx.text(p["name"], "name")
    segments = ctx.integer(p["segments"], "segments", 1, MAX_SEGMENTS)
    halves = ctx.integer(p.get("halves", 0), "halves", 0, 2 * segments)
    if any(k.casefold() == name.casefold() for k in ctx.state.clocks):
        raise ctx.fail(f"there is already a clock named {name!r}")
    ctx.tx.clocks()[name] = Clock(name, segments, halves)
    ctx.changes.append(f"Clock {name}: {_halves_text(halves)} of {segments}")
    return f"Clock {name} ({segments} segments)"


def _clock(ctx: Ctx, name: Any) -> Clock:
    name = ctx.text(name, "name")
    for k, clock in ctx.state.clocks.items():
        if k.casefold() == name.casefold():
            return clock
    raise ctx.fail(
        f"no clock named {name!r}" + (f" (clocks: {', '.join(ctx.state.clocks)})" if ctx.state.clocks else "")
    )


def _halves_text(h: int) -> str:
    whole, half = divmod(h, 2)
    return f"{whole}½" if half and whole else ("½" if half else str(whole))


def _halves_amount(h: int) -> str:
    """``+1½ segments``, ``−½ segment``: a step of a clock, in segments."""
    sign = "+" if h >= 0 else "−"
    n = abs(h)
    return f"{sign}{_halves_text(n)} segment{'' if n <= 2 else 's'}"


def _advance_clock(ctx: Ctx, clock: Clock, step: int, why: str = "") -> str:
    """Move a clock by ``step`` halves (kept within 0..full) and say so in the changes."""
    full = 2 * clock.segments
    new = max(0, min(full, clock.halves + step))
    ctx.tx.clocks()[clock.name] = Clock(clock.name, clock.segments, new)
    msg = (
        f"Clock {clock.name}: {_halves_text(clock.halves)} → {_halves_text(new)} of {clock.segments}"
        f" ({_halves_amount(new - clock.halves)}{why})"
    )
    ctx.changes.append(msg + (" (full)" if new >= full else ""))
    return msg


def _clock_progress(ctx: Ctx, entry: RollEntry) -> int:
    """The clock progress (half segments) a 4d6 roll earned; a fail for any other roll."""
    halves = entry.record.get("clock") if entry.record.system == "4d6" else None
    if not isinstance(halves, int) or isinstance(halves, bool):
        raise ctx.fail(f"roll #{entry.seq} earned no clock progress (only a 4d6 roll does)")
    return halves


@handler("clock.tick")
def _clock_tick(ctx: Ctx, p: dict) -> str:
    """Progress in half segments (negative takes progress back), kept within 0..full.

    ``roll`` (optional): the seq of the 4d6 roll whose progress this tick applies; the
    roll then counts as applied (it is not offered for the next tick again)."""
    ctx.fields(p, ("name", "halves"), ("roll",))
    clock = _clock(ctx, p["name"])
    step = ctx.integer(p["halves"], "halves", -2 * MAX_SEGMENTS, 2 * MAX_SEGMENTS)
    if step == 0:
        raise ctx.fail("halves: must not be 0")
    full = 2 * clock.segments
    if step > 0 and clock.halves >= full:
        raise ctx.fail(f"clock {clock.name} is already full ({clock.segments}/{clock.segments})")
    if step < 0 and clock.halves <= 0:
        raise ctx.fail(f"clock {clock.name} is already empty")
    why = ""
    if p.get("roll") is not None:
        i = _roll_index(ctx, p["roll"])
        entry = ctx.state.rolls[i]
        _clock_progress(ctx, entry)
        if entry.clock:
            raise ctx.fail(f"roll #{entry.seq}'s progress already went to clock {entry.clock}")
        ctx.tx.roll(i).clock = clock.name
        why = f", roll #{entry.seq}"
    return _advance_clock(ctx, clock, step, why)


@handler("clock.remove")
def _clock_remove(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("name",), ("segments", "halves"))
    clock = _clock(ctx, p["name"])
    del ctx.tx.clocks()[clock.name]
    ctx.changes.append(f"Clock {clock.name} removed (at {_halves_text(clock.halves)} of {clock.segments})")
    return f"Clock {clock.name} removed"


# ---- rolls and what they do


def _apply_descriptors(ctx: Ctx, entry_index: int) -> None:
    """Apply a combat roll's descriptors to whoever receives them; log each change on
    the roll entry and in the event's changes."""
    entry = ctx.tx.roll(entry_index)
    record = entry.record
    settings = ctx.state.info.settings
    for d in record.descriptors:
        if not d.wound:
            continue
        cid = entry.target if d.applies_to == "target" else entry.actor if d.applies_to == "attacker" else None
        if cid is None or cid not in ctx.state.characters:
            continue
        c = ctx.state.characters[cid]
        before = c.status
        live = ctx.tx.char(cid)
        if record.system == "1d6x4" and d.amount is not None:
            from gmdesk.core.systems.one_d6_x4 import vitality_after

            old = live.vitality_current
            new, status = vitality_after(old, d.amount, before == "unconscious")
            live.add_wound(Wound(d.text, entry.seq, record.system, d.row, None, d.amount, d.column))
            ctx.set_vitality(live, new)
            if status == "dead":
                live.dead = True
            after = live.status
            tail = f" ({status_word(after)})" if after != "ok" else ""
            change = f"{c.name}: Vitality {num(old)} → {num(new)}{tail}"
        else:
            st = wound_status(settings, d.text, d.column)
            live.add_wound(Wound(d.text, entry.seq, record.system, d.row, st, d.amount, d.column))
            after = live.status
            tail = f" ({status_word(after)})" if after != before and after != "ok" else ""
            change = f"{c.name} takes {d.text}{tail}"
        entry.changes = [*entry.changes, change]
        ctx.changes.append(change)


def _apply_disconnection(ctx: Ctx, entry_index: int, quiet: set[tuple[str, str]] = frozenset()) -> None:
    """A torg roll with ``disconnection`` marks a tracked roller Disconnected (unless it
    already is). ``quiet``: conditions the roll imposed before a re-read — put back
    without a new change line."""
    entry = ctx.state.rolls[entry_index]
    if entry.actor is None or entry.actor not in ctx.state.characters:
        return
    if not entry.record.get("disconnection"):
        return
    c = ctx.state.characters[entry.actor]
    if c.has_condition("Disconnected"):
        return
    live = ctx.tx.char(c.id)
    live.conditions = [*live.conditions, Condition("Disconnected", None, entry.seq)]
    if (c.id, "Disconnected") in quiet:
        return
    change = f"{c.name} is Disconnected"
    entry = ctx.tx.roll(entry_index)
    entry.changes = [*entry.changes, change]
    ctx.changes.append(change)


def _unapply_roll(ctx: Ctx, entry_index: int) -> None:
    """Take off what a roll put on: wounds and conditions it caused (before re-reading it)."""
    entry = ctx.state.rolls[entry_index]
    for cid in dict.fromkeys(x for x in (entry.actor, entry.target) if x is not None):
        c = ctx.state.characters.get(cid)
        if c is None:
            continue
        if any(w.roll_seq == entry.seq for w in c.wounds) or any(x.roll_seq == entry.seq for x in c.conditions):
            live = ctx.tx.char(cid)
            gone = [w for w in live.wounds if w.roll_seq == entry.seq]
            live.wounds = [w for w in live.wounds if w.roll_seq != entry.seq]
            live.conditions = [x for x in live.conditions if x.roll_seq != entry.seq]
            for w in gone:
                if w.system == "1d6x4" and w.amount is not None:
                    continue  # torg/4d2/4d6/fudge rolls only: 1d6x4 has no Possibilities
                ctx.changes.append(f"{c.name}: {w.text} comes off")


def _imposed(ctx: Ctx, entry: RollEntry) -> set[tuple[str, str]]:
    """(character id, condition name) of every condition the roll imposed."""
    out = set()
    for cid in dict.fromkeys(x for x in (entry.actor, entry.target) if x is not None):
        c = ctx.state.characters.get(cid)
        if c is not None:
            out.update((cid, x.name) for x in c.conditions if x.roll_seq == entry.seq)
    return out


def _reread(ctx: Ctx, entry_index: int, record: RollRecord) -> None:
    """A Possibility spend or cancel changed the roll's record: take off what the old
    record did and put on what the new one does — a combat roll's wounds and, for any
    roll, the Disconnected condition it imposed (lifted when the new Bonus Number leaves
    the disconnection range, imposed again when it comes back in). The changes say so."""
    entry = ctx.tx.roll(entry_index)
    entry.record = record
    before = _imposed(ctx, entry)
    if entry.combat:
        _unapply_roll(ctx, entry_index)
    else:
        for cid in {cid for cid, _ in before}:
            live = ctx.tx.char(cid)
            live.conditions = [x for x in live.conditions if x.roll_seq != entry.seq]
    n = len(ctx.changes)
    if entry.combat:
        _apply_descriptors(ctx, entry_index)
    _apply_disconnection(ctx, entry_index, quiet=before)
    for cid, name in sorted(before - _imposed(ctx, entry)):
        change = f"{ctx.state.characters[cid].name} is no longer {name}"
        entry = ctx.tx.roll(entry_index)
        entry.changes = [*entry.changes, change]
        ctx.changes.insert(n, change)


def _torg_cost(record: RollRecord) -> int:
    if record.system != "torg-2d10":
        return 0
    try:
        return int(record.params.get("possibilities", 0) or 0)
    except (TypeError, ValueError):
        return 0


def _check_spender(ctx: Ctx, c: Character, n: int = 1) -> None:
    if not c.reality_rated:
        raise ctx.fail(f"{c.name} is not reality-rated and has no Possibilities")
    if c.possibilities < n:
        raise ctx.fail(f"{c.name} has {c.possibilities} Possibilit{'y' if c.possibilities == 1 else 'ies'}, needs {n}")


def roll_refusal(actor: Character | None, target: Character | None) -> str | None:
    """Why this roll may not be made (RULES "Who can act"), or None: an Unconscious or
    Dead roller takes no action; the Dead cannot be targeted."""
    if actor is not None and not actor.can_act:
        return f"{actor.name} is {status_word(actor.status)} and cannot act"
    if target is not None and target.status == "dead":
        return f"{target.name} is Dead and cannot be targeted"
    return None


@handler("roll")
def _roll(ctx: Ctx, p: dict) -> str:
    """A roll, with what it does: combat descriptors, Possibilities spent at roll time,
    Disconnected, ``clock`` (optional, a clock's name): the clock the roll's own
    progress goes to (4d6; a roll that earned none leaves it as it is, and says so),
    and ``uses`` (optional, 1d6x4): ``[{id, descriptor, amount?, parent_amount?}]``,
    the Abilities and Uses the Test used (each spends its uses and, for a Use, its
    parent's; refused, with nothing changed, when one cannot be used)."""
    ctx.fields(p, ("record",), ("actor", "target", "combat", "actor_name", "target_name", "clock", "uses"))
    record = ctx.record(p["record"])
    from gmdesk.core.systems import SYSTEM_IDS

    if record.system not in SYSTEM_IDS:
        raise ctx.fail(f"record: unknown system {record.system!r}")
    actor = ctx.opt_char(p.get("actor"), "actor")
    target = ctx.opt_char(p.get("target"), "target")
    combat = ctx.boolean(p.get("combat", False), "combat")
    clock = _clock(ctx, p["clock"]) if p.get("clock") not in (None, "") else None
    if clock is not None and (record.system != "4d6" or not isinstance(record.get("clock"), int)):
        raise ctx.fail(f"clock: only a 4d6 roll moves a clock (this is a {record.system} roll)")
    if ctx.strict:
        refusal = roll_refusal(actor, target)
        if refusal is not None:
            raise ctx.fail(refusal)
    cost = _torg_cost(record)
    if cost and actor is not None:
        _check_spender(ctx, actor, cost)
    rnd, turn = ctx.roll_position()
    entry = RollEntry(
        ctx.seq,
        record,
        actor.id if actor else None,
        target.id if target else None,
        rnd,
        turn,
        [],
        kind="roll",
        combat=combat,
        spends=[actor.id if actor else None] * cost,
        actor_name=actor.name if actor else str(p.get("actor_name") or ""),
        target_name=target.name if target else str(p.get("target_name") or ""),
    )
    ctx.tx.add_roll(entry)
    index = len(ctx.state.rolls) - 1
    if cost and actor is not None:
        ctx.set_possibilities(actor, actor.possibilities - cost, " (spent on the roll)")
        ctx.tx.roll(index).changes = [ctx.changes[-1]]
    uses = p.get("uses") or []
    if not isinstance(uses, list):
        raise ctx.fail("uses: must be a list of {id, descriptor, amount, parent_amount}")
    for k, u in enumerate(uses):
        if not isinstance(u, Mapping) or set(u) - {"id", "descriptor", "amount", "parent_amount"}:
            raise ctx.fail(f"uses[{k}]: must be an object with id, descriptor, amount, parent_amount")
        who = ctx.char(u.get("id"), f"uses[{k}].id")
        if who.sheet is None:
            raise ctx.fail(f"uses[{k}]: {who.name} has no descriptor sheet")
        what = ctx.text(u.get("descriptor"), f"uses[{k}].descriptor")
        n = ctx.integer(u.get("amount", 1), f"uses[{k}].amount", 1, 10**6)
        pn = (
            None
            if u.get("parent_amount") is None
            else ctx.integer(u["parent_amount"], f"uses[{k}].parent_amount", 0, 10**6)
        )
        lines = _spend(ctx, who, what, n, pn)
        live = ctx.tx.roll(index)
        live.changes = [*live.changes, *lines]
    if combat:
        _apply_descriptors(ctx, index)
    _apply_disconnection(ctx, index)
    if clock is not None:
        live = ctx.tx.roll(index)
        live.clock = clock.name
        if record.get("clock"):
            _advance_clock(ctx, clock, record.get("clock"))
        else:
            ctx.changes.append(f"Clock {clock.name}: no progress ({record.outcome})")
        live.changes = [*live.changes, ctx.changes[-1]]
    if ctx.summary is not None:
        return ctx.summary
    from gmdesk.core.render import record_line

    who = actor.name if actor else (entry.actor_name or "GM")
    at = f" at {target.name}" if target else (f" at {entry.target_name}" if entry.target_name else "")
    return f"{who} rolls{at}: {record_line(record, hide_secrets=True)}"


@handler("use")
def _use(ctx: Ctx, p: dict) -> str:
    """Spend uses of an Ability, Item or Use: ``amount`` of its own (default 1) and, for
    a Use, ``parent_amount`` of its parent's (default the same; 0 spends none of the
    parent's — the GM decides what a Magic Ability Use costs)."""
    ctx.fields(p, ("id", "descriptor"), ("amount", "parent_amount"))
    c = ctx.char(p["id"])
    name = ctx.text(p["descriptor"], "descriptor")
    amount = ctx.integer(p.get("amount", 1), "amount", 1, 10**6)
    parent_amount = (
        None if p.get("parent_amount") is None else ctx.integer(p["parent_amount"], "parent_amount", 0, 10**6)
    )
    if c.sheet is None:
        raise ctx.fail(f"{c.name} has no descriptor sheet")
    if c.status == "dead":
        raise ctx.fail(f"{c.name} is dead")
    summary = f"{c.name} uses {name}" + (f" ×{amount}" if amount != 1 else "")
    ctx.changes.append(summary)
    _spend(ctx, c, name, amount, parent_amount)
    return summary


@handler("heal")
def _heal(ctx: Ctx, p: dict) -> str:
    """1d6x4 Healing Ability: the record's d6 back onto the target's Vitality, never
    above its Default (a Vitality already above Default is left alone); the healer
    spends a use of Healing Ability. The Dead cannot be healed."""
    ctx.fields(p, ("healer", "target", "record"), ("vitality",))
    healer = ctx.char(p["healer"], "healer")
    target = ctx.char(p["target"], "target")
    record = ctx.record(p["record"])
    if target.status == "dead":
        raise ctx.fail(f"{target.name} is dead; the Dead stay dead")
    if healer.status != "ok":
        raise ctx.fail(f"{healer.name} is {status_word(healer.status)} and cannot heal")
    if healer.sheet is None:
        raise ctx.fail(f"{healer.name} has no Healing Ability (no descriptor sheet)")
    old = target.vitality_current
    if "vitality" in p:
        new = ctx.integer(p["vitality"], "vitality", -MAX_VITALITY, MAX_VITALITY)
    else:
        new = max(old, min(target.vitality_default, old + record.value))
    _spend(ctx, healer, "Healing Ability", 1)
    before = target.status
    ctx.set_vitality(target, new)
    after = ctx.state.characters[target.id].status
    tail = f" ({status_word(after)})" if after != before else ""
    change = f"{target.name}: Vitality {num(old)} → {num(new)}{tail}"
    ctx.changes.append(change)
    rnd, turn = ctx.roll_position()
    ctx.tx.add_roll(
        RollEntry(
            ctx.seq,
            record,
            healer.id,
            target.id,
            rnd,
            turn,
            [change],
            kind="heal",
            actor_name=healer.name,
            target_name=target.name,
        )
    )
    return f"{healer.name} heals {target.name}: {change}"


def _uses_text(u: Any) -> str:
    return "(—)" if u is None else f"({u})"


def sheet_changes(name: str, before: Any, after: Any) -> list[str]:
    """One line per descriptor whose Current Value or uses changed between two sheets
    ("Kara: Magic Ability (5) → (4)", "Kara: Fitness −2 → +1")."""
    if before is None or after is None or before is after:
        return []
    old = {path: row for path, row in before.entries()}
    out = []
    for path, row in after.entries():
        was = old.get(path)
        if was is None:
            shown = " ".join(
                x
                for x in (
                    signed(row.value) if row.has_value else "",
                    _uses_text(row.uses) if row.uses is not None else "",
                )
                if x
            )
            out.append(f"{name}: {path} written" + (f" ({shown})" if shown else ""))
            continue
        if was.uses != row.uses:
            out.append(f"{name}: {path} {_uses_text(was.uses)} → {_uses_text(row.uses)}")
        if was.has_value and row.has_value and was.value != row.value and path.casefold() != "vitality":
            out.append(f"{name}: {path} {signed(was.value)} → {signed(row.value)}")
    return out


def _spend(ctx: Ctx, c: Character, name: str, amount: int = 1, parent_amount: int | None = None) -> list[str]:
    """Spend uses of ``name`` (and of its parent, for a Use) on ``c``'s sheet; the change
    lines are added to the event's changes and returned."""
    before = ctx.state.characters[c.id].sheet
    live = ctx.tx.char(c.id)
    live.sheet = before.spend_use(name, amount, parent_amount)
    lines = sheet_changes(c.name, before, live.sheet)
    ctx.changes.extend(lines)
    return lines


def _roll_index(ctx: Ctx, seq: Any) -> int:
    seq = ctx.integer(seq, "roll", 1)
    i = ctx.state.roll_index(seq, "roll")
    if i is None:
        raise ctx.fail(f"roll: no roll #{seq} in the log (or it was undone)")
    return i


@handler("possibility.spend")
def _possibility_spend(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "roll", "record"))
    c = ctx.char(p["id"])
    i = _roll_index(ctx, p["roll"])
    entry = ctx.state.rolls[i]
    if entry.record.system != "torg-2d10":
        raise ctx.fail(f"roll #{entry.seq} is a {entry.record.system} roll; Possibilities are for torg-2d10 rolls")
    _check_spender(ctx, c)
    record = ctx.record(p["record"])
    if record.system != entry.record.system:
        raise ctx.fail("record: must be the same roll with the Possibility die added")
    old_value = entry.record.value
    ctx.set_possibilities(c, c.possibilities - 1)
    spend_change = f"{c.name} spends a Possibility on roll #{entry.seq}: {signed(old_value)} → {signed(record.value)}"
    ctx.changes.append(spend_change)
    live = ctx.tx.roll(i)
    live.spends = [*live.spends, c.id]
    live.changes = [*live.changes, spend_change]
    _reread(ctx, i, record)
    return spend_change


@handler("possibility.cancel")
def _possibility_cancel(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("id", "roll"), ("record",))
    c = ctx.char(p["id"])
    i = _roll_index(ctx, p["roll"])
    entry = ctx.state.rolls[i]
    live_spends = entry.spends[: len(entry.spends) - len(entry.cancels)]
    if not live_spends:
        raise ctx.fail(f"roll #{entry.seq} has no Possibility spend left to cancel")
    if live_spends[-1] == c.id:
        raise ctx.fail(f"{c.name} cannot cancel their own Possibility")
    _check_spender(ctx, c)
    if p.get("record") is not None:
        record = ctx.record(p["record"])
    else:
        from gmdesk.core.systems.torg_2d10 import cancel_possibility

        record = cancel_possibility(entry.record, session_tables(ctx.state.info.settings))
        ctx.extra["record"] = record.to_json()
    old_value = entry.record.value
    ctx.set_possibilities(c, c.possibilities - 1)
    change = f"{c.name} cancels a Possibility on roll #{entry.seq}: {signed(old_value)} → {signed(record.value)}"
    ctx.changes.append(change)
    live = ctx.tx.roll(i)
    live.cancels = [*live.cancels, c.id]
    live.changes = [*live.changes, change]
    _reread(ctx, i, record)
    return change


def _wound_index(ctx: Ctx, c: Character, value: Any) -> int:
    if not c.wounds:
        raise ctx.fail(f"{c.name} has no wounds")
    return ctx.integer(value, "wound", 0, len(c.wounds) - 1)


@handler("damage.buyoff")
def _buyoff(ctx: Ctx, p: dict) -> str:
    """A Possibility buys off damage just taken: without ``wound`` the latest wound (from
    the most recent roll that wounded the character); ``wound`` (an index) is the GM's
    explicit pick of an older one. gmdesk stores the index it used."""
    ctx.fields(p, ("id",), ("wound",))
    c = ctx.char(p["id"])
    if p.get("wound") is None:
        from gmdesk.core.session.offers import latest_wound_index

        if not c.wounds:
            raise ctx.fail(f"{c.name} has no wounds")
        k = latest_wound_index(c)
        ctx.extra["wound"] = k
    else:
        k = _wound_index(ctx, c, p["wound"])
    _check_spender(ctx, c)
    w = c.wounds[k]
    before = c.status
    ctx.set_possibilities(c, c.possibilities - 1, " (buy-off)")
    live = ctx.tx.char(c.id)
    live.wounds = live.wounds[:k] + live.wounds[k + 1 :]
    after = live.status
    change = f"{c.name} buys off {w.text}" + (f" ({status_word(after)})" if after != before else "")
    ctx.changes.append(change)
    if w.roll_seq is not None:
        i = ctx.state.roll_index(w.roll_seq, "roll")
        if i is not None:
            entry = ctx.tx.roll(i)
            entry.changes = [*entry.changes, change]
    return change


@handler("wound.remove")
def _wound_remove(ctx: Ctx, p: dict) -> str:
    """The GM takes a wound off (healing, story): no cost."""
    ctx.fields(p, ("id", "wound"))
    c = ctx.char(p["id"])
    k = _wound_index(ctx, c, p["wound"])
    w = c.wounds[k]
    before = c.status
    live = ctx.tx.char(c.id)
    live.wounds = live.wounds[:k] + live.wounds[k + 1 :]
    after = live.status
    ctx.changes.append(f"{c.name}: {w.text} removed" + (f" ({status_word(after)})" if after != before else ""))
    return f"{c.name}: {w.text} removed"


@handler("note")
def _note(ctx: Ctx, p: dict) -> str:
    ctx.fields(p, ("text",))
    text = ctx.text(p["text"], "text", MAX_TEXT, multiline=True)
    rnd, turn = ctx.roll_position()
    ctx.tx.add_note(Note(ctx.seq, text, rnd, turn, ctx.time))
    first = text.splitlines()[0]
    more = "…" if len(first) > 80 or "\n" in text else ""
    return f"Note: {first[:80]}{more}"


# --------------------------------------------------------------------------- the fold


@dataclass
class Applied:
    seq: int
    type: str
    summary: str
    changes: list[str]
    extra: dict[str, Any]
    ops: list[tuple] = field(default_factory=list)


def _payload(doc: Mapping[str, Any]) -> dict:
    return {k: v for k, v in doc.items() if k not in META_FIELDS}


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
        self.docs: dict[int, dict] = {}
        self.times: dict[int, str] = {}
        self.summaries: dict[int, str] = {}
        self.inverses: dict[int, list[tuple]] = {}
        self.done: list[int] = []
        self.undone: list[int] = []
        self.last_seq = 0
        self._last: tuple | None = None
        #: seq -> the stored event: where a fold restored from a checkpoint finds the
        #: payload, time and summary of events it did not apply itself
        self.source: Callable[[int], Mapping[str, Any]] | None = None
        #: ``rebuild(n)``: a full replay of the same log's events 1..n, for an undo that
        #: reaches past the inverses a checkpoint kept (see :meth:`_undo`)
        self.rebuild: Callable[[int], Fold] | None = None

    # ---- what the fold keeps about each undoable event (or finds in the log)

    def _doc(self, seq: int) -> dict:
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

    @property
    def can_undo(self) -> bool:
        return bool(self.done)

    @property
    def can_redo(self) -> bool:
        return bool(self.undone)

    def apply(
        self, seq: int, doc: Mapping[str, Any], time: str = "", summary: str | None = None, strict: bool = True
    ) -> Applied:
        """Validate and apply one event. ``summary``: the stored summary of an event
        being replayed (saves formatting it again). ``strict=False`` for an event read
        back from the log: the checks of what play allows (who can act, unique names)
        were those of the gmdesk that wrote it, so they are not made again."""
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
            applied = self._run(seq, seq, etype, _payload(doc), time, summary, strict)
            self.docs[seq] = {"type": etype, **_payload(doc), **applied.extra}
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
        payload: dict,
        time: str,
        summary: str | None = None,
        strict: bool = True,
    ) -> Applied:
        ctx = Ctx(self.state, etype, data_seq, time, strict)
        ctx.summary = summary
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

    def _target(self, doc: Mapping[str, Any], stack: list[int], what: str) -> int:
        if not stack:
            raise EventError(f"nothing to {what}", what)
        target = doc.get("target", stack[-1])
        if target != stack[-1]:
            raise EventError(f"can only {what} #{stack[-1]} next (asked for #{target})", what)
        return target

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
        return Applied(seq, "undo", f"Undo #{target}: {what}", [], {"target": target}, [("undo", target)])

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
            [("redo", target, applied.ops)],
        )

    def revert_last(self) -> None:
        """Take back the last :meth:`apply` (the store could not write it)."""
        if self._last is None:
            raise AssertionError("nothing to revert")
        applied, (last_seq, last_played), stacks = self._last
        self._last = None
        if applied.type == "undo":
            target = applied.ops[0][1]
            self._reapply(target)
            self.undone.pop()
            self.done.append(target)
        elif applied.type == "redo":
            _, target, ops = applied.ops[0]
            revert(self.state, ops)
            self.inverses.pop(target, None)
            self.done.pop()
            self.undone.append(target)
        else:
            revert(self.state, applied.ops)
            for d in (self.docs, self.times, self.summaries, self.inverses):
                d.pop(applied.seq, None)
            self.done.pop()
            self.undone = stacks
        self.last_seq = last_seq
        self.state.info.last_played = last_played


def replay(header: Mapping[str, Any], events, warnings: list[str] | None = None) -> Fold:
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


@contextmanager
def no_gc(promote: bool = False):
    """The fold builds no reference cycles: while a long log is replayed the cyclic
    GC would only rescan an ever larger heap (quadratic), so it rests meanwhile.

    ``promote``: on the way out, move every object the GC tracks to its oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()``). Without it the first young
    collections after opening a long session scan the whole new state (tens of
    milliseconds each, right when the UI draws its first frame); with it only a
    full collection ever looks at them, as it would sooner or later anyway. Nothing
    stays frozen."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if promote:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


# --------------------------------------------------------------------------- checkpoints

#: Version of the checkpoint form (:func:`fold_checkpoint`); bump it when it changes.
CHECKPOINT_VERSION = 1


@lru_cache(maxsize=1)
def fold_fingerprint() -> str:
    """What the fold's result depends on: the checkpoint version and the source of
    the code and data that fold a log (this module, the model, records, sheets,
    tables, the systems). A checkpoint written by any other gmdesk is not used:
    a fix to a rule takes effect at the next open, by replaying the log."""
    import hashlib

    core = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(f"gmdesk-fold {CHECKPOINT_VERSION}".encode())
    files = [
        core / "session" / "events.py",
        core / "session" / "model.py",
        core / "dice.py",
        core / "sheet.py",
        core / "tables.py",
    ]
    files += sorted((core / "systems").glob("*.py")) + sorted((core / "data").glob("*.json"))
    for f in files:
        try:
            h.update(f.name.encode() + b"\0" + f.read_bytes())
        except OSError:
            h.update(f.name.encode() + b"\0?")
    return h.hexdigest()


def _runs(seqs: list[int]) -> list[list[int]]:
    """[1, 2, 3, 7, 8] -> [[1, 3], [7, 8]] (the done stack is mostly runs)."""
    out: list[list[int]] = []
    for s in seqs:
        if out and s == out[-1][1] + 1:
            out[-1][1] = s
        else:
            out.append([s, s])
    return out


def _unruns(runs: list) -> list[int]:
    out: list[int] = []
    for a, b in runs:
        if type(a) is not int or type(b) is not int or b < a:
            raise ValueError(f"bad run {a!r}..{b!r}")
        out.extend(range(a, b + 1))
    return out


def fold_checkpoint(fold: Fold, keep: int, skipped: list[str] | None = None, seq: int | None = None) -> dict:
    """What a fold must remember to be rebuilt without replaying its whole log.

    The state is written as it was *before* the latest ``keep`` undoable events (their
    inverses are taken back on a detached copy); reopening applies those events again
    from the log, which gives the state, and their inverses, exactly: undo and redo
    right after reopening behave as if the session had never been closed. An undo
    that goes further back makes the session replay its log once (see Fold._undo).
    ``skipped``: the warnings of events the fold refused when it replayed the log;
    ``seq``: the last event of the log the fold has seen (default: its last applied)."""
    from gmdesk.core.session.model import checkpoint_json

    done = fold.done
    k = 0
    while k < min(keep, len(done)) and done[-1 - k] in fold.inverses:
        k += 1
    state = fold.state
    if k:
        state = detached_copy(state)
        for undoable in reversed(done[len(done) - k :]):
            revert_detached(state, fold.inverses[undoable])
    return {
        "seq": fold.last_seq if seq is None else seq,
        "last_seq": fold.last_seq,
        "state": checkpoint_json(state),
        "done": _runs(done),
        "reapply": k,
        "undone": list(fold.undone),
        "last_played": fold.state.info.last_played,
        "skipped": list(skipped or ()),
    }


def fold_from_checkpoint(
    d: Mapping[str, Any],
    source: Callable[[int], Mapping[str, Any]],
    load_record: Callable[[int, str, Any], RollRecord],
    header: Mapping[str, Any] | None = None,
) -> Fold:
    """The fold :func:`fold_checkpoint` described, as of its ``seq``. ``source(seq)`` gives
    a stored event; ``load_record(seq, kind, j)`` the record a roll entry refers to;
    ``header`` the log's header (the session's name and creation time come from it,
    as in a replay). Raises (EventError, KeyError, TypeError, ValueError, IndexError)
    when the checkpoint does not fit the log; the caller then replays the log instead."""
    from gmdesk.core.session.model import state_from_checkpoint

    fold = Fold(state_from_checkpoint(d["state"], load_record))
    if header is not None:
        fold.state.info.name = str(header.get("name", ""))
        fold.state.info.created = str(header.get("created", ""))
    fold.source = source
    done = _unruns(d["done"])
    k = d["reapply"]
    undone = d["undone"]
    if type(k) is not int or not 0 <= k <= len(done) or not all(type(x) is int for x in undone):
        raise ValueError("bad undo stacks")
    fold.done = done[: len(done) - k]
    for seq in done[len(done) - k :]:
        fold._reapply(seq)
        fold.done.append(seq)
    fold.undone = list(undone)
    fold.last_seq = int(d["last_seq"])
    fold.state.info.last_played = str(d["last_played"])
    return fold
