"""Starting a session on the picker: the name + system dialog (also the duplicate's
name), the example dialog and the next night's dialog, with the check of a new
name as it is typed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Label, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import SessionSummary
from gmdesk.core.systems import system_ids
from gmdesk.tui.screens.dialog import DialogScreen
from gmdesk.tui.widgets.controls import EnterCheckbox, ReadableSelectionList


def default_system() -> str:
    """The system offered for a new session when nothing has been played yet: the
    first one installed."""
    return system_ids()[0]


#: longest session name (the store's limit)
MAX_NAME = 200


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


def system_label(system_id: str) -> str:
    """``id — Name``: the id the saves use and the system's display name."""
    try:
        from gmdesk.core.systems import get_spec

        name = get_spec(system_id).name
    except Exception:  # a system that cannot be loaded must not break the picker
        name = ""
    return f"{system_id} — {name}" if name and name != system_id else system_id


class NewSessionDialog(DialogScreen[tuple[str, str] | None]):
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
    NewSessionDialog OptionList:focus > .option-list--option-highlighted { text-style: bold reverse; }
    NewSessionDialog #new-error { color: $error; height: auto; min-height: 1; }
    NewSessionDialog .picker-hint { color: $text-muted; }
    """

    # a dialog screen: the key bar under it names its own keys, not the picker's,
    # which wait while it is up; Enter creates from the name and from the list alike
    # (the list's highlight is the system), and the bar says so ("⏎ Create")
    BINDINGS = [
        Binding("enter", "create", "Create", priority=True, id="picker.dialog.create"),
        Binding("escape", "cancel", "Cancel", id="picker.dialog.cancel"),
    ]

    def __init__(
        self,
        taken: Iterable[str],
        system: str | None = None,
        name: str = "",
        title: str = "New session",
        ask_system: bool = True,
    ) -> None:
        super().__init__()
        self.ask_system = ask_system
        self.taken = list(taken)
        self.systems = system_ids()
        self.system = system if system in self.systems else self.systems[0]
        self.initial_name = name
        self.dialog_title = title

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Content(self.dialog_title)  # a session's name: text, never markup
            yield Input(self.initial_name, placeholder="name, e.g. Tuesday campaign", id="new-name")
            yield Static("", id="new-error")
            if self.ask_system:
                yield Label(self.system_line(self.system), id="new-system-label", classes="picker-label")
                yield OptionList(*[Option(system_label(s), id=s) for s in self.systems], id="new-system")
            yield Static(self.hint_text(), classes="picker-hint", id="new-hint")

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The key bar names Enter as the hint line does: "Copy" for a duplicate."""
        active = super().active_bindings
        shown = active.get("enter")
        if not self.ask_system and shown is not None and shown.binding.id == "picker.dialog.create":
            copy = dataclasses.replace(shown.binding, description="Copy")
            active["enter"] = ActiveBinding(shown.node, copy, shown.enabled, shown.tooltip)
        return active

    def hint_text(self) -> str:
        """The hint line, for where the focus is: in the name, Tab goes to the
        systems; in the systems, ↑↓ pick one and Tab goes back to the name."""
        if not self.ask_system:
            return "Enter copy · Esc cancel"
        if isinstance(self.focused, OptionList):
            return "Enter create · ↑↓ system · Tab name · Esc cancel"
        return "Enter create · Tab systems · Esc cancel"

    def on_descendant_focus(self) -> None:
        if self.is_mounted:
            self.query_one("#new-hint", Static).update(self.hint_text())

    def on_mount(self) -> None:
        if self.ask_system:
            self.query_one("#new-system", OptionList).highlighted = self.systems.index(self.system)
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

    @staticmethod
    def system_line(system: str) -> str:
        """The line over the list that names the system Enter creates with, in words
        (the list's highlight, shown by colour alone, is lost without it)."""
        return f"System: {system_label(system)}"

    @on(OptionList.OptionHighlighted, "#new-system")
    def _system_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.query_one("#new-system-label", Label).update(self.system_line(self.chosen_system()))

    def chosen_system(self) -> str:
        if not self.ask_system:
            return self.system
        index = self.query_one("#new-system", OptionList).highlighted
        return self.systems[index] if index is not None else self.system

    def action_create(self) -> None:
        clean = self._check(self.query_one("#new-name", Input).value)
        if clean is None:
            self.query_one("#new-name", Input).focus()
            return
        self.dismiss((clean, self.chosen_system()))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExampleDialog(DialogScreen[tuple[Path, str] | None]):
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

    # Enter creates from the list (its highlight is the example) and from the name alike
    BINDINGS = [
        Binding("enter", "create", "Create", priority=True, id="picker.dialog.create"),
        Binding("escape", "cancel", "Cancel", id="picker.dialog.cancel"),
    ]

    def __init__(self, examples: Sequence[SessionSummary], taken: Iterable[str]) -> None:
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
                    *[Option(Content(f"{e.name}  ({e.system})"), id=str(i)) for i, e in enumerate(self.examples)],
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


