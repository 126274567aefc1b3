"""The player view (``gmdesk view SAVE``) and the terminal robustness both gmdesk apps share.

Player view
    :class:`PlayerApp` opens a save read-only (no lock, never a write) and shows the
    players what is public: the initiative order, each character's public state and
    the roll log. It follows the GM's changes live: a timer asks a thread worker to
    ``Session.refresh()`` the save every ``poll_interval`` seconds (0.4 s by default,
    so a new roll shows within a second), and the worker builds the whole picture off
    the UI thread; the UI only swaps in the finished text.

    What players see (the rules only say the 1d6x4 target number is secret; the rest
    is what a GM at the table expects a shared screen to show):

    * initiative: order, round, ``▶`` on whoever acts, ``UNC`` / ``DEAD`` markers;
    * player characters: Vitality (current/default), Possibilities, active advantage
      and shift sources, conditions with rounds left, wounds;
    * non-player characters: only what the table can see — status (``UNC``, ``DEAD``),
      conditions and wounds; never their Vitality numbers, sources, notes or sheet;
    * the roll log: rolls only (not the GM's notes or other events), newest last,
      who rolled at whom, dice, value, outcome, descriptors; 1d6x4 records go through
      ``core.systems.one_d6_x4.public_view`` (when present) and are rendered with
      ``hide_secrets=True``, so the target number never reaches the screen.

    If the save cannot be read for a moment (the GM's machine is mid-write, the file
    went away), the view keeps the last picture, says so in its status line and
    keeps trying.

Terminal robustness (:class:`TerminalGuard`, mixed into both apps)
    * SIGHUP and SIGTERM end the app the ordinary way (``App.exit``), so screens
      unmount, the session is closed and its lock released; the return code is
      128 + the signal number. Installed only in real runs, never under ``run_test``.
    * A hung-up or closed terminal never blocks or crashes the exit: terminal writes
      that fail are dropped (:class:`SafeStream`).
    * End of input (stdin at EOF, e.g. ``< /dev/null``, or a terminal gone away) never
      spins the CPU: the input thread stops reading and sleeps until the app ends.
      A writer app then exits cleanly (nobody can drive it, and it must not sit on
      the save's lock); the player view keeps following on a hang-up-free EOF, so a
      wall display can run it with no keyboard.
    * Below :data:`MIN_SIZE` columns × rows a "terminal too small" notice covers the
      screen (``q`` still quits); it goes away by itself once the window is larger.
"""

from __future__ import annotations

import asyncio
import os
import selectors
import signal
import threading
from codecs import getincrementaldecoder
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.driver import Driver
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

# ---------------------------------------------------------------------------
# Terminal robustness
# ---------------------------------------------------------------------------

#: Smallest usable terminal (columns, rows); below it the "too small" notice shows.
MIN_SIZE = (60, 18)

#: Signals that end the app cleanly (everything saved, lock released).
EXIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name))


class SafeStream:
    """A text stream wrapper for the terminal that never raises on write or flush.

    After the terminal hangs up, writing to it fails (EIO) or the reader is gone
    (EPIPE). Textual writes from a background thread through a small bounded queue: a
    failed write would kill that thread and the next writes would block the app for
    ever. Here the first failure marks the stream dead and later output is dropped.
    """

    def __init__(self, stream: Any):
        self._stream = stream
        self.dead = False

    def write(self, text: str) -> int:
        if self.dead:
            return len(text)
        try:
            return self._stream.write(text)
        except (OSError, ValueError):
            self.dead = True
            return len(text)

    def flush(self) -> None:
        if self.dead:
            return
        try:
            self._stream.flush()
        except (OSError, ValueError):
            self.dead = True

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        try:
            return self._stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class StdinClosed(Message):
    """Posted to the app when the terminal's input ends; ``hangup`` when it failed (EIO)."""

    def __init__(self, hangup: bool) -> None:
        super().__init__()
        self.hangup = hangup


