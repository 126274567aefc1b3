"""The session subcommands as a GM types them: new, list, log, export, import-sheet,
export-sheet, and ``gmdesk roll … --save``."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.systems import get_system

ROOT = Path(__file__).resolve().parent.parent

SHEET = """Mark, 25 year old Human, green shirt
Descriptor        Default    Current      Notes
Vitality           +5
Speed              +2
Stick              +3                     (oak)
Dollars            (8)
Magic Ability      +2 (5)
  *Turn Invisible     (1)                 (Lasts 3 minutes)
"""


def make_session(saves: Path, name: str = "Docks", system: str = "4d2") -> Path:
    path = SessionStore(saves).create(name, system)
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Bruno"}})
        s.apply({"type": "character.add", "character": {"name": "Kara", "kind": "inorganic"}})
    return path


def test_new_and_list(capsys, saves):
    rc, out, err = run(capsys, saves, "list")
    assert rc == 0 and "No sessions" in out
    rc, out, err = run(capsys, saves, "new", "Night at the docks", "--system", "torg-2d10")
    assert rc == 0 and "Night at the docks" in out and err == ""
    rc, out, err = run(capsys, saves, "new", "Night at the docks")
    assert rc == 2
    one_error_line(err, "already exists")
    rc, out, err = run(capsys, saves, "new", "Other", "--system", "d20")
    assert rc == 2
    one_error_line(err, "unknown system 'd20'", "4d2")
    (saves / "Wrecked.gmdesk").write_text("{ not json")
    rc, out, err = run(capsys, saves, "list")
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].split() == ["Session", "System", "Last", "played", "Round", "Rolls"]
    assert any(line.startswith("Night at the docks") and "torg-2d10" in line for line in lines)
    assert any(line.startswith("Wrecked") and "DAMAGED" in line for line in lines)
    rc, out, err = run(capsys, saves, "list", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert {r["name"]: r["error"] is None for r in rows} == {"Night at the docks": True, "Wrecked": False}


def test_roll_save_then_log(capsys, saves):
    make_session(saves)
    rc, out, err = run(
        capsys,
        saves,
        "roll",
        "4d2",
        "--seed",
        "7",
        "--count",
        "3",
        "--combat",
        "--save",
        "Docks",
        "--as",
        "bruno",
        "--at",
        "Kara",
        "--json",
    )
    assert rc == 0, err
    printed = [json.loads(line) for line in out.splitlines()]
    assert len(printed) == 3
    # the session filled in what it knows before rolling: Kara is inorganic
    assert all(r["params"]["target_kind"] == "inorganic" for r in printed)
    # the same seed and parameters without --save print the same records
    rc, plain, _ = run(
        capsys, saves, "roll", "4d2", "--seed", "7", "--count", "3", "--combat", "--json", "--target-kind", "inorganic"
    )
    assert [json.loads(x) for x in plain.splitlines()] == printed
    rc, out, err = run(capsys, saves, "log", "Docks", "--json")
    assert rc == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5]
    rolls = [e for e in events if e["type"] == "roll"]
    assert [e["roll"] for e in rolls] == printed
    assert all(e["actor"] == "c1" and e["target"] == "c2" for e in rolls)
    with Session.open(SessionStore(saves).resolve("Docks"), readonly=True) as s:
        assert len(s.state.characters["c2"].wounds) == sum(
            1 for r in printed for d in r.get("descriptors", ()) if d["wound"] and d["applies_to"] == "target"
        )
    rc, out, err = run(capsys, saves, "log", "Docks")
    assert rc == 0 and out.splitlines()[0].startswith("#1") and "Bruno joins" in out
    assert "Bruno rolls at Kara" in out


def test_roll_save_text_and_refusals(capsys, saves):
    make_session(saves)
    rc, out, err = run(capsys, saves, "roll", "4d2", "--seed", "1", "--save", "Docks")
    assert rc == 0 and out.startswith("#3") and "GM rolls" in out
    rc, out, err = run(capsys, saves, "roll", "4d2", "--save", "Docks", "--as", "Nobody")
    assert rc == 2
    one_error_line(err, "no character 'Nobody'", "Bruno, Kara")
    rc, out, err = run(capsys, saves, "roll", "4d2", "--save", "Elsewhere")
    assert rc == 2
    one_error_line(err, "no session 'Elsewhere'")
    # the GM has the session open: a second writer is refused, readers are fine
    with Session.open(SessionStore(saves).resolve("Docks")):
        rc, out, err = run(capsys, saves, "roll", "4d2", "--save", "Docks")
        assert rc == 2
        one_error_line(err, "is open in gmdesk", "pid")
        rc, out, err = run(capsys, saves, "log", "Docks")
        assert rc == 0 and "#3" in out


def test_export_formats(capsys, saves, tmp_path):
    path = make_session(saves, name="<Docks>")
    with Session.open(path) as s:
        s.roll("4d2", get_system("4d2").Params(), actor="c1", target="c2", combat=True, rng=FixedDice([6, 4, 1, 1]))
    rc, out, err = run(capsys, saves, "export", "<Docks>", "--format", "md")
    assert rc == 0 and out.startswith("# \\<Docks\\>") and "Kara takes Attribute Damage" in out
    target = tmp_path / "chronicle.html"
    rc, out, err = run(capsys, saves, "export", str(path), "--format", "html", "-o", str(target))
    assert rc == 0 and str(target) in out
    page = target.read_text(encoding="utf-8")
    assert "&lt;Docks&gt;" in page and "<Docks>" not in page
    rc, out, err = run(capsys, saves, "export", "<Docks>", "-o", str(tmp_path / "c.json"))  # format from suffix
    assert rc == 0 and json.loads((tmp_path / "c.json").read_text())["format"] == "gmdesk-chronicle"
    rc, out, err = run(capsys, saves, "export", "<Docks>", "--format", "pdf")
    assert rc == 2
    one_error_line(err, "--format", "md, html, json")
    rc, out, err = run(capsys, saves, "export", "<Docks>", "--format", "md", "-o", str(tmp_path / "no" / "x.md"))
    assert rc == 2
    one_error_line(err)


def test_import_and_export_sheet(capsys, saves, tmp_path):
    make_session(saves, system="1d6x4")
    sheet = tmp_path / "mark.txt"
    sheet.write_text(SHEET, encoding="utf-8")
    rc, out, err = run(capsys, saves, "import-sheet", "Docks", str(sheet))
    assert rc == 0 and "Added Mark (c3)" in out
    rc, out, err = run(capsys, saves, "export-sheet", "Docks", "Mark")
    assert rc == 0 and out == SHEET  # read then written: the same sheet
    with Session.open(SessionStore(saves).resolve("Docks"), readonly=True) as s:
        assert s.state.characters["c3"].vitality_default == 5
    rc, out, err = run(capsys, saves, "import-sheet", "Docks", str(sheet), "--as", "Bruno")
    assert rc == 0 and "Updated Bruno's sheet" in out
    rc, out, err = run(capsys, saves, "export-sheet", "Docks", "c1")
    assert out == SHEET
    rc, out, err = run(capsys, saves, "export-sheet", "Docks", "Kara")  # no sheet: a fresh one
    assert rc == 0 and "Kara" in out and "Descriptor" in out
    rc, out, err = run(capsys, saves, "import-sheet", "Docks", str(tmp_path / "missing.txt"))
    assert rc == 2
    one_error_line(err, "missing.txt", "cannot read")
    bad = tmp_path / "bad.txt"
    bad.write_text("Zed\nDescriptor  Default  Current\nVitality  +3 (2\n", encoding="utf-8")
    rc, out, err = run(capsys, saves, "import-sheet", "Docks", str(bad))
    assert rc == 2
    one_error_line(err, "bad.txt")
    rc, out, err = run(capsys, saves, "export-sheet", "Docks", "Nobody")
    assert rc == 2
    one_error_line(err, "no character 'Nobody'")


def test_errors_are_one_line_in_a_real_process(saves):
    env = {**os.environ, "GMDESK_SAVES": str(saves), "PYTHONPATH": str(ROOT)}
    for args in (["log", "nosuch"], ["export", "nosuch", "--format", "md"], ["export-sheet", "nosuch", "X"]):
        p = subprocess.run(
            [sys.executable, "-m", "gmdesk", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
        )
        assert p.returncode == 2 and p.stdout == ""
        one_error_line(p.stderr, "nosuch")


def test_log_follow_prints_what_the_writer_saves(saves):
    path = make_session(saves)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gmdesk",
            "--saves",
            str(saves),
            "log",
            "Docks",
            "--follow",
            "--json",
            "--interval",
            "0.05",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    try:

        def next_line(timeout: float = 20.0) -> dict:
            try:
                return json.loads(lines.get(timeout=timeout))
            except queue.Empty:
                raise AssertionError("no line from gmdesk log --follow") from None

        assert next_line()["seq"] == 1 and next_line()["seq"] == 2
        with Session.open(path) as s:
            s.apply({"type": "note", "text": "the tide turns"})
        event = next_line()
        assert (event["seq"], event["type"], event["text"]) == (3, "note", "the tide turns")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_session_params_fill_in_what_the_session_knows(saves):
    import argparse

    from gmdesk.cli.roll_save import session_params

    make_session(saves)
    ns = argparse.Namespace(saves=str(saves), save="Docks", actor="Bruno", target="Kara")
    four = get_system("4d2")
    params = session_params(ns, four, four.Params(combat=True))
    assert (params.target_kind, params.attacker_kind, params.skill_threshold) == ("inorganic", "organic", 9)


@pytest.mark.parametrize("ending,final", [("\r\n", True), ("\r\n", False), ("\n", False), ("\n", True)])
def test_import_then_export_sheet_is_byte_exact(saves, tmp_path, ending, final):
    make_session(saves, "Docks", "1d6x4")
    body = ending.join(SHEET.rstrip("\n").split("\n"))
    data = (body + (ending if final else "")).encode("utf-8")
    sheet_file = tmp_path / "mark.txt"
    sheet_file.write_bytes(data)
    env = {**os.environ, "GMDESK_SAVES": str(saves)}
    cli = [sys.executable, "-m", "gmdesk"]
    done = subprocess.run([*cli, "import-sheet", "Docks", str(sheet_file)], cwd=ROOT, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([*cli, "export-sheet", "Docks", "Mark"], cwd=ROOT, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == data


def test_export_defaults_to_markdown_on_stdout(capsys, saves):
    make_session(saves)
    rc, out, err = run(capsys, saves, "export", "Docks")
    assert rc == 0 and err == ""
    assert out.startswith("# Docks\n") and "## Chronicle" in out


def _first_line(proc: subprocess.Popen, timeout: float = 60.0) -> str:
    """The first line the process prints (waiting on it, not on a clock's threshold)."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError("no line from gmdesk roll") from None


def _rss_mb(pid: int) -> float:
    """The resident memory of a running process (Linux /proc), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _popen(*args: str, saves: Path | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GMDESK_SAVES", None)
    pre = ["--saves", str(saves)] if saves is not None else []
    return subprocess.Popen(
        [sys.executable, "-m", "gmdesk", *pre, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


@pytest.mark.parametrize("opts", [["--json"], []], ids=["json", "text"])
def test_roll_count_streams_without_save(opts):
    # a million rolls: the first is printed while the rest are still to be made
    proc = _popen("roll", "4d2", "--count", "1000000", "--seed", "7", *opts)
    try:
        line = _first_line(proc)
        assert proc.poll() is None, "gmdesk roll finished before its first line was read"
        # nothing piles up: a million rolls made before the first is printed would not fit here
        assert _rss_mb(proc.pid) < 200
        if opts:
            assert json.loads(line)["system"] == "4d2"
        else:
            assert line.startswith("4d2")
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_roll_count_save_streams_and_holds_the_session(capsys, saves):
    from gmdesk.core.session.lock import LockedError

    path = make_session(saves)
    proc = _popen("roll", "4d2", "--count", "1000000", "--save", "Docks", "--as", "Bruno", "--json", saves=saves)
    try:
        first = json.loads(_first_line(proc))
        assert proc.poll() is None, "gmdesk roll --save finished before its first line was read"
        assert first["system"] == "4d2"
        assert _rss_mb(proc.pid) < 200
        # from the first roll on the session has its writer: nobody else may write
        with pytest.raises(LockedError):
            Session.open(path)
        rc, out, err = run(capsys, saves, "roll", "4d2", "--save", "Docks")
        assert rc == 2
        one_error_line(err, "is open in gmdesk", "pid")
        # readers are welcome, and the printed roll is already in the log
        with Session.open(path, readonly=True) as s:
            rolls = [e for e in s.events if e.type == "roll"]
            assert rolls and rolls[0].data["record"] == first and rolls[0].data["actor"] == "c1"
    finally:
        proc.kill()
        proc.wait(timeout=30)
    # killed mid-stream: what was printed stays saved and the session opens again
    with Session.open(path) as s:
        assert any(e.type == "roll" for e in s.events)


def test_export_tells_the_whole_evening_and_keeps_the_gms_secrets(capsys, saves):
    path = SessionStore(saves).create("Fen", "1d6x4")
    one = get_system("1d6x4")
    with Session.open(path) as s:
        mark = s.apply({"type": "character.add", "character": {"name": "Mark", "sheet": SHEET}}).data["id"]
        s.apply(
            {
                "type": "character.add",
                "character": {
                    "name": "Agatha",
                    "sheet": SHEET.replace("Mark", "Agatha") + "Healing Ability    +1 (2)\n",
                },
            }
        )
        # a Test against the GM's secret target number 77 (a number no clock time or date
        # in the chronicle can show, so its absence proves the secret is kept)
        s.roll("1d6x4", one.Params(bonus=2, target=77), actor=mark, rng=FixedDice([4]))
        s.apply({"type": "condition.add", "id": mark, "name": "Soaked", "rounds": 2})
        s.apply({"type": "use", "id": mark, "descriptor": "Magic Ability/Turn Invisible", "amount": 1})
        s.apply({"type": "character.edit", "id": mark, "fields": {"vitality_current": 2}})
        s.heal("c2", mark, rng=FixedDice([2]))
        s.apply({"type": "day.new"})
        s.apply({"type": "note", "text": "the bridge is a trap"})
        s.apply({"type": "condition.add", "id": mark, "name": "Undone", "rounds": None})
        s.undo()
    rc, out, err = run(capsys, saves, "export", "Fen")
    assert rc == 0 and err == ""
    for told in ("Soaked", "Turn Invisible", "heals Mark", "A new day", "Vitality 2 → 4"):
        assert told in out, (told, out)
    assert "Undone" not in out  # undone: gone from the chronicle
    # the GM's secrets stay out of the players' chronicle, in every format
    assert "77" not in out and "Target number" not in out and "the bridge is a trap" not in out
    for fmt in ("html", "json"):
        rc, text, err = run(capsys, saves, "export", "Fen", "--format", fmt)
        assert rc == 0 and "77" not in text and "the bridge is a trap" not in text, fmt
    rc, out, err = run(capsys, saves, "export", "Fen", "--gm")
    assert rc == 0 and "(vs target 77)" in out and "Target number 77" in out and "the bridge is a trap" in out
    rc, out, err = run(capsys, saves, "export", "Fen", "--gm", "--public")
    assert rc == 2
    one_error_line(err, "--gm")


def test_export_tells_4d6_numbers_and_clock_ticks(capsys, saves):
    path = SessionStore(saves).create("Festival", "4d6")
    four = get_system("4d6")
    with Session.open(path) as s:
        ren = s.apply({"type": "character.add", "character": {"name": "Renna"}}).data["id"]
        s.apply({"type": "clock.add", "name": "Suspicion", "segments": 6})
        s.roll(
            "4d6",
            four.Params(bonus=3, dc=14, position="high", effect="limited"),
            actor=ren,
            rng=FixedDice([6, 5, 4, 3]),
        )
        s.apply({"type": "clock.tick", "name": "Suspicion", "halves": 2})
    rc, out, err = run(capsys, saves, "export", "Festival")
    assert rc == 0
    assert "DC 14" in out and "Margin +7" in out and "Position high" in out and "Effect limited" in out
    assert "Clock Suspicion" in out and "Suspicion: 0 → 1 of 6" in out
