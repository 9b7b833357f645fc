"""Steering context in the layered planner (issue 20 item 9): a note people add reaches the next
round and may change what is read; a hypothesis marked wrong is ruled out."""

import asyncio
import dataclasses

import pytest

from reasoning.layered import LayeredPlanner
from reasoning.observations import Investigation, Observation
from reasoning.report import EXCLUDED_REASON
from tests.reasoning.test_planner import brief, load, replay, tools


def _after_round_one(name: str) -> Investigation:
    data = load(name)
    inv = Investigation(incident=brief(data), tools=tools(data))
    inv.observations.extend(Observation(**o) for o in data["rounds"][0]["observations"])
    inv.round = 1
    return inv


def _asked(calls):
    return {(c.tool, c.arguments.get("service")) for c in calls}


def test_a_note_naming_a_service_turns_the_next_round_to_it():
    inv = _after_round_one("pool-exhaustion")
    without = asyncio.run(LayeredPlanner().next_round(inv))
    assert ("service_health", "ledger-api") not in _asked(without)

    inv.incident = dataclasses.replace(
        inv.incident,
        notes=("ledger-api was deployed at 10:02, right before the errors",),
    )
    steered = asyncio.run(LayeredPlanner().next_round(inv))

    assert ("service_health", "ledger-api") in _asked(steered)
    assert ("top_errors", "ledger-api") in _asked(steered)
    assert _asked(without) <= _asked(steered)


@pytest.mark.rule("board.excluded")
def test_a_hypothesis_marked_wrong_is_ruled_out_and_proposes_no_action():
    _, inv, planner, reports = replay("pool-exhaustion")
    top = reports[-1].top
    assert top is not None and top.status == "confirmed"

    inv.excluded = frozenset({top.id})
    report = asyncio.run(planner.conclude(inv))

    marked = next(h for h in report.hypotheses if h.id == top.id)
    assert marked.status == "ruled_out"
    assert marked.reason_ruled_out == EXCLUDED_REASON
    assert report.top is None or report.top.id != top.id
    assert asyncio.run(planner.actions(inv, report)) == []
