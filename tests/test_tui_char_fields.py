"""The character pane's section for the session's dice system, at 80×24 and keys
only: the fields each system declares are listed, a GM types the numbers in place,
a bad value names the field and saves nothing, a removal takes what picks it along
(one undo brings both back)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import SMALL, burst, main_screen, make_app, make_save, notes, press, run, saved, screen_text, settle

from gmdesk.core.systems import get_spec, system_ids
from gmdesk.tui.widgets import charfields

# ----------------------------------------------------------------------------- keys


def rows_of(pane: Any) -> list[tuple[str, Any]]:
    return [(r.kind, r.key) for r in pane.row_kinds]


def row_text(pane: Any) -> list[str]:
    """Every row of the pane's list as "title | value" (the rows out of view too)."""
    table = pane.table
    out = []
    for i in range(table.row_count):
        what, value = table.get_row_at(i)
        title = " ".join(str(getattr(what, "plain", what)).split())  # a title on two lines read as one
        out.append(f"{title} | {getattr(value, 'plain', value)}")
    return out


async def to_row(pilot: Any, pane: Any, kind: str, key: Any) -> None:
    """Walk the pane's cursor to a row with the arrow keys (the pane has focus)."""
    target = rows_of(pane).index((kind, key))
    for _ in range(len(pane.row_kinds) + 1):
        here = pane.table.cursor_row
        if here == target:
            return
        await press(pilot, "down" if here < target else "up")
    raise AssertionError(f"the cursor never reached {(kind, key)}")


async def add_entry(pilot: Any, pane: Any, stats: str, text: str) -> None:
    """On the stats block's "+ add" row, Enter, type ``Name value`` and Enter."""
    await to_row(pilot, pane, charfields.ADD, (charfields.ADD_STATS, stats))
    await press(pilot, "enter")
    await burst(pilot, text)
    await press(pilot, "enter")


async def set_field(pilot: Any, pane: Any, field: str, text: str) -> None:
    """Enter on the field's row, type over what it holds, Enter."""
    await to_row(pilot, pane, charfields.FIELD, field)
    await press(pilot, "enter")
    await burst(pilot, text)
    await press(pilot, "enter")


def fields_of(path: Path, cid: str) -> dict:
    return dict(saved(path).characters[cid].fields)


def stats_field(system: str) -> str:
    return next(f.name for f in get_spec(system).character_fields if f.type == "stats")


def stat_field(system: str, feeds: str) -> str:
    return next(f.name for f in get_spec(system).character_fields if f.feeds == feeds)


# ----------------------------------------------------------------------------- tests


async def test_the_pane_lists_the_fields_its_system_declares(tmp_path: Path) -> None:
    """Every installed system: a row per declared field, under its label; a stats
    field's block with its "+ add" row; a system that declares none shows no section."""
    for system in system_ids():
        path, _ids = make_save(tmp_path / system, system, [{"name": "Kara"}])
        app = make_app(path)
        async with run(app, size=SMALL) as pilot:
            screen = await main_screen(pilot)
            pane = screen.character
            kinds = rows_of(pane)
            text = "\n".join(row_text(pane))
            declared = get_spec(system).character_fields
            for f in declared:
                if f.type == "stats":
                    assert (charfields.ADD, (charfields.ADD_STATS, f.name)) in kinds, (system, f.name)
                    assert f"── {f.label}" in text, (system, f.label)
                else:
                    assert (charfields.FIELD, f.name) in kinds, (system, f.name)
                    assert f.label in text, (system, f.label)
            assert (f"── {charfields.SCALARS_TITLE}" in text) == any(f.type != "stats" for f in declared), system


