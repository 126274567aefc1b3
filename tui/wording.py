"""The GM's words for what the desk says: a core error as one sentence with every field
named by the label the GM sees (never a CLI flag or an event type), and a key as the
hint lines and the palette write it.

:func:`ui_message` turns a core error into what the GM reads: the field's label
instead of a payload key or a CLI flag (``--difficulty`` → "Difficulty"), and never the
event type (``possibility.spend:``). :func:`key_name` writes a key ("Enter", "Ctrl+S").
Dialogs, the session runner, the keymap and the palette all say things this way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from textual.app import App
from textual.binding import Binding

from gmdesk.core.errors import GmdeskError, ParamError

#: how the hint line writes a key (anything else: Textual's own display)
KEY_NAMES: Mapping[str, str] = {
    "enter": "Enter",
    "escape": "Esc",
    "space": "Space",
    "tab": "Tab",
    "shift+tab": "Shift+Tab",
    "down": "↓",
    "up": "↑",
    "left": "←",
    "right": "→",
    "backspace": "Backspace",
    "delete": "Del",
}

#: words for CLI flags that are not fields of a dialog (an attack is a dialog of its own)
FLAG_WORDS: Mapping[str, str] = {"combat": "an attack"}


def key_name(app: App[Any], key: str) -> str:
    """``key`` as the GM reads it: "Enter", "Esc", "Ctrl+S", else Textual's own display."""
    if key in KEY_NAMES:
        return KEY_NAMES[key]
    if key.startswith("ctrl+") and len(key) == 6:
        return f"Ctrl+{key[-1].upper()}"
    try:
        return app.get_key_display(Binding(key, ""))
    except Exception:  # pragma: no cover - Textual's display never fails for a bound key
        return key


_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")
_FIELD_PREFIX = re.compile(r"^([a-z_][a-z0-9_]*(?:\[\d+\])?): (.*)$", re.S)


def field_key(name: str) -> str:
    """``--vs-bonus`` / ``vs-bonus`` / ``vs_bonus`` → ``vs_bonus``."""
    return name.strip().lstrip("-").replace("-", "_").lower()


def short_label(label: str) -> str:
    """A label as it reads inside a sentence: "Vs trait (opposed)" → "Vs trait"."""
    return re.sub(r"\s*\(.*\)$", "", label).strip() or label


def ui_message(error: BaseException | str, labels: Mapping[str, str] | None = None) -> str:
    """One line for the GM: ``error`` (a core error or its text) with every field named
    by its label in ``labels`` ({parameter or payload name: label}), CLI flags of other
    parameters in plain words, and without the event type of a refused event.

    The names a core error uses are the parameter names (``ParamError.option``,
    ``--difficulty``) or the event's payload keys (``EventError.reason`` starts with
    ``halves: …``); the dialog passes the labels it shows. A toast then makes it a
    sentence (:func:`sentence`)."""
    labels = {field_key(k): v for k, v in (labels or {}).items()}
    head: str | None = None
    if isinstance(error, ParamError):
        head, text = error.option, str(error)[len(error.option) + 2 :]
    elif isinstance(error, GmdeskError) and hasattr(error, "reason"):
        text = str(error.reason)  # EventError: the reason, not the event type
        field = getattr(error, "field", None)
        if field and field_key(field) in labels:  # a whole sentence: named only in a form
            head = field
    else:
        text = str(error)
    if head is None:
        m = _FIELD_PREFIX.match(text)
        if m and (field_key(m.group(1)) in labels or m.group(1) in ("roll", "record", "id", "actor", "target")):
            head, text = m.group(1), m.group(2)

    def word(m: re.Match[str]) -> str:
        key = field_key(m.group(1))
        if key in labels:
            return short_label(labels[key])
        return FLAG_WORDS.get(key, key.replace("_", " "))

    text = _FLAG.sub(word, text)
    if head is not None:
        key = field_key(head)
        if key in labels:
            head = labels[key]
        elif head.startswith("-"):
            head = FLAG_WORDS.get(key, key.replace("_", " "))
        else:
            head = {"roll": "", "record": "", "id": "", "actor": "Roller", "target": "Target"}.get(key, head)
        if head and not text.startswith(f"{head}: "):  # (a message naming its field already)
            return f"{head}: {text}"
    return text


#: an ordinary first word: lower-case letters only, then a space, a colon, a comma or the end
_FIRST_WORD = re.compile(r"^([a-z]+)(?=[ :,;]|$)")


def sentence(text: str, names: Iterable[str] = ()) -> str:
    """``text`` as a toast says it, a sentence: "already at the first turn of round 1"
    → "Already at …". Only an ordinary first word (lower-case letters only) is
    capitalised; one that starts in lower case by design is left as it is: one of
    ``names`` (the session's characters and groups: "bob has no wounds", "d'Artagnan"),
    an installed system's id, "gmdesk", a path, a flag. The CLI keeps the core's
    words after its "gmdesk: " (not a sentence)."""
    m = _FIRST_WORD.match(text)
    if m is None or m.group(1) == "gmdesk" or m.group(1) in _system_ids():
        return text
    if any(name and text.startswith(name) for name in names):
        return text
    return text[0].upper() + text[1:]


def _system_ids() -> tuple[str, ...]:
    from gmdesk.core.systems import system_ids

    return system_ids()
