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

    assert all(h.id != "connect:quill-store" for h in report.hypotheses)


def test_a_start_failure_logged_before_the_window_too_is_not_this_fault():
    world = _refused_world(store_errors=[group(START, count=40, before=12)])

    _, _, report = run_with_schemas(world, incident("binder", "binder fails"))

    assert all(h.id != "connect:quill-store" for h in report.hypotheses)


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
