"""Routing: services, the names callers use for them, and ingresses — the path traffic takes to pods.

Rules:
- a service with no endpoints whose selector matches no pod (and no workload is meant to back it)
  sends its callers nowhere (`no_endpoints`); one whose workload has no pod to offer is that
  workload's fault, not the service's (recorded in `Path.backing`);
- a service whose numeric targetPort is none of the ports its pods' containers listen on gets its
  connections refused (`target_port_mismatch`);
- a caller whose logs fail to resolve a cluster-local name that no service in the namespace has
  points at the wrong name (`wrong_service_name`);
- an ingress path that routes to a service other than the one the path names, while requests there
  are seen failing (404/502/503), or to a backend that is not a service (no service listed, no
  endpoint addresses in the describe) or has no endpoints, routes to the wrong service
  (`wrong_service`);
- a service whose selector (or whose endpoints' addresses) takes in the pods of a second workload
  besides the one it is meant for (named like it, else the only one whose own selector is the
  service's) — a debug or copied Deployment carrying the same labels — sends part of the
  requests there; when that intruder's pods log failures (or the failure text names it failing),
  the intruder is the fault (`SelectorOverlap`, connect), not the service's callers nor its
  intended pods. An intruder seen failing nowhere (a canary serving as well) is no fault;
- a service without a selector, whose Endpoints (or EndpointSlices) someone maintains by hand for
  addresses outside the cluster, is not updated when those hosts move: when none of its addresses
  is a pod's and its callers fail to connect through its name (no route, refused, timed out), the
  hand-written endpoints are stale (`StaleEndpoints`, connect), not the callers nor the hosts'
  DNS name (`stale_manual_endpoints`). A selectorless service nobody fails to reach is no fault.
"""

import re
from collections.abc import Sequence

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import (
    describe_field,
    parse_labels,
    read_containers,
)
from reasoning.layered.kubernetes.logs import FAILING, Edge
from reasoning.layered.kubernetes.path import Path, path_word, service_for_path
from reasoning.layered.reading import error_classes, incident_text, short
from reasoning.observations import Investigation, Observation

# describe ingress's rules: `<path>  <backend>:<port> (<endpoints>)`.
_ADDRESS = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}:\d+")
_INGRESS_RULE = re.compile(r"(/\S*)?\s+([a-z0-9][a-z0-9-]*):(\S+)\s+\(([^)]*\)?)\)")


def ingress_backends(described: str) -> list[tuple[str, str, str]]:
    """(path prefix, service, port) for each rule an ingress's describe lists."""
    return [(p, b, port) for p, b, port, _ in _INGRESS_RULE.findall(described)]


def routing_faults(
    cluster: Cluster, ns: str, path: Path, failing: str = ""
) -> list[Finding]:
    """A service that reaches no pod or the wrong port, a name no service has, or an ingress routing to the wrong service sends its callers' traffic nowhere."""
    out: list[Finding] = []
    for service in cluster.names("services", ns):
        finding = _service_fault(cluster, ns, path, service)
        if finding is not None:
            out.append(finding)
    known = set(cluster.names("services", ns))
    for edge in path.edges:
        finding = _wrong_name(cluster, ns, edge, known)
        if finding is not None:
            out.append(finding)
    for ingress in cluster.names("ingresses", ns):
        finding = _ingress_fault(cluster, ns, ingress, known, failing)
        if finding is not None:
            out.append(finding)
    return out


def stale_manual_endpoints(
    cluster: Cluster,
    ns: str,
    failing: str = "",
    sources: Sequence[tuple[Observation, str]] = (),
) -> list[Finding]:
    """A service without a selector whose hand-written endpoints list no pod's address, while its callers fail to connect through its name, sends them to hosts that moved: its stale endpoints are the fault."""
    out: list[Finding] = []
    pod_ips = {
        p.ip for space in cluster.namespaces or [ns] for p in cluster.pods(space)
    }
    for service in cluster.names("services", ns):
        if cluster.service_selector(ns, service) != {}:
            continue  # a selector (or not read): the controller writes its endpoints
        cell = cluster.endpoints(ns, service) or ""
        addresses = [a.split(":")[0] for a in _ADDRESS.findall(cell)]
        if not addresses or any(a in pod_ips for a in addresses):
            continue
        line = _failed_connect(failing, service, ns)
        if line is None:
            continue
        finding = _stale_endpoints(cluster, ns, service, addresses, line)
        # The caller's own failing line, from the answer that showed it (its logs, its errors).
        for obs, text in [*sources, *cluster.log_texts(ns)]:
            said = _failed_connect(text, service, ns)
            if said is not None:
                finding.cite(obs, f"a caller of {service} logs: {said.strip()}")
                break
        out.append(finding)
    return out


