"""The TinyDB side of the store: the journal engine as a TinyDB ``Storage``, a
``Table`` whose writes append journal lines, and the database class joining them.

The only module of the store that imports :mod:`tinydb`."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tinydb import TinyDB
from tinydb.storages import Storage
from tinydb.table import Table

from gmdesk.core.session.storage.errors import CorruptSaveError
from gmdesk.core.session.storage.format import EVENTS_TABLE, META_TABLE, check_table
from gmdesk.core.session.storage.journal import Change, JournalEngine
from gmdesk.core.session.storage.table import EventTable

__all__ = ["JournalStorage", "JournalTable", "SessionDB"]


class JournalStorage(JournalEngine, Storage):
    """A TinyDB ``Storage`` keeping a session as snapshot + append-only journal
    (:class:`core.session.storage.journal.JournalEngine`).

    ``read()`` returns the in-memory tables (no disk access). Changes go through
    :meth:`commit` (one journal write + fsync per call, O(size of the change));
    ``write(data)`` — used by TinyDB only for whole-database operations such as
    ``drop_table`` — replaces the state by compacting. Constructed by
    :class:`SessionDB`; use :class:`core.session.storage.eventlog.EventLog` rather
    than this class directly.
    """

    def read(self) -> dict[str, dict[str, Any]]:
        """The current tables (a new outer dict; the table dicts are the live cache)."""
        return dict(self._state.tables)

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        """Replace the whole database (TinyDB's drop_table / drop_tables): compacts."""
        with self._mutex:
            self._check_writable()
            old = self._state.tables[EVENTS_TABLE]
            tables: dict[str, Any] = {}
            for name, table in data.items():
                if table is old:  # the events, untouched (TinyDB passes the tables it read back)
                    tables[str(name)] = table
                else:
                    tables[str(name)] = {str(k): v for k, v in table.items()}
            new = tables.get(EVENTS_TABLE, {})
            if new is not old:
                if any(k not in new or new[k] != v for k, v in old.items()):
                    raise ValueError("the event log is append-only: events cannot be removed or dropped")
            for name, table in tables.items():
                try:
                    check_table(self.path, name, table)
                except CorruptSaveError as e:
                    raise ValueError(f"{e.record}: {e.problem}") from None
            if new is not old:
                tables[EVENTS_TABLE] = EventTable.from_docs([new[str(i)] for i in range(1, len(new) + 1)], self.path)
            tables.setdefault(META_TABLE, {})
            self.compact(tables)
            self._maxid.clear()


class JournalTable(Table):
    """A TinyDB ``Table`` whose inserts append one journal line (fsynced) and add the
    document to the in-memory cache, without rebuilding the table.

    ``insert`` / ``insert_multiple`` cost O(size of the new documents) however long
    the table. Every other TinyDB write (``update``, ``remove``, ``upsert``…) works
    too: it runs on a copy of the table and journals only the documents that
    changed (O(table), fine for the small ``meta`` table). Documents are stored as
    their JSON round trip (tuples become lists, non-string keys strings), exactly
    what a reload gives back.
    """

    @property
    def _journal(self) -> JournalStorage:
        """The table's storage: a :class:`JournalTable` lives in a :class:`JournalDB`."""
        storage = self._storage
        if not isinstance(storage, JournalStorage):
            raise TypeError(f"a JournalTable is stored by a JournalStorage (got {type(storage).__name__})")
        return storage

    def insert(self, document: Mapping[str, Any]) -> int:
        """Insert one document; returns its id. Durable when it returns."""
        return self.insert_multiple([document])[0]

    def insert_multiple(self, documents: Iterable[Mapping[str, Any]]) -> list[int]:
        """Insert documents with one journal write and one fsync; returns their ids."""
        storage = self._journal
        with storage._mutex:
            return self._insert_locked(storage, documents)

    def _insert_locked(self, storage: JournalStorage, documents: Iterable[Mapping[str, Any]]) -> list[int]:
        table = storage.read().get(self.name, {})
        next_id = storage.next_id(self.name)
        ids: list[int] = []
        ops: list[Change] = []
        used: set[int] = set()
        for document in documents:
            if not isinstance(document, Mapping):
                raise ValueError("Document is not a Mapping")
            if isinstance(document, self.document_class):
                doc_id = int(document.doc_id)
                if str(doc_id) in table or doc_id in used:
                    raise ValueError(f"Document with ID {doc_id} already exists")
            else:
                doc_id = next_id
            next_id = max(next_id, doc_id + 1)
            used.add(doc_id)
            ids.append(doc_id)
            ops.append(("put", self.name, doc_id, dict(document)))
        storage.commit(ops)
        self.clear_cache()
        return ids

    def _get_next_id(self) -> int:
        return self._journal.next_id(self.name)

    def _update_table(self, updater: Callable[[dict[int, Mapping[str, Any]]], None]) -> None:
        storage = self._journal
        with storage._mutex:
            self._update_locked(storage, updater)

    def _update_locked(self, storage: JournalStorage, updater: Callable[[dict[int, Mapping[str, Any]]], None]) -> None:
        raw = storage.read().get(self.name, {})
        table = {int(k): copy.deepcopy(v) for k, v in raw.items()}
        updater(table)
        ops: list[Change] = []
        gone = [int(k) for k in raw if int(k) not in table]
        if gone:
            ops.append(("del", self.name, gone))
        for doc_id, doc in table.items():
            old = raw.get(str(doc_id))
            if old is None or old != doc:
                ops.append(("put", self.name, doc_id, dict(doc)))
        storage.commit(ops)
        self.clear_cache()


class SessionDB(TinyDB):
    """``tinydb.TinyDB`` with :class:`JournalTable` tables and :class:`JournalStorage`."""

    table_class = JournalTable
    default_table_name = EVENTS_TABLE
    default_storage_class = JournalStorage  # type: ignore[assignment]  # (TinyDB types it as JSONStorage)
