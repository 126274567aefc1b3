"""What a handler works with: :class:`Ctx` (the state, the transaction, the payload
checks and the mutations handlers share), :class:`EventError` and the bounds of a payload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.events.records import Txn
from gmdesk.core.session.events.sheets import sheet_set_current, sheet_vitality
from gmdesk.core.session.events.text import initiative_words
from gmdesk.core.session.model import Character, State

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
        #: (the payload's record JSON, the RollRecord it reads as) when the caller had it
        self.known_record: tuple[Any, RollRecord] | None = None

    def fail(self, reason: str) -> EventError:
        return EventError(reason, self.type)

    # ---- payload checks (each raises EventError naming the field)

    def fields(self, p: Mapping[str, Any], required: tuple[str, ...] = (), optional: tuple[str, ...] = ()) -> None:
        for k in required:
            if k not in p:
                raise self.fail(f"missing field {k!r}")
        for k in p:
            if k not in required and k not in optional:  # (a few names: no set made an event)
                names = ", ".join(sorted({*required, *optional})) or "none"
                raise self.fail(f"unknown field {k!r} (allowed: {names})")

    def char(self, cid: Any, what: str = "id") -> Character:
        if not isinstance(cid, str) or cid not in self.state.characters:
            raise self.fail(f"{what}: no character {cid!r} in this session")
        return self.state.characters[cid]

    def name_of(self, cid: str) -> str | None:
        """The name of character ``cid`` (None when there is none)."""
        c = self.state.characters.get(cid)
        return c.name if c is not None else None

    def opt_char(self, cid: Any, what: str) -> Character | None:
        return None if cid is None else self.char(cid, what)

    def text(self, value: Any, what: str, maxlen: int = MAX_NAME, empty: bool = False, multiline: bool = False) -> str:
        """Stripped text; names are one line, notes may have several."""
        if not isinstance(value, str):
            raise self.fail(f"{what}: must be text (got {value!r})")
        text = value.strip()
        if not text and not empty:
            raise self.fail(f"{what}: must not be empty")
        if len(text) > maxlen:
            raise self.fail(f"{what}: at most {maxlen} characters (got {len(text)})")
        allowed = "\n\t" if multiline else ""
        if any((ord(ch) < 32 or ord(ch) == 127) and ch not in allowed for ch in text):
            raise self.fail(f"{what}: control characters{'' if multiline else ' and line breaks'} are not allowed")
        return text

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
        return int(value)

    def boolean(self, value: Any, what: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(f"{what}: must be true or false (got {value!r})")
        return value

    def choice(self, value: Any, what: str, choices: tuple[str, ...]) -> str:
        if value not in choices:
            raise self.fail(f"{what}: must be one of {', '.join(choices)} (got {value!r})")
        return str(value)

    def rounds(self, value: Any) -> int | None:
        return None if value is None else self.integer(value, "rounds", 1, MAX_ROUNDS)

    def record(self, value: Any, what: str = "record") -> RollRecord:
        if isinstance(value, RollRecord):
            return value
        known = self.known_record
        if known is not None and value is known[0]:
            return known[1]
        if not isinstance(value, Mapping):
            raise self.fail(f"{what}: must be a roll record object")
        try:
            return RollRecord.from_trusted_json(value)
        except (KeyError, TypeError, ValueError) as e:
            raise self.fail(f"{what}: not a roll record ({e})") from None

    def roll_index(self, seq: Any) -> int:
        """The index in ``state.rolls`` of the roll ``seq`` names (a ``roll`` field)."""
        seq = self.integer(seq, "roll", 1)
        i = self.state.roll_index(seq, "roll")
        if i is None:
            raise self.fail(f"roll: no roll #{seq} in the log (or it was undone)")
        return i

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
            live.sheet = sheet_set_current(live.sheet, "Vitality", new)
        elif new != live.vitality_default:
            # a missing descriptor that changes is written with its Default and new Current
            live.sheet = live.sheet.set_values("Vitality", default=live.vitality_default, current=new)

    def initiative(self, value: int) -> str:
        """An initiative as the session's system words it (:func:`.text.initiative_words`)."""
        return initiative_words(self.state.info.system, value)

    def roll_position(self) -> tuple[int, int]:
        enc = self.state.encounter
        return enc.round, enc.turn
