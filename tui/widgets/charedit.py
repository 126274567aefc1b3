"""What the character pane's keys and editor make of a character: the event each
posts (and what it does, in words) — the status Enter sets by hand, a counter's use,
a typed field, source, condition or sheet value. The pane
(:mod:`gmdesk.tui.widgets.character`) posts them; the session judges them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gmdesk.core.errors import ParamError
from gmdesk.core.session.events import sheet_rows
from gmdesk.core.session.typed import parse_condition, parse_sheet_value, parse_source, parse_vitality
from gmdesk.core.systems.base import parse_int
from gmdesk.tui.widgets import charfields
from gmdesk.tui.widgets.charrows import SYSTEM_ROWS
from gmdesk.tui.widgets.common import bonus

if TYPE_CHECKING:
    from gmdesk.core.session import Character, State
    from gmdesk.core.systems.spec import SystemSpec
    from gmdesk.tui.widgets.charrows import Row

#: the status Enter on the Status row sets by hand
NEXT_STATUS = {"ok": "unconscious", "unconscious": "dead", "dead": "ok"}


def counter_event(ch: Character, index: int, what: str) -> tuple[dict[str, Any], str]:
    """The event (and what it does, in words) that spends one use of ``ch``'s counter
    ``index`` (``what``: "use"), gives one back ("restore") or takes it off ("remove")."""
    x = ch.counters[index]
    if what == "remove":
        return {"type": "counter.remove", "id": ch.id, "label": x.label}, f"{ch.name}: {x.label} removed"
    key, verb, left = ("spend", "spends", x.left - 1) if what == "use" else ("restore", "restores", x.left + 1)
    said = f"{ch.name} {verb} 1 {x.label} ({left}/{x.maximum} left)"
    return {"type": "counter.change", "id": ch.id, "label": x.label, key: 1}, said


def edit_event(
    spec: SystemSpec | None, state: State | None, row: Row, ch: Character, text: str
) -> tuple[dict[str, Any], str]:
    """The event (and what it does, in words) that the GM's ``text`` typed in the
    editor of ``row`` makes for ``ch``: a field, a system field, a new source, sheet
    row or condition, a sheet value. ParamError when ``text`` is not of the row's form
    (a number where a number is needed); the session judges its sense."""
    cid = ch.id
    if (row.kind in SYSTEM_ROWS or isinstance(row.key, tuple)) and spec is not None:
        return charfields.edit(spec, ch, row.kind, row.key, text)
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
        # told in the session's words for the change ("Kara: Vitality 12 → 9"), never
        # by the stored field's name ("vitality_current changed")
        return {"type": "character.edit", "id": cid, "fields": fields}, ""
    if row.kind == "add" and row.key in ("advantage", "shift"):
        name, value, rounds = parse_source(text, row.key)
        return (
            {"type": "source.add", "id": cid, "kind": row.key, "name": name, "value": value, "rounds": rounds},
            f"{ch.name}: {name} {bonus(value)} added",
        )
    if row.kind == "add" and row.key == "sheet":
        return sheet_rows.add_event(cid, text), f"{ch.name}: {text} added to the sheet"
    if row.kind == "add":
        others = state.characters.values() if state is not None else ()
        name, rounds, until = parse_condition(text, others)
        doc: dict[str, Any] = {"type": "condition.add", "id": cid, "name": name, "rounds": rounds}
        if until is not None:
            doc["until"] = until
        return doc, f"{ch.name}: {name} added"
    assert ch.sheet is not None  # what is left is a sheet row: its character has a sheet
    r = ch.sheet.rows[row.key]
    changes = parse_sheet_value(text)
    return (
        {"type": "sheet.set", "id": cid, "descriptor": ch.sheet.path(row.key), **changes},
        f"{ch.name}: {r.name} changed",
    )
