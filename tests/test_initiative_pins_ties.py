"""Pinned turns and tie-break rules (issue 23, points 2 and 4), in the session: a
pinned entry (a lair, the environment) keeps its number when initiative is rolled
again each round or for all, until released; equal initiatives go by the session's
setting "Initiative ties" — keep order (RULES.md, the default), higher modifier,
PCs first, or roll off (logged, until apart). Undoable, replayed as they were
decided, carried to the next night. Real store, fixed dice."""

from __future__ import annotations

import random

import pytest
from coin_plugin import registered
from helpers import four_d6, gmdesk_cli, one_error_line, open_session, same_as_replay
from plugin_site import plugin_site

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.export import export
from gmdesk.core.session.settings import SettingError, defaults_for, parse_assignment


def table(store: SessionStore, *names: str, system: str = "4d6", **settings) -> tuple[Session, dict[str, str]]:
    """A session of ``system`` with these characters (Kara and Quinn PCs, the rest NPCs)."""
    return open_session(store, *names, system=system, **settings)


def order(s: Session) -> list[tuple[str, int]]:
    return [(s.state.characters[x.char_id].name, x.initiative) for x in s.state.encounter.order]


# ------------------------------------------------------------------ pinned turns


def test_a_pinned_entry_keeps_its_number_through_a_reroll_round_and_unpinning_releases_it(store):
    s, ids = table(store, "Kara", "Gospog", "Lair", reroll_initiative=True)
    with s:
        ev = s.roll_initiative([ids["Lair"]], values={ids["Lair"]: 20}, pins={ids["Lair"]: True})
        assert ev.summary == "Initiative: Lair 20 (pinned)"
        s.roll_initiative([ids["Kara"], ids["Gospog"]], FixedDice(four_d6(14, 9)))
        assert order(s) == [("Lair", 20), ("Kara", 14), ("Gospog", 9)]
        for _ in range(3):
            s.next_turn()
        ev = s.next_turn(FixedDice(four_d6(23, 22)))  # round 2: Kara and Gospog roll again, the lair does not
        assert [e["id"] for e in ev.data["initiative"]] == [ids["Kara"], ids["Gospog"]]
        assert order(s) == [("Kara", 23), ("Gospog", 22), ("Lair", 20)]
        assert s.state.characters[ids["Lair"]].pin == 20
        # released: the next round rolls it like everyone else
        ev = s.roll_initiative([ids["Lair"]], pins={ids["Lair"]: False})
        assert "Lair: initiative no longer pinned (it keeps 20 until initiative is rolled again)" in ev.changes
        assert s.state.characters[ids["Lair"]].pin is None
        s.new_round(FixedDice(four_d6(4, 5, 6)))
        assert order(s) == [("Lair", 6), ("Gospog", 5), ("Kara", 4)]
        same_as_replay(s)


def test_pinning_where_it_stands_undo_and_rolling_for_all(store):
    s, ids = table(store, "Kara", "Lair")
    with s:
        s.roll_initiative([ids["Kara"], ids["Lair"]], FixedDice(four_d6(10, 15)))
        ev = s.roll_initiative([ids["Lair"]], pins={ids["Lair"]: True})  # no number: where it stands
        assert ev.summary == "Initiative: Lair pinned at 15" and not s.state.rolls[-1].seq == ev.seq
        # initiative for all: the pinned entry is not rolled, the others are
        ev = s.roll_initiative([ids["Kara"], ids["Lair"]], FixedDice(four_d6(18)))
        assert [e["id"] for e in ev.data["entries"]] == [ids["Kara"]]
        assert order(s) == [("Kara", 18), ("Lair", 15)]
        # a typed number moves the pin
        s.roll_initiative([ids["Lair"]], values={ids["Lair"]: 19})
        assert s.state.characters[ids["Lair"]].pin == 19 and order(s)[0] == ("Lair", 19)
        s.undo()
        s.undo()
        s.undo()
        assert s.state.characters[ids["Lair"]].pin is None and order(s) == [("Lair", 15), ("Kara", 10)]
        s.redo()
        assert s.state.characters[ids["Lair"]].pin == 15


