"""The dice systems, looked up by their RULES.md identifier.

The five built-in systems are modules under ``core.systems``; others are plug-ins,
packages that register a system module under the entry-point group
``gmdesk.systems`` (``coin = "gmdesk_coin"``). The built-ins are registered there
too; they are also found without it (from a source tree that was never installed),
and looking one of them up reads no package metadata at all, which keeps
``gmdesk roll 4d2`` fast. A plug-in that cannot be loaded, or whose declaration is
incomplete, is left out and reported in one line (:func:`load_problems`,
:func:`plugin_failure`); the others keep working. A plug-in is imported with its
output set aside and ``SystemExit`` caught: what it does on import can neither end
gmdesk nor mix into its output.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Mapping
from functools import cache
from types import ModuleType

from gmdesk.core.errors import ParamError
from gmdesk.core.systems.spec import SECTIONS, SystemSpec

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

#: the entry-point group plug-in systems register under
ENTRY_POINT_GROUP = "gmdesk.systems"

#: identifier -> module of the built-in systems, in the order the CLI lists them.
BUILTIN_MODULES = {
    "4d2": "gmdesk.core.systems.four_d_two",
    "fudge": "gmdesk.core.systems.fudge",
    "1d6x4": "gmdesk.core.systems.one_d6_x4",
    "torg-2d10": "gmdesk.core.systems.torg_2d10",
    "4d6": "gmdesk.core.systems.core_4d6",
}

#: the built-in identifiers (every installed one: :func:`system_ids`)
BUILTIN_IDS = tuple(BUILTIN_MODULES)

#: the system of a session that names none (a header or a state written without one)
DEFAULT_SYSTEM = BUILTIN_IDS[0]
SYSTEM_IDS = BUILTIN_IDS

#: the system a new session plays when none is named (``gmdesk new NAME``)
DEFAULT_SYSTEM = "4d2"


@cache
def _plugins() -> tuple[dict[str, str], tuple[str, ...], dict[str, str]]:
    """id -> module name of every system registered under the entry-point group
    (built-ins first); one line for each plug-in left out or misbehaving; and, for
    each plug-in installed but failing to load, why (one line)."""
    from importlib.metadata import entry_points

    found: dict[str, str] = dict(BUILTIN_MODULES)
    problems: list[str] = []
    failed: dict[str, str] = {}
    try:
        eps = entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # broken metadata: the built-ins still work
        return found, (f"plug-in systems: cannot read the installed packages ({exc})",), {}
    for ep in sorted(eps, key=lambda e: e.name):
        if ep.name in BUILTIN_MODULES:
            continue
        found[ep.name] = ep.value.partition(":")[0].strip()
    for system_id in list(found):
        if system_id in BUILTIN_MODULES:
            continue
        module_name = found[system_id]
        why, said = _import_plugin(system_id, module_name)
        if why is not None:
            found.pop(system_id)
            failed[system_id] = why
            problems.append(f"plug-in system {system_id!r} ({module_name}) is installed but fails to load: {why}")
        elif said:
            problems.append(
                f"plug-in system {system_id!r} ({module_name}) printed while it was loaded; "
                f"its output was set aside: {said!r}"
            )
    return found, tuple(problems), failed


def _import_plugin(system_id: str, module_name: str) -> tuple[str | None, str]:
    """Load a plug-in so that nothing it does on import reaches gmdesk's output or ends
    gmdesk: what it prints goes aside (its first line is returned), ``SystemExit`` and
    any other failure become why it fails to load (one line). ``(why or None, printed)``."""
    import contextlib
    import io

    aside = io.StringIO()
    why: str | None = None
    try:
        with contextlib.redirect_stdout(aside), contextlib.redirect_stderr(aside):
            _load(system_id, module_name)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:
        why = f"it tried to end the program as it was imported (SystemExit {exc.code!r})"
    except BaseException as exc:
        why = _one_line(exc)
    printed = next((line.strip() for line in aside.getvalue().splitlines() if line.strip()), "")
    return why, printed[:120]


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


@cache
def _load(system_id: str, module_name: str) -> SystemSpec:
    module = importlib.import_module(module_name)
    spec = SystemSpec.from_module(module)
    if spec.id != system_id:
        raise ValueError(f"{module_name} declares ID {spec.id!r}, registered as {system_id!r}")
    return spec


def system_ids() -> tuple[str, ...]:
    """Every installed system: the built-ins, then the plug-ins by id."""
    return tuple(_plugins()[0])


def load_problems() -> tuple[str, ...]:
    """One line per plug-in left out (it failed to load, or its declaration is
    incomplete) or that printed as it was loaded (its output set aside)."""
    return _plugins()[1]


def plugin_failure(system_id: str) -> str | None:
    """Why the plug-in system ``system_id``, installed, fails to load (one line), or
    None (it loads, or it is not installed)."""
    if system_id in BUILTIN_MODULES:
        return None
    return _plugins()[2].get(system_id)


def get_spec(system_id: str) -> SystemSpec:
    """The declaration of ``system_id``; ParamError for an unknown id."""
    if system_id in BUILTIN_MODULES:
        return _load(system_id, BUILTIN_MODULES[system_id])
    modules, _, failed = _plugins()
    if system_id in failed:
        raise ParamError(
            "SYSTEM", f"the plug-in system {system_id!r} is installed but fails to load: {failed[system_id]}"
        )
    if system_id not in modules:
        raise ParamError("SYSTEM", f"unknown system {system_id!r}; choose one of {', '.join(modules)}")
    return _load(system_id, modules[system_id])


def get_system(system_id: str) -> ModuleType:
    """The module implementing ``system_id`` (for tests and tools: gmdesk itself uses
    the declaration, :func:`get_spec`); ParamError for an unknown id."""
    module = get_spec(system_id).module
    assert module is not None
    return module


def spec_of(system: SystemSpec | ModuleType | str) -> SystemSpec:
    """The declaration of ``system``: a declaration, an id or a system module;
    ParamError for an unknown one."""
    if isinstance(system, SystemSpec):
        return system
    if isinstance(system, str):
        return get_spec(system)
    system_id = SystemSpec.declared_id(system)
    if system_id is None:
        raise ParamError("SYSTEM", f"{system!r} is no dice system")
    return get_spec(system_id)


def character_sections(system_id: str) -> frozenset[str]:
    """The parts of a character ``system_id`` uses (its ``CHARACTER_SECTIONS``);
    every part for an unknown system, so that nothing is ever hidden by mistake."""
    try:
        return get_spec(system_id).sections
    except ParamError:
        return frozenset(SECTIONS)


@cache
def secret_params(system_id: str) -> tuple[str, ...]:
    """What is the GM's secret in ``system_id``'s records (its parameters declared
    ``secret``, and the record fields of the same names), never shown to players;
    nothing for a system that keeps no secret or is unknown."""
    try:
        spec = get_spec(system_id)
    except ParamError:
        return ()
    return spec.secret_params


def public_json(record_json: Mapping[str, Any]) -> dict[str, Any]:
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
