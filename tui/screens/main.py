"""The GM's main screen: initiative | character on top, the roll log below, a status
line on top and the keys at the bottom.

The screen turns keys (and command-palette entries) into session calls and holds no
rules: every change is a session event (``Session.apply`` / ``Session.roll`` /
``undo`` / ``redo``). Session calls touch the disk, so they run one at a time, in
order, off the event loop in the app's session runner (:mod:`tui.runner`, through
:meth:`MainScreen.submit`); the screen redraws from the session's state when each one
is done. While one is running, actions that read the state wait for it
(:meth:`MainScreen.when_idle`), so a dialog never sees a half-made change.

This module keeps the layout, the rolls and the generic moves (undo, the log); the
moves of the turns and the encounter (:mod:`.encounter`), of the characters
(:mod:`.roster`) and of the dice systems (:mod:`.moves`) are parts of the screen in
their own modules, the command palette's list in :mod:`.commands`.

Choices where the rules are silent (what a GM at the table expects):

* The character acting is the current combatant once the encounter has started;
  before that (or outside combat) it is the selected character.
* Who can act (RULES.md): ``a`` with an Unconscious or Dead character acting says so
  and opens nothing; ``r`` / ``o`` open the dialog with nobody as roller. The dialogs
  offer only characters who can act as rollers (and healers), never the roller as its
  own target, never the Dead as targets (or patients).
* An attack's default target is the roller's last target if not Dead, else its next
  standing foe in initiative order (``State.default_target``).
* Names are unique in a session: the new-character dialog refuses a taken name in
  place (with a numbered suggestion) and keeps what was typed.
* Initiative for all prefills each combatant's modifier from what the session's
  system reads from the character (0 when it reads nothing) — the GM can change
  any of them or type a number instead of rolling.
* The keys and palette entries of the dice system's moves are generated from what
  the session's system declares (:mod:`.moves`): the screen for a session is the
  class :func:`desk_class` builds for its system, whose bindings are the desk's plus
  the system's moves' (binding ids ``main.<move id>``, so the GM's keymap names them).
* Resume: the selected character is kept in the save's view state
  (``ui_set("selected", id)``) and restored on open; round and turn are state.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Static

from gmdesk.core.dice import RandomSource
from gmdesk.core.errors import GmdeskError
from gmdesk.core.render import headline
from gmdesk.core.session import Event, Session, State
from gmdesk.core.systems import get_spec, system_ids
from gmdesk.tui.runner import SessionRunner
from gmdesk.tui.screens.commands import desk_commands
from gmdesk.tui.screens.confirm import ChoiceDialog
from gmdesk.tui.screens.encounter import EncounterMoves
from gmdesk.tui.screens.moves import SystemMoves, move_bindings
from gmdesk.tui.screens.roll import RollDialog, RollRequest
from gmdesk.tui.screens.rolldetails import RollDetails
from gmdesk.tui.screens.roster import RosterMoves
from gmdesk.tui.widgets.character import CharacterPane
from gmdesk.tui.widgets.common import TURN_MARKER, attack_sentence, name_of
from gmdesk.tui.widgets.initiative import InitiativePane
from gmdesk.tui.widgets.rolllog import RollLog

#: changes a stray key could make (removals, leaving the order, delaying): the
#: notification names what happened and the key that undoes it
UNDO_NAMED = (
    "source.remove",
    "condition.remove",
    "wound.remove",
    "encounter.remove",
    "encounter.delay",
    "character.remove",
)


class MainScreen(EncounterMoves, RosterMoves, SystemMoves):
    """Run the session: see the module docstring."""

    BINDINGS = [
        Binding("r", "roll", "Roll", tooltip="Roll any system, with live odds", id="main.roll"),
        Binding(
            "a",
            "attack",
            "Attack",
            tooltip="The current combatant attacks: the descriptor is applied and logged",
            id="main.attack",
        ),
        Binding("n", "next_turn", "Next", tooltip="Next turn", id="main.next_turn"),
        Binding("p", "prev_turn", "Prev turn", show=False, id="main.prev_turn"),
        Binding("R", "new_round", "New round", show=False, id="main.new_round"),
        Binding("u", "undo", "Undo", id="main.undo"),
        Binding("U,ctrl+y", "redo", "Redo", show=False, id="main.redo"),
        Binding("i", "initiative", "Init", tooltip="Roll initiative for all (or type values)", id="main.initiative"),
        Binding("c", "new_character", "Char", tooltip="Add a character", id="main.new_character"),
        Binding("plus", "encounter_add", "Join encounter", show=False, id="main.encounter_add"),
        Binding("minus", "encounter_remove", "Leave encounter", show=False, id="main.encounter_remove"),
        Binding("left_square_bracket", "move(-1)", "Move up", show=False, id="main.move_up"),
        Binding("right_square_bracket", "move(1)", "Move down", show=False, id="main.move_down"),
        Binding("d", "delay", "Delay", show=False, id="main.delay"),
        Binding("f", "filter_log", "Filter log", show=False, id="main.filter_log"),
        Binding("H", "toggle_hidden", "Hide/Reveal", show=False, id="main.reveal"),
        Binding(
            "B",
            "add_from_bestiary",
            "Add from bestiary",
            show=False,
            tooltip="Add numbered copies of a bestiary stat block to the encounter",
            id="main.add_from_bestiary",
        ),
    ]

    #: the dice system whose moves this screen binds ("" for none: the base desk)
    SYSTEM = ""

    @classmethod
    def for_session(
        cls, session: Session, runner: SessionRunner, *, rng: RandomSource | None = None, readonly: bool = False
    ) -> MainScreen:
        """The main screen for ``session``, with the keys of its system's moves."""
        return desk_class(session.state.info.system)(session, runner, rng=rng, readonly=readonly)

    def __init__(
        self, session: Session, runner: SessionRunner, *, rng: RandomSource | None = None, readonly: bool = False
    ) -> None:
        super().__init__(session, runner, rng=rng, readonly=readonly)
        self._remembered: dict[tuple[str, str | None, bool], dict[str, Any]] = {}

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="session-bar")
        with Horizontal(id="main-top"):
            yield InitiativePane(id="initiative")
            yield CharacterPane(id="character")
        yield RollLog(id="rolllog")
        yield Footer()

    def on_mount(self) -> None:
        state = self.state
        saved = self.session.ui_get("selected", None)
        current = state.encounter.current
        if saved in state.characters:
            self.selected = saved
        elif current is not None:
            self.selected = current.char_id
        elif state.characters:
            self.selected = next(iter(state.characters))
        self.refresh_view()
        self.query_one(InitiativePane).table.focus()

    def refresh_view(self) -> None:
        state = self.state
        if self.selected not in state.characters:
            self.selected = next(iter(state.characters), None)
        self.query_one("#session-bar", Static).update(self._bar_text(state))
        self.initiative.set_state(state, self.selected)
        self.character.set_state(state, self.selected)
        self.rolllog.set_state(state)

    def _bar_text(self, state: State) -> Text:
        info = state.info
        enc = state.encounter
        text = Text()
        text.append(info.name or "session", style="bold")
        text.append(f" · {info.system}")
        if enc.round:
            text.append(f" · Round {enc.round}", style="bold")
            cur = enc.current
            if cur is not None:
                text.append(f" · {TURN_MARKER} {name_of(state, cur.char_id)}'s turn", style="bold")
        if self.readonly:
            text.append(" · READ-ONLY", style="bold reverse")
        return text

    # -- messages from the widgets ---------------------------------------------------------------

    def on_initiative_pane_selected(self, message: InitiativePane.Selected) -> None:
        self.selected = message.char_id
        self.when_idle(lambda: self.character.set_state(self.state, self.selected))
        self.remember_selection()

    def on_character_pane_apply(self, message: CharacterPane.Apply) -> None:
        pane = self.character
        what = message.what
        if message.event.get("type") in UNDO_NAMED:
            what = f"{what} — {self.undo_hint()}"
        self.apply(
            message.event, what, done=lambda _ev: pane.edit_result(None), error=lambda err: pane.edit_result(err)
        )

    def on_roll_log_details(self, message: RollLog.Details) -> None:
        log = self.rolllog
        self.app.push_screen(RollDetails(message.entry, self.state, log.line_text(log.cursor)))

    def on_roll_log_copy(self, message: RollLog.Copy) -> None:
        self.app.copy_to_clipboard(message.text)
        self.say("Roll copied to the clipboard")

    # -- rolls and attacks ---------------------------------------------------------------------

    def action_roll(self) -> None:
        self.when_idle(lambda: self.open_roll_dialog(actor=self.able(self.acting())))

    def action_attack(self) -> None:
        def go() -> None:
            actor = self.acting()
            if actor is None:
                self.say("Nobody to attack with: add a character (c) first.", error=True)
                return
            if self.able(actor) is None:
                return
            self.open_roll_dialog(actor=actor, target=self.default_target(actor), combat=True)

        self.when_idle(go)

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
        system = system or self.state.info.system
        remembered = self._remembered.get((system, actor, combat), {})

        def rolled(req: RollRequest | None) -> None:
            if req is not None:
                # what the GM typed; the dialog offers again only what the system
                # declares remembered (Param.remember) and says so
                self._remembered[(req.system, req.actor, req.combat)] = dict(req.values)
                self.do_roll(req)

        self.app.push_screen(
            RollDialog(
                self.state,
                system=system,
                actor=actor,
                target=target,
                combat=combat,
                preset=preset,
                title=title,
                remembered=remembered,
                opposed=opposed,
            ),
            rolled,
        )

    def do_roll(self, req: RollRequest) -> None:
        rng = self.rng

        def fn(s: Session) -> Event:
            # the dialog filled the parameters once, as `gmdesk roll --save` fills them (what
            # it shows is the GM's: a source or Up switched off for this roll stays off)
            return s.roll(
                req.system,
                req.params,
                actor=req.actor,
                target=req.target,
                combat=req.combat,
                rng=rng,
                clock=req.clock,
                fill=False,  # the dialog filled them (core.session.params.fill_data)
                origins=req.origins,
            )

        def done(event: Event) -> None:
            entry = self.state.roll_entry(event.seq)
            if entry is None:
                self.say(event.summary)
                return
            if req.combat:
                lines = [attack_sentence(entry, self.state), *entry.changes]
            else:
                who = name_of(self.state, entry.actor, "GM")
                lines = [f"{who}: {headline(entry.record)} {entry.record.outcome}", *entry.changes]
            self.say("\n".join(lines))

        self.submit(fn, done)

    # -- the bestiary ---------------------------------------------------------------------------

    def action_add_from_bestiary(self) -> None:
        """ "Add from bestiary": numbered copies of a stat block join the encounter."""
        from gmdesk.tui.screens.bestiary import BestiaryDialog

        def go() -> None:
            if self.readonly:
                self.say("This session is open read-only.", error=True)
                return
            system = self.state.info.system
            try:
                name = get_spec(system).name
            except GmdeskError:
                name = system

            def added(event: Event | None) -> None:
                if event is None:
                    return
                ids = list(event.data.get("ids") or ())
                if ids and ids[0] in self.state.characters:
                    self.selected = ids[0]
                    self.remember_selection()
                    self.refresh_view()
                self.say(f"{event.summary} — {self.undo_hint()}")

            # the bestiary of the saves directory the desk lists (the session's own, else)
            saves = getattr(self.app, "saves_dir", None) or (self.session.path and self.session.path.parent)
            if saves is None:
                self.say("This session has no saves directory, so no bestiary.", error=True)
                return
            self.app.push_screen(BestiaryDialog(saves, system, name, rng=self.rng), added)

        self.when_idle(go)

    # -- undo / redo --------------------------------------------------------------------------

    def action_undo(self) -> None:
        def done(ev: Event | None) -> None:
            self.say("Nothing to undo." if ev is None else f"Undone: {_summary(ev)}", error=ev is None)

        self.submit(lambda s: s.undo(), done)

    def action_redo(self) -> None:
        def done(ev: Event | None) -> None:
            self.say("Nothing to redo." if ev is None else f"Redone: {_summary(ev)}", error=ev is None)

        self.submit(lambda s: s.redo(), done)

    # -- the log ----------------------------------------------------------------------------------

    def action_filter_log(self) -> None:
        state = self.state
        choices: list[tuple[Any, str]] = [(("", None), "Everything")]
        choices += [(("char", cid), f"Character: {c.name}") for cid, c in state.characters.items()]
        choices += [(("system", s), f"System: {s}") for s in system_ids()]

        def chosen(value: Any) -> None:
            if value is None:
                return
            kind, key = value
            log = self.rolllog
            log.set_filter(actor=key if kind == "char" else None, system=key if kind == "system" else None)
            self.say(f"Log: {log.count} roll(s) shown")

        self.app.push_screen(ChoiceDialog("Show the rolls of…", choices, title="Filter the log"), chosen)

    def action_focus_character(self) -> None:
        self.character.table.focus()
        self.say("Move to a sheet row and press s to spend one use.")

    def action_focus_log(self) -> None:
        self.rolllog.focus()

    def action_roll_details(self) -> None:
        self.rolllog.action_details()

    def action_copy_roll(self) -> None:
        self.rolllog.action_copy()

    # -- the command palette --------------------------------------------------------------------

    def commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        """Every move of the screen as (title, help, callback) for the command palette."""
        return desk_commands(self)


@functools.cache
def desk_class(system_id: str) -> type[MainScreen]:
    """The main screen of a session of ``system_id``: :class:`MainScreen` with the key
    bindings of the system's moves (Textual's bindings belong to a class); the base
    screen for a system that is not installed."""
    try:
        spec = get_spec(system_id)
    except GmdeskError:
        return MainScreen
    bindings = move_bindings(spec)
    if not bindings:
        return MainScreen
    return type("MainScreen", (MainScreen,), {"BINDINGS": bindings, "SYSTEM": system_id, "__module__": __name__})


def desk_classes() -> list[type[MainScreen]]:
    """The main screen of every installed system that binds keys of its own."""
    return [c for c in dict.fromkeys(desk_class(s) for s in system_ids()) if c is not MainScreen]


def _summary(event: Event) -> str:
    """What an undo / redo event did, in the words of the event it reverted:
    "Undo #12: Kara hits Bruno…" → "Kara hits Bruno… (#12)"."""
    text = getattr(event, "summary", "") or getattr(event, "type", "") or "a change"
    head, sep, rest = text.partition(": ")
    words = head.split()
    if sep and len(words) == 2 and words[0] in ("Undo", "Redo") and words[1].startswith("#"):
        return f"{rest} ({words[1]})"
    return text
