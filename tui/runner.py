"""The session runner: every call of the desk that touches a session or the save
directory, one at a time, in order, off the event loop.

One :class:`SessionRunner` per app owns the open :class:`~gmdesk.core.session.Session`.
Opening, closing (the checkpoint and compaction: a fraction of a second on a long
session), every event, undo / redo and every store call of the picker run in a
thread worker, each after the ones submitted before it, so that a close is done
before the same save is opened or deleted again and the screen never waits on the
disk. The result comes back to the event loop as a message to the app
(:class:`SessionRunner.Finished`); the runner then calls the ``done`` (or ``error``)
callback of the call there, before the next call starts, so a callback reads the
state its own call left. Opening tells the app with :class:`SessionRunner.Opened` or
:class:`SessionRunner.OpenFailed`.

A call for a session that was closed meanwhile (the GM left for the picker while it
waited) is dropped; a callback whose screen is gone is not called. The app's final
close (:meth:`SessionRunner.shutdown`, when the app ends) waits for the call under
way and closes what is still open.
"""

from __future__ import annotations

import gc
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App
from textual.message import Message
from textual.message_pump import MessagePump

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session import Session
from gmdesk.core.session.lock import LockedError
from gmdesk.tui.wording import sentence, ui_message

#: what a call for a session that is no longer open says
CLOSED = "the session was closed"


# The heap and the cyclic garbage collector. Every collection runs under the GIL:
# whichever thread sets it off, it holds the event loop for as long as it walks the
# objects it looks at. Most of what the desk keeps alive never becomes garbage: the
# modules, classes and Textual objects the app has made by the time it is up (some
# 60,000 objects). So the app freezes its heap once it starts (:func:`freeze_heap`,
# ``gc.freeze``): no collection walks it again. A session's state stays collectable:
# since a long session keeps its older rolls packed (``model.rolllog``) it is a few
# thousand objects whatever the length of the history, and leaving it out of the
# frozen heap means no switch between sessions ever has to thaw and walk the whole
# heap to let the closed one go (a tenth of a second and more, on the loop). Opening
# a session (in the runner's worker):
#
# * first collects what is collectable (:func:`settle_heap`): the closed desk's
#   widgets, whose reference cycles held the old state, and that state — a walk of
#   the unfrozen heap only, while the GM waits for the new session;
# * reads and folds the save with the collector off (:func:`folding`), as the store
#   does for a long log, then moves what it made to the oldest generation in one
#   walk, so that the young collections that follow (on the event loop, as the desk
#   draws) do not each walk the new state again.
#
# When the app ends its heap is thawed (:func:`thaw_heap`). The player view,
# which follows one save for its whole life, freezes its session's heap with it
# (:func:`freeze_heap` too).


def freeze_heap() -> None:
    """What the process has made so far is left out of every collection (the app once
    it is up; the player view once its one session is folded)."""
    gc.freeze()


def thaw_heap() -> None:
    """The app ends: its heap is collectable again (another app may run in the process)."""
    gc.unfreeze()


def settle_heap() -> None:
    """Before a session opens: the closed desk's and session's garbage, collected."""
    gc.collect()


@contextmanager
def folding() -> Iterator[None]:
    """Open a session with the collector off, then age what it made in one walk (the
    store's own pause, ``storage.gcpause.no_gc``, leaves the collector to this one:
    its way of ageing the new state would thaw the frozen heap)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.collect(1)
            gc.enable()


#: the newest rolls whose records are read while a session opens: more than a roll log
#: shows on any terminal a GM plays on
SHOWN_ROLLS = 200


def read_newest_rolls(session: Session) -> None:
    """In the worker, as a session opens: the records of the newest rolls, which the
    roll log draws first. A session opened from its checkpoint reads a roll's record
    from the log on first use; read here, the event loop never waits on that disk read
    when the desk first draws."""
    rolls = session.state.rolls
    for entry in rolls[max(0, len(rolls) - SHOWN_ROLLS) :]:
        _ = entry.record


@dataclass
class Job:
    """One call waiting for (or running in) the runner's worker."""

    work: Callable[[], Any]
    done: Callable[[Any], None] | None = None
    error: Callable[[str], None] | None = None
    owner: MessagePump | None = None  # callbacks are skipped once it is gone
    session: Session | None = None  # the session the call is for (None: no session needed)


