"""A long session's roll log keeps its older entries packed: the GM (and every rule
that looks back) sees every roll exactly as before — across undo, a reveal that
changes old rolls, a reopen from the checkpoint and a replay of the log — while the
session holds a few dozen bytes an old roll, and the checkpoint keeps the pages as
they are (an open does not unpack them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.core.session.model import rolllog
from gmdesk.core.session.model.rolllog import RollLog
from gmdesk.core.session.storage import sidecar_paths
from gmdesk.core.systems import get_system

FOUR_D_TWO = get_system("4d2")


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rolllog, "PAGE", 40)
    monkeypatch.setattr("gmdesk.core.session.session.PAGE", 40)
    monkeypatch.setattr(Session, "RECORDS_KEPT", 10)
    monkeypatch.setattr(Session, "UNDO_KEPT", 10)


def _rolls(s: Session) -> list[dict]:
    return [r.to_json() for r in s.state.rolls]


def _replayed(path: Path) -> list[dict]:
    Session.CHECKPOINTS = False
    try:
        with Session.open(path, readonly=True) as s:
            return _rolls(s)
    finally:
        Session.CHECKPOINTS = True


def test_old_rolls_are_packed_and_read_back_as_they_were(tmp_path, small_pages):
    path = tmp_path / "long.gmdesk"
    rng = FixedDice([5, 5, 1, 1, 2, 2, 1, 5] * 200)
    with Session.create(path, "Long night", "4d2") as s:
        kara = s.apply({"type": "character.add", "character": {"name": "Kara", "vitality": 10}}).data["id"]
        gos = s.apply({"type": "character.add", "character": {"name": "Gos", "vitality": 10}}).data["id"]
        s.apply({"type": "character.hide", "id": gos})
        for i in range(300):
            if i % 3:
                s.roll("4d2", FOUR_D_TWO.Params(), actor=kara, rng=rng)
            else:
                s.roll("4d2", FOUR_D_TWO.Params(), actor=gos, target=kara, rng=rng)
        rolls = s.state.rolls
        assert isinstance(rolls, RollLog) and rolls.packed_count >= 200  # most of them packed
        hidden_before = sum(r.hidden for r in rolls)
        assert hidden_before == 100
        # a reveal changes old, packed rolls: they come out of their pages, changed
        s.apply({"type": "character.reveal", "id": gos, "rolls": [r.seq for r in rolls if r.hidden]})
        assert not any(r.hidden for r in s.state.rolls)
        # the newest taken back and made again
        for _ in range(25):
            assert s.undo() is not None
        # (the reveal undone first: Gos's rolls among the 276 left are hidden again)
        assert sum(r.hidden for r in s.state.rolls) == sum(1 for i in range(276) if i % 3 == 0)
        for _ in range(25):
            assert s.redo() is not None
        assert not any(r.hidden for r in s.state.rolls)
        live = _rolls(s)
        assert live[0]["seq"] == 4 and live[0]["record"] == s.events[3].data["record"]
        assert len(live) == 300
        assert s.state.roll_entry(live[5]["seq"]).to_json() == live[5]  # found by seq (bisect)
        assert [r.to_json() for r in reversed(s.state.rolls)] == live[::-1]
    ckpt = sidecar_paths(path)["checkpoint"].read_bytes()
    assert b'"roll_pages"' in ckpt
    with Session.open(path, readonly=True) as s:  # from the checkpoint: pages not unpacked
        assert s._ckpt_seq > 0 and isinstance(s.state.rolls, RollLog)
        assert all(isinstance(p, str) for p in s.state.rolls._pages)
        assert _rolls(s) == live
    assert _replayed(path) == live


def test_an_undo_into_the_pages_unpacks_what_it_keeps(tmp_path, small_pages):
    path = tmp_path / "long.gmdesk"
    rng = FixedDice([5, 5, 1, 1] * 400)
    with Session.create(path, "Long night", "4d2") as s:
        for _ in range(200):
            s.roll("4d2", FOUR_D_TWO.Params(), rng=rng)
        before = _rolls(s)
        assert s.state.rolls.packed_count > 100
        for _ in range(150):  # far past the undo the fold keeps, deep into the pages
            assert s.undo() is not None
        assert _rolls(s) == before[:50]
        for _ in range(150):
            assert s.redo() is not None
        assert _rolls(s) == before
        s.roll("4d2", FOUR_D_TWO.Params(), rng=rng)
        after = _rolls(s)
    with Session.open(path) as s:
        assert _rolls(s) == after
    assert _replayed(path) == after


def test_a_roll_log_is_a_sequence_like_the_list_it_stands_in_for(tmp_path, small_pages):
    path = tmp_path / "long.gmdesk"
    rng = FixedDice([5, 5, 1, 1] * 400)
    with Session.create(path, "Long night", "4d2") as s:
        for _ in range(130):
            s.roll("4d2", FOUR_D_TWO.Params(), rng=rng)
        rolls = s.state.rolls
        plain = list(rolls)
        assert rolls == plain and plain == rolls and len(rolls) == 130
        assert rolls[-1] == plain[-1] and rolls[3:9] == plain[3:9] and rolls[::7] == plain[::7]
        copy = rolls.copy()
        del copy[5:]
        assert len(copy) == 5 and len(rolls) == 130 and rolls == plain
        with pytest.raises(IndexError):
            rolls[130]
        packed = json.dumps(rolls.packed())
        assert len(packed) < 60 * rolls.packed_count  # a few dozen bytes a packed roll


def test_a_writer_holds_a_few_dozen_bytes_a_roll(tmp_path, small_pages, monkeypatch):
    """What a writer holds grows by far less than a roll's entry a roll (before: about
    half a kilobyte a roll, every roll log entry kept as objects, the undo stack as a
    list of ints): measured past every bounded cache, at the same point of its cycle."""
    import gc
    import os
    import tracemalloc

    from gmdesk.core.session import eventlist

    monkeypatch.setattr(eventlist, "KEPT", 50)
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # (memory does not depend on the disk)
    path = tmp_path / "long.gmdesk"
    rng = FixedDice([5, 5, 1, 1] * 2000)
    tracemalloc.start()  # (from the start: what the warm-up made and later let go is counted too)
    with Session.create(path, "Long night", "4d2") as s:
        kara = s.apply({"type": "character.add", "character": {"name": "Kara", "vitality": 10}}).data["id"]
        for _ in range(399):
            s.roll("4d2", FOUR_D_TWO.Params(), actor=kara, rng=rng)
        try:
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(1600):
                s.roll("4d2", FOUR_D_TWO.Params(), actor=kara, rng=rng)
            gc.collect()
            grown = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert grown / 1600 < 200, f"{grown / 1600:.0f} bytes a roll"
        assert len(s.state.rolls) == 1999 and s.state.rolls[0].record.to_json() == s.events[1].data["record"]