def _robust_linux_driver() -> type[Driver] | None:
    """A LinuxDriver whose output survives a hang-up and whose input stops at EOF."""
    try:
        from textual._parser import ParseError
        from textual._xterm_parser import XTermParser
        from textual.drivers.linux_driver import LinuxDriver
    except Exception:  # pragma: no cover - not a POSIX platform
        return None

    class RobustLinuxDriver(LinuxDriver):
        def __init__(self, app: App, **kwargs: Any) -> None:
            super().__init__(app, **kwargs)
            self._file = SafeStream(self._file)

        def run_input_thread(self) -> None:
            """Textual's input loop, except that end of input stops reading.

            The stock loop selects stdin every 0.1 s and, at EOF, select keeps
            answering "readable" and read keeps returning nothing: a busy loop. Here
            EOF (or EIO from a vanished terminal) tells the app once and then waits
            for the exit without touching the CPU.
            """
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            parser = XTermParser(self._debug)
            decode = getincrementaldecoder("utf-8")().decode
            ended: bool | None = None  # None: input open; False: EOF; True: hang-up
            try:
                while not self.exit_event.is_set():
                    for _key, mask in selector.select(0.1):
                        if not mask & selectors.EVENT_READ:
                            continue
                        try:
                            data = os.read(self.fileno, 4096)
                        except OSError:
                            data, ended = b"", True
                        if not data:
                            ended = bool(ended)
                            break
                        for event in parser.feed(decode(data)):
                            self.process_message(event)
                    for event in parser.tick():
                        self.process_message(event)
                    if ended is not None:
                        break
            finally:
                selector.close()
                try:
                    for _event in parser.feed(""):
                        pass
                except (EOFError, ParseError):
                    pass
            if ended is not None:
                try:
                    self._app.post_message(StdinClosed(hangup=ended))
                except Exception:
                    pass
                self.exit_event.wait()

    return RobustLinuxDriver


class TooSmallScreen(ModalScreen[None]):
    """Covers the app while the terminal is below :data:`MIN_SIZE`; leaves by itself."""

    DEFAULT_CSS = """
    TooSmallScreen {
        align: center middle;
        background: $background;
    }
    TooSmallScreen > Static {
        width: 100%;
        height: auto;
        content-align: center middle;
        text-align: center;
        padding: 0 1;
    }
    """

    BINDINGS = [Binding("q", "app.quit", "Quit", id="toosmall.quit")]

    def compose(self) -> ComposeResult:
        yield Static(id="too-small-text")

    def on_mount(self) -> None:
        self._update()

    def on_resize(self, event: events.Resize) -> None:
        self._update()

    def on_screen_resume(self) -> None:
        if not is_too_small(self.app.size):
            self.call_later(self.dismiss)
        else:
            self._update()

    def _update(self) -> None:
        w, h = self.app.size
        self.query_one(Static).update(too_small_message(w, h))


def is_too_small(size: tuple[int, int], minimum: tuple[int, int] = MIN_SIZE) -> bool:
    w, h = size
    return w < minimum[0] or h < minimum[1]


def too_small_message(width: int, height: int, minimum: tuple[int, int] = MIN_SIZE) -> str:
    return (f"Terminal too small: {width}×{height}.\n"
            f"gmdesk needs at least {minimum[0]}×{minimum[1]}.\n"
            f"Enlarge the window (q quits).")


