"""``gmdesk table``: the tables a session rolls with, the GM's own or the built-in ones.

``gmdesk table SAVE list [--json]`` lists the session system's table roles, each
with what is in force for it; ``gmdesk table SAVE set ROLE=FILE`` puts a GM's own
table (a JSON table file, validated) in force for ROLE for the rest of the session;
``gmdesk table SAVE clear ROLE`` puts the built-in table back. ROLE is the role's
name (``combat``) or its words (``"Combat table"``), case ignored.

Each change is one undoable ``session.settings`` event that carries the table
itself, never the file's path: editing, moving or deleting the file afterwards
changes nothing the session rolled or will roll. ``gmdesk new NAME --table
ROLE=FILE`` starts a session with its own tables (:func:`tables_for_new`); a next
night (``new --from``) keeps those of the night it follows. Bad input is one line
on stderr, exit 2, and nothing is saved."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from gmdesk.cli.common import guard, open_session
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.results import saved

if TYPE_CHECKING:
    from gmdesk.core.tables import Table


def register(subparsers: Any) -> None:
    """Add ``table`` and its verbs to ``gmdesk``'s subparsers."""
    p = subparsers.add_parser(
        "table", help="use a GM's own table file for a session's role, or the built-in table again; list them"
    )
    p.add_argument("save", metavar="SAVE", help="session name or path")
    verbs = p.add_subparsers(dest="verb", metavar="list|set|clear", parser_class=type(p))
    verbs.required = True
    ls = verbs.add_parser("list", help="the session's table roles and the table in force for each")
    ls.add_argument("--json", action="store_true", help="one JSON object per role per line")
    ls.set_defaults(func=cmd_list)
    st = verbs.add_parser("set", help="use a GM's own table (a JSON table file) for a role from now on")
    st.add_argument("assignment", metavar="ROLE=FILE", help="e.g. combat=house-wounds.json")
    st.set_defaults(func=cmd_set)
    cl = verbs.add_parser("clear", help="use the built-in table for a role again")
    cl.add_argument("role", metavar="ROLE", help="the role (its name or its words, e.g. combat)")
    cl.set_defaults(func=cmd_clear)


def _role(system: str, typed: str, option: str) -> str:
    """The role of ``system`` that ``typed`` names (its name or its words, case ignored)."""
    from gmdesk.core.session.events import table_roles

    roles = table_roles(system)
    key = typed.strip().casefold()
    for role, label in roles:
        if key in (role.casefold(), label.casefold()):
            return role
    raise ParamError(option, f"unknown role {typed!r}; roles: {', '.join(r for r, _ in roles)}")


def read_assignment(system: str, text: str, option: str = "--table") -> tuple[str, Table]:
    """``ROLE=FILE`` read as ``roll --table`` reads it: the role of ``system`` and the
    table in FILE, validated (TableError naming the file and the problem)."""
    from gmdesk.core.tables import load_table

    role, sep, path = text.partition("=")
    if not sep or not role or not path:
        raise ParamError(option, f"must be ROLE=FILE, e.g. combat=my-combat.json (got {text!r})")
    from gmdesk.core.session.events import fits_role

    role = _role(system, role, option)
    table = load_table(path)
    try:
        fits_role(role, table)
    except ValueError as e:
        raise ParamError(option, f"{path}: {e}") from None
    return role, table


def tables_for_new(system: str, specs: list[str]) -> dict[str, Any]:
    """``gmdesk new … --table ROLE=FILE …`` as the session's ``tables`` setting: each
    table's content (a later role given twice wins)."""
    return {role: table.to_json() for role, table in (read_assignment(system, s) for s in specs)}


def _in_force(settings: Any, role: str) -> tuple[str, str | None]:
    """What is in force for ``role``: (words, the own table's name or None)."""
    from gmdesk.core.session.events import own_tables

    own = own_tables(settings).get(role)
    if own is None:
        return "built-in", None
    title = own.title if own.title and own.title != own.name else ""
    return f"own table {own.name}{f' ({title})' if title else ''}", own.name


@guard
def cmd_list(ns: Any) -> int:
    from gmdesk.core.session.events import table_roles

    with open_session(ns, readonly=True) as session:
        info = session.state.info
        rows = []
        for role, label in table_roles(info.system):
            words, own = _in_force(info.settings, role)
            rows.append((role, label, words, own))
    if ns.json:
        for role, label, _words, own in rows:
            print(json.dumps({"role": role, "label": label, "own": own is not None, "table": own}, ensure_ascii=False))
        return 0
    width = max(len(label) for _r, label, _w, _o in rows)
    for role, label, words, _own in rows:
        print(f"{label:<{width}}  {words}  [{role}]")
    return 0


def _change(ns: Any, role_text: str, path: str | None) -> int:
    from gmdesk.core.session.events import EventError, own_tables, table_change

    with open_session(ns) as session:
        info = session.state.info
        option = "ROLE=FILE" if path is not None else "ROLE"
        role = _role(info.system, role_text, option)
        # the file read and checked before anything is saved
        table = read_assignment(info.system, f"{role}={path}", option)[1] if path is not None else None
        if table is None and role not in own_tables(info.settings):
            print(f"{role}: the built-in table is in force already (nothing saved)")
            return 0
        if table is not None and dict(info.settings.get("tables") or {}).get(role) == table.to_json():
            print(f"{role}: this table is in force already (nothing saved)")
            return 0
        try:
            event = session.apply(table_change(info.settings, role, table))
        except EventError as e:
            raise GmdeskError(e.reason) from None
        saved("event", f"{event.summary}, in {info.name}")
    lines = [event.summary, *(f"  · {ch}" for ch in event.changes if ch != event.summary)]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


@guard
def cmd_set(ns: Any) -> int:
    role, sep, path = ns.assignment.partition("=")
    if not sep or not role or not path:
        raise ParamError("ROLE=FILE", f"must be ROLE=FILE, e.g. combat=my-combat.json (got {ns.assignment!r})")
    return _change(ns, role, path)


@guard
def cmd_clear(ns: Any) -> int:
    return _change(ns, ns.role, None)
