"""Numbered copies of a bestiary stat block joining a session in one event.

Their names are "Gospog 1" … after the numbers taken; each is its own character at
an initiative rolled with its own modifier, all in one ``characters.add`` event
(``gmdesk char add-from``, the desk's bestiary screen)."""

from __future__ import annotations

from typing import Any

#: most copies of a stat block added at once
MAX_COPIES = 100


def copy_names(state: Any, name: str, count: int) -> list[str]:
    """Names for ``count`` copies of ``name`` nobody in the session has: one copy keeps
    the plain name unless it is taken; several are "NAME 1", "NAME 2"…, skipping the
    numbers taken already."""
    if count == 1 and state.name_clash(name) is None:
        return [name]
    out: list[str] = []
    n = 1 if count > 1 else 2
    while len(out) < count:
        candidate = f"{name} {n}"
        if state.name_clash(candidate) is None:
            out.append(candidate)
        n += 1
    return out


def group_label(state: Any, name: str) -> str:
    """A label for a group of copies of ``name``: the name itself, unless a character
    or a group has it ("Gospog group", "Gospog group 2"…)."""
    candidates = [name, f"{name} group"] + [f"{name} group {n}" for n in range(2, 1000)]
    for label in candidates:
        if state.name_clash(label) is None and state.group_label(label) is None:
            return label
    return f"{name} group {len(state.characters) + 1000}"


def add_from_event(
    session: Any,
    block: Any,
    count: int,
    rng: Any = None,
    hidden: bool = False,
    group: bool = False,
    visibility: str | None = None,
) -> dict[str, Any]:
    """The one ``characters.add`` event that adds ``count`` numbered copies of the stat
    block ``block`` to ``session`` and joins each to the encounter at an initiative
    rolled with the copy's own modifier (its record logged); ``hidden``: each copy
    hidden from the players (its initiative roll too) until the GM reveals it;
    ``group`` (two copies or more): the copies form one initiative group, labelled
    with the block's name (:func:`group_label`), at one initiative rolled once with
    their lowest modifier (the copies of one block share it: the first's);
    ``visibility``: what the players see of each copy (a level of
    ``VISIBILITY_LEVELS``; None: its side's default)."""
    import random

    rng = rng if rng is not None else random.Random()
    names = copy_names(session.state, block.name, count)
    entries = []
    shared = None
    for name in names:
        character = block.character(name)
        if hidden:
            character["hidden"] = True
        if visibility is not None:
            character["visibility"] = visibility
        entry: dict[str, Any] = {
            "character": character,
            "sources": [dict(x) for x in block.sources],
            "conditions": [dict(x) for x in block.conditions],
        }
        if group and shared is not None:
            entry["initiative"] = shared
        else:
            record = session.initiative_record("", rng, character=block.model(name))
            shared = record.value
            entry.update(initiative=record.value, record=record.to_json())
        entries.append(entry)
    doc: dict[str, Any] = {"type": "characters.add", "entries": entries, "source": block.name}
    if group and len(entries) > 1:
        doc["group"] = group_label(session.state, block.name)
    return doc
