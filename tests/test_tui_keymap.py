"""The GM's own keys: a keymap file remaps binding ids; a bad file is reported once
and the default keys keep working."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import dialog, main_screen, make_app, make_save, notifications, press, run, saved, screen_text, settle

from gmdesk.core.errors import GmdeskError
from gmdesk.tui.app import binding_classes
from gmdesk.tui.keymap import binding_ids, load_keymap
from gmdesk.tui.screens.confirm import ChoiceDialog
from gmdesk.tui.screens.roll import RollDialog

PCS = [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}]


async def test_a_keymap_file_moves_next_turn_to_space(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"main.next_turn" = "space"\n')
    path, _ = make_save(tmp_path, "4d2", PCS, initiative={"Kara": 12, "Bruno": 8}, start=True)
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=(80, 24)) as pilot:
        await main_screen(pilot)
        await press(pilot, "n")  # no longer next turn
        assert saved(path).encounter.turn == 0
        await press(pilot, "space")
        assert saved(path).encounter.turn == 1


async def test_a_bad_keymap_is_reported_and_the_defaults_stay(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"main.next_trun" = "space"\n')
    path, _ = make_save(tmp_path, "4d2", PCS, initiative={"Kara": 12, "Bruno": 8}, start=True)
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=(80, 24)) as pilot:
        await main_screen(pilot)
        assert any("main.next_trun" in n.message for n in notifications(app))
        await press(pilot, "n")
        assert saved(path).encounter.turn == 1


def test_keymap_file_errors_name_the_file(tmp_path: Path) -> None:
    f = tmp_path / "keymap.toml"
    assert load_keymap(f) == {}  # no file: the default keys
    f.write_text("not = [toml")
    with pytest.raises(GmdeskError, match="not a TOML keymap"):
        load_keymap(f)
    f.write_text('"main.roll" = 3\n')
    with pytest.raises(GmdeskError, match="string of keys"):
        load_keymap(f)
    assert {
        "main.roll",
        "main.attack",
        "main.next_turn",
        "main.undo",
        "main.redo",
        "app.quit",
        "app.help",
    } <= binding_ids(binding_classes())


# ---------------------------------------------------------- issue 7 point 23


async def test_a_key_bound_twice_is_reported_once_and_the_defaults_stay(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"main.roll" = "n"\n"main.undo" = "ctlr+z"\n"main.filter_log" = "F"\n')
    path, _ = make_save(tmp_path, "4d2", PCS, initiative={"Kara": 12, "Bruno": 8}, start=True)
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=(80, 24)) as pilot:
        await main_screen(pilot)
        said = [n.message for n in notifications(app)]
        assert len(said) == 1, said
        assert "'n' is bound twice (main.next_turn and main.roll)" in said[0]
        assert "main.undo: unknown modifier 'ctlr'" in said[0]
        await press(pilot, "n")  # still next turn, and no second report
        assert saved(path).encounter.turn == 1
        assert len([n for n in notifications(app) if n.severity == "error"]) == 1
        await press(pilot, "F")  # the valid entry of the same file applies
        await dialog(pilot, ChoiceDialog)
        await press(pilot, "escape")
        await main_screen(pilot)
        await press(pilot, "r")  # roll keeps its default key
        await dialog(pilot, RollDialog)


async def test_an_unknown_key_name_is_reported_and_the_default_stays(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"main.next_turn" = "spcae"\n')
    path, _ = make_save(tmp_path, "4d2", PCS, initiative={"Kara": 12, "Bruno": 8}, start=True)
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=(80, 24)) as pilot:
        await main_screen(pilot)
        said = [n.message for n in notifications(app)]
        assert len(said) == 1 and "unknown key 'spcae'" in said[0]
        await press(pilot, "n")
        assert saved(path).encounter.turn == 1


async def test_a_missing_keymap_named_by_the_environment_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nowhere" / "keys.toml"
    monkeypatch.setenv("GMDESK_KEYMAP", str(missing))
    path, _ = make_save(tmp_path, "4d2", PCS, initiative={"Kara": 12, "Bruno": 8}, start=True)
    app = make_app(path)
    async with run(app, size=(80, 24)) as pilot:
        await main_screen(pilot)
        said = [n.message for n in notifications(app)]
        assert len(said) == 1 and "$GMDESK_KEYMAP" in said[0] and str(missing) in said[0]
        await press(pilot, "n")
        assert saved(path).encounter.turn == 1


async def test_the_palette_shows_the_keys_actually_bound(tmp_path: Path) -> None:
    from textual.command import CommandPalette

    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"main.roll" = "z"\n"main.opposed" = "O"\n')
    path, _ = make_save(tmp_path, "4d2", PCS, initiative={"Kara": 12, "Bruno": 8}, start=True)
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=(80, 24)) as pilot:
        await main_screen(pilot)
        for title, key in (("Roll…", "(z)"), ("Opposed roll", "(O)"), ("Next turn", "(n)")):
            await press(pilot, "ctrl+p")
            palette = await dialog(pilot, CommandPalette)
            palette.query_one("Input").value = title
            for _ in range(200):
                await settle(pilot)
                if key in screen_text(app):
                    break
            assert key in screen_text(app), screen_text(app)
            await press(pilot, "escape")
        await press(pilot, "ctrl+p")
        palette = await dialog(pilot, CommandPalette)
        palette.query_one("Input").value = "Roll…"
        await settle(pilot)
        assert "(r)" not in screen_text(app)
