"""Hypotheses being built and the board that holds them: the incident they answer, its symptom, its dependencies.

The rule modules (`application`, `network`, `gateway`) and `analysis` write on one `Board`.
"""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reasoning.layered import remedies
from reasoning.layered.facts import Facts
from reasoning.layered.reading import (
    GENERIC_LABELS,
    NOT_SERVICES,
    SERVICE_NAME,
    belongs,
    host_of,
    hosts_in,
    incident_text,
    short,
    upstreams,
    url_services,
)
from reasoning.observations import Investigation, Observation
from reasoning.report import EXCLUDED_REASON, Evidence, Hypothesis, Report, Status

if TYPE_CHECKING:
    from reasoning.layered.kubernetes import Diagnosis

_STATUSES: dict[str, Status] = {
    "confirmed": "confirmed",
    "likely": "likely",
    "ruled_out": "ruled_out",
}


@dataclass
class Candidate:
    """A hypothesis being built: its evidence, which servers agree, words for the runbook search."""

    layer: str
    component: str
    statement: str
    confidence: float = 0.0
    status: str = "likely"
    evidence: list[Evidence] = field(default_factory=list)
    sources: set[str] = field(default_factory=set)  # servers whose answers support it
    chain: list[str] = field(default_factory=list)
    reason_ruled_out: str | None = None
    keywords: list[str] = field(default_factory=list)
    stage: str | None = None  # Kubernetes: the lifecycle stage and Kubernetes' reason
    reason: str | None = None

    def cite(self, obs: Observation, fact: str, *, is_support: bool = True) -> None:
        if any(e.span_id == obs.span_id and e.fact == fact for e in self.evidence):
            return
        self.evidence.append(Evidence(obs.span_id, obs.server, obs.tool, fact))
        if is_support:
            self.sources.add(obs.server)

    @property
    def id(self) -> str:
        return f"{self.layer}:{self.component}"

    def explained_by(self, cause: "Candidate", why: str) -> None:
        """This candidate fails because of `cause`: a lead below it (likely, at most 0.4), saying `why` once."""
        if self is cause or self.status == "ruled_out":
            return
        self.status, self.confidence = "likely", min(self.confidence, 0.4)
        if cause.id not in self.statement:
            self.statement += f"; {why}"

    def hypothesis(self) -> Hypothesis:
        status = _STATUSES.get(self.status, "likely")
        return Hypothesis(
            layer=self.layer,
            component=self.component,
            statement=self.statement,
            confidence=round(min(max(self.confidence, 0.0), 1.0), 2),
            status=status,
            evidence=list(self.evidence),
            causal_chain=list(self.chain),
            reason_ruled_out=self.reason_ruled_out,
            stage=self.stage,
            reason=self.reason,
        )


def spans(c: Candidate) -> int:
    """How many spans a candidate cites."""
    return len({e.span_id for e in c.evidence})


class Board:
    """The candidates for one investigation, keyed by layer and component, and what stays open."""

    def __init__(self, investigation: Investigation, facts: Facts) -> None:
        self.inv = investigation
        self.facts = facts
        self.service = investigation.incident.service
        self.words = incident_text(investigation).lower()
        self.candidates: dict[str, Candidate] = {}
        self.open_questions: list[str] = []
        self.leaks: set[str] = set()  # services whose metrics show a connection leak
        # The Kubernetes agent's diagnosis (its cluster, paths and findings), when it read any.
        self.cluster: Diagnosis | None = None

    def get(self, layer: str, component: str, statement: str) -> Candidate:
        """The candidate for (layer, component), made with `statement` the first time."""
        key = f"{layer}:{component}"
        if key not in self.candidates:
            self.candidates[key] = Candidate(layer, component, statement)
        return self.candidates[key]

    def symptom(self) -> str:
        """The head of a causal chain: the service's first error, else its health, else the incident's words."""
        errors = self.facts.errors.get(self.service)
        if errors is not None and errors.groups:
            group = errors.groups[0]
            return f"{self.service}: {short(group.sample or group.signature, 120)}"
        health = self.facts.health.get(self.service)
        if health is not None and health.verdict in ("degraded", "unhealthy"):
            return f"{self.service}: {short(health.summary, 120)}"
        symptoms = self.inv.incident.symptoms
        return (
            short(symptoms[0], 120) if symptoms else short(self.inv.incident.title, 120)
        )

    def named_hosts(self) -> list[str]:
        """Host names the error lines name, in order of first mention."""
        hosts: list[str] = []
        for _, group in self.facts.error_texts():
            hosts += [h for h in hosts_in(group.text) if h not in hosts]
        return hosts

    def is_dependency(self, host: str) -> bool:
        """A host the incident's words or errors name, or one of its dependencies' hosts."""
        if host in self.words or host in self.named_hosts():
            return True
        return any(belongs(host, s) for s in dependency_services(self.inv, self.facts))

    def ranked(self) -> list[Hypothesis]:
        """The hypotheses, ranked, each with its decisive evidence and, once confirmed, its fix."""
        hypotheses = []
        for c in self.candidates.values():
            h = c.hypothesis()
            h.decisive = remedies.decisive(h, leaks=self.leaks)
            h.remediation = remedies.remediation(
                h, keywords=c.keywords, leaks=self.leaks
            )
            hypotheses.append(h)
        return Report(hypotheses=hypotheses).ranked()


def dependency_services(inv: Investigation, facts: Facts) -> list[str]:
    """Services the incident depends on, in the order they came up: symptoms and notes, then logs
    (upstreams and bare URL hosts its errors name; rule 2)."""
    service = inv.incident.service.lower()
    found: list[str] = []

    def add(name: str) -> None:
        name = name.lower()
        if name != service and name not in found and name not in NOT_SERVICES:
            found.append(name)

    words: list[str] = []
    # A steering note names services as a symptom does (it may turn the next round to them).
    for symptom in (*inv.incident.symptoms, *inv.incident.notes):
        for raw in symptom.split():
            word = raw.strip("'\"()[]{},;:!?`")
            if word and "/" not in word and "." not in word and "=" not in word:
                words.append(word)
    for word in words:
        if SERVICE_NAME.match(word):
            add(word)
    lowered = {w.lower() for w in words}
    for url in facts.targets:
        label = (host_of(url) or "").split(".")[0]
        if label and label not in GENERIC_LABELS and label in lowered:
            add(label)
    for name in [service, *found]:
        errors = facts.errors.get(name)
        if errors is None:
            continue
        for group in errors.groups:
            for upstream in upstreams(group.text):
                if "." not in upstream:
                    add(upstream)
            for callee in url_services(group.text):
                add(callee)
    return found


def excluded(board: Board) -> None:
    """A hypothesis a person marked wrong is ruled out, whatever its evidence (issue 20 item 9)."""
    for c in board.candidates.values():
        if c.id in board.inv.excluded:
            c.status = "ruled_out"
            c.reason_ruled_out = EXCLUDED_REASON
