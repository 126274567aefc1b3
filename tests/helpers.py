"""Helpers shared by the tests, one copy each: session files, the dice the rules tests
draw, and driving the TUI through Textual's public testing API (``App.run_test``,
``Pilot.press`` / ``pause``, ``App.export_screenshot``)."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import random
import re
import subprocess
import sys
import time
import unicodedata
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from hypothesis import strategies as st

SMALL = (80, 24)
LARGE = (120, 40)

#: how long a test waits for a condition before it fails (generous: a loaded CI machine)
TIMEOUT = 30.0


# ----------------------------------------------------------------------------- dice


class DrawnDice:
    """Dice drawn by hypothesis, one draw per die (a RandomSource for property tests)."""

    def __init__(self, data):
        self.data = data

    def randint(self, a, b):
        return self.data.draw(st.integers(a, b))


def four_d6(*totals: int) -> list[int]:
    """4d6 dice for these totals (each 4..24, as even as can be)."""
    out = []
    for t in totals:
        base, extra = divmod(t, 4)
        out += [base + (1 if i < extra else 0) for i in range(4)]
    return out


# ----------------------------------------------------------------------------- files


def make_save(
    tmp_path: Path,
    system: str = "4d2",
    characters: list[dict] | None = None,
    *,
    initiative: dict[str, int] | None = None,
    start: bool = False,
    name: str = "Table",
) -> tuple[Path, dict]:
    """A session file in ``tmp_path/saves`` with characters (name → id), optionally in
    an encounter (``initiative``) and at its first turn (``start``)."""
    from gmdesk.core.session import Session, SessionStore

    store = SessionStore(tmp_path / "saves")
    path = store.create(name, system)
    ids: dict[str, str] = {}
    with Session.open(path) as s:
        for spec in characters or []:
            ids[spec["name"]] = s.apply({"type": "character.add", "character": spec}).data["id"]
        if initiative:
            s.apply({"type": "initiative.set", "entries": [{"id": ids[n], "value": v} for n, v in initiative.items()]})
        if start:
            s.apply({"type": "turn.next"})
    return path, ids


#: the player characters of :func:`open_session` (everyone else is an NPC)
PLAYER_CHARACTERS = ("Kara", "Quinn")


def open_session(
    store: Any, *names: str, system: str = "4d6", title: str | None = None, each: dict | None = None, **settings: Any
) -> tuple[Any, dict[str, str]]:
    """A new session of ``system`` in ``store`` (a ``SessionStore``), open for writing,
    named ``title`` (else "Table N", N the sessions there before it), with ``settings``
    and these characters: Kara and Quinn PCs, the rest NPCs; ``NAME:BONUS`` gives one an
    initiative bonus, ``each`` more of what every character has. The session and name → id."""
    from gmdesk.core.session import Session

    s = Session.open(store.create(title or f"Table {len(store.list())}", system, settings=settings or None))
    ids: dict[str, str] = {}
    for spec in names:
        name, _, bonus = spec.partition(":")
        character: dict[str, Any] = {"name": name, "side": "PC" if name in PLAYER_CHARACTERS else "NPC", **(each or {})}
        if bonus:
            character["fields"] = {"initiative_bonus": int(bonus)}
        ids[name] = s.apply({"type": "character.add", "character": character}).data["id"]
    return s, ids


def saved(path: Path) -> Any:
    """The session as saved on disk (re-opened read-only)."""
    from gmdesk.core.session import Session

    with Session.open(path, readonly=True) as s:
        return s.state


def timeless(session: Any) -> dict[str, Any]:
    """The state of an open session as JSON, without when it was last played (every
    event, an undo too, moves it, and a slow step can cross a second)."""
    d: dict[str, Any] = session.state.to_json()
    d["info"].pop("last_played")
    return d


def same_as_replay(session: Any) -> None:
    """The live state of an open session equals a replay of its log from scratch
    (but for when it was last played)."""
    from gmdesk.core.session.events import replay

    live = session.state.to_json()
    again = replay(session._log.header, session._log.events()).state.to_json()
    live["info"].pop("last_played")
    again["info"].pop("last_played")
    assert live == again


def files_of(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of ``directory``: its bytes and modification time (to see that nothing wrote)."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.iterdir()) if p.is_file()}


def killed_after(path: Path, *docs: dict) -> None:
    """A gmdesk applies ``docs`` to the session at ``path`` and is killed before it
    closes it: no compaction, no checkpoint, its changes left in the journal."""
    code = (
        "import json, os, sys\n"
        "from gmdesk.core.session import Session\n"
        "s = Session.open(sys.argv[1])\n"
        "for doc in json.loads(sys.argv[2]):\n"
        "    s.apply(doc)\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path), json.dumps(docs)], check=True, timeout=TIMEOUT)


# ----------------------------------------------------------------------------- waiting


def wait_until(predicate: Callable[[], Any], timeout: float = TIMEOUT, step: float = 0.02, what: str = "") -> Any:
    """Poll ``predicate()`` (outside an event loop) until it is true; returns its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what or predicate}")
        time.sleep(step)


