"""Issue 21 classes 1 and 4, an emptied pool: a change (a capacity removal, a config push) leaves a
proxy with nothing to send to; the changed pool or route is the cause, not the loud callers
(reasoning/layered/emptied_pools.py).

Names and wordings are invented: a thumbnail pool drained by a maintenance command, a gateway's
route blanked by a config rollout; the logs server answers every-service searches by regex.
"""

import re

import pytest

from reasoning.layered.emptied_pools import emptied, query
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.observations import Observation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

_CALLER = "gallery-web"
_PROXY = "thumbs-lb"


class LinesWorld(World):
    """A World whose every-service searches answer with the lines their regex matches."""

    def __init__(self, answers, lines=()):
        super().__init__(answers)
        self.lines = [
            {"service": s, "time": t, "level": level, "message": m, "labels": {}}
            for s, t, m, level in lines
        ]

    def answer(self, call, span_id):
        if call.tool != "search_logs" or call.arguments.get("service"):
            return super().answer(call, span_id)
        pattern = re.compile(call.arguments.get("query", ""), re.IGNORECASE)
        found = [line for line in self.lines if pattern.search(line["message"])]
        return Observation(
            span_id=span_id,
            agent=call.agent,
            server=call.server,
            tool=call.tool,
            arguments=call.arguments,
            is_ok=True,
            result={"lines": found},
        )


def _world(
    proxy_error,
    lines=(),
    caller_error="GET http://thumbs-lb/t/881 failed: 502 Bad Gateway",
):
    return LinesWorld(
        {
            ("service_health", _CALLER): health(_CALLER, "unhealthy", FAILING),
            ("top_errors", _CALLER): logged(
                _CALLER, errors=[group(caller_error, count=400)]
            ),
            ("top_errors", _PROXY): logged(
                _PROXY, errors=[group(proxy_error, count=200)]
            ),
        },
        lines=lines,
    )


def _run(world):
    return run_with_schemas(
        world,
        incident(_CALLER, "thumbnails broken", title="thumbnails broken"),
        names=NO_NETCHECK,
    )


_NO_HOSTS = "backend thumb-render has no server available (0/24 up)"
_DRAIN = (
    "maint-shell",
    "2030-01-01T10:12:00Z",
    "MT-77 hostctl drain --group 'thumb-render*' by k.o: 22 hosts removed from rotation",
    "info",
)


@pytest.mark.rule("board.emptied-pool")
def test_a_pool_drained_by_a_command_just_before_the_proxy_has_no_server_is_the_cause():
    _, _, report = _run(_world(_NO_HOSTS, lines=[_DRAIN]))

    top = report.top
    assert top.id == "connect:thumb-render" and top.status == "confirmed"
    cited = " ".join(e.fact for e in top.evidence)
    assert "has no server available" in cited and "MT-77" in cited


@pytest.mark.rule("board.emptied-pool")
def test_a_route_blanked_by_a_config_rollout_is_an_http_fault_of_the_proxy():
    blank = "GET /img/1 503 no route configured for /img/ (config=r881)"
    rollout = (
        "cfg-rollout",
        "2030-01-01T10:14:00Z",
        "gateway config r881 pushed to all regions: img_backend '' (was thumbs:8080)",
        "info",
    )
    _, _, report = _run(_world(blank, lines=[rollout]))

    top = report.top
    assert top.id == f"http:{_PROXY}" and top.status == "confirmed"
    assert any("r881 pushed" in e.fact for e in top.evidence)


@pytest.mark.rule("board.emptied-pool")
def test_an_empty_pool_without_a_change_naming_it_is_not_blamed_on_a_change():
    other = (
        "maint-shell",
        "2030-01-01T10:12:00Z",
        "MT-78 hostctl drain --group 'billing-render*' by k.o: 2 hosts removed",
        "info",
    )
    late = (
        "maint-shell",
        "2030-01-01T07:00:00Z",
        "MT-12 hostctl drain --group 'thumb-render*': 1 host removed",
        "info",
    )
    _, _, report = _run(_world(_NO_HOSTS, lines=[other, late]))

    assert "connect:thumb-render" not in {
        h.id for h in report.hypotheses if h.status == "confirmed"
    }


@pytest.mark.rule("board.emptied-pool")
def test_a_pool_that_only_fails_is_not_read_as_emptied():
    errors = Errors(
        obs=Observation(
            span_id="s1",
            agent="logs",
            server="logs",
            tool="top_errors",
            arguments={},
            is_ok=True,
        ),
        service=_PROXY,
        groups=(
            ErrorGroup("backend thumb-render: connection refused", "", 9, before=0),
        ),
    )
    assert emptied(Facts(errors={_PROXY: errors})) == []


@pytest.mark.rule("board.emptied-pool")
@pytest.mark.timeout(60)
def test_hostile_lines_do_not_stall_the_patterns():
    hostile = "no healthy upstream hosts in pool " + "a-" * 50_000 + "!" * 10_000
    world = _world(
        hostile,
        lines=[("x", "2030-01-01T10:12:00Z", "remove a-a " + "->" * 200, "info")],
    )
    _run(world)
    assert query("a" * 30 + "-b").count("|") >= 1
