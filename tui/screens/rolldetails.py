"""The full breakdown of one roll, opened from the roll log: who, when, every die,
the system's numbers, the descriptors and every change it made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from gmdesk.core.render import render_record
from gmdesk.tui.screens.dialog import DialogScreen
from gmdesk.tui.widgets.common import names_of, roll_name
from gmdesk.tui.widgets.rolllog import public_record, who_rolled

if TYPE_CHECKING:
    from gmdesk.core.session import RollEntry, State


class RollDetails(DialogScreen[None]):
    """The full breakdown of one roll: who, when, every die, the system's numbers, the
    descriptors and every change it made. ``y`` copies the roll's line."""

    BINDINGS = [
        Binding("escape,enter,q", "close", "Close", id="details.close"),
        Binding("y", "copy", "Copy", id="details.copy"),
    ]

    def __init__(self, entry: RollEntry, state: State, line: str, hide_secrets: bool = False) -> None:
        super().__init__(classes="dialog-screen")
        self.entry = entry
        self.state = state
        self.line = line
        self.hide_secrets = hide_secrets

    def compose(self) -> ComposeResult:
        e = self.entry
        record = public_record(e.record) if self.hide_secrets else e.record
        head = Text()
        head.append(f"#{e.seq} ", style="bold")
        names = names_of(self.state)
        head.append(who_rolled(e, names))
        kind = getattr(e, "kind", "roll")
        if kind != "roll":
            head.append(f"  ({kind})", style="dim")
        if getattr(e, "combat", False):
            head.append("  attack", style="bold")
        if e.round:
            head.append(f"  round {e.round}", style="dim")
        parts: list[RenderableType] = [head, render_record(record, hide_secrets=self.hide_secrets)]
        for who in getattr(e, "spends", ()) or ():
            parts.append(Text(f"Possibility spent by {roll_name(e, who, names, 'the roller')}"))
        for who in getattr(e, "cancels", ()) or ():
            parts.append(Text(f"Possibility cancelled by {roll_name(e, who, names)}"))
        if e.changes:
            parts.append(Text("Changes:", style="bold"))
            parts.extend(Text(f"  {c}") for c in e.changes)
        with Vertical(classes="dialog", id="details-dialog") as box:
            box.border_title = "Roll"
            with VerticalScroll(id="details-body"):
                yield Static(Group(*parts), id="details-text")
            yield Static("y copy · Esc close", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.line)
        self.notify("Roll copied to the clipboard", timeout=2)
