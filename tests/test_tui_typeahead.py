"""Keys typed ahead through Pilot without pauses (issue 18): every key of a sequence
is posted to the app before it handles the first, as a terminal delivers a burst.
Each test is a documented flow that went wrong that way: a key routed to the widget
that had the focus when it arrived, or to the screen under a dialog being opened.
The same sequences run on a real pseudo-terminal in ``test_typeahead_pty.py``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from helpers import SMALL, main_screen, notes, run, saved, settle
from textual import events
from typeahead import ADD_CONDITION_ROW, SEQUENCES, events_of, harness_save, textual_keys

from gmdesk.tui.app import GmdeskApp

#: from the desk to the "+ add condition" row of Kara's pane (4d6, the system of :func:`desk`)
TO_ADD_CONDITION = "<tab><ctrl+home>" + "<down>" * ADD_CONDITION_ROW["4d6"]


async def typed_ahead(pilot: Any, keys: str) -> None:
    """Post every key of ``keys`` (the sequences' notation) at once, then wait until
    the desk has handled them all."""
    for key, char in textual_keys(keys):
        pilot.app.post_message(events.Key(key, char))
    await settle(pilot)


def desk(tmp_path: Path, system: str = "4d6") -> tuple[Path, GmdeskApp]:
    path = harness_save(tmp_path, system)
    return path, GmdeskApp(path.parent, path, rng=random.Random(7))


def character(path: Path, name: str) -> Any:
    return next(c for c in saved(path).characters.values() if c.name == name)


async def test_new_character_fields_typed_ahead_land_field_by_field(tmp_path: Path) -> None:
    """c, then Zed Tab Tab Tab 12 Enter in one burst: Name Zed, Vitality 12 (it was "Zed12")."""
    path, app = desk(tmp_path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await typed_ahead(pilot, "cZed<tab><tab><tab>12<enter>")
    zed = character(path, "Zed")
    assert zed.vitality_default == 12


async def test_attack_and_enter_typed_ahead_roll(tmp_path: Path) -> None:
    """a and Enter in one burst: the attack dialog opens and the Enter rolls it."""
    path, app = desk(tmp_path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await typed_ahead(pilot, "a<enter>r<enter>")
        assert screen is app.screen  # both dialogs rolled and closed
    entries = saved(path).rolls
    assert [(e.actor_name, e.target_name if e.combat else None) for e in entries] == [("Kara", "Bruno"), ("Kara", None)]


async def test_a_condition_typed_ahead_in_the_pane_is_the_whole_text(tmp_path: Path) -> None:
    """Enter on "+ add condition", Blessed 2, Enter in one burst: the condition is
    "Blessed" for 2 rounds (it was logged as "B"); Shift+Tab then leaves the pane."""
    path, app = desk(tmp_path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await typed_ahead(pilot, TO_ADD_CONDITION + "<enter>Blessed 2<enter><shift+tab>n")
        assert screen.initiative.table.has_focus
    state = saved(path)
    kara = next(c for c in state.characters.values() if c.name == "Kara")
    added = [(e["name"], e["rounds"]) for e in events_of(path) if e["type"] == "condition.add"]
    assert added == [("Blessed", 2)]
    # n, after the pane: the next turn (Kara's turn ended: one round of Blessed gone)
    assert state.encounter.current.char_id != kara.id
    assert [(c.name, c.rounds) for c in kara.conditions] == [("Blessed", 1)]


async def test_a_contest_field_typed_over_with_backspaces_and_a_digit(tmp_path: Path) -> None:
    """o, Bonus 5, Tab past Advantage to Vs bonus (a contest asks no DC), D,
    Backspace, Backspace, 2, Enter in one burst: the contest is rolled with Bonus 5
    and Vs bonus 2 (the field kept "D")."""
    path, app = desk(tmp_path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await typed_ahead(pilot, "o5<tab><tab>D<backspace><backspace>2<enter>")
    (entry,) = saved(path).rolls
    assert (entry.record.params["bonus"], entry.record.params["vs_bonus"]) == (5, 2)


async def test_the_palette_takes_the_top_match_of_what_was_typed_before_enter(tmp_path: Path) -> None:
    path, app = desk(tmp_path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await typed_ahead(pilot, "<ctrl+p>next turn<enter>")
    state = saved(path)
    assert state.characters[state.encounter.current.char_id].name == "Bruno"


async def test_keys_typed_while_the_picker_opens_a_session_go_to_the_desk(tmp_path: Path) -> None:
    """Enter on the picker, then a and Enter before the session is even open: the
    desk takes them once it is up — the attack is rolled."""
    path = harness_save(tmp_path, "4d2")
    app = GmdeskApp(path.parent, rng=random.Random(7))
    async with run(app, size=SMALL) as pilot:
        await settle(pilot)
        await typed_ahead(pilot, "<enter>a<enter>")
        await main_screen(pilot)
    assert [(e.actor_name, e.target_name) for e in saved(path).rolls] == [("Kara", "Bruno")]


async def test_desk_keys_on_a_plus_add_row_typed_ahead(tmp_path: Path) -> None:
    """On "+ add condition", n n u typed ahead are two turns and an undo — no editor
    opens (issue 18, point 3)."""
    path, app = desk(tmp_path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await typed_ahead(pilot, TO_ADD_CONDITION)
        assert screen.character.current_row().kind == "add"
        await typed_ahead(pilot, "nnu")
        assert not screen.character.editing
        assert any("Undone" in n for n in notes(app))
    state = saved(path)
    assert state.characters[state.encounter.current.char_id].name == "Bruno"


async def test_the_screen_follows_bursts_typed_into_the_condition_editor(tmp_path: Path) -> None:
    """The pane's condition editor open, bursts of keys (a ``?`` among them, which is
    text there, not the help): after each burst the screen shows what the field holds
    (a desk once stopped repainting in this spot); nothing is saved until Enter."""
    from helpers import screen_text

    path, app = desk(tmp_path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        await typed_ahead(pilot, TO_ADD_CONDITION + "<enter>")
        editor = screen.character.query_one("#character-editor")
        for n in range(8):
            await typed_ahead(pilot, f"Hex{n}?x<backspace>")
            assert editor.value == f"Hex{n}?"
            assert f"Hex{n}?" in screen_text(app)
            await typed_ahead(pilot, "<backspace>" * 5)
            assert editor.value == ""
    assert len(events_of(path)) == 5  # the five events of the harness's session: nothing added


async def test_the_pickers_dialogs_typed_ahead(tmp_path: Path) -> None:
    """On the picker, each dialog typed in one burst (the picker's sequences of
    ``typeahead.SEQUENCES``): c and a name over the suggested one, Enter — the copy;
    N, Tab, Space (rest), Tab, Space (Bruno), Enter — the next night, rested, with
    Bruno, open on the desk; back to the sessions, n, a name, Tab, ↓ (the next
    system), Enter — a new session in that system; back again, e, ↓ (the second
    example), Tab, Ctrl+U, a name, Enter — a copy of that example under the name."""
    from gmdesk.core.session import SessionStore
    from gmdesk.tui.screens.picker import default_examples_dir, list_examples

    path = harness_save(tmp_path, "4d2")
    examples = default_examples_dir()
    app = GmdeskApp(path.parent, examples_dir=examples, rng=random.Random(7))
    async with run(app, size=SMALL) as pilot:
        await settle(pilot)
        await typed_ahead(pilot, "cTwin<enter>N<tab> <tab> <enter>")
        await main_screen(pilot)
        assert app.session is not None and Path(app.session.path).name == "Twin 2.gmdesk"
        await typed_ahead(pilot, "<ctrl+p>another<enter>nTue<tab><down><enter>")
        await main_screen(pilot)
        await typed_ahead(pilot, "<ctrl+p>another<enter>e<down><tab><ctrl+u>Demo<enter>")
        await main_screen(pilot)
    sessions = {s.name: s for s in SessionStore(path.parent).list()}
    assert sorted(sessions) == ["Demo", "Table", "Tue", "Twin", "Twin 2"]
    assert events_of(Path(sessions["Twin"].path)) == events_of(path)  # the copy
    (carried,) = events_of(Path(sessions["Twin 2"].path))
    assert (carried["type"], carried["from"], carried["rest"]) == ("session.carried", "Twin", True)
    assert [c["name"] for c in carried["characters"]] == ["Kara", "Bruno", "Mira"]  # Bruno ticked with Space
    assert sessions["Tue"].system == "fudge"  # ↓ from 4d2, the highlighted session's system
    second = list_examples(SessionStore(path.parent), examples)[1]  # as the dialog lists them
    assert events_of(Path(sessions["Demo"].path)) == events_of(Path(second.path))


async def test_the_example_dialog_typed_ahead_while_the_lists_are_read_slowly(tmp_path: Path, monkeypatch: Any) -> None:
    """Back to the sessions and on into the example dialog in one burst while reading
    the save directory and the examples takes a while (a busy machine's disk): the keys
    wait for the lists, the dialog opens on the examples as listed, ↓ picks the second
    and the copy is named Demo — as typed slowly."""
    import time

    from gmdesk.core.session import SessionStore
    from gmdesk.tui.screens.picker import PickerScreen, default_examples_dir, list_examples

    listing = PickerScreen._list

    def slow_list(self: PickerScreen) -> Any:
        time.sleep(0.4)  # in the session runner's worker thread
        return listing(self)

    monkeypatch.setattr(PickerScreen, "_list", slow_list)
    path = harness_save(tmp_path, "4d2")
    examples = default_examples_dir()
    app = GmdeskApp(path.parent, examples_dir=examples, rng=random.Random(7))
    async with run(app, size=SMALL) as pilot:
        await settle(pilot)
        await typed_ahead(pilot, "<enter>")
        await main_screen(pilot)
        await typed_ahead(pilot, "<ctrl+p>another<enter>e<down><tab><ctrl+u>Demo<enter>")
        await main_screen(pilot)
    sessions = {s.name: s for s in SessionStore(path.parent).list()}
    assert sorted(sessions) == ["Demo", "Table"]
    second = list_examples(SessionStore(path.parent), examples)[1]
    assert events_of(Path(sessions["Demo"].path)) == events_of(Path(second.path))


#: the harness's two pane bursts: a condition added from "+ add condition", then a
#: second one from the row under it and the next turn, each ending with Shift+Tab
PANE_BURSTS = [s for s in SEQUENCES if s.name.startswith("pane: add a condition")]


def starved(monkeypatch: Any) -> None:
    """A machine so loaded (CI: a dozen programs on two cores) that gmdesk is kept off
    the CPU for seconds at a time: every look the type-ahead takes at the app comes
    after its soft limit, so time alone would let every key go on."""
    from gmdesk.tui import typeahead

    monkeypatch.setattr(typeahead, "SOFT_LIMIT", 0.0)


async def test_a_key_waits_for_the_one_before_however_slowly_the_machine_runs(monkeypatch: Any) -> None:
    """A widget whose key takes a while (Enter: a message to itself, which takes a
    tenth of a second, then moves the focus to a field) holds the next key until it
    is done, even when
    every look at it comes after the soft limit: the x typed after Enter is in the
    field, not lost on the widget Enter was typed on. (On CI a key behind Enter once
    went on while the Enter was still on its way, because seconds had passed between
    two looks at an app that had not had a turn.)"""
    import asyncio

    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.message import Message
    from textual.widgets import Input, Static

    from gmdesk.tui.typeahead import TypeAhead

    starved(monkeypatch)

    class Opener(Static, can_focus=True):
        BINDINGS = [Binding("enter", "open")]

        class Opening(Message):
            pass

        def action_open(self) -> None:
            self.post_message(self.Opening())

        async def on_opener_opening(self) -> None:
            await asyncio.sleep(0.1)
            self.screen.set_focus(self.screen.query_one(Input))

    class Typed(TypeAhead, App[None]):
        def compose(self) -> ComposeResult:
            yield Opener("Enter opens the field")
            yield Input()

        def on_mount(self) -> None:
            self.screen.set_focus(self.query_one(Opener))

    app = Typed()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await typed_ahead(pilot, "<enter>x")
        assert app.query_one(Input).value == "x"


@pytest.mark.parametrize("system", ["torg-2d10", "4d6"])
async def test_the_pane_bursts_typed_ahead_on_a_starved_machine(tmp_path: Path, monkeypatch: Any, system: str) -> None:
    """The type-ahead harness's pane bursts at 80×24 on a starved machine (see
    :func:`starved`), for each combatant in turn: Enter on "+ add condition", Blessed
    2, Enter, Shift+Tab; then the same on the row under it with Stunned 1, Enter, n,
    Shift+Tab. As typed slowly: each burst leaves the initiative list focused, both
    conditions are saved on the combatant whose turn it is, and n passes the turn to
    the next, whose pane the next bursts fill. (On CI the Shift+Tab once went to the
    editor before the session had the condition: the next Tab reached the roll log,
    Enter opened a roll's breakdown, "Stunned 1" was typed into it and lost, and only
    n did what it was typed for.)"""
    starved(monkeypatch)
    path, app = desk(tmp_path, system)
    names = ["Kara", "Bruno", "Mira"]
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        for _name in names:
            for burst in PANE_BURSTS:
                await typed_ahead(pilot, burst.for_system(system))
                assert screen.initiative.table.has_focus, burst.name
    ids = {name: character(path, name).id for name in names}
    added = [(e["id"], e["name"], e["rounds"]) for e in events_of(path) if e["type"] == "condition.add"]
    assert added == [(ids[n], c, r) for n in names for c, r in (("Blessed", 2), ("Stunned", 1))]
    made = [e["type"] for e in events_of(path)][5:]  # after the harness's session
    assert made == ["condition.add", "condition.add", "turn.next"] * 3
    # n ended each one's turn: Stunned (1 round) ran out, Blessed has a round left
    for name in names:
        assert [(c.name, c.rounds) for c in character(path, name).conditions] == [("Blessed", 1)]
    state = saved(path)
    assert state.characters[state.encounter.current.char_id].name == "Kara"  # round 2


@pytest.mark.parametrize(
    ("read", "keys"),
    [
        ("\x1bn", ["escape", "n"]),  # Escape closes a dialog, then the desk's key
        ("r\x1br\x1bn", ["r", "escape", "r", "escape", "n"]),  # never "^", "r"
        ("\x1b\x10", ["escape", "ctrl+p"]),  # Escape, then the palette
        ("ab\x1b\rc", ["a", "b", "escape", "enter", "c"]),
        ("\x1b\x1b", ["escape", "escape"]),
        ("\x1b", ["escape"]),
        ("\x1b[A\x1bOB", ["up", "down"]),  # sequences stay what they are
        ("\x1b[200~a b\x1b[201~\x1bn", ["Paste", "escape", "n"]),
        ("x\x1b[200~a|b c\x1b[201~\x1bn", ["x", "Paste", "escape", "n"]),  # a paste over two reads
        ("\x1b[<0;3;4M", ["MouseDown"]),
    ],
)
def test_escape_then_a_key_in_one_read_are_two_keys(read: str, keys: list[str]) -> None:
    """What the terminal sends in one read, as Textual's parser reads it after gmdesk
    has written each Escape that a key follows as the Escape key alone."""
    from textual._xterm_parser import XTermParser

    from gmdesk.tui.terminal import EscapeKeysApart

    parser, apart = XTermParser(), EscapeKeysApart()
    events = [e for part in read.split("|") for e in parser.feed(apart(part))] + [*parser.feed("")]
    assert [getattr(e, "key", type(e).__name__) for e in events] == keys


def test_the_terminal_is_made_raw_as_textual_makes_it() -> None:
    """The ``gmdesk`` command makes the terminal raw before Textual is loaded, with the
    attributes Textual's driver sets (so Textual changes nothing when it starts)."""
    import termios

    from textual.drivers.linux_driver import LinuxDriver

    from gmdesk.tui.rawmode import raw_attributes

    every = 0xFFFF
    cc = [b"\x00"] * 32
    cc[termios.VMIN] = 4
    attrs = [every, every, every, every, 38400, 38400, cc]
    raw = raw_attributes(attrs)
    assert raw[0] == LinuxDriver._patch_iflag(every)
    assert raw[3] == LinuxDriver._patch_lflag(every)
    assert raw[6][termios.VMIN] == 1
    assert raw[1:3] == [every, every] and attrs[6][termios.VMIN] == 4  # the rest kept, the original untouched


@pytest.mark.parametrize(
    ("cooked", "reads", "typed"),
    [
        (9, [b"\x1bnSunday\n"], b"\x1bnSunday\r"),  # Enter, as the terminal had cooked it
        (3, [b"n\n", b"a\n"], b"n\ra\n"),  # only what was cooked: then Ctrl+J stays Ctrl+J
        (0, [b"x\n"], b"x\n"),
    ],
)
def test_what_the_terminal_cooked_before_gmdesk_took_it_is_read_as_typed(
    cooked: int, reads: list[bytes], typed: bytes
) -> None:
    from gmdesk.tui.rawmode import Uncook

    uncook = Uncook(cooked)
    assert b"".join(uncook(r) for r in reads) == typed
