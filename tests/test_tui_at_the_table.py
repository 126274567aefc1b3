"""What a new GM meets at 80×24, keys only (Pilot): the key bar agrees with the hint
line and with what Enter really does; a ladder system's initiative dialog speaks in
its ladder's words; a field of the character pane reads on one line."""

from __future__ import annotations

from pathlib import Path

from helpers import (
    SMALL,
    burst,
    desk,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    press,
    run,
    saved_when,
    screen_text,
    select_entry,
    settle,
    until,
)
from textual.widgets import Input

from gmdesk.core.dice import FixedDice
from gmdesk.tui.screens.confirm import ChoiceDialog
from gmdesk.tui.screens.encounter import InitiativeDialog


def key_bar(app: object) -> str:
    return screen_text(app).splitlines()[-1]


def night(tmp_path: Path, system: str = "4d2", **kw: object) -> Path:
    path, _ = make_save(
        tmp_path,
        system,
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Kara": 12, "Bruno": 9},
        start=True,
        **kw,  # type: ignore[arg-type]
    )
    return path


async def test_the_log_filter_bar_names_enter_as_its_hint_does_and_enter_chooses(tmp_path: Path) -> None:
    async with desk(night(tmp_path), size=SMALL) as (app, pilot, screen):
        await press(pilot, "a", "enter")  # a roll in the log, Kara's
        await press(pilot, "f")
        await dialog(pilot, ChoiceDialog)
        await until(pilot, lambda: "Enter choose" in screen_text(app))
        await settle(pilot)
        bar = key_bar(app)
        # Enter picks in the list (the hint says so): the bar says the same, not "^s Choose"
        assert "⏎ Choose" in bar and "^s" not in bar, bar
        await press(pilot, "down", "down")  # Character: Bruno
        await press(pilot, "enter")
        await until(pilot, lambda: not isinstance(app.screen, ChoiceDialog))
        assert "Bruno" in screen_text(app).split("Rolls", 1)[1].splitlines()[0], screen_text(app)