class TerminalGuard:
    """Mix into an ``App`` (``class GmdeskApp(TerminalGuard, App)``) for the terminal
    robustness described in this module's docstring.

    The app must close its session when it unmounts (``on_unmount``): a signal or the
    end of input ends the app through ``App.exit`` like ``q`` does.
    ``STDIN_EOF_EXITS`` says whether a plain EOF on stdin ends the app (a hang-up
    always does).
    """

    STDIN_EOF_EXITS: bool = True
    MIN_SIZE: tuple[int, int] = MIN_SIZE
    EXIT_DRAIN_SECONDS: float = 5.0

    # -- driver ---------------------------------------------------------------
    def get_driver_class(self) -> type[Driver]:
        from textual import constants

        base = super().get_driver_class()  # type: ignore[misc]
        if constants.DRIVER is not None:
            return base
        robust = _robust_linux_driver()
        from textual.drivers.linux_driver import LinuxDriver

        if robust is not None and base is LinuxDriver:
            return robust
        return base

    # -- signals --------------------------------------------------------------
    async def run_async(self, *args: Any, **kwargs: Any) -> Any:
        headless = kwargs.get("headless", False)
        loop = asyncio.get_running_loop()
        installed: list[int] = []
        if not headless and threading.current_thread() is threading.main_thread():
            for sig in EXIT_SIGNALS:
                try:
                    loop.add_signal_handler(sig, self._exit_on_signal, sig)
                    installed.append(sig)
                except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover
                    pass
        try:
            return await super().run_async(*args, **kwargs)  # type: ignore[misc]
        finally:
            for sig in installed:
                try:
                    loop.remove_signal_handler(sig)
                except Exception:  # pragma: no cover
                    pass

    def _exit_on_signal(self, signum: int) -> None:
        """SIGHUP / SIGTERM: the ordinary exit (screens unmount, session closes)."""
        self.graceful_exit(128 + int(signum))

    def on_stdin_closed(self, message: StdinClosed) -> None:
        if message.hangup:
            self.graceful_exit(128 + int(getattr(signal, "SIGHUP", 1)))
        elif self.STDIN_EOF_EXITS:
            self.graceful_exit(0)

    def graceful_exit(self, return_code: int = 0) -> None:
        """Let the work in flight land (a save being opened, an event being written —
        at most ``EXIT_DRAIN_SECONDS``), then exit the ordinary way. A second call
        while draining exits at once."""
        app: Any = self
        if getattr(self, "_guard_draining", False):
            app.exit(return_code=return_code)
            return
        self._guard_draining = True

        async def drain() -> None:
            from textual.worker import WorkerState

            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.EXIT_DRAIN_SECONDS
            for _ in range(2):  # what was running, then what its results started
                busy = [w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
                if not busy:
                    break
                while any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in busy):
                    if loop.time() >= deadline:
                        break
                    await asyncio.sleep(0.02)
                await asyncio.sleep(0)
            app.exit(return_code=return_code)

        self._guard_drain_task = asyncio.get_running_loop().create_task(drain())

    # -- terminal too small ---------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        self.call_later(self.check_terminal_size)  # type: ignore[attr-defined]

    def check_terminal_size(self) -> None:
        """Show or withdraw the "too small" notice for the current size."""
        app: Any = self
        if not getattr(app, "is_running", True) or not app.screen_stack:
            return
        top = app.screen_stack[-1]
        small = is_too_small(app.size, self.MIN_SIZE)
        if small and not isinstance(top, TooSmallScreen):
            app.push_screen(TooSmallScreen())
        elif not small and isinstance(top, TooSmallScreen):
            top.dismiss()

    def on_mount(self) -> None:
        app: Any = self
        app.screen_change_signal.subscribe(app, lambda _screen: app.call_later(self.check_terminal_size))


# ---------------------------------------------------------------------------
# The player view
# ---------------------------------------------------------------------------

POLL_INTERVAL = 0.4


def _now_clock() -> str:
    import time

    return time.strftime("%H:%M:%S")


@dataclass(frozen=True)
class PlayerPicture:
    """Everything the player view shows, built off the UI thread from a state.

    ``rolls`` is a snapshot of the session's roll entries (the RollLog widget renders
    them through ``hide_secrets``); ``characters`` the names it needs for them.
    """

    title: Text
    initiative: Text
    party: Text
    rolls: tuple[Any, ...] = ()
    characters: Mapping[str, Any] = field(default_factory=dict)


