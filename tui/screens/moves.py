"""The dice system's moves on the GM's main screen, generated from what the session's
system declares (its ``MOVES``, read through ``core.systems.get_spec``): each move's
key (binding id ``main.<move id>``, see :func:`move_bindings`), its palette entry,
and what it does:

* a ``preset`` opens the roll dialog with the move's parameter values filled in
  (at the roller's default target when the move says so);
* a ``condition`` switches that condition on / off on the selected character;
* an ``action`` asks its form (nothing, a confirmation, one choice as a list, or a
  short form), then the session makes it (``Session.move``) through the app's
  session runner and the desk says the move's line. A refusal made before anything
  is asked is said at once; one made by the session shows in the form, which stays
  open with what was typed.

:class:`SystemMoveActions` is the part of :class:`~gmdesk.tui.screens.main.MainScreen`
that owns these moves (:func:`move_commands` are their palette entries). Nothing here
knows a system: the rules are the system's (core).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.binding import Binding

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Session
from gmdesk.core.systems import get_spec
from gmdesk.core.systems.spec import Move, MoveField, SystemSpec
from gmdesk.tui.screens.confirm import ChoiceDialog, ConfirmDialog, FormDialog
from gmdesk.tui.screens.desk import DeskScreen, SessionCall
from gmdesk.tui.screens.rolling import RollActions
from gmdesk.tui.widgets.form import FormField
from gmdesk.tui.wording import ui_message


def move_bindings(spec: SystemSpec) -> list[Binding]:
    """The key bindings of a system's moves that have a key (the others are in the
    command palette only)."""
    return [
        Binding(
            m.key,
            f"system_move({m.id!r})",
            m.title,
            show=False,
            tooltip=f"{m.title}: {m.help}" if m.help else m.title,
            id=m.binding_id,
        )
        for m in spec.moves
        if m.key
    ]


def move_title(move: Move) -> str:
    """The palette title: "…" when the move asks something first."""
    asks = move.kind == "preset" or (move.kind == "action" and (move.form is not None or move.confirm))
    return f"{move.title}…" if asks else move.title


def form_field(state: Any, f: MoveField) -> FormField:
    """The form dialog's field for a move's field."""
    if f.type in ("choice", "character"):
        choices = list(f.choices) or [(cid, c.name) for cid, c in state.characters.items()]
        value = f.default if any(v == f.default for v, _ in choices) else (choices[0][0] if choices else None)
        return FormField(f.name, f.label, "choice", value, choices)
    if f.type == "bool":
        return FormField(f.name, f.label, "bool", bool(f.default))
    value = "" if f.default is None else str(f.default)
    return FormField(f.name, f.label, "text", value, placeholder=f.placeholder or f.help)


class MoveCommand:
    """A palette entry running one of the system's moves; ``binding_id`` lets the
    palette show the key the GM's keymap gives it."""

    def __init__(self, moves: SystemMoveActions, move: Move) -> None:
        self.moves = moves
        self.move_id = move.id
        self.binding_id = move.binding_id if move.key else None

    def __call__(self) -> None:
        self.moves.run(self.move_id)


def move_commands(moves: SystemMoveActions) -> list[tuple[str, str, Callable[[], Any]]]:
    """The palette entries of the session's system's moves, as its module declares them."""
    out: list[tuple[str, str, Callable[[], Any]]] = []
    for move in moves.moves():
        help_text = move.help + (f" ({move.key})" if move.key else "")
        out.append((move_title(move), help_text, MoveCommand(moves, move)))
    return out


class SystemMoveActions:
    """The session's system's moves on the main screen (see the module docstring)."""

    def __init__(self, desk: DeskScreen, rolls: RollActions) -> None:
        self.desk = desk
        #: a preset move opens the roll dialog through the screen's rolls
        self.rolls = rolls

    @property
    def spec(self) -> SystemSpec | None:
        """The declaration of the session's system (None for one not installed)."""
        try:
            return get_spec(self.desk.state.info.system)
        except GmdeskError:
            return None

    def moves(self) -> list[Move]:
        """The moves the session's system declares (none for a system not installed)."""
        spec = self.spec
        return list(spec.moves) if spec is not None else []

    def move_context(self) -> dict[str, Any]:
        """What a move knows besides its form: who is selected, who acts, the roll under
        the log cursor."""
        entry = self.desk.rolllog.current_entry
        return {
            "selected": self.desk.selected,
            "acting": self.desk.acting(),
            "roll": entry.seq if entry is not None else None,
        }

    def run(self, move_id: str) -> None:
        """Make the session's system's move ``move_id`` (its key or palette entry)."""

        def go() -> None:
            spec = self.spec
            move = spec.move(move_id) if spec is not None else None
            if move is None:
                name = spec.name if spec is not None else self.desk.state.info.system
                self.desk.say(f"{name} has no such move.", error=True)
                return
            if move.kind == "preset":
                self._preset(move)
            elif move.kind == "condition":
                self.toggle_condition(move.condition)
            else:
                self._action(move)

        self.desk.when_idle(go)

    def _preset(self, move: Move) -> None:
        actor = self.desk.able(self.desk.acting())
        target = self.desk.default_target(actor) if move.target else None
        # an opposed roll fills both sides from the characters' fields, as an attack does
        self.rolls.open_dialog(
            actor=actor, target=target, preset=dict(move.preset), title=move.title, opposed=move.target
        )

    def _action(self, move: Move) -> None:
        context = self.move_context()
        try:
            fields = self.desk.session.move_form(move.id, context)
            hint = self.desk.session.move_hint(move.id, context)
        except GmdeskError as e:
            self.desk.say(ui_message(e), error=True)
            return
        rng = self.desk.rng

        def call(values: dict[str, Any]) -> SessionCall:
            def fn(s: Session) -> Any:
                event = s.move(move.id, values, context, rng)
                return s.said(move.id, event)

            return fn

        def done(line: Any) -> None:
            if isinstance(line, str) and line:
                self.desk.say(line)

        if not fields:
            if not move.confirm:
                self.desk.submit(call({}), done)
                return

            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.desk.submit(call({}), done)

            self.desk.app.push_screen(ConfirmDialog(move.confirm, yes=move.verb or "Yes", title=move.title), confirmed)
            return
        only = fields[0]
        if len(fields) == 1 and only.type in ("choice", "character") and not hint:
            # one thing to pick: a list, one Enter away
            pick = form_field(self.desk.state, only)

            def chosen(value: Any) -> None:
                if value is not None:
                    self.desk.submit(call({only.name: value}), done)

            self.desk.app.push_screen(
                ChoiceDialog(only.label, list(pick.choices), title=move.title, selected=pick.value), chosen
            )
            return
        # the dialog stays open until the session accepted the move (a refusal shows in it)
        self.desk.app.push_screen(
            FormDialog(
                move.title,
                [form_field(self.desk.state, f) for f in fields],
                commit=call,
                verb=move.verb or move.title.lower(),
                hint=hint,
            ),
            done,
        )

    def toggle_condition(self, name: str) -> None:
        """A ``condition`` move: the condition on or off on the selected character."""
        cid = self.desk.need_selected()
        if cid is None:
            return
        ch = self.desk.state.characters[cid]
        cond = next((c for c in ch.conditions if c.name.casefold() == name.casefold()), None)
        if cond is None:
            self.desk.apply({"type": "condition.add", "id": cid, "name": name, "rounds": None}, f"{ch.name} is {name}")
        else:
            self.desk.apply(
                {"type": "condition.remove", "id": cid, "name": cond.name, "rounds": cond.rounds},
                f"{ch.name} is no longer {name}",
            )
