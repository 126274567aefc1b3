"""Session store benchmark: append latency, compaction and open time.

    python -m benchmarks.bench_store [--dir DIR] [--samples N] [--quick] [--stock-50k-budget S]
                                     [--session-open-only] [--repeats N]

For histories of 500, 5,000 and 50,000 events it measures the latency of one
``EventLog.append`` (durable: write + fsync) beside a bare 300-byte write + fsync on
the same disk, interleaved sample by sample so both see the same conditions, and
beside stock TinyDB (``JSONStorage``: rewrites the whole file on every insert). Then
the cost of a compaction and the time to open a 50,000-event session in a fresh
process. Events are realistic roll events (~500 bytes of JSON). Stdlib ``json``.

Last, ``Session.open`` (read-only and writer) of sessions of 500, 5,000 and 50,000
events that fold (four characters in an encounter rolling 4d2 at each other, a
third of the rolls combat): from the checkpoint a writer left at close, and — for
reference — by replaying the whole log (no checkpoint). Each open runs in a fresh
process; the time to the first look (event count, last event, last roll's record)
is shown apart. ``--session-open-only`` runs just this section.

The rows of issue 22 (``--rows-only`` runs just them; ``--quick`` keeps them short),
each printed through :mod:`benchmarks.report` beside its anchor measured in the same run:

* ``roll --count N --save``, peak memory (peak RSS of the whole ``gmdesk roll``
  process) at several N, beside opening the session it wrote read-only; target
  ≤ 150 MB at any N.
* cost per acknowledged roll of ``roll --count N --save``: fsyncs a roll and CPU ms
  a roll (the run's cost less a one-roll run's, over the extra rolls; the median of
  ``--repeats`` runs, default 5), beside a bare write+fsync loop of a 300-byte line;
  target one fsync and ≤ 0.3 ms CPU a roll.
  ``--roll-cost-only N`` runs just these two rows, with N rolls (a few seconds).
* ``Session.open`` from the checkpoint at 1k / 10k / 50k / 200k events (fresh
  process, read-only) beside ``json.load`` of the save; target: grows with the
  state, not the history (200k ≤ 2× 10k).

Files go to a temporary directory under ``--dir`` (default ``benchmarks/out``, on
the repository's disk) and are removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tinydb import TinyDB
from tinydb.storages import JSONStorage

from benchmarks.report import Row, print_table
from gmdesk.core.dice import Descriptor, Die, RollRecord
from gmdesk.core.session.storage import EventLog, peek, sidecar_paths

REPO = Path(__file__).resolve().parent.parent
SIZES = (500, 5_000, 50_000)
TARGET_RATIO_BARE = 3.0
TARGET_RATIO_HISTORY = 1.3
TARGET_OPEN_S = 1.0
TARGET_SESSION_OPEN_S = 0.5


def make_event(i: int) -> dict:
    """A roll event as the session stores it: every third one a 4d2 combat roll with its
    descriptor (~620 bytes of JSON), the others plain rolls (~450 bytes)."""
    combat = i % 3 == 0
    rec = RollRecord(
        system="4d2",
        params={"shift": i % 3, "combat": combat, "target_kind": "organic", "attacker_kind": "organic"},
        dice=(
            Die(1 + i % 2, "positive", 2),
            Die(1 + (i // 2) % 2, "positive", 2),
            Die(1 + (i // 3) % 2, "negative", 2),
            Die(1 + (i // 5) % 2, "negative", 2),
        ),
        value=i % 7 - 3,
        outcome=("Failure", "Partial Success", "Success")[i % 3],
        extra={"number": i % 7 - 3, "shift": i % 3},
        descriptors=(Descriptor("Light Wound", "target", row=3),) if combat else (),
    )
    return {
        "type": "roll",
        "time": f"2026-11-21T22:{i % 60:02d}:{i % 59:02d}",
        "actor": f"c{i % 6}",
        "target": f"c{(i + 3) % 6}",
        "combat": combat,
        "record": rec.to_json(),
        "summary": f"Brannoc → guard: {('Failure', 'Partial Success', 'Success')[i % 3]}",
    }


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def ms(x: float) -> str:
    return f"{x * 1e3:8.3f}"


def build_session(path: Path, n: int) -> None:
    head = {"format": "gmdesk-session", "name": f"bench {n}", "system": "4d2", "settings": {}}
    with EventLog.create(path, head, compact_at=10**9) as log:
        for start in range(0, n, 1000):
            log.append_many([make_event(i) for i in range(start, min(n, start + 1000))])
        log.compact()


def bench_appends(paths: dict[int, Path], bare: Path, samples: int) -> dict:
    """Round robin, sample by sample: a bare 300-byte write+fsync, then one durable
    append to each session, so that every history size and the bare write see the
    same disk conditions. Then the time of the first and of a later compaction."""
    fd = os.open(bare, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    payload = b"x" * 299 + b"\n"
    logs = {n: EventLog.open(p) for n, p in paths.items()}
    out: dict = {"bare": [], **{n: {"store": []} for n in paths}}
    try:
        for i in range(samples):
            t = time.perf_counter()
            os.write(fd, payload)
            os.fsync(fd)
            out["bare"].append(time.perf_counter() - t)
            for n, log in logs.items():
                doc = make_event(n + i)
                t = time.perf_counter()
                log.append(doc)
                out[n]["store"].append(time.perf_counter() - t)
        for n, log in logs.items():
            t = time.perf_counter()
            log.compact()
            out[n]["compact_first"] = time.perf_counter() - t
            log.append(make_event(0))
            t = time.perf_counter()
            log.compact()
            out[n]["compact_later"] = time.perf_counter() - t
    finally:
        for log in logs.values():
            log.close()
        os.close(fd)
    return out


def bench_stock(path: Path, n: int, samples: int, budget: float) -> list[float]:
    db = TinyDB(path, storage=JSONStorage)
    db.table("events").insert_multiple(make_event(i) for i in range(n))
    lat: list[float] = []
    spent = 0.0
    for i in range(samples):
        doc = make_event(n + i)
        t = time.perf_counter()
        db.table("events").insert(doc)
        d = time.perf_counter() - t
        lat.append(d)
        spent += d
        if spent > budget and len(lat) >= 3:
            break
    db.close()
    return lat


OPEN_PROBE = """
import json, sys, time
t = time.perf_counter()
from gmdesk.core.session.storage import EventLog
t_import = time.perf_counter() - t
t = time.perf_counter()
log = EventLog.open(sys.argv[1], readonly=sys.argv[2] == "ro")
t_open = time.perf_counter() - t
t = time.perf_counter()
n = len(log.events())
t_events = time.perf_counter() - t
log.close()
print(json.dumps({"import": t_import, "open": t_open, "events": t_events, "n": n}))
"""


def bench_open(path: Path, mode: str, repeats: int) -> dict:
    runs = []
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", OPEN_PROBE, str(path), mode],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        runs.append(json.loads(out))
    return {k: statistics.median(r[k] for r in runs) for k in ("open", "events")} | {"n": runs[0]["n"]}


# --------------------------------------------------------------------------- Session.open


def session_docs(n: int, seed: int = 1, combat_rolls: bool = True) -> list[dict]:
    """``n`` stored events of a session that folds: four characters join and fight in
    an encounter (4d2 rolls at each other, every third one combat, a turn.next every
    fifth event) — what ``Session.roll`` / ``apply`` would have stored. Every combat
    roll leaves a wound: the characters' state grows with the history (at 200,000
    events they carry ~40,000 wounds). ``combat_rolls=False``: no roll is combat, so
    the state stays the same size whatever the history."""
    import random

    from gmdesk.core.systems import get_system

    four_d_two = get_system("4d2")
    rng = random.Random(seed)
    when = "2026-11-21T22:00:00+01:00"
    names = ["Kara", "Bruno", "Ivo", "Mags"]
    docs: list[dict] = []
    for i, name in enumerate(names, 1):
        docs.append(
            {
                "type": "character.add",
                "character": {"name": name, "vitality": 10},
                "id": f"c{i}",
                "time": when,
                "summary": f"{name} joins (PC, organic)",
                "effects": [],
            }
        )
    for i in range(1, 5):
        docs.append(
            {
                "type": "encounter.add",
                "id": f"c{i}",
                "time": when,
                "summary": f"{names[i - 1]} joins the encounter (initiative 0)",
                "effects": [],
            }
        )
    docs.append({"type": "round.new", "time": when, "summary": "Round 1 begins: Kara's turn", "effects": []})
    while len(docs) < n:
        k = len(docs)
        if k % 5 == 4:
            docs.append({"type": "turn.next", "time": when, "summary": "next turn", "effects": []})
            continue
        combat = combat_rolls and k % 3 == 0
        rec = four_d_two.roll(four_d_two.Params(combat=combat), rng)
        a, t = k % 4, (k + 1) % 4
        docs.append(
            {
                "type": "roll",
                "record": rec.to_json(),
                "actor": f"c{a + 1}",
                "target": f"c{t + 1}",
                "combat": combat,
                "time": when,
                "summary": f"{names[a]} rolls at {names[t]}: {rec.outcome}",
                "effects": [],
            }
        )
    return docs[:n]


def build_folding_session(path: Path, n: int, combat_rolls: bool = True) -> float:
    """Write the session straight through the store, then open and close it once as
    gmdesk does (a full replay; closing leaves the checkpoint). Returns that first
    open's time."""
    from gmdesk.core.session import Session
    from gmdesk.core.session.model import DEFAULT_SETTINGS

    docs = session_docs(n, combat_rolls=combat_rolls)
    header = {"format": "gmdesk-session", "name": f"bench {n}", "system": "4d2", "settings": DEFAULT_SETTINGS}
    with EventLog.create(path, header | {"created": "2026-11-21T22:00:00+01:00"}, compact_at=10**9) as log:
        for start in range(0, n, 2000):
            log.append_many(docs[start : start + 2000])
        log.compact()
    t = time.perf_counter()
    s = Session.open(path)
    first = time.perf_counter() - t
    s.close()
    return first


