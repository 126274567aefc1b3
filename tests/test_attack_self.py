"""Nobody attacks themself: a combat roll whose target is its roller is refused, in
one rule (core ``roll_refusal``) that the session, the CLI and the desk's Attack
dialog share. A heal is no attack: a 1d6x4 healer still heals itself."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import SMALL, dialog, files_of, gmdesk_run, main_screen, make_app, make_save, on_top, press, run

from gmdesk.core.session import EventError, Session
from gmdesk.tui.screens.roll import RollDialog
from gmdesk.tui.widgets.form import Choice

pytestmark = pytest.mark.usefixtures("quick_odds")


@pytest.fixture
def fight(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    return make_save(
        tmp_path,
        "fudge",
        [{"name": "Kara"}, {"name": "Bruno", "side": "NPC"}],
        initiative={"Bruno": 10, "Kara": 8},
        start=True,
    )


def test_the_cli_refuses_an_attack_on_oneself_in_one_line(fight) -> None:
    path, _ = fight
    before = {name: data for name, (data, _) in files_of(path.parent).items()}
    done = gmdesk_run(
        "--saves", str(path.parent), "roll", "fudge", "--save", "Table", "--as", "Bruno", "--at", "Bruno", "--combat"
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "gmdesk: roll: Bruno cannot attack Bruno\n")
    assert {name: data for name, (data, _) in files_of(path.parent).items()} == before
    # a roll that is no attack is not refused
    done = gmdesk_run("--saves", str(path.parent), "roll", "fudge", "--save", "Table", "--as", "Bruno", "--at", "Bruno")
    assert done.returncode == 0, done.stderr


def test_the_session_refuses_it_before_any_die_is_rolled(fight) -> None:
    """(A healer healing itself stays allowed: tests/test_log_texts.py heals Bruno by Bruno.)"""
    path, ids = fight
    with Session.open(path) as s:
        n = len(s.state.rolls)
        with pytest.raises(EventError, match="^roll: Bruno cannot attack Bruno$"):
            s.roll("fudge", {}, actor=ids["Bruno"], target=ids["Bruno"], combat=True, rng=random.Random(1))
        assert len(s.state.rolls) == n


async def test_the_attack_dialog_never_aims_a_roller_at_itself(fight) -> None:
    path, ids = fight
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "a")
        dlg = await dialog(pilot, RollDialog)
        assert (dlg.actor, dlg.target) == (ids["Bruno"], ids["Kara"])
        assert "Bruno" not in dlg.query_one("#rd-target", Choice).labels
        # Kara made the roller: the target moves off her (she is no longer offered)
        dlg.query_one("#rd-actor", Choice).value = ids["Kara"]
        await pilot.pause()
        assert dlg.target == ids["Bruno"] and "Kara" not in dlg.query_one("#rd-target", Choice).labels
        # and a form that aims the roller at itself all the same is refused at its Target
        dlg.target = ids["Kara"]
        await press(pilot, "enter")
        assert str(dlg.query_one("#rd-error").render()) == "✗ Target: Kara cannot attack Kara"
        assert on_top(app, RollDialog) and not app.session.state.rolls
    with Session.open(path, readonly=True) as s:
        assert not s.state.rolls
