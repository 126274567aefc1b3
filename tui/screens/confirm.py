"""Small modal dialogs: a yes/no confirmation, a one-line input, a choice list and a
short form. They hold no rules: a ``validate`` callback (usually a core call that
raises ``GmdeskError``) decides whether the value is acceptable; its message is shown
inline, naming the field by its label, and the dialog stays open, so a bad value
changes nothing. With ``commit`` (input and form dialogs) the dialog makes the
session call itself and closes only once the session accepted it: a refusal (a name
already taken, a clock that does not exist…) shows inline and nothing typed is lost.

Enter confirms from any field, Escape cancels (cancelling is never destructive); see
:mod:`tui.screens.dialog`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.tui.screens.dialog import Dialog, DialogHint, keys_text
from gmdesk.tui.widgets.controls import SteadyInput
from gmdesk.tui.widgets.form import FormField, field_control

if TYPE_CHECKING:
    from gmdesk.core.session import Session

#: ``commit``: the values typed → the session call that applies them (run by the desk)
Commit = Callable[[Any], Callable[["Session"], Any]]


class ConfirmDialog(Dialog[bool]):
    """Ask a yes/no question; ``True`` when confirmed (Enter on the focused yes, or ``y``).

    ``undoable=False`` (what is asked cannot be undone, as deleting a session): the
    dialog opens on its no, so an Enter typed ahead, or out of habit, keeps what the
    GM has; ``y`` or Tab then Enter still confirm."""

    BINDINGS = [
        Binding("y", "confirm", "Yes", show=False, id="dialog.yes"),
        Binding("n", "cancel", "No", show=False, id="dialog.no"),
    ]

    def __init__(
        self, question: str, *, yes: str = "Yes", no: str = "No", title: str = "Confirm", undoable: bool = True
    ) -> None:
        super().__init__()
        self.question = question
        self.undoable = undoable
        self.yes_label = yes
        self.no_label = no
        self.dialog_title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm-dialog") as box:
            box.border_title = Content(self.dialog_title)
            yield Static(self.question, classes="dialog-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes_label} (y)", id="yes", variant="primary")
                yield Button(f"{self.no_label} (n)", id="no")
            yield DialogHint(
                extra=f"{keys_text(self, 'confirm', shown_only=False)} {self.yes_label.lower()} · "
                f"{keys_text(self, 'cancel', exclude=('escape',), shown_only=False)} "
                f"{self.no_label.lower()}"
            )

    def on_mount(self) -> None:
        self.query_one("#yes" if self.undoable else "#no", Button).focus()

    @on(Button.Pressed, "#yes")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_submit(self) -> None:
        self.action_confirm()


class InputDialog(Dialog[Any]):
    """Ask for one line of text. ``validate(text)`` may raise ``GmdeskError``/``ValueError``:
    its message is shown under the input and the dialog stays open. Returns the text,
    or with ``commit(text)`` (a session call) that call's result once it succeeded."""

    def __init__(
        self,
        prompt: str,
        value: str = "",
        *,
        placeholder: str = "",
        title: str = "",
        validate: Callable[[str], Any] | None = None,
        commit: Commit | None = None,
        label: str = "",
        verb: str = "accept",
    ) -> None:
        super().__init__()
        self.commit_fn = commit
        self.verb = verb
        self.labels = {"text": label} if label else {}
        self.prompt = prompt
        self.value = value
        self.placeholder = placeholder
        self.dialog_title = title
        self.validate = validate

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="input-dialog") as box:
            box.border_title = Content(self.dialog_title or "Input")
            # wrapped inside the box (a Label stays one line, cut at its edge), as typed
            yield Static(Content(self.prompt), classes="dialog-text")
            yield SteadyInput(self.value, placeholder=self.placeholder, id="dialog-input")
            yield Static("", id="dialog-error", classes="inline-error")
            yield DialogHint(self.verb)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        text = self.query_one("#dialog-input", Input).value
        if self.validate is not None:
            try:
                self.validate(text)
            except (GmdeskError, ValueError) as e:
                labels = dict(self.labels)
                if isinstance(e, ParamError) and "text" in labels:
                    # the dialog's one field, by its label, whatever the check calls the value
                    labels[e.option] = labels["text"]
                self.show_error(e, labels)
                return
        if self.commit_fn is not None:
            self.commit(self.commit_fn(text))
            return
        self.dismiss(text)


