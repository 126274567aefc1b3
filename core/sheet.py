"""The 1d6x4 Character Descriptor Sheet: a text format gmdesk reads and writes.

A sheet is an optional header (the character's name and description), a column line
``Descriptor  Default  Current  Notes`` (Notes may be left out) and one row per
Descriptor::

    Character's name and brief description of the character
    Descriptor    Default    Current      Notes
    Descriptor 1   +1                    (Note 1)
    Descriptor 2   -2         -1         (Note 2)
    Descriptor 3   +5 (1)        (0)     (Note 3)

A row is an indentation (nesting: a row belongs to the nearest row above it that is
indented less), an optional ``*`` (a Sub-Ability), an optional quantity (``2 shovels``,
``20ft of thread``), the name, then up to two cells — the Default and the Current —
each a value ``+N``/``-N`` and/or a uses count ``(N)``/``(inf)`` — and finally Notes in
parentheses. A template is the same thing without a column line (and at most a
``Name:`` title line): every value in it is a Default Value.

Reading then writing a sheet gives back the same text byte for byte: every row keeps
the line it was read from (``Row.raw``) as long as its values are unchanged, blank
lines and the exact header are kept too. A row whose values change is written again in
the same layout — each value stays in the column it was in, new values go under the
column line's ``Default`` / ``Current`` headings, with the same offset the row's other
cell has (so the uses counts of the rules' examples stay lined up), and Notes stay
where they were unless the values push them right.

Sheets are immutable: every change returns a new :class:`Sheet` sharing the rows it
did not touch, so copies are free. Equality compares what the sheet says (header,
rows, values, nesting, notes), not the spacing.

How the text is read, where the rules leave it open:

* a tab is 4 columns wide (the rules' location sheet lines up that way);
* a sheet read with CRLF line endings is written with CRLF line endings (a sheet
  mixing both is written with CRLF throughout);
* a single value or uses cell counts as the Current only when it sits past the middle
  between the ``Default`` and ``Current`` headings *and* the name stops before the
  ``Default`` heading (so a long name pushing its Default to the right stays a
  Default); two cells are always Default then Current;
* a value followed by a uses count with at most two spaces between is one cell
  (``+5 (1)``); further apart they are two cells;
* in a sheet without a column line, a first line ending with ``:`` is a title (the way
  the rules label their templates: ``Medical Doctor:``);
* a name may contain anything, but a name ending in something that reads as a value
  (``Sword +1``) is read as the name plus a value.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from gmdesk.core.dice import Die, RandomSource
from gmdesk.core.errors import ParamError, SheetError
from gmdesk.core.odds import Dist, die, sub
from gmdesk.core.tables import DescriptorTable, load_builtin

#: columns a tab advances to (the rules' location sheet lines up with 4)
TAB = 4
#: unlimited uses
INF = "inf"
#: a descriptor at or below this cannot be used ("at or below −5")
UNUSABLE_AT = -5
#: a Default or uses count: an int, "inf" or None (not written)
Uses = int | str | None


class CannotUse(SheetError):
    """A descriptor cannot be used now: at (0) uses, at −5 or below, or missing."""


class _Keep:
    """Marker for "leave this value as it is" in the ``set_*`` methods."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()


# --------------------------------------------------------------------------- data


@cache
def _core_table() -> DescriptorTable:
    t = load_builtin("1d6x4-core")
    assert isinstance(t, DescriptorTable)
    return t


def core_descriptors() -> tuple[str, ...]:
    """The Core Descriptors in sheet order (Defense … Wealth), from ``1d6x4-core.json``."""
    t = _core_table()
    return tuple(t.rows[k][t.columns.index("name")] for k in sorted(t.rows))


def core_descriptions() -> dict[str, str]:
    """Core Descriptor name -> what it measures."""
    t = _core_table()
    return {t.rows[k][0]: t.rows[k][1] for k in sorted(t.rows)}


@cache
def _template_table() -> DescriptorTable:
    t = load_builtin("1d6x4-templates")
    assert isinstance(t, DescriptorTable)
    return t


def templates() -> dict[str, str]:
    """The shipped templates: name -> template text (``1d6x4-templates.json``)."""
    t = _template_table()
    return {t.rows[k][0]: t.rows[k][1] for k in sorted(t.rows)}


def template(name: str) -> str:
    """One shipped template's text by name (case-insensitive)."""
    for k, text in templates().items():
        if _norm(k) == _norm(name):
            return text
    raise ParamError("template", f"no template {name!r}; choose one of {', '.join(templates())}")


def core_value_distribution() -> Dist:
    """Exact distribution of a rolled Core Descriptor, d6 − d4: −3..+5."""
    return sub(die(6), die(4))


# --------------------------------------------------------------------------- rows


def _norm(name: str) -> str:
    return " ".join(str(name).replace("*", " ").split()).casefold()


def _words(name: str) -> list[str]:
    return re.findall(r"[A-Za-z]+", name.casefold())


