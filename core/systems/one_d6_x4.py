"""OneDeeSixTimesFour (``1d6x4``): Tests of 4 × d6 + descriptors against a secret number.

* **Test**: total = 4 × d6 + ``bonus`` (the Current Values of the descriptors the GM
  names, summed by :func:`test_bonus` from the character's sheet; missing ones count
  +0). With a ``target`` (the GM's secret number) the Test succeeds iff total ≥ target;
  without one the outcome is just the total ("Total 17").
* **Automatic failure** (``auto_fail``, the reason): a descriptor at or below −5, at
  (0) uses, or a Physical Item / Ability / Use the character lacks. The player is not
  allowed to perform the Test, so **no die is rolled**: the record has no dice, value
  0, ``total`` None and the outcome "Automatic failure: Slingshot is missing".
* **Two-way Test** (``vs_bonus`` set): the defender rolls too, or takes 14
  (``defender_takes_14``: total 14 + vs_bonus, no die); the higher total prevails and
  a tie keeps the status quo: the defender prevails. ``vs_auto_fail`` is a defender who
  cannot perform its Test: it rolls nothing and the attacker prevails (unless the
  attacker fails automatically too, then the status quo holds).
* **Who cannot act cannot defend** (``defenseless``, set by the session when the
  defender is Unconscious or Dead): no defense die; the defender's total is the
  lowest a Test could give, 4 + its descriptors, and the record's ``opponent``
  says ``cannot_act``. It never hurts anybody in a mutual melee.
* **Fighting** (``combat``): the attacker's Test against the defender's Defense Test
  (``vs_bonus``; without one, the GM's ``target`` number stands for the defense and a
  total ≥ target hits). If the attacker prevails, the Vitality Adjustment (``damage``,
  d6 unless the item, use or ability says otherwise: ``dN``, ``NdM``, ``NdM+K``,
  ``NdM-K`` or a plain number) is rolled after the Test dice and the target receives
  the descriptor "Wound −4 Vitality" (amount 4). If the defender prevails the attack
  missed: a "Miss" that leaves no mark. In a **mutual** melee both sides attack: the
  winner hurts the loser (``applies_to`` "attacker" when the defender wins) and a tie
  hurts nobody (outcome "Tie: nobody hurt"). A side that fails automatically loses
  the melee and is hurt, whichever side it is; both failing automatically hurts
  nobody. A Vitality Adjustment below 0 (``d6-3``)
  counts as 0 and leaves no mark.
* The texts ("Wound −{amount} Vitality", "Miss", …) are data: table
  ``1d6x4-combat`` (``core/data/1d6x4-combat.json``), which a session may override
  under the same role name.
* **Vitality** (:func:`vitality_after`): at −5 or lower Unconscious; any injury after
  that is Dead. **Healing Ability** (:func:`heal`): d6 back, never above the Default.
  The session applies both (and keeps the Dead dead through a new day); this module
  only computes.
* The target number is the GM's secret (declared ``secret``): players never see it.
* Initiative is a Reflex Test: 4 × d6 + Reflex. A Reflex at −5 or lower fails
  automatically (no die; :func:`initiative_fails`) and the session seats that
  character after everyone who rolled.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from gmdesk.core import odds as odds_mod
from gmdesk.core.dice import Descriptor, Die, RandomSource, RollRecord, roll_die
from gmdesk.core.errors import ParamError, TableError
from gmdesk.core.odds import Odds
from gmdesk.core.systems import builtin_moves as _moves
from gmdesk.core.systems.base import CombatFields, dataclass_from_json, dataclass_to_json, parse_int, shown
from gmdesk.core.systems.harm import Harm, Vitality
from gmdesk.core.systems.one_d6_x4_damage import damage_distribution, format_damage, parse_damage  # re-exported
from gmdesk.core.systems.one_d6_x4_sheet import (  # re-exported: the declaration's fields and rest
    CHARACTER_FIELDS,
    INITIATIVE_FAILS,
    TestReading,
    fill_from_sheets,
    find_test_row,
    initiative_fails,
    initiative_modifier,
    lacks_when_missing,
    read_filled,
    read_form,
    read_sheets,
    read_test,
    rest,
    roll_uses,
    split_names,
    test_bonus,
    test_uses,
)
from gmdesk.core.systems.spec import Move, Param
from gmdesk.core.tables import DEFAULT_TABLES, DescriptorTable, TableSet, load_builtin

ID = "1d6x4"
NAME = "OneDeeSixTimesFour"
#: what a character of this system uses: Vitality, the descriptor sheet and its uses, conditions, wounds
#: (the sections are listed in core.systems.spec.SECTIONS)
CHARACTER_SECTIONS = frozenset({"vitality", "sheet", "conditions", "wounds"})

#: the d6 is multiplied by this
MULTIPLIER = 4
#: what a defender who does not roll adds to its descriptors
TAKES = 14
#: Vitality at or below this: Unconscious
UNCONSCIOUS_AT = -5
#: what its rolls do: a Vitality Adjustment (the descriptor's amount) comes off the
#: receiver's Vitality; at −5 or lower Unconscious; any further injury kills
HARM = Harm(vitality=Vitality(hurt_by_amount=True, unconscious_at=UNCONSCIOUS_AT, hurt_while_out_kills=True))
#: the table role (and built-in table name) of the combat / healing texts
TEXT_ROLE = "1d6x4-combat"

BONUS_RANGE = (-999, 999)

ATTACKER = "attacker"
DEFENDER = "defender"
OUTCOME_SUCCESS = "Success"
OUTCOME_FAILURE = "Failure"
OUTCOME_ATTACKER = "Attacker prevails"
OUTCOME_DEFENDER = "Defender prevails"
OUTCOME_TIE = "Tie: nobody hurt"
AUTO_FAIL_PREFIX = "Automatic failure: "

# --------------------------------------------------------------------------- params


def _opt_int(option: str, value: Any) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_int(option, value, *BONUS_RANGE)


def _opt_reason(option: str, value: Any) -> str | None:
    if value is None or value is False:
        return None
    text = " ".join(str(value).split())
    return text or None


def _flag(option: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "no", "0", "off", ""):
        return False
    raise ParamError(option, f"must be true or false (got {shown(value)})")


@dataclasses.dataclass(frozen=True)
class Params(CombatFields):
    """Everything a 1d6x4 Test needs.

    ``bonus`` is the sum of the attacker's descriptors; ``target`` the GM's secret
    number (or None); ``vs_bonus`` makes a two-way Test (the defender's descriptors);
    ``defender_takes_14`` has the defender take 14 instead of rolling; ``auto_fail`` /
    ``vs_auto_fail`` say why a side cannot perform its Test; ``mutual`` makes a combat
    roll a mutual melee; ``damage`` is the Vitality Adjustment formula; ``test`` /
    ``vs_test`` name the descriptors added, for the log.
    """

    bonus: int = 0
    target: int | None = None
    vs_bonus: int | None = None
    defender_takes_14: bool = False
    auto_fail: str | None = None
    vs_auto_fail: str | None = None
    mutual: bool = False
    damage: str = "d6"
    test: str = ""
    vs_test: str = ""
    defenseless: bool = False
    missing: str = ""
    vs_missing: str = ""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        bonus: object = self.bonus  # as given: a form or a command line may leave it empty
        set_(self, "bonus", parse_int("--bonus", 0 if bonus in (None, "") else bonus, *BONUS_RANGE))
        set_(self, "target", _opt_int("--target", self.target))
        set_(self, "vs_bonus", _opt_int("--vs-bonus", self.vs_bonus))
        set_(self, "test", " ".join(str(self.test or "").split()))
        set_(self, "vs_test", " ".join(str(self.vs_test or "").split()))
        set_(self, "missing", " ".join(str(self.missing or "").split()))
        set_(self, "vs_missing", " ".join(str(self.vs_missing or "").split()))
        if self.vs_bonus is None and self.vs_test:  # a defender named makes a two-way Test
            set_(self, "vs_bonus", 0)
        set_(self, "defender_takes_14", _flag("--defender-takes-14", self.defender_takes_14))
        set_(self, "mutual", _flag("--mutual", self.mutual))
        set_(self, "defenseless", _flag("--defenseless", self.defenseless))
        set_(self, "combat", _flag("--combat", self.combat))
        set_(self, "auto_fail", _opt_reason("--auto-fail", self.auto_fail))
        set_(self, "vs_auto_fail", _opt_reason("--vs-auto-fail", self.vs_auto_fail))
        set_(self, "damage", format_damage(*parse_damage(self.damage if self.damage not in (None, "") else "d6")))
        self._check_combat()
        if self.vs_bonus is not None and self.target is not None:
            raise ParamError(
                "--target", "a two-way Test compares the two totals; give --target or --vs-bonus, not both"
            )
        if self.defender_takes_14 and self.vs_bonus is None:
            raise ParamError("--defender-takes-14", "needs --vs-bonus (the defender's descriptors; 0 for none)")
        if self.vs_auto_fail and self.vs_bonus is None:
            raise ParamError("--vs-auto-fail", "needs --vs-bonus (only a two-way Test has a defender)")
        if self.mutual and not self.combat:
            raise ParamError("--mutual", "is for a fight: add --combat")
        if self.mutual and self.vs_bonus is None:
            raise ParamError(
                "--mutual", "a mutual melee is a two-way Test: give --vs-bonus (the other side's descriptors)"
            )
        if self.combat and self.vs_bonus is None and self.target is None:
            raise ParamError(
                "--vs-bonus", "a combat roll needs the defender's Defense: give --vs-bonus N (or the GM's --target N)"
            )

    @property
    def two_way(self) -> bool:
        return self.vs_bonus is not None


def params_to_json(params: Params) -> dict[str, Any]:
    return dataclass_to_json(params)


def params_from_json(data: Mapping[str, Any]) -> Params:
    return dataclass_from_json(Params, data)


#: The 1d6x4 roll parameters (core.systems.spec): the CLI options, the roll form and
#: the breakdown's labels are generated from them.
PARAMS = (
    Param(
        "test",
        "Descriptors",
        "text",
        "",
        "the descriptors tested, e.g. 'Precision+Slingshot Expertise+Slingshot'; with "
        "--save/--as they are read from the roller's sheet (added to --bonus; a missing "
        "Item, Ability or Use fails automatically)",
        placeholder="Precision, Slingshot",
        metavar="NAMES",
        remember=True,
    ),
    Param(
        "bonus",
        "Extra bonus",
        "int",
        0,
        "the Current Values of the descriptors tested, summed (default 0)",
        metavar="N",
        remember=True,
    ),
    Param(
        "target",
        "Target number",
        "int",
        None,
        "the GM's secret target number: success iff total >= N",
        optional=True,
        secret=True,
        placeholder="secret; empty: none",
        metavar="N",
        # the GM's number stands for the defense: the defender's Defense Test is not filled
        replaces=("vs_test", "vs_bonus", "vs_auto_fail", "defender_takes_14"),
    ),
    Param(
        "vs_test",
        "Defender's",
        "text",
        "",
        "the defender's descriptors (e.g. Defense), read from the --at character's sheet",
        placeholder="Defense (two-way)",
        metavar="NAMES",
        combat_default="Defense",
    ),
    Param(
        "vs_bonus",
        "Defender bonus",
        "int",
        None,
        "two-way Test: the defender's descriptors (in combat: its Defense)",
        optional=True,
        placeholder="empty: not two-way",
        metavar="N",
    ),
    Param(
        "defender_takes_14",
        "Defender takes 14",
        "bool",
        False,
        "the defender takes 14 + its descriptors instead of rolling",
    ),
    # a mutual melee and the damage count only in an attack (a plain Test refuses a
    # mutual melee); the damage is the roller's weapon's, remembered
    Param(
        "mutual",
        "Mutual melee",
        "bool",
        False,
        "combat: a mutual melee, the winner hurts the loser",
        offered="attack",
    ),
    Param(
        "damage",
        "Damage",
        "text",
        "d6",
        "the Vitality Adjustment: d6 (default), 2d6, d6+2, …",
        metavar="FORMULA",
        remember=True,
        offered="attack",
    ),
    Param(
        "missing",
        "Not on the sheet (+0)",
        "text",
        "",
        "the names of the Test the roller's sheet lacks that count +0 (read from the sheet; kept on the record)",
        form=False,
        cli=False,
        remember=False,
    ),
    Param(
        "vs_missing",
        "Defender: not on the sheet (+0)",
        "text",
        "",
        "the defender's names its sheet lacks that count +0",
        form=False,
        cli=False,
        remember=False,
    ),
    Param(
        "defenseless",
        "Defender cannot act",
        "bool",
        False,
        "the defender cannot act (Unconscious, Dead): no defense roll, its lowest total (4 + its descriptors) counts",
        form=False,
        remember=False,
    ),
    Param(
        "auto_fail",
        "Automatic failure",
        "text",
        None,
        "the Test fails automatically (e.g. 'Slingshot is missing'); no die is rolled",
        optional=True,
        metavar="REASON",
        form=False,
    ),
    Param(
        "vs_auto_fail",
        "Defender fails automatically",
        "text",
        None,
        "the defender cannot perform its Test",
        optional=True,
        metavar="REASON",
        form=False,
    ),
)

#: the parameter the session sets when the defender cannot act (core.systems.spec)
DEFENSELESS = "defenseless"

#: the record's own fields the breakdown shows, in order, with their labels
EXTRA_LABELS = (
    ("damage", "Damage"),
    ("total", "Total"),
    ("target", "Target number"),
    ("prevails", "Prevails"),
    ("success", "Success"),
    ("auto_fail", "Automatic failure"),
)
#: the roll's parameters the breakdown names first: the descriptors each side tested
BREAKDOWN_PARAMS = (
    ("test", "Tested"),
    ("missing", "Not on the sheet, +0"),
    ("vs_test", "Opponent tested"),
    ("vs_missing", "Opponent: not on the sheet, +0"),
)


def dice_labels(record: RollRecord) -> dict[str, str]:
    """What the log calls the groups of a roll's dice: an attack's own dice are the
    ``attack`` and the defender's its ``defense`` (a mutual melee's other side stays
    ``vs``)."""
    if not record.params.get("combat"):
        return {}
    return {"own": "attack"} if record.params.get("mutual") else {"own": "attack", "vs": "defense"}


def opponent_brief(record: RollRecord) -> str:
    """The defender of a two-way Test for the one-line log: ``vs 11``, ``vs 14, took 14``."""
    opp = record.extra.get("opponent")
    if not isinstance(opp, Mapping) or opp.get("total") is None:
        return ""
    how = ", cannot act" if opp.get("cannot_act") else (", took 14" if opp.get("took_14") else "")
    return f"vs {opp['total']}" + how


# --------------------------------------------------------------------------- texts


def text_table(tables: TableSet = DEFAULT_TABLES) -> DescriptorTable:
    """The combat / healing texts in force (a session may override role ``1d6x4-combat``)."""
    t = tables.overrides.get(TEXT_ROLE) if tables is not None else None
    if t is None:
        t = load_builtin(TEXT_ROLE)
    if not isinstance(t, DescriptorTable) or len(t.columns) < 2:
        raise TableError(f"table {getattr(t, 'name', TEXT_ROLE)!r} for {TEXT_ROLE!r} must have columns key, text")
    return t


def text_for(key: str, tables: TableSet = DEFAULT_TABLES, **fmt: Any) -> tuple[int, str, str]:
    """``(row, text, table name)`` of a key (hit, graze, miss, stalemate, heal,
    unconscious, dead), with ``{amount}`` filled in."""
    t = text_table(tables)
    for row in sorted(t.rows, reverse=True):
        k, text = t.rows[row][0], t.rows[row][1]
        if k == key:
            try:
                return row, text.format(**fmt), t.name
            except (KeyError, IndexError, ValueError):
                raise TableError(f"table {t.name!r}: text {text!r} for {key!r} is not a valid format") from None
    raise TableError(f"table {t.name!r} has no {key!r} row")


def status_text(status: str, tables: TableSet = DEFAULT_TABLES) -> str:
    """ "Unconscious" / "Dead" from the table ("" for "ok")."""
    if status == "ok":
        return ""
    return text_for(status, tables)[1]


# --------------------------------------------------------------------------- rolls


def _die(rng: RandomSource, sides: int = 6) -> Die:
    return Die(roll_die(rng, sides), "die", sides)


def roll_damage(formula: str, rng: RandomSource) -> tuple[tuple[Die, ...], int]:
    """The Vitality Adjustment dice and amount (never below 0)."""
    count, sides, mod = parse_damage(formula)
    dice = tuple(_die(rng, sides) for _ in range(count))
    return dice, max(0, sum(d.value for d in dice) + mod)


def _hurt(
    applies_to: str, formula: str, rng: RandomSource, tables: TableSet
) -> tuple[tuple[Die, ...], int, Descriptor]:
    dice, amount = roll_damage(formula, rng)
    key = "hit" if amount > 0 else "graze"
    _, text, table = text_for(key, tables, amount=amount)
    return dice, amount, Descriptor(text=text, applies_to=applies_to, table=table, amount=amount, wound=amount > 0)


def _no_hurt(key: str, tables: TableSet) -> Descriptor:
    _, text, table = text_for(key, tables, amount=0)
    return Descriptor(text=text, applies_to="target", table=table, amount=0, wound=False)


def roll(params: Params, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """One Test (or two-way Test, or attack): every die in order, role ``die``."""
    dice: list[Die] = []
    extra: dict[str, Any] = {}
    total: int | None = None
    if not params.auto_fail:
        d = _die(rng)
        dice.append(d)
        total = MULTIPLIER * d.value + params.bonus
    extra["total"] = total
    if params.target is not None:
        extra["target"] = params.target
    if params.auto_fail:
        extra["auto_fail"] = params.auto_fail

    prevails: str | None = None
    tie = False
    if params.two_way:
        assert params.vs_bonus is not None
        opp: dict[str, Any] = {"dice": [], "total": None, "took_14": False}
        if params.auto_fail:
            prevails = DEFENDER  # nothing is attempted: the status quo holds
            if params.defender_takes_14:
                opp.update(total=TAKES + params.vs_bonus, took_14=True)
        elif params.vs_auto_fail:
            prevails = ATTACKER
            opp["auto_fail"] = params.vs_auto_fail
        else:
            if params.defenseless:
                # who cannot act cannot defend: no die, the lowest total a Test could give
                opp_total = MULTIPLIER * 1 + params.vs_bonus
                opp.update(total=opp_total, cannot_act=True)
            elif params.defender_takes_14:
                opp_total = TAKES + params.vs_bonus
                opp.update(total=opp_total, took_14=True)
            else:
                od = _die(rng)
                dice.append(od)
                opp_total = MULTIPLIER * od.value + params.vs_bonus
                opp.update(dice=[od.to_json()], total=opp_total)
            assert total is not None
            tie = total == opp_total
            prevails = ATTACKER if total > opp_total else DEFENDER
        extra["opponent"] = opp
        extra["prevails"] = prevails
        extra["success"] = prevails == ATTACKER
        if tie:
            extra["tie"] = True
    elif params.target is not None or params.auto_fail:
        extra["success"] = bool(total is not None and params.target is not None and total >= params.target)

    # outcome
    if params.auto_fail:
        outcome = AUTO_FAIL_PREFIX + params.auto_fail
    elif params.two_way:
        if params.combat and params.mutual and tie:
            outcome = OUTCOME_TIE
        else:
            outcome = OUTCOME_ATTACKER if prevails == ATTACKER else OUTCOME_DEFENDER
    elif params.target is not None:
        outcome = OUTCOME_SUCCESS if extra["success"] else OUTCOME_FAILURE
    else:
        outcome = f"Total {total}"

    descriptors: list[Descriptor] = []
    if params.combat:
        hit = bool(extra.get("success"))
        # in a mutual melee whoever prevails hurts the loser, also over a side that fails
        # automatically; both failing automatically is a stalemate (nobody attempted anything)
        both_fail = bool(params.auto_fail and params.vs_auto_fail)
        if hit:
            ddice, amount, desc = _hurt("target", params.damage, rng, tables)
        elif (
            params.mutual and params.two_way and prevails == DEFENDER and not tie and not both_fail
        ) and not params.defenseless:  # one who cannot act hurts nobody
            ddice, amount, desc = _hurt("attacker", params.damage, rng, tables)
        else:
            ddice, amount = (), None
            desc = _no_hurt("stalemate" if (params.mutual and (tie or both_fail)) else "miss", tables)
        dice.extend(ddice)
        if amount is not None:
            extra["damage"] = amount
            extra["damage_dice"] = [d.to_json() for d in ddice]
        descriptors.append(desc)

    return RollRecord(
        system=ID,
        params=params_to_json(params),
        dice=tuple(dice),
        value=total if total is not None else 0,
        outcome=outcome,
        extra=extra,
        descriptors=tuple(descriptors),
    )


def initiative(rng: RandomSource, modifier: int = 0, auto_fail: str | None = None) -> RollRecord:
    """A Reflex Test: 4 × d6 + Reflex (``modifier``); ``value`` is the initiative.
    ``auto_fail``: why the Test fails automatically (:func:`initiative_fails`): no die
    is rolled and the session seats the character after everyone who rolled."""
    bonus = parse_int("--modifier", modifier, *BONUS_RANGE)
    return roll(Params(bonus=bonus, test="Reflex", auto_fail=auto_fail), rng)


# --------------------------------------------------------------------------- odds


def _test_dist(bonus: int) -> odds_mod.Dist:
    return odds_mod.shift(odds_mod.remap(odds_mod.die(6), lambda x: MULTIPLIER * x), bonus)


def odds(params: Params, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """Exact odds of the total (bonus + 4, + 8, … + 24, each 1/6) and of the outcomes:
    Success / Failure against a target; Attacker / Defender prevails in a two-way Test
    (and "Tie: nobody hurt" in a mutual melee)."""
    pj = params_to_json(params)
    if params.auto_fail:
        label = AUTO_FAIL_PREFIX + params.auto_fail
        return Odds.from_dist(ID, pj, {0: Fraction(1)}, [(label, Fraction(1))])
    dist = _test_dist(params.bonus)
    outcomes: list[tuple[str, Fraction]] = []
    if params.two_way:
        assert params.vs_bonus is not None
        if params.vs_auto_fail:
            outcomes = [(OUTCOME_ATTACKER, Fraction(1)), (OUTCOME_DEFENDER, Fraction(0))]
        else:
            if params.defenseless:
                opp = {MULTIPLIER + params.vs_bonus: Fraction(1)}
            elif params.defender_takes_14:
                opp = {TAKES + params.vs_bonus: Fraction(1)}
            else:
                opp = _test_dist(params.vs_bonus)
            diff = odds_mod.sub(dist, opp)
            win = odds_mod.prob(diff, lambda x: x > 0)
            tie = odds_mod.prob(diff, lambda x: x == 0)
            if params.combat and params.mutual:
                outcomes = [(OUTCOME_ATTACKER, win), (OUTCOME_DEFENDER, 1 - win - tie), (OUTCOME_TIE, tie)]
            else:
                outcomes = [(OUTCOME_ATTACKER, win), (OUTCOME_DEFENDER, 1 - win)]
    elif params.target is not None:
        t = params.target
        outcomes = odds_mod.outcomes_by(
            dist, lambda x: OUTCOME_SUCCESS if x >= t else OUTCOME_FAILURE, (OUTCOME_SUCCESS, OUTCOME_FAILURE)
        )
    return Odds.from_dist(ID, pj, dist, outcomes)


# --------------------------------------------------------------------------- sheets and Vitality


def order_by_total(entries: Iterable[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """Several characters racing (a Test each): placements, highest total first; equal
    totals keep the order given (the GM may reorder them)."""
    return sorted(entries, key=lambda e: -e[1])


def vitality_after(current: int, amount: int, already_unconscious: bool = False) -> tuple[int, str]:
    """Vitality after an injury of ``amount``: ``(new_current, status)``, status ``ok``,
    ``unconscious`` (at −5 or lower) or ``dead`` (any further injury — amount > 0 —
    to a character already Unconscious, or already at −5 or lower)."""
    current = parse_int("vitality", current)
    amount = parse_int("amount", amount, 0)
    rule = HARM.vitality  # the rule the session applies (core.systems.harm)
    new, kills = rule.after(current, amount, already_unconscious)
    if kills:
        return new, "dead"
    if already_unconscious or rule.out(current) or rule.out(new):
        return new, "unconscious"
    return new, "ok"


def heal(rng: RandomSource, current: int, default: int, tables: TableSet = DEFAULT_TABLES) -> tuple[RollRecord, int]:
    """Healing Ability: a d6 Vitality Adjustment back to ``current``, never above
    ``default`` (a Vitality already at or above its Default stays as it is). Returns the
    record (value: the die; ``restored``: what was actually gained) and the new
    current. The healer's use is spent by the session (``Sheet.spend_use``)."""
    current = parse_int("vitality", current)
    default = parse_int("vitality default", default)
    d = _die(rng)
    new = max(current, min(default, current + d.value))
    restored = new - current
    _, text, table = text_for("heal", tables, amount=restored)
    desc = Descriptor(text=text, applies_to="target", table=table, amount=restored, wound=False)
    extra = {
        "heal": True,
        "vitality_before": current,
        "vitality_after": new,
        "vitality_default": default,
        "restored": restored,
        "capped": restored < d.value,
    }
    record = RollRecord(system=ID, params={}, dice=(d,), value=d.value, outcome=text, extra=extra, descriptors=(desc,))
    return record, new


