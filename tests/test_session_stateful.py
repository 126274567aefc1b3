"""Random sessions: any sequence of events, undos, redos and reloads keeps the
session's promises.

* the live state equals a replay of the log from scratch;
* undo after any accepted event gives back exactly the state before it, and redo
  the state after it;
* closing and reopening loses nothing (state, undo and redo stacks);
* the initiative order is a permutation of the combatants (no one twice, no one
  unknown), the turn points inside it;
* a refused event changes nothing and writes nothing.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.events import replay
from gmdesk.core.systems import get_system

FOUR_D_TWO = get_system("4d2")
TORG = get_system("torg-2d10")
CORE4D6 = get_system("4d6")
FUDGE = get_system("fudge")

NAMES = st.sampled_from(["Ann", "Bo", "Cy", "Dee", "Ünï ☃", "<b>"])
SEEDS = st.integers(0, 2**32 - 1)


def snap(state) -> dict:
    d = state.to_json()
    d["info"].pop("last_played")
    return d


class SessionMachine(RuleBasedStateMachine):
    @initialize(system=st.sampled_from(["4d2", "torg-2d10"]))
    def start(self, system):
        self.dir = Path(tempfile.mkdtemp(prefix="gmdesk-stateful-"))
        self.path = SessionStore(self.dir).create("Random night", system)
        self.s = Session.open(self.path)
        for character in (
            {"name": "Kara", "reality_rated": True, "possibilities": 3},
            {"name": "Baron", "side": "NPC", "reality_rated": True, "possibilities": 2},
            {"name": "Unit 7", "side": "NPC", "kind": "inorganic", "vitality": 2},
        ):
            self.s.apply({"type": "character.add", "character": character})

    def teardown(self):
        s = getattr(self, "s", None)
        if s is not None:
            s.close()
        if getattr(self, "dir", None) is not None:
            shutil.rmtree(self.dir, ignore_errors=True)

    # ---- helpers

    def ids(self) -> list[str]:
        return list(self.s.state.characters)

    def pick(self, data_index: int) -> str | None:
        ids = self.ids()
        return ids[data_index % len(ids)] if ids else None

    def do(self, doc_or_call) -> None:
        """Apply; if accepted, check undo∘do = identity and redo gives the same state again.
        If refused, check nothing changed."""
        before = snap(self.s.state)
        count = self.s._log.count
        try:
            doc_or_call() if callable(doc_or_call) else self.s.apply(doc_or_call)
        except EventError as e:
            assert "\n" not in str(e)
            assert snap(self.s.state) == before and self.s._log.count == count
            return
        after = snap(self.s.state)
        self.s.undo()
        assert snap(self.s.state) == before
        self.s.redo()
        assert snap(self.s.state) == after

    # ---- characters and their things

    @rule(
        name=NAMES,
        side=st.sampled_from(["PC", "NPC"]),
        kind=st.sampled_from(["organic", "inorganic"]),
        rr=st.booleans(),
        poss=st.integers(0, 3),
        vit=st.integers(-6, 6),
    )
    def add_character(self, name, side, kind, rr, poss, vit):
        self.do(
            {
                "type": "character.add",
                "character": {
                    "name": name,
                    "side": side,
                    "kind": kind,
                    "reality_rated": rr,
                    "possibilities": poss if rr else 0,
                    "vitality": vit,
                },
            }
        )

    @rule(i=st.integers(0, 99), poss=st.integers(-1, 4), vit=st.integers(-8, 6))
    def edit_character(self, i, poss, vit):
        cid = self.pick(i)
        if cid is None:
            return
        self.do({"type": "character.edit", "id": cid, "fields": {"possibilities": poss, "vitality_current": vit}})

    @rule(i=st.integers(0, 99))
    def remove_character(self, i):
        cid = self.pick(i)
        self.do({"type": "character.remove", "id": cid if cid else "c999"})

    @rule(
        i=st.integers(0, 99),
        kind=st.sampled_from(["advantage", "shift"]),
        name=st.sampled_from(["Mud", "DEX"]),
        value=st.integers(-3, 3),
        rounds=st.none() | st.integers(1, 3),
        op=st.sampled_from(["add", "remove", "toggle"]),
    )
    def source(self, i, kind, name, value, rounds, op):
        cid = self.pick(i) or "c1"
        self.do({"type": f"source.{op}", "id": cid, "kind": kind, "name": name, "value": value, "rounds": rounds})

    @rule(
        i=st.integers(0, 99),
        name=st.sampled_from(["Up", "Stymied", "Soaked"]),
        rounds=st.none() | st.integers(1, 3),
        add=st.booleans(),
    )
    def condition(self, i, name, rounds, add):
        cid = self.pick(i) or "c1"
        self.do({"type": "condition.add" if add else "condition.remove", "id": cid, "name": name, "rounds": rounds})

    # ---- encounter

    @rule(i=st.integers(0, 99), ini=st.integers(-3, 12))
    def encounter_add(self, i, ini):
        cid = self.pick(i) or "c1"
        self.do({"type": "encounter.add", "id": cid, "initiative": ini})

    @rule(i=st.integers(0, 99), op=st.sampled_from(["remove", "delay"]))
    def encounter_change(self, i, op):
        cid = self.pick(i) or "c1"
        self.do({"type": f"encounter.{op}", "id": cid})

    @rule(i=st.integers(0, 99), index=st.integers(0, 5))
    def encounter_move(self, i, index):
        cid = self.pick(i) or "c1"
        self.do({"type": "encounter.move", "id": cid, "index": index})

    @rule(values=st.lists(st.tuples(st.integers(0, 99), st.integers(-5, 15)), min_size=1, max_size=4))
    def initiative_set(self, values):
        ids = self.ids()
        entries = [{"id": ids[i % len(ids)] if ids else "c1", "value": v} for i, v in values]
        self.do({"type": "initiative.set", "entries": entries})

    @rule(seed=SEEDS)
    def roll_initiative(self, seed):
        ids = self.ids()[:3]
        if ids:
            self.do(lambda: self.s.roll_initiative(ids, rng=random.Random(seed)))

    @rule(kind=st.sampled_from(["turn.next", "turn.next", "turn.prev", "round.new", "encounter.end", "day.new"]))
    def tick(self, kind):
        self.do({"type": kind})

    # ---- clocks and notes

    @rule(
        name=st.sampled_from(["Doom", "Alarm"]),
        segments=st.integers(0, 6),
        halves=st.integers(-3, 5),
        op=st.sampled_from(["add", "tick", "tick", "remove"]),
    )
    def clock(self, name, segments, halves, op):
        doc = {"type": f"clock.{op}", "name": name}
        if op == "add":
            doc["segments"] = segments
        if op == "tick":
            doc["halves"] = halves
        self.do(doc)

    @rule(text=st.text(min_size=0, max_size=20))
    def note(self, text):
        self.do({"type": "note", "text": text})

    # ---- rolls

    @rule(
        seed=SEEDS,
        a=st.integers(0, 99),
        t=st.integers(0, 99),
        track=st.booleans(),
        system=st.sampled_from(["4d2", "4d6", "fudge", "torg-2d10"]),
        poss=st.integers(0, 2),
    )
    def combat_roll(self, seed, a, t, track, system, poss):
        actor = self.pick(a)
        target = self.pick(t) if track else None
        if system == "4d2":
            params = FOUR_D_TWO.Params(combat=True)
        elif system == "4d6":
            params = CORE4D6.Params(combat=True, dc=16)
        elif system == "fudge":
            params = FUDGE.Params(combat=True, trait=1, vs_trait=0)
        else:
            params = TORG.Params(combat=True, skill=9, difficulty=9, possibilities=poss, contradiction="4-case")
        self.do(lambda: self.s.roll(system, params, actor=actor, target=target, combat=True, rng=random.Random(seed)))

    def torg_rolls(self):
        return [r for r in self.s.state.rolls if r.kind == "roll" and r.record.system == "torg-2d10"]

    @rule(seed=SEEDS, who=st.integers(0, 99), which=st.integers(0, 99), cancel=st.booleans())
    def possibility(self, seed, who, which, cancel):
        rolls = self.torg_rolls()
        cid = self.pick(who)
        if not rolls or cid is None:
            return
        seq = rolls[which % len(rolls)].seq
        if cancel:
            self.do(lambda: self.s.cancel_possibility(cid, seq))
        else:
            self.do(lambda: self.s.spend_possibility(cid, seq, rng=random.Random(seed)))

    @rule(who=st.integers(0, 99), k=st.integers(0, 3), buy=st.booleans())
    def wound_off(self, who, k, buy):
        cid = self.pick(who) or "c1"
        self.do({"type": "damage.buyoff" if buy else "wound.remove", "id": cid, "wound": k})

    # ---- undo, redo, reload

    @precondition(lambda self: self.s.can_undo)
    @rule()
    def undo(self):
        self.s.undo()

    @precondition(lambda self: self.s.can_redo)
    @rule()
    def redo(self):
        self.s.redo()

    @rule()
    def reload(self):
        before = self.s.state.to_json()
        stacks = (self.s.can_undo, self.s.can_redo)
        self.s.close()
        self.s = Session.open(self.path)
        assert self.s.state.to_json() == before
        assert (self.s.can_undo, self.s.can_redo) == stacks
        assert self.s.warnings == []

    # ---- invariants

    @invariant()
    def live_equals_replay(self):
        if not hasattr(self, "s"):
            return
        log = self.s._log
        fold = replay(log.header, log.events())
        assert fold.state.to_json() == self.s.state.to_json()
        assert (fold.done, fold.undone) == (self.s._fold.done, self.s._fold.undone)

    @invariant()
    def initiative_is_a_permutation(self):
        if not hasattr(self, "s"):
            return
        enc = self.s.state.encounter
        ids = [c.char_id for c in enc.order]
        assert len(ids) == len(set(ids))
        assert set(ids) <= set(self.s.state.characters)
        if ids:
            assert 0 <= enc.turn < len(ids)
        else:
            assert enc.turn == 0
        assert enc.round >= 0

    @invariant()
    def counters_stay_sane(self):
        if not hasattr(self, "s"):
            return
        for c in self.s.state.characters.values():
            assert c.possibilities >= 0
            assert c.status in ("ok", "unconscious", "dead")
            assert c.possibilities == 0 or c.reality_rated
        for clock in self.s.state.clocks.values():
            assert 0 <= clock.halves <= 2 * clock.segments


SessionMachine.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=35,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestSessionMachine = pytest.mark.slow(SessionMachine.TestCase)
