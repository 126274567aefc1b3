"""The session picker: every session in the save directory, and the ways to start one.

``PickerScreen(store, examples_dir)`` lists the store's sessions in a table — name,
system, last played, round, number of rolls — most recently played first, so Enter
on the first row resumes last week's game. A damaged file is listed too, marked
``DAMAGED`` with its error (the line under the table shows the whole message), and
cannot be opened or duplicated, only deleted.

Keys: Enter open · ``n`` new (name + system, checked as you type) · ``e`` new from
an example · ``c`` duplicate (copy) · Delete or ``x`` delete (asks first) · F5 reload.

The screen holds no rules and never opens a session itself: opening or creating
posts :class:`PickerScreen.Open` and the app opens the save. If that fails (another
gmdesk holds the save's lock…) the app calls :meth:`PickerScreen.show_error` with
the one-line reason and the picker stays usable. Listing, creating, copying and
deleting touch the disk, so they run in thread workers and post their results back.

Example sessions are templates: they are read (listed) and copied with
``store.create_from_example``, never opened for writing. Choices made where the
brief is silent: the system offered for a new session is the one most recently
played (4d2 in an empty directory); a duplicate is named "<name> copy" and is not
opened (the GM usually prepares it for later), its row is selected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.lock import LockedError
from gmdesk.core.systems import SYSTEM_IDS

#: system offered for a new session when nothing has been played yet
DEFAULT_SYSTEM = "4d2"

#: longest session name (the store's limit)
MAX_NAME = 200

#: (label, key, width); the Session column takes the rest of the width
COLUMNS = (
    ("Session", "name", 0),
    ("System", "system", 9),
    ("Last played", "last", 16),
    ("Round", "round", 5),
    ("Rolls", "rolls", 6),
)


def default_examples_dir() -> Path:
    """The shipped example sessions (the ``saves`` package), via importlib.resources."""
    return Path(str(resources.files("saves")))


def format_last_played(value: Any) -> str:
    """``2025-11-21 21:03`` (local time) from an ISO string, a datetime or a timestamp."""
    from gmdesk.core.text import short_time

    return short_time(value)


def _sort_key(summary: Any) -> tuple:
    damaged = bool(getattr(summary, "error", None))
    last = str(getattr(summary, "last_played", "") or "")
    return (damaged, _neg(last), str(getattr(summary, "name", "")).casefold())


def _neg(s: str) -> tuple:
    # sort ISO strings descending inside an ascending key
    return tuple(-ord(ch) for ch in s)


def check_new_name(name: str, taken: Iterable[str]) -> str:
    """The name as the store keeps it (``clean_name``), or GmdeskError naming the
    option and what is allowed. Any Unicode is welcome: the store makes the file
    name safe by itself."""
    from gmdesk.core.session.saves import clean_name

    clean = clean_name(name)
    if not clean:
        raise GmdeskError("Name: type a name for the session (any text)")
    if len(clean) > MAX_NAME:
        raise GmdeskError(f"Name: at most {MAX_NAME} characters (got {len(clean)})")
    if clean.casefold() in {clean_name(t).casefold() for t in taken}:
        raise GmdeskError(f"Name: a session named {clean!r} already exists; choose another name")
    return clean


# ---------------------------------------------------------------------------
# dialogs
# ---------------------------------------------------------------------------


def system_label(system_id: str) -> str:
    """``4d2 — Four D Two``: the id the saves use and the system's display name."""
    try:
        from gmdesk.core.systems import get_system

        name = getattr(get_system(system_id), "NAME", "")
    except Exception:  # a system module still missing must not break the picker
        name = ""
    return f"{system_id} — {name}" if name and name != system_id else system_id


