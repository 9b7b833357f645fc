"""Writes the held-out scenario folders of bench/heldout (issue 21 item 7): `python bench/heldout/_build.py`.

Everything a scenario says is written by hand below: the incident, the expected answer, the
runbooks, every kubectl answer and every log message that matters. Only the bulk is produced by
code: the background request lines of each service and the 2 h of metric points, from the rates,
error ratios and latencies given per service (a fixed seed per scenario: the output is the same
on every run). The author of these cases did not read the planner (`reasoning/`, `diagnosis/engine/`);
the helpers here share no code with it. Stdlib only.
"""

from __future__ import annotations

import json
import math
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STEP_S = 15
HISTORY_S = 7200
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
# The moment the kubectl answers were "captured": describe output prints absolute times.
CAPTURED = datetime(2026, 12, 5, 14, 0, 0, tzinfo=UTC)


def when(offset_s: float) -> str:
    """A describe-style timestamp `offset_s` seconds from the capture (negative: before)."""
    return (CAPTURED + timedelta(seconds=offset_s)).strftime(
        "%a, %d %b %Y %H:%M:%S +0000"
    )


def iso(offset_s: float) -> str:
    return (CAPTURED + timedelta(seconds=offset_s)).strftime("%Y-%m-%dT%H:%M:%SZ")


