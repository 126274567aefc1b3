"""The character pane: everything about the selected character, editable inline.

A summary (side, kind, reality-rated, status markers, Vitality gauge, Possibilities)
sits above one list of rows: the editable fields, advantage and shift sources (with
durations, active or not), conditions, the wounds / damage descriptors taken, and the
descriptor sheet with its uses.

Keys on the list: Enter edits the row (or toggles a source, or starts an "add" row),
Space toggles a source, Delete removes a source, a condition or a wound (the GM's
call, free), ``b`` buys off the wound under the cursor with a Possibility (torg),
``s`` spends one use of the sheet row under the cursor (1d6x4). An edit opens a one-line editor under the
list; the typed value is checked here for form (a number where a number is needed)
and by the session for sense; either way a bad value shows an inline "✗" message and
changes nothing. The pane only posts :class:`CharacterPane.Apply` with the event to
apply; the screen answers with :meth:`edit_result`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Input, Static

from core.errors import ParamError
from core.systems.base import parse_int
from tui.widgets.controls import SteadyInput
from tui.widgets.common import STATUS_MARKERS, gauge, markers_text, signed

SOURCE_KINDS = (("advantage", "Advantage sources"), ("shift", "Shift sources"))


@dataclass(frozen=True)
class Row:
    """What a line of the list stands for: ``kind`` and a key (field name, index…)."""

    kind: str  # head | field | advantage | shift | condition | wound | sheet | add
    key: Any = None


# -------------------------------------------------------------------- parsing typed values

def parse_source(text: str, kind: str) -> tuple[str, int, int | None]:
    """``"Aim +1"`` or ``"Aim +1 3"`` (3 rounds) → (name, value, rounds)."""
    words = text.split()
    if len(words) < 2:
        raise ParamError(kind, "type a name and a value, e.g. 'Aim +1' or 'Aim +1 3' (3 rounds)")
    rounds = None
    if len(words) >= 3 and _is_int(words[-1]) and _is_int(words[-2]):
        rounds = parse_int("rounds", words[-1], 1)
        words = words[:-1]
    value = parse_int("value", words[-1], -2 if kind == "advantage" else 1, 2 if kind == "advantage" else 3)
    name = " ".join(words[:-1]).strip()
    if not name:
        raise ParamError(kind, "the source needs a name, e.g. 'Aim +1'")
    return name, value, rounds


def parse_condition(text: str) -> tuple[str, int | None]:
    """``"Stymied"`` or ``"Stymied 2"`` (2 rounds)."""
    words = text.split()
    if not words:
        raise ParamError("condition", "type a name, e.g. 'Stymied' or 'Up 1' (1 round)")
    rounds = None
    if len(words) >= 2 and _is_int(words[-1]):
        rounds = parse_int("rounds", words[-1], 1)
        words = words[:-1]
    return " ".join(words), rounds


def parse_vitality(text: str) -> dict:
    """``"3"`` (current) or ``"3/5"`` (current/default)."""
    if "/" in text:
        cur, default = text.split("/", 1)
        return {"vitality_current": parse_int("vitality", cur), "vitality_default": parse_int("vitality default", default)}
    return {"vitality_current": parse_int("vitality", text)}


def parse_sheet_value(text: str) -> dict:
    """``"+2"`` (current value), ``"(3)"`` / ``"(inf)"`` (current uses) or ``"+2 (3)"``."""
    out: dict[str, Any] = {}
    rest = text.strip()
    if "(" in rest:
        head, _, uses = rest.partition("(")
        uses = uses.rstrip(")").strip()
        out["uses_current"] = "inf" if uses.lower() == "inf" else parse_int("uses", uses, 0)
        rest = head.strip()
    if rest:
        out["current"] = parse_int("value", rest)
    if not out:
        raise ParamError("value", "type a value like +2, uses like (3), or both: +2 (3)")
    return out


def _is_int(word: str) -> bool:
    try:
        int(word.replace("−", "-"))
        return True
    except ValueError:
        return False


# ------------------------------------------------------------------------------ the pane

class CharacterTable(DataTable):
    """The character's rows. Keys act on the row under the cursor."""

    BINDINGS = [
        Binding("space", "toggle", "Toggle", show=False, id="character.toggle"),
        Binding("delete,x", "remove", "Remove", show=False, id="character.remove"),
        Binding("b", "buyoff", "Buy off", show=False, id="character.buyoff"),
        Binding("e", "edit", "Edit", show=False, id="character.edit"),
        Binding("s", "use", "Spend a use", show=False, id="character.use"),
    ]

    def action_toggle(self) -> None:
        self.parent_pane.act("toggle")

    def action_remove(self) -> None:
        self.parent_pane.act("remove")

    def action_buyoff(self) -> None:
        self.parent_pane.act("buyoff")

    def action_edit(self) -> None:
        self.parent_pane.act("edit")

    def action_use(self) -> None:
        self.parent_pane.act("use")

    @property
    def parent_pane(self) -> "CharacterPane":
        return self.query_ancestor(CharacterPane)


