"""Terminal robustness shared by both gmdesk apps (:class:`TerminalGuard`, mixed in):
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
* Escape typed ahead stays Escape (:class:`EscapeKeysApart`): in one read, Escape
  followed by a key is the Escape key and then that key, never Alt+key nor a stray
  "^" in the next field.
* Keys typed while gmdesk starts act as typed: the ``gmdesk`` command makes the
  terminal raw before it loads the app (:mod:`tui.rawmode`); the driver reads what
  the terminal had cooked before that with its Enter restored, and gives the
  terminal back as it was before gmdesk took it.
* Below :data:`MIN_SIZE` columns × rows a "terminal too small" notice covers the
  screen (``q`` still quits); it goes away by itself once the window is larger.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import selectors
import signal
import threading
from codecs import getincrementaldecoder
from typing import Any, cast

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.driver import Driver
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from gmdesk.tui import rawmode

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
            return int(self._stream.write(text))
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
        return int(self._stream.fileno())

    def isatty(self) -> bool:
        try:
            return bool(self._stream.isatty())
        except (OSError, ValueError):
            return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class StdinClosed(Message):
    """Posted to the app when the terminal's input ends; ``hangup`` when it failed (EIO)."""

    def __init__(self, hangup: bool) -> None:
        super().__init__()
        self.hangup = hangup


#: what may follow Escape as the start of a terminal's sequence (CSI, SS3, OSC, DCS,
#: APC, PM, SOS, ST, SS2) or a second Escape: every other character after it is a key
#: of its own
_ESCAPE_THEN_KEY = re.compile(r"\x1b(?=[^\[O\]P_^X\\N\x1b])")
#: the Escape key as an unambiguous sequence (CSI 27 u), which Textual's parser reads
#: as Escape whatever follows it
ESCAPE_KEY = "\x1b[27u"


_PASTE_START, _PASTE_END = "\x1b[200~", "\x1b[201~"


class EscapeKeysApart:
    """Each read from the terminal (``__call__``) with each Escape that a key follows
    written as the Escape key alone.

    A terminal sends Alt+key as Escape then the key, so Textual's parser reads
    Escape followed by a letter in one read as Alt+letter, Escape then ctrl+p as
    ctrl+p alone, and Escape, a letter, Escape as "^", the letter. Keys typed ahead
    arrive that way over SSH (Escape to close a dialog, then the next key); gmdesk
    binds no Alt key, so Escape followed by a key is always the two keys. Escape
    starting a sequence (arrows, mouse, focus) is left as it is, and so is what a
    bracketed paste holds (the paste may span reads)."""

    def __init__(self) -> None:
        self.in_paste = False

    def __call__(self, data: str) -> str:
        if "\x1b" not in data:
            return data
        out: list[str] = []
        rest = data
        while rest:
            if self.in_paste:
                end = rest.find(_PASTE_END)
                if end < 0:
                    out.append(rest)
                    break
                out.append(rest[: end + len(_PASTE_END)])
                rest = rest[end + len(_PASTE_END) :]
                self.in_paste = False
                continue
            start = rest.find(_PASTE_START)
            keys = rest if start < 0 else rest[:start]
            out.append(_ESCAPE_THEN_KEY.sub(ESCAPE_KEY, keys))
            if start < 0:
                break
            out.append(_PASTE_START)
            rest = rest[start + len(_PASTE_START) :]
            self.in_paste = True
        return "".join(out)


