"""Work that waits on a faulty workload (issue 21 class 5): the incident's service's own lines
saying its queue has no consumer put that consumer on its path, from the evidence, not the words."""

import pytest

from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.waits import names_workload
from reasoning.observations import IncidentBrief, Investigation, Observation

from .answers import answer, deployments, events, listing
from .test_infrastructure import (
    APP,
    PRESSURE_DESCRIBE,
    describe,
    diagnosed,
    pressure_cluster,
)

MAILER = "mailer-api-7c6b5a4d3-k8s2p"
DIGEST = "digest-worker-5f4e3d2c1-q9w8e"
NODE = "worker-7"
PULL = 'Failed to pull image "registry.example.org/mail/digest:4.2.0": not found'


def top_errors(service, *warnings):
    return Observation(
        span_id=f"logs-{service}",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service, "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={
            "service": service,
            "top": [],
            "warnings": [
                {"signature": w, "count": 9, "sample": w, "before": 0} for w in warnings
            ],
        },
    )


def digest_cluster(digest_status="ImagePullBackOff"):
    header = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")
    return [
        answer(
            "get_resources",
            {"kind": "namespaces", "namespace": "default"},
            "NAME   STATUS   AGE\nshop   Active   90d\n",
        ),
        listing(
            "pods",
            header,
            (MAILER, "1/1", "Running", "0", "9d", "10.9.0.4", NODE, "app=mailer-api"),
            (
                DIGEST,
                "0/1",
                digest_status,
                "0",
                "20m",
                "10.9.0.5",
                NODE,
                "app=digest-worker",
            ),
        ),
        deployments(("mailer-api", "1/1"), ("digest-worker", "0/1")),
        events(("Warning", "Failed", f"Pod/{DIGEST}", PULL)),
    ]


def digest_finding(*observations):
    incident = IncidentBrief(
        title="weekly digests not sent",
        service="mailer-api",
        severity="sev3",
        symptoms=("subscribers got no digest this week",),
        window_start="2031-05-06T07:00:00Z",
        window_end="2031-05-06T08:00:00Z",
    )
    inv = Investigation(incident=incident, tools=[], observations=list(observations))
    found = {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }
    return found["deployment/digest-worker"]


@pytest.mark.rule("k8s.waiting-work")
def test_a_queue_with_no_consumer_puts_the_consumer_on_the_path():
    waiting = "digest queue depth 5120 (consumer digest-worker: 0 consumers)"
    f = digest_finding(*digest_cluster(), top_errors("mailer-api", waiting))

    assert f.stage == "startup" and f.is_relevant
    assert any(waiting in fact for _, fact in f.evidence)
    assert any("waits on digest-worker" in line for line in f.chain)


def test_the_consumer_is_a_lead_without_such_a_line():
    alone = digest_finding(*digest_cluster())
    named = digest_finding(
        *digest_cluster(),
        top_errors("mailer-api", "template cache for digest-worker reloaded slowly"),
    )

    assert not alone.is_relevant
    assert not named.is_relevant  # it names the workload, but no work waits on it


def test_a_queue_is_named_for_the_workload_that_works_it():
    assert names_workload(
        "render queue depth 830: jobs waiting for a worker", "renderer"
    )
    assert names_workload("index-queue backlog 12000", "indexer")
    assert names_workload("ocr queue growing", "ocr-worker")
    # Another workload whose name merely contains the queue's word is not its worker.
    assert not names_workload("render queue depth 830", "prerender")
    assert not names_workload("render queue depth 830", "renderer-canary")


def test_work_waiting_on_a_nodes_victim_puts_the_node_on_the_path():
    """tracker runs on another node; its queue waits on archiver, evicted by pool-b-7's pressure."""
    described = describe("node", APP, "pool-b-7", PRESSURE_DESCRIBE)
    alone = diagnosed(*pressure_cluster(), described)
    waiting = diagnosed(
        *pressure_cluster(),
        described,
        top_errors(
            "tracker",
            "archive queue depth 900 (oldest 600s): jobs waiting for a worker",
        ),
    )

    assert not alone["node/pool-b-7"].is_relevant
    node = waiting["node/pool-b-7"]
    assert node.is_relevant
    assert any("archive queue depth" in fact for _, fact in node.evidence)
    assert waiting["deployment/archiver"].victim_of == "node/pool-b-7"
