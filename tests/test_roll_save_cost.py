"""What ``gmdesk roll --count N --save`` does for each roll, done with less work, says
and saves exactly what it did: the same plain roll lines as the Rich texts give, the
same event data and the same JSON text as the JSON round trip gave, the event
handed back equal to the one the log reads back, the printed lines those of
``gmdesk log``, one fsync a roll."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import os
import random
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from helpers import gmdesk_cli as run

from gmdesk.core import render
from gmdesk.core.dice import Die, RollRecord, freeze, thaw
from gmdesk.core.errors import ParamError
from gmdesk.core.session import Session
from gmdesk.core.session.events import Event, EventError
from gmdesk.core.session.plain import jsonable as _jsonable
from gmdesk.core.session.storage.codec import dumps
from gmdesk.core.systems import BUILTIN_IDS, get_spec
from gmdesk.core.systems.base import dataclass_to_json
from gmdesk.core.tables import DEFAULT_TABLES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "saves").glob("*.gmdesk"))


def _old_jsonable(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What ``Session.apply`` made of an event before: a JSON round trip."""

    def conv(v: Any) -> Any:
        if isinstance(v, RollRecord):
            return v.to_json()
        if isinstance(v, Mapping):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v

    return dict(json.loads(json.dumps(conv(doc), ensure_ascii=False, allow_nan=False)))


def _typed(v: Any) -> Any:
    """``v`` with the type of every value spelled out (``==`` takes 1 for True, 1.0 for 1)."""
    if isinstance(v, dict):
        return ("dict", [(k, _typed(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("list", [_typed(x) for x in v])
    return (type(v).__name__, v)


def _rolled_records() -> list[RollRecord]:
    """Records of every built-in system — plain, in combat, with its own options — and
    every record the shipped example sessions hold (opposed rolls, two-way Tests,
    damage dice, printed faces, automatic failures…)."""
    out = []
    for sid in BUILTIN_IDS:
        spec = get_spec(sid)
        for data in ({}, {"combat": True}, {"combat": True, "vs_bonus": 1}):
            try:
                params = spec.params_from_json(data)
            except ParamError:  # (a combat roll of its own needs more, or takes no vs_bonus)
                continue
            for seed in range(25):
                out.append(spec.roll(params, random.Random(seed), DEFAULT_TABLES))
    for path in EXAMPLES:
        with Session.open(path, readonly=True) as s:
            for e in s.events:
                if isinstance(e.data.get("record"), Mapping):
                    out.append(RollRecord.from_json(e.data["record"]))
                for entry in e.data.get("entries") or ():
                    if isinstance(entry, Mapping) and isinstance(entry.get("record"), Mapping):
                        out.append(RollRecord.from_json(entry["record"]))
    return out


RECORDS = _rolled_records()


def test_the_records_cover_every_system_and_every_kind_of_dice_line():
    assert {r.system for r in RECORDS} == set(BUILTIN_IDS)
    lines = [render.log_dice_plain(r) for r in RECORDS]
    assert any(" | vs " in line for line in lines)
    assert any("(" in line for line in lines)  # dropped dice
    assert any(not r.dice for r in RECORDS) or all(r.dice for r in RECORDS)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.system)
def test_the_plain_roll_line_is_what_the_rich_text_reads(record):
    assert render.log_dice_plain(record) == (
        render.log_dice_text(record).plain if record.dice else render.no_dice(record)
    )
    assert render.dice_plain(record) == (render.dice_text(record).plain if record.dice else render.no_dice(record))


def test_control_codes_in_printed_faces_are_taken_out_as_rich_does():
    faces = ["\x07+1", "\r−1", "0\x0b", "\x1b[31m+2"]
    record = RollRecord("fudge", {}, tuple(Die(1, "die") for _ in faces), 1, "Fair", {"faces": faces})
    assert render.log_dice_plain(record) == render.log_dice_text(record).plain
    assert render.dice_plain(record) == render.dice_text(record).plain
    assert "\x07" not in render.dice_plain(record) and "\x1b" in render.dice_plain(record)


def test_a_roll_line_drawn_twice_for_the_same_record_is_the_same_line():
    record = RECORDS[0]
    other = RollRecord.from_json(record.to_json())
    assert render.record_line(record, hide_secrets=True) == render.record_line(other, hide_secrets=True)
    assert render.record_line(record) == render.record_line(other)
    assert render.record_line(record, hide_secrets=True) is render.record_line(record, hide_secrets=True)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.system)
def test_a_roll_event_is_saved_as_the_json_round_trip_saved_it(record):
    doc = {"type": "roll", "record": record.to_json(), "actor": None, "target": "c2", "combat": True}
    new, old = _jsonable(doc, "roll"), _old_jsonable(doc)
    assert _typed(new) == _typed(old)
    assert dumps(new) == dumps(old)
    # the record object itself becomes its JSON, as before
    assert _typed(_jsonable({**doc, "record": record}, "roll")) == _typed(old)
    # a fresh copy: nothing of the caller's document is shared
    assert new["record"] is not doc["record"] and new["record"]["dice"] is not doc["record"]["dice"]


class _Level(enum.IntEnum):
    GOOD = 3


@pytest.mark.parametrize(
    "doc",
    [
        {"type": "note", "text": "a", "tags": ("x", ("y", 1)), "n": -0.0, "big": 10**300},
        {"type": "note", "text": "\ud800 lone surrogate", "nested": [[{"a": [1.5, None, True]}]]},
        {"type": "note", "keys": {1: "one", False: "no", None: "none", 2.5: "f"}},
        {"type": "note", "level": _Level.GOOD, "text": type("S", (str,), {})("sub")},
        {"type": "note", "deep": json.loads("[" * 70 + "]" * 70)},
        {"type": "note", "huge": 10**5000},
    ],
    ids=["tuples", "unicode", "keys", "subclasses", "deep", "huge-int"],
)
def test_any_other_event_data_reads_as_the_json_round_trip_reads_it(doc):
    try:
        old: Any = _old_jsonable(doc)
    except (TypeError, ValueError) as e:
        with pytest.raises(EventError, match="not plain data"):
            _jsonable(doc, "note")
        assert str(e)
        return
    assert _typed(_jsonable(doc, "note")) == _typed(old)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, object(), {"a": {1, 2}}, b"bytes"])
