"""``gmdesk bestiary``: the library of reusable stat blocks from the command line.

``add|save|list|show|remove|export|import`` over :mod:`gmdesk.core.campaign.bestiary`.
Each command that changes the bestiary writes it once, atomically, under its lock;
bad input is one line on stderr, exit 2, and nothing is written. The first command
that needs the bestiary of a saves directory without one writes the starter
bestiary there (and says so on stderr).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gmdesk.cli.common import MAX_SHEET_BYTES, choice, guard, open_session, session_store, spec_or_none
from gmdesk.cli.fields import read_assignments
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.inputs import read_input
from gmdesk.core.results import saved

if TYPE_CHECKING:
    from gmdesk.core.campaign.statblock import StatBlock

#: the biggest TOML file ``bestiary import`` reads
MAX_IMPORT_BYTES = 64 << 20


def register(subparsers: Any) -> None:
    """Add ``bestiary`` and its verbs to ``gmdesk``'s subparsers."""
    p = subparsers.add_parser("bestiary", help="the library of reusable stat blocks beside the sessions")
    verbs = p.add_subparsers(dest="verb", metavar="add|save|list|show|remove|export|import", parser_class=type(p))
    verbs.required = True

    v = verbs.add_parser("add", help="add a stat block (its numbers: --set FIELD=VALUE)")
    v.add_argument("name", metavar="NAME")
    v.add_argument("--system", required=True, metavar="SYSTEM", help="the dice system it is for")
    v.add_argument("--side", default=None, metavar="PC|NPC", help="NPC (default) or PC")
    v.add_argument("--kind", default=None, metavar="organic|inorganic", help="organic (default) or inorganic")
    v.add_argument(
        "--set",
        dest="assignments",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a field of the system (or vitality, possibilities, reality rated, notes…), as `gmdesk char`; repeatable",
    )
    v.add_argument("--tag", dest="tags", action="append", default=[], metavar="TAG", help="a tag; repeatable")
    v.add_argument("--shift", action="append", default=[], metavar="NAME=VALUE", help="a shift source; repeatable")
    v.add_argument(
        "--advantage", action="append", default=[], metavar="NAME=VALUE", help="an advantage source (±1, ±2)"
    )
    v.add_argument("--condition", action="append", default=[], metavar="NAME", help="a condition; repeatable")
    v.add_argument("--sheet", default=None, metavar="SHEET.txt", help="a descriptor sheet file")
    v.add_argument("--replace", action="store_true", help="replace a stat block of the same name and system")
    v.set_defaults(func=guard(cmd_add))

    v = verbs.add_parser("save", help="keep a session's character as a stat block (the session is only read)")
    v.add_argument("save", metavar="SAVE", help="session name or path")
    v.add_argument("character", metavar="CHARACTER", help="character name or id")
    v.add_argument("--as", dest="name", default=None, metavar="NAME", help="the stat block's name")
    v.add_argument("--tag", dest="tags", action="append", default=[], metavar="TAG", help="a tag; repeatable")
    v.add_argument("--replace", action="store_true", help="replace a stat block of the same name and system")
    v.set_defaults(func=guard(cmd_save))

    v = verbs.add_parser("list", help="list the stat blocks")
    v.add_argument("--system", default=None, metavar="SYSTEM", help="only this system's")
    v.add_argument("--tag", default=None, metavar="TAG", help="only those with this tag")
    v.add_argument("--search", default=None, metavar="TEXT", help="only those whose name holds TEXT")
    v.add_argument("--json", action="store_true", help="one JSON object per stat block per line")
    v.set_defaults(func=guard(cmd_list))

    v = verbs.add_parser("show", help="print a stat block")
    v.add_argument("name", metavar="NAME")
    v.add_argument("--system", default=None, metavar="SYSTEM", help="when two systems have one of that name")
    v.add_argument("--json", action="store_true", help="the stat block as JSON")
    v.set_defaults(func=guard(cmd_show))

    v = verbs.add_parser("remove", help="remove a stat block")
    v.add_argument("name", metavar="NAME")
    v.add_argument("--system", default=None, metavar="SYSTEM", help="when two systems have one of that name")
    v.set_defaults(func=guard(cmd_remove))

    v = verbs.add_parser("export", help="write the stat blocks to a TOML file (- for stdout)")
    v.add_argument("file", metavar="FILE")
    v.add_argument("--system", default=None, metavar="SYSTEM", help="only this system's")
    v.add_argument("--tag", default=None, metavar="TAG", help="only those with this tag")
    v.add_argument(
        "--replace", action="store_true", help="write over FILE when it already holds stat blocks (else refused)"
    )
    v.set_defaults(func=guard(cmd_export))

    v = verbs.add_parser("import", help="add the stat blocks of a TOML file")
    v.add_argument("file", metavar="FILE")
    v.add_argument("--replace", action="store_true", help="replace stat blocks of the same name and system")
    v.set_defaults(func=guard(cmd_import))


