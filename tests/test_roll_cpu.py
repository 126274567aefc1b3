"""What each roll of ``gmdesk roll --count N --save`` no longer does twice, with the
same result: a commit looks at each of the session's two files once (and still
notices either replaced, see tests/test_store_hostile.py), a journal line is encoded
once for its checksum and its bytes, a header change is read back without parsing
it, the time is told once a second, and parameters nothing was filled into are not
checked again."""

from __future__ import annotations

import datetime
import json
import os
import random
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_roll_save_cost import RECORDS, _typed

from gmdesk.core import dice as dice_module
from gmdesk.core import render
from gmdesk.core.dice import ROLES, Die, RollRecord, freeze, shared_die, thaw
from gmdesk.core.errors import ParamError
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.plain import plain_event
from gmdesk.core.session.storage import EventLog, sidecar_paths
from gmdesk.core.session.storage.checksums import seal, seal_bytes, unseal
from gmdesk.core.session.storage.codec import dumps, read_back
from gmdesk.core.systems import BUILTIN_IDS, get_spec
from gmdesk.core.systems import base as systems_base
from gmdesk.core.systems.base import dataclass_to_json
from gmdesk.core.text import now_iso

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "saves").glob("*.gmdesk"))


def test_a_commit_looks_at_each_of_the_sessions_files_once(tmp_path, monkeypatch):
    with EventLog.create(tmp_path / "s.gmdesk", {"name": "Docks"}) as log:
        log.append({"type": "note", "text": "warm-up"}, header={"rolls": 1})
        calls: list[str] = []
        real_stat, real_fstat = os.stat, os.fstat

        def stat(path: Any, *a: Any, **k: Any) -> Any:
            calls.append(f"stat {Path(path).name}")
            return real_stat(path, *a, **k)

        def fstat(fd: int) -> Any:
            calls.append("fstat")
            return real_fstat(fd)

        monkeypatch.setattr(os, "stat", stat)
        monkeypatch.setattr(os, "fstat", fstat)
        log.append({"type": "note", "text": "one"}, header={"rolls": 2})
        monkeypatch.undo()
    assert sorted(calls) == ["stat s.gmdesk", "stat s.gmdesk.journal"]


@pytest.mark.parametrize("victim", ["snapshot", "journal"])
def test_a_file_replaced_after_many_commits_is_still_noticed(tmp_path, victim):
    """(what the inodes remembered stand for: the files as they were locked and written)"""
    path = tmp_path / "s.gmdesk"
    log = EventLog.create(path, {"name": "Docks"})
    for i in range(5):
        log.append({"type": "note", "text": str(i)})
    target = sidecar_paths(path)[victim]
    copy = target.with_name(target.name + ".sync")
    copy.write_bytes(target.read_bytes())
    os.replace(copy, target)
    with pytest.raises(Exception, match="changed on disk"):
        log.append({"type": "note", "text": "lost?"})
    log.close()
    with EventLog.open(path, readonly=True) as again:
        assert [d["text"] for _, d in again.events()] == ["0", "1", "2", "3", "4"]


_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text()
)
_VALUE = st.recursive(
    _SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner), max_leaves=20
)


@given(st.dictionaries(st.text(), _VALUE, max_size=6))
def test_a_header_change_reads_back_as_json_reads_it(changes):
    text = dumps(changes)
    got = read_back(changes, text)
    assert _typed(got) == _typed(json.loads(text))
    assert got is not changes  # a copy: the caller's dict stays the caller's


@given(st.text())
def test_a_journal_line_is_sealed_over_the_bytes_written(text):
    record = dumps({"n": 1, "op": "hdr", "set": {"name": text}})
    line = seal_bytes(record.encode("utf-8"))
    assert line == seal(record).encode("utf-8")
    assert unseal(line) == record.encode("utf-8")


def test_the_time_told_is_this_second_in_the_zone_in_force(monkeypatch):
    def now() -> str:
        return datetime.datetime.now().astimezone().isoformat(timespec="seconds")

    for zone in ("UTC", "Asia/Kolkata", "America/St_Johns"):
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        before, told, after = now(), now_iso(), now()
        assert told in (before, after)
    monkeypatch.undo()
    time.tzset()


