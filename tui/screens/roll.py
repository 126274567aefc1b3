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

What the form offers per system is layout data (:data:`FORMS`); the rules stay in
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Label, Select, Static

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.render import render_record
from gmdesk.core.session.params import fill_params, roll_defaults, roll_sources, sources_params
from gmdesk.core.systems import SYSTEM_IDS, get_system
from gmdesk.tui.screens.dialog import Dialog, DialogHint, ui_message
from gmdesk.tui.widgets.common import name_of, signed
from gmdesk.tui.widgets.controls import EnterCheckbox, SteadyInput
from gmdesk.tui.widgets.oddspreview import OddsPreview
from gmdesk.tui.widgets.rolllog import public_record

NONE = ""  # the "none" value of optional choices and of the target


def _EMPTY_SHEET() -> Any:
    """The sheet of a tracked character that has none: it lacks every Item."""
    from gmdesk.core.sheet import parse_sheet

    return parse_sheet("")


@dataclass(frozen=True)
class FormField:
    """One parameter row. ``kind``: "text" (typed, passed to Params as typed), "opt"
    (typed; empty means None), "choice", "bool", "descriptors" (1d6x4: names read
    from a sheet, not a Params field) or "clock" (4d6: the session's clock the roll's
    progress goes to, not a Params field; default none)."""

    name: str
    label: str
    kind: str = "text"
    default: Any = ""
    choices: Sequence[tuple[str, Any]] = ()
    placeholder: str = ""


def _forms() -> dict[str, tuple[FormField, ...]]:
    from gmdesk.core.systems import core_4d6, four_d_two, fudge, torg_2d10

    dc_hint = ", ".join(f"{n} {name}" for n, name in core_4d6.DC_LADDER)
    return {
        "4d2": (
            FormField("shift", "Net shift", "text", "0", placeholder="-3..3"),
            FormField("fold", "Fold", "choice", NONE, (("no fold", NONE),) + tuple((f, f) for f in four_d_two.FOLDS)),
            FormField("maneuver", "Maneuver table", "bool", False),
        ),
        "fudge": (
            FormField("method", "Method", "choice", fudge.DEFAULT_METHOD, tuple((m, m) for m in fudge.METHODS)),
            FormField("trait", "Trait", "opt", "", placeholder="Good, +1 …"),
            FormField("opposed", "Opposed (the opponent rolls too)", "bool", False),
            FormField("vs_trait", "Vs trait", "opt", "", placeholder="opposed only; empty: Fair"),
            FormField("offense", "Offense factor", "text", "0"),
            FormField("defense", "Defense factor", "text", "0"),
        ),
        "1d6x4": (
            FormField("descriptors", "Descriptors", "descriptors", "", placeholder="Precision, Slingshot"),
            FormField("bonus", "Extra bonus", "text", "0"),
            FormField("target", "Target number", "opt", "", placeholder="secret; empty: none"),
            FormField("vs_descriptors", "Defender's", "descriptors", "", placeholder="Defense (two-way)"),
            FormField("vs_bonus", "Defender bonus", "opt", "", placeholder="empty: not two-way"),
            FormField("defender_takes_14", "Defender takes 14", "bool", False),
            FormField("mutual", "Mutual melee", "bool", False),
            FormField("damage", "Damage", "text", "d6"),
        ),
        "torg-2d10": (
            FormField("skill", "Skill value", "opt", "", placeholder="attribute + skill"),
            FormField("difficulty", "Difficulty", "opt", "", placeholder="in combat: defense"),
            FormField("stymied", "Stymied", "bool", False),
            FormField("up", "Up", "bool", False),
            FormField("possibilities", "Possibilities", "text", "0", placeholder="spent now"),
            FormField(
                "contradiction",
                "Contradiction",
                "choice",
                NONE,
                (("none", NONE),) + tuple((c, c) for c in torg_2d10.CONTRADICTIONS),
            ),
        ),
        "4d6": (
            FormField("bonus", "Bonus", "text", "0"),
            FormField("dc", "DC", "opt", str(core_4d6.DEFAULT_DC), placeholder=dc_hint),
            FormField("adv", "Advantage", "text", "", placeholder="+1,-2 …"),
            FormField("vs_bonus", "Vs bonus (contest)", "opt", "", placeholder="empty: no contest"),
            FormField("vs_adv", "Vs advantage", "text", "", placeholder="+1 …"),
            FormField("position", "Position", "choice", "standard", tuple((p, p) for p in core_4d6.POSITIONS)),
            FormField("effect", "Effect", "choice", "standard", tuple((e, e) for e in core_4d6.EFFECTS)),
            FormField("clock", "Clock", "clock", NONE),
        ),
    }


_FORMS: dict[str, tuple[FormField, ...]] | None = None


