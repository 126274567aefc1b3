"""The session state: plain dataclasses, folded from the event log.

Nothing here talks to storage or to dice. :mod:`core.session.events` mutates a
``State`` while folding events; everybody else reads it.

Small value objects (``Source``, ``Condition``, ``Wound``, ``Combatant``, ``Clock``,
``Note``) are frozen: a change replaces them. A ``Character``'s lists are replaced,
never mutated in place, by the fold — except ``wounds``, which only ever grow in
place (``add_wound``) — so a shallow copy plus the wounds' length is a faithful
snapshot (the undo machinery relies on it). Treat the state as read-only.

Status is derived, never stored:

* ``dead`` when the sticky ``dead`` flag is set (a 1d6x4 character injured again
  while Unconscious) or when any wound it carries maps to ``dead`` in
  ``core/data/wound-status.json`` (e.g. an organic "Fatal Wound");
* ``unconscious`` when Vitality is at −5 or lower, or any wound maps to
  ``unconscious`` (e.g. "Mortal Wound", FUDGE "Incapacitated" / "Near Death");
* ``ok`` otherwise.

Removing a wound (undo, buy-off, ``wound.remove``) therefore lifts the status it
caused; the ``dead`` flag is only ever cleared by undoing the event that set it.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from gmdesk.core.dice import RollRecord

SIDES = ("PC", "NPC")
KINDS = ("organic", "inorganic")
STATUSES = ("ok", "unconscious", "dead")
SOURCE_KINDS = ("advantage", "shift")
#: conditions gmdesk knows by name (the torg ones); any other non-empty name is a custom condition
KNOWN_CONDITIONS = ("Up", "Stymied", "Disconnected")
#: Vitality at or below this is Unconscious (1d6x4)
UNCONSCIOUS_AT = -5

DEFAULT_SETTINGS: dict[str, Any] = {
    "skill_threshold": 9,  # 4d2: unshifted Number that gives a skill chance
    "ord_positive_reroll": True,  # torg-2d10: ords reroll a maxed positive die
    "tie_rule": "defender",  # 1d6x4 two-way Test: who prevails on a tie
    "fudge_method": "2d3",  # fudge: the dice method initiative (and the roll dialog) use
    "tables": {},  # role -> built-in table name or path of a GM's table file
}


_NUMBERED = re.compile(r"^(.*\S)\s+(\d{1,6})$")


@dataclass(frozen=True)
class Source:
    """An advantage source (value ±1/±2) or a shift source (value ≥ 1)."""

    name: str
    value: int
    rounds: int | None = None
    active: bool = True

    def to_json(self) -> dict:
        return {"name": self.name, "value": self.value, "rounds": self.rounds, "active": self.active}

    @classmethod
    def from_json(cls, d: dict) -> Source:
        return cls(d["name"], int(d["value"]), d.get("rounds"), bool(d.get("active", True)))


@dataclass(frozen=True)
class Condition:
    """A condition (Up, Stymied, Disconnected or the GM's own); ``roll_seq`` is set
    when a roll imposed it (a torg disconnection), so that re-reading the roll
    (a Possibility spent or cancelled) can lift it again."""

    name: str
    rounds: int | None = None
    roll_seq: int | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "rounds": self.rounds, "roll_seq": self.roll_seq}

    @classmethod
    def from_json(cls, d: dict) -> Condition:
        return cls(d["name"], d.get("rounds"), d.get("roll_seq"))


@dataclass(frozen=True)
class Wound:
    """A descriptor a character took: the text, the roll that caused it (its seq),
    the system, the table row, the status it imposes (or None) and the numeric
    amount where the system has one (1d6x4 Vitality Adjustment, FUDGE damage)."""

    text: str
    roll_seq: int | None
    system: str
    row: int | None = None
    status: str | None = None
    amount: int | None = None
    column: str = ""

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "roll_seq": self.roll_seq,
            "system": self.system,
            "row": self.row,
            "status": self.status,
            "amount": self.amount,
            "column": self.column,
        }

    @classmethod
    def from_json(cls, d: dict) -> Wound:
        return cls(
            d["text"],
            d.get("roll_seq"),
            d.get("system", ""),
            d.get("row"),
            d.get("status"),
            d.get("amount"),
            d.get("column", ""),
        )


@dataclass
class Character:
    id: str
    name: str
    side: str = "PC"
    kind: str = "organic"
    reality_rated: bool = False
    vitality_default: int = 0
    vitality_current: int = 0
    possibilities: int = 0
    advantage: list[Source] = field(default_factory=list)
    shifts: list[Source] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    wounds: list[Wound] = field(default_factory=list)
    sheet: Any = None  # core.sheet.Sheet, or None when the character has no sheet
    notes: str = ""
    dead: bool = False  # sticky: set by an injury taken while Unconscious (1d6x4)

    @property
    def status(self) -> str:
        dead, out = self._wound_statuses()
        if self.dead or dead:
            return "dead"
        if self.vitality_current <= UNCONSCIOUS_AT or out:
            return "unconscious"
        return "ok"

    def _wound_statuses(self) -> tuple[bool, bool]:
        """(any wound kills, any wound knocks out), cached per wounds list: the fold
        replaces the list on every change, so a character with thousands of wounds
        does not rescan them for every look at its status."""
        wounds = self.wounds
        cache = self.__dict__.get("_status_cache")
        if cache is not None and cache[0] is wounds and cache[1] == len(wounds):
            return cache[2]
        flags = (any(w.status == "dead" for w in wounds), any(w.status == "unconscious" for w in wounds))
        self.__dict__["_status_cache"] = (wounds, len(wounds), flags)
        return flags

    @property
    def can_act(self) -> bool:
        """Takes turns and rolls for actions: not Unconscious, not Dead (RULES "Who can act")."""
        return self.status == "ok"

    def has_condition(self, name: str) -> bool:
        return any(c.name.casefold() == name.casefold() for c in self.conditions)

    def sources(self, kind: str) -> list[Source]:
        return self.advantage if kind == "advantage" else self.shifts

    def snapshot(self) -> Character:
        """A shallow copy for the undo record. The fold never changes a list or a sheet
        in place (it assigns a new one), so they are shared, except that wounds grow
        in place: the undo record keeps their length and cuts them back."""
        c = Character.__new__(Character)
        c.__dict__.update(self.__dict__)
        c.__dict__.pop("_status_cache", None)
        return c

    def add_wound(self, wound: Wound) -> None:
        """Pile a wound up. The list grows in place (O(1), and an undo record only keeps
        its old length); every other change to a list replaces it."""
        dead, out = self._wound_statuses()
        self.wounds.append(wound)
        self.__dict__["_status_cache"] = (
            self.wounds,
            len(self.wounds),
            (dead or wound.status == "dead", out or wound.status == "unconscious"),
        )

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "side": self.side,
            "kind": self.kind,
            "reality_rated": self.reality_rated,
            "vitality_default": self.vitality_default,
            "vitality_current": self.vitality_current,
            "status": self.status,
            "possibilities": self.possibilities,
            "advantage": [s.to_json() for s in self.advantage],
            "shifts": [s.to_json() for s in self.shifts],
            "conditions": [c.to_json() for c in self.conditions],
            "wounds": [w.to_json() for w in self.wounds],
            "sheet": sheet_text(self.sheet),
            "notes": self.notes,
            "dead": self.dead,
        }

    @classmethod
    def from_json(cls, d: dict) -> Character:
        return cls(
            id=d["id"],
            name=d["name"],
            side=d.get("side", "PC"),
            kind=d.get("kind", "organic"),
            reality_rated=bool(d.get("reality_rated", False)),
            vitality_default=int(d.get("vitality_default", 0)),
            vitality_current=int(d.get("vitality_current", 0)),
            possibilities=int(d.get("possibilities", 0)),
            advantage=[Source.from_json(x) for x in d.get("advantage", ())],
            shifts=[Source.from_json(x) for x in d.get("shifts", ())],
            conditions=[Condition.from_json(x) for x in d.get("conditions", ())],
            wounds=[Wound.from_json(x) for x in d.get("wounds", ())],
            sheet=parse_sheet_text(d.get("sheet")),
            notes=d.get("notes", ""),
            dead=bool(d.get("dead", False)),
        )


@dataclass(frozen=True)
class Combatant:
    char_id: str
    initiative: int = 0

    def to_json(self) -> dict:
        return {"char_id": self.char_id, "initiative": self.initiative}


@dataclass
class Encounter:
    """Combatants in turn order; ``round`` 0 means the encounter has not started;
    ``turn`` is the index in ``order`` of whoever is acting."""

    order: list[Combatant] = field(default_factory=list)
    round: int = 0
    turn: int = 0

    @property
    def current(self) -> Combatant | None:
        if self.round > 0 and 0 <= self.turn < len(self.order):
            return self.order[self.turn]
        return None

    def index_of(self, char_id: str) -> int | None:
        for i, c in enumerate(self.order):
            if c.char_id == char_id:
                return i
        return None

    def snapshot(self) -> Encounter:
        return Encounter(list(self.order), self.round, self.turn)

    def to_json(self) -> dict:
        return {"order": [c.to_json() for c in self.order], "round": self.round, "turn": self.turn}


@dataclass(frozen=True)
class Clock:
    """A named clock of ``segments`` segments, filled in half segments (0..2×segments)."""

    name: str
    segments: int
    halves: int = 0

    @property
    def filled(self) -> float:
        return self.halves / 2

    @property
    def full(self) -> bool:
        return self.halves >= 2 * self.segments

    def to_json(self) -> dict:
        return {"name": self.name, "segments": self.segments, "halves": self.halves}


@dataclass
class RollEntry:
    """One roll in the log, with who rolled it, at whom, when, and what it changed.

    ``kind`` is ``roll`` (a ``roll`` event), ``initiative`` (one entry of an
    ``initiative.set``) or ``heal`` (a Healing Ability roll). ``spends`` lists who
    spent a Possibility on it (one id per Possibility die, None for an untracked
    roller), ``cancels`` who cancelled one. ``clock``: the clock its progress (4d6)
    went to, by the roll itself or by a later tick that took it ("" while nobody did).
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

    def snapshot(self) -> RollEntry:
        e = RollEntry.__new__(RollEntry)
        e.__dict__.update(self.__dict__)  # a record not read yet stays unread (see LazyRecord)
        e.changes, e.spends, e.cancels = list(self.changes), list(self.spends), list(self.cancels)
        return e

    def to_json(self) -> dict:
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
        }


