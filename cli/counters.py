"""``gmdesk char SAVE counter``: a character's named counters from the command line.

``counter NAME LABEL MAX --reset round|turn|night`` adds a counter (full) that fills
up again each round, at the start of the character's own turn, or in the next night;
``counter NAME LABEL --spend N`` / ``--restore N`` change what is left; ``--remove``
takes it off; ``counter NAME LABEL`` alone prints it. Each change is one undoable
event (``counter.add``, ``counter.change``, ``counter.remove``); bad input is one line
on stderr, exit 2, and nothing is saved.
"""

from __future__ import annotations

import sys
from typing import Any

from gmdesk.cli.common import guard, open_session
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.results import saved


def register(verbs: Any) -> None:
    """Add the ``counter`` verb to ``gmdesk char``'s verbs."""
    v = verbs.add_parser(
        "counter",
        help="add, spend, restore or remove a character's counter (reactions, legendary actions, …)",
        description="LABEL MAX --reset R adds a counter; --spend N, --restore N or --remove change it; "
        "alone, LABEL prints it. R: round (each new round), turn (the start of the character's turn), "
        "night (the next night carried over from this one).",
    )
    v.add_argument("name", metavar="NAME", help="character name or id")
    v.add_argument("label", metavar="LABEL", help="the counter's name (Reactions, Legendary actions, …)")
    v.add_argument("maximum", metavar="MAX", nargs="?", default=None, help="its maximum (adds the counter)")
    v.add_argument("--reset", default=None, metavar="round|turn|night", help="when it fills up again")
    what = v.add_mutually_exclusive_group()
    what.add_argument("--spend", default=None, metavar="N", help="spend N")
    what.add_argument("--restore", default=None, metavar="N", help="give N back")
    what.add_argument("--remove", action="store_true", help="take the counter off")
    v.set_defaults(func=guard(cmd_counter))


def _count(option: str, text: str, lo: int = 1) -> int:
    from gmdesk.core.session.events.counters import MAX_COUNTER

    try:
        n = int(text.strip())
    except ValueError:
        raise ParamError(option, f"must be a whole number from {lo} to {MAX_COUNTER} (got {text!r})") from None
    if not lo <= n <= MAX_COUNTER:
        raise ParamError(option, f"must be a whole number from {lo} to {MAX_COUNTER} (got {n})")
    return n


def _doc(ns: Any) -> dict[str, Any] | None:
    """The event the command asks for (without the character's id), or None to print
    the counter; read before the session is opened, so bad input touches nothing."""
    from gmdesk.core.session.model import COUNTER_RESETS

    changes = ns.spend is not None or ns.restore is not None or ns.remove
    if ns.maximum is not None:
        if changes:
            raise ParamError("MAX", "adds a counter: --spend, --restore and --remove change one already there")
        if ns.reset is None:
            raise ParamError("--reset", "say when the counter fills up again: round, turn or night")
        reset = ns.reset.strip().casefold()
        if reset not in COUNTER_RESETS:
            raise ParamError("--reset", f"must be round, turn or night (got {ns.reset!r})")
        return {"type": "counter.add", "label": ns.label, "max": _count("MAX", ns.maximum), "reset": reset}
    if ns.reset is not None:
        raise ParamError("--reset", "goes with MAX, when a counter is added")
    if ns.spend is not None:
        return {"type": "counter.change", "label": ns.label, "spend": _count("--spend", ns.spend)}
    if ns.restore is not None:
        return {"type": "counter.change", "label": ns.label, "restore": _count("--restore", ns.restore)}
    if ns.remove:
        return {"type": "counter.remove", "label": ns.label}
    return None


def cmd_counter(ns: Any) -> int:
    from gmdesk.core.session.events import EventError

    doc = _doc(ns)
    with open_session(ns, readonly=doc is None) as session:
        c = session.character(ns.name)
        if doc is None:
            x = c.counter(ns.label)
            if x is None:
                have = ", ".join(k.label for k in c.counters) or "none"
                raise GmdeskError(f"{c.name} has no counter {ns.label.strip()!r} (its counters: {have})")
            sys.stdout.write(f"{c.name}: {x.shown()}\n")
            return 0
        try:
            event = session.apply({**doc, "id": c.id})
        except EventError as e:
            raise GmdeskError(e.reason) from None
        saved("event", f"{event.summary}, in {session.state.info.name}")
        sys.stdout.write(event.summary + "\n")
    return 0
