"""Plans: the ordered steps a diagnosis runs. The engine registers its plans here.

A plan is a function `(task) -> list[Step]`. A Step has a name and a callable that receives a
StepContext; it may emit events through the context and must return promptly when
`context.should_stop()` turns true. Steps must be safe to run again: a task whose worker died
resumes at its checkpoint, so the step that was running when it died runs a second time.
"""

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from diagnosis.events import EventKind


class StepContext(Protocol):
    task_id: str
    plan_args: Mapping[str, Any]

    def emit(self, kind: str, data: Mapping[str, Any] | None = None) -> None: ...
    def should_stop(self) -> bool: ...
    def set_report(self, report: Mapping[str, Any]) -> None: ...


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[StepContext], None]
    data: Mapping[str, Any] = field(default_factory=dict)


PlanFactory = Callable[[Mapping[str, Any]], list[Step]]

_PLANS: dict[str, PlanFactory] = {}


class UnknownPlan(LookupError):
    pass


def register_plan(name: str) -> Callable[[PlanFactory], PlanFactory]:
    def decorate(factory: PlanFactory) -> PlanFactory:
        _PLANS[name] = factory
        return factory

    return decorate


def plan_names() -> list[str]:
    return sorted(_PLANS)


def build_plan(name: str, plan_args: Mapping[str, Any]) -> list[Step]:
    try:
        factory = _PLANS[name]
    except KeyError:
        raise UnknownPlan(name) from None
    return factory(plan_args)


def _sleep_step(seconds: float) -> Callable[[StepContext], None]:
    def run(context: StepContext) -> None:
        # Sleep in slices so a cancel or a lost lease is noticed within 50 ms.
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if context.should_stop():
                return
            time.sleep(min(left, 0.05))

    return run


@register_plan("timed")
def timed_plan(plan_args: Mapping[str, Any]) -> list[Step]:
    """A plan of timed steps, each reported as an agent run; used by tests and the demo.

    plan_args: {"steps": [seconds, …]} (default three steps of 0.5 s), {"fail_at": index}.
    It calls no tool and claims no diagnosis: its report says exactly that.
    """
    durations = [float(s) for s in plan_args.get("steps", [0.5, 0.5, 0.5])]
    fail_at = plan_args.get("fail_at")
    steps: list[Step] = []
    for index, seconds in enumerate(durations):
        sleep = _sleep_step(seconds)

        def run(
            context: StepContext,
            index: int = index,
            sleep: Callable[[StepContext], None] = sleep,
        ) -> None:
            context.emit(EventKind.AGENT_STARTED, {"agent": f"step-{index}"})
            sleep(context)
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


# Until the diagnosis engine registers "default", the default plan is the timed plan.
register_plan("default")(timed_plan)
