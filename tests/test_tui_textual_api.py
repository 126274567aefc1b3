"""gmdesk on Textual's public API, and the one gap it works around (tui/bindings.py).

* :func:`tui.bindings.class_bindings` reads the bindings Textual merged for a class
  (there is no public accessor): these tests fail loudly if a Textual upgrade
  changes what that private attribute holds, or what Textual binds.
* The keymap gmdesk reads (:class:`tui.bindings.KeepsKeymap`) is the one Textual
  applies; key names are spelled as Textual spells them.
* The key bar's words for Enter come through the public ``Screen.active_bindings``
  (the Footer's source), never through a node's own bindings.
* The roll log follows the newest roll with Textual's public ``anchor()``, and stays
  where the GM reads back.
* A dropdown steps through the values it was given (``Select`` keeps its options
  private; gmdesk's keeps its own copy from the public constructor and
  ``set_options``).
"""

from __future__ import annotations

import string
from pathlib import Path

import textual
from helpers import desk, make_save, press, run, settle
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingsMap
from textual.widgets import Button, Checkbox, Footer, Input, Static

from gmdesk.core.session import Session
from gmdesk.tui.app import binding_classes
from gmdesk.tui.bindings import character_key, class_bindings, key_names, keymap_of, node_bindings
from gmdesk.tui.screens.dialog import DialogKeys
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.controls import EnterCheckbox, ReadableSelectionList, StepSelect
from gmdesk.tui.widgets.rolllog import RollLog


def pairs(bindings: BindingsMap) -> list[tuple[str, str, str | None]]:
    return [(key, b.action, b.id) for key, b in bindings]


def test_textual_is_the_version_gmdesk_was_checked_against() -> None:
    """tui/bindings.py reads a private attribute of Textual 8.2 (pyproject pins
    >=8.2,<8.3): a new minor version must pass these tests before the pin moves."""
    assert textual.__version__.startswith("8.2."), textual.__version__


def test_class_bindings_are_what_textual_gives_every_node_of_the_class() -> None:
    """What :func:`class_bindings` reads is what each new node of the class starts
    with: gmdesk's classes and Textual's (``Static`` is declared
    ``inherit_bindings=False``)."""
    nodes = [EnterCheckbox("x"), Checkbox("x"), Button("x"), Input(), Static(), ReadableSelectionList(), RollLog()]
    for node in nodes:
        assert pairs(class_bindings(type(node))) == pairs(node._bindings), node  # (the guard: a private read)
    for cls in binding_classes():
        assert isinstance(class_bindings(cls), BindingsMap)
        assert pairs(class_bindings(cls)), cls  # every class the keymap covers binds keys


def test_inherit_bindings_false_stops_at_the_class() -> None:
    """A class declared ``inherit_bindings=False`` binds only its own keys: Enter on
    a box of gmdesk's is the dialog's, never the checkbox's (as Textual's own)."""
    assert "enter" in dict((k, a) for k, a, _ in pairs(class_bindings(Checkbox)))
    mine = pairs(class_bindings(EnterCheckbox))
    assert [k for k, _, _ in mine] == ["space", "down", "up"]
    assert "enter" not in [k for k, _, _ in pairs(class_bindings(ReadableSelectionList))]
    assert pairs(class_bindings(Static)) == []


async def test_the_focused_nodes_bindings_are_those_textual_acts_on() -> None:
    """Textual's public ``active_bindings`` of a focused box are exactly the box's
    :func:`node_bindings`, the keymap applied (so the hint names the keys that act)."""

    class Box(App[None]):
        def compose(self) -> ComposeResult:
            yield EnterCheckbox("Kara")

    app = Box()
    async with run(app) as pilot:
        box = app.query_one(EnterCheckbox)
        box.focus()
        await pilot.pause()
        active = {k: a.binding.action for k, a in app.screen.active_bindings.items() if a.node is box}
        assert active == {k: b.action for k, b in node_bindings(box)}
        assert keymap_of(app) == {}  # an app that keeps no keymap: the default keys


async def test_the_keymap_gmdesk_reads_is_the_one_textual_applies(tmp_path: Path) -> None:
    """``App.set_keymap`` moves a key; what gmdesk reads (:func:`keymap_of`) moves it
    the same way, with Textual's spelling of the keys ("?" → "question_mark")."""
    path, _ = make_save(tmp_path, characters=[{"name": "Kara"}])
    async with desk(path) as (app, pilot, screen):
        app.set_keymap({"main.next_turn": "j,?", "app.help": "f1"})
        await settle(pilot)
        assert keymap_of(app) == {"main.next_turn": "j,question_mark", "app.help": "f1"}
        active = screen.active_bindings
        assert active["j"].binding.id == active["question_mark"].binding.id == "main.next_turn"
        assert active["f1"].binding.id == "app.help" and "n" not in active
        app.update_keymap({"app.help": "f2"})
        assert keymap_of(app)["app.help"] == "f2" and keymap_of(app)["main.next_turn"] == "j,question_mark"
        await settle(pilot)
        assert screen.active_bindings["f2"].binding.id == "app.help"


