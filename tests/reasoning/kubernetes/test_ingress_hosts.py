"""An Ingress of another namespace that claims a path on the incident namespace's host: the
controller merges one host's rules across namespaces, so requests under that path reach the other
team's backend and fail there. Names and wordings are invented for these tests."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.ingress_hosts import (
    claims,
    host_path_faults,
    reads,
)
from reasoning.observations import IncidentBrief, Investigation, Observation

from .answers import answer, table

HEADER = ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE")
STORE = """\
Name:             store
Namespace:        retail
Rules:
  Host              Path  Backends
  ----              ----  --------
  shop.example.org
                    /api/basket   basket-api:8080 (10.1.1.4:8080)
                    /             storefront:3000 (10.1.1.9:3000)
Events:           <none>
"""
PROMO = """\
Name:             winter-promo
Namespace:        promo
Rules:
  Host              Path  Backends
  ----              ----  --------
  shop.example.org
                    /pay        winter-promo:80 (10.2.0.7:80)
                    /winter     winter-promo:80 (10.2.0.7:80)
Events:           <none>
"""


def _ns_list():
    return answer(
        "get_resources",
        {"kind": "namespaces", "namespace": "default"},
        table(
            ("NAME", "STATUS", "AGE"),
            ("retail", "Active", "1y"),
            ("promo", "Active", "1y"),
        ),
    )


def _pods(ns):
    return answer(
        "get_resources",
        {"kind": "pods", "namespace": ns, "wide": True, "show_labels": True},
        table(
            ("NAME", "READY", "STATUS", "RESTARTS", "AGE"),
            (f"{ns}-web-0", "1/1", "Running", "0", "3d"),
        ),
    )


def _ingresses(ns, name, host="shop.example.org", age="40m"):
    return answer(
        "get_resources",
        {"kind": "ingresses", "namespace": ns},
        table(HEADER, (name, "nginx", host, "lb.example", "80, 443", age)),
    )


def _described(ns, name, text):
    return answer("describe", {"kind": "ingress", "name": name, "namespace": ns}, text)


def _search(*messages):
    return Observation(
        span_id="search-1",
        agent="logs",
        server="logs",
        tool="search_logs",
        arguments={"query": r"\[promo-winter-promo-80\]", "regex": True},
        is_ok=True,
        result={"lines": [{"service": "edge-proxy", "message": m} for m in messages]},
    )


def _inv(*observations):
    return Investigation(
        incident=IncidentBrief(
            title="paying fails", service="pay", severity="sev2", symptoms=()
        ),
        tools=[],
        observations=list(observations),
    )


def _calls(inv, cluster):
    asked = []
    reads(
        inv,
        cluster,
        "retail",
        lambda tool, args, why: asked.append((tool, args)) or None,
    )
    return asked


@pytest.mark.rule("k8s.ingress-host-path-claimed")
def test_the_other_namespaces_ingresses_are_read_then_the_one_sharing_the_host_then_its_upstream():
    base = [
        _ns_list(),
        _pods("retail"),
        _pods("promo"),
        _ingresses("retail", "store"),
        _described("retail", "store", STORE),
    ]
    asked = _calls(_inv(*base), Cluster.read(base))
    assert asked == [("get_resources", {"kind": "ingresses", "namespace": "promo"})]
    listed = [*base, _ingresses("promo", "winter-promo")]
    asked = _calls(_inv(*listed), Cluster.read(listed))
    assert asked == [
        ("describe", {"kind": "ingress", "name": "winter-promo", "namespace": "promo"})
    ]
    described = [*listed, _described("promo", "winter-promo", PROMO)]
    asked = _calls(_inv(*described), Cluster.read(described))
    assert [tool for tool, _ in asked] == ["search_logs"]
    assert asked[0][1]["query"] == r"\[promo\-winter\-promo\-80\]"


def _world(*extra, host="shop.example.org"):
    obs = [
        _ns_list(),
        _pods("retail"),
        _pods("promo"),
        _ingresses("retail", "store"),
        _described("retail", "store", STORE),
        _ingresses("promo", "winter-promo", host=host),
        _described("promo", "winter-promo", PROMO.replace("shop.example.org", host)),
        *extra,
    ]
    return _inv(*obs), Cluster.read(obs)


@pytest.mark.rule("k8s.ingress-host-path-claimed")
def test_a_path_claimed_on_the_same_host_that_its_backend_fails_is_the_fault():
    inv, cluster = _world(
        _search(
            '10.0.0.3 - - "GET /winter HTTP/1.1" 200 512 "-" "UA" 300 0.002 [promo-winter-promo-80]',
            '10.0.0.3 - - "POST /pay/intent HTTP/1.1" 404 153 "-" "UA" 420 0.001 [promo-winter-promo-80]',
        )
    )
    found = host_path_faults(inv, cluster, "retail")
    assert [f.component for f in found] == ["ingress/winter-promo"]
    f = found[0]
    assert f.layer == layers.CONNECT and f.is_relevant
    assert "storefront" in f.statement and "/pay" in f.statement
    assert any("/pay/intent" in fact for _, fact in f.evidence)


@pytest.mark.rule("k8s.ingress-host-path-claimed")
def test_without_failing_requests_it_is_a_lead_and_another_host_is_no_claim():
    inv, cluster = _world(
        _search(
            '10.0.0.3 - - "GET /pay HTTP/1.1" 200 512 "-" "UA" 404 0.002 [promo-winter-promo-80]'
        )
    )
    found = host_path_faults(inv, cluster, "retail")
    assert [f.is_relevant for f in found] == [False]  # 404 there is the request's size
    _, other_host = _world(host="promo.example.org")
    assert claims(other_host, "retail") == []


@pytest.mark.timeout(60)
def test_a_huge_controller_line_is_read_in_one_pass():
    inv, cluster = _world(
        _search("POST /pay/x " + "9" * 200_000 + " [promo-winter-promo-80]")
    )
    assert [f.is_relevant for f in host_path_faults(inv, cluster, "retail")] == [False]
