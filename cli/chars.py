"""``gmdesk char``: a session's characters and their numbers from the command line.

``gmdesk char SAVE add|set|show|list|remove|add-from|initiative|group|ungroup|hide|reveal|visibility|status|counter``
(``counter``: :mod:`gmdesk.cli.counters`; ``visibility``: :mod:`gmdesk.cli.seen`).

``FIELD=VALUE`` names a field of the session's system (``core.systems.spec``
``CharField``) by its name or its label, case, spaces, dashes and underscores
ignored (``attack=Fire Combat``, ``"Attack skill=Fire Combat"``), or one of the
character's own parts: ``side``, ``kind``, ``vitality`` (the current Vitality; in
``add`` the Default too), ``max vitality`` (its Default), ``possibilities``,
``reality rated`` (yes/no), ``name``, ``notes``. An empty VALUE clears a field.

A table of named values (a ``stats`` field such as torg's Attributes and skills) is
set whole, ``stats="Fire Combat=13, Dodge=11"``, or one entry at a time,
``stats.Fire Combat=13`` (an empty value takes the entry off: ``stats.Dodge=``).

``add-from NAME [--count N]`` adds N copies of the bestiary's stat block NAME
(:mod:`gmdesk.core.campaign.bestiary`) of the session's system, numbered "Gospog 1" …
"Gospog 4" after the numbers already taken (a single copy keeps the plain name
unless it is taken), each its own character, and joins each to the encounter at an
initiative rolled with its own modifier, logged with its dice; ``--hidden``: the
copies (and their initiative rolls) are hidden from the players until revealed;
``--group`` (two copies or more): the copies are one initiative group labelled with
the block's name, at one initiative rolled once.

``group NAME… --label LABEL`` makes the named characters one initiative group (or
adds them to the group LABEL): one roll with the lowest modifier among them, one
turn, one row in the order ("Gospog ×3"); a label is never a character's name.
``ungroup LABEL`` splits the group; each member keeps its place in the order.

``initiative NAME[=N] …`` rolls initiative for each named character (the session's
system, its own modifier; logged with its dice) or takes the typed N, and those not
in the encounter join it. The Unconscious and the Dead get none (said on stdout;
refused when nobody named can act). ``--pin`` pins each named entry at the number
it gets (a bare NAME already in the fight: where it stands): rolling initiative
again — each round, or for all — leaves it there, and it joins a fight there;
``--unpin`` releases it (a bare NAME is only released). A pinned entry is never
rolled. Ties go by the session's setting "Initiative ties" (a roll-off is logged).

``status NAME ok|unconscious|dead`` sets the character's status by hand (the seeds
give torg-2d10 and 4d6 no knock-out rule; the GM may overrule one): it holds until
the GM sets another or a later roll gives a worse one (``character.status``).

Each command is one undoable event (``character.add``, ``character.fields``,
``character.remove``, ``characters.add``, ``initiative.set``, ``group.set``, ``group.remove``,
``character.status``); a ``set`` that changes nothing (the
values the character already has) says so and logs nothing; bad input is one line
on stderr, exit 2, and nothing is saved.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from gmdesk.cli import counters, seen
from gmdesk.cli.common import choice, guard, open_session, spec_or_none
from gmdesk.cli.fields import field_key, read_assignments
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.results import saved
from gmdesk.core.session.events.text import num

if TYPE_CHECKING:
    from gmdesk.core.dice import RandomSource
    from gmdesk.core.session import Event, Session
    from gmdesk.core.session.model import Character


def register(subparsers: Any) -> None:
    """Add ``char`` and its verbs to ``gmdesk``'s subparsers."""
    p = subparsers.add_parser(
        "char", help="add, change, show, list, remove, hide or reveal a session's characters, or set their status"
    )
    p.add_argument("save", metavar="SAVE", help="session name or path")
    verbs = p.add_subparsers(
        dest="verb",
        metavar="add|set|show|list|remove|add-from|initiative|group|ungroup|hide|reveal|visibility|status|counter",
        parser_class=type(p),
    )
    verbs.required = True

    v = verbs.add_parser("add", help="add a character (with its numbers: --set FIELD=VALUE)")
    v.add_argument("name", metavar="NAME")
    v.add_argument("--side", default=None, metavar="PC|NPC", help="PC (default) or NPC")
    v.add_argument("--kind", default=None, metavar="organic|inorganic", help="organic (default) or inorganic")
    v.add_argument(
        "--set",
        dest="assignments",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a field of the session's system (or side, kind, vitality, possibilities, …); repeatable",
    )
    v.add_argument(
        "--hidden", action="store_true", help="hidden from the players (player view, chronicle) until revealed"
    )
    v.add_argument(
        "--visibility", default=None, metavar="name|wounds|all", help="what the players see of it (default: by side)"
    )
    v.set_defaults(func=guard(cmd_add))

    v = verbs.add_parser("set", help="change a character's fields (one event)")
    v.add_argument("name", metavar="NAME", help="character name or id")
    v.add_argument("assignments", nargs="+", metavar="FIELD=VALUE")
    v.set_defaults(func=guard(cmd_set))

    v = verbs.add_parser("show", help="print a character's numbers")
    v.add_argument("name", metavar="NAME", help="character name or id")
    v.add_argument("--json", action="store_true", help="the character as JSON")
    v.set_defaults(func=guard(cmd_show))

    v = verbs.add_parser("list", help="list the session's characters")
    v.add_argument("--json", action="store_true", help="one JSON object per character per line")
    v.set_defaults(func=guard(cmd_list))

    v = verbs.add_parser("remove", help="remove a character from the session")
    v.add_argument("name", metavar="NAME", help="character name or id")
    v.set_defaults(func=guard(cmd_remove))

    v = verbs.add_parser("add-from", help="add numbered copies of a bestiary stat block and join them to the encounter")
    v.add_argument("name", metavar="NAME", help="the stat block's name in the bestiary")
    v.add_argument("--count", default="1", metavar="N", help="how many copies (default 1)")
    v.add_argument("--hidden", action="store_true", help="hidden from the players until revealed")
    v.add_argument(
        "--group", action="store_true", help="the copies as one initiative group: one roll, one turn, one row"
    )
    v.add_argument(
        "--visibility",
        default=None,
        metavar="name|wounds|all",
        help="what the players see of each copy (default: by side)",
    )
    v.add_argument("--seed", default=None, help=argparse.SUPPRESS)
    v.set_defaults(func=guard(cmd_add_from))

    v = verbs.add_parser("group", help="make characters one initiative group (one roll, one turn, one row)")
    v.add_argument("names", nargs="+", metavar="NAME", help="character name or id")
    v.add_argument("--label", required=True, metavar="LABEL", help="the group's name in the order (not a character's)")
    v.set_defaults(func=guard(cmd_group))

    v = verbs.add_parser("ungroup", help="split an initiative group: each member acts on its own, in its place")
    v.add_argument("label", metavar="LABEL", help="the group's label")
    v.set_defaults(func=guard(cmd_ungroup))

    v = verbs.add_parser(
        "initiative", help="roll initiative for characters (NAME=N: a typed value); those not in the fight join it"
    )
    v.add_argument("names", nargs="+", metavar="NAME[=N]", help="character name or id, =N for a typed initiative")
    pin = v.add_mutually_exclusive_group()
    pin.add_argument(
        "--pin",
        action="store_true",
        help="keep each named entry at its number when initiative is rolled again (a bare NAME: where it stands)",
    )
    pin.add_argument(
        "--unpin", action="store_true", help="release each named entry's pin (a bare NAME is released, not rolled)"
    )
    v.add_argument("--seed", default=None, help=argparse.SUPPRESS)
    v.set_defaults(func=guard(cmd_initiative))

    v = verbs.add_parser("hide", help="hide a character from the players until revealed")
    v.add_argument("name", metavar="NAME", help="character name or id")
    v.set_defaults(func=guard(cmd_hide))

    v = verbs.add_parser("reveal", help="show a hidden character to the players")
    v.add_argument("name", metavar="NAME", help="character name or id")
    v.add_argument(
        "--with-rolls", action="store_true", help="and the rolls it made or took while hidden (else they stay hidden)"
    )
    v.set_defaults(func=guard(cmd_reveal))

    v = verbs.add_parser("status", help="set a character's status by hand: ok, unconscious or dead")
    v.add_argument("name", metavar="NAME", help="character name or id")
    v.add_argument("status", metavar="ok|unconscious|dead", help="the status the GM sets")
    v.set_defaults(func=guard(cmd_status))

    seen.register(verbs)
    counters.register(verbs)


