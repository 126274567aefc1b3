"""A stat block of the bestiary: what a new character starts from, its fields read and checked.

A stat block (:class:`StatBlock`) holds name, system, side, kind, Vitality,
Possibilities (and whether it is reality-rated), the fields its system declares
(``Character.fields``, read and checked by the system's declaration exactly as
``gmdesk char`` reads them), shift and advantage sources, conditions, a descriptor
sheet (text), notes and tags. It is read from the bestiary file's JSON or a TOML
table (:meth:`StatBlock.from_json`), and made into a session character
(:meth:`StatBlock.character`, :meth:`StatBlock.model`) or from one
(:meth:`StatBlock.from_character`). The file that keeps them is
:mod:`core.campaign.bestiary`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from gmdesk.core.errors import ParamError

if TYPE_CHECKING:
    from gmdesk.core.session.model import Character

SIDES = ("PC", "NPC")
KINDS = ("organic", "inorganic")
SOURCE_KINDS = ("advantage", "shift")
MAX_NAME = 200
MAX_TEXT = 20_000
MAX_VITALITY = 999
MAX_POSSIBILITIES = 999
MAX_ROUNDS = 9999


#: control characters (a single line: any; several lines: all but line breaks and tabs)
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_CONTROL_MULTILINE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _text(value: Any, what: str, maxlen: int = MAX_NAME, empty: bool = False, multiline: bool = False) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what}: must be text (got {value!r})")
    text: str = value.strip() if not multiline else value
    if not text.strip() and not empty:
        raise ValueError(f"{what}: must not be empty")
    if len(text) > maxlen:
        raise ValueError(f"{what}: at most {maxlen} characters (got {len(text)})")
    if (_CONTROL_MULTILINE if multiline else _CONTROL).search(text):
        raise ValueError(f"{what}: control characters{'' if multiline else ' and line breaks'} are not allowed")
    return text


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what}: must be a whole number (got {value!r})")
    number: int = value
    if not lo <= number <= hi:
        raise ValueError(f"{what}: must be a whole number from {lo} to {hi} (got {number})")
    return number


def _choice(value: Any, what: str, choices: tuple[str, ...]) -> str:
    match = next((c for c in choices if isinstance(value, str) and c.casefold() == value.strip().casefold()), None)
    if match is None:
        raise ValueError(f"{what}: must be {' or '.join(choices)} (got {value!r})")
    return match


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what}: must be true or false (got {value!r})")
    return value


def _rounds(value: Any, what: str) -> int | None:
    return None if value is None else _int(value, what, 1, MAX_ROUNDS)


def _plain(fields: Mapping[str, Any], what: str) -> dict[str, Any]:
    """A JSON copy of ``fields`` (keys as text); ValueError when it is not plain data or
    nests deeper than gmdesk's files may."""
    from gmdesk.core.session.storage.codec import MAX_DEPTH, too_deep

    try:
        text = json.dumps({str(k): v for k, v in fields.items()}, ensure_ascii=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what}: must be plain data ({e})") from None
    except RecursionError:
        text = ""
    if not text or too_deep(text):
        raise ValueError(f"{what}: nested more than {MAX_DEPTH} levels deep")
    copied: dict[str, Any] = json.loads(text)  # the dump of a dict: an object
    return copied


def _only(d: Mapping[str, Any], what: str, allowed: tuple[str, ...]) -> None:
    for k in d:
        if k not in allowed:
            raise ValueError(f"{what}: unknown field {k!r} (allowed: {', '.join(allowed)})")


#: the keys of a stat block, as stored and exported
KEYS = (
    "name",
    "system",
    "side",
    "kind",
    "vitality",
    "possibilities",
    "reality_rated",
    "fields",
    "sources",
    "conditions",
    "sheet",
    "notes",
    "tags",
)


