"""Files the GM names for gmdesk to write (``gmdesk export -o FILE``, ``gmdesk
bestiary export FILE``…): the one way every such verb writes, and the guard that
keeps it off gmdesk's own files (what a verb reads: :mod:`core.inputs`).

:func:`write_output` refuses (:class:`OutputRefused`, one line; nothing is written
or changed) a target that is, by file identity (``samefile`` after symlinks and
``..``, so a hard link, a symlink or ``saves/../saves/x`` is seen through):

* a file of the saves directory in use that belongs to gmdesk: a session's file,
  journal, checkpoint, lock, temp file or upgrade backup, the bestiary or its lock;
* any existing file whose first bytes show it is a gmdesk session, journal,
  checkpoint or bestiary, wherever it is;
* an existing file of stat blocks shared as TOML (what ``gmdesk bestiary export``
  writes, or one edited by hand: a ``format = "gmdesk-bestiary"`` line or a
  ``[[stat_block]]`` table), unless the verb was told to replace it (``bestiary
  export --replace``): a bestiary is never overwritten without being asked;
* a file (existing or new) in a saves directory (the one in use, the default one,
  the shipped examples, or any directory holding a gmdesk session or bestiary)
  named like gmdesk's own: ``*.gmdesk``, ``*.gmdesk.*``, ``bestiary.json``,
  ``bestiary.json.*``.

Anything else is written whole or not at all: a temp file beside the target,
fsynced, renamed over it (a symlink is written through, to the file it names; an
existing file keeps its permissions). A target that is a pipe or a character device
(``-o /dev/stdout``, ``-o >(less)``, ``-o /dev/null``) is written into as it is, never
replaced by a file; a block device or a socket is refused. A failure names the file
the GM typed, never gmdesk's temp file.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from gmdesk.core.errors import GmdeskError

__all__ = ["OutputRefused", "check_output", "write_output", "gmdesk_kind", "holds_stat_blocks", "is_own_name"]

#: how much of an existing file is read to tell whether it is one of gmdesk's
SNIFF_BYTES = 4096

_OWN_NAME = re.compile(r"(\.gmdesk(\.|$))|(^\.?bestiary\.json(\.|$))", re.IGNORECASE)
_MARKERS = (
    (re.compile(rb'"format"\s*:\s*"gmdesk-session"'), "a gmdesk session"),
    (re.compile(rb'"_gmdesk"\s*:'), "a gmdesk session"),
    (re.compile(rb'"gmdesk_journal"\s*:'), "a gmdesk session's journal"),
    (re.compile(rb'"format"\s*:\s*"gmdesk-checkpoint"'), "a gmdesk session's checkpoint"),
    (re.compile(rb'"format"\s*:\s*"gmdesk-bestiary"'), "a gmdesk bestiary"),
)


class OutputRefused(GmdeskError):
    """The file named for gmdesk to write is one of gmdesk's own (nothing was written)."""


def is_own_name(name: str) -> bool:
    """Whether a file name is one gmdesk gives its own files in a saves directory."""
    return bool(_OWN_NAME.search(name))


def gmdesk_kind(path: str | os.PathLike[str]) -> str | None:
    """What gmdesk file the first bytes of ``path`` show it is ("a gmdesk session"…),
    or None (not one of gmdesk's, or not a readable regular file)."""
    head = _head(path, SNIFF_BYTES)
    if head is None:
        return None
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not head.startswith(b"{"):
        return None
    for pattern, kind in _MARKERS:
        if pattern.search(head):
            return kind
    return None


#: a TOML file of stat blocks (what ``bestiary export`` writes, or one written by hand)
_SHARED_BESTIARY = re.compile(rb'(?m)^[ \t]*(format[ \t]*=[ \t]*"gmdesk-bestiary"|\[\[[ \t]*stat_block[ \t]*\]\])')

#: how much of an existing file is read to tell whether it holds stat blocks as TOML
SNIFF_TOML_BYTES = 1 << 16


