"""``gmdesk roll … --save``: rolls filled from a session, appended to it and printed.

``gmdesk roll SYSTEM … --save SAVE [--as CHARACTER] [--at TARGET]``: each roll's
parameters are filled from the session as the roll dialog fills them; the session is
held as its writer, and each roll is printed once it is durable."""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from gmdesk.cli.common import session_store
from gmdesk.cli.log import event_text
from gmdesk.core.dice import RollRecord
from gmdesk.core.results import saved

if TYPE_CHECKING:
    from gmdesk.core.dice import RandomSource
    from gmdesk.core.session.events import Event
    from gmdesk.core.session.model import Character, State
    from gmdesk.core.session.params import SystemRef
    from gmdesk.core.session.session import Session
    from gmdesk.core.tables import TableSet


def stream_rolls(
    ns: Any,
    system_module: SystemRef,
    params: Any,
    rng: RandomSource,
    count: int,
    *,
    tables: TableSet | None = None,
    given: Collection[str] | None = None,
) -> None:
    """``gmdesk roll SYSTEM … --save SAVE [--as CHARACTER] [--at TARGET] [--count N]``:
    roll, append to the session and print, one roll at a time (the first line is out
    after the first roll, whatever N; nothing is kept but the session itself).

    The session is opened as its writer before the first die is rolled and held to
    the last, so a second writer (the desk, another ``gmdesk roll --save``) is refused
    from the first roll on. The parameters are filled exactly as the roll dialog fills
    them (:mod:`core.session.params`: the characters' fields — already in ``ns``, see
    :func:`session_options` —, the roller's active sources and conditions, the
    session's settings, the tracked kinds); ``given`` names the options typed on the
    command line, which win. Each roll is printed only once it is durable (its JSON
    line with ``--json``, else the logged summary and what it changed). ``tables``:
    the ``--table`` overrides, else the session's own tables. Where a value came from
    goes on the record (``from``).

    ``--as`` / ``--at`` name characters of the session (name or id); a combat roll
    applies its descriptors to them. Raises GmdeskError (one line) on any problem;
    rolls printed before an error are saved."""
    from gmdesk.core.session.session import Session
    from gmdesk.core.systems import spec_of

    system = spec_of(system_module)  # (resolved once for every roll of the run)
    path = session_store(ns).resolve(ns.save)
    with Session.open(path) as session:
        actor = session.character_or_member(ns.actor, "actor").id if getattr(ns, "actor", None) else None
        target = session.character_or_member(ns.target, "target").id if getattr(ns, "target", None) else None
        combat = bool(getattr(params, "combat", False))
        as_json = bool(getattr(ns, "json", False))
        typed_from = dict(getattr(ns, "roll_from", None) or {})
        read = frozenset(getattr(ns, "roll_read", None) or ())  # read from the sheets already
        out = sys.stdout
        rolled = 0
        unnamed = _Unnamed(session, system, params, combat, given, read)
        for _ in range(count):
            # filled afresh for each roll: what a roll changed (a torg condition, a spent
            # use) counts for the next one, as it would in the dialog
            state = session.state  # (the one State a session folds into, read once a roll)
            chars = state.characters
            who = chars.get(actor) if actor is not None else None
            at = chars.get(target) if target is not None else None
            if who is None and at is None:
                filled, origins = unnamed.filled(state)
            else:
                filled, origins = _filled(session, system, params, who, at, combat, given, read)
            event = session.roll(
                system,
                filled,
                actor=actor,
                target=target,
                combat=combat,
                rng=rng,
                fill=False,
                tables=tables,
                origins={**typed_from, **origins},
            )
            rolled += 1
            saved("roll", f"{rolled} roll{'s' if rolled != 1 else ''} to {state.info.name}")
            if as_json:
                out.write(json.dumps(event.data["record"], ensure_ascii=False) + "\n")
            else:
                out.write("\n".join(event_text(event, _folded_record(state, event))) + "\n")
            out.flush()


class _Unnamed:
    """:func:`_filled` for a roll that names no character (no ``--as``, no ``--at``):
    then what is filled is read from the session's settings and the items its sheets
    list only (the rest of the call is the same each roll), so it is filled again
    only when either changed since the last roll."""

    def __init__(
        self,
        session: Session,
        system_module: SystemRef,
        params: Any,
        combat: bool,
        given: Collection[str] | None,
        read: frozenset[str],
    ) -> None:
        self._args = (session, system_module, params, combat, given, read)
        self._key: tuple[dict[str, Any], frozenset[str]] | None = None
        self._filled: tuple[Any, dict[str, str]] = (params, {})

    def filled(self, state: State | None = None) -> tuple[Any, dict[str, str]]:
        """``state``: the session's, when the caller holds it."""
        session, system_module, params, combat, given, read = self._args
        settings = (session.state if state is None else state).info.settings
        items = session.sheet_items()
        key = self._key
        # (equal settings are the same settings: each is changed only as its declaration
        # parses it, a value of one type; the copy compared is the session's as filled)
        if key is None or settings != key[0] or items != key[1]:
            self._filled = _filled(session, system_module, params, None, None, combat, given, read)
            self._key = (copy.deepcopy(settings), items)
        filled, origins = self._filled
        return filled, dict(origins)


