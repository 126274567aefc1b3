"""``gmdesk serve SAVE``: the read-only player view in the players' browsers, and
(``--ssh-port``) in their own terminals over SSH (:mod:`tui.serve_ssh`).

The web server is textual-serve's (the Textual project's own: aiohttp, with the web
client inside the package, so it works on a table's offline network); gmdesk adds
what a table needs around it, and takes nothing a browser sends on trust:

Access token
    A random token (``secrets.token_urlsafe``, 128 bits) is made at every start and
    every URL lives under it: the page ``/TOKEN/``, the websocket ``/TOKEN/ws``, the
    client files ``/TOKEN/static/…``. Any other request — no token, a wrong one, a
    stray ``/favicon.ico`` — gets ``403`` and a short page, checked (in constant
    time) by a middleware before any handler runs, so it never starts a process.
    The token is required on loopback too: other users of a shared machine can reach
    ``127.0.0.1``. It is also the SSH password.

Only the addresses it announced
    The websocket is accepted only from a page of the URLs ``serve`` printed (its
    ``Origin``: scheme, host and port; with ``--host 0.0.0.0`` the addresses it
    listed); a request without an ``Upgrade`` gets ``400``. The page names its
    websocket with one of those URLs, never with the request's ``Host`` header; a
    page asked for under another name says which link to open.

Every message checked
    A browser's message is one of the client's (keys, a resize, a ping, focus, blur),
    each field of the right type (:mod:`tui.serve_messages`); a size is held to
    :data:`SIZE_LIMITS` (500 × 300 cells) on connecting and on every resize. Anything
    else closes that viewer with one line in the log.

One process per viewer, capped
    Each websocket (a browser tab) and each SSH session gets its own ``gmdesk view
    SAVE`` process (:mod:`tui.serve_viewer`). ``gmdesk view`` opens the save
    read-only: no lock, never a write, so the GM's desk and the CLI keep writing as
    usual. ``--max-viewers`` counts browser and SSH viewers together: when they are
    all taken, the page says "the table is full" (503), and a websocket or an SSH
    session that races in gets the same words and no process.

Clean stop
    Ctrl+C, SIGTERM and SIGHUP stop serving: every viewer is asked to quit, any still
    running after :data:`QUIT_GRACE` seconds is killed, the browsers' websockets and
    the SSH sessions are closed and the server exits — all within
    :data:`STOP_SECONDS` (one second).

What reaches a player
    Only what the player view draws: the page carries no session data at all, the
    websocket and the SSH channel carry the player view's screen. The player view
    never shows the GM's secrets, has no command palette and no command that leaves
    it (:mod:`tui.screens.player`); textual-serve's download route is left out and a
    viewer's requests to open a URL or deliver a file are dropped.

The log
    One line per event, each true when printed: a viewer joined (with how many are
    watching, counting it), left, was closed for a bad message, or failed to start;
    a refused request says why in one line, never with a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
import logging
import os
import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import jinja2
from aiohttp import WSMsgType, web
from aiohttp.typedefs import Handler
from textual_serve.server import Server

from gmdesk.tui.serve_banner import banner, new_token, origin_of, qr_text, url_for, viewer_urls
from gmdesk.tui.serve_messages import MAX_MESSAGE, BadMessage, parse_message, parse_size, query_number
from gmdesk.tui.serve_seats import ServeError, bind_error, full_terminal_text
from gmdesk.tui.serve_viewer import QUIT_GRACE, SIZE_LIMITS, ViewerService, viewer_command

if TYPE_CHECKING:
    from gmdesk.tui.serve_ssh import SshFront

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_VIEWERS = 12

#: Everything is stopped within this many seconds of Ctrl+C / SIGTERM / SIGHUP.
STOP_SECONDS = 1.0

STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

TEMPLATES = Path(__file__).resolve().parent / "serve_templates"


# ---------------------------------------------------------------------------
# pages
# ---------------------------------------------------------------------------


def _info_page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">'
        f"<title>{html.escape(title)}</title><style>body{{background:#0c181f;color:#eee;"
        "font-family:'Roboto Mono',menlo,monospace;margin:0;padding:2em 1em;line-height:1.5}"
        "a{color:#9cf}main{max-width:36em;margin:auto}h1{font-size:1.3em}</style></head><body><main>"
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


def elsewhere_page(urls: list[str]) -> str:
    """For a page asked for under a name ``serve`` did not announce."""
    links = "".join(f'<li><a href="{html.escape(u)}">{html.escape(u)}</a></li>' for u in urls)
    return _info_page(
        "Open the player view at the link gmdesk serve printed",
        f"<p>This table's player view is served at:</p><ul>{links}</ul>",
    )


class _OneLineLog(logging.Handler):
    """aiohttp's own reports (a malformed request …) as one line each, no traceback."""

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.say = say

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            text = (record.getMessage().strip().splitlines() or [""])[0]
            if record.exc_info and record.exc_info[1] is not None:
                error = record.exc_info[1]
                text += f": {type(error).__name__}: {(str(error).splitlines() or [''])[0]}"
            self.say(f"refused: {text[:300]}")


