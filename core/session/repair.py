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
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.storage import (
    EVENTS_TABLE,
    META_TABLE,
    SCHEMA_VERSION,
    SYSTEM_KEY,
    EventLog,
    session_files,
    sidecar_paths,
)
from gmdesk.core.session.storage.atomic import read_file
from gmdesk.core.session.storage.checksums import changed_events
from gmdesk.core.session.storage.codec import loads
from gmdesk.core.session.storage.format import (
    State,
    apply_record,
    journal_record,
    migrate,
    parse_snapshot,
    state_from_snapshot,
)

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


def check(path: str | os.PathLike) -> CheckReport:
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


def _header_problems(header: dict) -> list[str]:
    from gmdesk.core.session.session import header_problems

    return header_problems(header)


@dataclass
class Salvage:
    """What can be trusted in a damaged session (see the module docstring)."""

    header: dict | None
    events: list[dict]
    meta: list[tuple[Any, Any]]  # (key, value) as read: repair keeps those with a text key
    left_out: list[str]

    def kept_text(self) -> str:
        n = len(self.events)
        return f"{n} event{'s' if n != 1 else ''}" + (f" (#1–#{n})" if n > 1 else "")


def _snapshot_events(data: bytes, sysrec: dict | None, left_out: list[str]) -> tuple[list[dict], bool, bytes]:
    """The trusted events of a snapshot (one per line, ``"N":{…}``), whether that is all
    of them, and the rest of the file after the events."""
    start = data.find(b"\n" + b'"' + EVENTS_TABLE.encode() + b'":{')
    if start < 0:
        start = data.find(b'"' + EVENTS_TABLE.encode() + b'":{')
        if start < 0:
            left_out.append("the session file's events do not read at all")
            return [], False, b""
    else:
        start += 1
    start += len(EVENTS_TABLE) + 4
    count = sysrec.get("count") if isinstance(sysrec, dict) else None
    trusted_upto = None
    if isinstance(sysrec, dict) and type(count) is int and type(sysrec.get("events_sha256")) is str:
        length = sysrec.get("events_bytes")
        end = start + length if type(length) is int else len(data)
        import hashlib

        if hashlib.sha256(data[start:end]).hexdigest() != sysrec["events_sha256"]:
            where = changed_events(data, start, end, count, sysrec)
            m = re.search(r"#(\d+)", where)
            first_bad = int(m.group(1)) - 1 if m else 0
            trusted_upto = first_bad
            left_out.append(
                f"{where} of the session file changed since gmdesk saved them"
                + (f"; events #{first_bad + 1}–#{count} are left out" if first_bad + 1 <= count else "")
            )
    events: list[dict] = []
    pos = start
    complete = True
    while True:
        if pos >= len(data) or data[pos : pos + 1] != b"\n":
            break
        nl = data.find(b"\n", pos + 1)
        line = data[pos + 1 : nl if nl >= 0 else len(data)]
        seq = len(events) + 1
        if trusted_upto is not None and seq > trusted_upto:
            complete = False
            break
        prefix = b'"' + str(seq).encode() + b'":'
        body = line[len(prefix) :].rstrip()
        if body.endswith(b","):
            body = body[:-1]
        last = False
        if body.endswith(b"}}"):  # the last event closes the events object too
            try:
                doc = loads(body)
            except ValueError:
                body, last = body[:-1], True
        try:
            if not line.startswith(prefix):
                raise ValueError("not the next event")
            doc = loads(body)
            if type(doc) is not dict:
                raise ValueError("not an object")
        except ValueError:
            complete = False
            if trusted_upto is None:
                left_out.append(
                    f"event #{seq} of the session file does not read; it and every later event of the file are left out"
                )
            break
        events.append(doc)
        pos = nl if nl >= 0 else len(data)
        if last:
            break
    if type(count) is int and len(events) < count and complete:
        complete = False
        left_out.append(f"events #{len(events) + 1}–#{count} of the session file are missing")
    rest = data[pos:] if pos < len(data) else b""
    return events, complete and (trusted_upto is None), rest


