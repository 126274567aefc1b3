"""The bestiary (``bestiary.json`` beside the sessions) and ``gmdesk bestiary
add|save|list|show|remove|export|import``, as a GM types them."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest
from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.campaign.bestiary import (
    BESTIARY_FILE,
    Bestiary,
    BestiaryBusyError,
    from_toml,
    starter_blocks,
    to_toml,
)
from gmdesk.core.campaign.statblock import StatBlock
from gmdesk.core.session import Session, SessionStore


def names(saves: Path, **query) -> list[str]:
    return [b.name for b in Bestiary(saves).blocks(**query)]


def empty(saves: Path) -> Path:
    """A saves directory with an empty bestiary (no starter)."""
    saves.mkdir(parents=True, exist_ok=True)
    (saves / BESTIARY_FILE).write_text("{}", encoding="utf-8")
    return saves / BESTIARY_FILE


# --------------------------------------------------------------------------- the starter


def test_a_first_list_writes_the_starter_bestiary_once_and_never_over_an_existing_one(capsys, saves):
    rc, out, err = run(capsys, saves, "bestiary", "list")
    assert rc == 0, err
    assert "Started the bestiary" in out
    for name in ("Gospog Sergeant", "Castle Guard", "Bog Goblin", "Bandit Captain", "Scrap-7"):
        assert name in out
    assert (saves / BESTIARY_FILE).is_file()
    # the session list does not show it
    rc, out, err = run(capsys, saves, "list")
    assert rc == 0 and "No sessions" in out and "bestiary" not in out
    assert SessionStore(saves).list() == []
    # the GM removes one: it stays removed (the starter is never written again)
    assert run(capsys, saves, "bestiary", "remove", "Gospog")[0] == 0
    rc, out, err = run(capsys, saves, "bestiary", "list")
    assert "Started" not in out and "Gospog Sergeant" in out and "Gospog " not in out.replace("Gospog Sergeant", "")


def test_an_existing_bestiary_even_an_empty_one_is_never_replaced_by_the_starter(capsys, saves):
    path = empty(saves)
    rc, out, err = run(capsys, saves, "bestiary", "list")
    assert rc == 0 and "empty" in out and "Started" not in out
    assert path.read_text() == "{}"


def test_the_starter_holds_every_shipped_examples_foes_with_their_stat_blocks():
    from gmdesk.core.session.saves import _examples_dir

    starter = {(b.system, b.name): b for b in starter_blocks()}
    examples = _examples_dir()
    assert examples is not None
    seen = 0
    for path in sorted(examples.glob("*.gmdesk")):
        with Session.open(path, readonly=True) as s:
            for c in s.state.characters.values():
                if c.side != "NPC":
                    continue
                seen += 1
                b = starter[(s.state.info.system, c.name)]
                mine = StatBlock.from_character(c, s.state.info.system).check()
                assert (b.vitality, b.kind, b.possibilities, b.reality_rated) == (
                    mine.vitality,
                    mine.kind,
                    mine.possibilities,
                    mine.reality_rated,
                )
                assert b.fields == mine.fields and b.sources == mine.sources and b.sheet == mine.sheet
    assert seen >= 10
    assert {b.system for b in starter.values()} == {"4d2", "fudge", "1d6x4", "torg-2d10", "4d6"}


# --------------------------------------------------------------------------- add / show / list / remove


def test_add_show_list_and_remove(capsys, saves):
    empty(saves)
    rc, out, err = run(
        capsys,
        saves,
        "bestiary",
        "add",
        "Stormer",
        "--system",
        "torg-2d10",
        "--set",
        "stats=Dexterity=9, Fire Combat=12, Dodge=10",
        "--set",
        "attack=fire combat",
        "--set",
        "vitality=10",
        "--set",
        "possibilities=2",
        "--tag",
        "Core Earth",
        "--tag",
        "stormers",
        "--condition",
        "Up",
    )
    assert rc == 0, err
    assert "Added Stormer (torg-2d10)" in out and "Fire Combat=12" in out
    b = Bestiary(saves).find("stormer")
    assert b.fields == {"stats": {"Dexterity": 9, "Fire Combat": 12, "Dodge": 10}, "attack": "Fire Combat"}
    assert (b.vitality, b.possibilities, b.reality_rated, b.side) == (10, 2, True, "NPC")
    assert b.tags == ("Core Earth", "stormers") and b.conditions == ({"name": "Up", "rounds": None},)

    rc, out, err = run(capsys, saves, "bestiary", "add", "Bar Brawler", "--system", "4d2", "--shift", "Brawling=1")
    assert rc == 0, err
    rc, out, err = run(capsys, saves, "bestiary", "show", "STORMER", "--json")
    assert rc == 0 and json.loads(out) == b.to_json()
    rc, out, err = run(capsys, saves, "bestiary", "show", "Stormer")
    assert "Attack skill: Fire Combat" in out and "Possibilities 2" in out and "Tags: Core Earth, stormers" in out

    rc, out, err = run(capsys, saves, "bestiary", "list", "--json")
    assert [json.loads(line)["name"] for line in out.splitlines()] == ["Bar Brawler", "Stormer"]
    rc, out, err = run(capsys, saves, "bestiary", "list", "--system", "4d2")
    assert "Bar Brawler" in out and "Stormer" not in out
    rc, out, err = run(capsys, saves, "bestiary", "list", "--tag", "STORMERS")
    assert "Stormer" in out and "Bar Brawler" not in out
    rc, out, err = run(capsys, saves, "bestiary", "list", "--search", "brawl")
    assert "Bar Brawler" in out and "Stormer" not in out

    rc, out, err = run(capsys, saves, "bestiary", "remove", "bar brawler")
    assert rc == 0 and "Removed Bar Brawler (4d2)" in out
    assert names(saves) == ["Stormer"]


def test_one_name_per_system_and_show_asks_which_when_two_systems_share_it(capsys, saves):
    empty(saves)
    assert run(capsys, saves, "bestiary", "add", "Bandit", "--system", "fudge")[0] == 0
    assert run(capsys, saves, "bestiary", "add", "Bandit", "--system", "4d6")[0] == 0
    rc, out, err = run(capsys, saves, "bestiary", "add", "bandit", "--system", "4d6")
    assert rc == 2
    one_error_line(err, "already in the bestiary", "Bandit (4d6)", "--replace")
    rc, out, err = run(capsys, saves, "bestiary", "show", "Bandit")
    assert rc == 2
    one_error_line(err, "2 stat blocks", "--system")
    rc, out, err = run(capsys, saves, "bestiary", "show", "Bandit", "--system", "fudge")
    assert rc == 0 and "fudge" in out
    rc, out, err = run(
        capsys, saves, "bestiary", "add", "Bandit", "--system", "4d6", "--set", "vitality=7", "--replace"
    )
    assert rc == 0 and "Replaced" in out
    assert Bestiary(saves).find("Bandit", "4d6").vitality == 7


@pytest.mark.parametrize(
    "args, words",
    [
        (["add", "X", "--system", "d100"], ["unknown system"]),
        (["add", "X", "--system", "torg-2d10", "--set", "stats=Dodge=high"], ["Attributes and skills"]),
        (["add", "X", "--system", "torg-2d10", "--set", "attack=Fire Combat"], ["Attack skill", "Fire Combat"]),
        (["add", "X", "--system", "4d6", "--set", "wings=2"], ["wings", "no such field"]),
        (["add", "X", "--system", "4d6", "--side", "boss"], ["--side"]),
        (["add", "X", "--system", "4d2", "--shift", "Brawling"], ["--shift", "NAME=VALUE"]),
        (["add", "X", "--system", "4d2", "--advantage", "Dim=0"], ["advantage"]),
        (["add", "", "--system", "4d2"], ["name"]),
        (["add", "X"], ["--system"]),
        (["show", "Nobody"], ["no stat block", "Nobody"]),
        (["remove", "Nobody"], ["no stat block"]),
        (["list", "--system", "d100"], ["unknown system"]),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_is_written(capsys, saves, args, words):
    path = empty(saves)
    before = path.read_bytes()
    rc, out, err = run(capsys, saves, "bestiary", *args)
    assert rc == 2
    one_error_line(err, *words)
    assert path.read_bytes() == before


def test_bad_input_on_a_fresh_saves_directory_writes_nothing_at_all(capsys, saves):
    rc, out, err = run(capsys, saves, "bestiary", "add", "X", "--system", "torg-2d10", "--set", "attack=Nope")
    assert rc == 2
    one_error_line(err, "Attack skill")
    assert not (saves / BESTIARY_FILE).exists()


def test_save_keeps_a_sessions_character_as_a_fresh_stat_block_reading_the_session_only(capsys, saves):
    empty(saves)
    store = SessionStore(saves)
    path = store.create("Fen", "1d6x4")
    sheet = (
        "Bog goblin\nDescriptor          Default    Current\nVitality             +2\n"
        "Fitness              +1\nDefense              +0\nKnife                +1\n"
    )
    with Session.open(path) as s:
        ev = s.apply(
            {
                "type": "character.add",
                "character": {"name": "Gob", "side": "NPC", "sheet": sheet, "fields": {"attack_test": "Fitness+Knife"}},
            }
        )
        cid = ev.data["id"]
        s.apply({"type": "character.edit", "id": cid, "fields": {"vitality_current": -1}})
        s.apply({"type": "source.add", "id": cid, "kind": "shift", "name": "Ambush", "value": 1})
        s.apply({"type": "condition.add", "id": cid, "name": "Hiding", "rounds": 2})
        s.apply({"type": "note", "text": "a fight"})
        # the session is open in the GM's desk: save reads it all the same
        rc, out, err = run(capsys, saves, "bestiary", "save", "Fen", "gob", "--as", "Marsh Goblin", "--tag", "fen")
        assert rc == 0, err
        n_events = len(s.events)
    assert "Saved Marsh Goblin (1d6x4) in the bestiary, from Fen" in out
    with Session.open(path, readonly=True) as s:
        assert len(s.events) == n_events
    b = Bestiary(saves).find("Marsh Goblin")
    assert b.vitality == 2 and "Vitality             +2\n" in (b.sheet or "") and "-1" not in (b.sheet or "")
    assert b.fields == {"attack_test": "Fitness+Knife"} and b.tags == ("fen",) and b.side == "NPC"
    assert b.sources == ({"kind": "shift", "name": "Ambush", "value": 1, "rounds": None, "active": True},)
    assert b.conditions == ({"name": "Hiding", "rounds": 2},)
    rc, out, err = run(capsys, saves, "bestiary", "save", "Fen", "Gob", "--as", "Marsh Goblin")
    assert rc == 2
    one_error_line(err, "already in the bestiary", "--replace")
    rc, out, err = run(capsys, saves, "bestiary", "save", "Fen", "Nobody")
    assert rc == 2
    one_error_line(err, "Nobody")


# --------------------------------------------------------------------------- TOML


def test_export_then_import_gives_back_every_stat_block_field_for_field(capsys, saves, tmp_path):
    rc, out, err = run(capsys, saves, "bestiary", "list")  # the starter
    assert (
        run(
            capsys,
            saves,
            "bestiary",
            "add",
            'Odd "One"',
            "--system",
            "4d6",
            "--set",
            "notes=two\nlines \\ and ''' quotes",
            "--advantage",
            "Dim=-1",
            "--tag",
            "odd",
        )[0]
        == 0
    )
    before = Bestiary(saves).blocks()
    toml_file = tmp_path / "mine.toml"
    rc, out, err = run(capsys, saves, "bestiary", "export", str(toml_file))
    assert rc == 0 and f"Wrote {len(before)} stat blocks" in out
    other = tmp_path / "other"
    rc, out, err = run(capsys, other, "bestiary", "import", str(toml_file))
    assert rc == 0, err
    after = Bestiary(other).blocks()
    assert [b.to_json() for b in after] == [b.to_json() for b in before]
    assert after == before
    # the same file again asks for --replace: exit 2, one line, nothing written
    raw = (other / BESTIARY_FILE).read_bytes()
    rc, out, err = run(capsys, other, "bestiary", "import", str(toml_file))
    assert rc == 2
    one_error_line(err, "already in the bestiary", "--replace")
    assert (other / BESTIARY_FILE).read_bytes() == raw
    rc, out, err = run(capsys, other, "bestiary", "import", str(toml_file), "--replace")
    assert rc == 0 and f"({len(before)} replaced)" in out
    assert Bestiary(other).blocks() == before
    # and to stdout
    rc, out, err = run(capsys, saves, "bestiary", "export", "-", "--system", "4d6")
    assert rc == 0 and [b.name for b in from_toml(out)] == names(saves, system="4d6")
    # a file that cannot be written is named as the GM typed it, and nothing is left beside it
    rc, out, err = run(capsys, saves, "bestiary", "export", str(tmp_path / "no-such-folder" / "x.toml"))
    assert rc == 2
    one_error_line(err, f"cannot write {tmp_path / 'no-such-folder' / 'x.toml'}")


def test_a_stat_blocks_fields_read_back_in_the_order_its_system_declares_them(capsys, saves, tmp_path):
    empty(saves)
    sets = ["offense=2", "attack_trait=Strength", "traits=Strength=Great"]  # not in declared order
    rc, out, err = run(capsys, saves, "bestiary", "add", "Troll", "--system", "fudge", *(f"--set={x}" for x in sets))
    assert rc == 0, err
    shown = run(capsys, saves, "bestiary", "show", "Troll")[1]
    assert shown.index("Traits") < shown.index("Attack trait") < shown.index("Offensive factor")
    f = tmp_path / "t.toml"
    assert run(capsys, saves, "bestiary", "export", str(f))[0] == 0
    assert run(capsys, tmp_path / "other", "bestiary", "import", str(f))[0] == 0
    again = run(capsys, tmp_path / "other", "bestiary", "show", "Troll")[1]
    assert again == shown


def test_a_hand_edited_toml_is_read_by_the_systems_declaration(capsys, saves, tmp_path):
    empty(saves)
    f = tmp_path / "hand.toml"
    f.write_text(
        '[[stat_block]]\nname = "Troll"\nsystem = "fudge"\nvitality = 3\ntags = ["big"]\n'
        '[stat_block.fields]\ntraits = "Club=Great, Dodge=Poor"\nattack_trait = "club"\n',
        encoding="utf-8",
    )
    rc, out, err = run(capsys, saves, "bestiary", "import", str(f))
    assert rc == 0, err
    b = Bestiary(saves).find("Troll")
    assert b.fields["attack_trait"] == "Club" and set(b.fields["traits"]) == {"Club", "Dodge"}
    f.write_text('[[stat_block]]\nname = "Troll 2"\nsystem = "fudge"\nvitality = "lots"\n', encoding="utf-8")
    rc, out, err = run(capsys, saves, "bestiary", "import", str(f))
    assert rc == 2
    one_error_line(err, "vitality", "whole number")
    f.write_text("[[stat_block]\n", encoding="utf-8")
    rc, out, err = run(capsys, saves, "bestiary", "import", str(f))
    assert rc == 2
    one_error_line(err, "not TOML")
    assert names(saves) == ["Troll"]


def test_toml_round_trip_of_the_starter_is_exact():
    blocks = starter_blocks()
    assert [b.check() for b in from_toml(to_toml(blocks))] == blocks


# --------------------------------------------------------------------------- damage and the lock


@pytest.mark.parametrize(
    "content",
    [
        b'{"stat_blocks": {"1": {"name": "Gospog", "system": "torg-2d10"',  # cut off
        b"\xff\xfe not text",
        b"[1, 2, 3]",
        b'{"stat_blocks": ["Gospog"]}',
        b'{"stat_blocks": {"1": {"name": "Gospog"}}}',
        b'{"stat_blocks": {"1": {"name": "Gospog", "system": "torg-2d10", "vitality": "nine"}}}',
        b'{"stat_blocks": {"x": {"name": "Gospog", "system": "torg-2d10"}}}',
        b"",
    ],
)
def test_a_damaged_bestiary_is_refused_in_one_line_and_left_byte_for_byte(capsys, saves, content):
    saves.mkdir(parents=True)
    path = saves / BESTIARY_FILE
    path.write_bytes(content)
    for args in (
        ["list"],
        ["show", "Gospog"],
        ["add", "Imp", "--system", "4d6"],
        ["remove", "Gospog"],
        ["export", str(saves / "out.toml")],
    ):
        rc, out, err = run(capsys, saves, "bestiary", *args)
        assert rc == 2, args
        one_error_line(err, "damaged bestiary", str(path))
        assert path.read_bytes() == content
    assert sorted(p.name for p in saves.iterdir()) == [BESTIARY_FILE, BESTIARY_FILE + ".lock"]


def _hold_lock(saves: str, ready, release) -> None:
    b = Bestiary(saves)
    with b.change():
        ready.set()
        release.wait(10)


def test_a_second_writer_waits_for_the_lock_then_is_told_and_nothing_is_written(capsys, saves, monkeypatch):
    path = empty(saves)
    ctx = multiprocessing.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_lock, args=(str(saves), ready, release))
    holder.start()
    try:
        assert ready.wait(10)
        monkeypatch.setattr(Bestiary, "LOCK_WAIT", 0.2)
        rc, out, err = run(capsys, saves, "bestiary", "add", "Imp", "--system", "4d6")
        assert rc == 2
        one_error_line(err, "being changed by another gmdesk", f"pid {holder.pid}")
        assert path.read_bytes() == b"{}"
        with pytest.raises(BestiaryBusyError):
            Bestiary(saves).remove("Imp")
        # readers never wait
        rc, out, err = run(capsys, saves, "bestiary", "list")
        assert rc == 0
    finally:
        release.set()
        holder.join(10)
    assert run(capsys, saves, "bestiary", "add", "Imp", "--system", "4d6")[0] == 0
    assert names(saves) == ["Imp"]


def test_a_writer_killed_while_holding_the_lock_leaves_it_free(saves):
    empty(saves)
    ctx = multiprocessing.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_lock, args=(str(saves), ready, release))
    holder.start()
    assert ready.wait(10)
    os.kill(holder.pid, 9)
    holder.join(10)
    Bestiary(saves).add(StatBlock("Imp", "4d6"))
    assert names(saves) == ["Imp"]


def test_a_change_is_one_atomic_replace_and_a_failed_write_changes_nothing(saves, monkeypatch):
    from gmdesk.core.campaign.bestiary import BestiaryError
    from gmdesk.core.session.storage import atomic

    path = empty(saves)
    Bestiary(saves).add(StatBlock("Imp", "4d6"))
    before = path.read_bytes()

    def full_disk(tmp, final, data, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "publish", full_disk)
    with pytest.raises(BestiaryError, match="No space left on device"):
        Bestiary(saves).add(StatBlock("Ogre", "4d6"))
    assert path.read_bytes() == before
    assert [p.name for p in saves.iterdir() if p.name.endswith(".tmp")] == []


def test_searches_are_tinydb_queries_by_system_tag_and_name(saves):
    empty(saves)
    Bestiary(saves).add_many(
        [
            StatBlock("Gospog", "torg-2d10", tags=("Core Earth",)),
            StatBlock("Gospog Sergeant", "torg-2d10", tags=("core earth", "boss")),
            StatBlock("Goblin", "1d6x4", tags=("Fen",)),
        ]
    )
    assert names(saves, search="GOS") == ["Gospog", "Gospog Sergeant"]
    assert names(saves, tag="CORE EARTH") == ["Gospog", "Gospog Sergeant"]
    assert names(saves, system="1d6x4") == ["Goblin"]
    assert names(saves, system="torg-2d10", tag="boss", search="serg") == ["Gospog Sergeant"]
    assert names(saves, search="zzz") == []
