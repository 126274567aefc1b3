"""Helper for tests/test_crash.py: a gmdesk writer that is about to be killed.

    python tests/crash_writer.py PATH SEED [COMPACT_AT]

Opens (or creates) the session at PATH as the writer and, until killed, appends
events, sets view state and compacts often. It prints one line per acknowledged
change, *after* the store call returned:

    ready <count>        the session is open; <count> events were already there
    e <seq>              event <seq> is durable (its content is ``event_doc(seq)``)
    m <value>            meta "last" = <value> is durable
    c / C                a compaction starts / finished

The test kills it with SIGKILL at a random moment and checks that every
acknowledged change is on disk.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path


def _import_store():
    """Import core.session.storage without running core/session/__init__.py (the whole
    rules engine): the crash test starts this script 120 times and only needs the
    store, which imports nothing else from the package but the lock."""
    import types

    import gmdesk.core

    if "gmdesk.core.session" not in sys.modules:
        pkg = types.ModuleType("gmdesk.core.session")
        pkg.__path__ = [str(Path(gmdesk.core.__path__[0]) / "session")]
        sys.modules["gmdesk.core.session"] = pkg
        gmdesk.core.session = pkg  # type: ignore[attr-defined]
    from gmdesk.core.session import storage

    return storage


EventLog = _import_store().EventLog


def event_doc(seq: int) -> dict:
    """The content of event ``seq`` (deterministic, 300–600 bytes of JSON)."""
    return {
        "type": "roll",
        "seq_check": seq,
        "actor": f"c{seq % 5}",
        "target": f"c{(seq * 7) % 5}",
        "record": {
            "system": "torg-2d10",
            "params": {"skill": seq % 17, "combat": True},
            "dice": [{"value": 1 + (seq * k) % 10, "role": "hot", "sides": 10} for k in (3, 7)],
            "value": seq % 21 - 10,
            "outcome": ["Failure", "Success", "Good", "Superior"][seq % 4],
        },
        "note": "ø" * (seq % 37) + "x" * (seq % 151),
    }


def main() -> None:
    path = Path(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    compact_at = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    out = sys.stdout
    if path.exists():
        log = EventLog.open(path, compact_at=compact_at)
    else:
        log = EventLog.create(path, {"name": "crash", "system": "torg-2d10"}, compact_at=compact_at)
    out.write(f"ready {log.count}\n")
    out.flush()
    deadline = time.monotonic() + 30  # never outlive a broken test run
    while time.monotonic() < deadline:
        r = rng.random()
        nxt = log.count + 1
        if r < 0.70:
            seq = log.append(event_doc(nxt))
            out.write(f"e {seq}\n")
        elif r < 0.85:
            k = rng.randint(2, 4)
            seqs = log.append_many([event_doc(nxt + i) for i in range(k)])
            out.write("".join(f"e {s}\n" for s in seqs))
        elif r < 0.95:
            log.meta_set("last", nxt - 1)
            out.write(f"m {nxt - 1}\n")
        else:
            out.write("c\n")
            out.flush()
            log.compact()
            out.write("C\n")
        out.flush()
    log.close()


if __name__ == "__main__":
    main()
