"""Rules the session applies (issue 7): torg re-reads and buy-off, 4d6 clocks, 1d6x4
Tests naming items and uses, and the effects every event lists. Fixed dice, real store."""

from __future__ import annotations

import pytest
from helpers import same_as_replay

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.offers import buyoff_choices, pending_clock_progress
from gmdesk.core.systems import get_system

TORG = get_system("torg-2d10")
CORE4D6 = get_system("4d6")
ONE_D6 = get_system("1d6x4")


@pytest.fixture
def store(tmp_path) -> SessionStore:
    return SessionStore(tmp_path / "saves")


def open_new(store: SessionStore, system: str) -> Session:
    return Session.open(store.create(f"Test {system}", system))


def add(s: Session, name: str, **kw) -> str:
    return s.apply({"type": "character.add", "character": {"name": name, **kw}}).data["id"]


# ---------------------------------------------------------------- torg: Disconnected re-read (point 1)


def test_possibility_lifts_a_non_combat_roll_out_of_disconnection_and_a_cancel_puts_it_back(store):
    with open_new(store, "torg-2d10") as s:
        kara = add(s, "Kara", reality_rated=True, possibilities=2)
        baron = add(s, "Baron", side="NPC", reality_rated=True, possibilities=1)
        # hot 9, cold 5 → −5: a 4-case contradiction disconnects at −4 or lower
        e = s.roll("torg-2d10", TORG.Params(skill=10, contradiction="4-case"), actor=kara, rng=FixedDice([9, 5]))
        seq = e.seq
        assert e.changes == ["Kara is Disconnected"]
        assert s.state.characters[kara].has_condition("Disconnected")
        # a Possibility die of 6: −5 + 6 = +1, out of the range: Disconnected comes off
        e = s.spend_possibility(kara, seq, rng=FixedDice([6]))
        assert s.state.roll_entry(seq).record.value == 1
        assert not s.state.characters[kara].has_condition("Disconnected")
        assert e.changes == [
            "Kara: Possibilities 2 → 1",
            f"Kara spends a Possibility on roll #{seq}: −5 → +1",
            "Kara is no longer Disconnected",
        ]
        assert "Kara is no longer Disconnected" in s.state.roll_entry(seq).changes
        same_as_replay(s)
        # the Baron cancels it: back to −5, Disconnected again
        e = s.cancel_possibility(baron, seq)
        assert s.state.roll_entry(seq).record.value == -5
        assert s.state.characters[kara].has_condition("Disconnected")
        assert e.changes[-1] == "Kara is Disconnected"
        same_as_replay(s)
        # undo the cancel, then the spend: exactly as before
        s.undo()
        assert not s.state.characters[kara].has_condition("Disconnected")
        s.undo()
        assert s.state.characters[kara].has_condition("Disconnected")
        same_as_replay(s)


def test_a_spend_that_stays_in_the_range_keeps_disconnected_without_a_new_line(store):
    with open_new(store, "torg-2d10") as s:
        kara = add(s, "Kara", reality_rated=True, possibilities=1)
        seq = s.roll("torg-2d10", TORG.Params(contradiction="4-case"), actor=kara, rng=FixedDice([9, 8])).seq
        e = s.spend_possibility(kara, seq, rng=FixedDice([1]))  # −8 + 1 = −7: still disconnected
        assert s.state.characters[kara].has_condition("Disconnected")
        assert not any("Disconnected" in c for c in e.changes)


# ---------------------------------------------------------------- 4d6: clock progress (point 4)


