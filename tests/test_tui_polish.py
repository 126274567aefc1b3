"""What surprised a new GM at 80×24 (Pilot): marks that read the same in a terminal and
in the browser's font, without colour."""

from __future__ import annotations

import pytest
from helpers import desk, make_save, press, screen_text
from test_tui_char_fields import to_row

from gmdesk.core.session import Session


async def test_a_counter_says_when_it_fills_up_in_words(tmp_path):
    """The refill mark "↻" read as "ʋ" in the browser's font (``gmdesk serve``): the
    pane says "a round", "a night" — the same in every font, without colour, and
    whole in the pane's value column at 80×24."""
    path, ids = make_save(tmp_path, "4d6", [{"name": "Kara"}])
    with Session.open(path) as s:
        s.apply({"type": "counter.add", "id": ids["Kara"], "label": "Reactions", "max": 1, "reset": "round"})
        s.apply({"type": "counter.add", "id": ids["Kara"], "label": "Luck", "max": 3, "reset": "night"})
    async with desk(path) as (app, pilot, screen):
        await press(pilot, "tab")  # initiative → the character pane
        await to_row(pilot, screen.character, "counter", 1)
        rows = screen_text(app).splitlines()
        assert any("Reactions" in r and "1/1 a round" in r for r in rows), rows
        assert any("Luck" in r and "3/3 a night" in r for r in rows), rows
        assert not any("↻" in r for r in rows)


async def test_after_adding_a_counter_the_cursor_waits_on_add_counter_as_after_a_condition(tmp_path):
    """ "+ add condition" leaves the cursor on its row once the condition is added, so
    that a second Enter adds another; "+ add counter" does the same: two counters in a
    row are Enter, name, Enter, twice, keys only."""
    from helpers import burst, dialog, saved, settle, until

    from gmdesk.tui.screens.confirm import FormDialog

    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    k = ids["Kara"]
    async with desk(path) as (app, pilot, screen):
        pane = screen.character
        await press(pilot, "tab")  # initiative → the character pane
        await to_row(pilot, pane, "add", "condition")
        for name in ("Stunned", "Prone"):
            await press(pilot, "enter")
            await burst(pilot, name)
            await press(pilot, "enter")
            await until(pilot, lambda name=name: name in [c.name for c in saved(path).characters[k].conditions])
            await settle(pilot)
            assert (pane.current_row().kind, pane.current_row().key) == ("add", "condition")
        await to_row(pilot, pane, "add", "counter")
        for n, name in enumerate(("Reactions", "Luck"), 1):
            await press(pilot, "enter")
            await dialog(pilot, FormDialog)
            await burst(pilot, name)
            await press(pilot, "enter")
            await until(pilot, lambda n=n: len(saved(path).characters[k].counters) == n)
            await until(pilot, lambda: not isinstance(app.screen, FormDialog))
            await settle(pilot)
            assert pane.table.has_focus
            assert (pane.current_row().kind, pane.current_row().key) == ("add", "counter")
        assert [x.label for x in saved(path).characters[k].counters] == ["Reactions", "Luck"]


async def test_the_key_bar_names_the_keys_the_row_under_the_cursor_takes(tmp_path):
    """With the character pane focused, the bar named every key of the pane on every
    row ("e Edit  space Toggle  del Remove  s Use  S Restore") and cut the desk's after
    it ("a Attac"): it names those the row takes — Remove on a condition, Use and
    Restore on a counter, Toggle on a source — and the desk's keys read whole."""
    from helpers import settle

    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Kara"], "name": "Stunned", "rounds": 2})
        s.apply({"type": "counter.add", "id": ids["Kara"], "label": "Luck", "max": 3, "reset": "night"})
        s.apply({"type": "source.add", "id": ids["Kara"], "kind": "shift", "name": "Aim", "value": 1, "rounds": None})
    async with desk(path) as (app, pilot, screen):
        pane = screen.character
        await press(pilot, "tab")  # initiative → the character pane

        async def bar_on(kind, key) -> str:
            await to_row(pilot, pane, kind, key)
            await settle(pilot)
            return screen_text(app).splitlines()[-1]

        bar = await bar_on("condition", 0)
        assert "del Remove" in bar and "Toggle" not in bar and "Use" not in bar, bar
        assert "a Attack" in bar and "n Next" in bar, bar
        bar = await bar_on("counter", 0)
        assert "s Use" in bar and "S Restore" in bar and "del Remove" in bar and "Edit" not in bar, bar
        assert "a Attack" in bar, bar
        bar = await bar_on("shift", 0)
        assert "space Toggle" in bar and "Use" not in bar, bar
        bar = await bar_on("add", "condition")
        assert "e Edit" in bar and "Remove" not in bar and "Toggle" not in bar, bar


