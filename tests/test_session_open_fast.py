"""Opening a long session is fast and means exactly what a full replay means.

* the store reads a snapshot it wrote without parsing its events (a checksum in its
  first line vouches for them); anything else is parsed whole, as before;
* a session opened from its checkpoint has the state, undo and redo stacks, events
  and roll records of a replay of its log from scratch — for many random sessions,
  and again after every further undo, redo and event (also undos that reach past
  the inverses the checkpoint kept);
* a checkpoint that does not fit the log (another gmdesk, another log, a seq beyond
  it, a damaged file) is ignored: the log is replayed and nothing is reported;
* events saved after the checkpoint (a crash) are replayed on top of it.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest

from gmdesk.core.dice import FixedDice, RollRecord
from gmdesk.core.session import Event, EventError, Session, SessionStore
from gmdesk.core.session import session as session_mod
from gmdesk.core.session.events import replay
from gmdesk.core.session.model import LazyRecord
from gmdesk.core.session.storage import CorruptSaveError, EventLog, recovery, sidecar_paths
from gmdesk.core.systems import get_system

FOUR_D_TWO = get_system("4d2")
TORG = get_system("torg-2d10")
FUDGE = get_system("fudge")
CORE4D6 = get_system("4d6")
ONE_D6 = get_system("1d6x4")

SHEET = """Bruno, a dockhand
Descriptor        Default    Current
Vitality           +3
Fitness            +1
Healing Ability       (3)
Magic Ability      +2 (5)
  *Open Lock          (1)
"""


@pytest.fixture
def no_fsync(monkeypatch):
    """Durability is not what these tests look at: skip the disk flushes (speed)."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


@pytest.fixture
def store(tmp_path) -> SessionStore:
    return SessionStore(tmp_path / "saves")


def snap(s: Session) -> dict:
    """The state as JSON, without the wall-clock times (two sessions driven side by
    side may cross a second)."""
    d = s.state.to_json()
    d["info"].pop("last_played")
    for n in d["notes"]:
        n.pop("time")
    return d


def replay_of(s: Session) -> dict:
    log = s._log
    fold = replay(log.header, log.events())
    d = fold.state.to_json()
    d["info"].pop("last_played")
    for n in d["notes"]:
        n.pop("time")
    return {"state": d, "done": fold.done, "undone": fold.undone}


def same_as_replay(s: Session) -> None:
    ref = replay_of(s)
    assert snap(s) == ref["state"]
    assert (s._fold.done, s._fold.undone) == (ref["done"], ref["undone"])
    if not s.readonly:
        assert (s.can_undo, s.can_redo) == (bool(ref["done"]), bool(ref["undone"]))


def copy_log(src: Path, dst: Path, checkpoint: bool = False) -> Path:
    """Copy a closed session's files (the checkpoint only when asked)."""
    for role in ("snapshot", "journal") + (("checkpoint",) if checkpoint else ()):
        a, b = sidecar_paths(src)[role], sidecar_paths(dst)[role]
        if a.exists():
            shutil.copyfile(a, b)
    return dst


def from_checkpoint(s: Session) -> bool:
    return s._ckpt_seq > 0


# --------------------------------------------------------------------------- random play


def _ids(s: Session) -> list[str]:
    return list(s.state.characters)


def _pick(s: Session, rng: random.Random) -> str | None:
    ids = _ids(s)
    return rng.choice(ids) if ids else None


