"""gmdesk's package list, found rather than listed (the rest of the build is in pyproject.toml).

The repository root is the package ``gmdesk`` (``package-dir`` in pyproject.toml), so
its subpackages are the folders of the root that hold an ``__init__.py`` — ``core``,
``tui``, ``saves`` and any added later, with their own subpackages — named under
``gmdesk.``. The folders beside them that are not gmdesk are left out.
"""

from setuptools import find_packages, setup

NOT_GMDESK = ("benchmarks", "build", "dist", "docs", "examples", "tests")

subpackages = sorted(find_packages(".", exclude=[f"{folder}*" for folder in NOT_GMDESK]))
setup(packages=["gmdesk", *(f"gmdesk.{name}" for name in subpackages)])
