"""The character pane: everything about the selected character, editable inline.

A summary (side, kind, reality-rated, status markers — HIDDEN first for a character
hidden from the players —, what the players see of it, Vitality gauge, Possibilities)
sits above one list of rows: the editable fields, the numbers the character carries
for the session's dice system (generated from the fields the system declares,
:mod:`gmdesk.tui.widgets.charfields`), advantage and shift sources (with
durations, active or not), conditions, the wounds / damage descriptors taken, and the
descriptor sheet with its uses (``+1/+3 (2/3)``: current/default value, then current/
default uses). Only the parts the session's system uses are shown — each system module
declares them (``CHARACTER_SECTIONS``, core/systems) — plus any part this character
already has something in. What is listed is :mod:`gmdesk.tui.widgets.charrows`'s;
this module shows it (laid out by :mod:`~gmdesk.tui.widgets.charlayout`) and edits it
(the events of :mod:`~gmdesk.tui.widgets.charedit`).

Keys on the list: Enter edits the row (or toggles a source, or starts an "add" row;
on Status it sets the next status by hand: OK → Unconscious → Dead → OK),
Space toggles a source, Delete removes a source, a condition, a wound (the GM's
call, free), a counter or a named value, or clears a system field; ``b`` buys off the
wound under the cursor with a Possibility (systems with Possibilities), ``s`` spends one
use of the sheet row or the counter under the cursor (a character with a sheet or
counters), ``S`` gives one use of the counter back; Enter on "+ add counter" (listed
for every character, so a GM sees that counters exist) posts
:class:`CharacterPane.AddCounter`, which opens the desk's "Add a counter…". Every other key
is the desk's, on a ``+ add`` row too (``n`` is the next turn there, as everywhere):
Enter (or ``e``) on a ``+ add`` row opens the editor for the new entry. After an
add the cursor stays on the ``+ add`` row and the focus on the list, where the desk's
keys work. An edit opens a one-line editor under the list; the typed value is
checked here for form (a number where a number is needed) and by the session for
sense; either way a bad value shows an inline "✗" message and changes nothing. The
pane only posts :class:`CharacterPane.Apply` with the event to apply; the screen
answers with :meth:`edit_result`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static

from gmdesk.core.errors import ParamError
from gmdesk.core.session.events import sheet_rows
from gmdesk.core.systems import character_sections, get_spec
from gmdesk.tui.widgets import charfields
from gmdesk.tui.widgets.charedit import NEXT_STATUS, counter_event, edit_event
from gmdesk.tui.widgets.charlayout import cell_text, fit_title, one_line_fields
from gmdesk.tui.widgets.charrows import (
    STATUS_WORDS,
    SYSTEM_ROWS,
    Row,
    pane_rows,
    sheet_name,
    sheet_value,
    summary_text,
)
from gmdesk.tui.widgets.controls import SteadyInput
from gmdesk.tui.widgets.initiative import fit_name

if TYPE_CHECKING:
    from gmdesk.core.session import Character, State
    from gmdesk.core.systems.spec import SystemSpec

# ------------------------------------------------------------------------------ the pane


class CharacterTable(DataTable[Any]):
    """The character's rows. Keys act on the row under the cursor; the Footer shows
    the ones that do something for the session's system while the pane has focus.

    Every other key is the desk's, on every row: on a ``+ add`` row too, ``n``, ``a``,
    ``u``, ``B`` advance the turn, attack, undo, open the bestiary; the editor opens
    only on Enter (or ``e``), so the GM types the new entry into it."""

    BINDINGS = [
        Binding("e", "edit", "Edit", id="character.edit"),
        Binding("space", "toggle_row", "Toggle", id="character.toggle"),
        Binding("delete,x", "remove", "Remove", id="character.remove"),
        Binding("b", "buyoff", "Buy off", id="character.buyoff"),
        Binding("s", "use", "Use", tooltip="Spend one use of the sheet row or counter", id="character.use"),
        Binding("S", "restore", "Restore", tooltip="Give back one use of the counter", id="character.restore"),
        # the first / last row, as in the roll log (a table's own Home / End scroll sideways)
        Binding("home", "scroll_top", "First row", show=False, id="character.first"),
        Binding("end", "scroll_bottom", "Last row", show=False, id="character.last"),
    ]

    #: the rows each of the pane's keys acts on: the key bar names a key where the row
    #: under the cursor takes it, so that the desk's keys after them fit 80 columns
    KEY_ROWS: ClassVar[dict[str, frozenset[str]]] = {
        "edit": frozenset({"field", "sheet", "add", "advantage", "shift", charfields.FIELD, charfields.ENTRY}),
        "toggle_row": frozenset({"advantage", "shift"}),
        "remove": frozenset({"advantage", "shift", "condition", "wound", "counter", *SYSTEM_ROWS}),
        "use": frozenset({"counter", "sheet"}),
        "restore": frozenset({"counter"}),
        "buyoff": frozenset({"wound"}),
    }

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the keys the row under the cursor has no use for (:attr:`KEY_ROWS`),
        and those the session's system has none for (buy off: a system with
        Possibilities; spend a use: a character with a sheet)."""
        try:
            pane = self.parent_pane
        except Exception:
            return True
        row = pane.current_row()
        if action in self.KEY_ROWS and (row is None or row.kind not in self.KEY_ROWS[action]):
            return False
        if action == "buyoff":
            return pane.uses("possibilities")
        if action == "use":
            ch = pane._character
            return ch is not None and (ch.sheet is not None or bool(ch.counters))
        if action == "restore":
            ch = pane._character
            return ch is not None and bool(ch.counters)
        return True

    def on_key(self, event: events.Key) -> None:
        """A letter no key of the desk takes, typed on a ``+ add`` row, says how to add
        (it used to start the entry; now Enter does, and the desk's keys stay the desk's)."""
        if not (event.is_printable and event.character) or event.key in self.screen.active_bindings:
            return
        row = self.parent_pane.current_row()
        if row is not None and row.kind == "add":
            event.stop()
            self.notify("Enter (or e) opens the editor for the new entry", timeout=3)

    def on_focus(self, event: events.Focus) -> None:
        """The cursor leaves a section's title for the row under it as the pane takes
        the focus: Enter, Space and the row's keys act there at once (Tab then Enter
        did nothing on "── Rolls with")."""
        self.parent_pane.off_title()

    def action_select_cursor(self) -> None:
        """Enter acts on the row under the cursor within this key's own handling (the
        table's RowSelected would reach the pane as a message later): the editor it
        opens has the focus before the key typed after it is routed."""
        self.parent_pane.act("enter")

    def action_toggle_row(self) -> None:
        self.parent_pane.act("toggle")

    def action_remove(self) -> None:
        self.parent_pane.act("remove")

    def action_buyoff(self) -> None:
        self.parent_pane.act("buyoff")

    def action_edit(self) -> None:
        self.parent_pane.act("edit")

    def action_use(self) -> None:
        self.parent_pane.act("use")

    def action_restore(self) -> None:
        self.parent_pane.act("restore")

    @property
    def parent_pane(self) -> CharacterPane:
        return self.query_ancestor(CharacterPane)


