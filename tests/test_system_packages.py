"""The built-in systems split by job (1d6x4 and 4d6 are packages): the declaration is
the package, each part says its one job, the terminal app's contract names every part,
and a system's own modules import one another one way only."""

from __future__ import annotations

import ast
import configparser
import importlib
import pkgutil
from pathlib import Path

import pytest

from gmdesk.core.systems import BUILTIN_MODULES, get_spec

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "1d6x4": (
        "gmdesk.core.systems.one_d6_x4",
        {"character", "combat", "damage", "params", "sheet", "test", "texts", "vitality"},
    ),
    "4d6": ("gmdesk.core.systems.core_4d6", {"character", "params", "rolls", "rules", "tables"}),
}


def _parts(package: str) -> set[str]:
    return {m.name for m in pkgutil.iter_modules(importlib.import_module(package).__path__)}


@pytest.mark.parametrize("system", sorted(PACKAGES))
def test_the_declaration_is_the_package_and_its_parts_are_its_jobs(system: str) -> None:
    package, parts = PACKAGES[system]
    assert BUILTIN_MODULES[system] == package
    spec = get_spec(system)
    assert spec.module is importlib.import_module(package)
    assert spec.source_file is not None and spec.source_file.endswith("__init__.py")
    assert _parts(package) == parts
    # a part is never a contract member's name (the declaration reads its own attributes)
    members = {m.attr for _, m in type(spec).members()}
    assert not parts & members


@pytest.mark.parametrize("system", sorted(PACKAGES))
def test_each_part_opens_with_the_one_job_it_does(system: str) -> None:
    package, parts = PACKAGES[system]
    for name in ["__init__", *sorted(parts)]:
        path = ROOT.joinpath(*package.split(".")[1:], f"{name}.py")
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert doc and doc.splitlines()[0].strip(), f"{path} opens with no line saying its job"


@pytest.mark.parametrize("system", sorted(PACKAGES))
def test_each_part_imports_its_siblings_one_way_only(system: str) -> None:
    """No part imports the package (its declaration) nor a sibling that imports it back."""
    package, parts = PACKAGES[system]
    edges: dict[str, set[str]] = {}
    for name in parts:
        path = ROOT.joinpath(*package.split(".")[1:], f"{name}.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module is not None}
        assert package not in found, f"{name} imports the declaration {package}"
        edges[name] = {m.rsplit(".", 1)[1] for m in found if m.startswith(package + ".")}

    def reaches(start: str, goal: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in edges[start])

    assert not [name for name in parts if reaches(name, name)]


def test_the_terminal_app_reaches_no_part_of_a_system_but_through_the_registry() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    forbidden = set(config["importlinter:contract:tui-through-the-registry"]["forbidden_modules"].split())
    for package, parts in PACKAGES.values():
        assert {package, *(f"{package}.{p}" for p in parts)} <= forbidden
    assert set(BUILTIN_MODULES.values()) <= forbidden
