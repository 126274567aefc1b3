"""What the rules ship and name: the Core Descriptors and the templates (data files
``1d6x4-core.json`` and ``1d6x4-templates.json``), and what kind of descriptor a name
is (Core, Expertise, Test Descriptor, Ability, or a Physical Item)."""

from __future__ import annotations

import re
from functools import cache

from gmdesk.core.errors import ParamError
from gmdesk.core.odds import Dist, die, sub
from gmdesk.core.tables import DescriptorTable, load_builtin

# --------------------------------------------------------------------------- data


@cache
def _core_table() -> DescriptorTable:
    t = load_builtin("1d6x4-core")
    assert isinstance(t, DescriptorTable)
    return t


def core_descriptors() -> tuple[str, ...]:
    """The Core Descriptors in sheet order (Defense … Wealth), from ``1d6x4-core.json``."""
    t = _core_table()
    return tuple(t.rows[k][t.columns.index("name")] for k in sorted(t.rows))


def core_descriptions() -> dict[str, str]:
    """Core Descriptor name -> what it measures."""
    t = _core_table()
    return {t.rows[k][0]: t.rows[k][1] for k in sorted(t.rows)}


@cache
def _template_table() -> DescriptorTable:
    t = load_builtin("1d6x4-templates")
    assert isinstance(t, DescriptorTable)
    return t


def templates() -> dict[str, str]:
    """The shipped templates: name -> template text (``1d6x4-templates.json``)."""
    t = _template_table()
    return {t.rows[k][0]: t.rows[k][1] for k in sorted(t.rows)}


def template(name: str) -> str:
    """One shipped template's text by name (case-insensitive)."""
    for k, text in templates().items():
        if norm(k) == norm(name):
            return text
    raise ParamError("template", f"no template {name!r}; choose one of {', '.join(templates())}")


def core_value_distribution() -> Dist:
    """Exact distribution of a rolled Core Descriptor, d6 − d4: −3..+5."""
    return sub(die(6), die(4))


# --------------------------------------------------------------------------- names


def norm(name: str) -> str:
    return " ".join(str(name).replace("*", " ").split()).casefold()


def _words(name: str) -> list[str]:
    return re.findall(r"[A-Za-z]+", name.casefold())


def is_ability_name(name: str) -> bool:
    """Ability Descriptors always include the word Ability."""
    return "ability" in _words(name)


def is_expertise_name(name: str) -> bool:
    w = _words(name)
    return bool(w) and w[-1] == "expertise"


def is_test_name(name: str) -> bool:
    """A Test Descriptor (``Precision+Slingshot Expertise+Slingshot Test``)."""
    w = _words(name)
    return bool(w) and w[-1] == "test"


@cache
def _core_keys() -> frozenset[str]:
    return frozenset(norm(c) for c in core_descriptors())


def is_core_name(name: str) -> bool:
    return norm(name) in _core_keys()


def _singular(word: str) -> str:
    """A plural English word made singular, the common ways (shovels, boxes, torches,
    berries); other words as they are."""
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def item_key(name: str) -> str:
    """What names a Physical Item whatever its count or number: the name folded,
    without a leading quantity (``2 shovels``, ``20ft of thread``), its last word
    singular — ``2 shovels``, ``Shovels`` and ``Shovel`` are one Shovel."""
    words = norm(name).split()
    if len(words) > 1 and re.fullmatch(r"\d+\w*", words[0]):
        words = words[1:]
        if len(words) > 1 and words[0] == "of":
            words = words[1:]
    if words:
        words[-1] = _singular(words[-1])
    return " ".join(words)


def is_item_or_ability_name(name: str) -> bool:
    """gmdesk's rule for what a descriptor is, by its name: the rules know Core
    Descriptors, Expertise (last word "Expertise"), Test Descriptors (last word
    "Test"), Abilities (the word "Ability") with their Uses, and Physical Items. So a
    name that is neither a Core Descriptor, nor an Expertise, nor a Test Descriptor
    names an Ability, a Use or a Physical Item: something a character has or lacks
    (missing, a Test that needs it fails automatically), never a +0 descriptor."""
    return not (is_core_name(name) or is_expertise_name(name) or is_test_name(name))
