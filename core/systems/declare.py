"""The pieces a dice system declares itself with: its roll parameters (:class:`Param`),
what a character carries for it (:class:`CharField`) and its moves (:class:`Move`).

A system puts them in its module-level declaration, which :mod:`core.systems.spec`
reads; this module only defines and checks the pieces themselves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

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

#: which roll dialog offers a :class:`Param`: every one, only an attack, only a plain
#: roll, or every one but an opposed roll (a contest: what it compares replaces it)
OFFERED = ("any", "attack", "roll", "unopposed")

#: the kinds of :class:`Move`
MOVE_KINDS = ("preset", "condition", "action")

#: the kinds of sources a character carries and a system may read (``ROLL_SOURCES``):
#: shift sources (4d2's skills and attributes) or advantage sources (4d6)
SOURCE_KINDS = ("shift", "advantage")

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
    refused elsewhere), only a plain ``"roll"`` (one an attack refuses), or every
    dialog but an opposed roll's, ``"unopposed"`` (a difficulty that a contest's
    comparison of totals replaces, such as 4d6's DC).
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

    def in_dialog(self, combat: bool, opposed: bool = False) -> bool:
        """Whether the roll dialog asks it: an attack (``combat``), an opposed roll
        (``opposed``: a roll at another character, both sides filled) or a plain roll."""
        if self.offered == "unopposed":
            return self.form and not opposed
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
    :func:`parse_field` and :func:`show_field`. ``sources``: a ``stats`` field whose entries are
    the character's sources of that kind (:data:`SOURCE_KINDS`): each entry counts in
    a roll that reads the kind (``ROLL_SOURCES``) as one of the character's
    switched-on sources, which the roll dialog lists and the GM may switch off for
    one roll (4d2's skills and attributes: ``Pistol=2`` is a shift source worth 2)."""

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
    sources: str = ""

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
        if self.sources and (self.type != "stats" or self.sources not in SOURCE_KINDS):
            raise ValueError(
                f"character field {self.name!r}: sources makes a stats field's entries "
                f"{' or '.join(SOURCE_KINDS)} sources"
            )

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
        if self.sources:
            out["sources"] = self.sources
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
