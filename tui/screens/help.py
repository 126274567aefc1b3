"""The help screen (``?``): every key of the screen it was opened from, as currently
bound (so a remapped key shows its new key), grouped, plus where the rest lives.

It fits any terminal from 80×24 up: the keys scroll inside the dialog (↑ ↓, Page
Up/Down, Home/End) while the title and the hint line stay on screen. The main
screen's help adds the keys of its panes; the picker's shows the picker's own."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from gmdesk.tui.screens.dialog import DialogScreen

PALETTE_INTRO = "Everything is also in the command palette (ctrl+p): type a few letters of a move."

INTRO = PALETTE_INTRO + "\nTab moves between the initiative list, the character pane and the roll log."

#: the keys of the main screen's panes; the part of a character a key needs, if any
#: (a key is listed only for a system whose characters have that part)
PANE_KEYS_BY_SECTION: Sequence[tuple[str, str, str]] = (
    ("Initiative list", "", ""),
    ("enter", "open a group's row to its members, or close it", ""),
    ("home / end", "the first / last row (in each pane)", ""),
    ("Character pane", "", ""),
    ("enter / e", "edit the row (or toggle a source, or add on a '+ add' row)", ""),
    ("space", "switch a source on / off", ""),
    ("delete / x", "remove a source, a condition or a wound (free)", ""),
    ("b", "buy off the wound under the cursor (spends a Possibility)", "possibilities"),
    ("s", "spend one use of the sheet row under the cursor", "sheet"),
    ("s / S", "spend / give back one use of the counter under the cursor", ""),
    ("Roll log", "", ""),
    ("enter", "the roll's full breakdown", ""),
    ("y", "copy the roll's line (OSC 52 clipboard)", ""),
)


def pane_keys(sections: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """The panes' keys for a session whose system uses these parts of a character
    (None: every key)."""
    wanted = None if sections is None else set(sections)
    return [(key, what) for key, what, part in PANE_KEYS_BY_SECTION if not part or wanted is None or part in wanted]


PANE_KEYS: Sequence[tuple[str, str]] = tuple(pane_keys())


class HelpScreen(DialogScreen[None]):
    """Keys: ``keys`` is a list of (key display, description) of the calling screen;
    ``intro`` the lines above them; ``panes`` the keys of the screen's panes (section
    titles have an empty description)."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]

    #: the help takes the screen's height up to 44 rows (gmdesk.tcss): below that, it
    #: covers the key bar's row, and keeps it
    KEY_BAR_ABOVE = 45

    def __init__(
        self,
        keys: Sequence[tuple[str, str]],
        *,
        intro: str = INTRO,
        panes: Sequence[tuple[str, str]] = PANE_KEYS,
        settings: Sequence[tuple[str, str, str]] | None = None,
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.keys = list(keys)
        self.intro = intro
        self.panes = list(panes)
        #: the open session's settings: (label, value, help)
        self.settings = list(settings or ())

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=False, pad_edge=False, expand=True)
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("what")
        for key, what in self.keys:
            table.add_row(key, what)
        panes = Table(box=None, show_header=False, pad_edge=False, expand=True)
        panes.add_column("key", style="bold", no_wrap=True)
        panes.add_column("what")
        for key, what in self.panes:
            if what:
                panes.add_row(key, what)
            else:
                panes.add_row(Text(key, style="bold underline"), "")
        with Vertical(classes="dialog", id="help-dialog") as box:
            box.border_title = "Keys"
            with VerticalScroll(id="help-body"):
                yield Static(self.intro, classes="dialog-text")
                if self.settings:
                    yield Static(self._settings_table(), id="help-settings")
                yield Static(table, id="help-keys")
                if self.panes:
                    yield Static(panes, id="help-panes")
            yield Static("↑↓ PgUp PgDn Home End scroll · Esc close", classes="dialog-hint")

    def _settings_table(self) -> Table:
        table = Table(box=None, show_header=False, pad_edge=False, expand=True)
        table.add_column("setting", no_wrap=True)
        table.add_column("value", style="bold", no_wrap=True)
        table.add_column("what")
        table.add_row(Text("Session settings", style="bold underline"), "", "(palette: Session settings…)")
        for label, value, what in self.settings:
            table.add_row(label, value, what)
        return table

    def action_close(self) -> None:
        self.dismiss(None)