# --------------------------------------------------------------------------- the verbs


def _apply(session: Session, doc: dict[str, Any], rng: RandomSource | None = None) -> Event:
    """Apply one event; its refusal is said in the GM's words (no event type). With
    ``rng``: an event that seats combatants, whose ties the session settles (a
    roll-off rolls with ``rng``)."""
    from gmdesk.core.session.events import EventError

    try:
        event = session.apply_placing(doc, rng) if rng is not None else session.apply(doc)
    except EventError as e:
        raise GmdeskError(e.reason) from None
    saved("event", f"{event.summary}, in {session.state.info.name}")
    return event


def _print_event(event: Event) -> None:
    lines = [event.summary]
    lines += [f"  · {ch}" for ch in event.changes if ch != event.summary]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def cmd_add(ns: Any) -> int:
    level = None if ns.visibility is None else seen.read_level(ns.visibility)
    with open_session(ns) as session:
        spec = spec_or_none(session.state.info.system)
        fields, own = read_assignments(spec, ns.assignments, adding=True)
        if ns.side is not None:
            own["side"] = choice("--side", ns.side, ("PC", "NPC"))
        if ns.kind is not None:
            own["kind"] = choice("--kind", ns.kind, ("organic", "inorganic"))
        if own.pop("name", None) is not None:
            raise ParamError("name", "is the NAME of `char add`")
        character: dict[str, Any] = {"name": ns.name}
        if own.get("possibilities") and "reality_rated" not in own:
            own["reality_rated"] = True  # only a reality-rated character has Possibilities
        vit = own.pop("vitality_default", None)
        cur = own.pop("vitality_current", None)
        if cur is not None and vit is not None and cur != vit:
            raise ParamError("vitality", "a new character starts at its max vitality: give one of the two")
        if vit is not None or cur is not None:
            character["vitality"] = vit if vit is not None else cur
        character.update(own)
        set_fields = {k: v for k, v in fields.items() if v is not None}
        if set_fields:
            character["fields"] = set_fields
        if ns.hidden:
            character["hidden"] = True
        if level is not None:
            character["visibility"] = level
        event = _apply(session, {"type": "character.add", "character": character})
        cid = event.data["id"]
        c = session.state.characters[cid]
        sys.stdout.write(f"Added {c.name} ({cid}) to {session.state.info.name}\n")
        for line in _show_lines(session, c):
            sys.stdout.write(f"  {line}\n")
    return 0


