"""Issue 21 class 4: a shared back end degraded by one party, its other users the loud victims
(reasoning/layered/shared_backend.py), and a provider's quota answered in the body of a 200
(reasoning/layered/shared_limits.py).

Names and wordings are invented (a MySQL metadata lock, a Kafka broker's full disk, Memcached
evictions, a SaaS API answering 200 with `quota_exceeded`); the servers' shapes are their own.
"""

import asyncio

import pytest

from reasoning.layered import LayeredPlanner, shared_backend, shared_limits
from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_unread_services import EVERY, _every, _tools, _with
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

TOOLS = ("service_health", "top_errors", "search_logs", "search_runbooks")


def _obs(span, tool, arguments, result):
    return Observation(
        span_id=span,
        agent="logs",
        server="logbook",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def _lines(*entries):
    """search_logs lines: (service, time, level, message)."""
    return {
        "lines": [
            {"service": s, "time": t, "level": lv, "message": m, "labels": {}}
            for s, t, lv, m in entries
        ]
    }


def _analysis(service, observations):
    inv = Investigation(incident=incident(service, "it hangs"), tools=[])
    inv.observations.extend(observations)
    return Analysis(inv, Facts.read(inv.observations))


def _errors(span, service, errors=(), warnings=()):
    return _obs(
        span,
        "top_errors",
        {"service": service, "warnings": True, "baseline_s": 3600},
        logged(service, errors=errors, warnings=warnings),
    )


def _starts(span, *entries):
    return _obs(
        span,
        "search_logs",
        {"query": shared_backend.START_SEARCH, "regex": True},
        _lines(*entries),
    )


def _top(analysis):
    live = [c for c in analysis.candidates.values() if c.status != "ruled_out"]
    return max(live, key=lambda c: c.confidence)


# --- a Kafka broker's disk fills: the new replay job that writes to it is the cause ------------

KAFKA_FULL = "ERROR Error while writing to checkpoint file /data/kafka-logs: No space left on device"
PRODUCER = "POST /events 503: KafkaTimeoutException: Topic clicks not present in metadata after 60000 ms"


def _kafka(start_lines):
    return [
        _errors(
            "s1",
            "event-gateway",
            errors=[group(PRODUCER, count=300, first_seen="2030-01-01T10:21:30Z")],
        ),
        _errors(
            "s2",
            "broker-3",
            errors=[group(KAFKA_FULL, count=40, first_seen="2030-01-01T10:20:10Z")],
        ),
        _starts("s3", *start_lines),
    ]


@pytest.mark.rule("board.shared-backend")
def test_a_party_that_started_a_job_just_before_a_broker_ran_out_of_disk_is_the_cause():
    analysis = _analysis(
        "event-gateway",
        _kafka(
            [
                (
                    "clickstream-replayer",
                    "2030-01-01T10:12:00Z",
                    "info",
                    "replay of 30 days of clicks started, writing to topic clicks-replay",
                ),
                # too early: an hour before the broker filled
                ("web-shop", "2030-01-01T09:10:00Z", "info", "web-shop 3.1.0 deployed"),
            ]
        ),
    )

    top = _top(analysis)
    assert top.id == "application:clickstream-replayer" and top.status == "confirmed"
    assert "broker-3" in top.statement and "replay of 30 days" in top.statement
    gateway = analysis.candidates.get("application:event-gateway")
    assert gateway is None or gateway.confidence <= 0.4


@pytest.mark.rule("board.shared-backend")
def test_a_broker_that_blocks_every_client_with_nobody_new_in_view_is_the_fault_itself():
    analysis = _analysis("event-gateway", _kafka([]))

    top = _top(analysis)
    assert top.id == "application:broker-3" and top.status == "confirmed"
    assert "No space left on device" in top.statement


@pytest.mark.rule("board.shared-backend")
def test_a_blocking_line_already_logged_before_the_window_blames_nobody():
    observations = [
        _errors(
            "s1",
            "event-gateway",
            errors=[group(PRODUCER, count=300, first_seen="2030-01-01T10:21:30Z")],
        ),
        _errors(
            "s2",
            "broker-3",
            errors=[
                group(
                    KAFKA_FULL, count=40, first_seen="2030-01-01T10:20:10Z", before=12
                )
            ],
        ),
    ]
    analysis = _analysis("event-gateway", observations)

    assert "application:broker-3" not in analysis.candidates or (
        analysis.candidates["application:broker-3"].status != "confirmed"
    )


# --- Memcached evicting keys, naming the client that floods it ----------------------------------

EVICTIONS = "evictions 52k/s in slab class 9; top setter client_name=thumb-prewarmer"
MISSES = "GET /catalog/42 504: upstream product-db timeout after cache miss storm"


@pytest.mark.rule("board.shared-backend")
def test_the_client_a_caches_own_eviction_line_names_is_the_cause():
    analysis = _analysis(
        "catalog-api",
        [
            _errors(
                "s1",
                "catalog-api",
                errors=[group(MISSES, count=200, first_seen="2030-01-01T10:31:00Z")],
            ),
            _errors(
                "s2",
                "memcached-pool",
                warnings=[
                    group(EVICTIONS, count=30, first_seen="2030-01-01T10:30:00Z")
                ],
            ),
            _errors("s3", "thumb-prewarmer"),
        ],
    )

    top = _top(analysis)
    assert top.id == "application:thumb-prewarmer" and top.status == "confirmed"
    assert "memcached-pool" in top.statement


@pytest.mark.rule("board.shared-backend")
def test_callers_failing_long_after_the_blocking_line_are_not_its_victims():
    analysis = _analysis(
        "catalog-api",
        [
            _errors(
                "s1",
                "catalog-api",
                errors=[group(MISSES, count=200, first_seen="2030-01-01T10:58:00Z")],
            ),
            _errors(
                "s2",
                "memcached-pool",
                warnings=[
                    group(EVICTIONS, count=30, first_seen="2030-01-01T10:05:00Z")
                ],
            ),
        ],
    )

    assert "application:thumb-prewarmer" not in analysis.candidates


# --- a MySQL metadata lock queue: the schema migration that started just before ---------------

MDL_CALLER = "POST /api/orders 500: (1205, 'Lock wait timeout exceeded; try restarting transaction')"
MDL_WAIT = (
    "Waiting for table metadata lock: ALTER TABLE orders ADD INDEX idx_region (region)"
)


@pytest.mark.rule("board.shared-backend")
def test_a_migration_that_started_just_before_a_metadata_lock_queue_is_the_cause():
    every = _lines(
        ("orders-mysql", "2030-01-01T10:16:05Z", "warning", MDL_WAIT),
        (
            "fulfilment-svc",
            "2030-01-01T10:16:00Z",
            "info",
            "gh-ost: starting migration of orders (add index idx_region)",
        ),
        ("orders-mysql", "2030-01-01T10:16:40Z", "warning", MDL_WAIT),
    )
    world = World(
        {
            ("service_health", "order-api"): health("order-api", "unhealthy", FAILING),
            ("top_errors", "order-api"): logged(
                "order-api",
                errors=[
                    group(MDL_CALLER, count=500, first_seen="2030-01-01T10:16:30Z")
                ],
            ),
            ("search_logs", ""): every,
        }
    )

    inv, _, report = run_with_schemas(
        world, incident("order-api", "orders hang"), names=TOOLS
    )

    assert any(
        o.arguments.get("query") == shared_backend.START_SEARCH
        for o in inv.observations
    )
    top = report.top
    assert top.id == "application:fulfilment-svc" and report.conclusive
    assert "orders-mysql" in top.statement


@pytest.mark.timeout(60)
def test_blocking_and_quota_words_read_in_linear_time_on_hostile_lines():
    # Ten times the 20 000 characters a quadratic pattern already takes seconds on: a linear
    # read finishes in milliseconds, a quadratic one runs into the timeout (no wall-clock bound
    # to flake on a loaded machine).
    lines = (
        "log directory " * 20_000 + "a" * 200_000,
        "still waiting for " + "A" * 200_000,
        "exceeded " + "x " * 100_000,
        "over_" * 40_000 + "quota",
    )
    for line in lines:
        shared_backend.BLOCKED.search(line)
        shared_backend._START.search(line)
        shared_limits.LIMITED.search(line)


# --- a SaaS API answering 200 with a quota status -----------------------------------------------

QUOTA_200 = 'send receipt 8812: POST https://api.mailforge.example/v2/send 200 {"status":"quota_exceeded"}'


def _quota_world(batch=False):
    answers = {
        ("service_health", "receipts"): health("receipts", "unhealthy", FAILING),
        ("top_errors", "receipts"): logged(
            "receipts", errors=[group(QUOTA_200, count=400)]
        ),
    }
    return answers, batch


@pytest.mark.rule("board.shared-rate-limit")
def test_a_quota_status_in_the_body_of_a_200_is_the_providers_limit():
    answers, _ = _quota_world()
    _, _, report = run_with_schemas(
        World(answers), incident("receipts", "receipts not sent"), names=TOOLS
    )

    assert report.top.id == "http:api.mailforge.example" and report.conclusive
    assert "quota_exceeded" in report.top.statement


@pytest.mark.rule("board.shared-rate-limit")
def test_a_batch_quoting_the_same_limit_is_the_co_tenant_that_used_it_up():
    analysis = _analysis(
        "receipts",
        [
            _errors("s1", "receipts", errors=[group(QUOTA_200, count=400)]),
            _errors(
                "s2",
                "newsletter-import",
                warnings=[
                    group("contact 77 skipped: RESOURCE_EXHAUSTED, retrying next batch")
                ],
            ),
        ],
    )

    top = _top(analysis)
    assert top.id == "http:newsletter-import" and top.status == "confirmed"
    assert analysis.candidates["http:api.mailforge.example"].status == "likely"


@pytest.mark.rule("board.shared-rate-limit")
def test_the_planner_reads_every_services_errors_to_find_the_batch_on_the_same_key():
    world = World(
        {
            ("service_health", "receipts"): health("receipts", "unhealthy", FAILING),
            ("top_errors", "receipts"): logged(
                "receipts", errors=[group(QUOTA_200, count=400)]
            ),
            ("top_errors", ""): _every(
                _with("receipts", QUOTA_200, count=400),
                warnings=[
                    _with(
                        "crm-backfill",
                        "contact 77 not enriched: 200 OVER_QUOTA, retrying",
                        count=900,
                    )
                ],
            ),
        }
    )
    planner = LayeredPlanner()
    inv = Investigation(
        incident=incident("receipts", "receipts not sent"), tools=_tools(EVERY)
    )
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    report = asyncio.run(planner.conclude(inv))

    assert ("top_errors", "") in world.asked
    assert report.top.id == "http:crm-backfill" and report.conclusive
    assert any(h.id == "http:api.mailforge.example" for h in report.hypotheses)


# --- a table's or a topic's provisioned capacity used up by one consumer ------------------------

THROTTLED = (
    "PutItem order-journal failed: ProvisionedThroughputExceededException: Rate of requests "
    "exceeds the allowed throughput (retries exhausted)"
)
WCU_ALARM = (
    "ALARM order-journal-write-throttles: WriteThrottleEvents 9120 > 50 (table order-journal, "
    "ConsumedWriteCapacityUnits 1500 of 1500 provisioned)"
)


def _used(span, query, *entries):
    return _obs(
        span,
        "search_logs",
        {"query": query, "regex": True},
        _lines(*entries),
    )


def _table(consumer_lines, *, consumer_fails=False):
    observations = [
        _errors(
            "s1",
            "checkout-writer",
            errors=[group(THROTTLED, count=400, first_seen="2030-01-01T10:21:00Z")],
        ),
        _errors(
            "s2",
            "cloud-alarms",
            warnings=[group(WCU_ALARM, count=4, first_seen="2030-01-01T10:22:00Z")],
        ),
        _used("s3", "order\\-journal", *consumer_lines),
    ]
    if consumer_fails:
        observations.append(
            _errors(
                "s4",
                "journal-compactor",
                errors=[group(THROTTLED, count=40, first_seen="2030-01-01T10:21:30Z")],
            )
        )
    return _analysis("checkout-writer", observations)


BACKFILL = (
    "journal-compactor",
    "2030-01-01T10:14:00Z",
    "info",
    "rewrite pass 7: BatchWriteItem order-journal 25 items/req, 64 workers",
)


@pytest.mark.rule("board.shared-backend")
def test_a_consumer_naming_a_table_whose_capacity_ran_out_just_after_is_the_cause():
    analysis = _table([BACKFILL])

    top = _top(analysis)
    assert top.id == "application:journal-compactor" and top.status == "confirmed"
    assert "order-journal" in top.statement
    assert any("64 workers" in e.fact for e in top.evidence)
    writer = analysis.candidates.get("application:checkout-writer")
    assert writer is None or writer.confidence <= 0.4


@pytest.mark.rule("board.shared-backend")
def test_a_brokers_throttled_producers_on_a_topic_blame_the_replay_that_named_it():
    throttled = (
        "quota: throttling producers on topic ledger-events, produce throughput at its maximum "
        "(byte-rate 50 MB/s)"
    )
    analysis = _analysis(
        "payments-api",
        [
            _errors(
                "s1",
                "payments-api",
                errors=[
                    group(
                        "publish to ledger-events failed: TimeoutException: Expiring 31 records",
                        count=200,
                        first_seen="2030-01-01T10:31:00Z",
                    )
                ],
            ),
            _errors(
                "s2",
                "kafka-3",
                warnings=[group(throttled, count=9, first_seen="2030-01-01T10:30:00Z")],
            ),
            _used(
                "s3",
                "ledger\\-events",
                (
                    "audit-replayer",
                    "2030-01-01T10:24:00Z",
                    "info",
                    "replaying 90 days into ledger-events from offset 0",
                ),
            ),
        ],
    )

    top = _top(analysis)
    assert top.id == "application:audit-replayer" and top.status == "confirmed"


def test_a_service_naming_the_table_that_fails_itself_is_a_victim_not_the_consumer():
    analysis = _table([(*BACKFILL[:3], BACKFILL[3])], consumer_fails=True)

    c = analysis.candidates.get("application:journal-compactor")
    assert c is None or c.status != "confirmed" or "order-journal" not in c.statement


def test_a_line_naming_the_table_long_before_the_alarm_is_no_consumer():
    early = ("journal-compactor", "2030-01-01T09:40:00Z", "info", BACKFILL[3])
    analysis = _table([early])

    c = analysis.candidates.get("application:journal-compactor")
    assert c is None or c.status != "confirmed"


def test_the_search_for_who_used_the_table_covers_the_lead_before_the_alarm():
    inv = Investigation(incident=incident("checkout-writer", "it hangs"), tools=[])
    inv.observations.extend(_table([]).inv.observations[:2])
    found = shared_backend.resource_search(inv, Facts.read(inv.observations))

    assert found is not None and found["query"] == "order\\-journal"
    assert found["start"] < "2030-01-01T10:22:00" <= found["end"]


@pytest.mark.rule("board.shared-backend")
def test_a_document_stores_exhausted_tickets_blame_the_export_that_read_the_collection():
    tickets = (
        "WiredTiger read tickets exhausted (128 of 128 in use) on collection sessions"
    )
    analysis = _analysis(
        "login-api",
        [
            _errors(
                "s1",
                "login-api",
                errors=[
                    group(
                        "session lookup failed: MongoTimeoutError: operation exceeded time limit",
                        count=300,
                        first_seen="2030-01-01T10:41:00Z",
                    )
                ],
            ),
            _errors(
                "s2",
                "mongo-rs0",
                warnings=[group(tickets, count=12, first_seen="2030-01-01T10:40:00Z")],
            ),
            _used(
                "s3",
                "sessions",
                (
                    "bi-export",
                    "2030-01-01T10:33:00Z",
                    "info",
                    "export job: full collection read of sessions to s3://bi-raw/ (no index)",
                ),
            ),
        ],
    )

    top = _top(analysis)
    assert top.id == "application:bi-export" and top.status == "confirmed"


# --- clients quoting the back end's refusal are not the back end ---------------------------------

SEARCH_FULL = (
    "[node-b7] flood stage disk watermark [95%] exceeded on [node-b7][/var/lib/search], "
    "all indices on this node will be marked read-only"
)
QUOTED = (
    "write to index audit-2031 rejected: index_closed_exception [FORBIDDEN/12/index read-only "
    "(api)]; writes are rejected"
)
FELLOW = "bulk of 200 docs failed: index_closed_exception on index catalog-v3"


def _search_cluster(with_own_line=True):
    observations = [
        _errors(
            "q1",
            "audit-writer",
            errors=[group(QUOTED, count=200, first_seen="2030-01-01T10:21:00Z")],
        ),
        _errors(
            "q2",
            "catalog-feeder",
            errors=[group(FELLOW, count=150, first_seen="2030-01-01T10:21:20Z")],
        ),
    ]
    if with_own_line:
        observations.append(
            _errors(
                "q3",
                "searchd",
                warnings=[
                    group(SEARCH_FULL, count=30, first_seen="2030-01-01T10:20:40Z")
                ],
            )
        )
    return observations


@pytest.mark.rule("board.shared-backend")
def test_a_client_quoting_the_refusal_fellow_clients_get_is_not_the_back_end():
    analysis = _analysis("audit-writer", _search_cluster())

    top = _top(analysis)
    assert top.id == "application:searchd" and top.status == "confirmed"
    assert any("flood stage disk watermark" in e.fact for e in top.evidence)
    writer = analysis.candidates.get("application:audit-writer")
    assert writer is None or writer.confidence < top.confidence


def test_without_the_back_ends_own_line_the_quoting_client_is_kept():
    found = shared_backend.blocked(
        Investigation(
            incident=incident("audit-writer", "it hangs"),
            tools=[],
            observations=_search_cluster(with_own_line=False),
        ),
        Facts.read(_search_cluster(with_own_line=False)),
    )
    assert [b.backend for b in found] == ["audit-writer"]


@pytest.mark.timeout(60)
def test_error_classes_read_in_linear_time_on_hostile_lines():
    hostile = "a" * 200_000 + "_exception " + "x_" * 20_000
    analysis = _analysis(
        "audit-writer",
        [
            _errors(
                "h1", "audit-writer", errors=[group(hostile + " writes are rejected")]
            ),
            _errors("h2", "catalog-feeder", errors=[group(hostile)]),
        ],
    )
    assert analysis.candidates is not None


# --- a broker whose own errors were logged before the window too: the start is a trigger -------

ARCHIVER = "ERROR segment uploader to cold storage failed: AccessDenied for role tiering-writer"


@pytest.mark.rule("board.shared-backend")
def test_a_back_end_failing_on_its_own_before_a_job_started_is_the_fault_not_the_job():
    observations = _kafka(
        [
            (
                "clickstream-replayer",
                "2030-01-01T10:12:00Z",
                "info",
                "replay of 30 days of clicks started, writing to topic clicks-replay",
            ),
        ]
    )
    observations[1] = _errors(
        "s2",
        "broker-3",
        errors=[
            group(KAFKA_FULL, count=40, first_seen="2030-01-01T10:20:10Z"),
            group(ARCHIVER, count=300, before=120, first_seen="2030-01-01T10:00:05Z"),
        ],
    )
    analysis = _analysis("event-gateway", observations)

    top = _top(analysis)
    assert top.id == "application:broker-3"
    replayer = analysis.candidates.get("application:clickstream-replayer")
    assert replayer is None or replayer.status != "confirmed"


def test_the_back_end_is_read_before_a_starter_is_blamed_for_its_full_disk():
    inv = Investigation(incident=incident("event-gateway", "it hangs"), tools=[])
    inv.observations.extend(
        [
            _errors(
                "s1",
                "event-gateway",
                errors=[group(PRODUCER, count=300, first_seen="2030-01-01T10:21:30Z")],
            ),
            _obs(
                "s2",
                "search_logs",
                {"query": "kafka-logs"},
                _lines(("broker-3", "2030-01-01T10:20:10Z", "warn", KAFKA_FULL)),
            ),
            _starts(
                "s3",
                (
                    "clickstream-replayer",
                    "2030-01-01T10:12:00Z",
                    "info",
                    "replay of 30 days of clicks started",
                ),
            ),
        ]
    )
    assert shared_backend.backend_read(inv, Facts.read(inv.observations)) == "broker-3"
    inv.observations.append(
        _errors("s4", "broker-3", errors=[group(ARCHIVER, count=300, before=120)])
    )
    facts = Facts.read(inv.observations)
    assert shared_backend.backend_read(inv, facts) is None
    assert shared_backend.failing_before(facts, "broker-3")
