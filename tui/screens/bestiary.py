""" "Add from bestiary": numbered copies of a stat block of the saves directory's
bestiary join the session and its encounter.

The dialog reads the stat blocks of the session's system once, in the desk's session
runner (the bestiary is a file; writing the starter bestiary first when the saves
directory has none, as ``gmdesk char SAVE add-from`` does), then filters them as the
GM types: every word typed is found in the name or in a tag (case-insensitive). Enter
(in the search, the count or on the list) adds ``Count`` copies of the highlighted
stat block, "Hidden from the players" if checked, "One group" (two copies or more)
as one initiative group, "Players see" what the players see of each copy (by side
unless chosen): one ``characters.add`` event (each initiative roll logged;
a group's one roll), so one undo takes them all back. A damaged bestiary
shows its one-line error and nothing is written; an empty one (or none for the
session's system) says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Checkbox, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Session
from gmdesk.core.session.model import VISIBILITY_WORDS
from gmdesk.core.systems import character_sections
from gmdesk.tui.screens.dialog import Dialog, DialogHint
from gmdesk.tui.widgets.controls import EnterCheckbox, SteadyInput
from gmdesk.tui.widgets.form import VISIBILITY_FIELD, field_control

#: the most rows the list holds at once (type more to narrow a large bestiary)
SHOWN = 200
#: the widths of the list's columns
NAME_WIDTH = 24
TAGS_WIDTH = 24


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def row_text(doc: Mapping[str, Any], picked: bool = False, *, vitality: bool = True) -> str:
    """One stat block as a row of the list: name, side, Vitality (in a system that
    tracks it: "Vitality 0" meant nothing in one that does not), tags; the picked one
    marked (it reads without colour)."""
    name = clip(str(doc.get("name", "")), NAME_WIDTH)
    side = str(doc.get("side", "NPC"))
    tags = clip(", ".join(str(t) for t in doc.get("tags") or ()), TAGS_WIDTH)
    mark = "▸" if picked else " "
    vitality_cell = f"Vitality {doc.get('vitality', 0)!s:>3}  " if vitality else ""
    return f"{mark}{name:<{NAME_WIDTH}} {side:<3}  {vitality_cell}{tags}".rstrip()


def matches(doc: Mapping[str, Any], words: Sequence[str]) -> bool:
    """Every word (casefolded) is in the stat block's name or in one of its tags."""
    name = str(doc.get("name", "")).casefold()
    tags = [str(t).casefold() for t in doc.get("tags") or ()]
    return all(w in name or any(w in t for t in tags) for w in words)


class Loaded:
    """What the bestiary holds for the session's system (read in the runner)."""

    def __init__(self, docs: list[dict[str, Any]], path: Path, started: int | None, total: int) -> None:
        self.docs = docs
        self.path = path
        self.started = started  # the starter bestiary was written now, with this many
        self.total = total  # stat blocks of every system


def load(saves_dir: Path, system: str) -> Loaded:
    """The stat blocks of ``system``, by name (the starter bestiary written first if
    the saves directory has none). In the runner's worker: it reads a file."""
    from gmdesk.core.campaign.bestiary import Bestiary

    b = Bestiary(saves_dir)
    started = b.ensure_starter()
    db = b.db()
    docs = sorted(db.search(system), key=lambda d: str(d.get("name", "")).casefold())
    return Loaded(docs, b.path, started, len(db.search()))


