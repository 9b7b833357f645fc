"""One diagnosis as one asyncio program (issue 9 item 3), run by the runner's engine step.

The default plan is that one step (`default_plan`); `register_plans` registers it with
diagnosis.plans from DiagnosisConfig.ready().

1. Read the task, its incident and its environment; end the spans a dead attempt left open.
2. Borrow a demo environment's live listeners and its servers' sessions from the worker
   process's pools (diagnosis.engine.shared_listeners, diagnosis.engine.server_pool): a server
   another diagnosis of the process uses already is not started again.
3. Rounds: the planner names calls, the agents run them, the report is saved after each.
4. Actions a confirmed hypothesis calls for go through approval (the task may park here),
   then their effect is checked.
5. A stop watcher on its own database thread asks the runner's stop check
   (selectors.task_stop_reason) every STOP_POLL_SECONDS and cancels the program; in-flight
   calls are cancelled by mcpclient (notifications/cancelled, or closing the stream), open
   spans end `cancelled`, and the sessions are given back to the pool on the way out.
Database work runs on two threads of its own: one for writes, in order (events, spans, the
report), one for the stop check, so a cancel is never queued behind event writes.
"""

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC
from typing import Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

from diagnosis import db_retry, environments, lifecycle, plans, selectors, tracing
from diagnosis.endings import RunEnd, StopReason
from diagnosis.engine import agents, live, outcomes, planners, policy, server_pool
from diagnosis.engine.connecting import announced
from diagnosis.engine.executor import Executor, Parked, RunContext
from diagnosis.engine.sessions import DiagnosisSessions
from diagnosis.engine.steering import steer
from diagnosis.exceptions import LeaseLost, ValidationFailed
from diagnosis.models import DiagnosisTask, Incident
from diagnosis.observability import pool_status
from diagnosis.payloads import Emit
from diagnosis.plans import Step, StepContext
from diagnosis.registry import Environment
from reasoning.observations import IncidentBrief, Investigation
from reasoning.planner import Planner
from reasoning.report import ActionRecord, Report

logger = logging.getLogger(__name__)

T = TypeVar("T")
STOP_POLL_SECONDS = 0.2


