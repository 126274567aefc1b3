"""The ``gmdesk`` command.

    gmdesk [--saves DIR]                 the session picker (Textual)
    gmdesk [--saves DIR] SAVE            open a session where play stopped
    gmdesk view SAVE                     the read-only player view, following live
    gmdesk serve SAVE [--host H] [--port P] [--max-viewers N] [--ssh-port P [--authorized-keys FILE]]
                                         the player view in the players' browsers (and terminals, over SSH)
    gmdesk roll SYSTEM [options]         roll (Rich, or --json one object per line)
    gmdesk odds SYSTEM [options]         exact odds (Rich table, or --json)
    gmdesk systems [--json]              the installed dice systems, their roll parameters and character fields
    gmdesk new | list | log | export | import-sheet | export-sheet   (sessions)
    gmdesk check SAVE | repair SAVE      what is wrong with a session; a new one from what can be trusted
    gmdesk bestiary add|save|list|show|remove|export|import   the library of reusable stat blocks

``roll`` and ``odds`` never import Textual, so they answer at once. Every error is one
line on stderr and exit status 2, never a traceback.

This module parses every command but never imports the terminal app: the ``gmdesk``
entry point (``gmdesk/__main__.py``, above both layers) hands :func:`main` a
:class:`FrontEnd` that opens the desk, the player view and the server.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.results import unwatched_stdout

if TYPE_CHECKING:
    from gmdesk.core.systems.spec import SystemSpec

EXIT_USAGE = 2

SESSION_COMMANDS = (
    "new",
    "list",
    "log",
    "export",
    "import-sheet",
    "export-sheet",
    "check",
    "repair",
    "char",
    "bestiary",
)
COMMANDS = ("roll", "odds", "systems", "view", "serve", *SESSION_COMMANDS)


class UsageError(GmdeskError):
    pass


class FrontEnd(Protocol):
    """What the command line asks of the terminal app (given by the entry point)."""

    def desk(self, saves_dir: Path, path: Path | None) -> int:
        """The GM's desk: the session picker, or ``path`` opened where play stopped."""
        ...

    def view(self, saves_dir: Path, path: Path) -> int:
        """The read-only player view of ``path``, following it live."""
        ...

    def serve(
        self,
        path: Path,
        *,
        host: str,
        port: int,
        max_viewers: int,
        ssh_port: int | None = None,
        authorized_keys: Path | None = None,
    ) -> int:
        """The player view of ``path`` for the players' browsers (and, with ``ssh_port``,
        their terminals over SSH)."""
        ...


def version() -> str:
    """gmdesk's version: one source, the installed package's metadata."""
    try:
        return metadata.version("gmdesk")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        return "unknown"


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad option in one line (exit 2) instead of usage + traceback."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _fail(message: str) -> int:
    print(f"gmdesk: {message}" if not message.startswith("gmdesk") else message, file=sys.stderr)
    return EXIT_USAGE


def _command_options(parser: argparse.ArgumentParser, *, rolling: bool) -> None:
    """The options of ``gmdesk roll|odds`` itself (the system's come from its declaration)."""
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="ROLE=FILE",
        help="use a GM's own table (JSON) for a role, e.g. combat=my-combat.json",
    )
    if rolling:
        parser.add_argument("--seed", default=None, help="seed the dice (replayable rolls)")
        parser.add_argument("--count", default="1", help="how many rolls (default 1)")
        parser.add_argument("--save", default=None, metavar="SAVE", help="append each roll to this session")
        parser.add_argument("--as", dest="actor", default=None, metavar="CHARACTER", help="who rolls (with --save)")
        parser.add_argument("--at", dest="target", default=None, metavar="TARGET", help="at whom (with --save)")


def system_parser(command: str, spec: SystemSpec) -> Parser:
    """The parser of ``gmdesk roll|odds SYSTEM``: the system's declared parameters
    (:mod:`core.systems.options`), then the command's own options."""
    from gmdesk.core.systems.options import add_options

    parser = Parser(prog=f"gmdesk {command} {spec.id}", add_help=True)
    try:
        add_options(parser, spec)
        _command_options(parser, rolling=(command == "roll"))
    except argparse.ArgumentError as e:  # a plug-in declaring --seed, --json…
        raise UsageError(f"gmdesk {command} {spec.id}: the system's parameters clash with gmdesk's own: {e}") from None
    return parser


