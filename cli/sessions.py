"""The session commands: ``new``, ``list``, ``export``, ``import-sheet``, ``export-sheet``.

``new`` makes a session (or the next night of one), ``export`` writes the chronicle,
``import-sheet`` and ``export-sheet`` carry a 1d6x4 character's descriptor sheet.

``SAVE`` is a session name (looked up in the saves directory) or a path. ``export``
and ``export-sheet`` open the session read-only: they work while the GM has it open.
Every error is one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gmdesk.cli.common import MAX_SHEET_BYTES, guard, session_store
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.inputs import read_input
from gmdesk.core.results import saved
from gmdesk.core.text import short_time

if TYPE_CHECKING:
    from gmdesk.core.sheet import Sheet


def register(subparsers: Any, names: tuple[str, ...]) -> None:
    """Add the commands ``names`` (of :data:`COMMANDS`) to ``gmdesk``'s subparsers, in that order."""
    for name in names:
        COMMANDS[name](subparsers)


def _add_new(subparsers: Any) -> None:
    from gmdesk.core.systems import DEFAULT_SYSTEM

    p = subparsers.add_parser("new", help="create a new session (or the next night of one: --from)")
    p.add_argument("name", metavar="NAME", help="the session's name (any text)")
    p.add_argument("--system", default=None, metavar="SYSTEM", help=f"default dice system (default {DEFAULT_SYSTEM})")
    p.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a session setting, e.g. skill_threshold=8, ord_positive_reroll=off, fudge_method=d20-open (repeatable)",
    )
    p.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="ROLE=FILE",
        help="use a GM's own table (JSON) for a role all session, e.g. combat=my-combat.json (repeatable; "
        "gmdesk table SAVE set|clear|list changes them later)",
    )
    p.add_argument(
        "--from",
        dest="source",
        default=None,
        metavar="SAVE",
        help="the next night of SAVE: its player characters as they stood, its system, settings and own tables "
        "(SAVE is only read)",
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


def _add_list(subparsers: Any) -> None:
    p = subparsers.add_parser("list", help="list the sessions in the saves directory")
    p.add_argument("--json", action="store_true", help="one JSON object per session per line")
    p.set_defaults(func=cmd_list)


def _add_export(subparsers: Any) -> None:
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


def _add_import_sheet(subparsers: Any) -> None:
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


def _add_export_sheet(subparsers: Any) -> None:
    p = subparsers.add_parser("export-sheet", help="print a character's descriptor sheet")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.add_argument("character", metavar="CHARACTER", help="character name or id")
    p.set_defaults(func=cmd_export_sheet)


#: the commands this module adds, by name
COMMANDS: dict[str, Callable[[Any], None]] = {
    "new": _add_new,
    "list": _add_list,
    "export": _add_export,
    "import-sheet": _add_import_sheet,
    "export-sheet": _add_export_sheet,
}


# --------------------------------------------------------------------------- commands


@guard
def cmd_new(ns: Any) -> int:
    from gmdesk.core.session.saves import clean_name
    from gmdesk.core.session.settings import by_key, parse_assignment
    from gmdesk.core.systems import DEFAULT_SYSTEM, get_system

    if ns.source is not None:
        return _new_from(ns)
    if ns.rest or ns.npcs:
        raise ParamError("--rest" if ns.rest else "--with", "goes with --from SAVE (the session the night follows)")
    system = ns.system or DEFAULT_SYSTEM
    get_system(system)
    # every setting is checked before anything is written (a bad one names its label)
    settings = dict(parse_assignment(text) for text in ns.setting)
    if ns.table:  # each file read and checked before anything is written; the session keeps the tables themselves
        from gmdesk.cli.tables import tables_for_new

        settings["tables"] = tables_for_new(system, ns.table)
    store = session_store(ns)
    path = store.create(ns.name, system, settings or None)
    name = clean_name(ns.name)  # as kept: no line break or terminal control sequence echoed back
    saved("new", f"new session {name}: {path}")
    shown = ", ".join(f"{by_key()[k].title} {by_key()[k].show(v)}" for k, v in settings.items() if k in by_key())
    if ns.table:
        shown = ", ".join(filter(None, (shown, f"own tables: {', '.join(settings['tables'])}")))
    print(f"Created {name} ({system}{'; ' + shown if shown else ''}): {path}")
    return 0


def _new_from(ns: Any) -> int:
    """``gmdesk new NAME --from SAVE [--rest] [--with NAME …]``: the next night."""
    from gmdesk.core.session.saves import clean_name

    if ns.system is not None or ns.setting or ns.table:
        raise ParamError(
            "--system" if ns.system is not None else "--setting" if ns.setting else "--table",
            "a next night keeps the system and settings of the session it follows (change them once it is made)",
        )
    got = session_store(ns).next_night(ns.source, ns.name, rest=ns.rest, npcs=ns.npcs)
    name = clean_name(ns.name)
    saved("new", f"new session {name}: {got.path}")
    who = ", ".join(got.names) or "nobody"
    how = "after a rest" if got.rest else "as they stood"
    print(f"Created {name}, the next night of {got.source} ({who}, {how}): {got.path}")
    for line in got.changes:
        print(f"  {line}")
    return 0


@guard
def cmd_list(ns: Any) -> int:
    store = session_store(ns)
    summaries = store.list()
    if ns.json:
        for s in summaries:
            print(json.dumps(s.to_json(), ensure_ascii=False))
        return 0
    if not summaries:
        missing = "" if store.dir.is_dir() else ", no such directory yet"
        print(f"No sessions in {store.dir} (`gmdesk new NAME` makes one{missing})")
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


@guard
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
    store = session_store(ns)
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


def sheet_character_name(sheet: Sheet, fallback: str) -> str:
    """The character's name from a sheet's header: its first line up to a comma
    ("Mark, 25 year old Human" → "Mark"), else ``fallback``."""
    header = sheet.header.strip()
    first = header.splitlines()[0] if header else ""
    name = first.split(",")[0].strip().rstrip(":").strip()
    return name or fallback


@guard
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
    path = session_store(ns).resolve(ns.save)
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


@guard
def cmd_export_sheet(ns: Any) -> int:
    from gmdesk.core.session.events import sheet_new
    from gmdesk.core.session.session import Session
    from gmdesk.core.sheet import write_sheet

    path = session_store(ns).resolve(ns.save)
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
