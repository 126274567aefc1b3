"""A character removed since a roll keeps the name the roll was made with, wherever
the roll is told: the desk's roll log and its breakdown, ``gmdesk log`` (the GM's
and the players'), the chronicle (md, html, json) — never its id ("c1"), never "GM"
as if nobody had rolled."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import dialog, gmdesk_run, main_screen, make_app, press, run, screen_text

from gmdesk.tui.screens.rolldetails import RollDetails

SIZE = (80, 24)
ID = re.compile(r"\bc\d+\b")


@pytest.fixture
def gone(tmp_path: Path) -> Path:
    """Kara attacks Bruno spending a Possibility (torg), then both leave the session."""
    saves = str(tmp_path)

    def gm(*args: str) -> str:
        done = gmdesk_run("--saves", saves, *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    gm("new", "Gone", "--system", "torg-2d10")
    gm("char", "Gone", "add", "Kara", "--side", "PC")
    gm("char", "Gone", "add", "Bruno", "--side", "NPC")
    gm("char", "Gone", "set", "Kara", "possibilities=3")
    gm(
        *"roll torg-2d10 --save Gone --as Kara --at Bruno --combat --skill 10 --difficulty 8".split(),
        "--possibilities",
        "1",
        "--seed",
        "3",
    )
    gm("char", "Gone", "remove", "Bruno")
    gm("char", "Gone", "remove", "Kara")
    return tmp_path / "Gone.gmdesk"


def no_id_nor_gm(text: str) -> None:
    assert not ID.search(text), text
    assert "GM" not in text, text


async def test_the_breakdown_names_who_rolled_at_whom_and_who_spent(gone: Path) -> None:
    app = make_app(gone)
    async with run(app, size=SIZE) as pilot:
        screen = await main_screen(pilot)
        screen.rolllog.focus()
        await press(pilot, "end", "enter")
        await dialog(pilot, RollDetails)
        body = screen_text(app)
    assert "Kara → Bruno" in body and "Possibility spent by Kara" in body, body
    no_id_nor_gm(body)


def test_the_log_and_the_chronicle_keep_the_names(gone: Path) -> None:
    saves = str(gone.parent)
    texts = []
    for args in (
        ("log", "Gone"),
        ("log", "Gone", "--public"),
        ("export", "Gone", "--format", "md"),
        ("export", "Gone", "--format", "html"),
    ):
        done = gmdesk_run("--saves", saves, *args)
        assert done.returncode == 0, done.stderr
        assert "Kara rolls at Bruno" in done.stdout, done.stdout
        texts.append(done.stdout)
    for text in texts:
        no_id_nor_gm(text)
    chronicle = json.loads(gmdesk_run("--saves", saves, "export", "Gone", "--format", "json").stdout)
    rolls = [e for e in chronicle["chronicle"] if e.get("actor")]
    assert rolls and all((e["actor_name"], e["target_name"]) == ("Kara", "Bruno") for e in rolls)
