"""The one Planner protocol: what the engine asks a planner, each answer awaited.

Both planners implement it (`reasoning.layered.LayeredPlanner`, pure, and
`reasoning.llm_planner.LLMPlanner`, which does I/O); the engine's runtime awaits every answer.
"""

from typing import Protocol

from reasoning.observations import Investigation, PlannedCall
from reasoning.report import Report


class Planner(Protocol):
    """Decides the calls; the engine runs them, checks them and traces them."""

    async def next_round(self, investigation: Investigation) -> list[PlannedCall]:
        """The next calls to run (concurrently); [] when there is nothing more worth asking."""
        ...

    async def conclude(self, investigation: Investigation) -> Report:
        """The report the observations support (called after every round: saved as it grows)."""
        ...

    async def actions(
        self, investigation: Investigation, report: Report
    ) -> list[PlannedCall]:
        """Writes a confirmed hypothesis calls for (each needs a person), or []."""
        ...

    async def verify(
        self, investigation: Investigation, action: PlannedCall
    ) -> list[PlannedCall]:
        """Calls that check an action's effect (e.g. probe again)."""
        ...
