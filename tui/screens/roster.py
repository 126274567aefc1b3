"""The characters on the GM's main screen: add one (name, side, kind, Vitality,
Possibilities, the numbers the session's system reads — generated from its declared
``CHARACTER_FIELDS``, as the character pane's section is — joining the encounter,
hidden from the players, what the players see of it: one dialog, one event), add numbered copies of a bestiary
stat block, remove one, hide one from the players or reveal it, import a descriptor
sheet.

:class:`RosterActions` is the part of :class:`~gmdesk.tui.screens.main.MainScreen`
that owns these moves; it works through the desk it is given
(:class:`~gmdesk.tui.screens.desk.DeskScreen`).

Names are unique in a session: the new-character dialog refuses a taken name in
place (with a numbered suggestion) and keeps what was typed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.widgets import Checkbox, Select

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.session import Event, Session
from gmdesk.core.session.events.visibility import hidden_rolls
from gmdesk.core.session.model.state import id_shape_refusal
from gmdesk.core.systems import character_sections, get_spec
from gmdesk.core.systems.base import parse_int
from gmdesk.core.systems.spec import CharField, parse_field, show_field
from gmdesk.tui.screens.confirm import ConfirmDialog, FormDialog, InputDialog
from gmdesk.tui.screens.desk import DeskScreen, SessionCall
from gmdesk.tui.widgets.common import name_of
from gmdesk.tui.widgets.form import VISIBILITY_FIELD, FormField


class NewCharacterDialog(FormDialog):
    """The new-character dialog. Where the system keeps Possibilities, Reality-rated
    follows the Side until the GM ticks or unticks it: a player character is
    reality-rated, an NPC is an ordinary one (a villain gets the tick by hand)."""

    _rated_set = False  # the GM's own tick or untick: the Side no longer moves it
    _following = False  # the box is being set from the Side

    @on(Select.Changed, "#form-side")
    def _side_changed(self, event: Select.Changed) -> None:
        boxes = self.query("#form-reality_rated")
        if self._rated_set or not boxes:
            return
        box = boxes.first(Checkbox)
        rated = event.value == "PC"
        if box.value != rated:
            self._following = True
            box.value = rated

    @on(Checkbox.Changed, "#form-reality_rated")
    def _rated_changed(self, event: Checkbox.Changed) -> None:
        if self._following:
            self._following = False
        else:
            self._rated_set = True


class RosterActions:
    """The character moves of the main screen (see the module docstring)."""

    def __init__(self, desk: DeskScreen) -> None:
        self.desk = desk

    def new_character(self) -> None:
        """``c``: the new-character dialog; the character is added (and joins) in one event."""
        state = self.desk.state
        # a system that keeps Possibilities (its character sections) makes a new player
        # character a reality-rated one by default (an NPC follows its Side: an ordinary one)
        possibilities = "possibilities" in character_sections(state.info.system)
        declared = declared_fields(state.info.system)
        system_fields = [character_field(f) for f in declared]
        fields = [
            FormField("name", "Name", "text", ""),
            FormField("side", "Side", "choice", "PC", (("PC", "PC (player)"), ("NPC", "NPC"))),
            FormField("kind", "Kind", "choice", "organic", (("organic", "organic"), ("inorganic", "inorganic"))),
            FormField("vitality", "Vitality", "text", "", placeholder="default Vitality"),
            # Possibilities and reality-rated only where the system keeps them (as the pane)
            *(
                [
                    FormField("possibilities", "Possibilities", "text", "", placeholder="e.g. 3"),
                    FormField("reality_rated", "Reality-rated", "bool", True),
                ]
                if possibilities
                else []
            ),
            *system_fields,
            FormField("join", "Join the encounter (rolls initiative)", "bool", bool(state.encounter.order)),
            FormField("hidden", "Hidden from the players", "bool", False),
            VISIBILITY_FIELD,
        ]

        def validate(v: dict[str, Any]) -> None:
            if not v["name"].strip():
                raise ParamError("name", "must not be empty")
            shaped = id_shape_refusal(v["name"])
            if shaped is not None:
                raise ParamError("name", shaped)
            _check_optional_int(v["vitality"], "vitality")
            _check_optional_int(v.get("possibilities", ""), "possibilities", 0)
            for f in declared:
                parse_field(f, v[field_key(f)])  # ParamError naming the field's label

        def commit(v: dict[str, Any]) -> SessionCall:
            character: dict[str, Any] = {
                "name": v["name"].strip(),
                "side": v["side"],
                "kind": v["kind"],
                "reality_rated": bool(v.get("reality_rated", False)),
            }
            if v["vitality"].strip():
                character["vitality"] = int(v["vitality"])
            if v.get("possibilities", "").strip():
                character["possibilities"] = int(v["possibilities"])
            if v["hidden"]:
                character["hidden"] = True
            if v["visibility"]:  # "by side" leaves it to the side's default
                character["visibility"] = v["visibility"]
            # the system's fields in the same event (a stat names an entry typed here)
            fields = {f.name: v[field_key(f)] for f in declared if _given(v[field_key(f)])}
            if fields:
                character["fields"] = fields
            return self._add_character(character, join=bool(v["join"]))

        def done(added: Any) -> None:
            if added is None:
                return
            cid, character, join = added
            if cid is not None:
                # the dialog closes after the desk redrew for the new character: the
                # panes follow the selection now (the keys act on what they show)
                self.desk.selected = cid
                self.desk.remember_selection()
                self.desk.refresh_view()
            hidden = " (hidden from the players)" if character.get("hidden") else ""
            self.desk.say(f"{character['name']} added" + (" to the encounter" if join else "") + hidden)

        # the dialog stays open until the session accepted the character (a refused
        # name keeps everything typed)
        form = NewCharacterDialog("New character", fields, validate=validate, commit=commit, verb="add")
        # a refused field (the event names it) is named by its label, as in the pane
        form.labels.update({f.name: f.label for f in declared})
        self.desk.app.push_screen(form, done)

    def _add_character(self, character: dict[str, Any], *, join: bool) -> SessionCall:
        """The session call that adds ``character`` (and rolls its initiative if it
        joins); it returns ``(id, character, join)``."""
        rng = self.desk.rng

        def fn(s: Session) -> Any:
            event = s.apply({"type": "character.add", "character": character})
            cid = event.data.get("id")
            if join and cid is not None:
                s.join_encounter(cid, rng)  # the initiative roll is logged with its dice
            return cid, character, join

        return fn

    def add_from_bestiary(self) -> None:
        """ "Add from bestiary": numbered copies of a stat block join the encounter."""
        from gmdesk.tui.screens.bestiary import BestiaryDialog

        desk = self.desk

        def go() -> None:
            if desk.readonly:
                desk.say("This session is open read-only.", error=True)
                return
            system = desk.state.info.system
            try:
                name = get_spec(system).name
            except GmdeskError:
                name = system

            def added(event: Event | None) -> None:
                if event is None:
                    return
                ids = list(event.data.get("ids") or ())
                if ids and ids[0] in desk.state.characters:
                    desk.selected = ids[0]
                    desk.remember_selection()
                    desk.refresh_view()
                desk.say(f"{event.summary} — {desk.undo_hint()}")

            # the bestiary of the saves directory the desk lists (the session's own, else)
            saves = getattr(desk.app, "saves_dir", None) or (desk.session.path and desk.session.path.parent)
            if saves is None:
                desk.say("This session has no saves directory, so no bestiary.", error=True)
                return
            desk.app.push_screen(BestiaryDialog(saves, system, name, rng=desk.rng), added)

        desk.when_idle(go)

    def remove(self) -> None:
        """ "Remove character…": after asking, the selected character leaves the session."""
        cid = self.desk.need_selected()
        if cid is None:
            return
        name = name_of(self.desk.state, cid)

        listed = list(self.desk.initiative.row_ids)
        at = listed.index(cid) if cid in listed else -1
        # the selection stays where it was in the list: the next character, else the one above
        neighbour = next((c for c in listed[at + 1 :] + listed[:at][::-1] if c != cid), None) if at >= 0 else None

        def removed(_ev: Any) -> None:
            if neighbour in self.desk.state.characters:
                self.desk.selected = neighbour
                self.desk.remember_selection()

        def done(yes: bool | None) -> None:
            if yes:
                self.desk.apply(
                    {"type": "character.remove", "id": cid}, f"{name} removed — {self.desk.undo_hint()}", done=removed
                )

        self.desk.app.push_screen(
            ConfirmDialog(f"Remove {name} from the session? (u undoes it)", yes="Remove", title="Remove character"),
            done,
        )

    def toggle_hidden(self) -> None:
        """Hide the selected character from the players, or reveal a hidden one (one
        undoable event). Its rolls made while hidden stay hidden: the palette's "Reveal
        earlier rolls" shows them too."""
        cid = self.desk.need_selected()
        if cid is None:
            return

        def fn(s: Session) -> Any:
            c = s.state.characters[cid]
            if not c.hidden:
                return s.apply({"type": "character.hide", "id": cid}), 0
            return s.apply({"type": "character.reveal", "id": cid}), len(hidden_rolls(s.state, cid))

        def done(result: Any) -> None:
            event, left = result
            if event.type == "character.hide":
                self.desk.say(f"{event.summary} — {self.desk.undo_hint()}")
            elif left:
                rolls = f"{left} earlier roll{'s' if left != 1 else ''}"
                self.desk.say(f"{event.summary}; its {rolls} stay hidden (palette: Reveal earlier rolls)")
            else:
                self.desk.say(event.summary)

        self.desk.submit(fn, done)

    def cycle_visibility(self) -> None:
        """What the players see of the selected character, one level further round
        (name only → name and wounds → all → name only): one undoable event each."""
        from gmdesk.core.session.events.seen import next_level

        cid = self.desk.need_selected()
        if cid is None:
            return

        def fn(s: Session) -> Any:
            c = s.state.characters[cid]
            return s.apply({"type": "visibility.set", "id": cid, "level": next_level(c.seen)}), c.hidden

        def done(result: Any) -> None:
            event, hidden = result
            still = " (hidden from the players until revealed)" if hidden else ""
            self.desk.say(f"{event.summary}{still} — {self.desk.undo_hint()}")

        self.desk.submit(fn, done)

    def reveal_rolls(self) -> None:
        """Show the players the rolls the selected character made or took while hidden."""
        cid = self.desk.need_selected()
        if cid is None:
            return
        name = name_of(self.desk.state, cid)

        def fn(s: Session) -> Any:
            rolls = hidden_rolls(s.state, cid)
            if not rolls:
                raise GmdeskError(f"{name} has no roll hidden from the players")
            return s.apply({"type": "character.reveal", "id": cid, "rolls": rolls})

        self.desk.submit(fn, lambda event: self.desk.say(event.summary))

    def import_sheet(self) -> None:
        """ "Import a descriptor sheet…": a sheet file read for the selected character."""
        cid = self.desk.need_selected()
        if cid is None:
            return
        name = name_of(self.desk.state, cid)

        def commit(text: str) -> SessionCall:
            file = text.strip()

            def fn(s: Session) -> Any:

                if not file:
                    raise ParamError("file", "type the path of a sheet file")
                try:
                    content = Path(file).expanduser().read_text(encoding="utf-8")
                except OSError as e:
                    raise GmdeskError(f"{file}: {e.strerror or e}") from None
                s.apply({"type": "sheet.import", "id": cid, "text": content})
                return file

            return fn

        def imported(file: Any) -> None:
            if file is not None:
                self.desk.say(f"{name}: sheet imported from {file}")

        self.desk.app.push_screen(
            InputDialog(
                f"Descriptor sheet file for {name}",
                placeholder="path/to/sheet.txt",
                title="Import a sheet",
                commit=commit,
                label="Sheet file",
                verb="import",
            ),
            imported,
        )


