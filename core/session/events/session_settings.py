"""The ``session.settings`` event: the game system and the GM's settings (declared in
core.session.settings), checked and changed."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.events.context import Ctx
from gmdesk.core.session.events.registry import handler
from gmdesk.core.session.events.tables import table_value
from gmdesk.core.session.model import DEFAULT_SETTINGS

#: what a ``session.settings`` event may change besides the declared settings
#: (:func:`core.session.settings.declared`: the session's and every system's)
OTHER_KEYS = ("system", "tie_rule", "tables")


def _declared() -> dict[str, Any]:
    from gmdesk.core.session.settings import by_key

    return dict(by_key())


#: a two-way Test's ties: the defender prevails (the status quo holds); the only rule gmdesk rolls
TIE_RULES = ("defender",)


@handler("session.settings")
def _settings(ctx: Ctx, p: dict[str, Any]) -> str:
    ctx.fields(p, ("changes",))
    changes = p["changes"]
    if not isinstance(changes, Mapping) or not changes:
        raise ctx.fail("changes: must be a non-empty object of setting -> value")
    clean: dict[str, Any] = {}
    declared = _declared()
    keys = (*OTHER_KEYS[:1], *declared, *OTHER_KEYS[1:])
    for key, value in changes.items():
        if key not in keys:
            raise ctx.fail(f"unknown setting {key!r} (settings: {', '.join(keys)})")
        if key == "system":
            from gmdesk.core.systems import system_ids

            clean[key] = ctx.choice(value, "system", system_ids())
        elif key in declared:
            # the GM's settings, checked by their declaration (core.session.settings)
            try:
                clean[key] = declared[key].parse(value)
            except GmdeskError as e:
                raise ctx.fail(f"{key}: {getattr(e, 'reason', e)}") from None
        elif key == "tie_rule":
            clean[key] = ctx.choice(value, "tie_rule", TIE_RULES)
        elif key == "tables":
            clean[key] = _tables(ctx, value)
    info = ctx.tx.info()
    parts = []
    for key, value in clean.items():
        old: Any
        if key == "system":
            old = info.system
            info.system = value
            for cid in list(ctx.state.characters):  # the new system's Vitality threshold
                ctx.state.seat(ctx.tx.char(cid))
        else:
            old = info.settings.get(key, declared[key].default if key in declared else DEFAULT_SETTINGS.get(key))
            info.settings[key] = copy.deepcopy(value)
        if key in declared:  # in the GM's words: "Dice method (SYSTEM): 2d3 → d12"
            s = declared[key]
            ctx.changes.append(f"{s.title}: {s.show(old)} → {s.show(value)}")
            parts.append(s.title)
            continue
        if key == "tables":  # each table in its words: "Combat table: built-in → own table 'Grim'"
            changed = _tables_changes(old or {}, value, _role_labels(info.system))
            ctx.changes.extend(f"{label}: {how}" for label, how in changed)
            parts.extend([label for label, _how in changed] or ["tables (unchanged)"])
            continue
        ctx.changes.append(f"{key}: {old!r} → {value!r}" if key != "system" else f"system: {old} → {value}")
        parts.append(key)
    return f"Settings changed: {', '.join(parts)}"


def _tables(ctx: Ctx, value: Any) -> dict[str, Any]:
    """The ``tables`` setting checked: role -> a built-in table's name or a GM's own
    table's content (never a file: the fold reads none). An event of a save written
    before the content was stored names a file; read back, it is read once here."""
    if not isinstance(value, Mapping):
        raise ctx.fail("tables: must be an object of role -> table name or table")
    tables: dict[str, Any] = {}
    known = _known_roles(ctx) if ctx.strict else None
    for role, given in value.items():
        if not isinstance(role, str) or not role:
            raise ctx.fail("tables: each role must be a name")
        if known is not None and role not in known:
            raise ctx.fail(f"tables: unknown role {role!r}; roles: {', '.join(known)}")
        try:
            tables[role] = table_value(role, given, read_files=not ctx.strict)
        except (GmdeskError, ValueError) as e:
            raise ctx.fail(f"tables: {role}: {e}") from None
    return tables


def _known_roles(ctx: Ctx) -> list[str]:
    """The roles a new event may set: the session system's, gmdesk's own, those set already."""
    from gmdesk.core.session.events.tables import table_roles
    from gmdesk.core.tables import TableSet

    info = ctx.state.info
    try:
        own = [role for role, _label in table_roles(info.system)]
    except GmdeskError:  # a system not installed here
        own = []
    return list(dict.fromkeys([*own, *TableSet.DEFAULTS, *dict(info.settings.get("tables") or {})]))


def _table_name(value: Any) -> str:
    if isinstance(value, str):
        return f"built-in {value}"
    return f"own table {value.get('title') or value.get('name')!r}" if isinstance(value, Mapping) else "built-in"


def _role_labels(system: str) -> dict[str, str]:
    from gmdesk.core.session.events.tables import table_roles

    try:
        return dict(table_roles(system))
    except GmdeskError:  # a system not installed here
        return {}


def _tables_changes(old: Mapping[str, Any], new: Mapping[str, Any], labels: Mapping[str, str]) -> list[tuple[str, str]]:
    """What changed, a role at a time: its words and how ("Combat table",
    "built-in → own table 'House wounds'")."""
    out = []
    for role in sorted({*old, *new}):
        if old.get(role) != new.get(role):
            before = _table_name(old[role]) if role in old else "built-in"
            after = _table_name(new[role]) if role in new else "built-in"
            out.append((labels.get(role, f"tables: {role}"), f"{before} → {after}"))
    return out
