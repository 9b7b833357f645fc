"""Which planner a diagnosis uses: the LLM planner when an LLM API is configured, else the layered one.

Call `planner_from_settings()` once per diagnosis: the LLM planner holds its conversation.
"""

from typing import TYPE_CHECKING, Protocol

from django.conf import settings

from diagnosis.engine.observations import Investigation, PlannedCall, Planner
from diagnosis.engine.report import Report

if TYPE_CHECKING:
    from diagnosis.engine.layered import LayeredPlanner
    from diagnosis.engine.llm_planner import LLMPlanner


class AsyncPlanner(Protocol):
    """A `Planner` whose methods are coroutines (it does I/O): the engine awaits them."""

    async def next_round(self, investigation: Investigation) -> list[PlannedCall]: ...

    async def conclude(self, investigation: Investigation) -> Report: ...

    async def actions(
        self, investigation: Investigation, report: Report
    ) -> list[PlannedCall]: ...

    async def verify(
        self, investigation: Investigation, action: PlannedCall
    ) -> list[PlannedCall]: ...


AnyPlanner = Planner | AsyncPlanner


def planner_from_settings() -> "LLMPlanner | LayeredPlanner":
    """LLMPlanner (falling back to the layered planner) when LLM_BASE_URL and LLM_MODEL are set."""
    # Imported here: the layered planner's module is large, and the LLM one pulls in httpx.
    from diagnosis.engine.layered import LayeredPlanner

    layered = LayeredPlanner(stream_watch_s=settings.DIAGNOSIS_STREAM_WATCH_SECONDS)
    if not (settings.LLM_BASE_URL and settings.LLM_MODEL):
        return layered
    from diagnosis.engine.llm_planner import LLMPlanner

    return LLMPlanner(
        base_url=settings.LLM_BASE_URL,
        model=settings.LLM_MODEL,
        api_key=settings.LLM_API_KEY,
        max_steps=settings.LLM_MAX_STEPS,
        max_tokens=settings.LLM_MAX_TOKENS,
        timeout_s=settings.LLM_TIMEOUT_SECONDS,
        max_seconds=settings.DIAGNOSIS_BUDGET_SECONDS,
        fallback=layered,
    )