def _visible_characters(state: Any) -> list[Any]:
    """Player characters always; other characters only while they are in the initiative
    order (an ambush the GM has prepared stays hidden until it is rolled in)."""
    in_order = {c.char_id for c in state.encounter.order}
    return [c for c in state.characters.values() if c.side == "PC" or c.id in in_order]


def public_status_words(character: Any) -> list[str]:
    """Status and condition markers (UNC, DEAD, UP, STY, …) — words, never colour alone."""
    from tui.widgets.common import markers

    return markers(character)


def _conditions_text(character: Any) -> str:
    parts = []
    for cond in character.conditions:
        rounds = getattr(cond, "rounds", None)
        parts.append(cond.name + (f" ({rounds} rd)" if rounds is not None else ""))
    return ", ".join(parts)


def build_picture(state: Any) -> PlayerPicture:
    """The players' picture of ``state`` (pure; see the module docstring for what is public)."""
    from tui.widgets.common import TURN_MARKER, source_label

    info = state.info
    enc = state.encounter
    current = enc.current
    chars = state.characters

    title = Text()
    title.append("PLAYER VIEW  ", style="reverse")
    title.append(info.name or "(unnamed session)", style="bold")
    title.append(f"  {info.system}", style="dim")
    if enc.round > 0:
        title.append(f"  ·  Round {enc.round}")
        if current is not None and current.char_id in chars:
            title.append(f"  ·  {TURN_MARKER} {chars[current.char_id].name}", style="bold")
    elif enc.order:
        title.append("  ·  initiative set, not started")

    init = Text()
    if not enc.order:
        init.append("No encounter.", style="dim")
    for i, comb in enumerate(enc.order):
        c = chars.get(comb.char_id)
        if c is None:
            continue
        if i:
            init.append("\n")
        acting = current is not None and i == enc.turn
        init.append(f"{TURN_MARKER} " if acting else "  ", style="bold")
        init.append(f"{comb.initiative:>3} ")
        init.append(c.name, style="bold" if acting else "")
        words = public_status_words(c)
        if words:
            init.append("  " + " ".join(words), style="bold")

    party = Text()
    visible = _visible_characters(state)
    if not visible:
        party.append("No characters yet.", style="dim")
    for i, c in enumerate(visible):
        if i:
            party.append("\n")
        party.append(c.name, style="bold")
        party.append(f" ({c.side})", style="dim")
        words = public_status_words(c)
        status = [w for w in words if w in ("UNC", "DEAD")]
        if status:
            party.append("  " + " ".join(status), style="bold")
        if c.side == "PC":
            if info.system == "1d6x4" or c.vitality_default or c.vitality_current:
                party.append(f"  Vitality {c.vitality_current}/{c.vitality_default}")
            if c.reality_rated or c.possibilities:
                party.append(f"  Possibilities {c.possibilities}")
            sources = [s for s in (*c.advantage, *c.shifts) if s.active]
            if sources:
                party.append("\n    sources: " + ", ".join(source_label(s) for s in sources))
        conds = _conditions_text(c)
        if conds:
            party.append("\n    conditions: " + conds)
        if c.wounds:
            party.append("\n    wounds: " + "; ".join(w.text for w in c.wounds))
    return PlayerPicture(title=title, initiative=init, party=party, rolls=tuple(state.rolls),
                         characters={cid: c for cid, c in chars.items()})


class PlayerScreen(Screen):
    """Initiative | characters on top, the roll log below, a status line, the keys."""

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
    PlayerScreen #player-log { height: 1fr; min-height: 5; border: round $primary-darken-1; }
    PlayerScreen #player-status { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, save_name: str = "") -> None:
        super().__init__()
        self.save_name = save_name
        self.characters: Mapping[str, Any] = {}

    def compose(self) -> ComposeResult:
        from tui.widgets.rolllog import RollLog

        yield Static(Text("PLAYER VIEW", style="reverse") + Text(f"  {self.save_name}  opening…"),
                     id="player-title")
        with Horizontal(id="player-top"):
            with VerticalScroll(id="player-initiative-box", classes="player-pane") as box:
                box.border_title = "Initiative"
                yield Static("", id="player-initiative")
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
        self.query_one("#player-log").set_state(_RollsView(picture.characters, picture.rolls))

    def show_status(self, text: str) -> None:
        self.query_one("#player-status", Static).update(text)


