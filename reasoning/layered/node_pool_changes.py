"""A node group changed under its workloads (issue 21 class 4): when a workload newly fails to get what the node hands its pods, the node group's change just before is the platform's fault.

A pod without an identity of its own takes its cloud credentials from the node it runs on, through
the instance metadata service (IMDS, `169.254.169.254`, the metadata server). What a pod can reach
there is the node's setting, not the workload's: a launch template's metadata options (a hop limit
of 1 that a pod's extra network hop cannot pass), a new node image, a node role. When a workload's
new lines say it cannot get credentials from instance metadata (`no EC2 IMDS role found`,
`ec2imds: GetMetadata … deadline exceeded`, `failed to retrieve credentials from the metadata
service`), the planner searches every service's lines of the hours before for changes of a node
group or node pool (a cloud audit trail's `UpdateNodegroupVersion nodegroup=…`, a node pool
upgrade), and a change naming its group in the `LEAD` before the first failure is the fault at
the platform layer, named by the group the change names; the workload is its victim. Nothing is
concluded without such a change: a workload that never had credentials keeps its own fault.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import every_service_lines, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# A pod's credentials from the node's instance metadata could not be had.
METADATA_CREDENTIALS: Final = re.compile(
    r"\bIMDS\b|\bec2imds\b|169\.254\.169\.254|metadata\.google\.internal|"
    r"instance metadata|metadata (?:service|server|endpoint)\b[^\n]{0,80}"
    r"(?:credential|token|role|timed? ?out|refused|unreachable)|"
    r"no EC2 [A-Za-z ]{0,20}role found|instance profile[^\n]{0,60}(?:not found|missing|unavailable)",
    re.IGNORECASE,
)
# The every-service search for node group changes (RE2).
QUERY: Final = (
    r"(?i)(node ?group|node ?pool|launch ?template|nodeclass|node ?image)[^\n]{0,200}"
    r"(updat|upgrad|version|replac|roll|chang|creat|migrat)"
    r"|(updat|upgrad|replac|roll|chang|migrat)[^\n]{0,200}(node ?group|node ?pool|launch ?template)"
)
_CHANGE: Final = re.compile(QUERY.removeprefix("(?i)"), re.IGNORECASE)
# The group a change line names: `nodegroup=ng-x`, `node pool pool-y`, `nodepool: z`.
_GROUP: Final = re.compile(
    r"\b(?:node ?group|node ?pool|agent ?pool)s?\b[\s=:]+[\"'`]?"
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]{0,80}[A-Za-z0-9])",
    re.IGNORECASE,
)
LOOKBACK: Final = timedelta(
    hours=5, minutes=59
)  # within the logs server's 6 h range limit
LEAD: Final = timedelta(hours=2)  # a change this long before the first failure counts
SEARCH_LIMIT: Final = 20
_LINE_CHARS: Final = 4000
_CONFIDENCE: Final = 0.9  # the victim's own words and the group's change agree


@dataclass(frozen=True)
class _Change:
    obs: Observation
    group: str
    line: str
    at: datetime


def _victims(facts: Facts) -> list[tuple[Errors, ErrorGroup]]:
    out = []
    for errors in facts.errors.values():
        groups = [
            g
            for g in (*errors.groups, *errors.warnings)
            if g.is_new
            and METADATA_CREDENTIALS.search((g.sample or g.signature)[:_LINE_CHARS])
        ]
        if groups:
            out.append((errors, max(groups, key=lambda g: g.count)))
    return out


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
) -> list[Any]:
    """Every service's node group changes over the hours before, when a workload cannot get its credentials from the node."""
    end = parse_time(window.get("end", ""))
    if end is None or not _victims(facts):
        return []
    start = (end - LOOKBACK).isoformat(timespec="seconds").replace("+00:00", "Z")
    return [
        call(
            SEARCH_LOGS,
            {
                "query": QUERY,
                "regex": True,
                "start": start,
                "end": window["end"],
                "limit": SEARCH_LIMIT,
            },
            "a workload cannot get credentials from its node: which node group changed",
        )
    ]


def _changes(inv: Investigation) -> list[_Change]:
    out: list[_Change] = []
    for obs, line in every_service_lines(inv, QUERY):
        message = str(line.get("message") or "")[:_LINE_CHARS]
        level = str(line.get("level") or "").lower()
        at = parse_time(str(line.get("time") or ""))
        group = _GROUP.search(message)
        if (
            at is None
            or group is None
            or level in ("error", "fatal", "critical")
            or not _CHANGE.search(message)
        ):
            continue
        out.append(_Change(obs, group.group("name"), " ".join(message.split()), at))
    return sorted(out, key=lambda c: c.at)


def node_pool_changes(board: Board) -> None:
    """A workload that newly cannot get its credentials from the node's instance metadata, after a node group's change just before, is a victim of that node group's platform fault."""
    victims = _victims(board.facts)
    if not victims:
        return
    changes = _changes(board.inv)
    for errors, group in victims:
        first = parse_time(group.first_seen)
        if first is None:
            continue
        before = [c for c in changes if first - LEAD <= c.at <= first]
        if not before:
            continue
        change = before[-1]
        said = short(group.sample or group.signature, 120)
        c = board.get(
            layers.PLATFORM,
            change.group,
            f"node group {change.group} changed just before {errors.service} began failing "
            f"to get its credentials from the node's instance metadata ({said}): pods on its "
            "new nodes cannot reach what the old ones gave them",
        )
        c.cite(errors.obs, errors.fact(group))
        # The group's changes of the lead, first the one that set something (at most three).
        for same in [x for x in before if x.group == change.group][:3]:
            c.cite(same.obs, short(f"search_logs: {same.line}", FACT_CHARS))
        if c.confidence < _CONFIDENCE:
            c.status, c.confidence = "confirmed", _CONFIDENCE
        c.chain = [
            board.symptom(),
            f"change: {short(change.line, 160)}",
            f"{errors.service} logs (new): {said}",
            c.statement,
        ]
        c.keywords = [change.group, "node group", "instance metadata", errors.service]
        for other in board.candidates.values():
            if other is c or other.layer != layers.APPLICATION:
                continue
            if other.component == errors.service or other.component.endswith(
                f"/{errors.service}"
            ):
                other.explained_by(
                    c, f"its pods lost the node's credentials after {c.id} changed"
                )
