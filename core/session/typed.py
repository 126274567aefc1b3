"""What the GM types into the character pane's one-line editor, read into the values
an event takes: a source ("Aim +1 2"), a condition ("Stymied 1", "Dodging until the
start of Kara's next turn"), Vitality ("3/5") and a sheet row's value and uses
("+2 (3)"). A value that does not read raises :class:`ParamError` naming the field."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from gmdesk.core.errors import ParamError
from gmdesk.core.systems.base import parse_int


def parse_source(text: str, kind: str) -> tuple[str, int, int | None]:
    """``"Aim +1"`` or ``"Aim +1 3"`` (3 rounds) → (name, value, rounds)."""
    words = text.split()
    if len(words) < 2:
        raise ParamError(kind, "type a name and a value, e.g. 'Aim +1' or 'Aim +1 3' (3 rounds)")
    rounds = None
    if len(words) >= 3 and _is_int(words[-1]) and _is_int(words[-2]):
        rounds = parse_int("rounds", words[-1], 1)
        words = words[:-1]
    value = parse_int("value", words[-1], -2 if kind == "advantage" else 1, 2 if kind == "advantage" else 3)
    name = " ".join(words[:-1]).strip()
    if not name:
        raise ParamError(kind, "the source needs a name, e.g. 'Aim +1'")
    return name, value, rounds


_UNTIL = re.compile(
    r"^(?P<name>.+?)\s+until\s+(?:the\s+)?(?P<at>start|end)\s+of\s+(?P<who>.+?)"
    r"(?:['’]s?)?(?:\s+next)?(?:\s+turn)?\s*$",
    re.IGNORECASE,
)
_UNTIL_EXAMPLE = "e.g. 'Dodging until the start of Kara's next turn'"


def parse_condition(text: str, characters: Iterable[Any] = ()) -> tuple[str, int | None, dict[str, Any] | None]:
    """``"Stymied"``, ``"Stymied 2"`` (2 rounds) or ``"Dodging until the start of
    Kara's next turn"`` / ``"… until the end of Kara's turn"`` → (name, rounds,
    until): ``until`` is ``{"id": Kara's id, "at": "start" | "end"}`` (a
    condition.add's ``until``), the name looked up among ``characters`` (anything
    with ``id`` and ``name``; case and spacing do not matter)."""
    words = text.split()
    if not words:
        raise ParamError("condition", "type a name, e.g. 'Stymied' or 'Up 1' (1 round)")
    m = _UNTIL.match(" ".join(words))
    if m is None and any(w.casefold() == "until" for w in words[1:]):
        raise ParamError("condition", f"say until the start or the end of whose turn, {_UNTIL_EXAMPLE}")
    if m is not None:
        who = " ".join(m["who"].split()).casefold()
        chars = list(characters)
        found = next((c for c in chars if c.name.casefold() == who), None)
        if found is None:
            names = ", ".join(c.name for c in chars) or "none"
            raise ParamError("condition", f"no character named {m['who']!r} (characters: {names})")
        return m["name"], None, {"id": found.id, "at": m["at"].lower()}
    rounds = None
    if len(words) >= 2 and _is_int(words[-1]):
        rounds = parse_int("rounds", words[-1], 1)
        words = words[:-1]
    return " ".join(words), rounds, None


def parse_vitality(text: str) -> dict[str, Any]:
    """``"3"`` (current) or ``"3/5"`` (current/default)."""
    if "/" in text:
        cur, default = text.split("/", 1)
        return {
            "vitality_current": parse_int("vitality", cur),
            "vitality_default": parse_int("vitality default", default),
        }
    return {"vitality_current": parse_int("vitality", text)}


def parse_sheet_value(text: str) -> dict[str, Any]:
    """``"+2"`` (current value), ``"(3)"`` / ``"(inf)"`` (current uses) or ``"+2 (3)"``."""
    out: dict[str, Any] = {}
    rest = text.strip()
    if "(" in rest:
        head, _, uses = rest.partition("(")
        uses = uses.rstrip(")").strip()
        out["uses_current"] = "inf" if uses.lower() == "inf" else parse_int("uses", uses, 0)
        rest = head.strip()
    if rest:
        out["current"] = parse_int("value", rest)
    if not out:
        raise ParamError("value", "type a value like +2, uses like (3), or both: +2 (3)")
    return out


def _is_int(word: str) -> bool:
    try:
        int(word.replace("−", "-"))
        return True
    except ValueError:
        return False
