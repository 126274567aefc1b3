"""Kill -9 the writer at random moments: every acknowledged change survives.

A subprocess (tests/crash_writer.py) appends events, sets view state and compacts
often (every 16 journal records plus explicit compactions), printing each change
after the store acknowledged it. We SIGKILL it after a random (seeded) delay, then
check that the session loads, that every acknowledged event is present with its
exact content, that events are numbered 1..N without gaps, and that the view
state is at least as new as the last acknowledged one. The next trial's writer
recovers the same file, so recovery after a kill is exercised over and over.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gmdesk.core.session.storage import EventLog, session_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crash_writer import event_doc  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
WRITER = Path(__file__).resolve().parent / "crash_writer.py"
#: kills in the CI run; ``GMDESK_CRASH_KILLS=1000`` for the long run (or ``python -m
#: benchmarks faults``, which also mutates the files and prints outcomes by class)
TRIALS = int(os.environ.get("GMDESK_CRASH_KILLS", "120"))
FRESH_EVERY = 20  # start a new session file every so often to keep them small


def _run_and_kill(path: Path, seed: int, delay: float) -> tuple[int, list[str]]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(path), str(seed), "16"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )  # unbuffered: readline() must not swallow later lines
    try:
        ready = proc.stdout.readline().decode()
        assert ready.startswith("ready "), (ready, proc.stderr.read().decode())
        before = int(ready.split()[1])
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:  # pragma: no cover
            proc.kill()
            proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode()
    return before, out.decode().splitlines()


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path):
    rng = random.Random(20261121)
    path = tmp_path / "crash-0.gmdesk"
    kills_in_compaction = 0
    acked_total = 0
    start = time.monotonic()
    for trial in range(TRIALS):
        if trial and trial % FRESH_EVERY == 0:
            path = tmp_path / f"crash-{trial}.gmdesk"
        before, lines = _run_and_kill(path, seed=trial, delay=rng.uniform(0.0, 0.05))
        acked = [int(x.split()[1]) for x in lines if x.startswith("e ")]
        metas = [int(x.split()[1]) for x in lines if x.startswith("m ")]
        marks = [x for x in lines if x in ("c", "C")]
        if marks and marks[-1] == "c":
            kills_in_compaction += 1
        acked_total += len(acked)
        assert acked == list(range(before + 1, before + 1 + len(acked))), "writer skipped a seq"

        # The file always loads, for a follower and for the next writer alike.
        with EventLog.open(path, readonly=True) as log:
            events = log.events()
            last_meta = log.meta_get("last")
        seqs = [s for s, _ in events]
        assert seqs == list(range(1, len(events) + 1)), f"trial {trial}: gap in seqs"
        if acked:
            assert len(events) >= acked[-1], f"trial {trial}: acknowledged event {acked[-1]} lost"
        for seq, doc in events:
            assert doc == event_doc(seq), f"trial {trial}: event {seq} damaged"
        if metas:
            assert last_meta is not None and last_meta >= metas[-1], f"trial {trial}: meta went back"
        for f in session_files(path):
            assert (f.stat().st_mode & 0o777) == 0o600
    elapsed = time.monotonic() - start
    print(
        f"{TRIALS} kills, {acked_total} acknowledged events, {kills_in_compaction} kills during a "
        f"compaction, {elapsed:.1f} s"
    )
    assert acked_total > TRIALS  # the writer really was writing when killed
    assert kills_in_compaction >= 1
