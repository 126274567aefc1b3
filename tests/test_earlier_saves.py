"""Saves written by the gmdesk of before the rules fixes of "Zero wrong results"
(a GM's statuses, no defense for those who cannot act, 1d6x4 missing names and
Magic uses, torg buy-off and initiative, 4d6 contests) still open and replay to
the state they folded to then: every decision a roll made is stored with it (its
record, the wound a buy-off took, the uses it spent), so a rule fixed since never
re-decides an old event.

``tests/data/earlier/`` holds the sessions and ``*.state.json``, the state the
earlier gmdesk folded each to (its checkpoint form), written by
``tests/data/earlier/build.py`` run with that gmdesk. The shipped examples in
``saves/`` (rebuilt by ``saves/make_examples.py``) are opened by test_examples."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gmdesk.core.session import Session
from gmdesk.core.session.model import checkpoint_json

EARLIER = Path(__file__).resolve().parent / "data" / "earlier"
SAVES = sorted(p.name for p in EARLIER.glob("*.gmdesk"))


def _same_form(state_json: dict) -> dict:
    """The checkpoint form without what this gmdesk adds and that those saves never
    had (a status the GM set by hand, a pinned initiative: None) or that changes with every open; a
    descriptor sheet as its rows (names, values, uses, notes, nesting), not its
    layout, which the sheet writer may lay out anew."""
    from gmdesk.core.sheet import parse_sheet

    state_json["info"].pop("last_played", None)
    for row in state_json["characters"]:
        while len(row) > 17 and row[-1] is None:  # a status set by hand, a pin: None
            del row[-1]
        # a condition's wait on a named turn (checkpoint version 3): none in those saves
        row[10] = [cond[:3] for cond in row[10] if len(cond) < 4 or cond[3] is None] + [
            cond for cond in row[10] if len(cond) > 3 and cond[3] is not None
        ]
        if isinstance(row[12], str):
            row[12] = [
                [r.name, r.default, r.current, r.uses_default, r.uses_current, r.notes, r.depth, r.sub, r.quantity]
                for r in parse_sheet(row[12]).rows
            ]
    return json.loads(json.dumps(state_json, sort_keys=True))


def test_there_is_an_earlier_save_of_each_changed_system():
    assert SAVES == ["1d6x4 before.gmdesk", "4d6 before.gmdesk", "torg before.gmdesk"]


@pytest.mark.parametrize("name", SAVES)
def test_an_earlier_save_replays_to_the_state_it_had(tmp_path, name):
    for f in EARLIER.glob(name + "*"):
        shutil.copy(f, tmp_path / f.name)
    expected = json.loads((EARLIER / name.replace(".gmdesk", ".state.json")).read_text())
    with Session.open(tmp_path / name, readonly=True) as s:
        # (a save of an earlier store format is only said to be upgraded when written)
        assert not [w for w in getattr(s, "warnings", ()) if "skipped" in str(w)]
        got = _same_form(checkpoint_json(s.state))
    assert got == _same_form(expected)


def test_what_the_earlier_rules_decided_stays_decided(tmp_path):
    for f in EARLIER.glob("*"):
        shutil.copy(f, tmp_path / f.name)
    with Session.open(tmp_path / "torg before.gmdesk", readonly=True) as s:
        kara = s.character("Kara")
        # the old buy-off took the older Stun after a miss; the Fatal Wound after it stands
        assert [w.text for w in kara.wounds] == ["Fatal Wound"] and kara.status == "dead"
    with Session.open(tmp_path / "1d6x4 before.gmdesk", readonly=True) as s:
        bea = s.character("Bea")
        rolls = [e.record for e in s.state.rolls]
        assert rolls[2].outcome == "Automatic failure: Sneak is missing"
        assert bea.sheet.uses("Magic Ability") == 2  # spent twice then
        assert len(rolls[-1].get("opponent")["dice"]) == 1  # the Unconscious Bea rolled her defense then
    with Session.open(tmp_path / "4d6 before.gmdesk", readonly=True) as s:
        rec = s.state.rolls[-1].record
        assert rec.get("tier") == "Critical Success"
        assert [w.text for w in s.character("Orc").wounds] == ["Severe Wound"]
