"""The kubernetes observations of an investigation, read once into one `Cluster`.

Each tool's answer has its reader (`READERS`, keyed by tool name); each kind that belongs to a
workload has its owner rule (`OWNERS`, keyed by kind). The first answer per question wins.
Pure functions and dataclasses; no I/O.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from reasoning.layered.kubernetes.kubectl import (
    SAME_WIDE,
    Event,
    Pod,
    Table,
    asked_kinds,
    describe_events,
    describe_field,
    kind_parts,
    parse_labels,
    pod_from_row,
    ref,
    resource,
    scope,
    selects,
    singular,
    table_event,
    table_rows,
)
from reasoning.layered.reading import as_dict
from reasoning.observations import Observation
from reasoning.tools import (
    DESCRIBE,
    EVENTS,
    GET_RESOURCES,
    GET_YAML,
    POD_LOGS,
)


@dataclass
class Cluster:
    """The kubernetes observations, read once (first answer per question wins)."""

    namespaces: list[str] | None = None
    tables: dict[tuple[str, str], Table] = field(default_factory=dict)
    missing: set[tuple[str, str, bool]] = field(
        default_factory=set
    )  # (resource, ns, labels) asked, not captured
    events: dict[str, list[Event]] = field(default_factory=dict)
    events_obs: dict[str, Observation] = field(default_factory=dict)
    describes: dict[tuple[str, str, str], Observation] = field(default_factory=dict)
    # (ns, pod, previous, container): the container as asked ("" for the pod's default one).
    logs: dict[tuple[str, str, bool, str], Observation] = field(default_factory=dict)
    yamls: dict[tuple[str, str, str], Observation] = field(default_factory=dict)
    # (resource, ns) → whether a multi-kind get listed it wide, for each kind it answered (with
    # objects or none); a kind the server could not answer there is left out.
    surveyed: dict[tuple[str, str], bool] = field(default_factory=dict)
    # (resource, ns, wide) a multi-kind get asked and the server could not answer (a snapshot's gap).
    unanswered: set[tuple[str, str, bool]] = field(default_factory=set)
    # ns → {name: `kind/name`}: the objects of kinds Kubernetes does not build in (an operator's
    # database cluster) that a pod's describe names as its controller.
    operators: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def read(cls, observations: list[Observation]) -> "Cluster":
        cluster = cls()
        for obs in observations:
            reader = READERS.get(obs.tool)
            if reader is not None and obs.is_ok and not obs.refused:
                reader(cluster, obs)
        return cluster

    # Questions.

    def table(self, kind: str, namespace: str) -> Table | None:
        plural = resource(kind)
        return self.tables.get((plural, scope(plural, namespace)))

    def has_list(self, kind: str, namespace: str) -> bool:
        return self.table(kind, namespace) is not None

    def wants_list(self, kind: str, namespace: str, *, wide: bool) -> bool:
        """A one-kind list of `kind` may still tell something: not listed, not answered by a
        multi-kind get, and not already asked that way of a server that could not answer it."""
        plural = resource(kind)
        key = (plural, scope(plural, namespace))
        return (
            not self.has_list(kind, namespace)
            and key not in self.surveyed
            and (*key, wide) not in self.unanswered
        )

    def is_unanswered(self, kind: str, namespace: str, *, wide: bool) -> bool:
        """A read of `kind` (wide or not) was asked and the server could not answer it."""
        plural = resource(kind)
        return (plural, scope(plural, namespace), wide) in self.unanswered

    def pods(self, namespace: str) -> list[Pod]:
        table = self.table("pods", namespace)
        if table is None:
            return []
        return [
            pod_from_row(namespace, r, table.line(r.get("NAME", "")))
            for r in table.rows
            if r.get("NAME")
        ]

    def names(self, kind: str, namespace: str) -> list[str]:
        table = self.table(kind, namespace)
        return [r["NAME"] for r in table.rows if r.get("NAME")] if table else []

    def describe(self, kind: str, namespace: str, name: str) -> Observation | None:
        plural = resource(kind)
        return self.describes.get((plural, scope(plural, namespace), name))

    def warnings(self, namespace: str) -> list[Event]:
        seen: set[tuple[str, str, str]] = set()
        out: list[Event] = []
        for e in self.events.get(namespace, []):
            if e.type != "Warning" and e.reason not in ("NodeNotReady",):
                continue
            key = (e.reason, e.object, e.message[:80])
            if key not in seen:
                seen.add(key)
                out.append(e)
        return out

    def owner(self, namespace: str, kind: str, name: str) -> str:
        """The workload a pod or replica set belongs to, as `kind/name` (the object itself otherwise)."""
        kind = singular(kind)
        rule = OWNERS.get(kind)
        owner = rule(self, namespace, name) if rule is not None else None
        return owner or f"{kind}/{name}"

    def workloads(self, namespace: str) -> list[str]:
        return [
            *(f"deployment/{n}" for n in self.names("deployments", namespace)),
            *(f"statefulset/{n}" for n in self.names("statefulsets", namespace)),
            *(f"daemonset/{n}" for n in self.names("daemonsets", namespace)),
        ]

    def pods_of(self, namespace: str, workload: str) -> list[Pod]:
        return [
            p
            for p in self.pods(namespace)
            if self.owner(namespace, "pod", p.name) == workload
        ]

    def service_selector(self, namespace: str, service: str) -> dict[str, str] | None:
        table = self.table("services", namespace)
        row = table.row(service) if table else None
        if row is not None and "SELECTOR" in row:
            return parse_labels(row["SELECTOR"])
        described = self.describe("services", namespace, service)
        if described is not None:
            return parse_labels(describe_field("\n" + described.text, "Selector"))
        return None

    def service_workloads(self, namespace: str, service: str) -> list[str]:
        """The workloads whose pods a service selects (by labels; by name when labels are unknown)."""
        selector = self.service_selector(namespace, service)
        pods = self.pods(namespace)
        found: list[str] = []
        if selector and any(p.labels is not None for p in pods):
            for p in pods:
                if p.labels is not None and selects(selector, p.labels):
                    owner = self.owner(namespace, "pod", p.name)
                    if owner not in found:
                        found.append(owner)
            return found
        for workload in self.workloads(namespace):
            if workload.split("/", 1)[1] == service:
                found.append(workload)
        return found

    def intended_workloads(self, namespace: str, service: str) -> list[str]:
        """Workloads meant to back a service even with no pod: their selector covers the service's, or their name is its."""
        selector = self.service_selector(namespace, service) or {}
        found: list[str] = []
        for kind in ("deployments", "statefulsets", "daemonsets"):
            table = self.table(kind, namespace)
            for row in table.rows if table else ():
                own = parse_labels(row.get("SELECTOR", ""))
                name = row.get("NAME", "")
                if (
                    own
                    and selector
                    and all(own.get(k) == v for k, v in selector.items())
                ) or (name == service and not own):
                    found.append(f"{singular(kind)}/{name}")
        return found

    def endpoints(self, namespace: str, service: str) -> str | None:
        """The ENDPOINTS cell of a service (None: not read)."""
        table = self.table("endpoints", namespace)
        row = table.row(service) if table else None
        if row is not None:
            return row.get("ENDPOINTS", "")
        described = self.describe("services", namespace, service)
        if described is not None and "Endpoints:" in described.text:
            return describe_field("\n" + described.text, "Endpoints")
        return None

    def log_texts(self, namespace: str) -> list[tuple[Observation, str]]:
        """Every pod log read in `namespace`, with its answer."""
        return [
            (obs, obs.text) for (ns, *_), obs in self.logs.items() if ns == namespace
        ]

    def log_text(self, namespace: str, pod: str) -> list[tuple[Observation, str]]:
        return [
            (obs, obs.text)
            for (ns, name, _, _), obs in self.logs.items()
            if ns == namespace and name == pod
        ]


