"""``gmdesk check`` and ``gmdesk repair``: what is wrong with a session, and a sound copy.

``repair`` writes a new session beside a damaged one from what can be trusted
(:mod:`gmdesk.core.session.repair`). A sound session waiting for its dice system's
plug-in is said to be sound, never DAMAGED."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gmdesk.cli.common import guard, session_store
from gmdesk.core.errors import GmdeskError
from gmdesk.core.results import saved


def register(subparsers: Any) -> None:
    """Add ``check`` and ``repair`` to ``gmdesk``'s subparsers."""
    p = subparsers.add_parser("check", help="say what is wrong with a session (reads only)")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.set_defaults(func=cmd_check)

    p = subparsers.add_parser("repair", help="write a new session beside a damaged one from what can be trusted")
    p.add_argument("save", metavar="SAVE", help="session name or path")
    p.set_defaults(func=cmd_repair)


def _damaged_path(ns: Any) -> Path:
    """SAVE for check / repair: a damaged session is found by its file, never opened."""
    store = session_store(ns)
    path = store.path_for(ns.save)
    if not path.is_file():
        for s in store.list():  # a damaged session listed under its file name
            if s.error is not None and s.name == ns.save:
                return s.path
        raise GmdeskError(f"no session {ns.save!r} (looked for {path}); `gmdesk list` shows them")
    return path


@guard
def cmd_check(ns: Any) -> int:
    """``gmdesk check SAVE``: the report on stdout; exit 0 when the session is fine,
    1 when it is damaged (2 stays for a usage error, as everywhere)."""
    from gmdesk.core.session.repair import check

    path = _damaged_path(ns)
    report = check(path)
    needs = None if report.ok else _only_needs_plugin(path, report.problems)
    if needs is not None:
        # sound as far as this gmdesk can read it: waiting for its plug-in, not damaged
        from gmdesk.core.session.saves import plugin_note

        count = f"{report.events} event{'s' if report.events != 1 else ''}" if report.events is not None else "it"
        lines = [f"{path.name}: sound — {count} read cleanly; it {plugin_note(needs)}"]
        lines.append("  · its events are checked against its dice system's rules once the plug-in loads")
        lines += [f"  · {n}" for n in report.notes]
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
        return 0
    sys.stdout.write("\n".join(report.lines()) + "\n")
    if not report.ok:
        sys.stdout.write(
            f"`gmdesk repair {ns.save}` writes a new session beside it from what can be trusted "
            f"(the damaged files are never changed)\n"
        )
    sys.stdout.flush()
    return 0 if report.ok else 1


def _only_needs_plugin(path: Path, problems: Sequence[str]) -> str | None:
    """The plug-in system a session needs when that is all ``check`` found wrong with
    it (its files read cleanly; only its dice system is not loaded here), else None."""
    from gmdesk.core.session.session import header_problems
    from gmdesk.core.session.storage import EventLog
    from gmdesk.core.systems import BUILTIN_IDS, system_ids

    try:
        log = EventLog.open(path, readonly=True)
    except GmdeskError:
        return None
    try:
        header = log.header
    finally:
        log.close()
    system = header.get("system")
    if not isinstance(system, str) or system in BUILTIN_IDS or system in system_ids():
        return None
    found = header_problems(header)
    if len(found) != 1 or not problems:
        return None  # something besides the plug-in is wrong with its header
    return system if all(found[0] in p for p in problems) else None


@guard
def cmd_repair(ns: Any) -> int:
    from gmdesk.core.session.repair import repair

    path = _damaged_path(ns)
    dst, got = repair(path, session_store(ns).dir if path.parent == session_store(ns).dir else None)
    saved("repair", f"the repaired copy {dst}")
    lines = [f"Repaired {path.name}: wrote {dst} with {got.kept_text()}"]
    lines += [f"  left out: {w}" for w in got.left_out] or ["  nothing was left out"]
    lines.append(f"  {path.name} is unchanged")
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return 0
