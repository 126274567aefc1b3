"""What a GM read wrong at 80×24 and below (Pilot), the second part of
test_tui_polish.py: an initiative in the system's words, refusals as sentences,
nothing cut without a mark, what the GM typed read as typed, keys that act."""

from __future__ import annotations

import pytest
from helpers import desk, make_save, press, screen_text
from test_tui_char_fields import to_row

from gmdesk.core.session import Session


async def test_fudges_initiative_reads_as_the_ladders_word_on_the_desk_and_the_player_view(tmp_path):
    """The pane showed "+2" where the roll log said "Initiative +2 (Great)": a fudge
    initiative reads as its ladder level, left-aligned and whole at 80×24, on the desk,
    in the player view (the terminal's and the browser's) and in the note after ``i``;
    the order is the same."""
    from helpers import dialog, notes, run, settle, until
    from test_tui_player import CLOCK, SIZE, shown
    from textual.widgets import Input

    from gmdesk.tui.screens.confirm import FormDialog
    from gmdesk.tui.screens.player import PlayerApp, build_picture

    people = [{"name": "Mirela"}, {"name": "Aldric"}]
    people += [{"name": "Bandit", "side": "NPC"}, {"name": "Ogre", "side": "NPC"}]
    levels = {"Mirela": 4, "Aldric": 0, "Bandit": -1, "Ogre": -3}
    path, _ = make_save(tmp_path, "fudge", people, initiative=levels, start=True)
    async with desk(path) as (app, pilot, screen):
        pane = screen.initiative
        rows = screen_text(app).splitlines()[pane.region.y : pane.region.bottom]
        inner = [r[pane.region.x : pane.region.right] for r in rows]
        for name, word in (("Mirela", "Superb +1"), ("Aldric", "Fair"), ("Bandit", "Mediocre"), ("Ogre", "Terrible")):
            row = next((r for r in inner if f" {name} " in r and "Round" not in r), "")
            assert f"{word} " in row and "…" not in row, (name, word, inner)
        assert not any(num in r for r in inner for num in (" 4 ", " −3 ", " −1 ")), inner
        assert any(r.startswith("│▶Superb +1 Mirela") for r in inner), inner  # the turn's marker first
        # the note after rolling everyone's initiative names the same words
        await press(pilot, "i")
        await dialog(pilot, FormDialog)
        await settle(pilot)
        for i, word in enumerate(("Great", "Fair", "Mediocre", "Poor")):
            app.screen.query_one(f"#form-v{i}", Input).value = word
        await press(pilot, "enter")
        await until(pilot, lambda: any("Initiative:" in n for n in notes(app)))
        said = next(n for n in notes(app) if "Initiative:" in n)
        assert "Mirela Great" in said and "Bandit Mediocre" in said and "Ogre Poor" in said, said
    # the player view: the same words, in the same order
    levels["Ogre"] = -4
    path2, _ = make_save(tmp_path / "p", "fudge", people, initiative=levels, start=True)
    with Session.open(path2, readonly=True) as s:
        rows = build_picture(s.state).initiative.plain.splitlines()
    assert rows == ["▶ Superb +1   Mirela", "  Fair        Aldric", "  Mediocre    Bandit", "  Terrible −1 Ogre"], rows
    app = PlayerApp(path2, clock=lambda: CLOCK)
    async with run(app, size=SIZE) as pilot:
        await shown(pilot)
        text = screen_text(app)
    assert "Superb +1   Mirela" in text and "Terrible −1 Ogre" in text, text


async def test_a_plain_number_initiative_stays_a_number(tmp_path):
    """4d6's initiative is a number: the pane and the player view keep it, right-aligned."""
    from gmdesk.tui.screens.player import build_picture

    people = [{"name": "Kara"}, {"name": "Orc", "side": "NPC"}]
    path, _ = make_save(tmp_path, "4d6", people, initiative={"Kara": 12, "Orc": -1}, start=True)
    async with desk(path) as (app, _pilot, screen):
        pane = screen.initiative
        rows = [r[pane.region.x : pane.region.right] for r in screen_text(app).splitlines()]
        assert any("▶  12 Kara" in r for r in rows), rows
        assert any("   −1 Orc" in r for r in rows), rows
    with Session.open(path, readonly=True) as s:
        assert build_picture(s.state).initiative.plain.splitlines()[:2] == ["▶  12 Kara", "   −1 Orc"]


