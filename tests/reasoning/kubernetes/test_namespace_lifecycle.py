"""A namespace stuck Terminating (issue 21, classes 1 and 4): its deletion cannot finish, so what
recreates it fails; the namespace is the fault, not the operator that logs the refusals."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.namespace_lifecycle import apiservice
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    PlannedCall,
)

from .answers import answer, table

HOME = "provisioning"
STUCK = "club-larkspur"
POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")
OPERATOR_POD = "club-operator-6b7c8d9f5-q2w3e"


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def investigation(*observations):
    incident = IncidentBrief(
        title="new club site never comes up",
        service="club-operator",
        severity="sev3",
        symptoms=(),
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def namespaces(status=("Terminating")):
    return answer(
        "get_resources",
        {"kind": "namespaces", "namespace": "default"},
        table(
            ("NAME", "STATUS", "AGE"),
            ("default", "Active", "400d"),
            (HOME, "Active", "120d"),
            (STUCK, status, "64d"),
        ),
    )


def described(*conditions):
    rows = "\n".join(
        f"  {kind:<44} {status:<7} Mon, 01 Jun 2026 10:00:00 +0000  {reason:<20} {message}"
        for kind, status, reason, message in conditions
    )
    return answer(
        "describe",
        {"kind": "namespace", "name": STUCK, "namespace": "default"},
        f"Name:         {STUCK}\nLabels:       kubernetes.io/metadata.name={STUCK}\n"
        f"Status:       Terminating\nConditions:\n"
        f"  Type   Status  LastTransitionTime   Reason   Message\n  ----   ------  ----   ----   ----\n"
        f"{rows}\n",
    )


def operator_pods():
    return answer(
        "get_resources",
        {"kind": "pods", "namespace": HOME, "wide": True, "show_labels": True},
        table(
            POD_HEADER,
            (
                OPERATOR_POD,
                "1/1",
                "Running",
                "0",
                "30d",
                "10.4.0.9",
                "pool-b-2",
                "app=club-operator",
            ),
        ),
    )


def deployments():
    return answer(
        "get_resources",
        {"kind": "deployments", "namespace": HOME, "wide": True},
        table(
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("club-operator", "1/1", "1", "1", "30d", "app=club-operator"),
        ),
    )


def operator_logs(text):
    return answer(
        "pod_logs", {"pod": OPERATOR_POD, "namespace": HOME, "tail": 200}, text
    )


def top_errors(service, *lines):
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
                {"signature": line, "count": 14, "sample": line, "before": 0}
                for line in lines
            ],
            "warnings": [],
        },
    )


def findings(*observations):
    inv = investigation(*observations)
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


REFUSED = (
    f'2026-06-01T10:20:00Z ERROR apply site bundle: namespaces "{STUCK}" is forbidden: '
    f"unable to create new content in namespace {STUCK} because it is being terminated"
)
DISCOVERY = (
    "NamespaceDeletionDiscoveryFailure",
    "True",
    "DiscoveryFailed",
    "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of "
    "server APIs: custom.metrics.k8s.io/v1beta2: the server is currently unable to handle the request",
)


@pytest.mark.rule("k8s.namespace-terminating")
def test_a_terminating_namespace_is_described_from_round_two():
    inv = investigation(namespaces())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert any(
        c is not None
        and c.tool == "describe"
        and c.arguments.get("kind") == "namespace"
        and c.arguments.get("name") == STUCK
        for c in calls
    )


def test_active_namespaces_are_not_described():
    inv = investigation(namespaces("Active"))
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert not any(
        c is not None and c.arguments.get("kind") == "namespace" for c in calls
    )


@pytest.mark.rule("k8s.namespace-terminating")
def test_a_discovery_failure_blames_the_namespace_and_names_the_stale_apiservice():
    found = findings(
        namespaces(),
        described(
            DISCOVERY,
            ("NamespaceContentRemaining", "False", "ContentRemoved", "All removed"),
        ),
        operator_pods(),
        deployments(),
        operator_logs(REFUSED),
    )

    f = found[f"namespace/{STUCK}"]
    assert f.layer == layers.PLATFORM
    assert f.reason == "NamespaceDeletionDiscoveryFailure"
    assert "v1beta2.custom.metrics.k8s.io" in f.statement
    assert f.is_relevant
    facts = [fact for _, fact in f.evidence]
    assert any("custom.metrics.k8s.io/v1beta2" in fact for fact in facts)
    assert any("being terminated" in fact for fact in facts)
    assert "deployment/club-operator" in f.explains


@pytest.mark.rule("k8s.namespace-terminating")
def test_finalizers_that_never_clear_hold_the_namespace_too():
    found = findings(
        namespaces(),
        described(
            (
                "NamespaceFinalizersRemaining",
                "True",
                "SomeFinalizersRemain",
                "Some content in the namespace has finalizers remaining: "
                "backups.example.io/protect in 2 resource instances",
            ),
        ),
        operator_pods(),
        deployments(),
        top_errors(
            "site-pipeline",
            f"object is being deleted: namespaces {STUCK} already exists",
        ),
    )

    f = found[f"namespace/{STUCK}"]
    assert f.reason == "NamespaceFinalizersRemaining"
    assert f.is_relevant
    assert "apiservice" not in f.keywords


@pytest.mark.rule("k8s.namespace-terminating")
def test_a_terminating_namespace_with_nothing_failing_is_a_deletion_in_progress():
    found = findings(
        namespaces(),
        described(
            ("NamespaceContentRemaining", "False", "ContentRemoved", "All removed"),
        ),
        operator_pods(),
        deployments(),
        operator_logs("2026-06-01T10:20:00Z INFO reconciled 3 clubs"),
    )

    assert f"namespace/{STUCK}" not in found


@pytest.mark.rule("k8s.namespace-terminating")
def test_a_stuck_namespace_no_failing_line_names_is_only_a_lead():
    found = findings(
        namespaces(),
        described(DISCOVERY),
        operator_pods(),
        deployments(),
        operator_logs("2026-06-01T10:20:00Z INFO reconciled 3 clubs"),
    )

    assert not found[f"namespace/{STUCK}"].is_relevant


@pytest.mark.rule("k8s.namespace-terminating", "board.kubernetes")
def test_the_namespace_outranks_the_operator_that_logs_the_refusals():
    inv = investigation(
        namespaces(),
        described(DISCOVERY),
        operator_pods(),
        deployments(),
        operator_logs(REFUSED),
        top_errors("club-operator", REFUSED.split(" ERROR ", 1)[1]),
    )
    ranked = Analysis(inv, Facts.read(inv.observations)).ranked()

    top = ranked[0]
    assert (top.layer, top.component) == (layers.PLATFORM, f"namespace/{STUCK}")
    assert top.conclusive
    assert top.remediation is not None and "APIService" in top.remediation


def test_the_apiservice_of_a_group_version():
    assert apiservice("failing: metrics.k8s.io/v1beta1: stale") == (
        "v1beta1.metrics.k8s.io"
    )
    assert apiservice("nothing here") is None


@pytest.mark.rule("k8s.namespace-terminating")
def test_a_lowercase_log_line_saying_it_still_terminates_is_enough_without_a_describe():
    found = findings(
        namespaces(),
        operator_pods(),
        deployments(),
        operator_logs(
            f'ts=2026-06-01T10:31:00Z level=warn msg="namespace {STUCK} still terminating '
            'after 12m, retrying site bootstrap"'
        ),
    )

    f = found[f"namespace/{STUCK}"]
    assert f.reason == "NamespaceTerminating" and f.is_relevant


@pytest.mark.timeout(60)
def test_a_hostile_condition_message_is_read_in_linear_time():
    # A long dotted token in a kubectl answer took seconds before the labels were bounded.
    assert apiservice("a." * 100_000) is None
    assert (
        apiservice(
            "a." * 1000 + " unable to retrieve: custom.metrics.k8s.io/v1beta2: 503"
        )
        == "v1beta2.custom.metrics.k8s.io"
    )
