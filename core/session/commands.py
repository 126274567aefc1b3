"""The session subcommands of ``gmdesk``: new, list, log, export, import-sheet,
export-sheet, char (:mod:`core.session.charcli`), bestiary
(:mod:`core.campaign.bestiary_cli`), and ``stream_rolls`` behind ``gmdesk roll …
--save SAVE``.

``SAVE`` is a session name (looked up in the saves directory) or a path. ``log``,
``export`` and ``export-sheet`` open the session read-only: they work while the GM
has it open. Every error is one line on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from pathlib import Path
from typing import Any

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.inputs import read_input
from gmdesk.core.results import saved
from gmdesk.core.text import short_time

EXIT_ERROR = 2

#: the biggest descriptor sheet file ``import-sheet`` reads
MAX_SHEET_BYTES = 1 << 20


def _store(ns: Any):
    from gmdesk.core.session.saves import SessionStore, default_saves_dir

    saves = getattr(ns, "saves", None)
    return SessionStore(Path(saves).expanduser() if saves else default_saves_dir())


def _fail(message: str) -> int:
    message = " ".join(str(message).split())
    print(message if message.startswith("gmdesk") else f"gmdesk: {message}", file=sys.stderr)
    return EXIT_ERROR


def _guard(fn: Callable[[Any], int]) -> Callable[[Any], int]:
    """Every failure becomes one line on stderr and exit status 2."""

    @wraps(fn)
    def run(ns: Any) -> int:
        from gmdesk.core.results import StdoutFailed

        try:
            return int(fn(ns) or 0)
        except StdoutFailed:
            raise  # what was saved and what could not be printed: said by gmdesk.core.cli.main
        except GmdeskError as e:
            return _fail(str(e))
        except BrokenPipeError:
            return 0
        except KeyboardInterrupt:
            return 130
        except OSError as e:
            where = f"{e.filename}: " if getattr(e, "filename", None) else ""
            return _fail(f"{where}{e.strerror or e}")
        except RecursionError:
            return _fail("the input is nested too deeply to be read")
        except Exception as e:  # noqa: BLE001 - never a traceback: one line, exit 2
            text = str(e).strip().splitlines()
            return _fail(f"unexpected error ({type(e).__name__}{': ' + text[0] if text else ''}); please report it")

    return run


def register(subparsers: Any) -> None:
    """Add the session subcommands to ``gmdesk``'s subparsers; each sets ``func``."""
    p = subparsers.add_parser("new", help="create a new session (or the next night of one: --from)")
    p.add_argument("name", metavar="NAME", help="the session's name (any text)")
    p.add_argument("--system", default=None, metavar="SYSTEM", help="default dice system (default 4d2)")
    p.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a session setting, e.g. skill_threshold=8, ord_positive_reroll=off, fudge_method=d20-open (repeatable)",
    )
    p.add_argument(
        "--from",
        dest="source",
        default=None,
        metavar="SAVE",
        help="the next night of SAVE: its player characters as they stood, its system and settings (SAVE is only read)",
    )
    p.add_argument(
        "--rest",
        action="store_true",
        help="with --from: the characters rest first (the system's recovery; 1d6x4: a new day)",
    )
    p.add_argument(
        "--with",
        dest="npcs",
        action="extend",
        nargs="+",
        default=[],
        metavar="NAME",
        help="with --from: carry these non-player characters too",
    )
    p.set_defaults(func=cmd_new)

    p = subparsers.add_parser("list", help="list the sessions in the saves directory")
    p.add_argument("--json", action="store_true", help="one JSON object per session per line")
    p.set_defaults(func=cmd_list)

    p = subparsers.add_parser("log", help="print a session's event log (read-only)")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.add_argument("--json", action="store_true", help="one JSON object per event per line, oldest first")
    p.add_argument("--follow", action="store_true", help="keep printing events as they are saved (Ctrl-C stops)")
    p.add_argument("--interval", default="0.5", help=argparse_suppress())
    p.add_argument(
        "--public",
        action="store_true",
        help="the players' log: without the characters hidden from them, their rolls or the GM's notes",
    )
    p.set_defaults(func=cmd_log)

    p = subparsers.add_parser("export", help="write the session's chronicle (md, html or json)")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.add_argument(
        "--format",
        dest="format",
        default=None,
        metavar="md|html|json",
        help="chronicle format (default: from the -o suffix, else md)",
    )
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument(
        "--gm",
        action="store_true",
        help="the GM's chronicle: with the secrets (1d6x4 target numbers) and the GM's notes",
    )
    p.add_argument(
        "--public", action="store_true", help="the players' chronicle, without the GM's secrets and notes (the default)"
    )
    p.set_defaults(func=cmd_export)

    p = subparsers.add_parser("import-sheet", help="add a 1d6x4 descriptor sheet to a session")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.add_argument("sheet", metavar="SHEET.txt", help="the sheet file")
    p.add_argument(
        "--as",
        dest="name",
        default=None,
        metavar="NAME",
        help="the character (default: the name in the sheet's header)",
    )
    p.set_defaults(func=cmd_import_sheet)

    p = subparsers.add_parser("check", help="say what is wrong with a session (reads only)")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.set_defaults(func=_checkcli().cmd_check)

    p = subparsers.add_parser("repair", help="write a new session beside a damaged one from what can be trusted")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.set_defaults(func=_checkcli().cmd_repair)

    from gmdesk.core.session.charcli import register as register_char

    register_char(subparsers)

    from gmdesk.core.campaign.bestiary_cli import register as register_bestiary

    register_bestiary(subparsers)

    p = subparsers.add_parser("export-sheet", help="print a character's descriptor sheet")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.add_argument("character", metavar="CHARACTER", help="character name or id")
    p.set_defaults(func=cmd_export_sheet)


