"""Issue 21 class 4: a load or a loss on a shared back end caused by the party whose own line shows
its change just before: a scheduled job flooding a warehouse's work queue
(reasoning/layered/shared_backend.py), a broker policy dropping another team's queue
(reasoning/layered/dropping_policy.py), a writer giving cache keys one TTL
(reasoning/layered/expiry_wave.py), a release whose requests a back end refuses over HTTP for
their weight (reasoning/layered/refused_load.py), and a consumer whose own errors name a missing
topic (reasoning/layered/missing_destination.py).

Names, products and numbers are invented.
"""

import pytest

from reasoning.layered import (
    dropping_policy,
    expiry_wave,
    missing_destination,
    shared_backend,
)
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_shared_backend import _analysis, _errors, _lines, _obs, _top
from tests.reasoning.test_warnings_and_changes import (
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

T0 = "2030-01-01T10:20:00Z"


def _search(span, query, *entries):
    return _obs(span, "search_logs", {"query": query, "regex": True}, _lines(*entries))


# --- a scheduler's job fills a warehouse's work queue ------------------------------------------

POOL_FULL = "resource pool 'loads' (8 slots) busy; pool 'reports' queued: 212 queries, oldest 95s"
REPORT_TIMEOUT = (
    "report 'Margins weekly' failed: query cancelled after 60s statement timeout"
)


def _warehouse(start_lines):
    return [
        _errors(
            "s1",
            "report-portal",
            errors=[group(REPORT_TIMEOUT, count=90, first_seen="2030-01-01T10:24:00Z")],
        ),
        _errors(
            "s2",
            "olap-main",
            warnings=[group(POOL_FULL, count=50, first_seen=T0)],
        ),
        _search("s3", shared_backend.START_SEARCH, *start_lines),
    ]


@pytest.mark.rule("board.shared-backend")
def test_the_job_a_scheduler_started_just_before_a_work_queue_filled_is_the_cause():
    analysis = _analysis(
        "report-portal",
        _warehouse(
            [
                (
                    "flow-scheduler",
                    "2030-01-01T10:11:00Z",
                    "info",
                    "pipeline margin_rebuild: catch-up enabled, 240 intervals pending (PR data#88)",
                ),
                (
                    "flow-scheduler",
                    "2030-01-01T10:12:00Z",
                    "info",
                    "Created <FlowRun margin_rebuild @ 2029-01-02: queued>",
                ),
            ]
        ),
    )

    top = _top(analysis)
    assert top.id == "application:margin_rebuild" and top.status == "confirmed"
    assert "olap-main" in top.statement
    portal = analysis.candidates.get("application:report-portal")
    assert portal is None or portal.confidence <= 0.4


@pytest.mark.rule("board.shared-backend")
def test_a_start_line_naming_no_job_blames_the_service_that_logged_it():
    analysis = _analysis(
        "report-portal",
        _warehouse(
            [
                (
                    "ledger-export",
                    "2030-01-01T10:15:00Z",
                    "info",
                    "bulk export started for 2029",
                )
            ]
        ),
    )

    assert _top(analysis).id == "application:ledger-export"


def test_a_queue_full_line_without_anyone_waiting_is_not_a_held_back_end():
    assert shared_backend.BLOCKED.search(POOL_FULL)
    assert not shared_backend.BLOCKED.search("render queue full at startup, resizing")


@pytest.mark.rule("board.shared-backend")
@pytest.mark.parametrize(
    "exhausted",
    [
        "connection pool exhausted: all 20 connections busy, 35 requests waiting",
        "worker pool saturated, 120 tasks queued",
    ],
)
def test_a_callers_own_exhausted_pool_is_not_a_back_end_filled_by_whoever_started(
    exhausted,
):
    analysis = _analysis(
        "quote-web",
        [
            _errors(
                "s1",
                "quote-web",
                errors=[
                    group(
                        "upstream quote-svc timed out after 5s",
                        count=80,
                        first_seen="2030-01-01T10:24:00Z",
                    )
                ],
            ),
            _errors(
                "s2", "quote-svc", errors=[group(exhausted, count=60, first_seen=T0)]
            ),
            _search(
                "s3",
                shared_backend.START_SEARCH,
                (
                    "ledger-batch",
                    "2030-01-01T10:12:00Z",
                    "info",
                    "nightly-rollup started",
                ),
            ),
        ],
    )

    assert not shared_backend.BLOCKED.search(exhausted)
    assert "application:ledger-batch" not in analysis.candidates


# --- a library shipped into several clients makes one of them hammer a cache ---------------------

SLOW_GET = "1:M 02 Jan 2030 10:20:01 # slowlog: id=771 9100 us GET cfg:rules:v9 (client 10.1.2.3:5511 web-shop)"


def _hot_key(*changes):
    return [
        _errors(
            "s1",
            "cart-bff",
            errors=[
                group(
                    "cart lookup failed: Command timed out",
                    count=80,
                    first_seen="2030-01-01T10:21:00Z",
                )
            ],
        ),
        _errors(
            "s2", "kv-shard-2", warnings=[group(SLOW_GET, count=60, first_seen=T0)]
        ),
        _errors(
            "s4",
            "web-shop",
            errors=[
                group(
                    "render failed: GET cfg:rules:v9 timed out", count=90, first_seen=T0
                )
            ],
        ),
        _obs(
            "s3",
            "search_logs",
            {"query": "web-shop.*(deploy|release)", "regex": True},
            _lines(*changes),
        ),
    ]


@pytest.mark.rule("board.shared-backend")
def test_a_library_a_release_shipped_into_the_named_client_and_a_failing_caller_is_the_cause():
    analysis = _analysis(
        "web-shop",
        _hot_key(
            (
                "release-bot",
                "2030-01-01T10:14:00Z",
                "info",
                "web-shop, cart-bff released with @corp/cfg-client 2.0.0 (PR #77)",
            )
        ),
    )

    top = _top(analysis)
    assert top.id == "application:@corp/cfg-client" and top.status == "confirmed"
    assert "cfg:rules:v9" in " ".join(e.fact for e in top.evidence)
    assert "shipped into web-shop" in top.statement
    shop = analysis.candidates.get("application:web-shop")
    assert shop is None or shop.confidence <= 0.4


@pytest.mark.rule("board.shared-backend")
def test_a_release_of_the_named_client_alone_leaves_the_client_blamed():
    analysis = _analysis(
        "web-shop",
        _hot_key(
            (
                "release-bot",
                "2030-01-01T10:14:00Z",
                "info",
                "web-shop released with @corp/cfg-client 2.0.0",
            )
        ),
    )

    assert _top(analysis).id == "application:web-shop"


# --- a broker policy drops another team's queue -------------------------------------------------

DROP = (
    "vhost 'prod': queue 'ledger.receipts' under policy 'metrics-limit' "
    "(max-length 5000, overflow reject-publish): rejecting new messages"
)
SET = "policy 'metrics-limit' set by ops-bot: pattern '' applies to all queues, max-length 5000"
MISSING = "receipt R-7781 requested at 10:02 but no receipt after 20 min"


@pytest.mark.rule("board.dropping-policy")
def test_a_broker_policy_that_rejects_another_queues_messages_is_the_cause():
    analysis = _analysis(
        "receipts",
        [
            _errors(
                "s1",
                "ledger",
                errors=[group(MISSING, count=40, first_seen="2030-01-01T10:30:00Z")],
            ),
            _search(
                "s2",
                dropping_policy.SEARCH,
                ("mq-broker", "2030-01-01T08:50:00Z", "info", SET),
                ("mq-broker", T0, "info", DROP),
            ),
        ],
    )

    top = _top(analysis)
    assert top.id == "application:metrics-limit" and top.status == "confirmed"
    assert "ledger.receipts" in top.statement
    cited = " ".join(e.fact for e in top.evidence)
    assert "rejecting new messages" in cited and "pattern ''" in cited
    ledger = analysis.candidates.get("application:ledger")
    assert ledger is None or ledger.confidence <= 0.4


@pytest.mark.rule("board.dropping-policy")
def test_a_policy_set_without_any_queue_losing_messages_blames_nothing():
    analysis = _analysis(
        "receipts",
        [
            _errors(
                "s1",
                "ledger",
                errors=[group(MISSING, count=40, first_seen="2030-01-01T10:30:00Z")],
            ),
            _search(
                "s2",
                dropping_policy.SEARCH,
                ("mq-broker", "2030-01-01T08:50:00Z", "info", SET),
            ),
        ],
    )

    assert "application:metrics-limit" not in analysis.candidates


@pytest.mark.rule("board.dropping-policy")
def test_the_policy_search_is_asked_only_when_work_is_said_to_be_missing():
    def ask(tool, arguments, why):
        return (tool, arguments, why)

    window = {"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00Z"}
    missing = _analysis(
        "receipts", [_errors("s1", "ledger", errors=[group(MISSING, count=4)])]
    )
    calls = dropping_policy.searches(missing.inv, missing.facts, ask, window)
    assert [c[1]["query"] for c in calls] == [dropping_policy.SEARCH]
    assert calls[0][1]["start"] == "2030-01-01T08:00:00Z"

    slow = _analysis(
        "receipts",
        [_errors("s1", "ledger", errors=[group("GET /r 500 timeout", count=4)])],
    )
    assert dropping_policy.searches(slow.inv, slow.facts, ask, window) == []


# --- keys written with one TTL expire together ---------------------------------------------------

MISS = "cache miss offer:8812, reading from offers-db"
WARM = "prime-offers: stored 610 400 keys offer:* ttl=43200 jitter=0 in 300s"


def _stampede(*entries):
    return [
        _errors(
            "s1",
            "offer-api",
            warnings=[group(MISS, count=800, first_seen="2030-01-01T10:21:00Z")],
            errors=[
                group(
                    "pool offers-db: timeout acquiring connection after 5000ms",
                    count=300,
                    first_seen="2030-01-01T10:23:00Z",
                )
            ],
        ),
        _search("s2", expiry_wave.SEARCH, *entries),
    ]


@pytest.mark.rule("board.expiry-wave")
def test_the_writer_that_gave_keys_one_ttl_without_jitter_is_the_cause():
    analysis = _analysis(
        "offers",
        _stampede(
            ("offer-primer", "2029-12-31T22:19:00Z", "info", WARM),
            (
                "kv-cache",
                T0,
                "info",
                "expired_keys/s 9100 (db0 keys 640 000 -> 30 000)",
            ),
        ),
    )

    top = _top(analysis)
    assert top.id == "application:offer-primer" and top.status == "confirmed"
    assert "jitter=0" in " ".join(e.fact for e in top.evidence)
    api = analysis.candidates.get("application:offer-api")
    assert api is None or api.confidence <= 0.4


@pytest.mark.rule("board.expiry-wave")
def test_a_writer_with_spread_ttls_and_no_mass_expiry_is_not_blamed():
    analysis = _analysis(
        "offers",
        _stampede(
            (
                "offer-primer",
                "2029-12-31T22:19:00Z",
                "info",
                "prime-offers: stored 610 400 keys ttl=43200 jitter=3600",
            ),
        ),
    )

    assert "application:offer-primer" not in analysis.candidates


@pytest.mark.rule("board.expiry-wave")
def test_the_ttl_search_is_asked_only_once_reads_miss_the_cache():
    def ask(tool, arguments, why):
        return (tool, arguments, why)

    window = {"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00Z"}
    missing = _analysis("offers", _stampede()[:1])
    calls = expiry_wave.searches(missing.inv, missing.facts, ask, window)
    assert [c[1]["query"] for c in calls] == [expiry_wave.SEARCH]
    assert (calls[0][1]["start"], calls[0][1]["end"]) == (
        "2030-01-01T05:02:00Z",
        "2030-01-01T11:00:00Z",
    )
    # nothing written with a TTL in the last day: the day before, once
    answered = _analysis(
        "offers", [*_stampede()[:1], _search("s2", expiry_wave.SEARCH)]
    )
    calls = expiry_wave.searches(answered.inv, answered.facts, ask, window)
    assert [(c[1]["start"], c[1]["end"]) for c in calls] == [
        ("2029-12-31T07:22:00Z", "2029-12-31T13:20:00Z")
    ]
    quiet = _analysis(
        "offers", [_errors("s1", "offer-api", errors=[group("GET /o 500", count=3)])]
    )
    assert expiry_wave.searches(quiet.inv, quiet.facts, ask, window) == []


# --- a release's requests refused by a back end for their weight -----------------------------------

HEAVY = 'msg="price histogram" err="docstore 429: circuit_breaking_exception: [request] Data too large"'


def _heavy(*entries):
    return [
        _errors(
            "s1",
            "pricing-svc",
            errors=[group(HEAVY, count=120, first_seen="2030-01-01T10:25:00Z")],
        ),
        _obs(
            "s2",
            "search_logs",
            {"query": "pricing-svc", "regex": True},
            _lines(*entries),
        ),
    ]


@pytest.mark.rule("board.refused-load")
def test_a_release_whose_requests_the_back_end_refuses_for_their_weight_is_an_http_fault():
    analysis = _analysis(
        "pricing-svc",
        _heavy(
            (
                "buildkite",
                "2030-01-01T10:10:00Z",
                "info",
                "deploy pricing-svc 7.3.0 (histogram over every sku)",
            )
        ),
    )

    top = _top(analysis)
    assert top.id == "http:pricing-svc" and top.status == "confirmed"
    cited = " ".join(e.fact for e in top.evidence)
    assert "Data too large" in cited and "7.3.0" in cited
    assert analysis.candidates["application:pricing-svc"].confidence <= 0.4


@pytest.mark.rule("board.refused-load")
def test_the_same_refusal_without_a_change_of_the_caller_stays_where_it_was():
    analysis = _analysis(
        "pricing-svc",
        _heavy(
            (
                "buildkite",
                "2030-01-01T08:10:00Z",  # hours before: not this
                "info",
                "deploy pricing-svc 7.3.0",
            )
        ),
    )

    assert "http:pricing-svc" not in analysis.candidates


# --- a consumer's own error names a topic that does not exist --------------------------------------

PARKED = (
    '{"level":"ERROR","logger":"RetryTopicRecoverer","message":"parking failed for stock-moves-3@88",'
    '"cause":"TimeoutException: Topic stock-moves.parked not present in metadata after 30000 ms"}'
)


@pytest.mark.rule("board.missing-destination")
def test_the_consumer_naming_a_missing_topic_outranks_the_reader_that_only_warns():
    analysis = _analysis(
        "stock levels",
        [
            _errors(
                "s1",
                "stock-view",
                warnings=[
                    group(
                        "stock stale: last movement 4100s ago",
                        count=60,
                        first_seen="2030-01-01T10:30:00Z",
                    )
                ],
            ),
            _errors(
                "s2",
                "movement-consumer",
                errors=[group(PARKED, count=20, first_seen=T0)],
            ),
        ],
    )

    top = _top(analysis)
    assert top.id == "application:movement-consumer"
    assert "stock-moves.parked" in top.statement
    assert missing_destination.MISSING.search('relation "orders_v2" does not exist')


@pytest.mark.rule("board.missing-destination")
def test_a_missing_topic_raises_nothing_once_another_finding_is_confirmed():
    analysis = _analysis(
        "stock levels",
        [
            _errors(
                "s1",
                "movement-consumer",
                errors=[group(PARKED, count=20, first_seen="2030-01-01T10:21:00Z")],
            ),
            _errors(
                "s2",
                "broker-3",
                errors=[group("No space left on device", count=40, first_seen=T0)],
            ),
        ],
    )

    consumer = analysis.candidates.get("application:movement-consumer")
    assert consumer is None or consumer.confidence <= 0.4
    assert _top(analysis).id == "application:broker-3"


# --- hostile input ---------------------------------------------------------------------------------


@pytest.mark.timeout(60)
def test_huge_adversarial_lines_stay_fast():
    junk = "policy 'x' queue " * 20000 + "full " * 20000 + "jitter=" * 20000
    hostile = [
        _errors(
            "s1",
            "victim",
            errors=[group(junk + " no receipt after 5 min", count=5, first_seen=T0)],
            warnings=[group("cache miss " + junk, count=5, first_seen=T0)],
        ),
        _errors("s2", "olap", warnings=[group("pool " + junk, count=5, first_seen=T0)]),
        _search("s3", dropping_policy.SEARCH, ("mq", T0, "info", "queue " + junk)),
        _search("s4", expiry_wave.SEARCH, ("w", T0, "info", "stored ttl " + junk)),
        _search(
            "s5", shared_backend.START_SEARCH, ("w", T0, "info", "job " + "a_" * 90000)
        ),
    ]
    hostile.append(
        _errors(
            "s6", "caller", errors=[group("429 " + junk + " 413 " * 20000, count=5)]
        )
    )
    analysis = _analysis("victim", hostile)
    assert all(len(c.statement) < 2000 for c in analysis.candidates.values())


# --- the planner asks for a dropping policy once work is said to be missing ------------------------


@pytest.mark.rule("board.dropping-policy")
def test_the_planner_finds_the_policy_that_drops_the_missing_work():
    world = World(
        {
            ("service_health", "ledger"): health("ledger", "healthy"),
            ("top_errors", "ledger"): logged(
                "ledger",
                errors=[group(MISSING, count=40, first_seen="2030-01-01T10:30:00Z")],
            ),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": "mq-broker",
                        "time": T0,
                        "level": "info",
                        "message": DROP,
                    },
                    {
                        "service": "mq-broker",
                        "time": "2030-01-01T08:50:00Z",
                        "level": "info",
                        "message": SET,
                    },
                ]
            },
        }
    )
    inv, _, report = run_with_schemas(
        world, incident("ledger", title="receipts never arrived"), NO_NETCHECK
    )

    assert any(
        o.tool == "search_logs" and o.arguments.get("query") == dropping_policy.SEARCH
        for o in inv.observations
    )
    top = report.ranked()[0]
    assert top.component == "metrics-limit" and top.layer == "application"
