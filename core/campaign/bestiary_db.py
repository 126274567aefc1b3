"""The bestiary's TinyDB side: one TinyDB database (the ``stat_blocks`` table) kept in
memory over a JSON file that is only ever replaced whole (temp file, fsync,
rename: :func:`core.session.storage.atomic.publish`), and the searches, made with
TinyDB's own ``Query``.

The only module of the bestiary that imports :mod:`tinydb`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tinydb import Query, TinyDB
from tinydb.storages import Storage

__all__ = ["TABLE", "BestiaryDB"]

#: the table holding the stat blocks (one document each)
TABLE = "stat_blocks"


class _HeldStorage(Storage):
    """A TinyDB ``Storage`` over data already read (and checked) by the caller:
    ``read`` hands it back, ``write`` keeps the new data and tells ``on_write``
    (which publishes it atomically, or collects it for one write at the end)."""

    def __init__(self, data: dict[str, Any], on_write: Callable[[dict[str, Any]], None] | None = None):
        self._data = data
        self._on_write = on_write

    def read(self) -> dict[str, Any]:
        return self._data

    def write(self, data: dict[str, Any]) -> None:
        if self._on_write is None:
            raise PermissionError("the bestiary is open read-only")
        self._data = data
        self._on_write(data)


class BestiaryDB:
    """The stat blocks as a TinyDB table. ``data``: the whole file's JSON, checked;
    ``on_write``: called with the whole new data after every change (None: read-only)."""

    def __init__(
        self, data: dict[str, Any], on_write: Callable[[dict[str, Any]], None] | None = None, source: str = ""
    ):
        #: the file it was read from (for what a message names)
        self.source = source
        self.db = TinyDB(storage=_HeldStorage, data=data, on_write=on_write)
        self.table = self.db.table(TABLE, cache_size=0)

    def all(self) -> list[dict[str, Any]]:
        return [dict(d) for d in self.table.all()]

    def search(
        self, system: str | None = None, tag: str | None = None, text: str | None = None
    ) -> list[dict[str, Any]]:
        """The stat blocks of ``system``, carrying ``tag`` (case-insensitive), whose name
        holds ``text`` (case-insensitive); every one when nothing is asked."""
        if not (system or tag or text):
            return list(self.table.all())
        # one test of the whole stat block (``Query().map``) rather than three joined
        # with ``&``: each test TinyDB runs costs a few calls per stat block, and a
        # search as the GM types runs over every one of thousands
        want, key, needle = system or None, (tag or "").casefold(), (text or "").casefold()
        cond = Query().map(_whole).test(lambda doc: _matches(doc, want, key, needle))
        return list(self.table.search(cond))

    def named(self, name: str, system: str | None = None) -> list[tuple[int, dict[str, Any]]]:
        """(doc id, stat block) of every one called ``name`` (case-insensitive), of
        ``system`` when given."""
        q = Query()
        cond = q.name.test(_called, name.strip().casefold())
        if system:
            cond = (q.system == system) & cond
        return [(d.doc_id, dict(d)) for d in self.table.search(cond)]

    def insert_many(self, docs: Iterable[Mapping[str, Any]]) -> list[int]:
        return self.table.insert_multiple([dict(d) for d in docs])

    def remove_ids(self, ids: Iterable[int]) -> None:
        ids = list(ids)
        if ids:
            self.table.remove(doc_ids=ids)


def _whole(doc: Any) -> Any:
    return doc


def _matches(doc: Mapping[str, Any], system: str | None, tag: str, needle: str) -> bool:
    """Of ``system``, its name holding ``needle``, carrying ``tag`` (all casefolded;
    empty: any), the cheapest test first."""
    if system is not None and doc["system"] != system:
        return False
    if needle and needle not in doc["name"].casefold():
        return False
    if tag:
        return any(t.casefold() == tag for t in doc.get("tags") or ())
    return True


def _called(name: Any, key: str) -> bool:
    return isinstance(name, str) and name.strip().casefold() == key