SESSION_PROBE = """
import json, sys, time
t = time.perf_counter()
from gmdesk.core.session import Session
from gmdesk.core.session.storage import EventLog
t_import = time.perf_counter() - t
path, mode = sys.argv[1], sys.argv[2]
if mode == "store":
    t = time.perf_counter()
    log = EventLog.open(path, readonly=True)
    out = {"open": time.perf_counter() - t, "n": log.count}
    log.close()
    print(json.dumps(out))
    raise SystemExit
Session.CHECKPOINTS = mode != "replay"
t = time.perf_counter()
s = Session.open(path, readonly=mode != "rw")
t_open = time.perf_counter() - t
t = time.perf_counter()
n = len(s.events)
last = s.events[-1].summary
rec = s.state.rolls[-1].record.to_json() if s.state.rolls else None
t_look = time.perf_counter() - t
out = {"import": t_import, "open": t_open, "look": t_look, "n": n, "checkpoint": s._ckpt_seq > 0}
s.close()
print(json.dumps(out))
"""


def bench_session_open(path: Path, mode: str, repeats: int) -> dict:
    """Median over fresh processes; ``mode``: store (EventLog.open, read-only), ro, rw,
    replay (read-only, checkpoint not used)."""
    runs = []
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", SESSION_PROBE, str(path), mode],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        runs.append(json.loads(out))
    keys = [k for k in ("open", "look") if k in runs[0]]
    return {k: statistics.median(r[k] for r in runs) for k in keys} | {
        "n": runs[0]["n"],
        "checkpoint": all(r.get("checkpoint", False) for r in runs),
    }


