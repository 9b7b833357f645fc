"""The diagnosis task state machine: the one table of allowed moves (DESIGN §4).

    queued ──▶ running ──▶ succeeded
      │          │  ▲ └──▶ failed | timed_out
      │          ▼  │
      │   waiting_approval
      │          │
      ├──────────┴──▶ cancelling ──▶ cancelled
      └──▶ cancelled                (running → queued: lease expired, attempt < max)

Pure Python, no queries: `lifecycle.diagnosis_transition` applies a move as a conditional UPDATE.
"""

from django.db import models

from diagnosis.exceptions import InvalidTransition


class TaskState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    WAITING_APPROVAL = "waiting_approval"
    CANCELLING = "cancelling"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"


S = TaskState

ALLOWED_TRANSITIONS: dict[TaskState, frozenset[TaskState]] = {
    S.QUEUED: frozenset({S.RUNNING, S.CANCELLED}),
    S.RUNNING: frozenset(
        {S.SUCCEEDED, S.FAILED, S.TIMED_OUT, S.WAITING_APPROVAL, S.CANCELLING, S.QUEUED}
    ),
    S.WAITING_APPROVAL: frozenset(
        {S.RUNNING, S.CANCELLING, S.FAILED, S.TIMED_OUT, S.QUEUED}
    ),
    S.CANCELLING: frozenset({S.CANCELLED}),
    S.SUCCEEDED: frozenset(),
    S.FAILED: frozenset(),
    S.CANCELLED: frozenset(),
    S.TIMED_OUT: frozenset(),
}

TERMINAL: frozenset[TaskState] = frozenset(
    state for state, moves in ALLOWED_TRANSITIONS.items() if not moves
)
ACTIVE: frozenset[TaskState] = frozenset(TaskState) - TERMINAL
# States in which a worker holds a lease that the reaper watches.
LEASED: frozenset[TaskState] = frozenset({S.RUNNING, S.WAITING_APPROVAL, S.CANCELLING})


def is_terminal(state: str) -> bool:
    return TaskState(state) in TERMINAL


def check_transition(src: str, dst: str) -> None:
    """Raise InvalidTransition unless the table allows src → dst."""
    source, target = TaskState(src), TaskState(dst)
    if target not in ALLOWED_TRANSITIONS[source]:
        raise InvalidTransition(source, target)