def _checkcli() -> Any:
    from gmdesk.core.session import checkcli

    return checkcli


def argparse_suppress() -> str:
    import argparse

    return argparse.SUPPRESS


# --------------------------------------------------------------------------- commands


@_guard
def cmd_new(ns: Any) -> int:
    from gmdesk.core.session.settings import by_key, parse_assignment
    from gmdesk.core.systems import get_system

    if ns.source is not None:
        return _new_from(ns)
    if ns.rest or ns.npcs:
        raise ParamError("--rest" if ns.rest else "--with", "goes with --from SAVE (the session the night follows)")
    system = ns.system or "4d2"
    get_system(system)
    # every setting is checked before anything is written (a bad one names its label)
    settings = dict(parse_assignment(text) for text in ns.setting)
    store = _store(ns)
    path = store.create(ns.name, system, settings or None)
    saved("new", f"new session {ns.name.strip()}: {path}")
    shown = ", ".join(f"{by_key()[k].title} {by_key()[k].show(v)}" for k, v in settings.items())
    print(f"Created {ns.name.strip()} ({system}{'; ' + shown if shown else ''}): {path}")
    return 0


def _new_from(ns: Any) -> int:
    """``gmdesk new NAME --from SAVE [--rest] [--with NAME …]``: the next night."""
    if ns.system is not None or ns.setting:
        raise ParamError(
            "--system" if ns.system is not None else "--setting",
            "a next night keeps the system and settings of the session it follows (change them once it is made)",
        )
    got = _store(ns).next_night(ns.source, ns.name, rest=ns.rest, npcs=ns.npcs)
    saved("new", f"new session {ns.name.strip()}: {got.path}")
    who = ", ".join(got.names) or "nobody"
    how = "after a rest" if got.rest else "as they stood"
    print(f"Created {ns.name.strip()}, the next night of {got.source} ({who}, {how}): {got.path}")
    for line in got.changes:
        print(f"  {line}")
    return 0


