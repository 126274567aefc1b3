"""How gmdesk writes numbers and times for a GM to read.

One place for the small formats every layer shares: a signed number (``+3``,
``−2``) and a moment (``2026-11-21 22:10``). The systems, the session and the
screens all print through these, each saying what it needs (how zero reads, which
minus sign) instead of keeping its own copy.
"""

from __future__ import annotations

import re as _re
from functools import cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    import datetime as _dt

#: the typographic minus sign, as printed numbers use it
MINUS = "\u2212"


def signed(n: object, *, zero: str = "0", minus: str = MINUS) -> str:
    """``n`` with its sign: ``+3``, ``−2``.

    ``zero`` is how 0 reads: ``"0"`` for a die face or an outcome label (the
    default), ``"+0"`` for a bonus or a modifier. ``minus`` is the sign written
    before a negative number: the typographic minus (the default), or ``"-"`` where
    the text is read back by a parser or the plain ASCII form is what is shown.
    Anything that is not an integer (a bool, None, a string) reads as ``str(n)``.
    """
    if isinstance(n, bool) or not isinstance(n, int):
        return str(n)
    if n > 0:
        return f"+{n}"
    if n < 0:
        return f"{minus}{-n}"
    return zero


@cache
def _hyphen_minus() -> _re.Pattern[str]:
    """A hyphen written as a minus sign: before a digit, not inside a word or a number
    (``d6-2``, ``2026-11-21`` and ``--shift`` keep theirs). Compiled when first
    needed: ``gmdesk roll --json`` reads no line."""
    return _re.compile(r"(?<![\w\-\u2212.])-(?=\d)")


def reading(text: str) -> str:
    """``text`` with every minus sign the typographic one: ``Vitality -3 → -1`` reads
    ``Vitality −3 → −1``. For lines a GM or a player reads (logs, chronicles, the
    desk), among them lines saved by earlier gmdesks; never for what is parsed back
    (a sheet keeps its own notation, ``--json`` its numbers)."""
    return _hyphen_minus().sub(MINUS, text) if "-" in text else text


def now_iso() -> str:
    """This moment in local time with its UTC offset, to the second:
    ``2026-11-21T22:10:05+01:00`` (how the saves record every time). Made once a
    second (and again when the time zone is changed): ``roll --count N --save``
    stamps hundreds of events a second."""
    import time as _time

    global _NOW
    key = (int(_time.time()), _time.timezone, _time.altzone, _time.tzname)
    if _NOW[0] != key:
        import datetime as _dt  # (imported when first needed: ``gmdesk roll`` tells no time)

        _NOW = (key, _dt.datetime.fromtimestamp(key[0]).astimezone().isoformat(timespec="seconds"))
    return _NOW[1]


#: :func:`now_iso`'s latest: ((second, the time zone's offsets and names), its text)
_NOW: tuple[tuple[object, ...], str] = ((), "")


def short_time(value: object, *, never: str = "never", local: bool = True) -> str:
    """``2026-11-21 22:10`` from an ISO time string (or a datetime, or a timestamp).

    ``never`` is what an empty value reads as. With ``local`` (the default) a time
    that carries its UTC offset is shown in this machine's zone; ``local=False``
    keeps the wall-clock time it was written in (a chronicle tells the evening as it
    was played). Text that is not an ISO time is shown cut to 16 characters.
    """
    if value is None or value == "":
        return never
    import datetime as _dt

    when: _dt.datetime
    if isinstance(value, _dt.datetime):
        when = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        when = _dt.datetime.fromtimestamp(value)
    else:
        try:
            when = _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            return str(value)[:16]
    if local and when.tzinfo is not None:
        when = when.astimezone()
    return when.strftime("%Y-%m-%d %H:%M")
