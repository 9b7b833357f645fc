"""A small fake of the Kubernetes API server on 127.0.0.1, enough for the real kubectl to get,
describe, read logs and events, from recorded objects: a test fixture or a scenario's `cluster.json`.

It answers discovery (/version, /api, /apis, /api/v1, /apis/G/V), lists and gets (JSON, or a
meta.k8s.io Table when kubectl asks for one: the columns the real API server prints), label and
field selectors, and pod logs. It only ever binds 127.0.0.1 and refuses every write.

Two clocks. A fixture with `recordedAt` is shifted so that moment is when the fake starts. A
scenario object file (`cluster.json`, see `load_objects`) has a fixed `now` and its times are
written relative to it ("-44m"); tables are printed against that `now`, so every run prints the
same AGE. Events, and the pods `kubectl describe node` lists (by `spec.nodeName`), follow the wall
clock (their times are `now`-relative offsets from the moment of the request, taken early in a
second), because kubectl computes their ages itself (describe's Events and Non-terminated Pods,
`kubectl events`) from its own clock, which cannot be set.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from mcpservers.kubernetes.commands import selector_matches

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

# A relative time: a sign and a duration in days, hours, minutes and seconds ("-2d3h", "-95s", "0s").
_RELATIVE = re.compile(r"([+-]?)((?:\d+[dhms])+)")
_UNIT_S = {"d": 86400, "h": 3600, "m": 60, "s": 1}
# Fields holding a time (creationTimestamp, lastTimestamp, startTime, startedAt, finishedAt, …).
_TIME_FIELD = re.compile(r".*(Timestamp|Time|At)$")


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    name: str
    kind: str
    is_namespaced: bool = True
    short: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


RESOURCES = (
    Resource("", "v1", "pods", "Pod", short=("po",)),
    Resource("", "v1", "services", "Service", short=("svc",)),
    Resource("", "v1", "endpoints", "Endpoints", short=("ep",)),
    Resource("", "v1", "events", "Event", short=("ev",)),
    Resource("", "v1", "nodes", "Node", is_namespaced=False, short=("no",)),
    Resource("", "v1", "namespaces", "Namespace", is_namespaced=False, short=("ns",)),
    Resource(
        "", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", short=("pvc",)
    ),
    Resource(
        "",
        "v1",
        "persistentvolumes",
        "PersistentVolume",
        is_namespaced=False,
        short=("pv",),
    ),
    Resource("", "v1", "configmaps", "ConfigMap", short=("cm",)),
    Resource("", "v1", "secrets", "Secret"),
    Resource("", "v1", "serviceaccounts", "ServiceAccount", short=("sa",)),
    Resource("", "v1", "resourcequotas", "ResourceQuota", short=("quota",)),
    Resource("", "v1", "limitranges", "LimitRange", short=("limits",)),
    Resource("apps", "v1", "deployments", "Deployment", short=("deploy",)),
    Resource("apps", "v1", "replicasets", "ReplicaSet", short=("rs",)),
    Resource("apps", "v1", "statefulsets", "StatefulSet", short=("sts",)),
    Resource("apps", "v1", "daemonsets", "DaemonSet", short=("ds",)),
    Resource("batch", "v1", "jobs", "Job"),
    Resource("batch", "v1", "cronjobs", "CronJob", short=("cj",)),
    Resource("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice"),
    Resource("rbac.authorization.k8s.io", "v1", "roles", "Role"),
    Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding"),
    Resource(
        "storage.k8s.io",
        "v1",
        "storageclasses",
        "StorageClass",
        is_namespaced=False,
        short=("sc",),
    ),
    Resource("networking.k8s.io", "v1", "ingresses", "Ingress", short=("ing",)),
    Resource(
        "networking.k8s.io", "v1", "ingressclasses", "IngressClass", is_namespaced=False
    ),
    Resource(
        "networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", short=("netpol",)
    ),
    Resource(
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        short=("hpa",),
    ),
    Resource(
        "autoscaling.k8s.io",
        "v1",
        "verticalpodautoscalers",
        "VerticalPodAutoscaler",
        short=("vpa",),
    ),
    Resource(
        "policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", short=("pdb",)
    ),
    Resource("coordination.k8s.io", "v1", "leases", "Lease"),
)
_BY_KIND = {r.kind: r for r in RESOURCES}


def _parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _format_time(value: datetime) -> str:
    if value.microsecond:  # the wall clock's (_wall_clock); kubectl reads the fraction
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def human_duration(seconds: float) -> str:
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration."""
    seconds = int(seconds)
    if seconds < 0:
        return "<invalid>"
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 192:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    return f"{hours // 24 // 365}y"


