"""What the character pane lists of a character: the summary above the list (side,
kind, status markers, what the players see of it — "players: name", "players:
wounds" or "players: all" —, Vitality gauge, Possibilities, latest wound) and one row per
thing the character has — its fields, the numbers it carries for the session's dice
system, sources, conditions, wounds, the descriptor sheet, the details.

Only the parts the session's system uses are listed (its ``CHARACTER_SECTIONS``),
plus any part this character already has something in (a session whose system was
changed), so nothing entered ever disappears. The pane
(:mod:`gmdesk.tui.widgets.character`) lays these rows out and edits them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text

from gmdesk.core.systems import character_sections
from gmdesk.tui.widgets import charfields
from gmdesk.tui.widgets.common import STATUS_MARKERS, bonus, gauge, markers_text, signed

if TYPE_CHECKING:
    from gmdesk.core.session import Character, State
    from gmdesk.core.sheet import Row as SheetRow
    from gmdesk.core.systems.spec import SystemSpec

SOURCE_KINDS = (("advantage", "Advantage sources"), ("shift", "Shift sources"))

#: a status as the pane shows it
STATUS_WORDS = {"ok": "OK", "unconscious": "Unconscious", "dead": "Dead"}

#: the rows of the system's own section (its ``+ add`` rows are ``add`` rows keyed by a tuple)
SYSTEM_ROWS = (charfields.FIELD, charfields.ENTRY, charfields.OTHER)


@dataclass(frozen=True)
class Row:
    """What a line of the list stands for: ``kind`` and a key (field name, index…)."""

    kind: str  # head | field | advantage | shift | condition | counter | wound | sheet | add | charfields' kinds
    key: Any = None


#: one line of the list: what it stands for, its title, its value
Line = tuple[Row, "str | Text", str]


@dataclass(frozen=True)
class Shown:
    """Which of the optional parts the pane shows for a character."""

    uses: tuple[str, ...]
    vitality: bool
    possibilities: bool


def shown(state: State, ch: Character) -> Shown:
    """The sections the session's system uses (its CHARACTER_SECTIONS); a section it
    does not use still shows when this character has something in it."""
    uses = tuple(character_sections(state.info.system))
    return Shown(
        uses,
        vitality="vitality" in uses or bool(ch.vitality_default or ch.vitality_current),
        possibilities="possibilities" in uses or ch.reality_rated or bool(ch.possibilities),
    )


def summary_text(state: State, ch: Character, width: int) -> Text:
    """The lines above the list, fitted to a pane ``width`` columns wide."""
    show = shown(state, ch)
    facts = Text()
    facts.append(f"{ch.side} · {ch.kind}")
    if ch.reality_rated:
        facts.append(" · reality-rated")
    marks = markers_text(ch, hidden=True)
    if marks.plain:
        facts.append(" · ")
        facts.append_text(marks)
    players = f"players: {ch.seen}"  # what the players see of it: name, wounds or all
    room = max(0, width - 2)
    placed = cell_len(facts.plain) + 3 + len(players) <= room
    if placed:
        facts.append(f" · {players}")
    if show.vitality:
        facts.append("\nVitality ")
        facts.append_text(gauge(ch.vitality_current, ch.vitality_default))
    if show.possibilities and (ch.reality_rated or ch.possibilities):  # an ord has none
        poss = f"Possibilities {ch.possibilities}"
        last_line = facts.plain.rsplit("\n", 1)[-1]
        fits = cell_len(last_line) + 2 + len(poss) <= max(0, width - 2)
        facts.append("  " if show.vitality and fits else "\n")
        facts.append(poss)
    if not placed:  # after Possibilities when it fits there, else on a line of its own
        last = facts.plain.rsplit("\n", 1)[-1]
        beside = last.startswith("Possibilities") and cell_len(last) + 2 + len(players) <= room
        facts.append(("  " if beside else "\n") + players)
    if ch.wounds:
        facts.append(f"\nLatest wound: {ch.wounds[-1].text}")
    return facts


def pane_rows(state: State, ch: Character, spec: SystemSpec | None, name_of: Callable[[str], str | None]) -> list[Line]:
    """The list's lines for ``ch``, in order (``name_of`` names a character a
    condition lasts until the turn of)."""
    show = shown(state, ch)
    uses = show.uses
    rows: list[Line] = []

    def add(row: Row, what: str | Text, value: str = "") -> None:
        rows.append((row, what, value))

    def head(title: str) -> None:
        add(Row("head"), Text(f"── {title}", style="bold"), "")

    if show.vitality:
        add(Row("field", "vitality"), "Vitality", f"{ch.vitality_current}/{ch.vitality_default}")
    if show.possibilities:
        add(Row("field", "possibilities"), "Possibilities", str(ch.possibilities))
    if spec is not None:
        for line in charfields.lines(spec, ch):
            add(Row(line.kind, line.key), line.what, line.value)
    for kind, title in SOURCE_KINDS:
        if kind not in uses and not ch.sources(kind):
            continue
        head(title)
        for i, src in enumerate(ch.sources(kind)):
            mark = "[x]" if src.active else "[ ]"
            dur = "" if src.rounds is None else f"{src.rounds} rd"
            add(
                Row(kind, i),
                Text(f"{mark} {src.name}", style="" if src.active else "dim"),
                f"{bonus(src.value)} {dur}".strip(),
            )
        add(Row("add", kind), Text(f"+ add {kind}", style="dim italic"), "")
    head("Conditions")
    for i, cond in enumerate(ch.conditions):
        if cond.until is None:
            add(Row("condition", i), cond.name, cond.lasts(short=True))
        else:  # "Dodging: until Kara's turn", under its name when it is too long
            add(Row("condition", i), f"{cond.name}: {cond.lasts(name_of, short=True)}")
    add(Row("add", "condition"), Text("+ add condition", style="dim italic"), "")
    if ch.counters:  # "Reactions  1/1 a round": s spends one, S gives one back
        head("Counters")
        for i, x in enumerate(ch.counters):
            add(Row("counter", i), x.label, f"{x.left}/{x.maximum} {x.refills}")
    # Enter opens the desk's "Add a counter…" (reactions, legendary actions); a section
    # of its own once the character has one
    add(Row("add", "counter"), Text("+ add counter", style="dim italic"), "")
    if "wounds" in uses or ch.wounds:
        head(f"Wounds ({len(ch.wounds)})")
    for i, w in enumerate(ch.wounds):
        extra = []
        if w.amount is not None:
            extra.append(str(w.amount))
        if w.status:
            extra.append(STATUS_MARKERS.get(w.status, w.status.upper()))
        if w.roll_seq is not None:
            extra.append(f"#{w.roll_seq}")
        add(Row("wound", i), w.text, " ".join(extra))
    sheet = ch.sheet
    sheet_rows: Sequence[SheetRow] = getattr(sheet, "rows", ())
    if sheet is not None and ("sheet" in uses or sheet_rows):
        head("Sheet")
        for i, r in enumerate(sheet_rows):
            add(Row("sheet", i), sheet_name(r), sheet_value(r))
        add(Row("add", "sheet"), Text("+ add descriptor", style="dim italic"), "")
    head("Details")
    add(Row("field", "name"), "Name", ch.name)
    add(Row("field", "side"), "Side", ch.side)
    add(Row("field", "kind"), "Kind", ch.kind)
    # Enter sets the next status by hand (ok → unconscious → dead → ok)
    add(
        Row("field", "status"),
        "Status, by the GM" if ch.status_set is not None else "Status",
        STATUS_WORDS[ch.status],
    )
    if show.possibilities:
        add(Row("field", "reality_rated"), "Reality-rated", "yes" if ch.reality_rated else "no")
    add(Row("field", "notes"), "Notes", ch.notes or "")
    return rows


def sheet_name(r: SheetRow) -> str:
    """A sheet row's descriptor, indented by its depth (``*`` for a sub-descriptor)."""
    indent = " " * min(8, int(r.depth or 0))
    star = "*" if r.sub else ""
    return f"{indent}{star}{r.label}"


def sheet_value(r: SheetRow) -> str:
    """A sheet row's value as the pane shows it, short enough for 80 columns: the
    Current Value, followed by ``/Default`` only when they differ (``+1/+3``), then
    the uses as current/default in parentheses (``(2/3)``, ``(∞)``)."""
    parts = []
    d, c = getattr(r, "default", None), getattr(r, "current", None)
    if d is not None or c is not None:
        cur = c if c is not None else d
        parts.append(signed(cur) if d is None or cur == d else f"{signed(cur)}/{signed(d)}")
    ud, uc = getattr(r, "uses_default", None), getattr(r, "uses_current", None)
    if ud is not None or uc is not None:
        cur_uses = uc if uc is not None else ud
        if str(ud).lower() == "inf" and str(cur_uses).lower() == "inf":
            parts.append("(∞)")
        else:
            fmt = {"inf": "∞"}
            parts.append(
                f"({fmt.get(str(cur_uses).lower(), cur_uses)}/{fmt.get(str(ud).lower(), ud)})"
                if ud is not None
                else f"({cur_uses})"
            )
    return " ".join(parts)
