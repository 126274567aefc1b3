"""``gmdesk serve SAVE --ssh-port PORT``: the player view in the players' own terminals.

asyncssh (a maintained SSH library; Textual has no SSH server of its own) listens on
the same host as the browser side. Each session gets a ``gmdesk view`` process of its
own on a pseudo-terminal of the client's size, following its window's resizes
(:class:`tui.serve_viewer.PtyViewer`) — the read-only player view, exactly as in a
local terminal. Nothing else: no shell, no exec, no subsystem (sftp, scp), no port,
agent or X11 forwarding. Any user name is accepted.

Authentication
    The password is the token of the browser link, or a public key listed in
    ``--authorized-keys FILE`` (OpenSSH's format); anything else is refused. After
    :data:`FAILS_PER_MINUTE` wrong passwords within a minute, an address waits: every
    login from it is refused until the oldest of them is a minute old.

The host key
    Made once (Ed25519), mode 0600, in gmdesk's own state directory
    (``platformdirs.user_state_dir("gmdesk")``, not the saves directory GMs sync and
    share), then only read: players' ``known_hosts`` stay valid from one night to the
    next. Its fingerprint is printed at start. No gmdesk verb writes over it; a key
    file that cannot be read, or that others can read, is reported, never replaced.

The seats
    ``--max-viewers`` counts SSH and browser viewers together (the server's seats);
    stopping ``serve`` stops every viewer and closes every SSH session.

This module is imported only when ``--ssh-port`` is given; without asyncssh that says
in one line what to install.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import os
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gmdesk.core.errors import GmdeskError

try:
    import asyncssh
except ImportError:  # pragma: no cover - the message is tested with asyncssh hidden
    raise GmdeskError("gmdesk serve: --ssh-port needs asyncssh: pip install 'gmdesk[ssh]'") from None

from gmdesk.tui.serve_seats import ServeError, Table, bind_error, full_terminal_text
from gmdesk.tui.serve_viewer import PtyViewer, clamp_size

#: Wrong passwords from one address within :data:`FAIL_WINDOW` seconds before it waits.
FAILS_PER_MINUTE = 5
FAIL_WINDOW = 60.0
#: Seconds a client has to log in.
LOGIN_TIMEOUT = 30
HOST_KEY_NAME = "ssh_host_ed25519_key"


def state_dir() -> Path:
    """gmdesk's own state directory (``$XDG_STATE_HOME/gmdesk`` on Linux)."""
    import platformdirs

    return Path(platformdirs.user_state_dir("gmdesk"))


def host_key(path: Path) -> asyncssh.SSHKey:
    """The server's host key at ``path``: read, or made once (mode 0600, never replaced)."""
    if not path.exists():
        key = asyncssh.generate_private_key("ssh-ed25519", comment="gmdesk serve")
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            part = path.with_name(f".{path.name}.{os.getpid()}.part")
            fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, key.export_private_key())
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(part, path)  # never over a key another serve made at the same moment
            except FileExistsError:
                pass
            finally:
                os.unlink(part)
        except OSError as e:
            raise ServeError(f"cannot make the SSH host key {path}: {e.strerror or e}") from None
    try:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            raise ServeError(f"the SSH host key {path} can be read by others (mode {mode:04o}); chmod 600 it")
        return asyncssh.read_private_key(path)
    except (OSError, asyncssh.KeyImportError) as e:
        raise ServeError(f"cannot read the SSH host key {path}: {getattr(e, 'strerror', None) or e}") from None


class Attempts:
    """Wrong passwords per address within a sliding minute."""

    def __init__(
        self, limit: int = FAILS_PER_MINUTE, window: float = FAIL_WINDOW, clock: Callable[[], float] = time.monotonic
    ):
        self.limit = limit
        self.window = window
        self.clock = clock
        self._fails: dict[str, deque[float]] = {}

    def _recent(self, address: str) -> deque[float]:
        fails = self._fails.get(address)
        if fails is None:
            return deque()
        now = self.clock()
        while fails and now - fails[0] >= self.window:
            fails.popleft()
        if not fails:
            del self._fails[address]
        return fails

    def waiting(self, address: str) -> bool:
        return len(self._recent(address)) >= self.limit

    def failed(self, address: str) -> None:
        self._recent(address)
        self._fails.setdefault(address, deque()).append(self.clock())


class _Login(asyncssh.SSHServer):
    """One SSH connection: who may log in, and its one kind of session."""

    def __init__(self, front: SshFront) -> None:
        self.front = front
        self.peer = "?"
        self.user = ""
        self._conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        self.front.connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._conn is not None:
            self.front.connections.discard(self._conn)

    def begin_auth(self, username: str) -> bool:
        self.user = username
        if self.front.authorized is not None and self._conn is not None and not self.front.attempts.waiting(self.peer):
            self._conn.set_authorized_keys(self.front.authorized)
        return True  # every user name needs the token or a listed key

    def password_auth_supported(self) -> bool:
        return True

    def public_key_auth_supported(self) -> bool:
        return self.front.authorized is not None

    def kbdint_auth_supported(self) -> bool:
        return False

    def host_based_auth_supported(self) -> bool:
        return False

    def validate_password(self, username: str, password: str) -> bool:
        attempts = self.front.attempts
        if attempts.waiting(self.peer):
            return False
        if hmac.compare_digest(password.encode("utf-8", "replace"), self.front.server.token.encode()):
            return True
        attempts.failed(self.peer)
        if attempts.waiting(self.peer):
            self.front.server.say(
                f"SSH login from {self.peer} refused: {attempts.limit} wrong passwords within a minute; it waits"
            )
        else:
            self.front.server.say(f"SSH login from {self.peer} refused: wrong password")
        return False

    def session_requested(self) -> asyncssh.SSHServerSession[bytes]:
        return _PlayerSession(self.front, self.peer, self.user)


