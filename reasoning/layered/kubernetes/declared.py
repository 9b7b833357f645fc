"""Failures the cluster declares itself: a verdict in the object's own status, whatever the incident says.

Rule: a workload whose Deployment reports `ProgressDeadlineExceeded` (its rollout stopped: the new
replica set's pods never became available), whose pods or jobs the API server refuses to create
(`FailedCreate`: a quota used up, an account missing), or whose image pulls the registry refuses for
want of authorization (`401 Unauthorized`, `403 Forbidden`, `pull access denied`, `failed to authorize`),
carries the cluster's own verdict on it: when no other cause in the namespace is on the incident's
path, that finding is relevant (confirmed on its evidence) even though the incident's words do not
lead to it, and the verdict joins its evidence. The verdict on a workload is also the verdict on the
object that refuses it (a quota, a LimitRange, a webhook: the finding that `explains` it).
"""

import re

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.observations import Observation

_DEADLINE = re.compile(
    r"^\s*Progressing\s+False\s+ProgressDeadlineExceeded\b.*$", re.MULTILINE
)
_PULL_REFUSED = re.compile(
    r"\b401 Unauthorized\b|\b403 Forbidden\b|pull access denied|failed to authorize|"
    r"unauthorized: authentication required",
    re.IGNORECASE,
)


def verdict(cluster: Cluster, ns: str, f: Finding) -> tuple[Observation, str] | None:
    """The cluster's own verdict on a workload's finding (the rule above), with the span that shows it."""
    kind, _, name = f.component.partition("/")
    # A workload's verdict is an object's too when that object refuses it (`blockers`).
    own = {f.component, *f.explains}
    if kind == "deployment":
        described = cluster.describe("deployments", ns, name)
        deadline = _DEADLINE.search(described.text) if described is not None else None
        if described is not None and deadline is not None:
            return (
                described,
                f"describe deployment {name}: {' '.join(deadline.group(0).split())}",
            )
        for event in cluster.warnings(ns):
            if event.object == f.component and "ProgressDeadlineExceeded" in (
                event.reason + event.message
            ):
                return event.obs, event.fact
    if f.stage == "admission" and f.reason == "FailedCreate":
        # The API server's own refusal to create what the workload needs (a quota, an account).
        for event in cluster.warnings(ns):
            if (
                event.reason == "FailedCreate"
                and cluster.owner(ns, event.kind, event.name) in own
            ):
                return event.obs, event.fact
    if f.stage == "startup":
        for event in cluster.warnings(ns):
            if (
                _PULL_REFUSED.search(event.message)
                and cluster.owner(ns, event.kind, event.name) in own
            ):
                return event.obs, event.fact
    return None


def declare(cluster: Cluster, ns: str, found: dict[str, Finding]) -> None:
    """With no relevant cause in the namespace, the findings the cluster itself declares failed are relevant."""
    if any(
        f.is_relevant and f.victim_of is None and not f.is_stale for f in found.values()
    ):
        return
    for f in found.values():
        if f.victim_of is not None or f.is_stale:
            continue
        shown = verdict(cluster, ns, f)
        if shown is not None:
            f.is_relevant = True
            f.cite(*shown)