def parse_system_args(command: str, system_id: str, argv: Sequence[str]) -> tuple[SystemSpec, argparse.Namespace, Any]:
    """``gmdesk roll|odds SYSTEM ARGV…`` read: the system, the parsed command line and
    the system's validated parameters (``ParamError`` / ``UsageError`` otherwise)."""
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.options import params_from_options

    spec = get_spec(system_id)
    ns = system_parser(command, spec).parse_args(list(argv))
    return spec, ns, params_from_options(spec, ns)


def _int_option(option: str, value: str | None, lo: int, hi: int | None = None) -> int | None:
    if value is None:
        return None
    from gmdesk.core.systems.base import parse_int

    return parse_int(option, value, lo, hi)


def cmd_roll_or_odds(command: str, argv: list[str], saves: str | None) -> int:
    from gmdesk.core.systems import BUILTIN_IDS, system_ids

    if argv and argv[0] in ("-h", "--help"):
        print(
            f"usage: gmdesk {command} SYSTEM [options]   (SYSTEM: {', '.join(_installed(system_ids))}; "
            f"`gmdesk {command} SYSTEM --help` lists its options)"
        )
        return 0
    if not argv or argv[0].startswith("-"):
        # usage is asked for with --help; a missing system is an error: one line, exit 2
        raise UsageError(
            f"gmdesk {command}: missing SYSTEM, one of {', '.join(_installed(system_ids))} "
            f"(`gmdesk {command} SYSTEM --help` lists its options)"
        )
    system_id, rest = argv[0], argv[1:]
    if system_id not in BUILTIN_IDS:
        _installed(system_ids, system_id)  # a plug-in system: say which plug-ins could not be loaded
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.options import params_from_options

    spec = get_spec(system_id)
    module = spec  # the declaration: its roll and odds
    ns = system_parser(command, spec).parse_args(rest)
    if command == "roll" and ns.save is not None:  # the characters' fields fill what was not typed
        from gmdesk.core.session.commands import session_options

        session_options(ns, module, saves)
    params = params_from_options(spec, ns)
    tables = _tables_from_args(ns.table, spec.table_roles)

    if command == "odds":
        odds = module.odds(params, tables)
        if ns.json:
            print(json.dumps(odds.to_json(), ensure_ascii=False))
        else:
            from rich.console import Console

            from gmdesk.core.render import render_odds

            Console().print(render_odds(odds))
        return 0

    from gmdesk.core.dice import make_rng

    count = _int_option("--count", ns.count, 1, 1_000_000) or 1
    seed = _int_option("--seed", ns.seed, -(2**63), 2**63)
    rng = make_rng(seed)
    if ns.save is None and (ns.actor or ns.target):
        raise ParamError("--as/--at", "need --save SAVE (the session the roll is recorded in)")
    if ns.save is not None:
        from gmdesk.core.session.commands import stream_rolls
        from gmdesk.core.session.params import explicit_options

        ns.saves = saves
        # the session is held as writer from before the first roll; the roller's
        # sources and conditions and the session's settings fill what was not typed
        stream_rolls(ns, module, params, rng, count, tables=tables if ns.table else None, given=explicit_options(ns))
        return 0
    # one roll at a time, printed as it is made: the first line is out at once
    # whatever --count says, and nothing piles up in memory
    out = sys.stdout
    if ns.json:
        for _ in range(count):
            out.write(json.dumps(module.roll(params, rng, tables).to_json(), ensure_ascii=False))
            out.write("\n")
            out.flush()
    else:
        from rich.console import Console

        from gmdesk.core.render import render_record

        console = Console()
        for i in range(count):
            record = module.roll(params, rng, tables)
            if i:
                console.print()
            console.print(render_record(record))
            out.flush()
    return 0


