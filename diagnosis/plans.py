"""Plans: the ordered steps a diagnosis runs, and the registry of plans.

This module imports no engine: the engine registers the default plan from
`DiagnosisConfig.ready()` (diagnosis.apps → diagnosis.engine.runtime.register_plans).

A plan is a factory `(plan_args) -> list[Step]` registered with a check of its arguments
(`plan_args` is caller input: a JSON object, checked for type and bounds before any row is
made, and again by `build_plan` before the worker runs it). A test-only plan (the `timed` plan
of sleeps) is offered by the API and the pages only where settings.DIAGNOSIS_TEST_PLANS is on;
the service layer takes it always. A Step has a name and a callable that receives a
StepContext; it may emit events through the context and must return promptly when
`context.should_stop()` turns true. It returns None to go on, or how the run ended
(diagnosis.endings.RunEnd) when it knows. Steps must be safe to run again: a task whose worker died
resumes at its checkpoint, so the step that was running when it died runs a second time.
"""

import math
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from diagnosis import tracing
from diagnosis.bounds import json_error
from diagnosis.endings import RunEnd, StopReason
from diagnosis.events import EventKind
from diagnosis.models import SpanState, ToolCallSpan
from diagnosis.payloads import Emit


class StepContext(Protocol):
    task_id: str
    plan_args: Mapping[str, Any]
    owner: str
    attempt: int
    lease_lost: threading.Event

    @property
    def emit(self) -> Emit[None]: ...
    def should_stop(self) -> bool: ...
    def stop_reason(self) -> StopReason | None: ...
    def set_report(self, report: Mapping[str, Any]) -> None: ...


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[StepContext], RunEnd | None]
    data: Mapping[str, Any] = field(default_factory=dict)


PlanFactory = Callable[[Mapping[str, Any]], list[Step]]
# Returns why the arguments are refused (naming the key), or None; never raises.
ArgsCheck = Callable[[Mapping[str, Any]], str | None]


class UnknownPlan(LookupError):
    pass


class InvalidPlanArgs(ValueError):
    pass


def no_args(plan_args: Mapping[str, Any]) -> str | None:
    """The check of a plan that takes no arguments."""
    return (
        f"unknown key {sorted(plan_args)[0]!r}; this plan takes none"
        if plan_args
        else None
    )


@dataclass(frozen=True)
class _Plan:
    factory: PlanFactory
    check_args: ArgsCheck
    is_test_only: bool


_PLANS: dict[str, _Plan] = {}


def register_plan(
    name: str, *, check_args: ArgsCheck = no_args, is_test_only: bool = False
) -> Callable[[PlanFactory], PlanFactory]:
    def decorate(factory: PlanFactory) -> PlanFactory:
        _PLANS[name] = _Plan(factory, check_args, is_test_only)
        return factory

    return decorate


def plan_names(*, include_test_only: bool = False) -> list[str]:
    """Names of the registered plans; test-only ones only when asked for."""
    return sorted(
        n for n, p in _PLANS.items() if include_test_only or not p.is_test_only
    )


def plan_errors(
    plan: Any, plan_args: Any, *, include_test_only: bool
) -> dict[str, str]:
    """{"plan" | "plan_args": reason} for a plan name and arguments a caller sent; {} if good."""
    known = plan_names(include_test_only=include_test_only)
    if not isinstance(plan, str) or plan not in known:
        return {"plan": f"unknown plan; one of {', '.join(known)}"}
    if not isinstance(plan_args, dict):
        return {"plan_args": "must be a JSON object"}
    if (reason := json_error(plan_args)) is not None:
        return {"plan_args": reason}
    try:
        reason = _PLANS[plan].check_args(plan_args)
    except Exception as exc:  # a check that raises refuses, never crashes its caller
        reason = f"not accepted ({type(exc).__name__})"
    return {"plan_args": reason} if reason else {}


def build_plan(name: str, plan_args: Mapping[str, Any]) -> list[Step]:
    """The steps of a plan, its arguments checked first.

    Raises:
        UnknownPlan: no plan has that name.
        InvalidPlanArgs: the arguments are refused (a row written before they were checked).
    """
    try:
        plan = _PLANS[name]
    except KeyError:
        raise UnknownPlan(name) from None
    errors = plan_errors(name, plan_args, include_test_only=True)
    if errors:
        raise InvalidPlanArgs(errors["plan_args"])
    return plan.factory(plan_args)