def next_night_name(name: str, taken: Iterable[str]) -> str:
    """The name offered for the night after ``name``: its last number plus one
    ("Night 1" → "Night 2"), else "<name> 2"; never a name already taken."""
    import re

    from gmdesk.core.session.saves import clean_name

    clean = clean_name(name)
    found = re.fullmatch(r"(.*?)(\d+)", clean)
    base, n = (found.group(1), int(found.group(2)) + 1) if found else (clean + " ", 2)
    used = {clean_name(t).casefold() for t in taken}
    while f"{base}{n}".casefold() in used:
        n += 1
    return f"{base}{n}"


class NextNightDialog(DialogScreen[tuple[str, bool, list[str]] | None]):
    """The next night of a session: the new session's name, whether the party rests
    first (the system's recovery), and the non-player characters to take along.
    Returns ``(name, rest, npcs)``, or None on Escape.

    Enter starts it from any field, as the hint says; Tab moves to "rest" (Space
    ticks it), to the list of non-player characters (Space ticks one, ↑/↓ move) and
    to Start."""

    DEFAULT_CSS = """
    NextNightDialog { align: center middle; }
    NextNightDialog > Vertical {
        width: 64; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; padding: 0 1; background: $surface;
    }
    NextNightDialog .picker-label { padding-top: 1; }
    NextNightDialog #next-party { color: $text-muted; }
    NextNightDialog #next-rest { margin-top: 1; }
    NextNightDialog SelectionList { height: auto; max-height: 6; }
    NextNightDialog #next-error { color: $error; height: auto; min-height: 1; }
    NextNightDialog #next-start { margin-top: 1; }
    NextNightDialog Checkbox:focus > .toggle--label { text-style: reverse; }
    NextNightDialog Button:focus { text-style: reverse bold; }
    NextNightDialog .picker-hint { color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="picker.dialog.cancel"),
        # the boxes take Space only: Enter reaches the dialog from them
        Binding("enter", "create", "Start", show=False, id="picker.dialog.start"),
    ]

    def __init__(self, source: str, pcs: Sequence[str], npcs: Sequence[str], taken: Iterable[str]) -> None:
        super().__init__()
        self.source = source
        self.pcs = list(pcs)
        self.npcs = list(npcs)
        self.taken = list(taken)

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Content(f"Next night from {self.source}")
            party = ", ".join(self.pcs) if self.pcs else "no player characters"
            yield Static(f"Carries {party}, as they stand.", id="next-party")
            yield Label("Name", classes="picker-label")
            yield Input(next_night_name(self.source, self.taken), id="next-name", compact=True)
            yield Static("", id="next-error")
            yield EnterCheckbox("Rest first (the system's recovery between sessions)", id="next-rest", compact=True)
            if self.npcs:
                yield Label("Take along (Space ticks)", classes="picker-label")
                yield ReadableSelectionList(*[(Content(n), n) for n in self.npcs], id="next-npcs", compact=True)
            yield Button("Start the night", id="next-start", variant="primary", compact=True)
            yield Static("Enter start · Space tick · Tab next field · Esc cancel", classes="picker-hint")

    def on_mount(self) -> None:
        self.query_one("#next-name", Input).focus()
        self._check(self.query_one("#next-name", Input).value)

    def _check(self, name: str) -> str | None:
        try:
            clean = check_new_name(name, self.taken)
        except GmdeskError as e:
            self.query_one("#next-error", Static).update(f"✗ {e}")
            return None
        self.query_one("#next-error", Static).update("")
        return clean

    @on(Input.Changed, "#next-name")
    def _changed(self, event: Input.Changed) -> None:
        self._check(event.value)

    @on(Input.Submitted, "#next-name")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    @on(Button.Pressed, "#next-start")
    def _start(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_create()

    def chosen_npcs(self) -> list[str]:
        if not self.npcs:
            return []
        picked = set(self.query_one("#next-npcs", SelectionList).selected)
        return [n for n in self.npcs if n in picked]

    def action_create(self) -> None:
        clean = self._check(self.query_one("#next-name", Input).value)
        if clean is None:
            self.query_one("#next-name", Input).focus()
            return
        self.dismiss((clean, self.query_one("#next-rest", Checkbox).value, self.chosen_npcs()))

    def action_cancel(self) -> None:
        self.dismiss(None)
