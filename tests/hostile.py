"""Fault scripts: what other programs do to a session or a bestiary, with real
processes and real files. Each scenario is one try; the tests run a few tries, the
script many, and prints its figures::

    python tests/hostile.py [TRIES]          (default 10 tries of each scenario; nested:
                                             its 3 targets, each with 11 commands;
                                             bestiary: 3 × TRIES byte edits)

Scenarios (each returns the outcome of one try, a word; anything but the expected
word is a failure):

``takeover``   a writer rolls; another program deletes ``.lock`` and replaces the
               session file by rename (an editor, rsync, a sync tool), then a second
               ``gmdesk roll --save`` runs. Expected ``refused``: the second writer is
               refused (exit 2, one line), the first stops acknowledging before its
               next write saying why in one line, and every roll it acknowledged is in
               the session, in order.
``nested``     deeply nested JSON (100,000 levels) in a journal record, a session
               file, a checkpoint, bestiary.json, a TOML file to import: every command
               that reads it answers in one line (or its report). Expected ``one line``.
``tailcut``    whole records cut off the journal's end after a SIGKILL: damage, named
               (and a genuinely torn write still only a warning). Expected ``detected``.
``repair``     one edited digit in the session file and one damaged journal record:
               the repaired copy keeps every event that verifies. Expected ``all kept``.
``bestiary``   one changed byte of bestiary.json: refused, never rewritten. Expected
               ``refused``.
"""

from __future__ import annotations

import json
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
        # (not communicate(): it reads the pipe itself, missing what readline() buffered)
        assert proc.stdin is not None and proc.stderr is not None
        proc.stdin.close()
        out = proc.stdout.read()
        err = proc.stderr.read()
        proc.wait(timeout=60)
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
        extra = sorted(set(kept) - set(acked))
        return f"{len(kept) - len(acked)} rolls nobody acknowledged (#{extra}; {stop[:160]!r})"
    return "refused"


DEEP = 100_000


def _gmdesk(saves: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*GMDESK, "--saves", str(saves), *args],
        cwd=saves,
        env=_env(),
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
    )


def _judge(out: subprocess.CompletedProcess, codes: tuple[int, ...]) -> str:
    """``one line`` when the command answered hostile input as gmdesk should: no
    traceback, an expected exit status, at most one line on stderr."""
    if "Traceback" in out.stderr or "RecursionError" in out.stderr + out.stdout:
        return "traceback"
    if out.returncode not in codes:
        return f"exit {out.returncode}"
    if out.stderr.count("\n") > 1:
        return "several lines"
    return "one line"


def _nested_session(saves: Path, where: str) -> None:
    """The session "Docks" with deeply nested JSON ``where``: a journal record (its
    checksum made to match), the session file (an older layout, read whole), its
    checkpoint."""
    from gmdesk.core.session import Session, SessionStore
    from gmdesk.core.session.storage import sidecar_paths
    from gmdesk.core.session.storage.checksums import seal

    path = SessionStore(saves).create("Docks", "4d6")
    with Session.open(path) as s:
        s.apply({"type": "note", "text": "kept"})
    deep = "[" * DEEP + "]" * DEEP
    files = sidecar_paths(path)
    if where == "journal":
        with Session.open(path) as s:
            s.apply({"type": "note", "text": "also kept"})
            lsn = s._log._storage.lsn
            s._log._storage.abandon()
        rec = f'{{"n":{lsn + 1},"op":"put","tb":"meta","id":9,"doc":{{"key":"x","value":{deep}}}}}'
        with open(files["journal"], "a", encoding="utf-8") as f:
            f.write(seal(rec) + "\n")
    elif where == "session file":
        path.write_text('{"_gmdesk":{"format":"gmdesk-session","schema":1,"lsn":0,"header":{}},"x":' + deep + "}")
    elif where == "checkpoint":
        body = ('{"seq":1,"x":' + deep + "}").encode()
        import hashlib

        head = {
            "version": 1,
            "format": "gmdesk-checkpoint",
            "bytes": len(body),
            "sha256": hashlib.sha256(body).hexdigest(),
        }
        files["checkpoint"].write_bytes(json.dumps(head).encode() + b"\n" + body)


