"""The session: a log of events is the truth, the state is a fold of it.

``from gmdesk.core.session import SessionStore, Session, EventError`` — the contract is in
docs/DESIGN.md ("Session contract"). Modules: ``model`` (the state dataclasses),
``events`` (validate, fold, undo/redo), ``session`` (an open session over the
store), ``saves`` (a directory of sessions), ``storage`` (the durable event log),
``export`` (md/html/json chronicle). The command line over it is :mod:`gmdesk.cli`.
"""

from gmdesk.core.session.events import EVENT_TYPES, Event, EventError
from gmdesk.core.session.model import (
    Character,
    Clock,
    Combatant,
    Condition,
    Encounter,
    Info,
    Note,
    RollEntry,
    Source,
    State,
    Wound,
)
from gmdesk.core.session.saves import SessionStore, SessionSummary, default_saves_dir, safe_file_stem
from gmdesk.core.session.session import Session

__all__ = [
    "SessionStore",
    "SessionSummary",
    "Session",
    "EventError",
    "Event",
    "EVENT_TYPES",
    "default_saves_dir",
    "safe_file_stem",
    "State",
    "Info",
    "Character",
    "Source",
    "Condition",
    "Wound",
    "Encounter",
    "Combatant",
    "Clock",
    "RollEntry",
    "Note",
]
