"""One row's line of text: reading it into a :class:`Row` (and where its parts sit),
and writing a row again in the same layout, so that it reads back the same."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gmdesk.core.errors import SheetError
from gmdesk.core.sheet.row import INF, TAB, Row, Uses, fmt_uses, fmt_value

# --------------------------------------------------------------------------- reading


COLUMN_LINE = re.compile(r"^\s*Descriptors?[ \t]+Default\b", re.I)
_VALUE = re.compile(r"[+\-\u2212]\d+\Z")
_USES = re.compile(r"(\d+|inf)\Z", re.I)
_BAD_USES = re.compile(r"[+\-\u2212]?\s*([\d.,]+|inf\w*)", re.I)
_QUANTITY = re.compile(r"(\d+(?!st\b|nd\b|rd\b|th\b)[A-Za-z]*)\s+(\S.*)\Z", re.S)


def _col(line: str, index: int) -> int:
    """The display column of ``line[index]`` (tabs expanded)."""
    return len(line[:index].expandtabs(TAB))


@dataclass(frozen=True)
class Cols:
    """Where the column line puts its headings (display columns)."""

    d: int
    c: int | None
    n: int | None

    @property
    def mid(self) -> float:
        return (self.d + self.c) / 2 if self.c is not None else float("inf")


def parse_columns(line: str) -> Cols:
    exp = line.rstrip("\r").expandtabs(TAB)
    d = re.search(r"\bDefault\b", exp, re.I)
    c = re.search(r"\bCurrent\b", exp, re.I)
    n = re.search(r"\bNotes\b", exp, re.I)
    assert d is not None
    return Cols(d.start(), c.start() if c else None, n.start() if n else None)


@dataclass(frozen=True)
class _Tok:
    kind: str  # word | value | uses | note
    start: int
    end: int
    text: str


@dataclass
class Pos:
    """Where a row's parts sit in its line (display columns), for writing it again."""

    prefix_end: int  # index in the line where the name ends
    name_end: int  # display column where the name ends
    cols: dict[str, int]  # piece (dv du cv cu notes) -> display column


class LineError(Exception):
    pass


def check_parens(text: str) -> None:
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise LineError("a ')' without its '('")
    if depth:
        raise LineError("unclosed parenthesis (notes and uses are written '(…)')")


def scan(text: str, i: int) -> list[_Tok]:
    toks: list[_Tok] = []
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in " \t":
            i += 1
            continue
        if ch == "(":
            depth, j = 0, i
            while j < n:
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            inner = text[i + 1 : j].strip()
            if _USES.match(inner):
                kind = "uses"
            elif _BAD_USES.fullmatch(inner):
                raise LineError(f"bad uses {text[i : j + 1]!r} (write (N) or (inf))")
            else:
                kind = "note"
            toks.append(_Tok(kind, i, j + 1, text[i : j + 1]))
            i = j + 1
            continue
        j = i
        while j < n and text[j] not in " \t":
            j += 1
        word = text[i:j]
        if _VALUE.match(word):
            kind = "value"
        elif word[0] in "+-\u2212" and len(word) > 1:
            raise LineError(f"bad value {word!r} (write +N or -N)")
        else:
            kind = "word"
        toks.append(_Tok(kind, i, j, word))
        i = j
    return toks


def _to_int(text: str) -> int:
    return int(text.replace("\u2212", "-"))


def _to_uses(text: str) -> Uses:
    inner = text[1:-1].strip()
    return INF if inner.casefold() == INF else int(inner)