def test_a_roll_can_move_a_named_clock_by_its_own_progress(store):
    with open_new(store, "4d6") as s:
        renna = add(s, "Renna")
        s.apply({"type": "clock.add", "name": "Reach the vault", "segments": 4})
        # 6 6 5 4 + 0 = 21 against DC 16: Critical Success at Great effect stays Great: 2 segments
        e = s.roll(
            "4d6", CORE4D6.Params(effect="great"), actor=renna, rng=FixedDice([6, 6, 5, 4]), clock="Reach the vault"
        )
        assert s.state.clocks["Reach the vault"].halves == 4
        assert e.changes == ["Clock Reach the vault: 0 → 2 of 4 (+2 segments)"]
        assert s.state.roll_entry(e.seq).clock == "Reach the vault"
        assert pending_clock_progress(s.state) is None  # already applied
        # a Partial Success at Limited effect earns nothing, and says so
        e = s.roll(
            "4d6", CORE4D6.Params(effect="limited"), actor=renna, rng=FixedDice([4, 4, 4, 2]), clock="Reach the vault"
        )
        assert e.changes == ["Clock Reach the vault: no progress (Partial Success)"]
        same_as_replay(s)
        s.undo()
        s.undo()
        assert s.state.clocks["Reach the vault"].halves == 0
        with pytest.raises(EventError, match="no clock named"):
            s.roll("4d6", CORE4D6.Params(), actor=renna, rng=FixedDice([1, 1, 1, 1]), clock="Nope")


def test_the_next_tick_is_offered_the_latest_rolls_progress(store):
    with open_new(store, "4d6") as s:
        renna = add(s, "Renna")
        s.apply({"type": "clock.add", "name": "Suspicion", "segments": 6})
        assert pending_clock_progress(s.state) is None
        # 3 5 2 4 + 3 = 17 against the default DC 16: Full Success, Standard effect: 1 segment
        e = s.roll("4d6", CORE4D6.Params(bonus=3), actor=renna, rng=FixedDice([3, 5, 2, 4]))
        offer = pending_clock_progress(s.state)
        assert (offer.roll_seq, offer.halves, offer.effect) == (e.seq, 2, "standard")
        t = s.apply({"type": "clock.tick", "name": "Suspicion", "halves": offer.halves, "roll": offer.roll_seq})
        assert t.changes == [f"Clock Suspicion: 0 → 1 of 6 (+1 segment, roll #{e.seq})"]
        assert pending_clock_progress(s.state) is None
        with pytest.raises(EventError, match="already went to clock Suspicion"):
            s.apply({"type": "clock.tick", "name": "Suspicion", "halves": 2, "roll": e.seq})
        # a failure offers nothing
        s.roll("4d6", CORE4D6.Params(), actor=renna, rng=FixedDice([4, 4, 3, 2]))
        assert pending_clock_progress(s.state) is None
        same_as_replay(s)


# ---------------------------------------------------------------- torg buy-off (point 11)


def test_buyoff_takes_the_damage_just_taken_unless_an_older_wound_is_picked(store):
    with open_new(store, "torg-2d10") as s:
        kara = add(s, "Kara", reality_rated=True, possibilities=3)
        thug = add(s, "Thug", side="NPC")
        s.apply({"type": "encounter.add", "id": kara, "initiative": 10})
        s.apply({"type": "encounter.add", "id": thug, "initiative": 5})
        s.apply({"type": "turn.next"})
        # round 1: the Thug wounds Kara; round 2: Kara misses (−2), the Thug wounds her again
        first = s.roll(
            "torg-2d10",
            TORG.Params(skill=10, difficulty=10),
            actor=thug,
            target=kara,
            combat=True,
            rng=FixedDice([3, 5]),
        ).seq
        s.apply({"type": "round.new"})
        s.roll(
            "torg-2d10",
            TORG.Params(skill=10, difficulty=10),
            actor=kara,
            target=thug,
            combat=True,
            rng=FixedDice([1, 2]),
        )
        last = s.roll(
            "torg-2d10",
            TORG.Params(skill=10, difficulty=10),
            actor=thug,
            target=kara,
            combat=True,
            rng=FixedDice([7, 8]),
        ).seq
        wounds = [(w.text, w.roll_seq) for w in s.state.characters[kara].wounds]
        assert [q for _, q in wounds] == [first, last]
        choices = buyoff_choices(s.state, kara)
        assert [(c.index, c.latest) for c in choices] == [(1, True), (0, False)]
        assert choices[0].age == f"this round, the last roll (#{last})"
        assert choices[1].age == f"round 1, 2 rolls ago (#{first})"
        # no wound named: the latest one goes
        e = s.apply({"type": "damage.buyoff", "id": kara})
        assert e.data["wound"] == 1
        assert [w.roll_seq for w in s.state.characters[kara].wounds] == [first]
        assert e.changes[0] == "Kara: Possibilities 3 → 2 (buy-off)"
        same_as_replay(s)
        s.undo()
        # the GM picks the older one explicitly
        s.apply({"type": "damage.buyoff", "id": kara, "wound": 0})
        assert [w.roll_seq for w in s.state.characters[kara].wounds] == [last]
        same_as_replay(s)


