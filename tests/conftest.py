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


#: the test files that cost the most CPU, costliest first (measured one at a time): CI
#: (``-n auto --dist loadfile --no-loadscope-reorder``) hands files to its workers in
#: this order, then the rest in their own, so that no long file starts last while the
#: other worker has nothing left to do. The type-ahead harness comes first: it drives
#: five gmdesk processes on pseudo-terminals, mostly waiting for their screens, while
#: it types the same keys slowly, and the other worker takes the next files meanwhile.
LONG_FILES = (
    "test_typeahead_pty.py",
    "test_tui_typeahead.py",
    "test_tui_main.py",
    "test_serve.py",
    "test_serve_browser.py",
    "test_tui_combat.py",
    "test_cli_truth.py",
    "test_tui_attack_fields.py",
    "test_cli.py",
    "test_tui_dialogs.py",
    "test_tui_picker.py",
    "test_tui_robust.py",
    "test_tui_desk.py",
    "test_crash.py",
)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)))