def cmd_set(ns: Any) -> int:
    with open_session(ns) as session:
        c = session.character(ns.name)
        spec = spec_or_none(session.state.info.system)
        fields, own = read_assignments(spec, ns.assignments, c.fields)
        if own.get("possibilities") and not c.reality_rated and "reality_rated" not in own:
            own["reality_rated"] = True
        if not _changes(spec, c, fields, own):
            what = "that value" if len(ns.assignments) == 1 else "those values"
            sys.stdout.write(f"Nothing changed: {c.name} already has {what}\n")
            return 0
        doc: dict[str, Any] = {"type": "character.fields", "id": c.id, "set": fields}
        if own:
            doc["edit"] = own
        event = _apply(session, doc)
        _print_event(event)
    return 0


def _changes(spec: Any, c: Character, fields: dict[str, Any], own: dict[str, Any]) -> bool:
    """Whether ``set`` would change the character: its system's fields after the
    changes (a ``stat`` read as the entry of its table it names, as the event reads it)
    or one of its own parts. A change that changes nothing is not logged."""
    from gmdesk.core.systems.spec import find_stat

    if any(getattr(c, key) != value for key, value in own.items()):
        return True
    after = dict(c.fields)
    for name, value in fields.items():
        if value is None:
            after.pop(name, None)
        else:
            after[name] = value
    for f in spec.character_fields:
        if f.type == "stat" and f.name in after:
            key = find_stat(after.get(f.stats or ""), after[f.name])
            if key is not None:
                after[f.name] = key
    return bool(after != c.fields)


