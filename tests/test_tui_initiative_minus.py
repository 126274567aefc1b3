"""The initiative dialog and its message at the desk (Pilot, 80×24) write a negative
number with the minus sign the rest of gmdesk uses ("−9", U+2212), as the pane does;
the save keeps the number itself."""

from __future__ import annotations

from helpers import SMALL, desk, dialog, make_save, notes, press, saved, screen_text, settle, until
from textual.widgets import Input

from gmdesk.core.dice import FixedDice
from gmdesk.tui.screens.confirm import FormDialog


async def test_the_initiative_dialog_and_message_write_the_minus_sign(tmp_path):
    path, ids = make_save(
        tmp_path,
        "4d6",
        [{"name": "Kara"}, {"name": "Cor", "side": "NPC", "fields": {"initiative_bonus": -9}}],
    )
    # 4d6 initiative: Kara 6 5 4 3 = 18; Cor 1 1 1 1 − 9 = −5
    async with desk(path, rng=FixedDice([6, 5, 4, 3, 1, 1, 1, 1]), size=SMALL) as (app, pilot, screen):
        await press(pilot, "i")
        form = await dialog(pilot, FormDialog)
        assert form.query_one("#form-m1", Input).value == "−9"  # Cor's modifier, prefilled
        assert "−9" in screen_text(app) and "-9" not in screen_text(app)
        await press(pilot, "enter")
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        await settle(pilot)
        said = [n for n in notes(app) if n.startswith("Initiative:")]
        assert said == ["Initiative: Kara 18, Cor −5"], notes(app)
        rows = [line[:40] for line in screen_text(app).splitlines()]
        assert any("−5 Cor" in r for r in rows), rows  # the pane, the same sign
    state = saved(path)
    assert [(x.char_id, x.initiative) for x in state.encounter.order] == [(ids["Kara"], 18), (ids["Cor"], -5)]
