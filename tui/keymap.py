"""The GM's own keys: a TOML file of binding id = keys, applied with ``App.set_keymap``.

    # ~/.config/gmdesk/keymap.toml  (or the file named by $GMDESK_KEYMAP)
    "main.next_turn" = "space,n"
    "main.roll" = "R"

Every gmdesk binding has an id (:func:`binding_ids` of the classes the app names,
:func:`tui.app.binding_classes`: this module knows no screen). What is wrong in the
file is reported once, at start, in one notice, and the default keys stay for what it
concerns: a file that cannot be read (or a ``$GMDESK_KEYMAP`` that names a missing
file) keeps every default; an unknown id, an unknown key name ("ctlr+r") or a key bound
twice on one screen (two moves on "r", or a move on the app's "q") drops those entries
only — the rest of the file applies. The command palette and the help show the keys
as bound after the keymap (:func:`current_keys`).
"""

from __future__ import annotations

import os
import string
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gmdesk.core.errors import GmdeskError

if TYPE_CHECKING:
    from textual.binding import Binding
    from textual.dom import DOMNode


def keymap_path() -> Path:
    env = os.environ.get("GMDESK_KEYMAP")
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("gmdesk")) / "keymap.toml"


def binding_ids(classes: Iterable[type]) -> set[str]:
    """Every binding id of ``classes`` (the app's :func:`tui.app.binding_classes`: the
    desk's screens and widgets, the moves of every installed system included)."""
    ids = set()
    for cls in classes:
        for b in vars(cls)["BINDINGS"]:
            if getattr(b, "id", None):
                ids.add(b.id)
    return ids


MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}


def _key_names() -> set[str]:
    from textual.keys import Keys

    from gmdesk.tui.bindings import character_key

    names = {k.value for k in Keys if not k.value.startswith("<")}
    names |= {character_key(c) for c in string.printable if c.isprintable()}
    names |= set(string.printable.strip())
    return names


def key_problem(key: str) -> str | None:
    """Why ``key`` is not a key name Textual can bind, or None."""
    if not key:
        return "an empty key name"
    if len(key) == 1 and key.isprintable():
        return None
    *mods, base = key.split("+")
    bad = [m for m in mods if m not in MODIFIERS]
    if bad:
        return f"unknown modifier {bad[0]!r} in {key!r} (modifiers: ctrl, shift, alt)"
    names = _key_names()
    if base in names or f"ctrl+{base}" in names:
        return None
    return f"unknown key {key!r} (key names look like r, R, space, enter, f5, ctrl+r, question_mark)"


def _groups(classes: Iterable[type]) -> list[tuple[str, list[Binding]]]:
    """The bindings that are active together: each class's own (inherited ones
    included), plus the app's for a screen that is not modal (the app's keys reach it).
    The first class is the app whose keymap it is."""
    from textual.app import App
    from textual.dom import DOMNode
    from textual.screen import ModalScreen, Screen

    from gmdesk.tui.bindings import class_bindings

    classes = list(classes)
    keymap_app = classes[0] if classes and issubclass(classes[0], App) else None
    # the keymap is the desk's: its app's keys reach the desk's full screens
    app_bindings = [b for _key, b in class_bindings(keymap_app)] if keymap_app else []
    out = []
    for cls in classes:
        if not issubclass(cls, DOMNode) or (issubclass(cls, App) and cls is not keymap_app):
            continue  # only nodes bind keys; of the apps, the desk's
        bindings = [b for _key, b in class_bindings(cls)]
        if issubclass(cls, Screen) and not issubclass(cls, ModalScreen):
            bindings = bindings + app_bindings
        out.append((cls.__name__, bindings))
    return out


def clashes(keymap: Mapping[str, str], classes: Iterable[type]) -> list[tuple[str, str, list[str]]]:
    """Keys the keymap binds twice where they are active together: (where, key, ids).
    A key the defaults already share (a dialog's Escape and the app's) is no clash."""
    from gmdesk.tui.bindings import key_names

    keymap = {k: key_names(v) for k, v in keymap.items()}
    found = []
    for where, bindings in _groups(classes):
        default: dict[str, set[str]] = {}
        now: dict[str, set[str]] = {}
        for b in bindings:
            ident = b.id or f"{where}:{b.action}"
            default.setdefault(b.key, set()).add(ident)
            keys = keymap[b.id].split(",") if b.id in keymap else [b.key]
            for key in keys:
                now.setdefault(key.strip(), set()).add(ident)
        for key, ids in now.items():
            if len(ids) > 1 and not ids <= default.get(key, set()) and any(i in keymap for i in ids):
                found.append((where, key, sorted(ids)))
    return found


