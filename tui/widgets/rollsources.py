"""The roll dialog's Sources: the roller's (and the target's) sources a roll reads, each
one a box that can be switched off for this roll (:class:`RollSources`).

One field: Tab leaves it, ↑/↓ move in it, Space switches one off. It only shows the
sources it is given and says which are on; what they add to the roll is the dialog's
to work out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Label, SelectionList

from gmdesk.core.session.params import RollSource
from gmdesk.tui.widgets.common import bonus
from gmdesk.tui.widgets.controls import ReadableSelectionList


@dataclass(frozen=True)
class SourceBox:
    """A box of the Sources list: one of the actor's (or target's) sources."""

    widget_id: str  # "src-own-0": whose source, and which of theirs
    source: RollSource


def _boxes(sources: Iterable[RollSource]) -> tuple[list[SourceBox], list[Widget]]:
    boxes: list[SourceBox] = []
    options: list[tuple[Content, int, bool]] = []
    counts: dict[str, int] = {}
    for src in sources:
        i = counts[src.owner] = counts.get(src.owner, -1) + 1
        boxes.append(SourceBox(f"src-{src.owner}-{i}", src))
        who = "" if src.owner == "own" else f"{src.who}: "
        options.append((Content(f"{who}{src.name} {bonus(src.value)} ({src.kind})"), len(options), src.active))
    if not options:
        return [], []
    return boxes, [
        Label("Sources (Space: off for this roll)", classes="form-note"),
        ReadableSelectionList(*options, id="rd-source-list", compact=True),
    ]


class RollSources(Vertical):
    """The Sources list, hidden when there are none."""

    def __init__(self, sources: Iterable[RollSource] = (), **kwargs: Any) -> None:
        self.boxes, widgets = _boxes(sources)
        super().__init__(*widgets, **kwargs)
        self.display = bool(widgets)

    async def show_sources(self, sources: Iterable[RollSource]) -> None:
        """Show these sources instead (each on as it is active)."""
        await self.remove_children()
        self.boxes, widgets = _boxes(sources)
        if widgets:
            await self.mount_all(widgets)
        self.display = bool(widgets)

    def _at(self, widget_id: str) -> int:
        return next(i for i, sb in enumerate(self.boxes) if sb.widget_id == widget_id)

    def is_on(self, widget_id: str) -> bool:
        """Whether the source ``widget_id`` ("src-own-0") counts in this roll."""
        return self._at(widget_id) in self.query_one(SelectionList).selected

    def switch(self, widget_id: str, on: bool) -> None:
        """Switch the source ``widget_id`` on or off for this roll (as Space in the list)."""
        box = self.query_one(SelectionList)
        if on:
            box.select(self._at(widget_id))
        else:
            box.deselect(self._at(widget_id))

    def switches(self) -> tuple[bool, ...]:
        """Each source on or off, in order."""
        return tuple(self.is_on(sb.widget_id) for sb in self.boxes)

    def checked(self) -> list[RollSource]:
        """The sources that count in this roll."""
        return [sb.source for sb in self.boxes if self.is_on(sb.widget_id)]
