"""Writes the fourth held-out scenario set, bench/heldout4 (issue 21 item 7): `python bench/heldout4/_build.py`.

New incidents, none of them in the bundled set, bench/heldout, bench/heldout2 or bench/heldout3. As
there, everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); only the bulk comes from code:
background request lines and 2 h of metric points (bench/heldout/_build.py's `logs` and `metrics`), a
namespace's tables (bench/heldout2/_build.py's `namespace`) and describe layouts
(bench/heldout3/_build.py's `pod_describe`, `deployment_describe`, `container_text`), each with a fixed
seed per scenario. The author read neither the planner (`reasoning/`) nor the engine
(`diagnosis/engine/`). Stdlib only.
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


base = _load("heldout_build", HERE.parent / "heldout" / "_build.py")
h2 = _load("heldout2_build", HERE.parent / "heldout2" / "_build.py")
h3 = _load("heldout3_build", HERE.parent / "heldout3" / "_build.py")

when = base.when
iso = base.iso
table = base.table
events = base.events
runbook = base.runbook
metrics = base.metrics
logs = base.logs
app = h2.app
pod_name = h2.pod_name
namespace = h2.namespace
node_describe = h2.node_describe
bg = h2.bg
ev = h2.ev
pod_describe = h3.pod_describe
deployment_describe = h3.deployment_describe
container_text = h3.container_text
event_block = h3.event_block

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def stamp(offset_s: float) -> str:
    """An application log line's timestamp, `offset_s` from the capture."""
    return iso(offset_s).replace("Z", ".000Z")


def podlog(lines: list[tuple[float, str]]) -> str:
    """A container's log as `kubectl logs` prints it: (offset_s, text) lines."""
    return "".join(f"{stamp(t)} {text}\n" for t, text in lines)


def split_table(text: str) -> list[list[str]]:
    """A kubectl table read back into cells, by the header's column starts (cells may hold spaces)."""
    lines = text.rstrip("\n").split("\n")
    header = lines[0]
    starts = [
        i
        for i in range(len(header))
        if header[i] != " " and (i == 0 or header[i - 2 : i] == "  ")
    ]
    return [
        [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        for line in lines
    ]


def ips_of(k8s: dict[str, str], ns: str) -> dict[str, str]:
    """Pod name -> IP, read back from the generated `get pods` table (RESTARTS may hold spaces)."""
    rows = split_table(k8s[f"kubectl get pods -n {ns} -o wide --show-labels"])
    return {r[0]: r[5] for r in rows[1:]}


def no_sandbox_ips(k8s: dict[str, str], ns: str) -> None:
    """Pods still in ContainerCreating have no sandbox yet, so `get pods` prints no IP for them."""
    key = f"kubectl get pods -n {ns} -o wide --show-labels"
    rows = split_table(k8s[key])
    k8s[key] = table(
        [[*r[:5], "<none>", *r[6:]] if r[2] == "ContainerCreating" else r for r in rows]
    )


def running(started: float) -> str:
    return f"    State:          Running\n      Started:      {when(started)}"


def crashloop(code: int, reason: str, started: float, finished: float) -> str:
    return (
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n"
        f"    Last State:     Terminated\n      Reason:       {reason}\n      Exit Code:    {code}\n"
        f"      Started:      {when(started)}\n      Finished:     {when(finished)}"
    )


def waiting(reason: str) -> str:
    return f"    State:          Waiting\n      Reason:       {reason}"


NODES_EU = [
    ("ip-10-40-1-23.eu-west-1.compute.internal", "Ready", "10.40.1.23"),
    ("ip-10-40-2-71.eu-west-1.compute.internal", "Ready", "10.40.2.71"),
    ("ip-10-40-3-118.eu-west-1.compute.internal", "Ready", "10.40.3.118"),
]
NODES_US = [
    ("ip-10-60-1-44.us-east-1.compute.internal", "Ready", "10.60.1.44"),
    ("ip-10-60-2-19.us-east-1.compute.internal", "Ready", "10.60.2.19"),
    ("ip-10-60-3-205.us-east-1.compute.internal", "Ready", "10.60.3.205"),
]


# =================================================================================================
# 1. A CronJob with concurrencyPolicy Forbid stuck behind a hung run: the 07:30 export hangs on an
#    SFTP read (no activeDeadlineSeconds), every later run is skipped. The incident says "exports".
# =================================================================================================


@scenario("cronjob-forbid-hung")
def cronjob_forbid_hung() -> dict[str, Any]:
    start = -2100
    ns = "finance"
    hung_at = -23400
    job = "partner-export-29940930"
    img = "registry.gitlab.com/northwind/finance/partner-export:3.2.1"
    exp = app(
        "partner-export",
        image=img,
        port=8080,
        rs="",
        kind="Job",
        service=False,
        pods=[("29940930-qk7vd", "1/1", "Running", "0", "6h30m", 1)],
        labels=f"batch.kubernetes.io/job-name={job},job-name={job}",
    )
    ledger = app(
        "ledger-api",
        image="registry.gitlab.com/northwind/finance/ledger-api:7.4.0",
        port=8080,
        rs="6d8f7b9c4",
        cluster_ip="172.20.40.11",
        pods=[
            ("h2wkn", "1/1", "Running", "0", "58m", 0),
            ("r8tzm", "1/1", "Running", "0", "57m", 2),
        ],
    )
    recon = app(
        "statement-api",
        image="registry.gitlab.com/northwind/finance/statement-api:2.0.3",
        port=8080,
        rs="7c5b9d6f8",
        cluster_ip="172.20.40.29",
        pods=[
            ("m4xjp", "1/1", "Running", "0", "20d", 1),
            ("v7bqs", "1/1", "Running", "0", "20d", 2),
        ],
    )
    k8s = namespace(ns, NODES_EU, [ledger, recon, exp], seed=141)
    pod = pod_name(exp, "29940930-qk7vd")
    k8s[f"kubectl get cronjobs -n {ns} -o wide"] = table(
        [
            [
                "NAME",
                "SCHEDULE",
                "TIMEZONE",
                "SUSPEND",
                "ACTIVE",
                "LAST SCHEDULE",
                "AGE",
                "CONTAINERS",
                "IMAGES",
                "SELECTOR",
            ],
            [
                "bank-import",
                "0 * * * *",
                "Europe/London",
                "False",
                "0",
                "60m",
                "210d",
                "bank-import",
                "registry.gitlab.com/northwind/finance/bank-import:1.8.0",
                "<none>",
            ],
            [
                "partner-export",
                "*/15 * * * *",
                "Europe/London",
                "False",
                "1",
                "6h30m",
                "210d",
                "partner-export",
                img,
                "<none>",
            ],
        ]
    )
    k8s[f"kubectl get jobs -n {ns} -o wide"] = table(
        [
            [
                "NAME",
                "STATUS",
                "COMPLETIONS",
                "DURATION",
                "AGE",
                "CONTAINERS",
                "IMAGES",
                "SELECTOR",
            ],
            [
                "bank-import-29941260",
                "Complete",
                "1/1",
                "41s",
                "60m",
                "bank-import",
                "registry.gitlab.com/northwind/finance/bank-import:1.8.0",
                "batch.kubernetes.io/controller-uid=1f0c2a77-5b7e-4d51-9c1e-2b8a0f6d4e13",
            ],
            [
                "bank-import-29941200",
                "Complete",
                "1/1",
                "38s",
                "120m",
                "bank-import",
                "registry.gitlab.com/northwind/finance/bank-import:1.8.0",
                "batch.kubernetes.io/controller-uid=8d2e4b10-93f1-47aa-b0c6-5e7d1a3c9f02",
            ],
            [
                "partner-export-29940915",
                "Complete",
                "1/1",
                "2m9s",
                "6h45m",
                "partner-export",
                img,
                "batch.kubernetes.io/controller-uid=c4a7e9d2-1b3f-4e8a-a6d5-7f2b9c0e1d44",
            ],
            [
                job,
                "Running",
                "0/1",
                "6h30m",
                "6h30m",
                "partner-export",
                img,
                "batch.kubernetes.io/controller-uid=5e9b1c3d-7a2f-4c6e-8d0b-3f4a6e2c9b71",
            ],
        ]
    )
    skipped = "Not starting job because prior execution is running and concurrency policy is Forbid"
    k8s[
        f"kubectl describe cronjobs partner-export -n {ns}"
    ] = f"""Name:                          partner-export
Namespace:                     {ns}
Labels:                        app=partner-export
Annotations:                   <none>
Schedule:                      */15 * * * *
Concurrency Policy:            Forbid
Suspend:                       False
Successful Job History Limit:  3
Failed Job History Limit:      1
Starting Deadline Seconds:     <unset>
Selector:                      <unset>
Parallelism:                   <unset>
Completions:                   <unset>
Pod Template:
  Labels:  app=partner-export
  Containers:
   partner-export:
    Image:      {img}
    Port:       <none>
    Host Port:  <none>
    Args:
      --since=15m
      --target=sftp.partner-ledger.example:22
    Environment:
      SFTP_USER:  northwind-exports
    Mounts:       <none>
  Volumes:        <none>
  Node-Selectors: <none>
  Tolerations:    <none>
Last Schedule Time:  {when(hung_at)}
Active Jobs:         {job}
{event_block([("Warning", "JobAlreadyActive", "2m (x26 over 6h15m)", "cronjob-controller", skipped)])}
"""
    k8s[f"kubectl describe jobs {job} -n {ns}"] = f"""Name:             {job}
Namespace:        {ns}
Selector:         batch.kubernetes.io/controller-uid=5e9b1c3d-7a2f-4c6e-8d0b-3f4a6e2c9b71
Labels:           app=partner-export
Annotations:      batch.kubernetes.io/job-tracking:
Controlled By:    CronJob/partner-export
Parallelism:      1
Completions:      1
Completion Mode:  NonIndexed
Suspend:          false
Backoff Limit:    2
Start Time:       {when(hung_at)}
Pods Statuses:    1 Active (0 Ready) / 0 Succeeded / 0 Failed
Pod Template:
  Labels:  app=partner-export
  Containers:
   partner-export:
    Image:      {img}
    Port:       <none>
    Host Port:  <none>
Events:           <none>
"""
    k8s[f"kubectl logs {pod} -n {ns} --tail=1000"] = podlog(
        [
            (
                hung_at + 4,
                "INFO  partner-export 3.2.1 window=2026-12-05T07:15Z..07:30Z",
            ),
            (hung_at + 6, "INFO  fetched 1 204 ledger entries from ledger-api"),
            (
                hung_at + 9,
                "INFO  connected to sftp.partner-ledger.example:22 as northwind-exports",
            ),
            (
                hung_at + 11,
                "INFO  uploading statements-20261205-0715.csv.part (2 of 3 chunks sent)",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "58m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/ledger-api",
                "Scaled up replica set ledger-api-6d8f7b9c4 to 2",
            ),
            (
                "60m",
                "Normal",
                "SuccessfulCreate",
                "CronJob/bank-import",
                "Created job bank-import-29941260",
            ),
            ("59m", "Normal", "Completed", "Job/bank-import-29941260", "Job completed"),
            (
                "2m (x26 over 6h15m)",
                "Warning",
                "JobAlreadyActive",
                "CronJob/partner-export",
                skipped,
            ),
        ]
    )
    lp = [pod_name(ledger, s[0]) for s in ledger["pods"]]
    sp = [pod_name(recon, s[0]) for s in recon["pods"]]
    bgs = [
        bg(
            "ledger-api",
            lp,
            ["GET /v3/entries?since={n} 200 {ms}ms", "POST /v3/entries 201 {ms}ms"],
            3,
        ),
        bg("statement-api", sp, ["GET /v1/statements/{n} 200 {ms}ms"], 6),
    ]
    evs = [
        ev(
            "ledger-api",
            "info",
            "ledger-api 7.4.0 started (migrations: none)",
            at=-3480,
            pods=lp,
        ),
        ev(
            "statement-api",
            "error",
            "GET /v1/partner-statements/latest 404: no partner statement newer than 2026-12-05T07:15Z (expected every 15m)",
            **{"from": start, "to": -4, "every_s": 20},
            pods=sp,
        ),
        ev(
            "statement-api",
            "warn",
            "partner statement freshness 6h{ms}m > SLO 30m",
            **{"from": start, "to": -10, "every_s": 300},
            pods=sp,
        ),
        ev(
            "bank-import",
            "error",
            "sftp.bank-feeds.example:22 authentication failed for user nw-import (publickey); retrying",
            **{"from": -9600, "to": -8400, "every_s": 300},
            pod="bank-import-29941140-4kdfs",
        ),
        ev(
            "partner-export",
            "info",
            "uploading statements-20261205-0715.csv.part (2 of 3 chunks sent)",
            at=hung_at + 11,
            pod=pod,
        ),
    ]
    return {
        "incident": {
            "title": "Partner statements not arriving since this morning",
            "service": "exports",
            "severity": "sev3",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "runtime",
            "root_cause_reason": "JobAlreadyActive",
            "root_cause_component": [
                "cronjob/partner-export",
                "partner-export",
                f"job/{job}",
                job,
                f"pod/{pod}",
                pod,
            ],
            "root_cause_signal": "concurrency policy is Forbid",
            "root_cause": "The 07:30 run of CronJob partner-export hangs on an SFTP upload to the partner (its last log line is chunk 2 of 3, 6.5 h ago; the job has no activeDeadlineSeconds). The CronJob's concurrencyPolicy is Forbid, so every later run is skipped (JobAlreadyActive x26) and no partner statement has been written since 07:15; statement-api's 404s are the symptom. bank-import's SFTP auth errors are 2.5 h old and another host; ledger-api's deploy is unrelated.",
            "evidence": [
                "CronJob partner-export: JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid (x26 over 6h15m)",
                f"job {job}: Running 0/1 for 6h30m",
                "pod log: last line 'uploading ... (2 of 3 chunks sent)' at 07:28",
            ],
            "remediation": f"Delete job {job} (its pod goes with it) so the next run starts; add activeDeadlineSeconds and an SFTP read timeout to partner-export.",
        },
        "logs": logs(seed=141, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "ledger-api",
                    "rps": 18,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.04, 0.04),
                },
                {
                    "name": "statement-api",
                    "rps": 4,
                    "errors": {"404": (0.0, 0.12)},
                    "latency": (0.03, 0.03),
                },
            ],
            start=start,
            seed=141,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "partner-sftp.md": runbook(
                "Partner SFTP exports failing",
                "Partner statements go out by SFTP every 15 minutes. When they stop, the partner has usually rotated our SFTP credentials or host key: fetch the new key from the partner portal, update secret partner-sftp in finance and wait for the next run.",
            ),
        },
    }


# =================================================================================================
# 2. A new image built for the wrong architecture: geo-api 1.9.0 came off an arm64 runner, the nodes
#    are amd64; with strategy Recreate every pod crash-loops on `exec format error`. The incident
#    says "maps".
# =================================================================================================


