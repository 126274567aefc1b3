"""A dice system as one declaration: what it rolls with, what a character carries
for it, its moves, and the functions that roll.

A system is a module (built in under ``core/systems``, or a plug-in package found
through the entry-point group ``gmdesk.systems``) that declares, at module level:

``ID`` / ``NAME``
    the identifier used by the CLI and the saves, and a display name.
``PARAMS``
    a tuple of :class:`Param`: every roll parameter, typed, labelled, with its help,
    default and range or choices, and whether it is the GM's secret. From it gmdesk
    generates the CLI options of ``gmdesk roll|odds SYSTEM``, the roll dialog's form,
    the labels of the log's breakdown and what the player view hides.
``CHARACTER_FIELDS``
    a tuple of :class:`CharField`: the numbers a character carries for the system,
    each saying which roll parameter it fills (``feeds``) and from whom (the roller
    or the target). From it gmdesk generates the character pane's section, the
    ``gmdesk char`` fields and the filling of a roll from its roller and target.
``MOVES`` (optional)
    a tuple of :class:`Move`: named actions besides a roll (spend a Possibility, a
    Healing, a preset roll such as an opposed one). From it gmdesk generates the
    desk's keys and palette entries.
``EXTRA_LABELS`` (optional)
    ``(record extra key, label)`` pairs: the record's own fields the breakdown
    shows, in order.
``CHARACTER_SECTIONS`` (optional)
    the built-in parts of a character the system uses (:data:`SECTIONS`).
``SIGNED`` (optional, default False)
    whether the headline value reads as a signed number (a bonus) or a plain total.
``SIGNED_EXTRAS`` (optional)
    the keys of ``EXTRA_LABELS`` whose numbers read signed (``+2``, a margin).
``BREAKDOWN_PARAMS`` (optional)
    ``(parameter name, label)`` pairs: the roll's own parameters the breakdown
    names before its numbers (the descriptors a 1d6x4 Test added up).
``ODDS_FOLD`` (optional)
    ``(lo, hi)``: the odds table reads as a curve between these values, each far
    tail summed into one row (an open-ended roll's rerolls).
``dice_labels(record)`` (optional)
    what the log calls the groups of the record's dice: ``{"own": "attack", "vs":
    "defense"}`` (``own``: the roller's dice, unnamed by default; ``vs``: the
    opponent's, ``"vs"`` by default); ``{}`` for the defaults.
``opponent_brief(record)`` (optional)
    the other side of an opposed roll in a few words for the one-line log (``(Good
    vs Superb +1)``); without it, ``vs`` and the opponent's total.
``TABLE_ROLES`` (optional)
    the table roles (``core.tables.TableSet`` roles, or the system's own data
    tables) the system reads.
``CLOCKS`` (optional, default False)
    whether its rolls move the session's progress clocks (the roll dialog then asks
    which clock).
``DEFENSELESS`` (optional)
    the name of the system's ``bool`` parameter that says the other side of an
    opposed roll cannot act (Unconscious, Dead): it rolls no defense and counts the
    lowest result its roll could give (RULES "Who can act"). The session sets it
    whenever the target cannot act; a system whose defense is no roll (a fixed
    difficulty) has none.
``INITIATIVE_FAILS`` (optional)
    ``f(character) -> str | None``: why the character's initiative fails
    automatically (a 1d6x4 Reflex at −5: descriptors at −5 cannot be used), or None.
    The session then passes ``auto_fail=reason`` to the system's ``initiative``,
    which rolls no die and marks the record's ``auto_fail``; such a character is
    seated after everyone who rolled.
``read_form(data, actor, target, combat)`` (optional)
    the system's own reading of the roll dialog's values (and of ``gmdesk roll
    --save`` options) beyond their declared types: returns ``(data, notes)``, the
    data its Params read and the notes the dialog shows (descriptors read from a
    sheet, an opposed roll against Fair…).
``parse_initiative(option, text)`` / ``INITIATIVE_HINT`` (optional)
    a typed initiative (or initiative modifier) read the system's way, an int
    (``ParamError`` naming ``option`` otherwise; without the hook: a whole number),
    and what the GM may type ("a number or a ladder level").
``rest(character)`` (optional)
    the system's recovery between sessions, for ``gmdesk new NAME --from LAST
    --rest`` (the picker's "Next night from…" with "rest"): takes a character as
    ``Character.to_json`` writes it (without its id) and returns a new dict, the
    character after the rest (1d6x4: a new day). Without the hook, Vitality goes
    back to its default, wounds are cleared and what was counted in rounds is over
    (:func:`core.systems.rest.default_rest`); a rest never changes the Dead.
``Params`` (optional)
    a frozen dataclass validating the parameters (raise ``ParamError`` naming the
    CLI option, ``--name``). Without one, gmdesk generates a validating parameter
    object from ``PARAMS`` (:func:`params_class`); a system with rules across
    parameters gives ``check(params)`` instead, raising ``ParamError``.
``roll(params, rng, tables)`` / ``odds(params, tables)`` / ``initiative(rng, modifier)``
    pure functions: a ``RollRecord``, an exact ``Odds``, the initiative roll.

The combat parameters every system shares (``combat``, ``target_kind``,
``attacker_kind``) are :data:`COMMON_PARAMS`; a system does not declare them again.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from gmdesk.core.errors import ParamError

#: the types a :class:`Param` or :class:`CharField` may have
#:
#: ``int``: a whole number in ``lo..hi``; ``text``: free text the system's Params
#: read (a ladder name or a number, a list of sources, descriptor names, a damage
#: formula…); ``choice``: one of ``choices``; ``bool``: on or off.
PARAM_TYPES = ("int", "text", "choice", "bool")

#: what a character field may hold, beyond :data:`PARAM_TYPES`:
#:
#: ``stats``: named values (``{"Fire Combat": 13, "Dodge": 11}``), the character's
#: attributes, skills or traits; ``stat``: the name of one entry of the character's
#: ``stats`` field named by :attr:`CharField.stats` (the value fed is that entry's).
FIELD_TYPES = PARAM_TYPES + ("stats", "stat")

#: where a character field's value comes from when it fills a roll
FROM = ("roller", "target")

#: the pseudo-parameter an initiative modifier field feeds
INITIATIVE = "initiative"

#: Every built-in part of a character a system may use (``CHARACTER_SECTIONS``).
SECTIONS = ("vitality", "possibilities", "advantage", "shift", "conditions", "wounds", "sheet")

#: the rolls a :class:`CharField` may fill: a plain roll, an attack, an opposed roll
#: (the ``o`` move: a contest, a two-way Test)
ROLL_KINDS = ("roll", "attack", "opposed")

#: which roll dialog offers a :class:`Param`: both, only an attack, only a plain roll
OFFERED = ("any", "attack", "roll")

#: the kinds of :class:`Move`
MOVE_KINDS = ("preset", "condition", "action")

#: the types a :class:`MoveField` may have
MOVE_FIELD_TYPES = PARAM_TYPES + ("character",)


@dataclasses.dataclass(frozen=True)
class Param:
    """One roll parameter.

    ``name`` is the parameter's key in the record's params (and the Params field);
    the CLI option is ``--name`` with dashes unless ``option`` says otherwise.
    ``optional``: empty means "none" (``None``); ``form`` / ``cli``: whether the roll
    dialog / the CLI offers it (a parameter the session fills in, such as a setting,
    may be left out of the form). ``choice_labels``: what the form shows for each
    choice (default: the choice itself; an optional choice adds "none").
    ``form_only``: a question of the roll dialog only, read by the system's
    ``read_form`` (no Params field, no CLI option). ``combat_default``: what the roll
    dialog offers in an attack (None: ``default``), such as the defender's Defense.
    ``remember``: the roll dialog offers the value the GM typed in the same roller's
    last roll again (and says so); only what describes the roller itself (a skill
    value, a weapon's damage) is remembered — what comes from the roller's state
    now or is decided roll by roll (a fold, conditions, sources, Possibilities spent,
    an opposed roll) starts afresh. ``offered``: which dialog offers it (:data:`OFFERED`):
    ``"any"``, only an ``"attack"`` (a parameter that counts only there, or is
    refused elsewhere) or only a plain ``"roll"`` (one an attack refuses).
    ``replaces``: the parameters a value typed here stands in for — what the session
    would fill into them from the characters is left out (1d6x4's target number
    replaces the defender's Defense Test; a typed value always wins)."""

    name: str
    label: str
    type: str = "int"
    default: Any = None
    help: str = ""
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    choice_labels: tuple[tuple[str, str], ...] = ()
    optional: bool = False
    secret: bool = False
    placeholder: str = ""
    metavar: str = ""
    option: str = ""
    form: bool = True
    cli: bool = True
    form_only: bool = False
    setting: str = ""
    combat_default: Any = None
    remember: bool = False
    replaces: tuple[str, ...] = ()
    offered: str = "any"

    def __post_init__(self) -> None:
        if self.type not in PARAM_TYPES:
            raise ValueError(f"parameter {self.name!r}: type must be one of {', '.join(PARAM_TYPES)}")
        if self.offered not in OFFERED:
            raise ValueError(f"parameter {self.name!r}: offered must be one of {', '.join(OFFERED)}")
        if self.type == "choice" and not self.choices:
            raise ValueError(f"parameter {self.name!r}: a choice needs its choices")

    @property
    def cli_option(self) -> str:
        return self.option or "--" + self.name.replace("_", "-")

    def in_dialog(self, combat: bool) -> bool:
        """Whether the roll dialog asks it: an attack (``combat``) or a plain roll."""
        return self.form and self.offered in ("any", "attack" if combat else "roll")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "type": self.type,
            "default": self.default,
            "help": self.help,
            "option": self.cli_option,
        }
        if self.lo is not None or self.hi is not None:
            out["min"], out["max"] = self.lo, self.hi
        if self.choices:
            out["choices"] = list(self.choices)
        if self.optional:
            out["optional"] = True
        if self.secret:
            out["secret"] = True
        return out


@dataclasses.dataclass(frozen=True)
class CharField:
    """One number (or name, or table of named values) a character carries for a
    system. ``feeds``: the roll parameter it fills (or :data:`INITIATIVE`, the
    initiative roll's modifier; ``None`` when it fills nothing by itself, such as a
    ``stats`` table); ``from_``: whose field fills it, the roller's or the target's.
    ``combat_only``: it fills the parameter only in an attack and in an opposed
    roll, both sides filled as in an attack. ``fills``: the rolls it fills
    (:data:`ROLL_KINDS`) when they are not those — 4d6's Defense DC only an attack,
    its Contest skill only a contest. ``stats``: for a
    ``stat`` field, the name of the ``stats`` field whose entry it names.
    ``parse``: the system's own reading of a value (or of a ``stats`` entry's
    value), ``parse(label, value)``, raising ``ParamError``; without one the type
    decides. ``show``: how a value (or a ``stats`` entry's value) reads, e.g. a
    ladder level's name; without one ``str``. Read and show values with
    :func:`parse_field` and :func:`show_field`."""

    name: str
    label: str
    type: str = "int"
    feeds: str | None = None
    from_: str = "roller"
    help: str = ""
    default: Any = None
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    stats: str | None = None
    combat_only: bool = False
    placeholder: str = ""
    parse: Callable[[str, Any], Any] | None = None
    show: Callable[[Any], str] | None = None
    fills: tuple[str, ...] = ()

    def fills_in(self, kind: str) -> bool:
        """Whether it fills its parameter in a roll of ``kind`` (:data:`ROLL_KINDS`)."""
        if self.fills:
            return kind in self.fills
        return kind != "roll" if self.combat_only else True

    def __post_init__(self) -> None:
        for kind in self.fills:
            if kind not in ROLL_KINDS:
                raise ValueError(f"character field {self.name!r}: fills must name {', '.join(ROLL_KINDS)}")
        if self.type not in FIELD_TYPES:
            raise ValueError(f"character field {self.name!r}: type must be one of {', '.join(FIELD_TYPES)}")
        if self.from_ not in FROM:
            raise ValueError(f"character field {self.name!r}: from must be roller or target")
        if self.type == "stat" and not self.stats:
            raise ValueError(f"character field {self.name!r}: a stat names the stats field it reads")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "type": self.type,
            "feeds": self.feeds,
            "from": self.from_,
            "help": self.help,
        }
        if self.default is not None:
            out["default"] = self.default
        if self.choices:
            out["choices"] = list(self.choices)
        if self.stats:
            out["stats"] = self.stats
        if self.combat_only:
            out["combat_only"] = True
        if self.fills:
            out["fills"] = list(self.fills)
        return out


