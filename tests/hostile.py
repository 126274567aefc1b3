"""Fault scripts: what other programs do to a session or a bestiary, with real
processes and real files. Each scenario is one try; the tests run a few tries, the
script many, and prints its figures::

    python tests/hostile.py [TRIES]          (default 10 tries of each scenario)

Scenarios (each returns the outcome of one try, a word; anything but the expected
word is a failure):

``takeover``   a writer rolls; another program deletes ``.lock`` and replaces the
               session file by rename (an editor, rsync, a sync tool), then a second
               ``gmdesk roll --save`` runs. Expected ``refused``: the second writer is
               refused (exit 2, one line), the first stops acknowledging before its
               next write saying why in one line, and every roll it acknowledged is in
               the session, in order.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GMDESK = [sys.executable, "-m", "gmdesk"]

#: the first writer: rolls until its session refuses, printing each acknowledged roll
WRITER = r"""
import random, sys, time
from gmdesk.core.session import Session
s = Session.open(sys.argv[1])
print("ready", flush=True)
rng = random.Random(7)
i = 0
try:
    while True:
        e = s.roll("4d6", {}, rng=rng)
        print("ack", e.seq, e.summary, flush=True)
        i += 1
        time.sleep(0.005)
except Exception as err:
    print("stop", type(err).__name__, str(err).replace("\n", " "), flush=True)
    sys.stdin.read()  # the session stays open (read-only, as the desk keeps it) until told
finally:
    s.close()
"""


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONDONTWRITEBYTECODE="1")


def takeover(workdir: Path, seed: int = 0) -> str:
    """One try of the takeover scenario (see the module docstring)."""
    from gmdesk.core.session import Session, SessionStore
    from gmdesk.core.session.storage import sidecar_paths

    saves = workdir / f"t{seed}"
    path = SessionStore(saves).create("Docks", "4d6")
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)],
        cwd=workdir,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acked: dict[int, str] = {}
    try:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            return "writer did not start: " + proc.stderr.read()[-300:]
        for _ in range(10 + seed % 7):
            word, seq, summary = proc.stdout.readline().rstrip("\n").split(" ", 2)
            acked[int(seq)] = summary
        paths = sidecar_paths(path)
        paths["lock"].unlink()
        fresh = path.with_name(path.name + ".sync")
        fresh.write_bytes(path.read_bytes())
        os.replace(fresh, path)  # what an editor or rsync does
        second = subprocess.run(
            [*GMDESK, "--saves", str(saves), "roll", "4d6", "--save", "Docks"],
            cwd=workdir,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        out, err = proc.communicate("", timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stop = ""
    for line in out.splitlines():
        if line.startswith("ack "):
            _, seq, summary = line.split(" ", 2)
            acked[int(seq)] = summary
        elif line.startswith("stop "):
            stop = line
    if second.returncode != 2 or second.stderr.count("\n") != 1 or "is open in gmdesk" not in second.stderr:
        return f"second writer not refused (exit {second.returncode}: {second.stderr.strip()[:200]})"
    if "SessionChangedError" not in stop or "changed on disk" not in stop:
        return f"first writer did not stop saying why ({stop or err[-200:]!r})"
    with Session.open(path, readonly=True) as s:
        kept = {e.seq: e.summary for e in s.events}
    if any(kept.get(seq) != summary for seq, summary in acked.items()):
        return "acknowledged rolls lost"
    if len(kept) != len(acked):
        return f"{len(kept) - len(acked)} rolls nobody acknowledged"
    return "refused"


SCENARIOS = {"takeover": (takeover, "refused")}


def main(argv: list[str]) -> int:
    tries = int(argv[0]) if argv else 10
    failed = 0
    with tempfile.TemporaryDirectory(prefix="gmdesk-hostile-") as tmp:
        for name, (fn, want) in SCENARIOS.items():
            outcomes: Counter[str] = Counter()
            t0 = time.perf_counter()
            for k in range(tries):
                outcomes[fn(Path(tmp), k)] += 1
            good = outcomes[want]
            failed += tries - good
            rest = "; ".join(f"{n}× {w}" for w, n in outcomes.items() if w != want)
            print(f"{name:12} {good}/{tries} {want}" + (f"  FAILED: {rest}" if rest else ""), end="")
            print(f"  ({time.perf_counter() - t0:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
