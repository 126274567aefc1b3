"""Files the GM names for gmdesk to read (a table, a descriptor sheet, a bestiary to
import): the one way a verb reads one — a regular file of bounded size, never a
device or a pipe that would hang gmdesk or fill its memory (what a verb writes:
:mod:`core.outputs`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gmdesk.core.errors import GmdeskError

__all__ = ["read_input"]


def read_input(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The bytes of a file the GM names (a table, a sheet, a bestiary to import): a
    regular file of at most ``limit`` bytes; GmdeskError naming the file otherwise
    (a device such as ``/dev/zero``, a pipe, a directory, a file too big), one line."""
    p = Path(path).expanduser()
    try:
        st = os.stat(p)
    except OSError as e:
        raise GmdeskError(f"{p}: cannot read {what} ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise GmdeskError(f"{p}: not a file (a {what} is read from a regular file)")
    if st.st_size > limit:
        raise GmdeskError(f"{p}: too big for a {what} (at most {_size(limit)})")
    try:
        with open(p, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise GmdeskError(f"{p}: cannot read {what} ({e.strerror or e})") from None
    if len(data) > limit:
        raise GmdeskError(f"{p}: too big for a {what} (at most {_size(limit)})")
    return data


def _size(n: int) -> str:
    return f"{n // (1 << 20)} MiB" if n >= 1 << 20 else f"{n // 1024} KiB"
