"""The members of the contract a plug-in had not yet used — the roll's sources,
session defaults, the sheet readers and uses, the initiative's word, modifier and
automatic failure, a check across parameters, a declared distribution and a table
role of its own — declared by a plug-in installed by entry point (``kit``,
:mod:`kit_plugin`) do for it on the command line exactly what they do for the
built-in that uses them; and the named moves (``Session.spend_possibility``,
``cancel_possibility``, ``heal``) are found in any installed system that declares them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from coin_plugin import registered
from helpers import gmdesk_cli, make_save, one_error_line, saved
from kit_plugin import OMENS, kit_site
from plugin_site import plugin_site

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session
from gmdesk.core.systems import get_spec

#: Ann's sheet: a Trick with uses, one without
SHEET = "Descriptor        Default   Current\nLucky Charm       +2 (2)\nOld Hat           +1\n"


@pytest.fixture
def kit(tmp_path: Path) -> Iterator[None]:
    with registered(kit_site(tmp_path)):
        yield


def table(tmp_path: Path, **chars: dict) -> tuple[Path, dict[str, str]]:
    """A kit session with Ann (Knacks Kick 2, Dodge 1; Speed 2; the sheet) and Bob
    (Knacks Block 1), each with more of ``chars``."""
    ann = {"name": "Ann", "sheet": SHEET, "fields": {"knacks": {"Kick": 2, "Dodge": 1}, "speed": 2}}
    bob = {"name": "Bob", "side": "NPC", "fields": {"knacks": {"Block": 1}}}
    return make_save(tmp_path, "kit", [{**ann, **chars.get("Ann", {})}, {**bob, **chars.get("Bob", {})}])


def rolled(capsys, saves: Path, *args: str) -> dict:
    rc, out, err = gmdesk_cli(capsys, saves, "roll", "kit", *args, "--seed", "3", "--json")
    assert rc == 0, err
    return json.loads(out.splitlines()[-1])


@pytest.mark.usefixtures("kit")
def test_the_roll_s_sources_fill_its_params_from_the_command_line_as_4d2_s(tmp_path: Path, capsys) -> None:
    """``ROLL_SOURCES`` / ``sources_params``: the roller's Knacks against the target's
    make ``edge``, said where they came from as 4d2's shift ("Vex's Pistol +2 …")."""
    path, ids = table(tmp_path)
    record = rolled(capsys, path.parent, "--save", "Table", "--as", "Ann", "--at", "Bob")
    assert record["params"]["edge"] == 2  # Kick 2 + Dodge 1 − Block 1
    assert record["from"]["edge"] == "Ann's Kick +2, Dodge +1; Bob's Block +1"
    typed = rolled(capsys, path.parent, "--save", "Table", "--as", "Ann", "--at", "Bob", "--edge", "-1")
    assert typed["params"]["edge"] == -1  # a typed value wins


@pytest.mark.usefixtures("kit")
def test_session_defaults_fill_from_the_roller_s_conditions_as_torg_s_up(tmp_path: Path, capsys) -> None:
    path, ids = table(tmp_path)
    assert rolled(capsys, path.parent, "--save", "Table", "--as", "Ann")["params"]["bold"] is False
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Ann"], "name": "Bold"})
    assert rolled(capsys, path.parent, "--save", "Table", "--as", "Ann")["params"]["bold"] is True


@pytest.mark.usefixtures("kit")
def test_a_named_trick_is_read_on_the_sheet_and_spends_its_use_as_1d6x4_s_test(tmp_path: Path, capsys) -> None:
    """``read_sheets`` (the typed ``--trick``), ``read_filled`` (the Pet trick field)
    and ``roll_uses`` (one use of it spent on the sheet, with the roll), by hooks that
    take no ``items``."""
    path, ids = table(tmp_path)
    record = rolled(capsys, path.parent, "--save", "Table", "--as", "Ann", "--trick", "Lucky Charm")
    assert (record["params"]["trick"], record["params"]["trick_bonus"]) == ("Lucky Charm", 2)
    assert saved(path).characters[ids["Ann"]].sheet.uses("Lucky Charm") == 1
    with Session.open(path) as s:
        s.apply({"type": "character.fields", "id": ids["Ann"], "set": {"pet_trick": "Old Hat"}})
    record = rolled(capsys, path.parent, "--save", "Table", "--as", "Ann")
    assert (record["params"]["trick"], record["params"]["trick_bonus"]) == ("Old Hat", 1)
    assert saved(path).characters[ids["Ann"]].sheet.uses("Lucky Charm") == 1  # no uses: none spent


@pytest.mark.usefixtures("kit")
def test_its_check_refuses_as_a_built_in_s_params_do(tmp_path: Path, capsys) -> None:
    rc, out, err = gmdesk_cli(capsys, tmp_path, "roll", "kit", "--trick-bonus", "2")
    assert rc == 2 and out == ""
    one_error_line(err, "--trick-bonus", "a Trick bonus needs a Trick")


@pytest.mark.usefixtures("kit")
def test_odds_plot_draws_its_declared_distribution(tmp_path: Path, capsys) -> None:
    """``result_distribution``: the curve goes on past where its odds stop (their tail)."""
    spec = get_spec("kit")
    odds = spec.odds(spec.Params(), None)
    rc, out, err = gmdesk_cli(capsys, tmp_path, "odds", "kit", "--plot", "exact", "--json")
    assert rc == 0, err
    curve = json.loads(out)
    values = [row["high"] for row in curve["rows"] if row["p"]]
    assert max(values) == 6 * 5 + 5 > max(v for v, _ in odds.distribution) == 6 * 2 + 5