def salvage(path: str | os.PathLike) -> Salvage:
    """Everything that can be trusted in the session at ``path`` (read only)."""
    path = Path(path)
    left_out: list[str] = []
    got = read_file(path)
    if got is None:
        raise GmdeskError(f"{path}: no such session file")
    data = got[0]
    sysrec: dict | None = None
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
                True,
                left_out,
            )
        except GmdeskError:
            return Salvage(None, [], [], ["the session's header (name, system, settings) does not read"])
    events, complete, _rest = _snapshot_events(data, sysrec, left_out)
    meta: dict = {}
    at = data.rfind(b',\n"' + META_TABLE.encode() + b'":{')
    if at >= 0:
        try:
            others = loads(b"{" + data[at + 2 :].strip())
            meta = others.get(META_TABLE, {}) if isinstance(others, dict) else {}
        except ValueError:
            left_out.append("the view state (selected character, log position) does not read; it starts afresh")
    lsn = sysrec.get("lsn") if isinstance(sysrec, dict) and type(sysrec.get("lsn")) is int else None
    return _with_journal(path, dict(header), events, lsn, meta, complete, left_out)


def _with_journal(
    path: Path, header: dict, events: list[dict], lsn: int | None, meta: Any, complete: bool, left_out: list[str]
) -> Salvage:
    jpath = sidecar_paths(path)["journal"]
    got = read_file(jpath)
    meta_docs = {str(k): v for k, v in meta.items()} if isinstance(meta, dict) else {}
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
        records = [ln for ln in lines[1:]]
        while records and not records[-1].strip():
            records.pop()
        torn = bool(got[0]) and not got[0].endswith(b"\n") and records
        if torn:
            records.pop()
            left_out.append("the journal's last record was cut short (a crash while saving); it is left out")
        state = State(
            SCHEMA_VERSION,
            header,
            lsn,
            {EVENTS_TABLE: {str(i + 1): d for i, d in enumerate(events)}, META_TABLE: meta_docs},
        )
        expected = base
        for i, line in enumerate(records):
            try:
                rec = journal_record(line, version)
                n = rec.get("n")
                if n != expected + 1:
                    raise ValueError(f"out of order (expected record {expected + 1})")
                expected = n
                if n > lsn:
                    if not complete and rec.get("op") == "put" and rec.get("tb") == EVENTS_TABLE:
                        raise ValueError("follows events that were left out")
                    apply_record(state, rec, jpath, i + 2)
            except (ValueError, GmdeskError) as e:
                rest = records[i:]
                evs = sum(1 for ln in rest if b'"tb":"events"' in ln)
                left_out.append(
                    f"journal line {i + 2}: {_short(e, jpath) if isinstance(e, GmdeskError) else e}; "
                    f"{len(rest)} change{'s' if len(rest) != 1 else ''} from there on "
                    f"({evs} event{'s' if evs != 1 else ''}) left out"
                )
                break
        table = state.tables[EVENTS_TABLE]
        events = [table[str(i)] for i in range(1, len(table) + 1)]
        meta_docs = state.tables.get(META_TABLE, {})
        header = state.header
    meta_list = [(d.get("key"), d.get("value")) for d in meta_docs.values() if isinstance(d, dict)]
    return Salvage(header, events, meta_list, left_out)


def repair(path: str | os.PathLike, saves_dir: str | os.PathLike | None = None) -> tuple[Path, Salvage]:
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
    header.update(name=name, created=now_iso())
    with store._creating():
        dst = store._new_path(name)
        out = EventLog.create(dst, header)
        try:
            if got.events:
                out.append_many(got.events)
            for key, value in got.meta:
                if isinstance(key, str) and key:
                    out.meta_set(key, value)
        except BaseException:
            out.close()
            for f in session_files(dst):
                f.unlink(missing_ok=True)
            raise
        out.close()
    return dst, got