def _robust_linux_driver() -> type[Driver] | None:
    """A LinuxDriver whose output survives a hang-up and whose input stops at EOF.

    The one place gmdesk reaches into Textual's driver: Textual 8.2 has no public way
    to replace a driver's output stream (``LinuxDriver._file``) or to read its input
    through its key parser (``textual._xterm_parser.XTermParser``, whose end raises
    ``textual._parser.ParseError``) in an input loop of one's own; the public API
    would be a driver option for the stream and a public parser (or an EOF hook).
    (The attributes it gives the terminal back with, ``attrs_before``, are set
    after Textual's ``start_application_mode`` to those :mod:`tui.rawmode` found.)
    ``tests/test_tui_typeahead.py`` (the real terminal harness) and the EOF and
    hang-up tests of ``tests/test_tui_robust.py`` fail if a Textual upgrade changes them."""
    try:
        from textual._parser import ParseError
        from textual._xterm_parser import XTermParser
        from textual.drivers.linux_driver import LinuxDriver
    except Exception:  # pragma: no cover - not a POSIX platform
        return None

    class RobustLinuxDriver(LinuxDriver):
        def __init__(self, app: App[Any], **kwargs: Any) -> None:
            super().__init__(app, **kwargs)
            # SafeStream stands in for the file (it passes everything else through)
            self._file = cast(io.TextIOWrapper, SafeStream(self._file))
            early = rawmode.taken()
            self._uncook = rawmode.Uncook(early.cooked if early is not None and early.fd == self.fileno else 0)

        #: whether application mode was suspended (Ctrl+Z, ``App.suspend``) and not resumed
        suspended = False

        def suspend_application_mode(self) -> None:
            super().suspend_application_mode()
            self.suspended = True

        def resume_application_mode(self) -> None:
            """Textual's, only after a suspension. Textual resumes at every SIGCONT; one
            that follows no SIGTSTP (the kernel sends it with the SIGHUP of a terminal
            hanging up; ``kill -CONT``) started application mode again over the running
            one: a second input thread reading the same terminal — keys split between
            two parsers, and at a hang-up a thread left waiting."""
            if self.suspended:
                self.suspended = False
                super().resume_application_mode()

        def start_application_mode(self) -> None:
            """Textual's, except that the attributes given back at the end are those the
            terminal had before the ``gmdesk`` command made it raw (:mod:`tui.rawmode`),
            not the raw ones Textual finds."""
            super().start_application_mode()  # type: ignore[no-untyped-call]
            early = rawmode.taken()
            if early is not None and early.fd == self.fileno:
                self.attrs_before = early.before

        def run_input_thread(self) -> None:
            """Textual's input loop, except that end of input stops reading.

            The stock loop selects stdin every 0.1 s and, at EOF, select keeps
            answering "readable" and read keeps returning nothing: a busy loop. Here
            EOF (or EIO from a vanished terminal) tells the app once and then waits
            for the exit without touching the CPU. Reading or waiting, it stops once
            the main thread has ended, so that it never keeps gmdesk's process alive.
            """
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            parser = XTermParser(self._debug)
            decode = getincrementaldecoder("utf-8")().decode
            escape_keys_apart = EscapeKeysApart()
            ended: bool | None = None  # None: input open; False: EOF; True: hang-up
            # Python waits for this thread before it exits: it never outlives the main
            # thread (a driver joins only the input thread it started last, and an app
            # ended on an error path never disables its input)
            main = threading.main_thread()
            try:
                while not self.exit_event.is_set() and main.is_alive():
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
                        data = self._uncook(data)
                        for event in parser.feed(escape_keys_apart(decode(data))):
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
                while not self.exit_event.wait(0.5) and main.is_alive():
                    pass  # (two wake-ups a second while the app ends)

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
        if not is_too_small(self.app.size, self._minimum()):
            self.call_later(self.dismiss)
        else:
            self._update()

    def _minimum(self) -> tuple[int, int]:
        """The app's own minimum (the player view reflows down to 40 columns)."""
        width, height = getattr(self.app, "MIN_SIZE", MIN_SIZE)
        return (width, height)

    def _update(self) -> None:
        w, h = self.app.size
        self.query_one(Static).update(too_small_message(w, h, self._minimum()))


def is_too_small(size: tuple[int, int], minimum: tuple[int, int] = MIN_SIZE) -> bool:
    w, h = size
    return w < minimum[0] or h < minimum[1]


def too_small_message(width: int, height: int, minimum: tuple[int, int] = MIN_SIZE) -> str:
    return (
        f"Terminal too small: {width}×{height}.\n"
        f"gmdesk needs at least {minimum[0]}×{minimum[1]}.\n"
        f"Enlarge the window (q quits)."
    )


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

        base: type[Driver] = super().get_driver_class()  # type: ignore[misc]
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
