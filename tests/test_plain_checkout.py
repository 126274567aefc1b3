"""The checkout works with the ordinary tools: gmdesk is one import name, ``gmdesk``.

No module imports ``core``, ``tui`` or ``saves`` other than as ``gmdesk.…`` (such an
import would load a second copy of every module: a second ``GmdeskError`` that no
``except`` catches), a bare ``import core`` from the repository root is refused in one
line, mypy reads gmdesk from the installed package (no link back to the checkout), the
installed package holds every source file of the checkout, and the examples' builder
is a command with ``--help``.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from gmdesk.saves import make_examples

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("core", "tui", "saves")
SKIP_DIRS = {".git", ".venv", "build", "dist", "__pycache__", "__snapshots__"}


def python_sources() -> list[Path]:
    """Every Python file of the repository: the package, its tests, benchmarks, examples."""
    return sorted(
        p
        for p in ROOT.rglob("*.py")
        if not SKIP_DIRS.intersection(p.relative_to(ROOT).parts)
        and not any(part.endswith(".egg-info") for part in p.parts)
    )


def bare_imports(path: Path, strings: bool = True) -> list[str]:
    """``line: statement`` for each import of a layer by its bare name (code only: comments
    and docstrings are not read), a module named in a string included:
    ``importlib.import_module("core…")``, ``find_spec``, ``importlib.resources.files``,
    and the imports of code held in a string (``python -c "from core import …"``)."""
    return _bare_imports_in(path.read_text(encoding="utf-8"), str(path), strings)


def _bare_imports_in(source: str, filename: str, strings: bool, at: int | None = None) -> list[str]:
    tree = ast.parse(source, filename=filename)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__", "find_spec", "files")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and strings
            and "import" in node.value
            and id(node) not in docstrings
        ):
            try:  # a string that is Python code: its own imports
                found += _bare_imports_in(node.value, filename, strings, at or node.lineno)
            except SyntaxError:
                pass
        found += [f"{at or node.lineno}: {name}" for name in names if name.split(".")[0] in LAYERS]
    return found


def test_the_scan_sees_a_bare_import_and_not_a_comment(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "# import core\n"
        '"""from tui import app"""\n'
        "import gmdesk.core\n"
        "from gmdesk.saves import make_examples\n"
        "from . import core\n"
        "import core.dice\n"
        "from saves import make_examples\n"
        "importlib.import_module('tui.app')\n"
        "resources.files('saves')\n"
        "resources.files('gmdesk.saves')\n"
        "run([sys.executable, '-c', 'import sys; from core.session import Session'])\n"
        "run([sys.executable, '-c', 'from gmdesk.core.session import Session'])\n"
        "print('import core, as prose, is no code')\n",
        encoding="utf-8",
    )
    assert bare_imports(sample) == ["6: core.dice", "7: saves", "8: tui.app", "9: saves", "11: core.session"]


def test_no_module_imports_a_layer_but_as_gmdesk() -> None:
    sources = python_sources()
    assert ROOT / "core" / "session" / "__init__.py" in sources and ROOT / "tests" / "conftest.py" in sources
    # (the code in this file's strings is the scan's samples)
    found = {str(p.relative_to(ROOT)): bare_imports(p, strings=p != Path(__file__).resolve()) for p in sources}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_declared_modules_are_named_as_gmdesk() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    targets = [*project["project"]["scripts"].values()]
    for group in project["project"]["entry-points"].values():
        targets += group.values()
    targets += project["tool"]["mypy"]["packages"]
    assert targets and [t for t in targets if t != "gmdesk" and not t.startswith("gmdesk.")] == []


@pytest.mark.parametrize("layer", LAYERS)
def test_a_bare_import_from_the_repository_root_is_refused(layer: str) -> None:
    # `python -c` puts the current folder first on sys.path, so from the root the folder
    # itself would be found: it refuses, naming the import that works
    done = subprocess.run(
        [sys.executable, "-c", f"import {layer}"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert f"ImportError: gmdesk's {layer} is imported as gmdesk.{layer}" in done.stderr
    done = subprocess.run(
        [sys.executable, "-c", f"import gmdesk.{layer}"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_the_installed_package_holds_every_source_file_of_the_checkout() -> None:
    # the strict editable install (README) links each file at install time: the links are
    # what mypy and an IDE read, and a file added since has none until the README's
    # `pip install` runs again (.ci/check runs it first)
    import gmdesk

    assert gmdesk.__file__ is not None
    installed = Path(gmdesk.__file__).parent
    folders = [p.parent for p in ROOT.glob("*/__init__.py") if p.parent.name not in NOT_GMDESK]
    assert {"core", "tui", "saves"} <= {f.name for f in folders}
    missing = sorted(
        str(p.relative_to(ROOT))
        for p in [*ROOT.glob("*.py"), *(p for folder in folders for p in folder.rglob("*"))]
        if p.suffix in (".py", ".json", ".toml", ".tcss", ".html", ".gmdesk")
        and "__pycache__" not in p.parts
        and not (installed / p.relative_to(ROOT)).is_file()
    )
    assert missing == [], f"not in the installed gmdesk ({installed}): reinstall with the README's command"
    assert (installed / "py.typed").is_file()


#: folders of the root that are not part of the gmdesk package
NOT_GMDESK = {"benchmarks", "examples", "tests"}


def test_every_package_folder_is_declared_in_pyproject() -> None:
    # a folder with an __init__.py that pyproject.toml does not list would run here (gmdesk
    # runs from the checkout) but be missing from every install
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    folders = {
        ".".join(["gmdesk", *p.parent.relative_to(ROOT).parts])
        for p in ROOT.rglob("__init__.py")
        if not SKIP_DIRS.intersection(p.relative_to(ROOT).parts)
        and not NOT_GMDESK.intersection(p.relative_to(ROOT).parts[:1])
    }
    assert {"gmdesk", "gmdesk.core", "gmdesk.core.session.storage", "gmdesk.tui.widgets", "gmdesk.saves"} <= folders
    missing = sorted(folders - set(declared))
    assert missing == [], f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
    assert sorted(set(declared) - folders) == [], "pyproject.toml lists packages that are no folder"


def test_the_root_folders_init_imports_as_a_lone_module() -> None:
    # what pytest does with the root's __init__.py when the checkout's folder name is no
    # Python name (a clone into gmdesk-main/): it imports it as the module `__init__`
    done = subprocess.run([sys.executable, "-c", "import __init__"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_gmdesk_runs_from_the_checkout_itself() -> None:
    # whatever the links say, the modules and data are read from the checkout: a module
    # added since the install imports at once, and __file__ is the file one edits
    import gmdesk
    import gmdesk.core.dice

    assert list(gmdesk.__path__) == [str(ROOT)]
    assert gmdesk.core.dice.__file__ == str(ROOT / "core" / "dice.py")


@pytest.mark.slow
def test_mypy_reads_gmdesk_from_the_installed_package(tmp_path: Path) -> None:
    # outside the checkout and with no mypy_path: only the install can tell mypy where
    # gmdesk is, and it reads gmdesk's types (py.typed), not "module not found"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / "cache"),
            "-c",
            "from gmdesk.core.errors import GmdeskError\nx: int = GmdeskError('x')\n",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'expression has type "GmdeskError", variable has type "int"' in done.stdout, done.stdout
    assert "import-not-found" not in done.stdout and "py.typed" not in done.stdout


def test_make_examples_help_prints_help_and_writes_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gmdesk.saves.make_examples", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "1000"},  # one line each: a path is not broken at its hyphen
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m gmdesk.saves.make_examples [-h] [DIR]")
    assert str(ROOT / "saves") in done.stdout  # the default folder is named
    assert list(tmp_path.iterdir()) == []


def test_make_examples_refuses_a_file_as_its_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("mine", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        make_examples.main([str(target)])
    assert exit_.value.code == 2
    assert "DIR: " in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "mine"


def test_make_examples_defaults_to_the_saves_folder_of_the_checkout() -> None:
    assert make_examples.HERE == ROOT / "saves"


def test_make_examples_writes_the_examples_into_the_given_folder(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gmdesk.saves.make_examples", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (tmp_path / "out").glob("*.gmdesk"))
    assert written == sorted(p.name for p in (ROOT / "saves").glob("*.gmdesk"))
    assert done.stdout.splitlines() and all(Path(line).parent.name == "out" for line in done.stdout.splitlines())


def test_the_shipped_examples_are_among_the_folders_no_output_writes_into() -> None:
    from gmdesk.core import outputs
    from gmdesk.core.session.saves import _examples_dir

    assert ROOT / "saves" in outputs._saves_dirs(None)
    assert _examples_dir() == ROOT / "saves"


def test_a_shipped_example_is_never_deleted(monkeypatch: pytest.MonkeyPatch) -> None:
    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.session import lock
    from gmdesk.core.session.saves import SessionStore

    example = sorted((ROOT / "saves").glob("*.gmdesk"))[0]
    before = example.read_bytes()

    def never(*args: object, **kwargs: object) -> None:  # the delete got past its check: stop it here
        raise AssertionError("the shipped example was about to be deleted")

    monkeypatch.setattr(lock, "WriterLock", never)
    with pytest.raises(GmdeskError, match="is a shipped example; examples are never changed"):
        SessionStore(ROOT / "saves").delete(example)
    assert example.read_bytes() == before
