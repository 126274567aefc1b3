"""Keys typed ahead act exactly as typed slowly — on a real pseudo-terminal (issue 18).

gmdesk runs as the GM runs it: the ``gmdesk`` command on a pseudo-terminal of 80×24,
its dice fixed by ``GMDESK_SEED``. Per system, a gmdesk process starts on the session
picker of a copy of the session (:func:`typeahead.harness_save`) and every sequence
of :data:`typeahead.SEQUENCES` is written to it in order, each in a single
``write()`` (as SSH delivers a burst), the first at once, as gmdesk starts. Beside it, the same app on another copy, its
dice seeded alike, is typed the same keys slowly: each key posted to the app as the
terminal's reader posts it, one key at a time, each once the app has settled from the
one before (no session call, worker, message or held key left: ``helpers.settle``,
which asks the app instead of guessing from a quiet screen). Both save directories
must hold the same sessions (the picker's dialogs make more: a copy, a next night, a
new session, one from an example), each with the same events, event by event, but
for when they were made; and the slow run must have logged what each sequence is for.

The harness knows gmdesk has handled a burst when a probe key written after it
reaches the app's key routing (:meth:`PtyDesk.handled`): gmdesk holds every key typed
ahead until the desk has settled from the one before, so the probe goes on only once
every key of the burst is done. The gmdesk on the terminal is the ``gmdesk`` command
with one thing added (:data:`PROBED`): the probe key, when routed, is counted in a
file instead of going to a widget. (The command palette with a mark typed into it did
the same by drawing, at a third of a second of CPU a burst — as much as most bursts.)
A lone Escape is given its moment before the next write (:meth:`PtyDesk.write`).

The five gmdesks on terminals (one a system) run at once, mostly waiting for their
screens; the slow runs go one after the other meanwhile, in the test's own process
(ten gmdesks on terminals, five of them typed slowly with a pause after each key,
took more CPU and longer).
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import sys
import termios
import threading
import time
from pathlib import Path
from typing import Any

from typeahead import (
    NOT_TYPED_AHEAD,
    SEQUENCES,
    SYSTEMS,
    TERMINAL_BYTES,
    events_of,
    for_system,
    harness_save,
    readme_keys,
    sessions_of,
    terminal_bytes,
    textual_keys,
)

README = Path(__file__).resolve().parent.parent / "README.md"

#: the desk's dice on the terminal (``GMDESK_SEED``), and in the slow runs
SEED = "7"

#: the screen has settled once nothing was drawn and nothing written for this long
SETTLED = 0.3

#: how long a key may take to change the screen at all (a dialog opening on a busy machine)
FIRST_DRAW = 3.0

#: the longest a burst may take to be handled (ten gmdesks share two cores)
SETTLE_TIMEOUT = 120.0

#: after gmdesk has read a lone Escape, how long nothing follows it (Textual's
#: ``ESCDELAY`` is 0.1 s, its input thread looks every 0.1 s; a busy machine is slower)
ESCAPE_GAP = 0.5

#: the probe key: F24 as rxvt sends it (no key of gmdesk's, nor of a GM's keyboard)
PROBE = b"\x1b[24$"

#: ``gmdesk`` as the GM runs it (its ``__main__``), but for the probe key: when gmdesk
#: routes it — the moment the key would reach the focused widget — a byte is added to
#: the file ``$TYPEAHEAD_PROBES`` and the key goes no further (every other event goes
#: on as ever; keys typed ahead are held before this point, in the app's ``TypeAhead``)
PROBED = """
import os, sys
from textual import events
from textual.app import App
routed = App.on_event
probes = os.open(os.environ["TYPEAHEAD_PROBES"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
async def on_event(self, event):
    if isinstance(event, events.Key) and event.key == "f24":
        os.write(probes, b".")
        return
    await routed(self, event)
App.on_event = on_event
from gmdesk.__main__ import main
sys.exit(main())
"""


class PtyDesk:
    """``gmdesk --saves SAVES`` on a pseudo-terminal of 80×24 (:data:`PROBED`; ``command``:
    another program in its place, its arguments; ``--saves SAVES`` follows them)."""

    def __init__(self, saves: Path, home: Path, command: list[str] | None = None) -> None:
        self.saves = saves
        self.probes = home / "probes"  # a byte for each probe key routed (:meth:`handled`)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "GMDESK_SEED": SEED,
            "GMDESK_KEYMAP": str(home / "keymap.toml"),
            "TYPEAHEAD_PROBES": str(self.probes),
        }
        (home / "keymap.toml").write_text("", encoding="utf-8")
        self.probes.write_bytes(b"")
        argv = [sys.executable, *(command or ["-c", PROBED]), "--saves", str(saves)]
        # the terminal's two ends; the harness keeps the child's end open too, to see
        # what the child has not read yet (:meth:`unread`)
        fd, child_end = os.openpty()
        fcntl.ioctl(child_end, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        pid = os.fork()
        if pid == 0:  # the child: its own session on the terminal, then gmdesk
            try:
                os.close(fd)
                os.setsid()
                fcntl.ioctl(child_end, termios.TIOCSCTTY, 0)
                for n in (0, 1, 2):
                    os.dup2(child_end, n)
                os.execve(sys.executable, argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd, self._child_end = pid, fd, child_end
        self.output = bytearray()
        self.last_output = self.last_write = time.monotonic()
        self._escape_last = False  # the last write ended with a lone Escape
        self._marks = 0
        self._ended = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while not self._ended.is_set():
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
                if not ready:
                    continue
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            self.output += data
            self.last_output = time.monotonic()

    def _files(self) -> tuple:
        """Name, size and time of every session file (the picker's dialogs make, copy
        and release them: one may be gone between listing and reading it)."""
        out = []
        for p in sorted(self.saves.glob("*.gmdesk*")):
            try:
                st = p.stat()
            except FileNotFoundError:
                continue
            out.append((p.name, st.st_size, st.st_mtime_ns))
        return tuple(out)

    def settle(self, quiet: float = SETTLED) -> None:
        """Wait until the screen has settled: after the last key, something was drawn
        (or :data:`FIRST_DRAW` passed), then nothing was drawn and nothing written to the
        save for ``quiet`` seconds."""
        deadline = time.monotonic() + SETTLE_TIMEOUT
        first = time.monotonic() + FIRST_DRAW
        while self.last_output < self.last_write and time.monotonic() < first:
            time.sleep(0.01)
        files = self._files()
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.03)
            now = self._files()
            if now != files:
                files, quiet_since = now, time.monotonic()
            if min(time.monotonic() - self.last_output, time.monotonic() - quiet_since) >= quiet:
                return
        raise AssertionError(f"gmdesk never settled; the last output: {self.tail()!r}")

    def tail(self, n: int = 600) -> str:
        """The end of what gmdesk drew, its escape sequences left out."""
        import re

        text = re.sub(rb"\x1b\[[0-9;?<>=$]*[a-zA-Z~]|\x1b[^\[]", b" ", bytes(self.output[-20000:]))
        return re.sub(r"\s+", " ", text.decode("utf-8", "replace"))[-n:]

    def wait_for(self, text: bytes, start: int = 0) -> None:
        """Wait until gmdesk draws ``text`` (after the first ``start`` bytes it drew)."""
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while text not in self.output[start:]:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never showed")
            time.sleep(0.02)

    def handled(self) -> None:
        """Wait until gmdesk has handled every key written so far: a probe key written
        after them is routed (counted in :attr:`probes`) only once the keys before it
        are done (gmdesk holds keys typed ahead until the desk has settled from the one
        before, its session calls written). Each call writes one probe and waits for
        its count: one routed earlier cannot be taken for it. Nothing is saved."""
        self._marks += 1
        self.write(PROBE)
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while self.probes.stat().st_size < self._marks:
            if time.monotonic() > deadline:
                raise AssertionError(f"the keys were never all handled; the last output: {self.tail()!r}")
            time.sleep(0.01)

    def unread(self) -> int:
        """How many of the bytes written the child has not read yet."""
        return int(struct.unpack("i", fcntl.ioctl(self._child_end, termios.FIONREAD, b"\0\0\0\0"))[0])

    def write(self, data: bytes) -> None:
        """One ``write()`` of all of ``data``, as a terminal delivers a burst.

        A lone Escape at the end of the write before is a key only once the child has
        read it and no byte followed it for a moment (Textual's ``ESCDELAY``): a byte
        arriving earlier makes it the start of an escape sequence (``Escape ctrl+p`` is
        ``alt+ctrl+p``). A GM pressing Escape then the next key is that slow; on a
        busy machine gmdesk may read both at once, so the next write first waits until
        gmdesk has read the Escape, then :data:`ESCAPE_GAP` more."""
        if self._escape_last:
            time.sleep(0.05)  # the terminal hands the bytes on to the child's side in the background
            deadline = time.monotonic() + SETTLE_TIMEOUT
            while self.unread() and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(ESCAPE_GAP)
        self.last_write = time.monotonic()
        assert os.write(self.fd, data) == len(data)
        self._escape_last = data.endswith(TERMINAL_BYTES["escape"])

    def end(self) -> int:
        """SIGTERM ends gmdesk the ordinary way (every change is already saved)."""
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < deadline:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self._close()
                return status
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        self._close()
        raise AssertionError(f"gmdesk did not end on SIGTERM; the last output: {self.tail()!r}")

    def _close(self) -> None:
        """The reader stops before the terminal closes: the next terminal opened may get
        the same descriptor, and its output must not land here."""
        self._ended.set()
        self._reader.join()
        os.close(self.fd)
        os.close(self._child_end)


def drive(saves: Path, home: Path, system: str) -> None:
    """Type every sequence of ``system`` into a gmdesk on ``saves``, each in one write."""
    desk = PtyDesk(saves, home)
    try:
        # the first sequence is written as gmdesk starts, its terminal still as the
        # shell left it (cooked): gmdesk reads it as typed (tui/rawmode.py)
        for sequence in for_system(system):
            try:
                desk.write(b"".join(terminal_bytes(sequence.for_system(system))))
                desk.handled()  # a busy machine may pause drawing for seconds: no guessing
            except AssertionError as e:
                raise AssertionError(f"{sequence.name}: {e}") from None
    finally:
        desk.end()


def test_the_sequences_cover_the_readme_key_table() -> None:
    """The list of sequences stays in step with the README's key table."""
    covered = {k for s in SEQUENCES for k in s.readme}
    table = readme_keys(README)
    assert table, "the README's key table was not found"
    missing = table - covered - set(NOT_TYPED_AHEAD)
    assert not missing, f"README keys no type-ahead sequence covers: {sorted(missing)}"
    assert covered <= table | {"Enter"}, sorted(covered - table)


def differences(system: str, slow: Path, fast: Path) -> list[str]:
    """What the save directories of ``system``'s two runs differ in (nothing, when all
    is well): ``slow`` and ``fast``, the session each typed into."""
    problems = []
    slow_sessions = sessions_of(slow.parent)
    fast_sessions = sessions_of(fast.parent)
    types = {e["type"] for e in events_of(slow)}  # the session the desk's keys play
    deleted = {s.deletes for s in for_system(system)}
    for sequence in for_system(system):
        if sequence.saves and sequence.saves not in types:
            problems.append(f"{system}: the slow run logged no {sequence.saves} ({sequence.name})")
        if sequence.creates and sequence.creates not in slow_sessions and sequence.creates not in deleted:
            problems.append(f"{system}: the slow run made no session {sequence.creates!r} ({sequence.name})")
        if sequence.deletes and sequence.deletes in slow_sessions:
            problems.append(f"{system}: the slow run left the session {sequence.deletes!r} ({sequence.name})")
    if sorted(slow_sessions) != sorted(fast_sessions):
        problems.append(f"{system}: sessions typed slowly {sorted(slow_sessions)}, typed ahead {sorted(fast_sessions)}")
    for session in sorted(set(slow_sessions) & set(fast_sessions)):
        a, b = slow_sessions[session], fast_sessions[session]
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                problems.append(f"{system} {session!r}: event {i} typed slowly {x}\n    typed ahead {y}")
                break
        if len(a) != len(b):
            problems.append(f"{system} {session!r}: {len(a)} events typed slowly, {len(b)} typed ahead")
    return problems


async def type_slowly(saves: Path, system: str) -> None:
    """Type every sequence of ``system`` into the GM's app on ``saves`` (the session
    picker first, the dice seeded as :data:`SEED` seeds the gmdesk on the terminal's):
    key by key, each once the app has settled from the one before (:func:`press_slowly`)."""
    from helpers import SMALL, run, settle, until

    from gmdesk.core.dice import make_rng
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.picker import PickerScreen

    app = GmdeskApp(saves, None, rng=make_rng(int(SEED)))
    try:
        async with run(app, size=SMALL) as pilot:
            await until(pilot, lambda: isinstance(app.screen, PickerScreen))
            await settle(pilot)
            for sequence in for_system(system):
                for key, char in textual_keys(sequence.for_system(system)):
                    await press_slowly(pilot, key, char)
    finally:
        app.close_session()


async def press_slowly(pilot: Any, key: str, char: str | None) -> None:
    """One key, as the terminal's reader gives it to the app (``App.post_message`` of
    the ``events.Key`` it reads), then wait until the app has settled from it
    (``helpers.settle``, which asks the app: no session call, worker, message or held
    key left). Until the key has been routed and the desk has moved on from it, the
    wait only looks at the app's queue and its held keys (cheap); ``settle`` then
    makes sure, all the way, once. (``Pilot.press`` waits for the process's CPU to
    fall idle twice per key as well: two fifths of the harness's time, for nothing
    that ``settle`` does not check.)"""
    import asyncio

    from helpers import settle
    from textual import events

    app = pilot.app
    app.post_message(events.Key(key, char))
    while app.message_queue_size or app.typing_ahead:
        await asyncio.sleep(0.005)
    await settle(pilot)


async def test_every_sequence_typed_ahead_matches_typing_it_slowly(tmp_path: Path) -> None:
    """Every system at once on the terminal (its gmdesks mostly wait for their
    screens); meanwhile the slow runs, one after the other (CI runs this first, beside
    the rest)."""
    runs: dict[tuple[str, bool], Path] = {}
    threads = []
    errors: list[str] = []
    for system in SYSTEMS:
        for burst in (False, True):
            runs[(system, burst)] = harness_save(tmp_path / f"{system}-{'burst' if burst else 'slow'}", system)
        home = tmp_path / f"{system}-home"
        home.mkdir()

        def typed_ahead(path: Path = runs[(system, True)], home: Path = home, system: str = system) -> None:
            try:
                drive(path.parent, home, system)
            except Exception as e:  # reported below, with the system
                errors.append(f"{system} burst: {e!r}")

        threads.append(threading.Thread(target=typed_ahead))
    for t in threads:
        t.start()
    try:
        for system in SYSTEMS:
            try:
                await type_slowly(runs[(system, False)].parent, system)
            except Exception as e:  # reported below, with the system
                errors.append(f"{system} slow: {e!r}")
    finally:
        for t in threads:
            t.join()
    assert not errors, errors
    problems = [p for system in SYSTEMS for p in differences(system, runs[(system, False)], runs[(system, True)])]
    assert not problems, "\n".join(problems)


#: a program that takes a third of a second for each byte (a busy machine), reading
#: them one by one in raw mode and drawing each; it logs every byte it has handled,
#: and counts the probe key as gmdesk does (:data:`PROBED`) once it has handled it
SLOW_KEYS = """
import os, sys, time, tty
tty.setraw(0)
os.write(1, b"raw")
probe = b"\\x1b[24$"
seen = b""
with open(os.path.join(sys.argv[-1], "handled"), "ab", buffering=0) as log:
    while True:
        key = os.read(0, 1)
        time.sleep(0.3)
        os.write(1, key)
        log.write(key)
        seen = (seen + key)[-len(probe):]
        if seen == probe:
            with open(os.environ["TYPEAHEAD_PROBES"], "ab") as probes:
                probes.write(b".")
"""


def test_handled_returns_once_every_key_before_it_is_handled(tmp_path: Path) -> None:
    """A burst that opens the palette itself (back to the sessions, then a new
    session from an example) to a program that handles a key every third of a
    second: when :meth:`PtyDesk.handled` returns, every key of the burst was handled.
    (The palette's "Search for commands…", drawn by the burst's own ctrl+p, was once
    taken for the harness's own probe: on a busy machine the harness went on, and
    ended gmdesk, with keys of the burst still waiting.)"""
    home = tmp_path / "home"
    home.mkdir()
    desk = PtyDesk(tmp_path, home, command=["-c", SLOW_KEYS])
    burst = b"".join(terminal_bytes("<ctrl+p>another<enter>e"))
    try:
        desk.wait_for(b"raw")
        desk.write(burst)
        desk.handled()
        handled = (tmp_path / "handled").read_bytes()
        desk.write(b"x")
        desk.handled()
        again = (tmp_path / "handled").read_bytes()
    finally:
        desk.end()
    assert handled == burst + PROBE, handled
    assert again == burst + PROBE + b"x" + PROBE, again


#: reads its terminal raw (it says so), late (a busy machine), and logs each read
LATE_READER = """
import os, sys, time, tty
tty.setraw(0)
os.write(1, b"raw")
time.sleep(1.0)
with open(os.path.join(sys.argv[-1], "reads"), "a") as log:
    while True:
        log.write(repr(os.read(0, 1024)) + "\\n")
        log.flush()
"""


def test_a_lone_escape_is_read_alone_before_the_next_write(tmp_path: Path) -> None:
    """A write that ends with Escape, then ctrl+p at once, to a program that reads
    late: the Escape is read at the end of its own read, the ctrl+p in a later one
    (read together they are one key, alt+ctrl+p, and the Escape is lost)."""
    home = tmp_path / "home"
    home.mkdir()
    desk = PtyDesk(tmp_path, home, command=["-c", LATE_READER])
    reads = tmp_path / "reads"
    try:
        desk.wait_for(b"raw")
        desk.write(b"x" + TERMINAL_BYTES["escape"])
        desk.write(TERMINAL_BYTES["ctrl+p"])
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while "x10" not in (reads.read_text() if reads.exists() else "") and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        desk.end()
    assert reads.exists(), desk.tail()
    assert reads.read_text().splitlines() == [repr(b"x\x1b"), repr(b"\x10")]


def test_gmdesk_seed_fixes_the_desks_dice(monkeypatch: Any) -> None:
    from gmdesk.core.dice import desk_seed, make_rng

    assert desk_seed({}) is None
    assert desk_seed({"GMDESK_SEED": " 7 "}) == 7
    a, b = make_rng(desk_seed({"GMDESK_SEED": "7"})), make_rng(7)
    assert [a.randint(1, 6) for _ in range(20)] == [b.randint(1, 6) for _ in range(20)]


def test_a_gmdesk_seed_that_is_no_number_is_refused_in_one_line(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    from helpers import one_error_line

    class NoDesk:
        def desk(self, saves_dir: Path, path: Path | None) -> int:
            raise AssertionError("the desk must not start")

    from gmdesk.cli.main import main

    monkeypatch.setenv("GMDESK_SEED", "seven")
    rc = main(["--saves", str(tmp_path)], front_end=NoDesk())  # type: ignore[arg-type]
    _out, err = capsys.readouterr()
    assert rc == 2
    one_error_line(err, "GMDESK_SEED", "whole number", "'seven'")


def cooked(desk: PtyDesk) -> bool:
    """The terminal is still as the shell left it (gmdesk has not made it raw yet)."""
    return bool(termios.tcgetattr(desk._child_end)[3] & termios.ICANON)


def test_keys_typed_while_gmdesk_starts_act_as_typed(tmp_path: Path) -> None:
    """Escape, n, Sunday and Enter written the moment gmdesk is started, while its
    terminal is still cooked: the new session "Sunday" is made and opened, as when
    the same keys are typed on the picker. (The terminal turned that Enter into
    Ctrl+J before gmdesk took it raw: the new-session dialog stayed open with
    "Sunday" in it.)"""
    path = harness_save(tmp_path / "saves", "4d2")
    home = tmp_path / "home"
    home.mkdir()
    desk = PtyDesk(path.parent, home)
    try:
        assert cooked(desk)
        desk.write(b"\x1bnSunday\r")
        desk.handled()
    finally:
        desk.end()
    assert sorted(p.name for p in path.parent.glob("*.gmdesk")) == ["Sunday.gmdesk", "Table.gmdesk"]


def test_the_terminal_is_given_back_as_it_was(tmp_path: Path) -> None:
    """After q the terminal is cooked again, as gmdesk found it (it made it raw before
    Textual did, which gives back what it found)."""
    home = tmp_path / "home"
    home.mkdir()
    desk = PtyDesk(tmp_path / "saves", home)
    ended = False
    try:
        before = termios.tcgetattr(desk._child_end)
        desk.wait_for(b"from an example")  # a first run: the example dialog is offered
        assert not cooked(desk)
        desk.write(b"\x1b")
        desk.write(b"q")
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while not ended and time.monotonic() < deadline:
            ended = bool(os.waitpid(desk.pid, os.WNOHANG)[0])
            time.sleep(0.05)
        assert ended, desk.tail()
        after = termios.tcgetattr(desk._child_end)
    finally:
        desk._close() if ended else desk.end()
    assert after == before


def test_escape_and_the_key_after_it_in_one_read_are_two_keys(tmp_path: Path) -> None:
    """``r`` opens the roll dialog; Escape and ``n`` arrive in one read (as SSH delivers
    them): Escape closes the dialog and ``n`` passes the turn — never Alt+n, which
    would do nothing. Then Escape, ``r`` and Escape in one read: the dialog opens and
    closes with nothing typed into it, and the turn is passed once more with ``n``."""
    path = harness_save(tmp_path / "saves", "4d2")
    home = tmp_path / "home"
    home.mkdir()
    turns_before = sum(e["type"] == "turn.next" for e in events_of(path))
    desk = PtyDesk(path.parent, home)
    try:
        desk.wait_for(b"Enter opens")
        desk.settle()
        desk.write(b"\r")  # the picker's one session
        desk.settle()
        desk.write(b"r")
        desk.settle()
        desk.write(b"\x1bn")
        desk.handled()
        desk.write(b"r\x1br\x1bn")
        desk.handled()
    finally:
        desk.end()
    turns = sum(e["type"] == "turn.next" for e in events_of(path))
    assert turns == turns_before + 2, [e["type"] for e in events_of(path)]
    assert not [e for e in events_of(path) if e["type"].startswith("roll")]
