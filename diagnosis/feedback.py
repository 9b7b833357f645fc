"""'Was this right?': one verdict per person on a finished diagnosis (right, partly, wrong, with
a comment), and the counts the operations page shows."""

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count

from diagnosis.events import EventKind
from diagnosis.exceptions import ValidationFailed
from diagnosis.lifecycle import diagnosis_event_append
from diagnosis.models import (
    FEEDBACK_COMMENT_CHARS,
    DiagnosisTask,
    FeedbackVerdict,
    TaskFeedback,
    Tenant,
)
from diagnosis.states import TERMINAL


def feedback_give(
    *, task: DiagnosisTask, user: Any, verdict: str, comment: str = ""
) -> TaskFeedback:
    """Record (or change) `user`'s verdict on the finished `task`.

    Raises:
        ValidationFailed: the task still runs, the verdict is not right/partly/wrong, or the
            comment is too long.
    """
    errors = {}
    if task.state not in TERMINAL:
        errors["task"] = "the diagnosis has not ended"
    if verdict not in FeedbackVerdict.values:
        errors["verdict"] = "must be right, partly or wrong"
    if len(comment) > FEEDBACK_COMMENT_CHARS:
        errors["comment"] = f"at most {FEEDBACK_COMMENT_CHARS} characters"
    if errors:
        raise ValidationFailed(errors)
    with transaction.atomic():
        feedback, _created = TaskFeedback.objects.update_or_create(
            task=task,
            user=user,
            defaults={
                "tenant_id": task.tenant_id,
                "verdict": verdict,
                "comment": comment,
            },
        )
        # The incident's timeline shows who judged it, and every watching page hears of it.
        diagnosis_event_append(
            task_id=task.pk,
            kind=EventKind.FEEDBACK_GIVEN,
            data={
                "verdict": verdict,
                "comment": comment,
                "by": user.get_username(),
                "by_token": "",
            },
        )
    return feedback


def feedback_of(*, task: DiagnosisTask, user: Any) -> TaskFeedback | None:
    """`user`'s verdict on `task`, if given."""
    if not getattr(user, "pk", None):
        return None
    return TaskFeedback.objects.filter(task=task, user=user).first()


def feedback_counts(*, tenant: Tenant, since: datetime) -> dict[str, int]:
    """Verdicts given on the tenant's diagnoses since `since`, by verdict (every verdict keyed)."""
    rows = (
        TaskFeedback.objects.filter(tenant=tenant, updated_at__gte=since)
        .values("verdict")
        .annotate(n=Count("id"))
    )
    counts = dict.fromkeys(FeedbackVerdict.values, 0)
    counts.update({row["verdict"]: row["n"] for row in rows})
    return counts