def step(s: Session, rng: random.Random, notes: bool = True) -> None:
    """One random thing a GM does (refusals are part of the game)."""
    roll = rng.random()
    seed = rng.randrange(2**32)
    dice = random.Random(seed)
    a, t = _pick(s, rng), _pick(s, rng)
    try:
        if roll < 0.08 or len(s.state.characters) < 2:
            rr = rng.random() < 0.5
            fields = {
                "name": rng.choice(["Ann", "Bo", "Cy", "Dee", "Ünï ☃"]),
                "reality_rated": rr,
                "possibilities": rng.randint(0, 4) if rr else 0,
                "vitality": rng.randint(-2, 6),
                "kind": rng.choice(["organic", "inorganic"]),
            }
            if rng.random() < 0.3:
                fields["sheet"] = SHEET
            if s.state.name_clash(fields["name"]) is not None:  # names are unique in a session
                fields["name"] = s.state.free_name(fields["name"])
            s.apply({"type": "character.add", "character": fields})
        elif roll < 0.40:
            system = rng.choice(["4d2", "4d6", "fudge", "torg-2d10", "1d6x4"])
            params = {
                "4d2": FOUR_D_TWO.Params(combat=True),
                "4d6": CORE4D6.Params(combat=True, dc=14),
                "fudge": FUDGE.Params(combat=True, trait=1, vs_trait=0),
                "torg-2d10": TORG.Params(combat=True, skill=9, difficulty=9, possibilities=rng.choice([0, 0, 1])),
                "1d6x4": ONE_D6.Params(combat=True, vs_bonus=0),
            }[system]
            s.roll(
                system, params, actor=a, target=t if rng.random() < 0.8 else None, combat=rng.random() < 0.8, rng=dice
            )
        elif roll < 0.48:
            torg = [e for e in s.state.rolls if e.kind == "roll" and e.record.system == "torg-2d10"]
            rich = [c.id for c in s.state.characters.values() if c.reality_rated and c.possibilities]
            a = rng.choice(rich) if rich else a
            if torg and a is not None:
                seq = rng.choice(torg).seq
                if rng.random() < 0.5:
                    s.spend_possibility(a, seq, rng=dice)
                else:
                    s.cancel_possibility(a, seq)
        elif roll < 0.52:
            if a is not None and t is not None:
                s.heal(a, t, rng=dice)
        elif roll < 0.58:
            ids = _ids(s)[:4]
            if ids:
                s.roll_initiative(ids, rng=dice)
        elif roll < 0.68:
            s.apply(
                {"type": rng.choice(["turn.next", "turn.next", "round.new", "turn.prev", "day.new", "encounter.end"])}
            )
        elif roll < 0.72:
            s.apply(
                {
                    "type": "source.add",
                    "id": a or "c1",
                    "kind": "advantage",
                    "name": rng.choice(["Mud", "Fog"]),
                    "value": rng.choice([-2, -1, 1, 2]),
                    "rounds": rng.choice([None, 1, 2]),
                }
            )
        elif roll < 0.75:
            s.apply(
                {
                    "type": "condition.add",
                    "id": a or "c1",
                    "name": rng.choice(["Up", "Stymied", "Soaked"]),
                    "rounds": rng.choice([None, 1, 3]),
                }
            )
        elif roll < 0.78:
            name = rng.choice(["Doom", "Alarm"])
            if name in s.state.clocks:
                s.apply({"type": "clock.tick", "name": name, "halves": rng.choice([-1, 1, 2])})
            else:
                s.apply({"type": "clock.add", "name": name, "segments": 4})
        elif roll < 0.80 and notes:
            s.apply({"type": "note", "text": rng.choice(["ambush", "the bridge holds\nfor now"])})
        elif roll < 0.84:
            s.apply(
                {"type": rng.choice(["damage.buyoff", "wound.remove"]), "id": a or "c1", "wound": rng.randint(0, 2)}
            )
        elif roll < 0.86:
            s.apply({"type": "use", "id": a or "c1", "descriptor": "Magic Ability/Open Lock"})
        elif roll < 0.95:
            for _ in range(rng.randint(1, 4)):
                s.undo()
        else:
            for _ in range(rng.randint(1, 3)):
                s.redo()
    except EventError:
        pass


def play(s: Session, seed: int, steps: int, notes: bool = True) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        step(s, rng, notes)


# --------------------------------------------------------------------------- the store


