"""The roll log's entries: who rolled what, at whom, when, and what it changed."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from gmdesk.core.dice import RollRecord


@dataclass
class RollEntry:
    """One roll in the log, with who rolled it, at whom, when, and what it changed.

    ``kind`` is ``roll`` (a ``roll`` event), ``initiative`` (one entry of an
    ``initiative.set``) or ``heal`` (a Healing Ability roll). ``spends`` lists who
    spent a Possibility on it (one id per Possibility die, None for an untracked
    roller), ``cancels`` who cancelled one. ``clock``: the clock its progress (``HARM.clocks``)
    went to, by the roll itself or by a later tick that took it ("" while nobody did).
    ``hidden``: made while its roller or target was hidden from the players, and not
    revealed since (see :meth:`State.public_roll`).
    """

    seq: int
    record: RollRecord
    actor: str | None = None
    target: str | None = None
    round: int = 0
    turn: int = 0
    changes: list[str] = field(default_factory=list)
    kind: str = "roll"
    combat: bool = False
    spends: list[str | None] = field(default_factory=list)
    cancels: list[str] = field(default_factory=list)
    actor_name: str = ""  # names as they were when rolled (the character may be renamed or removed)
    target_name: str = ""
    clock: str = ""
    hidden: bool = False

    def snapshot(self) -> RollEntry:
        e = RollEntry.__new__(RollEntry)
        e.__dict__.update(self.__dict__)  # a record not read yet stays unread (see LazyRecord)
        e.changes, e.spends, e.cancels = list(self.changes), list(self.spends), list(self.cancels)
        return e

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "record": self.record.to_json(),
            "actor": self.actor,
            "target": self.target,
            "round": self.round,
            "turn": self.turn,
            "changes": list(self.changes),
            "kind": self.kind,
            "combat": self.combat,
            "spends": list(self.spends),
            "cancels": list(self.cancels),
            "actor_name": self.actor_name,
            "target_name": self.target_name,
            "clock": self.clock,
            **({"hidden": True} if self.hidden else {}),
        }


#: ``load(seq, kind, j)``: the record a roll entry refers to, the j-th of event ``seq``
RecordLoader: TypeAlias = Callable[[int, str, int], RollRecord]


class LazyRecord:
    """Stands in for a roll entry's record until someone reads ``entry.record``.

    A session opened from its checkpoint knows each roll by where its record is
    written in the log (the event's ``record``, or the j-th recorded entry of an
    ``initiative.set``), or by the record's JSON; ``load()`` parses it then, once.
    Reading ``entry.record`` always gives the RollRecord (never this object)."""

    __slots__ = ("load_fn", "seq", "kind", "ref")

    def __init__(self, load_fn: RecordLoader, seq: int, kind: str, ref: int | dict[str, Any]):
        self.load_fn = load_fn
        self.seq = seq
        self.kind = kind
        self.ref = ref  # int: the j-th record of event seq; dict: the record's JSON

    def load(self) -> RollRecord:
        if isinstance(self.ref, dict):
            return RollRecord.from_trusted_json(self.ref)
        return self.load_fn(self.seq, self.kind, self.ref)


def _entry_record(self: RollEntry) -> RollRecord:
    r: RollRecord | LazyRecord = self.__dict__["record"]
    if isinstance(r, LazyRecord):
        r = r.load()
        self.__dict__["record"] = r
    return r


def _set_entry_record(self: RollEntry, value: RollRecord) -> None:
    self.__dict__["record"] = value


# ``record`` reads through a property so that an entry restored from a checkpoint
# parses its record on first use (the dataclass field, __init__, ==, repr and
# replace() are unchanged: they all go through the attribute). mypy sees the field's
# type, RollRecord, which is what the property gives.
RollEntry.record = property(_entry_record, _set_entry_record, doc="The roll's RollRecord.")  # type: ignore[assignment]


#: the kinds of entry whose record the event itself carries (``kind`` -> its event type)
_ROLL_KINDS_BY_EVENT = {"roll": "roll", "heal": "heal", "initiative": "initiative.set"}


def roll_rows(rolls: Iterable[RollEntry], by_value: bool = False) -> list[list[Any]]:
    """Roll entries as the checkpoint's rows: a record the event itself carries is
    written as where it lies in the event (unless ``by_value``: always its JSON; an
    entry written apart from the others of its event)."""
    rows = []
    prev_seq, prev_kind, j = None, None, 0
    for e in rolls:
        d = e.__dict__
        seq, kind = d["seq"], d["kind"]
        j = j + 1 if (seq, kind) == (prev_seq, prev_kind) else 0
        prev_seq, prev_kind = seq, kind
        rec = d["record"]
        if kind in _ROLL_KINDS_BY_EVENT and not d["spends"] and not d["cancels"] and not by_value:
            ref: int | dict[str, Any] = j if kind == "initiative" else 0  # the record the event itself carries
        elif type(rec) is LazyRecord and type(rec.ref) is dict:
            ref = rec.ref
        else:
            ref = e.record.to_json()
        rows.append(
            [
                seq,
                kind,
                d["actor"],
                d["target"],
                d["round"],
                d["turn"],
                d["changes"],
                d["combat"],
                d["spends"],
                d["cancels"],
                d["actor_name"],
                d["target_name"],
                ref,
                d.get("clock", ""),
                d.get("hidden", False),
            ]
        )
    return rows


def roll_entry(row: list[Any], load_record: RecordLoader) -> RollEntry:
    """The roll entry a row of :func:`roll_rows` describes (its record read when first used)."""
    seq, kind, actor, target, rnd, turn, changes, combat, spends, cancels, an, tn, ref, clock = row[:14]
    if type(ref) is not dict and (type(ref) is not int or kind not in _ROLL_KINDS_BY_EVENT):
        raise ValueError(f"roll #{seq}: bad record reference {ref!r}")
    return RollEntry(
        seq,
        LazyRecord(load_record, seq, kind, ref),  # type: ignore[arg-type]  # read as a RollRecord
        actor,
        target,
        rnd,
        turn,
        changes,
        kind,
        combat,
        spends,
        cancels,
        an,
        tn,
        clock,
        bool(row[14]) if len(row) > 14 else False,
    )
