"""A quiet back end or producer behind louder callers (`quiet_backend`, `upstream_producer`): the
callers quote its refusal in its product's words, its gauges stepped up and a line not at error
level says its state changed just before they failed, or a reader rejects what it wrote. Names and
wordings are invented.
"""

from datetime import UTC, datetime, timedelta

import pytest

from reasoning.layered import backend_gauges
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.quiet_backend import (
    REFUSALS,
    STATE_CHANGE,
    WAITING,
    _refused,
    state_lines,
    stepped,
)
from reasoning.layered.upstream_producer import ARTIFACT, REJECTED, WROTE, rejections
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

NAMES = (
    "service_health",
    "query_metric",
    "top_errors",
    "search_logs",
    "search_runbooks",
)
_BASE = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)  # an hour before the incident's window


def _series(name, labels, values):
    points = [
        [(_BASE + timedelta(minutes=i)).timestamp(), str(v)]
        for i, v in enumerate(values)
    ]
    return {"metric": {"__name__": name, **labels}, "values": points}


def _step(before, after, at=60):
    return [before if i < at else after for i in range(121)]


def _lines(*entries):
    """search_logs lines: (service, time, level, message)."""
    return {
        "lines": [
            {"service": s, "time": t, "level": lv, "message": m, "labels": {}}
            for s, t, lv, m in entries
        ]
    }


# --- the callers quote the back end's refusal ----------------------------------------------------

TOO_MANY = "psycopg.OperationalError: connection failed: FATAL:  sorry, too many clients already"


def _refusal_world(instances):
    return World(
        {
            ("query_metric", backend_gauges.QUERY): {
                "series": [
                    _series("pg_stat_activity_count", {"instance": who}, _step(80, 99))
                    for who in instances
                ]
            },
            ("service_health", "tariff-web"): health(
                "tariff-web", "unhealthy", FAILING
            ),
            ("top_errors", "tariff-web"): logged(
                "tariff-web", errors=[group(TOO_MANY, count=400)]
            ),
            ("search_logs", ""): _lines(),
        }
    )


@pytest.mark.rule("board.quiet-backend")
def test_callers_quoting_a_databases_refusal_blame_its_one_instance():
    _, _, report = run_with_schemas(
        _refusal_world(["pgmain-7:9187"]),
        incident("tariff-web", "prices page errors"),
        names=NAMES,
    )

    top = report.top
    assert top.id == "application:pgmain-7" and report.conclusive
    assert any("too many clients already" in e.fact for e in top.evidence)
    caller = next(h for h in report.hypotheses if h.id == "application:tariff-web")
    assert caller.status == "likely" and caller.confidence <= 0.4


@pytest.mark.rule("board.quiet-backend")
def test_two_instances_of_the_product_leave_the_refusal_unattributed():
    _, _, report = run_with_schemas(
        _refusal_world(["pgmain-7", "pgreports-2"]),
        incident("tariff-web", "prices page errors"),
        names=NAMES,
    )

    assert not any(
        h.id in ("application:pgmain-7", "application:pgreports-2")
        and h.status == "confirmed"
        for h in report.hypotheses
    )


# --- its gauges stepped up and a line says its state changed -------------------------------------

WAITS = "could not acquire a connection from the pool within 5000ms (in use 30/30)"
SWITCHED = (
    "array-monitor: shelf-3 on stor-east-4 write cache mode switched to write-through "
    "(battery relearn in progress)"
)


def _state_world(*, gauge, line_time="2030-01-01T10:13:00Z"):
    return World(
        {
            ("query_metric", backend_gauges.QUERY): {
                "series": [
                    _series(
                        "ceph_osd_apply_latency_ms", {"instance": "stor-east-4"}, gauge
                    )
                ]
            },
            ("service_health", "ledger-api"): health(
                "ledger-api", "unhealthy", FAILING
            ),
            ("top_errors", "ledger-api"): logged(
                "ledger-api", errors=[group(WAITS, count=300)]
            ),
            ("search_logs", ""): _lines(
                ("hw-agent", line_time, "warn", SWITCHED),
            ),
        }
    )


@pytest.mark.rule("board.quiet-backend")
def test_a_stepped_instance_whose_state_changed_just_before_is_the_cause():
    _, _, report = run_with_schemas(
        _state_world(gauge=_step(2, 40)),
        incident("ledger-api", "postings slow"),
        names=NAMES,
    )

    top = report.top
    assert top.id == "application:stor-east-4" and report.conclusive
    facts = " ".join(e.fact for e in top.evidence)
    assert "switched to write-through" in facts
    assert "ceph_osd_apply_latency_ms" in facts
    caller = next(h for h in report.hypotheses if h.id == "application:ledger-api")
    assert caller.status == "likely"


@pytest.mark.rule("board.quiet-backend")
def test_no_step_or_a_change_long_before_blames_no_instance():
    _, _, flat = run_with_schemas(
        _state_world(gauge=_step(2, 2)),
        incident("ledger-api", "postings slow"),
        names=NAMES,
    )
    _, _, early = run_with_schemas(
        _state_world(gauge=_step(2, 40), line_time="2030-01-01T08:40:00Z"),
        incident("ledger-api", "postings slow"),
        names=NAMES,
    )

    for report in (flat, early):
        assert not any(
            h.id == "application:stor-east-4" and h.status == "confirmed"
            for h in report.hypotheses
        )


