"""What players see of each combatant (issue 23, point 5), in the session and the
command line: a level per character — its name only, its name and wounds (the
default for NPCs), or all (the default for PCs) — set by an undoable
``visibility.set``, kept in the checkpoint, carried to the next night and into the
bestiary's copies; the players' log and chronicle honour it. Real store."""

from __future__ import annotations

import json

import pytest
from helpers import gmdesk_cli, one_error_line, same_as_replay

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import EventError, Session, SessionStore
from gmdesk.core.session.events.seen import public_changes
from gmdesk.core.session.events.visibility import public_event
from gmdesk.core.session.export import export
from gmdesk.core.systems import get_system

FOUR_D_TWO = get_system("4d2")


@pytest.fixture
def store(saves) -> SessionStore:
    return SessionStore(saves)


def table(store: SessionStore, name: str = "Night 1") -> tuple[Session, dict[str, str]]:
    """A 4d2 session: Kara (PC), Bruno and Gospog (NPCs), all in the encounter."""
    s = Session.open(store.create(name, "4d2"))
    ids = {}
    for who, side in (("Kara", "PC"), ("Bruno", "NPC"), ("Gospog", "NPC")):
        ids[who] = s.apply({"type": "character.add", "character": {"name": who, "side": side, "vitality": 10}}).data[
            "id"
        ]
    s.apply({"type": "initiative.set", "entries": [{"id": cid, "value": 10 - i} for i, cid in enumerate(ids.values())]})
    return s, ids


def see(s: Session, cid: str, level: str):
    return s.apply({"type": "visibility.set", "id": cid, "level": level})


def hit(s: Session, actor: str, target: str) -> int:
    """Kara hits: 4d2 Barely Successful, Backfoot on the target."""
    rec = FOUR_D_TWO.roll(FOUR_D_TWO.Params(combat=True), FixedDice([2, 2, 2, 1]))
    return s.apply({"type": "roll", "record": rec, "actor": actor, "target": target, "combat": True}).seq


def levels(s: Session) -> dict[str, str]:
    return {c.name: c.seen for c in s.state.characters.values()}


def test_the_defaults_a_level_set_and_its_undo(store):
    s, ids = table(store)
    with s:
        assert levels(s) == {"Kara": "all", "Bruno": "wounds", "Gospog": "wounds"}
        ev = see(s, ids["Bruno"], "name")
        assert ev.summary == "The players see only the name of Bruno"
        assert ev.changes == ["Bruno: the players see name and wounds → name only"]
        see(s, ids["Kara"], "wounds")
        assert levels(s) == {"Kara": "wounds", "Bruno": "name", "Gospog": "wounds"}
        assert s.state.characters[ids["Bruno"]].to_json()["visibility"] == "name"
        assert "visibility" not in s.state.characters[ids["Gospog"]].to_json()  # the default is not written
        s.undo()
        s.undo()
        assert levels(s) == {"Kara": "all", "Bruno": "wounds", "Gospog": "wounds"}
        s.redo()
        assert levels(s)["Bruno"] == "name"
        same_as_replay(s)
    with store.open("Night 1") as again:
        assert levels(again) == {"Kara": "all", "Bruno": "name", "Gospog": "wounds"}


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ({"level": "secret"}, "level: must be one of name, wounds, all"),
        ({"level": "wounds"}, "the players already see the name and wounds of Bruno"),
        ({"level": None}, "level"),
        ({"id": "c99", "level": "name"}, "c99"),
    ],
)
def test_bad_levels_are_refused_and_change_nothing(store, doc, words):
    s, ids = table(store)
    with s:
        before = len(s.events)
        with pytest.raises(EventError) as e:
            s.apply({"type": "visibility.set", "id": ids["Bruno"], **doc})
        assert words in str(e.value)
        assert len(s.events) == before and levels(s)["Bruno"] == "wounds"


def test_the_checkpoint_keeps_the_level(store, monkeypatch):
    monkeypatch.setattr(Session, "UNDO_KEPT", 2)
    s, ids = table(store)
    with s:
        see(s, ids["Bruno"], "name")
        see(s, ids["Kara"], "wounds")
        for i in range(30):
            s.apply({"type": "note", "text": f"note {i}"})
        seq = s.events[-1].seq
    with store.open("Night 1") as again:  # from its checkpoint
        assert again._ckpt_seq == seq
        assert levels(again) == {"Kara": "wounds", "Bruno": "name", "Gospog": "wounds"}
        same_as_replay(again)


