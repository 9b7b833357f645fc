"""Scenarios generated from a catalogue, for `manage.py evaluate --generated N --seed S` (issue 21 item 7).

A scenario is drawn from three tables: a topology (a chain gateway → api → db, or a fan-out
gateway → several services), a fault class (what breaks, where, the lines it writes) and red
herrings (a victim relaying the error, a noisy service, stale errors from before the window, a
runbook that matches the symptoms and not the cause). Each becomes a folder in the project's
scenario format (mcpservers/scenarios/README.md: incident.json, expected.json, logs.jsonl,
metrics.json, runbooks/) with its expected answer (layer, component, signal), so `evaluate`
scores it with its usual rule. Deterministic for a seed: one `random.Random(seed)`, no clock.

It shares no code with the planner (`reasoning/`) or the engine (an import-linter contract in
pyproject.toml forbids it): a generator that knew the planner's rules would measure nothing.
Stdlib only. Data-only scenarios: no listeners (targets.json) and no Kubernetes snapshot yet.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

SEPARATOR = "~"  # gen-<n>~<fault>: a generated folder's name carries its fault class
STARTED_OFFSET_S = -1500
WINDOW = {"start_offset_s": -2400, "end_offset_s": 0}
DOMAINS = (
    "orders",
    "payments",
    "billing",
    "search",
    "cart",
    "ledger",
    "inventory",
    "shipping",
    "profile",
    "pricing",
)


@dataclass(frozen=True)
class Topology:
    """Who calls whom: edges caller → callee; `entry` is what a user names."""

    name: str
    entry: str
    edges: tuple[tuple[str, str], ...]
    db: str


def chain(rng: random.Random) -> Topology:
    domain = rng.choice(DOMAINS)
    gw, api, db = f"{domain}-gateway", f"{domain}-api", f"{domain}-db"
    return Topology("chain", gw, ((gw, api), (api, db)), db)


def fan_out(rng: random.Random) -> Topology:
    names = rng.sample(DOMAINS, 4)
    gw = f"{names[0]}-gateway"
    apis = tuple(f"{n}-api" for n in names[1:])
    return Topology("fan-out", gw, tuple((gw, a) for a in apis), f"{names[1]}-db")


TOPOLOGIES: tuple[Callable[[random.Random], Topology], ...] = (chain, fan_out)


@dataclass(frozen=True)
class Fault:
    """One fault class: the layer, what it writes in the culprit's and its caller's logs."""

    name: str
    layer: str
    signal: str
    culprit_line: str  # {callee} is the culprit's own dependency, {host} its DNS name
    caller_line: str  # what the culprit's caller logs ({culprit}, {host})
    blame: str  # "service": the culprit is the service; "host": its DNS name
    runbook: str


FAULTS: tuple[Fault, ...] = (
    Fault(
        "pool-exhaustion",
        "application",
        "QueuePool limit",
        "sqlalchemy.exc.TimeoutError: QueuePool limit of size 20 overflow 0 reached, connection timed out, timeout 5.00",
        "upstream {culprit} answered 503 Service Unavailable",
        "service",
        "Connection pool exhaustion",
    ),
    Fault(
        "oomkill",
        "application",
        "Out of memory: Killed process",
        "Out of memory: Killed process 1 (python) total-vm:2097152kB; container restarted (OOMKilled)",
        "upstream {culprit} connection reset by peer",
        "service",
        "Memory limits and OOM kills",
    ),
    Fault(
        "bad-rollout",
        "application",
        "AttributeError: 'NoneType'",
        "Traceback: AttributeError: 'NoneType' object has no attribute 'currency' (release v3.1.0)",
        "upstream {culprit} answered 500 Internal Server Error",
        "service",
        "Rolling back a release",
    ),
    Fault(
        "connection-refused",
        "connect",
        "Connection refused",
        "listening on :9090 (config changed from :8080)",
        "connect to {host}:8080 failed: [Errno 111] Connection refused",
        "host",
        "Connection refused between services",
    ),
    Fault(
        "dns-failure",
        "dns",
        "NXDOMAIN",
        "serving on :8080",
        "DNS lookup for {host} failed: NXDOMAIN (no such domain)",
        "host",
        "DNS resolution failures",
    ),
    Fault(
        "tls-expiry",
        "tls",
        "certificate has expired",
        "serving TLS with certificate CN={host} (notAfter in the past)",
        "TLS handshake with {host}:443 failed: certificate verify failed: certificate has expired",
        "host",
        "TLS certificate expiry",
    ),
    Fault(
        "slow-upstream",
        "application",
        "slow query",
        "slow query: SELECT * FROM line_items took 9.8 s (statement_timeout 10 s)",
        "upstream {culprit} timed out after 10 s",
        "service",
        "Slow upstream and timeouts",
    ),
)
FAULT_NAMES = tuple(f.name for f in FAULTS)
RED_HERRINGS = ("victim", "noisy-service", "stale-errors", "misleading-runbook")


def _host(service: str) -> str:
    return f"{service}.internal"


def generate(n: int, seed: int) -> list[dict[str, Any]]:
    """`n` scenario specs, a pure function of (n, seed): {"name", "files": {path: text}, ...}."""
    rng = random.Random(seed)
    return [_one(rng, i) for i in range(n)]


def _one(rng: random.Random, index: int) -> dict[str, Any]:
    topology = rng.choice(TOPOLOGIES)(rng)
    fault = rng.choice(FAULTS)
    herrings = sorted(rng.sample(RED_HERRINGS, rng.randint(1, len(RED_HERRINGS))))
    caller, culprit = rng.choice(
        topology.edges[:1] if fault.name == "pool-exhaustion" else topology.edges
    )
    if topology.name == "chain" and culprit == topology.db and fault.blame == "service":
        caller, culprit = topology.edges[0]  # a database writes no Python tracebacks
    host = _host(culprit)
    component = [host, culprit] if fault.blame == "host" else [culprit]
    fmt = {"culprit": culprit, "host": host}
    services = sorted({s for edge in topology.edges for s in edge} - {topology.db})
    logs: list[dict[str, Any]] = []

    def line(offset: float, service: str, level: str, message: str) -> None:
        logs.append(
            {
                "offset_s": round(offset, 1),
                "service": service,
                "level": level,
                "message": message,
                "labels": {"pod": f"{service}-{rng.randrange(16**6):06x}"},
            }
        )

    for t in range(-7000, 0, 120):  # healthy traffic from every service
        for service in services:
            line(
                t + rng.random() * 60,
                service,
                "info",
                f"GET /v1/{service.split('-')[0]} 200 {rng.randint(8, 90)}ms",
            )
    for t in range(STARTED_OFFSET_S, 0, 45):
        line(
            t + rng.random() * 10,
            culprit if fault.blame == "service" else caller,
            "error",
            (
                fault.culprit_line if fault.blame == "service" else fault.caller_line
            ).format(**fmt),
        )
        if fault.blame == "host":
            line(
                t + rng.random() * 10, culprit, "info", fault.culprit_line.format(**fmt)
            )
        elif "victim" in herrings:
            line(
                t + 5 + rng.random() * 10,
                caller,
                "error",
                fault.caller_line.format(**fmt),
            )
    if "victim" in herrings and topology.entry != caller:
        for t in range(STARTED_OFFSET_S, 0, 60):
            line(
                t + 20,
                topology.entry,
                "error",
                f"upstream {caller} answered 502 Bad Gateway",
            )
    noisy = f"{rng.choice(DOMAINS)}-worker"
    if "noisy-service" in herrings:
        for t in range(-7000, 0, 90):
            line(
                t + rng.random() * 30,
                noisy,
                "error",
                "retrying job 42: lock held by another worker",
            )
    if "stale-errors" in herrings:
        stale = rng.choice(services)
        for t in range(-6800, -5000, 200):
            line(
                t,
                stale,
                "error",
                "connect to cache.internal:6379 failed: Connection timed out",
            )
    logs.sort(key=lambda r: r["offset_s"])
    runbooks = {
        f"runbooks/{fault.name}.md": f"# {fault.runbook}\n\nCheck the culprit's own logs and its callers.\n"
    }
    if "misleading-runbook" in herrings:
        runbooks["runbooks/gateway-5xx.md"] = (
            f"# {topology.entry} 5xx errors\n\nWhen {topology.entry} answers 5xx, restart {topology.entry}.\n"
        )
    # Every service serves 10 requests/s throughout; from the start, the services on the failing
    # path (the entry the user sees fail, the caller and, when the fault is its own, the culprit)
    # also answer 3 errors/s. Counters are cumulative and sampled at every step, as Prometheus
    # scrapes them, so a rate over the window has its points.
    failing = {topology.entry, caller} | (
        {culprit} if fault.blame == "service" else set()
    )

    def counter(service: str, code: str, t: int) -> float:
        if code == "200":
            return 10.0 * (t + 7200)
        if service not in failing or t <= STARTED_OFFSET_S:
            return 0.0
        return 3.0 * (t - STARTED_OFFSET_S)

    metrics = {
        "step_s": 15,
        "series": [
            {
                "name": "http_requests_total",
                "labels": {"service": s, "code": code},
                "type": "counter",
                "points": [[t, counter(s, code, t)] for t in range(-7200, 1, 15)],
            }
            for s in services
            for code in ("200", "500")
        ],
    }
    name = f"gen-{index:04d}{SEPARATOR}{fault.name}"
    title = f"{topology.entry.split('-')[0].capitalize()} requests failing"
    symptoms = [f"{topology.entry} answers 5xx"] + (
        [] if rng.random() < 0.5 else ["errors started about 25 minutes ago"]
    )
    incident = {
        "title": title,
        "service": topology.entry,
        "severity": "sev2",
        "symptoms": symptoms,
        "description": f"Alert {topology.entry} error rate high.",
        "started_offset_s": STARTED_OFFSET_S,
        "window": WINDOW,
    }
    expected = {
        "slug": name,
        "title": title,
        "service": topology.entry,
        "symptoms": symptoms,
        "root_cause_layer": fault.layer,
        "root_cause_component": component,
        "root_cause_signal": fault.signal,
        "root_cause": f"{fault.name} at {culprit}",
        "evidence": [],
        "remediation": "",
        "started_offset_s": STARTED_OFFSET_S,
        "root_cause_probe": None,
        "netcheck": {},
        "generated": {
            "topology": topology.name,
            "fault": fault.name,
            "red_herrings": herrings,
        },
    }
    files = {
        "incident.json": _json(incident),
        "expected.json": _json(expected),
        "logs.jsonl": "".join(
            json.dumps(r, separators=(",", ":")) + "\n" for r in logs
        ),
        "metrics.json": _json(metrics),
        **runbooks,
    }
    return {
        "name": name,
        "fault": fault.name,
        "topology": topology.name,
        "files": files,
    }


def _json(doc: Any) -> str:
    return json.dumps(doc, indent=2) + "\n"


def write(specs: Sequence[Mapping[str, Any]], dest: Path) -> list[Path]:
    """Write each spec's folder under `dest`; returns the folders."""
    out = []
    for spec in specs:
        folder = dest / spec["name"]
        for rel, text in spec["files"].items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        out.append(folder)
    return out


def fault_of(folder: str) -> str:
    return folder.rpartition(SEPARATOR)[2] or folder


def summary(outcomes: Sequence[tuple[str, bool, bool]]) -> dict[str, dict[str, int]]:
    """{fault class: {runs, right, conclusive, counted}} from (folder, right, conclusive) outcomes;
    `counted` is right and conclusive. A last row "all"."""
    rows: dict[str, dict[str, int]] = {}
    for folder, right, conclusive in outcomes:
        for key in (fault_of(folder), "all"):
            row = rows.setdefault(
                key, {"runs": 0, "right": 0, "conclusive": 0, "counted": 0}
            )
            row["runs"] += 1
            row["right"] += right
            row["conclusive"] += conclusive
            row["counted"] += right and conclusive
    return dict(sorted(rows.items(), key=lambda kv: (kv[0] == "all", kv[0])))


def summary_lines(rows: Mapping[str, Mapping[str, int]]) -> list[str]:
    return [
        f"{k}: {r['right']}/{r['runs']} right, {r['conclusive']}/{r['runs']} conclusive, "
        f"{r['counted']}/{r['runs']} counted (right and conclusive)"
        for k, r in rows.items()
    ]
