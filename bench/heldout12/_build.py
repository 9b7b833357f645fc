"""Writes the twelfth held-out scenario set, bench/heldout12: `python bench/heldout12/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout11. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout11/_build.py's helpers (and through them heldout10's and the earlier builders'),
each scenario with a fixed seed (301-316). The author read neither the planner (`reasoning/`) nor
the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


h11 = _load("heldout11_build", HERE.parent / "heldout11" / "_build.py")
h10 = h11.h10
base = h11.base

table = base.table
events = base.events
runbook = base.runbook
app = h11.app
pod_name = h11.pod_name
namespace = h11.namespace
ev = h11.ev
bg = h11.bg
incident = h11.incident
expected = h11.expected
simple = h11.simple
container_text = h11.container_text
deployment_describe = h11.deployment_describe
describe_pod = h11.describe_pod
podlog = h11.podlog
running = h11.running
crashloop = h11.crashloop
waiting = h11.waiting
node_describe = h11.node_describe
replicaset_describe = h11.replicaset_describe
pending_pod = h10.pending_pod
sched = h11.sched
kube_case = h11.kube_case
pods_of = h11.pods_of
svc = h11.svc
ramp = h11.ramp
NODES_FRA = h11.NODES_FRA
NODES_IAD = h11.NODES_IAD
NODES_DUB = h11.NODES_DUB
NODES_PDX = h11.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def every(frm: int, to: int, step: int) -> dict[str, int]:
    """A repeated event's `from` / `to` / `every_s` (keywords `from` cannot be written directly)."""
    return {"from": frm, "to": to, "every_s": step}


# =================================================================================================
# 1. Admission: a native ValidatingAdmissionPolicy `allowed-registries` (CEL) was switched from
#    `validationActions: [Audit]` to `[Deny]` yesterday. search-api's pods carry a fluent-bit sidecar
#    still pulled from docker.io. The running pods were admitted long ago; the evening HPA scale-out
#    cannot create one new pod, the three old ones saturate. The incident says "search".
# =================================================================================================


@scenario("registry-policy-denies-sidecar-image")
def registry_policy_denies_sidecar_image() -> dict[str, Any]:
    start = -1680
    ns = "search"
    sa = app(
        "search-api",
        image="registry.shopwell.internal/search/search-api:8.3.2",
        port=8080,
        rs="7c5d9f8b6",
        cluster_ip="172.20.90.14",
        desired=9,
        pods=[
            ("h2kxv", "2/2", "Running", "0", "6d", 0),
            ("p7wqm", "2/2", "Running", "0", "6d", 1),
            ("t4zrc", "2/2", "Running", "0", "6d", 2),
        ],
    )
    sug = app(
        "suggest",
        image="registry.shopwell.internal/search/suggest:3.11.0",
        port=8080,
        rs="5f6b8c9d7",
        cluster_ip="172.20.90.31",
        pods=[
            ("a8mnd", "1/1", "Running", "0", "41m", 0),
            ("r3vbk", "1/1", "Running", "0", "41m", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [sa, sug], seed=301)
    rs = f"search-api-{sa['rs']}"
    sig = "ValidatingAdmissionPolicy 'allowed-registries' with binding 'allowed-registries-prod' denied request"
    deny = (
        f'pods "{rs}-" is forbidden: {sig}: image docker.io/fluent/fluent-bit:2.2.2 is not from '
        "registry.shopwell.internal (containers[1] log-shipper)"
    )
    cont = container_text(
        "search-api",
        sa["image"],
        8080,
        env={"OPENSEARCH_URL": "https://os-prod.search.svc:9200"},
        requests="cpu:      1\n  memory:   1Gi",
        limits="memory:  1Gi",
    ) + (
        "\n   log-shipper:\n    Image:      docker.io/fluent/fluent-bit:2.2.2\n"
        "    Port:       2020/TCP\n    Limits:\n      memory:  128Mi\n"
    )
    k8s[f"kubectl describe replicasets {rs} -n {ns}"] = replicaset_describe(
        rs,
        ns,
        deployment="search-api",
        revision=22,
        desired=9,
        current=3,
        status="3 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=[
            (
                "Warning",
                "FailedCreate",
                "40s (x31 over 27m)",
                "replicaset-controller",
                f"Error creating: {deny}",
            )
        ],
    )
    k8s[f"kubectl describe deployments search-api -n {ns}"] = deployment_describe(
        "search-api",
        ns,
        replicas="9 desired | 3 updated | 3 total | 3 available | 6 unavailable",
        revision=22,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs=f"{rs} (3/9 replicas created)",
        created=-6048000,
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "41m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/suggest",
                "Scaled up replica set suggest-5f6b8c9d7 to 2",
            ),
            (
                "28m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/search-api",
                "New size: 9; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "40s",
                "Warning",
                "FailedCreate",
                f"ReplicaSet/{rs}",
                f"Error creating: {deny}",
            ),
        ]
    )
    sp = pods_of(sa)
    evs = [
        ev(
            "gitops",
            "info",
            "flux: kustomization platform-policies applied: ValidatingAdmissionPolicyBinding/allowed-registries-prod configured (validationActions [Audit] -> [Deny], MR sec-platform!388 'enforce internal registry')",
            at=-79200,
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f"replicaset_controller: Error creating pod for {ns}/{rs}: {deny}",
            **every(start + 30, -15, 60),
        ),
        ev(
            "search-api",
            "warn",
            "OpenSearch query took {ms}ms (> 800ms budget), request queue {n}",
            **every(start + 120, -5, 20),
            pods=sp,
        ),
        ev(
            "storefront",
            "error",
            'upstream timed out (110: Connection timed out) while reading response header from upstream, upstream: "http://172.20.90.14:8080/v2/search?q=..."',
            **every(start + 200, -2, 6),
        ),
        ev(
            "suggest",
            "info",
            "suggest 3.11.0 started: typo tolerance enabled for 'de' locale",
            at=-2460,
            pods=pods_of(sug),
        ),
        ev(
            "opensearch",
            "warn",
            "[os-prod-data-1] [gc][young][88213] overhead, spent [512ms] collecting in the last [1s]",
            **every(-3600, -60, 420),
        ),
        ev(
            "search-api",
            "error",
            "OpenSearch returned 429 es_rejected_execution_exception (search thread pool queue 1000)",
            **every(-9000, -8400, 60),
            pods=sp,
        ),
    ]
    return kube_case(
        seed=301,
        start=start,
        inc=incident("Search is very slow", "search", start),
        exp=expected(
            "platform",
            [
                "deployment/search-api",
                "search-api",
                f"replicaset/{rs}",
                "validatingadmissionpolicy/allowed-registries",
                "allowed-registries",
                "allowed-registries-prod",
            ],
            sig,
            "Yesterday the ValidatingAdmissionPolicyBinding allowed-registries-prod was switched from Audit to Deny. search-api's pod template still has a fluent-bit sidecar from docker.io. The three running pods were admitted before; the evening HPA scale-out to 9 cannot create a single pod, every create is denied, so three pods carry the evening load and search is slow (storefront timeouts). OpenSearch GC, suggest's release and the old 429 are not the cause.",
            [
                f"ReplicaSet {rs}: FailedCreate: {sig}",
                "flux: allowed-registries-prod validationActions [Audit] -> [Deny] 22 h ago",
                "search-api 3/9 available since the HPA scaled out",
            ],
            "Mirror fluent-bit into registry.shopwell.internal and change the sidecar image (or exempt the image in the policy), then let the ReplicaSet create the pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "search-api",
                sp,
                ["GET /v2/search 200 {ms}ms", "GET /v2/facets 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("search-api", 120, {"504": (0.0005, 0.07)}, (0.12, 1.9))],
        books={
            "search-latency.md": runbook(
                "Search latency",
                "Slow search is almost always OpenSearch: check the data nodes' GC and heap, and force-merge the products index if segment count is high.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: a chart values change meant `ephemeral-storage: 5Gi` for the export worker's scratch
#    space but wrote `50Gi`; the nodes have 20 GiB of allocatable ephemeral storage. The worker's new
#    ReplicaSet stays Pending (Insufficient ephemeral-storage), exports queue up. The incident says
#    "reports".
# =================================================================================================


@scenario("ephemeral-storage-request-typo")
def ephemeral_storage_request_typo() -> dict[str, Any]:
    start = -2040
    ns = "reporting"
    new_rs = "84c7d5b9f"
    ew = app(
        "export-worker",
        image="ghcr.io/tallyhq/export-worker:2.14.0",
        port=9000,
        rs=new_rs,
        cluster_ip="172.20.12.40",
        desired=4,
        service=False,
        pods=[
            ("b5qzt", "0/1", "Pending", "0", "34m", 0),
            ("k2wvd", "0/1", "Pending", "0", "34m", 0),
            ("x9lmf", "0/1", "Pending", "0", "34m", 0),
            ("r6hjc", "0/1", "Pending", "0", "34m", 0),
        ],
    )
    ra = app(
        "reports-api",
        image="ghcr.io/tallyhq/reports-api:6.2.1",
        port=8080,
        rs="6d9b7c5f8",
        cluster_ip="172.20.12.9",
        pods=[
            ("m3nqs", "1/1", "Running", "0", "12d", 1),
            ("w8ptl", "1/1", "Running", "0", "12d", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [ew, ra], seed=302)
    sig = "Insufficient ephemeral-storage"
    fail = (
        f"0/3 nodes are available: 3 {sig}. preemption: 0/3 nodes are available: 3 No preemption "
        "victims found for incoming pod."
    )
    cont = container_text(
        "export-worker",
        ew["image"],
        9000,
        requests="cpu:                500m\n  ephemeral-storage:  50Gi\n  memory:             1Gi",
        limits="ephemeral-storage:  50Gi\n  memory:             1Gi",
    )
    for sfx in ("b5qzt", "k2wvd", "x9lmf", "r6hjc"):
        name = pod_name(ew, sfx)
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner=f"ReplicaSet/export-worker-{new_rs}",
            labels=["app=export-worker", f"pod-template-hash={new_rs}"],
            sa="export-worker",
            containers=cont,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "2m (x9 over 34m)",
                    "default-scheduler",
                    fail,
                )
            ],
        )
    k8s[f"kubectl describe deployments export-worker -n {ns}"] = deployment_describe(
        "export-worker",
        ns,
        replicas="4 desired | 4 updated | 4 total | 0 available | 4 unavailable",
        revision=19,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="<none>",
        new_rs=f"export-worker-{new_rs} (4/4 replicas created)",
        created=-9504000,
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "34m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/export-worker",
                f"Scaled up replica set export-worker-{new_rs} to 4",
            ),
            (
                "34m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/export-worker",
                "Scaled down replica set export-worker-6b4f8d7c9 to 0 from 4",
            ),
            (
                "2m",
                "Warning",
                "FailedScheduling",
                f"Pod/{pod_name(ew, 'b5qzt')}",
                fail,
            ),
        ]
    )
    rp = pods_of(ra)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app export-worker synced to 2.14.0 (values: resources.requests.ephemeral-storage 2Gi -> 50Gi, PR reporting#77 'scratch space for xlsx exports')",
            at=start - 20,
        ),
        ev(
            "kube-scheduler",
            "info",
            f'"Unable to schedule pod; no fit; waiting" pod="{ns}/{pod_name(ew, "b5qzt")}" err="{fail}"',
            **every(start + 10, -30, 120),
        ),
        ev(
            "reports-api",
            "error",
            "GET /v1/exports/{n}/status 504 export still queued after 300s (queue exports.xlsx depth {n}0)",
            **every(start + 300, -3, 7),
            pods=rp,
        ),
        ev(
            "reports-api",
            "warn",
            "pg: slow query 2481ms: SELECT ... FROM ledger_entries WHERE tenant_id = $1 AND booked_at BETWEEN $2 AND $3",
            **every(-3600, -100, 300),
            pods=rp,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            "Pod reporting/export-worker-84c7d5b9f-b5qzt can't be scheduled on eks-general-m6i, predicate checking error: Insufficient ephemeral-storage; debugInfo=",
            **every(start + 60, -60, 300),
        ),
        ev(
            "export-worker",
            "error",
            "xlsx render failed for export {n}: MemoryError",
            **every(-9600, -9200, 100),
        ),
    ]
    return kube_case(
        seed=302,
        start=start,
        inc=incident(
            "Report exports never finish",
            "reports",
            start,
            ["exports stuck in 'queued'"],
        ),
        exp=expected(
            "platform",
            [
                "deployment/export-worker",
                "export-worker",
                f"replicaset/export-worker-{new_rs}",
                "ephemeral-storage",
            ],
            sig,
            "The export-worker 2.14.0 rollout raised the pods' ephemeral-storage request from 2Gi to 50Gi (a typo for 5Gi); the nodes have about 18 GB of allocatable ephemeral storage, so the scheduler cannot place any of the four new pods and the cluster autoscaler cannot help (no node group has that much). The old ReplicaSet was scaled down, nothing consumes exports.xlsx and reports-api answers 504 for queued exports. The slow ledger query and the old MemoryError are not the cause.",
            [
                f"export-worker pods Pending: FailedScheduling: 0/3 nodes are available: 3 {sig}",
                "argocd: ephemeral-storage 2Gi -> 50Gi in 2.14.0",
                "cluster-autoscaler: no node group fits the pod (Insufficient ephemeral-storage)",
            ],
            "Set the request back to a size that fits (5Gi), or use a generic ephemeral volume for scratch space; roll out again.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "reports-api",
                rp,
                ["GET /v1/reports 200 {ms}ms", "POST /v1/exports 202 {ms}ms"],
                10,
            )
        ],
        evs=evs,
        services=[svc("reports-api", 14, {"504": (0.0, 0.21)}, (0.09, 0.3))],
        books={
            "slow-reports.md": runbook(
                "Slow reports",
                "Reports slow down when the ledger_entries query goes sequential: run ANALYZE ledger_entries and check the reporting replica's lag.",
            )
        },
    )