class _PlayerSession(asyncssh.SSHServerSession[bytes]):
    """One SSH session: the player view on a terminal of the client's size."""

    def __init__(self, front: SshFront, peer: str, user: str) -> None:
        self.front = front
        self.peer = peer
        self.user = user
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term = "xterm-256color"
        self.size: tuple[int, int] | None = None
        self.viewer: PtyViewer | None = None
        self.seated = False
        self._ended = False

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.term = term_type or self.term
        width, height = term_size[0] or 80, term_size[1] or 24
        self.size = clamp_size(width, height)
        return True

    def shell_requested(self) -> bool:
        return True  # "the shell" is the player view

    def exec_requested(self, command: str) -> bool:
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        task = asyncio.ensure_future(self._start())
        self.front.tasks.add(task)
        task.add_done_callback(self.front.tasks.discard)

    async def _start(self) -> None:
        chan = self.chan
        assert chan is not None
        server = self.front.server
        if self.size is None:
            chan.write(b"gmdesk: the player view needs a terminal (ssh -t).\r\n")
            chan.exit(1)
            return
        if not server.take_seat():
            chan.write(full_terminal_text(server.max_viewers))
            chan.exit(1)
            return
        self.seated = True
        self.front.sessions.add(self)
        self.viewer = PtyViewer(server.argv, write=chan.write, on_end=self._viewer_ended, term=self.term)
        try:
            await self.viewer.start(*self.size)
        except OSError as e:
            server.say(f"SSH viewer from {self.peer} failed: {e}")
            self._viewer_ended()
            return
        server.joined(f"SSH viewer joined from {self.peer} as {self.user[:32]!r}", f"{self.size[0]}×{self.size[1]}")

    def data_received(self, data: bytes, datatype: Any) -> None:
        if self.viewer is not None:
            self.viewer.send(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if self.viewer is not None and width > 0 and height > 0:
            self.viewer.resize(width, height)

    def pause_writing(self) -> None:
        if self.viewer is not None:
            self.viewer.pause()

    def resume_writing(self) -> None:
        if self.viewer is not None:
            self.viewer.resume()

    def eof_received(self) -> bool:
        return False  # the client is done: close

    def _viewer_ended(self) -> None:
        """The player quit the view (or it was stopped): the session ends."""
        if self.chan is not None:
            with contextlib.suppress(Exception):
                self.chan.exit(0)

    def connection_lost(self, exc: Exception | None) -> None:
        task = asyncio.ensure_future(self.end())
        self.front.tasks.add(task)
        task.add_done_callback(self.front.tasks.discard)

    async def end(self) -> None:
        """Stop the viewer, free the seat, say so: once."""
        if self._ended:
            return
        self._ended = True
        if self.viewer is not None:
            await self.viewer.stop()
        if self.chan is not None:
            with contextlib.suppress(Exception):
                self.chan.close()
        self.front.sessions.discard(self)
        if self.seated:
            self.front.server.release_seat()
            if self.viewer is not None and self.viewer.pid is not None:
                self.front.server.left(f"SSH viewer from {self.peer} left")


class SshFront:
    """The SSH side of the player server (a :class:`tui.serve_seats.Table`; see the module docstring)."""

    def __init__(self, server: Table, port: int, authorized_keys: Path | None = None) -> None:
        self.server = server
        self.port = port
        self.bound_port = port
        self.authorized: asyncssh.SSHAuthorizedKeys | None = None
        if authorized_keys is not None:
            try:
                self.authorized = asyncssh.read_authorized_keys(str(authorized_keys))
            except (OSError, ValueError, asyncssh.KeyImportError) as e:
                raise ServeError(
                    f"--authorized-keys: cannot read {authorized_keys}: {getattr(e, 'strerror', None) or e}"
                ) from None
        self.key_path = state_dir() / HOST_KEY_NAME
        self.key = host_key(self.key_path)
        self.fingerprint = self.key.get_fingerprint("sha256")
        self.attempts = Attempts()
        self.connections: set[asyncssh.SSHServerConnection] = set()
        self.sessions: set[_PlayerSession] = set()
        self.tasks: set[asyncio.Future[None]] = set()
        self._acceptor: asyncssh.SSHAcceptor | None = None

    @property
    def keys_accepted(self) -> bool:
        return self.authorized is not None

    async def start(self) -> None:

        try:
            self._acceptor = await asyncssh.create_server(
                lambda: _Login(self),
                self.server.host,
                self.port,
                server_host_keys=[self.key],
                encoding=None,
                allow_pty=True,
                agent_forwarding=False,
                x11_forwarding=False,
                allow_scp=False,
                login_timeout=LOGIN_TIMEOUT,
                keepalive_interval=30,
                reuse_address=True,
            )
        except OSError as e:
            raise ServeError(bind_error(self.server.host, self.port, e, "--ssh-port")) from None
        self.bound_port = self._acceptor.get_port() or self.port

    def processes(self) -> list[asyncio.subprocess.Process]:
        return [s.viewer.process for s in list(self.sessions) if s.viewer is not None and s.viewer.process is not None]

    async def stop_viewers(self) -> None:
        """Every SSH viewer quits (or is killed) and its session is closed."""
        if self._acceptor is not None:
            self._acceptor.close()
        await asyncio.gather(*(s.end() for s in list(self.sessions)), return_exceptions=True)
        for conn in list(self.connections):
            conn.close()

    async def close(self) -> None:
        await self.stop_viewers()
        if self._acceptor is not None:
            with contextlib.suppress(Exception):
                await self._acceptor.wait_closed()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=0.2)
