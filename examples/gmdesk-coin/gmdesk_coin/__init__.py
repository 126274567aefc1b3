"""Coin flips (``coin``): a dice system for gmdesk, written as a plug-in.

* **Roll**: flip ``coins`` coins (1 to 20, default 3). The roll's value is the
  number of heads; it is a **Success** when heads ≥ ``need`` (default 2), else a
  **Failure**. Each coin is on the record as a two-sided die: 2 is heads, 1 tails.
* **Combat**: a successful attack gives the target the descriptor of the one row of
  the system's own table, role ``coin-bruise`` (``coin-bruise.json`` in this
  package: "Bruise"); a failed one does nothing.
* **Initiative**: heads of 3 coins + the modifier.
* **Characters**: *Luck* is how many coins the character flips (it fills ``coins``
  when the character rolls); *Guard* is how many heads an attacker needs against the
  character (it fills ``need`` when the character is attacked).
* **Moves**: *Long shot*, the roll dialog with five coins and four heads needed
  (in the command palette).

gmdesk reads the declaration below (``gmdesk.core.systems.spec``) and generates the
rest: the ``gmdesk roll coin`` / ``gmdesk odds coin`` options, the parameter checks
and JSON, the roll dialog's form, the character fields, the breakdown's labels. The
package registers this module under the entry-point group ``gmdesk.systems``
(``coin = "gmdesk_coin"``, see its ``pyproject.toml``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from gmdesk.core.dice import Descriptor, Die, RandomSource, RollRecord, roll_die
from gmdesk.core.odds import Odds
from gmdesk.core.systems.base import dataclass_to_json, parse_int
from gmdesk.core.systems.spec import CharField, Move, Param
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

ID = "coin"
NAME = "Coin flips"

#: the roll parameters: gmdesk generates ``--coins`` / ``--need``, the roll dialog's
#: "Coins" and "Heads needed" fields and a validating Params class from them
PARAMS = (
    Param("coins", "Coins", "int", 3, "how many coins to flip", lo=1, hi=20, metavar="N"),
    Param("need", "Heads needed", "int", 2, "heads needed for a success", lo=1, hi=20, metavar="N"),
)

#: what the breakdown shows of the record's own fields, in order
EXTRA_LABELS = (("faces", "Coins"), ("heads", "Heads"), ("need", "Needed"))

#: what a character carries for this system: each field fills a roll parameter
CHARACTER_FIELDS = (
    CharField("luck", "Luck", "int", feeds="coins", from_="roller", help="coins the character flips", lo=1, hi=20),
    CharField(
        "guard",
        "Guard",
        "int",
        feeds="need",
        from_="target",
        help="heads an attacker needs against the character",
        lo=1,
        hi=20,
        combat_only=True,
    ),
)

#: named actions besides a plain roll: the desk lists them in its command palette
MOVES = (
    Move(
        "coin_long_shot",
        "Long shot",
        "the roll dialog with five coins, four heads needed",
        kind="preset",
        preset={"coins": 5, "need": 4},
    ),
)

#: the built-in parts of a character this system uses: a Bruise is a wound
CHARACTER_SECTIONS = frozenset({"conditions", "wounds"})

#: the system's own table: its role is also its file's name in this package
BRUISE_ROLE = "coin-bruise"
TABLE_ROLES = (BRUISE_ROLE,)
#: the role in the GM's words, where the desk offers it ("Use a table file…")
TABLE_LABELS = ((BRUISE_ROLE, "Bruise table"),)

HEADS, TAILS = 2, 1
INITIATIVE_COINS = 3


# --------------------------------------------------------------------------- rolls


def flip(rng: RandomSource, n: int) -> tuple[Die, ...]:
    """``n`` coins in the order flipped, each a two-sided die (2 heads, 1 tails)."""
    return tuple(Die(roll_die(rng, 2), "die", 2) for _ in range(n))


def heads_of(dice: tuple[Die, ...]) -> int:
    return sum(1 for d in dice if d.value == HEADS)


def faces_of(dice: tuple[Die, ...]) -> str:
    return " ".join("H" if d.value == HEADS else "T" for d in dice)


def bruise(tables: TableSet = DEFAULT_TABLES) -> Descriptor:
    """The descriptor a successful attack gives the target: the table's one row (a
    session may put its own table in the role)."""
    table = tables.descriptor_table(BRUISE_ROLE, package=__name__)
    row = min(table.rows)
    return Descriptor(
        text=table.lookup(row),
        applies_to="target",
        row=row,
        table=table.name,
        column=table.columns[0],
    )


def roll(params: Any, rng: RandomSource, tables: TableSet = DEFAULT_TABLES) -> RollRecord:
    """Flip the coins, count the heads; a successful attack bruises the target."""
    dice = flip(rng, params.coins)
    heads = heads_of(dice)
    success = heads >= params.need
    return RollRecord(
        system=ID,
        params=dataclass_to_json(params),
        dice=dice,
        value=heads,
        outcome="Success" if success else "Failure",
        extra={"heads": heads, "faces": faces_of(dice), "need": params.need, "success": success},
        descriptors=(bruise(tables),) if params.combat and success else (),
    )


def initiative(rng: RandomSource, modifier: int = 0) -> RollRecord:
    """Initiative: heads of 3 coins + the modifier."""
    modifier = parse_int("--modifier", modifier)
    dice = flip(rng, INITIATIVE_COINS)
    heads = heads_of(dice)
    return RollRecord(
        system=ID,
        params={"modifier": modifier},
        dice=dice,
        value=heads + modifier,
        outcome=f"Initiative {heads + modifier}",
        extra={"heads": heads, "faces": faces_of(dice), "modifier": modifier},
    )


# --------------------------------------------------------------------------- odds


def heads_distribution(n: int) -> dict[int, Fraction]:
    """Exact chance of each number of heads among ``n`` fair coins: C(n, k) / 2ⁿ."""
    return {k: Fraction(math.comb(n, k), 2**n) for k in range(n + 1)}


def odds(params: Any, tables: TableSet = DEFAULT_TABLES) -> Odds:
    """The exact distribution of heads, and the chance of a Success and a Failure."""
    dist = heads_distribution(params.coins)
    success = sum((p for k, p in dist.items() if k >= params.need), Fraction(0))
    return Odds.from_dist(ID, dataclass_to_json(params), dist, [("Success", success), ("Failure", 1 - success)])
