"""The Core 4d6 vs DC system's data: the DC ladder, the margin tiers, the contest
degrees and the effect ladder (the rules that read them are in
:mod:`core.systems.core_4d6.rules`)."""

from __future__ import annotations

from gmdesk.core.tables import BandTable, parse_table

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

#: The DC ladder, easiest first.
DC_LADDER: tuple[tuple[int, str], ...] = (
    (12, "Simple"),
    (14, "Routine"),
    (16, "Standard"),
    (18, "Difficult"),
    (20, "Very Difficult"),
    (22, "Exceptional"),
)
DEFAULT_DC = 16

#: Tier names, best first (the order odds() lists them).
TIERS = ("Critical Success", "Full Success", "Partial Success", "Failure", "Critical Failure")
#: Tier rank, the key of the 4d6-combat-rows table: 2 Critical Success … −2 Critical Failure.
TIER_RANK = {name: 2 - i for i, name in enumerate(TIERS)}
#: The tier an all-1s roll gets, whatever its margin.
ALL_ONES_TIER = "Critical Failure"


def _band_table(data: dict[str, Any], source: str) -> BandTable:
    table = parse_table(data, source)
    assert isinstance(table, BandTable)
    return table


#: Margin -> tier.
TIER_BANDS: BandTable = _band_table(
    {
        "name": "4d6-tiers",
        "kind": "bands",
        "title": "4d6 margin tiers",
        "bands": [
            {"lo": 5, "hi": None, "value": "Critical Success"},
            {"lo": 0, "hi": 4, "value": "Full Success"},
            {"lo": -2, "hi": -1, "value": "Partial Success"},
            {"lo": -6, "hi": -3, "value": "Failure"},
            {"lo": None, "hi": -7, "value": "Critical Failure"},
        ],
    },
    "4d6 tiers",
)

#: |total difference| -> degree of a contest.
CONTEST_BANDS: BandTable = _band_table(
    {
        "name": "4d6-contest",
        "kind": "bands",
        "title": "4d6 contest degrees",
        "bands": [
            {"lo": 0, "hi": 0, "value": "Tie"},
            {"lo": 1, "hi": 3, "value": "Narrow"},
            {"lo": 4, "hi": 6, "value": "Clear"},
            {"lo": 7, "hi": None, "value": "Decisive"},
        ],
    },
    "4d6 contest",
)
TIE_LABEL = "Tie — Partial for both"
#: Contest results decided by kept dice all showing 1 (whatever the totals).
#: the roller behind (or level) wins only because the opponent's kept dice are all
#: 1s: a Narrow victory (RULES.md); ahead, it wins by its own margin (a plain label)
ALL_ONES_WIN = "Narrow victory — opponent's Critical Failure (all 1s)"
ALL_ONES_LOSS = "Critical Failure (all 1s)"
ALL_ONES_BOTH = "Critical Failure for both (all 1s)"
ALL_ONES_DEGREE = "All 1s"
#: Contest outcome labels, best first for the roller.
CONTEST_OUTCOMES = (
    ALL_ONES_WIN,
    "Decisive victory",
    "Clear victory",
    "Narrow victory",
    TIE_LABEL,
    "Narrow defeat",
    "Clear defeat",
    "Decisive defeat",
    ALL_ONES_LOSS,
    ALL_ONES_BOTH,
)
#: The roller's contest result read as a tier (clocks, success, combat).
CONTEST_TIERS = {
    "Decisive victory": "Critical Success",
    "Clear victory": "Full Success",
    "Narrow victory": "Full Success",
    TIE_LABEL: "Partial Success",
    "Narrow defeat": "Failure",
    "Clear defeat": "Failure",
    "Decisive defeat": "Critical Failure",
    ALL_ONES_WIN: "Full Success",
    ALL_ONES_LOSS: "Critical Failure",
    ALL_ONES_BOTH: "Critical Failure",
}

POSITIONS = ("high", "standard", "low")
EFFECTS = ("great", "standard", "limited")
#: Effect levels, lowest first, with clock progress in half segments.
EFFECT_LADDER: tuple[tuple[str, int], ...] = (
    ("none", 0),
    ("limited", 1),
    ("standard", 2),
    ("great", 4),
)
#: How a tier moves the effect level (None: no progress at all).
TIER_EFFECT_STEP: dict[str, int | None] = {
    "Critical Success": +1,
    "Full Success": 0,
    "Partial Success": -1,
    "Failure": None,
    "Critical Failure": None,
}

ADVANTAGE_LEVELS = (1, 2, -1, -2)
ADV_CAP = 2
KEEP = 4
