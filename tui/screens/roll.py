"""The roll dialog (``r``) and the attack dialog (``a``): a roll built from the GM's form.

The roll's breakdown is drawn by :mod:`tui.screens.rolldetails`.

:class:`RollDialog` builds the parameters of any installed system from a form
generated from the system's declared parameters (:mod:`tui.screens.rollforms`; the
session's system preselected). It fills in what it can by itself, each value shown
and the GM's to change (:mod:`tui.screens.rollfill`: the roller's and the target's
character fields, what the session knows, the attack's defaults, what the GM typed in
this roller's last roll); the roller's and the target's sources are each a box in
one list, switched off for this roll with Space (:mod:`tui.widgets.rollsources`). A
named stat may be typed instead of a number ("Fire Combat": the roller's, or for a
value the target fills, the target's).

The dialog shows the exact odds of every outcome (:mod:`tui.screens.rollodds`).
Enter rolls: the dialog returns a :class:`RollRequest` and the screen makes the roll.
Parameters are validated by the system's own ``Params`` (a ``ParamError`` shows
inline, the field named by its label, and nothing is rolled), then as the session
would (:func:`tui.screens.rollforms.check_as_session`).

Who is offered (RULES.md "Who can act"): the Roller list holds only characters who
can act (not Unconscious, not Dead); the Target list never holds the roller itself
nor the Dead. When the GM picks another roller, an attack's target follows it (the
new roller's last target if not Dead, else its next standing foe:
``State.default_target``) unless the GM picked the target by hand and it is still
a valid target.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, SelectionList, Static

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.session.params import (
    RollSource,
    fill_data,
    resolve_names,
    roll_sources,
    sheet_items,
    sources_origin,
    sources_params,
)
from gmdesk.core.systems import get_spec, system_ids
from gmdesk.core.systems.spec import COMMON_PARAMS
from gmdesk.tui.screens.dialog import DialogHint
from gmdesk.tui.screens.rollfill import TYPED_AT, Aim, FormFill
from gmdesk.tui.screens.rollforms import (
    CLOCK,
    CLOCK_LABEL,
    NONE,
    check_as_session,
    clock_field,
    form_fields,
    labels,
    read_form,
    said,
    set_value,
    typed_data,
    value_of,
)
from gmdesk.tui.screens.rollodds import OddsDialog
from gmdesk.tui.widgets.common import signed
from gmdesk.tui.widgets.form import Choice, FormField, field_control
from gmdesk.tui.widgets.oddspreview import OddsPreview
from gmdesk.tui.widgets.rollsources import RollSources

if TYPE_CHECKING:
    from gmdesk.core.session import Character, State


def _chosen(value: object) -> str | None:
    """The character a Roller / Target dropdown holds (None for "nobody")."""
    return value if isinstance(value, str) and value != NONE else None


class RollOpening(TypedDict, total=False):
    """What one open of the dialog is for (each left out: the default)."""

    system: str | None  # the session's system
    actor: str | None
    target: str | None
    combat: bool  # an attack (False: a plain roll)
    preset: Mapping[str, Any] | None  # the values a move opens it with
    title: str | None  # "Attack" / "Roll"
    remembered: Mapping[str, Any] | None  # what the GM typed the last time
    opposed: bool  # both sides filled from their fields, as in an attack


@dataclass(frozen=True)
class RollRequest:
    """What the dialog asks the screen to roll."""

    system: str
    params: Any  # the system's Params, filled in: the session logs them as they are
    actor: str | None = None
    target: str | None = None
    combat: bool = False
    values: Mapping[str, Any] = field(default_factory=dict)  # what the GM typed (to prefill next time)
    clock: str | None = None  # the clock the roll's progress goes to (a system with clocks)
    origins: Mapping[str, str] = field(default_factory=dict)  # parameter → "Quinn's Fire Combat"


def open_roll_dialog(screen: object) -> RollDialog | None:
    """The roll dialog open over ``screen`` (the desk), once it is filled in and
    shown; else None."""
    query = getattr(screen, "query", None)
    if query is None:
        return None
    for dlg in query(RollDialog):
        if dlg.is_open and dlg.ready and dlg.display:
            return dlg
    return None


class RollDialog(OddsDialog[RollRequest]):
    """Roll (``combat=False``) or attack (``combat=True``) dialog. Enter rolls from
    any field (:class:`tui.screens.dialog.DialogKeys`). What an open is for (who
    rolls at whom, a move's preset values, what the GM typed the last time) is a
    :class:`RollOpening`.

    The dialog is an overlay on the desk, not a screen of its own: a terminal redraws
    only the part the dialog covers when it opens and the part it uncovered when it
    closes (a pushed or popped screen is redrawn whole, over an SSH link too). The
    desk mounts one and keeps it, hidden between rolls; :meth:`reopen` fills it afresh
    from the session's state at every open (the roller's and the target's values as
    they are now), :meth:`dismiss` hides it and hands the result to the desk. While
    it is open, Tab stays in it (it traps the focus) and the desk's keys wait (it is
    modal): :class:`tui.screens.overlay.OverlayDialog`. Its odds pane is kept current
    by :class:`tui.screens.rollodds.OddsDialog`."""

    # the form is two columns, labels and controls, in grids (no container per row);
    # the focused field's label reads in reverse video, as a form row's does
    DEFAULT_CSS = """
    RollDialog {
        layer: dialog;
        dock: top;
        width: 110;
        height: 34;
        max-width: 100%;
        max-height: 100%;
        display: none;
    }
    RollDialog .form-grid {
        layout: grid;
        grid-size: 2;
        grid-columns: 16 1fr;
        grid-rows: 1;
        height: auto;
    }
    RollDialog .form-grid > .wide {
        column-span: 2;
    }
    RollDialog .form-grid > .form-label.-focused {
        text-style: bold reverse;
    }
    """

    def __init__(
        self,
        state: State,
        *,
        done: Callable[[RollRequest | None], object] | None = None,
        **opening: Unpack[RollOpening],
    ) -> None:
        super().__init__(done)
        # the form's fields and their controls (kept from one open to the next when the
        # form is the same)
        self._fields: list[FormField] = []
        self._controls: dict[str, Widget] = {}
        self._setup(state, **opening)

    def _setup(self, state: State, **opening: Unpack[RollOpening]) -> None:
        """Everything one open of the dialog starts from (the session's state now)."""
        combat = opening.get("combat", False)
        # both sides filled from their fields, as in an attack
        self.opposed = opening.get("opposed", False) and not combat
        self.state = state
        self.system = opening.get("system") or state.info.system
        self.spec = get_spec(self.system)
        self.actor = opening.get("actor")
        self.target = opening.get("target")
        self.combat = combat
        self.preset = dict(opening.get("preset") or {})
        self.remembered = dict(opening.get("remembered") or {})
        self.dialog_title = opening.get("title") or ("Attack" if combat else "Roll")
        roller = self._character(self.actor)
        if roller is None or not roller.can_act:
            self.actor = None  # the Unconscious and the Dead roll for no action
        if self.target not in {v for _, v in self._target_choices()}:
            self.target = None
        self._target_chosen = False  # the GM picked the target by hand
        self._kind = "organic"  # an untracked target's kind, as the GM chose it
        self._fill = FormFill()  # what the dialog filled in by itself
        self.reset_odds()
        self.ready = False  # the form is built and filled in
        self.last_error: str = ""
        self.origins: dict[str, str] = {}  # of the parameters built last
        self._last_seen: tuple[Any, ...] | None = None
        self.labels = self._labels()

    # -- layout ----------------------------------------------------------------------------

    def _roller_choices(self) -> list[tuple[str, str]]:
        """Everyone who can act (never the Unconscious or the Dead)."""
        return [("— nobody —", NONE)] + [(c.name, cid) for cid, c in self.state.characters.items() if c.can_act]

    def _target_choices(self) -> list[tuple[str, str]]:
        """Everyone but the roller and the Dead."""
        return [("— none —", NONE)] + [
            (c.name, cid) for cid, c in self.state.characters.items() if cid != self.actor and c.status != "dead"
        ]

    def _labels(self) -> dict[str, str]:
        # errors name the fields as this form labels them (Params name them by option)
        return {
            "system": "System",
            "actor": "Roller",
            "target": "Target",
            **labels(self.spec),
            CLOCK: CLOCK_LABEL,
        }

    def _asks_kind(self) -> bool:
        """The target's kind is asked only in an attack at an untracked target (a
        tracked one has its own; only an attack's descriptors read it)."""
        return self.combat and self._character(self.target) is None

    def _kind_row(self) -> list[Widget]:
        kinds = next(p for p in COMMON_PARAMS if p.name == "target_kind").choices
        return [
            Label("Target kind", classes="form-label", id="rd-tkind-label"),
            Choice([(k, k) for k in kinds], self._kind, id="rd-tkind", classes="form-input"),
        ]

    async def _show_target_kind(self) -> None:
        """Mount or take away the Target kind row as the target asks."""
        row = list(self.query("#rd-tkind-label, #rd-tkind"))
        if self._asks_kind() and not row:
            await self.query_one("#rd-who").mount_all(self._kind_row())
        elif not self._asks_kind() and row:
            for w in row:
                await w.remove()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="roll-dialog") as box:
            box.border_title = Content(self.dialog_title)
            with Horizontal(id="roll-body"):
                with VerticalScroll(id="roll-form"):
                    with Grid(id="rd-who", classes="form-grid"):
                        yield Label("System", classes="form-label")
                        yield Choice([(s, s) for s in system_ids()], self.system, id="rd-system", classes="form-input")
                        yield Label("Roller", classes="form-label")
                        yield Choice(
                            self._roller_choices(), self._or_none(self.actor), id="rd-actor", classes="form-input"
                        )
                        yield Label("Target", classes="form-label")
                        yield Choice(
                            self._target_choices(), self._or_none(self.target), id="rd-target", classes="form-input"
                        )
                        if self._asks_kind():
                            yield from self._kind_row()
                    yield RollSources(self._roll_sources(), id="rd-sources")
                    yield Grid(*self._param_widgets(), id="rd-params", classes="form-grid")
                    yield Static("", id="rd-info")
                preview = OddsPreview("", id="rd-odds")
                preview.view = self.odds_view
                yield preview
            yield Static("", id="rd-error", classes="inline-error")
            yield DialogHint("attack" if self.combat else "roll", extra=self._view_hint())

    def _or_none(self, cid: str | None) -> str:
        return cid if cid in self.state.characters else NONE

    def on_mount(self) -> None:
        self._show()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focused field's label in reverse video (its row is a grid's two cells)."""
        focused = self.focused
        within = set(focused.ancestors_with_self) if focused is not None else set()
        for grid in self.query(".form-grid"):
            cells = list(grid.children)
            for i, cell in enumerate(cells):
                if isinstance(cell, Label):
                    cell.set_class(i + 1 < len(cells) and cells[i + 1] in within, "-focused")

    # -- opening and closing --------------------------------------------------------------

    def prepare(self, state: State, **opening: Unpack[RollOpening]) -> None:
        """Take this open's starting point (see :meth:`_setup`) at once: what the
        dialog says before it is on screen is already about this open."""
        self.opening(None)
        self.display = False
        self._setup(state, **opening)

    async def reopen(self, done: Callable[[RollRequest | None], object] | None = None) -> None:
        """Open again for what :meth:`prepare` took: every value filled afresh from the
        session's state (the widgets of the form are kept where the form is the
        same, the values never)."""
        self.opening(done)
        # the values set here are the dialog's own, not the GM's changes
        quiet = (Choice.Changed, Input.Changed, Checkbox.Changed, SelectionList.SelectedChanged)
        self.query_one("#roll-dialog").border_title = Content(self.dialog_title)
        with self.prevent(*quiet):
            self.query_one("#rd-system", Choice).value = self.system
            roller = self.query_one("#rd-actor", Choice)
            roller.set_options(self._roller_choices())
            roller.value = self._or_none(self.actor)
            target = self.query_one("#rd-target", Choice)
            target.set_options(self._target_choices())
            target.value = self._or_none(self.target)
        await self._show_target_kind()
        with self.prevent(*quiet):
            for kind in self.query("#rd-tkind").results(Choice):
                kind.value = self._kind
        await self._rebuild_sources()
        fields = self._form()
        if fields == self._fields and all(f.key in self._controls for f in fields):
            # the same form (the same system, a roll or an attack as before): its
            # widgets are kept, every value is filled in afresh
            self._fields = fields
            start = self._start_values()
            with self.prevent(*quiet):
                for f in fields:
                    set_value(self._controls[f.key], start[f.key])
        else:
            await self._rebuild_params()
        self.query_one("#rd-error", Static).update("")
        self.query_one("#rd-info", Static).update("")
        self.query_one(OddsPreview).show_pending()
        self.query_one("#roll-form", VerticalScroll).scroll_home(animate=False)
        self.query_one(DialogHint).verb = "attack" if self.combat else "roll"
        self._show()

    def _show(self) -> None:
        """The form is filled in: check it, start the odds, show it, focus its first field."""
        self._opened = True
        self._apply_sources()
        self.ready = True
        self._changed(at_once=True)
        self.show()

    def on_close(self) -> None:
        """Odds still on their way belong to no open."""
        self.ready = False
        self.stop_odds()

    def focus_first(self) -> None:
        for f in self._fields:
            w = self._controls.get(f.key)
            if isinstance(w, Input):
                w.focus(scroll_visible=False)
                return

    # -- the parts that depend on the system / actor -------------------------------------

    def _character(self, cid: str | None) -> Character | None:
        return self.state.characters.get(cid) if cid is not None and cid != NONE else None

    def _aim(self) -> Aim:
        """The roll the form is for, as the dialog stands now (what its filling reads)."""
        actor, target = self._character(self.actor), self._character(self.target)
        return Aim(self.state, self.system, self.spec, actor, target, self.target, self.combat, self.opposed)

    def _start_values(self) -> dict[str, Any]:
        """Each field's first value (:meth:`tui.screens.rollfill.FormFill.start`)."""
        return self._fill.start(self._aim(), self._fields, self.preset, self.remembered)

    def _refill(self) -> None:
        """The roller or target changed: what the dialog filled in from the old one is
        filled in afresh; what the GM typed stays."""
        self._fill.refill(self._aim(), self._fields, self._controls)

    def _roll_sources(self) -> list[RollSource]:
        """The roller's (and the target's) sources this system reads."""
        return roll_sources(self.system, self._character(self.actor), self._character(self.target))

    def source_on(self, widget_id: str) -> bool:
        """Whether the source ``widget_id`` ("src-own-0") counts in this roll."""
        return self.query_one(RollSources).is_on(widget_id)

    def set_source(self, widget_id: str, on: bool) -> None:
        """Switch the source ``widget_id`` on or off for this roll (as Space in the list)."""
        self.query_one(RollSources).switch(widget_id, on)

    async def _rebuild_sources(self) -> None:
        await self.query_one(RollSources).show_sources(self._roll_sources())

    def _form(self) -> list[FormField]:
        # only what can be used: an attack does not offer what it refuses (a table that
        # is not the combat table), a plain roll what counts only in an attack, an
        # opposed roll a difficulty its comparison replaces
        fields = [f for p, f in form_fields(self.spec) if p.in_dialog(self.combat, self.opposed)]
        if self.spec.clocks:
            fields.append(clock_field(self.state.clocks))
        return fields

    def _param_widgets(self) -> list[Widget]:
        """The system's form, each field filled in (see the module docstring)."""
        self._fields = self._form()
        self._controls = {}
        start = self._start_values()
        widgets: list[Widget] = []
        for f in self._fields:
            wid = f"p-{f.key}"
            if f.kind == "bool":
                control = field_control(f, wid, start[f.key], check_classes="param-check wide")
                widgets.append(control)
            else:
                if f.kind == "choice":  # a light dropdown: the dialog opens at once
                    control = Choice([(label, v) for v, label in f.choices], start[f.key], id=wid, classes="form-input")
                else:
                    control = field_control(f, wid, start[f.key])
                widgets += [Label(f.label, classes="form-label"), control]
            self._controls[f.key] = control
        return widgets

    async def _rebuild_params(self) -> None:
        box = self.query_one("#rd-params", Grid)
        await box.remove_children()
        await box.mount_all(self._param_widgets())
        self._apply_sources()

    def _apply_sources(self) -> None:
        """Write the checked sources into the parameter they feed (shift / adv)."""
        sources = self.query_one(RollSources)
        if not sources.boxes:
            return
        for name, value in sources_params(self.system, sources.checked()).items():
            text = ",".join(signed(v) for v in value) if isinstance(value, tuple) else str(value)
            w = self._controls.get(name)
            if isinstance(w, Input):
                self._fill.auto[name] = text
                if w.value != text:
                    w.value = text

    def _sources_origins(self, values: dict[str, Any]) -> dict[str, str]:
        """Parameter → "Vex's Pistol +1, DEX +1" for each value the checked sources gave
        and the GM left as it is: the record keeps it, as ``gmdesk roll --save`` does."""
        sources = self.query_one(RollSources)
        checked = sources.checked() if sources.boxes else []
        if not checked:
            return {}
        told = sources_origin(checked)
        made = sources_params(self.system, checked)
        return {name: told for name in made if name in values and values[name] == self._fill.auto.get(name)}

    # -- reading the form -------------------------------------------------------------------

    def form_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in self._fields:
            w = self._controls.get(f.key)
            if w is None or not w.is_attached:
                # the form of a newly chosen system is still being mounted
                raise ParamError(f.label, "the form is still loading")
            out[f.key] = value_of(w)
        return out

    def build_params(self) -> Any:
        """The system's Params from the form; ParamError (naming the option) if invalid."""
        spec = self.spec
        values = self.form_values()
        actor = self._character(self.actor)
        target = self._character(self.target)
        notes = self._fill.notes(self._fields, values, actor)
        origins = self._fill.kept_origins(self._fields, values) | self._sources_origins(values)
        data = typed_data(spec, values, self.combat)
        data, named = resolve_names(spec, data, actor, target)
        for key, origin in named.items():
            origins[key] = str(origin)
            notes.append(f"{self.labels.get(key, key)} {said(data.get(key))} — {origin}")
        items = sheet_items(self.state.characters.values())
        data, info = read_form(spec, data, actor, target, self.combat, items)
        data["combat"] = self.combat
        if target is None:  # an untracked target: its kind as chosen (a tracked one has its own)
            data["target_kind"] = self._kind
        names = {f.name for f in dataclasses.fields(spec.Params)}
        data = {k: v for k, v in data.items() if k in names}
        # filled once, here, as Session.roll fills a roll given as data (the one code
        # path, core.session.params.fill_data): what the form does not show (kinds, the
        # session's settings) is filled in; what it shows is the GM's and stays. The
        # roll is then logged as it is built (Session.roll(fill=False)).
        params, _ = fill_data(
            self.state.info.settings, spec, data, actor, target, self.combat, given=frozenset(data), items=items
        )
        self.origins = origins
        self.query_one("#rd-info", Static).update("\n".join(notes + info))
        check_as_session(spec, params, actor, target)
        return params

    # -- reacting to edits -------------------------------------------------------------------

    @on(Choice.Changed, "#rd-system")
    async def system_changed(self, event: Choice.Changed) -> None:
        if not self.ready or event.value == self.system:
            return
        self.system = str(event.value)
        self.spec = get_spec(self.system)
        self.labels = self._labels()
        self.preset = {}
        self.remembered = {}
        self.ready = False
        await self._rebuild_sources()
        await self._rebuild_params()
        self.ready = True
        self._changed()
        self.focus_first()

    @on(Choice.Changed, "#rd-actor")
    async def actor_changed(self, event: Choice.Changed) -> None:
        if not self.ready or _chosen(event.value) == self.actor:
            return  # (a dropdown also says its first value)
        self.actor = _chosen(event.value)
        self._fill.from_last = {}  # offered from the other roller's last roll
        self._retarget()
        await self._show_target_kind()
        await self._rebuild_sources()
        self._refill()
        self._apply_sources()
        self._changed()

    @on(Choice.Changed, "#rd-target")
    async def target_changed(self, event: Choice.Changed) -> None:
        if not self.ready:
            return
        value = _chosen(event.value)
        if value == self.target:
            return  # the value the dialog set itself
        self.target = value
        self._target_chosen = True
        await self._show_target_kind()
        await self._rebuild_sources()
        self._refill()
        self._apply_sources()
        self._changed()

    def _retarget(self) -> None:
        """The roller changed: the target list leaves the new roller out, and an attack's
        target follows the roller unless the GM chose one that is still valid."""
        choices = self._target_choices()
        legal = {v for _, v in choices}
        aimed = self.combat or self.opposed
        keep = self.target in legal and (self._target_chosen or not aimed)
        if not keep:
            self.target = self.state.default_target(self.actor) if aimed else None
            self._target_chosen = False
        sel = self.query_one("#rd-target", Choice)
        with sel.prevent(Choice.Changed):
            sel.set_options(choices)
            sel.value = self._or_none(self.target)

    @on(SelectionList.SelectedChanged, "#rd-source-list")
    def source_toggled(self, event: SelectionList.SelectedChanged) -> None:
        event.stop()
        self._apply_sources()
        self._changed()

    @on(Choice.Changed, "#rd-tkind")
    def kind_changed(self, event: Choice.Changed) -> None:
        self._kind = str(event.value)
        self._changed()

    @on(Input.Changed)
    @on(Checkbox.Changed, ".param-check")
    @on(Choice.Changed, "#rd-params Choice")
    def param_changed(self, event: Input.Changed | Checkbox.Changed | Choice.Changed) -> None:
        self._changed()

    def _changed(self, at_once: bool = False) -> None:
        """Validate now (inline message), compute odds in a worker: ``at_once`` (the
        dialog just opened), else a moment after the last change."""
        if not self.ready:
            return
        try:
            seen = self._seen()
        except GmdeskError:
            seen = None
        if seen is not None and seen == self._last_seen:
            return  # nothing changed (a dropdown says its first value, a value set again)
        self._last_seen = seen
        try:
            params = self.build_params()
        except GmdeskError as e:
            self.last_error = self.show_error(e)
            self.no_odds("no odds: fix the parameters")
            return
        self.last_error = ""
        self.query_one("#rd-error", Static).update("")
        self.start_odds(self.spec, params, at_once)

    def _seen(self) -> tuple[Any, ...]:
        """Everything the parameters are built from, to tell a change from a repeat."""
        sources = self.query_one(RollSources).switches()
        values = tuple(self.form_values().items())
        return (self.system, self.actor, self.target, self._kind, sources, values)

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
        typed = self._fill.typed(values)
        typed[TYPED_AT] = self.target
        clock = values.get(CLOCK) if self.spec.clocks else None
        self.dismiss(
            RollRequest(
                self.system,
                params,
                self.actor,
                self.target,
                self.combat,
                typed,
                clock=clock or None,
                origins=dict(self.origins),
            )
        )

    def action_submit(self) -> None:
        self.action_roll()
