"""The session's own moves on the GM's main screen: undo and redo (each an event, said
in the words of the change it reverted), a note in the log, and the session's settings
(one ``session.settings`` event, undoable).

:class:`SessionActions` is the part of :class:`~gmdesk.tui.screens.main.MainScreen`
that owns these moves; it works through the desk it is given
(:class:`~gmdesk.tui.screens.desk.DeskScreen`).
"""

from __future__ import annotations

from typing import Any

from gmdesk.core.session import Event
from gmdesk.tui.screens.confirm import InputDialog
from gmdesk.tui.screens.desk import DeskScreen, SessionCall


class SessionActions:
    """Undo, redo, a note, the settings (see the module docstring)."""

    def __init__(self, desk: DeskScreen) -> None:
        self.desk = desk

    def undo(self) -> None:
        """``u``: the latest change is reverted (an event too)."""
        desk = self.desk

        def done(ev: Event | None) -> None:
            desk.say("Nothing to undo." if ev is None else f"Undone: {reverted(ev)}", error=ev is None)

        desk.submit(lambda s: s.undo(), done)

    def redo(self) -> None:
        """``U``: what was undone is applied again."""
        desk = self.desk

        def done(ev: Event | None) -> None:
            desk.say("Nothing to redo." if ev is None else f"Redone: {reverted(ev)}", error=ev is None)

        desk.submit(lambda s: s.redo(), done)

    def note(self) -> None:
        """A line of the GM's in the session's log."""

        def commit(text: str) -> SessionCall:
            return lambda s: s.apply({"type": "note", "text": text.strip()}) if text.strip() else None

        def done(event: Any) -> None:
            if event is not None:
                self.desk.say("Note added")

        self.desk.app.push_screen(
            InputDialog("Note for the log", title="Note", commit=commit, label="Note", verb="add to the log"), done
        )

    def settings(self) -> None:
        """The session's settings as a form (tui.screens.settings); what changed is one
        ``session.settings`` event, undoable."""
        from gmdesk.tui.screens.settings import SettingsDialog

        desk = self.desk

        def done(event: Any) -> None:
            if event is not None:
                # each change in the GM's words ("Initiative ties: keep order → roll off"),
                # once, and how to take it back
                said = list(event.changes) or [event.summary]
                desk.say("\n".join([*said[:-1], f"{said[-1]} — {desk.undo_hint()}"]))

        desk.when_idle(
            lambda: desk.app.push_screen(SettingsDialog(desk.state.info.settings, desk.state.info.system), done)
        )


def settings_help(system: str) -> str:
    """What the session settings are, for the palette: those of the session's system
    first, then the others."""
    from gmdesk.core.session.settings import declared

    ordered = sorted(declared(), key=lambda s: s.system not in ("", system))
    return ", ".join(s.label[:1].lower() + s.label[1:] for s in ordered) or "the session's rules options"


def reverted(event: Event) -> str:
    """What an undo / redo event did, in the words of the event it reverted:
    "Undo #12: Kara hits Bruno…" → "Kara hits Bruno… (#12)"."""
    text = getattr(event, "summary", "") or getattr(event, "type", "") or "a change"
    head, sep, rest = text.partition(": ")
    words = head.split()
    if sep and len(words) == 2 and words[0] in ("Undo", "Redo") and words[1].startswith("#"):
        return f"{rest} ({words[1]})"
    return text
