"""Tables are data: the shipped ones load and match the seed, a GM's own table is
validated with an error naming the file and the problem, and it takes effect."""

import json
import subprocess
import sys

import pytest

from gmdesk.core.dice import FixedDice
from gmdesk.core.errors import TableError
from gmdesk.core.systems import get_system
from gmdesk.core.tables import BandTable, DescriptorTable, TableSet, builtin_names, load_builtin, load_table


def test_every_builtin_table_loads():
    names = builtin_names()
    assert {"4d2-combat", "4d2-maneuver", "4d2-outcomes", "torg-combat-rows", "fudge-wounds", "4d6-combat-rows"} <= set(
        names
    )
    for name in names:
        assert isinstance(load_builtin(name), (DescriptorTable, BandTable))


def test_combat_table_matches_the_seed_rows():
    t = load_builtin("4d2-combat")
    assert t.columns == ("organic", "inorganic")
    assert sorted(t.rows) == list(range(-10, 11))
    assert t.lookup(10, "inorganic") == "Attribute Loss x 2"
    assert t.lookup(-10, "inorganic") == "Attribute Loss x 1"
    assert t.lookup(6, "organic") == "Severe Wound"
    assert t.lookup(-2, "inorganic") == "Cosmetic Damage"
    assert t.lookup(0, "organic") == "Ongoing combat story"


@pytest.mark.parametrize(
    "content,problem",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"name": "x", "columns": ["organic"], "rows": {"ten": ["A"]}}', "not a whole number"),
        ('{"name": "x", "columns": ["organic", "inorganic"], "rows": {"1": ["A"]}}', "must list 2 text"),
        ('{"name": "", "columns": ["a"], "rows": {"1": ["A"]}}', "'name'"),
        ('{"name": "x", "kind": "bands", "bands": [{"lo": 3, "hi": 1, "value": 1}]}', "lo 3 above hi 1"),
    ],
)
def test_bad_gm_table_is_refused_with_file_and_problem(tmp_path, content, problem):
    f = tmp_path / "mine.json"
    f.write_text(content)
    with pytest.raises(TableError) as err:
        load_table(f)
    assert str(f) in str(err.value) and problem in str(err.value)


def test_missing_table_file_is_named(tmp_path):
    with pytest.raises(TableError, match="cannot read"):
        load_table(tmp_path / "nope.json")


def _gm_table(tmp_path):
    rows = {str(n): [f"Ouch {n}", f"Clank {n}"] for n in range(-10, 11)}
    f = tmp_path / "ouch.json"
    f.write_text(json.dumps({"name": "ouch", "columns": ["organic", "inorganic"], "rows": rows}))
    return f


def test_gm_table_takes_effect_in_a_roll(tmp_path):
    tables = TableSet({"combat": load_table(_gm_table(tmp_path))})
    m = get_system("4d2")
    rec = m.roll(m.Params(combat=True, target_kind="inorganic"), FixedDice([6, 6, 1, 1]), tables)
    assert rec.descriptor.text == "Clank 10"
    assert rec.descriptor.table == "ouch"


def test_cli_table_option(tmp_path):
    f = _gm_table(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "gmdesk", "roll", "4d2", "--combat", "--seed", "1", "--json", "--table", f"combat={f}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out)["descriptor"]["text"].startswith(("Ouch", "Clank"))
    bad = subprocess.run(
        [sys.executable, "-m", "gmdesk", "roll", "4d2", "--table", "nonsense"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "--table" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("namespace", [False, True])
def test_a_packages_own_table_is_read_from_a_package_or_a_namespace_package(tmp_path, monkeypatch, namespace):
    """A plug-in's tables are read from its package, whether it has an ``__init__.py``
    (read by its loader) or is a namespace package (read through importlib.resources);
    a table it lacks is named."""
    package = "gmdesk_table_probe_ns" if namespace else "gmdesk_table_probe"
    folder = tmp_path / package
    folder.mkdir()
    if not namespace:
        (folder / "__init__.py").write_text("", encoding="utf-8")
    table = {"name": "probe-bands", "kind": "bands", "bands": [{"lo": None, "hi": None, "value": "all"}]}
    (folder / "probe-bands.json").write_text(json.dumps(table), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert TableSet().band_table("probe-bands", package=package).lookup(3) == "all"
    with pytest.raises(TableError, match=f"no table in {package} named 'nothing-here'"):
        load_builtin("nothing-here", package)
