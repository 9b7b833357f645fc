"""Admission: a FailedCreate warning means the controller cannot create the workload's pods."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.stages.admission import admission
from reasoning.layered.kubernetes.workloads import all_workloads, workload_fault

from .answers import NS, answer, cited, deployments, describe, events, pods, view
from .test_infrastructure import deployments as ns_deployments
from .test_infrastructure import diagnosed, namespaces, nodes
from .test_infrastructure import events as ns_events
from .test_infrastructure import listing as ns_listing
from .test_infrastructure import pods as ns_pods

QUOTA_MESSAGE = (
    'Error creating: pods "ledger-7d9c8b6f4-9xk2p" is forbidden: exceeded quota: compute-quota,'
    " requested: requests.cpu=1, used: requests.cpu=3800m, limited: requests.cpu=4"
)
QUOTA = """\
Name:            compute-quota
Namespace:       shop
Resource         Used   Hard
--------         ----   ----
requests.cpu     3800m  4
"""


@pytest.mark.rule("k8s.admission")
def test_an_exceeded_quota_blocks_the_workload_at_admission():
    warned = events(
        ("Warning", "FailedCreate", "ReplicaSet/ledger-7d9c8b6f4", QUOTA_MESSAGE)
    )
    quota = describe("resourcequota", "compute-quota", QUOTA)
    f = admission(
        view("deployment/ledger", deployments(("ledger", "0/2")), warned, quota)
    )
    assert f is not None
    assert (f.stage, f.reason, f.component, f.layer) == (
        "admission",
        "FailedCreate",
        "deployment/ledger",
        layers.PLATFORM,
    )
    assert f.namespace == NS
    assert "(exceeded quota)" in f.statement
    assert "compute-quota" in f.keywords
    assert cited(f.evidence, warned)  # the event itself
    assert cited(f.evidence, quota) == [
        "describe resourcequota compute-quota: used at the hard limit"
    ]


def test_a_missing_service_account_is_named():
    message = 'Error creating: pods "ledger-7d9c8b6f4-" is forbidden: error looking up serviceaccount shop/ledger: serviceaccount "ledger" not found'
    f = admission(
        view(
            "deployment/ledger",
            deployments(("ledger", "0/2")),
            events(("Warning", "FailedCreate", "ReplicaSet/ledger-7d9c8b6f4", message)),
        )
    )
    assert f is not None and f.stage == "admission"
    assert "(serviceaccount)" in f.statement


def test_a_webhook_refusal_is_admission_refused():
    message = 'Error creating: admission webhook "policy.example.com" denied the request: image not signed'
    f = admission(
        view(
            "deployment/ledger",
            deployments(("ledger", "0/2")),
            events(("Warning", "FailedCreate", "ReplicaSet/ledger-7d9c8b6f4", message)),
        )
    )
    assert f is not None and "(admission refused)" in f.statement


def test_no_failed_create_passes_admission():
    f = admission(
        view(
            "deployment/ledger",
            deployments(("ledger", "1/1")),
            pods(("ledger-7d9c8b6f4-9xk2p", "1/1", "Running", "0")),
            events(
                (
                    "Warning",
                    "BackOff",
                    "Pod/ledger-7d9c8b6f4-9xk2p",
                    "Back-off restarting failed container",
                )
            ),
        )
    )
    assert f is None


def test_another_workloads_failed_create_is_not_this_ones():
    f = admission(
        view(
            "deployment/ledger",
            deployments(("ledger", "1/1"), ("billing", "0/1")),
            events(
                (
                    "Warning",
                    "FailedCreate",
                    "ReplicaSet/billing-5c6d7e8f9",
                    QUOTA_MESSAGE,
                )
            ),
        )
    )
    assert f is None


def test_admission_comes_before_the_later_stages():
    cluster = Cluster.read(
        [
            deployments(("ledger", "1/2")),
            pods(("ledger-7d9c8b6f4-9xk2p", "0/1", "CrashLoopBackOff", "4")),
            events(
                (
                    "Warning",
                    "FailedCreate",
                    "ReplicaSet/ledger-7d9c8b6f4",
                    QUOTA_MESSAGE,
                )
            ),
        ]
    )
    f = workload_fault(cluster, NS, "deployment/ledger")
    assert f is not None and f.stage == "admission"


# --- a cron job whose jobs the API server refuses -------------------------------------------------

JOB_QUOTA_MESSAGE = (
    'Error creating job: jobs.batch "statement-export-29311520" is forbidden: exceeded quota: '
    "jobs-cap, requested: count/jobs.batch=1, used: count/jobs.batch=200, "
    "limited: count/jobs.batch=200"
)
JOB_QUOTA = """\
Name:            jobs-cap
Namespace:       shop
Resource         Used  Hard
--------         ----  ----
count/jobs.batch 200   200
"""


def _cron_cluster(message=JOB_QUOTA_MESSAGE):
    return [
        namespaces(NS),
        nodes(("worker-1", "Ready")),
        ns_pods(
            NS,
            ("ledger-7d9c8b6f4-9xk2p", "1/1", "Running", "0", "worker-1", "app=ledger"),
        ),
        ns_deployments(NS, ("ledger", "1/1")),
        ns_listing(
            "cronjobs",
            NS,
            ("NAME", "SCHEDULE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"),
            ("statement-export", "*/15 * * * *", "False", "0", "48m", "300d"),
        ),
        ns_events(
            NS,
            ("Warning", "FailedCreate", "CronJob/statement-export", message),
        ),
        answer(
            "describe",
            {"kind": "resourcequota", "name": "jobs-cap", "namespace": NS},
            JOB_QUOTA,
        ),
    ]


@pytest.mark.rule("k8s.admission")
def test_a_cron_job_whose_jobs_a_quota_refuses_is_blocked_at_admission():
    cluster = Cluster.read(_cron_cluster())

    assert "cronjob/statement-export" in all_workloads(cluster, NS)
    f = workload_fault(cluster, NS, "cronjob/statement-export")
    assert f is not None
    assert (f.stage, f.reason, f.layer) == (
        "admission",
        "FailedCreate",
        layers.PLATFORM,
    )
    assert "cannot create its jobs (exceeded quota)" in f.statement
    assert "jobs-cap" in f.keywords
    assert any("used at the hard limit" in fact for _, fact in f.evidence)


@pytest.mark.rule("k8s.admission", "k8s.declared-failure", "k8s.refusal-names-blocker")
def test_a_cron_jobs_refused_jobs_are_the_clusters_verdict_whatever_the_incident_names():
    found = diagnosed(*_cron_cluster(), service="ledger")

    f = found["cronjob/statement-export"]
    assert any("FailedCreate" in fact for _, fact in f.evidence)
    # The quota the refusal names is the fault (`blockers`), the cron job its victim; the API
    # server's own refusal is its verdict: nothing else in the namespace fails.
    quota = found["resourcequota/jobs-cap"]
    assert f.victim_of == quota.component
    assert quota.is_relevant
    assert any("FailedCreate" in fact for _, fact in quota.evidence)


def test_a_cron_job_refused_by_a_webhook_is_admission_refused_too():
    message = (
        'Error creating job: admission webhook "jobs.policy.example.org" denied the '
        "request: image not signed"
    )
    f = workload_fault(
        Cluster.read(_cron_cluster(message)), NS, "cronjob/statement-export"
    )
    assert f is not None and "(admission refused)" in f.statement