def forms() -> dict[str, tuple[FormField, ...]]:
    """The parameter form of each system (built once, on first use)."""
    global _FORMS
    if _FORMS is None:
        _FORMS = _forms()
    return _FORMS


@dataclass(frozen=True)
class RollRequest:
    """What the dialog asks the screen to roll."""

    system: str
    params: Any
    actor: Any = None
    target: Any = None
    combat: bool = False
    values: Mapping[str, Any] = field(default_factory=dict)  # the form as typed (to prefill next time)
    clock: str | None = None  # 4d6: the clock the roll's progress goes to
    given: frozenset[str] = frozenset()  # the parameters the form set (the session keeps them)


@dataclass(frozen=True)
class SourceBox:
    """A checkbox of the dialog: one of the actor's (or target's) sources."""

    widget_id: str
    source: Any  # core.session.params.RollSource


class RollDialog(Dialog[RollRequest | None]):
    """Roll (``combat=False``) or attack (``combat=True``) dialog. Enter rolls from
    any field (:class:`tui.screens.dialog.Dialog`)."""

    ODDS_DELAY = 0.15

    def __init__(
        self,
        state: Any,
        *,
        system: str | None = None,
        actor: Any = None,
        target: Any = None,
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
        if self._character(self.actor) is None or not self._character(self.actor).can_act:
            self.actor = None  # the Unconscious and the Dead roll for no action
        if self.target not in {v for _, v in self._target_choices()}:
            self.target = None
        self._target_chosen = False  # the GM picked the target by hand
        self._sources: list[SourceBox] = []
        self._odds_timer: Any = None
        self._odds_token = 0
        self._ready = False
        self.last_error: str = ""
        self.last_odds: Any = None
        self.given: frozenset[str] = frozenset()

    # -- layout ----------------------------------------------------------------------------

    def _roller_choices(self) -> list[tuple[str, Any]]:
        """Everyone who can act (never the Unconscious or the Dead)."""
        return [("— nobody —", NONE)] + [(c.name, cid) for cid, c in self.state.characters.items() if c.can_act]

    def _target_choices(self) -> list[tuple[str, Any]]:
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

    def _or_none(self, cid: Any) -> Any:
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

    def _character(self, cid: Any) -> Any:
        return self.state.characters.get(cid) if cid not in (None, NONE) else None

    async def _rebuild_sources(self) -> None:
        """Checkboxes for the roller's (and the target's) sources this system reads."""
        box = self.query_one("#rd-sources", Vertical)
        await box.remove_children()
        self._sources = []
        widgets: list[Any] = []
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
            **{f.name: f.label for f in forms()[self.system]},
        }
        box = self.query_one("#rd-params", Vertical)
        await box.remove_children()
        widgets: list[Any] = []
        for f in forms()[self.system]:
            value = self._initial(f)
            wid = f"p-{f.name}"
            if f.kind == "bool":
                widgets.append(EnterCheckbox(f.label, bool(value), id=wid, classes="param-check"))
                continue
            if f.kind == "clock":
                names = list(self.state.clocks)
                control: Any = Select(
                    [("— none —", NONE)] + [(n, n) for n in names],
                    value=value if value in names else NONE,
                    allow_blank=False,
                    id=wid,
                    classes="form-input",
                )
            elif f.kind == "choice":
                control = Select(
                    [(label, v) for label, v in f.choices], value=value, allow_blank=False, id=wid, classes="form-input"
                )
            else:
                control = SteadyInput(str(value), placeholder=f.placeholder, id=wid, classes="form-input")
            widgets.append(Horizontal(Label(f.label, classes="form-label"), control, classes="form-row"))
        await box.mount_all(widgets)
        self._apply_sources()

    def _initial(self, f: FormField) -> Any:
        """Preset (from the move that opened the dialog) > remembered > from the actor > default."""
        if self.system == "fudge" and f.name == "opposed":
            return self._initial_opposed()
        if f.name in self.preset:
            return self.preset[f.name]
        if f.name in self.remembered:
            return self.remembered[f.name]
        if f.kind == "bool" and f.name in self._session_defaults():
            return bool(self._session_defaults()[f.name])  # torg Up / Stymied from the roller's conditions
        if self.system == "1d6x4" and f.name == "vs_descriptors" and self.combat:
            return "Defense"
        if self.system == "fudge" and f.name == "method":  # the session's fudge method
            return self.state.info.settings.get("fudge_method", f.default)
        return f.default

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
                w = self.query_one(f"#p-{f.name}")
            except NoMatches:
                # the form of a newly chosen system is still being mounted
                raise ParamError(f.label, "the form is still loading") from None
            out[f.name] = w.value  # type: ignore[attr-defined]
        return out

    def build_params(self) -> Any:
        """The system's Params from the form; ParamError (naming the option) if invalid."""
        module = get_system(self.system)
        values = self.form_values()
        actor = self._character(self.actor)
        target = self._character(self.target)
        data: dict[str, Any] = {}
        info: list[str] = []
        for f in forms()[self.system]:
            v = values[f.name]
            if f.kind in ("descriptors", "clock"):
                continue
            if f.kind == "opt":
                v = v.strip() or None
            elif f.kind == "choice":
                v = None if v == NONE else v
            elif f.kind == "text":
                v = v.strip()
                if v == "" and f.default != "":
                    v = f.default
            data[f.name] = v
        if self.system == "1d6x4":
            data, info = self._one_d6_x4(data, values, actor, target)
        if self.system == "fudge":
            data, info = self._fudge(data, values)
        if self.system == "4d6" and data.get("vs_bonus") is not None:
            data["dc"] = None  # a contest compares the totals: the DC field does not apply
            info.append("Contest: the totals are compared, no DC")
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

    def _check_session(self, module: Any, params: Any, actor: Any, target: Any) -> None:
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

    def _fudge(self, data: dict, values: dict) -> tuple[dict, list[str]]:
        """An empty Vs trait is no opponent (the trait read on its own ladder, as the CLI
        without ``--vs-trait``); an opposed roll is asked for with the Opposed box (or
        ``o``), and then an empty Vs trait is a Fair opponent."""
        from gmdesk.core.systems import fudge

        if self.combat or values.get("opposed"):
            if data.get("vs_trait") is None:
                data["vs_trait"] = fudge.ladder_name(fudge.FAIR)
            return data, [f"Opposed: against {data['vs_trait']}, who rolls too"]
        if data.get("vs_trait") is not None:
            data["vs_trait"] = None
            return data, ["Not opposed: Vs trait counts only with Opposed ticked"]
        return data, []

    def _one_d6_x4(self, data: dict, values: dict, actor: Any, target: Any) -> tuple[dict, list[str]]:
        """Descriptor names → the Test bonus read from the sheets (and automatic failure);
        the typed bonus is added on top."""
        from gmdesk.core.systems import one_d6_x4
        from gmdesk.core.systems.base import parse_int

        info = []
        names = values.get("descriptors", "").strip()
        bonus = parse_int("--bonus", data.get("bonus") or 0)
        if names and actor is None:
            data["test"] = names  # nobody's sheet to read: the names only label the roll
            info.append("No roller: the descriptors are not read from a sheet")
        elif names:
            reading = one_d6_x4.read_test(actor.sheet if actor.sheet is not None else _EMPTY_SHEET(), names)
            found, blocked = reading.bonus, reading.auto_fail
            bonus += found
            data["test"] = names
            info.append(f"Test {signed(found)} from {names}")
            if blocked:
                data["auto_fail"] = blocked
                info.append(f"Automatic failure: {blocked}")
            elif reading.uses:
                info.append(f"Spends a use of {', '.join(reading.uses)}")
        data["bonus"] = bonus
        vs_names = values.get("vs_descriptors", "").strip()
        if vs_names and target is None:
            data["vs_test"] = vs_names
            if data.get("vs_bonus") is None:
                data["vs_bonus"] = "0"
            info.append("No target: the defender's descriptors are not read from a sheet")
        elif vs_names:
            found, blocked = one_d6_x4.test_bonus(
                target.sheet if target.sheet is not None else _EMPTY_SHEET(), vs_names
            )
            typed = data.get("vs_bonus")
            data["vs_bonus"] = found + (parse_int("--vs-bonus", typed) if typed is not None else 0)
            data["vs_test"] = vs_names
            info.append(f"Defender {signed(found)} from {vs_names}")
            if blocked:
                data["vs_auto_fail"] = blocked
                info.append(f"Defender fails automatically: {blocked}")
        return data, info

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
        self.actor = event.value if event.value != NONE else None
        self._retarget()
        await self._rebuild_sources()
        self._reset_condition_params()
        self._apply_sources()
        self._changed()

    @on(Select.Changed, "#rd-target")
    async def target_changed(self, event: Select.Changed) -> None:
        if not self._ready:
            return
        value = event.value if event.value != NONE else None
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
            if f.kind == "bool" and f.name in defaults:
                self.query_one(f"#p-{f.name}", Checkbox).value = bool(defaults[f.name])

    @on(Checkbox.Changed, ".source-box")
    def source_toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._apply_sources()
        self._changed()

    @on(Input.Changed)
    @on(Checkbox.Changed, ".param-check")
    @on(Select.Changed, "#rd-params Select, #rd-tkind")
    def param_changed(self, event: Any) -> None:
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

    def _odds_ready(self, token: int, odds: Any) -> None:
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

    def __init__(self, entry: Any, state: Any, line: str, hide_secrets: bool = False) -> None:
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
        parts: list[Any] = [head, render_record(record, hide_secrets=self.hide_secrets)]
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