@dataclasses.dataclass(frozen=True)
class MoveField:
    """One field of a move's form: ``type`` as a :class:`Param`'s, or ``character``
    (one of the session's characters; ``default`` "selected" or "acting").
    ``choices``: (value, label) pairs of a ``choice`` (a ``character`` field without
    them offers every character). ``lo`` / ``hi``: the range of an ``int``."""

    name: str
    label: str
    type: str = "text"
    default: Any = None
    choices: tuple[tuple[Any, str], ...] = ()
    placeholder: str = ""
    help: str = ""
    lo: int | None = None
    hi: int | None = None

    def __post_init__(self) -> None:
        if self.type not in MOVE_FIELD_TYPES:
            raise ValueError(f"move field {self.name!r}: type must be one of {', '.join(MOVE_FIELD_TYPES)}")


@dataclasses.dataclass(frozen=True)
class Move:
    """A named action of the system besides a plain roll.

    ``kind``:

    * ``preset``: the roll dialog, opened with ``preset`` (parameter name → value)
      filled in (an opposed roll, a folded roll);
    * ``condition``: toggles the condition ``condition`` on the selected character;
    * ``action``: a session move run by ``run`` (see below).

    ``id`` is also the key binding's id (``main.<id>``), ``key`` its default key (or
    None: palette only). For an ``action``: ``form(state, context)`` returns the
    fields to ask (an empty list: no question), or raises ``GmdeskError`` saying why
    the move cannot be made now; ``context`` holds ``selected`` / ``acting`` (ids or
    None) and ``roll`` (the seq of the roll under the log cursor, or None).
    ``confirm``: a question to confirm first (no fields). ``run(session, values,
    context, rng)`` appends the move's one event and returns it (``values``: the
    form's, ``int`` and ``bool`` fields already read; a refusal raises
    ``GmdeskError``, or ``ParamError`` naming the field); ``said(state, event)`` is
    the line the desk shows once it is done. ``verb``: what Enter does in its form
    ("heal d6…"); ``hint(state, context)``: a note the form shows (where a default
    comes from).

    A ``preset`` with ``target`` opens the dialog at the roller's default target
    (an opposed roll, a contest)."""

    id: str
    title: str
    help: str = ""
    key: str | None = None
    kind: str = "action"
    preset: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    condition: str = ""
    confirm: str = ""
    verb: str = ""
    form: Callable[[Any, Mapping[str, Any]], Sequence[MoveField]] | None = None
    run: Callable[[Any, Mapping[str, Any], Mapping[str, Any], Any], Any] | None = None
    said: Callable[[Any, Any], str] | None = None
    target: bool = False
    hint: Callable[[Any, Mapping[str, Any]], str] | None = None

    @property
    def binding_id(self) -> str:
        """The desk's binding id of the move (``main.<id>``), which the GM's keymap names."""
        return f"main.{self.id}"

    def __post_init__(self) -> None:
        if self.kind not in MOVE_KINDS:
            raise ValueError(f"move {self.id!r}: kind must be one of {', '.join(MOVE_KINDS)}")
        if self.kind == "action" and self.run is None:
            raise ValueError(f"move {self.id!r}: an action needs its run")
        if self.kind == "condition" and not self.condition:
            raise ValueError(f"move {self.id!r}: a condition move names its condition")


