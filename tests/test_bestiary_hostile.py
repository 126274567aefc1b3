"""bestiary.json against what other programs do to it: a changed byte is refused and
never rewritten (its checksum), a file of the previous version opens and is written
with one, a missing ``format`` is damage, and its size is bounded."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.campaign import bestiary as bestiary_mod
from gmdesk.core.campaign.bestiary import BESTIARY_FILE, VERSION, Bestiary, DamagedBestiaryError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hostile  # noqa: E402

DATA = Path(__file__).parent / "data"


@pytest.fixture
def saves(tmp_path, monkeypatch):
    monkeypatch.delenv("GMDESK_SAVES", raising=False)
    return tmp_path / "saves"


@pytest.mark.parametrize("seed", range(10))
def test_a_changed_byte_is_refused_and_the_file_never_rewritten(tmp_path, seed):
    assert hostile.bestiary_edit(tmp_path, seed) == "refused"


def test_a_bestiary_of_the_previous_version_opens_and_the_next_change_adds_its_checksum(capsys, saves):
    from tinydb import TinyDB

    saves.mkdir(parents=True)
    shutil.copy(DATA / "bestiary-v1.json", saves / BESTIARY_FILE)
    before = json.loads((saves / BESTIARY_FILE).read_text())
    assert before["about"]["1"] == {"format": "gmdesk-bestiary", "version": 1}
    rc, out, err = run(capsys, saves, "bestiary", "list")
    assert rc == 0 and "Bar Thug" in out, err
    rc, out, err = run(capsys, saves, "bestiary", "add", "Marsh Imp", "--system", "4d6")
    assert rc == 0, err
    after = json.loads((saves / BESTIARY_FILE).read_text())
    assert after["about"]["1"]["version"] == VERSION and len(after["about"]["1"]["sha256"]) == 64
    assert len(after["stat_blocks"]) == len(before["stat_blocks"]) + 1
    with TinyDB(str(saves / BESTIARY_FILE)) as db:  # still a TinyDB database
        names = {d["name"] for d in db.table("stat_blocks").all()}
    assert "Marsh Imp" in names and "Bar Thug" in names


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d["about"]["1"].pop("format"), "no 'format'"),
        (lambda d: d.pop("about"), "no 'about' record"),
        (lambda d: d["about"]["1"].pop("sha256"), "checksum is missing"),  # a v2 record without its checksum…
        (lambda d: d["about"]["1"].update(version=1), "holds 'sha256'"),  # …or claiming v1 to dodge it
    ],
)
def test_what_says_what_the_file_is_must_be_there(capsys, saves, edit, words):
    Bestiary(saves).ensure_starter()
    path = saves / BESTIARY_FILE
    data = json.loads(path.read_text())
    edit(data)
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    path.write_bytes(raw)
    with pytest.raises(DamagedBestiaryError, match=words):
        Bestiary(saves).blocks()
    rc, out, err = run(capsys, saves, "bestiary", "add", "Marsh Imp", "--system", "4d6")
    assert rc == 2
    one_error_line(err, "damaged")
    assert path.read_bytes() == raw


def test_the_bestiary_is_bounded_and_says_its_limit(capsys, saves, monkeypatch):
    monkeypatch.setattr(bestiary_mod, "MAX_BLOCKS", 20)
    Bestiary(saves).ensure_starter()
    have = len(Bestiary(saves).blocks())
    path = saves / BESTIARY_FILE
    toml = saves / "many.toml"
    toml.write_text(
        "".join(f'[[stat_block]]\nname = "Rat {i}"\nsystem = "4d6"\n\n' for i in range(21 - have)), encoding="utf-8"
    )
    raw = path.read_bytes()
    rc, out, err = run(capsys, saves, "bestiary", "import", str(toml))
    assert rc == 2
    one_error_line(err, "at most 20 stat blocks", f"holds {have}", "nothing was changed")
    assert path.read_bytes() == raw
    rc, out, err = run(capsys, saves, "bestiary", "remove", "Bar Thug")  # removing is never refused
    assert rc == 0, err
    rc, out, err = run(capsys, saves, "bestiary", "import", str(toml))
    assert rc == 0, err