def test_the_vocabularies_match_several_products_and_not_plain_words():
    assert any(p.search("MISCONF Redis is configured to save RDB") for p, _ in REFUSALS)
    assert any(p.search("Error 1040: Too many connections") for p, _ in REFUSALS)
    assert any(
        p.search("[cluster_block_exception] index read-only") for p, _ in REFUSALS
    )
    assert not any(p.search("order 77 is out of stock") for p, _ in REFUSALS)
    assert STATE_CHANGE.search("cache policy changed to WriteThrough")
    assert STATE_CHANGE.search("role demoted to replica")
    assert not STATE_CHANGE.search("cache hit ratio 0.93")
    assert WAITING.search("HikariPool-2 - Connection is not available")


def test_a_step_is_against_the_hour_before():
    start = (_BASE + timedelta(minutes=60)).timestamp()
    points = [
        ((_BASE + timedelta(minutes=i)).timestamp(), v)
        for i, v in enumerate(_step(1, 9))
    ]
    assert stepped(points, start)
    flat = [((_BASE + timedelta(minutes=i)).timestamp(), 3.0) for i in range(121)]
    assert stepped(flat, start) is None


@pytest.mark.timeout(60)
def test_huge_lines_are_read_in_bounded_time():
    text = "changed " * 25000 + "x" * 200000
    assert not STATE_CHANGE.search(text)
    assert not any(p.search("too many " * 25000) for p, _ in REFUSALS)
    assert not WAITING.search("pool " * 40000)


@pytest.mark.timeout(60)
def test_a_huge_line_naming_the_instance_is_read_in_bounded_time():
    huge = (
        "stor-east-4 cache switched to write-through " + "from " * 40000 + "x" * 200000
    )
    inv = Investigation(incident=incident("ledger-api"), tools=[])
    inv.observations.append(
        Observation(
            span_id="s1",
            agent="logs",
            server="logs",
            tool="search_logs",
            arguments={"query": "stor-east-4"},
            is_ok=True,
            result=_lines(("hw-agent", "2030-01-01T10:13:00Z", "warn", huge)),
        )
    )
    assert len(state_lines(inv, "stor-east-4")) == 1
    errors = Errors(inv.observations[0], "ledger-api", (ErrorGroup(huge, huge, 3),))
    assert not _refused(Facts(errors={"ledger-api": errors}), {})


# --- a reader rejecting what a producer wrote ------------------------------------------------------

PARSE = (
    "ValueError: could not convert string to float: '4.50,0' "
    "(row 812 of tariffs_daily.tsv)"
)
SKIPPED = (
    "import tariffs_daily.tsv: 3120 rows rejected as invalid amount, kept yesterday's"
)


def _producer_world(*producer_lines):
    return World(
        {
            ("service_health", "rate-loader"): health(
                "rate-loader", "unhealthy", FAILING
            ),
            ("top_errors", "rate-loader"): logged(
                "rate-loader",
                errors=[group(PARSE, count=120)],
                warnings=[group(SKIPPED, count=4)],
            ),
            ("search_logs", ""): _lines(*producer_lines),
        }
    )


@pytest.mark.rule("board.upstream-producer")
def test_a_reader_rejecting_a_file_blames_the_service_that_wrote_it():
    _, _, report = run_with_schemas(
        _producer_world(
            (
                "nightly-export",
                "2030-01-01T10:10:00Z",
                "info",
                "export done: wrote tariffs_daily.tsv (51,200 rows) to the shared bucket",
            ),
            (
                "rate-loader",
                "2030-01-01T10:12:00Z",
                "info",
                "reading tariffs_daily.tsv",
            ),
        ),
        incident("rate-loader", "tariffs stale"),
        names=NAMES,
    )

    top = report.top
    assert top.id == "application:nightly-export" and report.conclusive
    assert any("could not convert string to float" in e.fact for e in top.evidence)
    reader = next(h for h in report.hypotheses if h.id == "application:rate-loader")
    assert reader.status == "likely"


@pytest.mark.rule("board.upstream-producer")
def test_no_writer_or_two_writers_blame_no_producer():
    for entries in (
        (),
        (
            ("export-a", "2030-01-01T10:10:00Z", "info", "uploaded tariffs_daily.tsv"),
            ("export-b", "2030-01-01T10:11:00Z", "info", "generated tariffs_daily.tsv"),
        ),
    ):
        _, _, report = run_with_schemas(
            _producer_world(*entries),
            incident("rate-loader", "tariffs stale"),
            names=NAMES,
        )
        assert not any(
            h.id in ("application:export-a", "application:export-b")
            and h.status == "confirmed"
            for h in report.hypotheses
        )


def test_rejections_and_artifacts_are_read_in_several_wordings():
    assert REJECTED.search('java.lang.NumberFormatException: For input string: "1,5"')
    assert REJECTED.search('invalid input syntax for type numeric: "7,25"')
    assert REJECTED.search("json: cannot unmarshal string into Go struct field")
    assert not REJECTED.search("order 77 shipped")
    found = ARTIFACT.search("feed offers.csv: 10 rows rejected")
    assert (found.group(1) or found.group(2)) == "offers.csv"
    assert ARTIFACT.search("consuming topic=price-updates").group(2) == "price-updates"


@pytest.mark.timeout(60)
def test_a_huge_rejection_is_read_in_bounded_time():
    huge = "For input string " + "a.csv " * 30000 + "x" * 200000
    inv = Investigation(incident=incident("rate-loader"), tools=[])
    obs = Observation(
        span_id="s1",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": "rate-loader"},
        is_ok=True,
        result={},
    )
    errors = Errors(obs, "rate-loader", (ErrorGroup(huge, huge, 3, before=0),))
    assert rejections(Facts(errors={"rate-loader": errors}))
    assert not WROTE.search("z" * 200000)
    assert inv.observations == []
