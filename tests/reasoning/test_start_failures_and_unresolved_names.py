"""A dependency's own fault behind the victim that names it, with invented names: a refused host
whose server cannot start (`start_failures`), and a name a service looks up that no longer resolves
(`unresolved_names`).
"""

import pytest

from reasoning.layered.start_failures import server_name
from reasoning.layered.unresolved_names import unresolved_name
from tests.reasoning.test_planner import World, health, incident, probe, targets
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

LEDGER = "http://quill-store.corp.example:7070/healthz"
CALLER = "append failed: could not fetch the layout from quill-store, giving up"
START = (
    "[2031-03-02 04:10:11,220] ERROR Error starting the quill-store server\n"
    "com.example.quill.StoreInitializationException: cannot open the catalog\n"
    "Caused by: AccessDeniedException: principal quill is not allowed to read catalog_log"
)


def _refused_world(*, store_errors):
    answers = {
        ("service_health", "binder"): health("binder", "unhealthy", FAILING),
        ("top_errors", "binder"): logged("binder", errors=[group(CALLER, count=90)]),
        ("list_targets", ""): targets(LEDGER),
        ("probe_url", LEDGER): probe(
            LEDGER, "connect", "refused", ["connection refused (RST)"]
        ),
    }
    if store_errors is not None:
        answers[("top_errors", "quill-store")] = logged(
            "quill-store", errors=store_errors
        )
    return World(answers)


@pytest.mark.rule("board.cannot-start")
def test_a_refused_host_whose_server_fails_to_start_is_that_servers_connect_fault():
    world = _refused_world(store_errors=[group(START, count=40)])

    _, _, report = run_with_schemas(world, incident("binder", "binder fails"))

    assert ("top_errors", "quill-store") in world.asked
    assert report.top.id == "connect:quill-store"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "Error starting the quill-store server" in facts
    assert "reason=refused" in facts
    host = next(
        h for h in report.hypotheses if h.id == "connect:quill-store.corp.example"
    )
    assert host.status == "likely" and "fails to start" in host.statement


@pytest.mark.rule("board.cannot-start")
def test_a_refused_host_whose_server_logs_no_start_failure_is_not_this_fault():
    world = _refused_world(
        store_errors=[group("request handler failed: index 7 out of range", count=3)]
    )

    _, _, report = run_with_schemas(world, incident("binder", "binder fails"))

    # The refused host is named as its service (`service_hosts`); no start failure is blamed.
    assert all("fails to start" not in h.statement for h in report.hypotheses)


def test_a_start_failure_logged_before_the_window_too_is_not_this_fault():
    world = _refused_world(store_errors=[group(START, count=40, before=12)])

    _, _, report = run_with_schemas(world, incident("binder", "binder fails"))

    # The refused host is named as its service (`service_hosts`); no start failure is blamed.
    assert all("fails to start" not in h.statement for h in report.hypotheses)


def test_server_names_are_first_labels_that_name_a_service():
    assert server_name("quill-store.corp.example") == "quill-store"
    assert server_name("api.corp.example") is None
    assert server_name("10.2.0.4") is None
    assert server_name("store.corp.example") is None  # one word: no service's name


LOOKUP = (
    "2031-03-02T04:11:09Z\tERROR\tInvoke Error\t"
    '{"errorType":"Error","errorMessage":"querySrv ENOTFOUND '
    '_ledger._tcp.quarry-old.zk41p.dbhost.example","code":"ENOTFOUND"}'
)
RELAY = "export failed: upstream=receipt-render answered 502 for statement 8812"


def _lookup_world(render_errors):
    return World(
        {
            ("service_health", "receipts"): health("receipts", "unhealthy", FAILING),
            ("top_errors", "receipts"): logged(
                "receipts", errors=[group(RELAY, count=300)]
            ),
            ("service_health", "receipt-render"): health(
                "receipt-render", "unhealthy", FAILING
            ),
            ("top_errors", "receipt-render"): logged(
                "receipt-render", errors=render_errors
            ),
        }
    )


@pytest.mark.rule("board.unresolved-name")
def test_a_service_whose_own_new_errors_say_its_srv_name_is_gone_fails_at_dns():
    world = _lookup_world([group(LOOKUP, count=200)])

    _, _, report = run_with_schemas(
        world, incident("receipts", "receipt exports fail"), names=NO_NETCHECK
    )

    top = report.top
    assert top.id == "dns:_ledger._tcp.quarry-old.zk41p.dbhost.example"
    assert top.status == "confirmed"
    assert any("querySrv ENOTFOUND" in e.fact for e in top.evidence)
    render = next(h for h in report.hypotheses if h.id == "application:receipt-render")
    assert render.status == "likely" and render.confidence <= 0.4


