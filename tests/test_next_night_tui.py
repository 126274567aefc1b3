"""The picker's "Next night from…", driven with Pilot at 80×24 in the real app: the
party of the highlighted session carried over, rested or not, with the NPCs the GM
ticks; the last night only read, while another desk holds it."""

from __future__ import annotations

import random

from helpers import palette, run, screen_text, until
from test_next_night import files, night_one, state_of

from gmdesk.core.session import Session
from gmdesk.tui.app import GmdeskApp
from gmdesk.tui.screens.main import MainScreen
from gmdesk.tui.screens.picker import NextNightDialog, PickerScreen

SIZE = (80, 24)


def app_for(tmp_path) -> GmdeskApp:
    (tmp_path / "no-examples").mkdir(exist_ok=True)
    return GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "no-examples", rng=random.Random(7))


async def picker_ready(pilot) -> PickerScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, PickerScreen) and pilot.app.screen.loaded)
    return pilot.app.screen


async def test_next_night_with_a_rest_and_an_npc_while_another_desk_holds_the_last_one(tmp_path):
    saves = tmp_path / "saves"
    src = night_one(saves, "4d6")
    app = app_for(tmp_path)
    with Session.open(src) as writer:  # the last night is still open at another desk
        before = files(saves, "Night 1")
        async with run(app, size=SIZE) as pilot:
            await picker_ready(pilot)
            await pilot.press("N")
            await until(pilot, lambda: isinstance(app.screen, NextNightDialog))
            text = screen_text(app)
            assert "Next night from Night 1" in text and "Carries Kara, Tam" in text
            assert "Night 2" in text and "Gospog" in text and "Bystander" in text
            await pilot.press("tab", "space")  # rest first
            await pilot.press("tab", "space")  # take Gospog along (the first NPC)
            await pilot.press("tab", "enter")  # Start the night
            await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Night 2" in screen_text(app))
            text = screen_text(app)
            assert "Kara" in text and "Gospog" in text and "Bystander" not in text
        assert files(saves, "Night 1") == before
        writer.apply({"type": "note", "text": "the other desk still writes"})
    new, events, header = state_of(saves / "Night 2.gmdesk")
    assert [(c.name, c.side) for c in new.characters.values()] == [("Kara", "PC"), ("Tam", "PC"), ("Gospog", "NPC")]
    kara = next(iter(new.characters.values()))
    assert kara.wounds == [] and "Dazed" not in [x.name for x in kara.conditions]
    assert header["carried_from"] == {"name": "Night 1", "path": str(src), "rest": True}
    assert events[0].type == "session.carried" and "after a rest" in events[0].summary


async def test_next_night_from_the_palette_as_they_stood_and_a_taken_name_is_refused(tmp_path):
    saves = tmp_path / "saves"
    night_one(saves, "fudge")
    night_one(saves, "fudge", name="Night 2")
    app = app_for(tmp_path)
    async with run(app, size=SIZE) as pilot:
        pk = await picker_ready(pilot)
        # the highlighted row is the latest played: Night 2; go to Night 1
        await until(pilot, lambda: pk.selected_summary() is not None)
        if pk.selected_summary().name != "Night 1":
            await pilot.press("down")
        assert pk.selected_summary().name == "Night 1"
        await palette(pilot, "Next night from")
        await until(pilot, lambda: isinstance(app.screen, NextNightDialog))
        assert "Night 3" in screen_text(app)  # Night 2 is taken: the next free number
        await pilot.press("ctrl+u", *"night 2")
        await until(pilot, lambda: "already exists" in screen_text(app))
        await pilot.press("enter")  # refused: the dialog stays
        assert isinstance(app.screen, NextNightDialog)
        await pilot.press("ctrl+u", *"Night 3", "enter")
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Night 3" in screen_text(app))
    new, events, header = state_of(saves / "Night 3.gmdesk")
    assert [c.name for c in new.characters.values()] == ["Kara", "Tam"]
    kara = next(iter(new.characters.values()))
    assert kara.wounds and {x.name: x.rounds for x in kara.conditions}["Dazed"] == 2
    assert header["carried_from"]["rest"] is False and "as they stood" in events[0].summary


async def test_a_damaged_session_has_no_next_night(tmp_path):
    saves = tmp_path / "saves"
    saves.mkdir()
    (saves / "broken.gmdesk").write_text("{not json at all", encoding="utf-8")
    app = app_for(tmp_path)
    async with run(app, size=SIZE) as pilot:
        pk = await picker_ready(pilot)
        await pilot.press("question_mark")  # the help lists the key
        await until(pilot, lambda: "next night from the highlighted session" in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("N")
        await until(pilot, lambda: "no next night" in pk.status_text)
        assert isinstance(app.screen, PickerScreen)
    assert sorted(p.name for p in saves.iterdir()) == ["broken.gmdesk"]


async def test_in_the_next_night_dialog_space_ticks_and_enter_starts_from_every_field(tmp_path):
    """Issue 18: Enter on the rest box or in the list of NPCs starts the night (as the
    hint says) and never ticks a box; Space ticks; Tab leaves the list."""
    saves = tmp_path / "saves"
    night_one(saves, "4d6")
    app = app_for(tmp_path)
    async with run(app, size=SIZE) as pilot:
        await picker_ready(pilot)
        await pilot.press("N")
        await until(pilot, lambda: isinstance(app.screen, NextNightDialog))
        dlg = app.screen
        assert "Enter start · Space tick" in screen_text(app)
        await pilot.press("tab", "space")  # rest first: ticked
        assert dlg.query_one("#next-rest").value is True
        await pilot.press("tab", "down", "space")  # the list: the second NPC (Bystander) ticked
        assert dlg.chosen_npcs() == ["Bystander"]
        await pilot.press("enter")  # starts, ticks nothing more
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Night 2" in screen_text(app))
    new, events, header = state_of(saves / "Night 2.gmdesk")
    assert [c.name for c in new.characters.values()] == ["Kara", "Tam", "Bystander"]
    assert header["carried_from"]["rest"] is True


async def test_enter_on_the_rest_box_starts_the_night_without_ticking_it(tmp_path):
    saves = tmp_path / "saves"
    night_one(saves, "fudge")
    app = app_for(tmp_path)
    async with run(app, size=SIZE) as pilot:
        await picker_ready(pilot)
        await pilot.press("N")
        await until(pilot, lambda: isinstance(app.screen, NextNightDialog))
        await pilot.press("tab", "enter")
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Night 2" in screen_text(app))
    _new, _events, header = state_of(saves / "Night 2.gmdesk")
    assert header["carried_from"]["rest"] is False
