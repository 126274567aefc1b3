"""The initiative / combat pane: the round, whose turn it is, the combatants in order
with initiative, side, a compact health cell and status markers; characters not (yet)
in the encounter are listed below them so any character can be selected. The
session's progress clocks are listed at the bottom.

The pane is dumb: ``set_state`` draws, moving the cursor posts
:class:`InitiativePane.Selected`. What the GM reads is never ambiguous at 80×24: a
name longer than its column goes on to a second line of its row, at a space
(:func:`wrap_name`: "▸ Goblin" / "archers ×3", "Castle" / "Guard 12"), so that
groups or copies whose names start alike read apart at a glance, without moving the
cursor (a cut name, whole only under the cursor, would have the GM walk the list to
tell "▸ Goblin… ×3" from "▸ Goblin… ×2"); a copy's number and a group's count stay
with the word before them, and a name longer than two lines is cut there before its
number ("Castle Gua… 2"). The name takes what its rows need first (up to
:data:`NAME_FIRST`; at 80×24 twelve cells, "▸ Bandit ×2" whole), then the status
column widens to its longest cell as far as the rest allows (the name gives way,
down to :data:`MIN_NAME`); a cell that still does not fit shows its first whole
marks and "+N" for the others (a condition of several words is one mark), never a
cut word. The current turn is marked "▶" (not by colour alone); characters
outside the encounter show "·" instead of an initiative. A character hidden from the
players shows :data:`HIDDEN_MARKER` first in its status cell (a word, not a colour),
and the round line says "(hidden)" when it acts; an entry whose initiative is pinned
(rolling again leaves it there) shows :data:`~gmdesk.tui.widgets.common.PIN_MARKER`
("PIN") next (outside the encounter too: it joins at its pin).

An initiative group is one row, "▸ Gospog ×3", with its members' health in one
cell ("2/3 up": how many of them can act); Enter on it opens it ("▾"), its members
listed under it, one row each ("  Gospog 1"), and Enter again closes it. Moving
to the group's row selects the member who acts for it (the acting one during its
turn, else the first who can act).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from gmdesk.tui.widgets.common import (
    PIN_MARKER,
    STATUS_STYLE,
    TURN_MARKER,
    health_summary,
    initiative_text,
    markers,
)

if TYPE_CHECKING:
    from gmdesk.core.session import Character, State

#: fixed column widths (the name takes what is left); a narrow pane uses the compact set
COLUMNS = (
    ("init", " Init ", 6),
    ("name", "Name", 0),
    ("side", "Side", 5),
    ("health", "Health", 7),
    ("status", "Status", 6),
)
COMPACT = (("init", " Ini ", 5), ("name", "Name", 0), ("side", "Sd ", 4), ("health", "Hlth ", 6), ("status", "St", 5))
MIN_NAME = 6
MAX_NAME = 24
#: the name's width that comes before a wider status column: "▸ Bar Thug ×3", "Castle Guard 12"
#: read whole, and a status cell that does not fit shows its first words and "+N"
NAME_FIRST = 14
#: the most the status column keeps for its first word and "+N" ("DEAD +2") when the
#: name would take it (a longer first word, a condition's own name, reads as "+N")
LEAST_STATUS = 7
#: the status cell's word for a character hidden from the players
HIDDEN_MARKER = "HID"


def _status_marks(ch: Character) -> list[Text]:
    """HID (hidden from the players), PIN (a pinned initiative), then the status and
    condition markers: words, never colour alone; each one mark (a condition of
    several words, "Hunted by the Mist", is one)."""
    marks = [Text(HIDDEN_MARKER, style="italic")] if ch.hidden else []
    if ch.pin is not None:
        marks.append(Text(PIN_MARKER, style="bold"))
    return marks + [Text(m, style=STATUS_STYLE.get(m, "bold")) for m in markers(ch)]


def _joined(marks: list[Text]) -> Text:
    return Text(" ").join(marks)


def _title_width(state: State, ch: Character) -> int:
    """The cells ``ch``'s row title needs: its name (indented under its group's row),
    or its group's row, "▸ Gospog ×3"."""
    if ch.group is None:
        return cell_len(ch.name)
    return max(2 + cell_len(ch.name), 2 + cell_len(state.group_title(ch.group)))