def test_what_a_pin_refuses(store):
    s, ids = table(store, "Kara", "Lair")
    with s:
        with pytest.raises(EventError, match="not in the encounter: give the initiative to pin it at"):
            s.apply({"type": "initiative.set", "entries": [{"id": ids["Lair"], "pin": True}]})
        with pytest.raises(EventError, match="Lair's initiative is not pinned"):
            s.roll_initiative([ids["Lair"]], pins={ids["Lair"]: False})
        s.roll_initiative([ids["Lair"]], values={ids["Lair"]: 20}, pins={ids["Lair"]: True})
        with pytest.raises(EventError, match="pinned at 20: unpin it to roll it"):
            s.roll_initiative([ids["Lair"]])
        record = s.initiative_record(ids["Lair"], random.Random(1)).to_json()
        with pytest.raises(EventError, match="pinned at 20: unpin it to roll it"):
            s.apply({"type": "initiative.set", "entries": [{"id": ids["Lair"], "value": 3, "record": record}]})
        s.roll_initiative([ids["Kara"]], values={ids["Kara"]: 4})
        s.next_turn()
        with pytest.raises(EventError, match="pinned at 20"):
            s.apply({"type": "round.new", "initiative": [{"id": ids["Lair"], "value": 3, "record": record}]})
        assert order(s) == [("Lair", 20), ("Kara", 4)]


def test_a_pinned_character_joins_at_its_pin_and_the_pin_carries_to_the_next_night(store):
    s, ids = table(store, "Kara", "Lair")
    with s:
        s.roll_initiative([ids["Lair"]], values={ids["Lair"]: 20}, pins={ids["Lair"]: True})
        s.apply({"type": "encounter.end"})
        s.join_encounter(ids["Lair"])  # no roll: at its pin
        assert order(s) == [("Lair", 20)] and not [r for r in s.state.rolls if r.actor == ids["Lair"]]
        name = s.state.info.name
    got = store.next_night(name, "Night 2", npcs=["Lair"])
    assert any("initiative pinned at 20" in line for line in Session.open(got.path, readonly=True).events[0].changes)
    with Session.open(got.path) as s2:
        lair = s2.character("Lair")
        assert lair.pin == 20
        s2.roll_initiative([lair.id, s2.character("Kara").id], FixedDice(four_d6(12)))
        assert order(s2) == [("Lair", 20), ("Kara", 12)]


def test_a_pin_survives_reopening_from_the_checkpoint_and_so_do_the_rolls_of_a_round(store, monkeypatch):
    """Reopened from its checkpoint (every event older than the undo it keeps), the
    pin is there and every initiative roll of a round rolled again reads back."""
    monkeypatch.setattr(Session, "UNDO_KEPT", 0)
    s, ids = table(store, "Kara", "Lair", reroll_initiative=True)
    with s:
        s.roll_initiative([ids["Lair"]], values={ids["Lair"]: 20}, pins={ids["Lair"]: True})
        s.roll_initiative([ids["Kara"]], FixedDice(four_d6(12)))
        s.next_turn()
        s.next_turn()
        s.next_turn(FixedDice(four_d6(16)))
        path, before = s.path, [r.record.value for r in s.state.rolls]
    with Session.open(path, readonly=True) as again:
        assert again._ckpt_seq > 0  # from the checkpoint, not a replay
        assert again.state.characters[ids["Lair"]].pin == 20
        assert [r.record.value for r in again.state.rolls] == before == [12, 16]


# ------------------------------------------------------------------ tie-break rules


