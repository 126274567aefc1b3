"""A 4d6 character: the fields a GM keeps on it (skills, attack skill, defense DC,
contest skill, initiative bonus), the sources its rolls read, and its rest between
sessions."""

from __future__ import annotations

from collections.abc import Iterable

from gmdesk.core.errors import ParamError
from gmdesk.core.systems.core_4d6.rules import parse_dc
from gmdesk.core.systems.rest import default_rest
from gmdesk.core.systems.spec import CharField

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

# What a 4d6 GM keeps on a character sheet: its skill bonuses (a roll is 4d6 + the
# bonus against a DC), the skill it attacks with, the DC an attack on it must beat (its
# defense) and its initiative bonus (initiative is 4d6 + bonus). Advantage sources
# stay the character's sources (its advantage section), read as they are today.


def _dc(option: str, value: Any) -> int | None:
    try:
        return parse_dc(value)
    except ParamError as e:
        raise ParamError(option, e.message) from None


CHARACTER_FIELDS = (
    CharField(
        "skills",
        "Skills",
        "stats",
        help="skill bonuses, e.g. Blades=2, Stealth=3",
        lo=-99,
        hi=99,
        placeholder="Blades=2, Stealth=3",
    ),
    CharField(
        "attack_skill",
        "Attack skill",
        "stat",
        feeds="bonus",
        stats="skills",
        combat_only=True,
        help="the skill an attack uses unless another is named (its bonus is the roll's)",
        placeholder="Blades",
    ),
    CharField(
        "defense_dc",
        "Defense DC",
        "int",
        feeds="dc",
        from_="target",
        combat_only=True,
        lo=1,
        hi=99,
        parse=_dc,
        help="the DC an attack on this character must beat (a number or a ladder name)",
        placeholder="16",
        fills=("attack",),  # a contest has no DC
    ),
    CharField(
        "contest_skill",
        "Contest skill",
        "stat",
        feeds="vs_bonus",
        from_="target",
        stats="skills",
        fills=("opposed",),
        help="the skill this character opposes a contest with unless another is named (its bonus is the Vs bonus)",
        placeholder="Perception",
    ),
    CharField(
        "initiative_bonus",
        "Initiative bonus",
        "int",
        feeds="initiative",
        lo=-99,
        hi=99,
        help="the bonus initiative adds to its 4d6",
    ),
)


#: the character's sources a 4d6 roll reads (the roller's advantage sources; in a
#: contest the opponent's are typed as Vs advantage), and whether the target's count
ROLL_SOURCES = ("advantage", False)


def sources_params(sources: Iterable[Any]) -> dict[str, Any]:
    """``adv``: the values of the roller's switched-on advantage sources."""
    return {"adv": tuple(s.value for s in sources if s.owner == "own")}


def rest(character: dict[str, Any]) -> dict[str, Any]:
    """Recovery between sessions (``gmdesk new … --from … --rest``). The rules say
    nothing of it, so gmdesk does what a GM at the table expects: Vitality back to
    its default, every wound (descriptor) cleared, conditions and sources counted in
    rounds over; those without a duration, the system's fields and the Dead stay as
    they were (docs/CAMPAIGNS.md)."""
    return default_rest(character)
