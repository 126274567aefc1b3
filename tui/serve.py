"""``gmdesk serve SAVE``: the read-only player view in the players' browsers.

The server is textual-serve's (the Textual project's own: aiohttp, with the web
client inside the package, so it works on a table's offline network); gmdesk adds
what a table needs around it:

Access token
    A random token (``secrets.token_urlsafe``, 128 bits) is made at every start and
    every URL lives under it: the page ``/TOKEN/``, the websocket ``/TOKEN/ws``, the
    client files ``/TOKEN/static/…``. Any other request — no token, a wrong one, a
    stray ``/favicon.ico`` — gets ``403`` and a short page, checked (in constant
    time) by a middleware before any handler runs, so it never starts a process.
    The token is required on loopback too: other users of a shared machine can reach
    ``127.0.0.1``. The token sits in the path rather than a query (``?token=``) because
    the web client appends its own query (``?width=…``) to the websocket URL.

One process per viewer, capped
    Each websocket (a browser tab) gets its own ``gmdesk view SAVE`` process, started
    without a shell (the save's path goes as one argument) in a session of its own, and
    told to die with the server (``PR_SET_PDEATHSIG``) should the server itself be
    killed. ``gmdesk view`` opens the save read-only: no lock, never a write, so the
    GM's desk and the CLI keep writing as usual. ``--max-viewers`` counts live
    processes: when they are all taken, the page says "the table is full" (503) and a
    websocket that races in gets the same words on its terminal and no process.

Clean stop
    Ctrl+C, SIGTERM and SIGHUP stop serving: every viewer is asked to quit (the
    player view closes its read-only follower), any still running after
    :data:`QUIT_GRACE` seconds is killed, the browsers' websockets are closed and the
    server exits — all within :data:`STOP_SECONDS` (one second).

What reaches the browser
    Only what the player view draws: the page carries no session data at all, the
    websocket carries the player view's screen. The player view never shows the GM's
    secrets (the parameters a system declares secret) or notes; see :mod:`tui.screens.player`. The
    download route of textual-serve is left out (the player view delivers no files).

The URL is printed at start; for a host other than loopback it is also printed as a
QR code (segno, half-block characters) for phones, with this machine's address on
the table's network when the host is ``0.0.0.0`` / ``::``. One line is printed when a
viewer joins or leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
import ipaddress
import json
import os
import secrets
import shlex
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from gmdesk.core.errors import GmdeskError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_VIEWERS = 12

#: Seconds a viewer gets to quit by itself before it is killed.
QUIT_GRACE = 0.4
#: Everything is stopped within this many seconds of Ctrl+C / SIGTERM / SIGHUP.
STOP_SECONDS = 1.0
#: Terminal size a browser may ask for (cells); anything else is clamped.
SIZE_LIMITS = ((10, 500), (5, 300))

STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

TEMPLATES = Path(__file__).resolve().parent / "serve_templates"


class ServeError(GmdeskError):
    """The server cannot start (port taken, address not on this machine …)."""


# ---------------------------------------------------------------------------
# addresses and the banner
# ---------------------------------------------------------------------------


def new_token() -> str:
    return secrets.token_urlsafe(16)


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host.strip("[]") in ("0.0.0.0", "::", "")


def lan_address() -> str | None:
    """This machine's address on its default route (how a phone on the table's network
    reaches it), or None. A UDP ``connect`` sends no packet; it only picks the route."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere for real
        address = s.getsockname()[0]
        if address and not address.startswith("0."):
            return address
    with contextlib.suppress(OSError):
        address = socket.gethostbyname(socket.gethostname())
        if address and not is_loopback(address):
            return address
    return None


def url_for(host: str, port: int, token: str) -> str:
    host = host.strip("[]")
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/{token}/"


def viewer_urls(host: str, port: int, token: str) -> tuple[str, str | None]:
    """(the URL to print, the URL for phones or None on loopback)."""
    if is_loopback(host):
        return url_for(host, port, token), None
    if is_wildcard(host):
        lan = lan_address()
        local = url_for("127.0.0.1" if ":" not in host else "::1", port, token)
        return local, (url_for(lan, port, token) if lan else None)
    url = url_for(host, port, token)
    return url, url