@dataclasses.dataclass(frozen=True)
class StatBlock:
    """One reusable stat block. ``sources``: ``{kind, name, value, rounds, active}``
    (``kind`` advantage or shift); ``conditions``: ``{name, rounds}``; ``sheet``: the
    text of a descriptor sheet or None; ``fields``: the system's character fields."""

    name: str
    system: str
    side: str = "NPC"
    kind: str = "organic"
    vitality: int = 0
    possibilities: int = 0
    reality_rated: bool = False
    fields: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    sources: tuple[Mapping[str, Any], ...] = ()
    conditions: tuple[Mapping[str, Any], ...] = ()
    sheet: str | None = None
    notes: str = ""
    tags: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        """What makes a stat block one of its own: its system and its name (case-insensitive)."""
        return self.system, self.name.strip().casefold()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "system": self.system,
            "side": self.side,
            "kind": self.kind,
            "vitality": self.vitality,
            "possibilities": self.possibilities,
            "reality_rated": self.reality_rated,
            "fields": json.loads(json.dumps(dict(self.fields))),
            "sources": [dict(s) for s in self.sources],
            "conditions": [dict(c) for c in self.conditions],
            "sheet": self.sheet,
            "notes": self.notes,
            "tags": list(self.tags),
        }

    @classmethod
    def from_json(cls, d: Any, where: str = "stat block") -> StatBlock:
        """A stat block from its JSON (or TOML table), its shape checked (``ValueError``
        naming ``where`` and the field). What its system makes of its fields is checked
        by :meth:`check`."""
        if not isinstance(d, Mapping):
            raise ValueError(f"{where}: must be a table of name, system, …")
        _only(d, where, KEYS)
        for k in ("name", "system"):
            if k not in d:
                raise ValueError(f"{where}: missing {k!r}")
        name = _text(d["name"], f"{where}: name")
        where = f"{name!r}"
        system = _text(d["system"], f"{where}: system")
        fields = d.get("fields") or {}
        if not isinstance(fields, Mapping):
            raise ValueError(f"{where}: fields: must be a table of field = value")
        fields = _plain(fields, f"{where}: fields")
        sources = []
        for i, s in enumerate(d.get("sources") or ()):
            w = f"{where}: sources[{i}]"
            if not isinstance(s, Mapping):
                raise ValueError(f"{w}: must be a table of kind, name, value")
            _only(s, w, ("kind", "name", "value", "rounds", "active"))
            kind = _choice(s.get("kind"), f"{w}: kind", SOURCE_KINDS)
            value = _int(s.get("value"), f"{w}: value", -2, 2) if kind == "advantage" else None
            if kind == "advantage" and value == 0:
                raise ValueError(f"{w}: value: an advantage source is +1 or +2, a disadvantage −1 or −2")
            if kind == "shift":
                value = _int(s.get("value"), f"{w}: value", 1, 9)
            sources.append(
                {
                    "kind": kind,
                    "name": _text(s.get("name"), f"{w}: name"),
                    "value": value,
                    "rounds": _rounds(s.get("rounds"), f"{w}: rounds"),
                    "active": _bool(s.get("active", True), f"{w}: active"),
                }
            )
        conditions = []
        for i, c in enumerate(d.get("conditions") or ()):
            w = f"{where}: conditions[{i}]"
            if isinstance(c, str):
                c = {"name": c}
            if not isinstance(c, Mapping):
                raise ValueError(f"{w}: must be a table of name, rounds")
            _only(c, w, ("name", "rounds"))
            conditions.append({"name": _text(c.get("name"), f"{w}: name"), "rounds": _rounds(c.get("rounds"), w)})
        tags = d.get("tags") or ()
        if isinstance(tags, str) or not isinstance(tags, (list, tuple)):
            raise ValueError(f"{where}: tags: must be a list of words")
        kept_tags: list[str] = []
        for t in tags:
            t = " ".join(_text(t, f"{where}: tags").split())
            if t.casefold() not in (x.casefold() for x in kept_tags):
                kept_tags.append(t)
        sheet = d.get("sheet")
        possibilities = _int(d.get("possibilities", 0), f"{where}: possibilities", 0, MAX_POSSIBILITIES)
        reality = _bool(d.get("reality_rated", bool(possibilities)), f"{where}: reality_rated")
        if possibilities and not reality:
            raise ValueError(f"{where}: possibilities: only a reality-rated character has Possibilities")
        return cls(
            name=name,
            system=system,
            side=_choice(d.get("side", "NPC"), f"{where}: side", SIDES),
            kind=_choice(d.get("kind", "organic"), f"{where}: kind", KINDS),
            vitality=_int(d.get("vitality", 0), f"{where}: vitality", -MAX_VITALITY, MAX_VITALITY),
            possibilities=possibilities,
            reality_rated=reality,
            fields=fields,
            sources=tuple(sources),
            conditions=tuple(conditions),
            sheet=None if sheet is None else _text(sheet, f"{where}: sheet", MAX_TEXT, multiline=True),
            notes=_text(d.get("notes", ""), f"{where}: notes", MAX_TEXT, empty=True, multiline=True),
            tags=tuple(kept_tags),
        )

    def check(self) -> StatBlock:
        """The stat block with its fields read by its system's declaration (as ``gmdesk
        char`` reads them: ``ParamError`` naming the field's label) and its sheet read
        (``SheetError``). A system that is not installed is refused."""
        from gmdesk.core.systems import get_spec
        from gmdesk.core.systems.spec import find_stat, parse_field

        spec = get_spec(self.system)  # ParamError: unknown system
        fields: dict[str, Any] = {}
        for name, value in self.fields.items():
            f = spec.field(name)
            if f is None:
                names = ", ".join(x.name for x in spec.character_fields) or "none"
                raise ParamError(name, f"{spec.name} has no such character field (fields: {names})")
            parsed = parse_field(f, value)
            if parsed is not None:
                fields[f.name] = parsed
        for f in spec.character_fields:
            if f.type == "stat" and f.name in fields:
                key = find_stat(fields.get(f.stats or ""), fields[f.name])
                if key is None:
                    table = fields.get(f.stats or "") or {}
                    stats = spec.field(f.stats or "")
                    label = stats.label if stats is not None else f.stats
                    known = ", ".join(table) or "none yet"
                    raise ParamError(f.label, f"{fields[f.name]!r} is not among the {label} ({known})")
                fields[f.name] = key
        # in the order the system declares them, however they were typed or written
        fields = {f.name: fields[f.name] for f in spec.character_fields if f.name in fields}
        if self.sheet is not None:
            from gmdesk.core.sheet import parse_sheet

            parse_sheet(self.sheet, f"{self.name}'s sheet")
        return dataclasses.replace(self, fields=fields)

    def character(self, name: str | None = None) -> dict[str, Any]:
        """The ``character`` of a ``character.add`` event for a copy called ``name``."""
        out: dict[str, Any] = {
            "name": name or self.name,
            "side": self.side,
            "kind": self.kind,
            "reality_rated": self.reality_rated,
            "vitality": self.vitality,
            "possibilities": self.possibilities,
            "notes": self.notes,
        }
        if self.sheet is not None:
            out["sheet"] = self.sheet
        if self.fields:
            out["fields"] = json.loads(json.dumps(dict(self.fields)))
        return out

    def model(self, name: str | None = None) -> Character:
        """A session ``Character`` made from the stat block (not in any session): what
        its initiative modifier is read from."""
        from gmdesk.core.session.model import Character, Condition, Source

        def src(s: Mapping[str, Any]) -> Source:
            return Source(s["name"], s["value"], s["rounds"], s["active"])

        sheet = None
        if self.sheet is not None:
            from gmdesk.core.sheet import parse_sheet

            sheet = parse_sheet(self.sheet)
        return Character(
            id="",
            name=name or self.name,
            side=self.side,
            kind=self.kind,
            reality_rated=self.reality_rated,
            vitality_default=self.vitality,
            vitality_current=self.vitality,
            possibilities=self.possibilities,
            advantage=[src(s) for s in self.sources if s["kind"] == "advantage"],
            shifts=[src(s) for s in self.sources if s["kind"] == "shift"],
            conditions=[Condition(c["name"], c["rounds"]) for c in self.conditions],
            sheet=sheet,
            notes=self.notes,
            fields=dict(self.fields),
        )

    @classmethod
    def from_character(cls, c: Any, system: str, name: str | None = None, tags: Iterable[str] = ()) -> StatBlock:
        """The stat block of a session's character as it is meant to start: its Vitality
        default, its sheet's Current Values back to their Defaults (a new day), no
        wounds; its sources, its conditions (not those a roll imposed, nor those that
        last until a turn), fields, notes."""
        sheet = None
        if c.sheet is not None:
            from gmdesk.core.sheet import write_sheet

            sheet = write_sheet(c.sheet.new_day())
        sources = [
            {"kind": kind, "name": s.name, "value": s.value, "rounds": s.rounds, "active": s.active}
            for kind, lst in (("shift", c.shifts), ("advantage", c.advantage))
            for s in lst
        ]
        return cls.from_json(
            {
                "name": name or c.name,
                "system": system,
                "side": c.side,
                "kind": c.kind,
                "vitality": c.vitality_default,
                "possibilities": c.possibilities,
                "reality_rated": c.reality_rated,
                "fields": dict(c.fields),
                "sources": sources,
                "conditions": [
                    {"name": x.name, "rounds": x.rounds} for x in c.conditions if x.roll_seq is None and x.until is None
                ],
                "sheet": sheet,
                "notes": c.notes,
                "tags": list(tags),
            }
        )