def _sleep_step(seconds: float) -> Callable[[StepContext], None]:
    def run(context: StepContext) -> None:
        # Sleep in slices so a cancel or a lost lease is noticed within 50 ms.
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if context.should_stop():
                return
            time.sleep(min(left, 0.05))

    return run


TIMED_MAX_STEPS = 50
TIMED_MAX_STEP_SECONDS = 60.0
TIMED_MAX_TOTAL_SECONDS = 300.0
_TIMED_DEFAULT_STEPS = (0.5, 0.5, 0.5)


def _is_number(value: Any) -> bool:
    # bool is an int to Python, not a number to a caller writing JSON.
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


def timed_args_error(plan_args: Mapping[str, Any]) -> str | None:
    """The check of the timed plan's arguments (see timed_plan)."""
    unknown = sorted(set(plan_args) - {"steps", "fail_at", "spans"})
    if unknown:
        return (
            f"unknown key {unknown[0]!r}; the timed plan takes steps, fail_at and spans"
        )
    if not isinstance(plan_args.get("spans", False), bool):
        return "spans must be true or false"
    steps = plan_args.get("steps", list(_TIMED_DEFAULT_STEPS))
    if not isinstance(steps, list) or not 1 <= len(steps) <= TIMED_MAX_STEPS:
        return f"steps must be a list of 1 to {TIMED_MAX_STEPS} durations in seconds"
    if not all(_is_number(s) and 0 <= s <= TIMED_MAX_STEP_SECONDS for s in steps):
        return f"steps: each a number of seconds from 0 to {TIMED_MAX_STEP_SECONDS:g}"
    if sum(steps) > TIMED_MAX_TOTAL_SECONDS:
        return f"steps: at most {TIMED_MAX_TOTAL_SECONDS:g} seconds in all"
    fail_at = plan_args.get("fail_at")
    if isinstance(fail_at, float) and fail_at.is_integer():
        fail_at = int(fail_at)  # 0.0 is an integer to JSON Schema
    if fail_at is not None and not (
        isinstance(fail_at, int)
        and not isinstance(fail_at, bool)
        and 0 <= fail_at < len(steps)
    ):
        return f"fail_at must be a step index from 0 to {len(steps) - 1}"
    return None


@register_plan("timed", check_args=timed_args_error, is_test_only=True)
def timed_plan(plan_args: Mapping[str, Any]) -> list[Step]:
    """A plan of timed steps, each reported as an agent run; for tests (test-only).

    plan_args: {"steps": [seconds, …]} (default three steps of 0.5 s; bounds in
    timed_args_error), {"fail_at": index}, {"spans": true}: each step is also written as a
    ToolCallSpan, started before its sleep and finished after it, the trace writes of one tool
    call (for tests of those writes racing others). It calls no tool and claims no diagnosis:
    its report says exactly that.
    """
    durations = [float(s) for s in plan_args.get("steps", _TIMED_DEFAULT_STEPS)]
    fail_at = plan_args.get("fail_at")
    has_spans = plan_args.get("spans") is True
    steps: list[Step] = []
    for index, seconds in enumerate(durations):
        sleep = _sleep_step(seconds)

        def run(
            context: StepContext,
            index: int = index,
            sleep: Callable[[StepContext], None] = sleep,
        ) -> None:
            context.emit(EventKind.AGENT_STARTED, {"agent": f"step-{index}"})
            span = _timed_span(context, index) if has_spans else None
            sleep(context)
            if span is not None:
                tracing.span_finish(span=span, state=SpanState.OK, latency_ms=0.0)
            if context.should_stop():
                return  # interrupted: the runner records why; the step did not complete
            if fail_at == index:
                raise RuntimeError(f"step {index} failed on purpose (fail_at)")
            context.emit(EventKind.AGENT_COMPLETED, {"agent": f"step-{index}"})

        steps.append(Step(name=f"step-{index}", run=run, data={"seconds": seconds}))

    def report(context: StepContext) -> None:
        context.set_report(
            {
                "summary": f"timed plan: {len(durations)} steps ran; no tools were called",
                "hypotheses": [],
            }
        )

    steps.append(Step(name="report", run=report))
    return steps


def _timed_span(context: StepContext, index: int) -> ToolCallSpan:
    return tracing.span_start(
        task_id=context.task_id,
        span_id=secrets.token_hex(8),
        attempt=context.attempt,
        agent=f"step-{index}",
        server_name="timed",
        transport="",
        tool_name="sleep",
        arguments_redacted={"step": index},
        arguments_hash="",
        replay_key=f"timed.{index}.{context.attempt}",
        deadline=None,
        principal="",
        granted_scopes=[],
    )
