"""What the command line says is true, and it never shows a traceback: hostile input
(a GM's table nested 100,000 deep, a device, a binary; a bestiary file nested as
deep) is one line and exit 2; an unexpected failure anywhere is one line and exit 2;
a change that is durable exits 0 even when its report cannot be printed (stdout on
/dev/full: one line on stderr saying what was saved). Real ``gmdesk`` processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import TIMEOUT, gmdesk_run

from gmdesk.cli.main import main

FULL = Path("/dev/full")


def gmdesk(saves: Path, *args: str, stdout: object = subprocess.PIPE) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GMDESK_SAVES"}
    return subprocess.run(
        [sys.executable, "-m", "gmdesk", "--saves", str(saves), *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=TIMEOUT,
        env=env,
    )


def read_back(saves: Path, *args: str) -> subprocess.CompletedProcess:
    """``gmdesk --saves SAVES ARGS…`` run in-process: what a verb saved, read back (the
    process that saved it is the one under test; reading needs no process of its own)."""
    return gmdesk_run("--saves", str(saves), *args)


def one_line(proc: subprocess.CompletedProcess, words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- hostile input


def test_a_hostile_table_file_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    deep_object = tmp_path / "deep-object.json"
    deep_object.write_text('{"rows": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # nobody ever writes to it: reading it would wait for ever
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (5 << 20))
    saves = tmp_path / "saves"
    for path, words in (
        (deep, "nested too deeply"),
        (deep_object, "nested too deeply"),
        (binary, "not UTF-8"),
        (Path("/dev/zero"), "not a file"),
        (fifo, "not a file"),
        (tmp_path, "not a file"),
        (big, "too big for a table"),
    ):
        for verb in ("roll", "odds"):
            one_line(gmdesk(saves, verb, "4d2", "--combat", "--table", f"combat={path}"), words)
    # the other files a verb reads: a sheet, a bestiary to import
    assert gmdesk(saves, "new", "Docks").returncode == 0
    for argv in (
        ["import-sheet", "Docks", "/dev/zero"],
        ["import-sheet", "Docks", str(fifo)],
        ["bestiary", "add", "Gull", "--system", "4d2", "--sheet", "/dev/zero"],
        ["bestiary", "import", "/dev/zero"],
        ["bestiary", "import", str(fifo)],
    ):
        one_line(gmdesk(saves, *argv), "not a file")


def test_a_bestiary_file_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    saves = tmp_path / "saves"
    one_line(gmdesk(saves, "bestiary", "import", str(deep)), "nested too deeply")
    assert not (saves / "bestiary.json").exists()


def test_an_unexpected_failure_is_one_line_never_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Whatever a bug or an input nobody foresaw raises, in ``roll`` or in a session verb."""
    import dataclasses

    from gmdesk.core import systems
    from gmdesk.core.session.saves import SessionStore

    spec = systems.get_spec("4d2")
    for exc in (KeyError("rows"), RecursionError("maximum recursion depth exceeded"), TypeError("bad\nsecond")):

        def boom(*_a: object, exc: BaseException = exc, **_k: object) -> None:
            raise exc

        # the system's roll raises (its declaration is read once: the spec's member is the one called)
        broken = dataclasses.replace(spec, roll=boom)
        monkeypatch.setattr(systems, "get_spec", lambda _id, broken=broken: broken)
        monkeypatch.setattr(SessionStore, "list", boom)
        for argv in (["roll", "4d2"], ["--saves", str(tmp_path), "list"]):
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and err.startswith("gmdesk: "), err
            assert "Traceback" not in err


# --------------------------------------------------------------------------- stdout on /dev/full


@pytest.fixture
def desk(tmp_path: Path) -> Path:
    saves = tmp_path / "saves"
    for argv in (["new", "Docks"], ["char", "Docks", "add", "Kara"], ["bestiary", "list"]):
        assert read_back(saves, *argv).returncode == 0
    return saves


