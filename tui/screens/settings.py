"""The "Session settings" dialog (command palette), generated from
:func:`core.session.settings.declared`: one field per declared setting — a number
field (with its range as placeholder), a checkbox or a dropdown — each with its help
line, the session's own system first. Enter saves what changed as one
``session.settings`` event (undoable with ``u``); a bad value is named by its label
and the dialog stays open with everything typed.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Checkbox, Input, Label, Select, Static

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.settings import Setting, current, declared
from gmdesk.tui.screens.dialog import Dialog, DialogHint
from gmdesk.tui.screens.tables import tables_line
from gmdesk.tui.widgets.controls import EnterCheckbox, SteadyInput, StepSelect

#: the most columns the labels take (a longer label wraps, its field keeps room)
LABEL_MOST = 34


class SettingsDialog(Dialog[Any]):
    """The session's settings as a form; returns the ``session.settings`` event, or
    None when cancelled or nothing changed."""

    def __init__(self, settings: dict[str, Any], system: str = "") -> None:
        super().__init__()
        self.values = dict(current(settings))  # Setting -> value now
        # the session's own system first, then those of every system, then the others
        settings_now = declared()
        self.order = sorted(settings_now, key=lambda s: (s.system != system, s.system != ""))
        self.labels = {s.key: s.title for s in settings_now}
        self.tables = tables_line(settings, system)
        #: the labels' column: as wide as the longest label beside a field (one line
        #: each at 80×24: "Skill chance threshold" wrapped in the forms' 20 columns)
        self.label_width = min(
            LABEL_MOST, max((len(s.label) + 2 for s in settings_now if s.type != "bool"), default=20)
        )

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="settings-dialog") as box:
            box.border_title = "Session settings"
            with VerticalScroll(id="settings-fields"):
                if self.tables:  # which tables are the GM's own (tui.screens.tables)
                    yield Static(self.tables, id="settings-tables", classes="form-note", markup=False)
                for s in self.order:
                    yield from self._field(s)
            yield Static("", id="dialog-error", classes="inline-error")
            yield DialogHint("save")

    def _field(self, s: Setting) -> ComposeResult:
        wid = f"setting-{s.key}"
        value = self.values[s]
        if s.type == "bool":
            yield EnterCheckbox(s.label, bool(value), id=wid, classes="form-check")
        else:
            with Horizontal(classes="form-row"):
                label = Label(s.label, classes="form-label")
                label.styles.width = self.label_width
                yield label
                if s.type == "choice":
                    yield StepSelect(
                        [(c, c) for c in s.choices], value=value, allow_blank=False, id=wid, classes="form-input"
                    )
                else:
                    yield SteadyInput(str(value), placeholder=f"{s.lo}..{s.hi}", id=wid, classes="form-input")
        yield Static(f"{s.system}: {s.help}" if s.system else s.help, classes="form-note setting-help")

    def on_mount(self) -> None:
        if self.order:
            self.query_one(f"#setting-{self.order[0].key}").focus()

    def changes(self) -> dict[str, Any]:
        """{key: value} of the settings changed in the form; SettingError if one is bad."""
        out: dict[str, Any] = {}
        for s in self.order:
            w = self.query_one(f"#setting-{s.key}")
            raw = w.value if isinstance(w, (Checkbox, Select, Input)) else None
            value = s.parse(raw)
            if value != self.values[s]:
                out[s.key] = value
        return out

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        try:
            changes = self.changes()
        except GmdeskError as e:
            self.show_error(str(e))  # the message names the field itself
            return
        if not changes:
            self.dismiss(None)
            return
        self.commit(lambda session: session.apply({"type": "session.settings", "changes": changes}))
