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
* An attack's default target is the selected character when that is not the
  attacker, else the first combatant of the other side who is not dead.
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

from core.errors import GmdeskError, ParamError
from core.render import headline
from core.systems import SYSTEM_IDS, get_system
from core.systems.base import parse_int
from tui.screens.confirm import ChoiceDialog, ConfirmDialog, FormDialog, FormField, InputDialog
from tui.screens.roll import RollDetails, RollDialog, RollRequest
from tui.widgets.character import CharacterPane
from tui.widgets.common import TURN_MARKER, attack_sentence, name_of
from tui.widgets.initiative import InitiativePane
from tui.widgets.rolllog import RollLog

# Preset parameters of the system moves that open the roll dialog: move -> system -> params.
# "opposed" in a 4d2 or torg-2d10 session is a roll at a target (4d2: the target's shifts
# cancel the roller's); fold and maneuver are 4d2 moves whatever the session's system.
MOVE_PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "opposed": {
        "fudge": {"vs_trait": "Fair"},
        "4d6": {"vs_bonus": "0"},
        "1d6x4": {"vs_bonus": "0"},
    },
    "fold": {"4d2": {"fold": "positive"}},
    "maneuver": {"4d2": {"maneuver": True}},
}

#: dialog fields that come from the actor's current state, never from the last roll
NOT_REMEMBERED = ("possibilities", "up", "stymied", "shift", "adv")

