"""The texts a 1d6x4 attack or heal leaves ("Wound −4 Vitality", "Miss", "Unconscious",
…): data in table ``1d6x4-combat`` (``core/data/1d6x4-combat.json``), which a session
may override under the same role name."""

from __future__ import annotations

from gmdesk.core.errors import TableError
from gmdesk.core.tables import DEFAULT_TABLES, DescriptorTable, TableSet, load_builtin

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

#: the table role (and built-in table name) of the combat / healing texts
TEXT_ROLE = "1d6x4-combat"


def text_table(tables: TableSet = DEFAULT_TABLES) -> DescriptorTable:
    """The combat / healing texts in force (a session may override role ``1d6x4-combat``)."""
    t = tables.overrides.get(TEXT_ROLE) if tables is not None else None
    if t is None:
        t = load_builtin(TEXT_ROLE)
    if not isinstance(t, DescriptorTable) or len(t.columns) < 2:
        raise TableError(f"table {getattr(t, 'name', TEXT_ROLE)!r} for {TEXT_ROLE!r} must have columns key, text")
    return t


def text_for(key: str, tables: TableSet = DEFAULT_TABLES, **fmt: Any) -> tuple[int, str, str]:
    """``(row, text, table name)`` of a key (hit, graze, miss, stalemate, heal,
    unconscious, dead), with ``{amount}`` filled in."""
    t = text_table(tables)
    for row in sorted(t.rows, reverse=True):
        k, text = t.rows[row][0], t.rows[row][1]
        if k == key:
            try:
                return row, text.format(**fmt), t.name
            except (KeyError, IndexError, ValueError):
                raise TableError(f"table {t.name!r}: text {text!r} for {key!r} is not a valid format") from None
    raise TableError(f"table {t.name!r} has no {key!r} row")


def status_text(status: str, tables: TableSet = DEFAULT_TABLES) -> str:
    """ "Unconscious" / "Dead" from the table ("" for "ok")."""
    if status == "ok":
        return ""
    return text_for(status, tables)[1]