def test_a_service_failing_on_its_own_without_a_lookup_keeps_its_application_fault():
    world = _lookup_world(
        [group("render crashed: OutOfMemoryError: Java heap space", count=200)]
    )

    _, _, report = run_with_schemas(
        world, incident("receipts", "receipt exports fail"), names=NO_NETCHECK
    )

    assert all(h.layer != "dns" for h in report.hypotheses)


def test_unresolved_names_in_the_main_runtimes_words():
    assert unresolved_name(LOOKUP) == "_ledger._tcp.quarry-old.zk41p.dbhost.example"
    assert (
        unresolved_name("dial tcp: lookup vault.ops.example: no such host")
        == "vault.ops.example"
    )
    assert (
        unresolved_name("java.net.UnknownHostException: kv-7.store.example")
        == "kv-7.store.example"
    )
    assert unresolved_name("connection refused by kv-7.store.example") is None
    assert unresolved_name("ENOTFOUND and nothing named") is None


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_quickly():
    for hostile in (
        "querySrv ENOTFOUND " + "_a._tcp." * 40_000,
        "ENOTFOUND " + "a." * 100_000,
        "no such host " + "x-" * 100_000,
    ):
        unresolved_name(hostile)
    from reasoning.layered.start_failures import STARTING

    for hostile in ("error " * 50_000, "failed to " * 40_000, "a" * 200_000):
        STARTING.search(hostile[:4000])
    server_name("a-" * 100_000 + ".example")


# A worker that lost its saved position (`lost_position`): invented stream, store and cleaner.
WORKER_OOM = "2031-03-02 04:20:01 ERROR task billing-sink-0 died: java.lang.OutOfMemoryError: Java heap space"
WORKER_LOST = "2031-03-02 04:12:40 INFO [billing-sink|task-0] No previous offsets found, starting a full copy"
SWEEP = '{"level":"info","msg":"removing unused stream","stream":"sink.position-offsets","owner":"nightly-sweeper"}'


def _lost_world(sweeper_level="info", sweep_time="2030-01-01T08:10:00Z"):
    return World(
        {
            ("service_health", "ledger-sink"): health(
                "ledger-sink", "unhealthy", FAILING
            ),
            ("top_errors", "ledger-sink"): logged(
                "ledger-sink",
                errors=[group(WORKER_OOM, count=12)],
            ),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": "ledger-sink",
                        "time": "2030-01-01T10:12:40Z",
                        "level": "info",
                        "message": WORKER_LOST,
                        "labels": {},
                    },
                    {
                        "service": "stream-sweeper",
                        "time": sweep_time,
                        "level": sweeper_level,
                        "message": SWEEP,
                        "labels": {},
                    },
                ]
            },
        }
    )


@pytest.mark.rule("board.lost-position")
def test_a_worker_that_found_no_offsets_after_a_cleaner_deleted_their_store_blames_the_cleaner():
    world = _lost_world()

    _, _, report = run_with_schemas(
        world, incident("ledger-sink", "ledger sink restarts"), names=NO_NETCHECK
    )

    assert report.top.id == "application:stream-sweeper"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "sink.position-offsets" in facts and "No previous offsets found" in facts
    sink = next(h for h in report.hypotheses if h.id == "application:ledger-sink")
    assert sink.status == "likely" and sink.confidence <= 0.4


def test_a_deletion_logged_after_the_worker_started_over_or_as_an_error_is_not_the_cause():
    for world in (
        _lost_world(sweep_time="2030-01-01T10:40:00Z"),
        _lost_world(sweeper_level="error"),
    ):
        _, _, report = run_with_schemas(
            world, incident("ledger-sink", "ledger sink restarts"), names=NO_NETCHECK
        )
        assert all(h.id != "application:stream-sweeper" for h in report.hypotheses)


def test_lost_position_words():
    from reasoning.layered.lost_position import LOST

    assert LOST.search("No previous offsets found")
    assert LOST.search("no committed offsets were found for group g1")
    assert LOST.search("checkpoint not found at s3://bucket/ckpt")
    assert not LOST.search("committed offsets for 12 partitions")
    assert not LOST.search("no previous errors")


@pytest.mark.timeout(60)
def test_lost_position_lines_are_read_quickly():
    import re

    from reasoning.layered.lost_position import _DELETES, LOST, SEARCH

    re.compile(SEARCH.removeprefix("(?i)"))
    for hostile in (
        "no previous " * 30_000,
        "delete " * 30_000 + "offset",
        "offset " * 30_000,
        "checkpoint " + "x" * 200_000,
    ):
        LOST.search(hostile[:2000])
        _DELETES.search(hostile[:2000])
