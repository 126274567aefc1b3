"""The terminal in the desk's input mode from the moment the ``gmdesk`` command starts
the desk (:func:`terminal_taken`), long before Textual is imported and reads it.

Until a program changes it, a terminal is *cooked*: its line discipline edits what
the GM types before any program reads it. Keys typed ahead while gmdesk starts (a
GM who types on as soon as the command is entered, a burst sent in with the
command over SSH or tmux) arrive in that mode, and when Textual makes the terminal
raw half a second later they are read as the terminal left them: Enter turned into
Ctrl+J (``ICRNL``), so "n Sunday Enter" left the new-session dialog open with
"Sunday" in it and nothing created; Backspace and Ctrl+U already applied to the
line, Ctrl+C a signal. Here the terminal is made raw exactly as Textual makes it
(its ``_patch_lflag`` / ``_patch_iflag``, ``VMIN`` 1) first thing: from then on the
keys wait, untouched, for the desk to read them.

What the terminal had cooked already (the few milliseconds of the interpreter's
start) is counted when it goes raw (:attr:`Taken.cooked`): in those bytes the
terminal's line feed is read as the Enter it was typed as (:class:`Uncook`). Keys
that the line discipline consumed in that moment (an erase, a signal) cannot be
given back.

The terminal is given back as it was found on every way out: when the desk ends
(Textual's driver restores the attributes it found, which :mod:`tui.terminal` sets
to the ones before this module took the terminal), when it fails to start, and on
SIGTERM / SIGHUP before the app has its own handlers.

This module never imports Textual: taking the terminal is the first thing the desk
does, before the half second of imports.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: the signals that end gmdesk before the app has its own handlers (the terminal is given back first)
_ENDING = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name))


@dataclass(frozen=True)
class Taken:
    """The terminal on ``fd`` was made raw: ``before``, its attributes until then;
    ``cooked``, how many bytes it held already, cooked, at that moment."""

    fd: int
    before: list[Any]
    cooked: int


_taken: Taken | None = None


def taken() -> Taken | None:
    """The terminal this process took raw and has not given back, if any."""
    return _taken


def raw_attributes(attrs: list[Any]) -> list[Any]:
    """``attrs`` as Textual's terminal driver sets them: no echo, no line editing, no
    signal keys, no flow control, Enter read as carriage return, a read returns each byte."""
    import termios

    raw = [*attrs[:6], list(attrs[6])]
    raw[0] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
    lflag = termios.ECHO | termios.ICANON | termios.IEXTEN
    if not os.environ.get("TEXTUAL_ALLOW_SIGNALS"):  # as Textual reads it
        lflag |= termios.ISIG
    raw[3] &= ~lflag
    raw[6][termios.VMIN] = 1
    return raw


def unread(fd: int) -> int:
    """Bytes the terminal on ``fd`` holds for reading."""
    import fcntl
    import termios

    try:
        return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])
    except OSError:
        return 0


def take(fd: int = 0) -> Taken | None:
    """Make the terminal on ``fd`` raw now (None when ``fd`` is no terminal, or the
    platform has none of POSIX's)."""
    global _taken
    if _taken is not None:
        return _taken
    try:
        import termios
    except ImportError:  # pragma: no cover - not a POSIX platform
        return None
    try:
        if not os.isatty(fd):
            return None
        before = termios.tcgetattr(fd)
        termios.tcsetattr(fd, termios.TCSANOW, raw_attributes(before))
    except (OSError, termios.error):
        return None
    # raw now: what the terminal holds (every line, finished or not) was cooked
    _taken = Taken(fd, before, unread(fd))
    return _taken


def give_back() -> None:
    """The terminal's attributes as :func:`take` found them (again: harmless)."""
    global _taken
    found, _taken = _taken, None
    if found is None:
        return
    import termios

    with contextlib.suppress(OSError, termios.error):
        termios.tcsetattr(found.fd, termios.TCSANOW, found.before)


@contextlib.contextmanager
def terminal_taken(fd: int = 0) -> Iterator[Taken | None]:
    """``with terminal_taken(): run the desk`` — see the module docstring."""
    previous = {sig: signal.getsignal(sig) for sig in _ENDING}

    def end(signum: int, _frame: Any) -> None:
        give_back()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    found = take(fd)
    if found is not None:
        for sig in _ENDING:
            with contextlib.suppress(ValueError, OSError):  # not the main thread
                signal.signal(sig, end)
    try:
        yield found
    finally:
        give_back()
        if found is not None:
            for sig, handler in previous.items():
                with contextlib.suppress(ValueError, OSError, TypeError):
                    signal.signal(sig, handler)


class Uncook:
    """Each read from the terminal (``__call__``, bytes) as typed: in the first
    ``cooked`` bytes read, which the terminal had cooked before it was taken raw, its
    line feed is the Enter (carriage return) the GM typed."""

    def __init__(self, cooked: int) -> None:
        self.left = max(0, cooked)

    def __call__(self, data: bytes) -> bytes:
        if not self.left:
            return data
        head, tail = data[: self.left], data[self.left :]
        self.left -= len(head)
        return head.replace(b"\n", b"\r") + tail
