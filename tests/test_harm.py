"""What a roll does to characters is its system's declaration (``HARM``,
:mod:`gmdesk.core.systems.harm`), for a plug-in exactly as for a built-in: a
plug-in's descriptor changes no status unless the plug-in says so, a Vitality
threshold it declares knocks out and kills, ``CLOCKS = True`` moves a clock, and the
built-ins keep their rules (a GM's own wound-status table included)."""

from __future__ import annotations

import json
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from coin_plugin import registered
from helpers import make_save, saved

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session
from gmdesk.core.systems import get_spec
from gmdesk.core.systems.harm import NO_HARM, Harm, Vitality
from gmdesk.core.systems.spec import SystemSpec

#: a small plug-in system: an attack gives the target the descriptor ``hit`` (and the
#: ``amount`` when not 0); its record's ``clock`` is the die; ``{harm}`` is what it declares
PLUGIN = """
from fractions import Fraction

from gmdesk.core.dice import Descriptor, Die, RollRecord
from gmdesk.core.odds import Odds
from gmdesk.core.systems.base import dataclass_to_json
from gmdesk.core.systems.harm import Clocks, DescriptorStatus, Harm, Imposed, Spend, Vitality
from gmdesk.core.systems.spec import Param

ID = "{id}"
NAME = "Test system {id}"
PARAMS = (
    Param("hit", "Hit", "text", "Incapacitated", "what an attack deals"),
    Param("amount", "Amount", "int", 0, "Vitality it takes (0: none)", lo=0, hi=99),
)
CHARACTER_SECTIONS = frozenset({{"vitality", "conditions", "wounds"}})
{harm}


def roll(params, rng, tables=None):
    die = Die(rng.randint(1, 6), "die", 6)
    hurt = Descriptor(params.hit, "target", column="organic", amount=params.amount or None)
    hurts = (hurt,) if params.combat else ()
    return RollRecord(ID, dataclass_to_json(params), (die,), die.value, "Rolled", {{"clock": die.value}}, hurts)


def odds(params, tables=None):
    return Odds.from_dist(ID, dataclass_to_json(params), {{k: Fraction(1, 6) for k in range(1, 7)}})


def initiative(rng, modifier=0):
    die = Die(rng.randint(1, 6), "die", 6)
    return RollRecord(ID, {{"modifier": modifier}}, (die,), die.value + modifier, "Initiative")
"""

SYSTEMS = {
    "quiet": "",  # declares nothing of what its rolls do
    "says": 'HARM = Harm(statuses=(DescriptorStatus("Incapacitated", "unconscious"),))',
    "threshold": "HARM = Harm(vitality=Vitality(hurt_by_amount=True, unconscious_at=0, dead_at=-5))",
    "clocked": "CLOCKS = True",
    "ownclock": 'HARM = Harm(clocks=Clocks("clock"))',
    # spends its ``amount`` of Possibilities as it is rolled; a record with a ``clock``
    # (every one: the die) makes its roller Rattled
    "spender": 'HARM = Harm(spend=Spend(param="amount"), imposes=(Imposed("Rattled", "clock"),))',
}


def plugin_site(tmp_path: Path) -> Path:
    """Test plug-ins ``t-quiet``, ``t-says``… registered under ``gmdesk.systems``."""
    site = tmp_path / "harm-site"
    info = site / "gmdesk_t-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gmdesk-t\nVersion: 0.1\n")
    lines = ["[gmdesk.systems]"]
    for name, harm in SYSTEMS.items():
        (site / f"gmdesk_t_{name}.py").write_text(PLUGIN.format(id=f"t-{name}", harm=harm))
        lines.append(f"t-{name} = gmdesk_t_{name}")
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return site


@pytest.fixture
def plugins(tmp_path: Path) -> Iterator[None]:
    with registered(plugin_site(tmp_path)):
        yield


def attack(s: Session, system: str, actor: str, target: str, die: int = 3, **values: object) -> list[str]:
    params = get_spec(system).Params(combat=True, **values)
    return s.roll(system, params, actor, target, combat=True, rng=FixedDice([die])).changes


def fighters(tmp_path: Path, system: str, vitality: int = 0) -> tuple[Path, dict]:
    ann = {"name": "Ann", "vitality": 5}
    return make_save(tmp_path, system, [ann, {"name": "Bob", "side": "NPC", "vitality": vitality}])


