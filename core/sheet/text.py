"""A whole sheet as text: reading it (rows, header, blank lines, line endings) and
writing it back byte for byte."""

from __future__ import annotations

import dataclasses
import re

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
from gmdesk.core.sheet.sheet import Layout, Sheet


def parse_sheet(text: str, source: str = "<sheet>") -> Sheet:
    """Read a sheet (or a template). SheetError names ``source``, the line and the problem."""
    if not isinstance(text, str):
        raise SheetError(f"{source}: a sheet is text (got {type(text).__name__})")
    if text == "":
        return Sheet(has_columns=False, layout=Layout(final_newline=False))
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
    return Sheet(
        header=header,
        rows=tuple(rows),
        has_notes_column=has_notes,
        has_columns=col_at is not None,
        layout=Layout(head=head, column_line=column_line, tail=tuple(pending), final_newline=final_newline),
    )


def write_sheet(sheet: Sheet) -> str:
    """The sheet as text; ``parse_sheet(write_sheet(s)) == s``, and a sheet read from
    text and left unchanged is written back byte for byte."""
    out: list[str] = []
    head = sheet.layout.head
    if head is not None and header_of(head) == sheet.header:
        out.extend(head)
    elif sheet.header:
        out.extend(sheet.header.split("\n"))
    if sheet.has_columns:
        out.append(sheet._column_line)
    cols = sheet._cols
    for row in sheet.rows:
        out.extend(row.before)
        out.append(row_text(row, cols, sheet._cr))
    out.extend(sheet.layout.tail)
    if sheet._cr and out:
        # a CRLF sheet stays CRLF, also around rows added after its last line
        out = [x if x.endswith("\r") else x + "\r" for x in out]
        if not sheet.layout.final_newline:
            out[-1] = out[-1][:-1]
    text = "\n".join(out)
    if sheet.layout.final_newline and out:
        text += "\n"
    return text


def parse_template(text: str, source: str = "<template>") -> Sheet:
    """A template: rows without a column line (a ``Name:`` first line is its title)."""
    return parse_sheet(text, source)
