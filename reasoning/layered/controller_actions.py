"""A cluster controller that refuses to act, or keeps acting on others' workloads, is the fault; the workloads that fail are its victims (issue 21, classes 1 and 4).

Autoscalers, node provisioners, database and mesh operators, secret syncers and the like run in
their own namespaces and log what they decide: a scale-up refused because a cap is reached, nodes
disrupted or consolidated, pods evicted, a rolling update or switchover of every cluster they own,
an object they cannot reconcile. The workloads downstream of that decision fail loudly (pending
pods, restarts, refused connections) while the controller's lines are quiet, often at info level,
in a service nobody named. The planner searches every service's lines in the window for such
decisions (`SEARCH`); a service other than the failing ones that logs them repeatedly, or logs a
cap reached, is a platform fault named by that service, and the Kubernetes workloads and services
that fail in the window are explained by it. Its own lines are the evidence.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.reading import every_service_lines, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import GET_RESOURCES, SEARCH_LOGS

# A controller's decision, as its lines say it (RE2 for the logs server; case-insensitive there):
# a cap reached, a scale-up not triggered; nodes disrupted, consolidated, drained; pods evicted;
# a rolling update, a switchover; an object it could not reconcile or sync.
SEARCH: Final = (
    r"\bmax(imum)?\b[^\n]{0,40}\b(reached|exceeded)\b|"
    r"(didn't|did not|not) trigger(ed)? scale[- ]?up|\bscale[- ]?up\b[^\n]{0,40}\b(refused|skipped|blocked)\b|"
    r"\bdisrupting\b|\bconsolidat(e|ing|ion)\b[^\n]{0,60}\bnodes?\b|\bdrain(ing)? node|"
    r"\bevict(ing|ed) pods?\b|\bperforming rolling update\b|\brolling update of\b|"
    r"\bswitch(ing)? ?over\b|\b(failed|unable) to (reconcile|sync)\b|\breconcil(e|er|iation) (error|failed)\b"
)
SEARCH_LIMIT: Final = 60
_DECISION: Final = re.compile(SEARCH, re.IGNORECASE)
# A refusal at a cap: one line is enough (the cap stays reached until someone raises it).
_CAP: Final = re.compile(
    r"\bmax(imum)?\b[^\n]{0,40}\b(reached|exceeded)\b|(didn't|did not|not) trigger(ed)? scale[- ]?up",
    re.IGNORECASE,
)
# A decision taken again and again: repeated lines of the same class.
_REPEATED: Final = 2
_CONFIRMED: Final = 0.9
_LEAD: Final = 0.6
# What a victim is: a fault of a workload or of a service's own errors (not nodes, namespaces,
# configuration objects, which other rules blame on their own evidence).
_VICTIM_LAYERS: Final = (layers.APPLICATION, layers.PLATFORM)
_NOT_VICTIMS: Final = re.compile(
    r"^(node|namespace|configmap|secret|networkpolicy|resourcequota|limitrange|"
    r"persistentvolume|storageclass|ingress|service)/",
    re.IGNORECASE,
)


@dataclass
class _Controller:
    """One service's decision lines in the window, each with the answer it came in and its level."""

    service: str
    lines: list[tuple[Observation, str, str]] = field(default_factory=list)

    @property
    def capped(self) -> bool:
        return any(_CAP.search(text) for _, text, _ in self.lines)

    @property
    def decides(self) -> bool:
        """Refused at a cap, or repeats a decision (a controller's loop)."""
        return self.capped or len(self.lines) >= _REPEATED


def is_kubernetes(inv: Investigation) -> bool:
    """Whether the investigation read the cluster: controllers only matter there."""
    return any(o.tool == GET_RESOURCES and o.is_ok for o in inv.observations)


