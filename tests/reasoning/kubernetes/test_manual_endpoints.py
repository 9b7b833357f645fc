"""A Service without a selector whose hand-written Endpoints went stale (issue 21 classes 1 and 4):
its endpoints list no pod's address and its callers cannot connect through its name, so the
endpoints, not the callers, are the fault (`routing.stale_manual_endpoints`). Invented names."""

import pytest

from reasoning import layers

from .test_infrastructure import (
    deployments,
    describe,
    diagnosed,
    events,
    listing,
    logs,
    namespaces,
    nodes,
    pods,
)

NS = "billing"
CALLER = "invoice-pusher-5c7d8f9b6-qq1zz"
NO_ROUTE = (
    "2030-01-01T10:20:00Z ERROR send failed: java.net.NoRouteToHostException: No route to host "
    "calling http://mainframe-gw.billing.svc.cluster.local:9000/v1/invoices\n"
)
REFUSED = (
    'level=error msg="post ledger" err="dial tcp 172.20.9.4:7000: connect: connection '
    'refused" url=http://mainframe-gw:7000/post\n'
)


def manual_cluster(caller_log=NO_ROUTE, endpoints="10.200.4.11:9000,10.200.4.12:9000"):
    return [
        namespaces(NS),
        nodes(("pool-b-1", "Ready")),
        pods(NS, (CALLER, "1/1", "Running", "0", "pool-b-1", "app=invoice-pusher")),
        deployments(NS, ("invoice-pusher", "1/1")),
        listing(
            "services",
            NS,
            ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
            (
                "invoice-pusher",
                "ClusterIP",
                "172.20.9.3",
                "<none>",
                "8080/TCP",
                "90d",
                "app=invoice-pusher",
            ),
            (
                "mainframe-gw",
                "ClusterIP",
                "172.20.9.4",
                "<none>",
                "9000/TCP",
                "3y",
                "<none>",
            ),
        ),
        listing(
            "endpoints",
            NS,
            ("NAME", "ENDPOINTS", "AGE"),
            ("invoice-pusher", "10.9.0.7:8080", "90d"),
            ("mainframe-gw", endpoints, "3y"),
        ),
        events(NS),
        logs(NS, CALLER, caller_log, previous=False),
        describe(
            "service",
            NS,
            "mainframe-gw",
            f"Name: mainframe-gw\nNamespace: {NS}\nSelector: <none>\nType: ClusterIP\n"
            f"Endpoints: {endpoints}\n",
        ),
    ]


@pytest.mark.rule("k8s.stale-manual-endpoints")
@pytest.mark.parametrize("caller_log", [NO_ROUTE, REFUSED])
def test_a_selectorless_service_whose_endpoints_callers_cannot_reach_is_stale(
    caller_log,
):
    found = diagnosed(*manual_cluster(caller_log), service="invoice-pusher")

    service = found["service/mainframe-gw"]
    assert (service.reason, service.layer) == ("StaleEndpoints", layers.CONNECT)
    assert service.stage == "service_routing"
    assert "10.200.4.11" in service.statement
    assert any("Selector <none>" in f for _, f in service.evidence)
    assert any("a caller of mainframe-gw logs" in f for _, f in service.evidence)


@pytest.mark.rule("k8s.stale-manual-endpoints")
def test_a_selectorless_service_nobody_fails_to_reach_or_listing_a_pod_is_no_fault():
    quiet = diagnosed(
        *manual_cluster("2030-01-01T10:20:00Z INFO pushed 40 invoices\n"),
        service="invoice-pusher",
    )
    pod_backed = diagnosed(
        *manual_cluster(endpoints="10.9.0.7:9000"), service="invoice-pusher"
    )
    other = diagnosed(
        *manual_cluster(
            "ERROR dial tcp: connect: connection refused calling http://mainframe-gwx:9000/\n"
        ),
        service="invoice-pusher",
    )

    for found in (quiet, pod_backed, other):
        assert "service/mainframe-gw" not in found


@pytest.mark.timeout(60)
def test_hostile_caller_lines_are_read_in_linear_time():
    from reasoning.layered.kubernetes.routing import _failed_connect

    _failed_connect(
        "connection refused " + "mainframe-gw." * 20_000, "mainframe-gw", NS
    )
    _failed_connect(("x" * 200 + "\n") * 1000, "mainframe-gw", NS)
