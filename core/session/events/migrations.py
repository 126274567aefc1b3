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

#: system id -> its ``migrate``
Migrations = Mapping[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]]


def record_migrations() -> dict[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]]:
    """The ``migrate`` of every installed system that declares one (none: empty)."""
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.systems import get_spec, system_ids

    out = {}
    for system_id in system_ids():
        try:
            spec = get_spec(system_id)
        except GmdeskError:
            continue
        if spec.migrate is not None:
            out[system_id] = spec.migrate
    return out


def _record(data: Any, migrations: Migrations) -> Any:
    if isinstance(data, Mapping):
        migrate = migrations.get(str(data.get("system")))
        if migrate is not None:
            return dict(migrate(dict(data)))
    return data


def migrate_doc(doc: Mapping[str, Any], migrations: Migrations) -> Mapping[str, Any]:
    """``doc`` (a stored event) with each record it carries (``record``; each of an
    ``initiative.set``'s ``entries``) migrated by its system; ``doc`` itself when
    nothing is to be migrated (it is never changed in place)."""
    if not migrations:
        return doc
    out: dict[str, Any] | None = None
    if "record" in doc:
        record = _record(doc["record"], migrations)
        if record is not doc["record"]:
            out = {**doc, "record": record}
    entries = doc.get("entries")
    if isinstance(entries, list):
        new, changed = [], False
        for e in entries:
            if isinstance(e, Mapping) and "record" in e:
                record = _record(e["record"], migrations)
                if record is not e["record"]:
                    e, changed = {**e, "record": record}, True
            new.append(e)
        if changed:
            out = {**(out or doc), "entries": new}
    return doc if out is None else out
