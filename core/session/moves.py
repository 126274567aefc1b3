"""The session's moves at the table: each rolls the dice it needs (a Test, a
Possibility, a heal, initiative) with the session's tables, then appends one event
through :meth:`Session.apply <core.session.session.Session.apply>`."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import gmdesk.core.systems as _systems
from gmdesk.core.dice import RandomSource, RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.events import MAX_INITIATIVE, Event, EventError, roll_refusal
from gmdesk.core.session.events.encounter import pinned_refusal
from gmdesk.core.session.events.text import initiative_words
from gmdesk.core.session.model import Character, State

if TYPE_CHECKING:
    import threading

    from gmdesk.core.session.events import Fold
    from gmdesk.core.session.params import SystemRef
    from gmdesk.core.systems.spec import SystemSpec
    from gmdesk.core.tables import TableSet


@cache
def _sheet_items() -> Callable[[Iterable[Character]], frozenset[str]]:
    """``core.session.params.sheet_items``, imported at the first call: a run of rolls
    runs no import statement a roll."""
    from gmdesk.core.session.params import sheet_items

    return sheet_items


class SessionMoves:
    """The rolling half of :class:`~core.session.session.Session` (mixed into it)."""

    if TYPE_CHECKING:  # what Session provides
        readonly: bool
        _fold: Fold
        _mutex: threading.RLock

        @property
        def state(self) -> State: ...

        def tables(self) -> TableSet: ...

        def apply(self, doc: Mapping[str, Any]) -> Event: ...

    def roll(
        self,
        system: SystemRef,
        params: Any,
        actor: str | None = None,
        target: str | None = None,
        combat: bool = False,
        rng: RandomSource | None = None,
        fill: bool = True,
        clock: str | None = None,
        given: Collection[str] | None = None,
        tables: TableSet | None = None,
        origins: Mapping[str, str] | None = None,
    ) -> Event:
        """Roll ``system`` with the session's tables and log it (a ``roll`` event).

        ``params`` is the system's Params (or its JSON; a stat name such as "Fire
        Combat" in a parameter a ``stat`` field feeds is the character's value).
        What was not given is filled from the roller's and the target's fields, their
        sources and conditions and the session's settings (:mod:`core.session.params`);
        where a value came from goes on the record (``extra["from"]``). ``rng``
        defaults to a fresh ``random.Random()``. Possibilities spent at roll time (the
        parameter the system's ``HARM.spend`` names) cost the roller; refused before
        any die is rolled if it lacks them. ``clock``: the clock the roll's progress goes to, for a system
        whose rolls move clocks (refused before rolling if the session has no such
        clock). ``given``: the parameter names the caller set explicitly (they win
        over what the session fills in; None: those that differ from the default).
        ``tables``: other tables than the session's (``gmdesk roll --table``).
        ``origins``: where the caller's own values came from (kept with the roll)."""
        if self.readonly:
            raise EventError("this session is open read-only", "roll")
        spec = _systems.spec_of(system)
        st = self.state
        a = st.characters.get(actor) if actor is not None else None
        t = st.characters.get(target) if target is not None else None
        if actor is not None and a is None:
            raise EventError(f"actor: no character {actor!r} in this session", "roll")
        if target is not None and t is None:
            raise EventError(f"target: no character {target!r} in this session", "roll")
        origins = dict(origins or {})
        aimed = params.get("combat") if isinstance(params, Mapping) else getattr(params, "combat", False)
        self.check_roll(a, t, combat=bool(combat or aimed))
        if isinstance(params, Mapping):
            data = dict(params)
            if combat:  # before validation: some combat-only options need it (a mutual melee)
                data.setdefault("combat", True)
            from gmdesk.core.session.params import fill_data, resolve_names

            if fill:  # filled before validation: an attack's Difficulty may come from the target
                params, filled = fill_data(st.info.settings, spec, data, a, t, combat, given, self.sheet_items())
            else:
                data, filled = resolve_names(spec, data, a, t)
                params = spec.params_from_json(data)
            origins.update(filled)
        elif fill:
            params, filled = self.fill_params_from(spec, params, a, t, combat, given)
            origins.update(filled)
        # fill=False: the caller already settled every parameter
        refused = params_refusal(spec, params, a)
        if refused is not None:
            raise refused
        if clock:
            if not spec.clocks:
                raise EventError(f"clock: a {spec.id} roll moves no clock", "roll")
            if not any(k.casefold() == clock.strip().casefold() for k in st.clocks):
                raise EventError(f"clock: no clock named {clock!r}", "roll")
        record = spec.roll(
            params, rng if rng is not None else random.Random(), tables if tables is not None else self.tables()
        )
        if origins:
            record = dataclasses.replace(record, extra={**record.extra, "from": dict(origins)})
        return self.log_roll(record, actor, target, bool(combat or getattr(params, "combat", False)), clock=clock)

    def log_roll(
        self,
        record: RollRecord,
        actor: str | None = None,
        target: str | None = None,
        combat: bool = False,
        clock: str | None = None,
    ) -> Event:
        """Log a rolled record (one ``roll`` event) with what it does besides: the
        uses it spends on the roller's (or the defender's) sheet, by its system's
        ``roll_uses`` (a Test naming Abilities or Uses); ``clock``: the clock
        its progress goes to."""
        doc: dict[str, Any] = {
            "type": "roll",
            "record": record,  # (its JSON in the event; the fold keeps the record itself)
            "actor": actor,
            "target": target,
            "combat": bool(combat),
        }
        if clock:
            doc["clock"] = clock
        try:
            hook = _systems.get_spec(record.system).roll_uses
        except GmdeskError:
            hook = None
        if hook is not None:
            chars = self.state.characters
            a = chars.get(actor) if actor is not None else None
            t = chars.get(target) if target is not None else None
            spent = hook(record, a, t)
            if spent:
                doc["uses"] = [
                    {"id": actor if side == "actor" else target, "descriptor": path, "amount": 1}
                    for side, path in spent
                ]
        return self.apply(doc)

    def character_or_member(self, id_or_name: str, role: str = "actor") -> Character:
        """The character named (by id or name), or for an initiative group's label
        the member a roll takes by default (:meth:`State.pick_member`): as the
        roller (``actor``) the first who can act, as the target the first standing.
        GmdeskError when the group has none."""
        label = self.state.group_label(id_or_name)
        if label is None or id_or_name in self.state.characters:
            return self.character(id_or_name)  # type: ignore[attr-defined,no-any-return]
        member = self.state.pick_member(label, role)
        if member is None:
            what = "can act" if role == "actor" else "can be attacked"
            raise GmdeskError(f"no one in the group {label} {what}")
        return member

    def check_roll(
        self, actor: Character | None = None, target: Character | None = None, *, combat: bool = False
    ) -> None:
        """Refuse, before any die is rolled, a roll the session would refuse to log: an
        Unconscious or Dead roller, a Dead target (EventError naming the status), an
        attack on the attacker itself."""
        refusal = roll_refusal(actor, target, combat)
        if refusal is not None:
            raise EventError(refusal, "roll")

    def fill_params(
        self,
        module: SystemRef,
        params: Any,
        actor: Character | None = None,
        target: Character | None = None,
        combat: bool = False,
        given: Collection[str] | None = None,
    ) -> Any:
        """The parameters with what the session knows filled in: the roller's and the
        target's fields, active sources, conditions and the session's settings (see
        :mod:`core.session.params`; ``given`` names the parameters the caller set,
        which are kept)."""
        return self.fill_params_from(module, params, actor, target, combat, given)[0]

    def fill_params_from(
        self,
        module: SystemRef,
        params: Any,
        actor: Character | None = None,
        target: Character | None = None,
        combat: bool = False,
        given: Collection[str] | None = None,
    ) -> tuple[Any, dict[str, str]]:
        """:meth:`fill_params` and where the characters' values came from
        (parameter name → "Quin Sebastian's Fire Combat")."""
        from gmdesk.core.session.params import fill_params_from

        return fill_params_from(
            self.state.info.settings, module, params, actor, target, combat, given, self.sheet_items()
        )

    def sheet_items(self) -> frozenset[str]:
        """The Physical Items the session's sheets list (``params.sheet_items``)."""
        return _sheet_items()(self.state.characters.values())

    def initiative_modifier(self, char_id: str, system: str | None = None) -> int:
        """The character's own initiative modifier, as its system declares it (its
        fields that feed initiative, or the system's ``initiative_modifier``: an own
        shift total, descriptors read on the sheet); else 0."""
        from gmdesk.core.session.params import initiative_modifier

        c = self.state.characters[char_id]
        return initiative_modifier(system or self.state.info.system, c)

    def group_roller(self, label: str) -> str | None:
        """The member who rolls initiative for group ``label``: the one with the lowest
        initiative modifier among those who can act (the first of them on equal
        modifiers); None when none can act."""
        able = [c for c in self.state.group_members(label) if c.can_act]
        if not able:
            return None
        return min(able, key=lambda c: self.initiative_modifier(c.id)).id

    def _one_per_group(self, ids: Sequence[str], typed: Mapping[str, int] | None = None) -> list[str]:
        """``ids`` with each group named once, by the member who rolls for it (or the
        one given a typed value)."""
        out: list[str] = []
        groups: set[str] = set()
        chars = self.state.characters
        for cid in ids:
            c = chars.get(cid)
            if c is None or c.group is None:
                out.append(cid)
                continue
            if c.group.casefold() in groups:
                continue
            groups.add(c.group.casefold())
            named = [x for x in ids if x in chars and chars[x].group == c.group]
            given = [x for x in named if typed is not None and typed.get(x) is not None]
            out.append(given[0] if given else self.group_roller(c.group) or cid)
        return out

    def initiative_record(
        self,
        char_id: str,
        rng: RandomSource | None = None,
        modifier: int | None = None,
        system: str | None = None,
        character: Character | None = None,
    ) -> RollRecord:
        """One initiative roll for ``char_id`` (not logged): the session's system, the
        character's own modifier unless ``modifier`` is given. A parameter the system
        declares with a session ``setting`` that its ``initiative`` also takes is
        passed the setting (a dice method), and so is what the session fills into
        the character's rolls (its conditions, a setting's effect on it). ``character``: a character not yet
        in the session (a stat block about to be added) whose modifier counts."""
        from gmdesk.core.session.params import initiative_modifier, session_values
        from gmdesk.core.systems import get_spec

        system = system or self.state.info.system
        spec = get_spec(system)
        if character is None and char_id not in self.state.characters:
            raise EventError(f"no character {char_id!r} in this session", "initiative.set")
        if modifier is not None:
            mod = modifier
        elif character is not None:
            mod = initiative_modifier(system, character)
        else:
            mod = self.initiative_modifier(char_id, system)
        rng = rng if rng is not None else random.Random()
        settings = self.state.info.settings
        takes = spec.initiative_options
        kwargs = {
            p.name: settings.get(p.setting, spec.setting_defaults().get(p.setting, p.default))
            for p in spec.params
            if p.setting and p.name in takes
        }
        # what the session fills into the character's rolls (its conditions, the
        # session's settings, through the system's session_defaults) counts for its
        # initiative as for any action, where the system's initiative takes it
        who = character if character is not None else self.state.characters.get(char_id)
        kwargs.update(
            {
                k: v
                for k, v in session_values(settings, spec, who).items()
                if k in takes and k not in ("rng", "modifier")
            }
        )
        if spec.initiative_fails is not None and who is not None and "auto_fail" in takes:
            reason = spec.initiative_fails(who)
            if reason:
                kwargs["auto_fail"] = reason
        return spec.initiative(rng, mod, **kwargs)

    def roll_initiative(
        self,
        ids: Sequence[str],
        rng: RandomSource | None = None,
        modifiers: Mapping[str, int] | None = None,
        system: str | None = None,
        values: Mapping[str, int] | None = None,
        pins: Mapping[str, bool] | None = None,
    ) -> Event:
        """Roll initiative for ``ids`` with the session's system and set it (one event;
        each roll is logged with its dice). ``values``: typed initiatives (no roll) for
        some of them. Characters not yet in the encounter join it.

        A pinned entry is never rolled: it keeps its pin (one not yet in the
        encounter joins there); a typed value moves its pin. ``pins``: id → True
        pins the entry at the value it gets (one already in the order and given no
        value, where it stands), False releases it (one given no value is not
        rolled: only released). Refused when that leaves nothing to do.

        Those who cannot act (Unconscious, Dead) get no roll and no seat (RULES "Who
        can act"): they are left out (:meth:`no_initiative` names them); one already
        seated keeps its place and its turns are skipped. Refused when nobody named
        can act. Ties with the others are settled by the session's rule
        (:mod:`core.session.ties`)."""
        rng = rng if rng is not None else random.Random()
        pins = pins or {}
        entries: list[dict[str, Any]] = []
        for cid in ids:
            if cid not in self.state.characters:
                raise EventError(f"no character {cid!r} in this session", "initiative.set")
        named = list(ids)
        ids = self._one_per_group(ids, values)  # a group rolls once: its lowest modifier
        for cid in named:
            if cid not in ids and cid in pins:
                lead = next(x for x in ids if self.state.characters[x].group == self.state.characters[cid].group)
                pins = {**pins, lead: pins[cid]}
        out = self.no_initiative([cid for cid in ids if pins.get(cid) is not False])
        if out and len(out) == len(set(ids)):
            raise EventError("; ".join(out.values()), "initiative.set")
        state = self.state
        why_not: list[str] = []
        for cid in ids:
            if cid in out:
                continue
            c = state.characters[cid]
            seat = state.encounter.index_of(cid)
            pin = pins.get(cid)
            flag = {} if pin is None else {"pin": pin}
            if values is not None and values.get(cid) is not None:
                entries.append({"id": cid, "value": int(values[cid]), **flag})
                continue
            if pin is False or (pin and seat is not None):
                entries.append({"id": cid, **flag})  # released, or pinned where it stands
                continue
            if c.pin is not None and pin is None:
                if seat is None:
                    entries.append({"id": cid, "value": c.pin})  # joins at its pin
                else:
                    why_not.append(pinned_refusal(c.name, initiative_words(self.state.info.system, c.pin)))
                continue
            record = self.initiative_record(cid, rng, (modifiers or {}).get(cid), system)
            entries.append({"id": cid, "value": record.value, "record": record.to_json(), **flag})
        if not entries:
            raise EventError("; ".join(why_not) or "nothing to roll", "initiative.set")
        doc = {"type": "initiative.set", "entries": after_all_who_rolled(entries, self.state)}
        return self.apply_placing(doc, rng, modifiers)

    def no_initiative(self, ids: Sequence[str]) -> dict[str, str]:
        """Those of ``ids`` who get no initiative, each with why ("Bea is Unconscious:
        no initiative until she can act"), in order."""
        from gmdesk.core.session.events import status_word

        out: dict[str, str] = {}
        for cid in ids:
            c = self.state.characters.get(cid)
            if c is not None and not c.can_act:
                out[cid] = f"{c.name} is {status_word(c.status)}: no initiative while they cannot act"
        return out

    def next_turn(self, rng: RandomSource | None = None) -> Event:
        """End the acting combatant's turn and start the next one's (``turn.next``).
        With the session setting "Reroll initiative every round" on, a turn that
        begins a new round carries initiative rolled again for everyone in the
        encounter who can act, each roll logged."""
        return self._turn_step("turn.next", rng)

    def new_round(self, rng: RandomSource | None = None) -> Event:
        """Straight to the next round (``round.new``), rolling initiative again as
        :meth:`next_turn` does."""
        return self._turn_step("round.new", rng)

    def _turn_step(self, etype: str, rng: RandomSource | None) -> Event:
        from gmdesk.core.session.events.encounter import begins_round

        doc: dict[str, Any] = {"type": etype}
        state = self.state
        if not state.info.settings.get("reroll_initiative") or not begins_round(state, etype):
            return self.apply(doc)
        rng = rng if rng is not None else random.Random()
        entries = []
        rollers = set(self._one_per_group([x.char_id for x in state.encounter.order]))
        for x in state.encounter.order:
            c = state.characters.get(x.char_id)
            if c is None or not c.can_act or c.pin is not None:  # a pinned entry keeps its number
                continue
            if c.group is not None and c.id not in rollers:  # a group rolls once
                continue
            record = self.initiative_record(c.id, rng)
            entries.append({"id": c.id, "value": record.value, "record": record.to_json()})
        if not entries:
            return self.apply(doc)
        doc["initiative"] = after_all_who_rolled(entries, state)
        return self.apply_placing(doc, rng)

    def join_encounter(
        self, char_id: str, rng: RandomSource | None = None, value: int | None = None, modifier: int | None = None
    ) -> Event:
        """``char_id`` joins the encounter: at the typed ``value``, else at its pin
        (a pinned character), else at an initiative rolled now (as
        ``roll_initiative`` rolls it) and logged with its dice."""
        c = self.state.characters.get(char_id)
        if value is None and c is not None and c.pin is not None:
            value = c.pin
        if c is not None and c.group is not None:  # a member joins where its group stands
            enc = self.state.encounter
            seated = [enc.index_of(m.id) for m in self.state.group_members(c.group) if m.id != c.id]
            at = [i for i in seated if i is not None]
            if at:
                value = enc.order[at[0]].initiative
        if value is not None:
            return self.apply_placing({"type": "encounter.add", "id": char_id, "initiative": int(value)}, rng)
        record = self.initiative_record(char_id, rng, modifier)
        (entry,) = after_all_who_rolled(
            [{"id": char_id, "value": record.value, "record": record.to_json()}], self.state
        )
        doc = {"type": "encounter.add", "id": char_id, "initiative": entry["value"], "record": entry["record"]}
        return self.apply_placing(doc, rng, {char_id: modifier} if modifier is not None else None)

    def apply_placing(
        self, doc: Mapping[str, Any], rng: RandomSource | None = None, modifiers: Mapping[str, int] | None = None
    ) -> Event:
        """Apply an event that places combatants in the initiative order (a join, an
        initiative set or rolled again, a group added), with the ties it makes
        settled by the session's rule ("Initiative ties", :mod:`core.session.ties`):
        the decision — and a roll-off's rolls, made with ``rng`` — goes in the event
        as its ``ties``. ``modifiers``: the modifiers the rolls used (they count for
        "higher modifier" and roll again in a roll-off)."""
        from gmdesk.core.session.events.ties import KEEP_ORDER
        from gmdesk.core.session.ties import placed_ids, settle, tie_rule, tied_runs

        with self._mutex:
            rule = tie_rule(self.state)
            if rule == KEEP_ORDER or self.readonly:
                return self.apply(doc)
            rng = rng if rng is not None else random.Random()
            mods = dict(modifiers or {})

            def modifier(cid: str) -> int:
                if mods.get(cid) is not None:
                    return int(mods[cid])
                try:
                    return self.initiative_modifier(cid)
                except (GmdeskError, KeyError):
                    return 0

            def roll(cid: str) -> RollRecord:
                return self.initiative_record(cid, rng, mods.get(cid))

            # the event applied for a moment (nothing is written), to see the order it
            # makes, then taken back: the same fold that will apply it decides
            fold = self._fold
            applied = fold.apply(fold.last_seq + 1, doc)
            try:
                new_ids = applied.extra.get("ids") or ()
                runs = one_per_group(tied_runs(self.state.encounter.order, placed_ids(doc, new_ids)), self)
                ties = settle(runs, rule, self.state, modifier, roll) if runs else []
            finally:
                fold.revert_last()
            return self.apply({**doc, "ties": ties} if ties else doc)


def one_per_group(runs: list[tuple[int, list[str]]], moves: Any) -> list[tuple[int, list[str]]]:
    """Tied runs with each group as one combatant (its member who rolls for it: a
    roll-off rolls with the group's lowest modifier); runs left with one combatant go."""
    out = []
    for at, ids in runs:
        one = moves._one_per_group(ids)
        if len(one) > 1:
            out.append((at, one))
    return out


def after_all_who_rolled(entries: list[dict[str, Any]], state: State) -> list[dict[str, Any]]:
    """The initiative entries with those whose roll failed automatically (the
    record's ``auto_fail``: no die was rolled) seated after everyone else — those
    rolled or typed now and those already in the encounter — in the order given."""
    failed = [e for e in entries if (e.get("record") or {}).get("auto_fail")]
    if not failed:
        return entries
    ids = {e["id"] for e in failed}
    others = [e["value"] for e in entries if e["id"] not in ids]
    others += [x.initiative for x in state.encounter.order if x.char_id not in ids]
    floor = max(-MAX_INITIATIVE, min(others, default=1) - 1)
    return [{**e, "value": floor} if e["id"] in ids else e for e in entries]


def params_refusal(system: SystemSpec | str, params: object, actor: Character | None = None) -> EventError | None:
    """Why the session refuses to roll these parameters for this roller, before any die
    is rolled (the roll dialog asks the same, so its preview refuses what the roll
    would): Possibilities spent at roll time (the parameter a system's
    ``HARM.spend`` names) need a reality-rated roller who has them. None when
    nothing is wrong."""
    try:
        spec = _systems.spec_of(system)
    except GmdeskError:
        return None
    spend = spec.harm.spend
    field = spend.param if spend is not None else ""
    try:
        cost = int(getattr(params, field, 0) or 0) if field else 0
    except (TypeError, ValueError):
        cost = 0
    if cost and actor is not None:
        if not actor.reality_rated:
            return EventError(
                f"{actor.name} is not reality-rated and has no Possibilities to spend", "roll", field=field
            )
        if actor.possibilities < cost:
            return EventError(
                f"{actor.name} has {actor.possibilities} Possibilities, needs {cost}", "roll", field=field
            )
    return None