@pytest.mark.usefixtures("kit")
def test_its_own_table_role_is_replaced_by_table_on_the_command_line(tmp_path: Path, capsys) -> None:
    assert rolled(capsys, tmp_path)["omen"] in ("Crows", "Larks")
    mine = tmp_path / "omens.json"
    mine.write_text(json.dumps({**OMENS, "name": "my-omens", "bands": [{"lo": None, "hi": None, "value": "Owls"}]}))
    assert rolled(capsys, tmp_path, "--table", f"kit-omens={mine}")["omen"] == "Owls"


@pytest.mark.usefixtures("kit")
def test_initiative_on_the_command_line_takes_its_word_its_modifier_and_its_failure(tmp_path: Path, capsys) -> None:
    """``parse_initiative`` (``Ann=Swift`` as fudge's ``=Great``), ``initiative_modifier``
    (Speed) and ``INITIATIVE_FAILS`` (Stunned) in ``gmdesk char … initiative``."""
    path, ids = table(tmp_path)
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Bob"], "name": "Stunned"})
    rc, out, err = gmdesk_cli(capsys, path.parent, "char", "Table", "initiative", "Ann=Swift")
    assert rc == 0, err
    assert saved(path).encounter.order[0].initiative == 5
    rc, out, err = gmdesk_cli(capsys, path.parent, "char", "Table", "initiative", "Ann", "Bob", "--seed", "1")
    assert rc == 0, err
    state = saved(path)
    ann = next(r for r in state.rolls if r.kind == "initiative" and r.actor == ids["Ann"])
    assert ann.record.params["modifier"] == 2
    bob = next(r for r in state.rolls if r.kind == "initiative" and r.actor == ids["Bob"])
    assert bob.record.get("auto_fail") == "Stunned"
    assert [x.char_id for x in state.encounter.order] == [ids["Ann"], ids["Bob"]]
    rc, out, err = gmdesk_cli(capsys, path.parent, "char", "Table", "initiative", "Ann=Sluggish")
    assert rc == 2
    one_error_line(err, "Ann's initiative", "a number, or Slow, Steady or Swift")


# --------------------------------------------------------------------------- the named moves


def test_the_named_moves_are_those_of_the_installed_system_that_declares_them(tmp_path: Path) -> None:
    """``Session.spend_possibility`` / ``cancel_possibility`` / ``heal`` looked for their
    move among the built-ins only (torg-2d10's refused the plug-in's roll, 1d6x4's heal
    asked for a descriptor sheet): they take the move of the roll's system, the session's,
    or any installed system that declares it, with its own rule."""
    from test_plugin_parity import LUCK, MEND

    luck = LUCK.replace('"luck_spend"', '"spend_possibility"').replace('"luck_cancel"', '"cancel_possibility"')
    mend = MEND.replace('"mend_patch"', '"heal"')
    with registered(plugin_site(tmp_path, "luck", luck), plugin_site(tmp_path, "mend", mend)):
        path, ids = make_save(
            tmp_path,
            "luck",
            [
                {"name": "Kara", "reality_rated": True, "possibilities": 3},
                {"name": "Baron", "side": "NPC", "reality_rated": True, "possibilities": 2},
            ],
        )
        kara, baron = ids["Kara"], ids["Baron"]
        with Session.open(path) as s:
            s.roll("luck", get_spec("luck").Params(sides=6), kara, rng=FixedDice([2]))
            seq = s.state.rolls[-1].seq
            s.spend_possibility(kara, seq, rng=FixedDice([4]))  # luck's rule: a d6 added
            assert s.state.roll_entry(seq).record.value == 6
            assert s.state.characters[kara].possibilities == 2
            s.cancel_possibility(baron, seq)
            assert s.state.roll_entry(seq).record.value == 2  # the spent die gone, and Baron's Possibility
            assert (s.state.characters[kara].possibilities, s.state.characters[baron].possibilities) == (2, 1)
        two = [{"name": "Ann", "vitality": 5}, {"name": "Bob", "vitality": 6}]
        path, ids = make_save(tmp_path, "mend", two, name="Mend")
        with Session.open(path) as s:
            s.apply({"type": "character.edit", "id": ids["Bob"], "fields": {"vitality_current": 1}})
            s.heal(ids["Ann"], ids["Bob"], rng=FixedDice([3]))  # d4 + 1, no descriptor sheet
            assert s.state.characters[ids["Bob"]].vitality_current == 5
            s.apply({"type": "character.status", "id": ids["Bob"], "status": "dead"})
            with pytest.raises(EventError, match="the Dead stay dead"):
                s.heal(ids["Ann"], ids["Bob"], rng=FixedDice([3]))


def test_a_typed_initiative_on_the_command_line_is_read_as_the_desk_reads_it_for_a_built_in_too(
    tmp_path: Path, capsys
) -> None:
    """fudge's ``parse_initiative``: ``Ann=Great`` is +2, as the desk's initiative dialog takes it."""
    path, ids = make_save(tmp_path, "fudge", [{"name": "Ann"}])
    rc, out, err = gmdesk_cli(capsys, path.parent, "char", "Table", "initiative", "Ann=Great")
    assert rc == 0, err
    assert saved(path).encounter.order[0].initiative == 2
