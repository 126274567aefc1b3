"""Keys typed ahead act exactly as typed slowly — on a real pseudo-terminal (issue 18).

gmdesk runs as the GM runs it: the ``gmdesk`` command on a pseudo-terminal of 80×24,
its dice fixed by ``GMDESK_SEED``. Per system, two gmdesk processes start on the
session picker of a copy of the same session (:func:`typeahead.harness_save`) and
type every sequence of :data:`typeahead.SEQUENCES` in order: one writes each sequence
in a single ``write()`` (as SSH delivers a burst), the other one key at a time, each
after the screen has settled (no output for a moment, nothing being written to the
save). Both save directories must hold the same sessions (the picker's dialogs make
more: a copy, a next night, a new session, one from an example), each with the same
events, event by event, but for when they were made; and the slow run must have
logged what each sequence is for.

All ten processes run at once, so the harness takes about as long as the slowest
run (well within CI's couple of minutes on 2 cores).
"""

from __future__ import annotations

import fcntl
import os
import pty
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
)

README = Path(__file__).resolve().parent.parent / "README.md"

#: the screen has settled once nothing was drawn and nothing written for this long
SETTLED = 0.3

#: how long a key may take to change the screen at all (a dialog opening on a busy machine)
FIRST_DRAW = 3.0

#: the longest a burst may take to be handled (ten gmdesks share two cores)
SETTLE_TIMEOUT = 120.0


class PtyDesk:
    """``gmdesk --saves SAVES`` on a pseudo-terminal of 80×24."""

    def __init__(self, saves: Path, home: Path) -> None:
        self.saves = saves
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "GMDESK_SEED": "7",
            "GMDESK_KEYMAP": str(home / "keymap.toml"),
        }
        (home / "keymap.toml").write_text("", encoding="utf-8")
        pid, fd = pty.fork()
        if pid == 0:  # the child: the terminal's size, then gmdesk
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
                os.execve(sys.executable, [sys.executable, "-m", "gmdesk", "--saves", str(saves)], env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.output = bytearray()
        self.last_output = self.last_write = time.monotonic()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.5)
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
        """Wait until gmdesk has handled every key written so far: the command palette
        (ctrl+p, which opens over any screen) shows only once the keys before it are
        done; Escape, alone in its write, closes it again. Nothing is saved."""
        start = len(self.output)
        self.write(TERMINAL_BYTES["ctrl+p"])
        self.wait_for(b"Search for commands", start)
        self.settle()
        self.write(TERMINAL_BYTES["escape"])
        time.sleep(0.2)  # the escape key's own timeout: no byte may follow it in the same read
        self.settle()

    def write(self, data: bytes) -> None:
        """One ``write()`` of all of ``data``, as a terminal delivers a burst."""
        self.last_write = time.monotonic()
        assert os.write(self.fd, data) == len(data)

    def end(self) -> int:
        """SIGTERM ends gmdesk the ordinary way (every change is already saved)."""
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < deadline:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                os.close(self.fd)
                return status
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError(f"gmdesk did not end on SIGTERM; the last output: {self.tail()!r}")


def drive(saves: Path, home: Path, system: str, burst: bool) -> None:
    """Type every sequence of ``system`` into a gmdesk on ``saves``: each in one write
    (``burst``) or key by key once the screen has settled."""
    desk = PtyDesk(saves, home)
    try:
        desk.wait_for(b"Enter opens")  # the picker is up (the terminal in raw mode)
        desk.settle()
        for sequence in for_system(system):
            keys = terminal_bytes(sequence.for_system(system))
            try:
                if burst:
                    desk.write(b"".join(keys))
                else:
                    for key in keys:
                        desk.write(key)
                        desk.settle()
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


def test_every_sequence_typed_ahead_matches_typing_it_slowly(tmp_path: Path) -> None:
    runs: dict[tuple[str, bool], Path] = {}
    threads = []
    errors: list[str] = []
    for system in SYSTEMS:
        for burst in (False, True):
            where = tmp_path / f"{system}-{'burst' if burst else 'slow'}"
            path = harness_save(where, system)
            home = where / "home"
            home.mkdir()
            runs[(system, burst)] = path

            def run(path: Path = path, home: Path = home, system: str = system, burst: bool = burst) -> None:
                try:
                    drive(path.parent, home, system, burst)
                except Exception as e:  # reported below, with the system
                    errors.append(f"{system} {'burst' if burst else 'slow'}: {e!r}")

            threads.append(threading.Thread(target=run))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    problems = []
    for system in SYSTEMS:
        slow_sessions = sessions_of(runs[(system, False)].parent)
        fast_sessions = sessions_of(runs[(system, True)].parent)
        types = {e["type"] for e in events_of(runs[(system, False)])}  # the session the desk's keys play
        for sequence in for_system(system):
            if sequence.saves and sequence.saves not in types:
                problems.append(f"{system}: the slow run logged no {sequence.saves} ({sequence.name})")
            if sequence.creates and sequence.creates not in slow_sessions:
                problems.append(f"{system}: the slow run made no session {sequence.creates!r} ({sequence.name})")
        if sorted(slow_sessions) != sorted(fast_sessions):
            problems.append(
                f"{system}: sessions typed slowly {sorted(slow_sessions)}, typed ahead {sorted(fast_sessions)}"
            )
        for session in sorted(set(slow_sessions) & set(fast_sessions)):
            slow, fast = slow_sessions[session], fast_sessions[session]
            for i, (a, b) in enumerate(zip(slow, fast, strict=False)):
                if a != b:
                    problems.append(f"{system} {session!r}: event {i} typed slowly {a}\n    typed ahead {b}")
                    break
            if len(slow) != len(fast):
                problems.append(f"{system} {session!r}: {len(slow)} events typed slowly, {len(fast)} typed ahead")
    assert not problems, "\n".join(problems)


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