def test_data_json_cannot_hold_is_refused_as_before(bad):
    with pytest.raises(EventError, match="not plain data"):
        _jsonable({"type": "note", "text": "x", "v": bad}, "note")


@pytest.mark.parametrize("record", RECORDS[::7], ids=lambda r: r.system)
def test_a_records_json_is_its_frozen_fields_thawed(record):
    # what to_json and the constructor rely on: freeze and thaw by exact type give
    # what the general freeze and thaw give
    assert record.params == freeze(thaw(record.params)) and record.extra == freeze(thaw(record.extra))
    data = record.to_json()
    assert _typed(data["params"]) == _typed(thaw(record.params))
    assert _typed({k: v for k, v in data.items() if k in record.extra}) == _typed(thaw(record.extra))
    again = RollRecord(
        record.system, data["params"], record.dice, record.value, record.outcome,
        {k: v for k, v in data.items() if k in record.extra}, record.descriptors,
    )  # fmt: skip
    assert again == record and _typed(again.to_json()) == _typed(data)


def test_odd_values_in_a_record_freeze_and_thaw_as_before():
    odd = {"t": (1, [2, (3,)]), "m": {"k": frozenset({1})}, "n": _Level.GOOD}
    record = RollRecord("4d2", odd, (), 0, "x", {"e": [odd]})
    assert record.params == freeze(dict(odd)) and record.extra == freeze({"e": [odd]})
    assert record.to_json()["params"] == thaw(freeze(dict(odd)))
    assert record.to_json()["e"] == thaw(freeze({"e": [odd]}))["e"]


@pytest.mark.parametrize("sid", BUILTIN_IDS)
def test_a_systems_params_read_as_asdict_reads_them(sid):
    spec = get_spec(sid)
    for data in ({}, {"combat": True}, {"combat": True, "vs_bonus": 1}):
        try:
            params = spec.params_from_json(data)
        except ParamError:
            continue
        assert _typed(dataclass_to_json(params)) == _typed(dataclasses.asdict(params))
        assert list(dataclass_to_json(params)) == list(dataclasses.asdict(params))


