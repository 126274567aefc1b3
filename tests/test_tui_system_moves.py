"""A system's moves are declared in its module: the desk binds their keys (binding ids
``main.<move id>``), lists them in the command palette and runs them — for a system
it has never heard of as for the built-ins."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
from helpers import SMALL, dialog, main_screen, make_app, make_save, notes, palette, press, run, saved
from textual.widgets import Input

from gmdesk.core.dice import Die, FixedDice, RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.odds import Odds
from gmdesk.core.session import EventError, Session
from gmdesk.core.systems.spec import Move, MoveField, Param
from gmdesk.tui.app import binding_classes
from gmdesk.tui.keymap import binding_ids, check_keymap, with_current_keys
from gmdesk.tui.screens.confirm import FormDialog
from gmdesk.tui.screens.help import HelpScreen

# ------------------------------------------------------------------ a plug-in-like system


def _roll(params: Any, rng: Any, tables: Any = None) -> RollRecord:
    faces = [rng.randint(1, 6) for _ in range(params.dice)]
    return RollRecord("tally", {"dice": params.dice}, [Die(f, "die", 6) for f in faces], sum(faces), "Tally")


def _odds(params: Any, tables: Any = None) -> Odds:
    from fractions import Fraction

    return Odds.from_dist("tally", {"dice": params.dice}, {n: Fraction(1, 6) for n in range(1, 7)}, [])


def _initiative(rng: Any, modifier: int = 0) -> RollRecord:
    face = rng.randint(1, 6)
    return RollRecord("tally", {}, [Die(face, "die", 6)], face + modifier, "Initiative")


def _tally_form(state: Any, context: Any) -> list[MoveField]:
    if context.get("selected") is None:
        raise GmdeskError("Select who tallies.")
    return [MoveField("amount", "Amount", "int", 2, lo=1, hi=9), MoveField("why", "Why", "text", "")]


def _tally_run(session: Any, values: Any, context: Any, rng: Any) -> Any:
    if values["amount"] > 5:
        raise GmdeskError("a tally goes up to 5 at a time")
    who = session.state.characters[context["selected"]].name
    return session.apply({"type": "note", "text": f"{who} tallies {values['amount']} ({values.get('why') or '—'})"})


def fake_system() -> types.ModuleType:
    module = types.ModuleType("gmdesk_tally_test")
    module.ID = "tally"
    module.NAME = "Tally"
    module.PARAMS = (Param("dice", "Dice", "int", 1, "how many d6", lo=1, hi=5),)
    module.roll = _roll
    module.odds = _odds
    module.initiative = _initiative
    module.MOVES = (
        Move(
            "tally",
            "Tally up",
            "count a few more",
            key="T",
            verb="tally",
            form=_tally_form,
            run=_tally_run,
            said=lambda state, event: f"Tallied: {event.data['text']}",
        ),
        Move("marked", "Toggle Marked", "a condition", kind="condition", condition="Marked"),
        Move("big", "Big roll", "five dice", key="B", kind="preset", preset={"dice": 5}),
    )
    return module


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The fake system registered as if installed under the gmdesk.systems entry points."""
    import gmdesk.core.systems as registry
    from gmdesk.tui.screens.main import desk_class

    module = fake_system()
    monkeypatch.setitem(sys.modules, module.__name__, module)
    found = {**registry.BUILTIN_MODULES, "tally": module.__name__}
    monkeypatch.setattr(registry, "_plugins", lambda: (found, (), {}))
    monkeypatch.setattr(registry, "SYSTEM_IDS", tuple(found))
    desk_class.cache_clear()
    yield module
    registry._load.cache_clear()
    desk_class.cache_clear()


async def test_a_plugin_systems_moves_are_bound_listed_and_run(tmp_path: Path, tally: Any) -> None:
    path, ids = make_save(tmp_path, "tally", [{"name": "Kara"}])
    assert "main.tally" in binding_ids(binding_classes()) and "main.big" in binding_ids(binding_classes())
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        titles = {t: h for t, h, _ in screen.commands()}
        assert "count a few more (T)" == titles["Tally up…"]
        assert "Toggle Marked" in titles and "Big roll…" in titles
        # the help lists the move's key
        await press(pilot, "question_mark")
        help_screen = await dialog(pilot, HelpScreen)
        assert {what: key for key, what in help_screen.keys}["Tally up: count a few more"] == "T"
        await press(pilot, "escape")
        # its key opens its form; a refusal of its rules shows in the form, which stays
        await press(pilot, "T")
        form = await dialog(pilot, FormDialog)
        assert form.query_one("#form-amount", Input).value == "2"
        form.query_one("#form-amount", Input).value = "7"
        await press(pilot, "enter")
        await pilot.pause()
        assert app.screen is form
        assert "a tally goes up to 5 at a time" in str(form.query_one("#dialog-error").render())
        form.query_one("#form-amount", Input).value = "x"
        await press(pilot, "enter")
        await pilot.pause()
        assert "Amount: must be a whole number" in str(form.query_one("#dialog-error").render())
        form.query_one("#form-amount", Input).value = "3"
        form.query_one("#form-why", Input).value = "coins"
        await press(pilot, "enter")
        await pilot.pause()
        await main_screen(pilot)
        assert "Tallied: Kara tallies 3 (coins)" in notes(app)[-1]
        # the palette runs its condition move
        await palette(pilot, "Toggle Marked")
        assert "Kara is Marked" in notes(app)[-1]
    state = saved(path)
    assert [n.text for n in state.notes] == ["Kara tallies 3 (coins)"]
    assert [c.name for c in state.characters[ids["Kara"]].conditions] == ["Marked"]


