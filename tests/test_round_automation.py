"""Round and turn automation: initiative rolled again at the start of every round (a
session setting, each roll logged), and conditions that end at the start or the end
of a named character's turn ("until the start of Kara's next turn"). Real store,
fixed dice, the log replayed."""

from __future__ import annotations

import random

import pytest
from helpers import gmdesk_cli, one_error_line, same_as_replay

from gmdesk.core.dice import FixedDice
from gmdesk.core.errors import ParamError
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.typed import parse_condition


@pytest.fixture
def store(tmp_path) -> SessionStore:
    return SessionStore(tmp_path / "saves")


def table(store: SessionStore, system: str = "4d6", reroll: bool = False, **inits: int) -> tuple[Session, dict]:
    """A session with characters in the encounter at the given initiatives (in that order)."""
    settings = {"reroll_initiative": True} if reroll else None
    s = Session.open(store.create(f"Table {system} {reroll}", system, settings=settings))
    ids = {}
    for name in inits:
        side = "PC" if name in ("Kara", "Quinn") else "NPC"
        ids[name] = s.apply({"type": "character.add", "character": {"name": name, "side": side}}).data["id"]
    s.apply({"type": "initiative.set", "entries": [{"id": ids[n], "value": v} for n, v in inits.items()]})
    return s, ids


def order(s: Session) -> list[tuple[str, int]]:
    return [(s.state.characters[x.char_id].name, x.initiative) for x in s.state.encounter.order]


def acting(s: Session) -> str:
    cur = s.state.encounter.current
    return s.state.characters[cur.char_id].name if cur else ""


def wait(s: Session, ids: dict, who: str, name: str, on: str, at: str):
    """``who`` is ``name`` until the ``at`` ("start" / "end") of ``on``'s turn."""
    until = {"id": ids[on], "at": at}
    return s.apply({"type": "condition.add", "id": ids[who], "name": name, "until": until})


def conditions(s: Session, cid: str) -> list[str]:
    return [x.name for x in s.state.characters[cid].conditions]


# ------------------------------------------------------------------ initiative every round


def test_off_by_default_the_order_holds_all_fight(store):
    s, ids = table(store, Kara=14, Gospog=9)
    with s:
        s.next_turn()
        s.next_turn()
        ev = s.next_turn()  # round 2
        assert "initiative" not in ev.data
        assert order(s) == [("Kara", 14), ("Gospog", 9)]
        assert [r.kind for r in s.state.rolls] == []


def test_each_new_round_rolls_initiative_again_logged_and_undoable(store):
    s, ids = table(store, reroll=True, Kara=14, Gospog=9, Thug=5)
    with s:
        first = s.next_turn()  # round 1 starts on the order as rolled when they joined
        assert "initiative" not in first.data and acting(s) == "Kara"
        s.next_turn()
        s.next_turn()
        assert acting(s) == "Thug"
        # 4d6 initiative is 4d6 + bonus: Kara 1+1+1+1 = 4, Gospog 6+6+6+6 = 24, Thug 3+3+3+3 = 12
        ev = s.next_turn(rng=FixedDice([1, 1, 1, 1, 6, 6, 6, 6, 3, 3, 3, 3]))
        assert [e["value"] for e in ev.data["initiative"]] == [4, 24, 12]
        assert order(s) == [("Gospog", 24), ("Thug", 12), ("Kara", 4)]
        assert s.state.encounter.round == 2 and acting(s) == "Gospog"
        assert ev.summary == "Round 2; initiative rolled again: Gospog's turn"
        assert "Kara: initiative 14 → 4" in ev.changes
        rolls = [r for r in s.state.rolls if r.kind == "initiative"]
        assert [(r.actor_name, r.record.value, r.round) for r in rolls] == [
            ("Kara", 4, 2),
            ("Gospog", 24, 2),
            ("Thug", 12, 2),
        ]
        same_as_replay(s)
        s.undo()
        assert order(s) == [("Kara", 14), ("Gospog", 9), ("Thug", 5)]
        assert acting(s) == "Thug" and s.state.encounter.round == 1
        assert [r for r in s.state.rolls if r.kind == "initiative"] == []
        path = s.path
    with Session.open(path) as again:  # the undo and the rolls as saved
        assert order(again) == [("Kara", 14), ("Gospog", 9), ("Thug", 5)]


def test_those_who_cannot_act_keep_their_number_and_new_round_rolls_too(store):
    s, ids = table(store, reroll=True, Kara=6, Gospog=5, Thug=4)
    with s:
        s.apply({"type": "character.edit", "id": ids["Thug"], "fields": {"vitality_current": -5}})  # Unconscious
        s.next_turn()
        ev = s.new_round(rng=random.Random(2))
        assert {e["id"] for e in ev.data["initiative"]} == {ids["Kara"], ids["Gospog"]}
        assert ("Thug", 4) in order(s)
        assert "initiative rolled again" in ev.summary and s.state.encounter.round == 2
        same_as_replay(s)


