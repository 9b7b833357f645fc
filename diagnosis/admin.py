"""Admin: read-mostly views of the diagnosis tables; state is only ever changed by services."""

from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from diagnosis import models

if TYPE_CHECKING:
    # ModelAdmin is generic only in django-stubs: subscripting it at run time would need
    # django_stubs_ext.monkeypatch(), a dev-only package.
    ModelAdmin = admin.ModelAdmin[Model]
else:
    ModelAdmin = admin.ModelAdmin


class ReadOnlyAdmin(ModelAdmin):
    def has_add_permission(
        self, request: HttpRequest, obj: Model | None = None
    ) -> bool:
        return False

    def has_change_permission(
        self, request: HttpRequest, obj: Model | None = None
    ) -> bool:
        return False


@admin.register(models.Tenant)
class TenantAdmin(ModelAdmin):
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]


@admin.register(models.Membership)
class MembershipAdmin(ModelAdmin):
    list_display = ["user", "tenant", "role"]
    list_filter = ["role", "tenant"]


@admin.register(models.ApiToken)
class ApiTokenAdmin(ModelAdmin):
    list_display = [
        "prefix",
        "name",
        "membership",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    readonly_fields = [
        "prefix",
        "token_hash",
        "membership",
        "created_at",
        "last_used_at",
    ]

    def has_add_permission(
        self, request: HttpRequest, obj: Model | None = None
    ) -> bool:
        return False  # tokens are made by `manage.py create_api_token`, which shows the secret once


@admin.register(models.Incident)
class IncidentAdmin(ReadOnlyAdmin):
    list_display = ["title", "service", "severity", "tenant", "created_at"]
    list_filter = ["severity", "tenant"]
    search_fields = ["title", "service"]


@admin.register(models.DiagnosisTask)
class DiagnosisTaskAdmin(ReadOnlyAdmin):
    list_display = ["id", "incident", "state", "attempt", "last_seq", "created_at"]
    list_filter = ["state"]


@admin.register(models.TaskEvent)
class TaskEventAdmin(ReadOnlyAdmin):
    list_display = ["task", "seq", "type", "occurred_at"]
    list_filter = ["type"]


@admin.register(models.ToolCallSpan)
class ToolCallSpanAdmin(ReadOnlyAdmin):
    list_display = [
        "task",
        "server_name",
        "tool_name",
        "state",
        "latency_ms",
        "error_layer",
    ]
    list_filter = ["state", "error_layer"]


@admin.register(models.Approval)
class ApprovalAdmin(ReadOnlyAdmin):
    list_display = ["id", "task", "status", "requested_at", "decided_by"]
    list_filter = ["status"]


@admin.register(models.IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ["scope", "key", "status", "response_status", "expires_at"]


# Webhook targets and their delivery log (issue 20 item 7).
from diagnosis.webhooks import admin as webhook_admin  # noqa: E402, F401
