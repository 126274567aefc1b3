"""``gmdesk serve`` in a real browser: headless Chromium (Debian's ``chromium``) opens
the served player view as players' phones and desktops do (issue 21, part 1).

* 390×844 (a phone) and 1280×800 (a desktop) at device pixel ratios 1, 2 and 3, each
  ratio both the browser's own (``--force-device-scale-factor``, a real phone) and
  emulated (DevTools' device emulation, the way a GM previews the phone view): the
  terminal has the same columns × rows at every ratio (±2 columns for cell rounding)
  and each shot, scaled down to CSS pixels, is the same picture as the ratio-1 shot.
* A 320-px phone gets the 40-column layout (a font of at least 10 px), never
  "Terminal too small"; a phone held sideways (844×390) the wide layout with the
  clocks in view.

Three Chromium processes (one per forced ratio; the emulated shots share the first),
each page in a window of its own, all at once. The screenshots go to
``$GMDESK_SCREENSHOTS`` when set (CI keeps them), else to a temporary directory.
Without Chromium the tests are skipped and say why — unless ``GMDESK_REQUIRE_CHROMIUM``
is set (``.ci/run`` sets it), where a missing Chromium fails them.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("textual_serve", reason="textual-serve is not installed: pip install -e '.[test]'")

from browser import CHROMIUM, Chromium, Shot, brightness_grid  # noqa: E402
from helpers import wait_until  # noqa: E402
from test_serve import Served, alive, example  # noqa: E402

#: name: (CSS width, height, mobile)
SIZES = {"phone": (390, 844, True), "desktop": (1280, 800, False)}
EXTRA = {"phone-320": (320, 568, True, 2), "phone-sideways": (844, 390, True, 3)}  # + forced ratio
RATIOS = (1, 2, 3)
#: a cell of a scaled-down shot is "the same" within this much brightness (of 255)…
SAME_CELL = 24
#: …and a shot is the same picture when at most this share of its cells is not
SAME_PICTURE = 0.02


def needs_chromium() -> None:
    if CHROMIUM is None:
        message = "Chromium is not installed (Debian: apt-get install chromium); the browser checks need it"
        if os.environ.get("GMDESK_REQUIRE_CHROMIUM"):
            pytest.fail(message + " — and GMDESK_REQUIRE_CHROMIUM says they must run", pytrace=False)
        pytest.skip(message)


async def take_shots(url: str) -> tuple[dict[tuple[str, str, int], Shot], dict[tuple[str, str, int], list[int]]]:
    """Every shot, and each phone or desktop shot's brightness per cell of the ratio-1 terminal."""
    shots: dict[tuple[str, str, int], Shot] = {}
    grids: dict[tuple[str, str, int], list[int]] = {}
    at_once = asyncio.Semaphore(3)  # pages drawing at once: a busy 2-core machine keeps up

    async def browser(scale: int) -> None:
        async with Chromium(scale) as chromium:
            jobs = [(name, "forced", scale, 0) for name in SIZES]
            if scale == 1:
                jobs += [(name, "emulated", r, r) for r in RATIOS[1:] for name in SIZES]
            jobs += [(name, "forced", scale, 0) for name, (*_, r) in EXTRA.items() if r == scale]

            async def one(name: str, mode: str, ratio: int, emulate: int):
                width, height, mobile, *_ = {**SIZES, **EXTRA}[name]
                async with at_once:
                    page = await chromium.open(width, height, mobile=mobile, emulate=emulate)
                    shots[(name, mode, ratio)] = await page.shoot(url, drawn="following")
                return page

            pages = await asyncio.gather(*(one(*job) for job in jobs))
            # the ratio-1 shots are the reference: wait for them, then scale every shot down
            while any((name, "forced", 1) not in shots for name in SIZES):
                await asyncio.sleep(0.05)
            for page, (name, mode, ratio, _) in zip(pages, jobs, strict=True):
                if name in SIZES:
                    reference = shots[(name, "forced", 1)]
                    grid = (reference.columns, reference.rows)
                    grids[(name, mode, ratio)] = await brightness_grid(page, shots[(name, mode, ratio)], grid)

    await asyncio.gather(*(browser(scale) for scale in RATIOS))
    return shots, grids


@pytest.fixture(scope="module")
def browsers():
    """The player view of "Festival Infiltration" served once, shot in every browser."""
    needs_chromium()
    saves = Path(tempfile.mkdtemp(prefix="gmdesk-browser-"))
    example(saves, "Festival Infiltration")
    served = Served(saves, "Festival Infiltration", "--max-viewers", "20")
    try:
        shots, grids = asyncio.run(take_shots(served.url))
    finally:
        pids = served.viewers()
        served.stop()
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    out = Path(os.environ.get("GMDESK_SCREENSHOTS") or saves / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    for (name, mode, ratio), shot in shots.items():
        (out / f"serve-{name}-{mode}-{ratio}x.png").write_bytes(shot.png)
    print(f"screenshots: {out}")
    wait_until(lambda: served.proc.poll() is not None, timeout=10)
    return shots, grids


@pytest.mark.parametrize("name", list(SIZES))
def test_the_terminal_has_the_same_columns_and_rows_at_every_ratio_emulated_or_forced(browsers, name):
    shots, _ = browsers
    reference = shots[(name, "forced", 1)]
    width, height, _mobile = SIZES[name]
    if name == "phone":
        assert 40 <= reference.columns < 60 and reference.rows >= 30  # the phone layout, 40 columns or more
    else:
        assert reference.columns >= 100
    for mode in ("forced", "emulated"):
        for ratio in RATIOS[1:]:
            shot = shots[(name, mode, ratio)]
            assert shot.ratio == ratio, (mode, ratio)
            assert abs(shot.columns - reference.columns) <= 2 and shot.rows == reference.rows, (
                mode,
                ratio,
                (shot.columns, shot.rows),
                (reference.columns, reference.rows),
            )
            png_size = int.from_bytes(shot.png[16:20], "big"), int.from_bytes(shot.png[20:24], "big")
            assert png_size == (width * ratio, height * ratio)  # drawn at the device's own pixels


@pytest.mark.parametrize("name", list(SIZES))
def test_every_ratio_emulated_or_forced_is_the_same_picture(browsers, name):
    _, grids = browsers
    reference = grids[(name, "forced", 1)]
    background = max(set(reference), key=reference.count)
    assert sum(1 for v in reference if abs(v - background) > SAME_CELL) > len(reference) // 10  # text is on it
    for mode in ("forced", "emulated"):
        for ratio in RATIOS[1:]:
            grid = grids[(name, mode, ratio)]
            differ = sum(1 for a, b in zip(grid, reference, strict=True) if abs(a - b) > SAME_CELL)
            assert differ <= SAME_PICTURE * len(reference), f"{name} {mode} ×{ratio}: {differ} of {len(grid)} cells"


def test_a_320_pixel_phone_gets_the_40_column_layout(browsers):
    shots, _ = browsers
    shot = shots[("phone-320", "forced", 2)]
    assert shot.columns >= 40 and 10 <= shot.font_size < 16
    assert "Terminal too small" not in shot.text and "Enlarge" not in shot.text
    assert "Last rolls" in shot.text and "Initiative" in shot.text


def test_a_phone_held_sideways_shows_the_clocks(browsers):
    shots, _ = browsers
    shot = shots[("phone-sideways", "forced", 3)]
    assert shot.columns >= 60 and shot.rows < 24  # the wide layout, short
    assert "Reach the vault" in shot.text and "Suspicion" in shot.text
    assert re.search(r"Rolls \d+", shot.text)  # the roll log still below