def test_passing_over_the_last_who_cannot_act_begins_the_round_and_rolls(store):
    s, ids = table(store, reroll=True, Kara=14, Gospog=9, Thug=5)
    with s:
        s.next_turn()
        s.next_turn()
        assert acting(s) == "Gospog"
        s.apply({"type": "character.edit", "id": ids["Thug"], "fields": {"vitality_current": -5}})  # Unconscious
        ev = s.next_turn(rng=random.Random(5))  # Gospog ends; Thug is passed over; round 2 begins
        assert {e["id"] for e in ev.data["initiative"]} == {ids["Kara"], ids["Gospog"]}
        assert s.state.encounter.round == 2 and "Thug (Unconscious)" in ev.summary


def test_initiative_is_refused_when_no_round_begins(store):
    s, ids = table(store, reroll=True, Kara=14, Gospog=9)
    with s:
        s.next_turn()
        entry = {"id": ids["Kara"], "value": 3}
        with pytest.raises(EventError, match="only when a new round begins"):
            s.apply({"type": "turn.next", "initiative": [entry]})
        with pytest.raises(EventError, match="not in the encounter"):
            s.apply({"type": "round.new", "initiative": [entry, entry]})
        assert acting(s) == "Kara" and s.state.encounter.round == 1


def test_the_setting_from_the_command_line(capsys, tmp_path):
    saves = tmp_path / "saves"
    code, out, err = gmdesk_cli(capsys, saves, "new", "Night 1", "--system", "4d6", "--setting", "reroll_initiative=on")
    assert code == 0, err
    with Session.open(SessionStore(saves).resolve("Night 1"), readonly=True) as s:
        assert s.state.info.settings["reroll_initiative"] is True
    code, out, err = gmdesk_cli(
        capsys, saves, "new", "Night 2", "--system", "4d6", "--setting", "reroll_initiative=often"
    )
    assert code == 2
    one_error_line(err, "Reroll initiative every round", "on or off")
    assert [x.name for x in SessionStore(saves).list()] == ["Night 1"]


# ---------------------------------------------------------------- until a character's turn


def test_until_the_start_of_a_named_characters_next_turn(store):
    s, ids = table(store, Kara=14, Gospog=9, Thug=5)
    with s:
        s.next_turn()  # Kara acts: she dodges until the start of her next turn
        ev = wait(s, ids, "Kara", "Dodging", "Kara", "start")
        assert ev.summary == "Kara is Dodging until the start of Kara's next turn"
        s.next_turn()
        s.next_turn()
        assert conditions(s, ids["Kara"]) == ["Dodging"]
        ev = s.next_turn()  # round 2, Kara's turn starts
        assert conditions(s, ids["Kara"]) == []
        assert "Kara: Dodging ends" in ev.changes
        same_as_replay(s)


def test_until_the_end_of_a_named_characters_turn(store):
    s, ids = table(store, Kara=14, Gospog=9, Thug=5)
    with s:
        s.next_turn()  # Kara's turn: Gospog is pinned until the end of the Thug's turn
        wait(s, ids, "Gospog", "Pinned", "Thug", "end")
        wait(s, ids, "Thug", "Marked", "Kara", "end")
        ev = s.next_turn()  # Kara's turn ends: the Thug's mark goes
        assert conditions(s, ids["Thug"]) == [] and "Thug: Marked ends" in ev.changes
        s.next_turn()  # Thug's turn starts: Gospog still pinned
        assert conditions(s, ids["Gospog"]) == ["Pinned"]
        s.next_turn()  # the Thug's turn ends
        assert conditions(s, ids["Gospog"]) == []


def test_a_turn_passed_over_or_skipped_by_a_new_round_still_passes(store):
    s, ids = table(store, Kara=14, Gospog=9, Thug=5)
    with s:
        s.next_turn()
        wait(s, ids, "Kara", "Guarded", "Thug", "start")
        wait(s, ids, "Kara", "Aiming", "Gospog", "end")
        ev = s.new_round()  # Gospog's and the Thug's turns pass unplayed
        assert conditions(s, ids["Kara"]) == []
        assert {"Kara: Guarded ends", "Kara: Aiming ends"} <= set(ev.changes)


def test_removing_the_character_waited_for_ends_the_wait_and_undo_brings_it_back(store):
    s, ids = table(store, Kara=14, Gospog=9)
    with s:
        wait(s, ids, "Kara", "Dodging", "Gospog", "start")
        ev = s.apply({"type": "character.remove", "id": ids["Gospog"]})
        assert "Kara: Dodging ends (Gospog left the session)" in ev.changes
        assert conditions(s, ids["Kara"]) == []
        s.undo()
        assert [x.until for x in s.state.characters[ids["Kara"]].conditions] == [(ids["Gospog"], "start")]