def _failed_connect(failing: str, service: str, ns: str) -> str | None:
    """A line failing to connect through the service's name (`svc`, `svc.ns`, `svc.ns.svc...`)."""
    name = re.compile(
        rf"(?<![\w.-]){re.escape(service)}(?:\.{re.escape(ns)}(?:\.svc[\w.]*)?)?(?=[:/\s\"']|$)"
    )
    for line in failing.splitlines()[:5000]:
        if layers.CONNECT in error_classes(line) and name.search(line[:2000]):
            return line
    return None


def _stale_endpoints(
    cluster: Cluster, ns: str, service: str, addresses: list[str], line: str
) -> Finding:
    listed = ",".join(addresses[:4])
    f = Finding(
        "service_routing",
        "StaleEndpoints",
        f"service/{service}",
        layers.CONNECT,
        f"service {service} has no selector: its endpoints ({listed}) are written by hand, "
        "are no pod's, and its callers cannot connect to them (the hosts moved and the "
        "endpoints were not updated)",
        ns,
    )
    services_table = cluster.table("services", ns)
    endpoints_table = cluster.table("endpoints", ns)
    described = cluster.describe("services", ns, service)
    if described is not None:
        f.cite(
            described,
            f"describe service {service}: Selector <none>, Endpoints {listed}",
        )
    f.cite(
        services_table.obs if services_table else None,
        f"get services: {services_table.line(service) if services_table else service}",
    )
    f.cite(
        endpoints_table.obs if endpoints_table else None,
        f"get endpoints: {endpoints_table.line(service) if endpoints_table else service}",
    )
    endpoints_desc = cluster.describe("endpoints", ns, service)
    if endpoints_desc is not None:
        f.cite(endpoints_desc, f"describe endpoints {service}: Addresses {listed}")
    f.keywords = ["endpoints", "selector", "stale endpoints", service, *addresses[:2]]
    f.chain = [
        f"callers fail to connect to {service}: {short(line.strip(), 160)}",
        f.statement,
    ]
    return f


def overlap_faults(
    cluster: Cluster, ns: str, path: Path, failing: str = ""
) -> list[Finding]:
    """A service whose selector (or endpoints) takes in the pods of a second workload, which fails while the one it is meant for serves, sends part of its callers' requests to that intruder."""
    out: list[Finding] = []
    for service in cluster.names("services", ns):
        selected = _endpoint_workloads(cluster, ns, service)
        for w in cluster.service_workloads(ns, service):
            if w not in selected:
                selected.append(w)
        if len(selected) < 2:
            continue
        meant = _meant_workload(cluster, ns, service, selected)
        if meant is None:
            continue
        for intruder in selected:
            if intruder == meant:
                continue
            said = _failing_lines(cluster, ns, intruder, failing)
            if not said:
                continue  # a canary or a second version serving as well: not a fault
            out.append(_overlap(cluster, ns, service, meant, intruder, said, path))
    return out


def _endpoint_workloads(cluster: Cluster, ns: str, service: str) -> list[str]:
    """The workloads whose pods' addresses a service's endpoints list (its describe lists them all)."""
    described = cluster.describe("services", ns, service)
    cells = (cluster.endpoints(ns, service) or "") + " "
    if described is not None:
        cells += describe_field("\n" + described.text, "Endpoints")
    addresses = set(_ENDPOINT_IP.findall(cells))
    found: list[str] = []
    for pod in cluster.pods(ns):
        if pod.ip and pod.ip in addresses:
            owner = cluster.owner(ns, "pod", pod.name)
            if owner not in found:
                found.append(owner)
    return found


