"""A Kubernetes kind of resource (`<plural>.<group>`) is never a host: in the API server's refusals
(`jobs.batch "…" is forbidden`), in a quota's keys (`count/jobs.batch`) and as a core kind in a
built-in group (reasoning/layered/reading.py, `is_resource_kind`).

Names and wordings are invented.
"""

import asyncio

import pytest

from reasoning.layered import LayeredPlanner
from reasoning.layered.reading import hosts_in
from reasoning.observations import Investigation
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_unread_services import EVERY, _every, _tools, _with
from tests.reasoning.test_warnings_and_changes import FAILING, group, logged


@pytest.mark.parametrize(
    "line",
    [
        # A cron job's controller refused by a quota on the count of jobs (escaped as klog quotes).
        'E0412 cronjob_controllerv2.go:611] "Error creating job for CronJob" err="jobs.batch '
        '\\"nightly-rollup-28811\\" is forbidden: exceeded quota: cap, requested: '
        'count/jobs.batch=1, used: count/jobs.batch=80, limited: count/jobs.batch=80"',
        'deployments.apps "ledger" not found',
        'statefulsets.apps "queue" already exists',
        'nodepools.karpenter.sh "burst" is forbidden: User cannot patch',
        'scaledobjects.keda.sh \\"worker\\" is invalid: spec.maxReplicaCount',
        "quota used: count/deployments.apps=40, count/cronjobs.batch=9",
        "lease leases.coordination.k8s.io renewal slow",
        "watch of horizontalpodautoscalers.autoscaling ended",
        "listing ingresses.networking.k8s.io in shop",
    ],
)
def test_a_kind_of_resource_is_not_a_host(line):
    assert hosts_in(line) == []


@pytest.mark.parametrize(
    ("line", "host"),
    [
        ("GET https://jobs.example.com/v2 failed: 503", "jobs.example.com"),
        (
            "dial tcp: lookup pods.internal on 10.0.0.10:53: no such host",
            "pods.internal",
        ),
        ('upstream "cart.shop.svc" answered 502', "cart.shop.svc"),
        ("calling nodepools.example.org refused", "nodepools.example.org"),
    ],
)
def test_a_host_named_like_a_kind_is_still_a_host(line, host):
    assert hosts_in(line) == [host]


REFUSED = (
    'E0412 cronjob_controllerv2.go:611] "Error creating job for CronJob" err="jobs.batch '
    '\\"nightly-rollup-28811\\" is forbidden: exceeded quota: cap, requested: '
    'count/jobs.batch=1, used: count/jobs.batch=80, limited: count/jobs.batch=80" '
    'cronjob="reports/nightly-rollup"'
)


def test_a_quota_refusal_of_jobs_is_no_providers_rate_limit():
    world = World(
        {
            ("service_health", "report-api"): health(
                "report-api", "unhealthy", FAILING
            ),
            ("top_errors", "report-api"): logged(
                "report-api",
                errors=[group("rollup missing for 2 runs: reports stale", count=12)],
            ),
            ("top_errors", ""): _every(
                _with(
                    "report-api", "rollup missing for 2 runs: reports stale", count=12
                ),
                warnings=[_with("kube-controller-manager", REFUSED, count=5)],
            ),
            ("top_errors", "kube-controller-manager"): logged(
                "kube-controller-manager", warnings=[group(REFUSED, count=5)]
            ),
        }
    )
    planner = LayeredPlanner()
    inv = Investigation(
        incident=incident("report-api", "reports are stale"), tools=_tools(EVERY)
    )
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    report = asyncio.run(planner.conclude(inv))

    ids = [h.id for h in report.hypotheses]
    assert "application:kube-controller-manager" in ids  # its warning was read
    assert not any("jobs.batch" in i or i.partition(":")[2] == "count" for i in ids)


@pytest.mark.timeout(60)
def test_a_hostile_line_of_kinds_and_quotes_is_read_in_linear_time():
    hostile = 'jobs.batch \\"' + "a" * 200_000 + " is forbidden " + "count/" * 5_000
    assert hosts_in(hostile) == []