# --- readers, keyed by tool ----------------------------------------------------------------------


def _namespace(obs: Observation) -> str:
    return str(obs.arguments.get("namespace") or "")


def _found(obs: Observation) -> bool:
    return as_dict(obs.result).get("found", True) is not False


def _read_list(cluster: Cluster, obs: Observation) -> None:
    """A list (`get <kind>`): a table per kind and namespace; a labelled list replaces an unlabelled one."""
    args = obs.arguments
    ns = _namespace(obs)
    if len(asked_kinds(args)) > 1:
        _read_kinds(cluster, obs)
        return
    kind = resource(str(args.get("kind") or ""))
    if args.get("name") or args.get("selector"):
        return
    if not _found(obs):
        cluster.missing.add((kind, ns, bool(args.get("show_labels"))))
        return
    if kind == "namespaces":
        if cluster.namespaces is None:
            rows = table_rows(obs)
            cluster.namespaces = [r["NAME"] for r in rows if r.get("NAME")]
            # Their STATUS too: a namespace stuck Terminating is a fault of its own.
            cluster.tables.setdefault((kind, ""), Table(obs, rows))
        return
    key = (kind, scope(kind, ns))
    current = cluster.tables.get(key)
    unlabelled = current is not None and "LABELS" not in (
        current.rows[0] if current.rows else {"LABELS": ""}
    )
    if current is None or (args.get("show_labels") and unlabelled):
        cluster.tables[key] = Table(obs, table_rows(obs))