_ENDPOINT_IP = re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}\b")


def _meant_workload(
    cluster: Cluster, ns: str, service: str, selected: list[str]
) -> str | None:
    """The workload a service is meant for among those it selects: the one named like it, else
    the only one whose own selector is the service's exactly; None when that is not clear."""
    named = [w for w in selected if w.partition("/")[2] == service]
    if len(named) == 1:
        return named[0]
    selector = cluster.service_selector(ns, service) or {}
    exact: list[str] = []
    for w in selected:
        kind, _, name = w.partition("/")
        table = cluster.table(f"{kind}s", ns)
        row = table.row(name) if table else None
        if (
            row is not None
            and selector
            and parse_labels(row.get("SELECTOR", "")) == selector
        ):
            exact.append(w)
    return exact[0] if len(exact) == 1 else None


def _failing_lines(
    cluster: Cluster, ns: str, workload: str, failing: str
) -> list[tuple[Observation | None, str]]:
    """What shows a workload failing: its pods' failing log lines (warnings and errors), else the
    failure text's lines that name it."""
    out: list[tuple[Observation | None, str]] = []
    for pod in cluster.pods_of(ns, workload):
        for obs, text in cluster.log_text(ns, pod.name):
            lines = [ln.strip() for ln in text.splitlines() if _FAILED_LINE.search(ln)]
            if lines:
                out.append((obs, f"{pod.name} logs: {short(lines[-1], 200)}"))
                break
    if out:
        return out
    name = workload.partition("/")[2]
    named = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    for ln in failing.splitlines():
        if named.search(ln) and _FAILED_LINE.search(ln):
            out.append((None, short(ln.strip(), 200)))
            break
    return out


# A failing line: the failure words, a WARN or ERROR level, or a 4xx/5xx answer.
_FAILED_LINE = re.compile(
    rf"{FAILING.pattern}|\b(?:WARN(?:ING)?|ERROR|SEVERE)\b|\s[45]\d\d\s", re.IGNORECASE
)


def _overlap(
    cluster: Cluster,
    ns: str,
    service: str,
    meant: str,
    intruder: str,
    said: list[tuple[Observation | None, str]],
    path: Path,
) -> Finding:
    selector = cluster.service_selector(ns, service) or {}
    wanted = ",".join(f"{k}={v}" for k, v in selector.items())
    pods = cluster.pods_of(ns, intruder)
    f = Finding(
        "service_routing",
        "SelectorOverlap",
        intruder,
        layers.CONNECT,
        f"service {service} (selector {wanted}) also sends requests to {intruder}'s pods "
        f"({', '.join(p.name for p in pods[:2])}), which carry its labels but are not "
        f"{meant}: they fail ({short(said[0][1], 140)})",
        ns,
    )
    services = cluster.table("services", ns)
    f.cite(
        services.obs if services else None,
        f"get services: {services.line(service) if services else service}",
    )
    endpoints = cluster.table("endpoints", ns)
    if endpoints is not None and endpoints.row(service) is not None:
        f.cite(endpoints.obs, f"get endpoints: {endpoints.line(service)}")
    described = cluster.describe("services", ns, service)
    if described is not None:
        f.cite(
            described,
            f"describe service {service}: Selector {wanted}, Endpoints "
            + describe_field("\n" + described.text, "Endpoints"),
        )
    table = cluster.table("pods", ns)
    for pod in pods[:2]:
        f.cite(table.obs if table else None, f"get pods: {pod.line}")
    for obs, fact in said:
        f.cite(obs, fact)
    kind, _, name = intruder.partition("/")
    owners = cluster.table(f"{kind}s", ns)
    if owners is not None and owners.row(name) is not None:
        f.cite(owners.obs, f"get {kind}s: {owners.line(name)}")
    if service in path.services or any(w in path.workloads for w in (meant, intruder)):
        f.is_relevant = True
        f.depth = 1 + max(
            (path.depth.get(e.caller, 0) for e in path.edges if e.service == service),
            default=path.depth.get(meant, 0),
        )
    f.keywords = ["selector", "labels", "endpoints", service, name]
    f.chain = [
        f"requests to {service} reach {intruder} too",
        f.statement,
    ]
    return f


