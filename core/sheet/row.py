"""One Descriptor row of a sheet, and how its values are written."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: columns a tab advances to (the rules' location sheet lines up with 4)
TAB = 4
#: unlimited uses
INF = "inf"
#: a descriptor at or below this cannot be used ("at or below −5")
UNUSABLE_AT = -5
#: a Default or uses count: an int, "inf" or None (not written)
Uses = int | str | None


def fmt_value(v: int | None) -> str:
    return "" if v is None else f"{v:+d}"


def fmt_uses(u: Uses) -> str:
    return "" if u is None else f"({u})"


@dataclass(frozen=True)
class Row:
    """One Descriptor line.

    ``name`` is the name without quantity (``Lock pick`` for ``1 Lock pick``),
    ``quantity`` the count written before it (``"1"``, ``"20ft"``) or None.
    ``default`` / ``current`` are the ``+N`` values, ``uses_default`` /
    ``uses_current`` the counts in parentheses (an int or ``"inf"``); None means not
    written. ``notes`` is the notes text as written, parentheses included. ``depth``
    is the indentation width (nesting), ``sub`` the ``*`` marker.

    ``raw`` (the line as written) and ``before`` (blank lines above the row) are
    layout: they take no part in equality.
    """

    name: str
    default: int | None = None
    current: int | None = None
    uses_default: Uses = None
    uses_current: Uses = None
    notes: str = ""
    depth: int = 0
    sub: bool = False
    quantity: str | None = None
    raw: str | None = field(default=None, compare=False, repr=False)
    before: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def label(self) -> str:
        """The name with its quantity, as written (``2 shovels``, ``20ft of thread``)."""
        if not self.quantity:
            return self.name
        joiner = " of " if re.search(r"[A-Za-z]", self.quantity) else " "
        return f"{self.quantity}{joiner}{self.name}"

    @property
    def value(self) -> int:
        """What the row adds to a Test: Current if written, else Default, else +0."""
        if self.current is not None:
            return self.current
        return self.default if self.default is not None else 0

    @property
    def uses(self) -> Uses:
        """Uses left: Current count if written, else the Default count (None: not counted)."""
        return self.uses_current if self.uses_current is not None else self.uses_default

    @property
    def has_value(self) -> bool:
        return self.default is not None or self.current is not None
