"""The durable session store: a TinyDB database kept as a snapshot plus an append-only journal.

One session is one logical TinyDB database with the tables ``events`` (``doc_id`` =
the event's seq, 1-based and dense) and ``meta`` (small view state, one
``{"key": …, "value": …}`` document per key). On disk it is a small family of
files that belong together (pass the first one around; the others follow it):

``<name>.gmdesk``            the **snapshot**: one JSON object, the stock TinyDB
                             layout (``{"events": {"1": {…}, …}, "meta": {…}}``)
                             plus a ``"_gmdesk"`` record ``{"format": "gmdesk-session",
                             "schema": 1, "lsn": N, "count": E, "header": {…},
                             "events_bytes": L, "events_sha256": H}`` on the first
                             line, then one event per line. Only ever replaced whole
                             (temp file, fsync, rename, fsync dir). ``L`` and ``H``
                             (length and SHA-256 of the events' bytes) let an open
                             check the events without parsing them: each event is
                             parsed when first asked for (a snapshot without them, or
                             whose events do not match them, is parsed whole as before).
``<name>.gmdesk.journal``    the **journal**: JSON lines. Line 1 is
                             ``{"gmdesk_journal": 1, "base": B}``; every other line is
                             one change, numbered by ``n`` (the log sequence number,
                             counting every change: events, meta, header)::

                                 {"n":17,"op":"put","tb":"events","id":12,"set":{"rolls":9},"doc":{…}}
                                 {"n":18,"op":"put","tb":"meta","id":1,"doc":{"key":"sel","value":"c3"}}
                                 {"n":19,"op":"hdr","set":{"name":"Night at the docks"}}
                                 {"n":20,"op":"del","tb":"meta","ids":[1]}

                             (a put's optional ``set``: header changes made with it, in
                             the same record; journal format 3 — format 2 wrote them
                             as an ``hdr`` record of their own, still read)

                             Lines are only ever appended (one ``write`` + ``fsync`` per
                             change or batch); a write that fails is cut back off.
``<name>.gmdesk.lock``       the writer lock (see :mod:`core.session.lock`).
``<name>.gmdesk.tmp``, ``<name>.gmdesk.journal.tmp``
                             compaction's temp files (only while it runs; a crash may
                             leave them, the next writer removes them).
``<name>.gmdesk.v0.bak``     the untouched original of a session upgraded from an
                             older format (``.v0.1.bak``… if that name is taken).
``<name>.gmdesk.ckpt``       a **checkpoint**: a cache a writer saves beside the log (the
                             session keeps its folded state there, see
                             :meth:`EventLog.write_checkpoint`); a JSON head line with
                             its own SHA-256, then the body. Never needed: a missing,
                             damaged or stale one is ignored.

Loading reads the snapshot (state up to ``lsn``), then the journal lines with
``n > lsn`` in order. **Compaction** writes the whole state as a new snapshot
(temp file in the same directory, fsync, ``os.replace``, fsync the directory) and
only then swaps in a fresh journal with ``base = lsn`` the same way. A crash at any
point leaves either the old snapshot with the full old journal, or the new snapshot
with the old journal (whose lines are all ``<= lsn`` and are skipped), or the new
pair: nothing acknowledged is lost and nothing is applied twice.

Readers (``readonly=True``) never lock and never write. They read the snapshot,
then the journal; a journal whose ``base`` lies beyond the snapshot they read
means the writer compacted in between, so they read again. They follow a live
writer by reading only the journal bytes added since last time, and reload from
scratch when the writer has swapped files.

All files are created with mode 0600. Stdlib :mod:`json` only.

Modules, one job each (lower ones never import higher ones):

``errors``          the store's errors
``gcpause``         :func:`no_gc`, the cyclic GC paused while many objects are made
``codec``           JSON text as the store writes it
``checksums``       CRC-32 of the snapshot's event blocks and of each journal record
``atomic``          whole writes, fsync, publishing a file under its final name
``paths``           the names of a session's files
``table``           the lazy event table (events parsed when first asked for)
``format``          the layout: versions, names, :class:`State`, the record's checks,
                    the snapshot's bytes as written
``snapshot_open``   reading a snapshot: parsed whole, checked whole, or opened lazily
``migrations``      upgrading a snapshot of an older format
``recovery``        loading snapshot + journal (damage found and named), :func:`peek`
``reader``          the state in memory; a reader following a live writer
``compaction``      a new snapshot and a fresh journal swapped in
``journal``         the journal engine: opening, the writer's commit path
``tinydb_adapter``  the engine as a TinyDB ``Storage`` (the only module importing tinydb)
``eventlog``        :class:`EventLog`, what the rest of gmdesk uses
"""

from gmdesk.core.session.lock import LockedError
from gmdesk.core.session.storage.checksums import BLOCK_EVENTS
from gmdesk.core.session.storage.errors import (
    CorruptSaveError,
    FutureVersionError,
    SessionExistsError,
    SessionMissingError,
    StoreError,
    StoreReadError,
    StoreWriteError,
)
from gmdesk.core.session.storage.eventlog import EventLog
from gmdesk.core.session.storage.format import (
    EVENTS_TABLE,
    FORMAT_TAG,
    JOURNAL_VERSION,
    META_TABLE,
    SCHEMA_VERSION,
    SYSTEM_KEY,
)
from gmdesk.core.session.storage.gcpause import no_gc
from gmdesk.core.session.storage.journal import COMPACT_AT
from gmdesk.core.session.storage.migrations import MIGRATIONS
from gmdesk.core.session.storage.paths import session_files, sidecar_paths
from gmdesk.core.session.storage.recovery import peek
from gmdesk.core.session.storage.tinydb_adapter import JournalStorage, JournalTable, SessionDB

__all__ = [
    "FORMAT_TAG",
    "SCHEMA_VERSION",
    "JOURNAL_VERSION",
    "BLOCK_EVENTS",
    "SYSTEM_KEY",
    "COMPACT_AT",
    "EVENTS_TABLE",
    "META_TABLE",
    "EventLog",
    "SessionDB",
    "JournalStorage",
    "JournalTable",
    "StoreError",
    "CorruptSaveError",
    "FutureVersionError",
    "StoreWriteError",
    "StoreReadError",
    "SessionExistsError",
    "SessionMissingError",
    "LockedError",
    "sidecar_paths",
    "session_files",
    "peek",
    "no_gc",
    "MIGRATIONS",
]
