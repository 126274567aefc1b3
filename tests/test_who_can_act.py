"""Who can act (RULES "Who can act"): the Dead stay dead over a rest, those who
cannot act get no initiative and no defense roll, and the GM may set a status by
hand — in every system, on the saved session."""

from __future__ import annotations

import pytest
from helpers import gmdesk_cli as run

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore

SYSTEMS = ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6")


def night_with_a_fatal_wound(saves, system: str):
    """Bea, killed by a wound from a roll (4d2: +10 on the Combat table; torg: 23
    result points), and Tam, hurt but alive."""
    store = SessionStore(saves)
    path = store.create("Night 1", system)
    with Session.open(path) as s:
        bea = s.apply({"type": "character.add", "character": {"name": "Bea", "vitality": 8}}).data["id"]
        tam = s.apply({"type": "character.add", "character": {"name": "Tam", "vitality": 8}}).data["id"]
        g = s.apply({"type": "character.add", "character": {"name": "Gospog", "side": "NPC"}}).data["id"]
        if system == "4d2":
            s.roll(system, {"combat": True}, actor=g, target=bea, combat=True, rng=FixedDice([6, 6, 1, 1]))
        else:
            params = {"combat": True, "skill": 30, "difficulty": 8}
            s.roll(system, params, actor=g, target=bea, combat=True, rng=FixedDice([1, 2]))
        s.roll(
            system,
            {"combat": True, **({} if system == "4d2" else {"skill": 8, "difficulty": 8})},
            actor=g,
            target=tam,
            combat=True,
            rng=FixedDice([4, 3, 1, 1] if system == "4d2" else [1, 2]),
        )
        assert s.state.characters[bea].status == "dead"
        assert "Fatal Wound" in [w.text for w in s.state.characters[bea].wounds]
        assert s.state.characters[tam].status == "ok" and s.state.characters[tam].wounds
    return path


def carried(saves, name: str = "Night 2"):
    with Session.open(saves / f"{name}.gmdesk", readonly=True) as s:
        return {c.name: c for c in s.state.characters.values()}, list(s.events)


# ----------------------------------------------------------------------------- 1. a rest


@pytest.mark.parametrize("system", ("4d2", "torg-2d10"))
@pytest.mark.parametrize("rest", (True, False))
def test_a_rest_never_revives_one_killed_by_a_wound(capsys, saves, system, rest):
    night_with_a_fatal_wound(saves, system)
    rc, _, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", *(["--rest"] if rest else []))
    assert rc == 0, err
    chars, events = carried(saves)
    bea, tam = chars["Bea"], chars["Tam"]
    assert bea.status == "dead" and [w.text for w in bea.wounds] == ["Fatal Wound"]
    assert not any("Bea" in line and "healed" in line for line in events[0].changes)
    if rest:  # the living rest as before
        assert tam.status == "ok" and tam.wounds == [] and any("Tam" in x and "healed" in x for x in events[0].changes)


def test_the_picker_s_next_night_keeps_the_dead_dead(saves):
    """The picker's "Next night from…" with "rest" is the store's next_night."""
    night_with_a_fatal_wound(saves, "torg-2d10")
    SessionStore(saves).next_night(saves / "Night 1.gmdesk", "Night 2", rest=True)
    chars, _ = carried(saves)
    assert chars["Bea"].status == "dead"


# ----------------------------------------------------------------------------- 11. statuses the GM sets


def torg_table(saves):
    """A torg fight: Quin (PC), Gospog and Rat (NPCs), in initiative order."""
    store = SessionStore(saves)
    path = store.create("Table", "torg-2d10")
    with Session.open(path) as s:
        ids = {}
        for name, side in (("Quin", "PC"), ("Gospog", "NPC"), ("Rat", "NPC")):
            ids[name] = s.apply({"type": "character.add", "character": {"name": name, "side": side}}).data["id"]
        s.apply(
            {
                "type": "initiative.set",
                "entries": [{"id": ids[n], "value": v} for n, v in (("Quin", 9), ("Gospog", 8), ("Rat", 7))],
            }
        )
        s.apply({"type": "turn.next"})
    return path, ids


