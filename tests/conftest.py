import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A GM's own keymap on this machine must not change what the tests press.
# (an existing empty file: a $GMDESK_KEYMAP naming a missing file is reported)
os.environ["GMDESK_KEYMAP"] = os.path.join(os.path.dirname(__file__), "data", "empty-keymap.toml")


@pytest.fixture
def quick_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The roll dialog waits a moment for typing to stop before computing odds; tests
    type fast (a TUI test module asks for it with ``pytestmark``)."""
    from gmdesk.tui.screens.roll import RollDialog

    monkeypatch.setattr(RollDialog, "ODDS_DELAY", 0.01)


@pytest.fixture
def saves(tmp_path, monkeypatch):
    """A saves directory of the test's own (the GM's $GMDESK_SAVES is not read)."""
    monkeypatch.delenv("GMDESK_SAVES", raising=False)
    return tmp_path / "saves"


@pytest.fixture
def store(saves):
    """A ``SessionStore`` on the test's own saves directory."""
    from gmdesk.core.session import SessionStore

    return SessionStore(saves)


#: the test files that take minutes on one worker (the type-ahead harness drives five
#: gmdesk processes on pseudo-terminals, mostly waiting for their screens, and types the
#: same keys slowly meanwhile): run first, so the other worker(s) take the rest of the
#: suite meanwhile instead of waiting for them at the end
LONG_FILES = ("test_typeahead_pty.py",)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name not in LONG_FILES)
