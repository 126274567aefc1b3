"""The TUI with a long session: `python -m benchmarks.bench_tui` prints a table.

1. **Time to the first frame**, measured the way a GM meets it: ``gmdesk SAVE`` is
   started in a pseudo-terminal of 80×24 and the clock stops when the first frame
   showing the session (its name) is on the terminal; a second figure says when
   the session is ready (the newest roll ``#N`` visible in the roll log). Beside
   it, in the same run, a minimal Textual app (one line of text) is timed the same
   way: Python start-up, imports and Textual's own start-up are in both. Target:
   gmdesk with a 50,000-event session ≤ 1.5 × minimal + 0.5 s.
2. **Key press → updated roll log**: in the roll dialog, from the Enter that rolls
   until the roll log shows the new roll (headless Pilot, the same app code), with a
   50,000-roll log and with an empty one. Target: ratio of the medians ≤ 1.2.

The 50,000-event session is written straight through the store (``append_many``,
a few thousand events per batch): characters, initiative, then rolls with a turn
change every tenth event, each roll a real 4d2 record from a seeded source.

Options: ``--events N`` (default 50000), ``--runs N`` first-frame runs per app
(default 3, median shown), ``--presses N`` timed key presses (default 15).
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import os
import random
import re
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>()][0-9A-Za-z]?")

MINIMAL_APP = """
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("minimal-app-ready")

Minimal().run()
"""

SESSION_NAME = "Bench long night"
EMPTY_NAME = "Bench empty"


# ---------------------------------------------------------------------------
# building the sessions
# ---------------------------------------------------------------------------


def build_session(saves: Path, name: str, events: int, seed: int = 1) -> tuple[Path, float, int]:
    """A session with four characters in an encounter and ``events`` events in all.

    Returns (path, seconds it took, seq of the last roll)."""
    from gmdesk.core.session import Session, SessionStore
    from gmdesk.core.session.storage import EventLog
    from gmdesk.core.systems import get_system

    t0 = time.perf_counter()
    store = SessionStore(saves)
    path = store.create(name, "4d2")
    with Session.open(path) as s:
        for who, side in (("Kara", "PC"), ("Mira", "PC"), ("Bruno", "NPC"), ("Vex", "NPC")):
            s.apply({"type": "character.add", "character": {"name": who, "side": side}})
        s.apply({"type": "initiative.set", "entries": [{"id": f"c{i}", "value": 20 - i} for i in range(1, 5)]})
        s.apply({"type": "round.new"})
        setup = len(s.events)
        if events <= setup:
            return path, time.perf_counter() - t0, 0
        # one real roll and one real turn change: templates for the bulk
        s.roll("4d2", {}, actor="c1", target="c3", rng=random.Random(seed))
        s.apply({"type": "turn.next"})
    with EventLog.open(path) as log:
        docs = dict(log.events())
    roll_doc, turn_doc = docs[setup + 1], docs[setup + 2]
    four_d_two = get_system("4d2")
    params = four_d_two.params_from_json({})
    rng = random.Random(seed)
    todo = events - setup - 2
    last_roll = setup + 1
    rolls = 1
    seq = setup + 2
    with EventLog.open(path) as log:
        batch: list[dict] = []
        for _ in range(todo):
            seq += 1
            if seq % 10 == 0:
                batch.append(dict(turn_doc))
            else:
                actor = f"c{1 + seq % 4}"
                target = f"c{1 + (seq + 2) % 4}"
                record = four_d_two.roll(params, rng)
                doc = dict(roll_doc)
                doc.update(
                    record=record.to_json(), actor=actor, target=target, summary=f"{actor} rolls {record.value:+d}"
                )
                batch.append(doc)
                last_roll = seq
                rolls += 1
            if len(batch) >= 5000:
                log.append_many(batch)
                batch = []
        if batch:
            log.append_many(batch)
        log.set_header(rolls=rolls, events=seq)  # what the picker lists
    # As after an evening of play: gmdesk closed the session, which leaves its checkpoint.
    Session.open(path).close()
    return path, time.perf_counter() - t0, last_roll


# ---------------------------------------------------------------------------
# time to the first frame (pseudo-terminal)
# ---------------------------------------------------------------------------


def _first_frame(
    args: list[str], markers: list[str], env: dict | None = None, timeout: float = 60.0
) -> tuple[float, float]:
    """Seconds from spawning ``args`` on an 80×24 pty until the first marker is on the
    terminal, and until all of them are. The process is then ended with SIGTERM."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    full_env.update({"TERM": "xterm-256color", "PYTHONPATH": str(ROOT)})
    full_env.update(env or {})

    def ctty() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    buf = bytearray()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        args, stdin=slave, stdout=slave, stderr=slave, preexec_fn=ctty, close_fds=True, env=full_env, cwd=str(ROOT)
    )
    os.close(slave)

    def reader() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            buf.extend(data)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    first = done = None
    try:
        while done is None:
            now = time.perf_counter()
            text = ANSI.sub("", bytes(buf).decode("utf-8", "replace"))
            if first is None and markers[0] in text:
                first = now - t0
            if first is not None and all(m in text for m in markers):
                done = now - t0
                break
            if proc.poll() is not None or now - t0 > timeout:
                raise RuntimeError(f"no frame with {markers} after {now - t0:.1f}s:\n{text[-1500:]}")
            time.sleep(0.002)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)
    return first or 0.0, done or 0.0