class PlayerRollDetails(ModalScreen[None]):
    """One roll's full breakdown, as players may see it (no 1d6x4 target number)."""

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

    def __init__(self, entry: Any, names: Mapping[str, str]) -> None:
        super().__init__()
        self.entry = entry
        self.names = names

    def compose(self) -> ComposeResult:
        from core.render import render_record
        from tui.widgets.rolllog import public_record

        entry = self.entry
        who = self.names.get(entry.actor, "GM") if entry.actor is not None else "GM"
        if entry.target is not None:
            who += f" → {self.names.get(entry.target, '?')}"
        with VerticalScroll() as box:
            box.border_title = f"Roll #{entry.seq} · {who}"
            yield Static(render_record(public_record(entry.record), hide_secrets=True))
            yield Static("Esc / Enter closes", classes="player-hint")

    def action_close(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class _RollsView:
    """The slice of a state the roll log reads (a snapshot, safe on the UI thread)."""

    characters: Mapping[str, Any]
    rolls: Sequence[Any]


class PlayerApp(TerminalGuard, App):
    """``gmdesk view SAVE``: the read-only player view, following the GM live.

    ``poll_interval`` seconds between looks at the save; ``clock`` gives the time
    string of the status line (tests pass a fixed one).
    """

    TITLE = "gmdesk — player view"
    CURSOR_BLINK = False
    STDIN_EOF_EXITS = False

    BINDINGS = [
        Binding("q", "quit", "Quit", id="player.quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, id="player.quit_ctrl"),
    ]

    def __init__(self, path: str | Path, *, poll_interval: float = POLL_INTERVAL,
                 clock: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.path = Path(path)
        self.poll_interval = poll_interval
        self.clock = clock or _now_clock
        self._session: Any = None
        self._follow_busy = False
        self._follow_lock = threading.Lock()  # the session is used by one worker at a time
        self._follow_closed = False
        self._follow_error: str | None = None
        self.pictures_shown = 0

    def on_mount(self) -> None:
        self.push_screen(PlayerScreen(self.path.stem))
        self._poll()
        self.set_interval(self.poll_interval, self._poll)

    def _poll(self) -> None:
        if self._follow_busy:
            return
        self._follow_busy = True
        self._look()

    @work(thread=True, group="player-follow", exit_on_error=False)
    def _look(self) -> None:
        picture: PlayerPicture | None = None
        error: str | None = None
        try:
            from core.session import Session

            with self._follow_lock:
                if self._follow_closed:
                    return
                if self._session is None:
                    self._session = Session.open(self.path, readonly=True)
                    changed = True
                else:
                    changed = bool(self._session.refresh())
                if changed:
                    picture = build_picture(self._session.state)
                if self._follow_closed:  # the app ended while this look was under way
                    self._close_follower()
                    return
        except Exception as e:  # keep following: the GM may be mid-write or restoring
            error = str(e) or type(e).__name__
        try:
            self.call_from_thread(self._apply, picture, error)
        except Exception:
            self._follow_busy = False

    def _apply(self, picture: PlayerPicture | None, error: str | None) -> None:
        self._follow_busy = False
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

    def on_roll_log_details(self, message: Any) -> None:
        screen = next((sc for sc in self.screen_stack if isinstance(sc, PlayerScreen)), None)
        names = {cid: c.name for cid, c in screen.characters.items()} if screen is not None else {}
        self.push_screen(PlayerRollDetails(message.entry, names))

    def on_roll_log_copy(self, message: Any) -> None:
        self.copy_to_clipboard(message.text)
        self.notify("Roll copied.", timeout=2)

    def on_unmount(self) -> None:
        self._follow_closed = True
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
