"""Per-system record migrations on read: each roll record an event carries, read
back from a save, as its system reads records now (the system's declared
``migrate``, :mod:`core.systems.spec`).

A system that changes what its records hold (a parameter renamed, an outcome
worded anew) declares ``migrate(record) -> record``; every record of that system
in a save — a roll's, a heal's, an initiative roll's — goes through it as the log
is folded, so a save written by an earlier version of the system keeps opening
and reads as today's. Nothing is written back: the log on disk stays as it was
written. A migration must leave a current record as it is (it is also given
records the current version wrote).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: a system's ``migrate``
Migrate = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def migrator() -> Callable[[str], Migrate | None]:
    """System id → its ``migrate`` (None: it declares none, or is not installed),
    each system looked up once: a save's records are nearly all of its own system,
    whose declaration is loaded already, so reading back costs no other system's."""
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.systems import get_spec

    known: dict[str, Migrate | None] = {}

    def migrate_of(system_id: str) -> Migrate | None:
        if system_id not in known:
            try:
                known[system_id] = get_spec(system_id).migrate
            except GmdeskError:
                known[system_id] = None
        return known[system_id]

    return migrate_of


def plugins_migrate() -> bool:
    """Whether an installed plug-in declares a migration (they are all loaded once
    the installed systems are listed). A built-in's is covered by the checkpoint's
    fingerprint, which changes with the built-ins' source."""
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.systems import BUILTIN_IDS, get_spec, system_ids

    for system_id in system_ids():
        if system_id in BUILTIN_IDS:
            continue
        try:
            if get_spec(system_id).migrate is not None:
                return True
        except GmdeskError:
            continue
    return False


def _record(data: Any, migrate_of: Callable[[str], Migrate | None]) -> Any:
    if isinstance(data, Mapping):
        system = data.get("system")
        migrate = migrate_of(system) if isinstance(system, str) else None
        if migrate is not None:
            return dict(migrate(dict(data)))
    return data


def migrate_doc(doc: Mapping[str, Any], migrate_of: Callable[[str], Migrate | None]) -> Mapping[str, Any]:
    """``doc`` (a stored event) with each record it carries (``record``; each of an
    ``initiative.set``'s ``entries``, of a round's ``initiative`` rolled again, of
    its ties' roll-offs) migrated by its system (``migrate_of``, see
    :func:`migrator`); ``doc`` itself when nothing is to be migrated (it is never
    changed in place)."""
    out: dict[str, Any] | None = None
    if "record" in doc:
        record = _record(doc["record"], migrate_of)
        if record is not doc["record"]:
            out = {**doc, "record": record}
    for key in ("entries", "initiative"):
        entries = doc.get(key)
        if isinstance(entries, list):
            new, changed = [], False
            for e in entries:
                if isinstance(e, Mapping) and "record" in e:
                    record = _record(e["record"], migrate_of)
                    if record is not e["record"]:
                        e, changed = {**e, "record": record}, True
                new.append(e)
            if changed:
                out = {**(out or doc), key: new}
    ties = doc.get("ties")
    if isinstance(ties, list):
        runs = [_tie_run(run, migrate_of) for run in ties]
        if any(a is not b for a, b in zip(runs, ties, strict=True)):
            out = {**(out or doc), "ties": runs}
    return doc if out is None else out


def _tie_run(run: Any, migrate_of: Callable[[str], Migrate | None]) -> Any:
    """A tie of an event's ``ties`` with its roll-offs' records migrated (itself when
    none is)."""
    rolls = run.get("rolls") if isinstance(run, Mapping) else None
    if not isinstance(rolls, list):
        return run
    changed = False
    again: list[Any] = []
    for rolled in rolls:
        if not isinstance(rolled, list):
            again.append(rolled)
            continue
        moved = []
        for e in rolled:
            if isinstance(e, Mapping) and "record" in e:
                record = _record(e["record"], migrate_of)
                if record is not e["record"]:
                    e, changed = {**e, "record": record}, True
            moved.append(e)
        again.append(moved)
    return {**run, "rolls": again} if changed else run
