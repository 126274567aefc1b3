"""``gmdesk char SAVE visibility NAME name|wounds|all``: what the players see of a
character, from the command line.

``name``: its name only; ``wounds``: its name and how it stands (status, conditions,
wounds) — the default for a non-player character; ``all``: all a player may see
(Vitality, Possibilities, sources, counters too; never a GM secret) — the default for
a player character. ``visibility NAME`` alone prints the level. Each change is one
undoable ``visibility.set`` event; a hidden character (``hide``) stays hidden
whatever its level. Bad input is one line on stderr, exit 2, and nothing is saved.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from gmdesk.cli.common import guard, open_session
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.results import saved

if TYPE_CHECKING:
    from gmdesk.core.session.model import Character


def register(verbs: Any) -> None:
    """Add the ``visibility`` verb to ``gmdesk char``'s verbs."""
    v = verbs.add_parser(
        "visibility",
        help="what the players see of a character: its name only, its name and wounds, or all",
        description="name: the name only; wounds: the name, status, conditions and wounds (the default for "
        "NPCs); all: Vitality, Possibilities, sources and counters too, never a GM secret (the default for PCs). "
        "Alone, NAME prints the level. A hidden character stays hidden whatever its level.",
    )
    v.add_argument("name", metavar="NAME", help="character name or id")
    v.add_argument("level", metavar="name|wounds|all", nargs="?", default=None, help="what the players see")
    v.set_defaults(func=guard(cmd_visibility))


def read_level(text: str) -> str:
    """A level as typed (any case), or ParamError naming ``visibility``."""
    from gmdesk.core.session.model import VISIBILITY_LEVELS

    level = text.strip().casefold()
    if level not in VISIBILITY_LEVELS:
        raise ParamError("visibility", f"must be name, wounds or all (got {text!r})")
    return level


def shown_level(c: Character) -> str:
    """What the players see of ``c`` in a few words: "name and wounds (the default for an
    NPC)", "name only", "nothing: hidden from the players (name only once revealed)"."""
    from gmdesk.core.session.model import VISIBILITY_WORDS

    words = VISIBILITY_WORDS[c.seen]
    if c.visibility is None:
        words += f" (the default for a{'' if c.side == 'PC' else 'n'} {c.side})"
    if c.hidden:
        return f"nothing: hidden from the players ({words} once revealed)"
    return words


def cmd_visibility(ns: Any) -> int:
    from gmdesk.core.session.events import EventError

    level = None if ns.level is None else read_level(ns.level)
    with open_session(ns, readonly=level is None) as session:
        c = session.character(ns.name)
        if level is None:
            sys.stdout.write(f"{c.name}: the players see {shown_level(c)}\n")
            return 0
        try:
            event = session.apply({"type": "visibility.set", "id": c.id, "level": level})
        except EventError as e:
            raise GmdeskError(e.reason) from None
        saved("event", f"{event.summary}, in {session.state.info.name}")
        hidden = " (hidden from the players until revealed)" if c.hidden else ""
        sys.stdout.write(event.summary + hidden + "\n")
    return 0