#: the combat parameters every system's Params has (``core.systems.base.CombatFields``)
COMMON_PARAMS: tuple[Param, ...] = (
    Param("combat", "Attack", "bool", False, "resolve as an attack into a combat descriptor", form=False),
    Param(
        "target_kind",
        "Target kind",
        "choice",
        "organic",
        "kind of whoever is attacked (picks the descriptor column)",
        choices=("organic", "inorganic"),
        form=False,
    ),
    Param(
        "attacker_kind",
        "Attacker kind",
        "choice",
        "organic",
        "kind of the attacker (receives negative results)",
        choices=("organic", "inorganic"),
        form=False,
    ),
)


@dataclasses.dataclass(frozen=True)
class SystemSpec:
    """A loaded system: its declaration, read once from its module."""

    id: str
    name: str
    module: ModuleType
    params: tuple[Param, ...]
    character_fields: tuple[CharField, ...] = ()
    moves: tuple[Move, ...] = ()
    extra_labels: tuple[tuple[str, str], ...] = ()
    sections: frozenset[str] = frozenset(SECTIONS)
    signed: bool = False
    table_roles: tuple[str, ...] = ()
    clocks: bool = False
    signed_extras: frozenset[str] = frozenset()
    breakdown_params: tuple[tuple[str, str], ...] = ()
    odds_fold: tuple[int, int] | None = None
    defenseless: str | None = None
    initiative_fails: Callable[[Any], str | None] | None = None

    @classmethod
    def from_module(cls, module: ModuleType) -> SystemSpec:
        """Read a system module's declaration; ``ValueError`` naming what is missing or
        wrong (a plug-in so reported is left out, the others keep working)."""
        for name in ("ID", "NAME", "PARAMS", "roll", "odds", "initiative"):
            if not hasattr(module, name):
                raise ValueError(f"{module.__name__} declares no {name}")
        params = tuple(module.PARAMS)
        for p in params:
            if not isinstance(p, Param):
                raise ValueError(f"{module.__name__}.PARAMS holds {p!r}, not a Param")
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ValueError(f"{module.__name__}.PARAMS names a parameter twice")
        for p in params:
            for r in p.replaces:
                if r not in names:
                    raise ValueError(f"parameter {p.name!r} replaces {r!r}, which is no parameter")
        fields = tuple(getattr(module, "CHARACTER_FIELDS", ()))
        feedable = set(names) | {INITIATIVE}
        field_names = {f.name for f in fields}
        for f in fields:
            if not isinstance(f, CharField):
                raise ValueError(f"{module.__name__}.CHARACTER_FIELDS holds {f!r}, not a CharField")
            if f.feeds is not None and f.feeds not in feedable:
                raise ValueError(f"character field {f.name!r} feeds {f.feeds!r}, which is no parameter")
            if f.stats is not None and f.stats not in field_names:
                raise ValueError(f"character field {f.name!r} reads stats {f.stats!r}, which is no field")
        moves = tuple(getattr(module, "MOVES", ()))
        for m in moves:
            if not isinstance(m, Move):
                raise ValueError(f"{module.__name__}.MOVES holds {m!r}, not a Move")
            if not m.id.isidentifier():
                raise ValueError(f"move {m.id!r}: its id must be a name (letters, digits, _)")
        defenseless = getattr(module, "DEFENSELESS", None)
        if defenseless is not None:
            p = next((p for p in params if p.name == defenseless), None)
            if p is None or p.type != "bool":
                raise ValueError(f"{module.__name__}.DEFENSELESS must name one of its bool parameters")
        move_ids = [m.id for m in moves]
        if len(set(move_ids)) != len(move_ids):
            raise ValueError(f"{module.__name__}.MOVES names a move twice")
        return cls(
            id=str(module.ID),
            name=str(module.NAME),
            module=module,
            params=params,
            character_fields=fields,
            moves=moves,
            extra_labels=tuple(getattr(module, "EXTRA_LABELS", ())),
            sections=frozenset(getattr(module, "CHARACTER_SECTIONS", SECTIONS)),
            signed=bool(getattr(module, "SIGNED", False)),
            table_roles=tuple(getattr(module, "TABLE_ROLES", ())),
            clocks=bool(getattr(module, "CLOCKS", False)),
            signed_extras=frozenset(getattr(module, "SIGNED_EXTRAS", ())),
            breakdown_params=tuple(getattr(module, "BREAKDOWN_PARAMS", ())),
            odds_fold=_fold(module),
            defenseless=defenseless,
            initiative_fails=_callable(module, "INITIATIVE_FAILS"),
        )

    def hook(self, name: str) -> Callable[..., Any] | None:
        """The module's optional function ``name`` (``read_form``, ``dice_labels``…),
        or None when the system does without it."""
        fn = getattr(self.module, name, None)
        return fn if callable(fn) else None

    # ---- parameters

    @functools.cached_property
    def Params(self) -> type:
        """The system's own ``Params``, else one generated from ``PARAMS``."""
        own = getattr(self.module, "Params", None)
        if own is not None:
            return own
        return params_class(self.params, getattr(self.module, "check", None))

    def params_from_json(self, data: Mapping[str, Any]) -> Any:
        """Validated parameters from their JSON (``ParamError`` naming the option)."""
        from gmdesk.core.systems.base import dataclass_from_json

        return dataclass_from_json(self.Params, data)

    def params_to_json(self, params: Any) -> dict[str, Any]:
        from gmdesk.core.systems.base import dataclass_to_json

        return dataclass_to_json(params)

    # ---- lookups

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params + COMMON_PARAMS if p.name == name), None)

    def replaced_by(self, given: Any) -> frozenset[str]:
        """The parameters that values typed in ``given`` (parameter names) stand in
        for (:attr:`Param.replaces`): the session fills nothing into them."""
        return frozenset(r for p in self.params if p.name in given for r in p.replaces)

    def field(self, name: str) -> CharField | None:
        return next((f for f in self.character_fields if f.name == name), None)

    def move(self, move_id: str) -> Move | None:
        return next((m for m in self.moves if m.id == move_id), None)

    @property
    def secret_params(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.secret)

    def label_of(self, option: str) -> str:
        """The form label of the parameter a ``ParamError`` names (``--vs-trait`` or
        ``vs_trait``); the option itself when no parameter has that name."""
        for p in self.params + COMMON_PARAMS:
            if option in (p.name, p.cli_option):
                return p.label
        return option

    def to_json(self) -> dict[str, Any]:
        """What ``gmdesk systems --json`` lists for the system."""
        return {
            "id": self.id,
            "name": self.name,
            "params": [p.to_json() for p in self.params if not p.form_only],
            "character_fields": [f.to_json() for f in self.character_fields],
            "moves": [{"id": m.id, "title": m.title, "help": m.help, "key": m.key} for m in self.moves],
        }


