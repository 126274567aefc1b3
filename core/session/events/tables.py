"""The tables a session's settings put in force, and the status a wound descriptor
imposes (read from the ``wound-status`` table)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any


def session_tables(settings: Mapping[str, Any]):
    """The TableSet a session's settings put in force: ``settings["tables"]`` maps a role
    to a built-in table name or the path of a GM's table file."""
    from gmdesk.core.tables import TableSet

    overrides = {role: resolve_table(name) for role, name in dict(settings.get("tables") or {}).items()}
    return TableSet(overrides=overrides)


def resolve_table(name: str):
    from gmdesk.core.tables import builtin_names, load_builtin, load_table

    if name in builtin_names():
        return load_builtin(name)
    return load_table(Path(name).expanduser())


@lru_cache(maxsize=8)
def _status_rules(table_name: str) -> tuple[tuple[str, str, str], ...]:
    table = resolve_table(table_name)
    rules = []
    for row in sorted(getattr(table, "rows", {})):
        texts = table.rows[row]
        if len(texts) >= 3:
            rules.append((texts[0].casefold(), texts[1].casefold(), texts[2].casefold()))
    return tuple(rules)


def wound_status(settings: Mapping[str, Any], text: str, column: str) -> str | None:
    """The status a descriptor imposes (``dead`` / ``unconscious``) or None, read from the
    ``wound-status`` table (a session can point that role at its own table)."""
    name = dict(settings.get("tables") or {}).get("wound-status", "wound-status")
    t, c = text.casefold(), (column or "").casefold()
    for d_text, d_col, status in _status_rules(name):
        if d_text == t and (d_col in ("*", "") or d_col == c):
            return status if status in ("dead", "unconscious") else None
    return None
