"""The curve: the exact distribution of a roll's headline value, drawn as a chart.

A system says what its headline value is and what its curve holds (a
:class:`Curve`: the value's name, its exact distribution, the far tails its odds
table folds, and the value a success needs when the parameters define one) through
its declaration (``SystemSpec.curve``). Here the curve becomes rows a GM reads in one
of three views (:data:`VIEWS`): the chance of each value, of at least each value, of
at most each value — and a Rich :class:`~rich.text.Text` chart of those rows
(:func:`curve_text`), one row per value, that reads without colour at 80 columns:

.. code-block:: text

       4  16.67% ██████████████████████████████
       8  16.67% ██████████████████████████████
    ── Success: 14 or more · 50.00% ──────────────
      16  16.67% ██████████████████████████████

The far tails of an open-ended roll are folded into one row each ("≤ −20", "≥ +20")
exactly as the odds table folds them (``core.oddstable.distribution_rows``), so each
row's chance is the table's. Nothing here knows a system.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from gmdesk.core.text import MINUS, signed

if TYPE_CHECKING:
    from rich.text import Text

#: the views of a curve, as ``gmdesk odds … --plot VIEW`` names them
EXACT, AT_LEAST, AT_MOST = "exact", "at-least", "at-most"
VIEWS = (EXACT, AT_LEAST, AT_MOST)
#: what each view shows, in words (the chart's heading)
VIEW_WORDS = {
    EXACT: "the chance of each value",
    AT_LEAST: "the chance of at least each value",
    AT_MOST: "the chance of at most each value",
}


@dataclass(frozen=True)
class Curve:
    """The exact distribution of a roll's headline value, as a system declares it.

    ``label``: what the value is ("Number", "Action total"); ``values``: each value
    with its exact chance, ascending; ``tail``: the chance left uncounted (an
    open-ended roll's longest reroll chains: ``Σp + tail == 1``); ``fold``: the
    values at and beyond which each far tail reads as one row (low, high); ``signed``:
    the values read with their sign (``+3``); ``success``: the lowest value that
    succeeds, when the parameters define one, and ``success_label`` how that reads
    ("Success", "Hit", "Full Success or better (DC 16)"); ``note``: what else a GM
    should know reading it (why there is no value to draw, a rule the threshold does
    not tell)."""

    label: str
    values: tuple[tuple[int, Fraction], ...]
    tail: Fraction = Fraction(0)
    fold: tuple[int, int] | None = None
    signed: bool = False
    success: int | None = None
    success_label: str = "Success"
    note: str = ""

    def __post_init__(self) -> None:
        pairs = sorted((int(v), Fraction(p)) for v, p in _pairs(self.values) if p)
        object.__setattr__(self, "values", tuple(pairs))
        object.__setattr__(self, "tail", Fraction(self.tail))
        if self.fold is not None:
            lo, hi = (int(x) for x in self.fold)
            if lo >= hi:
                raise ValueError("a curve's fold is two values, low then high")
            object.__setattr__(self, "fold", (lo, hi))

    def p(self, value: int) -> Fraction:
        return dict(self.values).get(value, Fraction(0))

    def success_chance(self) -> Fraction | None:
        """The chance of reaching :attr:`success` (None: no success defined)."""
        if self.success is None:
            return None
        return sum((p for v, p in self.values if v >= self.success), Fraction(0))

    def to_json(self, view: str = EXACT) -> dict[str, Any]:
        """What ``gmdesk odds … --plot VIEW --json`` prints."""
        return {
            "label": self.label,
            "view": view,
            "rows": [
                {"label": r.label, "low": r.low, "high": r.high, "p": float(r.p), "success": r.success}
                for r in curve_rows(self, view)
            ],
            "success": self.success,
            "success_label": self.success_label if self.success is not None else None,
            "tail": float(self.tail),
            "note": self.note,
        }


def _pairs(values: Iterable[tuple[int, Fraction]] | Mapping[int, Fraction]) -> Iterable[tuple[int, Fraction]]:
    return values.items() if isinstance(values, Mapping) else values


def curve_of(
    label: str,
    dist: Mapping[int, Fraction],
    *,
    tail: Fraction = Fraction(0),
    fold: tuple[int, int] | None = None,
    signed: bool = False,
    success: int | None = None,
    success_label: str = "Success",
    note: str = "",
) -> Curve:
    """A :class:`Curve` from a ``{value: chance}`` distribution."""
    return Curve(label, tuple(dist.items()), tail, fold, signed, success, success_label, note)


@dataclass(frozen=True)
class CurveRow:
    """One row of a chart: the values ``low``..``high`` it holds (None: the open end
    of a folded tail), its label ("14", "≥ +20"), its chance in the view drawn, and
    whether its values succeed."""

    label: str
    low: int | None
    high: int | None
    p: Fraction
    success: bool = False


def value_text(curve: Curve, value: int) -> str:
    """A value as the chart (and the odds table) writes it: ``+3`` / ``−2`` for a
    signed value (``+0``, or ``0`` in a folded curve, as the odds table has it)."""
    if curve.signed:
        return signed(value) if curve.fold is not None else signed(value, zero="+0")
    return str(value).replace("-", MINUS)


def _fold(curve: Curve) -> tuple[int, int] | None:
    """The curve's fold, moved out where needed so that the success value starts a
    row of its own (never inside a folded tail)."""
    if curve.fold is None:
        return None
    lo, hi = curve.fold
    if curve.success is not None:
        lo = min(lo, curve.success - 1)
        hi = max(hi, curve.success)
    return lo, hi


def curve_rows(curve: Curve, view: str = EXACT) -> list[CurveRow]:
    """The chart's rows in ``view`` (:data:`VIEWS`), ascending: one per value, the far
    tails (:attr:`Curve.fold`) summed into one row each. At least / at most: the
    chance of the row's lowest value or more / of its highest value or less (the
    uncounted :attr:`Curve.tail` left out, as the odds table leaves it)."""
    if view not in VIEWS:
        raise ValueError(f"a view is one of {', '.join(VIEWS)} (got {view!r})")
    fold = _fold(curve)
    rows: list[CurveRow] = []
    if fold is None:
        rows = [CurveRow(value_text(curve, v), v, v, p) for v, p in curve.values]
    else:
        lo, hi = fold
        low = sum((p for v, p in curve.values if v <= lo), Fraction(0))
        high = sum((p for v, p in curve.values if v >= hi), Fraction(0))
        if low:
            rows.append(CurveRow(f"≤ {value_text(curve, lo)}", None, lo, low))
        rows += [CurveRow(value_text(curve, v), v, v, p) for v, p in curve.values if lo < v < hi]
        if high:
            rows.append(CurveRow(f"≥ {value_text(curve, hi)}", hi, None, high))
    if curve.success is not None:
        need = curve.success
        rows = [_with(r, success=r.low is not None and r.low >= need) for r in rows]
    if view == AT_LEAST:
        total, out = Fraction(0), []
        for r in reversed(rows):
            total += r.p
            out.append(_with(r, p=total))
        rows = out[::-1]
    elif view == AT_MOST:
        total, out = Fraction(0), []
        for r in rows:
            total += r.p
            out.append(_with(r, p=total))
        rows = out
    return rows


def _with(row: CurveRow, **changes: Any) -> CurveRow:
    return CurveRow(
        changes.get("label", row.label),
        row.low,
        row.high,
        changes.get("p", row.p),
        changes.get("success", row.success),
    )


def percent(p: float) -> str:
    """A chance as the odds table writes it: ``12.50%``, ``3.21e-05%``, ``0``."""
    if p == 0:
        return "0"
    if p < 0.0001:
        return f"{p * 100:.2e}%"
    return f"{p * 100:.2f}%"


def bar(fraction: float, width: int) -> str:
    """A bar ``fraction`` (0..1) of ``width`` cells long, in eighths of a cell; a
    chance above 0 shows at least a sliver."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    if fraction > 0 and eighths == 0:
        eighths = 1
    full, part = divmod(eighths, 8)
    return "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")