def _least_width(marks: list[Text]) -> int:
    """The fewest cells a status cell reads in: its first mark and "+N" for the rest
    ("HID +2"), when that is a marker's few letters (:data:`LEAST_STATUS`); else "+N"."""
    if not marks:
        return 0
    more = len(f" +{len(marks) - 1}") if len(marks) > 1 else 0
    least = marks[0].cell_len + more
    return least if least <= LEAST_STATUS else len(f"+{len(marks)}")


_NUMBERED = re.compile(r"^(.*\S)\s+(\d+)$")


def fit_name(name: str, width: int) -> str:
    """``name`` in ``width`` cells: cut with "…", before a copy's number if it has one
    ("Castle Guard 12" → "Castle Gu… 12")."""
    if cell_len(name) <= width:
        return name
    numbered = _NUMBERED.match(name)
    if numbered and len(numbered.group(2)) + 3 <= width:
        tail = f"… {numbered.group(2)}"
        return _cut(numbered.group(1), width - len(tail)).rstrip() + tail
    return _cut(name, width - 1) + "…"


def fit_group(title: str, width: int) -> str:
    """A group's row title ("Castle Guard ×3") in ``width`` cells: the label cut with
    "…", never its count ("Castle… ×3")."""
    if cell_len(title) <= width:
        return title
    label, _, count = title.rpartition(" ×")
    tail = f"… ×{count}"
    return _cut(label, max(1, width - cell_len(tail))).rstrip() + tail


#: the most lines a name takes in its row (the rest is cut, before its number)
NAME_LINES = 2
_TAIL = re.compile(r"^(×\d+|\d+)$")


def wrap_name(name: str, width: int, *, group: bool = False, first: int | None = None) -> list[str]:
    """``name`` in lines of ``width`` cells (the first line ``first``, after a group's
    "▸ "), at most :data:`NAME_LINES`: whole words where they fit, a copy's number or
    a group's count ("×3") kept with the word before it, a word longer than the line
    broken; what still does not fit is cut on the last line (:func:`fit_group` /
    :func:`fit_name`, never its number)."""
    room = width if first is None else first
    if cell_len(name) <= room or room < 1:
        return [name]
    words: list[str] = []
    for word in name.split(" "):
        if words and _TAIL.match(word):
            words[-1] += " " + word
        else:
            words.append(word)
    lines: list[str] = []
    line = ""
    while words and len(lines) < NAME_LINES - 1:
        word = words[0]
        joined = f"{line} {word}" if line else word
        if cell_len(joined) <= room:
            line = joined
            words.pop(0)
            continue
        if not line:  # a word longer than the line: broken where the line ends
            line = _cut(word, room)
            words[0] = word[len(line) :]
        lines.append(line)
        line, room = "", width
    rest = " ".join([line, *words] if line else words)
    if rest:
        lines.append(fit_group(rest, width) if group and " ×" in rest else fit_name(rest, width))
    return lines


def _cut(text: str, width: int) -> str:
    out = ""
    for ch in text:
        if cell_len(out + ch) > width:
            break
        out += ch
    return out


def fit_words(marks: list[Text], width: int) -> Text:
    """A status cell (its marks apart by spaces) in ``width`` cells: whole marks only,
    the ones left out counted as "+N" (a mark of several words counts once)."""
    cell = _joined(marks)
    if cell.cell_len <= width:
        return cell
    for keep in range(len(marks) - 1, -1, -1):
        more = Text(f"+{len(marks) - keep}", style="bold")
        shown = _joined(marks[:keep])
        fitted = shown + Text(" ") + more if keep else more
        if fitted.cell_len <= width or keep == 0:
            return fitted
    return cell  # pragma: no cover - the loop always returns


def _height(cells: list[Text]) -> int:
    """A row's lines: its name's (the other cells are one line)."""
    return max(len(cell.plain.split("\n")) for cell in cells)


#: a group's row key in :attr:`InitiativePane.row_ids` (the label follows)
GROUP_ROW = "group:"


def group_health(state: State, label: str) -> str:
    """A group's health cell: how many of its members in the order can act ("2/3 up")."""
    seated = {x.char_id for x in state.encounter.order}
    members = [c for c in state.group_members(label) if c.id in seated]
    return f"{sum(c.can_act for c in members)}/{len(members)} up"


class InitiativeTable(DataTable[Any]):
    """The combatant list (row cursor)."""

    # the first / last row, as in the roll log (a table's own Home / End scroll sideways)
    BINDINGS = [
        Binding("home", "scroll_top", "First row", show=False, id="initiative.first"),
        Binding("end", "scroll_bottom", "Last row", show=False, id="initiative.last"),
    ]


