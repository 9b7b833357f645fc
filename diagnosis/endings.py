"""How a run ended: the one vocabulary of the runner, the engine and the stop check, and the
one table from it to the task's terminal state and error fields. Pure: no ORM, no queries.

A step (the engine's, for the default plan) returns how it ended, or None to go on; the stop
check (`selectors.task_stop_reason`) answers in the same words; the runner turns the word into
the task's end through ENDINGS and nothing else.
"""

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from diagnosis.failures import DEADLINE, ENGINE, Failure
from diagnosis.states import TaskState


class RunEnd(StrEnum):
    DONE = "done"  # the plan ran to its end: succeeded
    CANCELLED = "cancelled"  # a cancel was asked for
    TIMED_OUT = "timed_out"  # the task's deadline passed
    FAILED = "failed"  # a step raised: the failure's own layer, code and message
    LEASE_LOST = "lease_lost"  # the lease is another's (the reaper re-queued the task)
    PARKED = "parked"  # waiting for a person's approval, the lease released


# What `task_stop_reason` answers: why a run must stop now.
StopReason = Literal[RunEnd.LEASE_LOST, RunEnd.CANCELLED, RunEnd.TIMED_OUT]

DEADLINE_PASSED = Failure(DEADLINE, "deadline_exceeded", "the task's deadline passed")


@dataclass(frozen=True)
class Ending:
    # None: the run is over but the task is not its to end (another worker's, or parked).
    state: TaskState | None
    # The task's error fields, unless the cause names its own (a step's failure).
    error: Failure | None
    # Why a span still open ends with the task, unless the task's error says more.
    open_span: Failure


ENDINGS: dict[RunEnd, Ending] = {
    RunEnd.DONE: Ending(
        TaskState.SUCCEEDED,
        None,
        Failure(ENGINE, "not_ended", "the diagnosis ended before this call"),
    ),
    RunEnd.CANCELLED: Ending(
        TaskState.CANCELLED,
        None,
        Failure(ENGINE, "cancelled", "the diagnosis was cancelled"),
    ),
    RunEnd.TIMED_OUT: Ending(TaskState.TIMED_OUT, DEADLINE_PASSED, DEADLINE_PASSED),
    RunEnd.FAILED: Ending(
        TaskState.FAILED, None, Failure(ENGINE, "failed", "the diagnosis failed")
    ),
    RunEnd.LEASE_LOST: Ending(
        None, None, Failure(ENGINE, "failed", "the diagnosis failed")
    ),
    RunEnd.PARKED: Ending(
        None, None, Failure(ENGINE, "failed", "the diagnosis failed")
    ),
}

# The run end of each terminal state (a task that ended meanwhile, e.g. by the reaper).
STATE_ENDS: dict[TaskState, RunEnd] = {
    ending.state: end for end, ending in ENDINGS.items() if ending.state is not None
}
