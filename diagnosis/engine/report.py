"""The report a diagnosis builds: ranked hypotheses, each citing the spans that showed it.

Shape (stored on DiagnosisTask.report, returned by the API, rendered by `markdown`)::

    {"version": 1, "summary": str, "conclusive": bool,
     "hypotheses": [{"id", "layer", "component", "statement", "confidence" (0..1),
                     "conclusive", "status" (confirmed | likely | ruled_out), "reason_ruled_out",
                     "stage", "reason" (Kubernetes only, else null),
                     "evidence": [{"span_id", "server", "tool", "fact"}],
                     "causal_chain": [str, ...]}],          # symptom first, cause last
     "open_questions": [str], "next_steps": [{"text", "runbook_uri", "runbook_title"}],
     "actions": [{"tool", "server", "target", "status", "span_id", "approval_id", "effect"}],
     "tool_calls": int, "partial": bool}                     # partial: saved while running

Hypotheses are ranked: status (confirmed, likely, ruled_out), then confidence, then layer
bottom-up (a lower layer explains the ones above it), then component. No ORM here.
"""

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from diagnosis.engine import layers

REPORT_VERSION = 1
Status = Literal["confirmed", "likely", "ruled_out"]
_STATUS_ORDER = {"confirmed": 0, "likely": 1, "ruled_out": 2}
# Below this, a top hypothesis is not a conclusion: the report says so.
CONCLUSIVE_CONFIDENCE = 0.7


@dataclass(frozen=True)
class Evidence:
    span_id: str
    server: str
    tool: str
    fact: str


@dataclass
class Hypothesis:
    layer: str
    component: str
    statement: str
    confidence: float
    status: Status = "likely"
    evidence: list[Evidence] = field(default_factory=list)
    causal_chain: list[str] = field(default_factory=list)
    reason_ruled_out: str | None = None
    stage: str | None = None
    reason: str | None = None

    @property
    def id(self) -> str:
        return f"{self.layer}:{self.component}"

    @property
    def conclusive(self) -> bool:
        return self.status == "confirmed" and self.confidence >= CONCLUSIVE_CONFIDENCE

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["confidence"] = round(self.confidence, 2)
        return {"id": self.id, **data, "conclusive": self.conclusive}


@dataclass(frozen=True)
class NextStep:
    text: str
    runbook_uri: str | None = None
    runbook_title: str | None = None


@dataclass
class ActionRecord:
    server: str
    tool: str
    target: str
    status: (
        str  # proposed | waiting_approval | done | denied | expired | failed | unknown
    )
    span_id: str | None = None
    approval_id: str | None = None
    effect: str | None = None  # what a probe after the action showed


def rank_key(h: Hypothesis) -> tuple[int, float, int, str]:
    return (_STATUS_ORDER[h.status], -h.confidence, layers.rank(h.layer), h.component)


@dataclass
class Report:
    summary: str = ""
    hypotheses: list[Hypothesis] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)
    next_steps: list[NextStep] = field(default_factory=list)
    actions: list[ActionRecord] = field(default_factory=list)
    tool_calls: int = 0
    partial: bool = True

    def ranked(self) -> list[Hypothesis]:
        return sorted(self.hypotheses, key=rank_key)

    @property
    def top(self) -> Hypothesis | None:
        ranked = [h for h in self.ranked() if h.status != "ruled_out"]
        return ranked[0] if ranked else None

    @property
    def conclusive(self) -> bool:
        return self.top is not None and self.top.conclusive

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "summary": self.summary,
            "conclusive": self.conclusive,
            "hypotheses": [h.to_dict() for h in self.ranked()],
            "open_questions": list(self.open_questions),
            "next_steps": [asdict(s) for s in self.next_steps],
            "actions": [asdict(a) for a in self.actions],
            "tool_calls": self.tool_calls,
            "partial": self.partial,
        }
