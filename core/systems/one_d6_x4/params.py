"""What a 1d6x4 roll is given: its :class:`Params` (checked as a command line, a form or
a save gives them), their JSON, and their declaration ``PARAMS`` from which the CLI
options, the roll form and the breakdown's labels are generated."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gmdesk.core.errors import ParamError
from gmdesk.core.systems.base import CombatFields, dataclass_from_json, dataclass_to_json, parse_int, shown
from gmdesk.core.systems.one_d6_x4.damage import format_damage, parse_damage
from gmdesk.core.systems.spec import Param

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

#: the system's id, which every record of these parameters names
ID = "1d6x4"

#: what a bonus (either side's descriptors summed) may be
BONUS_RANGE = (-999, 999)

#: the sides of a two-way Test: who prevails, whom an attack hurts
ATTACKER = "attacker"
DEFENDER = "defender"


def _opt_int(option: str, value: Any) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_int(option, value, *BONUS_RANGE)


def _opt_reason(option: str, value: Any) -> str | None:
    if value is None or value is False:
        return None
    text = " ".join(str(value).split())
    return text or None


def _flag(option: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "no", "0", "off", ""):
        return False
    raise ParamError(option, f"must be true or false (got {shown(value)})")


@dataclasses.dataclass(frozen=True)
class Params(CombatFields):
    """Everything a 1d6x4 Test needs.

    ``bonus`` is the sum of the attacker's descriptors; ``target`` the GM's secret
    number (or None); ``vs_bonus`` makes a two-way Test (the defender's descriptors);
    ``defender_takes_14`` has the defender take 14 instead of rolling; ``auto_fail`` /
    ``vs_auto_fail`` say why a side cannot perform its Test; ``mutual`` makes a combat
    roll a mutual melee; ``damage`` is the Vitality Adjustment formula of the roller's
    item, use or ability, ``vs_damage`` the defender's, dealt when it prevails in a
    mutual melee (each d6 unless its weapon names another); ``test`` /
    ``vs_test`` name the descriptors added, for the log.
    """

    bonus: int = 0
    target: int | None = None
    vs_bonus: int | None = None
    defender_takes_14: bool = False
    auto_fail: str | None = None
    vs_auto_fail: str | None = None
    mutual: bool = False
    damage: str = "d6"
    vs_damage: str = "d6"
    test: str = ""
    vs_test: str = ""
    defenseless: bool = False
    missing: str = ""
    vs_missing: str = ""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        bonus: object = self.bonus  # as given: a form or a command line may leave it empty
        set_(self, "bonus", parse_int("--bonus", 0 if bonus in (None, "") else bonus, *BONUS_RANGE))
        set_(self, "target", _opt_int("--target", self.target))
        set_(self, "vs_bonus", _opt_int("--vs-bonus", self.vs_bonus))
        set_(self, "test", " ".join(str(self.test or "").split()))
        set_(self, "vs_test", " ".join(str(self.vs_test or "").split()))
        set_(self, "missing", " ".join(str(self.missing or "").split()))
        set_(self, "vs_missing", " ".join(str(self.vs_missing or "").split()))
        if self.vs_bonus is None and self.vs_test:  # a defender named makes a two-way Test
            set_(self, "vs_bonus", 0)
        set_(self, "defender_takes_14", _flag("--defender-takes-14", self.defender_takes_14))
        set_(self, "mutual", _flag("--mutual", self.mutual))
        set_(self, "defenseless", _flag("--defenseless", self.defenseless))
        set_(self, "combat", _flag("--combat", self.combat))
        set_(self, "auto_fail", _opt_reason("--auto-fail", self.auto_fail))
        set_(self, "vs_auto_fail", _opt_reason("--vs-auto-fail", self.vs_auto_fail))
        set_(self, "damage", format_damage(*parse_damage(self.damage if self.damage not in (None, "") else "d6")))
        vs_damage = self.vs_damage if self.vs_damage not in (None, "") else "d6"
        set_(self, "vs_damage", format_damage(*parse_damage(vs_damage, "--vs-damage")))
        self._check_combat()
        if self.vs_bonus is not None and self.target is not None:
            raise ParamError(
                "--target", "a two-way Test compares the two totals; give --target or --vs-bonus, not both"
            )
        if self.defender_takes_14 and self.vs_bonus is None:
            raise ParamError("--defender-takes-14", "needs --vs-bonus (the defender's descriptors; 0 for none)")
        if self.vs_auto_fail and self.vs_bonus is None:
            raise ParamError("--vs-auto-fail", "needs --vs-bonus (only a two-way Test has a defender)")
        if self.mutual and not self.combat:
            raise ParamError("--mutual", "is for a fight: add --combat")
        if self.mutual and self.vs_bonus is None:
            raise ParamError(
                "--mutual", "a mutual melee is a two-way Test: give --vs-bonus (the other side's descriptors)"
            )
        if self.combat and self.vs_bonus is None and self.target is None:
            raise ParamError(
                "--vs-bonus", "a combat roll needs the defender's Defense: give --vs-bonus N (or the GM's --target N)"
            )

    @property
    def two_way(self) -> bool:
        return self.vs_bonus is not None


def params_to_json(params: Params) -> dict[str, Any]:
    return dataclass_to_json(params)


def params_from_json(data: Mapping[str, Any]) -> Params:
    return dataclass_from_json(Params, data)


#: The 1d6x4 roll parameters (core.systems.spec): the CLI options, the roll form and
#: the breakdown's labels are generated from them.
PARAMS = (
    Param(
        "test",
        "Descriptors",
        "text",
        "",
        "the descriptors tested, e.g. 'Precision+Slingshot Expertise+Slingshot'; with "
        "--save/--as they are read from the roller's sheet (added to --bonus; a missing "
        "Item, Ability or Use fails automatically)",
        placeholder="e.g. Precision, Bow",
        metavar="NAMES",
        remember=True,
    ),
    Param(
        "bonus",
        "Extra bonus",
        "int",
        0,
        "the Current Values of the descriptors tested, summed (default 0)",
        metavar="N",
        remember=True,
    ),
    Param(
        "target",
        "Target number",
        "int",
        None,
        "the GM's secret target number: success iff total >= N",
        optional=True,
        secret=True,
        placeholder="secret; empty: none",
        metavar="N",
        # the GM's number stands for the defense: the defender's Defense Test is not filled
        replaces=("vs_test", "vs_bonus", "vs_auto_fail", "defender_takes_14"),
    ),
    Param(
        "vs_test",
        "Defender's",
        "text",
        "",
        "the defender's descriptors (e.g. Defense), read from the --at character's sheet",
        placeholder="e.g. Defense",
        metavar="NAMES",
        combat_default="Defense",
    ),
    Param(
        "vs_bonus",
        "Defender bonus",
        "int",
        None,
        "two-way Test: the defender's descriptors (in combat: its Defense)",
        optional=True,
        placeholder="empty: not two-way",
        metavar="N",
    ),
    Param(
        "defender_takes_14",
        "Defender takes 14",
        "bool",
        False,
        "the defender takes 14 + its descriptors instead of rolling",
    ),
    # a mutual melee and the damage count only in an attack (a plain Test refuses a
    # mutual melee); the damage is the roller's weapon's, remembered
    Param(
        "mutual",
        "Mutual melee",
        "bool",
        False,
        "combat: a mutual melee, the winner hurts the loser",
        offered="attack",
    ),
    Param(
        "damage",
        "Damage",
        "text",
        "d6",
        "the Vitality Adjustment: d6 (default), 2d6, d6+2, …",
        metavar="FORMULA",
        remember=True,
        offered="attack",
    ),
    Param(
        "vs_damage",
        "Defender deals",
        "text",
        "d6",
        "mutual melee: the Vitality Adjustment the defender deals if it prevails (its own weapon's)",
        metavar="FORMULA",
        remember=False,
        offered="attack",
    ),
    Param(
        "missing",
        "Not on the sheet (+0)",
        "text",
        "",
        "the names of the Test the roller's sheet lacks that count +0 (read from the sheet; kept on the record)",
        form=False,
        cli=False,
        remember=False,
    ),
    Param(
        "vs_missing",
        "Defender: not on the sheet (+0)",
        "text",
        "",
        "the defender's names its sheet lacks that count +0",
        form=False,
        cli=False,
        remember=False,
    ),
    Param(
        "defenseless",
        "Defender cannot act",
        "bool",
        False,
        "the defender cannot act (Unconscious, Dead): no defense roll, its lowest total (4 + its descriptors) counts",
        form=False,
        remember=False,
    ),
    Param(
        "auto_fail",
        "Automatic failure",
        "text",
        None,
        "the Test fails automatically (e.g. 'Slingshot is missing'); no die is rolled",
        optional=True,
        metavar="REASON",
        form=False,
    ),
    Param(
        "vs_auto_fail",
        "Defender fails automatically",
        "text",
        None,
        "the defender cannot perform its Test",
        optional=True,
        metavar="REASON",
        form=False,
    ),
)

#: the parameter the session sets when the defender cannot act (core.systems.spec)
DEFENSELESS = "defenseless"