@scenario("image-wrong-arch")
def image_wrong_arch() -> dict[str, Any]:
    start = -1260
    ns = "maps"
    new, old = "5f7c9d8b6", "84b6d7c5f"
    img = "ghcr.io/pinpoint/geo-api:1.9.0"
    geo = app(
        "geo-api",
        image=img,
        port=8080,
        rs=new,
        cluster_ip="172.20.71.15",
        pods=[
            ("b4nqz", "0/1", "CrashLoopBackOff", "9 (2m ago)", "22m", 0),
            ("j7wkr", "0/1", "CrashLoopBackOff", "9 (3m ago)", "22m", 1),
            ("t2xhm", "0/1", "CrashLoopBackOff", "9 (1m ago)", "22m", 2),
        ],
        extra_rs=[
            (
                "geo-api-" + old,
                "0",
                "0",
                "0",
                "41d",
                "geo-api",
                "ghcr.io/pinpoint/geo-api:1.8.4",
                f"app=geo-api,pod-template-hash={old}",
            )
        ],
    )
    web = app(
        "store-locator-web",
        image="ghcr.io/pinpoint/store-locator-web:4.2.0",
        port=3000,
        rs="6c8d9f7b5",
        cluster_ip="172.20.71.40",
        pods=[
            ("a9pls", "1/1", "Running", "0", "44m", 0),
            ("q3vdn", "1/1", "Running", "0", "44m", 2),
        ],
    )
    tiles = app(
        "tile-proxy",
        image="ghcr.io/pinpoint/tile-proxy:2.3.1",
        port=8080,
        rs="7d5b6c9f8",
        cluster_ip="172.20.71.52",
        pods=[("f8rcx", "1/1", "Running", "0", "12d", 1)],
    )
    k8s = namespace(ns, NODES_EU, [geo, web, tiles], seed=142)
    gp = [pod_name(geo, s[0]) for s in geo["pods"]]
    cont = container_text(
        "geo-api",
        img,
        8080,
        env={"GEOIP_DB": "/data/GeoLite2-City.mmdb"},
        readiness="http-get http://:http/ready delay=5s timeout=1s period=10s #success=1 #failure=3",
    )
    k8s[f"kubectl describe deployments geo-api -n {ns}"] = deployment_describe(
        "geo-api",
        ns,
        replicas="3 desired | 3 updated | 3 total | 0 available | 3 unavailable",
        revision=23,
        containers=cont,
        strategy="Recreate",
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="<none>",
        new_rs=f"geo-api-{new} (3/3 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "22m",
                "deployment-controller",
                f"Scaled down replica set geo-api-{old} to 0 from 3",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "22m",
                "deployment-controller",
                f"Scaled up replica set geo-api-{new} to 3",
            ),
        ],
    )
    ips = ips_of(k8s, ns)
    for i, p in enumerate(gp):
        k8s[f"kubectl describe pods {p} -n {ns}"] = pod_describe(
            p,
            ns,
            node=f"{NODES_EU[i][0]}/{NODES_EU[i][2]}",
            owner=f"ReplicaSet/geo-api-{new}",
            labels=f"app=geo-api,pod-template-hash={new}",
            status="Running",
            ip=ips[p],
            container="geo-api",
            image=img,
            state=crashloop(255, "Error", -150 + 30 * i, -150 + 30 * i),
            ready=False,
            restarts=9,
            started=-1320,
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "22m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{p} to {NODES_EU[i][0]}",
                ),
                (
                    "Normal",
                    "Pulled",
                    "22m",
                    "kubelet",
                    f'Successfully pulled image "{img}" in 2.871s (2.871s including waiting). Image size: 18233921 bytes.',
                ),
                (
                    "Normal",
                    "Created",
                    "2m (x10 over 22m)",
                    "kubelet",
                    "Created container geo-api",
                ),
                (
                    "Normal",
                    "Started",
                    "2m (x10 over 22m)",
                    "kubelet",
                    "Started container geo-api",
                ),
                (
                    "Warning",
                    "BackOff",
                    "9s (x98 over 21m)",
                    "kubelet",
                    f"Back-off restarting failed container geo-api in pod {p}_{ns}(3b{i}e5c1a-7d2f-4b9e-a1c6-0f8d2e4b7a9{i})",
                ),
            ],
        )
        k8s[f"kubectl logs {p} -n {ns} --previous --tail=1000"] = (
            "exec /app/geo-api: exec format error\n"
        )
        k8s[f"kubectl logs {p} -n {ns} --tail=1000"] = (
            "exec /app/geo-api: exec format error\n"
        )
    k8s["kubectl describe nodes " + NODES_EU[0][0]] = node_describe(
        NODES_EU[0][0],
        NODES_EU[0][2],
        pods_rows=[(ns, gp[0]), (ns, pod_name(web, "a9pls"))],
    ).replace(
        "Labels:             kubernetes.io/hostname=",
        "Labels:             kubernetes.io/arch=amd64\n                    kubernetes.io/os=linux\n                    kubernetes.io/hostname=",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "44m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/store-locator-web",
                "Scaled up replica set store-locator-web-6c8d9f7b5 to 2",
            ),
            (
                "22m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/geo-api",
                f"Scaled down replica set geo-api-{old} to 0 from 3",
            ),
            (
                "22m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/geo-api",
                f"Scaled up replica set geo-api-{new} to 3",
            ),
            *[
                (
                    "9s (x98 over 21m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{p}",
                    f"Back-off restarting failed container geo-api in pod {p}_{ns}(3b{i}e5c1a-7d2f-4b9e-a1c6-0f8d2e4b7a9{i})",
                )
                for i, p in enumerate(gp)
            ],
        ]
    )
    wp = [pod_name(web, "a9pls"), pod_name(web, "q3vdn")]
    bgs = [
        bg(
            "store-locator-web",
            wp,
            ["GET /stores 200 {ms}ms", "GET /static/app.{n}.js 200 {ms}ms"],
            2,
        ),
        bg(
            "geo-api",
            gp,
            ["GET /v2/nearby?lat=51.5&lon=-0.1 200 {ms}ms"],
            2,
            until=start - 60,
        ),
        bg(
            "tile-proxy",
            [pod_name(tiles, "f8rcx")],
            ["GET /tiles/14/{n}/{n}.png 200 {ms}ms"],
            3,
        ),
    ]
    evs = [
        ev(
            "gitlab",
            "info",
            "pipeline #{n} geo-api: job build-image ran on runner mac-mini-03 (docker buildx, platform linux/arm64); pushed ghcr.io/pinpoint/geo-api:1.9.0",
            at=start - 300,
        ),
        ev(
            "argocd",
            "info",
            "application geo-api synced to 1.9.0 (Recreate)",
            at=start - 30,
        ),
        ev(
            "argocd",
            "info",
            "application store-locator-web synced to 4.2.0",
            at=start - 1380,
        ),
        ev(
            "store-locator-web",
            "error",
            "GET /api/nearby 502: upstream geo-api.maps.svc:8080 connect ECONNREFUSED",
            **{"from": start + 20, "to": -2, "every_s": 3},
            pods=wp,
        ),
        ev(
            "store-locator-web",
            "warn",
            "falling back to static store list for region {n}",
            **{"from": start + 30, "to": -10, "every_s": 45},
            pods=wp,
        ),
        ev(
            "tile-proxy",
            "warn",
            "upstream tile CDN slow: {ms}0ms for /tiles/15",
            **{"from": -7200, "to": -10, "every_s": 240},
            pod=pod_name(tiles, "f8rcx"),
        ),
        ev(
            "geo-api",
            "error",
            "GeoLite2 download failed: 401 license key invalid; keeping database from 2026-11-28",
            **{"from": -9000, "to": -8100, "every_s": 300},
            pods=gp,
        ),
    ]
    return {
        "incident": {
            "title": "maps down",
            "service": "maps",
            "severity": "sev2",
            "symptoms": ["store finder shows no stores"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "runtime",
            "root_cause_reason": "CrashLoopBackOff",
            "root_cause_component": [
                "deployment/geo-api",
                "geo-api",
                f"replicaset/geo-api-{new}",
                f"geo-api-{new}",
            ],
            "root_cause_signal": "exec format error",
            "root_cause": "geo-api 1.9.0 was built on an arm64 runner (mac-mini-03, platform linux/arm64) and the nodes are amd64: the binary cannot start ('exec /app/geo-api: exec format error', exit 255). The Deployment uses Recreate, so all three old pods were removed and every new pod crash-loops; store-locator-web's 502s are the victim's. The GeoLite licence errors are 2.5 h old and harmless; store-locator-web's release is innocent.",
            "evidence": [
                "geo-api pods: CrashLoopBackOff, exit code 255, 9 restarts",
                "kubectl logs geo-api-…: exec /app/geo-api: exec format error",
                "gitlab: built on runner mac-mini-03, platform linux/arm64; nodes kubernetes.io/arch=amd64",
            ],
            "remediation": "Roll geo-api back to 1.8.4 (`kubectl rollout undo deploy/geo-api -n maps`), rebuild 1.9.0 for linux/amd64 (or a multi-arch manifest) and pin the build platform in CI.",
        },
        "logs": logs(seed=142, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "store-locator-web",
                    "rps": 30,
                    "errors": {"502": (0.0, 0.35)},
                    "latency": (0.08, 0.05),
                },
                {
                    "name": "geo-api",
                    "rps": 20,
                    "rps_after": 0.01,
                    "latency": (0.02, 0.02),
                },
                {
                    "name": "tile-proxy",
                    "rps": 60,
                    "errors": {"504": (0.002, 0.003)},
                    "latency": (0.09, 0.1),
                },
            ],
            start=start,
            seed=142,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "geo-api-crashloop.md": runbook(
                "geo-api crash-looping",
                "geo-api refuses to start without a GeoIP database. If it crash-loops, the MaxMind licence key has usually expired: rotate secret maxmind-license in maps and restart the Deployment.",
            ),
        },
    }


# =================================================================================================
# 3. A ReadWriteOnce volume still attached to a dead node: media-store's spot node was reclaimed
#    without a drain, its EBS volume stays attached there, the replacement pod hangs in
#    ContainerCreating with a Multi-Attach error. The incident says "cms".
# =================================================================================================


@scenario("pvc-multi-attach")
def pvc_multi_attach() -> dict[str, Any]:
    start = -1740
    ns = "cms"
    nodes = [
        ("ip-10-40-1-23.eu-west-1.compute.internal", "Ready", "10.40.1.23"),
        ("ip-10-40-2-71.eu-west-1.compute.internal", "NotReady", "10.40.2.71"),
        ("ip-10-40-3-118.eu-west-1.compute.internal", "Ready", "10.40.3.118"),
    ]
    rs = "6b9d8c7f5"
    img = "ghcr.io/quillpress/media-store:2.7.3"
    pv = "pvc-3f1c9a2e-6b7d-4e8f-a0c1-5d2e9b7f4a16"
    media = app(
        "media-store",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="172.20.33.18",
        desired=1,
        pods=[
            ("x9vkd", "0/1", "Terminating", "0", "19d", 1),
            ("c4mtq", "0/1", "ContainerCreating", "0", "28m", 2),
        ],
    )
    web = app(
        "cms-web",
        image="ghcr.io/quillpress/cms-web:12.4.0",
        port=3000,
        rs="58c7d9b6f",
        cluster_ip="172.20.33.4",
        pods=[
            ("k2pzr", "1/1", "Running", "0", "2d", 0),
            ("w6jns", "1/1", "Running", "0", "28m", 2),
        ],
    )
    k8s = namespace(ns, nodes, [media, web], seed=143)
    no_sandbox_ips(k8s, ns)
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = table(
        [
            [
                "NAME",
                "STATUS",
                "VOLUME",
                "CAPACITY",
                "ACCESS MODES",
                "STORAGECLASS",
                "VOLUMEATTRIBUTESCLASS",
                "AGE",
            ],
            ["media-store-data", "Bound", pv, "200Gi", "RWO", "gp3", "<unset>", "210d"],
        ]
    )
    k8s["kubectl get persistentvolumes"] = table(
        [
            [
                "NAME",
                "CAPACITY",
                "ACCESS MODES",
                "RECLAIM POLICY",
                "STATUS",
                "CLAIM",
                "STORAGECLASS",
                "VOLUMEATTRIBUTESCLASS",
                "REASON",
                "AGE",
            ],
            [
                pv,
                "200Gi",
                "RWO",
                "Retain",
                "Bound",
                f"{ns}/media-store-data",
                "gp3",
                "<unset>",
                "",
                "210d",
            ],
        ]
    )
    newp, oldp = pod_name(media, "c4mtq"), pod_name(media, "x9vkd")
    multi = f'Multi-Attach error for volume "{pv}" Volume is already exclusively attached to one node and can\'t be attached to another'
    k8s[f"kubectl describe pods {newp} -n {ns}"] = pod_describe(
        newp,
        ns,
        node=f"{nodes[2][0]}/{nodes[2][2]}",
        owner=f"ReplicaSet/media-store-{rs}",
        labels=f"app=media-store,pod-template-hash={rs}",
        status="Pending",
        ip="",
        container="media-store",
        image=img,
        state=waiting("ContainerCreating"),
        ready=False,
        restarts=0,
        started=-1680,
        conditions=[
            ("PodReadyToStartContainers", "False"),
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ],
        events_rows=[
            (
                "Normal",
                "Scheduled",
                "28m",
                "default-scheduler",
                f"Successfully assigned {ns}/{newp} to {nodes[2][0]}",
            ),
            ("Warning", "FailedAttachVolume", "28m", "attachdetach-controller", multi),
            (
                "Warning",
                "FailedMount",
                "3m (x12 over 26m)",
                "kubelet",
                "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition",
            ),
        ],
    )
    k8s[
        f"kubectl describe persistentvolumeclaims media-store-data -n {ns}"
    ] = f"""Name:          media-store-data
Namespace:     {ns}
StorageClass:  gp3
Status:        Bound
Volume:        {pv}
Labels:        app=media-store
Annotations:   pv.kubernetes.io/bind-completed: yes
               pv.kubernetes.io/bound-by-controller: yes
               volume.kubernetes.io/selected-node: ip-10-40-2-71.eu-west-1.compute.internal
               volume.kubernetes.io/storage-provisioner: ebs.csi.aws.com
Finalizers:    [kubernetes.io/pvc-protection]
Capacity:      200Gi
Access Modes:  RWO
VolumeMode:    Filesystem
Used By:       {newp}
               {oldp}
Events:        <none>
"""
    k8s["kubectl describe nodes " + nodes[1][0]] = node_describe(
        nodes[1][0],
        nodes[1][2],
        conditions=dict.fromkeys(
            ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready"),
            (
                "Unknown",
                "-1790",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
            ),
        ),
        taints="node.kubernetes.io/unreachable:NoExecute\n                    node.kubernetes.io/unreachable:NoSchedule",
        pods_rows=[(ns, oldp)],
        events_text="  Type    Reason        Age   From             Message\n  ----    ------        ----  ----             -------\n  Normal  NodeNotReady  29m   node-controller  Node ip-10-40-2-71.eu-west-1.compute.internal status is now: NodeNotReady",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("29m", "Warning", "NodeNotReady", f"Pod/{oldp}", "Node is not ready"),
            (
                "28m",
                "Normal",
                "TaintManagerEviction",
                f"Pod/{oldp}",
                "Marking for deletion Pod cms/" + oldp,
            ),
            (
                "28m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/media-store-{rs}",
                f"Created pod: {newp}",
            ),
            ("28m", "Warning", "FailedAttachVolume", f"Pod/{newp}", multi),
            (
                "3m (x12 over 26m)",
                "Warning",
                "FailedMount",
                f"Pod/{newp}",
                "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition",
            ),
        ]
    )
    wp = [pod_name(web, "k2pzr"), pod_name(web, "w6jns")]
    bgs = [
        bg(
            "cms-web",
            wp,
            ["GET /admin/posts 200 {ms}ms", "GET /posts/{n} 200 {ms}ms"],
            2,
        )
    ]
    evs = [
        ev(
            "cloud-events",
            "warn",
            "EC2 Spot Instance interruption: i-0b7e2c9d4a1f36e58 (ip-10-40-2-71.eu-west-1.compute.internal) terminated; no drain (node-termination-handler not installed)",
            at=start - 60,
        ),
        ev(
            "cms-web",
            "error",
            "POST /admin/media 502: media-store.cms.svc:8080 connect ECONNREFUSED",
            **{"from": start + 10, "to": -3, "every_s": 8},
            pods=wp,
        ),
        ev(
            "cms-web",
            "error",
            "GET /media/{n}.jpg 502: media-store unavailable",
            **{"from": start + 10, "to": -3, "every_s": 4},
            pods=wp,
        ),
        ev(
            "cms-web",
            "warn",
            "redis session store latency {ms}ms",
            **{"from": -8000, "to": -6500, "every_s": 200},
            pods=wp,
        ),
        ev(
            "ebs-csi-controller",
            "warn",
            f"AttachVolume.Attach failed for volume {pv}: volume vol-0e4a9c2b7d1f58a36 is attached to i-0b7e2c9d4a1f36e58 (state in-use)",
            **{"from": start + 60, "to": -60, "every_s": 300},
        ),
    ]
    return {
        "incident": {
            "title": "CMS image uploads failing",
            "service": "cms",
            "severity": "sev3",
            "symptoms": ["editors cannot upload images", "images broken on posts"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "startup",
            "root_cause_reason": "FailedAttachVolume",
            "root_cause_component": [
                "persistentvolumeclaim/media-store-data",
                "media-store-data",
                f"persistentvolume/{pv}",
                pv,
                "deployment/media-store",
                "media-store",
                f"pod/{newp}",
                newp,
            ],
            "root_cause_signal": "Multi-Attach error",
            "root_cause": f"media-store's node was reclaimed as a spot instance without a drain; its ReadWriteOnce EBS volume ({pv}) is still attached to the dead instance, so the replacement pod on another node cannot attach it (Multi-Attach error) and waits in ContainerCreating. With one replica and no volume, media-store serves nothing; cms-web's 502s are the victim's. The NotReady node is the trigger, not what to fix; the redis latency warnings are old.",
            "evidence": [
                f"pod {newp}: FailedAttachVolume Multi-Attach error for volume {pv}",
                "old pod Terminating on the NotReady node; PVC media-store-data RWO used by both",
                "cloud-events: spot interruption, no drain",
            ],
            "remediation": "Taint the dead node node.kubernetes.io/out-of-service=nodeshutdown:NoExecute (or delete the node) so the volume is force-detached; install the node termination handler.",
        },
        "logs": logs(seed=143, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "cms-web",
                    "rps": 14,
                    "errors": {"502": (0.0, 0.3)},
                    "latency": (0.06, 0.06),
                },
                {
                    "name": "media-store",
                    "rps": 9,
                    "rps_after": 0.01,
                    "latency": (0.03, 0.03),
                },
            ],
            start=start,
            seed=143,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "node-notready.md": runbook(
                "A node is NotReady",
                "Nodes of the spot group come and go. Cordon the NotReady node and wait for the autoscaling group to replace it (about 10 minutes); pods are rescheduled by themselves.",
            ),
        },
    }


