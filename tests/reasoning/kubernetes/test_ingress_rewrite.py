"""An Ingress that changes the request (issue 21 class 1): a rewrite-target that turns its paths into
one the backend answers 404 for blames the Ingress, at connect (reasoning/layered/kubernetes/
ingress_rewrite.py); a backend an Ingress lists with endpoints is a service even when the services
table does not list it (routing.py's wrong_service)."""

import pytest

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.ingress_rewrite import rewrite_faults, rewritten
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.routing import routing_faults
from reasoning.observations import Observation

from .answers import NS, describe, listing

INGRESS = """Name:             market-api
Namespace:        shop
Ingress Class:    nginx
Rules:
  Host                 Path  Backends
  ----                 ----  --------
  api.plumtree.example
                       /basket(/|$)(.*)   basket-svc:8080 (10.40.1.7:8080,10.40.2.9:8080)
                       /stock(/|$)(.*)    stock-svc:8080 (10.40.1.8:8080)
Annotations:           nginx.ingress.kubernetes.io/proxy-read-timeout: 30
                       nginx.ingress.kubernetes.io/rewrite-target: {target}
                       nginx.ingress.kubernetes.io/use-regex: true
Events:                <none>
"""
NOT_SERVED = "GET / 404 0ms: no route for path /"
CALLER = "BasketView load failed: HTTP 404 api.plumtree.example/basket/v4/lines"


def _services() -> Observation:
    return listing(
        "services",
        ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
        ("basket-svc", "ClusterIP", "172.30.0.1", "<none>", "8080/TCP", "90d", ""),
        ("stock-svc", "ClusterIP", "172.30.0.2", "<none>", "8080/TCP", "90d", ""),
    )


def _cluster(target: str) -> Cluster:
    return Cluster.read(
        [
            _services(),
            listing(
                "ingresses",
                ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
                ("market-api", "nginx", "api.plumtree.example", "1.2.3.4", "80", "1y"),
            ),
            describe("ingress", "market-api", INGRESS.format(target=target)),
        ]
    )


def _logs(service: str, message: str, *, before: int = 0) -> Observation:
    group = {"signature": message, "sample": message, "count": 300, "before": before}
    return Observation(
        span_id=f"logs-{service}",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service, "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={"service": service, "top": [], "warnings": [group]},
    )


@pytest.mark.rule("k8s.ingress-rewrite")
def test_a_rewrite_to_one_path_the_backend_never_served_blames_the_ingress():
    facts = Facts.read([_logs("basket-svc", NOT_SERVED)])

    (finding,) = rewrite_faults(_cluster("/"), facts, NS, CALLER)

    assert finding.component == "ingress/market-api"
    assert (finding.stage, finding.reason, finding.layer) == (
        "service_routing",
        "IngressRewrite",
        layers.CONNECT,
    )
    facts_cited = [fact for _, fact in finding.evidence]
    assert any("rewrite-target: /" in fact for fact in facts_cited)
    assert any("no route for path /" in fact for fact in facts_cited)
    assert "/basket/v4/lines reaches it as /" in finding.statement
    assert finding.is_relevant  # a caller's failure names a request the rule took


@pytest.mark.rule("k8s.ingress-rewrite")
def test_no_failure_naming_a_request_leaves_the_rewrite_a_lead():
    facts = Facts.read([_logs("basket-svc", NOT_SERVED)])

    (finding,) = rewrite_faults(_cluster("/"), facts, NS, "")

    assert "every request reaches it as /" in finding.statement
    assert not finding.is_relevant


@pytest.mark.rule("k8s.ingress-rewrite")
@pytest.mark.parametrize(
    ("target", "message", "before"),
    [
        ("/$2", NOT_SERVED, 0),  # the rewrite keeps the rest: "/" is not what it sends
        ("/", NOT_SERVED, 120),  # the backend answered 404 for / before the window too
        ("/", "GET /v4/lines/9 404 line 9 not found", 0),  # not the rewritten path
    ],
)
def test_a_backend_404_that_is_not_the_rewritten_path_is_no_fault(
    target, message, before
):
    facts = Facts.read([_logs("basket-svc", message, before=before)])

    assert rewrite_faults(_cluster(target), facts, NS, CALLER) == []


@pytest.mark.rule("k8s.ingress-rewrite")
def test_a_rewrite_keeping_a_group_is_blamed_for_the_path_it_makes_of_a_request():
    facts = Facts.read([_logs("basket-svc", "GET /api/v4/lines 404 no handler")])

    (finding,) = rewrite_faults(_cluster("/api/$2"), facts, NS, CALLER)

    assert "/basket/v4/lines reaches it as /api/v4/lines" in finding.statement


