"""Terminal robustness: the real ``gmdesk`` in a pseudo-terminal (a subprocess), and
the "terminal too small" notice with Pilot.

* SIGHUP / SIGTERM / the terminal going away end gmdesk cleanly: what was done is
  saved, the lock is released the clean way (its file emptied), a second writer
  can open the save at once.
* End of input never spins the CPU.
* The screen reads the same under TERM=xterm, TERM=linux and NO_COLOR=1: markers
  are words and symbols, not colours.
"""

from __future__ import annotations

import fcntl
import os
import random
import re
import shlex
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from helpers import TIMEOUT, files_of, run, screen_text, until, wait_until

from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.lock import LockedError

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>()][0-9A-Za-z]?|\x1bP[^\x1b]*\x1b\\")


class Pty:
    """A process on a pseudo-terminal of ``cols``×``rows``, its output collected."""

    def __init__(
        self, args: list[str], *, env: dict | None = None, stdin_null: bool = False, cols: int = 80, rows: int = 24
    ):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TEXTUAL", "COLUMNS", "LINES")}
        full_env.update({"TERM": "xterm-256color", "PYTHONPATH": str(ROOT), "TEXTUAL_ANIMATIONS": "none"})
        full_env.update(env or {})

        def controlling_tty() -> None:
            os.setsid()
            fcntl.ioctl(1, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL if stdin_null else slave,
            stdout=slave,
            stderr=slave,
            preexec_fn=controlling_tty,
            close_fds=True,
            env=full_env,
            cwd=str(ROOT),
        )
        os.close(slave)
        self.buf = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.master_open = True

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.buf.extend(data)

    @property
    def raw(self) -> str:
        return bytes(self.buf).decode("utf-8", "replace")

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw)

    def wait_for(self, needle: str, timeout: float = TIMEOUT) -> None:
        start = time.monotonic()
        while needle not in self.text:
            if self.proc.poll() is not None:
                raise AssertionError(f"exited ({self.proc.returncode}) before showing {needle!r}:\n{self.text[-2000:]}")
            if time.monotonic() - start > timeout:
                raise AssertionError(f"{needle!r} not shown after {timeout}s:\n{self.text[-2000:]}")
            time.sleep(0.02)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def hang_up(self) -> None:
        """The terminal goes away (window closed, SSH dropped)."""
        if self.master_open:
            self.master_open = False
            os.close(self.master)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.hang_up()


def make_save(directory: Path) -> Path:
    store = SessionStore(directory)
    path = store.create("Night at the docks", "4d2")
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Kara", "side": "PC"}})
        s.apply({"type": "character.add", "character": {"name": "Bruno", "side": "NPC"}})
        s.apply({"type": "initiative.set", "entries": [{"id": "c1", "value": 12}, {"id": "c2", "value": 8}]})
        s.apply({"type": "round.new"})
        s.roll("4d2", {}, actor="c1", target="c2", rng=random.Random(5))
        s.apply({"type": "character.edit", "id": "c2", "fields": {"dead": True}})  # the Dead are no target
    return path


@pytest.fixture
def saves(tmp_path):
    return tmp_path, make_save(tmp_path)


SGR = re.compile(r"\x1b\[([0-9;]*)m")
GREY_256 = {0, 7, 8, 15, 16, 59, 102, 145, 188, 231, *range(232, 256)}


def chromatic_colours(raw: str) -> set[str]:
    """Every colour in the output's SGR codes that is not a shade of grey."""
    found: set[str] = set()
    for match in SGR.finditer(raw):
        params = [int(p) if p else 0 for p in match.group(1).split(";")]
        i = 0
        while i < len(params):
            p = params[i]
            if p in (38, 48) and params[i + 1 : i + 2] == [5] and i + 2 < len(params):
                if params[i + 2] not in GREY_256:
                    found.add(f"{p};5;{params[i + 2]}")
                i += 3
                continue
            if p in (38, 48) and params[i + 1 : i + 2] == [2] and i + 4 < len(params):
                r, g, b = params[i + 2 : i + 5]
                if not r == g == b:
                    found.add(f"{p};2;{r};{g};{b}")
                i += 5
                continue
            if 31 <= p <= 36 or 41 <= p <= 46 or 91 <= p <= 96 or 101 <= p <= 106:
                found.add(str(p))
            i += 1
    return found


def gmdesk(saves_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "gmdesk", "--saves", str(saves_dir), *args]


def lock_text(path: Path) -> str:
    lock = path.with_name(path.name + ".lock")
    return lock.read_text() if lock.exists() else ""


def state_of(path: Path):
    with Session.open(path, readonly=True) as s:
        return s.state


