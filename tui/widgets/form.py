"""One field of a dialog's form, and the control that edits it.

A :class:`FormField` is layout data: the key the value is returned under, the label
the GM reads, the kind of control, the initial value and, for a choice, its
``(value, label)`` pairs. :func:`field_control` builds the control; the short forms
(:class:`tui.screens.confirm.FormDialog`) and the roll dialog
(:class:`tui.screens.roll.RollDialog`) both use it, so a text field, a choice and a
checkbox look and behave the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events, on
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Select
from textual.widgets.option_list import Option

from gmdesk.core.session.model import VISIBILITY_LEVELS, VISIBILITY_WORDS
from gmdesk.tui.widgets.controls import EnterCheckbox, SteadyInput, StepSelect
from gmdesk.tui.widgets.initiative import fit_name


@dataclass(frozen=True)
class FormField:
    """One field. ``kind``: "text" (typed), "choice" (one of ``choices``, ``(value,
    label)`` pairs) or "bool" (a checkbox). ``value`` is the initial value (the roll
    dialog generates its fields from the system's declared parameters:
    :mod:`tui.screens.rollforms`)."""

    key: str
    label: str
    kind: str = "text"
    value: Any = ""
    choices: Sequence[tuple[Any, str]] = ()
    placeholder: str = ""
    same_row: bool = False  # placed beside the previous field (e.g. "modifier | or value")


#: what the players see of a character being added (the new-character dialog, "Add
#: from bestiary"): "by side" (the value ``""``: its side's default, as
#: ``gmdesk char SAVE add`` without ``--visibility``) or one of the levels
VISIBILITY_FIELD = FormField(
    "visibility",
    "Players see",
    "choice",
    "",
    (("", "by side"), *((level, VISIBILITY_WORDS[level]) for level in VISIBILITY_LEVELS)),
)


def field_control(f: FormField, widget_id: str, value: Any, *, check_classes: str = "form-check") -> Widget:
    """The control editing ``f``, showing ``value``: a checkbox for "bool", a dropdown
    of ``f.choices`` for "choice", a text input otherwise."""
    if f.kind == "bool":
        return EnterCheckbox(Content(f.label), bool(value), id=widget_id, classes=check_classes)  # a name: text
    if f.kind == "choice":
        return choice_control(f.choices, value, widget_id)
    return SteadyInput(str(value), placeholder=f.placeholder, id=widget_id, classes="form-input")


def choice_control(choices: Sequence[tuple[Any, str]], value: Any, widget_id: str) -> Select[Any]:
    """A dropdown of ``(value, label)`` pairs that always holds one of them."""
    return StepSelect(
        [(label, v) for v, label in choices], value=value, allow_blank=False, id=widget_id, classes="form-input"
    )


class ChoiceList(OptionList):
    """The open list of a :class:`Choice`: Enter picks, Escape closes it (the choice
    keeps its value), and so does leaving it."""

    BINDINGS = [Binding("escape", "close", "Close the list", show=False)]

    def action_close(self) -> None:
        choice = self.parent
        if isinstance(choice, Choice):
            choice.close(refocus=True)

    def on_blur(self, event: events.Blur) -> None:
        choice = self.parent
        if isinstance(choice, Choice):
            choice.close(refocus=False)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = self.parent
        if isinstance(choice, Choice):
            choice.pick(event.option_index)

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()


class Choice(Widget, can_focus=True):
    """One of a few values, on one line: a light dropdown for a form that must open
    at once (the roll dialog). It reads like a ``Select`` and is driven the same way
    (:class:`tui.widgets.controls.StepSelect`) — Enter, Space, ↓ or ↑ opens the list,
    Enter picks in it, Escape closes it, ←/→ step to the previous / next value in
    place — but it is one widget, its list made only when opened. ``options`` are ``(label, value)`` pairs
    as a ``Select`` takes them; ``value`` is always one of them; a change posts
    :class:`Choice.Changed`."""

    BINDINGS = [
        Binding("enter,space,down,up", "show_overlay", "Open the list", show=False, id="choice.open"),
        Binding("left", "step(-1)", "Previous value", show=False, id="choice.previous"),
        Binding("right", "step(1)", "Next value", show=False, id="choice.next"),
    ]

    DEFAULT_CSS = """
    Choice {
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $boost;
    }
    Choice:focus {
        background: $accent 30%;
    }
    Choice > ChoiceList {
        overlay: screen;
        constrain: none inside;
        height: auto;
        max-height: 12;
        width: 100%;
        border: round $accent;
    }
    """

    class Changed(Message):
        """The choice's value changed."""

        def __init__(self, choice: Choice, value: Any) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> Choice:
            return self.choice

    def __init__(
        self,
        options: Iterable[tuple[Any, Any]],
        value: Any = None,
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._options: list[tuple[str, Any]] = [(str(label), v) for label, v in options]
        if not self._options:
            raise ValueError("a choice needs its options")
        values = [v for _, v in self._options]
        self._value = value if value in values else values[0]

    # -- value and options ---------------------------------------------------------------

    @property
    def labels(self) -> list[str]:
        """What the list offers, in order."""
        return [label for label, _ in self._options]

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        if value not in [v for _, v in self._options]:
            raise ValueError(f"{value!r} is not one of the choices")
        if value != self._value:
            self._value = value
            self.refresh()
            self.post_message(self.Changed(self, value))

    def set_options(self, options: Iterable[tuple[Any, Any]]) -> None:
        """New ``(label, value)`` options; the value becomes the first one (as a
        ``Select``'s does)."""
        self._options = [(str(label), v) for label, v in options]
        if not self._options:
            raise ValueError("a choice needs its options")
        self.close(refocus=False)
        self._value = None
        self.value = self._options[0][1]

    @property
    def expanded(self) -> bool:
        """Whether its list is open."""
        return bool(self.query_children(ChoiceList))

    # -- drawing and the list ------------------------------------------------------------------

    def render(self) -> Text:
        label = next((label for label, v in self._options if v == self._value), "")
        width = max(self.content_size.width, 2)
        # a value longer than the box is cut with "…" (as a name in the order: "Bandit Ca…")
        text = Text(fit_name(label, max(width - 2, 1)), no_wrap=True)
        text.pad_right(max(width - 1 - text.cell_len, 1))
        text.append("▼")
        return text

    def action_show_overlay(self) -> None:
        if self.expanded:
            return
        options = ChoiceList(*[Option(Content(label)) for label, _ in self._options])
        index = next((i for i, (_, v) in enumerate(self._options) if v == self._value), 0)
        self.mount(options)
        options.highlighted = index
        options.focus()

    def action_step(self, delta: int) -> None:
        """The previous (``delta`` −1) or next value, the list closed; none past the ends."""
        if self.expanded:
            return
        values = [v for _, v in self._options]
        at = values.index(self._value) if self._value in values else 0
        self.value = values[max(0, min(len(values) - 1, at + delta))]

    def pick(self, index: int) -> None:
        """The list's option ``index`` picked: the value, the list closed."""
        if 0 <= index < len(self._options):
            self.value = self._options[index][1]
        self.close(refocus=True)

    def close(self, *, refocus: bool) -> None:
        for options in self.query_children(ChoiceList):
            options.remove()
        if refocus:
            self.focus()


__all__ = ["VISIBILITY_FIELD", "Choice", "ChoiceList", "FormField", "field_control", "choice_control"]
