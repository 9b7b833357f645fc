"""diagnosis.engine.planners: which planner a diagnosis uses, from the Django settings."""

from diagnosis.engine.planners import planner_from_settings
from reasoning.layered import LayeredPlanner
from reasoning.llm_planner import LLMPlanner


def test_planner_from_settings(settings):
    settings.LLM_BASE_URL, settings.LLM_MODEL = "", ""
    assert isinstance(planner_from_settings(), LayeredPlanner)
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1/"
    settings.LLM_MODEL = "some-model"
    settings.LLM_API_KEY = "k"
    settings.LLM_MAX_STEPS = 5
    planner = planner_from_settings()
    assert isinstance(planner, LLMPlanner)
    assert planner.url == "http://127.0.0.1:9/v1/chat/completions"
    assert planner.max_steps == 5 and isinstance(planner.fallback, LayeredPlanner)