# =================================================================================================
# 3. Startup: loyalty-service runs Flyway on start and its Deployment uses `strategy: Recreate`. A
#    developer edited an already applied migration (V57, a comment and an index name) in release
#    4.9.0; Flyway's validation fails with a checksum mismatch, every new pod exits 1 before it
#    listens, and Recreate had already stopped the old pods. The incident says "checkout" (points
#    cannot be redeemed, so the basket step fails).
# =================================================================================================


@scenario("flyway-checksum-mismatch-recreate")
def flyway_checksum_mismatch_recreate() -> dict[str, Any]:
    start = -1320
    ns = "loyalty"
    ls = app(
        "loyalty-service",
        image="registry.gitlab.com/petalmart/loyalty-service:4.9.0",
        port=8080,
        rs="69f7c8d5b",
        cluster_ip="172.20.33.70",
        pods=[
            ("c7ntx", "0/1", "CrashLoopBackOff", "8", "21m", 0),
            ("f2kqb", "0/1", "CrashLoopBackOff", "8", "21m", 1),
        ],
    )
    bk = app(
        "basket-api",
        image="registry.gitlab.com/petalmart/basket-api:12.0.3",
        port=8080,
        rs="7b8c6d9f5",
        cluster_ip="172.20.33.12",
        pods=[
            ("g4xwp", "1/1", "Running", "0", "3h", 0),
            ("n9rdz", "1/1", "Running", "0", "3h", 2),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [ls, bk], seed=303)
    sig = "Migration checksum mismatch for migration version 57"
    name = describe_pod(
        k8s,
        ns,
        ls,
        "c7ntx",
        NODES_PDX,
        state=crashloop(1, "Error", -95, -71),
        started=-1260,
        restarts=8,
        events_rows=[
            sched(ns, pod_name(ls, "c7ntx"), NODES_PDX[0][0], "21m"),
            (
                "Warning",
                "BackOff",
                "70s (x88 over 20m)",
                "kubelet",
                f"Back-off restarting failed container loyalty-service in pod {pod_name(ls, 'c7ntx')}_{ns}(5b1e…)",
            ),
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (-95, "  .   ____          _            __ _ _"),
            (
                -94,
                "INFO 1 --- [main] c.p.loyalty.LoyaltyApplication : Starting LoyaltyApplication v4.9.0 using Java 21.0.3",
            ),
            (
                -88,
                "INFO 1 --- [main] com.zaxxer.hikari.HikariDataSource : HikariPool-1 - Start completed.",
            ),
            (
                -87,
                "INFO 1 --- [main] o.f.c.i.database.base.BaseDatabaseType : Database: jdbc:postgresql://loyalty-db.cluster-c8x1.us-west-2.rds.amazonaws.com:5432/loyalty (PostgreSQL 15.6)",
            ),
            (
                -85,
                "WARN 1 --- [main] ConfigServletWebServerApplicationContext : Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'flywayInitializer': Validate failed: Migrations have failed validation",
            ),
            (
                -85,
                f"ERROR 1 --- [main] o.s.boot.SpringApplication : Application run failed\norg.flywaydb.core.api.exception.FlywayValidateException: Validate failed: Migrations have failed validation\n{sig}\n-> Applied to database : 1482203117\n-> Resolved locally    : -903517266\nEither revert the changes to the migration, or run repair to update the schema history.",
            ),
            (-71, "Stopping service [Tomcat]"),
        ]
    )
    k8s[f"kubectl describe deployments loyalty-service -n {ns}"] = deployment_describe(
        "loyalty-service",
        ns,
        replicas="2 desired | 2 updated | 2 total | 0 available | 2 unavailable",
        revision=41,
        containers=container_text(
            "loyalty-service",
            ls["image"],
            8080,
            env={"SPRING_FLYWAY_ENABLED": "true", "SPRING_PROFILES_ACTIVE": "prod"},
        ),
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="loyalty-service-5d8b7f6c4 (0/0 replicas created)",
        new_rs=f"loyalty-service-{ls['rs']} (2/2 replicas created)",
        created=-31536000,
        strategy="Recreate",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "22m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/loyalty-service",
                "Scaled down replica set loyalty-service-5d8b7f6c4 to 0 from 2",
            ),
            (
                "21m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/loyalty-service",
                f"Scaled up replica set loyalty-service-{ls['rs']} to 2",
            ),
            (
                "70s",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                "Back-off restarting failed container loyalty-service",
            ),
        ]
    )
    lp, bp = pods_of(ls), pods_of(bk)
    evs = [
        ev(
            "gitlab-ci",
            "info",
            "pipeline #58213 deploy-prod: loyalty-service 4.9.0 (MR !412 'tidy V57__points_expiry.sql: rename index, add comment')",
            at=start - 90,
        ),
        ev(
            "loyalty-service",
            "error",
            f"Application run failed: FlywayValidateException: Validate failed: Migrations have failed validation. {sig}",
            **every(start + 40, -70, 150),
            pods=lp,
        ),
        ev(
            "basket-api",
            "error",
            'POST /basket/{n}/redeem-points 502: I/O error on POST request for "http://loyalty-service.loyalty.svc:8080/v2/redemptions": Connection refused',
            **every(start + 60, -2, 5),
            pods=bp,
        ),
        ev(
            "basket-api",
            "warn",
            "feature toggle 'bundle-discounts' evaluated with fallback=false (unleash unreachable {n}ms)",
            **every(-3000, -200, 360),
            pods=bp,
        ),
        ev(
            "loyalty-db",
            "info",
            "LOG:  checkpoint complete: wrote {n} buffers (1.4%); 0 WAL file(s) added",
            **every(-7000, -60, 600),
        ),
        ev(
            "basket-api",
            "error",
            "POST /basket/{n}/redeem-points 500: org.postgresql.util.PSQLException: ERROR: deadlock detected",
            **every(-9300, -9000, 60),
            pods=bp,
        ),
    ]
    return kube_case(
        seed=303,
        start=start,
        inc=incident(
            "Checkout failing for loyalty members",
            "checkout",
            start,
            ["'could not apply points' at checkout"],
        ),
        exp=expected(
            "application",
            [
                "deployment/loyalty-service",
                "loyalty-service",
                f"replicaset/loyalty-service-{ls['rs']}",
                "loyalty-service 4.9.0",
                "V57__points_expiry.sql",
                "flyway",
            ],
            sig,
            "loyalty-service 4.9.0 edits migration V57, which production applied months ago. Flyway validates on start, finds the checksum mismatch and the Spring context fails, so every new pod exits 1 before listening. The Deployment uses the Recreate strategy, so both old pods were stopped first: nothing serves loyalty, basket-api's redeem-points calls are refused and checkout fails for members. The unleash fallback, the database checkpoints and the old deadlock are not the cause.",
            [
                f"loyalty-service logs: FlywayValidateException: {sig}",
                "gitlab-ci: 4.9.0 'tidy V57__points_expiry.sql' 23 min ago",
                "Deployment strategy Recreate: old ReplicaSet scaled to 0 before the new pods started",
            ],
            "Roll back to 4.8.x (or revert the edit of V57 / run flyway repair after review); give the Deployment a RollingUpdate strategy.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "basket-api",
                bp,
                ["GET /basket/{n} 200 {ms}ms", "POST /basket/{n}/items 201 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("basket-api", 40, {"502": (0.0, 0.11)}, (0.04, 0.05))],
        books={
            "checkout-errors.md": runbook(
                "Checkout errors",
                "Checkout errors usually follow a feature-toggle outage: check that unleash answers and restart basket-api if toggles are stuck on fallback.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: pdf-renderer (Node 20 + Puppeteer) runs headless Chromium. Release 3.2.0 rebuilt the
#    launch options and dropped `--disable-dev-shm-usage`; the pod has Docker's 64 MiB /dev/shm.
#    Large statements crash the renderer's page ("Page crashed!"), the browser disconnects, the
#    process exits 1 and the pods crash-loop under load. The incident says "statements".
# =================================================================================================


@scenario("headless-chrome-dev-shm-64m")
def headless_chrome_dev_shm_64m() -> dict[str, Any]:
    start = -1980
    ns = "documents"
    pr = app(
        "pdf-renderer",
        image="ghcr.io/norvik-bank/pdf-renderer:3.2.0",
        port=3000,
        rs="5c7f9b8d6",
        cluster_ip="172.20.71.5",
        pods=[
            ("d4lkw", "0/1", "CrashLoopBackOff", "11", "2h", 0),
            ("q6bns", "1/1", "Running", "12", "2h", 1),
            ("z1tfy", "0/1", "CrashLoopBackOff", "10", "2h", 2),
        ],
    )
    st = app(
        "statement-service",
        image="ghcr.io/norvik-bank/statement-service:7.7.1",
        port=8080,
        rs="8d6c5b7f9",
        cluster_ip="172.20.71.20",
        pods=[
            ("j5cvh", "1/1", "Running", "0", "5d", 0),
            ("s8wmx", "1/1", "Running", "0", "5d", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [pr, st], seed=304)
    sig = "Protocol error (Page.printToPDF): Target closed"
    name = describe_pod(
        k8s,
        ns,
        pr,
        "d4lkw",
        NODES_IAD,
        state=crashloop(1, "Error", -250, -212),
        started=-7100,
        restarts=11,
        events_rows=[
            (
                "Warning",
                "BackOff",
                "3m (x57 over 31m)",
                "kubelet",
                f"Back-off restarting failed container pdf-renderer in pod {pod_name(pr, 'd4lkw')}_{ns}(0c4a…)",
            )
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -250,
                "pdf-renderer 3.2.0 listening on :3000 (chromium 124.0.6367.91, pool=4)",
            ),
            (-231, "render statement ST-2026-11-0081733 pages=38 images=112"),
            (
                -218,
                "[0](chromium) [1207/002114.880:ERROR:shared_memory_posix.cc(...)] Unable to access(W_OK|X_OK) /dev/shm: No space left on device",
            ),
            (-217, "page error: Error: Page crashed!"),
            (
                -214,
                f"render failed for ST-2026-11-0081733: ProtocolError: {sig}.",
            ),
            (
                -213,
                "browser disconnected; exiting so Kubernetes restarts us",
            ),
        ]
    )
    k8s[f"kubectl describe deployments pdf-renderer -n {ns}"] = deployment_describe(
        "pdf-renderer",
        ns,
        replicas="3 desired | 3 updated | 3 total | 1 available | 2 unavailable",
        revision=17,
        containers=container_text(
            "pdf-renderer",
            pr["image"],
            3000,
            env={
                "PUPPETEER_ARGS": "--no-sandbox --disable-gpu --font-render-hinting=none"
            },
            limits="memory:  2Gi",
            requests="cpu:      1\n  memory:   2Gi",
        ),
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="pdf-renderer-79b6d4c8f (0/0 replicas created)",
        new_rs=f"pdf-renderer-{pr['rs']} (3/3 replicas created)",
        created=-20736000,
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "2h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pdf-renderer",
                f"Scaled up replica set pdf-renderer-{pr['rs']} to 3",
            ),
            (
                "3m",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                "Back-off restarting failed container pdf-renderer",
            ),
        ]
    )
    pp, sp = pods_of(pr), pods_of(st)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app pdf-renderer synced to 3.2.0 (PR docs#233 'puppeteer 22, launch args from env, drop legacy flags')",
            at=-7140,
        ),
        ev(
            "pdf-renderer",
            "error",
            f"render failed: ProtocolError: {sig}. (Page crashed!)",
            **every(start, -20, 40),
            pods=pp,
        ),
        ev(
            "pdf-renderer",
            "info",
            "render statement ST-2026-11-00{n} pages={n} ok in {ms}ms",
            **every(-7000, -30, 60),
            pods=pp,
        ),
        ev(
            "statement-service",
            "error",
            "month-end batch: statement {n} failed: POST http://pdf-renderer.documents.svc:3000/render -> 503 / ECONNRESET, requeued",
            **every(start + 30, -3, 6),
            pods=sp,
        ),
        ev(
            "statement-service",
            "info",
            "month-end batch started: 412 877 statements (trigger: cron 0 0 7 * *)",
            at=start - 60,
            pods=sp,
        ),
        ev(
            "mailer",
            "warn",
            "SES SendRawEmail throttled: Maximum sending rate exceeded, retry in {n}s",
            **every(-3000, -100, 300),
        ),
        ev(
            "pdf-renderer",
            "error",
            "font fallback: no glyph for U+20BF in 'Inter', using DejaVu Sans",
            **every(-10200, -9000, 200),
            pods=pp,
        ),
    ]
    return kube_case(
        seed=304,
        start=start,
        inc=incident("Monthly statements not generated", "statements", start),
        exp=expected(
            "application",
            [
                "deployment/pdf-renderer",
                "pdf-renderer",
                "pdf-renderer 3.2.0",
                "/dev/shm",
                "--disable-dev-shm-usage",
            ],
            sig,
            "pdf-renderer 3.2.0 rebuilt Chromium's launch arguments from an environment variable and lost --disable-dev-shm-usage; the container has the default 64 MiB /dev/shm. Small documents still render, but the month-end batch's large statements exhaust /dev/shm, Chromium's page crashes (Target closed), the browser disconnects and the process exits 1: the pods crash-loop and statement-service's batch fails. The batch start is the trigger; SES throttling and the old font warning are not the cause.",
            [
                f"pdf-renderer previous logs: /dev/shm: No space left on device, {sig}",
                "argocd: pdf-renderer 3.2.0 'drop legacy flags' 2 h ago",
                "pdf-renderer CrashLoopBackOff exit 1 since the month-end batch",
            ],
            "Add --disable-dev-shm-usage back (or mount an emptyDir with medium: Memory at /dev/shm) and redeploy; resume the batch.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "statement-service",
                sp,
                ["GET /v1/statements/{n} 200 {ms}ms"],
                10,
            )
        ],
        evs=evs,
        services=[svc("pdf-renderer", 6, {"503": (0.0, 0.42)}, (1.2, 1.0))],
        books={
            "statement-batch.md": runbook(
                "Statement batch failures",
                "If the month-end batch fails, the mail provider is usually throttling: lower the batch concurrency and ask AWS to raise the SES sending rate.",
            )
        },
    )


# =================================================================================================
# 5. Infrastructure / node: the ENA network adapter of one node keeps timing out (Tx completions
#    late, keep-alive watchdog, device reset every few minutes); AWS has flagged the underlying host
#    as degraded. The node stays Ready. The Redis pod that holds carts runs there, so every cart-api
#    pod times out against it for a few seconds after each reset. The incident says "cart".
# =================================================================================================


@scenario("node-ena-resets-degraded-host")
def node_ena_resets_degraded_host() -> dict[str, Any]:
    start = -2460
    ns = "cart"
    bad = NODES_FRA[2]
    ca = app(
        "cart-api",
        image="ghcr.io/kestrel-retail/cart-api:5.18.0",
        port=8080,
        rs="6f9d8b7c5",
        cluster_ip="172.20.44.10",
        pods=[
            ("b2rtn", "1/1", "Running", "0", "58m", 0),
            ("h7kfw", "1/1", "Running", "0", "58m", 1),
            ("m5xzq", "1/1", "Running", "0", "58m", 0),
        ],
    )
    rd = app(
        "cart-redis",
        image="redis:7.2.5",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="172.20.44.30",
        pods=[("0", "1/1", "Running", "0", "19d", 2)],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [ca, rd],
        seed=305,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                ["cart-redis", "1/1", "400d", "redis", "redis:7.2.5"],
            ]
        ),
    )
    sig = "Keep alive watchdog timeout"
    kern = [
        "ena 0000:00:06.0 eth0: Found a Tx that wasn't completed on time, qid 2, index 731. 2048000 usecs have passed since last napi execution",
        f"ena 0000:00:06.0 eth0: {sig}.",
        "ena 0000:00:06.0 eth0: Trigger reset is on",
        "ena 0000:00:06.0: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.12.0g",
    ]
    k8s[f"kubectl describe nodes {bad[0]}"] = node_describe(
        bad[0],
        bad[2],
        pods_rows=[
            (ns, "cart-redis-0"),
            ("kube-system", "aws-node-q8zjk"),
            ("kube-system", "kube-proxy-7tcv2"),
        ],
        events_text=(
            "  Type     Reason          Age                 From            Message\n"
            "  ----     ------          ----                ----            -------\n"
            f"  Warning  KernelMessage   2m (x14 over 40m)   kernel-monitor  kernel: {kern[1]}\n"
            f"  Warning  KernelMessage   2m (x14 over 40m)   kernel-monitor  kernel: {kern[3]}\n"
        ),
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "58m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/cart-api",
                "Scaled up replica set cart-api-6f9d8b7c5 to 3",
            ),
            (
                "58m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/cart-api",
                "Scaled down replica set cart-api-5b8c7d6f9 to 0 from 3",
            ),
        ]
    )
    cp = pods_of(ca)
    evs = [
        *[
            ev(
                "kernel",
                "warn" if i < 3 else "info",
                f"{bad[0]} kernel: {line}",
                **every(start + i, -30, 170),
            )
            for i, line in enumerate(kern)
        ],
        ev(
            "aws-health",
            "warn",
            f"AWS_EC2_DEGRADED_HARDWARE_ISSUE for i-0d3a7c91e5b2f4086 ({bad[0]}): EC2 has detected degradation of the underlying hardware hosting your Amazon EC2 instance. Scheduled retirement 2026-12-21.",
            at=start - 300,
        ),
        ev(
            "cart-api",
            "error",
            "redis: GET cart:{n}: read tcp 10.20.1.57:{n}->172.20.44.30:6379: i/o timeout",
            **every(start + 10, -4, 5),
            pods=cp,
        ),
        ev(
            "cart-api",
            "error",
            "POST /v1/cart/items 503 cart store unavailable after {ms}ms",
            **every(start + 12, -3, 6),
            pods=cp,
        ),
        ev(
            "cart-api",
            "info",
            "cart-api 5.18.0 started (gift cards in cart)",
            at=-3480,
            pods=cp,
        ),
        ev(
            "cart-redis",
            "warn",
            "Background saving started by pid {n}",
            **every(-7000, -60, 900),
        ),
        ev(
            "cart-redis",
            "error",
            "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
            **every(-9400, -9100, 60),
        ),
    ]
    return kube_case(
        seed=305,
        start=start,
        inc=incident(
            "Add to cart failing intermittently",
            "cart",
            start,
            ["'something went wrong' when adding items"],
        ),
        exp=expected(
            "platform",
            [
                f"node/{bad[0]}",
                bad[0],
                "i-0d3a7c91e5b2f4086",
                "ena",
            ],
            sig,
            f"The network adapter of node {bad[0]} (instance i-0d3a7c91e5b2f4086, on hardware AWS reports as degraded) keeps stalling: the ENA driver logs Tx completions that never came, a keep-alive watchdog timeout and a device reset every few minutes. The node stays Ready, but cart-redis-0 runs there, so every cart-api pod (on any node) times out against Redis after each reset and answers 503. cart-api's release, Redis's background saves and the old MISCONF error are not the cause.",
            [
                f"kernel on {bad[0]}: ena eth0: {sig}, Device reset completed",
                "aws-health: degraded underlying hardware for i-0d3a7c91e5b2f4086",
                "cart-api: i/o timeout to cart-redis (172.20.44.30), the only pod on that node",
            ],
            "Cordon and drain the node (move cart-redis-0 to a healthy node) and stop the instance so it lands on new hardware.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "cart-api",
                cp,
                ["GET /v1/cart 200 {ms}ms", "POST /v1/cart/items 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("cart-api", 60, {"503": (0.001, 0.06)}, (0.02, 0.6))],
        books={
            "cart-redis-latency.md": runbook(
                "Cart Redis latency",
                "Redis timeouts from cart-api mean a stale connection pool: restart cart-api (`kubectl rollout restart deployment/cart-api -n cart`) and check SLOWLOG GET 20.",
            )
        },
    )


# =================================================================================================
# 6. Service routing: the storefront chart moved its Ingress from extensions/v1beta1 to
#    networking.k8s.io/v1 and wrote `pathType: Exact` for `/api`. Only the exact path `/api` reaches
#    shop-api; `/api/cart/...` and every other API path fall through to the `/` rule (shop-web, a
#    Next.js front end) which answers 404 HTML. The incident says "mobile app".
# =================================================================================================


@scenario("ingress-pathtype-exact-api")
def ingress_pathtype_exact_api() -> dict[str, Any]:
    start = -1140
    ns = "shop"
    api = app(
        "shop-api",
        image="ghcr.io/quokka-shop/shop-api:9.4.1",
        port=8080,
        rs="7d6c9f8b5",
        cluster_ip="172.20.8.21",
        pods=[
            ("c2vnq", "1/1", "Running", "0", "37m", 0),
            ("k8wrx", "1/1", "Running", "0", "37m", 1),
            ("t5hzm", "1/1", "Running", "0", "37m", 2),
        ],
    )
    web = app(
        "shop-web",
        image="ghcr.io/quokka-shop/shop-web:3.40.0",
        port=3000,
        rs="58b7c9d6f",
        cluster_ip="172.20.8.40",
        pods=[
            ("f9lpd", "1/1", "Running", "0", "11d", 0),
            ("w3ckt", "1/1", "Running", "0", "11d", 2),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [api, web], seed=306)
    sig = "pathType: Exact"
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "storefront",
                "nginx",
                "www.quokka.shop",
                "a41f0c2e9b7d84-1927734561.us-west-2.elb.amazonaws.com",
                "80, 443",
                "540d",
            ],
        ]
    )
    k8s[f"kubectl get ingresses storefront -n {ns} -o yaml"] = (
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n"
        "  annotations:\n    meta.helm.sh/release-name: storefront\n"
        "    nginx.ingress.kubernetes.io/proxy-body-size: 8m\n"
        f"  generation: 14\n  labels:\n    helm.sh/chart: storefront-4.0.0\n  name: storefront\n  namespace: {ns}\n"
        "spec:\n  ingressClassName: nginx\n  rules:\n  - host: www.quokka.shop\n    http:\n      paths:\n"
        "      - backend:\n          service:\n            name: shop-api\n            port:\n              number: 8080\n"
        f"        path: /api\n        {sig}\n"
        "      - backend:\n          service:\n            name: shop-web\n            port:\n              number: 3000\n"
        "        path: /\n        pathType: Prefix\n"
        "  tls:\n  - hosts:\n    - www.quokka.shop\n    secretName: www-quokka-shop-tls\n"
        "status:\n  loadBalancer:\n    ingress:\n    - hostname: a41f0c2e9b7d84-1927734561.us-west-2.elb.amazonaws.com\n"
    )
    k8s[f"kubectl describe ingresses storefront -n {ns}"] = (
        f"Name:             storefront\nLabels:           helm.sh/chart=storefront-4.0.0\nNamespace:        {ns}\n"
        "Address:          a41f0c2e9b7d84-1927734561.us-west-2.elb.amazonaws.com\nIngress Class:    nginx\n"
        "Default backend:  <default>\nTLS:\n  www-quokka-shop-tls terminates www.quokka.shop\nRules:\n"
        "  Host             Path  Backends\n  ----             ----  --------\n  www.quokka.shop  \n"
        "                   /api   shop-api:8080 (10.30.1.57:8080,10.30.2.14:8080,10.30.3.88:8080)\n"
        "                   /      shop-web:3000 (10.30.1.12:3000,10.30.3.9:3000)\n"
        "Annotations:      meta.helm.sh/release-name: storefront\n"
        "Events:\n  Type    Reason  Age   From                      Message\n  ----    ------  ----  ----                      -------\n"
        "  Normal  Sync    19m   nginx-ingress-controller  Scheduled for sync\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "37m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/shop-api",
                "Scaled up replica set shop-api-7d6c9f8b5 to 3",
            ),
            (
                "19m",
                "Normal",
                "Sync",
                "Ingress/storefront",
                "Scheduled for sync",
            ),
        ]
    )
    ap, wp = pods_of(api), pods_of(web)
    evs = [
        ev(
            "gitops",
            "info",
            f"argocd: app storefront synced to chart storefront-4.0.0 (Ingress apiVersion networking.k8s.io/v1; paths[0] {sig}, PR platform#902 'k8s 1.31 readiness: drop v1beta1 APIs')",
            at=start - 15,
        ),
        ev(
            "ingress-nginx",
            "info",
            '10.30.0.17 - - "GET /api/cart/items HTTP/2.0" 404 9421 "-" "QuokkaShop/7.2.0 (iPhone; iOS 18.1)" 61 0.012 [shop-shop-web-3000] [] 10.30.1.12:3000 9421 0.012 404 {n}',
            **every(start, -2, 4),
        ),
        ev(
            "ingress-nginx",
            "info",
            '10.30.0.4 - - "GET /api HTTP/2.0" 200 112 "-" "kube-probe/1.31" 41 0.003 [shop-shop-api-8080] [] 10.30.2.14:8080 112 0.003 200 {n}',
            **every(-7000, -10, 60),
        ),
        ev(
            "shop-web",
            "warn",
            "404 GET /api/cart/items (no page matches; rendering pages/404)",
            **every(start + 1, -2, 5),
            pods=wp,
        ),
        ev(
            "mobile-telemetry",
            "error",
            "CartRepository.load: JSON parse error: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
            **every(start + 20, -5, 9),
        ),
        ev(
            "shop-api",
            "info",
            "shop-api 9.4.1 started (checkout: Apple Pay express)",
            at=-2220,
            pods=ap,
        ),
        ev(
            "shop-api",
            "error",
            "POST /api/orders 500: pq: could not serialize access due to concurrent update",
            **every(-9800, -9300, 90),
            pods=ap,
        ),
    ]
    return kube_case(
        seed=306,
        start=start,
        inc=incident("Mobile app shows empty cart and errors", "mobile app", start),
        exp=expected(
            "connect",
            [
                "ingress/storefront",
                "storefront",
                "storefront ingress",
                "storefront-4.0.0",
            ],
            sig,
            "The storefront chart 4.0.0 moved the Ingress to networking.k8s.io/v1 and declared the /api path with pathType: Exact. ingress-nginx now routes only the literal /api to shop-api (the probe); /api/cart/items and every other API path match the / Prefix rule and go to shop-web, which answers a 404 HTML page. The mobile app cannot parse it. shop-api is healthy (its request rate fell), its release and the old serialization error are not the cause.",
            [
                "kubectl get ingress storefront -o yaml: path /api pathType: Exact",
                "ingress-nginx: GET /api/cart/items 404 upstream [shop-shop-web-3000]",
                "argocd: storefront-4.0.0 synced 19 min ago",
            ],
            "Set pathType: Prefix for /api (or roll the chart back to 3.x) and sync.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "shop-api",
                ap,
                ["GET /api/products/{n} 200 {ms}ms"],
                10,
                until=start,
            )
        ],
        evs=evs,
        services=[
            svc("shop-web", 45, {"404": (0.01, 0.55)}, (0.03, 0.03)),
            svc("shop-api", 60, {"500": (0.001, 0.001)}, (0.05, 0.05)),
        ],
        books={
            "api-errors.md": runbook(
                "Shop API errors",
                "If the app reports API errors after a shop-api release, roll shop-api back: `kubectl rollout undo deployment/shop-api -n shop`.",
            )
        },
    )