def session_open_section(directory: Path, repeats: int) -> bool:
    """Print the Session.open table; True when the targets are met."""
    print()
    print(f"Session.open (fresh process, median of {repeats}), s — target ≤ {TARGET_SESSION_OPEN_S} s at 50,000")
    print(
        f"{'events':>7} | {'store open':>10} | {'read-only':>9} {'writer':>7} | {'first look ms':>13} | "
        f"{'replay (no checkpoint)':>22} | {'first open + close':>18} | checkpoint file"
    )
    ok = True
    for n in SIZES:
        path = directory / f"session{n}.gmdesk"
        first = build_folding_session(path, n)
        ckpt = sidecar_paths(path)["checkpoint"]
        store_open = bench_session_open(path, "store", repeats)
        ro = bench_session_open(path, "ro", repeats)
        rw = bench_session_open(path, "rw", repeats)
        rp = bench_session_open(path, "replay", max(1, min(repeats, 3)))
        used = ro["checkpoint"] and rw["checkpoint"]
        print(
            f"{n:>7} | {store_open['open']:10.3f} | {ro['open']:9.3f} {rw['open']:7.3f} | {ro['look'] * 1e3:13.1f} | "
            f"{rp['open']:22.3f} | {first:18.3f} | {ckpt.stat().st_size / 1e6:.1f} MB"
            f"{'' if used else '  (NOT USED)'}",
            flush=True,
        )
        if n == 50_000:
            ok = used and max(ro["open"], rw["open"]) <= TARGET_SESSION_OPEN_S and store_open["open"] <= TARGET_OPEN_S
    print(
        f"  Session.open of 50,000 events ≤ {TARGET_SESSION_OPEN_S} s (read-only and writer, from the "
        f"checkpoint): {'ok' if ok else 'MISSED'}"
    )
    return ok


