"""Issue 21 classes 1 and 2, never end with no hypothesis when the logs hold a fault line: when no
rule's candidate stands, the strongest line read of any service (a stated reason, error level, new,
not an echo of the incident's words) is a lead citing it (reasoning/layered/strongest_lines.py).

Names and wordings are invented; the logs server's shape (an every-service top_errors whose groups
name their service, warnings and a baseline) is its own.
"""

import asyncio

import pytest

from reasoning import layers
from reasoning.layered import LayeredPlanner
from reasoning.layered.strongest_lines import LEAD, echoes, layer_of
from reasoning.observations import Investigation, ToolInfo
from tests.reasoning.test_planner import SERVERS, World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    NO_NETCHECK,
    SCHEMAS,
    group,
    lines,
    logged,
)

# top_errors as mcpservers/logs describes it: the service may be left empty (every service).
_EVERY = {**SCHEMAS, "top_errors": {**SCHEMAS["top_errors"], "required": []}}

SHIPPER_REFUSED = (
    "push of archive nightly-0412 failed: remote answered 403 AccessDenied: "
    "presigned URL expired at 2030-01-01T00:00:00Z (bucket=cold-vault)"
)
CHECKER_ECHO = "archive freshness check: newest archive is 5 days old, ArchiveStale"
PROXY_LINE = (
    "[error] 31#31: *8812 upstream sent invalid chunked response while reading "
    "upstream, client: 10.9.0.4, server: desk.example.test"
)
LOOKUP_WARNING = "sign-in refused: no account for handle (exact match, 0 rows)"


def _survey(*errors, warnings=()):
    return {**logged("", errors=errors, warnings=warnings)}


def _tagged(service, message, **kwargs):
    return {**group(message, **kwargs), "service": service}


# The incident's name is no service of the logs: the server lists none it knows.
_UNKNOWN = {
    ("top_errors", "archives"): ("tool_backend", "tool_error", "no logs for 'archives'")
}


def run_with_schemas(world, brief):
    planner = LayeredPlanner()
    tools = [
        ToolInfo(
            server=SERVERS[n],
            name=n,
            description="",
            input_schema=_EVERY.get(n, {"type": "object"}),
            is_read_only=True,
            is_destructive=False,
            is_idempotent=True,
        )
        for n in NO_NETCHECK
    ]
    inv = Investigation(incident=brief, tools=tools)
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    return inv, planner, asyncio.run(planner.conclude(inv))


def _world(survey, *, read=True):
    """The every-service survey, and (`read`) each service it names read alone as the survey shows it."""
    answers = {
        ("service_health", "archives"): health("archives", "unknown"),
        ("top_errors", ""): survey,
        ("search_logs", ""): lines(),
    }
    for key in ("top", "warnings"):
        for g in survey[key]:
            service = g.get("service") if isinstance(g, dict) else None
            if read and isinstance(service, str):
                own = logged(service, **{"errors" if key == "top" else "warnings": [g]})
                answers[("top_errors", service)] = own
                answers[("service_health", service)] = health(service)
    return World(answers, failures=_UNKNOWN)


def _brief(title="[ALERT] ArchiveStale newest archive older than 3 days"):
    return incident("archives", title=title)


@pytest.mark.rule("board.strongest-line")
def test_the_client_quoting_its_refusal_is_the_lead_not_the_check_echoing_the_alert():
    world = _world(
        _survey(
            _tagged("vault-shipper", SHIPPER_REFUSED, count=1, before=3),
            _tagged("freshness-check", CHECKER_ECHO, count=1, before=0),
        )
    )

    _, _, report = run_with_schemas(world, _brief())

    assert report.top.id == "application:vault-shipper"
    assert report.top.confidence == LEAD and not report.conclusive
    assert any("AccessDenied" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.strongest-line")
def test_a_proxys_own_error_about_its_upstream_is_an_http_lead():
    world = _world(_survey(_tagged("edge-proxy", PROXY_LINE, count=60)), read=False)

    _, _, report = run_with_schemas(world, _brief("desk panel broken for some people"))

    assert report.top.id == "http:edge-proxy"
    assert any("upstream sent" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.strongest-line")
def test_a_new_warning_stating_a_reason_outranks_a_ticket_quoting_the_user():
    title = (
        "cannot sign in, it says my handle is unknown and the reset mail never arrives"
    )
    world = _world(
        _survey(
            warnings=[
                _tagged("id-core", LOOKUP_WARNING, count=400),
                _tagged("tickets", f"ticket: '{title}'", count=30),
            ]
        )
    )

    _, _, report = run_with_schemas(world, _brief(title))

    assert report.top.id == "application:id-core"


@pytest.mark.rule("board.strongest-line")
def test_no_lead_from_echoes_or_state_reports_alone():
    world = _world(
        _survey(
            _tagged("freshness-check", CHECKER_ECHO, count=1),
            warnings=[_tagged("disk-watch", "volume /srv 91% used", count=5)],
        ),
        read=False,
    )

    _, _, report = run_with_schemas(world, _brief())

    assert not [h for h in report.hypotheses if h.status != "ruled_out"]


@pytest.mark.rule("board.strongest-line")
def test_a_standing_hypothesis_leaves_the_fallback_silent():
    world = World(
        {
            ("service_health", "archives"): health(
                "archives", "unhealthy", [("error_rate", "critical", "errors 40%")]
            ),
            ("top_errors", "archives"): logged(
                "archives", errors=[group("archive index corrupt: checksum mismatch")]
            ),
            ("top_errors", ""): _survey(
                _tagged("vault-shipper", SHIPPER_REFUSED, count=1)
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(world, _brief())

    assert not any(h.component == "vault-shipper" for h in report.hypotheses)


def test_echo_and_layer_readers():
    incident_words = {"archivestale", "newest", "archive", "older", "days"}
    assert echoes(CHECKER_ECHO, incident_words)
    assert not echoes(SHIPPER_REFUSED, incident_words)
    assert not echoes(SHIPPER_REFUSED, set())
    assert layer_of(PROXY_LINE) == layers.HTTP
    assert layer_of(SHIPPER_REFUSED) == layers.APPLICATION


@pytest.mark.rule("board.strongest-line")
@pytest.mark.timeout(60)
def test_huge_and_malformed_groups_are_read_safely():
    huge = "denied " + "x" * 3_000_000
    survey = _survey(
        _tagged("big-svc", huge, count=2),
        {"service": None, "count": "many", "sample": None},
        "not a group",
        warnings=[{"service": "odd", "count": -4, "sample": "expired"}],
    )
    world = _world(survey)

    _, _, report = run_with_schemas(world, _brief())

    assert report.top.id == "application:big-svc"
    assert all(len(e.fact) < 10_000 for e in report.top.evidence)


@pytest.mark.rule("board.strongest-line")
def test_a_line_of_a_hypothesis_the_user_marked_wrong_is_never_revived():
    world = _world(_survey(_tagged("vault-shipper", SHIPPER_REFUSED, count=1)))
    inv, planner, _ = run_with_schemas(world, _brief())
    inv.excluded = frozenset({"application:vault-shipper"})

    report = asyncio.run(planner.conclude(inv))

    assert not [h for h in report.hypotheses if h.status != "ruled_out"]
