"""Hidden combatants: a character hidden from the players is in the GM's initiative
and acts, but its rolls and itself stay out of what the players see until revealed;
revealing is undoable and leaves its earlier rolls hidden unless they are revealed too."""

from __future__ import annotations

import pytest

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.events import replay
from gmdesk.core.systems import get_system

FOUR_D_TWO = get_system("4d2")


@pytest.fixture
def s(tmp_path):
    session = Session.open(SessionStore(tmp_path / "saves").create("Ambush", "4d2"))
    yield session
    session.close()


def add(s: Session, name: str, **kw) -> str:
    return s.apply({"type": "character.add", "character": {"name": name, **kw}}).data["id"]


def roll(s: Session, actor: str, target: str | None = None) -> int:
    rec = FOUR_D_TWO.roll(FOUR_D_TWO.Params(), FixedDice([2, 2, 1, 1]))
    doc = {"type": "roll", "record": rec, "actor": actor}
    if target is not None:
        doc["target"] = target
    return s.apply(doc).seq


def public_seqs(s: Session) -> list[int]:
    return [e.seq for e in s.state.rolls if s.state.public_roll(e)]


def snap(s: Session) -> dict:
    d = s.state.to_json()
    d["info"].pop("last_played")
    return d


def test_old_characters_are_not_hidden_and_hidden_is_kept(s):
    kara = add(s, "Kara")
    gos = add(s, "Gospog", side="NPC", hidden=True)
    assert not s.state.characters[kara].hidden and s.state.characters[gos].hidden
    assert "hidden" not in s.state.characters[kara].to_json()
    with Session.open(s.path, readonly=True) as again:
        assert again.state.characters[gos].hidden and not again.state.characters[kara].hidden


def test_rolls_while_hidden_stay_hidden_after_reveal_unless_revealed_too(s):
    kara = add(s, "Kara")
    gos = add(s, "Gospog", side="NPC", hidden=True)
    s.apply({"type": "initiative.set", "entries": [{"id": kara, "value": 5}, {"id": gos, "value": 9}]})
    mine = roll(s, kara)
    ambush = roll(s, gos, kara)
    at_him = roll(s, kara, gos)
    assert public_seqs(s) == [mine]  # Kara's initiative roll has no record: only real rolls count
    s.apply({"type": "character.reveal", "id": gos})
    assert not s.state.characters[gos].hidden
    assert public_seqs(s) == [mine]  # earlier rolls still hidden
    later = roll(s, gos, kara)
    assert public_seqs(s) == [mine, later]
    e = s.apply({"type": "character.reveal", "id": gos, "rolls": [ambush]})
    assert "#" + str(ambush) in e.summary
    assert public_seqs(s) == [mine, ambush, later]
    s.undo()
    assert public_seqs(s) == [mine, later]
    s.undo()  # the later roll
    s.undo()  # the reveal: hidden again
    assert s.state.characters[gos].hidden and public_seqs(s) == [mine]
    s.redo()
    s.apply({"type": "character.reveal", "id": gos, "rolls": [ambush, at_him]})
    assert public_seqs(s) == [mine, ambush, at_him]
    fold = replay(s._log.header, s._log.events())
    live = snap(s)
    replayed = fold.state.to_json()
    replayed["info"].pop("last_played")
    assert replayed == live


def test_hide_and_reveal_refusals(s):
    kara = add(s, "Kara")
    mine = roll(s, kara)
    with pytest.raises(EventError, match="Kara is not hidden"):
        s.apply({"type": "character.reveal", "id": kara})
    with pytest.raises(EventError, match="not a hidden roll of Kara"):
        s.apply({"type": "character.reveal", "id": kara, "rolls": [mine]})
    s.apply({"type": "character.hide", "id": kara})
    with pytest.raises(EventError, match="already hidden"):
        s.apply({"type": "character.hide", "id": kara})
    assert public_seqs(s) == []  # hidden now: its rolls too
    s.undo()
    assert public_seqs(s) == [mine]


