"""The shipped example sessions play by the rules they show (rebuilt by
``python -m gmdesk.saves.make_examples``): every event in them is one the session accepts
from a GM today (nobody Unconscious or Dead acts, nobody attacks the Dead, no two
characters share a name), the fudge example plays its session's method, and the 4d6
clocks move by the rolls' own progress, the danger clock only on a Partial Success
or a Failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmdesk.core.session.events import Fold
from gmdesk.core.session.model import State
from gmdesk.core.session.storage import EventLog

SAVES = Path(__file__).resolve().parent.parent / "saves"
EXAMPLES = sorted(p.name for p in SAVES.glob("*.gmdesk"))
DANGER_TIERS = ("Partial Success", "Failure", "Critical Failure")


def events(name: str) -> tuple[dict, list[tuple[int, dict]]]:
    with EventLog.open(SAVES / name, readonly=True) as log:
        return dict(log.header), log.events()


def test_there_are_five_examples():
    assert len(EXAMPLES) == 5


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_event_of_an_example_is_one_a_gm_could_make_today(name):
    header, log = events(name)
    fold = Fold(State.from_header(header))
    for seq, doc in log:
        fold.apply(seq, doc, str(doc.get("time", "")), strict=True)  # EventError names the broken rule
    state = fold.state
    names = [c.name.casefold() for c in state.characters.values()]
    assert len(set(names)) == len(names)
    assert state.encounter.round == 2  # a living table: the fight is under way
    cur = state.encounter.current
    assert cur is not None and state.characters[cur.char_id].can_act


def test_the_fudge_example_plays_its_sessions_method():
    header, log = events("The Crooked Mile.gmdesk")
    fold = Fold(State.from_header(header))
    for seq, doc in log:
        fold.apply(seq, doc, str(doc.get("time", "")))
    assert fold.state.info.settings["fudge_method"] == "d20-open"
    methods = {(e.kind, e.record.params["method"]) for e in fold.state.rolls}
    assert methods == {("initiative", "d20-open"), ("roll", "d20-open")}


def test_the_4d6_example_moves_its_clocks_by_the_rules():
    header, log = events("Festival Infiltration.gmdesk")
    fold = Fold(State.from_header(header))
    progress: dict[str, int] = {}
    previous = None
    danger_ticks = 0
    for seq, doc in log:
        fold.apply(seq, doc, str(doc.get("time", "")))
        if doc["type"] == "roll" and doc.get("clock"):
            # a progress clock moves by the roll's own progress (the record says how much)
            entry = fold.state.roll_entry(seq)
            progress[doc["clock"]] = progress.get(doc["clock"], 0) + entry.record.get("clock")
        if doc["type"] == "clock.tick":
            # a hand tick is the GM's danger clock, right after a Partial Success or a Failure
            assert previous is not None and previous["type"] == "roll", (seq, doc)
            tier = fold.state.roll_entry(seq - 1).record.get("tier")
            assert tier in DANGER_TIERS, (seq, tier)
            assert doc["name"] not in progress
            danger_ticks += 1
        previous = doc
    clocks = fold.state.clocks
    assert progress and all(clocks[name].halves == halves for name, halves in progress.items())
    assert danger_ticks >= 1 and clocks["Suspicion"].halves == 2 * danger_ticks
