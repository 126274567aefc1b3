"""The command-line options of ``gmdesk roll|odds SYSTEM``, generated from the
system's declaration (:attr:`SystemSpec.params` and :data:`COMMON_PARAMS`).

Every value option is read as text (``type=str``, default ``None``) and handed to the
system's ``Params`` as typed, so a bad value is the system's ``ParamError`` naming the
option (one line, exit 2), never argparse's own message; a ``bool`` parameter is a flag.
Each option's destination carries a prefix (:data:`DEST_PREFIX`), so a parameter may
be named like any option the command has itself (the 1d6x4 ``target`` and ``--at``'s
target character).

What a system reads beyond the declared types (4d2 ``--fold none``, a 4d6 ladder DC,
a 1d6x4 ``--vs-test`` without ``--vs-bonus``) is its ``Params``' own reading, the same
for the command line, the roll dialog and the saves.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping, Sequence

from gmdesk.core.systems.spec import COMMON_PARAMS, Param, SystemSpec

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

#: the prefix of every generated option's destination in the parsed namespace
DEST_PREFIX = "param:"


def cli_params(spec: SystemSpec) -> tuple[Param, ...]:
    """The parameters the command line offers: the common combat ones, then the
    system's own (those declared ``cli`` and not ``form_only``), in declared order."""
    own = tuple(p for p in spec.params if p.cli and not p.form_only)
    names = {p.name for p in own}
    return tuple(p for p in COMMON_PARAMS if p.name not in names) + own


def _metavar(p: Param) -> str:
    if p.metavar:
        return p.metavar
    if p.type == "choice":
        return "|".join(p.choices)
    return "N" if p.type == "int" else p.name.upper()


def add_options(parser: argparse.ArgumentParser, spec: SystemSpec) -> None:
    """Add one option per :func:`cli_params` parameter to ``parser``."""
    for p in cli_params(spec):
        dest = DEST_PREFIX + p.name
        if p.type == "bool":
            parser.add_argument(p.cli_option, dest=dest, action="store_true", default=False, help=p.help or None)
        else:
            parser.add_argument(
                p.cli_option, dest=dest, type=str, default=None, metavar=_metavar(p), help=p.help or None
            )


#: a value that opens with a minus sign and a digit ("-1,+2", "-3"): argparse takes
#: "-1,+2" for an unknown option unless it is joined to its option
_SIGNED = re.compile(r"-\d")


def value_options(spec: SystemSpec) -> frozenset[str]:
    """The generated options that take a value (every one but the flags)."""
    return frozenset(p.cli_option for p in cli_params(spec) if p.type != "bool")


def signed_values(argv: Sequence[str], options: frozenset[str]) -> list[str]:
    """``argv`` with every value of ``options`` that opens with a minus sign and a digit
    joined to its option (``--adv -1,+2`` → ``--adv=-1,+2``), so that a signed list or
    number a GM types after its option is that option's value, as ``--adv +2,-1`` is,
    and never argparse's "expected one argument"."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in options and i + 1 < len(argv) and _SIGNED.match(argv[i + 1]):
            out.append(f"{arg}={argv[i + 1]}")
            i += 2
            continue
        if arg == "--":
            out.extend(argv[i:])
            break
        out.append(arg)
        i += 1
    return out


def typed(ns: argparse.Namespace | Mapping[str, Any]) -> dict[str, Any]:
    """Parameter name → the raw value typed on the command line, for the generated
    options that were typed (a flag: ``True``); what was not typed is left out, so an
    explicit ``--shift 0`` is there and an absent ``--shift`` is not."""
    items = ns.items() if isinstance(ns, Mapping) else vars(ns).items()
    out: dict[str, Any] = {}
    for dest, value in items:
        if dest.startswith(DEST_PREFIX) and value is not None and value is not False:
            out[dest[len(DEST_PREFIX) :]] = value
    return out


def params_from_options(spec: SystemSpec, ns: argparse.Namespace | Mapping[str, Any]) -> Any:
    """The system's validated ``Params`` from a parsed command line (``ParamError``
    naming the option otherwise)."""
    return spec.params_from_json(typed(ns))


__all__ = ["DEST_PREFIX", "add_options", "cli_params", "params_from_options", "signed_values", "typed", "value_options"]
