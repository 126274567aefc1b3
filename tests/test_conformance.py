"""Every registered dice system — the five built-ins, the example plug-in
(``examples/gmdesk-coin``) and any other installed — conforms to what gmdesk builds
on: a complete declaration, a generated CLI and roll form, exact odds, and records
that round-trip through JSON. A new system passes this test before anything else
(docs/PLUGINS.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from coin_plugin import coin_site, gmdesk, registered
from helpers import SMALL, dialog, main_screen, make_app, make_save, press, run

from gmdesk.core.dice import RollRecord, make_rng
from gmdesk.core.errors import ParamError
from gmdesk.core.systems import get_spec, system_ids
from gmdesk.core.systems.spec import FIELD_TYPES, PARAM_TYPES, CharField, Param, SystemSpec, check_value
from gmdesk.core.tables import DEFAULT_TABLES

#: every system this run knows of: the installed ones and the example plug-in
SYSTEMS = tuple(dict.fromkeys((*system_ids(), "coin")))

#: the five systems gmdesk ships (and which tui/ never names)
BUILTIN_IDS = ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6")

SEEDS = (1, 7, 2026)


@pytest.fixture
def spec(request: pytest.FixtureRequest) -> Iterator[SystemSpec]:
    """The declaration of the system under test, with the example plug-in registered."""
    with registered(coin_site()):
        yield get_spec(request.param)


# ----------------------------------------------------------------------------- the checks


def declaration_complete(spec: SystemSpec) -> None:
    module = spec.module
    assert SystemSpec.from_module(module) == spec, "the declaration reads the same twice"
    assert spec.id and spec.name.strip() and spec.name != spec.id, f"{spec.id}: a display name besides the id"
    for name in ("roll", "odds", "initiative"):
        assert callable(getattr(module, name)), f"{spec.id}: {name} is a function"
    assert spec.params, f"{spec.id}: declares its roll parameters"
    for p in spec.params:
        assert isinstance(p, Param) and p.type in PARAM_TYPES
        assert p.label.strip(), f"{spec.id}: parameter {p.name!r} has a label"
        assert p.help.strip() or p.form_only, f"{spec.id}: parameter {p.name!r} has a help text for --help"
        assert p.cli_option.startswith("--"), f"{spec.id}: parameter {p.name!r} has an option"
        if p.default is not None and not p.form_only:
            check_value(p, p.default)  # its default is a value it accepts
    options = [p.cli_option for p in spec.params if p.cli and not p.form_only]
    assert len(set(options)) == len(options), f"{spec.id}: two parameters share an option"
    for f in spec.character_fields:
        assert isinstance(f, CharField) and f.type in FIELD_TYPES
        assert f.label.strip(), f"{spec.id}: character field {f.name!r} has a label"
    for key, label in spec.extra_labels:
        assert isinstance(key, str) and key and isinstance(label, str) and label.strip()
    params = spec.Params()  # every default together is a valid roll
    assert spec.params_from_json(spec.params_to_json(params)) == params
    json.dumps(spec.to_json())  # what `gmdesk systems --json` lists
    assert spec.to_json()["id"] == spec.id


def cli_generated(spec: SystemSpec) -> None:
    done = gmdesk("roll", spec.id, "--help", sites=(coin_site(),))
    assert done.returncode == 0, done.stderr
    for p in spec.params:
        if p.cli and not p.form_only:
            assert re.search(rf"{re.escape(p.cli_option)}\b", done.stdout), f"{spec.id}: --help lists {p.cli_option}"


def odds_exact(spec: SystemSpec, params: Any) -> None:
    odds = spec.module.odds(params, DEFAULT_TABLES)
    assert odds.system == spec.id
    probabilities = [p for _, p in odds.distribution]
    assert all(isinstance(p, Fraction) and 0 <= p <= 1 for p in probabilities), f"{spec.id}: exact probabilities"
    assert isinstance(odds.tail, Fraction) and 0 <= odds.tail < 1
    assert sum(probabilities, Fraction(0)) == 1 - odds.tail, f"{spec.id}: the odds sum to 1 − tail"
    assert all(isinstance(p, Fraction) and 0 <= p <= 1 for _, p in odds.outcomes)
    assert spec.params_from_json(dict(odds.params)) == params


def round_trips(spec: SystemSpec, params: Any) -> None:
    for seed in SEEDS:
        record = spec.module.roll(params, make_rng(seed), DEFAULT_TABLES)
        assert record.system == spec.id
        again = RollRecord.from_json(json.loads(json.dumps(record.to_json())))
        assert again == record and again.to_json() == record.to_json(), f"{spec.id}: seed {seed} round-trips"
        assert spec.module.roll(params, make_rng(seed), DEFAULT_TABLES) == record, f"{spec.id}: the seed replays"
        assert spec.params_from_json(dict(record.params)) == params
    assert spec.params_from_json(spec.params_to_json(params)) == params
    init = spec.module.initiative(make_rng(SEEDS[0]), 1)
    assert RollRecord.from_json(json.loads(init.dumps())) == init and isinstance(init.value, int)


async def form_generated(spec: SystemSpec, tmp_path: Path) -> None:
    from textual.widgets import Checkbox, Label

    from gmdesk.tui.screens.roll import RollDialog

    path, _ = make_save(tmp_path, spec.id, [{"name": "Ann"}, {"name": "Bob", "side": "NPC"}])
    app = make_app(path)
    async with run(app, size=SMALL) as pilot:
        await main_screen(pilot)
        await press(pilot, "r")
        dlg = await dialog(pilot, RollDialog)
        assert dlg.system == spec.id
        shown = {str(w.render()).strip() for w in dlg.query(Label)}
        shown |= {str(w.label).strip() for w in dlg.query(Checkbox)}
        for p in spec.params:
            if p.in_dialog(combat=False):  # (an attack-only parameter: the attack dialog's)
                assert p.label in shown, f"{spec.id}: the roll dialog shows {p.label!r}"
        await press(pilot, "escape")
        assert not isinstance(app.screen, RollDialog)


# ----------------------------------------------------------------------------- the test


@pytest.mark.parametrize("spec", SYSTEMS, indirect=True)
async def test_every_system_conforms(spec: SystemSpec, tmp_path: Path) -> None:
    declaration_complete(spec)
    cli_generated(spec)
    plain = spec.Params()
    odds_exact(spec, plain)
    round_trips(spec, plain)
    try:  # an attack on the defaults (a system may need the defender's numbers first)
        attack = spec.params_from_json({**spec.params_to_json(plain), "combat": True})
    except ParamError:
        attack = None
    if attack is not None:
        odds_exact(spec, attack)
        round_trips(spec, attack)
    await form_generated(spec, tmp_path)


# ----------------------------------------------------------------------------- tui/ names no system


def test_tui_names_none_of_the_builtin_systems() -> None:
    tui = Path(__file__).resolve().parents[1] / "tui"
    found = []
    for path in sorted([*tui.rglob("*.py"), *tui.rglob("*.tcss")]):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(tui.parent)}:{n}: {s}" for s in BUILTIN_IDS if s in line.casefold()]
    assert not found, "tui/ names a system:\n" + "\n".join(found)
