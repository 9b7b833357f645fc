"""Writes the twenty-third held-out scenario set, bench/heldout23: `python bench/heldout23/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout22. Theme: Kubernetes
faults of the kinds an outside RCA benchmark records on real clusters, spread across lifecycle stages
and weighted to service routing (selectors, target ports, Gateway API routes, headless Services,
session affinity), performance (CPU quota, a noisy neighbour, a memory limit at the working set),
admission (LimitRange, a mutating webhook, Pod Security Admission), startup (probes, Secret keys,
init containers) and infrastructure (CoreDNS, CNI IP addresses). Everything that matters is written
by hand below (incident, expected answer, runbooks, kubectl answers, the log lines that carry the
fault and the red herrings); the bulk comes from bench/heldout22/_build.py's helpers (and through them
heldout20's and the earlier builders'), each scenario with a fixed seed (561-576). The author read
neither the planner (`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor their
tests, nor any score file. Stdlib only.
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


h22 = _load("heldout22_build", HERE.parent / "heldout22" / "_build.py")
h20 = h22.h20
h15 = h20.h15
base = h22.base

table = base.table
events = base.events
runbook = base.runbook
app = h22.app
pod_name = h22.pod_name
namespace = h22.namespace
ev = h22.ev
bg = h22.bg
incident = h22.incident
expected = h22.expected
container_text = h22.container_text
describe_pod = h22.describe_pod
podlog = h22.podlog
running = h22.running
crashloop = h22.crashloop
pending_pod = h22.pending_pod
pods_of = h22.pods_of
kube_case = h22.kube_case
svc = h22.svc
every = h22.every
backoff_rows = h22.backoff_rows
gauge = h22.gauge
tidy_clock_times = h22.tidy_clock_times
deployment_describe = h15.deployment_describe
replicaset_describe = h15.replicaset_describe
node_describe = h15.node_describe
NODES_FRA = h22.NODES_FRA
NODES_IAD = h22.NODES_IAD
NODES_DUB = h22.NODES_DUB
NODES_PDX = h22.NODES_PDX

SCENARIOS: dict[str, Any] = {}
STAGES: dict[str, tuple[str, str]] = {}


def scenario(slug: str, stage: str, reason: str):
    def register(fn):
        SCENARIOS[slug] = fn
        STAGES[slug] = (stage, reason)
        return fn

    return register


def pod_ips(k8s: dict[str, str], ns: str, prefix: str) -> list[str]:
    """The IPs of the pods whose names start with `prefix`, read back from `get pods`."""
    rows = k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]
    return [r.split()[5] for r in rows if r.startswith(prefix)]


def service_describe(
    name: str,
    ns: str,
    *,
    selector: str,
    ip: str,
    port: str,
    target: str,
    endpoints: str,
    affinity: str = "None",
    labels: str | None = None,
    extra: str = "",
) -> str:
    return (
        f"Name:                     {name}\n"
        f"Namespace:                {ns}\n"
        f"Labels:                   {labels or 'app.kubernetes.io/name=' + name}\n"
        f"Annotations:              meta.helm.sh/release-name: {name}\n"
        f"Selector:                 {selector}\n"
        "Type:                     ClusterIP\n"
        "IP Family Policy:         SingleStack\n"
        "IP Families:              IPv4\n"
        f"IP:                       {ip}\n"
        f"IPs:                      {ip}\n"
        f"Port:                     {port}\n"
        f"TargetPort:               {target}\n"
        f"Endpoints:                {endpoints}\n"
        f"Session Affinity:         {affinity}\n"
        f"{extra}"
        "Internal Traffic Policy:  Cluster\n"
        "Events:                   <none>\n"
    )


def slices(rows: list[list[str]]) -> str:
    return table([["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"], *rows])


def health_bg(a: dict[str, Any], every_s: float = 12) -> dict[str, Any]:
    return bg(
        a["name"],
        pods_of(a),
        ['{"level":"info","msg":"GET /healthz 200","ms":{ms}}'],
        every_s,
    )


# =================================================================================================
# 1. Service routing: the quotes chart was split into a library chart (PR quote-charts#58). The new
#    Service selector adds `app.kubernetes.io/component=api`, but the Deployment's pods are labelled
#    `component=server`. The Service and its EndpointSlice have no endpoints; quote-web's proxy
#    answers 503 "no healthy upstream". The incident says "car quotes".
# =================================================================================================


@scenario(
    "quote-api-selector-component-label-mismatch", "service_routing", "SelectorMismatch"
)
def quote_api_selector_component_label_mismatch() -> dict[str, Any]:
    start = -1500
    ns = "quotes"
    labels = "app.kubernetes.io/component=server,app.kubernetes.io/name=quote-api"
    qa = app(
        "quote-api",
        image="registry.gitlab.com/hollin-insure/quotes/quote-api:3.21.0",
        port=8080,
        rs="7c4d9f8b6",
        cluster_ip="10.43.18.201",
        labels=labels,
        pods=[
            ("d2kfp", "1/1", "Running", "0", "26m", 0),
            ("m8xzq", "1/1", "Running", "0", "26m", 1),
            ("v5tln", "1/1", "Running", "0", "26m", 2),
        ],
    )
    web = app(
        "quote-web",
        image="registry.gitlab.com/hollin-insure/quotes/quote-web:11.4.2",
        port=3000,
        rs="5b8f6c7d9",
        cluster_ip="10.43.18.14",
        labels="app.kubernetes.io/name=quote-web",
        pods=[
            ("h7wrc", "1/1", "Running", "0", "2d", 0),
            ("q4bnj", "1/1", "Running", "0", "2d", 2),
        ],
    )
    rates = app(
        "rating-engine",
        image="registry.gitlab.com/hollin-insure/quotes/rating-engine:8.0.3",
        port=9000,
        rs="6f9c8b7d5",
        cluster_ip="10.43.18.77",
        labels="app.kubernetes.io/name=rating-engine",
        pods=[("t2gvk", "1/1", "Running", "0", "9d", 1)],
    )
    k8s = namespace(ns, NODES_DUB, [qa, web, rates], seed=561)
    sig = "app.kubernetes.io/component=api"
    selector = f"app.kubernetes.io/name=quote-api,{sig}"
    k8s[f"kubectl get services -n {ns} -o wide"] = table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            [
                "quote-api",
                "ClusterIP",
                "10.43.18.201",
                "<none>",
                "80/TCP",
                "2y",
                selector,
            ],
            [
                "quote-web",
                "ClusterIP",
                "10.43.18.14",
                "<none>",
                "80/TCP",
                "2y",
                "app.kubernetes.io/name=quote-web",
            ],
            [
                "rating-engine",
                "ClusterIP",
                "10.43.18.77",
                "<none>",
                "9000/TCP",
                "2y",
                "app.kubernetes.io/name=rating-engine",
            ],
        ]
    )
    eps = k8s[f"kubectl get endpoints -n {ns}"].splitlines()
    k8s[f"kubectl get endpoints -n {ns}"] = table(
        [
            row.split()
            if not row.startswith("quote-api")
            else ["quote-api", "<none>", "2y"]
            for row in eps
        ]
    )
    k8s[f"kubectl describe services quote-api -n {ns}"] = service_describe(
        "quote-api",
        ns,
        selector=selector,
        ip="10.43.18.201",
        port="http  80/TCP",
        target="http/TCP",
        endpoints="<none>",
        labels="app.kubernetes.io/name=quote-api\n                          helm.sh/chart=quote-service-lib-1.0.0",
    )
    k8s[f"kubectl get endpointslices -n {ns}"] = slices(
        [
            ["quote-api-8kq2d", "IPv4", "<unset>", "<unset>", "2y"],
            [
                "quote-web-x7m4v",
                "IPv4",
                "3000",
                ",".join(pod_ips(k8s, ns, "quote-web")),
                "2y",
            ],
            [
                "rating-engine-c2wpl",
                "IPv4",
                "9000",
                ",".join(pod_ips(k8s, ns, "rating-engine")),
                "2y",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "27m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/quote-api",
                "Scaled up replica set quote-api-7c4d9f8b6 to 3",
            ),
            (
                "25m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/quote-api",
                "Scaled down replica set quote-api-84b6d5c9f to 0 from 1",
            ),
            (
                "3m",
                "Warning",
                "Unhealthy",
                f"Pod/{pod_name(web, 'q4bnj')}",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ]
    )
    evs = [
        ev(
            "gitlab-ci",
            "info",
            "deploy:prod quote-api 3.21.0  helm upgrade quote-api ./charts/quote-api (depends on quote-service-lib 1.0.0, PR quote-charts#58 'move to shared library chart') ... Release \"quote-api\" has been upgraded. Happy Helming!",
            at=start - 120,
        ),
        ev(
            "quote-api",
            "info",
            '{"level":"info","msg":"quote-api 3.21.0 started on :8080 (profile=prod)"}',
            at=start - 95,
            pods=pods_of(qa),
        ),
        ev(
            "quote-web",
            "error",
            '{"level":"error","msg":"POST /api/quotes failed","upstream":"quote-api.quotes.svc:80","status":503,"body":"no healthy upstream","ms":{ms}}',
            **every(start - 60, -5, 4),
            pods=pods_of(web),
        ),
        ev(
            "quote-web",
            "warn",
            '{"level":"warn","msg":"readiness: dependency quote-api unavailable, reporting 503"}',
            **every(start + 600, -10, 60),
            pods=[pod_name(web, "q4bnj")],
        ),
        ev(
            "rating-engine",
            "warn",
            '{"level":"warn","msg":"tariff table reload took 4.{ms}s","table":"motor-2027-q1"}',
            **every(-7000, -60, 600),
            pods=pods_of(rates),
        ),
        ev(
            "quote-web",
            "error",
            '{"level":"error","msg":"DVLA vehicle lookup timed out after 5000ms","reg":"<redacted>"}',
            **every(-9800, -9000, 90),
            pods=pods_of(web),
        ),
    ]
    return kube_case(
        seed=561,
        start=start,
        inc=incident(
            "Car quotes broken - quote page says something went wrong",
            "car quotes",
            start,
            ["customers cannot get a car insurance quote, the page errors"],
        ),
        exp=expected(
            "connect",
            [
                "service/quote-api",
                "quote-api",
                "selector",
                sig,
                "quote-service-lib",
                "PR quote-charts#58",
            ],
            sig,
            "quote-api's move to the shared library chart (PR quote-charts#58) made the Service select app.kubernetes.io/component=api, while the pods are labelled component=server. The Service has no endpoints and its EndpointSlice none; quote-web's proxy answers 503 'no healthy upstream' for every quote. The quote-api pods are healthy; quote-web's failing readiness, the rating-engine reloads and the old DVLA timeouts are noise.",
            [
                "describe service quote-api: Selector ... app.kubernetes.io/component=api, Endpoints: <none>",
                "get pods --show-labels: quote-api pods app.kubernetes.io/component=server",
                "get endpointslices: quote-api-8kq2d with no endpoints",
                "quote-web: 503 no healthy upstream from quote-api.quotes.svc:80",
            ],
            "Make the Service selector match the pod labels (component=server) or relabel the pods in the library chart; roll back quote-api's chart until then.",
        ),
        k8s=k8s,
        bgs=[health_bg(qa), health_bg(web, 20)],
        evs=evs,
        services=[
            svc("quote-web", 35, {"503": (0.001, 0.62)}, (0.09, 0.004)),
            svc("quote-api", 30, {}, (0.06, 0.06), rps_after=0.4),
        ],
        books={
            "quote-errors.md": runbook(
                "Quote page errors",
                "Quote failures are almost always rating-engine: a tariff reload blocks rating for a few seconds. Restart rating-engine (kubectl rollout restart deploy/rating-engine -n quotes) and check the DVLA lookup status page.",
            )
        },
    )


# =================================================================================================
# 2. Service routing: fare-estimator 5.0 moved to a new base image whose server reads `PORT`
#    (default 9090) instead of the hard-coded 8080; the readiness probe checks the admin port 8558,
#    so the pods are Ready and listed. The Service still targets 8080: every connection is refused.
#    The incident says "prices in the rider app".
# =================================================================================================


@scenario(
    "fare-estimator-listens-9090-service-targets-8080",
    "service_routing",
    "TargetPortMismatch",
)
def fare_estimator_listens_9090_service_targets_8080() -> dict[str, Any]:
    start = -1300
    ns = "pricing"
    img = "europe-west1-docker.pkg.dev/veloz-rides/pricing/fare-estimator:5.0.0"
    fe = app(
        "fare-estimator",
        image=img,
        port=8080,
        rs="59d7c6b8f",
        cluster_ip="10.12.40.33",
        pods=[
            ("b6rtx", "1/1", "Running", "0", "23m", 0),
            ("k3mvn", "1/1", "Running", "0", "23m", 1),
            ("w9zqd", "1/1", "Running", "0", "22m", 2),
        ],
    )
    rg = app(
        "rider-gateway",
        image="europe-west1-docker.pkg.dev/veloz-rides/edge/rider-gateway:2.88.1",
        port=8080,
        rs="7d5b9c4f8",
        cluster_ip="10.12.40.5",
        pods=[
            ("c8lpw", "1/1", "Running", "0", "4h", 0),
            ("n2jfs", "1/1", "Running", "0", "4h", 1),
        ],
    )
    surge = app(
        "surge-model",
        image="europe-west1-docker.pkg.dev/veloz-rides/pricing/surge-model:1.14.0",
        port=8501,
        rs="8b6f7d9c5",
        cluster_ip="10.12.40.61",
        pods=[("x4hgt", "1/1", "Running", "0", "6d", 2)],
    )
    k8s = namespace(ns, NODES_FRA, [fe, rg, surge], seed=562)
    ips = pod_ips(k8s, ns, "fare-estimator")
    sig = f"dial tcp {ips[0]}:8080: connect: connection refused"
    k8s[f"kubectl describe services fare-estimator -n {ns}"] = service_describe(
        "fare-estimator",
        ns,
        selector="app=fare-estimator",
        ip="10.12.40.33",
        port="http  80/TCP",
        target="8080/TCP",
        endpoints=",".join(ip + ":8080" for ip in ips),
        labels="app=fare-estimator",
    )
    cont = container_text(
        "fare-estimator",
        img,
        8080,
        env={"ADMIN_PORT": "8558", "GOMEMLIMIT": "900MiB"},
        limits="cpu:     1\n  memory:  1Gi",
        requests="cpu:      500m\n  memory:   1Gi",
        readiness="http-get http://:8558/ready delay=5s timeout=1s period=10s #success=1 #failure=3",
        liveness="http-get http://:8558/live delay=10s timeout=1s period=10s #success=1 #failure=3",
    )
    k8s[f"kubectl describe deployments fare-estimator -n {ns}"] = deployment_describe(
        "fare-estimator",
        ns,
        replicas="3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
        revision=61,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="fare-estimator-6c8d5b7f9 (0/0 replicas created)",
        new_rs="fare-estimator-59d7c6b8f (3/3 replicas created)",
    )
    k8s[f"kubectl logs {pod_name(fe, 'b6rtx')} -n {ns} --tail=1000"] = podlog(
        [
            (
                -1370,
                'time=2026-12-07T13:57:10Z level=INFO msg="config loaded" base=distroless-go-svc:2 port_env=unset',
            ),
            (
                -1370,
                'time=2026-12-07T13:57:10Z level=INFO msg="admin server listening" addr=:8558',
            ),
            (
                -1369,
                'time=2026-12-07T13:57:11Z level=INFO msg="http server listening" addr=:9090',
            ),
            (
                -1200,
                'time=2026-12-07T13:59:00Z level=INFO msg="surge cache refreshed" zones=412',
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "23m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/fare-estimator",
                "Scaled up replica set fare-estimator-59d7c6b8f to 3",
            ),
            (
                "22m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/fare-estimator",
                "Scaled down replica set fare-estimator-6c8d5b7f9 to 0 from 1",
            ),
            (
                "12m",
                "Warning",
                "Unhealthy",
                f"Pod/{pod_name(surge, 'x4hgt')}",
                'Readiness probe failed: Get "http://10.162.3.44:8501/v1/models/surge": context deadline exceeded',
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application pricing/fare-estimator sync: image fare-estimator:4.12.3 -> 5.0.0 ('move to distroless-go-svc base image, service template v2') ... Synced, Healthy",
            at=start - 110,
        ),
        ev(
            "fare-estimator",
            "info",
            'time=2026-12-07T13:{n} level=INFO msg="http server listening" addr=:9090',
            at=start - 100,
            pods=pods_of(fe),
        ),
        ev(
            "rider-gateway",
            "error",
            f'{{"level":"error","route":"POST /v3/estimate","err":"Post \\"http://fare-estimator.pricing.svc/estimate\\": {sig}","ms":{{ms}}}}',
            **every(start - 60, -5, 4),
            pods=pods_of(rg),
        ),
        ev(
            "rider-gateway",
            "error",
            f'{{"level":"error","route":"POST /v3/estimate","err":"Post \\"http://fare-estimator.pricing.svc/estimate\\": dial tcp {ips[1]}:8080: connect: connection refused","ms":{{ms}}}}',
            **every(start - 58, -7, 5),
            pods=pods_of(rg),
        ),
        ev(
            "surge-model",
            "warn",
            "2026-12-07 13:{n} W tensorflow_serving/model_servers/server_core.cc:465] slow model load: surge v1214 took 11{ms} ms",
            **every(-5000, -300, 700),
            pods=pods_of(surge),
        ),
        ev(
            "rider-gateway",
            "error",
            '{"level":"error","route":"GET /v3/eta","err":"maps provider 429 Too Many Requests"}',
            **every(-10500, -9700, 80),
            pods=pods_of(rg),
        ),
    ]
    return kube_case(
        seed=562,
        start=start,
        inc=incident(
            "Rider app shows no prices / 'estimate unavailable'",
            "rider app prices",
            start,
            ["riders see 'estimate unavailable' instead of a price"],
        ),
        exp=expected(
            "connect",
            [
                "service/fare-estimator",
                "fare-estimator",
                "targetport",
                "8080",
                "9090",
                "fare-estimator 5.0.0",
            ],
            sig,
            "fare-estimator 5.0.0 moved to a base image whose server listens on PORT (default 9090) instead of 8080. Readiness and liveness use the admin port 8558, so the pods are Ready and the Service lists them on :8080, where nothing listens: every call from rider-gateway is refused. surge-model's slow loads and the old maps 429s are noise.",
            [
                f"rider-gateway: {sig}",
                "fare-estimator log: http server listening addr=:9090",
                "describe service fare-estimator: TargetPort 8080/TCP, three endpoints :8080",
                "describe deployment: probes on :8558",
            ],
            "Set PORT=8080 (or targetPort 9090 and the container port) and probe the serving port; roll back to 4.12.3 meanwhile.",
        ),
        k8s=k8s,
        bgs=[health_bg(rg, 15), health_bg(surge, 30)],
        evs=evs,
        services=[
            svc("rider-gateway", 60, {"502": (0.0005, 0.71)}, (0.07, 0.003)),
            svc("fare-estimator", 50, {}, (0.03, 0.03), rps_after=0.0),
        ],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "fare-estimator", "namespace": ns},
                3,
                3,
                start,
            )
        ],
        books={
            "estimate-unavailable.md": runbook(
                "Rider app: estimate unavailable",
                "Missing prices mean surge-model is not answering (its model loads can stall). Check surge-model readiness and scale it: kubectl scale deploy/surge-model -n pricing --replicas=3.",
            )
        },
    )


# =================================================================================================
# 3. Service routing (Gateway API): PR platform-routes#203 "consolidate partner routes" rewrote the
#    HTTPRoute partners/partner-api; rule 1 (PathPrefix /v2/) now sends to the legacy Service
#    partner-api-v1, which has no /v2 handlers and answers 404. Partners' shipment bookings fail.
#    The incident says "shipping partners integration".
# =================================================================================================


@scenario(
    "httproute-v2-rule-backend-legacy-service",
    "service_routing",
    "HTTPRouteWrongBackend",
)
def httproute_v2_rule_backend_legacy_service() -> dict[str, Any]:
    start = -2000
    ns = "partners"
    v2 = app(
        "partner-api-v2",
        image="ghcr.io/brennick-freight/partner-api:2.7.4",
        port=8080,
        rs="6d9b7f5c8",
        cluster_ip="10.100.72.18",
        pods=[
            ("f3kwp", "1/1", "Running", "0", "5d", 0),
            ("r8nvd", "1/1", "Running", "0", "5d", 1),
        ],
    )
    v1 = app(
        "partner-api-v1",
        image="ghcr.io/brennick-freight/partner-api:1.19.2",
        port=8080,
        rs="84c6d9b7f",
        cluster_ip="10.100.72.9",
        pods=[("m2xhq", "1/1", "Running", "0", "61d", 2)],
    )
    edi = app(
        "edi-translator",
        image="ghcr.io/brennick-freight/edi-translator:4.3.0",
        port=8080,
        rs="7f5c8d6b9",
        cluster_ip="10.100.72.40",
        pods=[("j6tzs", "1/1", "Running", "0", "12d", 1)],
    )
    k8s = namespace(ns, NODES_IAD, [v2, v1, edi], seed=563)
    v1ip = pod_ips(k8s, ns, "partner-api-v1")[0]
    sig = "httproute/partners/partner-api/rule/1"
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "34m",
                "Normal",
                "Sync",
                "Service/partner-api-v1",
                "Service synced (Argo CD app partner-routes)",
            )
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application partner-routes sync (PR platform-routes#203 'consolidate partner routes'): HTTPRoute partners/partner-api configured: rules[1].backendRefs[0].name partner-api-v2 -> partner-api-v1 ... Synced",
            at=start - 140,
        ),
        ev(
            "envoy-gateway",
            "info",
            '{"level":"info","ts":"2026-12-07T13:{n}Z","logger":"gateway-api-runner","msg":"processed HTTPRoute","route":"partners/partner-api","rules":[{"match":"PathPrefix /v1/","backend":"partner-api-v1:8080"},{"match":"PathPrefix /v2/","backend":"partner-api-v1:8080"}],"accepted":true,"resolvedRefs":true}',
            at=start - 130,
        ),
        ev(
            "envoy-proxy",
            "info",
            f'{{"start_time":"2026-12-07T13:{{n}}Z","method":"POST","path":"/v2/shipments","response_code":404,"upstream_cluster":"{sig}/backend/0","upstream_host":"{v1ip}:8080","x_partner":"dhl-connect","duration":{{ms}}}}',
            **every(start - 100, -4, 3),
        ),
        ev(
            "envoy-proxy",
            "info",
            f'{{"start_time":"2026-12-07T13:{{n}}Z","method":"GET","path":"/v2/rates","response_code":404,"upstream_cluster":"{sig}/backend/0","upstream_host":"{v1ip}:8080","x_partner":"gls-eu","duration":{{ms}}}}',
            **every(start - 95, -9, 11),
        ),
        ev(
            "partner-api-v1",
            "warn",
            "WARN  [http] 404 no route for POST /v2/shipments (legacy api serves /v1 only)",
            **every(start - 98, -6, 5),
            pods=pods_of(v1),
        ),
        ev(
            "edi-translator",
            "error",
            "ERROR X12 214 from carrier MAEU rejected: segment N1 element 04 too long",
            **every(-6800, -200, 240),
            pods=pods_of(edi),
        ),
        ev(
            "partner-api-v2",
            "error",
            '{"level":"error","msg":"postgres: too many clients already"}',
            **every(-9900, -9400, 60),
            pods=pods_of(v2),
        ),
    ]
    return kube_case(
        seed=563,
        start=start,
        inc=incident(
            "Partners integration down - DHL says bookings 404",
            "partner integration",
            start,
            ["carrier partners get 404 on shipment bookings"],
        ),
        exp=expected(
            "http",
            [
                "httproute/partner-api",
                "partner-api",
                "httproute",
                "partner-api-v1",
                "PR platform-routes#203",
                "envoy-gateway",
            ],
            sig,
            "PR platform-routes#203 rewrote the HTTPRoute partners/partner-api: rule 1 (PathPrefix /v2/) now names the legacy Service partner-api-v1, which has no /v2 handlers and answers 404. partner-api-v2 is healthy and idle. The EDI rejections and the old Postgres connection errors are noise.",
            [
                "argocd: rules[1].backendRefs[0].name partner-api-v2 -> partner-api-v1",
                f"envoy-proxy: 404 from {sig}/backend/0 on {v1ip}:8080",
                "partner-api-v1: 404 no route for POST /v2/shipments",
            ],
            "Point rule 1's backendRef back at partner-api-v2 (revert PR platform-routes#203).",
        ),
        k8s=k8s,
        bgs=[health_bg(v2, 20), health_bg(v1, 20), health_bg(edi, 30)],
        evs=evs,
        services=[
            svc("envoy-proxy", 25, {"404": (0.01, 0.83)}, (0.05, 0.012)),
            svc("partner-api-v2", 20, {}, (0.05, 0.05), rps_after=0.3),
        ],
        books={
            "partner-errors.md": runbook(
                "Partner API errors",
                "Partner errors usually come from EDI translation: carriers send malformed X12. Check edi-translator's rejects and ask the carrier to resend. 404s mean the partner uses a wrong path; send them the API docs.",
            )
        },
    )


# =================================================================================================
# 4. Service routing: typesense chart 0.9 made the Service `typesense` headless (clusterIP: None,
#    for raft peer discovery). docs-portal's nginx resolves `proxy_pass http://typesense...` once at
#    start: with a ClusterIP that was one stable address, now it is three pod IPs. This morning's
#    node rotation moved the typesense pods to new IPs; nginx still dials the old ones and times
#    out. The incident says "docs search".
# =================================================================================================


@scenario(
    "typesense-service-made-headless-nginx-stale-ips",
    "service_routing",
    "HeadlessService",
)
def typesense_service_made_headless_nginx_stale_ips() -> dict[str, Any]:
    start = -1700
    ns = "docs"
    ts = app(
        "typesense",
        image="typesense/typesense:27.1",
        port=8108,
        rs="ts",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[
            ("0", "1/1", "Running", "0", "48m", 0),
            ("1", "1/1", "Running", "0", "46m", 1),
            ("2", "1/1", "Running", "0", "44m", 2),
        ],
    )
    dp = app(
        "docs-portal",
        image="registry.quillstack.example/docs/docs-portal:2026.12.3",
        port=8080,
        rs="5c7f9d8b6",
        cluster_ip="10.96.120.44",
        pods=[
            ("g4npx", "1/1", "Running", "0", "6d", 0),
            ("s7kqw", "1/1", "Running", "0", "6d", 2),
        ],
    )
    crawler = app(
        "docs-crawler",
        image="registry.quillstack.example/docs/docs-crawler:1.8.0",
        port=8080,
        rs="9b8d6c7f5",
        cluster_ip="10.96.120.71",
        pods=[("l2vhz", "1/1", "Running", "3", "2d", 1)],
    )
    k8s = namespace(ns, NODES_PDX, [ts, dp, crawler], seed=564)
    old = ["10.164.1.23", "10.164.2.87", "10.164.3.140"]
    sig = "upstream timed out (110: Connection timed out) while connecting to upstream"
    k8s[f"kubectl describe services typesense -n {ns}"] = service_describe(
        "typesense",
        ns,
        selector="app=typesense",
        ip="None",
        port="http  8108/TCP",
        target="8108/TCP",
        endpoints=",".join(ip + ":8108" for ip in pod_ips(k8s, ns, "typesense")),
        labels="app=typesense\n                          helm.sh/chart=typesense-0.9.2",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "49m",
                "Normal",
                "Killing",
                "Pod/typesense-0",
                "Stopping container typesense (node ip-10-90-1-18.us-west-2.compute.internal drained)",
            ),
            (
                "48m",
                "Normal",
                "Scheduled",
                "Pod/typesense-0",
                "Successfully assigned docs/typesense-0 to ip-10-90-1-18.us-west-2.compute.internal",
            ),
            (
                "46m",
                "Normal",
                "Scheduled",
                "Pod/typesense-1",
                "Successfully assigned docs/typesense-1 to ip-10-90-2-203.us-west-2.compute.internal",
            ),
            (
                "44m",
                "Normal",
                "Scheduled",
                "Pod/typesense-2",
                "Successfully assigned docs/typesense-2 to ip-10-90-3-77.us-west-2.compute.internal",
            ),
            (
                "8m",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(crawler, 'l2vhz')}",
                "Back-off restarting failed container docs-crawler",
            ),
        ]
    )
    tmpl = (
        "2026/12/07 13:{n} [error] 31#31: *{n} "
        + sig
        + ', client: 10.164.{ms}.9, server: docs.quillstack.example, request: "GET /search?q=webhook+retries HTTP/1.1", upstream: "http://OLD:8108/collections/docs/documents/search", host: "docs.quillstack.example"'
    )
    evs = [
        ev(
            "flux",
            "info",
            "helmrelease docs/typesense reconciled: chart typesense 0.9.2 (upgraded from 0.8.4 6d ago: service.clusterIP: None for raft peering via DNS), no drift",
            at=-7100,
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","message":"disrupting nodeclaim(s) via replace, terminating 3 nodes","reason":"drifted","nodepool":"general"}',
            at=start - 1400,
        ),
        *[
            ev(
                "docs-portal",
                "error",
                tmpl.replace("OLD", ip),
                **every(start + i * 3, -5, 9),
                pods=pods_of(dp),
            )
            for i, ip in enumerate(old)
        ],
        ev(
            "docs-portal",
            "info",
            '10.164.{ms}.9 - - [07/Dec/2026:13:{n} +0000] "GET /search?q=rate+limits HTTP/1.1" 504 167 "-" "Mozilla/5.0" rt=60.0{ms}',
            **every(start + 2, -6, 7),
            pods=pods_of(dp),
        ),
        ev(
            "typesense",
            "info",
            "I20261207 13:{n} raft_server.cpp:706] Term: 14, pending_queue: 0, last_index: 88{n}, committed: 88{n}",
            **every(start - 2600, -20, 120),
            pods=pods_of(ts),
        ),
        ev(
            "docs-crawler",
            "error",
            "panic: runtime error: invalid memory address or nil pointer dereference [signal SIGSEGV] goroutine 41 [running]: main.(*Crawler).parseSitemap",
            **every(-3000, -400, 700),
            pods=pods_of(crawler),
        ),
        ev(
            "docs-portal",
            "error",
            '2026/12/07 10:{n} [error] 31#31: *{n} open() "/usr/share/nginx/html/favicon-32.png" failed (2: No such file or directory)',
            **every(-10500, -9000, 200),
            pods=pods_of(dp),
        ),
    ]
    return kube_case(
        seed=564,
        start=start,
        inc=incident(
            "docs search hangs then 504",
            "docs search",
            start,
            ["search on the docs site spins and times out"],
        ),
        exp=expected(
            "connect",
            [
                "service/typesense",
                "typesense",
                "headless",
                "clusterip: none",
                "docs-portal",
                "typesense-0.9.2",
            ],
            sig,
            "typesense chart 0.9 made its Service headless (clusterIP: None). docs-portal's nginx resolves the proxy_pass name once at start, so it now holds the pod IPs of that moment instead of one stable ClusterIP. The node rotation 45 minutes ago rescheduled typesense on new IPs; nginx keeps connecting to the old ones and times out (504). typesense itself is healthy; the crawler's crash loop and the favicon errors are noise.",
            [
                f"docs-portal nginx: {sig}, upstream 10.164.1.23:8108 (no pod has it)",
                "get services: typesense CLUSTER-IP None; endpoints: new pod IPs",
                "flux: typesense 0.8.4 -> 0.9.2, service.clusterIP: None",
            ],
            "Give nginx a non-headless Service (a second ClusterIP Service for clients) or a resolver with re-resolution; reload docs-portal now.",
        ),
        k8s=k8s,
        bgs=[health_bg(ts, 20), health_bg(dp, 15)],
        evs=evs,
        services=[svc("docs-portal", 12, {"504": (0.0, 0.3)}, (0.04, 0.2))],
        books={
            "docs-search.md": runbook(
                "Docs search slow or failing",
                "If search is slow the index is stale or being rebuilt. Check docs-crawler; if it is crash-looping, restart it and trigger a reindex (POST /admin/reindex). typesense itself rarely fails.",
            )
        },
    )


# =================================================================================================
# 5. Service routing / load: PR fleet#911 ("sticky sessions for live map") set
#    `sessionAffinity: ClientIP` on the Service telematics-ingest. Its only callers are the two
#    mqtt-bridge pods, so all traffic pins to two of the six ingest pods: they saturate and time
#    out while four idle; the HPA's average stays low. The incident says "live vehicle map".
# =================================================================================================


@scenario(
    "telematics-ingest-session-affinity-two-clients",
    "service_routing",
    "SessionAffinityImbalance",
)
def telematics_ingest_session_affinity_two_clients() -> dict[str, Any]:
    start = -2400
    ns = "fleet"
    ti = app(
        "telematics-ingest",
        image="quay.io/trackwise/telematics-ingest:6.3.0",
        port=8080,
        rs="7b9d5f6c8",
        cluster_ip="10.110.9.66",
        pods=[
            (s, "1/1", "Running", "0", "5d", i % 3)
            for i, s in enumerate(
                ["a4kdz", "c7pqw", "f2mvn", "h9tzr", "n5wbl", "x8gkc"]
            )
        ],
    )
    br = app(
        "mqtt-bridge",
        image="quay.io/trackwise/mqtt-bridge:2.1.4",
        port=9001,
        rs="5f8c7d9b6",
        cluster_ip="10.110.9.12",
        pods=[
            ("b3nqx", "1/1", "Running", "0", "5d", 0),
            ("v6hrd", "1/1", "Running", "0", "5d", 1),
        ],
    )
    mapui = app(
        "live-map",
        image="quay.io/trackwise/live-map:9.0.1",
        port=3000,
        rs="6c9f8b7d5",
        cluster_ip="10.110.9.30",
        pods=[("k2sjp", "1/1", "Running", "0", "3h", 2)],
    )
    k8s = namespace(ns, NODES_DUB, [ti, br, mapui], seed=565)
    sig = "ClientIP"
    k8s[f"kubectl describe services telematics-ingest -n {ns}"] = service_describe(
        "telematics-ingest",
        ns,
        selector="app=telematics-ingest",
        ip="10.110.9.66",
        port="http  80/TCP",
        target="8080/TCP",
        endpoints=",".join(
            ip + ":8080" for ip in pod_ips(k8s, ns, "telematics-ingest")[:3]
        )
        + " + 3 more...",
        affinity=sig,
        labels="app=telematics-ingest",
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "telematics-ingest",
                "Deployment/telematics-ingest",
                "cpu: 36%/70%",
                "6",
                "20",
                "6",
                "1y",
            ],
        ]
    )
    hot = [pod_name(ti, "c7pqw"), pod_name(ti, "n5wbl")]
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "31m",
                "Warning",
                "Unhealthy",
                f"Pod/{hot[0]}",
                'Readiness probe failed: Get "http://10.165.2.31:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
            (
                "17m",
                "Warning",
                "Unhealthy",
                f"Pod/{hot[1]}",
                'Readiness probe failed: Get "http://10.165.2.90:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
        ]
    )
    evs = [
        ev(
            "github-actions",
            "info",
            f"deploy fleet-manifests (PR fleet#911 'sticky sessions for live map websockets'): service/telematics-ingest spec.sessionAffinity: None -> {sig} (timeoutSeconds 10800) ... applied",
            at=start - 200,
        ),
        *[
            ev(
                "telematics-ingest",
                "warn",
                '{"level":"warn","msg":"ingest queue saturated","queue_depth":4{n},"worker_busy":64,"p99_ms":52{ms}}',
                **every(start + 60, -10, 30),
                pods=[p],
            )
            for p in hot
        ],
        ev(
            "mqtt-bridge",
            "error",
            "2026-12-07T13:{n}Z ERROR forward batch to http://telematics-ingest.fleet.svc/v1/positions failed: context deadline exceeded (Client.Timeout 5s), 512 positions dropped",
            **every(start + 40, -3, 6),
            pods=pods_of(br),
        ),
        ev(
            "live-map",
            "error",
            '{"level":"error","msg":"vehicle positions stale","max_age_s":3{ms},"fleet":"all"}',
            **every(start + 200, -10, 20),
            pods=pods_of(mapui),
        ),
        ev(
            "live-map",
            "info",
            '{"level":"info","msg":"live-map 9.0.1 started (new clustering of markers)"}',
            at=-10800 + 60,
            pods=pods_of(mapui),
        ),
        ev(
            "mqtt-bridge",
            "warn",
            "2026-12-07T10:{n}Z WARN broker emqx-2 keepalive missed, reconnecting",
            **every(-10000, -9300, 120),
            pods=pods_of(br),
        ),
    ]
    cpu = [
        gauge(
            "container_cpu_usage_ratio",
            {"namespace": ns, "pod": pod_name(ti, s[0])},
            0.4,
            0.98 if pod_name(ti, s[0]) in hot else 0.05,
            start,
        )
        for s in ti["pods"]
    ]
    return kube_case(
        seed=565,
        start=start,
        inc=incident(
            "Live map frozen, vehicles not moving",
            "live map",
            start,
            ["dispatchers see vehicle positions minutes old"],
        ),
        exp=expected(
            "connect",
            [
                "service/telematics-ingest",
                "telematics-ingest",
                "sessionaffinity",
                sig,
                "PR fleet#911",
            ],
            sig,
            "PR fleet#911 set sessionAffinity: ClientIP on the Service telematics-ingest. Its only callers are the two mqtt-bridge pods, so every request pins to two of the six ingest pods: those two saturate (CPU ~98 %, queue full, readiness timeouts) and the bridge drops batches, while four pods idle and the HPA's 36 % average never scales. live-map is the loud victim; its release and the old broker reconnects are noise.",
            [
                "describe service telematics-ingest: Session Affinity: ClientIP",
                "CPU by pod: two at 0.98, four at 0.05",
                "mqtt-bridge: forward batch ... context deadline exceeded",
                "get hpa: cpu 36%/70%",
            ],
            "Set sessionAffinity back to None (stickiness belongs to the websocket tier, not the ingest API).",
        ),
        k8s=k8s,
        bgs=[health_bg(ti, 10), health_bg(mapui, 20)],
        evs=evs,
        services=[svc("telematics-ingest", 180, {"504": (0.0, 0.35)}, (0.03, 1.9))],
        gauges=cpu,
        books={
            "map-stale.md": runbook(
                "Live map shows stale positions",
                "Stale positions mean the MQTT broker lost vehicles. Check emqx cluster health and mqtt-bridge reconnects; restart mqtt-bridge if it keeps missing keepalives.",
            )
        },
    )


# =================================================================================================
# 6. Performance: a "rightsizing" PR (infra-k8s#1475, from a VPA recommendation taken over a quiet
#    weekend) cut tile-server's CPU limit from 4 to 1. automaxprocs sets GOMAXPROCS=1 from the
#    quota; the renderer throttles and tiles take seconds at the morning peak. The incident says
#    "the map is blank / slow".
# =================================================================================================


@scenario("tile-server-cpu-limit-cut-gomaxprocs-1", "performance", "CPUThrottling")
def tile_server_cpu_limit_cut_gomaxprocs_1() -> dict[str, Any]:
    start = -1900
    ns = "maps"
    img = "ghcr.io/ordnance-lab/tile-server:3.4.1"
    tsv = app(
        "tile-server",
        image=img,
        port=8080,
        rs="6b8d9c7f5",
        cluster_ip="10.20.31.8",
        pods=[
            ("d4qzn", "1/1", "Running", "0", "50m", 0),
            ("j7wkp", "1/1", "Running", "0", "49m", 1),
            ("t2mrx", "1/1", "Running", "0", "49m", 2),
        ],
    )
    web = app(
        "map-web",
        image="ghcr.io/ordnance-lab/map-web:7.12.0",
        port=3000,
        rs="8f6c5d9b7",
        cluster_ip="10.20.31.3",
        pods=[
            ("b5hvt", "1/1", "Running", "0", "2h", 0),
            ("p9lcs", "1/1", "Running", "0", "2h", 1),
        ],
    )
    geo = app(
        "geocoder",
        image="ghcr.io/ordnance-lab/geocoder:2.2.0",
        port=8080,
        rs="5d7b8f6c9",
        cluster_ip="10.20.31.50",
        pods=[("x3gfd", "1/1", "Running", "0", "14d", 2)],
    )
    k8s = namespace(ns, NODES_FRA, [tsv, web, geo], seed=566)
    sig = "maxprocs: Updating GOMAXPROCS=1: determined from CPU quota"
    cont = container_text(
        "tile-server",
        img,
        8080,
        env={"TILE_CACHE_MB": "2048", "RENDER_WORKERS": "auto"},
        limits="cpu:     1\n  memory:  4Gi",
        requests="cpu:      1\n  memory:   4Gi",
        readiness="http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3",
    )
    name = describe_pod(
        k8s,
        ns,
        tsv,
        "d4qzn",
        NODES_FRA,
        state=running(-3000),
        started=-3000,
        ready=True,
        extra="    Limits:\n      cpu:     1\n      memory:  4Gi\n    Requests:\n      cpu:      1\n      memory:   4Gi\n",
    )
    k8s[f"kubectl logs {name} -n {ns} --tail=1000"] = podlog(
        [
            (-3000, "2026/12/07 12:37:41 " + sig),
            (
                -2999,
                '{"level":"info","msg":"tile-server 3.4.1 listening","addr":":8080","render_workers":1}',
            ),
            (
                -600,
                '{"level":"warn","msg":"render slow","z":14,"x":8713,"y":5448,"ms":4120}',
            ),
        ]
    )
    k8s[f"kubectl describe deployments tile-server -n {ns}"] = deployment_describe(
        "tile-server",
        ns,
        replicas="3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
        revision=88,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="tile-server-7c9f6d8b4 (0/0 replicas created)",
        new_rs="tile-server-6b8d9c7f5 (3/3 replicas created)",
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application maps/tile-server synced (PR infra-k8s#1475 'apply VPA recommendations, save 62% CPU'): resources.limits.cpu 4 -> 1, requests.cpu 2 -> 1",
            at=-3060,
        ),
        ev(
            "tile-server",
            "info",
            "2026/12/07 12:{n} " + sig,
            at=-3000,
            pods=pods_of(tsv),
        ),
        ev(
            "tile-server",
            "warn",
            '{"level":"warn","msg":"render slow","z":1{ms},"ms":3{n}}',
            **every(start, -5, 6),
            pods=pods_of(tsv),
        ),
        ev(
            "map-web",
            "error",
            '{"level":"error","msg":"tile fetch timeout","url":"/tiles/14/{n}/{n}.mvt","after_ms":3000}',
            **every(start + 30, -3, 3),
            pods=pods_of(web),
        ),
        ev(
            "geocoder",
            "error",
            '{"level":"error","msg":"address index shard 7 unavailable, answering from fallback"}',
            **every(-6000, -100, 500),
            pods=pods_of(geo),
        ),
        ev(
            "map-web",
            "error",
            '{"level":"error","msg":"sentry: rate limited, dropping event"}',
            **every(-10400, -9600, 100),
            pods=pods_of(web),
        ),
    ]
    thr = [
        gauge(
            "container_cpu_cfs_throttled_ratio",
            {"namespace": ns, "pod": p},
            0.02,
            0.81,
            start,
        )
        for p in pods_of(tsv)
    ]
    return kube_case(
        seed=566,
        start=start,
        inc=incident(
            "Map blank/grey tiles, very slow",
            "map",
            start,
            ["map tiles load grey or take several seconds"],
        ),
        exp=expected(
            "application",
            [
                "deployment/tile-server",
                "tile-server",
                "cpu limit",
                "limits.cpu",
                "PR infra-k8s#1475",
                "GOMAXPROCS",
            ],
            sig,
            "PR infra-k8s#1475 applied a weekend VPA recommendation and cut tile-server's CPU limit from 4 to 1. automaxprocs set GOMAXPROCS=1 from the quota and the renderer runs one worker; at the morning peak the pods are throttled (81 % of CFS periods) and tiles take seconds, so map-web times out. The geocoder shard warning and Sentry drops are noise.",
            [
                f"tile-server: {sig}",
                "argocd: resources.limits.cpu 4 -> 1",
                "container_cpu_cfs_throttled_ratio 0.81 on every tile-server pod",
                "map-web: tile fetch timeout",
            ],
            "Restore the CPU limit (4) or drop it, keep the request; take VPA recommendations over a busy week.",
        ),
        k8s=k8s,
        bgs=[health_bg(tsv, 12), health_bg(geo, 30)],
        evs=evs,
        services=[
            svc("tile-server", 140, {"504": (0.0, 0.12)}, (0.04, 2.6)),
            svc("map-web", 60, {"500": (0.001, 0.08)}, (0.08, 0.9)),
        ],
        gauges=thr,
        books={
            "map-slow.md": runbook(
                "Map slow or grey tiles",
                "Grey tiles are almost always the geocoder's index: when a shard is unavailable the map falls back. Rebuild the shard (geocoder reindex --shard N) and flush the CDN tile cache.",
            )
        },
    )


# =================================================================================================
# 7. Performance (noisy neighbour): the CronJob fare-import (no CPU limit, requests 100m) was moved
#    from the batch pool to the general pool by PR data-jobs#88 ("batch pool removed, cost"). Its
#    nightly-turned-hourly run lands on one node and uses 15 of its 16 cores; seat-map's pod on
#    that node is starved, one third of requests are slow. The incident says "seat selection".
# =================================================================================================


@scenario("fare-import-cronjob-starves-seat-map-node", "performance", "NoisyNeighbour")
def fare_import_cronjob_starves_seat_map_node() -> dict[str, Any]:
    start = -1200
    ns = "booking"
    sm = app(
        "seat-map",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/booking/seat-map:12.0.4",
        port=8080,
        rs="7f6b9d8c5",
        cluster_ip="172.20.88.12",
        pods=[
            ("g2hxn", "1/1", "Running", "0", "3d", 0),
            ("q6ktz", "1/1", "Running", "0", "3d", 1),
            ("w4bjm", "1/1", "Running", "0", "3d", 2),
        ],
    )
    ck = app(
        "booking-web",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/booking/booking-web:55.2.0",
        port=3000,
        rs="9c8d7b6f5",
        cluster_ip="172.20.88.3",
        pods=[
            ("h8rlv", "1/1", "Running", "0", "40m", 0),
            ("m3pfx", "1/1", "Running", "0", "40m", 1),
        ],
    )
    fi = app(
        "fare-import-29437260",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/data/fare-import:2026.49.1",
        port=8080,
        rs="job",
        kind="Job",
        service=False,
        labels="batch.kubernetes.io/job-name=fare-import-29437260",
        pods=[("z7wqk", "1/1", "Running", "0", "21m", 1)],
    )
    k8s = namespace(ns, NODES_IAD, [sm, ck, fi], seed=567)
    job_pod = "fare-import-29437260-z7wqk"
    sig = job_pod
    node = NODES_IAD[1]
    k8s[f"kubectl describe nodes {node[0]}"] = node_describe(
        node[0],
        node[2],
        capacity=("16", "64919532Ki", "110"),
        pods_rows=[
            (
                f"{ns}/{job_pod}",
                "100m (0%)     0 (0%)      512Mi (0%)       0 (0%)         21m",
            ),
            (
                f"{ns}/{pod_name(sm, 'q6ktz')}",
                "2 (12%)       2 (12%)     2Gi (3%)         2Gi (3%)       3d",
            ),
            (
                f"{ns}/{pod_name(ck, 'm3pfx')}",
                "500m (3%)     1 (6%)      1Gi (1%)         1Gi (1%)       40m",
            ),
        ],
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
            ["fare-import", "0 * * * *", "<none>", "False", "1", "21m", "2y"],
        ]
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["fare-import-29437200", "Complete", "1/1", "24m", "81m"],
            ["fare-import-29437260", "Running", "0/1", "21m", "21m"],
        ]
    )
    slow = pod_name(sm, "q6ktz")
    evs = [
        ev(
            "github-actions",
            "info",
            "deploy data-jobs (PR data-jobs#88 'remove batch node pool, run jobs on general'): cronjob/fare-import nodeSelector pool=batch removed, tolerations removed ... applied",
            at=-5400,
        ),
        ev(
            "fare-import",
            "info",
            "INFO  fare-import: parsing ATPCO record 4 filings with 16 workers (runtime.NumCPU=16, no CPU limit)",
            at=start - 60,
            pods=[job_pod],
        ),
        ev(
            "fare-import",
            "info",
            "INFO  fare-import: {n} fares merged, batch {ms}",
            **every(start - 50, -10, 45),
            pods=[job_pod],
        ),
        ev(
            "seat-map",
            "warn",
            '{"level":"warn","msg":"slow request","path":"/v2/seatmap/{n}","ms":4{n},"event_loop_lag_ms":9{ms}}',
            **every(start, -4, 5),
            pods=[slow],
        ),
        ev(
            "booking-web",
            "error",
            '{"level":"error","msg":"seat-map request timed out after 3000ms","flight":"UA{ms}"}',
            **every(start + 20, -3, 4),
            pods=pods_of(ck),
        ),
        ev(
            "booking-web",
            "info",
            '{"level":"info","msg":"booking-web 55.2.0 started (new ancillaries carousel)"}',
            at=-2400,
            pods=pods_of(ck),
        ),
        ev(
            "seat-map",
            "error",
            '{"level":"error","msg":"inventory cache miss storm, reloading"}',
            **every(-9900, -9500, 60),
            pods=pods_of(sm),
        ),
    ]
    gauges = [
        gauge(
            "node_cpu_utilisation",
            {"node": n[0]},
            0.32,
            0.99 if n is node else 0.34,
            start - 60,
        )
        for n in NODES_IAD
    ]
    return kube_case(
        seed=567,
        start=start,
        inc=incident(
            "seat selection slow/timeouts during booking",
            "seat selection",
            start,
            ["seat map takes ages or fails in the booking flow"],
        ),
        exp=expected(
            "platform",
            [
                "cronjob/fare-import",
                "fare-import",
                job_pod,
                node[0],
                "PR data-jobs#88",
                "noisy neighbour",
            ],
            sig,
            "PR data-jobs#88 removed the batch pool and moved the fare-import CronJob to the general pool with no CPU limit (request 100m). The current run's pod takes 15 of 16 cores on ip-10-61-2-118; seat-map's pod on that node is starved (event-loop lag seconds), so a third of seat-map requests time out in booking-web. The other two seat-map pods are fine; booking-web's release and the old cache storm are noise.",
            [
                f"describe node {node[0]}: {job_pod} 100m request, 0 limit",
                "node_cpu_utilisation 0.99 on that node only",
                f"seat-map slow requests only from {slow}",
                "github-actions: nodeSelector pool=batch removed",
            ],
            "Give fare-import a CPU limit (or a dedicated pool / low PriorityClass); suspend the CronJob until then.",
        ),
        k8s=k8s,
        bgs=[health_bg(sm, 10), health_bg(ck, 15)],
        evs=evs,
        services=[svc("seat-map", 90, {"504": (0.0, 0.3)}, (0.03, 1.2))],
        gauges=gauges,
        books={
            "seatmap-slow.md": runbook(
                "Seat map slow",
                "Seat map slowness follows inventory cache misses. Warm the cache (POST /admin/cache/warm) and, if booking-web was just deployed, roll it back.",
            )
        },
    )


# =================================================================================================
# 8. Performance (memory): label-printer's memory limit was cut from 2Gi to 768Mi in the same
#    cost sweep (PR ship-ops#340), sized from its average. Node's --max-old-space-size is still
#    1536: at the afternoon pickup wave the heap grows past the limit, the kernel OOM-kills the
#    process, restarts follow. The incident says "can't print shipping labels".
# =================================================================================================


@scenario("label-printer-memory-limit-below-heap-size", "runtime", "OOMKilled")
def label_printer_memory_limit_below_heap_size() -> dict[str, Any]:
    start = -1600
    ns = "warehouse"
    img = "registry.depotline.example/wh/label-printer:4.9.0"
    lp = app(
        "label-printer",
        image=img,
        port=3000,
        rs="5c9d7b8f6",
        cluster_ip="10.72.5.41",
        pods=[
            ("c2vnk", "1/1", "Running", "4", "1h", 0),
            ("r7fzt", "1/1", "Running", "3", "1h", 1),
        ],
    )
    wms = app(
        "wms-api",
        image="registry.depotline.example/wh/wms-api:21.3.2",
        port=8080,
        rs="7d6f9c5b8",
        cluster_ip="10.72.5.10",
        pods=[
            ("f5hqw", "1/1", "Running", "0", "30m", 0),
            ("x9kpl", "1/1", "Running", "0", "30m", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [lp, wms], seed=568)
    sig = "Memory cgroup out of memory: Killed process"
    name = describe_pod(
        k8s,
        ns,
        lp,
        "c2vnk",
        NODES_DUB,
        state=(
            "    State:          Running\n      Started:      "
            + base.when(-140)
            + "\n    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
            + "      Started:      "
            + base.when(-700)
            + "\n      Finished:     "
            + base.when(-150)
        ),
        started=-3600,
        ready=True,
        restarts=4,
        extra="    Limits:\n      memory:  768Mi\n    Requests:\n      cpu:      250m\n      memory:   768Mi\n    Environment:\n      NODE_OPTIONS:  --max-old-space-size=1536\n",
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (-700, '{"level":30,"msg":"label-printer 4.9.0 listening on 3000"}'),
            (
                -400,
                '{"level":30,"msg":"batch render","carrier":"DPD","labels":1200,"heapUsedMB":611}',
            ),
            (
                -160,
                '{"level":40,"msg":"batch render","carrier":"UPS","labels":2400,"heapUsedMB":742}',
            ),
        ]
    )
    evs = [
        ev(
            "github-actions",
            "info",
            "deploy ship-ops (PR ship-ops#340 'rightsize memory to p50 + 20%'): label-printer resources.limits.memory 2Gi -> 768Mi",
            at=-4000,
        ),
        *[
            ev(
                "kernel",
                "warn",
                f"[{1_804_000 + i * 611}.{i}04] {sig} {2_311 + i * 97} (node) total-vm:2218{i}40kB, anon-rss:78{i}112kB, file-rss:41020kB, shmem-rss:0kB, UID:1000 pgtables:2044kB oom_score_adj:936",
                at=start + i * 420,
                labels={"node": NODES_DUB[i % 2][0]},
            )
            for i in range(4)
        ],
        ev(
            "label-printer",
            "info",
            '{"level":30,"msg":"batch render","carrier":"{ms}","labels":2{n},"heapUsedMB":7{ms}}',
            **every(start - 200, -20, 60),
            pods=pods_of(lp),
        ),
        ev(
            "wms-api",
            "error",
            '{"level":"error","msg":"POST label-printer /labels/batch failed: socket hang up","wave":"PM-2"}',
            **every(start + 5, -15, 25),
            pods=pods_of(wms),
        ),
        ev(
            "wms-api",
            "error",
            '{"level":"error","msg":"carrier UPS rating API 503, retrying"}',
            **every(-4000, -200, 300),
            pods=pods_of(wms),
        ),
        ev(
            "label-printer",
            "error",
            '{"level":50,"msg":"printer pool ZT-411 station 14 unreachable (ECONNREFUSED 10.40.14.21:9100)"}',
            **every(-10300, -9600, 90),
            pods=pods_of(lp),
        ),
        ev(
            "wms-api",
            "info",
            '{"level":"info","msg":"wms-api 21.3.2 started (pick path optimiser v2)"}',
            at=-1800,
            pods=pods_of(wms),
        ),
    ]
    return kube_case(
        seed=568,
        start=start,
        inc=incident(
            "warehouse can't print shipping labels",
            "shipping labels",
            start,
            ["label printing fails or hangs at packing stations"],
        ),
        exp=expected(
            "application",
            [
                "deployment/label-printer",
                "label-printer",
                "memory limit",
                "768Mi",
                "max-old-space-size",
                "PR ship-ops#340",
            ],
            sig,
            "PR ship-ops#340 cut label-printer's memory limit from 2Gi to 768Mi, sized from its average use, while NODE_OPTIONS still allows a 1536 MB heap. The afternoon pickup wave renders large batches, the heap grows past the limit and the kernel OOM-kills the process (exit 137, restarts every few minutes); wms-api's calls hang up. wms-api's release and the UPS rating 503s are noise.",
            [
                f"kernel: {sig} (node)",
                "describe pod: Last State OOMKilled, limit 768Mi, --max-old-space-size=1536",
                "github-actions: limits.memory 2Gi -> 768Mi",
            ],
            "Restore a 2Gi limit (or set max-old-space-size below the limit with headroom).",
        ),
        k8s=k8s,
        bgs=[health_bg(lp, 15), health_bg(wms, 15)],
        evs=evs,
        services=[svc("wms-api", 30, {"502": (0.002, 0.2)}, (0.05, 0.4))],
        gauges=[
            gauge(
                "container_memory_working_set_bytes",
                {"namespace": ns, "container": "label-printer"},
                6.1e8,
                8.0e8,
                start,
            )
        ],
        books={
            "labels.md": runbook(
                "Labels not printing",
                "Label failures come from carrier APIs (UPS/DPD rating or label endpoints). Check the carrier status pages and switch the station to the backup carrier.",
            )
        },
    )


def failed_create(rs: str, msg: str, count: str) -> tuple[str, str, str, str, str]:
    return ("Warning", "FailedCreate", count, "replicaset-controller", msg)


# =================================================================================================
# 9. Admission (LimitRange): the platform team added a LimitRange `ratio-guard` to the risk
#    namespace (maxLimitRequestRatio cpu: 2) after a node was overcommitted. risk-model-server's
#    pods ask 500m and allow 2 CPUs (ratio 4). The running pods predate the LimitRange; this
#    afternoon's release can create no pod, and with maxUnavailable 1 one old pod is already gone.
#    The incident says "card payments declined".
# =================================================================================================


@scenario("limitrange-cpu-ratio-rejects-risk-model-pods", "admission", "FailedCreate")
def limitrange_cpu_ratio_rejects_risk_model_pods() -> dict[str, Any]:
    start = -1400
    ns = "risk"
    img = "europe-docker.pkg.dev/paylane-prod/risk/risk-model-server:2026.12.2"
    rm = app(
        "risk-model-server",
        image="europe-docker.pkg.dev/paylane-prod/risk/risk-model-server:2026.11.4",
        port=8500,
        rs="68c9f7d5b",
        cluster_ip="10.88.4.21",
        desired=4,
        pods=[
            ("k4wtn", "1/1", "Running", "0", "12d", 0),
            ("p8dzr", "1/1", "Running", "0", "12d", 1),
            ("v2lmq", "1/1", "Running", "0", "12d", 2),
        ],
        extra_rs=[
            (
                "risk-model-server-7f5b8c6d9",
                "1",
                "0",
                "0",
                "24m",
                "risk-model-server",
                img,
                "app=risk-model-server,pod-template-hash=7f5b8c6d9",
            )
        ],
    )
    auth = app(
        "card-authoriser",
        image="europe-docker.pkg.dev/paylane-prod/risk/card-authoriser:9.30.0",
        port=8080,
        rs="5b7c9d8f6",
        cluster_ip="10.88.4.5",
        pods=[
            ("d6hqs", "1/1", "Running", "0", "5h", 0),
            ("n3rvx", "1/1", "Running", "0", "5h", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [rm, auth], seed=569)
    sig = "cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000"
    msg = f'Error creating: pods "risk-model-server-7f5b8c6d9-" is forbidden: {sig}'
    cont = container_text(
        "risk-model-server",
        img,
        8500,
        limits="cpu:     2\n  memory:  3Gi",
        requests="cpu:      500m\n  memory:   3Gi",
    )
    k8s[f"kubectl describe replicasets risk-model-server-7f5b8c6d9 -n {ns}"] = (
        replicaset_describe(
            "risk-model-server-7f5b8c6d9",
            ns,
            deployment="risk-model-server",
            revision=73,
            desired=1,
            current=0,
            status="0 Running / 0 Waiting / 0 Succeeded / 0 Failed",
            containers=cont,
            failure=True,
            events_rows=[
                failed_create("risk-model-server-7f5b8c6d9", msg, "44s (x18 over 23m)")
            ],
        )
    )
    k8s[f"kubectl get limitranges -n {ns}"] = table(
        [["NAME", "CREATED AT"], ["ratio-guard", "2026-12-07T09:12:44Z"]]
    )
    k8s[f"kubectl describe limitranges ratio-guard -n {ns}"] = (
        "Name:       ratio-guard\n"
        f"Namespace:  {ns}\n"
        "Type        Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio\n"
        "----        --------  ---  ---  ---------------  -------------  -----------------------\n"
        "Container   cpu       -    -    -                -              2\n"
        "Container   memory    -    -    -                -              1\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/risk-model-server",
                "Scaled up replica set risk-model-server-7f5b8c6d9 to 1",
            ),
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/risk-model-server",
                "Scaled down replica set risk-model-server-68c9f7d5b to 3 from 4",
            ),
            (
                "44s",
                "Warning",
                "FailedCreate",
                "ReplicaSet/risk-model-server-7f5b8c6d9",
                msg,
            ),
        ]
    )
    evs = [
        ev(
            "atlantis",
            "info",
            "apply platform-policies (PR platform-policies#512 'limit CPU overcommit per container'): limitrange/ratio-guard created in namespaces risk, ledger, kyc",
            at=-16300 // 4,
        ),
        ev(
            "spinnaker",
            "info",
            "pipeline risk-model-server deploy 2026.12.2: rollout started, waiting for new ReplicaSet to become available",
            at=start - 60,
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f'E1207 13:{{n}} replica_set.go:575] "Unhandled Error" err="{msg}" logger="UnhandledError"',
            **every(start - 55, -10, 70),
        ),
        ev(
            "card-authoriser",
            "error",
            '{"level":"error","msg":"risk score timeout, applying decline-on-timeout","ms":800,"bin":"4{ms}21"}',
            **every(start + 120, -3, 5),
            pods=pods_of(auth),
        ),
        ev(
            "risk-model-server",
            "warn",
            "W external/org_tensorflow: batching queue full, rejecting request (queue 256/256)",
            **every(start + 100, -5, 9),
            pods=pods_of(rm),
        ),
        ev(
            "card-authoriser",
            "error",
            '{"level":"error","msg":"3DS directory server timeout (visa)"}',
            **every(-9000, -8300, 60),
            pods=pods_of(auth),
        ),
    ]
    return kube_case(
        seed=569,
        start=start,
        inc=incident(
            "Card payments being declined, lots of timeouts",
            "card payments",
            start,
            ["merchants report many declines"],
        ),
        exp=expected(
            "platform",
            [
                "limitrange/ratio-guard",
                "ratio-guard",
                "limitrange",
                "risk-model-server",
                "maxLimitRequestRatio",
                "PR platform-policies#512",
            ],
            sig,
            "PR platform-policies#512 created the LimitRange ratio-guard (cpu max limit/request ratio 2) in the risk namespace. risk-model-server asks 500m and allows 2 CPUs (ratio 4): the release's ReplicaSet cannot create a pod, the rollout already removed one of four old pods, and the three left fill their batching queue at peak. card-authoriser declines on timeout. Its 3DS timeouts are old.",
            [
                f"describe rs risk-model-server-7f5b8c6d9: FailedCreate ... {sig}",
                "describe limitrange ratio-guard: Max Limit/Request Ratio cpu 2",
                "card-authoriser: risk score timeout",
            ],
            "Set risk-model-server's CPU request to at least 1 (or limit 1), or exempt the namespace from ratio-guard; scale the old ReplicaSet back to 4 now.",
        ),
        k8s=k8s,
        bgs=[health_bg(rm, 10), health_bg(auth, 12)],
        evs=evs,
        services=[svc("card-authoriser", 150, {"402": (0.03, 0.21)}, (0.09, 0.8))],
        books={
            "declines.md": runbook(
                "Spike in card declines",
                "Declines spike when a card scheme's 3DS directory server is slow. Check the Visa/Mastercard status pages and enable 3DS fallback in card-authoriser's config.",
            )
        },
    )


# =================================================================================================
# 10. Admission (mutating webhook): linkerd's proxy-injector serving certificate (issued by a
#     hand-made cert-manager Issuer) expired overnight; the MutatingWebhookConfiguration has
#     failurePolicy Fail and matches every namespace labelled for injection. Nothing shows until a
#     node drain evicts notification-dispatcher's pods, which cannot be re-created. The incident
#     says "push notifications not arriving".
# =================================================================================================


@scenario(
    "linkerd-injector-cert-expired-blocks-pod-creation", "admission", "FailedCreate"
)
def linkerd_injector_cert_expired_blocks_pod_creation() -> dict[str, Any]:
    start = -1800
    ns = "notify"
    img = "ghcr.io/pinecrest-app/notification-dispatcher:7.2.0"
    nd = app(
        "notification-dispatcher",
        image=img,
        port=8080,
        rs="6f8d9b5c7",
        cluster_ip="10.0.61.14",
        desired=3,
        pods=[("s5kpw", "2/2", "Running", "0", "9d", 2)],
    )
    tmpl = app(
        "template-service",
        image="ghcr.io/pinecrest-app/template-service:3.0.9",
        port=8080,
        rs="9d7b6c8f5",
        cluster_ip="10.0.61.30",
        pods=[("b2rjx", "2/2", "Running", "0", "9d", 2)],
    )
    k8s = namespace(ns, NODES_PDX, [nd, tmpl], seed=570)
    sig = 'failed calling webhook "linkerd-proxy-injector.linkerd.io"'
    msg = (
        f'Error creating: Internal error occurred: {sig}: failed to call webhook: Post "https://linkerd-proxy-injector.linkerd.svc:443/?timeout=10s": '
        "tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-12-07T13:41:07Z is after 2026-12-07T02:14:00Z"
    )
    cont = container_text("notification-dispatcher", img, 8080, limits="memory:  512Mi")
    rs = f"notification-dispatcher-{nd['rs']}"
    k8s[f"kubectl describe replicasets {rs} -n {ns}"] = replicaset_describe(
        rs,
        ns,
        deployment="notification-dispatcher",
        revision=31,
        desired=3,
        current=1,
        status="1 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=[failed_create(rs, msg, "2m (x27 over 29m)")],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "31m",
                "Normal",
                "Killing",
                f"Pod/{rs}-d7qtv",
                "Stopping container notification-dispatcher",
            ),
            (
                "31m",
                "Normal",
                "Killing",
                f"Pod/{rs}-h4wnl",
                "Stopping container notification-dispatcher",
            ),
            ("2m", "Warning", "FailedCreate", f"ReplicaSet/{rs}", msg),
        ]
    )
    k8s["kubectl get pods -n linkerd -o wide --show-labels"] = table(
        [
            [
                "NAME",
                "READY",
                "STATUS",
                "RESTARTS",
                "AGE",
                "IP",
                "NODE",
                "NOMINATED NODE",
                "READINESS GATES",
                "LABELS",
            ],
            [
                "linkerd-destination-7b9c5d8f6-2xkqp",
                "4/4",
                "Running",
                "0",
                "40d",
                "10.170.1.12",
                NODES_PDX[0][0],
                "<none>",
                "<none>",
                "linkerd.io/control-plane-component=destination",
            ],
            [
                "linkerd-identity-5d8f7c9b6-m4tvz",
                "2/2",
                "Running",
                "0",
                "40d",
                "10.170.2.9",
                NODES_PDX[1][0],
                "<none>",
                "<none>",
                "linkerd.io/control-plane-component=identity",
            ],
            [
                "linkerd-proxy-injector-6c7b9f5d8-q8hrn",
                "2/2",
                "Running",
                "0",
                "40d",
                "10.170.3.61",
                NODES_PDX[2][0],
                "<none>",
                "<none>",
                "linkerd.io/control-plane-component=proxy-injector",
            ],
        ]
    )
    k8s[
        "kubectl logs linkerd-proxy-injector-6c7b9f5d8-q8hrn -n linkerd --tail=1000"
    ] = podlog(
        [
            (
                -1790 + i * 300,
                f"2026/12/07 13:{10 + i * 5:02d}:33 http: TLS handshake error from 10.170.0.{20 + i}:5{i}812: remote error: tls: bad certificate",
            )
            for i in range(6)
        ]
    )
    evs = [
        ev(
            "cert-manager",
            "error",
            'E1207 02:{n} controller.go:162] "re-queuing item due to error processing" err="issuer linkerd/webhook-issuer not ready: secret \\"webhook-issuer-tls\\" not found" key="linkerd/linkerd-proxy-injector-k8s-tls"',
            **every(-7000, -200, 900),
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","message":"disrupting nodeclaim(s) via delete, terminating 1 nodes","reason":"underutilized","nodepool":"default"}',
            at=start - 120,
        ),
        ev(
            "kube-apiserver",
            "warn",
            f"W1207 13:{{n}} dispatcher.go:225] {sig}: x509: certificate has expired or is not yet valid",
            **every(start - 90, -10, 40),
        ),
        ev(
            "notification-dispatcher",
            "warn",
            '{"level":"warn","msg":"APNs send queue backlog","pending":1{n}}',
            **every(start + 60, -10, 30),
            pods=pods_of(nd),
        ),
        ev(
            "notification-dispatcher",
            "error",
            '{"level":"error","msg":"FCM 429 quota exceeded for project pinecrest-prod, backing off"}',
            **every(start + 300, -20, 45),
            pods=pods_of(nd),
        ),
        ev(
            "notification-dispatcher",
            "error",
            '{"level":"error","msg":"APNs connection reset by peer, reconnecting","topic":"app.pinecrest.ios"}',
            **every(-10100, -9300, 80),
            pods=pods_of(nd),
        ),
        ev(
            "template-service",
            "error",
            '{"level":"error","msg":"template locale fr-CA missing, falling back to en"}',
            **every(-8000, -50, 600),
            pods=pods_of(tmpl),
        ),
    ]
    return kube_case(
        seed=570,
        start=start,
        inc=incident(
            "push notifications delayed/not arriving",
            "push notifications",
            start,
            ["users not getting push notifications for ~30 min"],
        ),
        exp=expected(
            "platform",
            [
                "mutatingwebhookconfiguration/linkerd-proxy-injector-webhook-config",
                "linkerd-proxy-injector",
                "linkerd-proxy-injector.linkerd.io",
                "webhook",
                "cert-manager",
                "webhook-issuer",
            ],
            sig,
            "The serving certificate of linkerd's proxy-injector webhook expired at 02:14 (cert-manager could not renew it: the issuer's secret is gone). The MutatingWebhookConfiguration has failurePolicy Fail, so the API server rejects every pod creation in injected namespaces. A Karpenter consolidation evicted two of the three notification-dispatcher pods and they cannot be re-created; the last pod backs up and trips FCM's rate limit. The FCM 429s are a consequence; the template locale errors are noise.",
            [
                f"describe rs {rs}: FailedCreate ... {sig} ... certificate has expired",
                "kube-apiserver: the same",
                "cert-manager: issuer linkerd/webhook-issuer not ready",
                "linkerd-proxy-injector: TLS handshake error",
            ],
            "Renew the injector certificate (restore the issuer secret, let cert-manager reissue, restart the injector); scale the dispatcher back.",
        ),
        k8s=k8s,
        bgs=[health_bg(nd, 15), health_bg(tmpl, 20)],
        evs=evs,
        services=[svc("notification-dispatcher", 40, {"429": (0.0, 0.2)}, (0.05, 0.7))],
        books={
            "push.md": runbook(
                "Push notifications delayed",
                "Push delays are caused by FCM/APNs throttling. Request a quota increase in the Firebase console and lower the dispatcher's send rate (SEND_RPS).",
            )
        },
    )


# =================================================================================================
# 11. Admission (Pod Security Admission): the namespace podcasts was relabelled
#     pod-security.kubernetes.io/enforce=restricted (PR tenancy#77, "raise all tenant namespaces to
#     restricted"). audio-transcoder runs as root with an ffmpeg image; its Job pods cannot be
#     created, uploads stay "processing". The incident says "episode uploads stuck".
# =================================================================================================


@scenario("psa-restricted-rejects-audio-transcoder-jobs", "admission", "FailedCreate")
def psa_restricted_rejects_audio_transcoder_jobs() -> dict[str, Any]:
    start = -2200
    ns = "podcasts"
    up = app(
        "upload-api",
        image="docker.io/castbox-studio/upload-api:5.8.1",
        port=8080,
        rs="7c6d8f9b5",
        cluster_ip="10.43.70.9",
        pods=[
            ("j3wqx", "1/1", "Running", "0", "2h", 0),
            ("t6nzp", "1/1", "Running", "0", "2h", 1),
        ],
    )
    feed = app(
        "rss-builder",
        image="docker.io/castbox-studio/rss-builder:1.4.0",
        port=8080,
        rs="8d5f7b6c9",
        cluster_ip="10.43.70.40",
        pods=[("x2mlr", "1/1", "Running", "0", "6d", 2)],
    )
    k8s = namespace(ns, NODES_DUB, [up, feed], seed=571)
    sig = 'violates PodSecurity "restricted:latest"'
    msg = (
        f'Error creating: pods "transcode-ep-88412-" is forbidden: {sig}: allowPrivilegeEscalation != false (container "ffmpeg" must set '
        'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "ffmpeg" must set securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or container "ffmpeg" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "ffmpeg" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    )
    k8s[f"kubectl describe namespaces {ns}"] = (
        f"Name:         {ns}\n"
        "Labels:       kubernetes.io/metadata.name=podcasts\n"
        "              pod-security.kubernetes.io/enforce=restricted\n"
        "              pod-security.kubernetes.io/warn=restricted\n"
        "              team=studio\n"
        "Annotations:  <none>\n"
        "Status:       Active\n\n"
        "No resource quota.\n\nNo LimitRange resource.\n"
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["transcode-ep-88391", "Complete", "1/1", "3m", "3h"],
            *[
                [f"transcode-ep-884{n}", "Running", "0/1", f"{m}m", f"{m}m"]
                for n, m in ((12, 34), (15, 29), (19, 21), (23, 12), (27, 4))
            ],
        ]
    )
    k8s[f"kubectl describe jobs transcode-ep-88412 -n {ns}"] = h15.describe_block(
        "Name:             transcode-ep-88412\n"
        f"Namespace:        {ns}\n"
        "Selector:         batch.kubernetes.io/controller-uid=5e1f0a3c-77b2-4d6e-9a0c-2b8f6d4e1c90\n"
        "Labels:           app=audio-transcoder\n"
        "Parallelism:      1\nCompletions:      1\nStart Time:       Mon, 07 Dec 2026 13:06:02 +0000\n"
        "Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 0 Failed\n"
        "Pod Template:\n  Labels:  app=audio-transcoder\n  Containers:\n   ffmpeg:\n    Image:      docker.io/castbox-studio/audio-transcoder:2.3.0\n",
        [("Warning", "FailedCreate", "30s (x14 over 34m)", "job-controller", msg)],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                f"{a}s",
                "Warning",
                "FailedCreate",
                f"Job/transcode-ep-884{n}",
                msg.replace("88412", f"884{n}"),
            )
            for n, a in ((27, 20), (23, 40), (19, 50))
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application tenancy sync (PR tenancy#77 'raise all tenant namespaces to restricted'): namespace/podcasts labels pod-security.kubernetes.io/enforce baseline -> restricted ... Synced",
            at=start - 300,
        ),
        ev(
            "upload-api",
            "info",
            '{"level":"info","msg":"episode uploaded, transcode job created","episode":"ep-884{ms}","job":"transcode-ep-884{ms}"}',
            **every(start, -60, 300),
            pods=pods_of(up),
        ),
        ev(
            "upload-api",
            "warn",
            '{"level":"warn","msg":"transcode not finished after 10m","episode":"ep-884{ms}","status":"processing"}',
            **every(start + 600, -30, 90),
            pods=pods_of(up),
        ),
        ev(
            "rss-builder",
            "error",
            '{"level":"error","msg":"Apple Podcasts feed validation: <itunes:category> \\"Tech\\" not allowed"}',
            **every(-7000, -40, 400),
            pods=pods_of(feed),
        ),
        ev(
            "upload-api",
            "error",
            '{"level":"error","msg":"S3 multipart upload part 17 failed: RequestTimeout, retrying"}',
            **every(-9900, -9000, 150),
            pods=pods_of(up),
        ),
        ev(
            "upload-api",
            "info",
            '{"level":"info","msg":"upload-api 5.8.1 started (chunked uploads)"}',
            at=-7200,
            pods=pods_of(up),
        ),
    ]
    return kube_case(
        seed=571,
        start=start,
        inc=incident(
            "new episodes stuck in processing",
            "episode uploads",
            start,
            ["creators' uploads stay 'processing' for over 30 min"],
        ),
        exp=expected(
            "platform",
            [
                "namespace/podcasts",
                "podcasts",
                "pod-security.kubernetes.io/enforce",
                "restricted",
                "audio-transcoder",
                "PR tenancy#77",
            ],
            sig,
            "PR tenancy#77 raised the podcasts namespace's Pod Security Admission level to enforce=restricted. audio-transcoder's ffmpeg pods run as root without a seccomp profile or dropped capabilities, so the job controller cannot create any transcode pod (FailedCreate) and every upload stays 'processing'. upload-api's release, the S3 part retries and the feed validation error are noise.",
            [
                f"describe job transcode-ep-88412: FailedCreate ... {sig}",
                "describe namespace podcasts: enforce=restricted",
                "argocd: enforce baseline -> restricted",
            ],
            "Give audio-transcoder a restricted-compliant securityContext (runAsNonRoot, drop ALL, RuntimeDefault seccomp) or keep the namespace at baseline until it does.",
        ),
        k8s=k8s,
        bgs=[health_bg(up, 12), health_bg(feed, 30)],
        evs=evs,
        services=[svc("upload-api", 8, {}, (0.2, 0.2))],
        books={
            "uploads.md": runbook(
                "Uploads stuck in processing",
                "Uploads stuck in processing are S3 multipart problems. Check upload-api for RequestTimeout retries and abort incomplete multipart uploads (aws s3api list-multipart-uploads).",
            )
        },
    )


# =================================================================================================
# 12. Startup (probe): the shared chart `svc-lib` 4.0 (bumped by Renovate, PR claims-deploy#214)
#     adds a default startupProbe (period 5s, failureThreshold 6: 30 s). claims-api (Spring Boot,
#     Flyway at start) needs ~75 s before /actuator/health/liveness answers: the kubelet kills it
#     every 30 s, the rollout's new pods crash-loop and the old ReplicaSet is scaled down to one pod
#     (maxUnavailable 50%). The incident says "claims portal very slow / errors".
# =================================================================================================


@scenario("claims-api-startup-probe-shorter-than-boot", "startup", "CrashLoopBackOff")
def claims_api_startup_probe_shorter_than_boot() -> dict[str, Any]:
    start = -1500
    ns = "claims"
    img = "harbor.meridian-mutual.example/claims/claims-api:8.14.0"
    ca = app(
        "claims-api",
        image=img,
        port=8080,
        rs="5f9b8d7c6",
        cluster_ip="10.233.14.50",
        desired=4,
        pods=[
            ("g7tnq", "0/1", "CrashLoopBackOff", "6", "26m", 0),
            ("r2xkd", "0/1", "CrashLoopBackOff", "6", "26m", 1),
        ],
    )
    old = app(
        "claims-api",
        image=img.replace("8.14.0", "8.13.2"),
        port=8080,
        rs="7b6c9f8d5",
        service=False,
        pods=[
            ("c4mzw", "1/1", "Running", "0", "34d", 2),
            ("l8vhp", "1/1", "Running", "0", "34d", 0),
        ],
    )
    portal = app(
        "claims-portal",
        image="harbor.meridian-mutual.example/claims/claims-portal:3.30.1",
        port=3000,
        rs="6d8c7b9f5",
        cluster_ip="10.233.14.9",
        pods=[("p5wjs", "1/1", "Running", "0", "8d", 1)],
    )
    k8s = namespace(ns, NODES_IAD, [ca, old, portal], seed=572)
    key = f"kubectl get deployments -n {ns} -o wide"
    lines = k8s[key].splitlines(keepends=True)
    k8s[key] = "".join(
        [
            lines[0],
            lines[1].replace("0/4     4            0   ", "2/4     2            2   "),
            *lines[3:],
        ]
    )
    key = f"kubectl get endpoints -n {ns}"
    olds = ",".join(ip + ":8080" for ip in pod_ips(k8s, ns, "claims-api-7b6c9f8d5"))
    k8s[key] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            ["claims-api", olds, "300d"],
            *[r.split() for r in k8s[key].splitlines()[2:]],
        ]
    )
    new_ip = pod_ips(k8s, ns, "claims-api-5f9b8d7c6-g7tnq")[0]
    sig = "failed startup probe, will be restarted"
    probe = "    Startup:        http-get http://:8080/actuator/health/liveness delay=0s timeout=1s period=5s #success=1 #failure=6\n    Liveness:       http-get http://:8080/actuator/health/liveness delay=0s timeout=1s period=10s #success=1 #failure=3\n"
    rows = [
        (
            "Warning",
            "Unhealthy",
            "2m (x41 over 26m)",
            "kubelet",
            f'Startup probe failed: Get "http://{new_ip}:8080/actuator/health/liveness": dial tcp {new_ip}:8080: connect: connection refused',
        ),
        (
            "Normal",
            "Killing",
            "2m (x6 over 25m)",
            "kubelet",
            f"Container claims-api {sig}",
        ),
        *backoff_rows(ca, ns, "g7tnq", "x52 over 24m"),
    ]
    name = describe_pod(
        k8s,
        ns,
        ca,
        "g7tnq",
        NODES_IAD,
        state=crashloop(143, "Error", -130, -98),
        started=-1560,
        restarts=6,
        events_rows=rows,
        probes=probe,
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -130,
                "  .   ____          _            __ _ _   :: Spring Boot ::                (v3.3.5)",
            ),
            (
                -128,
                "INFO 1 --- [claims-api] [main] c.m.claims.ClaimsApiApplication : Starting ClaimsApiApplication v8.14.0 using Java 21.0.5",
            ),
            (
                -117,
                'INFO 1 --- [claims-api] [main] o.f.core.internal.command.DbMigrate : Current version of schema "claims": 412',
            ),
            (
                -104,
                "INFO 1 --- [claims-api] [main] o.f.core.internal.command.DbValidate : Successfully validated 413 migrations (execution time 00:11.204s)",
            ),
            (
                -99,
                "INFO 1 --- [claims-api] [ionShutdownHook] o.s.b.w.e.tomcat.GracefulShutdown : Commencing graceful shutdown. Waiting for active requests to complete",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "26m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/claims-api",
                "Scaled up replica set claims-api-5f9b8d7c6 to 2",
            ),
            (
                "26m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/claims-api",
                "Scaled down replica set claims-api-7b6c9f8d5 to 2 from 4",
            ),
            ("2m", "Normal", "Killing", f"Pod/{name}", f"Container claims-api {sig}"),
            (
                "90s",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(ca, 'r2xkd')}",
                "Back-off restarting failed container claims-api",
            ),
        ]
    )
    evs = [
        ev(
            "renovate",
            "info",
            "PR claims-deploy#214 'chore(deps): update helm chart svc-lib to v4' automerged (release notes: startupProbe enabled by default, periodSeconds 5, failureThreshold 6)",
            at=start - 420,
        ),
        ev(
            "argocd",
            "info",
            "application claims/claims-api synced: chart svc-lib 3.9.0 -> 4.0.1, image 8.13.2 -> 8.14.0",
            at=start - 100,
        ),
        ev(
            "claims-api",
            "info",
            "INFO 1 --- [claims-api] [main] c.m.claims.ClaimsApiApplication : Starting ClaimsApiApplication v8.14.0 using Java 21.0.5",
            **every(start - 90, -60, 250),
            pods=[name, pod_name(ca, "r2xkd")],
        ),
        ev(
            "kubelet",
            "info",
            f'I1207 13:{{n}} kuberuntime_container.go:779] "Killing container with a grace period" pod="claims/{name}" containerName="claims-api" reason="{sig}" gracePeriod=30',
            **every(start - 60, -60, 250),
        ),
        ev(
            "claims-api",
            "warn",
            "WARN 1 --- [claims-api] [io-8080-exec-{ms}] c.z.h.pool.HikariPool : HikariPool-1 - Connection is not available, request timed out after 3000ms (total=20, active=20, idle=0, waiting=3{ms})",
            **every(start + 60, -5, 8),
            pods=pods_of(old),
        ),
        ev(
            "claims-portal",
            "error",
            '{"level":"error","msg":"GET /api/claims/{n} 503","upstream":"claims-api"}',
            **every(start + 90, -4, 6),
            pods=pods_of(portal),
        ),
        ev(
            "claims-api",
            "error",
            "ERROR 1 --- [claims-api] [scheduling-1] c.m.claims.fnol.FnolImporter : SFTP fnol-partner: Auth fail",
            **every(-10000, -9200, 120),
            pods=pods_of(old),
        ),
    ]
    return kube_case(
        seed=572,
        start=start,
        inc=incident(
            "claims portal errors + super slow",
            "claims portal",
            start,
            ["adjusters get errors opening claims"],
        ),
        exp=expected(
            "application",
            [
                "deployment/claims-api",
                "claims-api",
                "startupprobe",
                "startup probe",
                "svc-lib",
                "PR claims-deploy#214",
            ],
            sig,
            "Renovate's PR claims-deploy#214 bumped the shared chart svc-lib to 4.0, which adds a default startupProbe (5 s x 6 = 30 s). claims-api (Spring Boot with Flyway validation at start) needs ~75 s before its liveness endpoint answers, so the kubelet kills every new pod at 30 s and they crash-loop. The rollout already scaled the old ReplicaSet from 4 to 2; those two pods exhaust their Hikari pools and the portal gets 503s. The Hikari warnings are a consequence; the SFTP auth failure is old.",
            [
                f"describe pod {name}: Startup probe ... period=5s #failure=6; Container claims-api {sig}",
                "previous log: killed during Flyway validation, before Started",
                "renovate: svc-lib v4 startupProbe default",
            ],
            "Raise the startupProbe's failureThreshold (e.g. 30) for claims-api or disable the default; roll back the chart bump and scale the old ReplicaSet to 4.",
        ),
        k8s=k8s,
        bgs=[health_bg(old, 12), health_bg(portal, 20)],
        evs=evs,
        services=[svc("claims-portal", 25, {"503": (0.001, 0.4)}, (0.1, 2.2))],
        books={
            "claims-slow.md": runbook(
                "Claims portal slow",
                "Slow claims almost always mean the claims database is short of connections. Raise HIKARI_MAX_POOL_SIZE for claims-api and check for long-running reports on the replica.",
            )
        },
    )


# =================================================================================================
# 13. Startup (Secret key): the ExternalSecret payroll-export-db was moved to a new Vault path
#     (PR secrets#301); the new path stores the password under `password`, the Deployment reads
#     key `DB_PASSWORD`. The Secret is re-created without it; the nightly-restart pods fail with
#     CreateContainerConfigError. The incident says "payroll export for the bank didn't go".
# =================================================================================================


@scenario(
    "payroll-export-secret-key-renamed-by-externalsecret",
    "startup",
    "CreateContainerConfigError",
)
def payroll_export_secret_key_renamed_by_externalsecret() -> dict[str, Any]:
    start = -2500
    ns = "payroll"
    img = "ghcr.io/ledgerly-hr/payroll-export:6.0.3"
    pe = app(
        "payroll-export",
        image=img,
        port=8080,
        rs="8c7d9f6b5",
        cluster_ip="10.100.5.61",
        pods=[
            ("f4nqz", "0/1", "CreateContainerConfigError", "0", "43m", 0),
            ("w8hkt", "0/1", "CreateContainerConfigError", "0", "43m", 2),
        ],
    )
    pw = app(
        "payroll-web",
        image="ghcr.io/ledgerly-hr/payroll-web:14.2.0",
        port=3000,
        rs="6b9c8d7f5",
        cluster_ip="10.100.5.7",
        pods=[
            ("k2rvs", "1/1", "Running", "0", "3h", 1),
            ("z5tmc", "1/1", "Running", "0", "3h", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [pe, pw],
        seed=573,
        secrets=[
            ("payroll-export-db", "Opaque", "3", "44m"),
            ("payroll-web-session", "Opaque", "1", "2y"),
            ("bank-sftp-key", "Opaque", "1", "1y"),
        ],
    )
    sig = "couldn't find key DB_PASSWORD in Secret payroll/payroll-export-db"
    rows = [
        (
            "Normal",
            "Pulled",
            "3m (x198 over 43m)",
            "kubelet",
            f'Container image "{img}" already present on machine',
        ),
        ("Warning", "Failed", "3m (x198 over 43m)", "kubelet", f"Error: {sig}"),
    ]
    name = describe_pod(
        k8s,
        ns,
        pe,
        "f4nqz",
        NODES_FRA,
        state="    State:          Waiting\n      Reason:       CreateContainerConfigError",
        started=-2580,
        events_rows=rows,
        extra="    Environment:\n      DB_HOST:      payroll-pg.payroll.svc\n      DB_USER:      <set to the key 'DB_USER' in secret 'payroll-export-db'>      Optional: false\n      DB_PASSWORD:  <set to the key 'DB_PASSWORD' in secret 'payroll-export-db'>  Optional: false\n",
    )
    k8s[f"kubectl describe secrets payroll-export-db -n {ns}"] = (
        "Name:         payroll-export-db\n"
        f"Namespace:    {ns}\n"
        "Labels:       reconcile.external-secrets.io/created-by=3f0d8a1c\n"
        "Annotations:  reconcile.external-secrets.io/data-hash=9b1e77c0d4\n\n"
        "Type:  Opaque\n\nData\n====\n"
        "DB_USER:   13 bytes\nhost:      22 bytes\npassword:  32 bytes\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "44m",
                "Normal",
                "Updated",
                "ExternalSecret/payroll-export-db",
                "Updated Secret",
            ),
            (
                "43m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/payroll-export",
                "Scaled up replica set payroll-export-8c7d9f6b5 to 2",
            ),
            ("3m", "Warning", "Failed", f"Pod/{name}", f"Error: {sig}"),
        ]
    )
    evs = [
        ev(
            "atlantis",
            "info",
            "PR secrets#301 'move payroll secrets to kv/v2/hr/payroll' applied: externalsecret payroll-export-db remoteRef kv/payroll/export-db -> kv/v2/hr/payroll/db (dataFrom: extract)",
            at=start - 200,
        ),
        ev(
            "external-secrets",
            "info",
            '{"level":"info","ts":"2026-12-07T13:{n}Z","logger":"controllers.ExternalSecret","msg":"reconciled secret","ExternalSecret":{"name":"payroll-export-db","namespace":"payroll"}}',
            **every(start - 150, -60, 900),
        ),
        ev(
            "kubelet",
            "warn",
            f'E1207 13:{{n}} kuberuntime_manager.go:1274] "Unhandled Error" err="container payroll-export start failed in pod {name}_payroll: CreateContainerConfigError: {sig}"',
            **every(start - 100, -30, 120),
        ),
        ev(
            "payroll-web",
            "error",
            '{"level":"error","msg":"export status for run 2026-12 is stuck in QUEUED","run":"2026-12-07-bank"}',
            **every(start + 900, -20, 120),
            pods=pods_of(pw),
        ),
        ev(
            "payroll-web",
            "warn",
            '{"level":"warn","msg":"SFTP bank.example host key changed warning ignored (pinned)"}',
            **every(-7000, -100, 800),
            pods=pods_of(pw),
        ),
        ev(
            "payroll-export",
            "error",
            '{"level":"error","msg":"bank SFTP upload failed: EOF","run":"2026-12-06-bank"}',
            **every(-10000, -9500, 100),
            pods=pods_of(pe),
        ),
    ]
    return kube_case(
        seed=573,
        start=start,
        inc=incident(
            "Payroll bank file didn't go out",
            "payroll export",
            start,
            ["today's bank payment file was not sent"],
        ),
        exp=expected(
            "platform",
            [
                "secret/payroll-export-db",
                "payroll-export-db",
                "externalsecret/payroll-export-db",
                "DB_PASSWORD",
                "payroll-export",
                "PR secrets#301",
            ],
            sig,
            "PR secrets#301 moved the ExternalSecret payroll-export-db to a new Vault path that stores the password as `password`; the re-created Secret has no DB_PASSWORD key, so the kubelet cannot start payroll-export's containers (CreateContainerConfigError) and the bank export never runs. The SFTP EOF is yesterday's, the host-key warning is noise.",
            [
                f"describe pod {name}: Error: {sig}",
                "describe secret payroll-export-db: DB_USER, host, password (no DB_PASSWORD)",
                "atlantis: remoteRef moved by PR secrets#301",
            ],
            "Map `password` to DB_PASSWORD in the ExternalSecret (data: secretKey DB_PASSWORD, remoteRef property password) or read the new key; then rerun today's export.",
        ),
        k8s=k8s,
        bgs=[health_bg(pw, 15)],
        evs=evs,
        services=[svc("payroll-web", 6, {}, (0.08, 0.08))],
        books={
            "bank-file.md": runbook(
                "Bank payment file not sent",
                "The bank file usually fails at the SFTP step (host key or EOF from the bank). Check payroll-export's SFTP errors and re-upload with `payroll-export upload --run <id>`.",
            )
        },
    )


# =================================================================================================
# 14. Startup (init container image pull): menu-service's pods run an init container
#     `wait-for-redis` from docker.io/library/busybox:1.36. Since the NAT gateway was replaced (one
#     shared public IP for the whole VPC, CHG-2290), Docker Hub's anonymous pull limit is hit;
#     after the scale-out of the lunch peak new pods stay Init:ImagePullBackOff. The incident says
#     "restaurant menus not loading in the app".
# =================================================================================================


@scenario(
    "menu-service-init-busybox-docker-hub-rate-limit", "startup", "ImagePullBackOff"
)
def menu_service_init_busybox_docker_hub_rate_limit() -> dict[str, Any]:
    start = -1300
    ns = "catalog"
    img = "eu.gcr.io/forkful-prod/menu-service:19.4.0"
    ms = app(
        "menu-service",
        image=img,
        port=8080,
        rs="7d8b6f9c5",
        cluster_ip="10.60.22.31",
        desired=8,
        pods=[
            ("a3kxq", "1/1", "Running", "0", "2d", 0),
            ("e7pnw", "1/1", "Running", "0", "2d", 1),
            ("b6rzt", "0/1", "Init:ImagePullBackOff", "0", "22m", 0),
            ("h2wvm", "0/1", "Init:ImagePullBackOff", "0", "22m", 1),
            ("n9clj", "0/1", "Init:ErrImagePull", "0", "22m", 2),
            ("s4qfd", "0/1", "Init:ImagePullBackOff", "0", "22m", 2),
        ],
    )
    app_bff = app(
        "app-bff",
        image="eu.gcr.io/forkful-prod/app-bff:31.0.2",
        port=8080,
        rs="5c7f8d9b6",
        cluster_ip="10.60.22.4",
        pods=[
            ("d8tqn", "1/1", "Running", "0", "5h", 0),
            ("k5xms", "1/1", "Running", "0", "5h", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [ms, app_bff], seed=574)
    sig = "toomanyrequests: You have reached your unauthenticated pull rate limit"
    init = (
        "Init Containers:\n  wait-for-redis:\n    Image:      docker.io/library/busybox:1.36\n    Command:\n      sh\n      -c\n"
        "      until nc -z menu-redis 6379; do sleep 1; done\n    State:          Waiting\n      Reason:       ImagePullBackOff\n    Ready:          False\n"
    )
    rows = [
        (
            "Normal",
            "Scheduled",
            "22m",
            "default-scheduler",
            f"Successfully assigned catalog/{pod_name(ms, 'b6rzt')} to {NODES_FRA[0][0]}",
        ),
        (
            "Normal",
            "Pulling",
            "19m (x4 over 22m)",
            "kubelet",
            'Pulling image "docker.io/library/busybox:1.36"',
        ),
        (
            "Warning",
            "Failed",
            "19m (x4 over 22m)",
            "kubelet",
            f'Failed to pull image "docker.io/library/busybox:1.36": failed to pull and unpack image "docker.io/library/busybox:1.36": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/busybox/manifests/sha256:9ae97d36d26566ff84e8893c64a6dc4fe8ca6d1144bf5b87b2b85a32def253c7: 429 Too Many Requests - Server message: {sig}. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit',
        ),
        (
            "Normal",
            "BackOff",
            "2m (x81 over 22m)",
            "kubelet",
            'Back-off pulling image "docker.io/library/busybox:1.36"',
        ),
        (
            "Warning",
            "Failed",
            "2m (x81 over 22m)",
            "kubelet",
            "Error: ImagePullBackOff",
        ),
    ]
    name = pod_name(ms, "b6rzt")
    k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
        name,
        ns,
        owner=f"ReplicaSet/menu-service-{ms['rs']}",
        labels=["app=menu-service", f"pod-template-hash={ms['rs']}"],
        sa="menu-service",
        containers=container_text("menu-service", img, 8080),
        events_rows=rows,
        node=f"{NODES_FRA[0][0]}/{NODES_FRA[0][2]}",
        status="Pending",
        conditions=(
            ("Initialized", "False"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ),
        init=init,
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "menu-service",
                "Deployment/menu-service",
                "cpu: 96%/60%",
                "2",
                "8",
                "6",
                "1y",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "22m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/menu-service",
                "New size: 6; reason: cpu resource utilization (percentage of request) above target",
            ),
            ("2m", "Warning", "Failed", f"Pod/{name}", "Error: ImagePullBackOff"),
            (
                "40s",
                "Warning",
                "FailedGetResourceMetric",
                "HorizontalPodAutoscaler/menu-service",
                "failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)",
            ),
        ]
    )
    evs = [
        ev(
            "terraform",
            "info",
            "CHG-2290 apply network-prod: google_compute_router_nat.egress replaced (nat_ip_allocate_option MANUAL_ONLY, 1 address: 34.107.88.20)",
            at=-9000,
        ),
        ev(
            "containerd",
            "error",
            f'time="2026-12-07T13:{{n}}Z" level=error msg="PullImage \\"docker.io/library/busybox:1.36\\" failed" error="429 Too Many Requests - Server message: {sig}"',
            **every(start - 40, -30, 60),
        ),
        ev(
            "menu-service",
            "warn",
            '{"level":"warn","msg":"request queue high","inflight":2{ms},"p95_ms":18{ms}}',
            **every(start, -5, 10),
            pods=[pod_name(ms, "a3kxq"), pod_name(ms, "e7pnw")],
        ),
        ev(
            "app-bff",
            "error",
            '{"level":"error","msg":"GET menu-service /v4/menus/{n} timed out after 2500ms"}',
            **every(start + 30, -3, 4),
            pods=pods_of(app_bff),
        ),
        ev(
            "app-bff",
            "error",
            '{"level":"error","msg":"image CDN 404 /dishes/{n}.webp"}',
            **every(-7000, -50, 300),
            pods=pods_of(app_bff),
        ),
        ev(
            "menu-service",
            "error",
            '{"level":"error","msg":"menu-redis READONLY You can\'t write against a read only replica"}',
            **every(-10200, -9800, 40),
            pods=pods_of(ms)[:2],
        ),
    ]
    return kube_case(
        seed=574,
        start=start,
        inc=incident(
            "Menus not loading in app at lunch",
            "restaurant menus",
            start,
            ["restaurant menus spin or fail in the app"],
        ),
        exp=expected(
            "platform",
            [
                "deployment/menu-service",
                "menu-service",
                "wait-for-redis",
                "busybox:1.36",
                "docker.io/library/busybox",
                "docker hub rate limit",
                "CHG-2290",
            ],
            sig,
            "menu-service's init container wait-for-redis pulls docker.io/library/busybox:1.36 anonymously. Since CHG-2290 the whole VPC leaves through one NAT address, so Docker Hub's unauthenticated pull limit is reached; the lunch scale-out's four new pods stay Init:ImagePullBackOff and the two old pods saturate, app-bff times out. menu-redis' old READONLY errors and the CDN 404s are noise.",
            [
                f"describe pod {name}: Failed to pull image busybox:1.36 ... 429 {sig}",
                "get pods: four pods Init:ImagePullBackOff / Init:ErrImagePull",
                "terraform: CHG-2290 single NAT address",
            ],
            "Mirror busybox into the private registry (or use an authenticated pull secret / pull-through cache) and point the init container at it.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "menu-service",
                pods_of(ms)[:2],
                ['{"level":"info","msg":"GET /healthz 200","ms":{ms}}'],
                12,
            ),
            health_bg(app_bff, 15),
        ],
        evs=evs,
        services=[svc("app-bff", 110, {"504": (0.001, 0.25)}, (0.08, 1.6))],
        books={
            "menus.md": runbook(
                "Menus not loading",
                "Menu failures come from menu-redis failing over: the service writes to a replica. Restart menu-service pods so they reconnect to the new primary.",
            )
        },
    )


# =================================================================================================
# 15. Infrastructure (CoreDNS): PR cluster-addons#149 added a stanza for the on-prem zone
#     `corp.tallyhome.example` to the coredns ConfigMap but changed the root zone's forward to the
#     old on-prem resolver 10.20.0.53 too (copy-paste), which the network team switched off last
#     month. In-cluster names resolve, every external name times out. shipping-rates cannot reach
#     the carriers' APIs. The incident says "no shipping options at checkout".
# =================================================================================================


@scenario(
    "coredns-root-forward-to-retired-resolver", "infrastructure", "UpstreamDNSTimeout"
)
def coredns_root_forward_to_retired_resolver() -> dict[str, Any]:
    start = -1100
    ns = "checkout"
    sr = app(
        "shipping-rates",
        image="registry.tallyhome.example/checkout/shipping-rates:3.2.7",
        port=8080,
        rs="6c8f9d7b5",
        cluster_ip="172.20.60.18",
        pods=[
            ("b7mqx", "1/1", "Running", "0", "6d", 0),
            ("j4zkp", "1/1", "Running", "0", "6d", 1),
        ],
    )
    co = app(
        "checkout-api",
        image="registry.tallyhome.example/checkout/checkout-api:40.1.0",
        port=8080,
        rs="8d7c6b9f5",
        cluster_ip="172.20.60.5",
        pods=[
            ("f2wrn", "1/1", "Running", "0", "35m", 0),
            ("t9hqs", "1/1", "Running", "0", "35m", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [sr, co], seed=575)
    sig = "10.20.0.53:53: i/o timeout"
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = table(
        [
            [
                "NAME",
                "READY",
                "STATUS",
                "RESTARTS",
                "AGE",
                "IP",
                "NODE",
                "NOMINATED NODE",
                "READINESS GATES",
                "LABELS",
            ],
            [
                "coredns-5b9d7c6f8-4kqzt",
                "1/1",
                "Running",
                "0",
                "19m",
                "10.175.1.31",
                NODES_IAD[0][0],
                "<none>",
                "<none>",
                "k8s-app=kube-dns,pod-template-hash=5b9d7c6f8",
            ],
            [
                "coredns-5b9d7c6f8-w8rnc",
                "1/1",
                "Running",
                "0",
                "19m",
                "10.175.2.66",
                NODES_IAD[1][0],
                "<none>",
                "<none>",
                "k8s-app=kube-dns,pod-template-hash=5b9d7c6f8",
            ],
            *[
                [
                    f"kube-proxy-{s}",
                    "1/1",
                    "Running",
                    "0",
                    "41d",
                    n[2],
                    n[0],
                    "<none>",
                    "<none>",
                    "k8s-app=kube-proxy",
                ]
                for s, n in zip(("7xq2d", "c4mvn", "lz8tp"), NODES_IAD, strict=True)
            ],
            *[
                [
                    f"aws-node-{s}",
                    "2/2",
                    "Running",
                    "0",
                    "41d",
                    n[2],
                    n[0],
                    "<none>",
                    "<none>",
                    "k8s-app=aws-node",
                ]
                for s, n in zip(("9kfwd", "m2hzt", "s6pqc"), NODES_IAD, strict=True)
            ],
        ]
    )
    k8s["kubectl get configmaps -n kube-system"] = table(
        [
            ["NAME", "DATA", "AGE"],
            ["aws-auth", "1", "2y"],
            ["coredns", "1", "2y"],
            ["kube-proxy", "1", "2y"],
            ["kube-root-ca.crt", "1", "2y"],
        ]
    )
    k8s["kubectl describe configmaps coredns -n kube-system"] = (
        "Name:         coredns\nNamespace:    kube-system\nLabels:       eks.amazonaws.com/component=coredns\n"
        "Annotations:  argocd.argoproj.io/tracking-id: cluster-addons:/ConfigMap:kube-system/coredns\n\nData\n====\nCorefile:\n----\n"
        ".:53 {\n    errors\n    health {\n      lameduck 5s\n    }\n    ready\n"
        "    kubernetes cluster.local in-addr.arpa ip6.arpa {\n      pods insecure\n      fallthrough in-addr.arpa ip6.arpa\n    }\n"
        "    prometheus :9153\n    forward . 10.20.0.53\n    cache 30\n    loop\n    reload\n    loadbalance\n}\n"
        "corp.tallyhome.example:53 {\n    errors\n    cache 30\n    forward . 10.20.0.53\n}\n\n\nBinaryData\n====\n\nEvents:  <none>\n"
    )
    k8s["kubectl logs coredns-5b9d7c6f8-4kqzt -n kube-system --tail=1000"] = podlog(
        [
            (-1150, ".:53"),
            (-1150, "corp.tallyhome.example.:53"),
            (-1150, "[INFO] plugin/reload: Running configuration SHA512 = 6f1c0e…"),
        ]
        + [
            (
                start + i * 37,
                f"[ERROR] plugin/errors: 2 {h}. A: read udp 10.175.1.31:{41000 + i * 17}->{sig}",
            )
            for i, h in enumerate(
                [
                    "wwwcie.ups.com",
                    "apis.fedex.com",
                    "api.dhl.com",
                    "onlinetools.ups.com",
                    "apis.usps.com",
                    "api.stripe.com",
                ]
                * 3
            )
        ]
    )
    k8s["kubectl events -n kube-system"] = events(
        [
            (
                "19m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/coredns",
                "Scaled up replica set coredns-5b9d7c6f8 to 2",
            ),
            (
                "18m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/coredns",
                "Scaled down replica set coredns-6d4b8f7c9 to 0 from 1",
            ),
        ]
    )
    hosts = ["wwwcie.ups.com", "apis.fedex.com", "api.dhl.com", "apis.usps.com"]
    evs = [
        ev(
            "argocd",
            "info",
            "application cluster-addons synced (PR cluster-addons#149 'resolve corp zone from on-prem DNS'): ConfigMap kube-system/coredns configured; coredns rollout restarted",
            at=start - 60,
        ),
        ev(
            "coredns",
            "error",
            f"[ERROR] plugin/errors: 2 {{host}}. A: read udp 10.175.1.31:{{n}}->{sig}",
            **every(start, -4, 5),
            pods=["coredns-5b9d7c6f8-4kqzt", "coredns-5b9d7c6f8-w8rnc"],
        ),
        *[
            ev(
                "shipping-rates",
                "error",
                f'{{"level":"error","carrier":"{h.split(".")[1]}","msg":"rate request failed: dial tcp: lookup {h} on 172.20.0.10:53: read udp 10.175.1.{{ms}}:{{n}}->172.20.0.10:53: i/o timeout"}}',
                **every(start + 3 + i, -5, 12),
                pods=pods_of(sr),
            )
            for i, h in enumerate(hosts)
        ],
        ev(
            "checkout-api",
            "warn",
            '{"level":"warn","msg":"no shipping options returned, showing \\"unavailable\\"","cart":"{n}"}',
            **every(start + 10, -3, 4),
            pods=pods_of(co),
        ),
        ev(
            "checkout-api",
            "info",
            '{"level":"info","msg":"checkout-api 40.1.0 started (address autocomplete v2)"}',
            at=-2100,
            pods=pods_of(co),
        ),
        ev(
            "shipping-rates",
            "error",
            '{"level":"error","carrier":"usps","msg":"rate request failed: 401 invalid client credentials"}',
            **every(-9800, -9100, 70),
            pods=pods_of(sr),
        ),
        ev(
            "checkout-api",
            "error",
            '{"level":"error","msg":"address autocomplete provider 429"}',
            **every(-2000, -60, 180),
            pods=pods_of(co),
        ),
    ]
    for e in evs:
        if "{host}" in e["message"]:
            e["message"] = e["message"].replace("{host}", "apis.fedex.com")
    return kube_case(
        seed=575,
        start=start,
        inc=incident(
            "Checkout: no shipping options, customers can't complete orders",
            "checkout",
            start,
            ["checkout shows 'shipping unavailable'"],
        ),
        exp=expected(
            "dns",
            [
                "configmap/coredns",
                "coredns",
                "corefile",
                "forward",
                "10.20.0.53",
                "PR cluster-addons#149",
            ],
            sig,
            "PR cluster-addons#149 added an on-prem zone to the CoreDNS Corefile and also pointed the root zone's forward at 10.20.0.53, the retired on-prem resolver. Cluster names still resolve from the kubernetes plugin, but every external lookup times out: shipping-rates cannot reach UPS/FedEx/DHL/USPS and checkout shows no shipping options. checkout-api's release, the autocomplete 429s and the old USPS 401 are noise.",
            [
                f"coredns: [ERROR] plugin/errors ... {sig}",
                "describe configmap coredns: forward . 10.20.0.53 in the .:53 block",
                "shipping-rates: lookup ... i/o timeout",
            ],
            "Restore `forward . /etc/resolv.conf` (the VPC resolver) in the root block; keep 10.20.0.53 (or its replacement) for the corp zone only.",
        ),
        k8s=k8s,
        bgs=[health_bg(sr, 12), health_bg(co, 10)],
        evs=evs,
        services=[
            svc("shipping-rates", 45, {"502": (0.002, 0.97)}, (0.2, 5.0)),
            svc("checkout-api", 70, {}, (0.15, 0.9)),
        ],
        books={
            "shipping-unavailable.md": runbook(
                "Shipping options unavailable",
                "Carrier APIs fail often (UPS/FedEx maintenance windows, expired OAuth credentials). Check the carrier status pages and rotate the carrier credentials in shipping-rates' secret.",
            )
        },
    )


# =================================================================================================
# 16. Infrastructure (CNI IP addresses): the on-sale scale-out of ticket-queue (HPA to 40) and a
#     node group grown by Karpenter hit the VPC CNI: the pod subnets (/24 per AZ, chosen in 2021)
#     have no free addresses; new pods stay ContainerCreating with FailedCreatePodSandBox. The
#     incident says "ticket sale page stuck in queue".
# =================================================================================================


@scenario(
    "vpc-cni-pod-subnet-exhausted-onsale-scaleout",
    "infrastructure",
    "FailedCreatePodSandBox",
)
def vpc_cni_pod_subnet_exhausted_onsale_scaleout() -> dict[str, Any]:
    start = -900
    ns = "tickets"
    img = "314159265358.dkr.ecr.eu-west-1.amazonaws.com/tickets/ticket-queue:8.8.0"
    tq = app(
        "ticket-queue",
        image=img,
        port=8080,
        rs="7b5d9f8c6",
        cluster_ip="172.20.14.70",
        desired=40,
        pods=[
            (s, "1/1", "Running", "0", "9d", i % 3)
            for i, s in enumerate(
                ["a2kdw", "d5qpn", "g8xrt", "k3mzv", "p6wbh", "t9cls"]
            )
        ]
        + [
            (s, "0/1", "ContainerCreating", "0", "13m", i % 3)
            for i, s in enumerate(["b4hnq", "f7tzx", "m2vkr", "r5jdp", "w8pls"])
        ],
    )
    sale = app(
        "onsale-web",
        image="314159265358.dkr.ecr.eu-west-1.amazonaws.com/tickets/onsale-web:5.3.0",
        port=3000,
        rs="6d9c7b8f5",
        cluster_ip="172.20.14.8",
        pods=[
            ("c6rnw", "1/1", "Running", "0", "2h", 0),
            ("h3vqz", "1/1", "Running", "0", "2h", 1),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [tq, sale], seed=576)
    key = f"kubectl get pods -n {ns} -o wide --show-labels"
    k8s[key] = "".join(
        r.replace(r.split()[5], "<none>".ljust(len(r.split()[5])), 1)
        if "ContainerCreating" in r
        else r
        for r in k8s[key].splitlines(keepends=True)
    )
    sig = "InsufficientFreeAddressesInSubnet"
    name = pod_name(tq, "b4hnq")
    rows_ev = [
        (
            "Normal",
            "Scheduled",
            "13m",
            "default-scheduler",
            f"Successfully assigned tickets/{name} to {NODES_DUB[0][0]}",
        ),
        (
            "Warning",
            "FailedCreatePodSandBox",
            "41s (x52 over 13m)",
            "kubelet",
            'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "9b2f…": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container',
        ),
    ]
    k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
        name,
        ns,
        owner=f"ReplicaSet/ticket-queue-{tq['rs']}",
        labels=["app=ticket-queue", f"pod-template-hash={tq['rs']}"],
        sa="ticket-queue",
        containers=container_text("ticket-queue", img, 8080),
        events_rows=rows_ev,
        node=f"{NODES_DUB[0][0]}/{NODES_DUB[0][2]}",
        status="Pending",
        conditions=(
            ("PodReadyToStartContainers", "False"),
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ),
    )
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = table(
        [
            [
                "NAME",
                "READY",
                "STATUS",
                "RESTARTS",
                "AGE",
                "IP",
                "NODE",
                "NOMINATED NODE",
                "READINESS GATES",
                "LABELS",
            ],
            *[
                [
                    f"aws-node-{s}",
                    "2/2",
                    "Running",
                    "0",
                    "60d",
                    n[2],
                    n[0],
                    "<none>",
                    "<none>",
                    "k8s-app=aws-node",
                ]
                for s, n in zip(("4dkqx", "8mzvt", "j2wnr"), NODES_DUB, strict=True)
            ],
            *[
                [
                    f"kube-proxy-{s}",
                    "1/1",
                    "Running",
                    "0",
                    "60d",
                    n[2],
                    n[0],
                    "<none>",
                    "<none>",
                    "k8s-app=kube-proxy",
                ]
                for s, n in zip(("5hx9c", "q7tlm", "v3bpz"), NODES_DUB, strict=True)
            ],
        ]
    )
    k8s["kubectl logs aws-node-4dkqx -n kube-system --tail=1000"] = podlog(
        [
            (
                start - 30 + i * 90,
                f'{{"level":"error","ts":"2026-12-07T13:{45 + i:02d}:0{i}.118Z","caller":"ipamd/ipamd.go:846","msg":"Failed to increase pool size due to not able to allocate ENI AllocENI: error assigning secondary IP addresses: {sig}: The specified subnet subnet-0a7c3e91d4b2f6185 does not have enough free addresses to satisfy the request."}}',
            )
            for i in range(8)
        ]
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "ticket-queue",
                "Deployment/ticket-queue",
                "cpu: 188%/60%",
                "6",
                "40",
                "40",
                "2y",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "14m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/ticket-queue",
                "New size: 40; reason: cpu resource utilization (percentage of request) above target",
            ),
            ("41s", "Warning", "FailedCreatePodSandBox", f"Pod/{name}", rows_ev[1][4]),
        ]
    )
    evs = [
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","message":"launched nodeclaim","nodeclaim":"general-{n}","instance-type":"c7i.4xlarge","zone":"eu-west-1a"}',
            **every(start - 60, start + 300, 60),
        ),
        ev(
            "aws-node",
            "error",
            f'{{"level":"error","caller":"ipamd/ipamd.go:846","msg":"Failed to increase pool size due to not able to allocate ENI AllocENI: error assigning secondary IP addresses: {sig}"}}',
            **every(start - 30, -10, 30),
        ),
        ev(
            "kubelet",
            "warn",
            f'E1207 13:{{n}} pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"CreatePodSandbox\\" for \\"{name}_tickets\\": plugin type=\\"aws-cni\\" failed (add): add cmd: failed to assign an IP address to container"',
            **every(start - 20, -10, 40),
        ),
        ev(
            "ticket-queue",
            "warn",
            '{"level":"warn","msg":"queue admit rate limited","waiting":8{n},"admit_per_s":4{ms}}',
            **every(start, -3, 4),
            pods=pods_of(tq)[:6],
        ),
        ev(
            "onsale-web",
            "error",
            '{"level":"error","msg":"queue position poll 503 from ticket-queue","event":"tour-2027-dublin"}',
            **every(start + 30, -3, 3),
            pods=pods_of(sale),
        ),
        ev(
            "onsale-web",
            "error",
            '{"level":"error","msg":"bot challenge provider timeout"}',
            **every(start + 60, -30, 45),
            pods=pods_of(sale),
        ),
        ev(
            "ticket-queue",
            "error",
            '{"level":"error","msg":"redis: connection pool timeout"}',
            **every(-9600, -9200, 40),
            pods=pods_of(tq)[:6],
        ),
    ]
    return kube_case(
        seed=576,
        start=start,
        inc=incident(
            "On-sale: fans stuck in queue page, not moving",
            "ticket sale",
            start,
            ["queue page stuck for fans in the Dublin on-sale"],
        ),
        exp=expected(
            "platform",
            [
                "aws-node",
                "vpc-cni",
                "ipamd",
                "subnet-0a7c3e91d4b2f6185",
                "pod subnet",
                "ticket-queue",
            ],
            sig,
            "The on-sale scale-out of ticket-queue (HPA to 40) and Karpenter's new nodes exhausted the VPC CNI's pod subnets (/24s from 2021): ipamd cannot attach addresses (InsufficientFreeAddressesInSubnet), so new pods stay ContainerCreating with FailedCreatePodSandBox and the six old pods take the whole sale. onsale-web's 503s, the bot-challenge timeouts and the old Redis pool errors are consequences or noise.",
            [
                f"aws-node (ipamd): {sig}",
                f"describe pod {name}: FailedCreatePodSandBox ... failed to assign an IP address to container",
                "get hpa: 40 replicas wanted, cpu 188%",
            ],
            "Add pod subnets (secondary CIDR / custom networking or prefix delegation) and lower WARM_ENI_TARGET; until then cap the HPA and free addresses.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "ticket-queue",
                pods_of(tq)[:6],
                ['{"level":"info","msg":"GET /healthz 200","ms":{ms}}'],
                10,
            ),
            health_bg(sale, 12),
        ],
        evs=evs,
        services=[svc("onsale-web", 400, {"503": (0.001, 0.45)}, (0.1, 3.1))],
        books={
            "onsale.md": runbook(
                "On-sale queue not moving",
                "If the queue stalls, Redis is the bottleneck: scale the ticket-queue Redis (ElastiCache) up one size and restart ticket-queue to reset the connection pools.",
            )
        },
    )


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        tidy_clock_times(spec["logs"])
        stage, reason = STAGES[slug]
        spec["expected"]["root_cause_stage"] = stage
        spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
