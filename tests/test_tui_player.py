"""The player view (``gmdesk view SAVE``) at 80×24: it follows the GM's writer live,
shows only what players may see, and never writes anything or takes the lock."""

from __future__ import annotations

import random
import re
from pathlib import Path

from helpers import files_of, run, screen_text, until

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.tui.screens.player import PlayerApp, PlayerRollDetails, PlayerScreen, build_picture

SIZE = (80, 24)
CLOCK = "21:00:00"


def make_docks(saves: Path) -> Path:
    path = SessionStore(saves).create("Night at the docks", "4d2")
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Kara", "side": "PC", "vitality": 5}})  # c1
        s.apply({"type": "character.add", "character": {"name": "Bruno", "side": "NPC", "vitality": 7}})  # c2
        s.apply({"type": "character.add", "character": {"name": "Lurker", "side": "NPC"}})  # c3, not yet in play
        s.apply({"type": "character.add", "character": {"name": "Old Sal", "side": "PC"}})  # c4
        s.apply(
            {
                "type": "initiative.set",
                "entries": [{"id": "c1", "value": 12}, {"id": "c2", "value": 8}, {"id": "c4", "value": 3}],
            }
        )
        s.apply({"type": "round.new"})
        s.apply({"type": "condition.add", "id": "c2", "name": "Stymied", "rounds": 2})
        s.apply({"type": "note", "text": "GM only: the Lurker is Bruno's brother"})
        s.roll("4d2", {}, actor="c1", target="c2", combat=True, rng=random.Random(3))
    return path


async def shown(pilot) -> PlayerScreen:
    app = pilot.app
    await until(pilot, lambda: app.pictures_shown > 0)
    await pilot.pause()  # the new picture is laid out and painted before anyone reads it
    return next(s for s in app.screen_stack if isinstance(s, PlayerScreen))


async def test_shows_initiative_public_character_state_and_rolls(tmp_path):
    path = make_docks(tmp_path)
    app = PlayerApp(path, clock=lambda: CLOCK)
    async with run(app, size=SIZE) as pilot:
        await shown(pilot)
        text = screen_text(app)
    lines = text.splitlines()
    assert "PLAYER VIEW" in lines[0] and "Night at the docks" in lines[0] and "Round 1" in lines[0]
    assert "▶ Kara" in lines[0]
    assert any("▶" in line and "12 Kara" in line for line in lines)  # whose turn, not by colour
    assert any("8 Bruno" in line and "STY" in line for line in lines)
    assert "Kara (PC)  Vitality 5/5" in text
    assert "Bruno (NPC)" in text and "Vitality 7" not in text  # NPC numbers stay behind the screen
    assert "conditions: Stymied (2 rd)" in text
    assert "Lurker" not in text  # not in the encounter yet: the ambush stays hidden
    assert "Old Sal (PC)" in text  # player characters always
    assert "GM only" not in text  # notes are the GM's
    assert "#9 R1 Kara → Bruno: 4d2" in text
    assert f"following Night at the docks.gmdesk live · read-only · updated {CLOCK}" in text


