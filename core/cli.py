"""The ``gmdesk`` command.

    gmdesk [--saves DIR]                 the session picker (Textual)
    gmdesk [--saves DIR] SAVE            open a session where play stopped
    gmdesk view SAVE                     the read-only player view, following live
    gmdesk roll SYSTEM [options]         roll (Rich, or --json one object per line)
    gmdesk odds SYSTEM [options]         exact odds (Rich table, or --json)
    gmdesk new | list | log | export | import-sheet | export-sheet   (sessions)

``roll`` and ``odds`` never import Textual, so they answer at once. Every error is one
line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from core.errors import GmdeskError, ParamError

EXIT_USAGE = 2

SESSION_COMMANDS = ("new", "list", "log", "export", "import-sheet", "export-sheet")
COMMANDS = ("roll", "odds", "view", *SESSION_COMMANDS)


class UsageError(GmdeskError):
    pass


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad option in one line (exit 2) instead of usage + traceback."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def _fail(message: str) -> int:
    print(f"gmdesk: {message}" if not message.startswith("gmdesk") else message, file=sys.stderr)
    return EXIT_USAGE


def _common_roll_options(parser: argparse.ArgumentParser, *, rolling: bool) -> None:
    parser.add_argument("--combat", action="store_true", help="resolve as an attack into a combat descriptor")
    parser.add_argument("--target-kind", default="organic", metavar="organic|inorganic",
                        help="kind of whoever is attacked (picks the descriptor column)")
    parser.add_argument("--attacker-kind", default="organic", metavar="organic|inorganic",
                        help="kind of the attacker (receives negative results)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--table", action="append", default=[], metavar="ROLE=FILE",
                        help="use a GM's own table (JSON) for a role, e.g. combat=my-combat.json")
    if rolling:
        parser.add_argument("--seed", default=None, help="seed the dice (replayable rolls)")
        parser.add_argument("--count", default="1", help="how many rolls (default 1)")
        parser.add_argument("--save", default=None, metavar="SAVE", help="append each roll to this session")
        parser.add_argument("--as", dest="actor", default=None, metavar="CHARACTER", help="who rolls (with --save)")
        parser.add_argument("--at", dest="target", default=None, metavar="TARGET", help="at whom (with --save)")


def system_parser(command: str, system_id: str, module) -> Parser:
    """The parser of ``gmdesk roll|odds SYSTEM``: the common options and the system's own."""
    parser = Parser(prog=f"gmdesk {command} {system_id}", add_help=True)
    _common_roll_options(parser, rolling=(command == "roll"))
    module.add_arguments(parser)
    return parser


def _int_option(option: str, value: str | None, lo: int, hi: int | None = None) -> int | None:
    if value is None:
        return None
    from core.systems.base import parse_int

    return parse_int(option, value, lo, hi)


def cmd_roll_or_odds(command: str, argv: list[str], saves: str | None) -> int:
    from core.systems import SYSTEM_IDS, get_system

    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: gmdesk {command} SYSTEM [options]   (SYSTEM: {', '.join(SYSTEM_IDS)}; "
              f"`gmdesk {command} SYSTEM --help` lists its options)")
        return 0 if argv else EXIT_USAGE
    system_id, rest = argv[0], argv[1:]
    module = get_system(system_id)
    ns = system_parser(command, system_id, module).parse_args(rest)
    params = module.params_from_args(ns)
    tables = _tables_from_args(ns.table)

    if command == "odds":
        odds = module.odds(params, tables)
        if ns.json:
            print(json.dumps(odds.to_json(), ensure_ascii=False))
        else:
            from rich.console import Console

            from core.render import render_odds

            Console().print(render_odds(odds))
        return 0

    from core.dice import make_rng

    count = _int_option("--count", ns.count, 1, 1_000_000) or 1
    seed = _int_option("--seed", ns.seed, -(2**63), 2**63)
    rng = make_rng(seed)
    if ns.save is None and (ns.actor or ns.target):
        raise ParamError("--as/--at", "need --save SAVE (the session the roll is recorded in)")
    if ns.save is not None:
        from core.session.commands import record_rolls, session_params

        ns.saves = saves
        # the tracked characters' kinds, the session's settings and the roller's
        # conditions apply before the dice are rolled
        params = session_params(ns, module, params)
        records = [module.roll(params, rng, tables) for _ in range(count)]
        # appends each roll to the session and prints its JSON line once it is durable
        record_rolls(ns, module, params, records)
        return 0
    records = [module.roll(params, rng, tables) for _ in range(count)]
    if ns.json:
        out = sys.stdout
        for r in records:
            out.write(json.dumps(r.to_json(), ensure_ascii=False))
            out.write("\n")
    else:
        from rich.console import Console

        from core.render import render_record

        console = Console()
        for i, r in enumerate(records):
            if i:
                console.print()
            console.print(render_record(r))
    return 0


