"""The GM's main screen: initiative | character on top, the roll log below, a status
line on top and the keys at the bottom.

The screen turns keys (and command-palette entries) into session calls and holds no
rules: every change is a session event (``Session.apply`` / ``Session.roll`` /
``undo`` / ``redo``). Session calls touch the disk, so they run one at a time, in
order, in a thread worker (:meth:`MainScreen.submit`); the screen redraws from the
session's state when each one is done. While one is running, actions that read the
state wait for it (:meth:`MainScreen.when_idle`), so a dialog never sees a half-made
change.

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
  system reads (4d2: own shift total; 1d6x4: Reflex from the sheet; others 0) —
  the GM can change any of them or type a number instead of rolling.
* A Possibility is spent (``P``) on the roll under the log cursor when it is a
  torg-2d10 roll, else on the latest torg-2d10 roll; its roller spends it.
* Resume: the selected character is kept in the save's view state
  (``ui_set("selected", id)``) and restored on open; round and turn are state.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.render import headline
from gmdesk.core.session.offers import buyoff_choices, pending_clock_progress
from gmdesk.core.systems import SYSTEM_IDS
from gmdesk.core.systems.base import parse_int
from gmdesk.tui.screens.confirm import ChoiceDialog, ConfirmDialog, FormDialog, FormField, InputDialog
from gmdesk.tui.screens.dialog import ui_message
from gmdesk.tui.screens.roll import RollDetails, RollDialog, RollRequest
from gmdesk.tui.widgets.character import CharacterPane
from gmdesk.tui.widgets.common import TURN_MARKER, attack_sentence, name_of
from gmdesk.tui.widgets.initiative import InitiativePane
from gmdesk.tui.widgets.rolllog import RollLog

# Preset parameters of the system moves that open the roll dialog: move -> system -> params.
# "opposed" in a 4d2 or torg-2d10 session is a roll at a target (4d2: the target's shifts
# cancel the roller's); fold and maneuver are 4d2 moves whatever the session's system.
MOVE_PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "opposed": {
        "fudge": {"opposed": True, "vs_trait": "Fair"},
        "4d6": {"vs_bonus": "0"},
        "1d6x4": {"vs_bonus": "0"},
    },
    "fold": {"4d2": {"fold": "positive"}},
    "maneuver": {"4d2": {"maneuver": True}},
}

#: dialog fields that come from the actor's current state, never from the last roll
NOT_REMEMBERED = ("possibilities", "up", "stymied", "shift", "adv", "clock", "opposed")

MOVE_TITLES = {
    "opposed": "Opposed roll / two-way Test / contest",
    "fold": "Folded roll (4d2)",
    "maneuver": "Maneuver (4d2)",
}


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

#: how far back in the log P / C look for the torg roll to spend on or cancel
TORG_LOOKBACK = 500


@dataclass
class Op:
    """One session call waiting for (or running in) the worker."""

    fn: Callable[[Any], Any]
    done: Callable[[Any], None] | None = None
    error: Callable[[str], None] | None = None
    refresh: bool = True


class MainScreen(Screen):
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
        Binding("o", "preset('opposed')", "Opposed roll", show=False, id="main.opposed"),
        Binding("P", "spend_possibility", "Spend Possibility", show=False, id="main.spend_possibility"),
        Binding("C", "cancel_possibility", "Cancel Possibility", show=False, id="main.cancel_possibility"),
        Binding("h", "heal", "Healing", show=False, id="main.heal"),
        Binding("k", "clock_tick", "Tick clock", show=False, id="main.clock_tick"),
        Binding("K", "clock_add", "Add clock", show=False, id="main.clock_add"),
        Binding("f", "filter_log", "Filter log", show=False, id="main.filter_log"),
    ]

    class OpFinished(Message):
        def __init__(self, op: Op, result: Any, error: str | None) -> None:
            super().__init__()
            self.op = op
            self.result = result
            self.error = error

    def __init__(
        self, session: Any, *, rng: Any = None, readonly: bool = False, lock: threading.Lock | None = None
    ) -> None:
        super().__init__()
        self.session = session
        self.rng = rng
        self.readonly = readonly
        self.selected: Any = None
        self._op_queue: deque[Op] = deque()
        self._op_current: Op | None = None
        self._idle_callbacks: list[Callable[[], None]] = []
        self.session_lock = lock or threading.Lock()
        self._remembered: dict[tuple, dict] = {}
        self._select_queued = False

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

    @property
    def state(self) -> Any:
        return self.session.state

    @property
    def initiative(self) -> InitiativePane:
        return self.query_one(InitiativePane)

    @property
    def character(self) -> CharacterPane:
        return self.query_one(CharacterPane)

    @property
    def rolllog(self) -> RollLog:
        return self.query_one(RollLog)

    def refresh_view(self) -> None:
        state = self.state
        if self.selected not in state.characters:
            self.selected = next(iter(state.characters), None)
        self.query_one("#session-bar", Static).update(self._bar_text(state))
        self.initiative.set_state(state, self.selected)
        self.character.set_state(state, self.selected)
        self.rolllog.set_state(state)

    def _bar_text(self, state: Any) -> Text:
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

    # -- running session calls -----------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A session call is running or waiting."""
        return self._op_current is not None or bool(self._op_queue)

    def submit(
        self,
        fn: Callable[[Any], Any],
        done: Callable[[Any], None] | None = None,
        error: Callable[[str], None] | None = None,
        *,
        refresh: bool = True,
    ) -> None:
        """Run ``fn(session)`` in the worker after the calls already queued; then
        ``done(result)`` or ``error(message)`` (default: a notification) and a redraw."""
        if self.readonly:
            self._fail(error, "this session is open read-only")
            return
        self._op_queue.append(Op(fn, done, error, refresh))
        self._pump()

    def when_idle(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` now if no session call is pending, else right after them."""
        if self.busy:
            self._idle_callbacks.append(callback)
        else:
            callback()

    def _pump(self) -> None:
        if self._op_current is not None:
            return
        if not self._op_queue:
            callbacks, self._idle_callbacks = self._idle_callbacks, []
            for cb in callbacks:
                cb()
            return
        op = self._op_current = self._op_queue.popleft()
        self.run_worker(lambda: self._run_op(op), thread=True, group="session", exit_on_error=False)

    def _run_op(self, op: Op) -> None:
        error = None
        result = None
        with self.session_lock:
            try:
                result = op.fn(self.session)
            except GmdeskError as e:
                error = ui_message(e)
            except Exception as e:  # a bug must not kill the GM's session
                error = f"{type(e).__name__}: {e}"
                self.app.log.error(f"session call failed: {e!r}")
        self.post_message(self.OpFinished(op, result, error))

    def on_main_screen_op_finished(self, message: OpFinished) -> None:
        op = message.op
        self._op_current = None
        try:
            if message.error is not None:
                self._fail(op.error, message.error)
            elif op.done is not None:
                op.done(message.result)
            if op.refresh:
                self.refresh_view()
            take = getattr(self.session, "take_notices", None)
            for note in take() if take is not None else ():  # e.g. a compaction that failed: said once
                self.say(note, error=True)
        finally:
            self._pump()

    def _fail(self, handler: Callable[[str], None] | None, message: str) -> None:
        if handler is not None:
            handler(message)
        else:
            self.say(message, error=True)

    def say(self, message: str, *, error: bool = False) -> None:
        """Tell the GM (a notification; errors stay a little longer)."""
        self.notify(message, severity="error" if error else "information", timeout=6 if error else 4)

    def apply(
        self,
        event: dict,
        what: str = "",
        *,
        done: Callable[[Any], None] | None = None,
        error: Callable[[str], None] | None = None,
    ) -> None:
        """Apply one session event; say ``what`` (else the session's summary) when it is done."""

        def ok(ev: Any) -> None:
            if what or getattr(ev, "summary", ""):
                self.say(what or ev.summary)
            if done is not None:
                done(ev)

        self.submit(lambda s: s.apply(event), ok, error)

    # -- who is who ---------------------------------------------------------------------------------

    def acting(self) -> Any:
        """The current combatant once the encounter runs, else the selected character."""
        cur = self.state.encounter.current
        return cur.char_id if cur is not None else self.selected

    def default_target(self, actor: Any) -> Any:
        return self.state.default_target(actor)

    def able(self, cid: Any) -> Any:
        """``cid`` if that character can act (roll for an action), else None — and the GM
        is told why (the Unconscious and the Dead take no action)."""
        c = self.state.characters.get(cid) if cid is not None else None
        if c is not None and not c.can_act:
            self.say(f"{c.name} is {c.status.capitalize()} and cannot act.", error=True)
            return None
        return cid

    def _need_selected(self) -> Any:
        if self.selected is None:
            self.say("No character selected: c adds one.", error=True)
        return self.selected

    # -- messages from the widgets ---------------------------------------------------------------

    def on_initiative_pane_selected(self, message: InitiativePane.Selected) -> None:
        self.selected = message.char_id
        self.when_idle(lambda: self.character.set_state(self.state, self.selected))
        self.remember_selection()

    def remember_selection(self) -> None:
        """Keep the selected character in the save's view state (for resuming). Moving
        through the list quickly writes once: a queued write takes the latest value."""
        if self.readonly or self._select_queued:
            return
        self._select_queued = True

        def fn(s: Any) -> None:
            self._select_queued = False
            s.ui_set("selected", self.selected)

        self.submit(fn, refresh=False)

    def undo_hint(self) -> str:
        """ "u to undo", with the key undo is bound to now (the GM's keymap may move it)."""
        for active in self.active_bindings.values():
            if active.binding.id == "main.undo" and active.node is self:
                return f"{self.app.get_key_display(active.binding)} to undo"
        return "u to undo"

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
        actor: Any = None,
        target: Any = None,
        combat: bool = False,
        system: str | None = None,
        preset: dict | None = None,
        title: str | None = None,
    ) -> None:
        system = system or self.state.info.system
        remembered = self._remembered.get((system, actor, combat), {})

        def rolled(req: RollRequest | None) -> None:
            if req is not None:
                self._remembered[(req.system, req.actor, req.combat)] = {
                    k: v for k, v in req.values.items() if k not in NOT_REMEMBERED
                }
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
            ),
            rolled,
        )

    def do_roll(self, req: RollRequest) -> None:
        rng = self.rng

        def fn(s: Any) -> Any:
            # what the dialog shows is the GM's (a source or Up switched off for this roll
            # stays off); the session fills the rest as for `gmdesk roll --save`
            return s.roll(
                req.system,
                req.params,
                actor=req.actor,
                target=req.target,
                combat=req.combat,
                rng=rng,
                clock=req.clock,
                given=req.given,
            )

        def done(event: Any) -> None:
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

    # -- turns and the encounter ------------------------------------------------------------------

    def action_next_turn(self) -> None:
        self.submit(lambda s: s.apply({"type": "turn.next"}), self._say_turn)

    def action_prev_turn(self) -> None:
        self.submit(lambda s: s.apply({"type": "turn.prev"}), self._say_turn)

    def action_new_round(self) -> None:
        self.submit(lambda s: s.apply({"type": "round.new"}), self._say_turn)

    def _say_turn(self, event: Any) -> None:
        """Say whose turn it is (and which durations ended); the pane follows the turn."""
        self.say("\n".join([event.summary, *event.changes]))
        cur = self.state.encounter.current
        if cur is not None:
            self.selected = cur.char_id
            self.remember_selection()

    def action_encounter_add(self) -> None:
        def go() -> None:
            cid = self._need_selected()
            if cid is None:
                return
            state = self.state
            if state.encounter.index_of(cid) is not None:
                self.say(f"{name_of(state, cid)} is already in the encounter.", error=True)
                return
            name = name_of(state, cid)

            def joined(value: Any) -> None:
                if value is not None:
                    self.say(f"{name} joins the encounter at initiative {value}")

            ladder = " or a ladder level" if state.info.system == "fudge" else ""
            self.app.push_screen(
                InputDialog(
                    f"Initiative for {name} (a number{ladder}; empty rolls it)",
                    title="Join the encounter",
                    validate=lambda text: self._typed_initiative(text),
                    commit=lambda text: self._join(cid, text.strip()),
                    label="Initiative",
                    verb="join",
                ),
                joined,
            )

        self.when_idle(go)

    def _typed_initiative(self, text: str, label: str = "initiative") -> int | None:
        """A typed initiative (or modifier): a whole number, or in a fudge session a ladder
        level ("Good", "Superb +1") as the CLI takes it; None when empty."""
        if not text.strip():
            return None
        if self.state.info.system == "fudge":
            from gmdesk.core.systems.fudge import parse_level

            return parse_level(label, text)
        return parse_int(label, text)

    def _join(self, cid: Any, typed: str) -> Callable[[Any], Any]:
        """The session call that puts ``cid`` in the encounter: at the typed value, else at
        an initiative rolled now with the session's system (and fudge method), logged
        with its dice like ``i``."""
        rng = self.rng
        value = self._typed_initiative(typed)

        def fn(s: Any) -> Any:
            s.join_encounter(cid, rng, value=value)
            c = s.state.encounter.index_of(cid)
            return s.state.encounter.order[c].initiative if c is not None else value

        return fn

    def action_encounter_remove(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)
        if self.state.encounter.index_of(cid) is None:
            self.say(f"{name} is not in the encounter.", error=True)
            return
        self.apply({"type": "encounter.remove", "id": cid}, f"{name} leaves the encounter — {self.undo_hint()}")

    def action_move(self, delta: int) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        index = self.state.encounter.index_of(cid)
        if index is None:
            self.say(f"{name_of(self.state, cid)} is not in the encounter.", error=True)
            return
        new = max(0, min(len(self.state.encounter.order) - 1, index + int(delta)))
        if new != index:
            self.apply({"type": "encounter.move", "id": cid, "index": new})

    def action_preset(self, move: str) -> None:
        def go() -> None:
            system = self.state.info.system
            preset = MOVE_PRESETS.get(move, {})
            if system not in preset and move != "opposed":
                system = next(iter(preset), system)  # a 4d2 move in another system's session
            actor = self.able(self.acting())
            target = self.default_target(actor) if move == "opposed" else None
            self.open_roll_dialog(
                actor=actor, target=target, system=system, preset=preset.get(system, {}), title=MOVE_TITLES.get(move)
            )

        self.when_idle(go)

    def action_delay(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)
        if self.state.encounter.index_of(cid) is None:
            self.say(f"{name} is not in the encounter.", error=True)
            return
        event = {"type": "encounter.delay", "id": cid}
        self.submit(
            lambda s: s.apply(event), lambda ev: self.say(f"{ev.summary or name + ' delays'} — {self.undo_hint()}")
        )

    def initiative_modifier(self, cid: Any) -> int:
        """What the session's system adds to this character's initiative roll (the
        session knows: 4d2 own shift total, 1d6x4 Reflex, else 0)."""
        try:
            return int(self.session.initiative_modifier(cid))
        except (GmdeskError, KeyError):
            return 0

    def action_initiative(self) -> None:
        self.when_idle(self._open_initiative)

    def initiative_ids(self) -> list[Any]:
        """Who ``i`` rolls for: everyone in the encounter (in order), then every other
        character but the Dead (they join the encounter)."""
        state = self.state
        ids = [c.char_id for c in state.encounter.order if c.char_id in state.characters]
        ids += [cid for cid, c in state.characters.items() if cid not in ids and c.status != "dead"]
        return ids

    def _open_initiative(self) -> None:
        state = self.state
        ids = self.initiative_ids()
        if not ids:
            self.say("No characters yet: c adds one.", error=True)
            return
        fields = []
        names = [name_of(state, cid) for cid in ids]
        for i, cid in enumerate(ids):
            joins = "" if state.encounter.index_of(cid) is not None else " +"
            fields.append(FormField(f"m{i}", f"{names[i]}{joins}  mod", "text", str(self.initiative_modifier(cid))))
            fields.append(FormField(f"v{i}", "or value", "text", "", placeholder="roll", same_row=True))

        def read(values: dict) -> list[tuple[Any, int, int | None]]:
            plan = []
            for i, cid in enumerate(ids):
                mod = self._typed_initiative(values[f"m{i}"], f"{names[i]} mod")
                typed = self._typed_initiative(values[f"v{i}"], f"{names[i]} value")
                plan.append((cid, mod or 0, typed))
            return plan

        def done(values: dict | None) -> None:
            if values is not None:
                self._roll_initiative(read(values))

        fudge = state.info.system == "fudge"
        method = f", {state.info.settings.get('fudge_method', '2d3')}" if fudge else ""
        self.app.push_screen(
            FormDialog(
                f"Initiative ({state.info.system}{method})",
                fields,
                validate=read,
                verb="roll (typed values are kept)",
                hint="+ joins the encounter",
            ),
            done,
        )

    def roll_initiative_for_all(self) -> None:
        """Roll everyone's initiative with the default modifiers (no dialog)."""
        self._roll_initiative([(cid, self.initiative_modifier(cid), None) for cid in self.initiative_ids()])

    def _roll_initiative(self, plan: list[tuple[Any, int, int | None]]) -> None:
        """One ``initiative.set``: typed values as typed, the rest rolled by the session
        (its system and fudge method), each roll logged with its dice."""
        rng = self.rng

        def fn(s: Any) -> Any:
            return s.roll_initiative(
                [cid for cid, _, _ in plan],
                rng,
                modifiers={cid: mod for cid, mod, _ in plan},
                values={cid: typed for cid, _, typed in plan if typed is not None},
            )

        def done(_ev: Any) -> None:
            state = self.state
            order = ", ".join(f"{name_of(state, c.char_id)} {c.initiative}" for c in state.encounter.order)
            self.say(f"Initiative: {order}")

        self.submit(fn, done)

    # -- characters ---------------------------------------------------------------------------

    def action_new_character(self) -> None:
        state = self.state
        fields = [
            FormField("name", "Name", "text", ""),
            FormField("side", "Side", "choice", "PC", (("PC", "PC (player)"), ("NPC", "NPC"))),
            FormField("kind", "Kind", "choice", "organic", (("organic", "organic"), ("inorganic", "inorganic"))),
            FormField("vitality", "Vitality", "text", "", placeholder="default Vitality"),
            FormField("possibilities", "Possibilities", "text", "", placeholder="torg: e.g. 3"),
            FormField("reality_rated", "Reality-rated (torg)", "bool", state.info.system == "torg-2d10"),
            FormField("join", "Join the encounter (rolls initiative)", "bool", bool(state.encounter.order)),
        ]

        def validate(v: dict) -> None:
            if not v["name"].strip():
                raise ParamError("name", "must not be empty")
            _check_optional_int(v["vitality"], "vitality")
            _check_optional_int(v["possibilities"], "possibilities", 0)

        def commit(v: dict) -> Callable[[Any], Any]:
            character: dict[str, Any] = {
                "name": v["name"].strip(),
                "side": v["side"],
                "kind": v["kind"],
                "reality_rated": bool(v["reality_rated"]),
            }
            if v["vitality"].strip():
                character["vitality"] = int(v["vitality"])
            if v["possibilities"].strip():
                character["possibilities"] = int(v["possibilities"])
            return self._add_character(character, join=bool(v["join"]))

        def done(added: Any) -> None:
            if added is None:
                return
            cid, character, join = added
            if cid is not None:
                self.selected = cid
                self.remember_selection()
            self.say(f"{character['name']} added" + (" to the encounter" if join else ""))

        # the dialog stays open until the session accepted the character (a refused
        # name keeps everything typed)
        self.app.push_screen(FormDialog("New character", fields, validate=validate, commit=commit, verb="add"), done)

    def _add_character(self, character: dict, *, join: bool) -> Callable[[Any], Any]:
        """The session call that adds ``character`` (and rolls its initiative if it
        joins); it returns ``(id, character, join)``."""
        rng = self.rng

        def fn(s: Any) -> Any:
            event = s.apply({"type": "character.add", "character": character})
            cid = event.data.get("id")
            if join and cid is not None:
                s.join_encounter(cid, rng)  # the initiative roll is logged with its dice
            return cid, character, join

        return fn

    def action_remove_character(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)

        listed = list(self.initiative.row_ids)
        at = listed.index(cid) if cid in listed else -1
        # the selection stays where it was in the list: the next character, else the one above
        neighbour = next((c for c in listed[at + 1 :] + listed[:at][::-1] if c != cid), None) if at >= 0 else None

        def removed(_ev: Any) -> None:
            if neighbour in self.state.characters:
                self.selected = neighbour
                self.remember_selection()

        def done(yes: bool | None) -> None:
            if yes:
                self.apply(
                    {"type": "character.remove", "id": cid}, f"{name} removed — {self.undo_hint()}", done=removed
                )

        self.app.push_screen(
            ConfirmDialog(f"Remove {name} from the session? (u undoes it)", yes="Remove", title="Remove character"),
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

    def action_end_encounter(self) -> None:
        def done(yes: bool | None) -> None:
            if yes:
                self.apply({"type": "encounter.end"}, "The encounter ends (u undoes it)")

        self.app.push_screen(
            ConfirmDialog(
                "End the encounter? The initiative order empties and the round count goes back to 0. (u undoes it)",
                yes="End it",
                title="End the encounter",
            ),
            done,
        )

    def action_import_sheet(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)

        def commit(text: str) -> Callable[[Any], Any]:
            file = text.strip()

            def fn(s: Any) -> Any:
                from pathlib import Path

                if not file:
                    raise ParamError("file", "type the path of a sheet file")
                try:
                    content = Path(file).expanduser().read_text(encoding="utf-8")
                except OSError as e:
                    raise GmdeskError(f"{file}: {e.strerror or e}") from None
                s.apply({"type": "sheet.import", "id": cid, "text": content})
                return file

            return fn

        def imported(file: Any) -> None:
            if file is not None:
                self.say(f"{name}: sheet imported from {file}")

        self.app.push_screen(
            InputDialog(
                f"Descriptor sheet file for {name}",
                placeholder="path/to/sheet.txt",
                title="Import a sheet",
                commit=commit,
                label="Sheet file",
                verb="import",
            ),
            imported,
        )

    def action_settings(self) -> None:
        """The session's settings as a form (tui.screens.settings); what changed is one
        ``session.settings`` event, undoable."""
        from gmdesk.tui.screens.settings import SettingsDialog

        def done(event: Any) -> None:
            if event is not None:
                self.say("\n".join([event.summary, *event.changes]))

        self.when_idle(
            lambda: self.app.push_screen(SettingsDialog(self.state.info.settings, self.state.info.system), done)
        )

    def action_note(self) -> None:
        def commit(text: str) -> Callable[[Any], Any]:
            return lambda s: s.apply({"type": "note", "text": text.strip()}) if text.strip() else None

        def done(event: Any) -> None:
            if event is not None:
                self.say("Note added")

        self.app.push_screen(
            InputDialog("Note for the log", title="Note", commit=commit, label="Note", verb="add to the log"), done
        )

    # -- Possibilities, damage, healing -----------------------------------------------------------

    def _torg_entry(self) -> Any:
        entry = self.rolllog.current_entry
        if entry is not None and entry.record.system == "torg-2d10" and getattr(entry, "kind", "roll") == "roll":
            return entry
        # A Possibility goes on a recent roll: look back over the last few hundred
        # entries only (reading an entry's record parses it; the history can be long).
        rolls = self.state.rolls
        for e in reversed(rolls[-TORG_LOOKBACK:] if len(rolls) > TORG_LOOKBACK else rolls):
            if getattr(e, "kind", "roll") == "roll" and e.record.system == "torg-2d10":
                return e
        return None

    def action_spend_possibility(self) -> None:
        def go() -> None:
            entry = self._torg_entry()
            if entry is None:
                self.say("No torg-2d10 roll to spend a Possibility on.", error=True)
                return
            spender = entry.actor if entry.actor is not None else self.selected
            self._spend(entry, spender)

        self.when_idle(go)

    def _spend(self, entry: Any, spender: Any) -> None:
        rng = self.rng
        seq = entry.seq
        name = name_of(self.state, spender)

        def fn(s: Any) -> Any:
            return s.spend_possibility(spender, seq, rng)

        def done(_ev: Any) -> None:
            new = self.state.roll_entry(seq)
            rec = new.record if new is not None else None
            self.say(
                f"{name} spends a Possibility on #{seq}: now {headline(rec)} {rec.outcome}"
                if rec is not None
                else f"{name} spends a Possibility"
            )

        self.submit(fn, done)

    def action_cancel_possibility(self) -> None:
        def go() -> None:
            entry = self._torg_entry()
            if entry is None or not entry.record.get("possibilities"):
                self.say("No Possibility to cancel: only a spent Possibility can be cancelled.", error=True)
                return
            state = self.state
            choices = [
                (cid, f"{c.name} ({c.possibilities} left)")
                for cid, c in state.characters.items()
                if cid != entry.actor and c.reality_rated
            ]
            if not choices:
                self.say("Nobody else is reality-rated: no one can cancel.", error=True)
                return
            seq = entry.seq

            def chosen(cid: Any) -> None:
                if cid is not None:
                    self.apply(
                        {"type": "possibility.cancel", "id": cid, "roll": seq},
                        f"{name_of(self.state, cid)} cancels the Possibility on #{seq}",
                    )

            default = self.selected if self.selected != entry.actor else None
            self.app.push_screen(
                ChoiceDialog(
                    f"Who cancels the Possibility on roll #{seq}?",
                    choices,
                    title="Cancel a Possibility",
                    selected=default,
                ),
                chosen,
            )

        self.when_idle(go)

    def action_buyoff(self) -> None:
        """Buy off damage just taken: the latest wound, one Enter away; older wounds are
        listed below it with their age, for the GM who means one of them."""
        cid = self._need_selected()
        if cid is None:
            return
        ch = self.state.characters[cid]
        if not ch.wounds:
            self.say(f"{ch.name} has no damage to buy off.", error=True)
            return
        choices = buyoff_choices(self.state, cid)

        def chosen(index: Any) -> None:
            if index is None:
                return
            pick = next(c for c in choices if c.index == index)
            doc: dict[str, Any] = {"type": "damage.buyoff", "id": cid}
            if not pick.latest:
                doc["wound"] = index  # an older wound, picked explicitly
            self.apply(doc, f"{ch.name} buys off {pick.text} with a Possibility")

        if len(choices) == 1:
            chosen(choices[0].index)
            return
        labels = [(c.index, f"{c.text} — {'latest, ' if c.latest else ''}{c.age}") for c in choices]
        self.app.push_screen(
            ChoiceDialog(
                f"{ch.name} buys off which damage? (a Possibility)",
                labels,
                title="Buy off damage",
                selected=choices[0].index,
            ),
            chosen,
        )

    def action_heal(self) -> None:
        def go() -> None:
            state = self.state
            if not state.characters:
                self.say("No characters yet.", error=True)
                return
            healers = [(cid, c.name) for cid, c in state.characters.items() if c.can_act]
            patients = [(cid, c.name) for cid, c in state.characters.items() if c.status != "dead"]
            if not healers or not patients:
                self.say(
                    "Nobody can heal (the Unconscious and the Dead cannot act)."
                    if not healers
                    else "Nobody to heal: the Dead stay dead.",
                    error=True,
                )
                return
            ids = {cid for cid, _ in healers}
            healer = self.acting() if self.acting() in ids else healers[0][0]
            patient = self.selected if self.selected in {cid for cid, _ in patients} else patients[0][0]
            fields = [
                FormField("healer", "Healer", "choice", healer, healers),
                FormField("target", "Patient", "choice", patient, patients),
            ]

            def done(v: Any) -> None:
                if v is None:
                    return
                healer, target = v
                p = self.state.characters.get(target)
                if p is not None:
                    self.say(
                        f"{name_of(self.state, healer)} heals {p.name}: "
                        f"Vitality {p.vitality_current}/{p.vitality_default}"
                    )

            # the dialog stays open until the session accepted the healing (a refusal,
            # e.g. a healer without a sheet, shows in it)
            self.app.push_screen(
                FormDialog(
                    "Healing Ability (1d6x4)",
                    fields,
                    commit=lambda v: self._heal(v["healer"], v["target"]),
                    verb="heal d6 (never above the default)",
                ),
                done,
            )

        self.when_idle(go)

    def _heal(self, healer: Any, target: Any) -> Callable[[Any], Any]:
        rng = self.rng

        def fn(s: Any) -> Any:
            s.heal(healer, target, rng)
            return healer, target

        return fn

    def action_new_day(self) -> None:
        def done(yes: bool | None) -> None:
            if yes:
                self.apply({"type": "day.new"}, "A new day: every current value is back to its default")

        self.app.push_screen(
            ConfirmDialog(
                "Start a new day? Every current value (uses too) returns to its "
                "default; the Dead stay dead. (u undoes it)",
                yes="New day",
                title="New day",
            ),
            done,
        )

    # -- clocks ---------------------------------------------------------------------------------

    def action_clock_add(self) -> None:
        fields = [FormField("name", "Clock name", "text", ""), FormField("segments", "Segments", "text", "4")]

        def validate(v: dict) -> None:
            if not v["name"].strip():
                raise ParamError("name", "must not be empty")
            parse_int("segments", v["segments"], 1)

        def commit(v: dict) -> Callable[[Any], Any]:
            event = {"type": "clock.add", "name": v["name"].strip(), "segments": int(v["segments"])}
            return lambda s: s.apply(event)

        def done(event: Any) -> None:
            if event is not None:
                self.say(f"Clock {event.data.get('name')} added")

        self.app.push_screen(FormDialog("Add a clock", fields, validate=validate, commit=commit, verb="add"), done)

    def action_clock_tick(self) -> None:
        clocks = list(self.state.clocks.values())
        if not clocks:
            self.say("No clocks yet: K adds one.", error=True)
            return
        # the progress the latest 4d6 roll earned (and no clock took yet) is the default
        offer = pending_clock_progress(self.state)
        halves0 = str(offer.halves) if offer is not None else "2"
        fields = [
            FormField("name", "Clock", "choice", clocks[0].name, [(c.name, c.name) for c in clocks]),
            FormField("halves", "Half segments", "text", halves0, placeholder="2 = one segment; -1 takes back"),
        ]
        hint = f"From roll #{offer.roll_seq}: {offer.outcome}, {offer.effect} effect" if offer is not None else ""

        def validate(v: dict) -> None:
            parse_int("halves", v["halves"])

        def commit(v: dict) -> Callable[[Any], Any]:
            halves = int(v["halves"])
            doc: dict[str, Any] = {"type": "clock.tick", "name": v["name"], "halves": halves}
            if offer is not None and halves == offer.halves:
                doc["roll"] = offer.roll_seq  # the roll's progress, taken
            return lambda s: s.apply(doc)

        def done(event: Any) -> None:
            if event is not None:
                halves = int(event.data.get("halves", 0))
                self.say(f"Clock {event.data.get('name')} {'+' if halves >= 0 else ''}{halves / 2:g} segment(s)")

        self.app.push_screen(
            FormDialog("Tick a clock", fields, validate=validate, hint=hint, commit=commit, verb="tick"), done
        )

    # -- undo / redo --------------------------------------------------------------------------

    def action_undo(self) -> None:
        def done(ev: Any) -> None:
            self.say("Nothing to undo." if ev is None else f"Undone: {_summary(ev)}", error=ev is None)

        self.submit(lambda s: s.undo(), done)

    def action_redo(self) -> None:
        def done(ev: Any) -> None:
            self.say("Nothing to redo." if ev is None else f"Redone: {_summary(ev)}", error=ev is None)

        self.submit(lambda s: s.redo(), done)

    # -- the log ----------------------------------------------------------------------------------

    def action_filter_log(self) -> None:
        state = self.state
        choices: list[tuple[Any, str]] = [(("", None), "Everything")]
        choices += [(("char", cid), f"Character: {c.name}") for cid, c in state.characters.items()]
        choices += [(("system", s), f"System: {s}") for s in SYSTEM_IDS]

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

    def commands(self) -> list[tuple[str, str, Callable[[], None]]]:
        """Every move of the screen as (title, help, callback) for the command palette."""
        c = [
            ("Roll…", "roll any system with live odds (r)", self.action_roll),
            ("Attack…", "the current combatant attacks; applies the descriptor (a)", self.action_attack),
            ("Next turn", "durations tick when a turn ends (n)", self.action_next_turn),
            ("Previous turn", "back one turn (p)", self.action_prev_turn),
            ("New round", "start the next round (R)", self.action_new_round),
            ("Roll initiative for all…", "the session's system, or typed numbers (i)", self.action_initiative),
            ("Roll initiative for all now", "default modifiers, no questions", self.roll_initiative_for_all),
            ("Add character…", "name, side, kind, Vitality, Possibilities (c)", self.action_new_character),
            ("Remove character…", "remove the selected character from the session", self.action_remove_character),
            ("Join the encounter", "the selected character joins the initiative order (+)", self.action_encounter_add),
            (
                "Leave the encounter",
                "the selected character leaves the initiative order (-)",
                self.action_encounter_remove,
            ),
            ("Move up in the order", "([)", lambda: self.action_move(-1)),
            ("Move down in the order", "(])", lambda: self.action_move(1)),
            ("Delay", "the selected character acts after the next combatant (d)", self.action_delay),
            (
                "Opposed roll / two-way Test / contest…",
                "fudge opposed, 1d6x4 two-way, 4d6 contest (o)",
                lambda: self.action_preset("opposed"),
            ),
            ("Folded roll (4d2)…", "positive or negative fold", lambda: self.action_preset("fold")),
            ("Maneuver (4d2)…", "read the Maneuver table", lambda: self.action_preset("maneuver")),
            (
                "Spend a Possibility (torg)",
                "on the roll under the log cursor or the latest torg roll (P)",
                self.action_spend_possibility,
            ),
            (
                "Cancel a Possibility (torg)…",
                "another reality-rated character cancels it (C)",
                self.action_cancel_possibility,
            ),
            (
                "Buy off damage (torg)",
                "spend a Possibility on the damage just taken (older wounds listed with their age)",
                self.action_buyoff,
            ),
            ("Toggle Up (torg)", "the selected character's Up condition", lambda: self.action_toggle_condition("Up")),
            (
                "Toggle Stymied (torg)",
                "the selected character's Stymied condition",
                lambda: self.action_toggle_condition("Stymied"),
            ),
            (
                "Toggle Disconnected (torg)",
                "the selected character's Disconnected condition",
                lambda: self.action_toggle_condition("Disconnected"),
            ),
            (
                "Two-way Test (1d6x4)…",
                "both sides roll; the defender may take 14",
                lambda: self.action_preset("opposed"),
            ),
            ("Healing (1d6x4)…", "Healing Ability: d6 back, never above the default (h)", self.action_heal),
            ("New day (1d6x4)…", "every current value back to its default", self.action_new_day),
            ("Contest (4d6)…", "both roll; the higher total wins", lambda: self.action_preset("opposed")),
            ("Add clock (4d6)…", "a named clock of N segments (K)", self.action_clock_add),
            ("Tick clock (4d6)…", "progress in half segments (k)", self.action_clock_tick),
            ("Undo", "revert the latest change (u)", self.action_undo),
            ("Redo", "re-apply what was undone (U, ctrl+y)", self.action_redo),
            ("Filter the log…", "by character or system (f)", self.action_filter_log),
            ("Roll details", "the full breakdown of the roll under the log cursor", self.action_roll_details),
            ("Copy roll", "copy the roll under the log cursor to the clipboard", self.action_copy_roll),
            ("Focus the roll log", "", self.action_focus_log),
            ("Add a note", "a line in the session's log", self.action_note),
            (
                "Session settings…",
                "skill chance threshold (4d2), ords' reroll (torg), dice method (fudge)",
                self.action_settings,
            ),
            ("End the encounter…", "empty the initiative order, round back to 0", self.action_end_encounter),
            (
                "Import a descriptor sheet…",
                "read a 1d6x4 sheet file for the selected character",
                self.action_import_sheet,
            ),
            ("Spend a use (1d6x4)", "s on a sheet row of the character pane", self.action_focus_character),
        ]
        return c


def _summary(event: Any) -> str:
    """What an undo / redo event did, in the words of the event it reverted:
    "Undo #12: Kara hits Bruno…" → "Kara hits Bruno… (#12)"."""
    text = getattr(event, "summary", "") or getattr(event, "type", "") or "a change"
    head, sep, rest = text.partition(": ")
    words = head.split()
    if sep and len(words) == 2 and words[0] in ("Undo", "Redo") and words[1].startswith("#"):
        return f"{rest} ({words[1]})"
    return text


def _check_optional_int(text: str, option: str = "initiative", lo: int | None = None) -> None:
    if text.strip():
        parse_int(option, text, lo)
