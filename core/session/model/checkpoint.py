"""A compact, plain-JSON form of a State for the session's checkpoint (a cache of
the fold, see core.session.session). Rows instead of objects keep it small and
quick to read; a roll's record is written as a reference to where the log holds
it (not copied) unless a Possibility re-read it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from gmdesk.core.session.model.characters import (
    Character,
    Condition,
    Counter,
    SetStatus,
    Source,
    Wound,
    parse_sheet_text,
    sheet_text,
)
from gmdesk.core.session.model.rolllog import RollLog
from gmdesk.core.session.model.rolls import RecordLoader, RollEntry, roll_entry, roll_rows
from gmdesk.core.session.model.state import Clock, Combatant, Encounter, Info, Note, State


def checkpoint_json(state: State) -> dict[str, Any]:
    """``state`` in the checkpoint's compact JSON form (see :func:`state_from_checkpoint`)."""
    chars = []
    for c in state.characters.values():
        chars.append(
            [
                c.id,
                c.name,
                c.side,
                c.kind,
                c.reality_rated,
                c.vitality_default,
                c.vitality_current,
                c.possibilities,
                [[s.name, s.value, s.rounds, s.active] for s in c.advantage],
                [[s.name, s.value, s.rounds, s.active] for s in c.shifts],
                [[x.name, x.rounds, x.roll_seq, list(x.until) if x.until else None] for x in c.conditions],
                [[w.text, w.roll_seq, w.system, w.row, w.status, w.amount, w.column] for w in c.wounds],
                sheet_text(c.sheet),
                c.notes,
                c.dead,
                c.fields,
                c.hidden,
                c.status_set.to_json() if c.status_set is not None else None,
                c.pin,
                c.group,
                [[x.label, x.maximum, x.left, x.reset] for x in c.counters],
                c.visibility,
            ]
        )
    enc = state.encounter
    return {
        "info": state.info.to_json(),
        "characters": chars,
        "encounter": [[[x.char_id, x.initiative] for x in enc.order], enc.round, enc.turn],
        "clocks": [[k.name, k.segments, k.halves] for k in state.clocks.values()],
        "notes": [[n.seq, n.text, n.round, n.turn, n.time] for n in state.notes],
        "next_id": state.next_id,
        **_rolls_json(state.rolls),
    }


def _rolls_json(rolls: Sequence[RollEntry]) -> dict[str, Any]:
    if isinstance(rolls, RollLog):
        # the packed pages as they are (never unpacked to be written), the newest as rows
        return {"rolls": roll_rows(rolls[rolls.packed_count :]), "roll_pages": rolls.packed()}
    return {"rolls": roll_rows(rolls)}


_T = TypeVar("_T")


def _frozen(cls: type[_T], **values: Any) -> _T:
    obj = object.__new__(cls)
    obj.__dict__.update(values)
    return obj


def _condition(name: str, rounds: int | None, roll_seq: int | None, until: Any = None) -> Condition:
    """A condition row; ``until`` ([character id, "start" | "end"]) is absent from rows
    of checkpoint version 2."""
    wait = (str(until[0]), str(until[1])) if until else None
    return _frozen(Condition, name=name, rounds=rounds, roll_seq=roll_seq, until=wait)


def state_from_checkpoint(d: dict[str, Any], load_record: RecordLoader) -> State:
    """The State that :func:`checkpoint_json` wrote. ``load_record(seq, kind, j)`` gives
    the record a roll entry refers to (called on the entry's first ``.record``).
    Raises KeyError / TypeError / ValueError / IndexError on a malformed form."""
    info = d["info"]
    st = State(
        info=Info(
            str(info["name"]),
            str(info["system"]),
            dict(info["settings"]),
            str(info["created"]),
            str(info["last_played"]),
        )
    )
    new = object.__new__
    for row in d["characters"]:
        cid, name, side, kind, rr, vd, vc, poss, adv, shifts, conds, wounds, sheet, notes, dead = row[:15]
        c = new(Character)
        c.__dict__.update(
            id=cid,
            name=name,
            side=side,
            kind=kind,
            reality_rated=rr,
            vitality_default=vd,
            vitality_current=vc,
            possibilities=poss,
            advantage=[_frozen(Source, name=n, value=v, rounds=r, active=a) for n, v, r, a in adv],
            shifts=[_frozen(Source, name=n, value=v, rounds=r, active=a) for n, v, r, a in shifts],
            conditions=[_condition(*row) for row in conds],
            wounds=[
                _frozen(Wound, text=t, roll_seq=q, system=sy, row=ro, status=stt, amount=am, column=co)
                for t, q, sy, ro, stt, am, co in wounds
            ],
            sheet=parse_sheet_text(sheet),
            notes=notes,
            dead=dead,
            fields=dict(row[15]) if len(row) > 15 else {},
            hidden=bool(row[16]) if len(row) > 16 else False,
            status_set=SetStatus.from_json(row[17]) if len(row) > 17 else None,
            pin=row[18] if len(row) > 18 else None,
            group=row[19] if len(row) > 19 else None,
            counters=[_frozen(Counter, label=la, maximum=m, left=le, reset=r) for la, m, le, r in row[20]]
            if len(row) > 20
            else [],
            visibility=row[21] if len(row) > 21 else None,  # a row of version 7 or earlier: the default
        )
        st.characters[cid] = c
    order, rnd, turn = d["encounter"]
    st.encounter = Encounter([Combatant(cid, ini) for cid, ini in order], rnd, turn)
    st.clocks = {name: Clock(name, seg, halves) for name, seg, halves in d["clocks"]}
    st.notes = [_frozen(Note, seq=q, text=t, round=r, turn=tu, time=ti) for q, t, r, tu, ti in d["notes"]]
    st.next_id = int(d["next_id"])
    rolls = [roll_entry(row, load_record) for row in d["rolls"]]
    if "roll_pages" in d:
        st.rolls = RollLog.from_packed(d["roll_pages"], rolls, load_record)
        return st.seat_all()
    st.rolls = rolls
    return st.seat_all()
