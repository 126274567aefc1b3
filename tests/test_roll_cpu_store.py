"""What ``gmdesk roll --count N --save`` no longer pays for each roll in the store, with
the same bytes on disk: a compaction lays out the events after the snapshot's region a
batch at a time (the journal read once a run of them, one write a batch), and each
shortcut is pinned to the slow path it stands for."""

from __future__ import annotations

import dataclasses
import json
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmdesk.core.dice import Descriptor, Die, RollRecord, freeze, thaw
from gmdesk.core.errors import ParamError
from gmdesk.core.session.storage import BLOCK_EVENTS, EventLog, sidecar_paths
from gmdesk.core.session.storage import table as table_module
from gmdesk.core.session.storage.codec import dumps, flat_text, json_bytes, json_text
from gmdesk.core.session.storage.table import RegionWriter


def _writer_state(w: RegionWriter) -> tuple:
    return (w.length, w.count, w.crc, list(w.crcs), list(w.nl), w.sha.hexdigest())


@settings(max_examples=60)
@given(
    st.integers(1, 3 * BLOCK_EVENTS),
    st.lists(st.binary(max_size=40), max_size=2 * BLOCK_EVENTS + 3),
    st.lists(st.binary(max_size=20), max_size=3),
)
def test_events_laid_out_as_a_batch_are_laid_out_as_one_at_a_time(first, texts, before):
    one, batch = RegionWriter(), RegionWriter()
    # (the writers may hold events already: the batch starts after them)
    for w in (one, batch):
        for i, t in enumerate(before[: first - 1], 1):
            w.event(i, t)
    start = min(first, len(before[: first - 1]) + 1)
    pieces = b"".join(one.event(seq, t) for seq, t in enumerate(texts, start))
    assert batch.events(start, texts) == pieces
    assert _writer_state(batch) == _writer_state(one)
    assert batch.finish() == one.finish()


def _notes(n: int) -> list[dict]:
    return [{"type": "note", "i": i, "text": f"n{i}" + "é" * (i % 3)} for i in range(1, n + 1)]


def test_a_compaction_reads_the_journal_once_a_run_and_writes_what_it_did(tmp_path, monkeypatch):
    """The writer's new events (held as where its journal has them) are read with a few
    reads, not one an event; the snapshot is byte for byte what laying them out one
    at a time writes, and reads back as the events appended."""
    n_old, n_new = BLOCK_EVENTS + 3, 2 * table_module.TAIL_BATCH + BLOCK_EVENTS + 5
    docs = _notes(n_old + n_new)
    snapshots = {}
    for how in ("one at a time", "batched"):
        path = tmp_path / how / "s.gmdesk"
        path.parent.mkdir()
        with EventLog.create(path, {"name": "Docks"}, compact_at=10**6) as log:
            log.append_many(docs[:n_old])
            log.compact()
            for d in docs[n_old:]:
                log.append(d)
            reads = []
            storage = log._storage
            real = storage._read_journal

            def read(offset: int, length: int, real=real, reads=reads) -> bytes:
                reads.append(length)
                return real(offset, length)

            storage.events.reads_journal(read)
            if how == "one at a time":
                monkeypatch.setattr(
                    table_module.EventTable,
                    "_tail_texts",
                    lambda self, first, last: [self.text(s) for s in range(first, last + 1)],
                )
            log.compact()
            monkeypatch.undo()
            if how == "batched":
                assert len(reads) <= -(-n_new // table_module.TAIL_BATCH)
            else:
                assert len(reads) == n_new
        snapshots[how] = path.read_bytes()
        with EventLog.open(path, readonly=True) as again:
            assert [d for _, d in again.events()] == docs
    assert snapshots["batched"] == snapshots["one at a time"]


def test_a_compaction_still_reads_events_the_journal_does_not_hold(tmp_path):
    """A table whose new events are held as texts or documents (a reader's, or one
    rewritten) lays them out as before, among those read from the journal."""
    path = tmp_path / "s.gmdesk"
    docs = _notes(40)
    with EventLog.create(path, {"name": "Docks"}, compact_at=10**6) as log:
        for d in docs[:20]:
            log.append(d)
        events = log._storage.events
        # some of the new events held as their text, one as a parsed document only
        for seq in (3, 4, 11):
            events.set_text(seq, json.dumps(docs[seq - 1], ensure_ascii=False, separators=(",", ":")))
        for d in docs[20:]:
            log.append(d)
        log.compact()
    with EventLog.open(path, readonly=True) as again:
        assert [d for _, d in again.events()] == docs
    assert sidecar_paths(path)["journal"].stat().st_size < 100  # (all of it in the snapshot now)


_FLAT = st.dictionaries(
    st.text(),
    st.one_of(st.integers(), st.integers(-(2**70), 2**70), st.text(), st.booleans(), st.none(), st.floats()),
    max_size=5,
)


@given(_FLAT)
def test_a_flat_header_change_is_written_as_the_encoder_writes_it(changes):
    text = flat_text(changes)
    if text is not None:
        assert text == dumps(changes)
    # what it leaves to the encoder: whatever is not text or a whole number
    simple = all(type(v) is str or (type(v) is int and -(2**63) <= v < 2**63) for v in changes.values())
    assert (text is not None) == simple


def test_a_header_change_with_a_lone_surrogate_is_refused_and_nothing_written(tmp_path):
    with EventLog.create(tmp_path / "s.gmdesk", {"name": "Docks"}) as log:
        with pytest.raises(ParamError, match="surrogate"):
            log.append({"type": "note", "text": "x"}, header={"name": "a\ud800"})
        assert log.count == 0 and log.header_view["name"] == "Docks"
        log.append({"type": "note", "text": "y"}, header={"name": "Quay"})
    with EventLog.open(tmp_path / "s.gmdesk", readonly=True) as again:
        assert [d["text"] for _, d in again.events()] == ["y"] and again.header_view["name"] == "Quay"


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(
    st.dictionaries(st.text(), _JSON, max_size=4),
    st.dictionaries(st.text(), _JSON, max_size=4),
    st.booleans(),
    st.booleans(),
)
def test_a_record_is_made_as_the_general_freeze_makes_it(params, extra, as_proxies, as_lists):
    """A record's parameters and fields are frozen copies (the caller's dicts stay its
    own), its dice and descriptors tuples, whatever mappings and sequences it is given;
    a field of the record's own refused."""
    dice = [Die(1, "positive"), Die(6, "negative")]
    descs = [Descriptor("Hurt", "target")]
    given_params = MappingProxyType(dict(params)) if as_proxies else params
    given_extra = MappingProxyType(dict(extra)) if as_proxies else extra
    clash = sorted(set(extra) & {"system", "params", "dice", "value", "outcome", "descriptor", "descriptors"})
    args = ("4d2", given_params, dice if as_lists else tuple(dice), 3, "Hit", given_extra)
    kwargs = {"descriptors": descs if as_lists else tuple(descs)}
    if clash:
        with pytest.raises(ValueError, match="clash"):
            RollRecord(*args, **kwargs)
        return
    rec = RollRecord(*args, **kwargs)
    assert rec.params == freeze(params) and type(rec.params) is MappingProxyType
    assert rec.extra == freeze(extra) and type(rec.extra) is MappingProxyType
    assert thaw(rec.params) == params and thaw(rec.extra) == extra
    assert rec.params is not given_params and rec.extra is not given_extra
    assert rec.dice == tuple(dice) and rec.descriptors == tuple(descs)
    assert RollRecord.from_json(rec.to_json()) == rec
    assert dataclasses.replace(rec, value=4) == RollRecord(*args[:3], 4, *args[4:], **kwargs)
    plain = RollRecord("4d2", {}, (), 0, "Nil")
    assert plain.extra == {} and plain.descriptors == ()


@given(st.dictionaries(st.sampled_from(["type", "time", "summary", "effects", "a", "b", "record"]), st.integers()))
def test_an_event_is_stored_with_its_keys_in_the_order_they_always_had(data):
    """(what ``Session._apply`` writes: the event's data, what the fold filled in after
    the rest; the short way for data without those fields gives the same dict, in the
    same order)"""
    filled = {"type": "note", "time": "t", "summary": "s", "effects": []}
    slow = dict(data)
    for k in ("time", "summary", "effects"):
        slow.pop(k, None)
    slow.update(filled)
    if not ({"time", "summary", "effects"} & set(data)):
        fast = {**data, **filled}
        assert list(fast.items()) == list(slow.items())


def _verdict(f: Any, value: Any) -> Any:
    try:
        return f(value, "doc")
    except ParamError as e:
        return ("refused", str(e))


_DEEP = st.integers(0, 70).map(lambda n: {"a": [[[{}]]] if n % 2 else 1} if n < 3 else _nest(n))


def _nest(n: int) -> Any:
    v: Any = 1
    for i in range(n):
        v = [v] if i % 2 else {"k": v}
    return v


@given(st.one_of(_JSON, _DEEP, st.text().map(lambda t: {"t": t + "\ud800"}), st.just(float("nan"))))
def test_an_events_json_is_written_as_the_text_it_was(value):
    """What the store writes of a document is its JSON text as UTF-8, refused for the
    same reasons, in the same order (a lone surrogate, which the text keeps and UTF-8
    cannot: as a line of the journal refused it before)."""
    text, data = _verdict(json_text, value), _verdict(json_bytes, value)
    if isinstance(text, str):
        try:
            want: Any = text.encode("utf-8")
        except UnicodeEncodeError:
            assert data[0] == "refused" and "lone surrogates" in data[1]
            return
        assert data == want
    else:
        assert data == text
