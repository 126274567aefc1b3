"""The session state: plain dataclasses, folded from the event log.

Nothing here talks to storage or to dice. :mod:`core.session.events` mutates a
``State`` while folding events; everybody else reads it.

Small value objects (``Source``, ``Condition``, ``Wound``, ``Combatant``, ``Clock``,
``Note``) are frozen: a change replaces them. A ``Character``'s lists are replaced,
never mutated in place, by the fold — except ``wounds``, which only ever grow in
place (``add_wound``) — so a shallow copy plus the wounds' length is a faithful
snapshot (the undo machinery relies on it). Treat the state as read-only.

Modules: ``characters`` (a character and its sources, conditions and wounds),
``rolls`` (the roll log's entries), ``state`` (the session info, the encounter,
clocks, notes and the State that holds them all), ``checkpoint`` (the State's
compact JSON form for the session's checkpoint).
"""

from gmdesk.core.session.model.characters import (
    COUNTER_RESETS,
    KINDS,
    KNOWN_CONDITIONS,
    SIDES,
    SOURCE_KINDS,
    STATUS_RANK,
    STATUSES,
    TURN_MOMENTS,
    VISIBILITY_LEVELS,
    VISIBILITY_WORDS,
    Character,
    Condition,
    Counter,
    NameOf,
    SetStatus,
    Source,
    Wound,
    default_visibility,
    worse_status,
)
from gmdesk.core.session.model.checkpoint import checkpoint_json, state_from_checkpoint
from gmdesk.core.session.model.rolls import LazyRecord, RollEntry
from gmdesk.core.session.model.state import DEFAULT_SETTINGS, Clock, Combatant, Encounter, Info, Note, State

__all__ = [
    "SIDES",
    "KINDS",
    "STATUSES",
    "STATUS_RANK",
    "SetStatus",
    "worse_status",
    "SOURCE_KINDS",
    "KNOWN_CONDITIONS",
    "NameOf",
    "TURN_MOMENTS",
    "DEFAULT_SETTINGS",
    "Source",
    "Condition",
    "Counter",
    "COUNTER_RESETS",
    "VISIBILITY_LEVELS",
    "VISIBILITY_WORDS",
    "default_visibility",
    "Wound",
    "Character",
    "Combatant",
    "Encounter",
    "Clock",
    "RollEntry",
    "Note",
    "Info",
    "State",
    "LazyRecord",
    "checkpoint_json",
    "state_from_checkpoint",
]
