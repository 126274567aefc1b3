"""Compaction: the writer's whole state written as a new snapshot, then a fresh
journal swapped in (each step a whole file published atomically, so that a crash
anywhere loses nothing acknowledged and applies nothing twice), on its own when the
journal grows long and at close; and the checks that the files are still the ones
this writer locked and wrote before anything is replaced."""

from __future__ import annotations

import os

from gmdesk.core.session.lock import journal_identity
from gmdesk.core.session.storage import atomic
from gmdesk.core.session.storage.codec import dumps
from gmdesk.core.session.storage.errors import (
    CorruptSaveError,
    SessionChangedError,
    StoreReadError,
    StoreWriteError,
)
from gmdesk.core.session.storage.format import EVENTS_TABLE, JOURNAL_VERSION, Tables, snapshot_stream
from gmdesk.core.session.storage.reader import ReaderEngine
from gmdesk.core.session.storage.region import SnapshotFile
from gmdesk.core.session.storage.table import EventTable

__all__ = ["COMPACT_GROWTH", "CompactingEngine"]

#: ... or, in a long session, at one line for every this many events (whichever is
#: more): each compaction rewrites the whole snapshot, so compacting every
#: ``COMPACT_AT`` lines would cost I/O quadratic in the history (a million rolls: 200
#: rewrites of a snapshot growing to a gigabyte); letting the journal grow with the
#: snapshot keeps the total linear (about ``COMPACT_GROWTH + 1`` times the final
#: snapshot), while the journal an open reads after a crash stays an eighth of the log.
COMPACT_GROWTH = 8


def _unlinked(fd: int) -> bool:
    """Whether the file open as ``fd`` has no name left on disk (deleted, or renamed over)."""
    try:
        return os.fstat(fd).st_nlink == 0
    except OSError:
        return False


