"""The table as the player server's fronts see it: the seats a browser or an SSH viewer
takes (:class:`Table`, what :class:`tui.serve.PlayerServer` offers its SSH front), why
a front cannot start (:class:`ServeError`, :func:`bind_error`), and what a viewer who
arrives at a full table reads.

The browser front (:mod:`tui.serve`) and the SSH front (:mod:`tui.serve_ssh`) both
build on this module and never on each other.
"""

from __future__ import annotations

import errno
import socket
from typing import Protocol

from gmdesk.core.errors import GmdeskError


class ServeError(GmdeskError):
    """The server cannot start (port taken, address not on this machine …)."""


class Table(Protocol):
    """The player server as a front uses it: where it listens, the access token, the
    seats (``--max-viewers`` counts every front's viewers together), the viewer's
    command line and the server's own output."""

    host: str
    token: str
    max_viewers: int
    argv: list[str]

    def say(self, text: str) -> None:
        """One line on the server's output."""

    def take_seat(self) -> bool:
        """One viewer more, if the table has room."""

    def release_seat(self) -> None:
        """A seat taken with :meth:`take_seat` is free again."""

    def joined(self, who: str, detail: str) -> None:
        """A viewer's process started."""

    def left(self, what: str) -> None:
        """A viewer's process ended."""


def full_terminal_text(max_viewers: int) -> bytes:
    """The same words for a websocket or an SSH session that arrived after the table filled up."""
    text = (
        f"The table is full: all the player views it allows ({max_viewers}) are open.\r\n\r\n"
        "Close one in another tab or on another device, then try again.\r\n"
    )
    return ("\x1b[2J\x1b[H" + text).encode()


def bind_error(host: str, port: int, error: OSError, option: str = "--port") -> str:
    """Why a front cannot listen on ``host:port``, naming the option that chooses it."""
    if error.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is already in use; choose another with {option}"
    if error.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(error, socket.gaierror):
        return f"cannot serve on {host!r}: not an address of this machine (try --host 0.0.0.0)"
    if error.errno == errno.EACCES:
        return f"not allowed to serve on port {port} (ports below 1024 need privileges; try {option} 8000)"
    return f"cannot serve on {host}:{port}: {error.strerror or error}"
