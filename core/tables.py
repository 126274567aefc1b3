"""Tables as data: descriptor tables (row -> text per column) and band tables
(ranges of a number -> a value). The shipped ones live in ``core/data/*.json`` and are
read through their package's loader (``importlib.resources`` where the loader cannot
read a file itself); a GM's own table is a JSON file of the same shape,
validated on load with an error naming the file and the problem.

Descriptor table file::

    {"name": "my-combat", "title": "…", "columns": ["organic", "inorganic"],
     "rows": {"10": ["Fatal Wound", "Attribute Loss x 2"], …, "-10": [...]}}

Band table file (``lo``/``hi`` inclusive, ``null`` for open ends)::

    {"name": "torg-combat-rows", "kind": "bands",
     "bands": [{"lo": null, "hi": -1, "value": -1}, {"lo": 0, "hi": 0, "value": 1}, …]}

A band's ``value`` may be any JSON value (an int row, a label, a list of rows…).

A plug-in system ships its tables the same way, as JSON files in its own package,
and reads them through the TableSet with its package named
(``tables.descriptor_table("coin-bruise", package="gmdesk_coin")``): a session's or
``--table``'s own table for the role still wins.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from gmdesk.core.errors import TableError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


@dataclass(frozen=True)
class DescriptorTable:
    """Rows (a number) of texts, one per column (a receiver's kind…).

    (Each dataclass here says what it is: one without a docstring is given one made
    by ``inspect.signature`` as its module is imported, a cost on every start-up.)"""

    name: str
    title: str
    columns: tuple[str, ...]
    rows: Mapping[int, tuple[str, ...]]

    def lookup(self, row: int, column: str | None = None) -> str:
        if row not in self.rows:
            raise TableError(f"table {self.name!r} has no row {row:+d}")
        texts = self.rows[row]
        if column is None or len(self.columns) == 1:
            return texts[0]
        try:
            return texts[self.columns.index(column)]
        except ValueError:
            raise TableError(f"table {self.name!r} has no column {column!r} (has {', '.join(self.columns)})") from None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "columns": list(self.columns),
            "rows": {str(k): list(v) for k, v in sorted(self.rows.items(), reverse=True)},
        }


@dataclass(frozen=True)
class BandTable:
    """Ranges of a number (``lo``/``hi`` inclusive, None for an open end), each to a value."""

    name: str
    bands: tuple[tuple[int | None, int | None, Any], ...]
    title: str = ""

    def lookup(self, x: int) -> Any:
        for lo, hi, value in self.bands:
            if (lo is None or x >= lo) and (hi is None or x <= hi):
                return value
        raise TableError(f"table {self.name!r} has no band for {x}")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": "bands",
            "title": self.title,
            "bands": [{"lo": lo, "hi": hi, "value": v} for lo, hi, v in self.bands],
        }


Table = DescriptorTable | BandTable


def parse_table(data: Any, source: str = "<table>") -> Table:
    """Validate JSON data as a table; raise TableError naming ``source`` and the problem."""
    if not isinstance(data, Mapping):
        raise TableError(f"{source}: a table must be a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TableError(f"{source}: 'name' must be a non-empty string")
    if data.get("kind") == "bands":
        bands = data.get("bands")
        if not isinstance(bands, list) or not bands:
            raise TableError(f"{source}: 'bands' must be a non-empty list")
        out = []
        for i, b in enumerate(bands):
            if not isinstance(b, Mapping) or "value" not in b:
                raise TableError(f"{source}: band {i} must be an object with lo, hi and value")
            lo, hi = b.get("lo"), b.get("hi")
            for k, v in (("lo", lo), ("hi", hi)):
                if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
                    raise TableError(f"{source}: band {i} '{k}' must be an integer or null")
            if lo is not None and hi is not None and lo > hi:
                raise TableError(f"{source}: band {i} has lo {lo} above hi {hi}")
            out.append((lo, hi, b["value"]))
        return BandTable(name, tuple(out), str(data.get("title", "")))
    columns = data.get("columns")
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) and c for c in columns):
        raise TableError(f"{source}: 'columns' must be a non-empty list of names")
    rows = data.get("rows")
    if not isinstance(rows, Mapping) or not rows:
        raise TableError(f"{source}: 'rows' must be an object of row number -> texts")
    parsed: dict[int, tuple[str, ...]] = {}
    for key, texts in rows.items():
        try:
            row = int(key)
        except (TypeError, ValueError):
            raise TableError(f"{source}: row key {key!r} is not a whole number") from None
        if isinstance(texts, str):
            texts = [texts] * len(columns)
        if not isinstance(texts, list) or len(texts) != len(columns) or not all(isinstance(t, str) for t in texts):
            raise TableError(f"{source}: row {key} must list {len(columns)} text(s), one per column")
        parsed[row] = tuple(texts)
    return DescriptorTable(name, str(data.get("title", name)), tuple(columns), parsed)


#: the package gmdesk's own tables ship in
DATA_PACKAGE = "gmdesk.core.data"


@cache
def load_builtin(name: str, package: str = DATA_PACKAGE) -> Table:
    """A shipped table by name, e.g. ``load_builtin("4d2-combat")``; a plug-in's own
    from its package, ``load_builtin("coin-bruise", "gmdesk_coin")``."""
    try:
        text = _package_text(package, f"{name}.json")
    except (FileNotFoundError, ModuleNotFoundError):
        where = "built-in table" if package == DATA_PACKAGE else f"table in {package}"
        raise TableError(f"no {where} named {name!r}") from None
    source = f"built-in table {name}" if package == DATA_PACKAGE else f"table {name} of {package}"
    return parse_table(json.loads(text), source)


def _package_text(package: str, filename: str) -> str:
    """The text of ``filename`` shipped in ``package``: read by the package's own loader
    (a folder, a zip), else through ``importlib.resources`` (a namespace package…), whose
    import costs a ``gmdesk roll`` more than the roll itself."""
    spec = importlib.import_module(package).__spec__
    loader = spec.loader if spec is not None else None
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    get_data = getattr(loader, "get_data", None)
    if get_data is not None and len(folders) == 1:
        try:
            data: bytes = get_data(os.path.join(folders[0], filename))
        except OSError:
            raise FileNotFoundError(filename) from None
        return data.decode("utf-8")
    from importlib import resources

    return resources.files(package).joinpath(filename).read_text(encoding="utf-8")


def builtin_names() -> list[str]:
    from importlib import resources

    return sorted(p.name[:-5] for p in resources.files("gmdesk.core.data").iterdir() if p.name.endswith(".json"))


#: the biggest file a GM's own table may be
MAX_TABLE_BYTES = 4 << 20


def load_table(path: str | Path) -> Table:
    """A GM's own table from a JSON file, validated."""
    from pathlib import Path

    from gmdesk.core.errors import GmdeskError
    from gmdesk.core.inputs import read_input

    p = Path(path)
    try:
        raw = read_input(p, MAX_TABLE_BYTES, "table")
    except GmdeskError as e:
        raise TableError(str(e)) from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TableError(f"{p}: not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise TableError(f"{p}: not valid JSON (line {e.lineno}: {e.msg})") from None
    except RecursionError:
        raise TableError(f"{p}: nested too deeply to be a table") from None
    try:
        return parse_table(data, str(p))
    except RecursionError:
        raise TableError(f"{p}: nested too deeply to be a table") from None


@dataclass(frozen=True)
class TableSet:
    """The tables in force for a roll: role name -> table.

    Roles used by the systems: ``combat`` (4d2 Combat table, also read by torg-2d10
    and 4d6 combat), ``maneuver`` (4d2), ``fudge-wounds``, ``torg-combat-rows``,
    ``4d6-combat-rows``. A session can point any role at a GM's own table. A
    plug-in system's role is its own table's name, read from its package
    (``get(role, package=…)``) unless overridden.
    """

    overrides: Mapping[str, Table] = field(default_factory=dict)

    DEFAULTS = {
        "combat": "4d2-combat",
        "maneuver": "4d2-maneuver",
        "outcomes": "4d2-outcomes",
        "fudge-wounds": "fudge-wounds",
        "torg-combat-rows": "torg-combat-rows",
        "4d6-combat-rows": "4d6-combat-rows",
    }

    def get(self, role: str, package: str | None = None) -> Table:
        """The table in force for ``role``: the override, else the built-in default,
        else (``package``: a plug-in's own role) the table of that name in ``package``."""
        if role in self.overrides:
            return self.overrides[role]
        if role in self.DEFAULTS:
            return load_builtin(self.DEFAULTS[role])
        if package is not None:
            return load_builtin(role, package)
        raise TableError(f"no table for role {role!r}")

    def descriptor_table(self, role: str, package: str | None = None) -> DescriptorTable:
        t = self.get(role, package)
        if not isinstance(t, DescriptorTable):
            raise TableError(f"table {t.name!r} for {role!r} is not a descriptor table")
        return t

    def band_table(self, role: str, package: str | None = None) -> BandTable:
        t = self.get(role, package)
        if not isinstance(t, BandTable):
            raise TableError(f"table {t.name!r} for {role!r} is not a band table")
        return t


DEFAULT_TABLES = TableSet()
