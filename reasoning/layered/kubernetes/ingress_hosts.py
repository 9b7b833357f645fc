"""An Ingress of another namespace that claims a path on the incident's host: the controller merges the rules of one host across namespaces, so requests under that path reach the other team's backend.

ingress-nginx (and most controllers) build one server per host from every Ingress of its class,
whatever its namespace, and route each request to the rule with the longest matching path. An
Ingress another team adds for the same host with a path (`/checkout`) that the incident namespace's
own Ingress serves only through a shorter rule (`/` → its web app) takes those requests away: they
reach the other namespace's backend, which answers them with a 404 or a 405, while every pod of the
incident's namespace runs healthy and none of its services logs a failure. Once an Ingress of the
incident's namespace is listed with its hosts, the ingresses of the other namespaces whose pods were
listed are listed too (`reads`), those sharing a host are described, and the controller's lines
naming the other backend's upstream (`[<namespace>-<service>-<port>]`) are searched. The other
Ingress is the fault (service_routing, connect); requests under its path answered with a failure by
its backend (in a line naming it) confirm it.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.routing import ingress_backends
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import DESCRIBE, GET_RESOURCES, SEARCH_LOGS

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]
_PLATFORM = frozenset({"kube-system", "kube-public", "kube-node-lease"})
_REQUEST = re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[^\s\"'?#]*)")
# The first status-like number after the request: the answer (later numbers are sizes, times).
_STATUS = re.compile(r"(?<![\d.:/-])\d{3}(?![\d.:/-])")
# Namespaces listed for another namespace's ingresses, and ingresses described there.
MOST_NAMESPACES = 3
MOST_DESCRIBED = 2


@dataclass(frozen=True)
class Claim:
    """A path `other` (an Ingress of namespace `space`) claims on a host that `own` serves through a shorter rule."""

    space: str
    other: str
    path: str
    backend: str
    port: str
    own: str
    own_path: str
    own_backend: str
    host: str
    obs: Observation


def _hosts(cluster: Cluster, ns: str) -> dict[str, set[str]]:
    """Each listed ingress of `ns` → its hosts (the HOSTS column; `*` is no host)."""
    table = cluster.table("ingresses", ns)
    out: dict[str, set[str]] = {}
    for row in table.rows if table else ():
        hosts = {h.strip().lower() for h in row.get("HOSTS", "").split(",")}
        out[row.get("NAME", "")] = {h for h in hosts if h and h != "*"}
    return out


def _others(cluster: Cluster, ns: str) -> list[str]:
    """The cluster's other namespaces, those whose pods were listed first."""
    spaces = [s for s in cluster.namespaces or () if s != ns and s not in _PLATFORM]
    return sorted(spaces, key=lambda s: not cluster.has_list("pods", s))


def upstream(space: str, backend: str, port: str) -> str:
    """The controller's name of a backend in its access log: `<namespace>-<service>-<port>`."""
    return f"{space}-{backend}-{port}"


def search_pattern(claim: Claim) -> str:
    """The RE2 pattern of the controller's lines naming the claiming backend's upstream."""
    return re.escape(f"[{upstream(claim.space, claim.backend, claim.port)}]")


def reads(
    inv: Investigation, cluster: Cluster, ns: str, call: Call
) -> list[PlannedCall | None]:
    """Once an ingress of `ns` is listed with a host: the ingresses of the other namespaces read, those sharing a host described, and the controller's lines naming a claiming backend searched."""
    own = set().union(*_hosts(cluster, ns).values()) if _hosts(cluster, ns) else set()
    if not own:
        return []
    calls: list[PlannedCall | None] = []
    described = 0
    for space in _others(cluster, ns)[:MOST_NAMESPACES]:
        if cluster.wants_list("ingresses", space, wide=False):
            calls.append(
                call(
                    GET_RESOURCES,
                    {"kind": "ingresses", "namespace": space},
                    f"does an ingress of {space} claim a path on {sorted(own)[0]} "
                    f"(the controller merges one host's rules across namespaces)",
                )
            )
            continue
        for name, hosts in _hosts(cluster, space).items():
            if not hosts & own or described >= MOST_DESCRIBED:
                continue
            described += 1
            if cluster.describe("ingresses", space, name) is None:
                calls.append(
                    call(
                        DESCRIBE,
                        {"kind": "ingress", "name": name, "namespace": space},
                        f"ingress {space}/{name} serves {sorted(hosts & own)[0]} too: "
                        "which paths it claims",
                    )
                )
    searched = {
        str(o.arguments.get("query")) for o in inv.observations if o.tool == SEARCH_LOGS
    }
    for claim in claims(cluster, ns)[:1]:
        pattern = search_pattern(claim)
        if pattern not in searched:
            window: dict[str, str] = {}
            if inv.incident.window_start and inv.incident.window_end:
                window = {
                    "start": inv.incident.window_start,
                    "end": inv.incident.window_end,
                }
            calls.append(
                call(
                    SEARCH_LOGS,
                    {"query": pattern, "regex": True, **window, "limit": 20},
                    f"ingress {claim.space}/{claim.other} claims {claim.path} on "
                    f"{claim.host}: do requests there reach {claim.backend} and fail",
                )
            )
    return calls