def success_line(curve: Curve, fmt: Callable[[float], str] = percent, width: int | None = None) -> str:
    """``Success (DC 16): 16 or more · 33.56%``, or "" without a success; within
    ``width`` cells the label loses its parenthesis, then "or more" reads "+"."""
    chance = curve.success_chance()
    if curve.success is None or chance is None:
        return ""
    value, p = value_text(curve, curve.success), fmt(float(chance))
    short = curve.success_label.split(" (")[0]
    candidates = [
        f"{curve.success_label}: {value} or more · {p}",
        f"{short}: {value} or more · {p}",
        f"{short}: {value}+ · {p}",
        f"{value}+ · {p}",
    ]
    if width is None:
        return candidates[0]
    return next((c for c in candidates if len(c) <= width), candidates[-1])


def fit(curve: Curve, lines: int) -> Curve:
    """``curve`` with its tails folded further, where needed, so that its rows take at
    most ``lines`` lines (at least 3): the values kept one per row are those of the
    likeliest run, moved to take in the success value and the one below it. Every
    chance stays exact; only more of it reads as "≤ v" / "≥ v" rows."""
    if len(curve_rows(curve)) <= lines:
        return curve
    folded = _fold(curve)
    inner = [(v, p) for v, p in curve.values if folded is None or folded[0] < v < folded[1]]
    k = max(1, max(3, lines) - 2)  # the values kept, between two folded rows
    if len(inner) <= k:
        return curve
    values, chances = [v for v, _ in inner], [p for _, p in inner]
    best = max(range(len(values) - k + 1), key=lambda i: sum(chances[i : i + k]))
    if curve.success is not None:
        at = next((i for i, v in enumerate(values) if v >= curve.success), len(values))
        lo_need, hi_need = max(0, at - 1), min(len(values) - 1, at)  # the row below, the row from
        best = max(0, min(max(best, hi_need - k + 1), lo_need, len(values) - k))
    lo = values[best] - 1
    if best + k < len(values):
        hi = values[best + k]
    else:
        hi = folded[1] if folded is not None else values[-1] + 1
    return replace(curve, fold=(lo, hi))


