"""The fold's stack of undoable events is a list of event numbers to its users,
kept as runs (a million undoable rolls take a few bytes)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gmdesk.core.session.events.seqstack import SeqStack


@given(st.lists(st.tuples(st.booleans(), st.integers(1, 3))))
def test_a_stack_behaves_as_the_list_it_stands_in_for(moves):
    stack, plain, top = SeqStack(), [], 0
    for push, gap in moves:
        if push or not plain:
            top += gap
            stack.append(top)
            plain.append(top)
        else:
            assert stack.pop() == plain.pop()
    assert stack == plain and plain == stack and len(stack) == len(plain) and list(stack) == plain
    for i in range(-len(plain), len(plain)):
        assert stack[i] == plain[i]
    for k in range(len(plain) + 2):
        assert stack[-k:] == plain[-k:] and stack[: len(plain) - k] == plain[: len(plain) - k]
    assert SeqStack.from_runs(stack.runs()) == plain
    with pytest.raises(IndexError):
        stack[len(plain)]


def test_a_run_of_consecutive_events_takes_one_pair():
    stack = SeqStack(range(1, 1_000_001))
    assert stack.runs() == [[1, 1_000_000]] and len(stack) == 1_000_000
    assert stack[-1] == 1_000_000 and stack[-200:] == list(range(999_801, 1_000_001))
    with pytest.raises(ValueError):
        SeqStack.from_runs([[5, 3]])
