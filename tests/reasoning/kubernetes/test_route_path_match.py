"""A route whose path match is narrower than the requests under its path (issue 21 class 1): an
Ingress's `pathType: Exact` or an HTTPRoute's `type: Exact` lets them fall through to another rule's
backend, which fails them; the route is blamed at connect (reasoning/layered/kubernetes/
ingress_paths.py), and its `-o yaml` is read once the fall-through is seen."""

import pytest

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.ingress_paths import (
    path_match_faults,
    wants_routes,
    yaml_routes,
)
from reasoning.observations import Observation

from .answers import NS, answer, describe, listing

DESCRIBED = """Name:             market-edge
Namespace:        shop
Ingress Class:    traefik
Rules:
  Host                   Path  Backends
  ----                   ----  --------
  shop.plumtree.example
                         /v2      catalog-api:9000 (10.40.1.7:9000,10.40.2.9:9000)
                         /        storefront-ui:80 (10.40.1.8:80)
Events:                  <none>
"""
INGRESS_YAML = """apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: market-edge
  namespace: shop
spec:
  ingressClassName: traefik
  rules:
  - host: shop.plumtree.example
    http:
      paths:
      - path: /v2
        pathType: {match}
        backend:
          service:
            name: catalog-api
            port:
              number: 9000
      - path: /
        pathType: Prefix
        backend:
          service:
            name: storefront-ui
            port:
              number: 80
"""
HTTPROUTE_YAML = """apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: market-edge
  namespace: shop
spec:
  parentRefs:
  - name: public-gw
  rules:
  - matches:
    - path:
        type: {match}
        value: /v2
    backendRefs:
    - name: catalog-api
      port: 9000
  - matches:
    - path:
        type: PathPrefix
        value: /
    backendRefs:
    - name: storefront-ui
      port: 80
"""
# The catch-all's own log of a request meant for the API (HAProxy-style wording of a 404 page).
UI_404 = "GET /v2/wishlist/items -> 404 Not Found (template notfound.html)"


def _services() -> Observation:
    return listing(
        "services",
        ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
        ("catalog-api", "ClusterIP", "172.30.0.1", "<none>", "9000/TCP", "90d", ""),
        ("storefront-ui", "ClusterIP", "172.30.0.2", "<none>", "80/TCP", "90d", ""),
    )


def _yaml(kind: str, text: str) -> Observation:
    return answer(
        "get_yaml", {"kind": kind, "name": "market-edge", "namespace": NS}, text
    )


def _cluster(*extra: Observation) -> Cluster:
    return Cluster.read(
        [
            _services(),
            listing(
                "ingresses",
                ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
                (
                    "market-edge",
                    "traefik",
                    "shop.plumtree.example",
                    "1.2.3.4",
                    "80",
                    "1y",
                ),
            ),
            describe("ingress", "market-edge", DESCRIBED),
            *extra,
        ]
    )


def _logs(service: str, message: str, *, before: int = 0) -> Observation:
    group = {"signature": message, "sample": message, "count": 180, "before": before}
    return Observation(
        span_id=f"logs-{service}",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service, "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={"service": service, "top": [], "warnings": [group]},
    )


@pytest.mark.rule("k8s.route-path-match")
def test_an_exact_ingress_path_whose_requests_fall_through_blames_the_ingress():
    facts = Facts.read([_logs("storefront-ui", UI_404)])
    ingress_yaml = _yaml("ingress", INGRESS_YAML.format(match="Exact"))

    (finding,) = path_match_faults(_cluster(ingress_yaml), facts, NS, "")

    assert finding.component == "ingress/market-edge"
    assert (finding.stage, finding.reason, finding.layer) == (
        "service_routing",
        "IngressPathMismatch",
        layers.CONNECT,
    )
    cited = [fact for _, fact in finding.evidence]
    assert any("pathType: Exact" in fact for fact in cited)
    assert any("/v2/wishlist/items" in fact for fact in cited)
    assert "/v2/wishlist/items" in finding.statement
    assert finding.is_relevant


@pytest.mark.rule("k8s.route-path-match")
def test_an_exact_httproute_match_named_in_the_controllers_line_blames_the_route():
    # No backend log: the controller's access line names the upstream that answered (Traefik).
    controller = (
        '10.0.0.3 - - "POST /v2/cart/lines HTTP/1.1" 404 1930 "-" "-" 77 '
        '"websecure-shop-storefront-ui@kubernetes" "http://10.40.1.8:80" 3ms'
    )
    route_yaml = _yaml("httproute", HTTPROUTE_YAML.format(match="Exact"))

    (finding,) = path_match_faults(_cluster(route_yaml), Facts.read([]), NS, controller)

    assert finding.component == "httproute/market-edge"
    assert "POST" not in finding.statement and "/v2/cart/lines" in finding.statement


@pytest.mark.rule("k8s.route-path-match")
@pytest.mark.parametrize(
    ("match", "message", "before"),
    [
        ("Prefix", UI_404, 0),  # the rule takes /v2/...: the 404 is the UI's own
        ("Exact", UI_404, 240),  # the UI answered 404 there before the window too
        ("Exact", "GET /about-us -> 404 Not Found", 0),  # not under the narrow path
        ("Exact", "GET /v2/wishlist/items -> 200 OK", 0),  # not a failure
    ],
)
def test_no_fall_through_failing_is_no_path_match_fault(match, message, before):
    facts = Facts.read([_logs("storefront-ui", message, before=before)])
    ingress_yaml = _yaml("ingress", INGRESS_YAML.format(match=match))

    assert path_match_faults(_cluster(ingress_yaml), facts, NS, "") == []


@pytest.mark.rule("k8s.route-path-match")
def test_without_the_match_type_the_fall_through_asks_for_the_yaml_not_a_verdict():
    facts = Facts.read([_logs("storefront-ui", UI_404)])

    assert path_match_faults(_cluster(), facts, NS, "") == []
    assert wants_routes(_cluster(), facts, NS) == ["market-edge"]
    read = _cluster(_yaml("ingress", INGRESS_YAML.format(match="Exact")))
    assert wants_routes(read, facts, NS) == []


def test_the_rules_an_ingress_and_an_httproute_declare():
    ingress = yaml_routes(
        "ingress", "market-edge", _yaml("ingress", INGRESS_YAML.format(match="Exact"))
    )
    assert [(r.path, r.match, r.backend, r.port) for r in ingress] == [
        ("/v2", "Exact", "catalog-api", "9000"),
        ("/", "Prefix", "storefront-ui", "80"),
    ]
    route = yaml_routes(
        "httproute",
        "market-edge",
        _yaml("httproute", HTTPROUTE_YAML.format(match="Exact")),
    )
    assert [(r.path, r.match, r.backend, r.port) for r in route] == [
        ("/v2", "Exact", "catalog-api", "9000"),
        ("/", "PathPrefix", "storefront-ui", "80"),
    ]
    assert not route[0].takes("/v2/cart") and route[1].takes("/v2/cart")
    assert ingress[1].takes("/anything") and not ingress[0].takes("/v2x")


@pytest.mark.timeout(60)
def test_a_hostile_yaml_and_failure_text_are_read_in_bounded_time():
    paths = "      paths:\n" + "      - path: /v2\n        pathType: Exact\n" * 12_000
    hostile = _yaml("ingress", INGRESS_YAML.format(match="Exact") + paths)
    failing = "GET /v2/" + "a/" * 100_000 + " 404 storefront-ui"

    found = path_match_faults(_cluster(hostile), Facts.read([]), NS, failing)

    assert [f.component for f in found] == ["ingress/market-edge"]
