"""Checkpoints: save and restore a fold so that a long log opens without replaying it
all (a replay from scratch stays the reference)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from gmdesk.core.errors import GmdeskError
from gmdesk.core.session.events.fold import Fold
from gmdesk.core.session.events.records import detached_copy, revert_detached
from gmdesk.core.session.events.seqstack import SeqStack
from gmdesk.core.session.model.rolls import RecordLoader

#: Version of the checkpoint form (:func:`fold_checkpoint`); bump it when it changes.
#: 2: a character row ends with its system fields; 3: a condition keeps its until;
#: 4: a pin; 5: an initiative group's label; 6: its counters; 7: the roll log's older
#: entries as packed pages (``roll_pages``); 8: a character row ends with what the
#: players see of it (its visibility level, None for its side's default)
CHECKPOINT_VERSION = 8


@lru_cache(maxsize=1)
def fold_fingerprint() -> str:
    """What the fold's result depends on: the checkpoint version and the source of
    the code and data that fold a log (this package, the model, records, sheets,
    tables, the systems). A checkpoint written by any other gmdesk is not used:
    a fix to a rule takes effect at the next open, by replaying the log (and
    :func:`system_fingerprint` does the same for a plug-in system's session)."""
    import hashlib

    core = Path(__file__).resolve().parent.parent.parent
    h = hashlib.sha256(f"gmdesk-fold {CHECKPOINT_VERSION}".encode())
    files = sorted((core / "session" / "events").glob("*.py"))
    files += sorted((core / "session" / "model").glob("*.py"))
    files += [core / "dice.py", core / "tables.py"]
    files += sorted((core / "sheet").glob("*.py"))
    files += sorted((core / "systems").glob("*.py")) + sorted((core / "data").glob("*.json"))
    for f in files:
        name = f.relative_to(core).as_posix().encode()
        try:
            h.update(name + b"\0" + f.read_bytes())
        except OSError:
            h.update(name + b"\0?")
    return h.hexdigest()


def system_fingerprint(system: str) -> str:
    """What the fold depends on besides gmdesk for a session of ``system``: a plug-in
    system's module (its ``HARM`` decides what a roll does), "" for a built-in one or
    one that does not load. A checkpoint written beside another version of the
    plug-in is not used."""
    import hashlib

    from gmdesk.core.systems import BUILTIN_IDS, get_spec

    if system in BUILTIN_IDS:
        return ""
    try:
        path = get_spec(system).source_file
        return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""
    except (GmdeskError, ValueError, OSError):
        return ""


def _runs(seqs: list[int]) -> list[list[int]]:
    """[1, 2, 3, 7, 8] -> [[1, 3], [7, 8]] (the done stack is mostly runs)."""
    out: list[list[int]] = []
    for s in seqs:
        if out and s == out[-1][1] + 1:
            out[-1][1] = s
        else:
            out.append([s, s])
    return out


def fold_checkpoint(fold: Fold, keep: int, skipped: list[str] | None = None, seq: int | None = None) -> dict[str, Any]:
    """What a fold must remember to be rebuilt without replaying its whole log.

    The state is written as it was *before* the latest ``keep`` undoable events (their
    inverses are taken back on a detached copy); reopening applies those events again
    from the log, which gives the state, and their inverses, exactly: undo and redo
    right after reopening behave as if the session had never been closed. An undo
    that goes further back makes the session replay its log once (see Fold._undo).
    ``skipped``: the warnings of events the fold refused when it replayed the log;
    ``seq``: the last event of the log the fold has seen (default: its last applied)."""
    from gmdesk.core.session.model import checkpoint_json

    done = fold.done
    k = 0
    # (the newest ``keep`` taken once, newest first: an index into the stack walks it)
    newest = done[len(done) - min(keep, len(done)) :]
    newest.reverse()
    for undoable in newest:
        if undoable not in fold.inverses:
            break
        k += 1
    state = fold.state
    if k:
        state = detached_copy(state)
        for undoable in reversed(done[len(done) - k :]):
            revert_detached(state, fold.inverses[undoable])
    return {
        "seq": fold.last_seq if seq is None else seq,
        "last_seq": fold.last_seq,
        "state": checkpoint_json(state),
        "done": done.runs() if isinstance(done, SeqStack) else _runs(list(done)),
        "reapply": k,
        "undone": list(fold.undone),
        "last_played": fold.state.info.last_played,
        "skipped": list(skipped or ()),
    }


def fold_from_checkpoint(
    d: Mapping[str, Any],
    source: Callable[[int], Mapping[str, Any]],
    load_record: RecordLoader,
    header: Mapping[str, Any] | None = None,
) -> Fold:
    """The fold :func:`fold_checkpoint` described, as of its ``seq``. ``source(seq)`` gives
    a stored event; ``load_record(seq, kind, j)`` the record a roll entry refers to;
    ``header`` the log's header (the session's name and creation time come from it,
    as in a replay). Raises (EventError, KeyError, TypeError, ValueError, IndexError)
    when the checkpoint does not fit the log; the caller then replays the log instead."""
    from gmdesk.core.session.model import state_from_checkpoint

    fold = Fold(state_from_checkpoint(d["state"], load_record))
    if header is not None:
        fold.state.info.name = str(header.get("name", ""))
        fold.state.info.created = str(header.get("created", ""))
    fold.source = source
    done = SeqStack.from_runs(d["done"])
    k = d["reapply"]
    undone = d["undone"]
    if type(k) is not int or not 0 <= k <= len(done) or not all(type(x) is int for x in undone):
        raise ValueError("bad undo stacks")
    again = [done.pop() for _ in range(k)]
    fold.done = done
    for seq in reversed(again):
        fold._reapply(seq)
        fold.done.append(seq)
    fold.undone = list(undone)
    fold.last_seq = int(d["last_seq"])
    fold.state.info.last_played = str(d["last_played"])
    return fold