def table(rows: list[list[str]] | list[tuple[str, ...]]) -> str:
    """kubectl's tabwriter: every column but the last padded to its longest cell + 3."""
    widths = [max(len(str(r[i])) for r in rows) + 3 for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [str(c).ljust(w) for c, w in zip(row[:-1], widths, strict=False)]
        lines.append(("".join(cells) + str(row[-1])).rstrip())
    return "\n".join(lines) + "\n"


def no_resources(namespace: str) -> str:
    return f"No resources found in {namespace} namespace.\n"


# --- metrics -------------------------------------------------------------------------------------


def _cdf(le: float, median: float) -> float:
    """Share of requests faster than `le` for a log-normal latency with this median."""
    sigma = 0.55
    return 0.5 * (1 + math.erf(math.log(le / median) / (sigma * math.sqrt(2))))


def metrics(
    services: list[dict[str, Any]],
    *,
    start: int,
    seed: int,
    gauges: list[dict[str, Any]] = (),
) -> dict[str, Any]:
    """Counters for each service: {"name", "rps", "rps_after", "errors": {code: (before, after)},
    "latency": (median before, median after), "change_at" (default: the incident start)}.
    gauges: {"name", "labels", "before", "after", "change_at"} (a step, with a little noise)."""
    rng = random.Random(seed)
    offsets = list(range(-HISTORY_S, 1, STEP_S))
    series: list[dict[str, Any]] = []
    for svc in services:
        change = svc.get("change_at", start)
        codes: dict[str, tuple[float, float]] = svc.get("errors", {})
        totals: dict[str, float] = {"200": 0.0, **dict.fromkeys(codes, 0.0)}
        buckets = dict.fromkeys((*BUCKETS, math.inf), 0.0)
        points: dict[str, list[list[float]]] = {c: [] for c in totals}
        bucket_points: dict[float, list[list[float]]] = {le: [] for le in buckets}
        lat_before, lat_after = svc.get("latency", (0.05, 0.05))
        for off in offsets:
            after = off >= change
            rps = svc.get("rps_after", svc["rps"]) if after else svc["rps"]
            n = rps * STEP_S * rng.uniform(0.93, 1.07)
            bad = 0.0
            for code, (b, a) in codes.items():
                k = n * (a if after else b) * rng.uniform(0.85, 1.15)
                totals[code] += round(k)
                bad += round(k)
            totals["200"] += max(0, round(n - bad))
            for code in totals:
                points[code].append([off, float(totals[code])])
            median = (lat_after if after else lat_before) * rng.uniform(0.95, 1.05)
            for le in buckets:
                share = 1.0 if le == math.inf else _cdf(le, median)
                buckets[le] += round(n * share)
                bucket_points[le].append([off, float(buckets[le])])
        for code in totals:
            series.append(
                {
                    "name": "http_requests_total",
                    "labels": {"service": svc["name"], "code": code},
                    "type": "counter",
                    "points": points[code],
                }
            )
        for le in buckets:
            series.append(
                {
                    "name": "http_request_duration_seconds_bucket",
                    "labels": {
                        "service": svc["name"],
                        "le": "+Inf" if le == math.inf else f"{le:g}",
                    },
                    "type": "counter",
                    "points": bucket_points[le],
                }
            )
    for gauge in gauges:
        change = gauge.get("change_at", start)
        pts = []
        for off in offsets:
            base = gauge["after"] if off >= change else gauge["before"]
            noise = gauge.get("noise", 0.05)
            value = base * rng.uniform(1 - noise, 1 + noise) if base else 0.0
            if "cap" in gauge:
                value = min(value, gauge["cap"])
            pts.append([off, round(value, 3)])
        series.append(
            {
                "name": gauge["name"],
                "labels": gauge["labels"],
                "type": "gauge",
                "points": pts,
            }
        )
    return {"step_s": STEP_S, "series": series}


# --- logs ----------------------------------------------------------------------------------------


def logs(
    *,
    seed: int,
    background: list[dict[str, Any]],
    events: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """background: {"service", "pods", "messages" (templates with {ms}), "every_s", "until"?};
    events: {"service", "level", "message", "pod"?, "at"? | "from", "to", "every_s", "labels"?}.
    Lines relative to now, sorted; {ms} and {n} filled from the seed."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []

    def fill(template: str) -> str:
        return template.replace("{ms}", str(rng.randint(8, 140))).replace(
            "{n}", str(rng.randint(1000, 99999))
        )

    for bg in background:
        t = float(bg.get("from", -HISTORY_S))
        end = float(bg.get("until", 0))
        while t < end:
            out.append(
                {
                    "offset_s": round(t, 1),
                    "service": bg["service"],
                    "level": bg.get("level", "info"),
                    "message": fill(rng.choice(bg["messages"])),
                    "labels": {"pod": rng.choice(bg["pods"])},
                }
            )
            t += bg["every_s"] * rng.uniform(0.6, 1.4)
    for ev in events:
        times = (
            [float(ev["at"])]
            if "at" in ev
            else [
                ev["from"] + i * ev["every_s"]
                for i in range(int((ev["to"] - ev["from"]) / ev["every_s"]) + 1)
            ]
        )
        for t in times:
            labels = dict(ev.get("labels", {}))
            pods = ev.get("pods") or ([ev["pod"]] if "pod" in ev else [])
            if pods:
                labels["pod"] = rng.choice(pods)
            jitter = 0.0 if "at" in ev else rng.uniform(-0.3, 0.3) * ev["every_s"]
            out.append(
                {
                    "offset_s": round(min(0.0, t + jitter), 1),
                    "service": ev["service"],
                    "level": ev["level"],
                    "message": fill(ev["message"]),
                    "labels": labels,
                }
            )
    out.sort(key=lambda line: line["offset_s"])
    return out


# --- writing -------------------------------------------------------------------------------------


def write(slug: str, spec: dict[str, Any], root: Path = HERE) -> None:
    folder = root / slug
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    incident = spec["incident"]
    start = incident["started_offset_s"]
    incident = {
        **incident,
        "window": {"start_offset_s": start - 900, "end_offset_s": 0},
    }
    expected = {
        "slug": slug,
        "title": incident["title"],
        "service": incident["service"],
        "symptoms": incident["symptoms"],
        **spec["expected"],
        "started_offset_s": start,
    }
    expected.setdefault("root_cause_probe", None)
    expected.setdefault("netcheck", {})

    def dump(name: str, value: Any) -> None:
        (folder / name).write_text(
            json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )

    dump("incident.json", incident)
    dump("expected.json", expected)
    if "logs" in spec:
        (folder / "logs.jsonl").write_text(
            "".join(
                json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n"
                for line in spec["logs"]
            ),
            encoding="utf-8",
        )
    if "metrics" in spec:
        (folder / "metrics.json").write_text(
            json.dumps(spec["metrics"], separators=(",", ":")) + "\n", encoding="utf-8"
        )
    if "kubernetes" in spec:
        dump("kubernetes.json", spec["kubernetes"])
    if "targets" in spec:
        dump("targets.json", {"targets": spec["targets"]})
    if spec.get("runbooks"):
        (folder / "runbooks").mkdir()
        for name, text in spec["runbooks"].items():
            (folder / "runbooks" / name).write_text(
                text.strip() + "\n", encoding="utf-8"
            )


SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


# --- kubectl helpers -----------------------------------------------------------------------------

NAMESPACES_AGE = "400d"


def namespaces(*names: str) -> str:
    base = [
        "default",
        "kube-node-lease",
        "kube-public",
        "kube-system",
        "monitoring",
        *names,
    ]
    return table(
        [
            ["NAME", "STATUS", "AGE"],
            *[[n, "Active", NAMESPACES_AGE] for n in sorted(set(base))],
        ]
    )


def pods(rows: list[tuple[str, ...]]) -> str:
    """rows: (name, ready, status, restarts, age, ip, node, labels)."""
    return table(
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
                [r[0], r[1], r[2], r[3], r[4], r[5], r[6], "<none>", "<none>", r[7]]
                for r in rows
            ],
        ]
    )


def deployments(rows: list[tuple[str, ...]]) -> str:
    """rows: (name, ready, up-to-date, available, age, containers, images, selector)."""
    return table(
        [
            [
                "NAME",
                "READY",
                "UP-TO-DATE",
                "AVAILABLE",
                "AGE",
                "CONTAINERS",
                "IMAGES",
                "SELECTOR",
            ],
            *rows,
        ]
    )


def replicasets(rows: list[tuple[str, ...]]) -> str:
    """rows: (name, desired, current, ready, age, containers, images, selector)."""
    return table(
        [
            [
                "NAME",
                "DESIRED",
                "CURRENT",
                "READY",
                "AGE",
                "CONTAINERS",
                "IMAGES",
                "SELECTOR",
            ],
            *rows,
        ]
    )


def services(rows: list[tuple[str, ...]]) -> str:
    """rows: (name, type, cluster-ip, ports, age, selector)."""
    return table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            *[[r[0], r[1], r[2], "<none>", r[3], r[4], r[5]] for r in rows],
        ]
    )


def endpoints(rows: list[tuple[str, ...]]) -> str:
    return table([["NAME", "ENDPOINTS", "AGE"], *rows])


def nodes(rows: list[tuple[str, ...]]) -> str:
    """rows: (name, status, age, version, internal-ip)."""
    return table(
        [
            [
                "NAME",
                "STATUS",
                "ROLES",
                "AGE",
                "VERSION",
                "INTERNAL-IP",
                "EXTERNAL-IP",
                "OS-IMAGE",
                "KERNEL-VERSION",
                "CONTAINER-RUNTIME",
            ],
            *[
                [
                    r[0],
                    r[1],
                    "<none>",
                    r[2],
                    r[3],
                    r[4],
                    "<none>",
                    "Amazon Linux 2023.6.20241121",
                    "6.1.115-126.197.amzn2023.x86_64",
                    "containerd://1.7.23",
                ]
                for r in rows
            ],
        ]
    )


def events(rows: list[tuple[str, ...]]) -> str:
    """rows: (last seen, type, reason, object, message)."""
    return table([["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], *rows])


def cluster_basics(
    namespace: str,
    *,
    configmaps: list[tuple[str, str, str]] = (),
    secrets: list[tuple[str, str, str, str]] = (),
    quotas: str | None = None,
    pvcs: str | None = None,
    statefulsets: str | None = None,
    daemonsets: str | None = None,
    extra_namespaces: tuple[str, ...] = (),
) -> dict[str, str]:
    """The lists a capture takes that rarely matter: service accounts, config maps, secrets …"""
    ns = namespace
    return {
        "kubectl get namespaces": namespaces(ns, *extra_namespaces),
        f"kubectl get statefulsets -n {ns} -o wide": statefulsets or no_resources(ns),
        f"kubectl get daemonsets -n {ns} -o wide": daemonsets or no_resources(ns),
        f"kubectl get persistentvolumeclaims -n {ns}": pvcs or no_resources(ns),
        f"kubectl get resourcequotas -n {ns}": quotas or no_resources(ns),
        f"kubectl get serviceaccounts -n {ns}": table(
            [["NAME", "SECRETS", "AGE"], ["default", "0", NAMESPACES_AGE]]
        ),
        f"kubectl get configmaps -n {ns}": table(
            [
                ["NAME", "DATA", "AGE"],
                ["kube-root-ca.crt", "1", NAMESPACES_AGE],
                *configmaps,
            ]
        ),
        f"kubectl get secrets -n {ns}": table(
            [["NAME", "TYPE", "DATA", "AGE"], *secrets]
        )
        if secrets
        else no_resources(ns),
    }


TOLERATIONS = """Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s"""


def runbook(title: str, body: str) -> str:
    return f"# {title}\n\n{body.strip()}\n"


# =================================================================================================
# 1. HPA at maxReplicas (ScalingLimited): catalog-search saturated, the bff is the loud victim.
# =================================================================================================


@scenario("hpa-max-replicas")
def hpa_max_replicas() -> dict[str, Any]:
    start = -2100
    ns = "catalog"
    search_pods = [
        "catalog-search-6b7d9c5f4-2lq8x",
        "catalog-search-6b7d9c5f4-9fzkt",
        "catalog-search-6b7d9c5f4-c4mwd",
        "catalog-search-6b7d9c5f4-hx7pn",
        "catalog-search-6b7d9c5f4-r2vbs",
        "catalog-search-6b7d9c5f4-w8jtl",
    ]
    bff_pods = [
        "storefront-bff-58c9f7d6b-4kq2m",
        "storefront-bff-58c9f7d6b-dn7xr",
        "storefront-bff-58c9f7d6b-t5wzp",
    ]
    reco_pods = ["recommendations-7f8b6c5d9-jv2ks", "recommendations-7f8b6c5d9-zq4hn"]
    k8s = {
        **cluster_basics(
            ns,
            configmaps=[("catalog-search-config", "4", "240d")],
            statefulsets=table(
                [
                    ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                    ["catalog-db", "1/1", "240d", "postgres", "postgres:16.4"],
                ]
            ),
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    search_pods[0],
                    "1/1",
                    "Running",
                    "0",
                    "12d",
                    "10.12.1.40",
                    "ip-10-12-1-77.us-east-2.compute.internal",
                    "app=catalog-search,pod-template-hash=6b7d9c5f4",
                ),
                (
                    search_pods[1],
                    "1/1",
                    "Running",
                    "0",
                    "12d",
                    "10.12.2.41",
                    "ip-10-12-2-18.us-east-2.compute.internal",
                    "app=catalog-search,pod-template-hash=6b7d9c5f4",
                ),
                (
                    search_pods[2],
                    "0/1",
                    "Running",
                    "0",
                    "31m",
                    "10.12.3.42",
                    "ip-10-12-3-90.us-east-2.compute.internal",
                    "app=catalog-search,pod-template-hash=6b7d9c5f4",
                ),
                (
                    search_pods[3],
                    "1/1",
                    "Running",
                    "0",
                    "31m",
                    "10.12.1.43",
                    "ip-10-12-1-77.us-east-2.compute.internal",
                    "app=catalog-search,pod-template-hash=6b7d9c5f4",
                ),
                (
                    search_pods[4],
                    "1/1",
                    "Running",
                    "0",
                    "27m",
                    "10.12.2.44",
                    "ip-10-12-2-18.us-east-2.compute.internal",
                    "app=catalog-search,pod-template-hash=6b7d9c5f4",
                ),
                (
                    search_pods[5],
                    "0/1",
                    "Running",
                    "0",
                    "27m",
                    "10.12.3.45",
                    "ip-10-12-3-90.us-east-2.compute.internal",
                    "app=catalog-search,pod-template-hash=6b7d9c5f4",
                ),
                (
                    "catalog-db-0",
                    "1/1",
                    "Running",
                    "0",
                    "61d",
                    "10.12.3.10",
                    "ip-10-12-3-90.us-east-2.compute.internal",
                    "app=catalog-db,statefulset.kubernetes.io/pod-name=catalog-db-0",
                ),
                (
                    reco_pods[0],
                    "1/1",
                    "Running",
                    "1 (3h12m ago)",
                    "9d",
                    "10.12.1.61",
                    "ip-10-12-1-77.us-east-2.compute.internal",
                    "app=recommendations,pod-template-hash=7f8b6c5d9",
                ),
                (
                    reco_pods[1],
                    "1/1",
                    "Running",
                    "0",
                    "9d",
                    "10.12.2.62",
                    "ip-10-12-2-18.us-east-2.compute.internal",
                    "app=recommendations,pod-template-hash=7f8b6c5d9",
                ),
                (
                    bff_pods[0],
                    "1/1",
                    "Running",
                    "0",
                    "4d",
                    "10.12.1.20",
                    "ip-10-12-1-77.us-east-2.compute.internal",
                    "app=storefront-bff,pod-template-hash=58c9f7d6b",
                ),
                (
                    bff_pods[1],
                    "1/1",
                    "Running",
                    "0",
                    "4d",
                    "10.12.2.21",
                    "ip-10-12-2-18.us-east-2.compute.internal",
                    "app=storefront-bff,pod-template-hash=58c9f7d6b",
                ),
                (
                    bff_pods[2],
                    "1/1",
                    "Running",
                    "0",
                    "4d",
                    "10.12.3.22",
                    "ip-10-12-3-90.us-east-2.compute.internal",
                    "app=storefront-bff,pod-template-hash=58c9f7d6b",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "catalog-search",
                    "4/6",
                    "6",
                    "4",
                    "240d",
                    "search",
                    "ghcr.io/acme/catalog-search:4.11.2",
                    "app=catalog-search",
                ),
                (
                    "recommendations",
                    "2/2",
                    "2",
                    "2",
                    "240d",
                    "reco",
                    "ghcr.io/acme/recommendations:2.3.0",
                    "app=recommendations",
                ),
                (
                    "storefront-bff",
                    "3/3",
                    "3",
                    "3",
                    "240d",
                    "bff",
                    "ghcr.io/acme/storefront-bff:7.2.5",
                    "app=storefront-bff",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "catalog-search-6b7d9c5f4",
                    "6",
                    "6",
                    "4",
                    "12d",
                    "search",
                    "ghcr.io/acme/catalog-search:4.11.2",
                    "app=catalog-search,pod-template-hash=6b7d9c5f4",
                ),
                (
                    "recommendations-7f8b6c5d9",
                    "2",
                    "2",
                    "2",
                    "9d",
                    "reco",
                    "ghcr.io/acme/recommendations:2.3.0",
                    "app=recommendations,pod-template-hash=7f8b6c5d9",
                ),
                (
                    "storefront-bff-58c9f7d6b",
                    "3",
                    "3",
                    "3",
                    "4d",
                    "bff",
                    "ghcr.io/acme/storefront-bff:7.2.5",
                    "app=storefront-bff,pod-template-hash=58c9f7d6b",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "catalog-db",
                    "ClusterIP",
                    "None",
                    "5432/TCP",
                    "240d",
                    "app=catalog-db",
                ),
                (
                    "catalog-search",
                    "ClusterIP",
                    "172.20.44.17",
                    "8080/TCP",
                    "240d",
                    "app=catalog-search",
                ),
                (
                    "recommendations",
                    "ClusterIP",
                    "172.20.91.3",
                    "8080/TCP",
                    "240d",
                    "app=recommendations",
                ),
                (
                    "storefront-bff",
                    "ClusterIP",
                    "172.20.12.140",
                    "80/TCP",
                    "240d",
                    "app=storefront-bff",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("catalog-db", "10.12.3.10:5432", "240d"),
                (
                    "catalog-search",
                    "10.12.1.40:8080,10.12.1.43:8080,10.12.2.41:8080 + 1 more...",
                    "240d",
                ),
                ("recommendations", "10.12.1.61:8080,10.12.2.62:8080", "240d"),
                (
                    "storefront-bff",
                    "10.12.1.20:8080,10.12.2.21:8080,10.12.3.22:8080",
                    "240d",
                ),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (
                    "ip-10-12-1-77.us-east-2.compute.internal",
                    "Ready",
                    "33d",
                    "v1.31.2-eks-94953ac",
                    "10.12.1.77",
                ),
                (
                    "ip-10-12-2-18.us-east-2.compute.internal",
                    "Ready",
                    "33d",
                    "v1.31.2-eks-94953ac",
                    "10.12.2.18",
                ),
                (
                    "ip-10-12-3-90.us-east-2.compute.internal",
                    "Ready",
                    "33d",
                    "v1.31.2-eks-94953ac",
                    "10.12.3.90",
                ),
            ]
        ),
        f"kubectl get horizontalpodautoscalers -n {ns}": table(
            [
                [
                    "NAME",
                    "REFERENCE",
                    "TARGETS",
                    "MINPODS",
                    "MAXPODS",
                    "REPLICAS",
                    "AGE",
                ],
                [
                    "catalog-search",
                    "Deployment/catalog-search",
                    "cpu: 183%/70%",
                    "2",
                    "6",
                    "6",
                    "240d",
                ],
                [
                    "storefront-bff",
                    "Deployment/storefront-bff",
                    "cpu: 38%/75%",
                    "3",
                    "12",
                    "3",
                    "240d",
                ],
            ]
        ),
        f"kubectl describe horizontalpodautoscalers catalog-search -n {ns}": f"""Name:                                                  catalog-search
Namespace:                                             {ns}
Labels:                                                app=catalog-search
Annotations:                                           <none>
CreationTimestamp:                                     {when(-240 * 86400)}
Reference:                                             Deployment/catalog-search
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  183% (1830m) / 70%
Min replicas:                                          2
Max replicas:                                          6
Deployment pods:                                       6 current / 6 desired
Conditions:
  Type            Status  Reason            Message
  ----            ------  ------            -------
  AbleToScale     True    ReadyForNewScale  recommended size matches current size
  ScalingActive   True    ValidMetricFound  the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)
  ScalingLimited  True    TooManyReplicas   the desired replica count is more than the maximum replica count
Events:
  Type    Reason             Age   From                       Message
  ----    ------             ----  ----                       -------
  Normal  SuccessfulRescale  31m   horizontal-pod-autoscaler  New size: 4; reason: cpu resource utilization (percentage of request) above target
  Normal  SuccessfulRescale  27m   horizontal-pod-autoscaler  New size: 6; reason: cpu resource utilization (percentage of request) above target
""",
        f"kubectl events -n {ns}": events(
            [
                (
                    "31m",
                    "Normal",
                    "SuccessfulRescale",
                    "HorizontalPodAutoscaler/catalog-search",
                    "New size: 4; reason: cpu resource utilization (percentage of request) above target",
                ),
                (
                    "31m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/catalog-search",
                    "Scaled up replica set catalog-search-6b7d9c5f4 from 2 to 4",
                ),
                (
                    "27m",
                    "Normal",
                    "SuccessfulRescale",
                    "HorizontalPodAutoscaler/catalog-search",
                    "New size: 6; reason: cpu resource utilization (percentage of request) above target",
                ),
                (
                    "27m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/catalog-search",
                    "Scaled up replica set catalog-search-6b7d9c5f4 from 4 to 6",
                ),
                (
                    "2m10s (x41 over 29m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{search_pods[2]}",
                    'Readiness probe failed: Get "http://10.12.3.42:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                ),
                (
                    "1m40s (x33 over 25m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{search_pods[5]}",
                    'Readiness probe failed: Get "http://10.12.3.45:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                ),
            ]
        ),
        f"kubectl describe deployments catalog-search -n {ns}": f"""Name:                   catalog-search
Namespace:              {ns}
CreationTimestamp:      {when(-240 * 86400)}
Labels:                 app=catalog-search
Annotations:            deployment.kubernetes.io/revision: 31
Selector:               app=catalog-search
Replicas:               6 desired | 6 updated | 6 total | 4 available | 2 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  25% max unavailable, 25% max surge
Pod Template:
  Labels:  app=catalog-search
  Containers:
   search:
    Image:      ghcr.io/acme/catalog-search:4.11.2
    Port:       8080/TCP
    Host Port:  0/TCP
    Limits:
      cpu:     1
      memory:  1Gi
    Requests:
      cpu:      1
      memory:   1Gi
    Readiness:  http-get http://:8080/ready delay=5s timeout=1s period=10s #success=1 #failure=3
    Environment:
      DB_HOST:        catalog-db
      WORKER_THREADS: 8
    Mounts:         <none>
  Volumes:          <none>
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Progressing    True    NewReplicaSetAvailable
  Available      True    MinimumReplicasAvailable
OldReplicaSets:  <none>
NewReplicaSet:   catalog-search-6b7d9c5f4 (6/6 replicas created)
Events:
  Type    Reason             Age   From                   Message
  ----    ------             ----  ----                   -------
  Normal  ScalingReplicaSet  31m   deployment-controller  Scaled up replica set catalog-search-6b7d9c5f4 from 2 to 4
  Normal  ScalingReplicaSet  27m   deployment-controller  Scaled up replica set catalog-search-6b7d9c5f4 from 4 to 6
""",
        f"kubectl describe pods {reco_pods[0]} -n {ns}": f"""Name:             {reco_pods[0]}
Namespace:        {ns}
Priority:         0
Service Account:  default
Node:             ip-10-12-1-77.us-east-2.compute.internal/10.12.1.77
Start Time:       {when(-9 * 86400)}
Labels:           app=recommendations
                  pod-template-hash=7f8b6c5d9
Status:           Running
IP:               10.12.1.61
Controlled By:    ReplicaSet/recommendations-7f8b6c5d9
Containers:
  reco:
    Image:          ghcr.io/acme/recommendations:2.3.0
    Port:           8080/TCP
    State:          Running
      Started:      {when(-11520)}
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
      Started:      {when(-9 * 86400)}
      Finished:     {when(-11525)}
    Ready:          True
    Restart Count:  1
    Limits:
      memory:  2Gi
    Requests:
      cpu:     500m
      memory:  2Gi
Conditions:
  Type              Status
  Initialized       True
  Ready             True
  ContainersReady   True
  PodScheduled      True
QoS Class:                   Burstable
{TOLERATIONS}
Events:                      <none>
""",
        f"kubectl logs {reco_pods[0]} -n {ns} -c reco --previous --tail=1000": "2026-12-05T10:44:01Z INFO  model refresh started (items=1,204,331)\n2026-12-05T10:47:52Z WARN  heap usage 94% during embedding reload\n2026-12-05T10:48:14Z ERROR java.lang.OutOfMemoryError: Java heap space\n",
    }
    bg = [
        {
            "service": "storefront-bff",
            "pods": bff_pods,
            "every_s": 4,
            "until": start,
            "messages": [
                "GET /api/listing?cat=shoes 200 {ms}ms",
                "GET /api/listing?cat=outdoor 200 {ms}ms",
                "GET /api/product/{n} 200 {ms}ms",
            ],
        },
        {
            "service": "storefront-bff",
            "pods": bff_pods,
            "every_s": 6,
            "from": start,
            "messages": [
                "GET /api/product/{n} 200 {ms}ms",
                "GET /api/listing?cat=sale 200 2{ms}ms",
            ],
        },
        {
            "service": "catalog-search",
            "pods": search_pods[:2],
            "every_s": 6,
            "until": start,
            "messages": [
                "GET /v1/listing 200 {ms}ms hits=48",
                "GET /v1/search q=* 200 {ms}ms",
            ],
        },
        {
            "service": "catalog-search",
            "pods": search_pods,
            "every_s": 5,
            "from": start,
            "messages": [
                "GET /v1/listing 200 2{ms}0ms hits=48",
                "GET /v1/listing 200 3{ms}0ms hits=48",
                "GET /v1/search q=* 200 1{ms}0ms",
            ],
        },
        {
            "service": "recommendations",
            "pods": reco_pods,
            "every_s": 15,
            "messages": ["served 20 recommendations user={n} in {ms}ms"],
        },
        {
            "service": "catalog-db",
            "pods": ["catalog-db-0"],
            "every_s": 300,
            "messages": [
                "checkpoint complete: wrote {ms} buffers (0.1%); 0 WAL file(s) added"
            ],
        },
    ]
    ev = [
        {
            "service": "storefront-bff",
            "level": "info",
            "at": start - 180,
            "pod": bff_pods[0],
            "message": "campaign traffic marker: newsletter 'winter-sale' links live",
        },
        {
            "service": "storefront-bff",
            "level": "error",
            "from": start + 240,
            "to": -5,
            "every_s": 7,
            "pods": bff_pods,
            "message": "GET /api/listing?cat=sale 504 upstream catalog-search timed out after 3000ms (GET http://catalog-search.catalog.svc:8080/v1/listing)",
        },
        {
            "service": "catalog-search",
            "level": "warn",
            "from": start + 120,
            "to": -10,
            "every_s": 20,
            "pods": search_pods,
            "message": "request queue depth {ms} above 64; worker threads 8/8 busy, cpu throttled",
        },
        {
            "service": "catalog-search",
            "level": "info",
            "at": start + 420,
            "pod": search_pods[2],
            "message": "started catalog-search 4.11.2 (warming caches)",
        },
        {
            "service": "catalog-search",
            "level": "info",
            "at": start + 660,
            "pod": search_pods[4],
            "message": "started catalog-search 4.11.2 (warming caches)",
        },
        {
            "service": "recommendations",
            "level": "warn",
            "from": -7000,
            "to": 0,
            "every_s": 600,
            "pods": reco_pods,
            "message": "model refresh took 14s (budget 10s)",
        },
        {
            "service": "recommendations",
            "level": "error",
            "at": -6950,
            "pod": reco_pods[0],
            "message": "feature store read failed: redis timeout after 200ms (will retry) password=hunter2-reco",
        },
    ]
    return {
        "incident": {
            "title": "Product listing pages slow, some 504s from storefront-bff",
            "service": "storefront-bff",
            "severity": "sev2",
            "symptoms": [
                "storefront-bff p99 above 4 s on /api/listing since the newsletter went out",
                "about 8% of listing requests answer 504",
                "recommendations restarted earlier today",
            ],
            "description": "Alert StorefrontBffLatencyHigh fired for storefront-bff in namespace catalog (cluster prod-us-east-2): p99 above 2 s for 15 minutes. The winter-sale newsletter went out about 35 minutes ago.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "performance",
            "root_cause_reason": "ScalingLimited",
            "root_cause_component": [
                "horizontalpodautoscaler/catalog-search",
                "hpa/catalog-search",
                "deployment/catalog-search",
            ],
            "root_cause_signal": "ScalingLimited",
            "root_cause": "The newsletter tripled listing traffic. catalog-search's HPA scaled 2 → 6 and stopped at maxReplicas 6 (ScalingLimited True, TooManyReplicas) with CPU still at 183% of request: the pods are saturated, queue requests, and two new pods fail readiness. storefront-bff only relays catalog-search's slowness as 504s; recommendations' OOMKill was three hours earlier.",
            "evidence": [
                "kubectl get hpa: catalog-search cpu: 183%/70%, MAXPODS 6, REPLICAS 6",
                "kubectl describe hpa catalog-search: ScalingLimited True TooManyReplicas",
                "catalog-search logs: request queue depth above 64; worker threads 8/8 busy",
                "storefront-bff logs: 504 upstream catalog-search timed out after 3000ms (a victim)",
            ],
            "remediation": "Raise catalog-search's HPA maxReplicas (and check node headroom), or shed the campaign traffic with a cache in front of /v1/listing; afterwards size maxReplicas for campaign peaks.",
        },
        "logs": logs(seed=101, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "storefront-bff",
                    "rps": 90,
                    "rps_after": 260,
                    "errors": {"504": (0.0, 0.08), "500": (0.001, 0.001)},
                    "latency": (0.09, 1.9),
                },
                {
                    "name": "catalog-search",
                    "rps": 80,
                    "rps_after": 250,
                    "errors": {"503": (0.0, 0.02)},
                    "latency": (0.05, 2.4),
                },
                {
                    "name": "recommendations",
                    "rps": 40,
                    "errors": {"500": (0.01, 0.012)},
                    "latency": (0.08, 0.085),
                },
            ],
            start=start,
            seed=101,
            gauges=[
                {
                    "name": "kube_horizontalpodautoscaler_status_current_replicas",
                    "labels": {
                        "namespace": ns,
                        "horizontalpodautoscaler": "catalog-search",
                    },
                    "before": 2,
                    "after": 6,
                    "noise": 0,
                    "change_at": start + 360,
                },
                {
                    "name": "kube_horizontalpodautoscaler_spec_max_replicas",
                    "labels": {
                        "namespace": ns,
                        "horizontalpodautoscaler": "catalog-search",
                    },
                    "before": 6,
                    "after": 6,
                    "noise": 0,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "storefront-bff-504.md": runbook(
                "storefront-bff answers 504",
                """
Use when storefront-bff's 504 ratio alerts.

## Likely cause
The bff's upstream timeout (`UPSTREAM_TIMEOUT_MS`, 3000) is too tight after a catalog release.

## Fix
1. `kubectl set env deploy/storefront-bff -n catalog UPSTREAM_TIMEOUT_MS=8000`
2. Restart the bff: `kubectl rollout restart deploy/storefront-bff -n catalog`.
""",
            ),
            "recommendations-oom.md": runbook(
                "recommendations OOMKilled",
                """
recommendations reloads its embeddings every few hours and may run out of heap.
Raise the heap (`JAVA_OPTS=-Xmx1600m`) or the memory limit; a single restart is harmless.
""",
            ),
        },
    }


# =================================================================================================
# 2. A NetworkPolicy that stops admitting one caller: payouts-api cut off from ledger.
# =================================================================================================


@scenario("netpol-denies-caller")
def netpol_denies_caller() -> dict[str, Any]:
    start = -1900
    ns = "payments"
    payouts = ["payouts-api-7c8d9f6b5-8mzqp", "payouts-api-7c8d9f6b5-tq2xv"]
    ledger = ["ledger-5d6f7b8c9-4hx2n", "ledger-5d6f7b8c9-kq7wd"]
    billing = ["billing-worker-6f5d4c3b2-p9r7s"]
    fx = ["fx-rates-84b7c6d5f-v3n2m"]
    node = "ip-10-30-1-14.eu-west-1.compute.internal"
    node2 = "ip-10-30-2-83.eu-west-1.compute.internal"
    k8s = {
        **cluster_basics(
            ns,
            configmaps=[("payouts-config", "6", "300d")],
            secrets=[("ledger-db-credentials", "Opaque", "2", "300d")],
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    billing[0],
                    "1/1",
                    "Running",
                    "0",
                    "6d",
                    "10.30.1.31",
                    node,
                    "app=billing-worker,pod-template-hash=6f5d4c3b2",
                ),
                (
                    fx[0],
                    "1/1",
                    "Running",
                    "0",
                    "20d",
                    "10.30.2.52",
                    node2,
                    "app=fx-rates,pod-template-hash=84b7c6d5f",
                ),
                (
                    ledger[0],
                    "1/1",
                    "Running",
                    "0",
                    "15d",
                    "10.30.1.40",
                    node,
                    "app=ledger,pod-template-hash=5d6f7b8c9,tier=core",
                ),
                (
                    ledger[1],
                    "1/1",
                    "Running",
                    "0",
                    "15d",
                    "10.30.2.41",
                    node2,
                    "app=ledger,pod-template-hash=5d6f7b8c9,tier=core",
                ),
                (
                    payouts[0],
                    "1/1",
                    "Running",
                    "4 (3m ago)",
                    "3d",
                    "10.30.1.22",
                    node,
                    "app=payouts-api,pod-template-hash=7c8d9f6b5",
                ),
                (
                    payouts[1],
                    "0/1",
                    "CrashLoopBackOff",
                    "5 (48s ago)",
                    "3d",
                    "10.30.2.23",
                    node2,
                    "app=payouts-api,pod-template-hash=7c8d9f6b5",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "billing-worker",
                    "1/1",
                    "1",
                    "1",
                    "300d",
                    "worker",
                    "registry.acme.io/payments/billing-worker:3.4.1",
                    "app=billing-worker",
                ),
                (
                    "fx-rates",
                    "1/1",
                    "1",
                    "1",
                    "300d",
                    "fx",
                    "registry.acme.io/payments/fx-rates:1.9.0",
                    "app=fx-rates",
                ),
                (
                    "ledger",
                    "2/2",
                    "2",
                    "2",
                    "300d",
                    "ledger",
                    "registry.acme.io/payments/ledger:5.2.0",
                    "app=ledger",
                ),
                (
                    "payouts-api",
                    "1/2",
                    "2",
                    "1",
                    "300d",
                    "api",
                    "registry.acme.io/payments/payouts-api:2.17.3",
                    "app=payouts-api",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "billing-worker-6f5d4c3b2",
                    "1",
                    "1",
                    "1",
                    "6d",
                    "worker",
                    "registry.acme.io/payments/billing-worker:3.4.1",
                    "app=billing-worker,pod-template-hash=6f5d4c3b2",
                ),
                (
                    "fx-rates-84b7c6d5f",
                    "1",
                    "1",
                    "1",
                    "20d",
                    "fx",
                    "registry.acme.io/payments/fx-rates:1.9.0",
                    "app=fx-rates,pod-template-hash=84b7c6d5f",
                ),
                (
                    "ledger-5d6f7b8c9",
                    "2",
                    "2",
                    "2",
                    "15d",
                    "ledger",
                    "registry.acme.io/payments/ledger:5.2.0",
                    "app=ledger,pod-template-hash=5d6f7b8c9",
                ),
                (
                    "payouts-api-7c8d9f6b5",
                    "2",
                    "2",
                    "1",
                    "3d",
                    "api",
                    "registry.acme.io/payments/payouts-api:2.17.3",
                    "app=payouts-api,pod-template-hash=7c8d9f6b5",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "fx-rates",
                    "ClusterIP",
                    "172.20.7.91",
                    "8080/TCP",
                    "300d",
                    "app=fx-rates",
                ),
                (
                    "ledger",
                    "ClusterIP",
                    "172.20.14.22",
                    "8080/TCP",
                    "300d",
                    "app=ledger",
                ),
                (
                    "payouts-api",
                    "ClusterIP",
                    "172.20.30.5",
                    "80/TCP",
                    "300d",
                    "app=payouts-api",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("fx-rates", "10.30.2.52:8080", "300d"),
                ("ledger", "10.30.1.40:8080,10.30.2.41:8080", "300d"),
                ("payouts-api", "10.30.1.22:8080", "300d"),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (node, "Ready", "41d", "v1.30.6-eks-7f9249a", "10.30.1.14"),
                (node2, "Ready", "41d", "v1.30.6-eks-7f9249a", "10.30.2.83"),
            ]
        ),
        f"kubectl get networkpolicies -n {ns}": table(
            [
                ["NAME", "POD-SELECTOR", "AGE"],
                ["allow-prometheus-scrape", "<none>", "300d"],
                ["default-deny-ingress", "<none>", "300d"],
                ["ledger-ingress", "app=ledger", "32m"],
                ["payouts-api-ingress", "app=payouts-api", "300d"],
            ]
        ),
        f"kubectl describe networkpolicies ledger-ingress -n {ns}": f"""Name:         ledger-ingress
Namespace:    {ns}
Created on:   {when(-1920)}
Labels:       app.kubernetes.io/managed-by=argocd
              app.kubernetes.io/part-of=ledger
Annotations:  argocd.argoproj.io/tracking-id: ledger:networking.k8s.io/NetworkPolicy:payments/ledger-ingress
Spec:
  PodSelector:     app=ledger
  Allowing ingress traffic:
    To Port: 8080/TCP
    From:
      PodSelector: app=billing-worker
  Not affecting egress traffic
  Policy Types: Ingress
""",
        f"kubectl events -n {ns}": events(
            [
                (
                    "3m (x4 over 28m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{payouts[0]}",
                    "Liveness probe failed: HTTP probe failed with statuscode: 503",
                ),
                (
                    "3m (x4 over 28m)",
                    "Normal",
                    "Killing",
                    f"Pod/{payouts[0]}",
                    "Container api failed liveness probe, will be restarted",
                ),
                (
                    "48s (x19 over 27m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{payouts[1]}",
                    "Back-off restarting failed container api in pod "
                    + payouts[1]
                    + "_payments(5b1c7e2a-...)",
                ),
                (
                    "45s (x6 over 28m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{payouts[1]}",
                    "Liveness probe failed: HTTP probe failed with statuscode: 503",
                ),
            ]
        ),
        f"kubectl describe pods {payouts[1]} -n {ns}": f"""Name:             {payouts[1]}
Namespace:        {ns}
Priority:         0
Service Account:  payouts-api
Node:             {node2}/10.30.2.83
Start Time:       {when(-3 * 86400)}
Labels:           app=payouts-api
                  pod-template-hash=7c8d9f6b5
Status:           Running
IP:               10.30.2.23
Controlled By:    ReplicaSet/payouts-api-7c8d9f6b5
Containers:
  api:
    Image:          registry.acme.io/payments/payouts-api:2.17.3
    Port:           8080/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    137
      Started:      {when(-170)}
      Finished:     {when(-110)}
    Ready:          False
    Restart Count:  5
    Liveness:       http-get http://:8080/healthz delay=10s timeout=2s period=10s #success=1 #failure=3
    Readiness:      http-get http://:8080/ready delay=0s timeout=1s period=5s #success=1 #failure=3
    Environment:
      LEDGER_URL:   http://ledger.payments.svc:8080
      FX_URL:       http://fx-rates.payments.svc:8080
Conditions:
  Type              Status
  Initialized       True
  Ready             False
  ContainersReady   False
  PodScheduled      True
QoS Class:                   Burstable
{TOLERATIONS}
Events:
  Type     Reason     Age                 From     Message
  ----     ------     ----                ----     -------
  Warning  Unhealthy  45s (x6 over 28m)   kubelet  Liveness probe failed: HTTP probe failed with statuscode: 503
  Warning  BackOff    48s (x19 over 27m)  kubelet  Back-off restarting failed container api in pod {payouts[1]}_payments
""",
        f"kubectl logs {payouts[1]} -n {ns} -c api --previous --tail=1000": (
            'level=info msg="payouts-api 2.17.3 listening on :8080"\n'
            'level=error msg="ledger call failed" err="Post \\"http://ledger.payments.svc:8080/v1/entries\\": dial tcp 172.20.14.22:8080: i/o timeout"\n'
            'level=warn msg="healthz: dependency ledger unhealthy (3 consecutive failures)"\n'
            'level=error msg="ledger call failed" err="Post \\"http://ledger.payments.svc:8080/v1/entries\\": dial tcp 172.20.14.22:8080: i/o timeout"\n'
        ),
    }
    bg = [
        {
            "service": "payouts-api",
            "pods": payouts,
            "every_s": 10,
            "until": start,
            "messages": [
                "POST /v1/payouts 201 {ms}ms",
                "GET /v1/payouts/{n} 200 {ms}ms",
            ],
        },
        {
            "service": "ledger",
            "pods": ledger,
            "every_s": 6,
            "messages": [
                "POST /v1/entries 201 {ms}ms caller=billing-worker",
                "GET /v1/balances/{n} 200 {ms}ms caller=billing-worker",
            ],
        },
        {
            "service": "ledger",
            "pods": ledger,
            "every_s": 10,
            "until": start,
            "messages": ["POST /v1/entries 201 {ms}ms caller=payouts-api"],
        },
        {
            "service": "billing-worker",
            "pods": billing,
            "every_s": 12,
            "messages": ["invoice {n} posted to ledger in {ms}ms"],
        },
        {
            "service": "fx-rates",
            "pods": fx,
            "every_s": 30,
            "messages": ["rates refreshed EUR/GBP/USD in {ms}ms"],
        },
    ]
    ev = [
        {
            "service": "payouts-api",
            "level": "error",
            "from": start + 30,
            "to": -3,
            "every_s": 9,
            "pods": payouts,
            "message": 'POST /v1/payouts 503: ledger call failed: Post "http://ledger.payments.svc:8080/v1/entries": dial tcp 172.20.14.22:8080: i/o timeout',
        },
        {
            "service": "payouts-api",
            "level": "warn",
            "from": start + 60,
            "to": -5,
            "every_s": 40,
            "pods": payouts,
            "message": "healthz: dependency ledger unhealthy (3 consecutive failures)",
        },
        {
            "service": "payouts-api",
            "level": "info",
            "from": start + 300,
            "to": -60,
            "every_s": 330,
            "pods": payouts,
            "message": "payouts-api 2.17.3 listening on :8080",
        },
        {
            "service": "fx-rates",
            "level": "warn",
            "from": -7100,
            "to": 0,
            "every_s": 240,
            "pods": fx,
            "message": "upstream feed ecb-daily stale by {ms}m; serving cached rates",
        },
        {
            "service": "fx-rates",
            "level": "error",
            "at": -5400,
            "pod": fx[0],
            "message": "feed login failed for api_key=sk_live_9f8e7d6c5b4a (HTTP 401), retrying with backup feed",
        },
        {
            "service": "ledger",
            "level": "info",
            "at": start - 30,
            "pod": ledger[0],
            "message": "config sync: argocd applied ledger@9c1e4f2 (networking: tighten ledger ingress)",
        },
    ]
    return {
        "incident": {
            "title": "Payouts failing: payouts-api 503 and restarting",
            "service": "payouts-api",
            "severity": "sev2",
            "symptoms": [
                "POST /v1/payouts answers 503 for every request",
                "payouts-api pods restart every few minutes (liveness probe)",
                "invoices from billing still post to the ledger",
            ],
            "description": "Alert PayoutsApiErrorRate fired for payouts-api in namespace payments: 5xx above 50% for 10 minutes. A ledger hardening change was merged this afternoon.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "connect",
            "root_cause_stage": "service_routing",
            "root_cause_reason": "NetworkPolicy",
            "root_cause_component": ["networkpolicy/ledger-ingress", "ledger-ingress"],
            "root_cause_signal": "app=billing-worker",
            "root_cause": "The NetworkPolicy ledger-ingress, re-created 32 minutes ago by an Argo CD sync ('tighten ledger ingress'), admits only pods labelled app=billing-worker on 8080. payouts-api's connections to ledger are dropped (dial tcp …:8080: i/o timeout); its liveness probe checks ledger, so its pods restart as victims. ledger itself is healthy and still serves billing-worker.",
            "evidence": [
                "kubectl get networkpolicies: ledger-ingress AGE 32m",
                "kubectl describe networkpolicy ledger-ingress: From PodSelector: app=billing-worker only",
                "payouts-api logs: dial tcp 172.20.14.22:8080: i/o timeout (a timeout, not a refusal: packets dropped)",
                "ledger logs: billing-worker calls keep succeeding; no payouts-api calls since the change",
            ],
            "remediation": "Add payouts-api to ledger-ingress's from list (podSelector app=payouts-api) in Git and let Argo CD sync; take the ledger dependency out of payouts-api's liveness probe.",
        },
        "logs": logs(seed=102, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "payouts-api",
                    "rps": 12,
                    "errors": {"503": (0.001, 0.97)},
                    "latency": (0.06, 2.1),
                },
                {
                    "name": "ledger",
                    "rps": 30,
                    "rps_after": 18,
                    "errors": {"500": (0.002, 0.002)},
                    "latency": (0.02, 0.02),
                },
                {
                    "name": "fx-rates",
                    "rps": 3,
                    "errors": {"502": (0.03, 0.03)},
                    "latency": (0.1, 0.1),
                },
            ],
            start=start,
            seed=102,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "payouts-api-crashloop.md": runbook(
                "payouts-api restarting",
                """
payouts-api restarts when its liveness probe fails. The usual cause is memory: the batch endpoint
loads whole payout files. Check `kubectl top pod -n payments -l app=payouts-api`; raise the memory
limit to 1Gi and roll out.
""",
            ),
            "ledger-latency.md": runbook(
                "ledger slow",
                """
When ledger is slow, check ledger-db connections and long transactions; restart ledger pods one at a time.
""",
            ),
        },
    }


# =================================================================================================
# 3. Node DiskPressure: transcoder pods evicted, the node still says Ready.
# =================================================================================================


@scenario("node-disk-pressure")
def node_disk_pressure() -> dict[str, Any]:
    start = -1750
    ns = "media"
    bad = "ip-10-8-3-41.us-west-2.compute.internal"
    good = "ip-10-8-3-52.us-west-2.compute.internal"
    other = [
        "ip-10-8-1-11.us-west-2.compute.internal",
        "ip-10-8-2-12.us-west-2.compute.internal",
    ]
    tx_running = ["transcoder-9d8c7b6f5-5kzxq", "transcoder-9d8c7b6f5-b7wnm"]
    tx_evicted = [
        "transcoder-9d8c7b6f5-2hq9v",
        "transcoder-9d8c7b6f5-f4lrc",
        "transcoder-9d8c7b6f5-x8mtd",
    ]
    tx_pending = ["transcoder-9d8c7b6f5-jn6dp", "transcoder-9d8c7b6f5-q2cws"]
    upload = ["upload-api-6c5b4d3f2-7mxkq", "upload-api-6c5b4d3f2-vr9tn"]
    purger = ["cdn-purger-5f4e3d2c1-w6hzl"]
    ev_msg = "The node was low on resource: ephemeral-storage. Threshold quantity: 10%, available: 4932Mi. Container transcoder was using 38Gi, request is 0, has larger consumption of ephemeral-storage."
    k8s = {
        **cluster_basics(ns, configmaps=[("transcoder-profiles", "5", "180d")]),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    purger[0],
                    "1/1",
                    "Running",
                    "0",
                    "25d",
                    "10.8.1.30",
                    other[0],
                    "app=cdn-purger,pod-template-hash=5f4e3d2c1",
                ),
                (
                    tx_evicted[0],
                    "0/1",
                    "Error",
                    "0",
                    "2d",
                    "<none>",
                    bad,
                    "app=transcoder,pod-template-hash=9d8c7b6f5",
                ),
                (
                    tx_evicted[1],
                    "0/1",
                    "Error",
                    "0",
                    "2d",
                    "<none>",
                    bad,
                    "app=transcoder,pod-template-hash=9d8c7b6f5",
                ),
                (
                    tx_evicted[2],
                    "0/1",
                    "Error",
                    "0",
                    "2d",
                    "<none>",
                    bad,
                    "app=transcoder,pod-template-hash=9d8c7b6f5",
                ),
                (
                    tx_running[0],
                    "1/1",
                    "Running",
                    "0",
                    "2d",
                    "10.8.3.61",
                    good,
                    "app=transcoder,pod-template-hash=9d8c7b6f5",
                ),
                (
                    tx_running[1],
                    "1/1",
                    "Running",
                    "0",
                    "2d",
                    "10.8.3.62",
                    good,
                    "app=transcoder,pod-template-hash=9d8c7b6f5",
                ),
                (
                    tx_pending[0],
                    "0/1",
                    "Pending",
                    "0",
                    "27m",
                    "<none>",
                    "<none>",
                    "app=transcoder,pod-template-hash=9d8c7b6f5",
                ),
                (
                    tx_pending[1],
                    "0/1",
                    "Pending",
                    "0",
                    "26m",
                    "<none>",
                    "<none>",
                    "app=transcoder,pod-template-hash=9d8c7b6f5",
                ),
                (
                    upload[0],
                    "1/1",
                    "Running",
                    "0",
                    "8d",
                    "10.8.1.21",
                    other[0],
                    "app=upload-api,pod-template-hash=6c5b4d3f2",
                ),
                (
                    upload[1],
                    "1/1",
                    "Running",
                    "0",
                    "8d",
                    "10.8.2.22",
                    other[1],
                    "app=upload-api,pod-template-hash=6c5b4d3f2",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "cdn-purger",
                    "1/1",
                    "1",
                    "1",
                    "180d",
                    "purger",
                    "registry.acme.io/media/cdn-purger:0.9.2",
                    "app=cdn-purger",
                ),
                (
                    "transcoder",
                    "2/5",
                    "5",
                    "2",
                    "180d",
                    "transcoder",
                    "registry.acme.io/media/transcoder:6.1.0",
                    "app=transcoder",
                ),
                (
                    "upload-api",
                    "2/2",
                    "2",
                    "2",
                    "180d",
                    "api",
                    "registry.acme.io/media/upload-api:3.8.4",
                    "app=upload-api",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "cdn-purger-5f4e3d2c1",
                    "1",
                    "1",
                    "1",
                    "25d",
                    "purger",
                    "registry.acme.io/media/cdn-purger:0.9.2",
                    "app=cdn-purger,pod-template-hash=5f4e3d2c1",
                ),
                (
                    "transcoder-9d8c7b6f5",
                    "5",
                    "5",
                    "2",
                    "2d",
                    "transcoder",
                    "registry.acme.io/media/transcoder:6.1.0",
                    "app=transcoder,pod-template-hash=9d8c7b6f5",
                ),
                (
                    "upload-api-6c5b4d3f2",
                    "2",
                    "2",
                    "2",
                    "8d",
                    "api",
                    "registry.acme.io/media/upload-api:3.8.4",
                    "app=upload-api,pod-template-hash=6c5b4d3f2",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "upload-api",
                    "ClusterIP",
                    "172.20.60.10",
                    "80/TCP",
                    "180d",
                    "app=upload-api",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [("upload-api", "10.8.1.21:8080,10.8.2.22:8080", "180d")]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (other[0], "Ready", "60d", "v1.31.2-eks-94953ac", "10.8.1.11"),
                (other[1], "Ready", "60d", "v1.31.2-eks-94953ac", "10.8.2.12"),
                (bad, "Ready", "60d", "v1.31.2-eks-94953ac", "10.8.3.41"),
                (good, "Ready", "60d", "v1.31.2-eks-94953ac", "10.8.3.52"),
            ]
        ),
        f"kubectl events -n {ns}": events(
            [
                ("29m", "Warning", "Evicted", f"Pod/{tx_evicted[0]}", ev_msg),
                (
                    "29m",
                    "Normal",
                    "Killing",
                    f"Pod/{tx_evicted[0]}",
                    "Stopping container transcoder",
                ),
                (
                    "28m",
                    "Warning",
                    "Evicted",
                    f"Pod/{tx_evicted[1]}",
                    ev_msg.replace("38Gi", "31Gi"),
                ),
                (
                    "28m",
                    "Warning",
                    "Evicted",
                    f"Pod/{tx_evicted[2]}",
                    ev_msg.replace("38Gi", "29Gi"),
                ),
                (
                    "27m",
                    "Normal",
                    "SuccessfulCreate",
                    "ReplicaSet/transcoder-9d8c7b6f5",
                    f"Created pod: {tx_pending[0]}",
                ),
                (
                    "26m",
                    "Normal",
                    "SuccessfulCreate",
                    "ReplicaSet/transcoder-9d8c7b6f5",
                    f"Created pod: {tx_pending[1]}",
                ),
                (
                    "2m (x27 over 27m)",
                    "Warning",
                    "FailedScheduling",
                    f"Pod/{tx_pending[0]}",
                    "0/4 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.",
                ),
                (
                    "2m (x26 over 26m)",
                    "Warning",
                    "FailedScheduling",
                    f"Pod/{tx_pending[1]}",
                    "0/4 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.",
                ),
            ]
        ),
        f"kubectl describe nodes {bad}": f"""Name:               {bad}
Roles:              <none>
Labels:             kubernetes.io/hostname={bad}
                    node.kubernetes.io/instance-type=c6i.4xlarge
                    pool=media
                    topology.kubernetes.io/zone=us-west-2c
CreationTimestamp:  {when(-60 * 86400)}
Taints:             node.kubernetes.io/disk-pressure:NoSchedule
Unschedulable:      false
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  MemoryPressure   False   {when(-20)}   {when(-60 * 86400)}   KubeletHasSufficientMemory   kubelet has sufficient memory available
  DiskPressure     True    {when(-20)}   {when(-1790)}   KubeletHasDiskPressure       kubelet has disk pressure
  PIDPressure      False   {when(-20)}   {when(-60 * 86400)}   KubeletHasSufficientPID      kubelet has sufficient PID available
  Ready            True    {when(-20)}   {when(-60 * 86400)}   KubeletReady                 kubelet is posting ready status
Addresses:
  InternalIP:  10.8.3.41
  Hostname:    {bad}
Capacity:
  cpu:                16
  ephemeral-storage:  104845292Ki
  memory:             32386260Ki
  pods:               58
Allocatable:
  cpu:                15890m
  ephemeral-storage:  95551679124
  memory:             31369428Ki
  pods:               58
Non-terminated Pods:          (2 in total)
  Namespace                   Name                CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age
  ---------                   ----                ------------  ----------  ---------------  -------------  ---
  kube-system                 aws-node-8xk2p      25m (0%)      0 (0%)      0 (0%)           0 (0%)         60d
  kube-system                 kube-proxy-4lq7d    100m (0%)     0 (0%)      0 (0%)           0 (0%)         60d
Events:
  Type     Reason                 Age                From     Message
  ----     ------                 ----               ----     -------
  Warning  EvictionThresholdMet   30m                kubelet  Attempting to reclaim ephemeral-storage
  Normal   NodeHasDiskPressure    30m                kubelet  Node {bad} status is now: NodeHasDiskPressure
  Warning  FreeDiskSpaceFailed    4m (x6 over 29m)   kubelet  Failed to garbage collect required amount of images. Attempted to free 21474836480 bytes, but only found 1288490188 bytes eligible to free.
""",
        f"kubectl describe pods {tx_evicted[0]} -n {ns}": f"""Name:             {tx_evicted[0]}
Namespace:        {ns}
Priority:         0
Node:             {bad}/10.8.3.41
Start Time:       {when(-2 * 86400)}
Labels:           app=transcoder
                  pod-template-hash=9d8c7b6f5
Status:           Failed
Reason:           Evicted
Message:          {ev_msg}
Controlled By:    ReplicaSet/transcoder-9d8c7b6f5
Containers:
  transcoder:
    Image:          registry.acme.io/media/transcoder:6.1.0
    State:          Terminated
      Reason:       ContainerStatusUnknown
      Exit Code:    137
    Ready:          False
    Restart Count:  0
    Requests:
      cpu:     6
      memory:  8Gi
    Mounts:
      /scratch from scratch (rw)
Volumes:
  scratch:
    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)
    Medium:
    SizeLimit:  <unset>
