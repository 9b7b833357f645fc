"""A workload on the node's network (`hostNetwork: true`) left with dnsPolicy ClusterFirst resolves
through the node's resolver, which knows no cluster Service names (issue 21 items 3 and 4): its
failing lookups of `*.svc.cluster.local` names blame its DNS policy, not the names
(reasoning/layered/kubernetes/spec_references.py's `host_network_dns_faults`). Names invented."""

import pytest

from reasoning import layers

from .test_infrastructure import APP, describe, diagnosed
from .test_spec_references import FETCHER, fetcher_cluster

GO_LOOKUPS = """\
2026-03-02T09:40:02Z ERROR fetch quotes: dial tcp: lookup quotes.pricing.svc.cluster.local on 172.16.0.2:53: no such host
2026-03-02T09:41:02Z ERROR fetch quotes: dial tcp: lookup quotes.pricing.svc.cluster.local on 172.16.0.2:53: no such host
"""
JAVA_LOOKUPS = """\
2026-03-02T09:40:02Z ERROR refresh failed: java.net.UnknownHostException: ledger.books.svc
"""
ON_HOST_YAML = """      hostNetwork: true
"""


def _describe(policy):
    return describe(
        "deployment",
        APP,
        "rate-fetcher",
        f"""Name:                   rate-fetcher
Namespace:              {APP}
Pod Template:
  Labels:           app=rate-fetcher
  Host Network:     true
  DNS Policy:       {policy}
  Containers:
   rate-fetcher:
    Image:      registry.example/rate-fetcher:5.1.0
""",
    )


@pytest.mark.rule("k8s.host-network-dns-policy")
def test_a_host_network_workload_failing_cluster_lookups_blames_its_dns_policy():
    found = diagnosed(
        *fetcher_cluster("", GO_LOOKUPS, _describe("ClusterFirst")),
        service="rate-fetcher",
    )

    f = found["deployment/rate-fetcher"]
    assert (f.stage, f.reason, f.layer) == (
        "service_routing",
        "HostNetworkDNSPolicy",
        layers.DNS,
    )
    assert "quotes.pricing.svc.cluster.local" in f.statement
    facts = [fact for _, fact in f.evidence]
    assert any(
        "Host Network:     true" in fact or "Host Network: true" in fact
        for fact in facts
    )
    assert "ClusterFirstWithHostNet" in f.keywords


@pytest.mark.rule("k8s.host-network-dns-policy")
def test_the_yamls_host_network_with_the_default_policy_and_a_java_lookup_blame_it_too():
    found = diagnosed(
        *fetcher_cluster(ON_HOST_YAML, JAVA_LOOKUPS), service="rate-fetcher"
    )

    assert found["deployment/rate-fetcher"].reason == "HostNetworkDNSPolicy"


@pytest.mark.rule("k8s.host-network-dns-policy")
@pytest.mark.parametrize(
    "policy,lines",
    [
        ("ClusterFirstWithHostNet", GO_LOOKUPS),  # the right policy: not this fault
        (
            "ClusterFirst",
            GO_LOOKUPS.replace("quotes.pricing.svc.cluster.local", "api.fx.example"),
        ),
    ],
)
def test_the_right_policy_or_an_outside_name_is_no_host_network_fault(policy, lines):
    found = diagnosed(
        *fetcher_cluster("", lines, _describe(policy)), service="rate-fetcher"
    )

    assert not any(f.reason == "HostNetworkDNSPolicy" for f in found.values())


@pytest.mark.timeout(60)
def test_a_hostile_describe_is_read_in_bounded_time():
    text = "  Host Network: true\n" + ("  DNS Policy: " + "x" * 200_000 + "\n")
    found = diagnosed(
        *fetcher_cluster(
            "", GO_LOOKUPS, describe("deployment", APP, "rate-fetcher", text)
        ),
        service="rate-fetcher",
    )
    assert FETCHER
    assert isinstance(found, dict)


def _on_node_address_cluster(pod_ip):
    from .answers import answer, table
    from .test_infrastructure import deployments, events, logs, namespaces

    return [
        namespaces(APP),
        answer(
            "get_resources",
            {"kind": "nodes", "namespace": "default", "wide": True},
            table(
                ("NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP"),
                ("wk-a-7", "Ready", "<none>", "90d", "v1.30.6", "172.16.4.9"),
            ),
        ),
        answer(
            "get_resources",
            {"kind": "pods", "namespace": APP, "wide": True, "show_labels": True},
            table(
                ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS"),
                (
                    FETCHER,
                    "1/1",
                    "Running",
                    "0",
                    "3d",
                    pod_ip,
                    "wk-a-7",
                    "app=rate-fetcher",
                ),
            ),
        ),
        deployments(APP, ("rate-fetcher", "1/1")),
        events(APP),
        logs(APP, FETCHER, GO_LOOKUPS, previous=False),
    ]


@pytest.mark.rule("k8s.host-network-dns-policy")
def test_a_pod_holding_its_nodes_own_address_is_on_the_host_network_without_a_spec_read():
    found = diagnosed(*_on_node_address_cluster("172.16.4.9"), service="rate-fetcher")

    f = found["deployment/rate-fetcher"]
    assert f.reason == "HostNetworkDNSPolicy"
    assert any("own address 172.16.4.9" in fact for _, fact in f.evidence)


@pytest.mark.rule("k8s.host-network-dns-policy")
def test_a_pod_with_its_own_address_is_not_taken_for_the_host_network():
    found = diagnosed(*_on_node_address_cluster("10.9.3.44"), service="rate-fetcher")

    assert not any(f.reason == "HostNetworkDNSPolicy" for f in found.values())
