"""``gmdesk check SAVE`` and ``gmdesk repair SAVE``: say what is wrong with a session
in plain words, and write a new session beside a damaged one from everything that
can be trusted.

What can be trusted (decided here, where the issue leaves it open):

* the snapshot's header (name, system, settings) when its first line reads;
* the snapshot's events up to the first block whose checksum disagrees (blocks of
  :data:`core.session.storage.BLOCK_EVENTS` events; a snapshot in an older layout,
  without checksums, up to the first event that does not read);
* the journal's records, in order, up to the first one that is damaged (bad
  checksum, unreadable, out of order, missing) — only when every snapshot event
  before them was kept, since the log is a chain: an event after a gap could refer
  to one that is gone (undo targets, Possibility re-rolls name earlier events by
  number), so nothing after the first gap is replayed;
* the view state (selected character…) when it reads; it is only a convenience.

Repair never modifies the damaged files: it writes ``<name> (repaired).gmdesk`` (a
free name beside it) and reports what it kept and what it left out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.lock import read_saved
from gmdesk.core.session.storage import (
    EVENTS_TABLE,
    META_TABLE,
    SCHEMA_VERSION,
    SYSTEM_KEY,
    EventLog,
    sidecar_paths,
)
from gmdesk.core.session.storage.atomic import read_file
from gmdesk.core.session.storage.codec import dumps, loads
from gmdesk.core.session.storage.format import State
from gmdesk.core.session.storage.migrations import migrate
from gmdesk.core.session.storage.recovery import apply_record, journal_record
from gmdesk.core.session.storage.snapshot_open import parse_snapshot, state_from_snapshot

__all__ = ["CheckReport", "check", "repair", "Salvage", "salvage"]


@dataclass
class CheckReport:
    """What ``check`` found. ``ok`` when the session opens cleanly; ``problems`` and
    ``notes`` are one plain line each."""

    path: Path
    ok: bool
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    events: int | None = None

    def lines(self) -> list[str]:
        head = (
            f"{self.path.name}: fine — {self.events} event{'s' if self.events != 1 else ''}, opens cleanly"
            if self.ok
            else f"{self.path.name}: DAMAGED"
        )
        return [head, *(f"  ✗ {p}" for p in self.problems), *(f"  · {n}" for n in self.notes)]


def _short(err: BaseException, path: Path) -> str:
    text = " ".join(str(err).split())
    for p in (str(path) + ".journal: ", str(path) + ": "):
        if text.startswith(p):
            text = ("journal: " if p.endswith(".journal: ") else "") + text[len(p) :]
    return text.replace(" (file left untouched)", "")


def check(path: str | os.PathLike[str]) -> CheckReport:
    """Read the session at ``path`` the way an open would (never writing anything) and
    say what is wrong. A session that opens gets its notes (a torn last record that
    an open drops, events the rules refuse, a stale checkpoint)."""
    path = Path(path)
    if not path.is_file():
        raise GmdeskError(f"{path}: no such session file")
    try:
        log = EventLog.open(path, readonly=True)
    except GmdeskError as e:
        report = CheckReport(path, ok=False, problems=[_short(e, path)])
        got = salvage(path)
        report.notes.append(
            f"`gmdesk repair` would keep {got.kept_text()}"
            if got.header is not None
            else "nothing can be recovered automatically: the session's header does not read"
        )
        report.notes.extend(got.left_out)
        return report
    try:
        report = CheckReport(path, ok=True, events=log.count, notes=list(log.warnings))
        try:
            log.verify()  # every saved event, not only those an open reads
        except GmdeskError as e:
            log.close()
            report = CheckReport(path, ok=False, problems=[_short(e, path)])
            got = salvage(path)
            if got.header is not None:
                report.notes.append(f"`gmdesk repair` would keep {got.kept_text()}")
            report.notes.extend(got.left_out)
            return report
        try:
            from gmdesk.core.session.session import Session

            session = Session(log, readonly=True, path=path)
            report.notes.extend(w for w in session.warnings if w not in report.notes)
            problems = _header_problems(log.header)
            if problems:
                report.ok = False
                report.problems.extend(problems)
        except GmdeskError as e:
            report.ok = False
            report.problems.append(_short(e, path))
    finally:
        log.close()
    return report


def _header_problems(header: dict[str, Any]) -> list[str]:
    from gmdesk.core.session.session import header_problems

    return header_problems(header)


@dataclass
class Salvage:
    """What can be trusted in a damaged session (see the module docstring).

    ``events`` holds every event by its place in the log: None where an event was
    left out (its place is kept, so that what later events say of earlier ones by
    number still holds)."""

    header: dict[str, Any] | None
    events: list[dict[str, Any] | None]
    meta: list[tuple[Any, Any]]  # (key, value) as read: repair keeps those with a text key
    left_out: list[str]

    @property
    def kept(self) -> int:
        return sum(1 for e in self.events if e is not None)

    def kept_text(self) -> str:
        n, total = self.kept, len(self.events)
        if n == total:
            return f"{n} event{'s' if n != 1 else ''}" + (f" (#1–#{n})" if n > 1 else "")
        return f"{n} of {total} events"


def _ranges(seqs: list[int]) -> str:
    """``[3, 4, 5, 9]`` → ``"#3–#5, #9"``."""
    runs: list[list[int]] = []
    for seq in seqs:
        if runs and seq == runs[-1][1] + 1:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
    return ", ".join(f"#{a}" if a == b else f"#{a}–#{b}" for a, b in runs)


def _event_line(data: bytes, pos: int, seq: int) -> tuple[dict[str, Any] | None, int]:
    """The event on the line starting at ``data[pos]`` (a newline, then ``"seq":{…}``)
    and where the next line starts; None when it does not read as event ``seq``."""
    nl = data.find(b"\n", pos + 1)
    line = data[pos + 1 : nl if nl >= 0 else len(data)]
    prefix = b'"' + str(seq).encode() + b'":'
    body = line[len(prefix) :].rstrip()
    if body.endswith(b","):
        body = body[:-1]
    doc: Any = None
    for text in (body, body[:-1]) if body.endswith(b"}}") else (body,):
        try:
            doc = loads(text) if line.startswith(prefix) else None
            break
        except ValueError:
            doc = None
    return (doc if type(doc) is dict else None), (nl if nl >= 0 else len(data))


def _snapshot_events(data: bytes, sysrec: dict[str, Any] | None, left_out: list[str]) -> list[dict[str, Any] | None]:
    """The snapshot's events by seq (None for one that cannot be trusted). With block
    checksums, every block whose checksum matches is kept, whatever the others hold;
    without them (an older layout) every event up to the first that does not read."""
    import hashlib
    import zlib

    from gmdesk.core.session.storage.checksums import BLOCK_EVENTS

    at = data.find(b"\n" + b'"' + EVENTS_TABLE.encode() + b'":{')
    if at < 0:
        left_out.append("the session file's events do not read at all")
        return []
    start = at + 1 + len(EVENTS_TABLE) + 4
    count = sysrec.get("count") if isinstance(sysrec, dict) else None
    length = sysrec.get("events_bytes") if isinstance(sysrec, dict) else None
    want = sysrec.get("events_crc32") if isinstance(sysrec, dict) else None
    end = start + length if type(length) is int else len(data)
    whole_ok = (
        isinstance(sysrec, dict)
        and type(sysrec.get("events_sha256")) is str
        and hashlib.sha256(data[start:end]).hexdigest() == sysrec["events_sha256"]
    )
    if type(count) is int and not whole_ok and type(want) is str and len(want) == 8 * -(-count // BLOCK_EVENTS):
        nls: list[int] = []
        p = data.find(b"\n", start)
        while 0 <= p < end and len(nls) < count:
            nls.append(p)
            p = data.find(b"\n", p + 1)
        events: list[dict[str, Any] | None] = [None] * count
        bad: list[int] = []
        for k in range(-(-count // BLOCK_EVENTS)):
            a, b = k * BLOCK_EVENTS, min(count, (k + 1) * BLOCK_EVENTS)
            lo = nls[a] if k and a < len(nls) else start
            hi = nls[b] if b < count and b < len(nls) else end
            ok = (
                a < len(nls) and b <= len(nls) and b"%08x" % zlib.crc32(data[lo:hi]) == want[8 * k : 8 * k + 8].encode()
            )
            for seq in range(a + 1, b + 1):
                doc = _event_line(data, nls[seq - 1], seq)[0] if ok else None
                events[seq - 1] = doc
                if doc is None:
                    bad.append(seq)
        if bad:
            left_out.append(
                f"events {_ranges(bad)} of the session file changed since gmdesk saved them "
                f"(their block's checksum does not match); they are left out, their places kept"
            )
        return events
    events = []
    pos = start - 1 if data[start - 1 : start] == b"\n" else data.find(b"\n", start - 1)
    while pos < len(data) and data[pos : pos + 1] == b"\n" and (type(count) is not int or len(events) < count):
        doc, pos = _event_line(data, pos, len(events) + 1)
        if doc is None:
            break
        events.append(doc)
    total = count if type(count) is int else len(events)
    if (
        type(
            sysrec,
        )
        is dict
        and type(sysrec.get("events_sha256")) is str
        and not whole_ok
    ):
        left_out.append(
            f"events #1–#{total} of the session file changed since gmdesk saved them; without block "
            f"checksums none of them can be trusted"
        )
        return [None] * total
    if len(events) < total:
        left_out.append(f"events #{len(events) + 1}–#{total} of the session file do not read; they are left out")
        events += [None] * (total - len(events))
    return events


def salvage(path: str | os.PathLike[str]) -> Salvage:
    """Everything that can be trusted in the session at ``path`` (read only)."""
    import zlib

    path = Path(path)
    left_out: list[str] = []
    got = read_file(path)
    if got is None:
        raise GmdeskError(f"{path}: no such session file")
    data = got[0]
    sysrec: dict[str, Any] | None = None
    prefix = b'{"' + SYSTEM_KEY.encode() + b'":'
    first = data[: data.find(b"\n")] if b"\n" in data else data
    if first.startswith(prefix):
        try:
            sysrec = loads(first[len(prefix) :].rstrip(b","))
        except ValueError:
            sysrec = None
    header = sysrec.get("header") if isinstance(sysrec, dict) and isinstance(sysrec.get("header"), dict) else None
    if header is None:
        try:  # an older layout read whole
            schema, raw = parse_snapshot(path, data)
            if schema < SCHEMA_VERSION:
                raw = migrate(path, raw, schema)
            state = state_from_snapshot(path, raw, SCHEMA_VERSION)
            return _with_journal(
                path,
                state.header,
                list(state.tables[EVENTS_TABLE].all_docs()),
                state.lsn if schema else None,
                state.tables.get(META_TABLE, {}),
                left_out,
            )
        except GmdeskError:
            return Salvage(None, [], [], ["the session's header (name, system, settings) does not read"])
    assert sysrec is not None
    hcrc = sysrec.get("header_crc32")
    if type(hcrc) is int and zlib.crc32(dumps(header).encode("utf-8")) != hcrc:
        left_out.append(
            "the session's header (name, system, settings) changed since gmdesk saved it; "
            "it is kept as it reads: check its settings"
        )
    events = _snapshot_events(data, sysrec, left_out)
    meta: dict[str, Any] = {}
    at = data.rfind(b',\n"' + META_TABLE.encode() + b'":{')
    tcrc, length = sysrec.get("tail_crc32"), sysrec.get("events_bytes")
    ev_at = data.find(b"\n" + b'"' + EVENTS_TABLE.encode() + b'":{')
    tail_start = ev_at + 1 + len(EVENTS_TABLE) + 4 + length if type(length) is int and ev_at >= 0 else -1
    if type(tcrc) is int and (tail_start < 0 or zlib.crc32(data[tail_start:]) != tcrc):
        left_out.append(
            "the view state (selected character, log position) changed since gmdesk saved it; it starts afresh"
        )
    elif at >= 0:
        try:
            others = loads(b"{" + data[at + 2 :].strip())
            meta = others.get(META_TABLE, {}) if isinstance(others, dict) else {}
        except ValueError:
            left_out.append("the view state (selected character, log position) does not read; it starts afresh")
    lsn = sysrec.get("lsn") if type(sysrec.get("lsn")) is int else None
    return _with_journal(path, dict(header), events, lsn, meta, left_out)


def _with_journal(
    path: Path,
    header: dict[str, Any],
    events: list[dict[str, Any] | None],
    lsn: int | None,
    meta: Any,
    left_out: list[str],
) -> Salvage:
    """Add the journal's changes after the snapshot's: every record whose checksum
    verifies, in the order their numbers prove; a damaged record is skipped (the
    event it held, if any, keeps its place as left out), never the good ones after it."""
    paths = sidecar_paths(path)
    jpath = paths["journal"]
    got = read_file(jpath)
    meta_docs = {str(k): v for k, v in meta.items()} if isinstance(meta, dict) else {}
    events = list(events)
    if got is not None and got[0].strip() and lsn is not None:
        lines = got[0].split(b"\n")
        try:
            head = loads(lines[0])
            version, base = int(head["gmdesk_journal"]), int(head["base"])
        except (ValueError, KeyError, TypeError):
            left_out.append("the journal's first line does not read; every change it holds is left out")
            lines, version, base = [], 0, lsn
        if lines and base > lsn:
            left_out.append(
                f"the journal starts after the session file (record {base + 1} > {lsn}); its changes are left out"
            )
            lines = []
        records = lines[1:]
        while records and not records[-1].strip():
            records.pop()
        if got[0] and not got[0].endswith(b"\n") and records:
            records.pop()
            left_out.append("the journal's last record was cut short (a crash while saving); it is left out")
        state = State(SCHEMA_VERSION, header, lsn, {EVENTS_TABLE: {}, META_TABLE: meta_docs})
        expected = base
        bad: list[str] = []
        pending: list[tuple[int, str]] = []  # damaged lines since the last good record
        for i, line in enumerate(records):
            try:
                rec = journal_record(line, version)
                n = rec.get("n")
                if type(n) is not int:
                    raise ValueError("it has no record number")
            except ValueError as e:
                pending.append((i + 2, str(e)))
                continue
            if n <= expected:
                bad.append(f"line {i + 2} (record {n} again: a duplicated or older line)")
                continue
            if n > expected + 1 or pending:
                span = f"record {expected + 1}" if n == expected + 2 else f"records {expected + 1}–{n - 1}"
                if len(pending) == n - expected - 1:
                    where = ", ".join(f"line {ln}: {why}" for ln, why in pending[:3])
                    bad.append(f"{span} damaged ({where})")
                else:
                    bad.append(f"{span} missing or damaged (before line {i + 2})")
                pending = []
            expected = n
            if n <= lsn:
                continue
            try:
                if rec.get("op") == "put" and rec.get("tb") == EVENTS_TABLE:
                    doc_id, doc = rec.get("id"), rec.get("doc")
                    if type(doc_id) is not int or doc_id < 1 or type(doc) is not dict:
                        raise ValueError("not an event")
                    if doc_id > len(events):
                        events += [None] * (doc_id - len(events))
                    events[doc_id - 1] = doc
                else:
                    apply_record(state, rec, jpath, i + 2)
            except (ValueError, GmdeskError) as e:
                bad.append(f"line {i + 2} ({_short(e, jpath) if isinstance(e, GmdeskError) else e})")
        if pending:
            where = ", ".join(f"line {ln}: {why}" for ln, why in pending[:3])
            bad.append(f"the last {len(pending)} record{'s' if len(pending) != 1 else ''} damaged ({where})")
        if bad:
            left_out.append(
                "journal: "
                + "; ".join(bad[:5])
                + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
                + " left out; every record after them that verifies is kept"
            )
        saved = read_saved(paths["lock"])
        if saved is not None and saved[0] == f"{got[1].st_dev}:{got[1].st_ino}" and saved[1] > expected:
            span = f"record {saved[1]}" if saved[1] == expected + 1 else f"records {expected + 1}–{saved[1]}"
            left_out.append(
                f"journal: {span} missing (cut off its end by another program, or an older copy put in its "
                f"place); what they held is lost"
            )
        meta_docs = state.tables.get(META_TABLE, {})
        header = state.header
    lost = [i + 1 for i, e in enumerate(events) if e is None]
    if lost:
        left_out.append(
            f"in all, event{'s' if len(lost) != 1 else ''} {_ranges(lost)} "
            f"({len(lost)} of {len(events)}) left out, each place kept by a note saying so"
        )
    meta_list = [(d.get("key"), d.get("value")) for d in meta_docs.values() if isinstance(d, dict)]
    return Salvage(header, events, meta_list, left_out)


#: the header's summary (what the session list shows): worked out again from what was kept
SUMMARY_KEYS = ("round", "rolls", "characters", "events", "last_played")


def repair(path: str | os.PathLike[str], saves_dir: str | os.PathLike[str] | None = None) -> tuple[Path, Salvage]:
    """Write a new session beside the damaged one at ``path`` from everything that
    can be trusted; returns its path and what was kept / left out. The damaged files
    are only read. GmdeskError when nothing can be recovered (no readable header)."""
    from gmdesk.core.session.saves import SessionStore
    from gmdesk.core.text import now_iso

    path = Path(path)
    got = salvage(path)
    if got.header is None:
        raise GmdeskError(f"{path}: cannot repair: {'; '.join(got.left_out)}")
    header = {k: v for k, v in got.header.items() if k != "schema"}
    problems = _header_problems(header)
    if problems:
        raise GmdeskError(f"{path}: cannot repair: {'; '.join(problems)}")
    store = SessionStore(saves_dir if saves_dir is not None else path.parent)
    base = str(header.get("name") or path.stem)
    taken = {s.name.casefold() for s in store.list() if s.error is None}
    name, k = f"{base} (repaired)", 2
    while name.casefold() in taken:
        name, k = f"{base} (repaired {k})", k + 1
    when = now_iso()
    header.update(name=name, created=when)
    # the summary the session list shows is worked out again from what was kept
    header.update(round=0, rolls=0, characters=0, events=0, last_played=when)
    events = [
        doc
        if doc is not None
        else {
            "type": "note",
            "text": f"event #{seq} was lost to damage (gmdesk repair kept its place)",
            "time": when,
            "summary": f"Note: event #{seq} was lost to damage",
            "effects": [],
        }
        for seq, doc in enumerate(got.events, 1)
    ]
    dst = store.create_filled(name, header, events, got.meta)
    from gmdesk.core.session.session import Session

    try:
        Session.open(dst).close()  # a writer's close writes the summary of what it holds
    except GmdeskError:
        pass  # the copy is written; its list line is only a convenience
    return dst, got
