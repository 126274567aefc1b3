"""The roll log: one line per roll, newest at the bottom, as a virtual list.

Only the visible window is rendered (``render_line``), lines are cached per entry,
and a new roll only extends the index of visible entries — the log never mounts a
widget per roll and never re-renders its whole history on an append, so it stays
fast with tens of thousands of rolls.

Enter on a line asks for the full breakdown (:class:`RollLog.Details`); ``y``
copies the line's text (:class:`RollLog.Copy`). With ``hide_secrets`` (the players'
view) the values a system declares secret (a hidden target number) never reach the screen.
On the GM's side (a state that tells which rolls the players see,
``State.public_roll``) a roll the players do not see says :data:`HIDDEN_ROLL` after
its number, until the GM reveals it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from rich.segment import Segment
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.content import Content
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from gmdesk.core.render import (
    headline,
    line_notes,
    log_descriptors,
    log_dice_plain,
    public_record,
    secret_note,
)
from gmdesk.core.text import reading

__all__ = ["HIDDEN_ROLL", "RollLog", "RollsView", "entry_line", "public_record", "roll_label"]

#: the GM's log's word for a roll the players do not see (its roller or target hidden)
HIDDEN_ROLL = "HID"

if TYPE_CHECKING:
    from gmdesk.core.dice import RollRecord
    from gmdesk.core.session import Character, RollEntry


class RollsView(Protocol):
    """What the roll log reads of a state: the characters (for their names) and the
    rolls (a session's ``State``, or the player view's snapshot of one)."""

    @property
    def characters(self) -> Mapping[str, Character]: ...

    @property
    def rolls(self) -> Sequence[RollEntry]: ...


def roll_label(rolls: Sequence[RollEntry], i: int) -> str:
    """How the log numbers ``rolls[i]``: ``#12`` (its event's seq), or ``#12.2`` for the
    second of the several rolls one event made (one ``i`` rolls everyone's initiative)."""
    seq = rolls[i].seq
    first = i
    while first > 0 and rolls[first - 1].seq == seq:
        first -= 1
    if first == i and (i + 1 >= len(rolls) or rolls[i + 1].seq != seq):
        return f"#{seq}"
    return f"#{seq}.{i - first + 1}"


def who_rolled(entry: RollEntry, names: Mapping[str, str]) -> str:
    """``Kara → Bruno``: the roller and the target by ``names``, else as they were named
    when rolled (a character removed since keeps its name in the log, never its id);
    "GM" for a roll nobody made."""
    who = (names.get(entry.actor) or entry.actor_name or "GM") if entry.actor is not None else "GM"
    if entry.target is not None:
        who += f" → {names.get(entry.target) or entry.target_name or 'someone'}"
    return who


def entry_line(
    entry: RollEntry,
    names: Mapping[str, str],
    hide_secrets: bool = False,
    label: str | None = None,
    hidden: bool = False,
) -> str:
    """One plain line, what matters first so that 80 columns show it: who → whom, the
    value, the outcome with the other side's level or total, the descriptor; the dice
    come last, each group named by its role (the breakdown has them all):
    ``#12 R2 Kara → Bruno: <system> +1 Barely Successful → Backfoot [positive 6 1 | negative −4 −2]``.
    A descriptor that lands on the target needs no "(target)" after ``Kara → Bruno``.
    ``hidden`` (a roll the players do not see) puts :data:`HIDDEN_ROLL` after the number."""
    record = public_record(entry.record) if hide_secrets else entry.record
    who = who_rolled(entry, names)
    rnd = f"R{entry.round} " if getattr(entry, "round", 0) else ""
    mark = f"{HIDDEN_ROLL} " if hidden else ""
    line = f"{label or f'#{entry.seq}'} {mark}{rnd}{who}: {record.system} {headline(record)} {record.outcome}"
    notes = line_notes(record)
    if notes:
        line += f" {notes}"
    if not hide_secrets:
        line += secret_note(record)
    desc = log_descriptors(record, entry.target is not None)
    if desc:
        line += f" → {desc}"
    return reading(f"{line} [{log_dice_plain(record)}]")


class RollLog(ScrollView, can_focus=True):
    """Virtual list of roll entries (``state.rolls``), filterable by character or system."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="log.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="log.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="log.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="log.page_down"),
        Binding("home", "first", "First", show=False, id="log.first"),
        Binding("end", "last", "Last", show=False, id="log.last"),
        Binding("enter", "details", "Details", id="log.details"),
        Binding("y", "copy", "Copy roll", id="log.copy"),
    ]

    COMPONENT_CLASSES = {"rolllog--cursor"}

    # A line is cut to the width in view (with "…"), never scrolled sideways: no
    # horizontal scrollbar (it would take a line of the log, and every layout of the
    # screen would repaint it).
    DEFAULT_CSS = """
    RollLog {
        overflow-x: hidden;
    }
    """

    cursor: reactive[int] = reactive(-1, init=False)

    class Details(Message):
        """The GM asked for a roll's full breakdown."""

        def __init__(self, entry: RollEntry) -> None:
            super().__init__()
            self.entry = entry

    class Copy(Message):
        """The GM asked to copy a roll's line."""

        def __init__(self, entry: RollEntry, text: str) -> None:
            super().__init__()
            self.entry = entry
            self.text = text

    def __init__(self, *, hide_secrets: bool = False, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.hide_secrets = hide_secrets
        self._rolls: Sequence[RollEntry] = ()
        self._view: list[int] = []  # indices into self._rolls that pass the filter
        self._known = 0
        self._last: RollEntry | None = None
        self._names: dict[str, str] = {}
        self._line_cache: LRUCache[tuple[int, int, bool, bool], tuple[RollEntry, RollRecord, Strip, str]] = LRUCache(
            512
        )
        self._public: Callable[[RollEntry], bool] | None = None
        self.filter_actor: str | None = None
        self.filter_system: str | None = None
        self._shown_title = ""
        self._drawn: dict[int, tuple[int, str | None]] = {}  # row → (index, its text) as last drawn

    # -- data in ---------------------------------------------------------------------

    def set_state(self, state: RollsView) -> None:
        """Take the session's rolls; only entries added since the last call are indexed
        unless the history changed underneath (undo, a Possibility spend…). The log
        repaints only if what it shows changed: a turn or an undo that touches no roll
        costs no bytes on the terminal."""
        self._public = getattr(state, "public_roll", None)
        names = {cid: c.name for cid, c in state.characters.items()}
        changed = names != self._names
        if changed:
            self._names = names
            self._line_cache.clear()
        rolls = state.rolls
        n = len(rolls)
        following = self.cursor < 0 or self.cursor >= len(self._view) - 1
        if n >= self._known and (self._known == 0 or rolls[self._known - 1] is self._last):
            start = self._known
            self._rolls = rolls
            if self.filter_actor is None and self.filter_system is None:
                # every entry shows: nothing of a long log's packed history is unpacked
                self._view.extend(range(start, n))
            else:
                self._view.extend(i for i in range(start, n) if self._passes(rolls[i]))
            changed = changed or n > start
        else:
            self._rolls = rolls
            self._rebuild()
            changed = True
        self._known = n
        self._last = rolls[n - 1] if n else None
        self._update_size(following, repaint=changed or self._window_changed())

    def _window_changed(self) -> bool:
        """Whether a line in the window would read otherwise than it was drawn. The
        session changes its entries in place (a Possibility spend, a reveal), so what
        each row was drawn with is kept as text (:meth:`render_line`)."""
        top = self.scroll_offset.y
        for y in range(self.size.height):
            index = top + y
            now = self.line_text(index) if index < len(self._view) else None
            if self._drawn.get(y) != (index, now):
                return True
        return False

    def set_filter(self, actor: str | None = None, system: str | None = None) -> None:
        self.filter_actor = actor
        self.filter_system = system
        self._rebuild()
        self._update_size(True)

    def _passes(self, entry: RollEntry) -> bool:
        if self.filter_actor is not None and self.filter_actor not in (entry.actor, entry.target):
            return False
        if self.filter_system is not None and entry.record.system != self.filter_system:
            return False
        return True

    def _rebuild(self) -> None:
        rolls = self._rolls
        if self.filter_actor is None and self.filter_system is None:
            self._view = list(range(len(rolls)))
        else:
            self._view = [i for i in range(len(rolls)) if self._passes(rolls[i])]
        self._line_cache.clear()

    def _update_size(self, follow: bool, repaint: bool = True) -> None:
        self.virtual_size = Size(self._line_width, len(self._view))
        if follow or self.cursor >= len(self._view):
            self.cursor = len(self._view) - 1
            self._follow()
            self.call_after_refresh(self._follow)
        self._update_title()
        if repaint:
            self.refresh()

    def _update_title(self) -> None:
        parts = []
        if self.filter_actor is not None:
            parts.append(self._names.get(self.filter_actor, str(self.filter_actor)))
        if self.filter_system is not None:
            parts.append(self.filter_system)
        flt = f" [{', '.join(parts)}]" if parts else ""
        title = f"Rolls{flt} {len(self._view)}" + (f"/{len(self._rolls)}" if parts else "")
        if title != self._shown_title:  # setting it repaints the whole log
            self._shown_title = title
            self.border_title = Content(title)  # a name is text, never markup ("[Kara]")

    # -- queries -----------------------------------------------------------------------

    @property
    def count(self) -> int:
        """How many entries pass the filter."""
        return len(self._view)

    def entry_at(self, index: int) -> RollEntry:
        return self._rolls[self._view[index]]

    @property
    def current_entry(self) -> RollEntry | None:
        if 0 <= self.cursor < len(self._view):
            return self.entry_at(self.cursor)
        return None

    def line_text(self, index: int) -> str:
        entry = self.entry_at(index)
        return entry_line(entry, self._names, self.hide_secrets, self.label(index), self.hidden_from_players(entry))

    def hidden_from_players(self, entry: RollEntry) -> bool:
        """Whether the players do not see ``entry`` (as the state says; the players'
        own log, whose state does not say, marks nothing)."""
        return self._public is not None and not self._public(entry)

    def label(self, index: int) -> str:
        """The number the line at ``index`` shows (``#12``, ``#12.2``)."""
        return roll_label(self._rolls, self._view[index])

    def visible_lines(self) -> list[str]:
        """The plain text of the lines in the window (for tests and copying)."""
        top = self.scroll_offset.y
        return [self.line_text(i) for i in range(top, min(top + self.size.height, len(self._view)))]

    # -- rendering ---------------------------------------------------------------------

    @property
    def _line_width(self) -> int:
        """The width a line is drawn in: what is in view, beside the vertical scrollbar."""
        return self.scrollable_content_region.width

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self._line_width
        base = self.rich_style
        if index >= len(self._view) or width <= 0:
            self._drawn[y] = (index, None)
            return Strip.blank(width, base)
        entry = self.entry_at(index)
        selected = index == self.cursor
        hidden = self.hidden_from_players(entry)  # a reveal changes it, not the entry
        key = (index, width, selected, hidden)
        cached = self._line_cache.get(key)
        if cached is not None and cached[0] is entry and cached[1] is entry.record:
            self._drawn[y] = (index, cached[3])
            return cached[2]
        line = entry_line(entry, self._names, self.hide_secrets, self.label(index), hidden)
        self._drawn[y] = (index, line)
        text = Text(
            ("▶ " if selected else "  ") + line,
            no_wrap=True,
            overflow="ellipsis",
            end="",
        )
        if selected:
            text.stylize(self.get_component_rich_style("rolllog--cursor", partial=True))
        text.truncate(width, overflow="ellipsis", pad=True)
        segments = [
            Segment(s.text, base + s.style if s.style else base, s.control) for s in text.render(self.app.console)
        ]
        strip = Strip(segments, width)
        self._line_cache[key] = (entry, entry.record, strip, line)
        return strip

    def on_mount(self) -> None:
        # The log follows the newest roll: anchored, Textual keeps it scrolled to its
        # end as it lays it out, before a line is drawn, so that its first frame (and
        # the first after a resize) draws the newest lines, never the oldest (which,
        # in a long session, are packed: drawing them would unpack them and read their
        # records from the save).
        self.anchor()

    def watch_cursor(self, old: int, new: int) -> None:
        if new >= len(self._view) - 1:
            self.anchor()  # on the newest roll: the log follows the rolls to come
        else:
            self.release_anchor()  # the GM reads back: the log stays where the cursor is
        self.refresh()

    def on_resize(self) -> None:
        self.virtual_size = Size(self._line_width, len(self._view))
        self._line_cache.clear()
        if self.cursor >= len(self._view) - 1:
            self.call_after_refresh(self._follow)
        else:
            self.call_after_refresh(self._show_cursor)

    def _follow(self) -> None:
        self.scroll_end(animate=False, immediate=True)

    # -- actions -------------------------------------------------------------------------

    def _show_cursor(self) -> None:
        top = self.scroll_offset.y
        h = max(1, self.size.height)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + h:
            self.scroll_to(y=self.cursor - h + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        if not self._view:
            return
        self.cursor = max(0, min(len(self._view) - 1, self.cursor + delta))
        self._show_cursor()

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.size.height - 1))

    def action_first(self) -> None:
        self.action_cursor(-len(self._view))

    def action_last(self) -> None:
        self.action_cursor(len(self._view))

    def action_details(self) -> None:
        entry = self.current_entry
        if entry is not None:
            self.post_message(self.Details(entry))

    def action_copy(self) -> None:
        entry = self.current_entry
        if entry is not None:
            self.post_message(self.Copy(entry, self.line_text(self.cursor)))

    def on_click(self, event: Click) -> None:
        index = self.scroll_offset.y + event.y
        if 0 <= index < len(self._view):
            self.cursor = index
            if getattr(event, "chain", 1) >= 2:
                self.action_details()