async def test_the_new_character_dialog_asks_for_possibilities_only_where_the_system_keeps_them(tmp_path):
    """A 4d2 GM was asked for Possibilities and Reality-rated (torg's), which the
    character pane then never shows; torg's dialog keeps them."""
    from helpers import dialog, settle

    from gmdesk.tui.screens.confirm import FormDialog

    for system in ("4d2", "torg-2d10"):
        path, _ = make_save(tmp_path / system, system, [{"name": "Kara"}])
        async with desk(path) as (app, pilot, _screen):
            await press(pilot, "c")
            await dialog(pilot, FormDialog)
            await settle(pilot)
            text = screen_text(app)
            assert "New character" in text
            torg = system == "torg-2d10"
            assert ("Possibilities" in text) == torg and ("Reality-rated" in text) == torg, text


async def test_a_bad_initiative_typed_to_join_is_named_by_the_fields_label(tmp_path):
    """``+`` on a character outside the encounter asks for its initiative; "x1" was
    refused as "initiative: must be …", the check's own name: the dialog names its
    field as it labels it, "Initiative: …", and nothing is saved."""
    from helpers import burst, dialog, saved, select_entry, settle

    from gmdesk.tui.screens.confirm import InputDialog

    path, ids = make_save(
        tmp_path, "4d6", [{"name": "Kara"}, {"name": "Orc", "side": "NPC"}], initiative={"Kara": 12}, start=True
    )
    async with desk(path) as (app, pilot, _screen):
        await select_entry(pilot, ids["Orc"])
        await press(pilot, "plus")
        await dialog(pilot, InputDialog)
        await burst(pilot, "x1")
        await press(pilot, "enter")
        await settle(pilot)
        text = screen_text(app)
        assert "✗ Initiative: must be a whole number" in text, text
        assert isinstance(app.screen, InputDialog)
        assert saved(path).encounter.index_of(ids["Orc"]) is None


async def test_initiative_for_all_reads_each_label_on_one_line_at_80x24(tmp_path):
    """The initiative dialog's labels wrapped in their 20 columns ("Goblin archer 1 +"
    over "mod"): each reads on one line, the names in a column as wide as the longest,
    a long name cut before its number (two copies told apart), and what is typed on
    a row goes to that row's character."""
    from helpers import burst, dialog, saved, settle, until

    from gmdesk.tui.screens.confirm import FormDialog

    long = "The Unspeakable Horror of the Deep Fen 12"
    path, ids = make_save(
        tmp_path,
        "4d2",
        [{"name": "Kara"}, *({"name": n, "side": "NPC"} for n in ("Goblin archer 1", "Goblin archer 2", long))],
        initiative={"Kara": 12},
        start=True,
    )
    async with desk(path) as (app, pilot, _screen):
        await press(pilot, "i")
        await dialog(pilot, FormDialog)
        await settle(pilot)
        rows = screen_text(app).splitlines()

        def row_of(label: str) -> str:
            found = [r for r in rows if label in r and "or value" in r]  # the row of its fields
            assert len(found) == 1, (label, rows)
            return found[0]

        for label in ("Kara", "Goblin archer 1 +", "Goblin archer 2 +", "The Unspeakable Horror o… 12 +"):
            assert f"{label} " in row_of(label) and "mod" in row_of(label), rows
        assert len({row_of(n).index("mod") for n in ("Kara", "Goblin archer 1 +")}) == 1  # one column
        await press(pilot, "tab", "tab", "tab", "tab", "tab")  # → Goblin archer 2's value
        await burst(pilot, "7")
        await press(pilot, "enter")
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        await settle(pilot)
        order = saved(path).encounter
        assert order.order[order.index_of(ids["Goblin archer 2"])].initiative == 7


async def test_the_new_session_dialog_names_the_system_enter_creates_with_in_words(tmp_path):
    """Enter in the name creates the session with the list's highlighted system, which
    only colour showed while the name had the focus (NO_COLOR: nothing): a GM typed a
    name, Enter, and had a 4d6 session. The line over the list names it, and follows
    the list."""
    from helpers import run, until
    from test_tui_picker import loaded_picker

    from gmdesk.core.session import SessionStore
    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.newsession import NewSessionDialog

    SessionStore(tmp_path / "saves").create("Tuesday", "4d6")
    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "none")
    async with run(app) as pilot:
        await loaded_picker(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewSessionDialog))
        await until(pilot, lambda: "System: 4d6 — " in screen_text(app))
        await pilot.press("tab", "up")
        await until(pilot, lambda: "System: torg-2d10 — " in screen_text(app))
        await pilot.press("shift+tab", *"Sunday", "enter")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        await until(pilot, lambda: "Sunday · torg-2d10" in screen_text(app))


