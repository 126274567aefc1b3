"""A name is a name, a path is a path, and a character's name never reads as its id:
``"Docks.gmdesk"`` is the session of that name (only text with a directory part is a
path), a damaged "Docks" never answers for the sound "Docks.", and a character name
shaped like an id (c1, C12…) is refused in one line, exit 2, by every verb that
names characters and by the desk's new-character dialog (at the field's label).
Real ``gmdesk`` processes on real files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import (
    SMALL,
    dialog,
    files_of,
    gmdesk_run,
    main_screen,
    make_app,
    make_save,
    press,
    run,
    saved,
    settle,
)
from textual.widgets import Input

from gmdesk.tui.screens.confirm import FormDialog

pytestmark = pytest.mark.usefixtures("quick_odds")


def gmdesk(saves: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return gmdesk_run("--saves", str(saves), *args, cwd=cwd)


def contents(saves: Path) -> dict[str, bytes]:
    """Every file's bytes (a writer that opened and refused touches only its lock's time)."""
    return {name: data for name, (data, _) in files_of(saves).items()}


def ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def one_line(proc: subprocess.CompletedProcess, words: str) -> None:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- names and paths


def test_a_name_ending_in_gmdesk_is_the_session_of_that_name(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    ok(gmdesk(saves, "new", "Docks"))
    ok(gmdesk(saves, "char", "Docks", "add", "Kara"))
    docks = files_of(saves)
    # no session is named "Docks.gmdesk" yet: nothing lands in "Docks"
    one_line(gmdesk(saves, "roll", "4d2", "--save", "Docks.gmdesk", "--seed", "3"), "no session 'Docks.gmdesk'")
    one_line(gmdesk(saves, "char", "Docks.gmdesk", "add", "Bruno"), "no session 'Docks.gmdesk'")
    assert files_of(saves) == docks
    # the session really named "Docks.gmdesk" is reached by its name
    ok(gmdesk(saves, "new", "Docks.gmdesk"))
    ok(gmdesk(saves, "char", "Docks.gmdesk", "add", "Bruno"))
    ok(gmdesk(saves, "roll", "4d2", "--save", "Docks.gmdesk", "--seed", "3"))
    assert ok(gmdesk(saves, "char", "Docks.gmdesk", "list")).split()[5] == "Bruno"
    assert "Bruno" not in ok(gmdesk(saves, "char", "Docks", "list"))
    assert "#2" in ok(gmdesk(saves, "log", "Docks.gmdesk")) and "#2" not in ok(gmdesk(saves, "log", "Docks"))
    # a path is a path: a directory part makes it one
    assert "Kara" in ok(gmdesk(saves, "char", "./saves/Docks.gmdesk", "list", cwd=tmp_path))
    assert "Kara" in ok(gmdesk(saves, "char", str(saves / "Docks.gmdesk"), "list"))


def test_a_damaged_docks_does_not_answer_for_the_sound_docks_dot(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    ok(gmdesk(saves, "new", "Docks"))
    ok(gmdesk(saves, "new", "Docks."))
    ok(gmdesk(saves, "char", "Docks.", "add", "Kara"))
    (saves / "Docks.gmdesk").write_bytes(b'{"_gmdesk": damaged')
    (saves / "Docks.gmdesk.ckpt").unlink(missing_ok=True)
    check = gmdesk(saves, "check", "Docks.")
    assert check.returncode == 0 and "DAMAGED" not in check.stdout, check.stdout
    assert "Kara" in ok(gmdesk(saves, "char", "Docks.", "list"))
    assert "Kara" in ok(gmdesk(saves, "log", "Docks."))
    ok(gmdesk(saves, "roll", "4d2", "--save", "Docks.", "--as", "Kara", "--seed", "1"))
    damaged = gmdesk(saves, "check", "Docks")
    assert damaged.returncode == 1 and "DAMAGED" in damaged.stdout


# --------------------------------------------------------------------------- id-shaped names


@pytest.fixture
def table(tmp_path: Path) -> Path:
    saves = tmp_path / "saves"
    ok(gmdesk(saves, "new", "Docks"))
    ok(gmdesk(saves, "char", "Docks", "add", "Kara"))
    ok(gmdesk(saves, "bestiary", "add", "c1", "--system", "4d2"))
    return saves


@pytest.mark.parametrize("name", ["c1", "c2", "C12", " c7 "])
def test_a_character_name_shaped_like_an_id_is_refused_by_every_verb(table: Path, name: str) -> None:
    sheet = table.parent / "sheet.txt"
    sheet.write_text(f"{name}, a stranger\nDescriptor     Default     Current\nVitality        +5\n")
    before = contents(table)
    for argv in (
        ["char", "Docks", "add", name],
        ["char", "Docks", "set", "Kara", f"name={name}"],
        ["char", "Docks", "add-from", "c1"],  # one copy keeps the stat block's name
        ["import-sheet", "Docks", str(sheet)],  # the name in the sheet's header
    ):
        one_line(gmdesk(table, *argv), "has the shape of a character id")
    assert contents(table) == before
    # `char set c1` still means the character whose id is c1
    ok(gmdesk(table, "char", "Docks", "set", "c1", "vitality=4"))
    assert "Vitality 4" in ok(gmdesk(table, "char", "Docks", "show", "Kara"))


def test_names_that_merely_hold_digits_are_fine(table: Path) -> None:
    for name in ("c1 2", "Cid", "c", "cc1", "1c", "c-1"):
        ok(gmdesk(table, "char", "Docks", "add", name))
    out = ok(gmdesk(table, "char", "Docks", "add-from", "c1", "--count", "2"))
    assert "c1 1 (" in out and "c1 3 (" in out  # "c1 2" is taken above


async def test_the_new_character_dialog_says_it_at_the_name(tmp_path: Path) -> None:
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "c")
        form = await dialog(pilot, FormDialog)
        await press(pilot, *"c2")
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is form
        error = str(form.query_one("#dialog-error").render())
        assert error.startswith("✗ Name: 'c2' has the shape of a character id"), error
        assert form.query_one("#form-name", Input).value == "c2"
        form.query_one("#form-name", Input).value = "Cid"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is not form
    assert [c.name for c in saved(path).characters.values()] == ["Kara", "Cid"]