def test_ties_keep_the_earlier_entry_by_default(store):
    s, ids = table(store, "Gospog", "Kara")
    with s:
        assert s.state.info.settings["initiative_ties"] == "keep order"
        ev = s.roll_initiative([ids["Gospog"], ids["Kara"]], FixedDice(four_d6(12, 12)))
        assert "ties" not in ev.data
        assert order(s) == [("Gospog", 12), ("Kara", 12)]


def test_higher_modifier_first(store):
    s, ids = table(store, "Gospog", "Kara", initiative_ties="higher modifier")
    with s:
        # Gospog 12 with +0, Kara 10 + 2 = 12: Kara's modifier is higher
        ev = s.roll_initiative(
            [ids["Gospog"], ids["Kara"]], FixedDice(four_d6(12, 10)), modifiers={ids["Gospog"]: 0, ids["Kara"]: 2}
        )
        assert order(s) == [("Kara", 12), ("Gospog", 12)]
        assert "Tie at 12 (higher modifier): Kara, Gospog" in ev.changes
        same_as_replay(s)


def test_player_characters_first(store):
    s, ids = table(store, "Gospog", "Kara", "Thug", initiative_ties="PCs first")
    with s:
        s.roll_initiative([ids["Gospog"], ids["Thug"]], values={ids["Gospog"]: 9, ids["Thug"]: 9})
        assert order(s) == [("Gospog", 9), ("Thug", 9)]  # two NPCs: as they came
        s.join_encounter(ids["Kara"], value=9)  # joins the tie: a PC goes first
        assert order(s) == [("Kara", 9), ("Gospog", 9), ("Thug", 9)]


def test_a_roll_off_rolls_the_tied_again_until_apart_logged_in_the_log_and_the_chronicle(store):
    s, ids = table(store, "Gospog", "Kara", "Thug", "Quinn", initiative_ties="roll off")
    with s:
        quinn = s.roll_initiative([ids["Quinn"]], values={ids["Quinn"]: 3})
        ev = s.roll_initiative(
            [ids["Gospog"], ids["Kara"], ids["Thug"]],
            # all three roll 12; the roll-off: 10, 10, 5; again for the two still tied: 7, 20
            FixedDice(four_d6(12, 12, 12) + four_d6(10, 10, 5) + four_d6(7, 20)),
        )
        assert order(s) == [("Kara", 12), ("Gospog", 12), ("Thug", 12), ("Quinn", 3)]
        (tie,) = ev.data["ties"]
        assert [len(r) for r in tie["rolls"]] == [3, 2]
        offs = [r for r in s.state.rolls if r.seq == ev.seq][3:]
        assert [(r.actor_name, r.record.value) for r in offs] == [
            ("Gospog", 10),
            ("Kara", 10),
            ("Thug", 5),
            ("Gospog", 7),
            ("Kara", 20),
        ]
        assert all(r.kind == "initiative" for r in offs)
        assert "Kara: roll-off 2 for the tie at 12: 20" in ev.changes
        assert ev.changes[-1] == "Tie at 12 (roll off): Kara, Gospog, Thug"
        chronicle = export(s.state, "md", s.events, header=s.header)
        assert "roll-off 2 for the tie at 12: 20" in chronicle
        same_as_replay(s)
        s.undo()
        assert order(s) == [("Quinn", 3)] and s.state.rolls == []
        assert "ties" not in quinn.data


