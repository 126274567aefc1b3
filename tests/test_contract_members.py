"""What a plug-in declares, gmdesk does for it as for a built-in: its session
settings (asked and filled into its rolls), how its rolls read in the chronicle,
the migration of the records an earlier version of it saved, and the exact
distribution of its result. Each is checked on a small plug-in written here
(:mod:`plugin_site`) and, where the built-ins have one, on them."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from coin_plugin import registered
from plugin_site import plugin_site

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore
from gmdesk.core.session.export import export, record_facts
from gmdesk.core.session.settings import declared, defaults_for, parse_assignment
from gmdesk.core.systems import BUILTIN_IDS, get_spec
from gmdesk.core.tables import DEFAULT_TABLES

#: a plug-in with a session setting its bonus parameter takes, and its own chronicle
SETTING = """
PARAMS = (
    Param("sides", "Sides", "int", 6, "faces of the die", lo=2, hi=20),
    Param("bonus", "Bonus", "int", 0, "added to the die", lo=-5, hi=5, form=False, setting="pdie_bonus"),
)
SETTINGS = (Setting("pdie_bonus", "Bonus to every roll", "what every roll adds to its die", "int", 0, lo=-5, hi=5),)
EXTRA_LABELS = (("face", "Face"),)


def roll(params, rng, tables=DEFAULT_TABLES):
    face = roll_die(rng, params.sides)
    value = face + params.bonus
    return RollRecord(
        system=ID,
        params=dataclass_to_json(params),
        dice=(Die(face, "die", params.sides),),
        value=value,
        outcome="High" if value * 2 > params.sides else "Low",
        extra={"face": face},
    )


def chronicle(record, facts):
    return [*facts, f"on a d{record.params['sides']}"]
"""


def test_a_plug_in_s_setting_is_offered_started_with_and_fills_its_rolls(tmp_path: Path) -> None:
    with registered(plugin_site(tmp_path, "pdie", SETTING)):
        spec = get_spec("pdie")
        assert [(s.key, s.system) for s in spec.settings] == [("pdie_bonus", "pdie")]
        assert "pdie_bonus" in [s.key for s in declared()]  # the dialog, the help, --setting
        assert parse_assignment("pdie_bonus=2") == ("pdie_bonus", 2)
        assert spec.to_json()["settings"][0]["key"] == "pdie_bonus"  # gmdesk systems --json lists it
        assert defaults_for("pdie")["pdie_bonus"] == 0 and "pdie_bonus" not in defaults_for("4d2")
        path = SessionStore(tmp_path / "saves").create("Night", "pdie", {"pdie_bonus": 2})
        with Session.open(path) as s:
            assert s.state.info.settings["pdie_bonus"] == 2
            event = s.roll("pdie", {"sides": 6}, rng=FixedDice([1]))
            record = s.state.roll_entry(event.seq).record
            assert (record.params["bonus"], record.value) == (2, 3)  # the session's setting, filled in
            changed = s.apply({"type": "session.settings", "changes": {"pdie_bonus": -1}})
            assert "Bonus to every roll (pdie): 2 → -1" in changed.changes


def test_a_built_in_session_keeps_its_own_system_s_settings(tmp_path: Path) -> None:
    path = SessionStore(tmp_path / "saves").create("Night", "4d2")
    with Session.open(path, readonly=True) as s:
        settings = s.state.info.settings
    assert settings["skill_threshold"] == 9  # 4d2's own, at its declared default
    assert "fudge_method" not in settings and "ord_positive_reroll" not in settings


def test_a_plug_in_s_rolls_read_in_the_chronicle_its_own_way(tmp_path: Path) -> None:
    with registered(plugin_site(tmp_path, "pdie", SETTING)):
        path = SessionStore(tmp_path / "saves").create("Night", "pdie")
        with Session.open(path) as s:
            s.roll("pdie", {"sides": 8}, rng=FixedDice([5]))
            record = s.state.rolls[-1].record
            assert record_facts(record, public=True) == ["Face 5", "on a d8"]
            assert "Face 5 · on a d8" in export(s.state, "md", s.events, header=s.header)


def test_a_4d6_dc_reads_with_its_name_in_the_chronicle() -> None:
    spec = get_spec("4d6")
    record = spec.roll(spec.params_from_json({"dc": 16}), FixedDice([4, 4, 4, 4]), DEFAULT_TABLES)
    assert "DC 16 (Standard)" in record_facts(record, public=True)


#: the plug-in as an earlier version wrote its records: "Low" was then its word
OLD = ""
#: the plug-in now: its low rolls are "Short", and records written before read so
NEW = """
def migrate(record):
    if record.get("outcome") == "Low":
        return {**record, "outcome": "Short"}
    return record
