"""The commands that open the terminal app: the desk, ``gmdesk view`` and ``gmdesk serve``.

Each is read and checked here, then handed to the :class:`FrontEnd` the ``gmdesk``
entry point gives (``gmdesk/__main__.py``): the command line never imports it."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from gmdesk.cli.common import Parser, UsageError, int_option
from gmdesk.core.results import unwatched_stdout


class FrontEnd(Protocol):
    """What the command line asks of the terminal app (given by the entry point)."""

    def desk(self, saves_dir: Path, path: Path | None) -> int:
        """The GM's desk: the session picker, or ``path`` opened where play stopped."""
        ...

    def view(self, saves_dir: Path, path: Path) -> int:
        """The read-only player view of ``path``, following it live."""
        ...

    def serve(
        self,
        path: Path,
        *,
        host: str,
        port: int,
        max_viewers: int,
        ssh_port: int | None = None,
        authorized_keys: Path | None = None,
    ) -> int:
        """The player view of ``path`` for the players' browsers (and, with ``ssh_port``,
        their terminals over SSH)."""
        ...


def _needs(front_end: FrontEnd | None) -> FrontEnd:
    if front_end is None:
        raise UsageError("gmdesk: the terminal app is not available here; run the gmdesk command")
    return front_end


def resolve_saves(saves: str | None) -> Path:
    """The saves directory: ``--saves`` / ``$GMDESK_SAVES`` if given, else the platform's
    (one that is a file is refused: :func:`gmdesk.cli.common.saves_dir`)."""
    from gmdesk.cli.common import saves_dir

    return saves_dir(saves)


def open_path(saves: str | None, save: str) -> Path:
    """The file of the session ``save`` names (UsageError when there is none)."""
    from gmdesk.core.session.saves import SessionStore

    store = SessionStore(resolve_saves(saves))
    path = store.path_for(save)
    if not Path(path).exists():
        raise UsageError(f"gmdesk: no session {save!r} (looked for {path}); `gmdesk list` shows them")
    return Path(path)


def sound_path(saves: str | None, save: str) -> Path:
    """The file of the session ``save`` names, when it can be opened: a file that is no
    gmdesk session (``gmdesk view notes.txt``), a damaged one or one whose plug-in is
    missing is refused in one line (UsageError) — the players' view of it would show
    nothing but an error, and ``serve`` would offer that to every browser."""
    from gmdesk.core.session.saves import SessionStore

    path = open_path(saves, save)
    summary = SessionStore(resolve_saves(saves)).summary(path)
    if summary.error is not None:
        hint = "" if summary.needs_plugin else " (`gmdesk check` says more)" if summary.known else ""
        raise UsageError(f"gmdesk: {summary.error}{hint}")
    return path


def cmd_desk(saves: str | None, save: str | None, front_end: FrontEnd | None) -> int:
    """``gmdesk [SAVE]``: the session picker, or the session ``save`` where play stopped."""
    directory = resolve_saves(saves)
    opened = open_path(saves, save) if save else None
    _check_seed()
    with unwatched_stdout():
        return _needs(front_end).desk(directory, opened)


def _check_seed() -> None:
    """``$GMDESK_SEED`` (the desk's dice, fixed) is a number, or the desk does not start."""
    from gmdesk.core.dice import desk_seed

    try:
        desk_seed()
    except ValueError as e:
        raise UsageError(f"gmdesk: {e}") from None


def cmd_view(argv: list[str], saves: str | None, front_end: FrontEnd | None) -> int:
    """``gmdesk view SAVE``: the read-only player view, following the session live."""
    parser = Parser(prog="gmdesk view")
    parser.add_argument("save", metavar="SAVE", help="session name or path")
    ns = parser.parse_args(argv)
    path = sound_path(saves, ns.save)
    with unwatched_stdout():
        return _needs(front_end).view(resolve_saves(saves), path)


def cmd_serve(argv: list[str], saves: str | None, front_end: FrontEnd | None) -> int:
    """``gmdesk serve SAVE``: the read-only player view for browsers."""
    parser = Parser(prog="gmdesk serve")
    parser.add_argument("save", metavar="SAVE", help="session name or path")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the table's network)"
    )
    parser.add_argument("--port", default="8000", help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--max-viewers", default="12", help="most player views at once, browser and SSH (default 12)")
    parser.add_argument(
        "--ssh-port", default=None, help="also serve the player view over SSH on this port (needs gmdesk[ssh])"
    )
    parser.add_argument(
        "--authorized-keys", default=None, metavar="FILE", help="with --ssh-port: public keys that may log in too"
    )
    ns = parser.parse_args(argv)
    port = int_option("--port", ns.port, 0, 65535)
    max_viewers = int_option("--max-viewers", ns.max_viewers, 1, 1000)
    ssh_port = int_option("--ssh-port", ns.ssh_port, 0, 65535)
    if not ns.host.strip():
        raise UsageError("gmdesk serve: --host: expected an address such as 127.0.0.1 or 0.0.0.0")
    keys = None
    if ns.authorized_keys is not None:
        if ssh_port is None:
            raise UsageError("gmdesk serve: --authorized-keys: only with --ssh-port")
        keys = Path(ns.authorized_keys).expanduser()
        if not keys.is_file():
            raise UsageError(f"gmdesk serve: --authorized-keys: no file {str(keys)!r}")
    path = sound_path(saves, ns.save)
    with unwatched_stdout():
        return _needs(front_end).serve(
            path,
            host=ns.host.strip(),
            port=int(port or 0),
            max_viewers=int(max_viewers or 1),
            ssh_port=ssh_port,
            authorized_keys=keys,
        )
