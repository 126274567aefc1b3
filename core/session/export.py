"""The chronicle of a session: Markdown, HTML or JSON.

A chronicle tells the whole evening as it stands (undone events are gone from
it): the cast with who was hurt and how and the conditions they carry, the clocks,
then everything that happened in log order, under a heading for each stretch of
play in one round ("Round 2"; "Outside the encounter" for round 0). Each roll shows
who rolled at whom, the outcome and descriptors, the system's numbers (as its
declaration labels them and its ``chronicle`` tells them), the dice and every
change it made; every other event in play — conditions and sources, uses, heals,
new days, clock ticks, characters joining or leaving, Possibilities and buy-offs —
shows what it did. Turn and round changes are the headings; undo / redo are not
told (what they undid is simply gone).

The chronicle is the players' by default: ``public=True`` (the default) leaves out
what the GM keeps secret — the parameters a system declares secret — and the GM's notes; the GM's
full chronicle is asked for with ``public=False`` (``gmdesk export NAME --gm``).
A character hidden from the players (``Character.hidden``) is not in the players'
chronicle at all: not in the cast, nor who was hurt, nor the order; neither are its
rolls (``State.public_roll``) nor the events that name it (``public_event``).
HTML escapes every piece of text that came from the table; Markdown
backslash-escapes the characters that would change its formatting.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeAlias

from gmdesk.core.dice import RollRecord
from gmdesk.core.session.chronicle_cast import cast, char_facts, character_json, hurt, wound_text
from gmdesk.core.session.events import Event, status_word
from gmdesk.core.session.events.seen import seen_entry
from gmdesk.core.session.model import NameOf, Note, RollEntry, State
from gmdesk.core.text import reading, short_time, signed

FORMATS = ("md", "html", "json")

#: what a chronicle tells: a roll, a note, or another event
Told: TypeAlias = RollEntry | Note | Event


def _line(record: RollRecord, public: bool) -> str:
    from gmdesk.core.render import record_line

    return record_line(record, hide_secrets=public)


def _dice(record: RollRecord) -> str:
    from gmdesk.core.render import log_dice_plain

    return reading(log_dice_plain(record))


def _times(events: Iterable[Event]) -> dict[int, str]:
    return {e.seq: e.time for e in events}


#: events the chronicle does not tell as items: the round headings say where a turn
#: or round changed; undo / redo leave only their result; notes are told as notes;
#: a roll or heal is told as its roll entry
_NOT_TOLD = frozenset({"undo", "redo", "turn.next", "turn.prev", "round.new", "note", "roll", "heal"})


def in_effect(events: Iterable[Event]) -> set[int]:
    """The seqs of the events still in effect: not undone (or redone since), and not
    themselves an undo or redo."""
    undone: set[int] = set()
    seqs: list[int] = []
    for e in events:
        if e.type in ("undo", "redo"):
            target = e.data.get("target")
            if isinstance(target, int):
                (undone.add if e.type == "undo" else undone.discard)(target)
            continue
        seqs.append(e.seq)
    return {seq for seq in seqs if seq not in undone}


def event_rounds(header: Mapping[str, Any] | None, events: Sequence[Event]) -> dict[int, int]:
    """seq → the encounter's round right after that event happened (a replay of the log)."""
    from gmdesk.core.session.events import Fold

    if header is None:
        return {}
    fold = Fold(State.from_header(dict(header)))
    rounds: dict[int, int] = {}
    for e in events:
        doc = {"type": e.type, **e.data}
        try:
            fold.apply(e.seq, doc, e.time, e.summary or None, strict=False)
        except Exception:  # a damaged event the session skipped on opening: skip it here too
            pass
        rounds[e.seq] = fold.state.encounter.round
    return rounds