Node-Selectors:  pool=media
Events:
  Type     Reason   Age   From     Message
  ----     ------   ----  ----     -------
  Warning  Evicted  29m   kubelet  {ev_msg}
  Normal   Killing  29m   kubelet  Stopping container transcoder
""",
    }
    bg = [
        {
            "service": "upload-api",
            "pods": upload,
            "every_s": 8,
            "messages": [
                "PUT /v1/uploads/{n} 201 {ms}ms size=184MB",
                "GET /v1/uploads/{n}/status 200 {ms}ms",
            ],
        },
        {
            "service": "transcoder",
            "pods": tx_running + tx_evicted,
            "every_s": 45,
            "until": start,
            "messages": ["job {n} done: 1080p,720p,480p in 2{ms}s"],
        },
        {
            "service": "transcoder",
            "pods": tx_running,
            "every_s": 110,
            "from": start,
            "messages": ["job {n} done: 1080p,720p,480p in 2{ms}s"],
        },
        {
            "service": "cdn-purger",
            "pods": purger,
            "every_s": 60,
            "messages": ["purged {ms} paths in 1 batch"],
        },
    ]
    ev = [
        {
            "service": "upload-api",
            "level": "warn",
            "from": start + 400,
            "to": -10,
            "every_s": 60,
            "pods": upload,
            "message": "transcode queue depth {n} (oldest 2{ms}s): jobs waiting for a worker",
        },
        {
            "service": "transcoder",
            "level": "warn",
            "from": start - 1500,
            "to": start - 20,
            "every_s": 120,
            "pods": tx_evicted,
            "message": "scratch dir /scratch at {ms}% of node disk; cleanup of finished jobs disabled (KEEP_INTERMEDIATE=true)",
        },
        {
            "service": "transcoder",
            "level": "error",
            "at": start - 10,
            "pod": tx_evicted[0],
            "message": "job 88213 aborted: write /scratch/88213/seg_0412.ts: no space left on device",
        },
        {
            "service": "transcoder",
            "level": "error",
            "at": start + 20,
            "pod": tx_evicted[1],
            "message": "job 88219 aborted: received SIGTERM",
        },
        {
            "service": "cdn-purger",
            "level": "error",
            "from": -7000,
            "to": -4800,
            "every_s": 180,
            "pods": purger,
            "message": "purge API returned 502 Bad Gateway (cdn provider incident INC-2231), retrying in 60s",
        },
        {
            "service": "cdn-purger",
            "level": "info",
            "at": -4700,
            "pod": purger[0],
            "message": "purge API healthy again",
        },
        {
            "service": "upload-api",
            "level": "debug",
            "at": -3000,
            "pod": upload[0],
            "message": "s3 client configured with Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.abc123",
        },
    ]
    return {
        "incident": {
            "title": "Video uploads stuck in 'processing'",
            "service": "upload-api",
            "severity": "sev2",
            "symptoms": [
                "uploads complete but videos stay in 'processing' for over 30 minutes",
                "upload-api warns that the transcode queue keeps growing",
                "cdn-purger had 502s earlier today",
            ],
            "description": "Creators report that new videos never finish processing. Alert TranscodeQueueBacklog fired in namespace media (cluster prod-us-west-2) 20 minutes ago.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "DiskPressure",
            "root_cause_component": [f"node/{bad}", bad],
            "root_cause_signal": "DiskPressure",
            "root_cause": f"Node {bad} ran out of ephemeral storage (transcoder keeps intermediate files in an emptyDir with KEEP_INTERMEDIATE=true): DiskPressure True, taint node.kubernetes.io/disk-pressure:NoSchedule. The kubelet evicted the three transcoder pods there; their replacements are Pending (the only other media node lacks CPU), so 2 of 5 transcoders work the queue. The node still reports Ready.",
            "evidence": [
                f"kubectl describe node {bad}: DiskPressure True KubeletHasDiskPressure; Taints node.kubernetes.io/disk-pressure:NoSchedule",
                "events: Evicted: The node was low on resource: ephemeral-storage",
                "FailedScheduling: 1 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }",
                "transcoder logs: no space left on device; KEEP_INTERMEDIATE=true",
            ],
            "remediation": "Free the node's disk (delete the evicted pods' leftover scratch, or drain and replace the node), set KEEP_INTERMEDIATE=false and an emptyDir sizeLimit / ephemeral-storage request on transcoder.",
        },
        "logs": logs(seed=103, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "upload-api",
                    "rps": 6,
                    "errors": {"500": (0.002, 0.002)},
                    "latency": (0.4, 0.42),
                },
                {
                    "name": "cdn-purger",
                    "rps": 1,
                    "errors": {"502": (0.0, 0.0)},
                    "latency": (0.2, 0.2),
                },
            ],
            start=start,
            seed=103,
            gauges=[
                {
                    "name": "transcode_queue_depth",
                    "labels": {"service": "upload-api"},
                    "before": 12,
                    "after": 340,
                    "noise": 0.2,
                },
                {
                    "name": "kubelet_volume_stats_available_bytes",
                    "labels": {"node": bad, "mountpoint": "/var/lib/kubelet"},
                    "before": 4.1e10,
                    "after": 4.9e9,
                    "change_at": start - 60,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "transcode-backlog.md": runbook(
                "Transcode backlog",
                """
When the transcode queue grows, the usual cause is a CDN purge failure blocking job completion
callbacks. Check cdn-purger's logs for 5xx from the provider and restart cdn-purger.
If that does not help, scale transcoder: `kubectl scale deploy/transcoder -n media --replicas=8`.
""",
            ),
        },
    }


# =================================================================================================
# 4. An Ingress path routed to the wrong Service: /orders goes to the SPA, not the API.
# =================================================================================================


@scenario("ingress-wrong-service")
def ingress_wrong_service() -> dict[str, Any]:
    start = -1320
    ns = "web"
    node = [
        "ip-10-2-1-5.eu-central-1.compute.internal",
        "ip-10-2-2-6.eu-central-1.compute.internal",
        "ip-10-2-3-7.eu-central-1.compute.internal",
    ]
    oapi = ["orders-api-7b6c5d4e3-9kqzx", "orders-api-7b6c5d4e3-m2w7d"]
    oweb = ["orders-web-5c4d3e2f1-hx8pn", "orders-web-5c4d3e2f1-t4rzq"]
    cart = ["cart-api-6d5e4f3a2-2vnq8", "cart-api-6d5e4f3a2-p7hjk"]
    users = ["users-api-8e7f6a5b4-c3xkd"]
    ctrl = ["ingress-nginx-controller-6f7c8d9b5-lq2tx"]
    k8s = {
        **cluster_basics(
            ns,
            secrets=[("shop-api-tls", "kubernetes.io/tls", "2", "210d")],
            extra_namespaces=("ingress-nginx",),
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    cart[0],
                    "1/1",
                    "Running",
                    "0",
                    "5d",
                    "10.2.1.14",
                    node[0],
                    "app=cart-api,pod-template-hash=6d5e4f3a2",
                ),
                (
                    cart[1],
                    "1/1",
                    "Running",
                    "0",
                    "5d",
                    "10.2.2.19",
                    node[1],
                    "app=cart-api,pod-template-hash=6d5e4f3a2",
                ),
                (
                    oapi[0],
                    "1/1",
                    "Running",
                    "0",
                    "9d",
                    "10.2.1.31",
                    node[0],
                    "app=orders-api,pod-template-hash=7b6c5d4e3",
                ),
                (
                    oapi[1],
                    "1/1",
                    "Running",
                    "0",
                    "9d",
                    "10.2.3.32",
                    node[2],
                    "app=orders-api,pod-template-hash=7b6c5d4e3",
                ),
                (
                    oweb[0],
                    "1/1",
                    "Running",
                    "0",
                    "23m",
                    "10.2.1.33",
                    node[0],
                    "app=orders-web,pod-template-hash=5c4d3e2f1",
                ),
                (
                    oweb[1],
                    "1/1",
                    "Running",
                    "0",
                    "23m",
                    "10.2.3.12",
                    node[2],
                    "app=orders-web,pod-template-hash=5c4d3e2f1",
                ),
                (
                    users[0],
                    "1/1",
                    "Running",
                    "0",
                    "30d",
                    "10.2.2.40",
                    node[1],
                    "app=users-api,pod-template-hash=8e7f6a5b4",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "cart-api",
                    "2/2",
                    "2",
                    "2",
                    "210d",
                    "api",
                    "ghcr.io/shop/cart-api:4.2.0",
                    "app=cart-api",
                ),
                (
                    "orders-api",
                    "2/2",
                    "2",
                    "2",
                    "210d",
                    "api",
                    "ghcr.io/shop/orders-api:8.0.3",
                    "app=orders-api",
                ),
                (
                    "orders-web",
                    "2/2",
                    "2",
                    "2",
                    "23m",
                    "web",
                    "ghcr.io/shop/orders-web:1.0.0",
                    "app=orders-web",
                ),
                (
                    "users-api",
                    "1/1",
                    "1",
                    "1",
                    "210d",
                    "api",
                    "ghcr.io/shop/users-api:2.2.9",
                    "app=users-api",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "cart-api-6d5e4f3a2",
                    "2",
                    "2",
                    "2",
                    "5d",
                    "api",
                    "ghcr.io/shop/cart-api:4.2.0",
                    "app=cart-api,pod-template-hash=6d5e4f3a2",
                ),
                (
                    "orders-api-7b6c5d4e3",
                    "2",
                    "2",
                    "2",
                    "9d",
                    "api",
                    "ghcr.io/shop/orders-api:8.0.3",
                    "app=orders-api,pod-template-hash=7b6c5d4e3",
                ),
                (
                    "orders-web-5c4d3e2f1",
                    "2",
                    "2",
                    "2",
                    "23m",
                    "web",
                    "ghcr.io/shop/orders-web:1.0.0",
                    "app=orders-web,pod-template-hash=5c4d3e2f1",
                ),
                (
                    "users-api-8e7f6a5b4",
                    "1",
                    "1",
                    "1",
                    "30d",
                    "api",
                    "ghcr.io/shop/users-api:2.2.9",
                    "app=users-api,pod-template-hash=8e7f6a5b4",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "cart-api",
                    "ClusterIP",
                    "172.20.5.14",
                    "8080/TCP",
                    "210d",
                    "app=cart-api",
                ),
                (
                    "orders-api",
                    "ClusterIP",
                    "172.20.5.31",
                    "8080/TCP",
                    "210d",
                    "app=orders-api",
                ),
                (
                    "orders-web",
                    "ClusterIP",
                    "172.20.5.77",
                    "80/TCP",
                    "23m",
                    "app=orders-web",
                ),
                (
                    "users-api",
                    "ClusterIP",
                    "172.20.5.40",
                    "8080/TCP",
                    "210d",
                    "app=users-api",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("cart-api", "10.2.1.14:8080,10.2.2.19:8080", "210d"),
                ("orders-api", "10.2.1.31:8080,10.2.3.32:8080", "210d"),
                ("orders-web", "10.2.1.33:80,10.2.3.12:80", "23m"),
                ("users-api", "10.2.2.40:8080", "210d"),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (
                    n,
                    "Ready",
                    "90d",
                    "v1.31.2-eks-94953ac",
                    f"10.2.{i + 1}.{i + 5}",
                )
                for i, n in enumerate(node)
            ]
        ),
        f"kubectl get ingresses -n {ns}": table(
            [
                ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
                [
                    "shop-api",
                    "nginx",
                    "api.shop.example",
                    "k8s-ingress-7f3a.elb.eu-central-1.amazonaws.com",
                    "80, 443",
                    "210d",
                ],
                [
                    "shop-web",
                    "nginx",
                    "www.shop.example",
                    "k8s-ingress-7f3a.elb.eu-central-1.amazonaws.com",
                    "80, 443",
                    "210d",
                ],
            ]
        ),
        f"kubectl describe ingresses shop-api -n {ns}": f"""Name:             shop-api
Labels:           app.kubernetes.io/instance=shop
                  app.kubernetes.io/managed-by=Helm
                  helm.sh/chart=shop-2.0.0
Namespace:        {ns}
Address:          k8s-ingress-7f3a.elb.eu-central-1.amazonaws.com
Ingress Class:    nginx
Default backend:  <default>
TLS:
  shop-api-tls terminates api.shop.example
Rules:
  Host              Path  Backends
  ----              ----  --------
  api.shop.example
                    /cart     cart-api:8080 (10.2.1.14:8080,10.2.2.19:8080)
                    /orders   orders-web:80 (10.2.1.33:80,10.2.3.12:80)
                    /users    users-api:8080 (10.2.2.40:8080)
Annotations:        meta.helm.sh/release-name: shop
                    meta.helm.sh/release-namespace: web
                    nginx.ingress.kubernetes.io/proxy-body-size: 8m
Events:
  Type    Reason  Age                 From                      Message
  ----    ------  ----                ----                      -------
  Normal  Sync    23m (x3 over 210d)  nginx-ingress-controller  Scheduled for sync
""",
        f"kubectl describe ingresses shop-web -n {ns}": f"""Name:             shop-web
Labels:           app.kubernetes.io/instance=shop
                  app.kubernetes.io/managed-by=Helm
                  helm.sh/chart=shop-2.0.0
Namespace:        {ns}
Address:          k8s-ingress-7f3a.elb.eu-central-1.amazonaws.com
Ingress Class:    nginx
Default backend:  <default>
Rules:
  Host              Path  Backends
  ----              ----  --------
  www.shop.example
                    /orders   orders-web:80 (10.2.1.33:80,10.2.3.12:80)
Annotations:        meta.helm.sh/release-name: shop
Events:
  Type    Reason  Age                 From                      Message
  ----    ------  ----                ----                      -------
  Normal  Sync    23m (x2 over 210d)  nginx-ingress-controller  Scheduled for sync
""",
        f"kubectl events -n {ns}": events(
            [
                (
                    "23m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/orders-web",
                    "Scaled up replica set orders-web-5c4d3e2f1 to 2",
                ),
                ("23m", "Normal", "Sync", "Ingress/shop-api", "Scheduled for sync"),
                ("23m", "Normal", "Sync", "Ingress/shop-web", "Scheduled for sync"),
            ]
        ),
    }
    bg = [
        {
            "service": "orders-api",
            "pods": oapi,
            "every_s": 3,
            "until": start,
            "messages": [
                "GET /orders/{n} 200 {ms}ms",
                "GET /orders?user={n} 200 {ms}ms",
                "POST /orders 201 {ms}ms",
            ],
        },
        {
            "service": "orders-api",
            "pods": oapi,
            "every_s": 60,
            "from": start,
            "messages": ["GET /internal/orders/{n} 200 {ms}ms caller=fulfilment"],
        },
        {
            "service": "cart-api",
            "pods": cart,
            "every_s": 4,
            "messages": ["GET /cart/{n} 200 {ms}ms", "POST /cart/{n}/items 201 {ms}ms"],
        },
        {
            "service": "users-api",
            "pods": users,
            "every_s": 9,
            "messages": ["GET /users/me 200 {ms}ms"],
        },
        {
            "service": "orders-web",
            "pods": oweb,
            "every_s": 20,
            "from": start + 30,
            "messages": ["GET /orders/ 200 {ms}ms (index.html)"],
        },
        {
            "service": "ingress-nginx",
            "pods": ctrl,
            "every_s": 5,
            "until": start,
            "messages": [
                'api.shop.example "GET /orders/{n} HTTP/2.0" 200 812 upstream=web-orders-api-8080 {ms}ms'
            ],
        },
    ]
    ev = [
        {
            "service": "orders-web",
            "level": "warn",
            "from": start + 40,
            "to": -2,
            "every_s": 4,
            "pods": oweb,
            "message": "GET /orders/{n} 404 (no static file; accept=application/json) host=api.shop.example",
        },
        {
            "service": "ingress-nginx",
            "level": "info",
            "at": start - 10,
            "pod": ctrl[0],
            "message": "Configuration changes detected, backend reload required (ingress web/shop-api, web/shop-web)",
        },
        {
            "service": "ingress-nginx",
            "level": "warn",
            "from": start + 40,
            "to": -3,
            "every_s": 6,
            "pods": ctrl,
            "message": 'api.shop.example "GET /orders/{n} HTTP/2.0" 404 153 upstream=web-orders-web-80 {ms}ms',
        },
        {
            "service": "orders-api",
            "level": "error",
            "at": -5600,
            "pod": oapi[0],
            "message": "db: connection reset by peer (orders-db failover drill), reconnecting password=orders_s3cret",
        },
        {
            "service": "orders-api",
            "level": "info",
            "at": -5590,
            "pod": oapi[0],
            "message": "db: reconnected to orders-db primary",
        },
        {
            "service": "cart-api",
            "level": "warn",
            "from": -7000,
            "to": 0,
            "every_s": 420,
            "pods": cart,
            "message": "slow redis GET cart:{n} took 2{ms}ms",
        },
    ]
    return {
        "incident": {
            "title": "Mobile app: order history empty, 'something went wrong'",
            "service": "orders",
            "severity": "sev2",
            "symptoms": [
                "the app's Orders tab shows an error for every user since about 20 minutes",
                "API calls to https://api.shop.example/orders/... get 404",
                "cart and login still work",
            ],
            "description": "Support escalated: mobile users cannot see their orders. No alert fired: error rates of orders-api look normal. The new orders web page shipped this afternoon.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "connect",
            "root_cause_stage": "service_routing",
            "root_cause_reason": "IngressWrongBackend",
            "root_cause_component": ["ingress/shop-api", "shop-api"],
            "root_cause_signal": "orders-web:80",
            "root_cause": "The shop chart 2.0.0 (released 23 minutes ago with the new orders web page) routes api.shop.example's /orders path to the Service orders-web (the static SPA) instead of orders-api. API calls for /orders/... now get the SPA's 404; orders-api is healthy but receives no public traffic, so its error rate stays normal.",
            "evidence": [
                "kubectl describe ingress shop-api: /orders -> orders-web:80",
                "ingress-nginx logs: GET /orders/... 404 upstream=web-orders-web-80 (before: upstream=web-orders-api-8080, 200)",
                "orders-web logs: GET /orders/{id} 404 (no static file; accept=application/json)",
                "orders-api: public traffic dropped to near zero at the release, no errors",
            ],
            "remediation": "Point shop-api's /orders path back at orders-api:8080 (fix the chart's values and roll back to shop 1.x until then); keep the SPA on www.shop.example only.",
        },
        "logs": logs(seed=104, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "orders-api",
                    "rps": 35,
                    "rps_after": 0.4,
                    "errors": {"500": (0.002, 0.0)},
                    "latency": (0.03, 0.03),
                },
                {
                    "name": "orders-web",
                    "rps": 0.01,
                    "rps_after": 30,
                    "change_at": start + 30,
                    "errors": {"404": (0.0, 0.93)},
                    "latency": (0.004, 0.004),
                },
                {
                    "name": "cart-api",
                    "rps": 25,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.02, 0.02),
                },
            ],
            start=start,
            seed=104,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "orders-api-errors.md": runbook(
                "orders-api errors",
                """
orders-api errors almost always come from orders-db: check for a failover (`db: connection reset by peer`)
and restart orders-api pods if they did not reconnect.
""",
            ),
        },
    }


# =================================================================================================
# 5. Init container Init:CrashLoopBackOff: fulfillment's schema check fails after a release.
#    The incident says "fulfilment" (British); the data knows "fulfillment". A consumer crash-loops
#    as a louder victim.
# =================================================================================================


@scenario("init-container-crashloop")
def init_container_crashloop() -> dict[str, Any]:
    start = -1600
    ns = "orders"
    node = ["ip-10-40-1-21.ec2.internal", "ip-10-40-2-22.ec2.internal"]
    ful = [
        "fulfillment-84f7c9d6b-4tqzm",
        "fulfillment-84f7c9d6b-kx2vn",
        "fulfillment-84f7c9d6b-w9jds",
    ]
    cons = ["order-events-consumer-5b9c8d7f6-q8plx"]
    label = ["shipping-label-6c7d8e9f1-z2kwr"]
    k8s = {
        **cluster_basics(
            ns,
            configmaps=[("fulfillment-config", "7", "150d")],
            secrets=[("fulfillment-db", "Opaque", "2", "150d")],
            statefulsets=table(
                [
                    ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                    ["fulfillment-db", "1/1", "150d", "postgres", "postgres:15.8"],
                ]
            ),
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    ful[0],
                    "0/1",
                    "Init:CrashLoopBackOff",
                    "8 (2m ago)",
                    "25m",
                    "10.40.1.51",
                    node[0],
                    "app=fulfillment,pod-template-hash=84f7c9d6b",
                ),
                (
                    ful[1],
                    "0/1",
                    "Init:CrashLoopBackOff",
                    "8 (3m ago)",
                    "25m",
                    "10.40.2.52",
                    node[1],
                    "app=fulfillment,pod-template-hash=84f7c9d6b",
                ),
                (
                    ful[2],
                    "0/1",
                    "Init:Error",
                    "9 (20s ago)",
                    "25m",
                    "10.40.1.53",
                    node[0],
                    "app=fulfillment,pod-template-hash=84f7c9d6b",
                ),
                (
                    "fulfillment-db-0",
                    "1/1",
                    "Running",
                    "0",
                    "40d",
                    "10.40.2.10",
                    node[1],
                    "app=fulfillment-db,statefulset.kubernetes.io/pod-name=fulfillment-db-0",
                ),
                (
                    cons[0],
                    "0/1",
                    "CrashLoopBackOff",
                    "7 (1m ago)",
                    "12d",
                    "10.40.1.60",
                    node[0],
                    "app=order-events-consumer,pod-template-hash=5b9c8d7f6",
                ),
                (
                    label[0],
                    "1/1",
                    "Running",
                    "0",
                    "12d",
                    "10.40.2.61",
                    node[1],
                    "app=shipping-label,pod-template-hash=6c7d8e9f1",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "fulfillment",
                    "0/3",
                    "3",
                    "0",
                    "150d",
                    "app",
                    "registry.acme.io/orders/fulfillment:2.4.0",
                    "app=fulfillment",
                ),
                (
                    "order-events-consumer",
                    "0/1",
                    "1",
                    "0",
                    "150d",
                    "consumer",
                    "registry.acme.io/orders/order-events-consumer:1.12.0",
                    "app=order-events-consumer",
                ),
                (
                    "shipping-label",
                    "1/1",
                    "1",
                    "1",
                    "150d",
                    "label",
                    "registry.acme.io/orders/shipping-label:3.0.1",
                    "app=shipping-label",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "fulfillment-6d5c4b3a2",
                    "0",
                    "0",
                    "0",
                    "18d",
                    "app",
                    "registry.acme.io/orders/fulfillment:2.3.2",
                    "app=fulfillment,pod-template-hash=6d5c4b3a2",
                ),
                (
                    "fulfillment-84f7c9d6b",
                    "3",
                    "3",
                    "0",
                    "25m",
                    "app",
                    "registry.acme.io/orders/fulfillment:2.4.0",
                    "app=fulfillment,pod-template-hash=84f7c9d6b",
                ),
                (
                    "order-events-consumer-5b9c8d7f6",
                    "1",
                    "1",
                    "0",
                    "12d",
                    "consumer",
                    "registry.acme.io/orders/order-events-consumer:1.12.0",
                    "app=order-events-consumer,pod-template-hash=5b9c8d7f6",
                ),
                (
                    "shipping-label-6c7d8e9f1",
                    "1",
                    "1",
                    "1",
                    "12d",
                    "label",
                    "registry.acme.io/orders/shipping-label:3.0.1",
                    "app=shipping-label,pod-template-hash=6c7d8e9f1",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "fulfillment",
                    "ClusterIP",
                    "172.20.88.12",
                    "8080/TCP",
                    "150d",
                    "app=fulfillment",
                ),
                (
                    "fulfillment-db",
                    "ClusterIP",
                    "None",
                    "5432/TCP",
                    "150d",
                    "app=fulfillment-db",
                ),
                (
                    "shipping-label",
                    "ClusterIP",
                    "172.20.88.40",
                    "8080/TCP",
                    "150d",
                    "app=shipping-label",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("fulfillment", "<none>", "150d"),
                ("fulfillment-db", "10.40.2.10:5432", "150d"),
                ("shipping-label", "10.40.2.61:8080", "150d"),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (n, "Ready", "70d", "v1.31.2-eks-94953ac", f"10.40.{i + 1}.{21 + i}")
                for i, n in enumerate(node)
            ]
        ),
        f"kubectl events -n {ns}": events(
            [
                (
                    "25m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/fulfillment",
                    "Scaled down replica set fulfillment-6d5c4b3a2 to 0 from 3",
                ),
                (
                    "25m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/fulfillment",
                    "Scaled up replica set fulfillment-84f7c9d6b to 3",
                ),
                (
                    "2m (x110 over 25m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{ful[0]}",
                    f"Back-off restarting failed container wait-for-schema in pod {ful[0]}_orders(9a1b2c3d-...)",
                ),
                (
                    "3m (x108 over 25m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{ful[1]}",
                    f"Back-off restarting failed container wait-for-schema in pod {ful[1]}_orders(8b2c3d4e-...)",
                ),
                (
                    "1m (x90 over 24m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{cons[0]}",
                    f"Back-off restarting failed container consumer in pod {cons[0]}_orders(7c3d4e5f-...)",
                ),
            ]
        ),
        f"kubectl describe pods {ful[0]} -n {ns}": f"""Name:             {ful[0]}
Namespace:        {ns}
Priority:         0
Service Account:  fulfillment
Node:             {node[0]}/10.40.1.21
Start Time:       {when(-1500)}
Labels:           app=fulfillment
                  pod-template-hash=84f7c9d6b
