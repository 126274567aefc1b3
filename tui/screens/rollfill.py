"""What the roll dialog (:class:`tui.screens.roll.RollDialog`) fills in by itself, each
value shown and the GM's to change (:class:`FormFill`):

* the roller's and the target's character fields (``field_defaults`` of
  :mod:`core.session.params`: Quinn's Fire Combat as the Skill value, the Trooper's
  Dodge as the Difficulty), each with a note saying where it came from;
* what the session knows (``roll_defaults``: conditions, the session's settings) —
  the same code path as ``gmdesk roll … --save``;
* what the system offers in an attack (``Param.combat_default``), else the declared
  default.

A move that opens the dialog (an opposed roll, a fold) sets its own values first;
what the GM typed in this roller's last roll comes after the characters' fields,
only for what the system declares remembered (``Param.remember``: a skill value, a
weapon's damage — never a one-off choice such as a fold), and a note says that the
value came from the last roll. When the GM picks another roller or target, the
values filled from the old one are replaced and the values the GM typed are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from gmdesk.core.session.params import field_defaults, roll_defaults
from gmdesk.core.systems.spec import SystemSpec
from gmdesk.tui.screens.rollforms import control_value, said, set_value, shown_field, value_of
from gmdesk.tui.widgets.form import FormField

if TYPE_CHECKING:
    from gmdesk.core.session import Character, State

#: the key of :attr:`tui.screens.roll.RollRequest.values` that says at whom the typed
#: values were aimed (a value typed against one target is not offered against another)
TYPED_AT = "~target"


@dataclass(frozen=True)
class Aim:
    """The roll the form is for, as the dialog stands now: what its filling reads."""

    state: State
    system: str
    spec: SystemSpec
    actor: Character | None
    target: Character | None
    target_id: str | None  # the target chosen (an untracked one has no character)
    combat: bool
    opposed: bool  # both sides filled from their fields, as in an attack


def filled(aim: Aim, fields: list[FormField]) -> dict[str, tuple[Any, str]]:
    """What the dialog fills in by itself, for every field: (the control's value, the
    character field it came from or "")."""
    actor, target, spec = aim.actor, aim.target, aim.spec
    from_fields = field_defaults(spec, actor, target, aim.combat, aim.opposed) if actor or target else {}
    session = roll_defaults(aim.state.info.settings, aim.system, actor, target, aim.combat)
    out: dict[str, tuple[Any, str]] = {}
    for f in fields:
        p = spec.param(f.key)
        if f.key in from_fields:
            value, origin = from_fields[f.key]
            out[f.key] = (control_value(f, shown_field(spec, f.key, value)), str(origin))
        elif f.key in session:
            out[f.key] = (control_value(f, session[f.key]), "")
        elif aim.combat and p is not None and p.combat_default is not None:
            out[f.key] = (control_value(f, p.combat_default), "")
        else:
            out[f.key] = (f.value, "")
    return out


class FormFill:
    """What the dialog put in each field by itself in this open, and where it came
    from: a value still as filled in is the dialog's (filled afresh when the roller or
    the target changes, said in a note, not remembered as typed); any other is the
    GM's."""

    def __init__(self) -> None:
        self.auto: dict[str, Any] = {}  # what the dialog put in each control by itself
        self.origins: dict[str, str] = {}  # where a value filled from a character came from
        self.from_last: dict[str, Any] = {}  # the values offered again from the last roll

    def start(
        self, aim: Aim, fields: list[FormField], preset: Mapping[str, Any], remembered: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Each field's first value: the move's preset (in an opposed roll, after a
        character's field), else a character's field, else what the GM typed in the
        roller's last roll (what the system declares remembered, unless aimed at
        another target), else what the session fills in, else the attack's or the
        declared default."""
        auto = filled(aim, fields)
        target_fed = {f.feeds for f in aim.spec.character_fields if f.from_ == "target"}
        # a value typed against one target is not offered against another
        typed_at = remembered.get(TYPED_AT) if aim.target_id is not None else None
        aimed = (None, aim.target_id)
        out: dict[str, Any] = {}
        self.auto, self.origins, self.from_last = {}, {}, {}
        for f in fields:
            value, origin = auto[f.key]
            self.auto[f.key] = value
            if origin:
                self.origins[f.key] = origin
            p = aim.spec.param(f.key)
            # a move's preset wins; in an opposed roll, a character's field wins over it
            # (the preset is then what a side without the field rolls with)
            if f.key in preset and not (origin and aim.opposed):
                out[f.key] = control_value(f, preset[f.key])
            elif (
                not origin
                and p is not None
                and p.remember
                and f.key in remembered
                and (f.key not in target_fed or typed_at in aimed)
            ):
                out[f.key] = self.from_last[f.key] = control_value(f, remembered[f.key])
            else:
                out[f.key] = value
        return out

    def refill(self, aim: Aim, fields: list[FormField], controls: Mapping[str, Widget]) -> None:
        """The roller or target changed: what the dialog filled in from the old one is
        filled in afresh; what the GM typed stays."""
        for key, (value, origin) in filled(aim, fields).items():
            w = controls.get(key)
            if w is None:
                continue
            if value_of(w) == self.auto.get(key):
                set_value(w, value)
            self.auto[key] = value
            if origin:
                self.origins[key] = origin
            else:
                self.origins.pop(key, None)

    def notes(self, fields: list[FormField], values: Mapping[str, Any], roller: Character | None) -> list[str]:
        """ "Skill value 13 — Quinn's Fire Combat" for each value still as filled in,
        "Damage 2d6 — Kara's last roll" for each value still as offered again."""
        out = []
        last = f"{roller.name}'s last roll" if roller is not None else "the last roll"
        for f in fields:
            origin = self.origins.get(f.key)
            if origin and values.get(f.key) == self.auto.get(f.key):
                out.append(f"{f.label} {said(values[f.key])} — {origin}")
            elif f.key in self.from_last and values.get(f.key) == self.from_last[f.key]:
                out.append(f"{f.label} {said(values[f.key])} — {last}")
        return out

    def kept_origins(self, fields: list[FormField], values: Mapping[str, Any]) -> dict[str, str]:
        """Parameter → "Quinn's Fire Combat" for each value still as filled in."""
        return {
            f.key: self.origins[f.key]
            for f in fields
            if f.key in self.origins and values.get(f.key) == self.auto.get(f.key)
        }

    def typed(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The values the GM typed (any other than the dialog filled in)."""
        return {k: v for k, v in values.items() if v != self.auto.get(k)}
