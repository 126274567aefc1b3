"""The system moves on the GM's main screen: Possibilities (torg), buying off
damage, healing and a new day (1d6x4), clocks (4d6), and the conditions toggled
from the palette.

A Possibility is spent (``P``) on the roll under the log cursor when it is a
torg-2d10 roll, else on the latest torg-2d10 roll; its roller spends it.
"""

from __future__ import annotations

from typing import Any

from gmdesk.core.errors import ParamError
from gmdesk.core.render import headline
from gmdesk.core.session import RollEntry, Session
from gmdesk.core.session.offers import buyoff_choices, pending_clock_progress
from gmdesk.core.systems.base import parse_int
from gmdesk.tui.screens.confirm import ChoiceDialog, ConfirmDialog, FormDialog
from gmdesk.tui.screens.desk import DeskScreen, SessionCall
from gmdesk.tui.widgets.common import name_of
from gmdesk.tui.widgets.form import FormField

#: how far back in the log P / C look for the torg roll to spend on or cancel
TORG_LOOKBACK = 500


class SystemMoves(DeskScreen):
    """The system moves of the main screen."""

    def _torg_entry(self) -> RollEntry | None:
        entry = self.rolllog.current_entry
        if entry is not None and entry.record.system == "torg-2d10" and getattr(entry, "kind", "roll") == "roll":
            return entry
        # A Possibility goes on a recent roll: look back over the last few hundred
        # entries only (reading an entry's record parses it; the history can be long).
        rolls = self.state.rolls
        for e in reversed(rolls[-TORG_LOOKBACK:] if len(rolls) > TORG_LOOKBACK else rolls):
            if getattr(e, "kind", "roll") == "roll" and e.record.system == "torg-2d10":
                return e
        return None

    def action_spend_possibility(self) -> None:
        def go() -> None:
            entry = self._torg_entry()
            if entry is None:
                self.say("No torg-2d10 roll to spend a Possibility on.", error=True)
                return
            spender = entry.actor if entry.actor is not None else self.selected
            if spender is None:
                self.say("Select who spends the Possibility.", error=True)
                return
            self._spend(entry, spender)

        self.when_idle(go)

    def _spend(self, entry: RollEntry, spender: str) -> None:
        rng = self.rng
        seq = entry.seq
        name = name_of(self.state, spender)

        def fn(s: Session) -> Any:
            return s.spend_possibility(spender, seq, rng)

        def done(_ev: Any) -> None:
            new = self.state.roll_entry(seq)
            rec = new.record if new is not None else None
            self.say(
                f"{name} spends a Possibility on #{seq}: now {headline(rec)} {rec.outcome}"
                if rec is not None
                else f"{name} spends a Possibility"
            )

        self.submit(fn, done)

    def action_cancel_possibility(self) -> None:
        def go() -> None:
            entry = self._torg_entry()
            if entry is None or not entry.record.get("possibilities"):
                self.say("No Possibility to cancel: only a spent Possibility can be cancelled.", error=True)
                return
            state = self.state
            choices = [
                (cid, f"{c.name} ({c.possibilities} left)")
                for cid, c in state.characters.items()
                if cid != entry.actor and c.reality_rated
            ]
            if not choices:
                self.say("Nobody else is reality-rated: no one can cancel.", error=True)
                return
            seq = entry.seq

            def chosen(cid: str | None) -> None:
                if cid is not None:
                    self.apply(
                        {"type": "possibility.cancel", "id": cid, "roll": seq},
                        f"{name_of(self.state, cid)} cancels the Possibility on #{seq}",
                    )

            default = self.selected if self.selected != entry.actor else None
            self.app.push_screen(
                ChoiceDialog(
                    f"Who cancels the Possibility on roll #{seq}?",
                    choices,
                    title="Cancel a Possibility",
                    selected=default,
                ),
                chosen,
            )

        self.when_idle(go)

    def action_buyoff(self) -> None:
        """Buy off damage just taken: the latest wound, one Enter away; older wounds are
        listed below it with their age, for the GM who means one of them."""
        cid = self._need_selected()
        if cid is None:
            return
        ch = self.state.characters[cid]
        if not ch.wounds:
            self.say(f"{ch.name} has no damage to buy off.", error=True)
            return
        choices = buyoff_choices(self.state, cid)

        def chosen(index: Any) -> None:
            if index is None:
                return
            pick = next(c for c in choices if c.index == index)
            doc: dict[str, Any] = {"type": "damage.buyoff", "id": cid}
            if not pick.latest:
                doc["wound"] = index  # an older wound, picked explicitly
            self.apply(doc, f"{ch.name} buys off {pick.text} with a Possibility")

        if len(choices) == 1:
            chosen(choices[0].index)
            return
        labels = [(c.index, f"{c.text} — {'latest, ' if c.latest else ''}{c.age}") for c in choices]
        self.app.push_screen(
            ChoiceDialog(
                f"{ch.name} buys off which damage? (a Possibility)",
                labels,
                title="Buy off damage",
                selected=choices[0].index,
            ),
            chosen,
        )

    def action_heal(self) -> None:
        def go() -> None:
            state = self.state
            if not state.characters:
                self.say("No characters yet.", error=True)
                return
            healers = [(cid, c.name) for cid, c in state.characters.items() if c.can_act]
            patients = [(cid, c.name) for cid, c in state.characters.items() if c.status != "dead"]
            if not healers or not patients:
                self.say(
                    "Nobody can heal (the Unconscious and the Dead cannot act)."
                    if not healers
                    else "Nobody to heal: the Dead stay dead.",
                    error=True,
                )
                return
            ids = {cid for cid, _ in healers}
            healer = self.acting() if self.acting() in ids else healers[0][0]
            patient = self.selected if self.selected in {cid for cid, _ in patients} else patients[0][0]
            fields = [
                FormField("healer", "Healer", "choice", healer, healers),
                FormField("target", "Patient", "choice", patient, patients),
            ]

            def done(v: Any) -> None:
                if v is None:
                    return
                healer, target = v
                p = self.state.characters.get(target)
                if p is not None:
                    self.say(
                        f"{name_of(self.state, healer)} heals {p.name}: "
                        f"Vitality {p.vitality_current}/{p.vitality_default}"
                    )

            # the dialog stays open until the session accepted the healing (a refusal,
            # e.g. a healer without a sheet, shows in it)
            self.app.push_screen(
                FormDialog(
                    "Healing Ability (1d6x4)",
                    fields,
                    commit=lambda v: self._heal(v["healer"], v["target"]),
                    verb="heal d6 (never above the default)",
                ),
                done,
            )

        self.when_idle(go)

    def _heal(self, healer: str, target: str) -> SessionCall:
        rng = self.rng

        def fn(s: Session) -> Any:
            s.heal(healer, target, rng)
            return healer, target

        return fn

    def action_new_day(self) -> None:
        def done(yes: bool | None) -> None:
            if yes:
                self.apply({"type": "day.new"}, "A new day: every current value is back to its default")

        self.app.push_screen(
            ConfirmDialog(
                "Start a new day? Every current value (uses too) returns to its "
                "default; the Dead stay dead. (u undoes it)",
                yes="New day",
                title="New day",
            ),
            done,
        )

    # -- clocks ---------------------------------------------------------------------------------

    def action_clock_add(self) -> None:
        fields = [FormField("name", "Clock name", "text", ""), FormField("segments", "Segments", "text", "4")]

        def validate(v: dict) -> None:
            if not v["name"].strip():
                raise ParamError("name", "must not be empty")
            parse_int("segments", v["segments"], 1)

        def commit(v: dict) -> SessionCall:
            event = {"type": "clock.add", "name": v["name"].strip(), "segments": int(v["segments"])}
            return lambda s: s.apply(event)

        def done(event: Any) -> None:
            if event is not None:
                self.say(f"Clock {event.data.get('name')} added")

        self.app.push_screen(FormDialog("Add a clock", fields, validate=validate, commit=commit, verb="add"), done)

    def action_clock_tick(self) -> None:
        clocks = list(self.state.clocks.values())
        if not clocks:
            self.say("No clocks yet: K adds one.", error=True)
            return
        # the progress the latest 4d6 roll earned (and no clock took yet) is the default
        offer = pending_clock_progress(self.state)
        halves0 = str(offer.halves) if offer is not None else "2"
        fields = [
            FormField("name", "Clock", "choice", clocks[0].name, [(c.name, c.name) for c in clocks]),
            FormField("halves", "Half segments", "text", halves0, placeholder="2 = one segment; -1 takes back"),
        ]
        hint = f"From roll #{offer.roll_seq}: {offer.outcome}, {offer.effect} effect" if offer is not None else ""

        def validate(v: dict) -> None:
            parse_int("halves", v["halves"])

        def commit(v: dict) -> SessionCall:
            halves = int(v["halves"])
            doc: dict[str, Any] = {"type": "clock.tick", "name": v["name"], "halves": halves}
            if offer is not None and halves == offer.halves:
                doc["roll"] = offer.roll_seq  # the roll's progress, taken
            return lambda s: s.apply(doc)

        def done(event: Any) -> None:
            if event is not None:
                halves = int(event.data.get("halves", 0))
                self.say(f"Clock {event.data.get('name')} {'+' if halves >= 0 else ''}{halves / 2:g} segment(s)")

        self.app.push_screen(
            FormDialog("Tick a clock", fields, validate=validate, hint=hint, commit=commit, verb="tick"), done
        )

    def action_toggle_condition(self, name: str) -> None:
        cid = self._need_selected()
        if cid is None:
            return
        ch = self.state.characters[cid]
        cond = next((c for c in ch.conditions if c.name.casefold() == name.casefold()), None)
        if cond is None:
            self.apply({"type": "condition.add", "id": cid, "name": name, "rounds": None}, f"{ch.name} is {name}")
        else:
            self.apply(
                {"type": "condition.remove", "id": cid, "name": cond.name, "rounds": cond.rounds},
                f"{ch.name} is no longer {name}",
            )
