"""Bar-room brawls (``brawl``): a dice system for gmdesk whose attacks hurt.

* **Roll**: 2d6 + ``skill`` against ``guard`` (default 7). The margin is the total
  minus the guard: 3 or more is a **Strong hit**, 0 to 2 a **Hit**, below 0 a
  **Miss**.
* **Combat**: a Hit gives the target a *Punch* that takes ``damage`` (default 2)
  off its Vitality; a Strong hit a *Haymaker* that takes twice that.
* **Down and out**, this system's own rule: below 0 Vitality a character is Down
  (Unconscious) and acts again once back at 0 or above; an injury that takes it to
  −5 or below kills it.
* **Clocks**: a Strong hit earns one segment, a Hit half of one, for the clock the
  GM picks in the roll dialog (a race to the door, the bouncer's patience); the
  desk's *Add clock* (``K``) and *Tick clock* (``k``) come with ``CLOCKS``.
* **Initiative**: 1d6 + the modifier.
* **Characters**: *Skill* fills ``skill`` when the character rolls; *Guard* fills
  ``guard`` when it is attacked; *Fists* its ``damage``. Vitality is gmdesk's own.
* **Moves**: *Shove through*, the roll dialog against a guard of 9 (palette);
  *Patch up*, a d3 of Vitality back onto a hurt character, never above its usual
  Vitality (the Dead stay dead), logged as a roll like 1d6x4's Healing Ability.

All of it is declared below (``gmdesk.core.systems.spec`` and
``gmdesk.core.systems.harm``); gmdesk does the rest.
"""

from __future__ import annotations

from typing import Any

from gmdesk.core.curve import Curve, curve_of
from gmdesk.core.dice import Descriptor, Die, RandomSource, RollRecord, roll_die
from gmdesk.core.odds import Odds, die, outcomes_by, repeat, shift
from gmdesk.core.systems import builtin_moves
from gmdesk.core.systems.base import dataclass_to_json, parse_int
from gmdesk.core.systems.harm import Clocks, Harm, Vitality
from gmdesk.core.systems.spec import CharField, Move, Param
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

ID = "brawl"
NAME = "Bar-room brawl"

PARAMS = (
    Param("skill", "Skill", "int", 0, "added to the 2d6", lo=-5, hi=10, metavar="N"),
    Param("guard", "Guard", "int", 7, "the total to reach (the defender's guard)", lo=2, hi=22, metavar="N"),
    Param("damage", "Damage", "int", 2, "Vitality a Hit takes (a Strong hit twice that)", lo=1, hi=10, metavar="N"),
)

EXTRA_LABELS = (("total", "Total"), ("margin", "Margin"), ("clock", "Clock progress (½ segments)"))
SIGNED_EXTRAS = frozenset({"margin"})

CHARACTER_FIELDS = (
    CharField("skill", "Skill", "int", feeds="skill", help="added to the character's 2d6", lo=-5, hi=10),
    CharField(
        "guard",
        "Guard",
        "int",
        feeds="guard",
        from_="target",
        help="what an attacker must reach",
        lo=2,
        hi=22,
        combat_only=True,
    ),
    CharField("fists", "Fists", "int", feeds="damage", help="Vitality the character's Hit takes", lo=1, hi=10),
)

#: the parts of a character this system uses: Vitality is what its attacks hurt
CHARACTER_SECTIONS = frozenset({"vitality", "conditions", "wounds"})


def patch_up(rng: RandomSource, current: int, default: int) -> tuple[RollRecord, int]:
    """*Patch up*: a d3 of Vitality back, never above the usual (``default``); a
    Vitality already above it is left alone. The roll's record and the new Vitality."""
    d = Die(roll_die(rng, 3), "die", 3)
    new = max(current, min(default, current + d.value))
    return RollRecord(ID, {}, (d,), d.value, f"Patched up +{d.value} Vitality"), new


MOVES = (
    Move(
        "brawl_shove",
        "Shove through",
        "the roll dialog against a guard of 9 (a crowd, a doorway)",
        kind="preset",
        preset={"guard": 9},
    ),
    # gmdesk's own heal move with this system's rule; a brawl needs no descriptor
    # sheet and spends no use (use=None)
    Move(
        "brawl_patch",
        "Patch up",
        "a d3 of Vitality back onto a hurt character (never above its usual)",
        form=builtin_moves.heal_form,
        run=builtin_moves.heal_run_with(patch_up, use=None),
        said=builtin_moves.heal_said,
        verb="patch up d3",
    ),
)

#: its rolls move the session's clocks (the roll dialog asks which)
CLOCKS = True

#: what its rolls do to characters: a descriptor's amount comes off Vitality; Down at
#: −1 or below, dead when an injury reaches −5; the progress is the record's ``clock``
HARM = Harm(
    vitality=Vitality(hurt_by_amount=True, unconscious_at=-1, dead_at=-5),
    clocks=Clocks("clock"),
)

STRONG_HIT, HIT, MISS = "Strong hit", "Hit", "Miss"
STRONG_AT = 3
#: clock progress in half segments by outcome
PROGRESS = {STRONG_HIT: 2, HIT: 1, MISS: 0}


def outcome_of(margin: int) -> str:
    return STRONG_HIT if margin >= STRONG_AT else HIT if margin >= 0 else MISS


def blow(outcome: str, damage: int) -> Descriptor | None:
    """What an attack does to its target: a Punch or a Haymaker with the Vitality it takes."""
    if outcome == MISS:
        return None
    amount = damage * 2 if outcome == STRONG_HIT else damage
    text = "Haymaker" if outcome == STRONG_HIT else "Punch"
    return Descriptor(text=text, applies_to="target", amount=amount)


def roll(params: Any, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """2d6 + skill against the guard; an attack that hits hurts the target."""
    dice = tuple(Die(roll_die(rng, 6), "die", 6) for _ in range(2))
    total = sum(d.value for d in dice) + params.skill
    margin = total - params.guard
    outcome = outcome_of(margin)
    hurt = blow(outcome, params.damage) if params.combat else None
    return RollRecord(
        system=ID,
        params=dataclass_to_json(params),
        dice=dice,
        value=total,
        outcome=outcome,
        extra={"total": total, "margin": margin, "clock": PROGRESS[outcome]},
        descriptors=(hurt,) if hurt is not None else (),
    )


def initiative(rng: RandomSource, modifier: int = 0) -> RollRecord:
    """Initiative: 1d6 + the modifier."""
    modifier = parse_int("--modifier", modifier)
    d = Die(roll_die(rng, 6), "die", 6)
    return RollRecord(ID, {"modifier": modifier}, (d,), d.value + modifier, f"Initiative {d.value + modifier}")


#: what the roll's value is called on its curve (``gmdesk odds brawl --plot``)
VALUE_LABEL = "Total"


def curve(params: Any, tables: TableSet = DEFAULT_TABLES) -> Curve:
    """The curve of the total, the total that hits (the guard) marked."""
    dist = shift(repeat(die(6), 2), params.skill)
    return curve_of(VALUE_LABEL, dist, success=params.guard, success_label="Hit")


def odds(params: Any, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """The exact distribution of the total, and the chance of each outcome (named as
    the roll names them)."""
    dist = shift(repeat(die(6), 2), params.skill)
    chances = outcomes_by(dist, lambda total: outcome_of(total - params.guard), PROGRESS)
    return Odds.from_dist(ID, dataclass_to_json(params), dist, chances)
