"""What a command says once it has done something: its stdout, watched, and the
durable changes it made, remembered.

A change that is durable is done, whatever happens to the words that report it: a
verb calls :func:`saved` as soon as its change is on disk (before printing it), and
the command line (:func:`gmdesk.cli.main.main`) runs each command with :func:`watched_stdout`.
When printing then fails (stdout on a full disk, a closed pipe), the command still
exits 0 and says on stderr, in one line, what was saved but could not be printed;
a command that changed nothing reports the failed output as an error (exit 2).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

__all__ = ["StdoutFailed", "saved", "saved_text", "unwatched_stdout", "watched_stdout"]

_saved: dict[str, str] = {}


class StdoutFailed(OSError):
    """Writing to stdout failed (the command's own files are not concerned)."""


def saved(key: str, what: str) -> None:
    """Remember that ``what`` (in the GM's words: "Kara added to Docks") is durable;
    a later :func:`saved` with the same ``key`` replaces it ("3 rolls saved to Docks")."""
    _saved[key] = what


def saved_text() -> str:
    """Everything the command made durable, in one line ("" when nothing)."""
    return "; ".join(_saved.values())


class _Watched:
    """A stream whose write and flush failures are :class:`StdoutFailed`."""

    def __init__(self, stream: Any):
        self._stream = stream

    def _call(self, name: str, *args: Any) -> Any:
        try:
            return getattr(self._stream, name)(*args)
        except StdoutFailed:
            raise
        except OSError as e:
            raise StdoutFailed(e.errno, e.strerror or str(e)) from e

    def write(self, data: Any) -> Any:
        try:  # (as _call, without looking the method up by name: a line a roll)
            return self._stream.write(data)
        except StdoutFailed:
            raise
        except OSError as e:
            raise StdoutFailed(e.errno, e.strerror or str(e)) from e

    def writelines(self, lines: Any) -> Any:
        return self._call("writelines", lines)

    def flush(self) -> Any:
        try:
            return self._stream.flush()
        except StdoutFailed:
            raise
        except OSError as e:
            raise StdoutFailed(e.errno, e.strerror or str(e)) from e

    @property
    def buffer(self) -> Any:
        inner = getattr(self._stream, "buffer", None)
        return None if inner is None else _Watched(inner)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def watched_stdout() -> Iterator[None]:
    """Run a command with stdout watched (failures raise :class:`StdoutFailed`) and
    nothing remembered as saved yet."""
    _saved.clear()
    original = sys.stdout
    sys.stdout = _Watched(original)
    try:
        yield
    finally:
        if isinstance(sys.stdout, _Watched):
            sys.stdout = original


@contextmanager
def unwatched_stdout() -> Iterator[None]:
    """The real stdout for a while (the terminal app owns it while it runs)."""
    current = sys.stdout
    if not isinstance(current, _Watched):
        yield
        return
    sys.stdout = current._stream
    try:
        yield
    finally:
        sys.stdout = current