class NewSessionDialog(ModalScreen[tuple[str, str] | None]):
    """Name + system for a new session; the name is checked as it is typed.

    Enter in the name creates the session with the highlighted system; Tab moves to
    the list of systems, where Enter on a system creates it with that one. Returns
    ``(name, system)``, or None on Escape. ``taken`` are the names already in the
    save directory. ``ask_system=False`` (duplicate) asks for the name only.
    """

    DEFAULT_CSS = """
    NewSessionDialog { align: center middle; }
    NewSessionDialog > Vertical {
        width: 64; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; padding: 0 1; background: $surface;
    }
    NewSessionDialog .picker-label { padding-top: 1; }
    NewSessionDialog OptionList { height: auto; max-height: 7; }
    NewSessionDialog #new-error { color: $error; height: auto; min-height: 1; }
    NewSessionDialog .picker-hint { color: $text-muted; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.dialog.cancel")]

    def __init__(
        self,
        taken: Iterable[str],
        system: str = DEFAULT_SYSTEM,
        name: str = "",
        title: str = "New session",
        ask_system: bool = True,
    ) -> None:
        super().__init__()
        self.ask_system = ask_system
        self.taken = list(taken)
        self.system = system if system in SYSTEM_IDS else DEFAULT_SYSTEM
        self.initial_name = name
        self.dialog_title = title

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.dialog_title
            yield Input(self.initial_name, placeholder="name, e.g. Tuesday campaign", id="new-name")
            yield Static("", id="new-error")
            if self.ask_system:
                yield Label("System", classes="picker-label")
                yield OptionList(*[Option(system_label(s), id=s) for s in SYSTEM_IDS], id="new-system")
            hint = "Enter create · Tab systems · Esc cancel" if self.ask_system else "Enter copy · Esc cancel"
            yield Static(hint, classes="picker-hint")

    def on_mount(self) -> None:
        if self.ask_system:
            self.query_one("#new-system", OptionList).highlighted = SYSTEM_IDS.index(self.system)
        self.query_one("#new-name", Input).focus()
        if self.initial_name:
            self._check(self.initial_name)

    def _check(self, name: str) -> str | None:
        try:
            clean = check_new_name(name, self.taken)
        except GmdeskError as e:
            self.query_one("#new-error", Static).update(f"✗ {e}")
            return None
        self.query_one("#new-error", Static).update("")
        return clean

    @on(Input.Changed, "#new-name")
    def _changed(self, event: Input.Changed) -> None:
        if event.value.strip():
            self._check(event.value)
        else:
            self.query_one("#new-error", Static).update("")

    @on(Input.Submitted, "#new-name")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    @on(OptionList.OptionSelected, "#new-system")
    def _system_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_create()

    def chosen_system(self) -> str:
        if not self.ask_system:
            return self.system
        index = self.query_one("#new-system", OptionList).highlighted
        return SYSTEM_IDS[index] if index is not None else self.system

    def action_create(self) -> None:
        clean = self._check(self.query_one("#new-name", Input).value)
        if clean is None:
            self.query_one("#new-name", Input).focus()
            return
        self.dismiss((clean, self.chosen_system()))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExampleDialog(ModalScreen[tuple[Path, str] | None]):
    """Pick an example session and name the copy. Returns ``(example path, name)``."""

    DEFAULT_CSS = """
    ExampleDialog { align: center middle; }
    ExampleDialog > Vertical {
        width: 70; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; padding: 0 1; background: $surface;
    }
    ExampleDialog OptionList { height: auto; max-height: 9; }
    ExampleDialog .picker-row { height: auto; }
    ExampleDialog .picker-label { width: 8; padding-top: 1; }
    ExampleDialog Input { width: 1fr; }
    ExampleDialog #example-error { color: $error; height: auto; min-height: 1; }
    ExampleDialog .picker-hint { color: $text-muted; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.dialog.cancel")]

    def __init__(self, examples: Sequence[Any], taken: Iterable[str]) -> None:
        super().__init__()
        self.examples = [e for e in examples if not getattr(e, "error", None)]
        self.taken = list(taken)
        self._chosen = 0

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "New session from an example"
            if not self.examples:
                yield Static("No example sessions are installed.")
            else:
                yield OptionList(
                    *[Option(f"{e.name}  ({e.system})", id=str(i)) for i, e in enumerate(self.examples)],
                    id="example-list",
                )
                with Horizontal(classes="picker-row"):
                    yield Label("Name", classes="picker-label")
                    yield Input(self._suggest(0), id="example-name")
            yield Static("", id="example-error")
            yield Static("↑↓ example · Tab name · Enter create · Esc cancel", classes="picker-hint")

    def _suggest(self, index: int) -> str:
        base = str(self.examples[index].name)
        name, n = base, 2
        taken = {t.casefold() for t in self.taken}
        while name.casefold() in taken:
            name, n = f"{base} {n}", n + 1
        return name

    def on_mount(self) -> None:
        if self.examples:
            options = self.query_one(OptionList)
            options.highlighted = 0
            options.focus()

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        index = int(event.option.id or 0)
        if index != self._chosen:
            name = self.query_one("#example-name", Input)
            if name.value == self._suggest(self._chosen):  # not typed over: follow the choice
                name.value = self._suggest(index)
            self._chosen = index

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._chosen = int(event.option.id or 0)
        self.action_create()

    @on(Input.Changed, "#example-name")
    def _changed(self, event: Input.Changed) -> None:
        self._check(event.value)

    @on(Input.Submitted, "#example-name")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    def _check(self, name: str) -> str | None:
        try:
            clean = check_new_name(name, self.taken)
        except GmdeskError as e:
            self.query_one("#example-error", Static).update(f"✗ {e}")
            return None
        self.query_one("#example-error", Static).update("")
        return clean

    def action_create(self) -> None:
        if not self.examples:
            return
        clean = self._check(self.query_one("#example-name", Input).value)
        if clean is None:
            self.query_one("#example-name", Input).focus()
            return
        self.dismiss((Path(self.examples[self._chosen].path), clean))

    def action_cancel(self) -> None:
        self.dismiss(None)


def _confirm_dialog(question: str, yes: str, title: str) -> ModalScreen[bool]:
    from gmdesk.tui.screens.confirm import ConfirmDialog

    return ConfirmDialog(question, yes=yes, no="Cancel", title=title)


# ---------------------------------------------------------------------------
# the picker
# ---------------------------------------------------------------------------


class PickerScreen(Screen):
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
        Binding("delete,x", "delete", "Delete", id="picker.delete"),
        Binding("f5", "reload", "Reload", show=False, id="picker.reload"),
    ]

    class Open(Message):
        """The GM chose a session to open (an existing one or one just created)."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = Path(path)

    class Listed(Message):
        """The list of sessions was (re)loaded; ``count`` rows, ``damaged`` of them damaged."""

        def __init__(self, count: int, damaged: int) -> None:
            super().__init__()
            self.count = count
            self.damaged = damaged

    def __init__(
        self, store: Any, examples_dir: Path | str | None = None, *, name: str | None = None, id: str | None = None
    ) -> None:
        super().__init__(name=name, id=id)
        self.store = store
        self.examples_dir = Path(examples_dir) if examples_dir is not None else default_examples_dir()
        self.summaries: list[Any] = []
        self.examples: list[Any] = []
        self.loaded = False
        self._select_after_load: Path | None = None
        self._picker_notice: str | None = None
        self._picker_error: str | None = None  # a failure to keep on show after the next listing
        self._generation = 0
        self._offered_examples = False  # a first run offers the examples once
        self._in_dialog = False

    # -- layout ----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(self._title_text(), id="picker-title")
        table: DataTable = DataTable(id="picker-table", cursor_type="row", zebra_stripes=True)
        yield table
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
        self._columns_width = -1
        self.query_one(DataTable).focus()
        self.reload()

    def on_resize(self, event: Any) -> None:
        if self.loaded and self._columns_width != self._table_width():
            self._fill(self.summaries, self.examples, None, quiet=True)

    def _table_width(self) -> int:
        return max(40, self.size.width or 80)

    def on_screen_resume(self) -> None:
        # back from another screen (not one of the picker's own dialogs): the list may
        # have changed meanwhile
        if self.loaded and not self._in_dialog:
            self.reload()
        self._in_dialog = False

    # -- listing (worker) -----------------------------------------------------------

    def reload(self, select: Path | None = None) -> None:
        """List the sessions (and the examples) again, in a worker."""
        if select is not None:
            self._select_after_load = Path(select)
        self._generation += 1
        generation = self._generation
        self.run_worker(lambda: self._list_worker(generation), thread=True, group="picker-list", exit_on_error=False)

    def _list_worker(self, generation: int) -> None:
        try:
            summaries = sorted(self.store.list(), key=_sort_key)
            error = None
        except Exception as e:  # the directory itself is unreadable
            summaries, error = [], str(e) or type(e).__name__
        examples: list[Any] = []
        if self.examples_dir is not None and self.examples_dir.is_dir():
            try:
                examples = list_examples(self.store, self.examples_dir)
            except Exception:
                examples = []
        try:
            self.app.call_from_thread(self._fill_if_current, generation, summaries, examples, error)
        except RuntimeError:  # the app is closing
            pass

    def _fill_if_current(self, generation: int, summaries: list[Any], examples: list[Any], error: str | None) -> None:
        if generation == self._generation:  # an older listing that finished late is dropped
            self._fill(summaries, examples, error)

    def _fill(self, summaries: list[Any], examples: list[Any], error: str | None, quiet: bool = False) -> None:
        keep = self._select_after_load or self.selected_path()
        self._select_after_load = None
        self.summaries = summaries
        self.examples = examples
        self.loaded = True
        table = self.query_one(DataTable)
        width = self._table_width()
        self._columns_width = width
        fixed = sum(w + 2 for _, _, w in COLUMNS if w)
        name_width = max(12, width - fixed - 2 - 1)
        table.clear(columns=True)
        for label, key, w in COLUMNS:
            table.add_column(label, key=key, width=w or name_width)
        for s in summaries:
            damaged = bool(getattr(s, "error", None))
            table.add_row(*self._cells(s), key=str(s.path), height=2 if damaged else 1)
        target_row = 0
        if keep is not None:
            for i, s in enumerate(summaries):
                if Path(s.path) == Path(keep):
                    target_row = i
                    break
        if summaries:
            table.move_cursor(row=target_row, animate=False)
        if quiet:
            return
        damaged = sum(1 for s in summaries if getattr(s, "error", None))
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
            more = f", {damaged} damaged" if damaged else ""
            self.show_message(
                f"{len(summaries)} session{'s' if len(summaries) != 1 else ''}{more}. Enter opens the highlighted one."
            )
        self._update_detail()
        self.post_message(self.Listed(len(summaries), damaged))

    @staticmethod
    def _cells(s: Any) -> tuple:
        error = getattr(s, "error", None)
        if error:
            name = Text(str(s.name))
            name.append("\n✗ " + short_error(s), style="italic")
            return (name, Text("DAMAGED", style="bold"), "can't be read", "", "")
        rnd = getattr(s, "round", 0) or 0
        return (
            Text(str(s.name)),
            str(s.system),
            format_last_played(getattr(s, "last_played", "")),
            Text(str(rnd) if rnd else "—", justify="right"),
            Text(str(getattr(s, "rolls", 0) or 0), justify="right"),
        )

    # -- selection -----------------------------------------------------------------

    def selected_summary(self) -> Any | None:
        table = self.query_one(DataTable)
        if not self.summaries or table.row_count == 0:
            return None
        row = table.cursor_row
        if 0 <= row < len(self.summaries):
            return self.summaries[row]
        return None

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
        s = self.selected_summary()
        detail = self.query_one("#picker-detail", Static)
        if s is None:
            detail.update("")
        elif getattr(s, "error", None):
            detail.update(Text(f"DAMAGED {Path(s.path).name}: {short_error(s)}"))
        else:
            detail.update(Text(str(s.path)))

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
            ("Delete session…", "delete the highlighted session, after asking (Delete / x)", self.action_delete),
            ("Reload the list", "read the save directory again (F5)", self.action_reload),
        ]

    def _taken(self) -> list[str]:
        return [str(s.name) for s in self.summaries if not getattr(s, "error", None)]

    def _default_system(self) -> str:
        for s in self.summaries:
            if not getattr(s, "error", None) and s.system in SYSTEM_IDS:
                return s.system
        return DEFAULT_SYSTEM

    def action_open(self) -> None:
        s = self.selected_summary()
        if s is None:
            self.show_message("No session to open — n: new session · e: start from an example.")
            return
        if getattr(s, "error", None):
            self.offer_repair(s)
            return
        self.show_message(f"Opening {s.name}…")
        self.post_message(self.Open(Path(s.path)))

    def offer_repair(self, s: Any) -> None:
        """A damaged session: check it (in a worker; reads only), show what is wrong and
        offer a repair, which writes a new session beside it from everything that can
        be trusted (the damaged files are never changed)."""
        path = Path(s.path)
        self.show_error(f"{path.name} is damaged and cannot be opened: {short_error(s)} — checking it…")

        def work() -> None:
            from gmdesk.core.session.repair import check

            try:
                lines = check(path).lines()
            except (GmdeskError, OSError) as e:
                lines = [f"{path.name}: DAMAGED", f"  ✗ {e}"]
            try:
                self.app.call_from_thread(self._ask_repair, s, lines)
            except RuntimeError:
                pass

        self.run_worker(work, thread=True, group="picker-disk", exit_on_error=False)

    def _ask_repair(self, s: Any, lines: list[str]) -> None:
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

    def action_delete(self) -> None:
        s = self.selected_summary()
        if s is None:
            return
        path = Path(s.path)
        what = "the damaged file" if getattr(s, "error", None) else "the session"
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
        self.app.push_screen(_confirm_dialog(question, yes="Delete", title="Delete session"), done)

    def action_reload(self) -> None:
        self.reload()

    def _run_disk(
        self, job: Callable[[], Any], *, open_after: bool, doing: str, done: str | Callable[[], str] = ""
    ) -> None:
        """Run a store call in a worker; open / select the resulting path afterwards."""
        self.show_message(doing)

        def work() -> None:
            try:
                result = job()
                error = None
            except GmdeskError as e:
                result, error = None, str(e)
            except OSError as e:
                result, error = None, f"{e.strerror or e} ({e.filename or ''})".strip()
            try:
                self.app.call_from_thread(self._after_disk, result, error, open_after, done)
            except RuntimeError:
                pass

        self.run_worker(work, thread=True, group="picker-disk", exit_on_error=False)

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


def short_error(summary: Any) -> str:
    """A damaged file's error without the leading path (the row already names it)."""
    error = str(getattr(summary, "error", "") or "")
    prefix = f"{summary.path}: "
    return error[len(prefix) :] if error.startswith(prefix) else error


def list_examples(store: Any, examples_dir: Path) -> list[Any]:
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
    order = {sid: i for i, sid in enumerate(SYSTEM_IDS)}
    return sorted(out, key=lambda s: (order.get(str(s.system), len(order)), str(s.name).casefold()))