def _show_lines(session: Session, c: Character) -> list[str]:
    from gmdesk.core.systems import character_sections
    from gmdesk.core.systems.spec import show_field

    st = session.state
    spec = spec_or_none(st.info.system)
    sections = character_sections(st.info.system)
    hidden = "; hidden from the players" if c.hidden else ""
    pinned = f"; initiative pinned at {num(c.pin)}" if c.pin is not None else ""
    if c.group is not None:
        pinned += f"; in the group {session.state.group_title(c.group)}"
    lines = [f"{c.side}, {c.kind}{', reality-rated' if c.reality_rated else ''}; {c.status}{hidden}{pinned}"]
    parts = []
    if "vitality" in sections or c.vitality_default or c.vitality_current:
        vit = f"Vitality {num(c.vitality_current)}"
        if c.vitality_default != c.vitality_current:
            vit += f" of {num(c.vitality_default)}"
        parts.append(vit)
    if c.reality_rated or "possibilities" in sections:
        parts.append(f"Possibilities {c.possibilities}")
    if parts:
        lines.append(", ".join(parts))
    if spec is not None:
        for f in spec.character_fields:
            value = c.fields.get(f.name)
            if value is None and f.default is not None:
                lines.append(f"{f.label}: {show_field(f, f.default)} (default)")
            elif value is not None:
                lines.append(f"{f.label}: {show_field(f, value)}")
            else:
                lines.append(f"{f.label}: —")
    for kind, title in (("shift", "Shift sources"), ("advantage", "Advantage sources")):
        srcs = c.sources(kind)
        if srcs:
            from gmdesk.core.text import signed

            shown = ", ".join(f"{s.name} {signed(s.value)}{'' if s.active else ' (off)'}" for s in srcs)
            lines.append(f"{title}: {shown}")
    if c.conditions:
        lines.append("Conditions: " + ", ".join(x.name for x in c.conditions))
    if c.wounds:
        lines.append("Wounds: " + ", ".join(w.text for w in c.wounds))
    if c.counters:
        lines.append("Counters: " + ", ".join(x.shown() for x in c.counters))
    lines.append(f"Players see: {seen.shown_level(c)}")
    return lines


def cmd_show(ns: Any) -> int:
    with open_session(ns, readonly=True) as session:
        c = session.character(ns.name)
        if ns.json:
            sys.stdout.write(json.dumps(c.to_json(), ensure_ascii=False) + "\n")
        else:
            sys.stdout.write("\n".join([f"{c.name} ({c.id})", *(f"  {x}" for x in _show_lines(session, c))]) + "\n")
    return 0


def cmd_list(ns: Any) -> int:
    from gmdesk.core.session.model import VISIBILITY_WORDS, default_visibility
    from gmdesk.core.systems.spec import show_field

    with open_session(ns, readonly=True) as session:
        st = session.state
        chars = list(st.characters.values())
        if ns.json:
            for c in chars:
                sys.stdout.write(json.dumps(c.to_json(), ensure_ascii=False) + "\n")
            return 0
        if not chars:
            sys.stdout.write(f"No characters in {st.info.name} (`gmdesk char {ns.save} add NAME` adds one)\n")
            return 0
        spec = spec_or_none(st.info.system)
        rows = [("Name", "Side", "Kind", "Vit", "Numbers")]
        for c in chars:
            numbers = []
            if spec is not None:
                for f in spec.character_fields:
                    value = c.fields.get(f.name)
                    if value is not None:
                        numbers.append(f"{f.label} {show_field(f, value)}")
            name = f"{c.name} (hidden)" if c.hidden else c.name
            if c.seen != default_visibility(c.side):  # what the players see, when not its side's default
                name += f" (players see {VISIBILITY_WORDS[c.seen]})"
            rows.append((name, c.side, c.kind, num(c.vitality_current), "; ".join(numbers)))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for r in rows:
            sys.stdout.write("  ".join(f"{r[i]:<{widths[i]}}" for i in range(4)) + f"  {r[4]}".rstrip() + "\n")
    return 0


def cmd_hide(ns: Any) -> int:
    with open_session(ns) as session:
        c = session.character(ns.name)
        _print_event(_apply(session, {"type": "character.hide", "id": c.id}))
    return 0


def cmd_reveal(ns: Any) -> int:
    from gmdesk.core.session.events.visibility import hidden_rolls

    with open_session(ns) as session:
        c = session.character(ns.name)
        doc: dict[str, Any] = {"type": "character.reveal", "id": c.id}
        rolls = hidden_rolls(session.state, c.id) if ns.with_rolls else []
        if rolls:
            doc["rolls"] = rolls
        _print_event(_apply(session, doc))
    return 0


def cmd_status(ns: Any) -> int:
    """The GM sets a character's status by hand (one ``character.status`` event)."""
    from gmdesk.core.session.model import STATUSES

    status = field_key(ns.status)
    if status not in STATUSES:
        raise ParamError("status", f"must be ok, unconscious or dead (got {ns.status!r})")
    with open_session(ns) as session:
        c = session.character(ns.name)
        _print_event(_apply(session, {"type": "character.status", "id": c.id, "status": status}))
    return 0


