"""A workload that fails because a name it needs does not resolve is that name's victim (issue 21 class 4).

A pod's readiness probe checks what the pod needs (its database, its broker); a process exits when
it cannot open its first connection. When the name of that dependency does not resolve (NXDOMAIN,
"could not translate host name", `getaddrinfo ENOTFOUND`, `UnknownHostException`), the kubelet
reports the pod unhealthy or crashing, and that is the loudest object on the cluster, but it is a
symptom: the fault is the name's (a private zone the cluster's network cannot see, a record
removed, a resolver that does not know the domain). So when a workload failing at runtime has, in
its own pods' logs, lines saying a name outside the cluster does not resolve, the DNS hypothesis of
that name is confirmed by them (a second server beside the logs server's lines) and the workload's
own hypotheses become its victims. A cluster name (`*.svc`, `*.cluster.local`, a Service of the
namespace) is left to the cluster's own routing rules, and nothing is done while a DNS fault the
cluster shows itself (cluster DNS down, a pod's resolver settings, a Service's records) or another
confirmed DNS hypothesis (a shadowing zone, a captured search domain) already explains the lookups.
"""

from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.logs import DNS_FAIL
from reasoning.layered.reading import hosts_in, short
from reasoning.observations import Observation

_CONFIRMED: Final = 0.9  # the pods' own lines and the logs server agree
_ALONE: Final = 0.86  # the pods' lines only: still the kubelet's symptom explained
_CLUSTER_SUFFIXES: Final = (".svc", ".cluster.local", ".local")
_MAX_LINES: Final = 2000  # the tail of a pod's log a lookup failure is looked for in
_LINE_CHARS: Final = 2000  # a line's head, where its host is
_STALE_MARK: Final = "logged before the window too"


def _is_cluster_name(host: str, services: list[str]) -> bool:
    """A name the cluster answers itself (a Service's, or under the cluster's domain)."""
    if host.endswith(_CLUSTER_SUFFIXES) or ".svc." in host:
        return True
    return host.split(".", 1)[0] in services


def _unresolved(board: Board, f: Finding) -> list[tuple[str, str, Observation]]:
    """(host, line, answer) for each name outside the cluster that the workload's pods log
    failing to resolve, one line per host, in the order read."""
    assert board.cluster is not None
    cluster = board.cluster.cluster
    services = cluster.names("services", f.namespace)
    found: dict[str, tuple[str, str, Observation]] = {}
    for pod in cluster.pods_of(f.namespace, f.component):
        for obs, text in cluster.log_text(f.namespace, pod.name):
            for line in text.splitlines()[-_MAX_LINES:]:
                head = line[:_LINE_CHARS]
                if not DNS_FAIL.search(head):
                    continue
                for host in hosts_in(head):
                    if host not in found and not _is_cluster_name(host, services):
                        found[host] = (host, f"{pod.name} logs: {head.strip()}", obs)
    return list(found.values())


def lookup_victims(board: Board) -> None:
    """A Kubernetes workload failing at runtime (probes, restarts) whose own pods log that a name outside the cluster does not resolve is that name's victim: the DNS hypothesis, confirmed by the pods' lines, ranks above the workload."""
    if board.cluster is None:
        return
    findings = board.cluster.findings
    if any(f.layer == layers.DNS and not f.is_stale for f in findings):
        return  # the cluster shows a DNS fault of its own: its rules link the victims
    for f in findings:
        if (
            f.layer != layers.APPLICATION
            or f.stage != "runtime"
            or f.victim_of
            or f.is_stale
        ):
            continue
        for host, line, obs in _unresolved(board, f)[:1]:
            key = f"{layers.DNS}:{host}"
            if any(
                c.layer == layers.DNS and c.status == "confirmed" and c.id != key
                for c in board.candidates.values()
            ):
                return  # another DNS fault explains the lookups
            cause = board.candidates.get(key)
            if cause is not None and (
                cause.status == "ruled_out" or _STALE_MARK in cause.statement
            ):
                continue
            if cause is None:
                cause = board.get(layers.DNS, host, f"DNS resolution of {host} fails")
            _confirm(board, cause, f, host, line, obs)


def _confirm(
    board: Board, cause: Candidate, f: Finding, host: str, line: str, obs: Observation
) -> None:
    """The name's DNS fault confirmed by the workload's pods, the workload's hypotheses its victims."""
    cause.cite(obs, short(line, 240))
    level = _CONFIRMED if len(cause.sources) > 1 else _ALONE
    if cause.status != "confirmed" or cause.confidence < level:
        cause.status, cause.confidence = "confirmed", max(cause.confidence, level)
    if "pods cannot resolve it" not in cause.statement:
        cause.statement += (
            f"; {f.component}'s pods cannot resolve it, so they fail ({f.reason})"
        )
    cause.keywords = list(
        dict.fromkeys([*cause.keywords, layers.DNS, host, "nxdomain"])
    )
    cause.chain = [
        board.symptom(),
        f"{f.component}: {short(f.statement, 120)}",
        short(line, 160),
        f"{host} does not resolve",
    ]
    name = f.component.partition("/")[2]
    why = f"a symptom of {cause.id} (its pods cannot resolve {host})"
    for c in list(board.candidates.values()):
        if c is cause or c.layer != layers.APPLICATION:
            continue
        if c.component in (f.component, name):
            c.explained_by(cause, why)
