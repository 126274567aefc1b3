"""JSON text as the store writes it: compact, UTF-8 (not ASCII-escaped), no NaN."""

from __future__ import annotations

import json
from typing import Any

from gmdesk.core.errors import ParamError

__all__ = ["SEP", "dumps", "json_text"]

#: separators of every JSON text the store writes (no spaces)
SEP = (",", ":")


def dumps(obj: Any) -> str:
    """``obj`` as compact JSON text (ValueError/TypeError for what JSON cannot hold)."""
    return json.dumps(obj, ensure_ascii=False, separators=SEP, allow_nan=False)


def json_text(value: Any, option: str) -> str:
    """``value`` as JSON text; ParamError naming ``option`` when it is not plain JSON data."""
    try:
        return dumps(value)
    except (TypeError, ValueError) as e:
        raise ParamError(
            option, f"must be plain JSON data (objects, lists, strings, numbers, true/false/null): {e}"
        ) from None