def _callable(module: ModuleType, name: str) -> Callable[..., Any] | None:
    fn = getattr(module, name, None)
    if fn is not None and not callable(fn):
        raise ValueError(f"{module.__name__}.{name} must be a function")
    return fn


def _fold(module: ModuleType) -> tuple[int, int] | None:
    fold = getattr(module, "ODDS_FOLD", None)
    if fold is None:
        return None
    lo, hi = fold
    if not (isinstance(lo, int) and isinstance(hi, int) and lo < hi):
        raise ValueError(f"{module.__name__}.ODDS_FOLD must be two whole numbers, low then high")
    return lo, hi


def check_value(p: Param | CharField, value: Any) -> Any:
    """A value of a parameter or field read by its declared type (``ParamError``
    naming the CLI option / the field otherwise): ``None`` for an empty optional."""
    from gmdesk.core.systems.base import parse_choice, parse_int

    option = p.cli_option if isinstance(p, Param) else p.name
    if value is None or (isinstance(value, str) and not value.strip()):
        if isinstance(p, Param) and not p.optional and p.type != "text":
            return p.default
        return None if (isinstance(p, CharField) or p.optional) else p.default
    if p.type == "int":
        return parse_int(option, value, p.lo, p.hi)
    if p.type == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on", "y"):
            return True
        if text in ("0", "false", "no", "off", "n"):
            return False
        raise ParamError(option, f"must be yes or no (got {value!r})")
    if p.type == "choice":
        text = str(value).strip()
        match = next((c for c in p.choices if c.casefold() == text.casefold()), text)
        return parse_choice(option, match, p.choices)
    return str(value).strip() if isinstance(value, str) else value