"""


def test_records_an_earlier_version_saved_read_as_the_system_reads_them_now(tmp_path: Path) -> None:
    with registered(plugin_site(tmp_path / "v1", "pdie", OLD)):
        path = SessionStore(tmp_path / "saves").create("Night", "pdie")
        with Session.open(path) as s:
            s.roll("pdie", {"sides": 6}, rng=FixedDice([2]))
            s.roll("pdie", {"sides": 6}, rng=FixedDice([6]))
            s.roll_initiative([s.apply({"type": "character.add", "character": {"name": "Ann"}}).data["id"]])
            assert [r.record.outcome for r in s.state.rolls[:2]] == ["Low", "High"]
    before = path.read_bytes()
    with registered(plugin_site(tmp_path / "v2", "pdie", NEW)):
        with Session.open(path, readonly=True) as s:
            assert [r.record.outcome for r in s.state.rolls[:2]] == ["Short", "High"]
            assert s.state.rolls[2].kind == "initiative"  # an initiative record went through it too
    assert path.read_bytes() == before  # nothing written back


#: a plug-in that declares the distribution of its value (one die)
DISTRIBUTION = """
def result_distribution(params, tables):
    return {v: Fraction(1, params.sides) for v in range(1, params.sides + 1)}
"""


def test_a_declared_distribution_sums_to_one_and_matches_the_exact_odds(tmp_path: Path) -> None:
    with registered(plugin_site(tmp_path, "pdie", DISTRIBUTION)):
        spec = get_spec("pdie")
        params = spec.Params(sides=8)
        dist = spec.distribution(params)
        assert sum(dist.values()) == 1 and list(dist) == list(range(1, 9))
        assert dist == dict(spec.odds(params, DEFAULT_TABLES).distribution)


@pytest.mark.parametrize("system", BUILTIN_IDS)
def test_every_built_in_gives_the_exact_distribution_of_its_result(system: str) -> None:
    spec = get_spec(system)
    params = spec.Params()
    odds = spec.odds(params, DEFAULT_TABLES)
    dist = spec.distribution(params)
    assert all(isinstance(p, Fraction) and p > 0 for p in dist.values())
    assert sum(dist.values()) + odds.tail == 1
    assert dist == {v: p for v, p in odds.distribution if p}
    assert list(dist) == sorted(dist)


@pytest.mark.parametrize(
    ("system", "data"),
    [
        ("4d2", {}),
        ("4d2", {"combat": True}),
        ("fudge", {"combat": True}),
        ("1d6x4", {"target": 14}),
        ("1d6x4", {"combat": True, "vs_bonus": 1}),
        ("torg-2d10", {"difficulty": 10}),
        ("torg-2d10", {"combat": True, "difficulty": 10}),
        ("4d6", {}),
        ("4d6", {"combat": True}),
    ],
)
def test_the_odds_name_the_outcomes_the_roll_gives(system: str, data: dict) -> None:
    """PLUGINS.md "Outcomes and odds": the chance the dialog shows is that of exactly
    what the log will say — each roll's outcome (or a descriptor it deals) is one of
    its odds' named outcomes (its detail in parentheses after it), with a chance above 0."""
    from gmdesk.core.dice import make_rng

    spec = get_spec(system)
    params = spec.params_from_json(data)
    named = {label: p for label, p in spec.odds(params, DEFAULT_TABLES).outcomes}
    assert named
    for seed in range(60):
        record = spec.roll(params, make_rng(seed), DEFAULT_TABLES)
        said = [record.outcome, *(d.text for d in record.descriptors)]
        assert any(
            p > 0 and (text == label or text.startswith(label + " (")) for label, p in named.items() for text in said
        ), (seed, said, sorted(named))