# ----------------------------------------------------------------------------- the TUI

_heard: WeakKeyDictionary[Any, list[Any]] = WeakKeyDictionary()


def run(app: Any, size: tuple[int, int] = SMALL, **kw: Any) -> Any:
    """``app.run_test(size=…)`` that also hears the app's notifications (see ``notes``)."""
    from textual.notifications import Notify

    heard = _heard.setdefault(app, [])

    def hook(message: Any) -> None:
        if isinstance(message, Notify):
            heard.append(message.notification)

    return app.run_test(size=size, message_hook=hook, **kw)


def notifications(app: Any) -> list[Any]:
    """Every notification the app has shown so far (``textual.notifications.Notification``)."""
    if app not in _heard:
        raise AssertionError("run the app with helpers.run(app) to hear its notifications")
    return list(_heard[app])


def notes(app: Any) -> list[str]:
    """The messages of the app's notifications so far, oldest first."""
    return [str(n.message) for n in notifications(app)]


_SVG_TEXT = re.compile(
    r'<text [^>]*?x="([0-9.e+-]+)"[^>]*?textLength="([0-9.e+-]+)"'
    r'[^>]*?clip-path="url\(#[^)]*-line-(\d+)\)">(.*?)</text>'
)


def screen_text(app: Any) -> str:
    """What the terminal shows now (the top screen over the ones it lets through), as
    plain text: one line per row, read from ``App.export_screenshot``."""
    from rich.cells import cell_len

    width, height = app.size
    rows: list[list[tuple[int, str]]] = [[] for _ in range(height)]
    for x, length, y, escaped in _SVG_TEXT.findall(app.export_screenshot()):
        text = html.unescape(escaped.replace("&#160;", " "))
        char_width = float(length) / len(text)  # each run is drawn len(text) characters wide
        if int(y) < height:
            rows[int(y)].append((round(float(x) / char_width), text))
    lines = []
    for row in rows:
        line, column = "", 0
        for at, text in row:  # in order, left to right; the runs of blanks are left out
            line += " " * (at - column) + text
            column = at + cell_len(text)
        lines.append(line + " " * (width - column))
    return "\n".join(lines)


def choices(select: Any) -> list[str]:
    """The labels a ``Select`` (or a roll dialog's ``Choice``) offers, in order (as its
    drop-down lists them)."""
    from textual.widgets import OptionList

    from gmdesk.tui.widgets.form import Choice

    if isinstance(select, Choice):
        return list(select.labels)
    return [str(option.prompt) for option in select.query_one(OptionList).options]


def make_app(path: Path, rng: Any = None, **kw: Any) -> Any:
    """The GM's app on the session file ``path`` (dice seeded unless ``rng``)."""
    from gmdesk.tui.app import GmdeskApp

    return GmdeskApp(path.parent, path, rng=rng if rng is not None else random.Random(7), **kw)


