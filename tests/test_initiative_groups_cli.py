"""Initiative groups from the command line (issue 23, point 1): ``char SAVE add-from
NAME --count N --group``, ``char SAVE group NAME… --label LABEL``, ``char SAVE
ungroup LABEL``, and a roll ``--as`` / ``--at`` a group's label taking its member.
Bad input: exit 2, one line on stderr, nothing saved. In-process."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import gmdesk_cli as run
from helpers import one_error_line

from gmdesk.core.session import Session, SessionStore


def rows(path: Path) -> list[str]:
    with Session.open(path, readonly=True) as s:
        st = s.state
        out = []
        for a, _ in st.units():
            c = st.characters[st.encounter.order[a].char_id]
            out.append(st.group_title(c.group) if c.group else c.name)
        return out


def test_add_from_with_group_adds_one_group_at_one_roll(capsys, saves):
    path = SessionStore(saves).create("Night 1", "torg-2d10")
    rc, out, err = run(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--count", "3", "--group", "--seed", "5")
    assert rc == 0, err
    assert "as one group, Gospog ×3" in out
    assert rows(path) == ["Gospog ×3"]
    with Session.open(path, readonly=True) as s:
        (ev,) = s.events
        assert ev.data["group"] == "Gospog"
        assert len([r for r in s.state.rolls if r.kind == "initiative"]) == 1  # one roll for the group
        assert len({x.initiative for x in s.state.encounter.order}) == 1
        assert [c.group for c in s.state.characters.values()] == ["Gospog"] * 3
    # the label is taken now: the next group of Gospogs is "Gospog group"
    rc, out, err = run(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--count", "2", "--group")
    assert rc == 0 and "Gospog group ×2" in out, err
    before = path.read_bytes()
    rc, out, err = run(capsys, saves, "char", "Night 1", "add-from", "Gospog", "--group")
    assert rc == 2 and out == ""
    one_error_line(err, "--group", "two characters or more")
    assert path.read_bytes() == before


def test_group_and_ungroup_from_the_command_line(capsys, saves):
    path = SessionStore(saves).create("Night 1", "4d6")
    for name in ("Kara", "Orc", "Goblin"):
        assert run(capsys, saves, "char", "Night 1", "add", name, "--side", "PC" if name == "Kara" else "NPC")[0] == 0
    assert run(capsys, saves, "char", "Night 1", "initiative", "Kara=9", "Orc=14", "Goblin=3")[0] == 0
    rc, out, err = run(capsys, saves, "char", "Night 1", "group", "Orc", "goblin", "--label", "Raiders")
    assert rc == 0, err
    assert out.startswith("Raiders ×2 is one group: Orc, Goblin, initiative 14 (where Orc stood)")
    assert rows(path) == ["Raiders ×2", "Kara"]
    rc, out, err = run(capsys, saves, "char", "Night 1", "show", "Goblin")
    assert "in the group Raiders ×2" in out
    # one roll for the group; --as / --at the label take a member
    rc, out, err = run(capsys, saves, "char", "Night 1", "initiative", "Goblin", "--seed", "2")
    assert rc == 0 and "Raiders ×2: initiative" in out and "the group's lowest" in out, err
    rc, out, err = run(
        capsys, saves, "roll", "4d6", "--save", "Night 1", "--as", "Raiders", "--at", "Kara", "--combat", "--json"
    )
    assert rc == 0, err
    assert json.loads(out.splitlines()[0])
    with Session.open(path, readonly=True) as s:
        (roll,) = [r for r in s.state.rolls if r.kind == "roll"]
        assert roll.actor_name == "Orc"  # the first who can act
    rc, out, err = run(capsys, saves, "char", "Night 1", "ungroup", "raiders")
    assert rc == 0 and out.startswith("The group Raiders ×2 splits"), err
    assert "Raiders ×2" not in rows(path) and "Orc, Goblin" in ", ".join(rows(path))


def test_bad_group_input_is_one_line_and_saves_nothing(capsys, saves):
    path = SessionStore(saves).create("Night 1", "4d6")
    for name in ("Kara", "Orc"):
        assert run(capsys, saves, "char", "Night 1", "add", name)[0] == 0
    journal = path.with_name(path.name + ".journal")
    before = path.read_bytes(), journal.read_bytes() if journal.exists() else b""
    for args, words in (
        (("group", "Kara", "Orc", "--label", "kara"), ("'Kara' is a character's name", "label")),
        (("group", "Kara", "Orc", "--label", "c7"), ("c7", "id")),
        (("group", "Kara", "--label", "Solo"), ("two characters or more",)),
        (("group", "Kara", "Nobody", "--label", "Pair"), ("no character 'Nobody'",)),
        (("ungroup", "Pair"), ("no group 'Pair'",)),
    ):
        rc, out, err = run(capsys, saves, "char", "Night 1", *args)
        assert rc == 2 and out == "", args
        one_error_line(err, *words)
    rc, out, err = run(capsys, saves, "char", "Night 1", "group", "Kara", "Orc")
    assert rc == 2 and "--label" in err and err.count("\n") <= 2
    assert (path.read_bytes(), journal.read_bytes() if journal.exists() else b"") == before
    assert run(capsys, saves, "char", "Night 1", "group", "Kara", "Orc", "--label", "Pair")[0] == 0
    rc, out, err = run(capsys, saves, "char", "Night 1", "add", "pair")  # nor a name a label
    assert rc == 2
    one_error_line(err, "initiative group")
