"""Initiative groups in the player view (issue 23, point 1): one row, "Gospog ×3"
(the members the players see), how many are up when some are down, whose turn
names the group; each member listed with its own status and wounds, as any
character the players see; a member hidden by the GM is in none of it. Pilot at
80×24 for the terminal view (the browser and SSH views show the same picture)."""

from __future__ import annotations

import random
from pathlib import Path

from helpers import run, screen_text
from test_tui_player import CLOCK, SIZE, shown

from gmdesk.core.session import Session, SessionStore
from gmdesk.tui.screens.player import PlayerApp, build_picture


def make_fight(saves: Path) -> Path:
    path = SessionStore(saves).create("Ambush", "4d2")
    with Session.open(path) as s:
        kara = s.apply({"type": "character.add", "character": {"name": "Kara", "side": "PC", "vitality": 5}})
        ids = []
        for n in (1, 2, 3, 4):
            c = {"name": f"Gospog {n}", "side": "NPC", "vitality": 7, **({"hidden": True} if n == 4 else {})}
            ids.append(s.apply({"type": "character.add", "character": c}).data["id"])
        s.apply({"type": "group.set", "label": "Gospog", "ids": ids})
        s.roll_initiative([kara.data["id"], ids[0]], values={kara.data["id"]: 3, ids[0]: 9})
        s.apply({"type": "turn.next"})
        s.apply({"type": "character.status", "id": ids[1], "status": "unconscious"})
        s.roll("4d2", {}, actor=kara.data["id"], target=ids[2], combat=True, rng=random.Random(1))
    return path


async def test_the_player_view_shows_a_group_as_one_row_and_its_members_with_the_characters(tmp_path):
    path = make_fight(tmp_path)
    with Session.open(path, readonly=True) as s:
        picture = build_picture(s.state)
        hurt = s.state.character("Gospog 3").wounds
    rows = picture.initiative.plain.splitlines()
    assert rows == ["▶   9 Gospog ×3  2/3 up", "    3 Kara"], rows  # Gospog 4 is hidden: not counted
    assert "▶ Gospog ×3" in picture.title.plain
    app = PlayerApp(path, clock=lambda: CLOCK)
    async with run(app, size=SIZE) as pilot:
        await shown(pilot)
        text = screen_text(app)
    assert "9 Gospog ×3" in text and "2/3 up" in text
    assert "Gospog 2 (NPC, Gospog)  UNC" in text  # each member with its own status
    assert [w.text for w in hurt] == ["Stun"] and "wounds: Stun" in text  # a member's own wounds
    assert "Gospog 4" not in text and "×4" not in text  # hidden by the GM