def _chronicle(
    state: State, public: bool, events: Sequence[Event] = (), rounds: Mapping[int, int] | None = None
) -> list[tuple[str, Told, int]]:
    """Everything told, in log order: ("roll", RollEntry, round), ("note", Note, round),
    ("event", Event, round)."""
    from gmdesk.core.session.events.visibility import gone_hidden, public_event, public_roll

    live = in_effect(events)
    gone = gone_hidden(e for e in events if e.seq in live) if public else {}
    items: list[tuple[int, int, str, Told, int]] = []
    for i, r in enumerate(state.rolls):
        if not public or public_roll(state, r, gone):
            items.append((r.seq, i, "roll", r, r.round))
    if not public:
        for i, n in enumerate(state.notes):
            items.append((n.seq, i, "note", n, n.round))
    rounds = rounds or {}
    told = {r.seq for r in state.rolls}  # rolled initiative is told by its rolls
    for e in events:
        if e.seq in live and e.type not in _NOT_TOLD and e.seq not in told:
            shown = public_event(state, e, gone=gone) if public else e
            if shown is not None:
                items.append((e.seq, -1, "event", shown, rounds.get(e.seq, 0)))
    items.sort(key=lambda x: (x[0], x[1]))
    return [(kind, obj, rnd) for _, _, kind, obj, rnd in items]


def _stretches(entries: list[tuple[str, Told, int]]) -> list[tuple[int, list[tuple[str, Told]]]]:
    out: list[tuple[int, list[tuple[str, Told]]]] = []
    for kind, obj, rnd in entries:
        if not out or out[-1][0] != rnd:
            out.append((rnd, []))
        out[-1][1].append((kind, obj))
    return out


#: the record's numbers the headline and outcome do not already say
_NOT_FACTS = frozenset({"number", "total", "success", "result", "level"})


def record_facts(record: RollRecord, public: bool) -> list[str]:
    """A roll's own numbers as "Label value" ("DC 16", "Margin +1", "Shift +2"…): the
    record fields its system's ``EXTRA_LABELS`` name, signed where its
    ``SIGNED_EXTRAS`` say, without the GM's secrets when ``public``; then as its
    system's ``chronicle`` tells them, if it declares one ("DC 16 (Standard)")."""
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.render import extra_labels
    from gmdesk.core.systems import get_spec, secret_params

    try:
        spec = get_spec(record.system)
    except GmdeskError:
        spec = None
    signed_keys = spec.signed_extras if spec is not None else frozenset()
    secrets = secret_params(record.system) if public else ()
    out = []
    for key, label in extra_labels(record.system):
        if key in _NOT_FACTS or key in secrets:
            continue
        value = record.extra.get(key)
        if value is None or value is False or value == "" or (key == "advantage" and value == 0):
            continue
        if value is True:
            out.append(label)
        elif isinstance(value, int) and key in signed_keys:
            out.append(f"{label} {signed(value, zero='+0')}")
        elif isinstance(value, (str, int, float)):
            out.append(f"{label} {value}")
    if spec is not None and spec.chronicle is not None:
        out = [str(f) for f in spec.chronicle(record, out)]
    return out


def _event_text(e: Event) -> tuple[str, list[str]]:
    """An event told: its summary and what it changed (each line once)."""
    head = e.summary or e.type
    return reading(head), [reading(ch) for ch in e.changes if ch not in head]


def _round_title(rnd: int) -> str:
    return f"Round {rnd}" if rnd > 0 else "Outside the encounter"


def _who(state: State, cid: str | None, fallback: str) -> str:
    if cid is not None and cid in state.characters:
        return state.characters[cid].name
    return fallback or (cid or "")


def _roll_head(state: State, r: RollEntry) -> str:
    actor = _who(state, r.actor, r.actor_name) or "GM"
    target = _who(state, r.target, r.target_name)
    kind = {"initiative": "initiative", "heal": "heals"}.get(r.kind, "rolls")
    if r.kind == "heal":
        return f"{actor} heals {target}" if target else f"{actor} heals"
    return f"{actor} {kind}" + (f" at {target}" if target else "")


def _namer(state: State, public: bool) -> NameOf:
    """Character id → name for the durations a chronicle shows (None for one the
    players do not see, in a public one)."""

    def name_of(cid: str) -> str | None:
        c = state.characters.get(cid)
        return None if c is None or (public and c.hidden) else c.name

    return name_of


def hidden_seqs(state: State, public: bool) -> frozenset[int]:
    """The seqs of the rolls the reader does not see: for the players, those hidden
    from them (``State.public_roll``); none for the GM."""
    if not public:
        return frozenset()
    return frozenset(r.seq for r in state.rolls if not state.public_roll(r))


# --------------------------------------------------------------------------- the walk


