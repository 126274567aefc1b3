"""The type of a roll's dice: anything with ``randint(a, b)`` (``random.Random`` in
play, ``FixedDice`` in tests), as every system's ``roll`` takes it.

Read it as :class:`gmdesk.core.dice.RandomSource`: it lives in a module of its own
because it is a ``typing.Protocol``, and ``gmdesk.core.dice`` loads it only when a
module asks for it, so that a roll never loads ``typing`` (``gmdesk roll 4d2 --json``
answers without it: tests/test_cli_startup.py).
"""

from __future__ import annotations

from typing import Protocol


class RandomSource(Protocol):
    def randint(self, a: int, b: int) -> int:  # pragma: no cover - protocol
        ...
