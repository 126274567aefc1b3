"""The one-writer lock of a session: ``fcntl.flock`` on a separate lock file.

A session file may be open for writing in one gmdesk at a time. The writer holds an
exclusive, non-blocking ``flock`` on ``<session>.lock`` for as long as the session is
open; read-only followers never touch it. After taking the lock the writer writes
``{"pid": …, "host": …, "since": …}`` into the file so that a second writer can say
who has the session. The kernel drops a ``flock`` when the holder's process dies
(even on ``kill -9``), so a crashed gmdesk never leaves a session locked: the next
writer simply takes the lock and overwrites the stale content.

Deleting ``<session>.lock`` while a writer holds it must not let a second writer
in (it would lock a new file of the same name): the writer also holds a ``flock``
on the session file itself and on its journal — the inodes it loaded, and after
each compaction the inodes it wrote (each locked before it is renamed into place,
so there is never a moment when either name is unlocked). A second writer that gets
the lock file is still refused by the session file's lock; one that also finds the
session file replaced by rename (what editors, rsync and sync tools do) is refused
by the journal's, which such a replacement leaves in place.

While it writes, the writer keeps a second line in the lock file: the journal it
appends to (device and inode) and the number of the last change it saved there,
rewritten in place after each save (one ``pwrite``, no fsync: it is written after the
journal's fsync, so it never claims more than the disk holds). Whoever opens the
session next reads it: a journal that is the same file but ends before that number
was cut short by another program — damage, not a torn write (:func:`read_saved`).

The lock file itself is never deleted (deleting a lock file that another process
may have just opened would let two writers hold "the" lock on two different files);
its content is only informative and is emptied on a clean release.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from gmdesk.core.errors import GmdeskError
from gmdesk.core.text import now_iso, short_time

#: Mode of every file gmdesk creates for a session (owner read/write only).
FILE_MODE = 0o600


class LockedError(GmdeskError):
    """The session is already open for writing in another gmdesk (or another window).

    ``str(err)`` reads ``"<path> is open in gmdesk (pid 123 on host, since
    2026-11-21 22:10)"``; ``pid`` (int | None), ``host`` (str) and ``since`` (ISO
    time string, local time) name the holder as it described itself.
    """

    def __init__(self, path: str | os.PathLike[str], pid: int | None = None, host: str = "", since: str = ""):
        self.path = Path(path)
        self.pid = pid
        self.host = host
        self.since = since
        super().__init__(f"{self.path} is open in gmdesk ({self.holder})")

    @property
    def holder(self) -> str:
        """Who holds the session, in words: ``pid 123 on host, since 2026-11-21 22:10``."""
        who = []
        if self.pid is not None:
            who.append(f"pid {self.pid}" + (f" on {self.host}" if self.host else ""))
        elif self.host:
            who.append(f"on {self.host}")
        if self.since:
            who.append(f"since {short_time(self.since)}")
        return ", ".join(who) if who else "holder unknown"


def _read_holder(fd: int) -> dict[str, Any]:
    """The holder's self-description, or {} while it has not written it yet."""
    try:
        raw = os.pread(fd, 4096, 0).split(b"\n", 1)[0]
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


#: width of the lock file's second line (the position saved), rewritten in place
_SAVED_WIDTH = 96


def _saved_line(raw: bytes) -> tuple[str, int] | None:
    """(journal identity ``"dev:ino"``, last change saved) from a lock file's bytes."""
    lines = raw.split(b"\n")
    if len(lines) < 2 or not lines[1].strip():
        return None
    try:
        data = json.loads(lines[1][:_SAVED_WIDTH])
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or type(data.get("journal")) is not str or type(data.get("lsn")) is not int:
        return None
    return data["journal"], data["lsn"]


def read_saved(path: str | os.PathLike[str]) -> tuple[str, int] | None:
    """What the lock file at ``path`` says the last writer saved: (journal identity
    ``"dev:ino"``, number of its last change), or None (no writer since a clean close,
    no such file, unreadable)."""
    try:
        with open(path, "rb") as f:
            return _saved_line(f.read(8192))
    except OSError:
        return None


