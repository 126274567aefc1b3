"""The built wheel adds one import name, ``gmdesk`` (beside its dist-info), and the
installed ``gmdesk --version`` prints the version of the package metadata."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def project_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


@pytest.mark.slow
def test_the_wheel_holds_gmdesk_and_its_dist_info_only(tmp_path: Path) -> None:
    # built from a copy: setuptools writes build/ and *.egg-info beside the sources
    src = tmp_path / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"),
    )
    wheels = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), "."],
        cwd=src,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = wheels.glob("gmdesk-*.whl")
    version = project_version()
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = zf.read(f"gmdesk-{version}.dist-info/METADATA").decode()
    assert {name.split("/")[0] for name in names} == {"gmdesk", f"gmdesk-{version}.dist-info"}
    assert f"\nVersion: {version}\n" in meta
    # the whole package: both layers, their data, the example saves
    assert {"gmdesk/__main__.py", "gmdesk/cli/main.py", "gmdesk/tui/app.py"} <= set(names)
    assert any(n.startswith("gmdesk/core/data/") and n.endswith(".json") for n in names)
    assert any(n.startswith("gmdesk/saves/") and n.endswith(".gmdesk") for n in names)
    assert "gmdesk/py.typed" in names  # PEP 561: a plug-in's mypy reads gmdesk's types
    # the root's modules (a .py file there is a module of gmdesk), and every module of
    # every package folder of the root, one added later included
    assert {n for n in names if n.count("/") == 1 and n.startswith("gmdesk/")} == {
        f"gmdesk/{p.name}" for p in ROOT.glob("*.py")
    } | {"gmdesk/py.typed"}
    assert {"gmdesk/__init__.py", "gmdesk/__main__.py", "gmdesk/testing.py"} <= set(names)
    layers = [p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name not in ("benchmarks", "tests")]
    assert {"core", "tui", "saves"} <= set(layers)
    sources = {
        f"gmdesk/{p.relative_to(ROOT).as_posix()}"
        for layer in layers
        for p in (ROOT / layer).rglob("*")
        if p.suffix in (".py", ".json", ".tcss", ".html") and "__pycache__" not in p.parts
    }
    assert sources - set(names) == set()


def test_gmdesk_version_prints_the_package_metadata_version() -> None:
    command = shutil.which("gmdesk", path=str(BIN)) or pytest.fail(f"no gmdesk command in {BIN}")
    done = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"gmdesk {metadata.version('gmdesk')}\n"
    assert metadata.version("gmdesk") == project_version()