MOVE_TITLES = {
    "opposed": "Opposed roll / two-way Test / contest",
    "fold": "Folded roll (4d2)",
    "maneuver": "Maneuver (4d2)",
}


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
        Binding("a", "attack", "Attack",
                tooltip="The current combatant attacks: the descriptor is applied and logged", id="main.attack"),
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

    def __init__(self, session: Any, *, rng: Any = None, readonly: bool = False,
                 lock: threading.Lock | None = None) -> None:
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

    def submit(self, fn: Callable[[Any], Any], done: Callable[[Any], None] | None = None,
               error: Callable[[str], None] | None = None, *, refresh: bool = True) -> None:
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
                error = str(e)
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

    def apply(self, event: dict, what: str = "", *, done: Callable[[Any], None] | None = None,
              error: Callable[[str], None] | None = None) -> None:
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
        state = self.state
        if self.selected is not None and self.selected != actor:
            return self.selected
        me = state.characters.get(actor)
        for c in state.combatants():
            if c.id != actor and c.status != "dead" and (me is None or c.side != me.side):
                return c.id
        return None

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

    def on_character_pane_apply(self, message: CharacterPane.Apply) -> None:
        pane = self.character
        self.apply(message.event, message.what, done=lambda _ev: pane.edit_result(None),
                   error=lambda err: pane.edit_result(err))

    def on_roll_log_details(self, message: RollLog.Details) -> None:
        log = self.rolllog
        self.app.push_screen(RollDetails(message.entry, self.state, log.line_text(log.cursor)))

    def on_roll_log_copy(self, message: RollLog.Copy) -> None:
        self.app.copy_to_clipboard(message.text)
        self.say("Roll copied to the clipboard")

    # -- rolls and attacks ---------------------------------------------------------------------

    def action_roll(self) -> None:
        self.when_idle(lambda: self.open_roll_dialog(actor=self.acting()))

    def action_attack(self) -> None:
        def go() -> None:
            actor = self.acting()
            if actor is None:
                self.say("Nobody to attack with: add a character (c) first.", error=True)
                return
            self.open_roll_dialog(actor=actor, target=self.default_target(actor), combat=True)

        self.when_idle(go)

    def open_roll_dialog(self, *, actor: Any = None, target: Any = None, combat: bool = False,
                         system: str | None = None, preset: dict | None = None, title: str | None = None) -> None:
        system = system or self.state.info.system
        remembered = self._remembered.get((system, actor, combat), {})

        def rolled(req: RollRequest | None) -> None:
            if req is not None:
                self._remembered[(req.system, req.actor, req.combat)] = {
                    k: v for k, v in req.values.items() if k not in NOT_REMEMBERED}
                self.do_roll(req)

        self.app.push_screen(RollDialog(self.state, system=system, actor=actor, target=target, combat=combat,
                                        preset=preset, title=title, remembered=remembered), rolled)

    def do_roll(self, req: RollRequest) -> None:
        rng = self.rng

        def fn(s: Any) -> Any:
            module = get_system(req.system)
            chars = s.state.characters
            filled = s.fill_params(module, req.params, chars.get(req.actor), chars.get(req.target), req.combat)
            if filled == req.params:
                return s.roll(req.system, req.params, actor=req.actor, target=req.target, combat=req.combat,
                              rng=rng)
            # The GM switched a condition off for this roll (e.g. Up, Stymied): the session
            # would fill it back in, so roll exactly what the dialog says.
            return s.roll(req.system, req.params, actor=req.actor, target=req.target, combat=req.combat,
                          rng=rng, fill=False)

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

            def chosen(text: str | None) -> None:
                if text is None:
                    return
                self._join(cid, text.strip())

            self.app.push_screen(InputDialog(f"Initiative for {name} (a number; empty rolls it)",
                                             title="Join the encounter", validate=_check_optional_int), chosen)

        self.when_idle(go)

    def _join(self, cid: Any, typed: str) -> None:
        rng = self.rng
        modifier = self.initiative_modifier(cid)
        system_id = self.state.info.system
        name = name_of(self.state, cid)

        def fn(s: Any) -> Any:
            value = int(typed) if typed else get_system(system_id).initiative(rng, modifier).value
            s.apply({"type": "encounter.add", "id": cid, "initiative": value})
            return value

        self.submit(fn, lambda v: self.say(f"{name} joins the encounter at initiative {v}"))

    def action_encounter_remove(self) -> None:
        cid = self._need_selected()
        if cid is not None:
            self.apply({"type": "encounter.remove", "id": cid})

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
            actor = self.acting()
            target = self.default_target(actor) if move == "opposed" else None
            self.open_roll_dialog(actor=actor, target=target, system=system, preset=preset.get(system, {}),
                                  title=MOVE_TITLES.get(move))

        self.when_idle(go)

    def action_delay(self) -> None:
        cid = self._need_selected()
        if cid is not None:
            self.apply({"type": "encounter.delay", "id": cid})

    def initiative_modifier(self, cid: Any) -> int:
        """What the session's system adds to this character's initiative roll (the
        session knows: 4d2 own shift total, 1d6x4 Reflex, else 0)."""
        try:
            return int(self.session.initiative_modifier(cid))
        except (GmdeskError, KeyError):
            return 0

    def action_initiative(self) -> None:
        self.when_idle(self._open_initiative)

    def _open_initiative(self) -> None:
        state = self.state
        ids = [c.char_id for c in state.encounter.order]
        if not ids:
            ids = [cid for cid in state.characters]
        if not ids:
            self.say("No characters yet: c adds one.", error=True)
            return
        fields = []
        for i, cid in enumerate(ids):
            fields.append(FormField(f"m{i}", f"{name_of(state, cid)}  mod", "text", str(self.initiative_modifier(cid))))
            fields.append(FormField(f"v{i}", "or value", "text", "", placeholder="roll", same_row=True))

        def validate(values: dict) -> None:
            for i in range(len(ids)):
                parse_int("modifier", values[f"m{i}"])
                _check_optional_int(values[f"v{i}"])

        def done(values: dict | None) -> None:
            if values is not None:
                plan = [(cid, int(values[f"m{i}"]), values[f"v{i}"].strip()) for i, cid in enumerate(ids)]
                self._roll_initiative(plan)

        self.app.push_screen(FormDialog(f"Initiative ({state.info.system})", fields, validate=validate,
                                        hint="Enter rolls for everyone without a typed value · Esc cancel"), done)

    def roll_initiative_for_all(self) -> None:
        """Roll everyone's initiative with the default modifiers (no dialog)."""
        state = self.state
        ids = [c.char_id for c in state.encounter.order] or list(state.characters)
        self._roll_initiative([(cid, self.initiative_modifier(cid), "") for cid in ids])

    def _roll_initiative(self, plan: list[tuple[Any, int, str]]) -> None:
        rng = self.rng
        system = get_system(self.state.info.system)

        def fn(s: Any) -> Any:
            if not any(typed for _, _, typed in plan):
                return s.roll_initiative([cid for cid, _, _ in plan], rng,
                                         modifiers={cid: mod for cid, mod, _ in plan})
            entries = []
            for cid, modifier, typed in plan:
                if typed:
                    entries.append({"id": cid, "value": int(typed)})
                else:
                    rec = system.initiative(rng, modifier)
                    entries.append({"id": cid, "value": rec.value, "record": rec.to_json()})
            return s.apply({"type": "initiative.set", "entries": entries})

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

        def done(v: dict | None) -> None:
            if v is None:
                return
            character: dict[str, Any] = {"name": v["name"].strip(), "side": v["side"], "kind": v["kind"],
                                         "reality_rated": bool(v["reality_rated"])}
            if v["vitality"].strip():
                character["vitality"] = int(v["vitality"])
            if v["possibilities"].strip():
                character["possibilities"] = int(v["possibilities"])
            self._add_character(character, join=bool(v["join"]))

        self.app.push_screen(FormDialog("New character", fields, validate=validate), done)

    def _add_character(self, character: dict, *, join: bool) -> None:
        rng = self.rng
        system_id = self.state.info.system

        def fn(s: Any) -> Any:
            event = s.apply({"type": "character.add", "character": character})
            cid = event.data.get("id")
            if join and cid is not None:
                value = get_system(system_id).initiative(rng, s.initiative_modifier(cid)).value
                s.apply({"type": "encounter.add", "id": cid, "initiative": value})
            return cid

        def done(cid: Any) -> None:
            if cid is not None:
                self.selected = cid
                self.remember_selection()
            self.say(f"{character['name']} added" + (" to the encounter" if join else ""))

        self.submit(fn, done)

    def action_remove_character(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)

        def done(yes: bool | None) -> None:
            if yes:
                self.apply({"type": "character.remove", "id": cid}, f"{name} removed (u undoes)")

        self.app.push_screen(ConfirmDialog(f"Remove {name} from the session? (u undoes it)", yes="Remove",
                                           title="Remove character"), done)

    def action_toggle_condition(self, name: str) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        ch = self.state.characters[cid]
        cond = next((c for c in ch.conditions if c.name.casefold() == name.casefold()), None)
        if cond is None:
            self.apply({"type": "condition.add", "id": cid, "name": name, "rounds": None}, f"{ch.name} is {name}")
        else:
            self.apply({"type": "condition.remove", "id": cid, "name": cond.name, "rounds": cond.rounds},
                       f"{ch.name} is no longer {name}")

    def action_end_encounter(self) -> None:
        def done(yes: bool | None) -> None:
            if yes:
                self.apply({"type": "encounter.end"}, "The encounter ends (u undoes it)")

        self.app.push_screen(ConfirmDialog("End the encounter? The initiative order empties and the round "
                                           "count goes back to 0. (u undoes it)", yes="End it",
                                           title="End the encounter"), done)

    def action_import_sheet(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)

        def chosen(text: str | None) -> None:
            if not text or not text.strip():
                return
            file = text.strip()

            def fn(s: Any) -> Any:
                from pathlib import Path

                try:
                    content = Path(file).expanduser().read_text(encoding="utf-8")
                except OSError as e:
                    raise GmdeskError(f"{file}: {e.strerror or e}") from None
                return s.apply({"type": "sheet.import", "id": cid, "text": content})

            self.submit(fn, lambda _ev: self.say(f"{name}: sheet imported from {file}"))

        self.app.push_screen(InputDialog(f"Descriptor sheet file for {name}", placeholder="path/to/sheet.txt",
                                         title="Import a sheet"), chosen)

    def action_note(self) -> None:
        def done(text: str | None) -> None:
            if text and text.strip():
                self.apply({"type": "note", "text": text.strip()}, "Note added")

        self.app.push_screen(InputDialog("Note for the log", title="Note"), done)

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
            self.say(f"{name} spends a Possibility on #{seq}: now {headline(rec)} {rec.outcome}"
                     if rec is not None else f"{name} spends a Possibility")

        self.submit(fn, done)

    def action_cancel_possibility(self) -> None:
        def go() -> None:
            entry = self._torg_entry()
            if entry is None or not entry.record.get("possibilities"):
                self.say("No Possibility to cancel: only a spent Possibility can be cancelled.", error=True)
                return
            state = self.state
            choices = [(cid, f"{c.name} ({c.possibilities} left)") for cid, c in state.characters.items()
                       if cid != entry.actor and c.reality_rated]
            if not choices:
                self.say("Nobody else is reality-rated: no one can cancel.", error=True)
                return
            seq = entry.seq

            def chosen(cid: Any) -> None:
                if cid is not None:
                    self.apply({"type": "possibility.cancel", "id": cid, "roll": seq},
                               f"{name_of(self.state, cid)} cancels the Possibility on #{seq}")

            default = self.selected if self.selected != entry.actor else None
            self.app.push_screen(ChoiceDialog(f"Who cancels the Possibility on roll #{seq}?", choices,
                                              title="Cancel a Possibility", selected=default), chosen)

        self.when_idle(go)

    def action_buyoff(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        ch = self.state.characters[cid]
        if not ch.wounds:
            self.say(f"{ch.name} has no damage to buy off.", error=True)
            return
        index = len(ch.wounds) - 1
        self.apply({"type": "damage.buyoff", "id": cid, "wound": index},
                   f"{ch.name} buys off {ch.wounds[index].text} with a Possibility")

    def action_heal(self) -> None:
        def go() -> None:
            state = self.state
            if not state.characters:
                self.say("No characters yet.", error=True)
                return
            chars = [(cid, c.name) for cid, c in state.characters.items()]
            healer = self.acting() if self.acting() in state.characters else chars[0][0]
            fields = [
                FormField("healer", "Healer", "choice", healer, chars),
                FormField("target", "Patient", "choice", self.selected or healer, chars),
            ]

            def done(v: dict | None) -> None:
                if v is not None:
                    self._heal(v["healer"], v["target"])

            self.app.push_screen(FormDialog("Healing Ability (1d6x4)", fields,
                                            hint="Enter heals d6 (never above the default) · Esc cancel"), done)

        self.when_idle(go)

    def _heal(self, healer: Any, target: Any) -> None:
        rng = self.rng

        def fn(s: Any) -> Any:
            return s.heal(healer, target, rng)

        def done(_ev: Any) -> None:
            p = self.state.characters.get(target)
            if p is not None:
                self.say(f"{name_of(self.state, healer)} heals {p.name}: Vitality {p.vitality_current}/{p.vitality_default}")

        self.submit(fn, done)

    def action_new_day(self) -> None:
        def done(yes: bool | None) -> None:
            if yes:
                self.apply({"type": "day.new"}, "A new day: every current value is back to its default")

        self.app.push_screen(ConfirmDialog("Start a new day? Every current value (uses too) returns to its "
                                           "default; the Dead stay dead. (u undoes it)", yes="New day",
                                           title="New day"), done)

    # -- clocks ---------------------------------------------------------------------------------

    def action_clock_add(self) -> None:
        fields = [FormField("name", "Clock name", "text", ""),
                  FormField("segments", "Segments", "text", "4")]

        def validate(v: dict) -> None:
            if not v["name"].strip():
                raise ParamError("name", "must not be empty")
            parse_int("segments", v["segments"], 1)

        def done(v: dict | None) -> None:
            if v is not None:
                name = v["name"].strip()
                self.apply({"type": "clock.add", "name": name, "segments": int(v["segments"])},
                           f"Clock {name} added")

        self.app.push_screen(FormDialog("Add a clock", fields, validate=validate), done)

    def action_clock_tick(self) -> None:
        clocks = list(self.state.clocks.values())
        if not clocks:
            self.say("No clocks yet: K adds one.", error=True)
            return
        fields = [FormField("name", "Clock", "choice", clocks[0].name, [(c.name, c.name) for c in clocks]),
                  FormField("halves", "Half segments", "text", "2", placeholder="2 = one segment; -1 takes back")]

        def validate(v: dict) -> None:
            parse_int("half segments", v["halves"])

        def done(v: dict | None) -> None:
            if v is not None:
                halves = int(v["halves"])
                self.apply({"type": "clock.tick", "name": v["name"], "halves": halves},
                           f"Clock {v['name']} {'+' if halves >= 0 else ''}{halves / 2:g} segment(s)")

        self.app.push_screen(FormDialog("Tick a clock", fields, validate=validate), done)

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
            ("Leave the encounter", "the selected character leaves the initiative order (-)",
             self.action_encounter_remove),
            ("Move up in the order", "([)", lambda: self.action_move(-1)),
            ("Move down in the order", "(])", lambda: self.action_move(1)),
            ("Delay", "the selected character acts after the next combatant (d)", self.action_delay),
            ("Opposed roll / two-way Test / contest…", "fudge opposed, 1d6x4 two-way, 4d6 contest (o)",
             lambda: self.action_preset("opposed")),
            ("Folded roll (4d2)…", "positive or negative fold", lambda: self.action_preset("fold")),
            ("Maneuver (4d2)…", "read the Maneuver table", lambda: self.action_preset("maneuver")),
            ("Spend a Possibility (torg)", "on the roll under the log cursor or the latest torg roll (P)",
             self.action_spend_possibility),
            ("Cancel a Possibility (torg)…", "another reality-rated character cancels it (C)",
             self.action_cancel_possibility),
            ("Buy off damage (torg)", "spend a Possibility to remove the latest wound; b on a wound row",
             self.action_buyoff),
            ("Toggle Up (torg)", "the selected character's Up condition", lambda: self.action_toggle_condition("Up")),
            ("Toggle Stymied (torg)", "the selected character's Stymied condition",
             lambda: self.action_toggle_condition("Stymied")),
            ("Toggle Disconnected (torg)", "the selected character's Disconnected condition",
             lambda: self.action_toggle_condition("Disconnected")),
            ("Two-way Test (1d6x4)…", "both sides roll; the defender may take 14", lambda: self.action_preset("opposed")),
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
            ("End the encounter…", "empty the initiative order, round back to 0", self.action_end_encounter),
            ("Import a descriptor sheet…", "read a 1d6x4 sheet file for the selected character",
             self.action_import_sheet),
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
