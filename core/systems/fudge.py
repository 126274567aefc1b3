"""FUDGE alternate dice (``fudge``): a result r added to a trait on the FUDGE ladder.

Methods (``--method``), each giving r:

``2d3``       2d3 − 2d3 (dice ``positive``, ``positive``, ``negative``, ``negative``), −4..+4
``custom``    two six-sided dice faced −2, −1, 0, 0, +1, +2, summed (role ``die``), −4..+4
``d20``       one d20 read on a table; a 1 or a 20 is rolled again (role ``reroll``) and a
              second result of the same sign pushes it one step further (−4 / +4)
``d20-open``  the same table; after a 1 or a 20 the second result is *added* when it has
              the same sign as the first (−6..+6); a 20 then a 1 stays +3
``d30``       one d30 read on a table, −4..+4
``d12``       d12 − d12 (``positive`` − ``negative``) read on a table, −4..+4

The lookup tables (d20, d30, d12, the custom faces) and the ladder are data:
``core/data/fudge-*.json``; the ladder and the methods' dice are
:mod:`core.systems.fudge_dice`. The ladder runs Terrible −3 … Superb +3; beyond the ends
a level reads "Superb +1", "Terrible −1"…

Opposed rolls (``vs_trait``): the opponent rolls the same method; relative degree =
own level − opponent's level. Combat is an opposed roll: a hit needs a relative
degree of 1 or more and deals damage = relative degree + offense − defense, read on
the editable wound track (TableSet role ``fudge-wounds``). A wound band's value is a
string (that wound), ``null`` (no wound) or ``{"text": …, "wound": bool}``.

Decisions where the rules are silent (what a GM at the table would expect):

* the default method is ``2d3``, the seed's first method;
* in an opposed or combat roll a missing ``trait`` counts as Fair (0); a combat roll
  without ``vs_trait`` is against a Fair (0) opponent, who still rolls;
* ``offense`` / ``defense`` only count in combat;
* the custom dice are recorded as d6 rolls (face position 1..6); the printed faces
  (−2..+2) are in the extra field ``faces``; d12 records its ``difference``;
* a miss gives the descriptor "Miss" (no amount) and ``damage`` 0; a hit whose
  damage is 0 or less gives "No wound" with that amount; neither is a wound;
* outcome labels: opposed "Wins by 2" / "Loses by 1" / "Tie"; with a trait the
  level's name ("Great"); else the signed result ("+1", "−2", "0");
* odds ``outcomes``: with a trait alone, the levels reachable, best first; opposed,
  "Wins", "Tie", "Loses"; in combat "Hit" and "Miss", then the wound track from the
  worst wound down to "No wound" (those split the chance of a hit).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gmdesk.core.dice import Descriptor, Die, RollRecord
from gmdesk.core.errors import ParamError
from gmdesk.core.systems import builtin_moves as _moves
from gmdesk.core.systems.base import (
    CombatFields,
    dataclass_from_json,
    dataclass_to_json,
    parse_choice,
    parse_int,
)
from gmdesk.core.systems.fudge_dice import (
    DEFAULT_METHOD,
    METHODS,
    ladder_name,
    method_roll,
    parse_level,
    result_range,
    sorted_distribution,
)
from gmdesk.core.systems.harm import DESK_VITALITY, WOUND_STATUS, Harm
from gmdesk.core.systems.rest import default_rest
from gmdesk.core.systems.spec import CharField, Param, Setting
from gmdesk.core.tables import DEFAULT_TABLES, TableSet
from gmdesk.core.text import signed

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from gmdesk.core.curve import Curve
    from gmdesk.core.dice import RandomSource
    from gmdesk.core.odds import Odds

ID = "fudge"
NAME = "FUDGE alternate dice"
#: what a character of this system uses: conditions and combat descriptors only (traits are typed per roll)
#: (the sections are listed in core.systems.spec.SECTIONS)
CHARACTER_SECTIONS = frozenset({"conditions", "wounds"})
#: what its rolls do: the wound track's "Incapacitated" and "Near Death" knock out
#: whoever carries them (the wound-status table)
HARM = Harm(status_table=WOUND_STATUS, vitality=DESK_VITALITY)
#: the tables its rolls read, each of which a session may replace with the GM's own
TABLE_ROLES = ("fudge-wounds",)
TABLE_LABELS = (("fudge-wounds", "Wound levels (damage to wound)"),)

#: The level an opposed or combat roll assumes for a trait nobody gave: Fair.
FAIR = 0

# --------------------------------------------------------------------------- params


def _flag(option: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off", ""):
        return False
    raise ParamError(option, f"must be true or false (got {value!r})")


@dataclasses.dataclass(frozen=True)
class Params(CombatFields):
    """Everything a fudge roll needs; levels may be given as ladder names.
    ``defenseless``: the opponent cannot act (the session sets it): it rolls
    nothing and its result is the method's lowest."""

    method: str = DEFAULT_METHOD
    trait: int | None = None
    vs_trait: int | None = None
    offense: int = 0
    defense: int = 0
    defenseless: bool = False

    def __post_init__(self) -> None:
        # an empty method or factor (``--method ""``) is the default, as it always was
        if self.method in (None, ""):
            object.__setattr__(self, "method", DEFAULT_METHOD)
        for name in ("offense", "defense"):
            if getattr(self, name) in (None, ""):
                object.__setattr__(self, name, 0)
        parse_choice("--method", self.method, METHODS)
        for name, option in (("trait", "--trait"), ("vs_trait", "--vs-trait")):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, parse_level(option, value))
        object.__setattr__(self, "offense", parse_int("--offense", self.offense))
        object.__setattr__(self, "defense", parse_int("--defense", self.defense))
        object.__setattr__(self, "defenseless", _flag("--defenseless", self.defenseless))
        if not isinstance(self.combat, bool):
            raise ParamError("--combat", f"must be true or false (got {self.combat!r})")
        self._check_combat()

    @property
    def opposed(self) -> bool:
        return self.vs_trait is not None or self.combat


