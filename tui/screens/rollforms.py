"""The roll dialog's form, generated from a system's declared parameters, and how
what the GM typed becomes the system's parameter data.

Every parameter a system declares for the form (``Param.form``) gets the control its
type calls for: a whole number or a text → a text input (an optional one: empty
means none), a choice → a dropdown (an optional choice also offers its "none" label,
``Param.choice_labels``), a flag → a checkbox. A ``form_only`` parameter is a question
of the form that the system's own ``read_form`` reads. A system whose rolls move the
session's progress clocks (``SystemSpec.clocks``) also gets a Clock choice.

:func:`form_data` reads the form by the declared types, then hands the data to the
system's ``read_form`` hook (when it has one) for what only the system knows (names
read from a sheet, an opposed roll, a contest without DC) and the notes the dialog
shows about it. The rules stay with the system; nothing here names one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from textual.widget import Widget
from textual.widgets import Checkbox, Input

from gmdesk.core.systems.spec import COMMON_PARAMS, Param, SystemSpec
from gmdesk.core.text import signed
from gmdesk.tui.widgets.form import Choice, FormField

if TYPE_CHECKING:
    from gmdesk.core.session import Character

NONE = ""  # the "none" value of optional choices and of the target
CLOCK = "clock"  # the form's key of the clock a roll's progress goes to
CLOCK_LABEL = "Clock"

_FIELDS: dict[str, tuple[tuple[Param, ...], tuple[tuple[Param, FormField], ...]]] = {}


def param_field(p: Param) -> FormField:
    """The form field of one declared parameter (its control follows its type)."""
    if p.type == "bool":
        return FormField(p.name, p.label, "bool", bool(p.default))
    if p.type == "choice":
        labels = dict(p.choice_labels)
        choices = tuple((c, labels.get(c, c)) for c in p.choices)
        if p.optional:
            choices = ((NONE, labels.get(NONE, "none")),) + choices
        value = NONE if p.default is None else str(p.default)
        return FormField(p.name, p.label, "choice", value, choices)
    return FormField(p.name, p.label, "text", shown(p.default), placeholder=p.placeholder)


def form_fields(spec: SystemSpec) -> tuple[tuple[Param, FormField], ...]:
    """Each parameter of ``spec`` the form asks, with its field (built once per system)."""
    cached = _FIELDS.get(spec.id)
    if cached is None or cached[0] is not spec.params:
        cached = _FIELDS[spec.id] = (spec.params, tuple((p, param_field(p)) for p in spec.params if p.form))
    return cached[1]


def clock_field(clocks: Iterable[str], value: str = NONE) -> FormField:
    """The Clock choice: none, or one of the session's clocks."""
    names = list(clocks)
    return FormField(
        CLOCK, CLOCK_LABEL, "choice", value if value in names else NONE, [(NONE, "— none —")] + [(n, n) for n in names]
    )


def shown(value: Any) -> str:
    """A parameter's value as a text input shows it: "" for none, "+1,-2" for sources."""
    if value is None:
        return ""
    if isinstance(value, (tuple, list)):
        return ",".join(signed(v) if isinstance(v, int) and not isinstance(v, bool) else str(v) for v in value)
    return str(value)


def control_value(f: FormField, value: Any) -> Any:
    """``value`` (a parameter's) as ``f``'s control holds it."""
    if f.kind == "bool":
        return bool(value)
    if f.kind == "choice":
        value = NONE if value is None else str(value)
        return value if value in {v for v, _ in f.choices} else f.value
    return shown(value)


def labels(spec: SystemSpec) -> dict[str, str]:
    """What the dialog calls each parameter, under its name and under its CLI option
    (a system's errors name the option): errors speak the form's words."""
    out: dict[str, str] = {}
    # an attack is a dialog of its own, not a field: its flag keeps its words
    for p in spec.params + tuple(p for p in COMMON_PARAMS if p.name != "combat"):
        out[p.name] = p.label
        out[p.cli_option.lstrip("-").replace("-", "_")] = p.label
    return out