Status:           Pending
IP:               10.40.1.51
Controlled By:    ReplicaSet/fulfillment-84f7c9d6b
Init Containers:
  wait-for-schema:
    Image:          registry.acme.io/orders/fulfillment:2.4.0
    Command:
      /app/bin/check-schema
      --require=42
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    3
      Started:      {when(-150)}
      Finished:     {when(-148)}
    Ready:          False
    Restart Count:  8
    Environment:
      DATABASE_URL:  <set to the key 'url' in secret 'fulfillment-db'>  Optional: false
Containers:
  app:
    Image:          registry.acme.io/orders/fulfillment:2.4.0
    Port:           8080/TCP
    State:          Waiting
      Reason:       PodInitializing
    Ready:          False
    Restart Count:  0
Conditions:
  Type              Status
  Initialized       False
  Ready             False
  ContainersReady   False
  PodScheduled      True
QoS Class:                   Burstable
{TOLERATIONS}
Events:
  Type     Reason   Age                  From     Message
  ----     ------   ----                 ----     -------
  Normal   Pulled   2m (x9 over 25m)     kubelet  Container image "registry.acme.io/orders/fulfillment:2.4.0" already present on machine
  Warning  BackOff  2m (x110 over 25m)   kubelet  Back-off restarting failed container wait-for-schema in pod {ful[0]}_orders
""",
        f"kubectl describe deployments fulfillment -n {ns}": f"""Name:               fulfillment
Namespace:          {ns}
CreationTimestamp:  {when(-150 * 86400)}
Labels:             app=fulfillment
Annotations:        deployment.kubernetes.io/revision: 23
Selector:           app=fulfillment
Replicas:           3 desired | 3 updated | 3 total | 0 available | 3 unavailable
StrategyType:       Recreate
Pod Template:
  Labels:  app=fulfillment
  Init Containers:
   wait-for-schema:
    Image:      registry.acme.io/orders/fulfillment:2.4.0
    Command:
      /app/bin/check-schema
      --require=42
  Containers:
   app:
    Image:      registry.acme.io/orders/fulfillment:2.4.0
    Port:       8080/TCP
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      False   MinimumReplicasUnavailable
  Progressing    True    ReplicaSetUpdated
OldReplicaSets:  fulfillment-6d5c4b3a2 (0/0 replicas created)
NewReplicaSet:   fulfillment-84f7c9d6b (3/3 replicas created)
Events:
  Type    Reason             Age   From                   Message
  ----    ------             ----  ----                   -------
  Normal  ScalingReplicaSet  25m   deployment-controller  Scaled down replica set fulfillment-6d5c4b3a2 to 0 from 3
  Normal  ScalingReplicaSet  25m   deployment-controller  Scaled up replica set fulfillment-84f7c9d6b to 3
""",
        f"kubectl logs {ful[0]} -n {ns} -c wait-for-schema --previous --tail=1000": (
            "check-schema: connecting to fulfillment-db:5432/fulfillment\n"
            "check-schema: schema_migrations current=41 required=42 (missing: 042_add_carrier_reference)\n"
            "check-schema: refusing to start: run the 2.4.0 migration job first (helm hook 'fulfillment-migrate' is disabled in values-prod.yaml)\n"
        ),
        f"kubectl logs {ful[0]} -n {ns} -c wait-for-schema --tail=1000": (
            "check-schema: connecting to fulfillment-db:5432/fulfillment\n"
            "check-schema: schema_migrations current=41 required=42 (missing: 042_add_carrier_reference)\n"
            "check-schema: refusing to start: run the 2.4.0 migration job first (helm hook 'fulfillment-migrate' is disabled in values-prod.yaml)\n"
        ),
        f"kubectl describe pods {cons[0]} -n {ns}": f"""Name:             {cons[0]}
Namespace:        {ns}
Node:             {node[0]}/10.40.1.21
Labels:           app=order-events-consumer
                  pod-template-hash=5b9c8d7f6
Status:           Running
IP:               10.40.1.60
Controlled By:    ReplicaSet/order-events-consumer-5b9c8d7f6
Containers:
  consumer:
    Image:          registry.acme.io/orders/order-events-consumer:1.12.0
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
    Ready:          False
    Restart Count:  7
    Environment:
      FULFILLMENT_URL:  http://fulfillment.orders.svc:8080
Events:
  Type     Reason   Age                 From     Message
  ----     ------   ----                ----     -------
  Warning  BackOff  1m (x90 over 24m)   kubelet  Back-off restarting failed container consumer in pod {cons[0]}_orders
""",
        f"kubectl logs {cons[0]} -n {ns} -c consumer --previous --tail=1000": (
            "INFO consuming topic orders.paid (partition 0-5)\n"
            'ERROR deliver order 771203 to fulfillment: Post "http://fulfillment.orders.svc:8080/v1/shipments": dial tcp 172.20.88.12:8080: connect: connection refused (attempt 30/30)\n'
            "FATAL giving up after 30 attempts; exiting so that Kafka rebalances\n"
        ),
    }
    bg = [
        {
            "service": "fulfillment",
            "pods": [
                "fulfillment-6d5c4b3a2-8hwq2",
                "fulfillment-6d5c4b3a2-pz4kc",
                "fulfillment-6d5c4b3a2-tn7vb",
            ],
            "every_s": 8,
            "until": start - 20,
            "messages": [
                "POST /v1/shipments 201 {ms}ms order={n}",
                "GET /v1/shipments/{n} 200 {ms}ms",
            ],
        },
        {
            "service": "order-events-consumer",
            "pods": cons,
            "every_s": 8,
            "until": start,
            "messages": ["order {n} delivered to fulfillment in {ms}ms"],
        },
        {
            "service": "shipping-label",
            "pods": label,
            "every_s": 30,
            "until": start,
            "messages": ["label created for shipment {n} carrier=dhl"],
        },
        {
            "service": "shipping-label",
            "pods": label,
            "every_s": 60,
            "from": start,
            "messages": ["poll: no new shipments"],
        },
    ]
    ev = [
        {
            "service": "fulfillment",
            "level": "info",
            "at": start - 15,
            "pod": "fulfillment-6d5c4b3a2-8hwq2",
            "message": "received SIGTERM, shutting down (deploy 2.4.0, strategy Recreate)",
        },
        {
            "service": "fulfillment",
            "level": "error",
            "from": start + 20,
            "to": -10,
            "every_s": 140,
            "pods": ful,
            "message": "check-schema: schema_migrations current=41 required=42 (missing: 042_add_carrier_reference); refusing to start",
        },
        {
            "service": "order-events-consumer",
            "level": "error",
            "from": start + 10,
            "to": -2,
            "every_s": 5,
            "pods": cons,
            "message": 'deliver order {n} to fulfillment: Post "http://fulfillment.orders.svc:8080/v1/shipments": dial tcp 172.20.88.12:8080: connect: connection refused',
        },
        {
            "service": "order-events-consumer",
            "level": "error",
            "from": start + 200,
            "to": -20,
            "every_s": 190,
            "pods": cons,
            "message": "FATAL giving up after 30 attempts; exiting so that Kafka rebalances",
        },
        {
            "service": "order-events-consumer",
            "level": "warn",
            "from": start + 60,
            "to": 0,
            "every_s": 60,
            "pods": cons,
            "message": "consumer lag orders.paid = {n} messages",
        },
        {
            "service": "shipping-label",
            "level": "error",
            "at": -6100,
            "pod": label[0],
            "message": "carrier API dhl returned 500 for shipment 760122 (retry ok) api_key=dhl_live_12ab34cd",
        },
    ]
    return {
        "incident": {
            "title": "Orders stuck in 'paid', nothing ships",
            "service": "fulfilment",
            "severity": "sev2",
            "symptoms": [
                "no new shipments created since about 25 minutes",
                "order-events-consumer crash-looping with connection refused",
                "Kafka lag on orders.paid growing",
            ],
            "description": "Alert OrdersPaidLagHigh fired in namespace orders: consumer lag above 5000 for 10 minutes. The fulfilment team deployed 2.4.0 this afternoon.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "startup",
            "root_cause_reason": "Init:CrashLoopBackOff",
            "root_cause_component": [
                "deployment/fulfillment",
                "fulfillment",
                "replicaset/fulfillment-84f7c9d6b",
            ],
            "root_cause_signal": "Init:CrashLoopBackOff",
            "root_cause": "fulfillment 2.4.0 was deployed with strategy Recreate: the old pods were stopped, and every new pod's init container wait-for-schema exits 3 because the database is at schema 41 and 2.4.0 needs 42 (the migration hook is disabled in the prod values). All three pods sit in Init:CrashLoopBackOff, the Service has no endpoints, and order-events-consumer, which delivers paid orders to fulfillment, crash-loops as a victim.",
            "evidence": [
                "kubectl get pods: fulfillment-84f7c9d6b-* Init:CrashLoopBackOff / Init:Error",
                "kubectl logs -c wait-for-schema: schema_migrations current=41 required=42; helm hook 'fulfillment-migrate' is disabled",
                "kubectl get endpoints fulfillment: <none>",
                "order-events-consumer: connection refused to fulfillment, FATAL giving up (a victim)",
            ],
            "remediation": "Run the 2.4.0 migration (enable the fulfillment-migrate hook or run the job by hand), or roll fulfillment back to 2.3.2; then restart order-events-consumer.",
        },
        "logs": logs(seed=105, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "fulfillment",
                    "rps": 8,
                    "rps_after": 0,
                    "errors": {"500": (0.002, 0.0)},
                    "latency": (0.05, 0.05),
                },
                {
                    "name": "shipping-label",
                    "rps": 2,
                    "rps_after": 0.2,
                    "errors": {"500": (0.004, 0.0)},
                    "latency": (0.3, 0.3),
                },
            ],
            start=start,
            seed=105,
            gauges=[
                {
                    "name": "kafka_consumergroup_lag",
                    "labels": {
                        "group": "order-events-consumer",
                        "topic": "orders.paid",
                    },
                    "before": 15,
                    "after": 6200,
                    "noise": 0.3,
                }
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "order-events-consumer-crashloop.md": runbook(
                "order-events-consumer crash-looping",
                """
The consumer exits when it cannot commit offsets. Usual cause: a Kafka broker restart.
Check the kafka namespace for broker restarts, then delete the consumer pod so it rejoins the group.
""",
            ),
        },
    }


# =================================================================================================
# 6. A ConfigMap value that crashes the app, visible only in the previous container's logs.
# =================================================================================================


@scenario("configmap-bad-value")
def configmap_bad_value() -> dict[str, Any]:
    start = -1560
    ns = "commerce"
    node = [
        "aks-pool1-31245-vmss000000",
        "aks-pool1-31245-vmss000001",
        "aks-pool1-31245-vmss000002",
    ]
    pricing = [
        "pricing-7d9f8c6b5-6vwqk",
        "pricing-7d9f8c6b5-hl2xd",
        "pricing-7d9f8c6b5-s8mzr",
    ]
    cart = ["cart-5f6e7d8c9-2kp4j", "cart-5f6e7d8c9-xw9qh"]
    promo = ["promotions-6a7b8c9d1-f5tnz"]
    prev_log = (
        "2026-12-05T13:58:40Z INFO  pricing 3.2.1 starting (workers=4)\n"
        "2026-12-05T13:58:40Z INFO  loading settings from environment (configmap pricing-config)\n"
        "Traceback (most recent call last):\n"
        '  File "/app/pricing/main.py", line 22, in <module>\n'
        "    settings = Settings.load()\n"
        '  File "/app/pricing/settings.py", line 48, in load\n'
        '    discount_cache_ttl=int(os.environ["DISCOUNT_CACHE_TTL"]),\n'
        "ValueError: invalid literal for int() with base 10: '10m'\n"
    )
    current_log = (
        "2026-12-05T14:00:01Z INFO  pricing 3.2.1 starting (workers=4)\n"
        "2026-12-05T14:00:01Z INFO  loading settings from environment (configmap pricing-config)\n"
    )
    k8s = {
        **cluster_basics(
            ns,
            configmaps=[
                ("cart-config", "4", "320d"),
                ("pricing-config", "9", "320d"),
                ("promotions-config", "3", "320d"),
            ],
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    cart[0],
                    "1/1",
                    "Running",
                    "0",
                    "6d",
                    "10.244.0.21",
                    node[0],
                    "app=cart,pod-template-hash=5f6e7d8c9",
                ),
                (
                    cart[1],
                    "1/1",
                    "Running",
                    "0",
                    "6d",
                    "10.244.1.22",
                    node[1],
                    "app=cart,pod-template-hash=5f6e7d8c9",
                ),
                (
                    pricing[0],
                    "0/1",
                    "CrashLoopBackOff",
                    "9 (2m5s ago)",
                    "25m",
                    "10.244.0.31",
                    node[0],
                    "app=pricing,pod-template-hash=7d9f8c6b5",
                ),
                (
                    pricing[1],
                    "0/1",
                    "CrashLoopBackOff",
                    "9 (1m40s ago)",
                    "25m",
                    "10.244.1.32",
                    node[1],
                    "app=pricing,pod-template-hash=7d9f8c6b5",
                ),
                (
                    pricing[2],
                    "0/1",
                    "Running",
                    "10 (5s ago)",
                    "25m",
                    "10.244.2.33",
                    node[2],
                    "app=pricing,pod-template-hash=7d9f8c6b5",
                ),
                (
                    promo[0],
                    "1/1",
                    "Running",
                    "0",
                    "14d",
                    "10.244.2.40",
                    node[2],
                    "app=promotions,pod-template-hash=6a7b8c9d1",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "cart",
                    "2/2",
                    "2",
                    "2",
                    "320d",
                    "cart",
                    "acmecr.azurecr.io/commerce/cart:9.4.0",
                    "app=cart",
                ),
                (
                    "pricing",
                    "0/3",
                    "3",
                    "0",
                    "320d",
                    "pricing",
                    "acmecr.azurecr.io/commerce/pricing:3.2.1",
                    "app=pricing",
                ),
                (
                    "promotions",
                    "1/1",
                    "1",
                    "1",
                    "320d",
                    "promotions",
                    "acmecr.azurecr.io/commerce/promotions:1.5.2",
                    "app=promotions",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "cart-5f6e7d8c9",
                    "2",
                    "2",
                    "2",
                    "6d",
                    "cart",
                    "acmecr.azurecr.io/commerce/cart:9.4.0",
                    "app=cart,pod-template-hash=5f6e7d8c9",
                ),
                (
                    "pricing-6c8e7d5a4",
                    "0",
                    "0",
                    "0",
                    "11d",
                    "pricing",
                    "acmecr.azurecr.io/commerce/pricing:3.2.1",
                    "app=pricing,pod-template-hash=6c8e7d5a4",
                ),
                (
                    "pricing-7d9f8c6b5",
                    "3",
                    "3",
                    "0",
                    "25m",
                    "pricing",
                    "acmecr.azurecr.io/commerce/pricing:3.2.1",
                    "app=pricing,pod-template-hash=7d9f8c6b5",
                ),
                (
                    "promotions-6a7b8c9d1",
                    "1",
                    "1",
                    "1",
                    "14d",
                    "promotions",
                    "acmecr.azurecr.io/commerce/promotions:1.5.2",
                    "app=promotions,pod-template-hash=6a7b8c9d1",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                ("cart", "ClusterIP", "10.0.41.10", "8080/TCP", "320d", "app=cart"),
                (
                    "pricing",
                    "ClusterIP",
                    "10.0.41.20",
                    "8080/TCP",
                    "320d",
                    "app=pricing",
                ),
                (
                    "promotions",
                    "ClusterIP",
                    "10.0.41.30",
                    "8080/TCP",
                    "320d",
                    "app=promotions",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("cart", "10.244.0.21:8080,10.244.1.22:8080", "320d"),
                ("pricing", "<none>", "320d"),
                ("promotions", "10.244.2.40:8080", "320d"),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (n, "Ready", "45d", "v1.30.5", f"10.224.0.{4 + i}")
                for i, n in enumerate(node)
            ]
        ),
        f"kubectl events -n {ns}": events(
            [
                (
                    "25m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/pricing",
                    "Scaled up replica set pricing-7d9f8c6b5 to 1",
                ),
                (
                    "24m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/pricing",
                    "Scaled down replica set pricing-6c8e7d5a4 to 0 from 1",
                ),
                (
                    "2m5s (x105 over 25m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{pricing[0]}",
                    f"Back-off restarting failed container pricing in pod {pricing[0]}_commerce(aa12bb34-...)",
                ),
                (
                    "1m40s (x101 over 24m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{pricing[1]}",
                    f"Back-off restarting failed container pricing in pod {pricing[1]}_commerce(cc56dd78-...)",
                ),
                (
                    "5s (x11 over 24m)",
                    "Normal",
                    "Pulled",
                    f"Pod/{pricing[2]}",
                    'Container image "acmecr.azurecr.io/commerce/pricing:3.2.1" already present on machine',
                ),
            ]
        ),
        f"kubectl describe pods {pricing[0]} -n {ns}": f"""Name:             {pricing[0]}
Namespace:        {ns}
Priority:         0
Service Account:  default
Node:             {node[0]}/10.224.0.4
Start Time:       {when(-1500)}
Labels:           app=pricing
                  pod-template-hash=7d9f8c6b5
Annotations:      kubectl.kubernetes.io/restartedAt: {iso(-1510)}
Status:           Running
IP:               10.244.0.31
Controlled By:    ReplicaSet/pricing-7d9f8c6b5
Containers:
  pricing:
    Image:          acmecr.azurecr.io/commerce/pricing:3.2.1
    Port:           8080/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
      Started:      {when(-126)}
      Finished:     {when(-125)}
    Ready:          False
    Restart Count:  9
    Limits:
      memory:  512Mi
    Requests:
      cpu:     200m
      memory:  512Mi
    Environment Variables from:
      pricing-config  ConfigMap  Optional: false
    Environment:      <none>
Conditions:
  Type              Status
  Initialized       True
  Ready             False
  ContainersReady   False
  PodScheduled      True
QoS Class:                   Burstable
{TOLERATIONS}
Events:
  Type     Reason   Age                   From     Message
  ----     ------   ----                  ----     -------
  Warning  BackOff  2m5s (x105 over 25m)  kubelet  Back-off restarting failed container pricing in pod {pricing[0]}_commerce
""",
        f"kubectl describe deployments pricing -n {ns}": f"""Name:                   pricing
Namespace:              {ns}
CreationTimestamp:      {when(-320 * 86400)}
Labels:                 app=pricing
Annotations:            deployment.kubernetes.io/revision: 41
Selector:               app=pricing
Replicas:               3 desired | 3 updated | 3 total | 0 available | 3 unavailable
StrategyType:           RollingUpdate
RollingUpdateStrategy:  25% max unavailable, 25% max surge
Pod Template:
  Labels:       app=pricing
  Annotations:  kubectl.kubernetes.io/restartedAt: {iso(-1510)}
  Containers:
   pricing:
    Image:      acmecr.azurecr.io/commerce/pricing:3.2.1
    Port:       8080/TCP
    Environment Variables from:
      pricing-config  ConfigMap  Optional: false
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      False   MinimumReplicasUnavailable
  Progressing    False   ProgressDeadlineExceeded
OldReplicaSets:  pricing-6c8e7d5a4 (0/0 replicas created)
NewReplicaSet:   pricing-7d9f8c6b5 (3/3 replicas created)
Events:
  Type    Reason             Age   From                   Message
  ----    ------             ----  ----                   -------
  Normal  ScalingReplicaSet  25m   deployment-controller  Scaled up replica set pricing-7d9f8c6b5 to 1
  Normal  ScalingReplicaSet  24m   deployment-controller  Scaled down replica set pricing-6c8e7d5a4 to 0 from 1
""",
        f"kubectl describe configmaps pricing-config -n {ns}": f"""Name:         pricing-config
Namespace:    {ns}
Labels:       app=pricing
Annotations:  <none>

Data
====
CURRENCY_DEFAULT:
----
EUR

DISCOUNT_CACHE_TTL:
----
10m

LOG_LEVEL:
----
info

PROMOTIONS_URL:
----
http://promotions:8080

ROUNDING:
----
half-even

TAX_TABLE:
----
eu-2026-q4

WORKERS:
----
4

DB_HOST:
----
pricing-db.postgres.database.azure.com

FEATURE_BUNDLES:
----
true


BinaryData
====

Events:  <none>
""",
        f"kubectl logs {pricing[0]} -n {ns} -c pricing --previous --tail=1000": prev_log,
        f"kubectl logs {pricing[0]} -n {ns} -c pricing --tail=1000": current_log,
        f"kubectl logs {pricing[2]} -n {ns} -c pricing --previous --tail=1000": prev_log,
        f"kubectl logs {pricing[2]} -n {ns} -c pricing --tail=1000": current_log,
    }
    bg = [
        {
            "service": "cart",
            "pods": cart,
            "every_s": 4,
            "until": start,
            "messages": [
                "GET /cart/{n}/total 200 {ms}ms",
                "POST /cart/{n}/items 201 {ms}ms",
            ],
        },
        {
            "service": "cart",
            "pods": cart,
            "every_s": 12,
            "from": start,
            "messages": ["POST /cart/{n}/items 201 {ms}ms"],
        },
        {
            "service": "pricing",
            "pods": [
                "pricing-6c8e7d5a4-9xq2w",
                "pricing-6c8e7d5a4-bt7kn",
                "pricing-6c8e7d5a4-z4rhm",
            ],
            "every_s": 5,
            "until": start - 30,
            "messages": ["POST /v1/quote 200 {ms}ms lines=3"],
        },
        {
            "service": "promotions",
            "pods": promo,
            "every_s": 10,
            "messages": ["GET /v1/active 200 {ms}ms"],
        },
    ]
    ev = [
        {
            "service": "pricing",
            "level": "info",
            "from": start + 20,
            "to": -5,
            "every_s": 150,
            "pods": pricing,
            "message": "pricing 3.2.1 starting (workers=4)",
        },
        {
            "service": "pricing",
            "level": "info",
            "from": start + 21,
            "to": -4,
            "every_s": 150,
            "pods": pricing,
            "message": "loading settings from environment (configmap pricing-config)",
        },
        {
            "service": "cart",
            "level": "error",
            "from": start + 40,
            "to": -2,
            "every_s": 5,
            "pods": cart,
            "message": "GET /cart/{n}/total 502: pricing unavailable: dial tcp 10.0.41.20:8080: connect: connection refused",
        },
        {
            "service": "promotions",
            "level": "warn",
            "from": -7100,
            "to": 0,
            "every_s": 200,
            "pods": promo,
            "message": "campaign BLACKWEEK has 0 eligible SKUs (check catalog sync)",
        },
        {
            "service": "promotions",
            "level": "error",
            "at": -6500,
            "pod": promo[0],
            "message": "catalog sync failed: 401 from catalog (token=eyJhbGciOi.expired) — refreshed",
        },
        {
            "service": "pricing",
            "level": "info",
            "at": start - 40,
            "pod": "pricing-6c8e7d5a4-9xq2w",
            "message": "received SIGTERM (rollout restart), draining",
        },
    ]
    return {
        "incident": {
            "title": "Cart totals missing, checkout blocked",
            "service": "cart",
            "severity": "sev1",
            "symptoms": [
                "cart pages show no total; checkout button disabled",
                "cart answers 502 on /cart/{id}/total",
                "pricing pods restarting, no error in their logs",
            ],
            "description": "Alert CartTotalErrors fired for cart in namespace commerce (AKS prod-weu): 5xx on /total above 50%. Pricing was restarted 25 minutes ago to pick up the new discount cache setting.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "runtime",
            "root_cause_reason": "CrashLoopBackOff",
            "root_cause_component": [
                "configmap/pricing-config",
                "pricing-config",
                "deployment/pricing",
            ],
            "root_cause_signal": "invalid literal for int()",
            "root_cause": "pricing-config's DISCOUNT_CACHE_TTL was set to '10m' and pricing was restarted to pick it up; pricing reads it with int() and dies at start (ValueError: invalid literal for int() with base 10: '10m'), which only the previous container's log shows. All three pods crash-loop, the Service has no endpoints, and cart's total calls are refused.",
            "evidence": [
                "kubectl logs pricing-… --previous: ValueError: invalid literal for int() with base 10: '10m'",
                "kubectl describe configmap pricing-config: DISCOUNT_CACHE_TTL 10m",
                "kubectl describe pod: envFrom pricing-config; restartedAt 25 minutes ago; CrashLoopBackOff, Exit Code 1 (not OOMKilled)",
                "cart logs: pricing unavailable: connection refused (a victim)",
            ],
            "remediation": "Set DISCOUNT_CACHE_TTL back to a number of seconds (600) and restart pricing; make settings parse durations or fail with a clear message.",
        },
        "logs": logs(seed=106, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "cart",
                    "rps": 30,
                    "errors": {"502": (0.0, 0.55), "500": (0.001, 0.001)},
                    "latency": (0.03, 0.02),
                },
                {
                    "name": "pricing",
                    "rps": 22,
                    "rps_after": 0,
                    "change_at": start - 30,
                    "errors": {"500": (0.001, 0.0)},
                    "latency": (0.015, 0.015),
                },
                {
                    "name": "promotions",
                    "rps": 10,
                    "errors": {"500": (0.0, 0.0)},
                    "latency": (0.02, 0.02),
                },
            ],
            start=start,
            seed=106,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "pricing-crashloop.md": runbook(
                "pricing crash-looping",
                """
pricing crash-loops when it runs out of memory while loading the tax tables (OOMKilled).
Raise the memory limit to 1Gi: `kubectl set resources deploy/pricing -n commerce --limits=memory=1Gi`.
""",
            ),
            "cart-total-errors.md": runbook(
                "cart totals failing",
                """
If cart's /total fails, check promotions first: a campaign without eligible SKUs makes the
discount step throw. Disable the campaign in the promotions admin.
""",
            ),
        },
    }


# =================================================================================================
# 7. A failing CronJob: the hourly ledger export fails with AccessDenied after an IAM role change.
# =================================================================================================


@scenario("cronjob-failing")
def cronjob_failing() -> dict[str, Any]:
    start = -3000
    ns = "finance"
    node = ["ip-10-50-1-9.ec2.internal", "ip-10-50-2-9.ec2.internal"]
    dash = ["finance-dashboard-6b5c4d3e2-n8kqz", "finance-dashboard-6b5c4d3e2-x2plm"]
    jobs_ok = "ledger-export-29419095"
    jobs_bad = ["ledger-export-29419155", "ledger-export-29419215"]
    bad_pods = [
        "ledger-export-29419155-4kxq2",
        "ledger-export-29419155-9wzv7",
        "ledger-export-29419215-h6nrt",
        "ledger-export-29419215-tq8ds",
    ]
    err = 'botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the PutObject operation: User: arn:aws:sts::210987654321:assumed-role/finance-export-role-v2/botocore-session-1733406 is not authorized to perform: s3:PutObject on resource: "arn:aws:s3:::acme-finance-exports/ledger/2026-12-05/13.parquet" because no identity-based policy allows the s3:PutObject action'
    k8s = {
        **cluster_basics(ns, configmaps=[("ledger-export-config", "3", "90d")]),
        f"kubectl get serviceaccounts -n {ns}": table(
            [
                ["NAME", "SECRETS", "AGE"],
                ["default", "0", "400d"],
                ["ledger-export", "0", "90d"],
            ]
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    dash[0],
                    "1/1",
                    "Running",
                    "0",
                    "3d",
                    "10.50.1.20",
                    node[0],
                    "app=finance-dashboard,pod-template-hash=6b5c4d3e2",
                ),
                (
                    dash[1],
                    "1/1",
                    "Running",
                    "0",
                    "3d",
                    "10.50.2.21",
                    node[1],
                    "app=finance-dashboard,pod-template-hash=6b5c4d3e2",
                ),
                (
                    "ledger-export-29419095-sx7mv",
                    "0/1",
                    "Completed",
                    "0",
                    "2h5m",
                    "10.50.1.71",
                    node[0],
                    "batch.kubernetes.io/job-name=ledger-export-29419095,job-name=ledger-export-29419095",
                ),
                (
                    bad_pods[0],
                    "0/1",
                    "Error",
                    "0",
                    "65m",
                    "10.50.1.72",
                    node[0],
                    "batch.kubernetes.io/job-name=ledger-export-29419155,job-name=ledger-export-29419155",
                ),
                (
                    bad_pods[1],
                    "0/1",
                    "Error",
                    "0",
                    "63m",
                    "10.50.2.73",
                    node[1],
                    "batch.kubernetes.io/job-name=ledger-export-29419155,job-name=ledger-export-29419155",
                ),
                (
                    bad_pods[2],
                    "0/1",
                    "Error",
                    "0",
                    "5m",
                    "10.50.1.74",
                    node[0],
                    "batch.kubernetes.io/job-name=ledger-export-29419215,job-name=ledger-export-29419215",
                ),
                (
                    bad_pods[3],
                    "0/1",
                    "Error",
                    "0",
                    "3m",
                    "10.50.2.75",
                    node[1],
                    "batch.kubernetes.io/job-name=ledger-export-29419215,job-name=ledger-export-29419215",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "finance-dashboard",
                    "2/2",
                    "2",
                    "2",
                    "90d",
                    "dashboard",
                    "registry.acme.io/finance/dashboard:5.0.2",
                    "app=finance-dashboard",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "finance-dashboard-6b5c4d3e2",
                    "2",
                    "2",
                    "2",
                    "3d",
                    "dashboard",
                    "registry.acme.io/finance/dashboard:5.0.2",
                    "app=finance-dashboard,pod-template-hash=6b5c4d3e2",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "finance-dashboard",
                    "ClusterIP",
                    "172.20.90.4",
                    "80/TCP",
                    "90d",
                    "app=finance-dashboard",
                )
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [("finance-dashboard", "10.50.1.20:8080,10.50.2.21:8080", "90d")]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (n, "Ready", "20d", "v1.31.2-eks-94953ac", f"10.50.{i + 1}.9")
                for i, n in enumerate(node)
            ]
        ),
        f"kubectl get cronjobs -n {ns}": table(
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
                ["ledger-export", "15 * * * *", "<none>", "False", "0", "5m", "90d"],
            ]
        ),
        f"kubectl get jobs -n {ns}": table(
            [
                ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
                [jobs_ok, "Complete", "1/1", "2m14s", "125m"],
                [jobs_bad[0], "Failed", "0/1", "65m", "65m"],
                [jobs_bad[1], "Running", "0/1", "5m", "5m"],
            ]
        ),
        f"kubectl describe jobs {jobs_bad[0]} -n {ns}": f"""Name:             {jobs_bad[0]}