def test_a_snapshot_gmdesk_wrote_opens_without_parsing_its_events(tmp_path, monkeypatch):
    path = tmp_path / "s.gmdesk"
    docs = [{"type": "note", "text": f"note {i} ☃", "n": i} for i in range(1, 301)]
    with EventLog.create(path, {"name": "x"}) as log:
        log.append_many(docs)
        log.compact()
    monkeypatch.setattr(recovery, "parse_snapshot", lambda *a: pytest.fail("parsed the whole snapshot"))
    with EventLog.open(path, readonly=True) as log:
        assert log.count == 300
        assert log.event(7) == docs[6]
        parsed = sum(d is not None for d in log._storage.read()["events"]._docs)
        assert parsed == 1  # only the one asked for
        assert log.events() == list(zip(range(1, 301), docs, strict=False))
    with EventLog.open(path) as log:  # the writer too; appends and compaction keep it so
        log.append({"type": "note", "text": "more"})
        log.compact()
        log.append({"type": "note", "text": "in the journal"})
    with EventLog.open(path, readonly=True) as log:
        assert [d["text"] for _, d in log.events()[-2:]] == ["more", "in the journal"]


def test_a_hand_edited_snapshot_is_reported_never_recertified(tmp_path):
    path = tmp_path / "s.gmdesk"
    with EventLog.create(path, {"name": "x"}) as log:
        log.append_many([{"type": "note", "text": f"n{i}"} for i in range(5)])
        log.compact()
    raw = path.read_bytes()
    for edited in (
        raw.replace(b'"text":"n3"', b'"text":"changed by hand"'),
        raw.replace(b'"text":"n3"', b'"text":"n4"'),
        raw.replace(b'"text":"n3"', b'"text":n3"'),
    ):
        path.write_bytes(edited)
        for readonly in (True, False):
            with pytest.raises(CorruptSaveError) as err:
                EventLog.open(path, readonly=readonly)
            assert "changed since gmdesk saved them" in err.value.problem
        assert path.read_bytes() == edited  # nobody stamped a new checksum over it


def test_the_digest_follows_the_event_texts_not_the_files(tmp_path):
    path = tmp_path / "s.gmdesk"
    with EventLog.create(path, {"name": "x"}) as log:
        log.append_many([{"type": "note", "text": f"n{i}"} for i in range(40)])
        before = [log.digest(k) for k in range(41)]
        log.compact()
        assert [log.digest(k) for k in range(41)] == before
        log.append({"type": "note", "text": "late"})
        assert [log.digest(k) for k in range(41)] == before
        last = log.digest()
    with EventLog.open(path, readonly=True) as log:
        assert [log.digest(k) for k in range(41)] == before and log.digest() == last
    other = tmp_path / "o.gmdesk"
    with EventLog.create(other, {"name": "x"}) as log:
        log.append_many([{"type": "note", "text": f"n{i}"} for i in range(39)] + [{"type": "note", "text": "!"}])
        assert log.digest(39) == before[39] and log.digest(40) != before[40]


def test_an_event_changed_through_tinydb_stays_consistent(tmp_path):
    path = tmp_path / "s.gmdesk"
    with EventLog.create(path, {"name": "x"}) as log:
        log.append_many([{"type": "note", "text": f"n{i}"} for i in range(6)])
        log.compact()
    with EventLog.open(path) as log:
        log.db.table("events").update({"text": "rewritten"}, doc_ids=[3])
        assert log.event(3)["text"] == "rewritten" and log.event(4)["text"] == "n3"
        log.compact()
        assert [d["text"] for _, d in log.events()] == ["n0", "n1", "rewritten", "n3", "n4", "n5"]
        digest = log.digest()
    with EventLog.open(path, readonly=True) as log:
        assert [d["text"] for _, d in log.events()] == ["n0", "n1", "rewritten", "n3", "n4", "n5"]
        assert log.digest() == digest


# --------------------------------------------------------------------------- checkpoint == replay


