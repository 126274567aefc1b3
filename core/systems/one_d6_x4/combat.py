"""What a 1d6x4 attack does once its Test is decided: whom it hurts, the Vitality
Adjustment rolled after the Test dice, and the descriptor the receiver gets ("Wound
−4 Vitality", or a "Miss" / a stalemate that leaves no mark)."""

from __future__ import annotations

from gmdesk.core.dice import Descriptor, Die
from gmdesk.core.systems.one_d6_x4.damage import roll_damage
from gmdesk.core.systems.one_d6_x4.params import DEFENDER, Params
from gmdesk.core.systems.one_d6_x4.texts import text_for
from gmdesk.core.tables import TableSet

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from gmdesk.core.dice import RandomSource


def _hurt(
    applies_to: str, formula: str, rng: RandomSource, tables: TableSet
) -> tuple[tuple[Die, ...], int, Descriptor]:
    dice, amount = roll_damage(formula, rng)
    key = "hit" if amount > 0 else "graze"
    _, text, table = text_for(key, tables, amount=amount)
    return dice, amount, Descriptor(text=text, applies_to=applies_to, table=table, amount=amount, wound=amount > 0)


def _no_hurt(key: str, tables: TableSet) -> Descriptor:
    _, text, table = text_for(key, tables, amount=0)
    return Descriptor(text=text, applies_to="target", table=table, amount=0, wound=False)


def attack_result(
    params: Params, hit: bool, prevails: str | None, tie: bool, rng: RandomSource, tables: TableSet
) -> tuple[tuple[Die, ...], int | None, Descriptor]:
    """An attack's ``(damage dice, amount or None, descriptor)``: the attacker's Test
    ``hit`` (it prevailed, or reached the GM's target) hurts the target by the
    attacker's ``damage``; in a mutual melee whoever prevails hurts the loser, by its
    own weapon's formula (a defender who prevails: ``vs_damage``), also over a side that fails automatically;
    a tie, or both sides failing automatically, is a stalemate (nobody attempted
    anything); one who cannot act hurts nobody."""
    both_fail = bool(params.auto_fail and params.vs_auto_fail)
    if hit:
        return _hurt("target", params.damage, rng, tables)
    if (
        params.mutual and params.two_way and prevails == DEFENDER and not tie and not both_fail
    ) and not params.defenseless:  # one who cannot act hurts nobody
        return _hurt("attacker", params.vs_damage, rng, tables)  # the defender's weapon
    return (), None, _no_hurt("stalemate" if (params.mutual and (tie or both_fail)) else "miss", tables)
