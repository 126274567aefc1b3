"""The registry of event types: which events exist, the form the UI sees one in
(:class:`Event`), and the handler of each type (filled by :func:`handler` when the
handler modules are imported: importing :mod:`core.session.events` imports them all)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gmdesk.core.session.events.context import Ctx

#: every event type, in the order the design lists them
EVENT_TYPES = (
    "session.settings",
    "session.carried",
    "character.add",
    "character.edit",
    "character.remove",
    "character.fields",
    "character.hide",
    "character.reveal",
    "visibility.set",
    "character.status",
    "characters.add",
    "group.set",
    "group.remove",
    "source.add",
    "source.remove",
    "source.toggle",
    "condition.add",
    "condition.remove",
    "counter.add",
    "counter.change",
    "counter.remove",
    "sheet.set",
    "sheet.import",
    "sheet.add",
    "encounter.add",
    "encounter.remove",
    "encounter.move",
    "encounter.delay",
    "encounter.end",
    "initiative.set",
    "turn.next",
    "turn.prev",
    "round.new",
    "day.new",
    "clock.add",
    "clock.tick",
    "clock.remove",
    "roll",
    "use",
    "heal",
    "possibility.spend",
    "possibility.cancel",
    "damage.buyoff",
    "wound.remove",
    "note",
    "undo",
    "redo",
)
#: fields gmdesk adds to a stored event (never part of what is validated)
#: (``effects``: the human-readable changes the event made, e.g. "Kara takes Severe Wound")
META_FIELDS = ("type", "time", "summary", "effects")


@dataclass(frozen=True)
class Event:
    """One event of the log as the UI sees it. ``data`` is the payload (with the
    fields gmdesk filled in, e.g. a new character's ``id``, and ``effects``: the
    human-readable changes, also as :attr:`changes`)."""

    seq: int
    type: str
    data: Mapping[str, Any]
    time: str
    summary: str

    def __init__(self, seq: int, type: str, data: Mapping[str, Any], time: str, summary: str) -> None:
        # (what the generated __init__ does, without a frozen setattr a field: an event
        # is made for every roll and for every event read back)
        self.__dict__.update(seq=seq, type=type, data=data, time=time, summary=summary)

    @property
    def changes(self) -> list[str]:
        """What the event changed, one line each ("Bruno: Vitality 3 → −1 (Unconscious)")."""
        return list(self.data.get("effects", ()))

    def to_json(self) -> dict[str, Any]:
        out = {"seq": self.seq, "type": self.type, "time": self.time, "summary": self.summary}
        out.update(copy.deepcopy(dict(self.data)))
        return out

    @classmethod
    def from_doc(cls, seq: int, doc: Mapping[str, Any]) -> Event:
        data = {k: v for k, v in doc.items() if k not in ("type", "time", "summary")}
        return cls(seq, str(doc.get("type", "")), data, str(doc.get("time", "")), str(doc.get("summary", "")))


Handler = Callable[[Ctx, dict[str, Any]], str]
HANDLERS: dict[str, Handler] = {}


def handler(etype: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        HANDLERS[etype] = fn
        return fn

    return deco
