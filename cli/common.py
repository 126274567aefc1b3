"""What every ``gmdesk`` command shares.

A failure said in one line on stderr with exit status 2, the parser that says a bad
option that way, the saves directory and the sessions in it, a system's declaration
by id, and a choice or a number read in the user's own words."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import wraps

from gmdesk.core.errors import GmdeskError, ParamError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, NoReturn

    from gmdesk.core.session import Session, SessionStore
    from gmdesk.core.systems.spec import SystemSpec

#: the exit status of bad input (a usage error, a refused value, a damaged file…)
EXIT_USAGE = 2

#: the biggest descriptor sheet file a command reads (``import-sheet``, ``bestiary add --sheet``)
MAX_SHEET_BYTES = 1 << 20


class UsageError(GmdeskError):
    """A command line gmdesk cannot read: said as it is, in one line."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout at the terminal's width, asked of the terminal itself:
    argparse would import ``shutil`` (and zlib, bz2, lzma with it) to ask, as each
    option is added, which ``gmdesk roll`` would pay for at every start."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        if width is None:
            width = terminal_columns() - 2  # (as argparse: the width less a margin)
        super().__init__(prog, indent_increment, max_help_position, width)


def terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` says it: ``$COLUMNS``, else
    stdout's terminal, else 80."""
    import os

    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad option in one line (exit 2) instead of usage + traceback."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def fail(message: str) -> int:
    """Say ``message`` on stderr in one line (``gmdesk: …``); the exit status 2."""
    message = one_line(message)
    print(message if message.startswith("gmdesk") else f"gmdesk: {message}", file=sys.stderr)
    return EXIT_USAGE


def one_line(message: object) -> str:
    """``message`` as one line a terminal shows as it is: runs of white space (line
    breaks included) are one space, and any other control character (an argument
    pasted with an escape sequence) is written as its escape (``\\x1b``), never
    obeyed by the terminal."""
    text = " ".join(str(message).split())
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def guard(fn: Callable[[Any], int]) -> Callable[[Any], int]:
    """A command whose every failure becomes one line on stderr and exit status 2."""

    @wraps(fn)
    def run(ns: Any) -> int:
        from gmdesk.core.results import StdoutFailed

        try:
            return int(fn(ns) or 0)
        except StdoutFailed:
            raise  # what was saved and what could not be printed: said by gmdesk.cli.main.main
        except GmdeskError as e:
            return fail(str(e))
        except BrokenPipeError:
            return 0
        except KeyboardInterrupt:
            return 130
        except Exception as e:  # noqa: BLE001 - never a traceback: one line, exit 2
            return fail(error_text(e))

    return run


def error_text(e: Exception) -> str:
    """What no command expected, in one line: the file and what went wrong with it (an
    unwritable file…), else the error's kind — never a traceback."""
    if isinstance(e, OSError):
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        return f"{where}{e.strerror or e}"
    if isinstance(e, RecursionError):
        return "the input is nested too deeply to be read"
    text = str(e).strip().splitlines()
    return f"unexpected error ({type(e).__name__}{': ' + text[0] if text else ''}); please report it"


def saves_dir(saves: str | None) -> Path:
    """The saves directory ``saves`` names (``--saves`` or ``$GMDESK_SAVES``), else the
    platform's. One that is a file (``--saves notes.txt``) is refused in one line
    (UsageError): no command lists it as empty or writes beside it."""
    from pathlib import Path

    from gmdesk.core.session.saves import default_saves_dir

    path = Path(saves).expanduser() if saves else default_saves_dir()
    if path.exists() and not path.is_dir():
        raise UsageError(f"gmdesk: the saves directory {path} is a file; --saves (or $GMDESK_SAVES) names a directory")
    return path


def session_store(ns: Any) -> SessionStore:
    """The saves directory the command names (``ns.saves``: ``--saves`` or
    ``$GMDESK_SAVES``), else the platform's (see :func:`saves_dir`)."""
    from gmdesk.core.session.saves import SessionStore

    return SessionStore(saves_dir(getattr(ns, "saves", None)))


def open_session(ns: Any, readonly: bool = False) -> Session:
    """The session ``ns.save`` names (a name in the saves directory, or a path), open
    as its writer, or ``readonly``."""
    from gmdesk.core.session.session import Session

    return Session.open(session_store(ns).resolve(ns.save), readonly=readonly)


def spec_or_none(system: str) -> SystemSpec | None:
    """The declaration of the system ``system``, or None when it is not installed here."""
    from gmdesk.core.systems import get_spec

    try:
        return get_spec(system)
    except ParamError:
        return None


def choice(label: str, value: str, choices: tuple[str, ...]) -> str:
    """The one of ``choices`` ``value`` names, case ignored (``ParamError`` naming ``label``)."""
    match = next((c for c in choices if c.casefold() == value.strip().casefold()), None)
    if match is None:
        raise ParamError(label, f"must be {' or '.join(choices)} (got {value!r})")
    return match


def int_option(option: str, value: str | None, lo: int, hi: int | None = None) -> int | None:
    """A whole-number option's value in ``lo..hi``, or None when it was not given."""
    if value is None:
        return None
    from gmdesk.core.systems.base import parse_int

    return parse_int(option, value, lo, hi)
