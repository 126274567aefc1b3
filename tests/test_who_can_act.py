"""Who can act (RULES "Who can act"): the Dead stay dead over a rest, those who
cannot act get no initiative and no defense roll, and the GM may set a status by
hand — in every system, on the saved session."""

from __future__ import annotations

import pytest
from helpers import gmdesk_cli as run

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore

SYSTEMS = ("4d2", "fudge", "1d6x4", "torg-2d10", "4d6")


def night_with_a_fatal_wound(saves, system: str):
    """Bea, killed by a wound from a roll (4d2: +10 on the Combat table; torg: 23
    result points), and Tam, hurt but alive."""
    store = SessionStore(saves)
    path = store.create("Night 1", system)
    with Session.open(path) as s:
        bea = s.apply({"type": "character.add", "character": {"name": "Bea", "vitality": 8}}).data["id"]
        tam = s.apply({"type": "character.add", "character": {"name": "Tam", "vitality": 8}}).data["id"]
        g = s.apply({"type": "character.add", "character": {"name": "Gospog", "side": "NPC"}}).data["id"]
        if system == "4d2":
            s.roll(system, {"combat": True}, actor=g, target=bea, combat=True, rng=FixedDice([6, 6, 1, 1]))
        else:
            params = {"combat": True, "skill": 30, "difficulty": 8}
            s.roll(system, params, actor=g, target=bea, combat=True, rng=FixedDice([1, 2]))
        s.roll(
            system,
            {"combat": True, **({} if system == "4d2" else {"skill": 8, "difficulty": 8})},
            actor=g,
            target=tam,
            combat=True,
            rng=FixedDice([4, 3, 1, 1] if system == "4d2" else [1, 2]),
        )
        assert s.state.characters[bea].status == "dead"
        assert "Fatal Wound" in [w.text for w in s.state.characters[bea].wounds]
        assert s.state.characters[tam].status == "ok" and s.state.characters[tam].wounds
    return path


def carried(saves, name: str = "Night 2"):
    with Session.open(saves / f"{name}.gmdesk", readonly=True) as s:
        return {c.name: c for c in s.state.characters.values()}, list(s.events)


# ----------------------------------------------------------------------------- 1. a rest


@pytest.mark.parametrize("system", ("4d2", "torg-2d10"))
@pytest.mark.parametrize("rest", (True, False))
def test_a_rest_never_revives_one_killed_by_a_wound(capsys, saves, system, rest):
    night_with_a_fatal_wound(saves, system)
    rc, _, err = run(capsys, saves, "new", "Night 2", "--from", "Night 1", *(["--rest"] if rest else []))
    assert rc == 0, err
    chars, events = carried(saves)
    bea, tam = chars["Bea"], chars["Tam"]
    assert bea.status == "dead" and [w.text for w in bea.wounds] == ["Fatal Wound"]
    assert not any("Bea" in line and "healed" in line for line in events[0].changes)
    if rest:  # the living rest as before
        assert tam.status == "ok" and tam.wounds == [] and any("Tam" in x and "healed" in x for x in events[0].changes)


def test_the_picker_s_next_night_keeps_the_dead_dead(saves):
    """The picker's "Next night from…" with "rest" is the store's next_night."""
    night_with_a_fatal_wound(saves, "torg-2d10")
    SessionStore(saves).next_night(saves / "Night 1.gmdesk", "Night 2", rest=True)
    chars, _ = carried(saves)
    assert chars["Bea"].status == "dead"