def locked_text(path: Path, error: LockedError) -> str:
    """The GM's answer when ``path`` is open in another gmdesk: whose it is."""
    return f"{path.stem} is open in another gmdesk ({error.holder})"


class SessionRunner:
    """See the module docstring. ``app`` receives the runner's messages and hands
    :class:`Finished` back to :meth:`finished`."""

    class Finished(Message):
        """A call ran (in the worker); the runner calls its callbacks."""

        def __init__(self, job: Job, result: Any, error: str | None) -> None:
            super().__init__()
            self.job = job
            self.result = result
            self.error = error

    class Opened(Message):
        """``session`` (from ``path``) is open and is the runner's session
        (``readonly``: opened only to be read)."""

        def __init__(self, session: Session, path: Path, readonly: bool = False) -> None:
            super().__init__()
            self.session = session
            self.path = path
            self.readonly = readonly

    class OpenFailed(Message):
        """``path`` could not be opened: ``error`` says why, in one line; ``locked``:
        because another gmdesk has it open (it can still be opened read-only)."""

        def __init__(self, path: Path, error: str, locked: bool = False) -> None:
            super().__init__()
            self.path = path
            self.error = error
            self.locked = locked

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.session: Session | None = None
        self.lock = threading.Lock()  # held while a call runs, and by the final close
        self._queue: deque[Job] = deque()
        self._current: Job | None = None
        self._idle: list[Callable[[], object]] = []
        self._closing: list[Session] = []  # closes queued or under way
        self._ended = False
        #: why the last open failed, until the app has said it on screen (the app
        #: that ends first — end of input, a hang-up — says it on stderr instead)
        self.open_failure: str | None = None
        self.open_locked = False  # ... because another gmdesk has it open

    # -- submitting ------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A call is running or waiting."""
        return self._current is not None or bool(self._queue)

    def run(
        self,
        work: Callable[[], Any],
        done: Callable[[Any], None] | None = None,
        error: Callable[[str], None] | None = None,
        *,
        owner: MessagePump | None = None,
    ) -> None:
        """Run ``work()`` after the calls already queued (a store call: no session);
        then ``done(result)`` or ``error(message)`` on the event loop."""
        self._push(Job(work, done, error, owner))

    def submit(
        self,
        fn: Callable[[Session], Any],
        done: Callable[[Any], None] | None = None,
        error: Callable[[str], None] | None = None,
        *,
        owner: MessagePump | None = None,
        session: Session | None = None,
    ) -> None:
        """Run ``fn(session)`` for the open session (or ``session``) after the calls
        already queued; then ``done(result)`` or ``error(message)``."""
        target = session if session is not None else self.session
        if target is None:
            if error is not None:
                error(CLOSED)
            return
        self._push(Job(lambda: fn(target), done, error, owner, target))

    def when_idle(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` now if no call is pending, else right after them."""
        if self.busy:
            self._idle.append(callback)
        else:
            callback()

    # -- opening and closing ------------------------------------------------------------------

    def open(self, path: str | Path, *, readonly: bool = False) -> None:
        """Open ``path`` (after closing the session open now, if any); the app is told
        with :class:`Opened` or :class:`OpenFailed`."""
        self.close()
        path = Path(path)
        self.open_failure = None
        self.open_locked = False
        locked: list[bool] = []

        def work() -> Session | str:
            settle_heap()
            try:
                with folding():
                    session = Session.open(path, readonly=readonly)
            except LockedError as e:
                self.open_failure = locked_text(path, e)
                locked.append(True)
                self.open_locked = True
                return self.open_failure
            except GmdeskError as e:
                self.open_failure = str(e)
                return self.open_failure
            except OSError as e:
                self.open_failure = f"{path}: {e.strerror or e}"
                return self.open_failure
            self.session = session  # in the worker: the final close sees it even if the app ends now
            read_newest_rolls(session)
            return session

        def opened(result: Session | str) -> None:
            if isinstance(result, str):
                self.app.post_message(self.OpenFailed(path, result, bool(locked)))
            elif self.session is result:
                self.app.post_message(self.Opened(result, path, readonly))

        def failed(error: str) -> None:
            self.open_failure = error
            self.app.post_message(self.OpenFailed(path, error))

        self._push(Job(work, opened, failed))

    def close(self) -> None:
        """Close the open session (its checkpoint, compaction and lock) in the worker,
        after the calls queued for it; at once, the runner has no session."""
        session, self.session = self.session, None
        if session is None:
            return
        self._closing.append(session)

        def work() -> None:
            try:
                session.close()
            finally:
                if session in self._closing:
                    self._closing.remove(session)

        self._push(Job(work))

    def shutdown(self) -> None:
        """The final close, when the app ends: wait for the call under way, drop the
        ones waiting, close what is open. Idempotent."""
        self._ended = True
        self._queue.clear()
        with self.lock:
            left = [*self._closing, *([self.session] if self.session is not None else [])]
            self._closing.clear()
            self.session = None
            for session in left:
                try:
                    session.close()
                except GmdeskError as e:  # pragma: no cover - closing is best effort
                    self.app.log.error(f"closing the session: {e}")

    # -- the worker -----------------------------------------------------------------------------

    def _push(self, job: Job) -> None:
        if self._ended:
            return
        self._queue.append(job)
        self._pump()

    def _pump(self) -> None:
        if self._current is not None:
            return
        if not self._queue:
            callbacks, self._idle = self._idle, []
            for cb in callbacks:
                cb()
            return
        job = self._current = self._queue.popleft()
        self.app.run_worker(lambda: self._run(job), thread=True, group="session", exit_on_error=False)

    def _is_open(self, session: Session) -> bool:
        """Calls queued before its close still run (they were the GM's keys)."""
        return session is self.session or session in self._closing

    def _run(self, job: Job) -> None:
        """In the worker thread."""
        error = None
        result = None
        with self.lock:
            if job.session is not None and (self._ended or not self._is_open(job.session)):
                error = CLOSED
            else:
                try:
                    result = job.work()
                except GmdeskError as e:
                    error = ui_message(e)
                except OSError as e:
                    error = f"{str(e.filename) + ': ' if e.filename else ''}{e.strerror or e}"
                except Exception as e:  # a bug must not kill the GM's session
                    error = f"{type(e).__name__}: {e}"
                    self.app.log.error(f"session call failed: {e!r}")
        try:
            self.app.post_message(self.Finished(job, result, error))
        except Exception:  # pragma: no cover - the app has ended
            pass

    def finished(self, message: Finished) -> None:
        """On the event loop: the call's callbacks, what the session has to say, the
        next call."""
        job = message.job
        if job is not self._current:
            return
        self._current = None
        try:
            if job.owner is not None and not job.owner.is_attached:
                return
            if message.error is not None:
                if message.error == CLOSED and job.session is not None:
                    return  # the GM left that session: nothing to say about it
                if job.error is not None:
                    job.error(message.error)
                else:
                    self.say(message.error, error=True)
            elif job.done is not None:
                job.done(message.result)
            session = job.session
            if session is not None:
                for note in session.take_notices():  # e.g. a compaction that failed: said once
                    self.say(note, error=True)
        finally:
            self._pump()

    def say(self, message: str, *, error: bool = False) -> None:
        """Tell the GM (a notification; errors stay a little longer). Every toast the
        desk shows is said here; a refusal as a sentence, its first word capitalised
        unless it starts in lower case by design (:func:`~gmdesk.tui.wording.sentence`:
        one of the session's characters or groups, a system's id)."""
        if error:
            message = sentence(message, self._names())
        self.app.notify(
            message, severity="error" if error else "information", timeout=6 if error else 4, markup=False
        )  # names are text, never markup ("Sir [x] Knight")

    def _names(self) -> list[str]:
        """The open session's character names and group labels (a refusal may start with one)."""
        if self.session is None:
            return []
        characters = self.session.state.characters.values()
        return [c.name for c in characters] + [c.group for c in characters if c.group is not None]