class _DbThread:
    """A single thread with its own database connection; calls run in submission order.

    Every call goes through db_retry: a session the server ended or refused (a restart, a
    failover) is replaced and the call run again. A call that is not safe to run twice
    names a `committed` probe (see db_retry.call).
    """

    def __init__(self, name: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def __call__(
        self,
        fn: Callable[..., T],
        /,
        *args: Any,
        committed: Callable[[], T | None] | None = None,
        **kwargs: Any,
    ) -> T:
        loop = asyncio.get_running_loop()
        unit = functools.partial(fn, *args, **kwargs)
        what = getattr(fn, "__qualname__", None) or repr(fn)
        return await loop.run_in_executor(
            self._pool,
            functools.partial(db_retry.call, unit, what=what, committed=committed),
        )

    def close(self) -> None:
        self._pool.submit(_close_connection).result()  # that thread's own
        self._pool.shutdown(wait=True)


def _close_connection() -> None:
    with contextlib.suppress(DatabaseError):
        connection.close()


@dataclass
class StepHooks:
    """What the runner lends the engine: its emit, its stop check, its report."""

    task_id: str
    owner: str
    emit: Emit[None]
    stop_reason: Callable[[], StopReason | None]
    set_report: Callable[[Mapping[str, Any]], None]


def default_plan(plan_args: Mapping[str, Any]) -> list[Step]:
    """The diagnosis engine as one step; it takes no arguments.

    The step is the whole asyncio program: it saves its own progress (spans by replay key,
    the report as it grows), so a re-queued attempt runs it again without repeating calls.
    """

    def run(context: StepContext) -> RunEnd:
        # The engine's own threads do its database work; this thread only waits for it, so
        # it gives its session back meanwhile (a diagnosis then holds 3, not 4).
        connection.close()
        return run_diagnosis(
            StepHooks(
                task_id=context.task_id,
                owner=context.owner,
                emit=context.emit,
                stop_reason=context.stop_reason,
                set_report=context.set_report,
            )
        )

    return [Step(name="diagnose", run=run)]


def register_plans() -> None:
    """Register the default plan (DiagnosisConfig.ready() calls this once)."""
    plans.register_plan("default")(default_plan)


def run_diagnosis(hooks: StepHooks, *, planner: Planner | None = None) -> RunEnd:
    """Run the engine for the task to how it ended (the runner turns that into a state)."""
    writer, checker = _DbThread("diag-db"), _DbThread("diag-stop")
    try:
        return asyncio.run(
            _diagnose(
                hooks, writer, checker, planner or planners.planner_from_settings()
            )
        )
    finally:
        writer.close()
        checker.close()


async def _diagnose(
    hooks: StepHooks, db: _DbThread, checker: _DbThread, planner: Planner
) -> RunEnd:
    task = await db(_load_task, hooks.task_id)
    try:
        environment = await db(
            environments.environment_resolve,
            tenant=task.tenant,
            name=task.environment or None,
        )
    except ValidationFailed as exc:
        # The registry changed since the task was queued: say so, call nothing.
        reason = exc.fields.get("environment", str(exc))
        hooks.set_report(
            Report(summary=f"not diagnosed: {reason}", partial=False).to_dict()
        )
        return RunEnd.DONE
    # A write left open is now unknown_outcome: the executor asks its status before acting.
    await db(tracing.spans_abandon, task_id=task.pk, before_attempt=task.attempt)
    loop = asyncio.get_running_loop()
    task_left = (
        (task.deadline_at - timezone.now()).total_seconds()
        if task.deadline_at is not None
        else float(settings.DIAGNOSIS_DEADLINE_SECONDS)
    )
    budget = policy.Budget(
        max_calls=settings.DIAGNOSIS_MAX_TOOL_CALLS,
        deadline=loop.time() + min(settings.DIAGNOSIS_BUDGET_SECONDS, task_left),
        reserve=settings.DIAGNOSIS_DEADLINE_RESERVE_SECONDS,
        task_deadline=loop.time() + task_left,
    )

    async def emit(kind: str, data: Mapping[str, Any]) -> None:
        await db(hooks.emit, kind, data)

    run = RunContext(
        task_id=str(task.pk),
        incident_id=str(task.incident_id),
        owner=hooks.owner,
        attempt=task.attempt,
        tenant=task.tenant.slug,
        principal=task.principal,
        granted_scopes=frozenset(task.granted_scopes or ()),
        generation=task.generation,
        trace_id=task.trace_id,
        budget=budget,
        db=db,
        emit=emit,
    )
    incident = task.incident
    alert_labels = await db(selectors.incident_alert_labels, incident=incident)
    brief = incident_brief(incident, alert_labels)
    main = asyncio.current_task()
    assert main is not None
    stop_reason: list[StopReason] = []
    watcher = asyncio.create_task(_watch_stop(hooks, checker, main, stop_reason))
    report = Report()
    try:
        async with live.environment_live(environment) as bound:
            try:
                return await _investigate(run, bound, brief, planner, hooks, report)
            except Parked:
                return RunEnd.PARKED
    except asyncio.CancelledError:
        if not stop_reason:
            raise
        if stop_reason[0] is RunEnd.LEASE_LOST:
            # Lost, or given up by parking (the watcher may see the park before we return).
            return RunEnd.LEASE_LOST
        await asyncio.shield(db(_save_partial, hooks, run, report))
        return stop_reason[0]  # cancelled or timed_out
    except LeaseLost:
        return RunEnd.LEASE_LOST
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher


async def _investigate(
    run: RunContext,
    environment: Environment,
    brief: IncidentBrief,
    planner: Planner,
    hooks: StepHooks,
    report: Report,
) -> RunEnd:
    async with (
        DiagnosisSessions(environment, pool=_engine_pool(), tenant=run.tenant) as pool,
        announced(environment, pool, run.emit),  # the page's connecting phase
    ):
        tools, unavailable = await pool.tool_catalog()
        # The budget is for calling: servers that waited their turn to start (a burst of
        # incidents) do not eat it. The task's own deadline still bounds the whole run.
        run.budget.restart(
            asyncio.get_running_loop().time(), settings.DIAGNOSIS_BUDGET_SECONDS
        )
        investigation = Investigation(incident=brief, tools=tools)
        executor = Executor(run, pool, investigation)
        steered = [0]
        while run.budget.calls < run.budget.max_calls:
            # Notes people added meanwhile reach the planner here, before it plans the round.
            await steer(run, investigation, brief, seen=steered)
            calls = await planner.next_round(investigation)
            if not calls:
                break
            observed = await agents.run_round(
                executor, calls, round_no=investigation.round, emit=run.emit
            )
            investigation.observations.extend(observed)
            investigation.round += 1
            _replace(report, await planner.conclude(investigation), unavailable)
            await run.db(_save, run, report)
        _replace(report, await planner.conclude(investigation), unavailable)
        for index, action in enumerate(await planner.actions(investigation, report)):
            record = ActionRecord(
                server=action.server,
                tool=action.tool,
                target=str(action.arguments.get("name", "-")),
                status="proposed",
            )
            report.actions.append(record)
            await run.db(_save, run, report)
            # Saved as proposed (a park keeps that); from here the write may be in flight, so
            # a stop before the executor's answer leaves it unknown in the partial report.
            record.status = "unknown"
            record.reason = "the diagnosis stopped before the write's outcome was known"
            acted = await executor.execute(action, f"action.{index}")  # may park
            investigation.observations.append(acted)
            if acted.status_check is not None:
                investigation.observations.append(acted.status_check)
            outcome = outcomes.action_outcome(acted)
            outcome.apply(record, span_id=acted.span_id)
            if outcome.is_done:
                checks = await planner.verify(investigation, action)
                after = await agents.run_round(
                    executor,
                    checks,
                    round_no=investigation.round,
                    emit=run.emit,
                    label=f"verify.{index}",
                )
                investigation.observations.extend(after)
                investigation.round += 1
                record.effect = _effect(after)
        final = await planner.conclude(investigation)
        final.actions = report.actions
        _replace(report, final, unavailable)
        report.partial = False
        report.tool_calls = sum(1 for o in investigation.observations if not o.refused)
        hooks.set_report(report.to_dict())
        await run.db(_save, run, report)
        return RunEnd.DONE


def _engine_pool() -> server_pool.ServerPool:
    """This process's MCP session pool (made on first use), publishing its status."""
    return server_pool.process_pool(
        idle_seconds=settings.MCP_POOL_IDLE_SECONDS, publish=pool_status.publish
    )


def _replace(report: Report, new: Report, unavailable: Mapping[str, str]) -> None:
    actions = report.actions
    report.__dict__.update(new.__dict__)
    report.actions = actions or new.actions
    for server, why in sorted(unavailable.items()):
        note = (
            f"server {server} could not be reached, so its tools were not used: {why}"
        )
        if note not in report.open_questions:
            report.open_questions.append(note)


def _effect(observations: list[Any]) -> str:
    parts = []
    for o in observations:
        result = o.result if isinstance(o.result, dict) else {}
        if "verdict" in result:
            parts.append(f"{o.tool}: verdict {result['verdict']}")
        elif "failed_layer" in result:
            parts.append(f"{o.tool}: failed_layer={result.get('failed_layer')}")
        else:
            parts.append(f"{o.tool}: {'ok' if o.is_ok else 'failed'}")
    return "; ".join(parts) or "not checked"


async def _watch_stop(
    hooks: StepHooks,
    checker: _DbThread,
    main: "asyncio.Task[Any]",
    reason: list[StopReason],
) -> None:
    """Cancel the program once the task should stop (cancel, deadline, lost lease)."""
    while True:
        await asyncio.sleep(STOP_POLL_SECONDS)
        why = await checker(hooks.stop_reason)
        if why is not None:
            reason.append(why)
            main.cancel()
            return


def _load_task(task_id: str) -> DiagnosisTask:
    return DiagnosisTask.objects.select_related("incident", "tenant").get(pk=task_id)


def _save(run: RunContext, report: Report) -> None:
    if not lifecycle.diagnosis_report_save(
        task_id=run.task_id, owner=run.owner, report=report.to_dict()
    ):
        raise LeaseLost(run.task_id, run.owner)


def _save_partial(hooks: StepHooks, run: RunContext, report: Report) -> None:
    hooks.set_report(report.to_dict())
    lifecycle.diagnosis_report_save(
        task_id=run.task_id, owner=run.owner, report=report.to_dict()
    )


def incident_brief(
    incident: Incident, alert_labels: Mapping[str, str]
) -> IncidentBrief:
    """What the reasoning sees of an incident: its text, window, description and labels (those
    its alert groups share now, overridden by the incident's own: an alert's common labels or
    its author's)."""
    own = incident.labels if isinstance(incident.labels, dict) else {}
    labels = {
        **alert_labels,
        **{str(k): str(v) for k, v in own.items() if v},
    }
    return IncidentBrief(
        title=incident.title,
        service=incident.service,
        severity=incident.severity,
        symptoms=tuple(
            line.strip() for line in incident.symptoms.splitlines() if line.strip()
        ),
        window_start=_iso(incident.window_start),
        window_end=_iso(incident.window_end),
        labels=tuple(sorted(labels.items())),
        description=incident.description,
    )


def _iso(value: Any) -> str | None:
    return (
        None
        if value is None
        else value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    )
