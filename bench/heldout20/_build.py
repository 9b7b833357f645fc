"""Writes the twentieth held-out scenario set, bench/heldout20: `python bench/heldout20/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout18. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout15/_build.py's helpers (and through them heldout14's and the earlier builders'),
each scenario with a fixed seed (513-528). The author read neither the planner (`reasoning/`) nor
the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


h15 = _load("heldout15_build", HERE.parent / "heldout15" / "_build.py")
h14 = h15.h14
base = h15.base

table = base.table
events = base.events
runbook = base.runbook
app = h15.app
pod_name = h15.pod_name
namespace = h15.namespace
ev = h15.ev
bg = h15.bg
incident = h15.incident
expected = h15.expected
simple = h15.simple
container_text = h15.container_text
deployment_describe = h15.deployment_describe
describe_pod = h15.describe_pod
podlog = h15.podlog
running = h15.running
crashloop = h15.crashloop
node_describe = h15.node_describe
pending_pod = h15.pending_pod
replicaset_describe = h15.replicaset_describe
sched = h15.sched
kube_case = h15.kube_case
pods_of = h15.pods_of
svc = h15.svc
every = h15.every
describe_block = h15.describe_block
retype_node = h15.retype_node
backoff_rows = h15.backoff_rows
NODES_FRA = h15.NODES_FRA
NODES_IAD = h15.NODES_IAD
NODES_DUB = h15.NODES_DUB
NODES_PDX = h15.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def gauge(
    name: str, labels: dict[str, str], before: float, after: float, at: int
) -> dict[str, Any]:
    """A gauge that steps from `before` to `after` at `at` (the shape simple / kube_case expect)."""
    return {
        "name": name,
        "labels": labels,
        "before": before,
        "after": after,
        "change_at": at,
    }


def with_netcheck(
    spec: dict[str, Any], targets: list[dict[str, Any]], probe: str | None, want: dict
) -> dict:
    spec["targets"] = targets
    spec["expected"]["root_cause_probe"] = probe
    spec["expected"]["netcheck"] = want
    return spec


# =================================================================================================
# 1. Admission: after postmortem PM-212 the media team gave thumbnail-worker (Celery) the
#    PriorityClass `business-critical`. The platform team caps that class per namespace with a
#    ResourceQuota scoped by PriorityClass (`critical-pods`, pods: 4). The four running pods were
#    replaced within the cap this morning; at the evening upload peak the HPA asks for 10 and the
#    ReplicaSet cannot create the six new pods. Uploads stay "processing". The incident says "photo
#    uploads".
# =================================================================================================


def waiting(reason: str) -> str:
    return f"    State:          Waiting\n      Reason:       {reason}"


# =================================================================================================
# 1. Startup: MR !231 changed the GitLab CI image tag from $CI_COMMIT_SHORT_SHA to
#    $CI_COMMIT_REF_NAME ("tag images by branch, easier to debug"). A hotfix pipeline from branch
#    `hotfix/vat-rounding` deployed invoice-pdf with the tag `hotfix/vat-rounding`: the image
#    reference is invalid, kubelet refuses it (InvalidImageName). invoice-pdf uses Recreate, so the old
#    pods were gone first. The incident says "customer portal".
# =================================================================================================


@scenario("ci-branch-slash-in-image-tag")
def ci_branch_slash_in_image_tag() -> dict[str, Any]:
    start = -1500
    ns = "billing"
    img = "registry.gitlab.com/fernhill/billing/invoice-pdf:hotfix/vat-rounding"
    pdf = app(
        "invoice-pdf",
        image=img,
        port=8080,
        rs="7c5d9f8b46",
        cluster_ip="10.43.18.22",
        desired=2,
        pods=[
            ("m2xkq", "0/1", "InvalidImageName", "0", "25m", 0),
            ("t7pzn", "0/1", "InvalidImageName", "0", "25m", 1),
        ],
    )
    portal = app(
        "customer-portal",
        image="registry.gitlab.com/fernhill/web/customer-portal:2026.49.2",
        port=3000,
        rs="58b6c7d9f",
        cluster_ip="10.43.18.5",
        pods=[
            ("b9wvl", "1/1", "Running", "0", "2h", 0),
            ("k4hjs", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [pdf, portal], seed=513)
    sig = f'couldn\'t parse image name "{img}": invalid reference format'
    tag_msg = f'Failed to apply default image tag "{img}": {sig}'
    for sfx in ("m2xkq", "t7pzn"):
        name = pod_name(pdf, sfx)
        describe_pod(
            k8s,
            ns,
            pdf,
            sfx,
            NODES_FRA,
            state=waiting("InvalidImageName"),
            started=-1500,
            status="Pending",
            events_rows=[
                sched(ns, name, NODES_FRA[0 if sfx == "m2xkq" else 1][0], "25m"),
                ("Warning", "InspectFailed", "3m (x118 over 25m)", "kubelet", tag_msg),
                (
                    "Warning",
                    "Failed",
                    "3m (x118 over 25m)",
                    "kubelet",
                    "Error: InvalidImageName",
                ),
            ],
        )
    cont = container_text(
        "invoice-pdf",
        img,
        8080,
        env={"GOTENBERG_URL": "http://gotenberg.billing.svc:3000"},
        limits="memory:  768Mi",
    )
    k8s[f"kubectl describe deployments invoice-pdf -n {ns}"] = deployment_describe(
        "invoice-pdf",
        ns,
        replicas="2 desired | 2 updated | 2 total | 0 available | 2 unavailable",
        revision=63,
        containers=cont,
        strategy="Recreate",
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="invoice-pdf-6d9b7c8f55 (0/0 replicas created)",
        new_rs=f"invoice-pdf-{pdf['rs']} (2/2 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "25m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/invoice-pdf",
                "Scaled down replica set invoice-pdf-6d9b7c8f55 to 0 from 2",
            ),
            (
                "25m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/invoice-pdf",
                f"Scaled up replica set invoice-pdf-{pdf['rs']} to 2",
            ),
            (
                "3m",
                "Warning",
                "InspectFailed",
                f"Pod/{pod_name(pdf, 'm2xkq')}",
                tag_msg,
            ),
        ]
    )
    evs = [
        ev(
            "kubelet",
            "error",
            'E1207 10:{n}.{ms}    2211 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"invoice-pdf\\" with InvalidImageName: \\"'
            + tag_msg.replace('"', '\\\\\\"')
            + '\\"" pod="billing/invoice-pdf-7c5d9f8b46-m2xkq"',
            **every(start + 20, -30, 120),
            labels={"host": NODES_FRA[0][0]},
        ),
        ev(
            "gitlab-ci",
            "info",
            'pipeline #88412 (branch hotfix/vat-rounding) job deploy-prod: helm upgrade invoice-pdf charts/invoice-pdf --set image.tag=hotfix/vat-rounding --wait=false ... Release "invoice-pdf" has been upgraded. Happy Helming!',
            at=start - 20,
        ),
        ev(
            "gitlab-ci",
            "info",
            "MR !231 merged into main: .gitlab-ci.yml IMAGE_TAG: $CI_COMMIT_SHORT_SHA -> $CI_COMMIT_REF_NAME ('tag images by branch, easier to debug')",
            at=-86000,
        ),
        ev(
            "customer-portal",
            "error",
            '{"level":"error","time":"2026-12-07T10:{n}Z","msg":"GET /api/invoices/INV-{n}/pdf failed","err":"connect ECONNREFUSED 10.43.18.22:8080","status":502}',
            **every(start + 60, -5, 20),
            pods=pods_of(portal),
        ),
        ev(
            "customer-portal",
            "info",
            '{"level":"info","msg":"customer-portal 2026.49.2 listening on :3000 (new invoice list filters)"}',
            at=-7100,
            pods=pods_of(portal),
        ),
        ev(
            "gotenberg",
            "warn",
            '{"level":"warn","ts":17335{n},"logger":"chromium","msg":"chromium process restarted after 100 conversions"}',
            **every(-7000, -100, 900),
        ),
        ev(
            "customer-portal",
            "error",
            '{"level":"error","msg":"stripe: request timed out (GET /v1/customers/cus_{n})"}',
            **every(-10300, -9700, 120),
            pods=pods_of(portal),
        ),
    ]
    return kube_case(
        seed=513,
        start=start,
        inc=incident("Customers can't download invoices", "customer portal", start),
        exp=expected(
            "platform",
            [
                "deployment/invoice-pdf",
                "invoice-pdf",
                "hotfix/vat-rounding",
                "image.tag",
                "gitlab-ci",
                "MR !231",
            ],
            sig,
            "MR !231 made the GitLab pipeline tag images with the branch name. The hotfix pipeline from branch hotfix/vat-rounding deployed invoice-pdf with image tag 'hotfix/vat-rounding'; a slash is not valid in a tag, so kubelet cannot parse the image reference and both pods stay InvalidImageName. The Deployment is Recreate, so the old pods were already gone and every PDF download fails. customer-portal's 502s and release, Gotenberg restarts and the old Stripe timeouts are not the cause.",
            [
                f"Pod invoice-pdf: InspectFailed: {tag_msg}",
                "gitlab-ci: --set image.tag=hotfix/vat-rounding",
                "customer-portal: ECONNREFUSED 10.43.18.22:8080",
            ],
            "Redeploy invoice-pdf with the commit-SHA tag (or a slug of the branch: $CI_COMMIT_REF_SLUG), and revert MR !231.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "customer-portal",
                pods_of(portal),
                [
                    '{"level":"info","msg":"GET /api/invoices 200","ms":{ms}}',
                    '{"level":"info","msg":"GET /account 200","ms":{ms}}',
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("customer-portal", 12, {"502": (0.0, 0.08)}, (0.08, 0.09)),
        ],
        books={
            "invoice-download.md": runbook(
                "Invoice PDF downloads failing",
                "PDF downloads fail when Gotenberg's Chromium hangs. Restart the gotenberg deployment and retry; if PDFs are blank, clear the portal's invoice cache.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: the data team's EKS node group `etl` carries events-loader (CDC from Kafka into the
#    warehouse, nodeSelector workload=etl). A cost-saving Terraform change added an ASG scheduled
#    action `nights-off` (recurrence 0 18 * * 1-5, meant as 18:00 America/Chicago) without
#    time_zone, so it runs at 18:00 UTC = 12:00 in Chicago, setting min/max/desired to 0. The pods
#    are Pending; dashboards freeze at noon. The incident says "sales dashboard".
# =================================================================================================


@scenario("asg-scheduled-action-utc-empties-etl-nodegroup")
def asg_scheduled_action_utc_empties_etl_nodegroup() -> dict[str, Any]:
    start = -2000
    ns = "data"
    el = app(
        "events-loader",
        image="1234567890.dkr.ecr.us-east-1.amazonaws.com/data/events-loader:1.19.4",
        port=8080,
        rs="64f7b9c8d5",
        cluster_ip="172.20.61.14",
        desired=3,
        service=False,
        pods=[
            ("d8qzr", "0/1", "Pending", "0", "32m", -1),
            ("j3nxw", "0/1", "Pending", "0", "32m", -1),
            ("v6lkt", "0/1", "Pending", "0", "32m", -1),
        ],
    )
    mb = app(
        "metabase",
        image="metabase/metabase:v0.51.4",
        port=3000,
        rs="7b8c9d6f54",
        cluster_ip="172.20.61.30",
        pods=[("p2rhs", "1/1", "Running", "0", "6d", 0)],
    )
    k8s = namespace(ns, NODES_IAD, [el, mb], seed=514)
    sig = "a scheduled action update of AutoScalingGroup constraints to min: 0, max: 0, desired: 0"
    fs = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    cont = container_text(
        "events-loader",
        el["image"],
        8080,
        env={
            "KAFKA_BOOTSTRAP": "b-1.events.kafka.us-east-1.amazonaws.com:9098",
            "SNOWFLAKE_WAREHOUSE": "LOADER_WH",
        },
        limits="memory:  6Gi",
        requests="cpu:      2\n  memory:   6Gi",
    )
    for sfx in ("d8qzr", "j3nxw", "v6lkt"):
        name = pod_name(el, sfx)
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner=f"ReplicaSet/events-loader-{el['rs']}",
            labels=["app=events-loader", f"pod-template-hash={el['rs']}"],
            sa="events-loader",
            containers=cont,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "2m (x9 over 32m)",
                    "default-scheduler",
                    fs,
                ),
                (
                    "Normal",
                    "NotTriggerScaleUp",
                    "2m (x180 over 32m)",
                    "cluster-autoscaler",
                    "pod didn't trigger scale-up: 1 max node group size reached, 1 node(s) didn't match Pod's node affinity/selector",
                ),
            ],
        ).replace(
            "QoS Class:", "Node-Selectors:              workload=etl\nQoS Class:", 1
        )
    k8s[f"kubectl describe deployments events-loader -n {ns}"] = deployment_describe(
        "events-loader",
        ns,
        replicas="3 desired | 3 updated | 3 total | 0 available | 3 unavailable",
        revision=31,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs=f"events-loader-{el['rs']} (3/3 replicas created)",
    ).replace(
        "Node-Selectors:            <none>", "Node-Selectors:            workload=etl"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "33m",
                "Normal",
                "Killing",
                f"Pod/events-loader-{el['rs']}-a1b2c",
                "Stopping container events-loader",
            ),
            (
                "32m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/events-loader-{el['rs']}",
                f"Created pod: {pod_name(el, 'd8qzr')}",
            ),
            ("2m", "Warning", "FailedScheduling", f"Pod/{pod_name(el, 'd8qzr')}", fs),
        ]
    )
    evs = [
        ev(
            "autoscaling",
            "info",
            f"eks-etl-2026061812: At 2026-12-07T18:00:00Z {sig} changing the desired capacity from 3 to 0. At 2026-12-07T18:00:07Z an instance was taken out of service in response to a difference between desired and actual capacity, shrinking the capacity from 3 to 0.",
            at=start - 60,
        ),
        ev(
            "terraform",
            "info",
            '  + resource "aws_autoscaling_schedule" "nights_off" { + scheduled_action_name = "nights-off" + recurrence = "0 18 * * 1-5" + min_size = 0 + max_size = 0 + desired_capacity = 0 + time_zone = (known after apply) }  (PR data-infra#57 "stop etl nodes at night, save $1.9k/mo")',
            at=-259000,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            "I1207 18:{n}.114  1 orchestrator.go:546] Pod data/events-loader-64f7b9c8d5-{n} can't be scheduled on eks-etl-2026061812, predicate checking error: node(s) didn't match Pod's node affinity/selector; Skipping node group eks-etl-2026061812 - max size reached",
            **every(start + 30, -20, 60),
        ),
        ev(
            "metabase",
            "warn",
            "2026-12-07 12:{n}:04,221 WARN sync.util :: Dashboard 'Sales today' card 'Revenue by hour': newest row 11:58 (freshness check > 30 min)",
            **every(start + 600, -60, 300),
            pods=pods_of(mb),
        ),
        ev(
            "kafka-connect",
            "warn",
            "[2026-12-07 18:{n}:11,502] WARN [events-loader] consumer lag for topic orders.cdc is 1{n} (group events-loader has no active members)",
            **every(start + 300, -30, 240),
        ),
        ev(
            "dbt",
            "error",
            "18:{n}:02  Database Error in model fct_orders (models/marts/fct_orders.sql)  002003 (42S02): SQL compilation error: Object 'RAW.ORDERS_STAGE' does not exist or not authorized.",
            **every(-10200, -9600, 300),
        ),
        ev(
            "metabase",
            "info",
            "2026-12-07 10:{n}:00,002 INFO metabase.core :: Metabase v0.51.4 (upgraded from v0.50.21) initialization complete",
            at=-8200,
            pods=pods_of(mb),
        ),
    ]
    return kube_case(
        seed=514,
        start=start,
        inc=incident(
            "Sales dashboard stopped updating around noon", "sales dashboard", start
        ),
        exp=expected(
            "platform",
            [
                "eks-etl-2026061812",
                "etl node group",
                "nights-off",
                "aws_autoscaling_schedule",
                "deployment/events-loader",
                "events-loader",
            ],
            sig,
            "PR data-infra#57 added an ASG scheduled action 'nights-off' (0 18 * * 1-5) to the etl node group without a time zone, so it fired at 18:00 UTC, noon in Chicago, and set the group to min/max/desired 0. events-loader is pinned to workload=etl; its pods are Pending (node selector, max node group size reached), the CDC lag grows and the dashboards freeze. Metabase's freshness warnings and upgrade, Kafka lag and the old dbt error are consequences or noise.",
            [
                f"autoscaling: {sig}",
                f"events-loader pods: FailedScheduling: {fs}",
                "cluster-autoscaler: Skipping node group eks-etl-2026061812 - max size reached",
            ],
            'Restore the etl group\'s capacity (min 1 / max 4 / desired 3), then set time_zone = "America/Chicago" on the scheduled actions.',
        ),
        k8s=k8s,
        bgs=[
            bg(
                "metabase",
                pods_of(mb),
                [
                    "2026-12-07 12:{n}:1{n},0{ms} INFO middleware.log :: GET /api/dashboard/{n} 200 {ms} ms",
                    "2026-12-07 12:{n}:2{n},0{ms} INFO middleware.log :: POST /api/card/{n}/query 202 {ms} ms",
                ],
                10,
            )
        ],
        evs=evs,
        services=[svc("metabase", 4, {"500": (0.001, 0.002)}, (0.3, 0.35))],
        gauges=[
            gauge(
                "kafka_consumergroup_lag",
                {"group": "events-loader"},
                120,
                184000,
                start + 60,
            )
        ],
        books={
            "dashboards-stale.md": runbook(
                "Dashboards not updating",
                "Stale dashboards usually mean the dbt run failed. Check the dbt Cloud job, re-run it, and clear Metabase's query cache for the dashboard.",
            )
        },
    )


# =================================================================================================
# 3. Runtime: product switched on the Unleash flag `tax-engine-v2` in production. tax-service 5.3.0
#    (released last week, innocent) loads the v2 rules at start-up and on flag change; the rules file
#    /app/rules/eu_vat_2027.yaml ships only from 5.4.0. The Unleash client's toggle callback raises,
#    the process exits, and on every restart the flag is read as on: CrashLoopBackOff. The incident
#    says "checkout".
# =================================================================================================


@scenario("unleash-flag-crashes-tax-service")
def unleash_flag_crashes_tax_service() -> dict[str, Any]:
    start = -1700
    ns = "checkout"
    tax = app(
        "tax-service",
        image="ghcr.io/lumo-shop/tax-service:5.3.0",
        port=8000,
        rs="5f6c8d9b7a",
        cluster_ip="10.0.142.33",
        pods=[
            ("c2nvp", "0/1", "CrashLoopBackOff", "8", "6d", 0),
            ("h7tqm", "0/1", "CrashLoopBackOff", "8", "6d", 1),
        ],
    )
    web = app(
        "checkout-web",
        image="ghcr.io/lumo-shop/checkout-web:12.8.1",
        port=3000,
        rs="6b7d8c9f5",
        cluster_ip="10.0.142.10",
        pods=[
            ("f4kxs", "1/1", "Running", "0", "70m", 0),
            ("w9dzc", "1/1", "Running", "0", "70m", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [tax, web], seed=515)
    sig = "FileNotFoundError: [Errno 2] No such file or directory: '/app/rules/eu_vat_2027.yaml'"
    trace = [
        "INFO:     Started server process [1]",
        "INFO:     Waiting for application startup.",
        "INFO:UnleashClient:Unleash client initialised, app_name=tax-service, environment=production",
        "INFO:tax.engine:flag tax-engine-v2 is enabled, loading v2 rule set",
        "ERROR:    Traceback (most recent call last):",
        '  File "/app/tax/engine.py", line 48, in load_rules',
        "    with open(RULES_DIR / cfg.rules_file) as fh:",
        sig,
        "ERROR:    Application startup failed. Exiting.",
    ]
    for sfx in ("c2nvp", "h7tqm"):
        name = pod_name(tax, sfx)
        describe_pod(
            k8s,
            ns,
            tax,
            sfx,
            NODES_DUB,
            state=crashloop(3, "Error", -75, -72),
            started=-520000,
            restarts=8,
            events_rows=backoff_rows(tax, ns, sfx, "x96 over 27m"),
        )
        k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
            [(-74 + i * 0.3, line) for i, line in enumerate(trace)]
        )
    cont = container_text(
        "tax-service",
        tax["image"],
        8000,
        env={
            "UNLEASH_URL": "https://unleash.internal.lumo.example/api",
            "UNLEASH_API_TOKEN": "<set to the key 'token' in secret 'unleash-tax'>",
        },
    )
    k8s[f"kubectl describe deployments tax-service -n {ns}"] = deployment_describe(
        "tax-service",
        ns,
        replicas="2 desired | 2 updated | 2 total | 0 available | 2 unavailable",
        revision=41,
        containers=cont,
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "False", "MinimumReplicasUnavailable"),
        ],
        old_rs="<none>",
        new_rs=f"tax-service-{tax['rs']} (2/2 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "28m",
                "Warning",
                "Unhealthy",
                f"Pod/{pod_name(tax, 'c2nvp')}",
                'Readiness probe failed: Get "http://10.115.1.40:8000/healthz": dial tcp 10.115.1.40:8000: connect: connection refused',
            ),
            (
                "30s",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(tax, 'h7tqm')}",
                f"Back-off restarting failed container tax-service in pod {pod_name(tax, 'h7tqm')}_{ns}(5d1e…)",
            ),
        ]
    )
    evs = [
        ev(
            "unleash",
            "info",
            '{"level":"info","message":"feature-environment-enabled","featureName":"tax-engine-v2","environment":"production","createdBy":"p.lindgren@lumo.example","project":"checkout"}',
            at=start - 15,
        ),
        ev(
            "tax-service",
            "error",
            sig,
            **every(start, -72, 180),
            pods=pods_of(tax),
        ),
        ev(
            "tax-service",
            "info",
            "INFO:tax.engine:flag tax-engine-v2 is enabled, loading v2 rule set",
            **every(start, -72, 180),
            pods=pods_of(tax),
        ),
        ev(
            "checkout-web",
            "error",
            '{"level":50,"msg":"quote failed","err":"request to http://tax-service.checkout.svc:8000/v1/quote failed, reason: connect ECONNREFUSED 10.0.142.33:8000","cartId":"c_{n}"}',
            **every(start + 20, -4, 10),
            pods=pods_of(web),
        ),
        ev(
            "checkout-web",
            "info",
            '{"level":30,"msg":"checkout-web 12.8.1 ready (apple pay button on cart)"}',
            at=-4200,
            pods=pods_of(web),
        ),
        ev(
            "adyen-webhooks",
            "warn",
            "AUTHORISATION notification for psp {n} took 4.{ms}s to acknowledge",
            **every(-7000, -200, 450),
        ),
        ev(
            "checkout-web",
            "error",
            '{"level":50,"msg":"redis: connection pool timeout","pool":"sessions"}',
            **every(-10400, -9900, 60),
            pods=pods_of(web),
        ),
    ]
    return kube_case(
        seed=515,
        start=start,
        inc=incident("Checkout broken, can't get to payment", "checkout", start),
        exp=expected(
            "application",
            [
                "deployment/tax-service",
                "tax-service",
                "tax-engine-v2",
                "unleash",
                "eu_vat_2027.yaml",
                "feature flag",
            ],
            sig,
            "The Unleash flag tax-engine-v2 was enabled in production. tax-service 5.3.0 loads the v2 rules when the flag is on, but the rules file eu_vat_2027.yaml only ships from 5.4.0, so start-up fails with FileNotFoundError and both pods crash-loop. checkout-web cannot get a tax quote and checkout stops before payment. checkout-web's errors and release, Adyen's slow acknowledgements and the old Redis pool timeout are not the cause.",
            [
                f"tax-service previous log: {sig}",
                "unleash: feature-environment-enabled tax-engine-v2 production",
                "checkout-web: ECONNREFUSED 10.0.142.33:8000",
            ],
            "Disable tax-engine-v2 in production (the pods start again), then enable it only after tax-service 5.4.0 is rolled out.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout-web",
                pods_of(web),
                [
                    '{"level":30,"msg":"request completed","req":{"method":"GET","url":"/cart"},"res":{"statusCode":200},"responseTime":{ms}}',
                    '{"level":30,"msg":"request completed","req":{"method":"POST","url":"/api/cart/items"},"res":{"statusCode":200},"responseTime":{ms}}',
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("checkout-web", 20, {"500": (0.001, 0.11)}, (0.09, 0.1))],
        books={
            "checkout-errors.md": runbook(
                "Checkout errors",
                "Checkout failing at the payment step is almost always the payment provider. Check Adyen's status page, and switch checkout-web to the backup merchant account with the PAYMENT_FALLBACK flag.",
            )
        },
    )


# =================================================================================================
# 4. Infrastructure / node: on-prem bare-metal Kubernetes. bm-k8s-w03's bond0 (802.3ad) has eno1 on
#    switch sw-a and eno2 on sw-b, but sw-b's port Gi1/0/14 was never put in the LACP port-channel
#    (it sits in VLAN 1). Nobody noticed while eno1 carried everything. Tonight's sw-a firmware
#    upgrade (CHG-4471) took eno1 down and sw-a has not come back; w03 is cut off: NotReady.
#    label-bridge (one replica) lived there. The incident says "warehouse scanners".
# =================================================================================================

NODES_BM = [
    ("bm-k8s-w01", "Ready", "10.20.30.11", "611d"),
    ("bm-k8s-w02", "Ready", "10.20.30.12", "611d"),
    ("bm-k8s-w03", "Ready", "10.20.30.13", "402d"),
]


@scenario("bond-second-link-not-in-lacp-node-notready")
def bond_second_link_not_in_lacp_node_notready() -> dict[str, Any]:
    start = -1300
    ns = "warehouse"
    bad = "bm-k8s-w03"
    nodes = [n if n[0] != bad else (n[0], "NotReady", n[2], n[3]) for n in NODES_BM]
    lb = app(
        "label-bridge",
        image="harbor.dc1.kvist.example/wms/label-bridge:3.1.7",
        port=9100,
        rs="7d9f6b8c54",
        cluster_ip="10.43.77.21",
        desired=1,
        pods=[
            ("s4mkd", "1/1", "Terminating", "0", "38d", 2),
            ("x2lqp", "0/1", "Pending", "0", "14m", -1),
        ],
    )
    pick = app(
        "pick-api",
        image="harbor.dc1.kvist.example/wms/pick-api:22.4.0",
        port=8080,
        rs="6c8d7f9b5",
        cluster_ip="10.43.77.10",
        pods=[
            ("a1zxq", "1/1", "Running", "0", "5h", 0),
            ("g8vnw", "1/1", "Running", "0", "5h", 1),
            ("r3kjp", "1/1", "Terminating", "0", "5h", 2),
        ],
    )
    k8s = namespace(ns, nodes, [lb, pick], seed=516)
    sig = "No 802.3ad response from the link partner for any adapters in the bond"
    k8s[f"kubectl describe nodes {bad}"] = node_describe(
        bad,
        "10.20.30.13",
        conditions={
            "MemoryPressure": (
                "Unknown",
                "-1180",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
            ),
            "DiskPressure": (
                "Unknown",
                "-1180",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
            ),
            "PIDPressure": (
                "Unknown",
                "-1180",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
            ),
            "Ready": (
                "Unknown",
                "-1180",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
            ),
        },
        taints="node.kubernetes.io/unreachable:NoExecute\n                    node.kubernetes.io/unreachable:NoSchedule",
        pods_rows=[(ns, pod_name(lb, "s4mkd")), (ns, pod_name(pick, "r3kjp"))],
        events_text=(
            "  Type    Reason        Age   From             Message\n"
            "  ----    ------        ----  ----             -------\n"
            f"  Normal  NodeNotReady  19m   node-controller  Node {bad} status is now: NodeNotReady\n"
        ),
        capacity=("32", "263855628Ki", "110"),
    ).replace(base.when(-20), base.when(-1225))
    h14.on_prem(k8s)
    for key in ("kubectl get nodes -o wide", f"kubectl describe nodes {bad}"):
        k8s[key] = (
            k8s[key]
            .replace("Rocky Linux 9.5 (Blue Onyx)", "Ubuntu 24.04.1 LTS")
            .replace("5.14.0-503.16.1.el9_5.x86_64", "6.8.0-49-generic")
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "19m",
                "Normal",
                "NodeNotReady",
                f"Pod/{pod_name(lb, 's4mkd')}",
                "Node is not ready",
            ),
            (
                "14m",
                "Normal",
                "TaintManagerEviction",
                f"Pod/{pod_name(lb, 's4mkd')}",
                f"Marking for deletion Pod {ns}/{pod_name(lb, 's4mkd')}",
            ),
            (
                "14m",
                "Warning",
                "FailedScheduling",
                f"Pod/{pod_name(lb, 'x2lqp')}",
                "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            ),
        ]
    )
    evs = [
        ev(
            "servicenow",
            "info",
            "CHG-4471 'sw-a (Catalyst 9300, rack B4) firmware 17.9.4 -> 17.12.3, expected outage 10 min, hosts dual-homed via LACP' state Implement",
            at=start - 200,
        ),
        ev(
            "kernel",
            "warn",
            "bond0: (slave eno1): link status definitely down, disabling slave",
            at=start - 130,
            labels={"host": bad},
        ),
        ev(
            "kernel",
            "warn",
            f"bond0: Warning: {sig}",
            **every(start - 128, -40, 60),
            labels={"host": bad},
        ),
        ev(
            "kernel",
            "info",
            "bond0: (slave eno2): link status definitely up, 25000 Mbps full duplex",
            at=-9000,
            labels={"host": bad},
        ),
        ev(
            "sw-b",
            "info",
            "%LINK-3-UPDOWN: Interface TwentyFiveGigE1/0/14, changed state to up  (switchport access vlan 1, no channel-group)",
            at=-9000,
        ),
        ev(
            "sw-a",
            "error",
            "%PLATFORM-3-ELEMENT_CRITICAL: Switch 1 R0/0: rommon: boot image verification failed, staying in ROMMON",
            at=start - 60,
        ),
        ev(
            "scanner-gateway",
            "error",
            '2026-12-07 22:{n}:11 ERROR [print] label job LBL-{n} failed: Post "http://label-bridge.warehouse.svc:9100/print": dial tcp 10.43.77.21:9100: i/o timeout',
            **every(start + 60, -3, 12),
        ),
        ev(
            "pick-api",
            "warn",
            "2026-12-07 22:{n}:44.120  WARN 1 --- [nio-8080-exec-{ms}] c.k.w.pick.ScannerSessionService   : scanner HH-{n} session rebound after 3 missed heartbeats",
            **every(start + 100, -20, 90),
            pods=pods_of(pick)[:2],
        ),
        ev(
            "pick-api",
            "error",
            "2026-12-07 19:{n}:02.001 ERROR 1 --- [scheduling-1] c.k.w.pick.WaveScheduler   : wave W-{n} release failed: ORA-00060: deadlock detected while waiting for resource",
            **every(-10500, -9900, 120),
            pods=pods_of(pick)[:2],
        ),
    ]
    return kube_case(
        seed=516,
        start=start,
        inc=incident(
            "Warehouse scanners can't print shipping labels",
            "warehouse scanners",
            start,
        ),
        exp=expected(
            "platform",
            [
                f"node/{bad}",
                bad,
                "bond0",
                "eno2",
                "sw-b",
                "TwentyFiveGigE1/0/14",
            ],
            sig,
            f"{bad}'s bond0 is 802.3ad over eno1 (sw-a) and eno2 (sw-b), but sw-b's port Gi1/0/14 was never in the LACP channel (access VLAN 1). While sw-a's firmware upgrade (CHG-4471) keeps it in ROMMON, eno1 is down and the node has no working uplink: kubelet stops posting status, the node is NotReady and label-bridge (one replica, USB printer node) is gone, so label printing fails. The change is the trigger, the missing second link the cause; pick-api's heartbeats and the old deadlock are noise.",
            [
                f"kernel {bad}: bond0: Warning: {sig}",
                "sw-b: TwentyFiveGigE1/0/14 access vlan 1, no channel-group",
                f"node {bad}: Ready Unknown, Kubelet stopped posting node status.",
            ],
            "Bring sw-a back (roll the firmware back from ROMMON), then add sw-b Gi1/0/14 to the node's port-channel in the right VLAN and test each link alone on every node.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "pick-api",
                pods_of(pick)[:2],
                [
                    '2026-12-07 22:{n}:1{n}.{ms}  INFO 1 --- [nio-8080-exec-{ms}] o.a.c.c.C.[Tomcat].[localhost]   : "POST /api/picks/{n}/confirm" 200 {ms}ms',
                    '2026-12-07 22:{n}:2{n}.{ms}  INFO 1 --- [nio-8080-exec-{ms}] o.a.c.c.C.[Tomcat].[localhost]   : "GET /api/waves/current" 200 {ms}ms',
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("pick-api", 15, {"500": (0.001, 0.002)}, (0.05, 0.06))],
        gauges=[
            gauge(
                "node_network_up",
                {"instance": bad, "device": "eno1"},
                1,
                0,
                start - 130,
            ),
            gauge("label_jobs_failed", {"site": "DC1"}, 0, 41, start + 60),
        ],
        books={
            "labels-not-printing.md": runbook(
                "Labels not printing",
                "Label printers drop off after a Zebra firmware auto-update. Power-cycle the printer at the packing station and re-pair it in the scanner app.",
            )
        },
    )


# =================================================================================================
# 5. Service routing: storefront chart 4.0 (pipeline deploy 40 min ago) renamed the Service port
#    from `http` to `http-web` (for the mesh's protocol detection). The Ingress, owned by the
#    platform repo, still names `port.name: http`. ingress-nginx finds no such port and answers 503
#    for the whole site; the pods are healthy. The incident says "website".
# =================================================================================================


@scenario("ingress-backend-port-name-renamed")
def ingress_backend_port_name_renamed() -> dict[str, Any]:
    start = -2200
    ns = "web"
    sf = app(
        "storefront",
        image="europe-west3-docker.pkg.dev/ostra-prod/web/storefront:4.0.2",
        port=8080,
        rs="85c7d6f9b4",
        cluster_ip="10.52.14.80",
        service_port="80/TCP",
        pods=[
            ("k2pzv", "1/1", "Running", "0", "41m", 0),
            ("n8xqw", "1/1", "Running", "0", "41m", 1),
            ("t5hdm", "1/1", "Running", "0", "40m", 2),
        ],
    )
    cms = app(
        "cms-api",
        image="europe-west3-docker.pkg.dev/ostra-prod/web/cms-api:9.2.0",
        port=8080,
        rs="6d8f7c9b5",
        cluster_ip="10.52.14.91",
        pods=[("b4lrs", "1/1", "Running", "0", "3d", 1)],
    )
    k8s = namespace(ns, NODES_FRA, [sf, cms], seed=517)
    sig = 'service "web/storefront" does not have a port named "http"'
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "storefront",
                "nginx",
                "www.ostra.example,ostra.example",
                "34.107.41.9",
                "80, 443",
                "2y",
            ],
        ]
    )
    k8s[f"kubectl describe ingresses storefront -n {ns}"] = (
        "Name:             storefront\n"
        "Labels:           app.kubernetes.io/managed-by=argocd\n"
        f"Namespace:        {ns}\n"
        "Address:          34.107.41.9\n"
        "Ingress Class:    nginx\n"
        "Default backend:  <default>\n"
        "TLS:\n  storefront-tls terminates www.ostra.example,ostra.example\n"
        "Rules:\n"
        "  Host               Path  Backends\n"
        "  ----               ----  --------\n"
        "  www.ostra.example\n"
        '                     /   storefront:http (<error: endpoints "storefront" not found>)\n'
        "  ostra.example\n"
        '                     /   storefront:http (<error: endpoints "storefront" not found>)\n'
        "Annotations:        nginx.ingress.kubernetes.io/proxy-body-size: 8m\n"
        "Events:             <none>\n"
    )
    ips = [
        r.split()[5]
        for r in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]
        if r.startswith("storefront")
    ]
    k8s[f"kubectl describe services storefront -n {ns}"] = (
        "Name:                     storefront\n"
        f"Namespace:                {ns}\n"
        "Labels:                   app=storefront\n"
        "                          helm.sh/chart=storefront-4.0.2\n"
        "Annotations:              meta.helm.sh/release-name: storefront\n"
        "Selector:                 app=storefront\n"
        "Type:                     ClusterIP\n"
        "IP Family Policy:         SingleStack\n"
        "IP Families:              IPv4\n"
        "IP:                       10.52.14.80\n"
        "IPs:                      10.52.14.80\n"
        "Port:                     http-web  80/TCP\n"
        "TargetPort:               8080/TCP\n"
        f"Endpoints:                {','.join(ip + ':8080' for ip in ips)}\n"
        "Session Affinity:         None\n"
        "Internal Traffic Policy:  Cluster\n"
        "Events:                   <none>\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "41m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/storefront",
                f"Scaled up replica set storefront-{sf['rs']} to 1",
            ),
            (
                "40m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/storefront",
                "Scaled down replica set storefront-59b8c6d7f4 to 0 from 1",
            ),
        ]
    )
    evs = [
        ev(
            "github-actions",
            "info",
            "deploy-prod #1193 (storefront 4.0.2): helm upgrade storefront ./chart -f values-prod.yaml  chart 3.7.1 -> 4.0.0: 'service port renamed http -> http-web (mesh protocol selection)'  ... deployed",
            at=start - 300,
        ),
        ev(
            "ingress-nginx",
            "warn",
            f'W1207 09:{{n}}.412       7 controller.go:1214] Error obtaining Endpoints for Service "web/storefront": {sig}',
            **every(start - 280, -15, 45),
        ),
        ev(
            "ingress-nginx",
            "info",
            '34.120.{ms}.{ms} - - [07/Dec/2026:09:{n} +0000] "GET / HTTP/2.0" 503 190 "-" "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)" 41 0.000 [web-storefront-http] [] - - - - {n}',
            **every(start - 270, -2, 6),
        ),
        ev(
            "storefront",
            "info",
            '{"level":"info","msg":"storefront 4.0.2 listening on :8080 (SSR, new mega-menu)"}',
            at=start - 290,
            pods=pods_of(sf),
        ),
        ev(
            "cms-api",
            "warn",
            '{"level":"warn","msg":"image transform slow","path":"/assets/hero-{n}.jpg","ms":2{ms}}',
            **every(-7000, -100, 400),
            pods=pods_of(cms),
        ),
        ev(
            "storefront",
            "error",
            '{"level":"error","msg":"cms-api GET /pages/home timed out after 3000ms"}',
            **every(-10600, -9800, 100),
            pods=pods_of(sf),
        ),
    ]
    return kube_case(
        seed=517,
        start=start,
        inc=incident(
            "Website down, 503 for everyone",
            "website",
            start,
            ["every page returns 503 Service Temporarily Unavailable"],
        ),
        exp=expected(
            "connect",
            [
                "ingress/storefront",
                "service/storefront",
                "storefront",
                "http-web",
                "port name",
                "ingress-nginx",
            ],
            sig,
            "storefront chart 4.0 renamed the Service port from 'http' to 'http-web'. The Ingress storefront still routes to service port name 'http', so ingress-nginx finds no such port, builds an upstream with no endpoints and answers 503 for every request. The pods and the Service's endpoints are healthy. storefront's release carried the rename; cms-api's slow transforms and the old timeouts are noise.",
            [
                f"ingress-nginx: {sig}",
                "describe ingress storefront: storefront:http, no endpoints",
                "describe service storefront: Port: http-web 80/TCP, 3 endpoints",
            ],
            "Point the Ingress at port name http-web (or number 80), or restore the port name 'http' in the chart.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "storefront",
                pods_of(sf),
                ['{"level":"info","msg":"GET /health 200","ms":{ms}}'],
                10,
            )
        ],
        evs=evs,
        services=[svc("ingress-nginx", 90, {"503": (0.0, 0.98)}, (0.12, 0.002))],
        books={
            "site-down.md": runbook(
                "Website returns 503",
                "503 from the edge means the pods are overloaded. Scale storefront up (kubectl scale deploy/storefront --replicas=8) and check the HPA's CPU target.",
            )
        },
    )


# =================================================================================================
# 6. Autoscaling: label-worker scales to zero with a KEDA ScaledObject on the SQS queue
#    `shipping-labels`. The infra pipeline replaced the queue by `shipping-labels.fifo` (dedup) and
#    the producers moved to it, but the ScaledObject (in the app repo) still names the old queue URL,
#    now deleted. KEDA's scaler fails (NonExistentQueue); with no fallback the Deployment stays at 0
#    replicas while the FIFO queue grows. The incident says "shipping".
# =================================================================================================


@scenario("keda-scaledobject-points-at-replaced-queue")
def keda_scaledobject_points_at_replaced_queue() -> dict[str, Any]:
    start = -2600
    ns = "fulfil"
    lw = app(
        "label-worker",
        image="4471203988.dkr.ecr.eu-central-1.amazonaws.com/fulfil/label-worker:7.2.0",
        port=8080,
        rs="6f9d8b7c5",
        cluster_ip="172.20.9.41",
        desired=0,
        service=False,
        pods=[],
    )
    oa = app(
        "orders-api",
        image="4471203988.dkr.ecr.eu-central-1.amazonaws.com/fulfil/orders-api:31.0.1",
        port=8080,
        rs="7c6b5d8f9",
        cluster_ip="172.20.9.10",
        pods=[
            ("h3mzq", "1/1", "Running", "0", "50m", 0),
            ("x6vkp", "1/1", "Running", "0", "50m", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [lw, oa], seed=518)
    queue = "https://sqs.eu-central-1.amazonaws.com/4471203988/shipping-labels"
    sig = "AWS.SimpleQueueService.NonExistentQueue"
    err = f"error parsing SQS queue metadata / getting queue attributes for {queue}: operation error SQS: GetQueueAttributes, https response error StatusCode: 400, api error {sig}: The specified queue does not exist."
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "keda-hpa-label-worker",
                "Deployment/label-worker",
                "<unknown>/5 (avg)",
                "1",
                "20",
                "0",
                "301d",
            ],
        ]
    )
    k8s[f"kubectl describe horizontalpodautoscalers keda-hpa-label-worker -n {ns}"] = (
        "Name:                                               keda-hpa-label-worker\n"
        f"Namespace:                                          {ns}\n"
        "Labels:                                             app.kubernetes.io/managed-by=keda-operator\n"
        "                                                    scaledobject.keda.sh/name=label-worker\n"
        "Reference:                                          Deployment/label-worker\n"
        "Metrics:                                            ( current / target )\n"
        '  "s0-aws-sqs-shipping-labels" (target average value):  <unknown> / 5\n'
        "Min replicas:                                       1\n"
        "Max replicas:                                       20\n"
        "Deployment pods:                                    0 current / 0 desired\n"
        "Conditions:\n"
        "  Type           Status  Reason               Message\n"
        "  ----           ------  ------               -------\n"
        "  AbleToScale    True    SucceededGetScale    the HPA controller was able to get the target's current scale\n"
        "  ScalingActive  False   ScalingDisabled      scaling is disabled since the replica count of the target is zero\n"
        "Events:          <none>\n"
    )
    k8s[f"kubectl describe deployments label-worker -n {ns}"] = deployment_describe(
        "label-worker",
        ns,
        replicas="0 desired | 0 updated | 0 total | 0 available | 0 unavailable",
        revision=52,
        containers=container_text(
            "label-worker",
            lw["image"],
            8080,
            env={"SQS_QUEUE_URL": queue + ".fifo", "CARRIER": "dhl-parcel"},
        ),
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs=f"label-worker-{lw['rs']} (0/0 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "44m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/label-worker",
                f"Scaled down replica set label-worker-{lw['rs']} to 0 from 2",
            ),
            ("30s", "Warning", "KEDAScalerFailed", "ScaledObject/label-worker", err),
        ]
    )
    evs = [
        ev(
            "keda-operator",
            "error",
            '2026-12-07T14:{n}Z\tERROR\taws_sqs_queue_scaler\tError getting queue length\t{"type": "ScaledObject", "namespace": "fulfil", "name": "label-worker", "error": "'
            + err
            + '"}',
            **every(start, -15, 30),
        ),
        ev(
            "terraform",
            "info",
            'infra-live #612 apply: aws_sqs_queue.shipping_labels must be replaced (name "shipping-labels" -> "shipping-labels.fifo", fifo_queue false -> true, content_based_deduplication true); aws_ssm_parameter.shipping_labels_queue_url updated. Apply complete! Resources: 1 added, 1 changed, 1 destroyed.',
            at=start - 120,
        ),
        ev(
            "orders-api",
            "info",
            '{"@timestamp":"2026-12-07T14:{n}Z","level":"INFO","logger":"c.f.orders.LabelPublisher","message":"label request queued","queue":"shipping-labels.fifo","order":"FO-{n}"}',
            **every(start + 20, -10, 30),
            pods=pods_of(oa),
        ),
        ev(
            "orders-api",
            "warn",
            '{"@timestamp":"2026-12-07T14:{n}Z","level":"WARN","logger":"c.f.orders.ShipmentSla","message":"orders paid > 30 min without label","count":{ms}}',
            **every(start + 1800, -60, 120),
            pods=pods_of(oa),
        ),
        ev(
            "orders-api",
            "info",
            '{"level":"INFO","message":"orders-api 31.0.1 started (gift wrap option)"}',
            at=-3000,
            pods=pods_of(oa),
        ),
        ev(
            "dhl-webhook",
            "warn",
            "tracking webhook signature mismatch for shipment JJD{n}, ignoring",
            **every(-7000, -60, 500),
        ),
        ev(
            "label-worker",
            "error",
            "ERROR dhl-parcel: POST /parcel/de/shipping/v2/orders 503 Service Unavailable (retry 3/3)",
            **every(-10600, -10000, 60),
        ),
    ]
    return kube_case(
        seed=518,
        start=start,
        inc=incident("Paid orders not getting shipping labels", "shipping", start),
        exp=expected(
            "platform",
            [
                "scaledobject/label-worker",
                "label-worker",
                "deployment/label-worker",
                "keda",
                "shipping-labels",
                "shipping-labels.fifo",
            ],
            sig,
            "The infra pipeline replaced the SQS queue shipping-labels with shipping-labels.fifo and the producers moved to it, but label-worker's KEDA ScaledObject still watches the old queue URL. KEDA's SQS scaler fails with NonExistentQueue, so the Deployment stays scaled to zero while label requests pile up in the FIFO queue. orders-api's SLA warnings and release, the DHL webhook mismatches and the old DHL 503s are not the cause.",
            [
                f"keda-operator: {sig} for {queue}",
                "terraform: shipping-labels replaced by shipping-labels.fifo",
                "HPA keda-hpa-label-worker: <unknown>/5, 0 replicas",
            ],
            "Point the ScaledObject's queueURL at shipping-labels.fifo (and add a fallback replica count), then let the workers drain the queue.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "orders-api",
                pods_of(oa),
                [
                    '{"level":"INFO","logger":"o.s.web","message":"POST /v1/orders 201","ms":{ms}}'
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("orders-api", 9, {"500": (0.001, 0.001)}, (0.07, 0.07))],
        gauges=[
            gauge(
                "aws_sqs_approximate_number_of_messages_visible",
                {"queue_name": "shipping-labels.fifo"},
                0,
                1460,
                start + 60,
            )
        ],
        books={
            "labels-missing.md": runbook(
                "Orders without shipping labels",
                "Missing labels mean the DHL API is failing. Check DHL's developer status page; if it is down, switch CARRIER to dpd in label-worker's config and restart it.",
            )
        },
    )


# =================================================================================================
# 7. VM / cron: batch-01 was rebuilt last night from the new Packer image base-ubuntu-24.04-2026.12.1,
#    whose time zone is Etc/UTC (the old VM ran Asia/Tokyo). The etl user's crontab still says
#    `0 3 * * *` for the full rebuild of the sales aggregates, so it now runs at 03:00 UTC = 12:00
#    JST, at the lunch peak, and saturates the Aurora MySQL writer. The incident says "online shop".
# =================================================================================================


@scenario("packer-image-utc-moves-night-batch-to-lunch")
def packer_image_utc_moves_night_batch_to_lunch() -> dict[str, Any]:
    start = -2400
    sig = "(etl) CMD (/opt/etl/bin/rebuild_sales_aggregates.sh --full)"
    web = ["shop-api-1", "shop-api-2", "shop-api-3"]
    evs = [
        ev(
            "cron",
            "info",
            f"Dec  7 03:00:01 batch-01 CRON[48211]: {sig}",
            at=start - 10,
            labels={"host": "batch-01"},
        ),
        ev(
            "cloud-init",
            "info",
            "Dec  6 14:12:40 batch-01 cloud-init[812]: image base-ubuntu-24.04-2026.12.1 (packer build #311, 'CIS hardening, chrony, UTC everywhere'); timedatectl: Time zone: Etc/UTC (UTC, +0000)",
            at=-7150,
            labels={"host": "batch-01"},
        ),
        ev(
            "etl",
            "info",
            "2026-12-07 03:{n}:12 [rebuild_sales_aggregates] step {ms}/140: INSERT INTO agg_sales_daily SELECT ... FROM order_lines JOIN orders ... (full rebuild, 2019-01-01..today)",
            **every(start + 30, -60, 120),
            labels={"host": "batch-01"},
        ),
        ev(
            "shop-api",
            "warn",
            "2026-12-07T12:{n}+09:00 WARN  [http-nio-8080-exec-{ms}] o.h.e.j.s.SqlExceptionHelper - SQL Error: 1205, SQLState: 40001 Lock wait timeout exceeded; try restarting transaction (table: order_lines)",
            **every(start + 120, -5, 15),
            pods=web,
        ),
        ev(
            "rds",
            "warn",
            "shop-aurora-writer: CPUUtilization 97.4% (alarm shop-aurora-cpu-high in ALARM since 12:0{n} JST); top waiting SQL: INSERT INTO agg_sales_daily SELECT ...",
            **every(start + 240, -60, 300),
        ),
        ev(
            "shop-api",
            "info",
            "2026-12-07T10:{n}+09:00 INFO  [main] c.k.shop.Application - Started Application in 21.4 seconds (shop-api 2026.12.07-1, coupon stacking)",
            at=-9000,
            pods=web,
        ),
        ev(
            "etl",
            "info",
            "2026-12-07 03:00:02 [rebuild_sales_aggregates] connecting: mysql -h shop-aurora.cluster-c9x.ap-northeast-1.rds.amazonaws.com -u etl password=Qx7!rT2mzP9 shop",
            at=start - 8,
            labels={"host": "batch-01"},
        ),
        ev(
            "line-notify",
            "info",
            "campaign 'lunch-time flash sale' push sent to 412,004 followers at 12:00 JST",
            at=start + 60,
        ),
        ev(
            "shop-api",
            "error",
            "2026-12-07T09:{n}+09:00 ERROR [http-nio-8080-exec-{ms}] c.k.shop.OrderService - Deadlock found when trying to get lock; try restarting transaction",
            **every(-10500, -10000, 100),
            pods=web,
        ),
        ev(
            "ses",
            "warn",
            "bounce notification: hard bounce for {n}@docomo.ne.example (550 user unknown)",
            **every(-7000, -100, 600),
        ),
    ]
    return simple(
        519,
        start,
        incident(
            "Shop super slow at lunch, orders timing out",
            "online shop",
            start,
            ["order confirmation page spins for 30 s then errors"],
        ),
        expected(
            "application",
            [
                "batch-01",
                "rebuild_sales_aggregates",
                "rebuild_sales_aggregates.sh",
                "cron",
                "base-ubuntu-24.04-2026.12.1",
                "Etc/UTC",
            ],
            sig,
            "batch-01 was rebuilt from the new Packer image whose time zone is Etc/UTC instead of Asia/Tokyo. The etl crontab entry '0 3 * * *' for the full rebuild of the sales aggregates now fires at 12:00 JST, at the lunch peak; its INSERT ... SELECT over all order lines saturates the Aurora writer and holds locks on order_lines, so shop-api's orders wait and time out. The flash-sale push is the trigger-looking coincidence, shop-api's release, the old deadlocks and the SES bounces are noise.",
            [
                f"cron on batch-01 at 03:00 UTC: {sig}",
                "cloud-init: Time zone: Etc/UTC, packer build #311",
                "shop-api: Lock wait timeout exceeded (order_lines)",
            ],
            "Stop the running rebuild, set CRON_TZ=Asia/Tokyo in the etl crontab (or the host time zone back), and rerun the rebuild at night.",
        ),
        [
            bg(
                "shop-api",
                web,
                [
                    '10.0.{ms}.{ms} - - [07/Dec/2026:12:{n} +0900] "GET /api/products/{n} HTTP/1.1" 200 {n} {ms}ms',
                    '10.0.{ms}.{ms} - - [07/Dec/2026:12:{n} +0900] "POST /api/orders HTTP/1.1" 201 {n} {ms}ms',
                ],
                8,
            )
        ],
        evs,
        [svc("shop-api", 40, {"500": (0.002, 0.06)}, (0.12, 2.8))],
        [
            gauge(
                "aws_rds_cpuutilization_average",
                {"dbinstance_identifier": "shop-aurora-writer"},
                31,
                97,
                start + 60,
            ),
            gauge("node_load1", {"instance": "batch-01"}, 0.1, 3.8, start),
        ],
        {
            "shop-slow-at-peak.md": runbook(
                "Shop slow at peak traffic",
                "At campaign peaks the shop-api fleet runs out of threads. Scale the shop-api auto scaling group to 6 instances and raise the Tomcat maxThreads; the campaign team announces pushes in #shop-ops.",
            )
        },
    )


# =================================================================================================
# 8. Serverless + ElastiCache: stripe-webhooks, a Node.js Lambda deployed this morning (v42), now
#    opens a new ioredis client inside the handler to de-duplicate events and never quits it. At
#    Black-Friday-level webhook volume every warm container leaks connections until the shared
#    ElastiCache cluster `sessions` hits maxclients (65000). The web app, whose sessions live there,
#    logs everyone out. The incident says "login".
# =================================================================================================


@scenario("lambda-redis-client-per-invocation-maxclients")
def lambda_redis_client_per_invocation_maxclients() -> dict[str, Any]:
    start = -1900
    sig = "ERR max number of clients reached"
    web = ["web-i-0a1c", "web-i-0b7d", "web-i-0c2e"]
    evs = [
        ev(
            "cloudformation",
            "info",
            "stack payments-webhooks UPDATE_COMPLETE: AWS::Lambda::Function stripe-webhooks version 42 ('dedupe events in redis' PR #318)",
            at=start - 3000,
        ),
        ev(
            "stripe-webhooks",
            "info",
            "2026-12-07T11:{n}Z\t{n}-4c1e-9a7f\tINFO\tconnecting to redis sessions.x8k2pq.ng.0001.euw1.cache.amazonaws.com:6379 (dedupe)",
            **every(start - 2900, -3, 12),
        ),
        ev(
            "stripe-webhooks",
            "error",
            '2026-12-07T11:{n}Z\t{n}-4c1e-9a7f\tERROR\tInvoke Error \t{"errorType":"ReplyError","errorMessage":"'
            + sig
            + '"}',
            **every(start + 30, -5, 20),
        ),
        ev(
            "stripe-webhooks",
            "info",
            "REPORT RequestId: {n}-4c1e-9a7f\tDuration: 1{ms}.41 ms\tBilled Duration: 1{ms} ms\tMemory Size: 512 MB\tMax Memory Used: 1{ms} MB",
            **every(start - 2900, -4, 15),
        ),
        ev(
            "web",
            "error",
            "[2026-12-07 11:{n}] production.ERROR: "
            + sig
            + ' {"exception":"[object] (Predis\\\\Response\\\\ServerException(code: 0): '
            + sig
            + ' at /var/www/app/vendor/predis/predis/src/Client.php:370)"}',
            **every(start + 40, -2, 6),
            pods=web,
        ),
        ev(
            "web",
            "warn",
            "[2026-12-07 11:{n}] production.WARNING: session store unavailable, user {n} redirected to /login",
            **every(start + 60, -3, 8),
            pods=web,
        ),
        ev(
            "web",
            "info",
            "[2026-12-07 09:{n}] production.INFO: deployed release 2026-12-07.2 (laravel 11.34, new password reset mail)",
            at=-6800,
            pods=web,
        ),
        ev(
            "cognito",
            "warn",
            "TooManyRequestsException: Rate exceeded for AdminInitiateAuth (backoffice SSO)",
            **every(-7000, -200, 700),
        ),
        ev(
            "web",
            "error",
            "[2026-12-07 08:{n}] production.ERROR: SQLSTATE[HY000] [2002] Connection timed out (mysql read replica)",
            **every(-10400, -9900, 80),
            pods=web,
        ),
    ]
    return simple(
        520,
        start,
        incident("Users keep getting logged out, login loops", "login", start),
        expected(
            "application",
            [
                "stripe-webhooks",
                "lambda",
                "stripe-webhooks version 42",
                "PR #318",
                "sessions",
                "elasticache",
            ],
            sig,
            "stripe-webhooks version 42 (PR #318) creates a Redis client inside the Lambda handler on every invocation and never closes it. With the day's webhook volume the warm containers leak connections until the shared ElastiCache cluster 'sessions' reaches maxclients; the web app can no longer read sessions and sends users back to /login. The web app's errors are the louder victim; its release, Cognito throttling and the old MySQL timeout are not the cause.",
            [
                f"web and stripe-webhooks: {sig}",
                "stripe-webhooks: connecting to redis sessions... on each invocation",
                "elasticache sessions: curr_connections 65000",
            ],
            "Roll stripe-webhooks back to version 41 (or create the client outside the handler), then let idle connections time out (set the cluster's timeout parameter).",
        ),
        [
            bg(
                "web",
                web,
                [
                    '172.31.{ms}.{ms} - - [07/Dec/2026:11:{n} +0000] "GET /dashboard HTTP/1.1" 200 {n} "-" "Mozilla/5.0"',
                    '172.31.{ms}.{ms} - - [07/Dec/2026:11:{n} +0000] "POST /login HTTP/1.1" 302 0 "-" "Mozilla/5.0"',
                ],
                8,
            )
        ],
        evs,
        [
            svc("web", 55, {"500": (0.001, 0.2)}, (0.09, 0.11)),
            svc("stripe-webhooks", 30, {"500": (0.0, 0.3)}, (0.12, 0.15)),
        ],
        [
            gauge(
                "aws_elasticache_curr_connections_average",
                {"cache_cluster_id": "sessions-0001-001"},
                850,
                65000,
                start,
            ),
            gauge(
                "aws_lambda_concurrent_executions_maximum",
                {"function_name": "stripe-webhooks"},
                12,
                180,
                start - 1500,
            ),
        ],
        {
            "logged-out.md": runbook(
                "Users logged out unexpectedly",
                "Mass logouts follow an APP_KEY change: check that all web instances run the same release and .env, then clear the config cache (php artisan config:cache).",
            )
        },
    )


# =================================================================================================
# 9. Pub/Sub: receipt-mailer (Cloud Run, push subscription) v7 now renders a PDF invoice before
#    sending; processing takes 14-25 s while the subscription's ackDeadlineSeconds stays 10. Pub/Sub
#    redelivers every message, so customers get the same confirmation 3-5 times and SendGrid starts
#    throttling. The incident says "order confirmation".
# =================================================================================================


@scenario("pubsub-ack-deadline-below-pdf-render-time")
def pubsub_ack_deadline_below_pdf_render_time() -> dict[str, Any]:
    start = -2700
    sig = "ack deadline 10s"
    evs = [
        ev(
            "cloud-deploy",
            "info",
            "Rollout receipt-mailer-v7 to prod succeeded: revision receipt-mailer-00071-qiv ('attach PDF invoice to order confirmation')",
            at=start - 60,
        ),
        ev(
            "receipt-mailer",
            "info",
            '{"severity":"INFO","message":"handled order.paid message {n}: pdf rendered in 1{ms}00ms, mail queued","deliveryAttempt":1}',
            **every(start, -10, 30),
        ),
        ev(
            "receipt-mailer",
            "warn",
            '{"severity":"WARNING","message":"message {n} redelivered (deliveryAttempt=4): previous attempt still running, processed after '
            + sig
            + ' expired","subscription":"projects/nordlys-prod/subscriptions/receipt-mailer-push"}',
            **every(start + 60, -4, 10),
        ),
        ev(
            "pubsub",
            "info",
            "subscription receipt-mailer-push: ackDeadlineSeconds=10, pushConfig.pushEndpoint=https://receipt-mailer-7qz.a.run.app/pubsub (created 2024-03-02, unchanged)",
            at=-7100,
        ),
        ev(
            "sendgrid",
            "warn",
            "429 Too Many Requests: rate limit for /v3/mail/send exceeded on subuser nordlys-tx (retry-after 30)",
            **every(start + 900, -30, 90),
        ),
        ev(
            "receipt-mailer",
            "info",
            '{"severity":"DEBUG","message":"sendgrid client init","headers":{"Authorization":"Bearer SG.q1W2e3R4t5Y6.u7I8o9P0a1S2d3F4g5H6j7K8"}}',
            at=start - 50,
        ),
        ev(
            "support-desk",
            "info",
            "ticket #{n} 'got my order confirmation 4 times, was I charged 4 times?' (tag: duplicate-email)",
            **every(start + 600, -60, 240),
        ),
        ev(
            "checkout",
            "info",
            '{"severity":"INFO","message":"checkout 3.40.0 serving (klarna pay-later)"}',
            at=-5200,
        ),
        ev(
            "receipt-mailer",
            "error",
            '{"severity":"ERROR","message":"smtp relay timeout talking to sendgrid (30s)"}',
            **every(-10200, -9700, 100),
        ),
    ]
    return simple(
        521,
        start,
        incident(
            "Customers getting the order confirmation email 3-5 times",
            "order confirmation",
            start,
        ),
        expected(
            "application",
            [
                "receipt-mailer",
                "receipt-mailer-push",
                "ackDeadlineSeconds",
                "pubsub subscription",
                "receipt-mailer-v7",
                "receipt-mailer-00071-qiv",
            ],
            sig,
            "receipt-mailer v7 renders a PDF invoice before acknowledging, which takes 14-25 s, but the push subscription receipt-mailer-push has ackDeadlineSeconds 10. Pub/Sub redelivers each message before the first attempt answers, and every attempt sends the mail, so customers get the confirmation several times; the extra volume makes SendGrid throttle. SendGrid's 429s and the support tickets are consequences; checkout's release and the old SMTP timeout are not the cause.",
            [
                f"receipt-mailer: redelivered (deliveryAttempt=4) ... {sig} expired",
                "pubsub: receipt-mailer-push ackDeadlineSeconds=10",
                "cloud-deploy: receipt-mailer-v7 'attach PDF invoice'",
            ],
            "Raise the subscription's ack deadline to 60 s (or ack first and render asynchronously), and make the mailer idempotent on the message / order id.",
        ),
        [
            bg(
                "checkout",
                ["checkout-00088-rax"],
                [
                    '{"severity":"INFO","httpRequest":{"requestMethod":"POST","requestUrl":"/api/checkout","status":200,"latency":"0.{ms}s"}}',
                ],
                8,
            )
        ],
        evs,
        [svc("receipt-mailer", 2, {"500": (0.0, 0.0)}, (0.6, 19.0))],
        [
            gauge(
                "pubsub_subscription_num_undelivered_messages",
                {"subscription_id": "receipt-mailer-push"},
                3,
                240,
                start + 120,
            ),
            gauge(
                "sendgrid_requests_per_minute",
                {"subuser": "nordlys-tx"},
                40,
                190,
                start + 300,
            ),
        ],
        {
            "duplicate-emails.md": runbook(
                "Duplicate emails to customers",
                "Duplicate emails come from SendGrid retries when its webhook is slow. Check SendGrid's status page and pause the marketing subuser to free the sending quota.",
            )
        },
    )


# =================================================================================================
# 10. Object storage: a Terraform refactor (module rename) destroyed and recreated the S3 bucket
#     pebble-avatars-prod; new buckets have Object Ownership `BucketOwnerEnforced` (ACLs disabled).
#     avatar-service still uploads with `ACL: public-read`, and S3 answers 400
#     AccessControlListNotSupported. Profile photos cannot be changed. Netcheck: the bucket endpoint
#     answers 400 with that code; the service's health is fine. The incident says "profile photos".
# =================================================================================================


@scenario("s3-bucket-owner-enforced-rejects-acl-uploads")
def s3_bucket_owner_enforced_rejects_acl_uploads() -> dict[str, Any]:
    start = -3000
    sig = "AccessControlListNotSupported"
    pods = ["avatar-service-1", "avatar-service-2"]
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessControlListNotSupported</Code>'
        "<Message>The bucket does not allow ACLs</Message><RequestId>8ZQ2N4K1T0V7</RequestId></Error>"
    )
    evs = [
        ev(
            "terraform",
            "info",
            'atlantis apply infra#204 ("move buckets into modules/storage"): module.storage.aws_s3_bucket.avatars will be created; aws_s3_bucket.avatars will be destroyed (force_destroy = true); aws_s3_bucket_ownership_controls: (none) ... Apply complete! Resources: 4 added, 0 changed, 4 destroyed.',
            at=start - 200,
        ),
        ev(
            "avatar-service",
            "error",
            'time=2026-12-07T15:{n}Z level=ERROR msg="upload failed" user=u_{n} key=avatars/u_{n}/{n}.jpg err="operation error S3: PutObject, https response error StatusCode: 400, RequestID: 8ZQ{n}, api error '
            + sig
            + ': The bucket does not allow ACLs"',
            **every(start, -6, 25),
            pods=pods,
        ),
        ev(
            "avatar-service",
            "info",
            'time=2026-12-07T15:{n}Z level=INFO msg="GET /v1/avatars/u_{n}" status=404 dur={ms}ms',
            **every(start, -8, 30),
            pods=pods,
        ),
        ev(
            "mobile-api",
            "warn",
            '{"level":"warn","msg":"avatar upload proxied call failed","status":502,"upstream":"avatar-service","app":"ios 8.3.1"}',
            **every(start + 20, -5, 20),
        ),
        ev(
            "mobile-api",
            "info",
            '{"level":"info","msg":"mobile-api 19.2.0 started (reactions on comments)"}',
            at=-5200,
        ),
        ev(
            "cloudfront",
            "warn",
            "2026-12-07\t15:{n}\tFRA56-P3\t{ms}\tGET\td3x1.cloudfront.example\t/avatars/u_{n}/{n}.jpg\t403\t-\tError",
            **every(start, -30, 90),
        ),
        ev(
            "imgproxy",
            "warn",
            "WARNING [2026-12-07T14:{n}Z] Can't process image: source image resolution is too big (8064x6048)",
            **every(-7000, -100, 500),
        ),
        ev(
            "avatar-service",
            "error",
            'time=2026-12-07T12:{n}Z level=ERROR msg="rekognition DetectModerationLabels" err="ThrottlingException: Rate exceeded"',
            **every(-10500, -9800, 120),
            pods=pods,
        ),
    ]
    spec = simple(
        522,
        start,
        incident("Can't change profile picture in the app", "profile photos", start),
        expected(
            "http",
            [
                "pebble-avatars-prod",
                "s3",
                "avatars bucket",
                "BucketOwnerEnforced",
                "object ownership",
                "avatar-service",
            ],
            sig,
            "Atlantis applied infra#204, which recreated the S3 bucket pebble-avatars-prod inside a module. New buckets default to Object Ownership BucketOwnerEnforced (ACLs disabled), and avatar-service uploads with ACL public-read, so every PutObject is refused 400 AccessControlListNotSupported; the old objects were destroyed too (CloudFront 403s). mobile-api's 502s are the louder victim; its release, imgproxy warnings and the old Rekognition throttling are not the cause.",
            [
                f"avatar-service: api error {sig}: The bucket does not allow ACLs",
                "terraform: aws_s3_bucket.avatars destroyed and recreated (infra#204)",
                "netcheck: the bucket endpoint answers 400",
            ],
            "Drop the ACL from avatar-service's PutObject (serve through CloudFront with a bucket policy), or set ownership to BucketOwnerPreferred; restore the objects from backup.",
        ),
        [
            bg(
                "mobile-api",
                ["mobile-api-1", "mobile-api-2"],
                [
                    '{"level":"info","msg":"GET /v3/feed 200","ms":{ms}}',
                    '{"level":"info","msg":"GET /v3/profile/u_{n} 200","ms":{ms}}',
                ],
                8,
            )
        ],
        evs,
        [
            svc("avatar-service", 3, {"500": (0.0, 0.6)}, (0.2, 0.25)),
            svc("mobile-api", 60, {"502": (0.0, 0.02)}, (0.08, 0.08)),
        ],
        [],
        {
            "uploads-failing.md": runbook(
                "Image uploads failing",
                "Upload failures are usually oversized HEIC photos from new iPhones. Check imgproxy's max resolution and raise IMGPROXY_MAX_SRC_RESOLUTION.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "avatars-bucket",
                "url": "https://pebble-avatars-prod.s3.eu-central-1.amazonaws.example/avatars/u_1042/upload-test.jpg",
                "fault": {
                    "kind": "http_status",
                    "status": 400,
                    "body": body,
                    "headers": {
                        "Content-Type": "application/xml",
                        "Server": "AmazonS3",
                    },
                },
            },
            {
                "name": "avatar-service-health",
                "url": "http://avatar-service.internal.example/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "avatars-bucket",
        {
            "avatars-bucket": {"failed_layer": "http", "reason": "http_400"},
            "avatar-service-health": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 11. DNS: the zone tidepool.example moved to DNSControl in a GitHub Actions pipeline last month.
#     api-eu was added by hand in the console during the EU launch and never written into
#     dnsconfig.js. Today's PR #88 (a DKIM record) ran `dnscontrol push`, which deletes unmanaged
#     records: api-eu is gone, NXDOMAIN. European app users cannot load anything. The incident says
#     "mobile app".
# =================================================================================================


@scenario("dnscontrol-push-purges-console-record")
def dnscontrol_push_purges_console_record() -> dict[str, Any]:
    start = -2100
    sig = "- DELETE api-eu.tidepool.example CNAME"
    evs = [
        ev(
            "github-actions",
            "info",
            "dns / push (PR #88 'add DKIM for new ESP'): ******************** Domain: tidepool.example  1 correction (route53)  #1: + CREATE s2._domainkey.tidepool.example CNAME s2.domainkey.u4471.wl.sendgrid.example ttl=300  2 corrections: "
            + sig
            + " eu-api-lb-1838.eu-west-1.elb.amazonaws.example. ttl=60  SUCCESS!",
            at=start - 90,
        ),
        ev(
            "mobile-app",
            "error",
            'java.net.UnknownHostException: Unable to resolve host "api-eu.tidepool.example": No address associated with hostname (android 6.14.0, region=EU)',
            **every(start, -3, 8),
        ),
        ev(
            "mobile-app",
            "error",
            'NSURLErrorDomain Code=-1003 "A server with the specified hostname could not be found." UserInfo={NSErrorFailingURLStringKey=https://api-eu.tidepool.example/v2/feed} (ios 6.14.1)',
            **every(start + 10, -4, 10),
        ),
        ev(
            "api-eu",
            "info",
            '10.8.{ms}.{ms} - - [07/Dec/2026:16:{n} +0000] "GET /v2/health HTTP/1.1" 200 17 "-" "ELB-HealthChecker/2.0"',
            **every(-7100, -10, 30),
        ),
        ev(
            "api-us",
            "info",
            '{"level":"info","msg":"api-us 2026.12.7 deployed (streaks badge)"}',
            at=-4300,
        ),
        ev(
            "firebase-crashlytics",
            "warn",
            "new issue: IllegalStateException in StreakWidgetProvider.onUpdate (android 6.14.0, 0.4% of sessions)",
            **every(-6000, -100, 900),
        ),
        ev(
            "api-eu",
            "error",
            '{"level":"error","msg":"postgres: canceling statement due to statement timeout","query":"feed_for_user"}',
            **every(-10400, -9800, 90),
        ),
    ]
    spec = simple(
        523,
        start,
        incident(
            "App not loading for users in Europe",
            "mobile app",
            start,
            ["app shows 'No connection' although wifi works"],
        ),
        expected(
            "dns",
            [
                "api-eu.tidepool.example",
                "tidepool.example",
                "dnscontrol",
                "dnsconfig.js",
                "PR #88",
                "route53",
            ],
            sig,
            "The tidepool.example zone is pushed by DNSControl from GitHub Actions. api-eu.tidepool.example was created by hand in the console and is not in dnsconfig.js, so the push for PR #88 (a DKIM record) deleted it as unmanaged. European clients get NXDOMAIN and the app cannot load; the EU API itself is healthy. api-us's release, the Crashlytics widget crash and the old statement timeouts are not the cause.",
            [
                f"github-actions dns push: {sig}",
                "mobile-app: Unable to resolve host api-eu.tidepool.example",
                "netcheck: api-eu NXDOMAIN, api-us fine",
            ],
            "Recreate the api-eu CNAME (console or a revert), then add it to dnsconfig.js (and IGNORE rules for hand-made records) before the next push.",
        ),
        [
            bg(
                "api-us",
                ["api-us-1", "api-us-2"],
                [
                    '{"level":"info","msg":"GET /v2/feed 200","ms":{ms}}',
                    '{"level":"info","msg":"POST /v2/streaks/check-in 200","ms":{ms}}',
                ],
                8,
            )
        ],
        evs,
        [
            svc("api-eu", 45, {"500": (0.001, 0.001)}, (0.09, 0.09), rps_after=1.0),
            svc("api-us", 70, {"500": (0.001, 0.001)}, (0.08, 0.08)),
        ],
        [],
        {
            "app-not-loading.md": runbook(
                "App not loading",
                "If the app cannot load, check the API's error rate and the database: statement timeouts on feed_for_user mean the read replica is lagging; fail reads over to the primary.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "api-eu",
                "url": "https://api-eu.tidepool.example/v2/health",
                "fault": {"kind": "dns_nxdomain"},
            },
            {
                "name": "api-us",
                "url": "https://api-us.tidepool.example/v2/health",
                "fault": {"kind": "ok"},
            },
        ],
        "api-eu",
        {
            "api-eu": {"failed_layer": "dns", "reason": "nxdomain"},
            "api-us": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 12. VM / package upgrade: the Ansible playbook for the search VM runs `apt-get dist-upgrade` with
#     Dpkg::Options::=--force-confnew. Last night's run upgraded elasticsearch 8.15 -> 8.16 and
#     replaced /etc/elasticsearch/elasticsearch.yml with the package's, which has no network.host:
#     ES now binds only 127.0.0.1. The Magento shop's search gets connection refused. Netcheck: the
#     ES address refuses, the shop's health answers. The incident says "shop search".
# =================================================================================================


@scenario("elasticsearch-config-replaced-binds-localhost")
def elasticsearch_config_replaced_binds_localhost() -> dict[str, Any]:
    start = -1600
    sig = "bound_addresses {127.0.0.1:9200}, {[::1]:9200}"
    shop = ["shop-web-01", "shop-web-02"]
    evs = [
        ev(
            "ansible",
            "info",
            'TASK [common : apt dist-upgrade] changed: [search-01] => {"msg": "... Setting up elasticsearch (8.16.1) ... Configuration file \'/etc/elasticsearch/elasticsearch.yml\' ==> Modified (by you or by a script) since installation. ==> Package distributor has shipped an updated version. ==> Using new file as you requested."}',
            at=start - 240,
        ),
        ev(
            "elasticsearch",
            "info",
            f'{{"@timestamp":"2026-12-07T02:{{n}}Z", "log.level": "INFO", "message":"publish_address {{127.0.0.1:9200}}, {sig}", "ecs.version": "1.2.0","service.name":"ES_ECS","event.dataset":"elasticsearch.server","process.thread.name":"main","log.logger":"org.elasticsearch.http.AbstractHttpServerTransport","elasticsearch.node.name":"search-01","elasticsearch.cluster.name":"shop"}}',
            at=start - 150,
            labels={"host": "search-01"},
        ),
        ev(
            "systemd",
            "info",
            "Dec 07 02:{n}:48 search-01 systemd[1]: Started elasticsearch.service - Elasticsearch.",
            at=start - 160,
            labels={"host": "search-01"},
        ),
        ev(
            "magento",
            "error",
            '[2026-12-07T02:{n}+00:00] main.CRITICAL: Could not ping search engine: No alive nodes found in your cluster {"exception":"[object] (Elastic\\\\Transport\\\\Exception\\\\NoNodeAvailableException(code: 0): Failed to connect to 10.40.2.15 port 9200 after 0 ms: Couldn\'t connect to server"} []',
            **every(start, -3, 10),
            pods=shop,
        ),
        ev(
            "magento",
            "warn",
            "[2026-12-07T02:{n}+00:00] main.WARNING: indexer catalogsearch_fulltext: reindex failed, invalidated []",
            **every(start + 300, -60, 600),
            pods=shop,
        ),
        ev(
            "magento",
            "info",
            "[2026-12-06T23:{n}+00:00] main.INFO: deploy 2026-12-06-2 (theme: winter banners, module Klarna 10.1.2) setup:upgrade done []",
            at=-9500,
            pods=shop,
        ),
        ev(
            "varnish",
            "warn",
            "- VCL_Error   Backend fetch failed: shop-web-0{ms} first byte timeout (3.000s) url=/checkout/cart/",
            **every(-7000, -300, 600),
        ),
        ev(
            "magento",
            "error",
            "[2026-12-06T23:{n}+00:00] main.ERROR: SQLSTATE[40001]: Serialization failure: 1213 Deadlock found when trying to get lock (sales_sequence_order_1) []",
            **every(-10500, -9900, 120),
            pods=shop,
        ),
    ]
    spec = simple(
        524,
        start,
        incident("Search on the shop shows an error page", "shop search", start),
        expected(
            "connect",
            [
                "search-01",
                "elasticsearch",
                "elasticsearch.yml",
                "network.host",
                "ansible",
                "10.40.2.15:9200",
            ],
            sig,
            "The Ansible dist-upgrade on search-01 runs with --force-confnew: upgrading Elasticsearch to 8.16.1 replaced /etc/elasticsearch/elasticsearch.yml with the package's default, which has no network.host, so ES now binds 127.0.0.1 only. Magento's connections to 10.40.2.15:9200 are refused and the search page errors. The Magento deploy, Varnish timeouts and the old deadlocks are not the cause.",
            [
                f"elasticsearch on search-01: publish_address {{127.0.0.1:9200}}, {sig}",
                "ansible: Using new file as you requested (elasticsearch.yml)",
                "magento: Failed to connect to 10.40.2.15 port 9200: Couldn't connect to server",
            ],
            "Restore network.host (and the cluster settings) in elasticsearch.yml from Ansible's template, restart Elasticsearch, and drop --force-confnew for that host (use --force-confold or template the file after upgrades).",
        ),
        [
            bg(
                "magento",
                shop,
                [
                    '10.40.1.{ms} - - [07/Dec/2026:02:{n} +0000] "GET /catalog/product/view/id/{n} HTTP/1.1" 200 {n} "-" "Mozilla/5.0"',
                    '10.40.1.{ms} - - [07/Dec/2026:02:{n} +0000] "GET /catalogsearch/result/?q=boots HTTP/1.1" 500 {n} "-" "Mozilla/5.0"',
                ],
                8,
            )
        ],
        evs,
        [svc("magento", 25, {"500": (0.002, 0.18)}, (0.3, 0.32))],
        [gauge("elasticsearch_up", {"instance": "search-01:9200"}, 1, 0, start - 170)],
        {
            "search-errors.md": runbook(
                "Shop search errors",
                "Search errors after a deploy mean the catalogsearch_fulltext index is invalid. Run bin/magento indexer:reindex catalogsearch_fulltext and flush the full-page cache.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "search-01",
                "url": "http://search-01.dc.brauwerk.example/_cluster/health",
                "fault": {"kind": "connect_refused"},
            },
            {
                "name": "shop-health",
                "url": "http://shop-web-01.dc.brauwerk.example/health_check.php",
                "fault": {"kind": "ok"},
            },
        ],
        "search-01",
        {
            "search-01": {"failed_layer": "connect", "reason": "refused"},
            "shop-health": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 13. Search indexing: the nightly catalog-reindex (Python, Amazon OpenSearch Service) builds a new
#     index and swaps the alias `listings`. MR !77 moved it to helpers.streaming_bulk with
#     raise_on_error=False for speed. Tonight the domain's write thread pool rejected a third of the
#     bulk items (a blue/green domain update was running), and the job still swapped the alias onto
#     the half-filled index. Category pages (search-backed) miss most items. The incident says
#     "marketplace".
# =================================================================================================


@scenario("reindex-swaps-alias-despite-bulk-rejections")
def reindex_swaps_alias_despite_bulk_rejections() -> dict[str, Any]:
    start = -2900
    sig = "indexed 142,880 of 391,204 docs"
    api = ["listing-api-6d9f-2kq", "listing-api-6d9f-8wz"]
    evs = [
        ev(
            "catalog-reindex",
            "warn",
            "2026-12-07 04:{n}:{ms},511 WARNING reindex: bulk chunk {ms}: 500 items, 1{ms} failed: es_rejected_execution_exception: rejected execution of coordinating operation [shard_detail=[listings_20261207][3][P], coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, max_coordinating_and_primary_bytes=214748364]",
            **every(start - 1800, start - 120, 40),
        ),
        ev(
            "catalog-reindex",
            "info",
            f"2026-12-07 04:48:09,101 INFO reindex: alias listings: listings_20261206 -> listings_20261207 swapped ({sig}; 248,324 bulk errors ignored)",
            at=start - 60,
        ),
        ev(
            "catalog-reindex",
            "info",
            "2026-12-07 04:48:10,003 INFO reindex: deleted old index listings_20261206",
            at=start - 59,
        ),
        ev(
            "gitlab",
            "info",
            "MR !77 'reindex: streaming_bulk, raise_on_error=False, 4x faster' merged by a.okafor into main (catalog-reindex 2.4.0)",
            at=-10700,
        ),
        ev(
            "opensearch",
            "info",
            "domain marketplace-search: blue/green deployment in progress (service software update R20261130), shard relocation 61%",
            **every(start - 2000, start + 600, 600),
        ),
        ev(
            "listing-api",
            "warn",
            '{"level":"warn","msg":"category page thin","category":"c_{n}","hits":{ms},"expected_min":400}',
            **every(start + 60, -20, 40),
            pods=api,
        ),
        ev(
            "listing-api",
            "info",
            '{"level":"info","msg":"listing-api 5.18.0 started (sort by distance)"}',
            at=-6500,
            pods=api,
        ),
        ev(
            "seller-portal",
            "error",
            "Sentry: Error: seller S{n} cannot see own listing L{n} in search (report from support)",
            **every(start + 900, -100, 400),
        ),
        ev(
            "image-resizer",
            "error",
            "libvips: VipsJpeg: Premature end of JPEG file (listing L{n})",
            **every(-7000, -50, 300),
        ),
    ]
    return simple(
        525,
        start,
        incident("Most items missing from category pages", "marketplace", start),
        expected(
            "application",
            [
                "catalog-reindex",
                "listings",
                "listings_20261207",
                "raise_on_error",
                "MR !77",
                "catalog-reindex 2.4.0",
            ],
            sig,
            "catalog-reindex 2.4.0 (MR !77) uses streaming_bulk with raise_on_error=False. Tonight OpenSearch rejected about 250,000 bulk items while a blue/green update ran, and the job still swapped the alias listings onto listings_20261207, which holds 142,880 of 391,204 documents, and deleted the full index. Category pages read the alias and miss most items. The blue/green update is the trigger, listing-api's warnings and release are victims or noise, image errors are unrelated.",
            [
                f"catalog-reindex: alias listings swapped ({sig}; 248,324 bulk errors ignored)",
                "catalog-reindex: es_rejected_execution_exception on bulk chunks",
                "gitlab: MR !77 raise_on_error=False",
            ],
            "Rerun the reindex after the domain update finishes (with rejected items retried), swap the alias only when the count matches, and make bulk errors fail the job.",
        ),
        [
            bg(
                "listing-api",
                api,
                [
                    '{"level":"info","msg":"GET /v1/categories/c_{n}/listings 200","ms":{ms}}',
                    '{"level":"info","msg":"GET /v1/listings/L{n} 200","ms":{ms}}',
                ],
                8,
            )
        ],
        evs,
        [svc("listing-api", 35, {"500": (0.001, 0.001)}, (0.06, 0.05))],
        [
            gauge(
                "opensearch_index_docs_count",
                {"alias": "listings"},
                390000,
                142880,
                start - 60,
            )
        ],
        {
            "search-results-missing.md": runbook(
                "Listings missing from search",
                "If sellers' listings are missing, the listing-api cache is stale: flush the Redis keys listing:* and wait for the cache to warm.",
            )
        },
    )


# =================================================================================================
# 14. Front end / deploy: the web app's GitHub Actions deploy ends with
#     `aws s3 sync build/ s3://www-app-prod --delete --cache-control max-age=3600`, so index.html is
#     cached an hour by CloudFront and browsers while the previous build's hashed chunks are deleted.
#     After this afternoon's deploy, users holding the old index.html load chunks that no longer exist
#     (404) and see a blank page. The incident says "web app".
# =================================================================================================


@scenario("spa-deploy-deletes-chunks-cached-index")
def spa_deploy_deletes_chunks_cached_index() -> dict[str, Any]:
    start = -2000
    sig = "delete: s3://www-app-prod/assets/index-4f2c1a9e.js"
    evs = [
        ev(
            "github-actions",
            "info",
            "deploy-web #2291 (main@9d1e4b7): Run aws s3 sync dist/ s3://www-app-prod --delete --cache-control max-age=3600 ... upload: dist/assets/index-b81d07c3.js to s3://www-app-prod/assets/index-b81d07c3.js ... "
            + sig
            + " ... delete: s3://www-app-prod/assets/vendor-77ae0d15.js ... upload: dist/index.html to s3://www-app-prod/index.html",
            at=start - 30,
        ),
        ev(
            "github-actions",
            "info",
            "deploy-web #2291: Run aws cloudfront create-invalidation --paths /assets/* ... InProgress",
            at=start - 10,
        ),
        ev(
            "cloudfront",
            "warn",
            "2026-12-07\t15:{n}\tAMS1-C1\t{ms}\t{ms}.{ms}.{ms}.{ms}\tGET\td1p9xk.cloudfront.example\t/assets/index-4f2c1a9e.js\t404\thttps://app.klarwerk.example/\tMozilla/5.0\t-\t-\tError\t-",
            **every(start, -2, 5),
        ),
        ev(
            "sentry",
            "error",
            "TypeError: Failed to fetch dynamically imported module: https://app.klarwerk.example/assets/index-4f2c1a9e.js (browser: Chrome 131, release web@2026.12.07-1)",
            **every(start + 10, -3, 9),
        ),
        ev(
            "api",
            "warn",
            "2026-12-07 15:{n}:12 WARN  [http-nio-8443-exec-{ms}] c.k.api.RateLimit - client 10.1.{ms}.{ms} over 50 req/s on /v2/projects (burst after reconnect)",
            **every(start + 200, -60, 200),
        ),
        ev(
            "api",
            "info",
            "2026-12-07 14:{n}:00 INFO  [main] c.k.api.Application - api 7.31.0 started (project templates)",
            at=-5200,
        ),
        ev(
            "sentry",
            "error",
            "ResizeObserver loop completed with undelivered notifications. (release web@2026.12.06-3)",
            **every(-7000, -100, 350),
        ),
        ev(
            "api",
            "error",
            "2026-12-07 12:{n}:44 ERROR [pool-3-thread-2] c.k.api.export.PdfExporter - export EX-{n} failed: timeout after 60000 ms",
            **every(-10400, -9800, 120),
        ),
    ]
    return simple(
        526,
        start,
        incident(
            "Web app shows a blank white page for some users",
            "web app",
            start,
            ["blank page after login, hard refresh sometimes helps"],
        ),
        expected(
            "application",
            [
                "deploy-web",
                "www-app-prod",
                "aws s3 sync --delete",
                "index.html",
                "cache-control max-age=3600",
                "cloudfront",
            ],
            sig,
            "The deploy-web workflow syncs the build to s3://www-app-prod with --delete and max-age=3600 on every file, including index.html. The previous build's hashed chunks were deleted while the old index.html stays cached in browsers and at CloudFront for up to an hour (only /assets/* was invalidated), so those users request index-4f2c1a9e.js, get 404 and see a blank page. The API's rate-limit warnings and release, the ResizeObserver noise and the old export timeouts are not the cause.",
            [
                f"github-actions deploy-web #2291: {sig}",
                "cloudfront: /assets/index-4f2c1a9e.js 404",
                "sentry: Failed to fetch dynamically imported module",
            ],
            "Invalidate /index.html now, then deploy without --delete (keep the previous build's assets) and serve index.html with no-cache.",
        ),
        [
            bg(
                "api",
                ["api-1", "api-2"],
                [
                    "2026-12-07 15:{n}:0{ms} INFO  [http-nio-8443-exec-{ms}] c.k.api.web - GET /v2/projects 200 {ms}ms",
                    "2026-12-07 15:{n}:1{ms} INFO  [http-nio-8443-exec-{ms}] c.k.api.web - POST /v2/tasks 201 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [
            svc("api", 30, {"500": (0.001, 0.001)}, (0.07, 0.07), rps_after=18),
            svc("cloudfront-app", 120, {"404": (0.001, 0.09)}, (0.02, 0.02)),
        ],
        [],
        {
            "blank-page.md": runbook(
                "Blank page in the web app",
                "A blank page is usually the API refusing the session: check the API's 401 rate and the auth service; ask users to log out and in again.",
            )
        },
    )


# =================================================================================================
# 15. Mobile / remote config: a product manager published Firebase Remote Config template v311,
#     raising `ios_min_supported_version` from 5.11.0 to 5.12.0 to push users onto the new release.
#     5.12.0 is still "Waiting for Review" in App Store Connect, so every iOS user sees the blocking
#     "update required" screen with no update to install. The incident says "iOS app".
# =================================================================================================


@scenario("remote-config-min-version-ahead-of-store")
def remote_config_min_version_ahead_of_store() -> dict[str, Any]:
    start = -1800
    sig = 'ios_min_supported_version: "5.11.0" -> "5.12.0"'
    evs = [
        ev(
            "firebase-remote-config",
            "info",
            f"template version 311 published by m.haddad@ruckus-fit.example via Firebase console (description: 'force 5.12 for new onboarding'): {sig}",
            at=start - 40,
        ),
        ev(
            "app-store-connect",
            "info",
            "Ruckus Fit iOS 5.12.0 (build 1207): status Waiting for Review (submitted 2026-12-06 17:40 UTC)",
            **every(start - 3000, -60, 900),
        ),
        ev(
            "ios-app",
            "warn",
            '{"event":"force_update_shown","app_version":"5.11.{ms}","min_supported":"5.12.0","os":"iOS 18.{ms}","user":"u{n}"}',
            **every(start, -2, 4),
        ),
        ev(
            "ios-app",
            "warn",
            '{"event":"app_store_open_no_update","app_version":"5.11.2","store_version":"5.11.2","user":"u{n}"}',
            **every(start + 30, -5, 15),
        ),
        ev(
            "api",
            "info",
            "time=2026-12-07T18:{n}Z level=INFO msg=request method=GET path=/v1/workouts/today status=200 client=android/5.12.0 dur={ms}ms",
            **every(-3600, -5, 12),
        ),
        ev(
            "google-play",
            "info",
            "Ruckus Fit Android 5.12.0 staged rollout 20% -> 50%",
            at=-4800,
        ),
        ev(
            "api",
            "warn",
            'time=2026-12-07T18:{n}Z level=WARN msg="apple healthkit sync slow" dur=4{ms}ms',
            **every(-7000, -100, 600),
        ),
        ev(
            "api",
            "error",
            'time=2026-12-07T15:{n}Z level=ERROR msg="stripe webhook signature verification failed"',
            **every(-10400, -9800, 150),
        ),
    ]
    return simple(
        527,
        start,
        incident("iPhone users stuck, app won't open", "iOS app", start),
        expected(
            "application",
            [
                "firebase remote config",
                "remote config",
                "ios_min_supported_version",
                "template version 311",
                "force update",
                "ios-app",
            ],
            sig,
            "Remote Config template 311 raised ios_min_supported_version to 5.12.0 while iOS 5.12.0 is still waiting for App Store review. Every iOS client on 5.11.x shows the blocking update screen and the App Store has no update to give, so iPhone users cannot use the app. The API is healthy (iOS traffic simply drops); the Android rollout, HealthKit slowness and the old Stripe error are not the cause.",
            [
                f"firebase-remote-config v311: {sig}",
                "app-store-connect: 5.12.0 Waiting for Review",
                "ios-app: force_update_shown min_supported 5.12.0",
            ],
            "Roll Remote Config back to template 310 (min 5.11.0), and only raise the minimum after the release is live in the store.",
        ),
        [
            bg(
                "api",
                ["api-7f9c-1", "api-7f9c-2"],
                [
                    "time=2026-12-07T18:{n}Z level=INFO msg=request method=GET path=/v1/feed status=200 client=ios/5.11.2 dur={ms}ms",
                    "time=2026-12-07T18:{n}Z level=INFO msg=request method=POST path=/v1/sessions status=201 client=ios/5.11.2 dur={ms}ms",
                ],
                8,
                until=start,
            )
        ],
        evs,
        [svc("api", 60, {"500": (0.001, 0.001)}, (0.06, 0.06), rps_after=24)],
        [
            gauge(
                "ios_daily_active_sessions_per_minute",
                {"platform": "ios"},
                2100,
                35,
                start,
            )
        ],
        {
            "ios-app-broken.md": runbook(
                "iOS app not working",
                "If the iOS app stops working for everyone, an Apple certificate or the push entitlement usually expired. Check the APNs key and the app's provisioning profile in the Apple developer portal.",
            )
        },
    )


# =================================================================================================
# 16. VM / TLS: the Nexus repository VM was moved to a new instance 80 days ago by restoring
#     /etc/letsencrypt from backup; the new image never enabled certbot.timer, so nothing renewed the
#     Let's Encrypt certificate, which expired this afternoon. Every pipeline that installs packages
#     through Nexus fails. Netcheck: nexus is tls/certificate_expired, the git server is fine. The
#     incident says "deploy pipeline".
# =================================================================================================


@scenario("certbot-timer-not-enabled-after-vm-move")
def certbot_timer_not_enabled_after_vm_move() -> dict[str, Any]:
    start = -2400
    sig = "certificate has expired"
    evs = [
        ev(
            "gitlab-runner",
            "error",
            "npm error code CERT_HAS_EXPIRED npm error errno CERT_HAS_EXPIRED npm error request to https://nexus.build.stellwerk.example/repository/npm-group/react failed, reason: "
            + sig,
            **every(start, -20, 60),
        ),
        ev(
            "gitlab-runner",
            "error",
            "ERROR: Could not install packages due to an OSError: HTTPSConnectionPool(host='nexus.build.stellwerk.example', port=443): Max retries exceeded with url: /repository/pypi-group/simple/django/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1006)')))",
            **every(start + 30, -25, 90),
        ),
        ev(
            "systemd",
            "info",
            "Sep 18 10:02:11 nexus-02 cloud-init[901]: restored /etc/letsencrypt from backup nexus-01-2026-09-18.tar.gz; nginx enabled; (certbot.timer: disabled, not started)",
            at=-10800,
            labels={"host": "nexus-02"},
        ),
        ev(
            "nginx",
            "info",
            'nexus-02 nginx: 10.9.{ms}.{ms} - - [07/Dec/2026:14:{n} +0000] "GET /repository/npm-group/react HTTP/1.1" 200 {n} "-" "npm/10.9.0"',
            **every(-7000, start, 40),
        ),
        ev(
            "monitoring",
            "warn",
            "blackbox: probe_ssl_earliest_cert_expiry for https://nexus.build.stellwerk.example below 14d (alert routed to #infra-low, silenced until 2026-12-31)",
            at=-9000,
        ),
        ev(
            "gitlab",
            "info",
            "gitlab 17.6.1 upgrade finished (background migrations queued: 3)",
            at=-5000,
        ),
        ev(
            "gitlab-runner",
            "warn",
            "WARNING: Job failed: execution took longer than 1h0m0s seconds (docker+machine autoscaler: no idle machines)",
            **every(-10300, -9800, 200),
        ),
    ]
    spec = simple(
        528,
        start,
        incident("All deploys failing since this afternoon", "deploy pipeline", start),
        expected(
            "tls",
            [
                "nexus.build.stellwerk.example",
                "nexus-02",
                "nexus",
                "certbot.timer",
                "letsencrypt",
                "certbot",
            ],
            sig,
            "nexus.build.stellwerk.example's Let's Encrypt certificate expired this afternoon. The Nexus VM was moved to nexus-02 by restoring /etc/letsencrypt, but certbot.timer was never enabled there, so the certificate was not renewed; the expiry alert was silenced in a low-priority channel. Every pipeline that installs npm or PyPI packages through Nexus fails certificate verification. The GitLab upgrade and the old autoscaler timeouts are not the cause.",
            [
                f"gitlab-runner: npm CERT_HAS_EXPIRED / pip {sig} for nexus.build.stellwerk.example",
                "cloud-init nexus-02: certbot.timer disabled",
                "netcheck: nexus tls certificate_expired",
            ],
            "Renew now (certbot renew, reload nginx), enable certbot.timer on nexus-02 with a deploy hook reloading nginx, and route the expiry alert to on-call.",
        ),
        [
            bg(
                "gitlab",
                ["gitlab-web-1"],
                [
                    '{"method":"GET","path":"/api/v4/jobs/request","status":204,"duration_s":0.0{ms}}',
                    '{"method":"POST","path":"/api/v4/jobs/{n}/trace","status":202,"duration_s":0.0{ms}}',
                ],
                8,
            )
        ],
        evs,
        [svc("gitlab", 20, {"500": (0.001, 0.001)}, (0.05, 0.05))],
        [gauge("ci_pipelines_failed_per_hour", {"project_group": "all"}, 2, 46, start)],
        {
            "pipelines-failing.md": runbook(
                "CI pipelines failing",
                "Widespread pipeline failures usually come from the runner autoscaler: check docker+machine for stuck machines, remove them and restart gitlab-runner.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "nexus",
                "url": "https://nexus.build.stellwerk.example/repository/npm-group/",
                "fault": {"kind": "tls_expired", "expired_s_ago": 2700},
            },
            {
                "name": "gitlab",
                "url": "https://gitlab.build.stellwerk.example/-/health",
                "fault": {"kind": "ok"},
            },
        ],
        "nexus",
        {
            "nexus": {"failed_layer": "tls", "reason": "certificate_expired"},
            "gitlab": {"failed_layer": "none", "reason": None},
        },
    )


STAGES = {
    "ci-branch-slash-in-image-tag": ("startup", "InvalidImageName"),
    "asg-scheduled-action-utc-empties-etl-nodegroup": (
        "scheduling",
        "FailedScheduling",
    ),
    "unleash-flag-crashes-tax-service": ("runtime", "CrashLoopBackOff"),
    "bond-second-link-not-in-lacp-node-notready": ("infrastructure", "NodeNotReady"),
    "ingress-backend-port-name-renamed": ("service_routing", "PortNameMismatch"),
    "keda-scaledobject-points-at-replaced-queue": ("autoscaling", "KEDAScalerFailed"),
}


# A clock time whose minutes were filled from a template's {n} ("02:9264:48", "14:22536Z").
_FILLED_MINUTES = re.compile(r"(?<![\d.])(\d{2}):(\d{3,6})(?=\D|$)")


def tidy_clock_times(lines: list[dict[str, Any]]) -> None:
    """Turns minutes filled with a large number back into a minute of the hour (n mod 60)."""
    for line in lines:
        for _ in range(2):  # minutes, then seconds ("12:5432:154321")
            line["message"] = _FILLED_MINUTES.sub(
                lambda m: f"{m.group(1)}:{int(m.group(2)) % 60:02d}", line["message"]
            )


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        tidy_clock_times(spec["logs"])
        if slug in STAGES:
            stage, reason = STAGES[slug]
            spec["expected"]["root_cause_stage"] = stage
            spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
