"""``gmdesk serve`` in a real browser: headless Chromium (Debian's ``chromium``)
opens the served player view at phone size (390×844, mobile) and at desktop size
(1280×800) and saves a screenshot of each.

Chromium is driven through its DevTools protocol (a websocket, with aiohttp — no
extra package). The screenshots go to ``$GMDESK_SCREENSHOTS`` when set (CI keeps
them as artefacts), else to the test's temporary directory. Without Chromium the
test is skipped and says why.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

pytest.importorskip("textual_serve", reason="textual-serve is not installed: pip install -e '.[test]'")

import aiohttp  # noqa: E402
from test_serve import serve  # noqa: E402,F401  (the fixture)

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (Debian: apt-get install chromium); the browser check needs it",
)

#: CSS pixels, device pixel ratio, mobile. The ratio is the browser's own
#: (``--force-device-scale-factor``), as on a real phone: an emulated one
#: (``deviceScaleFactor``) leaves xterm.js's canvas at CSS size and draws it 2× too big.
SIZES = {
    "phone": (390, 844, 2, True),
    "desktop": (1280, 800, 1, False),
}


class DevTools:
    """Just enough of the DevTools protocol: one page, commands and their answers."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws = ws
        self.ids = itertools.count(1)
        self.session: str | None = None

    async def send(self, method: str, timeout: float = 30.0, **params):
        msg_id = next(self.ids)
        message = {"id": msg_id, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        await self.ws.send_str(json.dumps(message))
        for _ in range(10_000):
            reply = await self.ws.receive(timeout=timeout)
            if reply.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"DevTools connection ended: {reply.type}")
            data = json.loads(reply.data)
            if data.get("id") == msg_id:
                if "error" in data:
                    raise AssertionError(f"{method}: {data['error']}")
                return data.get("result", {})
        raise AssertionError(f"{method}: no answer")

    async def evaluate(self, expression: str):
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")


def png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the raw rows of an 8-bit RGB(A) PNG (what Chromium writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = bpp = 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        chunk = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, [bytes(r[i : i + 3]) for r in rows[::8] for i in range(0, len(r), bpp * 8)]


async def screenshot(url: str, size: tuple[int, int, int, bool], profile: Path, path: Path) -> bytes:
    """Open ``url`` in a fresh headless Chromium of ``size``; save and return a still
    screenshot once the player view has drawn."""
    width, height, scale, mobile = size
    browser = subprocess.Popen(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--force-device-scale-factor={scale}",
            f"--window-size={width},{height}",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        endpoint = None
        for _ in range(2000):
            line = browser.stderr.readline()
            if not line:
                break
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                endpoint = m.group(1)
                break
        assert endpoint, "Chromium did not start its DevTools endpoint"
        async with aiohttp.ClientSession() as http, http.ws_connect(endpoint, max_msg_size=0) as ws:
            devtools = DevTools(ws)
            target = await devtools.send("Target.createTarget", url="about:blank")
            attached = await devtools.send("Target.attachToTarget", targetId=target["targetId"], flatten=True)
            devtools.session = attached["sessionId"]
            await devtools.send("Page.enable")
            await devtools.send(
                "Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=0, mobile=mobile
            )
            await devtools.send("Page.navigate", url=url)
            # the terminal has drawn once the first byte came; then wait for a still picture
            for _ in range(300):
                if await devtools.evaluate("document.body && document.body.classList.contains('-first-byte')"):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the player view never drew in the browser")
            assert await devtools.evaluate("window.devicePixelRatio") == scale
            assert await devtools.evaluate("document.documentElement.clientWidth") == width  # the viewport
            previous = b""
            for _ in range(60):
                await asyncio.sleep(0.25)
                shot = base64.b64decode((await devtools.send("Page.captureScreenshot", format="png"))["data"])
                if shot == previous:
                    break
                previous = shot
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait(10)
    path.write_bytes(previous)
    return previous


async def test_the_player_view_in_chromium_at_phone_and_desktop_size(serve, tmp_path):  # noqa: F811 (the fixture)
    served = serve()
    out_dir = Path(os.environ.get("GMDESK_SCREENSHOTS") or tmp_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    shots = {}
    for name, size in SIZES.items():
        path = out_dir / f"serve-{name}.png"
        shots[name] = await screenshot(served.url, size, tmp_path / f"profile-{name}", path)
        print(f"screenshot: {path}")
    joined = [tuple(map(int, m)) for m in re.findall(r"viewer joined .*?, (\d+)×(\d+)\)", served.output)]
    assert len(joined) == 2, served.output
    (phone_cols, phone_rows), (desk_cols, _desk_rows) = joined
    assert 36 <= phone_cols < 60 and phone_rows >= 30  # the mobile viewport: a phone-wide terminal
    assert desk_cols >= 100
    for name, png in shots.items():
        width, height, samples = png_pixels(png)
        css_width, css_height, scale, _mobile = SIZES[name]
        assert (width, height) == (css_width * scale, css_height * scale)
        background = max(set(samples), key=samples.count)
        drawn = sum(1 for s in samples if s != background)
        assert drawn > len(samples) // 50, f"{name}: the page looks empty"  # text and boxes are on it
