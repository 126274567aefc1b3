"""``gmdesk roll`` and ``gmdesk odds``: a system's dice rolled, or their exact odds.

The system's declared parameters are read from the command line; the result is
printed with Rich, or as one JSON object per line. ``roll … --save SAVE`` hands each
roll to :mod:`gmdesk.cli.roll_save`. Neither imports Textual, so both answer at once."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from gmdesk.cli.common import Parser, UsageError, int_option
from gmdesk.cli.systems import installed
from gmdesk.core.errors import ParamError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

    from gmdesk.core.systems.spec import SystemSpec
    from gmdesk.core.tables import TableSet


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
    if not rolling:
        parser.add_argument(
            "--plot",
            nargs="?",
            const="exact",
            default=None,
            metavar="VIEW",
            help="draw the curve of the roll's value: exact (the default), at-least or at-most",
        )
    if rolling:
        parser.add_argument("--seed", default=None, help="seed the dice (replayable rolls)")
        parser.add_argument("--count", default="1", help="how many rolls (default 1)")
        parser.add_argument("--save", default=None, metavar="SAVE", help="append each roll to this session")
        parser.add_argument("--as", dest="actor", default=None, metavar="CHARACTER", help="who rolls (with --save)")
        parser.add_argument("--at", dest="target", default=None, metavar="TARGET", help="at whom (with --save)")


class SystemParser(Parser):
    """The parser of one system's options: a value that opens with a minus sign and a
    digit is its option's value (``--adv -1,+2``, :func:`signed_values`)."""

    value_options: frozenset[str] = frozenset()

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        from gmdesk.core.systems.options import signed_values

        if args is not None:
            args = signed_values(args, self.value_options)
        return super().parse_known_args(args, namespace)


def system_parser(command: str, spec: SystemSpec) -> Parser:
    """The parser of ``gmdesk roll|odds SYSTEM``: the system's declared parameters
    (:mod:`gmdesk.core.systems.options`), then the command's own options."""
    from gmdesk.core.systems.options import add_options, value_options

    parser = SystemParser(prog=f"gmdesk {command} {spec.id}", add_help=True)
    parser.value_options = value_options(spec)
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


def cmd_roll_or_odds(command: str, argv: list[str], saves: str | None) -> int:
    """``gmdesk roll|odds SYSTEM [options]``; the exit status."""
    from gmdesk.core.systems import BUILTIN_IDS

    if argv and argv[0] in ("-h", "--help"):
        print(
            f"usage: gmdesk {command} SYSTEM [options]   (SYSTEM: {', '.join(installed())}; "
            f"`gmdesk {command} SYSTEM --help` lists its options)"
        )
        return 0
    if not argv or argv[0].startswith("-"):
        # usage is asked for with --help; a missing system is an error: one line, exit 2
        raise UsageError(
            f"gmdesk {command}: missing SYSTEM, one of {', '.join(installed())} "
            f"(`gmdesk {command} SYSTEM --help` lists its options)"
        )
    system_id, rest = argv[0], argv[1:]
    if system_id not in BUILTIN_IDS:
        installed(system_id)  # a plug-in system: say which plug-ins could not be loaded
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.options import params_from_options

    spec = get_spec(system_id)
    module = spec  # the declaration: its roll and odds
    ns = system_parser(command, spec).parse_args(rest)
    if command == "roll" and ns.save is not None:  # the characters' fields fill what was not typed
        from gmdesk.cli.roll_save import session_options

        session_options(ns, module, saves)
    params = params_from_options(spec, ns)
    tables = tables_from_args(ns.table, spec.table_roles)

    if command == "odds" and ns.plot is not None:
        return print_curve(spec, params, tables, plot_view(spec.id, ns.plot), as_json=ns.json)
    if command == "odds":
        odds = module.odds(params, tables)
        if ns.json:
            print(json.dumps(odds.to_json(), ensure_ascii=False))
        else:
            from rich.console import Console

            from gmdesk.core.oddstable import render_odds

            Console().print(render_odds(odds))
        return 0

    from gmdesk.core.dice import make_rng

    count = int_option("--count", ns.count, 1, 1_000_000) or 1
    seed = int_option("--seed", ns.seed, -(2**63), 2**63)
    rng = make_rng(seed)
    if ns.save is None and (ns.actor or ns.target):
        raise ParamError("--as/--at", "need --save SAVE (the session the roll is recorded in)")
    if ns.save is not None:
        from gmdesk.cli.roll_save import stream_rolls
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


def plot_view(system_id: str, given: str) -> str:
    """The view ``--plot VIEW`` names (exact, at-least, at-most; ``at_least`` and
    ``atleast`` read as ``at-least``); ``UsageError`` in one line otherwise."""
    from gmdesk.core.curve import VIEWS

    word = "-".join(given.strip().lower().replace("_", " ").replace("-", " ").split())
    word = {"atleast": "at-least", "atmost": "at-most"}.get(word, word)
    if word not in VIEWS:
        raise UsageError(f"gmdesk odds {system_id}: --plot draws the curve exact, at-least or at-most, not {given!r}")
    return word


def print_curve(spec: SystemSpec, params: Any, tables: TableSet, view: str, *, as_json: bool = False) -> int:
    """``gmdesk odds SYSTEM … --plot VIEW``: the curve of the roll's headline value as
    a chart (:mod:`gmdesk.core.curve`), or as JSON; exit status 2 when the system
    gives no value to draw."""
    from gmdesk.core.curve import curve_heading, curve_text

    curve = spec.curve(params, tables)
    if not curve.values and not curve.note:
        raise UsageError(f"gmdesk odds {spec.id}: the system gives no distribution of its value to draw")
    if as_json:
        print(json.dumps({"system": spec.id, **curve.to_json(view)}, ensure_ascii=False))
        return 0
    from rich.console import Console
    from rich.text import Text

    console = Console()
    console.print(Text(curve_heading(spec.id, curve, view), style="bold"), no_wrap=True, overflow="crop")
    console.print(curve_text(curve, view, min(console.width, 100)))
    return 0


def tables_from_args(specs: list[str], own_roles: Sequence[str] = ()) -> TableSet:
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
