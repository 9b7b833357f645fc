"""Faults whose owner is not the loud service (issue 21 classes 2 and 4), each with invented names:

- a kernel's local exhaustion (`cannot assign requested address`, `too many open files`) new since the
  start, even at warn level and inside a connect error, is its own service's fault (`local_exhaustion`);
- tokens rejected as issued in the future by several verifiers blame the issuing host's clock
  (`token_clock`);
- a caller that quotes a back end's resource exhaustion relays it: the service whose own lines say it
  is the cause, found by one search over every service (`echoed_errors`);
- a probe's body reset after part of its promised length is direct evidence of the HTTP path's fault,
  conclusive with a caller's lines showing the same cut (`cut_bodies`);
- the retrying top caller of a callee's jumped request rate is the cause, the callee its victim
  (`retry_storms`).
"""

import re

import pytest

from reasoning.layered.cut_bodies import CUT_BODY
from reasoning.layered.echoed_errors import OWN_VOICE, QUOTED_CALL, quoted_exhaustion
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.local_exhaustion import LOCAL_EXHAUSTION
from reasoning.layered.retry_storms import RATE_JUMP, RETRY_SETTINGS, RETRYING
from reasoning.layered.token_clock import NOT_YET_VALID, _issuer
from reasoning.observations import Observation
from tests.reasoning.test_planner import World, health, incident, probe, targets
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    lines,
    logged,
    run_with_schemas,
)


def _obs():
    return Observation(
        span_id="s1",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={},
        is_ok=True,
    )


# --- local exhaustion -------------------------------------------------------------------------


def test_the_kernels_words_for_a_used_up_local_resource_are_recognised():
    assert LOCAL_EXHAUSTION.search(
        "dial tcp 198.51.100.7:443: connect: cannot assign requested address"
    )
    assert LOCAL_EXHAUSTION.search("accept4: too many open files; sleeping 5ms")
    assert not LOCAL_EXHAUSTION.search(
        "dial tcp 198.51.100.7:443: connect: connection refused"
    )