# =================================================================================================
# 4. A ServiceAccount without its RBAC: job-dispatcher's chart 4.0 renamed its ServiceAccount, the
#    RoleBinding still names the old one; the API server answers 403 to every pod it tries to
#    create. The process stays up and Ready. Alert text only.
# =================================================================================================


@scenario("rbac-forbidden")
def rbac_forbidden() -> dict[str, Any]:
    start = -1500
    ns = "render"
    rs = "7f8c6d9b4"
    img = "quay.io/frameworks/job-dispatcher:4.0.0"
    disp = app(
        "job-dispatcher",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="172.20.52.8",
        pods=[("p6ldx", "1/1", "Running", "0", "31m", 1)],
        extra_rs=[
            (
                "job-dispatcher-5c9b7d8f6",
                "0",
                "0",
                "0",
                "60d",
                "job-dispatcher",
                "quay.io/frameworks/job-dispatcher:3.9.2",
                "app=job-dispatcher,pod-template-hash=5c9b7d8f6",
            )
        ],
    )
    api = app(
        "render-farm-api",
        image="quay.io/frameworks/render-farm-api:2.14.1",
        port=8080,
        rs="6d4f8b7c9",
        cluster_ip="172.20.52.21",
        pods=[
            ("g3tqn", "1/1", "Running", "0", "9d", 0),
            ("m8zvc", "1/1", "Running", "0", "9d", 2),
        ],
    )
    thumbs = app(
        "preview-encoder",
        image="quay.io/frameworks/preview-encoder:1.3.0",
        port=8080,
        rs="8b5d7c6f9",
        cluster_ip="172.20.52.30",
        pods=[("s5wbk", "1/1", "Running", "2 (5h ago)", "14d", 0)],
    )
    k8s = namespace(ns, NODES_US, [disp, api, thumbs], seed=144)
    k8s[f"kubectl get serviceaccounts -n {ns}"] = table(
        [
            ["NAME", "SECRETS", "AGE"],
            ["default", "0", "400d"],
            ["job-dispatcher", "0", "400d"],
            ["job-dispatcher-v4", "0", "31m"],
            ["render-farm-api", "0", "400d"],
        ]
    )
    dp = pod_name(disp, "p6ldx")
    forb = 'pods is forbidden: User "system:serviceaccount:render:job-dispatcher-v4" cannot create resource "pods" in API group "" in the namespace "render"'
    k8s[f"kubectl logs {dp} -n {ns} --tail=1000"] = podlog(
        [
            (
                -1860,
                "INFO  job-dispatcher 4.0.0 starting (serviceAccount=job-dispatcher-v4, namespace=render)",
            ),
            (-1858, "INFO  leader election skipped (single replica)"),
            (-1855, "INFO  polling queue renders-high every 5s"),
            *[
                (t, f"ERROR create worker pod for job {4810 + i}: {forb} (HTTP 403)")
                for i, t in enumerate(range(start + 5, -5, 90))
            ],
        ]
    )
    k8s[f"kubectl describe pods {dp} -n {ns}"] = pod_describe(
        dp,
        ns,
        node=f"{NODES_US[1][0]}/{NODES_US[1][2]}",
        owner=f"ReplicaSet/job-dispatcher-{rs}",
        labels=f"app=job-dispatcher,pod-template-hash={rs}",
        status="Running",
        ip=ips_of(k8s, ns)[dp],
        container="job-dispatcher",
        image=img,
        state=running(-1860),
        ready=True,
        restarts=0,
        started=-1862,
        probes="    Readiness:      http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3\n",
        events_rows=[
            (
                "Normal",
                "Scheduled",
                "31m",
                "default-scheduler",
                f"Successfully assigned {ns}/{dp} to {NODES_US[1][0]}",
            ),
            (
                "Normal",
                "Pulled",
                "31m",
                "kubelet",
                f'Container image "{img}" already present on machine',
            ),
            ("Normal", "Created", "31m", "kubelet", "Created container job-dispatcher"),
            ("Normal", "Started", "31m", "kubelet", "Started container job-dispatcher"),
        ],
    ).replace(
        "Service Account:  job-dispatcher\n", "Service Account:  job-dispatcher-v4\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/job-dispatcher",
                f"Scaled up replica set job-dispatcher-{rs} to 1",
            ),
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/job-dispatcher",
                "Scaled down replica set job-dispatcher-5c9b7d8f6 to 0 from 1",
            ),
        ]
    )
    ap = [pod_name(api, "g3tqn"), pod_name(api, "m8zvc")]
    bgs = [
        bg(
            "render-farm-api",
            ap,
            ["GET /v1/jobs/{n} 200 {ms}ms", "POST /v1/jobs 202 {ms}ms"],
            2,
        ),
        bg(
            "preview-encoder",
            [pod_name(thumbs, "s5wbk")],
            ["encoded preview {n} in {ms}0ms"],
            10,
        ),
    ]
    evs = [
        ev(
            "helm",
            "info",
            "release job-dispatcher upgraded to chart 4.0.0 (serviceAccount.name: job-dispatcher-v4)",
            at=-1880,
        ),
        ev(
            "job-dispatcher",
            "error",
            f"create worker pod for job {{n}}: {forb} (HTTP 403)",
            **{"from": start + 5, "to": -5, "every_s": 90},
            pod=dp,
        ),
        ev(
            "kubectl-audit",
            "info",
            'RBAC DENY: user="system:serviceaccount:render:job-dispatcher-v4" verb="create" resource="pods" namespace="render" reason="no RBAC policy matched"',
            **{"from": start + 5, "to": -5, "every_s": 90},
        ),
        ev(
            "render-farm-api",
            "warn",
            "job {n} queued for {ms}0s without a worker (queue renders-high depth {ms})",
            **{"from": start + 120, "to": -3, "every_s": 6},
            pods=ap,
        ),
        ev(
            "render-farm-api",
            "error",
            "GET /v1/jobs/{n}/result 504: render did not finish within 600s",
            **{"from": start + 600, "to": -3, "every_s": 5},
            pods=ap,
        ),
        ev(
            "preview-encoder",
            "error",
            "ffmpeg exited 137 while encoding preview {n} (OOMKilled)",
            at=-18000,
            pod=pod_name(thumbs, "s5wbk"),
        ),
        ev(
            "render-farm-api",
            "error",
            "S3 PutObject slow-down (503 SlowDown) for bucket render-results; retried",
            **{"from": -8800, "to": -8000, "every_s": 120},
            pods=ap,
        ),
    ]
    return {
        "incident": {
            "title": "[FIRING:1] RenderQueueStalled renders-high",
            "service": "render farm",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "runtime",
            "root_cause_reason": "Forbidden",
            "root_cause_component": [
                "serviceaccount/job-dispatcher-v4",
                "job-dispatcher-v4",
                "deployment/job-dispatcher",
                "job-dispatcher",
            ],
            "root_cause_signal": "cannot create resource",
            "root_cause": "job-dispatcher's chart 4.0.0 (31 min ago) renamed its ServiceAccount to job-dispatcher-v4; the RoleBinding that lets it create worker pods still names job-dispatcher. Every pod creation is refused by the API server with 403 (cannot create resource \"pods\"), the dispatcher stays Running and Ready, and renders queue until render-farm-api's 504s. The preview-encoder OOM kill and the S3 slow-downs are hours old.",
            "evidence": [
                "job-dispatcher logs: pods is forbidden: User system:serviceaccount:render:job-dispatcher-v4 cannot create resource pods (HTTP 403)",
                "serviceaccounts: job-dispatcher-v4 created 31m ago next to job-dispatcher",
                "helm: chart 4.0.0 serviceAccount.name job-dispatcher-v4",
            ],
            "remediation": "Bind role job-dispatcher to ServiceAccount job-dispatcher-v4 (or set serviceAccount.name back to job-dispatcher) and let the chart carry its RoleBinding.",
        },
        "logs": logs(seed=144, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "render-farm-api",
                    "rps": 8,
                    "errors": {"504": (0.0, 0.4)},
                    "latency": (0.05, 2.5),
                    "change_at": start + 600,
                },
                {"name": "job-dispatcher", "rps": 0.5, "latency": (0.01, 0.01)},
            ],
            start=start,
            seed=144,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "render-queue.md": runbook(
                "Render queue stalled",
                "A stalled queue means the workers are out of capacity or the encoder is OOM-killed. Raise preview-encoder's memory limit and check S3 for SlowDown throttling on render-results.",
            ),
        },
    }


# =================================================================================================
# 5. A Service selector left behind by a relabel: ledger-api's chart moved to the recommended
#    app.kubernetes.io/name labels, the hand-kept Service `ledger` still selects app=ledger-api and has
#    no endpoints. The pods are Running and Ready. The incident says "payouts".
# =================================================================================================


@scenario("service-selector-relabel")
def service_selector_relabel() -> dict[str, Any]:
    start = -1380
    ns = "payments"
    rs = "9c6b7f8d5"
    img = "ghcr.io/coinrail/ledger-api:5.0.0"
    ledger = app(
        "ledger-api",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="172.20.88.14",
        labels="app.kubernetes.io/instance=ledger,app.kubernetes.io/name=ledger-api",
        service=False,
        pods=[
            ("b7mxq", "1/1", "Running", "0", "24m", 0),
            ("h2cwz", "1/1", "Running", "0", "24m", 1),
            ("r9kfn", "1/1", "Running", "0", "23m", 2),
        ],
    )
    payout = app(
        "payout-worker",
        image="ghcr.io/coinrail/payout-worker:3.3.2",
        port=8080,
        rs="5d7c8b9f6",
        cluster_ip="172.20.88.30",
        pods=[
            ("d4nst", "1/1", "Running", "3 (6m ago)", "6d", 0),
            ("v8pqj", "1/1", "Running", "3 (4m ago)", "6d", 1),
        ],
    )
    fx = app(
        "fx-rates",
        image="ghcr.io/coinrail/fx-rates:1.12.0",
        port=8080,
        rs="7b9d6c5f8",
        cluster_ip="172.20.88.41",
        pods=[("k3zlm", "1/1", "Running", "0", "30d", 2)],
    )
    k8s = namespace(ns, NODES_US, [ledger, payout, fx], seed=145)
    ips = ips_of(k8s, ns)
    lp = [pod_name(ledger, s[0]) for s in ledger["pods"]]
    k8s[f"kubectl get services -n {ns} -o wide"] = base.services(
        [
            (
                "fx-rates",
                "ClusterIP",
                "172.20.88.41",
                "8080/TCP",
                "300d",
                "app=fx-rates",
            ),
            (
                "ledger",
                "ClusterIP",
                "172.20.88.14",
                "8080/TCP",
                "300d",
                "app=ledger-api",
            ),
            (
                "payout-worker",
                "ClusterIP",
                "172.20.88.30",
                "8080/TCP",
                "300d",
                "app=payout-worker",
            ),
        ]
    )
    k8s[f"kubectl get endpoints -n {ns}"] = base.endpoints(
        [
            ("fx-rates", ips[pod_name(fx, "k3zlm")] + ":8080", "300d"),
            ("ledger", "<none>", "300d"),
            (
                "payout-worker",
                ",".join(ips[pod_name(payout, s[0])] + ":8080" for s in payout["pods"]),
                "300d",
            ),
        ]
    )
    k8s[
        f"kubectl describe services ledger -n {ns}"
    ] = f"""Name:                     ledger
Namespace:                {ns}
Labels:                   app=ledger-api
Annotations:              <none>
Selector:                 app=ledger-api
Type:                     ClusterIP
IP Family Policy:         SingleStack
IP Families:              IPv4
IP:                       172.20.88.14
IPs:                      172.20.88.14
Port:                     http  8080/TCP
TargetPort:               8080/TCP
Endpoints:                <none>
Session Affinity:         None
Internal Traffic Policy:  Cluster
Events:                   <none>
"""
    cont = container_text(
        "ledger-api",
        img,
        8080,
        readiness="http-get http://:http/ready delay=5s timeout=1s period=10s #success=1 #failure=3",
    )
    k8s[f"kubectl describe deployments ledger-api -n {ns}"] = (
        deployment_describe(
            "ledger-api",
            ns,
            replicas="3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
            revision=31,
            containers=cont,
            conditions=[
                ("Available", "True", "MinimumReplicasAvailable"),
                ("Progressing", "True", "NewReplicaSetAvailable"),
            ],
            old_rs="<none>",
            new_rs=f"ledger-api-{rs} (3/3 replicas created)",
            labels="app.kubernetes.io/instance=ledger\n                        app.kubernetes.io/name=ledger-api",
            events_rows=[
                (
                    "Normal",
                    "ScalingReplicaSet",
                    "24m",
                    "deployment-controller",
                    f"Scaled up replica set ledger-api-{rs} to 3",
                )
            ],
        )
        .replace(
            "Selector:               app=ledger-api",
            "Selector:               app.kubernetes.io/instance=ledger,app.kubernetes.io/name=ledger-api",
        )
        .replace(
            "  Labels:           app=ledger-api",
            "  Labels:           app.kubernetes.io/instance=ledger\n                    app.kubernetes.io/name=ledger-api",
        )
    )
    pp = [pod_name(payout, s[0]) for s in payout["pods"]]
    k8s[f"kubectl logs {pp[0]} -n {ns} --previous --tail=1000"] = podlog(
        [
            (-700, "INFO  payout-worker 3.3.2 consuming payouts.requested"),
            (
                -690,
                "ERROR POST http://ledger.payments.svc:8080/v2/postings: dial tcp 172.20.88.14:8080: connect: connection refused",
            ),
            (-420, "ERROR ledger unreachable for 270s, exiting so the pod restarts"),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/ledger-api",
                f"Scaled up replica set ledger-api-{rs} to 3",
            ),
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/ledger-api",
                "Scaled down replica set ledger-api-6f8d5c7b9 to 0 from 3",
            ),
            (
                "4m (x3 over 19m)",
                "Warning",
                "BackOff",
                f"Pod/{pp[1]}",
                f"Back-off restarting failed container payout-worker in pod {pp[1]}_{ns}(8a1b2c3d-4e5f-4a6b-9c7d-0e1f2a3b4c5d)",
            ),
        ]
    )
    bgs = [
        bg("ledger-api", lp, ["GET /ready 200 {ms}ms"], 10),
        bg("fx-rates", [pod_name(fx, "k3zlm")], ["GET /v1/rates/EURUSD 200 {ms}ms"], 4),
        bg("payout-worker", pp, ["payout {n} posted to ledger"], 3, until=start),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "application ledger-api synced to chart 5.0.0 (labels: app -> app.kubernetes.io/name, app.kubernetes.io/instance; selector changed, Deployment replaced)",
            at=start - 60,
        ),
        ev(
            "payout-worker",
            "error",
            "POST http://ledger.payments.svc:8080/v2/postings: dial tcp 172.20.88.14:8080: connect: connection refused",
            **{"from": start + 10, "to": -2, "every_s": 3},
            pods=pp,
        ),
        ev(
            "payout-worker",
            "error",
            "ledger unreachable for 270s, exiting so the pod restarts",
            **{"from": start + 300, "to": -60, "every_s": 300},
            pods=pp,
        ),
        ev(
            "fx-rates",
            "warn",
            "provider ECB rate for TRY stale ({ms} min)",
            **{"from": -7200, "to": -5, "every_s": 420},
            pod=pod_name(fx, "k3zlm"),
        ),
        ev(
            "ledger-api",
            "error",
            "postgres: terminating connection due to administrator command",
            **{"from": -9200, "to": -9000, "every_s": 60},
            pods=lp,
        ),
    ]
    return {
        "incident": {
            "title": "payouts not going out",
            "service": "payouts",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "connect",
            "root_cause_stage": "service_routing",
            "root_cause_reason": "SelectorMismatch",
            "root_cause_component": ["service/ledger", "ledger"],
            "root_cause_signal": "app=ledger-api",
            "root_cause": "ledger-api's chart 5.0.0 replaced its labels with app.kubernetes.io/name / app.kubernetes.io/instance. The Service `ledger` (kept outside the chart) still selects app=ledger-api, which no pod carries now: its endpoints are <none> and every call to 172.20.88.14:8080 is refused. ledger-api's three pods are Running and Ready; payout-worker's restarts and errors are the victim's. The postgres termination and fx-rates warnings are unrelated.",
            "evidence": [
                "endpoints ledger: <none>; service ledger selector app=ledger-api",
                "ledger-api pods labelled app.kubernetes.io/name=ledger-api, 3/3 ready",
                "payout-worker: dial tcp 172.20.88.14:8080: connect: connection refused",
            ],
            "remediation": "Change service/ledger's selector to app.kubernetes.io/name=ledger-api,app.kubernetes.io/instance=ledger (and move the Service into the chart).",
        },
        "logs": logs(seed=145, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "payout-worker",
                    "rps": 5,
                    "errors": {"500": (0.0, 0.9)},
                    "latency": (0.09, 0.02),
                },
                {
                    "name": "ledger-api",
                    "rps": 12,
                    "rps_after": 0.1,
                    "latency": (0.03, 0.003),
                },
                {"name": "fx-rates", "rps": 20, "latency": (0.01, 0.01)},
            ],
            start=start,
            seed=145,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "payout-worker-restarts.md": runbook(
                "payout-worker restarting",
                "payout-worker exits when the ledger is unreachable. Check ledger-api's pods; if they are unhealthy, restart them (`kubectl rollout restart deploy/ledger-api -n payments`) and check its database connections.",
            ),
        },
    }


