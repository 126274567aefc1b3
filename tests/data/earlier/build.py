"""Run with the gmdesk of before the fixes: sessions whose events the fixes would
decide differently today, and the state each folded to then."""

import json
import sys
from pathlib import Path

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.model import checkpoint_json

out = Path(sys.argv[1])
store = SessionStore(out)


def dump(path):
    with Session.open(path, readonly=True) as s:
        data = checkpoint_json(s.state)
    data["info"].pop("last_played", None)
    (out / (path.stem + ".state.json")).write_text(json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True))


# torg: a buy-off without a pick after a miss (took an older Stun), initiative for a Stymied, Up roller
p = store.create("torg before", "torg-2d10")
with Session.open(p) as s:
    k = s.apply(
        {
            "type": "character.add",
            "character": {
                "name": "Kara",
                "reality_rated": True,
                "possibilities": 3,
                "fields": {"stats": "Dexterity=9"},
            },
        }
    ).data["id"]
    t = s.apply({"type": "character.add", "character": {"name": "Thug", "side": "NPC"}}).data["id"]
    s.apply({"type": "condition.add", "id": k, "name": "Stymied"})
    s.apply({"type": "condition.add", "id": k, "name": "Up"})
    s.roll_initiative([k, t], FixedDice([9, 10, 4, 3, 1, 2]))
    s.roll(
        "torg-2d10",
        {"combat": True, "skill": 10, "difficulty": 10},
        actor=t,
        target=k,
        combat=True,
        rng=FixedDice([3, 5]),
    )
    s.roll(
        "torg-2d10",
        {"combat": True, "skill": 10, "difficulty": 10},
        actor=t,
        target=k,
        combat=True,
        rng=FixedDice([5, 2]),
    )
    s.apply({"type": "damage.buyoff", "id": k})
    s.roll(
        "torg-2d10",
        {"combat": True, "skill": 30, "difficulty": 8},
        actor=t,
        target=k,
        combat=True,
        rng=FixedDice([1, 2]),
    )
dump(p)

# 1d6x4: an Unconscious defender rolls its defense; Stealth+Sneak fails; Magic Ability+Use spends the parent twice
SHEET = (
    "Bea\nDescriptor  Default  Current  Notes\nVitality  +5\nDefense  +3\nReflex  -5\nStealth  +2\n"
    "Magic Ability  +5 (4)\n  *Turn Person to Frog  (2)\n"
)
p = store.create("1d6x4 before", "1d6x4")
with Session.open(p) as s:
    b = s.apply({"type": "character.add", "character": {"name": "Bea", "sheet": SHEET}}).data["id"]
    g = s.apply({"type": "character.add", "character": {"name": "Gob", "side": "NPC"}}).data["id"]
    s.roll_initiative([b, g], FixedDice([2, 3]))
    from gmdesk.core.systems import one_d6_x4 as x4

    sheet = s.state.characters[b].sheet
    s.roll("1d6x4", x4.fill_from_sheets(x4.Params(test="Stealth+Sneak", target=8), sheet), actor=b, rng=FixedDice([]))
    s.roll(
        "1d6x4",
        x4.fill_from_sheets(x4.Params(test="Magic Ability+Turn Person to Frog", target=8), sheet),
        actor=b,
        rng=FixedDice([3]),
    )
    s.apply({"type": "character.edit", "id": b, "fields": {"vitality_current": -6}})
    s.roll("1d6x4", {"combat": True}, actor=g, target=b, combat=True, rng=FixedDice([2, 3]))
dump(p)

# 4d6: a contest the opponent's all 1s decided (a Critical Success with a Severe Wound then)
p = store.create("4d6 before", "4d6")
with Session.open(p) as s:
    a = s.apply({"type": "character.add", "character": {"name": "Ana"}}).data["id"]
    o = s.apply({"type": "character.add", "character": {"name": "Orc", "side": "NPC"}}).data["id"]
    s.roll(
        "4d6", {"combat": True, "vs_bonus": 30}, actor=a, target=o, combat=True, rng=FixedDice([2, 1, 1, 1, 1, 1, 1, 1])
    )
dump(p)