def curve_text(
    curve: Curve,
    view: str = EXACT,
    width: int = 80,
    *,
    fmt: Callable[[float], str] = percent,
    max_bar: int = 48,
    bar_style: str = "cyan",
    success_style: str = "green",
) -> Text:
    """The chart: one line per row, ``value  chance  bar``, the bars scaled to the
    largest row, each line at most ``width`` cells; a rule line names the value a
    success needs (and its chance) just above the first row that succeeds; the
    uncounted tail, if any, and the curve's note under it."""
    from rich.text import Text

    text = Text(no_wrap=True, overflow="crop")
    rows = curve_rows(curve, view)
    if not rows:
        text.append(curve.note or f"no {curve.label} to draw", style="dim")
        return text
    label_w = max(len(r.label) for r in rows)
    pct_w = max(len(fmt(float(r.p))) for r in rows)
    bar_w = max(4, min(max_bar, width - label_w - pct_w - 2))
    peak = max(float(r.p) for r in rows) or 1.0
    marked = False
    lines = 0
    for r in rows:
        if r.success and not marked:
            marked = True
            head = f"── {success_line(curve, fmt, width - 4)} "
            if lines:
                text.append("\n")
            text.append(head + "─" * max(1, min(width, label_w + pct_w + 2 + bar_w) - len(head)), style="bold")
            lines += 1
        if lines:
            text.append("\n")
        text.append(f"{r.label:>{label_w}} ")
        text.append(f"{fmt(float(r.p)):>{pct_w}} ", style="bold")
        text.append(bar(float(r.p) / peak, bar_w), style=success_style if r.success else bar_style)
        lines += 1
    if curve.success is not None and not marked:  # a success no roll reaches
        text.append(f"\n── {curve.success_label}: {value_text(curve, curve.success)} or more · out of reach", "bold")
    if curve.tail:
        text.append(
            f"\nNot counted: reroll chains longer than these odds follow, {float(curve.tail):.1e} of all rolls.",
            style="dim",
        )
    if curve.note:
        text.append(f"\n{curve.note}", style="dim")
    return text


def curve_heading(system: str, curve: Curve, view: str = EXACT) -> str:
    """``4d2 — Number: the chance of each value``."""
    return f"{system} — {curve.label}: {VIEW_WORDS[view]}"
