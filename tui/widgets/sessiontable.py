"""The list of sessions on the picker: one row per save — name, system, last played,
round, rolls — a damaged file or one waiting for its dice system's plug-in saying so
under its name, and the line about the highlighted one.

:class:`SessionTable` shows the summaries it is given (:meth:`SessionTable.show`) and
says which one is under the cursor; it holds no moves. The picker screen decides what
Enter, ``n``, ``c`` … do: the table's own ``RowHighlighted`` / ``RowSelected``
messages carry the GM's intent up to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from gmdesk.core.session import SessionSummary
from gmdesk.core.session.saves import plugin_note
from gmdesk.tui.widgets.initiative import fit_name

#: (label, key, width); the Session column takes the rest of the width
COLUMNS = (
    ("Session", "name", 0),
    ("System", "system", 9),
    ("Last played", "last", 16),
    ("Round", "round", 5),
    ("Rolls", "rolls", 6),
)


def format_last_played(value: Any) -> str:
    """``2025-11-21 21:03`` (local time) from an ISO string, a datetime or a timestamp."""
    from gmdesk.core.text import short_time

    return short_time(value)


def is_damaged(summary: SessionSummary) -> bool:
    """Unreadable or untrustworthy (not merely waiting for its system's plug-in)."""
    return bool(getattr(summary, "error", None)) and not needs_plugin(summary)


def needs_plugin(summary: SessionSummary) -> str | None:
    """The plug-in (a dice system) a sound session needs and this gmdesk lacks."""
    return getattr(summary, "needs_plugin", None)


def short_error(summary: SessionSummary) -> str:
    """A damaged file's error without the leading path (the row already names it)."""
    error = str(getattr(summary, "error", "") or "")
    prefix = f"{summary.path}: "
    return error[len(prefix) :] if error.startswith(prefix) else error


def row_cells(s: SessionSummary, name_width: int = 0) -> tuple[Text | str, ...]:
    """One session's cells, in the order of :data:`COLUMNS`; a name longer than
    ``name_width`` is cut with "…" (the column cut it without a mark)."""
    name = Text(fit_name(str(s.name), name_width) if name_width else str(s.name))
    if is_damaged(s):
        name.append("\n✗ " + short_error(s), style="italic")
        return (name, Text("DAMAGED", style="bold"), "can't be read", "", "")
    if needs_plugin(s):  # sound, but its dice system is not installed here
        name.append(f"\n⚠ needs plug-in: {needs_plugin(s)}", style="italic")
    rnd = getattr(s, "round", 0) or 0
    return (
        name,
        str(s.system),
        format_last_played(getattr(s, "last_played", "")),
        Text(str(rnd) if rnd else "—", justify="right"),
        Text(str(getattr(s, "rolls", 0) or 0), justify="right"),
    )


def detail_text(s: SessionSummary | None) -> Text:
    """The line under the table about the highlighted session: its file, why it cannot
    be opened, or the night it follows."""
    if s is None:
        return Text("")
    if needs_plugin(s):
        return Text(f"{Path(s.path).name}: {plugin_note(str(needs_plugin(s)))}")
    if getattr(s, "error", None):
        return Text(f"DAMAGED {Path(s.path).name}: {short_error(s)}")
    text = Text(str(s.path))
    came = getattr(s, "carried_from", None)
    if came:
        text.append(f"  · the night after {came['name']}{' (rested)' if came.get('rest') else ''}", style="dim")
    return text


class SessionTable(DataTable[Any]):
    """The sessions, one row each (see the module docstring)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.summaries: list[SessionSummary] = []
        #: the width the columns were laid out for (-1: not yet)
        self.laid_out_for = -1

    def show(self, summaries: list[SessionSummary], keep: Path | None, width: int) -> None:
        """Show ``summaries`` in columns fitted to ``width``, the cursor on ``keep`` (a
        save's path) if listed, else on the first row."""
        self.summaries = summaries
        self.laid_out_for = width
        fixed = sum(w + 2 for _, _, w in COLUMNS if w)
        name_width = max(12, width - fixed - 2 - 1)
        self.clear(columns=True)
        for label, key, w in COLUMNS:
            self.add_column(label, key=key, width=w or name_width)
        for s in summaries:
            two_lines = bool(getattr(s, "error", None))  # damaged, or waiting for a plug-in
            self.add_row(*row_cells(s, name_width), key=str(s.path), height=2 if two_lines else 1)
        target_row = 0
        if keep is not None:
            for i, s in enumerate(summaries):
                if Path(s.path) == Path(keep):
                    target_row = i
                    break
        if summaries:
            self.move_cursor(row=target_row, animate=False)

    def selected_summary(self) -> SessionSummary | None:
        """The session under the cursor (None in an empty list)."""
        if not self.summaries or self.row_count == 0:
            return None
        row = self.cursor_row
        if 0 <= row < len(self.summaries):
            return self.summaries[row]
        return None