def parse_row(line: str, cols: Cols | None) -> tuple[Row, Pos]:
    """Read one row line (without its newline); LineError on garbage."""
    text = line[:-1] if line.endswith("\r") else line
    check_parens(text)
    i = 0
    while i < len(text) and text[i] in " \t":
        i += 1
    depth = _col(text, i)
    sub = False
    if i < len(text) and text[i] == "*":
        sub = True
        i += 1
        while i < len(text) and text[i] in " \t":
            i += 1
    toks = scan(text, i)
    if not toks:
        raise LineError("a '*' without a name")
    # the name runs up to the trailing values, uses and notes
    k = len(toks)
    while k > 0 and toks[k - 1].kind == "note":
        k -= 1
    while k > 0 and toks[k - 1].kind in ("value", "uses"):
        k -= 1
    if k == 0:
        if toks[0].kind in ("value", "uses"):
            raise LineError(f"a row must start with a descriptor name (got {toks[0].text!r})")
        k = 1
    name_text = text[toks[0].start : toks[k - 1].end]
    prefix_end = toks[k - 1].end
    name_end = _col(text, prefix_end)
    quantity = None
    m = _QUANTITY.match(name_text)
    if m:
        quantity, rest = m.group(1), m.group(2)
        if re.search(r"[A-Za-z]", quantity):
            rest = re.sub(r"^of\s+(?=\S)", "", rest)
        name = rest
    else:
        name = name_text
    name = " ".join(name.split())
    rest = toks[k:]
    vals = [t for t in rest if t.kind in ("value", "uses")]
    notes_toks = [t for t in rest if t.kind == "note"]
    notes = text[notes_toks[0].start : notes_toks[-1].end] if notes_toks else ""
    # group into cells: a value and a uses count close together are one cell
    cells: list[tuple[_Tok | None, _Tok | None]] = []
    j = 0
    while j < len(vals):
        t = vals[j]
        if (
            t.kind == "value"
            and j + 1 < len(vals)
            and vals[j + 1].kind == "uses"
            and _col(text, vals[j + 1].start) - _col(text, t.end) <= 2
        ):
            cells.append((t, vals[j + 1]))
            j += 2
        elif t.kind == "value":
            cells.append((t, None))
            j += 1
        else:
            cells.append((None, t))
            j += 1
    if len(cells) > 2:
        raise LineError("more than two values (a row has a Default and a Current at most)")
    slots: dict[str, tuple[_Tok | None, _Tok | None]] = {}
    if len(cells) == 2:
        slots = {"d": cells[0], "c": cells[1]}
    elif len(cells) == 1:
        first = cells[0][0] or cells[0][1]
        assert first is not None
        if cols is not None and cols.c is not None and _col(text, first.start) >= cols.mid and name_end < cols.d:
            slots = {"c": cells[0]}
        else:
            slots = {"d": cells[0]}
    poscols: dict[str, int] = {}
    values: dict[str, Any] = {"default": None, "current": None, "uses_default": None, "uses_current": None}
    for slot, (v, u) in slots.items():
        vname, uname = ("default", "uses_default") if slot == "d" else ("current", "uses_current")
        if v is not None:
            values[vname] = _to_int(v.text)
            poscols[slot + "v"] = _col(text, v.start)
        if u is not None:
            values[uname] = _to_uses(u.text)
            poscols[slot + "u"] = _col(text, u.start)
    if notes_toks:
        poscols["notes"] = _col(text, notes_toks[0].start)
    row = Row(name=name, notes=notes, depth=depth, sub=sub, quantity=quantity, raw=line, **values)
    return row, Pos(prefix_end, name_end, poscols)


def title_line(line: str) -> bool:
    s = line.strip()
    return s.endswith(":") and len(s) > 1


def header_of(head: Sequence[str]) -> str:
    return "\n".join(x.rstrip() for x in head).strip("\n")


# --------------------------------------------------------------------------- writing

_PIECES = ("dv", "du", "cv", "cu", "notes")


def _piece_texts(row: Row) -> dict[str, str]:
    out = {
        "dv": fmt_value(row.default),
        "du": fmt_uses(row.uses_default),
        "cv": fmt_value(row.current),
        "cu": fmt_uses(row.uses_current),
        "notes": row.notes,
    }
    return {k: v for k, v in out.items() if v}


