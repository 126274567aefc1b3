"""What a GM reads in a log line or a breakdown: every die, who it belongs to,
no colour needed, and never the GM's secret in the players' form."""

from gmdesk.core.dice import FixedDice
from gmdesk.core.render import dice_plain, headline, public_json, record_line, render_record
from gmdesk.core.systems import get_system


def test_4d2_dice_by_role_and_signed_outcome():
    m = get_system("4d2")
    rec = m.roll(m.Params(combat=True), FixedDice([6, 1, 4, 2]))
    assert record_line(rec) == ("4d2 [positive 6 1 | negative −4 −2] = +1 Barely Successful → Backfoot (target)")


def test_4d6_dropped_dice_in_parentheses_and_plain_total():
    m = get_system("4d6")
    rec = m.roll(m.Params(bonus=3, dc=16, adv=(-1,)), FixedDice([2, 4, 5, 3, 6]))
    assert dice_plain(rec) == "2 4 5 3 (6)"
    assert headline(rec) == "17"


def test_two_way_test_names_the_defenders_and_the_damage_dice():
    m = get_system("1d6x4")
    rec = m.roll(m.Params(bonus=3, vs_bonus=1, combat=True), FixedDice([5, 2, 4]))
    assert dice_plain(rec) == "5 | vs 2 | damage 4"
    assert "Wound −4 Vitality" in record_line(rec)


def test_the_target_number_is_hidden_from_players():
    m = get_system("1d6x4")
    rec = m.roll(m.Params(bonus=2, target=17), FixedDice([4]))
    assert "target 17" in record_line(rec)
    assert "17" not in record_line(rec, hide_secrets=True)
    public = public_json(rec)
    assert "target" not in public and "target" not in public["params"]
    from rich.console import Console

    console = Console(width=80, no_color=True, record=True)
    console.print(render_record(rec, hide_secrets=True))
    assert "Target number" not in console.export_text()


def _text(renderable) -> str:
    from rich.console import Console

    console = Console(width=80, no_color=True, record=True)
    console.print(renderable)
    return console.export_text()


def _with_extra(rec, **extra):
    import dataclasses

    return dataclasses.replace(rec, extra={**rec.extra, **extra})


def test_the_breakdown_says_where_each_number_came_from():
    m = get_system("torg-2d10")
    rec = m.roll(m.Params(skill=13, difficulty=11), FixedDice([7, 3]))
    plain = _text(render_record(rec))
    assert "—" not in plain  # typed in full: nothing about where the numbers came from
    filled = _with_extra(rec, **{"from": {"difficulty": "Trooper's Dodge", "skill": "Quinn's Fire Combat"}})
    lines = _text(render_record(filled)).splitlines()
    # in the system's parameter order, each with its label and the value used
    i = lines.index("Skill value 13 — Quinn's Fire Combat")
    assert lines[i + 1] == "Difficulty 11 — Trooper's Dodge"
    assert record_line(filled) == record_line(rec)  # the one-line log stays short


def test_where_a_secret_came_from_is_not_shown_to_players():
    m = get_system("1d6x4")
    rec = m.roll(m.Params(bonus=2, target=17), FixedDice([4]))
    rec = _with_extra(rec, **{"from": {"target": "the GM's lock", "bonus": "Quinn's Precision"}})
    assert "Target number 17 — the GM's lock" in _text(render_record(rec))
    players = _text(render_record(rec, hide_secrets=True))
    assert "Extra bonus 2 — Quinn's Precision" in players and "lock" not in players


def test_a_system_without_labels_of_its_own_still_renders():
    from gmdesk.core.dice import Die, RollRecord

    rec = RollRecord("no-such-system", {"coins": 3}, (Die(2, "die", 2), Die(1, "die", 2)), 1, "Failure", {"heads": 1})
    assert record_line(rec) == "no-such-system [2 1] = 1 Failure"
    assert _text(render_record(rec)).splitlines() == ["no-such-system  1  Failure", "dice: 2 1"]


def test_the_renderer_names_no_system():
    from pathlib import Path

    import gmdesk.core.render as render
    from gmdesk.core.systems import BUILTIN_IDS

    source = Path(render.__file__).read_text(encoding="utf-8")
    assert [s for s in BUILTIN_IDS if s in source] == []


def test_each_system_declares_how_its_record_reads():
    from gmdesk.core.odds import Odds
    from gmdesk.core.oddstable import distribution_rows
    from gmdesk.core.render import log_dice_text, opponent_brief
    from gmdesk.core.systems import get_spec

    # signed headline or plain total, as declared
    assert [get_spec(s).signed for s in ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6")] == [
        True,
        True,
        False,
        True,
        False,
    ]
    # an attack's dice named by the system's dice_labels
    m = get_system("1d6x4")
    rec = m.roll(m.Params(bonus=3, vs_bonus=1, combat=True), FixedDice([5, 2, 4]))
    assert log_dice_text(rec).plain == "attack 5 | defense 2 | damage 4"
    assert opponent_brief(rec).startswith("vs ")
    # the odds of an open-ended roll fold their tails where the system says
    torg = get_system("torg-2d10")
    rows = distribution_rows(torg.odds(torg.Params()))
    assert rows[0][0] == "≤ −20" and rows[-1][0] == "≥ +20"
    odd = Odds.from_dist("no-such-system", {}, {-1: 1, 1: 1})  # unknown: plain values, nothing folded
    assert [label for label, _ in distribution_rows(odd)] == ["-1", "1"]


def test_a_roll_filled_from_characters_says_so_in_its_breakdown(tmp_path):
    from gmdesk.core.dice import RollRecord
    from gmdesk.core.session import Session, SessionStore

    with Session.open(SessionStore(tmp_path / "saves").create("Torg", "torg-2d10")) as s:

        def add(name, **kw):
            return s.apply({"type": "character.add", "character": {"name": name, **kw}}).data["id"]

        quin = add("Quin", fields={"stats": {"Fire Combat": 13}, "attack": "Fire Combat"})
        trooper = add("Trooper", side="NPC", fields={"stats": {"Dodge": 11}})
        e = s.roll("torg-2d10", {}, actor=quin, target=trooper, combat=True, rng=FixedDice([5, 3]))
    lines = _text(render_record(RollRecord.from_json(e.data["record"]))).splitlines()
    assert "Skill value 13 — Quin's Fire Combat" in lines
    assert "Difficulty 11 — Trooper's Dodge" in lines
