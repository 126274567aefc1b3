"""The bestiary: a library of reusable stat blocks, per system, beside the sessions.

It is one TinyDB database, ``bestiary.json`` in the saves directory (the session
list only lists ``*.gmdesk`` files, so it never shows there), searched with
TinyDB's own ``Query`` (:mod:`core.campaign.bestiary_db`): by system, by tag, by a
piece of the name (case-insensitive).

It keeps stat blocks (:class:`~gmdesk.core.campaign.statblock.StatBlock`: what a new
character starts from). A name is unique within its system (case-insensitive); two
systems may each have a "Bandit". It is shared as TOML (:func:`to_toml`,
:func:`from_toml`).

Durability: every change is one whole new file, written to a temp file, fsynced
and renamed over the old one (the directory fsynced too), so a reader sees the old
bestiary or the new one, never half of one. Changes are serialised by a ``flock`` on
``bestiary.json.lock`` (:class:`core.session.lock.WriterLock`: the kernel drops it
when its holder dies, so a crash never leaves the bestiary locked); a second writer
waits a moment, then is told who holds it. Each change re-reads the file under the
lock, so two GMs' changes never overwrite each other. A damaged file (not JSON,
not the shape of a bestiary, a stat block that does not read) is refused with one
line naming the file and what is wrong, and is never written over: the GM mends it
or moves it aside.

The starter bestiary (``core/data/bestiary-starter.toml``: the shipped example
sessions' foes, with their stat blocks) is written the first time gmdesk needs the
bestiary of a saves directory that has none (:meth:`Bestiary.ensure_starter`), as
the picker offers the example sessions on a first run; an existing
``bestiary.json`` is never replaced by it, even an empty one.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gmdesk.core.campaign.statblock import StatBlock
from gmdesk.core.errors import GmdeskError

BESTIARY_FILE = "bestiary.json"
#: what the file says it is, and the newest layout this gmdesk reads
FORMAT = "gmdesk-bestiary"
#: v2: the ``about`` record carries ``sha256``, the checksum of everything else in the
#: file (as written: compact JSON of the other tables); a file that does not match it
#: is damaged. v1 files (no checksum) are read, and written as v2 by the next change.
VERSION = 2
#: the version of the TOML files ``bestiary export`` writes and ``import`` reads
TOML_VERSION = 1
#: the most stat blocks a bestiary holds, and the most bytes its file may take: far
#: beyond a GM's library (the starter holds a dozen), small enough that every change,
#: which rewrites the whole file, stays well under a second (benchmarks/bench_bestiary)
MAX_BLOCKS = 10_000
MAX_BYTES = 32 * 1024 * 1024
#: the table of the file saying what it is
ABOUT_TABLE = "about"
#: the starter bestiary, package data
STARTER = "bestiary-starter.toml"


class BestiaryError(GmdeskError):
    """A bestiary request that cannot be met (one line)."""


class DamagedBestiaryError(BestiaryError):
    """``bestiary.json`` cannot be read as a bestiary; it is left as it is."""


class BestiaryBusyError(BestiaryError):
    """Another gmdesk is changing the bestiary right now."""


# --------------------------------------------------------------------------- the file


def _damaged(path: Path | str, why: str) -> DamagedBestiaryError:
    return DamagedBestiaryError(f"{path}: damaged bestiary ({why}); it is left as it is: mend it or move it aside")


def block_from_doc(path: Path | str, doc: Any) -> StatBlock:
    """A stat block read from the bestiary file; DamagedBestiaryError when it does not read."""
    try:
        return StatBlock.from_json(doc)
    except ValueError as e:
        raise _damaged(path, str(e)) from None


def _check_data(path: Path, raw: bytes, full: bool = False) -> dict[str, Any]:
    """The file's JSON, its shape checked; DamagedBestiaryError (one line) otherwise.
    Reading checks what a search relies on (each stat block a record with a name, a
    system and tags; no two alike), and each stat block as a whole when it is used;
    ``full``: every stat block as a whole now (before the file is written again)."""

    def damaged(why: str) -> DamagedBestiaryError:
        return _damaged(path, why)

    from gmdesk.core.campaign.bestiary_db import TABLE
    from gmdesk.core.session.storage.codec import loads

    try:
        # (nesting deeper than gmdesk writes is refused stat block by stat block, where
        # it is used; here only what cannot be parsed at all)
        data = loads(raw.decode("utf-8"), check_depth=False)
    except UnicodeDecodeError:
        raise damaged("not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise damaged(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:
        raise damaged(f"not a bestiary: {e}") from None
    if not isinstance(data, dict):
        raise damaged("not a table of stat blocks")
    for name, table in data.items():
        if not isinstance(table, dict):
            raise damaged(f"table {name!r} is not a table")
        for doc_id, doc in table.items():
            if not (isinstance(doc_id, str) and doc_id.isdigit()) or not isinstance(doc, dict):
                raise damaged(f"table {name!r}: entry {doc_id!r} is not a numbered record")
    if _check_about(path, data) >= 2:
        full = False  # its checksum matches: every stat block is as gmdesk checked and wrote it
    seen: set[tuple[str, str]] = set()
    for doc_id, doc in (data.get(TABLE) or {}).items():
        if full:
            try:
                key = StatBlock.from_json(doc, f"stat block {doc_id}").key
            except ValueError as e:
                raise damaged(str(e)) from None
        else:
            name, system, tags = doc.get("name"), doc.get("system"), doc.get("tags", [])
            if not (isinstance(name, str) and name.strip() and isinstance(system, str) and system.strip()):
                raise damaged(f"stat block {doc_id} has no name or no system")
            if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
                raise damaged(f"{name!r}: tags: must be a list of words")
            key = system.strip(), name.strip().casefold()
        if key in seen:
            raise damaged(f"{doc.get('name')!r} ({doc.get('system')}) is there twice")
        seen.add(key)
    data.setdefault(TABLE, {})
    return data


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _body(data: Mapping[str, Any]) -> str:
    """Every table but ``about``, as the file holds them (what the checksum covers)."""
    return json.dumps({k: v for k, v in data.items() if k != ABOUT_TABLE}, ensure_ascii=False, separators=(",", ":"))


def _check_about(path: Path, data: dict[str, Any]) -> int:
    """The ``about`` record: what the file is, its version, its checksum (v2). An empty
    file of tables (``{}``, what TinyDB starts with) is an empty bestiary; stat blocks
    without the record, a record without ``format``, a field no gmdesk writes in that
    version, a missing or wrong checksum are damage."""
    from gmdesk.core.campaign.bestiary_db import TABLE

    def damaged(why: str) -> DamagedBestiaryError:
        return _damaged(path, why)

    about = data.get(ABOUT_TABLE)
    if about is None:
        held = [name for name in data if data.get(name)]
        if held:
            what = f"stat blocks ({TABLE!r})" if held == [TABLE] else ", ".join(repr(name) for name in held[:3])
            raise damaged(f"it holds {what} but no {ABOUT_TABLE!r} record saying it is a gmdesk bestiary")
        return 1
    if list(about) != ["1"]:
        raise damaged(f"its {ABOUT_TABLE!r} record is damaged")
    doc = about["1"]
    if "format" not in doc:
        raise damaged(f"its {ABOUT_TABLE!r} record has no 'format'")
    if doc["format"] != FORMAT:
        raise damaged(f"it says it is {doc['format']!r}, not a gmdesk bestiary")
    version = doc.get("version")
    if type(version) is not int or version < 1:
        raise damaged(f"its version does not read ({version!r})")
    if version > VERSION:
        raise BestiaryError(f"{path}: written by a newer gmdesk (bestiary version {version!r}); update gmdesk")
    allowed = ("format", "version") if version == 1 else ("format", "version", "sha256")
    unknown = [k for k in doc if k not in allowed]
    if unknown:
        raise damaged(f"its {ABOUT_TABLE!r} record holds {unknown[0]!r}, which no gmdesk writes in version {version}")
    if version >= 2:
        want = doc.get("sha256")
        if type(want) is not str:
            raise damaged("its checksum is missing")
        try:
            body = _body(data)
        except RecursionError:
            raise damaged("not a bestiary: nested too deeply to read") from None
        if _digest(body) != want:
            raise damaged("changed since gmdesk saved it (its checksum does not match)")
    return version


def _about() -> dict[str, Any]:
    return {"1": {"format": FORMAT, "version": VERSION}}


class Bestiary:
    """The bestiary of one saves directory (``<saves>/bestiary.json``)."""

    #: how long a change waits for another gmdesk's change to finish, in seconds
    LOCK_WAIT = 3.0

    def __init__(self, saves_dir: str | os.PathLike[str]):
        self.dir = Path(saves_dir).expanduser()
        self.path = self.dir / BESTIARY_FILE
        self.lock_path = self.dir / (BESTIARY_FILE + ".lock")

    def exists(self) -> bool:
        return self.path.is_file()

    # ---- reading

    def _read(self, full: bool = False) -> dict[str, Any] | None:
        from gmdesk.core.session.storage import atomic
        from gmdesk.core.session.storage.errors import StoreReadError

        try:
            got = atomic.read_file(self.path)
        except StoreReadError as e:
            raise BestiaryError(str(e)) from None
        if got is None:
            return None
        return _check_data(self.path, got[0], full)

    def db(self) -> Any:
        """The bestiary to read (a ``BestiaryDB``; empty when there is none yet)."""
        from gmdesk.core.campaign.bestiary_db import TABLE, BestiaryDB

        data = self._read()
        return BestiaryDB(data if data is not None else {TABLE: {}}, source=str(self.path))

    def blocks(self, system: str | None = None, tag: str | None = None, search: str | None = None) -> list[StatBlock]:
        """The stat blocks asked for (:meth:`BestiaryDB.search`), by system then name."""
        docs = self.db().search(system, tag, search)
        out = [block_from_doc(self.path, d) for d in docs]
        return sorted(out, key=lambda b: (b.system, b.name.casefold()))

    def find(self, name: str, system: str | None = None, db: Any = None) -> StatBlock:
        """The stat block called ``name`` (of ``system`` when given); BestiaryError
        naming what there is when none or several match."""
        return _pick(db if db is not None else self.db(), name, system)[1]

    # ---- changing

    def _lock(self) -> Any:
        from gmdesk.core.session.lock import LockedError, WriterLock

        self.dir.mkdir(parents=True, exist_ok=True)
        lock = WriterLock(self.lock_path)
        deadline = time.monotonic() + self.LOCK_WAIT
        while True:
            try:
                lock.acquire()
                return lock
            except LockedError as e:
                if time.monotonic() >= deadline:
                    raise BestiaryBusyError(
                        f"{self.path} is being changed by another gmdesk ({e.holder}); nothing was changed, try again"
                    ) from None
                time.sleep(0.02)

    def _publish(self, data: dict[str, Any], overwrite: bool = True) -> None:
        from gmdesk.core.session.storage import atomic

        body = _body(data)
        about = {"1": {"format": FORMAT, "version": VERSION, "sha256": _digest(body)}}
        head = '{"' + ABOUT_TABLE + '":' + json.dumps(about, separators=(",", ":"))
        raw = (head + ("," + body[1:] if body != "{}" else "}")).encode("utf-8")
        if len(raw) > MAX_BYTES:
            raise BestiaryError(
                f"{self.path}: the bestiary would take {len(raw) / 2**20:.1f} MB, more than the "
                f"{MAX_BYTES // 2**20} MB it may hold; nothing was changed"
            )
        tmp = self.dir / f".{BESTIARY_FILE}.{os.getpid()}.tmp"
        try:
            atomic.publish(tmp, self.path, raw, overwrite=overwrite)
        except FileExistsError:
            raise
        except OSError as e:
            raise BestiaryError(
                f"{self.path}: could not write the bestiary ({e.strerror or e}); nothing was changed"
            ) from None

    @contextmanager
    def change(self) -> Iterator[Any]:
        """Hold the lock, read the bestiary afresh and hand over its ``BestiaryDB``;
        what was changed through it is written in one atomic replace when the block
        ends without an error (nothing is written otherwise)."""
        from gmdesk.core.campaign.bestiary_db import TABLE, BestiaryDB

        lock = self._lock()
        try:
            data = self._read(full=True)  # a file that does not read whole is never written over
            if data is None:
                data = {ABOUT_TABLE: _about(), TABLE: {}}
            changed: list[dict[str, Any]] = []
            db = BestiaryDB(data, on_write=changed.append, source=str(self.path))
            yield db
            if changed:
                new = changed[-1]
                new.setdefault(ABOUT_TABLE, _about())
                self._publish(new)
        finally:
            lock.release()

    def ensure_starter(self) -> int | None:
        """Write the starter bestiary if this saves directory has no bestiary yet; the
        number of stat blocks it holds, or None when there was one already (never
        replaced)."""
        if self.path.exists():
            return None
        from gmdesk.core.campaign.bestiary_db import TABLE

        lock = self._lock()
        try:
            if self.path.exists():
                return None
            blocks = starter_blocks()
            table = {str(i): b.to_json() for i, b in enumerate(blocks, 1)}
            try:
                self._publish({ABOUT_TABLE: _about(), TABLE: table}, overwrite=False)
            except FileExistsError:
                return None
            return len(blocks)
        finally:
            lock.release()

    def add(self, block: StatBlock, replace: bool = False) -> bool:
        """Add ``block`` (checked by its system); True when it replaced one of the
        same name and system (only with ``replace``; BestiaryError otherwise)."""
        return self.add_many([block], replace)[1] > 0

    def add_many(self, blocks: list[StatBlock], replace: bool = False) -> tuple[int, int]:
        """Add several stat blocks in one write: (added, replaced). Refuses all of them,
        writing nothing, when one would replace a stat block and ``replace`` is False."""
        blocks = [b.check() for b in blocks]
        keys: dict[tuple[str, str], StatBlock] = {}
        for b in blocks:
            if b.key in keys:
                raise BestiaryError(f"{b.name!r} ({b.system}) is given twice")
            keys[b.key] = b
        with self.change() as db:
            taken = []
            ids = []
            for b in blocks:
                found = db.named(b.name, b.system)
                if found:
                    taken.append(f"{found[0][1]['name']} ({b.system})")
                    ids += [i for i, _ in found]
            if taken and not replace:
                names = ", ".join(taken[:5]) + (f" and {len(taken) - 5} more" if len(taken) > 5 else "")
                raise BestiaryError(
                    f"already in the bestiary: {names}; --replace replaces "
                    f"{'it' if len(taken) == 1 else 'them'} (nothing was changed)"
                )
            now = len(db.table)
            after = now - len(set(ids)) + len(blocks)
            if after > MAX_BLOCKS and after > now:
                raise BestiaryError(
                    f"the bestiary holds at most {MAX_BLOCKS:,} stat blocks; it holds {now:,} and this would "
                    f"make {after:,} (nothing was changed: remove some first)"
                )
            db.remove_ids(ids)
            db.insert_many(b.to_json() for b in blocks)
        return len(blocks) - len(taken), len(taken)

    def remove(self, name: str, system: str | None = None) -> StatBlock:
        with self.change() as db:
            doc_id, block = _pick(db, name, system)
            db.remove_ids([doc_id])
        return block


def _pick(db: Any, name: str, system: str | None) -> tuple[int, StatBlock]:
    found = db.named(name, system)
    if not found:
        near = db.search(system, None, name.strip())
        hint = f"; did you mean {', '.join(repr(d['name']) for d in near[:3])}?" if near else ""
        where = f" for {system}" if system else ""
        raise BestiaryError(f"no stat block {name!r}{where} in the bestiary{hint} (`gmdesk bestiary list` shows them)")
    if len(found) > 1:
        systems = ", ".join(sorted(d["system"] for _, d in found))
        raise BestiaryError(f"{len(found)} stat blocks are called {name!r} ({systems}); say which with --system")
    doc_id, doc = found[0]
    return doc_id, block_from_doc(db.source, doc)


# --------------------------------------------------------------------------- TOML


def to_toml(blocks: Iterable[StatBlock]) -> str:
    """The stat blocks as TOML (``[[stat_block]]`` tables), for sharing and editing by
    hand; what :func:`from_toml` reads back field for field."""
    import tomli_w

    out: list[dict[str, Any]] = []
    for b in blocks:
        d = b.to_json()
        if d["sheet"] is None:
            del d["sheet"]
        d["sources"] = [{k: v for k, v in s.items() if v is not None} for s in d["sources"]]
        d["conditions"] = [{k: v for k, v in c.items() if v is not None} for c in d["conditions"]]
        for k in ("sources", "conditions", "tags", "fields"):
            if not d[k]:
                del d[k]
        if not d["notes"]:
            del d["notes"]
        # the fields last: TOML writes a sub-table after the plain keys
        if "fields" in d:
            d["fields"] = d.pop("fields")
        out.append(d)
    head = "# gmdesk bestiary: `gmdesk bestiary import FILE` reads it back\n"
    return head + tomli_w.dumps({"format": FORMAT, "version": TOML_VERSION, "stat_block": out}, multiline_strings=True)


def from_toml(text: str, where: str = "TOML") -> list[StatBlock]:
    """The stat blocks of a TOML bestiary (:func:`to_toml`); BestiaryError naming the
    file and the stat block otherwise."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BestiaryError(f"{where}: not TOML ({e})") from None
    except RecursionError:
        raise BestiaryError(f"{where}: not a gmdesk bestiary (nested too deeply to read)") from None
    if data.get("format", FORMAT) != FORMAT:
        raise BestiaryError(f"{where}: not a gmdesk bestiary (format {data.get('format')!r})")
    version = data.get("version", TOML_VERSION)
    if not isinstance(version, int) or version > TOML_VERSION:
        raise BestiaryError(f"{where}: written by a newer gmdesk (bestiary version {version!r}); update gmdesk")
    unknown = [k for k in data if k not in ("format", "version", "stat_block")]
    if unknown:
        raise BestiaryError(f"{where}: unknown key {unknown[0]!r} (a bestiary holds [[stat_block]] tables)")
    raw = data.get("stat_block", [])
    if not isinstance(raw, list):
        raise BestiaryError(f"{where}: stat_block must be [[stat_block]] tables")
    out = []
    for i, d in enumerate(raw, 1):
        try:
            out.append(StatBlock.from_json(d, f"stat block {i}"))
        except ValueError as e:
            raise BestiaryError(f"{where}: {e}") from None
    return out


def starter_blocks() -> list[StatBlock]:
    """The starter bestiary shipped with gmdesk (package data)."""
    from importlib import resources

    text = resources.files("gmdesk.core.data").joinpath(STARTER).read_text(encoding="utf-8")
    return [b.check() for b in from_toml(text, STARTER)]