# =================================================================================================
# 6. A sidecar start-order race: order-history's chart moved cloud-sql-proxy from a native sidecar
#    (an init container with restartPolicy Always) to an ordinary second container. The app now starts
#    before the proxy listens, fails on 127.0.0.1:5432, and its exit hook stops the proxy with
#    /quitquitquit, so both restart together and lose the race again. The incident says "my orders".
# =================================================================================================


@scenario("sidecar-start-order")
def sidecar_start_order() -> dict[str, Any]:
    start = -1020
    ns = "orders"
    new, old = "6c7f9d8b5", "5b8d6c9f7"
    img = "europe-docker.pkg.dev/trove-prod/apps/order-history:8.2.0"
    proxy_img = "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1"
    oh = app(
        "order-history",
        image=f"{img},{proxy_img}",
        port=8080,
        rs=new,
        cluster_ip="172.20.64.22",
        desired=3,
        pods=[
            ("f5kzw", "0/2", "CrashLoopBackOff", "7 (1m ago)", "17m", 0),
            ("n2rjc", "0/2", "CrashLoopBackOff", "7 (2m ago)", "17m", 1),
        ],
        extra_rs=[
            (
                f"order-history-{old}",
                "2",
                "2",
                "0",
                "34d",
                "order-history,cloud-sql-proxy",
                f"europe-docker.pkg.dev/trove-prod/apps/order-history:8.1.3,{proxy_img}",
                f"app=order-history,pod-template-hash={old}",
            )
        ],
    )
    acct = app(
        "account-web",
        image="europe-docker.pkg.dev/trove-prod/apps/account-web:21.3.0",
        port=3000,
        rs="7d9c5b8f6",
        cluster_ip="172.20.64.5",
        pods=[
            ("c6tpl", "1/1", "Running", "0", "3d", 0),
            ("x4hbm", "1/1", "Running", "0", "3d", 2),
        ],
    )
    k8s = namespace(ns, NODES_EU, [oh, acct], seed=146)
    for key in (
        f"kubectl get deployments -n {ns} -o wide",
        f"kubectl get replicasets -n {ns} -o wide",
    ):
        rows = split_table(k8s[key])
        k8s[key] = table(
            [
                r
                if r[0].startswith("account-web") or r[0] == "NAME"
                else [*r[:5], "order-history,cloud-sql-proxy", *r[6:]]
                for r in rows
            ]
        )
    dkey, rkey, pkey = (
        f"kubectl get deployments -n {ns} -o wide",
        f"kubectl get replicasets -n {ns} -o wide",
        f"kubectl get pods -n {ns} -o wide --show-labels",
    )
    k8s[dkey] = k8s[dkey].replace(
        "order-history   0/3     3            0  ",
        "order-history   2/3     2            2  ",
    )
    k8s[rkey] = k8s[rkey].replace(
        f"order-history-{old}   2         2         0 ",
        f"order-history-{old}   2         2         2 ",
    )
    prow = split_table(k8s[pkey])
    for sfx, i, ip in (("q8wld", 0, "10.146.1.77"), ("z3kmv", 2, "10.146.3.21")):
        prow.insert(
            3,
            [
                f"order-history-{old}-{sfx}",
                "2/2",
                "Running",
                "0",
                "34d",
                ip,
                NODES_EU[i][0],
                "<none>",
                "<none>",
                f"app=order-history,pod-template-hash={old}",
            ],
        )
    k8s[pkey] = table(prow)
    erows = split_table(k8s[f"kubectl get endpoints -n {ns}"])
    k8s[f"kubectl get endpoints -n {ns}"] = table(
        [
            [
                r[0],
                "10.146.1.77:8080,10.146.3.21:8080"
                if r[0] == "order-history"
                else r[1],
                r[2],
            ]
            for r in erows
        ]
    )
    ohp = [pod_name(oh, "f5kzw"), pod_name(oh, "n2rjc")]
    ips = ips_of(k8s, ns)
    state = crashloop(1, "Error", -95, -93)
    proxy_state = (
        "    State:          Running\n      Started:      "
        + when(-60)
        + "\n    Last State:     Terminated\n      Reason:       Completed\n      Exit Code:    0\n      Started:      "
        + when(-96)
        + "\n      Finished:     "
        + when(-93)
    )
    for i, p in enumerate(ohp):
        text = pod_describe(
            p,
            ns,
            node=f"{NODES_EU[i][0]}/{NODES_EU[i][2]}",
            owner=f"ReplicaSet/order-history-{new}",
            labels=f"app=order-history,pod-template-hash={new}",
            status="Running",
            ip=ips[p],
            container="order-history",
            image=img,
            state=state,
            ready=False,
            restarts=7,
            started=-1020,
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "17m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{p} to {NODES_EU[i][0]}",
                ),
                (
                    "Normal",
                    "Started",
                    "2m (x8 over 17m)",
                    "kubelet",
                    "Started container order-history",
                ),
                (
                    "Normal",
                    "Started",
                    "2m (x8 over 17m)",
                    "kubelet",
                    "Started container cloud-sql-proxy",
                ),
                (
                    "Warning",
                    "BackOff",
                    "20s (x61 over 16m)",
                    "kubelet",
                    f"Back-off restarting failed container order-history in pod {p}_{ns}(6e{i}f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5{i})",
                ),
            ],
        )
        text = text.replace(
            "Conditions:\n",
            f"  cloud-sql-proxy:\n    Image:          {proxy_img}\n    Args:\n      --port=5432\n      --quitquitquit\n      --health-check\n      trove-prod:europe-west1:orders-pg\n{proxy_state}\n    Ready:          False\n    Restart Count:  7\n    Startup:        http-get http://:9090/startup delay=0s timeout=1s period=1s #success=1 #failure=60\nConditions:\n",
            1,
        )
        k8s[f"kubectl describe pods {p} -n {ns}"] = text
        k8s[f"kubectl logs {p} -n {ns} -c order-history --previous --tail=1000"] = (
            podlog(
                [
                    (
                        -96,
                        "INFO  order-history 8.2.0 starting; DATABASE_URL=postgres://order_history@127.0.0.1:5432/orders",
                    ),
                    (-95, "INFO  running migrations"),
                    (
                        -95,
                        "ERROR could not connect to server: connect ECONNREFUSED 127.0.0.1:5432",
                    ),
                    (
                        -94,
                        "INFO  shutdown hook: POST http://127.0.0.1:9091/quitquitquit",
                    ),
                    (-93, "FATAL startup failed, exit 1"),
                ]
            )
        )
        k8s[f"kubectl logs {p} -n {ns} -c cloud-sql-proxy --previous --tail=1000"] = (
            podlog(
                [
                    (-96, "Authorizing with Application Default Credentials"),
                    (
                        -95,
                        "[trove-prod:europe-west1:orders-pg] Listening on 127.0.0.1:5432",
                    ),
                    (
                        -95,
                        "The proxy has started successfully and is ready for new connections!",
                    ),
                    (-94, "/quitquitquit received request"),
                    (-93, "SIGTERM signal received. Shutting down..."),
                ]
            )
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "17m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/order-history",
                f"Scaled up replica set order-history-{new} to 1",
            ),
            (
                "16m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/order-history",
                f"Scaled down replica set order-history-{old} to 2 from 3",
            ),
            (
                "16m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/order-history",
                f"Scaled up replica set order-history-{new} to 2 from 1",
            ),
            *[
                (
                    "20s (x61 over 16m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{p}",
                    f"Back-off restarting failed container order-history in pod {p}_{ns}(6e{i}f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5{i})",
                )
                for i, p in enumerate(ohp)
            ],
        ]
    )
    ap = [pod_name(acct, "c6tpl"), pod_name(acct, "x4hbm")]
    oldp = [f"order-history-{old}-q8wld", f"order-history-{old}-z3kmv"]
    bgs = [
        bg(
            "account-web",
            ap,
            ["GET /account 200 {ms}ms", "GET /account/settings 200 {ms}ms"],
            2,
        )
    ]
    evs = [
        ev(
            "helm",
            "info",
            "release order-history upgraded to chart 8.2.0 (cloud-sql-proxy moved from initContainers (restartPolicy: Always) to containers; native sidecars disabled for GKE 1.28 compatibility)",
            at=start - 30,
        ),
        ev(
            "order-history",
            "error",
            "could not connect to server: connect ECONNREFUSED 127.0.0.1:5432",
            **{"from": start + 20, "to": -10, "every_s": 45},
            pods=ohp,
        ),
        ev(
            "order-history",
            "warn",
            "pool exhausted waiting for a connection (db busy)",
            **{"from": start + 60, "to": -5, "every_s": 20},
            pods=oldp,
        ),
        ev(
            "account-web",
            "error",
            "GET /account/orders 502: upstream order-history.orders.svc:8080 answered 503 no healthy upstream",
            **{"from": start + 200, "to": -2, "every_s": 3},
            pods=ap,
        ),
        ev(
            "cloudsql",
            "info",
            "orders-pg: maintenance update applied (POSTGRES_15_8), instance restarted",
            at=-8400,
        ),
        ev(
            "order-history",
            "error",
            "terminating connection due to administrator command",
            **{"from": -8410, "to": -8300, "every_s": 30},
            pods=oldp,
        ),
    ]
    return {
        "incident": {
            "title": "Order history page blank",
            "service": "my orders",
            "severity": "sev3",
            "symptoms": ["customers see an empty My Orders page"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "startup",
            "root_cause_reason": "CrashLoopBackOff",
            "root_cause_component": [
                "deployment/order-history",
                "order-history",
                f"replicaset/order-history-{new}",
                f"order-history-{new}",
            ],
            "root_cause_signal": "ECONNREFUSED 127.0.0.1:5432",
            "root_cause": "order-history chart 8.2.0 moved cloud-sql-proxy from a native sidecar (init container, restartPolicy Always) to an ordinary container: the app no longer waits for the proxy, its migrations fail with ECONNREFUSED 127.0.0.1:5432, and its shutdown hook calls the proxy's /quitquitquit, so both containers restart together and the race repeats (CrashLoopBackOff). The rollout is stuck with two new pods crashing; the two old pods left cannot carry the load (pool exhausted) and account-web answers 502. The Cloud SQL maintenance was 2 h before.",
            "evidence": [
                "order-history-… previous log: connect ECONNREFUSED 127.0.0.1:5432, then POST /quitquitquit",
                "cloud-sql-proxy log: ready, then /quitquitquit received request",
                "helm: cloud-sql-proxy moved from initContainers to containers",
            ],
            "remediation": "Roll back to chart 8.1.x (or restore the native sidecar / wait for the proxy's /startup before the app starts, and call /quitquitquit only from Jobs).",
        },
        "logs": logs(seed=146, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "account-web",
                    "rps": 22,
                    "errors": {"502": (0.0, 0.18)},
                    "latency": (0.07, 0.3),
                    "change_at": start + 200,
                },
                {
                    "name": "order-history",
                    "rps": 9,
                    "errors": {"503": (0.0, 0.4)},
                    "latency": (0.05, 1.4),
                },
            ],
            start=start,
            seed=146,
            gauges=[
                {
                    "name": "db_pool_in_use",
                    "labels": {"service": "order-history"},
                    "before": 6,
                    "after": 20,
                    "cap": 20,
                },
                {
                    "name": "db_pool_max",
                    "labels": {"service": "order-history"},
                    "before": 20,
                    "after": 20,
                    "noise": 0.0,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "order-history-db.md": runbook(
                "order-history cannot reach its database",
                "order-history talks to Cloud SQL orders-pg through cloud-sql-proxy. Connection errors usually mean a Cloud SQL maintenance or failover: check the instance in the console and wait for it to be RUNNABLE; the pods reconnect by themselves.",
            ),
        },
    }


# =================================================================================================
# 7. A node's connection-tracking table full: statsd-relay 0.9 sends every metric from a new UDP
#    socket; on the node it runs on nf_conntrack fills and the kernel drops new connections of every
#    pod there. search-api's pods on that node time out and fail liveness. The incident says "search".
# =================================================================================================


@scenario("conntrack-table-full")
def conntrack_table_full() -> dict[str, Any]:
    start = -1440
    ns = "search"
    bad = NODES_US[1][0]
    relay_img = "ghcr.io/kestrel/statsd-relay:0.9.0"
    api = app(
        "search-api",
        image="ghcr.io/kestrel/search-api:6.4.2",
        port=8080,
        rs="8d6b9c7f5",
        cluster_ip="172.20.90.10",
        pods=[
            ("a3kdz", "1/1", "Running", "0", "5d", 0),
            ("g8plw", "0/1", "Running", "6 (3m ago)", "5d", 1),
            ("m2xtv", "1/1", "Running", "0", "5d", 2),
            ("s7qhn", "0/1", "Running", "5 (6m ago)", "5d", 1),
        ],
    )
    relay = app(
        "statsd-relay",
        image=relay_img,
        port=8125,
        rs="5f9c7b6d8",
        cluster_ip="172.20.90.60",
        service_port="8125/UDP",
        pods=[("t4vbn", "1/1", "Running", "0", "27m", 1)],
        extra_rs=[
            (
                "statsd-relay-7b6d8c9f5",
                "0",
                "0",
                "0",
                "80d",
                "statsd-relay",
                "ghcr.io/kestrel/statsd-relay:0.8.2",
                "app=statsd-relay,pod-template-hash=7b6d8c9f5",
            )
        ],
    )
    sugg = app(
        "suggest-api",
        image="ghcr.io/kestrel/suggest-api:2.1.0",
        port=8080,
        rs="6b8d7c5f9",
        cluster_ip="172.20.90.22",
        pods=[
            ("c9rwm", "1/1", "Running", "2 (9m ago)", "12d", 1),
            ("k5dfx", "1/1", "Running", "0", "12d", 0),
        ],
    )
    k8s = namespace(ns, NODES_US, [api, relay, sugg], seed=147)
    ips = ips_of(k8s, ns)
    sp = [pod_name(api, s[0]) for s in api["pods"]]
    k8s["kubectl describe nodes " + bad] = node_describe(
        bad,
        NODES_US[1][2],
        pods_rows=[
            (ns, sp[1]),
            (ns, sp[3]),
            (ns, pod_name(relay, "t4vbn")),
            (ns, pod_name(sugg, "c9rwm")),
            ("kube-system", "kube-proxy-9xq4d"),
        ],
        events_text="  <none>",
    )
    k8s[f"kubectl describe pods {sp[1]} -n {ns}"] = pod_describe(
        sp[1],
        ns,
        node=f"{bad}/{NODES_US[1][2]}",
        owner="ReplicaSet/search-api-8d6b9c7f5",
        labels="app=search-api,pod-template-hash=8d6b9c7f5",
        status="Running",
        ip=ips[sp[1]],
        container="search-api",
        image=api["image"],
        state=f"    State:          Running\n      Started:      {when(-180)}\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    137\n      Started:      {when(-420)}\n      Finished:     {when(-182)}",
        ready=False,
        restarts=6,
        started=-432000,
        probes="    Liveness:       http-get http://:8080/healthz delay=10s timeout=1s period=10s #success=1 #failure=3\n    Readiness:      http-get http://:8080/ready delay=5s timeout=1s period=5s #success=1 #failure=3\n",
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "3m (x41 over 23m)",
                "kubelet",
                'Readiness probe failed: Get "http://'
                + ips[sp[1]]
                + ':8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
            (
                "Warning",
                "Unhealthy",
                "3m (x18 over 23m)",
                "kubelet",
                "Liveness probe failed: HTTP probe failed with statuscode: 503",
            ),
            (
                "Normal",
                "Killing",
                "3m (x6 over 22m)",
                "kubelet",
                "Container search-api failed liveness probe, will be restarted",
            ),
        ],
    )
    k8s[f"kubectl logs {sp[1]} -n {ns} --tail=1000"] = podlog(
        [
            (-178, "INFO  search-api 6.4.2 started"),
            (-170, "ERROR opensearch: dial tcp 10.60.3.88:9200: i/o timeout"),
            (-150, "ERROR opensearch: dial tcp 10.60.1.52:9200: i/o timeout"),
            (-120, "WARN  /ready: opensearch unreachable, answering 503"),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "27m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/statsd-relay",
                "Scaled up replica set statsd-relay-5f9c7b6d8 to 1",
            ),
            (
                "27m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/statsd-relay",
                "Scaled down replica set statsd-relay-7b6d8c9f5 to 0 from 1",
            ),
            (
                "3m (x41 over 23m)",
                "Warning",
                "Unhealthy",
                f"Pod/{sp[1]}",
                'Readiness probe failed: Get "http://'
                + ips[sp[1]]
                + ':8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
            (
                "3m (x6 over 22m)",
                "Normal",
                "Killing",
                f"Pod/{sp[1]}",
                "Container search-api failed liveness probe, will be restarted",
            ),
            (
                "6m (x5 over 21m)",
                "Normal",
                "Killing",
                f"Pod/{sp[3]}",
                "Container search-api failed liveness probe, will be restarted",
            ),
        ]
    )
    good = [sp[0], sp[2]]
    bgs = [
        bg("search-api", good, ["GET /v3/search?q=… 200 {ms}ms"], 1.5),
        bg("suggest-api", [pod_name(sugg, "k5dfx")], ["GET /v1/suggest 200 {ms}ms"], 3),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "application statsd-relay synced to 0.9.0 (per-metric UDP sockets, 'fire and forget')",
            at=start - 180,
        ),
        ev(
            "kernel",
            "warn",
            "nf_conntrack: nf_conntrack: table full, dropping packet",
            **{"from": start, "to": -2, "every_s": 5},
            labels={"node": bad},
        ),
        ev(
            "search-api",
            "error",
            "opensearch: dial tcp 10.60.{ms}.52:9200: i/o timeout",
            **{"from": start + 15, "to": -2, "every_s": 2},
            pods=[sp[1], sp[3]],
        ),
        ev(
            "suggest-api",
            "error",
            "redis suggest-cache:6379: dial tcp: i/o timeout",
            **{"from": start + 30, "to": -2, "every_s": 20},
            pod=pod_name(sugg, "c9rwm"),
        ),
        ev(
            "gateway",
            "error",
            "GET /search 504 upstream search-api timed out after 3000ms",
            **{"from": start + 20, "to": -2, "every_s": 2.5},
        ),
        ev(
            "opensearch",
            "warn",
            "[gc][young][{n}] overhead, spent [1.{ms}s] collecting in the last [2s]",
            **{"from": -9000, "to": -7400, "every_s": 200},
        ),
    ]
    return {
        "incident": {
            "title": "search timeouts",
            "service": "search",
            "severity": "sev2",
            "symptoms": [],
            "description": "About half the searches time out.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "connect",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "ConntrackTableFull",
            "root_cause_component": [
                f"node/{bad}",
                bad,
                "deployment/statsd-relay",
                "statsd-relay",
            ],
            "root_cause_signal": "nf_conntrack: table full",
            "root_cause": f"statsd-relay 0.9.0 (deployed 27 min ago) opens a new UDP socket per metric; on {bad}, where it runs, the connection-tracking table filled (node_nf_conntrack_entries at the 262144 limit) and the kernel drops new connections ('nf_conntrack: table full, dropping packet'). Every pod on that node times out dialing out: two of search-api's four pods fail readiness and liveness (restarts are the victim's), suggest-api's pod there times out on Redis. Pods on the other nodes are fine; the node stays Ready. OpenSearch GC warnings are 2 h old.",
            "evidence": [
                "kernel on the node: nf_conntrack: table full, dropping packet",
                "node_nf_conntrack_entries at 262144 on that node only, since statsd-relay 0.9.0",
                "only pods on that node: dial tcp … i/o timeout, liveness restarts",
            ],
            "remediation": "Roll statsd-relay back to 0.8.2 (or reuse one UDP socket); raise net.netfilter.nf_conntrack_max on the node group and lower nf_conntrack_udp_timeout.",
        },
        "logs": logs(seed=147, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "search-api",
                    "rps": 80,
                    "errors": {"503": (0.0, 0.2), "504": (0.0, 0.24)},
                    "latency": (0.05, 1.1),
                },
                {
                    "name": "suggest-api",
                    "rps": 40,
                    "errors": {"500": (0.0, 0.1)},
                    "latency": (0.01, 0.2),
                },
            ],
            start=start,
            seed=147,
            gauges=[
                {
                    "name": "node_nf_conntrack_entries",
                    "labels": {"node": bad},
                    "before": 41000,
                    "after": 262144,
                    "cap": 262144,
                    "change_at": start - 160,
                },
                {
                    "name": "node_nf_conntrack_entries_limit",
                    "labels": {"node": bad},
                    "before": 262144,
                    "after": 262144,
                    "noise": 0.0,
                },
                {
                    "name": "node_nf_conntrack_entries",
                    "labels": {"node": NODES_US[0][0]},
                    "before": 38000,
                    "after": 39000,
                },
                {
                    "name": "node_nf_conntrack_entries",
                    "labels": {"node": NODES_US[2][0]},
                    "before": 36000,
                    "after": 37000,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "search-slow.md": runbook(
                "Search slow or timing out",
                "Search latency follows the OpenSearch cluster. If searches time out, check OpenSearch GC and heap; scale the data nodes (`opensearch-data` node group +2) and restart search-api pods that fail liveness.",
            ),
        },
    }


