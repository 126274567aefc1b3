"""The documented key sequences that must act the same typed ahead (in one write, as
SSH delivers them) as typed slowly: the one list the type-ahead tests share
(``test_typeahead_pty.py`` on a real pseudo-terminal, ``test_tui_typeahead.py``
through Pilot without pauses). Kept in step with the README's key table: every key
of the table is in a sequence, or in :data:`NOT_TYPED_AHEAD` with the reason.

A sequence is written as the GM types it: plain characters are typed as they are
(a space too), ``<name>`` is a key by its Textual name (``<tab>``, ``<enter>``,
``<shift+tab>``, ``<backspace>``, ``<down>``, ``<ctrl+p>``…). Escape reaches a
terminal app as the start of the next key's escape sequence when more follows in the
same read, so ``<escape>`` ends a sequence or is not used.

The sequences run one after the other on one session per system (see
:func:`harness_save`): Kara (PC, initiative 12), Bruno (NPC, 8) and Mira (PC, 5),
the encounter started at Kara's turn; the first is typed on the session picker.
Each leaves the desk with the initiative list focused, where the next one starts.
The last ones are the picker's dialogs: back to the sessions through the palette's
"Open another session…", they make a copy, a next night, a new session and one from
an example (``creates``), each compared with the slow run's as well; then dialogs
cancelled with Escape in the middle of a burst, a name refused and typed over, a
the list read again (F5) and a deletion refused then confirmed (``deletes``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SYSTEMS = ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6")

#: the row of "+ add condition" in a fresh character's pane, counted from the top
#: (ctrl+home): the system's own rows come first
ADD_CONDITION_ROW = {"4d2": 5, "fudge": 9, "1d6x4": 6, "torg-2d10": 11, "4d6": 10}


@dataclass(frozen=True)
class Sequence:
    """``keys`` typed in one go; ``readme``: the keys of the README's table it covers;
    ``systems``: where it applies (all when empty); ``saves``: an event type the slow
    run must have logged for it (so a sequence that silently does nothing is caught);
    ``creates``: the name of a session the slow run must have made with it (the
    picker's dialogs); ``deletes``: one it must have deleted."""

    name: str
    keys: str
    readme: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()
    saves: str = ""
    creates: str = ""
    deletes: str = ""

    def for_system(self, system: str) -> str:
        return self.keys.replace("{cond}", "<down>" * ADD_CONDITION_ROW[system])


SEQUENCES: list[Sequence] = [
    # the picker: Enter opens the session, the keys behind it go to the desk once it is up
    Sequence("picker: open, then attack", "<enter>a<enter>", ("a", "Enter"), saves="roll"),
    # the pane's editors: Enter on "+ add condition", the condition, Enter; desk keys after it
    Sequence(
        "pane: add a condition", "<tab><ctrl+home>{cond}<enter>Blessed 2<enter><shift+tab>", saves="condition.add"
    ),
    Sequence(
        "pane: add a condition, then next turn from the + add row",
        "<tab><ctrl+home>{cond}<down><enter>Stunned 1<enter>n<shift+tab>",  # under Blessed
        ("n",),
        saves="turn.next",
    ),
    Sequence("roll", "r<enter>", ("r",), saves="roll"),
    # the odds pane's curve key (ctrl+t) right after r, and back: the Enter behind it rolls
    Sequence("roll with the curve shown and hidden", "r<ctrl+t><ctrl+t><ctrl+t><enter>", saves="roll"),
    Sequence("attack at the default target", "a<enter>", ("a",), saves="roll"),
    Sequence("next turn, attack", "na<enter>", ("n", "a"), saves="roll"),
    Sequence("opposed roll", "o<enter>", ("o",), saves="roll"),
    Sequence(
        "contest: a field typed over, Backspaces, a digit",
        "o5<tab><tab>D<backspace><backspace>2<enter>",
        ("o",),
        ("4d6",),
        "roll",
    ),
    Sequence(
        "new character and its fields", "cZed<tab><tab><tab>12<tab>3<enter>", ("c",), ("torg-2d10",), "character.add"
    ),
    Sequence(
        "new character and its fields",
        "cZed<tab><tab><tab>12<enter>",
        ("c",),
        ("4d2", "fudge", "1d6x4", "4d6"),
        "character.add",
    ),
    Sequence("turns", "nnp", ("n", "p"), saves="turn.next"),
    Sequence("undo, redo", "uuUu<ctrl+y>", ("u", "U", "ctrl+y"), saves="undo"),
    Sequence("initiative for all", "i<enter>", ("i",), saves="initiative.set"),
    Sequence("leave and join the encounter", "-+<enter>", ("-", "+"), saves="encounter.add"),
    Sequence("move in the order", "][", ("[", "]"), saves="encounter.move"),
    Sequence("next turn, delay", "nd", ("d",), saves="turn.next"),  # 1d6x4 refuses this delay: the same both ways
    Sequence("new round", "Ra<enter>", ("R",), saves="round.new"),
    Sequence("filter the log, then the desk's keys", "f<down><enter>n", ("f",), saves="turn.next"),
    Sequence("the palette: Enter takes the top match", "<ctrl+p>next turn<enter>", saves="turn.next"),
    Sequence("a Possibility spent and cancelled", "PC", ("P", "C"), ("torg-2d10",), "possibility.spend"),
    # Kara has no descriptor sheet: Healing is refused in the dialog, which Escape closes
    Sequence("healing (refused in the dialog)", "h<enter><escape>", ("h",), ("1d6x4",)),
    Sequence("a clock added and ticked", "KAlarm<tab>4<enter>k<enter>", ("K", "k"), ("4d6",), "clock.add"),
    # it leaves the focus on the roll log (Escape must end a write)
    Sequence("a roll's breakdown from the log", "<shift+tab><enter><escape>", ("Enter",)),
    # the picker's dialogs, each session they make compared with the slow run's, event
    # by event. Back on the picker "Table" (just played) is highlighted; the copy is
    # highlighted after it is made, and each new session opens on the desk.
    Sequence(
        "picker: back to the sessions, duplicate under a name typed over",
        "<ctrl+p>another<enter>cTwin<enter>",  # the suggested name is selected: typed over
        creates="Twin",
    ),
    Sequence(
        "picker: next night, rested, a non-player character ticked with Space, Enter starts",
        "N<tab> <tab> <enter>",
        creates="Twin 2",
    ),
    Sequence(
        "picker: back to the sessions, a new session named, its system chosen",
        "<ctrl+p>another<enter>nTue<tab><up><enter>",
        creates="Tue",
    ),
    Sequence(
        "picker: back to the sessions, a new session from an example, renamed",
        "<ctrl+p>another<enter>e<down><tab><ctrl+u>Demo<enter>",
        creates="Demo",
    ),
    # Escape closes each dialog and the key after it, in the same read, is the
    # picker's: the next night's, the example's and the new session's dialogs opened
    # and cancelled, then a new session named and made
    Sequence(
        "picker: back to the sessions, three dialogs cancelled with Escape, then a new session",
        "<ctrl+p>another<enter>N<escape>e<escape>n<escape>nSunday<enter>",
        creates="Sunday",
    ),
    Sequence(
        "picker: back to the sessions, a duplicate's name refused (taken), typed over",
        "<ctrl+p>another<enter>cTable<enter><ctrl+u>Spare<enter>",
        creates="Spare",
    ),
    # the list read again (the copy stays highlighted), then its deletion asked and
    # refused with n, asked and refused with Enter (the question opens on Cancel),
    # asked again and confirmed with Tab to Delete and Enter
    Sequence(
        "picker: the list read again, delete refused twice, then confirmed",
        "<f5>xnx<enter>x<tab><enter>",
        deletes="Spare",
    ),
]

#: the README's keys that no sequence types ahead, and why
NOT_TYPED_AHEAD = {
    "y": "copies a roll to the terminal's clipboard: nothing is saved to compare",
    "?": "the help: nothing is saved",
    "q": "quits: each run ends with it",
}

#: a key name (as the sequences and the README write it) → the bytes a terminal sends
TERMINAL_BYTES = {
    "tab": b"\t",
    "shift+tab": b"\x1b[Z",
    "enter": b"\r",
    "escape": b"\x1b",
    "backspace": b"\x7f",
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "ctrl+home": b"\x1b[1;5H",
    "ctrl+end": b"\x1b[1;5F",
    "ctrl+p": b"\x10",
    "ctrl+y": b"\x19",
    "ctrl+u": b"\x15",
    "ctrl+t": b"\x14",
    "f5": b"\x1b[15~",
}

_TOKEN = re.compile(r"<([a-z0-9+_]+)>|(.)", re.S)


def tokens(keys: str) -> list[str]:
    """The keys of a sequence, one by one: a character, or a key's name."""
    return [name or char for name, char in _TOKEN.findall(keys)]


def terminal_bytes(keys: str) -> list[bytes]:
    """What a terminal sends for each key of the sequence."""
    out = []
    for t in tokens(keys):
        out.append(TERMINAL_BYTES[t] if len(t) > 1 else t.encode())
    return out


def textual_keys(keys: str) -> list[tuple[str, str | None]]:
    """(key, character) of each key as Textual's terminal reader gives them, for
    ``events.Key`` (Ctrl+letter with its control character, as the terminal sends it)."""
    import unicodedata

    from textual.keys import KEY_NAME_REPLACEMENTS

    chars = {"tab": "\t", "enter": "\r", "backspace": "\x7f", "escape": "\x1b"}
    out: list[tuple[str, str | None]] = []
    for t in tokens(keys):
        if len(t) > 1:
            control = re.fullmatch(r"ctrl\+([a-z])", t)
            out.append((t, chr(ord(control[1]) & 0x1F) if control else chars.get(t)))
        elif t.isalnum():
            out.append((t, t))
        elif t == " ":
            out.append(("space", " "))
        else:
            name = unicodedata.name(t).lower().replace("-", "_").replace(" ", "_")
            out.append((KEY_NAME_REPLACEMENTS.get(name, name), t))  # "-" is "minus", as Textual names it
    return out


def for_system(system: str) -> list[Sequence]:
    return [s for s in SEQUENCES if not s.systems or system in s.systems]


#: what the characters of a system carry so that its attacks roll with defaults
EXTRA: dict[str, dict[str, Any]] = {
    "1d6x4": {"vitality": 10},
    "torg-2d10": {
        "reality_rated": True,
        "possibilities": 3,
        "fields": {"stats": "Dexterity=10, Fire Combat=13, Dodge=11", "attack": "Fire Combat"},
    },
}


def harness_save(directory: Path, system: str) -> Path:
    """The session the sequences run on (see the module docstring)."""
    from helpers import make_save

    extra = EXTRA.get(system, {})
    path, _ids = make_save(
        directory,
        system,
        [{"name": "Kara", **extra}, {"name": "Bruno", "side": "NPC", **extra}, {"name": "Mira", **extra}],
        initiative={"Kara": 12, "Bruno": 8, "Mira": 5},
        start=True,
    )
    return path


def readme_keys(readme: Path) -> set[str]:
    """The keys of the README's key table (`r`, `n` / `p`, `U`, `ctrl+y` …)."""
    keys: set[str] = set()
    text = readme.read_text(encoding="utf-8")
    start = text.index("| key | action | key | action |")
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        for cell in (cells[0], cells[2]):
            keys.update(re.findall(r"`([^`]+)`", cell))
    return keys


def events_of(path: Path) -> list[dict]:
    """The session's events as saved, without when they were made."""
    from gmdesk.core.session import Session

    with Session.open(path, readonly=True) as s:
        return [{"seq": seq, **_untimed(doc)} for seq, doc in s._log.events()]


def sessions_of(directory: Path) -> dict[str, list[dict]]:
    """Every session in ``directory`` by name: its system, then its events as
    :func:`events_of` reads them."""
    from gmdesk.core.session import SessionStore

    return {str(s.name): [{"system": s.system}, *events_of(Path(s.path))] for s in SessionStore(directory).list()}


def _untimed(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: _untimed(v) for k, v in doc.items() if k not in ("at", "time", "ts", "timestamp", "when")}
    if isinstance(doc, list):
        return [_untimed(v) for v in doc]
    return doc