class LazyRecord:
    """Stands in for a roll entry's record until someone reads ``entry.record``.

    A session opened from its checkpoint knows each roll by where its record is
    written in the log (the event's ``record``, or the j-th recorded entry of an
    ``initiative.set``), or by the record's JSON; ``load()`` parses it then, once.
    Reading ``entry.record`` always gives the RollRecord (never this object)."""

    __slots__ = ("load_fn", "seq", "kind", "ref")

    def __init__(self, load_fn, seq: int, kind: str, ref: Any):
        self.load_fn = load_fn
        self.seq = seq
        self.kind = kind
        self.ref = ref  # int: the j-th record of event seq; dict: the record's JSON

    def load(self) -> RollRecord:
        if type(self.ref) is dict:
            return RollRecord.from_trusted_json(self.ref)
        return self.load_fn(self.seq, self.kind, self.ref)


def _entry_record(self: RollEntry) -> RollRecord:
    r = self.__dict__["record"]
    if type(r) is LazyRecord:
        r = r.load()
        self.__dict__["record"] = r
    return r


def _set_entry_record(self: RollEntry, value: RollRecord) -> None:
    self.__dict__["record"] = value


# ``record`` reads through a property so that an entry restored from a checkpoint
# parses its record on first use (the dataclass field, __init__, ==, repr and
# replace() are unchanged: they all go through the attribute).
RollEntry.record = property(_entry_record, _set_entry_record, doc="The roll's RollRecord.")  # type: ignore