@_guard
def cmd_list(ns: Any) -> int:
    store = _store(ns)
    summaries = store.list()
    if ns.json:
        for s in summaries:
            print(json.dumps(s.to_json(), ensure_ascii=False))
        return 0
    if not summaries:
        print(f"No sessions in {store.dir} (`gmdesk new NAME` makes one)")
        return 0
    rows = [("Session", "System", "Last played", "Round", "Rolls")]
    notes: dict[int, str] = {}
    for s in summaries:
        if s.damaged:
            rows.append((s.name, "DAMAGED", s.error or "", "", ""))
        else:
            rows.append((s.name, s.system, short_time(s.last_played), str(s.round), str(s.rolls)))
            if s.needs_plugin is not None:  # sound, but its dice system is not installed here
                notes[len(rows) - 1] = _needs_note(s.needs_plugin)
    widths = [max(len(r[i]) for r in rows if not (r[1] == "DAMAGED" and i == 2)) for i in range(5)]
    for n, r in enumerate(rows):
        if r[1] == "DAMAGED" and n:
            print(f"{r[0]:<{widths[0]}}  DAMAGED  {r[2]}")
        else:
            line = "  ".join(f"{c:<{widths[i]}}" if i < 3 else f"{c:>{widths[i]}}" for i, c in enumerate(r))
            print(f"{line}  {notes.get(n, '')}".rstrip())
    return 0


def _needs_note(system: str) -> str:
    """The list's note on a sound session whose plug-in is missing or fails to load."""
    from gmdesk.core.systems import plugin_failure

    why = plugin_failure(system)
    if why is not None:
        return f"needs plug-in: {system} (installed, but it fails to load: {why})"
    return f"needs plug-in: {system} (install its package to open it)"


def event_json(event: Any) -> dict:
    """One event as ``gmdesk log --json`` prints it: seq, type, time, summary, the
    payload; a roll event's record (what ``gmdesk roll --json`` prints) under ``roll``."""
    d = event.to_json()
    if d.get("type") == "roll" and "record" in d:
        d["roll"] = d.pop("record")
    return d


def _event_text(event: Any) -> list[str]:
    """An event as ``gmdesk log`` prints it: a roll's line drawn from its record (both
    sides, one notation, whichever gmdesk saved it), then each change once."""
    from gmdesk.core.render import roll_summary
    from gmdesk.core.text import reading

    when = event.time[11:16] if len(event.time) >= 16 else event.time
    record = event.data.get("record")
    head = event.summary or event.type
    if event.type == "roll" and isinstance(record, Mapping):
        head = roll_summary(head, record)
    lines = [f"#{event.seq:<4} {when:5}  {reading(head)}"]
    for ch in event.changes:
        if ch not in head:  # said by the summary already ("Bruno heals Kara: Kara: Vitality −3 → 1")
            lines.append(f"{'':13}· {reading(ch)}")
    return lines


def _print_events(events: Sequence[Any], as_json: bool) -> None:
    out = sys.stdout
    for e in events:
        if as_json:
            out.write(json.dumps(event_json(e), ensure_ascii=False) + "\n")
        else:
            out.write("\n".join(_event_text(e)) + "\n")
    out.flush()


def _players(session: Any, events: Sequence[Any]) -> list[Any]:
    """What of ``events`` the players may read, as the player view shows the session
    now: no GM's note, nothing of a character hidden from them, no hidden roll, and
    each roll's GM secrets taken out of its JSON."""
    from gmdesk.core.session.events.visibility import public_event

    state = session.state
    by_seq = {e.seq: e for e in session.events}
    out = []
    for e in events:
        if e.type == "note":
            continue
        shown = public_event(state, e, by_seq)
        if shown is not None:
            out.append(_without_secrets(shown))
    return out


def _without_secrets(event: Any) -> Any:
    """A roll event's record without its system's secret parameters (the players' log)."""
    import dataclasses

    record = event.data.get("record")
    if event.type not in ("roll", "heal") or not isinstance(record, Mapping):
        return event
    from gmdesk.core.systems import public_json

    return dataclasses.replace(event, data={**event.data, "record": public_json(record)})


