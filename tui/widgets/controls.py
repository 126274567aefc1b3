"""Small controls shared by the dialogs and panes."""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.widgets import Checkbox, Input


class EnterCheckbox(Checkbox, inherit_bindings=False):
    """A checkbox toggled by Space only, so Enter always confirms the dialog. It shows
    ``[x]`` / ``[ ]`` so that its state reads without colour."""

    BINDINGS = [Binding("space", "toggle_button", "Toggle", show=False, id="checkbox.toggle")]

    @property
    def _button(self) -> Content:
        return Content.assemble(("[x]" if self.value else "[ ]", self.get_visual_style("toggle--button")))


class SteadyInput(Input):
    """An Input whose cursor blinks only if the app's ``CURSOR_BLINK`` says so (gmdesk:
    a steady cursor, which also keeps snapshots deterministic)."""

    def on_mount(self) -> None:
        if not getattr(self.app, "CURSOR_BLINK", True):
            self.cursor_blink = False
