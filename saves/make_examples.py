"""Build the shipped example sessions, one per dice system, with fixed dice.

    python -m gmdesk.saves.make_examples [DIR]      (default: the saves/ folder beside it)

Each example is a living table: a few characters, each with the full stat block its
system declares (docs/CHARACTERS.md: torg attributes and skills, FUDGE traits and
factors, 4d6 skills and Defense DC, 1d6x4 sheets and the Tests they attack with, 4d2
shift sources), an encounter in progress (round 2), a short roll log with combat
descriptors applied. Every attack takes its numbers from the attacker's and the
target's stat blocks, as the desk's attack dialog does. The examples play by the rules they
show, as the session enforces them for a GM: only those who can act take turns and
attack (the Unconscious and the Dead are passed over), each attacker goes for the
target the attack dialog offers first — its last target while that one can still act,
else its next foe who can (never the Unconscious nor the Dead); the fudge example
plays its session's method (``fudge_method`` d20-open, initiative included); 4d6
progress clocks move by each roll's own progress (the record's ``clock`` field, never
a number worked out here) and the danger clock is ticked only on a Partial Success or
a Failure (a Critical Failure counts as a Failure). gmdesk opens them only as
templates ("new from example" copies them); re-running this script rebuilds them
byte for byte except for timestamps.
"""

from __future__ import annotations

import argparse
import glob
import random
import shutil
import tempfile
from pathlib import Path

from gmdesk.core.session import Session, SessionStore

MARK_SHEET = """Mark, 25 year old Human, green shirt, black pantaloons
Descriptor          Default    Current    Notes
Vitality             +5
Speed                +2
Precision            +1
Defense              +1
Reflex               +2
Slingshot Expertise  +2
Slingshot            +4
Healing Ability      +1 (1)
Medical Kit
Dollars              (8)
"""

WITCH_SHEET = """Agatha, the Witch of Hollow Fen
Descriptor          Default    Current    Notes
Vitality             +3
Fitness              -1
Reflex               +1
Defense              +2
Broomstick
Cauldron
Magic Ability        +5 (inf)
 *Fly on Broomstick     (inf)
 *Turn Person to Frog   (inf)
"""

GOBLIN_SHEET = """Bog goblin, sharp teeth, rusty knife
Descriptor          Default    Current
Vitality             +0
Speed                +2
Fitness              +1
Defense              +0
Knife Expertise      +1
Knife                +1
"""


def _add(s: Session, **fields) -> str:
    ev = s.apply({"type": "character.add", "character": fields})
    return s.character(fields["name"]).id if ev else ""


def _torg(stats: str, attack: str) -> dict:
    """A torg stat block: attributes and skills, the attack skill (Dodge defends,
    Dexterity goes to initiative: the system's defaults)."""
    return {"stats": stats, "attack": attack}


def _fudge(traits: str, attack: str, defense: str, offense: int, defense_factor: int) -> dict:
    """A FUDGE stat block: traits on the ladder, the attack and defense traits, the
    offensive and defensive factors; initiative adds Perception."""
    return {
        "traits": traits,
        "attack_trait": attack,
        "defense_trait": defense,
        "offense": offense,
        "defense_factor": defense_factor,
        "initiative_trait": "Perception",
    }


def _4d6(skills: str, attack: str, dc: int, initiative: int) -> dict:
    """A 4d6 stat block: skill bonuses, the attack skill, the Defense DC, the initiative bonus."""
    return {"skills": skills, "attack_skill": attack, "defense_dc": dc, "initiative_bonus": initiative}


def _start(s: Session, ids: list[str], rng: random.Random) -> None:
    s.roll_initiative(ids, rng=rng)  # everyone joins, each roll logged with its dice
    s.apply({"type": "round.new"})


def _fight(s: Session, rng: random.Random, attacks: dict[str, dict], turns: int) -> None:
    """Play ``turns`` turns in initiative order: each combatant who can act attacks the
    target the attack dialog offers first (``State.default_target``: its last target
    while it can act, else its next foe who can) with its own parameters."""
    for _ in range(turns):
        cur = s.state.encounter.current
        if cur is None:
            break
        actor = s.state.characters[cur.char_id]
        target = s.state.default_target(actor.id)
        params = attacks.get(actor.name)
        if actor.can_act and target is not None and params is not None:
            s.roll(s.state.info.system, params, actor=actor.id, target=target, combat=True, rng=rng)
        s.apply({"type": "turn.next"})


