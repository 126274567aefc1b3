"""A snapshot's region of events, as a file and as it is written: :class:`SnapshotFile`
(an open snapshot read by offset) and :class:`RegionWriter` (events laid out as a
region while what its record says of them is computed)."""

from __future__ import annotations

import hashlib
import os
import weakref
import zlib
from array import array
from collections.abc import Iterable
from pathlib import Path

from gmdesk.core.session.storage.checksums import BLOCK_EVENTS
from gmdesk.core.session.storage.errors import CorruptSaveError, StoreReadError

__all__ = ["RegionWriter", "SnapshotFile"]


class SnapshotFile:
    """An open snapshot file, read by offset (the events stay on disk, not in memory).

    Kept open for as long as the table uses it: a compaction that puts a new snapshot
    under the name leaves this one readable (and unchanged) until it is closed."""

    __slots__ = ("fd", "path", "_finalizer", "__weakref__")

    def __init__(self, fd: int, path: Path):
        self.fd = fd
        self.path = path
        self._finalizer = weakref.finalize(self, _close_fd, fd)

    def read(self, start: int, end: int) -> bytes:
        """The bytes ``[start, end)`` of the file (StoreReadError if they cannot be read,
        CorruptSaveError if the file is shorter than that)."""
        out: list[bytes] = []
        pos = start
        try:
            while pos < end:
                got = os.pread(self.fd, end - pos, pos)
                if not got:
                    raise CorruptSaveError(self.path, "the events", "the file was cut short (damaged)")
                out.append(got)
                pos += len(got)
        except OSError as e:
            raise StoreReadError(f"{self.path}: cannot read ({e.strerror or e})") from None
        return out[0] if len(out) == 1 else b"".join(out)

    def close(self) -> None:
        self._finalizer()


def _close_fd(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


class RegionWriter:
    """Lays out events as a snapshot's region (``\\n"1":T1,\\n"2":T2,…``) piece by piece
    while computing what its record says of them: length, SHA-256, the CRC-32 of each
    block of ``BLOCK_EVENTS`` events, and where each event's line starts."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.crcs: list[bytes] = []
        self.crc = 0
        self.count = 0
        self.length = 0
        self.nl = array("q")

    def _add(self, data: bytes) -> None:
        self.sha.update(data)
        self.crc = zlib.crc32(data, self.crc)
        self.length += len(data)

    def event(self, seq: int, text: bytes) -> bytes:
        """The piece of event ``seq`` (the next one), accounted for."""
        if seq > 1:
            self._add(b",")
        if seq > 1 and seq % BLOCK_EVENTS == 1:
            self.crcs.append(b"%08x" % self.crc)
            self.crc = 0
        self.nl.append(self.length)
        line = b'\n"' + str(seq).encode() + b'":' + text
        self._add(line)
        self.count = seq
        return line if seq == 1 else b"," + line

    def events(self, first: int, texts: Iterable[bytes]) -> bytes:
        """:meth:`event` of events ``first``, ``first + 1``, … (``texts``: their JSON
        texts, in order), as one piece: the same bytes, length, checksums and lines,
        with one checksum call a block rather than a few an event."""
        pieces: list[bytes] = []
        seg: list[bytes] = []
        length = self.length
        nl = self.nl
        seq = first
        for text in texts:
            if seq > 1:
                seg.append(b",")
                length += 1
                if seq % BLOCK_EVENTS == 1:  # (the comma ends the block before)
                    data = b"".join(seg)
                    self._add(data)
                    pieces.append(data)
                    seg = []
                    self.crcs.append(b"%08x" % self.crc)
                    self.crc = 0
            nl.append(length)
            line = b'\n"%d":%b' % (seq, text)
            seg.append(line)
            length += len(line)
            seq += 1
        if seg:
            data = b"".join(seg)
            self._add(data)
            pieces.append(data)
        if seq > first:
            self.count = seq - 1
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def block(self, data: bytes, first: int, last: int, nl: list[int]) -> None:
        """Account for events ``first..last`` given as their region bytes, ``first``
        opening a block (``data`` starts at the newline opening it; ``nl``: where each
        of their lines starts, from the start of ``data``)."""
        base = self.length
        if first > 1:
            self.crcs.append(b"%08x" % self.crc)
            self.crc = 0
        self._add(data)
        self.nl.extend(base + x for x in nl)
        self.count = last

    def finish(self) -> tuple[int, str, str]:
        """(length, SHA-256 hex, the blocks' CRC-32s) of the region laid out."""
        crcs = self.crcs + ([b"%08x" % self.crc] if self.count else [])
        return self.length, self.sha.hexdigest(), b"".join(crcs).decode()