class FakeKubeAPI:
    """The recorded objects served over HTTP; `start()` binds a free port, `url` says where."""

    def __init__(self, fixture: Path, *, now: datetime | None = None) -> None:
        data = json.loads(fixture.read_text(encoding="utf-8"))
        self.raw_events: list[dict[str, Any]] = []
        self.raw_pods: list[dict[str, Any]] = []
        if "recordedAt" in data:
            self.now = now or datetime.now(UTC).replace(microsecond=0)
            shift = self.now - _parse_time(data["recordedAt"])
            self.objects: list[dict[str, Any]] = [
                _shift(obj, shift) for obj in data["objects"]
            ]
        else:
            self.now = now or _parse_time(data["now"])
            self.raw_pods = [o for o in data["objects"] if o["kind"] == "Pod"]
            self.objects = [
                resolve_times(obj, self.now)
                for obj in data["objects"]
                if obj["kind"] != "Event"
            ]
            self.raw_events = [o for o in data["objects"] if o["kind"] == "Event"]
        # kubectl asks for the namespace when a get finds nothing, to say which of the two is missing.
        created = min(o["metadata"]["creationTimestamp"] for o in self.objects)
        present = {
            o["metadata"]["name"] for o in self.objects if o["kind"] == "Namespace"
        }
        used = {o["metadata"].get("namespace") for o in self.objects} | {"default"}
        for name in sorted(used - {None} - present):
            self.objects.append(
                {
                    "apiVersion": "v1",
                    "kind": "Namespace",
                    "metadata": {
                        "name": name,
                        "uid": f"ns-{name}",
                        "creationTimestamp": created,
                        "labels": {"kubernetes.io/metadata.name": name},
                    },
                    "spec": {"finalizers": ["kubernetes"]},
                    "status": {"phase": "Active"},
                }
            )
        self.logs: dict[str, str] = data.get("logs", {})
        self.requests: list[str] = []
        self._server: ThreadingHTTPServer | None = None

    def _clock(
        self, kind: str, query: dict[str, str]
    ) -> tuple[datetime, list[dict[str, Any]]]:
        """The moment `kind` is served at, and its objects: a scenario's events, and its pods listed by
        node (what `describe node` ages itself), follow the wall clock."""
        if kind == "Event" and self.raw_events:
            at = _wall_clock()
            return at, [resolve_times(o, at) for o in self.raw_events]
        if (
            kind == "Pod"
            and self.raw_pods
            and "spec.nodeName" in query.get("fieldSelector", "")
        ):
            at = _wall_clock()
            return at, [resolve_times(o, at) for o in self.raw_pods]
        return self.now, self.objects

    def start(self) -> FakeKubeAPI:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                api.requests.append(self.path)
                try:
                    status, content_type, body = api.handle(
                        self.path, self.headers.get("Accept", "")
                    )
                except Exception as exc:  # a bug in the fake: say so to kubectl
                    status, content_type, body = (
                        500,
                        "application/json",
                        _status(500, "InternalError", repr(exc)),
                    )
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # nothing may be written
                api.requests.append("POST " + self.path)
                body = _status(
                    405, "MethodNotAllowed", "the fake API server is read-only"
                )
                self.send_response(405)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_PUT = do_PATCH = do_DELETE = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def kubeconfig(self, path: Path, *, context: str = "fake") -> Path:
        """A kubeconfig whose context `context` points at this server (plain HTTP, a bearer token)."""
        path.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
                    "users": [
                        {"name": "reader", "user": {"token": "fake-reader-token"}}
                    ],
                    "contexts": [
                        {
                            "name": context,
                            "context": {
                                "cluster": "fake",
                                "user": "reader",
                                "namespace": "default",
                            },
                        }
                    ],
                    "current-context": context,
                }
            )
        )
        return path

    # --- routing --------------------------------------------------------------------------

    def handle(self, raw_path: str, accept: str) -> tuple[int, str, bytes]:
        parts = urlsplit(raw_path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        path = parts.path.rstrip("/")
        if path == "/version":
            return _json(
                {
                    "major": "1",
                    "minor": "31",
                    "gitVersion": "v1.31.4",
                    "platform": "linux/amd64",
                    "goVersion": "go1.22.10",
                    "compiler": "gc",
                }
            )
        if path == "/api":
            return _json(
                {
                    "kind": "APIVersions",
                    "versions": ["v1"],
                    "serverAddressByClientCIDRs": [
                        {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}
                    ],
                }
            )
        if path == "/apis":
            return _json(
                {"kind": "APIGroupList", "apiVersion": "v1", "groups": self._groups()}
            )
        match = re.fullmatch(r"/api/(v1)|/apis/([^/]+)/([^/]+)", path)
        if match:
            group, version = (
                ("", "v1") if match.group(1) else (match.group(2), match.group(3))
            )
            return _json(self._resource_list(group, version))
        match = re.fullmatch(
            r"(?:/api/v1|/apis/(?P<g>[^/]+)/(?P<v>[^/]+))(?:/namespaces/(?P<ns>[^/]+))?/(?P<res>[^/]+)(?:/(?P<name>[^/]+))?(?:/(?P<sub>log))?",
            path,
        )
        if not match:
            return (
                404,
                "application/json",
                _status(
                    404, "NotFound", "the server could not find the requested resource"
                ),
            )
        group = match["g"] or ""
        resource = next(
            (r for r in RESOURCES if r.name == match["res"] and r.group == group), None
        )
        if resource is None:
            return (
                404,
                "application/json",
                _status(
                    404, "NotFound", "the server could not find the requested resource"
                ),
            )
        namespace = match["ns"]
        if namespace == "forbidden":
            who = 'User "reader"'
            return (
                403,
                "application/json",
                _status(
                    403,
                    "Forbidden",
                    f'{resource.name} is forbidden: {who} cannot list resource "{resource.name}" in API group "{group}" in the namespace "forbidden"',
                ),
            )
        if match["sub"] == "log":
            return self._log(namespace or "", match["name"], query)
        now, objects = self._clock(resource.kind, query)
        items = [
            o
            for o in objects
            if o["kind"] == resource.kind
            and (namespace is None or o["metadata"].get("namespace") == namespace)
        ]
        if match["name"]:
            found = [o for o in items if o["metadata"]["name"] == match["name"]]
            if not found:
                qualified = f"{resource.name}.{group}" if group else resource.name
                return (
                    404,
                    "application/json",
                    _status(
                        404,
                        "NotFound",
                        f'{qualified} "{match["name"]}" not found',
                        name=match["name"],
                        kind=resource.name,
                        group=group,
                    ),
                )
            items = found
        items = [o for o in items if _selected(o, query)]
        if "as=Table" in accept:
            return _json(
                self._table(resource, items, single=bool(match["name"]), now=now)
            )
        if match["name"]:
            return _json(items[0])
        stripped = []
        for item in items:
            item = dict(item)
            item.pop("kind", None)
            item.pop("apiVersion", None)
            stripped.append(item)
        return _json(
            {
                "kind": f"{resource.kind}List",
                "apiVersion": resource.group_version,
                "metadata": {"resourceVersion": "2000"},
                "items": stripped,
            }
        )

    def _groups(self) -> list[dict[str, Any]]:
        groups: dict[str, str] = {}
        for r in RESOURCES:
            if r.group:
                groups.setdefault(r.group, r.version)
        return [
            {
                "name": g,
                "versions": [{"groupVersion": f"{g}/{v}", "version": v}],
                "preferredVersion": {"groupVersion": f"{g}/{v}", "version": v},
            }
            for g, v in groups.items()
        ]

    def _resource_list(self, group: str, version: str) -> dict[str, Any]:
        resources = []
        for r in RESOURCES:
            if r.group == group and r.version == version:
                singular = r.kind.lower()
                resources.append(
                    {
                        "name": r.name,
                        "singularName": singular,
                        "namespaced": r.is_namespaced,
                        "kind": r.kind,
                        "verbs": ["get", "list", "watch"],
                        **({"shortNames": list(r.short)} if r.short else {}),
                    }
                )
                if r.name == "pods":
                    resources.append(
                        {
                            "name": "pods/log",
                            "singularName": "",
                            "namespaced": True,
                            "kind": "Pod",
                            "verbs": ["get"],
                        }
                    )
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version,
            "resources": resources,
        }

    def _log(
        self, namespace: str, pod: str, query: dict[str, str]
    ) -> tuple[int, str, bytes]:
        pods = [
            o
            for o in self.objects
            if o["kind"] == "Pod"
            and o["metadata"]["name"] == pod
            and o["metadata"].get("namespace") == namespace
        ]
        if not pods:
            return (
                404,
                "application/json",
                _status(404, "NotFound", f'pods "{pod}" not found'),
            )
        containers = [c["name"] for c in pods[0]["spec"]["containers"]]
        container = query.get("container") or containers[0]
        if container not in containers:
            return (
                400,
                "application/json",
                _status(
                    400,
                    "BadRequest",
                    f"container {container} is not valid for pod {pod}",
                ),
            )
        previous = query.get("previous") == "true"
        key = f"{namespace}/{pod}/{container}/{'previous' if previous else 'current'}"
        if key not in self.logs:
            if previous:
                return (
                    400,
                    "application/json",
                    _status(
                        400,
                        "BadRequest",
                        f'previous terminated container "{container}" in pod "{pod}" not found',
                    ),
                )
            return (
                400,
                "application/json",
                _status(
                    400,
                    "BadRequest",
                    f'container "{container}" in pod "{pod}" is waiting to start: ContainerCreating',
                ),
            )
        text = self.logs[key]
        if "tailLines" in query:
            lines = text.splitlines(keepends=True)
            text = (
                "".join(lines[-int(query["tailLines"]) :])
                if int(query["tailLines"])
                else ""
            )
        if "limitBytes" in query:
            text = text.encode()[: int(query["limitBytes"])].decode("utf-8", "ignore")
        return 200, "text/plain", text.encode()

    # --- tables ---------------------------------------------------------------------------

    @staticmethod
    def _age(value: str | None, now: datetime) -> str:
        if not value:
            return "<unknown>"
        return human_duration((now - _parse_time(value)).total_seconds())

    def _table(
        self,
        resource: Resource,
        items: list[dict[str, Any]],
        *,
        single: bool,
        now: datetime,
    ) -> dict[str, Any]:
        columns, cells = self._printer(resource, now)
        return {
            "kind": "Table",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "2000"},
            "columnDefinitions": [
                {
                    "name": name,
                    "type": "string",
                    "format": "name" if name == "Name" else "",
                    "description": "",
                    "priority": priority,
                }
                for name, priority in columns
            ],
            "rows": [
                {
                    "cells": cells(item),
                    "object": {
                        "kind": "PartialObjectMetadata",
                        "apiVersion": "meta.k8s.io/v1",
                        "metadata": item["metadata"],
                    },
                }
                for item in items
            ],
        }

    def _printer(
        self, resource: Resource, now: datetime
    ) -> tuple[list[tuple[str, int]], Any]:
        def age(value: str | None) -> str:
            return self._age(value, now)

        kind = resource.kind
        if kind == "Pod":
            return [
                ("Name", 0),
                ("Ready", 0),
                ("Status", 0),
                ("Restarts", 0),
                ("Age", 0),
                ("IP", 1),
                ("Node", 1),
                ("Nominated Node", 1),
                ("Readiness Gates", 1),
            ], lambda o: self._pod_cells(o, now)
        if kind in ("Deployment", "ReplicaSet", "StatefulSet"):

            def cells(o: dict[str, Any]) -> list[Any]:
                spec, status = o["spec"], o.get("status", {})
                containers = spec["template"]["spec"]["containers"]
                wide = [
                    ",".join(c["name"] for c in containers),
                    ",".join(c["image"] for c in containers),
                ]
                selector = ",".join(
                    f"{k}={v}"
                    for k, v in sorted(spec["selector"].get("matchLabels", {}).items())
                )
                ready = status.get("readyReplicas", 0)
                if kind == "Deployment":
                    return [
                        o["metadata"]["name"],
                        f"{ready}/{spec.get('replicas', 1)}",
                        status.get("updatedReplicas", 0),
                        status.get("availableReplicas", 0),
                        age(o["metadata"]["creationTimestamp"]),
                        *wide,
                        selector,
                    ]
                if kind == "ReplicaSet":
                    return [
                        o["metadata"]["name"],
                        spec.get("replicas", 1),
                        status.get("replicas", 0),
                        ready,
                        age(o["metadata"]["creationTimestamp"]),
                        *wide,
                        selector,
                    ]
                return [
                    o["metadata"]["name"],
                    f"{ready}/{spec.get('replicas', 1)}",
                    age(o["metadata"]["creationTimestamp"]),
                    *wide,
                ]

            names = {
                "Deployment": [
                    ("Name", 0),
                    ("Ready", 0),
                    ("Up-to-date", 0),
                    ("Available", 0),
                    ("Age", 0),
                    ("Containers", 1),
                    ("Images", 1),
                    ("Selector", 1),
                ],
                "ReplicaSet": [
                    ("Name", 0),
                    ("Desired", 0),
                    ("Current", 0),
                    ("Ready", 0),
                    ("Age", 0),
                    ("Containers", 1),
                    ("Images", 1),
                    ("Selector", 1),
                ],
                "StatefulSet": [
                    ("Name", 0),
                    ("Ready", 0),
                    ("Age", 0),
                    ("Containers", 1),
                    ("Images", 1),
                ],
            }[kind]
            return names, cells
        if kind == "Service":

            def service(o: dict[str, Any]) -> list[Any]:
                spec = o["spec"]
                ports = (
                    ",".join(
                        f"{p['port']}{':' + str(p['nodePort']) if p.get('nodePort') else ''}/{p.get('protocol', 'TCP')}"
                        for p in spec.get("ports", [])
                    )
                    or "<none>"
                )
                selector = (
                    ",".join(
                        f"{k}={v}" for k, v in sorted(spec.get("selector", {}).items())
                    )
                    or "<none>"
                )
                return [
                    o["metadata"]["name"],
                    spec.get("type", "ClusterIP"),
                    spec.get("clusterIP", "<none>"),
                    "<none>",
                    ports,
                    age(o["metadata"]["creationTimestamp"]),
                    selector,
                ]

            return [
                ("Name", 0),
                ("Type", 0),
                ("Cluster-IP", 0),
                ("External-IP", 0),
                ("Port(s)", 0),
                ("Age", 0),
                ("Selector", 1),
            ], service
        if kind == "Endpoints":

            def endpoints(o: dict[str, Any]) -> list[Any]:
                pairs = [
                    f"{a['ip']}:{p['port']}"
                    for s in o.get("subsets", [])
                    for p in s.get("ports", [])
                    for a in s.get("addresses", [])
                ]
                text = (
                    ",".join(pairs[:3])
                    + (f" + {len(pairs) - 3} more..." if len(pairs) > 3 else "")
                    if pairs
                    else "<none>"
                )
                return [
                    o["metadata"]["name"],
                    text,
                    age(o["metadata"]["creationTimestamp"]),
                ]

            return [("Name", 0), ("Endpoints", 0), ("Age", 0)], endpoints
        if kind == "Event":

            def event(o: dict[str, Any]) -> list[Any]:
                inv = o["involvedObject"]
                source = o.get("source", {})
                src = source.get("component", "") + (
                    ", " + source["host"] if source.get("host") else ""
                )
                return [
                    age(o.get("lastTimestamp")),
                    o.get("type", ""),
                    o.get("reason", ""),
                    f"{inv['kind'].lower()}/{inv['name']}",
                    inv.get("fieldPath", ""),
                    src,
                    o.get("message", "").strip(),
                    age(o.get("firstTimestamp")),
                    o.get("count", 1),
                    o["metadata"]["name"],
                ]

            return [
                ("Last Seen", 0),
                ("Type", 0),
                ("Reason", 0),
                ("Object", 0),
                ("Subobject", 1),
                ("Source", 1),
                ("Message", 0),
                ("First Seen", 1),
                ("Count", 1),
                ("Name", 1),
            ], event
        if kind == "Node":

            def node(o: dict[str, Any]) -> list[Any]:
                ready = next(
                    (c for c in o["status"]["conditions"] if c["type"] == "Ready"), {}
                )
                status = "Ready" if ready.get("status") == "True" else "NotReady"
                if o["spec"].get("unschedulable"):
                    status += ",SchedulingDisabled"
                roles = (
                    ",".join(
                        sorted(
                            k.removeprefix("node-role.kubernetes.io/")
                            for k in o["metadata"].get("labels", {})
                            if k.startswith("node-role.kubernetes.io/")
                        )
                    )
                    or "<none>"
                )
                info = o["status"]["nodeInfo"]
                addresses = {
                    a["type"]: a["address"] for a in o["status"].get("addresses", [])
                }
                return [
                    o["metadata"]["name"],
                    status,
                    roles,
                    age(o["metadata"]["creationTimestamp"]),
                    info["kubeletVersion"],
                    addresses.get("InternalIP", "<none>"),
                    addresses.get("ExternalIP", "<none>"),
                    info["osImage"],
                    info["kernelVersion"],
                    info["containerRuntimeVersion"],
                ]

            return [
                ("Name", 0),
                ("Status", 0),
                ("Roles", 0),
                ("Age", 0),
                ("Version", 0),
                ("Internal-IP", 1),
                ("External-IP", 1),
                ("OS-Image", 1),
                ("Kernel-Version", 1),
                ("Container-Runtime", 1),
            ], node
        if kind == "PersistentVolumeClaim":

            def pvc(o: dict[str, Any]) -> list[Any]:
                spec, status = o["spec"], o.get("status", {})
                modes = ",".join(
                    {
                        "ReadWriteOnce": "RWO",
                        "ReadOnlyMany": "ROX",
                        "ReadWriteMany": "RWX",
                        "ReadWriteOncePod": "RWOP",
                    }[m]
                    for m in status.get("accessModes", [])
                )
                return [
                    o["metadata"]["name"],
                    status.get("phase", "Pending"),
                    spec.get("volumeName", ""),
                    status.get("capacity", {}).get("storage", ""),
                    modes,
                    spec.get("storageClassName", "<unset>"),
                    "<unset>",
                    age(o["metadata"]["creationTimestamp"]),
                    spec.get("volumeMode", "Filesystem"),
                ]

            return [
                ("Name", 0),
                ("Status", 0),
                ("Volume", 0),
                ("Capacity", 0),
                ("Access Modes", 0),
                ("StorageClass", 0),
                ("VolumeAttributesClass", 0),
                ("Age", 0),
                ("VolumeMode", 1),
            ], pvc
        if kind == "ResourceQuota":

            def quota(o: dict[str, Any]) -> list[Any]:
                hard, used = o["status"].get("hard", {}), o["status"].get("used", {})
                requests = ", ".join(
                    f"{k}: {used.get(k, '0')}/{v}"
                    for k, v in sorted(hard.items())
                    if not k.startswith("limits.")
                )
                limits = ", ".join(
                    f"{k}: {used.get(k, '0')}/{v}"
                    for k, v in sorted(hard.items())
                    if k.startswith("limits.")
                )
                return [
                    o["metadata"]["name"],
                    age(o["metadata"]["creationTimestamp"]),
                    requests,
                    limits,
                ]

            return [("Name", 0), ("Age", 0), ("Request", 0), ("Limit", 0)], quota
        if kind == "ServiceAccount":
            return [("Name", 0), ("Secrets", 0), ("Age", 0)], lambda o: [
                o["metadata"]["name"],
                len(o.get("secrets", [])),
                age(o["metadata"]["creationTimestamp"]),
            ]
        if kind == "ConfigMap":
            return [("Name", 0), ("Data", 0), ("Age", 0)], lambda o: [
                o["metadata"]["name"],
                len(o.get("data", {})) + len(o.get("binaryData", {})),
                age(o["metadata"]["creationTimestamp"]),
            ]
        if kind == "Namespace":
            return [("Name", 0), ("Status", 0), ("Age", 0)], lambda o: [
                o["metadata"]["name"],
                o["status"]["phase"],
                age(o["metadata"]["creationTimestamp"]),
            ]
        if kind in _MORE_PRINTERS:
            columns, printer = _MORE_PRINTERS[kind]
            return columns, lambda o: printer(o, age, now)
        if kind == "Secret":
            return [("Name", 0), ("Type", 0), ("Data", 0), ("Age", 0)], lambda o: [
                o["metadata"]["name"],
                o.get("type", "Opaque"),
                len(o.get("data", {})),
                age(o["metadata"]["creationTimestamp"]),
            ]
        return [("Name", 0), ("Created At", 0)], lambda o: [
            o["metadata"]["name"],
            o["metadata"]["creationTimestamp"],
        ]

    def _pod_cells(self, o: dict[str, Any], now: datetime) -> list[Any]:
        status = o.get("status", {})
        statuses = status.get("containerStatuses", [])
        total = len(o["spec"]["containers"])
        ready = sum(1 for c in statuses if c.get("ready"))
        reason = status.get("reason") or status.get("phase", "Unknown")
        restarts = 0
        last_restart = None
        for c in [*status.get("initContainerStatuses", []), *statuses]:
            restarts += c.get("restartCount", 0)
            finished = c.get("lastState", {}).get("terminated", {}).get("finishedAt")
            if finished and (last_restart is None or finished > last_restart):
                last_restart = finished
        init_reason = _init_reason(o)
        if init_reason is not None:
            reason = init_reason
        for c in statuses if init_reason is None else []:
            state = c.get("state", {})
            if state.get("waiting", {}).get("reason"):
                reason = state["waiting"]["reason"]
            elif state.get("terminated", {}).get("reason"):
                reason = state["terminated"]["reason"]
        if o["metadata"].get("deletionTimestamp"):
            reason = "Terminating"
        restart_text = str(restarts)
        if restarts and last_restart:
            restart_text = f"{restarts} ({self._age(last_restart, now)} ago)"
        return [
            o["metadata"]["name"],
            f"{ready}/{total}",
            reason,
            restart_text,
            self._age(o["metadata"]["creationTimestamp"], now),
            status.get("podIP") or "<none>",
            o["spec"].get("nodeName") or "<none>",
            "<none>",
            "<none>",
        ]