def check_keymap(
    keymap: Mapping[str, str], classes: Iterable[type], known: Iterable[str] | None = None
) -> tuple[dict[str, str], list[str]]:
    """The entries of ``keymap`` that can be applied to the bindings of ``classes`` (the
    app first: :func:`tui.app.binding_classes`), and one sentence per problem (unknown
    id, unknown key name, a key bound twice); the entries with a problem are left out,
    so their default keys stay."""
    if not keymap:
        return {}, []  # nothing to check: no screen (or plug-in system) is loaded for it
    classes = list(classes)
    known = set(binding_ids(classes) if known is None else known)
    good: dict[str, str] = {}
    problems: list[str] = []
    for ident, keys in keymap.items():
        if ident not in known:
            problems.append(f"unknown binding id {ident!r} (ids look like main.next_turn; see the README)")
            continue
        bad = next((p for p in (key_problem(k.strip()) for k in keys.split(",")) if p), None)
        if bad:
            problems.append(f"{ident}: {bad}")
            continue
        good[ident] = keys
    for _ in range(len(good) + 1):
        found = clashes(good, classes)
        if not found:
            break
        for _where, key, ids in found:
            mine = [i for i in ids if i in good]
            if not mine:
                continue
            problems.append(f"{key!r} is bound twice ({' and '.join(ids)}); kept the default keys of {', '.join(mine)}")
            for i in mine:
                good.pop(i, None)
    return good, problems


def load_keymap(path: Path) -> dict[str, str]:
    """The keymap in ``path`` as written ({} when there is no file); GmdeskError naming
    the file when it cannot be read as a keymap. :func:`check_keymap` says which
    entries can be applied."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise GmdeskError(f"{path}: cannot read the keymap ({e.strerror or e})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise GmdeskError(f"{path}: not a TOML keymap ({e})") from None
    keymap: dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(value, str) or not value.strip():
            raise GmdeskError(f'{path}: "{key}" must be a string of keys, e.g. "space,n"')
        keymap[key] = value.strip()
    return keymap


def _norm(key: str) -> str:
    from gmdesk.tui.bindings import character_key

    key = key.strip()
    if len(key) == 1:
        return key if key.isalnum() else character_key(key)
    return key.lower()


def current_keys(
    nodes: Iterable[DOMNode],
    action: str | None = None,
    default_keys: Iterable[str] = (),
    binding_id: str | None = None,
) -> list[str] | None:
    """The keys bound now (the GM's keymap applied) to the bindings of ``nodes`` whose
    id is ``binding_id`` (when given), else whose action is ``action`` or whose
    default keys include ``default_keys``; None when no binding matches."""
    from gmdesk.tui.bindings import class_bindings, keymap_of

    wanted = {_norm(k) for k in default_keys}
    found: list[str] = []
    matched = False
    for node in nodes:
        keymap = keymap_of(node.app)
        for key, bindings in class_bindings(type(node)).key_to_bindings.items():
            for b in bindings:
                if binding_id is not None:
                    if b.id != binding_id:
                        continue
                elif not ((action and b.action == action) or (wanted and _norm(key) in wanted)):
                    continue
                matched = True
                keys = keymap[b.id].split(",") if b.id and b.id in keymap else [key]
                for k in keys:
                    if k.strip() and k.strip() not in found:
                        found.append(k.strip())
    return found if matched else None


def with_current_keys(nodes: Sequence[DOMNode], help_text: str, callback: object) -> str:
    """A palette entry's help with the keys bound now: its trailing "(r)" note is
    read as the default keys of a binding (or the callback's action names it) and
    rewritten with the keys the GM's keymap gives that binding."""
    import re

    from gmdesk.tui.wording import key_name

    name = getattr(callback, "__name__", "")
    action = name[len("action_") :] if name.startswith("action_") else None
    binding_id = getattr(callback, "binding_id", None)  # a system's move names its binding
    m = re.search(r"\s*\(([^()]*)\)\s*$", help_text)
    tokens = [t for t in re.split(r"\s*[,/]\s*", m.group(1).strip())] if m else []
    if tokens and any(not t or " " in t for t in tokens):
        tokens = []  # a note in words, not keys
    if binding_id:
        keys = current_keys(nodes, binding_id=binding_id)
    else:
        keys = current_keys(nodes, action, tokens) if (action or tokens) else None
    if not keys:
        return help_text
    app = nodes[0].app
    shown = " / ".join(key_name(app, k) for k in keys)
    base = help_text[: m.start()] if m and tokens else help_text
    return f"{base} ({shown})".strip() if base else f"({shown})"
