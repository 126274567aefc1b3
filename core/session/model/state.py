"""Everything the session knows: its info and settings, the encounter, clocks,
notes, the characters and the roll log, and the look-ups the UI asks of them."""

from __future__ import annotations

import copy
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from gmdesk.core.dice import RollRecord
from gmdesk.core.session.model.characters import Character
from gmdesk.core.session.model.rolllog import RollLog
from gmdesk.core.session.model.rolls import RollEntry
from gmdesk.core.systems import DEFAULT_SYSTEM

#: the settings of every session, whatever its system (a system's own settings and
#: their defaults are its declaration's: ``core.session.settings.defaults_for``)
DEFAULT_SETTINGS: dict[str, Any] = {
    "tie_rule": "defender",  # a two-way Test's tie: the defender prevails (the status quo holds)
    "reroll_initiative": False,  # initiative rolled again at the start of each round
    "tables": {},  # role -> built-in table name or path of a GM's table file
}


def unconscious_threshold(system: str) -> int | None:
    """The Vitality at or below which a character of a ``system`` session is
    Unconscious, as that system declares (``HARM.vitality.unconscious_at``); None for
    a system that declares none, or is not installed."""
    from gmdesk.core.systems.harm import harm_of

    return harm_of(system).vitality.unconscious_at


_NUMBERED = re.compile(r"^(.*\S)\s+(\d{1,6})$")

#: the shape of a character's id (``c1``, ``c12``…): no character is named so, since
#: every verb that names a character takes its name or its id
_ID_SHAPE = re.compile(r"^[cC][0-9]+$")


def id_shaped(name: str) -> bool:
    """Whether ``name`` has the shape of a character's id (``c1``, ``C12``…)."""
    return bool(_ID_SHAPE.match(name.strip()))


def id_shape_refusal(name: str) -> str | None:
    """Why ``name`` cannot be a character's name because it reads as an id, or None."""
    if not id_shaped(name):
        return None
    return f"{name.strip()!r} has the shape of a character id (c1, c2…) and would be taken for one; choose another name"


@dataclass(frozen=True)
class Combatant:
    char_id: str
    initiative: int = 0

    def to_json(self) -> dict[str, Any]:
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

    def to_json(self) -> dict[str, Any]:
        return {"order": [c.to_json() for c in self.order], "round": self.round, "turn": self.turn}


def halves_text(halves: int) -> str:
    """A count of half segments in segments: ``0``, ``½``, ``1``, ``1½`` (never ``0½``)."""
    whole, half = divmod(halves, 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


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

    @property
    def filled_text(self) -> str:
        """The filled segments as a GM reads them: ``0``, ``½``, ``1``, ``1½``."""
        return halves_text(self.halves)

    def __str__(self) -> str:
        """``Alarm 1½/4``: the clock as the desk and the player view show it."""
        return f"{self.name} {self.filled_text}/{self.segments}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "segments": self.segments, "halves": self.halves}


@dataclass(frozen=True)
class Note:
    seq: int
    text: str
    round: int = 0
    turn: int = 0
    time: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "text": self.text, "round": self.round, "turn": self.turn, "time": self.time}


