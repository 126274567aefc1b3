"""What the player view draws of a session (:func:`build_picture`, pure, built off the
UI thread): the title with whose turn, the initiative order, the characters and the
rolls the players may see.

Each character shows what its visibility level allows (``Character.seen``, set by
the GM; the rules are core's, :mod:`core.session.events.seen`):

* ``name`` — its name, at its place in the order (and its pin); no status marker,
  condition, wound, Vitality or counter. A roll at it shows the dice and the
  outcome, not the descriptor that landed on it;
* ``wounds`` (the default for NPCs) — its name, status (``UNC``, ``DEAD``),
  conditions and wounds; never a number (Vitality, Possibilities, sources, counters);
* ``all`` (the default for PCs) — Vitality, Possibilities, active sources and
  counters too. A GM secret is never shown, whatever the level.

A group's row counts "n/m up" among the members whose status the players see.
A hidden character is in none of it, whatever its level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text

from gmdesk.core.session.events.seen import seen_rolls, shows_all, shows_status
from gmdesk.core.text import reading

if TYPE_CHECKING:
    from gmdesk.core.session import Character, RollEntry, State


@dataclass(frozen=True)
class PlayerPicture:
    """Everything the player view shows, built off the UI thread from a state.

    ``rolls`` is a snapshot of the session's roll entries as the players may read them
    (the RollLog widget renders them through ``hide_secrets``); ``characters`` the
    names it needs for them.
    """

    title: Text
    initiative: Text
    party: Text
    rolls: tuple[RollEntry, ...] = ()
    characters: Mapping[str, Character] = field(default_factory=dict)


def _visible_characters(state: State) -> list[Character]:
    """Player characters always; other characters only while they are in the initiative
    order (an ambush the GM has prepared stays hidden until it is rolled in)."""
    in_order = {c.char_id for c in state.encounter.order}
    return [c for c in state.characters.values() if not c.hidden and (c.side == "PC" or c.id in in_order)]


def public_status_words(character: Character) -> list[str]:
    """Status and condition markers (UNC, DEAD, UP, STY, …) — words, never colour
    alone — of a character whose status the players see (none of one they see by
    name only)."""
    from gmdesk.tui.widgets.common import markers

    return markers(character) if shows_status(character) else []


def _seen_name(state: State, cid: str) -> str | None:
    """A character's name, if the players see it."""
    c = state.characters.get(cid)
    return None if c is None or c.hidden else c.name


def _conditions_text(character: Character, name_of: Any = None) -> str:
    parts = []
    for cond in character.conditions:
        lasts = cond.lasts(name_of, short=True)
        parts.append(cond.name + (f" ({lasts})" if lasts else ""))
    return ", ".join(parts)


def _group_row(state: State, label: str) -> tuple[str, str]:
    """A group's row for the players: "Gospog ×2" (the members in the order they
    see) and, when some of those whose status they see are down, how many of them
    are up ("1/2 up")."""
    seated = {x.char_id for x in state.encounter.order}
    seen = [c for c in state.group_members(label) if not c.hidden and c.id in seated]
    told = [c for c in seen if shows_status(c)]
    up = sum(c.can_act for c in told)
    return f"{label} ×{len(seen)}", (f"{up}/{len(told)} up" if up < len(told) else "")


def _title(state: State) -> Text:
    from gmdesk.tui.widgets.common import TURN_MARKER

    info = state.info
    enc = state.encounter
    current = enc.current
    chars = state.characters
    title = Text()
    title.append("PLAYER VIEW  ", style="reverse")
    title.append(info.name or "(unnamed session)", style="bold")
    title.append(f"  {info.system}", style="dim")
    if enc.round > 0:
        title.append(f"  ·  Round {enc.round}")
        if current is not None and current.char_id in chars and not chars[current.char_id].hidden:
            acting_now = chars[current.char_id]
            who = _group_row(state, acting_now.group)[0] if acting_now.group else acting_now.name
            title.append(f"  ·  {TURN_MARKER} {who}", style="bold")
    elif any(comb.char_id in chars and not chars[comb.char_id].hidden for comb in enc.order):
        title.append("  ·  initiative set, not started")
    return title