def test_until_is_kept_across_reopening(store):
    s, ids = table(store, Kara=14, Gospog=9)
    with s:
        wait(s, ids, "Kara", "Dodging", "Gospog", "end")
        path = s.path
    with Session.open(path) as again:
        (cond,) = again.state.characters[ids["Kara"]].conditions
        assert cond.until == (ids["Gospog"], "end")
        assert cond.lasts(lambda cid: again.state.characters[cid].name) == "until the end of Gospog's turn"
        assert cond.lasts(lambda cid: again.state.characters[cid].name, short=True) == "until Gospog's turn ends"


@pytest.mark.parametrize(
    ("until", "message"),
    [
        ({"id": "c99", "at": "start"}, "no character 'c99'"),
        ({"id": "c1", "at": "noon"}, "until.at"),
        ({"id": "c1"}, "until: must be"),
    ],
)
def test_a_bad_until_is_refused_and_changes_nothing(store, until, message):
    s, ids = table(store, Kara=14, Gospog=9)
    with s:
        n = len(s.events)
        with pytest.raises(EventError, match=message):
            s.apply({"type": "condition.add", "id": ids["Kara"], "name": "Dodging", "until": until})
        with pytest.raises(EventError, match="not both"):
            s.apply(
                {
                    "type": "condition.add",
                    "id": ids["Kara"],
                    "name": "X",
                    "rounds": 2,
                    "until": {"id": ids["Kara"], "at": "end"},
                }
            )
        assert len(s.events) == n and conditions(s, ids["Kara"]) == []


# ---------------------------------------------------------------------- typed in the pane


class _C:
    def __init__(self, cid: str, name: str) -> None:
        self.id, self.name = cid, name


CAST = [_C("c1", "Kara"), _C("c2", "Gospog 1")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Stymied", ("Stymied", None, None)),
        ("Up 1", ("Up", 1, None)),
        ("Dodging until the start of Kara's next turn", ("Dodging", None, {"id": "c1", "at": "start"})),
        ("Dodging until start of kara", ("Dodging", None, {"id": "c1", "at": "start"})),
        ("On fire until the end of Gospog 1’s turn", ("On fire", None, {"id": "c2", "at": "end"})),
    ],
)
def test_what_the_gm_types(text, expected):
    assert parse_condition(text, CAST) == expected


def test_what_the_gm_types_wrong_is_said_in_words():
    with pytest.raises(ParamError, match=r"no character named 'Bob' \(characters: Kara, Gospog 1\)"):
        parse_condition("Dodging until the start of Bob's next turn", CAST)
    with pytest.raises(ParamError, match="until the start or the end of whose turn"):
        parse_condition("Dodging until later", CAST)


# ------------------------------------------------------------------------- the next night


def test_the_next_night_carries_a_wait_on_a_carried_character_and_ends_the_others(store):
    s, ids = table(store, Kara=14, Quinn=12, Gospog=9)
    with s:
        wait(s, ids, "Kara", "Shielded", "Quinn", "start")
        wait(s, ids, "Quinn", "Taunted", "Gospog", "end")
        source = s.path
    carried = store.next_night(source, "Night 2")
    with Session.open(carried.path, readonly=True) as n2:
        by_name = {c.name: c for c in n2.state.characters.values()}
        assert [x.until for x in by_name["Kara"].conditions] == [(by_name["Quinn"].id, "start")]
        assert by_name["Quinn"].conditions == []
        assert any("Taunted ends" in line for line in n2.events[-1].changes)
    rested = store.next_night(source, "Night 2 rested", rest=True)
    with Session.open(rested.path, readonly=True) as n2:
        assert all(not c.conditions for c in n2.state.characters.values())


def test_the_players_never_read_a_hidden_name_in_a_wait(store):
    from gmdesk.core.session.export import to_markdown
    from gmdesk.tui.screens.player import build_picture

    s, ids = table(store, Kara=14, Gospog=9)
    with s:
        s.apply({"type": "character.hide", "id": ids["Gospog"]})
        wait(s, ids, "Kara", "Wary", "Gospog", "end")
        public = to_markdown(s.state, s.events, public=True)
        assert "Wary" in public and "Gospog" not in public
        assert "Wary (until Gospog's turn ends)" in to_markdown(s.state, s.events, public=False)
        picture = repr(build_picture(s.state))
        assert "Wary" in picture and "Gospog" not in picture
        s.apply({"type": "character.reveal", "id": ids["Gospog"]})
        assert "Wary (until Gospog's turn ends)" in to_markdown(s.state, s.events, public=True)


def test_the_checkpoint_keeps_a_wait_on_a_named_turn(store):
    """A long session reopens from its checkpoint: "until the end of Gospog's turn" is
    still a wait there, not a condition that lasts until removed."""
    from gmdesk.core.session.model import checkpoint_json, state_from_checkpoint

    s, ids = table(store, Kara=14, Gospog=9)
    with s:
        wait(s, ids, "Kara", "Dodging", "Gospog", "end")
        restored = state_from_checkpoint(checkpoint_json(s.state), lambda *a: None)
    (cond,) = restored.characters[ids["Kara"]].conditions
    assert cond.until == (ids["Gospog"], "end")
