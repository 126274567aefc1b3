"""Counters that reset (issue 23, point 3), in the session: a character's named
counters (reactions, legendary actions, a once-a-round ability) with a maximum and a
reset point — each round, at the start of its own turn, each night. Spent and
restored by the GM, filled up where declared as part of the turn, round or carry
event (one undo takes the reset back), checkpointed, replayed, and carried to the
next night full when they reset each night. Real store."""

from __future__ import annotations

import pytest
from helpers import gmdesk_cli, open_session, same_as_replay

from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.events.visibility import public_event
from gmdesk.core.session.export import export


def table(store: SessionStore, *names: str) -> tuple[Session, dict[str, str]]:
    """A 4d6 session "Night N" with these characters (Kara and Quinn PCs, the rest NPCs)."""
    return open_session(store, *names, title=f"Night {len(store.list()) + 1}")


def left(s: Session, cid: str) -> dict[str, str]:
    return {x.label: f"{x.left}/{x.maximum}" for x in s.state.characters[cid].counters}


def add(s: Session, cid: str, label: str, maximum: int, reset: str) -> None:
    s.apply({"type": "counter.add", "id": cid, "label": label, "max": maximum, "reset": reset})


def spend(s: Session, cid: str, label: str, n: int = 1):
    return s.apply({"type": "counter.change", "id": cid, "label": label, "spend": n})


def order(s: Session, values: dict[str, int]) -> None:
    """The encounter's order: character id → initiative."""
    s.apply({"type": "initiative.set", "entries": [{"id": cid, "value": v} for cid, v in values.items()]})


def kara_and_gospog(store: SessionStore, legendary: int = 3) -> tuple[Session, str, str]:
    """Kara (Reactions 1, reset each round) at 15 before Gospog (Legendary, reset at
    the start of its turn) at 10, in the encounter, no turn yet: the session, Kara's id,
    Gospog's id."""
    s, ids = table(store, "Kara", "Gospog")
    k, g = ids["Kara"], ids["Gospog"]
    add(s, k, "Reactions", 1, "round")
    add(s, g, "Legendary", legendary, "turn")
    order(s, {k: 15, g: 10})
    return s, k, g


def test_spend_restore_remove_and_undo(store):
    s, ids = table(store, "Kara")
    k = ids["Kara"]
    with s:
        add(s, k, "Luck", 3, "night")
        ev = spend(s, k, "luck", 2)
        assert ev.summary == "Kara spends 2 Luck (1/3 left)"
        assert ev.changes == ["Kara: Luck 3/3 → 1/3"]
        assert left(s, k) == {"Luck": "1/3"}
        s.apply({"type": "counter.change", "id": k, "label": "Luck", "restore": 1})
        assert left(s, k) == {"Luck": "2/3"}
        s.undo()
        assert left(s, k) == {"Luck": "1/3"}
        s.apply({"type": "counter.remove", "id": k, "label": "LUCK"})
        assert left(s, k) == {}
        s.undo()
        assert left(s, k) == {"Luck": "1/3"}
        same_as_replay(s)
    with store.open("Night 1") as again:  # reopened: as it stood
        assert left(again, k) == {"Luck": "1/3"}


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ({"spend": 2}, "Kara has 1 Reactions left (cannot spend 2)"),
        ({"restore": 1}, "Kara's Reactions is full"),
        ({"spend": 0}, "spend"),
        ({}, "give one of spend or restore"),
        ({"spend": 1, "restore": 1}, "give one of spend or restore"),
        ({"label": "Legendary", "spend": 1}, "Kara has no counter 'Legendary' (it has: Reactions)"),
    ],
)
def test_bad_changes_are_refused_and_change_nothing(store, doc, words):
    s, ids = table(store, "Kara")
    k = ids["Kara"]
    with s:
        add(s, k, "Reactions", 1, "round")
        n = len(s.events)
        with pytest.raises(EventError, match=words.replace("(", r"\(").replace(")", r"\)")):
            s.apply({"type": "counter.change", "id": k, "label": "Reactions", **doc})
        assert left(s, k) == {"Reactions": "1/1"} and len(s.events) == n


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ({"label": "reactions", "max": 2, "reset": "round"}, "already has a counter 'Reactions'"),
        ({"label": "X", "max": 0, "reset": "round"}, "max: must be a whole number from 1"),
        ({"label": "X", "max": 1, "reset": "dawn"}, "reset: must be one of round, turn, night"),
        ({"label": " ", "max": 1, "reset": "round"}, "label: must not be empty"),
    ],
)
def test_bad_counters_are_refused(store, doc, words):
    s, ids = table(store, "Kara")
    with s:
        add(s, ids["Kara"], "Reactions", 1, "round")
        with pytest.raises(EventError, match=words):
            s.apply({"type": "counter.add", "id": ids["Kara"], **doc})