def test_buyoff_without_a_pick_takes_only_the_last_rolls_damage(store):
    """The last roll against Kara missed: nothing to buy off (an older Stun is not
    taken instead); after a hit, a second buy-off does not take an older wound."""
    with open_new(store, "torg-2d10") as s:
        kara = add(s, "Kara", reality_rated=True, possibilities=3)
        thug = add(s, "Thug", side="NPC")
        attack = TORG.Params(skill=10, difficulty=10)
        s.roll("torg-2d10", attack, actor=thug, target=kara, combat=True, rng=FixedDice([3, 5]))  # a wound
        s.roll("torg-2d10", attack, actor=thug, target=kara, combat=True, rng=FixedDice([5, 2]))  # a miss (−2)
        n = len(s.events)
        with pytest.raises(EventError, match=r"last roll against Kara \(#\d+\) left no damage: nothing to buy off"):
            s.apply({"type": "damage.buyoff", "id": kara})
        assert len(s.events) == n and len(s.state.characters[kara].wounds) == 1
        assert s.state.characters[kara].possibilities == 3
        # a hit, bought off; a second buy-off finds nothing (the older wound stays)
        s.roll("torg-2d10", attack, actor=thug, target=kara, combat=True, rng=FixedDice([7, 8]))
        s.apply({"type": "damage.buyoff", "id": kara})
        assert len(s.state.characters[kara].wounds) == 1
        with pytest.raises(EventError, match="nothing to buy off"):
            s.apply({"type": "damage.buyoff", "id": kara})
        # the GM may still pick the older wound explicitly
        s.apply({"type": "damage.buyoff", "id": kara, "wound": 0})
        assert s.state.characters[kara].wounds == []
        same_as_replay(s)


# ---------------------------------------------------------------- 1d6x4: items and uses (points 5, 6, 32)

PIP = """Pip, a halfling
Descriptor        Default  Current
Precision         +1
Slingshot Expertise +2
Vitality          +3
Healing Ability   +0 (2)
Magic Ability     +2 (5)
  *Turn Invisible    (1)
"""

SLINGER_TEXT = SLINGER = """Wren
Descriptor        Default  Current
Precision         +1
Slingshot
  *Attack         +3
"""


def test_a_test_naming_a_missing_item_fails_in_the_session(store):
    with open_new(store, "1d6x4") as s:
        pip = add(s, "Pip", sheet=PIP)
        add(s, "Wren", sheet=SLINGER_TEXT)  # her sheet lists a Slingshot: a Physical Item
        # the seed's Precision+Slingshot Expertise+Slingshot Test, Pip has no Slingshot: no die is rolled
        params = ONE_D6.fill_from_sheets(
            ONE_D6.Params(test="Precision+Slingshot Expertise+Slingshot", target=12),
            s.state.characters[pip].sheet,
            items=s.sheet_items(),
        )
        e = s.roll("1d6x4", params, actor=pip, rng=FixedDice([]))
        rec = s.state.roll_entry(e.seq).record
        assert (rec.outcome, rec.get("success"), rec.dice) == ("Automatic failure: Slingshot is missing", False, ())