async def test_the_palette_lists_the_gms_moves_first_and_each_once(tmp_path):
    """Ctrl+P opened on Textual's own commands (Keys, Maximize, Quit, Screenshot,
    Theme) before the desk's, and named "Quit" and the keys twice (Textual's "Quit the
    application as soon as possible" and gmdesk's); "Add character…" promised
    Possibilities in a 4d2 session, whose dialog does not ask for them. The desk's
    moves come first, in their order; Theme is still there, after them."""
    from helpers import dialog, until
    from textual.command import CommandPalette
    from textual.widgets import Input

    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    async with desk(path) as (app, pilot, _screen):
        await press(pilot, "ctrl+p")
        found = await dialog(pilot, CommandPalette)
        options = found.query_one("CommandList")
        await until(pilot, lambda: options.option_count > 20)
        await pilot.pause(0.3)  # (every provider has answered)
        titles = [str(options.get_option_at_index(i).prompt).splitlines()[0] for i in range(options.option_count)]
        assert titles[:3] == ["Roll…", "Attack…", "Next turn"], titles
        assert titles.count("Quit") == 1 and "Keys" not in titles and "Keys (help)" in titles, titles
        assert titles.index("Theme") > titles.index("Open another session…"), titles
        lines = screen_text(app).splitlines()
        below = lines[next(i for i, line in enumerate(lines) if "Search for commands" in line) + 1 :]
        assert next(line for line in below if line.strip()).strip() == "Roll…", lines  # the list's first line
        found.query_one(Input).value = "Add character"
        await until(pilot, lambda: "Add character…" in screen_text(app))
        assert "Possibilities" not in screen_text(app)


async def test_an_empty_fields_example_says_e_g_and_is_not_taken_for_a_value(tmp_path):
    """The new-character dialog showed "Skills  Pistol=2, DEX=1" and the counter
    dialog "Counter  Reactions": examples, dimmed — which reads as a value typed
    without colour (Enter on the counter: "Counter: must not be empty"). They say
    "e.g." as the character pane's hints do."""
    from helpers import dialog, settle

    from gmdesk.tui.screens.confirm import FormDialog

    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    async with desk(path) as (app, pilot, _screen):
        await press(pilot, "c")
        await dialog(pilot, FormDialog)
        await settle(pilot)
        rows = screen_text(app).splitlines()
        assert any("Skills" in r and "e.g. Pistol=2, DEX=1" in r for r in rows), rows
        await press(pilot, "escape")
        await press(pilot, "tab")  # initiative → the character pane
        from test_tui_char_fields import to_row

        await to_row(pilot, _screen.character, "add", "counter")
        await press(pilot, "enter")
        await dialog(pilot, FormDialog)
        await settle(pilot)
        rows = screen_text(app).splitlines()
        assert any("Counter" in r and "e.g. Reactions" in r for r in rows), rows


async def test_without_colour_a_status_mark_and_a_refusal_read_as_plainly_as_the_text_by_them(tmp_path, monkeypatch):
    """NO_COLOR: Textual's grey filter drew "STY" (bold magenta) in dark grey on the
    row's near-black (#3b3b3b on #262626) and a refusal ("✗ Name: must not be empty",
    the error colour) fainter than the labels around it. Without colour every text is
    the terminal's own colour; a mark or a refusal stands out by its weight (bold)."""
    from helpers import dialog, settle
    from test_tui_dialogs import _style_of

    from gmdesk.tui.screens.confirm import FormDialog

    monkeypatch.setenv("NO_COLOR", "1")
    path, ids = make_save(
        tmp_path, "torg-2d10", [{"name": "Kara"}, {"name": "Edeinos", "side": "NPC"}], initiative={"Kara": 9}
    )
    with Session.open(path) as s:
        s.apply({"type": "condition.add", "id": ids["Kara"], "name": "Stymied", "rounds": 1})
    async with desk(path) as (app, pilot, _screen):
        assert app.no_color
        mark, name = _style_of(app, "STY"), _style_of(app, "Kara")
        assert mark.bold and mark.color == name.color and mark.bgcolor == name.bgcolor, (mark, name)
        await press(pilot, "c")
        await dialog(pilot, FormDialog)
        await press(pilot, "enter")  # no name
        await settle(pilot)
        refusal, label = _style_of(app, "✗ Name"), _style_of(app, "Side")
        assert refusal.bold and refusal.color == label.color, (refusal, label)


