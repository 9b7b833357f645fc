"""Which planner a diagnosis uses: the LLM planner when an LLM API is configured, else the layered one.

Call `planner_from_settings()` once per diagnosis: the LLM planner holds its conversation.
"""

from django.conf import settings

from reasoning.planner import Planner


def planner_from_settings() -> Planner:
    """LLMPlanner (falling back to the layered planner) when LLM_BASE_URL and LLM_MODEL are set."""
    # Imported here: the layered planner's module is large, and the LLM one pulls in httpx.
    from reasoning.layered import LayeredPlanner

    layered = LayeredPlanner(stream_watch_s=settings.DIAGNOSIS_STREAM_WATCH_SECONDS)
    if not (settings.LLM_BASE_URL and settings.LLM_MODEL):
        return layered
    from reasoning.llm_planner import LLMPlanner

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