# ----------------------------------------------------------------------------- statuses


@pytest.mark.usefixtures("plugins")
def test_a_plug_in_descriptor_called_incapacitated_knocks_nobody_out(tmp_path: Path) -> None:
    path, ids = fighters(tmp_path, "t-quiet")
    with Session.open(path) as s:
        assert attack(s, "t-quiet", ids["Ann"], ids["Bob"]) == ["Bob takes Incapacitated"]
        assert attack(s, "t-quiet", ids["Ann"], ids["Bob"], hit="Fatal Wound") == ["Bob takes Fatal Wound"]
        assert s.state.characters[ids["Bob"]].status == "ok"
    bob = saved(path).characters[ids["Bob"]]
    assert [(w.text, w.status) for w in bob.wounds] == [("Incapacitated", None), ("Fatal Wound", None)]
    assert bob.status == "ok" and bob.can_act


@pytest.mark.usefixtures("plugins")
def test_a_plug_in_that_says_so_knocks_out_with_its_descriptor(tmp_path: Path) -> None:
    path, ids = fighters(tmp_path, "t-says")
    with Session.open(path) as s:
        assert attack(s, "t-says", ids["Ann"], ids["Bob"]) == ["Bob takes Incapacitated (Unconscious)"]
        s.apply({"type": "wound.remove", "id": ids["Bob"], "wound": 0})
        assert s.state.characters[ids["Bob"]].status == "ok"  # the wound taken off lifts it
        attack(s, "t-says", ids["Ann"], ids["Bob"], hit="incapacitated")
    assert saved(path).characters[ids["Bob"]].status == "unconscious"


@pytest.mark.usefixtures("plugins")
def test_the_wound_status_table_is_only_for_the_systems_that_read_it(tmp_path: Path) -> None:
    own = tmp_path / "my-statuses.json"
    own.write_text(
        json.dumps(
            {"name": "my-statuses", "columns": ["descriptor", "column", "status"], "rows": {"1": ["Stun", "*", "dead"]}}
        )
    )
    path, ids = fighters(tmp_path, "4d2")
    with Session.open(path) as s:
        s.apply({"type": "session.settings", "changes": {"tables": {"wound-status": json.loads(own.read_text())}}})
        # a plug-in that declares no status table takes no status from it
        attack(s, "t-quiet", ids["Ann"], ids["Bob"], hit="Stun")
        assert s.state.characters[ids["Bob"]].status == "ok"
        # 4d2: positive pair 3 2, negative 1 1 = +3: Stun, dead by the GM's own table
        s.roll(
            "4d2", get_spec("4d2").Params(combat=True), ids["Ann"], ids["Bob"], combat=True, rng=FixedDice([3, 2, 1, 1])
        )
        assert s.state.characters[ids["Bob"]].status == "dead"
    assert saved(path).characters[ids["Bob"]].status == "dead"


# ----------------------------------------------------------------------------- Vitality


@pytest.mark.usefixtures("plugins")
def test_a_plug_in_vitality_threshold_knocks_out_and_its_death_threshold_kills(tmp_path: Path) -> None:
    path, ids = fighters(tmp_path, "t-threshold", vitality=3)
    bob = ids["Bob"]
    with Session.open(path) as s:
        assert attack(s, "t-threshold", ids["Ann"], bob, hit="Jab", amount=2) == ["Bob: Vitality 3 → 1"]
        assert attack(s, "t-threshold", ids["Ann"], bob, hit="Jab", amount=2) == ["Bob: Vitality 1 → −1 (Unconscious)"]
        s.apply({"type": "character.edit", "id": bob, "fields": {"vitality_current": 1}})
        assert s.state.characters[bob].status == "ok"  # above the threshold again: acts again
        s.apply({"type": "character.edit", "id": bob, "fields": {"vitality_current": 0}})
        assert s.state.characters[bob].status == "unconscious"  # at it: out
        assert attack(s, "t-threshold", ids["Ann"], bob, hit="Kick", amount=5) == ["Bob: Vitality 0 → −5 (Dead)"]
        s.apply({"type": "character.edit", "id": bob, "fields": {"vitality_current": 3}})
        assert s.state.characters[bob].status == "dead"  # the Dead stay dead
    state = saved(path)  # and so it is read back (the checkpoint and the log)
    assert state.characters[bob].status == "dead" and state.characters[bob].dead
    assert [(w.text, w.amount) for w in state.characters[bob].wounds] == [("Jab", 2), ("Jab", 2), ("Kick", 5)]


