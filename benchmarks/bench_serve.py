"""``gmdesk serve`` with a full table: `python -m benchmarks.bench_serve` prints a table.

The real command (``gmdesk serve SAVE --port 0 --ssh-port 0 --max-viewers 20``) serves
a copy of the shipped example "Festival Infiltration" to ten browser viewers —
websocket clients speaking textual-serve's protocol at 80×24, as ten browser tabs
would — and ten SSH viewers (asyncssh's client with an 80×24 terminal, as ten players'
``ssh`` would), each reading everything the server sends. Then:

1. **Memory per viewer**: RSS and PSS (``/proc/PID/smaps_rollup``; PSS shares the
   libraries fairly) of each ``gmdesk view`` process, browser and SSH apart, and the
   server's own.
2. **Idle CPU**: server and viewers together, over ``--idle`` seconds with nothing
   happening (utime + stime from ``/proc``), as a share of one core. Target: < 3 %
   for all twenty.
3. **Append → viewer update**: for ``--seconds`` (default 20) a writer (the GM's
   desk, ``Session.roll``) appends a roll every ``--every`` seconds; for each roll and
   each viewer, the time from the append's return (saved, fsynced) until that
   viewer's stream carries the roll's log line (``#seq R…``). Target: p95 ≤ 1 s,
   browser and SSH viewers alike. CPU over these busy seconds is shown too.

The clients run in this process and are not counted in the CPU figures. The server's
SSH host key goes to a temporary state directory, never the user's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>()][0-9A-Za-z]?")
TICK = os.sysconf("SC_CLK_TCK")
SAVE = "Festival Infiltration"
KINDS = ("browser", "ssh")


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def memory_kib(pid: int) -> tuple[int, int]:
    rss = pss = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Rss:"):
            rss = int(line.split()[1])
        elif line.startswith("Pss:"):
            pss = int(line.split()[1])
    return rss, pss


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(entry))
    return out


class Viewer:
    """One viewer's stream: when each wanted roll line arrived."""

    kind = "browser"

    def __init__(self, ws):
        self.ws = ws
        self.tail = ""
        self.seen: dict[str, float] = {}
        self.wanted: set[str] = set()
        self.ready = asyncio.Event()
        self.pid: int | None = None

    def heard(self, data: bytes) -> None:
        now = time.monotonic()
        text = self.tail + ANSI.sub("", data.decode("utf-8", "replace"))
        if "following" in text:
            self.ready.set()
        for marker in list(self.wanted):
            if marker in text:
                self.seen[marker] = now
                self.wanted.discard(marker)
        self.tail = text[-200:]

    async def read(self) -> None:
        import aiohttp

        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.heard(message.data)


class SshViewer(Viewer):
    kind = "ssh"

    def __init__(self, conn, process):
        super().__init__(None)
        self.conn = conn
        self.process = process

    async def read(self) -> None:
        while data := await self.process.stdout.read(65536):
            self.heard(data)