async def test_follows_a_writers_new_roll_within_a_second_and_never_writes(tmp_path):
    path = make_docks(tmp_path)
    before = files_of(tmp_path)
    app = PlayerApp(path, clock=lambda: CLOCK)
    async with run(app, size=SIZE) as pilot:
        await shown(pilot)
        looks = app.looks
        await until(pilot, lambda: app.looks >= looks + 2)  # a few looks at the save with nothing new
        assert files_of(tmp_path) == before  # the view wrote nothing, took no lock
        writer = Session.open(path)  # the GM's gmdesk: the view holds no lock, so this works
        try:
            writer.apply({"type": "turn.next"})
            writer.roll("4d2", {}, actor="c2", target="c1", combat=True, rng=random.Random(11))
            looks = app.looks
            await until(pilot, lambda: "#11 R1 Bruno → Kara" in screen_text(app))
            assert app.looks <= looks + 3  # by the next look or so (every 0.4 s): within a second
            assert "▶ Bruno" in screen_text(app).splitlines()[0]
            looks = app.looks
            writer.undo()  # the GM takes it back: the view drops it too
            await until(pilot, lambda: "#11 R1 Bruno" not in screen_text(app))
            assert app.looks <= looks + 3
        finally:
            writer.close()
        # the GM's gmdesk closed (its log compacted into the save) and opens again
        with Session.open(path) as again:
            again.roll("4d2", {}, actor="c1", target="c2", rng=random.Random(12))
            seq = again.events[-1].seq
        looks = app.looks
        await until(pilot, lambda: f"#{seq} R1 Kara → Bruno" in screen_text(app))
        assert app.looks <= looks + 3
        after_writer = files_of(tmp_path)
        looks = app.looks
        await until(pilot, lambda: app.looks >= looks + 2)  # more looks with nothing new
        assert files_of(tmp_path) == after_writer
        await pilot.press("q")
    assert files_of(tmp_path) == after_writer


async def test_the_1d6x4_target_number_never_reaches_the_players(tmp_path):
    path = SessionStore(tmp_path).create("Slingshots", "1d6x4")
    with Session.open(path) as s:
        s.apply({"type": "character.add", "character": {"name": "Pip", "side": "PC", "vitality": 4}})
        s.roll("1d6x4", {"bonus": 3, "target": 23, "test": "Precision"}, actor="c1", rng=FixedDice([6, 6, 5, 4]))
    app = PlayerApp(path, clock=lambda: CLOCK, poll_interval=0.1)
    async with run(app, size=SIZE) as pilot:
        await shown(pilot)
        text = screen_text(app)
        assert "Pip" in text and "1d6x4" in text
        assert "23" not in text and "target" not in text.lower()
        await pilot.press("enter")  # the full breakdown of the roll
        await until(pilot, lambda: isinstance(app.screen, PlayerRollDetails))
        details = screen_text(app)
        assert "Total" in details
        assert "23" not in details and "target" not in details.lower()
        await pilot.press("escape")
        writer = Session.open(path)
        try:
            writer.roll("1d6x4", {"bonus": 1, "target": 19}, actor="c1", rng=FixedDice([1, 2, 1, 2]))
        finally:
            writer.close()
        await until(pilot, lambda: "#3" in screen_text(app), timeout=1.0)
        assert "19" not in screen_text(app)


async def test_status_markers_are_words(tmp_path):
    path = SessionStore(tmp_path).create("Grim", "1d6x4")
    with Session.open(path) as s:
        for name in ("Ann", "Ben", "Cy"):
            s.apply({"type": "character.add", "character": {"name": name, "side": "PC", "vitality": 3}})
        s.apply({"type": "character.edit", "id": "c2", "fields": {"vitality_current": -5}})
        s.apply({"type": "character.edit", "id": "c3", "fields": {"dead": True}})
        s.apply(
            {
                "type": "initiative.set",
                "entries": [{"id": "c1", "value": 5}, {"id": "c2", "value": 4}, {"id": "c3", "value": 2}],
            }
        )
    with Session.open(path, readonly=True) as s:
        picture = build_picture(s.state)
    party = picture.party.plain.splitlines()
    assert "Ben (PC)  UNC  Vitality −5/3" in party
    assert "Cy (PC)  DEAD  Vitality 3/3" in party
    init = picture.initiative.plain.splitlines()
    assert init == ["    5 Ann", "    4 Ben  UNC", "    2 Cy  DEAD"]
    assert "initiative set, not started" in picture.title.plain


async def test_an_unreadable_save_is_reported_and_retried(tmp_path):
    path = tmp_path / "broken.gmdesk"
    path.write_text("{not json", encoding="utf-8")
    app = PlayerApp(path, clock=lambda: CLOCK, poll_interval=0.1)
    async with run(app, size=SIZE) as pilot:
        await until(pilot, lambda: "cannot read broken.gmdesk" in screen_text(app))
        assert "retrying" in screen_text(app)
        assert isinstance(app.screen, PlayerScreen)
    assert path.read_text(encoding="utf-8") == "{not json"


