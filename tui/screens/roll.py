"""The roll dialog (``r``) and the attack dialog (``a``), and the roll breakdown.

:class:`RollDialog` builds the parameters of any of the five systems from a small form
(the session's system preselected), fills in the actor's active sources and
conditions (4d2 shift sources → the net shift, 4d6 advantage sources → ``adv``, torg
Up / Stymied → ``up`` / ``stymied``; each one a checkbox that can be switched off for
this roll) through :mod:`core.session.params` — the same code path as ``gmdesk roll
… --save`` — and shows the exact odds of every outcome, recomputed in a worker a moment
after the parameters stop changing. Enter rolls: the dialog returns a
:class:`RollRequest` and the screen makes the roll. Parameters are validated by the
system's own ``Params`` (a ``ParamError`` shows inline and nothing is rolled).

What the form offers per system is layout data, and how its entries become the
system's parameters, in :mod:`tui.screens.rollforms`; the rules stay in
``core.systems``.

Who is offered (RULES.md "Who can act"): the Roller list holds only characters who
can act (not Unconscious, not Dead); the Target list never holds the roller itself
nor the Dead. When the GM picks another roller, an attack's target follows it (the
new roller's last target if not Dead, else its next standing foe:
``State.default_target``) unless the GM picked the target by hand and it is still
a valid target.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Select, Static

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.odds import Odds
from gmdesk.core.render import render_record
from gmdesk.core.session.params import RollSource, fill_params, roll_defaults, roll_sources, sources_params
from gmdesk.core.systems import SYSTEM_IDS, get_system
from gmdesk.tui.screens.dialog import Dialog, DialogHint, ui_message
from gmdesk.tui.screens.rollforms import NONE, form_data, forms
from gmdesk.tui.widgets.common import name_of, signed
from gmdesk.tui.widgets.controls import EnterCheckbox
from gmdesk.tui.widgets.form import FormField, choice_control, field_control
from gmdesk.tui.widgets.oddspreview import OddsPreview
from gmdesk.tui.widgets.rolllog import public_record

if TYPE_CHECKING:
    from gmdesk.core.session import Character, RollEntry, State


def _chosen(value: object) -> str | None:
    """The character a Roller / Target dropdown holds (None for "nobody")."""
    return value if isinstance(value, str) and value != NONE else None


@dataclass(frozen=True)
class RollRequest:
    """What the dialog asks the screen to roll."""

    system: str
    params: Any  # the system's Params
    actor: str | None = None
    target: str | None = None
    combat: bool = False
    values: Mapping[str, Any] = field(default_factory=dict)  # the form as typed (to prefill next time)
    clock: str | None = None  # 4d6: the clock the roll's progress goes to
    given: frozenset[str] = frozenset()  # the parameters the form set (the session keeps them)


@dataclass(frozen=True)
class SourceBox:
    """A checkbox of the dialog: one of the actor's (or target's) sources."""

    widget_id: str
    source: RollSource


class RollDialog(Dialog[RollRequest | None]):
    """Roll (``combat=False``) or attack (``combat=True``) dialog. Enter rolls from
    any field (:class:`tui.screens.dialog.Dialog`)."""

    ODDS_DELAY = 0.15

    def __init__(
        self,
        state: State,
        *,
        system: str | None = None,
        actor: str | None = None,
        target: str | None = None,
        combat: bool = False,
        preset: Mapping[str, Any] | None = None,
        title: str | None = None,
        remembered: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.state = state
        self.system = system or state.info.system
        self.actor = actor
        self.target = target
        self.combat = combat
        self.preset = dict(preset or {})
        self.remembered = dict(remembered or {})
        self.dialog_title = title or ("Attack" if combat else "Roll")
        roller = self._character(self.actor)
        if roller is None or not roller.can_act:
            self.actor = None  # the Unconscious and the Dead roll for no action
        if self.target not in {v for _, v in self._target_choices()}:
            self.target = None
        self._target_chosen = False  # the GM picked the target by hand
        self._sources: list[SourceBox] = []
        self._odds_timer: Timer | None = None
        self._odds_token = 0
        self._ready = False
        self.last_error: str = ""
        self.last_odds: Odds | None = None
        self.given: frozenset[str] = frozenset()

    # -- layout ----------------------------------------------------------------------------

    def _roller_choices(self) -> list[tuple[str, str]]:
        """Everyone who can act (never the Unconscious or the Dead)."""
        return [("— nobody —", NONE)] + [(c.name, cid) for cid, c in self.state.characters.items() if c.can_act]

    def _target_choices(self) -> list[tuple[str, str]]:
        """Everyone but the roller and the Dead."""
        return [("— none —", NONE)] + [
            (c.name, cid) for cid, c in self.state.characters.items() if cid != self.actor and c.status != "dead"
        ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="roll-dialog") as box:
            box.border_title = self.dialog_title
            with Horizontal(id="roll-body"):
                with VerticalScroll(id="roll-form"):
                    with Horizontal(classes="form-row"):
                        yield Label("System", classes="form-label")
                        yield Select(
                            [(s, s) for s in SYSTEM_IDS],
                            value=self.system,
                            allow_blank=False,
                            id="rd-system",
                            classes="form-input",
                        )
                    with Horizontal(classes="form-row"):
                        yield Label("Roller", classes="form-label")
                        yield Select(
                            self._roller_choices(),
                            value=self._or_none(self.actor),
                            allow_blank=False,
                            id="rd-actor",
                            classes="form-input",
                        )
                    with Horizontal(classes="form-row"):
                        yield Label("Target", classes="form-label")
                        yield Select(
                            self._target_choices(),
                            value=self._or_none(self.target),
                            allow_blank=False,
                            id="rd-target",
                            classes="form-input",
                        )
                    with Horizontal(classes="form-row", id="rd-tkind-row"):
                        yield Label("Target kind", classes="form-label")
                        yield Select(
                            [("organic", "organic"), ("inorganic", "inorganic")],
                            value=self._target_kind(),
                            allow_blank=False,
                            id="rd-tkind",
                            classes="form-input",
                        )
                    yield Vertical(id="rd-sources")
                    yield Vertical(id="rd-params")
                    yield Static("", id="rd-info")
                yield OddsPreview("", id="rd-odds")
            yield Static("", id="rd-error", classes="inline-error")
            yield DialogHint("attack" if self.combat else "roll")

    def _or_none(self, cid: str | None) -> str:
        return cid if cid in self.state.characters else NONE

    def _target_kind(self) -> str:
        t = self.state.characters.get(self.target) if self.target is not None else None
        return t.kind if t is not None else "organic"

    async def on_mount(self) -> None:
        self._show_target_kind()
        await self._rebuild_sources()
        await self._rebuild_params()
        self._ready = True
        self._changed()
        self._focus_first()

    def _focus_first(self) -> None:
        for w in self.query("#rd-params Input"):
            w.focus()
            return

    # -- the parts that depend on the system / actor -------------------------------------

    def _character(self, cid: str | None) -> Character | None:
        return self.state.characters.get(cid) if cid is not None and cid != NONE else None

    async def _rebuild_sources(self) -> None:
        """Checkboxes for the roller's (and the target's) sources this system reads."""
        box = self.query_one("#rd-sources", Vertical)
        await box.remove_children()
        self._sources = []
        widgets: list[Widget] = []
        counts: dict[str, int] = {}
        for src in roll_sources(self.system, self._character(self.actor), self._character(self.target)):
            i = counts[src.owner] = counts.get(src.owner, -1) + 1
            sb = SourceBox(f"src-{src.owner}-{i}", src)
            self._sources.append(sb)
            who = "" if src.owner == "own" else f"{src.who}: "
            widgets.append(
                EnterCheckbox(
                    f"{who}{src.name} {signed(src.value)} ({src.kind})",
                    src.active,
                    id=sb.widget_id,
                    classes="source-box",
                )
            )
        if widgets:
            await box.mount(Label("Sources (Space: off for this roll)", classes="form-note"))
            await box.mount_all(widgets)
        box.display = bool(widgets)

    async def _rebuild_params(self) -> None:
        # errors name the fields as this form labels them (Params name them by option)
        self.labels = {
            "system": "System",
            "actor": "Roller",
            "target": "Target",
            "target_kind": "Target kind",
            **{f.key: f.label for f in forms()[self.system]},
        }
        box = self.query_one("#rd-params", Vertical)
        await box.remove_children()
        widgets: list[Widget] = []
        for f in forms()[self.system]:
            value = self._initial(f)
            wid = f"p-{f.key}"
            if f.kind == "bool":
                widgets.append(field_control(f, wid, value, check_classes="param-check"))
                continue
            if f.kind == "clock":
                names = list(self.state.clocks)
                choices = [(NONE, "— none —")] + [(n, n) for n in names]
                control: Widget = choice_control(choices, value if value in names else NONE, wid)
            else:
                control = field_control(f, wid, value)
            widgets.append(Horizontal(Label(f.label, classes="form-label"), control, classes="form-row"))
        await box.mount_all(widgets)
        self._apply_sources()

    def _initial(self, f: FormField) -> Any:
        """Preset (from the move that opened the dialog) > remembered > from the actor > default."""
        if self.system == "fudge" and f.key == "opposed":
            return self._initial_opposed()
        if f.key in self.preset:
            return self.preset[f.key]
        if f.key in self.remembered:
            return self.remembered[f.key]
        if f.kind == "bool" and f.key in self._session_defaults():
            return bool(self._session_defaults()[f.key])  # torg Up / Stymied from the roller's conditions
        if self.system == "1d6x4" and f.key == "vs_descriptors" and self.combat:
            return "Defense"
        if self.system == "fudge" and f.key == "method":  # the session's fudge method
            return self.state.info.settings.get("fudge_method", f.value)
        return f.value

    def _initial_opposed(self) -> bool:
        """fudge: an opposed roll is asked for explicitly (``o`` presets it, or the
        box); a remembered Vs trait alone never makes a roll opposed; an attack is."""
        return bool(self.combat or self.preset.get("opposed"))

    def _session_defaults(self) -> dict[str, Any]:
        """What the session fills in for this roller and target (core.session.params)."""
        return roll_defaults(
            self.state.info.settings, self.system, self._character(self.actor), self._character(self.target)
        )

    def _apply_sources(self) -> None:
        """Write the checked sources into the parameter they feed (shift / adv)."""
        if not self._sources:
            return
        on = [sb.source for sb in self._sources if self.query_one(f"#{sb.widget_id}", Checkbox).value]
        for name, value in sources_params(self.system, on).items():
            text = ",".join(signed(v) for v in value) if isinstance(value, tuple) else str(value)
            self._set_input(name, text)

    def _set_input(self, name: str, value: str) -> None:
        for w in self.query(f"#p-{name}"):
            if isinstance(w, Input) and w.value != value:
                w.value = value

    # -- reading the form -------------------------------------------------------------------

    def form_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in forms()[self.system]:
            try:
                w = self.query_one(f"#p-{f.key}")
            except NoMatches:
                # the form of a newly chosen system is still being mounted
                raise ParamError(f.label, "the form is still loading") from None
            out[f.key] = w.value  # type: ignore[attr-defined]
        return out

    def build_params(self) -> Any:
        """The system's Params from the form; ParamError (naming the option) if invalid."""
        module = get_system(self.system)
        values = self.form_values()
        actor = self._character(self.actor)
        target = self._character(self.target)
        data, info = form_data(self.system, values, actor, target, self.combat)
        data["combat"] = self.combat
        if target is None:  # an untracked target: its kind as chosen (a tracked one has its own)
            data["target_kind"] = self.query_one("#rd-tkind", Select).value
        names = {f.name for f in dataclasses.fields(module.Params)}
        data = {k: v for k, v in data.items() if k in names}
        params = module.params_from_json(data)
        # what the form does not show (kinds, the session's settings) the session fills in;
        # what it shows is the GM's to change and wins
        self.given = frozenset(data)
        params = fill_params(self.state.info.settings, module, params, actor, target, self.combat, self.given)
        self.query_one("#rd-info", Static).update("\n".join(info))
        self._check_session(module, params, actor, target)
        return params

    def _check_session(
        self, module: ModuleType, params: Any, actor: Character | None, target: Character | None
    ) -> None:
        """Refuse here, in the form, what the session would refuse after Enter (the
        same core checks ``Session.roll`` makes): an Unconscious or Dead roller, a Dead
        target, Possibilities the roller does not have."""
        from gmdesk.core.session import EventError
        from gmdesk.core.session.events import roll_refusal
        from gmdesk.core.session.session import params_refusal

        refusal = roll_refusal(actor, target)
        if refusal is not None:
            raise EventError(
                refusal,
                "roll",
                field="target"
                if target is not None and target.status == "dead" and (actor is None or actor.can_act)
                else "actor",
            )
        refused = params_refusal(module.ID, params, actor)
        if refused is not None:
            raise refused

    # -- reacting to edits -------------------------------------------------------------------

    @on(Select.Changed, "#rd-system")
    async def system_changed(self, event: Select.Changed) -> None:
        if not self._ready or event.value == self.system:
            return
        self.system = str(event.value)
        self.preset = {}
        self.remembered = {}
        await self._rebuild_sources()
        await self._rebuild_params()
        self._changed()
        self._focus_first()

    @on(Select.Changed, "#rd-actor")
    async def actor_changed(self, event: Select.Changed) -> None:
        if not self._ready:
            return
        self.actor = _chosen(event.value)
        self._retarget()
        await self._rebuild_sources()
        self._reset_condition_params()
        self._apply_sources()
        self._changed()

    @on(Select.Changed, "#rd-target")
    async def target_changed(self, event: Select.Changed) -> None:
        if not self._ready:
            return
        value = _chosen(event.value)
        if value == self.target:
            return  # the value the dialog set itself
        self.target = value
        self._target_chosen = True
        t = self._character(self.target)
        if t is not None:
            self.query_one("#rd-tkind", Select).value = t.kind
        self._show_target_kind()
        await self._rebuild_sources()
        self._apply_sources()
        self._changed()

    def _retarget(self) -> None:
        """The roller changed: the target list leaves the new roller out, and an attack's
        target follows the roller unless the GM chose one that is still valid."""
        choices = self._target_choices()
        legal = {v for _, v in choices}
        keep = self.target in legal and (self._target_chosen or not self.combat)
        if not keep:
            self.target = self.state.default_target(self.actor) if self.combat else None
            self._target_chosen = False
        sel = self.query_one("#rd-target", Select)
        with sel.prevent(Select.Changed):
            sel.set_options(choices)
            sel.value = self._or_none(self.target)
        t = self._character(self.target)
        if t is not None:
            self.query_one("#rd-tkind", Select).value = t.kind
        self._show_target_kind()

    def _show_target_kind(self) -> None:
        """The kind is asked only for an untracked target (a tracked one has its own)."""
        self.query_one("#rd-tkind-row").display = self._character(self.target) is None

    def _reset_condition_params(self) -> None:
        defaults = self._session_defaults()
        for f in forms()[self.system]:
            if f.kind == "bool" and f.key in defaults:
                self.query_one(f"#p-{f.key}", Checkbox).value = bool(defaults[f.key])

    @on(Checkbox.Changed, ".source-box")
    def source_toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._apply_sources()
        self._changed()

    @on(Input.Changed)
    @on(Checkbox.Changed, ".param-check")
    @on(Select.Changed, "#rd-params Select, #rd-tkind")
    def param_changed(self, event: Input.Changed | Checkbox.Changed | Select.Changed) -> None:
        self._changed()

    def _changed(self) -> None:
        """Validate now (inline message), compute odds a moment later in a worker."""
        if not self._ready:
            return
        error = self.query_one("#rd-error", Static)
        preview = self.query_one(OddsPreview)
        try:
            params = self.build_params()
        except GmdeskError as e:
            self.last_error = self.show_error(e)
            preview.show_none("no odds: fix the parameters")
            self._odds_token += 1
            return
        self.last_error = ""
        error.update("")
        preview.show_pending()
        self._odds_token += 1
        token = self._odds_token
        if self._odds_timer is not None:
            self._odds_timer.stop()
        self._odds_timer = self.set_timer(self.ODDS_DELAY, lambda: self._compute_odds(self.system, params, token))

    @work(thread=True, exclusive=True, group="odds")
    def _compute_odds(self, system: str, params: Any, token: int) -> None:
        try:
            odds = get_system(system).odds(params)
        except GmdeskError as e:
            self.app.call_from_thread(self._odds_failed, token, ui_message(e, self.labels))
            return
        self.app.call_from_thread(self._odds_ready, token, odds)

    def _odds_ready(self, token: int, odds: Odds) -> None:
        # the odds may arrive while the dialog is closing (its widgets already gone)
        if token == self._odds_token and self.is_mounted:
            self.last_odds = odds
            for preview in self.query(OddsPreview):
                preview.show_odds(odds)

    def _odds_failed(self, token: int, message: str) -> None:
        if token == self._odds_token and self.is_mounted:
            for preview in self.query(OddsPreview):
                preview.show_none(f"no odds: {message}")

    # -- roll / cancel -----------------------------------------------------------------------------

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_roll()

    def action_roll(self) -> None:
        try:
            params = self.build_params()
        except GmdeskError as e:
            self.last_error = self.show_error(e)
            return
        if self.combat and self.target is None and self._character(self.actor) is None:
            self.last_error = self.show_error("Roller: choose who attacks")
            return
        values = self.form_values()
        clock = values.get("clock") if self.system == "4d6" else None
        self.dismiss(
            RollRequest(
                self.system, params, self.actor, self.target, self.combat, values, clock=clock or None, given=self.given
            )
        )

    def action_submit(self) -> None:
        self.action_roll()


