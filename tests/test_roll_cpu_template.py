"""What ``gmdesk roll --count N --save`` does once a run rather than once a roll, with
the same result each roll: the record's parameters frozen once (the same Params
object every roll), their JSON found plain once, a 4d2 pair's dice taken from a table."""

from __future__ import annotations

import collections
import dataclasses
import dis
import json
import random
import sys
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from test_roll_save_cost import _typed

from gmdesk.core import dice as dice_module
from gmdesk.core.dice import Die, RollRecord, shared_die
from gmdesk.core.session import plain
from gmdesk.core.session.plain import plain_event
from gmdesk.core.systems import base as systems_base
from gmdesk.core.systems import four_d_two


def _general_record(record: RollRecord) -> RollRecord:
    """``record`` made again as the general path makes it (its params a fresh dict)."""
    return RollRecord(
        record.system,
        dict(record.params),
        record.dice,
        record.value,
        record.outcome,
        dict(record.extra),
        record.descriptors,
    )


@given(
    st.integers(-3, 3),
    st.sampled_from([None, "positive", "negative"]),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**32),
)
def test_a_4d2_record_of_a_run_is_the_record_made_afresh(shift, fold, combat, maneuver, seed):
    params = four_d_two.Params(combat=combat, shift=shift, fold=fold, maneuver=maneuver and not combat)
    first = four_d_two.roll(params, random.Random(seed))
    again = four_d_two.roll(params, random.Random(seed))
    assert again.params is first.params  # (frozen once for the run)
    general = _general_record(again)
    assert again == general
    assert _typed(again.to_json()) == _typed(general.to_json())
    assert _typed(again.to_json()["params"]) == _typed(systems_base.dataclass_to_json(params))
    # a record made from it (an origin added) keeps the same parameters, equal to the general ones
    changed = dataclasses.replace(again, extra={**again.extra, "from": {"shift": "typed"}})
    assert changed.params is again.params
    assert _typed(changed.to_json()) == _typed(_general_record(changed).to_json())


def test_a_template_is_read_only_and_never_another_params_objects():
    a, b = four_d_two.Params(shift=1), four_d_two.Params(shift=1)
    ra = four_d_two.roll(a, random.Random(1))
    rb = four_d_two.roll(b, random.Random(1))
    assert rb.params == ra.params and rb.params is not ra.params  # (another object: made afresh)
    try:
        rb.params["shift"] = 3  # type: ignore[index]
    except TypeError:
        pass
    assert four_d_two.roll(b, random.Random(1)).params["shift"] == 1
    # a JSON copy is the caller's: changing it changes no record
    out = rb.to_json()
    out["params"]["shift"] = 3
    assert rb.params["shift"] == 1 and rb.to_json()["params"]["shift"] == 1


def test_parameters_holding_more_than_plain_values_are_frozen_by_each_record():
    made = {"k": [1, 2]}
    got = dice_module.params_template(object(), lambda _key: made)
    assert got is made  # (not a template: the record freezes it as any other)
    record = RollRecord("4d2", got, (), 0, "x")
    assert record.params == {"k": (1, 2)}
    for odd in ({"x": 1.5}, {1: "one"}, {"x": {"y": 1}}):
        assert dice_module.params_template(object(), lambda _key, odd=odd: odd) is odd


def test_unfrozen_parameters_are_made_afresh_for_each_record():
    @dataclasses.dataclass
    class Loose:
        n: int = 1

    p = Loose()
    first = systems_base.record_params(p)
    p.n = 2
    assert systems_base.record_params(p) == {"n": 2} and first == {"n": 1}


_PLAIN = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(st.dictionaries(st.text(), _PLAIN, max_size=3), st.dictionaries(st.text(min_size=1), _PLAIN, max_size=3))
def test_records_of_the_same_parameters_check_as_plain_as_each_alone(params, extra):
    """(the latest parameters found plain are not walked again: whatever they hold, a
    record's event is the copy or the refusal the record alone gives)"""
    extra = {k: v for k, v in extra.items() if k not in dice_module._CORE_KEY_SET}
    record = RollRecord("4d2", params, (shared_die(3, "positive"),), 1, "x", extra)
    twin = RollRecord("4d2", {}, (shared_die(5, "negative"),), 2, "y", extra)
    object.__setattr__(twin, "params", record.params)  # (one params object, as a template shares it)
    for r in (record, twin, record):
        doc = {"type": "roll", "record": r}
        try:
            got = _typed(plain_event(doc, "roll")[0])
        except Exception:
            got = "refused"
        as_json = {"type": "roll", "record": r.to_json()}
        expected = "refused" if got == "refused" else _typed(json.loads(json.dumps(as_json)))
        assert got == expected


