"""Trace rows labelled by what they asked, previews from the result's summary, and the bounded
search over the redacted stored data, on the trace page and in its API (issue 20 item 3)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from diagnosis import call_labels
from diagnosis.pages import trace_view
from tests import factories


@pytest.mark.parametrize(
    ("tool", "arguments", "label"),
    [
        ("get_resources", {"kind": "pods", "namespace": "shop"}, "get pods -n shop"),
        (
            "get_resources",
            {"kinds": ["deployments", "jobs"], "namespace": "tools"},
            "get deployments,jobs -n tools",
        ),
        (
            "get_resources",
            {"kind": "deployments", "namespace": "shop", "name": "cart"},
            "get deployments cart -n shop",
        ),
        (
            "describe",
            {"kind": "pod", "name": "cart-1", "namespace": "shop"},
            "describe pod cart-1 -n shop",
        ),
        (
            "pod_logs",
            {"pod": "cart-1", "namespace": "shop", "previous": True},
            "logs cart-1 -n shop --previous",
        ),
        ("events", {"namespace": "shop"}, "get events -n shop"),
        (
            "get_yaml",
            {"kind": "service", "name": "cart", "namespace": "shop"},
            "get service cart -n shop -o yaml",
        ),
        (
            "probe_url",
            {"url": "https://api.internal/health", "timeout_s": 3},
            "probe https://api.internal/health",
        ),
        (
            "top_errors",
            {"service": "checkout", "start": "now-1h", "end": "now"},
            "top_errors checkout",
        ),
        ("service_health", {"service": "checkout"}, "service_health checkout"),
        ("list_targets", {}, "list_targets"),
        ("list_targets", "not a mapping", "list_targets"),
    ],
)
def test_a_call_is_labelled_by_what_it_asked(tool, arguments, label):
    assert call_labels.call_label(tool, arguments) == label


def test_the_preview_is_the_results_summary_when_it_has_one():
    assert (
        call_labels.result_preview(
            {"summary": "3 pods, 2 failing", "rows": []}, '{"rows"'
        )
        == "3 pods, 2 failing"
    )
    assert call_labels.result_preview({"rows": []}, '{"rows": []}') == '{"rows": []}'
    assert call_labels.result_preview(None, "x" * 400).endswith("…")


def test_a_query_is_bounded_and_free_of_control_characters():
    assert call_labels.clean_query("  OOMKilled ") == "OOMKilled"
    assert call_labels.clean_query(None) == ""
    # As sent: a control character is refused even where the trim would drop it.
    for bad in (
        "x" * (call_labels.QUERY_MAX_CHARS + 1),
        "a\x00b",
        "\x1eword",
        "word\t",
    ):
        with pytest.raises(call_labels.BadQuery):
            call_labels.clean_query(bad)


def _spans(task):
    start = timezone.now()
    return [
        factories.make_span(
            task,
            span_id=f"{i:016x}",
            tool_name=tool,
            server_name=server,
            arguments_redacted=arguments,
            result=result,
            result_preview=str(result)[:100],
            started_at=start + timedelta(seconds=i),
            latency_ms=100.0,
        )
        for i, (server, tool, arguments, result) in enumerate(
            [
                (
                    "kubernetes",
                    "get_resources",
                    {"kind": "pods", "namespace": "shop"},
                    {"summary": "cartservice-1 OOMKilled"},
                ),
                (
                    "netcheck",
                    "probe_url",
                    {"url": "https://cart.shop/health"},
                    {"failed_layer": "connect"},
                ),
                (
                    "logs",
                    "top_errors",
                    {"service": "checkout"},
                    {"summary": "dial tcp cartservice: connection refused"},
                ),
            ],
            start=1,
        )
    ]


def test_the_search_keeps_calls_whose_tool_arguments_or_results_hold_every_word(
    db, tenant
):
    _, task = factories.make_incident(tenant)
    spans = _spans(task)
    found = lambda q, **kw: [s.span_id for s in call_labels.search(spans, q, **kw)]  # noqa: E731
    assert found("oomkilled") == [spans[0].span_id]  # a result, any case
    assert found("cart.shop") == [spans[1].span_id]  # an argument
    assert found("top_errors") == [spans[2].span_id]  # the tool
    assert found("cartservice refused") == [spans[2].span_id]  # every word
    assert found("") == [s.span_id for s in spans]
    assert found("", limit=2) == [s.span_id for s in spans[:2]]
    assert found("nothing-like-this") == []


def test_the_axis_starts_when_the_task_started(db, tenant):
    _, task = factories.make_incident(tenant)
    spans = _spans(task)
    origin = spans[0].started_at - timedelta(seconds=3)
    fall = trace_view.waterfall(spans, origin=origin, now=timezone.now())
    assert fall.bars[0].start_ms == 3000.0 and fall.bars[0].offset_percent > 0
    assert fall.bars[0].label == "get pods -n shop"
    assert fall.bars[0].preview == "cartservice-1 OOMKilled"


def test_the_trace_page_and_api_search_and_refuse_a_bad_query_with_json(
    client, member, token, tenant
):
    _, task = factories.make_incident(tenant)
    spans = _spans(task)
    client.force_login(member.user)
    page = reverse("diagnosis:task-trace", args=[task.id])
    body = client.get(page, {"q": "OOMKilled"}).content.decode()
    assert f'id="span-{spans[0].span_id}"' in body
    assert f'id="span-{spans[1].span_id}"' not in body
    assert '<code class="call-label">get pods -n shop</code>' in body
    api = f"/api/tasks/{task.id}/trace"
    headers = {"Authorization": f"Bearer {token}"}
    listed = client.get(api, {"q": "connection refused"}, headers=headers).json()[
        "spans"
    ]
    assert [s["span_id"] for s in listed] == [spans[2].span_id]
    too_long = "x" * (call_labels.QUERY_MAX_CHARS + 1)
    for response in (
        client.get(page, {"q": too_long}),
        client.get(api, {"q": too_long}, headers=headers),
    ):
        assert response.status_code == 400
        assert response.json()["fields"] == {"q": "at most 200 characters"}


# The incident page's tool rows read as the trace does (issue 20): server-rendered rows, the
# queued rows and the events the page's script appends live rows from.


def test_the_incident_pages_rows_read_like_the_trace(client, member, tenant):
    from diagnosis.pages import investigation

    incident, task = factories.make_incident(tenant)
    spans = _spans(task)
    rows = investigation.tool_rows(spans=spans, events=[])
    assert [row.label for row in rows] == [
        "get pods -n shop",
        "probe https://cart.shop/health",
        "top_errors checkout",
    ]
    assert rows[0].preview == "cartservice-1 OOMKilled"
    client.force_login(member.user)
    body = client.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    assert '<code class="tool" data-field="label">get pods -n shop</code>' in body
    assert "kubernetes.get_resources</code>" not in body
    assert 'aria-label="progress of top_errors checkout"' in body


def test_a_queued_row_reads_what_the_call_asks():
    from diagnosis.pages import investigation

    data = {
        "agent": "logs",
        "server": "logs",
        "tool": "top_errors",
        "arguments": {"service": "checkout"},
    }
    assert investigation._queued_row(data, "c1").label == "top_errors checkout"
    labelled = {**data, "label": "top_errors cart"}  # the engine's label wins
    assert investigation._queued_row(labelled, "c1").label == "top_errors cart"


def test_the_finished_event_carries_the_label_and_the_results_summary(db, tenant):
    from diagnosis.engine.executor import _finished_payload

    _, task = factories.make_incident(tenant)
    span = _spans(task)[0]
    data = _finished_payload(span, "kubernetes")
    assert data["label"] == "get pods -n shop"
    assert data["preview"] == "cartservice-1 OOMKilled"