# ---------------------------------------------------------------------------
# key press -> updated log (Pilot)
# ---------------------------------------------------------------------------


async def _latencies(saves: Path, path: Path, presses: int) -> list[float]:
    """Seconds from the Enter that rolls (roll dialog open, odds settled) until the
    roll log holds the new roll, ``presses`` times after two warm-ups. The key goes
    in the way a terminal's does (a key event posted to the app), and the clock is read by
    polling every millisecond — Pilot's own idle waits are not in the figure."""
    from benchmarks.bench_dialog import key_sender
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.roll import open_roll_dialog
    from gmdesk.tui.widgets.rolllog import RollLog

    app = GmdeskApp(saves, path, rng=random.Random(3))
    out: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:

        async def until(pred, timeout: float = 60.0) -> None:
            start = time.perf_counter()
            while not pred():
                if time.perf_counter() - start > timeout:
                    raise RuntimeError("timed out")
                await asyncio.sleep(0.001)

        key = key_sender(app)

        await until(lambda: isinstance(app.screen, MainScreen) and bool(app.screen.query(RollLog)))
        screen = app.screen
        log = screen.query_one(RollLog)
        await until(lambda: not screen.busy)
        for i in range(presses + 2):
            await pilot.press("r")
            await until(lambda: open_roll_dialog(app.screen) is not None)
            await pilot.pause(0.05)  # let the odds preview settle: not what is timed
            before = log.count
            t0 = time.perf_counter()
            key("enter", "\r")
            await until(lambda before=before: log.count > before)
            if i >= 2:  # two warm-up presses
                out.append(time.perf_counter() - t0)
            await until(lambda: not screen.busy and open_roll_dialog(app.screen) is None)
            await pilot.pause()
    return out


