"""A namespace stuck Terminating: nothing can be created in it until its deletion finishes.

Rule: a namespace the cluster lists as `Terminating` whose deletion reports a failing condition
(`NamespaceDeletionDiscoveryFailure`, `…GroupVersionParsingFailure`, `…ContentFailure`,
`NamespaceContentRemaining`, `NamespaceFinalizersRemaining` with status True), or that a log line
says is still terminating or refuses new content ("because it is being terminated", "object is
being deleted"), is stuck: the namespace controller keeps its `kubernetes` finalizer, so whatever
deletes and recreates it (an operator, a pipeline) fails and what lives there is gone. The fault is
the namespace (platform, infrastructure), with the condition cited; when the condition names an API
group version that discovery cannot reach (`metrics.k8s.io/v1beta1`), the stale APIService that
serves it (`v1beta1.metrics.k8s.io`) is named in the statement and the fix. It is relevant when a
failing line read (a pod's logs, the logs server's error groups) names the namespace; the workloads
whose lines name it are its victims.
"""

import re
from collections.abc import Callable
from typing import Any

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.logs import FAILING
from reasoning.layered.reading import short
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import DESCRIBE

# The conditions the namespace controller sets while it cannot finish a deletion (status True).
FAILING_CONDITIONS = (
    "NamespaceDeletionDiscoveryFailure",
    "NamespaceDeletionGroupVersionParsingFailure",
    "NamespaceDeletionContentFailure",
    "NamespaceContentRemaining",
    "NamespaceFinalizersRemaining",
)
_CONDITION = re.compile(
    r"^\s*(" + "|".join(FAILING_CONDITIONS) + r")\s+True\b(.*)$", re.MULTILINE
)
# The API server's and the controllers' words for a namespace that is going away and is not gone.
STUCK = re.compile(
    r"being terminated|is being deleted|object is being deleted|still terminating|"
    r"stuck (?:in )?terminating|deletion of namespace \S+ failed",
    re.IGNORECASE,
)
# An API group/version discovery failed for (`metrics.k8s.io/v1beta1`).
_GROUP_VERSION = re.compile(
    # DNS labels (63 at most), a few of them: linear on a long dotted token.
    r"\b((?:[a-z0-9-]{1,63}\.){1,10}[a-z]{2,63})/(v\d+(?:(?:alpha|beta)\d+)?)\b"
)
_MOST_DESCRIBED = 2
_CITED_LINES = 3


def terminating(cluster: Cluster) -> list[str]:
    """The namespaces the cluster lists as Terminating."""
    table = cluster.table("namespaces", "")
    return [
        r["NAME"]
        for r in (table.rows if table else ())
        if r.get("NAME") and r.get("STATUS", "").startswith("Terminating")
    ]


def reads(
    cluster: Cluster, call: Callable[[str, dict[str, Any], str], PlannedCall | None]
) -> list[PlannedCall | None]:
    """Each Terminating namespace described (at most two): which condition holds its deletion."""
    return [
        call(
            DESCRIBE,
            {"kind": "namespace", "name": name, "namespace": "default"},
            f"namespace {name} is Terminating: which condition holds its deletion",
        )
        for name in terminating(cluster)[:_MOST_DESCRIBED]
    ]


def apiservice(text: str) -> str | None:
    """The APIService (`<version>.<group>`) serving the group version a message names, if any."""
    match = _GROUP_VERSION.search(text)
    return f"{match.group(2)}.{match.group(1)}" if match else None


def _lines(
    facts: Facts, cluster: Cluster, name: str
) -> list[tuple[Observation, str, str]]:
    """(span, source, line) of every failing line read that names namespace `name`."""
    word = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    out: list[tuple[Observation, str, str]] = []
    for errors, group in facts.error_texts():
        text = group.sample or group.signature
        if word.search(text):
            out.append((errors.obs, errors.service, text))
    for (_, pod, _, _), obs in cluster.logs.items():
        for line in obs.text.splitlines():
            if word.search(line) and (FAILING.search(line) or STUCK.search(line)):
                out.append((obs, pod, line.strip()))
    return out


def namespace_faults(facts: Facts, cluster: Cluster) -> list[Finding]:
    """A namespace stuck Terminating (a failing deletion condition, or lines saying it cannot finish or refuses new content) is a platform fault, relevant when a failing line names it."""
    found: list[Finding] = []
    for name in terminating(cluster):
        described = cluster.describe("namespaces", "", name)
        condition = _CONDITION.search(described.text) if described else None
        lines = _lines(facts, cluster, name)
        stuck = [line for line in lines if STUCK.search(line[2])]
        if condition is None and not stuck:
            continue  # a deletion in progress, not shown to be stuck
        reason = condition.group(1) if condition else "NamespaceTerminating"
        said = " ".join(condition.group(0).split()) if condition else stuck[0][2]
        served = apiservice(said) or next(
            (a for _, _, text in stuck if (a := apiservice(text))), None
        )
        why = (
            f"; API discovery fails for a group version no server answers (a stale APIService "
            f"{served})"
            if served and "Discovery" in said + reason
            else ""
        )
        f = Finding(
            "infrastructure",
            reason,
            f"namespace/{name}",
            layers.PLATFORM,
            f"namespace {name} is stuck Terminating ({reason}){why}: its deletion cannot finish, "
            "so nothing can be created in it and what ran there is gone",
            name,
        )
        table = cluster.table("namespaces", "")
        if table is not None:
            f.cite(table.obs, f"get namespaces: {table.line(name)}")
        if described is not None and condition is not None:
            f.cite(described, f"describe namespace {name}: {short(said, 260)}")
        ordered = sorted(lines, key=lambda x: not STUCK.search(x[2]))
        for obs, source, text in ordered[:_CITED_LINES]:
            f.cite(obs, f"{source} logs: {short(text, 220)}")
        f.is_relevant = bool(lines)
        f.explains = sorted(
            {
                cluster.owner(obs_ns, "pod", pod)
                for (obs_ns, pod, _, _), obs in cluster.logs.items()
                if any(obs is o for o, _, _ in lines)
            }
        )
        f.chain = [
            *(f"{source}: {short(text, 120)}" for _, source, text in stuck[:1]),
            f.statement,
        ]
        f.keywords = [
            name,
            reason,
            "namespace",
            "Terminating",
            "finalizer",
            *([served, "apiservice"] if served else []),
        ]
        found.append(f)
    return found