def is_ability_name(name: str) -> bool:
    """Ability Descriptors always include the word Ability."""
    return "ability" in _words(name)


def is_expertise_name(name: str) -> bool:
    w = _words(name)
    return bool(w) and w[-1] == "expertise"


def is_test_name(name: str) -> bool:
    """A Test Descriptor (``Precision+Slingshot Expertise+Slingshot Test``)."""
    w = _words(name)
    return bool(w) and w[-1] == "test"


@cache
def _core_keys() -> frozenset[str]:
    return frozenset(_norm(c) for c in core_descriptors())


def is_core_name(name: str) -> bool:
    return _norm(name) in _core_keys()


def is_item_or_ability_name(name: str) -> bool:
    """gmdesk's rule for what a descriptor is, by its name: the rules know Core
    Descriptors, Expertise (last word "Expertise"), Test Descriptors (last word
    "Test"), Abilities (the word "Ability") with their Uses, and Physical Items. So a
    name that is neither a Core Descriptor, nor an Expertise, nor a Test Descriptor
    names an Ability, a Use or a Physical Item: something a character has or lacks
    (missing, a Test that needs it fails automatically), never a +0 descriptor."""
    return not (is_core_name(name) or is_expertise_name(name) or is_test_name(name))


def fmt_value(v: int | None) -> str:
    return "" if v is None else f"{v:+d}"


def fmt_uses(u: Uses) -> str:
    return "" if u is None else f"({u})"


@dataclass(frozen=True)
class Row:
    """One Descriptor line.

    ``name`` is the name without quantity (``Lock pick`` for ``1 Lock pick``),
    ``quantity`` the count written before it (``"1"``, ``"20ft"``) or None.
    ``default`` / ``current`` are the ``+N`` values, ``uses_default`` /
    ``uses_current`` the counts in parentheses (an int or ``"inf"``); None means not
    written. ``notes`` is the notes text as written, parentheses included. ``depth``
    is the indentation width (nesting), ``sub`` the ``*`` marker.

    ``raw`` (the line as written) and ``before`` (blank lines above the row) are
    layout: they take no part in equality.
    """

    name: str
    default: int | None = None
    current: int | None = None
    uses_default: Uses = None
    uses_current: Uses = None
    notes: str = ""
    depth: int = 0
    sub: bool = False
    quantity: str | None = None
    raw: str | None = field(default=None, compare=False, repr=False)
    before: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def label(self) -> str:
        """The name with its quantity, as written (``2 shovels``, ``20ft of thread``)."""
        if not self.quantity:
            return self.name
        joiner = " of " if re.search(r"[A-Za-z]", self.quantity) else " "
        return f"{self.quantity}{joiner}{self.name}"

    @property
    def value(self) -> int:
        """What the row adds to a Test: Current if written, else Default, else +0."""
        if self.current is not None:
            return self.current
        return self.default if self.default is not None else 0

    @property
    def uses(self) -> Uses:
        """Uses left: Current count if written, else the Default count (None: not counted)."""
        return self.uses_current if self.uses_current is not None else self.uses_default

    @property
    def has_value(self) -> bool:
        return self.default is not None or self.current is not None


# --------------------------------------------------------------------------- reading


_COLUMN_LINE = re.compile(r"^\s*Descriptors?[ \t]+Default\b", re.I)
_VALUE = re.compile(r"[+\-\u2212]\d+\Z")
_USES = re.compile(r"(\d+|inf)\Z", re.I)
_BAD_USES = re.compile(r"[+\-\u2212]?\s*([\d.,]+|inf\w*)", re.I)
_QUANTITY = re.compile(r"(\d+(?!st\b|nd\b|rd\b|th\b)[A-Za-z]*)\s+(\S.*)\Z", re.S)


def _col(line: str, index: int) -> int:
    """The display column of ``line[index]`` (tabs expanded)."""
    return len(line[:index].expandtabs(TAB))


@dataclass(frozen=True)
class _Cols:
    """Where the column line puts its headings (display columns)."""

    d: int
    c: int | None
    n: int | None

    @property
    def mid(self) -> float:
        return (self.d + self.c) / 2 if self.c is not None else float("inf")


def _parse_columns(line: str) -> _Cols:
    exp = line.rstrip("\r").expandtabs(TAB)
    d = re.search(r"\bDefault\b", exp, re.I)
    c = re.search(r"\bCurrent\b", exp, re.I)
    n = re.search(r"\bNotes\b", exp, re.I)
    assert d is not None
    return _Cols(d.start(), c.start() if c else None, n.start() if n else None)


@dataclass(frozen=True)
class _Tok:
    kind: str  # word | value | uses | note
    start: int
    end: int
    text: str


@dataclass
class _Pos:
    """Where a row's parts sit in its line (display columns), for writing it again."""

    prefix_end: int  # index in the line where the name ends
    name_end: int  # display column where the name ends
    cols: dict[str, int]  # piece (dv du cv cu notes) -> display column


class _LineError(Exception):
    pass


