"""The session picker, driven with Pilot at 80×24 in the real app: what the GM sees in
the list, and what ends up on disk (re-opened read-only) after each move."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from helpers import files_of, killed_after, main_screen, notes, run, screen_text, until

from gmdesk.core.session import Session, SessionStore
from gmdesk.tui.app import GmdeskApp
from gmdesk.tui.screens.confirm import ConfirmDialog
from gmdesk.tui.screens.main import MainScreen
from gmdesk.tui.screens.picker import (
    ExampleDialog,
    NewSessionDialog,
    PickerScreen,
    check_new_name,
    default_examples_dir,
    format_last_played,
)

SIZE = (80, 24)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def picker(app) -> PickerScreen:
    for screen in reversed(app.screen_stack):
        if isinstance(screen, PickerScreen):
            return screen
    raise AssertionError(f"no picker on the stack: {app.screen_stack}")


async def loaded_picker(pilot) -> PickerScreen:
    await until(pilot, lambda: any(isinstance(s, PickerScreen) and s.loaded for s in pilot.app.screen_stack))
    return picker(pilot.app)


def make_played_session(store: SessionStore, name: str, system: str = "4d2", rolls: int = 3) -> Path:
    path = store.create(name, system)
    with Session.open(path) as s:
        kara = s.apply({"type": "character.add", "character": {"name": "Kara", "side": "PC"}}).data.get("id", "c1")
        bruno = s.apply({"type": "character.add", "character": {"name": "Bruno", "side": "NPC"}}).data.get("id", "c2")
        s.apply({"type": "initiative.set", "entries": [{"id": "c1", "value": 12}, {"id": "c2", "value": 8}]})
        s.apply({"type": "round.new"})
        for i in range(rolls):
            s.roll("4d2", {}, actor="c1", target="c2", rng=random.Random(i))
    del kara, bruno
    return path


@pytest.fixture
def dirs(tmp_path):
    saves = tmp_path / "saves"
    examples = tmp_path / "examples"
    store = SessionStore(saves)
    store.create("Torg test", "torg-2d10")
    docks = make_played_session(store, "Night at the docks", rolls=3)  # played last: listed first
    (saves / "broken.gmdesk").write_text("{not json at all", encoding="utf-8")
    ex_store = SessionStore(examples)
    ex = make_played_session(ex_store, "Example 4d2", rolls=2)
    return {"saves": saves, "examples": examples, "store": store, "docks": docks, "example": ex}


def app_for(dirs) -> GmdeskApp:
    return GmdeskApp(dirs["saves"], examples_dir=dirs["examples"], rng=random.Random(7))


# ---------------------------------------------------------------------------
# listing
# ---------------------------------------------------------------------------


async def test_lists_sessions_and_a_damaged_file_with_its_error(dirs):
    app = app_for(dirs)
    async with run(app, size=SIZE) as pilot:
        pk = await loaded_picker(pilot)
        text = screen_text(app)
        lines = text.splitlines()
        docks = next(line for line in lines if "Night at the docks" in line)
        assert "4d2" in docks
        assert docks.split()[-2:] == ["1", "3"]  # round 1, 3 rolls
        assert any("Torg test" in line and "torg-2d10" in line for line in lines)
        broken = next(i for i, line in enumerate(lines) if line.strip().startswith("broken"))
        assert "DAMAGED" in lines[broken]
        assert "not valid JSON" in lines[broken + 1]  # the error, under the name
        assert "3 sessions, 1 damaged" in text
        # the damaged one cannot be opened; the picker says why and stays
        pk.query_one("DataTable").move_cursor(row=2)
        await pilot.press("enter")
        await until(pilot, lambda: "Damaged session" in screen_text(app))  # the check, and a repair offered
        assert "is damaged and cannot be opened" in pk.status_text
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert "Nothing repaired" in pk.status_text


async def test_a_damaged_session_is_checked_and_repaired_beside_itself(dirs):
    from gmdesk.core.session.storage import sidecar_paths

    # a gmdesk killed in play leaves its changes in the journal; then one is damaged
    killed_after(dirs["docks"], {"type": "note", "text": "kept"}, {"type": "note", "text": "damaged"})
    journal = sidecar_paths(dirs["docks"])["journal"]
    journal.write_bytes(journal.read_bytes().replace(b'"text":"damaged"', b'"text":"dam4ged"'))
    before = files_of(dirs["saves"])
    app = app_for(dirs)
    async with run(app, size=SIZE) as pilot:
        pk = await loaded_picker(pilot)
        assert "2 damaged" in screen_text(app)
        table = pk.query_one("DataTable")
        row = next(i for i, s in enumerate(pk.summaries) if Path(s.path) == dirs["docks"])
        table.move_cursor(row=row)
        await pilot.press("enter")
        await until(pilot, lambda: "Damaged session" in screen_text(app))
        text = screen_text(app)
        assert "checksum" in text and "would keep" in text
        await pilot.press("y")
        await until(pilot, lambda: "Repaired into" in pk.status_text)
        await until(pilot, lambda: "(repaired)" in screen_text(app))
    repaired = SessionStore(dirs["saves"]).resolve("Night at the docks (repaired)")
    with Session.open(repaired, readonly=True) as s:
        texts = [e.data.get("text") for e in s.events if e.type == "note"]
        assert texts == ["kept"] and len(s.state.rolls) == 3
    after = files_of(dirs["saves"])
    assert {k: v for k, v in after.items() if k in before and not k.endswith(".lock")} == {
        k: v for k, v in before.items() if not k.endswith(".lock")
    }  # the damaged files are unchanged


async def test_most_recently_played_first_and_empty_directory_hint(tmp_path):
    store = SessionStore(tmp_path / "saves")
    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "none")
    async with run(app, size=SIZE) as pilot:
        await loaded_picker(pilot)
        assert "No sessions yet" in screen_text(app)
    a = store.create("Older", "4d2")
    b = store.create("Newer", "fudge")
    with Session.open(a) as s:
        s.apply({"type": "note", "text": "x"})
    from gmdesk.core.session.storage import EventLog

    with EventLog.open(b) as log:  # make "Newer" the last played, whatever the clock did
        log.set_header(last_played="2999-01-01T00:00:00+00:00")
    app = GmdeskApp(tmp_path / "saves", examples_dir=tmp_path / "none")
    async with run(app, size=SIZE) as pilot:
        pk = await loaded_picker(pilot)
        assert [s.name for s in pk.summaries] == ["Newer", "Older"]


# ---------------------------------------------------------------------------
# new session
# ---------------------------------------------------------------------------


async def test_create_a_session_with_name_and_system_and_land_on_the_main_screen(dirs):
    app = app_for(dirs)
    async with run(app, size=SIZE) as pilot:
        await loaded_picker(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewSessionDialog))
        await pilot.press(*"Tuesday", "tab", "down", "down", "down")  # 4d2 → fudge → 1d6x4 → torg-2d10
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Tuesday · torg-2d10" in screen_text(app))
    path = dirs["store"].path_for("Tuesday")
    with Session.open(path, readonly=True) as s:
        assert s.state.info.name == "Tuesday"
        assert s.state.info.system == "torg-2d10"
    assert not list(dirs["saves"].glob("*.lock")) or all(
        p.read_text() == "" for p in dirs["saves"].glob("*.lock")
    )  # every lock released


async def test_new_session_name_is_checked_inline(dirs):
    app = app_for(dirs)
    async with run(app, size=SIZE) as pilot:
        await loaded_picker(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewSessionDialog))
        await pilot.press(*"torg TEST")
        await pilot.pause()
        assert "already exists" in screen_text(app)
        await pilot.press("enter")  # refused: the dialog stays, nothing created
        await pilot.pause()
        assert isinstance(app.screen, NewSessionDialog)
        await pilot.press("ctrl+u", "space")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert "Name: type a name" in screen_text(app)
        assert isinstance(app.screen, NewSessionDialog)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
    assert sorted(p.name for p in dirs["saves"].glob("*.gmdesk")) == [
        "Night at the docks.gmdesk",
        "Torg test.gmdesk",
        "broken.gmdesk",
    ]


def test_check_new_name():
    assert check_new_name("  Tuesday ", ["Monday"]) == "Tuesday"
    assert check_new_name("Ünïcode ☃ / docks", []) == "Ünïcode ☃ / docks"  # the store makes the file safe
    for bad, says in (
        ("", "type a name"),
        ("  \t ", "type a name"),
        ("MONDAY", "already exists"),
        ("x" * 201, "at most 200 characters"),
    ):
        with pytest.raises(Exception) as err:
            check_new_name(bad, ["Monday"])
        assert str(err.value).startswith("Name: ") and says in str(err.value)


def test_last_played_format_and_examples_package():
    assert format_last_played("2026-03-01T20:15:00") == "2026-03-01 20:15"
    assert format_last_played("") == "never"
    assert default_examples_dir().name == "saves"
    assert (default_examples_dir() / "__init__.py").is_file()


# ---------------------------------------------------------------------------
# duplicate, delete
# ---------------------------------------------------------------------------


async def test_duplicate_a_session(dirs):
    before = dirs["docks"].read_bytes()
    app = app_for(dirs)
    async with run(app, size=SIZE) as pilot:
        pk = await loaded_picker(pilot)
        assert pk.selected_summary().name == "Night at the docks"
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, NewSessionDialog))
        assert "Night at the docks copy" in screen_text(app)  # suggested name
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and len(pk.summaries) == 4)
        assert pk.selected_summary().name == "Night at the docks copy"  # the copy is highlighted
        assert "Copied Night at the docks to Night at the docks copy" in screen_text(app)
        copy_line = next(line for line in screen_text(app).splitlines() if "docks copy" in line)
        assert copy_line.split()[-2:] == ["1", "3"]
    copy = dirs["store"].path_for("Night at the docks copy")
    with Session.open(copy, readonly=True) as a, Session.open(dirs["docks"], readonly=True) as b:
        assert len(a.state.rolls) == len(b.state.rolls) == 3
        assert [c.name for c in a.state.characters.values()] == ["Kara", "Bruno"]
    assert dirs["docks"].read_bytes() == before


async def test_delete_asks_first(dirs):
    app = app_for(dirs)
    async with run(app, size=SIZE) as pilot:
        pk = await loaded_picker(pilot)
        table = pk.query_one("DataTable")
        table.move_cursor(row=1)  # Torg test
        await pilot.pause()
        await pilot.press("delete")
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmDialog")
        assert "Delete the session Torg test?" in screen_text(app)
        await pilot.press("n")  # changed my mind
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert (dirs["saves"] / "Torg test.gmdesk").exists()
        await pilot.press("x")
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmDialog")
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and len(pk.summaries) == 2)
        assert not any("torg-2d10" in line for line in screen_text(app).splitlines())
        assert "Deleted Torg test." in screen_text(app)
    assert not list(dirs["saves"].glob("Torg test*"))
    assert (dirs["saves"] / "Night at the docks.gmdesk").exists()


async def test_an_enter_typed_after_delete_keeps_the_session(dirs):
    """Deleting cannot be undone: the question opens on Cancel, so x and an Enter typed
    at once (or out of habit) delete nothing; Tab to Delete, then Enter, deletes."""
    app = app_for(dirs)
    async with run(app, size=SIZE) as pilot:
        pk = await loaded_picker(pilot)
        pk.query_one("DataTable").move_cursor(row=1)  # Torg test
        await pilot.pause()
        await pilot.press("x", "enter")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and "Nothing deleted." in screen_text(app))
        assert (dirs["saves"] / "Torg test.gmdesk").exists()
        await pilot.press("x")
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmDialog")
        await pilot.press("shift+tab", "enter")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and len(pk.summaries) == 2)
    assert not list(dirs["saves"].glob("Torg test*"))


# ---------------------------------------------------------------------------
# examples
# ---------------------------------------------------------------------------


async def test_new_from_example_copies_it_and_leaves_the_example_untouched(dirs):
    before = files_of(dirs["examples"])
    app = app_for(dirs)
    async with run(app, size=SIZE) as pilot:
        await loaded_picker(pilot)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExampleDialog))
        assert "Example 4d2  (4d2)" in screen_text(app)
        await pilot.press("tab", "ctrl+u", *"My docks")
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, MainScreen) and "My docks" in screen_text(app) and "Kara" in screen_text(app)
            ),
        )
    assert files_of(dirs["examples"]) == before  # bytes and mtimes: never written
    with Session.open(dirs["store"].path_for("My docks"), readonly=True) as s:
        assert s.state.info.name == "My docks"
        assert len(s.state.rolls) == 2
        assert [c.name for c in s.state.characters.values()] == ["Kara", "Bruno"]


# ---------------------------------------------------------------------------
# a save held by another writer
# ---------------------------------------------------------------------------


async def test_a_save_open_elsewhere_is_refused_with_who_holds_it(dirs):
    holder = Session.open(dirs["docks"])  # another gmdesk (here: this process) is writing it
    try:
        app = app_for(dirs)
        async with run(app, size=SIZE) as pilot:
            pk = await loaded_picker(pilot)
            await pilot.press("enter")
            await until(pilot, lambda: "is open in another gmdesk" in pk.status_text)
            status = pk.status_text
            assert f"pid {os.getpid()}" in status
            assert "since" in status
            await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))  # read-only is offered
            await pilot.press("n")
            await until(pilot, lambda: isinstance(app.screen, PickerScreen))  # still usable
            assert "pid" in screen_text(app)
            holder.close()
            await pilot.press("enter")  # the other window closed it: now it opens
            await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Bruno" in screen_text(app))
            assert not app.screen.readonly
    finally:
        holder.close()


async def test_a_save_open_elsewhere_opens_read_only_when_the_gm_takes_the_offer(dirs):
    """The refusal names who holds the session and offers to open it here read-only:
    everything shows, nothing can be changed, the other gmdesk keeps its lock."""
    with Session.open(dirs["docks"]):  # another gmdesk (here: this process) is writing it
        before = files_of(dirs["saves"])
        app = app_for(dirs)
        async with run(app, size=SIZE) as pilot:
            await loaded_picker(pilot)
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            offer = screen_text(app)
            assert f"pid {os.getpid()}" in offer and "Open read-only" in offer
            await pilot.press("y")
            await until(pilot, lambda: isinstance(app.screen, MainScreen) and "Bruno" in screen_text(app))
            assert app.screen.readonly and "READ-ONLY" in screen_text(app)
            await pilot.press("n")  # the next turn: refused, nothing written
            await until(pilot, lambda: any("read-only" in n for n in notes(app)))
        assert files_of(dirs["saves"]) == before


async def test_a_save_open_elsewhere_named_on_the_command_line_stays_highlighted(dirs):
    """``gmdesk SAVE`` on a session another gmdesk holds: the picker it falls back to
    highlights that session (not the first row), under the offer to open it read-only."""
    torg = dirs["saves"] / "Torg test.gmdesk"
    with Session.open(torg):
        app = GmdeskApp(dirs["saves"], torg, examples_dir=dirs["examples"], rng=random.Random(7))
        async with run(app, size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("n")
            pk = await loaded_picker(pilot)
            await until(pilot, lambda: pk.selected_summary() is not None and pk.selected_summary().name == "Torg test")
            assert "Torg test is open in another gmdesk" in pk.status_text


# ---------------------------------------------------------------------------
# snapshot (a fixed list: no temporary paths, no clock)
# ---------------------------------------------------------------------------


class FixedStore:
    """A store whose listing never changes (the picker only reads it here)."""

    dir = Path("/home/gm/.local/share/gmdesk/saves")

    def list(self):
        from gmdesk.core.session import SessionSummary

        d = self.dir
        return [
            SessionSummary("Skimmer Heist", d / "Skimmer Heist.gmdesk", "4d2", "2026-03-06T21:40:00", 4, 57),
            SessionSummary("Living Land", d / "Living Land.gmdesk", "torg-2d10", "2026-02-27T22:05:00", 2, 18),
            SessionSummary("Slingshot Valley", d / "Slingshot Valley.gmdesk", "1d6x4", "2026-01-09T19:30:00", 0, 0),
            SessionSummary(
                "old backup",
                d / "old backup.gmdesk",
                error=f"{d / 'old backup.gmdesk'}: line 1 column 1: not valid JSON",
            ),
        ]

    def summary(self, path):  # pragma: no cover - no examples in this snapshot
        raise AssertionError("not used")


def test_picker_snapshot(snap_compare, tmp_path, monkeypatch):
    fixed = FixedStore()
    monkeypatch.setattr(GmdeskApp, "store", property(lambda self: fixed))  # the listing the picker is given
    app = GmdeskApp(tmp_path, examples_dir=tmp_path / "no-examples")

    async def ready(pilot) -> None:
        await loaded_picker(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


async def test_a_first_run_offers_the_examples_and_one_enter_opens_a_living_table(tmp_path, dirs):
    from gmdesk.tui.screens.picker import ExampleDialog

    app = GmdeskApp(tmp_path / "fresh", examples_dir=dirs["examples"], rng=random.Random(7))
    async with run(app, size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ExampleDialog))
        await pilot.press("enter")
        desk = await main_screen(pilot)  # up and settled: the app never ends mid-mount
        assert app.session is not None and app.session.state.characters
        assert desk.initiative.table.row_count == len(app.session.state.encounter.order)
    assert len(list((tmp_path / "fresh").glob("*.gmdesk"))) == 1
