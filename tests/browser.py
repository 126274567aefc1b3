"""Headless Chromium driven through its DevTools protocol (a websocket, with aiohttp —
no extra package), for the tests of ``gmdesk serve`` in a real browser.

One :class:`Chromium` process serves many pages (a page per shot); a device pixel
ratio is either the browser's own (``--force-device-scale-factor``, as on a real
phone: one process per ratio) or emulated (``Emulation.setDeviceMetricsOverride``,
the way DevTools previews a phone). Traffic goes to 127.0.0.1 only: the browser is
started with everything that would reach out (updates, sync, QUIC …) switched off.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-features=MediaRouter,OptimizationHints,Translate",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


@dataclass
class Shot:
    """One screenshot of the player view and what the terminal was."""

    png: bytes
    width: int  # CSS pixels
    height: int
    ratio: float  # window.devicePixelRatio
    columns: int
    rows: int
    screen: dict[str, float] = field(default_factory=dict)  # the terminal's drawn box, CSS px
    text: str = ""  # what the terminal was sent, escape codes taken out
    font_size: float = 0.0  # the font size the page chose (CSS px)


class Chromium:
    """A headless Chromium at one device scale factor, and its DevTools connection."""

    def __init__(self, scale: float = 1, window: tuple[int, int] = (1280, 900)):
        self.scale = scale
        self.window = window
        self.profile = tempfile.TemporaryDirectory(prefix="gmdesk-chromium-", ignore_cleanup_errors=True)
        self.process: subprocess.Popen[str] | None = None
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.events: list[dict[str, Any]] = []

    async def __aenter__(self) -> Chromium:
        assert CHROMIUM is not None
        self.process = subprocess.Popen(
            [
                CHROMIUM,
                *FLAGS,
                f"--force-device-scale-factor={self.scale}",
                f"--window-size={self.window[0]},{self.window[1]}",
                f"--user-data-dir={self.profile.name}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        endpoint = await asyncio.to_thread(self._endpoint)
        self.http = aiohttp.ClientSession()
        self.ws = await self.http.ws_connect(endpoint, max_msg_size=0)
        self.reader = asyncio.create_task(self._read())
        return self

    def _endpoint(self) -> str:
        assert self.process is not None and self.process.stderr is not None
        for _ in range(2000):
            line = self.process.stderr.readline()
            if not line:
                break
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                threading_drain(self.process.stderr)
                return m.group(1)
        raise AssertionError("Chromium did not start its DevTools endpoint")

    async def __aexit__(self, *exc: object) -> None:
        self.reader.cancel()
        await asyncio.gather(self.reader, return_exceptions=True)
        await self.ws.close()
        await self.http.close()
        if self.process is not None:
            self.process.terminate()
            try:
                await asyncio.to_thread(self.process.wait, 10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                await asyncio.to_thread(self.process.wait, 10)
        self.profile.cleanup()

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            future = self.pending.pop(data.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(data)
            elif "method" in data:
                self.events.append(data)

    async def send(self, method: str, session: str | None = None, timeout: float = 30.0, **params: Any) -> Any:
        msg_id = next(self.ids)
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = future
        await self.ws.send_str(json.dumps(message))
        reply = await asyncio.wait_for(future, timeout)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def evaluate(self, session: str, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", session, expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def open(self, width: int, height: int, *, mobile: bool, emulate: float = 0) -> Page:
        """A new page of ``width`` × ``height`` CSS pixels; ``emulate`` a device pixel
        ratio (0: the browser's own)."""
        target = await self.send("Target.createTarget", url="about:blank", newWindow=True)  # drawn, not a hidden tab
        attached = await self.send("Target.attachToTarget", targetId=target["targetId"], flatten=True)
        session = attached["sessionId"]
        await self.send("Page.enable", session)
        await self.send("Network.enable", session)
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=width,
            height=height,
            deviceScaleFactor=emulate,
            mobile=mobile,
        )
        return Page(self, session, target["targetId"], width, height)


def threading_drain(stream: Any) -> None:
    """Keep reading Chromium's stderr so that it never blocks on a full pipe."""
    import threading

    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()


