"""What a workload's pod spec says about where its pods' traffic goes: its resolvers and pinned hosts.

Read from `kubectl get KIND NAME -o yaml` (a Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or
Pod; a ReplicaSet's or a Pod's spec belongs to its workload): `dnsPolicy`, `dnsConfig.nameservers`
(the resolvers every lookup of the pods goes to; with `dnsPolicy: None` the only ones) and
`hostAliases` (host names pinned to an address in the pods' /etc/hosts: never asked of DNS).
kubectl's YAML is regular (two-space indents, block lists at their key's indent), read line by line.
Pure functions and dataclasses; no I/O.
"""

import re
from dataclasses import dataclass

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.observations import Observation

_SPEC_KINDS = (
    "deployments",
    "statefulsets",
    "daemonsets",
    "replicasets",
    "jobs",
    "cronjobs",
    "pods",
)
_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z][\w-]*):\s*(.*?)\s*$")
_ITEM = re.compile(r"^(\s*)-\s+(.*?)\s*$")


@dataclass(frozen=True)
class HostAlias:
    """One `hostAliases` entry: the address its host names are pinned to."""

    ip: str
    hostnames: tuple[str, ...]


@dataclass(frozen=True)
class PodSpec:
    """The traffic-routing parts of one workload's pod spec, with the answer they were read from."""

    workload: str  # kind/name
    obs: Observation
    dns_policy: str = ""
    nameservers: tuple[str, ...] = ()
    searches: tuple[str, ...] = ()
    host_aliases: tuple[HostAlias, ...] = ()

    def _read(self) -> str:
        kind, _, name = self.workload.partition("/")
        return f"get {kind} {name} -o yaml"

    def resolvers_fact(self, shown: str) -> str:
        """The spec's resolver lines as a cited fact, `shown` the nameservers quoted."""
        policy = self.dns_policy or "(default)"
        return f"{self._read()}: dnsPolicy: {policy}; dnsConfig.nameservers: {shown}"

    def alias_fact(self, hosts: str, ip: str) -> str:
        """One `hostAliases` entry as a cited fact."""
        return f"{self._read()}: hostAliases: {hosts} -> {ip}"


def _scalar(value: str) -> str:
    return value.strip().strip("'\"")


def _flow(value: str) -> list[str]:
    """The items of a flow list (`[a, b]`), or the value itself when it is one scalar."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        return [_scalar(v) for v in value[1:-1].split(",") if _scalar(v)]
    return [_scalar(value)] if _scalar(value) else []


def _block(lines: list[str], start: int) -> list[str]:
    """The lines under the key at `start`: deeper than it, or list items at its indent."""
    match = _KEY.match(lines[start])
    indent = len(match.group(1)) + len(match.group(2) or "") if match else 0
    out: list[str] = []
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if depth > indent or (depth == indent and line.lstrip().startswith("-")):
            out.append(line)
        else:
            break
    return out


def _list_under(lines: list[str], key: str) -> list[str]:
    """The scalar items of the first block list (or flow list) named `key`."""
    for i, line in enumerate(lines):
        match = _KEY.match(line)
        if match is None or match.group(3) != key:
            continue
        if match.group(4):
            return _flow(match.group(4))
        return [
            _scalar(item.group(2))
            for sub in _block(lines, i)
            if (item := _ITEM.match(sub)) and ":" not in item.group(2)
        ]
    return []


def _host_aliases(lines: list[str]) -> tuple[HostAlias, ...]:
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if (m := _KEY.match(line)) and m.group(3) == "hostAliases"
        ),
        None,
    )
    if start is None:
        return ()
    entries: list[list[str]] = []
    block = _block(lines, start)
    top = min((len(s) - len(s.lstrip()) for s in block), default=0)
    for line in block:
        if len(line) - len(line.lstrip()) == top and line.lstrip().startswith("-"):
            entries.append([])
        if entries:
            entries[-1].append(line)
    out: list[HostAlias] = []
    for entry in entries:
        # The entry as its own block: its first item's dash replaced by its indent.
        flat = [entry[0].replace("-", " ", 1), *entry[1:]]
        ip = next(
            (
                _scalar(m.group(4))
                for line in flat
                if (m := _KEY.match(line)) and m.group(3) == "ip"
            ),
            "",
        )
        hostnames = _list_under(flat, "hostnames")
        if ip and hostnames:
            out.append(HostAlias(ip, tuple(h.lower() for h in hostnames)))
    return tuple(out)


def read_spec(workload: str, obs: Observation) -> PodSpec:
    """The pod spec's resolvers and pinned hosts, from a `-o yaml` answer."""
    lines = obs.text.splitlines()
    policy = next(
        (
            _scalar(m.group(4))
            for line in lines
            if (m := _KEY.match(line)) and m.group(3) == "dnsPolicy"
        ),
        "",
    )
    return PodSpec(
        workload,
        obs,
        dns_policy=policy,
        nameservers=tuple(_list_under(lines, "nameservers")),
        searches=tuple(_list_under(lines, "searches")),
        host_aliases=_host_aliases(lines),
    )


def pod_specs(cluster: Cluster, ns: str) -> list[PodSpec]:
    """The pod specs read in `ns` (`-o yaml`), one per workload (the workload's own object first)."""
    found: dict[str, PodSpec] = {}
    for kind in _SPEC_KINDS:
        for (plural, space, name), obs in sorted(cluster.yamls.items()):
            if plural != kind or space != ns:
                continue
            workload = cluster.owner(ns, kind, name)
            if workload not in found:
                found[workload] = read_spec(workload, obs)
    return list(found.values())


def spec_line(spec: PodSpec, *needles: str) -> str:
    """The first line of the spec's YAML holding every needle, stripped ("" when none)."""
    return next(
        (
            line.strip()
            for line in spec.obs.text.splitlines()
            if all(n in line for n in needles)
        ),
        "",
    )