@pytest.mark.parametrize("seed", range(24))
def test_a_session_opened_from_its_checkpoint_is_its_replay(store, tmp_path, seed, monkeypatch, no_fsync):
    if seed % 2:
        monkeypatch.setattr(Session, "UNDO_KEPT", 3)  # undo soon reaches past the kept inverses
    system = ["4d2", "torg-2d10", "1d6x4", "fudge", "4d6"][seed % 5]
    path = store.create(f"Random {seed}", system)
    with Session.open(path) as s:
        play(s, seed, 70)
        live, stacks = snap(s), (list(s._fold.done), list(s._fold.undone))
    ref_path = copy_log(path, tmp_path / "reference.gmdesk")  # the same log, no checkpoint
    s, r = Session.open(path), Session.open(ref_path)
    try:
        assert from_checkpoint(s) and not from_checkpoint(r)
        assert snap(s) == snap(r) == live and (s._fold.done, s._fold.undone) == stacks
        assert s.warnings == r.warnings == []
        same_as_replay(s)
        assert len(s.events) == len(r.events) and list(s.events) == list(r.events)
        assert [e.record for e in s.state.rolls] == [e.record for e in r.state.rolls]
        # the same further play gives the same session, step by step
        rng_s, rng_r = random.Random(seed + 100), random.Random(seed + 100)
        for _ in range(40):
            step(s, rng_s, notes=False)
            step(r, rng_r, notes=False)
            assert snap(s) == snap(r)
            assert (s._fold.done, s._fold.undone) == (r._fold.done, r._fold.undone)
        while s.can_undo:  # every undo, all the way back, on both
            assert s.undo().summary == r.undo().summary
            assert snap(s) == snap(r)
        assert not r.can_undo
        same_as_replay(s)
    finally:
        s.close()
        r.close()


def test_undo_and_redo_right_after_reopening_are_exact(store, monkeypatch, no_fsync):
    monkeypatch.setattr(Session, "UNDO_KEPT", 2)
    path = store.create("Docks", "4d2")
    states = []
    with Session.open(path) as s:
        a = s.apply({"type": "character.add", "character": {"name": "Kara", "vitality": 3}}).data["id"]
        b = s.apply({"type": "character.add", "character": {"name": "Bruno", "vitality": 3}}).data["id"]
        states.append(snap(s))
        for faces in ([2, 2, 1, 1], [1, 2, 2, 1], [2, 2, 2, 1], [1, 1, 2, 2], [2, 1, 1, 1]):
            s.roll("4d2", FOUR_D_TWO.Params(combat=True), actor=a, target=b, combat=True, rng=FixedDice(faces))
            states.append(snap(s))
        s.undo()  # one on the redo stack
        redo_state = states.pop()
    with Session.open(path) as s:
        assert from_checkpoint(s) and s._fold.rebuild is not None
        assert snap(s) == states[-1] and s.can_redo
        s.redo()
        assert snap(s) == redo_state
        s.undo()
        for expected in reversed(states[:-1]):
            s.undo()  # the third one reaches past the two kept: the log is replayed, once
            assert snap(s) == expected
        assert s._fold.rebuild is None
        same_as_replay(s)
        while s.can_redo:
            s.redo()
        assert snap(s) == redo_state


@pytest.mark.parametrize("kept", [200, 2])
def test_events_saved_after_the_checkpoint_are_replayed_on_top_of_it(store, monkeypatch, no_fsync, kept):
    monkeypatch.setattr(Session, "UNDO_KEPT", kept)
    path = store.create("Docks", "torg-2d10")
    with Session.open(path) as s:
        play(s, 7, 40)
        covered = s._log.count
    s = Session.open(path)
    for _ in range(6):  # (with 2 kept, these reach past them, in the saved tail too)
        s.undo()
    play(s, 8, 30)
    live = snap(s)
    s._log._storage.abandon()  # gmdesk is killed: no clean close, no new checkpoint
    with Session.open(path, readonly=True) as again:
        assert again._ckpt_seq == covered < again._log.count
        assert snap(again) == live
        same_as_replay(again)


def test_the_store_compacting_refreshes_the_checkpoint(store, no_fsync):
    path = store.create("Docks", "4d2")
    s = Session(EventLog.open(path, compact_at=25), path=path)
    play(s, 3, 60)
    live = snap(s)
    head, _ = s._log.read_checkpoint()
    assert head["seq"] >= 25  # written when the journal was compacted, not only at close
    s._log._storage.abandon()
    with Session.open(path, readonly=True) as again:
        assert again._ckpt_seq == head["seq"] and snap(again) == live