def typed_data(spec: SystemSpec, values: Mapping[str, Any], combat: bool) -> dict[str, Any]:
    """The form's ``values`` read by the declared types: a flag on or off, a choice or
    None, a text stripped (an empty one: None when optional, else the default)."""
    data: dict[str, Any] = {}
    for p, _f in form_fields(spec):
        v = values.get(p.name)
        if p.type == "bool":
            v = bool(v)
        elif p.type == "choice":
            v = None if v in (None, NONE) else v
        else:
            v = str(v if v is not None else "").strip()
            if not v:
                v = None if p.optional else p.default
        data[p.name] = v
    data["combat"] = combat
    return data


def form_data(
    spec: SystemSpec,
    values: Mapping[str, Any],
    actor: Character | None,
    target: Character | None,
    combat: bool,
) -> tuple[dict[str, Any], list[str]]:
    """The form's ``values`` as the system's parameter data (not yet checked by its
    Params), and the notes on how the system read them."""
    return read_form(spec, typed_data(spec, values, combat), actor, target, combat)


def read_form(
    spec: SystemSpec,
    data: dict[str, Any],
    actor: Character | None,
    target: Character | None,
    combat: bool,
    items: Any = (),
) -> tuple[dict[str, Any], list[str]]:
    """The system's own reading of the form's data (its ``read_form`` hook), if any.
    ``items``: the Physical Items the session's sheets list, for a hook that reads
    them (a missing name is an item when some sheet lists it)."""
    if spec.read_form is None:
        return data, []
    data, notes = spec.read_form(data, actor, target, combat, **spec.offered("read_form", items=items))
    return dict(data), [str(n) for n in notes]


def shown_field(spec: SystemSpec, param: str, value: Any) -> Any:
    """A value a character field filled into ``param``, as the field shows it (a
    ladder level's name rather than its number)."""
    for f in spec.character_fields:
        if f.feeds != param:
            continue
        source = spec.field(f.stats) if f.type == "stat" and f.stats else f
        show = getattr(source, "show", None)
        if show is not None and not isinstance(value, bool):
            try:
                return show(value)
            except Exception:  # a value the field cannot show reads as it is
                return value
        return value
    return value


def value_of(w: Widget) -> Any:
    """What a form control holds."""
    return w.value if isinstance(w, (Input, Checkbox, Choice)) else None


def set_value(w: Widget, value: Any) -> None:
    if isinstance(w, Checkbox):
        w.value = bool(value)
    elif isinstance(w, (Input, Choice)):
        if w.value != value:
            w.value = value


def check_as_session(spec: SystemSpec, params: Any, actor: Character | None, target: Character | None) -> None:
    """Refuse here, in the form, what the session would refuse after Enter (the
    same core checks ``Session.roll`` makes): an Unconscious or Dead roller, a Dead
    target, an attack on the roller itself, Possibilities the roller does not have."""
    from gmdesk.core.session import EventError
    from gmdesk.core.session.events import roll_refusal
    from gmdesk.core.session.session import params_refusal

    refusal = roll_refusal(actor, target, bool(getattr(params, "combat", False)))
    if refusal is not None:
        able = actor is None or actor.can_act
        at_target = target is not None and (target.status == "dead" or (actor is not None and target.id == actor.id))
        raise EventError(refusal, "roll", field="target" if at_target and able else "actor")
    refused = params_refusal(spec.id, params, actor)
    if refused is not None:
        raise refused


def said(value: Any) -> str:
    """A value as a note says it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


__all__ = [
    "check_as_session",
    "said",
    "set_value",
    "shown_field",
    "value_of",
    "CLOCK",
    "NONE",
    "clock_field",
    "control_value",
    "form_data",
    "form_fields",
    "labels",
    "param_field",
    "read_form",
    "shown",
    "typed_data",
]
