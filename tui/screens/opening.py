"""OpeningScreen: what the GM sees while a session opens in a worker (a long
session takes a moment to read); it names the session, so the first frame is
already the right table."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Static


class OpeningScreen(Screen[None]):
    DEFAULT_CSS = """
    OpeningScreen { align: center middle; }
    OpeningScreen #opening-name { text-style: bold; width: auto; }
    OpeningScreen LoadingIndicator { height: 1; width: 20; }
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self.session_name = name

    def compose(self) -> ComposeResult:
        with Middle():
            with Center():
                yield Static(f"Opening {self.session_name} …", id="opening-name")
            with Center():
                yield LoadingIndicator()
