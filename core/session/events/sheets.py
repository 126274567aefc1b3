"""Thin adapters over core.sheet (imported lazily so this package loads without it),
and the change lines between two sheets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gmdesk.core.session.events.text import signed

if TYPE_CHECKING:
    from gmdesk.core.sheet import Sheet


def sheet_parse(text: str) -> Sheet:
    from gmdesk.core.sheet import parse_sheet

    return parse_sheet(text)


def sheet_new(header: str = "") -> Sheet:
    from gmdesk.core.sheet import new_sheet

    return new_sheet(header)


def sheet_vitality(sheet: Sheet | None) -> tuple[int, int] | None:
    """(default, current) of the sheet's Vitality descriptor, or None if it has none."""
    if sheet is None:
        return None
    row = sheet.find("Vitality")
    if row is None or not row.has_value:
        return None
    default = row.default if row.default is not None else 0
    return default, row.value


def sheet_set_current(sheet: Sheet, name: str, value: int) -> Sheet:
    """Write a Current Value (erased when it equals the Default: the sheet reads cleaner)."""
    row = sheet.find(name)
    if row is not None and row.default is not None and row.default == value:
        return sheet.set_values(name, current=None)
    return sheet.set_values(name, current=value)


def sheet_spend_use(sheet: Sheet, name: str, amount: int) -> Sheet:
    return sheet.spend_use(name, amount)


def sheet_new_day(sheet: Sheet) -> Sheet:
    return sheet.new_day()


def sheet_set(sheet: Sheet, name: str, values: dict[str, Any]) -> Sheet:
    return sheet.set_values(name, **values)


def _uses_text(u: Any) -> str:
    return "(—)" if u is None else f"({u})"


def sheet_changes(name: str, before: Sheet | None, after: Sheet | None) -> list[str]:
    """One line per descriptor whose Current Value or uses changed between two sheets
    ("Kara: Magic Ability (5) → (4)", "Kara: Fitness −2 → +1")."""
    if before is None or after is None or before is after:
        return []
    old = {path: row for path, row in before.entries()}
    out = []
    for path, row in after.entries():
        was = old.get(path)
        if was is None:
            shown = " ".join(
                x
                for x in (
                    signed(row.value) if row.has_value else "",
                    _uses_text(row.uses) if row.uses is not None else "",
                )
                if x
            )
            out.append(f"{name}: {path} written" + (f" ({shown})" if shown else ""))
            continue
        if was.uses != row.uses:
            out.append(f"{name}: {path} {_uses_text(was.uses)} → {_uses_text(row.uses)}")
        if was.has_value and row.has_value and was.value != row.value and path.casefold() != "vitality":
            out.append(f"{name}: {path} {signed(was.value)} → {signed(row.value)}")
    return out
