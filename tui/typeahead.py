"""Keys typed ahead act exactly as if typed slowly (:class:`TypeAhead`, mixed into the app).

Over SSH, from a fast typist, a paste or a key macro, several keys arrive in one read.
Textual routes each key to the widget that has focus *when it arrives*, while what
the key before it does — Tab moving to the next field, ``a`` opening the attack
dialog once the session call under way is written, Enter closing a dialog, a screen
being mounted — happens later, after the keys behind it were already routed. So
``c`` + ``Zed Tab Tab Tab 12 Tab 3`` in one read put "Zed123" in the Name field.

Here every key (and paste) the terminal delivers waits in one queue, in order, and
goes on to be routed only once the desk has *settled* from the key before it — the
same moment a GM typing slowly would press the next key:

* no session call is running or waiting (:attr:`TypeAhead.typeahead_busy`, the
  app's :class:`~gmdesk.tui.runner.SessionRunner`), and with it every dialog whose
  opening waited for one;
* the top screen is mounted (a screen being pushed or switched to takes the keys
  typed after the key that asked for it, never the screen underneath);
* no message is waiting or being handled anywhere in the app (the key's own trip
  up the DOM, the bindings it ran, focus moves, ``call_later`` and
  ``call_after_refresh`` callbacks), twice in a row;
* no asynchronous worker of the top screen is running: the command palette's search
  (so Enter there chooses the top match for everything typed before it). Thread
  workers computing a preview in the background (the roll dialog's odds) are not
  waited for: no key depends on them.

A key typed slowly meets an app that has settled already, so it goes on at once.
"Settled" reads the state of Textual 8's message pumps (their queues, the task that
waits on each, the screens' pending callbacks, the workers): Textual has no public
"idle" signal; the Textual version is pinned, and ``tests/test_tui_typeahead.py``
fails if a new one changes what these mean.

The held keys are visible to tests as :attr:`TypeAhead.typing_ahead`. If one widget
stays busy without the app moving on at all (no session call under way, the top
screen up) for :data:`SOFT_LIMIT` seconds *and* :data:`SOFT_LOOKS` looks in a row,
the next key goes on anyway: a key is never held for good. Both, because time alone
says nothing on a busy machine: a process kept off the CPU for seconds (CI running
a dozen programs on two cores) finds the widget it looked at before still busy,
however short its work, only because the app has not had a turn since. Each look
is a turn of the event loop in which that widget could have moved on, so a widget
found busy at a thousand looks in a row is stuck, not slow. A busy machine only
makes the keys slower, never misrouted.

"Busy" is the same under a real terminal and under Pilot: the app's own message
loop runs without a task of its own under a real driver (``App._task`` is set by
``run_test`` only), so a pump counts as idle only when its loop waits on its queue
(or is not running), whatever task runs it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from textual import events
from textual.worker import WorkerState

#: seconds a key waits at most while the same widget stays busy without the app
#: moving on (never for a session call, a screen being mounted, or an app that is
#: slow but making progress) …
SOFT_LIMIT = 5.0

#: … and looks in a row that found it so: each look is a turn of the event loop in
#: which the widget could have moved on (an idle machine makes these in about two
#: seconds, a starved one takes longer; :data:`SOFT_LIMIT` is the bound there)
SOFT_LOOKS = 1000

_UNDER_WAY = (WorkerState.PENDING, WorkerState.RUNNING)

#: how many times in a row the app must be found quiet before the next key goes on
QUIET_ROUNDS = 2


class TypeAhead:
    """Mix into an ``App`` before ``App``: keys from the terminal are routed one at a
    time, each once the app has settled from the one before (see the module docstring).
    Override :attr:`typeahead_busy` to say when work outside the event loop (a session
    call) is under way."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held: deque[events.Event] = deque()
        self._releasing: events.Event | None = None  # the held key on its way to be routed
        self._routing = False  # a key was routed and the app has not settled since
        self._settler: asyncio.Task[None] | None = None

    # -- what the app says -------------------------------------------------------------

    @property
    def typeahead_busy(self) -> bool:
        """Work a key may start outside the event loop is under way (the app overrides)."""
        return False

    @property
    def typing_ahead(self) -> bool:
        """Keys are held, or the last one routed has not settled yet."""
        return bool(self._held) or self._routing or self._releasing is not None

    # -- the queue ---------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            if event is self._releasing:
                self._releasing = None
                self._routing = True
                try:
                    await super().on_event(event)  # type: ignore[misc]
                finally:
                    self._wake()
                return
            self._held.append(event)
            self._wake()
            return
        await super().on_event(event)  # type: ignore[misc]

    def _wake(self) -> None:
        """Make sure a settler waits for the moment the next held key can go on."""
        if self._settler is None or self._settler.done():
            self._settler = asyncio.get_running_loop().create_task(self._settle_then_release())

    async def _settle_then_release(self) -> None:
        """Wait until the app has settled, then send the next held key on its way (the
        app routes it, then wakes the next settler)."""
        if self._releasing is not None:
            return  # on its way: routing it wakes a settler again
        started = self._typeahead_clock()
        quiet = 0
        spins = 0
        looks = 0  # looks in a row that found ``last`` busy
        last: object = None
        while quiet < QUIET_ROUNDS:
            # the first rounds at once (most keys settle within a few), then gently
            await asyncio.sleep(0 if spins < 20 else 0.002)
            spins += 1
            if self._hard_busy():
                quiet, last, looks, started = 0, None, 0, self._typeahead_clock()
                continue
            busy = self._busy_with()
            if busy is None:
                quiet += 1
                continue
            quiet = 0
            if busy != last:  # the app moves on (a busy machine is slow, not stuck)
                last, looks, started = busy, 0, self._typeahead_clock()
                continue
            looks += 1
            if looks >= SOFT_LOOKS and self._typeahead_clock() - started > SOFT_LIMIT:
                self.log.warning(f"type-ahead: {busy} kept busy; the next key goes on")  # type: ignore[attr-defined]
                break
        self._routing = False
        if not self._held:
            return
        event = self._held.popleft()
        self._releasing = event
        if not self.post_message(event):  # type: ignore[attr-defined]
            self._releasing = None  # the app is closing: the keys go nowhere
            self._held.clear()

    def _typeahead_clock(self) -> float:
        """Seconds, for :data:`SOFT_LIMIT` (the event loop's clock)."""
        return asyncio.get_running_loop().time()

    # -- settled? ---------------------------------------------------------------------

    def _hard_busy(self) -> bool:
        """What a key always waits for: a session call, a screen not mounted yet."""
        if self.typeahead_busy:
            return True
        app: Any = self
        try:
            screen = app.screen
        except Exception:
            return False  # no screen (starting or ending): nothing to route to yet or any more
        return not screen.is_mounted

    def _busy_with(self) -> object:
        """None when no message is waiting or being handled, no callback is due and no
        async worker of the top screen runs; else what is busy (it changes as long as
        the app makes progress)."""
        app: Any = self
        for pump in (app, *list(app._registry)):
            if not _idle(pump):
                return (id(pump), pump._message_queue.qsize(), len(pump._next_callbacks))
        for screen in app.screen_stack:
            if screen._callbacks:
                return (id(screen), "callbacks", len(screen._callbacks))
        try:
            top = app.screen
        except Exception:
            return None  # no screen any more (the app ends)
        for worker in app.workers:
            if worker.state in _UNDER_WAY and not worker._thread_worker:
                node = worker.node
                if node is top or (hasattr(node, "screen") and _screen_of(node) is top):
                    return id(worker)
        return None


def _idle(pump: Any) -> bool:
    """``pump`` has nothing to handle and is not handling anything: its queue is empty,
    no callback is due and its message loop waits for the next message (or has not
    been started, or has ended). Whether the loop runs is asked of the pump, not of
    ``pump._task``: the app's loop has no task of its own under a real terminal, and
    under ``run_test`` one that is not its loop; a widget's task that has not yet
    started its loop is a widget being mounted."""
    queue = pump._message_queue
    if queue.qsize() or pump._next_callbacks:
        return False
    if not pump.is_running:
        task = pump._task  # its loop is about to start (compose and mount first), or has ended
        return task is None or task.done()
    return bool(getattr(queue.ready_event, "_waiters", None))


def _screen_of(node: Any) -> Any:
    try:
        return node.screen
    except Exception:
        return None
