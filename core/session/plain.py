"""An event as plain JSON data, as ``Session.apply`` folds and saves it: exactly what
the log gives back when it is read again, so that the live state and a replay see
the same data (:func:`jsonable`), and whether the event as saved can be handed back
without reading it again (:func:`as_saved`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

from gmdesk.core.dice import Die, RollRecord
from gmdesk.core.session.events import Applied, EventError
from gmdesk.core.session.storage.codec import dumps

__all__ = ["as_saved", "jsonable", "plain_event", "roll_event_text"]


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
#: Each is kept with its JSON text, as the store's encoder writes it.
_PLAIN_DICE: dict[int, tuple[Die, str]] = {}
_DICE_KEPT = 4096


def _plain_dice(dice: tuple[Die, ...]) -> bool:
    """True when every die's JSON (``Die.to_json``: its value, role and sides) is what
    :func:`_check_plain` passes."""
    known = _PLAIN_DICE
    for d in dice:
        got = known.get(id(d))
        if got is not None and got[0] is d:
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
            # (a whole number's JSON is its repr; text as the encoder writes it)
            known[id(d)] = (d, f'{{"value":{d.value!r},"role":{encode_basestring(d.role)},"sides":{d.sides!r}}}')
    return True


#: stand-ins for the parts of a roll event :func:`roll_event_text` writes from text
#: it holds (a control character in each: no text a GM types holds them, and where
#: one does, the text is made as any other)
_PARAMS_MARK = "\x00gmdesk: the record's parameters\x00"
_DICE_MARK = "\x00gmdesk: the record's dice\x00"
_PARAMS_MARK_TEXT = encode_basestring(_PARAMS_MARK)
_DICE_MARK_TEXT = encode_basestring(_DICE_MARK)
#: the JSON text of the latest parameters :func:`roll_event_text` wrote: (the record's
#: frozen parameters, their text). It holds them: no other object is taken for them.
_params_text: tuple[object, str] = (None, "")


def roll_event_text(stored: dict[str, Any], record: RollRecord) -> str | None:
    """``codec.dumps(stored)`` — the JSON text the store writes — for a roll event whose
    ``record`` is ``record``'s JSON as :func:`plain_event` made it (found plain): the
    same text, made with the parts every roll of a run shares written from text held
    (the parameters' once for the same parameters — a run's, see
    :func:`core.dice.params_template` —, each die's once), the rest by the encoder.
    None when it cannot be made so (then the store encodes the event itself)."""
    global _params_text
    out = stored.get("record")
    if type(out) is not dict or type(out.get("params")) is not dict or type(out.get("dice")) is not list:
        return None
    known = _PLAIN_DICE
    texts = []
    for d in record.dice:
        got = known.get(id(d))
        if got is None or got[0] is not d:
            return None
        texts.append(got[1])
    params = record.params
    last = _params_text
    try:
        if last[0] is params:
            params_text = last[1]
        else:
            params_text = dumps(out["params"])
            _params_text = (params, params_text)
        text = dumps({**stored, "record": {**out, "params": _PARAMS_MARK, "dice": _DICE_MARK}})
    except (TypeError, ValueError, RecursionError):
        return None  # (the store says what is wrong with it)
    if text.count(_PARAMS_MARK_TEXT) != 1 or text.count(_DICE_MARK_TEXT) != 1:
        return None
    return text.replace(_PARAMS_MARK_TEXT, params_text, 1).replace(_DICE_MARK_TEXT, "[" + ",".join(texts) + "]", 1)


#: the exact types :func:`_check_plain` passes as they are (text, true/false, null)
_INLINE = frozenset((str, bool, type(None)))


def _check_plain(v: dict[str, Any] | list[Any], depth: int, known: object = None, known2: object = None) -> None:
    """:class:`_NotPlain` unless ``v`` (a dict or list no one else holds, nor its
    parts) is already what :func:`_plain_copy` would make of it. ``known``, ``known2``:
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
            if x is not known and x is not known2:
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
    return not applied.extra and type(applied.summary) is str and _ONLY_TEXT(map(type, applied.changes))


#: whether every type it is given is text (iterated in C: no generator made at each event)
_ONLY_TEXT = frozenset((str,)).issuperset