def _recorded_params() -> list[tuple[str, dict[str, Any]]]:
    """(system, parameters' JSON) of every roll the shipped example sessions hold."""
    out = []
    for path in EXAMPLES:
        with Session.open(path, readonly=True) as s:
            for e in s.events:
                record = e.data.get("record")
                if isinstance(record, Mapping) and record.get("system") in BUILTIN_IDS:
                    out.append((str(record["system"]), dict(thaw(record["params"]))))
    return out


def test_parameters_read_back_from_their_json_are_the_same_parameters():
    """What lets a roll whose session fills nothing keep its checked parameters."""
    seen = 0
    for sid, data in [*((sid, {}) for sid in BUILTIN_IDS), *_recorded_params()]:
        spec = get_spec(sid)
        try:
            params = spec.params_from_json(data)
        except ParamError:
            continue
        assert spec.params_from_json(dataclass_to_json(params)) == params, (sid, data)
        seen += 1
    assert seen > len(BUILTIN_IDS)


def test_parameters_nothing_is_filled_into_are_not_checked_again(tmp_path, monkeypatch):
    path = SessionStore(tmp_path).create("Docks", "4d2")
    spec = get_spec("4d2")
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Ann", "kind": "inorganic"}})
        ann = s.character("Ann")
        params = spec.params_from_json({})
        checked: list[Any] = []
        real = systems_base.dataclass_from_json

        def counting(cls: Any, data: Any) -> Any:
            checked.append(dict(data))
            return real(cls, data)

        monkeypatch.setattr(systems_base, "dataclass_from_json", counting)
        assert s.fill_params("4d2", params) is params
        assert checked == []
        # a value filled in (the target's kind) is checked with the rest
        filled = s.fill_params("4d2", params, target=ann)
        assert filled.target_kind == "inorganic" and len(checked) == 1


def test_a_record_made_is_the_one_its_saved_json_reads_as():
    """What lets the fold keep a roll's record as made rather than read its JSON again:
    wherever the event's copy is the plain one, that JSON reads as the very record."""
    kept = 0
    for record in RECORDS:  # (every system's, plain and in combat, and the example sessions')
        data, known = plain_event({"type": "roll", "record": record}, "roll")
        assert data["record"] == json.loads(dumps(record.to_json()))
        if known is not None:
            assert known is record
            assert RollRecord.from_trusted_json(json.loads(dumps(data["record"]))) == record
            kept += 1
    assert kept > 100


def test_the_fold_keeps_a_roll_just_made_without_reading_its_record_again(tmp_path, monkeypatch):
    path = SessionStore(tmp_path).create("Docks", "4d2")
    with Session.open(path) as s:
        s.roll("4d2", {}, rng=random.Random(3))
        read: list[Any] = []
        real = RollRecord.from_trusted_json.__func__  # type: ignore[attr-defined]
        monkeypatch.setattr(RollRecord, "from_trusted_json", classmethod(lambda cls, d: read.append(d) or real(cls, d)))
        event = s.roll("4d2", {}, rng=random.Random(4))
        monkeypatch.undo()
        assert read == []
        live = s.state.to_json()
        assert s.state.rolls[-1].record == RollRecord.from_json(event.data["record"])
    with Session.open(path, readonly=True) as again:  # a replay folds the same state
        assert again.state.to_json()["rolls"] == live["rolls"]


def test_a_record_holding_values_json_changes_is_read_back_from_its_json():
    """(a key that is not text: what its JSON reads as differs from the record, so
    the fold reads the JSON as a replay would)"""
    odd = {"t": (1, [2, (3,)]), "m": {7: "seven"}}
    record = RollRecord("4d2", odd, (), 0, "x", {"e": [odd]})
    data, known = plain_event({"type": "roll", "record": record}, "roll")
    assert known is None
    assert data["record"] == json.loads(json.dumps(record.to_json()))
    assert RollRecord.from_trusted_json(data["record"]) != record


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text()),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner) | st.dictionaries(st.text(), inner, max_size=3),
)