# --------------------------------------------------------------------------- issue 22 rows

#: peak memory target of ``roll --count N --save``, MB, at any N
TARGET_ROLL_PEAK_MB = 150.0
#: CPU a roll, ms
TARGET_ROLL_CPU_MS = 0.3
#: open from the checkpoint: the largest session over the 10,000-event one
TARGET_OPEN_GROWTH = 2.0

ROLL_COST_PROBE = """
import os, sys, time, json
saves, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fsyncs = [0]
def counting(real):
    def f(fd):
        fsyncs[0] += 1
        return real(fd)
    return f
os.fsync = counting(os.fsync)
os.fdatasync = counting(os.fdatasync)
sys.stdout = open(os.devnull, "w")
from gmdesk.cli.main import main
main(["--saves", saves, "new", "--system", "4d2", name])
def run(count):
    f0, c0 = fsyncs[0], time.process_time()
    assert main(["--saves", saves, "roll", "4d2", "--count", str(count), "--save", name]) == 0
    return fsyncs[0] - f0, time.process_time() - c0
run(1)  # imports, first open
f1, c1 = run(1)
fn, cn = run(n)
sys.__stdout__.write(json.dumps({"fsyncs": (fn - f1) / (n - 1), "cpu": (cn - c1) / (n - 1)}))
"""

BARE_PROBE = """
import os, sys, time, json
path, n = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
line = b"x" * 299 + b"\\n"
c0, t0 = time.process_time(), time.perf_counter()
for _ in range(n):
    os.write(fd, line)
    os.fsync(fd)
print(json.dumps({"cpu": (time.process_time() - c0) / n, "wall": (time.perf_counter() - t0) / n}))
"""


def _peak_rss_mb(cmd: list[str]) -> float:
    """Peak resident memory of the process ``cmd`` (MB), from its rusage."""
    env = dict(os.environ)
    proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:6]} failed ({proc.returncode}): {err[-500:]}")
    return usage.ru_maxrss / 1024  # KB on Linux


#: ``gmdesk roll …`` with fsync a no-op (``--no-fsync``: what a roll keeps in memory does
#: not depend on the disk; on a loaded machine a million fsyncs take hours)
NO_FSYNC_GMDESK = (
    "import os, sys; os.fsync = os.fdatasync = lambda fd: None; from gmdesk.cli.main import main; sys.exit(main())"
)


