"""Hypothesis cards: a Kubernetes hypothesis shows its component as kind and name, its stage and
its event reason; a plain one shows none of them."""

import pytest
from django.urls import reverse

from diagnosis.models import DiagnosisTask
from tests import factories

pytestmark = pytest.mark.django_db


def _hypothesis(**fields):
    return {
        "id": f"{fields['layer']}:{fields['component']}",
        "statement": "it fails",
        "confidence": 0.8,
        "conclusive": True,
        "status": "confirmed",
        "reason_ruled_out": None,
        "stage": None,
        "reason": None,
        "evidence": [],
        "causal_chain": [],
        **fields,
    }


def test_cards_show_kind_name_stage_and_reason_escaped(client, member, tenant):
    client.force_login(member.user)
    incident, task = factories.make_incident(tenant)
    report = {
        "version": 1,
        "summary": "checkout crashes",
        "conclusive": True,
        "partial": False,
        "hypotheses": [
            _hypothesis(
                layer="kubernetes",
                component="deployment/checkout",
                stage="service_routing",
                reason="<b>CrashLoopBackOff</b>",
            ),
            _hypothesis(layer="tls", component="payments-api", confidence=0.4),
        ],
    }
    DiagnosisTask.objects.filter(pk=task.pk).update(report=report)

    page = client.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()

    assert '<span class="kind-tag">deployment</span> checkout' in page
    assert "<dt>Component</dt><dd>deployment <code>checkout</code></dd>" in page
    assert '<dd class="hypothesis-stage">service routing</dd>' in page
    assert (
        '<dd class="hypothesis-reason"><code>&lt;b&gt;CrashLoopBackOff&lt;/b&gt;</code></dd>'
        in page
    )
    assert "<b>CrashLoopBackOff</b>" not in page
    # The plain hypothesis: no kind, stage nor reason.
    assert page.count('class="kind-tag"') == 1
    assert page.count('class="hypothesis-stage"') == 1
    assert page.count('class="hypothesis-reason"') == 1
