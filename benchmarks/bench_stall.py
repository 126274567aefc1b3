"""The event loop while a long session is opened, played, switched and closed:
`python -m benchmarks.bench_stall` prints a table.

The real app runs headless (Pilot, 80×24) on a save directory holding a
50,000-event session (built as in :mod:`benchmarks.bench_tui`) and a short one. A
ticker coroutine on the app's event loop wakes every millisecond and records the
longest gap between two wake-ups: that is the longest the GM's screen could not
answer a key. The figure is taken per phase, from the picker on (Textual's own
start-up is not in it):

1. open the long session from the picker (Enter), until its newest roll shows;
2. play: a few rolls through the roll dialog (r, Enter) and turns (n), undo (u);
3. switch: back to the list of sessions (closing the long session: checkpoint and
   compaction) and open the short one;
4. quit (q), until the app has ended (its final close may wait for the session).

Target: the longest stall of phases 1–3 ≤ 50 ms. Phase 4 is the app's end, shown
for the record: the app is gone when it ends.

Options: ``--events N`` (default 50000), ``--rolls N`` (default 5).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

TARGET = 0.050


class Ticker:
    """The longest gap between wake-ups of a coroutine that sleeps 1 ms at a time."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task | None = None
        self._last = 0.0

    async def _run(self) -> None:
        self._last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.worst = max(self.worst, now - self._last)
            self._last = now

    def start(self) -> None:
        self.worst = 0.0
        self._last = time.perf_counter()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def phase(self) -> float:
        """The worst gap since the last call (the gap now running included)."""
        worst = max(self.worst, time.perf_counter() - self._last)
        self.worst = 0.0
        return worst

    def step(self, steps: dict[str, float], label: str) -> None:
        """Keep the worst gap since the last step under ``label`` (the worst of its kind)."""
        steps[label] = max(steps.get(label, 0.0), self.phase())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


async def _play(saves: Path, long_name: str, short_name: str, rolls: int) -> dict[str, dict[str, float]]:
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.picker import PickerScreen
    from gmdesk.tui.screens.roll import open_roll_dialog
    from gmdesk.tui.widgets.rolllog import RollLog

    out: dict[str, dict[str, float]] = {"open": {}, "play": {}, "switch": {}, "quit": {}}
    took: dict[str, float] = {}
    app = GmdeskApp(saves, rng=random.Random(3), examples_dir=saves / "no-examples")
    ticker = Ticker()

    async def until(pred, timeout: float = 120.0) -> None:
        start = time.perf_counter()
        while not pred():
            if time.perf_counter() - start > timeout:
                raise RuntimeError(f"timed out on {app.screen!r}")
            await asyncio.sleep(0.002)

    def idle() -> bool:
        screen = app.screen
        return isinstance(screen, MainScreen) and not screen.busy

    async def open_named(name: str, steps: dict[str, float]) -> None:
        await until(lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await until(lambda: any(s.name == name for s in picker.summaries))
        ticker.step(steps, "the list of sessions")
        while (s := picker.selected_summary()) is not None and s.name != name:
            await pilot.press("down")
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, MainScreen) and bool(app.screen.query(RollLog)))
        await until(idle)
        await pilot.pause(0.1)
        ticker.step(steps, "Enter: open, show the desk")

    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
        await pilot.pause(0.2)
        ticker.start()

        t0 = time.perf_counter()
        await open_named(long_name, out["open"])
        took["open"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        play = out["play"]
        for _ in range(rolls):
            await pilot.press("r")
            await until(lambda: open_roll_dialog(app.screen) is not None)
            await pilot.pause(0.05)
            ticker.step(play, "r: the roll dialog opens")
            await pilot.press("enter")
            await until(idle)
            ticker.step(play, "Enter: roll, the log shows it")
            await pilot.press("n")
            await until(idle)
            ticker.step(play, "n: next turn")
        await pilot.press("u")
        await until(idle)
        await pilot.pause(0.1)
        ticker.step(play, "u: undo")
        took["play"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        app.action_back_to_picker()
        await until(lambda: isinstance(app.screen, PickerScreen))
        ticker.step(out["switch"], "back to the list (the session closes)")
        await open_named(short_name, out["switch"])
        took["switch"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        await pilot.press("q")
        await until(lambda: not app.is_running, timeout=60)
    ticker.step(out["quit"], "q until the app has ended")
    took["quit"] = time.perf_counter() - t0
    ticker.stop()
    out["took"] = took
    return out


def run(events: int = 50_000, rolls: int = 5) -> dict[str, dict[str, float]]:
    from benchmarks.bench_tui import build_session

    with tempfile.TemporaryDirectory(prefix="gmdesk-stall-") as tmp:
        saves = Path(tmp)
        build_session(saves, "Bench long night", events)
        build_session(saves, "Bench short night", 0)
        return asyncio.run(_play(saves, "Bench long night", "Bench short night", rolls))


def _ms(x: float) -> str:
    return f"{x * 1000:8.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_stall")
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--rolls", type=int, default=5)
    ns, _rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)  # (`python -m benchmarks stall`)
    r = run(ns.events, ns.rolls)

    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"gmdesk event loop — {ns.events:,}-event session, 80×24, longest stall per phase")
    table.add_column("phase")
    table.add_column("longest stall", justify="right")
    table.add_column("in the step", justify="left")
    table.add_column("phase took", justify="right")
    table.add_column("target", justify="right")
    table.add_column("", justify="center")
    rows = (
        ("open", "open it from the picker until its newest roll shows"),
        ("play", f"{ns.rolls} rolls (r, Enter) and turns (n), an undo"),
        ("switch", "back to the picker (closing it) and open another session"),
        ("quit", "quit (q) until the app has ended (for the record)"),
    )
    worst = 0.0
    for key, what in rows:
        steps = r[key]
        label, stall = max(steps.items(), key=lambda kv: kv[1])
        target, mark = "", ""
        if key != "quit":
            worst = max(worst, stall)
            target, mark = f"≤ {TARGET * 1000:.0f} ms", "ok" if stall <= TARGET else "MISSED"
        table.add_row(what, _ms(stall), label, _ms(r["took"][key]), target, mark)
    good = worst <= TARGET
    table.add_row(
        "longest stall, open · play · switch",
        _ms(worst),
        "",
        "",
        f"≤ {TARGET * 1000:.0f} ms",
        "ok" if good else "MISSED",
    )
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