# =================================================================================================
# 8. The pod subnet out of addresses: a Spark batch in another namespace took most of the subnet's
#    IPs; when the HPA scales basket-api for the lunch peak the VPC CNI cannot give new pods an IP
#    (FailedCreatePodSandBox). The incident says "basket".
# =================================================================================================


@scenario("pod-ip-exhaustion")
def pod_ip_exhaustion() -> dict[str, Any]:
    start = -1200
    ns = "shop"
    rs = "7c9d5f8b6"
    img = "123456789012.dkr.ecr.us-east-1.amazonaws.com/shop/basket-api:11.2.0"
    basket = app(
        "basket-api",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="172.20.12.31",
        desired=9,
        pods=[
            ("b2dkq", "1/1", "Running", "0", "2d", 0),
            ("f6mwz", "1/1", "Running", "0", "2d", 1),
            ("l9rtc", "1/1", "Running", "0", "2d", 2),
            ("p4xvn", "0/1", "ContainerCreating", "0", "19m", 0),
            ("r7hjs", "0/1", "ContainerCreating", "0", "19m", 1),
            ("w3qbd", "0/1", "ContainerCreating", "0", "19m", 2),
            ("z8ngl", "0/1", "ContainerCreating", "0", "19m", 0),
            ("c5tkp", "0/1", "ContainerCreating", "0", "14m", 1),
            ("h2vmf", "0/1", "ContainerCreating", "0", "14m", 2),
        ],
    )
    web = app(
        "shop-web",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/shop/shop-web:30.1.4",
        port=3000,
        rs="5b7f9c6d8",
        cluster_ip="172.20.12.5",
        pods=[
            ("d8kqs", "1/1", "Running", "0", "6h", 0),
            ("m3wtx", "1/1", "Running", "0", "6h", 1),
            ("v6pzr", "1/1", "Running", "0", "6h", 2),
        ],
    )
    k8s = namespace(
        ns, NODES_US, [basket, web], seed=148, extra_namespaces=("data-batch",)
    )
    no_sandbox_ips(k8s, ns)
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = h3.hpa_table(
        [
            (
                "basket-api",
                "Deployment/basket-api",
                "cpu: 162%/65%",
                "3",
                "20",
                "9",
                "300d",
            ),
            ("shop-web", "Deployment/shop-web", "cpu: 41%/70%", "3", "12", "3", "300d"),
        ]
    )
    bp = [pod_name(basket, s[0]) for s in basket["pods"]]
    sandbox = 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "{sid}": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container'
    for i, p in enumerate(bp[3:5]):
        k8s[f"kubectl describe pods {p} -n {ns}"] = pod_describe(
            p,
            ns,
            node=f"{NODES_US[i][0]}/{NODES_US[i][2]}",
            owner=f"ReplicaSet/basket-api-{rs}",
            labels=f"app=basket-api,pod-template-hash={rs}",
            status="Pending",
            ip="",
            container="basket-api",
            image=img,
            state=waiting("ContainerCreating"),
            ready=False,
            restarts=0,
            started=-1140,
            conditions=[
                ("PodReadyToStartContainers", "False"),
                ("Initialized", "True"),
                ("Ready", "False"),
                ("ContainersReady", "False"),
                ("PodScheduled", "True"),
            ],
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "19m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{p} to {NODES_US[i][0]}",
                ),
                (
                    "Warning",
                    "FailedCreatePodSandBox",
                    "19m",
                    "kubelet",
                    sandbox.format(
                        sid=f"4e9a{i}c2b7d1f0e8a6c3b5d9f2e7a1c4b8d6e0f3a9c2b7d5e1f8a4c6b2d9e7f0{i}"
                    ),
                ),
                (
                    "Normal",
                    "SandboxChanged",
                    "2m (x58 over 19m)",
                    "kubelet",
                    "Pod sandbox changed, it will be killed and re-created.",
                ),
            ],
        )
    k8s["kubectl get daemonsets -n kube-system -o wide"] = table(
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
                "400d",
                "aws-node,aws-eks-nodeagent",
                "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.19.0-eksbuild.1,602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon/aws-network-policy-agent:v1.1.5-eksbuild.1",
                "k8s-app=aws-node",
            ],
            [
                "kube-proxy",
                "3",
                "3",
                "3",
                "3",
                "3",
                "<none>",
                "400d",
                "kube-proxy",
                "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3",
                "k8s-app=kube-proxy",
            ],
        ]
    )
    k8s["kubectl logs aws-node-7tqzk -n kube-system --tail=1000"] = podlog(
        [
            (
                -1190,
                '{"level":"error","msg":"Failed to increase pool size due to not able to allocate ENI AllocENI: error assigning private IP addrs: InsufficientFreeAddressesInSubnet: The specified subnet does not have enough free addresses to satisfy the request. (subnet-0c9e2f7a41b3d5e86)"}',
            ),
            (
                -1160,
                '{"level":"debug","msg":"AssignPodIPv4Address: IP address pool stats: total 14, assigned 14"}',
            ),
            (
                -1150,
                '{"level":"error","msg":"Failed to get pod IP address shop/basket-api-7c9d5f8b6-p4xvn: assignPodIPv4AddressUnsafe: no available IP/Prefix addresses"}',
            ),
            (
                -300,
                '{"level":"error","msg":"Failed to increase pool size due to not able to allocate ENI AllocENI: error assigning private IP addrs: InsufficientFreeAddressesInSubnet: The specified subnet does not have enough free addresses to satisfy the request. (subnet-0c9e2f7a41b3d5e86)"}',
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "19m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/basket-api",
                "New size: 7; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "14m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/basket-api",
                "New size: 9; reason: cpu resource utilization (percentage of request) above target",
            ),
            *[
                (
                    "19m",
                    "Warning",
                    "FailedCreatePodSandBox",
                    f"Pod/{p}",
                    sandbox.format(
                        sid=f"4e9a{i}c2b7d1f0e8a6c3b5d9f2e7a1c4b8d6e0f3a9c2b7d5e1f8a4c6b2d9e7f0{i}"
                    ),
                )
                for i, p in enumerate(bp[3:5])
            ],
            *[
                (
                    "2m (x58 over 19m)",
                    "Normal",
                    "SandboxChanged",
                    f"Pod/{p}",
                    "Pod sandbox changed, it will be killed and re-created.",
                )
                for p in bp[3:]
            ],
        ]
    )
    run = bp[:3]
    wp = [pod_name(web, s[0]) for s in web["pods"]]
    bgs = [
        bg(
            "basket-api",
            run,
            ["GET /v2/basket/{n} 200 {ms}0ms", "POST /v2/basket/{n}/items 200 {ms}0ms"],
            1,
        ),
        bg("shop-web", wp, ["GET / 200 {ms}ms", "GET /p/{n} 200 {ms}ms"], 1),
    ]
    evs = [
        ev(
            "data-batch",
            "info",
            "spark-operator: SparkApplication nightly-attribution-backfill started with 340 executors in subnets subnet-0c9e2f7a41b3d5e86",
            at=start - 900,
        ),
        ev(
            "aws-node",
            "error",
            "InsufficientFreeAddressesInSubnet: The specified subnet does not have enough free addresses to satisfy the request. (subnet-0c9e2f7a41b3d5e86)",
            **{"from": start + 10, "to": -5, "every_s": 120},
            pod="aws-node-7tqzk",
        ),
        ev(
            "basket-api",
            "warn",
            "request queue {ms} deep, p99 {n}ms (cpu throttled)",
            **{"from": start, "to": -5, "every_s": 20},
            pods=run,
        ),
        ev(
            "shop-web",
            "error",
            "POST /basket/add 504: basket-api.shop.svc:8080 timed out after 5000ms",
            **{"from": start + 60, "to": -2, "every_s": 3},
            pods=wp,
        ),
        ev(
            "basket-api",
            "error",
            "redis basket-cache: READONLY You can't write against a read only replica",
            **{"from": -7800, "to": -7500, "every_s": 60},
            pods=run,
        ),
        ev("shop-web", "info", "shop-web 30.1.4 started", at=-21600, pods=wp),
    ]
    return {
        "incident": {
            "title": "basket slow at lunch peak",
            "service": "basket",
            "severity": "sev2",
            "symptoms": ["add to basket times out"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "startup",
            "root_cause_reason": "FailedCreatePodSandBox",
            "root_cause_component": [
                "subnet-0c9e2f7a41b3d5e86",
                "daemonset/aws-node",
                "aws-node",
                "deployment/basket-api",
                "basket-api",
            ],
            "root_cause_signal": "failed to assign an IP address",
            "root_cause": "The pod subnet subnet-0c9e2f7a41b3d5e86 ran out of free addresses (a 340-executor Spark backfill started 35 min ago in the same subnets). When the HPA scaled basket-api from 3 to 9 for the lunch peak, the VPC CNI could not give the six new pods an IP (FailedCreatePodSandBox: failed to assign an IP address to container; aws-node: InsufficientFreeAddressesInSubnet); they stay in ContainerCreating and three pods carry the peak (queueing, shop-web 504). The HPA is far from its max; the Redis READONLY errors are 2 h old.",
            "evidence": [
                "basket-api new pods: FailedCreatePodSandBox … failed to assign an IP address to container",
                "aws-node: InsufficientFreeAddressesInSubnet (subnet-0c9e2f7a41b3d5e86)",
                "HPA basket-api 9 desired, 3 running",
            ],
            "remediation": "Stop or move the Spark backfill to its own subnet; add a secondary CIDR / enable prefix delegation for the pod subnets.",
        },
        "logs": logs(seed=148, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "shop-web",
                    "rps": 90,
                    "rps_after": 150,
                    "errors": {"504": (0.0, 0.08)},
                    "latency": (0.09, 0.9),
                },
                {
                    "name": "basket-api",
                    "rps": 40,
                    "rps_after": 70,
                    "errors": {"503": (0.0, 0.03)},
                    "latency": (0.03, 1.8),
                },
            ],
            start=start,
            seed=148,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "basket-cpu.md": runbook(
                "basket-api CPU-throttled",
                "At peak basket-api is CPU-bound. Raise its CPU limit to 2 cores and the HPA's maxReplicas to 30; check the Redis basket-cache for a failover (READONLY errors).",
            ),
        },
    }