class EditorInput(SteadyInput):
    BINDINGS = [Binding("escape", "cancel_edit", "Cancel edit", show=False, id="character.cancel_edit")]

    def action_cancel_edit(self) -> None:
        self.query_ancestor(CharacterPane).close_editor()

    async def action_submit(self) -> None:
        """Enter hands the value to the pane within this key's own handling (Input's
        Submitted would reach it as a message later): the edit is on its way to the
        session before the key typed after it is routed."""
        self.query_ancestor(CharacterPane).submit(self.value)


class CharacterPane(Vertical):
    """Shows one character; edits become :class:`CharacterPane.Apply` messages."""

    class Apply(Message):
        """Apply this event (a session event dict) for the GM; answer with ``edit_result``."""

        def __init__(self, event: dict[str, Any], what: str) -> None:
            super().__init__()
            self.event = event
            self.what = what

    class AddCounter(Message):
        """Enter on "+ add counter": the GM adds a counter to the character shown."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.char_id: str | None = None
        self._character: Character | None = None
        self._rows: list[Row] = []
        self._editing: Row | None = None
        self._state: State | None = None
        self._widths = (0, 0)
        self._cursor_to: Row | None = None  # where the cursor goes at the next redraw
        #: "+ add counter" was pressed: whose counters, and how many it had then
        self._counter_asked: tuple[str, int] | None = None
        self._after_remove = False  # the next redraw follows a removal
        self._posted = ""  # the type of the event posted last
        #: the status last set from the Status row and not yet shown (character id →
        #: status): a second Enter typed before the first is applied goes on from it
        self._status_ahead: dict[str, str] = {}
        self._drawn: list[tuple[str | Text, Any, int]] = []  # the table's rows as drawn
        self._shown: dict[str, str | Text] = {}  # the title and the summary as drawn

    def compose(self) -> ComposeResult:
        yield Static("", id="character-summary")
        yield CharacterTable(id="character-table", cursor_type="row", show_header=False)
        yield Static("", id="editor-label")
        yield EditorInput(id="character-editor")
        yield Static("", id="character-message", classes="inline-error")

    def on_mount(self) -> None:
        self.border_title = "Character"
        self.query_one("#character-editor").display = False
        self.query_one("#editor-label").display = False

    @property
    def table(self) -> CharacterTable:
        return self.query_one(CharacterTable)

    @property
    def row_kinds(self) -> list[Row]:
        return list(self._rows)

    # -- drawing -----------------------------------------------------------------------

    def _name_of(self, cid: str) -> str | None:
        c = self._state.characters.get(cid) if self._state is not None else None
        return c.name if c is not None else None

    def set_state(self, state: State, char_id: str | None) -> None:
        """Draw ``char_id`` of ``state``, repainting only what changed: the same sheet
        drawn again costs nothing, a changed value repaints its table, never the pane's
        layout (what a key costs over SSH)."""
        self._state = state
        ch = state.characters.get(char_id) if char_id is not None else None
        changed_char = char_id != self.char_id
        self.char_id = char_id if ch is not None else None
        self._character = ch
        if changed_char:
            self.close_editor()
            self.show_message("")  # a refusal about the last character is not about this one
            self._counter_asked = None
        asked = self._counter_asked
        if ch is not None and asked is not None and asked[0] == ch.id and len(ch.counters) > asked[1]:
            self._counter_asked = None  # the counter asked for is in: back on "+ add counter"
            self._cursor_to = Row("add", "counter")
        table = self.table
        cursor = table.cursor_row
        self._rows = []
        if ch is None:
            self._layout_columns(0)
            self._draw([])
            self._title("Character")
            self._summary("No character selected.\nc adds a character.")
            return
        self._title(ch.name)
        if self._status_ahead.get(ch.id) == ch.status:  # what the Status row set is shown now
            del self._status_ahead[ch.id]
        self._summary(summary_text(state, ch, self.size.width or 40))
        rows = pane_rows(state, ch, self.spec, self._name_of)

        # the values' column fits the numbers; a name or a note only as far as the titles
        # keep their room (a longer one is cut with "…"; a system field's longer text
        # goes under its label)
        def is_text(row: Any) -> bool:  # a name or a note: cut, not fitted
            return bool(row.kind == "field" and row.key in ("notes", "name"))

        self._layout_columns(
            max((cell_len(str(v)) for r, _, v in rows if not is_text(r) and r.kind != charfields.FIELD), default=0),
            max((cell_len(str(v)) for r, _, v in rows if is_text(r)), default=0),
            max((cell_len(w.plain if isinstance(w, Text) else w) for r, w, _ in rows if r.kind != "head"), default=0),
        )
        rows = one_line_fields(self.spec, rows, self._widths[0])
        cells: list[tuple[str | Text, Any, int]] = []
        for row, what, value in rows:
            self._rows.append(row)
            if row.kind == charfields.FIELD and cell_len(value) > self._widths[1] and isinstance(what, str):
                what, value = f"{what}: {value}", ""
            what, height = fit_title(what, self._widths[0], row.kind == "head")
            if isinstance(value, str) and cell_len(value) > self._widths[1]:  # a long name or note: marked
                value = fit_name(value, self._widths[1])
            # text, never markup: a name or a note may hold brackets ("Sir [x] Knight")
            cells.append((Text(what) if isinstance(what, str) else what, cell_text(value), height))
        if self._draw(cells) and table.has_focus:
            table.refresh_bindings()  # the keys the Footer shows follow the row
        wanted, self._cursor_to = self._cursor_to, None
        if wanted is not None and wanted in self._rows:
            self._move_cursor(self._rows.index(wanted))
        elif not changed_char and 0 <= cursor < len(self._rows):
            if self._after_remove and self._rows[cursor].kind == "add" and cursor > 0:
                cursor -= 1
            self._move_cursor(cursor)
        self._after_remove = False
        if changed_char and table.has_focus:  # another character's rows, under the focus
            self.off_title()

    def _draw(self, cells: list[tuple[str | Text, Any, int]]) -> bool:
        """The table's rows as ``cells`` (what, value, height); returns whether anything
        changed. Rows of the same heights take their new values in place (the table
        repaints, the layout stays); other changes rebuild the rows."""
        table = self.table
        drawn = self._drawn if table.row_count == len(self._drawn) else None
        if drawn == cells:
            return False
        if drawn is not None and [h for *_, h in drawn] == [h for *_, h in cells]:
            for i, (old, new) in enumerate(zip(drawn, cells, strict=True)):
                for key, was, cell in zip(("what", "value"), old[:2], new[:2], strict=True):
                    if was != cell:
                        table.update_cell(str(i), key, cell)
        else:
            table.clear()
            for i, (what, value, height) in enumerate(cells):
                table.add_row(what, value, key=str(i), height=height)
        self._drawn = cells
        return True

    def off_title(self, step: int = 1) -> None:
        """Move the cursor from a section's title to the nearest row that takes a key,
        the way it was going (``step``: 1 down, −1 up), else the other way (a title
        is never acted on)."""
        r = self.table.cursor_row
        rows = self._rows
        if not (0 <= r < len(rows)) or rows[r].kind != "head":
            return
        ahead = range(r + step, len(rows) if step > 0 else -1, step)
        behind = range(r - step, -1 if step > 0 else len(rows), -step)
        found = next((i for i in [*ahead, *behind] if rows[i].kind != "head"), None)
        if found is not None:
            self._move_cursor(found)

    def _move_cursor(self, row: int) -> None:
        if self.table.cursor_row != row:
            self.table.move_cursor(row=row, animate=False)

    def _title(self, title: str) -> None:
        if self._shown.get("title") != title:  # setting it repaints the whole pane
            self._shown["title"] = title
            self.border_title = Content(title)  # a name is text, never markup

    def _summary(self, text: str | Text) -> None:
        """The lines above the table; a new layout only if their height may change."""
        was = self._shown.get("summary")
        if was == text:
            return
        self._shown["summary"] = text
        summary = self.query_one("#character-summary", Static)
        lines = str(text).split("\n")
        fits = 0 < summary.size.width and all(cell_len(line) <= summary.size.width for line in lines)
        layout = not (fits and was is not None and str(was).count("\n") == len(lines) - 1)
        summary.update(text, layout=layout)
        if layout:  # asked during a layout (a resize), the new height is only taken by the next one
            self.call_after_refresh(summary.refresh, layout=True)

    def _layout_columns(self, longest_value: int, longest_text: int = 0, longest_title: int = 0) -> None:
        """Two columns that fit the pane (no sideways scrolling): the values get what
        the longest of them needs (8 to 18 columns, at most half the pane); a name or
        a note (``longest_text``) widens them only into room no title needs
        (``longest_title``)."""
        table = self.table
        inner = max(24, (self.size.width or 40) - 2 - 2 - 4)  # border, scrollbar, cell padding
        value = min(18, inner // 2, max(8, longest_value))
        if inner - value < 18:  # the titles ("── Advantage sources") first
            value = max(8, inner - 18)
        value = max(value, min(longest_text, 18, inner - max(18, longest_title)))
        widths = (inner - value, value)
        if widths == self._widths and table.columns:
            return
        self._widths = widths
        table.clear(columns=True)
        table.add_column("what", key="what", width=widths[0])
        table.add_column("value", key="value", width=widths[1])

    def on_resize(self) -> None:
        if self._state is not None:
            self.set_state(self._state, self.char_id)

    # -- actions -------------------------------------------------------------------------

    @property
    def spec(self) -> SystemSpec | None:
        """The session's dice system (None for a system not installed here)."""
        if self._state is None:
            return None
        try:
            return get_spec(self._state.info.system)
        except ParamError:
            return None

    def current_row(self) -> Row | None:
        r = self.table.cursor_row
        return self._rows[r] if 0 <= r < len(self._rows) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The key bar follows the row under the cursor (:attr:`CharacterTable.KEY_ROWS`)."""
        if self.table.has_focus:
            self.table.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """A click on the row under the cursor (Enter acts at once, :class:`CharacterTable`)."""
        event.stop()
        self.act("enter")

    def act(self, what: str) -> None:
        row = self.current_row()
        ch = self._character
        if row is None or ch is None:
            return
        cid = ch.id
        spec = self.spec
        if row.kind in SYSTEM_ROWS and spec is not None:
            if what == "remove":
                found = charfields.remove(spec, ch, row.kind, row.key)
            elif what in ("enter", "edit") and row.kind == charfields.FIELD:
                found = charfields.toggle(spec, ch, row.key)
                if found is None:
                    self.open_editor(row)
            elif what in ("enter", "edit") and row.kind == charfields.ENTRY:
                found = None
                self.open_editor(row)
            else:
                found = None
            if found is not None:
                self._post(*found)
            return
        if row.kind in ("advantage", "shift"):
            src = ch.sources(row.kind)[row.key]
            if what in ("enter", "toggle", "edit"):
                state = "off" if src.active else "on"
                self._post(
                    {"type": "source.toggle", "id": cid, "kind": row.kind, "name": src.name}, f"{src.name} {state}"
                )
            elif what == "remove":
                self._post(
                    {
                        "type": "source.remove",
                        "id": cid,
                        "kind": row.kind,
                        "name": src.name,
                        "value": src.value,
                        "rounds": src.rounds,
                    },
                    f"{src.name} removed",
                )
        elif row.kind == "condition" and what == "remove":
            cond = ch.conditions[row.key]
            self._post(
                {"type": "condition.remove", "id": cid, "name": cond.name, "rounds": cond.rounds},
                f"{cond.name} removed",
            )
        elif row.kind == "wound" and what == "remove":
            wound = ch.wounds[row.key]
            self._post({"type": "wound.remove", "id": cid, "wound": row.key}, f"{ch.name}: {wound.text} taken off")
        elif row.kind == "counter" and what in ("use", "restore", "remove"):
            self._post(*counter_event(ch, row.key, what))
        elif row.kind == "sheet" and what == "use":
            assert ch.sheet is not None  # a sheet row is listed only for a character with a sheet
            path = ch.sheet.path(row.key)
            self._post({"type": "use", "id": cid, "descriptor": path, "amount": 1}, f"{ch.name} uses {path}")
        elif row.kind == "wound" and what == "buyoff":
            wound = ch.wounds[row.key]
            self._post({"type": "damage.buyoff", "id": cid, "wound": row.key}, f"{ch.name} buys off {wound.text}")
        elif what in ("enter", "edit"):
            if row.kind == "field" and row.key == "status":
                status = NEXT_STATUS[self._status_ahead.get(cid, ch.status)]
                self._status_ahead[cid] = status
                self._post(
                    {"type": "character.status", "id": cid, "status": status},
                    f"{ch.name}: {STATUS_WORDS[status]}",
                )
            elif row.kind == "field" and row.key in ("side", "kind", "reality_rated"):
                flip = {"side": {"PC": "NPC", "NPC": "PC"}, "kind": {"organic": "inorganic", "inorganic": "organic"}}
                value = not ch.reality_rated if row.key == "reality_rated" else flip[row.key][getattr(ch, row.key)]
                self._post(
                    {"type": "character.edit", "id": cid, "fields": {row.key: value}},
                    f"{ch.name}: {row.key.replace('_', '-')} {value}",
                )
            elif row.kind == "add" and row.key == "counter":
                # the desk's "Add a counter…" dialog; once the counter is added the
                # cursor is back on "+ add counter", as on "+ add condition": Enter
                # again adds another (cancelled, the cursor stays where it is)
                self._counter_asked = (cid, len(ch.counters))
                self.post_message(self.AddCounter())
            elif row.kind in ("field", "sheet", "add"):
                self.open_editor(row)

    def _post(self, event: dict[str, Any], what: str) -> None:
        self._posted = event.get("type", "")
        self.post_message(self.Apply(event, what))

    # -- the inline editor -----------------------------------------------------------------

    def uses(self, section: str) -> bool:
        """The session's system uses this part of a character (see core.systems)."""
        return self._state is not None and section in character_sections(self._state.info.system)

    def open_editor(self, row: Row) -> None:
        """Open the one-line editor for ``row`` and give it the focus."""
        ch = self._character
        if ch is None:  # nothing selected: nothing to edit
            return
        prompts = {
            ("field", "vitality"): (
                "Vitality current or current/default",
                f"{ch.vitality_current}/{ch.vitality_default}",
            ),
            ("field", "possibilities"): ("Possibilities", str(ch.possibilities)),
            ("field", "name"): ("Name", ch.name),
            ("field", "notes"): ("Notes", ch.notes or ""),
            ("add", "advantage"): ("New advantage source: name value [rounds], e.g. Aim +1 2", ""),
            ("add", "shift"): ("New shift source: name value [rounds], e.g. Pistol 2", ""),
            ("add", "condition"): ("New condition: name [rounds | until start/end of NAME]", ""),
            ("add", "sheet"): (sheet_rows.ADD_PROMPT, ""),
        }
        spec = self.spec
        if (row.kind in SYSTEM_ROWS or isinstance(row.key, tuple)) and spec is not None:
            prompt, value = charfields.prompt(spec, ch, row.kind, row.key)
        elif row.kind == "sheet":
            assert ch.sheet is not None  # a sheet row is listed only for a character with a sheet
            r = ch.sheet.rows[row.key]
            prompt, value = (f"{sheet_name(r).strip()}: value and/or (uses), e.g. +2 (3)", sheet_value(r))
        else:
            prompt, value = prompts[(row.kind, row.key)]
        self._editing = row
        label = self.query_one("#editor-label", Static)
        label.update(Text(prompt + "  (Enter apply · Esc cancel)"))  # "[rounds]" is text, not markup
        label.display = True
        editor = self.query_one("#character-editor", EditorInput)
        editor.value = value
        editor.cursor_position = len(editor.value)
        editor.select_on_focus = True  # typing replaces the value shown
        editor.display = True
        self.query_one("#character-message", Static).update("")
        self.screen.set_focus(editor)
        # the list is shorter now: keep the row being edited in view
        table = self.table
        self.call_after_refresh(lambda: table.move_cursor(row=table.cursor_row, animate=False))

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        """The focus leaving the editor for another part of the desk (Tab, a click)
        closes it, its value not applied (as Esc): an editor left open, its text not
        applied, read as if the edit were done. A screen over the desk (the palette)
        leaves it as it is."""
        if event.widget.id != "character-editor":
            return

        def left() -> None:
            editor = self.query_one("#character-editor", EditorInput)
            if self.is_attached and self.app.screen is self.screen and editor.display and not editor.has_focus:
                self.close_editor()

        self.call_after_refresh(left)

    def close_editor(self) -> None:
        self._editing = None
        if not self.is_mounted:
            return
        editor = self.query_one("#character-editor", EditorInput)
        had_focus = editor.has_focus
        editor.display = False
        self.query_one("#editor-label").display = False
        if had_focus:
            self.screen.set_focus(self.table)

    @property
    def editing(self) -> bool:
        return self._editing is not None

    def submit(self, value: str) -> None:
        """The editor's value, on Enter: checked for form here, then posted to be applied."""
        row = self._editing
        ch = self._character
        if row is None or ch is None:
            return
        text = value.strip()
        try:
            ev, what = edit_event(self.spec, self._state, row, ch, text)
        except ParamError as e:
            self.show_message(str(e))
            return
        self._post(ev, what)

    def show_message(self, message: str) -> None:
        text = f"✗ {message}" if message else ""
        if self._shown.get("message", "") != text:
            self._shown["message"] = text
            self.query_one("#character-message", Static).update(text)

    def edit_result(self, error: str | None) -> None:
        """The screen's answer to :class:`Apply`: an error keeps the editor open."""
        posted, self._posted = self._posted, ""
        if error:
            self._status_ahead.clear()
            self.show_message(error)
        elif posted.endswith(".remove"):
            # the row is gone: stay on its list (the entry that took its place, else the
            # one above), never on the "+ add" row where typing starts a new entry
            self._after_remove = True
        else:
            row = self._editing
            if row is not None and row.kind == "add":
                # back on the "+ add" row, not on the new entry: a second Enter adds
                # another one instead of switching the new source off
                self._cursor_to = row
            self.show_message("")
            self.close_editor()
