"""Fault benchmark of the session store: SIGKILLs of a writer and mutations of its files.

    python -m benchmarks faults                      # 1,000 kills, 400 mutations
    GMDESK_FAULT_KILLS=3000 GMDESK_FAULT_MUTATIONS=1000 python -m benchmarks faults

**Kills.** ``tests/crash_writer.py`` appends events (single and batched), sets view
state and compacts every 16 records (plus explicit compactions), printing each
change once the store acknowledged it; it is SIGKILLed after a random delay. After
every kill the session is read back: every acknowledged event must be there with its
exact content, numbered 1..N, the view state at least as new as acknowledged. The
next writer recovers the same file, so recovery after a kill is exercised each time.
Outcomes are counted by class (killed during a compaction or an append, a torn last
record dropped on reopen, lost, unreadable).

**Mutations.** A session with a snapshot, a journal and a checkpoint is damaged in
one random way (a flipped byte anywhere in one of its files, a dropped, duplicated or
blank line, a truncation, an older journal swapped in, a deleted journal), then
opened read-only and for writing. Each outcome is classed: opened with the same
events (the damage hit only a cache), opened after dropping a torn last record (said
in a warning), refused with a one-line error naming the damage, or — the failures —
opened with different events without a word, a traceback, or a reader that changed
a file. The run fails (exit status 1) if any failure class is not zero.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WRITER = ROOT / "tests" / "crash_writer.py"


def _kill_once(path: Path, seed: int, delay: float) -> tuple[int, list[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(path), str(seed), "16"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    try:
        ready = proc.stdout.readline().decode()
        if not ready.startswith("ready "):
            raise RuntimeError(f"writer did not start: {ready!r} {proc.stderr.read().decode()}")
        before = int(ready.split()[1])
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        out, _err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return before, out.decode().splitlines()


def kills(n: int, workdir: Path, seed: int = 20261123) -> Counter:
    import gmdesk.core.session  # noqa: F401 - the real package (crash_writer only stubs it when it runs alone)

    sys.path.insert(0, str(ROOT / "tests"))
    from crash_writer import event_doc

    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.session.storage import EventLog

    rng = random.Random(seed)
    c: Counter = Counter()
    path = workdir / "kill-0.gmdesk"
    for trial in range(n):
        if trial and trial % 25 == 0:
            path = workdir / f"kill-{trial}.gmdesk"
        before, lines = _kill_once(path, trial, rng.uniform(0.0, 0.15))
        acked = [int(x.split()[1]) for x in lines if x.startswith("e ")]
        metas = [int(x.split()[1]) for x in lines if x.startswith("m ")]
        marks = [x for x in lines if x in ("c", "C")]
        c["kills"] += 1
        c["acknowledged changes"] += len(acked) + len(metas)
        c["killed during a compaction" if marks and marks[-1] == "c" else "killed during appends"] += 1
        try:
            with EventLog.open(path, readonly=True) as log:
                events = log.events()
                last_meta = log.meta_get("last")
                torn = any("incomplete last record" in w for w in log.warnings)
        except GmdeskError:
            c["unreadable after a kill (FAILURE)"] += 1
            continue
        c["torn last record dropped on reopen"] += torn
        ok = [s for s, _ in events] == list(range(1, len(events) + 1))
        ok = ok and (not acked or len(events) >= acked[-1])
        ok = ok and all(doc == event_doc(seq) for seq, doc in events)
        ok = ok and (not metas or (last_meta is not None and last_meta >= metas[-1]))
        if not ok:
            c["acknowledged change lost or damaged (FAILURE)"] += 1
    return c


# --------------------------------------------------------------------------- mutations


def _template(workdir: Path) -> Path:
    from gmdesk.core.session import Session, SessionStore

    store = SessionStore(workdir / "template")
    path = store.create("Mutations", "4d6")
    with Session.open(path) as s:
        cid = s.apply({"type": "character.add", "character": {"name": "Ann", "vitality": 10}}).data["id"]
        for i in range(1200):
            s.apply({"type": "note", "text": f"note {i} ø"})
        s.ui_set("selected", cid)
    s = Session.open(path)  # leave a journal (as a crash would) after the checkpoint written at close
    for i in range(40):
        s.apply({"type": "note", "text": f"late {i}"})
    s._log._storage.abandon()
    return path


def _files(path: Path) -> dict[str, bytes]:
    from gmdesk.core.session.storage import session_files

    return {f.name: f.read_bytes() for f in session_files(path) if not f.name.endswith(".lock")}


def _mutate(rng: random.Random, path: Path, old_journal: bytes) -> str:
    from gmdesk.core.session.storage import sidecar_paths

    paths = sidecar_paths(path)
    kind = rng.choice(
        [
            "flip",
            "flip",
            "flip",
            "drop line",
            "duplicate line",
            "blank line at end",
            "truncate",
            "old journal",
            "no journal",
        ]
    )
    target = rng.choice([paths["snapshot"], paths["journal"], paths["checkpoint"]])
    if kind == "old journal":
        paths["journal"].write_bytes(old_journal)
        return kind
    if kind == "no journal":
        paths["journal"].unlink()
        return kind
    data = bytearray(target.read_bytes())
    name = target.name.split(".gmdesk")[-1] or ".gmdesk"
    if kind == "flip":
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    elif kind in ("drop line", "duplicate line"):
        lines = bytes(data).split(b"\n")
        i = rng.randrange(len(lines) - 1)
        if kind == "drop line":
            del lines[i]
        else:
            lines.insert(i, lines[i])
        data = bytearray(b"\n".join(lines))
    elif kind == "blank line at end":
        data += b"\n"
    else:
        del data[rng.randrange(1, len(data)) :]
    target.write_bytes(bytes(data))
    return f"{kind} in {name}"


def mutations(n: int, workdir: Path, seed: int = 8) -> Counter:
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.session import Session
    from gmdesk.core.session.storage import session_files, sidecar_paths

    rng = random.Random(seed)
    template = _template(workdir)
    with Session.open(template, readonly=True) as s:
        want = [e.to_json() for e in s.events]
    # an older journal: the one before the last compaction of a copy
    old_dir = workdir / "old"
    old_dir.mkdir()
    for f in session_files(template):
        shutil.copy(f, old_dir / f.name)
    old_journal = sidecar_paths(old_dir / template.name)["journal"].read_bytes()
    with Session.open(old_dir / template.name) as s:
        s.apply({"type": "note", "text": "after"})
    c: Counter = Counter()
    for trial in range(n):
        d = workdir / f"m{trial}"
        d.mkdir()
        for f in session_files(template):
            if not f.name.endswith(".lock"):
                shutil.copy(f, d / f.name)
        path = d / template.name
        what = _mutate(rng, path, old_journal)
        c["mutations"] += 1
        before = _files(path)
        outcome = None
        for readonly in (True, False):
            try:
                with Session.open(path, readonly=readonly) as s:
                    got = [e.to_json() for e in s.events]
                    warned = any("incomplete last record" in w for w in s.warnings)
                if readonly and _files(path) != before:
                    outcome = "a reader changed a file (FAILURE)"
                elif got == want:
                    outcome = outcome or "opened, same events (cache or view state only)"
                elif warned and got == want[: len(got)]:
                    outcome = outcome or "opened, torn last record dropped and said"
                elif what.startswith("no journal") and got == want[: len(got)]:
                    outcome = outcome or "opened from the session file alone, said"
                else:
                    outcome = "opened with different events, unsaid (FAILURE)"
            except GmdeskError as e:
                if "\n" in str(e):
                    outcome = "error of more than one line (FAILURE)"
                elif readonly:
                    outcome = "refused with a one-line error naming the damage"
                if readonly and _files(path) != before:
                    outcome = "a reader changed a file (FAILURE)"
            except Exception as e:  # noqa: BLE001 - what we are hunting for
                outcome = f"traceback {type(e).__name__} (FAILURE)"
                break
            if readonly and outcome and "FAILURE" in outcome:
                break
        c[outcome] += 1
        shutil.rmtree(d)
    return c


def _table(title: str, c: Counter) -> None:
    print(title)
    for k, v in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {v:>9,}  {k}")


def main() -> int:
    n_kills = int(os.environ.get("GMDESK_FAULT_KILLS", "1000"))
    n_mut = int(os.environ.get("GMDESK_FAULT_MUTATIONS", "400"))
    with tempfile.TemporaryDirectory(prefix="gmdesk-faults-") as tmp:
        t0 = time.monotonic()
        k = kills(n_kills, Path(tmp))
        t1 = time.monotonic()
        _table(f"SIGKILL of a writer ({t1 - t0:.0f} s)", k)
        m = mutations(n_mut, Path(tmp))
        _table(f"mutations of snapshot, journal and checkpoint ({time.monotonic() - t1:.0f} s)", m)
    failures = sum(v for key, v in (k + m).items() if "FAILURE" in key)
    print(f"failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