def _installed(system_ids: Any, asked: str | None = None) -> tuple[str, ...]:
    """Every installed system; each plug-in that could not be loaded is reported on
    stderr in one line (the others keep working) — but for ``asked``, the system the
    command names, whose own error says it in its one line."""
    from gmdesk.core.systems import load_problems, plugin_failure

    ids = tuple(system_ids())
    skip = f"plug-in system {asked!r} " if asked is not None and plugin_failure(asked) is not None else None
    for problem in load_problems():
        if skip is None or not problem.startswith(skip):
            print(f"gmdesk: {problem}", file=sys.stderr)
    return ids


def _tables_from_args(specs: list[str], own_roles: Sequence[str] = ()):
    """``--table ROLE=FILE`` options as a TableSet over the built-in tables (a role of
    gmdesk's or one the system declares, ``TABLE_ROLES``)."""
    from gmdesk.core.tables import DEFAULT_TABLES, TableSet, load_table

    if not specs:
        return DEFAULT_TABLES
    overrides = {}
    for spec in specs:
        role, sep, path = spec.partition("=")
        if not sep or not role or not path:
            raise ParamError("--table", f"must be ROLE=FILE, e.g. combat=my-combat.json (got {spec!r})")
        roles = (*TableSet.DEFAULTS, *(r for r in own_roles if r not in TableSet.DEFAULTS))
        if role not in roles:
            raise ParamError("--table", f"unknown role {role!r}; roles: {', '.join(roles)}")
        overrides[role] = load_table(path)
    return TableSet(overrides)


def _resolve_saves(saves: str | None) -> Path:
    from gmdesk.core.session.saves import default_saves_dir

    return Path(saves) if saves else default_saves_dir()


def main(argv: Sequence[str] | None = None, front_end: FrontEnd | None = None) -> int:
    """Run one ``gmdesk`` command; the exit status. Without a ``front_end`` the commands
    that open the terminal app are refused (exit 2)."""
    from gmdesk.core.results import watched_stdout

    args = list(sys.argv[1:] if argv is None else argv)
    with watched_stdout():
        return _run(args, front_end)


def _run(args: list[str], front_end: FrontEnd | None) -> int:
    """One command, every failure one line on stderr (see :func:`main`)."""
    from gmdesk.core.results import StdoutFailed, saved_text

    try:
        code = _main(args, front_end)
        sys.stdout.flush()  # a full disk under stdout shows here, not as a traceback at exit
        return code
    except StdoutFailed as e:
        _drop_stdout()
        done = saved_text()
        if done:
            # the change is durable: it is done, only its report is lost
            print(f"gmdesk: saved ({done}), but it could not be printed ({e.strerror})", file=sys.stderr)
            return 0
        if e.errno == errno.EPIPE:
            return 0  # `gmdesk roll … | head`: the reader left; not an error worth a line
        return _fail(f"output: {e.strerror or e}")
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return EXIT_USAGE
    except GmdeskError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `gmdesk roll … | head`: the reader left; not an error worth a traceback.
        _drop_stdout()
        return 0
    except OSError as e:
        # an unwritable file…
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        return _fail(f"{where}{e.strerror or e}")
    except RecursionError:
        return _fail("the input is nested too deeply to be read")
    except Exception as e:  # noqa: BLE001 - never a traceback: one line, exit 2
        text = str(e).strip().splitlines()
        return _fail(f"unexpected error ({type(e).__name__}{': ' + text[0] if text else ''}); please report it")


def _drop_stdout() -> None:
    """Stop writing to a stdout that failed (no second error when Python exits)."""
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        pass


def _split_global(args: list[str]) -> tuple[str | None, list[str]]:
    """Take ``--saves DIR`` (or ``--saves=DIR``) from the front of the arguments only:
    everything from the first argument that is not ``--saves`` on belongs to the
    command (``gmdesk new "--saves" --system 4d6`` names a session, it does not
    point the saves directory at ``--system``)."""
    saves = os.environ.get("GMDESK_SAVES") or None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--saves":
            if i + 1 >= len(args) or not args[i + 1]:
                raise UsageError("gmdesk: --saves: expected a directory")
            saves = args[i + 1]
            i += 2
            continue
        if a.startswith("--saves="):
            saves = a.split("=", 1)[1]
            if not saves:
                raise UsageError("gmdesk: --saves: expected a directory")
            i += 1
            continue
        break
    return saves, args[i:]