def holds_stat_blocks(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file of stat blocks shared as TOML (a bestiary
    exported or written by hand), told by its first bytes."""
    head = _head(path, SNIFF_TOML_BYTES)
    return head is not None and _SHARED_BESTIARY.search(head) is not None


def _head(path: str | os.PathLike[str], size: int) -> bytes | None:
    """The first ``size`` bytes of ``path`` when it is a regular file, else None. Never
    opens anything else: opening a named pipe to read would wait for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(size)
    except OSError:
        return None
    finally:
        os.close(fd)


def _ident(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _saves_dirs(saves_dir: Path | None) -> list[Path]:
    dirs = []
    if saves_dir is not None:
        dirs.append(saves_dir)
    try:
        from gmdesk.core.session.saves import default_saves_dir

        dirs.append(default_saves_dir())
    except Exception:  # noqa: BLE001 - no home directory: the others still count
        pass
    dirs.append(_examples_dir())
    return dirs


def _examples_dir() -> Path:
    """The shipped example sessions' folder (gmdesk.saves), which no output may write into."""
    from importlib import resources

    return Path(str(resources.files("gmdesk.saves")))


def _own_files(directory: Path) -> Iterable[Path]:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    return [Path(e.path) for e in entries if is_own_name(e.name)]


def _holds_gmdesk_files(directory: Path) -> bool:
    """A directory is a saves directory when it holds a gmdesk session or bestiary."""
    return any(gmdesk_kind(p) is not None for p in _own_files(directory))


def _same_dir(a: Path, b: Path) -> bool:
    ia, ib = _ident(a), _ident(b)
    return ia is not None and ia == ib


def check_output(
    target: str | os.PathLike[str], saves_dir: str | os.PathLike[str] | None, replace: bool | None = None
) -> Path:
    """The file to write for ``target`` (symlinks and ``..`` resolved), or
    :class:`OutputRefused` when it is one of gmdesk's own (see the module).

    ``replace`` is the verb's word on an existing file of stat blocks: None, the verb
    has no way to be asked (refused: choose another file); False, not asked (refused,
    naming ``--replace``); True, asked to replace it."""
    given = Path(target).expanduser()
    real = Path(os.path.realpath(given))
    saves = Path(saves_dir).expanduser() if saves_dir is not None else None

    def refuse(why: str) -> OutputRefused:
        return OutputRefused(f"{given}: {why}; gmdesk never writes over its own files: choose another file")

    if _stream(given) is not None:
        return given  # a pipe or a character device: written into, never replaced (write_output)

    ident = _ident(real)
    if ident is not None:
        if os.path.isdir(real):
            raise OutputRefused(f"{given}: is a directory; name a file to write")
        for directory in _saves_dirs(saves):
            for own in _own_files(directory):
                if _ident(own) == ident:
                    raise refuse(f"is {own.name} in the saves directory {directory}")
        kind = gmdesk_kind(real)
        if kind is not None:
            raise refuse(f"is {kind}")
        if replace is not True and holds_stat_blocks(real):
            if replace is None:
                raise OutputRefused(
                    f"{given}: holds a bestiary's stat blocks; choose another file (it was not changed)"
                )
            raise OutputRefused(
                f"{given}: already holds a bestiary's stat blocks; --replace writes over them (it was not changed)"
            )
    parent = real.parent
    if is_own_name(real.name) or is_own_name(given.name):
        in_saves = any(_same_dir(parent, d) for d in _saves_dirs(saves))
        if in_saves or _holds_gmdesk_files(parent):
            raise refuse(f"is named like gmdesk's own files in the saves directory {parent}")
    return real


def write_output(
    target: str | os.PathLike[str],
    data: bytes,
    saves_dir: str | os.PathLike[str] | None,
    replace: bool | None = None,
) -> Path:
    """Write ``data`` to the file the GM named, whole or not at all, unless it is one
    of gmdesk's own or a bestiary not to be replaced (:class:`OutputRefused`, nothing
    written; ``replace``: see :func:`check_output`). Returns the file written. OSError
    naming ``target`` when the disk refuses (the target is then unchanged)."""
    given = Path(target).expanduser()
    stream = _stream(given)
    if stream is not None:
        return _write_stream(given, stream, data)
    real = check_output(target, saves_dir, replace)
    try:
        _write_whole(target, real, data, saves_dir, replace)
    except OSError as e:
        raise _named(e, given) from None
    return real


def _stream(given: Path) -> os.stat_result | None:
    """The status of ``given`` when it is a pipe or a character device (written into
    as it is); OutputRefused for a block device or a socket; None for anything else."""
    try:
        st = os.stat(given)
    except (OSError, ValueError):
        return None
    if stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode):
        return st
    if stat.S_ISBLK(st.st_mode) or stat.S_ISSOCK(st.st_mode):
        raise OutputRefused(f"{given}: not a file (a disk or a socket); name a file to write")
    return None


def _write_stream(given: Path, st: os.stat_result, data: bytes) -> Path:
    """Write into a pipe or a character device the GM named, as the shell's ``>`` would
    (nothing to rename: the device or the pipe stays what it is)."""
    try:
        fd = os.open(given, os.O_WRONLY | os.O_CLOEXEC)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    except OSError as e:
        raise _named(e, given) from None
    return given


def _named(e: OSError, given: Path) -> OSError:
    """The disk's refusal said of the file the GM typed (never of gmdesk's temp file)."""
    return OSError(e.errno, e.strerror or str(e), str(given))


def _write_whole(
    target: str | os.PathLike[str],
    real: Path,
    data: bytes,
    saves_dir: str | os.PathLike[str] | None,
    replace: bool | None,
) -> None:
    """A temp file beside ``real``, fsynced, renamed over it: whole or not at all."""
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except OSError:
        mode = None
    tmp = real.with_name(f".{real.name}.{os.getpid()}.part")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink(tmp)
        raise
    os.close(fd)
    try:
        check_output(target, saves_dir, replace)  # still not one of gmdesk's (the name may have moved meanwhile)
        os.replace(tmp, real)
    except BaseException:
        _unlink(tmp)
        raise
    try:
        dfd = os.open(real.parent, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass  # the file is written; a directory that cannot be fsynced is the file system's


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
