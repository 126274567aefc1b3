"""Handler of ``character.status``: the GM sets a character's status by hand.

Payload: ``id`` and ``status`` (``ok``, ``unconscious`` or ``dead``). Where a
system's rules give no knock-out (its ``HARM`` declares none, or not for this
case), the GM says who is out, and may overrule a status the rules gave (RULES
"Who can act").

The status set stands in place of the one the rules give
(:class:`~core.session.model.SetStatus`) and is honoured wherever a status is: no
turn, no roll, no defense, no default target, the Dead not targetable. It holds
until the GM sets another, or until something the rules decide afterwards gives a
worse one (a wound taken later); healing or a wound removed later never makes it
better. Setting the status the rules give anyway clears the hand-set one (the
rules stand again). One event, undone as one.
"""

from __future__ import annotations

from typing import Any

from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.events.text import status_word
from gmdesk.core.session.model import STATUSES, SetStatus


@handler("character.status")
def _character_status(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("id", "status"))
    c = ctx.char(p["id"])
    status = ctx.choice(p["status"], "status", STATUSES)
    before = c.status
    if before == status and (c.status_set is not None or c.rules_status == status):
        raise ctx.fail(f"{c.name} is already {status_word(status)}")
    live = ctx.tx.char(c.id)
    if live.rules_status == status:
        live.status_set = None
    else:
        live.status_set = SetStatus(status, ctx.seq, live.vitality_current, live.dead)
    ctx.changes.append(f"{c.name}: {status_word(before)} → {status_word(status)}")
    return f"{c.name} is {status_word(status)} (set by the GM)"
