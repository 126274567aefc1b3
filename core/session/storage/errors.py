"""The store's errors: each ``str(err)`` is one line naming the file."""

from __future__ import annotations

import os
from pathlib import Path

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.lock import LockedError

__all__ = [
    "StoreError",
    "CorruptSaveError",
    "FutureVersionError",
    "StoreWriteError",
    "StoreReadError",
    "SessionChangedError",
    "SessionExistsError",
    "SessionMissingError",
    "LockedError",
]


# --------------------------------------------------------------------------- errors


class StoreError(GmdeskError):
    """Base class of the store's errors; ``str(err)`` is one line naming the file."""


class CorruptSaveError(StoreError):
    """A session file cannot be read as a gmdesk session; nothing was changed on disk.

    ``path`` is the file, ``record`` where in it (``"line 17 (journal record 16)"``,
    ``"events seq 12"``, ``"whole file"``…) and ``problem`` what is wrong.
    """

    def __init__(self, path: str | os.PathLike[str], record: str, problem: str):
        self.path = Path(path)
        self.record = record
        self.problem = problem
        super().__init__(f"{self.path}: {record}: {problem} (file left untouched)")


class FutureVersionError(StoreError):
    """The session was saved by a newer gmdesk (format ``version`` > ``supported``, what this one reads)."""

    def __init__(self, path: str | os.PathLike[str], version: int, supported: int, what: str = "format"):
        self.path = Path(path)
        self.version = version
        self.supported = supported
        super().__init__(
            f"{self.path}: saved by a newer gmdesk ({what} v{version}; this gmdesk reads up to "
            f"v{supported}); update gmdesk to open it (file left untouched)"
        )


class StoreWriteError(StoreError):
    """A change could not be saved (disk full, file too large, I/O error, read-only).

    The change was not applied; everything acknowledged before it is intact on disk.
    """


class SessionChangedError(StoreWriteError):
    """Another program replaced or wrote the session's files while this gmdesk had it
    open for writing: nothing more is saved through this writer; the GM closes it
    and checks the session. Everything it acknowledged before is on disk: where the
    files went (moved), or — deleted, or renamed over — in a new session the writer
    wrote from the files it held open (:mod:`core.session.rescue`; the message says
    which, and where)."""


class StoreReadError(StoreError):
    """A session file exists but cannot be read (permissions, I/O error).

    Never taken for an empty session."""


class SessionExistsError(StoreError, FileExistsError):
    """``EventLog.create`` refuses to overwrite an existing session file."""


class SessionMissingError(StoreError, FileNotFoundError):
    """There is no session file at the given path."""