# =================================================================================================
# 7. DNS: the platform team brought up a staging cluster (stg-eu-2) and copied production's
#    external-dns values, including `--txt-owner-id=prod-eu-1`, `--policy=sync` and the same zone.
#    The staging external-dns believes it owns production's records and deletes every one that has no
#    Ingress in its cluster; production's external-dns re-creates them a minute later. The public
#    names flap between an answer and NXDOMAIN. The incident says "partner API".
# =================================================================================================


@scenario("external-dns-owner-id-copied-to-staging")
def external_dns_owner_id_copied_to_staging() -> dict[str, Any]:
    start = -2100
    ns = "partner"
    pg = app(
        "partner-gateway",
        image="registry.helio.systems/partner/partner-gateway:2.31.0",
        port=8443,
        rs="6b9f7d8c5",
        cluster_ip="172.20.60.11",
        pods=[
            ("d7nqk", "1/1", "Running", "0", "9d", 0),
            ("s2xmw", "1/1", "Running", "0", "9d", 1),
            ("v8hct", "1/1", "Running", "0", "9d", 2),
        ],
    )
    ed = app(
        "external-dns",
        image="registry.k8s.io/external-dns/external-dns:v0.14.2",
        port=7979,
        rs="7f5c9d6b8",
        cluster_ip="172.20.60.90",
        service=False,
        pods=[("q4lrz", "1/1", "Running", "0", "61d", 1)],
    )
    k8s = namespace(ns, NODES_FRA, [pg], seed=307, extra_namespaces=("external-dns",))
    h10.merge_ns(k8s, namespace("external-dns", NODES_FRA, [ed], seed=317))
    sig = 'msg="Desired change: DELETE api.helio.systems A'
    zone = "[Id: /hostedzone/Z07329141XK2H8QF0A1C]"
    k8s[f"kubectl logs {pod_name(ed, 'q4lrz')} -n external-dns --tail=1000"] = podlog(
        [
            (
                t,
                f'level=info msg="Desired change: CREATE api.helio.systems A {zone}"\n'
                f'level=info msg="Desired change: CREATE a-api.helio.systems TXT {zone}"\n'
                f'level=info msg="2 record(s) in zone helio.systems. {zone} were successfully updated"',
            )
            for t in range(start + 50, -20, 120)
        ]
    )
    k8s[f"kubectl describe ingresses partner-gateway -n {ns}"] = (
        f"Name:             partner-gateway\nLabels:           app=partner-gateway\nNamespace:        {ns}\n"
        "Address:          k8s-partner-4c1d8e2a7b-1186590417.eu-central-1.elb.amazonaws.com\n"
        "Ingress Class:    alb\nDefault backend:  <default>\nRules:\n"
        "  Host              Path  Backends\n  ----              ----  --------\n  api.helio.systems  \n"
        "                    /     partner-gateway:8443 (10.70.1.31:8443,10.70.2.48:8443,10.70.3.12:8443)\n"
        "Annotations:       external-dns.alpha.kubernetes.io/hostname: api.helio.systems\n"
        "Events:            <none>\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "52m",
                "Normal",
                "SuccessfullyReconciled",
                "Ingress/partner-gateway",
                "Successfully reconciled",
            ),
        ]
    )
    evs = [
        ev(
            "terraform",
            "info",
            "apply stg-eu-2: helm_release.external_dns created (values copied from clusters/prod-eu-1/external-dns.yaml: txtOwnerId=prod-eu-1, policy=sync, domainFilters=[helio.systems])",
            at=start - 200,
        ),
        ev(
            "external-dns-stg-eu-2",
            "info",
            f'{sig} {zone}"',
            **every(start, -40, 120),
        ),
        ev(
            "external-dns-stg-eu-2",
            "info",
            f'msg="Desired change: DELETE a-api.helio.systems TXT {zone}"',
            **every(start + 1, -40, 120),
        ),
        ev(
            "partner-gateway",
            "warn",
            "callback to partner failed: dial tcp: lookup hooks.partner-{n}.example: i/o timeout (will retry)",
            **every(-4000, -100, 400),
            pods=pods_of(pg),
        ),
        ev(
            "partner-monitor",
            "error",
            "synthetic GET https://api.helio.systems/v3/health failed: getaddrinfo ENOTFOUND api.helio.systems",
            **every(start + 30, -10, 60),
        ),
        ev(
            "support-desk",
            "warn",
            "ticket #{n} from partner: 'Could not resolve host: api.helio.systems' intermittently since ~35 min",
            **every(start + 600, -200, 500),
        ),
        ev(
            "partner-gateway",
            "info",
            "partner-gateway 2.31.0: TLS policy ELBSecurityPolicy-TLS13-1-2-2021-06 on listener",
            at=-4200,
        ),
        ev(
            "partner-gateway",
            "error",
            "POST /v3/orders 502 upstream order-service reset",
            **every(-9500, -9000, 80),
            pods=pods_of(pg),
        ),
    ]
    return kube_case(
        seed=307,
        start=start,
        inc=incident("Partners cannot reach our API", "partner API", start),
        exp=expected(
            "dns",
            [
                "external-dns-stg-eu-2",
                "external-dns",
                "txtOwnerId=prod-eu-1",
                "api.helio.systems",
                "stg-eu-2",
            ],
            sig,
            "The new staging cluster stg-eu-2 got production's external-dns values, including txtOwnerId=prod-eu-1 and policy=sync on the same zone. Staging's external-dns sees the prod-eu-1 TXT ownership records as its own, finds no Ingress for api.helio.systems in its cluster and deletes the records; production's external-dns re-creates them two minutes later. The public name flaps between an answer and NXDOMAIN, so partners intermittently cannot resolve it. partner-gateway and its Ingress are healthy; its TLS policy change, the partner callback timeouts and the old 502 are not the cause.",
            [
                f"external-dns-stg-eu-2: {sig}",
                "production external-dns: CREATE api.helio.systems A every 2 min",
                "terraform: stg-eu-2 external-dns values copied from prod (txtOwnerId=prod-eu-1)",
            ],
            "Give staging's external-dns its own txtOwnerId (and its own zone or policy=upsert-only); production's instance re-creates the records.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "partner-gateway",
                pods_of(pg),
                ["POST /v3/orders 201 {ms}ms", "GET /v3/orders/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("partner-gateway", 25, {"502": (0.001, 0.001)}, (0.07, 0.07))],
        books={
            "partner-api-down.md": runbook(
                "Partner API unreachable",
                "If partners cannot reach the API, the ALB is usually unhealthy: check the target group's health checks and restart partner-gateway.",
            )
        },
    )


# =================================================================================================
# 8. TLS: cert-manager re-issued the CA of the Vault agent injector's webhook (rotationPolicy Always:
#    a new key) and the injector's serving certificate with it. The webhook's caBundle is injected by
#    cert-manager's cainjector, which a cost clean-up scaled to zero two hours ago; the API server still
#    trusts the old CA and every call to the mutating webhook fails verification. Pods of
#    vault-injected namespaces cannot be created: tonight's refund settlement Job has no pod. The
#    incident says "refunds".
# =================================================================================================


@scenario("webhook-cabundle-stale-cainjector-off")
def webhook_cabundle_stale_cainjector_off() -> dict[str, Any]:
    start = -2700
    ns = "refunds"
    ra = app(
        "refund-api",
        image="registry.lumenpay.io/refunds/refund-api:3.6.2",
        port=8080,
        rs="5d8f7b6c9",
        cluster_ip="172.20.55.8",
        pods=[
            ("b6jxr", "2/2", "Running", "0", "58m", 0),
            ("m1ktw", "2/2", "Running", "0", "58m", 1),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [ra], seed=308)
    job = "refund-settlement-29417760"
    sig = "x509: certificate signed by unknown authority"
    err = (
        'Internal error occurred: failed calling webhook "vault.hashicorp.com": failed to call webhook: Post '
        '"https://vault-agent-injector-svc.vault.svc:443/mutate?timeout=10s": tls: failed to verify certificate: '
        f'{sig} (possibly because of "crypto/rsa: verification error" while trying to verify candidate authority '
        'certificate "vault-injector-ca")'
    )
    k8s[f"kubectl get cronjobs -n {ns}"] = table(
        [
            [
                "NAME",
                "SCHEDULE",
                "TIMEZONE",
                "SUSPEND",
                "ACTIVE",
                "LAST SCHEDULE",
                "AGE",
            ],
            [
                "refund-settlement",
                "0 23 * * *",
                "Europe/Berlin",
                "False",
                "1",
                "45m",
                "210d",
            ],
        ]
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            [job, "Running", "0/1", "45m", "45m"],
            ["refund-settlement-29416320", "Complete", "1/1", "19m", "24h"],
        ]
    )
    k8s[f"kubectl describe jobs {job} -n {ns}"] = (
        f"Name:             {job}\nNamespace:        {ns}\nSelector:         batch.kubernetes.io/controller-uid=8f1d…\n"
        "Labels:           app=refund-settlement\n"
        "Annotations:      batch.kubernetes.io/job-tracking: \n"
        "Controlled By:    CronJob/refund-settlement\nParallelism:      1\nCompletions:      1\n"
        "Completion Mode:  NonIndexed\nBackoff Limit:    3\n"
        "Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 0 Failed\n"
        "Pod Template:\n  Labels:       app=refund-settlement\n"
        "  Annotations:  vault.hashicorp.com/agent-inject: true\n"
        "                vault.hashicorp.com/role: refunds-batch\n"
        "  Containers:\n   settle:\n    Image:      registry.lumenpay.io/refunds/refund-settlement:3.6.2\n"
        "Events:\n  Type     Reason        Age                 From            Message\n"
        "  ----     ------        ----                ----            -------\n"
        f"  Warning  FailedCreate  2m (x24 over 45m)   job-controller  Error creating: {err}\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "45m",
                "Normal",
                "SuccessfulCreate",
                "CronJob/refund-settlement",
                f"Created job {job}",
            ),
            ("2m", "Warning", "FailedCreate", f"Job/{job}", f"Error creating: {err}"),
        ]
    )
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app cert-manager synced (values: cainjector.replicaCount 1 -> 0, PR platform#1177 'trim idle controllers')",
            at=-7000,
        ),
        ev(
            "cert-manager",
            "info",
            'cert-manager/certificates-issuing "Issued certificate" key="vault/vault-injector-ca" (private key regenerated, rotationPolicy=Always)',
            at=start - 600,
        ),
        ev(
            "cert-manager",
            "info",
            'cert-manager/certificates-issuing "Issued certificate" key="vault/vault-agent-injector-tls"',
            at=start - 590,
        ),
        ev(
            "kube-apiserver",
            "warn",
            f'Failed calling webhook, failing closed vault.hashicorp.com: failed calling webhook "vault.hashicorp.com": failed to call webhook: Post "https://vault-agent-injector-svc.vault.svc:443/mutate?timeout=10s": tls: failed to verify certificate: {sig}',
            **every(start, -10, 110),
        ),
        ev(
            "vault-agent-injector",
            "info",
            "http: TLS handshake error from 10.60.0.12:{n}: remote error: tls: bad certificate",
            **every(start, -10, 110),
        ),
        ev(
            "refund-api",
            "warn",
            "GET /v1/refunds/{n} status=pending_settlement age=2{n}s",
            **every(start + 300, -5, 30),
            pods=pods_of(ra),
        ),
        ev(
            "payments-psp",
            "error",
            "Adyen notification HMAC validation failed for pspReference {n}; ignoring",
            **every(-3600, -60, 420),
        ),
        ev(
            "refund-api",
            "info",
            "refund-api 3.6.2 started (partial refunds for bundles)",
            at=-3480,
            pods=pods_of(ra),
        ),
        ev(
            "refund-settlement",
            "error",
            "settlement file upload to SFTP bank.lumenpay.io failed: EOF, retrying",
            **every(-10000, -9500, 120),
        ),
    ]
    return kube_case(
        seed=308,
        start=start,
        inc=incident(
            "Refunds not paid out tonight",
            "refunds",
            start,
            ["customers' refunds stuck in 'pending'"],
        ),
        exp=expected(
            "tls",
            [
                "vault-agent-injector",
                "mutatingwebhookconfiguration/vault-agent-injector-cfg",
                "vault.hashicorp.com",
                "vault-injector-ca",
                "cert-manager-cainjector",
                "cainjector",
            ],
            sig,
            "cert-manager re-issued the vault-injector-ca CA with a new key 55 min ago and the injector's serving certificate with it. The mutating webhook's caBundle should be updated by cert-manager's cainjector, which was scaled to 0 two hours ago; the API server still trusts the old CA and fails every call to the vault.hashicorp.com webhook (x509: certificate signed by unknown authority). The webhook fails closed, so no vault-injected pod can be created: tonight's refund-settlement Job has no pod and refunds stay pending. refund-api is healthy; its release, the Adyen HMAC noise and the old SFTP error are not the cause.",
            [
                f"Job {job}: FailedCreate: failed calling webhook vault.hashicorp.com: {sig}",
                "cert-manager: vault-injector-ca issued with a regenerated key 55 min ago",
                "argocd: cainjector.replicaCount 1 -> 0",
            ],
            "Scale cert-manager's cainjector back to 1 (or patch the webhook's caBundle with the new CA), then re-run the settlement Job.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "refund-api",
                pods_of(ra),
                ["POST /v1/refunds 201 {ms}ms", "GET /v1/refunds/{n} 200 {ms}ms"],
                9,
            )
        ],
        evs=evs,
        services=[svc("refund-api", 8, {"500": (0.001, 0.001)}, (0.06, 0.06))],
        books={
            "refunds-pending.md": runbook(
                "Refunds pending",
                "Refunds stay pending when the bank's SFTP rejects the settlement file: check the SFTP host key and re-upload the file by hand.",
            )
        },
    )


