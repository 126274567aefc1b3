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

Nothing here knows a system: the rules are the system's (core).
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Session
from gmdesk.core.systems import get_spec
from gmdesk.core.systems.spec import Move, MoveField, SystemSpec
from gmdesk.tui.screens.confirm import ChoiceDialog, ConfirmDialog, FormDialog
from gmdesk.tui.screens.desk import DeskScreen, SessionCall
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


class SystemMoves(DeskScreen):
    """The system moves of the main screen."""

    @property
    def spec(self) -> SystemSpec | None:
        """The declaration of the session's system (None for one not installed)."""
        try:
            return get_spec(self.state.info.system)
        except GmdeskError:
            return None

    def system_moves(self) -> list[Move]:
        spec = self.spec
        return list(spec.moves) if spec is not None else []

    def move_context(self) -> dict[str, Any]:
        """What a move knows besides its form: who is selected, who acts, the roll under
        the log cursor."""
        entry = self.rolllog.current_entry
        return {"selected": self.selected, "acting": self.acting(), "roll": entry.seq if entry is not None else None}

    def action_system_move(self, move_id: str) -> None:
        """Make the session's system's move ``move_id`` (its key or palette entry)."""

        def go() -> None:
            spec = self.spec
            move = spec.move(move_id) if spec is not None else None
            if move is None:
                name = spec.name if spec is not None else self.state.info.system
                self.say(f"{name} has no such move.", error=True)
                return
            if move.kind == "preset":
                self._preset(move)
            elif move.kind == "condition":
                self.action_toggle_condition(move.condition)
            else:
                self._action(move)

        self.when_idle(go)

    def _preset(self, move: Move) -> None:
        actor = self.able(self.acting())
        target = self.default_target(actor) if move.target else None
        # an opposed roll fills both sides from the characters' fields, as an attack does
        self.open_roll_dialog(
            actor=actor, target=target, preset=dict(move.preset), title=move.title, opposed=move.target
        )

    def open_roll_dialog(
        self,
        *,
        actor: str | None = None,
        target: str | None = None,
        combat: bool = False,
        system: str | None = None,
        preset: dict | None = None,
        title: str | None = None,
        opposed: bool = False,
    ) -> None:
        """The roll dialog (the main screen opens it)."""
        raise NotImplementedError

    def _action(self, move: Move) -> None:
        context = self.move_context()
        try:
            fields = self.session.move_form(move.id, context)
            hint = self.session.move_hint(move.id, context)
        except GmdeskError as e:
            self.say(ui_message(e), error=True)
            return
        rng = self.rng

        def call(values: dict[str, Any]) -> SessionCall:
            def fn(s: Session) -> Any:
                event = s.move(move.id, values, context, rng)
                return s.said(move.id, event)

            return fn

        def done(line: Any) -> None:
            if isinstance(line, str) and line:
                self.say(line)

        if not fields:
            if not move.confirm:
                self.submit(call({}), done)
                return

            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.submit(call({}), done)

            self.app.push_screen(ConfirmDialog(move.confirm, yes=move.verb or "Yes", title=move.title), confirmed)
            return
        only = fields[0]
        if len(fields) == 1 and only.type in ("choice", "character") and not hint:
            # one thing to pick: a list, one Enter away
            pick = form_field(self.state, only)

            def chosen(value: Any) -> None:
                if value is not None:
                    self.submit(call({only.name: value}), done)

            self.app.push_screen(
                ChoiceDialog(only.label, list(pick.choices), title=move.title, selected=pick.value), chosen
            )
            return
        # the dialog stays open until the session accepted the move (a refusal shows in it)
        self.app.push_screen(
            FormDialog(
                move.title,
                [form_field(self.state, f) for f in fields],
                commit=call,
                verb=move.verb or move.title.lower(),
                hint=hint,
            ),
            done,
        )

    def action_toggle_condition(self, name: str) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        ch = self.state.characters[cid]
        cond = next((c for c in ch.conditions if c.name.casefold() == name.casefold()), None)
        if cond is None:
            self.apply({"type": "condition.add", "id": cid, "name": name, "rounds": None}, f"{ch.name} is {name}")
        else:
            self.apply(
                {"type": "condition.remove", "id": cid, "name": cond.name, "rounds": cond.rounds},
                f"{ch.name} is no longer {name}",
            )
