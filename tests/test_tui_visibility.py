"""What players see of each combatant (issue 23, point 5) on screen: the desk's
character pane says the selected character's level and ``v`` moves it on (name →
wounds → all), undoable, from the palette too; the player view (Pilot, 80×24; the
browser and SSH views run this same view, and one served browser is checked as
text) shows each character as its level allows."""

from __future__ import annotations

import random

from helpers import (
    SMALL,
    burst,
    main_screen,
    make_app,
    notes,
    palette,
    press,
    run,
    saved,
    screen_text,
    select_entry,
    settle,
    until,
)
from test_tui_player import CLOCK, shown

from gmdesk.core.session import Session, SessionStore
from gmdesk.tui.screens.player import PlayerApp, build_picture
from gmdesk.tui.widgets.character import CharacterPane


def levels(path) -> dict[str, str]:
    return {c.name: c.seen for c in saved(path).characters.values()}


def fight(tmp_path, levels: dict[str, str] | None = None):
    """Kara (PC) with a counter and Vitality; Bruno and Gospog (NPCs), each struck
    by Kara (Stun) and Stymied; a group of two Shades, one of them down."""
    path = SessionStore(tmp_path / "saves").create("Night", "4d2")
    with Session.open(path) as s:
        ids = {}
        for name, side in (("Kara", "PC"), ("Bruno", "NPC"), ("Gospog", "NPC"), ("Shade 1", "NPC"), ("Shade 2", "NPC")):
            ids[name] = s.apply(
                {"type": "character.add", "character": {"name": name, "side": side, "vitality": 9}}
            ).data["id"]
        s.apply({"type": "group.set", "label": "Shades", "ids": [ids["Shade 1"], ids["Shade 2"]]})
        s.roll_initiative(
            [ids["Kara"], ids["Bruno"], ids["Gospog"], ids["Shade 1"]],
            values={ids["Kara"]: 12, ids["Bruno"]: 9, ids["Gospog"]: 7, ids["Shade 1"]: 4},
        )
        s.apply({"type": "counter.add", "id": ids["Kara"], "label": "Luck", "max": 3, "reset": "night"})
        for who in ("Bruno", "Gospog"):
            s.apply({"type": "condition.add", "id": ids[who], "name": "Stymied"})
            s.roll("4d2", {}, actor=ids["Kara"], target=ids[who], combat=True, rng=random.Random(1))
        s.apply({"type": "character.status", "id": ids["Shade 2"], "status": "unconscious"})
        for name, level in (levels or {}).items():
            s.apply({"type": "visibility.set", "id": ids[name], "level": level})
    return path, ids


def lines_of(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if name in line]


# ------------------------------------------------------------------ the desk


