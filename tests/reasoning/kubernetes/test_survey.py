"""The Kubernetes survey (issue 21 item 1): when nothing read explains the incident, the pods of
every namespace are listed, each namespace with unhealthy pods is read in full, and the faults
found there are diagnosed too, as leads off the incident's path."""

from dataclasses import replace

from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, PlannedCall

from .answers import answer, deployments, events, pods, table

PULL_FAILED = (
    'Failed to pull image "registry.acme.io/shop/sender:2.9.0": failed to resolve reference '
    '"registry.acme.io/shop/sender:2.9.0": not found'
)
POD = "sender-7f6e5d4c3-6hq2x"


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def namespaces(*names):
    return answer(
        "get_resources",
        {"kind": "namespaces", "namespace": "default"},
        table(("NAME", "STATUS", "AGE"), *((n, "Active", "400d") for n in names)),
    )


def identity_pods():
    return answer(
        "get_resources",
        {"kind": "pods", "namespace": "identity", "wide": True, "show_labels": True},
        table(
            ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"),
            ("auth-5d8f-abcde", "1/1", "Running", "0", "3d", "10.0.0.4", "w-1"),
        ),
    )


def investigation(*observations):
    incident = IncidentBrief(
        title="password reset mails do not arrive",
        service="auth",
        severity="sev2",
        symptoms=("auth in namespace identity accepts the reset",),
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def asked(calls):
    return {
        (c.tool, c.arguments.get("kind"), c.arguments.get("namespace")) for c in calls
    }


def test_every_namespace_but_the_empty_system_ones_has_its_pods_listed():
    inv = investigation(
        namespaces("identity", "shop", "kube-system", "kube-public", "kube-node-lease"),
        identity_pods(),
    )

    calls = kubernetes.survey(inv, Facts.read(inv.observations), call)

    assert {a for a in asked(calls) if a[1] == "pods"} == {
        ("get_resources", "pods", "shop"),
        ("get_resources", "pods", "kube-system"),
    }


def test_a_namespace_with_unhealthy_pods_is_read_in_full_and_its_fault_diagnosed():
    before = [
        namespaces("identity", "shop"),
        identity_pods(),
        pods((POD, "0/1", "ImagePullBackOff", "0")),  # namespace shop
    ]
    inv = investigation(*before)
    calls = kubernetes.survey(inv, Facts.read(inv.observations), call)
    assert ("get_resources", "deployments", "shop") in asked(calls)
    assert ("events", None, "shop") in asked(calls)
    assert any(c.tool == "describe" and c.arguments["name"] == POD for c in calls)

    inv = investigation(
        *before,
        deployments(("sender", "0/1")),
        events(("Warning", "Failed", f"Pod/{POD}", PULL_FAILED)),
    )
    findings = kubernetes.diagnose(inv, Facts.read(inv.observations))

    sender = next(f for f in findings if f.component == "deployment/sender")
    assert (sender.stage, sender.reason) == ("startup", "ImagePullBackOff")
    assert (
        not sender.is_relevant
    )  # off the incident's path: a lead, not the explanation


def test_no_survey_before_the_namespaces_are_known():
    inv = investigation(identity_pods())
    assert kubernetes.survey(inv, Facts.read(inv.observations), call) == []


def test_a_namespace_whose_pod_list_comes_back_empty_does_not_hold_the_others_back():
    empty = answer(
        "get_resources",
        {"kind": "pods", "namespace": "tracing", "wide": True, "show_labels": True},
        "No resources found in tracing namespace.\n",
    )
    empty = replace(empty, result={**empty.result, "found": False})
    incident = IncidentBrief(
        title="receipts are not printed",
        service="receipts",
        severity="sev3",
        symptoms=(),
    )
    inv = Investigation(
        incident=incident,
        tools=[],
        observations=[namespaces("identity", "tracing"), identity_pods(), empty],
    )

    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("events", None, "identity") in asked(calls)
    assert ("events", None, "tracing") not in asked(calls)


def test_an_application_namespace_whose_pods_all_run_ready_has_its_quiet_objects_read():
    before = [namespaces("identity", "monitoring"), identity_pods()]
    inv = investigation(*before)
    calls = kubernetes.survey(inv, Facts.read(inv.observations), call)

    assert ("get_resources", "ingresses", "identity") in asked(calls)
    assert ("get_resources", "networkpolicies", "identity") in asked(calls)
    assert not any(a[2] == "monitoring" and a[1] != "pods" for a in asked(calls))

    ingresses = answer(
        "get_resources",
        {"kind": "ingresses", "namespace": "identity"},
        table(
            ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
            ("login", "nginx", "login.example.org", "lb-2", "80, 443", "40d"),
            ("metrics", "nginx", "metrics.example.org", "lb-2", "80", "40d"),
        ),
    )
    inv = investigation(*before, ingresses)
    calls = kubernetes.survey(inv, Facts.read(inv.observations), call)

    described = {c.arguments["name"] for c in calls if c.tool == "describe"}
    assert described == {"login"}  # the one that terminates TLS