async def test_without_colour_the_palettes_highlighted_command_is_marked(tmp_path, monkeypatch):
    """NO_COLOR: the palette's highlighted line was shown by its background alone (its
    reverse video is drawn as swapped colours, which the terminal's own colours drop):
    Enter ran a command the GM could not see. It is underlined, and follows the arrows."""
    from helpers import dialog, until
    from test_tui_dialogs import _style_of
    from textual.command import CommandPalette

    monkeypatch.setenv("NO_COLOR", "1")
    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    async with desk(path) as (app, pilot, _screen):
        await press(pilot, "ctrl+p")
        found = await dialog(pilot, CommandPalette)
        options = found.query_one("CommandList")
        await until(pilot, lambda: options.option_count > 20 and options.highlighted == 0)
        await pilot.pause(0.3)

        def marked(text: str) -> bool:
            style = _style_of(app, text)
            return bool(style.underline or style.reverse)

        assert marked("Roll…") and not marked("Attack…")
        await pilot.press("down")
        await until(pilot, lambda: options.highlighted == 1)
        await pilot.pause(0.1)
        assert marked("Attack…") and not marked("Roll…")
        await press(pilot, "escape")
        await press(pilot, "c")  # a dropdown's list in a dialog (its reverse video was lost too)
        from gmdesk.tui.screens.confirm import FormDialog

        await dialog(pilot, FormDialog)
        await press(pilot, "tab", "enter")  # Side: its list open
        await until(pilot, lambda: "NPC" in screen_text(app))
        assert not marked("NPC")
        await press(pilot, "down")
        await pilot.pause(0.1)
        assert marked("NPC")


async def test_the_settings_labels_read_on_one_line_beside_their_fields(tmp_path):
    """ "Skill chance threshold" wrapped in the forms' 20 columns ("Skill chance" over
    "threshold") at 80×24: the labels' column is as wide as the longest."""
    from helpers import dialog, palette, settle

    from gmdesk.tui.screens.settings import SettingsDialog

    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    async with desk(path) as (app, pilot, _screen):
        await palette(pilot, "Session settings")
        await dialog(pilot, SettingsDialog)
        await settle(pilot)
        rows = screen_text(app).splitlines()
        assert any("Skill chance threshold" in r and " 9 " in r for r in rows), rows
        assert any("Initiative ties" in r and "keep order" in r for r in rows), rows


async def test_a_forms_long_label_reads_on_one_line_beside_its_field(tmp_path):
    """1d6x4's new-character dialog wrapped "Initiative descriptors" in the forms' 20
    columns ("Initiative" over "descriptors", its field beside the first half): a form
    whose labels are longer makes its labels' column as wide as the longest."""
    from helpers import dialog, settle

    from gmdesk.tui.screens.confirm import FormDialog

    path, _ = make_save(tmp_path, "1d6x4", [{"name": "Kara"}])
    async with desk(path) as (app, pilot, _screen):
        await press(pilot, "c")
        await dialog(pilot, FormDialog)
        await settle(pilot)
        rows = screen_text(app).splitlines()
        assert any("Initiative descriptors" in r and "e.g. Reflex" in r for r in rows), rows
        side = next(r for r in rows if "Side" in r and "PC (player)" in r)
        initiative = next(r for r in rows if "Initiative descriptors" in r)
        assert side.index("PC (player)") == initiative.index("e.g. Reflex")  # one column of fields


async def test_the_odds_pane_names_every_outcome_whole_at_80x24(tmp_path, quick_odds):
    """4d2's odds read "Extraordinary Succe…" in the roll dialog's pane: the labels
    take what they need (the bars, drawn to the likeliest outcome, give up a cell)."""
    from helpers import dialog, settle, until

    from gmdesk.tui.screens.roll import RollDialog

    path, _ = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    async with desk(path) as (app, pilot, _screen):
        await press(pilot, "r")
        await dialog(pilot, RollDialog)
        await until(pilot, lambda: "Detent" in screen_text(app))
        await settle(pilot)
        text = screen_text(app)
        assert "Extraordinary Success " in text and "Succe…" not in text, text


