"""``gmdesk serve`` takes nothing a browser sends on trust (issue 21, part 2): every
message is checked and a size held to 500×300 cells, the websocket is accepted only
from the pages of the URLs serve printed, players get no palette and nothing that
leaves the view, a plain GET of the websocket is answered 400, and the log says one
true line per event. The server runs as the real command on 127.0.0.1 (the ``serve``
fixture of test_serve.py); browsers are stood in for by aiohttp's websocket client."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

pytest.importorskip("textual_serve", reason="textual-serve is not installed: pip install -e '.[test]'")

import aiohttp  # noqa: E402
from helpers import run, wait_until  # noqa: E402
from test_serve import ANSI, example, open_viewer, serve  # noqa: E402,F401  (the fixture)

from gmdesk.tui.serve import BadMessage, PlayerServer, banner, parse_message  # noqa: E402
from gmdesk.tui.serve_viewer import ViewerService  # noqa: E402

MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")


@pytest.mark.parametrize(
    "message, wrong",
    [
        (["resize", {"width": "wide", "height": 24}], "width is not a whole number"),
        (["resize", {"width": -80, "height": 24}], "width is -80"),
        (["resize", {"width": 80, "height": 0}], "height is 0"),
        (["resize", {"width": 80.5, "height": 24}], "width is not a whole number"),
        (["resize", {"width": True, "height": 24}], "width is not a whole number"),
        (["resize", {"width": 80}], "height is not a whole number"),
        (["resize", [80, 24]], "'resize' with 1 field(s) of the wrong kind"),
        (["stdin", 5], "'stdin' with 1 field(s) of the wrong kind"),
        (["stdin", "q" * 5000], "5000 characters of keys"),
        (["ping", "x" * 100], "'ping' with 1 field(s) of the wrong kind"),
        (["open_url", "http://evil.example"], "'open_url'"),
        ({"type": "resize"}, "not a message of the web client"),
        ([], "not a message of the web client"),
    ],
)
def test_every_field_of_every_message_is_checked(message, wrong):
    with pytest.raises(BadMessage, match=re.escape(wrong)):
        parse_message(json.dumps(message))


def test_the_clients_own_messages_pass_and_a_size_is_held_to_500_by_300():
    assert parse_message('["stdin", "q"]') == ("stdin", "q")
    assert parse_message('["resize", {"width": 120, "height": 40}]') == ("resize", (120, 40))
    assert parse_message('["resize", {"width": 10000, "height": 5000}]') == ("resize", (500, 300))
    assert parse_message('["resize", {"width": 3, "height": 2}]') == ("resize", (10, 5))
    assert parse_message('["ping", "1700000000000"]') == ("ping", "1700000000000")
    assert parse_message('["focus"]') == ("focus", None) and parse_message('["blur"]') == ("blur", None)
    with pytest.raises(BadMessage, match="not JSON"):
        parse_message("resize 80 24")


async def read_for(viewer, seconds: float) -> None:
    """Everything the viewer is sent for ``seconds`` (or until it closes)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while not viewer.closed and (left := until - loop.time()) > 0:
        try:
            message = await viewer.ws.receive(timeout=left)
        except TimeoutError:
            break
        if message.type == aiohttp.WSMsgType.BINARY:
            viewer.raw += message.data
        elif message.type != aiohttp.WSMsgType.TEXT:
            viewer.closed = True


async def test_a_huge_resize_is_held_to_the_limit_and_bad_messages_close_only_their_viewer(serve):  # noqa: F811 (the fixture)
    served = serve()
    async with aiohttp.ClientSession() as http:
        steady = await open_viewer(http, served.ws_url)
        await steady.read_until(lambda t: "following" in t)

        huge = await open_viewer(http, served.ws_url)
        await huge.read_until(lambda t: "following" in t)
        await huge.ws.send_json(["resize", {"width": 10000, "height": 5000}])
        huge.raw = b""
        for _ in range(40):  # until it has redrawn at its new size (a busy machine takes a while)
            await read_for(huge, 0.5)
            if any(int(m.group(1)) > 200 for m in MOVE.finditer(huge.raw)):
                break
        await read_for(huge, 1.0)
        rows = [int(m.group(1)) for m in MOVE.finditer(huge.raw)]
        columns = [int(m.group(2)) for m in MOVE.finditer(huge.raw)]
        assert rows and max(rows) <= 300 and max(columns) <= 500  # drawn at 500×300, not 10000×5000
        assert max(rows) > 200  # it did grow to the limit
        assert len(huge.raw) < 8 * 2**20  # a few screens, not hundreds of MiB
        await huge.ws.close()

        bad = [
            json.dumps(["resize", {"width": "wide", "height": 24}]),
            json.dumps(["resize", {"width": -1, "height": -1}]),
            json.dumps(["stdin", {"keys": "q"}]),
            "{not json",
        ]
        for text in bad:
            viewer = await open_viewer(http, served.ws_url)
            await viewer.ws.send_str(text)
            await viewer.read_until(lambda t, viewer=viewer: viewer.closed, timeout=15)
        viewer = await open_viewer(http, served.ws_url)
        await viewer.ws.send_bytes(b"\x00binary")
        await viewer.read_until(lambda t: viewer.closed, timeout=15)

        wait_until(lambda: len(served.viewers()) == 1, timeout=15)  # the steady one only
        await steady.ws.send_json(["ping", "1"])  # and it is still served
        await steady.ws.send_json(["resize", {"width": 100, "height": 30}])
        await steady.read_until(lambda t: "following" in t and not steady.closed)
        assert not steady.closed

    def bad() -> list[str]:
        return [line for line in served.lines if "closed: a bad message" in line]

    wait_until(lambda: len(bad()) >= 5, timeout=15)  # the server's lines are read as it prints them
    closed = bad()
    assert len(closed) == 5, served.output  # one line each (in the order their viewers ended)
    for reason in ("(width is not a whole number)", "(width is -1)", "'stdin' with 1 field(s)", "(not JSON)", "binary"):
        assert sum(reason in line for line in closed) == 1, (reason, closed)
    assert "Traceback" not in served.output and "Error" not in served.output


