"""What a key costs over the wire: `python -m benchmarks.bench_bytes` prints a table.

The real ``gmdesk`` runs on a pseudo-terminal of 80×24 with truecolor
(``TERM=xterm-256color``, ``COLORTERM=truecolor``), on a 300-event session (four
characters in an encounter, a full roll log). Once the screen has settled (nothing
written for a moment), a key sequence is written to the terminal and every byte the
app writes back until it has settled again is counted — what a GM's SSH link
carries for that key. Each row is repeated ``--repeats`` times (median shown):

* Enter → roll logged: the roll dialog is opened (``r``) and left to settle, then
  Enter rolls, the dialog closes and the log shows the roll;
* open the attack dialog: ``a`` (then Escape, not counted);
* ``n`` (next turn) and ``u`` (undo it).

The anchors run in the same terminal in the same run: a bare Textual app of the
desk's shape (a bar, two bordered panes, a log, a footer; no gmdesk code) popping
and pushing a ModalScreen form, hiding and showing the same form as an in-screen
overlay, appending one log line, updating one pane (a ``Static``).

Latency, "Enter → roll in the log": from the Enter written to the terminal until
the new roll's number (``#N``) is in what the app wrote, on the same pty (the
figures include the terminal round trip, as a GM's do). The anchor is a minimal
Textual app that, on Enter, writes and fsyncs a ~1 KB record, then appends a log
line; timed the same way. Target: gmdesk's p50 ≤ 5× the anchor's.

Options: ``--repeats N`` (default 5), ``--presses N`` latency presses (default 9).
"""

from __future__ import annotations

import argparse
import fcntl
import os
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

from benchmarks.report import Row, print_table

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>()][0-9A-Za-z]?")

KB = 1000.0
QUIET = 0.5  # seconds with nothing written: the screen has settled
ENTER, ESCAPE = b"\r", b"\x1b"
DIALOG = "Grievous Failure"  # the 4d2 odds preview's last line: the dialog is filled

# A bare Textual app of the desk's shape: no gmdesk code. Keys: o / Escape show and
# hide the form as an in-screen overlay, m / Escape push and pop it as a ModalScreen,
# l appends one log line, s updates one pane, Enter writes and fsyncs a ~1 KB record
# then appends a log line (the latency anchor).
ANCHOR_APP = r'''
import os, sys
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, RichLog, Static

FORM_CSS = """
.form { width: 64; height: 17; border: round $accent; background: $panel; padding: 0 1; }
.form Input { height: 1; border: none; }
"""

def form_widgets():
    yield Label("Roll — Kara attacks Bruno", classes="title")
    for name in ("Roller", "Target", "Skill", "Modifier", "Shift", "Note"):
        yield Label(name)
        yield Input(value=f"{name.lower()} value")
    yield Label("Odds: 62.5 % success · Enter rolls · Escape cancels")


class Form(ModalScreen):
    DEFAULT_CSS = "Form { align: center middle; }" + FORM_CSS
    BINDINGS = [Binding("escape", "dismiss", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="form"):
            yield from form_widgets()

    def on_mount(self) -> None:
        for i in self.query(Input):
            i.cursor_blink = False


class Overlay(Vertical):
    DEFAULT_CSS = "Overlay { display: none; layer: overlay; offset: 8 3; }"
    BINDINGS = [Binding("escape", "hide", "Cancel")]

    def compose(self) -> ComposeResult:
        yield from form_widgets()

    def action_hide(self) -> None:
        self.display = False
        self.app.query_one("#left").focus()


class Pane(Static, can_focus=True):
    """A focusable pane: as on gmdesk's desk, something on the screen has the focus."""


class Anchor(App):
    CSS = FORM_CSS + """
    Screen { layers: base overlay; }
    #bar { height: 1; background: $primary-background; }
    #top { height: 13; }
    .pane { width: 1fr; border: round $primary; }
    RichLog { height: 9; border: round $primary; }
    """
    BINDINGS = [
        Binding("o", "overlay", "Overlay"), Binding("m", "modal", "Modal"),
        Binding("l", "log_line", "Log"), Binding("s", "pane", "Pane"),
        Binding("enter", "roll", "Roll", priority=False),
    ]
    n = 0

    def compose(self) -> ComposeResult:
        yield Static("Anchor night · 4d2 · Round 8 · Vex's turn", id="bar")
        with Horizontal(id="top"):
            yield Pane(self.table(0), classes="pane", id="left")
            yield Static("\n".join(f"[b]Field {i}[/b]  value {i}" for i in range(11)), classes="pane")
        yield RichLog(id="log", markup=True)
        yield Overlay(classes="form")
        yield Footer()

    def table(self, turn):
        rows = ["Init Name        Side Health Status"]
        for i, who in enumerate(("Kara", "Mira", "Bruno", "Vex")):
            line = f"{19 - i:4} {who:<11} PC   ok"
            rows.append(f"[reverse]▶ {line}[/]" if i == turn % 4 else f"  {line}")
        return "\n".join(rows)

    def on_mount(self) -> None:
        for i in self.query(Input):
            i.cursor_blink = False
        log = self.query_one(RichLog)
        for i in range(12):
            log.write(f"[b]#{i}[/b] R8 Kara → Bruno: 4d2 +{i % 5} Success [positive 2 6 | negative −3]")
        self.query_one("#left").focus()

    def action_overlay(self) -> None:
        self.query_one(Overlay).display = True
        self.query_one(Overlay).query(Input).first().focus()

    def action_modal(self) -> None:
        self.push_screen(Form())

    def action_log_line(self) -> None:
        self.n += 1
        self.query_one(RichLog).write(f"[b]#{1000 + self.n}[/b] R8 Mira → Vex: 4d2 +{self.n % 5} Success")

    def action_pane(self) -> None:
        self.n += 1
        self.query_one("#left", Static).update(self.table(self.n))

    def action_roll(self) -> None:
        self.n += 1
        record = (f"{{\"seq\": {self.n}, \"type\": \"roll\"}}".ljust(1023) + "\n").encode()
        with open(sys.argv[1], "ab") as f:
            f.write(record)
            f.flush()
            os.fsync(f.fileno())
        self.query_one(RichLog).write(f"[b]#{5000 + self.n}[/b] R8 Mira → Vex: 4d2 +{self.n % 5} Success")


Anchor().run()
'''


