"""Callers that multiply their own load on a back end (issue 21 classes 2 and 4), with invented names:

- a caller retrying a named back end with no wait while the back end sheds load is the cause, the
  back end (and its GC pause, the trigger) its victim (`immediate_retries`);
- a service whose own new line states an N+1 fan-out cites the line that lists the calls multiplied
  and is the cause, the callee they load its victim (`fan_out`).
"""

import pytest

from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.fan_out import MULTIPLIED, MULTIPLIED_QUERY, OWN_COUNT, fan_out
from reasoning.layered.immediate_retries import (
    NO_WAIT_RETRY,
    SHEDDING,
    immediate_retries,
)
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    lines,
    logged,
    run_with_schemas,
)

# --- retries with no wait ---------------------------------------------------------------------

RETRY = (
    'level=warn msg="ledger-core call failed: deadline exceeded (300ms); '
    'retrying in 0ms (attempt 6/6)" booking=b_8812'
)
SHED = "ledger-core: worker pool saturated, queue full, rejecting request (depth=2048)"
PAUSE = "G1 Evacuation Pause (young) 19.8s ledger-core-3"


def test_no_wait_retries_and_shedding_are_recognised():
    for text in (
        RETRY,
        "retrying immediately after 503 from ledger-core",
        "upstream=ledger-core retry policy backoff=none attempts=5",
        "call to ledger-core failed, retry 3 in 0s",
        "retry #2 without backoff to ledger-core",
    ):
        assert NO_WAIT_RETRY.search(text), text
    for text in (
        "retrying in 250ms (attempt 2/5)",
        "retrying in 0.5s",
        "retry in 10ms",
        "backoff=exponential base=100ms",
    ):
        assert not NO_WAIT_RETRY.search(text), text
    assert SHEDDING.search(SHED)
    assert SHEDDING.search("HTTP 429 Too Many Requests: overloaded")
    assert not SHEDDING.search("connection refused")


def _retry_world(caller_warnings, callee_warnings):
    return World(
        {
            ("service_health", "bookings"): health("bookings", "degraded", FAILING),
            ("top_errors", "bookings"): logged("bookings", warnings=caller_warnings),
            ("service_health", "ledger-core"): health(
                "ledger-core", "unhealthy", FAILING
            ),
            ("top_errors", "ledger-core"): logged(
                "ledger-core", warnings=callee_warnings
            ),
            ("search_logs", ""): lines(),
            ("search_logs", "bookings"): lines(),
            ("search_logs", "ledger-core"): lines(),
        }
    )


@pytest.mark.rule("board.immediate-retries")
def test_a_caller_retrying_with_no_wait_a_back_end_that_sheds_load_is_the_cause():
    world = _retry_world(
        [group(RETRY, count=600)],
        [group(SHED, count=300), group(PAUSE, count=1)],
    )

    _, _, report = run_with_schemas(
        world, incident("bookings", title="bookings time out"), names=NO_NETCHECK
    )

    assert report.top.id == "application:bookings"
    assert report.top.status == "confirmed"
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "retrying in 0ms" in cited and "queue full" in cited
    victim = next(h for h in report.hypotheses if h.id == "application:ledger-core")
    assert victim.status == "likely" and victim.confidence <= 0.4


@pytest.mark.rule("board.immediate-retries")
def test_retries_with_a_wait_or_a_back_end_that_does_not_shed_are_not_blamed():
    waited = RETRY.replace("retrying in 0ms", "retrying in 400ms")
    for caller, callee in (
        ([group(waited, count=600)], [group(SHED, count=300)]),
        ([group(RETRY, count=600)], [group(PAUSE, count=1)]),
        ([group(RETRY, count=600, before=40)], [group(SHED, count=300)]),  # stale
    ):
        world = _retry_world(caller, callee)
        _, _, report = run_with_schemas(
            world, incident("bookings", title="bookings time out"), names=NO_NETCHECK
        )
        assert not any(
            "no wait between attempts" in h.statement for h in report.hypotheses
        )


# --- an N+1 fan-out ----------------------------------------------------------------------------

OWN = '{"level":"warn","msg":"slow query","operation":"OrderHistory","ms":8120,"sqlCount":0,"backendCalls":312}'
TRACE = (
    "trace 9ab01c: GET /orders (OrderHistory) 8.1s, 318 spans: "
    "312 x GET stock-api /v2/items/{id}, 5 x SELECT orders"
)