@dataclass
class Page:
    browser: Chromium
    session: str
    target: str
    width: int
    height: int

    async def evaluate(self, expression: str) -> Any:
        return await self.browser.evaluate(self.session, expression)

    def _terminal_size(self) -> tuple[int, int]:
        """The terminal's columns × rows: the websocket's URL, then the last resize it sent."""
        size = (0, 0)
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            params = event.get("params", {})
            if event["method"] == "Network.webSocketCreated":
                query = parse_qs(urlsplit(params["url"]).query)
                size = (int(query["width"][0]), int(query["height"][0]))
            elif event["method"] == "Network.webSocketFrameSent":
                payload = params.get("response", {}).get("payloadData", "")
                if payload.startswith('["resize"'):
                    data = json.loads(payload)[1]
                    size = (data["width"], data["height"])
        return size

    def _received(self) -> tuple[str, float]:
        """The terminal output this page's websocket received (escape codes and all),
        and when the last of it came (the browser's clock, seconds)."""
        text, last = [], 0.0
        for event in self.browser.events:
            if event.get("sessionId") == self.session and event["method"] == "Network.webSocketFrameReceived":
                response = event["params"]["response"]
                if response.get("opcode") == 2:
                    text.append(base64.b64decode(response["payloadData"]).decode("utf-8", "replace"))
                last = event["params"]["timestamp"]
        return "".join(text), last

    async def shoot(self, url: str, drawn: str = "following", quiet: float = 0.6) -> Shot:
        """Open ``url``; once the player view has drawn ``drawn`` and nothing more came
        for ``quiet`` seconds, one screenshot."""
        await self.browser.send("Page.navigate", self.session, url=url)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 120
        last_seen, since = -1.0, loop.time()
        while loop.time() < deadline:
            await asyncio.sleep(0.1)
            text, last = self._received()
            if last != last_seen:
                last_seen, since = last, loop.time()
            elif drawn in text and loop.time() - since >= quiet:
                break
        else:
            text, _ = self._received()
            plain = re.sub(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]", "", text)
            raise AssertionError(f"the player view never drew {drawn!r} in the browser; it got:\n{plain[-600:]}")
        png = b""
        for _ in range(20):  # xterm.js paints on animation frames: two shots alike
            await asyncio.sleep(0.25)
            previous, png = (
                png,
                base64.b64decode(
                    (
                        await self.browser.send(
                            "Page.captureScreenshot", self.session, timeout=90, optimizeForSpeed=True
                        )
                    )["data"]
                ),
            )
            if png == previous:
                break
        ratio = await self.evaluate("window.devicePixelRatio")
        screen = await self.evaluate(
            "(() => { const r = document.querySelector('.xterm-screen').getBoundingClientRect();"
            " return {x: r.x, y: r.y, width: r.width, height: r.height}; })()"
        )
        columns, rows = self._terminal_size()
        font_size = float(await self.evaluate("document.getElementById('terminal').dataset.fontSize"))
        plain = re.sub(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b[=>()][0-9A-Za-z]?", "", self._received()[0])
        return Shot(png, self.width, self.height, ratio, columns, rows, screen, plain, font_size)

    async def close(self) -> None:
        await self.browser.send("Target.closeTarget", targetId=self.target)


#: Turns a screenshot into a grid of mean brightness, one value per ``block`` CSS
#: pixels, drawn by the browser's own image scaling (a canvas at CSS size).
_BLOCKS_JS = """
(async (data, cssWidth, cssHeight, box, grid) => {
  const img = new Image();
  img.src = "data:image/png;base64," + data;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = cssWidth; canvas.height = cssHeight;
  const ctx = canvas.getContext("2d", {willReadFrequently: true});
  ctx.imageSmoothingEnabled = true; ctx.imageSmoothingQuality = "high";
  ctx.drawImage(img, 0, 0, cssWidth, cssHeight);
  const out = [];
  const w = box.width / grid[0], h = box.height / grid[1];
  const px = ctx.getImageData(0, 0, cssWidth, cssHeight).data;
  for (let gy = 0; gy < grid[1]; gy++) {
    for (let gx = 0; gx < grid[0]; gx++) {
      let sum = 0, n = 0;
      for (let y = Math.floor(box.y + gy * h); y < Math.floor(box.y + (gy + 1) * h); y++) {
        for (let x = Math.floor(box.x + gx * w); x < Math.floor(box.x + (gx + 1) * w); x++) {
          const i = (y * cssWidth + x) * 4;
          sum += 0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2]; n++;
        }
      }
      out.push(n ? Math.round(sum / n) : 0);
    }
  }
  return out;
})
"""


async def brightness_grid(page: Page, shot: Shot, grid: tuple[int, int]) -> list[int]:
    """The shot scaled down to CSS pixels, its terminal's drawn box cut into ``grid``
    (columns × rows) blocks, each block's mean brightness (0–255)."""
    data = base64.b64encode(shot.png).decode()
    expression = (
        f"{_BLOCKS_JS}({json.dumps(data)}, {shot.width}, {shot.height}, {json.dumps(shot.screen)}, {json.dumps(grid)})"
    )
    result = await page.browser.send(
        "Runtime.evaluate", page.session, expression=expression, returnByValue=True, awaitPromise=True, timeout=60
    )
    return result["result"]["value"]
