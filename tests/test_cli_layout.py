"""The command line is a front end: ``gmdesk.cli`` uses core's public API only (no
private name from another module), core never imports it, and no module of gmdesk
joins an import cycle (the import-linter contracts, run as CI runs them)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / "cli"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _gmdesk_module(module: str | None, level: int, here: Path, root: Path) -> str | None:
    """The gmdesk module an import names (a relative import resolved), else None."""
    if level:
        parts = ["gmdesk", *here.relative_to(root).parent.parts]
        base = parts[: len(parts) - (level - 1)]
        return ".".join(base + ([module] if module else []))
    if module and (module == "gmdesk" or module.startswith("gmdesk.")):
        return module
    return None


def private_imports(path: Path, root: Path = ROOT) -> list[str]:
    """Every private name ``path`` takes from another gmdesk module: ``from gmdesk.x
    import _y``, ``import gmdesk.x._y``, and ``x._y`` on a gmdesk module it imported."""
    tree = ast.parse(path.read_text(), str(path))
    found: list[str] = []
    modules: set[str] = set()  # local names bound to gmdesk modules
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _gmdesk_module(node.module, node.level, path, root)
            if module is None:
                continue
            if any(_private(part) for part in module.split(".")):
                found.append(f"{path.name}:{node.lineno} from {module}")
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{path.name}:{node.lineno} {module}.{alias.name}")
                else:
                    modules.add(alias.asname or alias.name)  # perhaps a module: its attributes are checked
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("gmdesk"):
                    if any(_private(part) for part in alias.name.split(".")):
                        found.append(f"{path.name}:{node.lineno} import {alias.name}")
                    modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name):
            if node.value.id in modules:
                found.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
    return found


def test_the_command_line_takes_no_private_name_from_another_module() -> None:
    modules = sorted(CLI.glob("*.py"))
    assert {p.name for p in modules} >= {"main.py", "common.py", "rolls.py", "chars.py", "bestiary.py"}
    assert [f for p in modules for f in private_imports(p)] == []


def test_the_private_name_check_sees_each_way_of_taking_one(tmp_path: Path) -> None:
    """The check above fails on the shapes the command line once had (``from
    …commands import _guard`` inside a function, a module's private attribute)."""
    probe = tmp_path / "cli" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(
        "from gmdesk.cli.common import guard, _store\n"
        "from gmdesk.core.systems import spec as spec_mod\n"
        "from . import chars\n"
        "import gmdesk.core.session._hidden\n"
        "def f():\n"
        "    from gmdesk.core.session.charcli import _spec\n"
        "    return spec_mod._parse, chars._open, guard, chars.__doc__\n"
    )
    assert private_imports(probe, root=tmp_path) == [
        "probe.py:1 gmdesk.cli.common._store",
        "probe.py:4 import gmdesk.core.session._hidden",
        "probe.py:6 gmdesk.core.session.charcli._spec",
        "probe.py:7 spec_mod._parse",
        "probe.py:7 chars._open",
    ]


def test_core_imports_nothing_of_the_command_line() -> None:
    """Not even inside a function or a comment's example: core is below both front ends."""
    banned = ("import gmdesk.cli", "from gmdesk.cli", "from gmdesk import cli")
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted((ROOT / "core").rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if line.lstrip().startswith(banned)
    ]
    assert offenders == []


def test_every_command_line_module_leaves_textual_out() -> None:
    code = (
        "import pkgutil, importlib, sys, gmdesk.cli\n"
        "for m in pkgutil.iter_modules(gmdesk.cli.__path__):\n"
        "    importlib.import_module('gmdesk.cli.' + m.name)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    mods = set(done.stdout.split())
    assert "gmdesk.cli.bestiary" in mods and "gmdesk.cli.main" in mods
    assert not any(m == "textual" or m.startswith(("textual.", "gmdesk.tui")) for m in mods)


def test_the_import_contracts_hold_and_forbid_every_cycle() -> None:
    """``lint-imports`` as ``.ci/check`` runs it: the layers (core below cli and tui,
    the entry point above them) and no import cycle at any level of gmdesk."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or pytest.fail("no lint-imports")
    config = (ROOT / ".importlinter").read_text()
    assert "type = acyclic_siblings" in config and "ancestors =\n    gmdesk\n" in config
    done = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "BROKEN" not in done.stdout


def test_no_module_imports_late_to_dodge_a_cycle() -> None:
    """The dice systems import the built-in moves at the top, like any module: nothing
    imports back (no ``# noqa: E402`` import at the bottom of a module), and the
    built-in moves import no dice system."""
    late = [
        f"{p.relative_to(ROOT)}:{n}"
        for folder in ("core", "cli")
        for p in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if "noqa: E402" in line
    ]
    assert late == []
    from gmdesk.core.systems import BUILTIN_MODULES

    tree = ast.parse((ROOT / "core" / "systems" / "builtin_moves.py").read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
    dice = [m for m in imported if any(m == s or m.startswith((s + "_", s + ".")) for s in BUILTIN_MODULES.values())]
    assert dice == []
