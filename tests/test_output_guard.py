"""No gmdesk verb that writes a file the GM names (``export -o``, ``bestiary export``)
lands on gmdesk's own files: a session's file, journal, checkpoint, lock or backup, the
bestiary — by file identity (symlinks, ``..``, hard links), by their first bytes
wherever they are, and by name in a saves directory. Each refusal is one line, exit 2,
and every file is left byte for byte as it was — also while a writer holds the session.
Real ``gmdesk`` processes, real files."""

from __future__ import annotations

import ast
import contextlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import TIMEOUT, files_of, gmdesk_run

ROOT = Path(__file__).resolve().parents[1]


def gmdesk(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return gmdesk_run(*args, cwd=cwd)


@pytest.fixture
def desk(tmp_path: Path) -> Path:
    """A saves directory with a session of a few events (journal, checkpoint, lock
    and an upgrade backup beside it) and a bestiary."""
    saves = tmp_path / "saves"
    assert gmdesk("--saves", str(saves), "new", "Docks").returncode == 0
    assert gmdesk("--saves", str(saves), "char", "Docks", "add", "Kara").returncode == 0
    assert gmdesk("--saves", str(saves), "roll", "4d2", "--save", "Docks", "--seed", "1").returncode == 0
    assert gmdesk("--saves", str(saves), "bestiary", "list").returncode == 0
    (saves / "Docks.gmdesk.v0.bak").write_bytes((saves / "Docks.gmdesk").read_bytes())
    return saves


def refused(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("gmdesk: "), proc.stderr
    assert "gmdesk never writes over its own files" in proc.stderr
    assert "Traceback" not in proc.stderr


OWN = [
    "Docks.gmdesk",
    "Docks.gmdesk.journal",
    "Docks.gmdesk.ckpt",
    "Docks.gmdesk.lock",
    "Docks.gmdesk.v0.bak",
    "bestiary.json",
    "bestiary.json.lock",
]


def _verbs(saves: Path, target: str) -> list[list[str]]:
    return [
        ["--saves", str(saves), "export", "Docks", "-o", target],
        ["--saves", str(saves), "export", "Docks", "--format", "json", "--output", target],
        ["--saves", str(saves), "bestiary", "export", target],
    ]


@pytest.mark.parametrize("name", OWN)
def test_a_file_of_the_saves_directory_is_refused_by_every_writing_verb(desk: Path, name: str) -> None:
    for spelling in (str(desk / name), str(desk / ".." / "saves" / name), f"./saves/{name}"):
        before = files_of(desk)
        for argv in _verbs(desk, spelling):
            refused(gmdesk(*argv, cwd=desk.parent))
        assert files_of(desk) == before, spelling


@pytest.mark.parametrize("name", ["Docks.gmdesk", "Docks.gmdesk.journal", "Docks.gmdesk.lock", "bestiary.json"])
def test_a_symlink_or_hard_link_to_gmdesk_files_is_refused(desk: Path, tmp_path: Path, name: str) -> None:
    elsewhere = tmp_path / "out"
    elsewhere.mkdir()
    (elsewhere / "chronicle.md").symlink_to(desk / name)
    (elsewhere / "dir").symlink_to(desk)
    os.link(desk / name, elsewhere / "hard.md")
    before = files_of(desk)
    for target in (elsewhere / "chronicle.md", elsewhere / "dir" / name, elsewhere / "hard.md"):
        for argv in _verbs(desk, str(target)):
            refused(gmdesk(*argv))
    assert files_of(desk) == before
    assert (elsewhere / "chronicle.md").is_symlink()


def test_a_gmdesk_file_anywhere_is_known_by_its_first_bytes(desk: Path, tmp_path: Path) -> None:
    """A copy of a session, its journal, its checkpoint or a bestiary, under any name,
    in a directory that is no saves directory (another saves directory's files)."""
    other = tmp_path / "usb"
    other.mkdir()
    for name in ("Docks.gmdesk", "Docks.gmdesk.journal", "Docks.gmdesk.ckpt", "bestiary.json"):
        (other / f"copy-of-{name}.md").write_bytes((desk / name).read_bytes())
    before = files_of(other)
    for p in sorted(other.iterdir()):
        for argv in _verbs(desk, str(p)):
            refused(gmdesk(*argv))
    assert files_of(other) == before


@pytest.mark.parametrize(
    "name", ["New.gmdesk", "Docks 2.gmdesk", "Other.gmdesk.journal", "x.gmdesk.lock", "bestiary.json", "BESTIARY.JSON"]
)
def test_a_new_file_named_like_gmdesks_own_in_a_saves_directory_is_refused(
    desk: Path, tmp_path: Path, name: str
) -> None:
    if name == "bestiary.json":
        (desk / "bestiary.json").rename(tmp_path / "moved-aside.json")  # a new bestiary.json
    other_saves = tmp_path / "other-saves"  # not the one in use, but it holds a session
    assert gmdesk("--saves", str(other_saves), "new", "Elsewhere").returncode == 0
    for directory in (desk, other_saves):
        before = files_of(directory)
        for argv in _verbs(desk, str(directory / name)):
            refused(gmdesk(*argv))
        assert files_of(directory) == before
        assert not (directory / name).exists()


def test_refused_while_a_writer_holds_the_session(desk: Path) -> None:
    """The desk (a writer process) holds Docks: the export is still refused, and the
    writer's session is intact and goes on taking rolls."""
    code = (
        "import sys\n"
        "from gmdesk.core.session import Session\n"
        "s = Session.open(sys.argv[1])\n"
        "print('held', flush=True)\n"
        "sys.stdin.readline()\n"
        "s.apply({'type': 'note', 'text': 'still here'})\n"
        "s.close()\n"
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", code, str(desk / "Docks.gmdesk")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "held"
        before = files_of(desk)
        for name in ("Docks.gmdesk", "Docks.gmdesk.journal", "Docks.gmdesk.lock"):
            for argv in _verbs(desk, str(desk / name)):
                refused(gmdesk(*argv))
        assert files_of(desk) == before
        assert writer.stdin is not None
        writer.stdin.write("\n")
        writer.stdin.flush()
        assert writer.wait(TIMEOUT) == 0
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    log = gmdesk("--saves", str(desk), "log", "Docks")
    assert log.returncode == 0 and "still here" in log.stdout
    check = gmdesk("--saves", str(desk), "check", "Docks")
    assert check.returncode == 0, check.stdout


def test_an_ordinary_file_is_written_whole_and_rewritten(desk: Path, tmp_path: Path) -> None:
    """The guard does not get in the way: a chronicle beside the sessions, a TOML export
    written over itself when asked to (``--replace``), a file reached through a symlink
    (written through)."""
    out = tmp_path / "out"
    out.mkdir()
    assert gmdesk("--saves", str(desk), "export", "Docks", "-o", str(desk / "chronicle.md")).returncode == 0
    assert (desk / "chronicle.md").read_text().startswith("# Docks")
    for again in (False, True):
        proc = gmdesk("--saves", str(desk), "bestiary", "export", str(out / "foes.toml"), *(["--replace"] * again))
        assert proc.returncode == 0, proc.stderr
    assert "[[stat_block]]" in (out / "foes.toml").read_text()
    (out / "real.json").write_text("old")
    (out / "link.json").symlink_to(out / "real.json")
    assert gmdesk("--saves", str(desk), "export", "Docks", "-o", str(out / "link.json")).returncode == 0
    assert (out / "link.json").is_symlink() and '"gmdesk-chronicle"' in (out / "real.json").read_text()
    assert gmdesk("--saves", str(desk), "export", "Docks", "-o", str(out / "real.json")).returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["foes.toml", "link.json", "real.json"]  # no temp file left


def test_a_bestiary_shared_as_toml_is_written_over_only_when_asked(desk: Path, tmp_path: Path) -> None:
    """Stat blocks shared as TOML — exported before, or written by hand — are a
    bestiary: ``bestiary export`` writes over them only with ``--replace`` (a partial
    export, ``--system 4d6``, would drop the rest), and the chronicle's ``export -o``
    never does. Each refusal is one line, exit 2, the file byte for byte as it was."""
    shared = tmp_path / "foes.toml"
    assert gmdesk("--saves", str(desk), "bestiary", "export", str(shared)).returncode == 0
    by_hand = tmp_path / "friends.toml"
    by_hand.write_text('[[stat_block]]\nname = "Ghoul"\nsystem = "4d2"\n')
    for target in (shared, by_hand):
        before = target.read_bytes()
        for argv, words in (
            (["bestiary", "export", str(target), "--system", "4d6"], "--replace writes over them"),
            (["export", "Docks", "-o", str(target)], "choose another file"),
            (["export", "Docks", "--format", "json", "-o", str(target)], "choose another file"),
        ):
            proc = gmdesk("--saves", str(desk), *argv)
            assert proc.returncode == 2, proc.stdout
            assert proc.stderr.count("\n") == 1 and "stat blocks" in proc.stderr and words in proc.stderr, proc.stderr
            assert target.read_bytes() == before
    proc = gmdesk("--saves", str(desk), "bestiary", "export", str(by_hand), "--system", "4d2", "--replace")
    assert proc.returncode == 0, proc.stderr
    assert "Ghoul" not in by_hand.read_text() and "[[stat_block]]" in by_hand.read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_named_for_output_is_written_into_never_replaced_by_a_file(desk: Path, tmp_path: Path) -> None:
    """``-o /dev/null`` (here: a null device made in the test's directory, and a link
    to it) writes into the device as the shell's ``>`` would; renaming a temp file over
    it would replace the device with a file (as root, /dev/null itself). A block device
    is refused."""
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    (tmp_path / "to-null.md").symlink_to(null)
    disk = tmp_path / "disk"
    os.mknod(disk, 0o600 | stat.S_IFBLK, os.makedev(7, 0))
    for target in (null, tmp_path / "to-null.md"):
        for argv in _verbs(desk, str(target)):
            proc = gmdesk(*argv)
            assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode) and (tmp_path / "to-null.md").is_symlink()
    for argv in _verbs(desk, str(disk)):
        proc = gmdesk(*argv)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "not a file" in proc.stderr, proc.stderr
    assert stat.S_ISBLK(os.lstat(disk).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disk", "null", "saves", "to-null.md"]  # no temp file left


def test_a_named_pipe_is_written_into_and_stays_a_pipe(desk: Path, tmp_path: Path) -> None:
    """``-o FIFO`` (a reader on the other end, as ``-o >(less)`` gives): the chronicle
    goes down the pipe; gmdesk never opens it to read (which would wait for a writer
    for ever) nor renames a file over it. A real process: a hang is a failure."""
    import threading

    fifo = tmp_path / "chronicle.pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "gmdesk", "--saves", str(desk), "export", "Docks", "-o", str(fifo)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        if reader.is_alive():  # release the reader if gmdesk never opened the pipe to write
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert got and got[0].startswith(b"# Docks")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_failed_write_names_the_file_the_gm_typed(desk: Path, tmp_path: Path) -> None:
    """A missing directory (or any refusal of the disk) is said of the file the GM
    typed, never of gmdesk's temp file beside it."""
    for argv in _verbs(desk, str(tmp_path / "no" / "such" / "chronicle.md")):
        proc = gmdesk(*argv)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert "chronicle.md" in proc.stderr and ".part" not in proc.stderr, proc.stderr
        assert "No such file or directory" in proc.stderr


# --------------------------------------------------------------------------- one way to write


#: the modules of the command line's verbs
CLI_MODULES = [
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "cli").glob("*.py")),
    "core/session/export.py",
]
_WRITES = {"write_text", "write_bytes", "publish", "replace", "rename", "link", "symlink_to", "hardlink_to"}


def test_every_verb_writes_the_gms_files_through_the_guard() -> None:
    """The verbs never write a file themselves: no ``open(…, "w")``, ``write_text``,
    ``atomic.publish``, ``os.replace``… in the command line's modules; what a verb
    writes for the GM goes through ``core.outputs.write_output`` (and a later verb
    that writes a file must too, or this fails)."""
    found = []
    for rel in CLI_MODULES:
        tree = ast.parse((ROOT / rel).read_text(), rel)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            receiver = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
            if name in ("replace", "rename") and receiver != "os":
                # str.replace(a, b), dataclasses.replace(obj, …): not files; Path.replace(target) is
                if receiver == "dataclasses" or len(node.args) != 1 or node.keywords:
                    continue
            if name in _WRITES:
                found.append(f"{rel}:{node.lineno} {name}")
            if name == "open" and len(node.args) >= 2:
                mode = node.args[1]
                if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax+"):
                    if not (isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "devnull"):
                        found.append(f"{rel}:{node.lineno} open {mode.value!r}")
    assert found == []