def test_a_torg_character_with_eight_wounds_stays_ok_until_the_gm_says_otherwise(capsys, saves):
    path, ids = torg_table(saves)
    with Session.open(path) as s:
        for _ in range(8):  # 8 Wounds: the seed has no knock-out for it
            s.roll(
                "torg-2d10",
                {"combat": True, "skill": 12, "difficulty": 8},
                actor=ids["Quin"],
                target=ids["Gospog"],
                combat=True,
                rng=FixedDice([1, 2]),
            )
        assert s.state.characters[ids["Gospog"]].status == "ok"
        n = len(s.events)
    rc, out, err = run(capsys, saves, "char", "Table", "status", "gospog", "unconscious")
    assert rc == 0, err
    assert "Gospog is Unconscious (set by the GM)" in out and "OK → Unconscious" in out
    with Session.open(path) as s:
        assert len(s.events) == n + 1 and s.events[-1].type == "character.status"
        g = s.state.characters[ids["Gospog"]]
        assert g.status == "unconscious" and not g.can_act
        # no roll, no default target, its turn skipped
        with pytest.raises(Exception, match="Unconscious"):
            s.roll("torg-2d10", {"skill": 10}, actor=ids["Gospog"], rng=FixedDice([1, 2]))
        assert s.state.default_target(ids["Quin"]) != ids["Gospog"]  # one who cannot act is no default target
        assert s.state.default_target(ids["Rat"]) == ids["Quin"]
        s.apply({"type": "turn.next"})
        assert s.state.encounter.order[s.state.encounter.turn].char_id == ids["Rat"]
        # the Dead cannot be targeted
        s.apply({"type": "character.status", "id": ids["Rat"], "status": "dead"})
        with pytest.raises(Exception, match="Dead"):
            s.roll(
                "torg-2d10",
                {"combat": True, "skill": 12, "difficulty": 8},
                actor=ids["Quin"],
                target=ids["Rat"],
                combat=True,
                rng=FixedDice([1, 2]),
            )
        # undo takes it back
        s.undo()
        assert s.state.characters[ids["Rat"]].status == "ok"
    # the saved session replays to the same state
    with Session.open(path, readonly=True) as s:
        assert s.state.characters[ids["Gospog"]].status == "unconscious"
        assert s.state.characters[ids["Rat"]].status == "ok"


def test_a_status_set_by_hand_is_never_made_better_silently_but_a_worse_roll_counts(saves):
    path, ids = torg_table(saves)
    with Session.open(path) as s:
        q, g = ids["Quin"], ids["Gospog"]
        s.apply({"type": "character.status", "id": g, "status": "unconscious"})
        # a wound that knocks out (Mortal Wound: 13 result points) is no worse: still Unconscious
        s.roll(
            "torg-2d10",
            {"combat": True, "skill": 21, "difficulty": 8},
            actor=q,
            target=g,
            combat=True,
            rng=FixedDice([1, 2]),
        )
        assert [w.text for w in s.state.characters[g].wounds] == ["Mortal Wound"]
        assert s.state.characters[g].status == "unconscious"
        # taking the wound off again does not wake it: the GM set it
        s.apply({"type": "wound.remove", "id": g, "wound": 0})
        assert s.state.characters[g].wounds == [] and s.state.characters[g].status == "unconscious"
        # a Fatal Wound later is worse: Dead
        s.roll(
            "torg-2d10",
            {"combat": True, "skill": 30, "difficulty": 8},
            actor=q,
            target=g,
            combat=True,
            rng=FixedDice([1, 2]),
        )
        assert s.state.characters[g].status == "dead"
        # the GM may overrule the rules: a character with a Mortal Wound set OK acts
        s.roll(
            "torg-2d10",
            {"combat": True, "skill": 21, "difficulty": 8},
            actor=g if False else q,
            target=ids["Rat"],
            combat=True,
            rng=FixedDice([1, 2]),
        )
        assert s.state.characters[ids["Rat"]].status == "unconscious"
        s.apply({"type": "character.status", "id": ids["Rat"], "status": "ok"})
        assert s.state.characters[ids["Rat"]].can_act
        # setting what the rules say anyway clears the hand-set status
        s.apply({"type": "character.status", "id": ids["Rat"], "status": "unconscious"})
        assert s.state.characters[ids["Rat"]].status_set is None


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_system_honours_a_status_set_by_hand_and_a_rest_keeps_the_dead(capsys, saves, system):
    store = SessionStore(saves)
    path = store.create("Night 1", system)
    with Session.open(path) as s:
        for name in ("Bea", "Tam"):
            s.apply({"type": "character.add", "character": {"name": name, "vitality": 6}})
    assert run(capsys, saves, "char", "Night 1", "status", "Bea", "dead")[0] == 0
    assert run(capsys, saves, "char", "Night 1", "status", "Tam", "Unconscious")[0] == 0
    rc, _, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", "--rest")
    assert rc == 0, err
    chars, events = carried(saves)
    assert chars["Bea"].status == "dead"
    # a rest wakes those the GM knocked out (said in the log), never the Dead
    assert chars["Tam"].status == "ok"
    assert any("Tam: Unconscious (set by the GM) → OK" in line for line in events[0].changes)
    rc, _, err = run(capsys, saves, "new", "Night 3", "--from", "Night 1")
    assert rc == 0, err
    chars, _ = carried(saves, "Night 3")
    assert (chars["Bea"].status, chars["Tam"].status) == ("dead", "unconscious")


