"""A new NetworkPolicy that restricts the egress of a service's pods and admits no port 53 is the cause of that service's failed name lookups, not the names it looks up.

A service's own log lines (from the logs server, no pod's logs needed) show lookups failing
(`getaddrinfo EAI_AGAIN api.vendor.example`, `lookup x on 10.96.0.10:53: i/o timeout`); the
namespace's policy listing holds, among the policies selecting the service's pods, one applied
recently (its AGE within `_RECENT_S`) that restricts egress. When every described egress policy
selecting those pods admits no port 53, cluster DNS is unreachable for them alone: the policy is
the cause at the DNS layer (the one that isolates egress outright when there is one, else the
youngest), and the external names that fail and the service itself are its victims. `reads` asks
the describes of the young policies that select the pods (youngest first) once the lookups are
seen; `policy_lookups` concludes. The pod-log path of the same class is
`kubernetes.policies.dns_policy_faults`.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.kubectl import age_seconds, parse_labels, selects
from reasoning.layered.kubernetes.policies import blocks_dns
from reasoning.layered.kubernetes.system import LOOKUP_FAILED
from reasoning.layered.reading import hosts_in, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import DESCRIBE

_RECENT_S: Final = (
    6 * 3600
)  # a policy applied within this is a change of the incident's time
_MAX_DESCRIBES: Final = 1
_TEXT_CHARS: Final = 2000
_SELECTS_ALL: Final = ("<none>", "")
_ISOLATES: Final = re.compile(r"isolated for egress", re.IGNORECASE)
_CONFIDENCE: Final = 0.92


@dataclass(frozen=True)
class _Selected:
    namespace: str
    service: str
    errors: Errors
    group: ErrorGroup
    policies: tuple[tuple[str, float | None], ...]  # (name, age in s) youngest first


def _lookups(facts: Facts) -> list[tuple[Errors, ErrorGroup]]:
    """Each service's first new error line saying a name lookup failed."""
    out: list[tuple[Errors, ErrorGroup]] = []
    for errors in facts.errors.values():
        group = next(
            (
                g
                for g in errors.groups
                if not g.is_stale
                and LOOKUP_FAILED.search((g.sample or g.signature)[:_TEXT_CHARS])
            ),
            None,
        )
        if group is not None and errors.service:
            out.append((errors, group))
    return out


def _labels(cluster: Cluster, ns: str, service: str) -> list[dict[str, str]]:
    """The labels of the service's pods: the workloads its Service selects, else pods named after it."""
    pods = [
        p
        for w in cluster.service_workloads(ns, service)
        for p in cluster.pods_of(ns, w)
    ] or [p for p in cluster.pods(ns) if p.name.startswith(f"{service}-")]
    return [p.labels for p in pods if p.labels is not None]


def _selected(cluster: Cluster, facts: Facts) -> list[_Selected]:
    out: list[_Selected] = []
    lookups = _lookups(facts)
    if not lookups:
        return out
    for (kind, ns), table in sorted(cluster.tables.items()):
        if kind != "networkpolicies":
            continue
        for errors, group in lookups:
            labels = _labels(cluster, ns, errors.service)
            if not labels:
                continue
            chosen: list[tuple[str, float | None, bool]] = []
            for row in table.rows:
                selector = row.get("POD-SELECTOR", "")
                every = selector.split(" ")[0] in _SELECTS_ALL
                if row.get("NAME") and (
                    every or any(selects(parse_labels(selector), own) for own in labels)
                ):
                    chosen.append((row["NAME"], age_seconds(row.get("AGE", "")), every))
            # Youngest first; of the same age, one selecting every pod (a namespace's default deny).
            chosen.sort(
                key=lambda r: (r[1] if r[1] is not None else float("inf"), not r[2])
            )
            if any(age is not None and age <= _RECENT_S for _, age, _ in chosen):
                out.append(
                    _Selected(
                        ns,
                        errors.service,
                        errors,
                        group,
                        tuple((name, age) for name, age, _ in chosen),
                    )
                )
    return out


def reads(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
) -> list[PlannedCall | None]:
    """A service's lookups fail while young policies select its pods: their describes, youngest first."""
    cluster = Cluster.read(inv.observations)
    calls: list[PlannedCall | None] = []
    for s in _selected(cluster, facts):
        young = [n for n, age in s.policies if age is not None and age <= _RECENT_S]
        calls += [
            call(
                DESCRIBE,
                {"kind": "networkpolicy", "name": name, "namespace": s.namespace},
                f"{s.service}'s name lookups fail and policy {name}, applied recently, selects "
                "its pods: does it let DNS (port 53) out",
            )
            for name in young[:_MAX_DESCRIBES]
        ]
    return calls


def policy_lookups(board: Board) -> None:
    """A NetworkPolicy applied recently that restricts the egress of a service's pods, where no described egress policy selecting them admits port 53, is the cause at the DNS layer of the service's failed name lookups; the names and the service are its victims."""
    cluster = (
        board.cluster.cluster
        if board.cluster is not None
        else Cluster.read(board.inv.observations)
    )
    for s in _selected(cluster, board.facts):
        described = [
            (name, age, obs)
            for name, age in s.policies
            if (obs := cluster.describe("networkpolicies", s.namespace, name))
            is not None
        ]
        egress = [d for d in described if "Egress" in _policy_types(d[2].text)]
        if not egress or not all(blocks_dns(d[2].text) for d in egress):
            continue
        young = [d for d in egress if d[1] is not None and d[1] <= _RECENT_S]
        if not young:
            continue
        culprit = next((d for d in young if _isolates(d[2].text)), young[0])
        _blame(board, cluster, s, culprit)
        return


def _policy_types(text: str) -> str:
    match = re.search(r"^\s*Policy Types:[ \t]*(.*)$", text, re.MULTILINE)
    return match.group(1) if match else ""


def _isolates(text: str) -> bool:
    section = text.partition("Allowing egress traffic:")[2].partition("Policy Types")[0]
    return _ISOLATES.search(section) is not None


def _blame(
    board: Board,
    cluster: Cluster,
    s: _Selected,
    culprit: tuple[str, float | None, Observation],
) -> None:
    name, _, obs = culprit
    line = (s.group.sample or s.group.signature)[:_TEXT_CHARS]
    c = board.get(
        layers.DNS,
        f"networkpolicy/{name}",
        f"network policy {name} (applied recently in {s.namespace}) restricts the egress of "
        f"{s.service}'s pods and no egress policy selecting them admits DNS (port 53): its "
        "name lookups fail",
    )
    c.cite(
        obs,
        f"describe networkpolicy {name}: Policy Types Egress; no egress rule to port 53",
    )
    table = cluster.table("networkpolicies", s.namespace)
    if table is not None and table.row(name) is not None:
        c.cite(table.obs, f"get networkpolicies: {table.line(name)}")
    c.cite(s.errors.obs, s.errors.fact(s.group))
    c.status = "confirmed"
    c.confidence = max(c.confidence, _CONFIDENCE)
    c.chain = [
        f"{s.service} cannot resolve names: {short(line, 120)}",
        c.statement,
    ]
    for word in ("networkpolicy", "egress", name, "dns", "port 53"):
        if word not in c.keywords:
            c.keywords.append(word)
    names = set(hosts_in(line))
    for other in list(board.candidates.values()):
        if other is c:
            continue
        if (other.layer == layers.DNS and other.component in names) or (
            other.layer == layers.APPLICATION and other.component == s.service
        ):
            other.explained_by(
                c, f"a symptom of {c.id} (its pods' DNS lookups are blocked)"
            )
