"""The GM's main screen: initiative | character on top, the roll log below, a status
line on top and the keys at the bottom.

The screen turns keys (and command-palette entries) into session calls and holds no
rules: every change is a session event (``Session.apply`` / ``Session.roll`` /
``undo`` / ``redo``). Session calls touch the disk, so they run one at a time, in
order, off the event loop in the app's session runner (:mod:`tui.runner`, through
:meth:`MainScreen.submit`); the screen redraws from the session's state when each one
is done. While one is running, actions that read the state wait for it
(:meth:`MainScreen.when_idle`), so a dialog never sees a half-made change.

The screen is assembled from parts it holds, each owning one group of moves and
working through the screen's :class:`~gmdesk.tui.screens.desk.DeskScreen` interface:

* ``rolls`` — :class:`~gmdesk.tui.screens.rolling.RollActions`: roll, attack;
* ``encounter`` — :class:`~gmdesk.tui.screens.encounter.EncounterActions`: turns,
  rounds, the initiative order;
* ``roster`` — :class:`~gmdesk.tui.screens.roster.RosterActions`: add (or from the
  bestiary), remove, hide / reveal characters, import a sheet;
* ``system_moves`` — :class:`~gmdesk.tui.screens.moves.SystemMoveActions`: the moves
  the session's system declares;
* ``session_moves`` — :class:`~gmdesk.tui.screens.sessionmoves.SessionActions`: undo,
  redo, a note, the settings.

The panes and the status line (:class:`~gmdesk.tui.widgets.sessionbar.SessionBar`)
are dumb widgets: the state flows down to them on every redraw. This module keeps the
layout, the messages of the panes (intent flowing up), the keys
(each binding's action delegates to its part), the roll log's view moves and the
command palette's list.

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

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

from gmdesk.core.dice import RandomSource
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Event, Session
from gmdesk.core.systems import character_sections, get_spec, system_ids
from gmdesk.tui.runner import SessionRunner
from gmdesk.tui.screens.confirm import ChoiceDialog
from gmdesk.tui.screens.desk import DeskScreen
from gmdesk.tui.screens.encounter import EncounterActions
from gmdesk.tui.screens.grouping import GroupActions
from gmdesk.tui.screens.moves import SystemMoveActions, move_bindings, move_commands
from gmdesk.tui.screens.rolldetails import RollDetails
from gmdesk.tui.screens.rolling import RollActions
from gmdesk.tui.screens.roster import RosterActions
from gmdesk.tui.screens.sessionmoves import SessionActions, settings_help
from gmdesk.tui.screens.tables import table_commands
from gmdesk.tui.widgets.character import CharacterPane
from gmdesk.tui.widgets.charedit import counter_event
from gmdesk.tui.widgets.initiative import InitiativePane
from gmdesk.tui.widgets.keybar import KeyBar
from gmdesk.tui.widgets.rolllog import RollLog
from gmdesk.tui.widgets.sessionbar import SessionBar

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


class DeskFooter(KeyBar):
    """The desk's key bar (the keys that read whole at its width, :class:`KeyBar`),
    redrawn only when the keys it shows change. (Textual's
    Footer rebuilds itself at every focus move; each rebuild is sent to the terminal,
    over SSH too.) While the roll dialog is open over the desk the bar shows the
    dialog's keys (the keys in force: the desk's wait); where the dialog hides the bar
    (a terminal no larger than the dialog, 80×24 among them) the bar is left as it
    is, costing nothing to open and close the dialog."""

    _shown: object = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        rolls = getattr(screen, "rolls", None)
        dialog = rolls.dialog if isinstance(rolls, RollActions) else None
        if dialog is not None and dialog.covers(self):
            return
        shown = (
            self.size.width,
            *(
                (key, active.binding.description, active.enabled, active.binding.show)
                for key, active in screen.active_bindings.items()
            ),
        )
        if shown == self._shown and self.children:
            return
        if screen.app.app_focus:  # (Textual's Footer waits for the terminal's focus)
            self._shown = shown
        super().bindings_changed(screen)


class MainScreen(DeskScreen):
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
        Binding(
            "equals_sign",
            "pin",
            "Pin / unpin",
            show=False,
            tooltip="Pin the selected entry's initiative (rolling again leaves it there), or release it",
            id="main.pin",
        ),
        Binding(
            "g",
            "group",
            "Group…",
            show=False,
            tooltip="Make characters one initiative group: one roll, one turn, one row",
            id="main.group",
        ),
        Binding(
            "G",
            "ungroup",
            "Ungroup",
            show=False,
            tooltip="Split the selected character's initiative group",
            id="main.ungroup",
        ),
        Binding("f", "filter_log", "Filter log", show=False, id="main.filter_log"),
        Binding("H", "toggle_hidden", "Hide/Reveal", show=False, id="main.reveal"),
        Binding(
            "v",
            "cycle_visibility",
            "Players see",
            show=False,
            tooltip="What the players see of the selected character: name only, name and wounds, or all",
            id="main.visibility",
        ),
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

    #: the focused widget. Textual's screens repaint the whole terminal when the focus
    #: moves (a screen's ``focused`` repaints it); the widgets that gain and lose the
    #: focus redraw themselves, so the desk's screen does not: a Tab in the roll
    #: dialog, or the dialog opening and closing, sends only what changed over SSH
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

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
        self.rolls = RollActions(self)
        self.encounter = EncounterActions(self)
        self.groups = GroupActions(self)
        self.roster = RosterActions(self)
        self.system_moves = SystemMoveActions(self, self.rolls)
        self.session_moves = SessionActions(self)

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield SessionBar("", id="session-bar")
        with Horizontal(id="main-top"):
            yield InitiativePane(id="initiative")
            yield CharacterPane(id="character")
        yield RollLog(id="rolllog")
        yield DeskFooter()

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

    def on_resize(self) -> None:
        self.rolls.place()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """While the roll dialog is open the focus stays in it (a click on the desk
        around it, on a terminal larger than the dialog, gives it back)."""
        dlg = self.rolls.dialog
        if dlg is not None and dlg not in event.widget.ancestors:
            dlg.focus_first()

    def refresh_view(self) -> None:
        state = self.state
        if self.selected not in state.characters:
            self.selected = next(iter(state.characters), None)
        self.query_one(SessionBar).show(state, self.readonly)
        self.initiative.set_state(state, self.selected)
        self.character.set_state(state, self.selected)
        self.rolllog.set_state(state)

    # -- messages from the widgets ---------------------------------------------------------------

    def on_initiative_pane_selected(self, message: InitiativePane.Selected) -> None:
        self.selected = message.char_id
        self.when_idle(lambda: self.character.set_state(self.state, self.selected))
        self.remember_selection()

    def on_character_pane_apply(self, message: CharacterPane.Apply) -> None:
        pane = self.character
        what = message.what
        if not what:  # told in the session's words for what changed ("Kara: Vitality 12 → 9")

            def told(ev: Event) -> None:
                self.say("\n".join(getattr(ev, "changes", ()) or ()) or ev.summary)
                pane.edit_result(None)

            self.submit(lambda s: s.apply(message.event), told, lambda err: pane.edit_result(err))
            return
        if message.event.get("type") in UNDO_NAMED:
            what = f"{what} — {self.undo_hint()}"
        self.apply(
            message.event, what, done=lambda _ev: pane.edit_result(None), error=lambda err: pane.edit_result(err)
        )

    def on_character_pane_add_counter(self, message: CharacterPane.AddCounter) -> None:
        message.stop()
        add_counter(self)

    def on_roll_log_details(self, message: RollLog.Details) -> None:
        log = self.rolllog
        self.app.push_screen(RollDetails(message.entry, self.state, log.line_text(log.cursor)))

    def on_roll_log_copy(self, message: RollLog.Copy) -> None:
        self.app.copy_to_clipboard(message.text)
        self.say("Roll copied to the clipboard")

    # -- the keys: each move is its part's ------------------------------------------------------

    def action_roll(self) -> None:
        self.rolls.roll()

    def action_attack(self) -> None:
        self.rolls.attack()

    def action_next_turn(self) -> None:
        self.encounter.next_turn()

    def action_prev_turn(self) -> None:
        self.encounter.prev_turn()

    def action_new_round(self) -> None:
        self.encounter.new_round()

    def action_initiative(self) -> None:
        self.encounter.initiative()

    def action_encounter_add(self) -> None:
        self.encounter.join()

    def action_encounter_remove(self) -> None:
        self.encounter.leave()

    def action_move(self, delta: int) -> None:
        self.encounter.move(delta)

    def action_delay(self) -> None:
        self.encounter.delay()

    def action_pin(self) -> None:
        self.encounter.pin()

    def action_group(self) -> None:
        self.groups.group()

    def action_ungroup(self) -> None:
        self.groups.ungroup()

    def action_end_encounter(self) -> None:
        self.encounter.end()

    def action_new_character(self) -> None:
        self.roster.new_character()

    def action_add_from_bestiary(self) -> None:
        self.roster.add_from_bestiary()

    def action_remove_character(self) -> None:
        self.roster.remove()

    def action_toggle_hidden(self) -> None:
        self.roster.toggle_hidden()

    def action_cycle_visibility(self) -> None:
        self.roster.cycle_visibility()

    def action_reveal_rolls(self) -> None:
        self.roster.reveal_rolls()

    def action_import_sheet(self) -> None:
        self.roster.import_sheet()

    def action_system_move(self, move_id: str) -> None:
        """Make the session's system's move ``move_id`` (its key or palette entry)."""
        self.system_moves.run(move_id)

    def action_undo(self) -> None:
        self.session_moves.undo()

    def action_redo(self) -> None:
        self.session_moves.redo()

    def action_note(self) -> None:
        self.session_moves.note()

    def action_settings(self) -> None:
        self.session_moves.settings()

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
        """Every move of the screen as (title, help, callback) for the command palette,
        the key it is bound to by default in the help (the palette shows the GM's
        current keys beside it); the session's system's moves after the encounter's.
        None while the roll dialog is open (as from a dialog screen)."""
        if self.rolls.dialog_open:
            return []
        out: list[tuple[str, str, Callable[[], Any]]] = [
            ("Roll…", "roll any system with live odds (r)", self.action_roll),
            ("Attack…", "the current combatant attacks; applies the descriptor (a)", self.action_attack),
            ("Next turn", "durations tick when a turn ends (n)", self.action_next_turn),
            ("Previous turn", "back one turn (p)", self.action_prev_turn),
            ("New round", "start the next round (R)", self.action_new_round),
            ("Roll initiative for all…", "the session's system, or typed numbers (i)", self.action_initiative),
            ("Roll initiative for all now", "default modifiers, no questions", self.encounter.initiative_for_all_now),
            ("Add character…", "name, side, kind, Vitality and the system's fields (c)", self.action_new_character),
            (
                "Add from bestiary…",
                "numbered copies of a stat block join the encounter (B)",
                self.action_add_from_bestiary,
            ),
            ("Remove character…", "remove the selected character from the session", self.action_remove_character),
            (
                "Join the encounter",
                "the selected character joins the initiative order (+)",
                self.action_encounter_add,
            ),
            (
                "Leave the encounter",
                "the selected character leaves the initiative order (-)",
                self.action_encounter_remove,
            ),
            ("Move up in the order", "([)", lambda: self.action_move(-1)),
            ("Move down in the order", "(])", lambda: self.action_move(1)),
            ("Delay", "the selected character acts after the next combatant (d)", self.action_delay),
            (
                "Pin / unpin initiative",
                "the selected entry keeps its number when initiative is rolled again, or is released (=)",
                self.action_pin,
            ),
            (
                "Group for initiative…",
                "characters roll once, take one turn, one row in the order; Enter on it opens it (g)",
                self.action_group,
            ),
            ("Ungroup", "the selected character's initiative group splits, each in its place (G)", self.action_ungroup),
            (
                "Hide from the players / Reveal to the players",
                "the selected character: the player view and the public chronicle leave it out while hidden (H)",
                self.action_toggle_hidden,
            ),
            (
                "What the players see: the next level",
                "of the selected character: name only → name and wounds → all → name only (v)",
                self.action_cycle_visibility,
            ),
            (
                "Reveal earlier rolls",
                "show the players the rolls the selected character made or took while hidden",
                self.action_reveal_rolls,
            ),
            *move_commands(self.system_moves),
            ("Undo", "revert the latest change (u)", self.action_undo),
            ("Redo", "re-apply what was undone (U, ctrl+y)", self.action_redo),
            ("Filter the log…", "by character or system (f)", self.action_filter_log),
            ("Roll details", "the full breakdown of the roll under the log cursor", self.action_roll_details),
            ("Copy roll", "copy the roll under the log cursor to the clipboard", self.action_copy_roll),
            ("Focus the roll log", "", self.action_focus_log),
            ("Add a note", "a line in the session's log", self.action_note),
            ("Session settings…", settings_help(self.state.info.system), self.action_settings),
            *table_commands(self),
            ("End the encounter…", "empty the initiative order, round back to 0", self.action_end_encounter),
        ]
        if "sheet" in character_sections(self.state.info.system):  # the system keeps descriptor sheets
            out.append(
                ("Import a descriptor sheet…", "read a sheet file for the selected character", self.action_import_sheet)
            )
            out.append(("Spend a use", "s on a sheet row of the character pane", self.action_focus_character))
        out.extend(self._counter_commands())
        return out

    def _counter_commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        """Add a counter to the selected character; spend and give back one use of each
        of its counters."""
        ch = self.state.characters.get(self.selected) if self.selected is not None else None
        out: list[tuple[str, str, Callable[[], Any]]] = [
            (
                "Add a counter…",
                "reactions, legendary actions: full again each round, turn or night",
                functools.partial(add_counter, self),
            )
        ]
        if ch is None:
            return out
        for i, x in enumerate(ch.counters):
            for what, title, key in (("use", "Spend", "s"), ("restore", "Give back", "S")):
                event, said = counter_event(ch, i, what)
                out.append(
                    (
                        f"{title} one {x.label} ({ch.name})",
                        f"{x.left}/{x.maximum} left, full again each {x.reset} ({key} on its row)",
                        functools.partial(self.apply, event, said),
                    )
                )
        return out


def add_counter(desk: MainScreen) -> None:
    """Ask for a counter of the selected character (its name, maximum and when it fills
    up again) and add it; the dialog stays open until the session accepts it."""
    from gmdesk.tui.screens.confirm import FormDialog
    from gmdesk.tui.widgets.form import FormField

    cid = desk.need_selected()
    if cid is None:
        return
    ch = desk.state.characters[cid]
    resets = [("round", "each round"), ("turn", f"at the start of {ch.name}'s turn"), ("night", "each night")]

    def call(values: dict[str, Any]) -> Callable[[Session], Any]:
        typed = str(values["max"]).strip()
        doc = {
            "type": "counter.add",
            "id": cid,
            "label": values["label"],
            "max": int(typed) if typed.isdigit() else typed,
            "reset": values["reset"],
        }
        return lambda s: s.apply(doc)

    desk.app.push_screen(
        FormDialog(
            f"A counter for {ch.name}",
            [
                FormField("label", "Counter", "text", placeholder="e.g. Reactions"),
                FormField("max", "Maximum", "text", "1"),
                FormField("reset", "Full again", "choice", "round", resets),
            ],
            commit=call,
            verb="add",
            hint="s spends, S gives back (on its row)",
        ),
        lambda ev: desk.say(ev.summary) if ev is not None else None,
    )


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
