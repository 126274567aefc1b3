"""The status line on top of the GM's main screen: the session's name and system, the
round and whose turn it is once the encounter runs ("▶ Gospog ×3's turn (Gospog 2)":
an initiative group's turn, and who acts for it where the line has room), and
READ-ONLY when nothing can be saved. It shows what it is given
(:meth:`SessionBar.show`) and repaints only when that changes: one line, so never a
new layout (what a turn costs over SSH)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from gmdesk.core.session import State
from gmdesk.tui.widgets.common import TURN_MARKER, name_of


def bar_text(state: State, readonly: bool, width: int = 0) -> Text:
    """The status line's text for ``state``; ``width``: the columns it has (0: all it
    needs). Who acts for a group is left out of a line without room for it, never the
    group's turn."""
    text = _bar_text(state, readonly, actor=True)
    if width and text.cell_len > width:
        return _bar_text(state, readonly, actor=False)
    return text


def _bar_text(state: State, readonly: bool, actor: bool) -> Text:
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
                member = f" ({who})" if actor else ""
                text.append(f" · {TURN_MARKER} {state.group_title(c.group)}'s turn{member}", style="bold")
            else:
                text.append(f" · {TURN_MARKER} {who}'s turn", style="bold")
    if readonly:
        text.append(" · READ-ONLY", style="bold reverse")
    return text


class SessionBar(Static):
    """The main screen's status line (see the module docstring)."""

    #: what the line says (a Rich ``Text`` compares by its words and styles)
    text: reactive[Text] = reactive(Text, init=False)

    _shown: tuple[State, bool] | None = None

    def show(self, state: State, readonly: bool) -> None:
        self._shown = (state, readonly)
        self.text = bar_text(state, readonly, self.content_size.width)

    def on_resize(self) -> None:
        if self._shown is not None:
            self.show(*self._shown)

    def watch_text(self, text: Text) -> None:
        self.update(text, layout=False)