def test_a_round_rolled_again_settles_its_ties_too_and_a_seed_gives_the_same_roll_off(store):
    s, ids = table(store, "Gospog", "Kara", "Lair", initiative_ties="roll off", reroll_initiative=True)
    with s:
        s.roll_initiative([ids["Lair"]], values={ids["Lair"]: 12}, pins={ids["Lair"]: True})
        s.roll_initiative([ids["Gospog"], ids["Kara"]], FixedDice(four_d6(5, 6)))
        for _ in range(3):
            s.next_turn()
        # round 2: both roll 12, tied with the pinned lair: all three roll off (Lair 9, Kara 4, Gospog 16)
        ev = s.next_turn(FixedDice(four_d6(12, 12, 9, 4, 16)))
        assert [t["order"] for t in ev.data["ties"]] == [[ids["Gospog"], ids["Lair"], ids["Kara"]]]
        assert order(s) == [("Gospog", 12), ("Lair", 12), ("Kara", 12)]
        assert s.state.encounter.current.char_id == ids["Gospog"]  # the round starts with the first
        assert s.state.characters[ids["Lair"]].pin == 12
        same_as_replay(s)

    def seeded() -> list:
        s, ids = table(store, "Gospog", "Kara", initiative_ties="roll off")
        with s:
            ev = s.roll_initiative(
                [ids["Gospog"], ids["Kara"]], random.Random(7), values=dict.fromkeys(ids.values(), 9)
            )
            return ev.data["ties"]

    assert seeded() == seeded()


def test_the_setting_from_the_command_line_and_its_words(capsys, tmp_path):
    saves = tmp_path / "saves"
    code, out, err = gmdesk_cli(
        capsys, saves, "new", "Night 1", "--system", "4d2", "--setting", "initiative_ties=roll-off"
    )
    assert code == 0, err
    assert "Initiative ties roll off" in out
    with Session.open(SessionStore(saves).resolve("Night 1"), readonly=True) as s:
        assert s.state.info.settings["initiative_ties"] == "roll off"
    assert parse_assignment("initiative ties=PCs-first") == ("initiative_ties", "PCs first")
    code, out, err = gmdesk_cli(capsys, saves, "new", "Night 2", "--setting", "initiative_ties=dexterity")
    assert code == 2
    one_error_line(err, "Initiative ties", "keep order, higher modifier, PCs first, roll off")
    assert [x.name for x in SessionStore(saves).list()] == ["Night 1"]
    # the next night keeps it
    code, out, err = gmdesk_cli(capsys, saves, "new", "Night 3", "--from", "Night 1")
    assert code == 0, err
    with Session.open(SessionStore(saves).resolve("Night 3"), readonly=True) as s:
        assert s.state.info.settings["initiative_ties"] == "roll off"


def test_changing_the_setting_is_an_undoable_event_and_a_bad_value_is_refused(store):
    s, ids = table(store, "Gospog", "Kara")
    with s:
        ev = s.apply({"type": "session.settings", "changes": {"initiative_ties": "PCs first"}})
        assert ev.changes == ["Initiative ties: keep order → PCs first"]
        with pytest.raises(EventError, match="initiative_ties: must be one of keep order"):
            s.apply({"type": "session.settings", "changes": {"initiative_ties": "highest"}})
        s.undo()
        assert s.state.info.settings["initiative_ties"] == "keep order"


def test_a_system_declares_its_default_as_a_typed_member(tmp_path, store):
    with registered(plugin_site(tmp_path, "tdie", 'INITIATIVE_TIES = "roll off"\n')):
        assert defaults_for("tdie")["initiative_ties"] == "roll off"
        assert defaults_for("4d2")["initiative_ties"] == "keep order"
        s = Session.open(store.create("Plug", "tdie"))
        with s:
            assert s.state.info.settings["initiative_ties"] == "roll off"
    bad = plugin_site(tmp_path / "bad", "tbad", 'INITIATIVE_TIES = "dexterity"\n')
    with registered(bad):
        from gmdesk.core.systems import plugin_failure

        assert "INITIATIVE_TIES must be one of 'keep order'" in (plugin_failure("tbad") or "")
    with pytest.raises(SettingError):
        parse_assignment("initiative_ties=")


# ------------------------------------------------------------------ the command line


