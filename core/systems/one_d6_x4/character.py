"""A 1d6x4 character: the Tests its fields name (attack, defense, initiative), its
initiative modifier and automatic failure read on its sheet, and its rest between
sessions (a new day)."""

from __future__ import annotations

from collections.abc import Mapping

from gmdesk.core.systems.one_d6_x4.sheet import read_test
from gmdesk.core.systems.spec import CharField

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any

# A 1d6x4 character's numbers are its descriptor sheet (the sheet section). What a GM
# adds for the roll is which descriptors its Tests name: those an attack tests (the
# seed's Precision+Slingshot Expertise+Slingshot, or a Use such as Slingshot Attack),
# those it defends with (the defender's Defense Test) and those initiative tests
# (Reflex). Their Current Values are read from the sheet when the roll is made.

CHARACTER_FIELDS = (
    CharField(
        "attack_test",
        "Attack descriptors",
        "text",
        feeds="test",
        combat_only=True,
        help="the descriptors an attack tests, e.g. Precision, Slingshot Expertise, Slingshot",
        placeholder="Precision, Slingshot",
    ),
    CharField(
        "defense_test",
        "Defense descriptors",
        "text",
        feeds="vs_test",
        from_="target",
        default="Defense",
        combat_only=True,
        help="the descriptors this character's Defense Test names when attacked",
        placeholder="Defense",
    ),
    CharField(
        "initiative_test",
        "Initiative descriptors",
        "text",
        feeds="initiative",
        default="Reflex",
        help="the descriptors whose Current Values initiative adds",
        placeholder="Reflex",
    ),
)


def initiative_modifier(character: Any) -> int:
    """A character's initiative modifier: the Current Values of its initiative
    descriptors (Reflex unless it names others) on its sheet; 0 without a sheet."""
    sheet = getattr(character, "sheet", None)
    if sheet is None:
        return 0
    fields = getattr(character, "fields", None) or {}
    names = fields.get("initiative_test") or "Reflex"
    return read_test(sheet, names).bonus


def initiative_fails(character: Any) -> str | None:
    """Why a character's initiative Test fails automatically, or None: its initiative
    descriptors (Reflex unless it names others) read on its sheet as any Test's
    (a Reflex at −5 or lower cannot be used: RULES.md)."""
    sheet = getattr(character, "sheet", None)
    if sheet is None:
        return None
    fields = getattr(character, "fields", None) or {}
    return read_test(sheet, fields.get("initiative_test") or "Reflex").auto_fail


#: the session asks it before rolling initiative (core.systems.spec)
INITIATIVE_FAILS = initiative_fails


# ---- between sessions


def rest(character: Mapping[str, Any]) -> dict[str, Any]:
    """Recovery between sessions (``gmdesk new … --from … --rest``): a new day, as the
    ``day.new`` event does it. Every Current Value on the sheet returns to its
    Default (uses too), Vitality to its default, and the Vitality Adjustments taken
    are cleared; the Dead stay exactly as they are. Conditions and sources counted
    in rounds are over (:func:`core.systems.rest.end_timed`)."""
    from gmdesk.core.sheet import parse_sheet, write_sheet
    from gmdesk.core.systems.rest import end_timed, is_dead

    if is_dead(character):
        return dict(character)
    out = end_timed(character)
    out["vitality_current"] = out.get("vitality_default", 0)
    out["wounds"] = [
        w for w in out.get("wounds") or () if not (w.get("system") == "1d6x4" and w.get("amount") is not None)
    ]
    text = out.get("sheet")
    if isinstance(text, str):
        sheet = parse_sheet(text).new_day()
        row = sheet.find("Vitality")
        if row is not None and row.has_value and row.value != out["vitality_current"]:
            sheet = sheet.set_values("Vitality", current=out["vitality_current"])
        out["sheet"] = write_sheet(sheet)
    return out
