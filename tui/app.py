"""The gmdesk Textual app: the picker when started without a save, the main screen
for a session.

``GmdeskApp(saves_dir, open_path=None, readonly=False, rng=None)``. The app's
:class:`~gmdesk.tui.runner.SessionRunner` owns the open session: opening, every
session call and closing (leaving for the picker) run there, off the event loop (a
save held by another gmdesk is refused with the holder's pid, host and since — shown
on the picker, which stays usable). The app routes its screens by type. The session
is closed (its lock released) whenever the app ends: ``q``, SIGHUP / SIGTERM, end of
input (:class:`tui.terminal.TerminalGuard`). Quitting never asks "save?": every
change is already durable when it shows.

Every binding has an id; the GM's keymap file remaps them (:mod:`tui.keymap`,
applied with ``App.set_keymap``) and every move of the
current screen is in the command palette (ctrl+p). ``rng`` is the random source of
every roll (tests pass a seeded one; play uses a fresh ``random.Random``, or one
seeded from ``$GMDESK_SEED``).

Keys typed ahead — several in one read, as SSH delivers them — act exactly as if
typed slowly: each goes on once the desk has settled from the one before
(:mod:`tui.typeahead`), a session call and a dialog being opened included.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode
from textual.screen import Screen

from gmdesk.core.dice import RandomSource, make_rng
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Session, SessionStore
from gmdesk.tui.bindings import KeepsKeymap
from gmdesk.tui.runner import SessionRunner, freeze_heap, thaw_heap
from gmdesk.tui.screens.help import HelpScreen
from gmdesk.tui.screens.main import MainScreen, desk_classes
from gmdesk.tui.screens.opening import OpeningScreen
from gmdesk.tui.screens.picker import PickerScreen
from gmdesk.tui.terminal import TerminalGuard, TooSmallScreen
from gmdesk.tui.typeahead import TypeAhead

#: the screens the app shows one at a time: showing another replaces them (anything
#: else on top, a dialog or the help, stays under a new one)
BASE_SCREENS: tuple[type[Screen[Any]], ...] = (OpeningScreen, PickerScreen, MainScreen)

#: (title, help, callback): one move in the command palette
Command = tuple[str, str, Callable[[], Any]]


def binding_classes() -> list[type]:
    """The classes whose bindings the GM's keymap names: the app first (its keys reach
    every full screen), then the desk's screens and widgets that declare bindings, and
    the main screen of each installed system (with the keys of the system's moves)."""
    import importlib
    import pkgutil

    import gmdesk.tui.screens
    import gmdesk.tui.widgets

    classes: list[type] = [GmdeskApp]
    for package in (gmdesk.tui.screens, gmdesk.tui.widgets):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            classes.extend(
                v
                for v in vars(module).values()
                if isinstance(v, type) and "BINDINGS" in vars(v) and v.__module__ == module.__name__
            )
    classes.extend(desk_classes())
    return classes


class GmdeskCommands(Provider):
    """The command palette's entries: the moves of the screen it was opened from,
    then the app's, then Textual's own (theme, maximize, screenshot) last — one
    provider, so the GM's moves come first in the list, in their order."""

    def _commands(self) -> list[tuple[str, str, Any, bool]]:
        """(title, help, callback, listed before anything is typed): the moves, each
        with the keys bound to it now (after the GM's keymap), then Textual's."""
        from gmdesk.tui.keymap import with_current_keys

        screen = self.screen
        out = list(screen.commands()) if hasattr(screen, "commands") else []
        app = self.app
        if isinstance(app, GmdeskApp):
            out.extend(app.app_commands())
        moves = [
            (title, with_current_keys([screen, app], help_text, callback), callback, True)
            for title, help_text, callback in out
        ]
        return moves + [(c.title, c.help, c.callback, c.discover) for c in app.get_system_commands(screen)]

    async def discover(self) -> Hits:
        for title, help_text, callback, listed in self._commands():
            if listed:
                yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback, _ in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


class GmdeskApp(KeepsKeymap, TypeAhead, TerminalGuard, App[None]):
    """See the module docstring."""

    CSS_PATH = "gmdesk.tcss"
    TITLE = "gmdesk"
    CURSOR_BLINK = False
    COMMANDS = {GmdeskCommands}  # Textual's own commands last in it (get_system_commands)
    COMMAND_PALETTE_BINDING = "ctrl+p"

    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, id="app.quit_ctrl"),
        Binding("question_mark", "help", "Help", id="app.help"),
    ]

    def __init__(
        self,
        saves_dir: str | Path,
        open_path: str | Path | None = None,
        readonly: bool = False,
        *,
        rng: RandomSource | None = None,
        examples_dir: str | Path | None = None,
        keymap_file: str | Path | None = None,
    ) -> None:
        # NO_COLOR: the terminal's own colours, text set apart by bold and reverse video
        # only (Textual strips the colours of an app in ANSI colour; with its grey filter
        # a mark drawn in magenta or the error colour read dark grey on near-black)
        super().__init__(ansi_color=True if "NO_COLOR" in os.environ else None)
        self.keymap_file = Path(keymap_file) if keymap_file is not None else None
        self.saves_dir = Path(saves_dir)
        self.open_path = Path(open_path) if open_path is not None else None
        self.readonly = readonly
        self.rng: RandomSource = rng if rng is not None else make_rng()
        self.examples_dir = Path(examples_dir) if examples_dir is not None else None
        self.runner = SessionRunner(self)
        self._store: SessionStore | None = None
        self._ending = False

    @property
    def typeahead_busy(self) -> bool:
        """A key typed ahead waits for the session calls under way (tui/typeahead.py)."""
        return self.runner.busy

    @property
    def session(self) -> Session | None:
        """The open session (None on the picker, or while one is being opened)."""
        return self.runner.session

    # -- start ---------------------------------------------------------------------------

    @property
    def store(self) -> SessionStore:
        if self._store is None:
            self._store = SessionStore(self.saves_dir)
        return self._store

    def on_mount(self) -> None:
        freeze_heap()  # (tui/runner.py: the heap and the garbage collector)
        self._apply_keymap()
        if self.open_path is not None:
            self.open_session(self.open_path, first=True)
        else:
            self.show_picker()

    def _apply_keymap(self) -> None:
        """The GM's own keys (tui/keymap.py). What is wrong with the file is said once,
        here, in one notice; the default keys stay for what it concerns."""
        import os

        from gmdesk.tui.keymap import check_keymap, keymap_path, load_keymap

        path = self.keymap_file if self.keymap_file is not None else keymap_path()
        named = self.keymap_file is not None or bool(os.environ.get("GMDESK_KEYMAP"))
        if named and not path.exists():
            source = "$GMDESK_KEYMAP" if self.keymap_file is None else "the keymap"
            self.notify(
                f"{source} names {path}, which does not exist: the default keys stay",
                severity="error",
                timeout=10,
                markup=False,
            )
            return
        try:
            keymap = load_keymap(path)
        except GmdeskError as e:
            self.notify(str(e), severity="error", timeout=10, markup=False)
            return
        keymap, problems = check_keymap(keymap, binding_classes())
        if problems:
            self.notify(f"{path}: " + "; ".join(problems), severity="error", timeout=10, markup=False)
        if keymap:
            self.set_keymap(keymap)

    def handle_bindings_clash(self, clashed_bindings: set[Binding], node: DOMNode) -> None:
        """Clashes are found (and their keymap entries left out) once at start."""

    def _show(self, screen: Screen[Any]) -> None:
        """Show ``screen`` in place of the one shown now (the picker, a session, the
        opening notice), with the dialogs open over it: nothing of a closed desk stays
        under the new screen for Escape to come back to."""
        self._lift_notice()
        while len(self.screen_stack) > 1 and not isinstance(self.screen, BASE_SCREENS):
            self.pop_screen()  # a dialog over the screen being replaced: it goes with it
        if isinstance(self.screen, BASE_SCREENS):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def show_picker(self, error: str | None = None, select: Path | None = None) -> None:
        """The list of sessions (``select`` highlighted), saying ``error`` if given."""
        picker = PickerScreen(self.store, self.runner, self.examples_dir, select=select)
        self._show(picker)
        if error:
            self.call_after_refresh(picker.show_error, error)

    def _lift_notice(self) -> None:
        """Take the "terminal too small" notice off before changing screens (it comes
        back on top of the new screen by itself while the terminal is still small)."""
        if isinstance(self.screen, TooSmallScreen):
            self.pop_screen()

    def on_picker_screen_open(self, message: PickerScreen.Open) -> None:
        self.open_session(message.path, readonly=message.readonly)

    def open_session(self, path: str | Path, first: bool = False, *, readonly: bool = False) -> None:
        """Open ``path`` in the session runner (after closing the session open now),
        then show it (or say why not). ``first``: the app was started on this save
        (``gmdesk SAVE``), nothing is on screen yet. ``readonly``: only to read it
        (the app's own ``readonly`` opens every session so)."""
        path = Path(path)
        if first:
            # gmdesk SAVE: the first frame already names the table while it is read
            self.push_screen(OpeningScreen(path.stem))
        self.runner.open(path, readonly=self.readonly or readonly)

    def on_session_runner_finished(self, message: SessionRunner.Finished) -> None:
        self.runner.finished(message)

    def on_session_runner_opened(self, message: SessionRunner.Opened) -> None:
        if self._ending or self.draining:  # the app ends: the final close releases the session
            return
        self._show(
            MainScreen.for_session(
                message.session, self.runner, rng=self.rng, readonly=self.readonly or message.readonly
            )
        )

    def on_session_runner_open_failed(self, message: SessionRunner.OpenFailed) -> None:
        if self._ending or self.draining or not self.is_running:
            # the app ends (the end of input, a hang-up, q typed ahead): no screen to
            # show it on; :func:`gmdesk.tui.run` says it on stderr once the app is gone
            return
        self.runner.open_failure = None  # said here
        error = message.error
        if isinstance(self.screen, PickerScreen):
            self.screen.show_error(error)
        else:
            self.show_picker(error, select=message.path)
        if message.locked:  # whose it is, and an offer to open it read-only
            self.call_after_refresh(self._offer_read_only, message.path, error)
        else:
            self.notify(error, severity="error", timeout=8, markup=False)

    def _offer_read_only(self, path: Path, error: str) -> None:
        if isinstance(self.screen, PickerScreen):
            self.screen.offer_read_only(path, error)

    # -- end -----------------------------------------------------------------------------

    def close_session(self) -> None:
        """The final close: wait for the session call under way, then release the
        session (and its lock); idempotent."""
        self.runner.shutdown()

    @property
    def draining(self) -> bool:
        """The app is ending (a hang-up, the end of input): what is under way lands first."""
        return bool(getattr(self, "_guard_draining", False))

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None:
        self._ending = True
        super().exit(result, return_code, message)

    def on_unmount(self) -> None:
        self.close_session()
        thaw_heap()

    async def action_quit(self) -> None:
        """Quit at once — after the session calls already under way (a few ms) are written."""
        self.runner.when_idle(self.exit)

    def action_back_to_picker(self) -> None:
        """Show the list of sessions; the session closes in the runner meanwhile."""
        self.runner.close()
        self.show_picker()

    # -- help and commands -----------------------------------------------------------------

    def action_help(self) -> None:
        """The keys of the current screen (and the app's), as bound now."""
        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        keys: dict[tuple[str, str], list[str]] = {}
        for _key, active in screen.active_bindings.items():
            b = active.binding
            if active.node not in (screen, self) or not b.description or b.system:
                continue
            keys.setdefault((b.action, b.tooltip or b.description), []).append(self.get_key_display(b))
        shown_keys = [(" / ".join(shown), what) for (_, what), shown in keys.items()]
        if isinstance(screen, MainScreen):
            from gmdesk.core.session.settings import current
            from gmdesk.core.systems import character_sections
            from gmdesk.tui.screens.help import pane_keys

            # the open session's settings and their values
            info = screen.state.info  # the settings that apply to this session's system
            settings = [
                (s.title, s.show(v), s.help) for s, v in current(info.settings) if s.system in ("", info.system)
            ]
            panes = pane_keys(character_sections(screen.state.info.system))
            self.push_screen(HelpScreen(shown_keys, settings=settings, panes=panes))
        else:  # the picker (or another screen): its own keys, no pane keys of the desk
            from gmdesk.tui.screens.help import PALETTE_INTRO

            self.push_screen(HelpScreen(shown_keys, intro=PALETTE_INTRO, panes=()))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands but its "Quit" and "Keys": gmdesk's own "Quit"
        and "Keys (help)" do those (each was listed twice, in two words)."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Keys"):
                yield command

    def app_commands(self) -> list[Command]:
        out: list[Command] = [
            ("Quit", "leave gmdesk (everything is already saved) (q)", self.action_quit),
            ("Keys (help)", "every key of this screen (?)", self.action_help),
        ]
        if isinstance(self.screen, MainScreen) or self.session is not None:
            out.append(
                ("Open another session…", "close this one and show the list of sessions", self.action_back_to_picker)
            )
        return out