def test_pin_and_unpin_from_the_command_line(capsys, tmp_path):
    saves = tmp_path / "saves"
    cli = lambda *args: gmdesk_cli(capsys, saves, *args)  # noqa: E731
    assert cli("new", "T", "--system", "4d6", "--setting", "reroll_initiative=on")[0] == 0
    for name, side in (("Kara", "PC"), ("Lair", "NPC")):
        assert cli("char", "T", "add", name, "--side", side)[0] == 0
    code, out, err = cli("char", "T", "initiative", "Lair=20", "--pin")
    assert (code, out.splitlines()[0]) == (0, "Initiative: Lair 20 (pinned)"), err
    assert cli("char", "T", "initiative", "Kara=12")[0] == 0
    path = SessionStore(saves).resolve("T")
    with Session.open(path) as s:
        s.next_turn()
        s.next_turn()
        s.next_turn(FixedDice(four_d6(23)))  # round 2: Kara rolls again, the lair stays at 20
        assert order(s) == [("Kara", 23), ("Lair", 20)]
    # bad input: one line in the GM's words, exit 2, nothing saved
    before = path.read_bytes(), path.with_name(path.name + ".journal").read_bytes()
    for args, words in (
        (("Lair",), ("Lair's initiative is pinned at 20", "unpin it")),
        (("Lair", "--pin"), ("already pinned at 20",)),
        (("Lair=high", "--pin"), ("Lair's initiative", "whole number")),
        (("Nobody", "--pin"), ("no character 'Nobody'",)),
    ):
        code, out, err = cli("char", "T", "initiative", *args)
        assert code == 2 and out == "", (args, out)
        one_error_line(err, *words)
    code, out, err = cli("char", "T", "initiative", "Lair", "--pin", "--unpin")
    assert code == 2 and "not allowed with" in err and err.count("\n") == 1
    assert (path.read_bytes(), path.with_name(path.name + ".journal").read_bytes()) == before
    code, out, err = cli("char", "T", "initiative", "Lair", "--unpin")
    assert code == 0 and "Lair: initiative no longer pinned (it keeps 20" in out, err
    code, out, err = cli("char", "T", "initiative", "Lair", "--unpin")
    assert (code, out) == (0, "Nothing changed: Lair is not pinned\n")
    code, out, err = cli("char", "T", "initiative", "Lair", "--pin")  # where it stands
    assert code == 0 and out.startswith("Initiative: Lair pinned at 20"), err
    with Session.open(path, readonly=True) as s:
        assert s.character("Lair").pin == 20
    code, out, err = cli("char", "T", "show", "Lair")
    assert code == 0 and "NPC, organic; ok; initiative pinned at 20" in out, err


def test_a_roll_off_from_the_command_line_is_the_same_under_the_same_seed(capsys, tmp_path):
    saves = tmp_path / "saves"
    outs = []
    for night in ("A", "B"):
        assert gmdesk_cli(capsys, saves, "new", night, "--setting", "initiative_ties=roll-off")[0] == 0
        for name in ("Kara", "Gospog"):
            assert gmdesk_cli(capsys, saves, "char", night, "add", name)[0] == 0
        code, out, err = gmdesk_cli(capsys, saves, "char", night, "initiative", "Kara=9", "Gospog=9", "--seed", "4")
        assert code == 0, err
        assert "roll-off for the tie at 9" in out and "Tie at 9 (roll off)" in out
        outs.append(out)
    assert outs[0] == outs[1]


def test_copies_from_the_bestiary_settle_their_ties_too(store):
    from gmdesk.core.campaign.copies import add_from_event
    from gmdesk.core.campaign.statblock import StatBlock

    s, ids = table(store, "Kara", initiative_ties="PCs first")
    with s:
        s.roll_initiative([ids["Kara"]], values={ids["Kara"]: 12})
        block = StatBlock("Gospog", "4d6", vitality=6)
        rng = FixedDice(four_d6(12, 12))
        ev = s.apply_placing(add_from_event(s, block, 2, rng), rng)
        assert order(s) == [("Kara", 12), ("Gospog 1", 12), ("Gospog 2", 12)]  # the PC was first already
        s.apply({"type": "session.settings", "changes": {"initiative_ties": "roll off"}})
        # two more copies at 12: all five roll off (Kara 5, Gospog 1 9, 2 20, 3 4, 4 7)
        rng = FixedDice(four_d6(12, 12, 5, 9, 20, 4, 7))
        ev = s.apply_placing(add_from_event(s, block, 2, rng), rng)
        assert [name for name, _ in order(s)] == ["Gospog 2", "Gospog 1", "Gospog 4", "Kara", "Gospog 3"]
        assert ev.data["ties"][0]["rule"] == "roll off"
        same_as_replay(s)