def _init_reason(pod: dict[str, Any]) -> str | None:
    """printPod's status while init containers run: Init:<reason>, Init:ExitCode:N or Init:i/n."""
    count = len(pod["spec"].get("initContainers", []))
    for i, c in enumerate(pod.get("status", {}).get("initContainerStatuses", [])):
        state = c.get("state", {})
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if terminated is not None and terminated.get("exitCode") == 0:
            continue
        if terminated is not None:
            if terminated.get("reason"):
                return "Init:" + terminated["reason"]
            if terminated.get("signal"):
                return f"Init:Signal:{terminated['signal']}"
            return f"Init:ExitCode:{terminated.get('exitCode')}"
        if waiting is not None and waiting.get("reason") not in (
            None,
            "",
            "PodInitializing",
        ):
            return "Init:" + waiting["reason"]
        return f"Init:{i}/{count}"
    return None


def _template(o: dict[str, Any]) -> dict[str, Any]:
    spec = o["spec"]
    if "jobTemplate" in spec:
        spec = spec["jobTemplate"]["spec"]
    return spec["template"]["spec"]


def _wide(o: dict[str, Any]) -> list[str]:
    """The Containers, Images and Selector columns of a workload's wide table."""
    containers = _template(o)["containers"]
    selector = o["spec"].get("selector", {}).get("matchLabels", {})
    return [
        ",".join(c["name"] for c in containers),
        ",".join(c["image"] for c in containers),
        ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>",
    ]