class Pty:
    """A program on an 80×24 pseudo-terminal; every byte it writes is kept, with the
    time it arrived."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES", "TEXTUAL")}
        full_env.update({"TERM": "xterm-256color", "COLORTERM": "truecolor"})
        full_env.update(env or {})

        def ctty() -> None:
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.master = master
        self.buf = bytearray()
        self.last = time.perf_counter()
        self._lock = threading.Lock()
        self.proc = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, preexec_fn=ctty, close_fds=True, env=full_env
        )
        os.close(slave)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.buf.extend(data)
                self.last = time.perf_counter()

    def size(self) -> int:
        with self._lock:
            return len(self.buf)

    def text(self, since: int = 0) -> str:
        with self._lock:
            data = bytes(self.buf[since:])
        return ANSI.sub("", data.decode("utf-8", "replace"))

    def send(self, keys: bytes) -> float:
        os.write(self.master, keys)
        return time.perf_counter()

    def settle(self, quiet: float = QUIET, timeout: float = 30.0) -> None:
        """Until nothing has been written for ``quiet`` seconds."""
        start = time.perf_counter()
        time.sleep(quiet)
        while time.perf_counter() - self.last < quiet:
            if time.perf_counter() - start > timeout:
                raise RuntimeError("the screen never settled")
            if self.proc.poll() is not None:
                raise RuntimeError(f"the app ended:\n{self.text()[-2000:]}")
            time.sleep(0.01)

    def wait_for(self, marker: str, since: int, timeout: float = 30.0, after: int | None = None) -> float:
        """The time ``marker`` is first in what was written after offset ``since`` (with
        ``after``: a roll number ``#N R…`` greater than ``after``)."""
        start = time.perf_counter()
        while True:
            now = time.perf_counter()
            text = self.text(since)
            if after is None and marker in text or after is not None and _last_seq(text) > after:
                return now
            if now - start > timeout or self.proc.poll() is not None:
                raise RuntimeError(f"no {marker!r} after {now - start:.1f}s:\n{self.text(since)[-2000:]}")
            time.sleep(0.0005)

    def bytes_for(self, keys: bytes, marker: str, after: int | None = None) -> int:
        """Bytes written from ``keys`` until the screen has settled again: until
        ``marker`` (the text that shows the key's effect is done) is written, then a
        quiet moment. On a loaded machine a frame can come in bursts with pauses
        longer than the quiet moment between them: the marker keeps those apart."""
        before = self.size()
        self.send(keys)
        self.wait_for(marker, before, after=after)
        self.settle()
        return self.size() - before

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


def _gmdesk_bytes(saves: Path, path: Path, repeats: int, presses: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {k: [] for k in ("roll", "attack", "next", "undo", "latency")}
    gmdesk = Path(sys.executable).with_name("gmdesk")
    args = [str(gmdesk)] if gmdesk.exists() else [sys.executable, "-m", "gmdesk"]
    term = Pty([*args, "--saves", str(saves), str(path)], env={"GMDESK_KEYMAP": str(saves / "no-keymap.toml")})
    try:
        term.wait_for("Rolls", 0, timeout=60)
        term.settle(1.0)
        for _ in range(repeats):
            term.bytes_for(b"r", DIALOG)
            out["roll"].append(term.bytes_for(ENTER, "", after=_last_seq(term.text())) / KB)
            out["attack"].append(term.bytes_for(b"a", DIALOG) / KB)
            term.bytes_for(ESCAPE, "r Roll")
            out["next"].append(term.bytes_for(b"n", "'s turn") / KB)
            out["undo"].append(term.bytes_for(b"u", "'s turn") / KB)
        for _ in range(presses):
            seq = _last_seq(term.text())
            term.bytes_for(b"r", DIALOG)
            since = term.size()
            t0 = term.send(ENTER)
            out["latency"].append((term.wait_for("", since, after=seq) - t0) * 1000)
            term.settle()
    finally:
        term.close()
    return out


def _last_seq(text: str) -> int:
    """The greatest roll number ``#N`` shown as a roll log line in ``text`` (0: none)."""
    return max((int(m) for m in re.findall(r"#(\d+) R\d", text)), default=0)


def _anchor_bytes(tmp: Path, repeats: int, presses: int) -> dict[str, list[float]]:
    keys = ("modal pop", "overlay hide", "modal push", "overlay show", "log line", "static", "latency")
    out: dict[str, list[float]] = {k: [] for k in keys}
    script = tmp / "anchor_app.py"
    script.write_text(ANCHOR_APP)
    term = Pty([sys.executable, str(script), str(tmp / "anchor.records")])
    try:
        term.wait_for("Anchor night", 0, timeout=60)
        term.settle(1.0)
        for _ in range(repeats):
            out["modal push"].append(term.bytes_for(b"m", "Odds: 62.5") / KB)
            out["modal pop"].append(term.bytes_for(ESCAPE, "value 5") / KB)
            out["overlay show"].append(term.bytes_for(b"o", "Odds: 62.5") / KB)
            out["overlay hide"].append(term.bytes_for(ESCAPE, "value 5") / KB)
            out["log line"].append(term.bytes_for(b"l", "R8 Mira") / KB)
            out["static"].append(term.bytes_for(b"s", "Init Name") / KB)
        for n in range(presses):
            seq = 5000 + repeats * 2 + n + 1
            since = term.size()
            t0 = term.send(ENTER)
            out["latency"].append((term.wait_for(f"#{seq} ", since) - t0) * 1000)
            term.settle()
    finally:
        term.close()
    return out


def run(repeats: int = 5, presses: int = 9) -> list[Row]:
    from benchmarks.bench_tui import build_session

    with tempfile.TemporaryDirectory(prefix="gmdesk-bytes-") as tmp_name:
        tmp = Path(tmp_name)
        saves = tmp / "saves"
        path, _, _ = build_session(saves, "Bench bytes night", 300)
        gm = _gmdesk_bytes(saves, path, repeats, presses)
        anchor = _anchor_bytes(tmp, repeats, presses)
    med = {k: statistics.median(v) for k, v in gm.items()}
    am = {k: statistics.median(v) for k, v in anchor.items()}
    rows = [
        Row(
            "bytes: Enter → roll logged",
            med["roll"],
            am["modal pop"],
            "KB",
            "≤ 20 KB",
            med["roll"] <= 20,
            anchor_name="bare Textual, popping a ModalScreen form",
        ),
        Row(
            "  (anchor: hiding an in-screen overlay)",
            med["roll"],
            am["overlay hide"],
            "KB",
            "≤ 20 KB",
            med["roll"] <= 20,
            anchor_name="bare Textual, hiding the form as an in-screen overlay",
        ),
        Row(
            "  (anchor: one log line)",
            med["roll"],
            am["log line"],
            "KB",
            "≤ 20 KB",
            med["roll"] <= 20,
            anchor_name="bare Textual, appending one RichLog line",
        ),
        Row(
            "bytes: open the attack dialog",
            med["attack"],
            am["modal push"],
            "KB",
            "≤ 30 KB",
            med["attack"] <= 30,
            anchor_name="bare Textual, pushing a ModalScreen form",
        ),
        Row(
            "  (anchor: showing an in-screen overlay)",
            med["attack"],
            am["overlay show"],
            "KB",
            "≤ 30 KB",
            med["attack"] <= 30,
            anchor_name="bare Textual, showing the form as an in-screen overlay",
        ),
        Row(
            "bytes: n (next turn)",
            med["next"],
            am["static"],
            "KB",
            "≤ 12 KB",
            med["next"] <= 12,
            anchor_name="bare Textual, updating one pane (a Static)",
        ),
        Row(
            "bytes: u (undo)",
            med["undo"],
            am["static"],
            "KB",
            "≤ 12 KB",
            med["undo"] <= 12,
            anchor_name="bare Textual, updating one pane (a Static)",
        ),
        Row(
            "Enter → roll in the log, p50 (pty)",
            med["latency"],
            am["latency"],
            "ms",
            "≤ 5× anchor",
            med["latency"] <= 5 * am["latency"],
            anchor_name="bare Textual, write+fsync 1 KB then a log line",
        ),
    ]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_bytes")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--presses", type=int, default=9)
    ns, _rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)  # (`python -m benchmarks bytes`)
    print_table(
        "gmdesk bytes to the terminal and Enter → log latency, real pty 80×24 truecolor", run(ns.repeats, ns.presses)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
