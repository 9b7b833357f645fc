"""`capture`: write a snapshot of one namespace from a live cluster, the commands an engineer runs first.

Lists (pods wide with labels, workloads, services, endpoints, events, nodes, PVCs, quotas, service
accounts, config maps, secrets' names), then `describe` of every unhealthy object and of every object
a Warning event names, then the logs of unhealthy pods and the previous logs of restarting containers.
The IngressClasses are listed when the namespace has ingresses; the VerticalPodAutoscalers (a custom
resource) listed and described when a pod carries their annotations or an event their eviction.
Each value is kubectl's text with Secret data and credentials masked, as the live tools answer it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mcpservers.kubernetes.answers import BackendError
from mcpservers.kubernetes.commands import Command
from mcpservers.kubernetes.kinds import find_kind
from mcpservers.kubernetes.redaction import redact_object, safe_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mcpservers.kubernetes.kinds import Kind
    from mcpservers.kubernetes.live import LiveBackend

LOG_TAIL = 1000
# (resource, output, show labels): the lists, in the order an engineer reads them.
LISTS: tuple[tuple[str, str, bool], ...] = (
    ("pods", "wide", True),
    ("deployments", "wide", False),
    ("replicasets", "wide", False),
    ("statefulsets", "wide", False),
    ("daemonsets", "wide", False),
    ("jobs", "wide", False),
    ("cronjobs", "wide", False),
    ("horizontalpodautoscalers", "", False),
    ("poddisruptionbudgets", "", False),
    ("services", "wide", False),
    ("endpoints", "", False),
    ("endpointslices", "", False),
    ("ingresses", "", False),
    ("networkpolicies", "", False),
    ("persistentvolumeclaims", "", False),
    ("resourcequotas", "", False),
    ("serviceaccounts", "", False),
    ("configmaps", "", False),
    ("secrets", "", False),
    ("nodes", "wide", False),
)
# Objects read as JSON to decide what is unhealthy.
INSPECTED = (
    "pods",
    "deployments",
    "replicasets",
    "statefulsets",
    "services",
    "endpoints",
    "persistentvolumeclaims",
    "nodes",
)
# Kinds whose every object is described, healthy or not: few per namespace, and a fault of theirs
# (an autoscaler at its maximum, a policy that admits no caller, a route to the wrong Service, a
# failed run) shows only in their describe, never as an unhealthy pod of their own.
DESCRIBED = (
    "daemonsets",
    "jobs",
    "cronjobs",
    "horizontalpodautoscalers",
    "poddisruptionbudgets",
    "ingresses",
    "networkpolicies",
)


@dataclass
class Capture:
    namespace: str
    snapshot: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


async def capture_namespace(
    backend: LiveBackend,
    namespace: str,
    *,
    include_objects: bool = False,
    all_logs: bool = False,
    also: Sequence[Command] = (),
) -> Capture:
    """Run the read-only commands for `namespace` (then `also`) and collect their answers by command line."""
    result = Capture(namespace)

    async def record(command: Command) -> None:
        try:
            answer = await backend.run(command)
        except BackendError as exc:
            result.failures.append(str(exc))
            return
        is_secret_yaml = (
            command.kind is not None
            and command.kind.resource == "secrets"
            and command.output == "yaml"
        )
        result.snapshot[command.line()] = safe_text(
            answer.text, is_secret_yaml=is_secret_yaml, objects=answer.objects
        )

    for resource, output, show_labels in LISTS:
        await record(
            Command(
                "get",
                namespace,
                kind=_kind(resource),
                output=output,
                show_labels=show_labels,
            )
        )
    await record(Command("events", namespace))

    objects: dict[str, list[dict[str, Any]]] = {}
    for resource in (*INSPECTED, *DESCRIBED, "events"):
        command = Command("get", namespace, kind=_kind(resource), output="json")
        items = await _items(backend, command, result)
        objects[resource] = items
        if include_objects and items is not None:
            result.snapshot[command.line()] = json.dumps(
                {"apiVersion": "v1", "kind": "List", "items": redact_object(items)},
                indent=4,
                ensure_ascii=False,
            )

    described = unhealthy(objects) + [
        (resource, _name(item))
        for resource in DESCRIBED
        for item in objects.get(resource) or []
    ]
    if objects.get("ingresses"):
        # Which classes exist: an Ingress naming none is served by no controller.
        await record(Command("get", namespace, kind=_kind("ingressclasses")))
    if vpa_managed(objects):
        # A custom resource, read only where its updater left its marks (most clusters lack it).
        vpas = Command("get", namespace, kind=_kind("verticalpodautoscalers"))
        await record(vpas)
        json_vpas = replace(vpas, output="json")
        items = await _items(backend, json_vpas, result)
        if include_objects and items:
            result.snapshot[json_vpas.line()] = json.dumps(
                {"apiVersion": "v1", "kind": "List", "items": redact_object(items)},
                indent=4,
                ensure_ascii=False,
            )
        described += [("verticalpodautoscalers", _name(item)) for item in items]
    for resource, name in dict.fromkeys(described):
        await record(Command("describe", namespace, kind=_kind(resource), name=name))
    for pod in objects.get("pods") or []:
        name = pod["metadata"]["name"]
        statuses = _container_statuses(pod)
        for container in [
            *_container_statuses(pod, "initContainerStatuses"),
            *statuses,
        ]:
            if container.get("restartCount", 0) > 0:
                await record(
                    Command(
                        "logs",
                        namespace,
                        kind=_kind("pods"),
                        name=name,
                        container=container["name"],
                        is_previous=True,
                        tail=LOG_TAIL,
                    )
                )
        if all_logs or _pod_problem(pod):
            for container in statuses or [
                {"name": c["name"]} for c in pod.get("spec", {}).get("containers", [])
            ]:
                await record(
                    Command(
                        "logs",
                        namespace,
                        kind=_kind("pods"),
                        name=name,
                        container=container["name"],
                        tail=LOG_TAIL,
                    )
                )
    for command in also:
        if command.line() not in result.snapshot:
            await record(command)
    return result


async def _items(
    backend: LiveBackend, command: Command, result: Capture
) -> list[dict[str, Any]]:
    try:
        completed = await backend.kubectl_run(command)
    except BackendError as exc:
        result.failures.append(str(exc))
        return []
    if completed.returncode != 0:
        result.failures.append(f"`{command.line()}`: {completed.stderr.strip()[:500]}")
        return []
    try:
        items = json.loads(completed.stdout).get("items") or []
    except (ValueError, AttributeError):
        result.failures.append(f"`{command.line()}` did not answer JSON")
        return []
    return [item for item in items if isinstance(item, dict) and "metadata" in item]


def unhealthy(objects: dict[str, list[dict[str, Any]]]) -> list[tuple[str, str]]:
    """(resource, name) of every object worth a describe, in the order found, without repeats."""
    found: dict[tuple[str, str], None] = {}
    for pod in objects.get("pods") or []:
        if _pod_problem(pod):
            found[("pods", _name(pod))] = None
    for resource in ("deployments", "statefulsets", "replicasets"):
        for workload in objects.get(resource) or []:
            wanted = workload.get("spec", {}).get("replicas", 1)
            status = workload.get("status", {})
            failed = any(
                c.get("type") == "ReplicaFailure" and c.get("status") == "True"
                for c in status.get("conditions") or []
            )
            if resource == "replicasets" and wanted == 0:
                continue  # an old ReplicaSet of a rollout
            if failed or wanted == 0 or status.get("readyReplicas", 0) < wanted:
                found[(resource, _name(workload))] = None
    endpoints = {_name(e): e for e in objects.get("endpoints") or []}
    for service in objects.get("services") or []:
        if service.get("spec", {}).get("type") == "ExternalName" or not service.get(
            "spec", {}
        ).get("selector"):
            continue
        subsets = endpoints.get(_name(service), {}).get("subsets") or []
        if not any(subset.get("addresses") for subset in subsets):
            found[("services", _name(service))] = None
    for claim in objects.get("persistentvolumeclaims") or []:
        if claim.get("status", {}).get("phase") != "Bound":
            found[("persistentvolumeclaims", _name(claim))] = None
    for node in objects.get("nodes") or []:
        ready: dict[str, Any] = next(
            (
                c
                for c in node.get("status", {}).get("conditions") or []
                if c.get("type") == "Ready"
            ),
            {},
        )
        if ready.get("status") != "True" or node.get("spec", {}).get("unschedulable"):
            found[("nodes", _name(node))] = None
    for event in objects.get("events") or []:
        involved = event.get("involvedObject", {})
        kind = find_kind(str(involved.get("kind", "")))
        if (
            event.get("type") == "Warning"
            and kind is not None
            and kind.resource != "events"
            and involved.get("name")
        ):
            found[(kind.resource, str(involved["name"]))] = None
    return list(found)


# What the VerticalPodAutoscaler's admission plugin writes on the pods it resized, and the reason
# of its updater's evictions.
VPA_ANNOTATIONS = ("vpaUpdates", "vpaObservedContainers")
VPA_EVICTION = "EvictedByVPA"


def vpa_managed(objects: dict[str, list[dict[str, Any]]]) -> bool:
    """A pod carries the autoscaler's annotations, or an event says its updater evicted one."""
    return any(
        key in ((pod.get("metadata") or {}).get("annotations") or {})
        for pod in objects.get("pods") or []
        for key in VPA_ANNOTATIONS
    ) or any(e.get("reason") == VPA_EVICTION for e in objects.get("events") or [])


def _pod_problem(pod: dict[str, Any]) -> bool:
    status = pod.get("status", {})
    if status.get("phase") == "Succeeded":
        return False
    if status.get("phase") != "Running":
        return True
    return any(
        not c.get("ready") or c.get("restartCount", 0) > 0
        for c in _container_statuses(pod)
    )


def _container_statuses(
    pod: dict[str, Any], field: str = "containerStatuses"
) -> list[dict[str, Any]]:
    return [
        c
        for c in pod.get("status", {}).get(field) or []
        if isinstance(c, dict) and c.get("name")
    ]


def _name(item: dict[str, Any]) -> str:
    return str(item.get("metadata", {}).get("name", ""))


def _kind(resource: str) -> Kind:
    kind = find_kind(resource)
    assert kind is not None
    return kind


def write_snapshot(result: Capture, path: str) -> None:
    """Write the snapshot as JSON (keys in capture order), replacing the file only once it is whole."""
    from pathlib import Path

    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    partial.write_text(
        json.dumps(result.snapshot, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    partial.replace(target)
    sys.stderr.write(
        f"mcpservers.kubernetes capture: {len(result.snapshot)} commands written to {path}\n"
    )
