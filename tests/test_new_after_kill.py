"""A ``new`` killed (SIGKILL, a real process) half-way leaves a lock, a journal or a
temp file beside a session file that never came to be: the next ``new`` of that name
takes them over and makes "NAME", not "NAME 2" — unless someone holds them (a live
lock is respected) or they hold changes. An open that is refused (a damaged session,
a missing plug-in) leaves no lock file behind."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import TIMEOUT

#: a gmdesk creating "Docks" that kills itself (SIGKILL) while it writes the journal or
#: the session file: just after opening the temp file, or with a part of it written
KILLED_NEW = """
import os, signal, sys
from gmdesk.core.session.saves import SessionStore
from gmdesk.core.session.storage import atomic

where = sys.argv[2]
real = atomic.publish

def publish(tmp, final, data, **kw):
    if str(final).endswith(where):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    return real(tmp, final, data, **kw)

atomic.publish = publish
SessionStore(sys.argv[1]).create("Docks", "4d2")
"""


def gmdesk(saves: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GMDESK_SAVES"}
    return subprocess.run(
        [sys.executable, "-m", "gmdesk", "--saves", str(saves), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
    )


def killed_new(saves: Path, where: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", KILLED_NEW, str(saves), where], timeout=TIMEOUT)
    assert proc.returncode == -signal.SIGKILL
    return sorted(p.name for p in saves.iterdir())


@pytest.mark.parametrize(
    "where, left",
    [
        (".journal", ["Docks.gmdesk.journal.tmp", "Docks.gmdesk.lock"]),
        (".gmdesk", ["Docks.gmdesk.journal", "Docks.gmdesk.lock", "Docks.gmdesk.tmp"]),
    ],
)
def test_new_after_a_new_killed_half_way_takes_the_name(tmp_path: Path, where: str, left: list[str]) -> None:
    saves = tmp_path / "saves"
    assert killed_new(saves, where) == left
    made = gmdesk(saves, "new", "Docks")
    assert made.returncode == 0 and made.stdout.strip().endswith("Docks.gmdesk"), made.stdout + made.stderr
    assert sorted(p.name for p in saves.iterdir()) == ["Docks.gmdesk", "Docks.gmdesk.journal", "Docks.gmdesk.lock"]
    assert gmdesk(saves, "char", "Docks", "add", "Kara").returncode == 0
    checked = gmdesk(saves, "check", "Docks")
    assert checked.returncode == 0 and "fine — 1 event" in checked.stdout, checked.stdout


def test_a_held_lock_or_a_journal_with_changes_is_never_taken_over(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    killed_new(saves, ".gmdesk")
    # someone holds the lock of "Docks" (whatever it is doing): respected
    fd = os.open(saves / "Docks.gmdesk.lock", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        made = gmdesk(saves, "new", "Docks")
        assert made.returncode == 0 and made.stdout.strip().endswith("Docks 2.gmdesk"), made.stdout
    finally:
        os.close(fd)
    # a journal that holds changes (its session file deleted by hand) is kept as it is
    journal = saves / "Docks.gmdesk.journal"
    journal.write_bytes(journal.read_bytes() + b'{"n":1,"op":"hdr","set":{"name":"Docks"}}\n')
    kept = journal.read_bytes()
    for p in saves.glob("Docks 2.gmdesk*"):
        p.unlink()  # "Docks" is free again
    made = gmdesk(saves, "new", "Docks")
    assert made.returncode == 0 and made.stdout.strip().endswith("Docks 2.gmdesk"), made.stdout
    assert journal.read_bytes() == kept


def test_a_refused_open_leaves_no_lock_file(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    assert gmdesk(saves, "new", "Docks").returncode == 0
    (saves / "Docks.gmdesk.lock").unlink()
    (saves / "Docks.gmdesk.ckpt").unlink(missing_ok=True)
    (saves / "Docks.gmdesk").write_bytes(b'{"_gmdesk": damaged')
    before = sorted(p.name for p in saves.iterdir())
    for argv in (
        ["char", "Docks", "add", "Kara"],
        ["roll", "4d2", "--save", "Docks"],
        ["char", "Docks", "remove", "c1"],
    ):
        refused = gmdesk(saves, *argv)
        assert refused.returncode == 2, refused.stderr
        assert sorted(p.name for p in saves.iterdir()) == before  # no Docks.gmdesk.lock