def test_hidden_survives_the_checkpoint(s):
    kara = add(s, "Kara")
    gos = add(s, "Gospog", side="NPC", hidden=True)
    for _ in range(3):
        roll(s, gos, kara)
    s.apply({"type": "character.reveal", "id": gos, "rolls": [3]})
    before = snap(s)
    path = s.path
    s.close()
    with Session.open(path) as again:
        after = again.state.to_json()
        after["info"].pop("last_played")
        assert after == before
        assert [e.seq for e in again.state.rolls if again.state.public_roll(e)] == [3]


# --------------------------------------------------------------------------- CLI and chronicle


def cli(capsys, saves, *args):
    from gmdesk.cli.main import main

    rc = main(["--saves", str(saves), *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_char_add_hidden_log_public_and_export_until_revealed(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GMDESK_SAVES", raising=False)
    saves = tmp_path / "saves"
    assert cli(capsys, saves, "new", "Ambush", "--system", "4d2")[0] == 0
    assert cli(capsys, saves, "char", "Ambush", "add", "Kara")[0] == 0
    rc, out, _ = cli(capsys, saves, "char", "Ambush", "add", "Gospog", "--side", "NPC", "--hidden")
    assert rc == 0 and "hidden from the players" in out
    path = SessionStore(saves).resolve("Ambush")
    with Session.open(path) as s:
        kara, gos = s.state.character("Kara").id, s.state.character("Gospog").id
        s.apply({"type": "initiative.set", "entries": [{"id": kara, "value": 5}, {"id": gos, "value": 9}]})
        ambush = roll(s, gos, kara)
        roll(s, kara)
        s.apply({"type": "condition.add", "id": gos, "name": "Stymied"})

    def public_log() -> str:
        rc, out, err = cli(capsys, saves, "log", "Ambush", "--public")
        assert rc == 0, err
        return out

    def chronicle(*extra: str) -> str:
        rc, out, err = cli(capsys, saves, "export", "Ambush", *extra)
        assert rc == 0, err
        return out

    rc, gm_log, _ = cli(capsys, saves, "log", "Ambush")
    assert "Gospog" in gm_log
    assert "Gospog" not in public_log() and "Kara rolls" in public_log()
    assert "Initiative: Kara 5" in public_log()  # the initiative is told for the others
    assert "Gospog" not in chronicle() and "Kara" in chronicle()
    assert "Gospog" in chronicle("--gm")
    import json

    data = json.loads(chronicle("--format", "json"))
    assert [c["name"] for c in data["characters"]] == ["Kara"]
    assert [x["char_id"] for x in data["encounter"]["order"]] == [kara]

    rc, out, _ = cli(capsys, saves, "char", "Ambush", "reveal", "Gospog")
    assert rc == 0 and "revealed" in out
    log = public_log()
    assert "Gospog joins (NPC, organic)" in log and "hidden" not in log.split("revealed")[0]
    assert "Gospog rolls at Kara" not in log  # the ambush stays hidden
    assert "Gospog rolls at Kara" not in chronicle() and "**Gospog**" in chronicle()
    rc, out, _ = cli(capsys, saves, "char", "Ambush", "reveal", "Gospog", "--with-rolls")
    assert rc == 0 and f"#{ambush}" in out
    assert "Gospog rolls at Kara" in public_log()
    assert "Gospog → Kara" in chronicle() or "Gospog rolls at Kara" in chronicle()
    rc, _, err = cli(capsys, saves, "char", "Ambush", "reveal", "Gospog")
    assert rc == 2 and err.count("\n") == 1 and "not hidden" in err


def test_a_hidden_group_is_out_of_the_players_log_until_revealed(s):
    from gmdesk.core.session.events.visibility import public_event

    add(s, "Kara")
    group = [{"character": {"name": f"Gospog {n}", "side": "NPC", "hidden": True}} for n in (1, 2)]
    e = s.apply({"type": "characters.add", "entries": group, "source": "Gospog"})
    assert public_event(s.state, e) is None
    for cid in e.data["ids"]:
        s.apply({"type": "character.reveal", "id": cid})
    shown = public_event(s.state, s.events[1])
    assert shown is not None and "hidden" not in shown.summary and "Gospog 1" in shown.summary
