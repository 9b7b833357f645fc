"""What to do next, in one order wherever it is shown: the page's answer, the Markdown export,
and the Slack and Markdown summaries.

The fix the confirming rule names comes first. Next comes what became of each action the engine
proposed: a denied or expired restart did not happen, so no step says to watch it. Then how to
verify the fix, then the runbooks the report kept. Each text appears once.

The report stores its `next_steps` when the diagnosis concludes. An action decided later (an
approval answered after the report) changes only `actions`. So the list is built when it is
shown, from the report's current parts, never read back as stored.

Pure: built from plain values, so that every reader gets the same list.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# Step kinds, in the order they are listed.
FIX = "fix"
ACTION = "action"
VERIFY = "verify"
RUNBOOK = "runbook"
_ORDER = {FIX: 0, ACTION: 1, VERIFY: 2, RUNBOOK: 3}

# What each action state means for the person reading the list.
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


def ordered(
    *,
    fix: str,
    actions: Iterable[Mapping[str, Any]],
    steps: Iterable[Mapping[str, Any]],
) -> list[Step]:
    """The fix, the actions by their state, verification, then runbooks.

    `fix` is the confirmed cause's remediation ("" when nothing is confirmed). `actions` and
    `steps` are the report's `actions` and `next_steps` entries.
    """
    found: list[Step] = []
    if fix:
        found.append(Step(FIX, fix))
    for action in actions:
        text = action_step(action)
        if text:
            found.append(Step(ACTION, text))
    for step in steps:
        text = _str(step.get("text"))
        if not text or text == fix:
            continue
        uri = _str(step.get("runbook_uri"))
        if uri:
            found.append(Step(RUNBOOK, text, uri, _str(step.get("runbook_title"))))
        else:
            found.append(Step(VERIFY, text))
    unique: dict[str, Step] = {}
    for step_ in found:
        unique.setdefault(step_.text, step_)
    # sorted() is stable: each kind keeps its order.
    return sorted(unique.values(), key=lambda s: _ORDER[s.kind])


def from_report(report: Mapping[str, Any]) -> list[Step]:
    """`ordered` over a stored report dict (`Report.to_dict()`, read defensively)."""
    hypotheses = [h for h in _list(report.get("hypotheses")) if isinstance(h, Mapping)]
    standing = [h for h in hypotheses if h.get("status") != "ruled_out"]
    conclusive = report.get("conclusive") is True
    fix = _str(standing[0].get("remediation")) if conclusive and standing else ""
    return ordered(
        fix=fix,
        actions=[a for a in _list(report.get("actions")) if isinstance(a, Mapping)],
        steps=[s for s in _list(report.get("next_steps")) if isinstance(s, Mapping)],
    )


def action_step(action: Mapping[str, Any]) -> str:
    """What an action's state asks of a person, in one sentence; "" for an unknown state."""
    template = _ACTION_TEXTS.get(_str(action.get("status")))
    if template is None:
        return ""
    target = _str(action.get("target")) or "the target"
    reason = _str(action.get("reason"))
    effect = _str(action.get("effect"))
    return template.format(
        what=f"{_str(action.get('tool')) or 'the action'} of {target}",
        target=target,
        reason=f" ({reason})" if reason else "",
        effect=f" ({effect})" if effect else "",
    )


def _str(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []
