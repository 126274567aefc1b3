"""The journal's format 3: a roll and the header summary it changes are one record
(one line, one checksum, one write and fsync), and journals of format 2 (the header
change on a line of its own) keep opening, read-only and for writing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.storage import JOURNAL_VERSION, CorruptSaveError, EventLog, sidecar_paths
from gmdesk.core.session.storage.checksums import seal_bytes
from gmdesk.core.session.storage.recovery import peek

V2 = Path(__file__).parent / "data" / "journal-v2"
NAME = "journal v2"


def _copy_v2(tmp_path: Path) -> Path:
    for f in V2.glob(NAME + ".gmdesk*"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path / (NAME + ".gmdesk")


def _seen(path: Path) -> dict:
    with Session.open(path, readonly=True) as s:
        header = {k: v for k, v in s._log.header.items() if k != "last_played"}
        return {"header": header, "events": [[e.seq, e.type, e.summary] for e in s.events]}


def _journal_lines(path: Path) -> list[dict]:
    lines = sidecar_paths(path)["journal"].read_bytes().splitlines()
    return [json.loads(line) for line in lines]


def test_a_format_2_journal_opens_read_only_as_it_was_written(tmp_path):
    path = _copy_v2(tmp_path)
    assert _journal_lines(path)[0]["gmdesk_journal"] == 2
    want = json.loads((V2 / (NAME + ".json")).read_text())
    assert _seen(path) == want
    header, count = peek(path)  # what the session list shows
    assert (header["rolls"], header["events"], count) == (3, 4, 5)
    assert _journal_lines(path)[0]["gmdesk_journal"] == 2  # a reader changes nothing


def test_a_writer_upgrades_a_format_2_journal_and_appends_in_format_3(tmp_path):
    path = _copy_v2(tmp_path)
    want = json.loads((V2 / (NAME + ".json")).read_text())
    with Session.open(path) as s:
        assert [e.summary for e in s.events] == [e[2] for e in want["events"]]
        # the upgrade folded the old journal into the session file: a fresh one of this format
        assert _journal_lines(path)[0]["gmdesk_journal"] == JOURNAL_VERSION
        before = len(_journal_lines(path))
        s.roll("4d2", {}, actor="c1", rng=FixedDice([2, 2, 1, 1]))
        s._log._storage.abandon()  # killed: what the journal holds is all there is
    lines = _journal_lines(path)
    assert len(lines) == before + 1  # the roll and its header change: one record
    assert lines[-1]["op"] == "put"
    assert {k: lines[-1]["set"][k] for k in ("rolls", "events")} == {"rolls": 4, "events": 6}
    seen = _seen(path)
    assert seen["events"][:5] == want["events"] and seen["events"][5][1] == "roll"
    assert (seen["header"]["rolls"], seen["header"]["events"]) == (4, 6)
    assert peek(path)[0]["rolls"] == 4


def test_each_roll_of_roll_count_save_is_one_journal_record(tmp_path):
    """One line a roll (the header's roll count rides on it), read back exactly."""
    path = SessionStore(tmp_path).create("Docks", "4d2")
    with Session.open(path) as s:
        base = s._log._storage.lsn
        for faces in ([3, 5, 3, 4], [1, 3, 1, 6], [6, 6, 1, 1]):
            s.roll("4d2", {}, rng=FixedDice(faces))
        assert s._log._storage.lsn == base + 3
        lines = _journal_lines(path)[1:]
        assert [(r["op"], r["set"]["rolls"]) for r in lines] == [("put", 1), ("put", 2), ("put", 3)]
        summaries = [e.summary for e in s.events]
        s._log._storage.abandon()
    with EventLog.open(path, readonly=True) as log:
        assert log.header["rolls"] == 3 and log.header["events"] == 3
        assert [d["summary"] for _, d in log.events()] == summaries
    with Session.open(path) as again:  # a writer after the kill: the same
        assert [e.summary for e in again.events] == summaries and again._log.header["rolls"] == 3


def test_a_header_change_on_a_put_record_is_damage_in_a_format_2_journal(tmp_path):
    path = _copy_v2(tmp_path)
    jpath = sidecar_paths(path)["journal"]
    lines = jpath.read_bytes().splitlines()
    rec = json.loads(lines[-1][: -len(',"c":"00000000"}')] + b"}")
    rec = {"n": rec["n"] + 1, "op": "put", "tb": "meta", "id": 2, "set": {"rolls": 99}, "doc": {"key": "k", "value": 1}}
    line = seal_bytes(json.dumps(rec, separators=(",", ":")).encode())
    jpath.write_bytes(b"\n".join([*lines, line]) + b"\n")
    with pytest.raises(CorruptSaveError, match="header changes on a put record"):
        EventLog.open(path, readonly=True)


def test_a_format_3_put_with_bad_header_changes_is_damage(tmp_path):
    path = SessionStore(tmp_path).create("Docks", "4d2")
    with Session.open(path) as s:
        s.roll("4d2", {}, rng=FixedDice([3, 5, 3, 4]))
        s._log._storage.abandon()
    jpath = sidecar_paths(path)["journal"]
    lines = jpath.read_bytes().splitlines()
    rec = json.loads(lines[-1][: -len(',"c":"00000000"}')] + b"}")
    rec["set"] = [1, 2]
    lines[-1] = seal_bytes(json.dumps(rec, separators=(",", ":"), ensure_ascii=False).encode())
    jpath.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(CorruptSaveError, match="header changes are not a JSON object"):
        EventLog.open(path, readonly=True)