def test_params_holding_more_than_plain_values_go_through_asdict():
    @dataclasses.dataclass
    class Inner:
        x: int = 1

    @dataclasses.dataclass
    class P:
        a: list[int] = dataclasses.field(default_factory=lambda: [1, 2])
        b: Inner = dataclasses.field(default_factory=Inner)
        c: tuple[Any, ...] = (1, [2])

    p = P()
    got = dataclass_to_json(p)
    assert got == dataclasses.asdict(p) == {"a": [1, 2], "b": {"x": 1}, "c": (1, [2])}
    assert got["a"] is not p.a and got["c"][1] is not p.c[1]  # copies, as asdict makes


@pytest.fixture
def example(tmp_path):
    """Each shipped example session, copied: ``(saves, name, system, actor, target)``."""

    def copy(path: Path) -> tuple[Path, str, str]:
        saves = tmp_path / "saves"
        saves.mkdir(exist_ok=True)
        for f in path.parent.glob(path.name + "*"):
            shutil.copy(f, saves)
        with Session.open(saves / path.name, readonly=True) as s:
            system = s.state.info.system
        return saves, path.stem, system

    return copy


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_event_a_roll_hands_back_is_the_one_the_log_reads_back(example, path):
    saves, name, system = example(path)
    spec = get_spec(system)
    with Session.open(saves / path.name) as s:
        movers = [c.id for c in s.state.characters.values() if c.can_act]
        made = [s.roll(spec, spec.Params(), rng=random.Random(1))]
        made.append(s.roll(spec, spec.Params(), actor=movers[0], target=movers[1], combat=True, rng=random.Random(2)))
        made.append(s.apply({"type": "note", "text": "after the rolls"}))
        for event in made:
            again = Event.from_doc(event.seq, json.loads(json.dumps(s._log.event(event.seq))))
            assert event == again and _typed(dict(event.data)) == _typed(dict(again.data))
            assert s.events[event.seq - 1] is event
    with Session.open(saves / path.name, readonly=True) as s:
        assert [s.events[e.seq - 1] for e in made] == made


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_roll_save_prints_each_roll_as_gmdesk_log_tells_it(capsys, example, path):
    saves, name, system = example(path)
    with Session.open(saves / path.name, readonly=True) as s:
        movers = [c.name for c in s.state.characters.values() if c.can_act]
        before = len(s.events)
    printed = []
    for args in (
        ["--seed", "3", "--count", "4"],
        ["--seed", "4", "--count", "3", "--as", movers[0], "--at", movers[1], "--combat"],
    ):
        rc, out, err = run(capsys, saves, "roll", system, *args, "--save", name)
        assert rc == 0, err
        printed += out.splitlines()
    rc, out, err = run(capsys, saves, "log", name)
    assert rc == 0, err
    logged = out.splitlines()
    first = next(i for i, line in enumerate(logged) if line.startswith(f"#{before + 1} "))
    assert printed == logged[first:]


def test_roll_save_fsyncs_once_a_roll(capsys, saves, monkeypatch):
    rc, out, err = run(capsys, saves, "new", "--system", "4d2", "Docks")
    assert rc == 0, err
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    fsyncs = []
    for count in ("1", "41"):
        calls.clear()
        rc, out, err = run(capsys, saves, "roll", "4d2", "--count", count, "--save", "Docks")
        assert rc == 0, err
        fsyncs.append(len(calls))
    assert fsyncs[1] - fsyncs[0] == 40


def test_a_name_that_reads_like_a_roll_line_prints_as_gmdesk_log_tells_it(capsys, saves):
    from gmdesk.core.session import SessionStore

    path = SessionStore(saves).create("Odd", "4d2")
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Nine: 4d2 [ten"}})
        s.apply({"type": "character.add", "character": {"name": "Kara"}})
    rc, out, err = run(capsys, saves, "roll", "4d2", "--seed", "5", "--count", "3", "--save", "Odd", "--as", "c1")
    assert rc == 0, err
    printed = out.splitlines()
    rc, out, err = run(capsys, saves, "log", "Odd")
    assert rc == 0, err
    assert printed == out.splitlines()[-len(printed) :] and "Nine: 4d2 [ten rolls" not in "".join(printed)