def params_to_json(params: Params) -> dict[str, Any]:
    return dataclass_to_json(params)


def params_from_json(data: Mapping[str, Any]) -> Params:
    return dataclass_from_json(Params, data)


#: the session settings a fudge session keeps (the ``method`` parameter takes it)
SETTINGS = (
    Setting(
        "fudge_method",
        "Dice method",
        "the FUDGE dice method initiative and the roll dialog use",
        "choice",
        DEFAULT_METHOD,
        choices=tuple(METHODS),
    ),
)

#: The fudge roll parameters (core.systems.spec): the CLI options, the roll form and
#: the breakdown's labels are generated from them.
PARAMS = (
    Param(
        "method",
        "Method",
        "choice",
        DEFAULT_METHOD,
        f"dice method: {', '.join(METHODS)} (default {DEFAULT_METHOD})",
        choices=METHODS,
        metavar="M",
        setting="fudge_method",
    ),
    Param(
        "trait",
        "Trait",
        "text",
        None,
        "trait level: a ladder name (Terrible..Superb) or a number",
        optional=True,
        placeholder="e.g. Good or +1",
        metavar="LEVEL",
        remember=True,
    ),
    Param(
        "opposed",
        "Opposed (the opponent rolls too)",
        "bool",
        False,
        "an opposed roll: the opponent rolls too (against Fair unless --vs-trait says)",
        form_only=True,
        cli=False,
        combat_default=True,
    ),
    Param(
        "vs_trait",
        "Vs trait",
        "text",
        None,
        "opposed roll: the opponent's trait level (the opponent rolls too)",
        optional=True,
        placeholder="opposed; empty: Fair",
        metavar="LEVEL",
    ),
    Param(
        "defenseless",
        "Opponent cannot act",
        "bool",
        False,
        "the opponent cannot act (Unconscious, Dead): it rolls nothing, the method's lowest result counts",
        form=False,
        remember=False,
    ),
    # the factors count only in an attack: a plain roll does not ask them; the weapon's
    # offense is the roller's own, remembered
    Param(
        "offense",
        "Offense factor",
        "int",
        0,
        "combat: attacker's offensive factor",
        metavar="N",
        remember=True,
        offered="attack",
    ),
    Param("defense", "Defense factor", "int", 0, "combat: defender's defensive factor", metavar="N", offered="attack"),
)