async def until(pilot: Any, predicate: Callable[[], Any], timeout: float = TIMEOUT) -> None:
    """Let the app (and its workers) run until ``predicate()`` holds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s; the screen:\n{screen_text(pilot.app)}")
        await pilot.pause(0.01)


async def settle(pilot: Any, rounds: int = 2) -> None:
    """Wait until the session calls and workers are done and the screen has caught up."""
    from gmdesk.tui.screens.main import MainScreen

    app = pilot.app
    deadline = time.monotonic() + TIMEOUT
    quiet = 0
    while time.monotonic() < deadline:
        await pilot.pause(0)  # the screen has handled what was queued
        busy = any(isinstance(s, MainScreen) and s.busy for s in app.screen_stack)
        running = any(w.is_running and w.group != "odds" for w in app.workers)
        queued = any(node.message_queue_size for node in (app, *app.screen.walk_children(with_self=True)))
        typed = getattr(app, "typing_ahead", False)  # keys held until the desk settles (tui/typeahead.py)
        if busy or running or queued or typed:
            quiet = 0
            await asyncio.sleep(0.005)  # the app works on: wait (the quiet rounds look again, all the way)
            continue
        quiet += 1
        if quiet >= rounds:
            return
    raise AssertionError("the app did not settle")


async def press(pilot: Any, *keys: str) -> None:
    """Press keys like a GM (``Pilot.press``) and wait until gmdesk has handled each one,
    its session calls included."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def _key_of(char: str) -> str:
    """The key name Textual's terminal driver gives a typed character (``+`` →
    ``plus``, ``-`` → ``minus``, ``=`` → ``equals_sign``): what the app's bindings match."""
    from textual.keys import KEY_NAME_REPLACEMENTS

    if char.isalnum():
        return char
    if char == " ":
        return "space"
    name = unicodedata.name(char).lower().replace("-", "_").replace(" ", "_")
    return KEY_NAME_REPLACEMENTS.get(name, name)


async def burst(pilot: Any, text: str) -> None:
    """Type ``text`` as fast as a GM's fingers (or a paste into the terminal): every
    key is posted to the app before it handles the first one; then wait until it is done."""
    from textual import events

    app = pilot.app
    for char in text:
        app.post_message(events.Key(_key_of(char), char))
    await settle(pilot)


async def main_screen(pilot: Any) -> Any:
    """The main screen, once it is up and settled."""
    from gmdesk.tui.screens.main import MainScreen

    await settle(pilot)
    await until(pilot, lambda: isinstance(pilot.app.screen, MainScreen))
    await settle(pilot)
    return pilot.app.screen


@contextlib.asynccontextmanager
async def desk(path: Path, rng: Any = None, size: tuple[int, int] = SMALL, **kw: Any) -> AsyncIterator[Any]:
    """The GM's app on ``path`` (:func:`make_app`) running at ``size`` with its desk up:
    ``async with desk(path) as (app, pilot, screen):``."""
    app = make_app(path, rng, **kw)
    async with run(app, size=size) as pilot:
        yield app, pilot, await main_screen(pilot)


async def select_entry(pilot: Any, char_id: str) -> None:
    """Select ``char_id`` as the GM does: the initiative order focused, its cursor moved
    to the character's row (a closed group opened to its members first), and wait until
    the desk has followed it — the selection and the character pane on ``char_id``.

    The cursor moves through the table (``DataTable.move_cursor``), as the arrow keys
    move it: the row's highlight is what the desk follows. (Setting the screen's
    ``selected`` and the pane's quiet ``select`` would leave the character pane on the
    character it showed before.)"""
    screen = pilot.app.screen
    pane = screen.initiative
    pane.table.focus()
    if char_id not in pane.row_ids:  # a member of a closed group: its row is the group's
        label = screen.state.characters[char_id].group
        if label is not None and not pane.is_open(label):
            pane.toggle_group(label)
    await until(pilot, lambda: char_id in pane.row_ids)
    pane.table.move_cursor(row=pane.row_ids.index(char_id), animate=False)
    await until(pilot, lambda: screen.selected == char_id and screen.character.char_id == char_id)
    await settle(pilot)


async def saved_when(pilot: Any, path: Path, check: Callable[[Any], Any]) -> Any:
    """Let the app run until the session saved at ``path`` passes ``check`` and the
    screen has caught up; the saved session."""
    found: list[Any] = []

    def passes() -> bool:
        state = saved(path)
        if check(state):
            found.append(state)
            return True
        return False

    await until(pilot, passes)
    await settle(pilot)
    return found[-1]


def dialog_error(dlg: Any) -> str:
    """What a dialog's error line says (empty when all is well)."""
    return str(dlg.query_one("#dialog-error").render())


