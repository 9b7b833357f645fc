"""Tables of the diagnosis app (DESIGN §3): tenancy, incidents, tasks, their events and traces."""

import hashlib
import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from diagnosis.states import ACTIVE, TaskState

if TYPE_CHECKING:
    from django.db.models.sql.compiler import SQLCompiler, _AsSqlType, _ParamsT


class Tenant(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.slug


class Role(models.TextChoices):
    VIEWER = "viewer"
    RESPONDER = "responder"
    APPROVER = "approver"
    ADMIN = "admin"


class Membership(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.RESPONDER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "tenant"], name="membership_user_tenant_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.tenant} ({self.role})"


class ApiToken(models.Model):
    """A bearer token. Only the SHA-256 of the secret is stored; the secret is shown once."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    membership = models.ForeignKey(
        Membership, on_delete=models.CASCADE, related_name="tokens"
    )
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=12)
    # Lookup by hash on every API request.
    token_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.membership})"


class CallerDateTimeField(models.DateTimeField):  # type: ignore[type-arg]
    """A datetime a caller supplied. PostgreSQL holds instants Python's datetime cannot (years
    10000+, BC, infinity), and psycopg fails the whole query reading one: such a value, written
    before diagnosis.bounds checked input, is read as NULL so one bad row cannot poison a list.
    """

    def select_format(
        self, compiler: "SQLCompiler", sql: str, params: "_ParamsT"
    ) -> "_AsSqlType":
        sql, params = super().select_format(compiler, sql, params)
        # The column is named twice, so its parameters (none for a plain column) are too.
        return (
            f"CASE WHEN {sql} BETWEEN '0001-01-01 00:00:00+00'::timestamptz "
            f"AND '9999-12-31 23:59:59.999999+00'::timestamptz THEN {sql} END",
            (*params, *params),
        )


class Severity(models.TextChoices):
    SEV1 = "sev1"
    SEV2 = "sev2"
    SEV3 = "sev3"
    SEV4 = "sev4"


class IncidentStatus(models.TextChoices):
    """Where the people running the incident are (diagnosis.incident_status holds the moves)."""

    TRIGGERED = "triggered"
    ACKNOWLEDGED = "acknowledged"
    MITIGATED = "mitigated"
    RESOLVED = "resolved"


class Incident(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="incidents"
    )
    title = models.CharField(max_length=200)
    service = models.CharField(max_length=100)
    severity = models.CharField(
        max_length=8, choices=Severity.choices, default=Severity.SEV3
    )
    symptoms = models.TextField(blank=True, max_length=4000)
    # What the alert (or the person) said of it beyond the title: an alert's description or
    # summary annotation.
    description = models.TextField(blank=True, max_length=4000)
    # {name: value} strings, the alert's labels (alertname, namespace, service, app, job …);
    # bounded by diagnosis.fields.labels. The reasoning resolves the service with them.
    labels = models.JSONField(default=dict, blank=True)
    window_start = CallerDateTimeField(null=True, blank=True)
    window_end = CallerDateTimeField(null=True, blank=True)
    # The registry environment (diagnosis.registry) its diagnoses run against, by name.
    environment = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Coordination (diagnosis.coordination writes these; each change is also an event).
    status = models.CharField(
        max_length=16, choices=IncidentStatus.choices, default=IncidentStatus.TRIGGERED
    )
    status_changed_at = models.DateTimeField(null=True, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        indexes = [
            # incident_list: a tenant's incidents, newest first, keyset-paginated.
            models.Index(
                fields=["tenant", "-created_at", "-id"], name="incident_tenant_recent"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def label_pairs(self) -> list[tuple[str, str]]:
        """The labels as (name, value) pairs by name: what the page lists."""
        labels = self.labels if isinstance(self.labels, dict) else {}
        return sorted((str(k), str(v)) for k, v in labels.items())


class DiagnosisTask(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    incident = models.ForeignKey(
        Incident, on_delete=models.CASCADE, related_name="tasks"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="tasks")
    state = models.CharField(
        max_length=20, choices=TaskState.choices, default=TaskState.QUEUED
    )
    # Bumped by every transition; the compare-and-swap checks it with the state.
    version = models.PositiveIntegerField(default=0)
    # The plan the runner executes (diagnosis.plans registry) and its arguments.
    plan = models.CharField(max_length=64, default="default")
    plan_args = models.JSONField(default=dict, blank=True)
    # Index of the next step to run; a re-queued task resumes here.
    checkpoint = models.PositiveIntegerField(default=0)
    attempt = models.PositiveIntegerField(default=0)
    max_attempts = models.PositiveIntegerField(default=3)
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True)
    cancel_requested_at = models.DateTimeField(null=True, blank=True)
    last_seq = models.PositiveBigIntegerField(default=0)
    error_layer = models.CharField(max_length=32, blank=True)
    error_code = models.CharField(max_length=64, blank=True)
    error_message = models.TextField(blank=True)
    report = models.JSONField(null=True, blank=True)
    # What the engine runs against and on whose behalf (diagnosis.engine.policy checks both).
    environment = models.CharField(max_length=64, blank=True)
    principal = models.CharField(max_length=200, blank=True)
    granted_scopes = models.JSONField(default=list, blank=True)
    # 1 for an incident's first diagnosis, +1 per re-run: part of an action's idempotency key.
    generation = models.PositiveIntegerField(default=1)
    trace_id = models.CharField(max_length=32, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # At most one unfinished task per incident.
            models.UniqueConstraint(
                fields=["incident"],
                # In TaskState order, so the migration state does not change with hash seeds.
                condition=Q(state__in=[s.value for s in TaskState if s in ACTIVE]),
                name="task_one_active_per_incident",
            ),
        ]
        indexes = [
            # Reaper: leased tasks whose lease expired.
            models.Index(fields=["state", "lease_expires_at"], name="task_state_lease"),
            # Reaper: queued tasks nobody picked up.
            models.Index(fields=["state", "updated_at"], name="task_state_updated"),
        ]

    def __str__(self) -> str:
        return f"{self.id} ({self.state})"


class TaskEvent(models.Model):
    """One step of a task. Append-only; seq is per task, gap-free, and is the SSE id."""

    task = models.ForeignKey(
        DiagnosisTask, on_delete=models.CASCADE, related_name="events"
    )
    seq = models.PositiveBigIntegerField()
    # An EventKind value (diagnosis.events), not a choices field: a new kind needs no migration.
    type = models.CharField(max_length=32)
    occurred_at = models.DateTimeField()
    data = models.JSONField(default=dict)

    class Meta:
        constraints = [
            # Also the index of the replay query: events of a task after a seq, in order.
            models.UniqueConstraint(
                fields=["task", "seq"], name="event_task_seq_unique"
            ),
        ]
        ordering = ["task", "seq"]

    def __str__(self) -> str:
        return f"{self.task_id}#{self.seq} {self.type}"


class SpanState(models.TextChoices):
    STARTED = "started"  # in flight
    OK = "ok"
    ERROR = "error"
    REFUSED = "refused"  # by policy, a denied or expired approval: never sent
    CANCELLED = "cancelled"
    UNKNOWN_OUTCOME = (
        "unknown_outcome"  # sent, no answer: a write may or may not have happened
    )


# The ends of a call with a layer to blame. Cancelled is a state (the diagnosis stopped during
# the call), not a failure of any layer.
FAILED_SPAN_STATES = frozenset(
    {SpanState.ERROR, SpanState.REFUSED, SpanState.UNKNOWN_OUTCOME}
)


# A span in one of these states is not called again by a re-queued attempt (its replay key).
FINISHED_SPAN_STATES = frozenset(
    {SpanState.OK, SpanState.ERROR, SpanState.REFUSED, SpanState.UNKNOWN_OUTCOME}
)


class ToolCallSpan(models.Model):
    """One MCP tool call, with what is needed to review it later (DESIGN §3)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    task = models.ForeignKey(
        DiagnosisTask, on_delete=models.CASCADE, related_name="spans"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    trace_id = models.CharField(max_length=32)
    span_id = models.CharField(max_length=16)
    parent_span_id = models.CharField(max_length=16, blank=True)
    agent = models.CharField(max_length=64)
    server_name = models.CharField(max_length=100)
    transport = models.CharField(max_length=16)
    protocol_version = models.CharField(max_length=16, blank=True)
    tool_name = models.CharField(max_length=200)
    tool_schema_hash = models.CharField(max_length=64, blank=True)
    request_id = models.CharField(max_length=64, blank=True)
    idempotency_key = models.CharField(max_length=200, blank=True)
    arguments_redacted = models.JSONField(default=dict)
    arguments_hash = models.CharField(max_length=64, blank=True)
    principal = models.CharField(max_length=200, blank=True)
    granted_scopes = models.JSONField(default=list)
    approval = models.ForeignKey(
        "Approval", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    state = models.CharField(
        max_length=20, choices=SpanState.choices, default=SpanState.STARTED
    )
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    # (agent, call ordinal, arguments hash): a re-queued attempt reuses the finished span.
    replay_key = models.CharField(max_length=200, blank=True)
    attempt = models.PositiveIntegerField(default=1)
    # OpenTelemetry GenAI and MCP semantic-convention attributes, by their names.
    attributes = models.JSONField(default=dict, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    retry_count = models.PositiveIntegerField(default=0)
    error_layer = models.CharField(max_length=32, blank=True)
    error_code = models.CharField(max_length=64, blank=True)
    error_message = models.TextField(blank=True)
    result_hash = models.CharField(max_length=64, blank=True)
    result_size = models.PositiveIntegerField(null=True, blank=True)
    result_preview = models.TextField(blank=True)
    result_uri = models.CharField(max_length=500, blank=True)
    # The redacted result the engine reasoned on (None when it went to result_uri).
    result = models.JSONField(null=True, blank=True)
    side_effect_id = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [
            # The trace view: a task's spans in start order.
            models.Index(fields=["task", "started_at"], name="span_task_started"),
            # Replay: a re-queued attempt looks up the finished span of a call.
            models.Index(fields=["task", "replay_key"], name="span_task_replay"),
        ]

    def __str__(self) -> str:
        return f"{self.server_name}.{self.tool_name} ({self.state})"

    @property
    def failure_layer(self) -> str:
        """The layer the call failed at; "" when it did not fail (ok, in flight, cancelled)."""
        return self.error_layer if self.state in FAILED_SPAN_STATES else ""


class ApprovalStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"


class Approval(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    task = models.ForeignKey(
        DiagnosisTask, on_delete=models.CASCADE, related_name="approvals"
    )
    span = models.ForeignKey(
        ToolCallSpan, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # What exactly is approved: other arguments void it (the hash of the canonical arguments).
    server_name = models.CharField(max_length=100, blank=True)
    tool_name = models.CharField(max_length=200, blank=True)
    arguments_hash = models.CharField(max_length=64, blank=True)
    replay_key = models.CharField(max_length=200, blank=True)
    # {"arguments": redacted, "target": ..., "why": ..., "idempotency_key": ...}
    action = models.JSONField(default=dict)
    status = models.CharField(
        max_length=16, choices=ApprovalStatus.choices, default=ApprovalStatus.PENDING
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        indexes = [
            # Replay: approval_for, the latest approval of one call of a task.
            models.Index(fields=["task", "replay_key"], name="approval_task_replay"),
            # Reaper: pending approvals past their expiry (approvals_expire).
            models.Index(
                fields=["expires_at"],
                condition=Q(status="pending"),
                name="approval_pending_expiry",
            ),
        ]

    def __str__(self) -> str:
        return f"approval {self.id} ({self.status})"


class IdempotencyStatus(models.TextChoices):
    PROCESSING = "processing"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class IdempotencyRecord(models.Model):
    """The saved answer to a POST sent with an Idempotency-Key, per caller scope."""

    scope = models.CharField(max_length=200)
    key = models.CharField(max_length=200)
    request_hash = models.CharField(max_length=64)
    status = models.CharField(
        max_length=16,
        choices=IdempotencyStatus.choices,
        default=IdempotencyStatus.PROCESSING,
    )
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "key"], name="idempotency_scope_key_unique"
            )
        ]
        indexes = [
            # Purge of expired records.
            models.Index(fields=["expires_at"], name="idempotency_expires"),
        ]

    def __str__(self) -> str:
        return f"{self.scope}:{self.key} ({self.status})"


class AlertSource(models.TextChoices):
    ALERTMANAGER = "alertmanager"
    PAGERDUTY = "pagerduty"


class AlertGroupStatus(models.TextChoices):
    FIRING = "firing"
    ACKNOWLEDGED = "acknowledged"  # PagerDuty only; still open
    RESOLVED = "resolved"


class AlertGroup(models.Model):
    """One alert group (Alertmanager groupKey, PagerDuty routing_key + dedup_key) and the
    incident it opened (diagnosis.intake). A resolved group is closed: firing again opens a
    new group and a new incident."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=16, choices=AlertSource.choices)
    # SHA-256 of the source's identity of the group: groupKeys are long, and a PagerDuty
    # routing key is a credential that is never stored.
    key_hash = models.CharField(max_length=64)
    # For people: the groupKey (cut at 255) or the dedup_key.
    key = models.CharField(max_length=255)
    incident = models.ForeignKey(
        Incident, on_delete=models.CASCADE, related_name="alert_groups"
    )
    status = models.CharField(
        max_length=16,
        choices=AlertGroupStatus.choices,
        default=AlertGroupStatus.FIRING,
    )
    # {fingerprint: the alert as last received}, at most diagnosis.intake.receive.MAX_GROUP_ALERTS.
    alerts = models.JSONField(default=dict)
    # New alerts not kept because the group already held MAX_GROUP_ALERTS.
    dropped_alerts = models.PositiveIntegerField(default=0)
    # The last payload's truncatedAlerts: alerts Alertmanager left out (its max_alerts).
    sender_truncated_alerts = models.PositiveIntegerField(default=0)
    payloads = models.PositiveIntegerField(default=1)
    first_payload_at = models.DateTimeField()
    last_payload_at = models.DateTimeField()
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One open group per key; also the index of the lookup of each payload.
            models.UniqueConstraint(
                fields=["tenant", "source", "key_hash"],
                condition=~Q(status="resolved"),
                name="alertgroup_one_open_per_key",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.key} ({self.status})"


class AlertIntakeWindow(models.Model):
    """Alert payloads a tenant sent in one fixed window: the per-tenant flood bound."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    window_start = models.DateTimeField()
    payloads = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "window_start"], name="alert_window_tenant_start"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tenant_id} {self.window_start:%H:%M:%S} {self.payloads}"


class FeedbackVerdict(models.TextChoices):
    RIGHT = "right", "right"
    PARTLY = "partly", "partly right"
    WRONG = "wrong", "wrong"


FEEDBACK_COMMENT_CHARS = 2000


class TaskFeedback(models.Model):
    """'Was this right?': one person's verdict on a finished diagnosis (diagnosis.feedback)."""

    task = models.ForeignKey(
        DiagnosisTask, on_delete=models.CASCADE, related_name="feedback"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    verdict = models.CharField(max_length=8, choices=FeedbackVerdict.choices)
    comment = models.TextField(blank=True, max_length=FEEDBACK_COMMENT_CHARS)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            # One verdict per person and task; giving it again changes it.
            models.UniqueConstraint(
                fields=["task", "user"], name="feedback_task_user_unique"
            ),
        ]
        indexes = [
            # The operations page: a tenant's verdicts of the last hour or day.
            models.Index(
                fields=["tenant", "updated_at"], name="feedback_tenant_recent"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task_id}: {self.verdict}"


def call_id(*, attempt: int, replay_key: str) -> str:
    """One call of one attempt, from tool_queued to its end (a span's: its attempt and key).

    Every event of the call carries it (diagnosis.engine.executor writes them), so the
    investigation page matches a span to its queued row.
    """
    return hashlib.sha256(f"{attempt}:{replay_key}".encode()).hexdigest()[:16]


class WebhookFormat(models.TextChoices):
    SLACK = "slack"  # a Slack-compatible incoming-webhook body ({"text": …})
    GENERIC = "generic"  # JSON of the notification, signed (diagnosis.webhooks.bodies)


class WebhookTarget(models.Model):
    """Where a tenant's notifications go (diagnosis.webhooks): entered in the admin, or declared
    in the registry file (`[webhooks.<name>]`, synced by diagnosis.webhooks.targets, read-only
    in the admin), checked by diagnosis.webhooks.targets. The URL and the secret are
    credentials: pages and logs show the name and the host only."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="webhook_targets"
    )
    name = models.CharField(max_length=100)
    format = models.CharField(
        max_length=16, choices=WebhookFormat.choices, default=WebhookFormat.GENERIC
    )
    url = models.CharField(max_length=2000)
    # The HMAC-SHA256 key of the signature; held in clear because signing needs it.
    secret = models.CharField(max_length=200, blank=True)
    # Notification kinds (diagnosis.webhooks.rules.NOTICE_KINDS) it wants; empty: all.
    notices = models.JSONField(default=list, blank=True)
    is_enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Declared in the registry file (its key is `name`): kept in step with the file, read-only
    # in the admin, disabled (never deleted: its deliveries stay) once the file drops it.
    from_registry = models.BooleanField(default=False)
    # Registry targets only: the worker variables holding the URL (instead of `url`) and the
    # secret; read when a delivery is sent, never stored.
    url_env = models.CharField(max_length=128, blank=True)
    secret_env = models.CharField(max_length=128, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "name"],
                condition=models.Q(from_registry=True),
                name="webhook_target_registry_name",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.format})"


class WebhookDeliveryStatus(models.TextChoices):
    PENDING = "pending"
    RETRYING = "retrying"  # an attempt failed; another is scheduled
    DELIVERED = "delivered"
    FAILED = "failed"  # every attempt failed


class WebhookDelivery(models.Model):
    """One notification to one target, and how its attempts went: the delivery log."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    target = models.ForeignKey(
        WebhookTarget, on_delete=models.CASCADE, related_name="deliveries"
    )
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="+")
    task = models.ForeignKey(
        DiagnosisTask, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    notice = models.CharField(max_length=32)
    # The event it reports (task, seq): what the body is built from.
    event_seq = models.PositiveBigIntegerField(null=True)
    payload = models.JSONField(default=dict)
    status = models.CharField(
        max_length=16,
        choices=WebhookDeliveryStatus.choices,
        default=WebhookDeliveryStatus.PENDING,
    )
    attempts = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    # Never the URL or the secret: an exception name or an HTTP status line.
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    # When the next attempt is due (created: now; after a failed one: now + backoff); the
    # reaper re-enqueues one still unsent well after it (diagnosis.webhooks.delivery).
    next_attempt_at = models.DateTimeField(default=timezone.now)
    # Set while an attempt is under way: no second attempt starts before it passes.
    in_flight_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # The operations page: a tenant's latest deliveries.
            models.Index(
                fields=["tenant", "-created_at"], name="webhook_delivery_recent"
            ),
            # The reaper: unsent deliveries by due time.
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status__in=["pending", "retrying"]),
                name="webhook_delivery_unsent",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.notice} → {self.target_id} ({self.status})"


class OAuthGrant(models.Model):
    """The OAuth grant an admin connected for one server of an environment (registry
    `auth = {type = "oauth", grant = "connected"}`). Tokens and the client registration are
    stored encrypted (diagnosis.oauth_grants); never read the columns directly."""

    environment = models.CharField(max_length=100)
    server = models.CharField(max_length=100)
    # Fernet tokens (MultiFernet, keys from settings.OAUTH_TOKEN_KEYS) of JSON documents.
    tokens_encrypted = models.TextField()
    client_encrypted = models.TextField()
    issuer = models.CharField(max_length=500, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    connected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    connected_at = models.DateTimeField(auto_now_add=True)
    refreshed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["environment", "server"], name="oauthgrant_env_server_unique"
            )
        ]

    def __str__(self) -> str:
        return f"OAuth grant {self.environment}/{self.server}"
