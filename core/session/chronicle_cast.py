"""Who a chronicle tells of (its cast, who was hurt, each character's JSON), and how
much of each the players' chronicle tells: a character hidden from the players not
at all, the others as their visibility level allows (:mod:`.events.seen`) — by name
only, with how they stand (status, conditions, wounds), or all (Vitality and
Possibilities too). The GM's chronicle tells everything."""

from __future__ import annotations

from typing import Any

from gmdesk.core.session.events import num, status_word
from gmdesk.core.session.model import Character, NameOf, State
from gmdesk.core.text import reading


def char_facts(c: Character, system: str, name_of: NameOf | None = None, public: bool = False) -> list[str]:
    """A cast line's facts: "NPC, organic, Vitality 4/10, OK, Stymied (2 rd)" — in the
    players' chronicle, only the side of one they see by name only, and no Vitality
    or Possibilities of one they see the name and wounds of."""
    from gmdesk.core.systems import character_sections

    level = c.seen if public else "all"
    facts = [f"{c.side}"]
    if level == "name":
        return facts
    facts.append(c.kind)
    if level == "all":
        if c.reality_rated:
            facts.append(f"Possibilities {c.possibilities}")
        if "vitality" in character_sections(system) or c.vitality_default or c.vitality_current:
            facts.append(f"Vitality {num(c.vitality_current)}/{num(c.vitality_default)}")
    facts.append(status_word(c.status))
    for cond in c.conditions:
        lasts = cond.lasts(name_of, short=True)
        facts.append(f"{cond.name}" + (f" ({lasts})" if lasts else ""))
    return facts


def wound_text(c: Character, hidden: frozenset[int] = frozenset(), public: bool = False) -> list[str]:
    """Each wound with the roll that dealt it; ``hidden``: the seqs of the rolls the
    reader does not see (the players' chronicle names no roll it leaves out). None
    of one the players see by name only."""
    if public and c.seen == "name":
        return []
    return [
        reading(w.text) + (f" (roll #{w.roll_seq})" if w.roll_seq is not None and w.roll_seq not in hidden else "")
        for w in c.wounds
    ]


def cast(state: State, public: bool) -> list[Character]:
    """The characters the chronicle tells of: the players' leaves out the hidden."""
    return [c for c in state.characters.values() if not (public and c.hidden)]


def hurt(state: State, public: bool = False) -> list[Character]:
    """Who was hurt (a wound, or a status other than OK): the players' chronicle
    leaves out whom they see by name only."""
    return [c for c in cast(state, public) if (c.wounds or c.status != "ok") and not (public and c.seen == "name")]


#: what the players' JSON chronicle tells of a character they see by name only, and of
#: one they see the name and wounds of (the rest: all of it but the GM's notes)
_NAME_KEYS = ("id", "name", "side")
_WOUNDS_KEYS = (*_NAME_KEYS, "kind", "status", "conditions", "wounds", "group", "pin")


def character_json(
    c: Character, public: bool, hidden: frozenset[int] = frozenset(), system: str = ""
) -> dict[str, Any]:
    """``c`` as the JSON chronicle tells it (``Character.to_json``); the players'
    without the GM's notes, without a pointer to a roll they do not see (``hidden``),
    without a field that fills in a parameter ``system`` declares secret (even at
    ``all``), and with only what its visibility level shows."""
    d = c.to_json()
    if not public:
        return d
    d.pop("notes", None)
    d.pop("visibility", None)
    secret = _secret_fields(system)
    if secret and d.get("fields"):
        d["fields"] = {k: v for k, v in d["fields"].items() if k not in secret}
    if c.seen != "all":
        keys = _NAME_KEYS if c.seen == "name" else _WOUNDS_KEYS
        d = {k: v for k, v in d.items() if k in keys}
    for key in ("wounds", "conditions"):  # no pointer to a roll the players do not see
        if key in d:
            d[key] = [{**x, "roll_seq": None} if x.get("roll_seq") in hidden else x for x in d[key]]
    return d


def _secret_fields(system: str) -> frozenset[str]:
    """The character fields of ``system`` that fill in a parameter it keeps secret."""
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.systems import get_spec

    try:
        spec = get_spec(system)
    except GmdeskError:
        return frozenset()
    secret = set(spec.secret_params)
    return frozenset(f.name for f in spec.character_fields if f.feeds in secret)
