"""Forms of the pages. The JSON API has its own parser (diagnosis/api/validation.py)."""

from typing import Any

from django import forms

from diagnosis import environments, principals
from diagnosis.models import FEEDBACK_COMMENT_CHARS, FeedbackVerdict, Severity, Tenant


def _choice_field(form: forms.Form, name: str) -> forms.ChoiceField:
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField)  # fields is typed dict[str, Field]
    return field


class IncidentForm(forms.Form):
    """Open an incident against one of the tenant's environments (the default preselected).

    The plan is not offered: pages run the default plan; test-only plans are the API's.
    """

    title = forms.CharField(max_length=200)
    service = forms.CharField(max_length=100)
    severity = forms.ChoiceField(choices=Severity.choices, initial=Severity.SEV3)
    symptoms = forms.CharField(
        max_length=4000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    # Not required: a post without it (an older page, a script) gets the tenant's default.
    environment = forms.ChoiceField(choices=(), required=False)

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = _choice_field(self, "environment")
        field.choices = [
            (
                env.name,
                f"{env.name}: {env.description}" if env.description else env.name,
            )
            for env in environments.environments_for(tenant)
        ]
        default = environments.default_for(tenant)
        if default is not None:
            field.initial = default.name


class DemoIncidentForm(forms.Form):
    """Open the incident of a demo environment, listed by its description (the incident title)."""

    environment = forms.ChoiceField(choices=(), label="Demo")

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _choice_field(self, "environment").choices = [
            (env.name, env.description)
            for env in environments.demo_environments_for(tenant)
        ]

    @property
    def has_choices(self) -> bool:
        return bool(_choice_field(self, "environment").choices)


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "approve"), ("deny", "deny")])
    reason = forms.CharField(max_length=1000, required=False)


class FeedbackForm(forms.Form):
    """'Was this right?' on a finished diagnosis (diagnosis.feedback)."""

    verdict = forms.ChoiceField(
        choices=FeedbackVerdict.choices, widget=forms.RadioSelect
    )
    comment = forms.CharField(
        max_length=FEEDBACK_COMMENT_CHARS,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class TenantSwitchForm(forms.Form):
    """The tenant a user in several acts in: only one of their own memberships."""

    tenant = forms.ChoiceField(choices=(), label="Tenant")

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tenant_choices = [
            (str(m.tenant_id), m.tenant.name) for m in principals.user_memberships(user)
        ]
        _choice_field(self, "tenant").choices = self.tenant_choices

    @property
    def has_choice(self) -> bool:
        """More than one tenant to choose from (else the header shows no switcher)."""
        return len(self.tenant_choices) > 1