async def test_a_refusal_in_a_toast_starts_with_a_capital_and_a_name_keeps_its_own(tmp_path):
    """``p`` at the first turn said "already at the first turn of round 1": a toast is a
    sentence, "Already at …". A refusal that starts with a character's name as written
    ("bob", "d'Artagnan") keeps it; the CLI's line after "gmdesk: " keeps the core's words."""
    from helpers import notes, select_entry, settle, until

    people = [{"name": "bob"}, {"name": "d'Artagnan"}, {"name": "Orc", "side": "NPC"}]
    path, ids = make_save(tmp_path, "4d2", people, initiative={"Orc": 7}, start=True)
    async with desk(path) as (app, pilot, _screen):
        await press(pilot, "p")
        await until(pilot, lambda: any("first turn of round 1" in n for n in notes(app)))
        assert "Already at the first turn of round 1" in notes(app), notes(app)
        for name in ("bob", "d'Artagnan"):
            await select_entry(pilot, ids[name])
            await press(pilot, "d")  # delay: not in the encounter
            await settle(pilot)
            assert f"{name} is not in the encounter." in notes(app), notes(app)
            assert f"{name[0].upper()}{name[1:]} is not" not in " ".join(notes(app))


def test_a_sentence_capitalises_only_an_ordinary_first_word():
    from gmdesk.tui.wording import sentence

    assert sentence("already at the first turn of round 1") == "Already at the first turn of round 1"
    assert sentence("give one of spend or restore") == "Give one of spend or restore"
    assert sentence("initiative: must be a whole number") == "Initiative: must be a whole number"
    for kept in ("fudge roll #3 moves no clock", "4d2: unknown", "gmdesk could not", "/saves/x: gone", "d'Artagnan is"):
        assert sentence(kept) == kept
    assert sentence("bob has no wounds", ["bob"]) == "bob has no wounds"
    assert sentence("Kara has no wounds", ["Kara"]) == "Kara has no wounds"


async def test_below_80_columns_the_character_pane_marks_what_it_cuts(tmp_path):
    """At 66 columns the pane read "[x] Targeting ar  +1" and "Notes  Storm Kn", as if
    that were all: a cut title or value ends "…" (as a cut name does in the order)."""
    from helpers import settle

    path, ids = make_save(tmp_path, "4d2", [{"name": "Scrap-7", "side": "NPC", "notes": "Stormchaser of the Wastes"}])
    with Session.open(path) as s:
        s.apply({"type": "source.add", "id": ids["Scrap-7"], "kind": "shift", "name": "Targeting array", "value": 1})
    async with desk(path, size=(66, 24)) as (app, pilot, screen):
        pane = screen.character
        await press(pilot, "tab")

        def row_with(word: str) -> str:
            rows = [r[pane.region.x : pane.region.right] for r in screen_text(app).splitlines()]
            return next((r for r in rows if word in r), "")

        await to_row(pilot, pane, "shift", 0)
        await settle(pilot)
        source = row_with("Targeting")
        assert "Targeting a…" in source and "+1" in source, source
        await to_row(pilot, pane, "field", "notes")
        await settle(pilot)
        notes_row = row_with(" Notes ")
        assert "Storm" in notes_row and "…" in notes_row, notes_row


async def test_a_forms_label_column_is_measured_once_a_dialog(tmp_path, monkeypatch):
    """The labels' column was measured again for every field (each time over every
    field): once a dialog, every label of the new character dialog that width."""
    from helpers import dialog, settle
    from textual.widgets import Label

    from gmdesk.tui.screens.confirm import FormDialog

    calls: list[FormDialog] = []
    measure = FormDialog.label_column

    def counted(self: FormDialog) -> int | None:
        calls.append(self)
        return measure(self)

    monkeypatch.setattr(FormDialog, "label_column", counted)
    path, _ = make_save(tmp_path, "torg-2d10", [{"name": "Kara"}])
    async with desk(path) as (_app, pilot, _screen):
        await press(pilot, "c")
        dlg = await dialog(pilot, FormDialog)
        await settle(pilot)
        assert len(calls) == 1 and calls[0] is dlg
        widths = {label.styles.width for label in dlg.query(Label).filter(".form-label")}
        assert len(widths) == 1 and len(dlg.fields) > 5, widths