class ChronicleWriter(Protocol):
    """What the walk over a session hands its items to (:class:`MarkdownWriter`,
    :class:`HtmlWriter`): plain text in, each writer escapes and marks it up."""

    def heading(self, title: str, system: str, created: str, last_played: str) -> None: ...
    def cast(self, people: Sequence[tuple[str, str, str, list[str]]]) -> None: ...
    def hurt(self, people: Sequence[tuple[str, str, str]]) -> None: ...
    def clocks(self, clocks: Sequence[tuple[str, str]]) -> None: ...
    def chronicle(self, told: bool) -> None: ...
    def round(self, title: str) -> None: ...
    def note(self, stamp: str, text: str) -> None: ...
    def event(self, stamp: str, head: str, changes: Sequence[str]) -> None: ...
    def roll(
        self, stamp: str, head: str, line: str, facts: Sequence[str], dice: str, changes: Sequence[str]
    ) -> None: ...
    def end_round(self) -> None: ...
    def text(self) -> str: ...


def write_chronicle(
    writer: ChronicleWriter,
    state: State,
    events: Sequence[Event] = (),
    public: bool = True,
    rounds: Mapping[int, int] | None = None,
) -> str:
    """Walk the session once, in the chronicle's order, handing each part to ``writer``;
    its text."""
    info = state.info
    writer.heading(
        info.name or "Session",
        info.system,
        short_time(info.created, local=False),
        short_time(info.last_played, local=False),
    )
    hidden = hidden_seqs(state, public)
    writer.cast(
        [
            (
                c.name,
                c.status if not public or c.seen != "name" else "unknown",
                reading(", ".join(char_facts(c, info.system, _namer(state, public), public))),
                wound_text(c, hidden, public),
            )
            for c in cast(state, public)
        ]
    )
    writer.hurt(
        [
            (c.name, status_word(c.status), reading("; ".join(w.text for w in c.wounds)) or "no wounds on record")
            for c in hurt(state, public)
        ]
    )
    if state.clocks:
        writer.clocks([(clock.name, f"{clock.filled:g} of {clock.segments}") for clock in state.clocks.values()])
    entries = _chronicle(state, public, events, rounds)
    writer.chronicle(bool(entries))
    times = _times(events)
    for rnd, items in _stretches(entries):
        writer.round(_round_title(rnd))
        for _kind, obj in items:
            when = times.get(obj.seq, "")[11:16]
            stamp = f"#{obj.seq}" + (f" {when}" if when else "")
            if isinstance(obj, Note):
                writer.note(stamp, obj.text)
            elif isinstance(obj, Event):
                writer.event(stamp, *_event_text(obj))
            else:
                r = seen_entry(state, obj) if public else obj
                record = r.record
                writer.roll(
                    stamp,
                    _roll_head(state, r),
                    _line(record, public),
                    [reading(f) for f in record_facts(record, public)],
                    _dice(record),
                    [reading(ch) for ch in r.changes],
                )
        writer.end_round()
    return writer.text()


# --------------------------------------------------------------------------- markdown

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def md_escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


class MarkdownWriter:
    """The chronicle in Markdown: headings, bullet lists, the table's text escaped."""

    def __init__(self) -> None:
        self.out: list[str] = []

    def heading(self, title: str, system: str, created: str, last_played: str) -> None:
        self.out += [
            f"# {md_escape(title)}",
            "",
            f"System: {md_escape(system)} · created {md_escape(created)} · last played {md_escape(last_played)}",
            "",
        ]

    def cast(self, people: Sequence[tuple[str, str, str, list[str]]]) -> None:
        self.out += ["## Cast", ""]
        if not people:
            self.out.append("Nobody yet.")
        for name, _status, facts, wounds in people:
            self.out.append(f"- **{md_escape(name)}** — {md_escape(facts)}")
            self.out += [f"  - {md_escape(w)}" for w in wounds]
        self.out.append("")

    def hurt(self, people: Sequence[tuple[str, str, str]]) -> None:
        self.out += ["## Who was hurt", ""]
        if not people:
            self.out.append("Nobody.")
        for name, status, wounds in people:
            self.out.append(f"- **{md_escape(name)}** ({md_escape(status)}): {md_escape(wounds)}")
        self.out.append("")

    def clocks(self, clocks: Sequence[tuple[str, str]]) -> None:
        self.out += ["## Clocks", ""]
        self.out += [f"- {md_escape(name)}: {progress}" for name, progress in clocks]
        self.out.append("")

    def chronicle(self, told: bool) -> None:
        self.out += ["## Chronicle", ""]
        if not told:
            self.out.append("Nothing yet.")

    def round(self, title: str) -> None:
        self.out += [f"### {title}", ""]

    def note(self, stamp: str, text: str) -> None:
        self.out.append(f"- {stamp} *Note:* {md_escape(text)}")

    def event(self, stamp: str, head: str, changes: Sequence[str]) -> None:
        self.out.append(f"- {stamp} {md_escape(head)}")
        self.out += [f"  - {md_escape(ch)}" for ch in changes]

    def roll(self, stamp: str, head: str, line: str, facts: Sequence[str], dice: str, changes: Sequence[str]) -> None:
        self.out.append(f"- {stamp} **{md_escape(head)}**: {md_escape(line)}")
        if facts:
            self.out.append(f"  - {md_escape(' · '.join(facts))}")
        self.out.append(f"  - dice: {md_escape(dice)}")
        self.out += [f"  - {md_escape(ch)}" for ch in changes]

    def end_round(self) -> None:
        self.out.append("")

    def text(self) -> str:
        return "\n".join(self.out).rstrip() + "\n"


