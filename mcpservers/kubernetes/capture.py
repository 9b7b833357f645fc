"""`capture`: write a snapshot of one namespace from a live cluster, the commands an engineer runs first.

Lists (pods wide with labels, workloads, services, endpoints, events, nodes, PVCs, quotas, service
accounts, config maps, secrets' names), then `describe` of every unhealthy object and of every object
a Warning event names, then the logs of unhealthy pods and the previous logs of restarting containers.
The IngressClasses are listed when the namespace has ingresses; the VerticalPodAutoscalers (a custom
resource) listed and described when a pod carries their annotations or an event their eviction.
Each value is kubectl's text with Secret data and credentials masked, as the live tools answer it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mcpservers.kubernetes.answers import Answer, BackendError
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


# kubectl runs in flight at once: a capture is a hundred short reads, each mostly kubectl starting
# up; a few at a time cut its wall time several-fold and stay gentle on a real API server.
CONCURRENCY = 4


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
    """Run the read-only commands for `namespace` (then `also`) and collect their answers by command line.

    Each step's commands run a few at a time (`CONCURRENCY`); their answers and failures are
    recorded in the commands' order, so a capture writes the same snapshot however they interleave.
    """
    result = Capture(namespace)
    limit = asyncio.Semaphore(CONCURRENCY)

    async def answer(command: Command) -> Answer | BackendError:
        async with limit:
            try:
                return await backend.run(command)
            except BackendError as exc:
                return exc

    async def record(commands: Sequence[Command]) -> None:
        answers = await asyncio.gather(*(answer(command) for command in commands))
        for command, got in zip(commands, answers, strict=True):
            if isinstance(got, BackendError):
                result.failures.append(str(got))
                continue
            is_secret_yaml = (
                command.kind is not None
                and command.kind.resource == "secrets"
                and command.output == "yaml"
            )
            result.snapshot[command.line()] = safe_text(
                got.text, is_secret_yaml=is_secret_yaml, objects=got.objects
            )

    async def read_items(
        commands: Sequence[Command], *, keep_empty: bool
    ) -> list[list[dict[str, Any]]]:
        async def one(command: Command) -> tuple[list[dict[str, Any]], str | None]:
            async with limit:
                return await _items(backend, command)

        read = await asyncio.gather(*(one(command) for command in commands))
        for command, (items, failure) in zip(commands, read, strict=True):
            if failure is not None:
                result.failures.append(failure)
            if include_objects and (items or keep_empty):
                result.snapshot[command.line()] = json.dumps(
                    {"apiVersion": "v1", "kind": "List", "items": redact_object(items)},
                    indent=4,
                    ensure_ascii=False,
                )
        return [items for items, _ in read]

    await record(
        [
            Command(
                "get",
                namespace,
                kind=_kind(resource),
                output=output,
                show_labels=show_labels,
            )
            for resource, output, show_labels in LISTS
        ]
        + [Command("events", namespace)]
    )

    inspected = (*INSPECTED, *DESCRIBED, "events")
    read = await read_items(
        [Command("get", namespace, kind=_kind(r), output="json") for r in inspected],
        keep_empty=True,
    )
    objects = dict(zip(inspected, read, strict=True))

    described = unhealthy(objects) + [
        (resource, _name(item))
        for resource in DESCRIBED
        for item in objects.get(resource) or []
    ]
    if objects.get("ingresses"):
        # Which classes exist: an Ingress naming none is served by no controller.
        await record([Command("get", namespace, kind=_kind("ingressclasses"))])
    if vpa_managed(objects):
        # A custom resource, read only where its updater left its marks (most clusters lack it).
        vpas = Command("get", namespace, kind=_kind("verticalpodautoscalers"))
        await record([vpas])
        (items,) = await read_items([replace(vpas, output="json")], keep_empty=False)
        described += [("verticalpodautoscalers", _name(item)) for item in items]
    last: list[Command] = [
        Command("describe", namespace, kind=_kind(resource), name=name)
        for resource, name in dict.fromkeys(described)
    ]
    for pod in objects.get("pods") or []:
        name = pod["metadata"]["name"]
        statuses = _container_statuses(pod)
        for container in [
            *_container_statuses(pod, "initContainerStatuses"),
            *statuses,
        ]:
            if container.get("restartCount", 0) > 0:
                last.append(
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
                last.append(
                    Command(
                        "logs",
                        namespace,
                        kind=_kind("pods"),
                        name=name,
                        container=container["name"],
                        tail=LOG_TAIL,
                    )
                )
    await record(last)
    # The scenario's own commands, those the steps above did not already answer.
    await record(
        list(
            {
                command.line(): command
                for command in also
                if command.line() not in result.snapshot
            }.values()
        )
    )
    return result


async def _items(
    backend: LiveBackend, command: Command
) -> tuple[list[dict[str, Any]], str | None]:
    """The objects a `get -o json` lists, or none and why the read failed."""
    try:
        completed = await backend.kubectl_run(command)
    except BackendError as exc:
        return [], str(exc)
    if completed.returncode != 0:
        return [], f"`{command.line()}`: {completed.stderr.strip()[:500]}"
    try:
        items = json.loads(completed.stdout).get("items") or []
    except (ValueError, AttributeError):
        return [], f"`{command.line()}` did not answer JSON"
    return [
        item for item in items if isinstance(item, dict) and "metadata" in item
    ], None


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