#: 4d6 tiers on which the GM may tick a danger clock (RULES.md: a Partial Success or a Failure)
DANGER_TIERS = ("Partial Success", "Failure", "Critical Failure")


def _danger(s: Session, event, clock: str, halves: int = 2) -> None:
    """Tick the danger clock ``clock`` (+1 segment) if the roll ``event`` logged was a
    Partial Success or a Failure; a success leaves it alone."""
    entry = s.state.roll_entry(event.seq)
    if entry is not None and entry.record.get("tier") in DANGER_TIERS:
        s.apply({"type": "clock.tick", "name": clock, "halves": halves})


def build_4d2(s: Session, rng: random.Random) -> None:
    vex = _add(s, name="Vex", side="PC", kind="organic", vitality=10, notes="Pistol 2, DEX")
    kes = _add(s, name="Kestrel", side="PC", kind="organic", vitality=10, notes="Engine skill 1, INT")
    drone = _add(s, name="Scrap-7", side="NPC", kind="inorganic", vitality=8, notes="Security drone")
    thug = _add(s, name="Bar Thug", side="NPC", kind="organic", vitality=8)
    s.apply({"type": "source.add", "id": vex, "kind": "shift", "name": "Pistol", "value": 2})
    s.apply({"type": "source.add", "id": vex, "kind": "shift", "name": "DEX", "value": 1})
    s.apply({"type": "source.add", "id": kes, "kind": "shift", "name": "Engine skill", "value": 1})
    s.apply({"type": "source.add", "id": kes, "kind": "shift", "name": "INT", "value": 1})
    s.apply({"type": "source.add", "id": kes, "kind": "shift", "name": "Brawling", "value": 1, "active": False})
    s.apply({"type": "source.add", "id": drone, "kind": "shift", "name": "Targeting array", "value": 1})
    s.apply({"type": "source.add", "id": drone, "kind": "shift", "name": "Armour plating", "value": 1})
    s.apply({"type": "source.add", "id": thug, "kind": "shift", "name": "PSTR", "value": 1})
    s.apply({"type": "source.add", "id": thug, "kind": "shift", "name": "Brawling", "value": 1})
    _start(s, [vex, kes, drone, thug], rng)
    s.roll("4d2", {"shift": 2, "maneuver": True}, actor=kes, rng=rng)
    # every attack's net shift is the attacker's switched-on shift sources minus the target's
    _fight(s, rng, {"Vex": {}, "Kestrel": {}, "Scrap-7": {}, "Bar Thug": {}}, 5)


def build_fudge(s: Session, rng: random.Random) -> None:
    ald = _add(
        s,
        name="Aldric",
        side="PC",
        kind="organic",
        notes="Knight errant; longsword and leather",
        fields=_fudge("Sword=Great, Dodge=Good, Perception=Fair, Strength=Good", "Sword", "Dodge", 2, 1),
    )
    mir = _add(
        s,
        name="Mirela",
        side="PC",
        kind="organic",
        notes="Scout; longbow",
        fields=_fudge("Bow=Good, Dodge=Great, Perception=Good, Stealth=Great", "Bow", "Dodge", 1, 0),
    )
    cap = _add(
        s,
        name="Bandit Captain",
        side="NPC",
        kind="organic",
        notes="Axe and mail shirt",
        fields=_fudge("Axe=Good, Dodge=Fair, Perception=Fair, Strength=Great", "Axe", "Dodge", 2, 1),
    )
    ban = _add(
        s,
        name="Bandit",
        side="NPC",
        kind="organic",
        notes="Club",
        fields=_fudge("Club=Fair, Dodge=Mediocre, Perception=Mediocre", "Club", "Dodge", 1, 0),
    )
    s.apply({"type": "condition.add", "id": ban, "name": "Frightened", "rounds": 2})
    s.apply({"type": "session.settings", "changes": {"fudge_method": "d20-open"}})  # initiative too
    _start(s, [ald, mir, cap, ban], rng)
    # every attack reads the attacker's trait and offensive factor, the target's
    # defense trait and defensive factor, and the session's dice method
    _fight(s, rng, {"Aldric": {}, "Mirela": {}, "Bandit Captain": {}, "Bandit": {}}, 5)


