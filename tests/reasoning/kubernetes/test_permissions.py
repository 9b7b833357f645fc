"""A pod running ready whose logs show the API server refusing its ServiceAccount (403)."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.permissions import permission_faults

from .answers import cited, listing, pod_logs, pods

POD = "ticket-router-5d6c7b8a9-m3n4p"
LINE = (
    'ERROR enqueue: configmaps is forbidden: User "system:serviceaccount:shop:ticket-router-v2" '
    'cannot update resource "configmaps" in API group "" in the namespace "shop"'
)


@pytest.mark.rule("k8s.permission-denied")
def test_a_forbidden_serviceaccount_in_a_ready_pods_logs_is_a_platform_fault():
    logs = pod_logs(POD, f"INFO started\n{LINE}\n")
    found = permission_faults(
        Cluster.read(
            [
                pods((POD, "1/1", "Running", "0")),
                listing(
                    "serviceaccounts",
                    ("NAME", "SECRETS", "AGE"),
                    ("ticket-router-v2", "0", "12m"),
                ),
                logs,
            ]
        ),
        "shop",
        Path(resolved=True),
        1800.0,
    )
    assert [(f.component, f.reason, f.layer, f.is_relevant) for f in found] == [
        ("serviceaccount/ticket-router-v2", "Forbidden", layers.PLATFORM, True)
    ]
    assert "cannot update configmaps" in found[0].statement
    assert cited(found[0].evidence, logs) == [f"logs {POD}: {LINE}"]


def test_no_refusal_no_fault():
    logs = pod_logs(POD, "INFO started\nERROR upstream timed out\n")
    cluster = Cluster.read([pods((POD, "1/1", "Running", "0")), logs])
    assert permission_faults(cluster, "shop", Path(resolved=True), 1800.0) == []


@pytest.mark.rule("k8s.permission-denied")
def test_a_cloud_providers_refusal_is_not_a_serviceaccount_fault():
    line = (
        "ERROR upload failed: An error occurred (AccessDenied) when calling the PutObject "
        "operation: User: arn:aws:sts::1:assumed-role/billing-export-v3/x is not authorized"
    )
    cluster = Cluster.read(
        [pods((POD, "1/1", "Running", "0")), pod_logs(POD, f"INFO started\n{line}\n")]
    )
    assert permission_faults(cluster, "shop", Path(resolved=True), 1800.0) == []
