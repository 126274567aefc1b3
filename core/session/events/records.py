"""Transactions: the mutations of one event with the prior value of everything they
touched (the event's inverse), and how undo restores them."""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable
from typing import Literal, TypeAlias

from gmdesk.core.session.model import Character, Clock, Encounter, Info, Note, RollEntry, State
from gmdesk.core.session.model.rolllog import RollLog


class _Missing(enum.Enum):
    """What a character added by the event held before: nothing."""

    MISSING = "missing"


_MISSING = _Missing.MISSING

# One step of an event's inverse: a tag naming what the event touched, then what it
# held before.
#: a character (its snapshot, or _MISSING for one the event added) and its wound count
CharOp: TypeAlias = tuple[Literal["char"], str, Character | _Missing, int]
#: the characters' order (their ids)
OrderOp: TypeAlias = tuple[Literal["order"], list[str]]
EncounterOp: TypeAlias = tuple[Literal["encounter"], Encounter]
ClocksOp: TypeAlias = tuple[Literal["clocks"], dict[str, Clock]]
InfoOp: TypeAlias = tuple[Literal["info"], Info]
NextIdOp: TypeAlias = tuple[Literal["next_id"], int]
#: one roll entry, by its index in the roll log
RollOp: TypeAlias = tuple[Literal["roll"], int, RollEntry]
#: how many roll entries, and notes, there were
RollsOp: TypeAlias = tuple[Literal["rolls"], int]
NotesOp: TypeAlias = tuple[Literal["notes"], int]
Op: TypeAlias = CharOp | OrderOp | EncounterOp | ClocksOp | InfoOp | NextIdOp | RollOp | RollsOp | NotesOp


class Txn:
    """Mutations of one event, with the prior value of everything touched (its inverse).

    Touch before mutating: :meth:`char` (a character's own fields and lists: lists
    are replaced, never changed in place, except wounds, which only grow in place
    and are cut back to their length on revert; a sheet is immutable, so assigning
    the new one to the touched character is all a sheet change needs),
    :meth:`encounter`, :meth:`clocks`, :meth:`info`, :meth:`counter`, :meth:`roll`
    (one roll entry); appends to
    ``rolls`` / ``notes`` go through :meth:`add_roll` / :meth:`add_note`.
    """

    def __init__(self, state: State):
        self.state = state
        self.ops: list[Op] = []
        self._seen: set[Hashable] = set()
        self._rolls_base: int | None = None

    def _once(self, key: Hashable, op_factory: Callable[[], Op]) -> None:
        if key not in self._seen:
            self._seen.add(key)
            self.ops.append(op_factory())

    def char(self, cid: str) -> Character:
        def op() -> Op:
            c = self.state.characters[cid]
            return ("char", cid, c.snapshot(), len(c.wounds))

        self._once(("char", cid), op)
        return self.state.characters[cid]

    def new_char(self, c: Character) -> None:
        self._once(("char", c.id), lambda: ("char", c.id, _MISSING, 0))
        self.state.characters[c.id] = self.state.seat(c)

    def remove_char(self, cid: str) -> None:
        self._once(("order",), lambda: ("order", list(self.state.characters)))
        self.char(cid)
        del self.state.characters[cid]

    def encounter(self) -> Encounter:
        self._once(("encounter",), lambda: ("encounter", self.state.encounter.snapshot()))
        return self.state.encounter

    def clocks(self) -> dict[str, Clock]:
        self._once(("clocks",), lambda: ("clocks", dict(self.state.clocks)))
        return self.state.clocks

    def info(self) -> Info:
        self._once(("info",), lambda: ("info", self.state.info.snapshot()))
        return self.state.info

    def counter(self) -> None:
        self._once(("next_id",), lambda: ("next_id", self.state.next_id))

    def roll(self, index: int) -> RollEntry:
        rolls = self.state.rolls
        if isinstance(rolls, RollLog):
            rolls.live(index)  # (an old, packed entry is taken out of its page to be changed)
        if self._rolls_base is None or index < self._rolls_base:  # entries added by this event need no copy
            self._once(("roll", index), lambda: ("roll", index, rolls[index].snapshot()))
        return rolls[index]

    def add_roll(self, entry: RollEntry) -> None:
        """Append a roll entry; one whose roller or target is hidden from the players is
        marked hidden (it stays so after they are revealed, unless revealed with them)."""
        chars = self.state.characters
        for cid in (entry.actor, entry.target):
            c = chars.get(cid) if cid is not None else None
            if c is not None and c.hidden:
                entry.hidden = True
        if self._rolls_base is None:
            base = self._rolls_base = len(self.state.rolls)
            if ("rolls",) not in self._seen:  # (_once, without a function made at each roll)
                self._seen.add(("rolls",))
                self.ops.append(("rolls", base))
        self.state.rolls.append(entry)

    def add_note(self, note: Note) -> None:
        self._once(("notes",), lambda: ("notes", len(self.state.notes)))
        self.state.notes.append(note)


def revert(state: State, ops: list[Op]) -> None:
    """Undo a transaction: restore every touched value, newest first."""
    for op in reversed(ops):
        match op:
            case ("char", cid, snap, n_wounds):
                if snap is _MISSING:
                    state.characters.pop(cid, None)
                else:
                    # wounds are appended in place (Character.add_wound): cut them back
                    del snap.wounds[n_wounds:]
                    state.characters[cid] = snap.snapshot()
            case ("order", ids):
                chars = state.characters
                state.characters = {k: chars[k] for k in ids if k in chars}
            case ("encounter", encounter):
                state.encounter = encounter.snapshot()
            case ("clocks", clocks):
                state.clocks = dict(clocks)
            case ("info", info):
                state.info = info.snapshot()
            case ("next_id", next_id):
                state.next_id = next_id
            case ("roll", index, entry):
                state.rolls[index] = entry.snapshot()
            case ("rolls", length):
                del state.rolls[length:]
            case ("notes", length):
                del state.notes[length:]
            case _:  # pragma: no cover - programming error
                raise AssertionError(f"unknown inverse op {op[0]}")


def detached_copy(state: State) -> State:
    """A copy of ``state`` that :func:`revert_detached` may change without touching
    ``state`` (containers copied, the objects in them shared)."""
    return State(
        info=state.info,
        characters=dict(state.characters),
        encounter=state.encounter,
        clocks=dict(state.clocks),
        rolls=state.rolls.copy(),
        notes=list(state.notes),
        next_id=state.next_id,
    )


def revert_detached(state: State, ops: list[Op]) -> None:
    """:func:`revert` on a :func:`detached_copy`: the same values, but nothing shared with
    the live state is changed in place (a character's wounds are cut back as a copy)."""
    for op in reversed(ops):
        if op[0] == "char":
            _, cid, snap, n_wounds = op
            if snap is not _MISSING:
                c = snap.snapshot()
                c.wounds = snap.wounds[:n_wounds]
                state.characters[cid] = c
                continue
        revert(state, [op])
