"""A group's name in the initiative pane at 80×24 (Pilot): the name takes the room its
rows need before the status column widens: "▸ Bandits ×2" reads whole, "▸ Bandit ×2"
too beside a character whose status is long ("HID PIN UNC", which still reads as its
first word and "+N"); the count and the marks are never cut."""

from __future__ import annotations

from helpers import SMALL, desk, make_save, screen_text, select_entry, settle

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
        assert "+1" in kara, kara  # the condition counted once (not its four words), none cut


async def test_long_group_and_character_names_read_whole_on_two_lines(tmp_path):
    """Two groups whose names start alike, "Goblin archers ×3" and "Goblin spearmen
    ×2", and a character longer than the column: each reads whole on its row's two
    lines (the count with its word), never "▸ Goblin… ×3" beside "▸ Goblin… ×2"; an
    opened group's members too."""
    names = [f"Goblin archers {i}" for i in (1, 2, 3)] + [f"Goblin spearmen {i}" for i in (1, 2)]
    path, ids = make_save(
        tmp_path, "4d6", [{"name": "Kestrel Windrider"}] + [{"name": n, "side": "NPC", "vitality": 5} for n in names]
    )
    with Session.open(path) as s:
        s.apply({"type": "group.set", "label": "Goblin archers", "ids": [ids[n] for n in names[:3]]})
        s.apply({"type": "group.set", "label": "Goblin spearmen", "ids": [ids[n] for n in names[3:]]})
        s.roll_initiative(
            [ids["Kestrel Windrider"], ids[names[0]], ids[names[3]]],
            values={ids["Kestrel Windrider"]: 12, ids[names[0]]: 9, ids[names[3]]: 7},
        )
    async with desk(path, size=SMALL) as (app, pilot, screen):
        await settle(pilot)
        rows = pane(app)
        text = "\n".join(rows)
        assert "…" not in text, text

        def name_at(i: int) -> str:  # the name column of row i and the line under it
            return " ".join((rows[i][6:19] + " " + rows[i + 1][6:19]).split())

        at = {name_at(i): i for i, r in enumerate(rows) if "NPC" in r or " PC " in r}
        assert "▸ Goblin archers ×3" in at and "▸ Goblin spearmen ×2" in at, at
        assert "Kestrel Windrider" in at, at
        assert "3/3 up" in rows[at["▸ Goblin archers ×3"]]
        # opened, the group lists its members, each whole
        await select_entry(pilot, ids[names[0]])
        rows = pane(app)
        members = {name_at(i) for i, r in enumerate(rows) if "NPC" in r}
        assert {"Goblin archers 1", "Goblin archers 2"} <= members, "\n".join(rows)
        assert "Status" in rows[3]  # the header whole beside the list's scrollbar
        await select_entry(pilot, ids[names[2]])  # the list scrolls to the last member
        rows = pane(app)
        assert "Goblin archers 3" in {name_at(i) for i, r in enumerate(rows) if "NPC" in r}, "\n".join(rows)
