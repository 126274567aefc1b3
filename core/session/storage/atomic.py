"""Atomic file helpers: whole writes, fsync of files and directories, publishing a
file under its final name (temp file, fsync, rename, fsync the directory).

Every file is created with mode 0600. Callers reach these through the module
(``atomic.publish(…)``), so that a test can stand in for one step everywhere."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from gmdesk.core.session.lock import FILE_MODE
from gmdesk.core.session.storage.errors import StoreReadError, StoreWriteError

__all__ = [
    "fsync_dir",
    "read_file",
    "write_all",
    "unlink_quiet",
    "write_error",
    "new_file",
    "publish",
    "same_file",
]


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new name in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_file(path: Path) -> tuple[bytes, os.stat_result] | None:
    """The whole file and its stat, None if it does not exist; StoreReadError otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read()
        return data, st
    except OSError as e:
        raise StoreReadError(f"{path}: cannot read ({e.strerror or e})") from None
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less at a time)."""
    k = os.write(fd, data)
    if k == len(data):  # (nearly always: all of it at once)
        return
    view = memoryview(data)[k:]
    while view:
        k = os.write(fd, view)
        view = view[k:]


def unlink_quiet(path: Path) -> None:
    """Remove ``path`` if it can be removed; never raises."""
    try:
        os.unlink(path)
    except OSError:
        pass


def write_error(path: Path, err: OSError, what: str) -> StoreWriteError:
    """The StoreWriteError telling the GM that ``what`` failed on ``path`` and nothing was lost."""
    reason = err.strerror or str(err)
    return StoreWriteError(
        f"{path}: could not {what} ({reason}); the change was not saved, everything saved before it is intact"
    )


def new_file(tmp: Path) -> int:
    """Create ``tmp`` afresh (mode 0600) for writing; return the descriptor."""
    unlink_quiet(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return fd


def publish(
    tmp: Path,
    final: Path,
    data: bytes | Iterable[bytes],
    *,
    overwrite: bool,
    keep: Callable[[int], None] | None = None,
    hold: Callable[[int], None] | None = None,
    head: Callable[[], bytes] | None = None,
) -> None:
    """Write ``data`` (bytes, or parts written one after the other) to ``tmp``, fsync,
    move it to ``final`` (atomically replacing it, or refusing if it exists when
    ``overwrite`` is False) and fsync the directory.

    ``keep``: hand a duplicate of the open descriptor (O_APPEND) to ``keep`` before
    the rename (the caller checks afterwards whether the file took the name).
    ``hold``: ``flock`` the new file before it takes the name and hand a duplicate
    descriptor (which keeps that lock) to ``hold`` (the writer's lock on the session
    file, see :mod:`core.session.lock`).
    ``head``: once every part is written, what to write over the file's first bytes
    (as many as it gives: a stand-in written first, of the same length — the
    checksums of a snapshot written piece by piece).
    Raises OSError (FileExistsError when refusing); ``tmp`` is removed on failure.
    """
    fd = new_file(tmp)
    try:
        if hold is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            hold(os.dup(fd))
        for part in [data] if isinstance(data, bytes) else data:
            write_all(fd, part)
        if head is not None:
            _write_at_start(tmp, head())
        if keep is not None:
            keep(os.dup(fd))
        os.fsync(fd)
        if overwrite:
            os.replace(tmp, final)
        else:
            try:
                os.link(tmp, final)
            except FileExistsError:
                raise
            except OSError:
                if final.exists():
                    raise FileExistsError(final) from None
                os.replace(tmp, final)
            unlink_quiet(tmp)
    except BaseException:
        os.close(fd)
        unlink_quiet(tmp)
        raise
    try:
        fsync_dir(final.parent)
    finally:
        os.close(fd)


def _write_at_start(path: Path, data: bytes) -> None:
    """Write ``data`` over the first bytes of ``path`` (the caller fsyncs the file)."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        pos = 0
        while pos < len(data):
            pos += os.pwrite(fd, memoryview(data)[pos:], pos)
    finally:
        os.close(fd)


def same_file(fd: int, path: Path) -> bool:
    """True when the open descriptor ``fd`` is the file ``path`` names now."""
    try:
        st, cur = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (cur.st_dev, cur.st_ino)
