"""The bindings gmdesk reads to name keys: a class's bindings as Textual merges them,
the GM's keymap in force, and key names as Textual spells them.

The hint lines, the help, the command palette and the keymap's checks name the keys
bound *now* (after the GM's keymap), including keys the key bar does not show and
keys of widgets that are not focused. Textual's public ``Screen.active_bindings``
gives only the winning binding of each key along the focus chain, so these are read
from the declarations instead:

* :func:`class_bindings` — the one place gmdesk reads Textual's bindings through a
  private attribute (see there: Textual 8.2 has no public accessor for them);
* :class:`KeepsKeymap` — the app keeps the keymap it was given through the public
  ``App.set_keymap`` / ``App.update_keymap`` (Textual keeps its own copy private);
* :func:`key_names` — a key string as Textual's bindings spell it ("?" →
  "question_mark"), through the public ``Binding.make_bindings``
  (:func:`character_key` for one typed character).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding, BindingsMap, InvalidBinding, Keymap

if TYPE_CHECKING:
    from textual.dom import DOMNode


def class_bindings(cls: type[DOMNode]) -> BindingsMap:
    """The bindings every node of ``cls`` starts with: the ``BINDINGS`` of ``cls`` and
    of its bases, merged as Textual merges them (a base's key bound again below it
    is replaced, ``inherit_bindings=False`` stops at that class), before any keymap.

    Textual 8.2 has no public way to read this. It computes it once per class, in
    ``DOMNode.__init_subclass__``, into the private class attribute
    ``_merged_bindings`` (each node copies it into its private ``_bindings``). Walking
    the bases' public ``BINDINGS`` is not enough: whether a class was declared with
    ``inherit_bindings=False`` (Textual's ``Static`` is) is kept only in the private
    ``_inherit_bindings``. What is missing is a public accessor such as
    ``DOMNode.bindings`` (a node's bindings, keymap applied) or a class method
    returning the merged ``BindingsMap``. ``tests/test_tui_textual_api.py`` fails if a
    Textual upgrade changes what this reads.
    """
    merged = cls._merged_bindings
    return BindingsMap() if merged is None else merged.copy()


class KeepsKeymap:
    """Mix into an ``App`` (before ``App``): the keymap in force, as given to the
    public ``App.set_keymap`` / ``App.update_keymap``, stays readable as
    :attr:`keymap_in_force` (Textual keeps its own copy in a private attribute)."""

    keymap_in_force: Keymap = {}

    def set_keymap(self, keymap: Keymap) -> None:
        self.keymap_in_force = {ident: key_names(keys) for ident, keys in keymap.items()}
        super().set_keymap(keymap)  # type: ignore[misc]

    def update_keymap(self, keymap: Keymap) -> None:
        self.keymap_in_force = {**self.keymap_in_force, **{ident: key_names(keys) for ident, keys in keymap.items()}}
        super().update_keymap(keymap)  # type: ignore[misc]


def keymap_of(app: object) -> Keymap:
    """The keymap in force in ``app`` ({} for an app that keeps none)."""
    return app.keymap_in_force if isinstance(app, KeepsKeymap) else {}


def node_bindings(node: DOMNode) -> BindingsMap:
    """``node``'s bindings with the keymap of its app applied (what its keys do now)."""
    bindings = class_bindings(type(node))
    keymap = keymap_of(node.app)
    if keymap:
        bindings.apply_keymap(keymap)
    return bindings


def character_key(character: str) -> str:
    """The key name Textual gives a typed ``character`` ("?" → "question_mark", "r"
    stays "r")."""
    return _UNSPELLABLE.get(character) or key_names(character)


#: the two characters a binding's key string cannot hold (it separates keys by commas
#: and strips blanks), named as Textual names them
_UNSPELLABLE = {",": "comma", " ": "space"}


def key_names(keys: str) -> str:
    """``keys`` (comma-separated) as Textual's bindings spell them: a single character
    by its name ("?" → "question_mark", "r" stays "r"), other names as written."""
    out: list[str] = []
    for key in keys.split(","):
        key = key.strip()
        try:
            out.extend(b.key for b in Binding.make_bindings([Binding(key, "")]))
        except InvalidBinding:  # an empty key: left as it is
            out.append(key)
    return ",".join(out)


__all__ = ["KeepsKeymap", "character_key", "class_bindings", "key_names", "keymap_of", "node_bindings"]
