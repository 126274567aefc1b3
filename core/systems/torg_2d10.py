"""2D10 Dice for TORG (``torg-2d10``): Bonus Numbers from a hot and a cold d10.

A roll, in the order the dice hit the table (every die is kept in the record):

1. the hot d10 (role ``hot``) and the cold d10 (role ``cold``). The higher die is
   discarded: hot < cold gives +hot, cold < hot gives −cold, equal dice give 0;
2. maxing: a +9 earns a positive progressive reroll, a −9 a negative one (role
   ``reroll``). A progressive die is a d10 rolled again while it shows 10, every
   face added. A Stymied roller, or an ord when the session denies ords the
   positive reroll (``ord_no_reroll``), gets no reroll for a +9; the −9 reroll is
   never denied;
3. one positive progressive chain per Possibility spent (role ``possibility``);
4. the Up chain (role ``up``), rolled once the total is known. Up and Possibility
   chains are progressive even when Stymied or for an ord without the reroll.

The record's ``value`` is the final Bonus Number. Action total = skill + bonus;
result points = total − difficulty; success when result points ≥ 0. With a
contradictory tool, a final Bonus Number at or below the case's threshold (−7 for a
1-case, −4 for a 4-case contradiction) is a disconnection. In combat the result
points pick a row of the Combat table through the editable band table
``torg-combat-rows``; the target's kind picks the column.

Decisions where the rules are silent (what a GM at the table would expect):

* a ``difficulty`` without a ``skill`` counts the skill as 0 (the Bonus Number alone
  against the difficulty); in combat the skill likewise defaults to 0;
* disconnection looks at the *final* Bonus Number, Possibilities and Up included,
  so a Possibility spent after the roll can still save a connection;
* ``maxed`` says which die was maxed even when a Stymie denied the reroll (the dice
  show that no reroll was rolled);
* a Possibility spent after the roll (:func:`spend_possibility`) leaves ``params``
  as they were asked; the extra field ``possibilities`` counts every spend,
  cancelled ones included (the Possibility is gone either way), ``cancelled`` how
  many were cancelled. Cancelled chains move from ``dice`` to ``cancelled_dice``;
* at most 10 Possibilities per roll (more is a typo, and the odds stay fast);
* the outcome label is "Success (+3 result points)" / "Failure (−2 result points)"
  with a difficulty, "Total 14 (Bonus +3)" with only a skill, else "Bonus +3"; a
  disconnection appends "; Disconnection".

Odds are exact: each progressive chain is cut after the fewest maxings that leave
less than 1e-12 of the total probability unaccounted for; that mass is the ``tail``
(``Σp + tail == 1`` exactly). ``outcomes`` lists, in this order: "Success" and
"Failure" (with a difficulty; together 1 − tail); in combat one entry per Combat
table row the bands reach, best row first, labelled with the row's text for the
target's kind (a second partition of the same rolls); with a contradiction
"Disconnection" last — the chance of disconnecting, which can come with a success
or a failure (it is not a third partition member).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache, lru_cache

from gmdesk.core.dice import Die, RollRecord, shared_die, thaw
from gmdesk.core.errors import ParamError
from gmdesk.core.systems import builtin_moves as _moves
from gmdesk.core.systems.base import (
    CombatFields,
    combat_descriptor,
    dataclass_from_json,
    dataclass_to_json,
    parse_choice,
    parse_int,
)
from gmdesk.core.systems.harm import DESK_VITALITY, WOUND_STATUS, Harm, Imposed, Spend
from gmdesk.core.systems.rest import default_rest, end_timed, is_dead
from gmdesk.core.systems.spec import CharField, Move, Param, Setting
from gmdesk.core.tables import DEFAULT_TABLES, TableSet
from gmdesk.core.text import MINUS, signed

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from gmdesk.core.curve import Curve
    from gmdesk.core.dice import RandomSource
    from gmdesk.core.odds import Odds

ID = "torg-2d10"
NAME = "2D10 Dice for TORG"
#: what a character of this system uses: Possibilities (reality-rated), conditions (Up, Stymied, Disconnected), wounds
#: (the sections are listed in core.systems.spec.SECTIONS)
CHARACTER_SECTIONS = frozenset({"possibilities", "conditions", "wounds"})

#: Contradiction case -> the final Bonus Number at or below which the roll disconnects.
DISCONNECTION_AT = {"1-case": -7, "4-case": -4}
CONTRADICTIONS = tuple(DISCONNECTION_AT)
MAX_POSSIBILITIES = 10
SIDES = 10
#: The largest Bonus Number the hot/cold pair can show; rolling it (or its negative) maxes a die.
MAXED = SIDES - 1
#: Odds cut the progressive chains once less than 1 / 10 ** TAIL_DIGITS of the
#: probability is left out.
TAIL_DIGITS = 12

_MINUS = MINUS


@dataclasses.dataclass(frozen=True)
class Params(CombatFields):
    """Everything a torg-2d10 roll needs; validated (strings are converted)."""

    stymied: bool = False
    up: bool = False
    possibilities: int = 0
    ord_no_reroll: bool = False
    skill: int | None = None
    difficulty: int | None = None
    contradiction: str | None = None

    def __post_init__(self) -> None:
        for name in ("stymied", "up", "ord_no_reroll"):
            if not isinstance(getattr(self, name), bool):
                raise ParamError(_opt(name), f"must be true or false (got {getattr(self, name)!r})")
        object.__setattr__(
            self, "possibilities", parse_int("--possibilities", self.possibilities, 0, MAX_POSSIBILITIES)
        )
        for name in ("skill", "difficulty"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, parse_int(_opt(name), value))
        if self.contradiction is not None:
            parse_choice("--contradiction", self.contradiction, CONTRADICTIONS)
        if not isinstance(self.combat, bool):
            raise ParamError("--combat", f"must be true or false (got {self.combat!r})")
        self._check_combat()
        if self.combat and self.difficulty is None:
            raise ParamError("--difficulty", "--combat needs --difficulty (the target's defense value)")

    @property
    def positive_reroll(self) -> bool:
        """Whether a +9 earns its reroll."""
        return not (self.stymied or self.ord_no_reroll)


def _opt(name: str) -> str:
    return "--" + name.replace("_", "-")


def params_to_json(params: Params) -> dict[str, Any]:
    return dataclass_to_json(params)


def params_from_json(data: Mapping[str, Any]) -> Params:
    return dataclass_from_json(Params, data)


#: The torg-2d10 roll parameters (core.systems.spec): the CLI options, the roll form
#: and the breakdown's labels are generated from them.
PARAMS = (
    Param(
        "skill",
        "Skill value",
        "int",
        None,
        "attribute/skill value",
        optional=True,
        placeholder="attribute + skill",
        metavar="N",
        remember=True,
    ),
    Param(
        "difficulty",
        "Difficulty",
        "int",
        None,
        "difficulty number (in combat: the target's defense)",
        optional=True,
        placeholder="in combat: defense",
        metavar="N",
    ),
    Param("stymied", "Stymied", "bool", False, "Stymied: no reroll for maxing the positive die"),
    Param("up", "Up", "bool", False, "Up: a positive progressive d10 after the total"),
    Param(
        "possibilities",
        "Possibilities",
        "int",
        0,
        f"Possibilities spent on the roll (0..{MAX_POSSIBILITIES}), each a positive progressive d10",
        lo=0,
        hi=MAX_POSSIBILITIES,
        placeholder="spent now",
        metavar="N",
    ),
    Param(
        "contradiction",
        "Contradiction",
        "choice",
        None,
        "using a contradictory tool: " + " | ".join(CONTRADICTIONS),
        choices=CONTRADICTIONS,
        optional=True,
        choice_labels=(("", "none"),),
        metavar="CASE",
    ),
    Param(
        "ord_no_reroll",
        "Ord: no positive reroll",
        "bool",
        False,
        "the roller is an ord and the session denies ords the positive reroll",
        form=False,
    ),
)

#: the record's own fields the breakdown shows, in order, with their labels
EXTRA_LABELS = (
    ("bonus", "Bonus Number"),
    ("maxed", "Maxed die"),
    ("possibilities", "Possibilities spent"),
    ("cancelled", "Possibilities cancelled"),
    ("total", "Total"),
    ("result_points", "Result points"),
    ("success", "Success"),
    ("disconnection", "Disconnection"),
)
#: the headline Bonus Number reads as a signed number, and so do these fields
SIGNED = True
SIGNED_EXTRAS = frozenset({"bonus", "result_points"})
#: the odds read as a curve between these Bonus Numbers, each tail folded into one
#: row: the open-ended rerolls reach Bonus Numbers past ±100 no GM needs a row for
ODDS_FOLD = (-20, 20)

#: the session settings a torg session keeps (:func:`session_defaults` reads it)
SETTINGS = (
    Setting(
        "ord_positive_reroll",
        "Ords reroll a maxed die",
        "ords (not reality-rated) reroll a maxed positive die as Storm Knights do; off denies them",
        "bool",
        True,
    ),
)


# --------------------------------------------------------------------------- rolls


def bonus_of_pair(hot: int, cold: int) -> int:
    """The Bonus Number of the hot/cold pair: the higher die is discarded."""
    if hot < cold:
        return hot
    if cold < hot:
        return -cold
    return 0


def _chain(rng: RandomSource, role: str) -> list[Die]:
    """A progressive d10: roll, and while it shows 10 roll again; every die kept."""
    dice = []
    while True:
        v = rng.randint(1, SIDES)
        dice.append(shared_die(v, role, SIDES))
        if v != SIDES:
            return dice


def _pair(dice: tuple[Die, ...] | list[Die]) -> tuple[int, int]:
    hot = next(d.value for d in dice if d.role == "hot")
    cold = next(d.value for d in dice if d.role == "cold")
    return hot, cold


def bonus_of_dice(dice: tuple[Die, ...] | list[Die]) -> int:
    """The final Bonus Number the dice of a record show (cancelled dice are not in ``dice``)."""
    base = bonus_of_pair(*_pair(dice))
    sign = -1 if base < 0 else 1
    total = base
    for d in dice:
        if d.role == "reroll":
            total += sign * d.value
        elif d.role in ("possibility", "up"):
            total += d.value
    return total


def _build(
    params: Params, dice: list[Die], tables: TableSet, *, spent: int, cancelled: int, cancelled_dice: list[Die]
) -> RollRecord:
    bonus = bonus_of_dice(dice)
    base = bonus_of_pair(*_pair(dice))
    extra: dict[str, Any] = {"bonus": bonus}
    skill = params.skill
    if skill is None and params.difficulty is not None:
        skill = 0
    label = f"Bonus {signed(bonus)}"
    if skill is not None:
        total = skill + bonus
        extra["total"] = total
        label = f"Total {total} (Bonus {signed(bonus)})"
    descriptors = []
    if params.difficulty is not None:
        points = extra["total"] - params.difficulty
        extra["result_points"] = points
        extra["success"] = points >= 0
        unit = "result point" if abs(points) == 1 else "result points"
        label = f"{'Success' if points >= 0 else 'Failure'} ({signed(points)} {unit})"
        if params.combat:
            row = int(tables.band_table("torg-combat-rows").lookup(points))
            descriptors.append(combat_descriptor(tables, row, applies_to="target", receiver_kind=params.target_kind))
    if params.contradiction is not None:
        extra["disconnection"] = bonus <= DISCONNECTION_AT[params.contradiction]
        if extra["disconnection"]:
            label += "; Disconnection"
    extra["maxed"] = "hot" if base == MAXED else "cold" if base == -MAXED else None
    extra["possibilities"] = spent
    extra["cancelled"] = cancelled
    if cancelled_dice:
        extra["cancelled_dice"] = [d.to_json() for d in cancelled_dice]
    return RollRecord(ID, params_to_json(params), tuple(dice), bonus, label, extra, tuple(descriptors))


def roll(params: Params, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """Roll the hot and cold dice, then maxing rerolls, Possibilities and Up, in that order."""
    dice = [shared_die(rng.randint(1, SIDES), "hot", SIDES), shared_die(rng.randint(1, SIDES), "cold", SIDES)]
    base = bonus_of_pair(dice[0].value, dice[1].value)
    if base == -MAXED or (base == MAXED and params.positive_reroll):
        dice += _chain(rng, "reroll")
    for _ in range(params.possibilities):
        dice += _chain(rng, "possibility")
    if params.up:
        dice += _chain(rng, "up")
    return _build(params, dice, tables, spent=params.possibilities, cancelled=0, cancelled_dice=[])


def _own_record(record: RollRecord) -> tuple[Params, list[Die]]:
    if record.system != ID:
        raise ParamError("roll", f"not a {ID} roll (it is {record.system!r})")
    cancelled = [Die.from_json(d) for d in record.get("cancelled_dice", ())]
    return params_from_json(thaw(record.params)), cancelled


def spend_possibility(record: RollRecord, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """A Possibility spent after the roll: a positive progressive d10 added to the same roll.

    Returns a new record with the old dice kept, the new chain appended, and the
    value, success, disconnection and combat descriptor recomputed."""
    params, cancelled_dice = _own_record(record)
    dice = list(record.dice) + _chain(rng, "possibility")
    return _build(
        params,
        dice,
        tables,
        spent=int(record.get("possibilities", 0)) + 1,
        cancelled=int(record.get("cancelled", 0)),
        cancelled_dice=cancelled_dice,
    )


def cancel_possibility(record: RollRecord, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """Another reality-rated character cancels the latest Possibility spent on the roll.

    That Possibility's chain leaves the total (its dice move to ``cancelled_dice``),
    ``cancelled`` goes up by one and everything is recomputed. Only Possibility
    spends can be cancelled: ParamError when the roll has none left (maxing rerolls
    and Up are never cancelled)."""
    params, cancelled_dice = _own_record(record)
    dice = list(record.dice)
    last = max((i for i, d in enumerate(dice) if d.role == "possibility"), default=None)
    if last is None:
        raise ParamError("cancel", "this roll has no Possibility to cancel (maxing rerolls and Up cannot be cancelled)")
    first = last
    while first > 0 and dice[first - 1].role == "possibility" and dice[first - 1].value == SIDES:
        first -= 1
    removed = dice[first : last + 1]
    del dice[first : last + 1]
    return _build(
        params,
        dice,
        tables,
        spent=int(record.get("possibilities", 0)),
        cancelled=int(record.get("cancelled", 0)) + 1,
        cancelled_dice=cancelled_dice + removed,
    )


#: what its rolls do: ``possibilities`` spent as the roll is made, one more spent on
#: it after (:func:`spend_possibility`, the move) or cancelled by another
#: (:func:`cancel_possibility`); a disconnection makes the roller Disconnected; the
#: wound-status table's descriptors ("Mortal Wound", "Fatal Wound") knock out or kill
HARM = Harm(
    status_table=WOUND_STATUS,
    vitality=DESK_VITALITY,
    spend=Spend(param="possibilities", after=True, cancel=cancel_possibility),
    imposes=(Imposed("Disconnected", "disconnection"),),
)
#: the tables its rolls read, each of which a session may replace with the GM's own
TABLE_ROLES = ("combat", "torg-combat-rows")
TABLE_LABELS = (("combat", "Combat table"), ("torg-combat-rows", "Combat results (success to row)"))


def initiative(
    rng: RandomSource, modifier: int = 0, stymied: bool = False, up: bool = False, ord_no_reroll: bool = False
) -> RollRecord:
    """Initiative: a plain roll's Bonus Number + the Dexterity value (``modifier``),
    rolled as any action is: a Stymied roller (or an ord the session denies it) gets
    no reroll for maxing the positive die, an Up roller adds its progressive d10
    (the session passes the roller's conditions and its settings)."""
    modifier = parse_int("modifier", modifier)
    rec = roll(Params(skill=modifier, stymied=stymied, up=up, ord_no_reroll=ord_no_reroll), rng)
    total = int(rec.get("total"))
    return dataclasses.replace(rec, value=total, outcome=f"Initiative {total} (Bonus {signed(rec.value)})")


# --------------------------------------------------------------------------- odds
# (gmdesk.core.odds, gmdesk.core.curve and fractions are imported by the functions
# that use them: a roll has no use for them, and ``gmdesk roll torg-2d10`` starts faster)
#
# Distributions are handled as integer numerators over a power of ten: probabilities
# of the pair are n/100 and a progressive chain's faces are 10**-(k+1), so everything
# stays exact and convolutions are fast big-integer products.


def _convolve(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Coefficients of the product of two polynomials with non-negative integer
    coefficients (Kronecker substitution: one big-integer multiplication)."""
    if not a or not b:
        return ()
    bound = max(a) * max(b) * min(len(a), len(b))
    width = max(1, (bound.bit_length() + 7) // 8)
    pa = int.from_bytes(b"".join(c.to_bytes(width, "little") for c in a), "little")
    pb = int.from_bytes(b"".join(c.to_bytes(width, "little") for c in b), "little")
    n = len(a) + len(b) - 1
    raw = (pa * pb).to_bytes(n * width, "little")
    return tuple(int.from_bytes(raw[i * width : (i + 1) * width], "little") for i in range(n))


@cache
def _chain_dist(levels: int) -> tuple[int, ...]:
    """A progressive d10 cut after ``levels`` rolls: value v (from 1) -> numerator over
    10**levels, index v - 1. Face 10k + r (r in 1..9) has probability 10**-(k+1)."""
    out = [0] * (SIDES * levels - 1)
    for k in range(levels):
        for r in range(1, SIDES):
            out[SIDES * k + r - 1] = 10 ** (levels - 1 - k)
    return tuple(out)


@cache
def _chains_sum(n: int, levels: int) -> tuple[int, tuple[int, ...]]:
    """Sum of n cut chains: (lowest value, numerators over 10**(n*levels))."""
    if n == 0:
        return 0, (1,)
    lo, acc = _chains_sum(n - 1, levels)
    return lo + 1, _convolve(acc, _chain_dist(levels))


@cache
def _pair_with_maxing(levels: int, positive_reroll: bool) -> tuple[int, tuple[int, ...]]:
    """Bonus Number of the pair and its maxing rerolls: (lowest value, numerators over
    10**(2 + levels))."""
    chain = _chain_dist(levels)
    reach = len(chain)
    lo = -MAXED - reach
    out = [0] * (2 * (MAXED + reach) + 1)
    unit = 10**levels
    for b in range(-MAXED, MAXED + 1):
        count = SIDES - abs(b)  # pairs out of 100 giving b
        if b == -MAXED:
            for i, c in enumerate(chain):
                out[-MAXED - (i + 1) - lo] += count * c
        elif b == MAXED and positive_reroll:
            for i, c in enumerate(chain):
                out[MAXED + (i + 1) - lo] += count * c
        else:
            out[b - lo] += count * unit
    return lo, tuple(out)


def _levels_for(n_chains: int, positive_reroll: bool) -> int:
    """The fewest rolls per chain that leave less than 1 / 10 ** TAIL_DIGITS unaccounted for."""
    from fractions import Fraction

    levels = 1
    while True:
        cut = Fraction(1, 10**levels)
        maxing = Fraction(2 if positive_reroll else 1, 100) * cut
        tail = 1 - (1 - cut) ** n_chains * (1 - maxing)
        if tail < Fraction(1, 10**TAIL_DIGITS):
            return levels
        levels += 1


@lru_cache(maxsize=256)
def _bonus_numerators(n_chains: int, positive_reroll: bool) -> tuple[int, tuple[int, ...], int]:
    """Final Bonus Number: (lowest value, numerators, exponent e of the 10**e denominator)."""
    levels = _levels_for(n_chains, positive_reroll)
    plo, pair = _pair_with_maxing(levels, positive_reroll)
    slo, chains = _chains_sum(n_chains, levels)
    return plo + slo, _convolve(pair, chains), 2 + levels + n_chains * levels


@lru_cache(maxsize=256)
def _bonus_dist(n_chains: int, positive_reroll: bool) -> tuple[dict[int, Fraction], Fraction]:
    from fractions import Fraction

    lo, nums, e = _bonus_numerators(n_chains, positive_reroll)
    den = 10**e
    dist = {lo + i: Fraction(c, den) for i, c in enumerate(nums) if c}
    tail = Fraction(den - sum(nums), den)
    return dist, tail


def base_distribution() -> dict[int, Fraction]:
    """The hot/cold pair alone, before any reroll: P(b) = (10 − |b|) / 100."""
    from fractions import Fraction

    return {b: Fraction(SIDES - abs(b), SIDES * SIDES) for b in range(-MAXED, MAXED + 1)}


def odds(params: Params, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """Exact distribution of the final Bonus Number (see the module docstring for the
    truncation and the shape of ``outcomes``)."""
    from fractions import Fraction

    from gmdesk.core.odds import Odds

    n_chains = params.possibilities + (1 if params.up else 0)
    lo, nums, e = _bonus_numerators(n_chains, params.positive_reroll)
    dist, tail = _bonus_dist(n_chains, params.positive_reroll)
    den = 10**e
    outcomes: list[tuple[str, Fraction]] = []
    if params.difficulty is not None:
        skill = params.skill or 0
        need = params.difficulty - skill  # the Bonus Number that just succeeds
        start = max(0, need - lo)
        success = sum(nums[start:])
        failure = sum(nums[:start])
        outcomes += [("Success", Fraction(success, den)), ("Failure", Fraction(failure, den))]
        if params.combat:
            bands = tables.band_table("torg-combat-rows")
            by_row: dict[int, int] = {}
            for i, c in enumerate(nums):
                if c:
                    row = int(bands.lookup(lo + i + skill - params.difficulty))
                    by_row[row] = by_row.get(row, 0) + c
            by_text: dict[str, int] = {}  # a GM's table may give two rows one text
            for row in sorted(by_row, reverse=True):
                text = combat_descriptor(tables, row, applies_to="target", receiver_kind=params.target_kind).text
                by_text[text] = by_text.get(text, 0) + by_row[row]
            outcomes += [(text, Fraction(c, den)) for text, c in by_text.items()]
    if params.contradiction is not None:
        stop = DISCONNECTION_AT[params.contradiction] - lo + 1
        outcomes.append(("Disconnection", Fraction(sum(nums[: max(0, stop)]), den)))
    return Odds.from_dist(ID, params_to_json(params), dist, outcomes, tail)


#: the headline value a curve draws: the Bonus Number (with a skill, the action total)
VALUE_LABEL = "Bonus Number"


def curve(params: Params, tables: TableSet = DEFAULT_TABLES) -> Curve:
    """The curve of the final Bonus Number, or with a skill of the action total
    (skill + Bonus Number), its far tails folded as the odds table folds them (moved
    by the skill); with a difficulty, the value that succeeds is marked."""
    from gmdesk.core.curve import curve_of

    dist, tail = _bonus_dist(params.possibilities + (1 if params.up else 0), params.positive_reroll)
    skill = params.skill or 0
    lo, hi = ODDS_FOLD
    success = params.difficulty  # a Bonus Number (the skill counts as 0), else an action total
    note = ""
    if params.contradiction is not None:
        note = f"Disconnection at a Bonus Number of {signed(DISCONNECTION_AT[params.contradiction])} or less."
    kw: dict[str, Any] = {"success": success, "success_label": f"Success (Difficulty {params.difficulty})"}
    if params.skill is None:
        return curve_of(VALUE_LABEL, dist, tail=tail, fold=ODDS_FOLD, signed=True, note=note, **kw)
    total = {skill + b: p for b, p in dist.items()}
    return curve_of("Action total", total, tail=tail, fold=(lo + skill, hi + skill), note=note, **kw)


# ---- character fields
# What a torg GM keeps on a character sheet for the roll: the attribute and skill
# values (an action total is value + Bonus Number), the skill an attack uses unless
# the GM names another, the defense an attacker rolls against, and Dexterity, which
# initiative adds to its Bonus Number (RULES.md "Initiative").

CHARACTER_FIELDS = (
    CharField(
        "stats",
        "Attributes and skills",
        "stats",
        help="attribute and skill values, e.g. Dexterity=10, Fire Combat=13, Dodge=11",
        lo=-99,
        hi=99,
        placeholder="Fire Combat=13, Dodge=11",
    ),
    CharField(
        "attack",
        "Attack skill",
        "stat",
        feeds="skill",
        stats="stats",
        combat_only=True,
        help="the skill an attack uses unless another is named (its value is the Skill value)",
        placeholder="Fire Combat",
    ),
    CharField(
        "defense",
        "Defense",
        "stat",
        feeds="difficulty",
        from_="target",
        stats="stats",
        default="Dodge",
        combat_only=True,
        help="the value an attack on this character rolls against (its Difficulty)",
        placeholder="Dodge",
    ),
    CharField(
        "initiative",
        "Initiative",
        "stat",
        feeds="initiative",
        stats="stats",
        default="Dexterity",
        help="the value initiative adds to its Bonus Number",
        placeholder="Dexterity",
    ),
)


def session_defaults(settings: Mapping[str, Any], actor: Any = None, target: Any = None) -> dict[str, Any]:
    """What the session fills in for a torg roll: Stymied and Up from the roller's
    conditions, and no positive reroll for an ord (not reality-rated) roller when the
    session's ``ord_positive_reroll`` setting is off."""
    out: dict[str, Any] = {}
    if actor is not None:
        out["stymied"] = actor.has_condition("Stymied")
        out["up"] = actor.has_condition("Up")
    reroll = settings.get("ord_positive_reroll", True)
    out["ord_no_reroll"] = bool(actor is not None and not actor.reality_rated and not reroll)
    return out


# ---- moves

MOVES = (
    Move(
        "spend_possibility",
        "Spend a Possibility",
        "on the roll under the log cursor or the latest torg roll; its roller spends it",
        key="P",
        run=_moves.spend_run_with(spend_possibility, system=ID),
        said=_moves.spend_said,
    ),
    Move(
        "cancel_possibility",
        "Cancel a Possibility",
        "another reality-rated character cancels it; both lose one",
        key="C",
        form=_moves.cancel_form,
        run=_moves.cancel_run,
        said=_moves.cancel_said,
    ),
    Move(
        "buyoff",
        "Buy off damage",
        "spend a Possibility on the damage just taken (older wounds listed with their age)",
        form=_moves.buyoff_form,
        run=_moves.buyoff_run,
        said=_moves.buyoff_said,
    ),
    _moves.opposed("Opposed roll", "at the roller's default target, as an attack picks it"),
    _moves.toggle("Up", "the selected character's Up condition"),
    _moves.toggle("Stymied", "the selected character's Stymied condition"),
    _moves.toggle("Disconnected", "the selected character's Disconnected condition"),
)


# ---- between sessions

#: the conditions of a scene: over by the next night (Disconnected stays: the
#: character reconnects when the GM says so)
SCENE_CONDITIONS = ("Up", "Stymied")


def rest(character: dict[str, Any]) -> dict[str, Any]:
    """Recovery between sessions (``gmdesk new … --from … --rest``). The rules say
    nothing of it: wounds are cleared and Vitality is back to its default, what was
    counted in rounds is over, and so are Up and Stymied, which belong to a scene;
    Possibilities stay as they stood (they are spent and awarded, never refreshed),
    and so does Disconnected. The Dead stay dead (docs/CAMPAIGNS.md)."""
    if is_dead(character):
        return dict(character)
    return default_rest(end_timed(character, SCENE_CONDITIONS))