# =================================================================================================
# 9. Third-party rate limiting: support-bot 2.8.0 raised its retrieval depth (RAG_TOP_K 5 -> 40) and
#    each chat turn now sends ~9 000 prompt tokens instead of ~1 200. The request count is unchanged,
#    but the organisation's tokens-per-minute limit for the model is spent by the Monday morning peak
#    and the LLM vendor answers 429. The incident says "help centre chat" (netcheck `http/http_429`).
# =================================================================================================


@scenario("llm-tokens-per-minute-prompt-grew")
def llm_tokens_per_minute_prompt_grew() -> dict[str, Any]:
    start = -1560
    sb = ["support-bot-7c9d5f8b6-2xq4n", "support-bot-7c9d5f8b6-kv7tm"]
    sig = "on tokens per min (TPM)"
    lim = (
        f"Rate limit reached for gpt-4o in organization org-Qh3rT9vKx2Lm {sig}: Limit 800000, Used 797311, "
        "Requested 9204. Please try again in 621ms."
    )
    evs = [
        ev(
            "deploy",
            "info",
            "support-bot 2.8.0 rolled out (changelog: better answers for long policies: RAG_TOP_K 5 -> 40, chunk overlap 64 -> 256)",
            at=-5200,
        ),
        ev(
            "support-bot",
            "info",
            "chat turn {n}: retrieved 40 chunks, prompt_tokens=9{n} completion_tokens=3{n} latency={ms}0ms",
            **every(-5100, -5, 20),
            pods=sb,
        ),
        ev(
            "support-bot",
            "info",
            "chat turn {n}: retrieved 5 chunks, prompt_tokens=1{n} completion_tokens=3{n} latency={ms}0ms",
            **every(-7200, -5220, 30),
            pods=sb,
        ),
        ev(
            "support-bot",
            "error",
            f"openai.RateLimitError: Error code: 429 - {{'error': {{'message': '{lim}', 'type': 'tokens', 'code': 'rate_limit_exceeded'}}}}",
            **every(start, -3, 6),
            pods=sb,
        ),
        ev(
            "help-widget",
            "error",
            "chat session {n}: bot reply failed (HTTP 503 from /api/chat/turn), showing 'Our assistant is unavailable'",
            **every(start + 5, -2, 4),
        ),
        ev(
            "help-widget",
            "info",
            "help-widget 1.19.0 deployed (new launcher icon, dark mode)",
            at=-2700,
        ),
        ev(
            "statuspage",
            "warn",
            "OpenAI status: 'Elevated error rates for gpt-4o-mini in the Batch API' (investigating)",
            at=start + 240,
        ),
        ev(
            "support-bot",
            "error",
            "openai.APIError: Error code: 500 - The server had an error while processing your request.",
            **every(-9800, -9400, 80),
            pods=sb,
        ),
    ]
    spec = simple(
        309,
        start,
        incident("Help centre chat not answering", "help centre chat", start),
        expected(
            "http",
            [
                "support-bot",
                "support-bot 2.8.0",
                "RAG_TOP_K",
                "api.openai.com",
                "gpt-4o TPM limit",
            ],
            sig,
            "support-bot 2.8.0 raised RAG_TOP_K from 5 to 40, so each chat turn sends about 9 000 prompt tokens instead of 1 200. The number of requests did not change, but at the Monday peak the organisation's tokens-per-minute limit for gpt-4o (800 000) is exhausted and OpenAI answers 429 (type tokens); the bot fails and the widget shows 'assistant unavailable'. The gpt-4o-mini Batch API incident, the widget's release and the old 500 are not the cause.",
            [
                f"support-bot: 429 Rate limit reached for gpt-4o {sig}: Limit 800000",
                "prompt_tokens about 1 200 before 2.8.0, about 9 000 after",
                "netcheck openai: http 429",
            ],
            "Set RAG_TOP_K back to 5 (or cap the prompt size), and ask for a higher TPM tier if the larger context is wanted.",
        ),
        [
            bg(
                "support-bot",
                sb,
                ["POST /api/chat/turn 200 {ms}0ms", "GET /healthz 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("support-bot", 12, {"503": (0.002, 0.47)}, (1.6, 1.8))],
        [],
        {
            "assistant-down.md": runbook(
                "Assistant unavailable",
                "When the assistant fails, OpenAI is usually having an incident: check status.openai.com and switch CHAT_PROVIDER to the Azure fallback.",
            )
        },
        ramps=[
            ramp(
                "llm_prompt_tokens_per_minute",
                {"service": "support-bot", "model": "gpt-4o"},
                61000,
                812000,
                -5200,
                start,
            )
        ],
    )
    spec["targets"] = [
        {
            "name": "openai",
            "url": "https://api.openai.com/v1/chat/completions",
            "fault": {
                "kind": "http_status",
                "status": 429,
                "body": '{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM)","type":"tokens","code":"rate_limit_exceeded"}}',
                "headers": {
                    "x-ratelimit-limit-tokens": "800000",
                    "x-ratelimit-remaining-tokens": "0",
                    "retry-after-ms": "621",
                },
            },
        },
        {
            "name": "support-bot",
            "url": "https://support-bot.help.internal/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "openai"
    spec["expected"]["netcheck"] = {
        "openai": {"failed_layer": "http", "reason": "http_429"},
        "support-bot": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 10. Network delay: the storage team started the initial full seed of a new Veeam backup copy job
#     (14 TB from the data centre to S3) at 13:00 over the 1 Gbps Direct Connect that the cloud
#     stock service uses to reach the on-premise ERP database. The link is saturated, RTT goes from
#     3 ms to ~200 ms; queries are fast on the server but slow for the client. The incident says
#     "warehouse scanners".
# =================================================================================================


@scenario("backup-seed-saturates-direct-connect")
def backup_seed_saturates_direct_connect() -> dict[str, Any]:
    start = -3000
    st = ["stock-service-6d9c8b7f5-4wqrn", "stock-service-6d9c8b7f5-tz2xk"]
    sig = "ConnectionBpsEgress 997 Mbps"
    evs = [
        ev(
            "veeam",
            "info",
            "Backup Copy job 'BCJ-S3-archive-dc1' started: initial full (active full seed), 214 VMs, 14.2 TB to repository 'aws-s3-archive-frankfurt' via gateway dc1-vgw-02",
            at=start - 30,
        ),
        ev(
            "veeam",
            "info",
            "BCJ-S3-archive-dc1: processing rate {n} KB/s, bottleneck: Network",
            **every(start + 300, -60, 600),
        ),
        ev(
            "cloudwatch",
            "warn",
            f"ALARM dx-dc1-utilisation: dxcon-fh6ayh1d {sig} (99.7% of 1 Gbps) for 5 datapoints",
            **every(start + 300, -60, 300),
        ),
        ev(
            "stock-service",
            "warn",
            "erp-db query get_stock_levels took 2{n}ms (db execution 4ms, network wait)",
            **every(start + 20, -3, 6),
            pods=st,
        ),
        ev(
            "stock-service",
            "error",
            "GET /v1/stock/{n} 504 timed out after 5000ms waiting for erp-db (10.2.14.21:5432)",
            **every(start + 600, -2, 9),
            pods=st,
        ),
        ev(
            "scanner-gateway",
            "error",
            "handheld HT-{n}: scan confirm timed out (stock-service), user retried",
            **every(start + 300, -2, 5),
        ),
        ev(
            "erp-db",
            "info",
            "LOG:  duration: 3.{n} ms  statement: SELECT sku, bin, qty FROM stock_levels WHERE sku = ANY($1)",
            **every(-7000, -5, 45),
        ),
        ev(
            "stock-service",
            "info",
            "stock-service 4.3.0 started (batch lookups for pick lists)",
            at=-4300,
            pods=st,
        ),
        ev(
            "erp-db",
            "error",
            "ERROR:  deadlock detected DETAIL: Process {n} waits for ShareLock on transaction {n}",
            **every(-9500, -9000, 100),
        ),
    ]
    return simple(
        310,
        start,
        incident(
            "Warehouse scanners timing out",
            "warehouse scanners",
            start,
            ["scans take 10+ seconds"],
        ),
        expected(
            "connect",
            [
                "dxcon-fh6ayh1d",
                "Direct Connect",
                "BCJ-S3-archive-dc1",
                "veeam backup copy job",
            ],
            sig,
            "At 13:00 the Veeam backup copy job BCJ-S3-archive-dc1 began its initial 14 TB seed to S3 over the same 1 Gbps Direct Connect (dxcon-fh6ayh1d) that stock-service uses to reach the on-premise erp-db. The link runs at 997 Mbps, queues fill and the round trip goes from about 3 ms to about 200 ms: erp-db executes the queries in a few ms, but every lookup waits on the network, stock-service times out and the scanners with it. erp-db, stock-service's release and the old deadlock are not the cause.",
            [
                f"cloudwatch: dxcon-fh6ayh1d {sig} since 13:05",
                "veeam: BCJ-S3-archive-dc1 initial seed started 50 min ago, bottleneck Network",
                "stock-service: 2 s queries while erp-db logs 3 ms executions",
            ],
            "Pause or throttle the seed (Veeam network throttling rule, or seed out of hours / by Snowball), and give the backup traffic a lower QoS class than the ERP traffic.",
        ),
        [
            bg(
                "stock-service",
                st,
                ["GET /v1/stock/{n} 200 {ms}ms", "POST /v1/picks 201 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("stock-service", 30, {"504": (0.0, 0.12)}, (0.02, 2.4))],
        [],
        {
            "erp-db-slow.md": runbook(
                "ERP database slow",
                "If stock lookups are slow the ERP database is usually under load: check pg_stat_activity for long queries and ask the DBA to VACUUM ANALYZE stock_levels.",
            )
        },
        ramps=[
            ramp(
                "tcp_rtt_seconds",
                {"service": "stock-service", "peer": "erp-db"},
                0.003,
                0.21,
                start,
                start + 240,
            ),
            ramp(
                "dx_connection_egress_bps",
                {"connection": "dxcon-fh6ayh1d"},
                1.9e8,
                9.97e8,
                start,
                start + 180,
            ),
        ],
    )


# =================================================================================================
# 11. Config change: three weeks ago a DBA attached a "hardened" RDS parameter group to the orders
#     MySQL (sql_mode with STRICT_TRANS_TABLES); the change was pending-reboot. Tonight's maintenance
#     window rebooted the instance (the trigger), strict mode is on, and the order writer's inserts
#     with an empty discount string now fail. The incident says "online orders".
# =================================================================================================


@scenario("rds-parameter-group-strict-mode-on-reboot")
def rds_parameter_group_strict_mode_on_reboot() -> dict[str, Any]:
    start = -1260
    ow = ["order-writer-5b7d9c6f8-9hkt2", "order-writer-5b7d9c6f8-vq3ln"]
    sig = "Incorrect integer value: '' for column 'discount_pct' at row 1"
    evs = [
        ev(
            "aws-rds",
            "info",
            "RDS-EVENT-0012 orders-mysql-prod: Applying modification to database instance parameter group mysql80-hardened (pending-reboot since 2026-11-16)",
            at=start - 140,
        ),
        ev(
            "aws-rds",
            "info",
            "RDS-EVENT-0006 orders-mysql-prod: DB instance restarted (maintenance window sun:23:00-sun:23:30)",
            at=start - 60,
        ),
        ev(
            "orders-mysql",
            "info",
            "[System] [MY-010931] [Server] /rdsdbbin/mysql/bin/mysqld: ready for connections. Version: '8.0.39'  socket: '/tmp/mysql.sock'  port: 3306  Source distribution.",
            at=start - 40,
        ),
        ev(
            "orders-mysql",
            "info",
            "[Note] sql_mode='ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION' (parameter group mysql80-hardened)",
            at=start - 39,
        ),
        ev(
            "order-writer",
            "error",
            f'INSERT INTO order_lines failed: (1366, "{sig}") order={{n}}',
            **every(start, -4, 7),
            pods=ow,
        ),
        ev(
            "storefront",
            "error",
            "POST /checkout/confirm 500 Internal Server Error (order-writer: could not persist order)",
            **every(start + 2, -2, 5),
        ),
        ev(
            "order-writer",
            "warn",
            "mysql connection pool: connection {n} lost (Lost connection to MySQL server during query), reconnecting",
            **every(start - 60, start - 20, 10),
            pods=ow,
        ),
        ev(
            "promo-admin",
            "info",
            "promo-admin 2.4.0 deployed (Black Friday leftovers: percentage coupons editable)",
            at=-3100,
        ),
        ev(
            "order-writer",
            "error",
            "Lock wait timeout exceeded; try restarting transaction (order={n})",
            **every(-9000, -8700, 60),
            pods=ow,
        ),
    ]
    return simple(
        311,
        start,
        incident("Online orders failing at confirmation", "online orders", start),
        expected(
            "application",
            [
                "orders-mysql-prod",
                "mysql80-hardened",
                "sql_mode",
                "STRICT_TRANS_TABLES",
                "order-writer",
            ],
            sig,
            "Three weeks ago the orders MySQL got the parameter group mysql80-hardened, whose sql_mode includes STRICT_TRANS_TABLES; it waited for a reboot. Tonight's maintenance reboot applied it. order-writer inserts an empty string into the integer column discount_pct for lines without a discount, which MySQL used to coerce with a warning and now rejects (error 1366), so every such order fails and the storefront answers 500. The reboot is the trigger; the lost connections during the reboot, promo-admin's release and the old lock wait timeout are not the cause.",
            [
                f'order-writer: (1366, "{sig}")',
                "orders-mysql: sql_mode STRICT_TRANS_TABLES from mysql80-hardened after the reboot",
                "aws-rds: parameter group pending-reboot since 2026-11-16, applied in the maintenance window",
            ],
            "Remove STRICT_TRANS_TABLES from the parameter group's sql_mode (dynamic) until order-writer sends NULL or 0 instead of ''; then fix the writer.",
        ),
        [
            bg(
                "order-writer",
                ow,
                ["order {n} persisted in {ms}ms", "GET /healthz 200 {ms}ms"],
                9,
            )
        ],
        evs,
        [svc("order-writer", 18, {"500": (0.001, 0.64)}, (0.03, 0.03))],
        [],
        {
            "orders-db-restart.md": runbook(
                "After a database restart",
                "After an RDS restart the applications keep dead connections: restart order-writer so its pool reconnects, then check the error rate.",
            )
        },
    )


# =================================================================================================
# 12. Quiet root cause, louder victims: an analyst's psql session on the orders Postgres has been
#     `idle in transaction` for nine days (REPEATABLE READ, opened from a notebook). It holds back
#     the xmin horizon, autovacuum cannot freeze, and the transaction ID age crosses the stop limit:
#     Postgres refuses every command that needs a new XID. Only quiet autovacuum warnings preceded it.
#     The incident says "payments".
# =================================================================================================


@scenario("idle-transaction-xid-wraparound-stop")
def idle_transaction_xid_wraparound_stop() -> dict[str, Any]:
    start = -1500
    sig = 'database is not accepting commands that assign new transaction IDs to avoid wraparound data loss in database "orders"'
    pay = ["payment-service-8c6d7f9b5-2lqzn", "payment-service-8c6d7f9b5-xw8jr"]
    evs = [
        ev(
            "orders-pg",
            "warn",
            'WARNING:  oldest xmin is far in the past\nHINT:  Close open transactions soon to avoid wraparound problems. You might also need to commit or roll back old prepared transactions, or drop stale replication slots.\nCONTEXT:  automatic vacuum of table "orders.public.payment_events"',
            **every(-7200, start, 900),
        ),
        ev(
            "orders-pg",
            "warn",
            'WARNING:  database "orders" must be vacuumed within {n} transactions',
            **every(-3600, start, 300),
        ),
        ev(
            "orders-pg",
            "error",
            f"ERROR:  {sig}\nHINT:  Execute a database-wide VACUUM in that database.",
            **every(start, -2, 5),
        ),
        ev(
            "pg-activity-snapshot",
            "info",
            "pid=48213 usename=bi_reader application_name='jupyter-notebook' state='idle in transaction' xact_start=2026-11-28 09:14:07+00 backend_xmin=1904227113 query='SELECT * FROM payment_events WHERE created_at > now() - interval ''90 days'''",
            **every(-7200, -30, 900),
        ),
        ev(
            "payment-service",
            "error",
            f"POST /v1/payments 500: org.postgresql.util.PSQLException: ERROR: {sig}",
            **every(start, -2, 3),
            pods=pay,
        ),
        ev(
            "webhook-receiver",
            "error",
            "Stripe webhook evt_{n} failed to store: ERROR: database is not accepting commands that assign new transaction IDs",
            **every(start + 5, -3, 6),
        ),
        ev(
            "pgbouncer",
            "warn",
            "S-0x{n}: orders/payments@10.4.2.9:5432 closing because: server conn crashed? (age=0s)",
            **every(-3000, -200, 600),
        ),
        ev(
            "payment-service",
            "info",
            "payment-service 11.2.0 started (3DS2 challenge window size)",
            at=-2400,
            pods=pay,
        ),
        ev(
            "payment-service",
            "error",
            "POST /v1/payments 502 acquirer timeout (Adyen) after 10000ms",
            **every(-9600, -9200, 60),
            pods=pay,
        ),
    ]
    return simple(
        312,
        start,
        incident(
            "Payments failing",
            "payments",
            start,
            ["card payments return 'technical error'"],
        ),
        expected(
            "application",
            [
                "orders-pg",
                "orders",
                "pid 48213",
                "bi_reader",
                "idle in transaction",
            ],
            sig,
            "A bi_reader session (pid 48213, a Jupyter notebook) has been idle in transaction since 28 November and holds the xmin horizon back. Autovacuum could not freeze old rows, warned quietly for days (oldest xmin is far in the past, must be vacuumed within N transactions), and the orders database has now reached the wraparound stop limit: Postgres refuses every command that assigns a transaction ID. payment-service and the webhook receiver fail on every write. payment-service's release, PgBouncer's warnings and the old acquirer timeout are not the cause.",
            [
                f"orders-pg: ERROR: {sig}",
                "orders-pg: WARNING oldest xmin is far in the past for hours",
                "pid=48213 bi_reader state 'idle in transaction' since 2026-11-28",
            ],
            "Terminate pid 48213 (pg_terminate_backend), run VACUUM (FREEZE) on the orders database, and set idle_in_transaction_session_timeout for bi_reader.",
        ),
        [
            bg(
                "payment-service",
                pay,
                ["POST /v1/payments 201 {ms}ms", "GET /v1/payments/{n} 200 {ms}ms"],
                8,
                until=start,
            )
        ],
        evs,
        [svc("payment-service", 50, {"500": (0.001, 0.93)}, (0.09, 0.02))],
        [],
        {
            "payments-db-errors.md": runbook(
                "Payment database errors",
                "If payment writes fail, the primary is usually unhealthy: fail over to the standby with `patronictl failover orders` and restart PgBouncer.",
            )
        },
    )


# =================================================================================================
# 13. Shared back end: ledger-recon 2.0 replaced its per-account Query with a parallel Scan
#     (TotalSegments=32) of the DynamoDB table wallet-balances, which has provisioned capacity
#     (autoscaling already at its 4000 RCU maximum). The scan eats the table's read capacity; the
#     wallet API's GetItem calls are throttled. The incident says "wallet top-ups".
# =================================================================================================


@scenario("dynamodb-parallel-scan-starves-reads")
def dynamodb_parallel_scan_starves_reads() -> dict[str, Any]:
    start = -1740
    wa = [
        "wallet-api-7f8c6d5b9-8nq2w",
        "wallet-api-7f8c6d5b9-hx4ct",
        "wallet-api-7f8c6d5b9-r7mzd",
    ]
    sig = "Scan wallet-balances TotalSegments=32"
    evs = [
        ev(
            "ledger-recon",
            "info",
            f"ledger-recon 2.0.0 run 2026-12-06T23:30Z: {sig} ConsistentRead=true Limit=1000 (was: Query per account)",
            at=start - 10,
        ),
        ev(
            "ledger-recon",
            "info",
            "segment {n}/32: scanned 1000 items, ConsumedCapacity 127.5 RCU, LastEvaluatedKey present",
            **every(start, -5, 8),
        ),
        ev(
            "cloudwatch",
            "warn",
            "ALARM wallet-balances-read-throttles: ReadThrottleEvents {n} > 100 (table wallet-balances, ConsumedReadCapacityUnits 4000 of 4000 provisioned, autoscaling at max)",
            **every(start + 120, -60, 300),
        ),
        ev(
            "wallet-api",
            "error",
            "GetItem wallet-balances failed: ProvisionedThroughputExceededException: The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API. (retries exhausted: 3)",
            **every(start + 30, -2, 3),
            pods=wa,
        ),
        ev(
            "wallet-api",
            "error",
            "POST /v1/topups 503 balance lookup failed after {ms}0ms",
            **every(start + 31, -2, 4),
            pods=wa,
        ),
        ev(
            "card-issuing",
            "warn",
            "Marqeta JIT funding response slow: {ms}0ms (threshold 1500ms)",
            **every(start + 60, -10, 45),
        ),
        ev(
            "wallet-api",
            "info",
            "wallet-api 6.9.1 started (Apple Pay top-up limits)",
            at=-3900,
            pods=wa,
        ),
        ev(
            "wallet-api",
            "error",
            "POST /v1/topups 502 TrueLayer payment initiation failed: 500 Internal Server Error",
            **every(-9900, -9400, 90),
            pods=wa,
        ),
    ]
    return simple(
        313,
        start,
        incident("Wallet top-ups failing", "wallet top-ups", start),
        expected(
            "application",
            [
                "ledger-recon",
                "ledger-recon 2.0.0",
                "wallet-balances",
                "dynamodb table wallet-balances",
            ],
            sig,
            "ledger-recon 2.0.0 started at 23:30 and reads the DynamoDB table wallet-balances with a 32-segment parallel Scan (strongly consistent) instead of per-account Queries. The table has provisioned capacity whose autoscaling is already at its 4000 RCU maximum; the scan consumes it, DynamoDB throttles every reader and wallet-api's GetItem calls fail with ProvisionedThroughputExceededException, so top-ups return 503. wallet-api's release, Marqeta's latency (a victim too) and the old TrueLayer error are not the cause.",
            [
                f"ledger-recon: {sig}, 127.5 RCU per page",
                "cloudwatch: wallet-balances consumed 4000 of 4000 RCU, read throttles",
                "wallet-api: ProvisionedThroughputExceededException since 23:31",
            ],
            "Stop the reconciliation run (or rate-limit its scan / run it on a point-in-time export), then restore Query-based reads; raise the autoscaling maximum if needed.",
        ),
        [
            bg(
                "wallet-api",
                wa,
                ["POST /v1/topups 201 {ms}ms", "GET /v1/balance 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("wallet-api", 70, {"503": (0.001, 0.33)}, (0.03, 0.4))],
        [],
        {
            "wallet-topups.md": runbook(
                "Top-up failures",
                "Top-up failures are usually the open-banking provider: check TrueLayer's status page and switch top-ups to card-only in the admin.",
            )
        },
        ramps=[
            ramp(
                "dynamodb_consumed_read_capacity_units",
                {"table": "wallet-balances"},
                1450,
                4000,
                start,
                start + 120,
            )
        ],
    )


# =================================================================================================
# 14. Performance: booking-api 6.1.0 (Django, gunicorn sync workers) ships its logs straight to the
#     vendor's HTTP intake with a synchronous logging handler instead of through the node agent.
#     Every log record is an HTTPS POST inside the request; a request logs 8-12 records. No errors at
#     first, then worker timeouts at peak. The incident says "bookings" (slow).
# =================================================================================================


@scenario("synchronous-http-log-handler")
def synchronous_http_log_handler() -> dict[str, Any]:
    start = -2880
    bk = [
        "booking-api-6c9b8d7f5-5pnvx",
        "booking-api-6c9b8d7f5-jq2mt",
        "booking-api-6c9b8d7f5-z8wrc",
    ]
    sig = "DatadogHTTPHandler.emit"
    evs = [
        ev(
            "booking-api",
            "info",
            "booking-api 6.1.0 starting: LOGGING handlers=['console', 'datadog_http'] (datadog_http: ddlogs.DatadogHTTPHandler url=https://http-intake.logs.datadoghq.eu/api/v2/logs batch=False)",
            at=start - 5,
            pods=bk,
        ),
        ev(
            "booking-api",
            "warn",
            "slow request: POST /api/bookings took {ms}00ms (db 41ms, 11 log records)",
            **every(start + 30, -5, 12),
            pods=bk,
        ),
        ev(
            "booking-api",
            "info",
            f"py-spy dump pid 14 (gunicorn worker): Thread 0x7f3a (active): 'MainThread' read (ssl.py:1134) <- getresponse (http/client.py:1428) <- urlopen (urllib/request.py:216) <- {sig} (ddlogs/handler.py:88) <- handle (logging/__init__.py:978) <- create_booking (bookings/views.py:212)",
            at=-900,
            pods=bk,
        ),
        ev(
            "booking-api",
            "error",
            "[CRITICAL] WORKER TIMEOUT (pid:{n})",
            **every(-1200, -10, 60),
            pods=bk,
        ),
        ev(
            "nginx",
            "error",
            'upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.9.0.14, server: api.bookwell.eu, request: "POST /api/bookings HTTP/1.1", upstream: "http://10.9.3.22:8000/api/bookings"',
            **every(-1150, -5, 20),
        ),
        ev(
            "bookings-db",
            "info",
            "LOG:  duration: 1{n}.2 ms  statement: SELECT ... FROM availability WHERE resource_id = $1 FOR UPDATE",
            **every(-7000, -10, 120),
        ),
        ev(
            "cdn",
            "warn",
            "Fastly: origin shield FRA 5xx ratio 0.{n}% on static.bookwell.eu",
            **every(-4000, -300, 600),
        ),
        ev(
            "booking-api",
            "error",
            "MemoryError in worker pid {n} (report export of 2.1M rows)",
            **every(-9900, -9600, 100),
            pods=bk,
        ),
    ]
    return simple(
        314,
        start,
        incident(
            "Bookings are slow",
            "bookings",
            start,
            ["booking confirmation takes 5-10 s"],
        ),
        expected(
            "application",
            [
                "booking-api",
                "booking-api 6.1.0",
                "datadog_http",
                "DatadogHTTPHandler",
                "logging handler",
            ],
            sig,
            "booking-api 6.1.0 added a logging handler that posts every log record synchronously (batch=False) to Datadog's HTTP intake. A booking request logs about 11 records, so each request waits for 11 HTTPS round trips to the EU intake inside the gunicorn worker; latency grows from about 150 ms to seconds, and at peak the sync workers time out (WORKER TIMEOUT) and nginx times out. py-spy shows the workers in DatadogHTTPHandler.emit. The database (about 10 ms), the CDN's 5xx noise and the old MemoryError are not the cause.",
            [
                f"py-spy: worker blocked in {sig} <- create_booking",
                "booking-api 6.1.0: LOGGING handler datadog_http batch=False",
                "slow requests: db 41ms of several seconds, 11 log records",
            ],
            "Remove the datadog_http handler (log to stdout and let the node agent ship), or use a queue / batching handler; roll back to 6.0.x meanwhile.",
        ),
        [
            bg(
                "booking-api",
                bk,
                ["POST /api/bookings 201 {ms}0ms", "GET /api/availability 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("booking-api", 22, {"504": (0.0, 0.05)}, (0.15, 3.2))],
        [],
        {
            "bookings-slow.md": runbook(
                "Slow bookings",
                "Slow bookings come from lock contention on availability: look for long FOR UPDATE waits in bookings-db and scale booking-api to more workers.",
            )
        },
    )


# =================================================================================================
# 15. DNS: the static-asset domain brightcart-static.com (images, the checkout JavaScript bundle)
#     was not renewed: the registrar's auto-renewal failed on an expired company card, the grace
#     period ended and the registry put the domain on clientHold. Its delegation is gone; resolvers
#     answer NXDOMAIN as their caches expire. The incident says "website" (netcheck `dns/nxdomain`).
# =================================================================================================


@scenario("asset-domain-registration-lapsed")
def asset_domain_registration_lapsed() -> dict[str, Any]:
    start = -2220
    sig = "Domain Status: clientHold"
    evs = [
        ev(
            "registrar-mail",
            "warn",
            "Gandi: Automatic renewal of brightcart-static.com failed: payment card ending 4417 declined (expired). The domain expired on 2026-11-06; redemption starts after the grace period.",
            at=-7100,
        ),
        ev(
            "domain-watch",
            "error",
            f"whois brightcart-static.com: Registry Expiry Date: 2026-11-06T10:22:31Z; {sig} https://icann.org/epp#clientHold",
            **every(start + 60, -60, 900),
        ),
        ev(
            "domain-watch",
            "info",
            "whois brightcart-static.com: Registry Expiry Date: 2026-11-06T10:22:31Z; Domain Status: autoRenewPeriod",
            at=-6900,
        ),
        ev(
            "web-rum",
            "error",
            "GET https://assets.brightcart-static.com/checkout/app.8f3c1e.js net::ERR_NAME_NOT_RESOLVED (page /checkout, ua Chrome 131)",
            **every(start + 200, -2, 3),
        ),
        ev(
            "web-rum",
            "error",
            "Uncaught ReferenceError: CheckoutApp is not defined at /checkout:212",
            **every(start + 210, -2, 4),
        ),
        ev(
            "storefront-web",
            "info",
            "storefront-web 14.2.0 deployed; Fastly purge-all requested for www.brightcart.com",
            at=-3300,
        ),
        ev(
            "fastly",
            "info",
            "service www.brightcart.com: purge_all completed in 1{n}ms",
            at=-3290,
        ),
        ev(
            "storefront-web",
            "error",
            "Fastly 503 first byte timeout from origin storefront-web (backend pool draining)",
            **every(-9600, -9200, 70),
        ),
    ]
    spec = simple(
        315,
        start,
        incident(
            "Website broken: no images, checkout button does nothing",
            "website",
            start,
            ["pictures missing on product pages"],
        ),
        expected(
            "dns",
            [
                "brightcart-static.com",
                "assets.brightcart-static.com",
                "brightcart-static.com registration",
                "gandi",
            ],
            sig,
            "The domain brightcart-static.com, which serves the site's images and the checkout bundle from assets.brightcart-static.com, expired on 6 November; the registrar's auto-renewal failed on an expired card, the grace period ended and the registry put the domain on clientHold. The delegation is withdrawn, and as resolver caches expire browsers get NXDOMAIN (ERR_NAME_NOT_RESOLVED): no images and no checkout script. storefront-web's release and its CDN purge (they happened first and look like the trigger), and the old Fastly 503 are not the cause.",
            [
                f"domain-watch: whois brightcart-static.com {sig}",
                "registrar: auto-renewal failed, card declined",
                "netcheck assets: dns nxdomain",
            ],
            "Renew the domain (update the payment method) so the registry lifts clientHold; move assets to a domain that is on auto-renew with a working card.",
        ),
        [
            bg(
                "storefront-web",
                ["storefront-web-5d7c9b8f6-4mkxq", "storefront-web-5d7c9b8f6-tr9vw"],
                ["GET /p/{n} 200 {ms}ms", "GET /checkout 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("storefront-web", 90, {"500": (0.001, 0.001)}, (0.05, 0.05))],
        [],
        {
            "website-broken.md": runbook(
                "Website broken after a release",
                "If pages render without images or scripts after a release, the CDN is serving a bad cache: purge Fastly again and roll storefront-web back.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "assets",
            "url": "https://assets.brightcart-static.com/checkout/app.8f3c1e.js",
            "fault": {"kind": "dns_nxdomain"},
        },
        {
            "name": "www",
            "url": "https://www.brightcart.com/",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "assets"
    spec["expected"]["netcheck"] = {
        "assets": {"failed_layer": "dns", "reason": "nxdomain"},
        "www": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 16. TLS: the tax vendor moved api.taxbridge.io to certificates chained to a newer root
#     (Sectigo Public Server Authentication Root R46). A current trust store has it; the billing
#     service still runs on a 2018 JRE base image whose cacerts does not, so its calls fail PKIX path
#     building. The vendor looks healthy from anywhere else (netcheck passes). The incident says
#     "checkout" (US orders need tax quotes).
# =================================================================================================


@scenario("jre-cacerts-missing-new-vendor-root")
def jre_cacerts_missing_new_vendor_root() -> dict[str, Any]:
    start = -1380
    bs = ["tax-quoter-7b6d9c8f5-6xk2p", "tax-quoter-7b6d9c8f5-qm4vd"]
    sig = "unable to find valid certification path to requested target"
    evs = [
        ev(
            "vendor-mail",
            "info",
            "TaxBridge notice: on 2026-12-06 23:00 UTC api.taxbridge.io switches to certificates issued under Sectigo Public Server Authentication Root R46. Clients with an up-to-date trust store need no action.",
            at=-7000,
        ),
        ev(
            "tax-quoter",
            "info",
            "tax-quoter 1.42.3 on java.runtime.version=1.8.0_181-b13 (image openjdk:8u181-jre-alpine), javax.net.ssl.trustStore=<default cacerts>",
            at=-6800,
            pods=bs,
        ),
        ev(
            "tax-quoter",
            "error",
            f"POST https://api.taxbridge.io/v2/quote failed: javax.net.ssl.SSLHandshakeException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: {sig}",
            **every(start, -3, 4),
            pods=bs,
        ),
        ev(
            "checkout-api",
            "error",
            "POST /checkout/quote 502 tax quote unavailable for ship-to US (tax-quoter 502)",
            **every(start + 2, -2, 3),
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 22.7.0 ready (US state sales tax display)",
            at=-2600,
        ),
        ev(
            "fraud-screen",
            "warn",
            "Signifyd decision latency {ms}0ms > 800ms SLO",
            **every(-3600, -100, 300),
        ),
        ev(
            "tax-quoter",
            "error",
            "POST https://api.taxbridge.io/v2/quote failed: 503 Service Unavailable (vendor maintenance)",
            **every(-10000, -9500, 100),
            pods=bs,
        ),
    ]
    spec = simple(
        316,
        start,
        incident("Checkout broken for US customers", "checkout", start),
        expected(
            "tls",
            [
                "tax-quoter",
                "openjdk:8u181-jre-alpine",
                "cacerts",
                "tax-quoter trust store",
            ],
            sig,
            "At 23:00 the tax vendor TaxBridge switched api.taxbridge.io to a chain under Sectigo Public Server Authentication Root R46, as announced. tax-quoter runs on a 2018 JRE (1.8.0_181) whose default cacerts does not contain that root, so every TLS handshake fails PKIX path building and US checkout has no tax quote (502). The vendor's certificate is valid for current trust stores (netcheck passes), so the fault is our trust store. checkout-api's release, Signifyd's latency and the old vendor 503 are not the cause.",
            [
                f"tax-quoter: SSLHandshakeException: PKIX path building failed: {sig}",
                "tax-quoter on java 1.8.0_181, default cacerts",
                "TaxBridge: new root Sectigo R46 from 23:00; netcheck taxbridge: ok",
            ],
            "Rebuild tax-quoter on a current JRE (or add the Sectigo R46 root to its trust store) and redeploy.",
        ),
        [
            bg(
                "tax-quoter",
                bs,
                ["POST /quote 200 {ms}ms"],
                10,
                until=start,
            )
        ],
        evs,
        [svc("checkout-api", 40, {"502": (0.001, 0.31)}, (0.2, 0.2))],
        [],
        {
            "tax-vendor-down.md": runbook(
                "Tax vendor outage",
                "If tax quotes fail the vendor is down: check status.taxbridge.io and enable TAX_FALLBACK=flat-rate in checkout-api.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "taxbridge",
            "url": "https://api.taxbridge.io/v2/quote",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["netcheck"] = {
        "taxbridge": {"failed_layer": "none", "reason": None},
    }
    return spec


# The Kubernetes lifecycle stage and reason of the Kubernetes cases whose fault has one (as the
# bundled k8s-* scenarios' expected.json); the DNS and TLS cases have none.
STAGES: dict[str, tuple[str, str]] = {
    "registry-policy-denies-sidecar-image": ("admission", "FailedCreate"),
    "ephemeral-storage-request-typo": ("scheduling", "FailedScheduling"),
    "flyway-checksum-mismatch-recreate": ("startup", "CrashLoopBackOff"),
    "headless-chrome-dev-shm-64m": ("runtime", "CrashLoopBackOff"),
    "node-ena-resets-degraded-host": ("infrastructure", "NodeNetworkDegraded"),
    "ingress-pathtype-exact-api": ("service_routing", "IngressPathMismatch"),
}


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        if slug in STAGES:
            stage, reason = STAGES[slug]
            spec["expected"]["root_cause_stage"] = stage
            spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
