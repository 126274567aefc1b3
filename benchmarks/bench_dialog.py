"""The roll dialog's speed: `python -m benchmarks.bench_dialog` prints a table.

On a shipped example session (``saves/``, copied into a temporary directory; by
default "Storm over Core Earth", an encounter under way), headless with Pilot at
80×24, the roll dialog is opened ``--opens`` times with ``r`` (a plain roll, the acting
combatant rolling) and as many times with ``a`` (the acting combatant's attack, its
parameters filled from the roller and the target), and closed with Escape each time.
Median over the opens, after two warm-ups:

* **open**: from the key press until the dialog is on screen with its whole form (the
  roller's and target's values filled in afresh, the first field focused);
* **odds**: from the key press until the odds preview shows the exact odds (shown
  beside the table, no target).

The anchor, measured in the same run the same way: a bare Textual app (no gmdesk
code) at 80×24 whose key pushes a ``ModalScreen`` form of similar size — a bordered
box of 12 labelled fields (inputs and dropdowns) beside a bordered preview, an error
line and a hint — and whose Escape pops it. Target: gmdesk's open p50 ≤ 0.5× the
anchor's.

The key goes in the way a terminal's does (the driver's queue) and the clock is read by
polling every millisecond, so Pilot's own idle waits are not in the figures.

Options: ``--opens N`` (default 20), ``--only NAME`` (another example, by its name),
``--quick`` (accepted; ``python -m benchmarks --quick`` gives ``--opens 5``). Exit
status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.report import Row, print_table

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "saves"
DEFAULT_EXAMPLE = "Storm over Core Earth"

#: gmdesk's open p50 ≤ this × the bare modal form's
OPEN_RATIO = 0.5


def key_sender(app: Any) -> Callable[[str, str | None], None]:
    """``key(name, char)``: the key event the terminal's reader would give ``app``,
    posted to it (called on the app's event loop) — the time from the key is timed."""
    from textual import events

    def key(name: str, char: str | None) -> None:
        event = events.Key(name, char)
        event.set_sender(app)
        app.post_message(event)

    return key


async def _until(pred: Callable[[], object], timeout: float = 60.0) -> None:
    start = time.perf_counter()
    while not pred():
        if time.perf_counter() - start > timeout:
            raise RuntimeError("timed out")
        await asyncio.sleep(0.001)


async def _measure_gmdesk(saves: Path, path: Path, opens: int) -> dict[str, list[float]]:
    """{"r open", "r odds", "a open", "a odds"} -> seconds of each timed open."""
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.roll import open_roll_dialog

    app = GmdeskApp(saves, path, rng=random.Random(3))
    out: dict[str, list[float]] = {f"{k} {m}": [] for k in ("r", "a") for m in ("open", "odds")}
    async with app.run_test(size=(80, 24)) as pilot:
        key = key_sender(app)
        await _until(lambda: isinstance(app.screen, MainScreen))
        screen = app.screen
        await _until(lambda: not screen.busy)
        await pilot.pause(0.2)
        keys = ["r"]
        if screen.state.encounter.current is not None:
            keys.append("a")
        for k in keys:
            for i in range(opens + 2):
                t0 = time.perf_counter()
                key(k, k)
                await _until(lambda: open_roll_dialog(screen) is not None and screen.focused is not None)
                t_open = time.perf_counter() - t0
                dlg = open_roll_dialog(screen)
                await _until(lambda dlg=dlg: dlg.last_odds is not None or bool(dlg.last_error))
                t_odds = time.perf_counter() - t0
                if i >= 2:
                    out[f"{k} open"].append(t_open)
                    out[f"{k} odds"].append(t_odds)
                await pilot.pause(0.02)
                key("escape", None)
                await _until(lambda: open_roll_dialog(screen) is None and not screen.busy)
                await pilot.pause(0.02)
    return out


async def _measure_anchor(opens: int) -> list[float]:
    """Seconds from the key until a bare Textual modal form of similar size is up."""
    from textual.app import App, ComposeResult
    from textual.containers import Grid, Horizontal, Vertical
    from textual.screen import ModalScreen
    from textual.widgets import Footer, Input, Label, Select, Static

    class Form(ModalScreen[None]):
        DEFAULT_CSS = """
        Form { align: center middle; }
        #box { width: 110; height: 34; max-width: 100%; max-height: 100%; border: round $accent; }
        #fields { layout: grid; grid-size: 2; grid-columns: 16 1fr; grid-rows: 1; height: auto; }
        #fields Input { border: none; height: 1; padding: 0 1; }
        #preview { width: 30; border: round $primary; }
        """
        BINDINGS = [("escape", "close", "Cancel")]

        def compose(self) -> ComposeResult:
            with Vertical(id="box"):
                with Horizontal():
                    with Grid(id="fields"):
                        for n in range(12):
                            yield Label(f"Field {n}")
                            if n % 4 == 1:
                                yield Select([(str(v), v) for v in range(5)], value=0, allow_blank=False)
                            else:
                                yield Input(str(n))
                    yield Static("odds\n" * 12, id="preview")
                yield Static("", id="error")
                yield Static("Enter roll · Tab next field · Esc cancel")

        def on_mount(self) -> None:
            self.query_one(Input).focus()

        def action_close(self) -> None:
            self.dismiss(None)

    class Bare(App[None]):
        BINDINGS = [("r", "open", "Open")]

        def compose(self) -> ComposeResult:
            yield Static("a desk")
            yield Footer()

        def action_open(self) -> None:
            self.push_screen(Form())

    app = Bare()
    out: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        key = key_sender(app)
        await pilot.pause(0.2)
        for i in range(opens + 2):
            t0 = time.perf_counter()
            key("r", "r")
            await _until(lambda: isinstance(app.screen, Form) and app.screen.is_mounted and app.focused is not None)
            if i >= 2:
                out.append(time.perf_counter() - t0)
            await pilot.pause(0.02)
            key("escape", None)
            await _until(lambda: not isinstance(app.screen, Form))
            await pilot.pause(0.02)
    return out


def run(opens: int = 20, only: str | None = None) -> tuple[str, dict[str, list[float]], list[float]]:
    from gmdesk.core.session import SessionStore

    name = only or DEFAULT_EXAMPLE
    example = EXAMPLES / f"{name}.gmdesk"
    with tempfile.TemporaryDirectory(prefix="gmdesk-bench-dialog-") as tmp:
        saves = Path(tmp)
        path = SessionStore(saves).create_from_example(example, example.stem)
        anchor = asyncio.run(_measure_anchor(opens))
        gmdesk = asyncio.run(_measure_gmdesk(saves, path, opens))
    return name, gmdesk, anchor


def rows(gmdesk: dict[str, list[float]], anchor: list[float]) -> list[Row]:
    base = statistics.median(anchor) * 1000
    out = []
    for k, what in (("r", "roll dialog open (r), p50"), ("a", "attack dialog open (a), p50")):
        if not gmdesk[f"{k} open"]:
            continue
        ms = statistics.median(gmdesk[f"{k} open"]) * 1000
        out.append(
            Row(
                what,
                ms,
                base,
                "ms",
                f"≤ {OPEN_RATIO}× anchor",
                met=ms <= OPEN_RATIO * base,
                anchor_name="a bare Textual app pushing a ModalScreen form of similar size",
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_dialog")
    parser.add_argument("--opens", type=int, default=20)
    parser.add_argument("--only", default=None)
    ns, _rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)  # (`python -m benchmarks dialog`)
    name, gmdesk, anchor = run(ns.opens, ns.only)
    table = print_table(f"roll dialog — {name}, 80×24, median of {ns.opens} opens", rows(gmdesk, anchor))
    for k in ("r", "a"):
        if gmdesk[f"{k} odds"]:
            print(f"  {k}: odds shown after {statistics.median(gmdesk[f'{k} odds']) * 1000:.0f} ms (p50)")
    return 0 if all(r.met for r in table) else 1


if __name__ == "__main__":
    sys.exit(main())
