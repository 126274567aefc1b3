"""The ``gmdesk`` command: the one place that joins the two front ends.

:mod:`gmdesk.cli` parses every command and runs those that need no screen (``roll``,
``odds``, the session commands); the terminal app (:mod:`gmdesk.tui`) is reached only
through the :class:`TerminalApp` front end given here, imported when a command needs
it, so ``gmdesk roll`` never loads Textual.
"""

from __future__ import annotations

import sys


def _quiet_interrupt(kind: type[BaseException], value: BaseException, tb: object) -> None:
    """Ctrl-C while gmdesk is still loading its modules, before :func:`main` runs (which
    answers a Ctrl-C with exit status 130 and no traceback): no traceback then either;
    the process ends as Ctrl-C ends it. Anything else is said as Python says it."""
    if issubclass(kind, KeyboardInterrupt):
        print(file=sys.stderr)  # (the shell's prompt on a line of its own after "^C")
        return
    sys.__excepthook__(kind, value, tb)  # type: ignore[arg-type]


sys.excepthook = _quiet_interrupt  # (first: the imports below take most of a start-up)

from collections.abc import Sequence  # noqa: E402

from gmdesk.cli.main import main as run_command  # noqa: E402

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from pathlib import Path


class TerminalApp:
    """The :class:`gmdesk.cli.frontend.FrontEnd` of the Textual app."""

    def desk(self, saves_dir: Path, path: Path | None) -> int:
        # the terminal raw before the app is even loaded: keys typed while gmdesk
        # starts reach it as typed (tui/rawmode.py)
        from gmdesk.tui.rawmode import terminal_taken

        with terminal_taken():
            from gmdesk import tui

            return tui.run(saves_dir, path)

    def view(self, saves_dir: Path, path: Path) -> int:
        from gmdesk.tui.rawmode import terminal_taken

        with terminal_taken():
            from gmdesk import tui

            return tui.run_player_view(saves_dir, path)

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
        from gmdesk.tui.serve import run_server

        return int(
            run_server(
                path,
                host=host,
                port=port,
                max_viewers=max_viewers,
                ssh_port=ssh_port,
                authorized_keys=authorized_keys,
            )
            or 0
        )


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(argv, front_end=TerminalApp())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
