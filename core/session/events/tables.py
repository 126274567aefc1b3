"""The tables a session's settings put in force, and the status a wound descriptor
imposes by the declaration of the system that rolled it (its own statuses and the
table of its ``status_table`` role, which a session may point at a GM's own table).

``settings["tables"]`` maps a role to what is in force for it: a built-in table's
name, or a GM's own table itself, its content in the table file's JSON form
(:func:`core.tables.parse_table`). The content is what a ``session.settings`` event
carries, so the log replays the same whatever becomes of the file it was read from:
nothing here reads a file. A save written before the content was stored names a
file path instead; the event that names it reads it once as the log is folded
(:func:`table_value`), and a header that names one is read when its tables are
first put in force."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gmdesk.core.systems.harm import OUT, Harm
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

if TYPE_CHECKING:
    from gmdesk.core.tables import Table

#: what a GM reads for a table role every system may read (a system names its own:
#: ``TABLE_LABELS``; a role named by neither reads as its words)
ROLE_LABELS = {
    "outcomes": "Outcome table",
    "combat": "Combat table",
    "maneuver": "Maneuver table",
    "wound-status": "Wound statuses (Unconscious, Dead)",
}


def session_tables(settings: Mapping[str, Any]) -> TableSet:
    """The TableSet a session's settings put in force over the built-in tables."""
    named = settings.get("tables")
    if not named:  # (most sessions: the built-in tables, the one TableSet of them)
        return DEFAULT_TABLES
    overrides = {role: table_of(value) for role, value in dict(named).items()}
    return TableSet(overrides=overrides)


def _key(value: Any) -> tuple[str, str]:
    """One key for a table's setting: ``("name", its name)``, or ``("content", its
    content as canonical JSON)`` — never taken for one another (a file's path may
    start with "{")."""
    if isinstance(value, str):
        return ("name", value)
    return ("content", json.dumps(value, sort_keys=True, ensure_ascii=False))


def table_of(value: str | Mapping[str, Any]) -> Table:
    """The table a role's setting names (a built-in's name) or holds (its content)."""
    return _table(_key(value))


@lru_cache(maxsize=32)
def _table(key: tuple[str, str]) -> Table:
    from gmdesk.core.tables import parse_table

    kind, text = key
    if kind == "content":
        return parse_table(json.loads(text), "the session's own table")
    return resolve_table(text)  # a built-in's name, or a file a header written before contents were stored names


def resolve_table(name: str) -> Table:
    """A built-in table by name, or (a save's earlier form) the table in a file."""
    from gmdesk.core.tables import builtin_names, load_builtin, load_table

    if name in builtin_names():
        return load_builtin(name)
    return load_table(Path(name).expanduser())


def table_value(role: str, value: Any, *, read_files: bool) -> str | dict[str, Any]:
    """A role's setting as a ``session.settings`` event keeps it: a built-in table's
    name as it is, a table's content validated (and in its canonical JSON form). A
    file path is read only with ``read_files`` (an event of a save written before the
    content was stored, read back once); a new event must carry the table itself.
    Raises TableError / ValueError with the reason."""
    from gmdesk.core.tables import builtin_names, load_table, parse_table

    if isinstance(value, str):
        if value in builtin_names():
            return value
        if not read_files:
            raise ValueError(f"{value!r} is no built-in table (a GM's own table is set by its content)")
        return load_table(Path(value).expanduser()).to_json()
    if isinstance(value, Mapping):
        table = parse_table(value, f"the table for {role}")
        fits_role(role, table)
        return table.to_json()
    raise ValueError("must be a built-in table's name or a table (an object)")


def fits_role(role: str, table: Table, what: str = "") -> None:
    """Refuse (ValueError) a table of another shape than the built-in one for ``role``:
    a band table for a table of rows or the other way round, or rows read by columns
    it does not have (one column serves them all). ``what``: the role in words
    ("the Combat table"), else "the table for ROLE"."""
    from gmdesk.core.errors import TableError
    from gmdesk.core.tables import BandTable, DescriptorTable, builtin_names, load_builtin

    name = TableSet.DEFAULTS.get(role, role)
    if name not in builtin_names():
        return  # a plug-in's own role: its system reads it
    try:
        builtin = load_builtin(name)
    except TableError:
        return
    what = what or f"the table for {role}"
    if isinstance(builtin, BandTable) and not isinstance(table, BandTable):
        raise ValueError(f'{table.name!r} has rows; {what} is ranges of numbers ("kind": "bands")')
    if isinstance(builtin, DescriptorTable):
        if not isinstance(table, DescriptorTable):
            raise ValueError(f"{table.name!r} is ranges of numbers; {what} has rows of texts")
        if len(table.columns) > 1 and table.columns != builtin.columns:
            raise ValueError(
                f"{table.name!r} has the columns {', '.join(table.columns)}; {what} needs "
                f"{', '.join(builtin.columns)} (or one column)"
            )


def table_roles(system: str) -> list[tuple[str, str]]:
    """The table roles a session of ``system`` rolls with, each with what a GM reads
    for it: the roles its declaration names (``TABLE_ROLES``) and the role of its
    wound statuses (``HARM.status_table``); each in the words its declaration gives
    it (``TABLE_LABELS``)."""
    from gmdesk.core.systems import get_spec

    spec = get_spec(system)
    roles = list(spec.table_roles)
    if spec.harm.status_table and spec.harm.status_table not in roles:
        roles.append(spec.harm.status_table)
    labels = {**ROLE_LABELS, **dict(spec.table_labels)}
    # a role named nowhere reads as its words: "coin-bruise" → "Coin bruise"
    return [(role, labels.get(role) or role.replace("-", " ").replace("_", " ").capitalize()) for role in roles]


@lru_cache(maxsize=8)
def _status_rules(key: tuple[str, str]) -> tuple[tuple[str, str, str], ...]:
    from gmdesk.core.tables import DescriptorTable

    table = _table(key)
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
        value = dict(settings.get("tables") or {}).get(role, role)
        t, c = text.casefold(), (column or "").casefold()
        for d_text, d_col, status in _status_rules(_key(value)):
            if d_text == t and (d_col in ("*", "") or d_col == c):
                return status if status in OUT else None
    return harm.declared_status(text, column)


def table_change(settings: Mapping[str, Any], role: str, table: Table | None) -> dict[str, Any]:
    """The ``session.settings`` event that puts ``table`` (a GM's own, its content
    carried) in force for ``role``, or (None) the built-in table back."""
    tables = dict(settings.get("tables") or {})
    if table is None:
        tables.pop(role, None)
    else:
        tables[role] = table.to_json()
    return {"type": "session.settings", "changes": {"tables": tables}}


def own_tables(settings: Mapping[str, Any]) -> dict[str, Table]:
    """The roles a GM's own table is in force for, each with that table."""
    named = dict(settings.get("tables") or {})
    return {role: table_of(value) for role, value in named.items() if isinstance(value, Mapping)}
