"""The state table on its own: exhaustive over every pair of states."""

import itertools

import pytest

from diagnosis.exceptions import InvalidTransition
from diagnosis.states import ALLOWED_TRANSITIONS, TERMINAL, TaskState, check_transition

PAIRS = list(itertools.product(TaskState, TaskState))


@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_check_transition_follows_the_table(src, dst):
    if dst in ALLOWED_TRANSITIONS[src]:
        check_transition(src, dst)
    else:
        with pytest.raises(InvalidTransition):
            check_transition(src, dst)


def test_terminal_states_are_exactly_the_four_ends():
    assert {
        TaskState.SUCCEEDED,
        TaskState.FAILED,
        TaskState.CANCELLED,
        TaskState.TIMED_OUT,
    } == TERMINAL


def test_every_state_reaches_a_terminal_state():
    for start in TaskState:
        seen, frontier = {start}, [start]
        while frontier:
            for nxt in ALLOWED_TRANSITIONS[frontier.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        assert seen & TERMINAL, start


def test_unknown_state_name_is_rejected():
    with pytest.raises(ValueError):
        check_transition("queued", "exploded")
