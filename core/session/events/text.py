"""Numbers and statuses as the GM reads them in summaries and changes."""

from __future__ import annotations

from gmdesk.core.text import signed as _signed


def num(n: int) -> str:
    """A number as the GM reads it: 3, 0, −1 (a real minus sign)."""
    return f"−{-n}" if n < 0 else str(n)


def initiative_words(system: str, n: int) -> str:
    """An initiative as the GM reads it in ``system``: as the system words one (its
    declaration's ``show_initiative``: a ladder level, "Great"), else the number."""
    from gmdesk.core.errors import ParamError
    from gmdesk.core.systems import get_spec

    try:
        show = get_spec(system).show_initiative
    except ParamError:  # a system that no longer loads: its number
        show = None
    return show(n) if show is not None else num(n)


def signed(n: int) -> str:
    """A bonus or a value as changes print it: ``+2``, ``−1``, ``+0``."""
    return _signed(n, zero="+0")


def status_word(status: str) -> str:
    return {"ok": "OK", "unconscious": "Unconscious", "dead": "Dead"}.get(status, status)