def build_1d6x4(s: Session, rng: random.Random) -> None:
    # each attacks with the Test its sheet is made for, against the target's Defense Test
    slingshot = {"attack_test": "Precision+Slingshot Expertise+Slingshot"}
    knife = {"attack_test": "Fitness+Knife Expertise+Knife"}
    mark = _add(s, name="Mark", side="PC", kind="organic", sheet=MARK_SHEET, fields=slingshot)
    witch = _add(
        s, name="Agatha", side="PC", kind="organic", sheet=WITCH_SHEET, fields={"attack_test": "Magic Ability"}
    )
    gob = _add(s, name="Bog Goblin", side="NPC", kind="organic", sheet=GOBLIN_SHEET, fields=knife)
    gob2 = _add(
        s,
        name="Goblin Scout",
        side="NPC",
        kind="organic",
        sheet=GOBLIN_SHEET.replace("Bog goblin, sharp teeth, rusty knife", "Goblin scout, quick and nervous"),
        fields=knife,
    )
    _start(s, [mark, witch, gob, gob2], rng)
    # the Tests and their Current Values come from the fields and the sheets; four
    # turns leave the Bog Goblin down, the Scout wounded and Agatha to act in round 2
    _fight(s, rng, {"Mark": {}, "Agatha": {}, "Bog Goblin": {}, "Goblin Scout": {}}, 4)


def build_torg(s: Session, rng: random.Random) -> None:
    kn = _add(
        s,
        name="Quin Sebastian",
        side="PC",
        kind="organic",
        reality_rated=True,
        possibilities=10,
        vitality=10,
        notes="Storm Knight",
        fields=_torg(
            "Dexterity=10, Strength=9, Toughness=10, Fire Combat=13, Dodge=11, Unarmed Combat=11", "Fire Combat"
        ),
    )
    tal = _add(
        s,
        name="Tal Vorn",
        side="PC",
        kind="organic",
        reality_rated=True,
        possibilities=8,
        vitality=9,
        notes="Storm Knight",
        fields=_torg("Dexterity=9, Strength=10, Toughness=10, Melee Weapons=12, Dodge=10", "Melee Weapons"),
    )
    edn = _add(
        s,
        name="Edeinos Hunter",
        side="NPC",
        kind="organic",
        vitality=9,
        notes="ord; a lance",
        fields=_torg("Dexterity=9, Strength=10, Toughness=11, Melee Weapons=11, Dodge=9", "Melee Weapons"),
    )
    gos = _add(
        s,
        name="Gospog Sergeant",
        side="NPC",
        kind="organic",
        reality_rated=True,
        possibilities=3,
        vitality=10,
        notes="reality-rated stormer",
        fields=_torg("Dexterity=8, Strength=9, Toughness=10, Fire Combat=11, Dodge=9", "Fire Combat"),
    )
    s.apply({"type": "condition.add", "id": tal, "name": "Up", "rounds": 1})
    s.apply({"type": "condition.add", "id": edn, "name": "Stymied"})
    _start(s, [kn, tal, edn, gos], rng)
    # the attack skill from the attacker's stats, the Difficulty from the target's Dodge
    _fight(
        s,
        rng,
        {"Quin Sebastian": {"possibilities": 1}, "Tal Vorn": {}, "Edeinos Hunter": {}, "Gospog Sergeant": {}},
        3,  # round 2 begins: Up and Stymied count for initiative, the Gospog is out
    )


