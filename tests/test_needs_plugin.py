"""A session of a dice system whose plug-in is not installed here is sound: ``gmdesk
list`` and the picker list it as it stands and say which plug-in it needs (never
DAMAGED); opening it says to install the plug-in; its files are never touched.
Once the plug-in is installed it is listed and opened like any other."""

from __future__ import annotations

import json
import random
from pathlib import Path

from coin_plugin import coin_site, registered
from helpers import files_of, one_error_line, run, screen_text, until
from helpers import gmdesk_cli as cli

from gmdesk.core.session import Session, SessionStore
from gmdesk.tui.app import GmdeskApp
from gmdesk.tui.screens.picker import PickerScreen

SIZE = (80, 24)


def coin_night(saves: Path) -> Path:
    """A played session of the coin plug-in, made while the plug-in was installed."""
    with registered(coin_site()):
        path = SessionStore(saves).create("Coin night", "coin")
        with Session.open(path) as s:
            ann = s.apply({"type": "character.add", "character": {"name": "Ann"}}).data["id"]
            s.apply({"type": "initiative.set", "entries": [{"id": ann, "value": 2}]})
            s.apply({"type": "round.new"})
    return path


def unchanged(saves: Path) -> dict:
    return {k: v for k, v in files_of(saves).items() if not k.endswith(".lock")}


def test_gmdesk_list_says_which_plug_in_it_needs_not_damaged(capsys, saves):
    coin_night(saves)
    SessionStore(saves).create("Night 1", "4d2")
    (saves / "Broken.gmdesk").write_text("{not json", encoding="utf-8")
    before = unchanged(saves)
    rc, out, err = cli(capsys, saves, "list")
    assert rc == 0, err
    row = next(line for line in out.splitlines() if line.startswith("Coin night"))
    assert "needs plug-in: coin" in row and "DAMAGED" not in row
    assert row.split()[2] == "coin" and row.split()[5] == "1"  # system, then round 1
    assert "DAMAGED" in next(line for line in out.splitlines() if line.startswith("Broken"))
    rc, out, err = cli(capsys, saves, "list", "--json")
    rows = {d["name"]: d for d in map(json.loads, out.splitlines())}
    assert rows["Coin night"]["needs_plugin"] == "coin" and rows["Coin night"]["system"] == "coin"
    assert rows["Coin night"]["characters"] == 1 and "install" in rows["Coin night"]["error"]
    assert rows["Night 1"]["needs_plugin"] is None and rows["Night 1"]["error"] is None
    assert rows["Broken"]["needs_plugin"] is None and rows["Broken"]["error"]
    # opening it by name says to install the plug-in; its name stays taken
    rc, out, err = cli(capsys, saves, "log", "coin night")
    assert rc == 2
    one_error_line(err, "'coin'", "install")
    rc, out, err = cli(capsys, saves, "new", "Coin Night", "--system", "4d2")
    assert rc == 2
    one_error_line(err, "already exists")
    assert unchanged(saves) == before


def test_a_header_naming_an_unknown_system_is_waiting_for_a_plug_in(saves):
    """The same for any system the header names that this gmdesk does not have."""
    import zlib

    from gmdesk.core.session.storage.checksums import seal

    path = SessionStore(saves).create("Far away", "4d6")
    raw = path.read_bytes()
    nl = raw.index(b"\n")
    rec = json.loads(raw[len(b'{"_gmdesk":') : nl - 1])
    rec["header"]["system"] = "d100-deluxe"
    rec["header_crc32"] = zlib.crc32(json.dumps(rec["header"], separators=(",", ":"), ensure_ascii=False).encode())
    rec.pop("c", None)  # a record whose own checksum fits, as another tool would write it
    path.write_bytes(b'{"_gmdesk":' + seal(json.dumps(rec, separators=(",", ":"))).encode() + b"," + raw[nl:])
    (summary,) = SessionStore(saves).list()
    assert summary.needs_plugin == "d100-deluxe" and not summary.damaged
    assert summary.name == "Far away" and summary.system == "d100-deluxe"
    # a header with another problem besides is damaged
    rec["header"].pop("settings")
    rec["header_crc32"] = zlib.crc32(json.dumps(rec["header"], separators=(",", ":"), ensure_ascii=False).encode())
    rec.pop("c", None)  # a record whose own checksum fits, as another tool would write it
    path.write_bytes(b'{"_gmdesk":' + seal(json.dumps(rec, separators=(",", ":"))).encode() + b"," + raw[nl:])
    (summary,) = SessionStore(saves).list()
    assert summary.damaged and summary.needs_plugin is None


def test_once_the_plug_in_is_installed_it_is_listed_like_any_other(capsys, saves):
    coin_night(saves)
    with registered(coin_site()):
        (summary,) = SessionStore(saves).list()
        assert summary.error is None and summary.needs_plugin is None and summary.system == "coin"
        rc, out, err = cli(capsys, saves, "list")
        assert rc == 0 and "needs plug-in" not in out and "Coin night" in out


async def test_the_picker_says_it_needs_its_plug_in_and_offers_no_repair(saves):
    coin_night(saves)
    SessionStore(saves).create("Night 1", "4d2")
    before = unchanged(saves)
    app = GmdeskApp(saves, examples_dir=saves / "none", rng=random.Random(7))
    async with run(app, size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
        picker = app.screen
        text = screen_text(app)
        assert "DAMAGED" not in text and "damaged" not in text
        lines = text.splitlines()
        at = next(i for i, line in enumerate(lines) if line.strip().startswith("Coin night"))
        assert "coin" in lines[at].split("Coin night", 1)[1]
        assert "needs plug-in: coin" in lines[at + 1]
        assert "1 waiting for a plug-in" in text
        row = next(i for i, s in enumerate(picker.summaries) if s.name == "Coin night")
        picker.query_one("DataTable").move_cursor(row=row)
        await pilot.press("enter")
        await until(pilot, lambda: "needs plug-in: coin" in picker.status_text)
        assert "install" in picker.status_text and "damaged" not in picker.status_text
        await pilot.pause()
        assert app.screen is picker  # no repair offered, nothing opened
    assert unchanged(saves) == before