def _labels(pairs: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(pairs.items())) or "<none>"


def _daemonset(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    st = o.get("status", {})
    return [
        o["metadata"]["name"],
        st.get("desiredNumberScheduled", 0),
        st.get("currentNumberScheduled", 0),
        st.get("numberReady", 0),
        st.get("updatedNumberScheduled", 0),
        st.get("numberAvailable", 0),
        _labels(_template(o).get("nodeSelector", {})),
        age(o["metadata"]["creationTimestamp"]),
        *_wide(o),
    ]


def _job(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    st = o.get("status", {})
    conditions = {
        c["type"] for c in st.get("conditions", []) if c.get("status") == "True"
    }
    if "Complete" in conditions:
        status = "Complete"
    elif "Failed" in conditions:
        status = "Failed"
    elif o["metadata"].get("deletionTimestamp"):
        status = "Terminating"
    elif "FailureTarget" in conditions:
        status = "FailureTarget"
    elif o["spec"].get("suspend"):
        status = "Suspended"
    else:
        status = "Running"
    started, finished = st.get("startTime"), st.get("completionTime")
    duration = ""
    if started:
        end = _parse_time(finished) if finished else now
        duration = human_duration((end - _parse_time(started)).total_seconds())
    return [
        o["metadata"]["name"],
        status,
        f"{st.get('succeeded', 0)}/{o['spec'].get('completions', 1)}",
        duration,
        age(o["metadata"]["creationTimestamp"]),
        *_wide(o),
    ]


def _cronjob(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    st, spec = o.get("status", {}), o["spec"]
    last = st.get("lastScheduleTime")
    return [
        o["metadata"]["name"],
        spec["schedule"],
        spec.get("timeZone", "<none>"),
        "True" if spec.get("suspend") else "False",
        len(st.get("active", [])),
        age(last) if last else "<none>",
        age(o["metadata"]["creationTimestamp"]),
        *_wide(o),
    ]


def _ingress(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    spec = o["spec"]
    hosts = ",".join(r.get("host", "*") for r in spec.get("rules", [])) or "*"
    addresses = ",".join(
        i.get("ip") or i.get("hostname", "")
        for i in o.get("status", {}).get("loadBalancer", {}).get("ingress", [])
    )
    return [
        o["metadata"]["name"],
        spec.get("ingressClassName", "<none>"),
        hosts,
        addresses,
        "80, 443" if spec.get("tls") else "80",
        age(o["metadata"]["creationTimestamp"]),
    ]


def _ingressclass(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    """printIngressClass: the controller, the parameters as Kind/name (or <none>)."""
    spec = o.get("spec", {})
    params = spec.get("parameters")
    return [
        o["metadata"]["name"],
        spec.get("controller", ""),
        f"{params.get('kind', '')}/{params.get('name', '')}" if params else "<none>",
        age(o["metadata"]["creationTimestamp"]),
    ]


def _vpa(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    """The VerticalPodAutoscaler CRD's printer columns: the update mode, the first container's
    target recommendation, whether a recommendation is provided."""
    spec, st = o.get("spec", {}), o.get("status", {})
    recommended = (st.get("recommendation") or {}).get("containerRecommendations") or [
        {}
    ]
    target = recommended[0].get("target") or {}
    provided = next(
        (
            c.get("status", "")
            for c in st.get("conditions") or []
            if c.get("type") == "RecommendationProvided"
        ),
        "",
    )
    return [
        o["metadata"]["name"],
        (spec.get("updatePolicy") or {}).get("updateMode", ""),
        target.get("cpu", ""),
        target.get("memory", ""),
        provided,
        age(o["metadata"]["creationTimestamp"]),
    ]


def _hpa(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    spec, st = o["spec"], o.get("status", {})
    ref = spec["scaleTargetRef"]
    current = {
        m["resource"]["name"]: m["resource"]["current"].get("averageUtilization")
        for m in st.get("currentMetrics", [])
        if m.get("type") == "Resource"
    }
    targets = ", ".join(
        f"{m['resource']['name']}: "
        + (
            "<unknown>"
            if current.get(m["resource"]["name"]) is None
            else f"{current[m['resource']['name']]}%"
        )
        + f"/{m['resource']['target'].get('averageUtilization')}%"
        for m in spec.get("metrics", [])
        if m.get("type") == "Resource"
    )
    return [
        o["metadata"]["name"],
        f"{ref['kind']}/{ref['name']}",
        targets or "<none>",
        spec.get("minReplicas", 1),
        spec["maxReplicas"],
        st.get("currentReplicas", 0),
        age(o["metadata"]["creationTimestamp"]),
    ]


def _netpol(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    selector = o["spec"].get("podSelector", {}).get("matchLabels", {})
    return [
        o["metadata"]["name"],
        _labels(selector),
        age(o["metadata"]["creationTimestamp"]),
    ]


def _pdb(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    spec = o["spec"]
    return [
        o["metadata"]["name"],
        str(spec.get("minAvailable", "N/A")),
        str(spec.get("maxUnavailable", "N/A")),
        o.get("status", {}).get("disruptionsAllowed", 0),
        age(o["metadata"]["creationTimestamp"]),
    ]


def _storageclass(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    annotations = o["metadata"].get("annotations") or {}
    is_default = (
        annotations.get("storageclass.kubernetes.io/is-default-class") == "true"
    )
    return [
        o["metadata"]["name"] + (" (default)" if is_default else ""),
        o.get("provisioner", ""),
        o.get("reclaimPolicy", "Delete"),
        o.get("volumeBindingMode", "Immediate"),
        str(bool(o.get("allowVolumeExpansion"))).lower(),
        age(o["metadata"]["creationTimestamp"]),
    ]


def _endpointslice(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    ports = ",".join(str(p["port"]) for p in o.get("ports") or []) or "<unset>"
    addresses = [a for e in o.get("endpoints") or [] for a in e["addresses"]]
    text = ",".join(addresses[:3]) or "<none>"
    if len(addresses) > 3:
        text += f" + {len(addresses) - 3} more..."
    return [
        o["metadata"]["name"],
        o["addressType"],
        ports,
        text,
        age(o["metadata"]["creationTimestamp"]),
    ]


def _role(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    return [o["metadata"]["name"], o["metadata"]["creationTimestamp"]]


def _rolebinding(o: dict[str, Any], age: Any, now: datetime) -> list[Any]:
    """printRoleBinding: the role as Kind/name; users, groups and service accounts (ns/name)."""
    subjects = o.get("subjects") or []

    def named(kind: str) -> str:
        return ", ".join(
            (
                f"{s.get('namespace', '')}/{s['name']}"
                if kind == "ServiceAccount"
                else s["name"]
            )
            for s in subjects
            if s.get("kind") == kind
        )

    return [
        o["metadata"]["name"],
        f"{o['roleRef']['kind']}/{o['roleRef']['name']}",
        age(o["metadata"]["creationTimestamp"]),
        named("User"),
        named("Group"),
        named("ServiceAccount"),
    ]


_WIDE = [("Containers", 1), ("Images", 1), ("Selector", 1)]
# The server-side printers of the kinds beyond the core ones (pkg/printers/internalversion).
_MORE_PRINTERS: dict[str, tuple[list[tuple[str, int]], Any]] = {
    "DaemonSet": (
        [
            ("Name", 0),
            ("Desired", 0),
            ("Current", 0),
            ("Ready", 0),
            ("Up-to-date", 0),
            ("Available", 0),
            ("Node Selector", 0),
            ("Age", 0),
            *_WIDE,
        ],
        _daemonset,
    ),
    "Job": (
        [
            ("Name", 0),
            ("Status", 0),
            ("Completions", 0),
            ("Duration", 0),
            ("Age", 0),
            *_WIDE,
        ],
        _job,
    ),
    "CronJob": (
        [
            ("Name", 0),
            ("Schedule", 0),
            ("Timezone", 0),
            ("Suspend", 0),
            ("Active", 0),
            ("Last Schedule", 0),
            ("Age", 0),
            *_WIDE,
        ],
        _cronjob,
    ),
    "Ingress": (
        [
            ("Name", 0),
            ("Class", 0),
            ("Hosts", 0),
            ("Address", 0),
            ("Ports", 0),
            ("Age", 0),
        ],
        _ingress,
    ),
    "HorizontalPodAutoscaler": (
        [
            ("Name", 0),
            ("Reference", 0),
            ("Targets", 0),
            ("MinPods", 0),
            ("MaxPods", 0),
            ("Replicas", 0),
            ("Age", 0),
        ],
        _hpa,
    ),
    "IngressClass": (
        [("Name", 0), ("Controller", 0), ("Parameters", 0), ("Age", 0)],
        _ingressclass,
    ),
    "VerticalPodAutoscaler": (
        [
            ("Name", 0),
            ("Mode", 0),
            ("CPU", 0),
            ("Mem", 0),
            ("Provided", 0),
            ("Age", 0),
        ],
        _vpa,
    ),
    "NetworkPolicy": ([("Name", 0), ("Pod-Selector", 0), ("Age", 0)], _netpol),
    "Role": ([("Name", 0), ("Created At", 0)], _role),
    "RoleBinding": (
        [
            ("Name", 0),
            ("Role", 0),
            ("Age", 0),
            ("Users", 1),
            ("Groups", 1),
            ("ServiceAccounts", 1),
        ],
        _rolebinding,
    ),
    "PodDisruptionBudget": (
        [
            ("Name", 0),
            ("Min Available", 0),
            ("Max Unavailable", 0),
            ("Allowed Disruptions", 0),
            ("Age", 0),
        ],
        _pdb,
    ),
    "StorageClass": (
        [
            ("Name", 0),
            ("Provisioner", 0),
            ("ReclaimPolicy", 0),
            ("VolumeBindingMode", 0),
            ("AllowVolumeExpansion", 0),
            ("Age", 0),
        ],
        _storageclass,
    ),
    "EndpointSlice": (
        [
            ("Name", 0),
            ("AddressType", 0),
            ("Ports", 0),
            ("Endpoints", 0),
            ("Age", 0),
        ],
        _endpointslice,
    ),
}


def _shift(obj: Any, shift: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _shift(v, shift) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_shift(v, shift) for v in obj]
    if isinstance(obj, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", obj):
        return _format_time(_parse_time(obj) + shift)
    return copy.copy(obj)


def _field(obj: dict[str, Any], path: str) -> str:
    value: Any = obj
    for part in path.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return str(value)


def _selected(obj: dict[str, Any], query: dict[str, str]) -> bool:
    labels = query.get("labelSelector")
    if labels and not selector_matches(labels, obj["metadata"].get("labels") or {}):
        return False
    for requirement in filter(None, (query.get("fieldSelector") or "").split(",")):
        negate = "!=" in requirement
        key, _, value = requirement.partition("!=" if negate else "=")
        key, value = key.strip(), value.strip().lstrip("=")
        if (_field(obj, key) == value) == negate:
            return False
    return True


def _json(value: Any) -> tuple[int, str, bytes]:
    return 200, "application/json", json.dumps(value).encode()


def _status(code: int, reason: str, message: str, **details: str) -> bytes:
    return json.dumps(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "details": details,
            "code": code,
        }
    ).encode()


@contextlib.contextmanager
def fake_kube_api(fixture: Path) -> Iterator[FakeKubeAPI]:
    """The fake serving `fixture` for the length of the block."""
    api = FakeKubeAPI(fixture).start()
    try:
        yield api
    finally:
        api.stop()


def relative_seconds(text: str) -> int | None:
    """Seconds of a relative time such as "-2d3h" or "+95s" ("0s" is now); None when `text` is not one."""
    match = _RELATIVE.fullmatch(text)
    if match is None:
        return None
    total = sum(
        int(amount) * _UNIT_S[unit]
        for amount, unit in re.findall(r"(\d+)([dhms])", match[2])
    )
    return -total if match[1] == "-" else total


def resolve_times(value: Any, now: datetime, key: str = "") -> Any:
    """A copy of `value` whose time fields written relative ("-44m") are absolute against `now`."""
    if isinstance(value, dict):
        return {k: resolve_times(v, now, k) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_times(v, now, key) for v in value]
    if isinstance(value, str) and _TIME_FIELD.fullmatch(key):
        seconds = relative_seconds(value)
        if seconds is not None:
            return _format_time(now + timedelta(seconds=seconds))
    return copy.copy(value)


def _wall_clock() -> datetime:
    """The wall clock to the microsecond, and times written against it keep the fraction: kubectl,
    reading its own clock a little later (less than a second), ages them to the whole relative
    seconds they were written with, as it truncates. (Whole seconds instead meant waiting for the
    start of the next second, most of a second per events request.)"""
    moment = datetime.now(UTC)
    return moment if moment.microsecond else moment.replace(microsecond=1)
