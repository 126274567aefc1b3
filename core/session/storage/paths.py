"""The files of one session: their names by role, and which of them exist.

A session is ``<name>.gmdesk`` (the snapshot) with files beside it that belong to
it: ``.journal``, ``.lock``, ``.ckpt`` (checkpoint), the ``.tmp`` files of a
compaction, ``.v<N>.bak`` upgrade backups. Pass the snapshot's path around; the
others follow from it."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "JOURNAL_SUFFIX",
    "LOCK_SUFFIX",
    "TMP_SUFFIX",
    "CHECKPOINT_SUFFIX",
    "sidecar_paths",
    "session_files",
    "backup_path",
]

#: Added to the session file's name: the journal, the lock file, temp files.
JOURNAL_SUFFIX = ".journal"
LOCK_SUFFIX = ".lock"
TMP_SUFFIX = ".tmp"
CHECKPOINT_SUFFIX = ".ckpt"


def sidecar_paths(path: str | os.PathLike[str]) -> dict[str, Path]:
    """Every file name a session at ``path`` may use, by role.

    Keys: ``snapshot`` (the path itself), ``journal``, ``lock``, ``snapshot_tmp``,
    ``journal_tmp``, ``checkpoint`` (a cache of the folded session, see
    :meth:`EventLog.read_checkpoint`), ``checkpoint_tmp``. Backups are found by
    :func:`session_files`.
    """
    p = Path(path)
    return {
        "snapshot": p,
        "journal": p.with_name(p.name + JOURNAL_SUFFIX),
        "lock": p.with_name(p.name + LOCK_SUFFIX),
        "snapshot_tmp": p.with_name(p.name + TMP_SUFFIX),
        "journal_tmp": p.with_name(p.name + JOURNAL_SUFFIX + TMP_SUFFIX),
        "checkpoint": p.with_name(p.name + CHECKPOINT_SUFFIX),
        "checkpoint_tmp": p.with_name(p.name + CHECKPOINT_SUFFIX + TMP_SUFFIX),
    }


def session_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files that exist for the session at ``path``: snapshot, journal, lock,
    leftover temp files and upgrade backups (``<name>.v<N>[.<k>].bak``).

    Copy snapshot + journal to duplicate a session (or close it first: a clean close
    compacts, leaving everything in the snapshot); delete all of them to delete it.
    """
    p = Path(path)
    found = [f for f in sidecar_paths(p).values() if f.exists()]
    if p.parent.is_dir():
        found += sorted(f for f in p.parent.glob(p.name + ".v*.bak") if f.is_file())
    return found


def backup_path(path: Path, version: int, k: int = 0) -> Path:
    """Where the untouched original of a session upgraded from format ``version`` is
    kept: ``<name>.v<N>.bak``, or ``<name>.v<N>.<k>.bak`` when that name is taken."""
    return path.with_name(f"{path.name}.v{version}.bak" if not k else f"{path.name}.v{version}.{k}.bak")
