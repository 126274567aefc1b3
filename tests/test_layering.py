"""core must never pull in Textual: the CLI's roll/odds answer fast and the rules
can be reused by any front end."""

import subprocess
import sys


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(out.split())


def test_importing_core_leaves_textual_out():
    mods = _loaded_after(
        "import gmdesk.core, gmdesk.core.dice, gmdesk.core.odds, gmdesk.core.tables, gmdesk.core.systems\n"
        "from gmdesk.core.systems import SYSTEM_IDS, get_system\n"
        "[get_system(s) for s in SYSTEM_IDS]\n"
        "import gmdesk.core.session"
    )
    assert not any(m == "textual" or m.startswith("textual.") for m in mods)
    assert not any(m.startswith("gmdesk.tui") for m in mods)
    assert not {"aiohttp", "textual_serve", "segno"} & mods  # `gmdesk serve` loads them itself


def test_no_core_module_imports_textual_or_tui_in_source():
    """Not even inside a function: the entry point above both layers joins them."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent / "core"
    banned = ("import textual", "from textual", "import gmdesk.tui", "from gmdesk.tui", "from gmdesk import tui")
    offenders = [
        str(p)
        for p in root.rglob("*.py")
        if any(line.lstrip().startswith(banned) for line in p.read_text().splitlines())
    ]
    assert offenders == []


def test_roll_and_odds_commands_do_not_load_textual():
    mods = _loaded_after(
        "import contextlib, io\n"
        "from gmdesk.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['roll', '4d2', '--seed', '1', '--json']) == 0\n"
        "    assert main(['odds', 'torg-2d10', '--up']) == 0\n"
        "    assert main(['roll', '4d6', '--adv', '+1']) == 0\n"
    )
    assert "gmdesk.core.systems.four_d_two" in mods
    assert not any(m == "textual" or m.startswith("textual.") for m in mods)
