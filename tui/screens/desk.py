"""The screen that runs a session: its runner, the state, the panes, telling the GM,
and who acts — what every part of the GM's main screen works through.

:class:`DeskScreen` is the base of :class:`~gmdesk.tui.screens.main.MainScreen`.
The main screen holds its moves as parts, grouped by what they touch (the rolls in
:mod:`.rolling`, the encounter in :mod:`.encounter`, the characters in :mod:`.roster`,
the system's moves in :mod:`.moves`, undo and the settings in :mod:`.sessionmoves`);
each part is given the desk and uses only this interface. Session calls
touch the disk, so they go through the app's :class:`~gmdesk.tui.runner.SessionRunner`
(:meth:`DeskScreen.submit`): one at a time, in order, off the event loop; the screen
redraws from the session's state when each one is done. While one is running,
actions that read the state wait for it (:meth:`DeskScreen.when_idle`), so a dialog
never sees a half-made change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from textual.screen import Screen

from gmdesk.core.dice import RandomSource
from gmdesk.core.session import Event, Session, State
from gmdesk.tui.runner import SessionRunner
from gmdesk.tui.screens.dialog import DialogKeyBar
from gmdesk.tui.widgets.character import CharacterPane
from gmdesk.tui.widgets.initiative import InitiativePane
from gmdesk.tui.widgets.rolllog import RollLog

#: a session call: run in the runner's worker with the open session
SessionCall = Callable[[Session], Any]


class DeskScreen(DialogKeyBar, Screen[None]):
    """The session, its runner and the helpers every move of the desk uses."""

    def __init__(
        self, session: Session, runner: SessionRunner, *, rng: RandomSource | None = None, readonly: bool = False
    ) -> None:
        super().__init__()
        self.session = session
        self.runner = runner
        self.rng = rng
        self.readonly = readonly
        self.selected: str | None = None
        self._select_queued = False

    @property
    def state(self) -> State:
        return self.session.state

    @property
    def initiative(self) -> InitiativePane:
        return self.query_one(InitiativePane)

    @property
    def character(self) -> CharacterPane:
        return self.query_one(CharacterPane)

    @property
    def rolllog(self) -> RollLog:
        return self.query_one(RollLog)

    def refresh_view(self) -> None:
        """Redraw from the session's state (the main screen lays it out)."""

    # -- running session calls -----------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A session call is running or waiting."""
        return self.runner.busy

    def submit(
        self,
        fn: SessionCall,
        done: Callable[[Any], None] | None = None,
        error: Callable[[str], None] | None = None,
        *,
        refresh: bool = True,
    ) -> None:
        """Run ``fn(session)`` in the runner after the calls already queued; then
        ``done(result)`` or ``error(message)`` (default: a notification) and a redraw."""
        if self.readonly:
            self._fail(error, "this session is open read-only")
            return

        def ok(result: Any) -> None:
            try:
                if done is not None:
                    done(result)
            finally:
                if refresh:
                    self.refresh_view()

        def failed(message: str) -> None:
            try:
                if self.session.changed_on_disk and not self.readonly:
                    # another program replaced the session's files: nothing more is
                    # saved; the desk says so once and stays open read-only
                    self.readonly = True
                    rescued = self.session.rescued
                    self.say(
                        "The session was changed on disk by another program; this desk is now "
                        + (
                            f'read-only. Everything saved is kept as the new session "{rescued.stem}": '
                            "close this one and open it."
                            if rescued is not None
                            else "read-only (everything saved before is kept). Close it and check the session."
                        ),
                        error=True,
                    )
                    return
                self._fail(error, message)
            finally:
                if refresh:
                    self.refresh_view()

        self.runner.submit(fn, ok, failed, owner=self, session=self.session)

    def when_idle(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` now if no session call is pending, else right after them
        (not at all if the screen is gone by then)."""
        self.runner.when_idle(lambda: callback() if self.is_attached else None)

    def _fail(self, handler: Callable[[str], None] | None, message: str) -> None:
        if handler is not None:
            handler(message)
        else:
            self.say(message, error=True)

    def say(self, message: str, *, error: bool = False) -> None:
        """Tell the GM (a notification; errors stay a little longer): the runner's
        :meth:`~gmdesk.tui.runner.SessionRunner.say`, where a refusal becomes a sentence."""
        self.runner.say(message, error=error)

    def apply(
        self,
        event: Mapping[str, Any],
        what: str = "",
        *,
        done: Callable[[Event], None] | None = None,
        error: Callable[[str], None] | None = None,
    ) -> None:
        """Apply one session event; say ``what`` (else the session's summary) when it is done."""

        def ok(ev: Event) -> None:
            if what or getattr(ev, "summary", ""):
                self.say(what or ev.summary)
            if done is not None:
                done(ev)

        self.submit(lambda s: s.apply(event), ok, error)

    # -- who is who ---------------------------------------------------------------------------------

    def acting(self) -> str | None:
        """The current combatant once the encounter runs, else the selected character."""
        cur = self.state.encounter.current
        if cur is None:
            return self.selected
        c = self.state.characters.get(cur.char_id)
        if c is not None and c.group is not None and not c.can_act:  # a group acts with a member who can
            member = self.state.pick_member(c.group, "actor")
            return member.id if member is not None else cur.char_id
        return cur.char_id

    def default_target(self, actor: str | None) -> str | None:
        return self.state.default_target(actor)

    def able(self, cid: str | None) -> str | None:
        """``cid`` if that character can act (roll for an action), else None — and the GM
        is told why (the Unconscious and the Dead take no action)."""
        c = self.state.characters.get(cid) if cid is not None else None
        if c is not None and not c.can_act:
            self.say(f"{c.name} is {c.status.capitalize()} and cannot act.", error=True)
            return None
        return cid

    def need_selected(self) -> str | None:
        """The selected character, else None — and the GM is told to add one."""
        if self.selected is None:
            self.say("No character selected: c adds one.", error=True)
        return self.selected

    def remember_selection(self) -> None:
        """Keep the selected character in the save's view state (for resuming). Moving
        through the list quickly writes once: a queued write takes the latest value."""
        if self.readonly or self._select_queued:
            return
        self._select_queued = True

        def fn(s: Session) -> None:
            self._select_queued = False
            s.ui_set("selected", self.selected)

        self.submit(fn, refresh=False)

    def undo_hint(self) -> str:
        """ "u to undo", with the key undo is bound to now (the GM's keymap may move it)."""
        for active in self.active_bindings.values():
            if active.binding.id == "main.undo" and active.node is self:
                return f"{self.app.get_key_display(active.binding)} to undo"
        return "u to undo"