def test_player_view_snapshot(snap_compare, tmp_path):
    app = PlayerApp(make_docks(tmp_path), clock=lambda: CLOCK)

    async def ready(pilot) -> None:
        await shown(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


# ---------------------------------------------------------------------------
# the narrow layout (phones through `gmdesk serve`)
# ---------------------------------------------------------------------------


def _joined(text: str) -> str:
    """The screen's words with box edges and wrapping taken out."""
    return " ".join(text.replace("│", " ").split())


async def test_narrow_layout_is_readable_at_40_columns(tmp_path):
    from gmdesk.tui.widgets.rolllog import entry_line

    path = make_docks(tmp_path)
    app = PlayerApp(path, clock=lambda: CLOCK)
    async with run(app, size=(40, 30)) as pilot:
        screen = await shown(pilot)
        await pilot.pause()
        text = screen_text(app)
        assert screen.has_class("-narrow")
    lines = text.splitlines()
    assert "too small" not in text
    assert "PLAYER VIEW" in lines[0] and "Night at the docks" in lines[0]
    assert "▶ Kara" in " ".join(lines[:2])  # whose turn, in the (wrapped) title
    top = next(i for i, line in enumerate(lines) if "Initiative" in line)
    order = lines[top + 1 : next(i for i in range(top, len(lines)) if lines[i].startswith("╰"))]
    assert [re.sub(r"\s+", " ", ln.strip("│ ")) for ln in order] == ["▶ 12 Kara", "8 Bruno STY", "3 Old Sal"]
    assert "Kara (PC) Vitality 5/5" in _joined(text)  # each PC's state
    assert "Old Sal (PC)" in text
    with Session.open(path, readonly=True) as s:
        names = {cid: c.name for cid, c in s.state.characters.items()}
        public = entry_line(s.state.rolls[-1], names, hide_secrets=True)
    assert "Last rolls" in text
    assert public in _joined(text)  # the last roll whole, wrapped, not cut at the edge
    assert "GM only" not in text and "Lurker" not in text and "Vitality 7" not in text


async def test_the_layout_follows_the_width(tmp_path):
    path = make_docks(tmp_path)
    app = PlayerApp(path, clock=lambda: CLOCK)
    async with run(app, size=SIZE) as pilot:
        screen = await shown(pilot)
        assert screen.has_class("-wide") and "Last rolls" not in screen_text(app)
        await pilot.resize_terminal(44, 24)
        await until(pilot, lambda: screen.has_class("-narrow") and "Last rolls" in screen_text(app))
        await pilot.resize_terminal(39, 24)  # below 40 columns: the notice, as everywhere
        await until(pilot, lambda: "Terminal too small" in screen_text(app))
        assert "40×12" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: screen.has_class("-wide") and "Rolls" in screen_text(app))


async def test_an_idle_table_costs_the_ui_nothing(tmp_path, monkeypatch):
    """While nothing changes the follower keeps looking, but the UI hears nothing:
    no message, no repaint (ten served viewers stay under 2 % of a core)."""
    path = make_docks(tmp_path)
    app = PlayerApp(path, clock=lambda: CLOCK, poll_interval=0.02)
    applied = []  # what the follower hands to the UI thread
    original = app.call_from_thread
    monkeypatch.setattr(app, "call_from_thread", lambda *a, **kw: (applied.append(a), original(*a, **kw))[1])
    async with run(app, size=SIZE) as pilot:
        await shown(pilot)
        looks = app.looks
        await until(pilot, lambda: app.looks >= looks + 10)
        assert len(applied) == 1 and app.pictures_shown == 1
        with Session.open(path) as writer:
            writer.roll("4d2", {}, actor="c1", rng=random.Random(1))
        await until(pilot, lambda: app.pictures_shown == 2)
        assert len(applied) == 2