@given(st.dictionaries(st.text(), _JSON, max_size=5))
def test_a_records_values_freeze_and_thaw_as_the_general_freeze_and_thaw(value):
    frozen = dice_module._freeze_json(value)
    assert frozen == freeze(value) and _typed(thaw(frozen)) == _typed(thaw(freeze(value)))
    assert _typed(dice_module._thaw_json(frozen)) == _typed(thaw(frozen))


_FACE = st.one_of(st.integers(-3, 3), st.sampled_from(["", "\x07", "\x1b[1m+1", "\r−2", "+0", "x\x00y"]))


@given(
    st.lists(st.tuples(st.integers(0, 20), st.sampled_from(ROLES)), max_size=7),
    st.one_of(st.none(), st.lists(_FACE, min_size=0, max_size=7)),
    st.integers(0, 3),
    st.integers(0, 3),
    st.booleans(),
    st.sampled_from([{}, {"combat": True}, {"combat": True, "mutual": True}]),
)
def test_the_dice_of_a_roll_line_read_as_the_rich_text_reads_them(dice, faces, n_vs, n_damage, auto_fail, params):
    """(the plain line's dice are written as plain strings: the same as the Rich
    Text's, whatever the roles, printed faces, groups, labels and control codes)"""
    dies = tuple(Die(v, role) for v, role in dice)
    extra: dict[str, Any] = {}
    if faces is not None:
        extra["faces"] = faces
    if n_vs:
        extra["opponent"] = {"dice": [d.to_json() for d in dies[-n_vs - n_damage :][:n_vs]], "total": 1}
    if n_damage:
        extra["damage_dice"] = [d.to_json() for d in dies[len(dies) - n_damage :]]
    if auto_fail:
        extra["auto_fail"] = "no skill"
    if not n_vs and auto_fail:  # (an other side without dice of its own)
        extra["opponent"] = {"dice": [], "auto_fail": "no skill"}
    for system in (*BUILTIN_IDS, "not-installed"):
        record = RollRecord(system, params, dies, 0, "x", extra)
        assert render.dice_plain(record) == (render.dice_text(record).plain if dies else render.no_dice(record))
        assert render.log_dice_plain(record) == (render.log_dice_text(record).plain if dies else render.no_dice(record))


@given(st.one_of(st.integers(), st.booleans()), st.sampled_from(ROLES), st.one_of(st.integers(1, 100), st.booleans()))
def test_a_shared_die_is_the_die_made_afresh(value, role, sides):
    made = dice_module.shared_die(value, role, sides)
    assert made == Die(value, role, sides)
    assert _typed(made.to_json()) == _typed(Die(value, role, sides).to_json())
    assert dice_module.shared_die(value, role, sides) == made


def test_a_shared_die_refuses_an_unknown_role_as_the_die_does():
    with pytest.raises(ValueError, match="unknown die role"):
        dice_module.shared_die(3, "sideways")


def _a_changed_setting(sid: str) -> dict[str, Any] | None:
    """A setting of ``sid`` a roll reads, changed from its default (None if none)."""
    from gmdesk.core.session import settings as session_settings

    for setting in session_settings.settings_of(sid):
        default = session_settings.defaults_for(sid).get(setting.key)
        for value in (True, False, 8, 10, 2, 1, 12):
            if type(value) is type(default) and value != default:
                try:
                    return {setting.key: setting.parse(value)}
                except Exception:  # noqa: BLE001 - not a value this setting takes
                    continue
    return None