#: the record's own fields the breakdown shows, in order, with their labels
EXTRA_LABELS = (
    ("result", "Dice result"),
    ("level", "Level"),
    ("level_name", "Level name"),
    ("relative_degree", "Relative degree"),
    ("damage", "Damage"),
)
#: the headline dice result reads as a signed number, and so do these fields
SIGNED = True
SIGNED_EXTRAS = frozenset({"result", "relative_degree"})


def opponent_brief(record: RollRecord) -> str:
    """The other side of an opposed roll for the one-line log: both levels,
    ``(Good vs Superb +1)``."""
    opp = record.extra.get("opponent")
    if not isinstance(opp, Mapping) or not opp.get("level_name"):
        return ""
    mine = record.extra.get("level_name")
    theirs = opp["level_name"] + (", cannot act" if opp.get("cannot_act") else "")
    return f"({mine} vs {theirs})" if mine else f"vs {theirs}"


#: the parameter the session sets when the opponent cannot act (core.systems.spec)
DEFENSELESS = "defenseless"

#: what the GM may type for an initiative (see :func:`parse_initiative`)
INITIATIVE_HINT = "a number or a ladder level"


def parse_initiative(option: str, text: Any) -> int:
    """A typed initiative or initiative trait: a ladder level ("Good", "Superb +1") or
    a whole number, as ``--trait`` takes it."""
    return int(parse_level(option, text))


def show_initiative(value: int) -> str:
    """An initiative as the desk words it: its ladder level ("Great", "Superb +1"), as
    the roll log names it ("Initiative +2 (Great)")."""
    return ladder_name(value)


