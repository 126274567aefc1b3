"""What a writer saved, kept when another program deleted it under the writer.

A desk holds its session open for an evening. When a sync tool, a script or a
careless ``rm`` deletes the session's files (or the saves directory, or renames
another file over the session's), what the desk saved lives on only in the files it
still holds open. The store notices before its next write (or at close) and stops
saving there; :func:`keep_lost` then writes everything the writer holds as a new
session, ``NAME (rescued)``, in the session's directory (made again if it was
deleted), and the store's one-line reason says where it is. Nothing at the session's
own name is touched: a file another program put there is that program's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gmdesk.core.errors import GmdeskError

if TYPE_CHECKING:
    from gmdesk.core.session.storage import EventLog

__all__ = ["keep_lost"]


def keep_lost(log: EventLog, path: Path) -> Path | None:
    """When what ``log`` (the writer of the session at ``path``) saved is no longer on
    disk under any name, write it as a new session beside ``path`` and return its
    file; None when nothing is lost (or it was kept already). A failure to write it
    is said in the store's reason, and the next call tries again (the desk stays
    open read-only, holding it)."""
    if not log.lost_on_disk:
        return None
    from gmdesk.core.session.storage import EventLog, session_files

    try:
        header, docs, meta = log.contents()
        base = str(header.get("name") or path.stem)
        path.parent.mkdir(parents=True, exist_ok=True)  # (the saves directory itself may be gone)
        k = 1
        while True:  # the first free "(rescued)", "(rescued 2)"…: never another file
            tail = " (rescued)" if k == 1 else f" (rescued {k})"
            dst = path.with_name(f"{path.stem}{tail}{path.suffix}")
            if not session_files(dst):
                break
            k += 1
        name = base + tail
        header["name"] = name
        out = EventLog.create(dst, header)  # (refuses a file that appeared meanwhile)
        out.fill(docs, meta)
    except (GmdeskError, OSError) as e:
        log.kept_elsewhere(None, str(e.strerror if isinstance(e, OSError) and e.strerror else e))
        return None
    log.kept_elsewhere(f'the new session "{name}" ({dst})')
    return dst