def viewer_kind(pid: int) -> str:
    """A browser's viewer reads a pipe; an SSH viewer its pseudo-terminal."""
    try:
        return "ssh" if os.readlink(f"/proc/{pid}/fd/0").startswith("/dev/pts/") else "browser"
    except OSError:
        return "?"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def run(args: argparse.Namespace) -> dict:
    import aiohttp
    import asyncssh

    from gmdesk.core.session import Session, SessionStore

    saves = Path(tempfile.mkdtemp(prefix="gmdesk-bench-serve-"))
    state = saves / "state"  # the server's SSH host key: never in the user's state directory
    try:
        path = SessionStore(saves).create_from_example(ROOT / "saves" / f"{SAVE}.gmdesk", SAVE)
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gmdesk",
                "--saves",
                str(saves),
                "serve",
                SAVE,
                "--port",
                "0",
                "--max-viewers",
                str(args.viewers + args.ssh_viewers),
                "--ssh-port",
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=ROOT,
            env={**os.environ, "XDG_STATE_HOME": str(state)},
        )
        lines: list[str] = []
        threading.Thread(target=lambda: lines.extend(iter(server.stdout.readline, "")), daemon=True).start()
        url = ssh_port = None
        for _ in range(600):
            text = "".join(lines)
            url = next((m.group(0) for m in [re.search(r"http://\S+/", text)] if m), None)
            port = re.search(r"ssh -p (\d+) ", text)
            if (url and port and "host key" in text) or server.poll() is not None:
                ssh_port = int(port.group(1)) if port else None
                break
            await asyncio.sleep(0.05)
        if url is None or ssh_port is None:
            raise SystemExit("gmdesk serve did not start:\n" + "".join(lines))
        token = url.rstrip("/").rsplit("/", 1)[1]
        ws_url = "ws" + url[4:] + "ws?width=80&height=24"
        conns = []
        try:
            async with aiohttp.ClientSession() as http:
                viewers: list[Viewer] = []
                for _ in range(args.viewers):  # one at a time, as players arrive
                    viewers.append(Viewer(await http.ws_connect(ws_url, max_msg_size=0)))
                    await asyncio.sleep(0.05)
                for _ in range(args.ssh_viewers):
                    conn = await asyncssh.connect(
                        "127.0.0.1",
                        ssh_port,
                        username="player",
                        password=token,
                        known_hosts=None,
                        client_keys=None,
                        agent_path=None,
                    )
                    conns.append(conn)
                    process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
                    viewers.append(SshViewer(conn, process))
                readers = [asyncio.create_task(v.read()) for v in viewers]
                await asyncio.wait_for(asyncio.gather(*(v.ready.wait() for v in viewers)), 180)
                pids = children(server.pid)
                await asyncio.sleep(3)  # start-up work done

                memory = {kind: [memory_kib(pid) for pid in pids if viewer_kind(pid) == kind] for kind in KINDS}
                server_memory = memory_kib(server.pid)

                everyone = [server.pid, *pids]
                start = {pid: cpu_seconds(pid) for pid in everyone}
                t0 = time.monotonic()
                await asyncio.sleep(args.idle)
                idle_elapsed = time.monotonic() - t0
                idle_cpu = sum(cpu_seconds(pid) - start[pid] for pid in everyone) / idle_elapsed
                idle_server = (cpu_seconds(server.pid) - start[server.pid]) / idle_elapsed

                start = {pid: cpu_seconds(pid) for pid in everyone}
                t0 = time.monotonic()
                appended: dict[str, float] = {}
                with Session.open(path) as writer:
                    actor = writer.character("Renna").id
                    n = 0
                    while time.monotonic() - t0 < args.seconds:
                        marker = None
                        event = await asyncio.to_thread(writer.roll, "4d6", {"bonus": 2}, actor)
                        done = time.monotonic()
                        entry = writer.state.rolls[-1]
                        marker = f"#{entry.seq} R{entry.round} Renna: 4d6"
                        appended[marker] = done
                        for v in viewers:
                            if marker not in v.seen:
                                v.wanted.add(marker)
                        n += 1
                        await asyncio.sleep(max(0.0, t0 + n * args.every - time.monotonic()))
                        del event
                    await asyncio.sleep(2.0)  # the last roll's updates
                busy_elapsed = time.monotonic() - t0
                busy_cpu = sum(cpu_seconds(pid) - start[pid] for pid in everyone) / busy_elapsed

                latencies = {
                    kind: [
                        v.seen[m] - t for m, t in appended.items() for v in viewers if v.kind == kind and m in v.seen
                    ]
                    for kind in KINDS
                }
                missed = sum(1 for m in appended for v in viewers if m not in v.seen)
                for task in readers:
                    task.cancel()
        finally:
            for conn in conns:
                conn.close()
            t_stop = time.monotonic()
            server.send_signal(signal.SIGTERM)
            server.wait(30)
            stop_time = time.monotonic() - t_stop
        left = [
            pid
            for pid in pids
            if Path(f"/proc/{pid}").exists()
            and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        ]
        return {
            "viewers": {kind: sum(1 for v in viewers if v.kind == kind) for kind in KINDS},
            "processes": len(pids),
            "memory": memory,
            "server_memory": server_memory,
            "idle_cpu": idle_cpu,
            "idle_server": idle_server,
            "idle_seconds": idle_elapsed,
            "busy_cpu": busy_cpu,
            "busy_seconds": busy_elapsed,
            "rolls": len(appended),
            "latencies": latencies,
            "missed": missed,
            "stop_time": stop_time,
            "left": left,
        }
    finally:
        shutil.rmtree(saves, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_serve")
    parser.add_argument("--viewers", type=int, default=10, help="browser viewers")
    parser.add_argument("--ssh-viewers", type=int, default=10, help="SSH viewers")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long rolls are appended")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between rolls")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU measured")
    args = parser.parse_args(sys.argv[1:] if argv is None and __name__ == "__main__" else argv or [])
    r = asyncio.run(run(args))
    every = [x for kind in KINDS for x in r["latencies"][kind]]
    p95 = percentile(every, 0.95) if every else float("inf")
    rows = [
        (
            "viewers (gmdesk view processes)",
            f"{r['processes']}: {r['viewers']['browser']} browser + {r['viewers']['ssh']} SSH",
            "",
        ),
    ]
    for kind in KINDS:
        rss = [m[0] / 1024 for m in r["memory"][kind]] or [0.0]
        pss = [m[1] / 1024 for m in r["memory"][kind]] or [0.0]
        rows += [
            (f"memory per {kind} viewer, RSS (median / max)", f"{statistics.median(rss):.1f} / {max(rss):.1f} MiB", ""),
            (f"memory per {kind} viewer, PSS (median / max)", f"{statistics.median(pss):.1f} / {max(pss):.1f} MiB", ""),
        ]
    rows += [
        ("server RSS", f"{r['server_memory'][0] / 1024:.1f} MiB", ""),
        (
            f"idle CPU, server + all viewers ({r['idle_seconds']:.0f} s)",
            f"{100 * r['idle_cpu']:.2f} % of a core",
            "< 3 %: " + ("ok" if r["idle_cpu"] < 0.03 else "MISSED"),
        ),
        ("  of which the server", f"{100 * r['idle_server']:.2f} %", ""),
        (
            f"CPU while rolling ({r['rolls']} rolls in {r['busy_seconds']:.0f} s)",
            f"{100 * r['busy_cpu']:.2f} % of a core",
            "",
        ),
    ]
    for kind in KINDS:
        lat = r["latencies"][kind]
        kp95 = percentile(lat, 0.95) if lat else float("inf")
        rows += [
            (f"append → {kind} viewer update, p50", f"{1000 * statistics.median(lat):.0f} ms" if lat else "-", ""),
            (
                f"append → {kind} viewer update, p95",
                f"{1000 * kp95:.0f} ms",
                "≤ 1 s: " + ("ok" if kp95 <= 1.0 else "MISSED"),
            ),
            (f"append → {kind} viewer update, max", f"{1000 * max(lat):.0f} ms" if lat else "-", ""),
        ]
    rows += [
        ("append → any viewer update, p95", f"{1000 * p95:.0f} ms", "≤ 1 s: " + ("ok" if p95 <= 1.0 else "MISSED")),
        ("updates never seen", f"{r['missed']} of {r['rolls'] * (args.viewers + args.ssh_viewers)}", ""),
        (
            "SIGTERM → server gone, viewers left",
            f"{1000 * r['stop_time']:.0f} ms, {len(r['left'])} left",
            "≤ 1 s: " + ("ok" if r["stop_time"] <= 1.0 and not r["left"] else "MISSED"),
        ),
    ]
    width = max(len(a) for a, _, _ in rows)
    vwidth = max(len(b) for _, b, _ in rows)
    print(f"{'gmdesk serve':<{width}}  {'value':<{vwidth}}  target")
    for a, b, c in rows:
        print(f"{a:<{width}}  {b:<{vwidth}}  {c}")


if __name__ == "__main__":
    main()