# --------------------------------------------------------------------------- helpers


def bestiary(ns: Any, starter: bool = True) -> Any:
    """The saves directory's bestiary, the starter one written first if there is none
    (``starter``), said on stdout (on stderr when stdout carries JSON or TOML)."""
    from gmdesk.core.campaign.bestiary import Bestiary

    b = Bestiary(session_store(ns).dir)
    n = b.ensure_starter() if starter else None
    if n is not None:
        saved("starter", f"the starter bestiary {b.path}")
        machine = getattr(ns, "json", False) or getattr(ns, "file", None) == "-"
        print(
            f"Started the bestiary with gmdesk's {n} starter stat blocks (the example sessions' foes): {b.path}",
            file=sys.stderr if machine else sys.stdout,
        )
    return b


def _system(system: str | None) -> str | None:
    if system is None:
        return None
    from gmdesk.core.systems import get_spec

    return get_spec(system.strip()).id


def _named_value(option: str, text: str) -> tuple[str, int]:
    name, sep, value = text.rpartition("=")
    if not sep or not name.strip():
        raise ParamError(option, f"write NAME=VALUE, e.g. Brawling=1 (got {text!r})")
    from gmdesk.core.systems.base import parse_int

    return " ".join(name.split()), parse_int(option, value.strip().replace("\u2212", "-"))


def _block(data: dict[str, Any]) -> StatBlock:
    from gmdesk.core.campaign.statblock import StatBlock

    try:
        return StatBlock.from_json(data)
    except ValueError as e:
        raise GmdeskError(str(e)) from None


def _lines(b: StatBlock) -> list[str]:
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.spec import show_field
    from gmdesk.core.text import signed

    lines = [f"{b.system} · {b.side}, {b.kind}{', reality-rated' if b.reality_rated else ''}"]
    parts = [f"Vitality {b.vitality}"]
    if b.reality_rated or b.possibilities:
        parts.append(f"Possibilities {b.possibilities}")
    lines.append(", ".join(parts))
    try:
        spec = get_spec(b.system)
    except ParamError:
        spec = None
    for name, value in b.fields.items():
        f = spec.field(name) if spec is not None else None
        lines.append(f"{f.label}: {show_field(f, value)}" if f is not None else f"{name}: {value}")
    for kind, title in (("shift", "Shift sources"), ("advantage", "Advantage sources")):
        srcs = [s for s in b.sources if s["kind"] == kind]
        if srcs:
            shown = ", ".join(f"{s['name']} {signed(s['value'])}{'' if s['active'] else ' (off)'}" for s in srcs)
            lines.append(f"{title}: {shown}")
    if b.conditions:
        lines.append(
            "Conditions: "
            + ", ".join(c["name"] + (f" ({c['rounds']} rounds)" if c["rounds"] else "") for c in b.conditions)
        )
    if b.tags:
        lines.append("Tags: " + ", ".join(b.tags))
    if b.notes:
        lines.append("Notes: " + " ".join(b.notes.split()))
    if b.sheet:
        lines.append("Sheet:")
        lines += [f"  {line}" for line in b.sheet.splitlines()]
    return lines


# --------------------------------------------------------------------------- the verbs


def cmd_add(ns: Any) -> int:
    system = _system(ns.system) or ""
    fields, own = read_assignments(spec_or_none(system), ns.assignments, adding=True)
    if own.pop("name", None) is not None:
        raise ParamError("name", "is the NAME of `bestiary add`")
    data: dict[str, Any] = {"name": ns.name, "system": system}
    if ns.side is not None:
        data["side"] = choice("--side", ns.side, ("PC", "NPC"))
    if ns.kind is not None:
        data["kind"] = choice("--kind", ns.kind, ("organic", "inorganic"))
    for key in ("side", "kind", "notes", "possibilities", "reality_rated"):
        if key in own:
            data[key] = own[key]
    vit, cur = own.get("vitality_default"), own.get("vitality_current")
    if vit is not None or cur is not None:
        data["vitality"] = vit if vit is not None else cur
    if data.get("possibilities") and "reality_rated" not in data:
        data["reality_rated"] = True
    data["fields"] = {k: v for k, v in fields.items() if v is not None}
    sources = []
    for option, kind in (("--shift", "shift"), ("--advantage", "advantage")):
        for text in getattr(ns, kind):
            name, value = _named_value(option, text)
            sources.append({"kind": kind, "name": name, "value": value})
    data["sources"] = sources
    data["conditions"] = [{"name": c} for c in ns.condition]
    data["tags"] = ns.tags
    if ns.sheet is not None:
        path = Path(ns.sheet).expanduser()
        try:
            data["sheet"] = read_input(path, MAX_SHEET_BYTES, "sheet").decode("utf-8")
        except UnicodeDecodeError:
            raise GmdeskError(f"{path}: not UTF-8 text") from None
    block = _block(data).check()  # every value read before anything is written
    b = bestiary(ns)
    replaced = b.add(block, replace=ns.replace)
    saved("bestiary", f"{block.name} ({block.system}) {'replaced' if replaced else 'added'} in the bestiary")
    block = b.find(block.name, block.system)
    print(f"{'Replaced' if replaced else 'Added'} {block.name} ({block.system}) in the bestiary")
    for line in _lines(block):
        print(f"  {line}")
    return 0


