"""Every registered dice system — the five built-ins, the example plug-ins
(``examples/gmdesk-coin``, ``examples/gmdesk-brawl``) and any other installed — conforms to what gmdesk builds
on: a complete declaration, a generated CLI and roll form, exact odds, and records
that round-trip through JSON. A new system passes this test before anything else
(docs/PLUGINS.md). The checks are gmdesk.testing's, which a plug-in's own tests run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from coin_plugin import brawl_site, coin_site, gmdesk_env, registered
from helpers import SMALL, dialog, main_screen, make_app, make_save, on_top, press, run

from gmdesk.core.systems import get_spec, system_ids
from gmdesk.core.systems.spec import SystemSpec
from gmdesk.testing import check_cli, check_declaration, check_odds, check_rolls

#: every system this run knows of: the installed ones and the example plug-ins
SYSTEMS = tuple(dict.fromkeys((*system_ids(), "coin", "brawl")))

#: the five systems gmdesk ships (and which tui/ never names)
BUILTIN_IDS = ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6")


@pytest.fixture
def spec(request: pytest.FixtureRequest) -> Iterator[SystemSpec]:
    """The declaration of the system under test, with the example plug-in registered."""
    with registered(coin_site(), brawl_site()):
        yield get_spec(request.param)


# ----------------------------------------------------------------------------- the checks
# gmdesk.testing holds the checks a plug-in's own tests run (declaration, odds, rolls,
# CLI); the roll dialog's form is checked here, with gmdesk's own app harness.


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
        assert not on_top(app, RollDialog)


# ----------------------------------------------------------------------------- the test


@pytest.mark.parametrize("spec", SYSTEMS, indirect=True)
async def test_every_system_conforms(spec: SystemSpec, tmp_path: Path) -> None:
    check_declaration(spec)
    check_cli(spec, env=gmdesk_env(coin_site(), brawl_site()))
    check_odds(spec)  # the defaults, and an attack on them when the system takes one
    check_rolls(spec)
    await form_generated(spec, tmp_path)


# ----------------------------------------------------------------------------- tui/ names no system


def test_tui_names_none_of_the_builtin_systems() -> None:
    tui = Path(__file__).resolve().parents[1] / "tui"
    found = []
    for path in sorted([*tui.rglob("*.py"), *tui.rglob("*.tcss")]):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(tui.parent)}:{n}: {s}" for s in BUILTIN_IDS if s in line.casefold()]
    assert not found, "tui/ names a system:\n" + "\n".join(found)