def _saved_but_not_printed(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("gmdesk: saved (") and "could not be printed" in proc.stderr, proc.stderr
    assert "No space left on device" in proc.stderr


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full here")
def test_a_durable_change_exits_0_when_its_report_cannot_be_printed(desk: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("Mark, a stranger\nDescriptor     Default     Current\nVitality        +5\n")
    toml = tmp_path / "foes.toml"
    assert read_back(desk, "bestiary", "export", str(toml)).returncode == 0
    toml.write_text(toml.read_text().replace("Bar Thug", "Dock Thug"))
    chronicle = tmp_path / "chronicle.md"
    verbs = [
        (["new", "Wharf"], ["list"], "Wharf"),
        (["char", "Docks", "add", "Bruno"], ["char", "Docks", "list"], "Bruno"),
        (["char", "Docks", "set", "Bruno", "vitality=7"], ["char", "Docks", "show", "Bruno"], "Vitality 7"),
        (["char", "Docks", "hide", "Bruno"], ["char", "Docks", "list"], "Bruno (hidden)"),
        (["char", "Docks", "initiative", "Kara=12"], ["log", "Docks"], "12"),
        (["char", "Docks", "add-from", "Bar Thug", "--seed", "1"], ["char", "Docks", "list"], "Bar Thug"),
        (["roll", "4d2", "--save", "Docks", "--as", "Kara", "--seed", "5"], ["log", "Docks"], "Kara rolls"),
        (["import-sheet", "Docks", str(sheet)], ["char", "Docks", "list"], "Mark"),
        (["bestiary", "add", "Gull", "--system", "4d2"], ["bestiary", "list"], "Gull"),
        (["bestiary", "import", str(toml), "--replace"], ["bestiary", "list"], "Dock Thug"),
        (["bestiary", "remove", "Gull"], ["bestiary", "list", "--search", "Gull"], "No stat blocks match"),
        (["export", "Docks", "-o", str(chronicle)], ["log", "Docks"], ""),
        (["new", "Docks 2", "--from", "Docks"], ["list"], "Docks 2"),
        (["repair", "Broken"], ["list"], "Broken (repaired)"),
    ]
    assert read_back(desk, "new", "Broken").returncode == 0
    (desk / "Broken.gmdesk.ckpt").unlink(missing_ok=True)
    raw = (desk / "Broken.gmdesk").read_bytes()
    (desk / "Broken.gmdesk").write_bytes(raw.replace(b'"rolls":0', b'"rolls":7', 1))
    for argv, look, seen in verbs:
        with FULL.open("w") as full:
            _saved_but_not_printed(gmdesk(desk, *argv, stdout=full))
        assert seen in read_back(desk, *look).stdout, argv
    assert chronicle.read_text().startswith("# Docks")
    # a retry says what is true: the character is there already
    again = gmdesk(desk, "char", "Docks", "add", "Bruno")
    assert again.returncode == 2 and "already a character" in again.stderr
    # a verb that changes nothing still reports the lost output as an error
    with FULL.open("w") as full:
        one_line(gmdesk(desk, "char", "Docks", "list", stdout=full), "No space left on device")


def test_view_and_serve_refuse_a_file_that_is_no_sound_session(tmp_path):
    """``gmdesk view notes.txt`` (or a damaged session) is one line, exit 2, at once:
    no player view that shows only an error, no server offering it to every browser,
    nothing written beside the file. (In-process: the check comes before the terminal
    app, which a run without one would refuse anyway.)"""
    from gmdesk.core.session import Session, SessionStore

    saves = tmp_path / "saves"
    notes = tmp_path / "notes.txt"
    notes.write_text("Kara owes Bruno 3 gold\n")
    path = SessionStore(saves).create("Docks", "4d2")
    with Session.open(path) as s:
        s.apply({"type": "note", "text": "kept"})
    damaged = SessionStore(saves).create("Harbour", "4d2")
    data = bytearray(damaged.read_bytes())
    data[data.index(b'"4d2"') + 1] = ord("5")  # one edited byte: the header's checksum disagrees
    damaged.write_bytes(bytes(data))
    before = {p.name: p.read_bytes() for p in [*tmp_path.iterdir(), *saves.iterdir()] if p.is_file()}
    for target in (str(notes), "Harbour"):
        for verb in (["view"], ["serve", "--port", "0"]):
            proc = gmdesk_run("--saves", str(saves), *verb, target)
            assert proc.returncode == 2, proc.stderr
            assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
            assert "terminal app" not in proc.stderr, proc.stderr  # refused for the file, not for the app
    after = {p.name: p.read_bytes() for p in [*tmp_path.iterdir(), *saves.iterdir()] if p.is_file()}
    assert after == before
    proc = gmdesk_run("--saves", str(saves), "view", "Docks")  # a sound one gets as far as the app
    assert proc.returncode == 2 and "terminal app is not available" in proc.stderr


def test_ctrl_c_while_gmdesk_is_still_loading_shows_no_traceback():
    """A Ctrl-C that lands while the gmdesk command is still importing its modules
    (before its main, which answers Ctrl-C with 130) ends it without a traceback. (The
    interrupt is raised right after the entry point's module is loaded: the moment a
    real Ctrl-C cannot be timed to hit.)"""
    proc = subprocess.run(
        [sys.executable, "-c", "import gmdesk.__main__\nraise KeyboardInterrupt"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode in (130, -2), proc.stderr
    assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, proc.stderr
    other = subprocess.run(  # anything else is still said as Python says it
        [sys.executable, "-c", "import gmdesk.__main__\nraise ValueError('kept')"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert "ValueError: kept" in other.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["new", "Docks"],
        ["bestiary", "list"],
        ["log", "Docks"],
        ["roll", "4d2", "--save", "Docks"],
        ["view", "Docks"],
        [],
    ],
)
def test_a_saves_directory_that_is_a_file_is_refused_in_one_line(tmp_path, args):
    """``--saves notes.txt`` (a slip of the finger): refused in one line, exit 2 — never
    listed as "No sessions", never a session or a bestiary written beside it — and the
    file is left as it was."""
    notes = tmp_path / "notes.txt"
    notes.write_text("Kara owes Bruno 3 gold\n")
    proc = gmdesk_run("--saves", str(notes), *args)
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.count("\n") == 1 and "is a file" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert notes.read_text() == "Kara owes Bruno 3 gold\n"


@pytest.fixture
def read_only_saves(tmp_path):
    """A saves directory with a session, that the disk refuses to write into (chmod; as
    root, which chmod does not stop, the immutable flag)."""
    saves = tmp_path / "saves"
    assert gmdesk_run("--saves", str(saves), "new", "Docks").returncode == 0
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(saves)], capture_output=True).returncode != 0:
            pytest.skip("no way to make a directory read-only for root here (chattr)")
        yield saves
        subprocess.run(["chattr", "-i", str(saves)], check=True)
    else:
        saves.chmod(0o555)
        yield saves
        saves.chmod(0o755)


@pytest.mark.parametrize(
    "args",
    [["new", "Harbour"], ["repair", "Docks"], ["new", "Night 2", "--from", "Docks"]],
    ids=["new", "repair", "from"],
)
def test_a_session_that_cannot_be_created_in_a_read_only_directory_says_so(read_only_saves, args):
    """A new session (new, repair's copy, the next night) in a directory the disk will
    not write: one line saying it could not be created there — not "open it read-only
    instead", which means nothing for a session that does not exist yet."""
    before = sorted(p.name for p in read_only_saves.iterdir())
    proc = gmdesk_run("--saves", str(read_only_saves), *args)
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.count("\n") == 1 and "cannot create the session" in proc.stderr, proc.stderr
    assert "read-only instead" not in proc.stderr
    assert sorted(p.name for p in read_only_saves.iterdir()) == before


@pytest.mark.parametrize("extra", [[], ["--from", "Docks"]], ids=["new", "next night"])
def test_new_echoes_the_name_as_kept_never_a_terminal_control_sequence(tmp_path, extra):
    """A name typed (or pasted) with a line break or a terminal control sequence is kept
    without them; "Created …" says it as kept, in one line — never the sequence itself,
    which the GM's terminal would obey (a title set, colours changed)."""
    saves = tmp_path / "saves"
    if extra:
        assert gmdesk_run("--saves", str(saves), "new", "Docks").returncode == 0
    proc = gmdesk_run("--saves", str(saves), "new", "\x1b]0;owned\x07Night\nat the docks\x1b[31m", *extra)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Created ]0;ownedNight at the docks[31m") and proc.stdout.count("\n") == 1
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["roll", "4d2", "--note", "\x1b[2J\x1b]0;owned\x07"],
        ["roll", "4d2", "line one\nline two"],
        ["\x1b[31mDocks"],
        ["char", "Docks\x07", "list"],
        ["--bogus\x1b[2J"],
    ],
)
def test_a_refusal_is_one_line_the_terminal_shows_as_it_is(tmp_path, args):
    """An argument pasted with a line break or a terminal control sequence: the refusal
    that quotes it is still one line, and the sequence is written as its escape
    (``\\x1b``), never sent raw to the GM's terminal (which would clear the screen,
    set the window's title…)."""
    proc = gmdesk_run("--saves", str(tmp_path / "saves"), *args)
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert all(ch.isprintable() for ch in proc.stderr.rstrip("\n")), repr(proc.stderr)


