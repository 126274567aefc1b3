"""What the session knows about a roll before the dice fall.

One code path for every roll a session makes: the roll / attack dialog of the desk
and ``gmdesk roll SYSTEM … --save SAVE --as A --at T`` both fill their parameters
here, so the same roller in the same state rolls with the same numbers whichever
way the GM asks.

What the session fills in (:func:`roll_defaults`):

* ``target_kind`` / ``attacker_kind`` from the tracked target's / roller's kind
  (the descriptor column follows them; a tracked character's kind always wins);
* 4d2 ``shift``: the net shift of the active shift sources, the roller's own total
  minus the target's (:func:`core.systems.four_d_two.net_shift`), and
  ``skill_threshold`` from the session setting;
* fudge ``method``: the session's dice method (setting ``fudge_method``);
* 4d6 ``adv``: the roller's active advantage sources (the target's are not read:
  in a contest the opponent's sources are typed as ``vs_adv``);
* torg ``stymied`` / ``up`` from the roller's Stymied / Up conditions, and
  ``ord_no_reroll`` for an ord (not reality-rated) when the session setting
  ``ord_positive_reroll`` is off.

What the caller sets explicitly wins (:func:`fill_params` ``given``): a CLI option
typed on the command line (``--shift 0`` included), or a field of the dialog (which
shows the filled-in values and lets the GM change them or switch a source off for
this one roll). Inactive (switched-off) sources never count.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gmdesk.core.session.model import DEFAULT_SETTINGS

#: the kind of source each system reads (the others read none)
SOURCE_KIND = {"4d2": "shift", "4d6": "advantage"}


@dataclass(frozen=True)
class RollSource:
    """One source a roll reads: the roller's own (``owner="own"``) or, in 4d2, the
    target's (``owner="vs"``, it counts against the roller)."""

    owner: str  # "own" | "vs"
    kind: str  # "shift" | "advantage"
    name: str
    value: int
    active: bool
    who: str = ""  # the character's name


def roll_sources(system: str, actor: Any = None, target: Any = None) -> list[RollSource]:
    """Every source of the roller (and, in 4d2, of the target) that ``system`` reads,
    active or not, in the character's order."""
    kind = SOURCE_KIND.get(system)
    if kind is None:
        return []
    owners = [("own", actor)]
    if system == "4d2":
        owners.append(("vs", target))
    out: list[RollSource] = []
    for owner, ch in owners:
        if ch is None:
            continue
        for src in ch.sources(kind):
            out.append(RollSource(owner, kind, src.name, int(src.value), bool(src.active), ch.name))
    return out


def sources_params(system: str, sources: Iterable[RollSource]) -> dict[str, Any]:
    """The parameters the given (switched-on) sources make: 4d2 ``shift`` (own total
    minus the target's, each held to 0..3, net −3..+3), 4d6 ``adv`` (the roller's
    values). Empty for a system that reads no sources."""
    sources = list(sources)
    if system == "4d2":
        from gmdesk.core.systems.four_d_two import net_shift, own_shift

        own = own_shift(s.value for s in sources if s.owner == "own")
        vs = own_shift(s.value for s in sources if s.owner == "vs")
        return {"shift": net_shift(own, vs)}
    if system == "4d6":
        return {"adv": tuple(s.value for s in sources if s.owner == "own")}
    return {}


def roll_defaults(settings: Mapping[str, Any], system: str, actor: Any = None, target: Any = None) -> dict[str, Any]:
    """Parameter name → what the session knows about it for this roller and target."""
    out: dict[str, Any] = {}
    if target is not None:
        out["target_kind"] = target.kind
    if actor is not None:
        out["attacker_kind"] = actor.kind
    out.update(sources_params(system, [s for s in roll_sources(system, actor, target) if s.active]))
    if system == "4d2":
        out["skill_threshold"] = settings.get("skill_threshold", DEFAULT_SETTINGS["skill_threshold"])
    if system == "fudge" and "fudge_method" in DEFAULT_SETTINGS:
        out["method"] = settings.get("fudge_method", DEFAULT_SETTINGS["fudge_method"])
    if system == "torg-2d10":
        if actor is not None:
            out["stymied"] = actor.has_condition("Stymied")
            out["up"] = actor.has_condition("Up")
        reroll = settings.get("ord_positive_reroll", DEFAULT_SETTINGS["ord_positive_reroll"])
        out["ord_no_reroll"] = bool(actor is not None and not actor.reality_rated and not reroll)
    return out


#: filled from the tracked characters whatever the caller typed
_TRACKED = ("target_kind", "attacker_kind")


def fill_params(
    settings: Mapping[str, Any],
    module: Any,
    params: Any,
    actor: Any = None,
    target: Any = None,
    combat: bool = False,
    given: Collection[str] | None = None,
) -> Any:
    """``params`` with what the session knows filled in (see the module docstring).

    ``given``: the parameter names the caller set explicitly; they are kept as they
    are. ``None`` means "whatever differs from the Params default was given"."""
    if not dataclasses.is_dataclass(params) or isinstance(params, type):
        return params
    defaults = {f.name: f.default for f in dataclasses.fields(params)}
    if given is None:
        given = {name for name, d in defaults.items() if getattr(params, name) != d}
    changes: dict[str, Any] = {}
    if combat and "combat" in defaults and not getattr(params, "combat", False):
        changes["combat"] = True
    for name, value in roll_defaults(settings, module.ID, actor, target).items():
        if name in defaults and (name in _TRACKED or name not in given):
            changes[name] = value
    changes = {k: v for k, v in changes.items() if getattr(params, k) != v}
    return dataclasses.replace(params, **changes) if changes else params


def explicit_options(parser: Any, ns: Any) -> set[str]:
    """The destinations of the options typed on a command line: those whose value is
    not the parser's default (every optional value option defaults to None, every
    flag to False, so an explicit ``--shift 0`` counts)."""
    out = set()
    for action in parser._actions:  # argparse keeps no public list of its actions
        dest = action.dest
        if dest in ("help",) or not hasattr(ns, dest):
            continue
        if getattr(ns, dest) != action.default:
            out.add(dest)
    return out