@pytest.mark.usefixtures("plugins")
def test_vitality_knocks_nobody_out_in_a_system_that_declares_no_threshold(tmp_path: Path) -> None:
    path, ids = fighters(tmp_path, "t-quiet", vitality=3)
    with Session.open(path) as s:
        s.apply({"type": "character.edit", "id": ids["Bob"], "fields": {"vitality_current": -9}})
        assert s.state.characters[ids["Bob"]].status == "ok"
        # the session's system changes: its threshold comes with it, and goes with an undo
        s.apply({"type": "session.settings", "changes": {"system": "t-threshold"}})
        assert s.state.characters[ids["Bob"]].status == "unconscious"
        s.undo()
        assert s.state.characters[ids["Bob"]].status == "ok"
        s.redo()
    assert saved(path).characters[ids["Bob"]].status == "unconscious"


def test_the_1d6x4_declaration_is_its_vitality_rule() -> None:
    x4 = get_spec("1d6x4").module
    rule = get_spec("1d6x4").harm.vitality
    for current in range(-8, 6):
        for amount in range(0, 8):
            for out in (False, True):
                new, status = x4.vitality_after(current, amount, out)
                assert rule.after(current, amount, out) == (new, status == "dead")
                if status != "dead":
                    assert (status == "unconscious") == (out or rule.out(new))


# ----------------------------------------------------------------------------- clocks


@pytest.mark.parametrize("system", ["t-clocked", "t-ownclock"])
@pytest.mark.usefixtures("plugins")
def test_a_plug_in_roll_moves_a_clock(tmp_path: Path, system: str) -> None:
    path, ids = make_save(tmp_path, system, [{"name": "Ann"}])
    assert get_spec(system).clocks
    with Session.open(path) as s:
        s.apply({"type": "clock.add", "name": "Escape", "segments": 4})
        event = s.roll(system, get_spec(system).Params(), ids["Ann"], rng=FixedDice([3]), clock="Escape")
        assert "Clock Escape: 0 → 1½ of 4 (+1½ segments)" in event.changes
    state = saved(path)
    assert state.clocks["Escape"].halves == 3 and state.rolls[-1].clock == "Escape"


@pytest.mark.usefixtures("plugins")
def test_a_plug_in_has_the_clock_moves_and_its_rolls_progress_is_offered_to_the_next_tick(tmp_path: Path) -> None:
    path, ids = make_save(tmp_path, "t-clocked", [{"name": "Ann"}])
    assert [m.id for m in get_spec("t-clocked").moves] == ["clock_add", "clock_tick"]
    assert get_spec("t-quiet").moves == ()
    with Session.open(path) as s:
        s.move("clock_add", {"name": "Escape", "segments": 4})
        s.roll("t-clocked", get_spec("t-clocked").Params(), ids["Ann"], rng=FixedDice([5]))
        assert [f.default for f in s.move_form("clock_tick")] == ["Escape", 5]
        s.move("clock_tick", {"name": "Escape", "halves": 5})
    state = saved(path)
    assert state.clocks["Escape"].halves == 5 and state.rolls[-1].clock == "Escape"


@pytest.mark.usefixtures("plugins")
def test_a_roll_of_a_system_without_clocks_moves_none(tmp_path: Path) -> None:
    from gmdesk.core.session.events import EventError

    path, ids = make_save(tmp_path, "t-quiet", [{"name": "Ann"}])
    with Session.open(path) as s:
        s.apply({"type": "clock.add", "name": "Escape", "segments": 4})
        with pytest.raises(EventError, match="a t-quiet roll moves no clock"):
            s.roll("t-quiet", get_spec("t-quiet").Params(), ids["Ann"], rng=FixedDice([3]), clock="Escape")
    assert saved(path).clocks["Escape"].halves == 0


def test_a_session_opens_by_the_plug_ins_declaration_of_now(tmp_path: Path) -> None:
    site = plugin_site(tmp_path)
    with registered(site):
        path, ids = fighters(tmp_path, "t-quiet")
        with Session.open(path) as s:
            attack(s, "t-quiet", ids["Ann"], ids["Bob"])
            for n in range(Session.UNDO_KEPT):  # the roll is in the checkpoint's state, not re-applied
                s.apply({"type": "note", "text": f"round of drinks {n}"})
        assert saved(path).characters[ids["Bob"]].status == "ok"
    # a new version of the plug-in says its Incapacitated knocks out: the session's
    # checkpoint, written beside the old one, is not used
    (site / "gmdesk_t_quiet.py").write_text(PLUGIN.format(id="t-quiet", harm=SYSTEMS["says"]))
    with registered(site):
        assert saved(path).characters[ids["Bob"]].status == "unconscious"


