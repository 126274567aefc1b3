"""The five dice systems, one module each, looked up by their RULES.md identifier."""

from __future__ import annotations

import copy
import importlib
from collections.abc import Mapping
from functools import cache
from types import ModuleType
from typing import Any

from gmdesk.core.errors import ParamError

#: identifier -> module name under core.systems, in the order the CLI lists them.
SYSTEM_MODULES = {
    "4d2": "four_d_two",
    "fudge": "fudge",
    "1d6x4": "one_d6_x4",
    "torg-2d10": "torg_2d10",
    "4d6": "core_4d6",
}

SYSTEM_IDS = tuple(SYSTEM_MODULES)


def get_system(system_id: str) -> ModuleType:
    """The module implementing ``system_id``; ParamError for an unknown id."""
    try:
        name = SYSTEM_MODULES[system_id]
    except KeyError:
        raise ParamError("SYSTEM", f"unknown system {system_id!r}; choose one of {', '.join(SYSTEM_IDS)}") from None
    return importlib.import_module(f"gmdesk.core.systems.{name}")


def character_sections(system_id: str) -> frozenset[str]:
    """The parts of a character ``system_id`` uses (its ``CHARACTER_SECTIONS``);
    every part for an unknown system, so that nothing is ever hidden by mistake."""
    from gmdesk.core.systems.base import SECTIONS

    try:
        module = get_system(system_id)
    except ParamError:
        return frozenset(SECTIONS)
    return frozenset(getattr(module, "CHARACTER_SECTIONS", SECTIONS))


@cache
def secret_params(system_id: str) -> tuple[str, ...]:
    """What is the GM's secret in ``system_id``'s records (the system's
    ``SECRET_PARAMS``: parameters, and the record fields of the same names), never
    shown to players; nothing for a system that keeps no secret or is unknown."""
    try:
        module = get_system(system_id)
    except ParamError:
        return ()
    return tuple(getattr(module, "SECRET_PARAMS", ()))


def public_json(record_json: Mapping[str, Any]) -> dict:
    """A record's JSON as players may see it: its system's secrets
    (:func:`secret_params`) removed from the parameters and from the record's own
    fields. The original is left untouched."""
    out = dict(record_json)
    secrets = secret_params(str(out.get("system", "")))
    if not secrets:
        return out
    out = copy.deepcopy(out)
    params = out.get("params")
    if isinstance(params, Mapping):
        out["params"] = {k: v for k, v in params.items() if k not in secrets}
    for key in secrets:
        out.pop(key, None)
    return out
