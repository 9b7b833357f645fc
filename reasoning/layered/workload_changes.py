"""The change record a blamed workload carries (issue 21 class 6): a hypothesis about a Kubernetes workload cites the change its own object records, with the value it changed from and to.

A Deployment, StatefulSet or DaemonSet keeps why it was last rolled out in its annotations
(`kubernetes.io/change-cause: PR 1502 requests.cpu 500m -> 2`, a GitOps tool's or a person's note),
and that record can be hours older than the incident: a request or limit raised in the morning
only bites at the evening peak, past any window the logs are searched in. When a standing
hypothesis names a workload the cluster lists, and its object has not been described, the planner
describes it (`reads`); an annotation of that describe that carries a value changed from one thing
to another (`500m -> 2`, `from 4 to 16`) is cited on the hypothesis, and the changed setting joins
its words. Annotations without a before and an after (a revision number, a checksum) are not a
change record and are not cited.
"""

import re
from collections.abc import Callable
from typing import Any, Final

from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.cited_lines import leading
from reasoning.layered.facts import FACT_CHARS
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.reading import short
from reasoning.tools import DESCRIBE

_KINDS: Final = ("deployment", "statefulset", "daemonset")
_PLURALS: Final = {k: f"{k}s" for k in _KINDS}
# A value changed from one thing to another: `requests.cpu 500m -> 2`, `replicas from 4 to 16`.
CHANGED: Final = re.compile(
    r"(?P<what>[A-Za-z_][\w.\[\]/-]{0,80})[ :=]+(?P<before>[^\s,;()]{1,40})\s*(?:->|=>|→)\s*"
    r"(?P<after>[^\s,;()]{1,40})|"
    r"(?P<what2>[A-Za-z_][\w.\[\]/-]{0,80}) from (?P<before2>[^\s,;()]{1,40}) to "
    r"(?P<after2>[^\s,;()]{1,40})"
)
_ANNOTATION: Final = re.compile(r"^\s*(?:Annotations:\s+)?[\w.-]+(?:/[\w.-]+)?:\s+\S")
_TEXT_CHARS: Final = 20_000  # a describe's annotations come first
_LINE_CHARS: Final = 1000


def _workload(cluster: Cluster, component: str) -> tuple[str, str, str] | None:
    """(namespace, kind, name) of the workload a component names, when the cluster lists one."""
    name = component.split("/", 1)[-1]
    wanted = component.split("/", 1)[0] if "/" in component else None
    for (plural, ns), table in cluster.tables.items():
        for kind in _KINDS:
            if plural != _PLURALS[kind] or (wanted and wanted != kind):
                continue
            if table.row(name) is not None:
                return ns, kind, name
    return None


def _annotation_lines(text: str) -> list[str]:
    """The lines of a describe's `Annotations:` block."""
    out: list[str] = []
    inside = False
    for line in text[:_TEXT_CHARS].splitlines():
        if line.startswith("Annotations:"):
            inside = True
        elif inside and not line.startswith((" ", "\t")):
            break
        if inside and _ANNOTATION.match(line[:_LINE_CHARS]):
            out.append(
                " ".join(line[:_LINE_CHARS].removeprefix("Annotations:").split())
            )
    return out


def reads(board: Board, call: Callable[[str, dict[str, Any], str], Any]) -> list[Any]:
    """A describe of the workload the leading hypotheses name, when not yet read."""
    if board.cluster is None:
        return []
    cluster = board.cluster.cluster
    out = []
    for c in leading(board)[:2]:
        found = _workload(cluster, c.component)
        if found is None or cluster.describe(found[1], found[0], found[2]) is not None:
            continue
        ns, kind, name = found
        out.append(
            call(
                DESCRIBE,
                {"kind": kind, "name": name, "namespace": ns},
                f"{kind}/{name} is blamed: what its last rollout changed (its change record)",
            )
        )
    return out


def _cite(c: Candidate, cluster: Cluster) -> None:
    found = _workload(cluster, c.component)
    if found is None:
        return
    ns, kind, name = found
    described = cluster.describe(kind, ns, name)
    if described is None:
        return
    for line in _annotation_lines(described.text or ""):
        m = CHANGED.search(line)
        if m is None:
            continue
        what = m.group("what") or m.group("what2") or ""
        c.cite(described, short(f"describe {kind} {name}: {line}", FACT_CHARS))
        c.chain.append(f"{kind}/{name} records a change: {short(line, 160)}")
        if what and what not in c.keywords:
            c.keywords.append(what)


def workload_changes(board: Board) -> None:
    """A standing hypothesis about a Kubernetes workload cites the annotation of that workload's describe that records a value changed from one thing to another."""
    if board.cluster is None:
        return
    for c in board.candidates.values():
        if c.status != "ruled_out":
            _cite(c, board.cluster.cluster)
