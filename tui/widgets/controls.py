"""Small controls shared by the dialogs and panes.

Textual's checkboxes and selection lists draw the same ``X`` whether ticked or not
(only its colour changes); gmdesk's show ``[x]`` / ``[ ]`` so that a state reads
without colour (a monochrome terminal, a screen reader, a screenshot).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from textual.binding import Binding
from textual.content import Content, ContentText
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.widgets import Checkbox, Input, Select, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

#: a box as gmdesk shows it, ticked and not
TICKED, UNTICKED = "[x]", "[ ]"


def tick(on: bool) -> str:
    return TICKED if on else UNTICKED


class ReadableCheckbox(Checkbox):
    """A checkbox that shows ``[x]`` / ``[ ]`` (its keys are Textual's: Enter or Space
    toggles it)."""

    def __init__(self, label: ContentText = "", value: bool = False, button_first: bool = True, **kw: Any) -> None:
        super().__init__(label, value, button_first, **kw)
        self.box_first = button_first

    @property
    def box(self) -> Content:
        """The box, reflecting the current value, in the button's style."""
        return Content.assemble((tick(self.value), self.get_visual_style("toggle--button")))

    def render(self) -> Content:
        """The box and the label, in reverse video when the stylesheet asks for it
        (gmdesk.tcss: the focused checkbox), which Textual's visual styles otherwise
        leave out."""
        label_style = self.get_visual_style("toggle--label")
        if self.get_component_styles("toggle--label").text_style.reverse:
            label_style = label_style + Style(reverse=True)
        label = self.label.pad(1, 1).stylize_before(label_style)
        return Content.assemble(self.box, label) if self.box_first else Content.assemble(label, self.box)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        label = self.label
        return len(TICKED) + (2 if label else 0) + label.cell_length


class EnterCheckbox(ReadableCheckbox, inherit_bindings=False):
    """A checkbox toggled by Space only, so Enter always confirms the dialog. It shows
    ``[x]`` / ``[ ]`` so that its state reads without colour. ↓ / ↑ move to the next /
    previous field, as Tab and shift+Tab do: a column of boxes (who joins a group)
    reads as a list, and the arrows go down it."""

    BINDINGS = [
        Binding("space", "toggle_button", "Toggle", show=False, id="checkbox.toggle"),
        Binding("down", "app.focus_next", "Next field", show=False, id="checkbox.next"),
        Binding("up", "app.focus_previous", "Previous field", show=False, id="checkbox.previous"),
    ]


class ReadableSelectionList(SelectionList[Any], inherit_bindings=False):
    """A list of boxes that show ``[x]`` / ``[ ]`` (one line per option): Space ticks
    the highlighted one, ↑/↓ move, and Enter is left to the dialog (it starts or
    accepts, as on a checkbox)."""

    BINDINGS = [
        Binding("space", "select", "Tick", show=False, id="list.tick"),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("pagedown", "page_down", "Page Down", show=False),
        Binding("pageup", "page_up", "Page Up", show=False),
    ]

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return line
        segments = list(line)
        if len(segments) < 3 or line.cell_length < len(TICKED):
            return line
        style = segments[1].style  # the box's middle, in the style Textual gives it
        box = Strip([Segment(tick(selection.value in self.selected), style)], len(TICKED))
        return Strip.join([box, line.crop(len(TICKED))])


class StepSelect(Select[Any]):
    """A dropdown as Textual draws it — Enter, Space or ↓ opens its list — whose ←/→
    also step to the previous / next value in place, list closed."""

    BINDINGS = [
        Binding("left", "step(-1)", "Previous value", show=False, id="choice.previous"),
        Binding("right", "step(1)", "Next value", show=False, id="choice.next"),
    ]

    def __init__(self, options: Iterable[tuple[Any, Any]], **kwargs: Any) -> None:
        options = list(options)
        self._step_values = [v for _, v in options]  # (Select keeps its options to itself)
        super().__init__(options, **kwargs)

    def set_options(self, options: Iterable[tuple[Any, Any]]) -> None:
        options = list(options)
        self._step_values = [v for _, v in options]
        super().set_options(options)

    def action_step(self, delta: int) -> None:
        values = self._step_values
        if not values or self.expanded:
            return
        at = values.index(self.value) if self.value in values else (-1 if delta > 0 else len(values))
        self.value = values[max(0, min(len(values) - 1, at + delta))]


class SteadyInput(Input):
    """An Input whose cursor blinks only if the app's ``CURSOR_BLINK`` says so (gmdesk:
    a steady cursor, which also keeps snapshots deterministic)."""

    def on_mount(self) -> None:
        if not getattr(self.app, "CURSOR_BLINK", True):
            self.cursor_blink = False
