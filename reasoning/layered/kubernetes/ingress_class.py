"""Ingress classes: an Ingress that names a class no IngressClass has is served by no controller.

Rule: an Ingress whose class (the table's CLASS, the describe's `Ingress Class:`) is none of the
IngressClasses listed — or, where they could not be listed, none of the classes of the ingresses a
controller admitted (those with an ADDRESS) while this one has no address — is ignored by every
ingress controller: its hosts fall through to the default backend (404) however healthy the pods
behind it are. The Ingress is the fault (`service_routing`, connect layer); a controller's log line
naming the class or the Ingress joins the evidence. An Ingress naming no class, without an
address, while no IngressClass described is the default, is the same fault. Failing log lines naming its hosts put it on
the incident's path.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.observations import Observation

_NO_CLASS = frozenset({"", "<none>", "<unset>"})
_DESCRIBED_CLASS = re.compile(r"^Ingress Class:\s*(\S*)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Routed:
    """One listed Ingress: its class, hosts and address, as the table shows them."""

    name: str
    klass: str
    hosts: str
    address: str


def routed(cluster: Cluster, ns: str) -> list[Routed]:
    """The listed ingresses of `ns` (a described class fills a table without the CLASS column)."""
    table = cluster.table("ingresses", ns)
    out: list[Routed] = []
    for row in table.rows if table else ():
        name = row.get("NAME", "")
        if not name:
            continue
        klass = row.get("CLASS", "")
        described = cluster.describe("ingresses", ns, name)
        match = _DESCRIBED_CLASS.search(described.text) if described else None
        if klass in _NO_CLASS and match:
            klass = match.group(1)
        out.append(Routed(name, klass, row.get("HOSTS", ""), row.get("ADDRESS", "")))
    return out


def wants_classes(cluster: Cluster, ns: str) -> bool:
    """An ingress of `ns` names a class (or names none and has no address) and the cluster's
    IngressClasses were not asked yet (a cluster-scoped list: asked from any namespace)."""
    return any(
        r.klass not in _NO_CLASS or not r.address for r in routed(cluster, ns)
    ) and (
        cluster.wants_list("ingressclasses", "", wide=False)
        and not any(kind == "ingressclasses" for kind, _, _ in cluster.missing)
    )


def known_classes(cluster: Cluster, ns: str) -> tuple[set[str], str] | None:
    """The classes that exist and how that is known: the IngressClasses listed, else the classes
    of the ingresses a controller gave an address; None when neither says."""
    table = cluster.table("ingressclasses", "")
    if table is not None:
        return set(cluster.names("ingressclasses", "")), "get ingressclasses"
    admitted = {
        r.klass for r in routed(cluster, ns) if r.address and r.klass not in _NO_CLASS
    }
    if admitted:
        return admitted, "the classes of the ingresses a controller admitted"
    return None


def _controller_says(
    facts: Facts, ns: str, ingress: str, klass: str
) -> tuple[Observation, str] | None:
    """A controller's error or warning naming this ingress, or the class, as unknown."""
    wanted = (f"{ns}/{ingress}".lower(), f'"{klass}"'.lower(), f"'{klass}'".lower())
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = f"{group.sample} {group.signature}".lower()
            if "class" in text and any(w in text for w in wanted):
                return errors.obs, errors.fact(group)
    return None


def _failing_on_hosts(facts: Facts, hosts: str) -> tuple[Observation, str] | None:
    """A failing log line (error or warning, any service) naming one of the ingress's hosts."""
    names = [h.lower() for h in hosts.split(",") if "." in h and "*" not in h]
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = f"{group.sample} {group.signature}".lower()
            if any(
                re.search(rf"(?<![\w.-]){re.escape(h)}(?![\w-])", text) for h in names
            ):
                return errors.obs, errors.fact(group)
    return None