# =================================================================================================
# 9. Priority preemption: the ML team's embedding-trainer got a new PriorityClass (batch-critical,
#    1000000) and preempts reco-api's pods (priority 0) to fit; they cannot be rescheduled. The
#    incident names "recommendations".
# =================================================================================================


@scenario("priority-preemption")
def priority_preemption() -> dict[str, Any]:
    start = -1560
    ns = "recs"
    rs = "6f8b9d7c5"
    reco = app(
        "reco-api",
        image="ghcr.io/larkspur/reco-api:3.8.1",
        port=8080,
        rs=rs,
        cluster_ip="172.20.45.17",
        desired=4,
        pods=[
            ("c7kvd", "1/1", "Running", "0", "8d", 2),
            ("g2nwq", "0/1", "Pending", "0", "26m", -1),
            ("q5tzx", "0/1", "Pending", "0", "26m", -1),
            ("x9lbm", "0/1", "Pending", "0", "25m", -1),
        ],
    )
    feed = app(
        "home-feed",
        image="ghcr.io/larkspur/home-feed:14.0.2",
        port=8080,
        rs="8c5d7b9f6",
        cluster_ip="172.20.45.4",
        pods=[
            ("b6rmh", "1/1", "Running", "0", "2d", 0),
            ("t8vkc", "1/1", "Running", "0", "2d", 2),
        ],
    )
    k8s = namespace(ns, NODES_EU, [reco, feed], seed=149, extra_namespaces=("ml",))
    rp = [pod_name(reco, s[0]) for s in reco["pods"]]
    k8s["kubectl get pods -n ml -o wide --show-labels"] = base.pods(
        [
            (
                f"embedding-trainer-5d9c7f8b6-{s}",
                "1/1",
                "Running",
                "0",
                "26m",
                f"10.149.{i + 1}.{60 + i}",
                NODES_EU[i][0],
                "app=embedding-trainer,pod-template-hash=5d9c7f8b6",
            )
            for i, s in ((0, "h4pqz"), (1, "k7dwm"), (1, "s2xcn"))
        ]
    )
    k8s["kubectl get deployments -n ml -o wide"] = base.deployments(
        [
            (
                "embedding-trainer",
                "3/3",
                "3",
                "3",
                "26m",
                "trainer",
                "ghcr.io/larkspur/embedding-trainer:0.4.0",
                "app=embedding-trainer",
            )
        ]
    )
    fs = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    k8s[f"kubectl describe pods {rp[1]} -n {ns}"] = pod_describe(
        rp[1],
        ns,
        node="<none>",
        owner=f"ReplicaSet/reco-api-{rs}",
        labels=f"app=reco-api,pod-template-hash={rs}",
        status="Pending",
        ip="",
        container="reco-api",
        image=reco["image"],
        state=waiting("ContainerCreating")
        .replace("ContainerCreating", "<none>")
        .replace(
            "    State:          Waiting\n      Reason:       <none>",
            "    State:          Waiting",
        ),
        ready=False,
        restarts=0,
        started=-1560,
        conditions=[("PodScheduled", "False")],
        events_rows=[
            ("Warning", "FailedScheduling", "1m (x9 over 26m)", "default-scheduler", fs)
        ],
    ).replace("Start Time:       " + when(-1560) + "\n", "")
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "26m",
                "Normal",
                "Preempted",
                "Pod/reco-api-6f8b9d7c5-d3fjx",
                f"Preempted by pod 7a1c9e2b-4d3f-4b8a-9c6e-1f0d2a3b5c7e on node {NODES_EU[0][0]}",
            ),
            (
                "26m",
                "Normal",
                "Preempted",
                "Pod/reco-api-6f8b9d7c5-m8wkt",
                f"Preempted by pod 2e8b4c1d-9a7f-4e3b-8d5c-6a0f1b2c3d4e on node {NODES_EU[1][0]}",
            ),
            (
                "25m",
                "Normal",
                "Preempted",
                "Pod/reco-api-6f8b9d7c5-v4hzs",
                f"Preempted by pod 9c3d5e7f-1a2b-4c6d-8e0f-3b4a5c6d7e8f on node {NODES_EU[1][0]}",
            ),
            (
                "26m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/reco-api-{rs}",
                f"Created pod: {rp[1]}",
            ),
            (
                "26m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/reco-api-{rs}",
                f"Created pod: {rp[2]}",
            ),
            (
                "25m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/reco-api-{rs}",
                f"Created pod: {rp[3]}",
            ),
            *[
                ("1m (x9 over 26m)", "Warning", "FailedScheduling", f"Pod/{p}", fs)
                for p in rp[1:]
            ],
        ]
    )
    k8s["kubectl events -n ml"] = events(
        [
            (
                "26m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/embedding-trainer",
                "Scaled up replica set embedding-trainer-5d9c7f8b6 to 3",
            ),
            *[
                (
                    "26m",
                    "Normal",
                    "Scheduled",
                    f"Pod/embedding-trainer-5d9c7f8b6-{s}",
                    f"Successfully assigned ml/embedding-trainer-5d9c7f8b6-{s} to {NODES_EU[i][0]}",
                )
                for i, s in ((0, "h4pqz"), (1, "k7dwm"), (1, "s2xcn"))
            ],
        ]
    )
    k8s["kubectl describe nodes " + NODES_EU[1][0]] = node_describe(
        NODES_EU[1][0],
        NODES_EU[1][2],
        pods_rows=[
            ("ml", "embedding-trainer-5d9c7f8b6-k7dwm"),
            ("ml", "embedding-trainer-5d9c7f8b6-s2xcn"),
            ("kube-system", "kube-proxy-p8zrt"),
        ],
    ).replace("100m (1%)", "3500m (44%)", 2)
    fp = [pod_name(feed, s[0]) for s in feed["pods"]]
    bgs = [
        bg("home-feed", fp, ["GET /v1/feed 200 {ms}ms"], 1),
        bg("reco-api", [rp[0]], ["GET /v2/recommendations/{n} 200 {ms}ms"], 2),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "application embedding-trainer synced: priorityClassName batch-critical (PriorityClass value 1000000, created), replicas 3, cpu request 3500m",
            at=start - 20,
        ),
        ev(
            "home-feed",
            "warn",
            "recommendations timed out after 300ms, serving trending fallback",
            **{"from": start + 30, "to": -2, "every_s": 2},
            pods=fp,
        ),
        ev(
            "reco-api",
            "error",
            "GET /v2/recommendations/{n} 503: overloaded (in-flight 64/64)",
            **{"from": start + 40, "to": -2, "every_s": 4},
            pod=rp[0],
        ),
        ev(
            "home-feed",
            "error",
            "feature store read timeout (feast-online): 2{ms}ms",
            **{"from": -9500, "to": -8700, "every_s": 150},
            pods=fp,
        ),
        ev(
            "reco-api",
            "warn",
            "model snapshot reco-2026-12-05 loaded, 1.{ms}GB",
            at=-14400,
            pod=rp[0],
        ),
    ]
    return {
        "incident": {
            "title": "Home page recommendations empty",
            "service": "recommendations",
            "severity": "sev3",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "scheduling",
            "root_cause_reason": "Preempted",
            "root_cause_component": [
                "deployment/embedding-trainer",
                "embedding-trainer",
                "batch-critical",
            ],
            "root_cause_signal": "Preempted by pod",
            "root_cause": "embedding-trainer in namespace ml was deployed 26 min ago with a new PriorityClass batch-critical (1000000) and 3 x 3500m CPU requests. To place it the scheduler preempted three of reco-api's four pods (priority 0); their replacements stay Pending (Insufficient cpu, no preemption victims). One reco-api pod carries the load and sheds it (503), home-feed falls back to trending items. The feature-store timeouts are 2.5 h old.",
            "evidence": [
                "recs events: Preempted by pod … on node … (three reco-api pods, 26m ago)",
                "reco-api pods Pending: 0/3 nodes are available: 3 Insufficient cpu",
                "argocd: embedding-trainer priorityClassName batch-critical (1000000)",
            ],
            "remediation": "Give embedding-trainer a priority below the serving tier (or preemptionPolicy: Never) and run it on its own node group; reco-api's pods then schedule again.",
        },
        "logs": logs(seed=149, background=bgs, events=evs),
        "metrics": metrics(
            [
                {"name": "home-feed", "rps": 120, "latency": (0.08, 0.4)},
                {
                    "name": "reco-api",
                    "rps": 110,
                    "rps_after": 30,
                    "errors": {"503": (0.0, 0.5)},
                    "latency": (0.04, 0.3),
                },
            ],
            start=start,
            seed=149,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "recs-empty.md": runbook(
                "Recommendations empty or stale",
                "Empty recommendations usually mean the feature store (feast-online) is slow or the daily model snapshot failed to load. Check feast-online latency and reload the model (`POST /admin/reload` on reco-api).",
            ),
        },
    }


# =================================================================================================
# 10. ndots and a slow search domain: the new VM base image copied Kubernetes' resolv.conf
#     (`search svc.corp.internal`, `options ndots:5`); every external name is first asked as
#     <name>.svc.corp.internal of the corporate resolver, which answers only after seconds. Tax
#     lookups time out. The incident says "tax".
# =================================================================================================


@scenario("dns-search-domain-slow")
def dns_search_domain_slow() -> dict[str, Any]:
    start = -1620
    iw = ["invoice-worker-01", "invoice-worker-02", "invoice-worker-03"]
    bgs = [
        bg("invoice-worker", iw, ["invoice {n} finalised in {ms}ms"], 3, until=start),
        bg(
            "invoice-worker",
            iw,
            ["invoice {n} finalised in 5{ms}0ms"],
            12,
            **{"from": start},
        ),
        bg(
            "billing-api",
            ["billing-api-0", "billing-api-1"],
            ["GET /v1/invoices/{n} 200 {ms}ms"],
            2,
        ),
    ]
    evs = [
        ev(
            "packer",
            "info",
            "image base-ubuntu-2404-v37 published: /etc/resolv.conf from template 'k8s-compat' (search svc.corp.internal corp.internal; options ndots:5 timeout:5)",
            at=-20000,
        ),
        ev(
            "terraform",
            "info",
            "apply billing-workers: launch template lt-0f3a… -> base-ubuntu-2404-v37; instance refresh started",
            at=start - 300,
        ),
        ev(
            "invoice-worker",
            "warn",
            "resolve api.taxcloud.example took 5{ms}ms",
            **{"from": start, "to": -4, "every_s": 9},
            pods=iw,
        ),
        ev(
            "invoice-worker",
            "error",
            "taxcloud POST https://api.taxcloud.example/v2/calculate failed: timeout after 5000ms (dns 5012ms, connect 0ms)",
            **{"from": start + 10, "to": -3, "every_s": 6},
            pods=iw,
        ),
        ev(
            "corp-dns",
            "warn",
            "query api.taxcloud.example.svc.corp.internal A from 10.70.4.{ms}: forwarded to ad-dc-02, answered NXDOMAIN after 6.{ms}s",
            **{"from": start, "to": -5, "every_s": 15},
            labels={"host": "corp-dns-1"},
        ),
        ev(
            "corp-dns",
            "warn",
            "forwarder ad-dc-02.corp.internal slow: p95 4.{ms}s",
            **{"from": -7000, "to": -5, "every_s": 600},
            labels={"host": "corp-dns-1"},
        ),
        ev(
            "billing-api",
            "error",
            "GET /v1/invoices/{n}/pdf 500: invoice not finalised",
            **{"from": start + 60, "to": -3, "every_s": 10},
            pods=["billing-api-0", "billing-api-1"],
        ),
        ev(
            "invoice-worker",
            "error",
            "taxcloud 429 Too Many Requests (burst limit); backing off 2s",
            **{"from": -9500, "to": -9000, "every_s": 60},
            pods=iw,
        ),
    ]
    return {
        "incident": {
            "title": "tax calls timing out",
            "service": "tax",
            "severity": "sev3",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "dns",
            "root_cause_component": [
                "svc.corp.internal",
                "api.taxcloud.example.svc.corp.internal",
                "resolv.conf",
                "base-ubuntu-2404-v37",
            ],
            "root_cause_signal": "svc.corp.internal",
            "root_cause": "The invoice workers were refreshed onto base image v37, whose resolv.conf (copied from a Kubernetes template) has `search svc.corp.internal corp.internal` and `options ndots:5`. api.taxcloud.example has fewer than 5 dots, so it is first asked as api.taxcloud.example.svc.corp.internal of the corporate resolver, which forwards to a slow AD DNS and answers NXDOMAIN only after about 5 s; the tax call's 5 s budget is gone before the real name is asked. TaxCloud itself answers at once; its 429s were 2.5 h ago; billing-api's 500s are downstream.",
            "evidence": [
                "probe taxcloud-search-suffix: dns timeout for api.taxcloud.example.svc.corp.internal",
                "probe taxcloud: none (the vendor answers)",
                "invoice-worker: dns 5012ms, connect 0ms; corp-dns: api.taxcloud.example.svc.corp.internal NXDOMAIN after 5 s",
                "packer: base image v37 resolv.conf ndots:5",
            ],
            "remediation": "Ship the workers' resolv.conf without the Kubernetes search list (ndots:1), or call the FQDN with a trailing dot; roll the instance refresh back to v36 meanwhile.",
            "root_cause_probe": "taxcloud-search-suffix",
            "netcheck": {
                "taxcloud-search-suffix": {"failed_layer": "dns", "reason": "timeout"},
                "taxcloud": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=150, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "invoice-worker",
                    "rps": 6,
                    "rps_after": 1.5,
                    "errors": {"500": (0.0, 0.6)},
                    "latency": (0.2, 5.0),
                },
                {
                    "name": "billing-api",
                    "rps": 15,
                    "errors": {"500": (0.0, 0.07)},
                    "latency": (0.03, 0.03),
                },
            ],
            start=start,
            seed=150,
        ),
        "targets": [
            {
                "name": "taxcloud-search-suffix",
                "url": "http://api.taxcloud.example.svc.corp.internal/v2/ping",
                "fault": {"kind": "dns_slow", "delay_s": 8},
                "timeout_s": 5,
            },
            {
                "name": "taxcloud",
                "url": "https://api.taxcloud.example/v2/ping",
                "fault": {"kind": "ok", "body": '{"pong":true}'},
            },
        ],
        "runbooks": {
            "taxcloud.md": runbook(
                "TaxCloud errors",
                "TaxCloud rate-limits bursts (429). If tax calls fail, lower invoice-worker's concurrency (TAX_CONCURRENCY=4) and ask TaxCloud support to raise our burst limit.",
            ),
        },
    }


