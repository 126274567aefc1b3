"""The session picker: every session in the save directory, and the ways to start one.

``PickerScreen(store, examples_dir)`` lists the store's sessions in a table — name,
system, last played, round, number of rolls — most recently played first, so Enter
on the first row resumes last week's game. A damaged file is listed too, marked
``DAMAGED`` with its error (the line under the table shows the whole message), and
cannot be opened or duplicated, only deleted. A sound session of a dice system whose
plug-in is not installed here is listed as it stands, saying which plug-in it needs;
it opens once that plug-in is installed.

Keys: Enter open · ``n`` new (name + system, checked as you type) · ``e`` new from
an example · ``c`` duplicate (copy) · ``N`` next night from the highlighted session
(its player characters carried over, as they stand or after a rest, and the
non-player characters the GM picks) · Delete or ``x`` delete (asks first) · F5 reload.

The list is a dumb widget (:class:`tui.widgets.sessiontable.SessionTable`: the rows,
the cursor, the line about the highlighted session); this screen lists the directory
and makes the moves. It holds no rules and never opens a session itself: opening or creating
posts :class:`PickerScreen.Open` and the app opens the save. If that fails (another
gmdesk holds the save's lock…) the app calls :meth:`PickerScreen.show_error` with
the one-line reason and the picker stays usable. Listing, creating, copying and
deleting touch the disk, so they run in the session runner (:mod:`tui.runner`), in
order with the closing of the session the GM just left.

Example sessions are templates: they are read (listed) and copied with
``store.create_from_example``, never opened for writing. Choices made where the
brief is silent: the system offered for a new session is the one most recently
played (the first installed system in an empty directory); a duplicate is named "<name> copy" and is not
opened (the GM usually prepares it for later), its row is selected; a next night is
named after the last one's number plus one ("Night 1" → "Night 2") and opened at once,
like a new session.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Static

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import SessionStore, SessionSummary
from gmdesk.core.session.lock import LockedError
from gmdesk.core.session.nextnight import carry_candidates
from gmdesk.core.session.saves import plugin_note
from gmdesk.core.systems import system_ids
from gmdesk.tui.runner import SessionRunner
from gmdesk.tui.screens.newsession import (
    MAX_NAME,
    ExampleDialog,
    NewSessionDialog,
    NextNightDialog,
    check_new_name,
    default_system,
    system_label,
)
from gmdesk.tui.widgets.sessiontable import (
    SessionTable,
    detail_text,
    format_last_played,
    is_damaged,
    needs_plugin,
    short_error,
)


def default_examples_dir() -> Path:
    """The shipped example sessions (the ``gmdesk.saves`` package), via importlib.resources."""
    return Path(str(resources.files("gmdesk.saves")))


def _sort_key(summary: SessionSummary) -> tuple[bool, tuple[int, ...], str]:
    damaged = is_damaged(summary)
    last = str(getattr(summary, "last_played", "") or "")
    return (damaged, _neg(last), str(getattr(summary, "name", "")).casefold())


def _neg(s: str) -> tuple[int, ...]:
    # sort ISO strings descending inside an ascending key
    return tuple(-ord(ch) for ch in s)


def _confirm_dialog(question: str, yes: str, title: str, *, undoable: bool = True) -> ModalScreen[bool]:
    from gmdesk.tui.screens.confirm import ConfirmDialog

    return ConfirmDialog(question, yes=yes, no="Cancel", title=title, undoable=undoable)


# ---------------------------------------------------------------------------
# the picker
# ---------------------------------------------------------------------------


class PickerScreen(Screen[None]):
    """The sessions in the save directory; see the module docstring."""

    DEFAULT_CSS = """
    PickerScreen { layout: vertical; }
    PickerScreen #picker-title { height: 1; padding: 0 1; background: $panel; }
    PickerScreen #picker-table { height: 1fr; }
    PickerScreen #picker-detail { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    PickerScreen #picker-status { height: auto; max-height: 3; padding: 0 1; }
    PickerScreen #picker-status.-error { color: $error; text-style: bold; }
    """

    BINDINGS = [
        Binding("enter", "open", "Open", id="picker.open", priority=True),
        Binding("n", "new", "New", id="picker.new"),
        Binding("e", "from_example", "Example", id="picker.example"),
        Binding("c", "duplicate", "Duplicate", id="picker.duplicate"),
        Binding(
            "N",
            "next_night",
            "Next night",
            show=False,  # the footer is full at 80 columns: in the help and the palette
            tooltip="next night from the highlighted session: its party carried over, rested or not",
            id="picker.next_night",
        ),
        Binding("delete,x", "delete", "Delete", id="picker.delete"),
        Binding("f5", "reload", "Reload", show=False, id="picker.reload"),
    ]

    class Open(Message):
        """The GM chose a session to open (an existing one or one just created);
        ``readonly``: only to read it (another gmdesk has it open)."""

        def __init__(self, path: Path, readonly: bool = False) -> None:
            super().__init__()
            self.path = Path(path)
            self.readonly = readonly

    class Listed(Message):
        """The list of sessions was (re)loaded; ``count`` rows, ``damaged`` of them damaged."""

        def __init__(self, count: int, damaged: int) -> None:
            super().__init__()
            self.count = count
            self.damaged = damaged

    def __init__(
        self,
        store: SessionStore,
        runner: SessionRunner,
        examples_dir: Path | str | None = None,
        *,
        select: Path | None = None,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """``select``: the session to highlight once listed (one that could not be opened)."""
        super().__init__(name=name, id=id)
        self.store = store
        self.runner = runner
        self.examples_dir = Path(examples_dir) if examples_dir is not None else default_examples_dir()
        self.summaries: list[SessionSummary] = []
        self.examples: list[SessionSummary] = []
        self.loaded = False
        self._select_after_load: Path | None = Path(select) if select is not None else None
        self._picker_notice: str | None = None
        self._picker_error: str | None = None  # a failure to keep on show after the next listing
        self._generation = 0
        self._offered_examples = False  # a first run offers the examples once
        self._in_dialog = False

    # -- layout ----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(self._title_text(), id="picker-title")
        yield SessionTable(id="picker-table")
        yield Static("", id="picker-detail")
        yield Static("Loading sessions…", id="picker-status")
        yield Footer()

    def _title_text(self) -> Text:
        text = Text()
        text.append("gmdesk", style="bold")
        text.append("  sessions in ")
        text.append(str(getattr(self.store, "dir", "") or ""), style="dim")
        return text

    def on_mount(self) -> None:
        self.query_one(SessionTable).focus()
        self.reload()

    def on_resize(self, event: events.Resize) -> None:
        if self.loaded and self.query_one(SessionTable).laid_out_for != self._table_width():
            self._fill(self.summaries, self.examples, None, quiet=True)

    def _table_width(self) -> int:
        return max(40, self.size.width or 80)

    def on_screen_resume(self) -> None:
        # back from another screen (not one of the picker's own dialogs): the list may
        # have changed meanwhile
        if self.loaded and not self._in_dialog:
            self.reload()
        self._in_dialog = False

    # -- listing (in the session runner) ----------------------------------------------

    def reload(self, select: Path | None = None) -> None:
        """List the sessions (and the examples) again, in the session runner (after a
        session being closed is written)."""
        if select is not None:
            self._select_after_load = Path(select)
        self._generation += 1
        generation = self._generation
        self.runner.run(self._list, lambda listed: self._fill_if_current(generation, *listed), owner=self)

    def _list(self) -> tuple[list[SessionSummary], list[SessionSummary], str | None]:
        """In the runner's worker: the sessions, the examples, why the directory cannot be listed."""
        try:
            summaries = sorted(self.store.list(), key=_sort_key)
            error = None
        except Exception as e:  # the directory itself is unreadable
            summaries, error = [], str(e) or type(e).__name__
        examples: list[SessionSummary] = []
        if self.examples_dir is not None and self.examples_dir.is_dir():
            try:
                examples = list_examples(self.store, self.examples_dir)
            except Exception:
                examples = []
        return summaries, examples, error

    def _fill_if_current(
        self, generation: int, summaries: list[SessionSummary], examples: list[SessionSummary], error: str | None
    ) -> None:
        if generation == self._generation:  # an older listing that finished late is dropped
            self._fill(summaries, examples, error)

    def _fill(
        self, summaries: list[SessionSummary], examples: list[SessionSummary], error: str | None, quiet: bool = False
    ) -> None:
        keep = self._select_after_load or self.selected_path()
        self._select_after_load = None
        self.summaries = summaries
        self.examples = examples
        self.loaded = True
        self.query_one(SessionTable).show(summaries, keep, self._table_width())
        if quiet:
            return
        n_damaged = sum(1 for s in summaries if is_damaged(s))
        n_waiting = sum(1 for s in summaries if needs_plugin(s))
        pending, self._picker_notice = self._picker_notice, None
        pending_error, self._picker_error = self._picker_error, None
        if error is not None:
            self.show_error(f"Cannot list the save directory: {error}")
        elif pending_error:
            self.show_error(pending_error)  # what just failed stays said after the reload
        elif pending:
            self.show_message(pending)
        elif not summaries:
            self.show_message("No sessions yet — n: new session · e: start from an example.")
            if self.examples and not self._offered_examples and not self._in_dialog:
                # A first run: a living table is one Enter away.
                self._offered_examples = True
                self.action_from_example()
        else:
            more = f", {n_damaged} damaged" if n_damaged else ""
            more += f", {n_waiting} waiting for a plug-in" if n_waiting else ""
            self.show_message(
                f"{len(summaries)} session{'s' if len(summaries) != 1 else ''}{more}. Enter opens the highlighted one."
            )
        self._update_detail()
        self.post_message(self.Listed(len(summaries), n_damaged))

    # -- selection -----------------------------------------------------------------

    def selected_summary(self) -> SessionSummary | None:
        return self.query_one(SessionTable).selected_summary()

    def selected_path(self) -> Path | None:
        s = self.selected_summary()
        return Path(s.path) if s is not None else None

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._update_detail()

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def _update_detail(self) -> None:
        self.query_one("#picker-detail", Static).update(detail_text(self.selected_summary()))

    # -- messages for the GM -------------------------------------------------------

    def show_message(self, text: str) -> None:
        status = self.query_one("#picker-status", Static)
        status.remove_class("-error")
        status.update(Text(text))

    def show_error(self, text: str) -> None:
        """Show why something failed (e.g. the save is held by another gmdesk)."""
        status = self.query_one("#picker-status", Static)
        status.add_class("-error")
        status.update(Text(f"✗ {text}"))

    @property
    def status_text(self) -> str:
        return str(self.query_one("#picker-status", Static).render())

    # -- actions ---------------------------------------------------------------------

    def commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        """Every move of the picker as (title, help, callback) for the command palette."""
        return [
            ("Open session", "open the highlighted session (Enter)", self.action_open),
            ("New session…", "name and system (n)", self.action_new),
            ("New session from an example…", "copy one of the shipped examples (e)", self.action_from_example),
            ("Duplicate session…", "copy the highlighted session under a new name (c)", self.action_duplicate),
            (
                "Next night from…",
                "a new session with the highlighted one's party, as it stands or rested (N)",
                self.action_next_night,
            ),
            ("Delete session…", "delete the highlighted session, after asking (Delete / x)", self.action_delete),
            ("Reload the list", "read the save directory again (F5)", self.action_reload),
        ]

    def _taken(self) -> list[str]:
        return [str(s.name) for s in self.summaries if not is_damaged(s)]

    def _default_system(self) -> str:
        for s in self.summaries:
            if not getattr(s, "error", None) and s.system in system_ids():
                return s.system
        return default_system()

    def action_open(self) -> None:
        s = self.selected_summary()
        if s is None:
            self.show_message("No session to open — n: new session · e: start from an example.")
            return
        if needs_plugin(s):
            self.show_error(f"{s.name} {plugin_note(str(needs_plugin(s)))}")
            return
        if getattr(s, "error", None):
            self.offer_repair(s)
            return
        self.show_message(f"Opening {s.name}…")
        self.post_message(self.Open(Path(s.path)))

    def offer_read_only(self, path: Path, error: str) -> None:
        """``path`` is open in another gmdesk (``error`` says whose): offer to open it
        here read-only — every roll and character shows, nothing can be changed."""

        def done(yes: bool | None) -> None:
            if yes:
                self.show_message(f"Opening {path.stem} read-only…")
                self.post_message(self.Open(path, readonly=True))

        question = f"{error}.\n\nRead-only, the desk shows the session as it stands now; nothing can be changed here."
        self._in_dialog = True
        self.app.push_screen(_confirm_dialog(question, yes="Open read-only", title="Open in another gmdesk"), done)

    def offer_repair(self, s: SessionSummary) -> None:
        """A damaged session: check it (in the session runner; reads only), show what is
        wrong and offer a repair, which writes a new session beside it from everything
        that can be trusted (the damaged files are never changed)."""
        path = Path(s.path)
        self.show_error(f"{path.name} is damaged and cannot be opened: {short_error(s)} — checking it…")

        def work() -> list[str]:
            from gmdesk.core.session.repair import check

            try:
                return check(path).lines()
            except (GmdeskError, OSError) as e:
                return [f"{path.name}: DAMAGED", f"  ✗ {e}"]

        self.runner.run(work, lambda lines: self._ask_repair(s, lines), owner=self)

    def _ask_repair(self, s: SessionSummary, lines: list[str]) -> None:
        path = Path(s.path)
        self.show_error(f"{path.name} is damaged and cannot be opened: {short_error(s)}")
        question = "\n".join(
            [
                *lines,
                "",
                "Repair writes a new session beside it from everything that can be "
                "trusted; the damaged file is never changed.",
            ]
        )

        def done(yes: bool | None) -> None:
            if not yes:
                self.show_message("Nothing repaired.")
                return

            said: list[str] = []

            def job() -> Path:
                from gmdesk.core.session.repair import repair

                dst, got = repair(path, self.store.dir if path.parent == self.store.dir else None)
                left = f"; left out: {'; '.join(got.left_out)}" if got.left_out else "; nothing left out"
                said.append(f"Repaired into {dst.name} ({got.kept_text()}){left}")
                return dst

            self._run_disk(
                job,
                open_after=False,
                doing=f"Repairing {path.name}…",
                done=lambda: said[0] if said else f"Repaired {path.name}.",
            )

        self._in_dialog = True
        self.app.push_screen(_confirm_dialog(question, yes="Repair", title="Damaged session"), done)

    def action_new(self) -> None:
        def done(result: tuple[str, str] | None) -> None:
            if result is not None:
                name, system = result
                self._run_disk(lambda: self.store.create(name, system), open_after=True, doing=f"Creating {name}…")

        self._in_dialog = True
        self.app.push_screen(NewSessionDialog(self._taken(), self._default_system()), done)

    def action_from_example(self) -> None:
        if not self.examples:
            self.show_message("No example sessions are installed.")
            return

        def done(result: tuple[Path, str] | None) -> None:
            if result is not None:
                example, name = result
                self._run_disk(
                    lambda: self.store.create_from_example(example, name),
                    open_after=True,
                    doing=f"Creating {name} from {example.stem}…",
                )

        self._in_dialog = True
        self.app.push_screen(ExampleDialog(self.examples, self._taken()), done)

    def action_duplicate(self) -> None:
        s = self.selected_summary()
        if s is None:
            return
        if needs_plugin(s):
            self.show_error(f"{s.name} cannot be duplicated here: it {plugin_note(str(needs_plugin(s)))}")
            return
        if getattr(s, "error", None):
            self.show_error(f"{Path(s.path).name} is damaged and cannot be duplicated: {s.error}")
            return
        taken = self._taken()
        suggestion, n = f"{s.name} copy", 2
        while suggestion.casefold() in {t.casefold() for t in taken}:
            suggestion, n = f"{s.name} copy {n}", n + 1

        def done(result: tuple[str, str] | None) -> None:
            if result is not None:
                name = result[0]
                self._run_disk(
                    lambda: self.store.duplicate(Path(s.path), name),
                    open_after=False,
                    doing=f"Copying {s.name} to {name}…",
                    done=f"Copied {s.name} to {name}.",
                )

        self._in_dialog = True
        self.app.push_screen(
            NewSessionDialog(taken, s.system, name=suggestion, title=f"Duplicate {s.name}", ask_system=False), done
        )

    def action_next_night(self) -> None:
        """A new session with the highlighted one's party: its player characters as
        they stand (or after a rest) and the non-player characters the GM picks. The
        highlighted session is only read (it may be open elsewhere)."""
        s = self.selected_summary()
        if s is None:
            self.show_message("No session to follow — n: new session · e: start from an example.")
            return
        if needs_plugin(s):
            self.show_error(f"No next night can start from {s.name} here: it {plugin_note(str(needs_plugin(s)))}")
            return
        if getattr(s, "error", None):
            self.show_error(f"{Path(s.path).name} is damaged: no next night can start from it: {short_error(s)}")
            return
        path = Path(s.path)

        def work() -> tuple[tuple[list[str], list[str]] | None, str | None]:
            try:
                return carry_candidates(path), None
            except GmdeskError as e:
                return None, str(e)
            except OSError as e:
                return None, f"{e.strerror or e} ({e.filename or ''})".strip()

        self.show_message(f"Reading {s.name}…")
        self.runner.run(work, lambda got: self._ask_next_night(s, *got), owner=self)

    def _ask_next_night(self, s: SessionSummary, party: tuple[list[str], list[str]] | None, error: str | None) -> None:
        if party is None:
            self.show_error(error or f"{s.name} cannot be read")
            return
        pcs, npcs = party
        path = Path(s.path)

        def done(result: tuple[str, bool, list[str]] | None) -> None:
            if result is None:
                self.show_message("No new night.")
                return
            name, rest, chosen = result
            self._run_disk(
                lambda: self.store.next_night(path, name, rest=rest, npcs=chosen).path,
                open_after=True,
                doing=f"Starting {name} from {s.name}{' after a rest' if rest else ''}…",
            )

        self.show_message(f"Next night from {s.name}: name it, rest or not, pick who else comes.")
        self._in_dialog = True
        self.app.push_screen(NextNightDialog(s.name, pcs, npcs, self._taken()), done)

    def action_delete(self) -> None:
        s = self.selected_summary()
        if s is None:
            return
        path = Path(s.path)
        what = "the damaged file" if is_damaged(s) else "the session"
        question = f"Delete {what} {s.name!s}?\n{path}\nIts whole log goes with it; this cannot be undone."

        def delete() -> None:
            try:
                self.store.delete(path)
            except LockedError as e:
                raise GmdeskError(
                    f"{s.name} was not deleted: it is open in gmdesk ({e.holder}). Close it there first."
                ) from None

        def done(yes: bool | None) -> None:
            if yes:
                self._run_disk(delete, open_after=False, doing=f"Deleting {s.name}…", done=f"Deleted {s.name}.")
            else:
                self.show_message("Nothing deleted.")

        self._in_dialog = True
        self.app.push_screen(_confirm_dialog(question, yes="Delete", title="Delete session", undoable=False), done)

    def action_reload(self) -> None:
        self.reload()

    def _run_disk(
        self, job: Callable[[], Any], *, open_after: bool, doing: str, done: str | Callable[[], str] = ""
    ) -> None:
        """Run a store call in the session runner; open / select the resulting path afterwards."""
        self.show_message(doing)

        def work() -> tuple[Any, str | None]:
            try:
                return job(), None
            except GmdeskError as e:
                return None, str(e)
            except OSError as e:
                return None, f"{e.strerror or e} ({e.filename or ''})".strip()

        self.runner.run(work, lambda outcome: self._after_disk(outcome[0], outcome[1], open_after, done), owner=self)

    def _after_disk(self, result: Any, error: str | None, open_after: bool, done: str | Callable[[], str]) -> None:
        if error is not None:
            self.show_error(error)
            self._picker_error = error
            self.reload()
            return
        path = Path(result) if isinstance(result, (str, Path)) else None
        if open_after and path is not None:
            self.reload(select=path)
            self.post_message(self.Open(path))
            return
        self._picker_notice = (done() if callable(done) else done) or None
        self.reload(select=path)


def list_examples(store: SessionStore, examples_dir: Path) -> list[SessionSummary]:
    """Summaries of the readable example sessions in ``examples_dir`` (``*.gmdesk`` or
    ``*.json`` session files), by name. Only read: example files are never written."""
    paths = sorted(
        p
        for p in Path(examples_dir).iterdir()
        if p.is_file() and p.suffix in (".gmdesk", ".json") and not p.name.startswith((".", "_"))
    )
    out = []
    for p in paths:
        summary = store.summary(p)
        if not getattr(summary, "error", None):
            out.append(summary)
    order = {sid: i for i, sid in enumerate(system_ids())}
    return sorted(out, key=lambda s: (order.get(str(s.system), len(order)), str(s.name).casefold()))


__all__ = [
    "default_system",
    "MAX_NAME",
    "ExampleDialog",
    "NewSessionDialog",
    "NextNightDialog",
    "PickerScreen",
    "check_new_name",
    "default_examples_dir",
    "format_last_played",
    "list_examples",
    "short_error",
    "system_label",
]
