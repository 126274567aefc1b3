"""What a 4d6 roll is given: its :class:`Params` (checked as a command line, a form or a
save gives them), their JSON, and their declaration ``PARAMS`` from which the CLI
options, the roll form and the breakdown's labels are generated."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gmdesk.core.errors import ParamError
from gmdesk.core.systems.base import (
    CombatFields,
    dataclass_from_json,
    dataclass_to_json,
    parse_choice,
    parse_int,
)
from gmdesk.core.systems.core_4d6.rules import net_advantage, parse_dc, parse_sources
from gmdesk.core.systems.core_4d6.tables import (
    DEFAULT_DC,
    EFFECTS,
    POSITIONS,
)
from gmdesk.core.systems.spec import Param

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

#: the system's id, which every record of these parameters names
ID = "4d6"


def _parse_optional_int(option: str, value: Any) -> int | None:
    return None if value is None else parse_int(option, value)


@dataclasses.dataclass(frozen=True)
class Params(CombatFields):
    """Everything a 4d6 roll needs.

    ``adv`` / ``vs_adv`` are the advantage sources (each +1, +2, −1 or −2) of the
    roller and of the opponent; ``vs_bonus`` set makes the roll a contest.
    """

    bonus: int = 0
    dc: int | None = None
    adv: tuple[int, ...] = ()
    vs_bonus: int | None = None
    vs_adv: tuple[int, ...] = ()
    position: str = "standard"
    effect: str = "standard"
    defenseless: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if not isinstance(self.defenseless, bool):
            text = str(self.defenseless).strip().lower()
            if text not in ("true", "yes", "1", "on", "false", "no", "0", "off", ""):
                raise ParamError("--defenseless", f"must be true or false (got {self.defenseless!r})")
            set_(self, "defenseless", text in ("true", "yes", "1", "on"))
        set_(self, "bonus", parse_int("--bonus", self.bonus))
        set_(self, "dc", parse_dc(self.dc))
        set_(self, "adv", parse_sources("--adv", self.adv))
        set_(self, "vs_bonus", _parse_optional_int("--vs-bonus", self.vs_bonus))
        set_(self, "vs_adv", parse_sources("--vs-adv", self.vs_adv))
        # an empty position or effect (``--position ""``) is the standard one
        position = str(self.position or "standard").strip().lower()
        set_(self, "position", parse_choice("--position", position, POSITIONS))
        set_(self, "effect", parse_choice("--effect", str(self.effect or "standard").strip().lower(), EFFECTS))
        if not isinstance(self.combat, bool):
            raise ParamError("--combat", f"must be true or false (got {self.combat!r})")
        self._check_combat()
        if self.vs_bonus is not None and self.dc is not None:
            raise ParamError("--vs-bonus", "a contest compares totals and takes no --dc; drop one of them")
        if self.vs_adv and self.vs_bonus is None:
            raise ParamError("--vs-adv", "needs --vs-bonus (the opponent's bonus in a contest)")

    @property
    def advantage(self) -> int:
        return net_advantage(self.adv)

    @property
    def vs_advantage(self) -> int:
        return net_advantage(self.vs_adv)

    @property
    def contest(self) -> bool:
        return self.vs_bonus is not None

    @property
    def effective_dc(self) -> int | None:
        """The DC the roll is read against: the given one, else 16 (Standard); None in a
        contest (totals are compared, there is no DC)."""
        if self.contest:
            return None
        return self.dc if self.dc is not None else DEFAULT_DC


def params_to_json(params: Params) -> dict[str, Any]:
    return dataclass_to_json(params)


def params_from_json(data: Mapping[str, Any]) -> Params:
    return dataclass_from_json(Params, data)


#: The 4d6 roll parameters (core.systems.spec): the CLI options, the roll form and
#: the breakdown's labels are generated from them.
PARAMS = (
    Param("bonus", "Bonus", "int", 0, "bonus added to the 4 kept dice", metavar="N", remember=True),
    Param(
        "dc",
        "DC",
        "text",
        None,
        "DC: a number or a ladder name (12 Simple, 14 Routine, 16 Standard, "
        "18 Difficult, 20 Very Difficult, 22 Exceptional); default 16, none in a contest",
        optional=True,
        placeholder="empty: 16 Standard",
        metavar="N",
        offered="unopposed",
    ),
    Param(
        "adv",
        "Advantage",
        "text",
        "",
        "advantage sources, each +1, +2, -1 or -2, e.g. +1,+2,-1",
        placeholder="e.g. +1,-2",
        metavar="SOURCES",
    ),
    Param(
        "vs_bonus",
        "Vs bonus (contest)",
        "int",
        None,
        "contest: the opponent's bonus",
        optional=True,
        placeholder="empty: no contest",
        metavar="N",
        # a contest takes no DC: the defender's DC the session would fill is left out
        replaces=("dc",),
    ),
    Param(
        "vs_adv",
        "Vs advantage",
        "text",
        "",
        "contest: the opponent's advantage sources",
        placeholder="e.g. +1",
        metavar="SOURCES",
    ),
    Param(
        "defenseless",
        "Opponent cannot act",
        "bool",
        False,
        "contest: the opponent cannot act (Unconscious, Dead): it rolls nothing and counts all 1s",
        form=False,
        remember=False,
    ),
    Param(
        "position",
        "Position",
        "choice",
        "standard",
        "position (default standard)",
        choices=POSITIONS,
        metavar="high|standard|low",
    ),
    Param(
        "effect",
        "Effect",
        "choice",
        "standard",
        "effect (default standard)",
        choices=EFFECTS,
        metavar="great|standard|limited",
    ),
)

#: the parameter the session sets when the opponent cannot act (core.systems.spec)
DEFENSELESS = "defenseless"
