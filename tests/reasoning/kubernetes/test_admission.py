"""Admission: a FailedCreate warning means the controller cannot create the workload's pods."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.stages.admission import admission
from reasoning.layered.kubernetes.workloads import workload_fault

from .answers import NS, cited, deployments, describe, events, pods, view

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
