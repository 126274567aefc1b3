"""``gmdesk log``: a session's event log, and how one event reads on the command line.

The log is read-only: the players' log with ``--public``, following the session live
with ``--follow``. An event reads as text or JSON (``gmdesk roll … --save`` prints its
rolls so too)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from gmdesk.cli.common import guard, session_store
from gmdesk.core.errors import ParamError

if TYPE_CHECKING:
    from gmdesk.core.dice import RollRecord
    from gmdesk.core.session.events import Event
    from gmdesk.core.session.session import Session


def register(subparsers: Any) -> None:
    """Add ``log`` to ``gmdesk``'s subparsers."""
    p = subparsers.add_parser("log", help="print a session's event log (read-only)")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.add_argument("--json", action="store_true", help="one JSON object per event per line, oldest first")
    p.add_argument("--follow", action="store_true", help="keep printing events as they are saved (Ctrl-C stops)")
    p.add_argument("--interval", default="0.5", help=argparse.SUPPRESS)
    p.add_argument(
        "--public",
        action="store_true",
        help="the players' log: without the characters hidden from them, their rolls or the GM's notes",
    )
    p.set_defaults(func=cmd_log)


def event_json(event: Event) -> dict[str, Any]:
    """One event as ``gmdesk log --json`` prints it: seq, type, time, summary, the
    payload; a roll event's record (what ``gmdesk roll --json`` prints) under ``roll``."""
    d = event.to_json()
    if d.get("type") == "roll" and "record" in d:
        d["roll"] = d.pop("record")
    return d


@cache
def _drawing() -> tuple[Callable[[str, Any], str], Callable[[str], str]]:
    """What :func:`event_text` draws with (``core.render.roll_summary``,
    ``core.text.reading``), imported at its first call: ``gmdesk log`` starts without
    Rich, and a run of rolls runs no import statement a roll."""
    from gmdesk.core.render import roll_summary
    from gmdesk.core.text import reading

    return roll_summary, reading


def event_text(event: Event, record: RollRecord | None = None) -> list[str]:
    """An event as ``gmdesk log`` prints it: a roll's line drawn from its record (both
    sides, one notation, whichever gmdesk saved it), then each change once.
    ``record``: the event's record as a RollRecord, when the caller holds it already
    (the session's fold of a roll just made), else it is read from the event."""
    roll_summary, reading = _drawing()
    when = event.time[11:16] if len(event.time) >= 16 else event.time
    saved = event.data.get("record")
    head = event.summary or event.type
    if event.type == "roll" and (type(saved) is dict or isinstance(saved, Mapping)):
        head = roll_summary(head, saved if record is None else record)
    lines = [f"#{event.seq:<4} {when:5}  {reading(head)}"]
    for ch in event.changes:
        if ch not in head:  # said by the summary already ("Bruno heals Kara: Kara: Vitality −3 → 1")
            lines.append(f"{'':13}· {reading(ch)}")
    return lines


def _print_events(events: Sequence[Event], as_json: bool) -> None:
    out = sys.stdout
    for e in events:
        if as_json:
            out.write(json.dumps(event_json(e), ensure_ascii=False) + "\n")
        else:
            out.write("\n".join(event_text(e)) + "\n")
    out.flush()


def _players(session: Session, events: Sequence[Event]) -> list[Event]:
    """What of ``events`` the players may read, as the player view shows the session
    now: no GM's note, nothing of a character hidden from them, no hidden roll, and
    each roll's GM secrets taken out of its JSON."""
    from gmdesk.core.session.events.visibility import gone_hidden, public_event
    from gmdesk.core.session.export import in_effect

    state = session.state
    by_seq = {e.seq: e for e in session.events}
    live = in_effect(session.events)
    gone = gone_hidden(e for e in session.events if e.seq in live)
    out = []
    for e in events:
        if e.type == "note":
            continue
        shown = public_event(state, e, by_seq, gone)
        if shown is not None:
            out.append(_without_secrets(shown))
    return out


def _without_secrets(event: Event) -> Event:
    """A roll event's record without its system's secret parameters (the players' log)."""
    import dataclasses

    record = event.data.get("record")
    if event.type not in ("roll", "heal") or not isinstance(record, Mapping):
        return event
    from gmdesk.core.systems import public_json

    return dataclasses.replace(event, data={**event.data, "record": public_json(record)})


@guard
def cmd_log(ns: Any) -> int:
    from gmdesk.core.session.session import Session

    try:
        interval = float(ns.interval)
        if not 0.01 <= interval <= 60:
            raise ValueError
    except ValueError:
        raise ParamError("--interval", f"must be a number of seconds from 0.01 to 60 (got {ns.interval!r})") from None
    path = session_store(ns).resolve(ns.save)
    session = Session.open(path, readonly=True)
    try:
        for w in session.warnings:
            print(f"gmdesk: warning: {w}", file=sys.stderr)
        shown = len(session.events)
        _print_events(_players(session, session.events) if ns.public else session.events, ns.json)
        if not ns.follow:
            return 0
        try:
            while True:
                time.sleep(interval)
                if session.refresh():
                    new = session.events[shown:]
                    _print_events(_players(session, new) if ns.public else new, ns.json)
                    shown = len(session.events)
        except KeyboardInterrupt:
            return 0
    finally:
        session.close()
