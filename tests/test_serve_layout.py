"""The player view on the screens players bring to ``gmdesk serve`` (issue 21, part 1):
a phone held sideways (93×18) shows the order and the clocks without scrolling, the
roll log has no stray horizontal scrollbar, and a phone never cuts a die list in two.
Driven through Pilot at the sizes a browser gives the terminal."""

from __future__ import annotations

import re

import pytest
from helpers import run, screen_text, until
from rich.console import Console
from test_serve import example

from gmdesk.tui.screens.player import PlayerApp, PlayerScreen, _RollText

pytest.importorskip("textual_serve", reason="textual-serve is not installed: pip install -e '.[test]'")


async def shown(pilot) -> PlayerScreen:
    app = pilot.app
    await until(pilot, lambda: app.pictures_shown > 0)
    await pilot.pause()
    return next(s for s in app.screen_stack if isinstance(s, PlayerScreen))


async def test_a_phone_held_sideways_shows_the_order_and_the_clocks(tmp_path):
    path = example(tmp_path, "Festival Infiltration")
    app = PlayerApp(path, clock=lambda: "21:00:00")
    async with run(app, size=(93, 18)) as pilot:
        screen = await shown(pilot)
        text = screen_text(app)
        box = screen.query_one("#player-initiative-box")
        assert screen.has_class("-wide") and screen.has_class("-short")
        assert box.max_scroll_y == 0 and not box.show_vertical_scrollbar  # nothing behind a scrollbar
        log = screen.query_one("#player-log")
        assert log.size.height >= 3  # and the latest rolls still show
    assert "Bronze Sentinel" in text and "Suspicion 1/6" in text and "Reach the vault 2½/4" in text
    assert "#23 R2 Renna → Castle Guard" in text


@pytest.mark.parametrize("size", [(80, 24), (93, 18), (142, 40)])
async def test_the_roll_log_has_no_horizontal_scrollbar(tmp_path, size):
    path = example(tmp_path, "Festival Infiltration")
    app = PlayerApp(path, clock=lambda: "21:00:00")
    async with run(app, size=size) as pilot:
        screen = await shown(pilot)
        log = screen.query_one("#player-log")
        assert not log.show_horizontal_scrollbar and log.scrollbar_size_horizontal == 0  # …and no bar for it
        lines = screen_text(app).splitlines()
    bottom = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    assert "▏" not in lines[bottom - 1] and "▁" not in lines[bottom - 1]


@pytest.mark.parametrize("size", [(40, 30), (43, 42)])
async def test_a_phone_never_cuts_a_die_list_in_two(tmp_path, size):
    path = example(tmp_path, "Festival Infiltration")
    app = PlayerApp(path, clock=lambda: "21:00:00")
    async with run(app, size=size) as pilot:
        screen = await shown(pilot)
        assert screen.has_class("-narrow")
        text = screen_text(app)
    box = text[text.index("Last rolls") : text.index("Characters")]
    lists = re.findall(r"\[[^\]\n]*\]", box)
    assert len(lists) >= 2 and "[6 4 (3) 4 (1) 6]" in lists
    assert box.count("[") == box.count("]") == len(lists)  # every list opens and closes on one line


def test_a_die_list_that_does_not_fit_takes_a_line_of_its_own():
    console = Console(width=24, record=True, color_system=None)
    console.print(_RollText("Renna → Castle Guard: 4d6 22 Critical Success", "[6 4 (3) 4 (1) 6]"))
    lines = console.export_text().splitlines()
    assert lines[-1] == "[6 4 (3) 4 (1) 6]" and all(len(line) <= 24 for line in lines)
    console = Console(width=40, record=True, color_system=None)
    console.print(_RollText("Failure → Nil", "[5 1 2 1]"))
    assert console.export_text().splitlines() == ["Failure → Nil [5 1 2 1]"]


@pytest.mark.parametrize("size", [(40, 20), (40, 22), (40, 24), (43, 28)])
async def test_a_phone_shows_each_roll_whole_or_not_at_all(tmp_path, size):
    """On a short phone screen the rolls that do not fit are left out whole: a roll is
    never cut at the box's bottom edge ("Castle Guard → Renna: 4d6 16" with its
    outcome and dice below the fold); the newest roll always shows."""
    path = example(tmp_path, "Festival Infiltration")
    app = PlayerApp(path, clock=lambda: "21:00:00")
    async with run(app, size=size) as pilot:
        screen = await shown(pilot)
        assert screen.has_class("-narrow")
        lines = screen_text(app).splitlines()
    top = next(i for i, line in enumerate(lines) if "Last rolls" in line)
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].lstrip().startswith("╰"))
    box = "\n".join(line.strip("│ ") for line in lines[top + 1 : bottom])
    rolls = re.split(r"\n(?=#\d)", box.strip())
    assert rolls[0].startswith("#23 R2 Renna → Castle Guard"), box  # the newest
    for roll in rolls:
        assert roll.rstrip().endswith("]"), box  # each ends with its dice: nothing cut below


@pytest.mark.parametrize("size", [(80, 24), (40, 30)])
async def test_a_character_removed_since_keeps_its_name_in_the_rolls(tmp_path, size):
    """Renna rolled, then left the session: the players' rolls still say "Renna" — never
    her internal id ("→ c1") nor "GM" as if nobody had rolled — in the roll log, the
    phone's last rolls and a roll's breakdown."""
    from gmdesk.core.session import Session

    path = example(tmp_path, "Festival Infiltration")
    with Session.open(path) as session:
        session.apply({"type": "character.remove", "id": session.character("Renna").id})
    app = PlayerApp(path, clock=lambda: "21:00:00")
    async with run(app, size=size) as pilot:
        await shown(pilot)
        text = screen_text(app)
        if size[0] >= 60:
            await pilot.press("enter")  # the breakdown of the roll under the cursor (#23, Renna's)
            await until(pilot, lambda: "Roll #23" in screen_text(app))
            assert "Roll #23 · Renna → Castle Guard" in screen_text(app)
    assert "#23 R2 Renna → Castle Guard" in text
    assert not re.search(r"\bc\d+\b", text), text
    assert "GM →" not in text and "GM:" not in text
