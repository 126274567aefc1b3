"""Four D Two (``4d2``): 2d6 − 2d6 read as an Outcome, moved by shifts.

A roll is four d6: the positive pair, then the negative pair. The **Number** is the
positive sum minus the negative sum (−10..+10). A **fold** turns the Number into
``|Number|`` (positive) or ``−|Number|`` (negative). The **net shift** (−3..+3: the
roller's own shift total minus the opponent's) then moves the Outcome, never the
Number: ``value = clamp(Number + shift, −10, +10)``, and a folded roll never crosses
Detent (a positive fold stays ≥ 0, a negative fold ≤ 0).

The Outcome names come from the Outcome table in force (role ``outcomes``, shipped
as ``core/data/4d2-outcomes.json``); that table is canonical for every label gmdesk
shows, including on maneuvers, whose descriptor table is read by value only.

A roll whose unshifted, unfolded Number reaches the session's skill threshold (9 by
default) carries a skill chance; shifts never grant one and folded rolls never do.

Combat reads the Combat table (role ``combat``): a positive Outcome is what the roller
inflicts on the target (the target's kind picks the column); a negative Outcome is
what the roller suffers (the roller's own kind); 0 is "Ongoing combat story" and −1
is Nil, neither of which leaves a mark. A maneuver reads the Maneuver table (role
``maneuver``) and the result belongs to the roller.

Decisions where the rules are silent:

* Detent (0) in combat is recorded against the target (the fight goes on around
  them); it is never a wound either way.
* ``--skill-threshold`` accepts 1..11; 11 switches skill chances off for a session
  that does not use them.
* Combat and maneuver are different tables, so a roll is one or the other: asking for
  both is refused rather than guessing.
* Initiative is the Number of a plain (unfolded) roll plus the actor's own shift
  total, unclamped — initiative is an ordering, not an Outcome.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from functools import lru_cache

from gmdesk.core.dice import Descriptor, Die, RollRecord, roll_die, shared_die
from gmdesk.core.errors import ParamError
from gmdesk.core.systems import builtin_moves as _moves
from gmdesk.core.systems.base import (
    CombatFields,
    combat_descriptor,
    dataclass_from_json,
    dataclass_to_json,
    parse_choice,
    parse_int,
    record_params,
    shown,
)
from gmdesk.core.systems.harm import DESK_VITALITY, WOUND_STATUS, Harm
from gmdesk.core.systems.rest import default_rest
from gmdesk.core.systems.spec import CharField, Move, Param, Setting
from gmdesk.core.tables import DEFAULT_TABLES, TableSet
from gmdesk.core.text import signed

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from gmdesk.core.curve import Curve
    from gmdesk.core.dice import RandomSource
    from gmdesk.core.odds import Odds

ID = "4d2"
NAME = "Four D Two"
#: what a character of this system uses: shift sources (a roll's shift), conditions, combat descriptors
#: (the sections are listed in core.systems.spec.SECTIONS)
CHARACTER_SECTIONS = frozenset({"shift", "conditions", "wounds"})
#: what its rolls do: a descriptor of the wound-status table ("Mortal Wound", "Fatal
#: Wound") knocks out or kills whoever carries it; nothing else changes a status
HARM = Harm(status_table=WOUND_STATUS, vitality=DESK_VITALITY)
#: the tables its rolls read, each of which a session may replace with the GM's own
TABLE_ROLES = ("outcomes", "combat", "maneuver")
TABLE_LABELS = (("outcomes", "Outcome table"), ("combat", "Combat table"), ("maneuver", "Maneuver table"))

#: The Outcome scale, best first.
VALUE_MIN, VALUE_MAX = -10, 10
#: Net shift range (own total − opponent's total).
SHIFT_MIN, SHIFT_MAX = -3, 3
#: A character's own shift total range.
OWN_SHIFT_MAX = 3
FOLDS = ("positive", "negative")
DEFAULT_SKILL_THRESHOLD = 9
SKILL_THRESHOLD_MIN, SKILL_THRESHOLD_MAX = 1, 11


def _clamp(x: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, x))


def _check_bool(option: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ParamError(option, f"must be true or false (got {shown(value)})")
    return value


@dataclasses.dataclass(frozen=True)
class Params(CombatFields):
    """Everything a 4d2 roll needs.

    ``shift`` is the net shift (−3..+3), ``fold`` is None, ``"positive"`` or
    ``"negative"``, ``maneuver`` reads the Maneuver table, ``skill_threshold`` is the
    session setting (default 9).
    """

    shift: int = 0
    fold: str | None = None
    maneuver: bool = False
    skill_threshold: int = DEFAULT_SKILL_THRESHOLD

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "shift", parse_int("--shift", self.shift, SHIFT_MIN, SHIFT_MAX))
        if isinstance(self.fold, str):  # typed: "Positive", "none" (no fold) read as the GM means them
            fold = self.fold.strip().lower()
            set_(self, "fold", None if fold in ("", "none") else fold)
        if self.fold is not None:
            set_(self, "fold", parse_choice("--fold", self.fold, FOLDS))
        _check_bool("--maneuver", self.maneuver)
        _check_bool("--combat", self.combat)
        set_(
            self,
            "skill_threshold",
            parse_int("--skill-threshold", self.skill_threshold, SKILL_THRESHOLD_MIN, SKILL_THRESHOLD_MAX),
        )
        self._check_combat()
        if self.combat and self.maneuver:
            raise ParamError(
                "--maneuver", "cannot be combined with --combat (a roll reads either the Combat or the Maneuver table)"
            )


# --------------------------------------------------------------------------- helpers


def own_shift(values: Iterable[int]) -> int:
    """A character's own shift total: the sum of its active shift sources, 0..3.

    Penalties only take sources away, so the total never goes below 0; more than
    three shifts count as three.
    """
    return _clamp(sum(int(v) for v in values), 0, OWN_SHIFT_MAX)


def net_shift(own: int, opponent: int = 0) -> int:
    """The shift applied to an opposed roll: own total − opponent's total, −3..+3.

    Each total is first held to 0..3 (a character's own total never leaves that range).
    """
    own = _clamp(int(own), 0, OWN_SHIFT_MAX)
    opponent = _clamp(int(opponent), 0, OWN_SHIFT_MAX)
    return _clamp(own - opponent, SHIFT_MIN, SHIFT_MAX)


def fold_number(number: int, fold: str | None) -> int:
    """The Number after a fold: ``|n|`` for positive, ``−|n|`` for negative."""
    if fold == "positive":
        return abs(number)
    if fold == "negative":
        return -abs(number)
    return number


def outcome_value(number: int, shift: int = 0, fold: str | None = None) -> int:
    """Outcome value from the raw (unfolded) Number: fold, shift, clamp, keep the fold's side."""
    value = _clamp(fold_number(number, fold) + shift, VALUE_MIN, VALUE_MAX)
    if fold == "positive":
        value = max(0, value)
    elif fold == "negative":
        value = min(0, value)
    return value


def outcome_label(value: int, tables: TableSet = DEFAULT_TABLES) -> str:
    """The Outcome name of a value, from the Outcome table in force."""
    return tables.descriptor_table("outcomes").lookup(value)


def skill_chance(raw_number: int, fold: str | None, threshold: int = DEFAULT_SKILL_THRESHOLD) -> bool:
    """True when the unshifted, unfolded Number reaches the threshold (folded rolls never)."""
    return fold is None and raw_number >= threshold


# --------------------------------------------------------------------------- params


def params_to_json(params: Params) -> dict[str, Any]:
    return dataclass_to_json(params)


def params_from_json(data: Mapping[str, Any]) -> Params:
    return dataclass_from_json(Params, data)


#: The 4d2 roll parameters (core.systems.spec): the CLI options, the roll form and
#: the breakdown's labels are generated from them.
PARAMS = (
    Param(
        "shift",
        "Net shift",
        "int",
        0,
        "net shift, -3..3 (own shifts minus the opponent's)",
        lo=SHIFT_MIN,
        hi=SHIFT_MAX,
        placeholder="-3..3",
        metavar="N",
    ),
    Param(
        "fold",
        "Fold",
        "choice",
        None,
        "folded roll: only Detent and good things, or only Detent and bad things",
        choices=FOLDS,
        optional=True,
        choice_labels=(("", "no fold"),),
        metavar="positive|negative",
    ),
    # an attack reads the Combat table, never the Maneuver table: the attack dialog does not offer it
    Param("maneuver", "Maneuver table", "bool", False, "read the Maneuver descriptor table", offered="roll"),
    Param(
        "skill_threshold",
        "Skill chance threshold",
        "int",
        DEFAULT_SKILL_THRESHOLD,
        f"unshifted Number that gives a skill chance (default {DEFAULT_SKILL_THRESHOLD})",
        lo=SKILL_THRESHOLD_MIN,
        hi=SKILL_THRESHOLD_MAX,
        metavar="N",
        form=False,
        setting="skill_threshold",
    ),
)

#: the record's own fields the breakdown shows, in order, with their labels
EXTRA_LABELS = (
    ("number", "Number"),
    ("raw_number", "Number before fold"),
    ("shift", "Shift"),
    ("fold", "Fold"),
    ("skill_chance", "Skill chance"),
)
#: the headline Outcome value reads as a signed number, and so do these fields
SIGNED = True
SIGNED_EXTRAS = frozenset({"number", "raw_number", "shift"})

#: the session settings a 4d2 session keeps (its ``skill_threshold`` parameter takes it)
SETTINGS = (
    Setting(
        "skill_threshold",
        "Skill chance threshold",
        "the unshifted Number from which a roll gives a chance at a new skill",
        "int",
        DEFAULT_SKILL_THRESHOLD,
        lo=SKILL_THRESHOLD_MIN,
        hi=SKILL_THRESHOLD_MAX,
    ),
)


# --------------------------------------------------------------------------- rolls


#: the shared dice of each face, 1 to 6, of the positive and of the negative pair
_POSITIVE = tuple(shared_die(v, "positive") for v in range(1, 7))
_NEGATIVE = tuple(shared_die(v, "negative") for v in range(1, 7))
_FACES = range(1, 7)


def _roll_pairs(rng: RandomSource) -> tuple[Die, ...]:
    """The positive pair, then the negative pair (each die ``roll_die(rng, 6)``, in turn)."""
    a, b, c, d = roll_die(rng, 6), roll_die(rng, 6), roll_die(rng, 6), roll_die(rng, 6)
    if type(a) is type(b) is type(c) is type(d) is int and a in _FACES and b in _FACES and c in _FACES and d in _FACES:
        return (_POSITIVE[a - 1], _POSITIVE[b - 1], _NEGATIVE[c - 1], _NEGATIVE[d - 1])
    return (shared_die(a, "positive"), shared_die(b, "positive"), shared_die(c, "negative"), shared_die(d, "negative"))


def _number(dice: tuple[Die, ...]) -> int:
    number = 0
    for d in dice:
        if d.role == "positive":
            number += d.value
        elif d.role == "negative":
            number -= d.value
    return number


def descriptors_for(value: int, params: Params, tables: TableSet = DEFAULT_TABLES) -> tuple[Descriptor, ...]:
    """What a combat or maneuver roll with this Outcome value did (empty for a plain roll)."""
    if params.maneuver:
        table = tables.descriptor_table("maneuver")
        return (
            Descriptor(
                text=table.lookup(value),
                applies_to="attacker",
                row=value,
                table=table.name,
                column=table.columns[0],
                wound=False,
            ),
        )
    if params.combat:
        if value >= 0:
            return (combat_descriptor(tables, value, applies_to="target", receiver_kind=params.target_kind),)
        return (combat_descriptor(tables, value, applies_to="attacker", receiver_kind=params.attacker_kind),)
    return ()


def roll(params: Params, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """Roll the positive pair, then the negative pair, and read the Outcome."""
    dice = _roll_pairs(rng)
    raw = _number(dice)
    number = fold_number(raw, params.fold)
    value = outcome_value(raw, params.shift, params.fold)
    return RollRecord(
        system=ID,
        params=record_params(params),  # (frozen once for a run of rolls with the same parameters)
        dice=dice,
        value=value,
        outcome=outcome_label(value, tables),
        extra={
            "number": number,
            "raw_number": raw,
            "shift": params.shift,
            "fold": params.fold,
            "skill_chance": skill_chance(raw, params.fold, params.skill_threshold),
            "maneuver": params.maneuver,
        },
        descriptors=descriptors_for(value, params, tables),
    )


def initiative(rng: RandomSource, modifier: int = 0) -> RollRecord:
    """A plain 4d2 roll: initiative = Number + the actor's own shift total."""
    modifier = parse_int("--modifier", modifier)
    dice = _roll_pairs(rng)
    number = _number(dice)
    total = number + modifier
    return RollRecord(
        system=ID,
        params={"modifier": modifier},
        dice=dice,
        value=total,
        outcome=f"Initiative {total:+d}",
        extra={"number": number, "modifier": modifier},
    )


# --------------------------------------------------------------------------- odds
# (gmdesk.core.odds, gmdesk.core.curve and fractions are imported by the functions
# that use them: a roll has no use for them, and ``gmdesk roll 4d2`` starts faster)


@lru_cache(maxsize=1)
def number_distribution() -> dict[int, Fraction]:
    """Exact distribution of the raw Number, 2d6 − 2d6 (P(0) = 146/1296)."""
    from gmdesk.core import odds as odds_mod

    two_d6 = odds_mod.repeat(odds_mod.die(6), 2)
    return odds_mod.sub(two_d6, two_d6)


def skill_chance_probability(params: Params) -> Fraction:
    """Exact chance that a roll with these params gives a skill chance."""
    from fractions import Fraction

    from gmdesk.core import odds as odds_mod

    if params.fold is not None:
        return Fraction(0)
    return odds_mod.prob(number_distribution(), lambda n: n >= params.skill_threshold)


def odds(params: Params, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """Exact distribution of the Outcome value (after fold, shift and clamp).

    ``outcomes`` lists every Outcome name from +10 down to −10 with its chance.
    """
    from fractions import Fraction

    from gmdesk.core import odds as odds_mod

    dist = odds_mod.remap(number_distribution(), lambda n: outcome_value(n, params.shift, params.fold))
    order = range(VALUE_MAX, VALUE_MIN - 1, -1)
    outcomes = [(outcome_label(v, tables), dist.get(v, Fraction(0))) for v in order]
    return odds_mod.Odds.from_dist(ID, params_to_json(params), dist, outcomes)


#: the headline value a curve draws: the Number (the Outcome, once a shift or a fold moves it)
VALUE_LABEL = "Number"


def curve(params: Params, tables: TableSet = DEFAULT_TABLES) -> Curve:
    """The curve of the roll's value: the Number, 2d6 − 2d6 (the seed's "Nerdy Curvey
    Graph"); with a shift or a fold, the Outcome it gives. A 4d2 roll names its
    Outcomes, and no parameter sets a number to reach: no success is marked."""
    from gmdesk.core import odds as odds_mod
    from gmdesk.core.curve import curve_of

    dist = odds_mod.remap(number_distribution(), lambda n: outcome_value(n, params.shift, params.fold))
    moved = [f"{params.fold} fold"] if params.fold else []
    if params.shift:
        moved.append(f"shift {signed(params.shift)}")
    label = VALUE_LABEL if not moved else f"Outcome (the Number, {', '.join(moved)})"
    return curve_of(label, dist, signed=True)


# ---- character fields
# A 4d2 character's numbers are its shift sources (an attribute or a glorious
# description +1, a skill its level: the seed's "Pistol 2" is worth 2). Its skills
# and attributes are a field (``gmdesk char SAVE set Vex skills.Pistol=2``); what
# else shifts a roll (a good description, a source for some rounds) is the shift
# section. A roll reads both, switched on unless the GM switches one off for the
# roll, of the roller and, against it, of the target: net shift = own total (0..3) −
# the target's (0..3). Initiative is the Number plus the roller's own shift total.

CHARACTER_FIELDS: tuple[CharField, ...] = (
    CharField(
        "skills",
        "Skills",
        "stats",
        help="the persona's skills (each its level) and attributes (1), e.g. Pistol=2, DEX=1: its shift sources",
        lo=1,
        hi=9,
        placeholder="Pistol=2, DEX=1",
        sources="shift",
    ),
)

#: the character's sources a 4d2 roll reads, and whether the target's count (against the roller)
ROLL_SOURCES = ("shift", True)


def sources_params(sources: Iterable[Any]) -> dict[str, Any]:
    """``shift``: the roller's own switched-on total minus the target's (each held
    to 0..3, net −3..+3)."""
    sources = list(sources)
    own = own_shift(s.value for s in sources if s.owner == "own")
    vs = own_shift(s.value for s in sources if s.owner == "vs")
    return {"shift": net_shift(own, vs)}


def initiative_modifier(character: Any) -> int:
    """A character's initiative modifier: its own shift total (0..3) of its
    switched-on shift sources and its skills and attributes, as a roll counts them."""
    skills = (character.fields or {}).get("skills") or {}
    names = {s.name.casefold() for s in character.shifts}
    values = [s.value for s in character.shifts if s.active]
    values += [v for k, v in skills.items() if str(k).casefold() not in names and isinstance(v, int)]
    return own_shift(values)


# ---- moves

MOVES = (
    _moves.opposed("Opposed roll", "at the roller's default target; its shifts cancel the roller's"),
    Move("fold", "Folded roll", "positive or negative fold", kind="preset", preset={"fold": "positive"}),
    Move("maneuver", "Maneuver", "read the Maneuver table", kind="preset", preset={"maneuver": True}),
)


# ---- between sessions


def rest(character: dict[str, Any]) -> dict[str, Any]:
    """Recovery between sessions (``gmdesk new … --from … --rest``). The rules say
    nothing of it, so gmdesk does what a GM at the table expects: Vitality back to
    its default, every wound (descriptor) cleared, conditions and sources counted in
    rounds over; those without a duration, the system's fields and the Dead stay as
    they were (docs/CAMPAIGNS.md)."""
    return default_rest(character)
