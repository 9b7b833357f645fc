"""Writes the twenty-first held-out scenario set, bench/heldout21: `python bench/heldout21/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout20. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout20/_build.py's preamble and through it heldout15's helpers (and the earlier
builders'), each scenario with a fixed seed (529-544). The author read neither the planner
(`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any
score file. Stdlib only.
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


h20 = _load("heldout20_build", HERE.parent / "heldout20" / "_build.py")
h15 = h20.h15
base = h20.base

events = base.events
runbook = base.runbook
app = h20.app
pod_name = h20.pod_name
namespace = h20.namespace
ev = h20.ev
bg = h20.bg
incident = h20.incident
expected = h20.expected
simple = h20.simple
container_text = h20.container_text
deployment_describe = h20.deployment_describe
describe_pod = h20.describe_pod
podlog = h20.podlog
running = h20.running
crashloop = h20.crashloop
pending_pod = h20.pending_pod
replicaset_describe = h20.replicaset_describe
sched = h20.sched
kube_case = h20.kube_case
pods_of = h20.pods_of
svc = h20.svc
every = h20.every
backoff_rows = h20.backoff_rows
gauge = h20.gauge
with_netcheck = h20.with_netcheck
waiting = h20.waiting
NODES_FRA = h20.NODES_FRA
NODES_IAD = h20.NODES_IAD
NODES_DUB = h20.NODES_DUB
NODES_PDX = h20.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def failed_create(ns: str, a: dict[str, Any], message: str, count: str) -> str:
    """A ReplicaSet that cannot create its pods (admission refused), in describe layout."""
    rs = f"{a['name']}-{a['rs']}"
    cont = container_text(a["name"], a["image"], a["port"])
    running_n = sum(1 for p in a["pods"] if p[2] == "Running")
    return replicaset_describe(
        rs,
        ns,
        deployment=a["name"],
        revision=12,
        desired=a["desired"],
        current=running_n,
        status=f"{running_n} Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=[
            ("Warning", "FailedCreate", count, "replicaset-controller", message)
        ],
    )


# =================================================================================================
# 1. Admission (ResourceQuota): the catalog namespace has ResourceQuota `catalog-quota`
#    (requests.cpu: 16). Every pull request of catalog-api gets a preview Deployment
#    `catalog-api-pr-<n>` in the same namespace; the GitHub Actions workflow `preview-cleanup`
#    fails since its token expired on Friday, so eleven previews (1 CPU each) stay. At the lunch
#    peak the HPA asks for 8 catalog-api pods and the ReplicaSet cannot create the new ones: the
#    four running pods saturate, product pages are slow. The incident says "product pages".
# =================================================================================================


@scenario("preview-envs-fill-namespace-quota")
def preview_envs_fill_namespace_quota() -> dict[str, Any]:
    start = -1800
    ns = "catalog"
    ca = app(
        "catalog-api",
        image="ghcr.io/lindqvist-home/catalog-api:2026.12.3",
        port=8080,
        rs="6b9f7d8c54",
        cluster_ip="10.100.44.12",
        desired=8,
        pods=[
            ("f4kzq", "1/1", "Running", "0", "3d", 0),
            ("m8rtw", "1/1", "Running", "0", "3d", 1),
            ("p2xvn", "1/1", "Running", "0", "3d", 2),
            ("w9cjd", "1/1", "Running", "0", "3d", 0),
        ],
    )
    previews = [
        app(
            f"catalog-api-pr-{n}",
            image=f"ghcr.io/lindqvist-home/catalog-api:pr-{n}",
            port=8080,
            rs=f"{7 + i % 2}c{i}d5f9b{i}",
            cluster_ip=f"10.100.44.{60 + i}",
            age=f"{3 + i}d",
            pods=[(f"q{i}z7k", "1/1", "Running", "0", f"{3 + i}d", i % 3)],
        )
        for i, n in enumerate(
            (1831, 1835, 1836, 1840, 1842, 1844, 1847, 1849, 1850, 1853, 1855)
        )
    ]
    web = app(
        "storefront-web",
        image="ghcr.io/lindqvist-home/storefront-web:5.22.0",
        port=3000,
        rs="58d7c6b9f4",
        cluster_ip="10.100.44.5",
        pods=[
            ("b7hgl", "1/1", "Running", "0", "52m", 1),
            ("r3ksn", "1/1", "Running", "0", "52m", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [ca, web, *previews], seed=529)
    sig = (
        'Error creating: pods "catalog-api-6b9f7d8c54-x5v2m" is forbidden: exceeded quota: '
        "catalog-quota, requested: requests.cpu=1, used: requests.cpu=16, limited: requests.cpu=16"
    )
    k8s[f"kubectl describe replicasets catalog-api-{ca['rs']} -n {ns}"] = failed_create(
        ns, ca, sig, "41s (x27 over 26m)"
    )
    k8s[f"kubectl describe resourcequotas -n {ns}"] = (
        "Name:            catalog-quota\nNamespace:       catalog\n"
        "Resource         Used   Hard\n--------         ----   ----\n"
        "limits.memory    46Gi   64Gi\npods             17     40\n"
        "requests.cpu     16     16\nrequests.memory  23Gi   32Gi\n"
    )
    k8s[f"kubectl get resourcequotas -n {ns}"] = (
        "NAME            AGE    REQUEST                                                          LIMIT\n"
        "catalog-quota   412d   pods: 17/40, requests.cpu: 16/16, requests.memory: 23Gi/32Gi   limits.memory: 46Gi/64Gi\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "26m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/catalog-api",
                "New size: 8; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "41s",
                "Warning",
                "FailedCreate",
                f"ReplicaSet/catalog-api-{ca['rs']}",
                sig,
            ),
            (
                "52m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/storefront-web",
                "Scaled up replica set storefront-web-58d7c6b9f4 to 2",
            ),
        ]
    )
    k8s[f"kubectl describe deployments catalog-api -n {ns}"] = deployment_describe(
        "catalog-api",
        ns,
        replicas="8 desired | 4 updated | 4 total | 4 available | 4 unavailable",
        revision=212,
        containers=container_text(
            "catalog-api",
            ca["image"],
            8080,
            requests="cpu:      1\n  memory:   1536Mi",
            limits="memory:  3Gi",
        ),
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "True", "MinimumReplicasAvailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
        ],
        old_rs="<none>",
        new_rs=f"catalog-api-{ca['rs']} (4/8 replicas created)",
    )
    evs = [
        ev(
            "github-actions",
            "error",
            "preview-cleanup #{n} (pull_request: closed): Run kubectl delete deployment,service catalog-api-pr-${PR} -n catalog -> error: You must be logged in to the server (the server has asked for the client to provide credentials): token for github-preview-bot expired 2026-12-04T18:00:00Z",
            **every(-260000, -4000, 14400),
        ),
        ev(
            "storefront-web",
            "warn",
            '{"level":"warn","msg":"upstream slow","upstream":"catalog-api","route":"/p/:slug","duration_ms":{n}}',
            **every(start + 60, -5, 12),
            pods=pods_of(web),
        ),
        ev(
            "storefront-web",
            "info",
            '{"level":"info","msg":"storefront-web 5.22.0 started (new PDP image carousel)"}',
            at=-3100,
            pods=pods_of(web),
        ),
        ev(
            "catalog-api",
            "warn",
            "2026-12-07 12:{n} WARN  [http-nio-8080-exec-{ms}] c.l.catalog.web.RequestTimer : GET /v3/products/{n} took {n}ms (threshold 800ms)",
            **every(start + 90, -5, 15),
            pods=pods_of(ca),
        ),
        ev(
            "catalog-api",
            "error",
            "2026-12-07 09:{n} ERROR [pool-3-thread-1] c.l.catalog.search.Indexer : OpenSearch bulk failed: 429 Too Many Requests",
            **every(-10500, -9900, 150),
            pods=pods_of(ca),
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f'I1207 12:{{n}}.{{ms}}       1 replica_set.go:575] "Unhandled Error" err="{sig}" logger="UnhandledError"',
            **every(start + 30, -30, 60),
        ),
    ]
    return kube_case(
        seed=529,
        start=start,
        inc=incident("Product pages very slow", "product pages", start),
        exp=expected(
            "platform",
            [
                "resourcequota/catalog-quota",
                "catalog-quota",
                "catalog-api-pr-*",
                "preview deployments",
                "preview-cleanup",
                "deployment/catalog-api",
            ],
            sig,
            "The catalog namespace's ResourceQuota catalog-quota (requests.cpu 16) is full: eleven preview Deployments catalog-api-pr-* (1 CPU each) stay because the preview-cleanup workflow fails since its token expired. At the lunch peak the HPA wants 8 catalog-api pods and the ReplicaSet cannot create any new one (exceeded quota), so four pods carry the load and product pages are slow. storefront-web's warnings and release and the old OpenSearch 429s are not the cause.",
            [
                "ReplicaSet catalog-api: FailedCreate exceeded quota: catalog-quota",
                "resourcequota catalog-quota requests.cpu 16/16",
                "github-actions preview-cleanup: token expired",
            ],
            "Delete the stale catalog-api-pr-* previews (and renew the preview bot's token), then consider a separate namespace for previews.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "storefront-web",
                pods_of(web),
                ['{"level":"info","msg":"GET /p/{n} 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("catalog-api", 60, {"500": (0.001, 0.001)}, (0.08, 1.4)),
            svc("storefront-web", 90, {"500": (0.001, 0.004)}, (0.2, 1.9)),
        ],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "catalog-api", "namespace": ns},
                4,
                4,
                start,
            )
        ],
        books={
            "product-pages-slow.md": runbook(
                "Product pages slow",
                "Slow PDPs are almost always the image carousel or the CDN. Purge the CDN for /p/*, and if storefront-web's p95 is above 1.5 s roll storefront-web back one release.",
            )
        },
    )


# =================================================================================================
# 2. Admission (LimitRange): the pricing namespace has LimitRange `pricing-limits` with
#    maxLimitRequestRatio cpu: 4 (set two years ago against noisy neighbours). Yesterday the mesh
#    team onboarded the namespace (label istio-injection=enabled, MESH-88); the mesh-wide injector
#    values give istio-proxy requests cpu 10m and limits cpu 2, ratio 200. Running pods were created
#    before; this morning's quote-engine release creates pods that the LimitRange refuses. The
#    rollout stalls with one old pod left (maxUnavailable). The incident says "insurance quotes".
# =================================================================================================


@scenario("limitrange-ratio-rejects-injected-sidecar")
def limitrange_ratio_rejects_injected_sidecar() -> dict[str, Any]:
    start = -1400
    ns = "pricing"
    qe = app(
        "quote-engine",
        image="registry.halden-forsikring.example/pricing/quote-engine:8.4.0",
        port=8080,
        rs="7d9c6b5f48",
        cluster_ip="10.96.120.40",
        desired=3,
        pods=[],
    )
    old = app(
        "quote-engine",
        image="registry.halden-forsikring.example/pricing/quote-engine:8.3.2",
        port=8080,
        rs="5f8b9c7d66",
        cluster_ip="10.96.120.40",
        service=False,
        pods=[("h6tqx", "1/1", "Running", "0", "21d", 1)],
    )
    portal = app(
        "broker-portal",
        image="registry.halden-forsikring.example/web/broker-portal:3.30.1",
        port=8080,
        rs="6c8d7f9b45",
        cluster_ip="10.96.120.8",
        pods=[
            ("k2vbn", "2/2", "Running", "0", "19h", 0),
            ("s7qwe", "2/2", "Running", "0", "19h", 2),
        ],
    )
    old["service"] = True
    old["desired"] = 3
    old["extra_rs"] = [
        (
            f"quote-engine-{qe['rs']}",
            "1",
            "0",
            "0",
            "23m",
            "quote-engine",
            qe["image"],
            f"app=quote-engine,pod-template-hash={qe['rs']}",
        )
    ]
    k8s = namespace(ns, NODES_FRA, [old, portal], seed=530)
    key = f"kubectl get deployments -n {ns} -o wide"
    k8s[key] = k8s[key].replace("quote-engine:8.3.2", "quote-engine:8.4.0")
    sig = (
        'Error creating: pods "quote-engine-7d9c6b5f48-8r2nd" is forbidden: '
        "cpu max limit to request ratio per Container is 4, but provided ratio is 200.000000"
    )
    k8s[f"kubectl describe replicasets quote-engine-{qe['rs']} -n {ns}"] = (
        failed_create(ns, qe, sig, "2m (x19 over 23m)")
    )
    k8s[f"kubectl describe limitranges -n {ns}"] = (
        "Name:       pricing-limits\nNamespace:  pricing\n"
        "Type        Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio\n"
        "----        --------  ---  ---  ---------------  -------------  -----------------------\n"
        "Container   cpu       -    4    250m             1              4\n"
        "Container   memory    -    8Gi  256Mi            512Mi          -\n"
    )
    k8s[f"kubectl get limitranges -n {ns}"] = (
        "NAME             CREATED AT\npricing-limits   2024-11-02T09:14:51Z\n"
    )
    k8s["kubectl get namespaces --show-labels"] = (
        "NAME              STATUS   AGE    LABELS\n"
        "default           Active   3y     kubernetes.io/metadata.name=default\n"
        "istio-system      Active   2y     kubernetes.io/metadata.name=istio-system\n"
        "kube-system       Active   3y     kubernetes.io/metadata.name=kube-system\n"
        "pricing           Active   2y     istio-injection=enabled,kubernetes.io/metadata.name=pricing,team=pricing\n"
    )
    k8s[f"kubectl describe deployments quote-engine -n {ns}"] = deployment_describe(
        "quote-engine",
        ns,
        replicas="3 desired | 0 updated | 1 total | 1 available | 2 unavailable",
        revision=58,
        containers=container_text(
            "quote-engine",
            qe["image"],
            8080,
            limits="cpu:     2\n  memory:  2Gi",
            requests="cpu:      1\n  memory:   2Gi",
        ),
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
            ("ReplicaFailure", "True", "FailedCreate"),
        ],
        old_rs="quote-engine-5f8b9c7d66 (1/1 replicas created)",
        new_rs=f"quote-engine-{qe['rs']} (0/1 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "23m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/quote-engine",
                f"Scaled up replica set quote-engine-{qe['rs']} to 1",
            ),
            (
                "23m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/quote-engine",
                "Scaled down replica set quote-engine-5f8b9c7d66 to 1 from 3",
            ),
            (
                "2m",
                "Warning",
                "FailedCreate",
                f"ReplicaSet/quote-engine-{qe['rs']}",
                sig,
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            'time="2026-12-06T15:{n}Z" level=info msg="Applying resource Namespace/pricing (label istio-injection=enabled) in cluster prod-fra, sync of application mesh-onboarding, ticket MESH-88" application=argocd/mesh-onboarding',
            at=-72000,
        ),
        ev(
            "argocd",
            "info",
            'time="2026-12-07T10:{n}Z" level=info msg="Updated sync status: OutOfSync -> Synced, image quote-engine:8.4.0" application=argocd/quote-engine',
            at=start - 20,
        ),
        ev(
            "broker-portal",
            "error",
            "2026-12-07 10:{n}:{ms} ERROR [quote-ws-{ms}] n.h.portal.QuoteClient - POST http://quote-engine.pricing:8080/v2/quotes failed: 503 upstream connect error or disconnect/reset before headers. reset reason: overflow",
            **every(start + 90, -5, 9),
            pods=pods_of(portal),
        ),
        ev(
            "quote-engine",
            "warn",
            "2026-12-07 10:{n}:{ms} WARN  [rating-pool] n.h.pricing.RatingService - rating queue depth {n} above 200, shedding load",
            **every(start + 60, -5, 20),
            pods=[pod_name(old, "h6tqx")],
        ),
        ev(
            "broker-portal",
            "info",
            '{"level":"info","msg":"broker-portal 3.30.1 rolled out: new vehicle form"}',
            at=-68000,
            pods=pods_of(portal),
        ),
        ev(
            "quote-engine",
            "error",
            "2026-12-07 07:{n}:{ms} ERROR [kafka-consumer-1] n.h.pricing.TariffSync - commit failed: RebalanceInProgressException",
            **every(-10600, -10000, 120),
            pods=[pod_name(old, "h6tqx")],
        ),
    ]
    return kube_case(
        seed=530,
        start=start,
        inc=incident("Brokers can't get insurance quotes", "insurance quotes", start),
        exp=expected(
            "platform",
            [
                "limitrange/pricing-limits",
                "pricing-limits",
                "istio-proxy",
                "sidecar injection",
                "deployment/quote-engine",
                "quote-engine",
            ],
            sig,
            "The pricing namespace was onboarded to the mesh yesterday (istio-injection=enabled). The injected istio-proxy sidecar requests 10m CPU with a 2 CPU limit, a ratio of 200, and the namespace's LimitRange pricing-limits allows at most 4. Pods created since then are refused at admission: quote-engine 8.4.0's ReplicaSet cannot create a pod and the rollout stalls with one old pod, which sheds load. broker-portal's 503s, the release itself and the old Kafka rebalances are not the cause.",
            [
                f"ReplicaSet quote-engine-{qe['rs']}: FailedCreate {sig}",
                "limitrange pricing-limits: Max Limit/Request Ratio cpu 4",
                "argocd: Namespace/pricing labelled istio-injection=enabled (MESH-88)",
            ],
            "Set the sidecar's resources for the namespace (sidecar.istio.io/proxyCPU / proxyCPULimit annotations with a ratio below 4) or relax the LimitRange's ratio; the ReplicaSet then creates its pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "broker-portal",
                pods_of(portal),
                [
                    "2026-12-07 10:{n}:{ms} INFO  [http-{ms}] n.h.portal.Access - GET /quotes/{n} 200 {ms}ms"
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("broker-portal", 25, {"503": (0.0, 0.35)}, (0.3, 2.2)),
            svc("quote-engine", 25, {"503": (0.0, 0.3)}, (0.25, 1.8)),
        ],
        books={
            "quotes-failing.md": runbook(
                "Quote requests failing",
                "Quote failures during the day usually mean the tariff sync is behind. Restart the Kafka consumer group (scale quote-engine to 0 and back) and check the tariff tables.",
            )
        },
    )


# =================================================================================================
# 3. Startup (wrong command): route-planner (Go) moved its runtime image from golang:1.23 to
#    gcr.io/distroless/static-debian12 (PR #412, "smaller image, fewer CVEs"); the Helm chart's
#    command still is `sh -c "exec /app/route-planner --config=$CONFIG"`. Distroless has no shell:
#    the container never starts (StartError, exit 128), CrashLoopBackOff. dispatch-ui, the loud
#    victim, gets connection refused. The incident says "dispatch board".
# =================================================================================================


@scenario("distroless-base-command-uses-sh")
def distroless_base_command_uses_sh() -> dict[str, Any]:
    start = -1300
    ns = "logistics"
    img = "europe-docker.pkg.dev/fjord-freight/apps/route-planner:3.12.0"
    rp = app(
        "route-planner",
        image=img,
        port=9000,
        rs="84c6f9d7b5",
        cluster_ip="10.12.66.30",
        pods=[
            ("c2wxl", "0/1", "CrashLoopBackOff", "9 (2m ago)", "21m", 0),
            ("n7rjd", "0/1", "CrashLoopBackOff", "9 (1m ago)", "21m", 2),
        ],
    )
    ui = app(
        "dispatch-ui",
        image="europe-docker.pkg.dev/fjord-freight/apps/dispatch-ui:2026.12.1",
        port=8080,
        rs="5d7f8c6b49",
        cluster_ip="10.12.66.4",
        pods=[
            ("g8mzp", "1/1", "Running", "0", "4h", 1),
            ("t3hvq", "1/1", "Running", "0", "4h", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [rp, ui], seed=531)
    sig = 'exec: "sh": executable file not found in $PATH'
    full = f"failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: {sig}: unknown"
    for sfx, i in (("c2wxl", 0), ("n7rjd", 2)):
        describe_pod(
            k8s,
            ns,
            rp,
            sfx,
            NODES_FRA,
            state=(
                "    State:          Waiting\n      Reason:       CrashLoopBackOff\n"
                "    Last State:     Terminated\n      Reason:       StartError\n"
                f"      Message:      {full}\n      Exit Code:    128\n"
                "      Started:      Thu, 01 Jan 1970 00:00:00 +0000\n      Finished:     Mon, 07 Dec 2026 09:58:12 +0000"
            ),
            started=-1260,
            restarts=9,
            events_rows=[
                sched(ns, pod_name(rp, sfx), NODES_FRA[i][0], "21m"),
                (
                    "Normal",
                    "Pulled",
                    "21m",
                    "kubelet",
                    f'Successfully pulled image "{img}" in 1.2s (1.2s including waiting). Image size: 9731112 bytes.',
                ),
                ("Warning", "Failed", "2m (x10 over 21m)", "kubelet", f"Error: {full}"),
                *backoff_rows(rp, ns, sfx, "x88 over 21m"),
            ],
        )
    k8s[f"kubectl logs {pod_name(rp, 'c2wxl')} -n {ns} --previous"] = ""
    k8s[f"kubectl logs {pod_name(rp, 'c2wxl')} -n {ns}"] = ""
    cont = container_text(
        "route-planner", img, 9000, env={"CONFIG": "/etc/route-planner/config.yaml"}
    ).replace(
        "    Port:",
        "    Command:\n      sh\n      -c\n      exec /app/route-planner --config=$CONFIG\n    Port:",
        1,
    )
    k8s[f"kubectl describe deployments route-planner -n {ns}"] = deployment_describe(
        "route-planner",
        ns,
        replicas="2 desired | 2 updated | 2 total | 0 available | 2 unavailable",
        revision=77,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "False", "ProgressDeadlineExceeded"),
        ],
        old_rs="route-planner-6f5c8d9b77 (0/0 replicas created)",
        new_rs=f"route-planner-{rp['rs']} (2/2 replicas created)",
        strategy="Recreate",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "21m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/route-planner",
                f"Scaled up replica set route-planner-{rp['rs']} to 2",
            ),
            (
                "2m",
                "Warning",
                "Failed",
                f"Pod/{pod_name(rp, 'c2wxl')}",
                f"Error: {full}",
            ),
            (
                "1m",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(rp, 'n7rjd')}",
                "Back-off restarting failed container route-planner",
            ),
        ]
    )
    evs = [
        ev(
            "github-actions",
            "info",
            "fjord-freight/route-planner PR #412 merged: Dockerfile: FROM golang:1.23 -> FROM gcr.io/distroless/static-debian12 (smaller image, fewer CVEs); build & push route-planner:3.12.0",
            at=start - 300,
        ),
        ev(
            "kubelet",
            "error",
            f'E1207 09:{{n}}.{{ms}}    1893 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"route-planner\\" with RunContainerError" pod="logistics/{pod_name(rp, "c2wxl")}"',
            **every(start + 40, -20, 90),
            labels={"host": NODES_FRA[0][0]},
        ),
        ev(
            "dispatch-ui",
            "error",
            'time=2026-12-07T09:{n}Z level=ERROR msg="route request failed" err="dial tcp 10.12.66.30:9000: connect: connection refused" depot=OSL-{ms} vehicles={ms}',
            **every(start + 30, -3, 6),
            pods=pods_of(ui),
        ),
        ev(
            "dispatch-ui",
            "warn",
            'time=2026-12-07T09:{n}Z level=WARN msg="map tiles slow" provider=maptiler latency_ms={n}',
            **every(-6000, -50, 300),
            pods=pods_of(ui),
        ),
        ev(
            "dispatch-ui",
            "error",
            'time=2026-12-07T06:{n}Z level=ERROR msg="telematics feed" err="context deadline exceeded" provider=webfleet',
            **every(-10200, -9600, 90),
            pods=pods_of(ui),
        ),
    ]
    return kube_case(
        seed=531,
        start=start,
        inc=incident(
            "Dispatch board can't plan routes",
            "dispatch board",
            start,
            ["connection refused"],
        ),
        exp=expected(
            "application",
            [
                "deployment/route-planner",
                "route-planner",
                "distroless",
                "command",
                "sh -c",
                "PR #412",
            ],
            sig,
            "PR #412 moved route-planner's runtime image to gcr.io/distroless/static-debian12, which has no shell, while the Deployment's command still runs `sh -c exec /app/route-planner …`. runc cannot start the container (StartError, exit 128) and both pods crash-loop; the Deployment is Recreate so nothing serves. dispatch-ui's connection-refused errors, the map tile latency and the old telematics timeouts are not the cause.",
            [
                f"Pod route-planner: Failed: {full}",
                "deployment route-planner: Command sh -c",
                "github-actions: PR #412 FROM gcr.io/distroless/static-debian12",
            ],
            "Change the command to exec the binary directly (command: [/app/route-planner, --config=/etc/route-planner/config.yaml]) or roll back to 3.11.x.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "dispatch-ui",
                pods_of(ui),
                ['time=2026-12-07T09:{n}Z level=INFO msg="GET /board 200" ms={ms}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("dispatch-ui", 15, {"502": (0.0, 0.45)}, (0.12, 0.15))],
        books={
            "dispatch-board.md": runbook(
                "Dispatch board errors",
                "When the board shows no routes, the telematics feed is usually down: check Webfleet's status page and switch dispatch-ui to manual positions (FEATURE_MANUAL_POSITIONS=true).",
            )
        },
    )


# =================================================================================================
# 4. Health 200 while broken: invoice-mailer (Node.js, amqplib) consumes `invoice-batches` from
#    RabbitMQ. The platform team upgraded the broker to 3.13 on Saturday, whose consumer_timeout
#    (30 min) now applies; the month-end batch holds one message for ~40 min while it renders 9,000
#    PDFs. The broker closes the channel (PRECONDITION_FAILED … delivery acknowledgement timed out),
#    the worker logs it once and never re-subscribes; /healthz only checks the HTTP server, so the
#    pods stay Running and Ready with 0 restarts. The queue grows. The incident says "invoices".
# =================================================================================================


@scenario("healthz-200-consumer-cancelled-by-broker-timeout")
def healthz_200_consumer_cancelled_by_broker_timeout() -> dict[str, Any]:
    start = -2400
    ns = "billing"
    im = app(
        "invoice-mailer",
        image="ghcr.io/kvarn-utilities/invoice-mailer:4.7.1",
        port=3000,
        rs="6f8d9c7b55",
        cluster_ip="10.20.31.17",
        pods=[
            ("d4lmr", "1/1", "Running", "0", "9d", 0),
            ("x2fqs", "1/1", "Running", "0", "9d", 1),
        ],
    )
    acct = app(
        "customer-account",
        image="ghcr.io/kvarn-utilities/customer-account:2026.48.0",
        port=8080,
        rs="7b6c5d9f84",
        cluster_ip="10.20.31.5",
        pods=[
            ("j8wvc", "1/1", "Running", "0", "2h", 1),
            ("q5nxt", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [im, acct], seed=532)
    sig = (
        'Channel closed by server: 406 (PRECONDITION-FAILED) with message "PRECONDITION_FAILED - '
        "delivery acknowledgement on channel 1 timed out. Timeout value used: 1800000 ms. This "
        'timeout value can be configured, see consumers doc guide to learn more"'
    )
    probes = "    Liveness:   http-get http://:3000/healthz delay=10s timeout=1s period=10s #success=1 #failure=3\n    Readiness:  http-get http://:3000/healthz delay=5s timeout=1s period=5s #success=1 #failure=3"
    for sfx in ("d4lmr", "x2fqs"):
        describe_pod(
            k8s,
            ns,
            im,
            sfx,
            NODES_PDX,
            state=running(-777600),
            started=-777600,
            ready=True,
            probes=probes,
        )
    k8s[f"kubectl logs {pod_name(im, 'd4lmr')} -n {ns}"] = podlog(
        [
            (
                start - 2420,
                '{"level":30,"time":1733560000000,"msg":"batch 2026-11 started","batch":"2026-11-A","invoices":9112}',
            ),
            (
                start - 600,
                '{"level":30,"msg":"rendered 7000/9112 invoices","batch":"2026-11-A"}',
            ),
            (
                start,
                '{"level":50,"msg":"amqp channel error","err":"'
                + sig.replace('"', '\\"')
                + '"}',
            ),
            (start + 1, '{"level":40,"msg":"amqp channel closed; consumer stopped"}'),
            (start + 300, '{"level":30,"msg":"GET /healthz 200","ms":1}'),
            (-30, '{"level":30,"msg":"GET /healthz 200","ms":1}'),
        ]
    )
    evs = [
        ev(
            "invoice-mailer",
            "error",
            '{"level":50,"msg":"amqp channel error","err":"'
            + sig.replace('"', '\\"')
            + '"}',
            at=start,
            pods=[pod_name(im, "d4lmr")],
        ),
        ev(
            "invoice-mailer",
            "error",
            '{"level":50,"msg":"amqp channel error","err":"'
            + sig.replace('"', '\\"')
            + '"}',
            at=start + 400,
            pods=[pod_name(im, "x2fqs")],
        ),
        ev(
            "invoice-mailer",
            "warn",
            '{"level":40,"msg":"amqp channel closed; consumer stopped"}',
            at=start + 1,
            pods=[pod_name(im, "d4lmr")],
        ),
        ev(
            "invoice-mailer",
            "warn",
            '{"level":40,"msg":"amqp channel closed; consumer stopped"}',
            at=start + 401,
            pods=[pod_name(im, "x2fqs")],
        ),
        ev(
            "rabbitmq",
            "warn",
            "2026-12-07 08:{n}.{ms}+00:00 [warning] <0.{n}.0> Consumer amq.ctag-{n} on channel 1 has timed out waiting for a consumer acknowledgement of a delivery with delivery tag = 1. Timeout used: 1800000 ms. This timeout value can be configured, see consumers doc guide to learn more",
            at=start - 1,
        ),
        ev(
            "rabbitmq",
            "info",
            "2026-12-05 06:{n}.{ms}+00:00 [notice] <0.{n}.0> RabbitMQ 3.13.7 on Erlang 26.2.5 started (rolling upgrade from 3.11.28, CHG-2291)",
            at=-190000,
        ),
        ev(
            "customer-account",
            "error",
            "2026-12-07 09:{n} ERROR 1 --- [nio-8080-exec-{ms}] k.u.a.InvoiceController : invoice PDF not found for account {n} period 2026-11 (404 from document-store)",
            **every(start + 300, -5, 20),
            pods=pods_of(acct),
        ),
        ev(
            "customer-account",
            "info",
            "2026-12-07 07:{n} INFO 1 --- [main] k.u.a.Application : Started Application in 12.4 seconds (version 2026.48.0)",
            at=-7200,
            pods=pods_of(acct),
        ),
        ev(
            "postmark",
            "warn",
            'postmark webhook: bounce type=SoftBounce to=*@{n}.example "mailbox full"',
            **every(-7000, -60, 400),
        ),
        ev(
            "invoice-mailer",
            "error",
            '{"level":50,"msg":"S3 PutObject failed","err":"SlowDown: Please reduce your request rate."}',
            **every(-10700, -10100, 100),
            pods=pods_of(im),
        ),
    ]
    return kube_case(
        seed=532,
        start=start,
        inc=incident(
            "Customers say they haven't got their invoices", "invoices", start
        ),
        exp=expected(
            "application",
            [
                "deployment/invoice-mailer",
                "invoice-mailer",
                "consumer_timeout",
                "rabbitmq",
                "invoice-batches",
                "amqp channel",
            ],
            "PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value used: 1800000 ms",
            "RabbitMQ was upgraded to 3.13 on Saturday and enforces consumer_timeout (30 min). invoice-mailer holds a month-end batch message for about 40 minutes while it renders the PDFs, so the broker closed its channel (PRECONDITION_FAILED, delivery acknowledgement timed out). The worker logs the error and never re-subscribes; its /healthz only checks the HTTP server, so both pods stay Running and Ready with no restarts while invoice-batches grows and no invoice goes out. customer-account's 404s, Postmark bounces and the old S3 SlowDown are not the cause.",
            [
                "invoice-mailer: amqp channel error PRECONDITION_FAILED delivery acknowledgement timed out",
                "rabbitmq: consumer timed out waiting for acknowledgement, 1800000 ms",
                "rabbitmq_queue_messages_ready invoice-batches rising, consumers 0",
            ],
            "Restart invoice-mailer to re-subscribe, ack each invoice batch in smaller messages (or raise consumer_timeout for that queue), and make /healthz fail when the consumer is gone.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "customer-account",
                pods_of(acct),
                [
                    "2026-12-07 09:{n} INFO 1 --- [nio-8080-exec-{ms}] k.u.a.Access : GET /account/invoices 200 {ms}ms"
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("invoice-mailer", 0.2, {"500": (0.0, 0.0)}, (0.002, 0.002)),
            svc("customer-account", 12, {"404": (0.01, 0.12)}, (0.1, 0.1)),
        ],
        gauges=[
            gauge(
                "rabbitmq_queue_messages_ready",
                {"queue": "invoice-batches", "vhost": "billing"},
                3,
                1840,
                start,
            ),
            gauge(
                "rabbitmq_queue_consumers",
                {"queue": "invoice-batches", "vhost": "billing"},
                2,
                0,
                start + 400,
            ),
        ],
        books={
            "invoices-missing.md": runbook(
                "Customers missing invoices",
                "Missing invoice emails are almost always deliverability: check Postmark's bounce and spam-complaint rates and the SPF/DKIM records; resend from the Postmark activity page.",
            )
        },
    )


# =================================================================================================
# 5. kube-proxy: the platform team edited the kube-proxy ConfigMap to `mode: nftables` (PR
#    platform#341, "iptables is legacy"). Only kube-proxy pods restarted since pick it up: the two
#    nodes recycled this morning. Those nodes run Amazon Linux 2 (kernel 5.10), too old for the
#    nftables proxier; kube-proxy crash-loops there and no Service change is programmed on them.
#    cart's release at 10:40 (innocent, the trigger) moved its pods; checkout pods on those two
#    nodes still dial the old pod IPs and time out. The incident says "checkout".
# =================================================================================================


@scenario("kube-proxy-nftables-mode-old-kernel")
def kube_proxy_nftables_mode_old_kernel() -> dict[str, Any]:
    start = -1500
    ns = "shop"
    co = app(
        "checkout",
        image="123456789012.dkr.ecr.us-west-2.amazonaws.com/shop/checkout:7.2.3",
        port=8080,
        rs="5c7d9b8f46",
        cluster_ip="172.20.14.90",
        pods=[
            ("b6kzt", "1/1", "Running", "0", "6d", 0),
            ("h2mwp", "1/1", "Running", "0", "3h", 1),
            ("r9qcx", "1/1", "Running", "0", "3h", 2),
        ],
    )
    cart = app(
        "cart",
        image="123456789012.dkr.ecr.us-west-2.amazonaws.com/shop/cart:3.41.0",
        port=8080,
        rs="7f6b8c5d92",
        cluster_ip="172.20.14.61",
        pods=[
            ("k3vnb", "1/1", "Running", "0", "26m", 0),
            ("s8tlw", "1/1", "Running", "0", "26m", 2),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [co, cart], seed=533)
    n1, n2 = NODES_PDX[1][0], NODES_PDX[2][0]
    sig = 'E1207 10:37:58.412391       1 server.go:558] "Error running ProxyServer" err="nftables proxier is not supported: kernel 5.10.228-219.884.amzn2.x86_64 is too old, need 5.13 or later"'
    k8s["kubectl get pods -n kube-system -o wide"] = (
        "NAME                       READY   STATUS             RESTARTS        AGE    IP            NODE                                         NOMINATED NODE   READINESS GATES\n"
        f"aws-node-4xk2p             2/2     Running            0               6d     10.90.1.18    {NODES_PDX[0][0]}   <none>           <none>\n"
        f"aws-node-9hvtl             2/2     Running            0               3h     10.90.2.203   {n1}   <none>           <none>\n"
        f"aws-node-qw7rz             2/2     Running            0               3h     10.90.3.77    {n2}   <none>           <none>\n"
        f"coredns-6c8b9d7f5-l2m8x    1/1     Running            0               6d     10.90.1.140   {NODES_PDX[0][0]}   <none>           <none>\n"
        f"kube-proxy-7tqzc           1/1     Running            0               6d     10.90.1.18    {NODES_PDX[0][0]}   <none>           <none>\n"
        f"kube-proxy-c5wjn           0/1     CrashLoopBackOff   36 (4m ago)     3h     10.90.2.203   {n1}   <none>           <none>\n"
        f"kube-proxy-p8dxs           0/1     CrashLoopBackOff   35 (2m ago)     3h     10.90.3.77    {n2}   <none>           <none>\n"
    )
    k8s["kubectl logs kube-proxy-c5wjn -n kube-system --previous"] = (
        'I1207 10:37:58.401122       1 server_linux.go:66] "Using nftables proxy"\n'
        'I1207 10:37:58.401530       1 server.go:677] "kube-proxy running in dual-stack mode" primary ipFamily="IPv4"\n'
        f"{sig}\n"
    )
    k8s["kubectl describe configmaps kube-proxy-config -n kube-system"] = (
        "Name:         kube-proxy-config\nNamespace:    kube-system\nLabels:       eks.amazonaws.com/component=kube-proxy\n\nData\n====\nconfig:\n----\n"
        "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclientConnection:\n  kubeconfig: /var/lib/kube-proxy/kubeconfig\n"
        'mode: "nftables"\nconntrack:\n  maxPerCore: 32768\nmetricsBindAddress: 0.0.0.0:10249\n'
    )
    k8s["kubectl describe pods kube-proxy-c5wjn -n kube-system"] = (
        f"Name:                 kube-proxy-c5wjn\nNamespace:            kube-system\nPriority Class Name:  system-node-critical\nNode:                 {n1}/10.90.2.203\n"
        "Status:               Running\nControlled By:  DaemonSet/kube-proxy\nContainers:\n  kube-proxy:\n    Image:          602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.31.3-minimal-eksbuild.2\n"
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n"
        "    Ready:          False\n    Restart Count:  36\nEvents:\n  Type     Reason   Age                  From     Message\n  ----     ------   ----                 ----     -------\n"
        "  Warning  BackOff  4m (x790 over 3h)   kubelet  Back-off restarting failed container kube-proxy in pod kube-proxy-c5wjn_kube-system(1f0c…)\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "26m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/cart",
                "Scaled up replica set cart-7f6b8c5d92 to 2",
            ),
            (
                "25m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/cart",
                "Scaled down replica set cart-649d7c8b5f to 0 from 2",
            ),
        ]
    )
    evs = [
        ev("kube-proxy", "error", sig, **every(-10800, -60, 300), labels={"host": n1}),
        ev("kube-proxy", "error", sig, **every(-10700, -60, 300), labels={"host": n2}),
        ev(
            "github",
            "info",
            'platform-infra PR #341 merged: "kube-proxy: switch to nftables mode (iptables is legacy)" kube-system/kube-proxy-config mode: iptables -> nftables',
            at=-30000,
        ),
        ev(
            "checkout",
            "error",
            '{"ts":"2026-12-07T10:{n}Z","level":"error","logger":"cart-client","msg":"POST http://cart.shop.svc:8080/v1/carts/{n}/lock","error":"dial tcp 10.33.2.{ms}:8080: i/o timeout"}',
            **every(start + 10, -3, 5),
            pods=[pod_name(co, "h2mwp"), pod_name(co, "r9qcx")],
        ),
        ev(
            "cart",
            "info",
            '{"ts":"2026-12-07T10:{n}Z","level":"info","msg":"cart 3.41.0 ready (gift-wrap option)"}',
            at=start - 20,
            pods=pods_of(cart),
        ),
        ev(
            "checkout",
            "warn",
            '{"ts":"2026-12-07T10:{n}Z","level":"warn","logger":"adyen","msg":"3DS challenge slow","ms":{n}}',
            **every(-6000, -100, 350),
            pods=pods_of(co),
        ),
        ev(
            "checkout",
            "error",
            '{"ts":"2026-12-07T07:{n}Z","level":"error","logger":"db","msg":"could not serialize access due to concurrent update"}',
            **every(-10400, -9900, 100),
            pods=pods_of(co),
        ),
    ]
    return kube_case(
        seed=533,
        start=start,
        inc=incident("Checkout failing for about 2/3 of customers", "checkout", start),
        exp=expected(
            "platform",
            [
                "kube-proxy",
                "daemonset/kube-proxy",
                "kube-proxy-config",
                "nftables",
                f"node/{n1}",
                f"node/{n2}",
            ],
            "nftables proxier is not supported: kernel 5.10.228-219.884.amzn2.x86_64 is too old",
            "PR #341 switched the kube-proxy ConfigMap to nftables mode. kube-proxy pods restarted since then (the two nodes recycled this morning) crash-loop: the nodes' Amazon Linux 2 kernel 5.10 is too old for the nftables proxier, so Service changes are no longer programmed there. When cart's release moved its pods, checkout pods on those two nodes kept dialing the old cart pod IPs and time out. cart's release (the trigger), Adyen's slow 3DS and the old serialization errors are not the cause.",
            [
                "kube-proxy-c5wjn / kube-proxy-p8dxs CrashLoopBackOff: nftables proxier is not supported, kernel 5.10 too old",
                "kube-proxy-config: mode nftables (PR #341)",
                "checkout on two nodes: dial tcp 10.33.2.x:8080 i/o timeout to cart",
            ],
            "Revert kube-proxy-config to mode iptables (or move the nodes to AL2023 with a 6.x kernel) and restart the kube-proxy pods on the affected nodes.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout",
                pods_of(co),
                ['{"level":"info","msg":"POST /v1/checkout 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("checkout", 40, {"500": (0.002, 0.6)}, (0.3, 2.4)),
            svc("cart", 70, {"500": (0.001, 0.001)}, (0.03, 0.03)),
        ],
        books={
            "checkout-errors.md": runbook(
                "Checkout errors",
                "Checkout errors after a cart release: roll cart back with `kubectl rollout undo deployment/cart -n shop` and tell the cart team.",
            )
        },
    )


# =================================================================================================
# 6. Node: the security team's CIS hardening playbook (Ansible, run weekly on the "linux" group)
#    now also matches the self-managed Kubernetes workers; its task writes /etc/sysctl.d/99-cis.conf
#    with net.ipv4.ip_forward = 0 and reloads sysctl. It ran on k8s-w07 this morning (the others
#    are in the next batch). The node stays Ready, but traffic from its pods to anything off the
#    node is dropped: ledger-api's pod there fails readiness and the payroll batch on the node
#    times out. The incident says "payroll".
# =================================================================================================


@scenario("cis-hardening-disables-ip-forward-on-node")
def cis_hardening_disables_ip_forward_on_node() -> dict[str, Any]:
    start = -2000
    ns = "payroll"
    nodes = [
        ("k8s-w05", "Ready", "192.168.40.25", "211d"),
        ("k8s-w06", "Ready", "192.168.40.26", "211d"),
        ("k8s-w07", "Ready", "192.168.40.27", "211d"),
    ]
    led = app(
        "ledger-api",
        image="harbor.lonnkontor.example/payroll/ledger-api:12.0.4",
        port=8080,
        rs="8d5c7f6b94",
        cluster_ip="10.43.71.20",
        pods=[
            ("f7wqk", "1/1", "Running", "0", "11d", 0),
            ("m3zrd", "1/1", "Running", "0", "11d", 1),
            ("v9ptc", "0/1", "Running", "0", "11d", 2),
        ],
    )
    run = app(
        "payroll-run",
        image="harbor.lonnkontor.example/payroll/payroll-run:5.3.0",
        port=8080,
        rs="6b9d8c7f53",
        cluster_ip="10.43.71.31",
        pods=[
            ("c5nxh", "1/1", "Running", "0", "3d", 2),
            ("l8gws", "1/1", "Running", "0", "3d", 0),
        ],
    )
    k8s = namespace(ns, nodes, [led, run], seed=534)
    sig = "Kernel's IPv4 forwarding is disabled (net.ipv4.ip_forward = 0); workload traffic leaving this host will be dropped"
    describe_pod(
        k8s,
        ns,
        led,
        "v9ptc",
        nodes,
        state=running(-950400),
        started=-950400,
        probes="    Readiness:  http-get http://:8080/health/ready delay=0s timeout=2s period=10s #success=1 #failure=3",
        conditions=[
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ],
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "40s (x190 over 32m)",
                "kubelet",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            )
        ],
    )
    k8s[f"kubectl logs {pod_name(led, 'v9ptc')} -n {ns}"] = podlog(
        [
            (
                start + 30,
                "12:01:44.102 [HikariPool-1 housekeeper] WARN  c.z.h.p.HikariPool - HikariPool-1 - Failed to validate connection org.postgresql.jdbc.PgConnection@3d1f (This connection has been closed.)",
            ),
            (
                start + 60,
                "12:02:14.877 [http-nio-8080-exec-4] ERROR n.l.ledger.health.DbCheck - ready check failed: org.postgresql.util.PSQLException: The connection attempt failed. Caused by: java.net.SocketTimeoutException: Connect timed out (pg-ledger.db.lonnkontor.example:5432)",
            ),
        ]
    )
    evs = [
        ev(
            "ansible",
            "info",
            "TASK [cis_hardening : 3.3.1 | Ensure IP forwarding is disabled] ***\nchanged: [k8s-w07] => (item={'name': 'net.ipv4.ip_forward', 'value': '0', 'file': '/etc/sysctl.d/99-cis.conf'})",
            at=start - 60,
        ),
        ev(
            "ansible",
            "info",
            "PLAY RECAP *** k8s-w07 : ok=118 changed=4 unreachable=0 failed=0 (playbook cis-hardening.yml, inventory group: linux, AWX job 20931)",
            at=start - 30,
        ),
        ev(
            "calico-node",
            "warn",
            f"2026-12-07 11:{{n}}.{{ms}} [WARNING][61] felix/int_dataplane.go 1204: {sig}",
            **every(start, -60, 120),
            labels={"host": "k8s-w07"},
        ),
        ev(
            "ledger-api",
            "error",
            "12:{n}.{ms} [http-nio-8080-exec-{ms}] ERROR n.l.ledger.health.DbCheck - ready check failed: org.postgresql.util.PSQLException: The connection attempt failed. Caused by: java.net.SocketTimeoutException: Connect timed out (pg-ledger.db.lonnkontor.example:5432)",
            **every(start + 60, -10, 10),
            pods=[pod_name(led, "v9ptc")],
        ),
        ev(
            "payroll-run",
            "error",
            '12:{n}.{ms} [batch-{ms}] ERROR n.l.payroll.Run - employer {n}: calculation failed: I/O error on POST request for "http://tax-tables.payroll:8080/v1/rates": Connect timed out',
            **every(start + 40, -5, 7),
            pods=[pod_name(run, "c5nxh")],
        ),
        ev(
            "payroll-run",
            "info",
            "12:{n}.{ms} [main] INFO  n.l.payroll.Run - December run started for 4,210 employers (window 08:00-16:00)",
            at=-9000,
            pods=pods_of(run),
        ),
        ev(
            "altinn-gateway",
            "warn",
            "2026-12-07T11:{n} WARN a-melding submission queue slow: {n} ms",
            **every(-6500, -100, 400),
        ),
        ev(
            "ledger-api",
            "error",
            "09:{n}.{ms} [scheduler-1] ERROR n.l.ledger.Export - SFTP upload to bank failed: Auth fail",
            **every(-10500, -10000, 120),
            pods=pods_of(led),
        ),
    ]
    return kube_case(
        seed=534,
        start=start,
        inc=incident("Payroll run failing for many employers", "payroll", start),
        exp=expected(
            "platform",
            [
                "node/k8s-w07",
                "k8s-w07",
                "net.ipv4.ip_forward",
                "99-cis.conf",
                "cis_hardening",
                "cis-hardening.yml",
            ],
            sig,
            "The CIS hardening playbook, whose inventory group now includes the Kubernetes workers, set net.ipv4.ip_forward = 0 on k8s-w07 this morning. The node stays Ready, but nothing its pods send off the node is forwarded: ledger-api's pod there cannot reach PostgreSQL and goes unready, and the payroll-run pod on that node times out calling tax-tables. Pods on the other nodes are fine. The Altinn queue, the payroll run itself and the old SFTP errors are not the cause.",
            [
                f"calico-node k8s-w07: {sig}",
                "ansible: changed k8s-w07 net.ipv4.ip_forward 0 (99-cis.conf)",
                "ledger-api-…-v9ptc unready: connect timed out to PostgreSQL",
            ],
            "Set net.ipv4.ip_forward = 1 on k8s-w07 (remove it from 99-cis.conf), exclude the Kubernetes workers from the CIS IP-forwarding task, and drain/uncordon if needed.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "ledger-api",
                pods_of(led)[:2],
                [
                    "12:{n}.{ms} [http-nio-8080-exec-{ms}] INFO  n.l.ledger.Access - GET /v2/postings 200 {ms}ms"
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("payroll-run", 8, {"500": (0.0, 0.34)}, (0.4, 1.1)),
            svc("ledger-api", 30, {"503": (0.0, 0.0)}, (0.05, 0.05)),
        ],
        books={
            "payroll-run.md": runbook(
                "Payroll run failures",
                "Failures during a payroll run are normally the Altinn gateway being slow. Pause the run (POST /admin/pause), wait for the a-melding queue to drain, then resume.",
            )
        },
    )


# =================================================================================================
# 7. Pass-through: mobile-bff (Apollo Router) relays `homeFeed` errors loudly. The origin is the
#    recommendations subgraph (Python, onnxruntime): the ML pipeline promoted a new model by editing
#    ConfigMap recommendations-config (MODEL_URI …/model-2026-12-07.onnx), and the pods reloaded
#    it. The new model expects 48 features, the service builds 44: every ranking call fails with
#    INVALID_ARGUMENT. The subgraph's own log shows it; the BFF only says "subgraph request failed".
#    The incident says "mobile app home screen".
# =================================================================================================


@scenario("bff-relays-recommendations-model-shape")
def bff_relays_recommendations_model_shape() -> dict[str, Any]:
    start = -1600
    ns = "discovery"
    bff = app(
        "mobile-bff",
        image="ghcr.io/spindle-books/mobile-bff:router-1.57.1",
        port=4000,
        rs="79c8d6b5f4",
        cluster_ip="10.60.8.10",
        pods=[
            ("a2sdf", "1/1", "Running", "0", "8d", 0),
            ("g7hjk", "1/1", "Running", "0", "8d", 1),
            ("z4xcv", "1/1", "Running", "0", "8d", 2),
        ],
    )
    rec = app(
        "recommendations",
        image="ghcr.io/spindle-books/recommendations:2.9.0",
        port=8000,
        rs="5f9c7d8b66",
        cluster_ip="10.60.8.33",
        pods=[
            ("p6qwe", "1/1", "Running", "0", "15d", 1),
            ("u3rty", "1/1", "Running", "0", "15d", 2),
        ],
    )
    cat = app(
        "catalog",
        image="ghcr.io/spindle-books/catalog:6.1.2",
        port=8080,
        rs="6d7b8c9f55",
        cluster_ip="10.60.8.21",
        pods=[("e9mnb", "1/1", "Running", "0", "90m", 0)],
    )
    k8s = namespace(
        ns,
        NODES_IAD,
        [bff, rec, cat],
        seed=535,
        configmaps=[("recommendations-config", "4", "412d")],
    )
    sig_line = "onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: features for the following indices index: 1 Got: 44 Expected: 48"
    k8s[f"kubectl describe configmaps recommendations-config -n {ns}"] = (
        "Name:         recommendations-config\nNamespace:    discovery\nLabels:       app=recommendations\n"
        "Annotations:  ml.spindle/promoted-by: kubeflow-pipeline promote-ranker run 7741\n\nData\n====\n"
        "MODEL_URI:\n----\ns3://spindle-ml-models/ranker/model-2026-12-07.onnx\nMODEL_RELOAD_SECONDS:\n----\n300\nFEATURE_SET:\n----\nv5\n"
    )
    k8s[f"kubectl logs {pod_name(rec, 'p6qwe')} -n {ns}"] = podlog(
        [
            (
                start - 40,
                "INFO:     ranker: reloading model from s3://spindle-ml-models/ranker/model-2026-12-07.onnx (config changed)",
            ),
            (
                start - 35,
                "INFO:     ranker: model loaded, inputs=[features: float32[None,48]], feature_set=v5 (44 columns)",
            ),
            (start, "ERROR:    Exception in /rank for user 88213"),
            (
                start + 1,
                'Traceback (most recent call last):\n  File "/app/recs/ranker.py", line 112, in rank\n    scores = self.session.run(None, {"features": x})[0]\n'
                + sig_line,
            ),
            (start + 2, 'INFO:     10.60.1.44:51234 - "POST /graphql HTTP/1.1" 200 OK'),
        ]
    )
    evs = [
        ev(
            "recommendations",
            "info",
            "INFO:     ranker: reloading model from s3://spindle-ml-models/ranker/model-2026-12-07.onnx (config changed)",
            at=start - 40,
            pods=pods_of(rec),
        ),
        ev(
            "recommendations",
            "error",
            'ERROR:    Exception in /rank for user {n}\nTraceback (most recent call last):\n  File "/app/recs/ranker.py", line 112, in rank\n    scores = self.session.run(None, {"features": x})[0]\n'
            + sig_line,
            **every(start, -5, 6),
            pods=pods_of(rec),
        ),
        ev(
            "kubeflow",
            "info",
            "promote-ranker run 7741: offline NDCG@20 0.412 -> 0.431; kubectl patch configmap recommendations-config -n discovery MODEL_URI=s3://spindle-ml-models/ranker/model-2026-12-07.onnx",
            at=start - 330,
        ),
        ev(
            "mobile-bff",
            "error",
            '{"timestamp":"2026-12-07T11:{n}Z","level":"ERROR","message":"subgraph request failed","subgraph":"recommendations","operation":"HomeFeed","http.status":200,"graphql.errors":1,"code":"SUBREQUEST_HTTP_ERROR","target":"apollo_router::services::subgraph"}',
            **every(start + 2, -2, 6),
            pods=pods_of(bff),
        ),
        ev(
            "mobile-bff",
            "warn",
            '{"timestamp":"2026-12-07T11:{n}Z","level":"WARN","message":"query planning slow","operation":"SearchBooks","ms":{n}}',
            **every(-6000, -60, 500),
            pods=pods_of(bff),
        ),
        ev(
            "catalog",
            "info",
            "2026-12-07T09:{n}Z INFO  catalog 6.1.2 started (new audiobook series)",
            at=-5400,
            pods=pods_of(cat),
        ),
        ev(
            "mobile-bff",
            "error",
            '{"timestamp":"2026-12-07T08:{n}Z","level":"ERROR","message":"subgraph request failed","subgraph":"catalog","code":"SUBREQUEST_HTTP_ERROR","http.status":503}',
            **every(-10400, -9900, 90),
            pods=pods_of(bff),
        ),
    ]
    return kube_case(
        seed=535,
        start=start,
        inc=incident(
            "App home screen shows an error for everyone",
            "mobile app home screen",
            start,
        ),
        exp=expected(
            "application",
            [
                "recommendations",
                "deployment/recommendations",
                "configmap/recommendations-config",
                "recommendations-config",
                "MODEL_URI",
                "model-2026-12-07.onnx",
            ],
            "INVALID_ARGUMENT : Got invalid dimensions for input: features for the following indices index: 1 Got: 44 Expected: 48",
            "The ML pipeline promoted a new ranking model by editing ConfigMap recommendations-config (MODEL_URI …/model-2026-12-07.onnx) and the recommendations pods reloaded it. The new model expects 48 features while the service builds 44 (feature set v5), so every ranking call fails with INVALID_ARGUMENT. mobile-bff only relays the subgraph's error, loudly, and the home feed fails. The BFF's planning warnings, catalog's release and its old 503s are not the cause.",
            [
                f"recommendations: {sig_line}",
                "recommendations: reloading model …/model-2026-12-07.onnx (config changed)",
                "mobile-bff: subgraph request failed subgraph=recommendations",
            ],
            "Set MODEL_URI back to the previous model (the pods reload within 5 minutes), then ship feature set v6 with 48 columns before promoting the new model.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "mobile-bff",
                pods_of(bff),
                [
                    '{"level":"INFO","message":"request","operation":"BookDetail","status":200,"ms":{ms}}'
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("mobile-bff", 120, {"500": (0.001, 0.42)}, (0.15, 0.17)),
            svc("recommendations", 50, {"500": (0.0, 0.0)}, (0.04, 0.01)),
        ],
        books={
            "home-feed-errors.md": runbook(
                "Home feed errors",
                "When the app's home feed errors, the BFF is usually overloaded: scale mobile-bff to 6 replicas and check the router's query-plan cache hit rate.",
            )
        },
    )


# =================================================================================================
# 8. Crash-looping victim, quiet cause a policy on another object: payout-worker (Kotlin) fetches
#    FX rates from fx-rates at start-up and exits if it cannot. The security team tightened the
#    Istio AuthorizationPolicy `fx-rates-allow` (PR sec-policies#63: "least privilege") to allow only
#    principal cluster.local/ns/payments/sa/payout-api; payout-worker runs as its own service
#    account. Its pods restarted after a node drain and now crash-loop on `403 RBAC: access denied`.
#    fx-rates itself is healthy. The incident says "seller payouts".
# =================================================================================================


@scenario("authorizationpolicy-principal-crashloops-worker")
def authorizationpolicy_principal_crashloops_worker() -> dict[str, Any]:
    start = -1700
    ns = "payments"
    pw = app(
        "payout-worker",
        image="eu.gcr.io/marktplatz-nord/payout-worker:3.4.2",
        port=8080,
        rs="7c9d8b6f57",
        cluster_ip="10.8.14.50",
        pods=[
            ("b4tzn", "1/2", "CrashLoopBackOff", "10 (3m ago)", "29m", 0),
            ("k9wqs", "1/2", "CrashLoopBackOff", "10 (1m ago)", "29m", 1),
        ],
    )
    fx = app(
        "fx-rates",
        image="eu.gcr.io/marktplatz-nord/fx-rates:1.18.0",
        port=8080,
        rs="6b8c7d9f45",
        cluster_ip="10.8.14.21",
        pods=[
            ("m2pxd", "2/2", "Running", "0", "12d", 1),
            ("v7rcl", "2/2", "Running", "0", "12d", 2),
        ],
    )
    pa = app(
        "payout-api",
        image="eu.gcr.io/marktplatz-nord/payout-api:3.4.2",
        port=8080,
        rs="5d9f6c8b74",
        cluster_ip="10.8.14.12",
        pods=[("h5jkn", "2/2", "Running", "0", "29m", 2)],
    )
    k8s = namespace(ns, NODES_DUB, [pw, fx, pa], seed=536)
    sig = "Startup check failed: GET http://fx-rates.payments:8080/v1/rates/latest returned 403 Forbidden: RBAC: access denied"
    for sfx in ("b4tzn", "k9wqs"):
        describe_pod(
            k8s,
            ns,
            pw,
            sfx,
            NODES_DUB,
            state=crashloop(1, "Error", -190, -184),
            started=-190,
            restarts=10,
            events_rows=[
                (
                    "Warning",
                    "BackOff",
                    "1m (x121 over 29m)",
                    "kubelet",
                    f"Back-off restarting failed container payout-worker in pod {pod_name(pw, sfx)}_payments(3c1e…)",
                )
            ],
        )
    k8s[f"kubectl logs {pod_name(pw, 'b4tzn')} -n {ns} --previous"] = podlog(
        [
            (
                -190,
                "2026-12-07 13:{n} INFO  PayoutWorkerKt - Starting payout-worker 3.4.2 on JVM 21.0.5",
            ),
            (
                -186,
                "2026-12-07 13:{n} INFO  FxBootstrap - loading rates from http://fx-rates.payments:8080/v1/rates/latest",
            ),
            (-185, f"2026-12-07 13:{{n}} ERROR FxBootstrap - {sig}"),
            (-184, "2026-12-07 13:{n} ERROR PayoutWorkerKt - exiting with status 1"),
        ]
    ).replace("13:{n}", "13:07")
    evs = [
        ev(
            "payout-worker",
            "error",
            f"2026-12-07 13:{{n}} ERROR FxBootstrap - {sig}",
            **every(start + 20, -30, 160),
            pods=pods_of(pw),
        ),
        ev(
            "istio-proxy",
            "info",
            '[2026-12-07T13:{n}.{ms}Z] "GET /v1/rates/latest HTTP/1.1" 403 - rbac_access_denied_matched_policy[none] - "-" 0 19 0 - "-" "Ktor client" "{n}" "fx-rates.payments:8080" "-" inbound|8080|| - 10.8.2.{ms}:8080 10.8.1.{ms}:48120 outbound_.8080_._.fx-rates.payments.svc.cluster.local -',
            **every(start + 20, -30, 160),
            pods=pods_of(fx),
        ),
        ev(
            "argocd",
            "info",
            'time="2026-12-07T09:{n}Z" level=info msg="sync succeeded: security.istio.io/v1 AuthorizationPolicy payments/fx-rates-allow configured (sec-policies PR #63 least privilege)" application=argocd/sec-policies',
            at=-14000,
        ),
        ev(
            "github",
            "info",
            "sec-policies PR #63 merged (least privilege): payments/fx-rates-allow.yaml: rules[0].from[0].source.principals: [cluster.local/ns/payments/sa/*] -> [cluster.local/ns/payments/sa/payout-api]",
            at=-14300,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            f'I1207 12:{{n}}.{{ms}}       1 scale_down.go:1044] "Scale-down: removing empty node" node="{NODES_DUB[2][0]}" pods evicted: payments/payout-worker-7c9d8b6f57-*',
            at=start - 60,
        ),
        ev(
            "seller-portal",
            "error",
            '{"level":"error","msg":"payout status stuck in QUEUED","seller":"{n}","age_min":{n}}',
            **every(start + 600, -5, 25),
        ),
        ev(
            "payout-api",
            "info",
            "2026-12-07 13:{n} INFO  PayoutApiKt - payout-api 3.4.2 started",
            at=start - 50,
            pods=pods_of(pa),
        ),
        ev(
            "payout-worker",
            "error",
            "2026-12-07 10:{n} ERROR BankFileExporter - SFTP sftp.bank-nord.example: connection reset, retrying",
            **every(-10600, -10000, 150),
            pods=pods_of(pw),
        ),
    ]
    return kube_case(
        seed=536,
        start=start,
        inc=incident("Seller payouts stuck in queued", "seller payouts", start),
        exp=expected(
            "http",
            [
                "authorizationpolicy/fx-rates-allow",
                "fx-rates-allow",
                "AuthorizationPolicy",
                "sec-policies PR #63",
                "deployment/payout-worker",
                "payout-worker",
            ],
            "403 Forbidden: RBAC: access denied",
            "The security team narrowed Istio AuthorizationPolicy fx-rates-allow (PR #63) to the payout-api service account. payout-worker runs as its own service account and loads FX rates from fx-rates at start-up; since its pods were restarted by a scale-down this afternoon, the sidecar of fx-rates denies it (403 RBAC: access denied) and the worker exits, crash-looping, so payouts stay queued. fx-rates is healthy; the node scale-down (the trigger), seller-portal's errors and the old SFTP resets are not the cause.",
            [
                f"payout-worker previous log: {sig}",
                "fx-rates istio-proxy: 403 rbac_access_denied_matched_policy[none]",
                "argocd: AuthorizationPolicy payments/fx-rates-allow configured (PR #63)",
            ],
            "Add principal cluster.local/ns/payments/sa/payout-worker to fx-rates-allow; the pods start on their next restart.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "fx-rates",
                pods_of(fx),
                ['{"level":"info","msg":"GET /v1/rates/latest 200","ms":{ms}}'],
                10,
            )
        ],
        evs=evs,
        services=[svc("fx-rates", 5, {"403": (0.0, 0.05)}, (0.01, 0.01))],
        gauges=[gauge("payouts_queued", {"queue": "seller-payouts"}, 40, 3100, start)],
        books={
            "payouts-stuck.md": runbook(
                "Payouts stuck",
                "Stuck payouts usually mean the bank's SFTP is rejecting files. Check the BankFileExporter logs and re-send the last file with `payoutctl resend --last`.",
            )
        },
    )


# =================================================================================================
# 9. Startup (missing volume source): settlement-api mounts its DB credentials through the Secrets
#    Store CSI driver (SecretProviderClass settlement-secrets, objectName prod/settlement/db). The
#    security team's naming clean-up renamed the secret in AWS Secrets Manager to
#    prod/payments/settlement-db (by creating the new one and deleting the old, SEC-1107). Running
#    pods keep their mounted file; today's release creates new pods that stay ContainerCreating
#    (FailedMount). The rollout holds with 2 of 4 old pods; reconciliation at month end is slow.
#    The incident says "card settlement".
# =================================================================================================


@scenario("secrets-store-object-renamed-containercreating")
def secrets_store_object_renamed_containercreating() -> dict[str, Any]:
    start = -1300
    ns = "settlement"
    img_new = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/settlement-api:9.1.0"
    sa = app(
        "settlement-api",
        image=img_new,
        port=8443,
        rs="6c5f8d7b99",
        cluster_ip="172.20.90.11",
        desired=4,
        pods=[
            ("t5wnb", "0/1", "ContainerCreating", "0", "21m", 0),
            ("y8qkm", "0/1", "ContainerCreating", "0", "21m", 1),
            ("a3vcx", "1/1", "Running", "0", "16d", 1),
            ("j7drp", "1/1", "Running", "0", "16d", 2),
        ],
    )
    recon = app(
        "reconciliation",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/reconciliation:4.0.8",
        port=8080,
        rs="75d9c8f6b3",
        cluster_ip="172.20.90.30",
        pods=[("n2lsk", "1/1", "Running", "1 (5h ago)", "4d", 0)],
    )
    k8s = namespace(ns, NODES_DUB, [sa, recon], seed=537)

    sig = "Secrets Manager can't find the specified secret. (ResourceNotFoundException)"
    mount = (
        'MountVolume.SetUp failed for volume "settlement-secrets" : rpc error: code = Unknown desc = failed to mount secrets store objects for pod '
        "settlement/{pod}, err: rpc error: code = Unknown desc = eu-west-1: Failed fetching secret prod/settlement/db: ResourceNotFoundException: "
        + sig
    )
    for sfx, i in (("t5wnb", 0), ("y8qkm", 1)):
        name = pod_name(sa, sfx)
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner=f"ReplicaSet/settlement-api-{sa['rs']}",
            labels=["app=settlement-api", f"pod-template-hash={sa['rs']}"],
            sa="settlement-api",
            containers=container_text("settlement-api", img_new, 8443)
            .replace(
                "    Port:",
                "    State:          Waiting\n      Reason:       ContainerCreating\n    Port:",
                1,
            )
            .replace(
                "      /var/run/secrets/kubernetes.io/serviceaccount",
                "      /mnt/secrets from settlement-secrets (ro)\n      /var/run/secrets/kubernetes.io/serviceaccount",
            ),
            node=f"{NODES_DUB[i][0]}/{NODES_DUB[i][2]}",
            conditions=(
                ("PodReadyToStartContainers", "False"),
                ("Initialized", "True"),
                ("Ready", "False"),
                ("ContainersReady", "False"),
                ("PodScheduled", "True"),
            ),
            events_rows=[
                sched(ns, name, NODES_DUB[i][0], "21m"),
                (
                    "Warning",
                    "FailedMount",
                    "47s (x18 over 21m)",
                    "kubelet",
                    mount.format(pod=name),
                ),
            ],
        ).replace(
            "QoS Class:",
            "Volumes:\n  settlement-secrets:\n    Type:              CSI (a Container Storage Interface (CSI) volume source)\n    Driver:            secrets-store.csi.k8s.io\n    FSType:\n    ReadOnly:          true\n    VolumeAttributes:      secretProviderClass=settlement-secrets\nQoS Class:",
            1,
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "21m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/settlement-api",
                f"Scaled up replica set settlement-api-{sa['rs']} to 2",
            ),
            (
                "21m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/settlement-api",
                "Scaled down replica set settlement-api-58b7c9d6f4 to 2 from 4",
            ),
            (
                "47s",
                "Warning",
                "FailedMount",
                f"Pod/{pod_name(sa, 't5wnb')}",
                mount.format(pod=pod_name(sa, "t5wnb")),
            ),
        ]
    )
    evs = [
        ev(
            "cloudtrail",
            "info",
            '{"eventSource":"secretsmanager.amazonaws.com","eventName":"DeleteSecret","requestParameters":{"secretId":"prod/settlement/db","forceDeleteWithoutRecovery":true},"userIdentity":{"arn":"arn:aws:sts::123456789012:assumed-role/sec-automation/SEC-1107"}}',
            at=-80000,
        ),
        ev(
            "cloudtrail",
            "info",
            '{"eventSource":"secretsmanager.amazonaws.com","eventName":"CreateSecret","requestParameters":{"name":"prod/payments/settlement-db"},"userIdentity":{"arn":"arn:aws:sts::123456789012:assumed-role/sec-automation/SEC-1107"}}',
            at=-80060,
        ),
        ev(
            "secrets-store-csi-driver",
            "error",
            'E1207 10:{n}.{ms}       1 nodeserver.go:245] "failed to mount secrets store object content" err="rpc error: code = Unknown desc = eu-west-1: Failed fetching secret prod/settlement/db: ResourceNotFoundException: '
            + sig
            + '" pod="settlement/settlement-api-6c5f8d7b99-t5wnb"',
            **every(start + 20, -30, 70),
            labels={"host": NODES_DUB[0][0]},
        ),
        ev(
            "settlement-api",
            "warn",
            "2026-12-07T10:{n}Z WARN  [settle-{ms}] i.s.settlement.BatchRunner : batch {n} took {n} ms, worker pool saturated (16/16)",
            **every(start + 120, -5, 20),
            pods=[pod_name(sa, "a3vcx"), pod_name(sa, "j7drp")],
        ),
        ev(
            "reconciliation",
            "error",
            "2026-12-07T10:{n}Z ERROR Recon : Visa TC33 file 2026-12-07 not matched: 1,{n} open items (settlement timeout)",
            **every(start + 400, -10, 90),
            pods=pods_of(recon),
        ),
        ev(
            "argocd",
            "info",
            'time="2026-12-07T10:{n}Z" level=info msg="SecretProviderClass settlement/settlement-secrets unchanged: objects[0].objectName=prod/settlement/db objectType=secretsmanager" application=argocd/settlement-api',
            at=start - 25,
        ),
        ev(
            "github-actions",
            "info",
            "settlement-api release 9.1.0: helm upgrade settlement-api ./chart --set image.tag=9.1.0 (interchange fee rounding fix)",
            at=start - 30,
        ),
        ev(
            "reconciliation",
            "error",
            "2026-12-07T07:{n}Z ERROR Recon : Mastercard T464 download failed: 503",
            **every(-10500, -9900, 100),
            pods=pods_of(recon),
        ),
    ]
    return kube_case(
        seed=537,
        start=start,
        inc=incident("Card settlement running very slow", "card settlement", start),
        exp=expected(
            "platform",
            [
                "secretproviderclass/settlement-secrets",
                "settlement-secrets",
                "prod/settlement/db",
                "secrets manager",
                "SEC-1107",
                "deployment/settlement-api",
            ],
            sig,
            "The security team's clean-up (SEC-1107) renamed the secret prod/settlement/db to prod/payments/settlement-db in AWS Secrets Manager by creating the new one and deleting the old one. The SecretProviderClass settlement-secrets still names prod/settlement/db, so the CSI driver cannot mount the volume and settlement-api 9.1.0's new pods stay ContainerCreating (FailedMount). The rollout holds with two old pods, whose worker pools saturate. The release itself, reconciliation's errors and the old Mastercard 503s are not the cause.",
            [
                "Pod settlement-api: FailedMount … Failed fetching secret prod/settlement/db: ResourceNotFoundException",
                "cloudtrail: DeleteSecret prod/settlement/db (SEC-1107)",
                "secretproviderclass settlement-secrets objectName prod/settlement/db",
            ],
            "Point settlement-secrets at prod/payments/settlement-db (or restore the old name); the pods mount and start.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "settlement-api",
                [pod_name(sa, "a3vcx"), pod_name(sa, "j7drp")],
                [
                    "2026-12-07T10:{n}Z INFO  [http-{ms}] i.s.settlement.Access : POST /v1/settlements 202 {ms}ms"
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("settlement-api", 30, {"500": (0.001, 0.001)}, (0.2, 1.6))],
        books={
            "settlement-slow.md": runbook(
                "Settlement slow",
                "Slow settlement at month end: raise the batch worker pool (SETTLE_WORKERS=32) and restart settlement-api.",
            )
        },
    )


# =================================================================================================
# 10. Pass-through (reverse proxy): a regional newspaper's WordPress runs on two VMs, nginx in front
#     of PHP-FPM. The Puppet module upgrade puppet-php 10.0 renamed the pool parameter
#     (pm_max_children -> 'pm.max_children' in a settings hash); the old key is ignored and the
#     template falls back to pm.max_children = 5. nginx loudly logs 502/504 and "Resource temporarily
#     unavailable" on the FPM socket; FPM's own log says it reached pm.max_children. The election
#     live blog (traffic, not the cause) makes it visible. The incident says "news site".
# =================================================================================================


@scenario("php-fpm-max-children-reset-by-puppet-module")
def php_fpm_max_children_reset_by_puppet_module() -> dict[str, Any]:
    start = -1900
    sig = "WARNING: [pool www] server reached pm.max_children setting (5), consider raising it"
    evs = [
        ev(
            "puppet",
            "info",
            "Notice: /Stage[main]/Php::Fpm/Php::Fpm::Pool[www]/File[/etc/php/8.3/fpm/pool.d/www.conf]/content: content changed '{sha256}6f1c…' to '{sha256}a94e…' (puppet-php 10.0.0)",
            at=start - 420,
            labels={"host": "web-01"},
        ),
        ev(
            "puppet",
            "warn",
            "Warning: Php::Fpm::Pool[www]: parameter 'pm_max_children' is deprecated and ignored, use settings => {'pm.max_children' => ...}",
            at=start - 421,
            labels={"host": "web-01"},
        ),
        ev(
            "puppet",
            "info",
            "Notice: /Stage[main]/Php::Fpm/Service[php8.3-fpm]: Triggered 'refresh' from 1 event",
            at=start - 418,
            labels={"host": "web-01"},
        ),
        ev(
            "puppet",
            "info",
            "Notice: /Stage[main]/Php::Fpm/Php::Fpm::Pool[www]/File[/etc/php/8.3/fpm/pool.d/www.conf]/content: content changed (puppet-php 10.0.0)",
            at=start - 300,
            labels={"host": "web-02"},
        ),
        ev(
            "php-fpm",
            "warn",
            "[07-Dec-2026 19:{n}] " + sig,
            **every(start, -20, 45),
            labels={"host": "web-01"},
        ),
        ev(
            "php-fpm",
            "warn",
            "[07-Dec-2026 19:{n}] " + sig,
            **every(start + 30, -20, 45),
            labels={"host": "web-02"},
        ),
        ev(
            "php-fpm",
            "notice",
            "[07-Dec-2026 19:{n}] NOTICE: fpm is running, pid 1184; ready to handle connections (pool www: pm = dynamic, pm.max_children = 5)",
            at=start - 418,
            labels={"host": "web-01"},
        ),
        ev(
            "nginx",
            "error",
            '2026/12/07 19:{n} [error] 1302#1302: *{n} connect() to unix:/run/php/php8.3-fpm.sock failed (11: Resource temporarily unavailable) while connecting to upstream, client: 10.0.1.{ms}, server: www.vestkysten-avis.example, request: "GET /valg-2026/live HTTP/1.1", upstream: "fastcgi://unix:/run/php/php8.3-fpm.sock:", host: "www.vestkysten-avis.example"',
            **every(start + 5, -2, 6),
        ),
        ev(
            "nginx",
            "error",
            '2026/12/07 19:{n} [error] 1302#1302: *{n} upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.0.1.{ms}, server: www.vestkysten-avis.example, request: "GET /nyheder/{n} HTTP/1.1", upstream: "fastcgi://unix:/run/php/php8.3-fpm.sock:"',
            **every(start + 7, -2, 9),
        ),
        ev(
            "wordpress",
            "info",
            "[07-Dec-2026 18:{n} UTC] live-blog: election night live blog published, push notification sent to 182,000 subscribers",
            at=start + 40,
        ),
        ev(
            "mysql",
            "warn",
            "2026-12-07T19:{n}Z 0 [Warning] [MY-010055] [Server] IP address '10.0.1.{ms}' could not be resolved: Name or service not known",
            **every(-6500, -200, 600),
        ),
        ev(
            "wordpress",
            "error",
            "[07-Dec-2026 16:{n} UTC] PHP Fatal error:  Allowed memory size of 268435456 bytes exhausted (tried to allocate 20480 bytes) in /var/www/html/wp-content/plugins/wp-sitemap-news/generator.php on line 211",
            **every(-10600, -10100, 120),
        ),
    ]
    return simple(
        538,
        start,
        incident(
            "News site down / 502 during election coverage",
            "news site",
            start,
            ["502 Bad Gateway"],
        ),
        expected(
            "application",
            [
                "php-fpm",
                "www.conf",
                "pm.max_children",
                "puppet-php",
                "php8.3-fpm",
                "pool www",
            ],
            sig,
            "The Puppet module upgrade puppet-php 10.0 ignores the old pm_max_children parameter, so the rewritten www.conf on web-01 and web-02 fell back to pm.max_children = 5 and PHP-FPM was restarted with it. With five workers per host the pool is full at normal evening traffic: nginx cannot connect to the FPM socket (Resource temporarily unavailable) or times out and returns 502/504. nginx only relays the origin's refusal; the election live blog is the load, not the cause; MySQL's resolve warnings and the old sitemap memory error are not the cause.",
            [
                f"php-fpm web-01/web-02: {sig}",
                "puppet: pool.d/www.conf content changed (puppet-php 10.0.0); pm_max_children ignored",
                "nginx: connect() to unix:/run/php/php8.3-fpm.sock failed (11: Resource temporarily unavailable)",
            ],
            "Set 'pm.max_children' (and the spare-server settings) in the new settings hash, run Puppet on both hosts, and pin puppet-php until the pools are migrated.",
        ),
        [
            bg(
                "nginx",
                ["web-01", "web-02"],
                [
                    '10.0.1.{ms} - - [07/Dec/2026:19:{n} +0000] "GET /nyheder/{n} HTTP/1.1" 200 {n} "-" "Mozilla/5.0"'
                ],
                8,
            )
        ],
        evs,
        [svc("nginx", 300, {"502": (0.0, 0.22), "504": (0.0, 0.06)}, (0.12, 3.5))],
        [
            gauge(
                "phpfpm_active_processes",
                {"pool": "www", "host": "web-01"},
                11,
                5,
                start - 418,
            ),
            gauge(
                "phpfpm_listen_queue", {"pool": "www", "host": "web-01"}, 0, 128, start
            ),
        ],
        {
            "site-502.md": runbook(
                "502 from the news site",
                "502s under load mean the database is saturated: enable the WP Super Cache 'emergency' preset and ask the DBA to kill long queries on mysql-01.",
            )
        },
    )


# =================================================================================================
# 11. Health endpoint green while broken (netcheck): image-proxy (Go, EC2 behind an ALB) resizes
#     product images from S3. A Terraform refactor (infra PR #517, "one role per tier") attached the
#     shared web-tier instance profile, which has no s3:GetObject on the media bucket. /healthz is a
#     static 200, the ALB keeps every target healthy; every image request is a 500 with AccessDenied
#     in the service's own log. The shop's pages render with broken images. The incident says
#     "product images".
# =================================================================================================


@scenario("instance-profile-swap-health-green-s3-denied")
def instance_profile_swap_health_green_s3_denied() -> dict[str, Any]:
    start = -2100
    sig = 'api error AccessDenied: User: arn:aws:sts::210987654321:assumed-role/web-tier-role/i-0c4f8e2a91d7b3356 is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::ruta-media-prod/products/'
    hosts = ["img-proxy-a", "img-proxy-b"]
    evs = [
        ev(
            "image-proxy",
            "error",
            'time=2026-12-07T14:{n}Z level=ERROR msg="fetch original" key=products/{n}.jpg err="operation error S3: GetObject, https response error StatusCode: 403, RequestID: {n}, '
            + sig
            + '{n}.jpg\\" because no identity-based policy allows the s3:GetObject action"',
            **every(start, -2, 6),
            labels={"host": "img-proxy-a"},
        ),
        ev(
            "image-proxy",
            "error",
            'time=2026-12-07T14:{n}Z level=ERROR msg="fetch original" key=products/{n}.jpg err="operation error S3: GetObject, https response error StatusCode: 403, RequestID: {n}, '
            + sig.replace("i-0c4f8e2a91d7b3356", "i-07a1b9c3d5e2f4861")
            + '{n}.jpg\\" because no identity-based policy allows the s3:GetObject action"',
            **every(start + 1, -2, 6),
            labels={"host": "img-proxy-b"},
        ),
        ev(
            "image-proxy",
            "info",
            'time=2026-12-07T14:{n}Z level=INFO msg="GET /healthz" status=200 dur=0.1ms',
            **every(-3600, -5, 30),
        ),
        ev(
            "terraform",
            "info",
            'atlantis apply infra PR #517 (one role per tier): module.image_proxy.aws_instance.this[0]: Modifying... [iam_instance_profile: "image-proxy-profile" => "web-tier-profile"] ... Apply complete! Resources: 0 added, 2 changed, 1 destroyed.',
            at=start - 90,
        ),
        ev(
            "shop-web",
            "warn",
            '{"level":"warn","msg":"image placeholder served","src":"https://img.ruta-shop.example/p/{n}/800.webp","status":500}',
            **every(start + 20, -3, 5),
        ),
        ev(
            "shop-web",
            "info",
            '{"level":"info","msg":"shop-web 2026.12.07-1 deployed (checkout copy update)"}',
            at=-5200,
        ),
        ev(
            "cloudfront",
            "info",
            "2026-12-07\t14:{n}\tHEL51-P1\t512\t10.{ms}.{ms}.{ms}\tGET\timg.ruta-shop.example\t/p/{n}/800.webp\t500\t-\tMozilla/5.0\tError",
            **every(start + 10, -3, 7),
        ),
        ev(
            "image-proxy",
            "warn",
            'time=2026-12-07T11:{n}Z level=WARN msg="libvips: unsupported ICC profile, using sRGB" key=products/{n}.jpg',
            **every(-10400, -9800, 150),
            labels={"host": "img-proxy-a"},
        ),
    ]
    spec = simple(
        539,
        start,
        incident("Product images missing on the shop", "product images", start),
        expected(
            "http",
            [
                "image-proxy",
                "web-tier-role",
                "web-tier-profile",
                "iam instance profile",
                "s3:GetObject",
                "infra PR #517",
            ],
            "is not authorized to perform: s3:GetObject on resource",
            "Infra PR #517 replaced image-proxy's instance profile with the shared web-tier-profile, whose role web-tier-role has no s3:GetObject on ruta-media-prod. Every original fetch fails with 403 AccessDenied and image-proxy answers 500, but its /healthz is static, so the ALB keeps both targets healthy and nothing alerts. CloudFront and shop-web only show the 500s; shop-web's release and the old ICC warnings are not the cause.",
            [
                "image-proxy: S3 GetObject 403 … web-tier-role … is not authorized to perform: s3:GetObject",
                "terraform: iam_instance_profile image-proxy-profile => web-tier-profile (PR #517)",
                "netcheck: images http_500 while image-proxy-health 200",
            ],
            "Attach image-proxy-profile back (or grant web-tier-role s3:GetObject on ruta-media-prod/products/*), and make /healthz fetch a known object.",
        ),
        [
            bg(
                "image-proxy",
                hosts,
                [
                    'time=2026-12-07T14:{n}Z level=INFO msg="served" path=/p/{n}/400.webp status=200 cache=hit dur={ms}ms'
                ],
                8,
            )
        ],
        evs,
        [svc("image-proxy", 150, {"500": (0.0, 0.88)}, (0.05, 0.03))],
        [
            gauge(
                "aws_alb_healthy_host_count",
                {"target_group": "image-proxy"},
                2,
                2,
                start,
            )
        ],
        {
            "images-broken.md": runbook(
                "Broken product images",
                "Broken images after a catalog import mean the originals are missing: re-run the media sync job (`mediasync --since 24h`) and purge CloudFront for /p/*.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "images",
                "url": "https://img.ruta-shop.example/p/88213/800.webp",
                "fault": {
                    "kind": "http_status",
                    "status": 500,
                    "body": "upstream fetch failed",
                    "paths": {"/healthz": 200},
                },
            },
            {
                "name": "image-proxy-health",
                "url": "https://img.ruta-shop.example/healthz",
                "fault": {
                    "kind": "http_status",
                    "status": 500,
                    "body": "upstream fetch failed",
                    "paths": {"/healthz": 200},
                },
            },
        ],
        "images",
        {
            "images": {"failed_layer": "http", "reason": "http_500"},
            "image-proxy-health": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 12. Latency only: fare-search (Java 21, Spring Boot) on ECS Fargate. A cost-saving PR (infra
#     PR #902) halved the task definition to cpu 1024 / memory 2048. With one CPU and under 1792 MB
#     the JVM's ergonomics no longer select G1 but the Serial collector; nobody set -XX:+UseG1GC.
#     No errors anywhere, p99 triples with stop-the-world pauses. The incident says "flight search".
# =================================================================================================


@scenario("fargate-cpu-halved-jvm-picks-serial-gc")
def fargate_cpu_halved_jvm_picks_serial_gc() -> dict[str, Any]:
    start = -2600
    tasks = [
        "fare-search/9f1c2e",
        "fare-search/4ab7d0",
        "fare-search/e62f18",
        "fare-search/0c93b5",
    ]
    sig = "[0.004s][info][gc] Using Serial"
    evs = [
        ev("fare-search", "info", sig, at=start - 60, pods=tasks),
        ev(
            "fare-search",
            "info",
            "[0.005s][info][gc,init] Version: 21.0.5+11-LTS (release)\n[0.005s][info][gc,init] CPUs: 1 total, 1 available\n[0.005s][info][gc,init] Memory: 2048M\n[0.005s][info][gc,init] Heap Max Capacity: 512M",
            at=start - 60,
            pods=tasks,
        ),
        ev(
            "fare-search",
            "info",
            "[{n}.{ms}s][info][gc] GC(1{n}) Pause Young (Allocation Failure) {n}M->{n}M(494M) {ms}.{ms}ms",
            **every(start, -5, 9),
            pods=tasks,
        ),
        ev(
            "fare-search",
            "info",
            "[{n}.{ms}s][info][gc] GC({n}) Pause Full (Allocation Failure) 471M->{n}M(494M) 8{ms}.{ms}ms",
            **every(start + 30, -5, 120),
            pods=tasks,
        ),
        ev(
            "fare-search",
            "info",
            "[7d.{ms}s][info][gc] Using G1",
            at=-9500,
            pods=["fare-search/71be33", "fare-search/a80d2c"],
        ),
        ev(
            "terraform",
            "info",
            'infra PR #902 (rightsize fare-search, save $3.1k/month): aws_ecs_task_definition.fare_search: cpu "2048" => "1024", memory "4096" => "2048"; aws_ecs_service.fare_search: task_definition => fare-search:214',
            at=start - 200,
        ),
        ev(
            "ecs",
            "info",
            "(service fare-search) has reached a steady state. (deployment ecs-svc/8812 task definition fare-search:214)",
            at=start - 20,
        ),
        ev(
            "gds-connector",
            "info",
            '{"level":"info","msg":"amadeus session pool refreshed","sessions":{ms}}',
            **every(-7000, -100, 600),
        ),
        ev(
            "web-frontend",
            "warn",
            '{"level":"warn","msg":"search took long","endpoint":"/api/search","ms":{n}}',
            **every(start + 60, -5, 15),
        ),
        ev(
            "web-frontend",
            "info",
            '{"level":"info","msg":"web-frontend 4.88.0 deployed (date picker redesign)"}',
            at=-6000,
        ),
        ev(
            "fare-search",
            "error",
            "2026-12-07 09:{n} ERROR [pricing-{ms}] f.s.AmadeusClient : SOAP fault: Session limit reached",
            **every(-10500, -9900, 120),
            pods=tasks,
        ),
    ]
    return simple(
        540,
        start,
        incident("Flight search slow since this morning", "flight search", start),
        expected(
            "application",
            [
                "fare-search",
                "serial gc",
                "fare-search:214",
                "task definition",
                "infra PR #902",
                "-XX:+UseG1GC",
            ],
            sig,
            "Infra PR #902 halved fare-search's ECS task definition to 1 vCPU and 2 GB. With one CPU and less than 1792 MB the JVM's ergonomics choose the Serial collector instead of G1 (no collector is set explicitly) and a quarter of the memory as heap, so every collection stops the application and full GCs take close to a second: p99 triples with no error. The date-picker release, the Amadeus session refresh and the old SOAP faults are not the cause.",
            [
                f"fare-search JVM start: {sig}; CPUs: 1 total",
                "terraform: cpu 2048 => 1024, memory 4096 => 2048 (PR #902)",
                "fare-search: Pause Full (Allocation Failure) ~800 ms",
            ],
            "Set -XX:+UseG1GC and -XX:MaxRAMPercentage=70 in JAVA_TOOL_OPTIONS, or give the task 2 vCPUs back.",
        ),
        [
            bg(
                "fare-search",
                tasks,
                [
                    "2026-12-07 10:{n} INFO [http-nio-8080-exec-{ms}] f.s.SearchController : search OSL-{ms} 200 {ms}ms"
                ],
                8,
            )
        ],
        evs,
        [
            svc("fare-search", 80, {"500": (0.002, 0.002)}, (0.35, 1.3)),
            svc("web-frontend", 120, {"500": (0.001, 0.001)}, (0.5, 1.5)),
        ],
        [
            gauge(
                "jvm_gc_pause_seconds_max",
                {"service": "fare-search"},
                0.03,
                0.85,
                start,
            ),
            gauge(
                "ecs_task_cpu_utilization", {"service": "fare-search"}, 45, 88, start
            ),
        ],
        {
            "search-slow.md": runbook(
                "Flight search slow",
                "Slow search is usually the GDS: check Amadeus latency on the gds-connector dashboard and reduce the number of carriers queried per search (SEARCH_FANOUT=8).",
            )
        },
    )


# =================================================================================================
# 13. Latency only: a travel-guide publisher's Varnish in front of a Django site. A VCL change
#     (MR !58, "don't cache pages for logged-in editors") stops stripping cookies in vcl_recv and
#     adds `Vary: Cookie` for all pages; every visitor carries analytics and consent cookies, so
#     the hit ratio falls from 92 % to 6 % and the origin serves everything. No errors, only
#     latency. The incident says "website slow".
# =================================================================================================


@scenario("vcl-vary-cookie-collapses-hit-ratio")
def vcl_vary_cookie_collapses_hit_ratio() -> dict[str, Any]:
    start = -2200
    sig = "vcl.use vcl-20261207-1034 (default.vcl: MR !58 keep cookies, Vary: Cookie)"
    evs = [
        ev(
            "varnish",
            "info",
            f"Dec  7 10:34:12 cache-01 varnishd[812]: CLI telnet 127.0.0.1 51322 127.0.0.1 6082 Rd {sig}",
            at=start - 30,
            labels={"host": "cache-01"},
        ),
        ev(
            "varnish",
            "info",
            f"Dec  7 10:34:15 cache-02 varnishd[790]: CLI telnet 127.0.0.1 40811 127.0.0.1 6082 Rd {sig}",
            at=start - 27,
            labels={"host": "cache-02"},
        ),
        ev(
            "gitlab-ci",
            "info",
            'MR !58 merged (don\'t cache pages for logged-in editors): default.vcl: remove `unset req.http.Cookie` in vcl_recv; vcl_backend_response: set beresp.http.Vary = "Accept-Encoding, Cookie"; deploy job varnish-reload ok',
            at=start - 60,
        ),
        ev(
            "varnish",
            "info",
            "-   RespHeader     Vary: Accept-Encoding, Cookie\n-   VCL_call       MISS\n-   ReqHeader      Cookie: _ga=GA1.2.{n}; OptanonConsent=isGpcEnabled=0&datestamp={n}",
            **every(start, -5, 30),
            labels={"host": "cache-01"},
        ),
        ev(
            "gunicorn",
            "info",
            '10.0.5.{ms} - - [07/Dec/2026:11:{n} +0000] "GET /guides/{n}/ HTTP/1.1" 200 {n} "-" "Varnish" {n}ms',
            **every(start, -2, 4),
        ),
        ev(
            "gunicorn",
            "warn",
            "[2026-12-07 11:{n} +0000] [{n}] [WARNING] worker busy, backlog {ms}",
            **every(start + 300, -5, 60),
        ),
        ev(
            "postgres",
            "info",
            "2026-12-07 11:{n} UTC [{n}] LOG:  duration: {n}.{ms} ms  statement: SELECT ... FROM guides_article WHERE slug = $1",
            **every(start + 120, -5, 40),
        ),
        ev("django", "info", "deploy guides-web 2026.12.7 (new map widget)", at=-6600),
        ev(
            "cloudflare",
            "warn",
            "Bot Fight Mode challenged {n} requests from AS{n} in the last 5m",
            **every(-7000, -100, 900),
        ),
        ev(
            "django",
            "error",
            "ERROR 2026-12-07 08:{n} django.request Internal Server Error: /sitemap-images.xml OperationalError: canceling statement due to statement timeout",
            **every(-10500, -10000, 150),
        ),
    ]
    return simple(
        541,
        start,
        incident("Website slow", "website", start),
        expected(
            "application",
            [
                "varnish",
                "default.vcl",
                "Vary: Cookie",
                "MR !58",
                "vcl-20261207-1034",
                "cache hit ratio",
            ],
            "Vary: Accept-Encoding, Cookie",
            "MR !58 changed default.vcl to keep cookies and to vary every page on Cookie. Every visitor carries analytics and consent cookies, so nearly every request is a cache miss (hit ratio 92 % to 6 %) and the Django origin renders every page: latency rises with no errors. The map-widget release, Cloudflare's bot challenges and the old sitemap timeouts are not the cause.",
            [
                "varnish: vcl.use vcl-20261207-1034 (MR !58)",
                "varnishlog: Vary: Accept-Encoding, Cookie, MISS with _ga / OptanonConsent cookies",
                "varnish_cache_hit_ratio 0.92 -> 0.06",
            ],
            "Roll back to the previous VCL (varnishadm vcl.use), then bypass the cache only for requests with the editor session cookie and strip the rest.",
        ),
        [
            bg(
                "gunicorn",
                ["guides-web-1", "guides-web-2"],
                [
                    '10.0.5.{ms} - - [07/Dec/2026:11:{n} +0000] "GET /static/{n}.css HTTP/1.1" 200 {n} "-" "Varnish" {ms}ms'
                ],
                10,
            )
        ],
        evs,
        [
            svc("varnish", 400, {"503": (0.0, 0.0)}, (0.02, 0.9)),
            svc("guides-web", 30, {"500": (0.001, 0.001)}, (0.12, 0.8)),
        ],
        [
            gauge("varnish_cache_hit_ratio", {"host": "cache-01"}, 0.92, 0.06, start),
            gauge(
                "guides_web_requests_per_second",
                {"service": "guides-web"},
                32,
                370,
                start,
            ),
        ],
        {
            "site-slow.md": runbook(
                "Website slow",
                "Slowness is usually PostgreSQL: look for slow queries in pg_stat_statements, run VACUUM ANALYZE on guides_article and restart gunicorn.",
            )
        },
    )


# =================================================================================================
# 14. Quiet cause a quota (netcheck): a shop-builder SaaS serves customer domains through Caddy's
#     on-demand TLS. A Nomad job change (PR #77, "move edge to the new cluster") dropped the host
#     volume for /data, so Caddy's certificate storage is empty on every restart; three restarts
#     in the deploy re-issued every certificate until Let's Encrypt's rate limit for new orders
#     was hit. Existing customer domains kept their certificates in memory; newly onboarded
#     domains get none and Caddy falls back to the platform's default certificate. The loud
#     victim: the onboarding service's failed checks. The incident says "new shops".
# =================================================================================================


@scenario("caddy-storage-lost-acme-rate-limit")
def caddy_storage_lost_acme_rate_limit() -> dict[str, Any]:
    start = -2300
    sig = "urn:ietf:params:acme:error:rateLimited - Error creating new order :: too many new orders recently: see https://letsencrypt.org/docs/rate-limits/#new-orders-per-account"
    evs = [
        ev(
            "caddy",
            "error",
            '{"level":"error","ts":17335{n}.{ms},"logger":"tls.obtain","msg":"could not get certificate from issuer","identifier":"shop.{n}-keramik.example","issuer":"acme-v02.api.letsencrypt.org-directory","error":"HTTP 429 '
            + sig
            + '"}',
            **every(start, -10, 40),
        ),
        ev(
            "caddy",
            "info",
            '{"level":"info","ts":17335{n}.{ms},"logger":"tls","msg":"storage cleaning happened too recently; skipping for now","storage":"FileStorage:/data/caddy","instance":"new","try_again":8.64e13}',
            at=start - 5400,
        ),
        ev(
            "caddy",
            "info",
            '{"level":"info","ts":17335{n}.{ms},"logger":"tls.obtain","msg":"certificate obtained successfully","identifier":"{n}.butikk-byggeren.example"}',
            **every(start - 5400, start - 120, 20),
        ),
        ev(
            "nomad",
            "info",
            '2026-12-07T09:{n}Z [INFO]  client.alloc_runner: job edge-caddy v58 (PR #77 move edge to the new cluster): volume_mount "caddy-data" removed; alloc restarted (3 times during rollout)',
            at=start - 5500,
        ),
        ev(
            "onboarding",
            "error",
            '{"level":"error","msg":"domain verification failed","domain":"www.{n}-studio.example","check":"https","error":"x509: certificate is valid for *.butikk-byggeren.example, butikk-byggeren.example, not www.{n}-studio.example"}',
            **every(start + 60, -5, 25),
        ),
        ev(
            "onboarding",
            "info",
            '{"level":"info","msg":"onboarding 3.2.0 deployed (new DNS wizard)"}',
            at=-4200,
        ),
        ev(
            "stripe-webhooks",
            "warn",
            '{"level":"warn","msg":"webhook retry","event":"invoice.payment_failed","attempt":{ms}}',
            **every(-7000, -100, 500),
        ),
        ev(
            "caddy",
            "error",
            '{"level":"error","ts":17335{n}.{ms},"logger":"http.log.error","msg":"dial tcp 10.1.4.{ms}:8080: connect: connection refused","request":{"host":"{n}.butikk-byggeren.example"}}',
            **every(-10600, -10000, 100),
        ),
    ]
    spec = simple(
        542,
        start,
        incident(
            "New customers' shops show a certificate warning",
            "new shops",
            start,
            ["NET::ERR_CERT_COMMON_NAME_INVALID"],
        ),
        expected(
            "tls",
            [
                "caddy",
                "edge-caddy",
                "letsencrypt",
                "rate limit",
                "caddy-data",
                "PR #77",
            ],
            "too many new orders recently",
            "PR #77 moved the Caddy edge to the new Nomad cluster without the caddy-data host volume, so /data (the certificate storage) was empty and the three restarts of the rollout re-issued every customer certificate. That spent the Let's Encrypt account's new-orders rate limit; certificates for domains onboarded since cannot be obtained (429 rateLimited), Caddy serves the platform's default certificate for them and browsers warn. The onboarding service's failed checks are the victim; its release, Stripe webhook retries and the old connection refusals are not the cause.",
            [
                f"caddy tls.obtain: HTTP 429 {sig}",
                "nomad: edge-caddy v58 volume_mount caddy-data removed",
                "netcheck: new-shop certificate_name_mismatch, existing shop fine",
            ],
            "Restore the caddy-data volume (so certificates persist), wait out or raise the rate limit (or use a second ACME CA such as ZeroSSL as fallback issuer), then retry the pending domains.",
        ),
        [
            bg(
                "caddy",
                ["edge-1", "edge-2"],
                [
                    '{"level":"info","logger":"http.log.access","msg":"handled request","request":{"host":"{n}.butikk-byggeren.example","uri":"/"},"status":200,"duration":0.0{ms}}'
                ],
                8,
            )
        ],
        evs,
        [svc("onboarding", 2, {"500": (0.0, 0.0)}, (0.2, 0.2))],
        [
            gauge(
                "caddy_acme_orders_failed_total_rate",
                {"issuer": "letsencrypt"},
                0,
                1.5,
                start,
            ),
            gauge("onboarding_domains_pending", {"check": "https"}, 1, 37, start),
        ],
        {
            "custom-domain.md": runbook(
                "Customer domain shows a certificate warning",
                "Almost always the customer's DNS: the CNAME must point to edge.butikk-byggeren.example. Ask the customer to fix the record and press 'verify again'.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "new-shop",
                "url": "https://www.lerverk-studio.example/",
                "fault": {
                    "kind": "tls_wrong_host",
                    "cert_names": [
                        "*.butikk-byggeren.example",
                        "butikk-byggeren.example",
                    ],
                },
            },
            {
                "name": "existing-shop",
                "url": "https://shop.fjellgarn.example/",
                "fault": {"kind": "ok"},
            },
        ],
        "new-shop",
        {
            "new-shop": {"failed_layer": "tls", "reason": "certificate_name_mismatch"},
            "existing-shop": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 15. Pass-through + startup (netcheck): an insurer's claims-api (Java) runs under systemd on two
#     VMs behind HAProxy. The Ansible role `java` 3.0 installs Temurin 21 under /opt/java/21 and
#     removes older JDKs; the claims-api unit still says ExecStart=/opt/jdk-17/bin/java. After the
#     weekly patch run restarted the services, systemd fails with 203/EXEC and restarts in a loop.
#     HAProxy (the loud one) returns 503 "no server available"; the adjusters' portal shows errors.
#     The incident says "claims portal".
# =================================================================================================


@scenario("systemd-execstart-jdk-removed-by-role")
def systemd_execstart_jdk_removed_by_role() -> dict[str, Any]:
    start = -1700
    sig = "claims-api.service: Failed to locate executable /opt/jdk-17/bin/java: No such file or directory"
    evs = []
    for host in ("claims-01", "claims-02"):
        evs += [
            ev(
                "systemd",
                "error",
                f"Dec 07 08:{{n}} {host} systemd[1]: {sig}",
                **every(start, -10, 60),
                labels={"host": host},
            ),
            ev(
                "systemd",
                "error",
                f"Dec 07 08:{{n}} {host} systemd[1]: claims-api.service: Main process exited, code=exited, status=203/EXEC",
                **every(start + 1, -10, 60),
                labels={"host": host},
            ),
            ev(
                "systemd",
                "info",
                f"Dec 07 08:{{n}} {host} systemd[1]: claims-api.service: Scheduled restart job, restart counter is at {{n}}.",
                **every(start + 2, -10, 60),
                labels={"host": host},
            ),
            ev(
                "ansible",
                "info",
                f"TASK [java : Remove unmanaged JDKs] changed: [{host}] => (item=/opt/jdk-17)\nTASK [java : Install Temurin 21] changed: [{host}] => /opt/java/21 (role java 3.0.0)",
                at=start - 200,
                labels={"host": host},
            ),
        ]
    evs += [
        ev(
            "ansible",
            "info",
            "PLAY RECAP (weekly-patch.yml, AWX job 5512) claims-01 : ok=61 changed=7 failed=0 ; claims-02 : ok=61 changed=7 failed=0 ; handler 'restart services' ran",
            at=start - 60,
        ),
        ev(
            "haproxy",
            "warn",
            'Dec 07 08:{n} lb-01 haproxy[2231]: Server claims/claims-01 is DOWN, reason: Layer4 connection problem, info: "Connection refused", check duration: 0ms. 1 active and 0 backup servers left.',
            at=start + 5,
        ),
        ev(
            "haproxy",
            "error",
            "Dec 07 08:{n} lb-01 haproxy[2231]: backend claims has no server available!",
            at=start + 9,
        ),
        ev(
            "haproxy",
            "info",
            'Dec 07 08:{n} lb-01 haproxy[2231]: 10.20.{ms}.{ms}:{n} [07/Dec/2026:08:{n}.{ms}] https~ claims/<NOSRV> 0/-1/-1/-1/0 503 217 - - SC-- {ms}/{ms}/0/0/0 0/0 "POST /api/v3/claims/{n}/assessments HTTP/1.1"',
            **every(start + 10, -3, 6),
        ),
        ev(
            "adjuster-portal",
            "error",
            '[2026-12-07 08:{n}] production.ERROR: Claims API error 503 Service Unavailable {"claim":"CLM-{n}","user":"adj-{ms}"}',
            **every(start + 15, -5, 10),
        ),
        ev(
            "adjuster-portal",
            "info",
            "[2026-12-07 06:{n}] production.INFO: Deployed adjuster-portal v2.19.0 (photo upload limits)",
            at=-7800,
        ),
        ev(
            "docusign",
            "warn",
            "envelope status callback delayed {n}s",
            **every(-7000, -200, 700),
        ),
        ev(
            "claims-api",
            "error",
            "2026-12-07 05:{n} ERROR [quartz-{ms}] c.i.claims.FraudScoreJob - fraud-scoring: read timed out after 30000 ms",
            **every(-10500, -9900, 120),
            labels={"host": "claims-01"},
        ),
    ]
    spec = simple(
        543,
        start,
        incident(
            "Claims portal errors, adjusters can't save assessments",
            "claims portal",
            start,
        ),
        expected(
            "application",
            [
                "claims-api",
                "claims-api.service",
                "/opt/jdk-17/bin/java",
                "ExecStart",
                "ansible role java",
                "claims-01",
            ],
            sig,
            "The weekly patch run applied Ansible role java 3.0, which installs Temurin 21 under /opt/java/21 and removes /opt/jdk-17; claims-api's systemd unit still starts /opt/jdk-17/bin/java. On both VMs the restarted service fails with 203/EXEC and systemd keeps restarting it, so nothing listens on 8443. HAProxy marks both servers down and answers 503 (it only relays the origin's absence); the adjuster portal's errors, its release, DocuSign delays and the old fraud-scoring timeouts are not the cause.",
            [
                f"systemd claims-01/claims-02: {sig}, status=203/EXEC",
                "ansible: Remove unmanaged JDKs /opt/jdk-17 (role java 3.0.0)",
                "netcheck: claims-api connect/refused, HAProxy 503",
            ],
            "Point ExecStart at /opt/java/21/bin/java (or template it from the role's java_home), daemon-reload and start claims-api on both VMs.",
        ),
        [
            bg(
                "haproxy",
                ["lb-01"],
                [
                    'Dec 07 08:{n} lb-01 haproxy[2231]: 10.20.{ms}.{ms}:{n} [07/Dec/2026:08:{n}.{ms}] https~ portal/portal-01 0/0/1/{ms}/{ms} 200 {n} - - ---- "GET /claims/{n} HTTP/1.1"'
                ],
                8,
            )
        ],
        evs,
        [svc("haproxy-claims", 20, {"503": (0.0, 1.0)}, (0.15, 0.001))],
        [
            gauge(
                "haproxy_backend_active_servers", {"backend": "claims"}, 2, 0, start + 9
            )
        ],
        {
            "claims-portal.md": runbook(
                "Claims portal errors",
                "Portal errors after 08:00 are usually expired sessions after the nightly LDAP sync: clear the Laravel session store (`php artisan session:flush`) and ask adjusters to log in again.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "claims-lb",
                "url": "https://claims.forsikring-vest.example/api/v3/health",
                "fault": {
                    "kind": "http_status",
                    "status": 503,
                    "body": "<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>",
                },
            },
            {
                "name": "claims-api",
                "url": "https://claims-01.int.forsikring-vest.example/api/v3/health",
                "fault": {"kind": "connect_refused"},
            },
            {
                "name": "portal",
                "url": "https://adjusters.forsikring-vest.example/login",
                "fault": {"kind": "ok"},
            },
        ],
        "claims-api",
        {
            "claims-lb": {"failed_layer": "http", "reason": "http_503"},
            "claims-api": {"failed_layer": "connect", "reason": "refused"},
            "portal": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 16. Quiet cause a quota: a university's Moodle writes moodledata to a NetApp volume with a
#     per-project (qtree) quota of 2 TB. Automated course backups were switched on (ticket
#     LMS-3140, "backups before the new term") with backup_auto_destination left empty, so the
#     .mbz files land in moodledata/filedir as well; at 16:00 the qtree hit its hard limit. The loud
#     victim is Moodle itself: every upload fails with "Disk quota exceeded". The incident says
#     "students can't submit assignments".
# =================================================================================================


@scenario("course-backups-fill-moodledata-quota")
def course_backups_fill_moodledata_quota() -> dict[str, Any]:
    start = -2000
    sig = "fwrite(): Write of 8192 bytes failed with errno=122 Disk quota exceeded"
    hosts = ["lms-web-1", "lms-web-2", "lms-web-3"]
    evs = [
        ev(
            "moodle",
            "error",
            f"[Mon Dec 07 16:{{n}}.{{ms}} 2026] [proxy_fcgi:error] [pid {{n}}] [client 10.44.{{ms}}.{{ms}}:{{n}}] AH01071: Got error 'PHP message: PHP Warning:  {sig} in /var/www/moodle/lib/filestorage/file_system_filedir.php on line 490; PHP message: Default exception handler: Can not create local file pool directories, please verify permissions in dataroot. Debug: cannot write to /mnt/moodledata/filedir/8c/1f'",
            **every(start, -2, 10),
            labels={"host": "lms-web-1"},
        ),
        ev(
            "moodle",
            "error",
            f"[Mon Dec 07 16:{{n}}.{{ms}} 2026] [proxy_fcgi:error] [pid {{n}}] AH01071: Got error 'PHP message: PHP Warning:  {sig} in /var/www/moodle/lib/filestorage/file_system_filedir.php on line 490'",
            **every(start + 2, -2, 7),
            labels={"host": "lms-web-2"},
        ),
        ev(
            "ontap",
            "warn",
            "Mon Dec 07 16:{n}:00 +0100 [netapp-a1: wafl.quota.qtree.exceed:warning]: Quota exceeded (hard disk limit) on volume lms_data, qtree moodledata (2.00 TB used of 2.00 TB)",
            **every(start - 10, -30, 600),
        ),
        ev(
            "ontap",
            "info",
            "Mon Dec 07 14:{n}:00 +0100 [netapp-a1: wafl.quota.qtree.softlimit:notice]: qtree moodledata on volume lms_data at 95% of hard disk limit",
            at=start - 7000,
        ),
        ev(
            "moodle-cron",
            "info",
            "Automated backups: course {n} (backup-moodle2-course-{n}-20261207-1.mbz, {n} MB) saved to the course backup filearea (destination: not set)",
            **every(-70000, start - 60, 180),
        ),
        ev(
            "moodle-cron",
            "info",
            "Config change: backup | backup_auto_active = 1 (was 0) by admin user lms-admin, ticket LMS-3140",
            at=-90000,
        ),
        ev(
            "moodle",
            "info",
            "[Mon Dec 07 15:{n}.{ms} 2026] Moodle 4.4.5 upgrade to 4.4.6 (security) completed",
            at=-8000,
        ),
        ev(
            "turnitin",
            "warn",
            "Turnitin plugin: EULA check slow ({n} ms) for user {n}",
            **every(-7000, -100, 500),
        ),
        ev(
            "moodle",
            "error",
            "[Mon Dec 07 13:{n}.{ms} 2026] PHP Warning:  Redis::connect(): connect() failed: Connection timed out in /var/www/moodle/cache/stores/redis/lib.php",
            **every(-10500, -9900, 100),
            labels={"host": "lms-web-3"},
        ),
    ]
    return simple(
        544,
        start,
        incident("Students can't submit assignments", "assignment submissions", start),
        expected(
            "platform",
            [
                "moodledata",
                "qtree moodledata",
                "lms_data",
                "automated course backups",
                "backup_auto_destination",
                "LMS-3140",
            ],
            sig,
            "Automated course backups were switched on (LMS-3140) with no backup destination, so every course's .mbz files are stored in moodledata's file pool. The NetApp qtree moodledata on volume lms_data reached its 2 TB hard quota at 16:00; every write to the file pool now fails with errno 122 Disk quota exceeded, so uploads and assignment submissions fail. The Moodle patch release, Turnitin's slow EULA checks and the old Redis timeouts are not the cause.",
            [
                f"moodle: {sig}",
                "ontap: Quota exceeded (hard disk limit) on volume lms_data, qtree moodledata",
                "moodle-cron: automated backups saved to the course backup filearea (destination: not set)",
            ],
            "Set backup_auto_destination to a separate volume and move or delete the automated .mbz backups (or raise the qtree quota) so uploads can be written again.",
        ),
        [
            bg(
                "moodle",
                hosts,
                [
                    '10.44.{ms}.{ms} - - [07/Dec/2026:16:{n} +0100] "GET /mod/assign/view.php?id={n} HTTP/1.1" 200 {n}'
                ],
                8,
            )
        ],
        evs,
        [svc("moodle", 60, {"500": (0.002, 0.18)}, (0.3, 0.35))],
        [
            gauge(
                "netapp_qtree_used_percent",
                {"volume": "lms_data", "qtree": "moodledata"},
                96,
                100,
                start,
            )
        ],
        {
            "moodle-upload-errors.md": runbook(
                "Moodle upload errors",
                "Upload failures are usually the PHP upload limits: check upload_max_filesize / post_max_size in php.ini against the course's maximum upload size and reload php-fpm.",
            )
        },
    )


STAGES = {
    "preview-envs-fill-namespace-quota": ("admission", "FailedCreate"),
    "limitrange-ratio-rejects-injected-sidecar": ("admission", "FailedCreate"),
    "distroless-base-command-uses-sh": ("startup", "RunContainerError"),
    "healthz-200-consumer-cancelled-by-broker-timeout": (
        "runtime",
        "ConsumerCancelled",
    ),
    "kube-proxy-nftables-mode-old-kernel": ("infrastructure", "CrashLoopBackOff"),
    "cis-hardening-disables-ip-forward-on-node": (
        "infrastructure",
        "IPForwardingDisabled",
    ),
    "bff-relays-recommendations-model-shape": ("runtime", "ApplicationError"),
    "authorizationpolicy-principal-crashloops-worker": (
        "service_routing",
        "AuthorizationPolicy",
    ),
    "secrets-store-object-renamed-containercreating": ("startup", "FailedMount"),
}


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        h20.tidy_clock_times(spec["logs"])
        if slug in STAGES:
            stage, reason = STAGES[slug]
            spec["expected"]["root_cause_stage"] = stage
            spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