def test_a_checkpoint_row_of_version_7_reads_with_the_default_levels(store):
    from gmdesk.core.session.model import checkpoint_json, state_from_checkpoint

    s, ids = table(store)
    with s:
        see(s, ids["Bruno"], "name")
        form = checkpoint_json(s.state)
    row = next(r for r in form["characters"] if r[0] == ids["Bruno"])
    assert len(row) == 22 and row[21] == "name"
    form["characters"] = [r[:21] for r in form["characters"]]  # as gmdesk wrote them before levels (version 7)
    old = state_from_checkpoint(form, lambda *a: None)  # type: ignore[arg-type, return-value]
    assert {c.name: c.seen for c in old.characters.values()} == {"Kara": "all", "Bruno": "wounds", "Gospog": "wounds"}


def test_a_save_without_levels_opens_with_the_defaults(tmp_path):
    """A save written before levels existed (no visibility.set, no visibility key)."""
    import shutil
    from pathlib import Path

    earlier = sorted((Path(__file__).parent / "data" / "earlier").glob("*.gmdesk"))
    assert earlier
    for path in earlier:
        copy = tmp_path / path.name
        shutil.copy(path, copy)
        with Session.open(copy, readonly=True) as s:
            chars = list(s.state.characters.values())
            assert chars and all(c.visibility is None for c in chars)
            assert {c.seen for c in chars if c.side == "PC"} <= {"all"}
            assert {c.seen for c in chars if c.side != "PC"} <= {"wounds"}


def test_the_next_night_carries_the_levels_with_or_without_a_rest(store, capsys, saves):
    s, ids = table(store)
    with s:
        see(s, ids["Kara"], "wounds")
        see(s, ids["Bruno"], "name")
    for rest in ((), ("--rest",)):
        name = f"Next {len(rest)}"
        rc, _, err = gmdesk_cli(capsys, saves, "new", name, "--from", "Night 1", *rest, "--with", "Bruno")
        assert rc == 0, err
        with store.open(name) as n:
            assert levels(n) == {"Kara": "wounds", "Bruno": "name"}
            assert "the players see: name only" in n.events[0].changes[1]
            n.undo()
            assert not n.state.characters


def test_a_bestiary_copy_keeps_the_level(store, capsys, saves):
    from gmdesk.core.campaign.bestiary import Bestiary, StatBlock

    s, ids = table(store)
    with s:
        see(s, ids["Gospog"], "name")
        block = StatBlock.from_character(s.state.characters[ids["Gospog"]], "4d2", name="Shade")
    assert block.visibility == "name" and block.to_json()["visibility"] == "name"
    assert StatBlock.from_json(block.to_json()) == block
    Bestiary(saves).add(block)
    rc, out, err = gmdesk_cli(capsys, saves, "char", "Night 1", "add-from", "Shade", "--count", "2")
    assert rc == 0, err
    with store.open("Night 1") as again:
        assert levels(again)["Shade 1"] == levels(again)["Shade 2"] == "name"
    with pytest.raises(ValueError, match="visibility"):
        StatBlock.from_json({**block.to_json(), "visibility": "most"})


def test_public_changes_keep_what_each_level_shows(store):
    s, ids = table(store)
    with s:
        see(s, ids["Bruno"], "name")
        lines = [
            "Bruno: Vitality 10 → 7",
            "Bruno takes Backfoot",
            "Gospog: Vitality 10 → 0 (Unconscious)",
            "Gospog: Vitality 10 → 8",
            "Gospog takes Wound",
            "Gospog is Stymied",
            "Gospog gains advantage Cover +1",
            "Gospog: OK → Dead",
            "Kara: Vitality 10 → 7",
            "Bruno: initiative 9",
        ]
        assert public_changes(s.state, lines) == [
            "Gospog is Unconscious",
            "Gospog takes Wound",
            "Gospog is Stymied",
            "Gospog: OK → Dead",
            "Kara: Vitality 10 → 7",
            "Bruno: initiative 9",
        ]


