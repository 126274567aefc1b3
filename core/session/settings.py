"""The settings a session keeps, gathered: the session's own and every dice
system's (each declared by its system, ``SETTINGS`` in its declaration).

Each :class:`~core.systems.setting.Setting` says what the GM reads and may type —
its label, a line of help, its type, its choices or range, the dice system it
belongs to — and parses and checks a value. Everything that shows or takes a
setting is generated from :func:`declared`: the desk's "Session settings" dialog
(one field per setting), the desk's help (the session's settings and their values),
``gmdesk new … --setting KEY=VALUE``, and the ``session.settings`` event's
validation and effects list.

The session's own settings (:data:`SESSION_SETTINGS`, every system) are
``reroll_initiative``: everyone in the encounter who can act rolls initiative again
at the start of every round after the first, each roll logged (off by default: the
order rolled when they joined holds all fight; a pinned entry keeps its number);
and ``initiative_ties``: who goes first on equal initiatives — keep order (RULES.md:
the earlier entry; the default unless the system declares its own,
``INITIATIVE_TIES``), higher modifier, PCs first, or roll off. The systems' are the ones ``RULES.md``
leaves to the session (a skill chance's threshold, whether ords reroll, a dice
method); a session of a system starts with its system's defaults
(:func:`defaults_for`).

A bad value is refused in one line naming the setting by its label and its system
and saying what it accepts ("Dice method (SYSTEM) must be one of …").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# re-exported: the settings' declaration and the error this module's calls raise
from gmdesk.core.systems.setting import INITIATIVE_TIES
from gmdesk.core.systems.setting import Setting as Setting
from gmdesk.core.systems.setting import SettingError as SettingError

#: the settings of every session, whatever its system
SESSION_SETTINGS: tuple[Setting, ...] = (
    Setting(
        "reroll_initiative",
        "Reroll initiative every round",
        "each new round, all who can act roll again (logged)",
        "bool",
        False,
    ),
    Setting(
        "initiative_ties",
        "Initiative ties",
        "who acts first on a tie (a roll-off is logged)",
        "choice",
        INITIATIVE_TIES[0],
        choices=INITIATIVE_TIES,
    ),
)


def declared() -> tuple[Setting, ...]:
    """Every setting the GM sets, in the order the dialog and help show them: each
    installed system's (in the systems' order), then the session's own."""
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.systems import get_spec, system_ids

    out: list[Setting] = []
    for system_id in system_ids():
        try:
            out += get_spec(system_id).settings
        except GmdeskError:
            continue
    return (*out, *SESSION_SETTINGS)


def settings_of(system: str) -> tuple[Setting, ...]:
    """The settings a session of ``system`` uses: its system's, then the session's
    own (none of another system's; an unknown system: the session's own only)."""
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.systems import get_spec

    try:
        return (*get_spec(system).settings, *SESSION_SETTINGS)
    except GmdeskError:
        return SESSION_SETTINGS


def by_key() -> Mapping[str, Setting]:
    """Setting key → its declaration (:func:`declared`)."""
    return {s.key: s for s in declared()}


def defaults_for(system: str) -> dict[str, Any]:
    """The settings a new session of ``system`` starts with: the session's own and
    its system's, each at its default."""
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.systems import get_spec

    out = {s.key: s.default for s in SESSION_SETTINGS}
    try:
        spec = get_spec(system)
    except GmdeskError:
        return out
    out.update(spec.setting_defaults())
    if spec.initiative_ties is not None:  # the system's own default for ties
        out["initiative_ties"] = spec.initiative_ties
    return out


def setting(key: str) -> Setting:
    """The setting named ``key`` (its key, or its label, case-insensitive)."""
    k = key.strip().casefold().replace("-", "_")
    for s in declared():
        if k in (s.key, s.label.casefold(), s.title.casefold()):
            return s
    known = "; ".join(f"{s.key} ({s.title})" for s in declared())
    raise SettingError(f"unknown setting {key.strip()!r}; settings: {known}")


def parse_assignment(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` (as ``gmdesk new --setting`` takes it) → (key, checked value)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise SettingError(f"a setting is KEY=VALUE, e.g. reroll_initiative=on (got {text!r})")
    s = setting(key)
    return s.key, s.parse(value)


def current(settings: Mapping[str, Any]) -> list[tuple[Setting, Any]]:
    """Each declared setting with its value in ``settings`` (its default when unset)."""
    return [(s, settings.get(s.key, s.default)) for s in declared()]
