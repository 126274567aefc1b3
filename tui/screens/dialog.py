"""What every gmdesk dialog shares: Enter does what the focused field says, Escape
cancels, the hint line names the keys actually bound, and a refusal keeps the dialog
open with the field named as the dialog labels it.

:class:`Dialog` is the base of the desk's modal dialogs (roll, forms, inputs, choices,
confirmations). What Enter does follows the focus, as in any Textual app:

* on a text input or a checkbox it submits the dialog (its ``enter`` binding is a
  *priority* binding, so it reaches the dialog before the field); so does it on a
  list of boxes (Space ticks one, Enter starts);
* on a dropdown (``Select`` / :class:`tui.widgets.form.Choice`) it opens the list,
  Enter picks in it; ←/→ step through the values in place, list closed;
* on a button it presses that button; on an option list it picks; in a multi-line
  text area it starts a new line.

``ctrl+s`` submits from any field (the hint names it where Enter does something
else), and ``ctrl+j`` too (terminals that send it for Enter).

:class:`DialogHint` is the dialog's hint line. It is built from the bindings in force
(after the GM's keymap) and follows the focus: "Space toggle" on a checkbox,
"Enter open list · ←→ change" on a dropdown. Its verb is also the key bar's word for
Enter: the bar under the roll dialog says "⏎ Roll" as the hint says "Enter roll"
(:meth:`DialogKeys.say_enter`).

A refusal reads as :func:`tui.wording.ui_message` words it (the field's label, never a
CLI flag or an event type). :meth:`Dialog.commit` runs a session call from the dialog
and closes it only once the session accepted it; a refusal shows inline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rich.cells import cell_len
from textual import events
from textual.binding import ActiveBinding, Binding, BindingType
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Footer, OptionList, Select, SelectionList, Static, TextArea

from gmdesk.core.errors import GmdeskError
from gmdesk.tui.bindings import node_bindings
from gmdesk.tui.widgets.form import Choice
from gmdesk.tui.wording import field_key, key_name, short_label, ui_message

if TYPE_CHECKING:
    from gmdesk.core.session import Session

ResultT = TypeVar("ResultT")


def bound_keys(node: DOMNode, action: str, *, shown_only: bool = True) -> list[str]:
    """The keys bound to ``action`` on ``node`` now (the GM's keymap applied), in the
    order they were declared."""
    out: list[str] = []
    for key, key_bindings in node_bindings(node).key_to_bindings.items():
        for b in key_bindings:
            if b.action == action and (b.show or not shown_only) and key not in out:
                out.append(key)
    return out


def keys_text(node: DOMNode, action: str, exclude: Iterable[str] = (), *, shown_only: bool = True) -> str:
    keys = [k for k in bound_keys(node, action, shown_only=shown_only) if k not in set(exclude)]
    keys.sort(key=lambda k: k not in ("enter", "space"))  # the keys a GM reaches for first
    return "/".join(key_name(node.app, k) for k in keys[:2])


# ----------------------------------------------------------------------------------- hint


class DialogHint(Static):
    """The dialog's hint line: ``Enter <verb> · … · Esc cancel`` with the keys bound now,
    and the focused field's own keys (Space toggle, Space/↓ open list)."""

    def __init__(self, verb: str = "accept", *, extra: str = "", **kwargs: Any) -> None:
        classes = kwargs.pop("classes", "")
        super().__init__("", classes=f"dialog-hint {classes}".strip(), **kwargs)
        self._verb = verb
        self.extra = extra

    @property
    def verb(self) -> str:
        """What Enter does ("roll", "add"): the hint's words, and the key bar's."""
        return self._verb

    @verb.setter
    def verb(self, verb: str) -> None:
        self._verb = verb
        if self.is_attached:
            self._name_enter()

    def _name_enter(self) -> None:
        dialog = self.dialog()
        if isinstance(dialog, DialogKeys):
            dialog.say_enter(self._verb)

    def on_mount(self) -> None:
        self._name_enter()
        self.call_after_refresh(self.refresh_hint)

    def dialog(self) -> Any:
        """The dialog this line belongs to: the screen, or an overlay dialog on it."""
        return next((n for n in self.ancestors if isinstance(n, DialogKeys)), self.screen)

    def hint_text(self) -> str:
        """The hint's keys, one line: ``Enter roll · Tab next field · Esc cancel``."""
        return " · ".join(self.hint_parts())

    def hint_parts(self) -> list[str]:
        screen = self.dialog()
        parts: list[str] = []
        focused = screen.focused
        submit = keys_text(screen, "submit")
        # where Enter belongs to the field, the key that submits from anywhere
        anywhere = keys_text(screen, "submit_anywhere", shown_only=False)
        own = ""
        if isinstance(focused, OptionList) and isinstance(focused.parent, (Select, Choice)):
            # a dropdown's open list: Enter picks in it and Escape closes it (the dialog stays)
            pick = keys_text(focused, "select", shown_only=False).split("/")[0] or "Enter"
            close = next(
                (k for a in ("close", "dismiss") if (k := keys_text(focused, a, shown_only=False).split("/")[0])), "Esc"
            )
            return [f"{pick} pick · ↑↓ move", f"{close} close the list"]
        if isinstance(focused, SelectionList):
            pass
        elif isinstance(focused, OptionList) and not isinstance(focused.parent, (Select, Choice)):
            own = f"{keys_text(focused, 'select', shown_only=False) or 'Enter'} {self.verb} · ↑↓ move"
        elif isinstance(focused, Button):
            own = f"{keys_text(focused, 'press', shown_only=False) or 'Enter'} the focused button"
        elif isinstance(focused, TextArea):
            own = "Enter new line"
        elif isinstance(focused, (Select, Choice)):
            # one key each, so that the line fits 80 columns with the verb and Esc
            keys = keys_text(focused, "show_overlay", shown_only=False).split("/")[0] or "Enter"
            own = f"{keys} open list"
            steps = [keys_text(focused, f"step({d})", shown_only=False).split("/")[0] for d in (-1, 1)]
            if all(steps):
                own += f" · {''.join(steps)} change"
        if own:
            parts.append(own)
            if anywhere and not isinstance(focused, OptionList):
                parts.append(f"{anywhere} {self.verb}")
        elif submit:
            parts.append(f"{submit} {self.verb}")
        if isinstance(focused, Checkbox):
            parts.append(f"{keys_text(focused, 'toggle_button', shown_only=False) or 'Space'} toggle")
        elif isinstance(focused, SelectionList):
            parts.append(f"{keys_text(focused, 'select', shown_only=False) or 'Space'} tick · ↑↓ move")
        if self.extra:
            parts.append(self.extra)
        if len(self.screen.focus_chain) > 1:
            parts.append("Tab next field")
        cancel = keys_text(screen, "cancel")
        if cancel:
            parts.append(f"{cancel} cancel")
        return parts

    def laid_out(self, parts: list[str], width: int) -> str:
        """``parts`` in lines of ``width`` cells, broken only between two keys: "Tab
        next field" is never split over two lines (as the text's own wrapping did at
        80×24, "… · Tab" over "next field · Esc cancel")."""
        if width <= 0:
            return " · ".join(parts)
        lines: list[str] = []
        line = ""
        for n, part in enumerate(parts):
            joined = f"{line} · {part}" if line else part
            last = n == len(parts) - 1  # a line broken after it ends with " ·"
            if line and cell_len(joined) + (0 if last else 2) > width:
                lines.append(f"{line} ·")
                line = part
            else:
                line = joined
        lines.append(line)
        return "\n".join(lines)

    def refresh_hint(self) -> None:
        if self.is_mounted:
            self.update(self.laid_out(self.hint_parts(), self.content_size.width))

    def on_resize(self) -> None:
        self.refresh_hint()


# --------------------------------------------------------------------------------- dialog


#: the actions of the keys that do what Enter does (the key bar names them with its verb)
SUBMIT_ACTIONS = frozenset({"submit", "submit_anywhere"})


def enter_word(verb: str) -> str:
    """The key bar's word for what Enter does: the hint's verb without its note, with
    a capital ("roll (typed values are kept)" → "Roll", "add to the log" → "Add to the log")."""
    word = verb.split(" (")[0].strip()
    return word[:1].upper() + word[1:] if word else "Accept"


#: the keys every dialog shares (ids for the GM's keymap)
DIALOG_BINDINGS: list[BindingType] = [
    Binding("enter", "submit", "Accept", priority=True, id="dialog.submit"),
    Binding("ctrl+s", "submit_anywhere", "Accept", show=False, priority=True, id="dialog.submit_anywhere"),
    Binding("ctrl+j", "submit", "Accept", show=False, priority=True, id="dialog.accept"),
    Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
]


class DialogKeys:
    """What Enter, ``ctrl+s`` and Escape do in a dialog, and its inline error: shared by
    the modal :class:`Dialog` and the roll dialog, an overlay on the desk
    (:class:`tui.screens.roll.RollDialog`). The class mixing it in sets
    ``BINDINGS = DIALOG_BINDINGS`` and says what :meth:`action_submit` does."""

    #: widgets whose own Enter wins over the dialog's (a list of boxes excepted: Enter
    #: starts, Space ticks)
    ENTER_OWNERS: tuple[type, ...] = (OptionList, Button, TextArea, Select, Choice)

    committing: bool
    labels: dict[str, str]
    focused: Any  # the focused widget (a Screen's own; an overlay's: its screen's)

    #: the key bar's word for what Enter does (:meth:`say_enter`)
    _enter_word: str | None = None

    @staticmethod
    def picks_on_enter(focused: Any) -> bool:
        """Whether ``focused`` is a list whose Enter picks the highlighted line and so
        does what the dialog's Enter does (a :class:`ChoiceDialog`'s options), not a
        dropdown's open list."""
        return (
            isinstance(focused, OptionList)
            and not isinstance(focused, SelectionList)
            and not isinstance(focused.parent, (Select, Choice))
        )

    def owns_enter(self, focused: Any) -> bool:
        """Whether ``focused`` keeps Enter to itself: a dropdown opens, a button
        presses, a list picks, a text area starts a line (``ctrl+s`` submits). Its
        Enter stays its own so that it acts after the keys typed before it (an arrow
        in the list), in order."""
        return isinstance(focused, self.ENTER_OWNERS) and not isinstance(focused, SelectionList)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "submit" and self.owns_enter(self.focused):
            # the field's own Enter (ctrl+s still submits: :meth:`action_submit_anywhere`)
            return False
        return True

    def action_submit_anywhere(self) -> None:
        """``ctrl+s``: submit from any field, a dropdown or a text area included (their
        Enter is their own); in a dropdown's open list it waits for the pick."""
        focused = self.focused
        if isinstance(focused, OptionList) and isinstance(focused.parent, (Select, Choice)):
            return
        self.action_submit()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        for hint in self.query(DialogHint):  # type: ignore[attr-defined]
            hint.refresh_hint()

    def say_enter(self, verb: str) -> None:
        """The key bar names what Enter does in this dialog ("⏎ Roll", "⏎ Add"), as its
        hint line does ("Enter roll"); see :meth:`key_bar_binding`."""
        self._enter_word = enter_word(verb)
        if self.is_attached:  # type: ignore[attr-defined]
            self.refresh_bindings()  # type: ignore[attr-defined]

    def key_bar_binding(self, binding: Binding) -> Binding:
        """How the key bar (and the help) shows ``binding``, one of this dialog's own:
        Enter (and ``ctrl+j``) described by the word of :meth:`say_enter`; where the
        focused field keeps Enter (a dropdown, a button), ``ctrl+s`` shown with it
        instead ("^s Roll"), as the hint line does. On a list whose Enter picks
        (:meth:`picks_on_enter`) the list's own Enter is shown with the word instead
        ("⏎ Choose", as the hint's "Enter choose"). Its key and id stay as bound (the
        GM's keymap moves them); :class:`DialogKeyBar` asks this of the dialog."""
        word = self._enter_word
        if word is None:
            return binding
        if binding.action == "select" and self.picks_on_enter(self.focused):
            return dataclasses.replace(binding, description=word, show=True)
        if binding.action not in SUBMIT_ACTIONS:
            return binding
        if binding.action == "submit_anywhere":
            shown = self.owns_enter(self.focused) and not self.picks_on_enter(self.focused)
            return dataclasses.replace(binding, description=word, show=shown)
        return dataclasses.replace(binding, description=word)

    def action_submit(self) -> None:  # pragma: no cover - every dialog says what Enter does
        raise NotImplementedError

    def action_cancel(self) -> None:
        if not self.committing:
            self.dismiss(None)  # type: ignore[attr-defined]

    # -- errors ---------------------------------------------------------------------------------

    def error_widget(self) -> Static | None:
        for w in self.query(".inline-error"):  # type: ignore[attr-defined]
            if isinstance(w, Static):
                return w
        return None

    def show_error(self, error: BaseException | str, labels: Mapping[str, str] | None = None) -> str:
        """Show ``error`` under the fields (named by their labels); returns the text."""
        text = ui_message(error, self.labels if labels is None else labels)
        w = self.error_widget()
        if w is not None:
            w.update(f"✗ {text}" if text else "")
        elif text:
            self.notify(text, severity="error", markup=False)  # type: ignore[attr-defined]
        return text

    def clear_error(self) -> None:
        w = self.error_widget()
        if w is not None:
            w.update("")


class DialogKeyBar:
    """Mix into a ``Screen`` (before it) whose key bar says what Enter does in the
    dialog open on it: the bindings in force are Textual's ``active_bindings``, each
    of a dialog (:class:`DialogKeys`: the screen itself, or an overlay dialog on it)
    shown as that dialog describes it (:meth:`DialogKeys.key_bar_binding`)."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        active: dict[str, ActiveBinding] = super().active_bindings  # type: ignore[misc]
        for key, (node, binding, enabled, tooltip) in active.items():
            # a dialog's own keys; and the Enter of its focused list, which picks
            owner = node if isinstance(node, DialogKeys) else None
            if owner is None and DialogKeys.picks_on_enter(node):
                owner = next((a for a in node.ancestors_with_self if isinstance(a, DialogKeys)), None)
            if owner is not None:
                shown = owner.key_bar_binding(binding)
                if shown is not binding:
                    active[key] = ActiveBinding(node, shown, enabled, tooltip)
        return active


class DialogScreen(DialogKeyBar, ModalScreen[ResultT], Generic[ResultT]):
    """A dialog on a screen of its own, over the desk (or the session picker), with a
    key bar of its own at the bottom: the dialog's keys, the keys in force, over the
    bar of the screen beneath (whose keys wait while the dialog is up)."""

    #: the bar shows on a screen taller than this: a dialog that takes every row of a
    #: smaller screen (the help at 80×24) hides the bar beneath it and keeps its rows
    KEY_BAR_ABOVE = 0

    def on_mount(self) -> None:
        self.mount(Footer())
        self._show_key_bar()

    def on_resize(self) -> None:
        self._show_key_bar()

    def _show_key_bar(self) -> None:
        shown = self.size.height > self.KEY_BAR_ABOVE
        for bar in self.query(Footer):
            if bar.display != shown:
                bar.display = shown


class Dialog(DialogKeys, DialogScreen[ResultT], Generic[ResultT]):
    """Base of the desk's modal dialogs (see the module docstring). Subclasses implement
    :meth:`action_submit` (what Enter does) and may set :attr:`LABELS` / pass labels
    to :meth:`show_error` so that errors name their fields."""

    BINDINGS = list(DIALOG_BINDINGS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("classes", "dialog-screen")
        super().__init__(*args, **kwargs)
        self.committing = False
        self.labels: dict[str, str] = {}

    def commit(self, fn: Callable[[Session], Any], result: Callable[[Any], ResultT] | None = None) -> None:
        """Run ``fn(session)`` through the desk's session runner; close the dialog with
        ``result(value)`` (default: the value) once the session accepted it, or show
        the refusal inline and keep everything typed."""
        runner = next((s for s in reversed(self.app.screen_stack) if s is not self and hasattr(s, "submit")), None)
        if runner is None or self.committing:
            return
        self.committing = True

        def guarded(session: Session) -> tuple[bool, Any]:
            try:
                return True, fn(session)
            except GmdeskError as e:
                return False, e

        def finished(outcome: tuple[bool, Any]) -> None:
            self.committing = False
            ok, value = outcome
            if not ok:
                self.show_error(value)
                return
            if self.is_attached and self.app.screen is self:
                self.dismiss(result(value) if result is not None else value)

        def failed(message: str) -> None:
            self.committing = False
            self.show_error(message)

        runner.submit(guarded, finished, failed)


__all__ = [
    "DIALOG_BINDINGS",
    "SUBMIT_ACTIONS",
    "DialogKeyBar",
    "enter_word",
    "Dialog",
    "DialogHint",
    "DialogScreen",
    "DialogKeys",
    "ui_message",
    "bound_keys",
    "key_name",
    "field_key",
    "short_label",
]