def test_resets_each_round_and_at_the_start_of_its_own_turn_undone_with_the_step(store):
    s, k, g = kara_and_gospog(store)
    with s:
        s.apply({"type": "turn.next"})  # round 1: Kara
        spend(s, k, "Reactions")
        spend(s, g, "Legendary", 2)
        ev = s.apply({"type": "turn.next"})  # Gospog's turn starts: its Legendary fills, Kara's Reactions not
        assert left(s, k) == {"Reactions": "0/1"} and left(s, g) == {"Legendary": "3/3"}
        assert "Gospog: Legendary 1/3 → 3/3 (its turn starts)" in ev.changes
        s.undo()  # the step that reset it takes the reset back
        assert left(s, g) == {"Legendary": "1/3"}
        s.redo()
        spend(s, g, "Legendary", 3)
        ev = s.apply({"type": "turn.next"})  # round 2: Kara's Reactions fill; Gospog's turn has not started
        assert s.state.encounter.round == 2
        assert "Kara: Reactions 0/1 → 1/1 (a new round)" in ev.changes
        assert left(s, k) == {"Reactions": "1/1"} and left(s, g) == {"Legendary": "0/3"}
        s.undo()
        assert left(s, k) == {"Reactions": "0/1"}
        s.redo()
        spend(s, k, "Reactions")
        s.apply({"type": "round.new"})  # straight to round 3: Kara's turn starts
        assert left(s, k) == {"Reactions": "1/1"} and left(s, g) == {"Legendary": "0/3"}
        same_as_replay(s)


def test_a_turn_passed_over_does_not_start_and_fills_nothing(store):
    s, ids = table(store, "Kara", "Gospog")
    k, g = ids["Kara"], ids["Gospog"]
    with s:
        add(s, g, "Legendary", 1, "turn")
        order(s, {k: 15, g: 10})
        s.apply({"type": "turn.next"})
        spend(s, g, "Legendary")
        s.apply({"type": "character.status", "id": g, "status": "unconscious"})
        s.apply({"type": "turn.next"})  # Gospog cannot act: round 2, Kara again
        assert left(s, g) == {"Legendary": "0/1"}


def test_the_checkpoint_keeps_counters(store, monkeypatch):
    monkeypatch.setattr(Session, "UNDO_KEPT", 2)  # the checkpoint's rows hold the counters
    s, ids = table(store, "Kara")
    k = ids["Kara"]
    with s:
        add(s, k, "Reactions", 2, "round")
        spend(s, k, "Reactions")
        for i in range(40):
            s.apply({"type": "note", "text": f"note {i}"})
    with store.open("Night 1") as again:  # from its checkpoint
        assert again._ckpt_seq == 43 and left(again, k) == {"Reactions": "1/2"}
    with store.open("Night 1") as again:
        assert left(again, k) == {"Reactions": "1/2"}
        same_as_replay(again)


