"""The join dialog (``+``) says its whole prompt at 80×24: a long character name and a
system's long initiative hint wrap inside the box, never cut at its edge without a
word of warning. Pilot at 80×24, and a snapshot (``--snapshot-update`` after an
intended change of the look)."""

from __future__ import annotations

import random
from pathlib import Path

from helpers import SMALL, dialog, main_screen, make_app, make_save, press, run, screen_text, select_entry

from gmdesk.tui.screens.confirm import InputDialog

LONG = "Castellan Aurelio of the Seventh Lantern Gate"


def joining(tmp_path: Path) -> tuple[Path, str]:
    """A fudge session (its hint is long: "a number or a ladder level …") with a long
    name out of the encounter."""
    path, ids = make_save(
        tmp_path,
        "fudge",
        [{"name": "Kara"}, {"name": LONG, "side": "NPC"}],
        initiative={"Kara": 2},
        start=True,
        name="Lantern Gate",
    )
    return path, ids[LONG]


def in_box(text: str) -> str:
    """What the join dialog's box holds (inside its border), its lines joined by spaces."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if "Join the encounter" in line)
    left, right = lines[top].index("╭"), lines[top].index("╮")
    inside = []
    for line in lines[top + 1 :]:
        if line[left] == "╰":
            break
        inside.append(line[left + 1 : right])
    return " ".join(" ".join(inside).split())


async def test_the_join_prompt_is_said_whole_at_80x24(tmp_path: Path) -> None:
    path, cid = joining(tmp_path)
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await select_entry(pilot, cid)
        await press(pilot, "+")
        dlg = await dialog(pilot, InputDialog)
        prompt = dlg.prompt
        assert len(prompt) > 80  # (the case this test is about)
        shown = in_box(screen_text(app))
    assert prompt in shown, shown


def test_the_join_dialog_snapshot(snap_compare, tmp_path: Path) -> None:
    path, cid = joining(tmp_path)
    app = make_app(path, rng=random.Random(1))

    async def join(pilot) -> None:
        await main_screen(pilot)
        await select_entry(pilot, cid)
        await press(pilot, "+")
        await dialog(pilot, InputDialog)

    assert snap_compare(app, terminal_size=(80, 24), run_before=join)
