"""The parts of a :class:`~gmdesk.core.systems.harm.Harm` only some systems declare:
the descriptors that make their receiver Unconscious or Dead (:class:`DescriptorStatus`),
how a roll moves a progress clock (:class:`Clocks`), what it spends of its roller's
Possibilities (:class:`Spend`) and the conditions it imposes (:class:`Imposed`).

Read them from :mod:`core.systems.harm`, as a system does (``from
gmdesk.core.systems.harm import Clocks, Harm``): they are kept here, out of the module
every declaration loads, so that a system that declares none of them (4d2, fudge,
1d6x4) never makes their classes (tests/test_cli_startup.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from gmdesk.core.dice import RollRecord
    from gmdesk.core.tables import TableSet

#: the statuses a descriptor or a Vitality threshold may give (besides ``ok``)
OUT = ("unconscious", "dead")


@dataclasses.dataclass(frozen=True)
class DescriptorStatus:
    """A descriptor that makes whoever takes it Unconscious or Dead while they carry
    it (a buy-off or the GM taking the wound off lifts it again).

    ``text``: the descriptor's text, matched ignoring case; ``status``:
    ``"unconscious"`` or ``"dead"``; ``column``: only a descriptor read from that
    column of its table (``organic`` / ``inorganic``, the receiver's kind), ``"*"``
    from any."""

    text: str
    status: str
    column: str = "*"

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise ValueError("a DescriptorStatus names its descriptor's text")
        if self.status not in OUT:
            raise ValueError(f"descriptor {self.text!r}: status must be one of {', '.join(OUT)}")

    def matches(self, text: str, column: str) -> bool:
        return self.text.casefold() == text.casefold() and self.column.casefold() in ("*", "", column.casefold())


@dataclasses.dataclass(frozen=True)
class Clocks:
    """How a roll of the system moves a progress clock: ``field`` names the record's
    own field (``RollRecord.extra``) holding the progress the roll earned, in half
    segments (``0``: none). The GM picks the clock (the roll dialog asks which); the
    roll's function computes the progress, so that replaying the log never decides
    it again."""

    field: str = "clock"

    def earned(self, record: RollRecord) -> int | None:
        """The progress the roll earned (half segments), or None when its record holds
        none (such a roll moves no clock)."""
        value = record.get(self.field)
        return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclasses.dataclass(frozen=True)
class Spend:
    """What a roll of the system spends of its roller's Possibilities (a reality-rated
    character's; torg's).

    ``param``: the roll parameter that counts the Possibilities spent as the roll is
    made (the roller pays them; refused before any die is rolled if it has too few).
    ``after``: whether a Possibility may be spent on the roll once it is made (the
    system's move rolls the record again and the session applies the new one).
    ``cancel(record, tables)``: the record with the latest spend cancelled, when
    another reality-rated character cancels it (None: spends cannot be cancelled)."""

    param: str = ""
    after: bool = False
    cancel: Callable[[RollRecord, TableSet], RollRecord] | None = None

    def at_roll(self, record: RollRecord) -> int:
        """How many Possibilities the roll's parameters spend as it is made."""
        if not self.param:
            return 0
        try:
            return max(0, int(record.params.get(self.param, 0) or 0))
        except (TypeError, ValueError):
            return 0


@dataclasses.dataclass(frozen=True)
class Imposed:
    """A condition a roll imposes on its roller when its record's own field ``field``
    is set (true): torg's Disconnected. A later re-read of the roll (a Possibility
    spent or cancelled) lifts it again when the new record no longer sets it."""

    condition: str
    field: str

    def __post_init__(self) -> None:
        if not self.condition.strip() or not self.field.strip():
            raise ValueError("an Imposed condition names the condition and the record field")