# ---------------------------------------------------------------------------
# the server
# ---------------------------------------------------------------------------


class PlayerServer(Server):
    """textual-serve's Server for the player view of one save (see the module docstring).

    ``out`` receives the banner and the log lines; ``on_ready(port)`` is called once
    the sockets are bound (tests and the benchmark use ``port=0``). ``ssh_port``
    (None: no SSH) and ``authorized_keys`` set up :mod:`tui.serve_ssh`.
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
        ssh_port: int | None = None,
        authorized_keys: Path | None = None,
    ) -> None:
        self.path = Path(path).resolve()
        self.argv = command or viewer_command(self.path)
        super().__init__(shlex.join(self.argv), host=host, port=port, title=f"{self.path.stem} · gmdesk")
        self.max_viewers = max_viewers
        self.token = token or new_token()
        self.out = out if out is not None else sys.stdout
        self.services: set[ViewerService] = set()
        self.sockets: set[web.WebSocketResponse] = set()
        self.live = 0  # seats taken (browser and SSH), taken before any process starts
        self.viewing = 0  # viewers whose process started and who have not left (the log's count)
        self.started = 0  # processes started since the server started
        self.bound_port: int | None = None
        self.urls: list[str] = []  # the URLs announced (set once bound)
        self._origins: set[tuple[str, str, int | None]] = set()
        self._stop_event: asyncio.Event | None = None
        self._jinja = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
        self.ssh: SshFront | None = None
        if ssh_port is not None:
            from gmdesk.tui.serve_ssh import SshFront  # asyncssh: only with --ssh-port

            self.ssh = SshFront(self, ssh_port, authorized_keys)

    # -- output and seats --------------------------------------------------------------
    def say(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            print(text, file=self.out, flush=True)

    def take_seat(self) -> bool:
        """One viewer more, if the table has room (synchronous: no race past the cap)."""
        if self.live >= self.max_viewers or self._stopping():
            return False
        self.live += 1
        return True

    def release_seat(self) -> None:
        self.live -= 1

    def joined(self, who: str, detail: str) -> None:
        """A viewer's process started: one line, its count true when printed."""
        self.viewing += 1
        self.started += 1
        self.say(f"{who} ({self.viewing} of {self.max_viewers}, {detail})")

    def left(self, what: str) -> None:
        self.viewing -= 1
        self.say(f"{what} ({self.viewing} of {self.max_viewers})")

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
    async def _token_middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
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

    def announce(self, port: int) -> None:
        """The URLs the banner prints for ``port``: the only origins the websocket takes."""
        self.urls = list(dict.fromkeys(u for u in viewer_urls(self.host, port, self.token) if u))

    def announced(self, origin: str) -> str | None:
        """The announced URL whose origin ``origin`` (scheme://host[:port]) is, or None."""
        with contextlib.suppress(ValueError, TypeError):
            key = origin_of(origin)
            for url in self.urls:
                if origin_of(url) == key:
                    return url
        return None

    async def handle_redirect(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(f"/{self.token}/")

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        url = self.announced(f"http://{request.host}")
        if url is None:  # a name serve did not print: say which link to open
            return web.Response(status=421, text=elsewhere_page(self.urls), content_type="text/html")
        if self.live >= self.max_viewers:
            return web.Response(status=503, text=full_page(self.max_viewers), content_type="text/html")
        query = request.query.get("fontsize", "")
        font_size = max(8, min(40, int(query))) if query.isdigit() and len(query) < 4 else 0
        page = self._jinja.get_template("player.html").render(
            title=self.title,
            static_url=f"/{self.token}/static/",
            websocket_url="ws" + url[4:] + "ws",
            font_size=font_size or 16,
            font_size_chosen="yes" if font_size else "",
        )
        return web.Response(text=page, content_type="text/html")

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        peer = request.remote or "?"
        websocket = web.WebSocketResponse(heartbeat=15, timeout=0.2, max_msg_size=MAX_MESSAGE)
        if not websocket.can_prepare(request).ok:
            return web.Response(status=400, text="gmdesk serve: this address is the player view's websocket\n")
        origin = request.headers.get("Origin")
        if origin is not None and self.announced(origin) is None:
            self.say(f"refused a websocket from {peer}: its page came from {origin[:100]!r}, not a link serve printed")
            return web.Response(status=403, text="gmdesk serve: open the link gmdesk serve printed\n")
        try:
            width, height = parse_size(
                *(query_number(request.query.get(k, d)) for k, d in (("width", "80"), ("height", "24")))
            )
        except BadMessage as e:
            return web.Response(status=400, text=f"gmdesk serve: the terminal's size: {e}\n")
        if not self.take_seat():
            return await self._full(request, websocket)
        service: ViewerService | None = None
        ended = f"viewer from {peer} left"
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
            self.joined(f"viewer joined from {peer}", f"{width}×{height}")
            try:
                bad = await self._process_messages(websocket, service)
            finally:
                await service.stop()
            if bad is not None:
                ended = f"viewer from {peer} closed: a bad message ({bad})"
            elif service.failure is not None:
                ended = f"viewer from {peer} failed: the player view ended: {service.failure}"
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await websocket.close()
        except Exception as error:  # a viewer that fails must not take the server down
            ended = f"viewer from {peer} failed: {type(error).__name__}: {error}"
        finally:
            if service is not None:
                await service.stop()
                self.services.discard(service)
            self.sockets.discard(websocket)
            self.release_seat()
            if service is not None and service.pid is not None:
                self.left(ended)
            elif service is not None:
                self.say(ended)
        return websocket

    async def _full(self, request: web.Request, websocket: web.WebSocketResponse) -> web.WebSocketResponse:
        """No seat: the words on the tab's terminal, no process, until the tab goes."""
        await websocket.prepare(request)
        self.sockets.add(websocket)
        try:
            await websocket.send_bytes(full_terminal_text(self.max_viewers))
            async for message in websocket:
                if message.type == WSMsgType.TEXT:
                    with contextlib.suppress(BadMessage):
                        kind, data = parse_message(message.data)
                        if kind == "ping":
                            await websocket.send_json(["pong", data])
        finally:
            self.sockets.discard(websocket)
        return websocket

    async def _process_messages(  # type: ignore[override]
        self, websocket: web.WebSocketResponse, app_service: Any
    ) -> str | None:
        """The browser's messages to its viewer until the tab goes; returns what was
        wrong with a bad message (which closes the websocket), or None."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                error = websocket.exception()
                what = f"{message.type.name.lower()} frame" if error is None else f"{error}"
                await websocket.close(code=1003 if error is None else 1009, message=b"bad message")
                return what[:200]
            try:
                kind, data = parse_message(message.data)
            except BadMessage as e:
                await websocket.close(code=1003, message=b"bad message")
                return str(e)
            if kind == "stdin":
                await app_service.send_bytes(data.encode("utf-8"))
            elif kind == "resize":
                await app_service.set_terminal_size(*data)
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()
        return None

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
        aiohttp_log = logging.getLogger("aiohttp")
        quiet = _OneLineLog(self.say)
        aiohttp_log.addHandler(quiet)
        aiohttp_log.propagate = False
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None, shutdown_timeout=0.2)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
        try:
            await site.start()
        except OSError as e:
            await runner.cleanup()
            raise ServeError(bind_error(self.host, self.port, e)) from None
        addresses = runner.addresses
        self.bound_port = int(addresses[0][1]) if addresses else self.port
        self.announce(self.bound_port)
        if self.ssh is not None:
            try:
                await self.ssh.start()
            except BaseException:
                await runner.cleanup()
                raise
        installed: list[int] = []
        if install_signals:
            for sig in STOP_SIGNALS:
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self.request_exit)
                    installed.append(sig)
        try:
            ssh = None if self.ssh is None else (self.ssh.bound_port, self.ssh.fingerprint, self.ssh.keys_accepted)
            self.say(banner(self.path.stem, self.host, self.bound_port, self.token, self.max_viewers, ssh))
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
            if self.ssh is not None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.ssh.close(), max(0.05, deadline - loop.time()))
            for sig in installed:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
            aiohttp_log.removeHandler(quiet)
            aiohttp_log.propagate = True
        self.say("stopped.")
        return 0

    async def stop_viewers(self) -> None:
        """Every viewer quits (or is killed), then every browser's websocket and SSH session is closed."""
        stops = [s.stop(QUIT_GRACE) for s in list(self.services)]
        if self.ssh is not None:
            stops.append(self.ssh.stop_viewers())
        await asyncio.gather(*stops, return_exceptions=True)
        await asyncio.gather(
            *(ws.close(code=1001, message=b"gmdesk serve stopped") for ws in list(self.sockets)), return_exceptions=True
        )

    def _processes(self) -> list[asyncio.subprocess.Process]:
        found = [s.process for s in list(self.services)]
        if self.ssh is not None:
            found += self.ssh.processes()
        return [p for p in found if p is not None]

    async def _reap(self) -> None:
        """Wait for the killed viewers to be gone."""
        await asyncio.gather(*(p.wait() for p in self._processes() if p.returncode is None), return_exceptions=True)

    def kill_viewers(self) -> None:
        """Last resort at the deadline: no viewer process outlives the server."""
        for process in self._processes():
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)

    def viewer_pids(self) -> list[int]:
        return [p.pid for p in self._processes() if p.returncode is None]


def run_server(
    path: str | Path,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    max_viewers: int = DEFAULT_MAX_VIEWERS,
    ssh_port: int | None = None,
    authorized_keys: Path | None = None,
) -> int:
    """``gmdesk serve``: serve until stopped, then exit the process at once with its
    status: every viewer is reaped and every socket closed by then, and the
    interpreter's own teardown of the web and SSH libraries would take the stop past
    its one second."""
    server = PlayerServer(
        path, host=host, port=port, max_viewers=max_viewers, ssh_port=ssh_port, authorized_keys=authorized_keys
    )
    status = server.serve()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_VIEWERS",
    "DEFAULT_PORT",
    "SIZE_LIMITS",
    "BadMessage",
    "PlayerServer",
    "ServeError",
    "banner",
    "parse_message",
    "qr_text",
    "run_server",
    "url_for",
    "viewer_command",
    "viewer_urls",
]