def _folded_record(state: State, event: Event) -> RollRecord | None:
    """The record of the roll ``event`` as the session folded it into ``state`` (equal
    to the one its JSON reads as, and already told in its summary: its line is drawn
    once), or None."""
    rolls = state.rolls
    entry = rolls[-1] if rolls else None
    if entry is None or entry.seq != event.seq or entry.kind != "roll" or type(entry.record) is not RollRecord:
        return None
    return entry.record


#: the prefix the generated command line gives an option's destination (if any)
_DEST_PREFIXES = ("param:", "")


def _dest(ns: Any, name: str) -> str | None:
    for prefix in _DEST_PREFIXES:
        if hasattr(ns, prefix + name):
            return prefix + name
    return None


def session_options(ns: Any, system_module: Any, saves: Any = None) -> None:
    """``gmdesk roll SYSTEM … --save SAVE --as A --at T``, before its options are
    read: a stat name typed for a number (``--skill "Fire Combat"``) becomes the
    roller's (or, for a parameter the target's field feeds, the target's) value, and
    every option not typed that the characters' fields fill is filled from them
    (``--difficulty`` from the target's Dodge…). What was typed wins. Where each came
    from is kept in ``ns.roll_from`` for the record. Reads the session only; a name
    the character lacks is a ParamError naming the option."""
    from gmdesk.core.errors import ParamError
    from gmdesk.core.session.params import field_defaults, resolve_names
    from gmdesk.core.session.session import Session
    from gmdesk.core.systems import spec_of

    if getattr(ns, "save", None) is None or not (getattr(ns, "actor", None) or getattr(ns, "target", None)):
        return
    if saves is not None and getattr(ns, "saves", None) is None:
        ns.saves = saves
    spec = spec_of(system_module)
    path = session_store(ns).resolve(ns.save)
    with Session.open(path, readonly=True) as session:
        actor = session.character_or_member(ns.actor, "actor") if getattr(ns, "actor", None) else None
        target = session.character_or_member(ns.target, "target") if getattr(ns, "target", None) else None
        typed: dict[str, Any] = {}
        for p in spec.params:
            dest = _dest(ns, p.name)
            if dest is not None and getattr(ns, dest) not in (None, False):
                typed[p.name] = getattr(ns, dest)
        try:
            data, origins = resolve_names(spec, typed, actor, target)
        except ParamError as e:
            param = next((p for p in spec.params if p.label == e.option), None)
            option = param.cli_option if param is not None else e.option
            raise ParamError(option, e.message) from None
        combat = bool(getattr(ns, _dest(ns, "combat") or "combat", False))
        filled = set()
        replaced = spec.replaced_by(typed)  # a typed value stands in for these: nothing filled
        for name, (value, origin) in field_defaults(spec, actor, target, combat).items():
            if name not in data and name not in replaced and _dest(ns, name) is not None:
                data[name] = value
                origins[name] = origin
                filled.add(name)
        read = spec.read_filled
        if read is not None and filled:
            data = read(data, filled, actor, target, **spec.offered("read_filled", items=session.sheet_items()))
        for name, value in data.items():
            dest = _dest(ns, name)
            if dest is not None and value is not typed.get(name):
                setattr(ns, dest, value if isinstance(value, (bool, str)) else str(value))
        ns.roll_from = origins
        ns.roll_read = frozenset(filled)


def session_params(ns: Any, system_module: SystemRef, params: Any, given: Collection[str] | None = None) -> Any:
    """The roll parameters with what the session knows filled in, for ``gmdesk roll
    … --save SAVE --as A --at T`` (see :mod:`core.session.params`, the code path the
    roll dialog shares; ``given``: the options typed, which win). Reads the session
    only."""
    from gmdesk.core.session.session import Session

    path = session_store(ns).resolve(ns.save)
    with Session.open(path, readonly=True) as session:
        actor = session.character_or_member(ns.actor, "actor") if getattr(ns, "actor", None) else None
        target = session.character_or_member(ns.target, "target") if getattr(ns, "target", None) else None
        session.check_roll(actor, target)  # an Unconscious / Dead roller, a Dead target: refused before rolling
        combat = bool(getattr(params, "combat", False))
        return _filled(session, system_module, params, actor, target, combat, given)[0]


def _filled(
    session: Session,
    system_module: SystemRef,
    params: Any,
    actor: Character | None,
    target: Character | None,
    combat: bool,
    given: Collection[str] | None,
    read: frozenset[str] = frozenset(),
) -> tuple[Any, dict[str, str]]:
    """What the session knows filled in (core.session.params) and where it came from,
    then what the system reads of the options on the characters (its ``read_sheets``:
    1d6x4 the descriptors named by --test / --vs-test on their sheets; ``read``: the
    parameters whose names were read already)."""
    params, origins = session.fill_params_from(system_module, params, actor, target, combat, given)
    from gmdesk.core.systems import spec_of

    spec = spec_of(system_module)
    if spec.read_sheets is not None:  # (offered ``items`` only if it takes it)
        items = spec.offered("read_sheets", items=session.sheet_items())
        params = spec.read_sheets(params, actor, target, read, **items)
    return params, origins
