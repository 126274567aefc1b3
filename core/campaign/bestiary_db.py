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

    def __init__(self, data: dict[str, Any], on_write: Callable[[dict[str, Any]], None] | None = None):
        self.db = TinyDB(storage=_HeldStorage, data=data, on_write=on_write)
        self.table = self.db.table(TABLE, cache_size=0)

    def all(self) -> list[dict[str, Any]]:
        return [dict(d) for d in self.table.all()]

    def search(self, system: str | None = None, tag: str | None = None, text: str | None = None) -> list[dict]:
        """The stat blocks of ``system``, carrying ``tag`` (case-insensitive), whose name
        holds ``text`` (case-insensitive); every one when nothing is asked."""
        q = Query()
        cond: Any = None

        def both(a: Any, b: Any) -> Any:
            return b if a is None else a & b

        if system:
            cond = both(cond, q.system == system)
        if tag:
            key = tag.casefold()
            cond = both(cond, q.tags.test(lambda tags: any(str(t).casefold() == key for t in tags or ())))
        if text:
            needle = text.casefold()
            cond = both(cond, q.name.test(lambda name: needle in str(name).casefold()))
        docs = self.table.all() if cond is None else self.table.search(cond)
        return [dict(d) for d in docs]

    def named(self, name: str, system: str | None = None) -> list[tuple[int, dict[str, Any]]]:
        """(doc id, stat block) of every one called ``name`` (case-insensitive), of
        ``system`` when given."""
        key = name.strip().casefold()
        q = Query()
        cond = q.name.test(lambda n: str(n).strip().casefold() == key)
        if system:
            cond = cond & (q.system == system)
        return [(d.doc_id, dict(d)) for d in self.table.search(cond)]

    def insert_many(self, docs: Iterable[Mapping[str, Any]]) -> list[int]:
        return self.table.insert_multiple([dict(d) for d in docs])

    def remove_ids(self, ids: Iterable[int]) -> None:
        ids = list(ids)
        if ids:
            self.table.remove(doc_ids=ids)
