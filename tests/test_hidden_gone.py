"""A character that leaves the session while hidden stays unseen: the players' log
(`log --public`) and the public chronicle (md, html, json) never name it — neither
its joining, nor its leaving, nor a roll it made or took — as while it was there.
One revealed before it leaves is told as any other. (In-process: the command line's
own output is what is checked.)"""

from __future__ import annotations

import json

import pytest
from helpers import gmdesk_cli


@pytest.fixture
def ambush(tmp_path, capsys):
    saves = tmp_path / "saves"

    def run(*args: str) -> str:
        rc, out, err = gmdesk_cli(capsys, saves, *args)
        assert rc == 0, err
        return out

    run("new", "Ambush", "--system", "4d2")
    run("char", "Ambush", "add", "Kara")
    run("char", "Ambush", "add", "Lurker", "--side", "NPC")  # seen joining…
    run("roll", "4d2", "--save", "Ambush", "--as", "Lurker", "--seed", "3")  # …and rolling, then hidden
    run("char", "Ambush", "hide", "Lurker")
    run("roll", "4d2", "--save", "Ambush", "--as", "Lurker", "--at", "Kara", "--combat", "--seed", "4")
    run("char", "Ambush", "add", "Stalker", "--side", "NPC", "--hidden")
    run("roll", "4d2", "--save", "Ambush", "--as", "Kara", "--at", "Stalker", "--combat", "--seed", "5")
    run("char", "Ambush", "add", "Herald", "--side", "NPC", "--hidden")
    run("char", "Ambush", "reveal", "Herald")
    for name in ("Lurker", "Stalker", "Herald"):
        run("char", "Ambush", "remove", name)
    return run


def test_a_character_that_left_hidden_is_never_named_to_the_players(ambush):
    told = [ambush("log", "Ambush", "--public"), ambush("log", "Ambush", "--public", "--json")]
    told += [ambush("export", "Ambush", "--format", fmt) for fmt in ("md", "html", "json")]
    for text in told:
        assert "Lurker" not in text and "Stalker" not in text, text
        assert "Herald" in text  # revealed before leaving: told as any other
        assert "Kara" in text
    gm = ambush("export", "Ambush", "--gm")
    assert "Lurker" in gm and "Stalker" in gm  # the GM's chronicle keeps everything
    players = [json.loads(line) for line in ambush("log", "Ambush", "--public", "--json").splitlines()]
    assert not any(e["type"] == "roll" and "Kara" not in e["summary"] for e in players)  # no roll of theirs


def test_undoing_a_hidden_characters_leaving_keeps_it_hidden(ambush, tmp_path):
    from gmdesk.core.session import Session, SessionStore

    path = SessionStore(tmp_path / "saves").resolve("Ambush")
    with Session.open(path) as s:
        s.undo()  # Herald back
        s.undo()  # Stalker back, hidden as it left
        assert s.character("Stalker").hidden
    for text in (ambush("log", "Ambush", "--public"), ambush("export", "Ambush")):
        assert "Stalker" not in text and "Lurker" not in text