@dataclass(frozen=True)
class Note:
    seq: int
    text: str
    round: int = 0
    turn: int = 0
    time: str = ""

    def to_json(self) -> dict:
        return {"seq": self.seq, "text": self.text, "round": self.round, "turn": self.turn, "time": self.time}


@dataclass
class Info:
    name: str = ""
    system: str = "4d2"
    settings: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(DEFAULT_SETTINGS))
    created: str = ""
    last_played: str = ""

    def snapshot(self) -> Info:
        return Info(self.name, self.system, copy.deepcopy(self.settings), self.created, self.last_played)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "system": self.system,
            "settings": copy.deepcopy(self.settings),
            "created": self.created,
            "last_played": self.last_played,
        }


@dataclass
class State:
    """Everything the session knows, as a fold of its log."""

    info: Info = field(default_factory=Info)
    characters: dict[str, Character] = field(default_factory=dict)
    encounter: Encounter = field(default_factory=Encounter)
    clocks: dict[str, Clock] = field(default_factory=dict)
    rolls: list[RollEntry] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    next_id: int = 1

    @classmethod
    def from_header(cls, header: dict) -> State:
        settings = copy.deepcopy(DEFAULT_SETTINGS)
        settings.update(copy.deepcopy(header.get("settings") or {}))
        return cls(
            info=Info(
                name=str(header.get("name", "")),
                system=str(header.get("system", "4d2")),
                settings=settings,
                created=str(header.get("created", "")),
                last_played=str(header.get("last_played", header.get("created", ""))),
            )
        )

    # ---- look-ups the UI wants

    def character(self, id_or_name: str) -> Character | None:
        """By id, else by name (case-insensitive, first match)."""
        if id_or_name in self.characters:
            return self.characters[id_or_name]
        key = id_or_name.casefold()
        for c in self.characters.values():
            if c.name.casefold() == key:
                return c
        return None

    def name_clash(self, name: str, exclude: str | None = None) -> Character | None:
        """The character (other than ``exclude``) already called ``name`` (case-insensitive,
        spaces trimmed), or None. Two characters never share a name, so that every
        list and dropdown of characters is unambiguous."""
        key = name.strip().casefold()
        for c in self.characters.values():
            if c.id != exclude and c.name.strip().casefold() == key:
                return c
        return None

    def free_name(self, name: str, exclude: str | None = None) -> str:
        """A numbered name nobody has yet: "Gospog" → "Gospog 2" (→ "Gospog 3"…);
        "Gospog 2" → "Gospog 3"."""
        base = name.strip()
        n = 1
        m = _NUMBERED.match(base)
        if m:
            base, n = m.group(1), int(m.group(2))
        while True:
            n += 1
            candidate = f"{base} {n}"
            if self.name_clash(candidate, exclude) is None:
                return candidate

    def name_refusal(self, name: str, exclude: str | None = None) -> str | None:
        """Why ``name`` cannot be used (naming the clash and a free numbered name), or None."""
        other = self.name_clash(name, exclude)
        if other is None:
            return None
        return f"{other.name!r} is already a character here; try {self.free_name(name, exclude)!r}"

    def last_target(self, actor: str) -> str | None:
        """Whom ``actor`` last rolled at (newest roll first), if that character is still here."""
        for e in reversed(self.rolls):
            if e.actor == actor and e.kind == "roll" and e.target is not None:
                return e.target if e.target in self.characters else None
        return None

    def default_target(self, actor: str | None) -> str | None:
        """The target an attack by ``actor`` starts with: its last target if that one is
        not Dead (and is not the roller), else the next standing foe — the next combatant
        after the roller in initiative order (wrapping round) on the other side who is
        neither Unconscious nor Dead — else any standing character of the other side.
        Never the roller itself; None when nobody fits."""
        me = self.characters.get(actor) if actor is not None else None
        last = self.last_target(actor) if actor is not None else None
        if last is not None and last != actor and self.characters[last].status != "dead":
            return last

        def foe(c: Character) -> bool:
            return c.id != actor and c.can_act and (me is None or c.side != me.side)

        order = [x.char_id for x in self.encounter.order if x.char_id in self.characters]
        i = order.index(actor) if actor in order else -1
        for cid in order[i + 1 :] + order[: i + 1]:
            if foe(self.characters[cid]):
                return cid
        for c in self.characters.values():
            if foe(c):
                return c.id
        return None

    def roll_entry(self, seq: int, kind: str = "roll") -> RollEntry | None:
        i = self.roll_index(seq, kind)
        return None if i is None else self.rolls[i]

    def roll_index(self, seq: int, kind: str = "roll") -> int | None:
        """Index in ``rolls`` of the entry of that kind made by event ``seq`` (binary search:
        entries are in seq order)."""
        lo, hi = 0, len(self.rolls)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.rolls[mid].seq < seq:
                lo = mid + 1
            else:
                hi = mid
        while lo < len(self.rolls) and self.rolls[lo].seq == seq:
            if self.rolls[lo].kind == kind:
                return lo
            lo += 1
        return None

    def combatants(self) -> list[Character]:
        return [self.characters[c.char_id] for c in self.encounter.order if c.char_id in self.characters]

    def to_json(self) -> dict:
        """Plain JSON of the whole state (export, tests: replay == live, lossless reload)."""
        return {
            "info": self.info.to_json(),
            "characters": [c.to_json() for c in self.characters.values()],
            "encounter": self.encounter.to_json(),
            "clocks": [c.to_json() for c in self.clocks.values()],
            "rolls": [r.to_json() for r in self.rolls],
            "notes": [n.to_json() for n in self.notes],
            "next_id": self.next_id,
        }

    @classmethod
    def from_json(cls, d: dict) -> State:
        info = d.get("info", {})
        st = cls(
            info=Info(
                info.get("name", ""),
                info.get("system", "4d2"),
                copy.deepcopy(info.get("settings", {})),
                info.get("created", ""),
                info.get("last_played", ""),
            ),
            characters={c["id"]: Character.from_json(c) for c in d.get("characters", ())},
            encounter=Encounter(
                [Combatant(c["char_id"], int(c["initiative"])) for c in d["encounter"]["order"]],
                int(d["encounter"]["round"]),
                int(d["encounter"]["turn"]),
            ),
            clocks={c["name"]: Clock(c["name"], int(c["segments"]), int(c["halves"])) for c in d.get("clocks", ())},
            rolls=[
                RollEntry(
                    r["seq"],
                    RollRecord.from_json(r["record"]),
                    r.get("actor"),
                    r.get("target"),
                    r.get("round", 0),
                    r.get("turn", 0),
                    list(r.get("changes", ())),
                    r.get("kind", "roll"),
                    bool(r.get("combat", False)),
                    list(r.get("spends", ())),
                    list(r.get("cancels", ())),
                    r.get("actor_name", ""),
                    r.get("target_name", ""),
                    r.get("clock", ""),
                )
                for r in d.get("rolls", ())
            ],
            notes=[
                Note(n["seq"], n["text"], n.get("round", 0), n.get("turn", 0), n.get("time", ""))
                for n in d.get("notes", ())
            ],
            next_id=int(d.get("next_id", 1)),
        )
        return st