def _render(row: Row, cols: Cols | None, old: tuple[str, Pos] | None, grid: dict[str, int] | None = None) -> str:
    """Lay a row out: keep the old line's name and columns, place new pieces where the
    sheet's other rows have them (``grid``: piece → the column most rows use), else
    under the headings (or after the name in a sheet without a column line). A new
    piece never pushes the notes the line already has when it fits before them."""
    cr = ""
    if old is not None:
        old_line, pos = old
        if old_line.endswith("\r"):
            cr = "\r"
            old_line = old_line[:-1]
        old_row = parse_row(old_line, cols)[0]
        same_prefix = (old_row.name, old_row.depth, old_row.sub, old_row.quantity) == (
            row.name,
            row.depth,
            row.sub,
            row.quantity,
        )
        oldcols = dict(pos.cols)
    else:
        same_prefix = False
        oldcols = {}
    if same_prefix:
        assert old is not None
        prefix = old_line[: pos.prefix_end]
        name_end = pos.name_end
    else:
        prefix = " " * row.depth + ("*" if row.sub else "") + row.label
        name_end = len(prefix)
        oldcols = {}
    texts = _piece_texts(row)
    target: dict[str, int | None] = {}
    grid = grid or {}

    def place_pair(v: str, u: str, base: int | None) -> None:
        tv, tu = texts.get(v), texts.get(u)
        cv, cu = oldcols.get(v), oldcols.get(u)
        if cols is not None and cv is None and cu is None:  # a new cell: where the others have it
            if tv is not None and v in grid:
                cv = grid[v]
            elif tv is None and tu is not None and u in grid:
                cu = grid[u]
        if tv is not None:
            if cv is None:
                if cu is not None:
                    cv = cu - len(tv) - 1
                elif base is not None:
                    cv = base + 1
            target[v] = cv
        if tu is not None:
            if cu is None:
                placed = target.get(v)
                if tv is not None and placed is not None:
                    cu = placed + len(tv) + 1
                    if base is not None:
                        cu = max(cu, base + 4)
                elif base is not None:
                    cu = base + 4
            target[u] = cu

    if cols is not None:
        place_pair("dv", "du", cols.d)
        cbase: int | None = cols.c
        if cbase is not None and not ("cv" in oldcols or "cu" in oldcols):
            # line the Current cell up with the Default cell, as the rules' examples do
            shift = cbase - cols.d
            if "dv" in target and target["dv"] is not None and "cv" in texts:
                cbase = target["dv"] + shift - 1
            elif "du" in target and target["du"] is not None:
                cbase = target["du"] + shift - 4
        place_pair("cv", "cu", cbase)
        if "notes" in texts:
            target["notes"] = oldcols.get("notes", grid.get("notes", cols.n))
    else:
        place_pair("dv", "du", None)
        place_pair("cv", "cu", None)
        if "notes" in texts:
            target["notes"] = oldcols.get("notes")
    _before_notes(texts, target, oldcols, name_end, cols is not None)

    out = [prefix]
    at = name_end
    prev: str | None = None
    for piece in _PIECES:
        t = texts.get(piece)
        if t is None:
            continue
        if prev is None:
            gap = 2 if cols is not None else 1
            if piece == "notes":
                gap = 1
        elif piece == "notes":
            gap = 2
        elif prev[0] == piece[0]:  # value then uses of the same cell
            gap = 1
        else:  # Default cell then Current cell: far enough not to read as one cell
            gap = 3 if cols is not None else 4
        want = target.get(piece)
        col = at + gap if want is None else max(want, at + gap)
        out.append(" " * (col - at) + t)
        at = col + len(t)
        prev = piece
    return "".join(out) + cr


def _before_notes(
    texts: dict[str, str], target: dict[str, int | None], oldcols: dict[str, int], name_end: int, columns: bool
) -> None:
    """Move a Current cell the line did not have yet to the left, as far as the Default
    cell allows, so that it ends before the notes the line already has: the notes stay
    where they are (and a new day, erasing the cell, gives the line back as it was)."""
    notes_at = oldcols.get("notes")
    new = [p for p in ("cv", "cu") if p in texts and p not in oldcols]
    if notes_at is None or not new or "notes" not in texts:
        return
    start = target.get(new[0])
    if start is None:
        return
    width = sum(len(texts[p]) for p in new) + (len(new) - 1)
    last_default = max(
        ((target[p] or 0) + len(texts[p]) for p in ("dv", "du") if p in texts and target.get(p) is not None),
        default=name_end,
    )
    lowest = last_default + (3 if columns else 4)
    room = notes_at - 2 - width
    if start + width + 2 > notes_at and room >= lowest:
        move = start - room
        for p in new:
            if target.get(p) is not None:
                target[p] = (target[p] or 0) - move


def widen(line: str, cols: Cols | None, by: int) -> str:
    """``line`` with everything after its name ``by`` columns further right (the sheet's
    Default column widened for a name that no longer fits before it)."""
    cr = "\r" if line.endswith("\r") else ""
    body = line[:-1] if cr else line
    try:
        _, pos = parse_row(body, cols)
    except LineError:
        return line
    rest = body.expandtabs(TAB)[pos.name_end :]
    if not rest.strip():
        return line
    return body[: pos.prefix_end] + " " * by + rest + cr


def row_text(row: Row, cols: Cols | None, cr: str = "", grid: dict[str, int] | None = None) -> str:
    """The row's line: its raw line when that still says the same, else laid out again
    (``cr``: the sheet's line ending is CRLF, for rows with no line of their own;
    ``grid``: where the sheet's rows put each piece, for a piece the line lacks)."""
    old = None
    if row.raw is not None:
        try:
            parsed, pos = parse_row(row.raw, cols)
        except LineError:
            parsed = None
        if parsed is not None:
            if parsed == row:
                return row.raw
            old = (row.raw, pos)
    candidates = [_render(row, cols, old, grid)] if old is not None else []
    candidates.append(_render(row, cols, None, grid) + (cr if old is None else ""))
    for text in candidates:
        try:
            if parse_row(text, cols)[0] == row:
                return text
        except LineError:
            pass
    raise SheetError(
        f"cannot write {row.label!r} so that it reads back the same "
        "(a name ending in a value or notes, or a Current without a Default)"
    )