def _needs(front_end: FrontEnd | None) -> FrontEnd:
    if front_end is None:
        raise UsageError("gmdesk: the terminal app is not available here; run the gmdesk command")
    return front_end


def _main(args: list[str], front_end: FrontEnd | None) -> int:
    saves, args = _split_global(args)
    if args and args[0] in ("-h", "--help"):
        top_parser().print_help()
        return 0
    if args and args[0] in ("-V", "--version"):
        print(f"gmdesk {version()}")
        return 0
    command = args[0] if args else None
    if command in ("roll", "odds"):
        return cmd_roll_or_odds(command, args[1:], saves)
    if command == "systems":
        return cmd_systems(args[1:])
    if command in SESSION_COMMANDS:
        from gmdesk.core.session.commands import register

        parser = Parser(prog="gmdesk")
        sub = parser.add_subparsers(dest="command", parser_class=Parser)
        register(sub)
        ns = parser.parse_args(args)
        ns.saves = saves
        if isinstance(getattr(ns, "system", None), str):
            from gmdesk.core.systems import BUILTIN_IDS, system_ids

            if ns.system not in BUILTIN_IDS:  # a plug-in system: say which plug-ins could not be loaded
                _installed(system_ids, ns.system)
        return int(ns.func(ns) or 0)
    if command == "view":
        parser = Parser(prog="gmdesk view")
        parser.add_argument("save", metavar="SAVE", help="session name or path")
        ns = parser.parse_args(args[1:])
        path = _open_path(saves, ns.save)
        with unwatched_stdout():
            return _needs(front_end).view(_resolve_saves(saves), path)
    if command == "serve":
        return cmd_serve(args[1:], saves, front_end)
    if command is not None and command.startswith("-"):
        raise UsageError(f"gmdesk: unknown option {command} (try gmdesk --help)")
    if len(args) > 1:
        raise UsageError(f"gmdesk: unknown command {command!r}; commands: {', '.join(COMMANDS)} or a SAVE to open")
    opened = _open_path(saves, command) if command else None
    _check_seed()
    with unwatched_stdout():
        return _needs(front_end).desk(_resolve_saves(saves), opened)


def _check_seed() -> None:
    """``$GMDESK_SEED`` (the desk's dice, fixed) is a number, or the desk does not start."""
    from gmdesk.core.dice import desk_seed

    try:
        desk_seed()
    except ValueError as e:
        raise UsageError(f"gmdesk: {e}") from None


#: what ``gmdesk --help`` says of the commands that are not session commands (those
#: say it in their own parsers), in the order it lists them
OWN_HELP = {
    "roll": "roll a system's dice (gmdesk roll SYSTEM --help lists its options)",
    "odds": "the exact odds of a roll (gmdesk odds SYSTEM --help lists its options)",
    "systems": "the installed dice systems, their roll parameters and character fields",
    "view": "the read-only player view of a session, following it live",
    "serve": "the player view of a session in the players' browsers",
}


def top_parser() -> argparse.ArgumentParser:
    """``gmdesk --help``: every command with its one line, in argparse's own format
    (as ``gmdesk COMMAND --help`` prints its options)."""
    from gmdesk.core.session.commands import register

    parser = Parser(
        prog="gmdesk",
        usage="gmdesk [--saves DIR] [SAVE | COMMAND ...]",
        description="A game master's desk in the terminal. Without a command: the session picker; "
        "with a SAVE: that session, opened where play stopped.",
        epilog="gmdesk COMMAND --help lists a command's options. A bad command or option is one line "
        "on stderr and exit status 2.",
    )
    parser.add_argument(
        "--saves", metavar="DIR", help="the saves directory (default: $GMDESK_SAVES, else the platform's)"
    )
    parser.add_argument("-V", "--version", action="store_true", help="print gmdesk's version and exit")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)
    for name, text in OWN_HELP.items():
        sub.add_parser(name, help=text)
    register(sub)
    return parser


