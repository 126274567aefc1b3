"""The roll dialog's parameter form of each system, and how its entries become the
system's parameters.

What the form offers per system is layout data (:func:`forms`, built from each
system's own constants, reached through the registry); :func:`form_data` turns what
the GM typed into the data the system's ``params_from_json`` reads, with the few
readings a form needs beyond that (1d6x4 descriptors read from the sheets, fudge's
Opposed box, a 4d6 contest without DC) and the notes the dialog shows about them.
The rules stay in ``core.systems``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gmdesk.core.systems import get_system
from gmdesk.core.systems.base import parse_int
from gmdesk.tui.widgets.common import signed
from gmdesk.tui.widgets.form import FormField

if TYPE_CHECKING:
    from gmdesk.core.session import Character
    from gmdesk.core.sheet import Sheet

NONE = ""  # the "none" value of optional choices and of the target


def _empty_sheet() -> Sheet:
    """The sheet of a tracked character that has none: it lacks every Item."""
    from gmdesk.core.sheet import parse_sheet

    return parse_sheet("")


def _same(values: Any) -> tuple[tuple[str, str], ...]:
    """Choices whose label is their value."""
    return tuple((v, v) for v in values)


def _forms() -> dict[str, tuple[FormField, ...]]:
    four_d_two, fudge, torg_2d10, core_4d6 = (get_system(s) for s in ("4d2", "fudge", "torg-2d10", "4d6"))
    dc_hint = ", ".join(f"{n} {name}" for n, name in core_4d6.DC_LADDER)
    return {
        "4d2": (
            FormField("shift", "Net shift", "text", "0", placeholder="-3..3"),
            FormField("fold", "Fold", "choice", NONE, ((NONE, "no fold"),) + _same(four_d_two.FOLDS)),
            FormField("maneuver", "Maneuver table", "bool", False),
        ),
        "fudge": (
            FormField("method", "Method", "choice", fudge.DEFAULT_METHOD, _same(fudge.METHODS)),
            FormField("trait", "Trait", "opt", "", placeholder="Good, +1 …"),
            FormField("opposed", "Opposed (the opponent rolls too)", "bool", False),
            FormField("vs_trait", "Vs trait", "opt", "", placeholder="opposed only; empty: Fair"),
            FormField("offense", "Offense factor", "text", "0"),
            FormField("defense", "Defense factor", "text", "0"),
        ),
        "1d6x4": (
            FormField("descriptors", "Descriptors", "descriptors", "", placeholder="Precision, Slingshot"),
            FormField("bonus", "Extra bonus", "text", "0"),
            FormField("target", "Target number", "opt", "", placeholder="secret; empty: none"),
            FormField("vs_descriptors", "Defender's", "descriptors", "", placeholder="Defense (two-way)"),
            FormField("vs_bonus", "Defender bonus", "opt", "", placeholder="empty: not two-way"),
            FormField("defender_takes_14", "Defender takes 14", "bool", False),
            FormField("mutual", "Mutual melee", "bool", False),
            FormField("damage", "Damage", "text", "d6"),
        ),
        "torg-2d10": (
            FormField("skill", "Skill value", "opt", "", placeholder="attribute + skill"),
            FormField("difficulty", "Difficulty", "opt", "", placeholder="in combat: defense"),
            FormField("stymied", "Stymied", "bool", False),
            FormField("up", "Up", "bool", False),
            FormField("possibilities", "Possibilities", "text", "0", placeholder="spent now"),
            FormField(
                "contradiction",
                "Contradiction",
                "choice",
                NONE,
                ((NONE, "none"),) + _same(torg_2d10.CONTRADICTIONS),
            ),
        ),
        "4d6": (
            FormField("bonus", "Bonus", "text", "0"),
            FormField("dc", "DC", "opt", str(core_4d6.DEFAULT_DC), placeholder=dc_hint),
            FormField("adv", "Advantage", "text", "", placeholder="+1,-2 …"),
            FormField("vs_bonus", "Vs bonus (contest)", "opt", "", placeholder="empty: no contest"),
            FormField("vs_adv", "Vs advantage", "text", "", placeholder="+1 …"),
            FormField("position", "Position", "choice", "standard", _same(core_4d6.POSITIONS)),
            FormField("effect", "Effect", "choice", "standard", _same(core_4d6.EFFECTS)),
            FormField("clock", "Clock", "clock", NONE),
        ),
    }


_FORMS: dict[str, tuple[FormField, ...]] | None = None


def forms() -> dict[str, tuple[FormField, ...]]:
    """The parameter form of each system (built once, on first use)."""
    global _FORMS
    if _FORMS is None:
        _FORMS = _forms()
    return _FORMS


def form_data(
    system: str,
    values: Mapping[str, Any],
    actor: Character | None,
    target: Character | None,
    combat: bool,
) -> tuple[dict[str, Any], list[str]]:
    """The form's ``values`` as the system's parameter data (not yet checked by its
    ``Params``), and the notes on how they were read."""
    data: dict[str, Any] = {}
    info: list[str] = []
    for f in forms()[system]:
        v = values[f.key]
        if f.kind in ("descriptors", "clock"):
            continue
        if f.kind == "opt":
            v = v.strip() or None
        elif f.kind == "choice":
            v = None if v == NONE else v
        elif f.kind == "text":
            v = v.strip()
            if v == "" and f.value != "":
                v = f.value
        data[f.key] = v
    if system == "1d6x4":
        data, info = _one_d6_x4(data, values, actor, target)
    if system == "fudge":
        data, info = _fudge(data, values, combat)
    if system == "4d6" and data.get("vs_bonus") is not None:
        data["dc"] = None  # a contest compares the totals: the DC field does not apply
        info.append("Contest: the totals are compared, no DC")
    return data, info


def _fudge(data: dict[str, Any], values: Mapping[str, Any], combat: bool) -> tuple[dict[str, Any], list[str]]:
    """An empty Vs trait is no opponent (the trait read on its own ladder, as the CLI
    without ``--vs-trait``); an opposed roll is asked for with the Opposed box (or
    ``o``), and then an empty Vs trait is a Fair opponent."""
    fudge = get_system("fudge")
    if combat or values.get("opposed"):
        if data.get("vs_trait") is None:
            data["vs_trait"] = fudge.ladder_name(fudge.FAIR)
        return data, [f"Opposed: against {data['vs_trait']}, who rolls too"]
    if data.get("vs_trait") is not None:
        data["vs_trait"] = None
        return data, ["Not opposed: Vs trait counts only with Opposed ticked"]
    return data, []


def _one_d6_x4(
    data: dict[str, Any], values: Mapping[str, Any], actor: Character | None, target: Character | None
) -> tuple[dict[str, Any], list[str]]:
    """Descriptor names → the Test bonus read from the sheets (and automatic failure);
    the typed bonus is added on top."""
    one_d6_x4 = get_system("1d6x4")
    info = []
    names = values.get("descriptors", "").strip()
    bonus = parse_int("--bonus", data.get("bonus") or 0)
    if names and actor is None:
        data["test"] = names  # nobody's sheet to read: the names only label the roll
        info.append("No roller: the descriptors are not read from a sheet")
    elif names and actor is not None:
        reading = one_d6_x4.read_test(actor.sheet if actor.sheet is not None else _empty_sheet(), names)
        found, blocked = reading.bonus, reading.auto_fail
        bonus += found
        data["test"] = names
        info.append(f"Test {signed(found)} from {names}")
        if blocked:
            data["auto_fail"] = blocked
            info.append(f"Automatic failure: {blocked}")
        elif reading.uses:
            info.append(f"Spends a use of {', '.join(reading.uses)}")
    data["bonus"] = bonus
    vs_names = values.get("vs_descriptors", "").strip()
    if vs_names and target is None:
        data["vs_test"] = vs_names
        if data.get("vs_bonus") is None:
            data["vs_bonus"] = "0"
        info.append("No target: the defender's descriptors are not read from a sheet")
    elif vs_names and target is not None:
        found, blocked = one_d6_x4.test_bonus(target.sheet if target.sheet is not None else _empty_sheet(), vs_names)
        typed = data.get("vs_bonus")
        data["vs_bonus"] = found + (parse_int("--vs-bonus", typed) if typed is not None else 0)
        data["vs_test"] = vs_names
        info.append(f"Defender {signed(found)} from {vs_names}")
        if blocked:
            data["vs_auto_fail"] = blocked
            info.append(f"Defender fails automatically: {blocked}")
    return data, info


__all__ = ["NONE", "forms", "form_data"]
