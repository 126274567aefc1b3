"""The status line on top of the GM's main screen: the session's name and system, the
round and whose turn it is once the encounter runs ("▶ Gospog ×3's turn (Gospog 2)":
an initiative group's turn, and who acts for it where the line has room), and
READ-ONLY when nothing can be saved. It shows what it is given
(:meth:`SessionBar.show`) and repaints only when that changes: one line, so never a
new layout (what a turn costs over SSH)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from gmdesk.core.session import State
from gmdesk.tui.widgets.common import TURN_MARKER, name_of
from gmdesk.tui.widgets.initiative import fit_name


def bar_text(state: State, readonly: bool, width: int = 0) -> Text:
    """The status line's text for ``state``; ``width``: the columns it has (0: all it
    needs). Who acts for a group is left out of a line without room for it, never the
    group's turn; then the session's name is cut ("The Very Long Cam…"), then the name
    of whose turn it is: whose turn reads on the line, never cut off its end."""
    text = _bar_text(state, readonly, actor=True)
    if not width or text.cell_len <= width:
        return text
    text = _bar_text(state, readonly, actor=False)
    session = state.info.name or "session"
    over = text.cell_len - width
    if over > 0:
        session = fit_name(session, max(SESSION_LEAST, cell_len(session) - over))
        text = _bar_text(state, readonly, actor=False, session=session)
    over = text.cell_len - width
    cur = state.encounter.current if state.encounter.round else None
    if over > 0 and cur is not None:
        who = _turn_name(state, cur.char_id)
        who = fit_name(who, max(NAME_LEAST, cell_len(who) - over))
        text = _bar_text(state, readonly, actor=False, session=session, who=who)
    return text


#: the fewest cells a cut session name, and a cut character's name, keep on the line
SESSION_LEAST = 16
NAME_LEAST = 8


def _turn_name(state: State, char_id: str) -> str:
    """Whose turn the line names: the character, or its initiative group's row."""
    c = state.characters.get(char_id)
    if c is not None and c.group is not None:
        return str(state.group_title(c.group))
    return name_of(state, char_id)


def _bar_text(state: State, readonly: bool, actor: bool, session: str | None = None, who: str | None = None) -> Text:
    info = state.info
    enc = state.encounter
    text = Text()
    text.append(session or info.name or "session", style="bold")
    text.append(f" · {info.system}")
    if enc.round:
        text.append(f" · Round {enc.round}", style="bold")
        cur = enc.current
        if cur is not None:
            name = name_of(state, cur.char_id)
            c = state.characters.get(cur.char_id)
            if c is not None and c.group is not None:  # a group's turn: its row, and who acts for it
                member = f" ({name})" if actor else ""
                text.append(f" · {TURN_MARKER} {who or state.group_title(c.group)}'s turn{member}", style="bold")
            else:
                text.append(f" · {TURN_MARKER} {who or name}'s turn", style="bold")
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
