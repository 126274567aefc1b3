"""The key bar under a dialog names what Enter does there, in the words of the
dialog's own hint line (80×24, Pilot): "⏎ Add" under the new-character dialog
("Enter add"), "⏎ Group", "⏎ Roll" and "⏎ Attack" under the roll dialog — never a
bare "Accept"; where the focused field keeps Enter (a dropdown opens its list), the
key that does it from there, "^s Heal d6" (the hint: "Ctrl+S heal d6"). The binding ids stay: a keymap that moves
``dialog.submit`` moves the key and keeps the word."""

from __future__ import annotations

from pathlib import Path

from helpers import SMALL, dialog, main_screen, make_app, make_save, press, run, screen_text, settle, until

from gmdesk.tui.screens.confirm import FormDialog
from gmdesk.tui.screens.roll import RollDialog

LARGE = (160, 48)


def night(tmp_path: Path, system: str = "4d2") -> Path:
    path, _ = make_save(
        tmp_path,
        system,
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Kara": 12, "Bruno": 9},
        start=True,
    )
    return path


def key_bar(app: object) -> str:
    return screen_text(app).splitlines()[-1]


def enter_word(app: object) -> str:
    """What the key bar says Enter does (the bindings in force: the bar's words, also
    where the dialog fills a small screen and covers the bar)."""
    active = app.screen.active_bindings  # type: ignore[attr-defined]
    return active["enter"].binding.description


async def test_under_a_dialog_at_80x24_the_bar_says_what_enter_does(tmp_path: Path) -> None:
    app = make_app(night(tmp_path))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        for key, hint, word in (("c", "Enter add", "⏎ Add"), ("g", "Enter group", "⏎ Group")):
            await press(pilot, key)
            await dialog(pilot, FormDialog)
            await until(pilot, lambda hint=hint: hint in screen_text(app))
            await settle(pilot)
            bar = key_bar(app)
            assert word in bar and "Accept" not in bar, bar
            await press(pilot, "escape")
            await settle(pilot)


async def test_a_move_of_the_system_names_its_own_verb(tmp_path: Path) -> None:
    app = make_app(night(tmp_path, "1d6x4"))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "h")  # heal: "heal d6 (never above the default)"
        # on the Patient dropdown Enter opens the list: ctrl+s heals, the bar says so as the hint does
        await until(pilot, lambda: "Ctrl+S heal d6" in screen_text(app))
        await settle(pilot)
        bar = key_bar(app)
        assert "^s Heal d6" in bar and "⏎" not in bar and "Accept" not in bar, bar


async def test_the_roll_dialog_names_roll_and_attack(tmp_path: Path) -> None:
    app = make_app(night(tmp_path))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        for key, word in (("r", "Roll"), ("a", "Attack"), ("r", "Roll")):
            await press(pilot, key)
            await dialog(pilot, RollDialog)
            await settle(pilot)
            assert f"Enter {word.lower()}" in screen_text(app)
            assert enter_word(app) == word  # the bar's word, the bar under the dialog at 80×24
            await press(pilot, "escape")
            await settle(pilot)
        await pilot.resize_terminal(*LARGE)
        await press(pilot, "a")
        await dialog(pilot, RollDialog)
        await settle(pilot)
        await pilot.pause(0.1)
        bar = key_bar(app)
        assert "⏎ Attack" in bar and "Accept" not in bar, bar


async def test_a_keymap_moves_the_key_and_keeps_the_word(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"dialog.submit" = "ctrl+o"\n')
    path = night(tmp_path)
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "g")
        await dialog(pilot, FormDialog)
        await until(pilot, lambda: "Group" in key_bar(app))
        bar = key_bar(app)
        assert "^o Group" in bar and "⏎" not in bar, bar


async def test_a_list_of_choices_keeps_its_enter_and_the_bar_names_it(tmp_path: Path) -> None:
    """The log filter: Enter picks in the list (after the arrows typed before it, in
    order), and the bar says so as the hint does, "⏎ Choose" ("Enter choose")."""
    from gmdesk.tui.screens.confirm import ChoiceDialog

    app = make_app(night(tmp_path))
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "f")
        await dialog(pilot, ChoiceDialog)
        await until(pilot, lambda: "Enter choose" in screen_text(app) and "Choose" in key_bar(app))
        bar = key_bar(app)
        assert "⏎ Choose" in bar and "^s" not in bar and "Accept" not in bar, bar
        await press(pilot, "down", "enter")  # Kara's rolls: picked with Enter
        await until(pilot, lambda: not isinstance(app.screen, ChoiceDialog))


async def test_under_the_pickers_dialogs_the_bar_names_their_keys_not_the_pickers(tmp_path: Path) -> None:
    """Under the picker's new-session and example dialogs the bar said "⏎ Open  n New
    e Example…", keys that wait while the dialog is up (n types into its name): it
    names the dialog's own, "esc Cancel"."""
    from test_tui_picker import loaded_picker

    from gmdesk.core.session import SessionStore
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.newsession import ExampleDialog, NewSessionDialog

    store = SessionStore(tmp_path / "saves")
    store.create("Tuesday", "4d2")
    examples = SessionStore(tmp_path / "examples")
    examples.create("Example night", "4d2")
    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "examples")
    async with run(app, size=SMALL) as pilot:
        await loaded_picker(pilot)
        assert "n New" in key_bar(app)
        for key, kind in (("n", NewSessionDialog), ("e", ExampleDialog)):
            await pilot.press(key)
            await until(pilot, lambda kind=kind: isinstance(app.screen, kind))
            await until(pilot, lambda: "esc Cancel" in key_bar(app))
            bar = key_bar(app)
            assert "n New" not in bar and "Open" not in bar and "e Example" not in bar, bar
            await pilot.press("escape")
            await until(pilot, lambda: "n New" in key_bar(app))


async def test_a_new_sessions_name_typed_ahead_with_enter_is_created_whole(tmp_path: Path) -> None:
    """The name and Enter in one read (as SSH delivers them): Enter acts after every
    letter typed before it, the session is named "Sunday" (not created from part of
    it, nor left waiting for a second Enter)."""
    from test_tui_picker import loaded_picker
    from textual import events

    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.newsession import NewSessionDialog

    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "none")
    async with run(app, size=SMALL) as pilot:
        await loaded_picker(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewSessionDialog))
        for char in "Sunday":
            app.post_message(events.Key(char, char))
        app.post_message(events.Key("enter", "\r"))
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        await until(pilot, lambda: "Sunday · " in screen_text(app))