def failure_text(inv: Investigation, facts: Facts, cluster: Cluster, ns: str) -> str:
    """The incident's words, the error groups and the pods' logs, for rules that need a failure seen."""
    parts = [incident_text(inv)]
    parts += [g.text for _, g in facts.error_texts()]
    parts += [obs.text for (space, _, _, _), obs in cluster.logs.items() if space == ns]
    return "\n".join(parts)


def _service_fault(
    cluster: Cluster, ns: str, path: Path, service: str
) -> Finding | None:
    cell = cluster.endpoints(ns, service)
    if cell is None:
        return None
    selected = cluster.service_workloads(ns, service)
    selector = cluster.service_selector(ns, service)
    intended = cluster.intended_workloads(ns, service)
    empty = cell in ("<none>", "") and not selected
    if empty and intended:
        # Its workload has no pod to offer: that workload's fault (or its zero replicas).
        path.backing.setdefault(service, intended)
        return None
    if empty and selector:
        return _no_endpoints(cluster, ns, service, selector)
    return _target_port_mismatch(cluster, ns, service, selected)


def _no_endpoints(
    cluster: Cluster, ns: str, service: str, selector: dict[str, str]
) -> Finding:
    endpoints_table = cluster.table("endpoints", ns)
    services_table = cluster.table("services", ns)
    f = Finding(
        "service_routing",
        "no_endpoints",
        f"service/{service}",
        layers.CONNECT,
        f"service {service} has no endpoints: its selector {','.join(f'{k}={v}' for k, v in selector.items())} matches no pod",
        ns,
    )
    f.cite(
        endpoints_table.obs if endpoints_table else None,
        f"get endpoints: {endpoints_table.line(service) if endpoints_table else service} (no endpoints)",
    )
    f.cite(
        services_table.obs if services_table else None,
        f"get services: {services_table.line(service) if services_table else service}",
    )
    described = cluster.describe("services", ns, service)
    if described is not None:
        f.cite(described, f"describe service {service}: Endpoints: <none>")
    f.keywords = ["service", "selector", "no endpoints", service]
    f.chain = [f"calls to {service} find no backend", f.statement]
    return f


def _target_port_mismatch(
    cluster: Cluster, ns: str, service: str, selected: list[str]
) -> Finding | None:
    described = cluster.describe("services", ns, service)
    if described is None:
        return None
    targets = re.findall(
        r"^TargetPort:\s*(\S+?)(?:/\w+)?\s*$", described.text, re.MULTILINE
    )
    ports: list[str] = []
    pod_obs: Observation | None = None
    for workload in selected:
        for pod in cluster.pods_of(ns, workload):
            pod_desc = cluster.describe("pods", ns, pod.name)
            if pod_desc is not None:
                ports += [p.split("/")[0] for p in read_containers(pod_desc.text).ports]
                pod_obs = pod_desc
    wrong = [t for t in targets if t.isdigit() and ports and t not in ports]
    if not wrong or pod_obs is None:
        return None
    f = Finding(
        "service_routing",
        "target_port_mismatch",
        f"service/{service}",
        layers.CONNECT,
        f"service {service} sends traffic to port {wrong[0]}, where no container of its pods listens (they listen on {', '.join(sorted(set(ports)))})",
        ns,
    )
    f.cite(described, f"describe service {service}: TargetPort {wrong[0]}")
    f.cite(pod_obs, f"describe pod: container ports {', '.join(sorted(set(ports)))}")
    f.keywords = ["targetPort", "port", service, "connection refused"]
    f.chain = [f"connections to {service} are refused", f.statement]
    return f


_TEMPORARY = re.compile(
    r"EAI_AGAIN|i/o timeout|timed out|temporary failure|try again", re.IGNORECASE
)


