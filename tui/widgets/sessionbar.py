"""The status line on top of the GM's main screen: the session's name and system, the
round and whose turn it is once the encounter runs, and READ-ONLY when nothing can be
saved. It shows what it is given (:meth:`SessionBar.show`) and repaints only when
that changes: one line, so never a new layout (what a turn costs over SSH)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from gmdesk.core.session import State
from gmdesk.tui.widgets.common import TURN_MARKER, name_of


def bar_text(state: State, readonly: bool) -> Text:
    """The status line's text for ``state``."""
    info = state.info
    enc = state.encounter
    text = Text()
    text.append(info.name or "session", style="bold")
    text.append(f" · {info.system}")
    if enc.round:
        text.append(f" · Round {enc.round}", style="bold")
        cur = enc.current
        if cur is not None:
            who = name_of(state, cur.char_id)
            c = state.characters.get(cur.char_id)
            if c is not None and c.group is not None:  # a group's turn: its row, and who acts for it
                who = f"{state.group_title(c.group)} ({who})"
            text.append(f" · {TURN_MARKER} {who}'s turn", style="bold")
    if readonly:
        text.append(" · READ-ONLY", style="bold reverse")
    return text


class SessionBar(Static):
    """The main screen's status line (see the module docstring)."""

    #: what the line says (a Rich ``Text`` compares by its words and styles)
    text: reactive[Text] = reactive(Text, init=False)

    def show(self, state: State, readonly: bool) -> None:
        self.text = bar_text(state, readonly)

    def watch_text(self, text: Text) -> None:
        self.update(text, layout=False)
