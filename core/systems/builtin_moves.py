"""The rules of the built-in systems' moves: what each asks, who may make it, what
it refuses, the one event it appends and the line the desk says afterwards.

Each built-in system declares its ``MOVES`` (see :class:`~gmdesk.core.systems.spec.Move`)
with the functions here; the session runs them (``Session.move``) and the desk
generates its keys, palette entries and forms from the declarations. They read the
session and its state by their public attributes only (a system never imports the
session), and refuse with a one-line ``GmdeskError`` (``ParamError`` naming the
field). This module imports no system: a move that applies a system's rule (a
Possibility's die, a Healing d6) is made by the system from its own rule
(:func:`spend_run_with`, :func:`heal_run_with`), so each system imports this module
and nothing imports back.

What the desk offers a buy-off (a character's wounds, newest first, with their age;
the damage just taken) is :mod:`core.systems.wound_offers`, which :mod:`core.session.offers`
re-exports with the clocks' offers. The clocks' moves, which a declaration with clocks
is given, are :mod:`core.systems.clock_moves`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.systems.spec import Move, MoveField
from gmdesk.core.text import signed

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

    from gmdesk.core.dice import RandomSource, RollRecord
    from gmdesk.core.tables import TableSet

#: how far back in the log a Possibility looks for the roll to spend on or cancel
TORG_LOOKBACK = 500

Context = Mapping[str, "Any"]

#: what a move does when it is made: (session, the form's values, the desk's context, dice) → its event
Run = Callable[["Any", Context, Context, "Any"], "Any"]
#: a system's rule for a Possibility spent on one of its rolls: (the roll's record, dice,
#: tables) → the record with the Possibility's die added
PossibilityRule = Callable[["RollRecord", "RandomSource", "TableSet"], "RollRecord"]
#: a system's Healing rule: (dice, current Vitality, its Default) → (the roll's record,
#: the new current Vitality)
HealRule = Callable[["RandomSource", int, int], "tuple[RollRecord, int]"]


def _name(state: Any, cid: Any) -> str:
    c = state.characters.get(cid) if cid is not None else None
    return c.name if c is not None else str(cid)


def _rng(rng: Any) -> Any:
    return rng if rng is not None else random.Random()


# ------------------------------------------------ Possibilities (torg-2d10's, or any system's Spend)


def _spend_of(system_id: str) -> Any:
    """The ``Spend`` a system's ``HARM`` declares (None: its rolls spend nothing, or it
    is not installed)."""
    from gmdesk.core.systems import get_spec

    try:
        return get_spec(system_id).harm.spend
    except GmdeskError:
        return None


def takes_spends(entry: Any, system: str | None = None) -> bool:
    """Whether a log entry is a roll a Possibility may be spent on once it is made: its
    system's ``Spend`` says ``after`` (torg-2d10's, or a plug-in's that declares it);
    with ``system``, only a roll of that system."""
    if entry is None or getattr(entry, "kind", "roll") != "roll":
        return False
    if system is not None and entry.record.system != system:
        return False
    spend = _spend_of(entry.record.system)
    return spend is not None and bool(spend.after)


def spend_entry(state: Any, context: Context, system: str | None = None) -> Any:
    """The roll a Possibility goes on: the one under the log cursor when a Possibility
    may be spent on it (:func:`takes_spends`; with ``system``, a roll of that system),
    else the latest such roll (among the last few hundred: reading an entry's record
    parses it, and the history can be long); None without one."""
    seq = context.get("roll")
    entry = state.roll_entry(seq) if seq is not None else None
    if takes_spends(entry, system):
        return entry
    rolls = state.rolls
    for e in reversed(rolls[-TORG_LOOKBACK:] if len(rolls) > TORG_LOOKBACK else rolls):
        if takes_spends(e, system):
            return e
    return None


def _spend_entry(state: Any, values: Context, context: Context, system: str) -> Any:
    seq = values.get("roll")
    if seq is not None:
        entry = state.roll_entry(int(seq))
        if entry is None:
            raise ParamError("roll", f"no roll #{seq} in the log (or it was undone)")
        return entry
    entry = spend_entry(state, context, system)
    if entry is None:
        raise GmdeskError(f"No {system} roll to spend a Possibility on.")
    return entry


def _spender(entry: Any, values: Context, context: Context) -> str:
    spender = values.get("id") or (entry.actor if entry.actor is not None else context.get("selected"))
    if spender is None:
        raise GmdeskError("Select who spends the Possibility.")
    return str(spender)


def spend_run_with(spend_possibility: PossibilityRule, *, system: str) -> Run:
    """The Spend-a-Possibility move of ``system`` (whose ``HARM.spend`` says ``after``),
    adding the die by its rule ``spend_possibility`` (torg-2d10: a positive
    progressive d10): the spender (the roll's roller) spends a Possibility on a roll of
    ``system``, the one under the log cursor or the latest; a roll of another system is
    refused (its own rule, not this one, adds its die)."""

    def spend_run(session: Any, values: Context, context: Context, rng: Any) -> Any:
        state = session.state
        entry = _spend_entry(state, values, context, system)
        seq = entry.seq
        if not takes_spends(entry, system):
            raise GmdeskError(
                f"roll #{seq} is a {entry.record.system} roll; this move spends Possibilities on {system} rolls"
            )
        spender = _spender(entry, values, context)
        c = state.characters.get(spender)
        if c is None:
            raise ParamError("id", f"no character {spender!r} in this session")
        if not c.reality_rated or c.possibilities < 1:
            raise GmdeskError(
                f"{c.name} has no Possibility to spend"
                if c.reality_rated
                else f"{c.name} is not reality-rated and has no Possibilities"
            )
        record = spend_possibility(entry.record, _rng(rng), session.tables())
        return session.apply({"type": "possibility.spend", "id": spender, "roll": seq, "record": record.to_json()})

    return spend_run


def spend_said(state: Any, event: Any) -> str:
    seq = event.data.get("roll")
    name = _name(state, event.data.get("id"))
    entry = state.roll_entry(seq) if seq is not None else None
    if entry is None:
        return f"{name} spends a Possibility"
    rec = entry.record
    return f"{name} spends a Possibility on #{seq}: now {signed(rec.value, zero='+0', minus='-')} {rec.outcome}"


def _cancellable(entry: Any) -> bool:
    """Whether the roll has a Possibility spent on it, not yet cancelled, that its
    system lets another cancel (its ``Spend.cancel``)."""
    if entry is None or len(getattr(entry, "spends", ())) <= len(getattr(entry, "cancels", ())):
        return False
    spend = _spend_of(entry.record.system)
    return spend is not None and spend.cancel is not None


def _cancel_entry(state: Any, context: Context) -> Any:
    """The roll a cancel goes on: the one under the log cursor, else the latest one a
    Possibility may be spent on (:func:`spend_entry`)."""
    seq = context.get("roll")
    entry = state.roll_entry(seq) if seq is not None else None
    return entry if _cancellable(entry) else spend_entry(state, context)


def cancel_form(state: Any, context: Context) -> list[MoveField]:
    entry = _cancel_entry(state, context)
    if not _cancellable(entry):
        raise GmdeskError("No Possibility to cancel: only a spent Possibility can be cancelled.")
    choices = tuple(
        (cid, f"{c.name} ({c.possibilities} left)")
        for cid, c in state.characters.items()
        if cid != entry.actor and c.reality_rated
    )
    if not choices:
        raise GmdeskError("Nobody else is reality-rated: no one can cancel.")
    selected = context.get("selected")
    default = selected if selected != entry.actor else None
    return [MoveField("id", f"Who cancels the Possibility on roll #{entry.seq}?", "choice", default, choices)]


def cancel_run(session: Any, values: Context, context: Context, rng: Any) -> Any:
    """Another reality-rated character cancels the latest Possibility spent on the
    roll: both lose one, the Possibility die is voided."""
    seq = values.get("roll")
    if seq is None:
        entry = _cancel_entry(session.state, context)
        if not _cancellable(entry):
            raise GmdeskError("No Possibility to cancel: only a spent Possibility can be cancelled.")
        seq = entry.seq
    canceller = values.get("id")
    if canceller is None:
        raise ParamError("id", "say who cancels the Possibility")
    return session.apply({"type": "possibility.cancel", "id": canceller, "roll": int(seq)})


def cancel_said(state: Any, event: Any) -> str:
    return f"{_name(state, event.data.get('id'))} cancels the Possibility on #{event.data.get('roll')}"


def _buyoff_character(state: Any, values: Context, context: Context) -> Any:
    cid = values.get("id") or context.get("selected")
    if cid is None:
        raise GmdeskError("No character selected: c adds one.")
    c = state.characters.get(cid)
    if c is None:
        raise ParamError("id", f"no character {cid!r} in this session")
    if not c.wounds:
        raise GmdeskError(f"{c.name} has no damage to buy off.")
    return c


def buyoff_form(state: Any, context: Context) -> list[MoveField]:
    """Buy off damage just taken: the latest wound, one Enter away; older wounds are
    listed below it with their age, for the GM who means one of them."""
    c = _buyoff_character(state, {}, context)
    from gmdesk.core.systems.wound_offers import buyoff_choices, damage_just_taken

    _entry, just = damage_just_taken(state, c.id)
    if just is None:
        raise GmdeskError(nothing_to_buy_off(state, c.id))
    choices = buyoff_choices(state, c.id)
    choices = [w for w in choices if w.index == just] + [w for w in choices if w.index != just]
    if len(choices) == 1:
        return []
    labels = tuple((w.index, f"{w.text} — {'latest, ' if w.latest else ''}{w.age}") for w in choices)
    return [MoveField("wound", f"{c.name} buys off which damage? (a Possibility)", "choice", choices[0].index, labels)]


def buyoff_run(session: Any, values: Context, context: Context, rng: Any) -> Any:
    c = _buyoff_character(session.state, values, context)
    doc: dict[str, Any] = {"type": "damage.buyoff", "id": c.id}
    wound = values.get("wound")
    from gmdesk.core.systems.wound_offers import damage_just_taken

    if wound is not None and wound != damage_just_taken(session.state, c.id)[1]:
        doc["wound"] = wound  # an older wound, picked explicitly
    return session.apply(doc)


def nothing_to_buy_off(state: Any, char_id: str) -> str:
    """Why a buy-off without a pick finds nothing: the last roll against the
    character missed (or its damage is gone), or nobody rolled against it."""
    c = state.characters[char_id]
    from gmdesk.core.systems.wound_offers import damage_just_taken

    entry, _ = damage_just_taken(state, char_id)
    if entry is None:
        return f"{c.name} has taken no damage from a roll: nothing to buy off (pick a wound on the pane to buy it off)"
    return (
        f"The last roll against {c.name} (#{entry.seq}) left no damage: nothing to buy off "
        "(pick an older wound on the pane to buy it off)"
    )


def buyoff_said(state: Any, event: Any) -> str:
    changes = list(getattr(event, "changes", ()) or ())
    bought = next((c for c in changes if " buys off " in c), None)
    return f"{bought} with a Possibility" if bought else str(getattr(event, "summary", ""))


# --------------------------------------------------------------------------- 1d6x4: Healing, a new day


def heal_form(state: Any, context: Context) -> list[MoveField]:
    if not state.characters:
        raise GmdeskError("No characters yet.")
    healers = tuple((cid, c.name) for cid, c in state.characters.items() if c.can_act)
    patients = tuple((cid, c.name) for cid, c in state.characters.items() if c.status != "dead")
    if not healers:
        raise GmdeskError("Nobody can heal (the Unconscious and the Dead cannot act).")
    if not patients:
        raise GmdeskError("Nobody to heal: the Dead stay dead.")
    acting, selected = context.get("acting"), context.get("selected")
    healer = acting if acting in {cid for cid, _ in healers} else healers[0][0]
    patient = selected if selected in {cid for cid, _ in patients} else patients[0][0]
    return [
        MoveField("healer", "Healer", "choice", healer, healers),
        MoveField("target", "Patient", "choice", patient, patients),
    ]


def heal_run_with(heal: HealRule, *, use: str | None = "Healing Ability") -> Run:
    """The Healing move, by the system's rule ``heal`` (1d6x4: d6) back onto the
    patient's Vitality (never above its Default); the healer spends a use of ``use`` on
    its descriptor sheet (1d6x4's Healing Ability; None: a heal that spends nothing
    and needs no sheet, a plug-in's)."""

    def heal_run(session: Any, values: Context, context: Context, rng: Any) -> Any:
        st = session.state
        healer, target = values.get("healer"), values.get("target")
        t = st.characters.get(target) if target is not None else None
        if t is None:
            raise ParamError("target", f"no character {target!r} in this session")
        if healer not in st.characters:
            raise ParamError("healer", f"no character {healer!r} in this session")
        if t.status == "dead":
            raise GmdeskError(f"{t.name} is dead; the Dead stay dead")
        record, new = heal(_rng(rng), t.vitality_current, t.vitality_default)
        doc = {"type": "heal", "healer": healer, "target": target, "record": record.to_json(), "vitality": new}
        if use != "Healing Ability":  # (an event without it spends a Healing Ability, as before)
            doc["use"] = use
        return session.apply(doc)

    return heal_run


def heal_said(state: Any, event: Any) -> str:
    p = state.characters.get(event.data.get("target"))
    if p is None:
        return str(getattr(event, "summary", ""))
    healer = _name(state, event.data.get("healer"))
    return f"{healer} heals {p.name}: Vitality {p.vitality_current}/{p.vitality_default}"


def new_day_run(session: Any, values: Context, context: Context, rng: Any) -> Any:
    return session.apply({"type": "day.new"})


# --------------------------------------------------------------------------- shared declarations


def opposed(title: str, help: str, preset: Mapping[str, Any] | None = None) -> Move:
    """The ``o`` move: the roll dialog at the roller's default target, with ``preset``."""
    return Move("opposed", title, help, key="o", kind="preset", preset=dict(preset or {}), target=True)


def toggle(condition: str, help: str) -> Move:
    """A palette entry switching ``condition`` on / off on the selected character."""
    return Move(condition.lower(), f"Toggle {condition}", help, kind="condition", condition=condition)