def _entry(f: CharField, value: Any, option: str) -> Any:
    """One value of a field (or of one entry of a ``stats`` field) read by its
    declaration: the field's ``parse``, else its type (a ``stats`` entry is a whole
    number unless ``parse`` says otherwise)."""
    from gmdesk.core.systems.base import parse_choice, parse_int

    if f.parse is not None:
        return f.parse(option, value)
    if f.type in ("int", "stats"):
        return parse_int(option, value, f.lo, f.hi)
    if f.type == "bool":
        return check_value(Param(f.name, f.label, "bool", False, option=option), value)
    if f.type == "choice":
        text = str(value).strip()
        match = next((c for c in f.choices if c.casefold() == text.casefold()), text)
        return parse_choice(option, match, f.choices)
    return " ".join(str(value).split())


def parse_stats(f: CharField, value: Any) -> dict[str, Any]:
    """A ``stats`` field's value: a mapping, or text such as ``"Fire Combat=13,
    Dodge=11"`` (``:`` works as ``=``), each entry read by :func:`_entry`
    (``ParamError`` naming the field's label and the entry)."""
    if isinstance(value, Mapping):
        items = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, str):
        items = []
        for part in value.replace(";", ",").split(","):
            if not part.strip():
                continue
            name, sep, v = part.partition("=")
            if not sep:
                name, sep, v = part.rpartition(":")
            if not sep or not name.strip() or not v.strip():
                raise ParamError(
                    f.label,
                    f"write each entry as NAME=VALUE, e.g. {f.placeholder or 'Dodge=11'} (got {part.strip()!r})",
                )
            items.append((name, v.strip()))
    else:
        raise ParamError(f.label, f"must be entries NAME=VALUE (got {value!r})")
    out: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for name, v in items:
        name = " ".join(name.split())
        if not name:
            raise ParamError(f.label, "an entry has no name")
        key = name.casefold()
        if key in seen:
            raise ParamError(f.label, f"{name!r} is given twice")
        seen[key] = name
        try:
            out[name] = _entry(f, v, f.label)
        except ParamError as e:
            raise ParamError(f.label, f"{name}: {str(e).partition(': ')[2] or e}") from None
    return out


