"""The turns, the encounter and initiative on the GM's main screen: next / previous
turn, a new round, joining and leaving the order, moving and delaying in it, rolling
initiative for all (or typing values), ending the encounter.

:class:`EncounterActions` is the part of
:class:`~gmdesk.tui.screens.main.MainScreen` that owns these moves; it works through
the desk it is given (:class:`~gmdesk.tui.screens.desk.DeskScreen`: the session
runner, who is selected, telling the GM).

Initiative for all prefills each combatant's modifier from what the session knows
for its system (``Session.initiative_modifier``) — the GM can change any of them or
type a number instead of rolling. A typed value is read the system's way when it
declares one (``parse_initiative``: a ladder level such as "Good" or "Superb +1"),
else as a whole number.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Event, Session
from gmdesk.core.systems import get_spec
from gmdesk.core.systems.base import parse_int
from gmdesk.tui.screens.confirm import ConfirmDialog, FormDialog, InputDialog
from gmdesk.tui.screens.desk import DeskScreen, SessionCall
from gmdesk.tui.widgets.common import initiative_text, name_of
from gmdesk.tui.widgets.form import FormField
from gmdesk.tui.widgets.initiative import fit_group, fit_name

#: one combatant's initiative: (id, modifier, typed value or None to roll)
InitiativePlan = list[tuple[str, int, int | None]]


def row_name(state: Any, cid: str) -> str:
    """A character's row in the order: its group's ("Gospog ×3"), else its name."""
    c = state.characters.get(cid)
    if c is not None and c.group is not None:
        return str(state.group_title(c.group))
    return name_of(state, cid)


#: the most cells a name (with its marks) takes in the initiative dialog's label column:
#: at 80×24 the label, the modifier, "or value" and the value read on one line
INITIATIVE_NAME_CELLS = 30


def initiative_labels(names: list[str], marks: list[str], groups: list[bool]) -> list[str]:
    """The initiative dialog's labels: each name and its marks (" (pinned)", " +"),
    the name cut before a copy's number where it is long ("Goblin archer… 12"), a
    group's before its count, padded to the longest so that every "mod" stands by its
    field, in a column."""
    parts = []
    for name, mark, group in zip(names, marks, groups, strict=True):
        room = max(8, INITIATIVE_NAME_CELLS - cell_len(mark))
        parts.append((fit_group(name, room) if group else fit_name(name, room)) + mark)
    width = max((cell_len(p) for p in parts), default=0)
    return [f"{p}{' ' * (width - cell_len(p))}  mod" for p in parts]


class InitiativeDialog(FormDialog):
    """Initiative for all: a row a combatant, its label (name and marks, in a column
    as wide as the longest), its modifier and a value typed instead of rolling."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.labels = {key: " ".join(label.split()) for key, label in self.labels.items()}

    def label_column(self) -> int | None:
        return None  # the labels are padded to one width (the stylesheet: as wide as they are)