async def test_the_pane_says_the_level_and_v_moves_it_on_undoably(tmp_path):
    path, ids = fight(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await select_entry(pilot, ids["Bruno"])
        pane = screen.query_one(CharacterPane)
        assert "players: wounds" in screen_text(app)
        await press(pilot, "v")
        await until(pilot, lambda: levels(path)["Bruno"] == "all")
        await until(pilot, lambda: "players: all" in screen_text(app))
        assert any(n.startswith("The players see all of Bruno — ") for n in notes(app))
        await press(pilot, "v")
        await until(pilot, lambda: levels(path)["Bruno"] == "name")
        await press(pilot, "u")  # undo: back to all
        await until(pilot, lambda: levels(path)["Bruno"] == "all")
        await until(pilot, lambda: "players: all" in screen_text(app))
        assert pane.region.width <= 40  # the pane's half of 80 columns holds the line
        await select_entry(pilot, ids["Kara"])
        await palette(pilot, "What the players see")
        await until(pilot, lambda: levels(path)["Kara"] == "name")
        await until(pilot, lambda: "players: name" in screen_text(app))


async def test_v_typed_ahead_acts_as_if_typed_slowly(tmp_path):
    path, ids = fight(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await select_entry(pilot, ids["Gospog"])
        await burst(pilot, "vv")  # wounds → all → name, in one read
        await until(pilot, lambda: levels(path)["Gospog"] == "name")
        await settle(pilot)
        await until(pilot, lambda: "players: name" in screen_text(app))
        with Session.open(path, readonly=True) as s:
            assert [e.type for e in s.events[-2:]] == ["visibility.set", "visibility.set"]


def test_the_desk_key_has_an_id_and_no_other_desk_key_is_v():
    from gmdesk.tui.app import binding_classes

    keys = [
        (b.id, key)
        for cls in binding_classes()
        if cls.__name__ in ("MainScreen", "CharacterPane", "InitiativePane", "RollLog")
        for b in vars(cls)["BINDINGS"]
        for key in b.key.split(",")
    ]
    assert [i for i, key in keys if key == "v"] == ["main.visibility"]


# ------------------------------------------------------------------ the players' view


async def test_the_player_view_shows_each_character_as_its_level_allows(tmp_path):
    path, _ = fight(tmp_path, {"Bruno": "name", "Shade 2": "name"})
    with Session.open(path, readonly=True) as s:
        picture = build_picture(s.state)
    party = picture.party.plain
    order = picture.initiative.plain.splitlines()
    app = PlayerApp(path, clock=lambda: CLOCK)
    async with run(app, size=SMALL) as pilot:
        await shown(pilot)
        text = screen_text(app)
    log = [line for line in text.splitlines() if "Kara → " in line]
    # Bruno, by name only: no condition, wound or number; the roll at him without its effect
    assert "Bruno (NPC)\n" in party and "Bruno (NPC)\nGospog (NPC)" in party
    assert order[1].rstrip() == "    9 Bruno"  # no STY
    assert any("Kara → Bruno: 4d2" in line and "Stun" not in line for line in log)
    # Gospog, name and wounds (an NPC's default): condition and wound, no Vitality
    gospog = party.split("Gospog (NPC)")[1].split("Shade")[0]
    assert gospog == "\n    conditions: Stymied\n    wounds: Stun\n"
    assert order[2].rstrip() == "    7 Gospog  STY"
    assert any("Kara → Gospog: 4d2" in line and "→ Stun" in line for line in log)
    # Kara, all (a PC's default): Vitality and counters
    assert party.startswith("Kara (PC)  Vitality 9/9\n    counters: Luck 3/3 a night\n")
    assert "Kara (PC)  Vitality 9/9" in text and "counters: Luck 3/3" in text
    # the group: Shade 2 (down) is seen by name only: not counted, nor its status shown
    assert order[3].rstrip() == "    4 Shades ×2"
    assert party.endswith("Shade 1 (NPC, Shades)\nShade 2 (NPC, Shades)")
    assert "4 Shades ×2" in text and "UNC" not in text


async def test_the_player_view_follows_a_level_changed_at_the_desk(tmp_path):
    path, ids = fight(tmp_path)
    app = PlayerApp(path, poll_interval=0.05, clock=lambda: CLOCK)
    async with run(app, size=SMALL) as pilot:
        await shown(pilot)
        assert "counters: Luck 3/3" in screen_text(app) and "7 Gospog  STY" in screen_text(app)
        assert "4 Shades ×2  1/2 up" in screen_text(app)
        with Session.open(path) as writer:
            writer.apply({"type": "visibility.set", "id": ids["Kara"], "level": "wounds"})
            await until(pilot, lambda: "counters" not in screen_text(app))
            assert "Vitality" not in screen_text(app)
            writer.apply({"type": "visibility.set", "id": ids["Gospog"], "level": "name"})
            await until(pilot, lambda: "7 Gospog  STY" not in screen_text(app))
            assert "9 Bruno  STY" in screen_text(app)
            writer.apply({"type": "visibility.set", "id": ids["Shade 2"], "level": "name"})
            await until(pilot, lambda: "1/2 up" not in screen_text(app))
            writer.undo()
            await until(pilot, lambda: "1/2 up" in screen_text(app))
            writer.apply({"type": "character.hide", "id": ids["Kara"]})  # hidden: above every level
            await until(pilot, lambda: "Kara" not in screen_text(app))


async def test_a_served_browser_shows_a_name_only_npc_by_its_name(tmp_path):
    """``gmdesk serve`` (the real command, a websocket standing in for the browser)
    sends the players' picture: a foe they see by name only, with no wound."""
    import os
    import signal

    import aiohttp
    from test_serve import Served, alive, example, open_viewer

    path = example(tmp_path, "Festival Infiltration")
    with Session.open(path) as s:
        gm = " ".join(c.name + str([w.text for w in c.wounds]) for c in s.state.characters.values())
        s.apply({"type": "visibility.set", "id": s.state.character("Castle Guard").id, "level": "name"})
    assert "Castle Guard['Wound', 'Severe Wound']" in gm
    served = Served(tmp_path, "Festival Infiltration")
    try:
        async with aiohttp.ClientSession() as http:
            viewer = await open_viewer(http, served.ws_url, width=120, height=40)
            await viewer.read_until(lambda t: "following Festival Infiltration.gmdesk live" in t)
            await viewer.read_until(lambda t: "Castle Guard (NPC)" in t)
    finally:
        pids = served.viewers()
        served.stop()
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert "Severe Wound" not in viewer.text
    assert "Renna (PC)" in viewer.text and "Wound" in viewer.text  # Renna's own wound: a PC's all


def test_the_players_picture_reads_no_record_of_a_long_log_to_hide_an_effect(tmp_path, monkeypatch):
    """Opened from its checkpoint, a session reads a roll's record on first use; the
    players' picture leaves a name-only target's effect out when a line is drawn, not
    by reading every record when the picture is built."""
    from gmdesk.core.session.model import LazyRecord

    monkeypatch.setattr(Session, "UNDO_KEPT", 2)
    path, ids = fight(tmp_path, {"Bruno": "name"})
    with Session.open(path) as s:
        for _ in range(5):
            s.roll("4d2", {}, actor=ids["Kara"], target=ids["Bruno"], combat=True, rng=random.Random(1))
    with Session.open(path, readonly=True) as s:
        assert s._ckpt_seq  # from the checkpoint
        lazy = [e for e in s.state.rolls if type(e.__dict__["record"]) is LazyRecord]
        assert len([e for e in lazy if e.target == ids["Bruno"]]) >= 3  # (the newest are read again at opening)
        picture = build_picture(s.state)
        assert all(type(e.__dict__["record"]) is LazyRecord for e in lazy)
        at_bruno = [e for e in picture.rolls if e.target == ids["Bruno"]]
        assert len(at_bruno) == 6 and all(not e.record.descriptors for e in at_bruno)
        assert all(e.record.descriptors for e in s.state.rolls if e.target == ids["Bruno"])  # the GM's


async def test_an_ssh_player_sees_name_only_foes_by_their_names(tmp_path, monkeypatch):
    """``gmdesk serve --ssh-port`` (the real command; asyncssh's client on loopback):
    the foes the players see by name only show no condition, wound or status."""
    import os
    import re
    import signal

    import pytest

    pytest.importorskip("asyncssh", reason="asyncssh is not installed: pip install -e '.[test]'")
    from helpers import wait_until
    from test_serve import Served, alive
    from test_serve_ssh import connect

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the host key: never the user's
    fight(tmp_path, {"Bruno": "name", "Gospog": "name", "Shade 2": "name"})
    served = Served(tmp_path / "saves", "Night", "--ssh-port", "0")
    try:
        found = wait_until(lambda: re.search(r"ssh -p (\d+) player@127\.0\.0\.1", served.output), timeout=30)
        player = await connect(int(found.group(1)), password=served.token)
        try:
            await player.read_until(lambda t: "following" in t and "Shade 2 (NPC" in t and "Kara → Gospog" in t)
        finally:
            player.conn.close()
    finally:
        pids = served.viewers()
        served.stop()
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert "Bruno (NPC)" in player.text and "counters: Luck 3/3" in player.text  # Kara: all, a PC's default
    for word in ("Stymied", "STY", "Stun", "UNC", "/2 up"):
        assert word not in player.text, word
