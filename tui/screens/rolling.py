"""Rolling from the GM's main screen: ``r`` rolls any system, ``a`` makes the acting
character attack; the roll dialog opens for who acts (and whom), the session rolls what
the GM filled in, and the desk says the result.

:class:`RollActions` is the part of :class:`~gmdesk.tui.screens.main.MainScreen`
that owns this (the system's preset moves open the dialog through it too). It
remembers what the GM typed per (system, roller, attack or not); the dialog offers
again only what the system declares remembered (``Param.remember``) and says so.

Who can act (RULES.md): ``a`` with an Unconscious or Dead character acting says so and
opens nothing; ``r`` opens the dialog with nobody as roller. An attack's default
target is the roller's last target if not Dead, else its next standing foe in
initiative order (``State.default_target``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gmdesk.core.render import headline
from gmdesk.core.session import Event, Session
from gmdesk.tui.screens.desk import DeskScreen
from gmdesk.tui.screens.roll import RollDialog, RollOpening, RollRequest
from gmdesk.tui.widgets.common import attack_sentence, names_of, roll_name


class RollActions:
    """The main screen's rolls and attacks (see the module docstring)."""

    def __init__(self, desk: DeskScreen) -> None:
        self.desk = desk
        #: what the GM typed last, per (system, roller, attack)
        self._remembered: dict[tuple[str, str | None, bool], dict[str, Any]] = {}
        #: the roll dialog, once built: an overlay on the desk, kept between rolls
        self._dialog: RollDialog | None = None

    def roll(self) -> None:
        """``r``: the roll dialog, for the acting character if it can act."""
        desk = self.desk
        desk.when_idle(lambda: self.open_dialog(actor=desk.able(desk.acting())))

    def attack(self) -> None:
        """``a``: the acting character attacks its default target."""
        desk = self.desk

        def go() -> None:
            actor = desk.acting()
            if actor is None:
                desk.say("Nobody to attack with: add a character (c) first.", error=True)
                return
            if desk.able(actor) is None:
                return
            self.open_dialog(actor=actor, target=desk.default_target(actor), combat=True)

        desk.when_idle(go)

    def open_dialog(
        self,
        *,
        actor: str | None = None,
        target: str | None = None,
        combat: bool = False,
        system: str | None = None,
        preset: dict[str, Any] | None = None,
        title: str | None = None,
        opposed: bool = False,
    ) -> None:
        """Open the roll dialog over the desk, its values filled afresh; the roll is
        made when the GM accepts it. Nothing happens while it is open already."""
        desk = self.desk
        system = system or desk.state.info.system
        remembered = self._remembered.get((system, actor, combat), {})

        def rolled(req: RollRequest | None) -> None:
            if req is not None:
                # what the GM typed; the dialog offers again only what the system
                # declares remembered (Param.remember) and says so
                self._remembered[(req.system, req.actor, req.combat)] = dict(req.values)
                self.make(req, self.close_dialog)

        if self.dialog_open:
            return  # one roll at a time: the open dialog keeps the keys
        kwargs = RollOpening(
            system=system,
            actor=actor,
            target=target,
            combat=combat,
            preset=preset,
            title=title,
            remembered=remembered,
            opposed=opposed,
        )
        dlg = self._dialog
        if dlg is None or not dlg.is_attached:
            # the first open builds the dialog; it stays on the desk, hidden, for the next
            dlg = self._dialog = RollDialog(desk.state, done=rolled, **kwargs)
            desk.mount(dlg)
        else:
            dlg.prepare(desk.state, **kwargs)
            dlg.call_later(dlg.reopen, rolled)

    @property
    def dialog(self) -> RollDialog | None:
        """The roll dialog while it is open (else None)."""
        dlg = self._dialog
        return dlg if dlg is not None and dlg.is_attached and dlg.is_open else None

    @property
    def dialog_open(self) -> bool:
        return self.dialog is not None

    def place(self) -> None:
        """The terminal was resized: the dialog stays in the middle."""
        if self._dialog is not None and self._dialog.is_attached:
            self._dialog.place()
            self.desk.refresh_bindings()  # the key bar: under the dialog, or hidden by it

    def close_dialog(self) -> None:
        """Close the roll dialog (it stays open while its roll is being made)."""
        if self._dialog is not None and self._dialog.is_attached:
            self._dialog.close()

    def make(self, req: RollRequest, made: Callable[[], None] | None = None) -> None:
        """Roll ``req`` in the session (logged, applied, saved); then say what it did.
        ``made`` runs first when the session is done (made or refused): the dialog
        closes in the same moment as the desk shows the roll (one redraw)."""
        desk = self.desk
        rng = desk.rng

        def fn(s: Session) -> Event:
            # the dialog filled the parameters once, as `gmdesk roll --save` fills them (what
            # it shows is the GM's: a source or Up switched off for this roll stays off)
            return s.roll(
                req.system,
                req.params,
                actor=req.actor,
                target=req.target,
                combat=req.combat,
                rng=rng,
                clock=req.clock,
                fill=False,  # the dialog filled them (core.session.params.fill_data)
                origins=req.origins,
            )

        def done(event: Event) -> None:
            if made is not None:
                made()
            state = desk.state
            entry = state.roll_entry(event.seq)
            if entry is None:
                desk.say(event.summary)
                return
            if req.combat:
                lines = [attack_sentence(entry, state), *entry.changes]
            else:
                who = roll_name(entry, entry.actor, names_of(state))
                lines = [f"{who}: {headline(entry.record)} {entry.record.outcome}", *entry.changes]
            desk.say("\n".join(lines))

        def refused(message: str) -> None:
            if made is not None:
                made()
            desk.say(message, error=True)

        desk.submit(fn, done, refused)
        if made is not None:
            desk.when_idle(made)  # whatever the call's end (the session gone read-only too)
