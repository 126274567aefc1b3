"""A group's name in the initiative pane at 80×24 (Pilot): the name takes the room its
rows need before the status column widens: "▸ Bandits ×2" reads whole, "▸ Bandit ×2"
too beside a character whose status is long ("HID PIN UNC", which still reads as its
first word and "+N"); the count and the marks are never cut."""

from __future__ import annotations

from helpers import SMALL, desk, make_save, screen_text, settle

from gmdesk.core.session import Session


def banded_save(tmp_path, label: str, *, marked: bool):
    path, ids = make_save(
        tmp_path,
        "4d6",
        [
            {"name": "Kara"},
            {"name": f"{label} 1", "side": "NPC", "vitality": 5},
            {"name": f"{label} 2", "side": "NPC", "vitality": 5},
        ],
    )
    with Session.open(path) as s:
        s.apply({"type": "group.set", "label": label, "ids": [ids[f"{label} 1"], ids[f"{label} 2"]]})
        s.roll_initiative([ids["Kara"], ids[f"{label} 1"]], values={ids["Kara"]: 9, ids[f"{label} 1"]: 14})
        if marked:  # Kara: hidden, pinned, unconscious ("HID PIN UNC")
            s.apply({"type": "character.hide", "id": ids["Kara"]})
            s.apply({"type": "initiative.set", "entries": [{"id": ids["Kara"], "value": 9, "pin": True}]})
            s.apply({"type": "character.status", "id": ids["Kara"], "status": "unconscious"})
    return path, ids


def pane(app) -> list[str]:
    return [line[:40] for line in screen_text(app).splitlines()]


async def test_a_group_name_reads_whole_at_80x24(tmp_path):
    path, _ = banded_save(tmp_path, "Bandits", marked=False)
    async with desk(path, size=SMALL) as (app, pilot, _screen):
        await settle(pilot)
        rows = pane(app)
        assert any("▸ Bandits ×2" in r and "2/2 up" in r for r in rows), rows


async def test_a_long_status_elsewhere_does_not_squeeze_the_group_name(tmp_path):
    path, _ = banded_save(tmp_path, "Bandit", marked=True)
    async with desk(path, size=SMALL) as (app, pilot, _screen):
        await settle(pilot)
        rows = pane(app)
        assert any("▸ Bandit ×2" in r for r in rows), rows
        kara = next(r for r in rows if "Kara" in r)
        assert "HID +2" in kara, kara  # the status: its first word, and how many more


async def test_a_long_condition_name_gives_way_to_the_group_name(tmp_path):
    path, ids = banded_save(tmp_path, "Bandits", marked=False)
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Kara"], "name": "Hunted by the Mist", "rounds": None})
    async with desk(path, size=SMALL) as (app, pilot, _screen):
        await settle(pilot)
        rows = pane(app)
        assert any("▸ Bandits ×2" in r for r in rows), rows
        kara = next(r for r in rows if "Kara" in r)
        assert "+4" in kara, kara  # the condition's words counted, none of them cut
