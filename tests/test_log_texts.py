"""What the players and the chronicle read: every roll's line tells both sides of an
opposed roll, as the desk does, in ``gmdesk log``, ``log --public`` and the md/html
chronicle; public texts never point at a hidden roll; a line says what happened once,
in one notation (the typographic minus), while ``--json`` keeps its numbers."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.systems import get_system
from gmdesk.tui.widgets.rolllog import entry_line

SHEET = """Bruno, a hedge doctor
Descriptor        Default    Current
Vitality           +2
Fitness            +1
Healing Ability    (2)
Knife              +1
"""


def cli(capsys, saves: Path, *args: str) -> str:
    from gmdesk.cli.main import main

    rc = main(["--saves", str(saves), *args])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def texts(capsys, saves: Path, name: str) -> dict[str, str]:
    """Everything a reader reads of a session: the GM's log, the players' log, the
    chronicles (Markdown and HTML, the players' and the GM's)."""
    return {
        "log": cli(capsys, saves, "log", name),
        "log --public": cli(capsys, saves, "log", name, "--public"),
        "md": cli(capsys, saves, "export", name),
        "md --gm": cli(capsys, saves, "export", name, "--gm"),
        "html": cli(capsys, saves, "export", name, "--format", "html"),
    }


def session(tmp_path: Path, system: str, *names: str, **kw) -> tuple[Path, Path, dict[str, str]]:
    saves = tmp_path / "saves"
    path = SessionStore(saves).create("Table", system)
    ids = {}
    with Session.open(path) as s:
        for n in names:
            ids[n] = s.apply({"type": "character.add", "character": {"name": n, **kw.get(n, {})}}).data["id"]
    return saves, path, ids


def desk(path: Path) -> list[str]:
    with Session.open(path, readonly=True) as s:
        names = {c.id: c.name for c in s.state.characters.values()}
        return [entry_line(r, names, hide_secrets=True) for r in s.state.rolls]


# ------------------------------------------------------------------ 12: both sides


@pytest.mark.parametrize(
    ("system", "params", "dice", "other"),
    [
        # fudge opposed attack: Good +1 against Mediocre −1, both levels on the line
        ("fudge", {"trait": 1, "vs_trait": -1, "combat": True}, [3, 2, 1, 1, 1, 1, 3, 3], "(Superb +1 vs Terrible −2)"),
        # 4d6 contest: 4d6+2 against 4d6+1, the other total on the line
        ("4d6", {"bonus": 2, "vs_bonus": 1}, [6, 5, 4, 3, 1, 2, 2, 1], "vs 7"),
        # 1d6x4 two-way Test (not combat): the defender's total
        ("1d6x4", {"bonus": 1, "vs_bonus": 0, "test": "Fitness", "vs_test": "Fitness"}, [4, 2], "vs 8"),
    ],
)
def test_the_defenders_roll_is_part_of_every_line(tmp_path, capsys, system, params, dice, other):
    saves, path, ids = session(tmp_path, system, "Kara", "Bruno")
    sysmod = get_system(system)
    with Session.open(path) as s:
        rec = sysmod.roll(sysmod.Params(**params), FixedDice(dice))
        s.apply(
            {
                "type": "roll",
                "record": rec,
                "actor": ids["Kara"],
                "target": ids["Bruno"],
                "combat": rec.params.get("combat", False),
            }
        )
    (line,) = desk(path)
    assert other in line and "| vs " in line  # the desk
    vs_dice = line[line.index("| vs ") : line.rindex("]")]
    for where, text in texts(capsys, saves, "Table").items():
        rolled = [x for x in text.splitlines() if "Kara rolls at Bruno" in x]
        assert rolled, where
        told = rolled[0].replace("\\", "")
        assert other in told, (where, told)
        assert vs_dice in told, (where, told)


# ------------------------------------------------------------------ 13: hidden means hidden


def test_public_texts_never_name_a_hidden_roll(tmp_path, capsys):
    torg = get_system("torg-2d10")
    saves, path, ids = session(
        tmp_path,
        "torg-2d10",
        "Kara",
        "Gospog",
        Kara={"reality_rated": True, "possibilities": 3},
        Gospog={"side": "NPC", "hidden": True},
    )
    with Session.open(path) as s:
        # the hidden Gospog wounds Kara (a hidden roll), Kara strikes back at it (hidden too)
        hit = s.roll(
            "torg-2d10",
            torg.Params(skill=8, difficulty=8, combat=True),
            actor=ids["Gospog"],
            target=ids["Kara"],
            combat=True,
            rng=FixedDice([1, 9]),
        )
        back = s.roll(
            "torg-2d10",
            torg.Params(skill=8, difficulty=10),
            actor=ids["Kara"],
            target=ids["Gospog"],
            rng=FixedDice([1, 9]),
        )
        s.spend_possibility(ids["Kara"], back.seq, rng=FixedDice([7]))
        assert s.state.characters[ids["Kara"]].wounds
        hidden = {hit.seq, back.seq}
        assert not any(s.state.public_roll(r) for r in s.state.rolls if r.seq in hidden)
    read = texts(capsys, saves, "Table")
    for where in ("log --public", "md", "html"):
        text = read[where]
        named = {int(n) for n in re.findall(r"#(\d+)", text)}
        assert not named & hidden, (where, text)
        assert "spends a Possibility" not in text, where
    assert f"(roll #{hit.seq})" in read["md --gm"].replace("\\", "")
    public_json = json.loads(cli(capsys, saves, "export", "Table", "--format", "json"))
    (kara,) = [c for c in public_json["characters"] if c["name"] == "Kara"]
    assert kara["wounds"] and all(w["roll_seq"] not in hidden for w in kara["wounds"])
    assert all(c["seq"] not in hidden for c in public_json["chronicle"])
    assert "spends a Possibility" in read["log"]


# ------------------------------------------------------------------ 15: once, one notation


def test_a_heal_is_told_once(tmp_path, capsys):
    saves, path, ids = session(tmp_path, "1d6x4", "Bruno", Bruno={"sheet": SHEET})
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Bruno"], "fields": {"vitality_current": -3}})
        s.heal(ids["Bruno"], ids["Bruno"], rng=FixedDice([4]))
    (line,) = desk(path)
    assert line.count("Healed +4 Vitality") == 1, line
    for where, text in texts(capsys, saves, "Table").items():
        assert text.count("Healed +4 Vitality") <= 1, (where, text)
        assert text.count("Vitality −3 → 1") == 1, (where, text)


def test_an_automatic_failure_says_no_dice_and_the_mutual_melee_says_why(tmp_path, capsys):
    x = get_system("1d6x4")
    saves, path, ids = session(tmp_path, "1d6x4", "Kara", "Bruno")
    with Session.open(path) as s:
        s.roll("1d6x4", x.Params(auto_fail="Shovel is missing", target=10), actor=ids["Kara"], rng=FixedDice([]))
        melee = x.Params(mutual=True, combat=True, vs_bonus=0, vs_auto_fail="Knife is missing", test="Fitness+Knife")
        s.roll("1d6x4", melee, actor=ids["Kara"], target=ids["Bruno"], combat=True, rng=FixedDice([3, 2]))
        # Kara has no knife: she fails, Bruno's d6 of 4 hurts her; the 4 is damage, not her attack
        unarmed = x.Params(mutual=True, combat=True, vs_bonus=0, auto_fail="Knife is missing")
        s.roll("1d6x4", unarmed, actor=ids["Kara"], target=ids["Bruno"], combat=True, rng=FixedDice([4]))
    fail, mutual, unarmed_line = desk(path)
    assert "[attack automatic failure: no dice | damage 4]" in unarmed_line, unarmed_line
    assert "[automatic failure: no dice]" in fail and "[]" not in fail
    assert "vs automatic failure: Knife is missing" in mutual
    for where, text in texts(capsys, saves, "Table").items():
        plain = text.replace("\\", "")
        assert "[]" not in plain and "automatic failure: no dice" in plain, where
        assert "vs automatic failure: Knife is missing" in plain, where
        assert "attack automatic failure: no dice | damage 4" in plain and "attack 4" not in plain, where


def test_a_folded_4d2_roll_says_so(tmp_path, capsys):
    four = get_system("4d2")
    saves, path, ids = session(tmp_path, "4d2", "Kara")
    with Session.open(path) as s:
        # 1 + 1 − (5 + 6) = −9, folded positive: +9
        s.roll("4d2", four.Params(fold="positive"), actor=ids["Kara"], rng=FixedDice([1, 1, 5, 6]))
    (line,) = desk(path)
    assert "+9" in line and "(positive fold)" in line
    for where, text in texts(capsys, saves, "Table").items():
        assert "(positive fold)" in text, where


def test_every_minus_sign_read_is_typographic_and_json_keeps_numbers(tmp_path, capsys):
    four = get_system("4d2")
    saves, path, ids = session(tmp_path, "4d2", "Kara", "Bruno")
    with Session.open(path) as s:
        # 1 + 1 − (6 + 6) = −10: the headline is −10
        s.roll(
            "4d2",
            four.Params(combat=True),
            actor=ids["Kara"],
            target=ids["Bruno"],
            combat=True,
            rng=FixedDice([1, 1, 6, 6]),
        )
    (line,) = desk(path)
    assert "−10" in line and not re.search(r"(?<![\w-])-\d", line), line
    for where, text in texts(capsys, saves, "Table").items():
        assert "= −10" in text.replace("\\", ""), where
        body = re.sub(r"\d{4}-\d\d-\d\d", "", text)  # dates keep their hyphens
        assert not re.search(r"(?<![\w-])-\d", body), (where, text)
    data = [json.loads(x) for x in cli(capsys, saves, "log", "Table", "--json").splitlines()]
    assert [d["roll"]["value"] for d in data if d["type"] == "roll"] == [-10]
    chronicle = json.loads(cli(capsys, saves, "export", "Table", "--format", "json"))
    (roll,) = [c for c in chronicle["chronicle"] if c["type"] == "roll"]
    assert roll["roll"]["value"] == -10 and roll["roll"]["number"] == -10


def test_the_character_list_and_sheet_summary_read_the_typographic_minus(tmp_path, capsys):
    saves, path, ids = session(tmp_path, "1d6x4", "Goblin")
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Goblin"], "fields": {"vitality_current": -14}})
    listed = cli(capsys, saves, "char", "Table", "list")
    assert re.search(r"Goblin\s+PC\s+organic\s+−14", listed), listed
    assert "Vitality −14 of 0" in cli(capsys, saves, "char", "Table", "show", "Goblin")
    assert json.loads(cli(capsys, saves, "char", "Table", "show", "Goblin", "--json"))["vitality_current"] == -14


# ------------------------------------------------------------------ 16: saves of today read the same way


@pytest.mark.parametrize("example", ["Skimmer Bike Heist", "The Crooked Mile", "Witch of Hollow Fen"])
def test_a_session_saved_before_reads_in_todays_notation(tmp_path, capsys, example):
    """The shipped examples' log and chronicle tell every roll from its record, as new
    ones are told (a summary saved in an earlier notation is never printed as it was),
    and the session replays to the same state. Saves of each earlier format are
    opened by tests/test_earlier_saves.py and tests/test_store_hostile.py."""
    import shutil

    from helpers import same_as_replay

    root = Path(__file__).resolve().parent.parent / "saves"
    saves = tmp_path / "saves"
    saves.mkdir()
    for f in root.glob(f"{example}.gmdesk*"):
        shutil.copy(f, saves / f.name)
    with Session.open(SessionStore(saves).resolve(example), readonly=True) as s:
        same_as_replay(s)
        records = [r.record for r in s.state.rolls]
        opposed = [r for r in records if isinstance(r.extra.get("opponent"), Mapping)]
    assert opposed or example == "Skimmer Bike Heist"
    read = texts(capsys, saves, example)
    for where in ("log", "md --gm"):
        text = read[where]
        rolls = [x for x in text.splitlines() if re.search(r"rolls( at .*)?\*?\*?: ", x)]
        assert rolls, where
        for line in rolls:
            assert not re.search(r"= -\d", line) and "[]" not in line, (where, line)
        # each opposed roll tells the other side: "vs 12", "(Good vs Fair)"
        assert sum(" vs " in line for line in rolls) >= len(opposed), (where, rolls)
    if example == "Skimmer Bike Heist":
        assert "Kestrel rolls: 4d2 [positive 4 2 | negative −6 −6] = −4 Severe Failure → Wait Days" in read["log"]
        assert "Scrap-7 rolls at Kestrel" in read["log"]  # a name keeps its hyphen