# ----------------------------------------------------------------------------- spends, conditions


@pytest.mark.usefixtures("plugins")
def test_a_plug_in_roll_spends_possibilities_and_imposes_a_condition(tmp_path: Path) -> None:
    from gmdesk.core.session.events import EventError

    path, ids = make_save(tmp_path, "t-spender", [{"name": "Ann", "reality_rated": True, "possibilities": 2}])
    ann = ids["Ann"]
    with Session.open(path) as s:
        params = get_spec("t-spender").Params(amount=2)
        event = s.roll("t-spender", params, ann, rng=FixedDice([4]))
        assert event.changes == ["Ann: Possibilities 2 → 0 (spent on the roll)", "Ann is Rattled"]
        with pytest.raises(EventError, match="Ann has 0 Possibilities, needs 1"):
            s.roll("t-spender", get_spec("t-spender").Params(amount=1), ann, rng=FixedDice([4]))
        quiet = s.roll("t-quiet", get_spec("t-quiet").Params(amount=1), ann, rng=FixedDice([4]))
        with pytest.raises(EventError, match="is a t-quiet roll; no Possibility is spent on it"):
            s.apply({"type": "possibility.spend", "id": ann, "roll": quiet.seq, "record": {}})
    ann_saved = saved(path).characters[ann]
    assert ann_saved.possibilities == 0 and [c.name for c in ann_saved.conditions] == ["Rattled"]


# ----------------------------------------------------------------------------- the declaration


def module(source: str) -> types.ModuleType:
    m = types.ModuleType("gmdesk_t_bad")
    exec(textwrap.dedent(PLUGIN.format(id="t-bad", harm=source)), m.__dict__)  # noqa: S102
    return m


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('HARM = "wounds"', "gmdesk_t_bad.HARM must be a gmdesk.core.systems.harm.Harm"),
        ('HARM = Harm(statuses=("Fatal Wound",))', "gmdesk_t_bad.HARM: statuses holds 'Fatal Wound'"),
        (
            'from gmdesk.core.systems.harm import Spend\nHARM = Harm(spend=Spend(param="luck"))',
            "gmdesk_t_bad.HARM: spend.param names 'luck', which is no parameter",
        ),
    ],
)
def test_a_wrong_declaration_is_named(source: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        SystemSpec.from_module(module(source))
    assert str(refused.value).startswith(message)


def test_a_system_without_harm_declares_nothing_and_clocks_true_the_default_clocks() -> None:
    assert SystemSpec.from_module(module("")).harm == NO_HARM
    clocked = SystemSpec.from_module(module("CLOCKS = True"))
    assert clocked.harm.clocks is not None and clocked.clocks
    with pytest.raises(ValueError, match="status must be one of unconscious, dead"):
        module('HARM = Harm(statuses=(DescriptorStatus("Stun", "dazed"),))')
    assert Harm(vitality=Vitality(unconscious_at=0)).vitality.out(0)


# ----------------------------------------------------------------------------- no system named


def test_the_session_applies_a_roll_without_naming_a_system() -> None:
    """The handlers and the model name no system and import no system module, comments
    included (the session settings' own keys, ``session_settings.py`` and the defaults
    in ``state.py``, are the settings' declaration's)."""
    from gmdesk.core.systems import BUILTIN_IDS, BUILTIN_MODULES

    session = Path(__file__).resolve().parents[1] / "core" / "session"
    files = [*sorted((session / "events").glob("*.py")), *sorted((session / "model").glob("*.py"))]
    files += [session / "offers.py", session / "systemmoves.py"]
    files = [f for f in files if f.name not in ("session_settings.py", "state.py")]
    words = (*BUILTIN_IDS, *(m.rpartition(".")[2] for m in BUILTIN_MODULES.values()))
    found = [
        f"{f.relative_to(session.parent)}:{n}: {w}"
        for f in files
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        for w in words
        if w in line
    ]
    assert not found, "\n".join(found)
