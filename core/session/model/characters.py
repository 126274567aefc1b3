"""A character: its side and kind, Vitality and Possibilities, advantage and shift
sources, conditions, wounds, descriptor sheet and the fields its system declares
(the numbers it rolls with).

Status is derived, never stored:

* ``dead`` when the sticky ``dead`` flag is set (an injury that killed, by the
  rule of the system that rolled it: injured again while Unconscious, or Vitality
  taken to its death threshold) or when any wound it carries has the status
  ``dead`` (e.g. an organic "Fatal Wound" of the ``wound-status`` table);
* ``unconscious`` when Vitality is at or below :attr:`Character.unconscious_at`
  (the threshold the session's system declares; none when it declares none), or
  any wound has the status ``unconscious`` (e.g. "Mortal Wound", "Incapacitated");
* ``ok`` otherwise.

A wound's status is decided when the roll is applied, by the declaration of the
system that rolled it (``core.systems.harm``), and stored with the wound.

Removing a wound (undo, buy-off, ``wound.remove``) therefore lifts the status it
caused; the ``dead`` flag is only ever cleared by undoing the event that set it.

The GM may set a status by hand (``character.status``, :class:`SetStatus`): it
stands in place of the derived one — for systems whose rules have no knock-out,
or to overrule one — until the GM sets another, or until something the rules
decide *after* it (a wound taken later, Vitality lowered past the threshold, the
``dead`` flag) gives a worse status. It is never made better silently: healing or a wound
removed later leaves it as the GM set it (RULES "Who can act").
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from gmdesk.core.sheet import Sheet

SIDES = ("PC", "NPC")
KINDS = ("organic", "inorganic")
STATUSES = ("ok", "unconscious", "dead")
SOURCE_KINDS = ("advantage", "shift")
#: conditions gmdesk knows by name; any other non-empty name is a custom condition
KNOWN_CONDITIONS = ("Up", "Stymied", "Disconnected")
#: character id → the name a reader may see (None: one they may not)
NameOf: TypeAlias = Callable[[str], str | None]


@dataclass(frozen=True)
class Source:
    """An advantage source (value ±1/±2) or a shift source (value ≥ 1)."""

    name: str
    value: int
    rounds: int | None = None
    active: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "rounds": self.rounds, "active": self.active}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Source:
        return cls(d["name"], int(d["value"]), d.get("rounds"), bool(d.get("active", True)))


#: when a condition that lasts until a character's turn ends: at its start or its end
TURN_MOMENTS = ("start", "end")


@dataclass(frozen=True)
class Condition:
    """A condition (Up, Stymied, Disconnected or the GM's own); ``roll_seq`` is set
    when a roll imposed it (a disconnection), so that re-reading the roll
    (a Possibility spent or cancelled) can lift it again.

    It lasts until it is removed, ``rounds`` of its owner's turns, or ``until`` a
    moment of a character's turn: ``(character id, "start" | "end")`` — "until the
    start of Kara's next turn" ends the next time Kara's turn starts."""

    name: str
    rounds: int | None = None
    roll_seq: int | None = None
    until: tuple[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "rounds": self.rounds, "roll_seq": self.roll_seq}
        if self.until is not None:
            d["until"] = {"id": self.until[0], "at": self.until[1]}
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Condition:
        until = d.get("until")
        return cls(d["name"], d.get("rounds"), d.get("roll_seq"), (until["id"], until["at"]) if until else None)

    def lasts(self, name_of: NameOf | None = None, short: bool = False) -> str:
        """How long it lasts, in words ("" when until removed): "2 rd" /
        "for 2 rounds"; "until Kara's turn" / "until the start of Kara's next
        turn"; "until Kara's turn ends" / "until the end of Kara's turn".
        ``name_of``: character id → name (a callable; None: the id itself); when it
        answers None (a name the reader may not see), "" as if untimed."""
        if self.until is not None:
            cid, at = self.until
            who = name_of(cid) if name_of is not None else cid
            if not who:
                return ""
            if short:
                return f"until {who}'s turn" + (" ends" if at == "end" else "")
            return f"until the end of {who}'s turn" if at == "end" else f"until the start of {who}'s next turn"
        if self.rounds is None:
            return ""
        if short:
            return f"{self.rounds} rd"
        return f"for {self.rounds} round{'s' if self.rounds != 1 else ''}"


@dataclass(frozen=True)
class Wound:
    """A descriptor a character took: the text, the roll that caused it (its seq),
    the system, the table row, the status it imposes (or None) and the numeric
    amount where the system has one (a Vitality Adjustment, a damage number)."""

    text: str
    roll_seq: int | None
    system: str
    row: int | None = None
    status: str | None = None
    amount: int | None = None
    column: str = ""

    def to_json(self) -> dict[str, Any]:
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
    def from_json(cls, d: dict[str, Any]) -> Wound:
        return cls(
            d["text"],
            d.get("roll_seq"),
            d.get("system", ""),
            d.get("row"),
            d.get("status"),
            d.get("amount"),
            d.get("column", ""),
        )


#: when a counter fills up again: at each new round, at the start of its owner's turn,
#: or in the next night (the next session carried over from this one)
COUNTER_RESETS = ("round", "turn", "night")


@dataclass(frozen=True)
class Counter:
    """A named counter a character carries (reactions, legendary actions, a
    once-a-round ability): ``left`` of ``maximum`` uses, full again at its ``reset``
    point (one of :data:`COUNTER_RESETS`)."""

    label: str
    maximum: int
    left: int
    reset: str

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "max": self.maximum, "left": self.left, "reset": self.reset}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Counter:
        return cls(str(d["label"]), int(d["max"]), int(d.get("left", d["max"])), str(d.get("reset", "round")))

    @property
    def full(self) -> Counter:
        return self if self.left == self.maximum else Counter(self.label, self.maximum, self.maximum, self.reset)

    @property
    def refills(self) -> str:
        """When it fills up again, in words ("a round"): the same in any terminal or
        browser font, and without colour."""
        return f"a {self.reset}"

    def shown(self) -> str:
        """ "Reactions 1/1 a round": what is left of the maximum, and when it fills up."""
        return f"{self.label} {self.left}/{self.maximum} {self.refills}"


#: what the players see of a character (the player views, the public chronicle): its
#: name only; its name and how it stands (status, conditions, wounds); or all a player
#: may see (Vitality, Possibilities, sources, counters too — never a GM secret)
VISIBILITY_LEVELS = ("name", "wounds", "all")
#: each level in a few words
VISIBILITY_WORDS = {"name": "name only", "wounds": "name and wounds", "all": "all"}


def default_visibility(side: str) -> str:
    """What the players see of a character nobody chose a level for: all of a player
    character, the name and wounds of any other."""
    return "all" if side == "PC" else "wounds"


#: statuses from best to worst
STATUS_RANK = {"ok": 0, "unconscious": 1, "dead": 2}


def worse_status(a: str, b: str) -> str:
    """The worse of two statuses."""
    return a if STATUS_RANK.get(a, 0) >= STATUS_RANK.get(b, 0) else b


@dataclass(frozen=True)
class SetStatus:
    """A status the GM set by hand, with what the rules saw when it was set: the
    event's seq, the character's Vitality and its ``dead`` flag. What the rules
    decide later (a wound from a roll after ``seq``, Vitality lowered below
    ``vitality`` to the Unconscious threshold or lower, the flag newly set) counts
    when it is worse."""

    status: str
    seq: int = 0
    vitality: int = 0
    dead: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "seq": self.seq, "vitality": self.vitality, "dead": self.dead}

    @classmethod
    def from_json(cls, d: Any) -> SetStatus | None:
        if not isinstance(d, dict) or d.get("status") not in STATUSES:
            return None
        return cls(d["status"], int(d.get("seq", 0)), int(d.get("vitality", 0)), bool(d.get("dead", False)))


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
    sheet: Sheet | None = None  # None when the character has no sheet
    notes: str = ""
    dead: bool = False  # sticky: set by an injury that killed (its system's rule)
    #: the numbers the character carries for its session's system, by the system's
    #: declared field name (core.systems.spec.CharField); a ``stats`` field holds a
    #: dict name -> value. Replaced, never changed in place (the undo record shares it).
    fields: dict[str, Any] = field(default_factory=dict)
    #: hidden from the players (the player view, the public chronicle and log) until
    #: revealed; the GM sees it, marked, and it acts as any other
    hidden: bool = False
    #: the status the GM set by hand (None: the rules' status stands)
    status_set: SetStatus | None = None
    #: the initiative the character's entry is pinned at (a lair's or the
    #: environment's turn): rolling initiative again, every round or for all, leaves
    #: it there, and it joins an encounter there; None: not pinned
    pin: int | None = None
    #: the label of the initiative group the character belongs to ("Gospog"): the
    #: group rolls once and takes one turn; None: it acts on its own
    group: str | None = None
    #: the named counters it carries (:class:`Counter`), in the order they were added;
    #: replaced, never changed in place
    counters: list[Counter] = field(default_factory=list)
    #: what the players see of it, one of :data:`VISIBILITY_LEVELS`; None: the default
    #: for its side (:func:`default_visibility`). Hidden (:attr:`hidden`) stands above it
    visibility: str | None = None
    #: Vitality at or below which the character is Unconscious: the threshold its
    #: session's system declares (``HARM.vitality.unconscious_at``), None when it
    #: declares none. Put on by the session (:meth:`State.seat`), never saved.
    unconscious_at: int | None = field(default=None, compare=False, repr=False)

    @property
    def status(self) -> str:
        """The status the rules give (:attr:`rules_status`), or the one the GM set by
        hand unless what the rules decided since is worse."""
        s = self.status_set
        if s is None:
            return self.rules_status
        later = "ok"
        if self.dead and not s.dead:
            later = "dead"
        else:
            for w in self.wounds:
                if w.roll_seq is not None and w.roll_seq > s.seq and w.status in STATUS_RANK:
                    later = worse_status(later, w.status)
            if self.vitality_out and self.vitality_current < s.vitality:
                later = worse_status(later, "unconscious")
        return worse_status(s.status, later)

    @property
    def rules_status(self) -> str:
        """The status the rules give, without what the GM set by hand."""
        dead, out = self._wound_statuses()
        if self.dead or dead:
            return "dead"
        if self.vitality_out or out:
            return "unconscious"
        return "ok"

    @property
    def vitality_out(self) -> bool:
        """Whether Vitality is at or below the Unconscious threshold of the session's system."""
        at = self.unconscious_at
        return at is not None and self.vitality_current <= at

    def _wound_statuses(self) -> tuple[bool, bool]:
        """(any wound kills, any wound knocks out), cached per wounds list: the fold
        replaces the list on every change, so a character with thousands of wounds
        does not rescan them for every look at its status."""
        wounds = self.wounds
        cache = self.__dict__.get("_status_cache")
        if cache is not None and cache[0] is wounds and cache[1] == len(wounds):
            cached: tuple[bool, bool] = cache[2]
            return cached
        flags = (any(w.status == "dead" for w in wounds), any(w.status == "unconscious" for w in wounds))
        self.__dict__["_status_cache"] = (wounds, len(wounds), flags)
        return flags

    @property
    def can_act(self) -> bool:
        """Takes turns and rolls for actions: not Unconscious, not Dead (RULES "Who can act")."""
        return self.status == "ok"

    @property
    def seen(self) -> str:
        """What the players see of it (one of :data:`VISIBILITY_LEVELS`): the level the
        GM chose, else its side's default. A hidden character is not seen at all,
        whatever its level (the caller asks :attr:`hidden` first)."""
        return self.visibility or default_visibility(self.side)

    def counter(self, label: str) -> Counter | None:
        """The counter called ``label`` (case-insensitive), or None."""
        key = label.casefold()
        return next((x for x in self.counters if x.label.casefold() == key), None)

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

    def to_json(self) -> dict[str, Any]:
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
            "fields": copy.deepcopy(self.fields),
            **({"hidden": True} if self.hidden else {}),
            **({"status_set": self.status_set.to_json()} if self.status_set is not None else {}),
            **({"pin": self.pin} if self.pin is not None else {}),
            **({"group": self.group} if self.group is not None else {}),
            **({"counters": [x.to_json() for x in self.counters]} if self.counters else {}),
            **({"visibility": self.visibility} if self.visibility is not None else {}),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Character:
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
            fields=copy.deepcopy(dict(d.get("fields") or {})),
            hidden=bool(d.get("hidden", False)),
            status_set=SetStatus.from_json(d.get("status_set")),
            pin=int(d["pin"]) if d.get("pin") is not None else None,
            group=str(d["group"]) if d.get("group") is not None else None,
            counters=[Counter.from_json(x) for x in d.get("counters") or ()],
            visibility=str(d["visibility"]) if d.get("visibility") in VISIBILITY_LEVELS else None,
        )


# --------------------------------------------------------------------------- sheets
# The sheet module is imported lazily: the model must load even while it is absent.


def sheet_text(sheet: Sheet | None) -> str | None:
    if sheet is None:
        return None
    from gmdesk.core.sheet import write_sheet

    return write_sheet(sheet)


def parse_sheet_text(text: str | None) -> Sheet | None:
    if text is None:
        return None
    from gmdesk.core.sheet import parse_sheet

    return parse_sheet(text)