@_guard
def cmd_log(ns: Any) -> int:
    from gmdesk.core.session.session import Session

    try:
        interval = float(ns.interval)
        if not 0.01 <= interval <= 60:
            raise ValueError
    except ValueError:
        raise ParamError("--interval", f"must be a number of seconds from 0.01 to 60 (got {ns.interval!r})") from None
    path = _store(ns).resolve(ns.save)
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


@_guard
def cmd_export(ns: Any) -> int:
    from gmdesk.core.session.export import FORMATS, export
    from gmdesk.core.session.session import Session

    fmt = ns.format
    if fmt is None and ns.output:
        fmt = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json"}.get(
            Path(ns.output).suffix.lower()
        )
    if fmt is None:
        fmt = "md"  # no --format and no telling suffix: the Markdown chronicle
    if fmt not in FORMATS:
        raise ParamError("--format", f"must be one of {', '.join(FORMATS)} (got {fmt!r})")
    store = _store(ns)
    if ns.output:
        from gmdesk.core.outputs import check_output

        check_output(ns.output, store.dir)  # never gmdesk's own files: refused before anything is read
    path = store.resolve(ns.save)
    with Session.open(path, readonly=True) as session:
        if ns.gm and ns.public:
            raise ParamError("--gm", "is the GM's chronicle, --public the players': choose one")
        text = export(session.state, fmt, session.events, public=not ns.gm, header=session.header)
    if ns.output:
        from gmdesk.core.outputs import write_output

        out = Path(ns.output).expanduser()
        write_output(out, text.encode("utf-8"), store.dir)
        saved("export", f"{out}")
        print(f"Wrote {out}")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0


def sheet_character_name(sheet: Any, fallback: str) -> str:
    """The character's name from a sheet's header: its first line up to a comma
    ("Mark, 25 year old Human" → "Mark"), else ``fallback``."""
    header = (getattr(sheet, "header", "") or "").strip()
    first = header.splitlines()[0] if header else ""
    name = first.split(",")[0].strip().rstrip(":").strip()
    return name or fallback


@_guard
def cmd_import_sheet(ns: Any) -> int:
    from gmdesk.core.session.session import Session

    sheet_path = Path(ns.sheet).expanduser()
    try:
        # bytes as they are: CRLF line endings and a missing final newline are kept, so
        # export-sheet gives the file back byte for byte
        text = read_input(sheet_path, MAX_SHEET_BYTES, "sheet").decode("utf-8")
    except UnicodeDecodeError:
        raise GmdeskError(f"{sheet_path}: not UTF-8 text") from None
    from gmdesk.core.sheet import parse_sheet

    sheet = parse_sheet(text, str(sheet_path))  # SheetError names the file and line
    name = ns.name or sheet_character_name(sheet, sheet_path.stem)
    path = _store(ns).resolve(ns.save)
    with Session.open(path) as session:
        existing = [c for c in session.state.characters.values() if c.name.casefold() == name.casefold()]
        if ns.name and ns.name in session.state.characters:
            existing = [session.state.characters[ns.name]]
        if len(existing) > 1:
            raise GmdeskError(
                f"{len(existing)} characters are named {name!r}; use --as with the id "
                f"({', '.join(c.id for c in existing)})"
            )
        if existing:
            c = existing[0]
            session.apply({"type": "sheet.import", "id": c.id, "text": text})
            saved("sheet", f"{c.name}'s sheet updated in {session.state.info.name}")
            print(f"Updated {c.name}'s sheet ({c.id}) in {session.state.info.name}")
        else:
            ev = session.apply({"type": "character.add", "character": {"name": name, "sheet": text}})
            saved("sheet", f"{name} added with the sheet to {session.state.info.name}")
            print(f"Added {name} ({ev.data['id']}) with the sheet to {session.state.info.name}")
    return 0