def cmd_initiative(ns: Any) -> int:
    """Initiative for the named characters in one event, each roll logged with its
    dice (the session's system, the character's own modifier), a typed value kept
    as typed; those not in the encounter join it."""
    from gmdesk.core.dice import make_rng
    from gmdesk.core.session.events import EventError
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.base import parse_int

    seed = None if ns.seed is None else parse_int("--seed", ns.seed, -(2**63), 2**63)
    with open_session(ns) as session:
        ids: list[str] = []
        values: dict[str, int] = {}
        for typed in ns.names:
            name, sep, value = typed.rpartition("=") if "=" in typed else (typed, "", "")
            c = session.character(name.strip())
            if c.id in ids:
                raise GmdeskError(f"{c.name} is named twice")
            ids.append(c.id)
            if sep:  # read the system's way (a fudge ladder level, a plug-in's word), else a number
                parse = get_spec(session.state.info.system).parse_initiative
                label = f"{c.name}'s initiative"
                values[c.id] = int(parse(label, value)) if parse is not None else parse_int(label, value)
        pins = dict.fromkeys(ids, True) if ns.pin else dict.fromkeys(ids, False) if ns.unpin else None
        if ns.unpin:
            bare = [session.state.characters[cid] for cid in ids if cid not in values]
            loose = [c.name for c in bare if c.pin is None]
            if loose and len(loose) == len(ids):
                what = "is" if len(loose) == 1 else "are"
                sys.stdout.write(f"Nothing changed: {', '.join(loose)} {what} not pinned\n")
                return 0
            if loose:
                raise GmdeskError(f"{', '.join(loose)}: initiative not pinned, nothing to release")
        if ns.pin:
            for cid in ids:
                c = session.state.characters[cid]
                if c.pin is not None and cid not in values and session.state.encounter.index_of(cid) is not None:
                    raise GmdeskError(
                        f"{c.name}'s initiative is already pinned at {num(c.pin)} ({c.name}=N moves the pin)"
                    )
        try:
            event = session.roll_initiative(ids, make_rng(seed), values=values, pins=pins)
        except EventError as e:
            raise GmdeskError(e.reason) from None
        saved("event", f"{event.summary}, in {session.state.info.name}")
        _print_event(event)
        for line in session.no_initiative(ids).values():  # the Unconscious and the Dead: none
            sys.stdout.write(f"  · {line}\n")
    return 0


def cmd_group(ns: Any) -> int:
    with open_session(ns) as session:
        ids = list(dict.fromkeys(session.character(name).id for name in ns.names))
        if len(ids) < 2:  # (said here in the command's words, not the event's field)
            raise GmdeskError("a group needs two characters or more: name each one (NAME NAME …)")
        _print_event(_apply(session, {"type": "group.set", "label": ns.label, "ids": ids}))
    return 0


def cmd_ungroup(ns: Any) -> int:
    with open_session(ns) as session:
        _print_event(_apply(session, {"type": "group.remove", "label": ns.label}))
    return 0


def cmd_remove(ns: Any) -> int:
    with open_session(ns) as session:
        c = session.character(ns.name)
        _print_event(_apply(session, {"type": "character.remove", "id": c.id}))
    return 0


def cmd_add_from(ns: Any) -> int:
    from gmdesk.cli.bestiary import bestiary
    from gmdesk.core.campaign.copies import MAX_COPIES, add_from_event
    from gmdesk.core.dice import make_rng
    from gmdesk.core.systems.base import parse_int

    count = parse_int("--count", ns.count, 1, MAX_COPIES)
    level = None if ns.visibility is None else seen.read_level(ns.visibility)
    seed = None if ns.seed is None else parse_int("--seed", ns.seed, -(2**63), 2**63)
    with open_session(ns) as session:
        b = bestiary(ns)
        system = session.state.info.system
        db = b.db()
        found = [d for _, d in db.named(ns.name, system)]
        if not found:
            other = db.named(ns.name)
            if other:
                systems = ", ".join(sorted({d["system"] for _, d in other}))
                name, here = other[0][1]["name"], session.state.info.name
                raise GmdeskError(f"{name!r} in the bestiary is for {systems}; {here} plays {system}")
        block = b.find(ns.name, system, db)
        rng = make_rng(seed)
        if ns.group and count < 2:
            raise GmdeskError("--group needs --count 2 or more: a group is two characters or more")
        doc = add_from_event(session, block, count, rng, hidden=ns.hidden, group=ns.group, visibility=level)
        event = _apply(session, doc, rng)
        st = session.state
        sys.stdout.write(f"{event.summary}\n")
        for cid in event.data["ids"]:
            c = st.characters[cid]
            i = st.encounter.index_of(cid)
            ini = st.encounter.order[i].initiative if i is not None else None
            hidden = ", hidden from the players" if getattr(c, "hidden", False) else ""
            shown = "none" if ini is None else num(ini)  # as the log writes it (a real minus)
            sys.stdout.write(f"  {c.name} ({cid}): initiative {shown}, Vitality {num(c.vitality_current)}{hidden}\n")
    return 0