def _read_kinds(cluster: Cluster, obs: Observation) -> None:
    """A multi-kind list: each kind's table as if listed alone (the first answer per kind wins)."""
    if obs.arguments.get("selector") or obs.arguments.get("name"):
        return
    ns = _namespace(obs)
    wide = bool(obs.arguments.get("wide"))
    labels = bool(obs.arguments.get("show_labels"))
    for part in kind_parts(obs):
        key = (part.resource, scope(part.resource, ns))
        if not part.is_captured:
            cluster.unanswered.add((*key, wide))
            if part.resource in SAME_WIDE:
                cluster.unanswered.add((*key, not wide))
            cluster.missing.add((part.resource, ns, labels))
            continue
        cluster.surveyed.setdefault(key, wide)
        if not part.is_found:
            cluster.missing.add((part.resource, ns, labels))
        elif key not in cluster.tables:
            cluster.tables[key] = Table(obs, part.rows, part.prefix)


def _read_events(cluster: Cluster, obs: Observation) -> None:
    """A namespace's events (the first answer counts), or one object's (all add up)."""
    if not _found(obs):
        return
    ns = _namespace(obs)
    target = str(obs.arguments.get("for_object") or "")
    events = [e for r in table_rows(obs) if (e := table_event(obs, r)) is not None]
    if target:
        cluster.events.setdefault(ns, []).extend(events)
    elif ns not in cluster.events_obs:
        cluster.events_obs[ns] = obs
        cluster.events.setdefault(ns, []).extend(events)


def _read_describe(cluster: Cluster, obs: Observation) -> None:
    """A describe: kept by kind, namespace and name; its Events section joins the namespace's."""
    if not _found(obs):
        return
    ns = _namespace(obs)
    kind = resource(str(obs.arguments.get("kind") or ""))
    name = str(obs.arguments.get("name") or "")
    cluster.describes.setdefault((kind, scope(kind, ns), name), obs)
    cluster.events.setdefault(ns, []).extend(describe_events(obs, kind, name))
    controller = _CONTROLLED_BY.search(obs.text) if kind == "pods" else None
    if controller and singular(controller["kind"]) not in _BUILT_IN_CONTROLLERS:
        owner = controller["name"]
        cluster.operators.setdefault(ns, {})[owner] = ref(controller["kind"], owner)


def _read_logs(cluster: Cluster, obs: Observation) -> None:
    if _found(obs):
        key = (_namespace(obs), str(obs.arguments.get("pod") or ""))
        previous = bool(obs.arguments.get("previous"))
        container = str(obs.arguments.get("container") or "")
        cluster.logs.setdefault((*key, previous, container), obs)


def _read_yaml(cluster: Cluster, obs: Observation) -> None:
    if _found(obs):
        kind = resource(str(obs.arguments.get("kind") or ""))
        key = (kind, _namespace(obs), str(obs.arguments.get("name") or ""))
        cluster.yamls.setdefault(key, obs)


READERS: dict[str, Callable[[Cluster, Observation], None]] = {
    GET_RESOURCES: _read_list,
    EVENTS: _read_events,
    DESCRIBE: _read_describe,
    POD_LOGS: _read_logs,
    GET_YAML: _read_yaml,
}


# --- owners, keyed by kind -----------------------------------------------------------------------


def _by_length(names: list[str]) -> list[str]:
    return sorted(names, key=len, reverse=True)


def _pod_owner(cluster: Cluster, ns: str, name: str) -> str:
    """A pod belongs to the job its `job-name` label names (and so to that job's cron job); a static
    pod (named after its node) to no workload; to the operator's object (a CloudNativePG `Cluster`)
    a describe names as its own or its sibling's controller, when its name extends that object's
    by an ordinal or a hash; else to the deployment, stateful set or daemon set its name extends
    (else a guess)."""
    job = _job_label(cluster, ns, name)
    if job:
        return _job_owner(cluster, ns, job)
    if _is_static(cluster, ns, name):
        return f"pod/{name}"
    operators = cluster.operators.get(ns, {})
    for owner in _by_length(list(operators)):
        if re.fullmatch(re.escape(owner) + r"-(?:\d+|[a-z0-9]{5})", name):
            return operators[owner]
    deployments = cluster.names("deployments", ns)
    patterns = (
        ("deployment", deployments, r"-[a-z0-9]{5,10}-[a-z0-9]{5}"),
        ("statefulset", cluster.names("statefulsets", ns), r"-\d+"),
        ("daemonset", cluster.names("daemonsets", ns), r"-[a-z0-9]{5}"),
    )
    for kind, names, suffix in patterns:
        for owner in _by_length(names):
            if re.fullmatch(re.escape(owner) + suffix, name):
                return f"{kind}/{owner}"
    guess = re.fullmatch(r"(.+)-[a-z0-9]{6,10}-[a-z0-9]{5}", name)
    if guess:
        return f"deployment/{guess.group(1)}"
    guess = re.fullmatch(r"(.+)-\d+", name)
    if guess and not deployments:
        return f"statefulset/{guess.group(1)}"
    return f"pod/{name}"