def _check_parens(text: str) -> None:
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise _LineError("a ')' without its '('")
    if depth:
        raise _LineError("unclosed parenthesis (notes and uses are written '(…)')")


def _scan(text: str, i: int) -> list[_Tok]:
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
                raise _LineError(f"bad uses {text[i : j + 1]!r} (write (N) or (inf))")
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
            raise _LineError(f"bad value {word!r} (write +N or -N)")
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


def _parse_row(line: str, cols: _Cols | None) -> tuple[Row, _Pos]:
    """Read one row line (without its newline); _LineError on garbage."""
    text = line[:-1] if line.endswith("\r") else line
    _check_parens(text)
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
    toks = _scan(text, i)
    if not toks:
        raise _LineError("a '*' without a name")
    # the name runs up to the trailing values, uses and notes
    k = len(toks)
    while k > 0 and toks[k - 1].kind == "note":
        k -= 1
    while k > 0 and toks[k - 1].kind in ("value", "uses"):
        k -= 1
    if k == 0:
        if toks[0].kind in ("value", "uses"):
            raise _LineError(f"a row must start with a descriptor name (got {toks[0].text!r})")
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
        raise _LineError("more than two values (a row has a Default and a Current at most)")
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
    return row, _Pos(prefix_end, name_end, poscols)


def _title_line(line: str) -> bool:
    s = line.strip()
    return s.endswith(":") and len(s) > 1


def _header_of(head: Sequence[str]) -> str:
    return "\n".join(x.rstrip() for x in head).strip("\n")


# --------------------------------------------------------------------------- writing rows

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


def _render(row: Row, cols: _Cols | None, old: tuple[str, _Pos] | None) -> str:
    """Lay a row out: keep the old line's name and columns, place new pieces under the
    headings (or after the name in a sheet without a column line)."""
    cr = ""
    if old is not None:
        old_line, pos = old
        if old_line.endswith("\r"):
            cr = "\r"
            old_line = old_line[:-1]
        old_row = _parse_row(old_line, cols)[0]
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

    def place_pair(v: str, u: str, base: int | None) -> None:
        tv, tu = texts.get(v), texts.get(u)
        cv, cu = oldcols.get(v), oldcols.get(u)
        if tv is not None:
            if cv is None:
                if cu is not None:
                    cv = cu - len(tv) - 1
                elif base is not None:
                    cv = base + 1
            target[v] = cv
        if tu is not None:
            if cu is None:
                if tv is not None and target.get(v) is not None:
                    cu = target[v] + len(tv) + 1  # type: ignore[operator]
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
            shift = cols.c - cols.d
            if "dv" in target and target["dv"] is not None and "cv" in texts:
                cbase = target["dv"] + shift - 1  # type: ignore[operator]
            elif "du" in target and target["du"] is not None:
                cbase = target["du"] + shift - 4  # type: ignore[operator]
        place_pair("cv", "cu", cbase)
        if "notes" in texts:
            target["notes"] = oldcols.get("notes", cols.n)
    else:
        place_pair("dv", "du", None)
        place_pair("cv", "cu", None)
        if "notes" in texts:
            target["notes"] = oldcols.get("notes")

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


def _row_text(row: Row, cols: _Cols | None, cr: str = "") -> str:
    """The row's line: its raw line when that still says the same, else laid out again
    (``cr``: the sheet's line ending is CRLF, for rows with no line of their own)."""
    old = None
    if row.raw is not None:
        try:
            parsed, pos = _parse_row(row.raw, cols)
        except _LineError:
            parsed = None
        if parsed is not None:
            if parsed == row:
                return row.raw
            old = (row.raw, pos)
    candidates = [_render(row, cols, old)] if old is not None else []
    candidates.append(_render(row, cols, None) + (cr if old is None else ""))
    for text in candidates:
        try:
            if _parse_row(text, cols)[0] == row:
                return text
        except _LineError:
            pass
    raise SheetError(
        f"cannot write {row.label!r} so that it reads back the same "
        "(a name ending in a value or notes, or a Current without a Default)"
    )


# --------------------------------------------------------------------------- the sheet


@dataclass(frozen=True)
class _Layout:
    """What the text looked like beyond its meaning (not part of equality)."""

    head: tuple[str, ...] | None = None  # the exact lines before the column line / the title
    column_line: str | None = None
    tail: tuple[str, ...] = ()  # blank lines after the last row
    final_newline: bool = True


def _split_path(name: str) -> list[str]:
    return [_norm(p) for p in str(name).split("/") if p.strip()]


def _row_matches(row: Row, key: str) -> bool:
    return key == _norm(row.name) or key == _norm(row.label)