@dataclass
class Info:
    name: str = ""
    system: str = DEFAULT_SYSTEM
    settings: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(DEFAULT_SETTINGS))
    created: str = ""
    last_played: str = ""

    def snapshot(self) -> Info:
        return Info(self.name, self.system, copy.deepcopy(self.settings), self.created, self.last_played)

    def to_json(self) -> dict[str, Any]:
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
    rolls: list[RollEntry] | RollLog = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    next_id: int = 1

    @classmethod
    def from_header(cls, header: dict[str, Any]) -> State:
        settings = copy.deepcopy(DEFAULT_SETTINGS)
        settings.update(copy.deepcopy(header.get("settings") or {}))
        return cls(
            info=Info(
                name=str(header.get("name", "")),
                system=str(header.get("system", DEFAULT_SYSTEM)),
                settings=settings,
                created=str(header.get("created", "")),
                last_played=str(header.get("last_played", header.get("created", ""))),
            )
        )

    def seat(self, c: Character) -> Character:
        """Put on ``c`` what the session's system says of every character of it (the
        Vitality at which it is Unconscious); ``c`` itself, ready to join."""
        c.unconscious_at = unconscious_threshold(self.info.system)
        return c

    def seat_all(self) -> State:
        """:meth:`seat` every character (a state read whole, or its system changed)."""
        at = unconscious_threshold(self.info.system)
        for c in self.characters.values():
            c.unconscious_at = at
        return self

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
        """Why ``name`` cannot be used (it has the shape of an id; or naming the clash
        and a free numbered name), or None."""
        shaped = id_shape_refusal(name)
        if shaped is not None:
            return shaped
        other = self.name_clash(name, exclude)
        if other is None:
            label = self.group_label(name)
            if label is not None:
                return f"{label!r} is the label of an initiative group here; choose another name"
            return None
        return f"{other.name!r} is already a character here; try {self.free_name(name, exclude)!r}"

    # ---- initiative groups (a label on the members; one roll, one turn, one row)

    def group_label(self, text: str) -> str | None:
        """The label of the initiative group called ``text`` (case-insensitive), or None."""
        key = text.strip().casefold()
        for c in self.characters.values():
            if c.group is not None and c.group.casefold() == key:
                return c.group
        return None

    def group_labels(self) -> list[str]:
        """Every group's label, in the order of its first member."""
        return list(dict.fromkeys(c.group for c in self.characters.values() if c.group is not None))

    def group_members(self, label: str) -> list[Character]:
        """The members of group ``label``: those in the encounter in its order, then the others."""
        key = label.strip().casefold()
        members = [c for c in self.characters.values() if c.group is not None and c.group.casefold() == key]
        seat = {x.char_id: k for k, x in enumerate(self.encounter.order)}
        return sorted(members, key=lambda c: seat.get(c.id, len(seat)))

    def group_title(self, label: str) -> str:
        """The group's row in the order: "Gospog ×3" (its members in the encounter,
        all of them when none is)."""
        members = self.group_members(label)
        ids = {x.char_id for x in self.encounter.order}
        seated = [c for c in members if c.id in ids]
        return f"{label} ×{len(seated or members)}"

    def group_at(self, i: int) -> str | None:
        """The group label of the ``i``-th entry of the order (None: on its own)."""
        c = self.characters.get(self.encounter.order[i].char_id)
        return c.group if c is not None else None

    def unit(self, i: int) -> tuple[int, int]:
        """The entries of the order that take one turn with the ``i``-th: its group's
        members next to it (start, stop), else the entry alone."""
        order = self.encounter.order
        g = self.group_at(i)
        if g is None:
            return i, i + 1
        a, b = i, i + 1
        while a > 0 and self.group_at(a - 1) == g:
            a -= 1
        while b < len(order) and self.group_at(b) == g:
            b += 1
        return a, b

    def units(self) -> list[tuple[int, int]]:
        """The order's turns: (start, stop) of each entry or group, first to last."""
        out = []
        i = 0
        while i < len(self.encounter.order):
            a, b = self.unit(i)
            out.append((a, b))
            i = b
        return out

    def pick_member(self, label: str, role: str = "actor") -> Character | None:
        """The member of group ``label`` an attack uses by default: ``actor`` the first
        who can act; ``target`` the first standing (else the first not Dead);
        None when there is none."""
        members = self.group_members(label)
        for c in members:
            if c.can_act:
                return c
        if role == "target":
            for c in members:
                if c.status != "dead":
                    return c
        return None

    def last_target(self, actor: str) -> str | None:
        """Whom ``actor`` last rolled at (newest roll first), if that character is still here."""
        for e in reversed(self.rolls):
            if e.actor == actor and e.kind == "roll" and e.target is not None:
                return e.target if e.target in self.characters else None
        return None

    def default_target(self, actor: str | None) -> str | None:
        """The target an attack (or an opposed roll) by ``actor`` starts with — one a GM
        would pick: a foe (the other side from the roller) who can still act and, when
        the roller is visible to the players, whom they can see (a hidden target would
        hide the roll too). Its last target if that one still fits (for an NPC, the
        last target it chose even on its own side), else the next such foe after the
        roller in initiative order (wrapping round), else any such foe. Never the
        roller itself, the Unconscious or the Dead; None when nobody fits."""
        me = self.characters.get(actor) if actor is not None else None
        seen = me is not None and not me.hidden

        def able(c: Character) -> bool:
            return c.id != actor and c.can_act and not (seen and c.hidden)

        def foe(c: Character) -> bool:
            return able(c) and (me is None or c.side != me.side)

        last = self.last_target(actor) if actor is not None else None
        if last is not None:
            c = self.characters[last]
            if foe(c) or (able(c) and me is not None and me.side == "NPC"):
                return last
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
        entries are in seq order). A long log's older entries are packed
        (``model.rolllog``): an event newer than them is looked for among the newest
        entries only, so the roll just made is found without unpacking a page."""
        rolls = self.rolls
        lo = rolls.packed_count if isinstance(rolls, RollLog) else 0
        if not (lo < len(rolls) and rolls[lo].seq < seq):
            lo = 0
        lo = bisect_left(rolls, seq, lo=lo, key=attrgetter("seq"))
        while lo < len(self.rolls) and self.rolls[lo].seq == seq:
            if self.rolls[lo].kind == kind:
                return lo
            lo += 1
        return None

    def public_roll(self, e: RollEntry) -> bool:
        """Whether the players see roll ``e``: not made while its roller or target was
        hidden (unless the GM revealed it since), and neither of them hidden now."""
        if e.hidden:
            return False
        chars = self.characters
        for cid in (e.actor, e.target):
            if cid is not None:
                c = chars.get(cid)
                if c is not None and c.hidden:
                    return False
        return True

    def public_characters(self) -> list[Character]:
        """The characters the players see (not hidden), in session order."""
        return [c for c in self.characters.values() if not c.hidden]

    def combatants(self) -> list[Character]:
        return [self.characters[c.char_id] for c in self.encounter.order if c.char_id in self.characters]

    def to_json(self) -> dict[str, Any]:
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
    def from_json(cls, d: dict[str, Any]) -> State:
        info = d.get("info", {})
        st = cls(
            info=Info(
                info.get("name", ""),
                info.get("system", DEFAULT_SYSTEM),
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
                    bool(r.get("hidden", False)),
                )
                for r in d.get("rolls", ())
            ],
            notes=[
                Note(n["seq"], n["text"], n.get("round", 0), n.get("turn", 0), n.get("time", ""))
                for n in d.get("notes", ())
            ],
            next_id=int(d.get("next_id", 1)),
        )
        return st.seat_all()
