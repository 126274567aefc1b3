"""The one-writer lock of a session: ``fcntl.flock`` on a separate lock file.

A session file may be open for writing in one gmdesk at a time. The writer holds an
exclusive, non-blocking ``flock`` on ``<session>.lock`` for as long as the session is
open; read-only followers never touch it. After taking the lock the writer writes
``{"pid": …, "host": …, "since": …}`` into the file so that a second writer can say
who has the session. The kernel drops a ``flock`` when the holder's process dies
(even on ``kill -9``), so a crashed gmdesk never leaves a session locked: the next
writer simply takes the lock and overwrites the stale content.

The lock file itself is never deleted (deleting a lock file that another process
may have just opened would let two writers hold "the" lock on two different files);
its content is only informative and is emptied on a clean release.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import socket
import time
from pathlib import Path

from core.errors import GmdeskError

#: Mode of every file gmdesk creates for a session (owner read/write only).
FILE_MODE = 0o600


class LockedError(GmdeskError):
    """The session is already open for writing in another gmdesk (or another window).

    ``str(err)`` reads ``"<path> is open in gmdesk (pid 123 on host, since
    2026-11-21 22:10)"``; ``pid`` (int | None), ``host`` (str) and ``since`` (ISO
    time string, local time) name the holder as it described itself.
    """

    def __init__(self, path: str | os.PathLike, pid: int | None = None, host: str = "", since: str = ""):
        self.path = Path(path)
        self.pid = pid
        self.host = host
        self.since = since
        who = []
        if pid is not None:
            who.append(f"pid {pid}" + (f" on {host}" if host else ""))
        elif host:
            who.append(f"on {host}")
        if since:
            who.append(f"since {_short_time(since)}")
        detail = ", ".join(who) if who else "holder unknown"
        super().__init__(f"{self.path} is open in gmdesk ({detail})")


def _short_time(iso: str) -> str:
    try:
        return _dt.datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def _read_holder(fd: int) -> dict:
    """The holder's self-description, or {} while it has not written it yet."""
    try:
        raw = os.pread(fd, 4096, 0)
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class WriterLock:
    """An exclusive, non-blocking writer lock on ``path`` (the ``.lock`` file).

    ``acquire()`` raises :class:`LockedError` naming the current holder;
    ``release()`` empties the file and drops the lock (idempotent). ``abandon()``
    closes the descriptor without touching the file, exactly as a killed process
    would leave it (tests use it to simulate a crash).
    """

    def __init__(self, path: str | os.PathLike, session_path: str | os.PathLike | None = None):
        self.path = Path(path)
        self.session_path = Path(session_path) if session_path is not None else self.path
        self._fd: int | None = None

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
            holder: dict = {}
            # The holder writes its description just after locking: give it a moment.
            for _ in range(20):
                holder = _read_holder(fd)
                if holder:
                    break
                time.sleep(0.005)
            os.close(fd)
            pid = holder.get("pid")
            raise LockedError(self.session_path, pid if isinstance(pid, int) else None,
                              str(holder.get("host", "")), str(holder.get("since", ""))) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            info = {"pid": os.getpid(), "host": socket.gethostname(),
                    "since": _dt.datetime.now().isoformat(timespec="seconds")}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode("utf-8"), 0)
        except OSError:
            pass  # the description is informative only; the flock is what counts
        self._fd = fd

    def release(self) -> None:
        """Empty the lock file and drop the lock; safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        os.close(fd)  # closing the last descriptor drops the flock

    def abandon(self) -> None:
        """Drop the lock like a killed process would: no cleanup of the file."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
