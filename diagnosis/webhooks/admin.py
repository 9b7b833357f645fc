"""The admin of webhook targets (registered by diagnosis.admin): the fields checked as
diagnosis.webhooks.targets checks them, the secret write-only (never rendered back), and the
URL shown by its host in lists. A target from the registry file is read-only here (the file
is its source; diagnosis.webhooks.targets keeps the rows in step)."""

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from diagnosis.models import WebhookDelivery, WebhookTarget
from diagnosis.webhooks.rules import NOTICE_KINDS
from diagnosis.webhooks.targets import (
    registry_targets_ensure,
    target_errors,
    target_host,
)

if TYPE_CHECKING:
    # Generic only in django-stubs (as diagnosis.admin says).
    from django.db.models import Model

    ModelAdmin = admin.ModelAdmin[Model]
else:
    ModelAdmin = admin.ModelAdmin


class WebhookTargetForm(forms.ModelForm):  # type: ignore[type-arg]
    secret = forms.CharField(
        required=False,
        max_length=200,
        widget=forms.PasswordInput(render_value=False),
        help_text="The HMAC-SHA256 key of X-AgentOps-Signature. Left blank on a change, "
        "the stored one is kept; it is never shown.",
    )
    url = forms.CharField(
        max_length=2000,
        widget=forms.PasswordInput(render_value=False),
        required=False,
        help_text="http(s). A Slack webhook URL is a credential: it is never shown again. "
        "Left blank on a change, the stored one is kept.",
    )
    notices = forms.MultipleChoiceField(
        choices=[(n, n) for n in NOTICE_KINDS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None chosen: every notice.",
    )

    class Meta:
        model = WebhookTarget
        fields = ["tenant", "name", "format", "url", "secret", "notices", "is_enabled"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk:
            data["url"] = data.get("url") or self.instance.url
            data["secret"] = data.get("secret") or self.instance.secret
        errors = target_errors(
            name=data.get("name"),
            url=data.get("url"),
            format=data.get("format"),
            notices=list(data.get("notices") or []),
        )
        for name, reason in errors.items():
            self.add_error(name if name in self.fields else None, reason)
        return data


# What a registry target's (read-only) page shows: never `secret` (its key is in a variable).
_REGISTRY_FIELDS = [
    "tenant",
    "name",
    "format",
    "host",
    "url_env",
    "secret_env",
    "notices",
    "is_enabled",
    "source",
]


class WebhookTargetAdmin(ModelAdmin):
    form = WebhookTargetForm
    list_display = [
        "name",
        "tenant",
        "format",
        "host",
        "source",
        "is_enabled",
        "created_at",
    ]
    list_filter = ["format", "is_enabled", "from_registry", "tenant"]

    @admin.display(description="host")
    def host(self, obj: WebhookTarget) -> str:
        return target_host(obj)

    @admin.display(description="source")
    def source(self, obj: WebhookTarget) -> str:
        return "registry file" if obj.from_registry else "admin"

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> Any:
        registry_targets_ensure()  # the file's targets are listed before any notification
        return super().changelist_view(request, extra_context)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and obj.from_registry:
            return _REGISTRY_FIELDS
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and obj.from_registry:
            return _REGISTRY_FIELDS
        return super().get_readonly_fields(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.from_registry:
            return False  # edit the registry file
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.from_registry:
            return False  # drop it from the file: it is disabled, its deliveries kept
        return super().has_delete_permission(request, obj)


class WebhookDeliveryAdmin(ModelAdmin):
    list_display = [
        "created_at",
        "target",
        "notice",
        "status",
        "attempts",
        "last_error",
    ]
    list_filter = ["status", "notice"]
    exclude = ["payload"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


admin.site.register(WebhookTarget, WebhookTargetAdmin)
admin.site.register(WebhookDelivery, WebhookDeliveryAdmin)
