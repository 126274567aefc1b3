"""The fold's stack of undoable events, kept as runs of consecutive numbers."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

__all__ = ["SeqStack"]


class SeqStack(Sequence[int]):
    """A stack of event numbers (``Fold.done``): a list of ints to its users (append,
    pop, index, slices, iteration, ``==`` with a list), kept as runs of consecutive
    numbers — a session's undoable events mostly follow one another, so a million
    of them take a few bytes, not the 36 MB a list of ints would."""

    __slots__ = ("_runs", "_len")

    def __init__(self, seqs: Iterable[int] = ()):
        self._runs = array("q")  # first, last, first, last, …
        self._len = 0
        for s in seqs:
            self.append(s)

    @classmethod
    def from_runs(cls, runs: Iterable[Any]) -> SeqStack:
        """The stack ``[[a, b], …]`` describes (each run a..b, a ≤ b, whole numbers)."""
        stack = cls()
        for a, b in runs:
            if type(a) is not int or type(b) is not int or b < a:
                raise ValueError(f"bad run {a!r}..{b!r}")
            r = stack._runs
            if r and a == r[-1] + 1:
                r[-1] = b
            else:
                r.extend((a, b))
            stack._len += b - a + 1
        return stack

    def runs(self) -> list[list[int]]:
        r = self._runs
        return [[r[i], r[i + 1]] for i in range(0, len(r), 2)]

    def append(self, seq: int) -> None:
        r = self._runs
        if r and seq == r[-1] + 1:
            r[-1] = seq
        else:
            r.extend((seq, seq))
        self._len += 1

    def pop(self) -> int:
        r = self._runs
        if not r:
            raise IndexError("pop from an empty stack")
        last = r[-1]
        if r[-2] == last:
            del r[-2:]
        else:
            r[-1] = last - 1
        self._len -= 1
        return last

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[int]:
        r = self._runs
        for i in range(0, len(r), 2):
            yield from range(r[i], r[i + 1] + 1)

    def _from_end(self, k: int) -> Iterator[int]:
        """The last ``k`` numbers, newest first."""
        r = self._runs
        i = len(r) - 2
        while k > 0 and i >= 0:
            a, b = r[i], r[i + 1]
            take = min(k, b - a + 1)
            yield from range(b, b - take, -1)
            k -= take
            i -= 2

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        n = self._len
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step == 1 and stop == n and start >= n // 2:
                out = list(self._from_end(n - start))
                out.reverse()
                return out
            return list(self)[index]
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("stack index out of range")
        if i >= n // 2:
            for k, seq in enumerate(self._from_end(n - i)):
                if k == n - i - 1:
                    return seq
        for k, seq in enumerate(self):
            if k == i:
                return seq
        raise IndexError("stack index out of range")  # pragma: no cover

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SeqStack):
            return self._runs == other._runs
        if isinstance(other, (list, tuple)):
            return len(other) == self._len and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SeqStack({self.runs()})"