def nested(workdir: Path, seed: int = 0) -> str:
    """Deeply nested JSON (100,000 levels) in a journal record, the session file, its
    checkpoint, bestiary.json and a TOML file given to ``bestiary import``; every
    command that reads it answers in one line (or its report): ``one line`` when all
    of them did, else the first that did not."""
    wheres = ("journal", "session file", "checkpoint")
    where = wheres[seed % len(wheres)]
    saves = workdir / f"n{seed}"
    _nested_session(saves, where)
    commands: list[tuple[tuple[str, ...], tuple[int, ...]]] = [
        (("log", "Docks"), (0, 2) if where == "checkpoint" else (2,)),
        (("check", "Docks"), (0,) if where == "checkpoint" else (1,)),
        (("repair", "Docks"), (0, 2)),
        (("roll", "4d6", "--save", "Docks"), (0,) if where == "checkpoint" else (2,)),
    ]
    for args, codes in commands:
        verdict = _judge(_gmdesk(saves, *args), codes)
        if verdict != "one line":
            return f"{where}: {' '.join(args[:1])}: {verdict}"
    deep = "[" * DEEP + "]" * DEEP
    beast = saves / "bestiary.json"
    beast.write_text('{"about":{"1":{"format":"gmdesk-bestiary","version":1}},"stat_blocks":{"1":' + deep + "}}")
    toml = saves / "deep.toml"
    toml.write_text('[[stat_block]]\nname = "Deep"\nsystem = "4d6"\n[stat_block.fields]\nx = ' + deep + "\n")
    for args in (
        ("bestiary", "list"),
        ("bestiary", "show", "Bandit"),
        ("bestiary", "add", "Bandit", "--system", "4d6"),
        ("bestiary", "remove", "Bandit"),
        ("bestiary", "export", str(saves / "out.toml")),
        ("bestiary", "import", str(toml)),
    ):
        verdict = _judge(_gmdesk(saves, *args), (2,))
        if verdict != "one line":
            return f"bestiary.json: {' '.join(args[:2])}: {verdict}"
    beast.unlink()
    verdict = _judge(_gmdesk(saves, "bestiary", "import", str(toml)), (2,))
    if verdict != "one line":
        return f"bestiary import: {verdict}"
    return "one line"


def tailcut(workdir: Path, seed: int = 0) -> str:
    """A writer rolls and is killed (SIGKILL); then 3 to 15 whole records and part of
    one more are cut off the journal's end, as another program would. Expected
    ``detected``: `gmdesk check` reports the session DAMAGED naming the records
    missing, `gmdesk log` refuses it in one line, the writer too; and a genuinely torn
    write (part of a record nobody acknowledged) is still only a warning."""
    import random
    import signal

    from gmdesk.core.session import SessionStore
    from gmdesk.core.session.storage import sidecar_paths

    rng = random.Random(seed)
    saves = workdir / f"c{seed}"
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
    assert proc.stdout is not None
    try:
        if proc.stdout.readline().strip() != "ready":
            return "writer did not start"
        for _ in range(20 + rng.randrange(20)):
            proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    jpath = sidecar_paths(path)["journal"]
    data = jpath.read_bytes()
    lines = data.split(b"\n")[:-1]
    cut = rng.randint(3, 15)
    keep = lines[: len(lines) - cut - 1]
    partial = lines[len(lines) - cut - 1][: rng.randint(5, 40)]
    with open(jpath, "r+b") as f:  # in place, as `truncate` or a careless script would
        f.truncate(len(b"\n".join(keep)) + 1 + len(partial))
    check = _gmdesk(saves, "check", "Docks")
    if check.returncode != 1 or "DAMAGED" not in check.stdout or "missing" not in check.stdout:
        return f"check said: {check.stdout.strip()[:200]}"
    for args in (("log", "Docks"), ("roll", "4d6", "--save", "Docks")):
        out = _gmdesk(saves, *args)
        if _judge(out, (2,)) != "one line" or "missing" not in out.stderr:
            return f"{args[0]}: exit {out.returncode}: {out.stderr.strip()[:200]}"
    # the control: the same journal, whole, with part of a record nobody acknowledged
    jpath.write_bytes(data + b'{"n":99999,"op":"put","tb":"ev')
    check = _gmdesk(saves, "check", "Docks")
    if check.returncode != 0 or "incomplete last record" not in check.stdout:
        return f"a torn write was not taken for one: {check.stdout.strip()[:200]}"
    return "detected"