def claims(cluster: Cluster, ns: str) -> list[Claim]:
    """Paths another namespace's Ingress claims on a host of `ns`'s ingresses, that `ns` serves through a shorter rule to another backend."""
    own_hosts = _hosts(cluster, ns)
    own_routes: list[tuple[str, str, str, set[str]]] = []
    for name, hosts in own_hosts.items():
        described = cluster.describe("ingresses", ns, name)
        if described is not None:
            own_routes += [
                (name, path or "/", backend, hosts)
                for path, backend, _ in ingress_backends(described.text)
            ]
    out: list[Claim] = []
    for space in _others(cluster, ns):
        for name, hosts in _hosts(cluster, space).items():
            described = cluster.describe("ingresses", space, name)
            if described is None:
                continue
            for path, backend, port in ingress_backends(described.text):
                if not path or path == "/":
                    continue
                shared = [r for r in own_routes if r[3] & hosts]
                if any(r[1].rstrip("/") == path.rstrip("/") for r in shared):
                    continue  # both name the path: a conflict the controller reports
                takers = [r for r in shared if _takes(r[1], path)]
                if not takers:
                    continue
                own, own_path, own_backend, own_set = max(
                    takers, key=lambda r: len(r[1])
                )
                out.append(
                    Claim(
                        space,
                        name,
                        path,
                        backend,
                        port,
                        own,
                        own_path,
                        own_backend,
                        sorted(own_set & hosts)[0],
                        described,
                    )
                )
    return out


def _takes(prefix: str, path: str) -> bool:
    base = prefix.rstrip("/")
    return base == "" or path == base or path.startswith(base + "/")


def host_path_faults(inv: Investigation, cluster: Cluster, ns: str) -> list[Finding]:
    """Another namespace's Ingress claiming, on a host of the incident's namespace, a path that namespace serves through a shorter rule takes those requests to its own backend: the Ingress is the fault, confirmed by requests under the path that its backend answers with a failure."""
    out: dict[str, Finding] = {}
    for claim in claims(cluster, ns):
        component = f"ingress/{claim.other}"
        if component in out:
            continue
        f = Finding(
            "service_routing",
            "IngressHostPathCollision",
            component,
            layers.CONNECT,
            f"ingress {claim.space}/{claim.other} claims {claim.path} on {claim.host}, which "
            f"ingress {ns}/{claim.own} serves through {claim.own_path} → {claim.own_backend}: "
            f"the controller merges one host's rules across namespaces, so requests under "
            f"{claim.path} reach {claim.space}'s {claim.backend}:{claim.port} instead",
            ns,
        )
        f.cite(
            claim.obs,
            f"describe ingress {claim.other} -n {claim.space}: {claim.host} {claim.path} → "
            f"{claim.backend}:{claim.port}",
        )
        own = cluster.describe("ingresses", ns, claim.own)
        if own is not None:
            f.context.append(
                (
                    own,
                    f"describe ingress {claim.own}: {claim.own_path} → {claim.own_backend}",
                )
            )
        table = cluster.table("ingresses", claim.space)
        if table is not None:
            f.context.append(
                (
                    table.obs,
                    f"get ingresses -n {claim.space}: {table.line(claim.other)}",
                )
            )
        shown = _failed(inv, claim)
        if shown is not None:
            obs, line = shown
            f.cite(obs, line)
            f.is_relevant = (
                True  # requests under its path are seen failing at its backend
            )
        f.keywords = [
            "ingress",
            "host",
            claim.host,
            claim.path,
            claim.other,
            claim.backend,
        ]
        f.chain = [
            f"requests under {claim.path} on {claim.host} reach {claim.space}/{claim.backend}",
            f.statement,
        ]
        out[component] = f
    return list(out.values())


def _failed(inv: Investigation, claim: Claim) -> tuple[Observation, str] | None:
    """A line naming the claiming backend's upstream that answers a request under its path with a failure."""
    name = upstream(claim.space, claim.backend, claim.port)
    base = claim.path.rstrip("/")
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            if name not in message:
                continue
            request = _REQUEST.search(message)
            status = _STATUS.search(message, request.end()) if request else None
            if (
                request is not None
                and (
                    request.group(1) == base or request.group(1).startswith(base + "/")
                )
                and status is not None
                and status.group()[0] in "45"
            ):
                service = str(line.get("service") or "")
                return obs, f"{service} logs: {short(message, 220)}"
    return None
