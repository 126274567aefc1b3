"""Adding a descriptor to a character's sheet at the table: an Item found, a rope
bought, an Ability learnt — without importing the sheet again."""

from __future__ import annotations

from typing import Any

from gmdesk.core.errors import ParamError
from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.events.sheets import sheet_new


@handler("sheet.add")
def _sheet_add(ctx: Ctx, p: dict[str, Any]) -> str:
    """``line``: the descriptor as written on a sheet (``2 shovels``, ``Lantern +1 (3)``,
    ``Rope (frayed)``); ``parent`` (optional): the descriptor it goes under (an Item in
    a Backpack, a Use of an Ability). The row is laid out under the sheet's columns;
    the rest of the sheet is left as it was written."""
    ctx.fields(p, ("id", "line"), ("parent",))
    c = ctx.char(p["id"])
    line = ctx.text(p["line"], "line")
    parent = None if p.get("parent") in (None, "") else ctx.text(p["parent"], "parent")
    sheet = c.sheet if c.sheet is not None else sheet_new(c.name)
    try:
        added = sheet.add_line(line, parent)
    except ParamError as e:
        raise ctx.fail(str(e)) from None
    ctx.tx.char(c.id).sheet = added
    (row,) = [r for path, r in added.entries() if path not in dict(sheet.entries())]
    where = f" under {parent}" if parent else ""
    ctx.changes.append(f"{c.name}: {row.label} added to the sheet{where}")
    return ctx.changes[-1]


#: what the desk's character pane asks for when the GM adds a descriptor
ADD_PROMPT = "New descriptor, as on a sheet: 2 shovels · Lantern +1 (3) · Parent/Use (1)"


def add_event(char_id: str, text: str) -> dict[str, Any]:
    """The ``sheet.add`` event for a line the GM typed: ``Parent/Name …`` puts the new
    row under ``Parent`` (the path the pane shows); ParamError when nothing is typed."""
    text = " ".join(str(text).split())
    if not text:
        raise ParamError("descriptor", "type the descriptor as on the sheet, e.g. 2 shovels")
    head, sep, rest = text.partition("/")
    if sep and head.strip() and rest.strip() and "(" not in head:
        return {"type": "sheet.add", "id": char_id, "line": rest.strip(), "parent": head.strip()}
    return {"type": "sheet.add", "id": char_id, "line": text}