def test_the_path_a_backend_receives():
    assert rewritten("/basket(/|$)(.*)", "/", "/basket/v4/lines") == "/"
    assert rewritten("/basket(/|$)(.*)", "/$2", "/basket/v4/lines") == "/v4/lines"
    assert rewritten("/basket(/|$)(.*)", "/$2", "/stock/1") is None
    assert rewritten("/basket(/|$)(.*)", "/$3", "/basket/x") == "/"


@pytest.mark.rule("k8s.routing")
def test_an_ingress_backend_with_endpoints_is_a_service_though_the_table_omits_it():
    cluster = Cluster.read(
        [
            listing(
                "services",
                (
                    "NAME",
                    "TYPE",
                    "CLUSTER-IP",
                    "EXTERNAL-IP",
                    "PORT(S)",
                    "AGE",
                    "SELECTOR",
                ),
                (
                    "stock-svc",
                    "ClusterIP",
                    "172.30.0.2",
                    "<none>",
                    "8080/TCP",
                    "90d",
                    "",
                ),
            ),
            listing(
                "ingresses",
                ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
                ("market-api", "nginx", "api.plumtree.example", "1.2.3.4", "80", "1y"),
            ),
            describe("ingress", "market-api", INGRESS.format(target="/$2")),
        ]
    )

    found = routing_faults(cluster, NS, Path(), "")

    assert not [f for f in found if f.component == "ingress/market-api"]


# --- a versioned API path routed to another Service (routing.py's wrong_service) ----------------

VERSIONED = """Name:             ledger-web
Namespace:        shop
Ingress Class:    nginx
Rules:
  Host                 Path  Backends
  ----                 ----  --------
  books.plumtree.example
                       /api/v2/invoices   invoices-exporter:9300 (10.40.1.7:9300)
                       /                  ledger-web:3000 (10.40.1.9:3000)
Events:                <none>
"""


def _versioned_cluster() -> Cluster:
    return Cluster.read(
        [
            listing(
                "services",
                (
                    "NAME",
                    "TYPE",
                    "CLUSTER-IP",
                    "EXTERNAL-IP",
                    "PORT(S)",
                    "AGE",
                    "SELECTOR",
                ),
                (
                    "invoices-api",
                    "ClusterIP",
                    "172.30.0.3",
                    "<none>",
                    "8080/TCP",
                    "9d",
                    "",
                ),
                (
                    "invoices-exporter",
                    "ClusterIP",
                    "172.30.0.4",
                    "<none>",
                    "9300/TCP",
                    "9d",
                    "",
                ),
                (
                    "ledger-web",
                    "ClusterIP",
                    "172.30.0.5",
                    "<none>",
                    "3000/TCP",
                    "9d",
                    "",
                ),
            ),
            listing(
                "ingresses",
                ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
                (
                    "ledger-web",
                    "nginx",
                    "books.plumtree.example",
                    "1.2.3.4",
                    "80",
                    "1y",
                ),
            ),
            describe("ingress", "ledger-web", VERSIONED),
        ]
    )


@pytest.mark.rule("k8s.routing")
def test_a_versioned_api_path_sent_to_another_service_is_the_ingress_fault():
    failing = (
        '{"msg":"invoice download failed","status":404,"body":"404 page not found"}'
    )

    found = routing_faults(_versioned_cluster(), NS, Path(), failing)

    (f,) = [f for f in found if f.component == "ingress/ledger-web"]
    assert (f.reason, f.layer) == ("wrong_service", layers.CONNECT)
    assert "not to service invoices-api" in f.statement


def test_a_versioned_path_with_nothing_failing_there_is_no_fault():
    failing = '{"msg":"login failed","status":404}'

    found = routing_faults(_versioned_cluster(), NS, Path(), failing)

    assert not [f for f in found if f.component == "ingress/ledger-web"]


def test_a_path_names_its_service_past_an_api_prefix_and_version():
    from reasoning.layered.kubernetes.path import path_word, service_for_path

    known = {"invoices-api", "api-gateway", "cartservice"}
    assert service_for_path("/api/v2/invoices", known) == "invoices-api"
    assert service_for_path("/apis/v1beta1/invoices/x", known) == "invoices-api"
    assert service_for_path("/cart", known) == "cartservice"
    assert service_for_path("/api/v2/unknown", known) is None
    assert path_word("/api") == "api"
    assert path_word("/") == ""


@pytest.mark.timeout(60)
def test_hostile_paths_and_failures_stay_fast():
    from reasoning.layered.kubernetes.path import service_for_path
    from reasoning.layered.kubernetes.routing import _names_failing

    service_for_path("/api" * 50_000, {"x"})
    service_for_path("/v1/" * 50_000 + "orders", {"orders"})
    _names_failing("invoices", "invoice " * 50_000 + "x")
    _names_failing("invoices", "404 " * 50_000)
