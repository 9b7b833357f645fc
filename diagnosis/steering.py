"""Steering a diagnosis (issue 20 item 9): the context people add to a task, and what it adds up to.

A note added while a diagnosis runs, a hypothesis marked wrong, a corrected service are each one
`steering_added` event of the task (appended through diagnosis.lifecycle, like every event). The
engine reads `task_steering` before each round and hands it to the planner (diagnosis.engine.
steering). Marking a hypothesis wrong, or correcting the service or environment, starts a new
diagnosis that carries the earlier one's steering forward.
"""

import uuid
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from diagnosis import fields, services
from diagnosis.events import EventKind
from diagnosis.exceptions import TaskFinished
from diagnosis.lifecycle import diagnosis_event_append
from diagnosis.models import DiagnosisTask, Incident, TaskEvent
from diagnosis.payloads import SteeringAddedData
from diagnosis.principals import Principal
from diagnosis.states import is_terminal

NOTE_MAX = fields.REASON_MAX
HYPOTHESIS_ID_MAX = 200


@dataclass(frozen=True)
class SteeringContext:
    """What people added to a task so far, folded from its steering_added events."""

    notes: tuple[str, ...] = ()
    excluded: frozenset[str] = frozenset()
    service: str | None = None
    last_seq: int = 0  # the last steering_added event folded in (0: none)


def task_steering(*, task_id: uuid.UUID | str) -> SteeringContext:
    """The task's steering context, from its steering_added events in seq order."""
    notes: list[str] = []
    excluded: set[str] = set()
    service: str | None = None
    last_seq = 0
    for event in _steering_events(task_id):
        data = event.data
        if isinstance(data.get("note"), str):
            notes.append(data["note"])
        if isinstance(data.get("exclude"), str):
            excluded.add(data["exclude"])
        if isinstance(data.get("service"), str):
            service = data["service"]
        last_seq = event.seq
    return SteeringContext(tuple(notes), frozenset(excluded), service, last_seq)


def _steering_events(task_id: uuid.UUID | str) -> list[TaskEvent]:
    return list(
        TaskEvent.objects.filter(
            task__pk=task_id, type=EventKind.STEERING_ADDED
        ).order_by("seq")
    )


def steering_note_add(*, task: DiagnosisTask, user: Any, note: Any) -> TaskEvent:
    """Add a note to a running diagnosis: its planner reads it before its next round.

    Raises:
        ValidationFailed: `note` is missing, blank, too long or not a string.
        TaskFinished: the diagnosis has ended (re-run it with the note instead).
    """
    errors = fields.FieldErrors()
    text = fields.text(
        {"note": note}, "note", errors, required=True, max_length=NOTE_MAX
    )
    errors.raise_if_any()
    if is_terminal(task.state):
        raise TaskFinished(task.pk, task.state)
    return diagnosis_event_append(
        task_id=task.pk,
        kind=EventKind.STEERING_ADDED,
        data={"note": text, "by": _username(user)},
    )


def steering_exclude_add(
    *, task: DiagnosisTask, user: Any, hypothesis: Any
) -> TaskEvent:
    """Mark one hypothesis of a running diagnosis wrong: its planner rules it out from its next round.

    Raises:
        ValidationFailed: `hypothesis` is not a "layer:component" id.
        TaskFinished: the diagnosis has ended (re-run it with the hypothesis excluded).
    """
    hypothesis_id = _hypothesis_id(hypothesis, required=True)
    if is_terminal(task.state):
        raise TaskFinished(task.pk, task.state)
    statement = _statement(task, hypothesis_id)
    data: SteeringAddedData = {"exclude": hypothesis_id, "by": _username(user)}
    if statement:
        data["statement"] = statement
    return diagnosis_event_append(
        task_id=task.pk, kind=EventKind.STEERING_ADDED, data=data
    )


def _hypothesis_id(value: Any, *, required: bool) -> str:
    errors = fields.FieldErrors()
    text = fields.text(
        {"exclude": value},
        "exclude",
        errors,
        required=required,
        max_length=HYPOTHESIS_ID_MAX,
    )
    if text and ":" not in text:
        errors.add("exclude", "must be a hypothesis id, layer:component")
    errors.raise_if_any()
    return text


def steering_rerun(
    *,
    incident: Incident,
    principal: Principal,
    exclude: Any = None,
    service: Any = None,
    environment: Any = None,
    note: Any = None,
) -> DiagnosisTask:
    """Start a new diagnosis of the incident that carries the latest one's steering forward,
    with a hypothesis excluded, the service or environment corrected, or a note added.

    Raises:
        ValidationFailed: a value is not a string, too long, or the environment is not the
            tenant's; `exclude` names no "layer:component"; nothing was given.
        ActiveTaskExists: a diagnosis of the incident still runs.
    """
    data = {
        "exclude": exclude,
        "service": service,
        "environment": environment,
        "note": note,
    }
    errors = fields.FieldErrors()
    hypothesis = fields.text(data, "exclude", errors, max_length=HYPOTHESIS_ID_MAX)
    if hypothesis and ":" not in hypothesis:
        errors.add("exclude", "must be a hypothesis id, layer:component")
    corrected = fields.text(data, "service", errors, max_length=fields.SERVICE_MAX)
    env = fields.text(data, "environment", errors, max_length=fields.ENVIRONMENT_MAX)
    text = fields.text(data, "note", errors, max_length=NOTE_MAX)
    if not errors and not (hypothesis or corrected or env or text):
        errors.add(
            "exclude",
            "give a hypothesis to exclude, a service, an environment or a note",
        )
    errors.raise_if_any()
    latest = incident.tasks.order_by("-created_at").first()
    carried = task_steering(task_id=latest.pk) if latest is not None else None
    by = _username(principal.user)
    with transaction.atomic():
        task = services.diagnosis_start(
            incident=incident,
            principal=principal,
            plan=latest.plan if latest else "default",
            plan_args=latest.plan_args if latest else {},
            environment=env or None,
        )
        added: list[SteeringAddedData] = []
        if latest is not None:
            for event in _steering_events(latest.pk):
                item = _carried(event.data, from_task=str(latest.pk))
                if item is not None and not (corrected and "service" in item):
                    added.append(item)  # a corrected service replaces the carried one
        if hypothesis and (carried is None or hypothesis not in carried.excluded):
            excluded: SteeringAddedData = {"exclude": hypothesis, "by": by}
            if statement := _statement(latest, hypothesis):
                excluded["statement"] = statement
            added.append(excluded)
        if corrected:
            added.append({"service": corrected, "by": by})
        if text:
            added.append({"note": text, "by": by})
        for item in added:
            diagnosis_event_append(
                task_id=task.pk, kind=EventKind.STEERING_ADDED, data=item
            )
    return task


def _carried(data: Any, *, from_task: str) -> SteeringAddedData | None:
    item: SteeringAddedData = {"by": data.get("by"), "from_task": from_task}
    for key in ("note", "exclude", "statement", "service"):
        if isinstance(data.get(key), str):
            item[key] = data[key]
    return item if len(item) > 2 else None


def _statement(task: DiagnosisTask | None, hypothesis: str) -> str:
    report = (task.report if task is not None else None) or {}
    for h in report.get("hypotheses") or ():
        if isinstance(h, dict) and h.get("id") == hypothesis:
            return str(h.get("statement") or "")[:300]
    return ""


def _username(user: Any) -> str | None:
    return user.get_username() if getattr(user, "pk", None) else None