def ladder_night(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    return make_save(
        tmp_path,
        "fudge",
        [
            {
                "name": "Kara",
                "fields": {"traits": {"Sword": 2, "Perception": 1}, "initiative_trait": "Perception"},
            },
            {"name": "Bruno", "side": "NPC", "fields": {"traits": {"Alertness": -1}, "initiative_trait": "Alertness"}},
            {"name": "Gob", "side": "NPC", "fields": {"traits": {"Club": 0}, "attack_trait": "Club"}},
        ],
    )


async def test_a_ladder_systems_initiative_dialog_shows_its_modifiers_as_ladder_words(tmp_path: Path) -> None:
    path, ids = ladder_night(tmp_path)
    # 2d3's dice cancel out (+2 +2 −2 −2): each initiative is its modifier's level
    async with desk(path, rng=FixedDice([2, 2, 2, 2] * 3), size=SMALL) as (app, pilot, screen):
        await press(pilot, "i")
        dlg = await dialog(pilot, InitiativeDialog)
        await settle(pilot)
        # the pane says "Perception  Good" and "Alertness  Mediocre": so does the dialog
        assert [dlg.query_one(f"#form-m{i}", Input).value for i in (0, 1, 2)] == ["Good", "Mediocre", "Fair"]
        rows = [line for line in screen_text(app).splitlines() if " mod " in line]
        assert "Good" in rows[0] and "Mediocre" in rows[1], rows
        await press(pilot, "enter")  # the words are read back as the levels they name
        state = await saved_when(pilot, path, lambda s: len(s.encounter.order) == 3)
    by_id = {e.char_id: e.initiative for e in state.encounter.order}
    assert by_id == {ids["Kara"]: 1, ids["Bruno"]: -1, ids["Gob"]: 0}


async def test_a_field_of_the_pane_reads_on_one_line_at_80x24(tmp_path: Path) -> None:
    path, ids = ladder_night(tmp_path)
    async with desk(path, size=SMALL) as (app, pilot, screen):
        await select_entry(pilot, ids["Kara"])
        pane = screen.character
        pane.table.focus()
        await settle(pilot)
        text = screen_text(app)
        # "Initiative trait: Perception" took two lines at 80×24 ("Initiative trait:" over
        # "  Perception"): the field, the trait and its level read on one line
        row = next((line for line in text.splitlines() if "Perception" in line and "Initiative" in line), "")
        assert "Initiative: Perception" in row and "Good" in row, text
        assert not any(line.strip(" │▌").strip() == "Perception" for line in text.splitlines()), text
        # every character's pane names the fields alike, one whose entries would fit too
        await select_entry(pilot, ids["Gob"])
        pane.table.focus()
        await settle(pilot)
        text = screen_text(app)
        assert "Attack: Club" in text and "Attack trait: Club" not in text, text


async def test_a_long_hint_line_breaks_between_keys_never_inside_one(tmp_path: Path) -> None:
    path, _ = ladder_night(tmp_path)
    async with desk(path, size=SMALL) as (app, pilot, screen):
        await press(pilot, "i")
        await dialog(pilot, InitiativeDialog)
        await until(pilot, lambda: "Esc cancel" in screen_text(app))
        await settle(pilot)
        rows = screen_text(app).splitlines()
        at = next((i for i, row in enumerate(rows) if "Enter roll" in row), None)
        assert at is not None, screen_text(app)
        left = rows[at].index("Enter roll")  # the dialog's inside, between its borders
        hint = [row[left:].split("│")[0].strip() for row in rows[at : at + 2]]
        # it read "… + joins the encounter · Tab" over "next field · Esc cancel"
        assert hint[0].endswith("+ joins the encounter ·"), hint
        assert hint[1].startswith("Tab next field · Esc cancel"), hint


async def test_an_open_dropdown_list_says_enter_picks_not_attack(tmp_path: Path) -> None:
    from gmdesk.tui.screens.roll import RollDialog

    async with desk(night(tmp_path), size=SMALL) as (app, pilot, screen):
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        await settle(pilot)
        target = dlg.query_one("#rd-target")
        target.focus()
        await settle(pilot)
        await until(pilot, lambda: "Enter open list" in screen_text(app))
        await press(pilot, "enter")  # the list opens: Enter picks in it, Escape closes it
        await until(pilot, lambda: "Enter pick" in screen_text(app))
        text = screen_text(app)
        assert "Enter attack" not in text and "Esc close the list" in text and "Esc cancel" not in text, text
        await press(pilot, "escape")  # the list closes, the dialog stays
        await until(pilot, lambda: "Enter open list" in screen_text(app))
        assert dlg.is_open


async def test_a_vitality_typed_in_the_pane_is_told_in_the_gms_words(tmp_path: Path) -> None:
    from test_tui_char_fields import to_row

    path, ids = make_save(tmp_path, "1d6x4", [{"name": "Kara", "vitality": 12}])
    async with desk(path, size=SMALL) as (app, pilot, screen):
        pane = screen.character
        await press(pilot, "tab")
        await to_row(pilot, pane, "field", "vitality")
        await press(pilot, "enter")
        await burst(pilot, "9")
        await press(pilot, "enter")
        state = await saved_when(pilot, path, lambda s: s.characters[ids["Kara"]].vitality_current == 9)
        assert state.characters[ids["Kara"]].vitality_default == 12
        said = notes(app)[-1]
        # it said "Kara: vitality_current changed" (the stored field's name)
        assert "Kara: Vitality 12 → 9" in said and "_" not in said, said


async def test_a_long_value_under_its_label_keeps_its_indent_on_every_line(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "1d6x4", [{"name": "Kara", "fields": {"attack_test": "Fitness, Knife Expertise, Stealth"}}]
    )
    async with desk(path, size=SMALL) as (app, pilot, screen):
        await press(pilot, "tab")
        await settle(pilot)
        lines = [line.split("││", 1)[-1] for line in screen_text(app).splitlines()]
        at = next(i for i, line in enumerate(lines) if "Attack descriptors:" in line)
        under = [line.strip("│▁▇ ") for line in lines[at + 1 : at + 3]]
        # "Expertise" came back to the pane's edge under "  Fitness, Knife"
        assert all(line.startswith("   ") and line.strip() for line in lines[at + 1 : at + 3]), lines[at : at + 3]
        assert " ".join(under) == "Fitness, Knife Expertise, Stealth", under


async def test_the_new_session_hint_follows_the_focus(tmp_path: Path) -> None:
    from test_tui_picker import loaded_picker

    from gmdesk.core.session import SessionStore
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.newsession import NewSessionDialog

    SessionStore(tmp_path / "saves").create("Tuesday", "4d2")
    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "none")
    async with run(app, size=SMALL) as pilot:
        await loaded_picker(pilot)
        await press(pilot, "n")
        await dialog(pilot, NewSessionDialog)
        await until(pilot, lambda: "Tab systems" in screen_text(app))
        await press(pilot, "tab")  # in the systems: it said "Tab systems" there too
        await until(pilot, lambda: "Tab name" in screen_text(app))
        assert "Tab systems" not in screen_text(app) and "↑↓ system" in screen_text(app)
        await press(pilot, "tab")
        await until(pilot, lambda: "Tab systems" in screen_text(app))


