"""The roll dialog (``r``) and the attack dialog (``a``): a roll built from the GM's form.

The roll's breakdown is drawn by :mod:`tui.screens.rolldetails`.

:class:`RollDialog` builds the parameters of any installed system from a form
generated from the system's declared parameters (:mod:`tui.screens.rollforms`; the
session's system preselected). It fills in what it can by itself, each value shown
and the GM's to change:

* the roller's and the target's character fields (``field_defaults`` of
  :mod:`core.session.params`: Quinn's Fire Combat as the Skill value, the Trooper's
  Dodge as the Difficulty), each with a note saying where it came from;
* what the session knows (``roll_defaults``: the active sources, each one a checkbox
  that can be switched off for this roll, conditions, the session's settings) —
  the same code path as ``gmdesk roll … --save``;
* what the system offers in an attack (``Param.combat_default``), else the declared
  default.

A move that opens the dialog (an opposed roll, a fold) sets its own values first;
what the GM typed in this roller's last roll comes after the characters' fields,
only for what the system declares remembered (``Param.remember``: a skill value, a
weapon's damage — never a one-off choice such as a fold), and a note says that the
value came from the last roll. A
named stat may be typed instead of a number ("Fire Combat": the roller's, or for a
value the target fills, the target's). When the GM picks another roller or target,
the values filled from the old one are replaced and the values the GM typed are
kept.

The dialog shows the exact odds of every outcome, computed in a worker (at once when
it opens, then a moment after the parameters stop changing). Enter rolls: the dialog
returns a :class:`RollRequest` and the screen makes the roll. Parameters are
validated by the system's own ``Params`` (a ``ParamError`` shows inline, the field
named by its label, and nothing is rolled).

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
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, SelectionList, Static

from gmdesk.core.curve import Curve
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.odds import Odds
from gmdesk.core.session.params import (
    RollSource,
    field_defaults,
    fill_data,
    resolve_names,
    roll_defaults,
    roll_sources,
    sheet_items,
    sources_params,
)
from gmdesk.core.systems import get_spec, system_ids
from gmdesk.core.systems.spec import COMMON_PARAMS, SystemSpec
from gmdesk.tui.screens.dialog import DialogHint, keys_text, ui_message
from gmdesk.tui.screens.overlay import OverlayDialog
from gmdesk.tui.screens.rollforms import (
    CLOCK,
    CLOCK_LABEL,
    NONE,
    clock_field,
    control_value,
    form_fields,
    labels,
    read_form,
    said,
    set_value,
    shown_field,
    typed_data,
    value_of,
)
from gmdesk.tui.widgets.common import signed
from gmdesk.tui.widgets.controls import ReadableSelectionList
from gmdesk.tui.widgets.form import Choice, FormField, field_control
from gmdesk.tui.widgets.oddspreview import CURVE, OUTCOMES, OddsPreview

if TYPE_CHECKING:
    from gmdesk.core.session import Character, State

#: the key of :attr:`RollRequest.values` that says at whom the typed values were aimed
#: (a value typed against one target is not offered against another)
TYPED_AT = "~target"


def _chosen(value: object) -> str | None:
    """The character a Roller / Target dropdown holds (None for "nobody")."""
    return value if isinstance(value, str) and value != NONE else None


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


@dataclass(frozen=True)
class SourceBox:
    """A box of the dialog's Sources list: one of the actor's (or target's) sources."""

    widget_id: str
    source: RollSource


class RollDialog(OverlayDialog[RollRequest]):
    """Roll (``combat=False``) or attack (``combat=True``) dialog. Enter rolls from
    any field (:class:`tui.screens.dialog.DialogKeys`). ``preset``: parameter values a
    move opens it with; ``remembered``: what the GM typed the last time.

    The dialog is an overlay on the desk, not a screen of its own: a terminal redraws
    only the part the dialog covers when it opens and the part it uncovered when it
    closes (a pushed or popped screen is redrawn whole, over an SSH link too). The
    desk mounts one and keeps it, hidden between rolls; :meth:`reopen` fills it afresh
    from the session's state at every open (the roller's and the target's values as
    they are now), :meth:`dismiss` hides it and hands the result to the desk. While
    it is open, Tab stays in it (it traps the focus) and the desk's keys wait (it is
    modal): :class:`tui.screens.overlay.OverlayDialog`."""

    ODDS_DELAY = 0.15

    BINDINGS = [
        Binding(
            "ctrl+t",
            "toggle_curve",
            "Curve",
            tooltip="The odds pane: the outcomes, or the curve of the roll's value",
            id="roll.curve",
        ),
    ]

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
        system: str | None = None,
        actor: str | None = None,
        target: str | None = None,
        combat: bool = False,
        preset: Mapping[str, Any] | None = None,
        title: str | None = None,
        remembered: Mapping[str, Any] | None = None,
        opposed: bool = False,
        done: Callable[[RollRequest | None], object] | None = None,
    ) -> None:
        super().__init__(done)
        self._odds_timer: Timer | None = None
        self._odds_token = 0  # never reset: odds computed for an earlier open are dropped
        self.odds_view = OUTCOMES  # what the odds pane shows: kept from one open to the next
        # the form's fields and their controls (kept from one open to the next when the
        # form is the same)
        self._fields: list[FormField] = []
        self._controls: dict[str, Widget] = {}
        self._setup(
            state,
            system=system,
            actor=actor,
            target=target,
            combat=combat,
            preset=preset,
            title=title,
            remembered=remembered,
            opposed=opposed,
        )

    def _setup(
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
        opposed: bool = False,
    ) -> None:
        """Everything one open of the dialog starts from (the session's state now)."""
        self.opposed = opposed and not combat  # both sides filled from their fields, as in an attack
        self.state = state
        self.system = system or state.info.system
        self.spec = get_spec(self.system)
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
        self._kind = "organic"  # an untracked target's kind, as the GM chose it
        self._sources: list[SourceBox] = []
        self._auto: dict[str, Any] = {}  # what the dialog put in each control by itself
        self._origins: dict[str, str] = {}  # where a value filled from a character came from
        self._from_last: dict[str, Any] = {}  # the values offered again from the last roll
        if self._odds_timer is not None:
            self._odds_timer.stop()
            self._odds_timer = None
        self.ready = False  # the form is built and filled in
        self.last_error: str = ""
        self.last_odds: Odds | None = None
        self.last_curve: Curve | None = None
        self._odds_of: tuple[SystemSpec | None, Any, int] | None = None  # what the odds shown are of
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
            box.border_title = self.dialog_title
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
                    sources = self._source_widgets()
                    box_sources = Vertical(*sources, id="rd-sources")
                    box_sources.display = bool(sources)
                    yield box_sources
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

    def prepare(self, state: State, **kwargs: Any) -> None:
        """Take this open's starting point (see :meth:`_setup`) at once: what the
        dialog says before it is on screen is already about this open."""
        self.opening(None)
        self.display = False
        self._setup(state, **kwargs)

    async def reopen(self, done: Callable[[RollRequest | None], object] | None = None) -> None:
        """Open again for what :meth:`prepare` took: every value filled afresh from the
        session's state (the widgets of the form are kept where the form is the
        same, the values never)."""
        self.opening(done)
        # the values set here are the dialog's own, not the GM's changes
        quiet = (Choice.Changed, Input.Changed, Checkbox.Changed, SelectionList.SelectedChanged)
        self.query_one("#roll-dialog").border_title = self.dialog_title
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
        self._odds_token += 1
        if self._odds_timer is not None:
            self._odds_timer.stop()
            self._odds_timer = None

    def focus_first(self) -> None:
        for f in self._fields:
            w = self._controls.get(f.key)
            if isinstance(w, Input):
                w.focus(scroll_visible=False)
                return

    # -- the parts that depend on the system / actor -------------------------------------

    def _character(self, cid: str | None) -> Character | None:
        return self.state.characters.get(cid) if cid is not None and cid != NONE else None

    def _source_widgets(self) -> list[Widget]:
        """The roller's (and the target's) sources this system reads, as one list of
        boxes (one field: Tab leaves it, ↑/↓ move in it, Space switches one off)."""
        self._sources = []
        options: list[tuple[str, int, bool]] = []
        counts: dict[str, int] = {}
        for src in roll_sources(self.system, self._character(self.actor), self._character(self.target)):
            i = counts[src.owner] = counts.get(src.owner, -1) + 1
            self._sources.append(SourceBox(f"src-{src.owner}-{i}", src))
            who = "" if src.owner == "own" else f"{src.who}: "
            options.append((f"{who}{src.name} {signed(src.value)} ({src.kind})", len(options), src.active))
        if not options:
            return []
        return [
            Label("Sources (Space: off for this roll)", classes="form-note"),
            ReadableSelectionList(*options, id="rd-source-list", compact=True),
        ]

    def source_on(self, widget_id: str) -> bool:
        """Whether the source ``widget_id`` ("src-own-0") counts in this roll."""
        at = next(i for i, sb in enumerate(self._sources) if sb.widget_id == widget_id)
        return at in self.query_one("#rd-source-list", SelectionList).selected

    def set_source(self, widget_id: str, on: bool) -> None:
        """Switch the source ``widget_id`` on or off for this roll (as Space in the list)."""
        at = next(i for i, sb in enumerate(self._sources) if sb.widget_id == widget_id)
        box = self.query_one("#rd-source-list", SelectionList)
        if on:
            box.select(at)
        else:
            box.deselect(at)

    async def _rebuild_sources(self) -> None:
        box = self.query_one("#rd-sources", Vertical)
        await box.remove_children()
        widgets = self._source_widgets()
        if widgets:
            await box.mount_all(widgets)
        box.display = bool(widgets)

    def _form(self) -> list[FormField]:
        # only what can be used: an attack does not offer what it refuses (a table that
        # is not the combat table), a plain roll what counts only in an attack
        fields = [f for p, f in form_fields(self.spec) if p.in_dialog(self.combat)]
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

    def _filled(self) -> dict[str, tuple[Any, str]]:
        """What the dialog fills in by itself, for every field: (the control's value,
        the character field it came from or "")."""
        actor, target = self._character(self.actor), self._character(self.target)
        fields = field_defaults(self.spec, actor, target, self.combat, self.opposed) if actor or target else {}
        session = roll_defaults(self.state.info.settings, self.system, actor, target, self.combat)
        out: dict[str, tuple[Any, str]] = {}
        for f in self._fields:
            p = self.spec.param(f.key)
            if f.key in fields:
                value, origin = fields[f.key]
                out[f.key] = (control_value(f, shown_field(self.spec, f.key, value)), str(origin))
            elif f.key in session:
                out[f.key] = (control_value(f, session[f.key]), "")
            elif self.combat and p is not None and p.combat_default is not None:
                out[f.key] = (control_value(f, p.combat_default), "")
            else:
                out[f.key] = (f.value, "")
        return out

    def _start_values(self) -> dict[str, Any]:
        """Each field's first value: the move's preset (in an opposed roll, after a
        character's field), else a character's field, else what the GM typed in the
        roller's last roll (what the system declares remembered, unless aimed at
        another target), else what the session fills in, else the attack's or the
        declared default."""
        filled = self._filled()
        target_fed = {f.feeds for f in self.spec.character_fields if f.from_ == "target"}
        # a value typed against one target is not offered against another
        typed_at = self.remembered.get(TYPED_AT) if self.target is not None else None
        aimed = (None, self.target)
        out: dict[str, Any] = {}
        self._auto, self._origins, self._from_last = {}, {}, {}
        for f in self._fields:
            auto, origin = filled[f.key]
            self._auto[f.key] = auto
            if origin:
                self._origins[f.key] = origin
            p = self.spec.param(f.key)
            # a move's preset wins; in an opposed roll, a character's field wins over it
            # (the preset is then what a side without the field rolls with)
            if f.key in self.preset and not (origin and self.opposed):
                out[f.key] = control_value(f, self.preset[f.key])
            elif (
                not origin
                and p is not None
                and p.remember
                and f.key in self.remembered
                and (f.key not in target_fed or typed_at in aimed)
            ):
                out[f.key] = self._from_last[f.key] = control_value(f, self.remembered[f.key])
            else:
                out[f.key] = auto
        return out

    def _refill(self) -> None:
        """The roller or target changed: what the dialog filled in from the old one is
        filled in afresh; what the GM typed stays."""
        for key, (value, origin) in self._filled().items():
            w = self._controls.get(key)
            if w is None:
                continue
            if value_of(w) == self._auto.get(key):
                set_value(w, value)
            self._auto[key] = value
            if origin:
                self._origins[key] = origin
            else:
                self._origins.pop(key, None)

    def _apply_sources(self) -> None:
        """Write the checked sources into the parameter they feed (shift / adv)."""
        if not self._sources:
            return
        on = [sb.source for sb in self._sources if self.source_on(sb.widget_id)]
        for name, value in sources_params(self.system, on).items():
            text = ",".join(signed(v) for v in value) if isinstance(value, tuple) else str(value)
            w = self._controls.get(name)
            if isinstance(w, Input):
                self._auto[name] = text
                if w.value != text:
                    w.value = text

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

    def _filled_notes(self, values: Mapping[str, Any]) -> list[str]:
        """ "Skill value 13 — Quinn's Fire Combat" for each value still as filled in,
        "Damage 2d6 — Kara's last roll" for each value still as offered again."""
        out = []
        roller = self._character(self.actor)
        last = f"{roller.name}'s last roll" if roller is not None else "the last roll"
        for f in self._fields:
            origin = self._origins.get(f.key)
            if origin and values.get(f.key) == self._auto.get(f.key):
                out.append(f"{f.label} {said(values[f.key])} — {origin}")
            elif f.key in self._from_last and values.get(f.key) == self._from_last[f.key]:
                out.append(f"{f.label} {said(values[f.key])} — {last}")
        return out

    def build_params(self) -> Any:
        """The system's Params from the form; ParamError (naming the option) if invalid."""
        spec = self.spec
        values = self.form_values()
        actor = self._character(self.actor)
        target = self._character(self.target)
        notes = self._filled_notes(values)
        origins = {f.key: self._origins[f.key] for f in self._fields if f.key in self._origins}
        origins = {k: v for k, v in origins.items() if values.get(k) == self._auto.get(k)}
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
        self._check_session(spec, params, actor, target)
        return params

    def _check_session(self, spec: SystemSpec, params: Any, actor: Character | None, target: Character | None) -> None:
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
        refused = params_refusal(spec.id, params, actor)
        if refused is not None:
            raise refused

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
        self._from_last = {}  # offered from the other roller's last roll
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
            self._odds_timer = None
        spec = self.spec
        if at_once:
            self._compute_odds(spec, params, token)
        else:
            self._odds_timer = self.set_timer(self.ODDS_DELAY, lambda: self._compute_odds(spec, params, token))

    def _seen(self) -> tuple[Any, ...]:
        """Everything the parameters are built from, to tell a change from a repeat."""
        sources = tuple(self.source_on(sb.widget_id) for sb in self._sources)
        values = tuple(self.form_values().items())
        return (self.system, self.actor, self.target, self._kind, sources, values)

    @work(thread=True, exclusive=True, group="odds")
    def _compute_odds(self, spec: SystemSpec, params: Any, token: int) -> None:
        # the curve only when it is the view shown: an open costs nothing more unless
        # the GM looks at the curve (the key asks for it then, :meth:`_want_curve`)
        curve: Curve | None = None
        try:
            odds = spec.odds(params)
            if self.odds_view == CURVE:
                curve = spec.curve(params, odds=odds)
        except GmdeskError as e:
            self.app.call_from_thread(self._odds_failed, token, ui_message(e, self.labels))
            return
        self.app.call_from_thread(self._odds_ready, token, odds, curve, spec, params)

    def _odds_ready(
        self, token: int, odds: Odds, curve: Curve | None = None, spec: SystemSpec | None = None, params: Any = None
    ) -> None:
        # the odds may arrive while the dialog is closing (its widgets already gone)
        if token == self._odds_token and self.is_mounted and self._opened:
            self.last_odds, self.last_curve = odds, curve
            self._odds_of = (spec, params, token) if spec is not None else None
            for preview in self.query(OddsPreview):
                preview.show_odds(odds, curve)
            self._want_curve()

    def _want_curve(self) -> None:
        """The curve is the view shown and the odds shown have none yet: compute it."""
        if self.odds_view == CURVE and self.last_curve is None and self.last_odds is not None and self._odds_of:
            spec, params, token = self._odds_of
            if spec is not None and token == self._odds_token:
                self._compute_curve(spec, params, self.last_odds, token)

    @work(thread=True, exclusive=True, group="curve")
    def _compute_curve(self, spec: SystemSpec, params: Any, odds: Odds, token: int) -> None:
        try:
            curve = spec.curve(params, odds=odds)
        except GmdeskError as e:
            self.app.call_from_thread(self._odds_failed, token, ui_message(e, self.labels))
            return
        self.app.call_from_thread(self._curve_ready, token, curve)

    def _curve_ready(self, token: int, curve: Curve) -> None:
        if token == self._odds_token and self.is_mounted and self._opened:
            self.last_curve = curve
            for preview in self.query(OddsPreview):
                preview.show_curve(curve)

    def _odds_failed(self, token: int, message: str) -> None:
        if token == self._odds_token and self.is_mounted and self._opened:
            for preview in self.query(OddsPreview):
                preview.show_none(f"no odds: {message}")

    # -- the odds pane's view ----------------------------------------------------------------

    def action_toggle_curve(self) -> None:
        """The odds pane shows the curve of the roll's value instead of its outcomes,
        or the outcomes again (the choice stays for the next open)."""
        self.odds_view = CURVE if self.odds_view == OUTCOMES else OUTCOMES
        for preview in self.query(OddsPreview):
            preview.set_view(self.odds_view)
        self._want_curve()
        for hint in self.query(DialogHint):
            hint.extra = self._view_hint()
            hint.refresh_hint()

    def _view_hint(self) -> str:
        """The hint line's words for the curve key ("Ctrl+T curve"), as bound now."""
        keys = keys_text(self, "toggle_curve").split("/")[0] if self.is_attached else ""
        keys = keys or "Ctrl+T"
        return f"{keys} {'outcomes' if self.odds_view == CURVE else 'curve'}"

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
        typed: dict[str, Any] = {k: v for k, v in values.items() if v != self._auto.get(k)}
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
