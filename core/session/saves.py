"""A directory of sessions: list, create, duplicate, delete, new from an example, the
next night (what it carries over is :mod:`core.session.nextnight`).

A session named ``name`` lives in ``<saves>/<file stem>.gmdesk`` (plus the store's
journal and lock files beside it, see :mod:`core.session.storage`). The file stem is
the name made safe for any file system (:func:`safe_file_stem`): no path separators
or characters Windows forbids, no control or format characters, no leading or
trailing dots and spaces, at most 120 bytes; any other Unicode is kept. The real
name is kept in the session header. Two names that give the same stem get
``name 2``, ``name 3``… as file stems.

The saves directory is ``--saves DIR``, else the ``GMDESK_SAVES`` environment
variable, else ``platformdirs.user_data_dir("gmdesk")/saves``
(:func:`default_saves_dir`).

Listing reads only each file's header, where an open session keeps its summary
(round, rolls, characters, last played) current: it never replays the events.
A damaged file is listed with its error instead of breaking the listing. A sound
session of a dice system whose plug-in is not installed here is not damaged: it is
listed as it stands, saying which plug-in it needs (``needs_plugin``), and cannot be
opened until that plug-in is installed.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gmdesk.core.errors import GmdeskError, ParamError
from gmdesk.core.session.nextnight import Carried, read_carried

if TYPE_CHECKING:
    from gmdesk.core.session.session import Session

SUFFIX = ".gmdesk"
MAX_STEM_BYTES = 120
_FORBIDDEN = set('/\\:*?"<>|')
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}


def default_saves_dir() -> Path:
    """``$GMDESK_SAVES`` if set, else ``platformdirs.user_data_dir("gmdesk")/saves``."""
    env = os.environ.get("GMDESK_SAVES")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("gmdesk")) / "saves"


def clean_name(name: str) -> str:
    """A session name as kept in the header: control and format characters dropped,
    runs of white space made one space, stripped. Any other Unicode is kept."""
    if not isinstance(name, str):
        raise ParamError("name", f"must be text (got {type(name).__name__})")
    name = unicodedata.normalize("NFC", name)
    kept = []
    for ch in name:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs"):
            kept.append(" " if ch in "\t\n\r\v\f" else "")
        elif cat.startswith("Z"):
            kept.append(" ")
        else:
            kept.append(ch)
    return " ".join("".join(kept).split())


def _stem(name: str) -> str:
    stem = "".join("_" if ch in _FORBIDDEN else ch for ch in clean_name(name))
    stem = stem.strip(" .")
    if stem.split(".")[0].upper() in _RESERVED:
        stem = "_" + stem
    while len(stem.encode("utf-8")) > MAX_STEM_BYTES:
        stem = stem[:-1]
    return stem.rstrip(" .")


def safe_file_stem(name: str) -> str:
    """The file stem for a session name: safe on every file system, never a path.

    ``"Ünïcode ☃ / ../../etc"`` → ``"Ünïcode ☃ _ .._.._etc"``. A name with nothing
    a file name can keep (``"..."``) gives ``"session"``; creating a session refuses
    such a name."""
    return _stem(name) or "session"


@dataclass(frozen=True)
class SessionSummary:
    """One line of the session list. ``error`` is None, or one line saying why the
    file cannot be opened (it is still listed)."""

    name: str
    path: Path
    system: str = ""
    last_played: str = ""
    round: int = 0
    rolls: int = 0
    error: str | None = None
    characters: int = 0
    created: str = ""
    #: the session this one was carried over from (``gmdesk new NAME --from LAST``):
    #: ``{"name", "path", "rest"}``, or None
    carried_from: dict[str, Any] | None = None
    #: the dice system (a plug-in) this sound session needs and this gmdesk lacks; its
    #: ``error`` then says to install it (the session cannot be opened until then)
    needs_plugin: str | None = None

    @property
    def damaged(self) -> bool:
        """The file cannot be read or trusted (not merely waiting for a plug-in)."""
        return self.error is not None and self.needs_plugin is None

    @property
    def known(self) -> bool:
        """Its name is the session's own (readable, even if its plug-in is missing)."""
        return self.error is None or self.needs_plugin is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": str(self.path),
            "system": self.system,
            "last_played": self.last_played,
            "round": self.round,
            "rolls": self.rolls,
            "characters": self.characters,
            "created": self.created,
            "carried_from": self.carried_from,
            "error": self.error,
            "needs_plugin": self.needs_plugin,
        }


