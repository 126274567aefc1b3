"""JSON text as the store writes it: compact, UTF-8 (not ASCII-escaped), no NaN,
nested at most :data:`MAX_DEPTH` deep; and reading it back (:func:`loads`), where
JSON nested deeper is damage, never a ``RecursionError``."""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring
from typing import Any

from gmdesk.core.errors import ParamError

__all__ = ["SEP", "MAX_DEPTH", "dumps", "flat_text", "json_bytes", "json_text", "loads", "read_back", "too_deep"]

#: separators of every JSON text the store writes (no spaces)
SEP = (",", ":")
#: how deep gmdesk's JSON may nest (objects and lists): what gmdesk writes nests a
#: handful of levels; deeper is refused when written and damage when read
MAX_DEPTH = 64

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """True when the JSON text ``data`` nests objects and lists more than ``limit``
    deep (fast when it holds fewer brackets than that, as nearly every text does)."""
    if isinstance(data, str):
        if data.count("[") + data.count("{") <= limit:
            return False
        data = data.encode("utf-8", "surrogatepass")
    elif data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    for c in _STRING.sub(b"", data).translate(None, _NOT_BRACKETS):
        if c in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def loads(data: bytes | str, *, check_depth: bool = True) -> Any:
    """``json.loads``, with nesting deeper than :data:`MAX_DEPTH` (or than Python can
    parse) a ``ValueError`` like any other damage. ``check_depth=False``: only what
    Python cannot parse (for a region already checked against its checksum)."""
    if check_depth and too_deep(data):
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None


#: the encoder of every JSON text the store writes (made once: ``json.dumps`` with
#: options makes a new one at every call)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=SEP, allow_nan=False)
_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)


def dumps(obj: Any) -> str:
    """``obj`` as compact JSON text (ValueError/TypeError for what JSON cannot hold):
    ``_ENCODER.encode(obj)``, with its C encoder made directly when there is one."""
    if _C_ENCODER is None or type(obj) is str:
        return _ENCODER.encode(obj)
    # (what JSONEncoder.iterencode makes for a one-shot encode without indent)
    return "".join(_C_ENCODER({}, _ENCODER.default, encode_basestring, None, ":", ",", False, False, False)(obj, 0))


#: the JSON text of each key :func:`flat_text` has met (a header's few field names)
_KEY_TEXTS: dict[str, str] = {}
_KEYS_KEPT = 256


def flat_text(value: Any) -> str | None:
    """:func:`dumps` of a flat object of text keys and text or whole-number values (the
    summary fields a header changes with nearly every event), made directly: the same
    text. None for anything else (then :func:`json_text` makes it)."""
    if type(value) is not dict:
        return None
    parts = []
    keys = _KEY_TEXTS
    for k, v in value.items():
        kt = keys.get(k)
        if kt is None:
            if type(k) is not str or len(keys) >= _KEYS_KEPT:
                return None
            kt = keys[k] = encode_basestring(k)
        tv = type(v)
        if tv is int and -(1 << 63) <= v < 1 << 63:
            parts.append(f"{kt}:{v}")
        elif tv is str:
            parts.append(f"{kt}:{encode_basestring(v)}")
        else:
            return None
    return "{" + ",".join(parts) + "}"


def _dumps_for(value: Any, option: str) -> str:
    """:func:`dumps`, or ParamError naming ``option`` ("" when nested too deeply to write)."""
    try:
        return dumps(value)
    except (TypeError, ValueError) as e:
        raise ParamError(
            option, f"must be plain JSON data (objects, lists, strings, numbers, true/false/null): {e}"
        ) from None
    except RecursionError:
        return ""


def _too_deep_error(option: str) -> ParamError:
    return ParamError(option, f"must not nest lists and objects more than {MAX_DEPTH} levels deep")


def json_text(value: Any, option: str) -> str:
    """``value`` as JSON text; ParamError naming ``option`` when it is not plain JSON data."""
    text = _dumps_for(value, option)
    if not text or too_deep(text):
        raise _too_deep_error(option)
    return text


def json_bytes(value: Any, option: str) -> bytes:
    """:func:`json_text` as the UTF-8 written (the same checks, in the same order, its
    depth counted on the bytes), and ParamError for a lone surrogate, which UTF-8 cannot
    hold."""
    text = _dumps_for(value, option)
    if not text:
        raise _too_deep_error(option)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        if too_deep(text):
            raise _too_deep_error(option) from None
        raise ParamError(option, f"must be plain JSON text without lone surrogates ({e.reason})") from None
    if too_deep(data):
        raise _too_deep_error(option)
    return data


#: the values a JSON text gives back as they were written (a float's text is its repr)
_SCALARS = frozenset((str, int, float, bool, type(None)))


def read_back(value: Any, text: str) -> Any:
    """What ``json.loads(text)`` gives for ``text``, the store's JSON text of ``value``
    (:func:`json_text`): a flat object of text keys and plain values (a header
    change) is copied as it is — the same thing, without parsing —, anything else is
    parsed."""
    if type(value) is dict and all(type(k) is str and type(v) in _SCALARS for k, v in value.items()):
        return dict(value)
    return json.loads(text)
