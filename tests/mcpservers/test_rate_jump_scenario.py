"""The rate-jump scenario (tests/scenarios/rate_jumps/fare-keeper-slow-queries), from the logs
server to the rule: the bundled logs server's top_errors over the folder's logs, with warnings and
the hour before as a baseline, is what reasoning/layered/rate_jumps.py reads as a jump.

`manage.py evaluate --scenarios tests/scenarios/rate_jumps` runs the whole stack on it.
"""

import json
from pathlib import Path

import pytest
from mcp.client import Client

from mcpservers.logs.backends import FileBackend, load_jsonl
from mcpservers.logs.server import build_server
from reasoning.layered.facts import Facts
from reasoning.layered.rate_jumps import jumped
from reasoning.observations import Observation
from tests.mcpservers._support import structured

FOLDER = (
    Path(__file__).resolve().parents[1]
    / "scenarios"
    / "rate_jumps"
    / "fare-keeper-slow-queries"
)
NOW = 1_764_511_200.0


async def _errors(service: str):
    server = build_server(
        FileBackend(load_jsonl(FOLDER / "logs.jsonl", now=NOW), source="scenario"),
        clock=lambda: NOW,
    )
    arguments = {
        "service": service,
        "start": "now-1h",
        "end": "now",
        "warnings": True,
        "baseline_s": 3600,
    }
    async with Client(server) as client:
        result = structured(await client.call_tool("top_errors", arguments))
    obs = Observation(
        span_id="s1",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments=arguments,
        is_ok=True,
        result=result,
    )
    return Facts.read([obs]).errors[service]


@pytest.mark.anyio
@pytest.mark.rule("board.rate-jumps")
async def test_the_slow_query_warning_was_logged_before_but_jumped_in_the_window():
    errors = await _errors("fare-keeper")

    (slow,) = [g for g in errors.warnings if "Seq Scan" in g.signature]
    assert slow.before and not slow.is_new  # not the new-warning rule's
    ratio = jumped(errors, slow)
    assert ratio is not None and ratio > 20


@pytest.mark.anyio
async def test_the_red_herrings_steady_error_did_not_jump():
    errors = await _errors("route-index")

    assert errors.groups and all(g.before for g in errors.groups)
    assert all(jumped(errors, g) is None for g in errors.groups)


def test_the_folder_says_what_it_expects():
    expected = json.loads((FOLDER / "expected.json").read_text())
    incident = json.loads((FOLDER / "incident.json").read_text())
    assert expected["root_cause_component"] == ["fare-keeper"]
    assert incident["service"] == "trip-planner"
