"""Volume plugins: a CSI driver that is not registered on the node a pod was placed on.

Rule: when a pod's volume cannot be mounted because the kubelet says the volume's CSI driver is
not in its list of registered drivers (`driver name <driver> not found in the list of registered
CSI drivers`), the pod and its workload are fine: the driver's node plugin — a DaemonSet, usually
in kube-system — does not run on that node (a taint it does not tolerate, a node selector, a
crash). The DaemonSet whose name, containers or images carry the driver's name is the fault
(`startup`, `CSIDriverNotRegistered`, at the platform layer; the driver itself when no DaemonSet
was listed) and the workloads whose mounts fail are its victims. The DaemonSets of kube-system
(and of the namespace) are listed, and the plugin's described, once such a warning is seen
(`reads`).
"""

import re
from collections.abc import Callable
from typing import Any

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event
from reasoning.layered.reading import short
from reasoning.observations import PlannedCall
from reasoning.tools import DESCRIBE, GET_RESOURCES

# The kubelet's words for a driver it has no node plugin of (csi_plugin.go, csi_attacher.go).
_UNREGISTERED = re.compile(
    r"driver name ([a-z0-9][a-z0-9.-]*[a-z0-9]) not found in the list of registered CSI drivers"
    r"|CSI driver ([a-z0-9][a-z0-9.-]*[a-z0-9]) (?:is )?not registered",
    re.IGNORECASE,
)
_SYSTEM = "kube-system"
_TOLERATIONS = re.compile(r"^\s*Tolerations:.*$", re.MULTILINE)
_DESIRED = re.compile(r"^Desired Number of Nodes Scheduled:\s*\d+.*$", re.MULTILINE)
# Words of a driver's name that say nothing about which plugin it is.
_GENERIC = frozenset({"csi", "k8s", "io", "com", "storage", "driver", "x-k8s"})

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


def unregistered(cluster: Cluster, ns: str) -> dict[str, list[Event]]:
    """Per CSI driver a mount warning says is not registered on its node, those warnings."""
    out: dict[str, list[Event]] = {}
    for event in cluster.warnings(ns):
        match = _UNREGISTERED.search(event.message)
        if match:
            driver = (match.group(1) or match.group(2)).lower()
            out.setdefault(driver, []).append(event)
    return out


def _words(driver: str) -> list[str]:
    """The distinctive words of a driver's name (`efs` of efs.csi.aws.com, `secrets-store` …)."""
    parts = re.split(r"[.]", driver)
    return [p for p in parts[:2] if p and p not in _GENERIC] or parts[:1]


def plugin_daemonset(cluster: Cluster, ns: str, driver: str) -> tuple[str, str] | None:
    """(namespace, name) of the listed DaemonSet that runs `driver`'s node plugin, when one is."""
    words = _words(driver)
    for space in dict.fromkeys((_SYSTEM, ns, *(cluster.namespaces or ()))):
        table = cluster.table("daemonsets", space)
        if table is None:
            continue
        ranked = []
        for row in table.rows:
            name = row.get("NAME", "")
            text = " ".join(
                (name, row.get("CONTAINERS", ""), row.get("IMAGES", ""))
            ).lower()
            if driver in text or any(w in text for w in words):
                ranked.append(("csi" not in name, "node" not in name, name))
        if ranked:
            return space, min(ranked)[2]
    return None


def csi_driver_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """A pod's volume whose CSI driver is not registered on its node is the fault of the driver's node-plugin DaemonSet, not of the workload."""
    out: list[Finding] = []
    for driver, events in unregistered(cluster, ns).items():
        plugin = plugin_daemonset(cluster, ns, driver)
        component = (
            f"daemonset/{plugin[1]}" if plugin is not None else f"csidriver/{driver}"
        )
        f = Finding(
            "startup",
            "CSIDriverNotRegistered",
            component,
            layers.PLATFORM,
            "",
            ns,
        )
        f.cite(events[0].obs, events[0].fact)
        said = ""
        if plugin is not None:
            space, name = plugin
            table = cluster.table("daemonsets", space)
            row = (
                next((r for r in table.rows if r.get("NAME") == name), None)
                if table
                else None
            )
            if table is not None and row is not None:
                said = f" (desired {row.get('DESIRED', '?')}, ready {row.get('READY', '?')})"
                f.cite(table.obs, f"get daemonsets -n {space}: {name}{said}")
            described = cluster.describe("daemonsets", space, name)
            if described is not None:
                for pattern in (_DESIRED, _TOLERATIONS):
                    line = pattern.search(described.text)
                    if line:
                        f.cite(
                            described,
                            f"describe daemonset {name}: {line.group(0).strip()}",
                        )
        victims = list(dict.fromkeys(cluster.owner(ns, e.kind, e.name) for e in events))
        where = (
            f"its node plugin, daemon set {plugin[1]}{said}, does not run there"
            if plugin is not None
            else "no node plugin of it runs there"
        )
        f.statement = (
            f"the CSI driver {driver} is not registered on the nodes of {', '.join(victims)}: "
            f"{where}, so their volumes cannot be mounted ({short(events[0].message, 120)})"
        )
        f.explains = victims
        f.keywords = [driver, component.partition("/")[2], "FailedMount"]
        f.chain = [
            f"{victims[0]}: FailedMount, driver {driver} not registered",
            f.statement,
        ]
        out.append(f)
    return out


def reads(cluster: Cluster, ns: str, call: Call) -> list[PlannedCall | None]:
    """Once a mount warning names an unregistered CSI driver: the DaemonSets of kube-system (and of the namespace), then the plugin's describe."""
    drivers = unregistered(cluster, ns)
    if not drivers:
        return []
    calls: list[PlannedCall | None] = []
    for space in dict.fromkeys((_SYSTEM, ns)):
        if space == _SYSTEM or not cluster.has_list("daemonsets", space):
            calls.append(
                call(
                    GET_RESOURCES,
                    {"kind": "daemonsets", "namespace": space, "wide": True},
                    f"CSI driver {next(iter(drivers))} not registered on a node: "
                    f"where its node plugin runs",
                )
            )
    for driver in list(drivers)[:2]:
        plugin = plugin_daemonset(cluster, ns, driver)
        if plugin is not None:
            calls.append(
                call(
                    DESCRIBE,
                    {"kind": "daemonset", "name": plugin[1], "namespace": plugin[0]},
                    f"daemon set {plugin[1]} ({driver}'s node plugin): its nodes and tolerations",
                )
            )
    return calls
