"""Core 4d6 vs DC (``4d6``): the system's declaration, as gmdesk reads it — its id,
name, parameters, character fields, harm (clocks, wounds), moves and hooks, made in
its parts:

* :mod:`.params` — what a roll is given (``Params``, ``PARAMS``);
* :mod:`.rolls` — the dice rolled and kept, the record, initiative and the exact odds;
* :mod:`.rules` — how a result reads: advantage netted, tiers, contests, clock progress;
* :mod:`.tables` — the system's data: the DC ladder, the bands, the effect ladder;
* :mod:`.character` — a character's fields, the sources its rolls read, its rest.

The rules, in short: roll 4d6 + bonus against a DC and read the margin.

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

from gmdesk.core.dice import RollRecord
from gmdesk.core.systems import builtin_moves as _moves
from gmdesk.core.systems.core_4d6.character import (
    CHARACTER_FIELDS,
    ROLL_SOURCES,
    rest,
    sources_params,
)
from gmdesk.core.systems.core_4d6.params import (
    DEFENSELESS,
    ID,
    PARAMS,
    Params,
    params_from_json,
    params_to_json,
)
from gmdesk.core.systems.core_4d6.rolls import (
    VALUE_LABEL,
    combat_descriptors,
    combat_rows,
    curve,
    initiative,
    kept_distribution,
    odds,
    roll,
    roll_dice,
    total_distribution,
)
from gmdesk.core.systems.core_4d6.rules import (
    clock_progress,
    contest_outcome,
    contest_result,
    dc_name,
    kept_indices,
    net_advantage,
    parse_sources,
    success_of,
    tier_for,
)
from gmdesk.core.systems.core_4d6.tables import (
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

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

NAME = "Core 4d6 vs DC"
#: what a character of this system uses: advantage sources (advantage / disadvantage), conditions, wounds
#: (the sections are listed in core.systems.spec.SECTIONS)
CHARACTER_SECTIONS = frozenset({"advantage", "conditions", "wounds"})
CLOCKS = True
#: what its rolls do: the progress a roll earned by its effect (the record's ``clock``,
#: half segments) goes to the clock the GM picks; the wound-status table's descriptors
#: knock out or kill
HARM = Harm(status_table=WOUND_STATUS, clocks=Clocks("clock"), vitality=DESK_VITALITY)
#: the tables its rolls read, each of which a session may replace with the GM's own
TABLE_ROLES = ("4d6-combat-rows", "combat")
TABLE_LABELS = (("4d6-combat-rows", "Combat results (margin to row)"), ("combat", "Combat table"))

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


#: with its clocks' "Add clock" (K) and "Tick clock" (k), which its HARM brings
MOVES = (_moves.opposed("Contest", "both roll; the higher total wins", {"vs_bonus": "0"}),)

__all__ = [
    "ADVANTAGE_LEVELS",
    "ADV_CAP",
    "ALL_ONES_BOTH",
    "ALL_ONES_DEGREE",
    "ALL_ONES_LOSS",
    "ALL_ONES_TIER",
    "ALL_ONES_WIN",
    "CHARACTER_FIELDS",
    "CHARACTER_SECTIONS",
    "CLOCKS",
    "CONTEST_BANDS",
    "CONTEST_OUTCOMES",
    "CONTEST_TIERS",
    "DC_LADDER",
    "DEFAULT_DC",
    "DEFENSELESS",
    "EFFECTS",
    "EFFECT_LADDER",
    "EXTRA_LABELS",
    "HARM",
    "TABLE_ROLES",
    "TABLE_LABELS",
    "ID",
    "KEEP",
    "MOVES",
    "NAME",
    "PARAMS",
    "POSITIONS",
    "Params",
    "ROLL_SOURCES",
    "SIGNED_EXTRAS",
    "TIERS",
    "TIER_BANDS",
    "TIER_EFFECT_STEP",
    "TIER_RANK",
    "TIE_LABEL",
    "chronicle",
    "clock_progress",
    "combat_descriptors",
    "combat_rows",
    "contest_outcome",
    "contest_result",
    "dc_name",
    "initiative",
    "kept_distribution",
    "kept_indices",
    "net_advantage",
    "odds",
    "curve",
    "VALUE_LABEL",
    "params_from_json",
    "params_to_json",
    "parse_sources",
    "read_form",
    "rest",
    "roll",
    "roll_dice",
    "sources_params",
    "success_of",
    "tier_for",
    "total_distribution",
]
