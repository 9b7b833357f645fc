"""Issue 21 class 4 (a provider's shared quota): a throttle answer that names its provider by words,
not a host, and a usage line naming the top caller of the quota, which is blamed
(reasoning/layered/shared_limits.py).

Names and wordings are invented; the servers' shapes are their own.
"""

import asyncio

import pytest

from reasoning.layered import LayeredPlanner, shared_limits
from reasoning.observations import Investigation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_unread_services import EVERY, _every, _tools, _with
from tests.reasoning.test_warnings_and_changes import FAILING, group, logged

VICTIM = (
    "render 9 failed: SdkError: ThrottlingException when calling the Sign operation: "
    "Rate exceeded for calls to Vaultly. Slow down."
)
USAGE = (
    "quota alert: Vaultly signing ops 4,950/s of 5,000/s; top consumer "
    "principal role/media-transcoder-worker"
)
OWN = "segment 4 retry 3: throttled, backing off 800ms"


def _run(world):
    planner = LayeredPlanner()
    inv = Investigation(
        incident=incident("invoice-render", "invoices not rendered"),
        tools=_tools(EVERY),
    )
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    return asyncio.run(planner.conclude(inv))


def _world(usage=USAGE):
    return World(
        {
            ("service_health", "invoice-render"): health(
                "invoice-render", "unhealthy", FAILING
            ),
            ("top_errors", "invoice-render"): logged(
                "invoice-render", errors=[group(VICTIM, count=500)]
            ),
            ("top_errors", ""): _every(
                _with("invoice-render", VICTIM, count=500),
                warnings=[
                    _with("usage-monitor", usage, count=6),
                    _with("media-transcoder", OWN, count=40),
                ],
            ),
        }
    )


@pytest.mark.rule("board.shared-rate-limit")
def test_the_top_caller_a_usage_line_names_is_the_co_tenant_using_up_the_quota():
    report = _run(_world())

    top = report.top
    assert top.id == "http:media-transcoder" and report.conclusive
    assert "vaultly" in top.statement and "invoice-render" in top.statement
    assert any("top consumer" in e.fact for e in top.evidence)
    assert any("Rate exceeded for calls to Vaultly" in e.fact for e in top.evidence)
    provider = next(h for h in report.hypotheses if h.id == "http:vaultly")
    assert provider.status == "likely"
    victim = next(
        (h for h in report.hypotheses if h.id == "application:invoice-render"), None
    )
    assert victim is None or "a victim of http:media-transcoder" in victim.statement


@pytest.mark.rule("board.shared-rate-limit")
def test_without_a_top_caller_the_provider_named_by_words_is_the_limit():
    report = _run(_world(usage="quota alert: Vaultly signing ops 4,950/s of 5,000/s"))

    assert report.top.id == "http:vaultly"


@pytest.mark.parametrize(
    "line,provider",
    [
        (VICTIM, "vaultly"),
        ("You have exceeded the rate at which you may call Keyring.", "keyring"),
        ("SlowDown (Service: Blob Vault; Status Code: 503)", "blob vault"),
        ("error when calling the GetSecret operation: throttled", None),
        # A cloud service's own throttle code names it when nothing else does.
        (
            'TooManyRequestsException: Rate Exceeded. {"Reason":"ConcurrentInvocationLimitExceeded"}',
            "lambda",
        ),
        ("ocr throttled: ProvisionedThroughputExceededException", None),
        ("ThrottlingException: Rate exceeded (invoke resize-image)", None),
    ],
)
def test_a_provider_is_named_by_the_api_called_not_the_operation(line, provider):
    assert shared_limits._provider_named(line, set()) == provider


@pytest.mark.rule("board.shared-rate-limit")
def test_a_function_invocation_refused_for_the_account_concurrency_blames_the_cloud_function_service():
    refused = (
        "TooManyRequestsException: Rate Exceeded. "
        '{"$metadata":{"httpStatusCode":429},"Reason":"ConcurrentInvocationLimitExceeded"} '
        "(invoke receipt-mailer for order 7)"
    )
    world = World(
        {
            ("service_health", "invoice-render"): health(
                "invoice-render", "unhealthy", FAILING
            ),
            ("top_errors", "invoice-render"): logged(
                "invoice-render", errors=[group(refused, count=300)]
            ),
        }
    )

    report = _run(world)

    assert report.top.id == "http:lambda"
    assert any(
        "ConcurrentInvocationLimitExceeded" in e.fact for e in report.top.evidence
    )


@pytest.mark.timeout(60)
def test_the_provider_and_top_caller_readers_stay_linear():
    shared_limits._provider_named("calling " + "A" * 200_000, set())
    shared_limits._provider_named("ThrottlingException " + "x " * 100_000, set())
    assert shared_limits._TOP_CALLER.search("top caller " + "x" * 200_000)
