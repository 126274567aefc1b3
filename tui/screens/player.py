"""The player view (``gmdesk view SAVE``).

Player view
    :class:`PlayerApp` opens a save read-only (no lock, never a write) and shows the
    players what is public: the initiative order, each character's public state and
    the roll log. It follows the GM's changes live: one thread worker
    ``Session.refresh()``es the save every ``poll_interval`` seconds (0.4 s by
    default, so a new roll shows within a second) and builds the whole picture off
    the UI thread; the UI only swaps in the finished text, and hears nothing while
    nothing changes.

    What players see (the systems declare what is the GM's secret, such as a secret
    target number; the rest is what a GM at the table expects a shared screen to show;
    the picture is built by :mod:`tui.screens.playerpicture`):

    * initiative: order, round, ``▶`` on whoever acts, ``UNC`` / ``DEAD`` markers,
      ``PIN`` on an entry pinned at its number (a lair's turn); an initiative group
      is one row, "Gospog ×3" (its members the players see), with how many are up
      when some are down; its members are listed with the characters, each with
      its own status, conditions and wounds, as for any character;
    * each character as much as its visibility level shows (the GM's choice,
      ``gmdesk char SAVE visibility NAME name|wounds|all`` or ``v`` at the desk):
      all of a player character by default — Vitality (current/default),
      Possibilities, active advantage and shift sources, counters ("Reactions 0/1
      a round"), conditions with rounds left, wounds; the name and wounds of a
      non-player character by default — status (``UNC``, ``DEAD``), conditions and
      wounds, never its numbers; or its name only. Never notes or a sheet;
    * the roll log: rolls only (not the GM's notes or other events), newest last,
      who rolled at whom, dice, value, outcome, descriptors (not one that landed
      on a character the players see by name only); every record goes through
      ``public_record`` (its system's secret parameters taken out) and is rendered
      with ``hide_secrets=True``, so a secret never reaches the screen.

    A character the GM hides from the players (``Character.hidden``) is in none of
    this, whatever its level — not the order, the characters, the title's turn, nor
    the roll log — and neither are its rolls (``State.public_roll``: rolls it made or was the target
    of, its initiative rolls) until the GM reveals it; a roll made while it was
    hidden stays out until the GM reveals that roll too.

    If the save cannot be read for a moment (the GM's machine is mid-write, the file
    went away), the view keeps the last picture, says so in its status line and
    keeps trying.

The terminal robustness both apps share lives in :mod:`tui.terminal`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from gmdesk.tui.runner import freeze_heap, thaw_heap
from gmdesk.tui.screens.playerpicture import PlayerPicture, build_picture
from gmdesk.tui.terminal import TerminalGuard
from gmdesk.tui.widgets.rolllog import RollLog

if TYPE_CHECKING:
    from gmdesk.core.session import Character, RollEntry, Session

# ---------------------------------------------------------------------------
# The player view
# ---------------------------------------------------------------------------

POLL_INTERVAL = 0.4


def _now_clock() -> str:
    import time

    return time.strftime("%H:%M:%S")


#: Below this many columns the player view takes its narrow (phone) layout.
NARROW_BELOW = 60
#: Below this many rows a wide player view takes its short (landscape phone) layout.
SHORT_BELOW = 24
#: How many rolls the narrow layout lists (newest first).
RECENT_ROLLS = 8


class _RollText:
    """One roll in the narrow layout's list: wrapped at its spaces like any text, but
    its dice list (``[6 4 (3) 4 (1) 6]``) is never cut in two — it ends the last line
    if it fits there, else it takes a line of its own (folded only if even that is
    too narrow)."""

    def __init__(self, text: str, dice: str) -> None:
        self.text = text
        self.dice = dice

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.cells import cell_len

        width = max(1, options.max_width)
        lines = list(Text(self.text).wrap(console, width)) if self.text else []
        if self.dice:
            if lines and lines[-1].cell_len + 1 + cell_len(self.dice) <= width:
                lines[-1].append(" " + self.dice)
            else:
                lines.extend(Text(self.dice).wrap(console, width, overflow="fold"))
        for line in lines:
            line.end = "\n"
            yield line

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.cells import cell_len
        from rich.measure import Measurement

        words = [cell_len(w) for w in self.text.split()] + [cell_len(self.dice)]
        whole = cell_len(self.text) + 1 + cell_len(self.dice)
        return Measurement(min(max(words), options.max_width), min(whole, options.max_width))


def recent_rolls_text(
    rolls: Sequence[RollEntry], characters: Mapping[str, Character], count: int = RECENT_ROLLS
) -> RenderableType:
    """The last ``count`` roll entries, newest first — the narrow layout's roll list:
    ``#seq`` in a column of its own and the rest of the roll log's line (players'
    view: no secrets) wrapped beside it, its dice list kept whole, so a roll reads
    whole at 40 columns."""

    from gmdesk.tui.widgets.rolllog import entry_line

    if not rolls:
        return Text("No rolls yet.", style="dim")
    names = {cid: c.name for cid, c in characters.items()}
    rows = []
    for entry in reversed(rolls[-count:]):
        head, _, rest = entry_line(entry, names, hide_secrets=True).partition(" ")
        text, bracket, dice = rest.rpartition(" [")  # the line ends with its dice: "… [6 4 (3) 1]"
        text, dice = (text, bracket.strip() + dice) if bracket and rest.endswith("]") else (rest, "")
        rows.append((head, text, dice))
    return _WholeRolls(rows)


class _WholeRolls:
    """The narrow layout's rolls, newest first, as many as fit the height they are
    given *whole*: a roll that would be cut at the box's bottom edge (its outcome
    below the fold: "Castle Guard → Renna: 16" and no more) is left out instead.
    The newest roll always shows, cut only when even it alone does not fit."""

    def __init__(self, rows: Sequence[tuple[str, str, str]]) -> None:
        self.rows = rows

    def grid(self, count: int) -> RenderableType:
        from rich.table import Table

        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(ratio=1)
        for head, text, dice in self.rows[:count]:
            grid.add_row(Text(head), _RollText(text, dice))  # plain text: a "[dice]" is not markup
        return grid

    def __rich_console__(self, console: Any, options: Any) -> Any:
        count = len(self.rows)
        if options.height is not None:
            fit = options.update(height=None)
            while count > 1 and len(console.render_lines(self.grid(count), fit, pad=False)) > options.height:
                count -= 1
        yield self.grid(count)

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        return Measurement.get(console, options, self.grid(len(self.rows)))


class PlayerScreen(Screen[None]):
    """Initiative | characters on top, the roll log below, a status line, the keys.

    Narrow layout (below :data:`NARROW_BELOW` columns — a phone through ``gmdesk
    serve``, readable at 40): one column of whose turn (the title wraps), the order,
    the last :data:`RECENT_ROLLS` rolls newest first, each wrapped whole rather than
    cut at the edge, then the characters (up to 45 % of the height, scrolling
    beyond). The rolls take the room that is left, losing the oldest first: on a
    phone the latest roll is what a player looks for, and it must not hide below
    the fold. A roll's dice list is never cut in two (:class:`_RollText`), and a roll
    is shown whole or not at all (:class:`_WholeRolls`).

    Short wide layout (at least :data:`NARROW_BELOW` columns, fewer than
    :data:`SHORT_BELOW` rows — a phone held sideways): the initiative and the
    characters take two thirds of the height, so the order and the clocks show
    without scrolling; the roll log keeps the rest. The roll log never shows a
    horizontal scrollbar (a line longer than the log is cut; Enter shows it whole).
    """

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]
    #: a short wide screen (a phone held sideways, 93×18) gives the top panes two
    #: thirds of the height, so the order and the clocks show without scrolling
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_BELOW, "-tall")]

    DEFAULT_CSS = """
    PlayerScreen { layout: vertical; }
    PlayerScreen #player-title { height: 1; padding: 0 1; background: $panel; }
    PlayerScreen #player-top { height: 1fr; min-height: 5; }
    PlayerScreen .player-pane {
        border: round $primary-darken-1;
        padding: 0 1;
        height: 100%;
    }
    PlayerScreen #player-initiative-box { width: 2fr; }
    PlayerScreen #player-party-box { width: 3fr; }
    PlayerScreen #player-log {
        height: 1fr; min-height: 5; border: round $primary-darken-1; overflow-x: hidden;
    }
    PlayerScreen.-wide.-short #player-top { height: 2fr; }
    PlayerScreen #player-status { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    PlayerScreen #player-recent-box { display: none; }

    PlayerScreen.-narrow #player-title { height: auto; max-height: 3; }
    PlayerScreen.-narrow #player-top { layout: vertical; height: 1fr; }
    PlayerScreen.-narrow #player-initiative-box { width: 100%; height: auto; max-height: 30%; }
    PlayerScreen.-narrow #player-recent-box {
        display: block; width: 100%; height: 1fr; min-height: 4; overflow-y: hidden;
    }
    PlayerScreen.-narrow #player-recent { height: 100%; }
    PlayerScreen.-narrow #player-party-box { width: 100%; height: auto; max-height: 45%; }
    PlayerScreen.-narrow #player-log { display: none; }
    """

    def __init__(self, save_name: str = "") -> None:
        super().__init__()
        self.save_name = save_name
        self.characters: Mapping[str, Character] = {}
        self._recent: RenderableType | None = None  # the narrow layout's rolls, as last shown

    def compose(self) -> ComposeResult:
        yield Static(Text("PLAYER VIEW", style="reverse") + Text(f"  {self.save_name}  opening…"), id="player-title")
        with Horizontal(id="player-top"):
            with VerticalScroll(id="player-initiative-box", classes="player-pane") as box:
                box.border_title = "Initiative"
                yield Static("", id="player-initiative")
            with VerticalScroll(id="player-recent-box", classes="player-pane") as box:
                box.border_title = "Last rolls"
                yield Static("", id="player-recent")
            with VerticalScroll(id="player-party-box", classes="player-pane") as box:
                box.border_title = "Characters"
                yield Static("", id="player-party")
        yield RollLog(hide_secrets=True, id="player-log")
        yield Static("opening the save…", id="player-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#player-log").focus()

    def show(self, picture: PlayerPicture) -> None:
        self.characters = picture.characters
        self.query_one("#player-title", Static).update(picture.title)
        self.query_one("#player-initiative", Static).update(picture.initiative)
        self.query_one("#player-party", Static).update(picture.party)
        recent = recent_rolls_text(picture.rolls, picture.characters)
        self.query_one("#player-recent", Static).update(recent)
        self._recent = recent
        self._room_for_the_newest_roll()
        self.query_one("#player-log", RollLog).set_state(_RollsView(picture.characters, picture.rolls))

    def on_resize(self) -> None:
        self._room_for_the_newest_roll()

    def _room_for_the_newest_roll(self) -> None:
        """The narrow layout's rolls box is at least as tall as the newest roll, whole
        (on a short phone the characters' box scrolls sooner instead)."""
        box = self.query_one("#player-recent-box")
        recent = self._recent
        width = box.size.width or self.size.width - 4  # (before the first layout: the screen's less the borders)
        if not isinstance(recent, _WholeRolls) or width <= 0:
            box.styles.min_height = 4
            return
        options = self.app.console.options.update_width(width)
        lines = len(self.app.console.render_lines(recent.grid(1), options, pad=False))
        box.styles.min_height = max(4, lines + 2)  # (the border's two rows)

    def show_status(self, text: str) -> None:
        self.query_one("#player-status", Static).update(text)


class PlayerRollDetails(ModalScreen[None]):
    """One roll's full breakdown, as players may see it (no secret of the GM's)."""

    DEFAULT_CSS = """
    PlayerRollDetails { align: center middle; }
    PlayerRollDetails > VerticalScroll {
        width: 76; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; padding: 0 1; background: $surface;
    }
    """

    BINDINGS = [
        Binding("escape,enter,q", "close", "Close", id="player.details.close"),
    ]

    def __init__(self, entry: RollEntry, names: Mapping[str, str]) -> None:
        super().__init__()
        self.entry = entry
        self.names = names

    def compose(self) -> ComposeResult:
        from gmdesk.core.render import render_record
        from gmdesk.tui.widgets.rolllog import public_record, who_rolled

        entry = self.entry
        who = who_rolled(entry, self.names)
        with VerticalScroll() as box:
            box.border_title = Content(f"Roll #{entry.seq} · {who}")
            yield Static(render_record(public_record(entry.record), hide_secrets=True))
            yield Static("Esc / Enter closes", classes="player-hint")

    def action_close(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class _RollsView:
    """The slice of a state the roll log reads (a snapshot, safe on the UI thread)."""

    characters: Mapping[str, Character]
    rolls: Sequence[RollEntry]


class PlayerApp(TerminalGuard, App[None]):
    """``gmdesk view SAVE``: the read-only player view, following the GM live.

    ``poll_interval`` seconds between looks at the save; ``clock`` gives the time
    string of the status line (tests pass a fixed one).
    """

    TITLE = "gmdesk — player view"
    #: the narrow layout keeps everything readable down to 40 columns (a phone)
    MIN_SIZE = (40, 12)
    CURSOR_BLINK = False
    STDIN_EOF_EXITS = False
    #: players get no command palette: nothing in it is theirs (its Screenshot would
    #: send a served browser to a download), and no command leaves the view
    ENABLE_COMMAND_PALETTE = False

    BINDINGS = [
        Binding("q", "quit", "Quit", id="player.quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, id="player.quit_ctrl"),
    ]

    def __init__(
        self, path: str | Path, *, poll_interval: float = POLL_INTERVAL, clock: Callable[[], str] | None = None
    ) -> None:
        super().__init__()
        self.path = Path(path)
        self.poll_interval = poll_interval
        self.clock = clock or _now_clock
        self._session: Session | None = None
        self._follow_wake = threading.Event()  # set at the end: the follower stops waiting
        self._follow_lock = threading.Lock()  # the session is used by one worker at a time
        self._follow_closed = False
        self._follow_error: str | None = None
        self.pictures_shown = 0
        self.looks = 0  # looks at the save so far (the follower's count)

    def on_mount(self) -> None:
        self.push_screen(PlayerScreen(self.path.stem))
        self._follow()

    @work(thread=True, group="player-follow", exit_on_error=False)
    def _follow(self) -> None:
        """One thread follows the save for the app's whole life: a look every
        ``poll_interval`` seconds, and the UI hears from it only when the picture
        changed or reading failed / recovered. An idle table costs a stat or two per
        look — no new thread, no message, no repaint — which is what keeps ten served
        viewers (``gmdesk serve``) under 2 % of one core together."""
        from textual.worker import get_current_worker

        worker = get_current_worker()
        last_error: str | None = None
        # the app cancels its workers however it ends — even when its unmount never
        # comes (a served viewer whose server vanished fails writing its output)
        while not self._follow_closed and not worker.is_cancelled:
            picture, error = self._look()
            if picture is not None or error != last_error:
                try:
                    self.call_from_thread(self._apply, picture, error)
                except Exception:  # the app is gone
                    break
                last_error = error
            self._follow_wake.wait(self.poll_interval)
        with self._follow_lock:
            self._close_follower()

    def _look(self) -> tuple[PlayerPicture | None, str | None]:
        """One look at the save: (the new picture or None when unchanged, an error)."""
        self.looks += 1
        try:
            from gmdesk.core.session import Session

            with self._follow_lock:
                if self._follow_closed:
                    return None, None
                if self._session is None:
                    self._session = Session.open(self.path, readonly=True)
                    freeze_heap()  # the player view never opens another session
                    changed = True
                else:
                    changed = bool(self._session.refresh())
                picture = build_picture(self._session.state) if changed else None
                if self._follow_closed:  # the app ended while this look was under way
                    self._close_follower()
                    return None, None
                return picture, None
        except Exception as e:  # keep following: the GM may be mid-write or restoring
            return None, str(e) or type(e).__name__

    def _apply(self, picture: PlayerPicture | None, error: str | None) -> None:
        screen = self.screen if isinstance(self.screen, PlayerScreen) else None
        if screen is None:
            for s in self.screen_stack:
                if isinstance(s, PlayerScreen):
                    screen = s
        if screen is None:
            return
        if picture is not None:
            screen.show(picture)
            self.pictures_shown += 1
        if error is not None:
            self._follow_error = error
            screen.show_status(f"⚠ cannot read {self.path.name} — retrying: {error}")
        elif picture is not None or self._follow_error is not None:
            self._follow_error = None
            screen.show_status(f"● following {self.path.name} live · read-only · updated {self.clock()}")

    def on_roll_log_details(self, message: RollLog.Details) -> None:
        screen = next((sc for sc in self.screen_stack if isinstance(sc, PlayerScreen)), None)
        names = {cid: c.name for cid, c in screen.characters.items()} if screen is not None else {}
        self.push_screen(PlayerRollDetails(message.entry, names))

    def on_roll_log_copy(self, message: RollLog.Copy) -> None:
        self.copy_to_clipboard(message.text)
        self.notify("Roll copied.", timeout=2)

    def on_unmount(self) -> None:
        self._follow_closed = True
        self._follow_wake.set()
        # a look in progress (opening a long save takes seconds) closes it when done
        if self._follow_lock.acquire(timeout=0.2):
            try:
                self._close_follower()
            finally:
                self._follow_lock.release()

    def _close_follower(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            try:
                session.close()
            except Exception:
                pass
            thaw_heap()  # the view closes its save only as it ends
