"""Work that waits on a faulty workload: a queue's consumer or worker named by the incident's service.

Rule: a faulty workload that the incident's service's own log lines (its error and warning groups,
and the lines a search found, any level) name, in a line saying work waits for it (a queue or
backlog growing, no consumer), is on the incident's path one hop down: the service's work
reaches it through the queue, so its fault explains the service's symptom. A line names the
workload by its name as a word, or by the queue it works (`transcode queue` for transcoder,
`index queue` for indexer: the workload's name less an agent suffix); when that workload is
itself the victim of another fault (its node), that cause is on the path one hop further. Lines
that name it without saying work waits (a startup banner, a config dump) do not link it.
"""

import re

from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.reading import short
from reasoning.observations import Investigation, Observation

# What a line says when work waits for a consumer or worker that does not take it.
WAITING = re.compile(
    r"\bqueue\b|\bbacklog\b|\bconsumer lag\b|\b0 consumers\b|\bno consumers?\b|"
    r"waiting for (?:a |an )?(?:worker|consumer)",
    re.IGNORECASE,
)
_WORKLOAD_KINDS = ("deployment", "statefulset", "daemonset", "replicaset")
_QUEUE_NAME = re.compile(r"(?<![\w.-])([a-z][a-z0-9-]*?)[ _-]queue\b", re.IGNORECASE)
# The suffixes that name the one who does a queue's work (transcode → transcoder).
_AGENT_SUFFIXES = ("r", "er", "or", "-worker", "-consumer")


def names_workload(line: str, name: str) -> bool:
    """True when the line says the workload's name as a word, or names the queue it works."""
    if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", line, re.IGNORECASE):
        return True
    return any(
        name.lower() in {f"{q.lower()}{s}" for s in _AGENT_SUFFIXES}
        for q in _QUEUE_NAME.findall(line)
    )


def _lines(inv: Investigation, facts: Facts) -> list[tuple[Observation, str]]:
    """The incident's service's own lines: its error and warning groups, then searched lines."""
    service = inv.incident.service
    out: list[tuple[Observation, str]] = []
    errors = facts.errors.get(service)
    if errors is not None:
        for group in (*errors.groups, *errors.warnings):
            out.append((errors.obs, group.sample or group.signature))
    for obs, text in facts.searched.get(service, []):
        out += [(obs, line) for line in text.splitlines() if line.strip()]
    return out


def waited_on(inv: Investigation, facts: Facts, found: list[Finding]) -> None:
    """A faulty workload the incident's service's lines say its work waits on (a queue, a backlog, no consumer) is on its path one hop down."""
    lines = [(o, t) for o, t in _lines(inv, facts) if WAITING.search(t)]
    if not lines:
        return
    service = inv.incident.service.lower()
    by_component = {f.component: f for f in found}
    for f in found:
        kind, _, name = f.component.partition("/")
        cause = by_component.get(f.victim_of or "")
        if (
            (f.is_relevant and cause is None)
            or (cause is not None and cause.is_relevant)
            or kind not in _WORKLOAD_KINDS
            or name == service
        ):
            continue
        hit = next(((o, t) for o, t in lines if names_workload(t, name)), None)
        if hit is None:
            continue
        obs, line = hit
        fact = f"{inv.incident.service} logs: {short(line.strip(), 200)}"
        if cause is not None:
            cause.is_relevant = True
            cause.depth = max(cause.depth, 2)
            cause.cite(obs, fact)
            cause.chain.insert(
                0,
                f"{inv.incident.service}'s work waits on {name}, a victim of "
                f"{cause.component}: {short(line.strip(), 100)}",
            )
            continue
        f.is_relevant = True
        f.depth = max(f.depth, 1)
        f.cite(obs, fact)
        f.chain.insert(
            0,
            f"{inv.incident.service}'s work waits on {name}: {short(line.strip(), 100)}",
        )
