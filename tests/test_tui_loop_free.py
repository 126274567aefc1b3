"""The desk's event loop stays free while a long session is opened and played.

* A long session's packed roll history is never unpacked on the event loop to open
  the desk, to show a roll just made or to take one back: the roll log indexes its
  entries without looking at them, and the roll just made is found among the newest.
* The records of the rolls the log draws first are read in the session runner while
  the session opens: drawing the desk never reads the save (the event loop never
  waits on the disk).
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from helpers import desk, notes, press, settle

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.core.session.model import LazyRecord, rolllog
from gmdesk.core.session.model.rolllog import RollLog as PackedRolls
from gmdesk.core.systems import get_system
from gmdesk.tui.widgets.rolllog import RollLog

FOUR_D_TWO = get_system("4d2")


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rolllog, "PAGE", 40)
    monkeypatch.setattr("gmdesk.core.session.session.PAGE", 40)
    monkeypatch.setattr(Session, "RECORDS_KEPT", 30)  # (more than the log's window shows at 80×24)
    monkeypatch.setattr(Session, "UNDO_KEPT", 10)


@pytest.fixture
def long_save(tmp_path: Path, small_pages: None) -> Path:
    """A session of 300 rolls, most of them packed (pages of 40), closed with its checkpoint."""
    # (as in a real session, the newest rolls the session keeps as objects fill the log's window)
    path = tmp_path / "long.gmdesk"
    rng = FixedDice([5, 5, 1, 1, 2, 2, 1, 5] * 200)
    with Session.create(path, "Long night", "4d2") as s:
        kara = s.apply({"type": "character.add", "character": {"name": "Kara", "vitality": 10}}).data["id"]
        for _ in range(300):
            s.roll("4d2", FOUR_D_TWO.Params(), actor=kara, rng=rng)
    return path


@pytest.fixture
def unpacked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The threads a page of packed rolls is unpacked on (by name)."""
    seen: list[str] = []
    page = PackedRolls._page

    def spy(self: PackedRolls, p: int) -> list:
        if self._open is None or self._open[0] != p:
            seen.append(threading.current_thread().name)
        return page(self, p)

    monkeypatch.setattr(PackedRolls, "_page", spy)
    return seen


@pytest.fixture
def records_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The threads a roll's record is read from the save on (by name)."""
    seen: list[str] = []
    load = LazyRecord.load

    def spy(self: LazyRecord):  # type: ignore[no-untyped-def]
        seen.append(threading.current_thread().name)
        return load(self)

    monkeypatch.setattr(LazyRecord, "load", spy)
    return seen


LOOP = threading.main_thread().name  # Pilot runs the app's event loop on the test's thread


async def test_opening_a_long_session_unpacks_nothing_on_the_event_loop(long_save, unpacked, records_read):
    async with desk(long_save) as (app, pilot, screen):
        log = screen.query_one(RollLog)
        assert isinstance(screen.state.rolls, PackedRolls) and screen.state.rolls.packed_count >= 200
        assert log.count == 300
        assert log.visible_lines()[-1].startswith("#301 Kara: 4d2")  # the newest roll shows
        assert LOOP not in unpacked
        assert records_read and LOOP not in records_read  # read as it opened, in the runner


async def test_a_roll_and_its_undo_unpack_nothing_on_the_event_loop(long_save, unpacked, records_read):
    async with desk(long_save, rng=FixedDice([2, 2, 2, 2] * 10)) as (app, pilot, screen):
        await press(pilot, "r")
        await press(pilot, "enter")
        await settle(pilot)
        log = screen.query_one(RollLog)
        assert log.count == 301 and log.visible_lines()[-1].startswith("#302 Kara: 4d2")
        assert any("Kara" in note for note in notes(app))  # what it did is said
        await press(pilot, "u")
        assert log.count == 300 and log.visible_lines()[-1].startswith("#301 Kara: 4d2")
        assert LOOP not in unpacked
        assert LOOP not in records_read


async def test_switching_sessions_lets_the_closed_one_go_and_never_freezes_a_session(long_save, tmp_path):
    """The app keeps its own heap out of the garbage collector's walks; a session's
    state is never put there, so switching sessions all evening holds only the
    session open (the closed one goes, without a walk of the whole heap)."""
    import gc
    import random
    import weakref

    from helpers import run, until

    from gmdesk.tui.app import GmdeskApp
    from gmdesk.tui.screens.main import MainScreen
    from gmdesk.tui.screens.picker import PickerScreen

    with Session.create(long_save.parent / "short.gmdesk", "Short night", "4d2") as s:
        s.apply({"type": "character.add", "character": {"name": "Bruno", "vitality": 10}})
    app = GmdeskApp(long_save.parent, rng=random.Random(7), examples_dir=tmp_path / "none")

    async def open_named(pilot, name: str) -> Session:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
        picker = app.screen
        while (chosen := picker.selected_summary()) is not None and chosen.name != name:
            await pilot.press("down")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and app.screen.session.state.info.name == name)
        await settle(pilot)
        return app.screen.session

    async with run(app) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
        frozen = gc.get_freeze_count()
        assert frozen > 0  # the app's own heap
        closed = weakref.ref(await open_named(pilot, "Long night"))
        assert gc.get_freeze_count() <= frozen  # (frozen objects may still go by their reference count)
        app.action_back_to_picker()
        await open_named(pilot, "Short night")
        assert closed() is None  # the long session is gone: nothing of it is kept
        assert gc.get_freeze_count() <= frozen  # (frozen objects may still go by their reference count)
        await press(pilot, "q")
    assert gc.get_freeze_count() == 0  # the app's heap is thawed as it ends