def test_the_players_log_and_chronicle_honour_each_level(store):
    s, ids = table(store)
    k, b, g = ids["Kara"], ids["Bruno"], ids["Gospog"]
    with s:
        set_event = see(s, b, "name")
        at_bruno = hit(s, k, b)
        hit(s, k, g)
        s.apply({"type": "condition.add", "id": b, "name": "Stymied"})
        s.apply({"type": "condition.add", "id": g, "name": "Dazed"})
        s.apply({"type": "counter.add", "id": k, "label": "Luck", "max": 3, "reset": "night"})
        public = export(s.state, "md", s.events, header=s.header)
        gm = export(s.state, "md", s.events, public=False, header=s.header)
        data = json.loads(export(s.state, "json", s.events, header=s.header))
        told = public_event(s.state, next(e for e in s.events if e.seq == at_bruno))
        assert public_event(s.state, set_event) is None  # the GM's bookkeeping
    # the GM's chronicle tells all
    assert "Bruno takes Backfoot" in gm and "Bruno is Stymied" in gm and "players see" in gm
    # Bruno, by name only: the roll at him is told, not what it did to him
    assert "Kara rolls at Bruno" in public
    cast = public.split("## Cast")[1].split("##")[0]
    assert "- **Bruno** — NPC\n" in cast
    assert "Bruno takes Backfoot" not in public and "Stymied" not in public
    assert "players see" not in public
    assert told is not None and "Backfoot" not in told.summary and not told.changes
    # Gospog, name and wounds: its wound and condition, no Vitality
    assert "Gospog takes Backfoot" in public and "Dazed" in public
    assert "- **Gospog** — NPC, organic, OK, Dazed" in cast
    # Kara, all: Vitality and counters
    assert "Vitality 10/10" in cast.split("**Kara**")[1].split("\n")[0]
    assert "Kara gets a counter: Luck 3/3" in public
    chars = {c["name"]: c for c in data["characters"]}
    assert chars["Bruno"] == {"id": b, "name": "Bruno", "side": "NPC"}
    assert "vitality_current" not in chars["Gospog"] and chars["Gospog"]["wounds"][0]["text"] == "Backfoot"
    assert chars["Kara"]["vitality_current"] == 10 and "counters" in chars["Kara"]
    rolls = {r["target_name"]: r for r in data["chronicle"] if r["type"] == "roll"}
    assert "descriptors" not in rolls["Bruno"]["roll"] and rolls["Bruno"]["changes"] == []
    assert "Backfoot" not in rolls["Bruno"]["line"] and "Backfoot" in rolls["Gospog"]["line"]
    assert rolls["Gospog"]["changes"] == ["Gospog takes Backfoot"]
    assert [h["name"] for h in data["hurt"]] == ["Gospog"]


def test_hidden_stays_above_the_levels(store):
    s, ids = table(store)
    with s:
        see(s, ids["Gospog"], "all")
        s.apply({"type": "character.hide", "id": ids["Gospog"]})
        hit(s, ids["Kara"], ids["Gospog"])
        public = export(s.state, "md", s.events, header=s.header)
    assert "Gospog" not in public


# ------------------------------------------------------------------ the CLI


def test_the_cli_sets_prints_shows_and_lists_the_level(store, capsys, saves):
    s, _ = table(store)
    s.close()
    rc, out, err = gmdesk_cli(capsys, saves, "char", "Night 1", "visibility", "bruno", "Name")
    assert (rc, out, err) == (0, "The players see only the name of Bruno\n", "")
    rc, out, _ = gmdesk_cli(capsys, saves, "char", "Night 1", "visibility", "Bruno")
    assert (rc, out) == (0, "Bruno: the players see name only\n")
    rc, out, _ = gmdesk_cli(capsys, saves, "char", "Night 1", "visibility", "Gospog")
    assert out == "Gospog: the players see name and wounds (the default for an NPC)\n"
    rc, out, _ = gmdesk_cli(capsys, saves, "char", "Night 1", "show", "Kara")
    assert "  Players see: all (the default for a PC)\n" in out
    rc, out, _ = gmdesk_cli(capsys, saves, "char", "Night 1", "list")
    assert "Bruno (players see name only)" in out and "Gospog (players" not in out
    rc, out, _ = gmdesk_cli(capsys, saves, "char", "Night 1", "show", "Bruno", "--json")
    assert json.loads(out)["visibility"] == "name"
    with store.open("Night 1") as again:
        assert levels(again)["Bruno"] == "name"
        again.undo()
        assert levels(again)["Bruno"] == "wounds"