def _obs(span="s1", tool="top_errors", arguments=None):
    return Observation(
        span_id=span,
        agent="logs",
        server="logs",
        tool=tool,
        arguments=arguments or {},
        is_ok=True,
    )


def test_fan_out_counts_and_multiplied_calls_are_recognised():
    assert max(int(m.group(1)) for m in OWN_COUNT.finditer(OWN)) == 312
    assert OWN_COUNT.search('"downstreamCalls":241')
    assert MULTIPLIED.search(TRACE)
    assert MULTIPLIED.search("Bullet: N+1 query detected Order => [:line_items]")
    assert MULTIPLIED.search("issued 480 queries per request to the catalog db")
    assert not MULTIPLIED.search("GET /orders 200 12ms")


class _TraceWorld(World):
    """A World whose every-service search for multiplied calls answers the trace store's line."""

    def __init__(self, answers, trace_lines):
        super().__init__(answers)
        self.trace_lines = trace_lines

    def answer(self, call, span_id):
        if (
            call.tool == "search_logs"
            and call.arguments.get("query") == MULTIPLIED_QUERY
        ):
            self.asked.append((call.tool, "multiplied"))
            return Observation(
                span_id=span_id,
                agent=call.agent,
                server=call.server,
                tool=call.tool,
                arguments=call.arguments,
                is_ok=True,
                result=self.trace_lines,
            )
        return super().answer(call, span_id)


def _fan_world(own, trace):
    return _TraceWorld(
        {
            ("service_health", "orders-bff"): health("orders-bff", "degraded", FAILING),
            ("top_errors", "orders-bff"): logged(
                "orders-bff", warnings=[group(own, count=220)]
            ),
            ("service_health", "stock-api"): health("stock-api", "degraded", FAILING),
            ("top_errors", "stock-api"): logged(
                "stock-api",
                warnings=[group('{"msg":"request queue depth high","depth":180}')],
            ),
            ("search_logs", ""): lines(),
            ("search_logs", "orders-bff"): lines(),
            ("search_logs", "stock-api"): lines(),
        },
        lines(("jaeger", "2030-01-01T10:20:00Z", trace)),
    )


@pytest.mark.rule("board.fan-out")
def test_a_stated_fan_out_cites_the_line_listing_the_calls_multiplied():
    world = _fan_world(OWN, TRACE)

    _, _, report = run_with_schemas(
        world, incident("orders-bff", title="order history slow"), names=NO_NETCHECK
    )

    assert ("search_logs", "multiplied") in world.asked
    assert report.top.id == "application:orders-bff"
    assert report.top.status == "confirmed"
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "312 x GET stock-api" in cited
    victim = next(
        (h for h in report.hypotheses if h.id == "application:stock-api"), None
    )
    assert victim is None or victim.confidence <= 0.4


@pytest.mark.rule("board.fan-out")
def test_a_few_calls_per_operation_or_an_unrelated_trace_is_not_a_fan_out():
    few = OWN.replace('"backendCalls":312', '"backendCalls":4')
    world = _fan_world(few, TRACE)
    _, _, report = run_with_schemas(
        world, incident("orders-bff", title="order history slow"), names=NO_NETCHECK
    )
    assert ("search_logs", "multiplied") not in world.asked
    assert not any("N+1" in h.statement for h in report.hypotheses)

    other = "trace 77: GET /reports (MonthlyExport) 60 x GET billing-api /v1/lines"
    world = _fan_world(OWN, other)
    _, _, report = run_with_schemas(
        world, incident("orders-bff", title="order history slow"), names=NO_NETCHECK
    )
    assert not any("N+1" in h.statement for h in report.hypotheses)


@pytest.mark.timeout(60)
def test_the_load_multiplier_readers_stay_linear_on_hostile_lines():
    inv = Investigation(incident=incident("x"), tools=[])
    for text in (
        "retry " * 50_000,
        "retrying in 0" * 30_000,
        "1 x " * 50_000,
        '"calls":' * 40_000,
        "queue full " * 40_000,
    ):
        NO_WAIT_RETRY.search(text)
        SHEDDING.search(text)
        OWN_COUNT.search(text)
        MULTIPLIED.search(text)
        facts = Facts()
        facts.errors["a"] = Errors(_obs(), "a", (ErrorGroup(text, text, 1, before=0),))
        facts.errors["b"] = Errors(_obs(), "b", (ErrorGroup(text, text, 1, before=0),))
        board = Board(inv, facts)
        immediate_retries(board)
        fan_out(board)