def _latencies_in_subprocess(saves: Path, path: Path, presses: int) -> list[float]:
    import json

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.bench_tui",
            "--latency-of",
            str(path),
            "--saves",
            str(saves),
            "--presses",
            str(presses),
        ],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if out.returncode != 0:
        raise RuntimeError(f"latency run failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------


def run(events: int = 50_000, runs: int = 3, presses: int = 25) -> dict:
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="gmdesk-bench-") as tmp:
        saves = Path(tmp)
        path, built, last_roll = build_session(saves, SESSION_NAME, events)
        empty, _, _ = build_session(saves, EMPTY_NAME, 0)
        results["build"] = built
        results["last_roll"] = last_roll
        results["size_mb"] = sum(p.stat().st_size for p in saves.glob(path.name + "*")) / 1e6

        minimal = [_first_frame([sys.executable, "-c", MINIMAL_APP], ["minimal-app-ready"]) for _ in range(runs)]
        gm = [
            _first_frame(
                [sys.executable, "-m", "gmdesk", "--saves", str(saves), SESSION_NAME], [SESSION_NAME, f"#{last_roll} "]
            )
            for _ in range(runs)
        ]
        gm_empty = [
            _first_frame([sys.executable, "-m", "gmdesk", "--saves", str(saves), EMPTY_NAME], [EMPTY_NAME, "Kara"])
            for _ in range(runs)
        ]
        results["minimal"] = statistics.median(t for _, t in minimal)
        results["gm_first"] = statistics.median(t for t, _ in gm)
        results["gm_done"] = statistics.median(t for _, t in gm)
        results["gm_empty"] = statistics.median(t for _, t in gm_empty)

        from gmdesk.core.session import Session

        t0 = time.perf_counter()
        Session.open(path, readonly=True).close()
        results["open_ro"] = time.perf_counter() - t0

        # alternate the two sessions in rounds, so that whatever else the machine does
        # falls on both alike; each round is a fresh process, as a GM's gmdesk would be
        results["lat_long"], results["lat_empty"] = [], []
        rounds = 3
        for k in range(rounds):
            share = presses // rounds + (1 if k < presses % rounds else 0)
            results["lat_long"] += _latencies_in_subprocess(saves, path, share)
            results["lat_empty"] += _latencies_in_subprocess(saves, empty, share)
    return results


def _ms(x: float) -> str:
    return f"{x * 1000:8.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_tui")
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--presses", type=int, default=25)
    parser.add_argument("--latency-of", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--saves", default=None, help=argparse.SUPPRESS)
    ns, _rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)  # (`python -m benchmarks tui`)
    if ns.latency_of:  # one round of key-press timings, in this process (JSON on stdout)
        import json

        print(json.dumps(asyncio.run(_latencies(Path(ns.saves), Path(ns.latency_of), ns.presses))))
        return 0
    r = run(ns.events, ns.runs, ns.presses)

    budget = 1.5 * r["minimal"] + 0.5
    lat_long = statistics.median(r["lat_long"])
    lat_empty = statistics.median(r["lat_empty"])
    ratio = lat_long / lat_empty if lat_empty else float("inf")
    p90 = lambda xs: sorted(xs)[max(0, int(len(xs) * 0.9) - 1)]  # noqa: E731

    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"gmdesk TUI — {ns.events:,} events ({r['size_mb']:.1f} MB on disk, "
        f"built in {r['build']:.1f} s), 80×24, median of {ns.runs}"
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("target", justify="right")
    table.add_column("", justify="center")
    ok = lambda good: "ok" if good else "MISSED"  # noqa: E731
    table.add_row("first frame: minimal Textual app", _ms(r["minimal"]), "", "")
    table.add_row("first frame: gmdesk, empty session", _ms(r["gm_empty"]), "", "")
    table.add_row(
        f"first frame: gmdesk, {ns.events:,}-event session (its name on screen)",
        _ms(r["gm_first"]),
        f"≤ {budget * 1000:.0f} ms",
        ok(r["gm_first"] <= budget),
    )
    table.add_row(f"  … and ready: the newest roll #{r['last_roll']} in the log", _ms(r["gm_done"]), "", "")
    table.add_row(
        f"Enter → roll in the log, {ns.events:,}-event log (median / p90)",
        f"{lat_long * 1000:.1f} / {p90(r['lat_long']) * 1000:.1f} ms",
        "",
        "",
    )
    table.add_row(
        "Enter → roll in the log, empty log (median / p90)",
        f"{lat_empty * 1000:.1f} / {p90(r['lat_empty']) * 1000:.1f} ms",
        "",
        "",
    )
    table.add_row("latency ratio long / empty", f"{ratio:.2f}", "≤ 1.20", ok(ratio <= 1.2))
    table.add_row(f"(in-process Session.open of the {ns.events:,}-event save, read-only)", _ms(r["open_ro"]), "", "")
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