# --------------------------------------------------------------------------- checkpoints that do not fit


def _closed_session(store: SessionStore, name: str, seed: int, steps: int = 40) -> Path:
    path = store.create(name, "4d2")
    with Session.open(path) as s:
        play(s, seed, steps)
    return path


def _expect_replay(path: Path) -> None:
    with Session.open(path, readonly=True) as s:
        assert not from_checkpoint(s) and s.warnings == []
        same_as_replay(s)


def test_a_checkpoint_of_another_log_or_gmdesk_is_ignored(store, tmp_path, monkeypatch, no_fsync):
    path = _closed_session(store, "A", 1)
    ckpt = sidecar_paths(path)["checkpoint"]
    good = ckpt.read_bytes()
    with Session.open(path, readonly=True) as s:
        assert from_checkpoint(s)
    # another gmdesk (its fold may differ): replay
    monkeypatch.setattr(session_mod, "fold_fingerprint", lambda: "another gmdesk")
    _expect_replay(path)
    monkeypatch.undo()
    head, body = good.split(b"\n", 1)
    ckpt.write_bytes(json.dumps({**json.loads(head), "version": 99}).encode() + b"\n" + body)
    _expect_replay(path)
    # damaged or cut short
    ckpt.write_bytes(good[:-10])
    _expect_replay(path)
    ckpt.write_bytes(good[:-3] + b"XYZ")
    _expect_replay(path)
    ckpt.write_bytes(b"")
    _expect_replay(path)
    # another log of the same length
    other = _closed_session(store, "B", 2)
    ckpt.write_bytes(good)
    counts = {p: EventLog.open(p, readonly=True).count for p in (path, other)}
    for p in (path, other):
        with Session.open(p) as s:
            while s._log.count < max(counts.values()):
                s.apply({"type": "note", "text": "padding"})
    good = ckpt.read_bytes()
    shutil.copyfile(sidecar_paths(other)["checkpoint"], ckpt)
    _expect_replay(path)
    # the log cut back before the checkpoint's seq (a copy of an older save)
    ckpt.write_bytes(good)
    short = copy_log(path, tmp_path / "short.gmdesk")
    with EventLog.open(short) as log:
        count = log.count
    with Session.open(path) as s:
        s.apply({"type": "note", "text": "one more"})
    shutil.copyfile(ckpt, sidecar_paths(short)["checkpoint"])
    assert EventLog.open(short, readonly=True).count == count
    _expect_replay(short)


def test_read_only_opens_never_write_a_checkpoint(store, no_fsync):
    path = _closed_session(store, "A", 4)
    ckpt = sidecar_paths(path)["checkpoint"]
    ckpt.unlink()
    with Session.open(path, readonly=True) as s:
        assert not from_checkpoint(s)
    assert not ckpt.exists()
    with Session.open(path) as s:  # the writer leaves one for next time
        pass
    assert ckpt.exists()
    store.delete(path)
    assert not ckpt.exists()


def test_a_follower_opened_from_a_checkpoint_follows_deep_undos(store, monkeypatch, no_fsync):
    monkeypatch.setattr(Session, "UNDO_KEPT", 2)
    path = _closed_session(store, "A", 5, 50)
    w = Session.open(path)
    r = Session.open(path, readonly=True)
    try:
        assert from_checkpoint(r)
        for _ in range(6):
            w.undo()
        w.apply({"type": "note", "text": "after the undos"})
        assert r.refresh()
        assert r.state.to_json() == w.state.to_json()
        assert (r._fold.done, r._fold.undone) == (w._fold.done, w._fold.undone)
    finally:
        r.close()
        w.close()


# --------------------------------------------------------------------------- lazily, but the same


