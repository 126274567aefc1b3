"""A plug-in cannot end gmdesk, silence it or pollute its output, and what is said
about it is true: one installed (a real package in a temporary site directory, found
through its entry point by a real ``gmdesk`` process) that raises ``SystemExit`` as it
is imported is reported in one line, installed but failing to load, and ``list``,
``systems`` and ``new`` go on; one that prints as it is imported leaves ``--json``
clean; a session of a plug-in that fails to load, or that is not installed, is sound
for ``check`` (not DAMAGED) and ``list`` says why it cannot be opened."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import TIMEOUT
from test_cli_systems import FLIP

EVIL = "import sys\nsys.exit(0)\n"
BROKEN = "raise ImportError('the flip tables are missing')\n"
NOISY = "print('flip plug-in loaded, hello!')\nprint('a second line')\n" + FLIP


def site(root: Path, module_source: str, name: str = "flip") -> Path:
    """A directory holding an installed plug-in package: its module and its
    ``.dist-info`` with the entry point ``[gmdesk.systems] flip = h17_flip``."""
    where = root / f"site-{len(list(root.glob('site-*')))}"
    where.mkdir()
    (where / "h17_flip.py").write_text(module_source)
    info = where / "h17_flip-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: h17-flip\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[gmdesk.systems]\n{name} = h17_flip\n")
    return where


def gmdesk(saves: Path, plugin_site: Path | None, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GMDESK_SAVES", "PYTHONPATH")}
    if plugin_site is not None:
        env["PYTHONPATH"] = str(plugin_site)
    return subprocess.run(
        [sys.executable, "-m", "gmdesk", "--saves", str(saves), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
    )


def test_a_plugin_raising_systemexit_on_import_cannot_end_gmdesk(tmp_path: Path) -> None:
    evil = site(tmp_path, EVIL)
    saves = tmp_path / "saves"
    new = gmdesk(saves, evil, "new", "Docks")
    assert new.returncode == 0 and "Created Docks" in new.stdout, new.stderr
    listed = gmdesk(saves, evil, "list")
    assert listed.returncode == 0 and "Docks" in listed.stdout, listed.stderr
    shown = gmdesk(saves, evil, "systems")
    assert shown.returncode == 0 and "4d2" in shown.stdout and "torg-2d10" in shown.stdout
    assert shown.stderr.count("\n") == 1, shown.stderr
    assert "'flip' (h17_flip) is installed but fails to load" in shown.stderr and "SystemExit" in shown.stderr
    for argv in (["roll", "flip"], ["odds", "flip"], ["new", "Coins", "--system", "flip"]):
        refused = gmdesk(saves, evil, *argv)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert "'flip' is installed but fails to load" in refused.stderr and "SystemExit" in refused.stderr


def test_a_plugin_printing_on_import_does_not_pollute_json(tmp_path: Path) -> None:
    noisy = site(tmp_path, NOISY)
    saves = tmp_path / "saves"
    assert gmdesk(saves, noisy, "new", "Coins", "--system", "flip").returncode == 0
    shown = gmdesk(saves, noisy, "systems", "--json")
    assert shown.returncode == 0
    assert "flip" in [s["id"] for s in json.loads(shown.stdout)]  # stdout is JSON, and only JSON
    assert shown.stderr.count("\n") == 1 and "'flip' (h17_flip) printed" in shown.stderr, shown.stderr
    listed = gmdesk(saves, noisy, "list", "--json")
    assert [json.loads(line)["name"] for line in listed.stdout.splitlines()] == ["Coins"]
    rolled = gmdesk(saves, noisy, "roll", "flip", "--json", "--seed", "1")
    assert json.loads(rolled.stdout)["system"] == "flip"


def test_a_session_of_a_plugin_that_fails_to_load_is_sound_and_says_why(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    working = site(tmp_path, FLIP)
    assert gmdesk(saves, working, "new", "Coins", "--system", "flip").returncode == 0
    assert gmdesk(saves, working, "char", "Coins", "add", "Kara").returncode == 0
    assert gmdesk(saves, working, "roll", "flip", "--save", "Coins", "--as", "Kara", "--seed", "2").returncode == 0
    before = {p.name: p.read_bytes() for p in saves.iterdir() if p.name != "Coins.gmdesk.lock"}
    broken = site(tmp_path, BROKEN)
    listed = gmdesk(saves, broken, "list")
    assert listed.returncode == 0 and "DAMAGED" not in listed.stdout
    assert "installed, but it fails to load: ImportError: the flip tables are missing" in listed.stdout
    assert "install its package" not in listed.stdout
    opened = gmdesk(saves, broken, "char", "Coins", "list")
    assert opened.returncode == 2 and "installed but fails to load" in opened.stderr
    (saves / "Coins.gmdesk.lock").unlink()
    refused = gmdesk(saves, broken, "char", "Coins", "add", "Bruno")  # a writer refused: no lock left
    assert refused.returncode == 2 and "installed but fails to load" in refused.stderr
    assert not (saves / "Coins.gmdesk.lock").exists()
    for plugin_site in (broken, None):  # failing to load, or not installed at all
        checked = gmdesk(saves, plugin_site, "check", "Coins")
        assert checked.returncode == 0, checked.stdout
        assert "DAMAGED" not in checked.stdout and "sound" in checked.stdout and "needs plug-in: flip" in checked.stdout
    assert {p.name: p.read_bytes() for p in saves.iterdir() if p.name != "Coins.gmdesk.lock"} == before
    # a session that is damaged and needs a plug-in is still DAMAGED
    raw = (saves / "Coins.gmdesk").read_bytes()
    (saves / "Coins.gmdesk").write_bytes(raw[: len(raw) // 2])
    (saves / "Coins.gmdesk.ckpt").unlink(missing_ok=True)
    checked = gmdesk(saves, None, "check", "Coins")
    assert checked.returncode == 1 and "DAMAGED" in checked.stdout