async def test_stats_typed_in_the_pane_are_saved_as_one_undoable_change(tmp_path: Path) -> None:
    system = "torg-2d10"
    stats, attack = stats_field(system), stat_field(system, "skill")
    spec = get_spec(system)
    path, ids = make_save(tmp_path, system, [{"name": "Quinn"}, {"name": "Trooper", "side": "NPC"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        await press(pilot, "tab")  # initiative → the character pane
        assert pane.table.has_focus and pane.border_title == "Quinn"
        await add_entry(pilot, pane, stats, "Fire Combat 13")
        await add_entry(pilot, pane, stats, "Dodge 11")
        await set_field(pilot, pane, attack, "fire combat")  # any case: the entry's own name is kept
        assert fields_of(path, ids["Quinn"]) == {stats: {"Fire Combat": 13, "Dodge": 11}, attack: "Fire Combat"}
        # "Attack skill: Fire Combat" is longer than the pane's titles at 80×24: the field
        # is named without the word of its table, on one line ("Attack: Fire Combat")
        label = charfields.short_label(spec, attack)
        assert label is not None and label != spec.field(attack).label  # type: ignore[union-attr]
        assert f"{label}: Fire Combat | 13" in row_text(pane)
        assert f"{label}: Fire Combat" in screen_text(app)

        # a bad value: the field's label says what is wrong, nothing is saved
        before = fields_of(path, ids["Quinn"])
        await to_row(pilot, pane, charfields.ENTRY, (stats, "Fire Combat"))
        await press(pilot, "enter")
        await burst(pilot, "Fire Combat lots")
        await press(pilot, "enter")
        message = str(pane.query_one("#character-message").render())
        assert message.startswith(f"✗ {spec.field(stats).label}: Fire Combat: "), message  # type: ignore[union-attr]
        assert "lots" in message
        assert fields_of(path, ids["Quinn"]) == before
        await press(pilot, "escape")
        await set_field(pilot, pane, attack, "Stealth")
        message = str(pane.query_one("#character-message").render())
        full = spec.field(attack).label  # type: ignore[union-attr]
        assert message.startswith(f"✗ {full}: ") and "Stealth" in message, message
        assert fields_of(path, ids["Quinn"]) == before
        await press(pilot, "escape")

        # a change in place, then the named value goes, and the field picking it with it
        await to_row(pilot, pane, charfields.ENTRY, (stats, "Fire Combat"))
        await press(pilot, "enter")
        await burst(pilot, "Fire Combat 14")  # the editor's text was selected: typed over
        await press(pilot, "enter")
        assert fields_of(path, ids["Quinn"])[stats] == {"Fire Combat": 14, "Dodge": 11}
        await to_row(pilot, pane, charfields.ENTRY, (stats, "Fire Combat"))
        await press(pilot, "delete")
        assert fields_of(path, ids["Quinn"]) == {stats: {"Dodge": 11}}
        assert "Fire Combat removed" in notes(app)[-1] and label in notes(app)[-1]
        await press(pilot, "shift+tab", "u")  # one undo brings both back
        await settle(pilot)
        assert fields_of(path, ids["Quinn"]) == {stats: {"Fire Combat": 14, "Dodge": 11}, attack: "Fire Combat"}

        # the other character: its own numbers
        await press(pilot, "down", "tab")
        assert pane.border_title == "Trooper"
        await add_entry(pilot, pane, stats, "Dodge 9")
        assert fields_of(path, ids["Trooper"]) == {stats: {"Dodge": 9}}
        assert fields_of(path, ids["Quinn"])[stats] == {"Fire Combat": 14, "Dodge": 11}


async def test_a_long_value_reads_whole_under_its_label_at_80_columns(tmp_path: Path) -> None:
    system = "1d6x4"
    field = stat_field(system, "test")
    label = get_spec(system).field(field).label  # type: ignore[union-attr]
    path, ids = make_save(tmp_path, system, [{"name": "Quinn"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        await press(pilot, "tab")
        await set_field(pilot, pane, field, "Precision, Slingshot")
        assert fields_of(path, ids["Quinn"]) == {field: "Precision, Slingshot"}
        lines = screen_text(app).splitlines()
        at = next(i for i, line in enumerate(lines) if f"{label}:" in line)
        assert "Precision, Slingshot" in lines[at + 1]  # on the next line, not cut