def repairs(workdir: Path, seed: int = 0) -> str:
    """A session of 1,200 events in its file and 40 rolls in its journal; one digit of
    one event in the file is edited and one journal record damaged (a flipped byte),
    both at random. Expected ``all kept``: the repaired copy holds every event whose
    checksum verifies (all but the edited event's block of 500 and the damaged record),
    each at its place, says which it left out, and its list line counts what it holds."""
    import random

    from gmdesk.core.session import Session, SessionStore
    from gmdesk.core.session.repair import repair
    from gmdesk.core.session.storage import BLOCK_EVENTS, EventLog, sidecar_paths

    rng = random.Random(seed)
    saves = workdir / f"r{seed}"
    store = SessionStore(saves)
    path = store.create("Docks", "4d6")
    with EventLog.open(path) as log:
        log.append_many(
            {"type": "note", "text": f"n{i}", "time": "2026-11-26T20:00:00+00:00", "summary": f"Note: n{i}"}
            for i in range(1, 1201)
        )
    s = Session.open(path)
    for _ in range(40):
        s.roll("4d6", {}, rng=rng)
    s._log._storage.abandon()  # killed: the rolls stay in the journal
    total = 1240
    victim = rng.randint(1, 1200)
    raw = path.read_bytes()
    at = raw.index(f'"text":"n{victim}"'.encode()) + len(f'"text":"n{victim}'.encode()) - 1
    path.write_bytes(raw[:at] + (b"0" if raw[at : at + 1] != b"0" else b"1") + raw[at + 1 :])
    jpath = sidecar_paths(path)["journal"]
    lines = jpath.read_bytes().split(b"\n")
    events_at = [i for i, ln in enumerate(lines) if b'"tb":"events"' in ln]
    k = rng.choice(events_at[1:-1])
    pos = rng.randrange(10, len(lines[k]) - 20)
    lines[k] = lines[k][:pos] + bytes([lines[k][pos] ^ 0x01]) + lines[k][pos + 1 :]
    jpath.write_bytes(b"\n".join(lines))
    dst, got = repair(path)
    block = (victim - 1) // BLOCK_EVENTS
    left = set(range(block * BLOCK_EVENTS + 1, min(1200, (block + 1) * BLOCK_EVENTS) + 1))
    lost_roll = 1200 + events_at.index(k) + 1
    left.add(lost_roll)
    with Session.open(dst, readonly=True) as r:
        kept = [e for e in r.events if "lost to damage" not in str(e.data.get("text", ""))]
        rolls = sum(1 for e in r.events if e.type == "roll")
        if len(r.events) != total:
            return f"places not kept ({len(r.events)} events)"
    if {e.seq for e in kept} != set(range(1, total + 1)) - left:
        return f"kept {len(kept)} of {total - len(left)} verifiable"
    if not any(f"#{lost_roll - 1200 + 1200}" in w or str(k + 1) in w for w in got.left_out):
        return f"did not say what it left out: {got.left_out}"
    line = next(x for x in store.list() if x.path == dst)
    if line.rolls != rolls or line.rolls != 39:
        return f"list line says {line.rolls} rolls, the copy holds {rolls}"
    return "all kept"


def bestiary_edit(workdir: Path, seed: int = 0) -> str:
    """One byte of bestiary.json (the starter bestiary, as gmdesk writes it) changed at
    random. Expected ``refused``: reading it says it is damaged in one line, a change
    is refused and the file is left byte for byte (``unchanged`` when the byte was
    changed to itself is not possible: every try changes it)."""
    import dataclasses
    import random

    from gmdesk.core.campaign.bestiary import Bestiary, BestiaryError, starter_blocks

    rng = random.Random(seed)
    saves = workdir / f"b{seed}"
    beast = Bestiary(saves)
    beast.ensure_starter()
    beast.add(dataclasses.replace(starter_blocks()[0], name="Written Once"))  # written by a change too
    raw = beast.path.read_bytes()
    at = rng.randrange(len(raw))
    new = rng.choice([c for c in b'abcdefghijklmnopqrstuvwxyz0123456789 ,:{}[]"-' if c != raw[at]])
    edited = raw[:at] + bytes([new]) + raw[at + 1 :]
    beast.path.write_bytes(edited)
    try:
        Bestiary(saves).blocks()
        return f"accepted (byte {at}: {raw[at : at + 1]!r} -> {bytes([new])!r})"
    except BestiaryError as e:
        if "\n" in str(e):
            return "several lines"
    try:
        Bestiary(saves).add(dataclasses.replace(starter_blocks()[1], name="After The Edit"))
        return "rewritten"
    except BestiaryError:
        pass
    return "refused" if beast.path.read_bytes() == edited else "file changed"


SCENARIOS = {
    "takeover": (takeover, "refused"),
    "nested": (nested, "one line"),
    "tailcut": (tailcut, "detected"),
    "repair": (repairs, "all kept"),
    "bestiary": (bestiary_edit, "refused"),
}


def main(argv: list[str]) -> int:
    tries = int(argv[0]) if argv else 10
    failed = 0
    with tempfile.TemporaryDirectory(prefix="gmdesk-hostile-") as tmp:
        for name, (fn, want) in SCENARIOS.items():
            outcomes: Counter[str] = Counter()
            t0 = time.perf_counter()
            n = {"nested": min(tries, 3), "bestiary": 3 * tries}.get(name, tries)
            for k in range(n):
                outcomes[fn(Path(tmp), k)] += 1
            good = outcomes[want]
            failed += n - good
            rest = "; ".join(f"{k}× {w}" for w, k in outcomes.items() if w != want)
            print(f"{name:12} {good}/{n} {want}" + (f"  FAILED: {rest}" if rest else ""), end="")
            print(f"  ({time.perf_counter() - t0:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