@pytest.mark.parametrize("sid", BUILTIN_IDS)
def test_a_roll_naming_no_character_is_filled_as_afresh_after_each_change(sid, tmp_path):
    """(``roll --count N --save`` without --as/--at fills each roll again only when
    the session's settings or its sheets' items changed: what it fills is always
    what filling afresh gives)"""
    from gmdesk.cli.roll_save import _filled, _Unnamed

    spec = get_spec(sid)
    path = SessionStore(tmp_path).create("Docks", sid)
    changed = _a_changed_setting(sid)
    with Session.open(path) as s:
        for data in ({}, {"combat": True}):
            try:
                params = spec.params_from_json(data)
            except ParamError:
                continue
            combat = bool(data)
            unnamed = _Unnamed(s, sid, params, combat, None, frozenset())
            fresh = _filled(s, sid, params, None, None, combat, None)
            assert unnamed.filled() == fresh and unnamed.filled() == fresh
            s.roll(sid, params, rng=random.Random(1), combat=combat)
            assert unnamed.filled() == _filled(s, sid, params, None, None, combat, None)
        if changed is not None:
            params = spec.params_from_json({})
            unnamed = _Unnamed(s, sid, params, False, None, frozenset())
            before = unnamed.filled()
            s.apply({"type": "session.settings", "changes": changed})
            after = _filled(s, sid, params, None, None, False, None)
            assert unnamed.filled() == after
            if after != before:
                assert unnamed.filled() != before
    assert changed is not None or sid != "4d2"


def test_a_setting_changed_between_runs_reaches_every_roll_of_the_next(tmp_path, capsys):
    from gmdesk.cli.main import main

    saves = str(tmp_path)
    assert main(["--saves", saves, "new", "--system", "4d2", "Docks"]) == 0
    assert main(["--saves", saves, "roll", "4d2", "--count", "3", "--save", "Docks", "--json"]) == 0
    with Session.open(SessionStore(tmp_path).resolve("Docks")) as s:
        s.apply({"type": "session.settings", "changes": {"skill_threshold": 4}})
    capsys.readouterr()
    assert main(["--saves", saves, "roll", "4d2", "--count", "3", "--save", "Docks", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["params"]["skill_threshold"] for r in records] == [4, 4, 4]


@given(st.integers(0, 2**32))
def test_4d2_rolls_its_pairs_and_reads_its_number_as_before(seed):
    from gmdesk.core.dice import roll_die
    from gmdesk.core.systems import four_d_two

    roles = ("positive", "positive", "negative", "negative")
    rng = random.Random(seed)
    before = tuple(Die(roll_die(rng, 6), role) for role in roles)
    dice = four_d_two._roll_pairs(random.Random(seed))
    assert dice == before
    number = sum(d.value for d in dice if d.role == "positive") - sum(d.value for d in dice if d.role == "negative")
    assert four_d_two._number(dice) == number


_ANY_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)
        | st.dictionaries(st.one_of(st.text(), st.integers(), st.booleans(), st.none()), inner, max_size=3)
    ),
)


def _encoded(f: Any, value: Any) -> Any:
    try:
        return f(value)
    except (TypeError, ValueError) as e:
        return (type(e), str(e))