def test_an_earlier_save_keeps_its_order_and_plays_on_with_pins_and_ties(tmp_path):
    """A save written before pins and tie rules opens as it was (no pin, ties in
    order: it has no setting) and takes both from then on."""
    import shutil
    from pathlib import Path

    earlier = Path(__file__).resolve().parent / "data" / "earlier"
    for f in earlier.glob("4d6 before.gmdesk*"):
        shutil.copy(f, tmp_path / f.name)
    with Session.open(tmp_path / "4d6 before.gmdesk") as s:
        assert all(c.pin is None for c in s.state.characters.values())
        assert "initiative_ties" not in s.state.info.settings
        a, b = list(s.state.characters)[:2]
        ev = s.roll_initiative([a, b], values={a: 7, b: 7})
        assert "ties" not in ev.data and [x.char_id for x in s.state.encounter.order] == [a, b]
        s.roll_initiative([b], pins={b: True})
        s.apply({"type": "session.settings", "changes": {"initiative_ties": "PCs first"}})
        assert s.state.characters[b].pin == 7 and [x.char_id for x in s.state.encounter.order] == [a, b]
        same_as_replay(s)


def test_who_cannot_act_rolls_nothing_in_a_roll_off_and_goes_after(store):
    s, ids = table(store, "Gospog", "Thug", "Kara")
    with s:
        s.roll_initiative([ids["Gospog"], ids["Thug"]], values={ids["Gospog"]: 9, ids["Thug"]: 9})
        s.apply({"type": "character.status", "id": ids["Gospog"], "status": "unconscious"})
        s.apply({"type": "session.settings", "changes": {"initiative_ties": "roll off"}})
        ev = s.join_encounter(ids["Kara"], FixedDice(four_d6(10, 20)), value=9)  # Thug 10, Kara 20
        (tie,) = ev.data["ties"]
        assert [[e["id"] for e in r] for r in tie["rolls"]] == [[ids["Thug"], ids["Kara"]]]
        assert order(s) == [("Kara", 9), ("Thug", 9), ("Gospog", 9)]
        same_as_replay(s)


def test_a_fudge_initiative_reads_as_its_ladder_word_in_the_log_and_the_refusals(store):
    """fudge words an initiative as its ladder (its declaration's ``show_initiative``):
    the log's change lines, the summaries and the refusals say "Great", as the desk's
    initiative column and the roll log do, where a system of plain numbers says 2."""
    s, ids = table(store, "Kara", "Lair", system="fudge")
    with s:
        ev = s.roll_initiative([ids["Lair"]], values={ids["Lair"]: 2}, pins={ids["Lair"]: True})
        assert ev.summary == "Initiative: Lair Great (pinned)"
        assert "Lair: initiative Great (pinned)" in ev.changes
        with pytest.raises(EventError, match="Lair's initiative is pinned at Great: unpin it to roll it"):
            s.roll_initiative([ids["Lair"]])
        ev = s.roll_initiative([ids["Lair"]], pins={ids["Lair"]: False})
        assert "Lair: initiative no longer pinned (it keeps Great until initiative is rolled again)" in ev.changes
        ev = s.roll_initiative([ids["Kara"]], values={ids["Kara"]: -1})
        assert "Kara: initiative Mediocre" in ev.changes