async def test_a_plugin_moves_key_follows_the_keymap(tmp_path: Path, tally: Any) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"main.tally" = "ctrl+t"\n')
    path, _ = make_save(tmp_path, "tally", [{"name": "Kara"}])
    app = make_app(path, keymap_file=keymap)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        assert not [n for n in notes(app) if "keymap" in n]
        await press(pilot, "T")
        await pilot.pause()
        assert not isinstance(app.screen, FormDialog)
        await press(pilot, "ctrl+t")
        await dialog(pilot, FormDialog)
        await press(pilot, "escape")
        # the palette shows the key the keymap gives it
        title, help_text, callback = next(c for c in screen.commands() if c[0] == "Tally up…")
        assert with_current_keys([screen, app], help_text, callback) == "count a few more (Ctrl+T)"


def test_a_move_key_clashing_with_a_desk_key_is_left_out_of_the_keymap(tally: Any) -> None:
    good, problems = check_keymap({"main.tally": "r"}, binding_classes())
    assert good == {} and "'r' is bound twice" in problems[0]


def test_the_session_makes_a_declared_move_and_refuses_in_one_line(tmp_path: Path, tally: Any) -> None:
    path, ids = make_save(tmp_path, "tally", [{"name": "Kara"}])
    with Session.open(path) as s:
        context = {"selected": ids["Kara"]}
        assert [f.name for f in s.move_form("tally", context)] == ["amount", "why"]
        event = s.move("tally", {"amount": "4"}, context, FixedDice([]))
        assert s.said("tally", event) == "Tallied: Kara tallies 4 (—)"
        with pytest.raises(EventError, match="^a tally goes up to 5 at a time$"):
            s.move("tally", {"amount": 6}, context)
        with pytest.raises(EventError, match="Select who tallies"):
            s.move_form("tally", {})
        with pytest.raises(EventError, match="Tally has no move 'heal'"):
            s.move("heal", {})
        with pytest.raises(EventError, match="no session move"):
            s.move("big", {})


# ------------------------------------------------------------------ the built-in systems

BUILTIN_KEYS = {
    "torg-2d10": {"main.spend_possibility": "P", "main.cancel_possibility": "C", "main.opposed": "o"},
    "1d6x4": {"main.heal": "h", "main.opposed": "o"},
    "4d6": {"main.clock_add": "K", "main.clock_tick": "k", "main.opposed": "o"},
    "4d2": {"main.opposed": "o"},
    "fudge": {"main.opposed": "o"},
}


@pytest.mark.parametrize("system", sorted(BUILTIN_KEYS))
async def test_each_system_binds_its_own_moves_keys_only(tmp_path: Path, system: str) -> None:
    from gmdesk.core.systems import get_spec

    path, _ = make_save(tmp_path, system, [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        bound = {
            a.binding.id: a.binding.key
            for a in screen.active_bindings.values()
            if a.node is screen and (a.binding.id or "").startswith("main.")
        }
        moves = {m.binding_id: m.key for m in get_spec(system).moves if m.key}
        assert moves == BUILTIN_KEYS[system]
        assert {k: v for k, v in bound.items() if k in binding_ids(binding_classes()) and k in moves} == moves
        # no other system's move key is bound here
        others = {i for keys in BUILTIN_KEYS.values() for i in keys} - set(moves)
        assert not others & set(bound)
        titles = [t for t, _, _ in screen.commands()]
        for move in get_spec(system).moves:
            assert any(t.rstrip("…") == move.title for t in titles)


@pytest.mark.parametrize(("system", "buyoff", "use"), [("torg-2d10", True, False), ("1d6x4", False, True)])
async def test_the_help_lists_the_pane_keys_the_system_uses(
    tmp_path: Path, system: str, buyoff: bool, use: bool
) -> None:
    path, _ = make_save(tmp_path, system, [{"name": "Kara"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "question_mark")
        help_screen = await dialog(pilot, HelpScreen)
        keys = dict(help_screen.panes)
        assert ("b" in keys) is buyoff and ("s" in keys) is use
        assert "enter / e" in keys


def test_what_the_roll_dialog_offers_again_is_declared() -> None:
    """Issue 18: only what a system declares remembered (``Param.remember``, off by
    default) carries to the next roll: what describes the roller, never a one-off."""
    from gmdesk.core.systems import get_spec

    remembered = {system: {p.name for p in get_spec(system).params if p.remember} for system in BUILTIN_KEYS}
    assert remembered == {
        "4d2": set(),
        "fudge": {"trait", "offense"},
        "1d6x4": {"test", "bonus", "damage"},
        "torg-2d10": {"skill"},
        "4d6": {"bonus"},
    }
