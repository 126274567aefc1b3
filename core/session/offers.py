"""What the desk offers as a default, read from the state (the UI only shows it).

The rules live with the moves of the built-in systems
(:mod:`core.systems.builtin_moves`, :mod:`core.systems.wound_offers`,
:mod:`core.systems.clock_moves`); this module names them for the session's side:

* :func:`pending_clock_progress`: the clock progress the latest roll of a system
  whose rolls move clocks earned and that no clock has taken yet — the default of
  the next clock tick;
* :func:`buyoff_choices`: a character's wounds for a Possibility buy-off, newest first, each
  with how old it is; the default is the first one, the damage just taken;
* :func:`damage_just_taken`: the damage of the last roll against a character, what
  a buy-off without a pick takes off (:func:`nothing_to_buy_off` says why none).
"""

from __future__ import annotations

from gmdesk.core.systems.builtin_moves import nothing_to_buy_off
from gmdesk.core.systems.clock_moves import ClockOffer, pending_clock_progress
from gmdesk.core.systems.wound_offers import (
    WoundChoice,
    buyoff_choices,
    damage_just_taken,
    latest_wound_index,
    wound_age,
)

__all__ = [
    "ClockOffer",
    "WoundChoice",
    "buyoff_choices",
    "damage_just_taken",
    "nothing_to_buy_off",
    "latest_wound_index",
    "pending_clock_progress",
    "wound_age",
]
