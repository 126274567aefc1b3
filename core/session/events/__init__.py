"""Events: validate, fold into the state, undo and redo.

Every change to a session is an event ``{"type": …, **payload}``. :class:`Fold` owns a
:class:`~core.session.model.State` and applies events to it one by one. Applying an
event first validates it against the current state (an :class:`EventError` with a
one-line reason changes nothing), then mutates the state through a :class:`Txn`
that remembers the prior value of everything the event touched. That record is the
event's *inverse*: undo restores it, in O(size of the event), never by replaying.
:func:`replay` folds a whole log from scratch (opening a save, and the tests' check
that the live state equals a replay). :func:`fold_checkpoint` /
:func:`fold_from_checkpoint` save and restore a fold so that a long save opens
without replaying it all; a replay from scratch stays the reference.

Undo and redo are events too (``{"type": "undo", "target": seq}``). Every other event
is undoable. A new ordinary event clears the redo stack. Redo re-applies the
original event's stored payload (its dice included), so it gives exactly the state
the event gave the first time.

Decisions where the rules are silent (what a GM at the table expects):

* **Durations** are counted in rounds and tick when their owner's *turn ends*:
  ``turn.next`` ends the acting combatant's turn; ``round.new`` ends the turns of the
  acting combatant and of everyone after it in the order who had not acted yet.
  Each source or condition with ``rounds`` N loses one; at 0 it is removed (the
  roll log says so). Characters outside the encounter never tick. ``turn.prev``
  only moves the marker back; to take a turn back with its ticks, undo it.
* **Until a character's turn**: a condition may last ``until`` the start or the end
  of a named character's turn ("until the start of Kara's next turn"); it ends the
  next time that moment comes, whoever carries it. A turn passed over (its
  combatant cannot act) or skipped by ``round.new`` still passes: what waited for
  its start or end ends. Removing the character waited for ends the wait, and the
  next night carries a wait only when it carries that character too.
* **Initiative every round** (session setting ``reroll_initiative``, off by
  default): when ``turn.next`` or ``round.new`` begins a round after the first,
  everyone in the encounter who can act rolls initiative again; the event carries
  the rolls (``initiative``: {id, value, record}), each logged with its dice, the
  order is sorted again (ties keep their place) and the round starts with its
  first. Round 1 keeps the order rolled when they joined; those who cannot act
  keep their number.
* **Who can act** (RULES.md): the Unconscious and the Dead have no turns —
  ``turn.next`` and ``round.new`` pass over them (``turn.prev`` too, going back),
  unless no combatant can act, and their durations do not tick (they have no turn
  to end) — and they roll for no action: a ``roll`` by one of them is refused,
  and so is a ``roll`` at a Dead target. The GM can still change their state
  (heal, buy off, undo, edit); one brought back above the threshold acts again.
* **Names**: two characters never share a name (case-insensitive), so every list of
  characters is unambiguous; ``character.add`` / ``character.edit`` refuse a taken
  name and suggest a numbered one ("Gospog 2").
* **Strict checks** (who can act, unique names) apply to new events only: a log
  written before them replays as it was written (``Fold.apply(strict=False)``).
* **Combat**: each descriptor with ``wound`` goes to the target (``applies_to``
  "target") or the roller ("attacker"); an untracked receiver gets nothing but the
  roll is logged. What it does besides is what the roll's system declares
  (``HARM``, :mod:`gmdesk.core.systems.harm`), never a system's name: a system whose
  Vitality is hurt by amounts takes a descriptor's ``amount`` off the receiver's
  Vitality (Unconscious at or below its threshold; Dead when an injury reaches its
  death threshold or, where it says so, an injury lands on someone Unconscious —
  for good); every wound descriptor is piled up with the status its system's
  ``statuses`` or ``status_table`` give it (the built-in ``wound-status`` table:
  organic "Fatal Wound" → dead, organic "Mortal Wound", "Incapacitated" and "Near
  Death" → unconscious, for the systems that read it). A session may point a
  status table role at its own table. A descriptor its system names nowhere
  changes no status.
* A roll whose record sets a field its system declares (``Imposed``) imposes that
  condition on a tracked roller (a disconnection: Disconnected).
* **Possibilities**: spent at roll time (the parameter the system's ``Spend``
  names) or after (``possibility.spend``, a system that allows it), only by a
  reality-rated character who has them; an
  untracked roller pays nothing. A cancel costs the canceller one (the spender's
  one is already gone: "both lose one") and must come from someone other than the
  spender. A spend or cancel re-reads a combat roll: its old wounds come off and the
  new record's descriptors go on. Buy-off removes any wound the character carries
  (the GM decides what "just taken" means) and notes it on the roll that caused it.
* A character added with a descriptor sheet takes its Vitality from the sheet's
  Vitality descriptor when there is one (the ``vitality`` field otherwise); Vitality
  changes are written back onto the sheet (a missing Vitality descriptor is written
  with its Default and new Current, the rule for missing descriptors).
* **New day** (``day.new``): every living character's Vitality and sheet Current
  Values return to their Defaults and the wounds that took Vitality (a system's
  whose Vitality is hurt by amounts) are cleared; the Dead stay exactly as they are.
* ``encounter.delay`` moves a combatant to just after the next one; delaying the
  acting combatant passes the turn to the next one without ending any turn.

Modules: ``registry`` (the event types, :class:`Event`, the handler of each type),
``context`` (:class:`Ctx`, what a handler works with, and :class:`EventError`),
``records`` (:class:`Txn`, the inverse of an event, and :func:`revert`), ``fold``
(:class:`Fold`, :func:`replay`), ``checkpoint`` (:func:`fold_checkpoint`,
:func:`fold_from_checkpoint`), the handlers by domain (``session_settings``,
``characters``, ``visibility``, ``encounter``, ``clocks``, ``rolls``) and their helpers (``text``,
``tables``, ``sheets``). Importing this package registers every handler.
"""

