"""What a browser may send the player server: one of the web client's messages (keys, a
resize, a ping, focus, blur), each field of the right type and size, or
:class:`BadMessage` saying what was wrong. Nothing a browser sends is taken on trust.
"""

from __future__ import annotations

import json
from typing import Any

from gmdesk.tui.serve_viewer import clamp_size

#: The largest websocket message a browser may send (bytes); a larger one closes it.
MAX_MESSAGE = 16 * 1024
#: The most characters of keys in one message.
MAX_KEYS = 4096


class BadMessage(ValueError):
    """A browser's message that is not one the web client sends."""


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadMessage(f"{what} is not a whole number")
    if value < 1:
        raise BadMessage(f"{what} is {value}")
    return int(value)


def parse_size(width: Any, height: Any) -> tuple[int, int]:
    """A terminal size from a browser: whole numbers of at least 1, held to SIZE_LIMITS."""
    return clamp_size(_whole(width, "width"), _whole(height, "height"))


def query_number(text: str) -> Any:
    """A number of a page's query (``?width=80``) as a number, else the text as sent
    (which :func:`parse_size` then refuses)."""
    return int(text) if text.isdigit() and len(text) < 7 else text


def parse_message(data: str) -> tuple[str, Any]:
    """One websocket message of the web client: ``("stdin", keys)``, ``("resize",
    (width, height))``, ``("ping", text)``, ``("focus", None)`` or ``("blur", None)``.
    Anything else raises :class:`BadMessage` saying what was wrong."""
    try:
        envelope = json.loads(data)
    except ValueError:
        raise BadMessage("not JSON") from None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        raise BadMessage("not a message of the web client")
    kind, args = envelope[0], envelope[1:]
    if kind == "stdin" and len(args) == 1 and isinstance(args[0], str):
        if len(args[0]) > MAX_KEYS:
            raise BadMessage(f"{len(args[0])} characters of keys")
        return kind, args[0]
    if kind == "resize" and len(args) == 1 and isinstance(args[0], dict):
        return kind, parse_size(args[0].get("width"), args[0].get("height"))
    if kind == "ping" and len(args) == 1 and isinstance(args[0], str) and len(args[0]) <= 64:
        return kind, args[0]
    if kind in ("focus", "blur") and not args:
        return kind, None
    raise BadMessage(f"{kind[:20]!r} with {len(args)} field(s) of the wrong kind")
