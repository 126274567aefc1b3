"""Sheets stay sheets: a 1d6x4 sheet exported after uses are spent, a Vitality changes
or a new day keeps the GM's layout byte for byte except the numbers that changed;
a value a row gains lines up with the same column of the other rows; a column widens
(every row with it) only when a name no longer fits before it; the GM adds a Physical
Item at the table without importing the sheet again."""

from __future__ import annotations

import random
import re
from pathlib import Path

from helpers import SMALL, burst, main_screen, make_app, press, run, saved

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.sheet import generate_core, parse_sheet

ANA = """Ana, a hedge witch
Descriptor    Default    Current      Notes
Vitality       +2
Fitness        +1                    (strong)
Healing Ability   (2)
Magic Ability  +5 (2)
  *Turn Person to Frog   (1)         (lasts 1 hour)
Medical Kit
"""

MEDICAL_DOCTOR = "Medical Doctor:\nHealing Ability (1)\nMedical Kit\nKnowledge +2\n"
WITCH = (
    "Witch:\nFitness -1\nReflex +1\nBroomstick\nCauldron\nMagic Ability +5 (inf)\n"
    " *Fly on Broomstick (inf)\n *Turn Person to Frog (inf)\n"
)


def cli(capsys, saves: Path, *args: str) -> str:
    from gmdesk.cli.main import main

    rc = main(["--saves", str(saves), *args])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def pieces(line: str) -> list[tuple[int, str]]:
    """Each word of a line with its column."""
    return [(m.start(), m.group()) for m in re.finditer(r"\S+", line)]


def ana_session(tmp_path: Path) -> tuple[Path, Path, str]:
    saves = tmp_path / "saves"
    path = SessionStore(saves).create("Fen", "1d6x4")
    (tmp_path / "ana.txt").write_text(ANA, encoding="utf-8")
    with Session.open(path) as s:
        cid = s.apply({"type": "character.add", "character": {"name": "Ana", "sheet": ANA}}).data["id"]
    return saves, path, cid


def test_uses_and_a_new_day_change_only_the_numbers(tmp_path, capsys):
    saves, path, cid = ana_session(tmp_path)
    assert cli(capsys, saves, "export-sheet", "Fen", "Ana") == ANA
    with Session.open(path) as s:
        s.apply({"type": "use", "id": cid, "descriptor": "Turn Person to Frog"})  # and one of Magic Ability
        s.apply({"type": "character.edit", "id": cid, "fields": {"vitality_current": -3}})
        s.heal(cid, cid, rng=FixedDice([2]))
    during = cli(capsys, saves, "export-sheet", "Fen", "Ana")
    old, new = ANA.splitlines(), during.splitlines()
    assert len(old) == len(new)
    for was, now in zip(old, new, strict=True):
        # every piece the line had stays where it was; the new numbers come in between
        assert set(pieces(was)) <= set(pieces(now)), (was, now)
    rows = {line.strip().split("  ")[0]: line for line in new}
    # the Current uses the rows gained line up, under the Current heading's column
    heal_at = rows["Healing Ability"].rindex("(1)")
    assert rows["Magic Ability"].rindex("(1)") == heal_at
    current = new[1].index("Current")  # a value sits one right of its heading, as the Defaults do
    assert rows["Vitality"].index("-1") == current + 1 and rows["Vitality"].index("+2") == new[1].index("Default") + 1
    assert heal_at == current + 4  # as "+5 (1)": the uses three right of the value
    assert rows["*Turn Person to Frog"].index("(0)") < rows["*Turn Person to Frog"].index("(lasts")
    assert parse_sheet(during).find("Turn Person to Frog").uses_current == 0

    with Session.open(path) as s:
        s.apply({"type": "day.new"})
    assert cli(capsys, saves, "export-sheet", "Fen", "Ana") == ANA  # byte for byte
    cli(capsys, saves, "new", "Fen 2", "--from", "Fen", "--rest")
    assert cli(capsys, saves, "export-sheet", "Fen 2", "Ana") == ANA


def test_a_name_too_long_for_the_default_column_widens_it_for_every_row():
    sheet, _ = generate_core(random.Random(3), header="Ana")
    sheet = sheet.apply_template(MEDICAL_DOCTOR).apply_template(WITCH)
    text = sheet.text()
    lines = text.splitlines()
    uses = [line.index("(") for line in lines if "(inf)" in line or "(1)" in line]
    values = [m.start() for line in lines[2:] for m in [re.search(r"[+\-]\d", line)] if m]
    assert len(set(uses)) == 1, text  # "(inf)" and "(1)" in one column
    assert len(set(values)) == 1, text  # every Default value in one column
    assert lines[1].index("Default") < values[0] < lines[1].index("Current")
    spent = parse_sheet(text).spend_use("Healing Ability").new_day()
    assert spent.text() == text


def test_the_gm_adds_an_item_at_the_table_and_undo_takes_it_back(tmp_path, capsys):
    saves, path, cid = ana_session(tmp_path)
    with Session.open(path) as s:
        e = s.apply({"type": "sheet.add", "id": cid, "line": "2 shovels"})
        assert e.summary == "Ana: 2 shovels added to the sheet"
        s.apply({"type": "sheet.add", "id": cid, "line": "Lantern +1 (3)"})
        s.apply({"type": "sheet.add", "id": cid, "line": "Summon Toad (1)", "parent": "Magic Ability"})
        sheet = s.state.characters[cid].sheet
        assert sheet.find("shovels").quantity == "2" and sheet.value("Lantern") == 1
        assert sheet.parent("Summon Toad").name == "Magic Ability"
    text = cli(capsys, saves, "export-sheet", "Fen", "Ana")
    lines = text.splitlines()
    assert lines[: len(ANA.splitlines()) - 1] == ANA.splitlines()[:-1]  # what was there stays as written
    assert "  *Summon Toad" in text and lines[-2] == "2 shovels"
    lantern = next(line for line in lines if line.startswith("Lantern"))
    assert lantern.index("+1") == ANA.splitlines()[2].index("+2")  # under the Default column
    with Session.open(path) as s:
        for _ in range(3):
            s.undo()
    assert cli(capsys, saves, "export-sheet", "Fen", "Ana") == ANA


async def test_the_pane_adds_a_physical_item_without_reimporting(tmp_path):
    saves, path, cid = ana_session(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        screen = await main_screen(pilot)
        pane = screen.character
        await press(pilot, "tab")  # the character pane
        target = [(r.kind, r.key) for r in pane.row_kinds].index(("add", "sheet"))
        for _ in range(len(pane.row_kinds)):
            if pane.table.cursor_row == target:
                break
            await press(pilot, "down")
        await press(pilot, "enter")  # the editor opens on Enter (a letter on a + add row is a desk key)
        await burst(pilot, "2 shovels")
        await press(pilot, "enter")
        for _ in range(50):
            if saved(path).characters[cid].sheet.find("shovels") is not None:
                break
            await pilot.pause(0.1)
    sheet = saved(path).characters[cid].sheet
    assert sheet.find("shovels").quantity == "2"
    assert sheet.text() == ANA + "2 shovels\n"