class InitiativePane(Vertical):
    """Round, turn order and the roster."""

    class Selected(Message):
        """The GM moved to a character in the list."""

        def __init__(self, char_id: str) -> None:
            super().__init__()
            self.char_id = char_id

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._ids: list[str] = []
        self._selected: str | None = None
        self._quiet = False
        self._name_width = 0
        self._columns: tuple[tuple[str, str, int], ...] = COLUMNS
        self._state: State | None = None
        self._drawn: list[list[Text]] = []  # the cells in the table, row by row
        self._lines: dict[str, Text | str] = {}  # what the round and clocks lines show
        self._open: set[str] = set()  # the groups listed with their members
        self._words = False  # the initiatives read as words (the system words them)

    def compose(self) -> ComposeResult:
        yield Static("", id="round-line")
        table = InitiativeTable(id="initiative-table", cursor_type="row", zebra_stripes=False)
        yield table
        yield Static("", id="clocks-line")

    def on_mount(self) -> None:
        self.border_title = "Initiative"
        self.table.cell_padding = 0

    def _layout_columns(
        self, status_width: int = 0, name_width: int = MAX_NAME, status_least: int = 0, init_width: int = 0
    ) -> None:
        """(Re)build the columns: the initiative's widens to its longest value as the
        system words it (``init_width``: a ladder level, "Mediocre") as far as the name keeps
        :data:`MIN_NAME`; the name first takes what its longest row title needs
        (``name_width``, a group's "▸ Gospog ×3" counted whole) up to
        :data:`NAME_FIRST`, leaving the status column at least ``status_least`` (a
        cell's first word and "+N"); the status column then fits ``status_width`` (its
        longest cell) as far as the rest allows, and the name takes what is left."""
        table = self.table
        inner = (table.size.width or max(0, self.size.width - 2) or 38) - 1  # scrollbar slack
        columns: tuple[tuple[str, str, int], ...] = COLUMNS if inner >= 36 else COMPACT
        widths = {key: w for key, _, w in columns}
        base = widths["status"]
        others = widths["side"] + widths["health"]
        # the turn marker, the value, a space
        init = max(widths["init"], min(init_width + 2, inner - others - base - 1 - MIN_NAME))
        fixed = others + init
        first = max(MIN_NAME, min(name_width, NAME_FIRST))  # the name's room before the status widens
        room = max(0, inner - fixed - 1 - first)  # what the status may take
        # a marker and "+N" ("HID +2") before the name's last cells
        least = min(status_least + 1, max(0, inner - fixed - 1 - MIN_NAME))
        status = max(base, least, min(status_width + 1, room))
        width = max(MIN_NAME, min(MAX_NAME, inner - fixed - status - 1))
        sized = {"status": status, "init": init}
        columns = tuple((key, label, sized.get(key, w)) for key, label, w in columns)
        if (width, columns) == (self._name_width, self._columns) and table.columns:
            return
        self._name_width, self._columns = width, columns
        table.clear(columns=True)
        for key, label, w in columns:
            table.add_column(label, key=key, width=width + 1 if key == "name" else w)

    def on_resize(self) -> None:
        if self._state is not None:
            self.set_state(self._state, self._selected)

    @property
    def table(self) -> InitiativeTable:
        return self.query_one(InitiativeTable)

    @property
    def row_ids(self) -> list[str]:
        """Character ids in the order listed (combatants first); a group's row is
        :data:`GROUP_ROW` + its label."""
        return list(self._ids)

    def is_open(self, label: str) -> bool:
        return label in self._open

    def toggle_group(self, label: str) -> None:
        """Open the group's row to its members, or close it."""
        self._open ^= {label}
        if self._state is not None:
            self.set_state(self._state, self._selected)
        key = GROUP_ROW + label
        if key in self._ids:  # the cursor stays on the group's row
            self._quiet = True
            try:
                self.table.move_cursor(row=self._ids.index(key), animate=False)
            finally:
                self._quiet = False

    def _row_of(self, char_id: str | None) -> str | None:
        """The row that shows ``char_id``: its own, else its closed group's."""
        if char_id is None or char_id in self._ids:
            return char_id
        c = self._state.characters.get(char_id) if self._state is not None else None
        if c is not None and c.group is not None and GROUP_ROW + c.group in self._ids:
            return GROUP_ROW + c.group
        return None

    def _group_member(self, label: str) -> str | None:
        """Who a group's row selects: its acting member during its turn, else the first who can act."""
        st = self._state
        if st is None:
            return None
        cur = st.encounter.current
        if cur is not None and cur.char_id in st.characters and st.characters[cur.char_id].group == label:
            return cur.char_id
        member = st.pick_member(label, "actor") or next(iter(st.group_members(label)), None)
        return member.id if member is not None else None

    def set_state(self, state: State, selected: str | None = None) -> None:
        """Draw ``state``, repainting only what changed: a turn moves the marker over two
        rows, it does not rebuild the table (what a key costs over SSH)."""
        self._state = state
        columns = self._columns
        cells = [_status_marks(ch) for ch in state.characters.values()]
        enc = state.encounter
        system = state.info.system
        order = list(enc.order)
        inits = {x.initiative: initiative_text(x.initiative, system) for x in order}
        # a system that words its initiatives (a ladder level) reads them as words, left-aligned
        self._words = any(any(ch.isalpha() for ch in text) for text in inits.values())
        self._layout_columns(
            max((_joined(cell).cell_len for cell in cells), default=0),
            max((_title_width(state, ch) for ch in state.characters.values()), default=0),
            max((_least_width(cell) for cell in cells), default=0),
            max((cell_len(text) for text in inits.values()), default=0),
        )
        current = order[enc.turn].char_id if enc.round and 0 <= enc.turn < len(order) else None
        if enc.round:
            who = state.characters[current].name if current in state.characters else "—"
            group = state.characters[current].group if current in state.characters else None
            if group is not None:  # the group's row; the pane shows who acts for it
                who = state.group_title(group)
            if current in state.characters and state.characters[current].hidden:
                who += " (hidden)"
            line: Text | str = Text.assemble(("Round ", "bold"), (str(enc.round), "bold"), f" · {TURN_MARKER} {who}")
        elif order:
            line = "Not started · n starts round 1"
        else:
            line = "No encounter · + joins the selected"
        self._show("#round-line", line, layout=False)
        ids: list[str] = []
        rows: list[list[Text]] = []
        in_order: set[str] = set()
        turns = 0  # the turns in a round, as the order shows them: a group is one row, one turn
        for a, b in state.units():
            ch = state.characters.get(order[a].char_id)
            if ch is None:
                continue
            turns += 1
            init = inits[order[a].initiative]
            if ch.group is not None:
                label = ch.group
                members = [state.characters[x.char_id] for x in order[a:b] if x.char_id in state.characters]
                in_order.update(m.id for m in members)
                turn = current in {m.id for m in members}
                ids.append(GROUP_ROW + label)
                rows.append(self._group_cells(state, label, members, init, turn))
                if label in self._open:
                    for m in members:
                        ids.append(m.id)
                        rows.append(self._cells(m, "", m.id == current, system, member=True))
                continue
            in_order.add(ch.id)
            ids.append(ch.id)
            rows.append(self._cells(ch, init, ch.id == current, system))
        for cid, ch in state.characters.items():
            if cid in in_order:
                continue
            ids.append(cid)
            rows.append(self._cells(ch, "·", False, system, dim=True))
        table = self.table
        self._quiet = True
        try:
            heights = [_height(cells) for cells in rows]
            same = len(rows) == table.row_count and [_height(cells) for cells in self._drawn] == heights
            if ids == self._ids and columns == self._columns and same and table.columns:
                keys = [key for key, _, _ in self._columns]
                for i, (old, new) in enumerate(zip(self._drawn, rows, strict=True)):
                    for key, was, cell in zip(keys, old, new, strict=True):
                        if was != cell:
                            table.update_cell(str(i), key, cell)
            else:
                table.clear()
                for i, (row_cells, height) in enumerate(zip(rows, heights, strict=True)):
                    table.add_row(*row_cells, key=str(i), height=height)
            self._drawn = rows
            self._ids = ids
            row = self._row_of(selected) or self._row_of(self._selected)
            if row is not None and table.cursor_row != ids.index(row):
                table.move_cursor(row=ids.index(row), animate=False)
            self._selected = selected if self._row_of(selected) else self._selected if row else None
        finally:
            self._quiet = False
        clocks = getattr(state, "clocks", {}) or {}
        self._show("#clocks-line", "Clocks: " + " · ".join(str(c) for c in clocks.values()) if clocks else "")
        clocks_line = self.query_one("#clocks-line", Static)
        if clocks_line.display != bool(clocks):
            clocks_line.display = bool(clocks)
        if not turns:
            title = "Initiative"
        elif turns == len(order):
            title = f"Initiative ({turns})"
        else:  # a group's members are more than its one row: the count says what it counts
            title = f"Initiative ({turns} turn{'s' * (turns != 1)})"
        if self._lines.get("title") != title:  # setting it repaints the whole pane
            self._lines["title"] = title
            self.border_title = title

    def _show(self, selector: str, line: Text | str, *, layout: bool = True) -> None:
        """``line`` in the Static ``selector``, repainted only if it changed."""
        if self._lines.get(selector) != line:
            self._lines[selector] = line
            self.query_one(selector, Static).update(line, layout=layout)

    def _group_cells(self, state: State, label: str, members: list[Character], init: str, turn: bool) -> list[Text]:
        """A group's row: "▸ Gospog ×3" (▾ when open), its side, "2/3 up", PIN / HID."""
        style = "bold reverse" if turn else "bold"
        mark = "▾" if label in self._open else "▸"
        # the second line takes the whole column (the count stays whole there)
        lines = wrap_name(state.group_title(label), self._name_width, group=True, first=self._name_width - 2)
        name = "\n".join([f"{mark} {lines[0]}", *lines[1:]])
        sides = {m.side for m in members}
        init_cell = Text(TURN_MARKER if turn else " ", style="bold")
        init_cell.append(self._init_text(init), style=style)
        status = [Text(PIN_MARKER, style="bold")] * any(m.pin is not None for m in members) + [
            Text(HIDDEN_MARKER, style="italic")
        ] * all(m.hidden for m in members)
        return [
            init_cell,
            Text(name, style=style),
            Text(sides.pop() if len(sides) == 1 else "mix", style=style),
            Text(group_health(state, label), style=style),
            fit_words(status, self._columns[-1][2] - 1),
        ]

    def _init_text(self, init: str) -> str:
        """The initiative cell after the turn marker: a number right-aligned under
        "Init", a word left-aligned under it ("▶Great"), cut with "…" at a word's end
        if the column is too narrow ("Terrible…")."""
        room = self._columns[0][2] - 2
        if not self._words:
            return f"{fit_name(init, room):>{room}} "
        if cell_len(init) > room:
            init = _cut(init, room - 1).rstrip() + "…"
        return f"{init:<{room}} "

    def _cells(
        self, ch: Character, init: str, is_turn: bool, system: str, dim: bool = False, member: bool = False
    ) -> list[Text]:
        style = "bold reverse" if is_turn else "dim" if dim else ""
        if ch.status == "dead":
            style += " strike"
        indent = "  " if member else ""
        name = "\n".join(indent + line for line in wrap_name(ch.name, self._name_width - len(indent)))
        init_cell = Text(TURN_MARKER if is_turn else " ", style="bold")
        init_cell.append(self._init_text(init), style=style)
        return [
            init_cell,
            Text(name, style=style),
            Text(ch.side, style=style),
            Text(health_summary(ch, system), style=style),
            fit_words(_status_marks(ch), self._columns[-1][2] - 1),
        ]

    def select(self, char_id: str | None) -> None:
        """Move the cursor to ``char_id`` (its closed group's row) without announcing it."""
        row = self._row_of(char_id)
        if row is not None:
            self._selected = char_id
            self._quiet = True
            try:
                self.table.move_cursor(row=self._ids.index(row), animate=False)
            finally:
                self._quiet = False

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        row = self.table.cursor_row  # the current row: highlight messages may be stale
        if self._quiet or not (0 <= row < len(self._ids)):
            return
        cid: str | None = self._ids[row]
        if cid is not None and cid.startswith(GROUP_ROW):
            cid = self._group_member(cid.removeprefix(GROUP_ROW))
        if cid is not None and cid != self._selected:
            self._selected = cid
            self.post_message(self.Selected(cid))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a group's row opens it to its members (or closes it)."""
        event.stop()
        row = self.table.cursor_row
        if 0 <= row < len(self._ids) and self._ids[row].startswith(GROUP_ROW):
            self.toggle_group(self._ids[row].removeprefix(GROUP_ROW))
