"""The GM's own keys: a keymap file remaps binding ids; a bad file is reported once
and the default keys keep working."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import GmdeskError
from test_tui_main import main_screen, make_app, make_save, press, saved
from tui.keymap import binding_ids, load_keymap

PCS = [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}]


async def test_a_keymap_file_moves_next_turn_to_space(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"main.next_turn" = "space"\n')
    path, _ = make_save(tmp_path, "4d2", PCS, initiative={"Kara": 12, "Bruno": 8}, start=True)
    app = make_app(path, keymap_file=keymap)
    async with app.run_test(size=(80, 24)) as pilot:
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
    async with app.run_test(size=(80, 24)) as pilot:
        await main_screen(pilot)
        assert any("main.next_trun" in n.message for n in app._notifications)
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
    assert {"main.roll", "main.attack", "main.next_turn", "main.undo", "main.redo", "app.quit",
            "app.help"} <= binding_ids()
