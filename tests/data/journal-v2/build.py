"""Run with the gmdesk of journal format v2 (a header change on a line of its own):
a session whose journal holds its events, header changes and view state as that
gmdesk wrote them (the writer "killed" before its close could compact them away),
and the events and header it read back then."""

import json
import sys
from pathlib import Path

from gmdesk.core.dice import FixedDice
from gmdesk.core.session import Session, SessionStore

out = Path(sys.argv[1])
store = SessionStore(out)
p = store.create("journal v2", "4d2")
s = Session.open(p)
k = s.apply({"type": "character.add", "character": {"name": "Kara"}}).data["id"]
for faces in ([3, 5, 3, 4], [1, 3, 1, 6], [6, 6, 1, 1]):
    s.roll("4d2", {}, actor=k, rng=FixedDice(faces))
s.apply({"type": "note", "text": "the docks at night"})
s.ui_set("selected", k)
s._log._storage.abandon()  # as a kill would: the journal keeps every record
sidecar = p.with_name(p.name + ".lock")
sidecar.unlink()  # (what a writer on another machine left is no part of the save)
with Session.open(p, readonly=True) as again:
    seen = {
        "header": {k: v for k, v in again._log.header.items() if k != "last_played"},
        "events": [[e.seq, e.type, e.summary] for e in again.events],
    }
(out / "journal v2.json").write_text(json.dumps(seen, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
