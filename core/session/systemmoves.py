"""The moves a dice system declares (``MOVES``, :class:`~gmdesk.core.systems.spec.Move`),
made in a session: :meth:`SystemMoveCalls.move` reads the values of the move's form
by their declared types, runs the system's rules (which append one event) and turns
a refusal into an :class:`EventError` with one line. The desk asks
:meth:`SystemMoveCalls.move_form` what to ask first; the CLI and the tests call
``move`` directly, or the named conveniences kept from before moves were declared
(:meth:`spend_possibility`, :meth:`cancel_possibility`, :meth:`heal`), each found
among the declarations of the session's systems (:meth:`declared_move`).

``context`` is what the desk knows besides the form: ``selected`` and ``acting``
(character ids or None) and ``roll`` (the seq of the roll under the log cursor, or
None).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gmdesk.core.dice import RandomSource
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.session.events import Event, EventError
from gmdesk.core.session.model import State
from gmdesk.core.systems.spec import Move, MoveField


def read_move_values(fields: Sequence[MoveField], values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with each ``int`` and ``bool`` field read by its type (``ParamError``
    naming the field); what no field names is kept as given."""
    from gmdesk.core.systems.base import parse_int
    from gmdesk.core.systems.spec import Param, check_value

    out = dict(values)
    for f in fields:
        if f.name not in out:
            continue
        value = out[f.name]
        if f.type == "int":
            if value is None or (isinstance(value, str) and not value.strip()):
                out[f.name] = None
            else:
                out[f.name] = parse_int(f.name, value, f.lo, f.hi)
        elif f.type == "bool":
            out[f.name] = check_value(Param(f.name, f.label, "bool", False, option=f.name), value)
    return out


def _refusal(error: GmdeskError) -> EventError:
    """A system's refusal as the session's: one line, no event type."""
    if isinstance(error, EventError):
        return error
    return EventError(str(error))


class SystemMoveCalls:
    """The declared moves of the session's system (mixed into ``Session``)."""

    if TYPE_CHECKING:  # what Session provides
        readonly: bool

        @property
        def state(self) -> State: ...

        def apply(self, doc: Mapping[str, Any]) -> Event: ...

    def system_move(self, move_id: str) -> Move:
        """The session's system's move ``move_id`` (EventError when it has none)."""
        from gmdesk.core.systems import get_spec

        spec = get_spec(self.state.info.system)
        move = spec.move(move_id)
        if move is None:
            raise EventError(f"{spec.name} has no move {move_id!r}")
        return move

    def move_form(self, move_id: str, context: Mapping[str, Any] | None = None) -> list[MoveField]:
        """What the move asks before it is made (an empty list: nothing); EventError
        saying why it cannot be made now."""
        move = self.system_move(move_id)
        if move.form is None:
            return []
        try:
            return list(move.form(self.state, dict(context or {})))
        except GmdeskError as e:
            raise _refusal(e) from None

    def move_hint(self, move_id: str, context: Mapping[str, Any] | None = None) -> str:
        """The note the move's form shows (where a default comes from), or ""."""
        move = self.system_move(move_id)
        return move.hint(self.state, dict(context or {})) if move.hint is not None else ""

    def move(
        self,
        move_id: str,
        values: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        rng: RandomSource | None = None,
    ) -> Event:
        """Make the session's system's action move ``move_id`` with the form's
        ``values``: the one event it appended. Refused (EventError, one line, nothing
        changed) when the rules say no."""
        if self.readonly:
            raise EventError("this session is open read-only")
        move = self.system_move(move_id)
        if move.kind != "action" or move.run is None:
            raise EventError(f"{move.title} is no session move (it opens the roll dialog or toggles a condition)")
        ctx = dict(context or {})
        try:
            fields = list(move.form(self.state, ctx)) if move.form is not None and values else []
        except GmdeskError:
            fields = []  # explicit values: the rules of the run decide
        try:
            typed = read_move_values(fields, values or {})
            done: Event = move.run(self, typed, ctx, rng)  # a move's run appends one event and returns it
            return done
        except ParamError as e:
            raise EventError(str(e)) from None
        except GmdeskError as e:
            raise _refusal(e) from None

    def said(self, move_id: str, event: Event) -> str:
        """The line the desk says once the move was made."""
        move = self.system_move(move_id)
        if move.said is not None:
            return move.said(self.state, event)
        return event.summary or move.title

    # ---- the named moves, whichever installed system declares them

    def spend_possibility(self, char_id: str, roll_seq: int, rng: RandomSource | None = None) -> Event:
        """``char_id`` spends a Possibility on roll ``roll_seq``: the move
        ``spend_possibility`` of the system that rolled it (else of any installed
        system that declares it, :meth:`declared_move`), by that system's rule."""
        return self._declared("spend_possibility", {"id": char_id, "roll": roll_seq}, rng, roll_seq)

    def cancel_possibility(self, char_id: str, roll_seq: int) -> Event:
        """``char_id`` cancels the latest Possibility spent on roll ``roll_seq``."""
        return self._declared("cancel_possibility", {"id": char_id, "roll": roll_seq}, None, roll_seq)

    def heal(self, healer: str, target: str, rng: RandomSource | None = None) -> Event:
        """The move ``heal`` (a Healing Ability of a descriptor sheet: d6 back onto
        ``target``'s Vitality, capped at its Default) of the session's system, else of
        any installed system that declares it, by that system's rule."""
        return self._declared("heal", {"healer": healer, "target": target}, rng)

    def declared_move(self, move_id: str, roll_seq: int | None = None) -> Move | None:
        """The action move ``move_id`` as the systems of the session declare it: the
        system of roll ``roll_seq`` (a roll of another system may be logged in any
        session), the session's own, then every installed system in turn (the
        built-ins first); None when none declares it."""
        from gmdesk.core.systems import get_spec, system_ids

        first: list[str] = []
        entry = self.state.roll_entry(roll_seq) if roll_seq is not None else None
        if entry is not None:
            first.append(entry.record.system)
        first.append(self.state.info.system)
        for system_id in dict.fromkeys([*first, *system_ids()]):
            try:
                move = get_spec(system_id).move(move_id)
            except GmdeskError:  # a roll of a system no longer installed
                continue
            if move is not None and move.kind == "action" and move.run is not None:
                return move
        return None

    def _declared(
        self, move_id: str, values: Mapping[str, Any], rng: RandomSource | None = None, roll_seq: int | None = None
    ) -> Event:
        """Make the move ``move_id`` by the rule of the system that declares it
        (:meth:`declared_move`); EventError when no installed system does."""
        move = self.declared_move(move_id, roll_seq)
        if move is None or move.run is None:
            raise EventError(f"no installed system has the move {move_id!r}")
        if self.readonly:
            raise EventError("this session is open read-only")
        try:
            done: Event = move.run(self, values, {}, rng)
            return done
        except ParamError as e:
            raise EventError(str(e)) from None
        except GmdeskError as e:
            raise _refusal(e) from None