def open_overlay(app: Any, kind: type) -> Any:
    """The dialog of type ``kind`` open over the top screen (the roll dialog is an
    overlay on the desk, not a screen), else None."""
    from textual.widget import Widget

    if not (isinstance(kind, type) and issubclass(kind, Widget)):
        return None
    for found in app.screen.query(kind):
        if getattr(found, "is_open", True) and found.display:
            return found
    return None


def on_top(app: Any, kind: type) -> bool:
    """A screen of type ``kind`` is on top, or a dialog of that type is open over it."""
    return isinstance(app.screen, kind) or open_overlay(app, kind) is not None


async def dialog(pilot: Any, kind: type) -> Any:
    """The screen of type ``kind`` once it is on top (or the overlay dialog of that
    type once it is open, filled in and shown)."""
    from textual.screen import Screen

    if isinstance(kind, type) and issubclass(kind, Screen):
        await until(pilot, lambda: isinstance(pilot.app.screen, kind))
        await pilot.pause(0)
        return pilot.app.screen
    await until(pilot, lambda: (d := open_overlay(pilot.app, kind)) is not None and getattr(d, "ready", True))
    await pilot.pause(0)
    return open_overlay(pilot.app, kind)


async def odds_ready(pilot: Any, dlg: Any) -> Any:
    """The odds the roll dialog shows for what its form holds now (or None with an error)."""
    from gmdesk.core.dice import freeze, thaw
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.systems import get_system

    found: list[Any] = []

    def ready() -> bool:
        try:
            wanted = thaw(freeze(get_system(dlg.system).params_to_json(dlg.build_params())))
        except GmdeskError as e:
            if dlg.last_error and "still loading" not in str(e):
                found.append(None)
                return True
        else:
            odds = dlg.last_odds
            if odds is not None and odds.system == dlg.system and thaw(odds.params) == wanted:
                found.append(odds)
                return True
        return False

    await until(pilot, ready)
    return found[0]


async def palette(pilot: Any, command: str) -> None:
    """Run a command of the command palette (ctrl+p, the command's name, Enter)."""
    from textual.command import CommandPalette
    from textual.widgets import Input

    await press(pilot, "ctrl+p")
    found = await dialog(pilot, CommandPalette)
    found.query_one(Input).value = command
    options = found.query_one("CommandList")

    def offered() -> bool:
        return bool(
            options.option_count
            and options.highlighted is not None
            and str(options.get_option_at_index(options.highlighted).prompt).startswith(command)
        )

    await until(pilot, offered)
    await press(pilot, "enter")
    await until(pilot, lambda: not isinstance(pilot.app.screen, CommandPalette))
    await settle(pilot)


def roll_params(system: str, argv: list[str]) -> Any:
    """The parameters ``gmdesk roll SYSTEM ARGV…`` rolls with, read by the command's own
    parser (a ``ParamError`` names the option given badly)."""
    from gmdesk.cli.rolls import system_parser
    from gmdesk.core.systems import get_spec
    from gmdesk.core.systems.options import params_from_options

    spec = get_spec(system)
    return params_from_options(spec, system_parser("roll", spec).parse_args(argv))


def gmdesk_cli(capsys: Any, saves: Path, *args: str) -> tuple[int, str, str]:
    """``gmdesk --saves SAVES ARGS…`` run in-process: its exit code, stdout and stderr."""
    from gmdesk.cli.main import main

    rc = main(["--saves", str(saves), *args])
    out, err = capsys.readouterr()
    return rc, out, err


def one_error_line(err: str, *words: str) -> None:
    """What the CLI says of bad input: one line on stderr, naming ``words``, no traceback."""
    assert err.count("\n") == 1 and err.startswith("gmdesk"), err
    assert "Traceback" not in err
    for w in words:
        assert w in err, err


def gmdesk_run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``gmdesk ARGS…`` run in-process, as a finished process reads (exit code, stdout,
    stderr), from ``cwd`` and without ``GMDESK_SAVES``: for the command line's own
    tests, where starting a Python process for each command adds nothing but time."""
    import contextlib
    import io
    import os

    from gmdesk.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    was_dir, was_saves = os.getcwd(), os.environ.pop("GMDESK_SAVES", None)
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(list(args))
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        os.chdir(was_dir)
        if was_saves is not None:
            os.environ["GMDESK_SAVES"] = was_saves
    return subprocess.CompletedProcess(["gmdesk", *args], rc, out.getvalue(), err.getvalue())
