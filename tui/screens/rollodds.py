"""The roll dialog's odds pane kept current (:class:`OddsDialog`, the base of
:class:`tui.screens.roll.RollDialog`).

The exact odds of every outcome are computed in a worker, off the event loop: at once
when the dialog opens, then a moment after the parameters stop changing. Odds computed
for an earlier open, or for parameters changed since, are dropped. One key switches
the pane between the outcomes and the curve of the roll's headline value; the curve is
computed only while it is the view shown.
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.binding import Binding
from textual.timer import Timer

from gmdesk.core.curve import Curve
from gmdesk.core.errors import GmdeskError
from gmdesk.core.odds import Odds
from gmdesk.core.session.events import session_tables
from gmdesk.core.systems.spec import SystemSpec
from gmdesk.core.tables import DEFAULT_TABLES, TableSet
from gmdesk.tui.screens.dialog import DialogHint, keys_text, ui_message
from gmdesk.tui.screens.overlay import OverlayDialog, ResultT
from gmdesk.tui.widgets.oddspreview import CURVE, OUTCOMES, OddsPreview


class OddsDialog(OverlayDialog[ResultT]):
    """An overlay dialog with an odds pane (an :class:`OddsPreview`): a subclass hands
    it the parameters it built (:meth:`start_odds`) or says it has none
    (:meth:`no_odds`)."""

    #: seconds after the last change before the odds are computed
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

    #: the form's field labels, to name a field in a message about the odds
    labels: dict[str, str]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._odds_timer: Timer | None = None
        self._odds_token = 0  # never reset: odds computed for an earlier open are dropped
        self.odds_view = OUTCOMES  # what the odds pane shows: kept from one open to the next
        self.last_odds: Odds | None = None
        self.last_curve: Curve | None = None
        self._odds_of: tuple[SystemSpec | None, Any, int] | None = None  # what the odds shown are of

    def reset_odds(self) -> None:
        """A new open: no odds yet (the timer of the last change is stopped)."""
        if self._odds_timer is not None:
            self._odds_timer.stop()
            self._odds_timer = None
        self.last_odds = None
        self.last_curve = None
        self._odds_of = None

    def stop_odds(self) -> None:
        """Odds still on their way belong to nothing shown."""
        self._odds_token += 1
        if self._odds_timer is not None:
            self._odds_timer.stop()
            self._odds_timer = None

    def no_odds(self, why: str) -> None:
        """The parameters cannot be rolled: no odds (``why`` says so in the pane)."""
        self.query_one(OddsPreview).show_none(why)
        self._odds_token += 1

    def odds_tables(self) -> TableSet:
        """The tables the odds are of: the session's (a GM's own in force), else the built-in ones."""
        state = getattr(self, "state", None)
        return session_tables(state.info.settings) if state is not None else DEFAULT_TABLES

    def start_odds(self, spec: SystemSpec, params: Any, at_once: bool = False) -> None:
        """Compute the odds of ``params``: ``at_once`` (the dialog just opened), else a
        moment after the last change."""
        self.query_one(OddsPreview).show_pending()
        self.stop_odds()
        token = self._odds_token
        if at_once:
            self._work_out_odds(spec, params, token)
        else:
            self._odds_timer = self.set_timer(self.ODDS_DELAY, lambda: self._work_out_odds(spec, params, token))

    @work(thread=True, exclusive=True, group="odds")
    def _work_out_odds(self, spec: SystemSpec, params: Any, token: int) -> None:
        # the curve only when it is the view shown: an open costs nothing more unless
        # the GM looks at the curve (the key asks for it then, :meth:`_want_curve`)
        curve: Curve | None = None
        try:
            tables = self.odds_tables()
            odds = spec.odds(params, tables)
            if self.odds_view == CURVE:
                curve = spec.curve(params, tables, odds=odds)
        except GmdeskError as e:
            self.app.call_from_thread(self._odds_failed, token, ui_message(e, self.labels))
            return
        self.app.call_from_thread(self._odds_ready, token, odds, curve, spec, params)

    def _current(self, token: int) -> bool:
        # the odds may arrive while the dialog is closing (its widgets already gone)
        return token == self._odds_token and self.is_mounted and self.is_open

    def _odds_ready(
        self, token: int, odds: Odds, curve: Curve | None = None, spec: SystemSpec | None = None, params: Any = None
    ) -> None:
        if self._current(token):
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
                self._work_out_curve(spec, params, self.last_odds, token)

    @work(thread=True, exclusive=True, group="curve")
    def _work_out_curve(self, spec: SystemSpec, params: Any, odds: Odds, token: int) -> None:
        try:
            curve = spec.curve(params, self.odds_tables(), odds=odds)
        except GmdeskError as e:
            self.app.call_from_thread(self._odds_failed, token, ui_message(e, self.labels))
            return
        self.app.call_from_thread(self._curve_ready, token, curve)

    def _curve_ready(self, token: int, curve: Curve) -> None:
        if self._current(token):
            self.last_curve = curve
            for preview in self.query(OddsPreview):
                preview.show_curve(curve)

    def _odds_failed(self, token: int, message: str) -> None:
        if self._current(token):
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