class EditorInput(SteadyInput):
    BINDINGS = [Binding("escape", "cancel_edit", "Cancel edit", show=False, id="character.cancel_edit")]

    def action_cancel_edit(self) -> None:
        self.query_ancestor(CharacterPane).close_editor()


class CharacterPane(Vertical):
    """Shows one character; edits become :class:`CharacterPane.Apply` messages."""

    class Apply(Message):
        """Apply this event (a session event dict) for the GM; answer with ``edit_result``."""

        def __init__(self, event: dict, what: str) -> None:
            super().__init__()
            self.event = event
            self.what = what

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.char_id: Any = None
        self._character: Any = None
        self._rows: list[Row] = []
        self._editing: Row | None = None
        self._state: Any = None
        self._widths = (0, 0)

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

    def set_state(self, state: Any, char_id: Any) -> None:
        self._state = state
        ch = state.characters.get(char_id) if char_id is not None else None
        changed_char = char_id != self.char_id
        self.char_id = char_id if ch is not None else None
        self._character = ch
        if changed_char:
            self.close_editor()
        summary = self.query_one("#character-summary", Static)
        table = self.table
        cursor = table.cursor_row
        self._layout_columns()
        table.clear()
        self._rows = []
        if ch is None:
            self.border_title = "Character"
            summary.update("No character selected.\nc adds a character.")
            return
        self.border_title = ch.name
        facts = Text()
        facts.append(f"{ch.side} · {ch.kind}")
        if ch.reality_rated:
            facts.append(" · reality-rated")
        marks = markers_text(ch)
        if marks.plain:
            facts.append(" · ")
            facts.append_text(marks)
        show_vitality = state.info.system == "1d6x4" or ch.vitality_default or ch.vitality_current
        if show_vitality:
            facts.append("\nVitality ")
            facts.append_text(gauge(ch.vitality_current, ch.vitality_default))
        if ch.reality_rated or ch.possibilities:
            facts.append("  " if show_vitality else "\n")
            facts.append(f"Possibilities {ch.possibilities}")
        if ch.wounds:
            facts.append(f"\nLatest wound: {ch.wounds[-1].text}")
        summary.update(facts)

        def add(row: Row, what: Any, value: Any = "") -> None:
            self._rows.append(row)
            table.add_row(what, value, key=str(len(self._rows) - 1))

        def head(title: str) -> None:
            add(Row("head"), Text(f"── {title}", style="bold"), "")

        # Vitality and Possibilities lead where the system uses them, else wait under Details
        vitality_row = (Row("field", "vitality"), "Vitality", f"{ch.vitality_current}/{ch.vitality_default}")
        poss_row = (Row("field", "possibilities"), "Possibilities", str(ch.possibilities))
        late = []
        for row, uses in ((vitality_row, show_vitality), (poss_row, ch.reality_rated or ch.possibilities
                                                           or state.info.system == "torg-2d10")):
            if uses:
                add(*row)
            else:
                late.append(row)
        for kind, title in SOURCE_KINDS:
            head(title)
            for i, src in enumerate(ch.sources(kind)):
                mark = "[x]" if src.active else "[ ]"
                dur = "" if src.rounds is None else f"{src.rounds} rd"
                add(Row(kind, i), Text(f"{mark} {src.name}", style="" if src.active else "dim"),
                    f"{signed(src.value)} {dur}".strip())
            add(Row("add", kind), Text(f"+ add {kind}", style="dim italic"), "")
        head("Conditions")
        for i, cond in enumerate(ch.conditions):
            add(Row("condition", i), cond.name, "" if cond.rounds is None else f"{cond.rounds} rd")
        add(Row("add", "condition"), Text("+ add condition", style="dim italic"), "")
        head(f"Wounds ({len(ch.wounds)})")
        for i, w in enumerate(ch.wounds):
            extra = []
            if w.amount is not None:
                extra.append(str(w.amount))
            if w.status:
                extra.append(STATUS_MARKERS.get(w.status, w.status.upper()))
            if w.roll_seq is not None:
                extra.append(f"#{w.roll_seq}")
            add(Row("wound", i), w.text, " ".join(extra))
        sheet = ch.sheet
        if sheet is not None:
            head("Sheet")
            for i, r in enumerate(getattr(sheet, "rows", ())):
                add(Row("sheet", i), _sheet_name(r), _sheet_value(r))
        head("Details")
        add(Row("field", "name"), "Name", ch.name)
        add(Row("field", "side"), "Side", ch.side)
        add(Row("field", "kind"), "Kind", ch.kind)
        add(Row("field", "reality_rated"), "Reality-rated", "yes" if ch.reality_rated else "no")
        add(Row("field", "notes"), "Notes", ch.notes or "")
        for row in late:
            add(*row)
        if not changed_char and 0 <= cursor < len(self._rows):
            table.move_cursor(row=cursor, animate=False)

    def _layout_columns(self) -> None:
        """Two columns that fit the pane (no sideways scrolling); values get up to 18."""
        table = self.table
        inner = max(24, (self.size.width or 40) - 2 - 2 - 4)  # border, scrollbar, cell padding
        value = min(18, max(8, inner // 3))
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

    def current_row(self) -> Row | None:
        r = self.table.cursor_row
        return self._rows[r] if 0 <= r < len(self._rows) else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.act("enter")

    def act(self, what: str) -> None:
        row = self.current_row()
        ch = self._character
        if row is None or ch is None:
            return
        cid = ch.id
        if row.kind in ("advantage", "shift"):
            src = ch.sources(row.kind)[row.key]
            if what in ("enter", "toggle", "edit"):
                state = "off" if src.active else "on"
                self._post({"type": "source.toggle", "id": cid, "kind": row.kind, "name": src.name},
                           f"{src.name} {state}")
            elif what == "remove":
                self._post({"type": "source.remove", "id": cid, "kind": row.kind, "name": src.name,
                            "value": src.value, "rounds": src.rounds}, f"{src.name} removed")
        elif row.kind == "condition" and what == "remove":
            cond = ch.conditions[row.key]
            self._post({"type": "condition.remove", "id": cid, "name": cond.name, "rounds": cond.rounds},
                       f"{cond.name} removed")
        elif row.kind == "wound" and what == "remove":
            wound = ch.wounds[row.key]
            self._post({"type": "wound.remove", "id": cid, "wound": row.key}, f"{ch.name}: {wound.text} taken off")
        elif row.kind == "sheet" and what == "use":
            path = _sheet_path(ch.sheet, row.key)
            self._post({"type": "use", "id": cid, "descriptor": path, "amount": 1}, f"{ch.name} uses {path}")
        elif row.kind == "wound" and what == "buyoff":
            wound = ch.wounds[row.key]
            self._post({"type": "damage.buyoff", "id": cid, "wound": row.key},
                       f"{ch.name} buys off {wound.text}")
        elif what in ("enter", "edit"):
            if row.kind == "field" and row.key in ("side", "kind", "reality_rated"):
                flip = {"side": {"PC": "NPC", "NPC": "PC"}, "kind": {"organic": "inorganic", "inorganic": "organic"}}
                value = not ch.reality_rated if row.key == "reality_rated" else flip[row.key][getattr(ch, row.key)]
                self._post({"type": "character.edit", "id": cid, "fields": {row.key: value}},
                           f"{ch.name}: {row.key.replace('_', '-')} {value}")
            elif row.kind in ("field", "sheet", "add"):
                self.open_editor(row)

    def _post(self, event: dict, what: str) -> None:
        self.post_message(self.Apply(event, what))

    # -- the inline editor -----------------------------------------------------------------

    def open_editor(self, row: Row) -> None:
        ch = self._character
        prompts = {
            ("field", "vitality"): ("Vitality current or current/default", f"{ch.vitality_current}/{ch.vitality_default}"),
            ("field", "possibilities"): ("Possibilities", str(ch.possibilities)),
            ("field", "name"): ("Name", ch.name),
            ("field", "notes"): ("Notes", ch.notes or ""),
            ("add", "advantage"): ("New advantage source: name value [rounds], e.g. Aim +1 2", ""),
            ("add", "shift"): ("New shift source: name value [rounds], e.g. Pistol 2", ""),
            ("add", "condition"): ("New condition: name [rounds], e.g. Stymied 1", ""),
        }
        if row.kind == "sheet":
            r = ch.sheet.rows[row.key]
            prompt, value = (f"{_sheet_name(r).strip()}: value and/or (uses), e.g. +2 (3)", _sheet_value(r))
        else:
            prompt, value = prompts[(row.kind, row.key)]
        self._editing = row
        label = self.query_one("#editor-label", Static)
        label.update(prompt + "  (Enter apply · Esc cancel)")
        label.display = True
        editor = self.query_one("#character-editor", EditorInput)
        editor.value = value
        editor.display = True
        self.query_one("#character-message", Static).update("")
        editor.focus()

    def close_editor(self) -> None:
        self._editing = None
        if not self.is_mounted:
            return
        editor = self.query_one("#character-editor", EditorInput)
        had_focus = editor.has_focus
        editor.display = False
        self.query_one("#editor-label").display = False
        if had_focus:
            self.table.focus()

    @property
    def editing(self) -> bool:
        return self._editing is not None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        row = self._editing
        ch = self._character
        if row is None or ch is None:
            return
        text = event.value.strip()
        try:
            ev, what = self._event_for(row, ch, text)
        except ParamError as e:
            self.show_message(str(e))
            return
        self._post(ev, what)

    def _event_for(self, row: Row, ch: Any, text: str) -> tuple[dict, str]:
        cid = ch.id
        if row.kind == "field":
            if row.key == "vitality":
                fields = parse_vitality(text)
            elif row.key == "possibilities":
                fields = {"possibilities": parse_int("possibilities", text, 0)}
            elif row.key == "name":
                if not text:
                    raise ParamError("name", "must not be empty")
                fields = {"name": text}
            else:
                fields = {row.key: text}
            return {"type": "character.edit", "id": cid, "fields": fields}, f"{ch.name}: {', '.join(fields)} changed"
        if row.kind == "add" and row.key in ("advantage", "shift"):
            name, value, rounds = parse_source(text, row.key)
            return ({"type": "source.add", "id": cid, "kind": row.key, "name": name, "value": value, "rounds": rounds},
                    f"{ch.name}: {name} {signed(value)} added")
        if row.kind == "add":
            name, rounds = parse_condition(text)
            return {"type": "condition.add", "id": cid, "name": name, "rounds": rounds}, f"{ch.name}: {name} added"
        r = ch.sheet.rows[row.key]
        changes = parse_sheet_value(text)
        return ({"type": "sheet.set", "id": cid, "descriptor": _sheet_path(ch.sheet, row.key), **changes},
                f"{ch.name}: {r.name} changed")

    def show_message(self, message: str) -> None:
        self.query_one("#character-message", Static).update(f"✗ {message}" if message else "")

    def edit_result(self, error: str | None) -> None:
        """The screen's answer to :class:`Apply`: an error keeps the editor open."""
        if error:
            self.show_message(error)
        else:
            self.show_message("")
            self.close_editor()


# -------------------------------------------------------------------------- sheet rows

def _sheet_name(r: Any) -> str:
    indent = " " * min(8, int(r.depth or 0))
    star = "*" if r.sub else ""
    return f"{indent}{star}{r.label}"


def _uses(u: Any) -> str:
    return "" if u is None else f"({u})"


def _sheet_value(r: Any) -> str:
    parts = []
    d, c = getattr(r, "default", None), getattr(r, "current", None)
    if d is not None or c is not None:
        parts.append(f"{signed(d) if d is not None else '·'} / {signed(c) if c is not None else signed(d)}")
    ud, uc = getattr(r, "uses_default", None), getattr(r, "uses_current", None)
    if ud is not None or uc is not None:
        parts.append(f"uses {uc if uc is not None else ud}/{ud}")
    return "  ".join(parts)


def _sheet_path(sheet: Any, index: int) -> str:
    """The descriptor's name as ``sheet.set`` finds it (``Parent/Child`` when nested)."""
    return sheet.path(index)