def _wrong_name(
    cluster: Cluster, ns: str, edge: Edge, known: set[str]
) -> Finding | None:
    """A cluster-local name the caller cannot resolve and no service of the namespace has."""
    if edge.kind != "dns" or edge.service is not None:
        return None
    if _TEMPORARY.search(edge.line):
        return None  # a lookup that got no answer in time: the name may well exist
    first = edge.target.split(".")[0]
    if first in known or re.fullmatch(r"[\d.]+", edge.target):
        return None
    if "." in edge.target and not re.search(
        r"\.(svc|cluster\.local|local|internal)\b|\." + re.escape(ns) + r"\b",
        edge.target,
    ):
        return None  # an outside name: not the cluster's routing
    services_table = cluster.table("services", ns)
    f = Finding(
        "service_routing",
        "wrong_service_name",
        edge.caller,
        layers.DNS,
        f"{edge.caller} calls {edge.target}, a name no service in {ns} has (DNS cannot resolve it): its configuration points at the wrong name",
        ns,
    )
    f.cite(edge.obs, f"{edge.caller} logs: {edge.line}")
    f.cite(
        services_table.obs if services_table else None,
        f"get services -n {ns}: no service named {first}",
    )
    f.keywords = ["dns", "no such host", edge.target, "service name"]
    f.chain = [f"{edge.caller} cannot resolve {edge.target}", f.statement]
    return f


def _ingress_fault(
    cluster: Cluster, ns: str, ingress: str, known: set[str], failing: str
) -> Finding | None:
    """The first rule of an ingress that routes wrong (by the rules above), if any."""
    described = cluster.describe("ingresses", ns, ingress)
    if described is None:
        return None
    for prefix, backend, port, detail in _INGRESS_RULE.findall(described.text):
        meant = service_for_path(prefix, known)
        # Only when requests there are seen failing (a 404 or 502 for that path, or for what
        # the path names: `export download failed … 404` under /api/v1/exports).
        misrouted = re.search(
            rf"\b(?:404|502|503)\b[^\n]*{re.escape(prefix)}|{re.escape(prefix)}\S*[^\n]*\b(?:404|502|503)\b",
            failing,
        ) or _names_failing(path_word(prefix), failing)
        if meant is not None and meant != backend and misrouted:
            f = _ingress_finding(
                ingress,
                ns,
                f"ingress {ingress} routes {prefix} to {backend}:{port}, not to service {meant}",
                ["ingress", "backend", backend, meant],
            )
            f.cite(
                described,
                f"describe ingress {ingress}: {prefix} → {backend}:{port} ({detail})",
            )
            f.chain = [f"requests to {prefix} reach {backend}", f.statement]
            return f
        # Endpoint addresses listed: the controller resolved the service, whatever the table lists.
        unlisted = backend not in known and not _ADDRESS.search(detail)
        if unlisted or "error" in detail or "<none>" in detail:
            what = "is not a service" if backend not in known else "has no endpoints"
            f = _ingress_finding(
                ingress,
                ns,
                f"ingress {ingress} routes to {backend}:{port}, which {what} ({short(detail, 100)})",
                ["ingress", "backend", backend],
            )
            f.cite(
                described,
                f"describe ingress {ingress}: backend {backend}:{port} ({detail})",
            )
            f.chain = [f"requests through {ingress} fail", f.statement]
            return f
    return None


_FAILED_STATUS = re.compile(r"\b(?:404|502|503)\b")


def _names_failing(word: str, failing: str) -> bool:
    """A failing line (404, 502, 503) names `word`, a path's word (singular or plural)."""
    stem = word.removesuffix("s")
    if len(stem) < 4:
        return False
    named = re.compile(rf"\b{re.escape(stem)}s?\b", re.IGNORECASE)
    return any(
        _FAILED_STATUS.search(line) and named.search(line)
        for line in failing.splitlines()
    )


def _ingress_finding(
    ingress: str, ns: str, statement: str, keywords: list[str]
) -> Finding:
    f = Finding(
        "service_routing",
        "wrong_service",
        f"ingress/{ingress}",
        layers.CONNECT,
        statement,
        ns,
    )
    f.keywords = keywords
    return f
