"""What a system's rolls do to characters: how a descriptor changes Vitality, which
descriptors or Vitality thresholds make a character Unconscious or Dead, how a roll
moves a progress clock, what a roll spends of its roller's Possibilities, and the
conditions a roll imposes.

A system declares all of it in one :class:`Harm`, its module's ``HARM`` (optional:
without it, a roll's descriptors pile up as wounds and do nothing else). The session
applies a roll by the declaration of the roll's own system, whatever the session's
system, and names no system itself. The built-ins declare theirs the same way a
plug-in does::

    from gmdesk.core.systems.harm import Harm, Vitality

    HARM = Harm(vitality=Vitality(hurt_by_amount=True, unconscious_at=-1, dead_at=-5))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import gmdesk.core.systems as _systems  # (its get_spec, read when asked: it imports this module)
from gmdesk.core.dice import RollRecord
from gmdesk.core.errors import ParamError
from gmdesk.core.tables import TableSet

#: the statuses a descriptor or a Vitality threshold may give (besides ``ok``)
OUT = ("unconscious", "dead")

#: the built-in table role of the descriptors that change a status ("Fatal Wound",
#: "Incapacitated"…: ``core/data/wound-status.json``); a session may point it at a
#: GM's own table (its ``tables`` setting)
WOUND_STATUS = "wound-status"


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
class Vitality:
    """How the system's descriptors change Vitality, and what Vitality does to status.

    ``hurt_by_amount``: a wound descriptor with an ``amount`` takes that much off its
    receiver's current Vitality (1d6x4's Vitality Adjustment). ``unconscious_at``: a
    character of a session of this system whose Vitality is at or below it is
    Unconscious, and acts again once back above it (None: Vitality knocks nobody
    out). ``dead_at``: an injury that takes Vitality to it or below kills.
    ``hurt_while_out_kills``: any injury (an amount above 0) taken while Unconscious
    kills (1d6x4). Death by injury stays: healing does not undo it (only undoing the
    roll does)."""

    hurt_by_amount: bool = False
    unconscious_at: int | None = None
    dead_at: int | None = None
    hurt_while_out_kills: bool = False

    def __post_init__(self) -> None:
        for name in ("unconscious_at", "dead_at"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"Vitality.{name} must be a whole number or None (got {value!r})")

    def out(self, vitality: int) -> bool:
        """Whether ``vitality`` is at or below the Unconscious threshold."""
        return self.unconscious_at is not None and vitality <= self.unconscious_at

    def after(self, current: int, amount: int, unconscious: bool = False) -> tuple[int, bool]:
        """Vitality after an injury of ``amount``, and whether the injury kills.
        ``unconscious``: the receiver was Unconscious already (whatever made it so)."""
        new = current - amount
        if amount <= 0:
            return new, False
        was_out = unconscious or self.out(current)
        kills = (self.hurt_while_out_kills and was_out) or (self.dead_at is not None and new <= self.dead_at)
        return new, kills


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


@dataclasses.dataclass(frozen=True)
class Harm:
    """What the system's rolls do to characters (its module's ``HARM``).

    ``vitality``: :class:`Vitality`. ``statuses``: the descriptors that make their
    receiver Unconscious or Dead (:class:`DescriptorStatus`). ``status_table``: a
    table role read for more of them, rows ``[descriptor, column or "*", status]``
    (the built-ins' :data:`WOUND_STATUS`; a session's ``tables`` setting may point the
    role at a GM's own table); ``""``: none. A descriptor the system does not name
    there changes no status. ``clocks``: :class:`Clocks` (``CLOCKS = True`` alone
    declares the default one). ``spend``: :class:`Spend`, or None when its rolls
    spend nothing. ``imposes``: :class:`Imposed` conditions."""

    vitality: Vitality = Vitality()
    statuses: tuple[DescriptorStatus, ...] = ()
    status_table: str = ""
    clocks: Clocks | None = None
    spend: Spend | None = None
    imposes: tuple[Imposed, ...] = ()

    def declared_status(self, text: str, column: str) -> str | None:
        """The status the system's own :attr:`statuses` give a descriptor, or None."""
        return next((s.status for s in self.statuses if s.matches(text, column or "")), None)


#: what a system without ``HARM`` (or an unknown one) declares
NO_HARM = Harm()

#: the Vitality rule of the built-ins whose seeds give Vitality no rule of their own
#: (4d2, fudge, torg-2d10, 4d6): a Vitality the GM lowers to −5 or below puts the
#: character out, and bringing it back above acts again (RULES "Who can act"); no
#: descriptor takes Vitality and no injury kills by it. Sessions saved before the
#: rule was each system's own read the same.
DESK_VITALITY = Vitality(unconscious_at=-5)


def _need(where: str, ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(f"{where}.HARM: {what}")


def check_harm(harm: Harm, where: str, param_names: Sequence[str] = (), clocks: bool = False) -> Harm:
    """A declared ``HARM`` checked (``ValueError`` naming ``where``'s member and what is
    wrong), with the default :class:`Clocks` when the system says ``CLOCKS = True``
    and declares no clocks of its own. Called by ``SystemSpec.from_module``, the one
    place that reads a system module."""
    _need(where, isinstance(harm, Harm), f"must be a gmdesk.core.systems.harm.Harm (got {type(harm).__name__})")
    _need(where, isinstance(harm.vitality, Vitality), "vitality must be a Vitality")
    _need(where, isinstance(harm.statuses, tuple), "statuses must be a tuple of DescriptorStatus")
    for s in harm.statuses:
        _need(where, isinstance(s, DescriptorStatus), f"statuses holds {s!r}, not a DescriptorStatus")
    _need(where, isinstance(harm.status_table, str), "status_table must be a table role (text)")
    _need(where, harm.clocks is None or isinstance(harm.clocks, Clocks), "clocks must be a Clocks or None")
    _need(where, isinstance(harm.imposes, tuple), "imposes must be a tuple of Imposed")
    for x in harm.imposes:
        _need(where, isinstance(x, Imposed), f"imposes holds {x!r}, not an Imposed")
    spend = harm.spend
    if spend is not None:
        _need(where, isinstance(spend, Spend), "spend must be a Spend or None")
        _need(
            where,
            not spend.param or not param_names or spend.param in param_names,
            f"spend.param names {spend.param!r}, which is no parameter",
        )
        _need(where, spend.cancel is None or callable(spend.cancel), "spend.cancel must be a function")
    if harm.clocks is None and clocks:
        harm = dataclasses.replace(harm, clocks=Clocks())
    return harm


def harm_of(system_id: str) -> Harm:
    """The declaration of what ``system_id``'s rolls do; :data:`NO_HARM` for a system
    that is not installed."""
    try:
        return _systems.get_spec(system_id).harm
    except ParamError:
        return NO_HARM


__all__ = [
    "Clocks",
    "DescriptorStatus",
    "Harm",
    "Imposed",
    "DESK_VITALITY",
    "NO_HARM",
    "OUT",
    "Spend",
    "Vitality",
    "WOUND_STATUS",
    "harm_of",
    "check_harm",
]
