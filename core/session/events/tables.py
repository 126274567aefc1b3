"""The tables a session's settings put in force, and the status a wound descriptor
imposes by the declaration of the system that rolled it (its own statuses and the
table of its ``status_table`` role, which a session may point at a GM's own table)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gmdesk.core.systems.harm import OUT, Harm
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

if TYPE_CHECKING:
    from gmdesk.core.tables import Table


def session_tables(settings: Mapping[str, Any]) -> TableSet:
    """The TableSet a session's settings put in force: ``settings["tables"]`` maps a role
    to a built-in table name or the path of a GM's table file."""
    named = settings.get("tables")
    if not named:  # (most sessions: the built-in tables, the one TableSet of them)
        return DEFAULT_TABLES
    overrides = {role: resolve_table(name) for role, name in dict(named).items()}
    return TableSet(overrides=overrides)


def resolve_table(name: str) -> Table:
    from gmdesk.core.tables import builtin_names, load_builtin, load_table

    if name in builtin_names():
        return load_builtin(name)
    return load_table(Path(name).expanduser())


@lru_cache(maxsize=8)
def _status_rules(table_name: str) -> tuple[tuple[str, str, str], ...]:
    from gmdesk.core.tables import DescriptorTable

    table = resolve_table(table_name)
    if not isinstance(table, DescriptorTable):  # a band table names no descriptor
        return ()
    rules = []
    for _row, texts in sorted(table.rows.items()):
        if len(texts) >= 3:
            rules.append((texts[0].casefold(), texts[1].casefold(), texts[2].casefold()))
    return tuple(rules)


def descriptor_status(settings: Mapping[str, Any], harm: Harm, text: str, column: str) -> str | None:
    """The status (``dead`` / ``unconscious``) a descriptor imposes on whoever carries
    it, or None: read from the table the session puts in the system's
    ``status_table`` role (its own or the built-in one of that name), then from the
    system's own ``statuses``. A descriptor its system does not name changes nothing."""
    role = harm.status_table
    if role:
        name = dict(settings.get("tables") or {}).get(role, role)
        t, c = text.casefold(), (column or "").casefold()
        for d_text, d_col, status in _status_rules(name):
            if d_text == t and (d_col in ("*", "") or d_col == c):
                return status if status in OUT else None
    return harm.declared_status(text, column)