def _tables_from_args(specs: list[str]):
    """``--table ROLE=FILE`` options as a TableSet over the built-in tables."""
    from core.tables import DEFAULT_TABLES, TableSet, load_table

    if not specs:
        return DEFAULT_TABLES
    overrides = {}
    for spec in specs:
        role, sep, path = spec.partition("=")
        if not sep or not role or not path:
            raise ParamError("--table", f"must be ROLE=FILE, e.g. combat=my-combat.json (got {spec!r})")
        if role not in TableSet.DEFAULTS:
            raise ParamError("--table", f"unknown role {role!r}; roles: {', '.join(TableSet.DEFAULTS)}")
        overrides[role] = load_table(path)
    return TableSet(overrides)


def _resolve_saves(saves: str | None) -> Path:
    from core.session.saves import default_saves_dir

    return Path(saves) if saves else default_saves_dir()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(args)
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return EXIT_USAGE
    except GmdeskError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `gmdesk roll … | head`: the reader left; not an error worth a traceback.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


def _split_global(args: list[str]) -> tuple[str | None, list[str]]:
    """Take ``--saves DIR`` (or ``--saves=DIR``) from anywhere before the command."""
    saves = os.environ.get("GMDESK_SAVES") or None
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--saves":
            if i + 1 >= len(args):
                raise UsageError("gmdesk: --saves: expected a directory")
            saves = args[i + 1]
            i += 2
            continue
        if a.startswith("--saves="):
            saves = a.split("=", 1)[1]
            i += 1
            continue
        rest.append(a)
        i += 1
    return saves, rest


def _main(args: list[str]) -> int:
    saves, args = _split_global(args)
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if args and args[0] in ("-V", "--version"):
        from core import __version__

        print(f"gmdesk {__version__}")
        return 0
    command = args[0] if args else None
    if command in ("roll", "odds"):
        return cmd_roll_or_odds(command, args[1:], saves)
    if command in SESSION_COMMANDS:
        from core.session.commands import register

        parser = Parser(prog="gmdesk")
        sub = parser.add_subparsers(dest="command", parser_class=Parser)
        register(sub)
        ns = parser.parse_args(args)
        ns.saves = saves
        return int(ns.func(ns) or 0)
    if command == "view":
        parser = Parser(prog="gmdesk view")
        parser.add_argument("save")
        ns = parser.parse_args(args[1:])
        path = _open_path(saves, ns.save)
        import tui

        tui.run_player_view(_resolve_saves(saves), path)
        return 0
    if command is not None and command.startswith("-"):
        raise UsageError(f"gmdesk: unknown option {command} (try gmdesk --help)")
    if len(args) > 1:
        raise UsageError(f"gmdesk: unknown command {command!r}; commands: {', '.join(COMMANDS)} or a SAVE to open")
    path = _open_path(saves, command) if command else None
    import tui

    return int(tui.run(_resolve_saves(saves), path) or 0)


def _open_path(saves: str | None, save: str) -> Path:
    from core.session.saves import SessionStore

    store = SessionStore(_resolve_saves(saves))
    path = store.path_for(save)
    if not Path(path).exists():
        raise UsageError(f"gmdesk: no session {save!r} (looked for {path}); `gmdesk list` shows them")
    return Path(path)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