Namespace:        {ns}
Selector:         batch.kubernetes.io/controller-uid=5d1e2f3a-...
Labels:           batch.kubernetes.io/job-name={jobs_bad[0]}
Annotations:      batch.kubernetes.io/job-tracking:
Controlled By:    CronJob/ledger-export
Parallelism:      1
Completions:      1
Completion Mode:  NonIndexed
Start Time:       {when(-3900)}
Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 2 Failed
Pod Template:
  Service Account:  ledger-export
  Containers:
   export:
    Image:      registry.acme.io/finance/ledger-export:1.6.0
    Command:
      python
      -m
      ledger_export
      --bucket=acme-finance-exports
Events:
  Type     Reason                Age   From            Message
  ----     ------                ----  ----            -------
  Normal   SuccessfulCreate      65m   job-controller  Created pod: {bad_pods[0]}
  Normal   SuccessfulCreate      63m   job-controller  Created pod: {bad_pods[1]}
  Warning  BackoffLimitExceeded  61m   job-controller  Job has reached the specified backoff limit
""",
        f"kubectl describe cronjobs ledger-export -n {ns}": f"""Name:                          ledger-export
Namespace:                     {ns}
Labels:                        app=ledger-export
Annotations:                   <none>
Schedule:                      15 * * * *
Concurrency Policy:            Forbid
Suspend:                       False
Successful Job History Limit:  3
Failed Job History Limit:      1
Starting Deadline Seconds:     <unset>
Selector:                      <unset>
Parallelism:                   <unset>
Completions:                   <unset>
Pod Template:
  Service Account:  ledger-export
  Containers:
   export:
    Image:      registry.acme.io/finance/ledger-export:1.6.0
Last Schedule Time:  {when(-300)}
Active Jobs:         {jobs_bad[1]}
Events:
  Type    Reason            Age   From                Message
  ----    ------            ----  ----                -------
  Normal  SuccessfulCreate  65m   cronjob-controller  Created job {jobs_bad[0]}
  Normal  SawCompletedJob   61m   cronjob-controller  Saw completed job: {jobs_bad[0]}, status: Failed
  Normal  SuccessfulCreate  5m    cronjob-controller  Created job {jobs_bad[1]}
""",
        f"kubectl events -n {ns}": events(
            [
                (
                    "65m",
                    "Normal",
                    "SuccessfulCreate",
                    "CronJob/ledger-export",
                    f"Created job {jobs_bad[0]}",
                ),
                (
                    "61m",
                    "Warning",
                    "BackoffLimitExceeded",
                    f"Job/{jobs_bad[0]}",
                    "Job has reached the specified backoff limit",
                ),
                (
                    "5m",
                    "Normal",
                    "SuccessfulCreate",
                    "CronJob/ledger-export",
                    f"Created job {jobs_bad[1]}",
                ),
            ]
        ),
        f"kubectl logs {bad_pods[1]} -n {ns} -c export --tail=1000": f"INFO  exporting ledger rows 12:00-13:00 (412,881 rows)\nINFO  writing s3://acme-finance-exports/ledger/2026-12-05/13.parquet\nERROR {err}\n",
        f"kubectl logs {bad_pods[3]} -n {ns} -c export --tail=1000": f"INFO  exporting ledger rows 13:00-14:00 (398,102 rows)\nINFO  writing s3://acme-finance-exports/ledger/2026-12-05/14.parquet\nERROR {err.replace('13.parquet', '14.parquet')}\n",
        f"kubectl describe serviceaccounts ledger-export -n {ns}": f"""Name:                ledger-export
Namespace:           {ns}
Labels:              app=ledger-export
Annotations:         eks.amazonaws.com/role-arn: arn:aws:iam::210987654321:role/finance-export-role-v2
Image pull secrets:  <none>
Mountable secrets:   <none>
Tokens:              <none>
Events:              <none>
""",
    }
    bg = [
        {
            "service": "finance-dashboard",
            "pods": dash,
            "every_s": 15,
            "messages": [
                "GET /api/kpis 200 {ms}ms",
                "GET /api/ledger/summary 200 {ms}ms",
            ],
        },
    ]
    ev = [
        {
            "service": "ledger-export",
            "level": "info",
            "at": -7500 + 600,
            "pod": "ledger-export-29419035-pq2zt",
            "message": "wrote s3://acme-finance-exports/ledger/2026-12-05/11.parquet (401,220 rows) in 121s",
        },
        {
            "service": "ledger-export",
            "level": "info",
            "at": -4120,
            "pod": "ledger-export-29419095-sx7mv",
            "message": "wrote s3://acme-finance-exports/ledger/2026-12-05/12.parquet (405,310 rows) in 134s",
        },
        {
            "service": "ledger-export",
            "level": "info",
            "at": -3600,
            "pod": "infra-audit",
            "message": "serviceaccount finance/ledger-export annotation eks.amazonaws.com/role-arn changed to finance-export-role-v2 (terraform run iam-split-roles)",
        },
        {
            "service": "ledger-export",
            "level": "error",
            "at": -3780,
            "pod": bad_pods[0],
            "message": err,
        },
        {
            "service": "ledger-export",
            "level": "error",
            "at": -3660,
            "pod": bad_pods[1],
            "message": err,
        },
        {
            "service": "ledger-export",
            "level": "error",
            "at": -180,
            "pod": bad_pods[2],
            "message": err.replace("13.parquet", "14.parquet"),
        },
        {
            "service": "ledger-export",
            "level": "error",
            "at": -60,
            "pod": bad_pods[3],
            "message": err.replace("13.parquet", "14.parquet"),
        },
        {
            "service": "finance-dashboard",
            "level": "warn",
            "from": start + 100,
            "to": 0,
            "every_s": 300,
            "pods": dash,
            "message": "latest ledger export is {ms} minutes old (expected < 75)",
        },
        {
            "service": "finance-dashboard",
            "level": "error",
            "from": -7000,
            "to": 0,
            "every_s": 700,
            "pods": dash,
            "message": "redis GET kpi-cache timed out after 50ms; recomputing",
        },
        {
            "service": "finance-dashboard",
            "level": "debug",
            "at": -2000,
            "pod": dash[0],
            "message": "warehouse connection password=Fin4nce!2026 host=redshift.internal",
        },
    ]
    return {
        "incident": {
            "title": "Finance dashboard numbers stale since late morning",
            "service": "finance-dashboard",
            "severity": "sev3",
            "symptoms": [
                "revenue figures stopped updating around 12:00",
                "finance-dashboard warns that the latest ledger export is old",
                "occasional redis timeouts in the dashboard",
            ],
            "description": "The controller's team reports the intraday revenue dashboard frozen. Alert LedgerExportStale fired in namespace finance 40 minutes ago.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "runtime",
            "root_cause_reason": "BackoffLimitExceeded",
            "root_cause_component": [
                "cronjob/ledger-export",
                "ledger-export",
                f"job/{jobs_bad[0]}",
                f"job/{jobs_bad[1]}",
            ],
            "root_cause_signal": "AccessDenied",
            "root_cause": "The ledger-export CronJob's runs fail since its service account was moved to the IAM role finance-export-role-v2 (terraform 'iam-split-roles'), which lacks s3:PutObject on acme-finance-exports: each pod fails with AccessDenied, the 13:15 Job hit its backoff limit, the 14:15 one is failing the same way. The dashboard only shows the stale export; its redis timeouts are old noise.",
            "evidence": [
                f"kubectl get jobs: {jobs_bad[0]} Failed 0/1; describe job: BackoffLimitExceeded",
                "ledger-export pod logs: AccessDenied when calling the PutObject operation … finance-export-role-v2",
                "serviceaccount ledger-export: eks.amazonaws.com/role-arn …/finance-export-role-v2",
                "finance-dashboard: latest ledger export is old (a symptom)",
            ],
            "remediation": "Grant finance-export-role-v2 s3:PutObject on acme-finance-exports/ledger/* (or point the service account back at the old role), then re-run the missed hours: `kubectl create job --from=cronjob/ledger-export -n finance ledger-export-rerun`.",
        },
        "logs": logs(seed=107, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "finance-dashboard",
                    "rps": 2,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.12, 0.12),
                }
            ],
            start=start,
            seed=107,
            gauges=[
                {
                    "name": "ledger_export_last_success_age_seconds",
                    "labels": {"job": "ledger-export"},
                    "before": 1800,
                    "after": 5800,
                    "noise": 0.1,
                }
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "finance-dashboard-stale.md": runbook(
                "Finance dashboard stale",
                """
Stale numbers usually mean the KPI cache in redis was not invalidated.
Flush it: `kubectl exec deploy/finance-dashboard -n finance -- ./manage.py flush_kpi_cache`.
""",
            ),
        },
    }


# =================================================================================================
# 8. A gateway relaying an upstream's 503: edge-gw is loud, inventory (the origin) is the cause.
# =================================================================================================


@scenario("gateway-relays-origin-503")
def gateway_relays_origin_503() -> dict[str, Any]:
    start = -1450
    gw = ["edge-gw-0", "edge-gw-1"]
    inv = ["inventory-1", "inventory-2"]
    pool_err = "HikariPool-1 - Connection is not available, request timed out after 5000ms (total=50, active=50, idle=0, waiting=187)"
    bg = [
        {
            "service": "edge-gw",
            "pods": gw,
            "every_s": 2,
            "messages": [
                '[edge] "GET /api/catalog/{n} HTTP/1.1" 200 - upstream=catalog {ms}ms',
                '[edge] "GET /api/stock/{n} HTTP/1.1" 200 - upstream=inventory {ms}ms',
            ],
        },
        {
            "service": "inventory",
            "pods": inv,
            "every_s": 3,
            "messages": ["GET /v1/stock/{n} 200 {ms}ms"],
        },
        {
            "service": "catalog",
            "pods": ["catalog-1"],
            "every_s": 4,
            "messages": ["GET /v1/items/{n} 200 {ms}ms"],
        },
        {
            "service": "stock-reconcile",
            "pods": ["stock-reconcile-7h2kq"],
            "from": start - 60,
            "every_s": 30,
            "messages": [
                "reconciled warehouse batch {n}: {ms} SKUs (holding 40 connections)"
            ],
        },
    ]
    ev = [
        {
            "service": "stock-reconcile",
            "level": "info",
            "at": start - 70,
            "pod": "stock-reconcile-7h2kq",
            "message": "full reconcile started: 40 workers, one DB transaction per warehouse (manual run by ops)",
        },
        {
            "service": "inventory",
            "level": "error",
            "from": start + 20,
            "to": -2,
            "every_s": 4,
            "pods": inv,
            "message": "GET /v1/stock/{n} 503: " + pool_err,
        },
        {
            "service": "inventory",
            "level": "warn",
            "from": start + 10,
            "to": -5,
            "every_s": 30,
            "pods": inv,
            "message": "HikariPool-1 - Pool stats (total=50, active=50, idle=0, waiting={ms})",
        },
        {
            "service": "edge-gw",
            "level": "error",
            "from": start + 20,
            "to": -1,
            "every_s": 1.5,
            "pods": gw,
            "message": '[edge] "GET /api/stock/{n} HTTP/1.1" 503 - upstream=inventory upstream_status=503 {ms}ms',
        },
        {
            "service": "edge-gw",
            "level": "warn",
            "from": -7100,
            "to": 0,
            "every_s": 900,
            "pods": gw,
            "message": "upstream TLS certificate for legacy-pricing.shop.internal expires in 19 days",
        },
        {
            "service": "catalog",
            "level": "error",
            "at": -6400,
            "pod": "catalog-1",
            "message": "elasticsearch reindex failed (index catalog-v12 read-only), retried OK Authorization: Bearer sk_cat_0a1b2c3d4e",
        },
    ]
    return {
        "incident": {
            "title": "Stock badges show 'unavailable' everywhere",
            "service": "edge-gw",
            "severity": "sev2",
            "symptoms": [
                "edge-gw answers 503 on /api/stock/* for about a third of requests",
                "catalog pages load fine",
                "inventory's /healthz is green",
            ],
            "description": "Alert EdgeGw5xx fired: 5xx ratio on edge-gw above 20% for 10 minutes. Envoy's access log shows the 503s on the stock route.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["inventory", "inventory.shop.internal"],
            "root_cause_signal": "Connection is not available",
            "root_cause": "A manual full stock reconcile holds 40 of inventory's 50 database connections in long transactions; inventory's request handlers wait 5 s for a connection and answer 503. edge-gw only passes inventory's 503 through (upstream_status=503); inventory's /healthz does not touch the pool and stays 200.",
            "evidence": [
                "inventory logs: HikariPool-1 - Connection is not available, request timed out after 5000ms (active=50, idle=0)",
                "db_pool_in_use for inventory at db_pool_max (50) since the reconcile started",
                "edge-gw logs: 503 upstream=inventory upstream_status=503 (a pass-through)",
                "probe inventory: HTTP 503 with the pool error; /healthz 200",
            ],
            "remediation": "Stop or throttle the stock-reconcile run (fewer workers, shorter transactions); give batch jobs their own pool or a read replica.",
            "netcheck": {
                "edge-gw": {"failed_layer": "http", "reason": "http_503"},
                "inventory": {"failed_layer": "http", "reason": "http_503"},
                "inventory-health": {"failed_layer": "none", "reason": None},
                "catalog": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=108, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "edge-gw",
                    "rps": 120,
                    "errors": {"503": (0.0005, 0.34)},
                    "latency": (0.03, 0.9),
                },
                {
                    "name": "inventory",
                    "rps": 60,
                    "errors": {"503": (0.0005, 0.66)},
                    "latency": (0.02, 3.2),
                },
                {
                    "name": "catalog",
                    "rps": 50,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.03, 0.03),
                },
            ],
            start=start,
            seed=108,
            gauges=[
                {
                    "name": "db_pool_in_use",
                    "labels": {"service": "inventory"},
                    "before": 9,
                    "after": 50,
                    "cap": 50,
                },
                {
                    "name": "db_pool_max",
                    "labels": {"service": "inventory"},
                    "before": 50,
                    "after": 50,
                    "noise": 0,
                },
            ],
        ),
        "targets": [
            {
                "name": "edge-gw",
                "url": "http://edge-gw.shop.internal/api/stock/sku-1042",
                "fault": {"kind": "gateway", "upstream": "inventory"},
            },
            {
                "name": "inventory",
                "url": "http://inventory.shop.internal/v1/stock/sku-1042",
                "fault": {
                    "kind": "http_status",
                    "status": 503,
                    "delay_s": 5,
                    "body": '{"error":"service unavailable","detail":"'
                    + pool_err
                    + '"}',
                    "headers": {"Content-Type": "application/json"},
                    "paths": {"/healthz": 200},
                },
            },
            {
                "name": "inventory-health",
                "url": "http://inventory.shop.internal/healthz",
                "fault": {
                    "kind": "http_status",
                    "status": 503,
                    "delay_s": 5,
                    "body": '{"error":"service unavailable","detail":"'
                    + pool_err
                    + '"}',
                    "headers": {"Content-Type": "application/json"},
                    "paths": {"/healthz": 200},
                },
            },
            {
                "name": "catalog",
                "url": "http://catalog.shop.internal/healthz",
                "fault": {"kind": "ok", "body": '{"status":"ok"}'},
            },
        ],
        "runbooks": {
            "edge-gw-503.md": runbook(
                "edge-gw answers 503",
                """
A 503 from Envoy means "no healthy upstream": the gateway's cluster membership is stale.
Restart the gateway: `kubectl rollout restart statefulset/edge-gw -n edge`.
""",
            ),
        },
    }


# =================================================================================================
# 9. A slow query plan at warn level: a dropped index; the errors are only the victim's timeouts.
# =================================================================================================


@scenario("slow-query-plan-warn")
def slow_query_plan_warn() -> dict[str, Any]:
    start = -2000
    rev = ["reviews-api-1", "reviews-api-2"]
    pdp = ["product-page-bff-1", "product-page-bff-2", "product-page-bff-3"]
    bg = [
        {
            "service": "product-page-bff",
            "pods": pdp,
            "every_s": 2,
            "messages": ["GET /p/{n} 200 {ms}ms"],
        },
        {
            "service": "reviews-api",
            "pods": rev,
            "every_s": 4,
            "until": start,
            "messages": ["GET /v1/products/{n}/reviews 200 {ms}ms"],
        },
        {
            "service": "reviews-api",
            "pods": rev,
            "every_s": 6,
            "from": start,
            "messages": ["GET /v1/products/{n}/reviews 200 4{ms}0ms"],
        },
        {
            "service": "reviews-db",
            "pods": ["reviews-db-0"],
            "every_s": 240,
            "messages": ["checkpoint complete: wrote {ms} buffers"],
        },
        {
            "service": "search-indexer",
            "pods": ["search-indexer-0"],
            "every_s": 60,
            "messages": ["indexed {ms} products"],
        },
    ]
    ev = [
        {
            "service": "reviews-db",
            "level": "info",
            "at": start - 40,
            "pod": "reviews-db-0",
            "message": "migration 20261205_1310_reviews_cleanup: DROP INDEX CONCURRENTLY reviews_product_id_created_at_idx; (replaced by reviews_created_at_idx)",
        },
        {
            "service": "reviews-db",
            "level": "warn",
            "from": start + 10,
            "to": -5,
            "every_s": 20,
            "pods": ["reviews-db-0"],
            "message": "duration: 4{ms}1.337 ms  statement: SELECT id, rating, body FROM reviews WHERE product_id = $1 ORDER BY created_at DESC LIMIT 20",
        },
        {
            "service": "reviews-api",
            "level": "warn",
            "from": start + 10,
            "to": -3,
            "every_s": 15,
            "pods": rev,
            "message": "slow query 4.{ms}s (threshold 500ms): reviews by product; plan: Limit -> Sort -> Seq Scan on reviews (rows=18400112)",
        },
        {
            "service": "product-page-bff",
            "level": "error",
            "from": start + 30,
            "to": -1,
            "every_s": 3,
            "pods": pdp,
            "message": "reviews widget failed: GET http://reviews-api/v1/products/{n}/reviews timed out after 2000ms (rendering page without reviews)",
        },
        {
            "service": "search-indexer",
            "level": "error",
            "from": -7100,
            "to": -5200,
            "every_s": 200,
            "pods": ["search-indexer-0"],
            "message": "bulk index rejected: es_rejected_execution_exception (queue capacity 200)",
        },
        {
            "service": "search-indexer",
            "level": "error",
            "at": -5150,
            "pod": "search-indexer-0",
            "message": "giving up on batch {n} after 5 retries api_key=idx_live_55aa66bb",
        },
    ]
    return {
        "incident": {
            "title": "Product pages slow, reviews missing",
            "service": "product-page-bff",
            "severity": "sev3",
            "symptoms": [
                "product pages take 2 s longer to render",
                "the reviews section is empty on most products",
                "product-page-bff logs timeouts",
            ],
            "description": "Alert PdpLatencyHigh fired for product-page-bff: p95 above 1.5 s for 20 minutes. No deploy of the bff today.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["reviews-api", "reviews-db", "reviews"],
            "root_cause_signal": "Seq Scan",
            "root_cause": "The 13:10 migration reviews_cleanup dropped reviews_product_id_created_at_idx. The reviews-by-product query now sorts a sequential scan of 18 M rows and takes about 4 s; reviews-api and reviews-db only log it at warn level. product-page-bff's 2 s timeouts (errors) are the victim's side.",
            "evidence": [
                "reviews-db info: DROP INDEX CONCURRENTLY reviews_product_id_created_at_idx just before the start",
                "reviews-api warn: slow query 4.xs; plan: Limit -> Sort -> Seq Scan on reviews (rows=18400112)",
                "reviews-db warn: duration: 4xxx ms statement: SELECT … WHERE product_id = $1 ORDER BY created_at DESC",
                "reviews-api latency from 40 ms to about 4 s; product-page-bff timeouts after 2000ms",
            ],
            "remediation": "Recreate the index: CREATE INDEX CONCURRENTLY reviews_product_id_created_at_idx ON reviews (product_id, created_at DESC); add a query-plan check to migrations that drop indexes.",
        },
        "logs": logs(seed=109, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "product-page-bff",
                    "rps": 90,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.18, 1.9),
                },
                {
                    "name": "reviews-api",
                    "rps": 70,
                    "errors": {"500": (0.0005, 0.002)},
                    "latency": (0.04, 4.1),
                },
                {
                    "name": "search-indexer",
                    "rps": 1,
                    "errors": {"500": (0.02, 0.0)},
                    "latency": (0.5, 0.5),
                },
            ],
            start=start,
            seed=109,
            gauges=[
                {
                    "name": "db_pool_in_use",
                    "labels": {"service": "reviews-api"},
                    "before": 3,
                    "after": 20,
                    "cap": 20,
                },
                {
                    "name": "db_pool_max",
                    "labels": {"service": "reviews-api"},
                    "before": 20,
                    "after": 20,
                    "noise": 0,
                },
            ],
        ),
        "runbooks": {
            "pdp-latency.md": runbook(
                "Product page latency",
                """
Product page latency is dominated by the bff's fan-out. When p95 rises, scale product-page-bff
(`kubectl scale deploy/product-page-bff --replicas=8`) and check search-indexer for rejected batches.
""",
            ),
        },
    }


# =================================================================================================
# 10. A namespace pod-count quota at admission: checkout-api cannot scale out during a sale.
#     The incident names "checkout"; the data knows checkout-api.
# =================================================================================================


@scenario("quota-blocks-scale-out")
def quota_blocks_scale_out() -> dict[str, Any]:
    start = -1380
    ns = "shop"
    node = [
        "gke-prod-pool-a-1f2e",
        "gke-prod-pool-a-3c4d",
        "gke-prod-pool-b-5e6f",
        "gke-prod-pool-b-7a8b",
    ]
    co = [
        "checkout-api-6d5f8b9c7-24hxk",
        "checkout-api-6d5f8b9c7-8qmzr",
        "checkout-api-6d5f8b9c7-fk7wl",
        "checkout-api-6d5f8b9c7-vn2tp",
    ]
    lt = [
        f"load-test-runner-5b6c7d8e9-{s}"
        for s in (
            "2bq7x",
            "4krt9",
            "6wz2m",
            "7hnx4",
            "8c2vd",
            "9jq5s",
            "b3lmx",
            "c6tp2",
            "d8wq4",
            "f2zk7",
            "g5nv9",
            "h7rx3",
            "j9cm6",
            "k2dt8",
            "l4fw1",
            "m6gy5",
            "n8hz2",
            "p1jb7",
        )
    ]
    others = (
        [
            ("cart-7c8d9e1f2-" + s, "app=cart")
            for s in ("5kq2m", "9xw3n", "c2v7p", "h4t8r")
        ]
        + [
            ("frontend-4b5c6d7e8-" + s, "app=frontend")
            for s in ("3mz9q", "6pk2w", "8rn4x", "b7t1c", "d2w5v", "f9y3k")
        ]
        + [
            ("payments-8d9e1f2a3-" + s, "app=payments")
            for s in ("2hq6n", "5jw8m", "7lx2p")
        ]
        + [
            ("email-worker-6e7f8a9b1-" + s, "app=email-worker")
            for s in ("4nb7t", "8qc2z")
        ]
        + [
            ("redis-cart-0", "app=redis-cart"),
            ("search-proxy-3a4b5c6d7-x9k2q", "app=search-proxy"),
            ("recommendations-2c3d4e5f6-r5m8w", "app=recommendations"),
        ]
    )
    rows = [
        (
            p,
            "1/1",
            "Running",
            "0",
            "6d",
            f"10.60.{i % 4}.{20 + i}",
            node[i % 4],
            "app=checkout-api,pod-template-hash=6d5f8b9c7",
        )
        for i, p in enumerate(co)
    ]
    rows[1] = (
        co[1],
        "0/1",
        "Running",
        "0",
        "6d",
        "10.60.1.21",
        node[1],
        "app=checkout-api,pod-template-hash=6d5f8b9c7",
    )
    rows += [
        (
            p,
            "1/1",
            "Running",
            "0",
            "22h",
            f"10.60.{i % 4}.{60 + i}",
            node[i % 4],
            "app=load-test-runner,owner=qa,pod-template-hash=5b6c7d8e9",
        )
        for i, p in enumerate(lt)
    ]
    rows += [
        (p, "1/1", "Running", "0", "9d", f"10.60.{i % 4}.{100 + i}", node[i % 4], lab)
        for i, (p, lab) in enumerate(others)
    ]
    quota_msg = 'Error creating: pods "checkout-api-6d5f8b9c7-{x}" is forbidden: exceeded quota: shop-pods, requested: pods=1, used: pods=40, limited: pods=40'
    k8s = {
        **cluster_basics(
            ns,
            quotas=table(
                [
                    ["NAME", "AGE", "REQUEST", "LIMIT"],
                    ["shop-pods", "365d", "pods: 40/40, requests.cpu: 23100m/48", ""],
                ]
            ),
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(sorted(rows)),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "cart",
                    "4/4",
                    "4",
                    "4",
                    "365d",
                    "cart",
                    "europe-docker.pkg.dev/acme/shop/cart:3.3.0",
                    "app=cart",
                ),
                (
                    "checkout-api",
                    "3/12",
                    "4",
                    "3",
                    "365d",
                    "api",
                    "europe-docker.pkg.dev/acme/shop/checkout-api:12.8.1",
                    "app=checkout-api",
                ),
                (
                    "email-worker",
                    "2/2",
                    "2",
                    "2",
                    "365d",
                    "worker",
                    "europe-docker.pkg.dev/acme/shop/email-worker:1.2.0",
                    "app=email-worker",
                ),
                (
                    "frontend",
                    "6/6",
                    "6",
                    "6",
                    "365d",
                    "web",
                    "europe-docker.pkg.dev/acme/shop/frontend:22.1.0",
                    "app=frontend",
                ),
                (
                    "load-test-runner",
                    "18/18",
                    "18",
                    "18",
                    "22h",
                    "k6",
                    "grafana/k6:0.54.0",
                    "app=load-test-runner",
                ),
                (
                    "payments",
                    "3/3",
                    "3",
                    "3",
                    "365d",
                    "payments",
                    "europe-docker.pkg.dev/acme/shop/payments:7.0.4",
                    "app=payments",
                ),
                (
                    "recommendations",
                    "1/1",
                    "1",
                    "1",
                    "365d",
                    "reco",
                    "europe-docker.pkg.dev/acme/shop/recommendations:2.0.0",
                    "app=recommendations",
                ),
                (
                    "search-proxy",
                    "1/1",
                    "1",
                    "1",
                    "365d",
                    "proxy",
                    "europe-docker.pkg.dev/acme/shop/search-proxy:1.4.2",
                    "app=search-proxy",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "checkout-api-6d5f8b9c7",
                    "12",
                    "4",
                    "3",
                    "6d",
                    "api",
                    "europe-docker.pkg.dev/acme/shop/checkout-api:12.8.1",
                    "app=checkout-api,pod-template-hash=6d5f8b9c7",
                ),
                (
                    "load-test-runner-5b6c7d8e9",
                    "18",
                    "18",
                    "18",
                    "22h",
                    "k6",
                    "grafana/k6:0.54.0",
                    "app=load-test-runner,pod-template-hash=5b6c7d8e9",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                ("cart", "ClusterIP", "10.96.10.4", "8080/TCP", "365d", "app=cart"),
                (
                    "checkout-api",
                    "ClusterIP",
                    "10.96.10.9",
                    "8080/TCP",
                    "365d",
                    "app=checkout-api",
                ),
                (
                    "frontend",
                    "ClusterIP",
                    "10.96.10.2",
                    "80/TCP",
                    "365d",
                    "app=frontend",
                ),
                (
                    "payments",
                    "ClusterIP",
                    "10.96.10.7",
                    "8080/TCP",
                    "365d",
                    "app=payments",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                (
                    "cart",
                    "10.60.0.100:8080,10.60.1.101:8080,10.60.2.102:8080 + 1 more...",
                    "365d",
                ),
                (
                    "checkout-api",
                    "10.60.0.20:8080,10.60.2.22:8080,10.60.3.23:8080",
                    "365d",
                ),
                (
                    "frontend",
                    "10.60.0.104:80,10.60.1.105:80,10.60.2.106:80 + 3 more...",
                    "365d",
                ),
                (
                    "payments",
                    "10.60.2.110:8080,10.60.3.111:8080,10.60.0.112:8080",
                    "365d",
                ),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (n, "Ready", "14d", "v1.31.3-gke.1162000", f"10.132.0.{10 + i}")
                for i, n in enumerate(node)
            ]
        ),
        f"kubectl get horizontalpodautoscalers -n {ns}": table(
            [
                [
                    "NAME",
                    "REFERENCE",
                    "TARGETS",
                    "MINPODS",
                    "MAXPODS",
                    "REPLICAS",
                    "AGE",
                ],
                [
                    "checkout-api",
                    "Deployment/checkout-api",
                    "cpu: 212%/60%",
                    "4",
                    "16",
                    "4",
                    "365d",
                ],
                [
                    "frontend",
                    "Deployment/frontend",
                    "cpu: 48%/60%",
                    "6",
                    "20",
                    "6",
                    "365d",
                ],
            ]
        ),
        f"kubectl describe resourcequotas shop-pods -n {ns}": f"""Name:            shop-pods
