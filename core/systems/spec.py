"""A dice system's contract: every member a system may declare, typed, read once
from its module into a :class:`SystemSpec`.

A system is a module (built in under ``core/systems``, or a plug-in package found
through the entry-point group ``gmdesk.systems``) that declares its members at
module level: ``ID``, ``NAME``, ``PARAMS`` and the functions ``roll``, ``odds`` and
``initiative``, and any of the optional ones. Each member is one field of
:class:`SystemSpec` whose :class:`Member` says the module attribute it is read from,
what it must be and what it defaults to; :meth:`SystemSpec.from_module` is the one
place that reads a system module, and it refuses a wrong member with a message
naming it ("gmdesk_coin.ODDS_FOLD must be two whole numbers, low then high",
"gmdesk_coin.read_form must be a function"). Everything else in gmdesk uses the
typed members (``spec.roll(...)``, ``spec.read_form``), never the module.

``docs/PLUGINS.md`` documents every member with its type, what gmdesk does with it
and its default; the pieces a declaration is made of (:class:`Param`,
:class:`CharField`, :class:`Move`, :class:`Setting`) are re-exported here from
:mod:`core.systems.declare` and :mod:`core.systems.setting`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping
from types import ModuleType

from gmdesk.core.systems.declare import (
    COMMON_PARAMS,
    FIELD_TYPES,
    FROM,
    INITIATIVE,
    MOVE_FIELD_TYPES,
    MOVE_KINDS,
    OFFERED,
    PARAM_TYPES,
    ROLL_KINDS,
    SECTIONS,
    SOURCE_KINDS,
    CharField,
    Move,
    MoveField,
    Param,
)
from gmdesk.core.systems.harm import NO_HARM, Harm, check_harm
from gmdesk.core.systems.setting import INITIATIVE_TIES, Setting, SettingError
from gmdesk.core.systems.values import check_value, find_stat, params_class, parse_field, parse_stats, show_field

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from gmdesk.core.curve import Curve
    from gmdesk.core.dice import RollRecord
    from gmdesk.core.odds import Odds

# --------------------------------------------------------------------------- members


@dataclasses.dataclass(frozen=True)
class Member:
    """How one member of the contract is declared: the module attribute ``attr``
    it is read from, ``what`` it must be (the refusal says "``module.attr`` must be
    ``what``"), the test ``check`` a declared value passes, and ``read``, how the
    declared value is kept (a tuple, a frozenset). ``required``: the system must
    declare it (else "``module`` declares no ``attr``")."""

    attr: str
    what: str
    check: Callable[[Any], bool]
    read: Callable[[Any], Any] = lambda value: value
    required: bool = False


def _member(attr: str, what: str, check: Callable[[Any], bool], default: Any = None, **kw: Any) -> Any:
    """A :class:`SystemSpec` field read from module attribute ``attr``."""
    read = kw.pop("read", None) or (lambda value: value)
    required = bool(kw.pop("required", False))
    member = Member(attr, what, check, read, required)
    if isinstance(default, (list, dict, set)):
        raise TypeError("a member's default is immutable")
    return dataclasses.field(default=default, metadata={"member": member})


def _hook(attr: str, required: bool = False) -> Any:
    """A function member (``None`` when the system does without it)."""
    return _member(attr, "a function", callable, None, required=required)


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _all(kind: type | tuple[type, ...]) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        return isinstance(value, (tuple, list, frozenset, set)) and all(isinstance(x, kind) for x in value)

    return check


def _pairs(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and all(
        isinstance(x, (tuple, list)) and len(x) == 2 and all(isinstance(y, str) for y in x) for x in value
    )


def _fold(value: Any) -> bool:
    return (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
        and value[0] < value[1]
    )


def _sources(value: Any) -> bool:
    return (
        isinstance(value, (tuple, list)) and len(value) == 2 and value[0] in SOURCE_KINDS and isinstance(value[1], bool)
    )


def _sections(value: Any) -> bool:
    return _all(str)(value) and all(s in SECTIONS for s in value)


def _pairs_tuple(value: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(a), str(b)) for a, b in value)


#: ``roll(params, rng, tables) -> RollRecord``
RollFn = Callable[..., "RollRecord"]
#: ``odds(params, tables) -> Odds``
OddsFn = Callable[..., "Odds"]
#: ``initiative(rng, modifier, **options) -> RollRecord``
InitiativeFn = Callable[..., "RollRecord"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class SystemSpec:
    """A loaded system: its declaration, read once from its module
    (:meth:`from_module`). Each field is one member of the contract; its
    :class:`Member` (``dataclasses.fields(SystemSpec)[i].metadata["member"]``) names
    the module attribute and what it must be. ``docs/PLUGINS.md`` says what each does."""

    # ---- required
    #: ``ID``: the identifier the CLI, the saves and the records use
    id: str = _member("ID", "a name (text)", _is_text, "", required=True)
    #: ``NAME``: the display name
    name: str = _member("NAME", "a display name (text)", _is_text, "", required=True)
    #: ``PARAMS``: every roll parameter
    params: tuple[Param, ...] = _member("PARAMS", "a tuple of Param", _all(Param), (), read=tuple, required=True)
    #: ``roll(params, rng, tables) -> RollRecord``
    roll: RollFn = _hook("roll", required=True)
    #: ``odds(params, tables) -> Odds``: exact
    odds: OddsFn = _hook("odds", required=True)
    #: ``initiative(rng, modifier, **options) -> RollRecord``: ``modifier`` is the
    #: character's own (:attr:`initiative_modifier`); ``options`` are the keywords
    #: it takes of those the session offers (:attr:`initiative_options`)
    initiative: InitiativeFn = _hook("initiative", required=True)

    # ---- what a character carries, what the desk offers
    character_fields: tuple[CharField, ...] = _member(
        "CHARACTER_FIELDS", "a tuple of CharField", _all(CharField), (), read=tuple
    )
    moves: tuple[Move, ...] = _member("MOVES", "a tuple of Move", _all(Move), (), read=tuple)
    sections: frozenset[str] = _member(
        "CHARACTER_SECTIONS", f"a set of {', '.join(SECTIONS)}", _sections, frozenset(SECTIONS), read=frozenset
    )
    settings: tuple[Setting, ...] = _member("SETTINGS", "a tuple of Setting", _all(Setting), (), read=tuple)
    table_roles: tuple[str, ...] = _member("TABLE_ROLES", "a tuple of table roles (text)", _all(str), (), read=tuple)
    #: ``TABLE_LABELS``: (role, label) pairs: what a GM reads for each of its table roles
    #: where it chooses one ("Combat table"; a role without one reads as its words)
    table_labels: tuple[tuple[str, str], ...] = _member(
        "TABLE_LABELS", "(role, label) pairs of text", _pairs, (), read=_pairs_tuple
    )
    clocks: bool = _member("CLOCKS", "True or False", lambda v: isinstance(v, bool), False)
    #: what its rolls do to characters: Vitality, Unconscious and Dead, clocks,
    #: Possibilities spent, conditions imposed (:mod:`core.systems.harm`); a
    #: ``CLOCKS = True`` without clocks of its own gets the default :class:`Clocks`
    harm: Harm = _member("HARM", "a gmdesk.core.systems.harm.Harm", lambda v: isinstance(v, Harm), NO_HARM)

    # ---- how its records read
    extra_labels: tuple[tuple[str, str], ...] = _member(
        "EXTRA_LABELS", "(key, label) pairs of text", _pairs, (), read=_pairs_tuple
    )
    signed: bool = _member("SIGNED", "True or False", lambda v: isinstance(v, bool), False)
    signed_extras: frozenset[str] = _member(
        "SIGNED_EXTRAS", "a set of record keys (text)", _all(str), frozenset(), read=frozenset
    )
    breakdown_params: tuple[tuple[str, str], ...] = _member(
        "BREAKDOWN_PARAMS", "(parameter, label) pairs of text", _pairs, (), read=_pairs_tuple
    )
    odds_fold: tuple[int, int] | None = _member("ODDS_FOLD", "two whole numbers, low then high", _fold, read=tuple)
    #: ``dice_labels(record) -> {"own": …, "vs": …}``
    dice_labels: Callable[[Any], Mapping[str, str]] | None = _hook("dice_labels")
    #: ``opponent_brief(record) -> str``
    opponent_brief: Callable[[Any], str] | None = _hook("opponent_brief")
    #: ``chronicle(record, facts) -> list[str]``: the roll's facts as the chronicle tells them
    chronicle: Callable[[Any, list[str]], list[str]] | None = _hook("chronicle")
    #: ``result_distribution(params, tables) -> {value: Fraction}``: the roll value's
    #: exact distribution (default: its odds', :meth:`distribution`)
    result_distribution: Callable[..., Mapping[int, Fraction]] | None = _hook("result_distribution")
    #: ``VALUE_LABEL``: what the roll's headline value is called on its curve ("Total")
    value_label: str = _member("VALUE_LABEL", "a name for the roll's value (text)", _is_text, "Result")
    #: ``curve(params, tables) -> Curve``: the headline value's exact distribution as
    #: a chart draws it, with the value a success needs (default: :meth:`curve`)
    own_curve: Callable[..., Curve] | None = _hook("curve")

    # ---- filling a roll from the session
    defenseless: str | None = _member("DEFENSELESS", "the name of one of its bool parameters", _is_text)
    roll_sources: tuple[str, bool] | None = _member(
        "ROLL_SOURCES", f"(kind, opposed): a kind of {' or '.join(SOURCE_KINDS)}, then True or False", _sources
    )
    #: ``sources_params(sources) -> {parameter: value}``
    sources_params: Callable[[list[Any]], Mapping[str, Any]] | None = _hook("sources_params")
    #: ``session_defaults(settings, actor, target) -> {parameter: value}``
    session_defaults: Callable[[Mapping[str, Any], Any, Any], Mapping[str, Any]] | None = _hook("session_defaults")
    #: ``read_form(data, actor, target, combat, items=…) -> (data, notes)``
    read_form: Callable[..., tuple[dict[str, Any], list[str]]] | None = _hook("read_form")
    #: ``read_filled(data, filled, actor, target, items=…) -> data``
    read_filled: Callable[..., dict[str, Any]] | None = _hook("read_filled")
    #: ``read_sheets(params, actor, target, skip, items=…) -> params``
    read_sheets: Callable[..., Any] | None = _hook("read_sheets")
    #: ``roll_uses(record, actor, target) -> [(side, path), …]``
    roll_uses: Callable[[Any, Any, Any], list[tuple[str, str]]] | None = _hook("roll_uses")
    #: ``Params``: the system's own validating parameter class
    own_params: type | None = _member("Params", "a class", inspect.isclass)
    #: ``check(params)``: rules across the generated Params' parameters
    check: Callable[[Any], None] | None = _hook("check")

    # ---- initiative
    #: ``initiative_modifier(character) -> int``
    initiative_modifier: Callable[[Any], int] | None = _hook("initiative_modifier")
    #: ``INITIATIVE_FAILS(character) -> str | None``
    initiative_fails: Callable[[Any], str | None] | None = _hook("INITIATIVE_FAILS")
    #: ``parse_initiative(option, text) -> int``
    parse_initiative: Callable[[str, Any], int] | None = _hook("parse_initiative")
    initiative_hint: str = _member("INITIATIVE_HINT", "text", _is_text, "a number")
    #: ``show_initiative(value) -> str``: an initiative as the system words it on the
    #: desk and the player views (fudge: its ladder level, "Great"; default: the number)
    show_initiative: Callable[[int], str] | None = _hook("show_initiative")
    #: who goes first when initiatives are equal, the default of a session of the
    #: system (the setting "Initiative ties"; None: RULES.md's, keep order)
    initiative_ties: str | None = _member(
        "INITIATIVE_TIES", "one of " + ", ".join(repr(t) for t in INITIATIVE_TIES), lambda v: v in INITIATIVE_TIES
    )

    # ---- between sessions, and saves
    #: ``rest(character) -> character``
    rest: Callable[[Mapping[str, Any]], dict[str, Any]] | None = _hook("rest")
    #: ``migrate(record) -> record``: a record an earlier version wrote, as it reads now
    migrate: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = _hook("migrate")

    # ---- read from the declaration, not declared
    #: the keywords ``initiative`` takes besides ``rng`` and ``modifier``
    initiative_options: frozenset[str] = frozenset()
    #: the keywords ``read_form`` / ``read_filled`` / ``read_sheets`` take (``items``)
    hook_options: tuple[tuple[str, frozenset[str]], ...] = ()
    #: the module the declaration was read from (for tests and tools; gmdesk uses the members)
    module: ModuleType | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def source_file(self) -> str | None:
        """The file the system's module was loaded from (None: none), to which a
        checkpoint of a plug-in's session is tied."""
        path = getattr(self.module, "__file__", None)
        return path if isinstance(path, str) else None

    @classmethod
    def members(cls) -> tuple[tuple[str, Member], ...]:
        """``(field name, Member)`` of every member of the contract, in order."""
        return tuple((f.name, f.metadata["member"]) for f in dataclasses.fields(cls) if "member" in f.metadata)

    @staticmethod
    def declared_id(module: Any) -> str | None:
        """The ``ID`` a system module declares (None: it is no system module)."""
        system_id = getattr(module, "ID", None) if isinstance(module, ModuleType) else None
        return system_id if isinstance(system_id, str) else None

    @classmethod
    def from_module(cls, module: ModuleType) -> SystemSpec:
        """Read a system module's declaration; ``ValueError`` naming the member that
        is missing or wrong and what it must be (a plug-in so reported is left out,
        the others keep working). The one place gmdesk reads a system module."""
        where = module.__name__
        values: dict[str, Any] = {}
        for name, m in cls.members():
            raw = getattr(module, m.attr, None)
            if raw is None:
                if m.required:
                    raise ValueError(f"{where} declares no {m.attr}")
                continue
            if not m.check(raw):
                raise ValueError(f"{where}.{m.attr} must be {m.what}")
            values[name] = m.read(raw)
        harm = check_harm(
            values.get("harm", NO_HARM),
            where,
            [p.name for p in values.get("params", ())],
            clocks=bool(values.get("clocks", False)),
        )
        values["harm"], values["clocks"] = harm, harm.clocks is not None
        if harm.clocks is not None:  # a system whose rolls move clocks adds and ticks them
            from gmdesk.core.systems.clock_moves import clock_moves

            own = values.get("moves", ())
            values["moves"] = own + tuple(m for m in clock_moves() if m.id not in {x.id for x in own})
        values["settings"] = tuple(
            s if s.system else dataclasses.replace(s, system=values["id"]) for s in values.get("settings", ())
        )
        spec = cls(
            **values,
            initiative_options=_keywords(values["initiative"]) - {"rng", "modifier"},
            hook_options=tuple(
                (name, _keywords(values[name]))
                for name in ("read_form", "read_filled", "read_sheets")
                if name in values
            ),
            module=module,
        )
        spec._check(where)
        return spec

    def _check(self, where: str) -> None:
        """What the members must agree on (ValueError naming the member)."""
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"{where}.PARAMS names a parameter twice")
        for p in self.params:
            for r in p.replaces:
                if r not in names:
                    raise ValueError(f"{where}.PARAMS: parameter {p.name!r} replaces {r!r}, which is no parameter")
        feedable = set(names) | {INITIATIVE}
        field_names = {f.name for f in self.character_fields}
        for f in self.character_fields:
            if f.feeds is not None and f.feeds not in feedable:
                raise ValueError(f"{where}.CHARACTER_FIELDS: {f.name!r} feeds {f.feeds!r}, which is no parameter")
            if f.stats is not None and f.stats not in field_names:
                raise ValueError(f"{where}.CHARACTER_FIELDS: {f.name!r} reads stats {f.stats!r}, which is no field")
        for m in self.moves:
            if not m.id.isidentifier():
                raise ValueError(f"{where}.MOVES: move {m.id!r}: its id must be a name (letters, digits, _)")
        move_ids = [m.id for m in self.moves]
        if len(set(move_ids)) != len(move_ids):
            raise ValueError(f"{where}.MOVES names a move twice")
        if self.defenseless is not None:
            flag = self.param(self.defenseless)
            if flag is None or flag.type != "bool" or flag not in self.params:
                raise ValueError(f"{where}.DEFENSELESS must name one of its bool parameters")
        keys = [s.key for s in self.settings]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{where}.SETTINGS names a setting twice")

    def takes(self, hook: str) -> frozenset[str]:
        """The keywords the system's ``hook`` (``read_form``, ``read_filled``,
        ``read_sheets``) takes: a hook written before ``items`` was offered is called
        without it."""
        return dict(self.hook_options).get(hook, frozenset())

    def offered(self, hook: str, **options: Any) -> dict[str, Any]:
        """Of ``options``, those ``hook`` takes (:meth:`takes`)."""
        takes = self.takes(hook)
        return {k: v for k, v in options.items() if k in takes}

    def distribution(self, params: Any, tables: Any = None) -> dict[int, Fraction]:
        """The exact distribution of the roll's value (the curve an odds chart draws),
        ascending by value: the system's ``result_distribution``, else its odds' (whose
        far tail, if any, is left out: the values then sum to 1 − ``Odds.tail``)."""
        from fractions import Fraction

        from gmdesk.core.tables import DEFAULT_TABLES

        tables = DEFAULT_TABLES if tables is None else tables
        if self.result_distribution is not None:
            got = {int(v): Fraction(p) for v, p in self.result_distribution(params, tables).items() if p}
        else:
            got = {v: p for v, p in self.odds(params, tables).distribution}
        return dict(sorted(got.items()))

    def curve(self, params: Any, tables: Any = None, odds: Odds | None = None) -> Curve:
        """The curve of the roll's headline value (``gmdesk odds … --plot``, the roll
        dialog's curve): the system's own ``curve``, else one drawn from its
        :meth:`distribution` (``odds``, when given, are those of ``params``), named
        ``VALUE_LABEL``, its tails folded at ``ODDS_FOLD``, without a success mark."""
        from fractions import Fraction

        from gmdesk.core.curve import Curve
        from gmdesk.core.tables import DEFAULT_TABLES

        tables = DEFAULT_TABLES if tables is None else tables
        if self.own_curve is not None:
            got = self.own_curve(params, tables)
            if not isinstance(got, Curve):
                raise TypeError(f"{self.id}'s curve gave {type(got).__name__}, not a gmdesk.core.curve.Curve")
            return got
        if self.result_distribution is not None:
            dist = self.distribution(params, tables)
            tail = max(Fraction(0), 1 - sum(dist.values(), Fraction(0)))
        else:
            odds = self.odds(params, tables) if odds is None else odds
            dist, tail = dict(odds.distribution), odds.tail
        return Curve(self.value_label, tuple(dist.items()), tail, self.odds_fold, self.signed)

    def setting_defaults(self) -> dict[str, Any]:
        """Setting key → default of the system's own settings."""
        return {s.key: s.default for s in self.settings}

    # ---- parameters

    @functools.cached_property
    def Params(self) -> type:
        """The system's own ``Params``, else one generated from ``PARAMS``."""
        if self.own_params is not None:
            return self.own_params
        return params_class(self.params, self.check)

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
            "settings": [s.to_json() for s in self.settings],
            **({"initiative_ties": self.initiative_ties} if self.initiative_ties is not None else {}),
        }


def _keywords(fn: Callable[..., Any]) -> frozenset[str]:
    """The parameter names ``fn`` takes (none known: empty)."""
    try:
        return frozenset(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return frozenset()


__all__ = [
    "CharField",
    "COMMON_PARAMS",
    "FIELD_TYPES",
    "FROM",
    "INITIATIVE",
    "MOVE_FIELD_TYPES",
    "MOVE_KINDS",
    "Member",
    "Move",
    "OFFERED",
    "ROLL_KINDS",
    "MoveField",
    "PARAM_TYPES",
    "Param",
    "SECTIONS",
    "SOURCE_KINDS",
    "Setting",
    "SettingError",
    "SystemSpec",
    "check_value",
    "find_stat",
    "params_class",
    "parse_field",
    "parse_stats",
    "show_field",
]