def qr_text(url: str) -> str:
    """The URL as a QR code in half-block characters (two modules a line)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def banner(save_name: str, host: str, port: int, token: str, max_viewers: int) -> str:
    """What ``gmdesk serve`` prints at start."""
    local, table = viewer_urls(host, port, token)
    lines = [f"gmdesk serve · {save_name} · the read-only player view in a browser", ""]
    if table is None and not is_loopback(host):
        lines += [
            f"  Open:  {local}",
            "  (this machine's address on the table's network was not found; use it in place of 127.0.0.1)",
        ]
    elif table is None:
        lines += [f"  Open:  {local}", "  (this machine only; --host 0.0.0.0 serves the table's network)"]
    elif table == local:
        lines += [f"  Open:  {table}"]
    else:
        lines += [f"  At the table:     {table}", f"  On this machine:  {local}"]
    if table is not None:
        lines += ["", qr_text(table).rstrip("\n")]
    lines += [
        "",
        f"  Up to {max_viewers} viewers, each one read-only. The link is the key: share",
        "  it only with the table, on a network you trust (plain HTTP, not for the",
        "  internet). Ctrl+C stops serving.",
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# one viewer process
# ---------------------------------------------------------------------------


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


class ViewerService(AppService):
    """textual-serve's AppService for one ``gmdesk view`` process: started without a
    shell in its own session, and stopped within a bounded time."""

    def __init__(self, argv: list[str], **kwargs: Any) -> None:
        super().__init__(shlex.join(argv), **kwargs)
        self.argv = argv
        self._stopping: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

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

    async def stop(self, grace: float = QUIT_GRACE) -> None:
        """Ask the viewer to quit; kill it if it has not after ``grace`` seconds.
        Concurrent calls share one stop."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop(grace))
        await asyncio.shield(self._stopping)

    async def _stop(self, grace: float) -> None:
        task = self._task
        process = self._process
        if process is not None and process.returncode is None:
            loop = asyncio.get_running_loop()
            until = loop.time() + grace
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.send_meta({"type": "quit"}), grace)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), max(0.01, until - loop.time()))
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(process.wait(), 0.3)
        if task is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), 0.2)
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self._task = None


# ---------------------------------------------------------------------------
# the server
# ---------------------------------------------------------------------------


def _info_page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">'
        f"<title>{html.escape(title)}</title><style>body{{background:#0c181f;color:#eee;"
        "font-family:'Roboto Mono',menlo,monospace;margin:0;padding:2em 1em;line-height:1.5}"
        "main{max-width:36em;margin:auto}h1{font-size:1.3em}</style></head><body><main>"
        f"<h1>{html.escape(title)}</h1>{body}</main></body></html>"
    )


FORBIDDEN_PAGE = _info_page(
    "gmdesk: this link needs its access token",
    "<p>This player view is only open with the full link that <code>gmdesk serve</code> "
    "printed where it runs (the part after the address is the key). Ask the GM for it.</p>",
)


def full_page(max_viewers: int) -> str:
    return _info_page(
        "The table is full",
        f"<p>All the player views this table allows ({max_viewers}) are open. Close the player "
        "view in another tab or on another device, then reload this page — or ask the GM "
        "to serve more (<code>--max-viewers</code>).</p>"
        '<p><button onclick="location.reload()">Reload</button></p>',
    )


def full_terminal_text(max_viewers: int) -> bytes:
    """The same words for a websocket that arrived after the table filled up."""
    text = (
        f"The table is full: all the player views it allows ({max_viewers}) are open.\r\n\r\n"
        "Close one in another tab or on another device, then reload this page.\r\n"
    )
    return ("\x1b[2J\x1b[H" + text).encode()