Namespace:       {ns}
Resource         Used    Hard
--------         ----    ----
pods             40      40
requests.cpu     23100m  48
""",
        f"kubectl describe replicasets checkout-api-6d5f8b9c7 -n {ns}": f"""Name:           checkout-api-6d5f8b9c7
Namespace:      {ns}
Selector:       app=checkout-api,pod-template-hash=6d5f8b9c7
Labels:         app=checkout-api
                pod-template-hash=6d5f8b9c7
Annotations:    deployment.kubernetes.io/desired-replicas: 12
                deployment.kubernetes.io/max-replicas: 15
                deployment.kubernetes.io/revision: 57
Controlled By:  Deployment/checkout-api
Replicas:       4 current / 12 desired
Pods Status:    4 Running / 0 Waiting / 0 Succeeded / 0 Failed
Conditions:
  Type             Status  Reason
  ----             ------  ------
  ReplicaFailure   True    FailedCreate
Events:
  Type     Reason        Age                 From                   Message
  ----     ------        ----                ----                   -------
  Warning  FailedCreate  22m                 replicaset-controller  {quota_msg.format(x="k8v2q")}
  Warning  FailedCreate  22m                 replicaset-controller  {quota_msg.format(x="m3w7t")}
  Warning  FailedCreate  21m                 replicaset-controller  {quota_msg.format(x="p9x4c")}
  Warning  FailedCreate  40s (x19 over 21m)  replicaset-controller  (combined from similar events): {quota_msg.format(x="z5r8h")}
""",
        f"kubectl events -n {ns}": events(
            [
                (
                    "22m",
                    "Normal",
                    "SuccessfulRescale",
                    "HorizontalPodAutoscaler/checkout-api",
                    "New size: 12; reason: cpu resource utilization (percentage of request) above target",
                ),
                (
                    "22m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/checkout-api",
                    "Scaled up replica set checkout-api-6d5f8b9c7 to 12 from 4",
                ),
                (
                    "40s (x22 over 22m)",
                    "Warning",
                    "FailedCreate",
                    "ReplicaSet/checkout-api-6d5f8b9c7",
                    quota_msg.format(x="z5r8h"),
                ),
                (
                    "1m (x14 over 18m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{co[1]}",
                    'Readiness probe failed: Get "http://10.60.1.21:8080/ready": context deadline exceeded',
                ),
            ]
        ),
        f"kubectl describe deployments load-test-runner -n {ns}": f"""Name:                   load-test-runner
Namespace:              {ns}
CreationTimestamp:      {when(-22 * 3600)}
Labels:                 app=load-test-runner
                        owner=qa
Annotations:            deployment.kubernetes.io/revision: 1
                        qa.acme.io/ticket: QA-1881 soak test, remove after run
Selector:               app=load-test-runner
Replicas:               18 desired | 18 updated | 18 total | 18 available | 0 unavailable
StrategyType:           RollingUpdate
Pod Template:
  Labels:  app=load-test-runner
           owner=qa
  Containers:
   k6:
    Image:      grafana/k6:0.54.0
    Args:       run --vus 5 --duration 24h /scripts/soak.js
    Requests:
      cpu:      100m
      memory:   128Mi
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      True    MinimumReplicasAvailable
  Progressing    True    NewReplicaSetAvailable
Events:          <none>
""",
    }
    bg = [
        {
            "service": "checkout-api",
            "pods": co,
            "every_s": 3,
            "until": start,
            "messages": [
                "POST /v1/checkout 200 {ms}ms",
                "POST /v1/checkout/quote 200 {ms}ms",
            ],
        },
        {
            "service": "checkout-api",
            "pods": co,
            "every_s": 3,
            "from": start,
            "messages": [
                "POST /v1/checkout 200 1{ms}0ms",
                "POST /v1/checkout/quote 200 9{ms}ms",
            ],
        },
        {
            "service": "frontend",
            "pods": [p for p, _ in others if p.startswith("frontend")],
            "every_s": 1.5,
            "messages": ["GET / 200 {ms}ms", "GET /product/{n} 200 {ms}ms"],
        },
        {
            "service": "payments",
            "pods": [p for p, _ in others if p.startswith("payments")],
            "every_s": 5,
            "messages": ["POST /v1/authorize 200 {ms}ms"],
        },
        {
            "service": "load-test-runner",
            "pods": lt,
            "every_s": 120,
            "messages": ["k6 soak: iterations={n} http_req_failed=0.00%"],
        },
    ]
    ev = [
        {
            "service": "frontend",
            "level": "info",
            "at": start - 200,
            "pod": "frontend-4b5c6d7e8-3mz9q",
            "message": "feature flag black-friday-banner enabled (sale starts)",
        },
        {
            "service": "checkout-api",
            "level": "warn",
            "from": start + 60,
            "to": -2,
            "every_s": 12,
            "pods": co,
            "message": "worker saturation: {ms} requests queued, cpu throttled (limit 1000m)",
        },
        {
            "service": "checkout-api",
            "level": "error",
            "from": start + 120,
            "to": -1,
            "every_s": 4,
            "pods": co,
            "message": "POST /v1/checkout 503: request queue full (queued 256, timeout 3000ms)",
        },
        {
            "service": "frontend",
            "level": "error",
            "from": start + 130,
            "to": -1,
            "every_s": 5,
            "pods": [p for p, _ in others if p.startswith("frontend")],
            "message": "checkout failed: upstream checkout-api returned 503",
        },
        {
            "service": "email-worker",
            "level": "error",
            "from": -7000,
            "to": 0,
            "every_s": 800,
            "pods": [p for p, _ in others if p.startswith("email")],
            "message": "SMTP 451 4.7.1 greylisted, will retry (relay smtp.mailgun.org) password=mg_key_1234abcd",
        },
    ]
    return {
        "incident": {
            "title": "Checkout failing during the Black Friday sale",
            "service": "checkout",
            "severity": "sev1",
            "symptoms": [
                "customers get 'please try again' at payment, about 25% of checkouts",
                "checkout latency above 3 s",
                "the sale banner went live 25 minutes ago",
            ],
            "description": "Alert CheckoutSLOBurn fired: checkout error budget burning 14x in namespace shop (GKE prod-europe-west1). Traffic is 3x normal because of the sale.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "admission",
            "root_cause_reason": "FailedCreate",
            "root_cause_component": [
                "resourcequota/shop-pods",
                "shop-pods",
                "replicaset/checkout-api-6d5f8b9c7",
                "deployment/checkout-api",
                "deployment/load-test-runner",
            ],
            "root_cause_signal": "exceeded quota",
            "root_cause": "The sale tripled checkout traffic; checkout-api's HPA asked for 12 pods, but the namespace quota shop-pods is at pods 40/40, 18 of them a QA soak test (load-test-runner, 'remove after run') left running since yesterday. Every new checkout-api pod is refused at admission (FailedCreate: exceeded quota), so four pods carry three times the load, queue and answer 503.",
            "evidence": [
                "kubectl describe rs checkout-api-6d5f8b9c7: 4 current / 12 desired; FailedCreate … exceeded quota: shop-pods, requested: pods=1, used: pods=40, limited: pods=40",
                "kubectl describe quota shop-pods: pods 40/40",
                "deployment load-test-runner: 18 pods, QA-1881 soak test, remove after run",
                "checkout-api logs: request queue full; cpu throttled (a consequence)",
            ],
            "remediation": "Scale load-test-runner to 0 (or delete it); the ReplicaSet then creates the checkout-api pods by itself. Afterwards raise shop-pods for sale days and keep QA load tests in their own namespace.",
        },
        "logs": logs(seed=110, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "checkout-api",
                    "rps": 40,
                    "rps_after": 120,
                    "errors": {"503": (0.0, 0.24)},
                    "latency": (0.18, 3.2),
                },
                {
                    "name": "frontend",
                    "rps": 300,
                    "rps_after": 900,
                    "errors": {"502": (0.0, 0.03)},
                    "latency": (0.06, 0.09),
                },
                {
                    "name": "payments",
                    "rps": 30,
                    "rps_after": 70,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.2, 0.2),
                },
            ],
            start=start,
            seed=110,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "checkout-latency.md": runbook(
                "checkout latency high",
                """
When checkout-api is slow under load, scale it by hand: `kubectl scale deploy/checkout-api -n shop --replicas=12`,
and ask payments whether their PSP is slow.
""",
            ),
        },
    }


# =================================================================================================
# 11. CoreDNS down (a Corefile edit): every service fails lookups; the incident says "login".
# =================================================================================================


@scenario("coredns-crashloop")
def coredns_crashloop() -> dict[str, Any]:
    start = -1250
    ns = "accounts"
    node = [
        "ip-10-70-1-10.eu-north-1.compute.internal",
        "ip-10-70-2-10.eu-north-1.compute.internal",
    ]
    acc = ["accounts-api-5c6d7e8f9-b4wkn", "accounts-api-5c6d7e8f9-r8qzt"]
    sess = ["session-cache-0", "session-cache-1"]
    dns = ["coredns-7b5d9c8f6-h2kxq", "coredns-7b5d9c8f6-t9wzp"]
    corefile_err = 'plugin/forward: not an IP address or file: "10.70.0.2;"'
    lookup = "dial tcp: lookup accounts-db.accounts.svc.cluster.local on 172.20.0.10:53: read udp 10.70.1.{n}:53->172.20.0.10:53: i/o timeout"
    k8s = {
        **cluster_basics(
            ns,
            secrets=[("accounts-db", "Opaque", "3", "500d")],
            extra_namespaces=("kube-system",),
            statefulsets=table(
                [
                    ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                    ["accounts-db", "1/1", "500d", "postgres", "postgres:16.4"],
                    ["session-cache", "2/2", "500d", "redis", "redis:7.4"],
                ]
            ),
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    acc[0],
                    "0/1",
                    "CrashLoopBackOff",
                    "6 (1m ago)",
                    "4d",
                    "10.70.1.31",
                    node[0],
                    "app=accounts-api,pod-template-hash=5c6d7e8f9",
                ),
                (
                    acc[1],
                    "0/1",
                    "Running",
                    "7 (20s ago)",
                    "4d",
                    "10.70.2.32",
                    node[1],
                    "app=accounts-api,pod-template-hash=5c6d7e8f9",
                ),
                (
                    "accounts-db-0",
                    "1/1",
                    "Running",
                    "0",
                    "30d",
                    "10.70.2.11",
                    node[1],
                    "app=accounts-db,statefulset.kubernetes.io/pod-name=accounts-db-0",
                ),
                (
                    sess[0],
                    "1/1",
                    "Running",
                    "0",
                    "30d",
                    "10.70.1.12",
                    node[0],
                    "app=session-cache,statefulset.kubernetes.io/pod-name=session-cache-0",
                ),
                (
                    sess[1],
                    "1/1",
                    "Running",
                    "0",
                    "30d",
                    "10.70.2.13",
                    node[1],
                    "app=session-cache,statefulset.kubernetes.io/pod-name=session-cache-1",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "accounts-api",
                    "0/2",
                    "2",
                    "0",
                    "500d",
                    "api",
                    "registry.acme.io/identity/accounts-api:6.2.0",
                    "app=accounts-api",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "accounts-api-5c6d7e8f9",
                    "2",
                    "2",
                    "0",
                    "4d",
                    "api",
                    "registry.acme.io/identity/accounts-api:6.2.0",
                    "app=accounts-api,pod-template-hash=5c6d7e8f9",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "accounts-api",
                    "ClusterIP",
                    "172.20.31.8",
                    "8080/TCP",
                    "500d",
                    "app=accounts-api",
                ),
                (
                    "accounts-db",
                    "ClusterIP",
                    "172.20.31.9",
                    "5432/TCP",
                    "500d",
                    "app=accounts-db",
                ),
                (
                    "session-cache",
                    "ClusterIP",
                    "None",
                    "6379/TCP",
                    "500d",
                    "app=session-cache",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("accounts-api", "<none>", "500d"),
                ("accounts-db", "10.70.2.11:5432", "500d"),
                ("session-cache", "10.70.1.12:6379,10.70.2.13:6379", "500d"),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (n, "Ready", "25d", "v1.31.2-eks-94953ac", f"10.70.{i + 1}.10")
                for i, n in enumerate(node)
            ]
        ),
        f"kubectl events -n {ns}": events(
            [
                (
                    "1m (x40 over 19m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{acc[0]}",
                    f"Back-off restarting failed container api in pod {acc[0]}_accounts(1a2b3c4d-...)",
                ),
                (
                    "20s (x12 over 19m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{acc[1]}",
                    "Liveness probe failed: HTTP probe failed with statuscode: 500",
                ),
            ]
        ),
        f"kubectl logs {acc[0]} -n {ns} -c api --previous --tail=1000": f"INFO accounts-api 6.2.0 starting\nERROR db ping failed: {lookup.replace('{n}', '31')}\nFATAL cannot reach accounts-db after 10 attempts, exiting\n",
        "kubectl get pods -n kube-system -o wide --show-labels": pods(
            [
                (
                    "aws-node-7xq2m",
                    "2/2",
                    "Running",
                    "0",
                    "25d",
                    "10.70.1.10",
                    node[0],
                    "k8s-app=aws-node",
                ),
                (
                    "aws-node-k4w9d",
                    "2/2",
                    "Running",
                    "0",
                    "25d",
                    "10.70.2.10",
                    node[1],
                    "k8s-app=aws-node",
                ),
                (
                    dns[0],
                    "0/1",
                    "CrashLoopBackOff",
                    "8 (2m ago)",
                    "21m",
                    "10.70.1.40",
                    node[0],
                    "k8s-app=kube-dns,pod-template-hash=7b5d9c8f6",
                ),
                (
                    dns[1],
                    "0/1",
                    "CrashLoopBackOff",
                    "8 (1m ago)",
                    "21m",
                    "10.70.2.41",
                    node[1],
                    "k8s-app=kube-dns,pod-template-hash=7b5d9c8f6",
                ),
                (
                    "kube-proxy-6mz2k",
                    "1/1",
                    "Running",
                    "0",
                    "25d",
                    "10.70.1.10",
                    node[0],
                    "k8s-app=kube-proxy",
                ),
                (
                    "kube-proxy-p8r4t",
                    "1/1",
                    "Running",
                    "0",
                    "25d",
                    "10.70.2.10",
                    node[1],
                    "k8s-app=kube-proxy",
                ),
            ]
        ),
        "kubectl get deployments -n kube-system -o wide": deployments(
            [
                (
                    "coredns",
                    "0/2",
                    "2",
                    "0",
                    "500d",
                    "coredns",
                    "602401143452.dkr.ecr.eu-north-1.amazonaws.com/eks/coredns:v1.11.3-eksbuild.2",
                    "eks.amazonaws.com/component=coredns,k8s-app=kube-dns",
                ),
            ]
        ),
        "kubectl get configmaps -n kube-system": table(
            [
                ["NAME", "DATA", "AGE"],
                ["aws-auth", "1", "500d"],
                ["coredns", "1", "500d"],
                ["kube-proxy", "1", "500d"],
                ["kube-root-ca.crt", "1", "500d"],
            ]
        ),
        "kubectl describe configmaps coredns -n kube-system": """Name:         coredns
Namespace:    kube-system
Labels:       eks.amazonaws.com/component=coredns
              k8s-app=kube-dns
Annotations:  <none>