WITCH = """Kara, a witch
Descriptor        Default  Current
Magic Ability     +5 (2)
  *Turn Person to Frog (1)
"""


@pytest.mark.parametrize(
    "names",
    [
        "Magic Ability+Turn Person to Frog",
        "Turn Person to Frog+Magic Ability",
        "Magic Ability Turn Person to Frog",
        "Magic Ability/Turn Person to Frog",
        "Turn Person to Frog",
    ],
)
def test_every_way_of_naming_a_magic_use_spends_it_and_its_parent_once_and_adds_the_parent_once(store, names):
    with open_new(store, "1d6x4") as s:
        kara = add(s, "Kara", sheet=WITCH)
        # 4 × 3 + Magic Ability +5 = 17
        params = ONE_D6.fill_from_sheets(ONE_D6.Params(test=names, target=17), s.state.characters[kara].sheet)
        e = s.roll("1d6x4", params, actor=kara, rng=FixedDice([3]))
        rec = s.state.roll_entry(e.seq).record
        assert (rec.value, rec.outcome) == (17, "Success")
        sheet = s.state.characters[kara].sheet
        assert (sheet.uses("Magic Ability"), sheet.uses("Magic Ability/Turn Person to Frog")) == (1, 0)
        assert e.data["uses"] == [{"id": kara, "descriptor": "Magic Ability/Turn Person to Frog", "amount": 1}]
        same_as_replay(s)


def test_a_test_naming_a_use_spends_it_and_its_parents(store):
    with open_new(store, "1d6x4") as s:
        pip = add(s, "Pip", sheet=PIP)
        params = ONE_D6.fill_from_sheets(
            ONE_D6.Params(test="Magic Ability/Turn Invisible", target=10), s.state.characters[pip].sheet
        )
        e = s.roll("1d6x4", params, actor=pip, rng=FixedDice([3]))
        sheet = s.state.characters[pip].sheet
        assert (sheet.uses("Magic Ability/Turn Invisible"), sheet.uses("Magic Ability")) == (0, 4)
        assert e.changes == ["Pip: Magic Ability (5) → (4)", "Pip: Magic Ability/Turn Invisible (1) → (0)"]
        assert e.data["uses"] == [{"id": pip, "descriptor": "Magic Ability/Turn Invisible", "amount": 1}]
        same_as_replay(s)
        # used up: the next Test naming it fails automatically and spends nothing
        params = ONE_D6.fill_from_sheets(ONE_D6.Params(test="Magic Ability/Turn Invisible", target=10), sheet)
        assert params.auto_fail == "Magic Ability/Turn Invisible is at (0)"
        e = s.roll("1d6x4", params, actor=pip, rng=FixedDice([]))
        assert "uses" not in e.data and s.state.characters[pip].sheet.uses("Magic Ability") == 4
        s.undo()
        s.undo()
        assert s.state.characters[pip].sheet.uses("Magic Ability") == 5


def test_the_seeds_slingshot_attack_is_the_use_under_slingshot(store):
    with open_new(store, "1d6x4") as s:
        wren = add(s, "Wren", sheet=SLINGER)
        params = ONE_D6.fill_from_sheets(
            ONE_D6.Params(test="Slingshot Attack", target=15), s.state.characters[wren].sheet
        )
        assert (params.bonus, params.auto_fail) == (3, None)
        e = s.roll("1d6x4", params, actor=wren, rng=FixedDice([3]))  # 12 + 3 = 15
        assert s.state.roll_entry(e.seq).record.outcome == "Success"


