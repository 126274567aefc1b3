"""core must never pull in Textual: the CLI's roll/odds answer fast and the rules
can be reused by any front end."""

import subprocess
import sys


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        check=True, capture_output=True, text=True,
    ).stdout
    return set(out.split())


def test_importing_core_leaves_textual_out():
    mods = _loaded_after(
        "import core, core.dice, core.odds, core.tables, core.systems\n"
        "from core.systems import SYSTEM_IDS, get_system\n"
        "[get_system(s) for s in SYSTEM_IDS]\n"
        "import core.cli"
    )
    assert not any(m == "textual" or m.startswith("textual.") for m in mods)
    assert not {"aiohttp", "textual_serve", "segno"} & mods  # `gmdesk serve` loads them itself


def test_no_core_module_imports_textual_in_source():
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent / "core"
    offenders = [
        str(p) for p in root.rglob("*.py")
        if any(line.lstrip().startswith(("import textual", "from textual")) for line in p.read_text().splitlines())
    ]
    assert offenders == []


def test_roll_and_odds_commands_do_not_load_textual():
    mods = _loaded_after(
        "import contextlib, io\n"
        "from core.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['roll', '4d2', '--seed', '1', '--json']) == 0\n"
        "    assert main(['odds', 'torg-2d10', '--up']) == 0\n"
        "    assert main(['roll', '4d6', '--adv', '+1']) == 0\n"
    )
    assert "core.systems.four_d_two" in mods
    assert not any(m == "textual" or m.startswith("textual.") for m in mods)