def test_a_group_of_one_is_refused_in_the_commands_words(tmp_path):
    """`char SAVE group Kara --label G1` (one name, or one twice): said in the command's
    words, never by the event's field name ("ids: …")."""
    saves = tmp_path / "saves"
    for args in (["new", "Docks"], ["char", "Docks", "add", "Kara"], ["char", "Docks", "add", "Bruno"]):
        assert gmdesk_run("--saves", str(saves), *args).returncode == 0
    for names in (["Kara"], ["Kara", "kara"], ["Kara", "c1"]):
        proc = gmdesk_run("--saves", str(saves), "char", "Docks", "group", *names, "--label", "G1")
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert "two characters or more" in proc.stderr and "ids" not in proc.stderr, proc.stderr


def test_another_programs_json_as_the_bestiary_is_said_as_what_it_holds(tmp_path):
    """A bestiary.json some other program wrote (its own JSON, no stat blocks): refused,
    left as it is, and the line says what it holds — not that it holds stat blocks."""
    saves = tmp_path / "saves"
    saves.mkdir()
    foreign = b'{"settings": {"1": {"theme": "dark"}}}\n'
    (saves / "bestiary.json").write_bytes(foreign)
    for args in (["bestiary", "list"], ["bestiary", "add", "Ogre", "--system", "4d6"]):
        proc = gmdesk_run("--saves", str(saves), *args)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert "'settings'" in proc.stderr and "stat_blocks" not in proc.stderr, proc.stderr
    assert (saves / "bestiary.json").read_bytes() == foreign
