"""The example plug-in systems (``examples/gmdesk-coin``, ``examples/gmdesk-brawl``),
installed for real by pip into a temporary directory, never into the environment the
tests run in.

``coin_site()`` / ``brawl_site()`` is that directory (installed once per test run, offline, with the
environment's own setuptools); ``gmdesk_env(site)`` is the environment of a ``gmdesk``
subprocess that sees it; ``registered(site)`` makes this process see it for a
with-block and puts the registry back as it was afterwards.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "gmdesk-coin"
BRAWL = ROOT / "examples" / "gmdesk-brawl"
GMDESK = [sys.executable, "-m", "gmdesk"]


def install(package: Path, dest: Path) -> Path:
    """``pip install --target`` of ``package`` into ``dest/site``: no dependencies, no
    index, no build isolation (the environment's setuptools builds it). The package is
    built from a copy: setuptools writes build/ and *.egg-info beside its sources."""
    src = dest / "src"
    shutil.copytree(package, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    site = dest / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--no-build-isolation"]
        + ["--disable-pip-version-check", "--target", str(site), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return site


def can_build() -> bool:
    """Whether this environment's setuptools builds a wheel by itself (70.1 and later,
    or an older one beside the ``wheel`` package)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(part) for part in version("setuptools").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


def _site(package: Path) -> Path:
    if not can_build():
        import pytest

        pytest.skip("this environment's setuptools cannot build the example: pip install -e '.[test]' again")
    dest = Path(tempfile.mkdtemp(prefix=package.name + "-"))
    atexit.register(shutil.rmtree, dest, True)
    return install(package, dest)


@functools.cache
def coin_site() -> Path:
    """The directory the example plug-in is installed in (once per test run)."""
    return _site(EXAMPLE)


@functools.cache
def brawl_site() -> Path:
    """The directory the second example plug-in (``examples/gmdesk-brawl``: Vitality,
    knock-outs, clocks) is installed in (once per test run)."""
    return _site(BRAWL)


def gmdesk_env(*sites: Path, **extra: str) -> dict[str, str]:
    """The environment of a ``gmdesk`` subprocess that finds the plug-ins in ``sites``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, sites), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


def gmdesk(*args: str, sites: tuple[Path, ...] = (), cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``gmdesk ARGS`` (as ``python -m gmdesk``) with the plug-ins of ``sites``."""
    return subprocess.run(
        [*GMDESK, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=gmdesk_env(*sites, COLUMNS="100", NO_COLOR="1"),
        cwd=cwd,
    )


def clear_registry() -> None:
    """Forget every system the registry has found or loaded (and what it cached from
    them), so that the next look-up reads the installed plug-ins again."""
    from gmdesk.core import systems

    systems._plugins.cache_clear()
    systems._load.cache_clear()
    systems.secret_params.cache_clear()
    importlib.invalidate_caches()


@contextlib.contextmanager
def registered(*sites: Path) -> Iterator[None]:
    """The plug-ins installed in ``sites`` are registered systems of this process for
    the with-block; afterwards the registry is as it was (their modules forgotten)."""
    before = set(sys.modules)
    sys.path[:0] = [str(s) for s in sites]
    clear_registry()
    try:
        yield
    finally:
        for s in sites:
            sys.path.remove(str(s))
        for name in set(sys.modules) - before:
            module = sys.modules[name]
            if any(str(getattr(module, "__file__", "") or "").startswith(str(s)) for s in sites):
                del sys.modules[name]
        clear_registry()