@pytest.mark.slow
def test_signals_and_a_hangup_close_cleanly_saved_and_unlocked(tmp_path):
    """SIGHUP, SIGTERM and the terminal vanishing, each on its own gmdesk (run side by side)."""
    hows = ("SIGHUP", "SIGTERM", "hangup")
    paths = {how: make_save(tmp_path / how) for how in hows}
    terms = {how: Pty(gmdesk(tmp_path / how, "Night at the docks")) for how in hows}
    try:
        for how, term in terms.items():
            term.wait_for("Bruno")
            with pytest.raises(LockedError):  # gmdesk holds the save
                Session.open(paths[how])
            assert f'"pid": {term.proc.pid}' in lock_text(paths[how])
            assert state_of(paths[how]).encounter.round == 1
            term.type("n")  # next turn: Kara's ends; Bruno is dead, so round 2 starts with Kara
        wait_until(lambda: all(state_of(p).encounter.round == 2 for p in paths.values()), what="round 2 saved")
        for how, term in terms.items():
            if how == "hangup":
                term.hang_up()
            else:
                term.proc.send_signal(getattr(signal, how))
        for term in terms.values():
            term.proc.wait(TIMEOUT)  # a clean close is what is checked, not its speed
    finally:
        for term in terms.values():
            term.close()
    for how, path in paths.items():
        assert lock_text(path) == "", how  # released the clean way (a killed process leaves its pid)
        with Session.open(path) as again:  # a second writer opens it at once
            assert again.state.encounter.round == 2, how  # what was done before the signal is there
    assert terms["SIGHUP"].proc.returncode == 128 + signal.SIGHUP
    assert terms["SIGTERM"].proc.returncode == 128 + signal.SIGTERM


def test_end_of_input_does_not_spin_and_the_writer_lets_go(saves):
    saves_dir, path = saves
    term = Pty(gmdesk(saves_dir, "Night at the docks"), stdin_null=True)
    try:
        term.proc.wait(15)  # nobody can drive it: it ends by itself, cleanly
        assert term.proc.returncode == 0
    finally:
        term.close()
    assert lock_text(path) == ""
    Session.open(path).close()


def test_a_sigcont_with_no_stop_before_it_leaves_one_reader_of_the_keys(saves):
    """Textual resumed its terminal at every SIGCONT: one that follows no stop (the
    kernel sends one with a hang-up's SIGHUP; ``kill -CONT``) started a second input
    thread reading the same keys. gmdesk's threads stay as they were, and keys typed
    after it are read once each, in order."""
    saves_dir, path = saves
    term = Pty(gmdesk(saves_dir, "Night at the docks"))
    try:
        term.wait_for("Bruno")
        threads = len(os.listdir(f"/proc/{term.proc.pid}/task"))
        term.proc.send_signal(signal.SIGCONT)
        time.sleep(1.0)
        assert len(os.listdir(f"/proc/{term.proc.pid}/task")) == threads
        for _ in range(4):
            term.type("n")  # four turns: Kara, (Bruno is down) → round 2 … round 5
        wait_until(lambda: state_of(path).encounter.round == 5, what="four turns saved")
        term.type("q")
        term.proc.wait(TIMEOUT)
    finally:
        term.close()
    assert state_of(path).encounter.round == 5


_LEFT_WAITING = """
import asyncio, threading
from textual.app import App
from gmdesk.tui.terminal import _robust_linux_driver

async def main():
    driver = _robust_linux_driver()(App())
    thread = threading.Thread(target=driver.run_input_thread, name="textual-input")
    thread.start()  # stdin at its end: the loop stops reading and waits for the app's end
    print("waiting", flush=True)
    # the app ends without its driver's input disabled (an exit on an error path)

asyncio.run(main())
"""