def test_a_bad_status_is_one_line_and_nothing_is_saved(capsys, saves):
    from helpers import one_error_line

    path, ids = torg_table(saves)
    before = path.read_bytes()
    rc, _, err = run(capsys, saves, "char", "Table", "status", "Quin", "asleep")
    assert rc == 2
    one_error_line(err, "ok, unconscious or dead")
    rc, _, err = run(capsys, saves, "char", "Table", "status", "Quin", "ok")
    assert rc == 2
    one_error_line(err, "already OK")
    assert path.read_bytes() == before


# ----------------------------------------------------------------------------- 8. initiative


def one_d6_table(saves):
    """1d6x4: Bea knocked out (Vitality −6), Cid dead, Tam standing; nobody seated."""
    store = SessionStore(saves)
    path = store.create("Table", "1d6x4")
    with Session.open(path) as s:
        ids = {}
        for name in ("Bea", "Cid", "Tam"):
            ids[name] = s.apply({"type": "character.add", "character": {"name": name, "vitality": 5}}).data["id"]
        s.apply({"type": "character.edit", "id": ids["Bea"], "fields": {"vitality_current": -6}})
        s.apply({"type": "character.status", "id": ids["Cid"], "status": "dead"})
    return path, ids


def test_char_initiative_neither_rolls_for_nor_seats_those_who_cannot_act(capsys, saves):
    path, ids = one_d6_table(saves)
    rc, out, err = run(capsys, saves, "char", "Table", "initiative", "Bea", "Cid", "Tam", "--seed", "1")
    assert rc == 0, err
    assert "Bea is Unconscious: no initiative" in out and "Cid is Dead: no initiative" in out
    with Session.open(path, readonly=True) as s:
        assert [x.char_id for x in s.state.encounter.order] == [ids["Tam"]]
        assert [e.actor for e in s.state.rolls] == [ids["Tam"]]
    # nobody named can act: refused, nothing saved
    before = path.read_bytes()
    rc, _, err = run(capsys, saves, "char", "Table", "initiative", "Bea=12")
    assert rc == 2 and "Bea is Unconscious" in err
    assert path.read_bytes() == before
    # one who can act again joins at the next roll
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Bea"], "fields": {"vitality_current": 2}})
    rc, _, err = run(capsys, saves, "char", "Table", "initiative", "Bea", "Tam", "--seed", "2")
    assert rc == 0, err
    with Session.open(path, readonly=True) as s:
        assert {x.char_id for x in s.state.encounter.order} == {ids["Bea"], ids["Tam"]}


async def test_the_desks_initiative_leaves_out_those_who_cannot_act(saves):
    from helpers import dialog, main_screen, make_app, press, settle, until
    from helpers import run as run_app

    from gmdesk.tui.screens.confirm import FormDialog

    path, ids = one_d6_table(saves)
    app = make_app(path, rng=FixedDice([3]))
    async with run_app(app) as pilot:
        await main_screen(pilot)
        await press(pilot, "i")
        form = await dialog(pilot, FormDialog)
        labels = " ".join(str(getattr(w, "label", "")) for w in form.query("*"))
        text = "\n".join(str(x.render()) for x in form.query("Label, Static"))
        assert "Tam" in text and "Bea" not in text and "Cid" not in text, (labels, text)
        await press(pilot, "enter")
        await settle(pilot)
        await until(pilot, lambda: len(_order(path)) == 1)
    assert _order(path) == [ids["Tam"]]


def _order(path):
    with Session.open(path, readonly=True) as s:
        return [x.char_id for x in s.state.encounter.order]


# ----------------------------------------------------------------------------- 3. no defense


BEA_SHEET = """Bea, a scout
Descriptor        Default    Current      Notes
Vitality           +5
Defense            +3
"""


def test_a_1d6x4_defender_who_cannot_act_rolls_no_defense(saves):
    store = SessionStore(saves)
    path = store.create("Table", "1d6x4")
    with Session.open(path) as s:
        bea = s.apply({"type": "character.add", "character": {"name": "Bea", "sheet": BEA_SHEET}}).data["id"]
        gob = s.apply({"type": "character.add", "character": {"name": "Gob", "side": "NPC"}}).data["id"]
        s.apply({"type": "character.edit", "id": bea, "fields": {"vitality_current": -6}})
        assert s.state.characters[bea].status == "unconscious"
        # the attack: 4 × 2 = 8 against no defense roll (the lowest Defense Test: 4 + 3 = 7); d6 3 damage
        ev = s.roll("1d6x4", {"combat": True}, actor=gob, target=bea, combat=True, rng=FixedDice([2, 3]))
        rec = s.state.roll_entry(ev.seq).record
        assert rec.params["defenseless"] is True and rec.params["vs_test"] == "Defense"
        opp = rec.get("opponent")
        assert (list(opp["dice"]), opp["total"], opp["took_14"], opp["cannot_act"]) == ([], 7, False, True)
        assert rec.outcome == "Attacker prevails" and rec.get("damage") == 3
        assert [d.value for d in rec.dice] == [2, 3]  # the attack and the damage: no defense die
        assert rec.get("from", {}).get("defenseless") == "Bea is Unconscious"
        assert s.state.characters[bea].status == "dead"  # injured while Unconscious
    # the saved session replays to the same state
    with Session.open(path, readonly=True) as s:
        assert s.state.characters[bea].status == "dead"


