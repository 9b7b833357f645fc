"""Issue 21 classes 1 and 4, a lowered limit: a change lowers a limit and a client is then refused
for exceeding it; the changed object is the cause, not the loud client (reasoning/layered/lowered_limit.py).

Names and wordings are invented: a broker queue's maximum message size reset by an apply, a proxy's
body size cut, a rate limit lowered (another class); the logs server's shape is its own.
"""

import pytest

from reasoning.layered import lowered_limit
from reasoning.layered.lowered_limit import sets_limit
from reasoning.layered.quiet_changes import SEARCH
from tests.reasoning.test_planner import health, incident
from tests.reasoning.test_quiet_changes import ChangeWorld
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

_CLIENT = "billing-worker"


def _world(error, changes, touched=(), first_seen="2030-01-01T10:15:00Z"):
    return ChangeWorld(
        {
            ("service_health", _CLIENT): health(_CLIENT, "degraded", FAILING),
            ("top_errors", _CLIENT): logged(
                _CLIENT, errors=[group(error, count=240, first_seen=first_seen)]
            ),
        },
        changes=changes,
        touched=touched,
    )


def _run(world):
    return run_with_schemas(
        world,
        incident(_CLIENT, "invoices missing", title="invoices missing"),
        names=NO_NETCHECK,
    )


_QUEUE_CHANGE = (
    "iac-runner",
    "2030-01-01T10:05:00Z",
    'queue invoices.rendered updated in place: "max_message_size" = "4194304" -> "262144"',
    "info",
)
_TOO_LARGE = (
    "publish to invoices.rendered failed: MessageSizeTooLarge: the message is larger than "
    "the maximum the broker accepts"
)


@pytest.mark.rule("board.lowered-limit")
def test_a_queue_whose_message_size_was_lowered_before_its_producer_is_refused_is_the_cause():
    world = _world(
        _TOO_LARGE,
        changes=[_QUEUE_CHANGE],
        touched=[
            (
                "invoice-archiver",
                "2030-01-01T10:20:00Z",
                "no invoices.rendered messages for 900 s",
                "warn",
            )
        ],
    )

    _, _, report = _run(world)

    top = report.top
    assert top.id == "application:invoices.rendered" and top.status == "confirmed"
    cited = " ".join(e.fact for e in top.evidence)
    assert "max_message_size" in cited and "MessageSizeTooLarge" in cited
    client = next(h for h in report.hypotheses if h.id == f"application:{_CLIENT}")
    assert client.confidence < top.confidence and "lowered limit" in client.statement
    assert SEARCH in world.queries  # asked although the client logs errors of its own


@pytest.mark.rule("board.lowered-limit")
def test_a_proxy_body_size_cut_before_uploads_get_413_names_the_server_it_touched():
    world = _world(
        "upload of scan-8812.pdf failed: 413 Request Entity Too Large from edge",
        changes=[
            (
                "edge-config",
                "2030-01-01T10:10:00Z",
                "server uploads.docs.example: client_max_body_size 20m -> 1m (reloaded)",
                "info",
            )
        ],
    )

    _, _, report = _run(world)

    assert report.top.id == "application:uploads.docs.example"
    assert report.top.status == "confirmed"


@pytest.mark.rule("board.lowered-limit")
def test_a_rate_limit_lowered_before_429s_is_not_read_as_a_size_limit():
    world = _world(
        "POST /v1/charges failed: 429 Too Many Requests: rate limit exceeded",
        changes=[
            (
                "gateway-admin",
                "2030-01-01T10:05:00Z",
                "route charges: max_requests_per_second 200 -> 20",
                "info",
            )
        ],
    )

    _, _, report = _run(world)

    assert not any("lowered the limit" in h.statement for h in report.hypotheses)


@pytest.mark.rule("board.lowered-limit")
def test_a_limit_lowered_after_the_refusals_began_is_not_their_cause():
    world = _world(
        _TOO_LARGE,
        changes=[(*_QUEUE_CHANGE[:1], "2030-01-01T10:40:00Z", *_QUEUE_CHANGE[2:])],
    )

    _, _, report = _run(world)

    assert not any(h.id == "application:invoices.rendered" for h in report.hypotheses)


@pytest.mark.rule("board.lowered-limit")
def test_a_raised_limit_is_no_lowering_and_a_measured_value_no_limit():
    assert sets_limit('"max.request.size" = "8388608" -> "1048576"')
    assert not sets_limit("replicas 3 -> 5")
    assert not sets_limit("owner team-a -> team-b")


@pytest.mark.rule("board.lowered-limit")
@pytest.mark.timeout(60)
def test_hostile_lines_are_read_in_linear_time():
    # Bounded by the timeout, not by a wall-clock assertion that flakes on a loaded machine.
    hostile = "1 -> " * 50_000 + "max_" * 50_000 + "larger than " * 50_000
    sets_limit(hostile)
    lowered_limit._EXCEEDED.search(hostile)
    lowered_limit._RATE.search(hostile)