# --------------------------------------------------------------------------- checkpoint form
# A compact, plain-JSON form of a State for the session's checkpoint (a cache of
# the fold, see core.session.session). Rows instead of objects keep it small and
# quick to read; a roll's record is written as a reference to where the log holds
# it (not copied) unless a Possibility re-read it.

_ROLL_KINDS_BY_EVENT = {"roll": "roll", "heal": "heal", "initiative": "initiative.set"}


def _roll_rows(rolls: list[RollEntry]) -> list[list]:
    rows = []
    prev_seq, prev_kind, j = None, None, 0
    for e in rolls:
        d = e.__dict__
        seq, kind = d["seq"], d["kind"]
        j = j + 1 if (seq, kind) == (prev_seq, prev_kind) else 0
        prev_seq, prev_kind = seq, kind
        rec = d["record"]
        if kind in _ROLL_KINDS_BY_EVENT and not d["spends"] and not d["cancels"]:
            ref: Any = j if kind == "initiative" else 0  # the record the event itself carries
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
            ]
        )
    return rows


def checkpoint_json(state: State) -> dict:
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
                [[x.name, x.rounds, x.roll_seq] for x in c.conditions],
                [[w.text, w.roll_seq, w.system, w.row, w.status, w.amount, w.column] for w in c.wounds],
                sheet_text(c.sheet),
                c.notes,
                c.dead,
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
        "rolls": _roll_rows(state.rolls),
    }


