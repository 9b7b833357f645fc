"""Steering, as the planner sees it: before each round, what people added to the task
(diagnosis.steering) is read and put on the investigation, and the read recorded once per change.

Notes join the incident's words (a note naming a service may turn the next round to it), a
corrected service replaces the incident's, and excluded hypotheses are ruled out by the planner.
"""

import dataclasses

from diagnosis import steering
from diagnosis.engine.executor import RunContext
from diagnosis.events import EventKind
from reasoning.observations import IncidentBrief, Investigation


async def steer(
    run: RunContext,
    investigation: Investigation,
    brief: IncidentBrief,
    *,
    seen: list[int],
) -> None:
    """Give the planner the task's steering context before it plans `investigation.round`.

    `seen` holds the last steering seq read (one cell, kept by the caller across rounds); a
    `steering_read` event is emitted only when something new was read.
    """
    context = await run.db(steering.task_steering, task_id=run.task_id)
    investigation.incident = dataclasses.replace(
        brief,
        service=context.service or brief.service,
        notes=context.notes,
    )
    investigation.excluded = context.excluded
    if context.last_seq == seen[0]:
        return
    seen[0] = context.last_seq
    await run.emit(
        EventKind.STEERING_READ,
        {
            "round": investigation.round,
            "seq": context.last_seq,
            "notes": len(context.notes),
            "excluded": sorted(context.excluded),
            "service": investigation.incident.service,
        },
    )
