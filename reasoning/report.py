"""The report a diagnosis builds: ranked hypotheses, each citing the spans that showed it.

Shape (stored on DiagnosisTask.report, returned by the API, rendered by `markdown`)::

    {"version": 1, "summary": str, "conclusive": bool,
     "hypotheses": [{"id", "layer", "component", "statement", "confidence" (0..1),
                     "conclusive", "status" (confirmed | likely | ruled_out), "reason_ruled_out",
                     "stage", "reason" (Kubernetes only, else null),
                     "evidence": [{"span_id", "server", "tool", "fact"}],
                     "decisive": {"span_id", "server", "tool", "fact"} | null,
                     "remediation": str | null,                  # the fix, once confirmed
                     "causal_chain": [str, ...]}],          # symptom first, cause last
     "open_questions": [str], "next_steps": [{"text", "runbook_uri", "runbook_title"}],
     "actions": [{"tool", "server", "target", "status" (ACTION_STATUSES), "reason",
                  "span_id", "status_span_id", "approval_id", "effect"}],
     "tool_calls": int, "partial": bool,                     # partial: saved while running
     "graph": {"focus", "nodes", "edges", "blame", "path"} | null}  # reasoning/layered/graph.py

Hypotheses are ranked: status (confirmed, likely, ruled_out), then confidence, then layer
bottom-up (a lower layer explains the ones above it), then component. No ORM here.

Every `span_id` (evidence, an action's `span_id` and `status_span_id`) is the span's 16-hex
OpenTelemetry id, the one the events and the trace carry. Reports stored before that cited
the span's row id (a UUID); the readers in `diagnosis` accept both.
"""

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from reasoning import layers

REPORT_VERSION = 1
Status = Literal["confirmed", "likely", "ruled_out"]
_STATUS_ORDER = {"confirmed": 0, "likely": 1, "ruled_out": 2}
# Below this, a top hypothesis is not a conclusion: the report says so.
CONCLUSIVE_CONFIDENCE = 0.7
# Why a hypothesis a person marked wrong is ruled out (issue 20 item 9).
EXCLUDED_REASON = "marked wrong by a person (steering)"


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
    # The evidence the rule that made it fired on, and the fix it names once confirmed.
    decisive: Evidence | None = None
    remediation: str | None = None

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


# What became of a write (diagnosis.engine.outcomes decides it from the spans): proposed before
# it is sent; done or failed once known; unknown while its answer is lost and nobody could say.
ActionStatus = Literal[
    "proposed",
    "waiting_approval",
    "done",
    "denied",
    "expired",
    "refused",
    "failed",
    "unknown",
]
ACTION_STATUSES: tuple[str, ...] = get_args(ActionStatus)


@dataclass
class ActionRecord:
    server: str
    tool: str
    target: str
    status: ActionStatus
    span_id: str | None = None  # the write's own span
    approval_id: str | None = None
    effect: str | None = None  # what a probe after the action showed
    reason: str | None = (
        None  # why it is not done, or how an unknown outcome was settled
    )
    # The get_action_status span that settled (or last tried to settle) a lost answer.
    status_span_id: str | None = None

    def open_question(self) -> str | None:
        """What a person must check: an action whose outcome the engine could not learn."""
        if self.status != "unknown":
            return None
        return (
            f"did {self.tool} of {self.target} on {self.server} happen? Its answer was lost "
            f"and its status could not be learned ({self.reason or 'no answer'}); check the "
            "target before acting again"
        )


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
    # The dependency graph the hypotheses were ranked on (`Graph.to_dict()`), when one was built.
    graph: dict[str, Any] | None = None

    def ranked(self) -> list[Hypothesis]:
        return sorted(self.hypotheses, key=rank_key)

    def rule_out(self, ids: "frozenset[str] | set[str]") -> None:
        """Rule out the hypotheses a person marked wrong (steering), whatever they showed."""
        for h in self.hypotheses:
            if h.id in ids:
                h.status = "ruled_out"
                h.reason_ruled_out = EXCLUDED_REASON

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
            "open_questions": list(
                dict.fromkeys(
                    [
                        *self.open_questions,
                        *(q for a in self.actions if (q := a.open_question())),
                    ]
                )
            ),
            "next_steps": [asdict(s) for s in self.next_steps],
            "actions": [asdict(a) for a in self.actions],
            "tool_calls": self.tool_calls,
            "partial": self.partial,
            "graph": self.graph,
        }