Data
====
Corefile:
----
.:53 {
    errors
    health {
        lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    prometheus :9153
    forward . 10.70.0.2; 1.1.1.1
    cache 30
    loop
    reload
    loadbalance
}


BinaryData
====

Events:  <none>
""",
        f"kubectl logs {dns[0]} -n kube-system -c coredns --previous --tail=1000": 'plugin/forward: not an IP address or file: "10.70.0.2;"\n',
        f"kubectl logs {dns[0]} -n kube-system -c coredns --tail=1000": 'plugin/forward: not an IP address or file: "10.70.0.2;"\n',
        f"kubectl describe pods {dns[0]} -n kube-system": f"""Name:                 {dns[0]}
Namespace:            kube-system
Priority:             2000000000
Priority Class Name:  system-cluster-critical
Node:                 {node[0]}/10.70.1.10
Labels:               k8s-app=kube-dns
                      pod-template-hash=7b5d9c8f6
Status:               Running
IP:                   10.70.1.40
Controlled By:        ReplicaSet/coredns-7b5d9c8f6
Containers:
  coredns:
    Image:         602401143452.dkr.ecr.eu-north-1.amazonaws.com/eks/coredns:v1.11.3-eksbuild.2
    Args:
      -conf
      /etc/coredns/Corefile
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
    Ready:          False
    Restart Count:  8
    Mounts:
      /etc/coredns from config-volume (ro)
Volumes:
  config-volume:
    Type:      ConfigMap (a volume populated by a ConfigMap)
    Name:      coredns
Events:
  Type     Reason   Age                From     Message
  ----     ------   ----               ----     -------
  Warning  BackOff  2m (x88 over 20m)  kubelet  Back-off restarting failed container coredns in pod {dns[0]}_kube-system
""",
        "kubectl events -n kube-system": events(
            [
                (
                    "21m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/coredns",
                    "Scaled up replica set coredns-7b5d9c8f6 to 1",
                ),
                (
                    "20m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/coredns",
                    "Scaled down replica set coredns-5d8c7b6a4 to 0 from 2",
                ),
                (
                    "2m (x88 over 20m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{dns[0]}",
                    f"Back-off restarting failed container coredns in pod {dns[0]}_kube-system",
                ),
                (
                    "1m (x85 over 20m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{dns[1]}",
                    f"Back-off restarting failed container coredns in pod {dns[1]}_kube-system",
                ),
            ]
        ),
    }
    bg = [
        {
            "service": "accounts-api",
            "pods": acc,
            "every_s": 3,
            "until": start,
            "messages": [
                "POST /v1/login 200 {ms}ms",
                "GET /v1/me 200 {ms}ms",
                "POST /v1/token/refresh 200 {ms}ms",
            ],
        },
        {
            "service": "accounts-db",
            "pods": ["accounts-db-0"],
            "every_s": 300,
            "messages": ["checkpoint complete: wrote {ms} buffers"],
        },
        {
            "service": "session-cache",
            "pods": sess,
            "every_s": 200,
            "messages": [
                "DB saved on disk",
                "Background saving terminated with success",
            ],
        },
    ]
    ev = [
        {
            "service": "coredns",
            "level": "info",
            "at": start - 60,
            "pod": "coredns-5d8c7b6a4-q1w2e",
            "message": "[INFO] Reloading complete",
        },
        {
            "service": "coredns",
            "level": "error",
            "from": start,
            "to": -10,
            "every_s": 150,
            "pods": dns,
            "message": corefile_err,
        },
        {
            "service": "accounts-api",
            "level": "error",
            "from": start + 20,
            "to": -1,
            "every_s": 4,
            "pods": acc,
            "message": "POST /v1/login 500: db: " + lookup,
        },
        {
            "service": "accounts-api",
            "level": "error",
            "from": start + 25,
            "to": -2,
            "every_s": 9,
            "pods": acc,
            "message": "session-cache: dial tcp: lookup session-cache.accounts.svc.cluster.local: i/o timeout",
        },
        {
            "service": "accounts-api",
            "level": "error",
            "from": start + 200,
            "to": -30,
            "every_s": 170,
            "pods": acc,
            "message": "FATAL cannot reach accounts-db after 10 attempts, exiting",
        },
        {
            "service": "accounts-db",
            "level": "warn",
            "from": -7000,
            "to": 0,
            "every_s": 900,
            "pods": ["accounts-db-0"],
            "message": "checkpoints are occurring too frequently (24 seconds apart)",
        },
        {
            "service": "accounts-api",
            "level": "debug",
            "at": -4000,
            "pod": acc[0],
            "message": "oauth client configured client_secret=cs_live_77aa88bb99",
        },
    ]
    return {
        "incident": {
            "title": "Logins failing for everyone",
            "service": "login",
            "severity": "sev1",
            "symptoms": [
                "users get 'something went wrong' on sign-in",
                "accounts-api pods restarting",
                "database warnings about checkpoints",
            ],
            "description": "Alert LoginSuccessRateLow fired: login success below 10% for 5 minutes. A platform change to cluster DNS forwarding was applied this afternoon.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "dns",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "CrashLoopBackOff",
            "root_cause_component": [
                "deployment/coredns",
                "coredns",
                "configmap/coredns",
                "kube-dns",
            ],
            "root_cause_signal": "plugin/forward",
            "root_cause": "A Corefile edit in kube-system/coredns wrote 'forward . 10.70.0.2; 1.1.1.1' (a stray ';'). CoreDNS refuses the file (plugin/forward: not an IP address or file) and both coredns pods crash-loop, so every in-cluster lookup times out. accounts-api cannot resolve accounts-db and session-cache, fails logins and restarts as a victim; accounts-db's checkpoint warnings are old noise.",
            "evidence": [
                "kubectl get pods -n kube-system: coredns-7b5d9c8f6-* CrashLoopBackOff",
                'kubectl logs coredns …: plugin/forward: not an IP address or file: "10.70.0.2;"',
                "configmap coredns: forward . 10.70.0.2; 1.1.1.1",
                "accounts-api: lookup accounts-db.accounts.svc.cluster.local on 172.20.0.10:53: i/o timeout",
            ],
            "remediation": "Fix the Corefile (forward . 10.70.0.2 1.1.1.1) and let the coredns pods restart; then restart accounts-api.",
        },
        "logs": logs(seed=111, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "accounts-api",
                    "rps": 45,
                    "rps_after": 40,
                    "errors": {"500": (0.001, 0.93)},
                    "latency": (0.05, 5.0),
                },
            ],
            start=start,
            seed=111,
            gauges=[
                {
                    "name": "up",
                    "labels": {"job": "coredns", "instance": "10.70.1.40:9153"},
                    "before": 1,
                    "after": 0,
                    "noise": 0,
                    "change_at": start - 30,
                },
                {
                    "name": "up",
                    "labels": {"job": "coredns", "instance": "10.70.2.41:9153"},
                    "before": 1,
                    "after": 0,
                    "noise": 0,
                    "change_at": start - 30,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "accounts-api-db-errors.md": runbook(
                "accounts-api cannot reach its database",
                """
If accounts-api logs database errors, accounts-db is probably overloaded (see the checkpoint warnings).
Fail over to the standby: `kubectl exec accounts-db-0 -n accounts -- patronictl failover`.
""",
            ),
        },
    }


# =================================================================================================
# 12. Image tag missing: notification-sender 2.9.0 was never pushed; Recreate took the old pods down.
# =================================================================================================


@scenario("image-tag-missing")
def image_tag_missing() -> dict[str, Any]:
    start = -1700
    ns = "notify"
    node = ["ip-10-90-1-4.ec2.internal", "ip-10-90-2-4.ec2.internal"]
    snd = ["notification-sender-7f6e5d4c3-6hq2x", "notification-sender-7f6e5d4c3-s9kwm"]
    auth = ["auth-api-5a4b3c2d1-4mpx8", "auth-api-5a4b3c2d1-v7nq3"]
    relay = ["smtp-relay-0"]
    image = "registry.acme.io/notify/sender:2.9.0"
    pull = f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack image "{image}": failed to resolve reference "{image}": {image}: not found'
    k8s = {
        **cluster_basics(
            ns,
            configmaps=[("sender-templates", "14", "200d")],
            extra_namespaces=("identity",),
            statefulsets=table(
                [
                    ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                    [
                        "smtp-relay",
                        "1/1",
                        "200d",
                        "postfix",
                        "registry.acme.io/notify/postfix:3.8-r2",
                    ],
                ]
            ),
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    snd[0],
                    "0/1",
                    "ImagePullBackOff",
                    "0",
                    "27m",
                    "10.90.1.31",
                    node[0],
                    "app=notification-sender,pod-template-hash=7f6e5d4c3",
                ),
                (
                    snd[1],
                    "0/1",
                    "ErrImagePull",
                    "0",
                    "27m",
                    "10.90.2.32",
                    node[1],
                    "app=notification-sender,pod-template-hash=7f6e5d4c3",
                ),
                (
                    relay[0],
                    "1/1",
                    "Running",
                    "0",
                    "33d",
                    "10.90.2.20",
                    node[1],
                    "app=smtp-relay,statefulset.kubernetes.io/pod-name=smtp-relay-0",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "notification-sender",
                    "0/2",
                    "2",
                    "0",
                    "200d",
                    "sender",
                    image,
                    "app=notification-sender",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "notification-sender-5e4d3c2b1",
                    "0",
                    "0",
                    "0",
                    "16d",
                    "sender",
                    "registry.acme.io/notify/sender:2.8.3",
                    "app=notification-sender,pod-template-hash=5e4d3c2b1",
                ),
                (
                    "notification-sender-7f6e5d4c3",
                    "2",
                    "2",
                    "0",
                    "27m",
                    "sender",
                    image,
                    "app=notification-sender,pod-template-hash=7f6e5d4c3",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "smtp-relay",
                    "ClusterIP",
                    "172.20.9.25",
                    "25/TCP",
                    "200d",
                    "app=smtp-relay",
                )
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [("smtp-relay", "10.90.2.20:25", "200d")]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (n, "Ready", "9d", "v1.31.2-eks-94953ac", f"10.90.{i + 1}.4")
                for i, n in enumerate(node)
            ]
        ),
        f"kubectl events -n {ns}": events(
            [
                (
                    "28m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/notification-sender",
                    "Scaled down replica set notification-sender-5e4d3c2b1 to 0 from 2",
                ),
                (
                    "27m",
                    "Normal",
                    "ScalingReplicaSet",
                    "Deployment/notification-sender",
                    "Scaled up replica set notification-sender-7f6e5d4c3 to 2",
                ),
                (
                    "27m",
                    "Normal",
                    "Pulling",
                    f"Pod/{snd[0]}",
                    f'Pulling image "{image}"',
                ),
                ("27m", "Warning", "Failed", f"Pod/{snd[0]}", pull),
                (
                    "2m (x110 over 27m)",
                    "Normal",
                    "BackOff",
                    f"Pod/{snd[0]}",
                    f'Back-off pulling image "{image}"',
                ),
                (
                    "2m (x112 over 27m)",
                    "Warning",
                    "Failed",
                    f"Pod/{snd[0]}",
                    "Error: ImagePullBackOff",
                ),
                ("40s (x8 over 27m)", "Warning", "Failed", f"Pod/{snd[1]}", pull),
            ]
        ),
        f"kubectl describe pods {snd[0]} -n {ns}": f"""Name:             {snd[0]}
Namespace:        {ns}
Priority:         0
Service Account:  notification-sender
Node:             {node[0]}/10.90.1.4
Start Time:       {when(-1640)}
Labels:           app=notification-sender
                  pod-template-hash=7f6e5d4c3
Status:           Pending
IP:               10.90.1.31
Controlled By:    ReplicaSet/notification-sender-7f6e5d4c3
Containers:
  sender:
    Image:          {image}
    Image ID:
    Port:           8080/TCP
    State:          Waiting
      Reason:       ImagePullBackOff
    Ready:          False
    Restart Count:  0
    Environment:
      SMTP_HOST:    smtp-relay.notify.svc
      QUEUE_URL:    amqp://rabbitmq.identity.svc:5672/notify
Conditions:
  Type              Status
  Initialized       True
  Ready             False
  ContainersReady   False
  PodScheduled      True
QoS Class:                   BestEffort
{TOLERATIONS}
Events:
  Type     Reason     Age                  From               Message
  ----     ------     ----                 ----               -------
  Normal   Scheduled  27m                  default-scheduler  Successfully assigned notify/{snd[0]} to {node[0]}
  Normal   Pulling    27m (x4 over 27m)    kubelet            Pulling image "{image}"
  Warning  Failed     27m (x4 over 27m)    kubelet            {pull}
  Warning  Failed     27m (x4 over 27m)    kubelet            Error: ErrImagePull
  Normal   BackOff    2m (x110 over 27m)   kubelet            Back-off pulling image "{image}"
  Warning  Failed     2m (x112 over 27m)   kubelet            Error: ImagePullBackOff
""",
        f"kubectl describe deployments notification-sender -n {ns}": f"""Name:               notification-sender
Namespace:          {ns}
CreationTimestamp:  {when(-200 * 86400)}
Labels:             app=notification-sender
Annotations:        deployment.kubernetes.io/revision: 37
                    argocd.argoproj.io/tracking-id: notify:apps/Deployment:notify/notification-sender
Selector:           app=notification-sender
Replicas:           2 desired | 2 updated | 2 total | 0 available | 2 unavailable
StrategyType:       Recreate
Pod Template:
  Labels:  app=notification-sender
  Containers:
   sender:
    Image:      {image}
    Port:       8080/TCP
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      False   MinimumReplicasUnavailable
  Progressing    True    ReplicaSetUpdated
OldReplicaSets:  notification-sender-5e4d3c2b1 (0/0 replicas created)
NewReplicaSet:   notification-sender-7f6e5d4c3 (2/2 replicas created)
Events:
  Type    Reason             Age   From                   Message
  ----    ------             ----  ----                   -------
  Normal  ScalingReplicaSet  28m   deployment-controller  Scaled down replica set notification-sender-5e4d3c2b1 to 0 from 2
  Normal  ScalingReplicaSet  27m   deployment-controller  Scaled up replica set notification-sender-7f6e5d4c3 to 2
""",
    }
    bg = [
        {
            "service": "auth-api",
            "pods": auth,
            "every_s": 3,
            "messages": ["POST /v1/login 200 {ms}ms", "GET /v1/session 200 {ms}ms"],
        },
        {
            "service": "auth-api",
            "pods": auth,
            "every_s": 40,
            "messages": ["POST /v1/password-reset 202 {ms}ms (email queued)"],
        },
        {
            "service": "notification-sender",
            "pods": [
                "notification-sender-5e4d3c2b1-2kx8d",
                "notification-sender-5e4d3c2b1-q7wz4",
            ],
            "every_s": 20,
            "until": start - 60,
            "messages": [
                "sent template=password_reset to=***@*** in {ms}ms",
                "sent template=order_confirmation to=***@*** in {ms}ms",
            ],
        },
        {
            "service": "smtp-relay",
            "pods": relay,
            "every_s": 25,
            "until": start - 60,
            "messages": ["status=sent (250 2.0.0 Ok: queued as {n})"],
        },
    ]
    ev = [
        {
            "service": "ci",
            "level": "error",
            "at": start - 900,
            "pod": "gitlab-runner-notify",
            "message": "pipeline notify/sender#4412 job 'docker-push' failed: denied: requested access to the resource is denied (registry.acme.io/notify/sender:2.9.0 not pushed)",
        },
        {
            "service": "ci",
            "level": "info",
            "at": start - 130,
            "pod": "argocd-application-controller-0",
            "message": "sync notify: notification-sender image sender:2.8.3 -> sender:2.9.0 (auto-sync, tag from values-prod.yaml)",
        },
        {
            "service": "auth-api",
            "level": "warn",
            "from": start + 300,
            "to": -5,
            "every_s": 60,
            "pods": auth,
            "message": "notification queue depth {n} (consumer notification-sender: 0 consumers)",
        },
        {
            "service": "smtp-relay",
            "level": "error",
            "at": -6100,
            "pod": relay[0],
            "message": "421 4.7.0 too many connections from 10.90.1.31, try later",
        },
        {
            "service": "smtp-relay",
            "level": "warn",
            "at": -6000,
            "pod": relay[0],
            "message": "sasl login user=relay password=Sm7pR3lay! from 10.90.1.31 rate limited",
        },
    ]
    return {
        "incident": {
            "title": "Password reset emails not arriving",
            "service": "auth",
            "severity": "sev2",
            "symptoms": [
                "users request a password reset but get no email",
                "auth-api accepts the reset (202)",
                "smtp-relay had connection errors this morning",
            ],
            "description": "Support ticket surge about missing reset emails. Alert NotifyQueueBacklog fired 20 minutes ago: the notify queue has no consumer.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "startup",
            "root_cause_reason": "ImagePullBackOff",
            "root_cause_component": [
                "deployment/notification-sender",
                "notification-sender",
                "replicaset/notification-sender-7f6e5d4c3",
            ],
            "root_cause_signal": "failed to resolve reference",
            "root_cause": "Argo CD deployed notification-sender 2.9.0, but CI never pushed that tag (the docker-push job failed). The registry answers not found, both pods sit in ErrImagePull / ImagePullBackOff, and strategy Recreate had already stopped the 2.8.3 pods, so nothing consumes the notify queue. auth-api keeps queueing emails; smtp-relay's errors are from the morning.",
            "evidence": [
                "kubectl get pods: notification-sender-7f6e5d4c3-* ImagePullBackOff / ErrImagePull",
                'events: failed to resolve reference "registry.acme.io/notify/sender:2.9.0": … not found',
                "deployment notification-sender: StrategyType Recreate, 0 available",
                "CI: docker-push of sender:2.9.0 failed",
            ],
            "remediation": "Roll notification-sender back to 2.8.3 (or push 2.9.0), then watch the queue drain; make Argo CD image updates wait for the image to exist, and use RollingUpdate.",
        },
        "logs": logs(seed=112, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "auth-api",
                    "rps": 30,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.04, 0.04),
                },
            ],
            start=start,
            seed=112,
            gauges=[
                {
                    "name": "rabbitmq_queue_messages",
                    "labels": {"queue": "notify"},
                    "before": 3,
                    "after": 2400,
                    "noise": 0.3,
                }
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "emails-not-delivered.md": runbook(
                "Emails not delivered",
                """
Missing emails are nearly always the SMTP relay: check smtp-relay's log for 421 'too many connections'
and restart it: `kubectl delete pod smtp-relay-0 -n notify`.
""",
            ),
        },
    }


# =================================================================================================
# 13. cert-manager renewal failing: the ACME HTTP-01 challenge 404s since an ingress class change.
# =================================================================================================


@scenario("cert-manager-renewal")
def cert_manager_renewal() -> dict[str, Any]:
    start = -2400
    ns = "edge"
    cm = ["cert-manager-6d8f7c9b5-k2pwx"]
    ctrl = ["ingress-nginx-public-controller-7c9d8-5tqxw"]
    challenge_err = "propagation check failed: wrong status code '404', expected '200' (http://api.acme-shop.example/.well-known/acme-challenge/Kx8vY3rT0qLm)"
    k8s = {
        **cluster_basics(
            ns,
            secrets=[
                ("api-acme-shop-tls", "kubernetes.io/tls", "2", "400d"),
                ("www-acme-shop-tls", "kubernetes.io/tls", "2", "400d"),
            ],
            extra_namespaces=("cert-manager", "ingress-nginx"),
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    "mobile-api-5d4c3b2a1-8kq2z",
                    "1/1",
                    "Running",
                    "0",
                    "12d",
                    "10.3.1.40",
                    "ip-10-3-1-5.ec2.internal",
                    "app=mobile-api,pod-template-hash=5d4c3b2a1",
                ),
                (
                    "mobile-api-5d4c3b2a1-w4nx7",
                    "1/1",
                    "Running",
                    "0",
                    "12d",
                    "10.3.2.41",
                    "ip-10-3-2-5.ec2.internal",
                    "app=mobile-api,pod-template-hash=5d4c3b2a1",
                ),
                (
                    "cm-acme-http-solver-x7k2p",
                    "1/1",
                    "Running",
                    "0",
                    "2d",
                    "10.3.1.60",
                    "ip-10-3-1-5.ec2.internal",
                    "acme.cert-manager.io/http01-solver=true",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "mobile-api",
                    "2/2",
                    "2",
                    "2",
                    "400d",
                    "api",
                    "registry.acme.io/edge/mobile-api:9.1.0",
                    "app=mobile-api",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "mobile-api-5d4c3b2a1",
                    "2",
                    "2",
                    "2",
                    "12d",
                    "api",
                    "registry.acme.io/edge/mobile-api:9.1.0",
                    "app=mobile-api,pod-template-hash=5d4c3b2a1",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "cm-acme-http-solver-9qtzk",
                    "NodePort",
                    "172.20.3.99",
                    "8089:31877/TCP",
                    "2d",
                    "acme.cert-manager.io/http01-solver=true",
                ),
                (
                    "mobile-api",
                    "ClusterIP",
                    "172.20.3.40",
                    "8080/TCP",
                    "400d",
                    "app=mobile-api",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("cm-acme-http-solver-9qtzk", "10.3.1.60:8089", "2d"),
                ("mobile-api", "10.3.1.40:8080,10.3.2.41:8080", "400d"),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (
                    "ip-10-3-1-5.ec2.internal",
                    "Ready",
                    "50d",
                    "v1.31.2-eks-94953ac",
                    "10.3.1.5",
                ),
                (
                    "ip-10-3-2-5.ec2.internal",
                    "Ready",
                    "50d",
                    "v1.31.2-eks-94953ac",
                    "10.3.2.5",
                ),
            ]
        ),
        f"kubectl get ingresses -n {ns}": table(
            [
                ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
                [
                    "api-public",
                    "nginx-public",
                    "api.acme-shop.example",
                    "a1b2c3.elb.us-east-1.amazonaws.com",
                    "80, 443",
                    "400d",
                ],
                [
                    "cm-acme-http-solver-4wzcx",
                    "nginx",
                    "api.acme-shop.example",
                    "",
                    "80",
                    "2d",
                ],
            ]
        ),
        f"kubectl describe ingresses cm-acme-http-solver-4wzcx -n {ns}": f"""Name:             cm-acme-http-solver-4wzcx
Labels:           acme.cert-manager.io/http-domain=1045218827
                  acme.cert-manager.io/http-token=1197463612
                  acme.cert-manager.io/http01-solver=true
Namespace:        {ns}
Address:
Ingress Class:    nginx
Default backend:  <default>
Rules:
  Host                   Path  Backends
  ----                   ----  --------
  api.acme-shop.example
                         /.well-known/acme-challenge/Kx8vY3rT0qLm   cm-acme-http-solver-9qtzk:8089 (10.3.1.60:8089)
Annotations:             nginx.ingress.kubernetes.io/whitelist-source-range: 0.0.0.0/0,::/0
Events:                  <none>
""",
        f"kubectl events -n {ns}": events(
            [
                (
                    "4m (x190 over 2d)",
                    "Warning",
                    "PresentError",
                    "Challenge/api-acme-shop-1-3318201-2764191",
                    "Error presenting challenge: " + challenge_err,
                ),
                (
                    "41m",
                    "Warning",
                    "Failed",
                    "Certificate/api-acme-shop",
                    'The certificate request has failed to complete and will be retried: Failed to wait for order resource "api-acme-shop-1-3318201" to become ready: order is in "invalid" state',
                ),
                (
                    "40m",
                    "Normal",
                    "Issuing",
                    "Certificate/api-acme-shop",
                    "Renewing certificate as renewal was scheduled at 2026-11-05 13:20:00 +0000 UTC",
                ),
            ]
        ),
        "kubectl get pods -n cert-manager -o wide --show-labels": pods(
            [
                (
                    cm[0],
                    "1/1",
                    "Running",
                    "0",
                    "70d",
                    "10.3.2.70",
                    "ip-10-3-2-5.ec2.internal",
                    "app=cert-manager,app.kubernetes.io/instance=cert-manager",
                ),
            ]
        ),
        f"kubectl logs {cm[0]} -n cert-manager --tail=1000": (
            'E1205 13:20:11.402 1 sync.go:190] "propagation check failed" err="wrong status code \'404\', expected \'200\'" logger="cert-manager.controller" resource_name="api-acme-shop-1-3318201-2764191" resource_namespace="edge" resource_kind="Challenge" dnsName="api.acme-shop.example" type="HTTP-01"\n'
            'I1205 13:21:00.008 1 conditions.go:192] Found status change for Certificate "api-acme-shop" condition "Ready": "True" -> "False"; setting lastTransitionTime\n'
        ),
    }
    bg = [
        {
            "service": "mobile-api",
            "pods": ["mobile-api-5d4c3b2a1-8kq2z", "mobile-api-5d4c3b2a1-w4nx7"],
            "every_s": 2,
            "until": start,
            "messages": [
                "GET /v3/feed 200 {ms}ms",
                "GET /v3/orders 200 {ms}ms",
                "POST /v3/cart 200 {ms}ms",
            ],
        },
        {
            "service": "mobile-api",
            "pods": ["mobile-api-5d4c3b2a1-8kq2z", "mobile-api-5d4c3b2a1-w4nx7"],
            "every_s": 40,
            "from": start,
            "messages": ["GET /v3/feed 200 {ms}ms (web client)"],
        },
        {
            "service": "ingress-nginx-public",
            "pods": ctrl,
            "every_s": 3,
            "until": start,
            "messages": [
                'api.acme-shop.example "GET /v3/feed HTTP/2.0" 200 {n} {ms}ms'
            ],
        },
    ]
    ev = [
        {
            "service": "cert-manager",
            "level": "error",
            "from": -7100,
            "to": -5,
            "every_s": 600,
            "pods": cm,
            "message": '"propagation check failed" err="wrong status code \'404\', expected \'200\'" resource_kind="Challenge" dnsName="api.acme-shop.example" type="HTTP-01"',
        },
        {
            "service": "cert-manager",
            "level": "warn",
            "at": -2460,
            "pod": cm[0],
            "message": "Certificate edge/api-acme-shop condition Ready True -> False: the certificate expired at 2026-12-05 13:20:00 +0000 UTC and renewal has not succeeded",
        },
        {
            "service": "ingress-nginx-public",
            "level": "warn",
            "from": start,
            "to": -3,
            "every_s": 8,
            "pods": ctrl,
            "message": "SSL_do_handshake() failed (SSL: error:0A000418:SSL routines::tlsv1 alert unknown ca) while SSL handshaking, client: 198.51.100.{ms}, server: 0.0.0.0:443",
        },
        {
            "service": "ingress-nginx",
            "level": "warn",
            "from": -7000,
            "to": 0,
            "every_s": 500,
            "pods": ["ingress-nginx-controller-5b6c7-x2w9q"],
            "message": "ignoring ingress edge/cm-acme-http-solver-4wzcx: class nginx is served by the legacy controller, host api.acme-shop.example is not on its load balancer",
        },
        {
            "service": "mobile-api",
            "level": "error",
            "at": -6300,
            "pod": "mobile-api-5d4c3b2a1-8kq2z",
            "message": "push provider APNs returned 410 for device token (expired), Authorization: Bearer apns_3f4e5d6c7b",
        },
    ]
    return {
        "incident": {
            "title": "Mobile app: 'cannot connect securely' for all users",
            "service": "mobile-api",
            "severity": "sev1",
            "symptoms": [
                "the iOS and Android apps fail every request with a TLS error",
                "mobile-api pods are healthy and idle",
                "the website still works",
            ],
            "description": "App store reviews and support report the app is down. Alert MobileApiTrafficDrop fired: requests down 95% for 15 minutes. The public ingress was moved to the new nginx-public class last week.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "tls",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "CertificateRenewalFailed",
            "root_cause_component": [
                "api.acme-shop.example",
                "api-public",
                "certificate/api-acme-shop",
                "cert-manager",
            ],
            "root_cause_signal": "certificate_expired",
            "root_cause": "api.acme-shop.example's certificate (cert-manager Certificate edge/api-acme-shop) expired 40 minutes ago: renewal has failed for two days because the ACME HTTP-01 solver ingress is created with class nginx, which the legacy controller serves on another load balancer since api-public moved to nginx-public; Let's Encrypt's check gets 404. Clients reject the expired certificate, so mobile-api sees almost no traffic.",
            "evidence": [
                "probe api-public: tls/certificate_expired",
                "cert-manager logs: propagation check failed: wrong status code '404', expected '200' for api.acme-shop.example (HTTP-01)",
                "events: Certificate/api-acme-shop Failed; Challenge PresentError",
                "ingresses: api-public class nginx-public, solver cm-acme-http-solver class nginx",
            ],
            "remediation": "Set the ClusterIssuer's HTTP-01 solver ingress class to nginx-public (or use DNS-01), delete the failed CertificateRequest so cert-manager retries, and alert on certificate expiry 14 days ahead.",
            "root_cause_probe": "api-public",
            "netcheck": {
                "api-public": {"failed_layer": "tls", "reason": "certificate_expired"},
                "www": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=113, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "mobile-api",
                    "rps": 70,
                    "rps_after": 3,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.05, 0.05),
                }
            ],
            start=start,
            seed=113,
            gauges=[
                {
                    "name": "certmanager_certificate_expiration_timestamp_seconds",
                    "labels": {"name": "api-acme-shop", "namespace": ns},
                    "before": 1733404800,
                    "after": 1733404800,
                    "noise": 0,
                }
            ],
        ),
        "kubernetes": k8s,
        "targets": [
            {
                "name": "api-public",
                "url": "https://api.acme-shop.example/v3/health",
                "fault": {"kind": "tls_expired", "expired_s_ago": 2400},
            },
            {
                "name": "www",
                "url": "https://www.acme-shop.example/",
                "fault": {"kind": "ok", "body": "<html>acme shop</html>"},
            },
        ],
        "runbooks": {
            "mobile-api-traffic-drop.md": runbook(
                "mobile-api traffic drop",
                """
A traffic drop on mobile-api usually follows a bad app release. Check the app store rollout and
halt it; if the API itself returns errors, roll back mobile-api.
""",
            ),
        },
    }


# =================================================================================================
# 14. A DNS record pointing at a wrong address: bank-gateway's A record now names a decommissioned IP.
# =================================================================================================


@scenario("dns-record-wrong-address")
def dns_record_wrong_address() -> dict[str, Any]:
    start = -1500
    pw = ["payouts-worker-0", "payouts-worker-1"]
    pa = ["payouts-api-0", "payouts-api-1"]
    bg = [
        {
            "service": "payouts-api",
            "pods": pa,
            "every_s": 6,
            "messages": [
                "POST /v1/payouts 202 {ms}ms (queued)",
                "GET /v1/payouts/{n} 200 {ms}ms",
            ],
        },
        {
            "service": "payouts-worker",
            "pods": pw,
            "every_s": 9,
            "until": start,
            "messages": [
                "transfer {n} sent to bank-gateway.corp.internal (10.20.8.31:443) in 2{ms}ms",
                "POST https://bank-gateway.corp.internal/v2/transfers 201 {ms}ms",
            ],
        },
        {
            "service": "fraud-scorer",
            "pods": ["fraud-scorer-0"],
            "every_s": 12,
            "messages": ["scored payout {n}: 0.0{ms}"],
        },
    ]
    ev = [
        {
            "service": "infra-audit",
            "level": "info",
            "at": start - 90,
            "pod": "terraform-runner",
            "message": "route53 change C04127XZ applied by terraform run network-cleanup-117: UPSERT A bank-gateway.corp.internal 10.20.4.17 TTL 300 (was 10.20.8.31)",
        },
        {
            "service": "payouts-worker",
            "level": "error",
            "from": start + 200,
            "to": -2,
            "every_s": 6,
            "pods": pw,
            "message": 'transfer {n} failed: Post "https://bank-gateway.corp.internal/v2/transfers": dial tcp 10.20.4.17:443: connect: connection refused',
        },
        {
            "service": "payouts-worker",
            "level": "warn",
            "from": start + 260,
            "to": -5,
            "every_s": 60,
            "pods": pw,
            "message": "retry queue depth {n}; oldest transfer waiting {ms} min",
        },
        {
            "service": "fraud-scorer",
            "level": "warn",
            "from": -7000,
            "to": 0,
            "every_s": 400,
            "pods": ["fraud-scorer-0"],
            "message": "model v14 feature drift: amount_zscore p99 3.{ms}",
        },
        {
            "service": "fraud-scorer",
            "level": "error",
            "at": -5200,
            "pod": "fraud-scorer-0",
            "message": "feature store timeout (retry ok) api_key=fs_live_0099aabb",
        },
    ]
    return {
        "incident": {
            "title": "Payouts delayed: bank transfers failing",
            "service": "payouts",
            "severity": "sev2",
            "symptoms": [
                "payouts accepted but not paid out for 20 minutes",
                "payouts-worker logs connection refused to the bank gateway",
                "the bank's status page shows no incident",
            ],
            "description": "Alert PayoutsTransferFailures fired: transfer failure ratio above 90% for 10 minutes in namespace payouts. A network clean-up was applied this afternoon.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "dns",
            "root_cause_component": ["bank-gateway.corp.internal", "bank-gateway"],
            "root_cause_signal": "10.20.4.17",
            "root_cause": "Terraform run network-cleanup-117 rewrote the A record of bank-gateway.corp.internal from 10.20.8.31 to 10.20.4.17, the address of the decommissioned old gateway. Once the 300 s TTL ran out, payouts-worker connects to 10.20.4.17, where nothing listens (connection refused). The bank's gateway itself is fine at 10.20.8.31.",
            "evidence": [
                "infra-audit: UPSERT A bank-gateway.corp.internal 10.20.4.17 (was 10.20.8.31) just before the start",
                "payouts-worker: dial tcp 10.20.4.17:443: connect: connection refused (before: 10.20.8.31:443, 201)",
                "probe bank-gateway: connect refused; bank-gateway-by-ip (the old address): healthy",
            ],
            "remediation": "Restore the A record to 10.20.8.31 (revert the terraform change), wait out the TTL, then replay the retry queue.",
            "netcheck": {
                "bank-gateway": {"failed_layer": "connect", "reason": "refused"},
                "bank-gateway-by-ip": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=114, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "payouts-api",
                    "rps": 5,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.03, 0.03),
                },
                {
                    "name": "payouts-worker",
                    "rps": 3,
                    "errors": {"502": (0.0, 0.95)},
                    "latency": (0.2, 0.002),
                    "change_at": start + 200,
                },
            ],
            start=start,
            seed=114,
        ),
        "targets": [
            {
                "name": "bank-gateway",
                "url": "https://bank-gateway.corp.internal/health",
                "fault": {"kind": "connect_refused"},
            },
            {
                "name": "bank-gateway-by-ip",
                "url": "http://127.0.0.1/health",
                "fault": {
                    "kind": "ok",
                    "body": '{"status":"up","gateway":"10.20.8.31"}',
                },
            },
        ],
        "runbooks": {
            "bank-transfer-failures.md": runbook(
                "Bank transfer failures",
                """
When transfers fail, the bank's gateway is usually in maintenance. Check the bank's status page and
pause payouts (`payouts-admin pause`) until it is back; nothing to fix on our side.
""",
            ),
        },
    }


# =================================================================================================
# 15. One replica of several failing: one cart-api pod still writes to the old Redis primary.
#     The incident names "cart"; /healthz stays 200 on that pod.
# =================================================================================================


@scenario("one-replica-failing")
def one_replica_failing() -> dict[str, Any]:
    start = -1800
    ns = "cart"
    node = [
        "ip-10-1-2-88.ec2.internal",
        "ip-10-1-3-21.ec2.internal",
        "ip-10-1-4-9.ec2.internal",
    ]
    cart = [
        "cart-api-5c7d9b8f6-q2w7x",
        "cart-api-5c7d9b8f6-h8m4n",
        "cart-api-5c7d9b8f6-z6k1p",
    ]
    bad = cart[0]
    k8s = {
        **cluster_basics(
            ns,
            configmaps=[("cart-api-config", "5", "260d")],
            statefulsets=table(
                [
                    ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                    [
                        "redis",
                        "3/3",
                        "260d",
                        "redis,sentinel",
                        "redis:7.2.5,redis:7.2.5",
                    ],
                ]
            ),
        ),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    cart[0],
                    "1/1",
                    "Running",
                    "0",
                    "3d",
                    "10.1.2.50",
                    node[0],
                    "app=cart-api,pod-template-hash=5c7d9b8f6",
                ),
                (
                    cart[1],
                    "1/1",
                    "Running",
                    "0",
                    "3d",
                    "10.1.3.51",
                    node[1],
                    "app=cart-api,pod-template-hash=5c7d9b8f6",
                ),
                (
                    cart[2],
                    "1/1",
                    "Running",
                    "0",
                    "3d",
                    "10.1.4.52",
                    node[2],
                    "app=cart-api,pod-template-hash=5c7d9b8f6",
                ),
                (
                    "redis-0",
                    "2/2",
                    "Running",
                    "1 (31m ago)",
                    "40d",
                    "10.1.3.21",
                    node[1],
                    "app=redis,statefulset.kubernetes.io/pod-name=redis-0",
                ),
                (
                    "redis-1",
                    "2/2",
                    "Running",
                    "0",
                    "40d",
                    "10.1.4.9",
                    node[2],
                    "app=redis,statefulset.kubernetes.io/pod-name=redis-1",
                ),
                (
                    "redis-2",
                    "2/2",
                    "Running",
                    "0",
                    "40d",
                    "10.1.2.70",
                    node[0],
                    "app=redis,statefulset.kubernetes.io/pod-name=redis-2",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "cart-api",
                    "3/3",
                    "3",
                    "3",
                    "260d",
                    "api",
                    "registry.acme.io/cart/cart-api:5.6.2",
                    "app=cart-api",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "cart-api-5c7d9b8f6",
                    "3",
                    "3",
                    "3",
                    "3d",
                    "api",
                    "registry.acme.io/cart/cart-api:5.6.2",
                    "app=cart-api,pod-template-hash=5c7d9b8f6",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "cart-api",
                    "ClusterIP",
                    "172.20.50.3",
                    "8080/TCP",
                    "260d",
                    "app=cart-api",
                ),
                (
                    "redis",
                    "ClusterIP",
                    "None",
                    "6379/TCP,26379/TCP",
                    "260d",
                    "app=redis",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("cart-api", "10.1.2.50:8080,10.1.3.51:8080,10.1.4.52:8080", "260d"),
                (
                    "redis",
                    "10.1.2.70:6379,10.1.3.21:6379,10.1.4.9:6379 + 3 more...",
                    "260d",
                ),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (
                    n,
                    "Ready",
                    "40d",
                    "v1.31.2-eks-94953ac",
                    n.split(".")[0][3:].replace("-", "."),
                )
                for n in node
            ]
        ),
        f"kubectl events -n {ns}": events(
            [
                (
                    "31m",
                    "Normal",
                    "Killing",
                    "Pod/redis-0",
                    "Container redis failed liveness probe, will be restarted",
                ),
                (
                    "31m",
                    "Warning",
                    "Unhealthy",
                    "Pod/redis-0",
                    "Liveness probe failed: Timeout: redis-cli PING did not answer in 5s",
                ),
                ("30m", "Normal", "Started", "Pod/redis-0", "Started container redis"),
            ]
        ),
        f"kubectl logs {bad} -n {ns} -c api --tail=1000": "\n".join(
            [
                'level=error msg="POST /v1/carts/8812/items 500" err="READONLY You can\'t write against a read only replica." redis=10.1.3.21:6379',
                'level=error msg="PUT /v1/carts/9110 500" err="READONLY You can\'t write against a read only replica." redis=10.1.3.21:6379',
                'level=info msg="GET /healthz 200" redis_ping=PONG',
                'level=error msg="POST /v1/carts/7715/items 500" err="READONLY You can\'t write against a read only replica." redis=10.1.3.21:6379',
            ]
        )
        + "\n",
        f"kubectl logs {cart[1]} -n {ns} -c api --tail=1000": 'level=info msg="POST /v1/carts/8813/items 201" redis=10.1.4.9:6379\nlevel=info msg="sentinel: master changed to 10.1.4.9:6379, pool reset"\nlevel=info msg="GET /healthz 200" redis_ping=PONG\n',
    }
    bg = [
        {
            "service": "cart-api",
            "pods": cart,
            "every_s": 2,
            "until": start,
            "messages": [
                "POST /v1/carts/{n}/items 201 {ms}ms",
                "GET /v1/carts/{n} 200 {ms}ms",
            ],
        },
        {
            "service": "cart-api",
            "pods": cart[1:],
            "every_s": 3,
            "from": start,
            "messages": [
                "POST /v1/carts/{n}/items 201 {ms}ms",
                "GET /v1/carts/{n} 200 {ms}ms",
            ],
        },
        {
            "service": "cart-api",
            "pods": [bad],
            "every_s": 8,
            "from": start,
            "messages": ["GET /v1/carts/{n} 200 {ms}ms"],
        },
        {
            "service": "web",
            "pods": ["web-1", "web-2"],
            "every_s": 2,
            "messages": ["GET /cart 200 {ms}ms"],
        },
    ]
    ev = [
        {
            "service": "redis",
            "level": "warn",
            "at": start - 30,
            "pod": "redis-1",
            "message": "+switch-master mymaster 10.1.3.21 6379 10.1.4.9 6379",
        },
        {
            "service": "redis",
            "level": "warn",
            "at": start - 10,
            "pod": "redis-0",
            "message": "+convert-to-slave slave 10.1.3.21:6379 10.1.3.21 6379 @ mymaster 10.1.4.9 6379",
        },
        {
            "service": "cart-api",
            "level": "info",
            "at": start - 5,
            "pod": cart[1],
            "message": "sentinel: master changed to 10.1.4.9:6379, pool reset",
        },
        {
            "service": "cart-api",
            "level": "info",
            "at": start - 4,
            "pod": cart[2],
            "message": "sentinel: master changed to 10.1.4.9:6379, pool reset",
        },
        {
            "service": "cart-api",
            "level": "error",
            "from": start + 5,
            "to": -1,
            "every_s": 3,
            "pod": bad,
            "message": "POST /v1/carts/{n}/items 500: READONLY You can't write against a read only replica. (redis=10.1.3.21:6379)",
        },
        {
            "service": "web",
            "level": "error",
            "from": start + 10,
            "to": -2,
            "every_s": 4,
            "pods": ["web-1", "web-2"],
            "message": "add to cart failed: cart-api answered 500",
        },
        {
            "service": "redis",
            "level": "warn",
            "from": -7100,
            "to": 0,
            "every_s": 700,
            "pods": ["redis-0", "redis-1", "redis-2"],
            "message": "WARNING Memory overcommit must be enabled! (vm.overcommit_memory)",
        },
        {
            "service": "cart-api",
            "level": "debug",
            "at": -3300,
            "pod": cart[2],
            "message": "redis AUTH password=r3dis-cart-pw ok",
        },
    ]
    return {
        "incident": {
            "title": "Add to cart fails for some shoppers",
            "service": "cart",
            "severity": "sev2",
            "symptoms": [
                "about one in three 'add to cart' clicks fails; retrying usually works",
                "cart-api health checks are green",
                "redis restarted about half an hour ago",
            ],
            "description": "Alert CartWriteErrors fired for cart-api in namespace cart: 5xx on POST above 25% for 15 minutes.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "runtime",
            "root_cause_reason": "ReplicaFailing",
            "root_cause_component": [f"pod/{bad}", bad],
            "root_cause_signal": "READONLY",
            "root_cause": f"After Redis Sentinel failed over from redis-0 (10.1.3.21) to redis-1 (10.1.4.9), two cart-api pods reset their pools; {bad} did not and keeps writing to 10.1.3.21, now a read-only replica: every write it serves fails with READONLY. Its /healthz only PINGs Redis and stays 200, so the pod stays in the Service and a third of writes fail.",
            "evidence": [
                f"{bad} logs: READONLY You can't write against a read only replica. redis=10.1.3.21:6379",
                "the other cart-api pods: sentinel: master changed to 10.1.4.9:6379, pool reset",
                "redis: +switch-master mymaster 10.1.3.21 6379 10.1.4.9 6379",
                "cart-api 500 ratio about 1/3 (one of three endpoints)",
            ],
            "remediation": f"Delete pod {bad} (its replacement resolves the new master); fix the client to follow Sentinel's switch-master for every pool and make readiness check a write.",
        },
        "logs": logs(seed=115, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "cart-api",
                    "rps": 60,
                    "errors": {"500": (0.001, 0.31)},
                    "latency": (0.01, 0.01),
                },
                {
                    "name": "web",
                    "rps": 90,
                    "errors": {"502": (0.0, 0.1)},
                    "latency": (0.08, 0.08),
                },
            ],
            start=start,
            seed=115,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "redis-failover.md": runbook(
                "Redis failover",
                """
After a Sentinel failover, clients reconnect on their own. If errors persist, the new master may be
out of memory: check `INFO memory` on redis-1 and raise maxmemory.
""",
            ),
        },
    }


# =================================================================================================
# 16. A third party rate-limiting us: the carrier API answers 429 after our retry change.
# =================================================================================================


@scenario("third-party-rate-limit")
def third_party_rate_limit() -> dict[str, Any]:
    start = -1650
    sr = ["shipping-rates-0", "shipping-rates-1"]
    co = ["checkout-0", "checkout-1", "checkout-2"]
    gw = ["api-gw-0", "api-gw-1"]
    bg = [
        {
            "service": "checkout",
            "pods": co,
            "every_s": 3,
            "messages": [
                "POST /api/checkout/address 200 {ms}ms",
                "POST /api/checkout/pay 200 {ms}ms",
            ],
        },
        {
            "service": "shipping-rates",
            "pods": sr,
            "every_s": 5,
            "until": start,
            "messages": ["quote parcelwise 200 in {ms}ms (3 services)"],
        },
        {
            "service": "api-gw",
            "pods": gw,
            "every_s": 2,
            "messages": [
                '"POST /api/checkout/address" 200 upstream=checkout {ms}ms',
                '"GET /search" 200 upstream=search {ms}ms',
            ],
        },
    ]
    ev = [
        {
            "service": "shipping-rates",
            "level": "info",
            "at": start - 600,
            "pod": sr[0],
            "message": "deploy 4.3.0: quote retries 1 -> 4 with 100ms backoff; per-item quotes enabled",
        },
        {
            "service": "shipping-rates",
            "level": "warn",
            "from": start - 500,
            "to": start,
            "every_s": 60,
            "pods": sr,
            "message": "parcelwise quota: {ms}0 of 1000 requests left this hour",
        },
        {
            "service": "shipping-rates",
            "level": "error",
            "from": start,
            "to": -2,
            "every_s": 4,
            "pods": sr,
            "message": "quote failed: parcelwise answered 429 Too Many Requests (Retry-After: 2214, X-RateLimit-Limit: 1000/hour, X-RateLimit-Remaining: 0) url=https://api.parcelwise.example/v3/rates",
        },
        {
            "service": "checkout",
            "level": "error",
            "from": start + 5,
            "to": -1,
            "every_s": 5,
            "pods": co,
            "message": "POST /api/checkout/shipping 503: no shipping options (shipping-rates: upstream rate limited)",
        },
        {
            "service": "api-gw",
            "level": "warn",
            "from": -7000,
            "to": -5600,
            "every_s": 20,
            "pods": gw,
            "message": '"GET /search?q=*" 429 rate-limiting plugin: consumer anonymous (crawler 203.0.113.50) limit 600/min',
        },
        {
            "service": "api-gw",
            "level": "info",
            "at": -5500,
            "pod": gw[0],
            "message": "blocked crawler 203.0.113.50 via ip-restriction plugin",
        },
        {
            "service": "shipping-rates",
            "level": "debug",
            "at": -4000,
            "pod": sr[1],
            "message": "parcelwise client configured api_key=pw_live_5c6d7e8f9a0b",
        },
    ]
    return {
        "incident": {
            "title": "Checkout: no shipping options offered",
            "service": "checkout",
            "severity": "sev1",
            "symptoms": [
                "the shipping step shows 'no delivery options' for most carts",
                "checkout answers 503 on /api/checkout/shipping",
                "api-gw had 429s earlier today",
            ],
            "description": "Alert CheckoutShippingStepErrors fired: 5xx on the shipping step above 40% for 10 minutes. shipping-rates 4.3.0 shipped earlier this afternoon.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "http",
            "root_cause_component": ["api.parcelwise.example", "parcelwise"],
            "root_cause_signal": "http_429",
            "root_cause": "The carrier Parcelwise rate-limits our account: its API answers 429 Too Many Requests with X-RateLimit-Remaining 0 and Retry-After 2214 for the rest of the hour. shipping-rates 4.3.0 (4 retries, per-item quotes) used up the 1000 requests/hour quota; checkout only relays the missing quotes. api-gw's 429s were a crawler two hours ago.",
            "evidence": [
                "probe parcelwise: http/http_429 with Retry-After and X-RateLimit-Remaining: 0",
                "shipping-rates: parcelwise answered 429 Too Many Requests; quota warnings before",
                "shipping-rates deploy 4.3.0: retries 1 -> 4, per-item quotes",
                "api-gw 429s: crawler, ended 90 minutes ago",
            ],
            "remediation": "Roll shipping-rates back to 4.2.x (or cut retries and cache quotes per cart), ask Parcelwise for a higher quota; show cached or flat-rate options when the carrier limits us.",
            "root_cause_probe": "parcelwise",
            "netcheck": {
                "parcelwise": {"failed_layer": "http", "reason": "http_429"},
                "shipping-rates": {"failed_layer": "none", "reason": None},
                "api-gw": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=116, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "checkout",
                    "rps": 40,
                    "errors": {"503": (0.0, 0.18)},
                    "latency": (0.15, 0.2),
                },
                {
                    "name": "shipping-rates",
                    "rps": 8,
                    "rps_after": 30,
                    "errors": {"503": (0.0, 0.9)},
                    "latency": (0.25, 0.02),
                    "change_at": start - 600,
                },
                {
                    "name": "api-gw",
                    "rps": 150,
                    "errors": {"429": (0.0, 0.0)},
                    "latency": (0.02, 0.02),
                },
            ],
            start=start,
            seed=116,
        ),
        "targets": [
            {
                "name": "parcelwise",
                "url": "https://api.parcelwise.example/v3/rates",
                "fault": {
                    "kind": "http_status",
                    "status": 429,
                    "body": '{"error":"rate_limited","message":"Hourly request quota exceeded for account acme-shop"}',
                    "headers": {
                        "Content-Type": "application/json",
                        "Retry-After": "2214",
                        "X-RateLimit-Limit": "1000",
                        "X-RateLimit-Remaining": "0",
                        "X-RateLimit-Window": "3600",
                    },
                },
            },
            {
                "name": "shipping-rates",
                "url": "http://shipping-rates.shop.internal/healthz",
                "fault": {"kind": "ok", "body": '{"status":"ok"}'},
            },
            {
                "name": "api-gw",
                "url": "http://api-gw.shop.internal/status",
                "fault": {
                    "kind": "ok",
                    "body": '{"database":{"reachable":true}}',
                    "headers": {"Server": "kong/3.6.1"},
                },
            },
        ],
        "runbooks": {
            "api-gw-429.md": runbook(
                "api-gw answering 429",
                """
Kong's rate-limiting plugin answers 429 when a consumer exceeds its limit. If customers are affected,
raise the limit: `deck gateway sync` with `minute: 1200` for the storefront consumer.
""",
            ),
        },
    }


# =================================================================================================
# 17. kube-proxy down on one node: pods there cannot reach ClusterIPs. The incident says "webshop".
# =================================================================================================


@scenario("kube-proxy-node")
def kube_proxy_node() -> dict[str, Any]:
    start = -1400
    ns = "storefront"
    bad = "ip-10-0-5-17.eu-central-1.compute.internal"
    node = [
        bad,
        "ip-10-0-6-23.eu-central-1.compute.internal",
        "ip-10-0-7-31.eu-central-1.compute.internal",
    ]
    web = [
        "storefront-web-7d8e9f1a2-4kx8q",
        "storefront-web-7d8e9f1a2-m2p7w",
        "storefront-web-7d8e9f1a2-t9z3c",
    ]
    cat = ["catalog-6b7c8d9e1-2wq5n", "catalog-6b7c8d9e1-r8x4k"]
    kp = "kube-proxy-7xk2p"
    ipt = "Failed to execute iptables-restore: exit status 4 (iptables-restore v1.8.9 (nf_tables): RULE_APPEND failed (No such file or directory): rule in chain KUBE-SERVICES)"
    k8s = {
        **cluster_basics(ns, extra_namespaces=("kube-system",)),
        f"kubectl get pods -n {ns} -o wide --show-labels": pods(
            [
                (
                    cat[0],
                    "1/1",
                    "Running",
                    "0",
                    "8d",
                    "10.0.6.40",
                    node[1],
                    "app=catalog,pod-template-hash=6b7c8d9e1",
                ),
                (
                    cat[1],
                    "1/1",
                    "Running",
                    "0",
                    "8d",
                    "10.0.7.41",
                    node[2],
                    "app=catalog,pod-template-hash=6b7c8d9e1",
                ),
                (
                    web[0],
                    "1/1",
                    "Running",
                    "0",
                    "35m",
                    "10.0.5.60",
                    bad,
                    "app=storefront-web,pod-template-hash=7d8e9f1a2",
                ),
                (
                    web[1],
                    "1/1",
                    "Running",
                    "0",
                    "2d",
                    "10.0.6.61",
                    node[1],
                    "app=storefront-web,pod-template-hash=7d8e9f1a2",
                ),
                (
                    web[2],
                    "1/1",
                    "Running",
                    "0",
                    "2d",
                    "10.0.7.62",
                    node[2],
                    "app=storefront-web,pod-template-hash=7d8e9f1a2",
                ),
            ]
        ),
        f"kubectl get deployments -n {ns} -o wide": deployments(
            [
                (
                    "catalog",
                    "2/2",
                    "2",
                    "2",
                    "300d",
                    "catalog",
                    "registry.acme.io/sf/catalog:11.0.2",
                    "app=catalog",
                ),
                (
                    "storefront-web",
                    "3/3",
                    "3",
                    "3",
                    "300d",
                    "web",
                    "registry.acme.io/sf/storefront-web:30.4.1",
                    "app=storefront-web",
                ),
            ]
        ),
        f"kubectl get replicasets -n {ns} -o wide": replicasets(
            [
                (
                    "catalog-6b7c8d9e1",
                    "2",
                    "2",
                    "2",
                    "8d",
                    "catalog",
                    "registry.acme.io/sf/catalog:11.0.2",
                    "app=catalog,pod-template-hash=6b7c8d9e1",
                ),
                (
                    "storefront-web-7d8e9f1a2",
                    "3",
                    "3",
                    "3",
                    "2d",
                    "web",
                    "registry.acme.io/sf/storefront-web:30.4.1",
                    "app=storefront-web,pod-template-hash=7d8e9f1a2",
                ),
            ]
        ),
        f"kubectl get services -n {ns} -o wide": services(
            [
                (
                    "catalog",
                    "ClusterIP",
                    "172.20.41.9",
                    "8080/TCP",
                    "300d",
                    "app=catalog",
                ),
                (
                    "storefront-web",
                    "ClusterIP",
                    "172.20.41.2",
                    "80/TCP",
                    "300d",
                    "app=storefront-web",
                ),
            ]
        ),
        f"kubectl get endpoints -n {ns}": endpoints(
            [
                ("catalog", "10.0.6.40:8080,10.0.7.41:8080", "300d"),
                (
                    "storefront-web",
                    "10.0.5.60:3000,10.0.6.61:3000,10.0.7.62:3000",
                    "300d",
                ),
            ]
        ),
        "kubectl get nodes -o wide": nodes(
            [
                (bad, "Ready", "38m", "v1.31.4-eks-2d5f260", "10.0.5.17"),
                (node[1], "Ready", "21d", "v1.31.2-eks-94953ac", "10.0.6.23"),
                (node[2], "Ready", "21d", "v1.31.2-eks-94953ac", "10.0.7.31"),
            ]
        ),
        f"kubectl events -n {ns}": events(
            [
                (
                    "35m",
                    "Normal",
                    "Scheduled",
                    f"Pod/{web[0]}",
                    f"Successfully assigned storefront/{web[0]} to {bad}",
                ),
                ("35m", "Normal", "Started", f"Pod/{web[0]}", "Started container web"),
            ]
        ),
        "kubectl get pods -n kube-system -o wide --show-labels": pods(
            [
                (
                    "aws-node-2kq9x",
                    "2/2",
                    "Running",
                    "0",
                    "38m",
                    "10.0.5.17",
                    bad,
                    "k8s-app=aws-node",
                ),
                (
                    "aws-node-8wz4m",
                    "2/2",
                    "Running",
                    "0",
                    "21d",
                    "10.0.6.23",
                    node[1],
                    "k8s-app=aws-node",
                ),
                (
                    "aws-node-f7p2n",
                    "2/2",
                    "Running",
                    "0",
                    "21d",
                    "10.0.7.31",
                    node[2],
                    "k8s-app=aws-node",
                ),
                (
                    "coredns-5d8c7b6a4-h4n2q",
                    "1/1",
                    "Running",
                    "0",
                    "21d",
                    "10.0.6.90",
                    node[1],
                    "k8s-app=kube-dns",
                ),
                (
                    "coredns-5d8c7b6a4-x7t5v",
                    "1/1",
                    "Running",
                    "0",
                    "21d",
                    "10.0.7.91",
                    node[2],
                    "k8s-app=kube-dns",
                ),
                (
                    kp,
                    "0/1",
                    "CrashLoopBackOff",
                    "11 (3m ago)",
                    "38m",
                    "10.0.5.17",
                    bad,
                    "k8s-app=kube-proxy",
                ),
                (
                    "kube-proxy-c4m8t",
                    "1/1",
                    "Running",
                    "0",
                    "21d",
                    "10.0.6.23",
                    node[1],
                    "k8s-app=kube-proxy",
                ),
                (
                    "kube-proxy-q9w1z",
                    "1/1",
                    "Running",
                    "0",
                    "21d",
                    "10.0.7.31",
                    node[2],
                    "k8s-app=kube-proxy",
                ),
            ]
        ),
        "kubectl get daemonsets -n kube-system -o wide": table(
            [
                [
                    "NAME",
                    "DESIRED",
                    "CURRENT",
                    "READY",
                    "UP-TO-DATE",
                    "AVAILABLE",
                    "NODE SELECTOR",
                    "AGE",
                    "CONTAINERS",
                    "IMAGES",
                    "SELECTOR",
                ],
                [
                    "aws-node",
                    "3",
                    "3",
                    "3",
                    "3",
                    "3",
                    "<none>",
                    "300d",
                    "aws-node,aws-eks-nodeagent",
                    "602401143452.dkr.ecr.eu-central-1.amazonaws.com/amazon-k8s-cni:v1.19.0",
                    "k8s-app=aws-node",
                ],
                [
                    "kube-proxy",
                    "3",
                    "3",
                    "2",
                    "3",
                    "2",
                    "<none>",
                    "300d",
                    "kube-proxy",
                    "602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3",
                    "k8s-app=kube-proxy",
                ],
            ]
        ),
        f"kubectl logs {kp} -n kube-system -c kube-proxy --previous --tail=1000": (
            'I1205 13:23:02.117 1 server_linux.go:66] "Using iptables proxy"\n'
            'I1205 13:23:02.301 1 proxier.go:805] "Syncing iptables rules"\n'
            'E1205 13:23:02.355 1 proxier.go:1564] "Failed to execute iptables-restore" err=<exit status 4: iptables-restore v1.8.9 (nf_tables): RULE_APPEND failed (No such file or directory): rule in chain KUBE-SERVICES>\n'
            'F1205 13:23:02.356 1 server.go:556] "Error running ProxyServer" err="failed to sync iptables rules: exit status 4"\n'
        ),
        f"kubectl describe pods {kp} -n kube-system": f"""Name:                 {kp}
Namespace:            kube-system
Priority:             2000001000
Priority Class Name:  system-node-critical
Node:                 {bad}/10.0.5.17
Labels:               k8s-app=kube-proxy
Status:               Running
IP:                   10.0.5.17
Controlled By:        DaemonSet/kube-proxy
Containers:
  kube-proxy:
    Image:          602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    255
    Ready:          False
    Restart Count:  11
Events:
  Type     Reason   Age                 From     Message
  ----     ------   ----                ----     -------
  Warning  BackOff  3m (x150 over 37m)  kubelet  Back-off restarting failed container kube-proxy in pod {kp}_kube-system
""",
        "kubectl events -n kube-system": events(
            [
                (
                    "38m",
                    "Normal",
                    "RegisteredNode",
                    f"Node/{bad}",
                    f"Node {bad} event: Registered Node {bad} in Controller",
                ),
                (
                    "3m (x150 over 37m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{kp}",
                    f"Back-off restarting failed container kube-proxy in pod {kp}_kube-system",
                ),
            ]
        ),
    }
    bg = [
        {
            "service": "storefront-web",
            "pods": web[1:],
            "every_s": 2,
            "messages": ["GET /p/{n} 200 {ms}ms", "GET / 200 {ms}ms"],
        },
        {
            "service": "storefront-web",
            "pods": web,
            "every_s": 3,
            "until": start,
            "messages": ["GET /p/{n} 200 {ms}ms"],
        },
        {
            "service": "storefront-web",
            "pods": [web[0]],
            "every_s": 20,
            "from": start,
            "messages": ["GET / 200 {ms}ms (static, cached)"],
        },
        {
            "service": "catalog",
            "pods": cat,
            "every_s": 3,
            "messages": ["GET /v1/products/{n} 200 {ms}ms"],
        },
    ]
    ev = [
        {
            "service": "cluster-autoscaler",
            "level": "info",
            "at": start - 900,
            "pod": "cluster-autoscaler-0",
            "message": f"node group eks-general-al2023 scaled up: new node {bad} (AMI al2023 2026.11 with nftables backend)",
        },
        {
            "service": "kube-proxy",
            "level": "error",
            "from": start - 800,
            "to": -30,
            "every_s": 300,
            "pod": kp,
            "message": ipt,
        },
        {
            "service": "storefront-web",
            "level": "error",
            "from": start,
            "to": -1,
            "every_s": 3,
            "pod": web[0],
            "message": "GET /p/{n} 502: catalog request failed: connect ETIMEDOUT 172.20.41.9:8080",
        },
        {
            "service": "storefront-web",
            "level": "warn",
            "from": -7100,
            "to": 0,
            "every_s": 500,
            "pods": web,
            "message": "image CDN slow: p95 1.{ms}s",
        },
        {
            "service": "catalog",
            "level": "error",
            "at": -6600,
            "pod": cat[0],
            "message": "search backend 500 (transient) password=cat-search-pw",
        },
    ]
    return {
        "incident": {
            "title": "Webshop product pages failing for some visitors",
            "service": "webshop",
            "severity": "sev2",
            "symptoms": [
                "about a third of product page views end in an error page",
                "refreshing usually works",
                "image CDN slow warnings",
            ],
            "description": "Alert StorefrontWeb5xx fired: 5xx ratio above 25% for 10 minutes. The cluster autoscaler added a node about 35 minutes ago.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "CrashLoopBackOff",
            "root_cause_component": [
                "daemonset/kube-proxy",
                f"pod/{kp}",
                kp,
                f"node/{bad}",
                "kube-proxy",
            ],
            "root_cause_signal": "iptables-restore",
            "root_cause": f"The node {bad}, added by the autoscaler with a new AMI, runs kube-proxy {kp}, which crash-loops: iptables-restore fails (RULE_APPEND … chain KUBE-SERVICES) on the nftables backend. That node has no Service rules, so the storefront-web pod scheduled there ({web[0]}) cannot reach catalog's ClusterIP (connect ETIMEDOUT 172.20.41.9:8080) and serves errors for its third of the traffic.",
            "evidence": [
                f"kubectl get pods -n kube-system: {kp} CrashLoopBackOff on {bad}",
                "kube-proxy logs: Failed to execute iptables-restore: exit status 4 … RULE_APPEND failed",
                f"storefront-web errors only from {web[0]} (on {bad}): connect ETIMEDOUT 172.20.41.9:8080",
                "daemonset kube-proxy: 3 desired, 2 ready",
            ],
            "remediation": f"Cordon and drain {bad} (its pods move to healthy nodes), pin the node group to the previous AMI or a kube-proxy build that supports the nftables backend, then replace the node.",
        },
        "logs": logs(seed=117, background=bg, events=ev),
        "metrics": metrics(
            [
                {
                    "name": "storefront-web",
                    "rps": 100,
                    "errors": {"502": (0.0005, 0.31)},
                    "latency": (0.09, 0.9),
                },
                {
                    "name": "catalog",
                    "rps": 90,
                    "rps_after": 60,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.02, 0.02),
                },
            ],
            start=start,
            seed=117,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "storefront-5xx.md": runbook(
                "storefront-web 5xx",
                """
storefront-web errors on product pages mostly come from the image CDN timing out.
Switch images to the fallback CDN (`FEATURE_IMG_FALLBACK=true`) and roll storefront-web.
""",
            ),
        },
    }


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