def plugin_note(system: str) -> str:
    """What a session of a dice system not loaded here needs, in one line: its plug-in
    installed, or (installed but failing to load) mended, and why."""
    from gmdesk.core.systems import plugin_failure

    why = plugin_failure(system)
    if why is not None:
        return f"needs plug-in: {system} (installed, but it fails to load: {why}; mend or reinstall it to open it)"
    return f"needs plug-in: {system} (its dice system is not installed; install the plug-in's package to open it)"


#: files at least this big are listed from their header line (see SessionStore.summary)
QUICK_BYTES = 1 << 20


def _quick_header(path: Path) -> dict[str, Any] | None:
    """The header of a big session without parsing its events (the store's ``peek``:
    the snapshot's first line and the journal). None for a small file or when
    anything looks unusual (the caller then opens the file through the store, which
    says what is wrong)."""
    try:
        from gmdesk.core.session.storage.recovery import peek

        if path.stat().st_size < QUICK_BYTES:
            return None
        return peek(path)[0]
    except Exception:  # damaged or unusual: the open says what is wrong
        return None


def _only_leftovers(path: Path, files: Sequence[Path]) -> bool:
    """Whether ``files`` (those of a session at ``path`` that has no session file) are
    only what a gmdesk killed while creating it leaves behind: temp files, a
    checkpoint, an unheld lock, a journal that holds no change yet. A new session of
    that name may take them over (creating one replaces each); anything else (a
    journal with changes, an upgrade backup, a lock someone holds) is kept, and the
    new session gets another file name."""
    from gmdesk.core.session.storage import sidecar_paths

    roles = {v: k for k, v in sidecar_paths(path).items()}
    for f in files:
        role = roles.get(f)
        if role in ("snapshot_tmp", "journal_tmp", "checkpoint_tmp", "checkpoint"):
            continue
        if role == "lock" and not _held(f):
            continue
        if role == "journal" and not _held(f) and _no_changes(f):
            continue
        return False
    return True


