"""A fault off the incident's path whose callers fail (issue 21 class 4): other services' new
failing lines that name its workload, or a workload it makes fail, link it to the incident, in
any namespace and in words the path does not read."""

import pytest

from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation

from .test_waiting_work import digest_cluster


def top_errors(service, *lines, before=0):
    return Observation(
        span_id=f"logs-{service}",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service, "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={
            "service": service,
            "top": [
                {"signature": w, "count": 14, "sample": w, "before": before}
                for w in lines
            ],
            "warnings": [],
        },
    )


def ranked(*observations):
    incident = IncidentBrief(
        title="newsletter signups broken",
        service="mailer-api",
        severity="sev3",
        symptoms=(),
        window_start="2031-05-06T07:00:00Z",
        window_end="2031-05-06T08:00:00Z",
    )
    inv = Investigation(incident=incident, tools=[], observations=list(observations))
    board = Analysis(inv, Facts.read(inv.observations))
    return {c.component: c for c in board.candidates.values()}


@pytest.mark.rule("k8s.named-by-failing-callers")
def test_a_caller_failing_on_the_workload_confirms_its_fault():
    by = ranked(
        *digest_cluster(),
        top_errors(
            "signup-gateway", "POST /v2/digest 504 after 6000ms (digest-worker)"
        ),
    )
    fault = by["deployment/digest-worker"]
    assert fault.status == "confirmed" and fault.confidence >= 0.8
    assert "signup-gateway's new lines name digest-worker" in fault.statement
    assert any("504 after 6000ms" in e.fact for e in fault.evidence)


@pytest.mark.rule("k8s.named-by-failing-callers")
def test_a_caller_in_another_namespace_naming_it_by_dns_name_links_it():
    by = ranked(
        *digest_cluster(),
        top_errors(
            "billing-ui",
            "connection to digest-worker.shop.svc.cluster.local:8080 reset by peer",
        ),
    )
    assert by["deployment/digest-worker"].status == "confirmed"


def test_a_line_that_names_it_without_failing_leaves_it_a_lead():
    by = ranked(
        *digest_cluster(),
        top_errors(
            "signup-gateway", "template cache for digest-worker reloaded slowly"
        ),
    )
    fault = by["deployment/digest-worker"]
    assert fault.status == "likely" and fault.confidence < 0.7
    assert "not shown to be on" in fault.statement


def test_a_failing_line_logged_before_the_window_leaves_it_a_lead():
    by = ranked(
        *digest_cluster(),
        top_errors(
            "signup-gateway", "call to digest-worker failed: timeout", before=30
        ),
    )
    assert by["deployment/digest-worker"].status == "likely"


def test_its_own_lines_do_not_link_it():
    by = ranked(
        *digest_cluster(),
        top_errors("digest-worker", "digest-worker failed to load template: error"),
    )
    assert by["deployment/digest-worker"].status == "likely"


@pytest.mark.timeout(60)
def test_a_huge_failing_line_is_read_in_time():
    huge = ("digest-worker-x " * 6000) + "error " + ("a" * 100_000)
    by = ranked(*digest_cluster(), top_errors("signup-gateway", huge))
    assert "deployment/digest-worker" in by


@pytest.mark.rule("k8s.named-by-failing-callers")
def test_a_caller_naming_the_workload_by_a_role_endpoint_links_it():
    by = ranked(
        *digest_cluster(),
        top_errors(
            "signup-gateway",
            "PSQLException: Connection to digest-worker-rw:5432 refused.",
        ),
    )
    assert by["deployment/digest-worker"].status == "confirmed"


def test_a_longer_name_that_only_starts_like_the_workload_does_not_link_it():
    by = ranked(
        *digest_cluster(),
        top_errors(
            "signup-gateway",
            "Connection to digest-worker-archive:5432 refused.",
        ),
    )
    assert by["deployment/digest-worker"].status == "likely"