# =================================================================================================
# 11. A proxy body-size limit: an edge-proxy config clean-up dropped the uploads vhost's
#     client_max_body_size 50m, the global 1m applies, every upload above 1 MB gets nginx's 413.
#     upload-api sees fewer requests and no errors. The incident says "uploads".
# =================================================================================================


@scenario("proxy-body-size-413")
def proxy_body_size_413() -> dict[str, Any]:
    start = -1140
    ep = ["edge-proxy-a", "edge-proxy-b"]
    up = ["upload-api-0", "upload-api-1"]
    bgs = [
        bg(
            "edge-proxy",
            ep,
            ['10.0.{ms}.4 "GET /v1/files/{n} HTTP/2.0" 200 {n} rt=0.0{ms}'],
            1.5,
        ),
        bg(
            "upload-api", up, ["POST /v1/upload 201 size={n}KB {ms}0ms"], 3, until=start
        ),
        bg(
            "upload-api",
            up,
            ["POST /v1/upload 201 size={ms}KB {ms}ms"],
            20,
            **{"from": start},
        ),
        bg("upload-api", up, ["GET /v1/files/{n} 200 {ms}ms"], 2),
    ]
    evs = [
        ev(
            "netops",
            "info",
            "edge-proxy config PR #412 'dedupe vhost settings' deployed: removed per-vhost client_max_body_size, proxy_read_timeout (use http{} defaults)",
            at=start - 40,
        ),
        ev(
            "edge-proxy",
            "error",
            'client intended to send too large body: {n}00 bytes, client: 10.0.{ms}.4, server: uploads.quillbox.example, request: "POST /v1/upload HTTP/2.0", host: "uploads.quillbox.example"',
            **{"from": start, "to": -2, "every_s": 5},
            pods=ep,
        ),
        ev(
            "edge-proxy",
            "info",
            '10.0.{ms}.4 "POST /v1/upload HTTP/2.0" 413 176 rt=0.000',
            **{"from": start, "to": -2, "every_s": 5},
            pods=ep,
        ),
        ev(
            "web-app",
            "error",
            "upload failed: HTTP 413 (file {n}.pdf, 4.{ms} MB)",
            **{"from": start + 5, "to": -3, "every_s": 6},
            pods=["web-app-0"],
        ),
        ev(
            "upload-api",
            "warn",
            "S3 PutObject slow: {ms}00ms (bucket quillbox-uploads)",
            **{"from": -8600, "to": -7900, "every_s": 60},
            pods=up,
        ),
        ev(
            "edge-proxy",
            "warn",
            "upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/{n}",
            **{"from": -7000, "to": -5, "every_s": 400},
            pods=ep,
        ),
        ev(
            "upload-api",
            "info",
            "upload-api 3.9.1 started (virus scan: clamd 1.4)",
            at=-4300,
            pods=up,
        ),
    ]
    return {
        "incident": {
            "title": "Can't upload files",
            "service": "uploads",
            "severity": "sev2",
            "symptoms": ["bigger files fail, small ones work"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "http",
            "root_cause_component": [
                "edge-proxy",
                "uploads.quillbox.example",
                "client_max_body_size",
            ],
            "root_cause_signal": "413",
            "root_cause": "An edge-proxy config clean-up (PR #412, 19 min ago) removed the uploads vhost's client_max_body_size 50m, so nginx's global 1m applies: every upload above 1 MB is refused by the proxy with 413 Request Entity Too Large ('client intended to send too large body') and never reaches upload-api, whose rate drops and which logs no error. The S3 slowness is 2 h old; upload-api's release is older and innocent.",
            "evidence": [
                "probe uploads: http 413 from nginx",
                "edge-proxy: client intended to send too large body … server: uploads.quillbox.example",
                "netops: removed per-vhost client_max_body_size",
                "upload-api request rate dropped, no errors",
            ],
            "remediation": "Restore client_max_body_size 50m on the uploads vhost (and proxy_read_timeout) and reload edge-proxy.",
            "root_cause_probe": "uploads",
            "netcheck": {
                "uploads": {"failed_layer": "http", "reason": "http_413"},
                "files": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=151, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "edge-proxy",
                    "rps": 60,
                    "errors": {"413": (0.0, 0.05)},
                    "latency": (0.02, 0.02),
                },
                {
                    "name": "upload-api",
                    "rps": 20,
                    "rps_after": 17,
                    "latency": (0.3, 0.05),
                },
            ],
            start=start,
            seed=151,
        ),
        "targets": [
            {
                "name": "uploads",
                "url": "https://uploads.quillbox.example/v1/upload",
                "fault": {
                    "kind": "http_status",
                    "status": 413,
                    "body": "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
                    "headers": {"Server": "nginx", "Content-Type": "text/html"},
                    "paths": {"/healthz": 200},
                },
            },
            {
                "name": "files",
                "url": "https://files.quillbox.example/v1/files/healthz",
                "fault": {"kind": "ok", "body": "ok"},
            },
        ],
        "runbooks": {
            "upload-failures.md": runbook(
                "Uploads failing",
                "Upload failures usually come from S3: check the bucket policy of quillbox-uploads and S3 latency; if S3 is slow, raise upload-api's S3 timeout (S3_TIMEOUT_MS=60000) and restart it.",
            ),
        },
    }


# =================================================================================================
# 12. A renewed certificate without its intermediate, on one host only: the partner host's renewal
#     script installed cert.pem instead of fullchain.pem; browsers that cached the intermediate
#     still work, partners' EDI clients fail. The main API host is fine. The incident says "EDI".
# =================================================================================================


@scenario("tls-intermediate-dropped")
def tls_intermediate_dropped() -> dict[str, Any]:
    start = -2280
    gw = ["partner-gw-1", "partner-gw-2"]
    bgs = [
        bg(
            "partner-gw",
            gw,
            ['"POST /edi/v2/messages HTTP/1.1" 202 {ms}ms partner=P{n}'],
            4,
            until=start,
        ),
        bg(
            "partner-gw",
            gw,
            ['"GET /edi/v2/status HTTP/1.1" 200 {ms}ms partner=P{n} (browser)'],
            30,
            **{"from": start},
        ),
        bg(
            "public-api",
            ["public-api-1", "public-api-2"],
            ['"GET /v1/shipments/{n} HTTP/1.1" 200 {ms}ms'],
            1.5,
        ),
        bg(
            "edi-ingest",
            ["edi-ingest-0"],
            ["processed EDI 214 message {n}"],
            5,
            until=start,
        ),
    ]
    evs = [
        ev(
            "certbot",
            "info",
            "renewed certificate for partners.acmefreight.example (expires 2027-03-05); deploy hook: cp /etc/letsencrypt/live/partners/cert.pem /etc/nginx/tls/partners.crt; nginx -s reload",
            at=start - 20,
            labels={"host": "partner-gw-1"},
        ),
        ev(
            "partner-gw",
            "info",
            "nginx: signal process started (reload)",
            at=start - 18,
            pods=gw,
        ),
        ev(
            "partner-gw",
            "info",
            "SSL_do_handshake() failed (SSL: error:0A000412:SSL routines::sslv3 alert bad certificate:SSL alert number 42) while SSL handshaking, client: 203.0.113.{ms}, server: 0.0.0.0:443",
            **{"from": start + 30, "to": -5, "every_s": 12},
            pods=gw,
        ),
        ev(
            "edi-ingest",
            "warn",
            "no EDI message from any partner for {ms} minutes (expected every 2 min)",
            **{"from": start + 600, "to": -10, "every_s": 300},
            pod="edi-ingest-0",
        ),
        ev(
            "shipment-tracker",
            "error",
            "carrier status stale for {n} shipments (last EDI update > 30 min)",
            **{"from": start + 1800, "to": -5, "every_s": 20},
            pods=["shipment-tracker-0", "shipment-tracker-1"],
        ),
        ev(
            "public-api",
            "warn",
            "certificate for api.acmefreight.example renewed, valid until 2027-02-20",
            at=-86000,
            pods=["public-api-1"],
        ),
        ev(
            "edi-ingest",
            "error",
            "EDI 990 from partner P{n} rejected: segment count mismatch",
            **{"from": -9800, "to": -9000, "every_s": 200},
            pod="edi-ingest-0",
        ),
    ]
    return {
        "incident": {
            "title": "Partners report EDI connection errors",
            "service": "EDI",
            "severity": "sev2",
            "symptoms": [
                "partners say our certificate is not trusted",
                "no carrier updates",
            ],
            "description": "Two partners emailed; our browser shows the site fine.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "tls",
            "root_cause_component": ["partners.acmefreight.example", "partner-gw"],
            "root_cause_signal": "certificate_untrusted",
            "root_cause": "certbot renewed partners.acmefreight.example 38 min ago and its deploy hook copied cert.pem (the leaf alone) instead of fullchain.pem: the host no longer sends the intermediate. Browsers that cached it still connect; partners' EDI clients cannot build the chain (unable to get local issuer certificate) and abort the handshake ('bad certificate' in nginx), so no EDI message arrives and carrier updates go stale. api.acmefreight.example, renewed yesterday, sends its chain. The segment-count rejections are 2.5 h old.",
            "evidence": [
                "probe partners: tls certificate_untrusted (issuer not found)",
                "probe public-api: none",
                "certbot deploy hook: cp …/cert.pem (not fullchain.pem)",
                "partner-gw: sslv3 alert bad certificate from partner clients",
            ],
            "remediation": "Install fullchain.pem for partners.acmefreight.example and reload nginx; fix the deploy hook and add a chain check (openssl s_client -verify_return_error) to the renewal.",
            "root_cause_probe": "partners",
            "netcheck": {
                "partners": {"failed_layer": "tls", "reason": "certificate_untrusted"},
                "public-api": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=152, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "partner-gw",
                    "rps": 4,
                    "rps_after": 0.05,
                    "latency": (0.05, 0.05),
                },
                {
                    "name": "public-api",
                    "rps": 35,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.04, 0.04),
                },
                {
                    "name": "shipment-tracker",
                    "rps": 10,
                    "errors": {"500": (0.0, 0.05)},
                    "latency": (0.02, 0.02),
                    "change_at": start + 1800,
                },
            ],
            start=start,
            seed=152,
        ),
        "targets": [
            {
                "name": "partners",
                "url": "https://partners.acmefreight.example/edi/v2/status",
                "fault": {"kind": "tls_wrong_chain"},
            },
            {
                "name": "public-api",
                "url": "https://api.acmefreight.example/v1/health",
                "fault": {"kind": "ok", "body": '{"ok":true}'},
            },
        ],
        "runbooks": {
            "edi-stale.md": runbook(
                "No EDI messages",
                "When EDI stops, a partner usually changed their AS2/SFTP endpoint or our IP allow-list entry expired on their side. Ask the partner to check their allow-list for 198.51.100.0/28 and re-send.",
            ),
        },
    }


# =================================================================================================
# 13. Database max_connections: reporting-worker 2.0 raised its pool from 10 to 40 per process; with
#     eight processes orders-db's 300 slots are full and orders-api (the loud one) cannot connect.
#     The incident says "checkout".
# =================================================================================================


@scenario("db-max-connections")
def db_max_connections() -> dict[str, Any]:
    start = -1320
    oa = [f"orders-api-{i}" for i in range(4)]
    rw = [f"reporting-worker-{i}" for i in range(8)]
    bgs = [
        bg(
            "orders-api",
            oa,
            ["POST /v2/orders 201 {ms}ms", "GET /v2/orders/{n} 200 {ms}ms"],
            1,
        ),
        bg("reporting-worker", rw, ["report {n} rows exported in {ms}0ms"], 10),
        bg(
            "orders-db",
            ["orders-db-primary"],
            ["LOG:  checkpoint complete: wrote {n} buffers"],
            300,
        ),
    ]
    evs = [
        ev(
            "reporting-worker",
            "info",
            "reporting-worker 2.0.0 started; db pool: min_idle=40 max=40 (was 10)",
            **{"from": start - 90, "to": start - 20, "every_s": 10},
            pods=rw,
        ),
        ev(
            "orders-api",
            "info",
            "orders-api 9.3.1 started (feature: gift cards)",
            at=start - 3600,
            pods=oa,
        ),
        ev(
            "orders-db",
            "error",
            "FATAL:  remaining connection slots are reserved for non-replication superuser connections",
            **{"from": start, "to": -2, "every_s": 2},
            pods=["orders-db-primary"],
        ),
        ev(
            "orders-db",
            "warn",
            "LOG:  connections: {ms} idle from application_name=reporting-worker, max_connections=300",
            **{"from": start, "to": -10, "every_s": 120},
            pods=["orders-db-primary"],
        ),
        ev(
            "orders-api",
            "error",
            "POST /v2/orders 500: could not acquire connection: FATAL: sorry, too many clients already",
            **{"from": start + 5, "to": -2, "every_s": 1.5},
            pods=oa,
        ),
        ev(
            "checkout-web",
            "error",
            "place order failed: orders-api 500",
            **{"from": start + 5, "to": -2, "every_s": 2},
            pods=["checkout-web-0", "checkout-web-1"],
        ),
        ev(
            "orders-db",
            "error",
            "ERROR:  deadlock detected (process {n} waits for ShareLock on transaction {n})",
            **{"from": -9400, "to": -9000, "every_s": 100},
            pods=["orders-db-primary"],
        ),
    ]
    return {
        "incident": {
            "title": "checkout failing",
            "service": "checkout",
            "severity": "sev1",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["reporting-worker", "orders-db"],
            "root_cause_signal": "reporting-worker",
            "root_cause": "reporting-worker 2.0.0 (deployed just before the start) keeps 40 idle connections per process instead of 10; eight processes hold 320 connections against orders-db's max_connections 300, so the database refuses every new connection (remaining slots reserved for superuser / too many clients) and orders-api, whose pool recycles, fails order placement with 500. orders-api is the loud victim; its gift-card release is an hour older; the deadlocks are 2.5 h old.",
            "evidence": [
                "orders-db: remaining connection slots are reserved … ; idle connections from application_name=reporting-worker",
                "reporting-worker 2.0.0: db pool max=40 (was 10)",
                "pg connections at 300 from the start; orders-api 500 too many clients",
            ],
            "remediation": "Roll reporting-worker back (or set its pool to 5 with idle timeout) and put PgBouncer in front of orders-db; raise max_connections only with memory headroom.",
        },
        "logs": logs(seed=153, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "orders-api",
                    "rps": 45,
                    "errors": {"500": (0.001, 0.62)},
                    "latency": (0.05, 0.4),
                },
                {
                    "name": "checkout-web",
                    "rps": 40,
                    "errors": {"500": (0.001, 0.6)},
                    "latency": (0.1, 0.5),
                },
                {"name": "reporting-worker", "rps": 2, "latency": (0.8, 0.8)},
            ],
            start=start,
            seed=153,
            gauges=[
                {
                    "name": "pg_stat_activity_count",
                    "labels": {"service": "orders-db"},
                    "before": 115,
                    "after": 300,
                    "cap": 300,
                    "change_at": start - 60,
                },
                {
                    "name": "pg_settings_max_connections",
                    "labels": {"service": "orders-db"},
                    "before": 300,
                    "after": 300,
                    "noise": 0.0,
                },
                {
                    "name": "db_pool_in_use",
                    "labels": {"service": "reporting-worker"},
                    "before": 10,
                    "after": 40,
                    "change_at": start - 60,
                    "noise": 0.0,
                },
                {
                    "name": "db_pool_in_use",
                    "labels": {"service": "orders-api"},
                    "before": 12,
                    "after": 2,
                },
            ],
        ),
        "runbooks": {
            "orders-db-connections.md": runbook(
                "orders-db out of connections",
                "orders-api has leaked connections before (9.1.x). If orders-db runs out of connections, restart orders-api's pods one by one; the leak is fixed by the restart.",
            ),
        },
    }


