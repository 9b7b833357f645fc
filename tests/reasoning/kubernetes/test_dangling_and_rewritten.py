"""Objects whose fault is in what they point at or what they rewrite (issue 21, classes 1 and 4):
an Ingress naming an ingress class that does not exist (no controller serves it, however healthy
its pods), and a VerticalPodAutoscaler that lowered the memory of pods now OOMKilled (the
autoscaler is the cause, the workload its victim). Names are invented for these tests."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.resizing import memory_bytes
from reasoning.observations import Observation

from .answers import answer, table
from .test_infrastructure import (
    APP,
    asked,
    call,
    deployments,
    describe,
    diagnosed,
    events,
    investigation,
    listing,
    namespaces,
    nodes,
    pods,
)

INGRESS_HEADER = ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE")
TRACKING_INGRESS = """\
Name:             tracking-web
Labels:           app=tracking-web
Namespace:        parcels
Address:
Ingress Class:    trafeik-edge
Default backend:  <default>
Rules:
  Host                      Path  Backends
  ----                      ----  --------
  track.parcelpost.example
                            /   tracking-web:8080 (10.9.1.4:8080,10.9.2.8:8080)
Annotations:      <none>
Events:           <none>
"""


def ingress_cluster(*rows, classes=None):
    observations = [
        namespaces(APP),
        nodes(("pool-d-1", "Ready")),
        pods(
            APP,
            (
                "tracking-web-6c5d4e3f2-p1q2r",
                "1/1",
                "Running",
                "0",
                "pool-d-1",
                "app=tracking-web",
            ),
            (
                "label-api-5b4c3d2e1-s3t4u",
                "1/1",
                "Running",
                "0",
                "pool-d-1",
                "app=label-api",
            ),
        ),
        deployments(APP, ("tracking-web", "2/2"), ("label-api", "2/2")),
        events(APP),
        listing(
            "services",
            APP,
            ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
            (
                "tracking-web",
                "ClusterIP",
                "10.100.7.2",
                "<none>",
                "8080/TCP",
                "300d",
                "app=tracking-web",
            ),
            (
                "label-api",
                "ClusterIP",
                "10.100.7.3",
                "<none>",
                "8080/TCP",
                "300d",
                "app=label-api",
            ),
        ),
        listing("ingresses", APP, INGRESS_HEADER, *rows),
        describe("ingress", APP, "tracking-web", TRACKING_INGRESS),
    ]
    if classes is not None:
        observations.append(
            answer(
                "get_resources",
                {"kind": "ingressclasses", "namespace": APP},
                table(
                    ("NAME", "CONTROLLER", "PARAMETERS", "AGE"),
                    *(
                        (c, "traefik.io/ingress-controller", "<none>", "200d")
                        for c in classes
                    ),
                ),
            )
        )
    return observations


TYPO = (
    "tracking-web",
    "trafeik-edge",
    "track.parcelpost.example",
    "",
    "80, 443",
    "300d",
)
ADMITTED = (
    "label-api",
    "traefik-edge",
    "labels.parcelpost.example",
    "lb-7.example",
    "80",
    "300d",
)


@pytest.mark.rule("k8s.ingress-class-missing")
def test_an_ingress_naming_a_class_no_ingress_class_has_is_the_fault():
    found = diagnosed(
        *ingress_cluster(TYPO, ADMITTED, classes=("traefik-edge",)),
        service="tracking-web",
    )

    ingress = found["ingress/tracking-web"]
    assert (ingress.stage, ingress.reason, ingress.layer) == (
        "service_routing",
        "IngressClassNotFound",
        layers.CONNECT,
    )
    assert "trafeik-edge" in ingress.statement
    assert any("(no trafeik-edge)" in fact for _, fact in ingress.evidence)
    assert any(obs.text.count("trafeik-edge") for obs, _ in ingress.evidence)
    assert "ingress/label-api" not in found


@pytest.mark.rule("k8s.ingress-class-missing")
def test_without_the_classes_the_admitted_ingresses_say_which_classes_exist():
    found = diagnosed(*ingress_cluster(TYPO, ADMITTED), service="tracking-web")

    ingress = found["ingress/tracking-web"]
    assert "the classes of the ingresses a controller admitted" in " ".join(
        ingress.chain
    )


def edge_warnings(*samples):
    return Observation(
        span_id="edge-1",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": "edge-router"},
        is_ok=True,
        result={
            "top": [],
            "warnings": [
                {"signature": sample, "sample": sample, "count": 30}
                for sample in samples
            ],
        },
        text="",
    )


@pytest.mark.rule("k8s.ingress-class-missing")
def test_the_controller_ignoring_it_and_404s_on_its_host_are_evidence_and_put_it_on_the_path():
    warned = edge_warnings(
        "Ignoring ingress because of error while validating ingress class "
        'ingress="parcels/tracking-web" error="no object matching key \\"trafeik-edge\\""',
        '"GET /track HTTP/1.1" 404 146 host=track.parcelpost.example upstream=default-backend',
    )
    found = diagnosed(*ingress_cluster(TYPO, ADMITTED), warned, service="label-api")

    ingress = found["ingress/tracking-web"]
    facts = " ".join(fact for _, fact in ingress.evidence)
    assert "Ignoring ingress" in facts and "host=track.parcelpost.example" in facts
    assert ingress.is_relevant
    # A 404 on another host says nothing of this ingress.
    other = edge_warnings('"GET / HTTP/1.1" 404 146 host=labels.parcelpost.example')
    found = diagnosed(*ingress_cluster(TYPO, ADMITTED), other, service="label-api")
    assert not found["ingress/tracking-web"].is_relevant


def test_an_ingress_of_an_existing_class_or_with_an_address_is_not_blamed():
    fine = (
        "tracking-web",
        "traefik-edge",
        "track.parcelpost.example",
        "",
        "80",
        "300d",
    )
    assert "ingress/tracking-web" not in diagnosed(
        *ingress_cluster(fine, ADMITTED, classes=("traefik-edge",)),
        service="tracking-web",
    )
    served = (
        "tracking-web",
        "edge-b",
        "track.parcelpost.example",
        "lb-9.example",
        "80",
        "9d",
    )
    assert "ingress/tracking-web" not in diagnosed(
        *ingress_cluster(served, ADMITTED), service="tracking-web"
    )
    # Nothing says which classes exist: no blame.
    assert "ingress/tracking-web" not in diagnosed(
        *ingress_cluster(TYPO), service="tracking-web"
    )


def test_an_ingress_naming_a_class_has_the_ingress_classes_listed_once():
    inv = investigation(*ingress_cluster(TYPO, ADMITTED), service="tracking-web")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert ("get_resources", "ingressclasses", APP, None) in asked(calls)

    inv = investigation(*ingress_cluster(TYPO, ADMITTED, classes=("traefik-edge",)))
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert ("get_resources", "ingressclasses", APP, None) not in asked(calls)


def class_described(name, *, default):
    return describe(
        "ingressclass",
        APP,
        name,
        f"Name:         {name}\nLabels:       <none>\nAnnotations:  "
        f"ingressclass.kubernetes.io/is-default-class: {str(default).lower()}\n"
        "Controller:   traefik.io/ingress-controller\nEvents:       <none>\n",
    )


CLASSLESS = ("tracking-web", "<none>", "track.parcelpost.example", "", "80", "300d")


@pytest.mark.rule("k8s.ingress-class-missing")
def test_an_ingress_naming_no_class_where_no_class_is_the_default_is_the_fault():
    observations = [
        describe(
            "ingress",
            APP,
            "tracking-web",
            TRACKING_INGRESS.replace("trafeik-edge", "<none>"),
        )
        if o.tool == "describe"
        else o
        for o in ingress_cluster(CLASSLESS, ADMITTED, classes=("traefik-edge",))
    ]
    inv = investigation(*observations, service="tracking-web")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert ("describe", "ingressclass", APP, "traefik-edge") in asked(calls)

    found = diagnosed(
        *observations,
        class_described("traefik-edge", default=False),
        service="tracking-web",
    )
    assert "no IngressClass is the default" in found["ingress/tracking-web"].statement
    found = diagnosed(
        *observations,
        class_described("traefik-edge", default=True),
        service="tracking-web",
    )
    assert found.get("ingress/tracking-web") is None or (
        found["ingress/tracking-web"].reason != "IngressClassNotFound"
    )


# --- a vertical autoscaler that shrank the memory of pods now OOMKilled -----------------------

PRINTER_A = "label-printer-7f6e5d4c3-a1b2c"
PRINTER_B = "label-printer-7f6e5d4c3-d3e4f"


def printer_pod(name, *, annotated=True, limit="250Mi"):
    annotations = (
        "Annotations:      vpaObservedContainers: printer\n"
        "                  vpaUpdates: Pod resources updated by label-printer-vpa: container 0: "
        "memory request, memory limit\n"
        if annotated
        else "Annotations:      <none>\n"
    )
    return f"""\
