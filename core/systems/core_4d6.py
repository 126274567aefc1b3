"""Core 4d6 vs DC (``4d6``): roll 4d6 + bonus against a DC and read the margin.

* **Dice**: 4d6; advantage level +1 / +2 rolls 5d6 / 6d6 and keeps the best 4,
  −1 / −2 keeps the worst 4. Every die is on the record in the order rolled, with
  role ``kept`` or ``dropped``. Among equal faces the later die is the one dropped.
* **Advantage sources** each carry +1, +2, −1 or −2; each side caps at 2, then they
  net: ``min(2, Σ advantage) − min(2, Σ |disadvantage|)`` (:func:`net_advantage`).
* **Tiers** (margin = total − DC, from the band table :data:`TIER_BANDS`): ≥ +5
  Critical Success, ≥ 0 Full Success, −1..−2 Partial Success, −3..−6 Failure,
  ≤ −7 Critical Failure; all kept dice showing 1 is a Critical Failure whatever the
  margin. The DC ladder is :data:`DC_LADDER` (12 Simple … 22 Exceptional); DC 16
  (Standard) is the default of every check that names none, in and out of combat
  (:attr:`Params.effective_dc`). A contest has no DC.
* **Contests** (``vs_bonus`` set): the opponent rolls too; the higher total wins;
  by 1–3 Narrow, 4–6 Clear, 7+ Decisive (:data:`CONTEST_BANDS`); a tie is a Partial
  for both. All kept dice 1s is a Critical Failure whatever the margin, in a contest
  too (:func:`contest_outcome`).
* **Clocks**: progress in half segments by effect (Great 4, Standard 2, Limited 1),
  moved by the tier (:data:`EFFECT_LADDER`, :data:`TIER_EFFECT_STEP`); a Critical
  Success raises the effect one level but never above Great (2 segments).
* **Combat**: the tier picks rows of the Combat table through the band table in
  role ``4d6-combat-rows`` (``core/data/4d6-combat-rows.json``, keyed by tier rank
  2 Critical Success … −2 Critical Failure); each row is read in the receiver's
  kind column.

Decisions where the rules are silent:

* ``success`` is True for Critical, Full **and Partial** Success (a Partial is "you
  succeed, but at a cost"), False for Failure and Critical Failure, None for a plain
  total with no DC and no contest.
* A Partial lowers Limited to none (0). Great is the top of the effect ladder: a
  Critical Success at Great effect stays Great (4 halves).
* Every roll that is not a contest is read against a DC (16 when none is given), so
  every roll has a tier, ``success`` and clock progress.
* A contest is decided by the totals, except that a side whose kept dice are all 1s
  critically fails whatever the totals. For clocks, ``success`` and combat the
  roller's contest result reads as a tier through :data:`CONTEST_TIERS`: Decisive
  victory → Critical Success, Clear or Narrow victory → Full Success, tie → Partial
  Success, Narrow or Clear defeat → Failure, Decisive defeat → Critical Failure.
  The all-1s results: the roller's own all 1s is its Critical Failure (the opponent
  wins, ``contest`` "All 1s"); the opponent's all 1s is the opponent's Critical
  Failure and never the roller's Critical Success (RULES.md): the roller wins by
  its own margin when its total is ahead (a Decisive victory is still a Critical
  Success), else Narrowly (:data:`ALL_ONES_WIN`, a Full Success; in combat a
  Wound); both all 1s is a Critical Failure for both (nobody wins). The record's
  ``opponent`` says ``all_ones``. Records rolled before this rule keep what they
  said (their outcome and descriptors are stored, never read again).
  ``margin`` in a contest is the roller's total minus the opponent's.
* Who cannot act cannot defend (``defenseless``, set by the session when the
  opponent is Unconscious or Dead): the opponent rolls nothing and counts the
  lowest 4d6 result, all 1s — its Critical Failure; the record's ``opponent``
  says ``cannot_act``.
* A contest takes no DC (``--dc`` with ``--vs-bonus`` is refused) and ``--vs-adv``
  needs ``--vs-bonus``.
* ``--dc`` accepts a number ≥ 1 or a ladder name (``--dc difficult`` = 18).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from gmdesk.core import odds as odds_mod
from gmdesk.core.dice import Descriptor, Die, RandomSource, RollRecord, roll_die
from gmdesk.core.errors import ParamError, TableError
from gmdesk.core.odds import Odds
from gmdesk.core.systems import builtin_moves as _moves
from gmdesk.core.systems.base import (
    CombatFields,
    combat_descriptor,
    dataclass_from_json,
    dataclass_to_json,
    parse_choice,
    parse_int,
    shown,
)
from gmdesk.core.systems.core_4d6_tables import (  # the system's data, re-exported
    ADV_CAP,
    ADVANTAGE_LEVELS,
    ALL_ONES_BOTH,
    ALL_ONES_DEGREE,
    ALL_ONES_LOSS,
    ALL_ONES_TIER,
    ALL_ONES_WIN,
    CONTEST_BANDS,
    CONTEST_OUTCOMES,
    CONTEST_TIERS,
    DC_LADDER,
    DEFAULT_DC,
    EFFECT_LADDER,
    EFFECTS,
    KEEP,
    POSITIONS,
    TIE_LABEL,
    TIER_BANDS,
    TIER_EFFECT_STEP,
    TIER_RANK,
    TIERS,
)
from gmdesk.core.systems.harm import DESK_VITALITY, WOUND_STATUS, Clocks, Harm
from gmdesk.core.systems.rest import default_rest
from gmdesk.core.systems.spec import CharField, Param
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

ID = "4d6"
NAME = "Core 4d6 vs DC"
#: what a character of this system uses: advantage sources (advantage / disadvantage), conditions, wounds
#: (the sections are listed in core.systems.spec.SECTIONS)
CHARACTER_SECTIONS = frozenset({"advantage", "conditions", "wounds"})
CLOCKS = True
#: what its rolls do: the progress a roll earned by its effect (the record's ``clock``,
#: half segments) goes to the clock the GM picks; the wound-status table's descriptors
#: knock out or kill
HARM = Harm(status_table=WOUND_STATUS, clocks=Clocks("clock"), vitality=DESK_VITALITY)

# --------------------------------------------------------------------------- helpers


def parse_sources(option: str, value: Any) -> tuple[int, ...]:
    """Advantage sources from ``"+1,+2,-1"``, an int or a sequence; each ±1 or ±2."""
    if value is None:
        return ()
    if isinstance(value, str):
        tokens: list[Any] = [t for t in value.replace(";", ",").replace(" ", ",").split(",") if t.strip()]
    elif isinstance(value, int) and not isinstance(value, bool):
        tokens = [value]
    elif isinstance(value, Iterable):
        tokens = list(value)
    else:
        tokens = [value]
    out = []
    for t in tokens:
        try:
            n = parse_int(option, t)
        except ParamError:
            n = None
        if n not in ADVANTAGE_LEVELS:
            raise ParamError(
                option, f"each source must be one of +1, +2, -1, -2, comma-separated like +1,+2,-1 (got {shown(t)})"
            )
        out.append(n)
    return tuple(out)


def net_advantage(levels: Iterable[int]) -> int:
    """Net advantage level of the sources: each side caps at 2, then they net (−2..+2).

    >>> net_advantage([2, -1]), net_advantage([1, -2]), net_advantage([2, 2, -2])
    (1, -1, 0)
    """
    levels = parse_sources("--adv", tuple(levels))
    up = sum(v for v in levels if v > 0)
    down = sum(-v for v in levels if v < 0)
    return min(ADV_CAP, up) - min(ADV_CAP, down)


def kept_indices(values: Iterable[int], level: int) -> frozenset[int]:
    """Indices of the 4 dice kept: the best for advantage, the worst for disadvantage.

    Among equal faces the later die is dropped.
    """
    vals = list(values)
    n_drop = len(vals) - KEEP
    if n_drop <= 0:
        return frozenset(range(len(vals)))
    sign = 1 if level > 0 else -1  # advantage drops the lowest, disadvantage the highest
    order = sorted(range(len(vals)), key=lambda i: (sign * vals[i], -i))
    return frozenset(range(len(vals))) - frozenset(order[:n_drop])


def tier_for(margin: int, all_ones: bool = False) -> str:
    """The tier of a check: all kept dice 1s is a Critical Failure, else the margin band."""
    if all_ones:
        return ALL_ONES_TIER
    tier: str = TIER_BANDS.lookup(margin)
    return tier


def contest_result(difference: int) -> tuple[str, str, str | None]:
    """``(label, degree, winner)`` for roller total − opponent total."""
    degree = CONTEST_BANDS.lookup(abs(difference))
    if difference == 0:
        return TIE_LABEL, degree, None
    if difference > 0:
        return f"{degree} victory", degree, "roller"
    return f"{degree} defeat", degree, "opponent"


def contest_outcome(difference: int, all_ones: bool = False, opp_all_ones: bool = False) -> tuple[str, str, str | None]:
    """``(label, degree, winner)`` of a contest: all kept dice 1s is a Critical Failure
    for that side whatever the totals (see the module docstring), else the totals decide."""
    if all_ones and opp_all_ones:
        return ALL_ONES_BOTH, ALL_ONES_DEGREE, None
    if all_ones:
        return ALL_ONES_LOSS, ALL_ONES_DEGREE, "opponent"
    if opp_all_ones:
        # the opponent's 1s are its own Critical Failure, never the roller's Critical
        # Success: the roller wins by its own margin when ahead, else Narrowly (RULES.md)
        if difference > 0:
            return contest_result(difference)
        return ALL_ONES_WIN, "Narrow", "roller"
    return contest_result(difference)


def clock_progress(effect: str, tier: str | None) -> tuple[int | None, str | None]:
    """Clock progress in half segments and the effect level it came from."""
    if tier is None:
        return None, None
    step = TIER_EFFECT_STEP[tier]
    if step is None:
        return 0, "none"
    names = [name for name, _ in EFFECT_LADDER]
    i = max(0, min(len(EFFECT_LADDER) - 1, names.index(effect) + step))
    return EFFECT_LADDER[i][1], EFFECT_LADDER[i][0]


def success_of(tier: str | None) -> bool | None:
    if tier is None:
        return None
    return TIER_RANK[tier] >= TIER_RANK["Partial Success"]


def dc_name(dc: int | None) -> str | None:
    return dict(DC_LADDER).get(dc) if dc is not None else None


def _parse_dc(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        key = value.strip().lower().replace("-", " ").replace("_", " ")
        for n, name in DC_LADDER:
            if key == name.lower():
                return n
    try:
        return parse_int("--dc", value, 1)
    except ParamError:
        ladder = ", ".join(f"{n} {name}" for n, name in DC_LADDER)
        raise ParamError(
            "--dc", f"must be a whole number ≥ 1 or a ladder name ({ladder}) (got {shown(value)})"
        ) from None


def _parse_optional_int(option: str, value: Any) -> int | None:
    return None if value is None else parse_int(option, value)


# --------------------------------------------------------------------------- params


@dataclasses.dataclass(frozen=True)
class Params(CombatFields):
    """Everything a 4d6 roll needs.

    ``adv`` / ``vs_adv`` are the advantage sources (each +1, +2, −1 or −2) of the
    roller and of the opponent; ``vs_bonus`` set makes the roll a contest.
    """

    bonus: int = 0
    dc: int | None = None
    adv: tuple[int, ...] = ()
    vs_bonus: int | None = None
    vs_adv: tuple[int, ...] = ()
    position: str = "standard"
    effect: str = "standard"
    defenseless: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if not isinstance(self.defenseless, bool):
            text = str(self.defenseless).strip().lower()
            if text not in ("true", "yes", "1", "on", "false", "no", "0", "off", ""):
                raise ParamError("--defenseless", f"must be true or false (got {self.defenseless!r})")
            set_(self, "defenseless", text in ("true", "yes", "1", "on"))
        set_(self, "bonus", parse_int("--bonus", self.bonus))
        set_(self, "dc", _parse_dc(self.dc))
        set_(self, "adv", parse_sources("--adv", self.adv))
        set_(self, "vs_bonus", _parse_optional_int("--vs-bonus", self.vs_bonus))
        set_(self, "vs_adv", parse_sources("--vs-adv", self.vs_adv))
        # an empty position or effect (``--position ""``) is the standard one
        position = str(self.position or "standard").strip().lower()
        set_(self, "position", parse_choice("--position", position, POSITIONS))
        set_(self, "effect", parse_choice("--effect", str(self.effect or "standard").strip().lower(), EFFECTS))
        if not isinstance(self.combat, bool):
            raise ParamError("--combat", f"must be true or false (got {self.combat!r})")
        self._check_combat()
        if self.vs_bonus is not None and self.dc is not None:
            raise ParamError("--vs-bonus", "a contest compares totals and takes no --dc; drop one of them")
        if self.vs_adv and self.vs_bonus is None:
            raise ParamError("--vs-adv", "needs --vs-bonus (the opponent's bonus in a contest)")

    @property
    def advantage(self) -> int:
        return net_advantage(self.adv)

    @property
    def vs_advantage(self) -> int:
        return net_advantage(self.vs_adv)

    @property
    def contest(self) -> bool:
        return self.vs_bonus is not None

    @property
    def effective_dc(self) -> int | None:
        """The DC the roll is read against: the given one, else 16 (Standard); None in a
        contest (totals are compared, there is no DC)."""
        if self.contest:
            return None
        return self.dc if self.dc is not None else DEFAULT_DC


def params_to_json(params: Params) -> dict[str, Any]:
    return dataclass_to_json(params)


def params_from_json(data: Mapping[str, Any]) -> Params:
    return dataclass_from_json(Params, data)


#: The 4d6 roll parameters (core.systems.spec): the CLI options, the roll form and
#: the breakdown's labels are generated from them.
PARAMS = (
    Param("bonus", "Bonus", "int", 0, "bonus added to the 4 kept dice", metavar="N", remember=True),
    Param(
        "dc",
        "DC",
        "text",
        None,
        "DC: a number or a ladder name (12 Simple, 14 Routine, 16 Standard, "
        "18 Difficult, 20 Very Difficult, 22 Exceptional); default 16, none in a contest",
        optional=True,
        placeholder="empty: 16 Standard; 18, difficult …",
        metavar="N",
    ),
    Param(
        "adv",
        "Advantage",
        "text",
        "",
        "advantage sources, each +1, +2, -1 or -2, e.g. +1,+2,-1",
        placeholder="+1,-2 …",
        metavar="SOURCES",
    ),
    Param(
        "vs_bonus",
        "Vs bonus (contest)",
        "int",
        None,
        "contest: the opponent's bonus",
        optional=True,
        placeholder="empty: no contest",
        metavar="N",
        # a contest takes no DC: the defender's DC the session would fill is left out
        replaces=("dc",),
    ),
    Param(
        "vs_adv",
        "Vs advantage",
        "text",
        "",
        "contest: the opponent's advantage sources",
        placeholder="+1 …",
        metavar="SOURCES",
    ),
    Param(
        "defenseless",
        "Opponent cannot act",
        "bool",
        False,
        "contest: the opponent cannot act (Unconscious, Dead): it rolls nothing and counts all 1s",
        form=False,
        remember=False,
    ),
    Param(
        "position",
        "Position",
        "choice",
        "standard",
        "position (default standard)",
        choices=POSITIONS,
        metavar="high|standard|low",
    ),
    Param(
        "effect",
        "Effect",
        "choice",
        "standard",
        "effect (default standard)",
        choices=EFFECTS,
        metavar="great|standard|limited",
    ),
)

#: the record's own fields the breakdown shows, in order, with their labels
EXTRA_LABELS = (
    ("total", "Total"),
    ("dc", "DC"),
    ("margin", "Margin"),
    ("advantage", "Advantage level"),
    ("position", "Position"),
    ("effect", "Effect"),
    ("clock", "Clock progress (half segments)"),
    ("contest", "Contest"),
    ("winner", "Winner"),
    ("success", "Success"),
)
#: the headline is a plain total; these fields read as signed numbers
SIGNED_EXTRAS = frozenset({"margin", "advantage"})


def chronicle(record: RollRecord, facts: list[str]) -> list[str]:
    """How a roll reads in the chronicle: a DC with its name ("DC 16 (Standard)")."""
    name = record.extra.get("dc_name")
    if record.extra.get("contest") is not None or record.extra.get("dc") is None or not name:
        return facts
    return [f"{f} ({name})" if f.startswith("DC ") else f for f in facts]


def read_form(
    data: dict[str, Any], actor: Any = None, target: Any = None, combat: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """The roll dialog's reading of a contest: with a Vs bonus the totals are
    compared, and the DC (typed or filled in) does not apply."""
    vs = data.get("vs_bonus")
    if vs is None or (isinstance(vs, str) and not vs.strip()):
        return data, []
    return {**data, "dc": None}, ["Contest: the totals are compared, no DC"]


# --------------------------------------------------------------------------- rolls


def roll_dice(rng: RandomSource, level: int) -> tuple[Die, ...]:
    """4 + |level| d6 in the order rolled, each marked kept or dropped."""
    faces = [roll_die(rng, 6) for _ in range(KEEP + abs(level))]
    kept = kept_indices(faces, level)
    return tuple(Die(v, "kept" if i in kept else "dropped") for i, v in enumerate(faces))


def _kept_sum(dice: Iterable[Die]) -> int:
    return sum(d.value for d in dice if d.role == "kept")


def _all_ones(dice: Iterable[Die]) -> bool:
    return all(d.value == 1 for d in dice if d.role == "kept")


def combat_rows(tier: str, tables: TableSet = DEFAULT_TABLES) -> list[tuple[int, str]]:
    """``[(row, applies_to), …]`` of the Combat table for a tier, from the table in force."""
    table = tables.band_table("4d6-combat-rows")
    value = table.lookup(TIER_RANK[tier])
    rows = value.get("rows") if isinstance(value, Mapping) else value
    if not isinstance(rows, (list, tuple)):
        raise TableError(f"table {table.name!r}: the {tier} band must list rows")
    out = []
    for r in rows:
        row = r.get("row") if isinstance(r, Mapping) else None
        to = r.get("applies_to") if isinstance(r, Mapping) else None
        if not isinstance(row, int) or isinstance(row, bool) or to not in ("target", "attacker"):
            raise TableError(
                f"table {table.name!r}: the {tier} band's rows need an integer 'row' and "
                f"'applies_to' target or attacker"
            )
        out.append((row, to))
    return out


def combat_descriptors(tier: str, params: Params, tables: TableSet = DEFAULT_TABLES) -> tuple[Descriptor, ...]:
    """The descriptors a combat roll of this tier deals, each in its receiver's kind column."""
    out = []
    for row, to in combat_rows(tier, tables):
        kind = params.target_kind if to == "target" else params.attacker_kind
        out.append(combat_descriptor(tables, row, applies_to=to, receiver_kind=kind))
    return tuple(out)