def test_roll_records_are_read_when_first_looked_at(store, tmp_path, monkeypatch, no_fsync):
    monkeypatch.setattr(Session, "UNDO_KEPT", 5)
    path = store.create("Docks", "torg-2d10")
    with Session.open(path) as s:
        play(s, 11, 80)
    ref = Session.open(copy_log(path, tmp_path / "ref.gmdesk"), readonly=True)
    with Session.open(path, readonly=True) as s:
        assert from_checkpoint(s)
        reapplied = s._fold.done[-Session.UNDO_KEPT :]  # applied again at open (a spend re-reads its roll)
        untouched = [e for e in s.state.rolls if e.seq < reapplied[0] and not e.spends and not e.cancels]
        assert len(untouched) > 10 and all(type(e.__dict__["record"]) is LazyRecord for e in untouched)
        for mine, theirs in zip(s.state.rolls, ref.state.rolls, strict=False):
            assert isinstance(mine.record, RollRecord) and mine.record == theirs.record
            assert mine.record is mine.record and mine == theirs
    ref.close()


def test_the_events_are_the_log_in_order(store, no_fsync):
    path = _closed_session(store, "A", 6, 30)
    with Session.open(path, readonly=True) as s:
        log_events = [Event.from_doc(seq, doc) for seq, doc in s._log.events()]
        assert len(s.events) == len(log_events)
        assert s.events[-1] == log_events[-1] and s.events[0] == log_events[0]
        assert s.events[3:7] == log_events[3:7] and s.events[-3:] == log_events[-3:]
        assert s.events == log_events and list(s.events) == log_events
        assert s.events[5] is s.events[5]
        assert [e.seq for e in s.events] == list(range(1, len(log_events) + 1))
        assert s.event(4) == log_events[3] and s.undo_target in (None, *log_events)


# --------------------------------------------------------------------------- fast


def _long_session(path: Path, n: int) -> None:
    """``n`` events, mostly rolls, written straight to the log (quick to build)."""
    rng = random.Random(1)
    docs = [
        {
            "type": "character.add",
            "character": {"name": name, "vitality": 10},
            "id": f"c{i}",
            "summary": f"{name} joins",
        }
        for i, name in enumerate(["A", "B", "C", "D"], 1)
    ]
    docs += [{"type": "encounter.add", "id": f"c{i}", "summary": "joins the encounter"} for i in range(1, 5)]
    docs.append({"type": "round.new", "summary": "Round 1"})
    while len(docs) < n:
        k = len(docs)
        if k % 5 == 4:
            docs.append({"type": "turn.next", "summary": "next"})
            continue
        combat = k % 3 == 0
        rec = FOUR_D_TWO.roll(FOUR_D_TWO.Params(combat=combat), rng)
        docs.append(
            {
                "type": "roll",
                "record": rec.to_json(),
                "actor": f"c{k % 4 + 1}",
                "target": f"c{(k + 1) % 4 + 1}",
                "combat": combat,
                "summary": "a roll",
                "time": "2026-11-21T22:00:00",
            }
        )
    head = {"format": "gmdesk-session", "name": "Long", "system": "4d2", "settings": {}}
    with EventLog.create(path, head, compact_at=10**9) as log:
        for start in range(0, n, 2000):
            log.append_many(docs[start : start + 2000])
        log.compact()


@pytest.mark.slow
def test_a_long_session_opens_from_its_checkpoint_without_parsing_the_history(tmp_path, no_fsync):
    """Opening reads the checkpoint and parses only the recent events (times are in
    benchmarks/bench_store.py, not here)."""
    path = tmp_path / "long.gmdesk"
    _long_session(path, 10_000)
    with Session.open(path) as s:  # the first open replays the log; closing saves the checkpoint
        assert not from_checkpoint(s) and len(s.state.rolls) > 7000
    for readonly in (True, False):
        s = Session.open(path, readonly=readonly)
        try:
            assert from_checkpoint(s)
            parsed = sum(d is not None for d in s._log._storage.read()["events"]._docs)
            assert parsed <= 3 * Session.UNDO_KEPT  # not the 10,000 events
            if not readonly:
                s.apply({"type": "note", "text": "still writable"})
                assert s.events[-1].type == "note"
        finally:
            s.close()