@given(_ANY_JSON)
def test_the_stores_json_text_is_the_encoders(value):
    """(the store's dumps makes the C encoder json.JSONEncoder.encode would make)"""
    expected = _encoded(lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"), allow_nan=False), value)
    assert _encoded(dumps, value) == expected


def test_what_the_stores_json_refuses_it_refuses_as_the_encoder_does():
    loop: list[Any] = []
    loop.append(loop)
    for bad in (loop, {"k": {1, 2}}, {(1, 2): 3}, [float("nan")], object()):
        expected = _encoded(lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"), allow_nan=False), bad)
        assert isinstance(expected, tuple)
        assert _encoded(dumps, bad) == expected
    assert dumps("a\u2212b\n") == json.dumps("a\u2212b\n", ensure_ascii=False)


@given(st.dictionaries(st.text(), _ANY_JSON, max_size=4))
def test_an_events_data_checks_as_plain_as_before(doc):
    """(text, true/false and null pass as they are; anything else as before)"""
    from gmdesk.core.session import plain

    def before(v: Any, depth: int) -> None:
        if depth >= plain._PLAIN_DEPTH:
            raise plain._NotPlain
        values = v.values() if type(v) is dict else v
        if type(v) is dict and any(type(k) is not str for k in v):
            raise plain._NotPlain
        for x in values:
            tx = type(x)
            if tx is str or tx is bool or x is None:
                continue
            if tx is int:
                if x.bit_length() > plain._PLAIN_INT_BITS:
                    raise plain._NotPlain
            elif tx is dict or tx is list:
                before(x, depth + 1)
            elif tx is not float or x - x != 0.0:
                raise plain._NotPlain

    def verdict(check: Any) -> bool:
        try:
            check(doc, 0)
        except plain._NotPlain:
            return False
        return True

    assert verdict(plain._check_plain) == verdict(before)


@given(st.lists(st.integers(1, 400), unique=True, max_size=300), st.integers(0, 250), st.data())
def test_a_checkpoint_reapplies_the_events_it_did_before(seqs, keep, data):
    """(the newest undoable events whose inverses are known, counted from a slice of the
    stack taken once, not by an index into it per event)"""
    from gmdesk.core.session.events.checkpoint import fold_checkpoint
    from gmdesk.core.session.events.fold import Fold
    from gmdesk.core.session.events.seqstack import SeqStack
    from gmdesk.core.session.model import State

    seqs.sort()
    fold = Fold(State())
    fold.done = SeqStack()
    for s in seqs:
        fold.done.append(s)
    known = data.draw(st.sets(st.sampled_from(seqs))) if seqs else set()
    fold.inverses = {s: [] for s in known}
    k = 0
    while k < min(keep, len(fold.done)) and fold.done[-1 - k] in fold.inverses:
        k += 1
    assert fold_checkpoint(fold, keep)["reapply"] == k


_KEYS = st.sampled_from(["type", "time", "summary", "effects", "record", "actor", "id", "text", "x"])


@given(st.dictionaries(_KEYS, _ANY_JSON, max_size=9))
def test_an_events_payload_is_what_picking_its_fields_gave(doc):
    """(a copy less the four meta fields, in the same order)"""
    from gmdesk.core.session.events.fold import _payload
    from gmdesk.core.session.events.registry import META_FIELDS

    got = _payload(doc)
    want = {k: v for k, v in doc.items() if k not in META_FIELDS}
    assert got == want and list(got) == list(want) and got is not doc


@given(st.dictionaries(_KEYS, _ANY_JSON, max_size=9), st.text(), st.text(), st.text(), st.integers(1, 10**6))
def test_an_event_just_saved_is_the_one_its_document_reads_as(doc, etype, time, summary, seq):
    from gmdesk.core.session.events import Event
    from gmdesk.core.session.session import _saved_event

    stored = {**doc, "type": etype, "time": time, "summary": summary}
    got = _saved_event(seq, stored)
    want = Event.from_doc(seq, stored)
    assert got == want and list(got.data) == list(want.data)


class _Face(int):
    """A whole number of a type of its own (not plain)."""


_FACES = st.one_of(
    st.integers(1, 20),
    st.integers(-(2**5000), 2**5000),
    st.builds(_Face, st.integers(1, 6)),
    st.floats(allow_nan=True),
    st.just(None),
)


@given(
    st.lists(st.tuples(_FACES, st.sampled_from(sorted(ROLES)), st.one_of(st.integers(2, 20), _FACES), st.booleans())),
    st.sampled_from([0, 1, 60, 61, 62, 63]),
)
def test_a_records_dice_check_as_plain_as_before(dice, depth):
    """(dice found plain once are not walked again: the verdict and the copy are the
    full walk's, for shared dice and dice of their own, plain or not)"""
    from gmdesk.core.session import plain

    made = []
    for v, r, s, shared in dice:
        if shared and type(v) is int and type(s) is int:
            made.append(shared_die(v, r, s))
        else:  # a die of its own, its fields as given (plain or not)
            d = Die.__new__(Die)
            for name, x in (("value", v), ("role", r), ("sides", s)):
                object.__setattr__(d, name, x)
            made.append(d)
    record = RollRecord("4d2", {"skill": 9}, tuple(made), 1, "Barely Successful")

    def before() -> Any:
        if depth >= plain._PLAIN_DEPTH:
            raise plain._NotPlain
        out = record.to_json()
        plain._check_plain(out, depth)
        return out

    def outcome(f: Any) -> Any:
        try:
            return f()
        except plain._NotPlain:
            return "not plain"

    for _ in range(2):  # (the second time from what the first one learnt)
        assert outcome(lambda: plain._plain_copy(record, depth)) == outcome(before)