def ingress_class_faults(cluster: Cluster, facts: Facts, ns: str) -> list[Finding]:
    """An Ingress naming an ingress class that no IngressClass has is ignored by every controller, so its hosts fall through to the default backend."""
    known = known_classes(cluster, ns)
    if known is None:
        return []
    classes, how = known
    table = cluster.table("ingresses", ns)
    out: list[Finding] = []
    for r in routed(cluster, ns):
        if r.klass in _NO_CLASS:
            f_default = _without_default(cluster, ns, r)
            if f_default is not None:
                out.append(f_default)
            continue
        if r.klass in classes:
            continue
        if how != "get ingressclasses" and r.address:
            continue  # some controller serves it after all
        f = Finding(
            "service_routing",
            "IngressClassNotFound",
            f"ingress/{r.name}",
            layers.CONNECT,
            f"ingress {r.name} names class {r.klass}, which no IngressClass has "
            f"(known: {', '.join(sorted(classes))}): no controller serves it, so "
            f"{r.hosts or 'its hosts'} fall through to the default backend",
            ns,
        )
        if table is not None:
            f.cite(table.obs, f"get ingresses: {table.line(r.name)}")
        described = cluster.describe("ingresses", ns, r.name)
        if described is not None:
            f.cite(described, f"describe ingress {r.name}: Ingress Class: {r.klass}")
        listed = cluster.table("ingressclasses", "")
        if listed is not None:
            f.cite(
                listed.obs,
                f"get ingressclasses: {', '.join(sorted(classes)) or 'none'} (no {r.klass})",
            )
        logged = _controller_says(facts, ns, r.name, r.klass)
        if logged is not None:
            f.cite(*logged)
        failing = _failing_on_hosts(facts, r.hosts)
        if failing is not None:
            # Requests to its hosts fail: the incident's traffic goes through it.
            f.cite(*failing)
            f.is_relevant = True
        f.keywords = [
            "ingress",
            "ingressClassName",
            r.name,
            r.klass,
            *r.hosts.split(","),
        ]
        f.chain = [
            f"ingress {r.name}: class {r.klass}, address {r.address or 'none'}",
            f"{how}: {', '.join(sorted(classes))}",
            f.statement,
        ]
        f.explains = [
            w
            for s in _backends(cluster, ns, r.name)
            for w in cluster.service_workloads(ns, s)
        ]
        out.append(f)
    return out


_DEFAULT = re.compile(r"ingressclass\.kubernetes\.io/is-default-class:\s*\"?true", re.I)


def undescribed_classes(cluster: Cluster, ns: str) -> list[str]:
    """The listed IngressClasses not described yet, when an ingress of `ns` names no class and has
    no address (is one of them the cluster's default?)."""
    if not any(r.klass in _NO_CLASS and not r.address for r in routed(cluster, ns)):
        return []
    return [
        name
        for name in cluster.names("ingressclasses", "")
        if cluster.describe("ingressclasses", "", name) is None
    ]


def _without_default(cluster: Cluster, ns: str, r: Routed) -> Finding | None:
    """An Ingress naming no class, without an address, while every IngressClass is described and
    none is the default: no controller takes it."""
    names = cluster.names("ingressclasses", "")
    described = [cluster.describe("ingressclasses", "", n) for n in names]
    if r.address or not names or any(d is None for d in described):
        return None
    if any(d is not None and _DEFAULT.search(d.text) for d in described):
        return None
    f = Finding(
        "service_routing",
        "IngressClassNotFound",
        f"ingress/{r.name}",
        layers.CONNECT,
        f"ingress {r.name} names no ingress class and no IngressClass is the default "
        f"({', '.join(names)}): no controller serves it, so {r.hosts or 'its hosts'} "
        "fall through to the default backend",
        ns,
    )
    table = cluster.table("ingresses", ns)
    if table is not None:
        f.cite(table.obs, f"get ingresses: {table.line(r.name)}")
    for name, obs in zip(names, described, strict=True):
        f.cite(obs, f"describe ingressclass {name}: not the default class")
    f.keywords = ["ingress", "ingressClassName", "default", r.name]
    f.chain = [f"ingress {r.name}: no class, no address", f.statement]
    return f


_BACKEND = re.compile(r"^\s+\S*\s+([a-z0-9][-a-z0-9.]*):\S+\s+\(", re.MULTILINE)


def _backends(cluster: Cluster, ns: str, ingress: str) -> list[str]:
    """The services a described ingress routes to (`/path  svc:port (endpoints)`)."""
    described = cluster.describe("ingresses", ns, ingress)
    return sorted(set(_BACKEND.findall(described.text))) if described else []