__all__ = [
    "ID",
    "NAME",
    "Params",
    "damage_distribution",
    "heal",
    "initiative",
    "odds",
    "order_by_total",
    "params_from_json",
    "params_to_json",
    "parse_damage",
    "roll",
    "roll_damage",
    "split_names",
    "status_text",
    "test_bonus",
    "text_for",
    "vitality_after",
    "TestReading",
    "read_test",
    "find_test_row",
    "fill_from_sheets",
    "read_filled",
    "read_form",
    "read_sheets",
    "roll_uses",
    "test_uses",
    "lacks_when_missing",
    "CHARACTER_FIELDS",
    "INITIATIVE_FAILS",
    "initiative_fails",
    "initiative_modifier",
    "rest",
]


# ---- character fields: the Tests an attack, a defense and initiative name
# (core/systems/one_d6_x4_sheet.py, with initiative_modifier and INITIATIVE_FAILS)


# ---- moves

MOVES = (
    _moves.opposed("Two-way Test", "both sides roll; the defender may take 14", {"vs_bonus": "0"}),
    Move(
        "heal",
        "Healing",
        "Healing Ability: d6 back, never above the default",
        key="h",
        verb="heal d6 (never above the default)",
        form=_moves.heal_form,
        run=_moves.heal_run_with(heal),
        said=_moves.heal_said,
    ),
    Move(
        "new_day",
        "New day",
        "every current value back to its default",
        confirm="Start a new day? Every current value (uses too) returns to its default; "
        "the Dead stay dead. (u undoes it)",
        verb="New day",
        run=_moves.new_day_run,
        said=lambda state, event: "A new day: every current value is back to its default",
    ),
)
