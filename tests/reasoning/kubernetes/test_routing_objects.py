"""The routing object between a caller and its pods is the fault, not the workloads that suffer
(issue 21 classes 1 and 4): a Service's targetPort no server of its Ready pods listens on, a
headless Service whose callers dial its pods' old addresses, ClientIP affinity whose hot pods
happen to share a healthy node, and the cluster DNS forwarding every outside name to a dead
resolver. Invented names."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.headless_callers import _stale_dial
from reasoning.layered.kubernetes.listen_ports import listened_ports

from .answers import answer, table
from .test_infrastructure import (
    deployments,
    describe,
    diagnosed,
    events,
    listing,
    logs,
    namespaces,
    nodes,
)

NS = "orchard"
POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")


def pod_list(ns, *rows):
    """Pods as (name, ready, status, restarts, ip, node, labels)."""
    return answer(
        "get_resources",
        {"kind": "pods", "namespace": ns, "wide": True, "show_labels": True},
        table(
            POD_HEADER,
            *((n, r, s, x, "20m", ip, node, lab) for n, r, s, x, ip, node, lab in rows),
        ),
    )


def services(ns, *rows):
    """Services as (name, cluster ip, ports, selector)."""
    return listing(
        "services",
        ns,
        ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
        *(
            (n, "ClusterIP", ip, "<none>", ports, "200d", sel)
            for n, ip, ports, sel in rows
        ),
    )


def endpoints(ns, *rows):
    return listing(
        "endpoints",
        ns,
        ("NAME", "ENDPOINTS", "AGE"),
        *((n, e, "200d") for n, e in rows),
    )


def service_describe(
    ns, name, *, target="7070/TCP", ip="10.40.0.12", endpoints_cell="", affinity="None"
):
    return describe(
        "service",
        ns,
        name,
        f"Name:              {name}\nNamespace:         {ns}\nSelector:          app={name}\n"
        f"Type:              ClusterIP\nIP:                {ip}\nPort:              http  80/TCP\n"
        f"TargetPort:        {target}\nEndpoints:         {endpoints_cell}\n"
        f"Session Affinity:  {affinity}\nEvents:            <none>\n",
    )


# --- a targetPort the pods' servers do not listen on ----------------------------------------------

PEAR = ("pear-pricer-7c9d8b6f5-a1b2c", "pear-pricer-7c9d8b6f5-d3e4f")
PEAR_IPS = ("10.60.1.21", "10.60.2.22")
SLOG = (
    '2030-01-01T10:00:00Z level=INFO msg="metrics server listening" addr=:9102\n'
    '2030-01-01T10:00:01Z level=INFO msg="api listening" addr=0.0.0.0:7443\n'
)
TOMCAT = "2030-01-01 10:00:01.120  INFO 1 --- [main] o.s.b.w.e.tomcat.TomcatWebServer : Tomcat started on port(s): 8181 (http)\n"
REFUSED = (
    '{"level":"error","msg":"quote failed","err":"Post \\"http://pear-pricer.orchard.svc/quote\\": '
    'dial tcp 10.60.1.21:7070: connect: connection refused"}\n'
)


def port_cluster(server_log=SLOG, caller_log=REFUSED, target="7070/TCP"):
    cell = ",".join(f"{ip}:7070" for ip in PEAR_IPS)
    return [
        namespaces(NS),
        nodes(("pool-c-1", "Ready"), ("pool-c-2", "Ready")),
        pod_list(
            NS,
            (
                PEAR[0],
                "1/1",
                "Running",
                "0",
                PEAR_IPS[0],
                "pool-c-1",
                "app=pear-pricer",
            ),
            (
                PEAR[1],
                "1/1",
                "Running",
                "0",
                PEAR_IPS[1],
                "pool-c-2",
                "app=pear-pricer",
            ),
            (
                "orchard-web-5d8c7b9f6-x1y2z",
                "1/1",
                "Running",
                "0",
                "10.60.1.40",
                "pool-c-1",
                "app=orchard-web",
            ),
        ),
        deployments(NS, ("pear-pricer", "2/2"), ("orchard-web", "1/1")),
        services(
            NS,
            ("pear-pricer", "10.40.0.12", "80/TCP", "app=pear-pricer"),
            ("orchard-web", "10.40.0.13", "80/TCP", "app=orchard-web"),
        ),
        endpoints(NS, ("pear-pricer", cell), ("orchard-web", "10.60.1.40:8080")),
        events(NS),
        service_describe(NS, "pear-pricer", target=target, endpoints_cell=cell),
        describe(
            "deployment",
            NS,
            "pear-pricer",
            "Name: pear-pricer\nPod Template:\n  Containers:\n   pear-pricer:\n    Port:       7070/TCP (web)\n",
        ),
        logs(NS, PEAR[0], server_log, previous=False),
        logs(NS, "orchard-web-5d8c7b9f6-x1y2z", caller_log, previous=False),
    ]


@pytest.mark.rule("k8s.target-port-not-listened")
@pytest.mark.parametrize("server_log", [SLOG, TOMCAT])
def test_a_target_port_no_ready_pods_server_listens_on_is_the_services_fault(
    server_log,
):
    found = diagnosed(*port_cluster(server_log), service="orchard-web")

    service = found["service/pear-pricer"]
    assert (service.reason, service.layer) == ("TargetPortMismatch", layers.CONNECT)
    assert "7070" in service.statement
    assert any("connection refused" in fact for _, fact in service.evidence)
    assert any("listens on" in fact for _, fact in service.evidence)


@pytest.mark.rule("k8s.target-port-not-listened")
def test_pods_listening_on_the_target_port_or_callers_not_refused_are_no_fault():
    listening = diagnosed(
        *port_cluster('level=INFO msg="api listening" addr=:7070\n'),
        service="orchard-web",
    )
    served = diagnosed(
        *port_cluster(caller_log="GET /quote 200 12ms\n"), service="orchard-web"
    )

    for found in (listening, served):
        assert (
            "service/pear-pricer" not in found
            or found["service/pear-pricer"].reason != "TargetPortMismatch"
        )


@pytest.mark.rule("k8s.target-port-not-listened")
def test_a_named_target_port_no_container_port_carries_is_the_services_fault():
    found = diagnosed(*port_cluster(target="http-api/TCP"), service="orchard-web")

    service = found["service/pear-pricer"]
    assert service.reason == "TargetPortMismatch"
    assert "http-api" in service.statement


def test_listen_lines_name_their_ports_not_their_timestamps_or_json_numbers():
    assert [p for p, _ in listened_ports(SLOG)] == ["9102", "7443"]
    assert [
        p
        for p, _ in listened_ports(
            '{"level":30,"msg":"Server listening at http://0.0.0.0:3000"}'
        )
    ] == ["3000"]
    assert listened_ports("2030-01-01T10:00:00Z level=INFO msg=ready\n") == []


@pytest.mark.timeout(60)
def test_hostile_listen_lines_are_read_in_linear_time():
    hostile = "listening " + ":" * 200_000 + "a" * 100_000
    listened_ports((hostile + "\n") * 3)
    _stale_dial(
        [(None, ("timed out " + "1.2.3.4:" * 50_000 + "\n") * 3)], {"8108"}, set()
    )


# --- a headless Service whose callers cached its pods' old addresses ------------------------------

QUINCE = ("quince-search-0", "quince-search-1")
QUINCE_IPS = ("10.61.1.31", "10.61.2.32")
NGINX = (
    "2030/01/01 10:12 [error] 7#7: *881 upstream timed out (110: Connection timed out) while "
    'connecting to upstream, client: 10.61.9.9, upstream: "http://10.61.3.77:7700/search"\n'
)
JAVA = (
    "2030-01-01 10:12:00 ERROR c.o.SearchClient - search failed: java.net.SocketTimeoutException: "
    "connect timed out to quince-search.orchard.svc.cluster.local/10.61.3.77:7700\n"
)


def headless_cluster(caller_log=NGINX, cluster_ip="None"):
    cell = ",".join(f"{ip}:7700" for ip in QUINCE_IPS)
    return [
        namespaces(NS),
        nodes(("pool-c-1", "Ready"), ("pool-c-2", "Ready")),
        pod_list(
            NS,
            (
                QUINCE[0],
                "1/1",
                "Running",
                "0",
                QUINCE_IPS[0],
                "pool-c-1",
                "app=quince-search",
            ),
            (
                QUINCE[1],
                "1/1",
                "Running",
                "0",
                QUINCE_IPS[1],
                "pool-c-2",
                "app=quince-search",
            ),
            (
                "help-portal-6f7d8c9b5-k2m3n",
                "1/1",
                "Running",
                "0",
                "10.61.1.50",
                "pool-c-1",
                "app=help-portal",
            ),
        ),
        deployments(NS, ("help-portal", "1/1")),
        services(
            NS,
            ("quince-search", cluster_ip, "7700/TCP", "app=quince-search"),
            ("help-portal", "10.40.0.21", "80/TCP", "app=help-portal"),
        ),
        endpoints(NS, ("quince-search", cell), ("help-portal", "10.61.1.50:8080")),
        events(
            NS,
            (
                "Normal",
                "Scheduled",
                f"Pod/{QUINCE[0]}",
                "Successfully assigned to pool-c-1",
            ),
        ),
        logs(NS, "help-portal-6f7d8c9b5-k2m3n", caller_log, previous=False),
    ]


@pytest.mark.rule("k8s.headless-stale-addresses")
@pytest.mark.parametrize("caller_log", [NGINX, JAVA])
def test_callers_dialling_an_old_pod_address_of_a_headless_service_blame_the_service(
    caller_log,
):
    found = diagnosed(*headless_cluster(caller_log), service="help-portal")

    service = found["service/quince-search"]
    assert (service.reason, service.layer) == ("HeadlessService", layers.CONNECT)
    assert "10.61.3.77:7700" in service.statement
    assert any("timed out" in fact for _, fact in service.evidence)


@pytest.mark.rule("k8s.headless-stale-addresses")
def test_a_virtual_ip_service_or_a_current_address_is_no_headless_fault():
    virtual = diagnosed(
        *headless_cluster(cluster_ip="10.40.0.20"), service="help-portal"
    )
    current = diagnosed(
        *headless_cluster(NGINX.replace("10.61.3.77", QUINCE_IPS[0])),
        service="help-portal",
    )

    for found in (virtual, current):
        assert "service/quince-search" not in found


# --- ClientIP affinity whose hot pods share a healthy node ----------------------------------------

PLUM = [
    f"plum-ingest-8b9c7d6f5-{s}"
    for s in ("a1b2c", "b2c3d", "c3d4e", "d4e5f", "e5f6g", "f6g7h")
]


def affinity_cluster(affinity="ClientIP"):
    ips = [f"10.62.{i}.{10 + i}" for i in range(6)]
    node = ["pool-d-1", "pool-d-2", "pool-d-3", "pool-d-1", "pool-d-2", "pool-d-3"]
    cell = ",".join(f"{ip}:8080" for ip in ips)
    return [
        namespaces(NS),
        nodes(("pool-d-1", "Ready"), ("pool-d-2", "Ready"), ("pool-d-3", "Ready")),
        pod_list(
            NS,
            *(
                (p, "1/1", "Running", "0", ips[i], node[i], "app=plum-ingest")
                for i, p in enumerate(PLUM)
            ),
            (
                "relay-7c6d5b8f9-z1x2c",
                "1/1",
                "Running",
                "0",
                "10.62.9.9",
                "pool-d-1",
                "app=relay",
            ),
        ),
        deployments(NS, ("plum-ingest", "6/6"), ("relay", "1/1")),
        services(
            NS,
            ("plum-ingest", "10.40.0.31", "80/TCP", "app=plum-ingest"),
            ("relay", "10.40.0.32", "80/TCP", "app=relay"),
        ),
        endpoints(NS, ("plum-ingest", cell), ("relay", "10.62.9.9:8080")),
        # The two hot pods both run on pool-d-2, which is healthy.
        events(
            NS,
            (
                "Warning",
                "Unhealthy",
                f"Pod/{PLUM[1]}",
                "Readiness probe failed: context deadline exceeded",
            ),
            (
                "Warning",
                "Unhealthy",
                f"Pod/{PLUM[4]}",
                "Readiness probe failed: context deadline exceeded",
            ),
        ),
        service_describe(
            NS, "plum-ingest", target="8080/TCP", endpoints_cell=cell, affinity=affinity
        ),
    ]


@pytest.mark.rule("k8s.session-affinity")
def test_client_ip_affinity_is_blamed_though_its_hot_pods_share_a_healthy_node():
    found = diagnosed(*affinity_cluster(), service="relay")

    service = found["service/plum-ingest"]
    assert (service.reason, service.layer) == ("SessionAffinity", layers.CONNECT)


@pytest.mark.rule("k8s.session-affinity")
def test_without_affinity_hot_pods_on_one_node_blame_no_service():
    found = diagnosed(*affinity_cluster(affinity="None"), service="relay")

    assert "service/plum-ingest" not in found


# --- the cluster DNS forwarding every outside name to a dead resolver -----------------------------

DEAD_FORWARD = "".join(
    f"[ERROR] plugin/errors: 2 {host}. A: read udp 10.9.0.31:5{i}211->10.77.0.53:53: i/o timeout\n"
    for i, host in enumerate(
        ("api.parcelbird.test", "rest.quickship.example", "geo.mapsy.test")
    )
)
OUTSIDE_LOOKUP = (
    "rate call failed: dial tcp: lookup api.parcelbird.test on 10.96.0.10:53: read udp "
    "10.9.3.7:41000->10.96.0.10:53: i/o timeout\n"
)


def forward_cluster(dns_log=DEAD_FORWARD, dns="coredns-6c8d9f7b5-q1w2e"):
    return [
        namespaces(NS, "kube-system"),
        nodes(("pool-c-1", "Ready")),
        pod_list(
            "kube-system",
            (dns, "1/1", "Running", "0", "10.9.0.31", "pool-c-1", "k8s-app=kube-dns"),
        ),
        logs("kube-system", dns, dns_log, previous=False),
        pod_list(
            NS,
            (
                "till-web-5c6d7f8b9-a1b2c",
                "1/1",
                "Running",
                "0",
                "10.9.3.6",
                "pool-c-1",
                "app=till-web",
            ),
            (
                "carrier-rates-7d8f9c6b5-b2c3d",
                "1/1",
                "Running",
                "0",
                "10.9.3.7",
                "pool-c-1",
                "app=carrier-rates",
            ),
        ),
        deployments(NS, ("till-web", "1/1"), ("carrier-rates", "1/1")),
        events(NS),
        logs(NS, "carrier-rates-7d8f9c6b5-b2c3d", OUTSIDE_LOOKUP, previous=False),
    ]


@pytest.mark.rule("k8s.cluster-dns-upstream")
@pytest.mark.parametrize(
    ("pod", "config"),
    [
        ("coredns-6c8d9f7b5-q1w2e", "configmap/coredns"),
        ("node-local-dns-x7k2p", "configmap/node-local-dns"),
    ],
)
def test_outside_names_of_several_domains_failing_upstream_put_the_forward_on_every_path(
    pod, config
):
    found = diagnosed(*forward_cluster(dns=pod), service="till-web")

    config = found[config]
    assert config.reason == "UpstreamDNSUnreachable"
    assert "10.77.0.53" in config.statement
    assert config.is_relevant


@pytest.mark.rule("k8s.cluster-dns-upstream")
def test_one_zone_failing_upstream_off_the_path_stays_off_it():
    one_zone = "".join(
        f"[ERROR] plugin/errors: 2 {h}.corp.pearnet.test. A: read udp 10.9.0.31:5{i}211->10.77.0.53:53: i/o timeout\n"
        for i, h in enumerate(("vault", "git"))
    )
    lookup = "lookup vault.corp.pearnet.test on 10.96.0.10:53: server misbehaving\n"
    observations = forward_cluster(one_zone)
    observations[-1] = logs(NS, "carrier-rates-7d8f9c6b5-b2c3d", lookup, previous=False)
    found = diagnosed(*observations, service="till-web")

    assert not found["configmap/coredns"].is_relevant
