"""The GM's own tables at the desk (command palette): "Use a table file…" puts a table
read from a file in force for one of the session system's table roles (chosen by
its words, never its name) for the rest of the session; "Back to the built-in
table" takes it out again. Each is one ``session.settings`` event that carries the
table itself, so ``u`` takes it back and the rolls made before keep what they
rolled; the file is read in the session runner, never on the event loop, and a bad
file is refused in the dialog under the field's label ("Table file: …").

:func:`tables_line` says which tables are the GM's own, for the session settings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.session.events import fits_role, own_tables, table_change, table_roles

if TYPE_CHECKING:
    from gmdesk.core.session import Event, Session
    from gmdesk.tui.screens.desk import DeskScreen

#: the dialog's field labels
ROLE_LABEL = "Table"
FILE_LABEL = "Table file"


def _roles(system: str) -> list[tuple[str, str]]:
    try:
        return table_roles(system)
    except GmdeskError:  # a system not installed here: no roles to offer
        return []


def _own_words(settings: Mapping[str, Any]) -> dict[str, str]:
    """role -> "own table 'Grim wounds'" for each role a GM's own table is in force for."""
    return {role: f"own table {t.title or t.name!r}" for role, t in own_tables(settings).items()}


def tables_line(settings: Mapping[str, Any], system: str) -> str:
    """ "Own tables: Combat table — 'Grim wounds'; the others built-in", or "" when
    every table is the built-in one."""
    own = own_tables(settings)
    if not own:
        return ""
    labels = dict(_roles(system))
    said = "; ".join(f"{labels.get(role, role)} — {t.title or t.name!r}" for role, t in own.items())
    return f"Own tables: {said}; the others built-in"


def table_commands(desk: DeskScreen) -> list[tuple[str, str, Callable[[], Any]]]:
    """The palette's entries: "Use a table file…", and "Back to the built-in table"
    while a GM's own table is in force."""
    info = desk.state.info
    roles = _roles(info.system)
    if not roles:
        return []
    out: list[tuple[str, str, Callable[[], Any]]] = [
        (
            "Use a table file…",
            f"a table of your own (JSON) for the rest of the session: {', '.join(label for _r, label in roles)}",
            lambda: use_table_file(desk),
        )
    ]
    own = _own_words(info.settings)
    if own:
        labels = dict(roles)
        said = ", ".join(f"{labels.get(role, role)}: {words}" for role, words in own.items())
        out.append(("Back to the built-in table", said, lambda: back_to_builtin(desk)))
    return out


def _done(desk: DeskScreen) -> Callable[[Event | None], None]:
    def done(event: Event | None) -> None:
        if event is not None:
            said = list(event.changes) or [event.summary]
            desk.say("\n".join([*said[:-1], f"{said[-1]} — {desk.undo_hint()}"]))

    return done


def _read_and_set(role: str, label: str, typed: str) -> Callable[[Session], Event]:
    """The session call: the file read and checked, then the event carrying its table."""
    from gmdesk.core.errors import TableError
    from gmdesk.core.tables import load_table

    def call(session: Session) -> Event:
        if not typed.strip():
            raise ParamError("file", "give the path of a table file (JSON)")
        try:
            table = load_table(Path(typed.strip()).expanduser())
            fits_role(role, table, f"the {label}")
        except (TableError, ValueError) as e:
            raise ParamError("file", str(e)) from None
        settings = session.state.info.settings
        if dict(settings.get("tables") or {}).get(role) == table.to_json():
            raise ParamError("file", f"this table is the {label} already")
        return session.apply(table_change(settings, role, table))

    return call


def use_table_file(desk: DeskScreen) -> None:
    """Ask for the role (its words) and the file; the table read from it is in force
    from the next roll on. The dialog stays open until the session accepted it."""
    from gmdesk.tui.screens.confirm import FormDialog
    from gmdesk.tui.widgets.form import FormField

    info = desk.state.info
    own = _own_words(info.settings)
    labels = dict(_roles(info.system))
    choices = [(role, f"{label} ({own[role]})" if role in own else label) for role, label in labels.items()]
    if not choices:
        return
    dialog = FormDialog(
        "Use a table file",
        [
            FormField("file", FILE_LABEL, "text", placeholder="path of a JSON table file"),
            FormField("role", ROLE_LABEL, "choice", choices[0][0], choices),
        ],
        commit=lambda values: _read_and_set(
            str(values["role"]), labels.get(str(values["role"]), ""), str(values["file"])
        ),
        verb="use it",
    )
    desk.when_idle(lambda: desk.app.push_screen(dialog, _done(desk)))


def back_to_builtin(desk: DeskScreen) -> None:
    """Pick one of the roles a GM's own table is in force for (by its words); the
    built-in table is in force for it again (one event, undoable)."""
    from gmdesk.tui.screens.confirm import ChoiceDialog

    info = desk.state.info
    own = _own_words(info.settings)
    if not own:
        desk.say("Every table is the built-in one already.")
        return
    labels = dict(_roles(info.system))
    choices = [(role, f"{labels.get(role, role)} — {words}") for role, words in own.items()]

    def chosen(role: Any) -> None:
        if role is not None:
            desk.submit(lambda s: s.apply(table_change(s.state.info.settings, str(role), None)), _done(desk))

    desk.when_idle(
        lambda: desk.app.push_screen(
            ChoiceDialog("Which table goes back to the built-in one?", choices, title="Back to the built-in table"),
            chosen,
        )
    )
