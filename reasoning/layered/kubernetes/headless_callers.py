"""A headless Service whose callers dial its pods' old addresses.

Rule: a headless Service (`ClusterIP: None`) gives its callers the pods' own addresses, and a
caller that resolves the name once (nginx's `upstream` at start, a JVM's DNS cache, a client's
connection pool) keeps dialling them after the pods move; when callers fail to connect (timed
out, no route, refused) to an address on the Service's port that is none of its current
endpoints and no pod's, the headless Service is the fault (`HeadlessService`, connect): a virtual
IP (type ClusterIP) would have kept one stable address. Not the callers, which only cached what
it gave them, nor the pods, which serve at their new addresses.
"""

import re
from collections.abc import Sequence

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import describe_field
from reasoning.layered.reading import short
from reasoning.observations import Observation

_ADDRESS = re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})\b")
_NO_CONNECTION = re.compile(
    r"timed? ?out|no route to host|host is unreachable|connection refused|i/o timeout"
    r"|ETIMEDOUT|EHOSTUNREACH|ECONNREFUSED|ConnectException|ConnectTimeout",
    re.IGNORECASE,
)


def _is_headless(cluster: Cluster, ns: str, service: str) -> Observation | None:
    """The answer showing the service headless (its listing's CLUSTER-IP or its describe's IP)."""
    table = cluster.table("services", ns)
    row = table.row(service) if table else None
    if table is not None and row is not None and row.get("CLUSTER-IP") == "None":
        return table.obs
    described = cluster.describe("services", ns, service)
    if described is not None and (
        describe_field("\n" + described.text, "IP").strip() == "None"
    ):
        return described
    return None


def _ports(cluster: Cluster, ns: str, service: str) -> set[str]:
    ports: set[str] = set()
    table = cluster.table("services", ns)
    row = table.row(service) if table else None
    if row is not None:
        ports |= set(re.findall(r"(?:^|[,:])(\d+)/", row.get("PORT(S)", "")))
    described = cluster.describe("services", ns, service)
    if described is not None:
        ports |= set(
            re.findall(r"^(?:Port|TargetPort):.*?(\d+)/", described.text, re.M)
        )
    return ports


def stale_headless_faults(
    cluster: Cluster,
    ns: str,
    failing: Sequence[tuple[Observation | None, str]] = (),
) -> list[Finding]:
    """A headless Service whose callers fail to connect to addresses on its port that are no longer
    its endpoints nor any pod's: they cached the pods' old addresses it handed out."""
    out: list[Finding] = []
    spaces = cluster.namespaces or [ns]
    pod_ips = {p.ip for space in spaces for p in cluster.pods(space) if p.ip}
    services = cluster.names("services", ns)
    virtual = set()
    table = cluster.table("services", ns)
    for s in services:
        row = table.row(s) if table else None
        if row is not None:
            virtual.add(row.get("CLUSTER-IP", ""))
    for service in services:
        shown = _is_headless(cluster, ns, service)
        if shown is None:
            continue
        ports = _ports(cluster, ns, service)
        if not ports:
            continue
        current = set(_ADDRESS.findall(cluster.endpoints(ns, service) or ""))
        listed = {ip for ip, _ in current}
        if not listed:
            continue  # no endpoints at all: another rule's case
        # Other services on the same port make the address ambiguous: not this rule's to say.
        if any(
            s != service and _ports(cluster, ns, s) & ports
            for s in services
            if _is_headless(cluster, ns, s) is not None
        ):
            continue
        hit = _stale_dial(failing, ports, listed | pod_ips | virtual)
        if hit is None:
            continue
        obs, line, address = hit
        out.append(_finding(cluster, ns, service, shown, obs, line, address, listed))
    return out


def _stale_dial(
    failing: Sequence[tuple[Observation | None, str]],
    ports: set[str],
    known: set[str],
) -> tuple[Observation | None, str, str] | None:
    for obs, text in failing:
        for line in text.splitlines()[:5000]:
            head = line[:2000]
            if not _NO_CONNECTION.search(head):
                continue
            for ip, port in _ADDRESS.findall(head):
                if port in ports and ip not in known:
                    return obs, line.strip(), f"{ip}:{port}"
    return None


def _finding(
    cluster: Cluster,
    ns: str,
    service: str,
    shown: Observation,
    obs: Observation | None,
    line: str,
    address: str,
    listed: set[str],
) -> Finding:
    now = ", ".join(sorted(listed)[:3])
    f = Finding(
        "service_routing",
        "HeadlessService",
        f"service/{service}",
        layers.CONNECT,
        f"service {service} is headless (ClusterIP: None): its callers got the pods' own "
        f"addresses, cached them, and still dial {address} after the pods moved (now {now})",
        ns,
    )
    f.cite(
        obs,
        f"a caller of {service} cannot connect to an old address: {short(line, 220)}",
    )
    table = cluster.table("services", ns)
    f.cite(
        shown,
        f"get services: {table.line(service) if table and shown is table.obs else service} "
        "(ClusterIP None: headless)",
    )
    endpoints = cluster.table("endpoints", ns)
    if endpoints is not None and endpoints.row(service) is not None:
        f.cite(endpoints.obs, f"get endpoints: {endpoints.line(service)}")
    events_obs = cluster.events_obs.get(ns)
    for e in cluster.events.get(ns, []):
        if e.reason in ("Scheduled", "Killing") and e.name.startswith(f"{service}-"):
            if events_obs is not None:
                f.cite(
                    events_obs,
                    f"events: {e.reason} {e.object}: {short(e.message, 140)}",
                )
            break
    f.keywords = ["headless", "clusterIP: None", service, address.split(":")[0]]
    f.chain = [
        f"callers time out dialling {address}",
        f"{address} is no pod's address any more",
        f.statement,
    ]
    f.is_relevant = True
    return f
