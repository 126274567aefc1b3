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
