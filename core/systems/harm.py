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

The parts only some systems declare (:class:`DescriptorStatus`, :class:`Clocks`,
:class:`Spend`, :class:`Imposed`, and :data:`OUT`) are read from here too; they live in
:mod:`core.systems.harm_parts`, loaded when a module asks for one, so that a system
declaring none of them never makes their classes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import gmdesk.core.systems as _systems  # (its get_spec, read when asked: it imports this module)
from gmdesk.core.errors import ParamError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from gmdesk.core.systems.harm_parts import OUT as OUT
    from gmdesk.core.systems.harm_parts import Clocks as Clocks
    from gmdesk.core.systems.harm_parts import DescriptorStatus as DescriptorStatus
    from gmdesk.core.systems.harm_parts import Imposed as Imposed
    from gmdesk.core.systems.harm_parts import Spend as Spend
else:

    def __getattr__(name: str) -> object:
        """The parts of a Harm only some systems declare (:mod:`core.systems.harm_parts`),
        loaded when a module asks for one: a system declaring none never makes them."""
        if name in _PARTS:
            from gmdesk.core.systems import harm_parts

            return getattr(harm_parts, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: what :mod:`core.systems.harm_parts` holds, read here as if it were this module's own
_PARTS = ("OUT", "Clocks", "DescriptorStatus", "Imposed", "Spend")

#: the built-in table role of the descriptors that change a status ("Fatal Wound",
#: "Incapacitated"…: ``core/data/wound-status.json``); a session may point it at a
#: GM's own table (its ``tables`` setting)
WOUND_STATUS = "wound-status"


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
    # (the parts only some systems declare are loaded only when declared: harm_parts)
    if harm.statuses:
        from gmdesk.core.systems.harm_parts import DescriptorStatus

        for s in harm.statuses:
            _need(where, isinstance(s, DescriptorStatus), f"statuses holds {s!r}, not a DescriptorStatus")
    _need(where, isinstance(harm.status_table, str), "status_table must be a table role (text)")
    if harm.clocks is not None:
        from gmdesk.core.systems.harm_parts import Clocks

        _need(where, isinstance(harm.clocks, Clocks), "clocks must be a Clocks or None")
    _need(where, isinstance(harm.imposes, tuple), "imposes must be a tuple of Imposed")
    if harm.imposes:
        from gmdesk.core.systems.harm_parts import Imposed

        for x in harm.imposes:
            _need(where, isinstance(x, Imposed), f"imposes holds {x!r}, not an Imposed")
    spend = harm.spend
    if spend is not None:
        from gmdesk.core.systems.harm_parts import Spend

        _need(where, isinstance(spend, Spend), "spend must be a Spend or None")
        _need(
            where,
            not spend.param or not param_names or spend.param in param_names,
            f"spend.param names {spend.param!r}, which is no parameter",
        )
        _need(where, spend.cancel is None or callable(spend.cancel), "spend.cancel must be a function")
    if harm.clocks is None and clocks:
        from gmdesk.core.systems.harm_parts import Clocks

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
