"""Initiative groups at the desk: ``g`` groups characters, ``G`` splits the selected
character's group (both in the palette, both undoable with ``u``).

``g`` opens a form: the group's label and a box per character who may join it, the
selected one ticked (and, when it is in a group already, that group's members and
label: ticking more adds them). The session decides (``group.set``); a refusal — a
label that is a character's name — shows under the form with the field's label.
The order then shows the group as one row, which Enter opens to its members
(:mod:`tui.widgets.initiative`).

:class:`GroupActions` is the part of :class:`~gmdesk.tui.screens.main.MainScreen`
that owns these moves.
"""

from __future__ import annotations

from typing import Any

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Event, Session
from gmdesk.tui.screens.confirm import FormDialog
from gmdesk.tui.screens.desk import DeskScreen, SessionCall
from gmdesk.tui.widgets.form import FormField


class GroupActions:
    """Group and ungroup at the desk (see the module docstring)."""

    def __init__(self, desk: DeskScreen) -> None:
        self.desk = desk

    def group(self) -> None:
        """``g``: the form that makes characters one initiative group."""
        self.desk.when_idle(self._open)

    def _open(self) -> None:
        desk = self.desk
        cid = desk.need_selected()
        if cid is None:
            return
        state = desk.state
        me = state.characters[cid]
        label = me.group or ""
        ticked = {c.id for c in state.group_members(label)} if label else {cid}
        # those in the fight first, in its order, then the others
        seat = {x.char_id: k for k, x in enumerate(state.encounter.order)}
        ids = sorted(state.characters, key=lambda x: seat.get(x, len(seat)))
        ids = [x for x in ids if state.characters[x].status != "dead" or x in ticked]
        if not label:
            label = me.name.rsplit(" ", 1)[0] if me.name.rsplit(" ", 1)[-1].isdigit() else ""
        fields = [FormField("label", "Label", "text", label, placeholder="e.g. Gospog")]
        for k, x in enumerate(ids):
            c = state.characters[x]
            where = f" (in {c.group})" if c.group and c.group != me.group else ""
            fields.append(FormField(f"m{k}", f"{c.name}{where}", "bool", x in ticked))

        def read(values: dict[str, Any]) -> tuple[str, list[str]]:
            text = str(values["label"]).strip()
            if not text:
                raise GmdeskError("Label: name the group (it is its row in the order)")
            chosen = [x for k, x in enumerate(ids) if values.get(f"m{k}")]
            if len(chosen) < 2:
                raise GmdeskError("Members: tick two characters or more")
            return text, chosen

        def commit(values: dict[str, Any]) -> SessionCall:
            text, chosen = read(values)
            return lambda s: s.apply({"type": "group.set", "label": text, "ids": chosen})

        desk.app.push_screen(
            FormDialog("Group for initiative", fields, validate=read, commit=commit, verb="group"),
            lambda ev: self._said(ev) if ev is not None else None,
        )

    def ungroup(self) -> None:
        """``G``: the selected character's group splits (each member keeps its place)."""
        desk = self.desk
        cid = desk.need_selected()
        if cid is None:
            return
        c = desk.state.characters[cid]
        if c.group is None:
            desk.say(f"{c.name} is in no group: g groups characters.", error=True)
            return
        label = c.group

        def fn(s: Session) -> Event:
            return s.apply({"type": "group.remove", "label": label})

        desk.submit(fn, self._said)

    def _said(self, event: Event) -> None:
        self.desk.say(f"{event.summary} — {self.desk.undo_hint()}")