class CompactingEngine(ReaderEngine):
    """What a writer does to keep its files short: :meth:`compact` and the journal
    it swaps in (see :class:`core.session.storage.journal.JournalEngine`)."""

    def _check_writable(self) -> None:
        if self.readonly:
            raise StoreWriteError(f"{self.path}: opened read-only; nothing was saved")
        if self._closed:
            raise StoreWriteError(f"{self.path}: the session is closed; nothing was saved")
        if self._broken:
            raise (SessionChangedError if self._changed else StoreWriteError)(self._broken)

    def _auto_compact(self) -> None:
        """Compact because the journal is long. An append has already been acknowledged,
        so a failure here is only reported — once (``warnings`` and ``notices``), not at
        every retry — and retried a while later; a later success says so."""
        try:
            self.compact()
        except StoreWriteError as e:
            if not self._compact_failing:
                self._compact_failing = True
                note = (
                    f"could not compact the session (it stays safe in its journal, which keeps "
                    f"growing; will retry): {e}"
                )
                self.warnings.append(note)
                self.notices.append(note)
            self._next_auto = self._jlines + self._compact_threshold()
        else:
            if self._compact_failing:
                self._compact_failing = False
                self.notices.append(f"{self.path.name}: compacting works again")

    def _compact_threshold(self) -> int:
        """Journal lines at which to compact next: ``compact_at``, or in a long session
        an eighth of its events (see COMPACT_GROWTH)."""
        return max(self.compact_at, len(self._state.tables.get(EVENTS_TABLE, ())) // COMPACT_GROWTH)

    def _swap_journal(self) -> None:
        """Put a fresh journal (base = current lsn) in place and append to it from now on."""
        head = dumps({"gmdesk_journal": JOURNAL_VERSION, "base": self._state.lsn}) + "\n"
        data = head.encode("utf-8")
        got: list[int] = []
        lock = self._lock
        try:
            atomic.publish(
                self.paths["journal_tmp"],
                self.paths["journal"],
                data,
                overwrite=True,
                keep=got.append,
                hold=lock.add_journal_file if lock is not None else None,
            )
        finally:
            if lock is not None:
                lock.prune_session_files()
            # even when a later step failed (or was interrupted): once the new journal
            # has the name, it is the one to append to
            for fd in got:
                if atomic.same_file(fd, self.paths["journal"]):
                    old, self._fd = self._fd, fd
                    if old is not None:
                        os.close(old)
                    self._open_reader()
                    self._note_journal(fd)
                    if lock is not None:
                        lock.record_saved(self._jident, self._state.lsn)
                    self._jsize = len(data)
                    self._jlines = 0
                    self._next_auto = self._compact_threshold()
                else:
                    os.close(fd)

    def _open_reader(self) -> None:
        """Open the writer's journal for reading too (the events it appends are read
        back from it when asked for; see :meth:`EventTable.append_at`). Kept open
        after close: what was saved stays readable while the session object lives."""
        if self._rfile is not None:
            self._rfile.close()
            self._rfile = None
        fd = os.open(self.paths["journal"], os.O_RDONLY | os.O_CLOEXEC)
        assert self._fd is not None
        a, b = os.fstat(fd), os.fstat(self._fd)
        if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):  # pragma: no cover - we hold the lock
            os.close(fd)
            raise StoreReadError(f"{self.paths['journal']}: replaced by another program")
        self._rfile = SnapshotFile(fd, self.paths["journal"])
        events = self._state.tables[EVENTS_TABLE]
        if isinstance(events, EventTable):
            events.reads_journal(self._read_journal)

    def _read_journal(self, offset: int, length: int) -> bytes:
        if self._rfile is None:  # pragma: no cover - set before any event is appended
            raise StoreReadError(f"{self.paths['journal']}: not open")
        return self._rfile.read(offset, offset + length)

    def _check_own_files(self) -> None:
        """Before a compaction replaces the files: they must still be the ones this
        writer locked and wrote (no other program replaced the session file or
        appended to the journal). Otherwise nothing is rewritten and the session
        refuses further writes: a compaction never discards records it did not write."""
        problem = None
        lost = False  # what this writer saved is no longer on disk under any name
        if self._lock is None or not self._lock.holds_session_file():
            lost = self._lock is None or not self._lock.session_file_linked()
            if not os.path.lexists(self.path):
                how = "deleted" if lost else "moved away"
            else:
                how = "replaced" if lost else "replaced (the file it held was kept under another name)"
            problem = f"{self.path.name} was {how} by another program"
        elif self._fd is not None:
            # (whether the journal it appends to is gone from disk is asked only once a
            # change is seen: a commit looks at each of the session's files once)
            try:
                cur = os.stat(self._journal_name)
            except OSError:
                lost = _unlinked(self._fd)
                problem = f"{self.paths['journal'].name} was {'deleted' if lost else 'moved away'} by another program"
            else:
                if (cur.st_dev, cur.st_ino) != self._jinode:
                    lost = _unlinked(self._fd)
                    problem = f"{self.paths['journal'].name} was replaced by another program"
                elif cur.st_size != self._jsize:  # (the size of the very file this writer appends to)
                    problem = f"{self.paths['journal'].name} was written by another program"
        if problem:
            self._broken_head = f"{self.path}: the session was changed on disk: {problem} while this gmdesk had it open"
            self._changed = True
            self._lost = lost
            self._broken = self._changed_text(
                # what this writer saved lives on only in the files it holds open: the
                # session (:mod:`core.session.rescue`) keeps it as a new session, then says where
                "everything saved before is only in this open gmdesk"
                if lost
                else "everything saved before is kept (close it, then `gmdesk check` the session)"
            )
            raise SessionChangedError(self._broken)

    def _changed_text(self, kept: str) -> str:
        return f"{self._broken_head}; nothing more is saved here, {kept}"

    def kept_elsewhere(self, where: str | None, failed: str = "") -> None:
        """What this writer had saved, lost on disk, was written again as a new
        session at ``where`` (:mod:`core.session.rescue`), or could not be
        (``failed``; tried again at the next change or at close): say so."""
        if not (self._broken and self._lost):
            return
        if where is not None:
            self._lost = False
            self._broken = self._changed_text(
                f"everything saved before is kept as {where} (close it and play on there)"
            )
        else:
            self._broken = self._changed_text(
                f"everything saved before is only in this open gmdesk: it could not be kept as a new session "
                f"({failed}); keep it open, make room, and it tries again at the next change or when closed"
            )

    def _note_journal(self, fd: int) -> None:
        """Remember which file the journal descriptor ``fd`` is, for the lock file and
        for :meth:`_check_own_files` (an open descriptor's file never changes)."""
        st = os.fstat(fd)
        self._jinode = (st.st_dev, st.st_ino)
        self._jident = journal_identity(st)

    def compact(self, tables: Tables | None = None) -> None:
        """Write the whole state as a new snapshot, then start an empty journal.

        Order: snapshot temp → fsync → rename over the snapshot → fsync dir → journal
        temp → fsync → rename over the journal → fsync dir. A crash anywhere loses
        nothing acknowledged; a failure raises StoreWriteError and leaves the
        previous files in use."""
        with self._mutex:
            self._check_writable()
            self._check_own_files()
            lock = self._lock
            assert lock is not None  # (_check_own_files refuses a writer without its lock)
            stream = snapshot_stream(self._state, tables)
            try:
                atomic.publish(
                    self.paths["snapshot_tmp"],
                    self.path,
                    stream.parts(),
                    overwrite=True,
                    hold=lock.add_session_file,
                    head=stream.head,
                )
            except OSError as e:
                raise atomic.write_error(self.path, e, "compact the session") from None
            except CorruptSaveError as e:
                # the events saved before are not what gmdesk wrote: never copied into
                # a new snapshot under a new checksum (the journal keeps everything new)
                raise StoreWriteError(
                    f"{self.path}: could not compact the session: {e.record}: {e.problem}; everything "
                    f"saved since is safe in its journal (`gmdesk check` the session)"
                ) from None
            finally:
                lock.prune_session_files()
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError as e:
                # (the old files stay in use: the new snapshot holds nothing they lack)
                raise atomic.write_error(self.path, e, "read back the compacted session") from None
            old = self._state.tables[EVENTS_TABLE]
            if tables is not None:
                self._state.tables = tables
            events = self._state.tables[EVENTS_TABLE]
            events.rebase(SnapshotFile(fd, self.path), stream.start, stream.start + stream.length, stream.writer)
            events.reads_journal(self._read_journal)
            if old is not events:
                old.close()
            try:
                self._swap_journal()
            except OSError as e:
                # the new snapshot holds everything; the old journal (all lines <= lsn)
                # stays valid and in use
                raise atomic.write_error(self.paths["journal"], e, "start a new journal") from None

    def compact_for_close(self) -> None:
        """What :meth:`close` does first (writer, ``compact_on_close``, a journal with
        records): compact, a failure only reported in ``warnings``. Called before
        close by whoever saves a cache of the whole log then (the session's
        checkpoint: its digest of the events is then the one the snapshot records)."""
        with self._mutex:
            if (
                not self._closed
                and not self.readonly
                and self.compact_on_close
                and self._jlines > 0
                and self._fd is not None
                and not self._broken
            ):
                try:
                    self.compact()
                except StoreWriteError as e:
                    self.warnings.append(f"could not compact on close: {e}")
