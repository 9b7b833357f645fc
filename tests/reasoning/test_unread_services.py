"""Issue 21 items 1 and 3, services the survey never reaches: when nothing read explains the
incident, one top_errors of every service at once shows who logs something new since the start,
and the services never read among them are read (reasoning/layered/unread_services.py).

Names are invented; the logs server's shape (top_errors whose service is optional) is its own.
"""

import asyncio

import pytest

from reasoning.layered import LayeredPlanner, unread_services
from reasoning.observations import Investigation, PlannedCall, ToolInfo
from tests.reasoning.test_planner import SERVERS, World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    SCHEMAS,
    group,
    lines,
    logged,
)

# top_errors as mcpservers/logs describes it now: the service may be left empty.
EVERY = {
    **SCHEMAS,
    "top_errors": {**SCHEMAS["top_errors"], "required": []},
}
SYMPTOM = "pick list 88 not ready after 120s; picker idle"
OWN = "job 4411 (attempt=37, requeued=true) failed: GlyphMapError: glyph U+2603 has no code"


def _tools(schemas):
    return [
        ToolInfo(
            server=SERVERS[n],
            name=n,
            description="",
            input_schema=schemas.get(n, {"type": "object"}),
            is_read_only=True,
            is_destructive=False,
            is_idempotent=True,
        )
        for n in NO_NETCHECK
    ]


def _run(world, schemas=EVERY):
    planner = LayeredPlanner()
    inv = Investigation(
        incident=incident("pick-web", "pick lists"), tools=_tools(schemas)
    )
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    return inv, asyncio.run(planner.conclude(inv))


def _every(*groups, warnings=()):
    return {
        "service": "",
        "top": list(groups),
        "warnings": list(warnings),
        "baseline": {"start": "2030-01-01T09:00:00Z", "end": "2030-01-01T10:00:00Z"},
    }


def _with(service, message, *, count, before=0):
    return {**group(message, count=count, before=before), "service": service}


def _world(*, consumer_before=0):
    return World(
        {
            ("service_health", "pick-web"): health("pick-web", "unhealthy", FAILING),
            ("top_errors", "pick-web"): logged(
                "pick-web", errors=[group(SYMPTOM, count=900)]
            ),
            ("top_errors", ""): _every(
                _with("pick-web", SYMPTOM, count=900),
                _with("glyph-worker", OWN, count=700, before=consumer_before),
                _with("old-cron", "nightly export skipped", count=2),
            ),
            ("top_errors", "glyph-worker"): logged(
                "glyph-worker", errors=[group(OWN, count=700, before=consumer_before)]
            ),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.new-messages")
def test_a_quiet_consumer_no_one_named_is_read_and_blamed():
    world = _world()

    _, report = _run(world)

    assert ("top_errors", "") in world.asked
    assert ("top_errors", "glyph-worker") in world.asked
    assert ("top_errors", "old-cron") not in world.asked  # two lines: a blip
    assert report.top.component == "glyph-worker"
    assert "GlyphMapError" in " ".join(e.fact for e in report.top.evidence)


def test_a_service_logging_the_same_before_the_window_is_not_read():
    world = _world(consumer_before=650)

    _run(world)

    assert ("top_errors", "") in world.asked
    assert ("top_errors", "glyph-worker") not in world.asked


def test_no_every_service_read_where_the_logs_server_needs_a_service():
    world = _world()

    _run(world, schemas=SCHEMAS)

    assert ("top_errors", "") not in world.asked


@pytest.mark.parametrize(
    ("count", "before", "read"),
    [(40, 0, True), (40, 3, True), (40, 5, False), (2, 0, False)],
)
def test_leads_are_new_or_risen_patterns_of_services_not_read(count, before, read):
    world = World(
        {
            ("top_errors", ""): _every(
                _with("tray-sync", OWN, count=count, before=before)
            )
        }
    )
    inv = Investigation(incident=incident("pick-web"), tools=_tools(EVERY))
    call = PlannedCall(
        agent="logs",
        server="logs-mcp",
        tool="top_errors",
        arguments=unread_services.arguments({"start": "a", "end": "b"}, 3600),
        why="",
    )
    inv.observations.append(world.answer(call, "s1"))

    found = [lead.service for lead in unread_services.leads(inv, set())]
    assert found == (["tray-sync"] if read else [])
    assert unread_services.leads(inv, {"tray-sync"}) == []


def test_one_new_message_split_into_single_line_groups_is_still_a_lead():
    """A token the logs server does not normalise splits one message into groups of one line:
    counted over the service, they repeat; one lone new line still does not."""

    def every(*groups):
        world = World({("top_errors", ""): _every(*groups)})
        inv = Investigation(incident=incident("pick-web"), tools=_tools(EVERY))
        call = PlannedCall(
            agent="logs",
            server="logs-mcp",
            tool="top_errors",
            arguments=unread_services.arguments({"start": "a", "end": "b"}, 3600),
            why="",
        )
        inv.observations.append(world.answer(call, "s1"))
        return [lead.service for lead in unread_services.leads(inv, set())]

    split = [
        _with("tray-sync", f"sync failed job=tray-t_{n}x", count=1, before=0)
        for n in ("a", "b", "c", "d")
    ]
    assert every(*split) == ["tray-sync"]
    assert every(split[0]) == []
    assert every(*(_with("tray-sync", OWN, count=1, before=1) for _ in range(5))) == []
