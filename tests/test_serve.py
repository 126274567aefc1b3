"""``gmdesk serve``: the read-only player view served to browsers (tui/serve.py).

The server runs as the real command (``python -m gmdesk serve … --port 0``) on
127.0.0.1 only; a browser is stood in for by aiohttp's websocket client, which
speaks textual-serve's protocol (binary frames are the terminal's output). Every
wait is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import files_of, wait_until

# textual-serve (and aiohttp with it) is a dependency since `gmdesk serve`; a virtualenv
# made before it was added says so here instead of failing to collect.
pytest.importorskip("textual_serve", reason="textual-serve is not installed: pip install -e '.[test]'")
pytest.importorskip("segno", reason="segno is not installed: pip install -e '.[test]'")

import aiohttp  # noqa: E402

from gmdesk.core.session import Session, SessionStore  # noqa: E402
from gmdesk.tui.serve import (  # noqa: E402
    DEFAULT_HOST,
    PlayerServer,
    banner,
    qr_text,
    url_for,
    viewer_command,
    viewer_urls,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "saves"
ANSI = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>()][0-9A-Za-z]?")
URL = re.compile(r"http://\S+/")


def example(saves: Path, name: str) -> Path:
    return SessionStore(saves).create_from_example(EXAMPLES / f"{name}.gmdesk", name)


def gmdesk(saves: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "gmdesk", "--saves", str(saves), *args]


def proc_stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped has ended)."""
    stat = proc_stat(pid)
    return stat is not None and stat[0] != "Z"


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = proc_stat(int(entry))
            if stat is not None and int(stat[1]) == pid and stat[0] != "Z":
                out.append(int(entry))
    return out


