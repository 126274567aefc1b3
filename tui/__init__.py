"""gmdesk's Textual front end. The ``gmdesk`` entry point calls :func:`run` (the GM's app: the
picker, or a save opened where play stopped) and :func:`run_player_view` (the
read-only players' view of a save)."""

from __future__ import annotations

from pathlib import Path

from gmdesk.core.dice import RandomSource


def run(
    saves_dir: str | Path, path: str | Path | None = None, *, readonly: bool = False, rng: RandomSource | None = None
) -> int:
    """Run the GM's app until the GM quits; returns the exit status. The dice are
    ``rng``, else seeded from ``$GMDESK_SEED`` when it is set (the same keys then give
    the same rolls), else fresh."""
    from gmdesk.core.dice import desk_seed, make_rng
    from gmdesk.tui.app import GmdeskApp

    if rng is None:
        rng = make_rng(desk_seed())
    app = GmdeskApp(saves_dir, path, readonly=readonly, rng=rng)
    try:
        app.run()
    finally:
        app.close_session()
    untold = app.runner.open_failure
    if untold is not None:
        # the session could not be opened and the app ended before it could say so
        # (the end of input, ``gmdesk SAVE </dev/null``): one line, as the CLI says it
        import shlex
        import sys

        if app.runner.open_locked and path is not None:
            untold += f"; `gmdesk view {shlex.quote(str(path))}` follows it read-only"
        print(f"gmdesk: {untold}", file=sys.stderr)
        return int(app.return_code or 2)
    return int(app.return_code or 0)


def run_player_view(saves_dir: str | Path, path: str | Path) -> int:
    """Run the read-only player view of ``path`` (a session file)."""
    from gmdesk.tui.screens.player import PlayerApp

    app = PlayerApp(path)
    app.run()
    return int(app.return_code or 0)


if __name__ != "gmdesk.tui":  # `import tui` from the repository root: a second copy of every module
    raise ImportError("gmdesk's tui is imported as gmdesk.tui (from the installed package), never as tui")