def test_char_add_takes_a_level(store, capsys, saves):
    s, _ = table(store)
    s.close()
    rc, out, err = gmdesk_cli(capsys, saves, "char", "Night 1", "add", "Shade", "--side", "NPC", "--visibility", "NAME")
    assert rc == 0, err
    assert "  Players see: name only\n" in out
    rc, out, err = gmdesk_cli(capsys, saves, "char", "Night 1", "add", "Wisp", "--visibility", "some")
    assert rc == 2 and out == ""
    one_error_line(err, "visibility", "name, wounds or all")
    with store.open("Night 1") as again:
        assert levels(again)["Shade"] == "name" and "Wisp" not in levels(again)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("Bruno", "everything"), ("visibility", "name, wounds or all", "'everything'")),
        (("Nobody", "name"), ("Nobody",)),
        (("Bruno", "wounds"), ("already see the name and wounds of Bruno",)),
    ],
)
def test_bad_cli_input_is_one_line_and_touches_nothing(store, capsys, saves, args, words):
    from helpers import files_of

    s, _ = table(store)
    s.close()

    def saved() -> dict:  # the session's files (the writer's lock is taken and let go)
        return {k: v for k, v in files_of(saves).items() if not k.endswith(".lock")}

    before = saved()
    rc, out, err = gmdesk_cli(capsys, saves, "char", "Night 1", "visibility", *args)
    assert rc == 2 and out == ""
    one_error_line(err, *words)
    assert saved() == before


def test_the_players_log_on_the_command_line_honours_the_level(store, capsys, saves):
    s, ids = table(store)
    with s:
        see(s, ids["Bruno"], "name")
        hit(s, ids["Kara"], ids["Bruno"])
        hit(s, ids["Kara"], ids["Gospog"])
    rc, out, err = gmdesk_cli(capsys, saves, "log", "Night 1", "--public")
    assert rc == 0, err
    at_bruno = next(line for line in out.splitlines() if "Kara rolls at Bruno" in line)
    assert "Barely Successful" in at_bruno and "Backfoot" not in at_bruno
    assert "Bruno takes Backfoot" not in out and "players see" not in out
    assert "Gospog takes Backfoot" in out
    rc, out, err = gmdesk_cli(capsys, saves, "log", "Night 1")  # the GM's log: all of it
    assert "Bruno takes Backfoot" in out and "The players see only the name of Bruno" in out


def test_all_never_shows_a_field_that_fills_in_a_gm_secret(store, monkeypatch):
    """A system may let a character's field fill in a parameter it keeps secret (a
    defense the GM keeps behind the screen): the players' chronicle leaves that field
    out, even of a character they see all of."""
    import dataclasses

    from gmdesk.core import systems

    spec = systems.get_spec("1d6x4")
    secret_defense = dataclasses.replace(
        spec,
        character_fields=tuple(
            dataclasses.replace(f, feeds="target") if f.name == "defense_test" else f for f in spec.character_fields
        ),
    )
    s = Session.open(store.create("Witch", "1d6x4"))
    with s:
        fields = {"attack_test": "Precision", "defense_test": "Dodge"}
        kara = s.apply({"type": "character.add", "character": {"name": "Kara", "fields": fields}}).data["id"]
        assert s.state.characters[kara].seen == "all"
        monkeypatch.setattr(systems, "get_spec", lambda system: secret_defense if system == "1d6x4" else spec)
        data = json.loads(export(s.state, "json", s.events, header=s.header))
        gm = json.loads(export(s.state, "json", s.events, public=False, header=s.header))
    assert data["characters"][0]["fields"] == {"attack_test": "Precision"}
    assert gm["characters"][0]["fields"] == fields