def searches(
    inv: Investigation,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Once the cluster was read: every service's lines in the window that record a controller's
    decision (a cap reached, nodes disrupted, pods evicted, a rolling update, an object not
    reconciled), asked once."""
    if not is_kubernetes(inv) or not window.get("start") or not window.get("end"):
        return []
    if any(
        o.tool == SEARCH_LOGS and o.arguments.get("query") == SEARCH
        for o in inv.observations
    ):
        return []
    arguments = {
        "query": SEARCH,
        "regex": True,
        "start": window["start"],
        "end": window["end"],
        "limit": SEARCH_LIMIT,
    }
    why = (
        "the cluster's workloads fail: which controller refused to act or acted on them"
    )
    return [call(SEARCH_LOGS, arguments, why)]


def _controllers(inv: Investigation, failing: set[str]) -> list[_Controller]:
    """The services whose searched lines record decisions, the failing services left out."""
    found: dict[str, _Controller] = {}
    for obs, line in every_service_lines(inv, SEARCH):
        service = str(line.get("service") or "")
        message = str(line.get("message") or line.get("line") or "")
        if not service or service in failing or not _DECISION.search(message):
            continue
        c = found.setdefault(service, _Controller(service))
        c.lines.append((obs, message, str(line.get("level") or "")))
    return [c for c in found.values() if c.decides]


def _failing(board: Board) -> set[str]:
    """The services that log errors of their own: victims, not controllers of others."""
    return {
        service
        for service, errors in board.facts.errors.items()
        if errors.groups and service != ""
    }


def _victims(board: Board, mine: Candidate) -> list[Candidate]:
    """The workload and service candidates a controller's decision explains."""
    return [
        c
        for c in board.candidates.values()
        if c is not mine
        and c.layer in _VICTIM_LAYERS
        and c.status != "ruled_out"
        and not _NOT_VICTIMS.match(c.component)
    ]


def controller_actions(board: Board) -> None:
    """A service other than the failing ones whose lines record a controller's decision on the cluster — a cap reached, nodes disrupted, pods evicted, clusters rolled — repeatedly or at a cap, is the platform fault, and the failing workloads are its victims."""
    # A database or broker at its own cap is a dependency the errors name, not a controller.
    controllers = [
        c
        for c in _controllers(board.inv, _failing(board))
        if not board.is_dependency(c.service)
    ]
    if not controllers:
        return
    # The controller that decided most (a cap first: it blocks every scale-up).
    controllers.sort(key=lambda c: (not c.capped, -len(c.lines), c.service))
    # Something fails besides the controller: a workload's or a service's own fault.
    victims_seen = any(
        c.layer in _VICTIM_LAYERS
        and c.status != "ruled_out"
        and not _NOT_VICTIMS.match(c.component)
        for c in board.candidates.values()
    )
    top = controllers[0]
    lines = [text for _, text, _ in top.lines]
    kind = "refuses to act at a cap" if top.capped else "keeps acting on workloads"
    c = board.get(
        layers.PLATFORM,
        top.service,
        f"the cluster controller {top.service} {kind}: {short(lines[-1], 140)} "
        f"({len(lines)} such line{'s' if len(lines) != 1 else ''} in the window); the "
        "failing workloads are its victims",
    )
    for obs, text, level in top.lines[-3:]:
        c.cite(
            obs,
            short(f"search_logs: {top.service} ({level or 'line'}): {text}", 300),
        )
    sure = victims_seen
    c.status = "confirmed" if sure else "likely"
    c.confidence = max(c.confidence, _CONFIRMED if sure else _LEAD)
    c.stage = "scheduling" if top.capped else "runtime"
    c.chain = [
        board.symptom(),
        f"{top.service}: {short(lines[0], 120)}",
        c.statement,
    ]
    c.keywords = [
        top.service,
        "controller",
        *(["cap", "scale-up"] if top.capped else ["disruption", "rollout"]),
    ]
    if not sure:
        return
    for victim in _victims(board, c):
        victim.explained_by(c, f"a victim of {top.service}'s decisions")
