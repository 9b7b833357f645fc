"""A mesh route to a subset that selects no pod: the DestinationRule's subset, not the callee, is at fault.

A service mesh routes a call to a named subset of the callee (Istio: a VirtualService route to a
DestinationRule subset, which selects pods by labels such as `version=v2`). The sidecar names the
upstream cluster it used in its access log, subset included (`outbound|8080|v2|rates.fx.svc.cluster.local`;
the subset field is empty, `outbound|8080||…`, for a plain route to the Service). When that subset's
labels match no pod (the chart now writes `version=2.0.0`, a canary label was dropped) the cluster has
no endpoint: every sidecar answers 503 with Envoy's flag `UH` (`no_healthy_upstream`), or `NC`
(`cluster_not_found`) when the route names a subset no DestinationRule defines, although the callee's
pods run and serve. The callers and the sidecars are loud, the callee is quiet and healthy; the fault
is the subset's routing (connect layer, the callee's DestinationRule). Confirmed when the mesh's
control plane says the subset's cluster has no endpoint, or the callee is shown serving (its metrics
healthy, its Service with endpoints); a lead otherwise. A failure on a cluster with no subset is the
Service's own (no endpoints: the Kubernetes routing rules'), not this rule's.
"""

import re
from dataclasses import dataclass
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.observations import Observation
from reasoning.tools import SEARCH_LOGS

# An Envoy upstream cluster with a subset: direction|port|subset|host.
SUBSET_CLUSTER: Final = re.compile(
    r"\b(?:outbound|inbound)\|(\d{1,5})\|([A-Za-z0-9][\w.-]{0,62})\|([a-z0-9][a-z0-9.-]{0,252})"
)
# The sidecar found no healthy host in the cluster, or no such cluster.
NO_UPSTREAM: Final = re.compile(
    r"\b(?:UH|NC)\b|(?i:no_healthy_upstream|no healthy upstream|cluster_not_found)"
)
# The control plane's word that a cluster has no endpoint.
NO_ENDPOINTS: Final = re.compile(
    r"\b(?:0|zero|no) (?:healthy )?endpoints?\b", re.IGNORECASE
)
_CONFIRMED: Final = 0.9
_LEAD: Final = 0.6
_LINE_CHARS: Final = 4000  # the head of a line the cluster name is looked for in


@dataclass(frozen=True)
class SubsetFailure:
    """Sidecar lines failing on a subset's cluster: the cluster, its subset, host and the lines."""

    cluster: str
    subset: str
    host: str
    errors: Errors
    group: ErrorGroup

    @property
    def service(self) -> str:
        return self.host.split(".", 1)[0]


def _groups(errors: Errors) -> tuple[ErrorGroup, ...]:
    return (*errors.groups, *errors.warnings)


def subset_failures(board: Board) -> list[SubsetFailure]:
    """The new error or warning groups in which a sidecar finds no healthy upstream in a subset's cluster."""
    found: list[SubsetFailure] = []
    for errors in board.facts.errors.values():
        for group in _groups(errors):
            head = group.text[:_LINE_CHARS]
            if group.is_stale or not NO_UPSTREAM.search(head):
                continue
            match = SUBSET_CLUSTER.search(head)
            if match is None or NO_ENDPOINTS.search(head):
                continue
            found.append(
                SubsetFailure(
                    match.group(0), match.group(2), match.group(3), errors, group
                )
            )
    found.sort(key=lambda f: -f.group.count)
    return found


def _control_plane(
    board: Board, failure: SubsetFailure
) -> tuple[Observation, str, str] | None:
    """(answer, fact, service) of a line saying the subset's cluster has no endpoint."""
    for errors in board.facts.errors.values():
        for group in _groups(errors):
            head = group.text[:_LINE_CHARS]
            if failure.cluster in head and NO_ENDPOINTS.search(head):
                return errors.obs, errors.fact(group), errors.service
    for obs in board.inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")[:_LINE_CHARS]
            if failure.cluster in message and NO_ENDPOINTS.search(message):
                service = str(line.get("service") or "?")
                return obs, short(f"search_logs: {service}: {message}", 300), service
    return None


def _serving(board: Board, service: str) -> tuple[Observation, str] | None:
    """(answer, fact) showing the callee serve: its metrics healthy, or its Service with endpoints."""
    health = board.facts.health.get(service)
    if health is not None and health.verdict == "healthy":
        return health.obs, health.fact
    if board.cluster is not None:
        for (kind, ns), table in sorted(board.cluster.cluster.tables.items()):
            row = table.row(service) if kind == "endpoints" else None
            cell = (row or {}).get("ENDPOINTS", "").strip()
            if cell and cell != "<none>":
                return table.obs, f"get endpoints -n {ns}: {service} {cell}"
    return None


def mesh_subsets(board: Board) -> None:
    """Sidecars answering 503 no healthy upstream (UH, or NC: no such cluster) on a mesh subset's cluster (`outbound|port|subset|host`) while the callee serves are failed by that subset's routing: a connect fault of the callee's DestinationRule, the sidecars and callers its victims."""
    failures = subset_failures(board)
    if not failures:
        return
    first = failures[0]
    component = f"destinationrule/{first.service}"
    c = board.get(
        layers.CONNECT,
        component,
        f"the mesh routes {first.service}'s callers to subset {first.subset} "
        f"({first.cluster}), which has no healthy endpoint: the subset's labels select no "
        f"serving pod of {first.service}, so every sidecar answers 503 no healthy upstream",
    )
    same = [f for f in failures if f.cluster == first.cluster]
    for f in same[:3]:
        c.cite(f.errors.obs, f.errors.fact(f.group))
    chain = [
        board.symptom(),
        f"sidecars: {short(first.group.sample or first.group.signature, 140)}",
    ]
    control = _control_plane(board, first)
    serving = _serving(board, first.service)
    if control is not None:
        c.cite(control[0], control[1])
        chain.append(f"{control[2]}: {short(control[1], 140)}")
    if serving is not None:
        c.cite(serving[0], serving[1])
        chain.append(f"{first.service} itself serves: {short(serving[1], 100)}")
    confirmed = control is not None or serving is not None
    c.status = "confirmed" if confirmed else "likely"
    c.confidence = max(c.confidence, _CONFIRMED if confirmed else _LEAD)
    c.chain = [*chain, c.statement]
    c.keywords = [
        layers.CONNECT,
        "destinationrule",
        "subset",
        first.subset,
        first.service,
        "no_healthy_upstream",
    ]
    if confirmed:
        _victims(board, c, first, [f.errors.service for f in same])


def _victims(
    board: Board, cause: Candidate, failure: SubsetFailure, sidecars: list[str]
) -> None:
    """The sidecars, the control plane quoting the cluster, the callers failing on the callee and
    the callee's own hypotheses are symptoms of the subset's routing."""
    why = f"a symptom of {cause.id} (subset {failure.subset} has no endpoint)"
    voices = set(sidecars)
    for errors in board.facts.errors.values():
        for group in _groups(errors):
            head = group.text[:_LINE_CHARS].lower()
            if failure.cluster in head or (
                failure.service in head and "no healthy upstream" in head
            ):
                voices.add(errors.service)
    for c in list(board.candidates.values()):
        if c is cause or c.status == "ruled_out":
            continue
        if c.component in (failure.host, failure.service) or (
            c.layer == layers.APPLICATION and c.component in voices
        ):
            c.explained_by(cause, why)
