"""Forms of the pages. The JSON API has its own parser (diagnosis/api/validation.py)."""

from typing import Any

from django import forms
from django.conf import settings

from diagnosis.models import Severity
from diagnosis.plans import plan_names


class IncidentForm(forms.Form):
    title = forms.CharField(max_length=200)
    service = forms.CharField(max_length=100)
    severity = forms.ChoiceField(choices=Severity.choices, initial=Severity.SEV3)
    symptoms = forms.CharField(
        max_length=4000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    plan = forms.ChoiceField(choices=(), initial="default")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = plan_names(include_test_only=settings.DIAGNOSIS_TEST_PLANS)
        plan = self.fields["plan"]
        assert isinstance(plan, forms.ChoiceField)  # fields is typed dict[str, Field]
        plan.choices = [(name, name) for name in names]


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "approve"), ("deny", "deny")])
    reason = forms.CharField(max_length=1000, required=False)
