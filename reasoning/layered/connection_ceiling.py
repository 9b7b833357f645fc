"""A raised replica ceiling whose new replicas fail on the database's connection limit is the cause: each replica's pool times the new ceiling is more than the database admits.

A change raises how far a workload may scale (an autoscaler's `maxReplicas 24 -> 60`, a service's
maximum task count); the load scales it out to the new ceiling, every new replica opens its own
pool of connections, and the database refuses connections past its `max_connections` (`remaining
connection slots are reserved`, `too many connections`, `too many clients already`). The new
replicas crash at start-up or fail readiness: their crash loop is a symptom, the raised ceiling the
cause. The rule needs both: a change line that raises a replica ceiling and names the workload, and
the workload's own new lines (or its pods' logs) refused a connection slot. The hypothesis names the
autoscaler (`horizontalpodautoscaler/<name>`) when a listing shows one for the workload, else the
workload, at the application layer; the workload's own crash hypotheses yield to it.
"""

import re
from dataclasses import dataclass
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Change
from reasoning.layered.reading import short
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Observation

# A database refusing a connection because its connection slots are used up.
NO_SLOTS: Final = re.compile(
    r"remaining connection slots are reserved|too many (?:connections|clients)|"
    r"\bmax_connections\b[^\n]{0,40}\b(?:reached|exceeded|exhausted)|"
    r"connection limit (?:exceeded|reached)|ER_CON_COUNT_ERROR|\bconnection slots\b[^\n]{0,30}\b(?:exhausted|full)",
    re.IGNORECASE,
)
# A change's words for the most replicas (instances, tasks, pods) a workload may scale to.
_CEILING: Final = re.compile(
    r"\bmax[ _-]?replicas\b|\bmax(?:imum)?[ _-]?(?:replicas|pods|instances|tasks|capacity|size|count)\b|"
    r"\breplica (?:ceiling|limit|cap)\b|\bscal(?:ing|e) (?:ceiling|limit)\b",
    re.IGNORECASE,
)
# A number raised: `24 -> 60`, `from 24 to 60`, `24 => 60`.
_RAISED: Final = re.compile(
    r"\b(\d{1,5})\s?(?:->|=>|→|to)\s?(\d{1,5})\b", re.IGNORECASE
)
# An autoscaler's row of a `get` listing (kind-prefixed in a multi-kind one): name, target
# (`Deployment/x`), metrics, then min, max and current replicas.
_HPA_ROW: Final = re.compile(
    r"^(?:horizontalpodautoscaler(?:\.autoscaling)?/)?([a-z0-9][a-z0-9.-]{0,252})\s+"
    r"([A-Z][A-Za-z]{1,60}/\S+)\s+"
    r".{0,200}?\s(\d{1,5})\s+(\d{1,5})\s+(\d{1,5})\s+\S+\s*$"
)
_MAX_LINES: Final = 2000  # of an answer's text, the lines read
_MAX_LINE: Final = 1000
_CONFIDENCE: Final = 0.95


@dataclass(frozen=True)
class _Refusal:
    obs: Observation
    fact: str


def raised_ceiling(change: Change) -> bool:
    """The change line raises a replica ceiling (its new number above the old one)."""
    text = change.message[:_MAX_LINE]
    if not _CEILING.search(text):
        return False
    return any(int(m.group(2)) > int(m.group(1)) for m in _RAISED.finditer(text))


def _refusals(board: Board, workload: str) -> list[_Refusal]:
    """The workload's own new lines, and its pods' logs, where the database refuses a connection slot."""
    found: list[_Refusal] = []
    errors = board.facts.errors.get(workload)
    if errors is not None:
        group = next(
            (
                g
                for g in errors.groups
                if not g.is_stale
                and NO_SLOTS.search((g.sample or g.signature)[:_MAX_LINE])
            ),
            None,
        )
        if group is not None:
            found.append(_Refusal(errors.obs, errors.fact(group)))
    for obs in board.inv.observations:
        if obs.tool != "pod_logs" or not obs.is_ok or not obs.text:
            continue
        pod = str(obs.arguments.get("pod") or "")
        if not pod.startswith(f"{workload}-"):
            continue
        line = next(
            (
                ln
                for ln in obs.text.splitlines()[:_MAX_LINES]
                if len(ln) <= _MAX_LINE and NO_SLOTS.search(ln)
            ),
            None,
        )
        if line is not None:
            found.append(_Refusal(obs, short(f"logs {pod}: {line.strip()}", 300)))
            break
    return found


def _autoscaler(board: Board, workload: str) -> tuple[Observation, str, str] | None:
    """The listed autoscaler of the workload: (answer, its name, its row)."""
    for obs in board.inv.observations:
        if obs.tool != "get_resources" or not obs.is_ok or not obs.text:
            continue
        for line in obs.text.splitlines()[:_MAX_LINES]:
            if len(line) > _MAX_LINE:
                continue
            m = _HPA_ROW.match(line.strip())
            if m is None:
                continue
            target = m.group(2).rsplit("/", 1)[-1]
            if workload in (m.group(1), target):
                return obs, m.group(1), " ".join(line.split())
    return None


def _workloads(board: Board, change: Change) -> list[str]:
    names = {*board.facts.errors, *board.facts.health}
    return sorted(n for n in names if n and names_service(change.message, n))


def connection_ceiling(board: Board) -> None:
    """A change that raised a workload's replica ceiling, while the workload's new replicas are refused connection slots by its database, is the cause at the application layer (the autoscaler when one is listed); the workload's crash loop is its symptom."""
    for change in board.facts.changes:
        if not raised_ceiling(change):
            continue
        for workload in _workloads(board, change):
            refusals = _refusals(board, workload)
            if refusals:
                _blame(board, change, workload, refusals)
                return


def _blame(
    board: Board, change: Change, workload: str, refusals: list[_Refusal]
) -> None:
    scaler = _autoscaler(board, workload)
    component = f"horizontalpodautoscaler/{scaler[1]}" if scaler else workload
    c = board.get(
        layers.APPLICATION,
        component,
        f"{component}'s replica ceiling was raised: {workload}'s new replicas each open a "
        "connection pool and the database refuses connections past its limit",
    )
    c.cite(change.obs, change.fact)
    for refusal in refusals:
        c.cite(refusal.obs, refusal.fact)
    if scaler is not None:
        c.cite(scaler[0], f"get horizontalpodautoscalers: {scaler[2]}")
    c.status = "confirmed"
    c.confidence = max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        f"{change.service} logs: {short(change.message, 160)}",
        *(short(r.fact, 160) for r in refusals),
        c.statement,
    ]
    for word in (workload, "maxReplicas", "max_connections", "connection pool"):
        if word not in c.keywords:
            c.keywords.append(word)
    for other in list(board.candidates.values()):
        if other is c or other.layer not in (layers.APPLICATION, layers.PLATFORM):
            continue
        if other.component.rsplit("/", 1)[-1] == workload:
            other.explained_by(
                c, f"a symptom of {c.id} (its new replicas get no connection slots)"
            )