class BestiaryDialog(Dialog[Any]):
    """See the module docstring. ``system`` is the session's system, ``system_name``
    what the GM calls it; returns the ``characters.add`` event once it is applied."""

    BINDINGS = [
        Binding("down", "cursor(1)", "Next stat block", show=False, id="bestiary.next"),
        Binding("up", "cursor(-1)", "Previous stat block", show=False, id="bestiary.previous"),
    ]

    def __init__(self, saves_dir: Path, system: str, system_name: str, *, rng: Any = None, search: str = "") -> None:
        super().__init__()
        self.saves_dir = Path(saves_dir)
        self.system = system
        self.system_name = system_name
        self.rng = rng
        self.initial_search = search
        self.loaded: Loaded | None = None
        self.load_error = ""
        self.shown: list[dict[str, Any]] = []
        self.marked: int | None = None  # the row drawn with the mark
        self.labels = {"count": "Count", "--count": "Count"}
        self.seen_default = VISIBILITY_FIELD.choices[0][1]  # how "Players see" names its default
        self.tracks_vitality = "vitality" in character_sections(system)

    def row_text(self, doc: Mapping[str, Any], picked: bool = False) -> str:
        """The list shows Vitality where the system tracks it or a stat block has some
        (as the character pane does)."""
        docs = self.loaded.docs if self.loaded is not None else ()
        vitality = self.tracks_vitality or any(d.get("vitality") for d in docs)
        return row_text(doc, picked, vitality=vitality)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="bestiary-dialog") as box:
            box.border_title = "Add from bestiary"
            with Horizontal(classes="form-row"):
                yield Label("Search", classes="form-label")
                yield SteadyInput(
                    self.initial_search,
                    placeholder="part of a name or a tag",
                    id="bestiary-search",
                    classes="form-input",
                )
            yield OptionList(id="bestiary-list")
            yield Static("Reading the bestiary…", id="bestiary-status")
            with Horizontal(classes="form-row"):
                yield Label("Count", classes="form-label")
                yield SteadyInput("1", restrict=r"[0-9]*", max_length=3, id="bestiary-count", classes="form-input")
                yield EnterCheckbox("Hidden from the players", id="bestiary-hidden", classes="form-check")
                yield EnterCheckbox("One group", id="bestiary-group", classes="form-check")
            with Horizontal(classes="form-row"):
                yield Label(VISIBILITY_FIELD.label, classes="form-label", id="bestiary-visibility-label")
                yield field_control(VISIBILITY_FIELD, "bestiary-visibility", VISIBILITY_FIELD.value)
            yield Static("", id="dialog-error", classes="inline-error")
            yield DialogHint("add")

    def on_mount(self) -> None:
        self.query_one("#bestiary-search", Input).focus()
        desk = self._desk()
        if desk is None:  # pragma: no cover - the desk opens this dialog
            self._failed("no session is open")
            return
        saves_dir, system = self.saves_dir, self.system
        desk.runner.run(lambda: load(saves_dir, system), self._loaded, self._failed, owner=self)

    def _desk(self) -> Any:
        return next((s for s in reversed(self.app.screen_stack) if s is not self and hasattr(s, "runner")), None)

    # -- the list ---------------------------------------------------------------------------------

    def _loaded(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.refilter()

    def _failed(self, message: str) -> None:
        self.load_error = message
        self.query_one("#bestiary-status", Static).update("")
        self.show_error(message)

    @on(Input.Changed, "#bestiary-search")
    def search_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refilter()

    def refilter(self) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        words = self.query_one("#bestiary-search", Input).value.casefold().split()
        found = [d for d in loaded.docs if matches(d, words)] if words else list(loaded.docs)
        self.shown = found[:SHOWN]
        options = self.query_one("#bestiary-list", OptionList)
        options.clear_options()
        self.marked = None
        options.add_options([Option(Content(self.row_text(d))) for d in self.shown])
        if self.shown:
            options.highlighted = 0
            self.mark(0)
        self.query_one("#bestiary-status", Static).update(self.status_text(found))

    def status_text(self, found: list[dict[str, Any]]) -> str:
        loaded = self.loaded
        assert loaded is not None
        name = self.system_name
        lines = []
        if loaded.started is not None:
            lines.append(f"Started the bestiary with gmdesk's {loaded.started} starter stat blocks.")
        if not loaded.docs:
            where = "The bestiary is empty" if not loaded.total else f"The bestiary has no stat blocks for {name}"
            lines.append(f"{where}: gmdesk bestiary add (or bestiary save, from a session) fills it.")
        elif not found:
            lines.append(f"No stat block of {name} matches: {len(loaded.docs)} in all.")
        else:
            more = f" ({len(self.shown)} listed: type more to narrow)" if len(found) > len(self.shown) else ""
            lines.append(f"{len(found)} of {len(loaded.docs)} stat blocks of {name}{more}")
        return "\n".join(lines)

    @on(OptionList.OptionHighlighted, "#bestiary-list")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.mark(event.option_index)

    def mark(self, index: int | None) -> None:
        """Draw the mark on row ``index`` (the stat block Enter adds), off the one before."""
        if index == self.marked:
            return
        options = self.query_one("#bestiary-list", OptionList)
        if self.marked is not None and self.marked < len(self.shown):
            options.replace_option_prompt_at_index(self.marked, Content(self.row_text(self.shown[self.marked])))
        self.marked = None
        if index is not None and 0 <= index < len(self.shown):
            options.replace_option_prompt_at_index(index, Content(self.row_text(self.shown[index], picked=True)))
            self.marked = index
            self.default_seen(self.shown[index])

    def default_seen(self, doc: Mapping[str, Any]) -> None:
        """ "Players see", left at its default, names what the copies of ``doc`` get: by
        side, or the stat block's own level ("name only (stat block)")."""
        seen = self.query_one("#bestiary-visibility", Select)
        if seen.value != VISIBILITY_FIELD.value:
            return  # the GM's choice stands
        own = doc.get("visibility")
        first = f"{VISIBILITY_WORDS[own]} (stat block)" if own in VISIBILITY_WORDS else VISIBILITY_FIELD.choices[0][1]
        if first != self.seen_default:
            self.seen_default = first
            levels = [(label, v) for v, label in VISIBILITY_FIELD.choices[1:]]
            with seen.prevent(Select.Changed):
                seen.set_options([(first, VISIBILITY_FIELD.value), *levels])
                # the value is the same: step off it and back so that the control redraws it
                seen.value = levels[0][1]
                seen.value = VISIBILITY_FIELD.value

    def action_cursor(self, step: int) -> None:
        options = self.query_one("#bestiary-list", OptionList)
        if not self.shown:
            return
        here = options.highlighted if options.highlighted is not None else -step
        options.highlighted = max(0, min(len(self.shown) - 1, here + step))

    # -- adding -----------------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#bestiary-list")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_submit()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def picked(self) -> dict[str, Any] | None:
        index = self.query_one("#bestiary-list", OptionList).highlighted
        if index is None or not 0 <= index < len(self.shown):
            return None
        return self.shown[index]

    def action_submit(self) -> None:
        from gmdesk.core.campaign.copies import MAX_COPIES
        from gmdesk.core.systems.base import parse_int

        if self.loaded is None:
            if self.load_error:
                self.show_error(self.load_error)
            return
        doc = self.picked()
        if doc is None:
            self.show_error("no stat block to add: type part of its name, or pick one in the list")
            return
        try:
            count = parse_int("count", self.query_one("#bestiary-count", Input).value, 1, MAX_COPIES)
        except GmdeskError as e:
            self.show_error(e)
            return
        hidden = self.query_one("#bestiary-hidden", Checkbox).value
        group = self.query_one("#bestiary-group", Checkbox).value
        seen = self.query_one("#bestiary-visibility", Select).value
        visibility = seen if isinstance(seen, str) and seen else None  # "by side": None
        if group and count < 2:
            self.show_error("Count: one group is two copies or more")
            return
        self.clear_error()
        self.commit(add_call(self.loaded.path, doc, count, hidden, self.rng, group, visibility))


def add_call(
    path: Path,
    doc: Mapping[str, Any],
    count: int,
    hidden: bool,
    rng: Any,
    group: bool = False,
    visibility: str | None = None,
) -> Any:
    """The session call adding ``count`` copies of the stat block ``doc`` (read from the
    bestiary at ``path``), each seen by the players as ``visibility`` says (None: by
    its side); it returns the applied event."""

    def fn(session: Session) -> Any:
        from gmdesk.core.campaign.bestiary import block_from_doc
        from gmdesk.core.campaign.copies import add_from_event

        block = block_from_doc(path, doc)
        event = add_from_event(session, block, count, rng, hidden=hidden, group=group, visibility=visibility)
        return session.apply_placing(event, rng)

    return fn