def test_a_fudge_opponent_who_cannot_act_rolls_nothing_and_counts_its_lowest(saves):
    store = SessionStore(saves)
    path = store.create("Table", "fudge")
    with Session.open(path) as s:
        bea = s.apply({"type": "character.add", "character": {"name": "Bea"}}).data["id"]
        gob = s.apply({"type": "character.add", "character": {"name": "Gob", "side": "NPC"}}).data["id"]
        s.apply({"type": "character.status", "id": bea, "status": "unconscious"})
        # 2d3: 2 2 − 2 2 = 0, Fair against Fair −4 (the lowest 2d3 result, no dice): wins by 4
        ev = s.roll("fudge", {"combat": True}, actor=gob, target=bea, combat=True, rng=FixedDice([2, 2, 2, 2]))
        rec = s.state.roll_entry(ev.seq).record
        opp = rec.get("opponent")
        assert (list(opp["dice"]), opp["result"], opp["cannot_act"]) == ([], -4, True)
        assert rec.get("relative_degree") == 4 and rec.get("hit") is True
        from gmdesk.core.systems import fudge

        assert fudge.opponent_brief(rec) == "(Fair vs Terrible −1, cannot act)"


def test_a_4d6_contest_against_one_who_cannot_act_is_their_critical_failure(saves):
    store = SessionStore(saves)
    path = store.create("Table", "4d6")
    with Session.open(path) as s:
        bea = s.apply({"type": "character.add", "character": {"name": "Bea"}}).data["id"]
        gob = s.apply({"type": "character.add", "character": {"name": "Gob", "side": "NPC"}}).data["id"]
        s.apply({"type": "character.status", "id": bea, "status": "unconscious"})
        ev = s.roll("4d6", {"vs_bonus": 10}, actor=gob, target=bea, rng=FixedDice([2, 2, 2, 1]))
        rec = s.state.roll_entry(ev.seq).record
        opp = rec.get("opponent")
        assert (list(opp["dice"]), opp["total"], opp["all_ones"], opp["cannot_act"]) == ([], 14, True, True)
        assert (rec.outcome, rec.get("tier")) == (
            "Narrow victory — opponent's Critical Failure (all 1s)",
            "Full Success",
        )


def test_a_1d6x4_character_the_gm_brought_back_dies_of_a_later_injury(saves):
    store = SessionStore(saves)
    path = store.create("Table", "1d6x4")
    with Session.open(path) as s:
        bea = s.apply({"type": "character.add", "character": {"name": "Bea", "sheet": BEA_SHEET}}).data["id"]
        gob = s.apply({"type": "character.add", "character": {"name": "Gob", "side": "NPC"}}).data["id"]
        s.apply({"type": "character.edit", "id": bea, "fields": {"vitality_current": -7, "dead": True}})
        s.apply({"type": "character.status", "id": bea, "status": "ok"})  # the GM's miracle
        assert s.state.characters[bea].can_act
        s.roll("1d6x4", {"combat": True}, actor=gob, target=bea, combat=True, rng=FixedDice([6, 1, 2]))
        assert s.state.characters[bea].status == "dead"
        s.undo()
        assert s.state.characters[bea].status == "ok"


async def test_the_pickers_next_night_with_a_rest_keeps_the_dead_dead(tmp_path):
    """The picker's "Next night from…" with "rest" ticked, at 80×24, keys only."""
    import random

    from helpers import run as run_app
    from helpers import screen_text, until

    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.picker import NextNightDialog, PickerScreen

    saves = tmp_path / "saves"
    night_with_a_fatal_wound(saves, "4d2")
    (tmp_path / "no-examples").mkdir()
    app = GmdeskApp(saves, examples_dir=tmp_path / "no-examples", rng=random.Random(7))
    async with run_app(app, size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
        await pilot.press("N")
        await until(pilot, lambda: isinstance(app.screen, NextNightDialog))
        await pilot.press("tab", "space")  # rest first
        await pilot.press("tab", "tab", "enter")  # (the NPC Gospog stays) Start the night
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Night 2" in screen_text(app))
    chars, events = carried(saves)
    assert events[0].data.get("rest") is True
    assert chars["Bea"].status == "dead" and [w.text for w in chars["Bea"].wounds] == ["Fatal Wound"]
    assert chars["Tam"].wounds == []