def journal_identity(st: os.stat_result) -> str:
    """How the lock file names a journal: ``"dev:ino"``."""
    return f"{st.st_dev}:{st.st_ino}"


class WriterLock:
    """An exclusive, non-blocking writer lock on ``path`` (the ``.lock`` file).

    ``acquire()`` raises :class:`LockedError` naming the current holder;
    ``release()`` empties the file and drops the lock (idempotent). ``abandon()``
    closes the descriptor without touching the file, exactly as a killed process
    would leave it (tests use it to simulate a crash).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        session_path: str | os.PathLike[str] | None = None,
        journal_path: str | os.PathLike[str] | None = None,
    ):
        self.path = Path(path)
        self.session_path = Path(session_path) if session_path is not None else self.path
        self._session_name = os.fspath(self.session_path)  # (a Path made text once, not a write)
        self.journal_path = Path(journal_path) if journal_path is not None else None
        self._fd: int | None = None
        self._session_fds: list[int] = []  # flocks on the session file's inode(s)
        self._journal_fds: list[int] = []  # flocks on the journal's inode(s)
        #: (st_dev, st_ino) of the descriptors above, as first asked (an open
        #: descriptor's file never changes; forgotten when this lock closes it)
        self._inodes: dict[int, tuple[int, int]] = {}
        #: what the previous writer's lock file said it saved (see :func:`read_saved`)
        self.saved_before: tuple[str, int] | None = None
        self._saved_at = 0  # where the saved position's line starts in the lock file
        self._recorded = False  # this writer said what it saved

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock or raise LockedError (never waits)."""
        if self._fd is not None:
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
            os.fchmod(fd, FILE_MODE)
        except FileExistsError:
            fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder: dict[str, Any] = {}
            # The holder writes its description just after locking: give it a moment.
            for _ in range(20):
                holder = _read_holder(fd)
                if holder:
                    break
                time.sleep(0.005)
            os.close(fd)
            pid = holder.get("pid")
            raise LockedError(
                self.session_path,
                pid if isinstance(pid, int) else None,
                str(holder.get("host", "")),
                str(holder.get("since", "")),
            ) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            self._session_fds += self._lock_file(self.session_path, fd)
            if self.journal_path is not None:
                self._journal_fds += self._lock_file(self.journal_path, fd)
        except BaseException:
            self._close_held()
            os.close(fd)
            raise
        try:
            self.saved_before = _saved_line(os.pread(fd, 8192, 0))
            info = {
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "since": now_iso(),
            }
            line = (json.dumps(info) + "\n").encode("utf-8")
            os.ftruncate(fd, 0)
            os.pwrite(fd, line + self._saved_bytes(), 0)
            self._saved_at = len(line)
        except OSError:
            pass  # the description is informative only; the flock is what counts
        self._fd = fd

    def _lock_file(self, path: Path, lock_fd: int) -> list[int]:
        """Also lock the session file or the journal at ``path`` (when it exists and is
        not the lock file): the locks that survive a deleted ``.lock``. LockedError if
        another writer holds it. The descriptor holding the lock, in a list (empty
        when there is no such file)."""
        if path == self.path:
            return []
        for _ in range(50):
            try:
                sfd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                return []  # being created: the creator locks the new file before it takes the name
            try:
                fcntl.flock(sfd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(sfd)
                holder = _read_holder(lock_fd)
                pid = holder.get("pid")
                raise LockedError(
                    self.session_path,
                    pid if isinstance(pid, int) else None,
                    str(holder.get("host", "")),
                    str(holder.get("since", "")),
                ) from None
            except BaseException:
                os.close(sfd)
                raise
            try:
                st, cur = os.fstat(sfd), os.stat(path)
            except FileNotFoundError:
                os.close(sfd)
                continue
            except BaseException:
                os.close(sfd)
                raise
            if (st.st_dev, st.st_ino) == (cur.st_dev, cur.st_ino):
                return [sfd]
            os.close(sfd)  # replaced while we locked it: lock the file now in place
        raise LockedError(self.session_path)

    def add_session_file(self, fd: int) -> None:
        """Hold the ``flock`` of ``fd`` too: the writer is about to put that file in the
        session file's place (it locked it first, so the name is never unlocked)."""
        self._session_fds.append(fd)

    def _saved_bytes(self, saved: tuple[str, int] | None = None) -> bytes:
        """The saved position's line (the previous writer's until this one records its own)."""
        saved = saved or self.saved_before
        if saved is None:
            return b""
        return (f'{{"journal":"{saved[0]}","lsn":{saved[1]}}}'.ljust(_SAVED_WIDTH - 1) + "\n").encode("ascii")

    def record_saved(self, journal: str, lsn: int) -> None:
        """Say in the lock file that change ``lsn`` is saved in the journal ``journal``
        (its :func:`journal_identity`); call only once it is durable. Never raises."""
        fd = self._fd
        if fd is None or not self._saved_at:
            return
        self._recorded = True
        try:
            os.pwrite(fd, self._saved_bytes((journal, lsn)), self._saved_at)
        except OSError:
            pass  # informative: a lock file that cannot be written only weakens a later check

    def add_journal_file(self, fd: int) -> None:
        """Hold the ``flock`` of ``fd`` (a new journal about to take the journal's name)."""
        self._journal_fds.append(fd)

    def _inode(self, fd: int) -> tuple[int, int] | None:
        """(st_dev, st_ino) of a descriptor this lock holds; None if it cannot be read."""
        got = self._inodes.get(fd)
        if got is None:
            try:
                st = os.fstat(fd)
            except OSError:
                return None
            got = self._inodes[fd] = (st.st_dev, st.st_ino)
        return got

    def _close(self, fd: int) -> None:
        self._inodes.pop(fd, None)
        os.close(fd)

    def _close_held(self) -> None:
        """Close the descriptors holding the session file's and the journal's flocks."""
        sfds, self._session_fds = self._session_fds + self._journal_fds, []
        self._journal_fds = []
        for sfd in sfds:
            self._close(sfd)

    def _prune(self, fds: list[int], path: Path | None) -> list[int]:
        if path is None:
            return fds
        try:
            cur = os.stat(path)
        except OSError:
            return fds
        keep = []
        for fd in fds:
            if self._inode(fd) == (cur.st_dev, cur.st_ino):
                keep.append(fd)
            else:
                self._close(fd)
        return keep if keep else fds

    def prune_session_files(self) -> None:
        """Drop the locks on files no longer at the session file's or the journal's
        name (the files a compaction replaced, or a temp file that never took the name)."""
        self._session_fds = self._prune(self._session_fds, self.session_path)
        self._journal_fds = self._prune(self._journal_fds, self.journal_path)

    def _holds(self, fds: list[int], path: Path | str) -> bool:
        try:
            cur = os.stat(path)
        except OSError:
            return False
        here = (cur.st_dev, cur.st_ino)
        for fd in fds:
            if self._inode(fd) == here:
                return True
        return False

    def session_file_linked(self) -> bool:
        """Whether a session file this writer holds still has a name somewhere (it was
        moved, not deleted or renamed over): what it holds is still on disk."""
        for fd in self._session_fds:
            try:
                if os.fstat(fd).st_nlink > 0:
                    return True
            except OSError:
                pass
        return False

    def holds_session_file(self) -> bool:
        """True while one of the locked inodes is the one at the session file's name
        (asked before every write)."""
        return self._holds(self._session_fds, self._session_name)

    def release(self) -> None:
        """Empty the lock file and drop the lock; safe to call twice."""
        self._close_held()
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
            if not self._recorded and self.saved_before is not None:
                # a writer that never got going (a refused open) keeps the previous
                # writer's word of what it saved, for whoever opens the session next
                os.pwrite(fd, b"\n" + self._saved_bytes(), 0)
        except OSError:
            pass
        os.close(fd)  # closing the last descriptor drops the flock

    def abandon(self) -> None:
        """Drop the lock like a killed process would: no cleanup of the file."""
        self._close_held()
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
