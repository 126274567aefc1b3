"""Round and turn automation on the desk (Pilot, 80×24): a condition typed as "until
the start of Gospog's next turn" ends there as the GM presses Next, and with "Reroll
initiative every round" switched on in the session settings a new round rolls the
order again, each roll in the log and in the save."""

from __future__ import annotations

from helpers import (
    SMALL,
    burst,
    dialog,
    main_screen,
    make_app,
    make_save,
    notes,
    palette,
    press,
    run,
    saved,
    screen_text,
    settle,
    until,
)
from textual.widgets import Checkbox

from gmdesk.core.dice import FixedDice
from gmdesk.tui.screens.settings import SettingsDialog
from gmdesk.tui.widgets.character import CharacterTable
from gmdesk.tui.widgets.initiative import InitiativePane


async def test_a_condition_until_a_named_characters_turn_typed_in_the_pane(tmp_path):
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Gospog", "side": "NPC"}, {"name": "Quinn"}],
        initiative={"Kara": 14, "Gospog": 9, "Quinn": 5},
        start=True,
    )
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        screen.selected = ids["Kara"]
        screen.refresh_view()
        await settle(pilot)
        pane = screen.character
        table = pane.query_one(CharacterTable)
        table.focus()
        table.move_cursor(row=[(r.kind, r.key) for r in pane.row_kinds].index(("add", "condition")))
        await press(pilot, "enter")  # Enter on "+ add condition" opens the editor
        await burst(pilot, "Dodging until the start of gospog's next turn")
        await press(pilot, "enter")
        await until(pilot, lambda: saved(path).characters[ids["Kara"]].conditions)
        (cond,) = saved(path).characters[ids["Kara"]].conditions
        assert (cond.name, cond.until) == ("Dodging", (ids["Gospog"], "start"))
        await settle(pilot)
        assert "until Gospog's turn" in screen_text(app)
        # a name that is not in the session is said in words, nothing is saved
        table.move_cursor(row=[(r.kind, r.key) for r in pane.row_kinds].index(("add", "condition")))
        await press(pilot, "enter")
        await burst(pilot, "Aiming until the end of Bob's turn")
        await press(pilot, "enter")
        await settle(pilot)
        assert "✗ condition: no character named 'Bob'" in str(pane.query_one("#character-message").render())
        await press(pilot, "escape")
        screen.query_one(InitiativePane).table.focus()
        await press(pilot, "n")  # Kara's turn ends, Gospog's starts: the dodge is over
        await until(pilot, lambda: not saved(path).characters[ids["Kara"]].conditions)
        await settle(pilot)
        assert any("Kara: Dodging ends" in n for n in notes(app))
    assert [x.name for x in saved(path).characters[ids["Kara"]].conditions] == []


async def test_reroll_initiative_every_round_from_the_settings(tmp_path):
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Gospog", "side": "NPC"}],
        initiative={"Kara": 14, "Gospog": 9},
        start=True,
    )
    app = make_app(path, rng=FixedDice([6, 6, 6, 5, 1, 2, 1, 1]))  # the desk's dice (GMDESK_SEED's too)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await palette(pilot, "Session settings")
        dlg = await dialog(pilot, SettingsDialog)
        box = dlg.query_one("#setting-reroll_initiative", Checkbox)
        assert box.value is False
        box.focus()
        await press(pilot, "space", "enter")
        await until(pilot, lambda: saved(path).info.settings.get("reroll_initiative") is True)
        await settle(pilot)
        await press(pilot, "R")  # a new round
        await until(pilot, lambda: saved(path).encounter.round == 2)
        await settle(pilot)
        assert any("initiative rolled again" in n for n in notes(app))
        text = screen_text(app)
        assert "R2 Kara: 4d6" in text and "R2 Gospog: 4d6" in text  # each roll in the log, dice and all
    state = saved(path)
    rolls = [r for r in state.rolls if r.kind == "initiative" and r.round == 2]
    assert sorted(r.actor_name for r in rolls) == ["Gospog", "Kara"]
    assert sorted(x.initiative for x in state.encounter.order) == sorted(r.record.value for r in rolls) == [5, 23]
