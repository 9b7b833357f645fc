"""The deterministic layered planner: a differential diagnosis over an Investigation, layer by layer."""

from reasoning.layered.planner import LayeredPlanner

__all__ = ["LayeredPlanner"]
