"""A dialog that is an overlay on the desk rather than a screen of its own
(:class:`OverlayDialog`).

A pushed or popped screen is redrawn whole, over an SSH link too; an overlay on its
own layer of the desk's screen costs only what it covers when it opens and what it
uncovers when it closes. The desk mounts one and keeps it, hidden between opens.
While it is open it behaves as a dialog screen would: the desk's keys wait (it is
modal), Tab stays in it (it traps the focus), and on closing the focus goes back to
where it was on the desk.

Enter hands the result to whoever opened it (``done``) and the dialog stays up,
``committing``, until the desk has done what it asked and closes it (:meth:`close`),
so that the terminal redraws the desk once, with the result in it. Escape closes at
once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from textual.binding import Binding
from textual.geometry import Region
from textual.widget import Widget

from gmdesk.tui.screens.dialog import DIALOG_BINDINGS, DialogKeys

ResultT = TypeVar("ResultT")


class OverlayDialog(DialogKeys, Widget, Generic[ResultT]):
    """A modal dialog drawn on the desk's screen (see the module docstring). A subclass
    fills itself in, then calls :meth:`show`; :meth:`on_close` is its hook for what
    ends with an open (work under way for it)."""

    # the dialog's keys, and those a dialog screen has (modal, the keys stop here)
    BINDINGS = [
        *DIALOG_BINDINGS,
        Binding("tab", "app.focus_next", "Focus Next", show=False),
        Binding("shift+tab", "app.focus_previous", "Focus Previous", show=False),
        Binding("ctrl+c,super+c", "screen.copy_text", "Copy selected text", show=False),
    ]
    #: the largest the dialog is drawn, columns × rows (it fills a smaller terminal)
    MAX_SIZE = (110, 34)

    def __init__(self, done: Callable[[ResultT | None], object] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.committing = False  # Enter was pressed: the desk is doing what it asked
        self._done = done
        self._return_focus: Widget | None = None
        self._opened = False

    @property
    def focused(self) -> Widget | None:
        """The focused widget (the screen's: the dialog is on the desk's screen)."""
        return self.screen.focused if self.is_attached else None

    @property
    def is_modal(self) -> bool:
        """While open, the keys stop at the dialog (the desk's and the app's own keys
        wait, as under a dialog screen); its priority keys and the app's still work."""
        return self._opened

    @property
    def is_open(self) -> bool:
        """The dialog is on the desk (shown, or being filled in to be shown)."""
        return self._opened

    def on_mount(self) -> None:
        self.trap_focus()  # Tab and shift+Tab stay in the dialog

    def box(self) -> Region:
        """Where the dialog is drawn on the screen: in the middle, as large as it may be."""
        width, height = self.screen.size
        w, h = min(self.MAX_SIZE[0], width), min(self.MAX_SIZE[1], height)
        return Region(max(0, (width - w) // 2), max(0, (height - h) // 2), w, h)

    def covers(self, widget: Widget) -> bool:
        """Whether the dialog, shown, hides all of ``widget`` on the desk (on a terminal
        no larger than the dialog, it fills the screen)."""
        return self.box().contains_region(widget.region)

    def place(self) -> None:
        """In the middle of the screen. Docked on a layer of its own, the dialog never
        changes the size of the desk's screen (which would redraw all of it)."""
        offset = self.box().offset
        if self.styles.offset.resolve(self.screen.size, self.screen.size) != offset:
            self.styles.offset = (offset.x, offset.y)

    def opening(self, done: Callable[[ResultT | None], object] | None) -> None:
        """An open starts (hidden until :meth:`show`); ``done`` takes its result."""
        self._opened = True
        self._done = done

    def show(self) -> None:
        """Show the dialog, filled in, and focus its first field (the focus on the
        desk is remembered, to go back to)."""
        self._opened = True
        screen = self.screen
        focused = screen.focused
        if focused is not None and self not in focused.ancestors:
            self._return_focus = focused
        self.place()
        self.display = True
        self.focus_first()
        screen.refresh_bindings()

    def focus_first(self) -> None:
        """Focus the dialog's first field."""
        for widget in self.query("*"):
            if widget.focusable:
                widget.focus(scroll_visible=False)
                return

    def dismiss(self, result: ResultT | None = None) -> None:
        """Escape (``None``): close at once. Enter (a result): hand it to whoever
        opened the dialog and stay up, ``committing``, until the desk closes it
        (:meth:`close`); with nobody to hand it to, close."""
        if not self._opened or self.committing:
            return
        done, self._done = self._done, None
        if result is None:
            self.close()
        else:
            self.committing = True  # Escape and Enter wait for the desk
        if done is not None:
            done(result)
        if result is not None and done is None:
            self.close()

    def on_close(self) -> None:
        """What ends with this open (a subclass's work under way for it)."""

    def close(self) -> None:
        """Hide the dialog and give the focus back to the desk."""
        if not self._opened:
            return
        self._opened = False
        self.committing = False
        self.on_close()
        self.display = False
        back, self._return_focus = self._return_focus, None
        screen = self.screen
        if back is not None and back.is_attached and back.focusable:
            back.focus(scroll_visible=False)
        else:
            screen.set_focus(None)
        screen.refresh_bindings()