class EncounterActions:
    """The turn and encounter moves of the main screen (see the module docstring)."""

    def __init__(self, desk: DeskScreen) -> None:
        self.desk = desk

    def next_turn(self) -> None:
        """``n``: the next turn (durations tick as the turn ends; a new round may roll
        initiative again, with the desk's dice)."""
        rng = self.desk.rng
        self.desk.submit(lambda s: s.next_turn(rng), self._say_turn)

    def prev_turn(self) -> None:
        """``p``: back one turn."""
        self.desk.submit(lambda s: s.apply({"type": "turn.prev"}), self._say_turn)

    def new_round(self) -> None:
        """``R``: the next round starts (initiative rolled again, if so set, with the desk's dice)."""
        rng = self.desk.rng
        self.desk.submit(lambda s: s.new_round(rng), self._say_turn)

    def _say_turn(self, event: Event) -> None:
        """Say whose turn it is (and which durations ended); the pane follows the turn."""
        self.desk.say("\n".join([event.summary, *event.changes]))
        cur = self.desk.state.encounter.current
        if cur is not None:
            self.desk.selected = cur.char_id
            self.desk.remember_selection()

    def join(self) -> None:
        """``+``: the selected character joins the encounter, at a typed or rolled initiative."""

        def go() -> None:
            cid = self.desk.need_selected()
            if cid is None:
                return
            state = self.desk.state
            if state.encounter.index_of(cid) is not None:
                self.desk.say(f"{name_of(state, cid)} is already in the encounter.", error=True)
                return
            name = name_of(state, cid)

            def joined(value: Any) -> None:
                if value is not None:
                    self.desk.say(f"{name} joins the encounter at initiative {self._shown(value)}")

            pin = state.characters[cid].pin
            empty = "empty rolls it" if pin is None else f"pinned: empty joins at {self._shown(pin)}"
            self.desk.app.push_screen(
                InputDialog(
                    f"Initiative for {name} ({self._initiative_hint()}; {empty})",
                    title="Join the encounter",
                    validate=lambda text: self._typed_initiative(text),
                    commit=lambda text: self._join(cid, text.strip()),
                    label="Initiative",
                    verb="join",
                ),
                joined,
            )

        self.desk.when_idle(go)

    def _initiative_hint(self) -> str:
        """What the GM may type for an initiative in this session's system."""
        return get_spec(self.desk.state.info.system).initiative_hint

    def _shown(self, value: int) -> str:
        """An initiative as the pane shows it (the system's words: a ladder level, "Great")."""
        return initiative_text(value, self.desk.state.info.system)

    def _shown_modifier(self, cid: str) -> str:
        """A combatant's initiative modifier as the initiative dialog prefills it: in
        the system's words for an initiative where it declares them
        (``show_initiative``: a ladder level, read back by ``parse_initiative``), else
        the number."""
        return self._shown(self.initiative_modifier(cid))

    def _typed_initiative(self, text: str, label: str = "initiative") -> int | None:
        """A typed initiative (or modifier), read the system's way when it declares one
        (``parse_initiative``), else a whole number; None when empty."""
        if not text.strip():
            return None
        parse = get_spec(self.desk.state.info.system).parse_initiative
        if parse is not None:
            return int(parse(label, text))
        return parse_int(label, text)

    def _join(self, cid: str, typed: str) -> SessionCall:
        """The session call that puts ``cid`` in the encounter: at the typed value, else at
        an initiative rolled now with the session's system (and its settings), logged
        with its dice like ``i``."""
        rng = self.desk.rng
        value = self._typed_initiative(typed)

        def fn(s: Session) -> Any:
            s.join_encounter(cid, rng, value=value)
            c = s.state.encounter.index_of(cid)
            return s.state.encounter.order[c].initiative if c is not None else value

        return fn

    def leave(self) -> None:
        """``-``: the selected character leaves the initiative order (undoable)."""
        cid = self.desk.need_selected()
        if cid is None:
            return
        name = name_of(self.desk.state, cid)
        if self.desk.state.encounter.index_of(cid) is None:
            self.desk.say(f"{name} is not in the encounter.", error=True)
            return
        self.desk.apply(
            {"type": "encounter.remove", "id": cid}, f"{name} leaves the encounter — {self.desk.undo_hint()}"
        )

    def move(self, delta: int) -> None:
        """``[`` / ``]``: the selected character moves ``delta`` places in the order."""
        cid = self.desk.need_selected()
        if cid is None:
            return
        index = self.desk.state.encounter.index_of(cid)
        if index is None:
            self.desk.say(f"{name_of(self.desk.state, cid)} is not in the encounter.", error=True)
            return
        # by turns: a group moves whole, past a whole group
        state = self.desk.state
        units = state.units()
        k = next(n for n, (a, b) in enumerate(units) if a <= index < b)
        if not 0 <= k + int(delta) < len(units):
            return
        a, b = units[k]
        nxt = units[k + int(delta)]
        new = nxt[0] if delta < 0 else a + (nxt[1] - nxt[0])
        self.desk.apply({"type": "encounter.move", "id": cid, "index": new})

    def delay(self) -> None:
        """``d``: the selected character acts after the next combatant."""
        cid = self.desk.need_selected()
        if cid is None:
            return
        name = name_of(self.desk.state, cid)
        if self.desk.state.encounter.index_of(cid) is None:
            self.desk.say(f"{name} is not in the encounter.", error=True)
            return
        event = {"type": "encounter.delay", "id": cid}
        self.desk.submit(
            lambda s: s.apply(event),
            lambda ev: self.desk.say(f"{ev.summary or name + ' delays'} — {self.desk.undo_hint()}"),
        )

    def pin(self) -> None:
        """``=``: pin the selected character's initiative where it stands (one not in
        the encounter: at a number the GM types, and it joins), or release its pin.
        A pinned entry keeps its number when initiative is rolled again."""

        def go() -> None:
            cid = self.desk.need_selected()
            if cid is None:
                return
            state = self.desk.state
            c = state.characters[cid]
            if c.pin is not None:
                self._pin_call(cid, False)
                return
            if state.encounter.index_of(cid) is not None:
                self._pin_call(cid, True)
                return
            self.desk.app.push_screen(
                InputDialog(
                    f"{c.name} joins the encounter, pinned at ({self._initiative_hint()})",
                    title="Pin initiative",
                    validate=lambda text: self._pin_value(text),
                    commit=lambda text: self._pin_at(cid, text),
                    label="Initiative",
                    verb="pin",
                ),
                lambda ev: self._said_pin(ev) if ev is not None else None,
            )

        self.desk.when_idle(go)

    def _pin_value(self, text: str) -> int:
        value = self._typed_initiative(text, "Initiative")
        if value is None:
            raise GmdeskError("Initiative: give the number to pin it at")
        return value

    def _pin_at(self, cid: str, text: str) -> SessionCall:
        value = self._pin_value(text)
        rng = self.desk.rng
        return lambda s: s.roll_initiative([cid], rng, values={cid: value}, pins={cid: True})

    def _pin_call(self, cid: str, pin: bool) -> None:
        rng = self.desk.rng
        self.desk.submit(lambda s: s.roll_initiative([cid], rng, pins={cid: pin}), self._said_pin)

    def _said_pin(self, event: Event) -> None:
        lines = [x for x in event.changes if x != event.summary]
        self.desk.say(f"{'; '.join(lines) or event.summary} — {self.desk.undo_hint()}")

    def initiative_modifier(self, cid: str) -> int:
        """What the session's system adds to this character's initiative roll (what the
        session knows of the character; else 0)."""
        try:
            return int(self.desk.session.initiative_modifier(cid))
        except (GmdeskError, KeyError):
            return 0

    def initiative(self) -> None:
        """``i``: initiative for all, each modifier prefilled, a value typed or rolled."""
        self.desk.when_idle(self._open_initiative)

    def initiative_ids(self) -> list[str]:
        """Who ``i`` rolls for: everyone in the encounter who can act (in order), then
        every other character who can act (they join the encounter); the Unconscious
        and the Dead get no initiative (RULES "Who can act"). A group is named once,
        by the member who rolls for it (its lowest modifier)."""
        state = self.desk.state
        ids = [c.char_id for c in state.encounter.order if c.char_id in state.characters]
        ids += [cid for cid in state.characters if cid not in ids]
        out: list[str] = []
        groups: set[str] = set()
        for cid in ids:
            c = state.characters[cid]
            if not c.can_act:
                continue
            if c.group is None:
                out.append(cid)
            elif c.group not in groups:
                groups.add(c.group)
                out.append(self.desk.session.group_roller(c.group) or cid)
        return out

    def _open_initiative(self) -> None:
        state = self.desk.state
        ids = self.initiative_ids()
        if not ids:
            self.desk.say("No characters yet: c adds one.", error=True)
            return
        fields = []
        names = [row_name(state, cid) for cid in ids]  # a group by its row, its lowest modifier
        marks = [
            (" (pinned)" if state.characters[cid].pin is not None else "")
            + ("" if state.encounter.index_of(cid) is not None else " +")
            for cid in ids
        ]
        labels = initiative_labels(names, marks, [state.characters[cid].group is not None for cid in ids])
        for i, cid in enumerate(ids):
            pin = state.characters[cid].pin
            # the modifier in the words the GM reads elsewhere (a ladder level: "Fair", as the
            # pane's "Initiative trait" shows it), else the number ("+2", "−1")
            fields.append(FormField(f"m{i}", labels[i], "text", self._shown_modifier(cid)))
            # a pinned entry keeps its number (typing another moves the pin)
            kept = "" if pin is None else self._shown(pin)
            fields.append(FormField(f"v{i}", "or value", "text", kept, placeholder="roll", same_row=True))

        def read(values: dict[str, Any]) -> InitiativePlan:
            plan = []
            for i, cid in enumerate(ids):
                mod = self._typed_initiative(values[f"m{i}"], f"{names[i]} mod")
                typed = self._typed_initiative(values[f"v{i}"], f"{names[i]} value")
                plan.append((cid, mod or 0, typed))
            return plan

        def done(values: dict[str, Any] | None) -> None:
            if values is not None:
                self._roll_initiative(read(values))

        self.desk.app.push_screen(
            InitiativeDialog(
                f"Initiative ({', '.join([state.info.system, *self._dice_settings()])})",
                fields,
                validate=read,
                verb="roll (typed values are kept)",
                hint="+ joins the encounter",
            ),
            done,
        )

    def _dice_settings(self) -> list[str]:
        """The session settings of the system's dice the roll form offers (a dice
        method), as the title of the initiative dialog names them."""
        settings = self.desk.state.info.settings
        spec = get_spec(self.desk.state.info.system)
        return [str(settings.get(p.setting, p.default)) for p in spec.params if p.setting and p.form]

    def initiative_for_all_now(self) -> None:
        """Roll everyone's initiative with the default modifiers (no dialog)."""
        self._roll_initiative([(cid, self.initiative_modifier(cid), None) for cid in self.initiative_ids()])

    def _roll_initiative(self, plan: InitiativePlan) -> None:
        """One ``initiative.set``: typed values as typed, the rest rolled by the session
        (its system and settings), each roll logged with its dice."""
        rng = self.desk.rng

        def fn(s: Session) -> Any:
            return s.roll_initiative(
                [cid for cid, _, _ in plan],
                rng,
                modifiers={cid: mod for cid, mod, _ in plan},
                values={cid: typed for cid, _, typed in plan if typed is not None},
            )

        def done(ev: Any) -> None:
            state = self.desk.state
            order = ", ".join(
                f"{row_name(state, x.char_id)} {self._shown(x.initiative)}"
                for x in (state.encounter.order[a] for a, _ in state.units())
            )
            ties = [x for x in getattr(ev, "changes", ()) if x.startswith("Tie at ")]
            self.desk.say("\n".join([f"Initiative: {order}", *ties]))

        self.desk.submit(fn, done)

    def end(self) -> None:
        """ "End the encounter…": after asking, the order empties and the round goes back to 0."""

        def done(yes: bool | None) -> None:
            if yes:
                self.desk.apply({"type": "encounter.end"}, "The encounter ends (u undoes it)")

        self.desk.app.push_screen(
            ConfirmDialog(
                "End the encounter? The initiative order empties and the round count goes back to 0. (u undoes it)",
                yes="End it",
                title="End the encounter",
            ),
            done,
        )
