"""A small plug-in system written in a test: its module text is installed into a
folder as a package registered under ``gmdesk.systems`` would be (a ``dist-info``
with its entry point), ready for :func:`coin_plugin.registered`."""

from __future__ import annotations

import textwrap
from pathlib import Path

#: a complete plug-in: a die of ``sides`` faces; the tests add members to it
BASE = """
from fractions import Fraction

from gmdesk.core.dice import Die, RollRecord, roll_die
from gmdesk.core.odds import Odds
from gmdesk.core.systems.base import dataclass_to_json
from gmdesk.core.systems.spec import CharField, Param, Setting
from gmdesk.core.tables import DEFAULT_TABLES

ID = "{id}"
NAME = "Plain die"
PARAMS = (Param("sides", "Sides", "int", 6, "faces of the die", lo=2, hi=20),)


def roll(params, rng, tables=DEFAULT_TABLES):
    value = roll_die(rng, params.sides)
    return RollRecord(
        system=ID,
        params=dataclass_to_json(params),
        dice=(Die(value, "die", params.sides),),
        value=value,
        outcome="High" if value * 2 > params.sides else "Low",
    )


def odds(params, tables=DEFAULT_TABLES):
    dist = {{v: Fraction(1, params.sides) for v in range(1, params.sides + 1)}}
    high = sum((p for v, p in dist.items() if v * 2 > params.sides), Fraction(0))
    return Odds.from_dist(ID, dataclass_to_json(params), dist, [("High", high), ("Low", 1 - high)])


def initiative(rng, modifier=0):
    value = roll_die(rng, 6)
    return RollRecord(system=ID, params={{"modifier": modifier}}, dice=(Die(value, "die", 6),), value=value + modifier,
                      outcome=f"Initiative {{value + modifier}}")
"""


def plugin_site(root: Path, system_id: str, extra: str = "", module: str = "") -> Path:
    """A folder holding the plug-in ``system_id`` (module ``module``, default
    ``gmdesk_<id>``): :data:`BASE` and ``extra`` (more members) as its module."""
    module = module or "gmdesk_" + system_id.replace("-", "_")
    site = root / f"site-{module}"
    pkg = site / module
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(BASE.format(id=system_id) + textwrap.dedent(extra), encoding="utf-8")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[gmdesk.systems]\n{system_id} = {module}\n", encoding="utf-8")
    return site
