"""Display helpers shared by the widgets: status markers, the Vitality gauge, names,
and the plain sentences the app says after an attack. No rules live here: these only
turn state the session computed into text.

Nothing is carried by colour alone: every status has a marker word (UP, STY, UNC,
DEAD…), a character hidden from the players says HIDDEN on the GM's side (its rolls
the players do not see: HID in the GM's roll log), the current turn has "▶",
inactive sources a "☐", a pinned initiative "PIN".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.text import Text

from gmdesk.core.text import MINUS
from gmdesk.core.text import signed as core_signed

if TYPE_CHECKING:
    from gmdesk.core.session import Character, RollEntry, Source, State

#: character status (derived by the session) -> marker shown wherever the character is listed
STATUS_MARKERS: Mapping[str, str] = {"unconscious": "UNC", "dead": "DEAD"}

#: well-known condition names (case-insensitive) -> short marker; others show their own name
CONDITION_MARKERS: Mapping[str, str] = {
    "up": "UP",
    "stymied": "STY",
    "disconnected": "DISC",
    "unconscious": "UNC",
    "dead": "DEAD",
}

STATUS_STYLE: Mapping[str, str] = {
    "UNC": "bold yellow",
    "DEAD": "bold red",
    "UP": "bold green",
    "STY": "bold magenta",
    "DISC": "bold magenta",
    "HIDDEN": "bold italic",
}

TURN_MARKER = "▶"

#: what the GM's character pane says of a character hidden from the players
HIDDEN_MARKER = "HIDDEN"

#: the word an initiative entry that is pinned carries (the desk's order and the
#: players'): rolling initiative again leaves it at its number
PIN_MARKER = "PIN"


def names_of(state: State) -> dict[str, str]:
    return {cid: c.name for cid, c in state.characters.items()}


def name_of(state: State, cid: str | None, default: str = "—") -> str:
    if cid is None:
        return default
    c = state.characters.get(cid)
    return c.name if c is not None else str(cid)


#: a character a roll names who has left the session and whose name the roll never kept
LEFT = "someone since removed"


def roll_name(entry: RollEntry, cid: str | None, names: Mapping[str, str], default: str = "GM") -> str:
    """The name of ``cid`` as a roll tells it: by ``names`` (the characters now), else
    as it was when rolled — the roll keeps its roller's and its target's names, so a
    character removed since is still named, never shown by its id ("c1") nor as "GM";
    ``default`` when the roll names nobody there (the GM's own roll)."""
    if cid is None:
        return default
    name = names.get(cid)
    if name:
        return name
    if cid == entry.actor and entry.actor_name:
        return entry.actor_name
    if cid == entry.target and entry.target_name:
        return entry.target_name
    return LEFT


def condition_marker(name: str) -> str:
    """A condition's marker: a well-known one's short word, else its own name whole
    (a name cut to "Dodgin" reads as a typo)."""
    return CONDITION_MARKERS.get(name.strip().lower(), name.strip())


def markers(character: Character) -> list[str]:
    """Status first (UNC/DEAD), then one marker per condition (Up, Stymied, …)."""
    out: list[str] = []
    status = STATUS_MARKERS.get(getattr(character, "status", "ok"))
    if status:
        out.append(status)
    for cond in getattr(character, "conditions", ()):
        m = condition_marker(cond.name)
        if m not in out:
            out.append(m)
    return out


def markers_text(character: Character, *, hidden: bool = False) -> Text:
    """The markers as words, each in its style; with ``hidden`` (the GM's own view)
    a character hidden from the players says :data:`HIDDEN_MARKER` first."""
    words = markers(character)
    if hidden and getattr(character, "hidden", False):
        words.insert(0, HIDDEN_MARKER)
    text = Text()
    for i, m in enumerate(words):
        if i:
            text.append(" ")
        text.append(m, style=STATUS_STYLE.get(m, "bold"))
    return text


def signed(n: Any) -> str:
    """A bonus as the forms write it: ``+2``, ``-1``, ``+0`` (an ASCII minus, which
    the roll form's inputs read back)."""
    return core_signed(n, zero="+0", minus="-")


def bonus(n: Any) -> str:
    """A bonus as the GM reads it (never read back): ``+2``, ``−1``, ``+0``, the
    minus sign the typographic one, as every number the desk shows."""
    return core_signed(n, zero="+0")


def gauge(current: int | None, default: int | None, width: int = 10) -> Text:
    """``████████░░ 4/5``: a bar of current over default (empty at or below 0)."""
    text = Text()
    if current is None or default is None:
        text.append("—")
        return text
    top = max(default, 1)
    filled = max(0, min(width, round(width * current / top))) if current > 0 else 0
    text.append("█" * filled, style="green" if current * 2 > default else "yellow" if current > 0 else "red")
    text.append("░" * (width - filled), style="dim")
    text.append(f" {_num(current)}/{_num(default)}")
    return text


def _num(n: int | None) -> str:
    """A number as the GM reads it: the minus sign is a real one (−1)."""
    return f"{MINUS}{-n}" if n is not None and n < 0 else str(n)


def initiative_text(value: int, system: str) -> str:
    """An initiative as the session's system words it (its ``show_initiative``: a
    ladder level, "Great", as its roll log names it), else the number ("12", "−1")."""
    from gmdesk.core.session.events import initiative_words

    return initiative_words(system, value)


def health_summary(character: Character, system: str) -> str:
    """The compact health cell of the initiative list: Vitality in a system that tracks
    it (its character sections; and whenever a character has taken no descriptor
    wounds), else the number of wounds."""
    from gmdesk.core.systems import character_sections

    wounds = len(getattr(character, "wounds", ()) or ())
    vit_c = getattr(character, "vitality_current", None)
    vit_d = getattr(character, "vitality_default", None)
    if vit_c is not None and "vitality" in character_sections(system):
        return f"V{_num(vit_c)}/{_num(vit_d)}"
    if wounds:
        return f"{wounds} wd"
    if vit_c is not None and vit_d:
        return f"V{_num(vit_c)}/{_num(vit_d)}"
    return "ok"


def source_label(source: Source) -> str:
    rounds = getattr(source, "rounds", None)
    dur = "" if rounds is None else f" ({rounds} rd)"
    return f"{source.name} {bonus(source.value)}{dur}"


def attack_sentence(entry: RollEntry, state: State) -> str:
    """What a combat roll did, in plain words: "Kara hits Bruno: Severe Wound"."""
    names = names_of(state)
    actor = roll_name(entry, entry.actor, names, "Someone")
    target = roll_name(entry, entry.target, names, "the target")
    record = entry.record
    parts = []
    for d in record.descriptors:
        if d.wound and d.applies_to == "target":
            parts.append(f"{actor} hits {target}: {d.text}")
        elif d.wound:
            parts.append(f"{actor} suffers {d.text}")
        else:
            parts.append(f"{actor} attacks {target}: {d.text}")
    if not parts:
        parts.append(f"{actor} attacks {target}: {record.outcome}")
    return "; ".join(parts)