@_guard
def cmd_export_sheet(ns: Any) -> int:
    from gmdesk.core.session.events import sheet_new
    from gmdesk.core.session.session import Session
    from gmdesk.core.sheet import write_sheet

    path = _store(ns).resolve(ns.save)
    with Session.open(path, readonly=True) as session:
        c = session.character(ns.character)
        sheet = c.sheet
        if sheet is None:
            sheet = sheet_new(c.name)
            if c.vitality_default or c.vitality_current:
                sheet = sheet.set_values(
                    "Vitality",
                    default=c.vitality_default,
                    current=None if c.vitality_current == c.vitality_default else c.vitality_current,
                )
        text = write_sheet(sheet)
    # the sheet byte for byte (CRLF, no final newline: as imported); a terminal gets a
    # final newline after a sheet without one, so the prompt starts on its own line
    out = sys.stdout
    if out.isatty() and text and not text.endswith("\n"):
        text += "\n"
    out.flush()
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        buffer.write(text.encode("utf-8"))
        buffer.flush()
    else:
        out.write(text)
        out.flush()
    return 0


# --------------------------------------------------------------------------- gmdesk roll --save


def stream_rolls(
    ns: Any, system_module: Any, params: Any, rng: Any, count: int, *, tables: Any = None, given: Any = None
) -> None:
    """``gmdesk roll SYSTEM … --save SAVE [--as CHARACTER] [--at TARGET] [--count N]``:
    roll, append to the session and print, one roll at a time (the first line is out
    after the first roll, whatever N; nothing is kept but the session itself).

    The session is opened as its writer before the first die is rolled and held to
    the last, so a second writer (the desk, another ``gmdesk roll --save``) is refused
    from the first roll on. The parameters are filled exactly as the roll dialog fills
    them (:mod:`core.session.params`: the characters' fields — already in ``ns``, see
    :func:`session_options` —, the roller's active sources and conditions, the
    session's settings, the tracked kinds); ``given`` names the options typed on the
    command line, which win. Each roll is printed only once it is durable (its JSON
    line with ``--json``, else the logged summary and what it changed). ``tables``:
    the ``--table`` overrides, else the session's own tables. Where a value came from
    goes on the record (``from``).

    ``--as`` / ``--at`` name characters of the session (name or id); a combat roll
    applies its descriptors to them. Raises GmdeskError (one line) on any problem;
    rolls printed before an error are saved."""
    from gmdesk.core.session.session import Session

    path = _store(ns).resolve(ns.save)
    with Session.open(path) as session:
        actor = session.character(ns.actor).id if getattr(ns, "actor", None) else None
        target = session.character(ns.target).id if getattr(ns, "target", None) else None
        combat = bool(getattr(params, "combat", False))
        as_json = bool(getattr(ns, "json", False))
        typed_from = dict(getattr(ns, "roll_from", None) or {})
        read = frozenset(getattr(ns, "roll_read", None) or ())  # read from the sheets already
        out = sys.stdout
        rolled = 0
        for _ in range(count):
            # filled afresh for each roll: what a roll changed (a torg condition, a spent
            # use) counts for the next one, as it would in the dialog
            chars = session.state.characters
            who = chars.get(actor) if actor is not None else None
            at = chars.get(target) if target is not None else None
            filled, origins = _filled(session, system_module, params, who, at, combat, given, read)
            event = session.roll(
                system_module,
                filled,
                actor=actor,
                target=target,
                combat=combat,
                rng=rng,
                fill=False,
                tables=tables,
                origins={**typed_from, **origins},
            )
            rolled += 1
            saved("roll", f"{rolled} roll{'s' if rolled != 1 else ''} to {session.state.info.name}")
            if as_json:
                out.write(json.dumps(event.data["record"], ensure_ascii=False) + "\n")
            else:
                out.write("\n".join(_event_text(event)) + "\n")
            out.flush()


#: the prefix the generated command line gives an option's destination (if any)
_DEST_PREFIXES = ("param:", "")


def _dest(ns: Any, name: str) -> str | None:
    for prefix in _DEST_PREFIXES:
        if hasattr(ns, prefix + name):
            return prefix + name
    return None


