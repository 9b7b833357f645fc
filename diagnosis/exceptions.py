"""Typed errors of the diagnosis domain.

DiagnosisError
├── InvalidTransition     the state table does not allow the move
├── StaleTransition       the row moved on since it was read (lost compare-and-swap)
├── TaskFinished          the task is already in a terminal state
├── ActiveTaskExists      the incident already has a task that is not finished
├── ValidationFailed      bad input; `.fields` maps each field to its reason
├── RateLimited           the tenant opened its quota of incidents; `.retry_after` in seconds
│   └── AlertsRateLimited the tenant sent its quota of alert payloads (diagnosis.intake)
├── LeaseLost             the writer no longer holds the task's lease; nothing was written
├── IncidentChanged       the incident's coordination field changed since it was read
└── CoordinationRefused   a well-formed change the incident's state refuses; `.fields` says why
"""


class DiagnosisError(Exception):
    """Base of every error the diagnosis services raise on purpose."""


class InvalidTransition(DiagnosisError):
    def __init__(self, src: str, dst: str) -> None:
        super().__init__(f"illegal transition {src} → {dst}")
        self.src, self.dst = src, dst


class StaleTransition(DiagnosisError):
    def __init__(
        self, task_id: object, expected_state: str, expected_version: int
    ) -> None:
        super().__init__(
            f"task {task_id} is no longer {expected_state} at version {expected_version}"
        )
        self.task_id = task_id
        self.expected_state = expected_state
        self.expected_version = expected_version


class TaskFinished(DiagnosisError):
    def __init__(self, task_id: object, state: str) -> None:
        super().__init__(f"task {task_id} already finished: {state}")
        self.task_id, self.state = task_id, state


class ActiveTaskExists(DiagnosisError):
    def __init__(self, incident_id: object, task_id: object) -> None:
        super().__init__(f"incident {incident_id} already has an active task {task_id}")
        self.incident_id, self.task_id = incident_id, task_id


class ValidationFailed(DiagnosisError):
    def __init__(self, fields: dict[str, str], message: str = "invalid input") -> None:
        super().__init__(message)
        self.fields = fields


class RateLimited(DiagnosisError):
    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many incidents opened; retry in {retry_after} s")
        self.retry_after = retry_after


class AlertsRateLimited(RateLimited):
    def __init__(self, retry_after: int) -> None:
        DiagnosisError.__init__(
            self, f"too many alert payloads; retry in {retry_after} s"
        )
        self.retry_after = retry_after


class LeaseLost(DiagnosisError):
    def __init__(self, task_id: object, owner: str) -> None:
        super().__init__(f"task {task_id}: {owner} no longer holds its lease")
        self.task_id, self.owner = task_id, owner


class IncidentChanged(DiagnosisError):
    def __init__(self, incident_id: object, field: str) -> None:
        super().__init__(
            f"the incident's {field} changed meanwhile; read it again and retry"
        )
        self.incident_id, self.field = incident_id, field


class CoordinationRefused(DiagnosisError):
    """A change the incident's current state refuses (a status move the table lacks, the value
    it already has, an owner who may not run it): well-formed input, so a 409, not a 400."""

    def __init__(self, fields: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in fields.items()))
        self.fields = fields