def test_key_names_are_spelled_as_textual_spells_the_keys_it_binds() -> None:
    """Every printable character is named as Textual's own bindings name it (the
    private ``textual.keys._character_to_key`` is the reference, read here only)."""
    from textual.keys import _character_to_key

    for c in string.printable:
        if c.isprintable():
            assert character_key(c) == _character_to_key(c), c
    assert key_names("?, ctrl+r ,R") == "question_mark,ctrl+r,R"
    assert [b.key for b in Binding.make_bindings([Binding(key_names("space,+"), "x")])] == ["space", "plus"]


async def test_the_key_bar_words_come_through_active_bindings_and_leave_the_nodes_alone(tmp_path: Path) -> None:
    """Under the roll dialog the key bar says "⏎ Roll": the word is in the bindings
    the screen says are active (what Textual's Footer shows), while the dialog's
    own bindings, shared by every dialog of its class, keep "Accept"."""
    path, _ = make_save(tmp_path, characters=[{"name": "Kara"}])
    async with desk(path) as (app, pilot, screen):
        await press(pilot, "r")
        dlg = screen.query_one(RollDialog)
        assert isinstance(dlg, DialogKeys) and dlg.is_open
        await settle(pilot)
        enter = screen.active_bindings["enter"]
        assert enter.node is dlg and enter.binding.description == "Roll"
        assert [b.description for _, b in class_bindings(RollDialog) if b.action == "submit"] == ["Accept", "Accept"]
        assert [b.description for b in dlg._bindings.get_bindings_for_key("enter")] == ["Accept"]  # (untouched)
        footer = screen.query_one(Footer)
        assert footer.display
        await press(pilot, "escape")
        await settle(pilot)
        assert "enter" not in screen.active_bindings or screen.active_bindings["enter"].node is not dlg


async def test_the_log_follows_the_newest_roll_and_stays_where_the_gm_reads_back(tmp_path: Path) -> None:
    """Anchored (Textual's ``anchor()``), the log shows the newest roll as it opens and
    as rolls come; moved back, a new roll leaves it where the GM reads; back on the
    newest, it follows again."""
    path, ids = make_save(tmp_path, characters=[{"name": "Kara"}])
    from gmdesk.core.dice import FixedDice
    from gmdesk.core.systems import get_system

    four_d_two = get_system("4d2")
    with Session.open(path) as s:
        for _ in range(40):
            s.roll("4d2", four_d_two.Params(), actor=ids["Kara"], rng=FixedDice([1, 2, 1, 2]))
    async with desk(path, rng=FixedDice([2, 2, 2, 2] * 10)) as (app, pilot, screen):
        log: RollLog = screen.rolllog
        assert log.is_anchored
        assert log.visible_lines()[-1].startswith("#41 ")
        log.focus()
        await press(pilot, "pageup", "pageup")
        top = log.scroll_offset.y
        shown = log.visible_lines()
        assert not shown[-1].startswith("#41 ")
        await press(pilot, "r", "enter")
        await settle(pilot)
        assert log.count == 41 and log.scroll_offset.y == top and log.visible_lines() == shown
        log.focus()
        await press(pilot, "end")
        await press(pilot, "r", "enter")
        await settle(pilot)
        assert log.visible_lines()[-1].startswith("#43 ")


async def test_a_dropdown_steps_through_the_values_it_holds_now() -> None:
    """←/→ step a dropdown through its values in place, those of its latest
    ``set_options`` (Select keeps its options private: the dropdown keeps its own)."""

    class Form(App[None]):
        def compose(self) -> ComposeResult:
            yield StepSelect([("Kara", "k"), ("Bruno", "b")], value="k", allow_blank=False)

    app = Form()
    async with run(app) as pilot:
        select = app.query_one(StepSelect)
        select.focus()
        await press(pilot, "right")
        assert select.value == "b"
        select.set_options([("Zed", "z"), ("Ash", "a"), ("Mira", "m")])
        select.value = "z"
        await press(pilot, "right", "right", "right")
        assert select.value == "m"  # the last one stays
        await press(pilot, "left")
        assert select.value == "a"
