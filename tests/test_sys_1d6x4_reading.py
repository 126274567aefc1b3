"""A 1d6x4 sheet is read one way: the roll dialog, a roll the session fills from the
characters' fields, ``gmdesk roll --save`` and a caller holding the sheets come to
the same Test — the same bonus, the same names counted +0, the same automatic
failure — under one rule: a reason the GM already gave stays (RULES.md 1d6x4)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from gmdesk.core.sheet import parse_sheet
from gmdesk.core.systems import one_d6_x4 as x4

SLINGER = parse_sheet(
    "Pip\nDescriptor  Default  Current\nPrecision  +1\nSlingshot  +4\nDefense  +2  -1\nWealth  -3  -5\n"
)
GOBLIN = parse_sheet("Gob\nDescriptor  Default  Current\nDefense  +1\nSlingshot  +2\n")


def who(name: str, sheet: Any) -> Any:
    return SimpleNamespace(name=name, sheet=sheet, fields={})


READ = ("bonus", "missing", "auto_fail", "vs_bonus", "vs_missing", "vs_auto_fail")


def four_ways(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The Test ``data`` read by each of the four readers, as the parameters they give."""
    pip, gob = who("Pip", SLINGER), who("Gob", GOBLIN)
    form, _ = x4.read_form(dict(data), pip, gob, True)
    filled = x4.read_filled(dict(data), {"test", "vs_test"}, pip, gob)
    params = x4.Params(**{**data, "combat": True})
    sheets = x4.fill_from_sheets(params, SLINGER, GOBLIN)
    cli = x4.read_sheets(params, pip, gob)
    out = [x4.Params(**{**d, "combat": True}) for d in (form, filled)] + [sheets, cli]
    return [{k: getattr(p, k) for k in READ} for p in out]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # Precision +1, Slingshot +4, a name the sheet lacks (+0) and the GM's +1 against Defense +1
        (
            {"test": "Precision+Slingshot+Sneak", "bonus": 1, "vs_test": "Defense"},
            {"bonus": 6, "missing": "Sneak", "auto_fail": None, "vs_bonus": 1, "vs_auto_fail": None},
        ),
        # a descriptor at −5 cannot be used: the Test fails automatically, the record says why
        (
            {"test": "Wealth", "vs_test": "Defense+Slingshot"},
            {"bonus": -5, "auto_fail": "Wealth is at -5 or lower", "vs_bonus": 3},
        ),
        # the GM's own reason stays, whichever way the sheet is read
        (
            {"test": "Wealth", "auto_fail": "hands tied", "vs_test": "Defense"},
            {"auto_fail": "hands tied"},
        ),
        # an Ability the defender lacks: its side fails automatically
        (
            {"test": "Precision", "vs_test": "Magic Ability"},
            {"bonus": 1, "vs_auto_fail": "Magic Ability is missing"},
        ),
    ],
)
def test_every_reader_comes_to_the_same_test(data: dict[str, Any], expected: dict[str, Any]) -> None:
    results = four_ways(data)
    assert all(r == results[0] for r in results), results
    got = results[0]
    for key, value in expected.items():
        if key.endswith("auto_fail") and value is not None and value != "hands tied":
            assert got[key] is not None and value.split(" is")[0] in got[key], (key, got[key])
        else:
            assert got[key] == value, (key, got[key])