def cmd_systems(argv: list[str]) -> int:
    """``gmdesk systems [--json]``: every installed system (the built-ins, then the
    plug-ins) with its declared roll parameters and character fields; a plug-in that
    could not be loaded is reported on stderr in one line and left out."""
    from gmdesk.core.systems import get_spec, system_ids
    from gmdesk.core.systems.options import cli_params

    parser = Parser(prog="gmdesk systems")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    ns = parser.parse_args(argv)
    specs = [get_spec(system_id) for system_id in _installed(system_ids)]
    if ns.json:
        print(json.dumps([spec.to_json() for spec in specs], ensure_ascii=False))
        return 0
    out: list[str] = []
    for spec in specs:
        if out:
            out.append("")
        out.append(f"{spec.id}  {spec.name}")
        shown = [p for p in cli_params(spec) if p in spec.params]
        if shown:
            out.append("  roll parameters:")
            out += [f"    {p.cli_option:<22} {p.label}{_param_note(p)}" for p in shown]
        if spec.character_fields:
            out.append("  character fields:")
            for f in spec.character_fields:
                param = spec.param(f.feeds) if f.feeds else None
                fills = param.cli_option if param is not None else f.feeds
                feeds = f" → {fills}, from the {f.from_}" if fills else ""
                out.append(f"    {f.name:<22} {f.label} ({f.type}){feeds}")
    print("\n".join(out))
    return 0


def _param_note(p: Any) -> str:
    """What a parameter takes, in a few words: ``, 0..3, default 0``."""
    parts = ["|".join(p.choices) if p.type == "choice" else "flag" if p.type == "bool" else p.type]
    if p.lo is not None or p.hi is not None:
        parts.append(f"{'' if p.lo is None else p.lo}..{'' if p.hi is None else p.hi}")
    if p.type != "bool" and p.default is not None and p.default != "":
        parts.append(f"default {p.default}")
    if p.secret:
        parts.append("GM's secret")
    return " (" + ", ".join(parts) + ")"


def cmd_serve(argv: list[str], saves: str | None, front_end: FrontEnd | None) -> int:
    """``gmdesk serve SAVE``: the read-only player view for browsers."""
    parser = Parser(prog="gmdesk serve")
    parser.add_argument("save")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the table's network)"
    )
    parser.add_argument("--port", default="8000", help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--max-viewers", default="12", help="most player views at once, browser and SSH (default 12)")
    parser.add_argument(
        "--ssh-port", default=None, help="also serve the player view over SSH on this port (needs gmdesk[ssh])"
    )
    parser.add_argument(
        "--authorized-keys", default=None, metavar="FILE", help="with --ssh-port: public keys that may log in too"
    )
    ns = parser.parse_args(argv)
    port = _int_option("--port", ns.port, 0, 65535)
    max_viewers = _int_option("--max-viewers", ns.max_viewers, 1, 1000)
    ssh_port = _int_option("--ssh-port", ns.ssh_port, 0, 65535)
    if not ns.host.strip():
        raise UsageError("gmdesk serve: --host: expected an address such as 127.0.0.1 or 0.0.0.0")
    keys = None
    if ns.authorized_keys is not None:
        if ssh_port is None:
            raise UsageError("gmdesk serve: --authorized-keys: only with --ssh-port")
        keys = Path(ns.authorized_keys).expanduser()
        if not keys.is_file():
            raise UsageError(f"gmdesk serve: --authorized-keys: no file {str(keys)!r}")
    path = _open_path(saves, ns.save)
    with unwatched_stdout():
        return _needs(front_end).serve(
            path,
            host=ns.host.strip(),
            port=int(port or 0),
            max_viewers=int(max_viewers or 1),
            ssh_port=ssh_port,
            authorized_keys=keys,
        )


def _open_path(saves: str | None, save: str) -> Path:
    from gmdesk.core.session.saves import SessionStore

    store = SessionStore(_resolve_saves(saves))
    path = store.path_for(save)
    if not Path(path).exists():
        raise UsageError(f"gmdesk: no session {save!r} (looked for {path}); `gmdesk list` shows them")
    return Path(path)
