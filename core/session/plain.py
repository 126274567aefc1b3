"""An event as plain JSON data, as ``Session.apply`` folds and saves it: exactly what
the log gives back when it is read again, so that the live state and a replay see
the same data (:func:`jsonable`), and whether the event as saved can be handed back
without reading it again (:func:`as_saved`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gmdesk.core.dice import Die, RollRecord
from gmdesk.core.session.events import Applied, EventError

__all__ = ["as_saved", "jsonable", "plain_event"]


class _NotPlain(Exception):
    """A value :func:`_plain_copy` leaves to the JSON round trip."""


#: how deep :func:`_plain_copy` walks (deeper is left to the JSON round trip, which
#: says what is wrong with it)
_PLAIN_DEPTH = 64
#: the widest whole number :func:`_plain_copy` copies as it is (wider ones go through
#: the round trip, which refuses what JSON cannot write)
_PLAIN_INT_BITS = 4096


def _plain_copy(v: Any, depth: int = 0) -> Any:
    """A fresh copy of plain JSON data — dicts with text keys, lists and tuples (made
    lists), text, whole numbers, finite numbers, true/false/null, roll records as their
    JSON — equal to what a JSON round trip of it gives back; :class:`_NotPlain` for
    anything else (a NaN, a key that is not text, a type of its own…), which the round
    trip then reads or refuses."""
    t = type(v)
    if t is str or t is bool or v is None:
        return v
    if t is int:
        if v.bit_length() > _PLAIN_INT_BITS:
            raise _NotPlain
        return v
    if depth >= _PLAIN_DEPTH:
        raise _NotPlain
    if t is dict:
        out = {}
        for k, x in v.items():
            if type(k) is not str:
                raise _NotPlain
            tx = type(x)  # (text, true/false and null inline: most values are)
            out[k] = x if tx is str or tx is bool or x is None else _plain_copy(x, depth + 1)
        return out
    if t is list or t is tuple:
        return [_plain_copy(x, depth + 1) for x in v]
    if t is float:
        if v - v != 0.0:  # NaN or infinite
            raise _NotPlain
        return v
    if t is RollRecord:
        global _plain_params
        out = v.to_json()  # (a new object, of new dicts and lists: checked, not copied again)
        if depth + 2 < _PLAIN_DEPTH and _plain_dice(v.dice):
            params, known = v.params, _plain_params
            if params is known[0] and depth <= known[1]:
                _check_plain(out, depth, out["dice"], out["params"])  # (neither walked)
            else:
                _check_plain(out, depth, out["dice"])  # (the dice's JSON known plain: not walked)
                _plain_params = (params, depth)
        else:
            _check_plain(out, depth)
        return out
    raise _NotPlain


#: the parameters of the latest record whose JSON :func:`_plain_copy` found plain, and
#: how deep it lay: a record's parameters are frozen (read-only, their dict its own),
#: and ``roll --count N`` makes N records of the same ones (see
#: :func:`core.dice.params_template`), checked once. It holds them: no other object
#: is ever taken for them.
_plain_params: tuple[object, int] = (None, -1)


#: dice whose JSON was found plain (text and whole numbers of the width
#: :func:`_plain_copy` copies), by identity: a roll's dice are mostly the few shared
#: ones (:func:`core.dice.shared_die`), each checked once. Held here, so an id is
#: never another die's; at most :data:`_DICE_KEPT` of them.
_PLAIN_DICE: dict[int, Die] = {}
_DICE_KEPT = 4096


def _plain_dice(dice: tuple[Die, ...]) -> bool:
    """True when every die's JSON (``Die.to_json``: its value, role and sides) is what
    :func:`_check_plain` passes."""
    known = _PLAIN_DICE
    for d in dice:
        if known.get(id(d)) is d:
            continue
        if (
            type(d) is not Die
            or type(d.value) is not int
            or type(d.role) is not str
            or type(d.sides) is not int
            or d.value.bit_length() > _PLAIN_INT_BITS
            or d.sides.bit_length() > _PLAIN_INT_BITS
        ):
            return False
        if len(known) < _DICE_KEPT:
            known[id(d)] = d
    return True


#: the exact types :func:`_check_plain` passes as they are (text, true/false, null)
_INLINE = frozenset((str, bool, type(None)))


def _check_plain(v: dict[str, Any] | list[Any], depth: int, known: object = None, also_known: object = None) -> None:
    """:class:`_NotPlain` unless ``v`` (a dict or list no one else holds, nor its
    parts) is already what :func:`_plain_copy` would make of it. ``known``, ``also_known``:
    dicts or lists among its values known to be so already (not walked)."""
    if depth >= _PLAIN_DEPTH:
        raise _NotPlain
    if type(v) is dict:
        for k in v:
            if type(k) is not str:
                raise _NotPlain
        values: Any = v.values()
    else:
        values = v
    for x in values:
        tx = type(x)
        if tx in _INLINE:
            continue
        if tx is int:
            if x.bit_length() > _PLAIN_INT_BITS:
                raise _NotPlain
        elif tx is dict or tx is list:
            if x is not known and x is not also_known:
                _check_plain(x, depth + 1)
        elif tx is not float or x - x != 0.0:  # (NaN or infinite)
            raise _NotPlain


def jsonable(doc: Mapping[str, Any], etype: Any) -> dict[str, Any]:
    """A plain-JSON copy of an event (records become their JSON), exactly what the log
    will give back on replay: live state and replay see the same data.

    Plain data (what gmdesk's own moves make) is copied as it is, by exact type
    (:func:`_plain_copy`); anything else goes through a JSON round trip."""
    return plain_event(doc, etype)[0]


def plain_event(doc: Mapping[str, Any], etype: Any) -> tuple[dict[str, Any], RollRecord | None]:
    """:func:`jsonable`, and the roll record the event holds as ``record`` (a
    :class:`RollRecord` given as itself) when its JSON in the copy is that plain
    copy: reading that JSON gives back this very record (plain values freeze and
    thaw as they are), so the fold takes it rather than reading it again. None
    otherwise (no record given as itself, or the copy went through the round trip)."""
    if type(doc) is dict:
        try:
            plain_doc: dict[str, Any] = _plain_copy(doc)
        except _NotPlain:
            pass
        else:
            record = doc.get("record")
            return plain_doc, record if type(record) is RollRecord else None

    def conv(v: Any) -> Any:
        if isinstance(v, RollRecord):
            return v.to_json()
        if isinstance(v, Mapping):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v

    try:
        plain: dict[str, Any] = json.loads(json.dumps(conv(doc), ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise EventError(f"the event is not plain data ({e})", etype if isinstance(etype, str) else None) from None
    return plain, None


def as_saved(applied: Applied) -> bool:
    """True when what the fold adds to an event's plain data (its summary, its changes,
    no fields of its own) reads back from the log as it is."""
    return not applied.extra and type(applied.summary) is str and all(type(c) is str for c in applied.changes)
