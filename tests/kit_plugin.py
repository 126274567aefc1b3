"""``kit``: a plug-in system written in a test that declares every member of the
contract a plug-in had not yet used, each as a built-in does (the built-in it mirrors
in brackets):

* ``ROLL_SOURCES`` / ``sources_params`` (4d2): the roller's switched-on Knacks
  against the target's make the roll's ``edge``;
* ``session_defaults`` (torg-2d10's Up and Stymied): a roller with the condition
  Bold rolls ``bold``;
* ``read_form`` / ``read_filled`` / ``read_sheets`` / ``roll_uses`` (1d6x4): the
  ``trick`` named is read on the roller's descriptor sheet (its value the
  ``trick_bonus``) and a roll with it spends one of its uses. The three readers
  take no ``items`` (PLUGINS.md: a hook is offered the keywords it takes);
* ``parse_initiative`` / ``INITIATIVE_HINT`` (fudge), ``INITIATIVE_FAILS`` /
  ``initiative_modifier`` (1d6x4): an initiative may be typed as a word ("Swift"
  is 5), a Stunned character's initiative fails, and its Speed is its modifier;
* ``check``: a Trick bonus needs a Trick;
* ``result_distribution``: the die explodes on its top face; the odds stop after
  two explosions (the rest is their tail), the declared distribution after five;
* ``TABLE_ROLES``: its own band table ``kit-omens`` (the die's face to an omen
  the record carries), which ``--table`` and a session's tables may replace.
"""

from __future__ import annotations

import json
from pathlib import Path

from plugin_site import plugin_site

KIT = """
import dataclasses

from gmdesk.core.errors import ParamError

PARAMS = PARAMS + (
    Param("edge", "Edge", "int", 0, "the net of the Knacks switched on", lo=-6, hi=6),
    Param("bold", "Bold", "bool", False, "+1 for a Bold roller"),
    Param("trick", "Trick", "text", "", "a descriptor of the roller's sheet", optional=True),
    Param("trick_bonus", "Trick bonus", "int", 0, "what the Trick adds", lo=0, hi=9),
    Param("need", "Need", "int", 5, "the total a Hit needs", lo=1, hi=40),
)
TABLE_ROLES = ("kit-omens",)
EXTRA_LABELS = (("omen", "Omen"),)
CHARACTER_SECTIONS = frozenset({"shift", "conditions", "wounds", "sheet"})
CHARACTER_FIELDS = (
    CharField("knacks", "Knacks", "stats", help="the character's knacks: its sources", lo=1, hi=3, sources="shift"),
    CharField("speed", "Speed", "int", help="its initiative modifier", lo=-3, hi=5),
    CharField("pet_trick", "Pet trick", "text", feeds="trick", help="the Trick it rolls with"),
)

ROLL_SOURCES = ("shift", True)


def sources_params(sources):
    own = sum(s.value for s in sources if s.owner == "own")
    vs = sum(s.value for s in sources if s.owner == "vs")
    return {"edge": max(-6, min(6, own - vs))}


def session_defaults(settings, actor=None, target=None):
    return {"bold": actor is not None and actor.has_condition("Bold")}


def _trick(data, who):
    name = str(data.get("trick") or "").strip()
    if not name or who is None or who.sheet is None:
        return data, None
    row = who.sheet.find(name)
    if row is None:
        return data, f"{who.name} has no {name} on the sheet"
    return {**data, "trick_bonus": max(0, row.value)}, f"Trick: {row.name} {row.value:+d} on {who.name}'s sheet"


def read_form(data, actor=None, target=None, combat=False):
    data, note = _trick(dict(data), actor)
    return data, [note] if note else []


def read_filled(data, filled, actor=None, target=None):
    return _trick(dict(data), actor)[0] if "trick" in filled else data


def read_sheets(params, actor=None, target=None, skip=()):
    if "trick" in skip:
        return params
    data, _ = _trick({"trick": params.trick, "trick_bonus": params.trick_bonus}, actor)
    return dataclasses.replace(params, trick_bonus=data["trick_bonus"])


def roll_uses(record, actor=None, target=None):
    name = str(record.params.get("trick") or "").strip()
    if not name or actor is None or actor.sheet is None or actor.sheet.uses(name) is None:
        return []
    return [("actor", actor.sheet.find(name).name)]


def check(params):
    if params.trick_bonus and not params.trick:
        raise ParamError("trick_bonus", "a Trick bonus needs a Trick")


def _exploding(sides, depth):
    dist, p, base = {}, Fraction(1, sides), 0
    for level in range(depth + 1):
        for face in range(1, sides):
            dist[base + face] = dist.get(base + face, Fraction(0)) + p
        base += sides
        p /= sides
    return dist


def _bonus(params):
    return params.edge + int(params.bold) + params.trick_bonus


def result_distribution(params, tables):
    return {v + _bonus(params): p for v, p in _exploding(params.sides, 5).items()}


def roll(params, rng, tables=DEFAULT_TABLES):
    dice = [Die(roll_die(rng, params.sides), "die", params.sides)]
    while dice[-1].value == params.sides and len(dice) < 20:
        dice.append(Die(roll_die(rng, params.sides), "die", params.sides))
    total = sum(d.value for d in dice) + _bonus(params)
    omen = tables.band_table("kit-omens", package=__name__).lookup(dice[0].value)
    return RollRecord(system=ID, params=dataclass_to_json(params), dice=tuple(dice), value=total,
                      outcome="Hit" if total >= params.need else "Miss", extra={"total": total, "omen": omen})


def odds(params, tables=DEFAULT_TABLES):
    dist = {v + _bonus(params): p for v, p in _exploding(params.sides, 2).items()}
    tail = 1 - sum(dist.values())
    hit = sum((p for v, p in dist.items() if v >= params.need), Fraction(0))
    return Odds.from_dist(ID, dataclass_to_json(params), dist, [("Hit", hit), ("Miss", 1 - hit - tail)], tail)


INITIATIVE_HINT = "a number, or Slow, Steady or Swift"
WORDS = {"slow": 1, "steady": 3, "swift": 5}


def parse_initiative(option, text):
    word = str(text).strip()
    if word.casefold() in WORDS:
        return WORDS[word.casefold()]
    try:
        return int(word)
    except ValueError:
        raise ParamError(option, f"must be {INITIATIVE_HINT} (got {word!r})") from None


def initiative_modifier(character):
    return int((character.fields or {}).get("speed") or 0)


def INITIATIVE_FAILS(character):
    return "Stunned" if character.has_condition("Stunned") else None


def initiative(rng, modifier=0, auto_fail=None):
    if auto_fail:
        return RollRecord(system=ID, params={"modifier": modifier}, dice=(), value=0,
                          outcome="Initiative fails", extra={"auto_fail": auto_fail})
    d = Die(roll_die(rng, 6), "die", 6)
    return RollRecord(system=ID, params={"modifier": modifier}, dice=(d,), value=d.value + modifier,
                      outcome=f"Initiative {d.value + modifier}")
"""

#: the kit's own table: the die's first face to an omen
OMENS = {
    "name": "kit-omens",
    "kind": "bands",
    "title": "Kit omens: the first die's face",
    "bands": [{"lo": None, "hi": 2, "value": "Crows"}, {"lo": 3, "hi": None, "value": "Larks"}],
}


def kit_site(root: Path) -> Path:
    """The ``kit`` plug-in, ready for :func:`coin_plugin.registered`: its module and
    its own table beside it in its package."""
    site = plugin_site(root, "kit", KIT)
    (site / "gmdesk_kit" / "kit-omens.json").write_text(json.dumps(OMENS), encoding="utf-8")
    return site
