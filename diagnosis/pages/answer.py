"""The answer at the top of the incident page, in incident.io's three parts: what is happening,
what caused it (confidence and the one decisive piece of evidence), what to do next.

Next steps: the fix the confirming rule names first, then what became of the actions the
engine proposed (a denied or expired restart did not happen, so nothing says to watch it), then
how to verify, then the runbooks the report kept (only those about the confirmed cause). Pure:
built from the page's `Verdict` and the incident's words; the template escapes every string.
"""

from dataclasses import dataclass

from diagnosis.pages.investigation import Evidence, HypothesisCard, Verdict

# Step kinds, in the order the page lists them.
FIX = "fix"
ACTION = "action"
VERIFY = "verify"
RUNBOOK = "runbook"
_ORDER = {FIX: 0, ACTION: 1, VERIFY: 2, RUNBOOK: 3}

# What an action's state means for the person reading the page.
_ACTION_TEXTS = {
    "proposed": "{what} is proposed as a stop-gap, not the fix",
    "waiting_approval": "{what} waits for an approver: a stop-gap, not the fix",
    "done": "{what} was done{effect}: a stop-gap; watch {target} recover until the fix lands",
    "denied": "{what} was denied{reason}: nothing was restarted, apply the fix",
    "expired": "{what} expired unanswered: nothing was restarted, apply the fix",
    "refused": "{what} was refused by policy{reason}: nothing was run",
    "failed": "{what} failed{reason}: check {target} before trying again",
    "unknown": "{what} may or may not have happened{reason}: check {target} before acting again",
}


@dataclass(frozen=True)
class Step:
    kind: str  # FIX, ACTION, VERIFY or RUNBOOK
    text: str
    runbook_uri: str = ""
    runbook_title: str = ""


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
    """Fix, actions by their state, verification, then runbooks; each text once."""
    cause = verdict.cause
    steps: list[Step] = []
    fix = cause.remediation if cause is not None else ""
    if fix:
        steps.append(Step(FIX, fix))
    for action in verdict.actions:
        text = action_step(action)
        if text:
            steps.append(Step(ACTION, text))
    for step in verdict.next_steps:
        if not step.text or step.text == fix:
            continue
        if step.runbook_uri:
            steps.append(Step(RUNBOOK, step.text, step.runbook_uri, step.runbook_title))
        else:
            steps.append(Step(VERIFY, step.text))
    unique: dict[str, Step] = {}
    for found in steps:
        unique.setdefault(found.text, found)
    # sorted() is stable: each kind keeps its order.
    return sorted(unique.values(), key=lambda s: _ORDER[s.kind])


def action_step(action: dict[str, str]) -> str:
    """What an action's state asks of a person, in one sentence; "" for an unknown state."""
    template = _ACTION_TEXTS.get(action.get("status", ""))
    if template is None:
        return ""
    target = action.get("target") or "the target"
    reason = action.get("reason") or ""
    return template.format(
        what=f"{action.get('tool') or 'the action'} of {target}",
        target=target,
        reason=f" ({reason})" if reason else "",
        effect=f" ({action['effect']})" if action.get("effect") else "",
    )
