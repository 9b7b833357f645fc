"""Forms of the pages. The incident form reads its fields as the JSON API does (diagnosis.fields)."""

from typing import Any

from django import forms

from diagnosis import environments, fields, principals
from diagnosis.exceptions import ValidationFailed
from diagnosis.fields import SERVICE_MAX, SYMPTOMS_MAX, TITLE_MAX
from diagnosis.models import FEEDBACK_COMMENT_CHARS, FeedbackVerdict, Severity, Tenant


def _choice_field(form: forms.Form, name: str) -> forms.ChoiceField:
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField)  # fields is typed dict[str, Field]
    return field


class IncidentForm(forms.Form):
    """Open an incident against one of the tenant's environments (the default preselected).

    The rules are the API's, not the form's: `clean` reads the values with
    diagnosis.fields.incident_values (as POST /api/incidents does) and checks the environment
    with environments.environment_resolve (services.incident_create's check), so both say the
    same thing in the same words. The fields only draw the inputs; each
    validates on change through `validate_url` (views.incident_validate answers its error).
    The plan is not offered: pages run the default plan; test-only plans are the API's.
    """

    FIELDS = ("title", "service", "severity", "symptoms", "environment")

    title = forms.CharField(
        required=False, widget=forms.TextInput(attrs={"maxlength": TITLE_MAX})
    )
    service = forms.CharField(
        required=False, widget=forms.TextInput(attrs={"maxlength": SERVICE_MAX})
    )
    severity = forms.CharField(
        required=False,
        initial=Severity.SEV3,
        widget=forms.Select(choices=Severity.choices),
    )
    symptoms = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": SYMPTOMS_MAX}),
    )
    # A post without it (an older page, a script) gets the tenant's default.
    environment = forms.CharField(required=False, widget=forms.Select())

    def __init__(
        self, *args: Any, tenant: Tenant, validate_url: str = "", **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.tenant = tenant
        select = self.fields["environment"].widget
        assert isinstance(select, forms.Select)
        select.choices = [
            (
                env.name,
                f"{env.name}: {env.description}" if env.description else env.name,
            )
            for env in environments.environments_for(tenant)
        ]
        default = environments.default_for(tenant)
        if default is not None:
            self.fields["environment"].initial = default.name
        for name in self.FIELDS:
            # The error slot is always drawn (empty when valid), so a screen reader finds it.
            self.fields[name].validators = []  # not even Django's NUL check: the API's
            attrs = self.fields[name].widget.attrs
            attrs["aria-describedby"] = f"id_{name}_error"
            if validate_url:
                attrs.update(
                    {
                        "hx-post": validate_url,
                        "hx-trigger": "change",
                        "hx-target": f"#field-{name}",
                        "hx-swap": "outerHTML",
                    }
                )

    def clean(self) -> dict[str, Any]:
        # The posted strings as the API would get them: an absent field stays absent.
        data = {name: self.data[name] for name in self.FIELDS if name in self.data}
        errors = fields.FieldErrors()
        args = fields.incident_values(data, errors)
        try:
            errors.raise_if_any()
            environments.environment_resolve(
                tenant=self.tenant, name=args["environment"]
            )
        except ValidationFailed as exc:
            for name, reason in exc.fields.items():
                self.add_error(name if name in self.fields else None, reason)
            return {}
        return {name: args[name] for name in self.FIELDS}


class DemoIncidentForm(forms.Form):
    """Open the incident of a demo environment, listed by its description (the incident title)."""

    environment = forms.ChoiceField(choices=(), label="Demo")

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        # Ids of its own: the incident form on the same page has an `environment` field too.
        kwargs.setdefault("auto_id", "demo_%s")
        super().__init__(*args, **kwargs)
        _choice_field(self, "environment").choices = [
            (env.name, env.description)
            for env in environments.demo_environments_for(tenant)
        ]

    @property
    def has_choices(self) -> bool:
        return bool(_choice_field(self, "environment").choices)


class DecisionForm(forms.Form):
    """An approval's decision from the page; the reason is bounded as the API bounds it."""

    decision = forms.ChoiceField(choices=[("approve", "approve"), ("deny", "deny")])
    reason = forms.CharField(max_length=fields.REASON_MAX, required=False)


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