Name:             {name}
Namespace:        parcels
Node:             pool-d-1/10.9.0.21
Labels:           app=label-printer
                  pod-template-hash=7f6e5d4c3
Status:           Running
Controlled By:    ReplicaSet/label-printer-7f6e5d4c3
Containers:
  printer:
    Image:          registry.parcelpost.example/printer:3.2.0
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
    Ready:          False
    Restart Count:  9
    Limits:
      memory:  {limit}
    Requests:
      cpu:     80m
      memory:  {limit}
{annotations}Events:           <none>
"""


def printer_cluster(*extra, annotated=True, evictions=False):
    rows = (
        [
            (
                "Normal",
                "EvictedByVPA",
                "Pod/label-printer-7f6e5d4c3-z9y8x",
                "Pod was evicted by VPA Updater to apply resource recommendation.",
            ),
        ]
        if evictions
        else []
    )
    return [
        namespaces(APP),
        nodes(("pool-d-1", "Ready")),
        pods(
            APP,
            (
                PRINTER_A,
                "0/1",
                "CrashLoopBackOff",
                "9 (1m ago)",
                "pool-d-1",
                "app=label-printer",
            ),
            (
                PRINTER_B,
                "0/1",
                "OOMKilled",
                "8 (30s ago)",
                "pool-d-1",
                "app=label-printer",
            ),
        ),
        deployments(APP, ("label-printer", "0/2")),
        listing(
            "replicasets",
            APP,
            ("NAME", "DESIRED", "CURRENT", "READY", "AGE", "SELECTOR"),
            ("label-printer-7f6e5d4c3", "2", "2", "0", "3h", "app=label-printer"),
        ),
        events(
            APP,
            (
                "Warning",
                "BackOff",
                f"Pod/{PRINTER_A}",
                "Back-off restarting failed container printer",
            ),
            *rows,
        ),
        describe("pod", APP, PRINTER_A, printer_pod(PRINTER_A, annotated=annotated)),
        *extra,
    ]


VPAS = ("NAME", "MODE", "CPU", "MEM", "PROVIDED", "AGE")


@pytest.mark.rule("k8s.autoscaler-shrank-memory")
def test_a_vertical_autoscaler_that_lowered_the_limit_of_oom_killed_pods_is_the_cause():
    found = diagnosed(*printer_cluster(), service="label-printer")

    vpa = found["verticalpodautoscaler/label-printer-vpa"]
    assert (vpa.layer, vpa.reason) == (layers.PLATFORM, "ResourcesRewritten")
    assert "250Mi" in vpa.statement
    assert any("Limits memory 250Mi" in fact for _, fact in vpa.evidence)
    assert found["deployment/label-printer"].victim_of == vpa.component


@pytest.mark.rule("k8s.autoscaler-shrank-memory")
def test_the_updaters_evictions_and_the_listed_autoscaler_name_it_without_annotations():
    listed = listing(
        "verticalpodautoscalers",
        APP,
        VPAS,
        ("printer-sizing", "Auto", "80m", "250Mi", "True", "40d"),
    )
    found = diagnosed(
        *printer_cluster(listed, annotated=False, evictions=True),
        service="label-printer",
    )

    vpa = found["verticalpodautoscaler/printer-sizing"]
    assert any("EvictedByVPA" in fact for _, fact in vpa.evidence)
    assert any("printer-sizing Auto 80m 250Mi" in fact for _, fact in vpa.evidence)


@pytest.mark.rule("k8s.autoscaler-shrank-memory")
def test_a_template_asking_no_more_or_an_autoscaler_that_only_recommends_clears_it():
    template = describe(
        "deployment",
        APP,
        "label-printer",
        "Name:  label-printer\nPod Template:\n  Containers:\n   printer:\n    Limits:\n      memory:  250Mi\n",
    )
    found = diagnosed(*printer_cluster(template), service="label-printer")
    assert not any(c.startswith("verticalpodautoscaler/") for c in found)
    assert found["deployment/label-printer"].reason == "OOMKilled"

    off = listing(
        "verticalpodautoscalers",
        APP,
        VPAS,
        ("label-printer-vpa", "Off", "80m", "250Mi", "True", "40d"),
    )
    found = diagnosed(*printer_cluster(off), service="label-printer")
    assert not any(c.startswith("verticalpodautoscaler/") for c in found)

    bigger = describe(
        "deployment",
        APP,
        "label-printer",
        "Name:  label-printer\nPod Template:\n  Containers:\n   printer:\n    Limits:\n      memory:  1Gi\n",
    )
    found = diagnosed(*printer_cluster(bigger), service="label-printer")
    assert any("template asks 1Gi" in f.statement for f in found.values())


def test_resized_pods_have_the_autoscalers_listed_then_the_named_one_described():
    inv = investigation(*printer_cluster(), service="label-printer")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert ("get_resources", "verticalpodautoscalers", APP, None) in asked(calls)

    listed = listing(
        "verticalpodautoscalers",
        APP,
        VPAS,
        ("label-printer-vpa", "Auto", "80m", "250Mi", "True", "40d"),
    )
    inv = investigation(*printer_cluster(listed), service="label-printer")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert ("describe", "verticalpodautoscaler", APP, "label-printer-vpa") in asked(
        calls
    )


def test_memory_quantities_compare_across_units():
    assert memory_bytes("1Gi") > memory_bytes("700Mi") > memory_bytes("512M")
    assert memory_bytes("lots") is None
