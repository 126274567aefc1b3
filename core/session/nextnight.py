"""The next night: what a session hands on to a new one (``gmdesk new NAME --from LAST``).

Its player characters (and the non-player characters the GM names) are carried as
they stand, or after the system's rest (:mod:`core.systems.rest`); what the rest
changed is said one line each. :meth:`core.session.saves.SessionStore.next_night`
makes the new session from :func:`read_carried`; :func:`carry_candidates` names who
may be carried. The source session is only read.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gmdesk.core.errors import GmdeskError


@dataclass(frozen=True)
class Carried:
    """What :meth:`SessionStore.next_night` made: the new session's path, the name
    of the session it came from, the names carried, whether they rested, and what
    the rest changed (one line each)."""

    path: Path
    source: str
    names: tuple[str, ...]
    rest: bool
    changes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CarryPlan:
    """What a session hands on to the next night (:func:`read_carried`)."""

    source: str
    system: str
    settings: dict[str, Any]
    characters: list[dict[str, Any]]
    changes: list[str]


def carry_candidates(path: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """The names of a session's player characters (carried to the next night) and
    of its non-player characters (carried when named), in the session's order.
    Reads only (no lock)."""
    from gmdesk.core.session.session import Session

    with Session.open(Path(path), readonly=True) as s:
        chars = list(s.state.characters.values())
    return [c.name for c in chars if c.side == "PC"], [c.name for c in chars if c.side != "PC"]


def read_carried(path: str | os.PathLike[str], npcs: Sequence[str] = (), rest: bool = False) -> CarryPlan:
    """The characters a session hands on (its PCs, and the NPCs named in ``npcs``:
    GmdeskError naming the unknown one), each as ``Character.to_json`` writes it
    without id and status, with no roll numbers (they belong to this session's
    log); with ``rest``, after the system's ``rest`` hook (or
    :func:`core.systems.rest.default_rest`). Opens the session read-only."""
    from gmdesk.core.session.session import Session
    from gmdesk.core.systems.rest import is_dead

    with Session.open(Path(path), readonly=True) as s:
        state = s.state
        source = state.info.name
        chars = list(state.characters.values())
        wanted: set[str] = set()
        for typed in npcs:
            key = " ".join(str(typed).split()).casefold()
            found = next((c for c in chars if c.name.casefold() == key or c.id == typed), None)
            if found is None:
                others = ", ".join(c.name for c in chars if c.side != "PC") or "none"
                raise GmdeskError(f"no character {str(typed).strip()!r} in {source} to carry over (its NPCs: {others})")
            wanted.add(found.id)
        carried = [c.to_json() for c in chars if c.side == "PC" or c.id in wanted]
        system = state.info.system
        settings = copy.deepcopy(state.info.settings)
    out: list[dict[str, Any]] = []
    changes: list[str] = []
    hook = _rest_hook(system) if rest else None
    names = {d["id"]: d["name"] for d in carried}
    for d in carried:
        d.pop("id", None)
        for x in [*d.get("conditions", ()), *d.get("wounds", ())]:
            x["roll_seq"] = None
        d["conditions"] = _carried_conditions(d, names, changes)
        # The Dead stay dead, whatever a system's (or a plug-in's) rest says: the
        # status is read before anything is dropped, and a dead character is
        # carried exactly as it stood (RULES "Who can act").
        if hook is not None and not is_dead(d):
            after = dict(hook(copy.deepcopy(d)))
            if d.get("counters") and "counters" not in after:  # a rest that knows nothing of counters keeps them
                after["counters"] = copy.deepcopy(d["counters"])
            after.pop("status", None)
            d.pop("status", None)
            # a rest ends a status the GM set by hand (an Unconscious wakes up; an
            # OK that overruled a wound has nothing left to overrule): the rules
            # stand again. A Dead one never gets here.
            held = after.pop("status_set", None)
            if isinstance(held, dict) and held.get("status") == "unconscious":
                changes.append(f"{after.get('name') or d.get('name')}: Unconscious (set by the GM) → OK")
            changes.extend(rest_changes(d, after))
            d = after
        d.pop("status", None)
        out.append(d)
    return CarryPlan(source, system, settings, out, changes)


def _carried_conditions(d: dict[str, Any], names: Mapping[str, str], changes: list[str]) -> list[dict[str, Any]]:
    """The conditions a character carries over: one that lasts until a character's
    turn names that character (the next night gives new ids), and ends when that
    character is not carried over (said in ``changes``)."""
    out = []
    for x in d.get("conditions") or ():
        until = x.get("until")
        if until is not None:
            who = names.get(until["id"])
            if who is None:
                changes.append(f"{d['name']}: {x['name']} ends (it lasted until the turn of someone not carried over)")
                continue
            x = {**x, "until": {"name": who, "at": until["at"]}}
        out.append(x)
    return out


def _rest_hook(system: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.rest import default_rest

    return get_spec(system).rest or default_rest


def rest_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What a rest changed on a character, one line each ("Kara: Vitality 3 → 10",
    "Kara: Wound healed", "Kara is no longer Stymied")."""
    from gmdesk.core.session.events import num, sheet_changes, sheet_parse

    who = str(after.get("name") or before.get("name"))
    out = []
    for key, label in (("vitality_current", "Vitality"), ("possibilities", "Possibilities")):
        if before.get(key) != after.get(key):
            out.append(f"{who}: {label} {num(before.get(key) or 0)} → {num(after.get(key) or 0)}")
    kept = [w.get("text") for w in after.get("wounds") or ()]
    for w in before.get("wounds") or ():
        if w.get("text") in kept:
            kept.remove(w.get("text"))
        else:
            out.append(f"{who}: {w.get('text')} healed")
    names = {str(x.get("name")).casefold() for x in after.get("conditions") or ()}
    out += [
        f"{who} is no longer {x.get('name')}"
        for x in before.get("conditions") or ()
        if str(x.get("name")).casefold() not in names
    ]
    for kind, what in (("advantage", "advantage"), ("shifts", "shift")):
        names = {str(x.get("name")).casefold() for x in after.get(kind) or ()}
        out += [
            f"{who} loses {what} {x.get('name')}"
            for x in before.get(kind) or ()
            if str(x.get("name")).casefold() not in names
        ]
    if before.get("sheet") != after.get("sheet") and before.get("sheet") and after.get("sheet"):
        out += sheet_changes(who, sheet_parse(before["sheet"]), sheet_parse(after["sheet"]))
    return out