def _held(path: Path) -> bool:
    """Whether some gmdesk holds a ``flock`` on ``path`` now (taken and let go at once
    when nobody does; the caller serialises creation, see ``SessionStore._creating``)."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return True  # cannot tell: leave it alone
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _no_changes(journal: Path) -> bool:
    """A journal holding its first line only (no change recorded): what ``new`` writes
    before the session file."""
    try:
        with open(journal, "rb") as f:
            head = f.read(4097)
    except OSError:
        return False
    lines = [line for line in head.splitlines() if line.strip()]
    return len(head) <= 4096 and len(lines) <= 1 and (not lines or lines[0].startswith(b'{"gmdesk_journal"'))


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _carried_from(header: dict[str, Any]) -> dict[str, Any] | None:
    got = header.get("carried_from")
    if not isinstance(got, dict) or not isinstance(got.get("name"), str):
        return None
    return {"name": got["name"], "path": str(got.get("path") or ""), "rest": bool(got.get("rest"))}


def _examples_dir() -> Path | None:
    try:
        from importlib import resources

        return Path(str(resources.files("gmdesk.saves"))).resolve()
    except Exception:  # pragma: no cover - the package is always there when installed
        return None


def _discard(path: Path) -> None:
    """Remove every file of a session left half made (its creation failed)."""
    from gmdesk.core.session.storage import session_files

    for f in session_files(path):
        f.unlink(missing_ok=True)


class SessionStore:
    """The sessions in one directory (created on the first write)."""

    def __init__(self, saves_dir: str | os.PathLike[str] | None = None):
        self.dir = Path(saves_dir).expanduser() if saves_dir is not None else default_saves_dir()

    # ---- names and paths

    def path_for(self, name_or_path: str | os.PathLike[str]) -> Path:
        """Where a session is. A name is a name and a path is a path: only text with a
        directory part (``./Docks.gmdesk``, ``saves/Docks.gmdesk``, ``~/Docks.gmdesk``)
        or an ``os.PathLike`` is a path, taken as it is when that file exists;
        ``Docks.gmdesk`` alone is the session *named* "Docks.gmdesk". A name maps to
        exactly one session: the file its name gives in the saves directory when that
        file's header carries this name, else the session whose header carries it (two
        names may share a file stem: ``a/b`` and ``a_b``, ``Docks.`` and ``Docks``,
        names cut at the same length), else a damaged file whose stem is exactly the
        name typed (so that ``check``/``repair`` reach it; a damaged ``Docks`` is never
        taken for ``Docks.``). When nothing matches: the path as given, or a free file
        in the saves directory (never another session's file)."""
        if isinstance(name_or_path, os.PathLike):
            return Path(name_or_path).expanduser()
        text = str(name_or_path)
        p = Path(text).expanduser()
        pathish = os.sep in text or bool(os.altsep and os.altsep in text)
        if pathish and p.is_file():
            return p
        key = clean_name(text).casefold()
        stem = safe_file_stem(text)
        own = self.dir / (stem + SUFFIX)
        stored = self._stored_name(own) if own.is_file() else None
        if stored is not None and stored == key:
            return own
        if key and self.dir.is_dir():
            for s in self.list():
                if s.known and s.name.casefold() == key:
                    return s.path
        if own.is_file() and stored is None and stem.casefold() == key:
            return own  # unreadable (damaged): only the name that is exactly its stem reaches it
        return p if pathish else self._free_path(stem)

    @staticmethod
    def _stored_name(path: Path) -> str | None:
        """The casefolded name in a session file's header; None when it cannot be read
        (the open then says what is wrong with the file)."""
        try:
            from gmdesk.core.session.storage import peek

            name = peek(path)[0].get("name")
        except Exception:  # noqa: BLE001 - damaged: let the open report it
            return None
        return clean_name(name).casefold() if isinstance(name, str) else None

    def _free_path(self, stem: str) -> Path:
        """The first of ``stem``, ``stem 2``… with no session file, and nothing beside
        it but what a ``new`` killed half-way leaves (:func:`_only_leftovers`), which
        the new session takes over."""
        from gmdesk.core.session.storage import session_files

        n = 1
        while True:
            p = self.dir / (f"{stem}{'' if n == 1 else f' {n}'}{SUFFIX}")
            if not os.path.lexists(p) and _only_leftovers(p, session_files(p)):
                return p
            n += 1

    def resolve(self, name_or_path: str | os.PathLike[str]) -> Path:
        """Like :meth:`path_for`, but the session must exist (GmdeskError otherwise)."""
        p = self.path_for(name_or_path)
        if not p.is_file():
            raise GmdeskError(f"no session {str(name_or_path)!r} (looked for {p}); `gmdesk list` shows them")
        return p

    def _new_path(self, name: str) -> Path:
        """A free file for a new session called ``name``; refuses a name already used.
        Call with :meth:`_creating` held, so that two gmdesk creating the same name at
        once make one session."""
        key = name.casefold()
        for s in self.list():
            if s.known and s.name.casefold() == key:
                raise GmdeskError(f"a session named {name!r} already exists ({s.path}); choose another name")
        return self._free_path(safe_file_stem(name))

    @contextmanager
    def _creating(self) -> Iterator[None]:
        """Serialise the creation of sessions in this directory (a ``flock`` on the
        saves directory itself: no lock file is ever left behind): checking that a name
        is free and creating its file happen as one step."""
        import fcntl

        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.dir, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    @staticmethod
    def _check_name(name: Any) -> str:
        clean = clean_name(name)
        if not clean:
            raise ParamError("name", "a session needs a name (any text, Unicode welcome)")
        if len(clean) > 200:
            raise ParamError("name", f"at most 200 characters (got {len(clean)})")
        if not _stem(clean):
            raise ParamError("name", f"{clean!r} has nothing a file name can keep; use letters or digits")
        return clean

    # ---- listing

    def list(self) -> list[SessionSummary]:
        """Every session in the directory, by file name. Never raises for one bad file."""
        if not self.dir.is_dir():
            return []
        try:
            paths = sorted(p for p in self.dir.iterdir() if p.name.endswith(SUFFIX) and not p.name.startswith("."))
        except OSError as e:
            raise GmdeskError(f"{self.dir}: cannot list sessions ({e.strerror or e})") from None
        return [self.summary(p) for p in paths]

    def summary(self, path: str | os.PathLike[str]) -> SessionSummary:
        """One session's summary from its header (never replays; never raises).

        A small file is opened read-only through the store (any damage shows as the
        error). A big one (``QUICK_BYTES`` or more) is summarised from its header line
        and the header changes in its journal only, so that a list of long campaigns
        stays quick; damage inside its events shows when it is opened."""
        path = Path(path)
        h = _quick_header(path)
        if h is None:
            try:
                from gmdesk.core.session.storage import EventLog

                log = EventLog.open(path, readonly=True)
            except GmdeskError as e:
                return SessionSummary(
                    name=path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.name, path=path, error=str(e)
                )
            except Exception as e:  # a listing must survive anything one file does
                return SessionSummary(name=path.stem, path=path, error=f"{path}: cannot read ({e})")
            try:
                h = log.header
            finally:
                log.close()
        from gmdesk.core.session.session import header_problems
        from gmdesk.core.systems import BUILTIN_IDS, system_ids

        problems = header_problems(h)
        system = h.get("system")
        needs = system if isinstance(system, str) and system not in BUILTIN_IDS and system not in system_ids() else None
        if problems and not (needs is not None and len(problems) == 1):
            return SessionSummary(
                name=path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.name,
                path=path,
                error=f"{path}: header: {'; '.join(problems)}",
            )
        stored = h.get("name")
        name = stored if isinstance(stored, str) and stored else path.stem
        return SessionSummary(
            name=name,
            path=path,
            system=str(h.get("system", "")),
            last_played=str(h.get("last_played") or h.get("created") or ""),
            round=_int(h.get("round")),
            rolls=_int(h.get("rolls")),
            characters=_int(h.get("characters")),
            created=str(h.get("created", "")),
            carried_from=_carried_from(h),
            error=None if needs is None else f"{path}: {plugin_note(needs)}",
            needs_plugin=needs,
        )

    # ---- creating, copying, deleting

    def create(self, name: str, system: str, settings: dict[str, Any] | None = None) -> Path:
        """A new empty session; returns its path. GmdeskError if the name is empty or taken."""
        from gmdesk.core.session.session import Session

        name = self._check_name(name)
        from gmdesk.core.systems import get_system

        get_system(system)
        with self._creating():
            path = self._new_path(name)
            Session.create(path, name, system, settings).close()
        return path

    def open(self, name_or_path: str | os.PathLike[str], readonly: bool = False) -> Session:
        from gmdesk.core.session.session import Session

        return Session.open(self.resolve(name_or_path), readonly=readonly)

    def duplicate(self, src: str | os.PathLike[str], new_name: str) -> Path:
        """A copy of a session (its whole log and view state) under a new name."""
        return self._copy(self.resolve(src), new_name)

    def create_from_example(self, example_path: str | os.PathLike[str], name: str) -> Path:
        """A new session copied from an example (the example is only read, never written)."""
        p = Path(example_path)
        if not p.is_file():
            raise GmdeskError(f"no example session at {p}")
        path = self._copy(p, name)
        from gmdesk.core.session.session import Session

        Session.open(path).close()  # its summary (the list's counts) as the session itself says
        return path

    def next_night(
        self, src: str | os.PathLike[str], name: str, *, rest: bool = False, npcs: Sequence[str] = ()
    ) -> Carried:
        """A new session named ``name`` that starts with the player characters of
        ``src`` (and the non-player characters named in ``npcs``), each as it stands
        there: stat block, sheet, sources, Possibilities, Vitality, wounds, conditions
        with their rounds left, notes; with ``rest``, after the system's recovery
        (its ``rest`` hook, see :mod:`core.systems.rest`). The new session has the
        source's system and settings, remembers where it came from (its header's
        ``carried_from``) and its log opens with one ``session.carried`` event.

        ``src`` is only read (opened read-only: its lock is not needed, it may be
        open in a desk). A damaged source, an unknown name in ``npcs`` or a name
        already taken is refused (GmdeskError, one line) before anything is created."""
        name = self._check_name(name)
        src_path = self.resolve(src)
        got = read_carried(src_path, npcs, rest)
        from gmdesk.core.session.session import Session, new_header
        from gmdesk.core.session.storage import EventLog

        header = new_header(name, got.system, got.settings)
        header["carried_from"] = {"name": got.source, "path": str(src_path), "rest": rest}
        with self._creating():
            dst = self._new_path(name)
            log = EventLog.create(dst, header)
            try:
                session = Session(log, readonly=False, path=dst)
            except BaseException:
                log.close()
                _discard(dst)
                raise
            try:
                session.apply(
                    {
                        "type": "session.carried",
                        "from": got.source,
                        "rest": rest,
                        "characters": got.characters,
                        "rest_changes": got.changes,
                    }
                )
            except BaseException:
                session.close()
                _discard(dst)
                raise
            session.close()
        return Carried(dst, got.source, tuple(c["name"] for c in got.characters), rest, tuple(got.changes))

    def _copy(self, src: Path, new_name: str) -> Path:
        from gmdesk.core.session.storage import EventLog
        from gmdesk.core.text import now_iso

        new_name = self._check_name(new_name)
        log = EventLog.open(src, readonly=True)
        try:
            header, docs, meta = log.contents()
        finally:
            log.close()
        when = now_iso()
        header.update(name=new_name, created=when)
        header.setdefault("last_played", when)
        return self.create_filled(new_name, header, docs, meta)

    def create_filled(
        self, name: str, header: dict[str, Any], events: Sequence[dict[str, Any]], meta: Iterable[tuple[Any, Any]]
    ) -> Path:
        """A new session file for ``name`` (refused when a session has that name)
        holding ``header``, the ``events`` (their documents, in order) and the ``meta``
        entries (key, value; one whose key is not text is left out): a copy of a
        session, or what a repair saved of one. A write that fails removes the file
        again."""
        from gmdesk.core.session.storage import EventLog

        with self._creating():
            dst = self._new_path(name)
            out = EventLog.create(dst, header)
        out.fill(events, meta)
        return dst

    def delete(self, path: str | os.PathLike[str]) -> None:
        """Delete a session and every file that belongs to it. Refuses a session open
        for writing elsewhere (LockedError) and the shipped examples."""
        from gmdesk.core.session.lock import WriterLock
        from gmdesk.core.session.storage import SessionMissingError, session_files, sidecar_paths

        p = Path(path)
        if not p.is_file():
            raise SessionMissingError(f"{p}: no such session")
        examples = _examples_dir()
        if examples is not None and p.resolve().parent == examples:
            raise GmdeskError(f"{p} is a shipped example; examples are never changed")
        lock = WriterLock(sidecar_paths(p)["lock"], p)
        lock.acquire()
        try:
            for f in session_files(p):
                if f != sidecar_paths(p)["lock"]:
                    f.unlink(missing_ok=True)
            sidecar_paths(p)["lock"].unlink(missing_ok=True)
        finally:
            lock.release()