def _exhaustion_world(before):
    warning = group(
        "thumb fetch https://img.vendor-q.example/a/9.png: dial tcp 192.0.2.44:443: "
        "connect: cannot assign requested address; will retry",
        count=800,
        before=before,
    )
    return World(
        {
            ("service_health", "pic-fetcher"): health("pic-fetcher", "healthy"),
            ("top_errors", "pic-fetcher"): logged("pic-fetcher", warnings=[warning]),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.local-exhaustion")
def test_a_new_local_exhaustion_at_warn_level_is_its_own_services_fault():
    world = _exhaustion_world(before=0)

    _, _, report = run_with_schemas(
        world, incident("pic-fetcher", title="thumbnails missing"), names=NO_NETCHECK
    )

    assert report.top.id == "application:pic-fetcher"
    assert report.top.status == "confirmed" and report.conclusive
    assert any("cannot assign requested address" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.local-exhaustion")
def test_a_local_exhaustion_logged_before_the_window_too_is_no_new_fault():
    world = _exhaustion_world(before=40)

    _, _, report = run_with_schemas(
        world, incident("pic-fetcher", title="thumbnails missing"), names=NO_NETCHECK
    )

    assert (
        report.top is None
        or report.top.id != "application:pic-fetcher"
        or not report.conclusive
    )


# --- clock of a token issuer ------------------------------------------------------------------


def test_a_token_refused_as_not_yet_valid_names_its_issuing_host():
    line = (
        "401: bad credential: Token used before issued (iat in the future; host sts-b)"
    )
    assert NOT_YET_VALID.search(line)
    assert _issuer(line) == "sts-b"
    assert (
        _issuer(
            "jwt rejected: nbf is in the future (issuer https://auth.corp-x.example, skew 300s)"
        )
        == "auth.corp-x.example"
    )
    assert not NOT_YET_VALID.search("401: token expired (exp in the past)")


def _token_world(verifiers):
    rejected = "401 for GET /v2/{n}: invalid jwt: Token used before issued (iat in the future; host sts-b)"
    answers = {
        ("top_errors", v): logged(v, errors=[group(rejected, count=300)])
        for v in verifiers
    }
    answers.update(
        {("service_health", v): health(v, "degraded", FAILING) for v in verifiers}
    )
    answers[("search_logs", "")] = lines()
    return World(answers)


@pytest.mark.rule("board.token-clock")
def test_several_verifiers_refusing_tokens_issued_in_the_future_blame_the_issuing_host():
    world = _token_world(["wallet-api", "ledger-ui"])

    _, _, report = run_with_schemas(
        world,
        incident(
            "wallet-api", "ledger-ui also logs users out", title="sessions dropped"
        ),
        names=NO_NETCHECK,
    )

    assert report.top.id == "application:sts-b"
    assert report.top.status == "confirmed" and report.conclusive
    assert {e.fact.split(")")[0] for e in report.top.evidence} >= {
        "top_errors(wallet-api",
        "top_errors(ledger-ui",
    }


@pytest.mark.rule("board.token-clock")
def test_one_verifier_alone_is_a_lead_for_the_issuer():
    world = _token_world(["wallet-api"])

    _, _, report = run_with_schemas(
        world, incident("wallet-api", title="sessions dropped"), names=NO_NETCHECK
    )

    issuer = next(h for h in report.hypotheses if h.id == "application:sts-b")
    assert issuer.status == "likely" and not issuer.conclusive


# --- a back end's exhaustion quoted by its caller ---------------------------------------------

QUOTING = 'PUT /v3/baskets 500: ERROR: could not extend file "base/1/77.3": No space left on device (SQLSTATE 53100)'


def test_a_callers_quote_of_a_back_ends_exhaustion_is_recognised():
    quoting = Errors(_obs(), "till-api", (ErrorGroup(QUOTING, QUOTING, 10),))
    own = Errors(_obs(), "till-api", (ErrorGroup("disk full", "disk full", 10),))

    quote = quoted_exhaustion(quoting)
    assert quote is not None and quote.words.lower() == "no space left on device"
    assert (
        quoted_exhaustion(own) is None
    )  # said without another program's marks: its own
    assert QUOTED_CALL.search(QUOTING)
    assert not QUOTED_CALL.search(
        'ERROR:  could not extend file "base/1/77.3": No space left on device'
    )


def _echo_world(origin_lines):
    return World(
        {
            ("service_health", "till-api"): health("till-api", "unhealthy", FAILING),
            ("top_errors", "till-api"): logged(
                "till-api", errors=[group(QUOTING, count=500)]
            ),
            ("search_logs", ""): lines(*origin_lines),
        }
    )


@pytest.mark.rule("board.echoed-errors")
def test_the_back_end_whose_own_lines_say_the_quoted_exhaustion_is_the_cause():
    world = _echo_world(
        [
            ("till-api", "2030-01-01T10:20:00Z", QUOTING),
            (
                "basket-store",
                "2030-01-01T10:19:58Z",
                'ERROR:  could not extend file "base/1/77.3": No space left on device',
            ),
        ]
    )

    _, _, report = run_with_schemas(
        world, incident("till-api", title="baskets fail"), names=NO_NETCHECK
    )

    searched = [
        a for t, a in world.arguments if t == "search_logs" and not a.get("service")
    ]
    assert any(a["query"].lower() == "no space left on device" for a in searched)
    assert report.top.id == "application:basket-store"
    assert report.top.status == "confirmed" and report.conclusive
    # The caller quotes its database's SQLSTATE: a dependency's symptom, a lead below it at most.
    caller = next(
        (h for h in report.hypotheses if h.id == "application:till-api"), None
    )
    assert caller is None or (
        caller.status == "likely" and caller.confidence < report.top.confidence
    )


@pytest.mark.rule("board.echoed-errors")
def test_without_a_back_end_saying_it_the_caller_stays_the_fault():
    world = _echo_world([("till-api", "2030-01-01T10:20:00Z", QUOTING)])

    _, _, report = run_with_schemas(
        world, incident("till-api", title="baskets fail"), names=NO_NETCHECK
    )

    assert report.top.id == "application:till-api"


LOCKS_QUOTE = (
    "POST /api/stock/reserve 500: sqlalchemy.exc.OperationalError: "
    "(psycopg2.errors.OutOfMemory) out of shared memory"
)


def test_a_drivers_exception_for_a_lock_table_exhaustion_is_a_quote():
    for text in (
        LOCKS_QUOTE,
        "reserve failed: asyncpg.exceptions.OutOfMemoryError: out of shared memory",
        "job 12: PG::OutOfMemory: out of shared memory",
    ):
        quote = quoted_exhaustion(
            Errors(_obs(), "stock-api", (ErrorGroup(text, text, 5),))
        )
        assert quote is not None and quote.words.lower() == "out of shared memory"
    own = "worker out of shared memory while sorting"
    assert (
        quoted_exhaustion(Errors(_obs(), "stock-api", (ErrorGroup(own, own, 5),)))
        is None
    )


def test_a_back_ends_own_voice_opens_its_line_with_its_severity():
    assert OWN_VOICE.search("ERROR:  out of shared memory")
    assert OWN_VOICE.search(
        "2030-01-01 10:19:58.120 UTC [4411] ERROR:  out of shared memory"
    )
    assert not OWN_VOICE.search("batch 17 aborted: ERROR:  out of shared memory")
    assert not OWN_VOICE.search("export failed: out of shared memory; will retry")


@pytest.mark.timeout(60)
def test_the_voice_and_quote_readers_stay_linear_on_hostile_lines():
    for text in ("a:" * 100_000, "x " * 100_000, "ERROR" * 40_000 + ":"):
        OWN_VOICE.search(text)
        quoted_exhaustion(Errors(_obs(), "stock-api", (ErrorGroup(text, text, 1),)))


def _locks_world(search_lines):
    return World(
        {
            ("service_health", "stock-api"): health("stock-api", "unhealthy", FAILING),
            ("top_errors", "stock-api"): logged(
                "stock-api", errors=[group(LOCKS_QUOTE, count=300)]
            ),
            ("search_logs", ""): lines(*search_lines),
        }
    )


@pytest.mark.rule("board.echoed-errors")
def test_the_back_end_in_its_own_voice_is_the_origin_among_clients_relaying_its_words():
    world = _locks_world(
        [
            ("stock-api", "2030-01-01T10:20:00Z", LOCKS_QUOTE),
            (
                "nightly-export",
                "2030-01-01T10:19:59Z",
                "batch 17 aborted: out of shared memory; will retry in 60s",
            ),
            (
                "inventory-pg",
                "2030-01-01T10:19:58Z",
                "ERROR:  out of shared memory\nHINT:  raise the lock table's size",
            ),
        ]
    )

    _, _, report = run_with_schemas(
        world, incident("stock-api", title="reservations fail"), names=NO_NETCHECK
    )

    searched = [
        a for t, a in world.arguments if t == "search_logs" and not a.get("service")
    ]
    assert any(a["query"].lower() == "out of shared memory" for a in searched)
    assert report.top.id == "application:inventory-pg"
    assert report.top.status == "confirmed" and report.conclusive


@pytest.mark.rule("board.echoed-errors")
def test_two_relaying_clients_without_the_back_ends_voice_blame_no_one():
    world = _locks_world(
        [
            ("stock-api", "2030-01-01T10:20:00Z", LOCKS_QUOTE),
            (
                "nightly-export",
                "2030-01-01T10:19:59Z",
                "batch 17 aborted: out of shared memory",
            ),
            ("price-sync", "2030-01-01T10:19:57Z", "sync failed: out of shared memory"),
        ]
    )

    _, _, report = run_with_schemas(
        world, incident("stock-api", title="reservations fail"), names=NO_NETCHECK
    )

    assert report.top.id == "application:stock-api"


def test_a_clock_warning_on_the_issuing_side_is_cited_with_the_refusals():
    world = _token_world(["wallet-api", "ledger-ui"])
    world.answers[("top_errors", "sts-core")] = logged(
        "sts-core",
        warnings=[group("time check: local clock 97s ahead of the reference", count=3)],
    )

    _, _, report = run_with_schemas(
        world,
        incident(
            "wallet-api", "ledger-ui and sts-core misbehave", title="sessions dropped"
        ),
        names=NO_NETCHECK,
    )

    assert report.top.id == "application:sts-b"
    assert any("clock 97s ahead" in e.fact for e in report.top.evidence)
    assert report.top.confidence > 0.83


# --- a body cut part way ----------------------------------------------------------------------

VAULT = "https://files.tradepartner.example/v2/exports/latest"
CUT = (
    "connection reset after 1200 bytes of the body of the 88000 promised by "
    "Content-Length: ConnectionResetError(104, 'Connection reset by peer')"
)


def test_netchecks_count_of_a_cut_body_is_read():
    assert CUT_BODY.search(CUT).groups() == ("1200", "88000")
    assert not CUT_BODY.search("connection reset by peer during the TLS handshake")


def _cut_world(caller_errors):
    return World(
        {
            ("service_health", "export-puller"): health("export-puller", "healthy"),
            ("top_errors", "export-puller"): logged(
                "export-puller", errors=caller_errors
            ),
            ("list_targets", ""): targets(VAULT),
            ("probe_url", VAULT): probe(
                VAULT, "http", "connection_reset", [CUT], status=200
            ),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.cut-bodies")
def test_a_body_cut_part_way_is_confirmed_and_a_callers_same_cut_makes_it_conclusive():
    logged_cut = group(
        "GET https://files.tradepartner.example/v2/exports/5: connection reset by peer "
        "after 1200 of 91000 bytes",
        count=40,
    )
    _, _, report = run_with_schemas(
        _cut_world([logged_cut]), incident("export-puller", "exports not imported")
    )

    assert report.top.id == "http:files.tradepartner.example"
    assert report.top.status == "confirmed" and report.conclusive
    assert report.top.confidence >= 0.9
    assert any("after 1200 of 91000 bytes" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.cut-bodies")
def test_a_body_cut_part_way_alone_is_confirmed_below_the_agreed_confidence():
    _, _, report = run_with_schemas(
        _cut_world([]), incident("export-puller", "exports not imported")
    )

    assert report.top.id == "http:files.tradepartner.example"
    assert report.top.status == "confirmed"
    assert 0.7 <= report.top.confidence < 0.9


# --- a retry storm --------------------------------------------------------------------------------

JUMP = "request rate 910/s is 6x the 1h average (top caller: quote-web, 91%)"
RETRY = "pricing POST /v1/holds attempt 4/8 failed: timeout after 500ms; retrying immediately"
SETTINGS = (
    "quote-web 2.0.0 started; pricing client retry policy max_attempts=8 backoff=none"
)


def test_a_jumped_rate_names_its_top_caller_and_retries_are_recognised():
    assert RATE_JUMP.search(JUMP).group(1) == "quote-web"
    assert not RATE_JUMP.search(
        "request rate 120/s (top caller: quote-web)"
    )  # no jump said
    assert RETRYING.search(RETRY)
    assert re.search(RETRY_SETTINGS, SETTINGS, re.IGNORECASE)


def _storm_world(caller_warnings):
    return World(
        {
            ("service_health", "hold-svc"): health("hold-svc", "unhealthy", FAILING),
            ("top_errors", "hold-svc"): logged(
                "hold-svc",
                errors=[
                    group(
                        "shedding load: 503 for POST /v1/holds, in-flight 700 > 400",
                        count=900,
                    )
                ],
                warnings=[
                    group(JUMP, count=12),
                    group("GC pause 3.4s (evacuation failure)", count=1),
                ],
            ),
            ("service_health", "quote-web"): health("quote-web", "degraded", FAILING),
            ("top_errors", "quote-web"): logged("quote-web", warnings=caller_warnings),
            ("search_logs", "quote-web"): lines(
                ("quote-web", "2030-01-01T09:40:00Z", SETTINGS)
            ),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.retry-storms")
def test_the_retrying_top_caller_of_a_jumped_rate_is_the_cause_and_the_callee_its_victim():
    world = _storm_world([group(RETRY, count=400)])

    _, _, report = run_with_schemas(
        world, incident("hold-svc", title="holds overloaded"), names=NO_NETCHECK
    )

    assert ("top_errors", "quote-web") in world.asked
    assert report.top.id == "application:quote-web"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "max_attempts=8" in cited and "top caller" in cited
    victim = next(h for h in report.hypotheses if h.id == "application:hold-svc")
    assert victim.status == "likely"


@pytest.mark.rule("board.retry-storms")
def test_a_top_caller_that_does_not_retry_is_not_blamed():
    world = _storm_world([])

    _, _, report = run_with_schemas(
        world, incident("hold-svc", title="holds overloaded"), names=NO_NETCHECK
    )

    assert not any(
        h.id == "application:quote-web" and h.status == "confirmed"
        for h in report.hypotheses
    )