def test_parameters_found_plain_are_walked_again_deeper_down():
    """(found plain as a record's at one depth; the same parameters nested deeper, near
    the limit, are walked again, and refused there as before)"""
    deep: Any = 1
    for _ in range(plain._PLAIN_DEPTH - 6):
        deep = [deep]
    record = RollRecord("4d2", {"p": deep}, (shared_die(3, "positive"),), 1, "x")
    plain_event({"type": "roll", "record": record}, "roll")
    assert plain._plain_params[0] is record.params
    nested: Any = record
    for _ in range(6):
        nested = [nested]
    data, _known = plain_event({"type": "roll", "more": nested}, "roll")  # (the round trip takes it)
    assert data == json.loads(json.dumps({"type": "roll", "more": json.loads(json.dumps(_jsonish(nested)))}))


def _jsonish(v: Any) -> Any:
    if isinstance(v, RollRecord):
        return v.to_json()
    if isinstance(v, list):
        return [_jsonish(x) for x in v]
    return v


@given(st.lists(st.one_of(st.integers(-2, 9), st.just(True)), min_size=4, max_size=4))
def test_a_4d2_pairs_dice_are_the_shared_dice_of_their_faces(faces):
    class Faces:
        def __init__(self) -> None:
            self.left = list(faces)

        def randint(self, a: int, b: int) -> Any:
            return self.left.pop(0)

    roles = ("positive", "positive", "negative", "negative")
    try:
        expected: Any = tuple(Die(v, role) for v, role in zip(faces, roles, strict=True))
    except ValueError:
        expected = "refused"
    try:
        got: Any = four_d_two._roll_pairs(Faces())
    except ValueError:
        got = "refused"
    assert got == expected
    if got != "refused":
        assert all(d is shared_die(d.value, d.role) for d in got if type(d.value) is int)
        assert [type(d.value) for d in got] == [type(v) for v in faces]


def _imports_run(argv: list[str]) -> collections.Counter[tuple[str, int]]:
    """The import statements ``main(argv)`` runs (file, line), each time it runs one."""
    from gmdesk.cli.main import main

    offsets: dict[Any, frozenset[int]] = {}
    seen: collections.Counter[tuple[str, int]] = collections.Counter()

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        at = offsets.get(code)
        if at is None:
            at = offsets[code] = frozenset(i.offset for i in dis.get_instructions(code) if i.opname == "IMPORT_NAME")
        if not at:
            return None
        frame.f_trace_opcodes = True

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "opcode" and frame.f_lasti in at:
                seen[(code.co_filename, frame.f_lineno)] += 1
            return local

        return local

    sys.settrace(tracer)
    try:
        assert main(argv) == 0
    finally:
        sys.settrace(None)
    return seen


def test_a_roll_of_a_run_runs_no_import_statement(tmp_path, capsys):
    """(an import statement costs two failed attribute lookups each time it runs: what
    a roll needs is imported once, at the first)"""
    from gmdesk.cli.main import main

    saves = str(tmp_path)
    assert main(["--saves", saves, "new", "--system", "4d2", "Docks"]) == 0
    roll = ["--saves", saves, "roll", "4d2", "--save", "Docks", "--count"]
    assert main([*roll, "1"]) == 0
    for extra in ([], ["--json"]):
        few = _imports_run([*roll, "2", *extra])
        many = _imports_run([*roll, "12", *extra])
        # (ten rolls more: none runs one a roll; the time told is made again at most once a second)
        grown = {where: n - few[where] for where, n in many.items() if n - few[where] > 2}
        assert grown == {}
    assert len(capsys.readouterr().out.splitlines()) > 20


@given(st.lists(st.tuples(st.integers(-3, 20), st.sampled_from(dice_module.ROLES), st.integers(1, 20)), max_size=7))
def test_shared_dice_read_in_a_roll_line_as_dice_made_afresh(faces):
    """(a die's reading is drawn once and kept: the line is the one Rich's text of fresh dice gives)"""
    from gmdesk.core import render

    fresh = tuple(Die(v, role, sides) for v, role, sides in faces)
    shared = tuple(shared_die(v, role, sides) for v, role, sides in faces)
    for _ in range(2):
        assert render._ungrouped_plain(shared) == render._ungrouped_plain(fresh)
        for system in ("4d2", "fudge"):
            a, b = RollRecord(system, {}, shared, 0, "x"), RollRecord(system, {}, fresh, 0, "x")
            assert render.log_dice_plain(a) == render.log_dice_plain(b)
            assert render.log_dice_plain(a) == (render.log_dice_text(b).plain if fresh else render.no_dice(b))
    # (each reading is kept with its die: an id there is never another die's)
    assert all(id(kept[0]) == key for key, kept in render._DIE_READINGS.items())


@given(st.lists(st.tuples(st.integers(-3, 20), st.sampled_from(dice_module.ROLES), st.integers(1, 20)), max_size=7))
def test_a_records_dice_json_is_each_dies_own(faces):
    """(each Die's JSON is written in line in a record's: the same as its to_json)"""
    made = (shared_die, Die)
    dice = tuple(made[i % 2](v, role, sides) for i, (v, role, sides) in enumerate(faces))
    record = RollRecord("4d2", {}, dice, 0, "x")
    assert record.to_json()["dice"] == [d.to_json() for d in dice]