def parse_field(f: CharField, value: Any) -> Any:
    """A character field's value read by its declaration; ``None`` (or empty text)
    clears it. ``ParamError`` names the field's label. A ``stat`` is the name of an
    entry (checked against the character's ``stats`` field by whoever holds it)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if f.type == "stats":
        out = parse_stats(f, value)
        return out or None
    if f.type == "stat":
        if not isinstance(value, str):
            raise ParamError(f.label, f"must name one entry of {f.stats} (got {value!r})")
        return " ".join(value.split())
    return _entry(f, value, f.label)


def show_field(f: CharField, value: Any) -> str:
    """How a field's value reads (a ``stats`` field: ``"Fire Combat=13, Dodge=11"``);
    empty for no value."""
    if value is None:
        return ""

    def one(v: Any) -> str:
        if f.show is not None:
            try:
                return f.show(v)
            except Exception:
                return str(v)
        return str(v)

    if f.type == "stats" and isinstance(value, Mapping):
        return ", ".join(f"{k}={one(v)}" for k, v in value.items())
    if f.type == "stat":
        return str(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return one(value)


def find_stat(stats: Mapping[str, Any] | None, name: str) -> str | None:
    """The key of the entry of ``stats`` that ``name`` names (case and spacing
    ignored), or None."""
    if not stats or not isinstance(name, str):
        return None
    key = " ".join(name.split()).casefold()
    return next((k for k in stats if " ".join(str(k).split()).casefold() == key), None)


def params_class(spec_params: Sequence[Param], check: Callable[[Any], None] | None = None) -> type:
    """A frozen dataclass validating ``spec_params`` (and the common combat
    parameters) by their declared types, for a system that declares no ``Params`` of
    its own; ``check(params)`` adds the system's rules across parameters."""
    from gmdesk.core.systems.base import CombatFields

    spec_params = [p for p in spec_params if not p.form_only]
    fields = [(p.name, Any, dataclasses.field(default=p.default)) for p in spec_params]

    def __post_init__(self: Any) -> None:
        for p in spec_params:
            object.__setattr__(self, p.name, check_value(p, getattr(self, p.name)))
        if not isinstance(self.combat, bool):
            raise ParamError("--combat", f"must be true or false (got {self.combat!r})")
        self._check_combat()
        if check is not None:
            check(self)

    return dataclasses.make_dataclass(
        "Params", fields, bases=(CombatFields,), frozen=True, namespace={"__post_init__": __post_init__}
    )


__all__ = [
    "CharField",
    "COMMON_PARAMS",
    "FIELD_TYPES",
    "FROM",
    "INITIATIVE",
    "MOVE_FIELD_TYPES",
    "MOVE_KINDS",
    "Move",
    "OFFERED",
    "ROLL_KINDS",
    "MoveField",
    "PARAM_TYPES",
    "Param",
    "SECTIONS",
    "SystemSpec",
    "check_value",
    "find_stat",
    "params_class",
    "parse_field",
    "parse_stats",
    "show_field",
]