def _initiative(state: State) -> Text:
    from rich.cells import cell_len

    from gmdesk.tui.widgets.common import PIN_MARKER, TURN_MARKER, initiative_text

    enc = state.encounter
    current = enc.current
    chars = state.characters
    init = Text()
    shown = [(i, comb) for i, comb in enumerate(enc.order) if comb.char_id in chars and not chars[comb.char_id].hidden]
    if not shown:
        init.append("No encounter.", style="dim")
    # each initiative as the desk words it (a ladder level, "Great", left-aligned; a number right-aligned)
    texts = {comb.initiative: initiative_text(comb.initiative, state.info.system) for _, comb in shown}
    align = "<" if any(ch.isalpha() for text in texts.values() for ch in text) else ">"
    width = max((cell_len(text) for text in texts.values()), default=0)
    width = width if align == "<" else max(width, 3)
    rows_done: set[str] = set()
    n = 0
    for i, comb in shown:
        c = chars[comb.char_id]
        if c.group is not None and c.group in rows_done:
            continue  # a group is one row
        if n:
            init.append("\n")
        n += 1
        a, b = state.unit(i)
        acting = current is not None and a <= enc.turn < b
        init.append(f"{TURN_MARKER} " if acting else "  ", style="bold")
        init.append(f"{texts[comb.initiative]:{align}{width}} ")
        if c.group is not None:
            rows_done.add(c.group)
            name, up = _group_row(state, c.group)
            init.append(name, style="bold" if acting else "")
            words = [up] if up else []
        else:
            init.append(c.name, style="bold" if acting else "")
            words = public_status_words(c)
        if c.pin is not None:  # the players see which turn keeps its place (a lair's)
            words = [PIN_MARKER, *words]
        if words:
            init.append("  " + " ".join(words), style="bold")

    clocks = getattr(state, "clocks", {}) or {}
    if clocks:  # progress clocks: the table sees how close things are
        init.append("\n\nClocks", style="bold")
        for clock in clocks.values():
            init.append(f"\n  {clock}")
    return init


def _party(state: State) -> Text:
    from gmdesk.core.systems import character_sections
    from gmdesk.tui.widgets.common import source_label

    vitality = "vitality" in character_sections(state.info.system)  # the system tracks Vitality
    party = Text()
    visible = _visible_characters(state)
    if not visible:
        party.append("No characters yet.", style="dim")
    for i, c in enumerate(visible):
        if i:
            party.append("\n")
        party.append(c.name, style="bold")
        party.append(f" ({c.side}, {c.group})" if c.group else f" ({c.side})", style="dim")
        if not shows_status(c):
            continue  # the players see its name only
        status = [w for w in public_status_words(c) if w in ("UNC", "DEAD")]
        if status:
            party.append("  " + " ".join(status), style="bold")
        if shows_all(c):
            if vitality or c.vitality_default or c.vitality_current:
                party.append(reading(f"  Vitality {c.vitality_current}/{c.vitality_default}"))
            if c.reality_rated or c.possibilities:
                party.append(f"  Possibilities {c.possibilities}")
            sources = [s for s in (*c.advantage, *c.shifts) if s.active]
            if sources:
                party.append("\n    sources: " + ", ".join(source_label(s) for s in sources))
            if c.counters:  # what it has left (reactions, luck…)
                party.append("\n    counters: " + ", ".join(x.shown() for x in c.counters))
        conds = _conditions_text(c, lambda cid: _seen_name(state, cid))
        if conds:
            party.append("\n    conditions: " + conds)
        if c.wounds:
            party.append("\n    wounds: " + "; ".join(w.text for w in c.wounds))
    return party


def build_picture(state: State) -> PlayerPicture:
    """The players' picture of ``state`` (pure; see the module docstring for what is public)."""
    chars = state.characters
    return PlayerPicture(
        title=_title(state),
        initiative=_initiative(state),
        party=_party(state),
        rolls=seen_rolls(state, (e for e in state.rolls if state.public_roll(e))),
        characters={cid: c for cid, c in chars.items() if not c.hidden},
    )
