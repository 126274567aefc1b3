"""Recovery between sessions: what ``gmdesk new NAME --from LAST --rest`` does to a
character carried over to the next night.

A system says what its rules say with a ``rest(character) -> character`` hook at
the end of its module (see :mod:`core.systems.spec`); ``character`` is the
character as ``Character.to_json`` writes it (Vitality, Possibilities, sources,
conditions with rounds left, wounds, the descriptor sheet's text, the system's
fields). A hook returns a new dict and leaves its argument alone.

The parts shared by the systems are here:

* :func:`default_rest`, the recovery of a system whose rules are silent (and of a
  plug-in without a hook): Vitality back to its default, every wound cleared,
  and whatever was counted in rounds over (:func:`end_timed`);
* :func:`end_timed`: conditions and sources with rounds left end, and conditions
  that last until a character's turn (a night is longer than any duration counted
  in combat rounds or turns); those without a duration stay, as the GM set them;
* the Dead are never changed by a rest (:func:`is_dead`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any


def is_dead(character: Mapping[str, Any]) -> bool:
    """Dead stays dead: the sticky flag, or the status the character was carried with."""
    return bool(character.get("dead")) or character.get("status") == "dead"


def end_timed(character: Mapping[str, Any], also: Iterable[str] = ()) -> dict[str, Any]:
    """A copy with every condition and source that had rounds left removed, and the
    conditions named in ``also`` (case-insensitive) too."""
    out = copy.deepcopy(dict(character))
    names = {n.casefold() for n in also}
    out["conditions"] = [
        c
        for c in out.get("conditions") or ()
        if c.get("rounds") is None and c.get("until") is None and str(c.get("name", "")).casefold() not in names
    ]
    for key in ("advantage", "shifts"):
        out[key] = [s for s in out.get(key) or () if s.get("rounds") is None]
    return out


def default_rest(character: Mapping[str, Any]) -> dict[str, Any]:
    """Vitality back to its default, every wound cleared, what was counted in rounds
    over (:func:`end_timed`); the Dead unchanged."""
    if is_dead(character):
        return copy.deepcopy(dict(character))
    out = end_timed(character)
    out["vitality_current"] = out.get("vitality_default", 0)
    out["wounds"] = []
    return out


__all__ = ["default_rest", "end_timed", "is_dead"]
