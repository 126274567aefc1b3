"""The odds as a GM reads them (``gmdesk odds``, the roll dialog's odds pane): the
distribution's rows with the far tails of an open-ended roll folded as its system
declares, and the Rich tables with bars. Plain text never relies on colour."""

from __future__ import annotations

from fractions import Fraction

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gmdesk.core.odds import Odds
from gmdesk.core.render import signed_value, spec_of
from gmdesk.core.text import signed


def _bar(p: float, width: int = 30) -> str:
    full = p * width
    n = int(full)
    frac = full - n
    partial = " ▏▎▍▌▋▊▉"[int(frac * 8)] if n < width else ""
    return ("█" * n + partial).rstrip()


def _pct(p: float) -> str:
    if p == 0:
        return "0"
    if p < 0.0001:
        return f"{p * 100:.2e}%"
    return f"{p * 100:.2f}%"


def distribution_rows(odds: Odds) -> list[tuple[str, Fraction]]:
    """The distribution as (label, p) rows a GM reads: one row per value, except
    that the far tails of an open-ended roll (its system's ``ODDS_FOLD``) are
    summed into rows such as "≤ −20" and "≥ +20"."""
    spec = spec_of(odds.system)
    limits = spec.odds_fold if spec is not None else None
    if limits is None:
        fmt = signed_value if spec is not None and spec.signed else str
        return [(fmt(v), p) for v, p in odds.distribution]
    lo, hi = limits
    low = sum((p for v, p in odds.distribution if v <= lo), start=0 * odds.tail)
    high = sum((p for v, p in odds.distribution if v >= hi), start=0 * odds.tail)
    rows: list[tuple[str, Fraction]] = []
    if low:
        rows.append((f"≤ {signed(lo)}", low))
    rows += [(signed(v), p) for v, p in odds.distribution if lo < v < hi]
    if high:
        rows.append((f"≥ {signed(hi)}", high))
    return rows


def tail_note(odds: Odds) -> str:
    """What ``odds.tail`` is, in words (empty when there is none): the chance of
    reroll chains longer than the exact count follows."""
    if not odds.tail:
        return ""
    return f"Not counted: reroll chains longer than these odds follow, {float(odds.tail):.1e} of all rolls together."


def render_odds(odds: Odds, width: int = 30) -> Group:
    """Odds as tables with bars: the distribution, then the named outcomes."""
    dist = Table(title=f"{odds.system} — distribution", show_edge=False, box=None, pad_edge=False)
    dist.add_column("value", justify="right")
    dist.add_column("p", justify="right")
    dist.add_column("≥", justify="right")
    dist.add_column("", no_wrap=True)
    rows = distribution_rows(odds)
    peak = max((float(p) for _, p in rows), default=1.0) or 1.0
    at_least = 1.0 - float(odds.tail)
    for label, p in rows:
        pf = float(p)
        dist.add_row(label, _pct(pf), _pct(max(at_least, 0.0)), _bar(pf / peak, width))
        at_least -= pf
    parts: list[RenderableType] = [dist]
    if odds.outcomes:
        out = Table(title="outcomes", show_edge=False, box=None, pad_edge=False)
        out.add_column("outcome")
        out.add_column("p", justify="right")
        out.add_column("", no_wrap=True)
        for label, p in odds.outcomes:
            out.add_row(label, _pct(float(p)), _bar(float(p), width))
        parts.append(Text(""))
        parts.append(out)
    if odds.tail:
        parts.append(Text(tail_note(odds), style="dim"))
    return Group(*parts)
