"""One field of a dialog's form, and the control that edits it.

A :class:`FormField` is layout data: the key the value is returned under, the label
the GM reads, the kind of control, the initial value and, for a choice, its
``(value, label)`` pairs. :func:`field_control` builds the control; the short forms
(:class:`tui.screens.confirm.FormDialog`) and the roll dialog
(:class:`tui.screens.roll.RollDialog`) both use it, so a text field, a choice and a
checkbox look and behave the same everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textual.widget import Widget
from textual.widgets import Select

from gmdesk.tui.widgets.controls import EnterCheckbox, SteadyInput


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


def field_control(f: FormField, widget_id: str, value: Any, *, check_classes: str = "form-check") -> Widget:
    """The control editing ``f``, showing ``value``: a checkbox for "bool", a dropdown
    of ``f.choices`` for "choice", a text input otherwise."""
    if f.kind == "bool":
        return EnterCheckbox(f.label, bool(value), id=widget_id, classes=check_classes)
    if f.kind == "choice":
        return choice_control(f.choices, value, widget_id)
    return SteadyInput(str(value), placeholder=f.placeholder, id=widget_id, classes="form-input")


def choice_control(choices: Sequence[tuple[Any, str]], value: Any, widget_id: str) -> Select[Any]:
    """A dropdown of ``(value, label)`` pairs that always holds one of them."""
    return Select(
        [(label, v) for v, label in choices], value=value, allow_blank=False, id=widget_id, classes="form-input"
    )


__all__ = ["FormField", "field_control", "choice_control"]
