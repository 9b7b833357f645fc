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

A controller acts on other objects: a cap counts only when its line names what the controller
grows (nodes, a node group or pool, an auto scaling group, replicas, pods, instances). A process
that logs its own limit — a proxy at its connection cap, a mailer throttled at its sending rate,
a client out of retries — refuses work, it decides nothing for others. When the cap line names
the node group, node pool or auto scaling group that is full, that group is the fault (it is
what must be raised) and the controller that refuses to grow it is named as context.
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

# What a controller acts on: nodes and the groups they come in, replicas, pods, instances. A cap
# is a controller's only when its line names one of them; a process refusing connections or
# requests at its own limit ("max connections reached", "maximum sending rate exceeded", "max
# retries exceeded") logs its own cap, not a decision on others.
_GROUPS: Final = r"node ?(?:group|pool)s?|asgs?|auto ?scaling ?groups?"
_ACTED_ON: Final = rf"nodes?|nodeclaims?|{_GROUPS}|replicas?|pods?|instances?|machines?"
_CAPPED: Final = (
    rf"\b(?:{_GROUPS})\b.{{0,60}}\bmax(?:imum)?\b.{{0,40}}\b(?:reached|exceeded)\b|"
    rf"\bmax(?:imum)?\b.{{0,40}}\b(?:{_ACTED_ON})\b.{{0,40}}\b(?:reached|exceeded)\b|"
    r"(?:didn't|did not|not) trigger(?:ed)? scale[- ]?up"
)
# The other decisions: a scale-up refused; nodes disrupted, consolidated, drained; pods evicted; a
# rolling update, a switchover; an object it could not reconcile or sync.
_DECIDED: Final = (
    r"\bscale[- ]?up\b.{0,40}\b(refused|skipped|blocked)\b|\bdisrupting\b|"
    r"\bconsolidat(e|ing|ion)\b.{0,60}\bnodes?\b|\bdrain(ing)? node|\bevict(ing|ed) pods?\b|"
    r"\b(performing rolling update|rolling update of)\b|\bswitch(ing)? ?over\b|"
    r"\b(failed|unable) to (reconcile|sync)\b|\breconcil(e|er|iation) (error|failed)\b"
)
# What the logs server is asked (RE2, case-insensitive, at most 500 characters; a line is one
# line, so `.` never crosses one): the decisions, with a looser cap (a word of what a controller
# acts on near a max reached) that `_CAP` then reads exactly.
SEARCH: Final = (
    r"(node|pod|replica|instance|machine|asg|scaling).{0,80}max.{0,40}(reached|exceeded)|"
    r"max.{0,40}(node|pod|replica|instance|machine).{0,40}(reached|exceeded)|"
    rf"(n't|not) trigger(ed)? scale[- ]?up|{_DECIDED}"
)
SEARCH_LIMIT: Final = 60
_DECISION: Final = re.compile(f"{_CAPPED}|{_DECIDED}", re.IGNORECASE)
# A refusal at a cap: one line is enough (the cap stays reached until someone raises it).
_CAP: Final = re.compile(_CAPPED, re.IGNORECASE)
# The group a cap line names ("node group ng-7 - max size reached", "nodepool/batch"): the capped
# resource, blamed with the controller as context. Words that follow the noun in a sentence
# ("max node group size reached") are not names.
_GROUP_NAME: Final = re.compile(
    rf"\b(?:{_GROUPS})\b[\s:=\"'/]{{0,3}}([A-Za-z0-9][A-Za-z0-9._-]{{0,99}})",
    re.IGNORECASE,
)
_READ_CHARS: Final = 4000  # a multi-megabyte line names no more
_NOT_NAMES: Final = re.compile(
    r"sizes?|max(imum)?|min(imum)?|is|are|has|have|reached|limits?|capacity|the|for|of|in|"
    r"on|at|to|with|and|or|was|were|not|no",
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
        return any(_CAP.search(text[:_READ_CHARS]) for _, text, _ in self.lines)

    def capped_group(self) -> str | None:
        """The node group, node pool or auto scaling group its cap lines name most (None when none
        does): the resource at its cap."""
        counts: dict[str, int] = {}
        for _, text, _ in self.lines:
            if not _CAP.search(text[:_READ_CHARS]):
                continue
            for m in _GROUP_NAME.finditer(text[:_READ_CHARS]):
                name = m.group(1).rstrip(".-")
                if name and not _NOT_NAMES.fullmatch(name):
                    counts[name] = counts.get(name, 0) + 1
        return max(counts, key=lambda n: (counts[n], n)) if counts else None

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
        if (
            not service
            or service in failing
            or not _DECISION.search(message[:_READ_CHARS])
        ):
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


def _cite_pending(c: Candidate, victim: Candidate) -> None:
    """A cap's hypothesis cites what the pending workload's first evidence says it could not
    place: the refusal and the pods it leaves unscheduled are one fault's two sides."""
    for e in victim.evidence[:1]:
        if e not in c.evidence:
            c.evidence.append(e)
            c.sources.add(e.server)


def _naming(lines: list[str], group: str | None) -> str:
    """The last line naming `group`, else the last line."""
    named = [t for t in lines if group and group in t[:_READ_CHARS]]
    return (named or lines)[-1]


def controller_actions(board: Board) -> None:
    """A service other than the failing ones whose lines record a controller's decision on other objects — a cap on nodes, node groups or replicas reached, nodes disrupted, pods evicted, clusters rolled — repeatedly or at a cap, is the platform fault (the node group its cap line names, when it names one), and the failing workloads are its victims."""
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
    group = top.capped_group() if top.capped else None
    kind = "refuses to act at a cap" if top.capped else "keeps acting on workloads"
    if group is not None:
        # The capped resource is the fault; the controller that refuses to grow it is context.
        c = board.get(
            layers.PLATFORM,
            group,
            f"the node group {group} is at its maximum size: the cluster controller "
            f"{top.service} refuses to scale it up ({short(_naming(lines, group), 140)}; "
            f"{len(lines)} such line{'s' if len(lines) != 1 else ''} in the window); the "
            "failing workloads are its victims",
        )
    else:
        c = board.get(
            layers.PLATFORM,
            top.service,
            f"the cluster controller {top.service} {kind}: {short(lines[-1], 140)} "
            f"({len(lines)} such line{'s' if len(lines) != 1 else ''} in the window); the "
            "failing workloads are its victims",
        )
    cited = top.lines[-3:]
    if group is not None:
        naming = [x for x in top.lines if group in x[1][:_READ_CHARS]]
        cited = [*naming[-1:], *(x for x in cited if x not in naming[-1:])]
    for obs, text, level in cited:
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
        f"{top.service}: {short(_naming(lines, group) if group else lines[0], 120)}",
        c.statement,
    ]
    c.keywords = [
        *([group, "node group"] if group else []),
        top.service,
        "controller",
        *(["cap", "scale-up"] if top.capped else ["disruption", "rollout"]),
    ]
    if not sure:
        return
    for victim in _victims(board, c):
        if top.capped and (
            victim.stage == "scheduling" or victim.reason == "FailedScheduling"
        ):
            _cite_pending(c, victim)
        victim.explained_by(c, f"a victim of {top.service}'s decisions")