def test_the_input_thread_never_keeps_gmdesk_alive_after_its_app_has_gone():
    """After the terminal hung up, gmdesk lingered now and then, its process never
    ending: the input thread, done reading, waited for the driver's word to stop,
    which an app ending on an error path never gave — and Python waits for that
    thread before it exits. The thread stops once the main thread has ended."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _LEFT_WAITING],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=ROOT,
    )
    assert done.stdout.strip() == "waiting", done.stderr
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < TIMEOUT


@pytest.mark.slow
def test_player_view_keeps_following_with_no_input_and_an_idle_cpu(saves):
    saves_dir, path = saves
    term = Pty(gmdesk(saves_dir, "view", "Night at the docks"), stdin_null=True)
    try:
        term.wait_for("Bruno")
        start_cpu, start = term.cpu_seconds(), time.monotonic()
        with Session.open(path) as writer:  # it takes no lock
            writer.apply({"type": "turn.next"})
            writer.roll("4d2", {}, actor="c1", rng=random.Random(8))  # Bruno is Dead: no target
        term.wait_for("#8 R2")
        time.sleep(max(0.0, 1.5 - (time.monotonic() - start)))
        used = term.cpu_seconds() - start_cpu
        assert term.proc.poll() is None
        assert used < 0.5, f"{used:.2f} s of CPU in 1.5 s with stdin at EOF"  # a spinning loop uses 1.5
        term.proc.send_signal(signal.SIGTERM)
        term.proc.wait(10)
    finally:
        term.close()


def test_readable_without_colour(tmp_path):
    """The player view under TERM=xterm, TERM=linux and NO_COLOR=1."""
    envs = {
        "xterm": {"TERM": "xterm"},
        "linux": {"TERM": "linux"},
        "no-color": {"NO_COLOR": "1", "TERM": "xterm-256color"},
    }
    for label, env in envs.items():  # one after the other: three at once starve a small machine
        make_save(tmp_path / label)
        term = Pty(gmdesk(tmp_path / label, "view", "Night at the docks"), env=env)
        try:
            term.wait_for("following")
            term.wait_for("Kara → Bruno")
            term.wait_for("DEAD")
            text = term.text
            assert "▶" in text and "DEAD" in text, label  # whose turn and who is out: symbols and words
            if label == "no-color":  # Textual draws in shades of grey: no hue carries anything
                assert chromatic_colours(term.raw) == set()
            else:
                assert chromatic_colours(term.raw), label  # (colour is there when allowed)
            term.type("q")
            term.proc.wait(10)
            assert term.proc.returncode == 0
        finally:
            term.close()


# ---------------------------------------------------------------------------
# terminal too small (Pilot)
# ---------------------------------------------------------------------------


async def test_too_small_notice_comes_and_goes(saves):
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.terminal import TooSmallScreen

    saves_dir, path = saves
    app = GmdeskApp(saves_dir, path)
    async with run(app, size=(50, 15)) as pilot:
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, TooSmallScreen)
                and any(isinstance(s, MainScreen) for s in app.screen_stack)
                and "too small" in screen_text(app)
            ),
        )
        text = screen_text(app)
        assert "Terminal too small: 50×15" in text and "at least 60×18" in text
        await pilot.press("n")  # keys do not reach the hidden screen
        await pilot.resize_terminal(60, 18)  # the minimum is enough
        await until(pilot, lambda: not isinstance(app.screen, TooSmallScreen))
        await until(pilot, lambda: "Bruno" in screen_text(app))
        await pilot.resize_terminal(80, 12)
        await until(pilot, lambda: isinstance(app.screen, TooSmallScreen))
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: not isinstance(app.screen, TooSmallScreen) and "Bruno" in screen_text(app))
    with Session.open(path) as s:  # nothing happened to the save meanwhile
        assert s.state.encounter.round == 1 and s.state.encounter.turn == 0


async def test_player_view_too_small(saves):
    from gmdesk.tui.screens.player import PlayerApp
    from gmdesk.tui.terminal import TooSmallScreen

    saves_dir, path = saves
    app = PlayerApp(path)
    async with run(app, size=(40, 10)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TooSmallScreen))
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: "Bruno" in screen_text(app))


def test_a_save_open_elsewhere_with_no_input_is_one_line_never_a_traceback(saves):
    """``gmdesk SAVE </dev/null`` on a session another gmdesk holds: the refusal came
    back while the end of input was ending the app, and the picker it opened to say
    so crashed (every time with no input, now and then in a terminal). The GM reads
    who has the session and how to follow it, in one line, and nothing is changed."""
    saves_dir, path = saves
    with Session.open(path):  # another gmdesk (here: this process) is writing it
        before = files_of(saves_dir)
        for _ in range(3):
            term = Pty(gmdesk(saves_dir, str(path)), stdin_null=True)
            try:
                assert term.proc.wait(TIMEOUT) == 2, term.text[-2000:]
                wait_until(lambda t=term: "follows it read-only" in t.text, what="the refusal")
            finally:
                term.close()
            text = term.text
            assert "Traceback" not in text and "Error" not in text, text[-2000:]
            said = [line for line in text.splitlines() if line.startswith("gmdesk:")]
            assert said == [
                f"gmdesk: Night at the docks is open in another gmdesk (pid {os.getpid()} on "
                f"{socket.gethostname()}, since {holder_since(path)}); `gmdesk view {shlex.quote(str(path))}` "
                "follows it read-only"
            ], text[-2000:]
        assert files_of(saves_dir) == before  # the lock file too: still the holder's


def holder_since(path: Path) -> str:
    import json

    from gmdesk.core.text import short_time

    return short_time(json.loads(lock_text(path).splitlines()[0])["since"])
