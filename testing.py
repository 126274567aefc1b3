"""The conformance suite for dice systems, for a plug-in's own tests (docs/PLUGINS.md).

Every check raises :class:`AssertionError` naming the system and what is wrong, so it
runs under any test runner::

    from gmdesk.testing import check_system
    check_system("coin")                    # a registered system, by its id
    check_system(gmdesk_coin)               # or its module (registered or not)

and under pytest, one test per check (each reported on its own line)::

    from gmdesk.testing import conformance_tests
    test_coin_conforms = conformance_tests("coin")

Importing this module needs no pytest (gmdesk does not depend on it): only
:func:`conformance_tests` imports it, when a test module calls it. gmdesk's own suite
runs these checks over the five built-in systems and the example plug-in
(tests/test_conformance.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from fractions import Fraction
from types import ModuleType
from typing import Any

from gmdesk.core.dice import RollRecord, make_rng
from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.systems import get_spec
from gmdesk.core.systems.spec import FIELD_TYPES, PARAM_TYPES, CharField, Param, SystemSpec, check_value
from gmdesk.core.tables import DEFAULT_TABLES

__all__ = [
    "CHECKS",
    "EVERY_ROLL_DICE",
    "EVERY_ROLL_LIMIT",
    "PathDice",
    "check_cli",
    "check_declaration",
    "check_odds",
    "check_rolls",
    "check_system",
    "conformance_tests",
    "every_roll",
    "spec_of",
]

#: the seeds each roll is made with (every one must replay and round-trip)
SEEDS = (1, 7, 2026)


def _expect(condition: object, message: str) -> None:
    # an explicit raise, not ``assert``: the checks hold under ``python -O`` too
    if not condition:
        raise AssertionError(message)


def spec_of(system: str | ModuleType | SystemSpec) -> SystemSpec:
    """The declaration of ``system``: a registered system's id, a system module, or a
    declaration already read. AssertionError saying why when it cannot be read."""
    if isinstance(system, SystemSpec):
        return system
    if isinstance(system, ModuleType):
        try:
            return SystemSpec.from_module(system)
        except (ValueError, TypeError) as e:
            raise AssertionError(f"{system.__name__}: the declaration is refused: {e}") from e
    try:
        return get_spec(system)
    except GmdeskError as e:
        raise AssertionError(f"{system}: not a registered system ({e})") from e


def _attack_params(spec: SystemSpec) -> Any | None:
    """The defaults as an attack, or None when the system needs the defender's numbers
    first (its Params refuse an attack on the defaults)."""
    try:
        return spec.params_from_json({**spec.params_to_json(spec.Params()), "combat": True})
    except ParamError:
        return None


# ----------------------------------------------------------------------------- the checks


def check_declaration(system: str | ModuleType | SystemSpec) -> None:
    """The declaration is complete: read the same twice, a display name, ``roll``,
    ``odds`` and ``initiative``, parameters with labels, help texts, options and valid
    defaults, character fields with labels, and the defaults together a valid roll."""
    spec = spec_of(system)
    module = spec.module
    sid = spec.id
    _expect(module is not None, f"{sid}: the declaration was read from a module")
    assert module is not None
    _expect(SystemSpec.from_module(module) == spec, f"{sid}: the declaration reads the same twice")
    _expect(sid and spec.name.strip() and spec.name != sid, f"{sid}: NAME is a display name besides the id")
    for name in ("roll", "odds", "initiative"):
        _expect(callable(getattr(spec, name, None)), f"{sid}: {name} is a function")
    _expect(spec.params, f"{sid}: PARAMS declares the roll's parameters")
    for p in spec.params:
        _expect(isinstance(p, Param) and p.type in PARAM_TYPES, f"{sid}: parameter {p!r} is a Param of a known type")
        _expect(p.label.strip(), f"{sid}: parameter {p.name!r} has a label")
        _expect(p.help.strip() or p.form_only, f"{sid}: parameter {p.name!r} has a help text for --help")
        _expect(p.cli_option.startswith("--"), f"{sid}: parameter {p.name!r} has an option")
        if p.default is not None and not p.form_only:
            try:
                check_value(p, p.default)
            except ParamError as e:
                raise AssertionError(f"{sid}: parameter {p.name!r} refuses its own default: {e}") from e
    options = [p.cli_option for p in spec.params if p.cli and not p.form_only]
    _expect(len(set(options)) == len(options), f"{sid}: two parameters share an option ({', '.join(options)})")
    for f in spec.character_fields:
        _expect(isinstance(f, CharField) and f.type in FIELD_TYPES, f"{sid}: field {f!r} is a CharField")
        _expect(f.label.strip(), f"{sid}: character field {f.name!r} has a label")
    for key, label in spec.extra_labels:
        _expect(isinstance(key, str) and key and isinstance(label, str) and label.strip(), f"{sid}: EXTRA_LABELS")
    try:
        params = spec.Params()
    except ParamError as e:
        raise AssertionError(f"{sid}: the defaults together are not a valid roll: {e}") from e
    _expect(spec.params_from_json(spec.params_to_json(params)) == params, f"{sid}: the defaults round-trip")
    listed = spec.to_json()
    json.dumps(listed)  # what `gmdesk systems --json` lists
    _expect(listed["id"] == sid, f"{sid}: `gmdesk systems --json` lists it by its id")


def _odds_exact(spec: SystemSpec, params: Any, what: str) -> None:
    sid = spec.id
    odds = spec.odds(params, DEFAULT_TABLES)
    _expect(odds.system == sid, f"{sid}: the odds of {what} name the system (got {odds.system!r})")
    probabilities = [p for _, p in odds.distribution]
    _expect(
        all(isinstance(p, Fraction) and 0 <= p <= 1 for p in probabilities),
        f"{sid}: the odds of {what} are exact probabilities (Fractions from 0 to 1)",
    )
    _expect(isinstance(odds.tail, Fraction) and 0 <= odds.tail < 1, f"{sid}: the tail of {what} is a Fraction < 1")
    total = sum(probabilities, Fraction(0))
    _expect(total == 1 - odds.tail, f"{sid}: the odds of {what} sum to 1 − tail (got {total} + {odds.tail})")
    _expect(
        all(isinstance(p, Fraction) and 0 <= p <= 1 for _, p in odds.outcomes),
        f"{sid}: the named outcomes of {what} have exact probabilities",
    )
    _expect(spec.params_from_json(dict(odds.params)) == params, f"{sid}: the odds of {what} hold its parameters")
    _curve_exact(spec, params, what)


def _curve_exact(spec: SystemSpec, params: Any, what: str) -> None:
    """The curve ``gmdesk odds … --plot`` draws: a ``Curve`` whose exact chances sum
    to 1 with its tail (or none, with a note saying why)."""
    sid = spec.id
    try:
        curve = spec.curve(params, DEFAULT_TABLES)
    except TypeError as e:
        raise AssertionError(f"{sid}: the curve of {what}: {e}") from None
    _expect(isinstance(curve.label, str) and curve.label.strip(), f"{sid}: the curve of {what} names its value")
    total = sum((p for _, p in curve.values), Fraction(0)) + curve.tail
    _expect(
        total == 1 if curve.values else bool(curve.note),
        f"{sid}: the curve of {what} sums to 1 with its tail (got {total}), or has a note saying why it is empty",
    )
    _expect(curve.success is None or isinstance(curve.success, int), f"{sid}: the curve of {what} marks a whole number")


class _NextDie(BaseException):
    """The roll asked for a die past the path (a BaseException: no roll catches it)."""

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high


class PathDice:
    """A random source answering the dice of ``path`` in order, and stopping at the
    first die past it (:class:`_NextDie`, which :func:`every_roll` catches); ``weight``
    is the chance of the dice answered so far."""

    def __init__(self, path: list[int]) -> None:
        self.path, self.used, self.weight = path, 0, Fraction(1)

    def randint(self, a: int, b: int) -> int:
        if self.used == len(self.path):
            raise _NextDie(a, b)
        value = self.path[self.used]
        self.used += 1
        self.weight /= b - a + 1
        return value


#: how many dice sequences :func:`check_odds` reads at most, and how many dice a
#: sequence may run to before it is cut (its chance then bounds the difference allowed)
EVERY_ROLL_LIMIT, EVERY_ROLL_DICE = 200_000, 12


def every_roll(
    roll: Callable[[PathDice], Any], *, cut: Callable[[list[int]], bool] | None = None, limit: int | None = None
) -> tuple[list[tuple[Any, Fraction]], Fraction] | None:
    """Every dice sequence ``roll`` (given a random source) can meet, each with its
    chance: ``([(what roll returned, chance)…], the chance of the sequences cut)``, a
    sequence cut where ``cut(dice so far)`` says so (an unbounded reroll); None past
    ``limit`` sequences."""
    out: list[tuple[Any, Fraction]] = []
    cut_off, stack = Fraction(0), [list[int]()]
    while stack:
        path = stack.pop()
        rng = PathDice(path)
        try:
            result = roll(rng)
        except _NextDie as need:
            if cut is not None and cut(path):
                cut_off += rng.weight
            else:
                stack.extend(path + [v] for v in range(need.low, need.high + 1))
            continue
        out.append((result, rng.weight))
        if limit is not None and len(out) > limit:
            return None
    return out, cut_off


def _odds_are_every_roll(spec: SystemSpec, params: Any, what: str) -> None:
    """The odds of ``params`` are the roll's own: every dice sequence ``roll`` meets,
    weighted by its chance, gives each value the odds' chance, and each named outcome
    a roll reads (``outcome``) the chance the odds give it (within what was cut off).
    A roll of more sequences than :data:`EVERY_ROLL_LIMIT` is not enumerated."""
    sid = spec.id
    found = every_roll(
        lambda rng: spec.roll(params, rng, DEFAULT_TABLES),
        cut=lambda path: len(path) >= EVERY_ROLL_DICE,
        limit=EVERY_ROLL_LIMIT,
    )
    if found is None:
        return
    rolls, cut_off = found
    odds = spec.odds(params, DEFAULT_TABLES)
    allowed = cut_off + odds.tail
    values: dict[int, Fraction] = {}
    labels: dict[str, Fraction] = {}
    for record, p in rolls:
        values[record.value] = values.get(record.value, Fraction(0)) + p
        labels[record.outcome] = labels.get(record.outcome, Fraction(0)) + p
    for value in sorted(set(values) | {v for v, _ in odds.distribution}):
        got, said = values.get(value, Fraction(0)), odds.p(value)
        _expect(
            abs(got - said) <= allowed,
            f"{sid}: the odds of {what} give {value} the chance {said}, its rolls {got} (every dice sequence read)",
        )
    for label, said in odds.outcomes:
        if label in labels:
            _expect(
                abs(labels[label] - said) <= allowed,
                f"{sid}: the odds of {what} give {label!r} the chance {said}, its rolls {labels[label]}",
            )


def check_odds(system: str | ModuleType | SystemSpec) -> None:
    """``odds`` is exact (Fractions summing to 1 − tail) for the defaults, and for an
    attack on them when the system takes one; so is the curve of its value."""
    spec = spec_of(system)
    _odds_exact(spec, spec.Params(), "a plain roll")
    attack = _attack_params(spec)
    if attack is not None:
        _odds_exact(spec, attack, "an attack")


def _rolls_round_trip(spec: SystemSpec, params: Any, what: str) -> None:
    sid = spec.id
    for seed in SEEDS:
        record = spec.roll(params, make_rng(seed), DEFAULT_TABLES)
        _expect(isinstance(record, RollRecord), f"{sid}: roll returns a RollRecord (got {type(record).__name__})")
        _expect(record.system == sid, f"{sid}: {what} names the system (got {record.system!r})")
        again = RollRecord.from_json(json.loads(json.dumps(record.to_json())))
        _expect(
            again == record and again.to_json() == record.to_json(),
            f"{sid}: {what} with seed {seed} reads back from its JSON as it was",
        )
        replay = spec.roll(params, make_rng(seed), DEFAULT_TABLES)
        _expect(replay == record, f"{sid}: {what} with seed {seed} replays the same")
        _expect(spec.params_from_json(dict(record.params)) == params, f"{sid}: {what} records its parameters")
        if spec.harm.clocks is not None:  # a system whose rolls move clocks records the progress
            earned = spec.harm.clocks.earned(record)
            _expect(earned is not None, f"{sid}: {what} with seed {seed} records its clock progress")
    _expect(spec.params_from_json(spec.params_to_json(params)) == params, f"{sid}: {what}'s parameters round-trip")


def check_rolls(system: str | ModuleType | SystemSpec) -> None:
    """Seeded rolls (the defaults, and an attack when the system takes one) round-trip
    through JSON and replay the same; the odds are the roll's own: every dice sequence
    the roll meets (up to :data:`EVERY_ROLL_LIMIT` of them, each cut after
    :data:`EVERY_ROLL_DICE` dice) gives each value, and each outcome the odds name,
    the chance the odds give it; initiative is a whole number that round-trips."""
    spec = spec_of(system)
    _rolls_round_trip(spec, spec.Params(), "a plain roll")
    _odds_are_every_roll(spec, spec.Params(), "a plain roll")
    attack = _attack_params(spec)
    if attack is not None:
        _rolls_round_trip(spec, attack, "an attack")
        _odds_are_every_roll(spec, attack, "an attack")
    init = spec.initiative(make_rng(SEEDS[0]), 1)
    _expect(isinstance(init.value, int), f"{spec.id}: initiative's value is a whole number")
    _expect(RollRecord.from_json(json.loads(init.dumps())) == init, f"{spec.id}: initiative reads back from its JSON")


def check_cli(system: str | ModuleType | SystemSpec, env: Mapping[str, str] | None = None) -> None:
    """``gmdesk roll ID --help`` (a ``python -m gmdesk`` of this interpreter, with
    ``env``) lists every command-line option of the system: it is registered (its
    package installed, ``pip install -e .`` while writing it) and its options built."""
    spec = spec_of(system)
    done = subprocess.run(
        [sys.executable, "-m", "gmdesk", "roll", spec.id, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {}), "COLUMNS": "100", "NO_COLOR": "1"},
    )
    _expect(
        done.returncode == 0,
        f"{spec.id}: `gmdesk roll {spec.id} --help` fails (is the package installed?): {done.stderr.strip()}",
    )
    for p in spec.params:
        if p.cli and not p.form_only:
            _expect(
                re.search(rf"{re.escape(p.cli_option)}\b", done.stdout),
                f"{spec.id}: `gmdesk roll {spec.id} --help` lists {p.cli_option}",
            )


#: every check, by the name its test is reported under
CHECKS: dict[str, Callable[[SystemSpec], None]] = {
    "declaration": check_declaration,
    "odds": check_odds,
    "rolls": check_rolls,
    "cli": check_cli,
}


def check_system(system: str | ModuleType | SystemSpec, *, cli: bool = True) -> SystemSpec:
    """Run every check on ``system`` (its id, its module or its declaration) and return
    its declaration; AssertionError naming the system and the first thing wrong.
    ``cli=False`` leaves out the one check that needs the system installed (a module
    not yet registered)."""
    spec = spec_of(system)
    for name, check in CHECKS.items():
        if cli or name != "cli":
            check(spec)
    return spec


def conformance_tests(*systems: str | ModuleType, cli: bool = True) -> Callable[..., None]:
    """A pytest test, one case per system and check (``coin-odds``, …): bind it to a
    ``test_…`` name of a test module. Imports pytest (only here)."""
    import pytest

    cases = [
        pytest.param(system, name, id=f"{_label(system)}-{name}")
        for system in systems
        for name in CHECKS
        if cli or name != "cli"
    ]

    @pytest.mark.parametrize(("system", "check"), cases)
    def test_conforms(system: str | ModuleType, check: str) -> None:
        CHECKS[check](spec_of(system))

    return test_conforms


def _label(system: str | ModuleType) -> str:
    return system if isinstance(system, str) else str(getattr(system, "ID", system.__name__))