def build_4d6(s: Session, rng: random.Random) -> None:
    ren = _add(
        s,
        name="Renna",
        side="PC",
        kind="organic",
        vitality=12,
        notes="Cat burglar",
        fields=_4d6("Stealth=3, Blades=2, Athletics=1, Awareness=2", "Blades", 16, 2),
    )
    ost = _add(
        s,
        name="Osric",
        side="PC",
        kind="organic",
        vitality=14,
        notes="Sellsword with a silver tongue",
        fields=_4d6("Athletics=3, Brawling=3, Persuasion=1", "Brawling", 16, 1),
    )
    guard = _add(
        s,
        name="Castle Guard",
        side="NPC",
        kind="organic",
        vitality=10,
        notes="Alert",
        fields=_4d6("Spear=2, Awareness=2", "Spear", 14, 1),
    )
    golem = _add(
        s,
        name="Bronze Sentinel",
        side="NPC",
        kind="inorganic",
        vitality=16,
        notes="Slow but relentless",
        fields=_4d6("Slam=3", "Slam", 18, 0),
    )
    s.apply({"type": "source.add", "id": ren, "kind": "advantage", "name": "Dim", "value": 1})
    s.apply({"type": "source.add", "id": ren, "kind": "advantage", "name": "Crowded", "value": 1})
    s.apply({"type": "source.add", "id": ost, "kind": "advantage", "name": "Exhausted", "value": -1, "rounds": 3})
    s.apply({"type": "clock.add", "name": "Suspicion", "segments": 6})
    s.apply({"type": "clock.add", "name": "Reach the vault", "segments": 4})
    # Renna slips through the crowd, Osric talks his way past the gate: each roll's own
    # progress goes to the vault clock; a Partial Success or a Failure raises Suspicion
    sneak = s.roll("4d6", {"bonus": "Stealth", "dc": 16}, actor=ren, rng=rng, clock="Reach the vault")
    _danger(s, sneak, "Suspicion")
    talk = s.roll(
        "4d6", {"bonus": "Persuasion", "dc": 18, "position": "low"}, actor=ost, rng=rng, clock="Reach the vault"
    )
    _danger(s, talk, "Suspicion")
    _start(s, [ren, ost, guard, golem], rng)
    # the attack skill's bonus from the attacker, the DC from the target's defense,
    # advantage from the attacker's switched-on sources
    _fight(s, rng, {"Renna": {}, "Osric": {}, "Castle Guard": {}, "Bronze Sentinel": {}}, 5)


EXAMPLES = [
    ("Skimmer Bike Heist", "4d2", build_4d2),
    ("The Crooked Mile", "fudge", build_fudge),
    ("Witch of Hollow Fen", "1d6x4", build_1d6x4),
    ("Storm over Core Earth", "torg-2d10", build_torg),
    ("Festival Infiltration", "4d6", build_4d6),
]


def build(out_dir: Path) -> list[Path]:
    """Build every example in a scratch folder, then move its files into ``out_dir``
    (gmdesk itself refuses to change a shipped example; this script is how they change)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    with tempfile.TemporaryDirectory() as scratch:
        store = SessionStore(Path(scratch))
        for i, (name, system, builder) in enumerate(EXAMPLES):
            path = store.create(name, system)
            with Session.open(path) as s:
                builder(s, random.Random(1000 + i))
            for f in Path(scratch).glob(glob.escape(path.name) + "*"):
                if f.suffix in (".lock", ".ckpt"):
                    continue  # the lock and the checkpoint are made afresh wherever it is opened
                shutil.copyfile(f, out_dir / f.name)
            paths.append(out_dir / path.name)
    return paths


HERE = Path(__file__).resolve().parent  # saves/ itself, also through an editable install's links


def main(argv: list[str] | None = None) -> int:
    """``python -m gmdesk.saves.make_examples [DIR]``: rebuild the examples, print each path."""
    parser = argparse.ArgumentParser(
        prog="python -m gmdesk.saves.make_examples",
        description="Rebuild gmdesk's example sessions, one per dice system, with fixed dice "
        "(byte for byte the same but for timestamps).",
    )
    parser.add_argument(
        "out_dir",
        nargs="?",
        type=Path,
        default=HERE,
        metavar="DIR",
        help=f"folder to write the examples into (default: {HERE})",
    )
    args = parser.parse_args(argv)
    if args.out_dir.exists() and not args.out_dir.is_dir():
        parser.error(f"DIR: {args.out_dir} is a file, not a folder")
    for p in build(args.out_dir):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