async def test_the_bestiary_names_vitality_only_where_the_system_tracks_it(tmp_path):
    """A fudge session's "Add from bestiary" listed "Bandit  NPC  Vitality   0":
    fudge keeps no Vitality; its rows say none, 4d2's (which have some) keep theirs."""
    from test_tui_bestiary import open_dialog

    from gmdesk.core.campaign.bestiary import Bestiary
    from gmdesk.core.campaign.statblock import StatBlock

    for system, shown in (("fudge", False), ("4d2", True)):
        path, _ = make_save(tmp_path / system, system, [{"name": "Kara"}])
        Bestiary(path.parent).add_many([StatBlock("Bandit", system, vitality=5 * shown, tags=("human",))])
        async with desk(path) as (app, pilot, _screen):
            await open_dialog(pilot)
            row = next(r for r in screen_text(app).splitlines() if "Bandit" in r and "NPC" in r)
            assert ("Vitality" in row) == shown, row
            assert "human" in row, row


async def test_the_pickers_dialogs_name_enter_in_the_key_bar(tmp_path):
    """The new session, example and duplicate dialogs' key bar said only "esc Cancel"
    (every other dialog names Enter: "⏎ Roll", "⏎ Add"): it says "⏎ Create" (a
    duplicate's "⏎ Copy", as its hint line), and Enter still creates with the list's
    highlighted system, the keys typed in one go."""
    from helpers import run, until
    from test_tui_picker import loaded_picker

    from gmdesk.core.session import SessionStore
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.picker import ExampleDialog, NewSessionDialog, default_examples_dir

    store = SessionStore(tmp_path / "saves")
    store.create("Old", "4d2")
    app = GmdeskApp(tmp_path / "saves", examples_dir=default_examples_dir())
    async with run(app) as pilot:
        await loaded_picker(pilot)
        for key, kind, word in (("c", NewSessionDialog, "⏎ Copy"), ("e", ExampleDialog, "⏎ Create")):
            await press(pilot, key)
            await until(pilot, lambda kind=kind: isinstance(app.screen, kind))
            bar = screen_text(app).splitlines()[-1]
            assert word in bar and "esc Cancel" in bar, bar
            await press(pilot, "escape")
            await until(pilot, lambda: not isinstance(app.screen, (NewSessionDialog, ExampleDialog)))
        await press(pilot, "n")
        await until(pilot, lambda: isinstance(app.screen, NewSessionDialog))
        bar = screen_text(app).splitlines()[-1]
        assert "⏎ Create" in bar and "esc Cancel" in bar, bar
        await pilot.press(*"Tuesday", "tab", "down", "down", "enter")  # 4d2 → fudge → 1d6x4
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Tuesday · 1d6x4" in screen_text(app))


@pytest.mark.parametrize("system", ["4d2", "fudge", "1d6x4", "torg-2d10", "4d6"])
async def test_the_palette_offers_a_descriptor_sheet_only_where_the_system_keeps_them(tmp_path, system):
    """A torg GM typing "poss" in the palette was offered "Import a descriptor sheet…",
    which no pane of a torg character shows: only a system whose characters carry a
    descriptor sheet (1d6x4) offers it."""
    from helpers import dialog, until
    from textual.command import CommandPalette
    from textual.widgets import Input

    from gmdesk.core.systems import character_sections

    path, _ = make_save(tmp_path, system, [{"name": "Kara"}])
    async with desk(path) as (app, pilot, _screen):
        await press(pilot, "ctrl+p")
        found = await dialog(pilot, CommandPalette)
        found.query_one(Input).value = "sheet"
        await until(pilot, lambda: "Open another session" not in screen_text(app) or "sheet" in screen_text(app))
        await pilot.pause(0.3)  # (every provider has answered)
        offered = "Import a descriptor sheet" in screen_text(app)
        assert offered == ("sheet" in character_sections(system)), screen_text(app)


