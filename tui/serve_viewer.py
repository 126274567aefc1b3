"""One served viewer: a ``gmdesk view SAVE`` process of its own, for a browser tab
(:class:`ViewerService`, speaking textual-serve's protocol over pipes) or for a
player's SSH terminal (:class:`PtyViewer`, on a pseudo-terminal of the client's size).

Either way the process is started without a shell (the save's path is one argument),
in a session of its own, told to die with the server (``PR_SET_PDEATHSIG``), and
stopped within a bounded time: asked to quit, then killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import signal
import struct
import sys
import termios
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual_serve.app_service import AppService

#: Seconds a viewer gets to quit by itself before it is killed.
QUIT_GRACE = 0.4
#: Terminal size a viewer may have (cells): ((columns min, max), (rows min, max)).
SIZE_LIMITS = ((10, 500), (5, 300))
#: How much of a failed viewer's stderr is kept for the one line that reports it.
ERROR_TAIL = 4096


def clamp_size(width: int, height: int) -> tuple[int, int]:
    """A terminal size within :data:`SIZE_LIMITS`."""
    (wmin, wmax), (hmin, hmax) = SIZE_LIMITS
    return max(wmin, min(wmax, width)), max(hmin, min(hmax, height))


def last_line(data: bytes) -> str:
    """The last non-empty line of a process's stderr, for a one-line report."""
    lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    """The viewer gets SIGTERM if the server dies without stopping it (``kill -9``)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def viewer_command(path: Path) -> list[str]:
    """``gmdesk view PATH`` with this Python (no reliance on PATH, no shell)."""
    return [sys.executable, "-m", "gmdesk", "view", str(path)]


async def _end_process(process: asyncio.subprocess.Process, grace: float, ask: Callable[[], Awaitable[Any]]) -> None:
    """``ask`` the process to quit; after ``grace`` seconds kill its whole session."""
    if process.returncode is not None:
        return
    loop = asyncio.get_running_loop()
    until = loop.time() + grace
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ask(), grace)
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(process.wait(), max(0.01, until - loop.time()))
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), 0.3)


class ViewerService(AppService):
    """textual-serve's AppService for one ``gmdesk view`` process of a browser tab.

    Its protocol loop is gmdesk's own: the process's output goes to the browser and
    nothing else does — no file deliveries, no URL to open (a player has nothing to
    download and no page to be sent to) — and its stderr is kept, not printed, so the
    server can say in one line why a viewer failed (:attr:`failure`)."""

    def __init__(self, argv: list[str], **kwargs: Any) -> None:
        import shlex

        super().__init__(shlex.join(argv), **kwargs)
        self.argv = argv
        self.ready = False  # the process said it is a Textual app
        self.error_tail = b""
        self._stopping: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    @property
    def process(self) -> asyncio.subprocess.Process | None:
        return self._process

    @property
    def failure(self) -> str | None:
        """Why the process ended by itself without starting (None: it did not)."""
        if self.ready or self._stopping is not None or self._process is None or self._process.returncode is None:
            return None
        return last_line(self.error_tail) or f"exit status {self._process.returncode}"

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        env = self._build_environment(width=width, height=height)
        env.pop("TEXTUAL", None)  # no devtools in a served viewer
        kwargs: dict[str, Any] = {"start_new_session": True}
        if sys.platform.startswith("linux"):
            kwargs["preexec_fn"] = _die_with_parent
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            **kwargs,
        )
        self._stdin = process.stdin
        return process

    async def run(self) -> None:
        """The process's packets to the browser until it ends; then the tab is told."""
        process = self._process
        assert process is not None and process.stdout is not None and process.stderr is not None
        stdout, stderr = process.stdout, process.stderr
        tail = bytearray()

        async def read_stderr() -> None:
            with contextlib.suppress(Exception):
                while chunk := await stderr.read(4096):
                    tail.extend(chunk)
                    del tail[:-ERROR_TAIL]

        stderr_task = asyncio.create_task(read_stderr())
        try:
            for _ in range(10):  # the prelude says it is a Textual app
                line = await stdout.readline()
                if not line:
                    break
                if line == b"__GANGLION__\n":
                    self.ready = True
                    break
            while self.ready:
                kind = await stdout.readexactly(1)
                size = int.from_bytes(await stdout.readexactly(4), "big")
                payload = await stdout.readexactly(size)
                if kind == b"D":
                    await self.remote_write_bytes(payload)
                elif kind == b"M":
                    await self.on_meta(payload)
                # b"P" (packed): file deliveries — none for players
        except (asyncio.IncompleteReadError, ConnectionError, OSError, RuntimeError):
            pass
        finally:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), 0.5)
            stderr_task.cancel()
            await asyncio.gather(stderr_task, return_exceptions=True)
            self.error_tail = bytes(tail)
        with contextlib.suppress(Exception):
            await self.remote_close()

    async def on_meta(self, data: bytes) -> None:
        """Only the app's exit reaches the browser (the tab shows "closed")."""
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            if json.loads(data).get("type") == "exit":
                await self.remote_close()

    async def stop(self, grace: float = QUIT_GRACE) -> None:
        """Ask the viewer to quit; kill it if it has not after ``grace`` seconds.
        Concurrent calls share one stop."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop(grace))
        await asyncio.shield(self._stopping)

    async def _stop(self, grace: float) -> None:
        task = self._task
        if self._process is not None:
            await _end_process(self._process, grace, lambda: self.send_meta({"type": "quit"}))
        if task is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), 0.2)
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self._task = None


#: The server's environment a terminal viewer does not get: its size is the pty's,
#: its terminal the client's, and no devtools.
_NOT_INHERITED = frozenset({"COLUMNS", "LINES", "ROWS", "TERM", "TEXTUAL", "TEXTUAL_DRIVER", "TEXTUAL_FPS"})


def set_winsize(fd: int, width: int, height: int) -> None:
    """The pseudo-terminal's size (the viewer hears SIGWINCH)."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))


