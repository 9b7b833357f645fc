"""The fix each confirming rule names, the evidence it fired on, and which runbooks are about
the cause (issue 20 items 1 and 2): reasoning/layered/remedies.py."""

import pytest

from reasoning import layers
from reasoning.layered import remedies
from reasoning.report import Evidence, Hypothesis

PODS = Evidence(
    "00000000000000a1",
    "kubernetes",
    "get_resources",
    "get pods: cartservice-1 0/1 CrashLoopBackOff 8 12m",
)
EVENT = Evidence(
    "00000000000000a2",
    "kubernetes",
    "events",
    "Warning BackOff pod/cartservice-1 Back-off restarting",
)
DESCRIBE = Evidence(
    "00000000000000a3",
    "kubernetes",
    "describe",
    "describe: Last State Terminated, Reason: OOMKilled",
)
LOGS = Evidence(
    "00000000000000a4",
    "kubernetes",
    "pod_logs",
    "logs cartservice-1: product cache loading 229MiB",
)


def oomkilled(status="confirmed", evidence=(PODS, EVENT, LOGS, DESCRIBE)):
    return Hypothesis(
        layer=layers.APPLICATION,
        component="deployment/cartservice",
        statement="deployment/cartservice's containers are killed for exceeding their memory limit (OOMKilled)",
        confidence=0.93,
        status=status,
        evidence=list(evidence),
        stage="runtime",
        reason="OOMKilled",
    )


def plain(layer, component, statement, evidence, status="confirmed"):
    return Hypothesis(layer, component, statement, 0.9, status, list(evidence))


def test_the_decisive_evidence_is_the_line_that_shows_the_reason_not_the_first_cited():
    assert remedies.decisive(oomkilled(), leaks=set()) == DESCRIBE
    # Without a describe, an event or pod row naming the reason; else the first cited.
    named = Evidence(
        "00000000000000b1",
        "kubernetes",
        "get_resources",
        "get pods: cartservice-2 0/1 OOMKilled 3 12m",
    )
    assert remedies.decisive(oomkilled(evidence=(PODS, named)), leaks=set()) == named
    assert remedies.decisive(oomkilled(evidence=(EVENT, PODS)), leaks=set()) == EVENT
    assert remedies.decisive(oomkilled(evidence=()), leaks=set()) is None


def test_a_leak_is_decided_by_the_metrics_that_show_it():
    log = Evidence(
        "1", "logs", "top_errors", "top_errors(checkout): QueuePool limit reached"
    )
    health = Evidence(
        "2",
        "metrics",
        "service_health",
        "service_health(checkout): CLOSE_WAIT sockets grew",
    )
    h = plain(
        layers.APPLICATION,
        "checkout",
        "checkout itself fails: its logs show QueuePool limit",
        (log, health),
    )
    assert remedies.decisive(h, leaks={"checkout"}) == health
    assert remedies.decisive(h, leaks=set()) == log


@pytest.mark.parametrize(
    ("hypothesis", "keywords", "leaks", "fix"),
    [
        (oomkilled(), [], set(), "Raise the memory limit of deployment/cartservice"),
        (
            Hypothesis(
                layers.CONNECT,
                "service/cartservice",
                "service cartservice has no endpoints",
                0.9,
                "confirmed",
                stage="service_routing",
                reason="no_endpoints",
            ),
            [],
            set(),
            "Restore the selector of service/cartservice",
        ),
        (
            Hypothesis(
                layers.PLATFORM,
                "persistentvolumeclaim/ledger-data",
                "claim ledger-data's volume keeps deployment/ledger-store's pods from starting",
                0.9,
                "confirmed",
                stage="startup",
                reason="FailedAttachVolume",
            ),
            [],
            set(),
            "Detach the volume of persistentvolumeclaim/ledger-data from the node that still holds it",
        ),
        (
            Hypothesis(
                layers.PLATFORM,
                "deployment/index-builder",
                "deployment/index-builder preempted 2 pod(s) of deployment/quote-api",
                0.9,
                "confirmed",
                stage="scheduling",
                reason="Preempted",
            ),
            [],
            set(),
            "Lower the priority of deployment/index-builder below the workloads it preempts",
        ),
        (
            plain(layers.TLS, "api.payments.internal", "TLS handshake fails", ()),
            ["tls", "certificate_expired"],
            set(),
            "Renew the certificate api.payments.internal serves",
        ),
        (
            plain(layers.DNS, "db.internal", "DNS resolution fails", ()),
            ["dns", "nxdomain"],
            set(),
            "Fix the DNS record of db.internal",
        ),
        (
            plain(
                layers.APPLICATION,
                "checkout",
                "checkout itself fails: its own metrics show saturation",
                (),
            ),
            [],
            {"checkout"},
            "Fix the connection leak in checkout",
        ),
        (
            plain(layers.HTTP, "sse.internal", "the event stream is cut", ()),
            ["http", "stream_cut"],
            set(),
            "Raise the idle timeout",
        ),
    ],
)
def test_each_confirming_rule_names_its_fix(hypothesis, keywords, leaks, fix):
    assert remedies.remediation(hypothesis, keywords=keywords, leaks=leaks).startswith(
        fix
    )


def test_a_hypothesis_not_confirmed_names_no_fix():
    for status in ("likely", "ruled_out"):
        assert (
            remedies.remediation(oomkilled(status=status), keywords=[], leaks=set())
            is None
        )


def test_only_runbooks_about_the_cause_fit_not_those_the_symptoms_matched():
    def fits(title, h, keywords=()):
        return remedies.fits_cause({"title": title}, h, keywords=list(keywords))

    # The OOMKill: a liveness runbook and a memory one about another workload do not fit.
    assert not fits("frontend pods restarting on liveness failures", oomkilled())
    assert not fits(
        "Cart errors: redis-cart memory pressure and evictions", oomkilled()
    )
    assert fits("Upstream refuses connections: pods crashing or OOMKilled", oomkilled())
    # A connection leak: the pool runbook fits, the TLS one does not.
    leak = plain(layers.APPLICATION, "checkout", "checkout itself fails", ())
    assert fits(
        "Connection pool exhaustion and CLOSE_WAIT growth", leak, ["connection leak"]
    )
    assert not fits(
        "Expired or mismatched TLS certificate on an upstream",
        leak,
        ["connection leak"],
    )
    tls = plain(layers.TLS, "api.payments.internal", "TLS handshake fails", ())
    assert fits("Expired or mismatched TLS certificate on an upstream", tls)
    assert not fits("Connect timeouts to an on-prem service", tls)
