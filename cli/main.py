"""The ``gmdesk`` command line read and dispatched to its commands.

``--saves``, ``--help`` and ``--version``, then the command, run so that any failure
is one line on stderr and exit status 2, never a traceback.

    gmdesk [--saves DIR]                 the session picker (Textual)
    gmdesk [--saves DIR] SAVE            open a session where play stopped
    gmdesk view SAVE                     the read-only player view, following live
    gmdesk serve SAVE [--host H] [--port P] [--max-viewers N] [--ssh-port P [--authorized-keys FILE]]
                                         the player view in the players' browsers (and terminals, over SSH)
    gmdesk roll SYSTEM [options]         roll (Rich, or --json one object per line)
    gmdesk odds SYSTEM [options]         exact odds (Rich table, --json, or --plot: the curve)
    gmdesk systems [--json]              the installed dice systems, their roll parameters and character fields
    gmdesk new | list | log | export | import-sheet | export-sheet   (sessions)
    gmdesk check SAVE | repair SAVE      what is wrong with a session; a new one from what can be trusted
    gmdesk char SAVE VERB …              a session's characters
    gmdesk table SAVE list|set|clear     the session's own tables (ROLE=FILE) or the built-in ones
    gmdesk bestiary add|save|list|show|remove|export|import   the library of reusable stat blocks

Each command lives in its own module of :mod:`gmdesk.cli`, imported when it is run:
``roll`` and ``odds`` never import Textual, so they answer at once. The terminal app
is reached only through the :class:`~gmdesk.cli.frontend.FrontEnd` the ``gmdesk``
entry point (``gmdesk/__main__.py``) hands :func:`main`.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence

from gmdesk.cli.common import EXIT_USAGE, Parser, UsageError
from gmdesk.core.errors import GmdeskError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

    from gmdesk.cli.frontend import FrontEnd

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
    "table",
    "bestiary",
)
COMMANDS = ("roll", "odds", "systems", "view", "serve", *SESSION_COMMANDS)


def version() -> str:
    """gmdesk's version: one source, the installed package's metadata (read only when
    asked: reading package metadata costs a start-up more than a roll does)."""
    from importlib import metadata

    try:
        return metadata.version("gmdesk")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        return "unknown"


def main(argv: Sequence[str] | None = None, front_end: FrontEnd | None = None) -> int:
    """Run one ``gmdesk`` command; the exit status. Without a ``front_end`` the commands
    that open the terminal app are refused (exit 2)."""
    from gmdesk.core.results import watched_stdout

    args = list(sys.argv[1:] if argv is None else argv)
    with watched_stdout():
        return _run(args, front_end)


def _fail(message: str) -> int:
    from gmdesk.cli.common import one_line

    message = one_line(message)
    print(f"gmdesk: {message}" if not message.startswith("gmdesk") else message, file=sys.stderr)
    return EXIT_USAGE


def _run(args: list[str], front_end: FrontEnd | None) -> int:
    """One command, every failure one line on stderr (see :func:`main`)."""
    from gmdesk.core.results import StdoutFailed, saved_text

    try:
        code = _dispatch(args, front_end)
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
        return _fail(str(e))
    except GmdeskError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `gmdesk roll … | head`: the reader left; not an error worth a traceback.
        _drop_stdout()
        return 0
    except Exception as e:  # noqa: BLE001 - never a traceback: one line, exit 2
        from gmdesk.cli.common import error_text

        return _fail(error_text(e))


def _drop_stdout() -> None:
    """Stop writing to a stdout that failed (no second error when Python exits)."""
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        pass


def split_global(args: list[str]) -> tuple[str | None, list[str]]:
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


def _dispatch(args: list[str], front_end: FrontEnd | None) -> int:
    saves, args = split_global(args)
    if args and args[0] in ("-h", "--help"):
        top_parser().print_help()
        return 0
    if args and args[0] in ("-V", "--version"):
        print(f"gmdesk {version()}")
        return 0
    command = args[0] if args else None
    if command in ("roll", "odds"):
        from gmdesk.cli.rolls import cmd_roll_or_odds

        return cmd_roll_or_odds(command, args[1:], saves)
    if command == "systems":
        from gmdesk.cli.systems import cmd_systems

        return cmd_systems(args[1:])
    if command in SESSION_COMMANDS:
        return _session_command(args, saves)
    if command == "view":
        from gmdesk.cli.frontend import cmd_view

        return cmd_view(args[1:], saves, front_end)
    if command == "serve":
        from gmdesk.cli.frontend import cmd_serve

        return cmd_serve(args[1:], saves, front_end)
    if command is not None and command.startswith("-"):
        raise UsageError(f"gmdesk: unknown option {command} (try gmdesk --help)")
    if len(args) > 1:
        raise UsageError(f"gmdesk: unknown command {command!r}; commands: {', '.join(COMMANDS)} or a SAVE to open")
    from gmdesk.cli.frontend import cmd_desk

    return cmd_desk(saves, command, front_end)


def _session_command(args: list[str], saves: str | None) -> int:
    """A command over the saves directory (``new``, ``log``, ``char``…): parsed by the
    parsers :func:`register` adds, run by the function each sets."""
    parser = Parser(prog="gmdesk")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    register(sub)
    ns = parser.parse_args(args)
    ns.saves = saves
    if isinstance(getattr(ns, "system", None), str):
        from gmdesk.cli.systems import installed
        from gmdesk.core.systems import BUILTIN_IDS

        if ns.system not in BUILTIN_IDS:  # a plug-in system: say which plug-ins could not be loaded
            installed(ns.system)
    return int(ns.func(ns) or 0)


def register(subparsers: Any) -> None:
    """Add the session commands to ``gmdesk``'s subparsers, in the order ``--help``
    lists them; each sets ``func``, the function that runs it."""
    from gmdesk.cli import bestiary, chars, check, log, sessions, tables

    sessions.register(subparsers, ("new", "list"))
    log.register(subparsers)
    sessions.register(subparsers, ("export", "import-sheet"))
    check.register(subparsers)
    chars.register(subparsers)
    tables.register(subparsers)
    bestiary.register(subparsers)
    sessions.register(subparsers, ("export-sheet",))


#: what ``gmdesk --help`` says of the commands that are not session commands (those
#: say it in their own parsers), in the order it lists them
OWN_HELP = {
    "roll": "roll a system's dice (gmdesk roll SYSTEM --help lists its options)",
    "odds": "the exact odds of a roll, or its curve with --plot (gmdesk odds SYSTEM --help lists its options)",
    "systems": "the installed dice systems, their roll parameters and character fields",
    "view": "the read-only player view of a session, following it live",
    "serve": "the player view of a session in the players' browsers",
}


def top_parser() -> argparse.ArgumentParser:
    """``gmdesk --help``: every command with its one line, in argparse's own format
    (as ``gmdesk COMMAND --help`` prints its options)."""
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
