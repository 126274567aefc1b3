"""The live odds preview of the roll dialog: every named outcome with its exact
probability (as a percentage) and a bar (scaled to the likeliest line); without named
outcomes, the distribution of the headline value, its far tails folded into one row
each (``core.oddstable.distribution_rows``). The uncounted chance of endless reroll
chains (a system's open-ended dice, under 1e-12) is left out: it would never show as a percentage.

Its other view is the curve (:attr:`OddsPreview.view`, switched by the dialog's curve
key): the exact chance of each value of the roll's headline value, one row per value,
with a rule above the first value that succeeds when the parameters define one
(``core.curve.curve_text``). It only draws the ``Odds`` and the ``Curve`` it is given —
computing them is the dialog's worker's job.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from rich.text import Text
from textual.widgets import Static

from gmdesk.core.curve import Curve, curve_text, fit
from gmdesk.core.odds import Odds
from gmdesk.core.oddstable import distribution_rows

#: the preview's views: the named outcomes, or the curve of the headline value
OUTCOMES, CURVE = "outcomes", "curve"

BAR_WIDTH = 12
#: the most columns an outcome's label takes, and the fewest its bar keeps: the
#: labels read whole in the roll dialog's odds pane at 80×24 ("Extraordinary Success")
LABEL_MOST = 24
BAR_LEAST = 3
#: the uncounted chance of very long reroll chains (open-ended dice, under 1e-12) is shown
#: only when a percentage with two decimals would see it
TAIL_SHOWN = 0.00005


def pct(p: float) -> str:
    if p == 0:
        return "0%"
    if p < 0.0001:
        return "<0.01%"
    return f"{p * 100:.2f}%"


def bar(p: float, width: int = BAR_WIDTH) -> str:
    eighths = round(p * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")


def odds_text(odds: Odds, width: int = BAR_WIDTH, line_width: int | None = None) -> Text:
    """Outcomes (or the distribution) as lines ``label  12.50% ███``; with
    ``line_width`` the labels and bars shrink so that no line wraps."""
    text = Text()
    rows: list[tuple[str, float]]
    if odds.outcomes:  # those these numbers cannot give are left out (a 0% row reads as noise)
        rows = [(label, float(p)) for label, p in odds.outcomes if p]
    else:  # the curve, far tails folded ("≤ −20" / "≥ +20")
        rows = [(label, float(p)) for label, p in distribution_rows(odds)]
    label_w = min(LABEL_MOST, max((len(label) for label, _ in rows), default=1))
    if line_width is not None:  # the label whole where a bar of BAR_LEAST still fits
        label_w = max(6, min(label_w, line_width - 9 - BAR_LEAST))
        width = max(0, min(width, line_width - label_w - 9))
    peak = max((p for _, p in rows), default=0.0) or 1.0
    for i, (label, p) in enumerate(rows):
        if i:
            text.append("\n")
        shown = label if len(label) <= label_w else label[: label_w - 1] + "…"
        text.append(f"{shown:<{label_w}} ")
        text.append(f"{pct(p):>7} ", style="bold")
        text.append(bar(p / peak, width), style="cyan")
    if odds.tail >= TAIL_SHOWN:
        text.append(f"\n(+{pct(float(odds.tail))} in longer reroll chains)", style="dim")
    return text


def curve_pane(curve: Curve, width: int, height: int) -> Text:
    """The curve in a pane of ``width`` × ``height`` cells: its tails folded further
    where all of its rows would not fit (``core.curve.fit``), so that the whole curve
    reads without scrolling; the uncounted tail only when a percentage would see it."""
    tail = curve.tail >= TAIL_SHOWN
    extra = (curve.success is not None) + tail * 2
    if curve.note:
        extra += -(-len(curve.note) // max(1, width))
    if height > 0:
        curve = fit(curve, height - extra)
    if not tail:
        curve = dataclasses.replace(curve, tail=Fraction(0))
    return curve_text(curve, width=width, fmt=pct, max_bar=BAR_WIDTH * 2)


class OddsPreview(Static):
    """Shows the odds of the parameters being edited (:attr:`view`: their outcomes
    or the curve of their headline value), or why there are none."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.odds: Odds | None = None
        self.curve: Curve | None = None
        self.view = OUTCOMES
        self._reason: Text | None = None

    def on_mount(self) -> None:
        self._title()

    def _title(self) -> None:
        if self.view == CURVE and self.curve is not None:
            title = f"Curve · {self.curve.label}"
        else:
            title = "Curve" if self.view == CURVE else "Odds"
        if self.border_title != title:  # (a title set again repaints the pane)
            self.border_title = title

    def _draw(self) -> None:
        self._title()
        if self._reason is not None:
            self.update(self._reason)
            return
        width = self.content_size.width - 1  # room for a scrollbar
        line_width = width if width > 0 else None
        if self.view == CURVE and self.curve is not None:
            self.update(curve_pane(self.curve, line_width or 40, self.content_size.height))
        elif self.view == CURVE and self.odds is not None:
            self.update(Text("computing…", style="dim"))  # the curve of these odds is on its way
        elif self.odds is not None:
            self.update(odds_text(self.odds, line_width=line_width))

    def show_odds(self, odds: Odds, curve: Curve | None = None) -> None:
        self.odds, self.curve, self._reason = odds, curve, None
        self._draw()

    def show_curve(self, curve: Curve) -> None:
        """The curve of the odds shown (drawn now if it is the view shown)."""
        self.curve = curve
        if self.view == CURVE and self._reason is None:
            self._draw()

    def set_view(self, view: str) -> None:
        """Show the outcomes or the curve (what is shown now, or what comes next)."""
        if view not in (OUTCOMES, CURVE):
            raise ValueError(f"no view {view!r}")
        if view != self.view:
            self.view = view
            self.scroll_home(animate=False)
            self._draw()

    def on_resize(self) -> None:
        self._draw()

    def show_pending(self) -> None:
        self._show_reason(Text("computing…", style="dim"))

    def show_none(self, reason: str) -> None:
        self._show_reason(Text(reason, style="dim"))

    def _show_reason(self, reason: Text) -> None:
        self.odds, self.curve, self._reason = None, None, reason
        self._draw()