def roll_memory_rows(directory: Path, counts: list[int], fsync: bool = True) -> list[Row]:
    """Peak RSS of ``gmdesk roll 4d2 --count N --save`` beside opening what it wrote
    read-only, one row per N (``fsync=False``: the same run with fsync a no-op)."""
    rows = []
    saves = directory / "saves"
    gmdesk = [sys.executable, "-m", "gmdesk"] if fsync else [sys.executable, "-c", NO_FSYNC_GMDESK]
    note = "" if fsync else " (fsync off)"
    for n in counts:
        name = f"mem{n}"
        subprocess.run(
            [sys.executable, "-m", "gmdesk", "--saves", str(saves), "new", "--system", "4d2", name],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
        t = time.perf_counter()
        peak = _peak_rss_mb([*gmdesk, "--saves", str(saves), "roll", "4d2", "--count", str(n), "--save", name])
        took = time.perf_counter() - t
        path = saves / f"{name}.gmdesk"
        opener = f"from gmdesk.core.session import Session; Session.open({str(path)!r}, readonly=True).close()"
        anchor = _peak_rss_mb([sys.executable, "-c", opener])
        print(f"  roll --count {n:,} --save{note}: {took:.1f} s, peak {peak:.0f} MB", flush=True)
        rows.append(
            Row(
                f"roll --count {n:,} --save, peak memory{note}",
                peak,
                anchor,
                "MB",
                f"≤ {TARGET_ROLL_PEAK_MB:.0f} MB",
                met=peak <= TARGET_ROLL_PEAK_MB,
                anchor_name="opening the session it wrote, read-only (peak RSS)",
            )
        )
        for p in sorted(saves.glob(f"{name}.gmdesk*")):
            p.unlink()
    if len(rows) > 1:
        # flat means no growth: what each roll adds to the peak, between the smallest
        # and the largest N, and where that leads at the 1,000,000 the CLI accepts
        a, b = rows[0], rows[-1]
        slope = (b.gmdesk - a.gmdesk) / (counts[-1] - counts[0])
        anchor_slope = (b.anchor - a.anchor) / (counts[-1] - counts[0]) if a.anchor and b.anchor else None
        at_million = b.gmdesk + slope * (1_000_000 - counts[-1])
        rows.append(
            Row(
                f"roll --save, peak growth a roll ({counts[0]:,}→{counts[-1]:,}){note}",
                slope * 1024,
                None if anchor_slope is None else anchor_slope * 1024,
                "KB",
                "flat (≈ 0 KB a roll)",
                met=at_million <= TARGET_ROLL_PEAK_MB,
                anchor_name="opening the session it wrote, read-only (peak RSS)",
            )
        )
        rows.append(
            Row(
                f"roll --save peak at 1,000,000, extrapolated{note}"
                if counts[-1] < 1_000_000
                else f"roll --save peak at 1,000,000, measured{note}",
                at_million,
                None,
                "MB",
                f"≤ {TARGET_ROLL_PEAK_MB:.0f} MB",
                met=at_million <= TARGET_ROLL_PEAK_MB,
            )
        )
    return rows


def roll_cost_rows(directory: Path, n: int, repeats: int = 5) -> list[Row]:
    """fsyncs and CPU a roll of ``roll --count n --save`` (beyond a one-roll run) beside
    a bare 300-byte write+fsync loop: the median of ``repeats`` runs of each, taken in
    turn (a process's CPU for the same work moves by a third between runs on a shared
    machine; the spread is printed)."""
    env = dict(os.environ)

    def probe(code: str, *args: str) -> dict:
        out = subprocess.run(
            [sys.executable, "-c", code, *args], env=env, cwd=REPO, capture_output=True, text=True, check=True
        ).stdout
        return dict(json.loads(out.strip().splitlines()[-1]))

    runs, bares = [], []
    for i in range(repeats):
        runs.append(probe(ROLL_COST_PROBE, str(directory / f"cost{i}"), "cost", str(n)))
        bares.append(probe(BARE_PROBE, str(directory / f"bare-cost{i}"), str(n)))
    cpus = sorted(r["cpu"] * 1e3 for r in runs)
    print(f"  CPU a roll over {repeats} runs of {n:,} rolls: {cpus[0]:.3f} … {cpus[-1]:.3f} ms (median below)")
    got = {"fsyncs": max(r["fsyncs"] for r in runs), "cpu": statistics.median(r["cpu"] for r in runs)}
    bare = {"cpu": statistics.median(b["cpu"] for b in bares)}
    return [
        Row(
            f"roll --count {n:,} --save, fsyncs a roll",
            got["fsyncs"],
            1.0,
            "",
            "1 a roll",
            met=got["fsyncs"] <= 1.0 + 1e-3,
            anchor_name="bare write+fsync loop, 300-byte line",
        ),
        Row(
            f"roll --count {n:,} --save, CPU a roll",
            got["cpu"] * 1e3,
            bare["cpu"] * 1e3,
            "ms",
            f"≤ {TARGET_ROLL_CPU_MS} ms",
            met=got["cpu"] * 1e3 <= TARGET_ROLL_CPU_MS,
            anchor_name="bare write+fsync loop, 300-byte line",
        ),
    ]


def open_growth_rows(directory: Path, sizes: list[int], repeats: int, combat_rolls: bool = True) -> list[Row]:
    """Session.open from the checkpoint (fresh process, read-only) beside ``json.load``
    of the save, then the growth row (largest over 10,000). ``combat_rolls=False``: a
    session whose state stays the same size (no wounds pile up): what grows is only
    its history."""
    rows = []
    opened: dict[int, float] = {}
    what = "" if combat_rolls else " (state fixed: no combat)"
    for n in sizes:
        path = directory / f"open{n}.gmdesk"
        t = time.perf_counter()
        build_folding_session(path, n, combat_rolls)
        built = time.perf_counter() - t
        ro = bench_session_open(path, "ro", repeats)
        loads = []
        for _ in range(repeats):
            t = time.perf_counter()
            with open(path, "rb") as f:
                json.load(f)
            loads.append(time.perf_counter() - t)
        anchor = statistics.median(loads)
        opened[n] = ro["open"]
        ckpt = sidecar_paths(path)["checkpoint"].stat().st_size
        print(
            f"  {n:,} events{what}: built in {built:.1f} s; checkpoint {ckpt / 1e6:.2f} MB"
            f"{'' if ro['checkpoint'] else ' (NOT USED)'}",
            flush=True,
        )
        rows.append(
            Row(
                f"open from checkpoint, {n:,} events{what}",
                ro["open"] * 1e3,
                anchor * 1e3,
                "ms",
                "(growth row below)",
                met=ro["checkpoint"],
                anchor_name="json.load of the save",
            )
        )
        for p in sorted(directory.glob(f"open{n}.gmdesk*")):
            p.unlink()
    if 10_000 in opened and len(opened) > 1:
        top = max(opened)
        growth = opened[top] / opened[10_000]
        rows.append(
            Row(
                f"open {top:,} / open 10,000{what}",
                growth,
                float(top) / 10_000,
                "",
                f"≤ {TARGET_OPEN_GROWTH:.0f}×",
                met=growth <= TARGET_OPEN_GROWTH,
                anchor_name="the growth of the history itself (events / events)",
            )
        )
    return rows


def issue_rows(
    directory: Path, quick: bool, repeats: int, counts: list[int] | None = None, fsync: bool = True
) -> list[Row]:
    """The issue's three measures of the store; printed as one table."""
    if counts is None:
        # (quick: both runs pass a compaction — at 5,000 journal lines, when the journal's
        # run of events is read at once —, so that their difference is growth, not it)
        counts = [6_000, 12_000] if quick else [2_000, 20_000, 200_000, 1_000_000]
    rows = roll_cost_rows(directory, 1_000 if quick else 5_000, 3 if quick else 5)
    rows += roll_memory_rows(directory, counts, fsync)
    sizes = [1_000, 10_000, 40_000] if quick else [1_000, 10_000, 50_000, 200_000]
    runs = max(1, min(repeats, 2 if quick else repeats))
    rows += open_growth_rows(directory, sizes, runs)
    rows += open_growth_rows(directory, [10_000, sizes[-1]], runs, combat_rolls=False)
    return print_table("session store (issue 22)", rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_store", description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=str(REPO / "benchmarks" / "out"), help="where to put the temporary files")
    ap.add_argument("--samples", type=int, default=500, help="appends timed per history size (default 500)")
    ap.add_argument("--quick", action="store_true", help="the rows only, short (a minute or two on a busy machine)")
    ap.add_argument(
        "--stock-50k-budget",
        type=float,
        default=20.0,
        help="seconds allowed for stock TinyDB inserts at 50,000 events (0 to skip)",
    )
    ap.add_argument(
        "--session-open-only", action="store_true", help="only the Session.open section (500 / 5,000 / 50,000 events)"
    )
    ap.add_argument("--repeats", type=int, default=5, help="fresh-process opens per Session.open figure")
    ap.add_argument(
        "--rows-only", action="store_true", help="only the issue 22 rows (roll --save memory and cost, open growth)"
    )
    ap.add_argument(
        "--roll-cost-only",
        type=int,
        metavar="N",
        default=None,
        help="only the fsyncs and CPU a roll of roll --count N --save (seconds; e.g. 500)",
    )
    ap.add_argument(
        "--roll-counts",
        default=None,
        help="N of the roll --count N --save memory rows, comma-separated "
        "(default 6000,12000 with --quick, else 2000,20000,200000,1000000)",
    )
    ap.add_argument(
        "--no-fsync",
        action="store_true",
        help="the memory rows with fsync a no-op (memory does not depend on it; a million fsyncs take hours)",
    )
    if argv is None:  # called by `python -m benchmarks store`: sys.argv is the runner's
        args, _rest = ap.parse_known_args()
    else:
        args = ap.parse_args(argv)
    samples = 100 if args.quick else args.samples
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    if args.roll_cost_only is not None:
        with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-cost-") as tmp:
            print(f"gmdesk roll cost rows — files in {tmp} — python {sys.version.split()[0]}")
            rows = roll_cost_rows(Path(tmp), max(2, args.roll_cost_only), max(1, args.repeats))
            print_table("session store: cost a roll (issue 22)", rows)
            return 0 if all(r.met for r in rows) else 1
    if not args.session_open_only:
        # the issue's rows first (short with --quick), then — in a full run — the older sections
        with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-rows-") as tmp:
            print(f"gmdesk session store rows — files in {tmp} — python {sys.version.split()[0]}")
            counts = [int(x.replace("_", "")) for x in args.roll_counts.split(",")] if args.roll_counts else None
            issue_rows(Path(tmp), args.quick, args.repeats, counts, not args.no_fsync)
        if args.rows_only or args.quick:
            return 0
    if args.session_open_only:
        with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-open-") as tmp:
            print(f"gmdesk Session.open benchmark — files in {tmp} — python {sys.version.split()[0]}")
            session_open_section(Path(tmp), args.repeats)
        return 0
    rows: dict[int, dict] = {}
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-store-") as tmp:
        d = Path(tmp)
        print(f"gmdesk session store benchmark — files in {d} — python {sys.version.split()[0]}, stdlib json")
        sizes = [len(json.dumps(make_event(i), ensure_ascii=False, separators=(",", ":"))) for i in range(300)]
        print(f"event size: {min(sizes)}–{max(sizes)} bytes of JSON, mean {statistics.mean(sizes):.0f}")
        paths = {n: d / f"s{n}.gmdesk" for n in SIZES}
        for n, path in paths.items():
            t = time.perf_counter()
            build_session(path, n)
            rows[n] = {"build": time.perf_counter() - t, "size": path.stat().st_size}
            print(
                f"  built {n:>6} events ({rows[n]['size'] / 1e6:.1f} MB snapshot) in {rows[n]['build']:.1f} s",
                flush=True,
            )
        measured = bench_appends(paths, d / "bare", samples)
        bare_lat = measured["bare"]
        for n in SIZES:
            rows[n].update(measured[n])
            stock_n = {500: 100, 5_000: 40, 50_000: 10}[n]
            budget = {500: 30.0, 5_000: 30.0, 50_000: args.stock_50k_budget}[n]
            if n == 50_000 and (args.quick or budget <= 0):
                rows[n]["stock"] = None
            else:
                rows[n]["stock"] = bench_stock(d / f"stock{n}.json", n, stock_n, budget)
            if rows[n]["stock"] is not None:
                print(f"  stock TinyDB at {n:>6} events: {len(rows[n]['stock'])} inserts timed", flush=True)

        # open: compacted 50k, and 45k snapshot + 5k journal records (just before auto-compaction)
        big = d / "s50000.gmdesk"
        open_ro = bench_open(big, "ro", 5)
        open_rw = bench_open(big, "rw", 5)
        mixed = d / "mixed.gmdesk"
        with EventLog.create(mixed, {"name": "mixed"}, compact_at=10**9, compact_on_close=False) as log:
            for start in range(0, 45_000, 1000):
                log.append_many([make_event(i) for i in range(start, start + 1000)])
            log.compact()
            for start in range(45_000, 50_000, 1000):
                log.append_many([make_event(i) for i in range(start, start + 1000)])
        open_mixed = bench_open(mixed, "ro", 5)
        peeks = []
        for _ in range(5):
            t = time.perf_counter()
            peek(mixed)
            peeks.append(time.perf_counter() - t)
        peek_s = statistics.median(peeks)

    print()
    print("Append latency, ms (one durable event; all sizes and the bare 300-byte write+fsync interleaved)")
    print(
        f"{'history':>8} | {'store med':>9} {'p99':>8} {'max':>8} | {'ratio to bare':>13} | "
        f"{'stock TinyDB med':>16} {'p99':>8} {'n':>3}"
    )
    bm = statistics.median(bare_lat)
    print(f"{'bare':>8} | {ms(bm):>9} {ms(pct(bare_lat, 0.99))} {ms(max(bare_lat))} | {'1.00':>13} |")
    for n, r in rows.items():
        sm = statistics.median(r["store"])
        stock = r["stock"]
        stock_txt = (
            f"{ms(statistics.median(stock)):>16} {ms(pct(stock, 0.99))} {len(stock):>3}"
            if stock
            else f"{'(skipped)':>16} {'':>8} {'':>3}"
        )
        print(f"{n:>8} | {ms(sm):>9} {ms(pct(r['store'], 0.99))} {ms(max(r['store']))} | {sm / bm:13.2f} | {stock_txt}")
    if rows[50_000]["stock"] is not None:
        print(
            f"  (stock TinyDB at 50,000: {len(rows[50_000]['stock'])} inserts within the "
            f"{args.stock_50k_budget:.0f} s budget — every insert rewrites the whole file)"
        )
    print()
    print("Compaction, ms (whole snapshot rewritten + new journal; first after open / later ones)")
    for n, r in rows.items():
        print(f"{n:>8} | {ms(r['compact_first'])} / {ms(r['compact_later'])}")
    print()
    print("Open (fresh process, median of 5), s")
    print(f"  50,000 compacted, read-only : open {open_ro['open']:.3f}  + events() {open_ro['events']:.3f}")
    print(f"  50,000 compacted, writer    : open {open_rw['open']:.3f}  + events() {open_rw['events']:.3f}")
    print(f"  45,000 + 5,000 in journal   : open {open_mixed['open']:.3f}  + events() {open_mixed['events']:.3f}")
    print(f"  peek (header + count) of the 45,000 + 5,000 session: {peek_s:.3f}")

    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-open-") as tmp:
        session_ok = session_open_section(Path(tmp), args.repeats)

    med = {n: statistics.median(r["store"]) for n, r in rows.items()}
    bare_all = statistics.median(bare_lat)
    worst_ratio = max(med.values()) / bare_all
    hist_ratio = med[50_000] / med[500]
    print()
    print("Targets")
    print(
        f"  append median ≤ {TARGET_RATIO_BARE}× bare write+fsync : worst {worst_ratio:.2f}× "
        f"(bare median {bare_all * 1e3:.3f} ms)  {'ok' if worst_ratio <= TARGET_RATIO_BARE else 'MISSED'}"
    )
    print(
        f"  median at 50,000 / at 500 ≤ {TARGET_RATIO_HISTORY}       : {hist_ratio:.2f}  "
        f"{'ok' if hist_ratio <= TARGET_RATIO_HISTORY else 'MISSED'}"
    )
    print(
        f"  open 50,000 events ≤ {TARGET_OPEN_S:.0f} s             : {open_rw['open']:.3f} s (writer), "
        f"{open_ro['open']:.3f} s (read-only)  "
        f"{'ok' if max(open_rw['open'], open_ro['open']) <= TARGET_OPEN_S else 'MISSED'}"
    )
    print(
        f"  Session.open 50,000 events ≤ {TARGET_SESSION_OPEN_S} s  : {'ok' if session_ok else 'MISSED'} (table above)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