# the handler modules register their event types when imported
from gmdesk.core.session.events import (  # noqa: F401
    carry,
    characters,
    clocks,
    counters,
    encounter,
    grouping,
    groups,
    rolls,
    seen,
    session_settings,
    sheet_rows,
    status,
    visibility,
)
from gmdesk.core.session.events.characters import SHEET_VALUE_FIELDS
from gmdesk.core.session.events.checkpoint import (
    CHECKPOINT_VERSION,
    fold_checkpoint,
    fold_fingerprint,
    fold_from_checkpoint,
    system_fingerprint,
)
from gmdesk.core.session.events.context import (
    MAX_FIELD_INT,
    MAX_INITIATIVE,
    MAX_NAME,
    MAX_POSSIBILITIES,
    MAX_ROUNDS,
    MAX_SEGMENTS,
    MAX_TEXT,
    MAX_VITALITY,
    Ctx,
    EventError,
)
from gmdesk.core.session.events.fold import Applied, Fold, replay
from gmdesk.core.session.events.records import Txn, detached_copy, revert, revert_detached
from gmdesk.core.session.events.registry import EVENT_TYPES, HANDLERS, META_FIELDS, Event, Handler, handler
from gmdesk.core.session.events.rolls import roll_refusal
from gmdesk.core.session.events.session_settings import OTHER_KEYS, TIE_RULES
from gmdesk.core.session.events.sheets import (
    sheet_changes,
    sheet_new,
    sheet_new_day,
    sheet_parse,
    sheet_set,
    sheet_set_current,
    sheet_spend_use,
    sheet_vitality,
)
from gmdesk.core.session.events.tables import (
    descriptor_status,
    fits_role,
    own_tables,
    resolve_table,
    session_tables,
    table_change,
    table_roles,
)
from gmdesk.core.session.events.text import initiative_words, num, signed, status_word
from gmdesk.core.session.storage.gcpause import no_gc

__all__ = [
    "EVENT_TYPES",
    "META_FIELDS",
    "MAX_NAME",
    "MAX_TEXT",
    "MAX_VITALITY",
    "MAX_POSSIBILITIES",
    "MAX_ROUNDS",
    "MAX_FIELD_INT",
    "MAX_SEGMENTS",
    "MAX_INITIATIVE",
    "EventError",
    "Event",
    "initiative_words",
    "num",
    "signed",
    "status_word",
    "session_tables",
    "resolve_table",
    "own_tables",
    "fits_role",
    "table_change",
    "table_roles",
    "descriptor_status",
    "sheet_parse",
    "sheet_new",
    "sheet_vitality",
    "sheet_set_current",
    "sheet_spend_use",
    "sheet_new_day",
    "sheet_set",
    "sheet_changes",
    "Txn",
    "revert",
    "detached_copy",
    "revert_detached",
    "Ctx",
    "Handler",
    "HANDLERS",
    "handler",
    "OTHER_KEYS",
    "TIE_RULES",
    "SHEET_VALUE_FIELDS",
    "roll_refusal",
    "Applied",
    "Fold",
    "replay",
    "no_gc",
    "CHECKPOINT_VERSION",
    "fold_fingerprint",
    "system_fingerprint",
    "fold_checkpoint",
    "fold_from_checkpoint",
]
