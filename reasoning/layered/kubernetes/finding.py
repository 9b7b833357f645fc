"""What the Kubernetes agent concludes: one `Finding` per faulty object, at one lifecycle stage."""

from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.facts import FACT_CHARS
from reasoning.layered.reading import short
from reasoning.observations import Observation

# Stage → layer. service_routing's layer depends on the finding: connect for traffic sent to the
# wrong place or dropped on the way (services, ingresses, network policies), dns for a name that
# does not resolve.
STAGE_LAYERS = {
    "admission": layers.PLATFORM,
    "scheduling": layers.PLATFORM,
    "startup": layers.PLATFORM,
    "runtime": layers.APPLICATION,
    "performance": layers.APPLICATION,
    "infrastructure": layers.PLATFORM,
}


@dataclass
class Finding:
    """One object's fault at one lifecycle stage, with the spans that show it."""

    stage: str
    reason: str
    component: str  # kind/name
    layer: str
    statement: str
    namespace: str
    evidence: list[tuple[Observation, str]] = field(default_factory=list)
    context: list[tuple[Observation, str]] = field(
        default_factory=list
    )  # cited, not support
    victim_of: str | None = None  # the component whose fault explains this one
    explains: list[str] = field(default_factory=list)  # components it makes fail
    is_stale: bool = False  # over before the incident's window: not what fails now
    is_relevant: bool = False  # on the incident's path
    depth: int = 0  # hops from the incident's service along what its pods call
    node: str = ""  # a control-plane pod's node
    chain: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)

    def cite(self, obs: Observation | None, fact: str) -> None:
        if obs is not None and not any(
            o.span_id == obs.span_id and f == fact for o, f in self.evidence
        ):
            self.evidence.append((obs, short(fact, FACT_CHARS)))