class RollDetails(ModalScreen[None]):
    """The full breakdown of one roll: who, when, every die, the system's numbers, the
    descriptors and every change it made. ``y`` copies the roll's line."""

    BINDINGS = [
        Binding("escape,enter,q", "close", "Close", id="details.close"),
        Binding("y", "copy", "Copy", id="details.copy"),
    ]

    def __init__(self, entry: RollEntry, state: State, line: str, hide_secrets: bool = False) -> None:
        super().__init__(classes="dialog-screen")
        self.entry = entry
        self.state = state
        self.line = line
        self.hide_secrets = hide_secrets

    def compose(self) -> ComposeResult:
        e = self.entry
        record = public_record(e.record) if self.hide_secrets else e.record
        head = Text()
        head.append(f"#{e.seq} ", style="bold")
        head.append(name_of(self.state, e.actor, "GM"))
        if e.target is not None:
            head.append(f" → {name_of(self.state, e.target)}")
        kind = getattr(e, "kind", "roll")
        if kind != "roll":
            head.append(f"  ({kind})", style="dim")
        if getattr(e, "combat", False):
            head.append("  attack", style="bold")
        if e.round:
            head.append(f"  round {e.round}", style="dim")
        parts: list[RenderableType] = [head, render_record(record, hide_secrets=self.hide_secrets)]
        for who in getattr(e, "spends", ()) or ():
            parts.append(Text(f"Possibility spent by {name_of(self.state, who, 'the roller')}"))
        for who in getattr(e, "cancels", ()) or ():
            parts.append(Text(f"Possibility cancelled by {name_of(self.state, who)}"))
        if e.changes:
            parts.append(Text("Changes:", style="bold"))
            parts.extend(Text(f"  {c}") for c in e.changes)
        with Vertical(classes="dialog", id="details-dialog") as box:
            box.border_title = "Roll"
            with VerticalScroll(id="details-body"):
                yield Static(Group(*parts), id="details-text")
            yield Static("y copy · Esc close", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.line)
        self.notify("Roll copied to the clipboard", timeout=2)