def read_form(
    data: dict[str, Any], actor: Any = None, target: Any = None, combat: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """The roll dialog's reading of an opposed roll: it is asked for with the Opposed
    box (``opposed``; an attack always is one), and then an empty Vs trait is a Fair
    opponent; without it a Vs trait left in the form does not count (the trait is read
    on its own ladder, as the CLI without ``--vs-trait``). Data without ``opposed``
    (the CLI's) is opposed exactly when it names a Vs trait."""
    if "opposed" not in data:
        return data, []
    data = dict(data)
    opposed = bool(data.pop("opposed")) or combat
    if opposed:
        if data.get("vs_trait") is None:
            data["vs_trait"] = ladder_name(FAIR)
        return data, [f"Opposed: against {data['vs_trait']}, who rolls too"]
    if data.get("vs_trait") is not None:
        data["vs_trait"] = None
        return data, ["Not opposed: Vs trait counts only with Opposed ticked"]
    return data, []


# --------------------------------------------------------------------------- rolls


def _wound(tables: TableSet, damage: int) -> tuple[str, bool]:
    """(text, is a wound) for a hit's damage on the wound track in force."""
    table = tables.band_table("fudge-wounds")
    value = table.lookup(damage)
    if value is None:
        return "No wound", False
    if isinstance(value, Mapping):
        return str(value.get("text", "No wound")), bool(value.get("wound", True))
    return str(value), True


def wound_descriptor(tables: TableSet, damage: int) -> Descriptor:
    """The descriptor a hit dealing ``damage`` gives the target."""
    text, wound = _wound(tables, damage)
    return Descriptor(
        text, "target", row=damage, table=tables.band_table("fudge-wounds").name, amount=damage, wound=wound
    )


def _opposed_label(degree: int) -> str:
    if degree > 0:
        return f"Wins by {degree}"
    if degree < 0:
        return f"Loses by {-degree}"
    return "Tie"


def roll(params: Params, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """Roll the method; in an opposed or combat roll the opponent then rolls the same method."""
    roll_method = method_roll(params.method)
    dice, r, extra = roll_method(rng)
    extra = {"result": r, **extra}
    trait = params.trait if params.trait is not None or not params.opposed else FAIR
    label = signed(r)
    if trait is not None:
        extra["level"] = trait + r
        extra["level_name"] = ladder_name(trait + r)
        label = extra["level_name"]
    descriptors: list[Descriptor] = []
    if params.opposed:
        vs = params.vs_trait if params.vs_trait is not None else FAIR
        odice: list[Die]
        oextra: dict[str, Any]
        if params.defenseless:  # who cannot act cannot defend: no dice, the lowest result
            odice, orr, oextra = [], result_range(params.method)[0], {"cannot_act": True}
        else:
            rolled, orr, oextra = roll_method(rng)
            odice = list(rolled)
        opp_level = vs + orr
        extra["opponent"] = {
            "dice": [d.to_json() for d in odice],
            "result": orr,
            **oextra,
            "trait": vs,
            "level": opp_level,
            "level_name": ladder_name(opp_level),
        }
        degree = extra["level"] - opp_level
        extra["relative_degree"] = degree
        label = _opposed_label(degree)
        if params.combat:
            hit = degree >= 1
            damage = degree + params.offense - params.defense if hit else 0
            extra["hit"] = hit
            extra["damage"] = damage
            if hit:
                descriptors.append(wound_descriptor(tables, damage))
            else:
                descriptors.append(
                    Descriptor("Miss", "target", table=tables.band_table("fudge-wounds").name, wound=False)
                )
    return RollRecord(ID, params_to_json(params), tuple(dice), r, label, extra, tuple(descriptors))


def initiative(rng: RandomSource, modifier: int = 0, method: str = DEFAULT_METHOD) -> RollRecord:
    """Initiative: the method's result + the trait (``modifier``)."""
    modifier = parse_int("modifier", modifier)
    rec = roll(Params(method=method, trait=modifier), rng)
    level = int(rec.get("level"))
    return dataclasses.replace(rec, value=level, outcome=f"Initiative {signed(level)} ({ladder_name(level)})")


# --------------------------------------------------------------------------- odds


def odds(params: Params, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """Exact distribution of r; outcomes as the module docstring says."""
    from fractions import Fraction

    from gmdesk.core.odds import Odds, outcomes_by, shift, sub

    dist = dict(sorted_distribution(params.method))
    outcomes: list[tuple[str, Fraction]] = []
    if not params.opposed:
        own = params.trait
        if own is not None:
            levels = sorted({own + r for r in dist}, reverse=True)
            outcomes = outcomes_by(dist, lambda r: ladder_name(own + r), [ladder_name(lv) for lv in levels])
    else:
        trait = params.trait if params.trait is not None else FAIR
        vs = params.vs_trait if params.vs_trait is not None else FAIR
        opp = {result_range(params.method)[0]: Fraction(1)} if params.defenseless else dist
        degree = shift(sub(dist, opp), trait - vs)
        if not params.combat:
            outcomes = outcomes_by(
                degree, lambda d: "Wins" if d > 0 else "Loses" if d < 0 else "Tie", ["Wins", "Tie", "Loses"]
            )
        else:
            hit = sum((p for d, p in degree.items() if d >= 1), Fraction(0))
            outcomes = [("Hit", hit), ("Miss", 1 - hit)]
            table = tables.band_table("fudge-wounds")
            order = []  # wound labels, worst first, as the track lists them from the top
            for lo, hi, _ in reversed(table.bands):
                text = _wound(tables, hi if hi is not None else lo if lo is not None else 0)[0]
                if text not in order:
                    order.append(text)
            hits = {d + params.offense - params.defense: p for d, p in degree.items() if d >= 1}
            by_label: dict[str, Fraction] = {}
            for dmg, p in hits.items():
                text = _wound(tables, dmg)[0]
                by_label[text] = by_label.get(text, Fraction(0)) + p
            outcomes += [(text, by_label.get(text, Fraction(0))) for text in order]
    return Odds.from_dist(ID, params_to_json(params), dist, outcomes)


#: the headline value a curve draws: the result r the dice give
VALUE_LABEL = "Result"


def curve(params: Params, tables: TableSet = DEFAULT_TABLES) -> Curve:
    """The curve of the result r. A success is marked only where r alone decides it:
    an opposed roll (or an attack) against an opponent who cannot act, who counts its
    method's lowest result, is won (hit) from r = 1 + lowest + vs trait − trait."""
    from gmdesk.core.curve import curve_of

    success = None
    if params.opposed and params.defenseless:
        trait = params.trait if params.trait is not None else FAIR
        vs = params.vs_trait if params.vs_trait is not None else FAIR
        success = 1 + result_range(params.method)[0] + vs - trait
    label = "Hit" if params.combat else "Wins"
    return curve_of(
        VALUE_LABEL, dict(sorted_distribution(params.method)), signed=True, success=success, success_label=label
    )


# ---- character fields
# What a FUDGE GM keeps on a character sheet: its traits (attributes and skills) on
# the ladder, the trait it attacks with and the one it defends with (an attack is an
# opposed roll of the two), and the offensive and defensive factors of its weapon and
# armour (damage = relative degree + attacker's offense − defender's defense).
# Initiative adds a trait the GM picks (often Perception or Reflexes); none by default.


def _level(option: str, value: Any) -> int:
    return parse_level(option, value)


CHARACTER_FIELDS = (
    CharField(
        "traits",
        "Traits",
        "stats",
        help="trait levels on the ladder (Terrible..Superb, or a number), e.g. Sword=Great, Dodge=Good",
        placeholder="Sword=Great, Dodge=Good",
        parse=_level,
        show=ladder_name,
    ),
    CharField(
        "attack_trait",
        "Attack trait",
        "stat",
        feeds="trait",
        stats="traits",
        combat_only=True,
        help="the trait an attack uses unless another is named",
        placeholder="Sword",
    ),
    CharField(
        "defense_trait",
        "Defense trait",
        "stat",
        feeds="vs_trait",
        from_="target",
        stats="traits",
        combat_only=True,
        help="the trait this character opposes an attack with",
        placeholder="Dodge",
    ),
    CharField(
        "offense",
        "Offensive factor",
        "int",
        feeds="offense",
        combat_only=True,
        lo=-99,
        hi=99,
        help="the weapon's offensive factor (Strength and weapon), added to the damage it deals",
    ),
    CharField(
        "defense_factor",
        "Defensive factor",
        "int",
        feeds="defense",
        from_="target",
        combat_only=True,
        lo=-99,
        hi=99,
        help="the armour's defensive factor (Damage Capacity and armour), taken off the damage it takes",
    ),
    CharField(
        "initiative_trait",
        "Initiative trait",
        "stat",
        feeds="initiative",
        stats="traits",
        help="the trait initiative adds to its result (e.g. Perception); none: +0",
        placeholder="Perception",
    ),
)


# ---- moves

MOVES = (
    _moves.opposed(
        "Opposed roll", "both sides roll; Vs trait Fair unless typed", {"opposed": True, "vs_trait": "Fair"}
    ),
)


# ---- between sessions


def rest(character: dict[str, Any]) -> dict[str, Any]:
    """Recovery between sessions (``gmdesk new … --from … --rest``). The rules say
    nothing of it, so gmdesk does what a GM at the table expects: Vitality back to
    its default, every wound (descriptor) cleared, conditions and sources counted in
    rounds over; those without a duration, the system's fields and the Dead stay as
    they were (docs/CAMPAIGNS.md)."""
    return default_rest(character)
