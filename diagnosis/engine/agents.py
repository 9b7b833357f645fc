"""Agents: a round's calls grouped by agent (metrics, logs, network, runbook …), run concurrently.

Every call of the round is queued first (tool_queued, in the planned order, unless a replay
answers it), so the page lists the whole round before any call waits for a slot. Then each
agent reports agent_started and agent_completed; its calls run at most AGENT_CONCURRENCY at a
time, and the agents of a round run side by side. The order of the observations is the order
of the planned calls, whatever order they finish in, so a replayed attempt sees exactly what
the first one saw.
"""

import asyncio
from collections.abc import Awaitable, Sequence

from diagnosis import failures
from diagnosis.engine.executor import Executor, Parked
from diagnosis.events import EventKind
from diagnosis.payloads import Emit
from reasoning.observations import Observation, PlannedCall

AGENT_CONCURRENCY = 4


async def run_round(
    executor: Executor,
    calls: Sequence[PlannedCall],
    *,
    round_no: int,
    emit: Emit[Awaitable[None]],
    label: str | None = None,
) -> list[Observation]:
    """Run one round of calls; the observations come back in the order of `calls`."""
    prefix = label or f"r{round_no}"
    by_agent: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        by_agent.setdefault(call.agent, []).append(index)
    results: list[Observation | None] = [None] * len(calls)
    queued = [
        await executor.queue(call, f"{prefix}.{index}")
        for index, call in enumerate(calls)
    ]

    async def agent(name: str, indexes: list[int]) -> None:
        await emit(
            EventKind.AGENT_STARTED,
            {"agent": name, "round": round_no, "calls": len(indexes)},
        )
        bound = asyncio.Semaphore(AGENT_CONCURRENCY)

        async def one(index: int) -> None:
            async with bound:
                results[index] = await executor.run(queued[index])

        async with asyncio.TaskGroup() as group:
            for index in indexes:
                group.create_task(one(index))
        failed = sum(
            1 for i in indexes if (r := results[i]) is not None and not r.is_ok
        )
        await emit(
            EventKind.AGENT_COMPLETED,
            {"agent": name, "round": round_no, "calls": len(indexes), "failed": failed},
        )

    try:
        async with asyncio.TaskGroup() as group:
            for name, indexes in by_agent.items():
                group.create_task(agent(name, indexes))
    except BaseExceptionGroup as error:
        # A call that waits for a person (a tool the registry puts behind approval) parks the
        # task as an action's approval does: the round's other calls are cancelled with it and
        # replayed or asked again when the task resumes. Anything else is the round's failure.
        raised = failures.leaves(error)
        parked = [e for e in raised if isinstance(e, Parked)]
        if parked and all(
            isinstance(e, Parked | asyncio.CancelledError) for e in raised
        ):
            raise parked[0] from None
        raise
    return [r for r in results if r is not None]