def _is_static(cluster: Cluster, ns: str, name: str) -> bool:
    """A kubelet's static pod (the control plane of kubeadm clusters) is named `<name>-<node>`: its
    name ends with the node it runs on, so a node ending in digits does not make it a replica."""
    nodes = set(cluster.names("nodes", ns))
    table = cluster.table("pods", ns)
    if table is not None:
        nodes |= {r.get("NODE", "") for r in table.rows if r.get("NAME") == name}
    return any(
        name.endswith(f"-{node}") and len(name) > len(node) + 1 for node in nodes
    )


def _job_label(cluster: Cluster, ns: str, pod: str) -> str:
    """The job a pod's labels name (`job-name` or `batch.kubernetes.io/job-name`), if listed."""
    table = cluster.table("pods", ns)
    row = table.row(pod) if table else None
    labels = parse_labels(row.get("LABELS", "")) if row else {}
    return labels.get("batch.kubernetes.io/job-name") or labels.get("job-name") or ""


def _job_owner(cluster: Cluster, ns: str, name: str) -> str:
    """A job belongs to the cron job its name extends by a schedule number (listed, or by that shape)."""
    for cronjob in _by_length(cluster.names("cronjobs", ns)):
        if re.fullmatch(rf"{re.escape(cronjob)}-\d+", name):
            return f"cronjob/{cronjob}"
    guess = re.fullmatch(r"(.+)-\d{8,}", name)
    return f"cronjob/{guess.group(1)}" if guess else f"job/{name}"


def _replicaset_owner(cluster: Cluster, ns: str, name: str) -> str:
    """A replica set belongs to the deployment its name extends by a template hash."""
    for d in _by_length(cluster.names("deployments", ns)):
        if re.fullmatch(rf"{re.escape(d)}-[a-z0-9]{{5,10}}", name):
            return f"deployment/{d}"
    guess = re.fullmatch(r"(.+)-[a-z0-9]{6,10}", name)
    return f"deployment/{guess.group(1)}" if guess else f"replicaset/{name}"


def _claim_owner(cluster: Cluster, ns: str, name: str) -> str | None:
    """A claim `<template>-<statefulset>-<n>` belongs to that stateful set."""
    for s in _by_length(cluster.names("statefulsets", ns)):
        if re.fullmatch(rf".+-{re.escape(s)}-\d+", name):
            return f"statefulset/{s}"
    return None


# Controllers Kubernetes builds in, whose pods the rules above place (a static pod's is its Node).
_BUILT_IN_CONTROLLERS = frozenset(
    {
        "replicaset",
        "deployment",
        "statefulset",
        "daemonset",
        "job",
        "cronjob",
        "node",
        "replicationcontroller",
    }
)
_CONTROLLED_BY = re.compile(
    r"^Controlled By:\s*(?P<kind>[\w.]+)/(?P<name>\S+)", re.MULTILINE
)

OWNERS: dict[str, Callable[[Cluster, str, str], str | None]] = {
    "pod": _pod_owner,
    "replicaset": _replicaset_owner,
    "job": _job_owner,
    "persistentvolumeclaim": _claim_owner,
}


def service_of_host(host: str, services: list[str], namespace: str) -> str | None:
    """The service a host name means: `redis`, `redis.shop`, `redis.shop.svc.cluster.local`."""
    labels = host.lower().split(".")
    if labels[0] in services and (
        len(labels) == 1
        or labels[1] == namespace
        or labels[1:3] == ["svc", "cluster"]
        or (len(labels) >= 3 and labels[2] == "svc")
    ):
        return labels[0]
    if (
        len(labels) >= 3
        and labels[1] in services
        and labels[0] not in services
        and labels[2] in (namespace, "svc")
    ):
        return labels[
            1
        ]  # a pod's own record under its headless service: `web-0.web-peers.shop`
    return None
