""" "Copy summary" (issue 20 item 8): the Slack and Markdown texts of diagnosis.pages.share, and
the incident page carrying them with absolute links (SITE_URL, else the request's origin)."""

import pytest
from django.urls import reverse
from markdown_it import MarkdownIt

from diagnosis.models import DiagnosisTask
from diagnosis.pages.investigation import verdict_from_report
from diagnosis.pages.share import ShareFacts, markdown_summary, slack_summary
from tests import factories

SPAN = "3f2a9c1d0e4b5a67"
TRACE = "https://agentops.example.com/tasks/6f1c2b7e/trace"
FACTS = ShareFacts(
    title="Checkout 502s",
    service="checkout",
    severity="sev1",
    environment="production",
    state_label="succeeded",
    incident_url="https://agentops.example.com/incidents/0b4c9a7e/",
    trace_url=TRACE,
)
REPORT = {
    "summary": "Checkout 502s come from payments-gw refusing connections.",
    "conclusive": True,
    "partial": False,
    "hypotheses": [
        {
            "layer": "connect",
            "component": "payments-gw",
            "statement": "payments-gw refuses TCP connections",
            "confidence": 0.92,
            "status": "confirmed",
            "evidence": [
                {
                    "span_id": SPAN,
                    "server": "netcheck",
                    "tool": "probe",
                    "fact": "connect refused in 3 ms",
                }
            ],
        }
    ],
    "next_steps": [{"text": "Restart payments-gw"}, {"text": "Watch the 5xx rate"}],
}
HOSTILE = (
    "<!channel> *bold* [x](javascript:alert(1)) <https://evil.example|click> & <b>"
)


def test_the_slack_summary_is_mrkdwn_with_the_cause_evidence_steps_and_links():
    text = slack_summary(FACTS, verdict_from_report(REPORT), is_finished=True)

    assert text.splitlines() == [
        "*[SEV1] Checkout 502s*",
        "checkout · production · diagnosis succeeded",
        "*What is happening:* Checkout 502s come from payments-gw refusing connections.",
        "*Probable cause:* payments-gw refuses TCP connections (payments-gw at the "
        "connect layer, 92 % confidence)",
        f"*Evidence:* <{TRACE}?span={SPAN}#span-{SPAN}|netcheck.probe> connect refused "
        "in 3 ms",
        "*Next steps:*",
        "1. Restart payments-gw",
        "2. Watch the 5xx rate",
        f"<{FACTS.incident_url}|Open the incident> · <{TRACE}|Open the trace>",
    ]


def test_an_inconclusive_run_says_so_and_names_the_leading_hypothesis():
    report = {**REPORT, "conclusive": False, "partial": True}

    text = slack_summary(FACTS, verdict_from_report(report), is_finished=False)

    assert (
        "*Probable cause:* inconclusive so far; the leading hypothesis is payments-gw "
        "at the connect layer (92 %)"
    ) in text
    assert "*Evidence:*" not in text


def test_untrusted_text_cannot_make_slack_links_or_mentions():
    facts = ShareFacts(**{**FACTS.__dict__, "title": HOSTILE, "service": HOSTILE})
    report = {**REPORT, "summary": HOSTILE, "next_steps": [{"text": HOSTILE}]}

    text = slack_summary(facts, verdict_from_report(report), is_finished=True)

    # Slack reads <…> as a link or a mention: only ours remain.
    assert "<!channel>" not in text and "<https://evil" not in text
    assert text.count("<") == 3  # the evidence, the incident and the trace links
    assert "&lt;!channel&gt;" in text and "&amp;" in text


def test_the_markdown_summary_renders_to_the_same_facts_and_only_our_links():
    report = {**REPORT, "summary": HOSTILE}

    md = markdown_summary(FACTS, verdict_from_report(report), is_finished=True)
    html = MarkdownIt("commonmark", {"html": True}).render(md)

    assert md.startswith("**\\[SEV1\\] Checkout 502s**\n")
    assert f"[span 3f2a9c1d]({TRACE}?span={SPAN}#span-{SPAN}) netcheck.probe" in md
    assert "1. Restart payments-gw\n2. Watch the 5xx rate" in md
    hrefs = [part.split('"', 1)[0] for part in html.split('href="')[1:]]
    assert hrefs == [f"{TRACE}?span={SPAN}#span-{SPAN}", FACTS.incident_url, TRACE]
    assert "<b>" not in html and "javascript:" not in "".join(hrefs)


# --- on the page ----------------------------------------------------------------------------


@pytest.fixture
def logged_in(client, member):
    client.force_login(member.user)
    return client


def _page_with_report(client, tenant):
    incident, task = factories.make_incident(tenant, title="Checkout 502s")
    DiagnosisTask.objects.filter(pk=task.pk).update(report=REPORT)
    html = client.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    return incident, task, html


def _template(html, template_id):
    return html.split(f'<template id="{template_id}">', 1)[1].split("</template>", 1)[0]


@pytest.mark.django_db
def test_the_page_carries_both_texts_with_links_on_the_requests_origin(
    logged_in, tenant
):
    incident, task, html = _page_with_report(logged_in, tenant)

    slack = _template(html, "share-slack")
    markdown = _template(html, "share-markdown")
    trace = f"http://testserver/tasks/{task.id}/trace"
    # Escaped once for HTML: the browser's textContent gives back the mrkdwn.
    assert f"&lt;{trace}?span={SPAN}#span-{SPAN}|netcheck.probe&gt;" in slack
    assert (
        f"&lt;http://testserver/incidents/{incident.id}/|Open the incident&gt;" in slack
    )
    assert f"[Open the trace]({trace})" in markdown
    assert 'data-copy="share-slack"' in html and 'data-copy="share-markdown"' in html


@pytest.mark.django_db
def test_with_site_url_the_texts_link_to_it(logged_in, tenant, settings):
    settings.SITE_URL = "https://agentops.example.com"

    incident, task, html = _page_with_report(logged_in, tenant)

    slack = _template(html, "share-slack")
    assert f"https://agentops.example.com/incidents/{incident.id}/" in slack
    assert f"https://agentops.example.com/tasks/{task.id}/trace" in slack
    assert "testserver" not in slack + _template(html, "share-markdown")


def test_the_summaries_list_the_fix_and_what_became_of_each_action():
    report = {
        **REPORT,
        "hypotheses": [
            {**REPORT["hypotheses"][0], "remediation": "Fix payments-gw's listener"}
        ],
        "actions": [
            {
                "server": "actions",
                "tool": "restart_service",
                "target": "payments-gw",
                "status": "denied",
                "reason": "change freeze",
            }
        ],
    }
    verdict = verdict_from_report(report)
    for text in (
        slack_summary(FACTS, verdict, is_finished=True),
        markdown_summary(FACTS, verdict, is_finished=True),
    ):
        steps = [
            line for line in text.splitlines() if line[:3] in ("1. ", "2. ", "3. ")
        ]
        assert steps[0].startswith("1. Fix payments"), text
        assert "was denied" in steps[1] and "nothing was restarted" in steps[1], text
        assert "recover" not in text, text
