"""The GM's own keys: a TOML file of binding id = keys, applied with ``App.set_keymap``.

    # ~/.config/gmdesk/keymap.toml  (or the file named by $GMDESK_KEYMAP)
    "main.next_turn" = "space,n"
    "main.roll" = "R"

Every gmdesk binding has an id (shown by :func:`binding_ids`). A file that cannot be
read, or that names an unknown id, is reported in one line and the default keys stay.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from pathlib import Path

from core.errors import GmdeskError


def keymap_path() -> Path:
    env = os.environ.get("GMDESK_KEYMAP")
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("gmdesk")) / "keymap.toml"


def binding_ids() -> set[str]:
    """Every binding id of the desk's screens and widgets."""
    from tui.app import GmdeskApp
    from tui.screens import confirm, help, main, picker, player, roll
    from tui.widgets import character, controls, rolllog

    classes: list[type] = [GmdeskApp]
    for module in (confirm, help, main, picker, player, roll, character, controls, rolllog):
        classes.extend(v for v in vars(module).values() if isinstance(v, type) and "BINDINGS" in vars(v))
    ids = set()
    for cls in classes:
        for b in vars(cls)["BINDINGS"]:
            if getattr(b, "id", None):
                ids.add(b.id)
    return ids


def load_keymap(path: Path, known: Iterable[str] | None = None) -> dict[str, str]:
    """The keymap in ``path`` ({} when there is no file); GmdeskError naming the file
    and the problem otherwise."""
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
    if known is not None:
        unknown = sorted(set(keymap) - set(known))
        if unknown:
            raise GmdeskError(f"{path}: unknown binding id {unknown[0]!r} (ids look like main.next_turn; "
                              "see the README)")
    return keymap