def session_options(ns: Any, system_module: Any, saves: Any = None) -> None:
    """``gmdesk roll SYSTEM … --save SAVE --as A --at T``, before its options are
    read: a stat name typed for a number (``--skill "Fire Combat"``) becomes the
    roller's (or, for a parameter the target's field feeds, the target's) value, and
    every option not typed that the characters' fields fill is filled from them
    (``--difficulty`` from the target's Dodge…). What was typed wins. Where each came
    from is kept in ``ns.roll_from`` for the record. Reads the session only; a name
    the character lacks is a ParamError naming the option."""
    from gmdesk.core.errors import ParamError
    from gmdesk.core.session.params import field_defaults, resolve_names
    from gmdesk.core.session.session import Session
    from gmdesk.core.systems import spec_of

    if getattr(ns, "save", None) is None or not (getattr(ns, "actor", None) or getattr(ns, "target", None)):
        return
    if saves is not None and getattr(ns, "saves", None) is None:
        ns.saves = saves
    spec = spec_of(system_module)
    path = _store(ns).resolve(ns.save)
    with Session.open(path, readonly=True) as session:
        actor = session.character(ns.actor) if getattr(ns, "actor", None) else None
        target = session.character(ns.target) if getattr(ns, "target", None) else None
        typed: dict[str, Any] = {}
        for p in spec.params:
            dest = _dest(ns, p.name)
            if dest is not None and getattr(ns, dest) not in (None, False):
                typed[p.name] = getattr(ns, dest)
        try:
            data, origins = resolve_names(spec, typed, actor, target)
        except ParamError as e:
            param = next((p for p in spec.params if p.label == e.option), None)
            option = param.cli_option if param is not None else e.option
            raise ParamError(option, str(e).partition(": ")[2]) from None
        combat = bool(getattr(ns, _dest(ns, "combat") or "combat", False))
        filled = set()
        replaced = spec.replaced_by(typed)  # a typed value stands in for these: nothing filled
        for name, (value, origin) in field_defaults(spec, actor, target, combat).items():
            if name not in data and name not in replaced and _dest(ns, name) is not None:
                data[name] = value
                origins[name] = origin
                filled.add(name)
        read = spec.read_filled
        if read is not None and filled:
            data = read(data, filled, actor, target, items=session.sheet_items())
        for name, value in data.items():
            dest = _dest(ns, name)
            if dest is not None and value is not typed.get(name):
                setattr(ns, dest, value if isinstance(value, (bool, str)) else str(value))
        ns.roll_from = origins
        ns.roll_read = frozenset(filled)


def session_params(ns: Any, system_module: Any, params: Any, given: Any = None) -> Any:
    """The roll parameters with what the session knows filled in, for ``gmdesk roll
    … --save SAVE --as A --at T`` (see :mod:`core.session.params`, the code path the
    roll dialog shares; ``given``: the options typed, which win). Reads the session
    only."""
    from gmdesk.core.session.session import Session

    path = _store(ns).resolve(ns.save)
    with Session.open(path, readonly=True) as session:
        actor = session.character(ns.actor) if getattr(ns, "actor", None) else None
        target = session.character(ns.target) if getattr(ns, "target", None) else None
        session.check_roll(actor, target)  # an Unconscious / Dead roller, a Dead target: refused before rolling
        combat = bool(getattr(params, "combat", False))
        return _filled(session, system_module, params, actor, target, combat, given)[0]


def _filled(
    session: Any,
    system_module: Any,
    params: Any,
    actor: Any,
    target: Any,
    combat: bool,
    given: Any,
    read: frozenset[str] = frozenset(),
) -> tuple[Any, dict[str, str]]:
    """What the session knows filled in (core.session.params) and where it came from,
    then what the system reads of the options on the characters (its ``read_sheets``:
    1d6x4 the descriptors named by --test / --vs-test on their sheets; ``read``: the
    parameters whose names were read already)."""
    params, origins = session.fill_params_from(system_module, params, actor, target, combat, given)
    from gmdesk.core.systems import spec_of

    hook = spec_of(system_module).read_sheets
    if hook is not None:
        params = hook(params, actor, target, read, items=session.sheet_items())
    return params, origins