def test_the_next_night_carries_counters_and_fills_the_nightly_ones(store, capsys, saves):
    s, ids = table(store, "Kara", "Gospog")
    k = ids["Kara"]
    with s:
        add(s, k, "Luck", 3, "night")
        add(s, k, "Reactions", 1, "round")
        add(s, k, "Second wind", 1, "turn")
        spend(s, k, "Luck", 3)
        spend(s, k, "Reactions")
        spend(s, k, "Second wind")
    for rest in ((), ("--rest",)):
        name = f"Next {len(rest)}"
        rc, _, err = gmdesk_cli(capsys, saves, "new", name, "--from", "Night 1", *rest)
        assert rc == 0, err
        with store.open(name) as n:
            kara = next(c for c in n.state.characters.values() if c.name == "Kara")
            assert left(n, kara.id) == {"Luck": "3/3", "Reactions": "0/1", "Second wind": "0/1"}
            ev = n.events[0]
            assert "Kara: Luck 0/3 → 3/3 (a new night)" in ev.changes
            n.undo()
            assert not n.state.characters
            n.redo()
            assert left(n, next(iter(n.state.characters))) == {"Luck": "3/3", "Reactions": "0/1", "Second wind": "0/1"}


def test_the_chronicle_logs_spends(store):
    s, ids = table(store, "Kara")
    k = ids["Kara"]
    with s:
        add(s, k, "Luck", 3, "night")
        spend(s, k, "Luck", 2)
        text = export(s.state, "md", s.events, header=s.header)
    assert "Kara spends 2 Luck (1/3 left)" in text


def test_a_checkpoint_row_of_an_earlier_version_reads_with_no_counters(store):
    from gmdesk.core.session.model import checkpoint_json, state_from_checkpoint

    s, ids = table(store, "Kara")
    with s:
        add(s, ids["Kara"], "Reactions", 1, "round")
        form = checkpoint_json(s.state)
    assert form["characters"][0][20] == [["Reactions", 1, 1, "round"]]
    form["characters"][0] = form["characters"][0][:19]  # as gmdesk wrote it before groups and counters
    assert state_from_checkpoint(form, lambda *a: None).characters[ids["Kara"]].counters == []  # type: ignore[arg-type, return-value]


# ------------------------------------------------------------------ the CLI


def cli_table(capsys, saves) -> None:
    """``gmdesk new "Night 1" --system 4d6`` with Kara added."""
    assert gmdesk_cli(capsys, saves, "new", "Night 1", "--system", "4d6")[0] == 0
    assert gmdesk_cli(capsys, saves, "char", "Night 1", "add", "Kara")[0] == 0


def kara_counter(capsys, saves, *args: str) -> tuple[int, str, str]:
    """``gmdesk char "Night 1" counter Kara ARGS…``: its exit code, stdout and stderr."""
    return gmdesk_cli(capsys, saves, "char", "Night 1", "counter", "Kara", *args)


def test_the_cli_adds_spends_restores_shows_and_removes(capsys, saves):
    cli_table(capsys, saves)
    rc, out, err = kara_counter(capsys, saves, "Reactions", "1", "--reset", "round")
    assert (rc, out, err) == (0, "Kara gets a counter: Reactions 1/1 a round\n", "")
    kara_counter(capsys, saves, "Luck", "3", "--reset", "NIGHT")
    rc, out, _ = kara_counter(capsys, saves, "luck", "--spend", "2")
    assert (rc, out) == (0, "Kara spends 2 Luck (1/3 left)\n")
    rc, out, _ = kara_counter(capsys, saves, "Luck", "--restore", "1")
    assert (rc, out) == (0, "Kara restores 1 Luck (2/3 left)\n")
    rc, out, _ = gmdesk_cli(capsys, saves, "char", "Night 1", "show", "Kara")
    assert "  Counters: Reactions 1/1 a round, Luck 2/3 a night\n" in out
    rc, out, _ = kara_counter(capsys, saves, "Luck")
    assert (rc, out) == (0, "Kara: Luck 2/3 a night\n")
    rc, out, _ = kara_counter(capsys, saves, "Reactions", "--remove")
    assert (rc, out) == (0, "Kara's counter Reactions is removed\n")
    with SessionStore(saves).open("Night 1") as s:
        kara = s.character("Kara")
        assert [x.shown() for x in kara.counters] == ["Luck 2/3 a night"]
        assert [e.type for e in s.events][-4:] == ["counter.add", "counter.change", "counter.change", "counter.remove"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("Reactions", "2"), "--reset: say when the counter fills up again"),
        (("Luck", "3", "--reset", "dawn"), "--reset: must be round, turn or night (got 'dawn')"),
        (("Luck", "three", "--reset", "night"), "MAX: must be a whole number from 1 to 999 (got 'three')"),
        (("Luck", "0", "--reset", "night"), "MAX: must be a whole number from 1 to 999 (got 0)"),
        (("Reactions", "--spend", "2"), "Kara has 1 Reactions left (cannot spend 2)"),
        (("Reactions", "--spend", "-1"), "--spend: must be a whole number from 1"),
        (("Reactions", "--restore", "1"), "Kara's Reactions is full"),
        (("Reactions", "1", "--reset", "round"), "Kara already has a counter 'Reactions'"),
        (("Reactions", "1", "--spend", "1"), "MAX: adds a counter"),
        (("Reactions", "--reset", "turn"), "--reset: goes with MAX"),
        (("Legendary", "--spend", "1"), "Kara has no counter 'Legendary' (it has: Reactions)"),
        (("Legendary",), "Kara has no counter 'Legendary' (its counters: Reactions)"),
        (("Reactions", "--spend", "1", "--remove"), "not allowed with"),
    ],
)
def test_bad_cli_input_is_one_line_and_touches_nothing(capsys, saves, args, words):
    from helpers import files_of, one_error_line

    cli_table(capsys, saves)
    kara_counter(capsys, saves, "Reactions", "1", "--reset", "round")

    def saved() -> dict:  # the session's files (the writer's lock is taken and let go)
        return {k: v for k, v in files_of(saves).items() if not k.endswith(".lock")}

    before = saved()
    rc, out, err = kara_counter(capsys, saves, *args)
    assert rc == 2 and out == ""
    one_error_line(err, words)
    assert saved() == before


