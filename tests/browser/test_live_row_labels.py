"""The incident page's tool rows, rendered and appended live from the stream, read as the trace
does: what the call asked (call_labels.call_label) and the result's summary as preview (issue 20)."""

from diagnosis import call_labels
from diagnosis.models import Role, SpanState, ToolCallSpan
from diagnosis.registry import demo_environment_name
from tests import factories
from tests.browser.conftest import log_in, member


def test_live_appended_rows_read_like_the_trace(pages, stack):
    tenant = factories.make_tenant("browser-labels")
    member(tenant, "labeller", Role.ADMIN)
    page = pages.new()
    log_in(page, "labeller")
    page.select_option(
        "#demo-incident select[name=environment]", demo_environment_name("tls-expired")
    )
    page.click("#demo-incident button[type=submit]")
    page.wait_for_url("**/incidents/*/")
    task_id = page.get_attribute("#investigation", "data-task")
    rendered = set(
        page.eval_on_selector_all(".tool-row", "rows => rows.map(r => r.dataset.call)")
    )
    page.wait_for_selector("#stream-status:has-text('finished')")
    shown = {
        row["span"]: row
        for row in page.eval_on_selector_all(
            ".tool-row",
            "rows => rows.map(r => ({span: r.dataset.span, call: r.dataset.call,"
            " label: r.querySelector('[data-field=label]').textContent,"
            " preview: r.querySelector('[data-field=preview]').textContent}))",
        )
    }
    spans = ToolCallSpan.objects.filter(task_id=task_id, state=SpanState.OK)
    live = [span for span in spans if shown[span.span_id]["call"] not in rendered]
    assert live, "no row was appended from the stream"
    for span in spans:
        row = shown[span.span_id]
        assert row["label"] == call_labels.call_label(
            span.tool_name, span.arguments_redacted
        )
        assert row["label"] != f"{span.server_name}.{span.tool_name}" or not (
            span.arguments_redacted
        )
        preview = call_labels.result_preview(span.result, span.result_preview)
        assert row["preview"] == (
            preview if len(preview) <= 140 else preview[:139] + "…"
        )
