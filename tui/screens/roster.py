"""The characters on the GM's main screen: add one (name, side, kind, Vitality,
Possibilities, the numbers the session's system reads — generated from its declared
``CHARACTER_FIELDS``, as the character pane's section is — joining the encounter,
hidden from the players: one dialog, one event), remove one, hide
one from the players or reveal it, import a descriptor sheet, the
session's settings and a note in the log.

Names are unique in a session: the new-character dialog refuses a taken name in
place (with a numbered suggestion) and keeps what was typed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.session import Session
from gmdesk.core.session.events.visibility import hidden_rolls
from gmdesk.core.session.model.state import id_shape_refusal
from gmdesk.core.systems import character_sections, get_spec
from gmdesk.core.systems.base import parse_int
from gmdesk.core.systems.spec import CharField, parse_field, show_field
from gmdesk.tui.screens.confirm import ConfirmDialog, FormDialog, InputDialog
from gmdesk.tui.screens.desk import DeskScreen, SessionCall
from gmdesk.tui.widgets.common import name_of
from gmdesk.tui.widgets.form import FormField


class RosterMoves(DeskScreen):
    """The character moves of the main screen."""

    def action_new_character(self) -> None:
        state = self.state
        # a system that keeps Possibilities (its character sections) makes the new
        # character a reality-rated one by default and names the field's use
        possibilities = "possibilities" in character_sections(state.info.system)
        declared = declared_fields(state.info.system)
        system_fields = [character_field(f) for f in declared]
        fields = [
            FormField("name", "Name", "text", ""),
            FormField("side", "Side", "choice", "PC", (("PC", "PC (player)"), ("NPC", "NPC"))),
            FormField("kind", "Kind", "choice", "organic", (("organic", "organic"), ("inorganic", "inorganic"))),
            FormField("vitality", "Vitality", "text", "", placeholder="default Vitality"),
            FormField("possibilities", "Possibilities", "text", "", placeholder="e.g. 3" if possibilities else ""),
            FormField("reality_rated", "Reality-rated", "bool", possibilities),
            *system_fields,
            FormField("join", "Join the encounter (rolls initiative)", "bool", bool(state.encounter.order)),
            FormField("hidden", "Hidden from the players", "bool", False),
        ]

        def validate(v: dict) -> None:
            if not v["name"].strip():
                raise ParamError("name", "must not be empty")
            shaped = id_shape_refusal(v["name"])
            if shaped is not None:
                raise ParamError("name", shaped)
            _check_optional_int(v["vitality"], "vitality")
            _check_optional_int(v["possibilities"], "possibilities", 0)
            for f in declared:
                parse_field(f, v[field_key(f)])  # ParamError naming the field's label

        def commit(v: dict) -> SessionCall:
            character: dict[str, Any] = {
                "name": v["name"].strip(),
                "side": v["side"],
                "kind": v["kind"],
                "reality_rated": bool(v["reality_rated"]),
            }
            if v["vitality"].strip():
                character["vitality"] = int(v["vitality"])
            if v["possibilities"].strip():
                character["possibilities"] = int(v["possibilities"])
            if v["hidden"]:
                character["hidden"] = True
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
                self.selected = cid
                self.remember_selection()
            hidden = " (hidden from the players)" if character.get("hidden") else ""
            self.say(f"{character['name']} added" + (" to the encounter" if join else "") + hidden)

        # the dialog stays open until the session accepted the character (a refused
        # name keeps everything typed)
        form = FormDialog("New character", fields, validate=validate, commit=commit, verb="add")
        # a refused field (the event names it) is named by its label, as in the pane
        form.labels.update({f.name: f.label for f in declared})
        self.app.push_screen(form, done)

    def _add_character(self, character: dict, *, join: bool) -> SessionCall:
        """The session call that adds ``character`` (and rolls its initiative if it
        joins); it returns ``(id, character, join)``."""
        rng = self.rng

        def fn(s: Session) -> Any:
            event = s.apply({"type": "character.add", "character": character})
            cid = event.data.get("id")
            if join and cid is not None:
                s.join_encounter(cid, rng)  # the initiative roll is logged with its dice
            return cid, character, join

        return fn

    def action_remove_character(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)

        listed = list(self.initiative.row_ids)
        at = listed.index(cid) if cid in listed else -1
        # the selection stays where it was in the list: the next character, else the one above
        neighbour = next((c for c in listed[at + 1 :] + listed[:at][::-1] if c != cid), None) if at >= 0 else None

        def removed(_ev: Any) -> None:
            if neighbour in self.state.characters:
                self.selected = neighbour
                self.remember_selection()

        def done(yes: bool | None) -> None:
            if yes:
                self.apply(
                    {"type": "character.remove", "id": cid}, f"{name} removed — {self.undo_hint()}", done=removed
                )

        self.app.push_screen(
            ConfirmDialog(f"Remove {name} from the session? (u undoes it)", yes="Remove", title="Remove character"),
            done,
        )

    def action_toggle_hidden(self) -> None:
        """Hide the selected character from the players, or reveal a hidden one (one
        undoable event). Its rolls made while hidden stay hidden: the palette's "Reveal
        earlier rolls" shows them too."""
        cid = self._need_selected()
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
                self.say(f"{event.summary} — {self.undo_hint()}")
            elif left:
                rolls = f"{left} earlier roll{'s' if left != 1 else ''}"
                self.say(f"{event.summary}; its {rolls} stay hidden (palette: Reveal earlier rolls)")
            else:
                self.say(event.summary)

        self.submit(fn, done)

    def action_reveal_rolls(self) -> None:
        """Show the players the rolls the selected character made or took while hidden."""
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)

        def fn(s: Session) -> Any:
            rolls = hidden_rolls(s.state, cid)
            if not rolls:
                raise GmdeskError(f"{name} has no roll hidden from the players")
            return s.apply({"type": "character.reveal", "id": cid, "rolls": rolls})

        self.submit(fn, lambda event: self.say(event.summary))

    def action_import_sheet(self) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        name = name_of(self.state, cid)

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
                self.say(f"{name}: sheet imported from {file}")

        self.app.push_screen(
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

    def action_settings(self) -> None:
        """The session's settings as a form (tui.screens.settings); what changed is one
        ``session.settings`` event, undoable."""
        from gmdesk.tui.screens.settings import SettingsDialog

        def done(event: Any) -> None:
            if event is not None:
                self.say("\n".join([event.summary, *event.changes]))

        self.when_idle(
            lambda: self.app.push_screen(SettingsDialog(self.state.info.settings, self.state.info.system), done)
        )

    def action_note(self) -> None:
        def commit(text: str) -> SessionCall:
            return lambda s: s.apply({"type": "note", "text": text.strip()}) if text.strip() else None

        def done(event: Any) -> None:
            if event is not None:
                self.say("Note added")

        self.app.push_screen(
            InputDialog("Note for the log", title="Note", commit=commit, label="Note", verb="add to the log"), done
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
    hint = f.placeholder or (show_field(f, f.default) if f.default is not None else "")
    if f.default is not None and f.placeholder and str(f.default) not in f.placeholder:
        hint = f"{f.placeholder} (default {show_field(f, f.default)})"
    return FormField(field_key(f), f.label, "text", "", placeholder=hint)


def _given(value: Any) -> bool:
    return value not in (None, "", False) and not (isinstance(value, str) and not value.strip())


def _check_optional_int(text: str, option: str = "initiative", lo: int | None = None) -> None:
    if text.strip():
        parse_int(option, text, lo)