def test_the_public_chronicle_leaves_out_an_npcs_counters(store):
    s, k, g = kara_and_gospog(store)
    with s:
        s.apply({"type": "turn.next"})
        spend(s, k, "Reactions")
        spend(s, g, "Legendary", 2)
        turn = s.apply({"type": "turn.next"})  # Gospog's Legendary fills up
        public = export(s.state, "md", s.events, header=s.header)
        gm = export(s.state, "md", s.events, public=False, header=s.header)
        told = public_event(s.state, turn)
    assert "Kara spends 1 Reactions (0/1 left)" in public and "Legendary" not in public
    assert "Gospog spends 2 Legendary (1/3 left)" in gm
    assert "Gospog: Legendary 1/3 → 3/3 (its turn starts)" in turn.changes
    assert told is not None and told.summary == turn.summary and not told.changes


def test_a_spend_and_a_reset_survive_a_kill(store):
    from helpers import killed_after

    s, k, g = kara_and_gospog(store, legendary=2)
    s.close()
    path = store.list()[0].path
    killed_after(
        path,
        {"type": "turn.next"},
        {"type": "counter.change", "id": k, "label": "Reactions", "spend": 1},
        {"type": "counter.change", "id": g, "label": "Legendary", "spend": 2},
        {"type": "turn.next"},  # Gospog's turn: its Legendary fills up
    )
    with store.open("Night 1") as again:
        assert left(again, k) == {"Reactions": "0/1"} and left(again, g) == {"Legendary": "2/2"}
        again.undo()  # the turn, with its reset
        assert left(again, g) == {"Legendary": "0/2"}


def test_a_groups_turn_fills_up_the_turn_counters_of_each_member_who_acts(store):
    s, ids = table(store, "Kara", "G1", "G2")
    k, g1, g2 = ids["Kara"], ids["G1"], ids["G2"]
    with s:
        for g in (g1, g2):
            add(s, g, "Legendary", 1, "turn")
        s.apply({"type": "group.set", "label": "Gospog", "ids": [g1, g2]})
        s.roll_initiative([k, g1], values={k: 15, g1: 10})
        s.apply({"type": "turn.next"})  # Kara
        spend(s, g1, "Legendary")
        spend(s, g2, "Legendary")
        ev = s.apply({"type": "turn.next"})  # the group's turn: both members'
        assert left(s, g1) == left(s, g2) == {"Legendary": "1/1"}
        assert "G2: Legendary 0/1 → 1/1 (its turn starts)" in ev.changes
        same_as_replay(s)
