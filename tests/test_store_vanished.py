"""Faults a GM really meets under a running desk that the other fault tests leave out:
the saves directory moved or deleted (a sync tool, a cleanup script, ``rm -r`` in the
wrong window), the session's files deleted or renamed over one by one, and the clock
going backwards (a laptop's clock corrected, a VM resumed). Each is reported in one
line and nothing acknowledged is lost: what was moved is where it went; what was
deleted lives on in the files the writer holds open, and is kept as a new session,
``NAME (rescued)``, beside where the session was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.storage import EventLog, sidecar_paths
from gmdesk.core.session.storage.errors import SessionChangedError


def _played(saves: Path, notes: int = 3) -> tuple[Session, list[str]]:
    """A writer with a character and ``notes`` notes acknowledged: the session and the
    summaries of what it acknowledged."""
    path = SessionStore(saves).create("Docks", "4d2")
    s = Session.open(path)
    acked = [s.apply({"type": "character.add", "character": {"name": "Kara"}}).summary]
    acked += [s.apply({"type": "note", "text": f"note {i}"}).summary for i in range(notes)]
    return s, acked


def _summaries(path: Path) -> list[str]:
    with Session.open(path, readonly=True) as s:
        return [e.summary for e in s.events]


def test_the_saves_directory_moved_under_a_writer_is_said_and_everything_went_with_it(tmp_path):
    saves = tmp_path / "saves"
    s, acked = _played(saves)
    saves.rename(tmp_path / "elsewhere")
    with pytest.raises(SessionChangedError, match="Docks.gmdesk was moved away") as err:
        s.apply({"type": "note", "text": "not saved"})
    assert "\n" not in str(err.value) and "everything saved before is kept" in str(err.value)
    s.close()
    assert s.rescued is None  # nothing was lost: no copy made
    assert not saves.exists()  # nothing written where the session was
    assert _summaries(tmp_path / "elsewhere" / "Docks.gmdesk") == acked


@pytest.mark.parametrize("fault", ["directory", "session file and journal", "journal", "renamed over"])
@pytest.mark.parametrize("when", ["next change", "close"])
def test_what_a_writer_saved_and_another_program_deleted_is_kept_as_a_rescued_session(tmp_path, fault, when):
    saves = tmp_path / "saves"
    s, acked = _played(saves, notes=40)  # (past a compaction: the journal alone is not all of it)
    path = s.path
    assert path is not None
    files = sidecar_paths(path)
    other = b""
    if fault == "directory":
        shutil.rmtree(saves)
    elif fault == "session file and journal":
        path.unlink()
        files["journal"].unlink()
    elif fault == "journal":
        files["journal"].unlink()
    else:  # an editor or a sync tool saves an older copy by rename
        other = b'{"not": "what the desk saved"}\n'
        (saves / "sync.tmp").write_bytes(other)
        os.replace(saves / "sync.tmp", path)
    if when == "next change":
        with pytest.raises(SessionChangedError) as err:
            s.apply({"type": "note", "text": "not saved"})
        said = str(err.value)
        s.close()
    else:
        s.close()  # the GM quits without another change
        said = s.warnings[-1]
    rescued = saves / "Docks (rescued).gmdesk"
    assert s.rescued == rescued
    assert "\n" not in said and "changed on disk" in said and '"Docks (rescued)"' in said, said
    assert _summaries(rescued) == acked  # every acknowledged change, in order
    with Session.open(rescued) as again:  # and play goes on in it
        again.apply({"type": "note", "text": "played on"})
    if fault == "renamed over":
        assert path.read_bytes() == other  # what the other program put there is left alone


def test_a_rescue_takes_a_free_name(tmp_path):
    saves = tmp_path / "saves"
    SessionStore(saves).create("Docks (rescued)", "4d2")
    s, acked = _played(saves)
    assert s.path is not None
    s.path.unlink()
    sidecar_paths(s.path)["journal"].unlink()
    with pytest.raises(SessionChangedError, match=r"Docks \(rescued 2\)"):
        s.apply({"type": "note", "text": "not saved"})
    s.close()
    assert _summaries(saves / "Docks (rescued 2).gmdesk") == acked
    assert _summaries(saves / "Docks (rescued).gmdesk") == []


def test_a_rescue_that_cannot_be_written_says_where_the_changes_are(tmp_path, monkeypatch):
    saves = tmp_path / "saves"
    s, _acked = _played(saves)
    shutil.rmtree(saves)

    def full(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(EventLog, "create", full)
    with pytest.raises(SessionChangedError) as err:
        s.apply({"type": "note", "text": "not saved"})
    said = str(err.value)
    assert "only in this open gmdesk" in said and "No space left on device" in said and "\n" not in said
    assert s.rescued is None
    s.close()


def test_the_clock_going_backwards_loses_and_reorders_nothing(tmp_path, monkeypatch):
    """The machine's clock is set back an hour mid-session: changes keep their order
    (by number, never by time), the session reopens the same, and `check` is fine."""
    from gmdesk.core.session import repair, session

    saves = tmp_path / "saves"
    s, acked = _played(saves, notes=2)
    monkeypatch.setattr(session, "now_iso", lambda: "2020-01-01T00:00:00+00:00")
    acked += [s.apply({"type": "note", "text": f"after {i}"}).summary for i in range(30)]
    s.close()
    assert s.path is not None
    assert _summaries(s.path) == acked
    report = repair.check(s.path)
    assert report.ok, report.lines()


async def test_the_desk_says_where_what_was_deleted_under_it_is_kept(tmp_path):
    """The saves directory is deleted while the desk is open (80×24): the next key that
    changes something turns the desk read-only and names the rescued session, which
    holds every change the desk had saved."""
    from helpers import make_save, notes, run, screen_text, until

    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen

    path, _ids = make_save(
        tmp_path, characters=[{"name": "Bruno"}, {"name": "Kara"}], initiative={"Bruno": 12, "Kara": 9}, start=True
    )
    acked = _summaries(path)
    app = GmdeskApp(path.parent, path)
    async with run(app, size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Bruno" in screen_text(app))
        shutil.rmtree(path.parent)
        await pilot.press("n")
        await until(pilot, lambda: "READ-ONLY" in screen_text(app))
        said = [n for n in notes(app) if "changed on disk" in n]
        assert len(said) == 1 and "read-only" in said[0] and '"Table (rescued)"' in said[0], said
    rescued = path.with_name(f"{path.stem} (rescued).gmdesk")
    assert _summaries(rescued) == acked


@pytest.mark.parametrize("fault", ["directory deleted", "renamed over"])
def test_a_streaming_writer_keeps_every_roll_it_acknowledged_when_its_files_go(tmp_path, fault):
    """A real ``gmdesk roll --save --count N`` streams rolls; another program deletes
    the saves directory (or renames a copy over the session) under it. The writer
    stops in one line, exit 2, and every roll it printed is in ``Docks (rescued)``."""
    import subprocess
    import sys

    from helpers import TIMEOUT

    saves = tmp_path / "saves"
    gmdesk = [sys.executable, "-m", "gmdesk", "--saves", str(saves)]
    subprocess.run([*gmdesk, "new", "Docks"], check=True, capture_output=True, timeout=TIMEOUT)
    proc = subprocess.Popen(
        [*gmdesk, "roll", "4d2", "--save", "Docks", "--count", "5000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        acked = [proc.stdout.readline() for _ in range(20)]
        path = saves / "Docks.gmdesk"
        if fault == "directory deleted":
            shutil.rmtree(saves)
        else:
            (saves / "sync.tmp").write_bytes(path.read_bytes())
            os.replace(saves / "sync.tmp", path)
        out, err = proc.communicate(timeout=TIMEOUT * 4)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    acked += out.splitlines(keepends=True)
    seqs = [int(line.split()[0][1:]) for line in acked if line.startswith("#")]
    assert proc.returncode == 2 and err.count("\n") == 1 and '"Docks (rescued)"' in err, err
    with Session.open(saves / "Docks (rescued).gmdesk", readonly=True) as s:
        kept = {e.seq for e in s.events}
    assert len(seqs) >= 20 and set(seqs) <= kept