class PlayerServer(Server):
    """textual-serve's Server for the player view of one save (see the module docstring).

    ``out`` receives the banner and the join / leave lines; ``on_ready(port)`` is
    called once the socket is bound (tests and the benchmark use ``port=0``).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        max_viewers: int = DEFAULT_MAX_VIEWERS,
        token: str | None = None,
        out: TextIO | None = None,
        command: list[str] | None = None,
    ) -> None:
        self.path = Path(path).resolve()
        self.argv = command or viewer_command(self.path)
        super().__init__(shlex.join(self.argv), host=host, port=port, title=f"{self.path.stem} · gmdesk")
        self.max_viewers = max_viewers
        self.token = token or new_token()
        self.out = out if out is not None else sys.stdout
        self.services: set[ViewerService] = set()
        self.sockets: set[web.WebSocketResponse] = set()
        self.live = 0  # viewers counted against the cap (taken before the process starts)
        self.started = 0  # processes started since the server started
        self.bound_port: int | None = None
        self._stop_event: asyncio.Event | None = None
        self._jinja = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)

    # -- output -----------------------------------------------------------------
    def say(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            print(text, file=self.out, flush=True)

    # -- the aiohttp application ---------------------------------------------------
    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._token_middleware])
        prefix = f"/{self.token}"
        app.add_routes(
            [
                web.get(prefix, self.handle_redirect),
                web.get(prefix + "/", self.handle_index, name="index"),
                web.get(prefix + "/ws", self.handle_websocket, name="websocket"),
                web.static(prefix + "/static", self.statics_path, name="static"),
            ]
        )
        return app

    @web.middleware
    async def _token_middleware(self, request: web.Request, handler: Callable[..., Any]) -> web.StreamResponse:
        first = request.path.lstrip("/").split("/", 1)[0]
        if not hmac.compare_digest(first.encode(), self.token.encode()):
            return web.Response(
                status=403, text=FORBIDDEN_PAGE, content_type="text/html", headers={"Cache-Control": "no-store"}
            )
        response = await handler(request)
        with contextlib.suppress(Exception):
            response.headers.setdefault("Cache-Control", "no-store")
            response.headers.setdefault("Referrer-Policy", "no-referrer")
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    async def handle_redirect(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(f"/{self.token}/")

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        if self.live >= self.max_viewers:
            return web.Response(status=503, text=full_page(self.max_viewers), content_type="text/html")
        font_size = max(8, min(40, to_int(request.query.get("fontsize", "16"), 16)))
        scheme = "wss" if request.secure else "ws"
        page = self._jinja.get_template("player.html").render(
            title=self.title,
            static_url=f"/{self.token}/static/",
            websocket_url=f"{scheme}://{request.host}/{self.token}/ws",
            font_size=font_size,
        )
        return web.Response(text=page, content_type="text/html")

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        (wmin, wmax), (hmin, hmax) = SIZE_LIMITS
        width = max(wmin, min(wmax, to_int(request.query.get("width", "80"), 80)))
        height = max(hmin, min(hmax, to_int(request.query.get("height", "24"), 24)))
        websocket = web.WebSocketResponse(heartbeat=15, timeout=0.2)
        if self.live >= self.max_viewers or self._stopping():
            await websocket.prepare(request)
            self.sockets.add(websocket)
            try:
                await websocket.send_bytes(full_terminal_text(self.max_viewers))
                async for message in websocket:  # no process: wait for the tab to go
                    if message.type == WSMsgType.TEXT:
                        with contextlib.suppress(Exception):
                            envelope = json.loads(message.data)
                            if envelope[0] == "ping":
                                await websocket.send_json(["pong", envelope[1]])
            finally:
                self.sockets.discard(websocket)
            return websocket

        self.live += 1  # taken before any await: concurrent sockets never pass the cap
        service: ViewerService | None = None
        peer = request.remote or "?"
        try:
            await websocket.prepare(request)
            self.sockets.add(websocket)
            service = ViewerService(
                self.argv,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
            )
            self.services.add(service)
            await service.start(width, height)
            self.started += 1
            self.say(f"viewer joined from {peer} ({self.live} of {self.max_viewers}, {width}×{height})")
            try:
                await self._process_messages(websocket, service)
            finally:
                await service.stop()
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await websocket.close()
        except Exception as error:  # a viewer that fails must not take the server down
            self.say(f"viewer from {peer} failed: {error}")
        finally:
            if service is not None:
                await service.stop()
                self.services.discard(service)
            self.sockets.discard(websocket)
            self.live -= 1
            if service is not None:
                self.say(f"viewer from {peer} left ({self.live} of {self.max_viewers})")
        return websocket

    # -- running and stopping ----------------------------------------------------------
    def _stopping(self) -> bool:
        return self._stop_event is not None and self._stop_event.is_set()

    def request_exit(self) -> None:
        if self._stop_event is not None:
            self._stop_event.set()

    def serve(self, debug: bool = False) -> int:  # type: ignore[override]
        """Serve until Ctrl+C / SIGTERM / SIGHUP; returns the exit status."""
        return asyncio.run(self.run())

    async def run(self, on_ready: Callable[[int], None] | None = None, install_signals: bool = True) -> int:
        loop = asyncio.get_running_loop()
        self._stop_event = asyncio.Event()
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None, shutdown_timeout=0.2)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
        try:
            await site.start()
        except OSError as e:
            await runner.cleanup()
            raise ServeError(_bind_error(self.host, self.port, e)) from None
        addresses = runner.addresses
        self.bound_port = int(addresses[0][1]) if addresses else self.port
        installed: list[int] = []
        if install_signals:
            for sig in STOP_SIGNALS:
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self.request_exit)
                    installed.append(sig)
        try:
            self.say(banner(self.path.stem, self.host, self.bound_port, self.token, self.max_viewers))
            if on_ready is not None:
                on_ready(self.bound_port)
            await self._stop_event.wait()
        finally:
            # one budget for everything, with room left for the interpreter to exit
            deadline = loop.time() + STOP_SECONDS - 0.15
            if self._stop_event.is_set():
                self.say("stopping: closing every player view…")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.stop_viewers(), max(0.05, deadline - loop.time() - 0.3))
            self.kill_viewers()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._reap(), max(0.05, deadline - loop.time() - 0.1))
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(runner.cleanup(), max(0.05, deadline - loop.time()))
            for sig in installed:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
        self.say("stopped.")
        return 0

    async def stop_viewers(self) -> None:
        """Every viewer quits (or is killed), then every browser's websocket is closed."""
        await asyncio.gather(*(s.stop(QUIT_GRACE) for s in list(self.services)), return_exceptions=True)
        await asyncio.gather(
            *(ws.close(code=1001, message=b"gmdesk serve stopped") for ws in list(self.sockets)), return_exceptions=True
        )

    async def _reap(self) -> None:
        """Wait for the killed viewers to be gone."""
        processes = [s._process for s in list(self.services) if s._process is not None]
        await asyncio.gather(*(p.wait() for p in processes if p.returncode is None), return_exceptions=True)

    def kill_viewers(self) -> None:
        """Last resort at the deadline: no viewer process outlives the server."""
        for service in list(self.services):
            process = service._process
            if process is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)

    def viewer_pids(self) -> list[int]:
        return [s.pid for s in self.services if s.running and s.pid is not None]


def _bind_error(host: str, port: int, error: OSError) -> str:
    import errno

    if error.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is already in use; choose another with --port"
    if error.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(error, socket.gaierror):
        return f"cannot serve on {host!r}: not an address of this machine (try --host 0.0.0.0)"
    if error.errno == errno.EACCES:
        return f"not allowed to serve on port {port} (ports below 1024 need privileges; try --port 8000)"
    return f"cannot serve on {host}:{port}: {error.strerror or error}"


def run_server(
    path: str | Path, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, max_viewers: int = DEFAULT_MAX_VIEWERS
) -> int:
    """``gmdesk serve``: serve until stopped; returns the exit status."""
    server = PlayerServer(path, host=host, port=port, max_viewers=max_viewers)
    return server.serve()


__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_VIEWERS",
    "DEFAULT_PORT",
    "PlayerServer",
    "ServeError",
    "banner",
    "qr_text",
    "run_server",
    "viewer_command",
    "viewer_urls",
]
