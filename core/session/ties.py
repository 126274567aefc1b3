"""Who goes first on equal initiatives: the session's decision, by its setting
"Initiative ties" (:data:`core.session.settings.SESSION_SETTINGS`).

* keep order — the earlier entry first (RULES.md), as before the setting;
* higher modifier — the higher initiative modifier first (the one the roll used,
  else the character's own), then the earlier entry;
* PCs first — player characters before the others, then the earlier entry;
* roll off — the tied roll the session's initiative again (the system's roll, with
  their own modifiers, as any initiative roll), the higher first; those still tied
  roll again, up to :data:`~core.session.events.ties.MAX_ROLLOFFS` times (then
  the earlier entry first). Every roll is logged.

A tie is settled when an event places a combatant in it — one joining the order, a
number typed or rolled (or rolled again as a round begins) — never one the order
already held before. The decision travels with the event as its ``ties`` (see
:mod:`core.session.events.ties`), so a replay of the log never decides again.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.session.events.ties import HIGHER_MODIFIER, KEEP_ORDER, MAX_ROLLOFFS, PCS_FIRST, ROLL_OFF, TIE_RULES
from gmdesk.core.session.model import Combatant, State


def tie_rule(state: State) -> str:
    """The session's rule for equal initiatives (keep order when it has none: a
    session saved before the setting)."""
    rule = state.info.settings.get("initiative_ties", KEEP_ORDER)
    return rule if rule in TIE_RULES else KEEP_ORDER


def placed_ids(doc: Mapping[str, Any], new_ids: Sequence[str] = ()) -> set[str]:
    """The combatants an event places in the order: those it gives a number (typed
    or rolled, or rolled again as a round begins) and those who join; ``new_ids``:
    the characters it adds (``characters.add``), in the order of its entries."""
    out: set[str] = set()
    if doc.get("type") == "encounter.add":
        out.add(str(doc.get("id")))
    for key in ("entries", "initiative"):
        listed = doc.get(key)
        for e in listed if isinstance(listed, list) else ():
            if isinstance(e, Mapping) and "id" in e and ("value" in e or key == "initiative"):
                out.add(str(e["id"]))
    if doc.get("type") == "characters.add":
        entries = doc.get("entries") or ()
        out.update(cid for cid, e in zip(new_ids, entries, strict=False) if e.get("initiative") is not None)
    return out


def tied_runs(order: Sequence[Combatant], placed: set[str]) -> list[tuple[int, list[str]]]:
    """The runs of equal initiatives (two or more, next to each other) that hold a
    combatant the event placed: each its initiative and its ids first to last."""
    runs: list[list[Combatant]] = []
    for x in order:
        if runs and runs[-1][0].initiative == x.initiative:
            runs[-1].append(x)
        else:
            runs.append([x])
    return [
        (run[0].initiative, [x.char_id for x in run])
        for run in runs
        if len(run) > 1 and any(x.char_id in placed for x in run)
    ]


def roll_off(
    ids: Sequence[str], roll: Callable[[str], RollRecord], able: Callable[[str], bool] = lambda cid: True
) -> tuple[list[str], list[list[dict[str, Any]]]]:
    """The tied ``ids`` rolled off: their order (the higher first; those still tied
    after :data:`MAX_ROLLOFFS` roll-offs keep theirs) and each roll-off's rolls
    (``{id, record}``). Only those still tied roll again; those who cannot act
    (``able``) roll nothing and go after the others (RULES "Who can act")."""
    said: dict[str, list[int]] = {cid: [] for cid in ids}
    rolls: list[list[dict[str, Any]]] = []
    rollers = [cid for cid in ids if able(cid)]
    if len(rollers) < 2:
        return list(ids), []  # nobody to roll off against: the order stands
    for _ in range(MAX_ROLLOFFS):
        groups: dict[tuple[int, ...], list[str]] = {}
        for cid in rollers:
            groups.setdefault(tuple(said[cid]), []).append(cid)
        tied = [cid for group in groups.values() if len(group) > 1 for cid in group]
        if not tied:
            break
        rolled = []
        for cid in tied:
            record = roll(cid)
            said[cid].append(record.value)
            rolled.append({"id": cid, "record": record.to_json()})
        rolls.append(rolled)
    return sorted(ids, key=lambda cid: said[cid], reverse=True), rolls  # stable: still tied keep their order


def _roll_off(roll: Callable[[str], RollRecord], at: int, cid: str) -> RollRecord:
    """An initiative roll made for a roll-off, saying so where the log shows it."""
    from gmdesk.core.text import reading

    record = roll(cid)
    return dataclasses.replace(record, outcome=f"Roll-off at {reading(str(at))}: {record.outcome}")


def settle(
    runs: Sequence[tuple[int, Sequence[str]]],
    rule: str,
    state: State,
    modifier: Callable[[str], int],
    roll: Callable[[str], RollRecord],
) -> list[dict[str, Any]]:
    """The ``ties`` of an event: each run settled by ``rule`` (``modifier(id)``: the
    modifier that counts; ``roll(id)``: one initiative roll). A run the rule leaves
    as it was (equal modifiers, all PCs) is not listed."""
    out: list[dict[str, Any]] = []
    c = state.characters
    for at, ids in runs:
        rolls: list[list[dict[str, Any]]] = []
        if rule == HIGHER_MODIFIER:
            mods = {cid: modifier(cid) for cid in ids}
            order = sorted(ids, key=lambda cid: -mods[cid])
        elif rule == PCS_FIRST:
            order = sorted(ids, key=lambda cid: cid not in c or c[cid].side != "PC")
        elif rule == ROLL_OFF:
            order, rolls = roll_off(
                ids, functools.partial(_roll_off, roll, at), lambda cid: cid in c and c[cid].can_act
            )
        else:
            continue
        if not rolls and list(order) == list(ids):
            continue
        out.append({"at": at, "rule": rule, "order": list(order), **({"rolls": rolls} if rolls else {})})
    return out
