"""The answer at the top of the incident page, in incident.io's three parts: what is happening,
what caused it (confidence and the one decisive piece of evidence), what to do next.

Next steps: `diagnosis.next_steps` owns their order and the action texts (the exports use the
same). Pure: built from the page's `Verdict` and the incident's words; the template escapes every string.
"""

from dataclasses import dataclass

from diagnosis.next_steps import Step, ordered
from diagnosis.pages.investigation import Evidence, HypothesisCard, Verdict


@dataclass(frozen=True)
class Answer:
    happening: str
    cause: HypothesisCard | None  # the confirmed cause; None when inconclusive
    lead: HypothesisCard | None  # the strongest standing hypothesis when inconclusive
    decisive: Evidence | None  # of the cause, else of the lead
    steps: list[Step]
    is_partial: bool

    @property
    def has_findings(self) -> bool:
        return self.cause is not None or self.lead is not None


def build_answer(
    verdict: Verdict, *, title: str, symptoms: str, service: str
) -> Answer:
    """The three parts from the report as the page reads it and the incident's own words."""
    cause = verdict.cause
    lead = None if cause is not None else next(iter(verdict.hypotheses), None)
    top = cause or lead
    return Answer(
        happening=happening(top, title=title, symptoms=symptoms, service=service),
        cause=cause,
        lead=lead,
        decisive=top.ranked_evidence[0] if top and top.ranked_evidence else None,
        steps=next_steps(verdict),
        is_partial=verdict.is_partial,
    )


def happening(
    top: HypothesisCard | None, *, title: str, symptoms: str, service: str
) -> str:
    """The symptom as observed (the causal chain's head), else the incident's first symptom."""
    if top is not None and len(top.causal_chain) > 1:
        return top.causal_chain[0]
    first = next((line.strip() for line in symptoms.splitlines() if line.strip()), "")
    if first:
        return first
    return f"{service}: {title}" if service else title


def next_steps(verdict: Verdict) -> list[Step]:
    """Fix, actions by their state, verification, then runbooks (`diagnosis.next_steps`)."""
    return ordered(
        fix=verdict.cause.remediation if verdict.cause is not None else "",
        actions=verdict.actions,
        steps=[
            {
                "text": s.text,
                "runbook_uri": s.runbook_uri,
                "runbook_title": s.runbook_title,
            }
            for s in verdict.next_steps
        ],
    )
