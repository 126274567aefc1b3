"""The key bar: Textual's ``Footer``, showing only the keys that read whole in its width.

Textual's Footer lays every shown binding out in one row and clips what does not
fit: at 80 columns, with the character pane's keys in front of the desk's, the bar
read "… i Init  c Cha▏^p palette" and the GM could not tell what the last key did.
The key bar decides before the Footer draws which keys it shows:

* ``? Help`` first (the help names every key; the palette runs every command);
* then the keys in the Footer's own order — the focused widget's first (what the
  row under the cursor takes), then the screen's, then the app's;
* ``q Quit`` last (Ctrl+Q quits too, and the palette);

as many as fit beside the palette's key, stopping at the first that does not (the
bar is a prefix of that order: never a less useful key in place of a more useful
one). A key left out still works; a wider terminal shows it again.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer


class KeyBar(Footer):
    """A Footer that leaves out the keys it has no room for (see the module docstring)."""

    #: binding ids shown before every other key, and after every other key
    FIRST: tuple[str, ...] = ("app.help",)
    LAST: tuple[str, ...] = ("app.quit",)

    #: the width the bar was composed for (it composes again when that changes)
    _fitted_width = 0

    def key_width(self, binding: Binding) -> int:
        """The columns a key takes in the bar: its key, its description and the
        Footer's padding around them (compact: a space between, one after)."""
        key = cell_len(self.app.get_key_display(binding))
        if not binding.description:
            return key
        return key + cell_len(binding.description) + (2 if self.compact else 3)

    def fitting(self, bindings: Iterable[Binding], width: int) -> set[str]:
        """The actions of ``bindings`` (in the Footer's order, one binding an action)
        shown in ``width`` columns, most useful first."""
        listed = list(bindings)

        def rank(item: tuple[int, Binding]) -> tuple[int, int]:
            n, b = item
            return (0 if b.id in self.FIRST else 2 if b.id in self.LAST else 1, n)

        shown: set[str] = set()
        room = width
        for _, binding in sorted(enumerate(listed), key=rank):
            cost = self.key_width(binding)
            if cost > room:
                break
            room -= cost
            shown.add(binding.action)
        return shown

    def compose(self) -> ComposeResult:
        width = self.size.width or self.app.size.width
        self._fitted_width = width
        active = self.screen.active_bindings
        by_action: dict[str, Binding] = {}
        for item in active.values():
            if item.binding.show:
                by_action.setdefault(item.binding.action, item.binding)
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        if palette is not None and self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            width -= self.key_width(palette.binding)
        shown = self.fitting(by_action.values(), width)
        for widget in super().compose():  # the Footer's keys (each names its action)
            action = getattr(widget, "action", None)
            if action is None or action in shown or widget.has_class("-command-palette"):
                yield widget

    def on_resize(self, event: events.Resize) -> None:
        if self.children and event.size.width != self._fitted_width and self.is_attached:
            self.bindings_changed(self.screen)


__all__ = ["KeyBar"]
