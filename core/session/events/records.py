"""Transactions: the mutations of one event with the prior value of everything they
touched (the event's inverse), and how undo restores them."""

from __future__ import annotations

from collections.abc import Callable

from gmdesk.core.session.model import Character, Clock, Note, RollEntry, State

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
        self.state.characters[c.id] = self.state.seat(c)

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
        """Append a roll entry; one whose roller or target is hidden from the players is
        marked hidden (it stays so after they are revealed, unless revealed with them)."""
        chars = self.state.characters
        for cid in (entry.actor, entry.target):
            c = chars.get(cid) if cid is not None else None
            if c is not None and c.hidden:
                entry.hidden = True
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