# =================================================================================================
# 14. A feature flag turned on for everyone: `tax-engine-v2` went to 100 %; pricing-api's new engine
#     throws on Swiss cantons, so one path (quotes for CH addresses) answers 500. The incident says
#     "checkout" and names Switzerland only in its title.
# =================================================================================================


@scenario("feature-flag-500")
def feature_flag_500() -> dict[str, Any]:
    start = -1080
    pa = ["pricing-api-0", "pricing-api-1", "pricing-api-2"]
    cw = ["checkout-web-0", "checkout-web-1"]
    bgs = [
        bg(
            "pricing-api",
            pa,
            [
                "POST /v1/quote 200 {ms}ms country=DE",
                "POST /v1/quote 200 {ms}ms country=FR",
                "GET /v1/prices/{n} 200 {ms}ms",
            ],
            1,
        ),
        bg(
            "checkout-web",
            cw,
            ["GET /checkout 200 {ms}ms", "POST /checkout/address 200 {ms}ms"],
            1.5,
        ),
        bg("flagd", ["flagd-0"], ["evaluated {n} flags in the last minute"], 60),
    ]
    evs = [
        ev(
            "flagd",
            "info",
            'flag "tax-engine-v2" updated by j.keller: targeting rollout 10% -> 100% (variant on)',
            at=start - 15,
            pod="flagd-0",
        ),
        ev(
            "pricing-api",
            "error",
            'POST /v1/quote 500 country=CH: java.lang.NullPointerException: Cannot invoke "CantonRate.rate()" because "canton" is null at TaxEngineV2.vatFor(TaxEngineV2.java:118) [flag tax-engine-v2=on]',
            **{"from": start, "to": -2, "every_s": 4},
            pods=pa,
        ),
        ev(
            "checkout-web",
            "error",
            "POST /checkout/quote 502: pricing-api answered 500 (cart {n})",
            **{"from": start, "to": -2, "every_s": 2},
            pods=cw,
        ),
        ev(
            "checkout-web",
            "info",
            "checkout-web 44.0.0 started (new address form)",
            at=start - 2400,
            pods=cw,
        ),
        ev(
            "pricing-api",
            "error",
            "currency feed ecb timeout after 3000ms; using cached rates",
            **{"from": -9000, "to": -8200, "every_s": 120},
            pods=pa,
        ),
        ev(
            "pricing-api",
            "warn",
            "price cache hit ratio 0.{ms}",
            **{"from": -7200, "to": -10, "every_s": 600},
            pods=pa,
        ),
    ]
    return {
        "incident": {
            "title": "Swiss customers cannot check out",
            "service": "checkout",
            "severity": "sev2",
            "symptoms": ["500 at the order summary"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["pricing-api", "tax-engine-v2"],
            "root_cause_signal": "tax-engine-v2",
            "root_cause": "The feature flag tax-engine-v2 was moved from 10 % to 100 % 18 min ago. pricing-api's new tax engine has no canton rates and throws a NullPointerException for every Swiss (country=CH) quote, so POST /v1/quote answers 500 on that path only; other countries are fine. checkout-web relays it as 502 (the louder errors); its own release is 40 min older and innocent; the ECB feed timeouts are 2.5 h old.",
            "evidence": [
                "flagd: tax-engine-v2 rollout 10% -> 100%",
                "pricing-api: POST /v1/quote 500 country=CH NullPointerException at TaxEngineV2.vatFor [flag tax-engine-v2=on]",
                "checkout-web 502s relay pricing-api's 500",
            ],
            "remediation": "Set tax-engine-v2 back to 10 % (or exclude country=CH) in flagd; fix the canton table before widening the rollout.",
        },
        "logs": logs(seed=154, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "checkout-web",
                    "rps": 35,
                    "errors": {"502": (0.0, 0.05)},
                    "latency": (0.12, 0.12),
                },
                {
                    "name": "pricing-api",
                    "rps": 70,
                    "errors": {"500": (0.0005, 0.03)},
                    "latency": (0.02, 0.02),
                },
            ],
            start=start,
            seed=154,
        ),
        "runbooks": {
            "pricing-500.md": runbook(
                "pricing-api answering 500",
                "Stale rates in the price cache make pricing-api fail quotes. Flush it (`redis-cli -n 3 FLUSHDB` on price-cache) and check the ECB currency feed.",
            ),
        },
    }


# =================================================================================================
# 15. A Kafka consumer rebalance storm: shipment-consumer 5.0 fetches 10000 records per poll; a batch
#     takes longer than max.poll.interval.ms, the consumer is kicked out, the group rebalances every
#     minute and lag grows. The rebalance rate jumped; the brokers are fine. The incident says
#     "tracking".
# =================================================================================================


@scenario("kafka-rebalance-storm")
def kafka_rebalance_storm() -> dict[str, Any]:
    start = -1860
    sc = [f"shipment-consumer-{i}" for i in range(6)]
    bgs = [
        bg(
            "tracking-api",
            ["tracking-api-0", "tracking-api-1"],
            ["GET /v1/track/{n} 200 {ms}ms"],
            1,
        ),
        bg(
            "shipment-consumer",
            sc,
            ["committed offset {n} on shipment-events-{ms}"],
            3,
            until=start,
        ),
        bg(
            "kafka",
            ["kafka-0", "kafka-1", "kafka-2"],
            ["[ReplicaManager broker={ms}] fetch session cache size {n}"],
            60,
        ),
    ]
    evs = [
        ev(
            "shipment-consumer",
            "info",
            "shipment-consumer 5.0.0 started: max.poll.records=10000 (was 500), max.poll.interval.ms=300000, processing ~40ms/record",
            at=start - 120,
            pods=sc,
        ),
        ev(
            "shipment-consumer",
            "warn",
            "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. Leaving group.",
            **{"from": start, "to": -5, "every_s": 50},
            pods=sc,
        ),
        ev(
            "kafka",
            "info",
            "[GroupCoordinator 1]: Preparing to rebalance group shipment-consumer in state PreparingRebalance with old generation {n} (reason: Removing member consumer-{ms} on LeaveGroup)",
            **{"from": start, "to": -5, "every_s": 50},
            pods=["kafka-1"],
        ),
        ev(
            "shipment-consumer",
            "error",
            "CommitFailedException: Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member",
            **{"from": start + 20, "to": -5, "every_s": 25},
            pods=sc,
        ),
        ev(
            "tracking-api",
            "warn",
            "shipment {n} status older than 20 min (last event {ms} min ago)",
            **{"from": start + 600, "to": -2, "every_s": 4},
            pods=["tracking-api-0", "tracking-api-1"],
        ),
        ev(
            "kafka",
            "warn",
            "[Partition shipment-events-7 broker=2] ISR shrunk from 2,0,1 to 2,0",
            **{"from": -9000, "to": -8400, "every_s": 200},
            pods=["kafka-2"],
        ),
        ev(
            "kafka",
            "info",
            "[KafkaServer id=2] started (restarted after OS patch)",
            at=-8300,
            pod="kafka-2",
        ),
    ]
    offsets = list(range(-7200, 1, 15))
    lag = [[t, float(0 if t < start else round((t - start) * 38.5))] for t in offsets]
    reb = []
    total = 0.0
    for t in offsets:
        total += 0.0004 * 15 if t < start else 15 / 50
        reb.append([t, round(total, 2)])
    m = metrics(
        [
            {"name": "tracking-api", "rps": 50, "latency": (0.02, 0.02)},
        ],
        start=start,
        seed=155,
        gauges=[
            {
                "name": "kafka_consumer_records_consumed_rate",
                "labels": {"service": "shipment-consumer"},
                "before": 220,
                "after": 25,
            }
        ],
    )
    m["series"].append(
        {
            "name": "kafka_consumergroup_lag_sum",
            "labels": {
                "consumergroup": "shipment-consumer",
                "topic": "shipment-events",
            },
            "type": "gauge",
            "points": lag,
        }
    )
    m["series"].append(
        {
            "name": "kafka_consumer_coordinator_rebalance_total",
            "labels": {"service": "shipment-consumer"},
            "type": "counter",
            "points": reb,
        }
    )
    return {
        "incident": {
            "title": "tracking updates delayed",
            "service": "tracking",
            "severity": "sev3",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["shipment-consumer"],
            "root_cause_signal": "max.poll",
            "root_cause": "shipment-consumer 5.0.0 (deployed 2 min before the start) fetches 10000 records per poll at ~40 ms each, about 400 s of work against max.poll.interval.ms 300 s. Each consumer is kicked out of the group before it commits, the group rebalances about every 50 s (the rebalance rate jumped from ~0 to 1.2/min), commits fail and lag grows by ~38 records/s; tracking-api only shows stale statuses. The broker's ISR shrink and restart were 2.5 h ago and are healed.",
            "evidence": [
                "shipment-consumer 5.0.0: max.poll.records=10000 (was 500)",
                "consumer poll timeout has expired … Leaving group, CommitFailedException",
                "kafka_consumer_coordinator_rebalance_total rate jumped at the start; lag rising",
            ],
            "remediation": "Roll back to max.poll.records=500 (or raise max.poll.interval.ms above a batch's time); do not add consumers while the group is rebalancing.",
        },
        "logs": logs(seed=155, background=bgs, events=evs),
        "metrics": m,
        "runbooks": {
            "consumer-lag.md": runbook(
                "Shipment consumer lag",
                "Lag on shipment-events means we need more consumers: scale shipment-consumer to 12 and, if the lag keeps growing, add partitions to shipment-events (24 -> 48). Check the brokers for under-replicated partitions.",
            ),
        },
    }


# =================================================================================================
# 16. A goroutine leak seen as a rising metric long before the failure: fx-stream 4.3.0 (105 min ago)
#     leaks a goroutine per client subscription; go_goroutines climbs from 900 to 190 000, GC eats the
#     CPU, pushes stall and then the pods are OOM-killed. The incident says "prices".
# =================================================================================================


@scenario("goroutine-leak")
def goroutine_leak() -> dict[str, Any]:
    start = -1500
    deploy = -6300
    fx = ["fx-stream-0", "fx-stream-1"]
    tw = ["trading-web-0", "trading-web-1", "trading-web-2"]
    bgs = [
        bg(
            "fx-stream",
            fx,
            [
                "subscription opened client={n} pairs=EURUSD,GBPUSD",
                "subscription closed client={n}",
            ],
            2,
        ),
        bg(
            "trading-web",
            tw,
            ["GET /quotes 200 {ms}ms", "POST /orders 201 {ms}ms"],
            1.5,
        ),
    ]
    evs = [
        ev(
            "fx-stream",
            "info",
            "fx-stream 4.3.0 started (subscriptions: per-client fan-out goroutine)",
            at=deploy,
            pods=fx,
        ),
        ev(
            "fx-stream",
            "warn",
            "GC pause {ms}ms, heap 2.{ms}GB, goroutines {n}",
            **{"from": start - 1800, "to": -5, "every_s": 60},
            pods=fx,
        ),
        ev(
            "fx-stream",
            "error",
            "push to client {n} stalled > 2s, dropping quote batch",
            **{"from": start, "to": -2, "every_s": 3},
            pods=fx,
        ),
        ev(
            "kubelet",
            "warn",
            "fx-stream-1 container fx-stream OOMKilled (limit 3Gi), restarting",
            at=start + 420,
        ),
        ev(
            "kubelet",
            "warn",
            "fx-stream-0 container fx-stream OOMKilled (limit 3Gi), restarting",
            at=start + 610,
        ),
        ev(
            "trading-web",
            "error",
            "quote for EURUSD stale by {ms}00ms, order rejected (max age 1500ms)",
            **{"from": start, "to": -2, "every_s": 2},
            pods=tw,
        ),
        ev(
            "fx-stream",
            "warn",
            "LP feed lmax-prod disconnected, reconnecting (attempt 1)",
            **{"from": -7200, "to": -10, "every_s": 900},
            pods=fx,
        ),
        ev(
            "trading-web",
            "info",
            "trading-web 12.8.0 started",
            at=start - 2700,
            pods=tw,
        ),
    ]
    offsets = list(range(-7200, 1, 15))

    def ramp(t: int) -> float:
        if t < deploy:
            return 900.0
        return round(900 + (t - deploy) * 30.0, 0)

    gor = [[t, ramp(t)] for t in offsets]
    heap = [[t, round(0.35e9 + ramp(t) * 14000, 0)] for t in offsets]
    m = metrics(
        [
            {
                "name": "trading-web",
                "rps": 40,
                "errors": {"409": (0.001, 0.2)},
                "latency": (0.05, 0.06),
            },
            {
                "name": "fx-stream",
                "rps": 30,
                "errors": {"503": (0.0, 0.15)},
                "latency": (0.004, 0.9),
            },
        ],
        start=start,
        seed=156,
    )
    m["series"].append(
        {
            "name": "go_goroutines",
            "labels": {"service": "fx-stream"},
            "type": "gauge",
            "points": gor,
        }
    )
    m["series"].append(
        {
            "name": "go_memstats_heap_inuse_bytes",
            "labels": {"service": "fx-stream"},
            "type": "gauge",
            "points": heap,
        }
    )
    return {
        "incident": {
            "title": "FX prices frozen on the trading screen",
            "service": "prices",
            "severity": "sev1",
            "symptoms": ["orders rejected: stale quote"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["fx-stream"],
            "root_cause_signal": "goroutines",
            "root_cause": "fx-stream 4.3.0, deployed 105 min ago, starts a fan-out goroutine per client subscription and never stops it when the client goes away. go_goroutines has climbed steadily since the deploy (900 to ~190 000) and the heap with it; GC pauses grow until pushes stall (quotes stale, trading-web rejects orders) and the pods are OOM-killed. The LP feed reconnects are routine; trading-web's release is innocent.",
            "evidence": [
                "go_goroutines of fx-stream rising linearly since 4.3.0, heap with it",
                "fx-stream: GC pause … goroutines N; push to client stalled; OOMKilled",
                "trading-web: quote stale, order rejected",
            ],
            "remediation": "Roll fx-stream back to 4.2.x; fix the subscription goroutine to exit on the client's context cancellation; alert on go_goroutines growth.",
        },
        "logs": logs(seed=156, background=bgs, events=evs),
        "metrics": m,
        "runbooks": {
            "stale-quotes.md": runbook(
                "Quotes stale",
                "Stale quotes mean the liquidity-provider feed is down. Fail over fx-stream to the backup LP (`FEED=lmax-dr`) and restart it.",
            ),
        },
    }


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
