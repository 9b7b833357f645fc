"""Which namespaces the incident is about: the ones it names, else where its service runs.

Named ones first ('namespace shop', 'shop namespace', '-n shop'); else the non-system ones,
application namespaces before the platform's own, three at a time.
"""

import re

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.reading import incident_text
from reasoning.observations import Investigation
from reasoning.tools import GET_RESOURCES

SYSTEM_NAMESPACES = frozenset(
    {"kube-system", "kube-public", "kube-node-lease", "default"}
)
_NAMESPACE_IN_TEXT = (
    re.compile(
        r"\bnamespaces?\s*[:=]?\s*[`'\"]?([a-z0-9][a-z0-9-]{0,62})", re.IGNORECASE
    ),
    re.compile(r"(?<!\S)-n\s+([a-z0-9][a-z0-9-]{0,62})"),
    re.compile(r"\b([a-z0-9][a-z0-9-]{0,62})\s+namespace\b", re.IGNORECASE),
)
# Namespaces the platform's own tools live in: read after the applications' ones.
_PLATFORM_NAMESPACE = re.compile(
    r"system|monitoring|logging|observability|cert-manager|ingress|istio|linkerd|argo|flux|"
    r"velero|vault|gatekeeper|kyverno|calico|tigera|metallb|prometheus|grafana|loki|jaeger|tempo"
)
_NOT_NAMESPACES = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "same",
        "each",
        "every",
        "its",
        "in",
        "of",
        "on",
        "for",
        "to",
        "from",
        "into",
        "per",
        "our",
        "their",
        "whole",
        "any",
        "all",
        "other",
        "one",
        "another",
        "another",
        "kubernetes",
        "k8s",
        "cluster",
        "is",
        "was",
    ]
)


def is_application(ns: str) -> bool:
    """Not a system namespace, nor one of the platform's own tools (monitoring, ingress …)."""
    return ns not in SYSTEM_NAMESPACES and _PLATFORM_NAMESPACE.search(ns) is None


def named_namespaces(text: str) -> list[str]:
    """Namespaces the incident names ('namespace shop', 'shop namespace', '-n shop')."""
    found: list[str] = []
    for pattern in _NAMESPACE_IN_TEXT:
        for match in pattern.finditer(text):
            name = match.group(1).lower()
            if name not in _NOT_NAMESPACES and name not in found:
                found.append(name)
    return found


def scanned_namespaces(inv: Investigation, cluster: Cluster) -> list[str]:
    """Where to look for the incident's service: named ones first, else the non-system ones.

    Application namespaces before the platform's own (monitoring, ingress, cert-manager …), three
    at a time: the next three only once those read hold nothing of the service.
    """
    text = incident_text(inv)
    named = named_namespaces(text)
    if cluster.namespaces is None:
        refused = any(
            o.tool == GET_RESOURCES
            and str(o.arguments.get("kind")) == "namespaces"
            and not o.is_ok
            for o in inv.observations
        )
        # Namespaces not listable (RBAC, an older server): the named one, else default.
        return named[:2] or (["default"] if refused else [])
    listed = cluster.namespaces
    words = set(re.findall(r"[a-z0-9][a-z0-9-]*", text.lower()))
    chosen = [n for n in named if n in listed]
    chosen += [
        n
        for n in listed
        if n in words and n not in SYSTEM_NAMESPACES and n not in chosen
    ]
    if chosen:
        return chosen[:2]
    others = sorted(
        (n for n in listed if n not in SYSTEM_NAMESPACES),
        key=lambda n: _PLATFORM_NAMESPACE.search(n) is not None,
    )
    scanned: list[str] = []
    for start in range(0, len(others), 3):
        batch = others[start : start + 3]
        scanned += batch
        if not all(_pods_read(cluster, ns) for ns in batch) or any(
            _holds(inv, cluster, ns) for ns in batch
        ):
            break
    return scanned


def _pods_read(cluster: Cluster, ns: str) -> bool:
    return cluster.has_list("pods", ns) or (
        ("pods", ns, True) in cluster.missing and ("pods", ns, False) in cluster.missing
    )


def _holds(inv: Investigation, cluster: Cluster, ns: str) -> bool:
    service = inv.incident.service.lower()
    return any(p.name.startswith(service) for p in cluster.pods(ns)) or (
        service in cluster.names("services", ns)
    )


def chosen_namespaces(inv: Investigation, cluster: Cluster) -> list[str]:
    """The namespaces read in full: where the service's pods are, else the scanned ones that
    run pods (a scanned namespace with no pods does not hold the others back)."""
    scanned = scanned_namespaces(inv, cluster)
    if len(scanned) <= 1:
        return scanned
    holding = [ns for ns in scanned if _holds(inv, cluster, ns)]
    if holding:
        return holding[:1]
    if all(_pods_answered(cluster, ns) for ns in scanned):
        # A namespace whose pod list came back empty runs nothing to read in full.
        return [ns for ns in scanned if cluster.has_list("pods", ns)][:2]
    return []


def _pods_answered(cluster: Cluster, ns: str) -> bool:
    """The pods of `ns` were listed, or the list came back with none."""
    return cluster.has_list("pods", ns) or any(
        ("pods", ns, labels) in cluster.missing for labels in (True, False)
    )