def _add(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _add_uses(a: Uses, b: Uses) -> Uses:
    if a is None:
        return b
    if b is None:
        return a
    if a == INF or b == INF:
        return INF
    return int(a) + int(b)


def _check_value(option: str, v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            v = int(str(v).strip().replace("\u2212", "-"))
        except ValueError:
            raise ParamError(option, f"must be a whole number like +2 or -1, or empty (got {v!r})") from None
    return v


def _check_uses(option: str, u: Any) -> Uses:
    if u is None:
        return None
    if isinstance(u, str):
        s = u.strip().strip("()").strip()
        if s.casefold() == INF:
            return INF
        if s == "":
            return None
        try:
            u = int(s)
        except ValueError:
            raise ParamError(option, f"must be a count N ≥ 0 or 'inf', or empty (got {u!r})") from None
    if isinstance(u, bool) or not isinstance(u, int) or u < 0:
        raise ParamError(option, f"must be a count N ≥ 0 or 'inf', or empty (got {u!r})")
    return u


@dataclass(frozen=True)
class Sheet:
    """A Character Descriptor Sheet (or a template: ``has_columns`` False).

    Immutable; every change returns a new Sheet. Rows are in sheet order; nesting
    comes from ``Row.depth``.
    """

    header: str = ""
    rows: tuple[Row, ...] = ()
    has_notes_column: bool = False
    has_columns: bool = True
    layout: _Layout = field(default=_Layout(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", tuple(self.rows))
        if self.has_columns and self.layout.column_line is None:
            # fix the column line once, so rows added later line up with the same headings
            object.__setattr__(self, "layout", dataclasses.replace(self.layout, column_line=self._column_line))
            self.__dict__.pop("_column_line", None)
        if not self.has_columns and self.header and ("\n" in self.header.strip() or not _title_line(self.header)):
            raise ParamError("header", "a sheet without a column line can only have a one-line 'Name:' title")
        if any(_COLUMN_LINE.match(x) for x in self.header.split("\n")):
            raise ParamError("header", "the header cannot look like the column line 'Descriptor  Default …'")

    # -- text -------------------------------------------------------------------------------

    @cached_property
    def _cols(self) -> _Cols | None:
        if not self.has_columns:
            return None
        return _parse_columns(self._column_line)

    @cached_property
    def _column_line(self) -> str:
        line = self.layout.column_line
        if line is not None:
            has_notes = re.search(r"\bNotes\b", line, re.I) is not None
            if has_notes == self.has_notes_column:
                return line
            cr = "\r" if line.endswith("\r") else ""
            body = line[:-1] if cr else line
            if self.has_notes_column:
                cols = _parse_columns(body)
                n = max((cols.c if cols.c is not None else cols.d) + 11, len(body.rstrip().expandtabs(TAB)) + 4)
                body = body.rstrip().expandtabs(TAB)
                return body + " " * (n - len(body)) + "Notes" + cr
            return re.sub(r"\s*\bNotes\b\s*$", "", body, flags=re.I) + cr
        width = max([18] + [r.depth + (1 if r.sub else 0) + len(r.label) + 3 for r in self.rows])
        line = f"{'Descriptor':<{width}}{'Default':<11}Current"
        if self.has_notes_column:
            line += " " * 4 + "Notes"
        return line

    def text(self) -> str:
        return write_sheet(self)

    def __str__(self) -> str:
        return write_sheet(self)

    def _with_rows(self, rows: Iterable[Row]) -> Sheet:
        return dataclasses.replace(self, rows=tuple(rows))

    def _noting(self, row: Row) -> Sheet:
        """This sheet, with a Notes heading when ``row`` brings the first notes."""
        if row.notes and self.has_columns and not self.has_notes_column:
            return dataclasses.replace(self, has_notes_column=True)
        return self

    def _laid_out(self, row: Row) -> Row:
        """The row with ``raw`` brought up to date with its values."""
        return dataclasses.replace(row, raw=_row_text(row, self._cols, self._cr))

    @cached_property
    def _cr(self) -> str:
        """ "\r" when the text this sheet was read from has CRLF line endings."""
        first = self.layout.column_line or next((r.raw for r in self.rows if r.raw is not None), None)
        if first is None and self.layout.head:
            first = self.layout.head[0]
        return "\r" if first is not None and first.endswith("\r") else ""

    def with_header(self, header: str) -> Sheet:
        """The sheet with another header (a template gains a column line, its rows are
        laid out again under it)."""
        header = str(header).strip("\n")
        if self.has_columns or not header or _title_line(header):
            return dataclasses.replace(self, header=header)
        return dataclasses.replace(
            self,
            header=header,
            has_columns=True,
            layout=_Layout(tail=self.layout.tail, final_newline=self.layout.final_newline),
        ).relayout()

    def relayout(self) -> Sheet:
        """Every row laid out afresh under the column line (blank lines kept)."""
        return self._with_rows(self._laid_out(dataclasses.replace(r, raw=None)) for r in self.rows)

    # -- structure --------------------------------------------------------------------------

    @cached_property
    def _parents(self) -> tuple[int | None, ...]:
        out: list[int | None] = []
        stack: list[int] = []
        for i, r in enumerate(self.rows):
            while stack and self.rows[stack[-1]].depth >= r.depth:
                stack.pop()
            out.append(stack[-1] if stack else None)
            stack.append(i)
        return tuple(out)

    def parent_index(self, i: int) -> int | None:
        return self._parents[i]

    def parent(self, name: str) -> Row | None:
        p = self._parents[self.index(name)]
        return None if p is None else self.rows[p]

    def _chain(self, i: int) -> list[int]:
        chain = [i]
        while (p := self._parents[chain[-1]]) is not None:
            chain.append(p)
        return chain[::-1]

    def path(self, i: int) -> str:
        """``Magic Ability/Turn Invisible``: the names from the top row down to row ``i``."""
        return "/".join(self.rows[j].name for j in self._chain(i))

    def entries(self) -> tuple[tuple[str, Row], ...]:
        """Every row with its path."""
        return tuple((self.path(i), r) for i, r in enumerate(self.rows))

    def children(self, name: str) -> tuple[Row, ...]:
        i = self.index(name)
        return tuple(r for j, r in enumerate(self.rows) if self._parents[j] == i)

    def _subtree_end(self, i: int) -> int:
        j = i + 1
        while j < len(self.rows) and self.rows[j].depth > self.rows[i].depth:
            j += 1
        return j

    # -- lookup -----------------------------------------------------------------------------

    def _find_index(self, name: str) -> int | None:
        parts = _split_path(name)
        if not parts:
            raise ParamError("descriptor", "give a descriptor name (nested ones as 'Magic Ability/Turn Invisible')")
        hits: list[int] = []
        rooted: list[int] = []
        for i, r in enumerate(self.rows):
            if not _row_matches(r, parts[-1]):
                continue
            chain = self._chain(i)
            if len(chain) < len(parts):
                continue
            tail = chain[-len(parts) :]
            if all(_row_matches(self.rows[j], p) for j, p in zip(tail, parts, strict=False)):
                hits.append(i)
                if len(chain) == len(parts):
                    rooted.append(i)
        if len(hits) == 1:
            return hits[0]
        if not hits:
            return None
        if len(rooted) == 1:  # a top-level row wins over nested rows of the same name
            return rooted[0]
        raise ParamError(
            "descriptor", f"{name!r} is ambiguous; write one of " + ", ".join(repr(self.path(i)) for i in hits)
        )

    def find(self, name: str) -> Row | None:
        """The row called ``name`` (case-insensitive; ``Magic Ability/Turn Invisible``
        for a nested row, or just its name when that is unique; a top-level row wins
        over nested rows of the same name). None when missing; ParamError when
        ambiguous."""
        i = self._find_index(name)
        return None if i is None else self.rows[i]

    def index(self, name: str) -> int:
        i = self._find_index(name)
        if i is None:
            raise ParamError("descriptor", f"{name!r} is not on the sheet")
        return i

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find_index(name) is not None

    def value(self, name: str) -> int:
        """The number a Test adds: Current if written, else Default; missing → +0."""
        r = self.find(name)
        return 0 if r is None else r.value

    def uses(self, name: str) -> Uses:
        r = self.find(name)
        return None if r is None else r.uses

    # -- kinds ------------------------------------------------------------------------------

    def is_sub_ability(self, name_or_index: str | int) -> bool:
        """A Sub-Ability (a Use): starred, or nested directly under an Ability."""
        i = name_or_index if isinstance(name_or_index, int) else self.index(name_or_index)
        r = self.rows[i]
        p = self._parents[i]
        return r.sub or (p is not None and is_ability_name(self.rows[p].name))

    def is_item_or_ability(self, name_or_index: str | int) -> bool:
        """Whether a row is a Physical Item, an Ability or a Use — things a character
        either has or lacks, which cannot be used once they are missing.

        Abilities contain the word Ability; Uses are Sub-Abilities. For the rest gmdesk
        uses one rule (:func:`is_item_or_ability_name`): a descriptor that is neither a
        Core Descriptor, nor an Expertise, nor a Test Descriptor is a Physical Item
        (``Slingshot +4``, ``Medical Kit``, ``2 shovels``, ``Sneak +1``).
        """
        i = name_or_index if isinstance(name_or_index, int) else self.index(name_or_index)
        r = self.rows[i]
        if is_ability_name(r.name) or self.is_sub_ability(i):
            return True
        return is_item_or_ability_name(r.name)

    def blocked(self, name: str) -> str | None:
        """Why ``name`` cannot be used in a Test now (None if it can): at or below −5,
        at (0) uses (its own or, for a Sub-Ability, its parent's). Missing rows are not
        judged here (see ``core.systems.one_d6_x4.test_bonus``)."""
        i = self._find_index(name)
        if i is None:
            return None
        return self._blocked_at(i)

    def _blocked_at(self, i: int) -> str | None:
        r = self.rows[i]
        if r.value <= UNUSABLE_AT:
            return f"{self.path(i)} is at {r.value:+d}"
        if r.uses == 0:
            return f"{self.path(i)} is at (0)"
        p = self._parents[i]
        if p is not None and self.is_sub_ability(i):
            pr = self.rows[p]
            if pr.uses == 0:
                return f"{self.path(p)} is at (0)"
            if pr.value <= UNUSABLE_AT:
                return f"{self.path(p)} is at {pr.value:+d}"
        return None

    # -- changes ----------------------------------------------------------------------------

    def _replace_at(self, i: int, row: Row) -> Sheet:
        s = self._noting(row)
        rows = list(s.rows)
        rows[i] = s._laid_out(row)
        return s._with_rows(rows)

    def set_values(
        self, name: str, *, default: Any = KEEP, current: Any = KEEP, uses_default: Any = KEEP, uses_current: Any = KEEP
    ) -> Sheet:
        """Set any of the four numbers (None erases one; KEEP leaves it).

        A missing descriptor is added at the top level. A Current Value on a row with
        no Default Value gets Default +0 (the rule for missing descriptors); a Current
        uses count needs a Default uses count."""
        i = self._find_index(name)
        if i is None:
            if "/" in name:
                raise ParamError("descriptor", f"{name!r} is not on the sheet (add the parent row first)")
            row = Row(name=" ".join(name.split()))
        else:
            row = self.rows[i]
        changes: dict[str, Any] = {}
        if default is not KEEP:
            changes["default"] = _check_value("default", default)
        if current is not KEEP:
            changes["current"] = _check_value("current", current)
        if uses_default is not KEEP:
            changes["uses_default"] = _check_uses("uses_default", uses_default)
        if uses_current is not KEEP:
            changes["uses_current"] = _check_uses("uses_current", uses_current)
        new = dataclasses.replace(row, **changes)
        if new.current is not None and new.default is None:
            if "default" in changes:
                raise ParamError("default", f"{new.label} has a Current Value: erase it before the Default")
            new = dataclasses.replace(new, default=0)
        if new.uses_current is not None and new.uses_default is None:
            raise ParamError("uses_current", f"{new.label} has no Default uses count; set uses_default first")
        if i is None:
            return self._with_rows(self.rows + (self._laid_out(new),))
        if new == row:
            return self
        return self._replace_at(i, new)

    def set_current(self, name: str, value: Any = KEEP, *, uses: Any = KEEP) -> Sheet:
        return self.set_values(name, current=value, uses_current=uses)

    def set_default(self, name: str, value: Any = KEEP, *, uses: Any = KEEP) -> Sheet:
        return self.set_values(name, default=value, uses_default=uses)

    def set_notes(self, name: str, notes: str) -> Sheet:
        """Replace a row's notes (wrapped in parentheses if they are not)."""
        notes = " ".join(str(notes).split())
        if notes and not (notes.startswith("(") and notes.endswith(")")):
            notes = f"({notes})"
        try:
            _check_parens(notes)
        except _LineError as e:
            raise ParamError("notes", str(e)) from None
        if notes and any(t.kind != "note" for t in _scan(notes, 0)):
            raise ParamError("notes", f"notes must be text in parentheses (got {notes!r})")
        i = self.index(name)
        return self._replace_at(i, dataclasses.replace(self.rows[i], notes=notes))

    def lower(self, name: str, amount: int) -> Sheet:
        """Lower a descriptor's Current Value by ``amount`` (negative raises it).

        A missing descriptor (a Core Descriptor, an Expertise, a Test Descriptor)
        counts +0 and is written as Default +0 with its new Current Value; a Physical
        Item, Ability or Use the character lacks is not written (ParamError; see
        :func:`is_item_or_ability_name`)."""
        amount = _check_value("amount", amount)
        if not amount:
            return self
        i = self._find_index(name)
        if i is None:
            if "/" in name or is_item_or_ability_name(name):
                raise ParamError(
                    "descriptor",
                    f"{name!r} is not on the sheet: a Physical Item, Ability or Use "
                    "the character lacks cannot be lowered",
                )
            return self.set_values(name, default=0, current=-amount)
        r = self.rows[i]
        return self._replace_at(
            i, dataclasses.replace(r, current=r.value - amount, default=r.default if r.default is not None else 0)
        )

    def pay(self, amount: int, name: str = "Wealth") -> Sheet:
        """Pay with Wealth: a permanent loss, so the Default Value is lowered (the
        Current Value is left as it is). Wealth at or below −5 cannot be used."""
        amount = _check_value("amount", amount)
        if amount is None or amount < 1:
            raise ParamError("amount", f"must be a whole number ≥ 1 (got {amount!r})")
        why = self.blocked(name)
        if why:
            raise CannotUse(f"{why}: it cannot be used")
        r = self.find(name)
        base = r.default if r is not None and r.default is not None else 0
        return self.set_values(name, default=base - amount)

    def spend_use(self, name: str, amount: int = 1, parent_amount: int | None = None) -> Sheet:
        """Use an Ability, Item or Sub-Ability: its current uses drop by ``amount``; a
        Sub-Ability also spends its parent's (``parent_amount``, default the same).

        CannotUse when it (or the parent) is at (0), has fewer uses left than asked,
        or is at −5 or below. ``(inf)`` never runs out; a row with no uses count is
        not counted. Nothing changes when any check fails."""
        amount = _check_value("amount", amount)
        if amount is None or amount < 1:
            raise ParamError("amount", f"must be a whole number ≥ 1 (got {amount!r})")
        pamount = amount if parent_amount is None else _check_value("parent_amount", parent_amount)
        if pamount is None or pamount < 0:
            raise ParamError("parent_amount", f"must be a whole number ≥ 0 (got {parent_amount!r})")
        i = self._find_index(name)
        if i is None:
            raise CannotUse(f"{name} is not on the sheet: the character lacks it and cannot use it")
        todo = [(i, amount)]
        p = self._parents[i]
        if p is not None and self.is_sub_ability(i):
            todo.append((p, pamount))
        out = self
        for j, amt in todo:
            r = self.rows[j]
            if r.value <= UNUSABLE_AT:
                raise CannotUse(f"{self.path(j)} is at {r.value:+d}: it cannot be used")
            left = r.uses
            if left is None or left == INF or amt == 0:
                continue
            if left == 0:
                raise CannotUse(f"{self.path(j)} is at (0): used up until a new day")
            if left < amt:
                raise CannotUse(f"{self.path(j)} has ({left}) left, {amt} needed")
            out = out._replace_at(j, dataclasses.replace(out.rows[j], uses_current=left - amt))
        return out

    def new_day(self) -> Sheet:
        """A new day: every Current Value (uses too) is erased, back to the Default."""
        if not any(r.current is not None or r.uses_current is not None for r in self.rows):
            return self
        return self._with_rows(
            self._laid_out(dataclasses.replace(r, current=None, uses_current=None))
            if (r.current is not None or r.uses_current is not None)
            else r
            for r in self.rows
        )

    def add_row(
        self,
        name: str,
        default: int | None = None,
        *,
        uses: Uses = None,
        notes: str = "",
        parent: str | None = None,
        sub: bool = False,
        quantity: str | None = None,
    ) -> Sheet:
        """Add a row at the end of the sheet, or as the last child of ``parent``."""
        label = " ".join(str(name).split())
        if not label:
            raise ParamError("descriptor", "a descriptor needs a name")
        row = Row(
            label,
            default=_check_value("default", default),
            uses_default=_check_uses("uses", uses),
            sub=sub,
            quantity=(str(quantity).strip() or None) if quantity is not None else None,
        )
        if notes:
            notes = " ".join(notes.split())
            row = dataclasses.replace(row, notes=notes if notes.startswith("(") else f"({notes})")
        if parent is None:
            return self._insert(len(self.rows), row)
        p = self.index(parent)
        return self._insert(self._subtree_end(p), dataclasses.replace(row, depth=self.rows[p].depth + 2))

    def _insert(self, at: int, row: Row) -> Sheet:
        s = self._noting(row)
        rows = list(s.rows)
        rows.insert(at, s._laid_out(row))
        return s._with_rows(rows)

    def remove(self, name: str) -> Sheet:
        """Remove a row and everything nested in it."""
        i = self.index(name)
        return self._with_rows(self.rows[:i] + self.rows[self._subtree_end(i) :])

    def apply_template(self, template_text: str | Sheet) -> Sheet:
        """Append a template's Descriptors; one already on the sheet (same name, same
        place) adds the template's value to its Default Value (and its uses count to
        the Default uses; ``(inf)`` wins). Rows nested in the template are merged the
        same way under their parent."""
        t = parse_sheet(template_text, "<template>") if isinstance(template_text, str) else template_text
        out: Sheet = self
        for i, _r in enumerate(t.rows):
            if t._parents[i] is None:
                out = out._merge(t, i, None)
        return out

    def _merge(self, t: Sheet, ti: int, parent: int | None) -> Sheet:
        tr = t.rows[ti]
        # the same name at the same place on this sheet?
        found = None
        for j, r in enumerate(self.rows):
            if self._parents[j] == parent and _norm(r.name) == _norm(tr.name):
                found = j
                break
        kids = [k for k in range(ti + 1, t._subtree_end(ti)) if t._parents[k] == ti]
        if found is None:
            depth = 0 if parent is None else self.rows[parent].depth + 2
            at = len(self.rows) if parent is None else self._subtree_end(parent)
            new = Row(
                tr.name,
                default=tr.default,
                uses_default=tr.uses_default,
                notes=tr.notes,
                depth=depth,
                sub=tr.sub,
                quantity=tr.quantity,
            )
            out = self._insert(at, new)
            found = at
        else:
            r = self.rows[found]
            out = self._replace_at(
                found,
                dataclasses.replace(
                    r,
                    default=_add(r.default, tr.default),
                    uses_default=_add_uses(r.uses_default, tr.uses_default),
                    notes=r.notes or tr.notes,
                ),
            )
        for k in kids:
            out = out._merge(t, k, found)
        return out


# --------------------------------------------------------------------------- module API


def parse_sheet(text: str, source: str = "<sheet>") -> Sheet:
    """Read a sheet (or a template). SheetError names ``source``, the line and the problem."""
    if not isinstance(text, str):
        raise SheetError(f"{source}: a sheet is text (got {type(text).__name__})")
    if text == "":
        return Sheet(has_columns=False, layout=_Layout(final_newline=False))
    lines = text.split("\n")
    final_newline = lines[-1] == ""
    if final_newline:
        lines.pop()
    col_at = next((i for i, x in enumerate(lines) if _COLUMN_LINE.match(x)), None)
    cols: _Cols | None
    if col_at is not None:
        head: tuple[str, ...] | None = tuple(lines[:col_at])
        column_line: str | None = lines[col_at]
        cols = _parse_columns(lines[col_at])
        body_at = col_at + 1
    else:
        cols = None
        column_line = None
        first = next((i for i, x in enumerate(lines) if x.strip()), None)
        if first is not None and _title_line(lines[first]):
            head = tuple(lines[: first + 1])
            body_at = first + 1
        else:
            head = None
            body_at = 0
    rows: list[Row] = []
    pending: list[str] = []
    for n in range(body_at, len(lines)):
        line = lines[n]
        if not line.strip() or _COLUMN_LINE.match(line):
            pending.append(line)
            continue
        try:
            row, _ = _parse_row(line, cols)
        except _LineError as e:
            raise SheetError(f"{source}: line {n + 1}: {e}") from None
        rows.append(dataclasses.replace(row, before=tuple(pending)))
        pending = []
    has_notes = bool(column_line and re.search(r"\bNotes\b", column_line, re.I))
    header = _header_of(head) if head is not None else ""
    return Sheet(
        header=header,
        rows=tuple(rows),
        has_notes_column=has_notes,
        has_columns=col_at is not None,
        layout=_Layout(head=head, column_line=column_line, tail=tuple(pending), final_newline=final_newline),
    )


def write_sheet(sheet: Sheet) -> str:
    """The sheet as text; ``parse_sheet(write_sheet(s)) == s``, and a sheet read from
    text and left unchanged is written back byte for byte."""
    out: list[str] = []
    head = sheet.layout.head
    if head is not None and _header_of(head) == sheet.header:
        out.extend(head)
    elif sheet.header:
        out.extend(sheet.header.split("\n"))
    if sheet.has_columns:
        out.append(sheet._column_line)
    cols = sheet._cols
    for row in sheet.rows:
        out.extend(row.before)
        out.append(_row_text(row, cols, sheet._cr))
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


def new_sheet(header: str = "", rows: Iterable[Row] = (), *, has_notes_column: bool = False) -> Sheet:
    """A sheet built from rows (laid out under a fresh column line)."""
    s = Sheet(header=header, rows=tuple(rows), has_notes_column=has_notes_column, has_columns=True)
    return s._with_rows(s._laid_out(r) for r in s.rows)


def is_item_or_ability(row: Row, sheet: Sheet | None = None) -> bool:
    """See :meth:`Sheet.is_item_or_ability`; without the sheet a row is judged alone
    (a starred row is a Use)."""
    if sheet is not None:
        for i, r in enumerate(sheet.rows):
            if r is row:
                return sheet.is_item_or_ability(i)
    return row.sub or is_item_or_ability_name(row.name)


def generate_core(
    rng: RandomSource, all_zero: bool = False, header: str = "New character"
) -> tuple[Sheet, tuple[Die, ...]]:
    """A new character's Core Descriptors: each d6 − d4 (−3..+5), dice in sheet order
    (d6 then d4 for each descriptor, role ``die``).

    ``all_zero``: the player does not roll and every Core Descriptor is +0. The rules
    say they need not be written then; gmdesk writes Vitality alone (+0) so there is
    room for its Current Value, as the rules advise for GM-made characters."""
    if all_zero:
        return new_sheet(header, [Row("Vitality", default=0)]), ()
    dice: list[Die] = []
    rows = []
    for name in core_descriptors():
        a = rng.randint(1, 6)
        b = rng.randint(1, 4)
        dice += [Die(a, "die", 6), Die(b, "die", 4)]
        rows.append(Row(name, default=a - b))
    return new_sheet(header, rows), tuple(dice)


__all__ = [
    "CannotUse",
    "INF",
    "KEEP",
    "Row",
    "Sheet",
    "TAB",
    "UNUSABLE_AT",
    "core_descriptions",
    "core_descriptors",
    "core_value_distribution",
    "fmt_uses",
    "fmt_value",
    "generate_core",
    "is_ability_name",
    "is_core_name",
    "is_expertise_name",
    "is_item_or_ability",
    "is_item_or_ability_name",
    "is_test_name",
    "new_sheet",
    "parse_sheet",
    "parse_template",
    "template",
    "templates",
    "write_sheet",
]