class PtyViewer:
    """One ``gmdesk view`` process on a pseudo-terminal: for an SSH client.

    ``write`` receives the terminal's output; ``pause()`` / ``resume()`` stop and
    restart reading it (the SSH channel's flow control, so a slow client never makes
    the server buffer without bound); ``on_end()`` is called once the process's
    terminal closed (it quit, or was stopped)."""

    def __init__(
        self,
        argv: list[str],
        *,
        write: Callable[[bytes], None],
        on_end: Callable[[], None],
        term: str = "xterm-256color",
    ) -> None:
        self.argv = argv
        self.write = write
        self.on_end = on_end
        self.term = term if term and term.isprintable() and len(term) < 64 else "xterm-256color"
        self.process: asyncio.subprocess.Process | None = None
        self.master: int | None = None
        self._reading = False
        self._ended = False
        self._stopping: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def start(self, width: int, height: int) -> None:
        import pty

        master, slave = pty.openpty()
        try:
            set_winsize(master, *clamp_size(width, height))
            os.set_blocking(master, False)
            env = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
            env.update(TERM=self.term, LANG="C.UTF-8", LC_ALL="C.UTF-8", COLORTERM="truecolor")

            def child() -> None:  # pragma: no cover - runs in the child, between fork and exec
                os.setsid()
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # the pty is its controlling terminal
                _die_with_parent()

            self.process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=slave, stdout=slave, stderr=slave, env=env, preexec_fn=child
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        self.resume()

    def resize(self, width: int, height: int) -> None:
        if self.master is not None:
            with contextlib.suppress(OSError):
                set_winsize(self.master, *clamp_size(width, height))

    def send(self, data: bytes) -> None:
        """Keys from the client (at most 4 KiB a message: a player's keys, not a paste)."""
        if self.master is not None:
            with contextlib.suppress(OSError):
                os.write(self.master, data[:4096])

    def pause(self) -> None:
        if self._reading and self.master is not None:
            asyncio.get_running_loop().remove_reader(self.master)
            self._reading = False

    def resume(self) -> None:
        if not self._reading and self.master is not None and not self._ended:
            asyncio.get_running_loop().add_reader(self.master, self._readable)
            self._reading = True

    def _readable(self) -> None:
        assert self.master is not None
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the process and its terminal are gone
            data = b""
        if data:
            try:
                self.write(data)
            except Exception:  # the client's channel is gone: so is this viewer's reason to run
                self._end()
        else:
            self._end()

    def _end(self) -> None:
        if self._ended:
            return
        self._ended = True
        self.pause()
        self.on_end()

    async def stop(self, grace: float = QUIT_GRACE) -> None:
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop(grace))
        await asyncio.shield(self._stopping)

    async def _stop(self, grace: float) -> None:
        process = self.process
        if process is not None:

            async def ask() -> None:  # the player view ends cleanly on SIGTERM (tui.terminal)
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)

            await _end_process(process, grace, ask)
        self._ended = True
        self.pause()
        if self.master is not None:
            with contextlib.suppress(OSError):
                os.close(self.master)
            self.master = None