def to_markdown(
    state: State, events: Sequence[Event] = (), public: bool = True, rounds: Mapping[int, int] | None = None
) -> str:
    return write_chronicle(MarkdownWriter(), state, events, public, rounds)


# --------------------------------------------------------------------------- html

_CSS = """body{font-family:system-ui,sans-serif;max-width:52em;margin:2em auto;padding:0 1em;line-height:1.4}
h1{margin-bottom:.2em}.meta{color:#555}.dice{font-family:monospace}.facts{color:#333}.changes{color:#8a1f11}
li{margin:.2em 0}.status-dead{font-weight:bold}.status-unconscious{font-style:italic}"""


def _h(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _changes_html(changes: Sequence[str]) -> str:
    return '<ul class="changes">' + "".join(f"<li>{_h(ch)}</li>" for ch in changes) + "</ul>"


class HtmlWriter:
    """The chronicle as one HTML page with its own style, the table's text escaped."""

    def __init__(self) -> None:
        self.out: list[str] = []

    def heading(self, title: str, system: str, created: str, last_played: str) -> None:
        self.out += [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f"<title>{_h(title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            f"<h1>{_h(title)}</h1>",
            f'<p class="meta">System {_h(system)} · created {_h(created)} · last played {_h(last_played)}</p>',
        ]

    def cast(self, people: Sequence[tuple[str, str, str, list[str]]]) -> None:
        self.out.append("<h2>Cast</h2>")
        if not people:
            self.out.append("<p>Nobody yet.</p>")
            return
        self.out.append("<ul>")
        for name, status, facts, wounds in people:
            self.out.append(f'<li class="status-{_h(status)}"><strong>{_h(name)}</strong> — {_h(facts)}')
            if wounds:
                self.out.append("<ul>" + "".join(f"<li>{_h(w)}</li>" for w in wounds) + "</ul>")
            self.out.append("</li>")
        self.out.append("</ul>")

    def hurt(self, people: Sequence[tuple[str, str, str]]) -> None:
        self.out.append("<h2>Who was hurt</h2>")
        if not people:
            self.out.append("<p>Nobody.</p>")
            return
        self.out.append("<ul>")
        for name, status, wounds in people:
            self.out.append(f"<li><strong>{_h(name)}</strong> ({_h(status)}): {_h(wounds)}</li>")
        self.out.append("</ul>")

    def clocks(self, clocks: Sequence[tuple[str, str]]) -> None:
        self.out.append("<h2>Clocks</h2><ul>")
        self.out += [f"<li>{_h(name)}: {progress}</li>" for name, progress in clocks]
        self.out.append("</ul>")

    def chronicle(self, told: bool) -> None:
        self.out.append("<h2>Chronicle</h2>")
        if not told:
            self.out.append("<p>Nothing yet.</p>")

    def round(self, title: str) -> None:
        self.out += [f"<h3>{_h(title)}</h3>", "<ul>"]

    def note(self, stamp: str, text: str) -> None:
        self.out.append(f"<li>{_h(stamp)} <em>Note:</em> {_h(text)}</li>")

    def event(self, stamp: str, head: str, changes: Sequence[str]) -> None:
        self.out.append(f"<li>{_h(stamp)} {_h(head)}")
        if changes:
            self.out.append(_changes_html(changes))
        self.out.append("</li>")

    def roll(self, stamp: str, head: str, line: str, facts: Sequence[str], dice: str, changes: Sequence[str]) -> None:
        self.out.append(
            f"<li>{_h(stamp)} <strong>{_h(head)}</strong>: {_h(line)}"
            + (f'<br><span class="facts">{_h(" · ".join(facts))}</span>' if facts else "")
            + f'<br><span class="dice">dice: {_h(dice)}</span>'
        )
        if changes:
            self.out.append(_changes_html(changes))
        self.out.append("</li>")

    def end_round(self) -> None:
        self.out.append("</ul>")

    def text(self) -> str:
        return "\n".join([*self.out, "</body>", "</html>"]) + "\n"


def to_html(
    state: State, events: Sequence[Event] = (), public: bool = True, rounds: Mapping[int, int] | None = None
) -> str:
    return write_chronicle(HtmlWriter(), state, events, public, rounds)


# --------------------------------------------------------------------------- json


def _encounter_json(state: State, public: bool) -> dict[str, Any]:
    d = state.encounter.to_json()
    if public:
        chars = state.characters
        d["order"] = [x for x in d["order"] if not (x["char_id"] in chars and chars[x["char_id"]].hidden)]
        current = state.encounter.current
        if current is not None and current.char_id in chars and chars[current.char_id].hidden:
            d["turn"] = None  # the players do not see whose turn it is
        elif current is not None:
            d["turn"] = next(i for i, x in enumerate(d["order"]) if x["char_id"] == current.char_id)
    return d


def to_json(
    state: State, events: Sequence[Event] = (), public: bool = True, rounds: Mapping[int, int] | None = None
) -> dict[str, Any]:
    from gmdesk.core.render import public_json

    times = _times(events)
    info = state.info.to_json()
    chronicle = []
    for _kind, obj, rnd in _chronicle(state, public, events, rounds):
        if isinstance(obj, Note):
            n = obj
            chronicle.append(
                {"seq": n.seq, "type": "note", "round": n.round, "turn": n.turn, "time": n.time, "text": n.text}
            )
            continue
        if isinstance(obj, Event):
            head, changes = _event_text(obj)
            chronicle.append(
                {
                    "seq": obj.seq,
                    "type": "event",
                    "event": obj.type,
                    "round": rnd,
                    "time": obj.time,
                    "summary": head,
                    "changes": changes,
                }
            )
            continue
        r = seen_entry(state, obj) if public else obj
        record = public_json(r.record) if public else r.record.to_json()
        chronicle.append(
            {
                "seq": r.seq,
                "type": r.kind,
                "round": r.round,
                "turn": r.turn,
                "time": times.get(r.seq, ""),
                "actor": r.actor,
                "actor_name": _who(state, r.actor, r.actor_name) or None,
                "target": r.target,
                "target_name": _who(state, r.target, r.target_name) or None,
                "combat": r.combat,
                "line": _line(r.record, public),
                "facts": record_facts(r.record, public),
                "roll": record,
                "changes": list(r.changes),
            }
        )
    hidden = hidden_seqs(state, public)
    characters = [character_json(c, public, hidden, state.info.system) for c in cast(state, public)]
    return {
        "format": "gmdesk-chronicle",
        "session": info,
        "characters": characters,
        "hurt": [
            {"id": c.id, "name": c.name, "status": c.status, "wounds": [w.text for w in c.wounds]}
            for c in hurt(state, public)
        ],
        "clocks": [c.to_json() for c in state.clocks.values()],
        "encounter": _encounter_json(state, public),
        "chronicle": chronicle,
    }


def export(
    state: State, fmt: str, events: Sequence[Event] = (), public: bool = True, header: Mapping[str, Any] | None = None
) -> str:
    """The chronicle as text in ``fmt`` (md, html or json): the players' (no GM secrets,
    no GM notes) unless ``public=False``. ``header``: the session's header
    (``Session.header``), to place each event in its round (without it the events
    other than rolls and notes are told as outside the encounter)."""
    from gmdesk.core.errors import ParamError

    rounds = event_rounds(header, events) if events else {}
    if fmt == "md":
        return to_markdown(state, events, public, rounds)
    if fmt == "html":
        return to_html(state, events, public, rounds)
    if fmt == "json":
        return json.dumps(to_json(state, events, public, rounds), ensure_ascii=False, indent=1) + "\n"
    raise ParamError("--format", f"must be one of {', '.join(FORMATS)} (got {fmt!r})")