async def test_a_name_with_brackets_reads_whole_in_toasts_titles_and_lists(tmp_path):
    """ "Sir [x] Knight" read "Sir  Knight" in the toasts, the log filter's list and
    the group dialog, and the pane's title and the log's filter title lost their
    bracketed words: what a GM typed is text everywhere, never markup."""
    from helpers import dialog, notes, notifications, select_entry, settle, until

    from gmdesk.tui.screens.confirm import ChoiceDialog, FormDialog

    knight = "Sir [x] Knight"
    path, ids = make_save(tmp_path, "4d2", [{"name": knight}, {"name": "Orc [b]", "side": "NPC"}])
    async with desk(path) as (app, pilot, screen):
        await select_entry(pilot, ids[knight])
        await settle(pilot)
        assert f"─ {knight} ─" in screen_text(app)  # the character pane's title
        await press(pilot, "d")  # not in the encounter: a toast naming it
        await until(pilot, lambda: any("not in the encounter" in n for n in notes(app)))
        await settle(pilot)
        said = next(n for n in notifications(app) if "not in the encounter" in n.message)
        assert said.message.startswith(knight) and not said.markup  # drawn as typed
        await press(pilot, "g")
        await dialog(pilot, FormDialog)
        await settle(pilot)
        assert f"[x] {knight}" in screen_text(app) and "Orc [b]" in screen_text(app), screen_text(app)
        await press(pilot, "escape")
        await settle(pilot)
        await press(pilot, "f")
        await dialog(pilot, ChoiceDialog)
        await settle(pilot)
        assert f"Character: {knight}" in screen_text(app), screen_text(app)
        await press(pilot, "down", "enter")
        await settle(pilot)
        assert f"Rolls [{knight}]" in screen_text(app), screen_text(app)


async def test_home_and_end_go_to_the_first_and_last_row_of_the_order_and_the_pane(tmp_path):
    """End in the initiative list or the character pane did nothing (a table's own
    Home / End scroll sideways): they go to the first and last row, as in the roll
    log, and the pane follows the character selected."""
    from helpers import settle

    names = [f"Guard {i}" for i in range(12)]
    path, ids = make_save(tmp_path, "4d6", [{"name": n} for n in names], initiative={n: i for i, n in enumerate(names)})
    async with desk(path) as (_app, pilot, screen):
        order = screen.initiative.table
        await press(pilot, "end")
        await settle(pilot)
        assert order.cursor_row == order.row_count - 1 and screen.selected == ids["Guard 0"]
        await press(pilot, "home")
        await settle(pilot)
        assert order.cursor_row == 0 and screen.selected == ids["Guard 11"]
        await press(pilot, "tab")  # the character pane
        pane = screen.character.table
        await press(pilot, "end")
        await settle(pilot)
        assert pane.row_count > 10 and pane.cursor_row == pane.row_count - 1
        await press(pilot, "home")
        await settle(pilot)
        assert pane.cursor_row == 0


async def test_below_80_columns_a_dropdown_marks_the_value_it_cuts(tmp_path, quick_odds):
    """At 66 columns the attack's Target read "Bandit Capt ▼", as if that were the
    name: a value longer than its box ends "…"."""
    from helpers import dialog, settle

    from gmdesk.tui.screens.roll import RollDialog

    people = [{"name": "Mirela"}, {"name": "Bandit Captain", "side": "NPC"}]
    path, _ = make_save(tmp_path, "4d6", people, initiative={"Mirela": 12, "Bandit Captain": 3}, start=True)
    async with desk(path, size=(66, 24)) as (app, pilot, _screen):
        await press(pilot, "a")
        await dialog(pilot, RollDialog)
        await settle(pilot)
        row = next(r for r in screen_text(app).splitlines() if "Target" in r)
        assert "Bandit Cap…" in row or "Bandit Captain" in row, row
        assert "Bandit Capt " not in row and "Bandit Capt▼" not in row, row


async def test_a_negative_source_reads_with_the_desks_minus_sign(tmp_path):
    """ "Exhausted -1" (a hyphen) stood beside "V−9/0" and "−2" in the order: a
    source's value reads "−1" in the character pane, the roll dialog and the player
    view, as every number the desk shows (the forms' own fields keep what they parse)."""
    from helpers import dialog, settle

    from gmdesk.tui.screens.player import build_picture
    from gmdesk.tui.screens.roll import RollDialog

    path, ids = make_save(tmp_path, "4d6", [{"name": "Osric"}])
    with Session.open(path) as s:
        source = {"kind": "advantage", "name": "Exhausted", "value": -1, "rounds": 2}
        s.apply({"type": "source.add", "id": ids["Osric"], **source})
    async with desk(path) as (app, pilot, _screen):
        await settle(pilot)
        assert any("[x] Exhausted" in r and "−1 2 rd" in r for r in screen_text(app).splitlines())
        await press(pilot, "r")
        await dialog(pilot, RollDialog)
        await settle(pilot)
        assert "Exhausted −1 (advantage)" in screen_text(app), screen_text(app)
        assert "-1" not in screen_text(app).split("Exhausted")[1].split("\n")[0]
    with Session.open(path, readonly=True) as s:
        assert "Exhausted −1 (2 rd)" in build_picture(s.state).party.plain
