"""Issue 20's items once each on a DEBUG-on stack (as `./run` serves it), in one test so the suite
pays for one stack and one diagnosis: the other browser tests check each item in depth with
DEBUG off, test_comfort.py checks steering and comfort with DEBUG on. Here, one tls-expired
demo walks the answer and its decisive evidence (items 1, 2), the rows' labels live and in the
trace with its search (3), the incident page's stream to its end, the timeline and running the
incident with a second page live (4, 6), a refused (4xx) htmx post that stays in its part,
"Copy summary" (8), the acknowledgement notified to a local receiver that checks its signature
and listed on the operations page (7), and an Alertmanager incident's alerts panel (5)."""

import pytest

from diagnosis import call_labels
from diagnosis.models import DiagnosisTask, Role, SpanState, ToolCallSpan
from diagnosis.registry import demo_environment_name
from diagnosis.webhooks import targets
from tests import factories
from tests.browser.conftest import api_post, log_in, member, shown_seqs
from tests.diagnosis.intake.support import fixture
from tests.diagnosis.test_webhooks import SECRET, receiver  # noqa: F401  (a fixture)
from tests.livestack import wait_for


def _page_is_whole(page) -> None:
    """The page itself, not a bare fragment swapped over it (django-htmx's debug handler did)."""
    assert page.query_selector("h1") is not None
    assert page.query_selector("#investigation") is not None
    assert page.query_selector("#answer") is not None


@pytest.mark.parametrize("stack_env", ["debug"], indirect=True)
def test_under_debug_each_item_works_once(pages, stack, receiver):  # noqa: F811
    tenant = factories.make_tenant("browser-debug20")
    targets.webhook_target_create(
        tenant=tenant,
        name="pager",
        url=receiver.url,
        secret=SECRET,
        notices=["status_changed"],
    )
    lead = member(tenant, "debug-lead", Role.ADMIN)
    member(tenant, "debug-watch", Role.RESPONDER)
    token = factories.make_token(lead)
    page = pages.new(permissions=["clipboard-read", "clipboard-write"])
    log_in(page, "debug-lead")
    # htmx once, and not django-htmx.js (its debug handler swaps a 4xx over the whole page).
    assert (
        page.eval_on_selector_all("script[src*='htmx-2.min.js']", "s => s.length") == 1
    )
    assert page.query_selector("script[src*='django-htmx.js']") is None

    page.select_option(
        "#demo-incident select[name=environment]", demo_environment_name("tls-expired")
    )
    page.click("#demo-incident button[type=submit]")
    page.wait_for_url("**/incidents/*/")
    incident_url = page.url
    task_id = page.get_attribute("#investigation", "data-task")
    watcher = pages.new()
    log_in(watcher, "debug-watch")
    watcher.goto(incident_url)
    page.wait_for_selector("#stream-status:has-text('finished')", timeout=240_000)

    # The stream brought every event once, up to the end.
    task = DiagnosisTask.objects.get(pk=task_id)
    assert shown_seqs(page) == list(range(1, task.last_seq + 1))
    # 1, 2: the cause, and the one decisive piece of evidence quoted with its call's label.
    page.wait_for_selector("#cause:has-text('at the tls layer')")
    assert page.inner_text("#decisive blockquote").strip()
    decisive = page.inner_text("#decisive figcaption a")
    # 3: rows say what they asked, the preview is the result's summary.
    shown = {
        row["span"]: row
        for row in page.eval_on_selector_all(
            ".tool-row",
            "rows => rows.map(r => ({span: r.dataset.span,"
            " label: r.querySelector('[data-field=label]').textContent,"
            " preview: r.querySelector('[data-field=preview]').textContent}))",
        )
    }
    spans = list(ToolCallSpan.objects.filter(task_id=task_id, state=SpanState.OK))
    assert spans and all(span.span_id in shown for span in spans)
    for span in spans:
        label = call_labels.call_label(span.tool_name, span.arguments_redacted)
        assert shown[span.span_id]["label"] == label
    labels = {shown[span.span_id]["label"] for span in spans}
    assert decisive in labels, (decisive, labels)

    # 4, 6: status and owner on the page, live on the second page and on the timeline.
    page.click("#status-acknowledged")
    page.wait_for_selector("#incident-status[data-status=acknowledged]")
    page.click("#assign-me")
    page.wait_for_selector("#unassign")
    page.fill("#note-text", "cert renewal failing since 09:10")
    page.click("#note-add")
    page.wait_for_selector(".timeline-entry[data-event=incident_note_added]")
    watcher.wait_for_selector("#incident-status[data-status=acknowledged]")
    watcher.wait_for_selector("#incident-owner:has-text('debug-lead')")
    watcher.wait_for_selector(
        ".timeline-entry[data-event=incident_note_added]:has-text('cert renewal')"
    )

    # A refused post (a status that does not exist: 400) answers in its part; under DEBUG the
    # page stays whole and the reason is shown beside the controls.
    page.evaluate(
        "() => { document.getElementById('status-mitigated').value = 'bogus'; }"
    )
    with page.expect_response(lambda r: r.url.endswith("/status")) as answered:
        page.click("#status-mitigated")
    assert 400 <= answered.value.status < 500
    page.wait_for_selector("#coordination-error")
    _page_is_whole(page)
    assert page.get_attribute("#incident-status", "data-status") == "acknowledged"

    # 8: "Copy summary" as Slack text, with an absolute link to the incident.
    page.click("#share [data-copy=share-slack]")
    page.wait_for_selector("#share-status:has-text('Copied')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert f"<{incident_url}|Open the incident>" in copied

    # 7: the acknowledgement was sent signed, and the operations page lists it by host.
    wait_for(lambda: receiver.received, timeout=30, what="the webhook delivery")
    (hit,) = receiver.received
    assert hit["signed"] and hit["json"]["incident"]["status"] == "acknowledged"
    page.goto("/operations/")
    log = page.inner_text("main")
    assert "Notifications sent" in log and "127.0.0.1" in log and "delivered" in log
    assert "xoxb-secret-path" not in page.content()
    page.goto(incident_url)
    page.wait_for_selector("#decisive")

    # 3: the decisive link opens the trace at its span; the search narrows the rows.
    page.click("#decisive figcaption a")
    page.wait_for_selector("#span-detail")
    assert page.locator("#span-arguments").is_visible()
    total = page.locator("#waterfall tbody tr").count()
    page.fill("#trace-q", "certificate")
    page.click("#trace-filters button[type=submit]")
    page.wait_for_url("**q=certificate**")
    assert 0 < page.locator("#waterfall tbody tr").count() <= total

    # 5: an incident opened by Alertmanager shows its alerts (its diagnosis is not awaited).
    alerts_token = factories.make_token(lead, scopes=("alerts:write",))
    webhook = fixture("alertmanager-1-firing")
    opened = api_post(stack, alerts_token, "/api/alerts/alertmanager", webhook)
    assert opened.status_code == 201, opened.text
    alert_incident = opened.json()["incident_id"]
    page.goto(f"/incidents/{alert_incident}/")
    assert page.locator("#alerts .alert-row").count() == 2
    assert "alertname=CheckoutHighErrorRate" in page.inner_text("#alerts")
    cancelled = api_post(stack, token, f"/api/incidents/{alert_incident}/cancel", {})
    assert cancelled.status_code == 202