def declared_fields(system: str) -> tuple[CharField, ...]:
    """The character fields ``system`` declares (none for a system not installed)."""
    try:
        return get_spec(system).character_fields
    except GmdeskError:
        return ()


def field_key(f: CharField) -> str:
    """The new-character form's key of a declared field (apart from the form's own)."""
    return f"field-{f.name}"


def character_field(f: CharField) -> FormField:
    """The new-character form's field for a declared character field: a choice, a
    flag, or a text (a table of named values typed as ``Dodge=11, Fire Combat=13``)."""
    if f.type == "bool":
        return FormField(field_key(f), f.label, "bool", bool(f.default))
    if f.type == "choice":
        choices = [("", "—")] + [(c, c) for c in f.choices]
        return FormField(field_key(f), f.label, "choice", "" if f.default is None else str(f.default), choices)
    # the declared placeholder is an example (as the character pane says it): "e.g."
    # tells it from a value typed, also where the dimmed placeholder reads as any text
    example = f"e.g. {f.placeholder}" if f.placeholder else ""
    hint = example or (show_field(f, f.default) if f.default is not None else "")
    if f.default is not None and f.placeholder and str(f.default) not in f.placeholder:
        hint = f"{example} (default {show_field(f, f.default)})"
    return FormField(field_key(f), f.label, "text", "", placeholder=hint)


def _given(value: Any) -> bool:
    return value not in (None, "", False) and not (isinstance(value, str) and not value.strip())


def _check_optional_int(text: str, option: str = "initiative", lo: int | None = None) -> None:
    if text.strip():
        parse_int(option, text, lo)
