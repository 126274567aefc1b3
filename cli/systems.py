"""``gmdesk systems``: the installed dice systems, and the plug-ins that failed to load.

Each system with its roll parameters and character fields; each plug-in system that
could not be loaded is one line on stderr, said the same way by every command that
names a system (:func:`installed`)."""

from __future__ import annotations

import json
import sys

from gmdesk.cli.common import Parser

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from gmdesk.core.systems.declare import Param


def installed(asked: str | None = None) -> tuple[str, ...]:
    """Every installed system; each plug-in that could not be loaded is reported on
    stderr in one line (the others keep working) — but for ``asked``, the system the
    command names, whose own error says it in its one line."""
    from gmdesk.core.systems import load_problems, plugin_failure, system_ids

    ids = tuple(system_ids())
    skip = f"plug-in system {asked!r} " if asked is not None and plugin_failure(asked) is not None else None
    for problem in load_problems():
        if skip is None or not problem.startswith(skip):
            print(f"gmdesk: {problem}", file=sys.stderr)
    return ids


def cmd_systems(argv: list[str]) -> int:
    """``gmdesk systems [--json]``: every installed system (the built-ins, then the
    plug-ins) with its declared roll parameters and character fields; a plug-in that
    could not be loaded is reported on stderr in one line and left out."""
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.options import cli_params

    parser = Parser(prog="gmdesk systems")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    ns = parser.parse_args(argv)
    specs = [get_spec(system_id) for system_id in installed()]
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
            out += [f"    {p.cli_option:<22} {p.label}{param_note(p)}" for p in shown]
        if spec.character_fields:
            out.append("  character fields:")
            for f in spec.character_fields:
                param = spec.param(f.feeds) if f.feeds else None
                fills = param.cli_option if param is not None else f.feeds
                feeds = f" → {fills}, from the {f.from_}" if fills else ""
                out.append(f"    {f.name:<22} {f.label} ({f.type}){feeds}")
    print("\n".join(out))
    return 0


def param_note(p: Param) -> str:
    """What a parameter takes, in a few words: ``, 0..3, default 0``."""
    parts = ["|".join(p.choices) if p.type == "choice" else "flag" if p.type == "bool" else p.type]
    if p.lo is not None or p.hi is not None:
        parts.append(f"{'' if p.lo is None else p.lo}..{'' if p.hi is None else p.hi}")
    if p.type != "bool" and p.default is not None and p.default != "":
        parts.append(f"default {p.default}")
    if p.secret:
        parts.append("GM's secret")
    return " (" + ", ".join(parts) + ")"
