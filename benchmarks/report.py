"""The one table every gmdesk benchmark prints: gmdesk's figure, its anchor measured in
the same run, the ratio, the target and whether it is met.

The absolute figures on a small, shared machine move with its load; the ratio to an
anchor measured in the same run does much less. Each row says which of the two its
target is about (``Row.target`` is the text a reader sees, ``Row.met`` the verdict).

    rows = [Row("roll dialog open, p50", 71.0, 88.0, "ms", "≤ 0.5× anchor", met=71.0 <= 0.5 * 88.0,
                anchor_name="bare modal form")]
    print_table("dialog", rows)
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One measure: gmdesk's figure beside its anchor's, in ``unit``."""

    measure: str
    gmdesk: float
    anchor: float | None
    unit: str
    target: str
    met: bool
    anchor_name: str = ""

    @property
    def ratio(self) -> float | None:
        if self.anchor is None or self.anchor == 0:
            return None
        return self.gmdesk / self.anchor


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit in ("KB", "MB", "ms") and abs(value) >= 100:
        return f"{value:.0f} {unit}"
    if abs(value) >= 10:
        return f"{value:.1f} {unit}"
    return f"{value:.3g} {unit}"


def load() -> str:
    """The machine's load, printed with every table (the figures move with it)."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def print_table(title: str, rows: Iterable[Row]) -> list[Row]:
    """Print ``rows`` under ``title``; returns them (a caller may total the verdicts)."""
    rows = list(rows)
    print(f"{title} — {load()}")
    head = f"{'measure':<44} {'gmdesk':>11} {'anchor':>11} {'ratio':>7}  {'target':<22} verdict"
    print(head)
    print("-" * len(head))
    for r in rows:
        ratio = "—" if r.ratio is None else f"{r.ratio:.2f}×"
        print(
            f"{r.measure:<44} {_fmt(r.gmdesk, r.unit):>11} {_fmt(r.anchor, r.unit):>11} {ratio:>7}  "
            f"{r.target:<22} {'met' if r.met else 'MISSED'}"
        )
    anchors = sorted({r.anchor_name for r in rows if r.anchor_name})
    for name in anchors:
        measures = ", ".join(r.measure for r in rows if r.anchor_name == name)
        print(f"  anchor for {measures}: {name}")
    print(flush=True)
    return rows
