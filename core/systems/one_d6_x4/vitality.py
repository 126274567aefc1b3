"""1d6x4 Vitality: what an injury leaves (the rule ``HARM`` the session applies:
Unconscious at −5 or lower, any further injury kills) and what the Healing Ability
gives back. This module only computes; the session applies both."""

from __future__ import annotations

from gmdesk.core.dice import Descriptor, RollRecord
from gmdesk.core.systems.base import parse_int
from gmdesk.core.systems.harm import Harm, Vitality
from gmdesk.core.systems.one_d6_x4.damage import die
from gmdesk.core.systems.one_d6_x4.params import ID
from gmdesk.core.systems.one_d6_x4.texts import text_for
from gmdesk.core.tables import DEFAULT_TABLES, TableSet

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from gmdesk.core.dice import RandomSource

#: Vitality at or below this: Unconscious
UNCONSCIOUS_AT = -5
#: what its rolls do: a Vitality Adjustment (the descriptor's amount) comes off the
#: receiver's Vitality; at −5 or lower Unconscious; any further injury kills
HARM = Harm(vitality=Vitality(hurt_by_amount=True, unconscious_at=UNCONSCIOUS_AT, hurt_while_out_kills=True))


def vitality_after(current: int, amount: int, already_unconscious: bool = False) -> tuple[int, str]:
    """Vitality after an injury of ``amount``: ``(new_current, status)``, status ``ok``,
    ``unconscious`` (at −5 or lower) or ``dead`` (any further injury — amount > 0 —
    to a character already Unconscious, or already at −5 or lower)."""
    current = parse_int("vitality", current)
    amount = parse_int("amount", amount, 0)
    rule = HARM.vitality  # the rule the session applies (core.systems.harm)
    new, kills = rule.after(current, amount, already_unconscious)
    if kills:
        return new, "dead"
    if already_unconscious or rule.out(current) or rule.out(new):
        return new, "unconscious"
    return new, "ok"


def heal(rng: RandomSource, current: int, default: int, tables: TableSet = DEFAULT_TABLES) -> tuple[RollRecord, int]:
    """Healing Ability: a d6 Vitality Adjustment back to ``current``, never above
    ``default`` (a Vitality already at or above its Default stays as it is). Returns the
    record (value: the die; ``restored``: what was actually gained) and the new
    current. The healer's use is spent by the session (``Sheet.spend_use``)."""
    current = parse_int("vitality", current)
    default = parse_int("vitality default", default)
    d = die(rng)
    new = max(current, min(default, current + d.value))
    restored = new - current
    _, text, table = text_for("heal", tables, amount=restored)
    desc = Descriptor(text=text, applies_to="target", table=table, amount=restored, wound=False)
    extra = {
        "heal": True,
        "vitality_before": current,
        "vitality_after": new,
        "vitality_default": default,
        "restored": restored,
        "capped": restored < d.value,
    }
    record = RollRecord(system=ID, params={}, dice=(d,), value=d.value, outcome=text, extra=extra, descriptors=(desc,))
    return record, new