async def test_the_websocket_takes_only_the_origins_serve_printed(serve):  # noqa: F811 (the fixture)
    served = serve()
    own = f"http://127.0.0.1:{served.port}"
    async with aiohttp.ClientSession() as http:
        for origin in ("http://evil.example", "null", f"http://localhost:{served.port}", "http://127.0.0.1:1"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(served.ws_url + "?width=80&height=24", headers={"Origin": origin})
            assert refused.value.status == 403, origin
        assert served.viewers() == []  # nothing started for them
        ws = await http.ws_connect(served.ws_url + "?width=80&height=24", headers={"Origin": own})
        await ws.close()
        # the page names its websocket with the URL serve printed, never the Host header
        async with http.get(served.url, headers={"Host": f"evil.example:{served.port}"}) as r:
            assert r.status == 421
            page = await r.text()
        assert "evil.example" not in page and served.url in page
        async with http.get(served.url) as r:
            assert r.status == 200
            assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/{served.token}/ws"' in await r.text()
        # a plain GET of the websocket's address: 400 and a line, no traceback
        async with http.get(f"{served.url}ws") as r:
            assert r.status == 400
        async with http.get(f"{served.url}download/abc") as r:  # textual-serve's download route is not there
            assert r.status == 404
        for query in ("width=wide&height=24", "width=-5&height=24", "width=80&height=0"):  # a size that is no size
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(f"{served.ws_url}?{query}")
            assert refused.value.status == 400, query
    # a request that is not HTTP at all: aiohttp answers 400, the log says one line
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(b"\x16\x03\x01 not http\r\n\r\n")
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(200), 10)
    writer.close()
    assert answer.startswith(b"HTTP/1.") and b" 400 " in answer.split(b"\r\n")[0]
    refused_lines = [line for line in served.lines if line.startswith("refused a websocket")]
    assert len(refused_lines) == 4 and "'http://evil.example'" in refused_lines[0]
    assert "Traceback" not in served.output and "Error handling request" not in served.output


async def test_viewers_arriving_together_and_churning_get_one_true_line_each(serve):  # noqa: F811 (the fixture)
    served = serve()
    async with aiohttp.ClientSession() as http:
        together = await asyncio.gather(*(open_viewer(http, served.ws_url) for _ in range(4)))
        await asyncio.gather(*(v.read_until(lambda t: "PLAYER VIEW" in t) for v in together))
        for _ in range(6):  # connect and go at once, as a flaky phone does
            ws = await http.ws_connect(served.ws_url + "?width=80&height=24")
            await ws.close()
        for viewer in together:
            await viewer.ws.close()
        wait_until(lambda: not served.viewers(), timeout=15)
        wait_until(lambda: served.lines and served.lines[-1].endswith("(0 of 12)"), timeout=15)
    joined = [line for line in served.lines if "joined" in line]
    counts = [int(re.search(r"\((\d+) of 12", line).group(1)) for line in joined[:4]]
    assert sorted(counts) == [1, 2, 3, 4], served.output  # never "4 of 12" four times
    assert len(joined) == 10
    ended = [line for line in served.lines if " left (" in line or "failed" in line or "closed" in line]
    assert len(ended) == 10 and not any("failed" in line for line in ended), served.output
    assert "Application failed to start" not in served.output and "Traceback" not in served.output


async def test_players_get_no_command_palette_and_nothing_that_leaves_the_view(tmp_path):
    from textual.command import CommandPalette

    from gmdesk.tui.screens.player import PlayerApp

    path = example(tmp_path, "Festival Infiltration")
    app = PlayerApp(path)
    async with run(app, size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert not any(isinstance(s, CommandPalette) for s in app.screen_stack)
        assert "palette" not in " ".join(str(b.description) for _, b, *_ in app.active_bindings.values()).lower()

    sent: list[object] = []

    async def write(data):
        sent.append(data)

    async def close():
        sent.append("closed")

    service = ViewerService(["true"], write_bytes=write, write_str=write, close=close, download_manager=None)
    await service.on_meta(json.dumps({"type": "open_url", "url": "http://evil.example", "new_tab": True}).encode())
    await service.on_meta(
        json.dumps(
            {"type": "deliver_file_start", "key": "k", "path": "/etc/passwd", "open_method": "download"}
        ).encode()
    )
    assert sent == []  # nothing reaches the browser: no page to open, no file
    await service.on_meta(b'{"type": "exit"}')
    assert sent == ["closed"]


def test_with_every_interface_the_origins_are_the_addresses_serve_listed(tmp_path, monkeypatch):
    import gmdesk.tui.serve_banner as announced

    monkeypatch.setattr(announced, "lan_address", lambda: "192.168.1.20")
    path = example(tmp_path, "Festival Infiltration")
    server = PlayerServer(path, host="0.0.0.0", port=8000, token="T" * 22)
    server.announce(8000)
    text = banner("Festival Infiltration", "0.0.0.0", 8000, "T" * 22, 12)
    for url in server.urls:
        assert url in text  # every accepted origin is one the GM was shown
    assert server.announced("http://192.168.1.20:8000") and server.announced("http://127.0.0.1:8000")
    for origin in (
        "http://192.168.1.21:8000",
        "http://0.0.0.0:8000",
        "https://192.168.1.20:8000",
        "http://192.168.1.20:8001",
        "http://localhost:8000",
        "null",
        "",
    ):
        assert server.announced(origin) is None, origin
