"""Numbers and statuses as the GM reads them in summaries and changes."""

from __future__ import annotations


def num(n: int) -> str:
    """A number as the GM reads it: 3, 0, −1 (a real minus sign)."""
    return f"−{-n}" if n < 0 else str(n)


def signed(n: int) -> str:
    return f"−{-n}" if n < 0 else f"+{n}"


def status_word(status: str) -> str:
    return {"ok": "OK", "unconscious": "Unconscious", "dead": "Dead"}.get(status, status)