async def test_tab_out_of_the_character_editor_closes_it_unapplied(tmp_path):
    """Enter on the Name row, "Luck", then Tab (a GM thinking of a form): the focus
    went to the roll log and the editor stayed open in the pane, "Luck" in it, not
    applied — read as a renamed character. Leaving the editor closes it, as Esc does;
    nothing is changed."""
    from helpers import burst, saved, settle
    from test_tui_char_fields import to_row

    path, ids = make_save(tmp_path, "4d2", [{"name": "Kara"}])
    async with desk(path) as (app, pilot, screen):
        pane = screen.character
        await press(pilot, "tab")  # initiative → the character pane
        await to_row(pilot, pane, "field", "name")
        await press(pilot, "enter")
        assert pane.editing
        await burst(pilot, "Luck")
        await press(pilot, "tab")
        await settle(pilot)
        assert not pane.editing and not pane.query_one("#character-editor").display
        assert "Luck" not in screen_text(app) and "Enter apply" not in screen_text(app)
        assert saved(path).characters[ids["Kara"]].name == "Kara"
        await press(pilot, "shift+tab", "enter")  # back on the pane: Enter edits the row again
        assert pane.editing


async def test_the_status_line_always_says_whose_turn_it_is(tmp_path):
    """A long session name pushed whose turn it is off the status line at 80×24 ("The
    Very Long Campaign Name of the Western Marches · torg-2d10 · Round 1 · ▶"): the
    session's name is cut first, then the character's, and the line ends "'s turn"."""
    hero = "Bartholomew the Magnificent of Greyhaven"
    path, _ = make_save(
        tmp_path,
        "torg-2d10",
        [{"name": hero}, {"name": "Gospog", "side": "NPC"}],
        initiative={hero: 12, "Gospog": 3},
        start=True,
        name="The Very Long Campaign Name of the Western Marches",
    )
    async with desk(path) as (app, pilot, _screen):
        line = screen_text(app).splitlines()[0].rstrip()
        assert line.endswith("'s turn") and "▶ Bartholomew" in line, line
        assert line.lstrip().startswith("The Very Long") and "…" in line, line
        await press(pilot, "n")  # Gospog's turn: only the session's name is cut
        line = screen_text(app).splitlines()[0].rstrip()
        assert line.endswith("▶ Gospog's turn") and "Western" not in line, line


async def test_a_long_session_name_on_the_picker_is_cut_with_a_mark(tmp_path):
    """The picker's Session column cut "The Very Long Campaign Name of th" without a
    mark, as if that were the name: it ends "…" where it is cut."""
    from helpers import run, until
    from test_tui_picker import loaded_picker

    from gmdesk.core.session import SessionStore
    from gmdesk.tui.app import GmdeskApp

    SessionStore(tmp_path / "saves").create("The Very Long Campaign Name of the Western Marches", "4d2")
    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "none")
    async with run(app) as pilot:
        await loaded_picker(pilot)
        await until(pilot, lambda: "The Very Long" in screen_text(app))
        row = next(r for r in screen_text(app).splitlines() if "The Very Long" in r and "4d2" in r)
        assert "…" in row.split("4d2")[0], row


async def test_the_initiative_panes_round_line_marks_a_cut_name(tmp_path):
    """ "Round 1 · ▶ Bartholomew the" — the line wrapped at a word and lost the rest
    unmarked: it is one line, cut with "…"."""
    hero = "Bartholomew the Magnificent of Greyhaven"
    path, _ = make_save(tmp_path, "4d2", [{"name": hero}], initiative={hero: 12}, start=True)
    async with desk(path) as (app, _pilot, screen):
        pane = screen.initiative
        line = screen_text(app).splitlines()[pane.region.y + 1][pane.region.x : pane.region.right]
        assert "▶ Bartholomew the Magni" in line and "…" in line, line


@pytest.mark.parametrize("system", ["4d2", "fudge", "1d6x4", "torg-2d10", "4d6"])
async def test_every_hint_in_the_roll_and_attack_dialogs_reads_whole_at_80x24(tmp_path, quick_odds, system):
    """fudge's "Vs trait" hint read "opposed only; empty:" (its "Fair" cut off by the
    field): each empty field's hint fits its field, in the roll dialog and in an attack."""
    import random

    from helpers import SMALL, dialog, main_screen, make_app, run, settle
    from test_tui_snapshots_systems import BUILDERS
    from textual.widgets import Input

    from gmdesk.tui.screens.roll import RollDialog

    app = make_app(BUILDERS[system](tmp_path), rng=random.Random(1))
    checked = 0
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        for key in ("r", "a"):
            await press(pilot, key)
            dlg = await dialog(pilot, RollDialog)
            await settle(pilot)
            hints = [f for f in dlg.query(Input) if f.display and f.placeholder and not f.value]
            checked += len(hints)
            for field in hints:
                room = field.content_region.width
                assert len(field.placeholder) <= room, (key, field.id, field.placeholder, room)
            await press(pilot, "escape")
            await settle(pilot)
    assert checked or system == "4d2"  # 4d2's dialogs open with every field filled
