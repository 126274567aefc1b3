"""How the character pane lays its rows out in its columns: a row's title fitted to
its column (a second line, or cut with "…"), a value as a cell, and a system's
``Label: entry`` fields kept on one line where the column is narrow."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text

from gmdesk.tui.widgets import charfields
from gmdesk.tui.widgets.initiative import fit_name

if TYPE_CHECKING:
    from gmdesk.core.systems.spec import SystemSpec


def cell_text(value: Any) -> Any:
    """A value cell as text (a table reads a str as markup)."""
    return Text(value) if isinstance(value, str) else value


#: the cells a system field's entry ("Perception", "Fire Combat") is given beside its
#: label before the label is shortened (:func:`one_line_fields`)
ENTRY_ROOM = 11


def fit_title(what: str | Text, width: int, head: bool) -> tuple[str | Text, int]:
    """A row's title and its height: a section's title longer than its column, or a
    system field's ``Label: entry``, takes a second line rather than being cut; any
    other title is cut with "…" (:func:`~gmdesk.tui.widgets.initiative.fit_name`, as
    the order cuts a name: "[x] Targeting a…"), never cut unmarked."""
    plain = what.plain if isinstance(what, Text) else what
    if cell_len(plain) <= width:
        return what, 1
    if head:
        return what, 2
    label, sep, rest = plain.partition(": ")
    if sep and isinstance(what, str) and cell_len(label) < width:
        # the value under its label, each of its lines indented alike ("Attack
        # descriptors:" over "  Fitness, Knife" over "  Expertise")
        lines = indented(rest, width)
        return "\n".join([f"{label}:", *lines]), 1 + len(lines)
    if isinstance(what, Text):  # its styles kept
        cut = what.copy()
        cut.truncate(width, overflow="ellipsis")
        return cut, 1
    return fit_name(what, width), 1


def indented(text: str, width: int, indent: str = "  ") -> list[str]:
    """``text`` in lines of ``width`` cells, each after ``indent``, broken at spaces
    (a word longer than a line is cut with "…")."""
    room = max(1, width - cell_len(indent))
    lines: list[str] = []
    line = ""
    for word in text.split():
        joined = f"{line} {word}" if line else word
        if line and cell_len(joined) > room:
            lines.append(line)
            joined = word
        line = joined if cell_len(joined) <= room else fit_name(joined, room)
    lines.append(line)
    return [indent + x for x in lines]


def one_line_fields(spec: SystemSpec | None, rows: list[Any], width: int) -> list[Any]:
    """The system's ``Label: entry`` rows each on one line: where the titles' column
    (``width`` cells) is too narrow for its longest label and an entry's name
    (:data:`ENTRY_ROOM`; "Initiative trait: Perception" at 80×24), every such row
    names its field without the word of its table ("Initiative: Perception",
    "Attack: Sword"), alike for every character of the session
    (:func:`charfields.short_label`)."""
    if spec is None:
        return rows
    labels = [f.label for f in spec.character_fields if f.type == "stat"]
    if not labels or max(cell_len(x) for x in labels) + 2 + ENTRY_ROOM <= width:
        return rows
    picked = [
        (i, row, what)
        for i, (row, what, _) in enumerate(rows)
        if row.kind == charfields.FIELD and isinstance(what, str) and ": " in what
    ]
    out = list(rows)
    for i, row, what in picked:
        short = charfields.short_label(spec, row.key)
        label, _, entry = what.partition(": ")
        if short is not None and label != short:
            out[i] = (row, f"{short}: {entry}", rows[i][2])
    return out
