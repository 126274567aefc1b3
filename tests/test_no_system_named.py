"""The session layer and the desk serve every dice system alike: ``core/session`` and
``tui/`` name no system — no id, no display name, no system module, in code or in a
comment — and import no system module. What a system decides is its declaration
(``core/systems/spec.py``), so a plug-in can do all a built-in does."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gmdesk.core.systems import BUILTIN_MODULES, get_spec

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("core/session", "tui")

#: what names a built-in: its id, its display name, its module, and the word "torg"
#: (torg's own terms, Possibilities and the like, are its declaration's to name)
NAMES = sorted(
    {
        *(sid for sid in BUILTIN_MODULES),
        *(get_spec(sid).name for sid in BUILTIN_MODULES),
        *(m.rpartition(".")[2] for m in BUILTIN_MODULES.values()),
        "torg",
    },
    key=len,
    reverse=True,
)
NAMED = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in NAMES) + r")(?![\w])", re.IGNORECASE)


def _sources() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*") if p.suffix in (".py", ".tcss"))


def test_the_scan_finds_a_name_in_code_and_in_a_comment() -> None:
    assert NAMED.search('if record.system == "1d6x4":')
    assert NAMED.search("# the torg Possibility spend")
    assert NAMED.search("from gmdesk.core.systems.core_4d6 import clocks")
    assert not NAMED.search("a 14d6x4 roll, a d20, a 4d20 pool")


def test_no_file_of_the_session_layer_or_the_desk_names_a_system() -> None:
    assert _sources(), "the layers are where this test looks for them"
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _sources()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if NAMED.search(line)
    ]
    assert not found, "a system named where every system is served alike:\n" + "\n".join(found)


@pytest.mark.parametrize("layer", LAYERS)
def test_no_module_of_the_layer_imports_a_system_module(layer: str) -> None:
    systems = set(BUILTIN_MODULES.values())
    found = []
    for path in (ROOT / layer).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            found += [
                f"{path.relative_to(ROOT)}: {n}"
                for n in names
                if n in systems or n.startswith(tuple(s + "." for s in systems))
            ]
    assert not found, "a system module imported:\n" + "\n".join(found)
