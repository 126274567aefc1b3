"""Small controls shared by the dialogs and panes."""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.style import Style
from textual.widgets import Checkbox, Input


class EnterCheckbox(Checkbox, inherit_bindings=False):
    """A checkbox toggled by Space only, so Enter always confirms the dialog. It shows
    ``[x]`` / ``[ ]`` so that its state reads without colour."""

    BINDINGS = [Binding("space", "toggle_button", "Toggle", show=False, id="checkbox.toggle")]

    @property
    def _button(self) -> Content:
        return Content.assemble(("[x]" if self.value else "[ ]", self.get_visual_style("toggle--button")))

    def render(self) -> Content:
        """The label, in reverse video when the stylesheet asks for it (gmdesk.tcss: the
        focused checkbox), which Textual's visual styles otherwise leave out."""
        label_style = self.get_visual_style("toggle--label")
        if self.get_component_styles("toggle--label").text_style.reverse:
            label_style = label_style + Style(reverse=True)
        label = self._label.pad(1, 1).stylize_before(label_style)
        return Content.assemble(self._button, label) if self._button_first else Content.assemble(label, self._button)


class SteadyInput(Input):
    """An Input whose cursor blinks only if the app's ``CURSOR_BLINK`` says so (gmdesk:
    a steady cursor, which also keeps snapshots deterministic)."""

    def on_mount(self) -> None:
        if not getattr(self.app, "CURSOR_BLINK", True):
            self.cursor_blink = False
