"""OneDeeSixTimesFour (``1d6x4``): the system's declaration, as gmdesk reads it — its
id, name, parameters, character fields, harm, moves and hooks, made in its parts:

* :mod:`.params` — what a roll is given (``Params``, ``PARAMS``);
* :mod:`.test` — the Test, two-way Test, attack and initiative rolled, and their exact odds;
* :mod:`.combat` — whom an attack hurts and the descriptor it leaves;
* :mod:`.damage` — the dice and damage formulas;
* :mod:`.vitality` — what an injury leaves (``HARM``) and what healing gives back;
* :mod:`.texts` — the combat and healing texts, as table data;
* :mod:`.sheet` — how a Test reads a descriptor sheet (one reading: ``read_sides``);
* :mod:`.character` — a character's fields, initiative and rest.

The rules, in short: Tests of 4 × d6 + descriptors against a secret number.

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
  The session applies both (and keeps the Dead dead through a new day); the system
  only computes.
* The target number is the GM's secret (declared ``secret``): players never see it.
* Initiative is a Reflex Test: 4 × d6 + Reflex. A Reflex at −5 or lower fails
  automatically (no die; :func:`initiative_fails`) and the session seats that
  character after everyone who rolled.
"""

from __future__ import annotations

from collections.abc import Mapping

from gmdesk.core.dice import RollRecord
from gmdesk.core.systems import builtin_moves as _moves
from gmdesk.core.systems.one_d6_x4.character import (
    CHARACTER_FIELDS,
    INITIATIVE_FAILS,
    initiative_fails,
    initiative_modifier,
    rest,
)
from gmdesk.core.systems.one_d6_x4.damage import damage_distribution, format_damage, parse_damage, roll_damage
from gmdesk.core.systems.one_d6_x4.params import (
    ATTACKER,
    BONUS_RANGE,
    DEFENDER,
    DEFENSELESS,
    ID,
    PARAMS,
    Params,
    params_from_json,
    params_to_json,
)
from gmdesk.core.systems.one_d6_x4.sheet import (
    TestReading,
    fill_from_sheets,
    find_test_row,
    lacks_when_missing,
    read_filled,
    read_form,
    read_sheets,
    read_sides,
    read_test,
    roll_uses,
    split_names,
    test_bonus,
    test_uses,
)
from gmdesk.core.systems.one_d6_x4.test import (
    AUTO_FAIL_PREFIX,
    MULTIPLIER,
    OUTCOME_ATTACKER,
    OUTCOME_DEFENDER,
    OUTCOME_FAILURE,
    OUTCOME_SUCCESS,
    OUTCOME_TIE,
    TAKES,
    VALUE_LABEL,
    curve,
    initiative,
    odds,
    order_by_total,
    roll,
)
from gmdesk.core.systems.one_d6_x4.texts import TEXT_ROLE, status_text, text_for, text_table
from gmdesk.core.systems.one_d6_x4.vitality import HARM, UNCONSCIOUS_AT, heal, vitality_after
from gmdesk.core.systems.spec import Move

#: the table its rolls read, which a session may replace with the GM's own
TABLE_ROLES = (TEXT_ROLE,)
TABLE_LABELS = ((TEXT_ROLE, "Combat and healing texts"),)

NAME = "OneDeeSixTimesFour"
#: what a character of this system uses: Vitality, the descriptor sheet and its uses, conditions, wounds
#: (the sections are listed in core.systems.spec.SECTIONS)
CHARACTER_SECTIONS = frozenset({"vitality", "sheet", "conditions", "wounds"})

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


__all__ = [
    "ATTACKER",
    "AUTO_FAIL_PREFIX",
    "BONUS_RANGE",
    "BREAKDOWN_PARAMS",
    "CHARACTER_FIELDS",
    "CHARACTER_SECTIONS",
    "DEFENDER",
    "DEFENSELESS",
    "EXTRA_LABELS",
    "HARM",
    "TABLE_ROLES",
    "TABLE_LABELS",
    "ID",
    "INITIATIVE_FAILS",
    "MOVES",
    "MULTIPLIER",
    "NAME",
    "OUTCOME_ATTACKER",
    "OUTCOME_DEFENDER",
    "OUTCOME_FAILURE",
    "OUTCOME_SUCCESS",
    "OUTCOME_TIE",
    "PARAMS",
    "TAKES",
    "TEXT_ROLE",
    "UNCONSCIOUS_AT",
    "Params",
    "TestReading",
    "damage_distribution",
    "dice_labels",
    "fill_from_sheets",
    "find_test_row",
    "format_damage",
    "heal",
    "initiative",
    "initiative_fails",
    "initiative_modifier",
    "lacks_when_missing",
    "odds",
    "curve",
    "VALUE_LABEL",
    "opponent_brief",
    "order_by_total",
    "params_from_json",
    "params_to_json",
    "parse_damage",
    "read_filled",
    "read_form",
    "read_sheets",
    "read_sides",
    "read_test",
    "rest",
    "roll",
    "roll_damage",
    "roll_uses",
    "split_names",
    "status_text",
    "test_bonus",
    "test_uses",
    "text_for",
    "text_table",
    "vitality_after",
]
