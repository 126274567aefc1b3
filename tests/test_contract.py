"""A dice system is one typed declaration: every member is read from its module in
one place (``SystemSpec.from_module``), a wrong one is refused naming it and what it
must be, and the rest of gmdesk uses the typed members, never the module."""

from __future__ import annotations

import re
import textwrap
import types
from pathlib import Path

import pytest
from coin_plugin import registered
from plugin_site import BASE, plugin_site

from gmdesk.core.systems import get_spec, load_problems, system_ids
from gmdesk.core.systems.spec import SystemSpec

ROOT = Path(__file__).resolve().parents[1]


def module_of(extra: str = "", name: str = "gmdesk_bad") -> types.ModuleType:
    """A plug-in module written here: :data:`plugin_site.BASE` and ``extra``."""
    module = types.ModuleType(name)
    exec(compile(BASE.format(id="bad") + textwrap.dedent(extra), name, "exec"), module.__dict__)
    return module


def test_a_complete_declaration_reads_into_typed_members() -> None:
    spec = SystemSpec.from_module(module_of())
    assert (spec.id, spec.name, [p.name for p in spec.params]) == ("bad", "Plain die", ["sides"])
    assert callable(spec.roll) and callable(spec.odds) and callable(spec.initiative)
    assert spec.read_form is None and spec.rest is None and spec.initiative_hint == "a number"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("ODDS_FOLD = (5, 1)", "gmdesk_bad.ODDS_FOLD must be two whole numbers, low then high"),
        ("ODDS_FOLD = 'wide'", "gmdesk_bad.ODDS_FOLD must be two whole numbers, low then high"),
        ("read_form = 3", "gmdesk_bad.read_form must be a function"),
        ("roll_uses = 'Slingshot'", "gmdesk_bad.roll_uses must be a function"),
        ("initiative_modifier = 2", "gmdesk_bad.initiative_modifier must be a function"),
        ("SIGNED = 'yes'", "gmdesk_bad.SIGNED must be True or False"),
        ("CLOCKS = 1", "gmdesk_bad.CLOCKS must be True or False"),
        ("PARAMS = ('sides',)", "gmdesk_bad.PARAMS must be a tuple of Param"),
        ("CHARACTER_FIELDS = ({'name': 'luck'},)", "gmdesk_bad.CHARACTER_FIELDS must be a tuple of CharField"),
        ("CHARACTER_SECTIONS = {'vitality', 'hit points'}", "gmdesk_bad.CHARACTER_SECTIONS must be a set of"),
        ("ROLL_SOURCES = ('mana', True)", "gmdesk_bad.ROLL_SOURCES must be (kind, opposed)"),
        ("Params = 5", "gmdesk_bad.Params must be a class"),
        ("SETTINGS = ('loud',)", "gmdesk_bad.SETTINGS must be a tuple of Setting"),
        ("EXTRA_LABELS = (('heads',),)", "gmdesk_bad.EXTRA_LABELS must be (key, label) pairs of text"),
        ("DEFENSELESS = 'sides'", "gmdesk_bad.DEFENSELESS must name one of its bool parameters"),
        ("NAME = ''", "gmdesk_bad.NAME must be a display name (text)"),
        ("del odds", "gmdesk_bad declares no odds"),
        ("result_distribution = {1: 1}", "gmdesk_bad.result_distribution must be a function"),
        ("curve = 'bell'", "gmdesk_bad.curve must be a function"),
        ("VALUE_LABEL = ' '", "gmdesk_bad.VALUE_LABEL must be a name for the roll's value (text)"),
        ("migrate = None\nchronicle = 'short'", "gmdesk_bad.chronicle must be a function"),
    ],
)
def test_a_wrongly_declared_member_is_refused_naming_it(extra: str, message: str) -> None:
    with pytest.raises(ValueError) as e:
        SystemSpec.from_module(module_of(extra))
    assert str(e.value).startswith(message), str(e.value)


def test_an_installed_plug_in_with_a_wrong_member_is_left_out_saying_which(tmp_path: Path) -> None:
    site = plugin_site(tmp_path, "wrongfold", "ODDS_FOLD = (9, 2)\n")
    with registered(site):
        assert "wrongfold" not in system_ids()
        (line,) = [p for p in load_problems() if "wrongfold" in p]
        assert "gmdesk_wrongfold.ODDS_FOLD must be two whole numbers, low then high" in line
        assert "4d2" in system_ids()  # the others keep working


def test_the_typed_members_are_the_module_s_own_functions() -> None:
    spec = get_spec("1d6x4")
    module = spec.module
    assert module is not None
    for name, member in SystemSpec.members():
        declared = getattr(module, member.attr, None)
        if callable(declared) and not isinstance(declared, type):
            assert getattr(spec, name) is declared, name
    assert spec.initiative_options == {"auto_fail"}
    assert spec.takes("read_form") >= {"items"}


# --------------------------------------------------------------------------- nobody else reads a module

#: what reads a system module other than through its declaration
_MODULE_READS = re.compile(
    r"\.module\b(?!_)"  # spec.module / spec.module.odds
    r"|\.hook\("  # the old spec.hook("…")
    r"|getattr\(\s*(?:spec|module|system_module|mod|sysmod|system)\b"  # getattr(spec.module, "…")
    r"|inspect\.signature\("  # a hook's signature read where it is called
)


def test_no_system_module_is_read_outside_the_declaration() -> None:
    """A plain reading of the source, comments included: outside ``core/systems/spec.py``
    (and the registry that imports the modules) nothing looks up a system's member on
    its module, by ``getattr``, ``.module`` or a signature."""
    allowed = {ROOT / "core" / "systems" / "spec.py", ROOT / "core" / "systems" / "__init__.py"}
    found = []
    for folder in ("core", "tui"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path in allowed:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if _MODULE_READS.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "a system module read outside its declaration:\n" + "\n".join(found)


def test_the_package_ships_its_types() -> None:
    assert (ROOT / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^"gmdesk" = \[[^\]]*"py\.typed"', text, re.M), "py.typed is package data"


def test_every_member_is_documented_with_its_type() -> None:
    """docs/PLUGINS.md's reference names every member a system may declare."""
    text = (ROOT / "docs" / "PLUGINS.md").read_text(encoding="utf-8")
    reference = text[text.index("## 11. The declaration, member by member") :]
    missing = [m.attr for _, m in SystemSpec.members() if f"| `{m.attr}` |" not in reference]
    assert not missing, f"PLUGINS.md documents no {', '.join(missing)}"