class Served:
    """A ``gmdesk serve`` process and what it printed."""

    def __init__(self, saves: Path, save: str, *args: str):
        self.proc = subprocess.Popen(
            gmdesk(saves, "serve", save, "--port", "0", *args),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.url = wait_until(self._url, timeout=30)
        self.base = self.url.rsplit("/", 2)[0]  # http://127.0.0.1:PORT
        self.port = int(self.base.rsplit(":", 1)[1])
        self.token = self.url.rstrip("/").rsplit("/", 1)[1]
        self.ws_url = "ws" + self.url[4:] + "ws"

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def _url(self) -> str | None:
        if self.proc.poll() is not None:
            raise AssertionError("gmdesk serve ended:\n" + "\n".join(self.lines))
        for line in self.lines:
            m = URL.search(line)
            if m:
                return m.group(0)
        return None

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def viewers(self) -> list[int]:
        return children(self.proc.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def serve(tmp_path):
    started: list[Served] = []
    pids: list[int] = []

    def start(save: str = "Festival Infiltration", *args: str) -> Served:
        example(tmp_path, save)
        served = Served(tmp_path, save, *args)
        started.append(served)
        return served

    start.pids = pids  # type: ignore[attr-defined]
    yield start
    for served in started:
        pids.extend(served.viewers())
        served.stop()
    for pid in pids:  # never leave a viewer behind, whatever the test did
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


class Viewer:
    """One browser tab: a websocket to the server and the screen text it received."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws = ws
        self.raw = b""
        self.closed = False

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    async def read_until(self, predicate, timeout: float = 20.0) -> float:
        """Read the stream until ``predicate(text)``; returns the seconds it took."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        for _ in range(100_000):
            if predicate(self.text):
                return loop.time() - start
            left = timeout - (loop.time() - start)
            if left <= 0 or self.closed:
                break
            try:
                message = await self.ws.receive(timeout=left)
            except TimeoutError:
                break
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw += message.data
            elif message.type in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSED,
                aiohttp.WSMsgType.CLOSING,
                aiohttp.WSMsgType.ERROR,
            ):
                self.closed = True
        raise AssertionError(f"not seen within {timeout}s; the viewer shows:\n{self.text[-3000:]}")


async def open_viewer(session: aiohttp.ClientSession, url: str, width: int = 80, height: int = 24) -> Viewer:
    ws = await session.ws_connect(f"{url}?width={width}&height={height}")
    return Viewer(ws)


def last_roll_seq(path: Path) -> int:
    with Session.open(path, readonly=True) as s:
        return s.state.rolls[-1].seq


# ---------------------------------------------------------------------------
# the token
# ---------------------------------------------------------------------------


async def test_every_request_needs_the_token_and_a_refused_one_starts_nothing(serve):
    served = serve()
    wrong = "x" * len(served.token)
    async with aiohttp.ClientSession() as http:
        for path in (
            "/",
            "/ws",
            "/favicon.ico",
            f"/{wrong}/",
            f"/{wrong}/static/js/textual.js",
            f"/{served.token[:-1]}/",
            "/static/js/textual.js",
            f"/{served.token}x/",
        ):
            async with http.get(served.base + path) as r:
                assert r.status == 403, path
                assert "access token" in await r.text()
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(f"{served.base}/{wrong}/ws")
        assert refused.value.status == 403
        async with http.get(served.url) as r:
            assert r.status == 200
            page = await r.text()
        async with http.get(f"{served.url}static/js/textual.js") as r:
            assert r.status == 200
    assert served.viewers() == []  # nothing was started for the refused requests
    assert 'name="viewport" content="width=device-width' in page  # phones
    assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/{served.token}/ws"' in page
    assert "fonts.googleapis" not in page  # nothing from the internet: a table may be offline
    assert "Renna" not in page and "Castle Guard" not in page  # the page carries no session data


def test_serves_on_loopback_unless_told_otherwise(serve):
    served = serve()
    assert served.url.startswith(f"http://127.0.0.1:{served.port}/")
    assert DEFAULT_HOST == "127.0.0.1"
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if os.path.exists(table):
            for line in Path(table).read_text().splitlines()[1:]:
                local, _remote, state = line.split()[1:4]
                address, port = local.rsplit(":", 1)
                if state == "0A" and int(port, 16) == served.port:  # LISTEN
                    listening.add(address)
    assert listening == {"0100007F"}  # 127.0.0.1, nothing else
    assert "▀" not in served.output and "▄" not in served.output  # no QR code for loopback
    assert "this machine only" in served.output


def test_a_non_loopback_host_prints_a_qr_code_of_the_url():
    token = "T" * 22
    text = banner("Tomb of Ash", "192.168.1.20", 8000, token, 12)
    url = "http://192.168.1.20:8000/" + token + "/"
    assert f"Open:  {url}" in text
    assert qr_text(url).strip() in text
    qr_lines = qr_text(url).strip("\n").splitlines()
    assert len(qr_lines) >= 12 and all(len(line) == len(qr_lines[0]) for line in qr_lines)
    assert set("".join(qr_lines)) <= set(" █▀▄")
    assert "The link is the key" in text and "network you trust" in text
    assert max(len(line) for line in text.splitlines()) <= 80  # an 80-column terminal, unwrapped
    local, table = viewer_urls("0.0.0.0", 8000, token)  # every interface: the table's address is shown
    assert local == "http://127.0.0.1:8000/" + token + "/"
    assert table is None or (table != local and table.endswith(f":8000/{token}/"))
    assert "▀" not in banner("Tomb of Ash", "127.0.0.1", 8000, token, 12)
    assert url_for("::1", 8000, token) == f"http://[::1]:8000/{token}/"


def test_qr_code_encodes_the_url():
    import segno

    url = "http://192.168.1.20:8000/abc/"
    matrix = segno.make(url, error="m").matrix
    lines = qr_text(url).strip("\n").splitlines()
    # two modules a line (half blocks), the quiet zone of 2 around
    assert len(lines) == (len(matrix) + 4 + 1) // 2


# ---------------------------------------------------------------------------
# viewers
# ---------------------------------------------------------------------------


async def test_a_viewer_sees_a_roll_appended_through_the_cli(serve, tmp_path):
    """The served player view follows the save by itself (how fast, p95 ≤ 1 s:
    ``benchmarks/bench_serve.py``)."""
    served = serve()
    path = tmp_path / "Festival Infiltration.gmdesk"
    async with aiohttp.ClientSession() as http:
        viewer = await open_viewer(http, served.ws_url)
        await viewer.read_until(lambda t: "following Festival Infiltration.gmdesk live" in t)
        assert len(served.viewers()) == 1
        before = last_roll_seq(path)
        done = subprocess.run(
            gmdesk(
                tmp_path,
                "roll",
                "4d6",
                "--bonus",
                "2",
                "--seed",
                "5",
                "--save",
                "Festival Infiltration",
                "--as",
                "Renna",
            ),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        seq = last_roll_seq(path)
        assert seq > before
        await viewer.read_until(lambda t: f"#{seq} R2 Renna: 4d6" in t)
    assert "Renna" in viewer.text and "PLAYER VIEW" in viewer.text


async def test_no_gm_secret_reaches_the_browser(serve, tmp_path):
    served = serve("Witch of Hollow Fen")
    path = tmp_path / "Witch of Hollow Fen.gmdesk"
    async with aiohttp.ClientSession() as http:
        viewer = await open_viewer(http, served.ws_url, width=160, height=40)
        await viewer.read_until(lambda t: "following Witch of Hollow Fen.gmdesk live" in t)
        done = subprocess.run(
            gmdesk(
                tmp_path,
                "roll",
                "1d6x4",
                "--bonus",
                "2",
                "--target",
                "13",
                "--seed",
                "3",
                "--save",
                "Witch of Hollow Fen",
                "--as",
                "Agatha",
            ),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        seq = last_roll_seq(path)
        await viewer.read_until(lambda t: f"#{seq} R2 Agatha: 1d6x4" in t)
    from gmdesk.tui.widgets.rolllog import entry_line

    with Session.open(path, readonly=True) as s:
        entry = s.state.rolls[-1]
        names = {cid: c.name for cid, c in s.state.characters.items()}
    assert "vs target 13" in entry_line(entry, names)  # what the GM's desk shows
    assert "vs target" not in viewer.text and "target 13" not in viewer.text
    assert entry_line(entry, names, hide_secrets=True) in viewer.text  # the players' line, whole


async def test_more_viewers_than_the_cap_get_a_clear_page_and_no_process(serve, tmp_path):
    served = serve("Festival Infiltration", "--max-viewers", "1")
    before = files_of(tmp_path)
    async with aiohttp.ClientSession() as http:
        first = await open_viewer(http, served.ws_url)
        await first.read_until(lambda t: "PLAYER VIEW" in t)
        assert len(served.viewers()) == 1
        async with http.get(served.url) as r:
            assert r.status == 503
            page = await r.text()
        assert "The table is full" in page and "allows (1) are open" in page
        assert 'name="viewport"' in page
        second = await open_viewer(http, served.ws_url)  # a tab that raced past the page
        await second.read_until(lambda t: "The table is full" in t)
        assert len(served.viewers()) == 1
        await second.ws.close()
        await first.ws.close()
        wait_until(lambda: not served.viewers())  # the tab went: its process too
        for _ in range(200):  # and the seat is free again, once the server has seen it go
            async with http.get(served.url) as r:
                if r.status == 200:
                    break
            await asyncio.sleep(0.05)
        assert r.status == 200
        third = await open_viewer(http, served.ws_url)
        await third.read_until(lambda t: "PLAYER VIEW" in t)
        assert len(served.viewers()) == 1
    assert "viewer joined" in served.output and "left" in served.output
    assert files_of(tmp_path) == before  # viewers came and went: nothing written, no lock taken


@pytest.mark.slow
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGHUP"])
async def test_stopping_the_server_ends_every_viewer(serve, signame):
    served = serve()
    async with aiohttp.ClientSession() as http:
        viewers = [await open_viewer(http, served.ws_url) for _ in range(3)]
        for viewer in viewers:
            await viewer.read_until(lambda t: "PLAYER VIEW" in t)
        pids = served.viewers()
        serve.pids.extend(pids)
        assert len(pids) == 3
        served.proc.send_signal(getattr(signal, signame))
        for viewer in viewers:  # every browser is told: the websocket closes
            await viewer.read_until(lambda t, viewer=viewer: viewer.closed)
        served.proc.wait(10)
    assert served.proc.returncode == 0
    assert [pid for pid in pids if alive(pid)] == []  # all gone by the time the server has
    assert "stopped." in served.output


async def test_a_viewer_that_will_not_quit_is_killed_within_the_stop_deadline(tmp_path):
    """The stop does not trust the viewer: one ignoring the quit request and SIGTERM is
    killed, and the server is done within STOP_SECONDS (+ scheduling slack)."""
    stubborn = [
        sys.executable,
        "-c",
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "sys.stdout.write('__GANGLION__\\n'); sys.stdout.flush()\n"
        "time.sleep(600)\n",
    ]
    path = example(tmp_path, "Festival Infiltration")
    lines: list[str] = []

    class Out:
        def write(self, text):
            lines.append(text)

        def flush(self):
            pass

    server = PlayerServer(path, port=0, out=Out(), command=stubborn)
    ready = asyncio.Event()
    task = asyncio.create_task(server.run(on_ready=lambda port: ready.set(), install_signals=False))
    await asyncio.wait_for(ready.wait(), 30)
    url = f"ws://127.0.0.1:{server.bound_port}/{server.token}/ws"
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(url)
        for _ in range(500):
            if server.viewer_pids():
                break
            await asyncio.sleep(0.02)
        pids = server.viewer_pids()
        assert len(pids) == 1
        server.request_exit()
        await asyncio.wait_for(task, 10)
        await ws.close()
    assert not alive(pids[0])


def test_a_killed_server_takes_its_viewers_with_it(serve):
    served = serve()

    async def connect():
        async with aiohttp.ClientSession() as http:
            viewer = await open_viewer(http, served.ws_url)
            await viewer.read_until(lambda t: "PLAYER VIEW" in t)
            pids = served.viewers()
            serve.pids.extend(pids)
            served.proc.kill()  # no chance to stop anything
            served.proc.wait(10)
            return pids

    pids = asyncio.run(connect())
    assert len(pids) == 1
    wait_until(lambda: not any(alive(pid) for pid in pids))


def test_viewers_run_gmdesk_view_read_only_without_a_shell(tmp_path):
    path = example(tmp_path, "Festival Infiltration")
    argv = viewer_command(path)
    assert argv[1:] == ["-m", "gmdesk", "view", str(path)]  # the save name is one argument


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, words",
    [
        (["serve"], "the following arguments are required: SAVE"),
        (["serve", "Festival Infiltration", "--port", "70000"], "--port"),
        (["serve", "Festival Infiltration", "--port", "http"], "--port"),
        (["serve", "Festival Infiltration", "--max-viewers", "0"], "--max-viewers"),
        (["serve", "No such table"], "no session 'No such table'"),
    ],
)
def test_bad_serve_options_are_one_line_and_exit_2(tmp_path, args, words):
    example(tmp_path, "Festival Infiltration")
    done = subprocess.run(gmdesk(tmp_path, *args), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path, serve):
    served = serve()
    done = subprocess.run(
        gmdesk(tmp_path, "serve", "Festival Infiltration", "--port", str(served.port)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert (
        done.stderr.strip() == f"gmdesk: port {served.port} on 127.0.0.1 is already in use; choose another with --port"
    )