def cmd_save(ns: Any) -> int:
    from gmdesk.core.campaign.statblock import StatBlock

    with open_session(ns, readonly=True) as session:
        c = session.character(ns.character)
        try:
            block = StatBlock.from_character(c, session.state.info.system, ns.name, ns.tags).check()
        except ValueError as e:
            raise GmdeskError(str(e)) from None
        where = session.state.info.name
    b = bestiary(ns)
    replaced = b.add(block, replace=ns.replace)
    saved("bestiary", f"{block.name} ({block.system}) {'replaced' if replaced else 'saved'} in the bestiary")
    print(f"{'Replaced' if replaced else 'Saved'} {block.name} ({block.system}) in the bestiary, from {where}")
    return 0


def cmd_list(ns: Any) -> int:
    b = bestiary(ns)
    blocks = b.blocks(_system(ns.system), ns.tag, ns.search)
    out = sys.stdout
    if ns.json:
        for block in blocks:
            out.write(json.dumps(block.to_json(), ensure_ascii=False) + "\n")
        return 0
    if not blocks:
        asked = ns.system or ns.tag or ns.search
        out.write(
            "No stat blocks match\n" if asked else "The bestiary is empty (`gmdesk bestiary add NAME --system S`)\n"
        )
        return 0
    rows = [("Name", "System", "Side", "Kind", "Vit", "Tags")]
    for block in blocks:
        rows.append((block.name, block.system, block.side, block.kind, str(block.vitality), ", ".join(block.tags)))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        out.write(("  ".join(f"{r[i]:<{widths[i]}}" for i in range(5)) + f"  {r[5]}").rstrip() + "\n")
    return 0


def cmd_show(ns: Any) -> int:
    block = bestiary(ns).find(ns.name, _system(ns.system))
    if ns.json:
        sys.stdout.write(json.dumps(block.to_json(), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("\n".join([block.name, *(f"  {x}" for x in _lines(block))]) + "\n")
    return 0


def cmd_remove(ns: Any) -> int:
    block = bestiary(ns).remove(ns.name, _system(ns.system))
    saved("bestiary", f"{block.name} ({block.system}) removed from the bestiary")
    print(f"Removed {block.name} ({block.system}) from the bestiary")
    return 0


def cmd_export(ns: Any) -> int:
    from gmdesk.core.campaign.bestiary import to_toml
    from gmdesk.core.outputs import check_output, write_output

    saves = session_store(ns).dir
    if ns.file != "-":
        # never gmdesk's own files, nor stat blocks shared as TOML unless --replace:
        # refused before the bestiary is read
        check_output(ns.file, saves, ns.replace)
    blocks = bestiary(ns).blocks(_system(ns.system), ns.tag)
    text = to_toml(blocks)
    if ns.file == "-":
        sys.stdout.write(text)
        return 0
    out = Path(ns.file).expanduser()
    try:  # whole or not at all: a temporary file beside it, fsynced, then renamed
        write_output(out, text.encode("utf-8"), saves, ns.replace)
        saved("export", f"{out}")
    except OSError as e:
        raise GmdeskError(f"cannot write {out}: {e.strerror or e}") from None
    print(f"Wrote {len(blocks)} stat block{'s' if len(blocks) != 1 else ''} to {out}")
    return 0


def cmd_import(ns: Any) -> int:
    from gmdesk.core.campaign.bestiary import from_toml

    path = Path(ns.file).expanduser()
    try:
        text = read_input(path, MAX_IMPORT_BYTES, "bestiary to import").decode("utf-8")
    except UnicodeDecodeError:
        raise GmdeskError(f"{path}: not UTF-8 text") from None
    blocks = []
    for block in from_toml(text, str(path)):
        try:
            blocks.append(block.check())
        except GmdeskError as e:
            raise GmdeskError(f"{path}: {block.name!r}: {e}") from None
    if not blocks:
        raise GmdeskError(f"{path}: holds no [[stat_block]]; nothing was imported")
    # a first import is the bestiary: the starter is not written under it
    added, replaced = bestiary(ns, starter=False).add_many(blocks, replace=ns.replace)
    saved("bestiary", f"{added + replaced} stat block{'s' if added + replaced != 1 else ''} imported from {path}")
    print(
        f"Imported {added + replaced} stat block{'s' if added + replaced != 1 else ''} from {path}"
        + (f" ({replaced} replaced)" if replaced else "")
    )
    return 0