def _frozen(cls: type, **values: Any) -> Any:
    obj = object.__new__(cls)
    obj.__dict__.update(values)
    return obj


def state_from_checkpoint(d: dict, load_record) -> State:
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
    for cid, name, side, kind, rr, vd, vc, poss, adv, shifts, conds, wounds, sheet, notes, dead in d["characters"]:
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
            conditions=[_frozen(Condition, name=n, rounds=r, roll_seq=q) for n, r, q in conds],
            wounds=[
                _frozen(Wound, text=t, roll_seq=q, system=sy, row=ro, status=stt, amount=am, column=co)
                for t, q, sy, ro, stt, am, co in wounds
            ],
            sheet=parse_sheet_text(sheet),
            notes=notes,
            dead=dead,
        )
        st.characters[cid] = c
    order, rnd, turn = d["encounter"]
    st.encounter = Encounter([Combatant(cid, ini) for cid, ini in order], rnd, turn)
    st.clocks = {name: Clock(name, seg, halves) for name, seg, halves in d["clocks"]}
    st.notes = [_frozen(Note, seq=q, text=t, round=r, turn=tu, time=ti) for q, t, r, tu, ti in d["notes"]]
    st.next_id = int(d["next_id"])
    rolls = []
    append = rolls.append
    lazy = LazyRecord
    entry = RollEntry
    for seq, kind, actor, target, rnd, turn, changes, combat, spends, cancels, an, tn, ref, clock in d["rolls"]:
        if type(ref) is not dict and (type(ref) is not int or kind not in _ROLL_KINDS_BY_EVENT):
            raise ValueError(f"roll #{seq}: bad record reference {ref!r}")
        append(
            entry(
                seq,
                lazy(load_record, seq, kind, ref),
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
            )
        )
    st.rolls = rolls
    return st


# --------------------------------------------------------------------------- sheets
# The sheet module is imported lazily: the model must load even while it is absent.


def sheet_text(sheet: Any) -> str | None:
    if sheet is None:
        return None
    from gmdesk.core.sheet import write_sheet

    return write_sheet(sheet)


def parse_sheet_text(text: str | None) -> Any:
    if text is None:
        return None
    from gmdesk.core.sheet import parse_sheet

    return parse_sheet(text)


__all__ = [
    "SIDES",
    "KINDS",
    "STATUSES",
    "SOURCE_KINDS",
    "KNOWN_CONDITIONS",
    "UNCONSCIOUS_AT",
    "DEFAULT_SETTINGS",
    "Source",
    "Condition",
    "Wound",
    "Character",
    "Combatant",
    "Encounter",
    "Clock",
    "RollEntry",
    "Note",
    "Info",
    "State",
    "LazyRecord",
    "checkpoint_json",
    "state_from_checkpoint",
]