async def test_tab_into_the_pane_lands_on_a_row_that_takes_enter(tmp_path: Path) -> None:
    path, ids = make_save(
        tmp_path, "fudge", [{"name": "Gob", "side": "NPC", "fields": {"traits": {"Club": 1}, "attack_trait": "Club"}}]
    )
    async with desk(path, size=SMALL) as (app, pilot, screen):
        pane = screen.character
        await press(pilot, "tab")  # the pane's first row is a section's title, "── Rolls with"
        row = pane.current_row()
        assert row is not None and row.kind != "head", row
        await press(pilot, "enter")  # it did nothing there: now it edits the row under the title
        assert pane.editing


async def test_a_notification_under_a_dialog_stays_off_the_roll_log(tmp_path: Path) -> None:
    from textual.widgets._toast import Toast

    from gmdesk.tui.screens.encounter import InitiativeDialog

    app = make_app(night(tmp_path))
    async with run(app, size=SMALL, notifications=True) as pilot:
        screen = await main_screen(pilot)
        await press(pilot, "n")  # "Round 1: Bruno's turn", told in a notification
        await press(pilot, "i")
        await dialog(pilot, InitiativeDialog)
        await until(pilot, lambda: bool(app.screen.query(Toast)))
        await settle(pilot)
        log_top = screen.rolllog.region.y
        shown = [t.region for t in app.screen.query(Toast)]
        # it was drawn at the bottom right of the dialog's screen, over the log's newest lines
        assert shown and all(r.bottom <= log_top for r in shown), (shown, log_top)


async def test_a_new_npc_is_an_ordinary_one_unless_the_gm_ticks_reality_rated(tmp_path: Path) -> None:
    from gmdesk.tui.screens.roster import NewCharacterDialog

    path, _ = make_save(tmp_path, "torg-2d10", [])
    async with desk(path, size=SMALL) as (app, pilot, screen):
        for name, keys, rated in (
            ("Kara", [], True),  # a player character: reality-rated
            ("Thug", ["tab", "right"], False),  # Side → NPC: an ord (it stayed ticked)
            ("Mobius", ["tab", "right", "tab", "tab", "tab", "tab", "space"], True),  # ticked by hand
        ):
            await press(pilot, "c")
            await dialog(pilot, NewCharacterDialog)
            await burst(pilot, name)
            await press(pilot, *keys)
            await press(pilot, "ctrl+s")
            state = await saved_when(pilot, path, lambda s, n=name: any(c.name == n for c in s.characters.values()))
            added = next(c for c in state.characters.values() if c.name == name)
            assert added.reality_rated is rated, (name, added.side, added.reality_rated)
