"""The session settings a GM sets, declared once.

Each :class:`Setting` says what the GM reads and may type — its label, a line of
help, its type, its choices or range, the dice system it belongs to — and parses and
checks a value. Everything that shows or takes a setting is generated from
:data:`SETTINGS`: the desk's "Session settings" dialog (one field per setting), the
desk's help (the session's settings and their values), ``gmdesk new … --setting
KEY=VALUE``, and the ``session.settings`` event's validation and effects list.

The settings are the ones ``RULES.md`` leaves to the session:

* ``skill_threshold`` (4d2): the unshifted Number from which a roll gives a skill
  chance (+9 by default);
* ``ord_positive_reroll`` (torg-2d10): ords (not reality-rated) reroll a maxed
  positive die too (on by default; off denies them the reroll);
* ``fudge_method`` (fudge): the dice method initiative and the roll dialog use
  (``2d3`` by default);
* ``reroll_initiative`` (every system): everyone in the encounter who can act
  rolls initiative again at the start of every round after the first, each roll
  logged (off by default: the order rolled when they joined holds all fight).

A bad value is refused in one line naming the setting by its label and saying what
it accepts ("Skill chance threshold (4d2) must be a whole number from 1 to 11 (got
'x')").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gmdesk.core.systems.setting import Setting, SettingError


def _declare() -> tuple[Setting, ...]:
    from gmdesk.core.systems.four_d_two import DEFAULT_SKILL_THRESHOLD, SKILL_THRESHOLD_MAX, SKILL_THRESHOLD_MIN
    from gmdesk.core.systems.fudge import DEFAULT_METHOD, METHODS

    return (
        Setting(
            "skill_threshold",
            "Skill chance threshold",
            "the unshifted Number from which a roll gives a chance at a new skill",
            "int",
            DEFAULT_SKILL_THRESHOLD,
            "4d2",
            lo=SKILL_THRESHOLD_MIN,
            hi=SKILL_THRESHOLD_MAX,
        ),
        Setting(
            "ord_positive_reroll",
            "Ords reroll a maxed die",
            "ords (not reality-rated) reroll a maxed positive die as Storm Knights do; off denies them",
            "bool",
            True,
            "torg-2d10",
        ),
        Setting(
            "fudge_method",
            "Dice method",
            "the FUDGE dice method initiative and the roll dialog use",
            "choice",
            DEFAULT_METHOD,
            "fudge",
            choices=tuple(METHODS),
        ),
        Setting(
            "reroll_initiative",
            "Reroll initiative every round",
            "at the start of every round after the first, everyone who can act rolls initiative again (logged)",
            "bool",
            False,
        ),
    )


#: every setting the GM sets, in the order the dialog and help show them
SETTINGS: tuple[Setting, ...] = _declare()
BY_KEY: Mapping[str, Setting] = {s.key: s for s in SETTINGS}


def setting(key: str) -> Setting:
    """The setting named ``key`` (its key, or its label, case-insensitive)."""
    k = key.strip().casefold().replace("-", "_")
    for s in SETTINGS:
        if k in (s.key, s.label.casefold(), s.title.casefold()):
            return s
    known = "; ".join(f"{s.key} ({s.title})" for s in SETTINGS)
    raise SettingError(f"unknown setting {key.strip()!r}; settings: {known}")


def parse_assignment(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` (as ``gmdesk new --setting`` takes it) → (key, checked value)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise SettingError(f"a setting is KEY=VALUE, e.g. skill_threshold=8 (got {text!r})")
    s = setting(key)
    return s.key, s.parse(value)


def current(settings: Mapping[str, Any]) -> list[tuple[Setting, Any]]:
    """Each declared setting with its value in ``settings`` (its default when unset)."""
    return [(s, settings.get(s.key, s.default)) for s in SETTINGS]
