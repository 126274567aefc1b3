"""The store's CRC-32 checksums: per block of a snapshot's events (a changed byte
among 50,000 events is located to within ``BLOCK_EVENTS`` of them) and the seal
that ends every journal record."""

from __future__ import annotations

import zlib
from typing import Any

__all__ = ["BLOCK_EVENTS", "block_crcs", "changed_events", "seal", "seal_bytes", "unseal"]

#: Events per checksummed block of the snapshot (``events_crc32``): a changed byte
#: is located to within this many events.
BLOCK_EVENTS = 500


def block_crcs(region: bytes | memoryview, count: int) -> str:
    """CRC-32 of each run of ``BLOCK_EVENTS`` events of a snapshot's events region
    (each event's line starts with a newline), as 8 hex digits per block."""
    out = []
    find = region.find if isinstance(region, bytes) else bytes(region).find
    data = region if isinstance(region, bytes) else bytes(region)
    start, seen, p = 0, 0, find(b"\n")
    while p >= 0 and seen < count:
        seen += 1
        if seen % BLOCK_EVENTS == 1 and seen > 1:
            out.append(b"%08x" % zlib.crc32(data[start:p]))
            start = p
        p = find(b"\n", p + 1)
    if count:
        out.append(b"%08x" % zlib.crc32(data[start:]))
    return b"".join(out).decode()


def changed_events(data: bytes, start: int, end: int, count: int, sysrec: dict[str, Any]) -> str:
    """Which events of a snapshot whose events do not match their checksum changed,
    in words ("events #501–#1000"), from the per-block checksums when it has them
    (a block whose checksum matches is unchanged; from a block whose lines moved on,
    everything is counted as changed)."""
    want = sysrec.get("events_crc32")
    blocks = -(-count // BLOCK_EVENTS)
    if type(want) is str and len(want) == 8 * blocks and blocks:
        nls: list[int] = []
        p = data.find(b"\n", start)
        while p >= 0 and len(nls) <= count:
            nls.append(p)
            p = data.find(b"\n", p + 1)
        bad = []
        for k in range(blocks):
            a = k * BLOCK_EVENTS
            if a >= len(nls):
                bad.append(k)
                continue
            b = nls[(k + 1) * BLOCK_EVENTS] if k + 1 < blocks and (k + 1) * BLOCK_EVENTS < len(nls) else end
            if b"%08x" % zlib.crc32(data[nls[a] if k else start : b]) != want[8 * k : 8 * k + 8].encode():
                bad.append(k)
        if bad:
            first, last = bad[0] * BLOCK_EVENTS + 1, min(count, (bad[-1] + 1) * BLOCK_EVENTS)
            if len(bad) == bad[-1] - bad[0] + 1:
                return f"events #{first}–#{last}" if first != last else f"event #{first}"
            return "events " + ", ".join(f"#{k * BLOCK_EVENTS + 1}–#{min(count, (k + 1) * BLOCK_EVENTS)}" for k in bad)
    return f"events #1–#{count}" if count > 1 else "the events"


_SEAL_LEN = len(b',"c":"00000000"}')


def seal(record: str) -> str:
    """A journal line: the record (a JSON object's text) with its checksum as the last
    key: ``{"n":5,…}`` → ``{"n":5,…,"c":"1a2b3c4d"}`` (CRC-32 of the record's UTF-8)."""
    return seal_bytes(record.encode("utf-8")).decode("utf-8")


def seal_bytes(record: bytes) -> bytes:
    """:func:`seal` of a record already encoded (UTF-8): the line as written."""
    return record[:-1] + b',"c":"%08x"}' % zlib.crc32(record)


def unseal(line: bytes) -> bytes | None:
    """The record of a sealed journal line when its checksum matches, else None."""
    if len(line) <= _SEAL_LEN or line[-_SEAL_LEN:-10] != b',"c":"' or not line.endswith(b'"}'):
        return None
    record = line[:-_SEAL_LEN] + b"}"
    return record if line[-10:-2] == b"%08x" % zlib.crc32(record) else None