def roll(params: Params, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """Roll the dice (then the opponent's, in a contest) and read the tier."""
    level = params.advantage
    dice = roll_dice(rng, level)
    kept = _kept_sum(dice)
    total = kept + params.bonus
    all_ones = _all_ones(dice)
    dc = params.effective_dc
    extra: dict[str, Any] = {
        "total": total,
        "kept": kept,
        "dc": dc,
        "dc_name": dc_name(dc),
        "margin": None,
        "advantage": level,
        "all_ones": all_ones,
        "position": params.position,
        "effect": params.effect,
    }
    tier: str | None = None
    if params.contest:
        vs_level = params.vs_advantage
        # who cannot act cannot defend: no dice, the lowest 4d6 result (all 1s)
        opp_dice = () if params.defenseless else roll_dice(rng, vs_level)
        opp_kept = KEEP if params.defenseless else _kept_sum(opp_dice)
        opp_ones = params.defenseless or _all_ones(opp_dice)
        opp_total = opp_kept + (params.vs_bonus or 0)  # set: it makes the roll a contest
        label, degree, winner = contest_outcome(total - opp_total, all_ones, opp_ones)
        tier = CONTEST_TIERS[label]
        outcome = label
        extra.update(
            margin=total - opp_total,
            contest=degree,
            winner=winner,
            opponent={
                "dice": [d.to_json() for d in opp_dice],
                "kept": opp_kept,
                "bonus": params.vs_bonus,
                "advantage": vs_level,
                "total": opp_total,
                "all_ones": opp_ones,
                **({"cannot_act": True} if params.defenseless else {}),
            },
        )
    else:
        assert dc is not None
        margin = total - dc
        tier = tier_for(margin, all_ones)
        outcome = tier
        extra["margin"] = margin
    clock, clock_effect = clock_progress(params.effect, tier)
    extra.update(tier=tier, success=success_of(tier), clock=clock, clock_effect=clock_effect)
    descriptors = combat_descriptors(tier, params, tables) if params.combat else ()
    return RollRecord(
        system=ID,
        params=params_to_json(params),
        dice=dice,
        value=total,
        outcome=outcome,
        extra=extra,
        descriptors=descriptors,
    )


def initiative(rng: RandomSource, modifier: int = 0) -> RollRecord:
    """Initiative: 4d6 + the actor's bonus."""
    modifier = parse_int("--modifier", modifier)
    dice = roll_dice(rng, 0)
    total = _kept_sum(dice) + modifier
    return RollRecord(
        system=ID,
        params={"modifier": modifier},
        dice=dice,
        value=total,
        outcome=f"Initiative {total}",
        extra={"total": total, "modifier": modifier},
    )


# --------------------------------------------------------------------------- odds


@cache
def kept_distribution(level: int) -> dict[int, Fraction]:
    """Exact distribution of the 4 kept dice at an advantage level (−2..+2).

    Enumerates the sorted rolls (multisets: 462 at ±2) once per level, each weighted
    by how many orders give it (n! / Π count!), and caches. A kept sum of 4 is
    exactly the all-1s roll.
    """
    level = max(-ADV_CAP, min(ADV_CAP, int(level)))
    n = KEEP + abs(level)
    counts: Counter[int] = Counter()
    for s in itertools.combinations_with_replacement(range(1, 7), n):
        orders = math.factorial(n)
        for c in Counter(s).values():
            orders //= math.factorial(c)
        counts[sum(s[-KEEP:]) if level > 0 else sum(s[:KEEP])] += orders
    total = 6**n
    return {k: Fraction(c, total) for k, c in sorted(counts.items())}


def total_distribution(bonus: int, level: int) -> dict[int, Fraction]:
    return odds_mod.shift(kept_distribution(level), bonus)


def odds(params: Params, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """Exact distribution of the total; the tiers against the DC (16 unless given; the
    all-1s rule included), or the contest outcomes with ``vs_bonus`` (all-1s included:
    a kept sum of 4 is exactly the all-1s roll)."""
    kept = kept_distribution(params.advantage)
    dist = odds_mod.shift(kept, params.bonus)
    dc = params.effective_dc
    outcomes: list[tuple[str, Fraction]]
    if params.contest:
        opp_kept = {KEEP: Fraction(1)} if params.defenseless else kept_distribution(params.vs_advantage)
        vs_bonus = params.vs_bonus or 0  # set: it makes the roll a contest
        probs: dict[str, Fraction] = {label: Fraction(0) for label in CONTEST_OUTCOMES}
        for k1, p1 in kept.items():
            for k2, p2 in opp_kept.items():
                label = contest_outcome(k1 + params.bonus - k2 - vs_bonus, k1 == KEEP, k2 == KEEP)[0]
                probs[label] += p1 * p2
        outcomes = [(label, probs[label]) for label in CONTEST_OUTCOMES]
    else:
        assert dc is not None
        outcomes = odds_mod.outcomes_by(kept, lambda k: tier_for(k + params.bonus - dc, all_ones=(k == KEEP)), TIERS)
    return Odds.from_dist(ID, params_to_json(params), dist, outcomes)


#: the parameter the session sets when the opponent cannot act (core.systems.spec)
DEFENSELESS = "defenseless"


# ---- character fields
# What a 4d6 GM keeps on a character sheet: its skill bonuses (a roll is 4d6 + the
# bonus against a DC), the skill it attacks with, the DC an attack on it must beat (its
# defense) and its initiative bonus (initiative is 4d6 + bonus). Advantage sources
# stay the character's sources (its advantage section), read as they are today.


def _dc(option: str, value: Any) -> int | None:
    try:
        return _parse_dc(value)
    except ParamError as e:
        raise ParamError(option, str(e).partition(": ")[2]) from None


CHARACTER_FIELDS = (
    CharField(
        "skills",
        "Skills",
        "stats",
        help="skill bonuses, e.g. Blades=2, Stealth=3",
        lo=-99,
        hi=99,
        placeholder="Blades=2, Stealth=3",
    ),
    CharField(
        "attack_skill",
        "Attack skill",
        "stat",
        feeds="bonus",
        stats="skills",
        combat_only=True,
        help="the skill an attack uses unless another is named (its bonus is the roll's)",
        placeholder="Blades",
    ),
    CharField(
        "defense_dc",
        "Defense DC",
        "int",
        feeds="dc",
        from_="target",
        combat_only=True,
        lo=1,
        hi=99,
        parse=_dc,
        help="the DC an attack on this character must beat (a number or a ladder name)",
        placeholder="16",
        fills=("attack",),  # a contest has no DC
    ),
    CharField(
        "contest_skill",
        "Contest skill",
        "stat",
        feeds="vs_bonus",
        from_="target",
        stats="skills",
        fills=("opposed",),
        help="the skill this character opposes a contest with unless another is named (its bonus is the Vs bonus)",
        placeholder="Perception",
    ),
    CharField(
        "initiative_bonus",
        "Initiative bonus",
        "int",
        feeds="initiative",
        lo=-99,
        hi=99,
        help="the bonus initiative adds to its 4d6",
    ),
)


#: the character's sources a 4d6 roll reads (the roller's advantage sources; in a
#: contest the opponent's are typed as Vs advantage), and whether the target's count
ROLL_SOURCES = ("advantage", False)


def sources_params(sources: Iterable[Any]) -> dict[str, Any]:
    """``adv``: the values of the roller's switched-on advantage sources."""
    return {"adv": tuple(s.value for s in sources if s.owner == "own")}


# ---- moves

#: with its clocks' "Add clock" (K) and "Tick clock" (k), which its HARM brings
MOVES = (_moves.opposed("Contest", "both roll; the higher total wins", {"vs_bonus": "0"}),)


# ---- between sessions


def rest(character: dict[str, Any]) -> dict[str, Any]:
    """Recovery between sessions (``gmdesk new … --from … --rest``). The rules say
    nothing of it, so gmdesk does what a GM at the table expects: Vitality back to
    its default, every wound (descriptor) cleared, conditions and sources counted in
    rounds over; those without a duration, the system's fields and the Dead stay as
    they were (docs/CAMPAIGNS.md)."""
    return default_rest(character)