def test_use_event_takes_a_parent_amount(store):
    with open_new(store, "1d6x4") as s:
        pip = add(s, "Pip", sheet=PIP)
        e = s.apply(
            {"type": "use", "id": pip, "descriptor": "Magic Ability/Turn Invisible", "amount": 1, "parent_amount": 3}
        )
        sheet = s.state.characters[pip].sheet
        assert (sheet.uses("Magic Ability/Turn Invisible"), sheet.uses("Magic Ability")) == (0, 2)
        assert e.changes == [
            "Pip uses Magic Ability/Turn Invisible",
            "Pip: Magic Ability (5) → (2)",
            "Pip: Magic Ability/Turn Invisible (1) → (0)",
        ]
        with pytest.raises(EventError, match="parent_amount"):
            s.apply({"type": "use", "id": pip, "descriptor": "Magic Ability", "parent_amount": -1})
        same_as_replay(s)


def test_heal_and_new_day_list_the_uses_they_change(store):
    with open_new(store, "1d6x4") as s:
        pip = add(s, "Pip", sheet=PIP)
        bruno = add(s, "Bruno", vitality=5)
        s.apply({"type": "character.edit", "id": bruno, "fields": {"vitality_current": 1}})
        e = s.heal(pip, bruno, rng=FixedDice([2]))
        assert e.changes == ["Pip: Healing Ability (2) → (1)", "Bruno: Vitality 1 → 3"]
        s.apply({"type": "sheet.set", "id": pip, "descriptor": "Precision", "current": -1})
        e = s.apply({"type": "day.new"})
        assert "Pip: Healing Ability (1) → (2)" in e.changes
        assert "Pip: Precision −1 → +1" in e.changes
        assert "Bruno: Vitality 3 → 5" in e.changes


def test_cli_roll_reads_the_test_from_the_sheet(store, capsys):
    import json

    from gmdesk.cli.main import main

    with open_new(store, "1d6x4") as s:
        add(s, "Pip", sheet=PIP)
        add(s, "Bruno", side="NPC", sheet="Bruno\nDescriptor  Default  Current\nDefense     +1\nVitality    +3\n")
        add(s, "Wren", sheet=SLINGER)  # her sheet lists a Slingshot: a Physical Item
    saves = str(store.dir)
    # the seed's attack without the Slingshot: fails automatically, no die rolled
    rc = main(
        [
            "--saves",
            saves,
            "roll",
            "1d6x4",
            "--test",
            "Precision+Slingshot Expertise+Slingshot",
            "--vs-test",
            "Defense",
            "--combat",
            "--save",
            "Test 1d6x4",
            "--as",
            "Pip",
            "--at",
            "Bruno",
            "--json",
            "--seed",
            "3",
        ]
    )
    assert rc == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["outcome"] == "Automatic failure: Slingshot is missing" and rec["dice"] == []
    assert rec["params"]["vs_bonus"] == 1 and rec["params"]["bonus"] == 3
    # without --as the names are only labels: nobody's sheet is read, nothing fails
    rc = main(
        [
            "--saves",
            saves,
            "roll",
            "1d6x4",
            "--test",
            "Precision+Slingshot",
            "--bonus",
            "2",
            "--save",
            "Test 1d6x4",
            "--json",
            "--seed",
            "3",
        ]
    )
    rec = json.loads(capsys.readouterr().out)
    assert rc == 0 and "auto_fail" not in rec and rec["params"]["bonus"] == 2
    # a Use named in the Test: found, and its uses spent with the roll
    rc = main(
        [
            "--saves",
            saves,
            "roll",
            "1d6x4",
            "--test",
            "Magic Ability Turn Invisible",
            "--target",
            "10",
            "--save",
            "Test 1d6x4",
            "--as",
            "Pip",
            "--json",
            "--seed",
            "3",
        ]
    )
    assert rc == 0
    capsys.readouterr()
    with Session.open(store.resolve("Test 1d6x4"), readonly=True) as s:
        sheet = s.character("Pip").sheet
        assert (sheet.uses("Magic Ability/Turn Invisible"), sheet.uses("Magic Ability")) == (0, 4)


