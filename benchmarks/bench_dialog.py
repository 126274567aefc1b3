"""The roll dialog's speed: `python -m benchmarks.bench_dialog` prints a table.

On each shipped example session (``saves/``, copied into a temporary directory),
headless with Pilot at 80×24, the roll dialog is opened ``--opens`` times with ``r``
(a plain roll, the acting combatant rolling) and as many times with ``a`` (the
acting combatant's attack, its parameters filled from the roller and the target),
and closed with Escape each time. Two figures per key, median over the opens (after
two warm-ups):

* **open**: from the key press until the dialog is on screen with its whole form
  (the roller's and target's values filled in, the first field focused);
* **odds**: from the key press until the odds preview shows the exact odds;
* **cpu**: the process's CPU time from the key press until the dialog is open
  (what the open costs whatever else the machine runs: on a busy machine the
  wall-clock figures grow, this one does not).

The key goes in the way a terminal's does (the driver's queue) and the clock is read
by polling every millisecond, so Pilot's own idle waits are not in the figures.
Targets: open ≤ 100 ms median, odds ≤ 200 ms median.

Options: ``--opens N`` (default 20), ``--only NAME`` (one example, by its name).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "saves"

OPEN_TARGET = 0.100
ODDS_TARGET = 0.200


async def _measure(saves: Path, path: Path, opens: int) -> dict[str, list[float]]:
    """{"r open", "r odds", "r cpu", "a open", …} -> seconds of each timed open."""
    from textual import events

    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.roll import RollDialog

    app = GmdeskApp(saves, path, rng=random.Random(3))
    out: dict[str, list[float]] = {f"{k} {m}": [] for k in ("r", "a") for m in ("open", "odds", "cpu")}
    async with app.run_test(size=(80, 24)) as pilot:

        async def until(pred, timeout: float = 60.0) -> None:
            start = time.perf_counter()
            while not pred():
                if time.perf_counter() - start > timeout:
                    raise RuntimeError("timed out")
                await asyncio.sleep(0.001)

        def key(name: str, char: str | None) -> None:
            event = events.Key(name, char)
            event.set_sender(app)
            app._driver.send_message(event)

        await until(lambda: isinstance(app.screen, MainScreen))
        screen = app.screen
        await until(lambda: not screen.busy)
        await pilot.pause(0.2)
        keys = ["r"]
        if screen.state.encounter.current is not None:
            keys.append("a")
        for k in keys:
            for i in range(opens + 2):
                t0, c0 = time.perf_counter(), time.process_time()
                key(k, k)
                await until(lambda: isinstance(app.screen, RollDialog) and app.screen.ready)
                t_open, c_open = time.perf_counter() - t0, time.process_time() - c0
                dlg = app.screen
                await until(lambda dlg=dlg: dlg.last_odds is not None or bool(dlg.last_error))
                t_odds = time.perf_counter() - t0
                if i >= 2:
                    out[f"{k} open"].append(t_open)
                    out[f"{k} odds"].append(t_odds)
                    out[f"{k} cpu"].append(c_open)
                await pilot.pause(0.02)
                key("escape", None)
                await until(lambda: isinstance(app.screen, MainScreen) and not screen.busy)
                await pilot.pause(0.02)
    return out


def run(opens: int = 20, only: str | None = None) -> dict[str, dict[str, list[float]]]:
    from gmdesk.core.session import SessionStore

    results: dict[str, dict[str, list[float]]] = {}
    examples = sorted(EXAMPLES.glob("*.gmdesk"))
    if only:
        examples = [p for p in examples if p.stem == only]
    with tempfile.TemporaryDirectory(prefix="gmdesk-bench-dialog-") as tmp:
        saves = Path(tmp)
        store = SessionStore(saves)
        for example in examples:
            path = store.create_from_example(example, example.stem)
            results[example.stem] = asyncio.run(_measure(saves, path, opens))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_dialog")
    parser.add_argument("--opens", type=int, default=20)
    parser.add_argument("--only", default=None)
    ns, _rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)  # (`python -m benchmarks dialog`)
    results = run(ns.opens, ns.only)

    from rich.console import Console
    from rich.table import Table

    from gmdesk.core.session import Session

    table = Table(title=f"gmdesk roll dialog — 80×24, median of {ns.opens} opens (max in brackets)")
    table.add_column("example (system)")
    table.add_column("key")
    table.add_column("open", justify="right")
    table.add_column("odds shown", justify="right")
    table.add_column("open, cpu", justify="right")
    table.add_column("", justify="center")
    ms = lambda xs: f"{statistics.median(xs) * 1000:.0f} ms ({max(xs) * 1000:.0f})"  # noqa: E731
    for name, r in results.items():
        with Session.open(EXAMPLES / f"{name}.gmdesk", readonly=True) as s:
            system = s.state.info.system
        for k in ("r", "a"):
            if not r[f"{k} open"]:
                continue
            good = statistics.median(r[f"{k} open"]) <= OPEN_TARGET and statistics.median(r[f"{k} odds"]) <= ODDS_TARGET
            table.add_row(
                f"{name} ({system})",
                k,
                ms(r[f"{k} open"]),
                ms(r[f"{k} odds"]),
                ms(r[f"{k} cpu"]),
                "ok" if good else "MISSED",
            )
    table.caption = f"targets: open ≤ {OPEN_TARGET * 1000:.0f} ms, odds ≤ {ODDS_TARGET * 1000:.0f} ms (medians)"
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
