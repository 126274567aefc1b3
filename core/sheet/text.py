"""A whole sheet's text read into its parts and written back from them, byte for byte.

The parts are the header, the rows, the blank lines and line endings
(:class:`Layout`); the :class:`~gmdesk.core.sheet.sheet.Sheet` is built from them and
writes itself with :func:`write_text`. This module imports no Sheet."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gmdesk.core.errors import SheetError
from gmdesk.core.sheet.line import (
    COLUMN_LINE,
    Cols,
    LineError,
    header_of,
    parse_columns,
    parse_row,
    row_text,
    title_line,
)
from gmdesk.core.sheet.row import Row


@dataclass(frozen=True)
class Layout:
    """What the text looked like beyond its meaning (not part of equality)."""

    head: tuple[str, ...] | None = None  # the exact lines before the column line / the title
    column_line: str | None = None
    tail: tuple[str, ...] = ()  # blank lines after the last row
    final_newline: bool = True


@dataclass(frozen=True)
class SheetText:
    """A sheet's text read: what a :class:`~gmdesk.core.sheet.sheet.Sheet` is made of."""

    header: str = ""
    rows: tuple[Row, ...] = ()
    has_notes_column: bool = False
    has_columns: bool = True
    layout: Layout = Layout()


def read_text(text: str, source: str = "<sheet>") -> SheetText:
    """Read a sheet (or a template). SheetError names ``source``, the line and the problem."""
    if not isinstance(text, str):
        raise SheetError(f"{source}: a sheet is text (got {type(text).__name__})")
    if text == "":
        return SheetText(has_columns=False, layout=Layout(final_newline=False))
    lines = text.split("\n")
    final_newline = lines[-1] == ""
    if final_newline:
        lines.pop()
    col_at = next((i for i, x in enumerate(lines) if COLUMN_LINE.match(x)), None)
    cols: Cols | None
    if col_at is not None:
        head: tuple[str, ...] | None = tuple(lines[:col_at])
        column_line: str | None = lines[col_at]
        cols = parse_columns(lines[col_at])
        body_at = col_at + 1
    else:
        cols = None
        column_line = None
        first = next((i for i, x in enumerate(lines) if x.strip()), None)
        if first is not None and title_line(lines[first]):
            head = tuple(lines[: first + 1])
            body_at = first + 1
        else:
            head = None
            body_at = 0
    rows: list[Row] = []
    pending: list[str] = []
    for n in range(body_at, len(lines)):
        line = lines[n]
        if not line.strip() or COLUMN_LINE.match(line):
            pending.append(line)
            continue
        try:
            row, _ = parse_row(line, cols)
        except LineError as e:
            raise SheetError(f"{source}: line {n + 1}: {e}") from None
        rows.append(dataclasses.replace(row, before=tuple(pending)))
        pending = []
    has_notes = bool(column_line and re.search(r"\bNotes\b", column_line, re.I))
    header = header_of(head) if head is not None else ""
    return SheetText(
        header=header,
        rows=tuple(rows),
        has_notes_column=has_notes,
        has_columns=col_at is not None,
        layout=Layout(head=head, column_line=column_line, tail=tuple(pending), final_newline=final_newline),
    )


def write_text(
    header: str,
    rows: Sequence[Row],
    layout: Layout,
    *,
    column_line: str | None,
    cols: Cols | None,
    cr: str,
) -> str:
    """A sheet's text from its parts: the header as it was read when unchanged, the
    column line (``None``: a template's, without one), each row under ``cols`` with the
    blank lines before it, ``cr`` (``"\\r"``: CRLF line endings) throughout."""
    out: list[str] = []
    head = layout.head
    if head is not None and header_of(head) == header:
        out.extend(head)
    elif header:
        out.extend(header.split("\n"))
    if column_line is not None:
        out.append(column_line)
    for row in rows:
        out.extend(row.before)
        out.append(row_text(row, cols, cr))
    out.extend(layout.tail)
    if cr and out:
        # a CRLF sheet stays CRLF, also around rows added after its last line
        out = [x if x.endswith("\r") else x + "\r" for x in out]
        if not layout.final_newline:
            out[-1] = out[-1][:-1]
    text = "\n".join(out)
    if layout.final_newline and out:
        text += "\n"
    return text