def test_a_missing_name_nobody_lists_as_an_item_counts_zero_and_the_record_says_so(store, capsys):
    """``--test "Stealth+Sneak"``: nobody's sheet lists a Sneak item, so Sneak counts
    +0 (it does not fail, "Sneak is missing"); the record keeps that decision, and a
    sheet listing Sneak as an item later does not change the roll on replay."""
    import json

    from gmdesk.cli.main import main

    with open_new(store, "1d6x4") as s:
        pip = add(s, "Pip", sheet=PIP + "Stealth           +2\n")
    argv = ["--saves", str(store.dir), "roll", "1d6x4", "--test", "Stealth+Sneak", "--target", "10"]
    rc = main([*argv, "--save", "Test 1d6x4", "--as", "Pip", "--json", "--seed", "3"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    rec = json.loads(out)
    assert "auto_fail" not in rec and rec["params"]["bonus"] == 2 and rec["params"]["missing"] == "Sneak"
    assert len(rec["dice"]) == 1
    with Session.open(store.resolve("Test 1d6x4")) as s:
        seq = s.state.rolls[-1].seq
        # Wren comes with a Sneak item: from now on a Test naming Sneak needs it
        add(s, "Wren", sheet="Wren\nDescriptor  Default  Current\nSneak\n")
        params = ONE_D6.fill_from_sheets(
            ONE_D6.Params(test="Stealth+Sneak", target=10), s.state.characters[pip].sheet, items=s.sheet_items()
        )
        assert params.auto_fail == "Sneak is missing"
        same_as_replay(s)
        assert s.state.roll_entry(seq).record.params["missing"] == "Sneak"  # the roll as it was decided
    # a Test may mark a name as an item: then it is needed
    rc = main([*argv[:5], "Stealth+Rope (item)", *argv[6:], "--save", "Test 1d6x4", "--as", "Pip", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["outcome"] == "Automatic failure: Rope is missing"


def test_effects_name_every_change(store):
    with open_new(store, "1d6x4") as s:
        pip = add(s, "Pip", sheet=PIP)
        assert s.apply({"type": "source.add", "id": pip, "kind": "shift", "name": "Cover", "value": 1}).changes == [
            "Pip gains shift Cover +1"
        ]
        assert s.apply({"type": "source.toggle", "id": pip, "kind": "shift", "name": "Cover"}).changes == [
            "Pip: shift Cover off"
        ]
        assert s.apply({"type": "source.remove", "id": pip, "kind": "shift", "name": "Cover"}).changes == [
            "Pip loses shift Cover"
        ]
        assert s.apply({"type": "condition.add", "id": pip, "name": "Prone", "rounds": 2}).changes == [
            "Pip is Prone for 2 rounds"
        ]
        assert s.apply({"type": "condition.remove", "id": pip, "name": "Prone"}).changes == ["Pip is no longer Prone"]
        assert s.apply({"type": "sheet.set", "id": pip, "descriptor": "Magic Ability", "uses_current": 3}).changes == [
            "Pip: Magic Ability (5) → (3)"
        ]
        assert s.apply(
            {"type": "sheet.set", "id": pip, "descriptor": "Stealth", "default": 0, "current": -2}
        ).changes == ["Pip: Stealth written (−2)"]
        assert s.apply({"type": "clock.add", "name": "Doom", "segments": 4}).changes == ["Clock Doom: 0 of 4"]
        assert s.apply({"type": "clock.tick", "name": "Doom", "halves": 3}).changes == [
            "Clock Doom: 0 → 1½ of 4 (+1½ segments)"
        ]
        assert s.apply({"type": "clock.remove", "name": "Doom"}).changes == ["Clock Doom removed (at 1½ of 4)"]
        same_as_replay(s)


def test_a_clock_half_a_segment_in_reads_half_never_naught_and_a_half() -> None:
    from gmdesk.core.session.model import Clock

    assert [str(Clock("Alarm", 4, h)) for h in (0, 1, 2, 3, 8)] == [
        "Alarm 0/4",
        "Alarm ½/4",
        "Alarm 1/4",
        "Alarm 1½/4",
        "Alarm 4/4",
    ]
