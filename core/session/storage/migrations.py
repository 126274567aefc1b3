"""Upgrading a snapshot written by an older gmdesk: one step a format version, each
turning the raw snapshot (a dict as parsed) into the next version's. A writer keeps
the original beside the session (``.v<N>.bak``) and writes the upgraded one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gmdesk.core.session.storage.errors import CorruptSaveError
from gmdesk.core.session.storage.format import EVENTS_TABLE, FORMAT_TAG, META_TABLE, SCHEMA_VERSION, SYSTEM_KEY

__all__ = ["MIGRATIONS", "migrate"]


def _v0_to_v1(raw: dict[str, Any]) -> dict[str, Any]:
    """v0: a plain stock-TinyDB JSON file (``TinyDB(path)`` with JSONStorage) holding
    the tables ``header`` (document 1 = the session header), ``events`` and ``meta``.
    v1 moves the header into the ``_gmdesk`` record and adds the journal position."""
    header_table = raw.get("header") or {}
    if not isinstance(header_table, dict):
        raise ValueError("table 'header' is not an object")
    header = header_table.get("1", {}) if header_table else {}
    if not isinstance(header, dict):
        raise ValueError("header document 1 is not an object")
    out: dict[str, Any] = {
        SYSTEM_KEY: {
            "format": FORMAT_TAG,
            "schema": 1,
            "lsn": 0,
            "header": {k: v for k, v in header.items() if k != "schema"},
        }
    }
    for name, table in raw.items():
        if name != "header":
            out[name] = table
    out.setdefault(EVENTS_TABLE, {})
    out.setdefault(META_TABLE, {})
    return out


def _v1_to_v2(raw: dict[str, Any]) -> dict[str, Any]:
    """v2 only adds checksums to the ``_gmdesk`` record, written by the next compaction."""
    return raw


#: from-version -> function(raw snapshot dict) -> raw snapshot dict of the next version.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: _v0_to_v1, 1: _v1_to_v2}


def migrate(path: Path, raw: dict[str, Any], version: int) -> dict[str, Any]:
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:  # pragma: no cover - a gap in the table is a programming error
            raise CorruptSaveError(path, "whole file", f"no upgrade path from format v{version}")
        try:
            raw = step(raw)
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            raise CorruptSaveError(path, f"format v{version}", f"cannot upgrade: {e}") from None
        version += 1
    return raw