class ChoiceDialog(Dialog[Any]):
    """Pick one of ``choices`` (``(value, label)`` pairs); the value, or None on Escape."""

    def __init__(
        self, prompt: str, choices: Sequence[tuple[Any, str]], *, title: str = "", selected: Any = None
    ) -> None:
        super().__init__()
        self.prompt = prompt
        self.choices = list(choices)
        self.dialog_title = title
        self.selected = selected

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="choice-dialog") as box:
            box.border_title = Content(self.dialog_title or "Choose")
            # wrapped inside the box (a Label stays one line, cut at its edge), as typed
            yield Static(Content(self.prompt), classes="dialog-text")
            yield OptionList(
                *[Option(Content(label), id=str(i)) for i, (_, label) in enumerate(self.choices)], id="dialog-options"
            )
            yield DialogHint("choose")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        for i, (value, _) in enumerate(self.choices):
            if value == self.selected:
                options.highlighted = i
                break
        else:
            if self.choices:
                options.highlighted = 0

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[int(event.option.id or 0)][0])

    def action_submit(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None:
            self.dismiss(self.choices[index][0])


#: the most columns a form's labels take (a longer label wraps, its field keeps room)
LABEL_MOST = 30


class FormDialog(Dialog[Any]):
    """A few labelled fields. On Enter (from any field), ``validate(values)`` may raise
    ``GmdeskError`` (or ValueError): the message shows inline with the field's label,
    nothing is returned. Otherwise the dialog returns ``{key: value}`` (text as typed,
    choice values, booleans) — or, with ``commit(values)`` (a session call), that
    call's result once the session accepted it (a refusal shows inline).

    ``verb`` is what Enter does ("add", "heal d6…"), for the hint line; ``hint`` is
    an extra note shown after it."""

    def __init__(
        self,
        title: str,
        fields: Sequence[FormField],
        *,
        validate: Callable[[dict[str, Any]], Any] | None = None,
        hint: str = "",
        verb: str = "accept",
        commit: Commit | None = None,
    ) -> None:
        super().__init__()
        self.dialog_title = title
        self.fields = list(fields)
        self.validate = validate
        self.hint = hint
        self.verb = verb
        self.commit_fn = commit
        self.labels = {f.key: f.label.strip() for f in self.fields}
        #: the labels' column, computed once for the dialog (:meth:`label_column`)
        self.label_width = self.label_column()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="form-dialog") as box:
            box.border_title = Content(self.dialog_title)
            with VerticalScroll(id="form-fields"):
                rows: list[list[FormField]] = []
                for f in self.fields:
                    if f.same_row and rows:
                        rows[-1].append(f)
                    else:
                        rows.append([f])
                for row in rows:
                    if len(row) == 1 and row[0].kind == "bool":
                        yield field_control(row[0], f"form-{row[0].key}", row[0].value)
                        continue
                    with Horizontal(classes="form-row"):
                        for f in row:
                            yield from self._field(f)

            yield Static("", id="dialog-error", classes="inline-error")
            yield DialogHint(self.verb, extra=self.hint)

    def label_column(self) -> int | None:
        """The labels' column when a label is longer than the forms' 20 columns: as
        wide as the longest (at most :data:`LABEL_MOST`), each on one line at 80×24
        ("Initiative descriptors" wrapped); None keeps the stylesheet's."""
        longest = max((len(f.label.strip()) + 2 for f in self.fields if f.kind != "bool" and not f.same_row), default=0)
        return min(longest, LABEL_MOST) if longest > 20 else None

    def _field(self, f: FormField) -> ComposeResult:
        if f.kind != "bool":
            label = Label(f.label, classes="form-label" if not f.same_row else "form-label-inline", markup=False)
            width = None if f.same_row else self.label_width
            if width is not None:
                label.styles.width = width
            yield label
        yield field_control(f, f"form-{f.key}", f.value)

    def on_mount(self) -> None:
        for f in self.fields:
            if f.kind == "text":
                self.query_one(f"#form-{f.key}", Input).focus()
                return
        if self.fields:
            self.query_one(f"#form-{self.fields[0].key}").focus()

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in self.fields:
            w = self.query_one(f"#form-{f.key}")
            if isinstance(w, Checkbox):
                out[f.key] = w.value
            elif isinstance(w, Select):
                out[f.key] = w.value
            else:
                out[f.key] = w.value  # type: ignore[attr-defined]
        return out

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        values = self.values()
        if self.validate is not None:
            try:
                self.validate(values)
            except (GmdeskError, ValueError) as e:
                self.show_error(e)
                return
        if self.commit_fn is not None:
            self.commit(self.commit_fn(values))
            return
        self.dismiss(values)
